//! `toolsmith diff OLD NEW`: every change between two tool lists, classified.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};
use tool_spec::canonical_json;

use crate::input::{self, name_of};
use crate::measure::{tokenizer, tool_cost, TOKENIZER};
use crate::{emit, CliError, DiffFormat, FailOn};

/// How a change affects the agents and hosts that use the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Old calls keep working; nothing the model relied on changed.
    Compatible,
    /// The model reads a new label (description, title, parameter description).
    AgentVisible,
    /// Old calls may fail or mean something else; or the tool does more than approved.
    Breaking,
}

impl Class {
    /// `breaking`, `agent-visible` or `compatible`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Compatible => "compatible",
            Class::AgentVisible => "agent-visible",
            Class::Breaking => "breaking",
        }
    }
}

/// One change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// Its class.
    pub class: Class,
    /// The tool (its new name for a rename).
    pub tool: String,
    /// A JSON pointer into the tool's MCP-shaped definition (`""` for the whole tool).
    pub at: String,
    /// What changed, in words.
    pub what: String,
}

struct Diff {
    changes: Vec<Change>,
    tool: String,
}

impl Diff {
    fn push(&mut self, class: Class, at: &str, what: impl Into<String>) {
        self.changes.push(Change {
            class,
            tool: self.tool.clone(),
            at: at.to_string(),
            what: what.into(),
        });
    }
}

/// The changes from `old` to `new` (MCP-shaped definitions), in new-list order, removed tools
/// last.
pub fn changes(old: &[Value], new: &[Value]) -> Vec<Change> {
    let old_by: HashMap<&str, &Value> = old.iter().map(|d| (name_of(d), d)).collect();
    let new_names: HashSet<&str> = new.iter().map(name_of).collect();
    let removed: Vec<&Value> = old
        .iter()
        .filter(|d| !new_names.contains(name_of(d)))
        .collect();
    let mut renamed_from: HashMap<&str, &Value> = HashMap::new();
    let mut used: HashSet<&str> = HashSet::new();
    for d in new.iter().filter(|d| !old_by.contains_key(name_of(d))) {
        let schema = d.get("inputSchema").map(canonical_json);
        if let Some(r) = removed.iter().find(|r| {
            !used.contains(name_of(r))
                && r.get("inputSchema").map(canonical_json) == schema
                && schema.is_some()
        }) {
            used.insert(name_of(r));
            renamed_from.insert(name_of(d), r);
        }
    }
    let mut out = Vec::new();
    for d in new {
        let name = name_of(d);
        let mut diff = Diff {
            changes: Vec::new(),
            tool: name.to_string(),
        };
        if let Some(o) = old_by.get(name) {
            compare_tool(o, d, &mut diff);
        } else if let Some(o) = renamed_from.get(name) {
            diff.push(
                Class::Breaking,
                "/name",
                format!("tool renamed from `{}`", name_of(o)),
            );
            compare_tool(o, d, &mut diff);
        } else {
            diff.push(Class::Compatible, "", "new tool");
        }
        out.extend(diff.changes);
    }
    for r in removed.iter().filter(|r| !used.contains(name_of(r))) {
        out.push(Change {
            class: Class::Breaking,
            tool: name_of(r).to_string(),
            at: String::new(),
            what: "tool removed".into(),
        });
    }
    out
}

