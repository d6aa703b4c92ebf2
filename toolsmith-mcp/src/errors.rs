//! Errors: why serving stopped ([`ServeError`]), and the protocol errors the server answers
//! with.

use rmcp::ErrorData;
use toolsmith_core::budget::ResultReadError;
use toolsmith_core::export::McpVersion;
use toolsmith_core::{codes, Envelope, Status};

/// Why serving stopped or could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The address could not be bound or the connection failed.
    #[error("MCP server I/O failed: {0}")]
    Io(#[from] std::io::Error),
    /// The client's session could not be established (for example no `initialize`).
    #[error("the MCP session could not start: {0}")]
    Session(String),
    /// The server's settings cannot be served (an OAuth issuer or resource that is not an
    /// `https` URL, for example); the message says which.
    #[error("the MCP server's settings are not valid: {0}")]
    Config(String),
}

/// The longest URI quoted back in an error's `data`, in bytes.
const MAX_QUOTED_URI: usize = 2048;

/// The protocol error of a kept result that could not be read: resource-not-found (`-32002`,
/// which rmcp sends as `-32602` to 2026-07-28 clients, as that revision asks) for a URI that
/// names nothing (any more), invalid params for a link refused to this caller, an internal
/// error for a store that failed. `data` quotes the URI, as the specification's example does.
pub(crate) fn read_error(uri: &str, error: &ResultReadError) -> ErrorData {
    let data = (uri.len() <= MAX_QUOTED_URI).then(|| serde_json::json!({ "uri": uri }));
    let message = error.to_string();
    if error.is_not_found() {
        ErrorData::resource_not_found(message, data)
    } else if *error == ResultReadError::Unavailable {
        ErrorData::internal_error(message, data)
    } else {
        ErrorData::invalid_params(message, data)
    }
}

/// The codes of arguments the schema rejected (the validation stage) and of unknown tools.
const ARGUMENT_CODES: [&str; 4] = [
    codes::INVALID_ARGUMENT,
    codes::MISSING_ARGUMENT,
    codes::UNKNOWN_ARGUMENT,
    codes::INVALID_INPUT,
];
const TOOL_CODES: [&str; 2] = [codes::UNKNOWN_TOOL, codes::TOOL_RETIRED];

/// The JSON-RPC error an envelope becomes instead of a result, where the version says so.
pub(crate) fn protocol_error(env: &Envelope, version: McpVersion) -> Option<ErrorData> {
    if env.status != Status::InvalidInput {
        return None;
    }
    let code = env.code.as_deref().unwrap_or_default();
    let as_error = TOOL_CODES.contains(&code)
        || (version == McpVersion::V2025_06_18 && ARGUMENT_CODES.contains(&code));
    as_error.then(|| {
        let data = serde_json::to_value(env).ok();
        ErrorData::invalid_params(env.message.clone().unwrap_or_default(), data)
    })
}

/// The answer to a request the client cancelled (rmcp sends nothing for it).
pub(crate) fn cancelled() -> ErrorData {
    ErrorData::internal_error("the request was cancelled", None)
}

pub(crate) fn internal(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("the server could not encode its answer: {e}"), None)
}

/// The `-32021` of a request that needed a client capability it did not declare (2026-07-28):
/// `data.requiredCapabilities` names it.
pub(crate) fn missing_capability(capability: &str) -> ErrorData {
    let mut data = serde_json::Map::new();
    data.insert(capability.to_string(), serde_json::json!({}));
    ErrorData::new(
        rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "this call needs the client capability `{capability}`, which the request's _meta \
             does not declare; declare it and call again"
        ),
        Some(serde_json::json!({ "requiredCapabilities": data })),
    )
}
