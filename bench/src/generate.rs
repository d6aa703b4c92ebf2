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

/// How the export bench lowers a list for a target: as one list, or tool by tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportUnit {
    /// `export_text` of the whole list.
    List,
    /// `export_tool_text` of each spec, the texts joined into an array: for targets with a
    /// per-request tool limit (OpenAI: 128, Anthropic strict: 20) below the list's length.
    EachTool,
}

/// Which [`ExportUnit`] `target` takes for `specs`: decided once, before timing, so the timed
/// work is the lowering itself and not a refused attempt at the whole list.
pub fn export_unit(specs: &[ToolSpec], target: Target) -> ExportUnit {
    match toolsmith::export::export_text(specs, target) {
        Ok(_) => ExportUnit::List,
        Err(_) => ExportUnit::EachTool,
    }
}

/// The export bench's unit of work: `specs` exported to `target` as JSON text
/// (`toolsmith::export::export_text`, which writes the lowered specs straight to text), as
/// [`export_unit`] decided.
///
/// ```
/// use toolsmith::export::Target;
/// use toolsmith_bench::generate::{export_text, export_unit, specs, ExportUnit};
/// let specs = specs(3);
/// let unit = export_unit(&specs, Target::Gemini);
/// assert_eq!(unit, ExportUnit::List);
/// let text = export_text(&specs, Target::Gemini, unit);
/// assert!(text.starts_with(r#"{"functionDeclarations":["#));
/// ```
pub fn export_text(specs: &[ToolSpec], target: Target, unit: ExportUnit) -> String {
    match unit {
        ExportUnit::List => toolsmith::export::export_text(specs, target).unwrap_or_default(),
        ExportUnit::EachTool => {
            let tools: Vec<String> = specs
                .iter()
                .filter_map(|s| export_tool_text(s, target).ok())
                .collect();
            format!("[{}]", tools.join(","))
        }
    }
}
