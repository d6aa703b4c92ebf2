//! The person's side of a tool: an accessible HTML form rendered from the same [`ToolSpec`] the
//! model reads, so a form and a tool cannot drift apart.
//!
//! [`form`] renders one tool as a `<form>` with a labelled control per parameter (chosen from
//! its schema), the help text of its description, required marks, and the attributes of WebMCP's
//! declarative API (`toolname`, `tooldescription`, `toolparamdescription`), so a browser that
//! implements WebMCP registers the very form a person fills in as a tool the agent can call.
//! [`page`] wraps forms in a whole document with [`SCRIPT`], which posts the collected arguments
//! as JSON (typed as the schema says: numbers as numbers, a checkbox as `true`/`false`, lists
//! as arrays) and answers an agent's submission (`SubmitEvent.agentInvoked`) with the result.
//! Without the script the form still submits natively to its endpoint.
//!
//! Every text is escaped: a description cannot inject markup. What a control cannot express is
//! reported as a [`Gap`] (for example the browser derives no `minLength` from a text field); the
//! toolbox still checks every call against the spec's schema, whoever fills the form.
//!
//! The endpoint the forms post to runs tools for whoever posts, and a browser posts a form
//! across sites without asking. A host serving it checks every request with a
//! [`RequestGuard`] before the toolbox sees it: the `Host` must be one it serves (against DNS
//! rebinding) and a post must come from the endpoint's own pages (`Origin`,
//! `Sec-Fetch-Site`); a [`Refusal`] is answered as it says and runs no tool.
//!
//! ```
//! # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
//! # use toolsmith::ToolSpec;
//! # use serde_json::json;
//! let spec = ToolSpec::new(
//!     "add_to_cart",
//!     "Adds a product to the cart. Returns the cart's new total.",
//!     json!({"type": "object", "properties": {
//!         "sku": {"type": "string", "description": "The product's SKU.", "minLength": 2},
//!         "quantity": {"type": "integer", "description": "How many, 1 to 10.", "minimum": 1, "maximum": 10}
//!     }, "required": ["sku", "quantity"]}),
//! );
//! let form = toolsmith::ui::form(&spec);
//! assert!(form.is_declarative());
//! assert!(form.html().contains(r#"toolname="add_to_cart""#));
//! assert!(form.html().contains(r#"type="number""#));
//! ```

use serde_json::{json, Map, Value};
use std::fmt::Write as _;

use crate::spec::ToolSpec;

mod guard;
pub use guard::{Refusal, RequestGuard};

/// Enumerations with at most this many values are radio buttons; longer ones a `<select>`.
const RADIO_LIMIT: usize = 8;

/// Text longer than this (`maxLength`, or no limit at all on a described body) gets a
/// `<textarea>`.
const TEXTAREA_FROM: u64 = 200;

/// One tool's form.
#[derive(Debug, Clone)]
pub struct Form {
    tool: String,
    html: String,
    declarative: bool,
    gaps: Vec<Gap>,
}

impl Form {
    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The `<form>` element (a fragment, no script).
    pub fn html(&self) -> &str {
        &self.html
    }

    /// Whether the form carries WebMCP's declarative attributes: every parameter has a control
    /// the browser derives the parameter's JSON type from. When it does not (a list of free
    /// text, a nested object), the form carries the tool's `webmcp` export instead, and
    /// [`SCRIPT`] registers it through WebMCP's imperative API with the spec's own schema (its
    /// calls fill the form in and go to the same endpoint).
    pub fn is_declarative(&self) -> bool {
        self.declarative
    }

    /// What the controls cannot express, parameter by parameter.
    pub fn gaps(&self) -> &[Gap] {
        &self.gaps
    }
}

/// A constraint of the spec that the form's controls (or the schema a browser derives from
/// them) do not carry. The toolbox still enforces it on every call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Gap {
    /// The parameter (a nested one as `parent.child`).
    pub param: String,
    /// The JSON Schema keyword or feature concerned (`minLength`, `type`, ...).
    pub keyword: String,
    /// What happens instead, in a sentence.
    pub note: String,
}

/// Options of [`form_with`] and [`page`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct FormOptions {
    /// Where the form posts: `<endpoint>?tool=<name>` is the `action` of a native submission
    /// (form-encoded; type it with [`form_arguments`]) and the URL [`SCRIPT`] posts
    /// `{"tool": ..., "arguments": {...}}` to as JSON. Without it the script dispatches a
    /// `toolsmith:call` event on the form instead, for the page to handle. The endpoint runs
    /// tools for whoever posts to it: check every request with a [`RequestGuard`] first.
    pub endpoint: Option<String>,
}

impl FormOptions {
    /// Posts to `endpoint`.
    pub fn endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = Some(endpoint.into());
        self
    }
}

/// Renders `spec` as a form with the default options.
pub fn form(spec: &ToolSpec) -> Form {
    form_with(spec, &FormOptions::default())
}

/// Renders `spec` as a form.
pub fn form_with(spec: &ToolSpec, options: &FormOptions) -> Form {
    render_form(spec, options, true)
}

/// The MCP Apps extension's identifier, which a client announces under
/// `capabilities.extensions` to receive [`app`]s.
pub const APP_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an MCP App's HTML resource.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The `ui://` resource URI of a tool's MCP App: `ui://toolsmith/<tool>`.
pub fn app_uri(tool: &str) -> String {
    format!("ui://toolsmith/{tool}")
}

