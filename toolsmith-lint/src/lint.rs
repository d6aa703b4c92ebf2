//! Running every rule over one tool definition.

use crate::text::NameSet;

use bumpalo::Bump;
use serde_json::{Map, Value};

use crate::doc::{Kind, Node, Obj};

use crate::attack::{attacks_in, Split};
use crate::config::LintConfig;
use crate::finding::{child, escape_pointer_token, sort_findings, Finding};
use crate::names::{secret_kind, tool_name_problem_in};
use crate::poison::{
    agent_instructions, conversation_request, exfiltration_target, is_generic_param,
    sensitive_request, shadowing,
};
use crate::rules::severity_of;
use crate::schema::{effective_description, fields, visit_schemas, Field};
use crate::text::{
    decode_tags, find_invisible, find_prohibition, find_steering, is_snake_case,
    says_what_it_returns, to_snake_case, Words,
};

pub(crate) struct Sink<'n, 's, 'd> {
    pub(crate) tool: String,
    pub(crate) findings: Vec<Finding>,
    /// The list's tool names when `tool_shadowing` runs (a list of two names or more): the text
    /// rules check it on the texts they split ([`shadow`]).
    names: Option<&'n NameSet<'s>>,
    /// Whether the schema rules checked `tool_shadowing` on the top-level parameter
    /// descriptions (they do when they run).
    params_shadowed: bool,
    /// The identifiers the tool's text may name without naming another server's tool (the
    /// list's names, the tool's own parameters), built when a poisoning rule first asks.
    local: std::cell::OnceCell<crate::attack::Local<'n, 's>>,
    /// The tool's input schema, for [`Sink::local`].
    schema: Option<&'d Node<'d>>,
    /// Whether the quality rules run ([`crate::quality`]).
    pub(crate) quality: bool,
}

impl<'n, 's> Sink<'n, 's, '_> {
    fn push(&mut self, rule: &'static str, pointer: impl Into<String>, message: impl Into<String>) {
        self.push_at(rule, pointer, message, None);
    }

    /// The identifiers the tool's text may name without naming another server's tool.
    fn local(&self) -> &crate::attack::Local<'n, 's> {
        self.local
            .get_or_init(|| crate::attack::Local::new(self.names, self.schema))
    }

    pub(crate) fn push_at(
        &mut self,
        rule: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
        span: Option<(usize, usize)>,
    ) {
        self.push_sure(rule, pointer, message, span, true);
    }

    /// [`push_at`](Self::push_at) for a heuristic that knows how sure it is: a hit it is not
    /// sure of is a warning, whatever the rule's severity.
    pub(crate) fn push_sure(
        &mut self,
        rule: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
        span: Option<(usize, usize)>,
        sure: bool,
    ) {
        debug_assert!(
            sure || crate::rule(rule)
                .is_some_and(|r| r.graded() || r.severity == crate::Severity::Warning),
            "{rule} is not graded (rules.rs GRADED) but reported a finding it is not sure of"
        );
        self.findings.push(Finding {
            rule,
            severity: if sure {
                severity_of(rule)
            } else {
                crate::rules::Severity::Warning
            },
            tool: self.tool.clone(),
            pointer: pointer.into(),
            message: message.into(),
            span,
        });
    }
}

/// Lints one MCP-shaped tool definition: `{"name", "title"?, "description"?, "inputSchema"?, ...}`
/// (what `ToolSpec::agent_facing()` produces, or one entry of an MCP `tools/list` result).
///
/// Findings come sorted by pointer (token by token, array indices numerically), then by the
/// rule's place in [`crate::RULES`]. Other keys (`outputSchema`, `annotations`, `_meta`, ...) are
/// only scanned by `hidden_text` (`outputSchema`, `annotations/title`).
///
/// ```
/// use toolsmith_lint::{lint_definition, LintConfig};
/// let tool = serde_json::json!({
///     "name": "search_products",
///     "description": "Search the catalog. Returns up to 20 products with name and price.",
///     "inputSchema": {"type": "object", "properties": {
///         "query": {"type": "string"}
///     }}
/// });
/// let findings = lint_definition(&tool, &LintConfig::default());
/// assert_eq!(findings.len(), 1);
/// assert_eq!(findings[0].rule, "described");
/// assert_eq!(findings[0].pointer, "/inputSchema/properties/query/description");
/// assert_eq!(findings[0].message, "parameter \"query\" has no description");
/// ```
pub fn lint_definition(tool: &Value, cfg: &LintConfig) -> Vec<Finding> {
    let arena = Bump::new();
    lint_in_list(&Node::from_value(tool, &arena), cfg, None, false)
}

