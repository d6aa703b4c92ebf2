//! The README stays true (its set-up commands, its pointer to the one lint reference), and so do
//! the tables of the calling guide (`src/docs/guide/calling.md`) against the code.

const README: &str = include_str!("../../README.md");

#[test]
fn readme_shows_the_two_set_up_commands() {
    assert!(README.contains("cargo run --example quickstart"));
    assert!(README.contains("cargo test --workspace"));
    let ci = include_str!("../../.ci/run");
    assert!(
        ci.contains("cargo test --workspace"),
        ".ci/run runs the README's test command"
    );
}

/// The lint rules have one reference, `toolsmith-lint/RULES.md` (checked rule by rule in
/// `toolsmith-lint/tests/it/rules.rs`); the README points to it instead of copying it.
#[test]
fn readme_points_to_the_one_lint_reference() {
    assert!(README.contains("[`toolsmith-lint/RULES.md`](toolsmith-lint/RULES.md)"));
    for rule in toolsmith::lint::RULES {
        assert!(
            !README.contains(&format!("### `{}`", rule.id)),
            "the README copies the reference's section on `{}`",
            rule.id
        );
    }
}

#[test]
fn readme_pipeline_table_lists_the_stages_in_their_order() {
    let start = CALLING
        .find("| stage | what it does |")
        .expect("the calling guide has the pipeline table");
    let names: Vec<&str> = CALLING[start..]
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
    assert_eq!(
        names, order,
        "the calling guide's pipeline table vs pipeline::ORDER"
    );
}

/// The guide on calling (`toolsmith::guide::calling`), which holds the pipeline's and the codes'
/// tables.
const CALLING: &str = include_str!("../../src/docs/guide/calling.md");

/// The rows of the calling guide's table under `heading` whose first cell is a code: (code,
/// status cell).
fn code_rows(heading: &str) -> Vec<(String, String)> {
    let start = CALLING
        .find(heading)
        .unwrap_or_else(|| panic!("the calling guide has no section {heading}"));
    let section = &CALLING[start + heading.len()..];
    let end = section.find("\n#").unwrap_or(section.len());
    section[..end]
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|rest| {
            let (code, rest) = rest.split_once("` |")?;
            let status = rest.split(" |").next()?.trim();
            code.chars()
                .all(|c| c.is_ascii_uppercase() || c == '_')
                .then(|| (code.to_string(), status.to_string()))
        })
        .collect()
}

/// A status as the calling guide's code tables write it.
fn status_cell(status: Option<toolsmith::Status>) -> String {
    status.map_or_else(|| "none (audit only)".to_string(), |s| format!("`{s}`"))
}

#[test]
fn readme_code_table_and_codes_all_agree_both_ways() {
    let readme = code_rows("# Stable codes");
    let all: Vec<(String, String)> = toolsmith::codes::ALL
        .iter()
        .map(|c| (c.code.to_string(), status_cell(c.status)))
        .collect();
    let sides = [
        (
            &readme,
            &all,
            "the calling guide's code table",
            "codes::ALL",
        ),
        (
            &all,
            &readme,
            "codes::ALL",
            "the calling guide's code table",
        ),
    ];
    for (rows, other, here, there) in sides {
        for (code, status) in rows {
            assert!(
                other.contains(&(code.clone(), status.clone())),
                "{here} has {code} with {status}; {there} does not"
            );
        }
    }
    assert_eq!(
        readme.len(),
        all.len(),
        "the calling guide lists a code twice"
    );
}

#[test]
fn readme_validation_examples_use_the_codes_statuses() {
    let rows = code_rows("# Calling: validation and the envelope");
    assert!(
        rows.len() >= 7,
        "the validation table has {} rows",
        rows.len()
    );
    for (code, status) in rows {
        assert_eq!(
            Some(status.clone()),
            toolsmith::codes::ALL
                .iter()
                .find(|c| c.code == code)
                .map(|c| status_cell(c.status)),
            "the calling guide shows {code} with {status}"
        );
    }
}

#[test]
fn mcp_page_client_example_is_the_tool_the_mcp_tests_run() {
    // The `toolsmith::mcp` page compiles the block as a doctest; this keeps it the very tool
    // tests/it/mcp_client.rs drives over a real MCP session.
    const PAGE: &str = include_str!("../../src/docs/mcp.md");
    let start = PAGE
        .find("async fn ask_boot_size")
        .expect("the mcp page shows a tool that asks the user");
    let block_start = PAGE[..start].rfind("```rust").expect("in a rust block");
    let block_end = start + PAGE[start..].find("```").expect("the block ends");
    // The block is indented in its list item; the test file has it at the left margin.
    let lines: Vec<&str> = PAGE[block_start..block_end]
        .lines()
        .skip(1)
        .map(|l| l.strip_prefix("  ").unwrap_or(l))
        .skip_while(|l| l.starts_with("use ") || l.is_empty())
        .collect();
    let shown = lines.join("\n");
    let tested = include_str!("mcp_client.rs");
    assert!(
        tested.contains(shown.trim_end()),
        "the mcp page's client example differs from tests/it/mcp_client.rs:\n{shown}"
    );
}