fn text(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

fn compare_tool(o: &Value, n: &Value, diff: &mut Diff) {
    for (key, label) in [("title", "title"), ("description", "description")] {
        if text(o.get(key)) != text(n.get(key)) {
            diff.push(
                Class::AgentVisible,
                &format!("/{key}"),
                format!("{label} changed"),
            );
        }
    }
    let empty = json!({});
    compare_schema(
        o.get("inputSchema").unwrap_or(&empty),
        n.get("inputSchema").unwrap_or(&empty),
        "/inputSchema",
        "",
        diff,
    );
    match (o.get("outputSchema"), n.get("outputSchema")) {
        (None, None) => {}
        (Some(a), Some(b)) if canonical_json(a) == canonical_json(b) => {}
        (None, Some(_)) => diff.push(Class::Compatible, "/outputSchema", "output schema added"),
        (Some(_), None) => diff.push(
            Class::Breaking,
            "/outputSchema",
            "output schema removed: structured results are no longer promised",
        ),
        (Some(_), Some(_)) => diff.push(
            Class::AgentVisible,
            "/outputSchema",
            "output schema changed",
        ),
    }
    let (eo, en) = (effects(o), effects(n));
    for (i, name) in ["writes", "destructive", "open-world", "not idempotent"]
        .iter()
        .enumerate()
    {
        if !eo[i] && en[i] {
            diff.push(
                Class::Breaking,
                "/annotations",
                format!("effects widened: now {name}"),
            );
        } else if eo[i] && !en[i] {
            diff.push(
                Class::Compatible,
                "/annotations",
                format!("effects narrowed: no longer {name}"),
            );
        }
    }
    if text(o.pointer("/annotations/title")) != text(n.pointer("/annotations/title")) {
        diff.push(
            Class::AgentVisible,
            "/annotations/title",
            "annotation title changed",
        );
    }
    other_fields(o, n, diff);
}

/// The fields [`compare_tool`] reads itself; every other one is compared whole.
const KNOWN: [&str; 6] = crate::pin::FIELDS;

/// Changes to the other fields a server sent (`execution`, `icons`, `_meta`, vendor fields):
/// agent-visible, since what they do to a host or an agent is not known here; they are shown
/// for review.
fn other_fields(o: &Value, n: &Value, diff: &mut Diff) {
    let (Some(om), Some(nm)) = (o.as_object(), n.as_object()) else {
        return;
    };
    let mut keys: Vec<&String> = om.keys().chain(nm.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    for k in keys.into_iter().filter(|k| !KNOWN.contains(&k.as_str())) {
        let at = format!("/{}", tool_lint::escape_pointer_token(k));
        let what = match (om.get(k), nm.get(k)) {
            (Some(a), Some(b)) if canonical_json(a) == canonical_json(b) => continue,
            (Some(_), Some(_)) => format!("field `{k}` changed"),
            (None, Some(_)) => format!("field `{k}` added"),
            (Some(_), None) => format!("field `{k}` removed"),
            (None, None) => continue,
        };
        diff.push(Class::AgentVisible, &at, what);
    }
}

/// `[writes, destructive, open world, not idempotent]` under MCP's defaults (a tool that says
/// nothing may write, destroy and reach the open world).
fn effects(d: &Value) -> [bool; 4] {
    let hint = |k: &str| {
        d.pointer(&format!("/annotations/{k}"))
            .and_then(Value::as_bool)
    };
    let read_only = hint("readOnlyHint") == Some(true);
    [
        !read_only,
        !read_only && hint("destructiveHint") != Some(false),
        hint("openWorldHint") != Some(false),
        !read_only && hint("idempotentHint") != Some(true),
    ]
}

fn types(s: &Value) -> Option<BTreeSet<String>> {
    match s.get("type") {
        Some(Value::String(t)) => {
            let mut set = BTreeSet::from([t.clone()]);
            if t == "number" {
                set.insert("integer".into());
            }
            Some(set)
        }
        Some(Value::Array(ts)) => {
            let mut set: BTreeSet<String> = ts
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect();
            if set.contains("number") {
                set.insert("integer".into());
            }
            Some(set)
        }
        _ => None,
    }
}

fn show_type(s: &Value) -> String {
    s.get("type").map_or_else(
        || "any".into(),
        |t| match t {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        },
    )
}

fn num(s: &Value, k: &str) -> Option<f64> {
    s.get(k).and_then(Value::as_f64)
}

fn param_label(param: &str) -> String {
    if param.is_empty() {
        "the input".into()
    } else {
        format!("parameter `{param}`")
    }
}

fn compare_schema(o: &Value, n: &Value, at: &str, param: &str, diff: &mut Diff) {
    let label = param_label(param);
    if text(o.get("description")) != text(n.get("description")) && !param.is_empty() {
        diff.push(
            Class::AgentVisible,
            &format!("{at}/description"),
            format!("description of {label} changed"),
        );
    }
    match (types(o), types(n)) {
        (Some(a), Some(b)) if a != b => {
            if a.is_subset(&b) {
                diff.push(
                    Class::Compatible,
                    &format!("{at}/type"),
                    format!(
                        "type of {label} widened from {} to {}",
                        show_type(o),
                        show_type(n)
                    ),
                );
            } else {
                diff.push(
                    Class::Breaking,
                    &format!("{at}/type"),
                    format!(
                        "type of {label} changed from {} to {}",
                        show_type(o),
                        show_type(n)
                    ),
                );
            }
        }
        (None, Some(_)) => diff.push(
            Class::Breaking,
            &format!("{at}/type"),
            format!("type of {label} narrowed from any to {}", show_type(n)),
        ),
        (Some(_), None) => diff.push(
            Class::Compatible,
            &format!("{at}/type"),
            format!("type of {label} widened to any"),
        ),
        _ => {}
    }
    // Enumerations and constants.
    let values = |s: &Value| {
        s.get("enum")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(canonical_json).collect::<Vec<_>>())
    };
    match (values(o), values(n)) {
        (Some(a), Some(b)) => {
            let removed: Vec<&String> = a.iter().filter(|v| !b.contains(v)).collect();
            let added: Vec<&String> = b.iter().filter(|v| !a.contains(v)).collect();
            if !removed.is_empty() {
                diff.push(
                    Class::Breaking,
                    &format!("{at}/enum"),
                    format!(
                        "enum value{} {} removed from {label}",
                        if removed.len() == 1 { "" } else { "s" },
                        join(&removed)
                    ),
                );
            }
            if !added.is_empty() {
                diff.push(
                    Class::Compatible,
                    &format!("{at}/enum"),
                    format!(
                        "enum value{} {} added to {label}",
                        if added.len() == 1 { "" } else { "s" },
                        join(&added)
                    ),
                );
            }
        }
        (None, Some(_)) => diff.push(
            Class::Breaking,
            &format!("{at}/enum"),
            format!("{label} narrowed to an enumeration"),
        ),
        (Some(_), None) => diff.push(
            Class::Compatible,
            &format!("{at}/enum"),
            format!("{label} no longer limited to an enumeration"),
        ),
        (None, None) => {}
    }
    if o.get("const").map(canonical_json) != n.get("const").map(canonical_json) {
        let class = if n.get("const").is_some() {
            Class::Breaking
        } else {
            Class::Compatible
        };
        diff.push(
            class,
            &format!("{at}/const"),
            format!("constant of {label} changed"),
        );
    }
    // Bounds: a tighter bound is breaking, a looser one compatible.
    for (key, upper) in [
        ("maxLength", true),
        ("maximum", true),
        ("exclusiveMaximum", true),
        ("maxItems", true),
        ("maxProperties", true),
        ("minLength", false),
        ("minimum", false),
        ("exclusiveMinimum", false),
        ("minItems", false),
        ("minProperties", false),
    ] {
        let (a, b) = (num(o, key), num(n, key));
        let tighter = match (a, b) {
            (None, Some(_)) => Some(true),
            (Some(_), None) => Some(false),
            (Some(x), Some(y)) if x != y => Some(if upper { y < x } else { y > x }),
            _ => None,
        };
        if let Some(t) = tighter {
            let show = |v: Option<f64>| v.map_or("none".into(), |v| v.to_string());
            diff.push(
                if t {
                    Class::Breaking
                } else {
                    Class::Compatible
                },
                &format!("{at}/{key}"),
                format!(
                    "{key} of {label} {} from {} to {}",
                    if t { "narrowed" } else { "widened" },
                    show(a),
                    show(b)
                ),
            );
        }
    }
    for key in ["pattern", "format"] {
        let (a, b) = (text(o.get(key)), text(n.get(key)));
        if a != b {
            diff.push(
                if b.is_some() {
                    Class::Breaking
                } else {
                    Class::Compatible
                },
                &format!("{at}/{key}"),
                format!(
                    "{key} of {label} changed from {} to {}",
                    a.map_or("none".into(), |s| format!("{s:?}")),
                    b.map_or("none".into(), |s| format!("{s:?}"))
                ),
            );
        }
    }
    let closed = |s: &Value| s.get("additionalProperties") == Some(&Value::Bool(false));
    if !closed(o) && closed(n) {
        diff.push(
            Class::Breaking,
            &format!("{at}/additionalProperties"),
            format!("{label} no longer accepts other properties"),
        );
    } else if closed(o) && !closed(n) {
        diff.push(
            Class::Compatible,
            &format!("{at}/additionalProperties"),
            format!("{label} now accepts other properties"),
        );
    }
    // Properties.
    let empty = serde_json::Map::new();
    let props = |s: &'_ Value| {
        s.get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_else(|| empty.clone())
    };
    fn required(s: &Value) -> HashSet<&str> {
        s.as_object()
            .map(|m| tool_lint::walk::required(m).collect())
            .unwrap_or_default()
    }
    let (po, pn) = (props(o), props(n));
    let (ro, rn) = (required(o), required(n));
    let child = |name: &str| {
        let path = if param.is_empty() {
            name.to_string()
        } else {
            format!("{param}.{name}")
        };
        (
            format!("{at}/properties/{}", tool_lint::escape_pointer_token(name)),
            path,
        )
    };
    for (name, s) in &po {
        let (ptr, path) = child(name);
        match pn.get(name) {
            None => diff.push(
                Class::Breaking,
                &ptr,
                format!("{} removed", param_label(&path)),
            ),
            Some(t) => {
                if !ro.contains(name.as_str()) && rn.contains(name.as_str()) {
                    diff.push(
                        Class::Breaking,
                        &ptr,
                        format!("{} is now required", param_label(&path)),
                    );
                } else if ro.contains(name.as_str()) && !rn.contains(name.as_str()) {
                    diff.push(
                        Class::Compatible,
                        &ptr,
                        format!("{} is now optional", param_label(&path)),
                    );
                }
                compare_schema(s, t, &ptr, &path, diff);
            }
        }
    }
    for name in pn.keys().filter(|k| !po.contains_key(*k)) {
        let (ptr, path) = child(name);
        if rn.contains(name.as_str()) {
            diff.push(
                Class::Breaking,
                &ptr,
                format!("new required {}", param_label(&path)),
            );
        } else {
            diff.push(
                Class::Compatible,
                &ptr,
                format!("new optional {}", param_label(&path)),
            );
        }
    }
    if let (Some(a), Some(b)) = (o.get("items"), n.get("items")) {
        let path = if param.is_empty() {
            "[]".to_string()
        } else {
            format!("{param}[]")
        };
        compare_schema(a, b, &format!("{at}/items"), &path, diff);
    }
}