/// The tool an [`app_uri`] names, if it is one.
pub fn app_tool(uri: &str) -> Option<&str> {
    uri.strip_prefix("ui://toolsmith/")
        .filter(|t| !t.is_empty() && !t.contains(['/', '?', '#']))
}

/// `spec` as an MCP App (the MCP Apps extension, SEP-1865): a whole HTML document with the
/// tool's form (without WebMCP's attributes: it runs in the host's sandboxed frame) and
/// [`APP_SCRIPT`], which fills in the model's arguments for the person to review and sends the
/// person's submission to the host as `tools/call`. An MCP server serves it at
/// [`app_uri`] as [`APP_MIME_TYPE`].
pub fn app(spec: &ToolSpec) -> String {
    let title = spec.title.clone().unwrap_or_else(|| humanize(&spec.name));
    let form = render_form(spec, &FormOptions::default(), false);
    document(&title, &format!("{}\n", form.html()), APP_SCRIPT)
}

/// A whole HTML document titled `title`: the styles, `main` inside `<main>`, then `script`.
fn document(title: &str, main: &str, script: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n{main}</main>\n<script>\n{script}</script>\n</body>\n</html>\n",
        text(title)
    )
}

/// Renders `spec`'s form: the form tag, the heading and description, a control per parameter
/// and the submit button.
fn render_form(spec: &ToolSpec, options: &FormOptions, webmcp: bool) -> Form {
    let mut r = Renderer {
        tool: &spec.name,
        out: String::new(),
        gaps: Vec::new(),
        declarative: true,
    };
    let root = &spec.input_schema;
    let fields = r.fields(root, "");
    let descriptor = Value::Array(fields.iter().map(Field::descriptor).collect());

    let title = spec.title.clone().unwrap_or_else(|| humanize(&spec.name));
    let mut html = form_tag(spec, options, webmcp, r.declarative, &descriptor);
    let _ = writeln!(
        html,
        "  <h2 id=\"{}\">{}</h2>",
        attr(&format!("ts-{}-title", spec.name)),
        text(&title)
    );
    let _ = writeln!(
        html,
        "  <p class=\"toolsmith-description\">{}</p>",
        text(&spec.description)
    );
    html.push_str(&r.out);
    let _ = writeln!(
        html,
        "  <button type=\"submit\">{}</button>\n  <output class=\"toolsmith-result\" aria-live=\"polite\"></output>\n</form>",
        text(&title)
    );
    Form {
        tool: spec.name.clone(),
        html,
        declarative: r.declarative,
        gaps: r.gaps,
    }
}

/// The `<form>` start tag: its endpoint, its WebMCP attributes and the parameters' descriptor.
fn form_tag(
    spec: &ToolSpec,
    options: &FormOptions,
    webmcp: bool,
    declarative: bool,
    descriptor: &Value,
) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        "<form class=\"toolsmith-form\" id=\"{id}\" method=\"post\"",
        id = attr(&format!("ts-{}", spec.name)),
    );
    if let Some(endpoint) = &options.endpoint {
        // The tool is named in the query, so a native submission (form-encoded, without the
        // script) says which tool it is for.
        let sep = if endpoint.contains('?') { '&' } else { '?' };
        let action = format!("{endpoint}{sep}tool={}", query_value(&spec.name));
        let _ = write!(html, " action=\"{}\"", attr(&action));
    }
    if declarative && webmcp {
        let _ = write!(
            html,
            " toolname=\"{}\" tooldescription=\"{}\"",
            attr(&spec.name),
            attr(&spec.description)
        );
        // An agent's call of a read-only tool submits at once; for any other tool the browser
        // fills the form in and the person presses its button.
        if spec.effects.read_only && !spec.effects.requires_approval {
            html.push_str(" toolautosubmit");
        }
    }
    // A form the browser cannot derive the tool from carries the tool's WebMCP definition (the
    // spec's own schema), which the page's script registers through the imperative API.
    if !declarative && webmcp {
        if let Ok(def) = crate::export::export_tool(spec, crate::export::Target::WebMcp) {
            let _ = write!(
                html,
                " data-toolsmith-webmcp=\"{}\"",
                attr(&def.to_string())
            );
        }
    }
    let _ = writeln!(
        html,
        " data-toolsmith-tool=\"{}\" data-toolsmith-params=\"{}\" aria-labelledby=\"{}\">",
        attr(&spec.name),
        attr(&descriptor.to_string()),
        attr(&format!("ts-{}-title", spec.name)),
    );
    html
}

/// A whole HTML document: every spec's form, then [`SCRIPT`]. `title` is the page's title.
pub fn page(title: &str, specs: &[ToolSpec], options: &FormOptions) -> String {
    let mut main = format!("<h1>{}</h1>\n", text(title));
    for spec in specs {
        main.push_str(form_with(spec, options).html());
        main.push('\n');
    }
    document(title, &main, SCRIPT)
}

