//! The protocol versions the server speaks, and the export's version for the one a request
//! negotiated.

use rmcp::model::ProtocolVersion;
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use toolsmith_core::export::McpVersion;

/// The protocol versions the server speaks: the ones the MCP export knows.
pub(crate) const VERSIONS: [ProtocolVersion; 3] = [
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// The export's version for a negotiated protocol version; versions before 2025-06-18 are not
/// negotiated (the server does not offer them), so anything unknown gets the oldest shape.
pub(crate) fn version_of(context: &RequestContext<RoleServer>) -> McpVersion {
    match context.protocol_version() {
        Some(v) if v == ProtocolVersion::V_2026_07_28 => McpVersion::V2026_07_28,
        Some(v) if v == ProtocolVersion::V_2025_11_25 => McpVersion::V2025_11_25,
        _ => McpVersion::V2025_06_18,
    }
}
