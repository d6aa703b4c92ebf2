//! The MCP `CallToolResult` of an envelope, the runtime's side of what toolsmith-spec's
//! [`output_schema`](toolsmith_spec::export::mcp) publishes: the two must fit each other on every
//! status.
//!
//! `structuredContent` is the tool's data on `ok`; on every other status it is the status alone,
//! `{"status": "denied"}` (`status` is reserved: domain data never uses that field name). The
//! output schema admits both.
//!
//! The envelope reaches the client without sending the data twice. When the data is the whole
//! answer (an `ok` with no note, cut, cursor, reference, message or code: a *plain* `ok`), the
//! result is what MCP asks of a tool with structured output, as rmcp and FastMCP send it: the
//! data as `structuredContent`, its JSON as the text block, `isError: false`, and no `_meta`
//! (`isError: false` and a `structuredContent` without `status` already say `ok`; the operation
//! id stays in the audit record). On every other outcome the text block is the envelope's JSON
//! (status, code, message, missing fields, note, cursor, data), because the model needs those
//! fields to act; `isError` is set for every status other than `ok` and `empty`; and `_meta`
//! carries the envelope without its data under [`ENVELOPE_META_KEY`].

use crate::budget::ResultResource;
use crate::envelope::{Envelope, Status};
use serde_json::{json, Map, Value};
use toolsmith_spec::export::mcp::{output_wrapped, WRAP_KEY};
use toolsmith_spec::export::McpVersion;
use toolsmith_spec::spec::ContentKind;
use toolsmith_spec::ToolSpec;

/// The `_meta` key of a `CallToolResult` under which the envelope (without `data`) travels.
pub const ENVELOPE_META_KEY: &str = "dev.toolsmith/envelope";

/// The MCP `CallToolResult` of `env`, a result of the tool `spec` (`None`: a tool not known to
/// the server, or one without an output schema), for the negotiated `version`.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::export::{mcp_call_result, McpVersion, ENVELOPE_META_KEY};
/// use toolsmith::{Envelope, Status};
/// let env = Envelope::error(Status::Denied, "OUTSIDE", "The path leads outside the workspace.");
/// let result = mcp_call_result(None, &env, McpVersion::V2025_11_25);
/// assert_eq!(result["isError"], true);
/// assert_eq!(result["structuredContent"], serde_json::json!({"status": "denied"}));
/// assert_eq!(result["_meta"][ENVELOPE_META_KEY]["code"], "OUTSIDE");
/// assert_eq!(result["content"][0]["text"], env.to_json());
/// ```
pub fn mcp_call_result(spec: Option<&ToolSpec>, env: &Envelope, version: McpVersion) -> Value {
    mcp_call_parts(spec, env.clone(), version).into_value()
}

/// The parts of the MCP `CallToolResult` of an envelope (see [`mcp_call_result`], which puts
/// them together as JSON): a server that builds its protocol stack's own result type takes
/// these, and the envelope is consumed, so its data moves into the result without a copy.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct McpCallParts {
    /// The one text block, what the model reads: on an `ok` whose data is the whole answer
    /// (no note, cut, cursor, reference, message or code), the JSON of `structuredContent`
    /// (the data's JSON for a tool without an output schema); on every other outcome the whole
    /// envelope's JSON.
    pub text: String,
    /// `structuredContent`: the data on `ok` (wrapped where the version needs an object), the
    /// status object on every other status; `None` for a successful tool without an output
    /// schema.
    pub structured_content: Option<Value>,
    /// `isError`: set for every status other than `ok` and `empty`.
    pub is_error: bool,
    /// `_meta`: the envelope without its data under [`ENVELOPE_META_KEY`]; empty (and left out
    /// of the result) on a plain `ok`, whose data is the whole answer.
    pub meta: Map<String, Value>,
    /// The tool's own content blocks (an image, audio, resources, links: see
    /// [`content`](crate::content)), after the text block, on an `ok` of a tool that answers
    /// with content; empty otherwise. On a plain `ok` of such a tool with no data beside its
    /// blocks, [`text`](Self::text) is empty and there is no text block.
    pub content: Vec<Value>,
    /// The kept full result the envelope's `ref` names, announced as a `resource_link` content
    /// block after the text (every revision the export knows has them: they came with
    /// 2025-06-18). [`mcp_call_parts`] leaves it `None`, as it knows neither the caller nor the
    /// toolbox's key; a server sets it with [`with_resource_link`](Self::with_resource_link)
    /// from [`Toolbox::result_resource`](crate::Toolbox::result_resource).
    pub resource_link: Option<ResultResource>,
}

impl McpCallParts {
    /// These parts with `link` (the kept result's resource, when the envelope has a `ref`)
    /// announced as a `resource_link` content block.
    #[must_use]
    pub fn with_resource_link(mut self, link: Option<ResultResource>) -> Self {
        self.resource_link = link;
        self
    }

