//! `toolsmith diff OLD NEW`: every change between two tool lists, classified.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};
use toolsmith_lint::deprecation::parse_notice;
use toolsmith_lint::walk::{self, Member, Pass, Pointer};
use toolsmith_spec::canonical_json;
use toolsmith_spec::deprecation::DEPRECATED_META_KEY;

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
    /// The kind of a deprecation change ([`deprecation_changes`]): `deprecated`,
    /// `undeprecated`, `replacement_changed` or `retired`; `None` for every other change.
    pub kind: Option<&'static str>,
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
            kind: None,
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
        // A deprecated tool that leaves the list was retired: still breaking for old calls,
        // but the model had been told what to use instead.
        let (what, kind) = match deprecation_of(r) {
            Some(d) => (
                format!(
                    "tool removed: retired after its deprecation (since version {}{})",
                    d.since,
                    d.instead()
                ),
                Some("retired"),
            ),
            None => ("tool removed".to_string(), None),
        };
        out.push(Change {
            class: Class::Breaking,
            tool: name_of(r).to_string(),
            at: String::new(),
            what,
            kind,
        });
    }
    out
}

fn text(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

fn compare_tool(o: &Value, n: &Value, diff: &mut Diff) {
    deprecation_changes(o, n, diff);
    for (key, label) in [("title", "title"), ("description", "description")] {
        // A description that only gained, lost or changed its deprecation notice is reported
        // as the deprecation change.
        if key == "description" && base_description(o) == base_description(n) {
            continue;
        }
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
        &Pointer::root("/inputSchema"),
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
        let at = format!("/{}", toolsmith_lint::escape_pointer_token(k));
        // The deprecation under `_meta` is reported as the deprecation change.
        let without = |v: Option<&Value>| match v {
            Some(Value::Object(m)) if k == "_meta" => {
                let mut m = m.clone();
                m.remove(DEPRECATED_META_KEY);
                (!m.is_empty()).then_some(Value::Object(m))
            }
            other => other.cloned(),
        };
        let what = match (without(om.get(k)).as_ref(), without(nm.get(k)).as_ref()) {
            (Some(a), Some(b)) if canonical_json(a) == canonical_json(b) => continue,
            (Some(_), Some(_)) => format!("field `{k}` changed"),
            (None, Some(_)) => format!("field `{k}` added"),
            (Some(_), None) => format!("field `{k}` removed"),
            (None, None) => continue,
        };
        diff.push(Class::AgentVisible, &at, what);
    }
}

/// A tool's deprecation as a list shows it: toolsmith's MCP `_meta` entry
/// ([`DEPRECATED_META_KEY`]) where there is one, else the notice its description ends with
/// (every other shape carries only the description).
struct Deprecated {
    since: String,
    replaced_by: Option<String>,
}

impl Deprecated {
    /// `; use `x` instead`, or nothing when no replacement is named.
    fn instead(&self) -> String {
        self.replaced_by
            .as_ref()
            .map_or_else(String::new, |r| format!("; use `{r}` instead"))
    }
}

fn deprecation_of(d: &Value) -> Option<Deprecated> {
    if let Some(m) = d.get("_meta").and_then(|m| m.get(DEPRECATED_META_KEY)) {
        return Some(Deprecated {
            since: text(m.get("since")).unwrap_or_default().to_string(),
            replaced_by: text(m.get("replacedBy")).map(String::from),
        });
    }
    let parsed = parse_notice(text(d.get("description"))?)?;
    Some(Deprecated {
        since: parsed.since,
        replaced_by: parsed.replaced_by,
    })
}

/// The description without its deprecation notice.
fn base_description(d: &Value) -> Option<String> {
    let description = text(d.get("description"))?;
    Some(parse_notice(description).map_or_else(|| description.to_string(), |p| p.base))
}

/// A tool deprecated, no longer deprecated, or given another replacement: agent-visible (the
/// model reads the notice), each with its own kind.
fn deprecation_changes(o: &Value, n: &Value, diff: &mut Diff) {
    let (kind, what) = match (deprecation_of(o), deprecation_of(n)) {
        (None, None) => return,
        (None, Some(d)) => (
            "deprecated",
            format!(
                "deprecated since version {}{}",
                d.since,
                d.replaced_by.as_ref().map_or_else(
                    || "; no replacement named".to_string(),
                    |r| format!("; the model is told to use `{r}` instead")
                )
            ),
        ),
        (Some(_), None) => ("undeprecated", "no longer deprecated".to_string()),
        (Some(a), Some(b)) if a.replaced_by != b.replaced_by => (
            "replacement_changed",
            format!(
                "replacement changed from {} to {}",
                a.replaced_by.map_or("none".into(), |r| format!("`{r}`")),
                b.replaced_by.map_or("none".into(), |r| format!("`{r}`"))
            ),
        ),
        (Some(a), Some(b)) if a.since != b.since => (
            "deprecated",
            format!(
                "deprecated since version {} instead of {}",
                b.since, a.since
            ),
        ),
        (Some(_), Some(_)) => return,
    };
    diff.push(Class::AgentVisible, "/description", what);
    if let Some(last) = diff.changes.last_mut() {
        last.kind = Some(kind);
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

/// Where two versions of a schema sit, and the parameter they describe: `""` for the input
/// itself, `a.b` for a nested property, `a[]` for the items of an array.
struct Site<'p> {
    at: &'p Pointer<'p>,
    param: &'p str,
    /// [`param_label`] of `param`.
    label: String,
}

impl Diff {
    /// Pushes a change to the keyword `key` of the schemas at `site`.
    fn push_key(&mut self, class: Class, site: &Site<'_>, key: &str, what: impl Into<String>) {
        self.push(class, &format!("{}/{key}", site.at), what);
    }

    /// Pushes a change of the value of `key` at `site`: "`key` of `label` `how` from `a` to `b`".
    fn push_from_to(
        &mut self,
        class: Class,
        site: &Site<'_>,
        key: &str,
        how: &str,
        a: &str,
        b: &str,
    ) {
        let what = format!("{key} of {} {how} from {a} to {b}", site.label);
        self.push_key(class, site, key, what);
    }
}

/// The changes from schema `o` to schema `n`, both at `at` and describing `param`: their own
/// keywords, then the subschemas the diff walks ([`Pass::Diff`]: properties and items).
fn compare_schema(o: &Value, n: &Value, at: &Pointer<'_>, param: &str, diff: &mut Diff) {
    let site = Site {
        at,
        param,
        label: param_label(param),
    };
    if text(o.get("description")) != text(n.get("description")) && !param.is_empty() {
        diff.push_key(
            Class::AgentVisible,
            &site,
            "description",
            format!("description of {} changed", site.label),
        );
    }
    compare_types(o, n, &site, diff);
    compare_enums(o, n, &site, diff);
    compare_const(o, n, &site, diff);
    compare_bounds(o, n, &site, diff);
    compare_texts(o, n, &site, diff);
    compare_closed(o, n, &site, diff);
    compare_subschemas(o, n, &site, diff);
}

/// `type`: a wider set of types is compatible, any other change breaking.
fn compare_types(o: &Value, n: &Value, site: &Site<'_>, diff: &mut Diff) {
    match (types(o), types(n)) {
        (Some(a), Some(b)) if a != b => {
            let (class, how) = if a.is_subset(&b) {
                (Class::Compatible, "widened")
            } else {
                (Class::Breaking, "changed")
            };
            diff.push_from_to(class, site, "type", how, &show_type(o), &show_type(n));
        }
        (None, Some(_)) => diff.push_from_to(
            Class::Breaking,
            site,
            "type",
            "narrowed",
            "any",
            &show_type(n),
        ),
        (Some(_), None) => {
            let what = format!("type of {} widened to any", site.label);
            diff.push_key(Class::Compatible, site, "type", what);
        }
        _ => {}
    }
}

/// `enum`: a value removed (or a new enumeration) is breaking, a value added (or the
/// enumeration dropped) compatible.
fn compare_enums(o: &Value, n: &Value, site: &Site<'_>, diff: &mut Diff) {
    let values = |s: &Value| {
        s.get("enum")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(canonical_json).collect::<Vec<_>>())
    };
    let label = &site.label;
    match (values(o), values(n)) {
        (Some(a), Some(b)) => {
            let removed: Vec<&String> = a.iter().filter(|v| !b.contains(v)).collect();
            let added: Vec<&String> = b.iter().filter(|v| !a.contains(v)).collect();
            for (vs, class, how) in [
                (removed, Class::Breaking, "removed from"),
                (added, Class::Compatible, "added to"),
            ] {
                if !vs.is_empty() {
                    let s = if vs.len() == 1 { "" } else { "s" };
                    let what = format!("enum value{s} {} {how} {label}", join(&vs));
                    diff.push_key(class, site, "enum", what);
                }
            }
        }
        (None, Some(_)) => diff.push_key(
            Class::Breaking,
            site,
            "enum",
            format!("{label} narrowed to an enumeration"),
        ),
        (Some(_), None) => diff.push_key(
            Class::Compatible,
            site,
            "enum",
            format!("{label} no longer limited to an enumeration"),
        ),
        (None, None) => {}
    }
}

/// `const`: a new or changed constant is breaking, a dropped one compatible.
fn compare_const(o: &Value, n: &Value, site: &Site<'_>, diff: &mut Diff) {
    if o.get("const").map(canonical_json) != n.get("const").map(canonical_json) {
        let class = if n.get("const").is_some() {
            Class::Breaking
        } else {
            Class::Compatible
        };
        let what = format!("constant of {} changed", site.label);
        diff.push_key(class, site, "const", what);
    }
}

/// The numeric bounds, each with whether it is an upper bound.
const BOUNDS: [(&str, bool); 10] = [
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
];

/// Bounds: a tighter bound is breaking, a looser one compatible.
fn compare_bounds(o: &Value, n: &Value, site: &Site<'_>, diff: &mut Diff) {
    for (key, upper) in BOUNDS {
        let (a, b) = (num(o, key), num(n, key));
        let tighter = match (a, b) {
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(x), Some(y)) if x != y => {
                if upper {
                    y < x
                } else {
                    y > x
                }
            }
            _ => continue,
        };
        let show = |v: Option<f64>| v.map_or("none".into(), |v| v.to_string());
        let (class, how) = if tighter {
            (Class::Breaking, "narrowed")
        } else {
            (Class::Compatible, "widened")
        };
        diff.push_from_to(class, site, key, how, &show(a), &show(b));
    }
}

