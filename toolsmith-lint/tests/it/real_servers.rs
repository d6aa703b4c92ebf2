//! Regression check on real servers' text: the work set of `tests/real-servers/lists/` (the
//! `tools/list` results of 82 real MCP servers, see the README there), each list linted as its
//! own list, must keep security **errors** on at most 1% of its tools.
//!
//! The figure is an aggregate over every server, never a count on one list: no rule is shaped
//! around an entry of this data. The held-out set beside it is measured by
//! `scripts/measure-lint.py --held-out`, not here, so that a failing test never invites tuning on
//! it.

use std::path::Path;

use serde_json::Value;
use toolsmith_lint::{lint_tool_list, tool_definitions, LintConfig, Severity};

/// The most tools of the work set that may carry a security error, as a share.
const CEILING: f64 = 0.01;

#[test]
fn real_servers_rarely_get_a_security_error() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-servers/lists");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 80, "the work set has {} lists", paths.len());
    let cfg = LintConfig::default();
    let (mut tools, mut flagged) = (0usize, Vec::new());
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let list: Value = serde_json::from_str(&text).unwrap();
        let count = tool_definitions(&list).unwrap().len();
        tools += count;
        let findings = lint_tool_list(&list, &cfg).unwrap();
        let mut errors: Vec<(&str, &str)> = findings
            .iter()
            .filter(|f| {
                f.severity == Severity::Error
                    && f.rule != "toxic_flow"
                    && toolsmith_lint::rule(f.rule).is_some_and(|r| r.poisoning)
            })
            .map(|f| (f.tool.as_str(), f.rule))
            .collect();
        errors.sort();
        errors.dedup_by_key(|e| e.0);
        let server = path.file_stem().unwrap().to_string_lossy().into_owned();
        flagged.extend(
            errors
                .into_iter()
                .map(|(t, r)| format!("{server}/{t} ({r})")),
        );
    }
    let share = flagged.len() as f64 / tools as f64;
    eprintln!(
        "{} of {tools} real tools ({:.2}%) have a security error:\n  {}",
        flagged.len(),
        100.0 * share,
        flagged.join("\n  ")
    );
    assert!(
        share <= CEILING,
        "{} of {tools} real tools ({:.2}%) have a security error; at most {:.0}% may",
        flagged.len(),
        100.0 * share,
        100.0 * CEILING
    );
}

/// `constraint_contradicted` (a compile error of `#[tool]`) read on real parameter text: each
/// top-level parameter of the work set's lists, declared as its own schema declares it
/// (`required`, `default`, the bounds of its type), against its description. Real servers'
/// parameters say "required" of their fields, "must be provided" of one of two, "default" as an
/// adjective and counts of other things: none of it may be read as a contradiction.
#[test]
fn real_parameter_texts_agree_with_their_schemas() {
    use toolsmith_lint::compile_checks::{
        constraint_contradicted, Bound, Declared, Literal, Measure,
    };
    let bound = |key: &'static str, v: Option<&Value>, exclusive: bool| {
        v.and_then(Value::as_f64).map(|value| Bound {
            key,
            value,
            exclusive,
        })
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-servers/lists");
    let (mut params, mut found) = (0usize, Vec::new());
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let list: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for tool in tool_definitions(&list).unwrap() {
            let schema = &tool["inputSchema"];
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let Some(props) = schema["properties"].as_object() else {
                continue;
            };
            for (name, p) in props {
                let Some(text) = p["description"].as_str() else {
                    continue;
                };
                params += 1;
                let ty = p["type"].as_str().unwrap_or("");
                let measure = match ty {
                    "string" => Measure::Length,
                    "array" => Measure::Items,
                    _ => Measure::Value,
                };
                let (lower, upper) = match measure {
                    Measure::Length => (
                        bound("min_length", p.get("minLength"), false),
                        bound("max_length", p.get("maxLength"), false),
                    ),
                    Measure::Items => (
                        bound("min_items", p.get("minItems"), false),
                        bound("max_items", p.get("maxItems"), false),
                    ),
                    Measure::Value => (
                        bound("minimum", p.get("minimum"), false).or(bound(
                            "exclusive_minimum",
                            p.get("exclusiveMinimum"),
                            true,
                        )),
                        bound("maximum", p.get("maximum"), false).or(bound(
                            "exclusive_maximum",
                            p.get("exclusiveMaximum"),
                            true,
                        )),
                    ),
                };
                let default = match p.get("default") {
                    Some(Value::Number(n)) => n.as_f64().map(Literal::Number),
                    Some(Value::String(s)) => Some(Literal::Text(s.clone())),
                    Some(Value::Bool(b)) => Some(Literal::Bool(*b)),
                    _ => None,
                };
                let declared = Declared {
                    name,
                    ty,
                    optional: !required.contains(&name.as_str()),
                    has_default: p.get("default").is_some(),
                    default,
                    measure,
                    integer: ty == "integer" || measure != Measure::Value,
                    lower,
                    upper,
                    narrowed: false,
                };
                let tool_name = tool["name"].as_str().unwrap_or_default();
                found.extend(
                    constraint_contradicted(tool_name, &declared, text)
                        .into_iter()
                        .map(|f| format!("{tool_name}.{name}: {}", f.message)),
                );
            }
        }
    }
    assert!(
        params > 5_000,
        "the work set has {params} described parameters"
    );
    assert!(
        found.is_empty(),
        "{} of {params} real parameter texts read as contradicting their schema:\n  {}",
        found.len(),
        found.join("\n  ")
    );
}
