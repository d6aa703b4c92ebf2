//! Helpers toolsmith-core's test binaries share: `mod common;` at the top of a test file. Each binary
//! uses only some of them.
#![allow(dead_code)]

use serde_json::Value;
use toolsmith_core::{Effects, Tool, ToolSpec};

/// A hand-written spec (no output schema, no allows, no timeout, version 1.0.0); tests change
/// the fields they need with the `with_*` setters.
pub fn spec(name: &str, description: &str, input_schema: Value, effects: Effects) -> ToolSpec {
    ToolSpec::new(name, description, input_schema)
        .with_effects(effects)
        .with_version("1.0.0")
}

/// The effects of a tool that only reads.
pub fn read_only() -> Effects {
    Effects::none().with_read_only(true)
}

/// A tool that answers with its arguments.
pub fn echo_tool(spec: ToolSpec) -> Tool {
    Tool::from_fn(spec, |_, args| Box::pin(async move { Ok(args) }))
}

/// A current-thread runtime with time and I/O enabled, for tests that are not `async`.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}
