//! toolsmith: declarative tool definitions for LLM agents.
pub use tool_core::*;
