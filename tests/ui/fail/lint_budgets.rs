use toolsmith::tool;

/// Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt.
#[tool(read_only)]
fn search_signed_contracts_by_party_and_date(
    /// The exact name of the counterparty as written in the contract header, including legal suffixes such as AS, ASA, AB, GmbH or Ltd, e.g. "Fjellsport AS" or "Nordic Gear AB".
    counterparty: String,
    /// Earliest signing date, e.g. "2026-01-31".
    earliest_signing_date_of_the_contract_to_include: Option<String>,
) -> Vec<String> {
    let _ = earliest_signing_date_of_the_contract_to_include;
    vec![counterparty]
}

fn main() {}