/// [`lint_definition`] for a tool of a list whose names (all of them) are `names`: adds the
/// list rule `tool_shadowing`; with `quality`, the quality rules too ([`crate::quality`]).
pub(crate) fn lint_in_list(
    tool: &Node<'_>,
    cfg: &LintConfig,
    names: Option<&NameSet<'_>>,
    quality: bool,
) -> Vec<Finding> {
    let name = tool.get("name").and_then(Node::as_str).unwrap_or_default();
    let mut sink = Sink {
        tool: name.to_string(),
        findings: Vec::new(),
        names: names.filter(|n| n.len() > 1),
        params_shadowed: false,
        local: std::cell::OnceCell::new(),
        schema: tool.get("inputSchema"),
        quality,
    };
    match tool.as_object() {
        Some(obj) => lint_object(obj, cfg, &mut sink),
        None => sink.push(
            "well_formed",
            "",
            format!(
                "the definition is {}, not a JSON object with a \"name\"",
                tool.kind_name()
            ),
        ),
    }
    // The title, the description and (when the schema rules ran) the top-level parameter
    // descriptions were checked by the text rules; the parameters of a schema the schema rules
    // did not read are checked here.
    if let (Some(names), Some(obj)) = (sink.names, tool.as_object()) {
        if !sink.params_shadowed {
            shadowing_params(obj, names, &mut sink);
        }
    }
    sort_findings(&mut sink.findings);
    sink.findings
}

/// `tool_shadowing` on one text of the tool (the title, the description or a top-level
/// parameter description), with its words.
fn shadow(text: &str, words: &Words, pointer: &str, sink: &mut Sink) {
    if let Some(names) = sink.names {
        shadow_with(text, Some(words), names, pointer.to_string(), sink);
    }
}

fn shadow_with(
    text: &str,
    words: Option<&Words>,
    names: &NameSet<'_>,
    pointer: String,
    sink: &mut Sink,
) {
    if let Some((hit, _)) = shadowing(text, &sink.tool, names, words) {
        // The list's tools are one server's: naming a sibling ("use update_issue instead") is
        // how a server documents its own tools, and only decisive evidence makes it an attack.
        let sure = Split::new(text).decisive_at(hit.span.0, &sink.tool, sink.names, sink.local());
        sink.push_sure(
            "tool_shadowing",
            pointer,
            format!(
                "names the tool {:?} (character {}) to change how it is used; a tool describes itself, never the use of another tool",
                hit.what,
                hit.span.0 + 1
            ),
            Some(hit.span),
            sure,
        );
    }
}

