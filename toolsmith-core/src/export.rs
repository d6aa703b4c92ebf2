//! Exports of a tool list to the agent platforms: toolsmith-spec's [`export`](toolsmith_spec::export)
//! module (the lowering, artifacts and the snapshot check; see its documentation), with the
//! runtime's side of MCP, the `CallToolResult` of an envelope ([`mcp_call_result`]), and the
//! toolbox's shortcuts.

pub use crate::mcp_result::{mcp_call_parts, mcp_call_result, McpCallParts, ENVELOPE_META_KEY};
pub use crate::tool_result::tool_result;
use serde_json::Value;
pub use toolsmith_spec::export::*;

/// The offline shortcuts of a [`Toolbox`](crate::Toolbox): its tool list, exported.
impl crate::Toolbox {
    /// The tool list lowered for one agent platform (see [`crate::export`](self)).
    pub fn export(&self, target: Target) -> Result<Value, ExportError> {
        export(&self.specs(), target)
    }

    /// The tool list lowered for one agent platform, as JSON text (see [`export_text`]): the
    /// same bytes as `serde_json::to_string(&toolbox.export(target)?)`.
    pub fn export_text(&self, target: Target) -> Result<String, ExportError> {
        export_text(&self.specs(), target)
    }

    /// The tool list lowered for one agent platform with [`ExportOptions`] (Anthropic's cache
    /// breakpoint, the tool-search tool of a list that defers tools; see [`export_with`]).
    pub fn export_with(
        &self,
        target: Target,
        options: &ExportOptions,
    ) -> Result<Value, ExportError> {
        export_with(&self.specs(), target, options)
    }

    /// Writes one file per export target plus `index.json` into `dir` (see
    /// [`write_artifacts`]); [`default_artifact_dir`] is `target/tool-specs/`.
    pub fn write_artifacts(
        &self,
        dir: impl AsRef<std::path::Path>,
    ) -> Result<ArtifactReport, ArtifactError> {
        write_artifacts(&self.specs(), dir)
    }

    /// Compares the current exports with a committed snapshot directory and fails with a
    /// readable diff on drift; `TOOLSMITH_UPDATE_SNAPSHOTS=1` accepts the new snapshot (see
    /// [`check_snapshot`]).
    pub fn check_snapshot(&self, dir: impl AsRef<std::path::Path>) -> Result<(), SnapshotDrift> {
        check_snapshot(&self.specs(), dir)
    }
}
