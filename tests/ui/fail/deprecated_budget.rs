use toolsmith::tool;

// The description alone fits the budget of 500 characters; with the deprecation notice it does not.
/// Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Only contracts signed.
#[tool(read_only, deprecated(since = "3", note = "the archive moved", replaced_by = "search_archive"))]
fn search_contracts(
    /// The counterparty, e.g. "Fjellsport AS".
    counterparty: String,
) -> Vec<String> {
    vec![counterparty]
}

fn main() {}
