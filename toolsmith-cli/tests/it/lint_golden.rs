//! `toolsmith lint` output locked byte for byte: the human and JSON reports of the real catalogs
//! and of crafted lists (every rule, every input shape, non-ASCII and invisible text, escapes in
//! keys), and the SHA-256 of both reports on a 10,000-tool list built from the catalogs, as the
//! benchmark builds it. Speed work on the lint must leave every finding as it was.
//!
//! `TOOLSMITH_UPDATE_SNAPSHOTS=1` rewrites the files under `tests/golden/` (review the diff).

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn golden(name: &str) -> PathBuf {
    manifest().join("tests/golden").join(name)
}

/// Runs `toolsmith lint ARGS` in `dir` (so file labels are relative and stable); returns the
/// exit code and standard output.
fn lint(dir: &Path, args: &[&str]) -> (i32, Vec<u8>) {
    let o = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .arg("lint")
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.stderr.is_empty(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().expect("exited normally"), o.stdout)
}

fn check(name: &str, got: &[u8]) {
    let path = golden(name);
    if toolsmith_spec::export::update_requested() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if want != got {
        let (w, g) = (String::from_utf8_lossy(&want), String::from_utf8_lossy(got));
        let line = w
            .lines()
            .zip(g.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(w.lines().count().min(g.lines().count()));
        panic!(
            "{name} differs from {} at line {}:\n  want: {:?}\n  got:  {:?}",
            path.display(),
            line + 1,
            w.lines().nth(line).unwrap_or("<end>"),
            g.lines().nth(line).unwrap_or("<end>"),
        );
    }
}

#[test]
fn catalogs_and_crafted_lists_lint_exactly_as_recorded() {
    let catalogs = manifest().join("../tests/fixtures/catalogs");
    let crafted = manifest().join("tests/fixtures/lint");
    let cases: [(&Path, &str, i32); 5] = [
        (&catalogs, "everything.json", 1),
        (&catalogs, "filesystem.json", 1),
        (&crafted, "poisoned.json", 1),
        (&crafted, "shapes.json", 1),
        // One tool per attack class and a list that forms a toxic flow.
        (&crafted, "attacks.json", 1),
    ];
    for (dir, file, rc) in cases {
        let stem = file.trim_end_matches(".json");
        let (code, human) = lint(dir, &["--color", "never", file]);
        assert_eq!(code, rc, "{file}");
        check(&format!("{stem}.txt"), &human);
        let (code, json) = lint(dir, &["--format", "json", file]);
        assert_eq!(code, rc, "{file}");
        check(&format!("{stem}.json"), &json);
        let (code, sarif) = lint(dir, &["--format", "sarif", file]);
        assert_eq!(code, rc, "{file}");
        check(&format!("{stem}.sarif"), &sarif);
    }
    // Both crafted lists in one run: findings of two files, the summary over both.
    let (_, both) = lint(
        &crafted,
        &["--color", "never", "poisoned.json", "shapes.json"],
    );
    check("poisoned+shapes.txt", &both);
}

#[test]
fn a_ten_thousand_tool_list_lints_exactly_as_recorded() {
    // The benchmark's list: the catalogs' tools (files in name order) cycled to 10,000.
    let catalogs = manifest().join("../tests/fixtures/catalogs");
    let mut tools = Vec::new();
    for name in ["everything", "filesystem"] {
        let text = std::fs::read_to_string(catalogs.join(format!("{name}.json"))).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        tools.extend(doc["tools"].as_array().unwrap().iter().cloned());
    }
    let list: Vec<&serde_json::Value> = (0..10_000).map(|i| &tools[i % tools.len()]).collect();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lint-golden");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("list-10000.json"),
        serde_json::to_string(&serde_json::json!({ "tools": list })).unwrap(),
    )
    .unwrap();
    let mut sums = String::new();
    for (what, args) in [
        ("human", &["--color", "never", "list-10000.json"][..]),
        ("json", &["--format", "json", "list-10000.json"][..]),
    ] {
        let (code, out) = lint(&dir, args);
        assert_eq!(code, 1, "{what}");
        sums.push_str(&format!(
            "{what} {:x} {} bytes\n",
            Sha256::digest(&out),
            out.len()
        ));
    }
    check("list-10000.sha256", sums.as_bytes());
}

#[test]
fn the_rules_reference_quotes_real_output_of_every_security_rule() {
    // Each security rule's section in the one reference (toolsmith-lint/RULES.md) shows a finding as
    // `toolsmith lint` prints it: the line must be one the recorded reports hold, so it changes
    // when the output does.
    let readme = std::fs::read_to_string(manifest().join("../toolsmith-lint/RULES.md")).unwrap();
    let reports: String = ["attacks.txt", "poisoned.txt"]
        .iter()
        .map(|f| std::fs::read_to_string(golden(f)).unwrap())
        .collect();
    for rule in toolsmith_lint::RULES.iter().filter(|r| r.poisoning) {
        let heading = format!("\n## `{}`\n", rule.id);
        let start = readme
            .find(&heading)
            .unwrap_or_else(|| panic!("no {heading}"));
        let section = &readme[start + heading.len()..];
        let section = &section[..section.find("\n#").unwrap_or(section.len())];
        let shown: Vec<&str> = section
            .lines()
            .filter(|l| {
                // An error where the rule is sure, a warning where it is not.
                l.starts_with(&format!("error[{}]", rule.id))
                    || l.starts_with(&format!("warning[{}]", rule.id))
            })
            .collect();
        assert!(!shown.is_empty(), "{heading} shows no output");
        for line in shown {
            assert!(
                reports.lines().any(|l| l == line),
                "{heading} shows output the reports do not hold: {line}"
            );
        }
    }
}