fn join(vs: &[&String]) -> String {
    vs.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

/// Runs the command.
pub fn run(
    old: &Path,
    new: &Path,
    fail_on: Option<FailOn>,
    format: DiffFormat,
) -> Result<u8, CliError> {
    let (a, b) = (input::load_file(old)?, input::load_file(new)?);
    let changes = changes(&a.defs, &b.defs);
    let bpe = tokenizer()?;
    let tokens = |defs: &[Value]| -> HashMap<String, usize> {
        defs.iter()
            .map(|d| (name_of(d).to_string(), tool_cost(&bpe, d).1.tokens))
            .collect()
    };
    let (ta, tb) = (tokens(&a.defs), tokens(&b.defs));
    // Token delta per tool, in new-list order then removed tools.
    let mut names: Vec<String> = b.defs.iter().map(|d| name_of(d).to_string()).collect();
    names.extend(
        a.defs
            .iter()
            .map(|d| name_of(d).to_string())
            .filter(|n| !tb.contains_key(n)),
    );
    names.dedup();
    let deltas: Vec<(String, Option<usize>, Option<usize>)> = names
        .into_iter()
        .map(|n| {
            let (x, y) = (ta.get(&n).copied(), tb.get(&n).copied());
            (n, x, y)
        })
        .filter(|(_, x, y)| x != y)
        .collect();
    let (total_a, total_b): (usize, usize) = (ta.values().sum(), tb.values().sum());
    let count = |c: Class| changes.iter().filter(|x| x.class == c).count();
    let (nb, nv, nc) = (
        count(Class::Breaking),
        count(Class::AgentVisible),
        count(Class::Compatible),
    );
    let signed = |x: Option<usize>, y: Option<usize>| y.unwrap_or(0) as i64 - x.unwrap_or(0) as i64;
    let show = |x: Option<usize>| x.map_or("-".to_string(), |v| v.to_string());
    let mut out = String::new();
    match format {
        DiffFormat::Json => {
            let doc = json!({
                "changes": changes.iter().map(|c| json!({"class": c.class.as_str(), "tool": c.tool, "at": c.at, "change": c.what})).collect::<Vec<_>>(),
                "tokens": {
                    "tokenizer": TOKENIZER,
                    "before": total_a, "after": total_b, "delta": total_b as i64 - total_a as i64,
                    "tools": deltas.iter().map(|(n, x, y)| json!({"name": n, "before": x, "after": y, "delta": signed(*x, *y)})).collect::<Vec<_>>(),
                },
                "summary": {"breaking": nb, "agent-visible": nv, "compatible": nc},
            });
            out = format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).expect("JSON values serialize")
            );
        }
        DiffFormat::Markdown => {
            let _ = writeln!(
                out,
                "### Tool list changes: {nb} breaking, {nv} agent-visible, {nc} compatible\n"
            );
            if !changes.is_empty() {
                let _ = writeln!(out, "| Class | Tool | Where | Change |\n|---|---|---|---|");
                for c in &changes {
                    let icon = match c.class {
                        Class::Breaking => "🔴 breaking",
                        Class::AgentVisible => "🟡 agent-visible",
                        Class::Compatible => "🟢 compatible",
                    };
                    let _ = writeln!(
                        out,
                        "| {icon} | `{}` | `{}` | {} |",
                        c.tool,
                        if c.at.is_empty() { "/" } else { &c.at },
                        c.what.replace('|', "\\|")
                    );
                }
                out.push('\n');
            }
            let _ = writeln!(
                out,
                "Tokens ({TOKENIZER}): {total_a} → {total_b} ({:+})\n",
                total_b as i64 - total_a as i64
            );
            if !deltas.is_empty() {
                let _ = writeln!(
                    out,
                    "| Tool | Before | After | Delta |\n|---|---:|---:|---:|"
                );
                for (n, x, y) in &deltas {
                    let _ = writeln!(
                        out,
                        "| `{n}` | {} | {} | {:+} |",
                        show(*x),
                        show(*y),
                        signed(*x, *y)
                    );
                }
            }
        }
        DiffFormat::Human => {
            for c in &changes {
                let _ = writeln!(
                    out,
                    "{:<14} {}{}: {}",
                    c.class.as_str(),
                    c.tool,
                    if c.at.is_empty() {
                        String::new()
                    } else {
                        format!(" {}", c.at)
                    },
                    c.what
                );
            }
            if !deltas.is_empty() {
                out.push('\n');
                for (n, x, y) in &deltas {
                    let _ = writeln!(
                        out,
                        "tokens {n}: {} → {} ({:+})",
                        show(*x),
                        show(*y),
                        signed(*x, *y)
                    );
                }
            }
            let _ = writeln!(
                out,
                "{}toolsmith: {nb} breaking, {nv} agent-visible, {nc} compatible; tokens ({TOKENIZER}) {total_a} → {total_b} ({:+})",
                if changes.is_empty() && deltas.is_empty() { "" } else { "\n" },
                total_b as i64 - total_a as i64
            );
        }
    }
    emit(&out)?;
    let failed = match fail_on {
        None => false,
        Some(FailOn::Breaking) => nb > 0,
        Some(FailOn::AgentVisible) => nb + nv > 0,
    };
    Ok(u8::from(failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(old: Value, new: Value) -> Vec<(Class, String)> {
        changes(&[old], &[new])
            .into_iter()
            .map(|c| (c.class, c.what))
            .collect()
    }

    #[test]
    fn other_fields_are_compared() {
        let a = json!({"name": "t", "execution": {"taskSupport": "optional"}, "x-vendor": 1});
        let b = json!({"name": "t", "execution": {"taskSupport": "required"}, "icons": []});
        assert_eq!(
            classes(a, b),
            vec![
                (Class::AgentVisible, "field `execution` changed".into()),
                (Class::AgentVisible, "field `icons` added".into()),
                (Class::AgentVisible, "field `x-vendor` removed".into()),
            ]
        );
    }

    #[test]
    fn bounds_and_enums() {
        let a = json!({"name": "t", "inputSchema": {"properties": {"q": {"type": "string", "maxLength": 10, "enum": ["a", "b"]}}}});
        let b = json!({"name": "t", "inputSchema": {"properties": {"q": {"type": "string", "maxLength": 5, "enum": ["a", "c"]}}}});
        assert_eq!(
            classes(a, b),
            vec![
                (
                    Class::Breaking,
                    "enum value \"b\" removed from parameter `q`".into()
                ),
                (
                    Class::Compatible,
                    "enum value \"c\" added to parameter `q`".into()
                ),
                (
                    Class::Breaking,
                    "maxLength of parameter `q` narrowed from 10 to 5".into()
                ),
            ]
        );
    }
}
