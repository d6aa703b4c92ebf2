//! The lint rules of [toolsmith](https://docs.rs/toolsmith), in one place for both the `#[tool]`
//! macro (compile time, on the text it sees) and `toolsmith-core` (runtime, on any tool list, including
//! third-party MCP servers).
//!
//! Rules work on an MCP-shaped tool definition as JSON, `{"name", "title"?, "description"?,
//! "inputSchema"?, ...}`, and report [`Finding`]s that carry a JSON pointer to the offending value,
//! so the macro can map them back to source spans. The rule table is [`RULES`]; the budgets come
//! from a [`LintConfig`], chosen per crate in `[package.metadata.toolsmith]`.
//!
//! ```
//! use toolsmith_lint::{lint_definition, LintConfig};
//! let tool = serde_json::json!({
//!     "name": "searchProducts",
//!     "description": "Search the catalog. Returns matching products.",
//!     "inputSchema": {"type": "object", "properties": {
//!         "query": {"type": "string", "description": "Words to look for, e.g. \"red shoes\"."}
//!     }}
//! });
//! let findings = lint_definition(&tool, &LintConfig::default());
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].to_string(),
//!     "warning[name_style] searchProducts /name: name \"searchProducts\" is not snake_case; use \"search_products\"");
//! ```
#![deny(unreachable_pub)]
#![deny(missing_docs)]

mod attack;
/// The rules' reference: `toolsmith-lint/RULES.md`, the one text that documents every rule (what it
/// checks, its severity, whether the `#[tool]` macro runs it, its message, a bad and a good
/// example) and the budget profiles. The README and the tests read the same file.
#[doc = include_str!("../RULES.md")]
pub mod reference {}
pub mod compile_checks;
mod config;
pub mod deprecation;
pub mod doc;
mod finding;
mod flow;
mod lexicon;
mod lint;
mod list;
pub mod mcp_fields;
mod names;
pub mod platform;
mod poison;
pub mod quality;
mod quality_rules;
mod rules;
mod schema;
pub mod secrets;
#[cfg(test)]
mod testgen;
mod text;
mod verbs;
pub mod walk;

pub use config::{ConfigError, LintConfig, Profile, CONFIG_KEYS};
pub use finding::{apply_allows, escape_pointer_token, pointer_tokens, Finding};
pub use flow::{toxic_flow, toxic_flow_nodes};
pub use lint::{definition_text, lint_definition};
pub use list::{
    estimate_tokens, examples_of, lint_each, lint_nodes, lint_nodes_then, lint_tool_list,
    lint_tools, measure, tool_definitions, ListError, Measure,
};
pub use rules::{lookup_rule, rule, rule_ids, CompileTime, Rule, Severity, UnknownRule, RULES};
pub use text::{Fnv, FnvBuild};