/// `tool_shadowing` over the top-level parameter descriptions, for an input schema the schema
/// rules did not read.
fn shadowing_params(obj: Obj<'_>, names: &NameSet<'_>, sink: &mut Sink) {
    if let Some(props) = obj
        .get("inputSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Node::as_object)
    {
        for (name, p) in props.iter() {
            if let Some(d) = p.get("description").and_then(Node::as_str) {
                shadow_with(
                    d,
                    None,
                    names,
                    format!(
                        "/inputSchema/properties/{}/description",
                        escape_pointer_token(name)
                    ),
                    sink,
                );
            }
        }
    }
}

fn lint_object(obj: Obj<'_>, cfg: &LintConfig, sink: &mut Sink) {
    lint_name_field(obj.get("name"), cfg, sink);
    lint_title_field(obj.get("title"), sink);
    lint_description_field(obj.get("description"), cfg, sink);
    if let Some(t) = obj
        .get("annotations")
        .and_then(|a| a.get("title"))
        .and_then(Node::as_str)
    {
        hidden(t, "/annotations/title", false, sink);
    }

    // One walk over the input schema: its size for `definition_budget`, and whether it holds
    // non-ASCII text (the only place `hidden_text` can find something).
    let schema = obj.get("inputSchema");
    let schema_facts = schema.map(json_facts);
    lint_input_schema_field(schema, schema_facts.is_some_and(|f| f.non_ascii), cfg, sink);
    if let Some(message) = sink
        .quality
        .then(|| crate::quality_rules::explains_parameters(obj))
        .flatten()
    {
        sink.push("explains_parameters", "/inputSchema/properties", message);
    }
    if let Some(out) = obj.get("outputSchema") {
        hidden_everywhere(out, "/outputSchema", sink);
    }
    lint_mcp_fields(obj, schema, schema_facts.is_some_and(|f| f.header), sink);

    // The whole definition.
    let size = definition_chars(obj, schema_facts.map(|f| f.chars));
    if size > cfg.definition_budget {
        sink.push(
            "definition_budget",
            "",
            format!(
                "definition is {size} characters (name, description and input schema as compact JSON); the budget is {}",
                cfg.definition_budget
            ),
        );
    }
}

/// `mcp_fields`: the icons, and the input schema's `x-mcp-header` annotations when it has any
/// (`headers`, from the one walk over the schema), against the rules MCP clients apply.
fn lint_mcp_fields(obj: Obj<'_>, schema: Option<&Node<'_>>, headers: bool, sink: &mut Sink) {
    if let Some(icons) = obj.get("icons") {
        for (pointer, message) in crate::mcp_fields::icons_problems(&icons.to_value()) {
            sink.push("mcp_fields", pointer, message);
        }
    }
    if let (true, Some(schema)) = (headers, schema) {
        for message in crate::mcp_fields::header_problems(&schema.to_value()) {
            sink.push(
                "mcp_fields",
                "/inputSchema",
                format!("x-mcp-header: {message}"),
            );
        }
    }
}

/// The `name` field: present, a string, not empty, then the name rules.
fn lint_name_field(field: Option<&Node<'_>>, cfg: &LintConfig, sink: &mut Sink) {
    match field.map(|f| f.kind) {
        Some(Kind::String(name)) if !name.is_empty() => lint_name(name, cfg, sink),
        Some(Kind::String(_)) => sink.push("well_formed", "/name", "the name is empty"),
        Some(_) => sink.push(
            "well_formed",
            "/name",
            format!(
                "\"name\" is {}; it must be a string",
                field.map_or("", Node::kind_name)
            ),
        ),
        None => sink.push("well_formed", "/name", "the definition has no \"name\""),
    }
}

/// The `title` field: optional; when present, the text rules that apply to a label.
fn lint_title_field(field: Option<&Node<'_>>, sink: &mut Sink) {
    match field {
        None
        | Some(Node {
            kind: Kind::Null, ..
        }) => {}
        Some(Node {
            kind: Kind::String(title),
            ..
        }) => {
            let ws = Words::new(title);
            steering_and_framing(&ws, "/title", sink);
            poisoning(title, &ws, "/title", None, sink);
            shadow(title, &ws, "/title", sink);
            hidden(title, "/title", false, sink);
        }
        Some(other) => sink.push(
            "well_formed",
            "/title",
            format!("\"title\" is {}; it must be a string", other.kind_name()),
        ),
    }
}

/// The `description` field: required and not empty, then the description rules.
fn lint_description_field(field: Option<&Node<'_>>, cfg: &LintConfig, sink: &mut Sink) {
    match field.map(|f| f.kind) {
        None | Some(Kind::Null) => sink.push(
            "described",
            "/description",
            "the tool has no description; say what it does and what it returns",
        ),
        Some(Kind::String(d)) if d.trim().is_empty() => sink.push(
            "described",
            "/description",
            "the tool's description is empty; say what it does and what it returns",
        ),
        Some(Kind::String(d)) => lint_description(d, cfg, sink),
        Some(_) => sink.push(
            "well_formed",
            "/description",
            format!(
                "\"description\" is {}; it must be a string",
                field.map_or("", Node::kind_name)
            ),
        ),
    }
}

/// The `inputSchema` field: an object schema of type `object`, then the schema rules;
/// `non_ascii` when a string or key of it holds a non-ASCII character.
fn lint_input_schema_field(
    field: Option<&Node<'_>>,
    non_ascii: bool,
    cfg: &LintConfig,
    sink: &mut Sink,
) {
    let Some(schema) = field else { return };
    match schema.kind {
        Kind::Null => {}
        Kind::Object(s) => {
            let mut ok = true;
            match s.get("type") {
                None
                | Some(Node {
                    kind: Kind::Null, ..
                }) => {}
                Some(Node {
                    kind: Kind::String("object"),
                    ..
                }) => {}
                Some(other) => {
                    ok = false;
                    sink.push(
                        "well_formed",
                        "/inputSchema/type",
                        format!(
                            "the input schema's type is {other}; a tool's input is an \"object\""
                        ),
                    );
                }
            }
            if let Some(p) = s.get("properties").filter(|p| !p.is_object()) {
                ok = false;
                sink.push(
                    "well_formed",
                    "/inputSchema/properties",
                    format!(
                        "\"properties\" is {}; it must be an object of parameter schemas",
                        p.kind_name()
                    ),
                );
            }
            if ok {
                lint_schema(schema, non_ascii, cfg, sink);
            }
        }
        _ => sink.push(
            "well_formed",
            "/inputSchema",
            format!(
                "\"inputSchema\" is {}; it must be a JSON Schema object",
                schema.kind_name()
            ),
        ),
    }
}

fn lint_name(name: &str, cfg: &LintConfig, sink: &mut Sink) {
    let n = name.chars().count();
    if n > cfg.name_budget {
        sink.push(
            "name_budget",
            "/name",
            format!("name is {n} characters; the budget is {}", cfg.name_budget),
        );
    }
    if let Some(problem) = tool_name_problem_in(name, sink.names) {
        sink.push("name_style", "/name", problem);
    }
    hidden(name, "/name", false, sink);
}

fn lint_description(d: &str, cfg: &LintConfig, sink: &mut Sink) {
    let n = d.chars().count();
    if n > cfg.description_budget {
        sink.push(
            "description_budget",
            "/description",
            format!(
                "description is {n} characters; the budget is {}",
                cfg.description_budget
            ),
        );
    }
    let ws = Words::new(d);
    if !says_what_it_returns(&ws) {
        sink.push(
            "says_what_it_returns",
            "/description",
            "the description does not say what comes back; add a sentence such as \"Returns ...\"",
        );
    }
    if sink.quality {
        for (rule, message) in crate::quality_rules::description(d, &ws, &sink.tool) {
            sink.push(rule, "/description", message);
        }
    }
    steering_and_framing(&ws, "/description", sink);
    poisoning(d, &ws, "/description", None, sink);
    shadow(d, &ws, "/description", sink);
    hidden(d, "/description", false, sink);
}

fn steering_and_framing(ws: &Words, pointer: &str, sink: &mut Sink) {
    if let Some((phrase, at, span)) = find_steering(ws) {
        sink.push_at(
            "no_steering",
            pointer,
            format!("\"{phrase}\" at character {at} instructs the agent; describe what the tool does and returns instead"),
            Some(span),
        );
    }
    if let Some((phrase, at, span)) = find_prohibition(ws) {
        sink.push_at(
            "positive_framing",
            pointer,
            format!("\"{phrase}\" at character {at} says what this is not for; say what it is for instead"),
            Some(span),
        );
    }
}

/// The tool-poisoning rules on one agent-facing string. `param` is the parameter or field name
/// when the string is its description.
fn poisoning(text: &str, ws: &Words, pointer: &str, param: Option<&str>, sink: &mut Sink) {
    // One split of the text for every question the attack side asks of it.
    let split = Split::new(text);
    for hit in attacks_in(
        &split,
        &sink.tool,
        sink.names,
        sink.local(),
        pointer
            .starts_with("/inputSchema")
            .then(|| param.unwrap_or_default()),
    ) {
        sink.push_sure(
            hit.rule,
            pointer,
            format!("{:?} {}", hit.quote, hit.why),
            Some(hit.span),
            hit.sure,
        );
    }
    let decisive =
        |at: usize, sink: &Sink| split.decisive_at(at, &sink.tool, sink.names, sink.local());
    if let Some(hit) = agent_instructions(text, ws).filter(|h| !split.protects_user(h.span.0)) {
        // Addressing the agent ("before using this tool, ...") is how many real servers
        // document a workflow; with decisive evidence beside it (or inside the block a tag
        // opens), it is an attack's.
        let sure = decisive(hit.span.0, sink)
            || tag_block(text, &hit).is_some_and(|(from, to)| {
                split.decisive_within(from, to, &sink.tool, sink.names, sink.local())
            });
        sink.push_sure(
            "agent_instructions",
            pointer,
            format!(
                "{:?} at character {} addresses the agent rather than describing the tool; remove it, and review this server: hidden instructions are how tools get poisoned",
                hit.what,
                hit.span.0 + 1
            ),
            Some(hit.span),
            sure,
        );
    }
    let sensitive = sensitive_request(text, ws);
    let conversation = conversation_request(text, ws);
    if let Some(name) = param.filter(|n| is_generic_param(n)) {
        if let Some(hit) = sensitive.as_ref().or(conversation.as_ref()) {
            sink.push_at(
                "unrelated_parameter",
                pointer,
                format!(
                    "parameter \"{name}\" asks for {:?} (character {}), data a tool does not need in a \"{name}\" field; remove the parameter",
                    hit.what,
                    hit.span.0 + 1
                ),
                Some(hit.span),
            );
            return exfiltration(&split, text, ws, pointer, sink);
        }
    }
    if let Some(hit) = sensitive {
        // Tools that manage credentials name them; asking for them to be read or sent is
        // decisive.
        let sure = decisive(hit.span.0, sink);
        sink.push_sure(
            "sensitive_data_request",
            pointer,
            format!(
                "{:?} at character {} asks for credentials or private files; a tool description never needs them",
                hit.what,
                hit.span.0 + 1
            ),
            Some(hit.span),
            sure,
        );
    }
    if let Some(hit) = conversation {
        let sure = decisive(hit.span.0, sink);
        sink.push_sure(
            "conversation_exfiltration",
            pointer,
            format!(
                "{:?} at character {} asks for the conversation or other tools' data to be passed on; arguments carry what the tool needs, nothing else",
                hit.what,
                hit.span.0 + 1
            ),
            Some(hit.span),
            sure,
        );
    }
    exfiltration(&split, text, ws, pointer, sink);
}

fn exfiltration(split: &Split<'_>, text: &str, ws: &Words, pointer: &str, sink: &mut Sink) {
    if let Some(hit) = exfiltration_target(text, ws) {
        // Sure when the address is where something goes ("uploads ... to https://...", "send it
        // to x@y.z") or the sentence is decisive; a link to documentation beside a verb of
        // sending is a warning.
        let byte = text.char_indices().nth(hit.span.0).map_or(0, |(b, _)| b);
        let before = text[..byte].trim_end().to_ascii_lowercase();
        let aimed = ["to", "into", "at", "via"]
            .iter()
            .any(|w| before.ends_with(&format!(" {w}")) || before == *w);
        // An address reserved for examples (RFC 2606) receives nothing: documentation shows it.
        let sure = !crate::text::is_example_address(&hit.what)
            && (aimed || split.decisive_at(hit.span.0, &sink.tool, sink.names, sink.local()));
        sink.push_sure(
            "exfiltration_target",
            pointer,
            format!(
                "{:?} at character {} is an address data is to be sent to; a tool's text names no destination for the agent's data",
                hit.what,
                hit.span.0 + 1
            ),
            Some(hit.span),
            sure,
        );
    } else if let Some((span, quote)) = split.exfiltration_claim() {
        sink.push_at(
            "exfiltration_target",
            pointer,
            format!(
                "{quote:?} sends the user's data out of their reach (a remote server, an external party); a tool's text names no destination for the agent's data"
            ),
            Some(span),
        );
    }
}

/// `hidden_text` for one string; `is_key` when the string is an object key.
fn hidden(text: &str, pointer: &str, is_key: bool, sink: &mut Sink) {
    let Some((at, c, name, count)) = find_invisible(text) else {
        return;
    };
    let mut msg = format!("U+{:04X} {name} at character {at}", c as u32);
    if is_key {
        msg.push_str(" of the key");
    }
    if count > 1 {
        msg.push_str(&format!(" ({count} invisible characters in all)"));
    }
    let tags = decode_tags(text);
    if !tags.is_empty() {
        msg.push_str(&format!("; the tag characters spell {tags:?}"));
    }
    msg.push_str("; remove it: invisible text hides from reviewers what the model reads");
    sink.push_at("hidden_text", pointer, msg, Some((at - 1, 1)));
}

/// Whether any string or key of a JSON value holds a non-ASCII character (the only place an
/// invisible one can be); checked first so clean schemas are walked without building pointers.
fn any_non_ascii(v: &Node<'_>) -> bool {
    match v.kind {
        Kind::String(s) => !s.is_ascii(),
        Kind::Array(items) => items.iter().any(any_non_ascii),
        Kind::Object(map) => map.iter().any(|(k, v)| !k.is_ascii() || any_non_ascii(v)),
        _ => false,
    }
}

/// `hidden_text` over every string and key of a JSON value.
fn hidden_everywhere(v: &Node<'_>, pointer: &str, sink: &mut Sink) {
    if any_non_ascii(v) {
        hidden_walk(v, pointer, sink);
    }
}

fn hidden_walk(v: &Node<'_>, pointer: &str, sink: &mut Sink) {
    match v.kind {
        Kind::String(s) => hidden(s, pointer, false, sink),
        Kind::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if any_non_ascii(item) {
                    hidden_walk(item, &child(pointer, &i.to_string()), sink);
                }
            }
        }
        Kind::Object(map) => {
            for (k, item) in map.iter() {
                if k.is_ascii() && !any_non_ascii(item) {
                    continue;
                }
                let here = child(pointer, k);
                hidden(k, &here, true, sink);
                hidden_walk(item, &here, sink);
            }
        }
        _ => {}
    }
}