    /// The `CallToolResult` JSON: `content` (the text block unless it is empty beside content
    /// blocks, the tool's content blocks, then the `resource_link` block when there is one),
    /// `structuredContent` (when there is one), `isError` and `_meta` (when it is not empty), in
    /// that order.
    pub fn into_value(self) -> Value {
        let mut result = Map::new();
        let mut content = Vec::with_capacity(1 + self.content.len());
        if !self.text.is_empty() || self.content.is_empty() {
            // Built by hand: `json!` would serialize a copy of the text.
            content.push(Value::Object(Map::from_iter([
                ("type".to_string(), Value::String("text".into())),
                ("text".to_string(), Value::String(self.text)),
            ])));
        }
        content.extend(self.content);
        if let Some(link) = self.resource_link {
            content.push(resource_link_block(link));
        }
        result.insert("content".into(), Value::Array(content));
        if let Some(s) = self.structured_content {
            result.insert("structuredContent".into(), s);
        }
        result.insert("isError".into(), json!(self.is_error));
        if !self.meta.is_empty() {
            result.insert("_meta".into(), Value::Object(self.meta));
        }
        Value::Object(result)
    }
}

/// A kept result's `resource_link` content block: `uri`, `name`, `title`, `description` and
/// `mimeType`.
fn resource_link_block(link: ResultResource) -> Value {
    Value::Object(Map::from_iter([
        ("type".to_string(), Value::String("resource_link".into())),
        ("uri".to_string(), Value::String(link.uri)),
        ("name".to_string(), Value::String(link.name)),
        ("title".to_string(), Value::String(link.title)),
        ("description".to_string(), Value::String(link.description)),
        ("mimeType".to_string(), Value::String(link.mime_type)),
    ]))
}

/// The parts of the `CallToolResult` of `env` (see [`mcp_call_result`]), taking the envelope
/// so its data moves into `structuredContent`.
pub fn mcp_call_parts(
    spec: Option<&ToolSpec>,
    mut env: Envelope,
    version: McpVersion,
) -> McpCallParts {
    if let Some(kind) = spec.and_then(ToolSpec::content_kind) {
        if env.status == Status::Ok && env.data.is_some() {
            return with_content(kind, spec.and_then(ToolSpec::data_schema), env, version);
        }
    }
    let out = spec.and_then(|s| s.output_schema.as_ref());
    if data_is_the_whole_answer(&env) {
        if let Some(data) = env.data.take() {
            return plain_ok(data, out, &env, version);
        }
    }
    with_envelope(env, out, version)
}

/// The `ok` of a tool that answers with content: its blocks become the result's `content`, the
/// data beside them (a [`Content`](crate::content::Content) with data) `structuredContent` as
/// for any tool, and the text block says what the model must read besides the blocks: the
/// data's JSON on a plain `ok`, nothing when there is no data, the envelope (with the data
/// beside the blocks, never the blocks' base64) on every other `ok`.
fn with_content(
    kind: ContentKind,
    out: Option<&Value>,
    mut env: Envelope,
    version: McpVersion,
) -> McpCallParts {
    let (blocks, data) = match (kind, env.data.take()) {
        (ContentKind::Mixed, Some(Value::Object(mut m))) => {
            let blocks = match m.remove("content") {
                Some(Value::Array(blocks)) => blocks,
                _ => Vec::new(),
            };
            (blocks, m.remove("data"))
        }
        (_, Some(block)) => (vec![block], None),
        (_, None) => (Vec::new(), None),
    };
    env.data = data;
    let mut parts = if env.data.is_none() && data_is_the_whole_answer_but_data(&env) {
        parts(String::new(), None, &env, None)
    } else if data_is_the_whole_answer(&env) {
        let data = env.data.take().unwrap_or(Value::Null);
        plain_ok(data, out, &env, version)
    } else {
        with_envelope(env, out, version)
    };
    parts.content = blocks;
    parts
}

/// [`data_is_the_whole_answer`] for an `ok` without data: nothing but its status.
fn data_is_the_whole_answer_but_data(env: &Envelope) -> bool {
    env.status == Status::Ok && nothing_else_to_act_on(env)
}

/// The JSON text of what the client is shown.
fn json_text(shown: &Value) -> String {
    // `to_string` writes into one buffer; `Value`'s `Display` goes through a formatter adapter
    // and costs about twice as much.
    serde_json::to_string(shown).unwrap_or_default()
}

/// The data under [`WRAP_KEY`], moved in (`json!` would serialize a copy of it).
fn wrapped(data: Value) -> Value {
    Value::Object(Map::from_iter([(WRAP_KEY.to_string(), data)]))
}

/// The status object that stands for data that cannot be `structuredContent`.
fn status_only(env: &Envelope) -> Value {
    json!({ "status": env.status.as_str() })
}

