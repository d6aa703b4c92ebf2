//! Generated spec lists for the lint and export benches: the six fixture tools repeated with
//! numbered names and descriptions, so every spec is distinct but realistic.

use toolsmith::export::{export_tool_text, Target};
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

/// The export bench's unit of work: `specs` exported to `target` as JSON text
/// (`toolsmith::export::export_text`, which writes the lowered specs straight to text).
///
/// Targets with a per-request tool limit (OpenAI: 128, Anthropic strict: 20) refuse a longer
/// list; for them each spec is lowered with `export_tool_text` and the texts joined into the
/// array (the same per-tool work, the same bytes as serializing the array of `export_tool`).
///
/// ```
/// use toolsmith::export::Target;
/// let specs = toolsmith_bench::generate::specs(3);
/// let text = toolsmith_bench::generate::export_text(&specs, Target::Gemini);
/// assert!(text.starts_with(r#"{"functionDeclarations":["#));
/// ```
pub fn export_text(specs: &[ToolSpec], target: Target) -> String {
    match toolsmith::export::export_text(specs, target) {
        Ok(text) => text,
        Err(_) => {
            let tools: Vec<String> = specs
                .iter()
                .filter_map(|s| export_tool_text(s, target).ok())
                .collect();
            format!("[{}]", tools.join(","))
        }
    }
}
