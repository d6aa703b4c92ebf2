#![deny(deprecated)]
use toolsmith::{tool, Toolbox};

/// Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt.
#[tool(read_only, allow(description_budget, reason = "the search syntax must be described in full"))]
fn search_contracts(
    /// Counterparty name, e.g. "Fjellsport AS".
    counterparty: String,
) -> Vec<String> {
    vec![counterparty]
}

fn main() {
    let toolbox = Toolbox::builder().tool(search_contracts::tool()).build().unwrap();
    let spec = toolbox.spec("search_contracts").unwrap();
    assert!(spec.description.chars().count() > 500);
    assert_eq!(spec.allows[0].rule, "description_budget");
    assert_eq!(spec.allows[0].reason, "the search syntax must be described in full");
    assert!(toolsmith::lint::lint(&spec).is_empty());
}
