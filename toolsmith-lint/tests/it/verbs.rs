//! The verb-first name rule (`name_style`) against real names: every tool of the captured MCP
//! catalogs and every `#[tool]` of this workspace starts with a verb the rule knows, ordinary verbs
//! are not reported, and noun-first names still are.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use toolsmith_lint::{lint_tool_list, LintConfig};

/// The message of the rule for a name whose first word is no verb.
const NOT_A_VERB: &str = "does not start with a verb";

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// What `name_style` says of a tool name, or `None`.
fn name_problem(name: &str) -> Option<String> {
    let list = json!({"tools": [{
        "name": name,
        "description": "Returns the answer.",
        "inputSchema": {"type": "object"},
    }]});
    lint_tool_list(&list, &LintConfig::default())
        .unwrap()
        .into_iter()
        .find(|f| f.rule == "name_style" && f.pointer == "/name")
        .map(|f| f.message)
}

/// Whether the rule reports `name` as not starting with a verb.
fn not_verb_first(name: &str) -> bool {
    name_problem(name).is_some_and(|m| m.contains(NOT_A_VERB))
}

/// The tool names of every catalog (`*.json`, an MCP `tools/list` result) in `dir`.
fn catalog_names(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no catalog in {}", dir.display());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        let tools = doc["tools"]
            .as_array()
            .or_else(|| doc["result"]["tools"].as_array())
            .unwrap_or_else(|| panic!("{}: no tools", path.display()));
        assert!(!tools.is_empty(), "{}", path.display());
        names.extend(
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string()),
        );
    }
    names
}

#[test]
fn every_tool_of_the_real_catalogs_starts_with_a_verb() {
    // The catalogs the repository keeps, and the shared ones beside the repository (CI lays
    // `shared/` there as it is for the sessions).
    let mut dirs = vec![root().join("tests/fixtures/catalogs")];
    let shared = root().join("../shared/catalogs");
    if shared.is_dir() {
        dirs.push(shared);
    }
    let mut seen = 0;
    for dir in dirs {
        for name in catalog_names(&dir) {
            seen += 1;
            // Kebab-case names (`get-env`) are reported for their case first: judge their words.
            let snake = name.replace('-', "_");
            // directory_tree names what it returns, not what it does: the one noun phrase of the
            // catalogs, reported on purpose (tests/it/catalogs.rs).
            if snake == "directory_tree" {
                assert!(not_verb_first(&snake));
                continue;
            }
            assert!(
                !not_verb_first(&snake),
                "{name} ({}): {:?}",
                dir.display(),
                name_problem(&snake)
            );
        }
    }
    assert!(seen >= 27, "{seen} catalog tools");
}

/// `(file, tool name)` of every `#[tool]` function under `dir`: the `name = "..."` of the
/// attribute, or the name of the `fn` after it.
fn tool_fns(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                tool_fns(&path, out);
            }
            continue;
        }
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let attr = line.trim_start();
            if !(attr.starts_with("#[tool]") || attr.starts_with("#[tool(")) {
                continue;
            }
            // A name someone else chose (the conformance suite's fixtures) carries the lint's
            // own exception, with its reason.
            let whole: String = lines[i..]
                .iter()
                .map(|l| l.trim())
                .scan(false, |ended, l| {
                    let take = !*ended;
                    *ended = l.ends_with(")]") || l == "#[tool]";
                    take.then_some(l)
                })
                .collect();
            if whole.contains("allow(name_style, reason = \"") {
                continue;
            }
            if let Some(at) = attr.find("name = \"") {
                let rest = &attr[at + 8..];
                out.push((path.clone(), rest[..rest.find('"').unwrap()].to_string()));
                continue;
            }
            // The `fn` the attribute (and any further attributes and doc comments) stands on;
            // none when it stands on another item (a UI case of a misplaced `#[tool]`).
            let item = lines[i + 1..].iter().map(|l| l.trim()).find(|l| {
                l.contains("fn ")
                    || [
                        "struct ", "enum ", "impl ", "mod ", "const ", "static ", "#[tool",
                    ]
                    .iter()
                    .any(|k| l.starts_with(k) || l.starts_with(&format!("pub {k}")))
            });
            let Some(item) = item else { continue };
            let Some(at) = item.find("fn ") else { continue };
            let name: String = item[at + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push((path.clone(), name));
        }
    }
}

#[test]
fn every_tool_of_the_workspace_starts_with_a_verb() {
    let mut tools = Vec::new();
    for dir in [
        "examples",
        "tests",
        "src",
        "bench",
        "toolsmith-cli",
        "toolsmith-core",
        "toolsmith-macros",
    ] {
        tool_fns(&root().join(dir), &mut tools);
    }
    assert!(tools.len() > 100, "{} tools", tools.len());
    let ui_fail = root().join("tests/ui/fail");
    for (file, name) in &tools {
        if !not_verb_first(name) {
            continue;
        }
        // A UI case may name a tool with a noun on purpose; then it expects the warning.
        let expected = file.starts_with(&ui_fail)
            && std::fs::read_to_string(file.with_extension("stderr"))
                .is_ok_and(|e| e.contains(&format!("name \"{name}\" {NOT_A_VERB}")));
        assert!(
            expected,
            "{name} ({}): {:?}",
            file.display(),
            name_problem(name)
        );
    }
    // The UI cases still show the warning on a noun name.
    assert!(tools
        .iter()
        .any(|(f, n)| f.starts_with(&ui_fail) && not_verb_first(n)));
}

#[test]
fn ordinary_verbs_are_verbs() {
    for name in [
        "charge_card",
        "make_output",
        "crash_now",
        "sleep_long",
        "leak_report",
        "pick_names",
        "bump_counter",
        "empty_trash",
        "free_memory",
        "unzip_archive",
        "geocode_address",
        "rerank_results",
        "summarise_thread",
        "spawn_worker",
    ] {
        assert_eq!(name_problem(name), None, "{name}");
    }
}

#[test]
fn noun_first_names_are_still_reported() {
    for name in [
        "checksum_archive",
        "user_list",
        "products",
        "weather",
        "directory_tree",
        "numbers_sum",
        "file_info",
        "account_balance",
        "customer_orders",
        "system_status",
        "document_search",
        "message_history",
    ] {
        let problem = name_problem(name).unwrap_or_default();
        assert!(
            problem.starts_with(&format!("name \"{name}\" {NOT_A_VERB}")),
            "{name}: {problem:?}"
        );
    }
}
