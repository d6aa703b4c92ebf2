//! The crate `lint-profile` (tests/lint-profile), which chooses the `openai` lint profile in its
//! manifest: the macro read it.

#[test]
fn the_profile_admits_what_chrome_would_not() {
    let spec = lint_profile::search_signed_contracts_by_party_and_date::tool()
        .spec()
        .clone();
    assert!(spec.description.chars().count() > 500);
    assert!(spec.name.chars().count() > 30);
    let chrome = toolsmith::lint::lint(&spec);
    let rules: Vec<&str> = chrome.iter().map(|f| f.rule).collect();
    assert!(rules.contains(&"description_budget"), "{rules:?}");
    assert!(rules.contains(&"name_budget"), "{rules:?}");
    let openai =
        toolsmith::lint::LintConfig::from_manifest_str(include_str!("../lint-profile/Cargo.toml"))
            .unwrap();
    assert!(toolsmith::lint::lint_with(&spec, &openai).is_empty());
}
