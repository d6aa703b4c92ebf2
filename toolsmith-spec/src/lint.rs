//! Lint at runtime: the same rules the `#[tool]` macro enforces at compile time, run on
//! [`ToolSpec`]s (with their full schemas) or on any MCP tool list, including third-party servers'.
//!
//! ```
//! # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
//! use toolsmith::lint::{lint_tool_list, LintConfig};
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
pub use toolsmith_lint::{
    apply_allows, estimate_tokens, examples_of, lint_definition, lint_tool_list, measure, rule,
    rule_ids, CompileTime, ConfigError, Finding, LintConfig, ListError, Measure, Profile, Rule,
    Severity, RULES,
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
/// JSON of name, description and input schema, plus the example calls, which the model reads
/// too), the total, and an estimate in tokens (characters / 4, rounded up; see
/// [`estimate_tokens`]).
pub fn measure_specs(specs: &[ToolSpec]) -> Measure {
    let list: Vec<serde_json::Value> = specs.iter().map(ToolSpec::agent_facing).collect();
    // A bare array of definitions is always a valid list.
    measure(&serde_json::Value::Array(list)).unwrap_or(Measure {
        per_tool: Vec::new(),
        total_chars: 0,
        estimated_tokens: 0,
    })
}

/// What a list with a core set costs up front against the whole (see [`measure_core`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CoreMeasure {
    /// The core tools: what the model reads before any tool search.
    pub core: Measure,
    /// Every tool, as [`measure_specs`] counts it.
    pub whole: Measure,
}

/// The cost of the core set ([`ToolSpec::core`]) against the whole list; `None` when no tool
/// is core (then nothing is deferred and the core is the whole).
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// use toolsmith::lint::measure_core;
/// use toolsmith::ToolSpec;
/// let schema = serde_json::json!({"type": "object"});
/// let specs = [
///     ToolSpec::new("search_orders", "Searches orders. Returns them.", schema.clone()).with_core(true),
///     ToolSpec::new("refund_order", "Refunds an order. Returns the refund.", schema),
/// ];
/// let m = measure_core(&specs).unwrap();
/// assert_eq!(m.core.per_tool.len(), 1);
/// assert!(m.core.total_chars < m.whole.total_chars);
/// assert!(measure_core(&specs[1..]).is_none());
/// ```
pub fn measure_core(specs: &[ToolSpec]) -> Option<CoreMeasure> {
    if !specs.iter().any(|s| s.core) {
        return None;
    }
    let core: Vec<ToolSpec> = specs.iter().filter(|s| s.core).cloned().collect();
    Some(CoreMeasure {
        core: measure_specs(&core),
        whole: measure_specs(specs),
    })
}