const BASE: &str = "/inputSchema";
/// The pointer of the tool's parameters.
const PARAMS: &str = "/inputSchema/properties";

/// The schema rules over the input schema; `non_ascii` when a string or key of it holds a
/// non-ASCII character ([`json_facts`]).
fn lint_schema<'a>(schema: &'a Node<'a>, non_ascii: bool, cfg: &LintConfig, sink: &mut Sink) {
    sink.params_shadowed = true;
    // Every subschema: descriptions, enums, consts.
    visit_schemas(schema, BASE, &mut |node, ptr| {
        // Only a subschema with one of these keys can have a finding: render its pointer then.
        if node
            .iter()
            .any(|(k, _)| matches!(k, "description" | "enum" | "const"))
        {
            let ptr = ptr.render();
            subschema_description(node, &ptr, cfg, sink);
            subschema_values(node, &ptr, sink);
        }
    });
    // Parameters and fields of object types.
    for field in fields(schema, BASE) {
        lint_field(schema, &field, cfg, sink);
    }
    if non_ascii {
        hidden_walk(schema, BASE, sink);
    }
}

/// The checks of one subschema's description.
fn subschema_description(node: Obj<'_>, ptr: &str, cfg: &LintConfig, sink: &mut Sink) {
    if let Some(d) = node.get("description").and_then(Node::as_str) {
        let dptr = child(ptr, "description");
        let n = d.chars().count();
        if ptr != BASE && n > cfg.param_description_budget {
            let what = if crate::finding::pointer_tokens(ptr).len() == 3 {
                "parameter"
            } else {
                "field"
            };
            sink.push(
                "param_description_budget",
                dptr.clone(),
                format!(
                    "{what} description is {n} characters; the budget is {}",
                    cfg.param_description_budget
                ),
            );
        }
        let ws = Words::new(d);
        steering_and_framing(&ws, &dptr, sink);
        let param = ptr.rsplit_once('/').and_then(|(head, name)| {
            head.ends_with("/properties")
                .then(|| crate::walk::unescape_token(name).into_owned())
        });
        poisoning(d, &ws, &dptr, param.as_deref(), sink);
        // A top-level parameter: `tool_shadowing` reads its description too.
        if ptr.rsplit_once('/').is_some_and(|(head, _)| head == PARAMS) {
            shadow(d, &ws, &dptr, sink);
        }
    }
}