/// `pattern`, `format` and `x-mcp-header` (MCP 2026-07-28: the argument must also travel in the
/// header `Mcp-Param-{name}`, and a server refuses a call whose header is missing or differs):
/// a new or changed one is breaking, a dropped one compatible.
fn compare_texts(o: &Value, n: &Value, site: &Site<'_>, diff: &mut Diff) {
    for key in [
        "pattern",
        "format",
        toolsmith_lint::mcp_fields::HEADER_KEYWORD,
    ] {
        let (a, b) = (text(o.get(key)), text(n.get(key)));
        if a != b {
            let class = if b.is_some() {
                Class::Breaking
            } else {
                Class::Compatible
            };
            let show = |s: Option<&str>| s.map_or("none".into(), |s| format!("{s:?}"));
            diff.push_from_to(class, site, key, "changed", &show(a), &show(b));
        }
    }
}

/// `additionalProperties: false`: closing an object is breaking, opening it compatible.
fn compare_closed(o: &Value, n: &Value, site: &Site<'_>, diff: &mut Diff) {
    let closed = |s: &Value| s.get("additionalProperties") == Some(&Value::Bool(false));
    let (class, how) = match (closed(o), closed(n)) {
        (false, true) => (Class::Breaking, "no longer accepts"),
        (true, false) => (Class::Compatible, "now accepts"),
        _ => return,
    };
    let what = format!("{} {how} other properties", site.label);
    diff.push_key(class, site, "additionalProperties", what);
}