/// The styles of [`page`]: readable, no framework.
const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;line-height:1.45}\
form.toolsmith-form{border:1px solid #ccc;border-radius:.5rem;padding:1rem 1.25rem;margin:1.5rem 0}\
.toolsmith-field{margin:.9rem 0}.toolsmith-field>label,.toolsmith-field>fieldset>legend{font-weight:600;display:block}\
fieldset{border:none;padding:0;margin:0}.toolsmith-required{color:#b00020}\
.toolsmith-help{color:#444;font-size:.92em;margin:.2rem 0}\
input[type=text],input[type=number],input[type=email],input[type=url],input[type=date],select,textarea{width:100%;box-sizing:border-box;padding:.35rem;font:inherit}\
textarea{min-height:6rem}button{font:inherit;padding:.4rem 1rem}output{display:block;white-space:pre-wrap;margin-top:.8rem}";

/// The page's script: on submit (a person's or an agent's) it collects the arguments as the
/// schema types them, posts them as JSON to the form's endpoint (or dispatches `toolsmith:call`
/// with `detail: {tool, arguments, respond}`), shows the result in the form's `<output>` and,
/// for an agent's submission, answers it through `SubmitEvent.respondWith`.
pub const SCRIPT: &str = concat!(
    "(() => {\n  'use strict';\n",
    // The functions both scripts share (ui/shared.js): `collect` (a form's arguments, typed by
    // the descriptor the form carries), `typed`, and `fill` (the controls set to given arguments).
    include_str!("ui/shared.js"),
    include_str!("ui/page.js"),
    "})();\n"
);

/// The MCP App's script (see [`app`]): the MCP Apps handshake with the host over `postMessage`
/// (`ui/initialize`, then `ui/notifications/initialized`), the model's arguments
/// (`ui/notifications/tool-input`) filled into the form for the person to review, the result
/// (`ui/notifications/tool-result`, or the answer to the form's own `tools/call`) shown as text.
/// A submission sends `tools/call` to the host, so the person's call goes through the server's
/// whole pipeline. Only messages from the host (`window.parent`) are read.
pub const APP_SCRIPT: &str = concat!(
    "(() => {\n  'use strict';\n",
    // The functions both scripts share (ui/shared.js): `collect` (a form's arguments, typed by
    // the descriptor the form carries), `typed`, and `fill` (the controls set to given arguments).
    include_str!("ui/shared.js"),
    include_str!("ui/app.js"),
    "})();\n"
);

/// The arguments of a form submitted without the script (`application/x-www-form-urlencoded`
/// name–value pairs, already decoded), typed as [`SCRIPT`] types them: numbers as numbers
/// (text that is not a number stays text, so the toolbox refuses it naming the parameter), a
/// checkbox as `true`/`false`, repeated names and one-per-line lists as arrays, `a.b` into
/// nested objects, empty values left out. Names the spec does not declare are kept as text, so
/// the toolbox refuses them as unknown arguments rather than losing them.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// # use toolsmith::ToolSpec;
/// # use serde_json::json;
/// let spec = ToolSpec::new("add_to_cart", "Adds a product. Returns the cart.", json!({
///     "type": "object",
///     "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"}},
///     "required": ["sku", "quantity"]}));
/// let pairs = [("sku".to_string(), "BOOT-TROLL".to_string()), ("quantity".to_string(), "2".to_string())];
/// assert_eq!(toolsmith::ui::form_arguments(&spec, &pairs), json!({"sku": "BOOT-TROLL", "quantity": 2}));
/// ```
pub fn form_arguments(spec: &ToolSpec, pairs: &[(String, String)]) -> Value {
    let mut r = Renderer {
        tool: &spec.name,
        out: String::new(),
        gaps: Vec::new(),
        declarative: true,
    };
    let fields = r.fields(&spec.input_schema, "");
    let mut args = collect_pairs(&fields, pairs, "");
    for (name, value) in pairs {
        let top = name.split('.').next().unwrap_or(name);
        if !fields.iter().any(|f| f.name == top) && !args.contains_key(top) {
            args.insert(top.to_string(), Value::String(value.clone()));
        }
    }
    Value::Object(args)
}

fn collect_pairs(fields: &[Field], pairs: &[(String, String)], prefix: &str) -> Map<String, Value> {
    let mut args = Map::new();
    for f in fields {
        let name = format!("{prefix}{}", f.name);
        let values: Vec<&str> = pairs
            .iter()
            .filter(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
            .collect();
        let value = match f.kind {
            "object" => {
                let nested = collect_pairs(&f.fields, pairs, &format!("{name}."));
                if nested.is_empty() && !f.required {
                    continue;
                }
                Value::Object(nested)
            }
            "boolean" => {
                let on = values.iter().any(|v| *v == "true" || *v == "on");
                if !on && !f.required && !f.default_true {
                    continue;
                }
                Value::Bool(on)
            }
            "array" => {
                let items: Vec<Value> = values
                    .iter()
                    .flat_map(|v| {
                        if f.lines {
                            v.split('\n').map(str::trim).collect::<Vec<_>>()
                        } else {
                            vec![*v]
                        }
                    })
                    .filter(|v| !v.is_empty())
                    .map(|v| typed(v, f.items.unwrap_or("string")))
                    .collect();
                if items.is_empty() && !f.required {
                    continue;
                }
                Value::Array(items)
            }
            kind => match values.last() {
                Some(v) if !v.is_empty() => typed(v, kind),
                _ => continue,
            },
        };
        args.insert(f.name.clone(), value);
    }
    args
}

/// A submitted text typed as the schema says; text that does not parse stays text.
fn typed(raw: &str, kind: &str) -> Value {
    match kind {
        "integer" => raw
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| raw.trim().parse::<u64>().map(Value::from))
            .unwrap_or_else(|_| Value::String(raw.to_string())),
        "number" => raw
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .and_then(|x| serde_json::Number::from_f64(x).map(Value::Number))
            .unwrap_or_else(|| Value::String(raw.to_string())),
        "boolean" => Value::Bool(raw == "true" || raw == "on"),
        "json" => serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string())),
        _ => Value::String(raw.to_string()),
    }
}

/// A parameter as the script reads it.
struct Field {
    name: String,
    kind: &'static str,
    required: bool,
    items: Option<&'static str>,
    lines: bool,
    /// A boolean whose default is `true`: unchecked must be sent as `false`.
    default_true: bool,
    fields: Vec<Field>,
}

impl Field {
    fn descriptor(&self) -> Value {
        let mut v = json!({"name": self.name, "type": self.kind, "required": self.required});
        if let Some(items) = self.items {
            v["items"] = json!(items);
        }
        if self.lines {
            v["lines"] = json!(true);
        }
        if self.default_true {
            v["defaultTrue"] = json!(true);
        }
        if self.kind == "object" {
            v["fields"] = Value::Array(self.fields.iter().map(Field::descriptor).collect());
        }
        v
    }
}

struct Renderer<'a> {
    tool: &'a str,
    out: String,
    gaps: Vec<Gap>,
    declarative: bool,
}