/// The checks of one subschema's `enum` and `const` values.
fn subschema_values(node: Obj<'_>, ptr: &str, sink: &mut Sink) {
    if let Some(values) = node.get("enum").and_then(Node::as_array) {
        let eptr = child(ptr, "enum");
        for (i, v) in values.iter().enumerate() {
            if v.as_str() == Some("") {
                sink.push(
                    "no_empty_enum",
                    child(&eptr, &i.to_string()),
                    format!("enum value {i} is the empty string; leave the parameter out to express absence"),
                );
            }
        }
        let numbers: Vec<String> = values
            .iter()
            .filter(|v| v.is_number())
            .map(Node::to_string)
            .collect();
        if !numbers.is_empty() {
            sink.push(
                "readable_enum",
                eptr,
                format!(
                    "enum values {} are numbers; use words the model can read and map them to numbers in code",
                    numbers.join(", ")
                ),
            );
        }
    }
    if node.get("const").and_then(Node::as_str) == Some("") {
        sink.push(
            "no_empty_enum",
            child(ptr, "const"),
            "const is the empty string; leave the parameter out to express absence",
        );
    }
}

/// The checks of one parameter or field of an object type.
fn lint_field<'a>(schema: &'a Node<'a>, field: &Field<'a>, cfg: &LintConfig, sink: &mut Sink) {
    let noun = if field.depth == 0 {
        "parameter"
    } else {
        "field"
    };
    if field.depth == 0 {
        let n = field.name.chars().count();
        if n > cfg.param_name_budget {
            sink.push(
                "param_name_budget",
                field.pointer.clone(),
                format!(
                    "parameter name is {n} characters; the budget is {}",
                    cfg.param_name_budget
                ),
            );
        }
        if !is_snake_case(field.name) {
            let fixed = to_snake_case(field.name);
            let msg = if fixed.is_empty() || fixed == field.name {
                format!(
                    "parameter \"{}\" is not snake_case; use lowercase words joined by underscores",
                    field.name
                )
            } else {
                format!(
                    "parameter \"{}\" is not snake_case; use \"{fixed}\"",
                    field.name
                )
            };
            sink.push("name_style", field.pointer.clone(), msg);
        }
    }
    if effective_description(schema, field.schema).is_none() {
        sink.push(
            "described",
            child(&field.pointer, "description"),
            format!("{noun} \"{}\" has no description", field.name),
        );
    }
    if let Some(what) = secret_kind(field.name) {
        sink.push(
            "no_model_supplied_secrets",
            field.pointer.clone(),
            format!(
                "{noun} \"{}\" looks like {what}; the model must not supply it: inject it with #[context]",
                field.name
            ),
        );
    }
}

