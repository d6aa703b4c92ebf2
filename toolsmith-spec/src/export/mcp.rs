//! A tool's published MCP `outputSchema`. The `CallToolResult` of an envelope, which must fit it
//! on every status, is toolsmith-core's `export::mcp_call_result` (the runtime's side); both read
//! [`output_wrapped`] and [`WRAP_KEY`].
//!
//! A tool publishes its own output type, as rmcp and FastMCP do, object-wrapped as
//! `{"result": ...}` where the protocol version needs an object at the root (2025-06-18 and
//! 2025-11-25) and the type is not one. `structuredContent` is the tool's data on `ok`; on every
//! other status it is the status alone, `{"status": "denied"}` (`status` is reserved: domain data
//! never uses that field name). The output schema admits both: the data's `required` list and a
//! `{"required": ["status"]}` branch are the two arms of one `anyOf`.

use serde_json::{json, Value};

use super::target::McpVersion;
use super::tree::{Entries, Tree};

/// The property a non-object output is wrapped in where the protocol needs an object.
pub const WRAP_KEY: &str = "result";

/// Whether a tool's output (its canonical output schema) is wrapped as `{"result": ...}` for
/// `version`: the 2025 revisions need an object at the root of `outputSchema` and
/// `structuredContent`; 2026-07-28 takes any type.
pub fn output_wrapped(output_schema: &Value, version: McpVersion) -> bool {
    version != McpVersion::V2026_07_28
        && output_schema.get("type").and_then(Value::as_str) != Some("object")
}

/// The published `outputSchema` for a lowered data schema: the data (wrapped where needed) or a
/// status-only object. The data's members stay borrowed where the lowering borrowed them.
pub(crate) fn output_schema(data: Tree<'_>, version: McpVersion) -> Tree<'_> {
    let (data, defs) = if data.is_object() && data.has_member("$defs") {
        let mut m = data.into_entries().unwrap_or_default();
        let defs = m.remove("$defs");
        (Tree::Obj(m), defs)
    } else {
        (data, None)
    };
    let status_only = || Tree::Val(json!({"required": ["status"]}));
    let is_object = data.get_str("type") == Some("object");
    let mut root = if version != McpVersion::V2026_07_28 && !is_object {
        let mut m = Entries::with_capacity(3);
        m.insert("type", Tree::Str("object"));
        // `result` is not required: it is absent exactly when the call did not succeed (the
        // status-only object), so no second arm is needed.
        m.insert("properties", Tree::object([(WRAP_KEY, data)]));
        m
    } else if !is_object {
        // 2026-07-28, a non-object output: the type itself, or the status object.
        let mut m = Entries::with_capacity(2);
        m.insert(
            "anyOf",
            Tree::Arr(vec![
                data,
                Tree::Val(json!({"type": "object", "required": ["status"]})),
            ]),
        );
        m
    } else {
        let mut m = data.into_entries().unwrap_or_default();
        let closed = m
            .get("additionalProperties")
            .is_some_and(|v| v.is_bool(false));
        if closed || m.contains_key("anyOf") {
            // The status object cannot share the root's keywords: keep the data whole as one arm.
            let mut branch = std::mem::take(&mut m);
            branch.remove("type");
            m.insert("type", Tree::Str("object"));
            m.insert("anyOf", Tree::Arr(vec![Tree::Obj(branch), status_only()]));
        } else if let Some(required) = m.remove("required") {
            if required.is_non_empty_array() {
                m.insert(
                    "anyOf",
                    Tree::Arr(vec![Tree::object([("required", required)]), status_only()]),
                );
            }
        }
        m
    };
    if let Some(defs) = defs {
        root.insert("$defs", defs);
    }
    Tree::Obj(root)
}
