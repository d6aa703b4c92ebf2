//! The README stays true: its set-up commands exist and it documents every lint rule.

const README: &str = include_str!("../README.md");

#[test]
fn readme_shows_the_two_set_up_commands() {
    assert!(README.contains("cargo run --example quickstart"));
    assert!(README.contains("cargo test --workspace"));
    let ci = include_str!("../.ci/run");
    assert!(
        ci.contains("cargo test --workspace"),
        ".ci/run runs the README's test command"
    );
}

#[test]
fn readme_documents_every_lint_rule_with_a_bad_and_a_good_example() {
    for rule in toolsmith::lint::RULES {
        let heading = format!("### `{}`", rule.id);
        let start = README
            .find(&heading)
            .unwrap_or_else(|| panic!("README has no section {heading}"));
        let section = &README[start + heading.len()..];
        let end = section.find("\n#").unwrap_or(section.len());
        let section = &section[..end];
        assert!(section.contains("- Bad:"), "{heading} has no bad example");
        assert!(section.contains("- Good:"), "{heading} has no good example");
    }
}

#[test]
fn readme_pipeline_table_lists_the_stages_in_their_order() {
    let start = README
        .find("| stage | what it does |")
        .expect("README has the pipeline table");
    let names: Vec<&str> = README[start..]
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            let cell = line.split('|').nth(1).unwrap_or_default().trim();
            cell.trim_matches('`')
        })
        .collect();
    let order: Vec<&str> = toolsmith::pipeline::ORDER
        .iter()
        .map(|s| s.name())
        .collect();
    assert_eq!(names, order, "README's pipeline table vs pipeline::ORDER");
}