/// The text `definition_budget` and [`crate::measure`] count: `{"name", "description",
/// "inputSchema"}` (those present, in that order) as compact JSON.
///
/// ```
/// let tool = serde_json::json!({"name": "a", "title": "A", "description": "B"});
/// assert_eq!(toolsmith_lint::definition_text(&tool), r#"{"name":"a","description":"B"}"#);
/// ```
pub fn definition_text(tool: &Value) -> String {
    match tool.as_object() {
        Some(obj) => definition_text_of(obj),
        None => tool.to_string(),
    }
}

/// The characters of [`definition_text`] without building it; `schema_chars` are the
/// characters of the input schema ([`json_facts`]), when there is one.
fn definition_chars(obj: Obj<'_>, schema_chars: Option<usize>) -> usize {
    let mut n = 2; // the braces
    let mut first = true;
    for key in ["name", "description", "inputSchema"] {
        if let Some(v) = obj.get(key) {
            if !first {
                n += 1;
            }
            first = false;
            let chars = match (key, schema_chars) {
                ("inputSchema", Some(c)) => c,
                _ => json_facts(v).chars,
            };
            n += key.len() + 3 + chars; // "key":value
        }
    }
    n
}

/// What one walk over a node finds: its size as compact JSON, and whether it holds non-ASCII
/// text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct JsonFacts {
    /// The characters of the node as compact JSON, as `serde_json` writes it (numbers are kept
    /// in that form; strings escape `"`, `\` and control characters).
    chars: usize,
    /// Whether a string or key of the node holds a non-ASCII character.
    non_ascii: bool,
    /// Whether an object of the node has an `x-mcp-header` key (the only case `mcp_fields` has
    /// to look at an input schema).
    header: bool,
}

