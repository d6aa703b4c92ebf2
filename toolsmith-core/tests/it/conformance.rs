//! The validator against the official JSON-Schema-Test-Suite (draft 2020-12).
//!
//! The vendored files (`tests/fixtures/json-schema-test-suite/`, with the suite's LICENSE) cover
//! the keywords the validator checks itself. A tool's input schema is always an object, so each
//! suite schema is wrapped as the one parameter `value` of an object schema (its local `$ref`s
//! rewritten to point into the wrapper) and each instance is sent as `{"value": instance}`.
//!
//! Every deliberate deviation from the suite is listed in [`DEVIATIONS`], with its reason; any
//! other disagreement fails the test. The test prints a table of files, cases and outcomes.

use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use toolsmith_core::validate::Validator;

/// (file, group description or `*` for every group, test description or `*` for the whole
/// group, reason).
///
/// These are the validator's documented deviations from draft 2020-12: the one place they are
/// listed. TESTING.md repeats the list.
/// A reference to a schema outside the tool's own schema.
const REMOTE: &str = "remote references are not fetched: a tool's schema is self-contained, and a reference outside it is refused when the tool is registered";
/// A reference by `$id` or `$anchor` rather than by JSON pointer.
const BY_ID: &str = "references are JSON pointers into the document (`#/$defs/name`, as schemars writes them); a reference by `$id` or `$anchor` is refused when the tool is registered";

/// Formats are assertions here (draft 2020-12 makes them annotations unless asked).
const FORMAT: &str = "formats are asserted, not annotations: a tool's arguments must be what the schema's format says, so an invalid date or email is refused";

const DEVIATIONS: &[(&str, &str, &str, &str)] = &[
    ("format.json", "*", "*", FORMAT),
    (
        "ref.json",
        "remote ref, containing refs itself",
        "*",
        REMOTE,
    ),
    (
        "ref.json",
        "Recursive references between schemas",
        "*",
        BY_ID,
    ),
    ("ref.json", "refs with relative uris and defs", "*", BY_ID),
    (
        "ref.json",
        "relative refs with absolute uris and defs",
        "*",
        BY_ID,
    ),
    (
        "ref.json",
        "$id must be resolved against nearest parent, not just immediate parent",
        "*",
        BY_ID,
    ),
    ("ref.json", "order of evaluation: $id and $ref", "*", BY_ID),
    (
        "ref.json",
        "order of evaluation: $id and $anchor and $ref",
        "*",
        BY_ID,
    ),
    (
        "ref.json",
        "order of evaluation: $id and $ref on nested schema",
        "*",
        BY_ID,
    ),
    (
        "ref.json",
        "simple URN base URI with $ref via the URN",
        "*",
        BY_ID,
    ),
    (
        "ref.json",
        "URN base URI with URN and JSON pointer ref",
        "*",
        BY_ID,
    ),
    (
        "ref.json",
        "URN base URI with URN and anchor ref",
        "*",
        BY_ID,
    ),
    ("ref.json", "URN ref with nested pointer ref", "*", BY_ID),
    ("ref.json", "ref to if", "*", BY_ID),
    ("ref.json", "ref to then", "*", BY_ID),
    ("ref.json", "ref to else", "*", BY_ID),
    ("ref.json", "ref with absolute-path-reference", "*", BY_ID),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/json-schema-test-suite/draft2020-12")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the fixtures directory exists")
        .map(|e| e.expect("a readable entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

/// Points every local `$ref` of a suite schema into the wrapper (`#/x` → `#/properties/value/x`).
fn rewrite_refs(schema: &mut Value) {
    match schema {
        Value::Object(obj) => {
            for (k, v) in obj.iter_mut() {
                if k == "$ref" && v.is_string() {
                    if let Some(r) = v.as_str().and_then(|r| r.strip_prefix('#')) {
                        if r.is_empty() || r.starts_with('/') {
                            *v = Value::String(format!("#/properties/value{r}"));
                        }
                    }
                } else if k != "const" && k != "enum" && k != "default" && k != "examples" {
                    rewrite_refs(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

/// The suite schema as the one parameter `value` of a tool's object schema.
fn wrap(schema: &Value) -> Value {
    let mut inner = schema.clone();
    if let Value::Object(obj) = &mut inner {
        obj.remove("$schema");
    }
    rewrite_refs(&mut inner);
    let mut props = Map::new();
    props.insert("value".into(), inner);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": props,
        "required": ["value"],
        "additionalProperties": false
    })
}

/// The index of the deviation that covers a case, if one does.
fn deviation(file: &str, group: &str, test: &str) -> Option<usize> {
    DEVIATIONS.iter().position(|(f, g, t, _)| {
        *f == file && (*g == "*" || *g == group) && (*t == "*" || *t == test)
    })
}

#[test]
fn the_validator_passes_the_vendored_json_schema_test_suite() {
    let root = fixtures();
    let mut paths = Vec::new();
    files(&root, &mut paths);
    assert!(paths.len() >= 30, "the vendored suite is missing files");
    let mut failures = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    let (mut total_pass, mut total_dev) = (0usize, 0usize);
    println!(
        "{:<40} {:>6} {:>6} {:>9}",
        "file", "cases", "pass", "deviation"
    );
    for path in &paths {
        let rel = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let groups: Vec<Value> = serde_json::from_str(&text).unwrap();
        let (mut cases, mut pass, mut dev) = (0usize, 0usize, 0usize);
        for group in &groups {
            let gdesc = group["description"].as_str().unwrap();
            let compiled = Validator::new(&wrap(&group["schema"]));
            for test in group["tests"].as_array().unwrap() {
                let tdesc = test["description"].as_str().unwrap();
                let expected = test["valid"].as_bool().unwrap();
                cases += 1;
                let args = json!({ "value": test["data"] });
                let outcome = match &compiled {
                    Ok(v) => Ok(v.is_valid(&args)),
                    Err(e) => Err(e.to_string()),
                };
                let agrees = outcome == Ok(expected);
                match (agrees, deviation(&name, gdesc, tdesc)) {
                    (true, _) => pass += 1,
                    (false, Some(d)) => {
                        dev += 1;
                        used.insert(d);
                    }
                    (false, None) => failures.push(format!(
                        "{rel}: {gdesc} / {tdesc}: expected {}, got {outcome:?}",
                        if expected { "valid" } else { "invalid" }
                    )),
                }
            }
        }
        total_pass += pass;
        total_dev += dev;
        println!("{rel:<40} {cases:>6} {pass:>6} {dev:>9}");
    }
    println!(
        "{:<40} {:>6} {:>6} {:>9}",
        "total",
        total_pass + total_dev + failures.len(),
        total_pass,
        total_dev
    );
    for (i, (f, g, _, _)) in DEVIATIONS.iter().enumerate() {
        assert!(
            used.contains(&i),
            "the deviation {f} / {g} covers no disagreeing case; remove it"
        );
    }
    assert!(
        failures.is_empty(),
        "{} cases disagree with the suite:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
