//! Helpers tool-core's test binaries share: `mod common;` at the top of a test file. Each binary
//! uses only some of them.
#![allow(dead_code)]

use serde_json::Value;
use tool_core::{Effects, Tool, ToolSpec};

/// A hand-written spec (no output schema, no allows, no timeout, version 1.0.0); tests change
/// the fields they need with struct update syntax.
pub fn spec(name: &str, description: &str, input_schema: Value, effects: Effects) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        title: None,
        description: description.into(),
        input_schema,
        output_schema: None,
        effects,
        allows: vec![],
        timeout_ms: None,
        version: "1.0.0".into(),
    }
}

/// The effects of a tool that only reads.
pub fn read_only() -> Effects {
    Effects {
        read_only: true,
        ..Default::default()
    }
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
