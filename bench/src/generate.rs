//! Generated spec lists for the lint and export benches: the six fixture tools repeated with
//! numbered names and descriptions, so every spec is distinct but realistic.

use toolsmith::ToolSpec;

/// The six fixture specs (store then helpdesk), as `#[tool]` produced them.
pub fn base_specs() -> Vec<ToolSpec> {
    let mut specs = crate::store_toolbox().specs();
    specs.extend(crate::helpdesk_toolbox().specs());
    specs
}

/// `n` distinct specs: fixture `i % 6` renamed `<name>_<i>` (at most 23 characters) with
/// "Variant `<i>`." appended to its description.
///
/// ```
/// let specs = toolsmith_bench::generate::specs(12);
/// assert_eq!(specs.len(), 12);
/// assert_eq!(specs[7].name, "compare_products_00007");
/// ```
pub fn specs(n: usize) -> Vec<ToolSpec> {
    let base = base_specs();
    (0..n)
        .map(|i| {
            let mut spec = base[i % base.len()].clone();
            spec.name = format!("{}_{i:05}", spec.name);
            spec.description = format!("{} Variant {i}.", spec.description);
            spec
        })
        .collect()
}

/// The specs as an MCP-style tool list (`{"tools": [agent-facing definitions]}`), the input of
/// `lint_tool_list`.
pub fn tool_list(specs: &[ToolSpec]) -> serde_json::Value {
    serde_json::json!({ "tools": specs.iter().map(ToolSpec::agent_facing).collect::<Vec<_>>() })
}