/// A plain `ok`: the data is the whole answer, as `structuredContent` and its JSON as the text,
/// with no `_meta`.
fn plain_ok(data: Value, out: Option<&Value>, env: &Envelope, version: McpVersion) -> McpCallParts {
    let structured = match out {
        None => return parts(json_text(&data), None, env, None),
        Some(schema) if output_wrapped(schema, version) => wrapped(data),
        Some(_) if data.is_object() || version == McpVersion::V2026_07_28 => data,
        Some(_) => {
            // Data that breaks its object schema (the output contract is checked in debug
            // builds only): the status object, and the data in the text.
            return parts(json_text(&data), Some(status_only(env)), env, None);
        }
    };
    parts(json_text(&structured), Some(structured), env, None)
}

/// An outcome the model must read more than data from: the text is the whole envelope,
/// serialized before the data moves out, and `_meta` carries the envelope without its data.
fn with_envelope(mut env: Envelope, out: Option<&Value>, version: McpVersion) -> McpCallParts {
    let text = env.to_json();
    let data = env.data.take();
    let envelope = meta_envelope(&env, data.is_some());
    let structured = match (env.status, out, data) {
        (Status::Ok, Some(schema), Some(data)) => Some(if output_wrapped(schema, version) {
            wrapped(data)
        } else if data.is_object() || version == McpVersion::V2026_07_28 {
            data
        } else {
            status_only(&env)
        }),
        (Status::Ok, None, Some(_)) => None,
        (status, out, _) => (status != Status::Ok || out.is_some()).then(|| status_only(&env)),
    };
    parts(text, structured, &env, Some(envelope))
}

/// Whether an envelope's data is all the model needs to read: an `ok` with data and nothing
/// else to act on.
fn data_is_the_whole_answer(env: &Envelope) -> bool {
    env.status == Status::Ok && env.data.is_some() && nothing_else_to_act_on(env)
}

/// Whether an envelope carries nothing for the model to act on besides its status and data: no
/// code, message, missing field, retry, cut, note, cursor or reference. Every field is named, so
/// a new one must be decided here.
fn nothing_else_to_act_on(env: &Envelope) -> bool {
    let Envelope {
        status: _,
        code,
        message,
        data: _,
        missing,
        retry_after,
        truncated,
        note,
        cursor,
        reference,
        // Identifiers for the host, carried in `_meta`.
        operation_id: _,
        schema_version: _,
    } = env;
    code.is_none()
        && message.is_none()
        && missing.is_empty()
        && retry_after.is_none()
        && !truncated
        && note.is_none()
        && cursor.is_none()
        && reference.is_none()
}

/// The envelope without its data, as `_meta` carries it. Its fields keep the order they have
/// always had: where there was data, the data's slot (after status, code and message) is taken
/// by the last field, `schema_version`, as when the data is removed from the serialized
/// envelope by swapping.
fn meta_envelope(env: &Envelope, had_data: bool) -> Map<String, Value> {
    let mut envelope = match serde_json::to_value(env) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    if had_data {
        let slot = 1 + usize::from(env.code.is_some()) + usize::from(env.message.is_some());
        let mut fields: Vec<(String, Value)> = envelope.into_iter().collect();
        if let Some(last) = fields.pop() {
            let slot = slot.min(fields.len());
            fields.insert(slot, last);
        }
        envelope = fields.into_iter().collect();
    }
    envelope
}

/// Puts the parts together; `envelope` is `None` on a plain `ok`, which has no `_meta`.
fn parts(
    text: String,
    structured_content: Option<Value>,
    env: &Envelope,
    envelope: Option<Map<String, Value>>,
) -> McpCallParts {
    let mut meta = Map::new();
    if let Some(envelope) = envelope {
        meta.insert(ENVELOPE_META_KEY.into(), Value::Object(envelope));
    }
    McpCallParts {
        text,
        structured_content,
        is_error: !env.is_success(),
        meta,
        content: Vec::new(),
        resource_link: None,
    }
}

impl Envelope {
    /// The MCP `CallToolResult` for this envelope when the tool is not known (no output schema):
    /// a text block with the envelope's JSON, `isError: true` for every status other than `ok`
    /// and `empty`, the envelope without its data in `_meta`, and on non-ok statuses
    /// `structuredContent: {"status": ...}`; an `ok` whose data is the whole answer is the
    /// data's JSON as text and nothing else. Business and validation failures are results, not
    /// JSON-RPC errors. [`export::mcp_call_result`](crate::export::mcp_call_result) is the form
    /// that fits a tool's published output schema.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// let env = toolsmith::Envelope::error(toolsmith::Status::Refused, "LIMIT", "Limit reached.");
    /// let result = env.to_mcp_result();
    /// assert_eq!(result["isError"], true);
    /// assert_eq!(result["structuredContent"]["status"], "refused");
    /// assert_eq!(result["content"][0]["type"], "text");
    /// ```
    pub fn to_mcp_result(&self) -> Value {
        mcp_call_result(None, self, McpVersion::V2025_11_25)
    }
}
