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

#[cfg(test)]
mod tests {
    #[test]
    fn the_profile_admits_what_chrome_would_not() {
        let spec = super::search_signed_contracts_by_party_and_date::tool()
            .spec()
            .clone();
        assert!(spec.description.chars().count() > 500);
        assert!(spec.name.chars().count() > 30);
        let chrome = toolsmith::lint::lint(&spec);
        let rules: Vec<&str> = chrome.iter().map(|f| f.rule).collect();
        assert!(rules.contains(&"description_budget"), "{rules:?}");
        assert!(rules.contains(&"name_budget"), "{rules:?}");
        let openai =
            toolsmith::lint::LintConfig::from_manifest_str(include_str!("../Cargo.toml")).unwrap();
        assert!(toolsmith::lint::lint_with(&spec, &openai).is_empty());
    }
}