/// The values of an enumeration with their labels (`oneOf`/`anyOf` of `const` + `title`, or
/// `enum`).
fn choices(schema: &Map<String, Value>) -> Option<Vec<(Value, String)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.iter().map(|v| (v.clone(), shown(v))).collect());
    }
    let alts = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let mut out = Vec::new();
    for alt in alts {
        let c = alt.get("const")?;
        let label = alt
            .get("title")
            .or_else(|| alt.get("description"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| shown(c));
        out.push((c.clone(), label));
    }
    (!out.is_empty()).then_some(out)
}

fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn json_type(schema: &Map<String, Value>) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        // `["string", "null"]`: an optional value; the form omits it when empty.
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

fn num(schema: &Map<String, Value>, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

fn number_text(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

impl Renderer<'_> {
    fn gap(&mut self, param: &str, keyword: &str, note: impl Into<String>) {
        self.gaps.push(Gap {
            param: param.to_string(),
            keyword: keyword.to_string(),
            note: note.into(),
        });
    }

    fn not_declarative(&mut self, param: &str, what: &str) {
        self.declarative = false;
        self.gap(
            param,
            "type",
            format!("{what}: no form control derives this type in the browser's schema, so the form is not declarative; the page's script registers the tool through WebMCP's imperative API with the spec's schema"),
        );
    }

    /// The fields of an object schema, rendering each one; `prefix` names nested fields.
    fn fields(&mut self, schema: &Value, prefix: &str) -> Vec<Field> {
        let empty = Map::new();
        let props = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Vec::new();
        for (name, prop) in props {
            let Some(prop) = prop.as_object() else {
                continue;
            };
            let full = format!("{prefix}{name}");
            out.push(self.field(name, &full, prop, required.contains(&name.as_str())));
        }
        out
    }

    /// Renders one parameter as the control its schema calls for, returning its descriptor.
    fn field(&mut self, name: &str, full: &str, s: &Map<String, Value>, required: bool) -> Field {
        let c = Control::new(self.tool, name, full, s, required);

        // An enumeration: radio buttons (or a select when long), labelled by the value titles.
        if let Some(options) = choices(s) {
            return self.choice_field(&c, &options);
        }

        match json_type(s) {
            Some("boolean") => self.boolean_field(&c),
            Some(t @ ("integer" | "number")) => self.number_field(&c, t == "integer"),
            Some("string") => self.string_field(&c),
            Some("array") => self.array_field(&c),
            Some("object") => self.object_field(&c),
            _ => self.json_field(&c),
        }
    }

    /// An enumeration: a fieldset of radio buttons, or a select when the list is long.
    fn choice_field(&mut self, c: &Control, options: &[(Value, String)]) -> Field {
        let (full, mark, help) = (c.full, c.mark, &c.help);
        let (param_desc, described) = (&c.param_desc, &c.described);
        let kind = value_kind(options.iter().map(|(v, _)| v));
        if kind != "string" {
            self.gap(full, "type", format!("the values are {kind}s, which a control submits as text; the page's script sends them as {kind}s, but the browser's schema says string"));
            self.declarative = false;
        }
        let _ = write!(
            self.out,
            "  <div class=\"toolsmith-field\">\n    <fieldset{param_desc}{described}>\n    <legend>{}{mark}</legend>{help}\n",
            text(&c.label)
        );
        if options.len() <= RADIO_LIMIT {
            self.radio_options(c, options);
        } else {
            self.select_options(c, options);
        }
        let _ = writeln!(self.out, "    </fieldset>\n  </div>");
        c.field(kind)
    }

    /// One radio button per value, the default checked.
    fn radio_options(&mut self, c: &Control, options: &[(Value, String)]) {
        let (id, req) = (&c.id, c.req);
        for (i, (value, title)) in options.iter().enumerate() {
            let checked = if c.s.get("default") == Some(value) {
                " checked"
            } else {
                ""
            };
            let _ = writeln!(
                self.out,
                "    <label><input type=\"radio\" id=\"{}\" name=\"{}\" value=\"{}\"{req}{checked}> {}</label>",
                attr(&format!("{id}-{i}")),
                attr(c.full),
                attr(&shown(value)),
                text(title)
            );
        }
    }

    /// A select with one option per value (and an empty one when optional), the default selected.
    fn select_options(&mut self, c: &Control, options: &[(Value, String)]) {
        let (full, req, param_desc) = (c.full, c.req, &c.param_desc);
        // Chromium takes a select's description from the select itself (a radio
        // group's from its fieldset).
        let _ = writeln!(
            self.out,
            "    <select id=\"{}\" name=\"{}\"{req}{param_desc}>",
            attr(&c.id),
            attr(full)
        );
        if !c.required {
            self.gap(full, "enum", "an optional list of choices has an empty first option (\"(none)\"); the browser's schema lists it as the value \"\", which the page's script sends as no value");
            let _ = writeln!(self.out, "      <option value=\"\">(none)</option>");
        }
        for (value, title) in options {
            let selected = if c.s.get("default") == Some(value) {
                " selected"
            } else {
                ""
            };
            let _ = writeln!(
                self.out,
                "      <option value=\"{}\"{selected}>{}</option>",
                attr(&shown(value)),
                text(title)
            );
        }
        let _ = writeln!(self.out, "    </select>");
    }

    /// A boolean: a checkbox, checked when the default is `true`.
    fn boolean_field(&mut self, c: &Control) -> Field {
        let (full, mark, help) = (c.full, c.mark, &c.help);
        let (param_desc, described) = (&c.param_desc, &c.described);
        let checked = if c.s.get("default") == Some(&Value::Bool(true)) {
            " checked"
        } else {
            ""
        };
        if c.required {
            self.gap(full, "required", "a checkbox is never required (that would force it checked); the page's script always sends true or false, so the call carries it");
        }
        let _ = writeln!(
            self.out,
            "  <div class=\"toolsmith-field\">\n    <label><input type=\"checkbox\" id=\"{}\" name=\"{}\" value=\"true\"{checked}{param_desc}{described}> {}{mark}</label>{help}\n  </div>",
            attr(&c.id),
            attr(full),
            text(&c.label)
        );
        let mut f = c.field("boolean");
        f.default_true = !checked.is_empty();
        f
    }

    /// An integer or a number: a number input with its bounds, step and default.
    fn number_field(&mut self, c: &Control, integer: bool) -> Field {
        let (full, mark, help, req) = (c.full, c.mark, &c.help, c.req);
        let (param_desc, described) = (&c.param_desc, &c.described);
        let s = c.s;
        let mut attrs = self.number_bounds(c, integer);
        let step = match num(s, "multipleOf") {
            Some(m) => number_text(m),
            None if integer => "1".to_string(),
            None => "any".to_string(),
        };
        if integer && num(s, "multipleOf").is_some_and(|m| m.fract() != 0.0) {
            self.gap(full, "multipleOf", "a fractional step on a whole number");
        }
        if let Some(d) = s.get("default").and_then(Value::as_f64) {
            let _ = write!(attrs, " value=\"{}\"", number_text(d));
        }
        let _ = writeln!(
            self.out,
            "  <div class=\"toolsmith-field\">\n    <label for=\"{}\">{}{mark}</label>{help}\n    <input type=\"number\" id=\"{}\" name=\"{}\" step=\"{step}\"{attrs}{req}{param_desc}{described}>\n  </div>",
            attr(&c.id),
            text(&c.label),
            attr(&c.id),
            attr(full)
        );
        c.field(if integer { "integer" } else { "number" })
    }

    /// The `min`/`max` attributes of a number input, noting the exclusive bounds it cannot carry.
    fn number_bounds(&mut self, c: &Control, integer: bool) -> String {
        let s = c.s;
        let mut attrs = String::new();
        let lower = num(s, "minimum")
            .or_else(|| num(s, "exclusiveMinimum").and_then(|x| integer.then(|| x.floor() + 1.0)));
        let upper = num(s, "maximum")
            .or_else(|| num(s, "exclusiveMaximum").and_then(|x| integer.then(|| x.ceil() - 1.0)));
        if !integer {
            for key in ["exclusiveMinimum", "exclusiveMaximum"] {
                if s.contains_key(key) {
                    self.gap(
                        c.full,
                        key,
                        "a number field has no exclusive bound; the toolbox refuses the bound itself",
                    );
                }
            }
        }
        if let Some(x) = lower {
            let _ = write!(attrs, " min=\"{}\"", number_text(x));
        }
        if let Some(x) = upper {
            let _ = write!(attrs, " max=\"{}\"", number_text(x));
        }
        attrs
    }

    /// A string: a text area when long, otherwise an input typed by its `format`.
    fn string_field(&mut self, c: &Control) -> Field {
        let (full, mark, help, req) = (c.full, c.mark, &c.help, c.req);
        let (param_desc, described) = (&c.param_desc, &c.described);
        let s = c.s;
        let max = s.get("maxLength").and_then(Value::as_u64);
        let pattern = s.get("pattern").and_then(Value::as_str);
        let long = max.is_some_and(|m| m > TEXTAREA_FROM) && pattern.is_none();
        let attrs = self.string_attrs(c, long);
        let input_type = match s.get("format").and_then(Value::as_str) {
            Some("date") => "date",
            Some("email") => "email",
            Some("uri") => "url",
            _ => "text",
        };
        let _ = write!(
            self.out,
            "  <div class=\"toolsmith-field\">\n    <label for=\"{}\">{}{mark}</label>{help}\n",
            attr(&c.id),
            text(&c.label)
        );
        if long {
            let default = s.get("default").and_then(Value::as_str).unwrap_or("");
            let _ = writeln!(
                self.out,
                "    <textarea id=\"{}\" name=\"{}\"{attrs}{req}{param_desc}{described}>{}</textarea>\n  </div>",
                attr(&c.id),
                attr(full),
                text(default)
            );
        } else {
            let _ = writeln!(
                self.out,
                "    <input type=\"{input_type}\" id=\"{}\" name=\"{}\"{attrs}{req}{param_desc}{described}>\n  </div>",
                attr(&c.id),
                attr(full)
            );
        }
        c.field("string")
    }

    /// The length, pattern and default attributes of a text control (`long`: a text area).
    fn string_attrs(&mut self, c: &Control, long: bool) -> String {
        let s = c.s;
        let max = s.get("maxLength").and_then(Value::as_u64);
        let min = s.get("minLength").and_then(Value::as_u64);
        let pattern = s.get("pattern").and_then(Value::as_str);
        let mut attrs = String::new();
        if let Some(m) = min {
            let _ = write!(attrs, " minlength=\"{m}\"");
        }
        if let Some(m) = max {
            let _ = write!(attrs, " maxlength=\"{m}\"");
        }
        if min.is_some() || max.is_some() {
            self.gap(c.full, "minLength/maxLength", "the browser derives no length limits from a text field; the field checks them as a person types, and the toolbox checks every call");
        }
        if let Some(p) = pattern {
            // HTML anchors a pattern at both ends; JSON Schema searches anywhere in the
            // text. `.*(?:p).*` accepts, anchored, exactly what `p` finds unanchored.
            let _ = write!(attrs, " pattern=\"{}\"", attr(&format!(".*(?:{p}).*")));
        }
        if let Some(d) = s.get("default").and_then(Value::as_str) {
            if !long {
                let _ = write!(attrs, " value=\"{}\"", attr(d));
            }
        }
        attrs
    }

    /// An array: a group of checkboxes for a list of choices, otherwise one value per line.
    fn array_field(&mut self, c: &Control) -> Field {
        let items = c.s.get("items").and_then(Value::as_object);
        if let Some(options) = items.and_then(choices) {
            return self.checkbox_group_field(c, &options);
        }
        self.lines_field(c, items)
    }

    /// A list of choices: a group of checkboxes, one per value.
    fn checkbox_group_field(&mut self, c: &Control, options: &[(Value, String)]) -> Field {
        let (full, mark, help) = (c.full, c.mark, &c.help);
        let (param_desc, described) = (&c.param_desc, &c.described);
        let s = c.s;
        // A list of choices: a group of checkboxes, which the browser derives as an
        // array of those values with `uniqueItems`.
        let kind = value_kind(options.iter().map(|(v, _)| v));
        if kind != "string" {
            self.not_declarative(full, "a list of non-text choices");
        }
        if !s
            .get("uniqueItems")
            .and_then(Value::as_bool)
            .unwrap_or(false)
        {
            self.gap(
                full,
                "uniqueItems",
                "a group of checkboxes picks each value at most once; the spec would allow repeats",
            );
        }
        for key in ["minItems", "maxItems"] {
            if s.contains_key(key) {
                self.gap(
                    full,
                    key,
                    "a group of checkboxes has no count limit; the toolbox checks it",
                );
            }
        }
        let _ = write!(
            self.out,
            "  <div class=\"toolsmith-field\">\n    <fieldset{param_desc}{described}>\n    <legend>{}{mark}</legend>{help}\n",
            text(&c.label)
        );
        for (i, (value, title)) in options.iter().enumerate() {
            let _ = writeln!(
                self.out,
                "    <label><input type=\"checkbox\" id=\"{}\" name=\"{}\" value=\"{}\"> {}</label>",
                attr(&format!("{}-{i}", c.id)),
                attr(full),
                attr(&shown(value)),
                text(title)
            );
        }
        let _ = writeln!(self.out, "    </fieldset>\n  </div>");
        let mut f = c.field("array");
        f.items = Some(kind_static(kind));
        f
    }

    /// A list of free values: a text area with one value per line.
    fn lines_field(&mut self, c: &Control, items: Option<&Map<String, Value>>) -> Field {
        let (full, mark, help, req, described) = (c.full, c.mark, &c.help, c.req, &c.described);
        // A list of free values: one per line in a text area. The browser derives a
        // string from it, so the form is for people only.
        let item_kind = items
            .and_then(json_type)
            .map(kind_static)
            .unwrap_or("string");
        self.not_declarative(full, "a list of free values");
        let _ = writeln!(
            self.out,
            "  <div class=\"toolsmith-field\">\n    <label for=\"{}\">{}{mark}</label>{help}\n    <p class=\"toolsmith-help\">One per line.</p>\n    <textarea id=\"{}\" name=\"{}\"{req}{described}></textarea>\n  </div>",
            attr(&c.id),
            text(&c.label),
            attr(&c.id),
            attr(full)
        );
        let mut f = c.field("array");
        f.items = Some(item_kind);
        f.lines = true;
        f
    }

    /// A nested object: a fieldset around the fields of its properties.
    fn object_field(&mut self, c: &Control) -> Field {
        let (full, mark, help, described) = (c.full, c.mark, &c.help, &c.described);
        self.not_declarative(full, "a nested object");
        let _ = write!(
            self.out,
            "  <div class=\"toolsmith-field\">\n    <fieldset{described}>\n    <legend>{}{mark}</legend>{help}\n",
            text(&c.label)
        );
        let nested = self.fields(&Value::Object(c.s.clone()), &format!("{full}."));
        let _ = writeln!(self.out, "    </fieldset>\n  </div>");
        let mut f = c.field("object");
        f.fields = nested;
        f
    }

    /// A value of no single JSON type: a text area for JSON.
    fn json_field(&mut self, c: &Control) -> Field {
        let (full, mark, help, req, described) = (c.full, c.mark, &c.help, c.req, &c.described);
        self.not_declarative(full, "a value of no single JSON type");
        let _ = writeln!(
            self.out,
            "  <div class=\"toolsmith-field\">\n    <label for=\"{}\">{}{mark} (JSON)</label>{help}\n    <textarea id=\"{}\" name=\"{}\"{req}{described}></textarea>\n  </div>",
            attr(&c.id),
            text(&c.label),
            attr(&c.id),
            attr(full)
        );
        c.field("json")
    }
}

/// What every control of one field shares: its schema, id, label, required mark and help text.
struct Control<'s> {
    name: &'s str,
    full: &'s str,
    s: &'s Map<String, Value>,
    required: bool,
    id: String,
    label: String,
    mark: &'static str,
    help: String,
    described: String,
    param_desc: String,
    req: &'static str,
}

