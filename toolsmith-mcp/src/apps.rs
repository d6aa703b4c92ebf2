//! MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): each tool's form for people
//! (`toolsmith_spec::ui::app`), served as a `ui://toolsmith/<tool>` resource of type
//! `text/html;profile=mcp-app`, and linked from the tool's `_meta.ui.resourceUri` in
//! `tools/list` — both only for a client that announced the extension with that MIME type (in
//! `initialize`, or in a 2026-07-28 request's `_meta`). A client that did not gets the plain list
//! and a resource-not-found for the URI. The form's submission is the host's `tools/call`, so a
//! person's call goes through the same pipeline (validation, policy, approval, audit) as the
//! agent's.

use rmcp::model::{ClientCapabilities, ListToolsResult, ReadResourceResult, ResourceContents};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::{json, Value};
use toolsmith_core::export::McpVersion;
use toolsmith_core::ToolSpec;
use toolsmith_spec::ui;

/// Whether the client of this request announced MCP Apps with the HTML profile.
pub(crate) fn announced(context: &RequestContext<RoleServer>, version: McpVersion) -> bool {
    let capabilities: Option<ClientCapabilities> = if version == McpVersion::V2026_07_28 {
        context.meta.client_capabilities()
    } else {
        context.peer.peer_info().map(|i| i.capabilities.clone())
    };
    capabilities
        .and_then(|c| c.extensions)
        .and_then(|e| e.get(ui::APP_EXTENSION).cloned())
        .and_then(|settings| settings.get("mimeTypes").cloned())
        .and_then(|m| m.as_array().cloned())
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(ui::APP_MIME_TYPE)))
}

/// `list` with each tool's `_meta.ui.resourceUri` set to its app (other `_meta` keys kept).
pub(crate) fn linked(list: &ListToolsResult) -> ListToolsResult {
    let mut list = list.clone();
    for tool in &mut list.tools {
        let mut meta = tool.meta.take().unwrap_or_default();
        let ui_meta = meta.0.entry("ui".to_string()).or_insert_with(|| json!({}));
        if let Value::Object(m) = ui_meta {
            m.insert(
                "resourceUri".to_string(),
                Value::String(ui::app_uri(&tool.name)),
            );
        }
        tool.meta = Some(meta);
    }
    list
}

/// Whether `uri` is a toolsmith app URI (`ui://toolsmith/...`), which the server answers
/// itself; other `ui://` URIs are the host handler's.
pub(crate) fn is_app_uri(uri: &str) -> bool {
    uri.starts_with("ui://toolsmith/")
}

/// The app of `spec` as a `resources/read` result.
pub(crate) fn read(spec: &ToolSpec, uri: &str) -> ReadResourceResult {
    let contents =
        ResourceContents::text(ui::app(spec), uri.to_string()).with_mime_type(ui::APP_MIME_TYPE);
    ReadResourceResult::new(vec![contents])
}
