//! The MCP side of a call: a tool's published `outputSchema` and the `CallToolResult` of an
//! envelope, kept together because each must fit the other on every status.
//!
//! A tool publishes its own output type, as rmcp and FastMCP do, object-wrapped as
//! `{"result": ...}` where the protocol version needs an object at the root (2025-06-18 and
//! 2025-11-25) and the type is not one. `structuredContent` is the tool's data on `ok`; on every
//! other status it is the status alone, `{"status": "denied"}` (`status` is reserved: domain data
//! never uses that field name). The output schema admits both: the data's `required` list and a
//! `{"required": ["status"]}` branch are the two arms of one `anyOf`.
//!
//! The whole envelope still reaches the client: the text block is the envelope's JSON (what the
//! model reads: status, code, message, data, note, cursor), `isError` is set for every status
//! other than `ok` and `empty`, and `_meta` carries the envelope without its data under
//! [`ENVELOPE_META_KEY`].

use serde_json::{json, Map, Value};

use super::target::McpVersion;
use crate::envelope::{Envelope, Status};
use crate::spec::ToolSpec;

/// The `_meta` key of a `CallToolResult` under which the envelope (without `data`) travels.
pub const ENVELOPE_META_KEY: &str = "dev.toolsmith/envelope";

/// The property a non-object output is wrapped in where the protocol needs an object.
const WRAP_KEY: &str = "result";

/// Whether a tool's output (its canonical output schema) is wrapped as `{"result": ...}` for
/// `version`: the 2025 revisions need an object at the root of `outputSchema` and
/// `structuredContent`; 2026-07-28 takes any type.
pub fn output_wrapped(output_schema: &Value, version: McpVersion) -> bool {
    version != McpVersion::V2026_07_28
        && output_schema.get("type").and_then(Value::as_str) != Some("object")
}

/// The published `outputSchema` for a lowered data schema: the data (wrapped where needed) or a
/// status-only object.
pub(crate) fn output_schema(mut data: Value, version: McpVersion) -> Value {
    let defs = data.as_object_mut().and_then(|m| m.remove("$defs"));
    let status_only = json!({"required": ["status"]});
    let mut root = if output_wrapped(&data, version) {
        let mut m = Map::new();
        m.insert("type".into(), json!("object"));
        // `result` is not required: it is absent exactly when the call did not succeed (the
        // status-only object), so no second arm is needed.
        m.insert("properties".into(), json!({ WRAP_KEY: data }));
        m
    } else if data.get("type").and_then(Value::as_str) != Some("object") {
        // 2026-07-28, a non-object output: the type itself, or the status object.
        let mut m = Map::new();
        m.insert(
            "anyOf".into(),
            json!([data, {"type": "object", "required": ["status"]}]),
        );
        m
    } else {
        let mut m = match data {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let closed = m.get("additionalProperties") == Some(&Value::Bool(false));
        if closed || m.contains_key("anyOf") {
            // The status object cannot share the root's keywords: keep the data whole as one arm.
            let mut branch = std::mem::take(&mut m);
            branch.remove("type");
            m.insert("type".into(), json!("object"));
            m.insert("anyOf".into(), json!([branch, status_only]));
        } else if let Some(required) = m.remove("required") {
            if required.as_array().is_some_and(|r| !r.is_empty()) {
                m.insert(
                    "anyOf".into(),
                    json!([{ "required": required }, status_only]),
                );
            }
        }
        m
    };
    if let Some(defs) = defs {
        root.insert("$defs".into(), defs);
    }
    Value::Object(root)
}

/// The MCP `CallToolResult` of `env`, a result of the tool `spec` (`None`: a tool not known to
/// the server, or one without an output schema), for the negotiated `version`.
///
/// ```
/// use tool_core::export::{mcp_call_result, McpVersion, ENVELOPE_META_KEY};
/// use tool_core::{Envelope, Status};
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
    /// The one text block: the whole envelope's JSON, what the model reads.
    pub text: String,
    /// `structuredContent`: the data on `ok` (wrapped where the version needs an object), the
    /// status object on every other status; `None` for a successful tool without an output
    /// schema.
    pub structured_content: Option<Value>,
    /// `isError`: set for every status other than `ok` and `empty`.
    pub is_error: bool,
    /// `_meta`: the envelope without its data under [`ENVELOPE_META_KEY`].
    pub meta: Map<String, Value>,
}

impl McpCallParts {
    /// The `CallToolResult` JSON: `content`, `structuredContent` (when there is one),
    /// `isError` and `_meta`, in that order.
    pub fn into_value(self) -> Value {
        let mut result = Map::new();
        result.insert(
            "content".into(),
            json!([{"type": "text", "text": self.text}]),
        );
        if let Some(s) = self.structured_content {
            result.insert("structuredContent".into(), s);
        }
        result.insert("isError".into(), json!(self.is_error));
        result.insert("_meta".into(), Value::Object(self.meta));
        Value::Object(result)
    }
}

/// The parts of the `CallToolResult` of `env` (see [`mcp_call_result`]), taking the envelope
/// so its data moves into `structuredContent`.
pub fn mcp_call_parts(
    spec: Option<&ToolSpec>,
    mut env: Envelope,
    version: McpVersion,
) -> McpCallParts {
    // The text is the whole envelope; `_meta` is the envelope without its data, and the data
    // (moved, not copied) becomes the structured content.
    let text = env.to_json();
    let data = env.data.take();
    let mut envelope = match serde_json::to_value(&env) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    if data.is_some() {
        // The envelope's fields keep the order they have always had in `_meta`: the data's
        // slot (after status, code and message) taken by the last field, `schema_version`, as
        // when the data is removed from the serialized envelope by swapping.
        let slot = 1 + usize::from(env.code.is_some()) + usize::from(env.message.is_some());
        let mut fields: Vec<(String, Value)> = envelope.into_iter().collect();
        if let Some(last) = fields.pop() {
            let slot = slot.min(fields.len());
            fields.insert(slot, last);
        }
        envelope = fields.into_iter().collect();
    }
    let status_only = || json!({ "status": env.status.as_str() });
    let out = spec.and_then(|s| s.output_schema.as_ref());
    let structured_content = match (env.status, out, data) {
        (Status::Ok, Some(schema), Some(data)) => {
            if output_wrapped(schema, version) {
                Some(json!({ WRAP_KEY: data }))
            } else if data.is_object() || version == McpVersion::V2026_07_28 {
                Some(data)
            } else {
                Some(status_only())
            }
        }
        (Status::Ok, None, _) => None,
        _ => Some(status_only()),
    };
    let mut meta = Map::new();
    meta.insert(ENVELOPE_META_KEY.into(), Value::Object(envelope));
    McpCallParts {
        text,
        structured_content,
        is_error: !env.is_success(),
        meta,
    }
}
