//! Lint at runtime: the same rules the `#[tool]` macro enforces at compile time, run on
//! [`ToolSpec`]s (with their full schemas) or on any MCP tool list, including third-party servers'.
//!
//! ```
//! use tool_spec::lint::{lint_tool_list, LintConfig};
//! let list = serde_json::json!({"tools": [{
//!     "name": "read_file",
//!     "description": "Reads a file. Returns its text.",
//!     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}
//! }]});
//! let findings = lint_tool_list(&list, &LintConfig::default()).unwrap();
//! assert_eq!(findings[0].rule, "described");
//! assert_eq!(findings[0].pointer, "/inputSchema/properties/path/description");
//! ```

use crate::spec::ToolSpec;
pub use tool_lint::{
    apply_allows, estimate_tokens, lint_definition, lint_tool_list, measure, rule, rule_ids,
    CompileTime, ConfigError, Finding, LintConfig, ListError, Measure, Profile, Rule, Severity,
    RULES,
};

/// Lints one spec with the default (chrome) budgets; the spec's own `allow`s are honoured.
pub fn lint(spec: &ToolSpec) -> Vec<Finding> {
    lint_with(spec, &LintConfig::default())
}

/// Lints one spec with the given configuration; the spec's own `allow`s are honoured.
pub fn lint_with(spec: &ToolSpec, config: &LintConfig) -> Vec<Finding> {
    let allows: Vec<(String, String)> = spec
        .allows
        .iter()
        .map(|a| (spec.name.clone(), a.rule.clone()))
        .collect();
    apply_allows(lint_definition(&spec.agent_facing(), config), &allows)
}

/// What a list of specs costs in context before any call: characters per definition (compact
/// JSON of name, description and input schema), the total, and an estimate in tokens
/// (characters / 4, rounded up; see [`estimate_tokens`]).
pub fn measure_specs(specs: &[ToolSpec]) -> Measure {
    let list: Vec<serde_json::Value> = specs.iter().map(ToolSpec::agent_facing).collect();
    // A bare array of definitions is always a valid list.
    measure(&serde_json::Value::Array(list)).unwrap_or(Measure {
        per_tool: Vec::new(),
        total_chars: 0,
        estimated_tokens: 0,
    })
}
