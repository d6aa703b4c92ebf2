//! A tool over the chrome budgets (description 599 > 500, a name of 41 > 30 characters and a
//! parameter description of 170 > 150) that the `openai` profile (1024, 64) with
//! `param_description_budget = 200` accepts.

use toolsmith::tool;

/// Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt. Searches the archive of signed contracts by party, date and clause. Returns matching contracts with title, parties, signing date and a short excerpt.
#[tool(read_only)]
pub fn search_signed_contracts_by_party_and_date(
    /// The exact name of the counterparty as written in the contract header, including legal suffixes such as AS, ASA, AB, GmbH or Ltd, e.g. "Fjellsport AS" or "Nordic Gear AB".
    counterparty: String,
) -> Vec<String> {
    vec![counterparty]
}