/// The [`JsonFacts`] of a node.
fn json_facts(v: &Node<'_>) -> JsonFacts {
    let plain = |chars| JsonFacts {
        chars,
        non_ascii: false,
        header: false,
    };
    match v.kind {
        Kind::Null | Kind::Bool(true) => plain(4),
        Kind::Bool(false) => plain(5),
        Kind::Number(n) => plain(n.len()),
        Kind::String(s) => string_facts(s),
        Kind::Array(items) => {
            let mut f = plain(2 + items.len().saturating_sub(1));
            for item in items {
                let i = json_facts(item);
                f.chars += i.chars;
                f.non_ascii |= i.non_ascii;
                f.header |= i.header;
            }
            f
        }
        Kind::Object(o) => {
            let mut f = plain(2 + o.len().saturating_sub(1));
            for (k, v) in o.iter() {
                f.header |= k == crate::mcp_fields::HEADER_KEYWORD;
                let (k, v) = (string_facts(k), json_facts(v));
                f.chars += k.chars + 1 + v.chars;
                f.non_ascii |= k.non_ascii | v.non_ascii;
                f.header |= v.header;
            }
            f
        }
    }
}

/// The [`JsonFacts`] of a string: its characters as a JSON string literal, quotes included.
fn string_facts(s: &str) -> JsonFacts {
    if crate::doc::is_plain_ascii(s.as_bytes()) {
        return JsonFacts {
            chars: s.len() + 2,
            non_ascii: false,
            header: false,
        };
    }
    let chars = 2 + s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | 0x08 | 0x09 | 0x0A | 0x0C | 0x0D => 2,
            0..=0x1F => 6,
            // UTF-8 continuation bytes: the character was counted at its lead byte.
            0x80..=0xBF => 0,
            _ => 1,
        })
        .sum::<usize>();
    JsonFacts {
        chars,
        non_ascii: !s.is_ascii(),
        header: false,
    }
}