/// The subschemas below `o` and `n` that the diff walks ([`Pass::Diff`]), paired by the
/// walker: each property (removed, added, newly required or optional, then compared), and the
/// items of an array when both versions have one schema for them.
fn compare_subschemas(o: &Value, n: &Value, site: &Site<'_>, diff: &mut Diff) {
    fn required(s: &Value) -> HashSet<&str> {
        s.as_object()
            .map(|m| walk::required(m).collect())
            .unwrap_or_default()
    }
    let (ro, rn) = (required(o), required(n));
    walk::for_each_child_pair(o, n, |step, a, b| {
        if !step.keyword.walked_by(Pass::Diff) {
            return;
        }
        let at = site.at.step(step);
        match (step.keyword.name, step.member, a, b) {
            ("properties", Member::Name(name), _, _) => {
                let path = if site.param.is_empty() {
                    name.to_string()
                } else {
                    format!("{}.{name}", site.param)
                };
                let required = (ro.contains(name), rn.contains(name));
                compare_property(a, b, required, &at, &path, diff);
            }
            ("items", Member::Whole, Some(a), Some(b)) => {
                let path = format!("{}[]", site.param);
                compare_schema(a, b, &at, &path, diff);
            }
            // `items` added or removed, and its array form, are not compared (`Pass::Diff`).
            _ => {}
        }
    });
}