impl<'s> Control<'s> {
    /// Derives the shared attributes of the field `full` of `tool` from its schema `s`.
    fn new(
        tool: &str,
        name: &'s str,
        full: &'s str,
        s: &'s Map<String, Value>,
        required: bool,
    ) -> Self {
        let id = format!("ts-{}-{}", tool, full.replace('.', "-"));
        let help_id = format!("{id}-help");
        let label = s
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| humanize(name));
        let description = s.get("description").and_then(Value::as_str).unwrap_or("");
        let mark = if required {
            " <span class=\"toolsmith-required\" aria-hidden=\"true\">*</span>"
        } else {
            ""
        };
        let help = if description.is_empty() {
            String::new()
        } else {
            format!(
                "\n    <p class=\"toolsmith-help\" id=\"{}\">{}</p>",
                attr(&help_id),
                text(description)
            )
        };
        let described = if description.is_empty() {
            String::new()
        } else {
            format!(" aria-describedby=\"{}\"", attr(&help_id))
        };
        let param_desc = if description.is_empty() {
            String::new()
        } else {
            format!(" toolparamdescription=\"{}\"", attr(description))
        };
        let req = if required { " required" } else { "" };
        Control {
            name,
            full,
            s,
            required,
            id,
            label,
            mark,
            help,
            described,
            param_desc,
            req,
        }
    }

    /// The descriptor of this field, of the given kind, with no items or nested fields.
    fn field(&self, kind: &'static str) -> Field {
        Field {
            name: self.name.to_string(),
            kind,
            required: self.required,
            items: None,
            lines: false,
            default_true: false,
            fields: Vec::new(),
        }
    }
}