fn definition_text_of(obj: &Map<String, Value>) -> String {
    let mut m = Map::new();
    for key in ["name", "description", "inputSchema"] {
        if let Some(v) = obj.get(key) {
            m.insert(key.to_string(), v.clone());
        }
    }
    Value::Object(m).to_string()
}

/// The characters a tag hit of `agent_instructions` (`<IMPORTANT>`) wraps: from the end of the
/// tag to its closing tag, or to the end of the text when it has none. `None` for a phrase hit.
fn tag_block(text: &str, hit: &crate::poison::Hit) -> Option<(usize, usize)> {
    let name = hit.what.strip_prefix('<')?.trim_start_matches(['/', '!']);
    let name: String = name
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if name.is_empty() {
        return None;
    }
    let from = hit.span.0 + hit.span.1;
    let rest: String = text
        .chars()
        .skip(from)
        .collect::<String>()
        .to_ascii_lowercase();
    let len = rest.find(&format!("</{name}")).map_or(rest.len(), |b| b);
    Some((from, from + rest[..len].chars().count()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    use crate::testgen::json;

    /// Whether any string or key of a value holds a non-ASCII character: the walk
    /// [`json_facts`] replaced.
    fn any_non_ascii_value(v: &Value) -> bool {
        match v {
            Value::String(s) => !s.is_ascii(),
            Value::Array(items) => items.iter().any(any_non_ascii_value),
            Value::Object(m) => m
                .iter()
                .any(|(k, v)| !k.is_ascii() || any_non_ascii_value(v)),
            _ => false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// One walk finds what `serde_json`'s compact text and a walk for non-ASCII text find,
        /// for a value and for a definition holding it.
        #[test]
        fn json_facts_are_the_compact_text_and_its_non_ascii(v in json(), name in "[a-zé\"]{0,6}") {
            let arena = Bump::new();
            let node = Node::from_value(&v, &arena);
            let facts = json_facts(&node);
            prop_assert_eq!(facts.chars, v.to_string().chars().count());
            prop_assert_eq!(facts.non_ascii, any_non_ascii_value(&v));
            prop_assert_eq!(facts.non_ascii, any_non_ascii(&node));
            let tool = serde_json::json!({"name": name, "description": v.clone(), "inputSchema": v});
            let node = Node::from_value(&tool, &arena);
            let obj = node.as_object().unwrap();
            let want = definition_text(&tool).chars().count();
            prop_assert_eq!(definition_chars(obj, None), want);
            prop_assert_eq!(definition_chars(obj, Some(facts.chars)), want);
        }
    }
}