/// The property `path` at `at`, in the old schema (`o`) and the new (`n`), and whether each
/// schema requires it.
fn compare_property(
    o: Option<&Value>,
    n: Option<&Value>,
    (was_required, is_required): (bool, bool),
    at: &Pointer<'_>,
    path: &str,
    diff: &mut Diff,
) {
    let (ptr, label) = (at.to_string(), param_label(path));
    let (class, what) = match (o, n) {
        (Some(s), Some(t)) => {
            if !was_required && is_required {
                diff.push(Class::Breaking, &ptr, format!("{label} is now required"));
            } else if was_required && !is_required {
                diff.push(Class::Compatible, &ptr, format!("{label} is now optional"));
            }
            return compare_schema(s, t, at, path, diff);
        }
        (Some(_), None) => (Class::Breaking, format!("{label} removed")),
        (None, Some(_)) if is_required => (Class::Breaking, format!("new required {label}")),
        (None, Some(_)) => (Class::Compatible, format!("new optional {label}")),
        (None, None) => return,
    };
    diff.push(class, &ptr, what);
}

fn join(vs: &[&String]) -> String {
    vs.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

/// The token cost of the tools of each list, and of each tool whose cost changed.
struct Tokens {
    before: usize,
    after: usize,
    /// Each tool whose cost changed, in new-list order then removed tools: its name and its
    /// cost before and after (`None` where the list does not have it).
    tools: Vec<(String, Option<usize>, Option<usize>)>,
}

impl Tokens {
    fn of(old: &[Value], new: &[Value]) -> Result<Self, CliError> {
        let bpe = tokenizer()?;
        let tokens = |defs: &[Value]| -> HashMap<String, usize> {
            defs.iter()
                .map(|d| (name_of(d).to_string(), tool_cost(&bpe, d).1.tokens))
                .collect()
        };
        let (ta, tb) = (tokens(old), tokens(new));
        let mut names: Vec<String> = new.iter().map(|d| name_of(d).to_string()).collect();
        names.extend(
            old.iter()
                .map(|d| name_of(d).to_string())
                .filter(|n| !tb.contains_key(n)),
        );
        names.dedup();
        let tools = names
            .into_iter()
            .map(|n| {
                let (x, y) = (ta.get(&n).copied(), tb.get(&n).copied());
                (n, x, y)
            })
            .filter(|(_, x, y)| x != y)
            .collect();
        Ok(Tokens {
            before: ta.values().sum(),
            after: tb.values().sum(),
            tools,
        })
    }

    fn delta(&self) -> i64 {
        self.after as i64 - self.before as i64
    }
}

/// `after - before`, a missing cost counted as 0.
fn signed(x: Option<usize>, y: Option<usize>) -> i64 {
    y.unwrap_or(0) as i64 - x.unwrap_or(0) as i64
}

/// A cost, or `-` where the list does not have the tool.
fn show_cost(x: Option<usize>) -> String {
    x.map_or("-".to_string(), |v| v.to_string())
}

/// How many changes of each class: `[breaking, agent-visible, compatible]`.
fn counts(changes: &[Change]) -> [usize; 3] {
    let count = |c: Class| changes.iter().filter(|x| x.class == c).count();
    [
        count(Class::Breaking),
        count(Class::AgentVisible),
        count(Class::Compatible),
    ]
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
    let tokens = Tokens::of(&a.defs, &b.defs)?;
    let out = match format {
        DiffFormat::Json => json_report(&changes, &tokens),
        DiffFormat::Markdown => markdown_report(&changes, &tokens),
        DiffFormat::Human => human_report(&changes, &tokens),
    };
    emit(&out)?;
    let [nb, nv, _] = counts(&changes);
    let failed = match fail_on {
        None => false,
        Some(FailOn::Breaking) => nb > 0,
        Some(FailOn::AgentVisible) => nb + nv > 0,
    };
    Ok(u8::from(failed))
}

/// The report as JSON: the changes, the token costs and the count of each class.
fn json_report(changes: &[Change], tokens: &Tokens) -> String {
    let [nb, nv, nc] = counts(changes);
    let doc = json!({
        "changes": changes.iter().map(|c| {
            let mut change = json!({"class": c.class.as_str(), "tool": c.tool, "at": c.at, "change": c.what});
            if let Some(kind) = c.kind {
                change["kind"] = json!(kind);
            }
            change
        }).collect::<Vec<_>>(),
        "tokens": {
            "tokenizer": TOKENIZER,
            "before": tokens.before, "after": tokens.after, "delta": tokens.delta(),
            "tools": tokens.tools.iter().map(|(n, x, y)| json!({"name": n, "before": x, "after": y, "delta": signed(*x, *y)})).collect::<Vec<_>>(),
        },
        "summary": {"breaking": nb, "agent-visible": nv, "compatible": nc},
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).expect("JSON values serialize")
    )
}

/// The report as Markdown (for a pull request comment): a headline, a table of the changes and
/// one of the token costs that changed.
fn markdown_report(changes: &[Change], tokens: &Tokens) -> String {
    let [nb, nv, nc] = counts(changes);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### Tool list changes: {nb} breaking, {nv} agent-visible, {nc} compatible\n"
    );
    if !changes.is_empty() {
        let _ = writeln!(out, "| Class | Tool | Where | Change |\n|---|---|---|---|");
        for c in changes {
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
    let (total_a, total_b) = (tokens.before, tokens.after);
    let _ = writeln!(
        out,
        "Tokens ({TOKENIZER}): {total_a} → {total_b} ({:+})\n",
        tokens.delta()
    );
    if !tokens.tools.is_empty() {
        let _ = writeln!(
            out,
            "| Tool | Before | After | Delta |\n|---|---:|---:|---:|"
        );
        for (n, x, y) in &tokens.tools {
            let _ = writeln!(
                out,
                "| `{n}` | {} | {} | {:+} |",
                show_cost(*x),
                show_cost(*y),
                signed(*x, *y)
            );
        }
    }
    out
}

/// The report for a terminal: a line per change, a line per token cost that changed, and a
/// summary.
fn human_report(changes: &[Change], tokens: &Tokens) -> String {
    let [nb, nv, nc] = counts(changes);
    let mut out = String::new();
    for c in changes {
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
    if !tokens.tools.is_empty() {
        out.push('\n');
        for (n, x, y) in &tokens.tools {
            let _ = writeln!(
                out,
                "tokens {n}: {} → {} ({:+})",
                show_cost(*x),
                show_cost(*y),
                signed(*x, *y)
            );
        }
    }
    let (total_a, total_b) = (tokens.before, tokens.after);
    let _ = writeln!(
        out,
        "{}toolsmith: {nb} breaking, {nv} agent-visible, {nc} compatible; tokens ({TOKENIZER}) {total_a} → {total_b} ({:+})",
        if changes.is_empty() && tokens.tools.is_empty() { "" } else { "\n" },
        tokens.delta()
    );
    out
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

    /// The diff reports a change under a keyword exactly when the keyword table says it walks
    /// it ([`Pass::Diff`]); `items` only in its one-schema form.
    #[test]
    fn the_diff_walks_the_keywords_the_table_says() {
        for kw in walk::KEYWORDS {
            for array in [false, true] {
                if array && kw.shape != walk::Shape::SingleOrArray {
                    continue;
                }
                let nest = |marker: Value| {
                    let name = kw.name;
                    let under = match kw.shape {
                        walk::Shape::Map => json!({ name: {"m": marker} }),
                        walk::Shape::Array => json!({ name: [marker] }),
                        walk::Shape::SingleOrArray if array => json!({ name: [marker] }),
                        walk::Shape::Single | walk::Shape::SingleOrArray => json!({ name: marker }),
                    };
                    json!({"name": "t", "inputSchema": {"properties": {"p": under}}})
                };
                let found = classes(
                    nest(json!({"type": "string"})),
                    nest(json!({"type": "integer"})),
                );
                let walked = kw.walked_by(Pass::Diff) && !array;
                assert_eq!(
                    !found.is_empty(),
                    walked,
                    "{} (array form: {array}): {found:?}",
                    kw.name
                );
            }
        }
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