fn kind_static(kind: &str) -> &'static str {
    match kind {
        "integer" => "integer",
        "number" => "number",
        "boolean" => "boolean",
        _ => "string",
    }
}

/// The one JSON type of a set of values (`string` when they mix).
fn value_kind<'v>(mut values: impl Iterator<Item = &'v Value>) -> &'static str {
    let first = match values.next() {
        Some(v) => v,
        None => return "string",
    };
    let kind = |v: &Value| match v {
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        _ => "string",
    };
    let k = kind(first);
    if values.all(|v| kind(v) == k) {
        k
    } else {
        "string"
    }
}

/// `max_price` → "Max price".
fn humanize(name: &str) -> String {
    let words: Vec<&str> = name
        .split(['_', '-', '.'])
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = words.join(" ");
    if let Some(first) = out.get(..1) {
        let upper = first.to_uppercase();
        out.replace_range(..1, &upper);
    }
    out
}

/// A query-string value, percent-encoded (everything but unreserved characters).
fn query_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Text content, escaped.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

/// An attribute value (always written between double quotes), escaped.
fn attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(description: &str, schema: Value) -> ToolSpec {
        ToolSpec::new("find_items", description, schema)
    }

    #[test]
    fn markup_in_any_text_is_escaped() {
        let s = spec(
            "Finds items <script>alert(1)</script> \"quoted\" & 'single'.",
            json!({"type": "object", "properties": {
                "q": {"type": "string", "title": "Q<b>", "description": "A \"query\" <img src=x onerror=alert(1)>."},
                "kind": {"oneOf": [{"const": "a\"><script>", "title": "<i>A</i>"}]}
            }}),
        );
        let html = form(&s).html().to_string();
        assert!(!html.contains("<script>"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<i>"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(html.contains("&quot;quoted&quot;"), "{html}");
        assert!(
            html.contains("value=\"a&quot;&gt;&lt;script&gt;\""),
            "{html}"
        );
    }

    #[test]
    fn each_parameter_gets_its_control() {
        let s = spec(
            "Finds items. Returns them.",
            json!({"type": "object", "properties": {
                "q": {"type": "string", "minLength": 2, "maxLength": 40, "pattern": "^[a-z]+$"},
                "n": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
                "ratio": {"type": "number", "exclusiveMinimum": 0},
                "on": {"type": "boolean"},
                "kind": {"oneOf": [{"const": "a", "title": "Alpha"}, {"const": "b", "title": "Beta"}]},
                "tags": {"type": "array", "items": {"enum": ["x", "y"]}, "uniqueItems": true},
                "body": {"type": "string", "maxLength": 4000}
            }, "required": ["q", "kind"]}),
        );
        let f = form(&s);
        let html = f.html();
        assert!(f.is_declarative());
        assert!(html.contains("type=\"text\" id=\"ts-find_items-q\" name=\"q\" minlength=\"2\" maxlength=\"40\" pattern=\".*(?:^[a-z]+$).*\" required"), "{html}");
        assert!(html.contains("type=\"number\" id=\"ts-find_items-n\" name=\"n\" step=\"1\" min=\"1\" max=\"9\" value=\"3\""), "{html}");
        assert!(html.contains("name=\"ratio\" step=\"any\""), "{html}");
        assert!(
            html.contains("type=\"checkbox\" id=\"ts-find_items-on\" name=\"on\" value=\"true\""),
            "{html}"
        );
        assert!(html.contains("type=\"radio\" id=\"ts-find_items-kind-0\" name=\"kind\" value=\"a\" required> Alpha"), "{html}");
        assert!(
            html.contains(
                "type=\"checkbox\" id=\"ts-find_items-tags-1\" name=\"tags\" value=\"y\"> y"
            ),
            "{html}"
        );
        assert!(
            html.contains("<textarea id=\"ts-find_items-body\" name=\"body\" maxlength=\"4000\""),
            "{html}"
        );
        let keywords: Vec<&str> = f.gaps().iter().map(|g| g.keyword.as_str()).collect();
        assert!(keywords.contains(&"exclusiveMinimum"), "{keywords:?}");
        assert!(keywords.contains(&"minLength/maxLength"), "{keywords:?}");
    }

    #[test]
    fn a_long_optional_enumeration_is_a_described_select_with_an_empty_option() {
        let floors: Vec<String> = (0..10).map(|i| format!("f{i}")).collect();
        let s = spec(
            "Books a room. Returns the booking.",
            json!({"type": "object", "properties": {
                "floor": {"type": "string", "enum": floors, "description": "The floor."}
            }}),
        );
        let f = form(&s);
        let html = f.html();
        // The description on the select itself: Chromium derives a select's from it.
        assert!(
            html.contains("<select id=\"ts-find_items-floor\" name=\"floor\" toolparamdescription=\"The floor.\">"),
            "{html}"
        );
        assert!(
            html.contains("<option value=\"\">(none)</option>"),
            "{html}"
        );
        assert!(f
            .gaps()
            .iter()
            .any(|g| g.param == "floor" && g.keyword == "enum"));
    }

    #[test]
    fn lists_of_free_values_and_nested_objects_are_for_people_only() {
        let s = spec(
            "Compares items. Returns a table.",
            json!({"type": "object", "properties": {
                "skus": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "filter": {"type": "object", "properties": {"brand": {"type": "string"}}}
            }, "required": ["skus"]}),
        );
        let f = form(&s);
        assert!(!f.is_declarative());
        assert!(!f.html().contains("toolname="), "{}", f.html());
        assert!(f.html().contains("name=\"filter.brand\""), "{}", f.html());
        let params: Vec<&str> = f
            .gaps()
            .iter()
            .filter(|g| g.keyword == "type")
            .map(|g| g.param.as_str())
            .collect();
        assert_eq!(params, ["skus", "filter"]);
    }

    #[test]
    fn a_native_submission_is_typed_like_the_script_types_it() {
        let s = spec(
            "Finds items. Returns them.",
            json!({"type": "object", "properties": {
                "q": {"type": "string"},
                "n": {"type": "integer"},
                "ratio": {"type": "number"},
                "on": {"type": "boolean"},
                "off": {"type": "boolean"},
                "tags": {"type": "array", "items": {"enum": ["x", "y"]}, "uniqueItems": true},
                "skus": {"type": "array", "items": {"type": "string"}},
                "filter": {"type": "object", "properties": {"brand": {"type": "string"}}}
            }, "required": ["q"]}),
        );
        let pairs: Vec<(String, String)> = [
            ("q", "tent"),
            ("n", "3"),
            ("ratio", "0.5"),
            ("on", "true"),
            ("tags", "x"),
            ("tags", "y"),
            ("skus", "A-1\r\n\nB-2\n"),
            ("filter.brand", "Acme"),
            ("extra", "kept"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(
            form_arguments(&s, &pairs),
            json!({"q": "tent", "n": 3, "ratio": 0.5, "on": true, "tags": ["x", "y"],
                   "skus": ["A-1", "B-2"], "filter": {"brand": "Acme"}, "extra": "kept"})
        );
        // Text that is not a number stays text, for the toolbox to refuse by name.
        let bad = vec![
            ("q".to_string(), "a".to_string()),
            ("n".to_string(), "three".to_string()),
        ];
        assert_eq!(form_arguments(&s, &bad), json!({"q": "a", "n": "three"}));
    }

    #[test]
    fn names_become_labels() {
        assert_eq!(humanize("max_price"), "Max price");
        assert_eq!(humanize("in_stock_only"), "In stock only");
        assert_eq!(humanize(""), "");
    }
}
