//! Lint at runtime: toolsmith-spec's [`lint`](toolsmith_spec::lint) (the rules the `#[tool]` macro
//! enforces at compile time, on specs or any MCP tool list), with the toolbox's shortcut.

pub use toolsmith_spec::lint::*;

impl crate::Toolbox {
    /// Lints every registered tool's spec (full schemas included) with the given budgets.
    pub fn lint(&self, config: &LintConfig) -> Vec<Finding> {
        self.specs()
            .iter()
            .flat_map(|spec| lint_with(spec, config))
            .collect()
    }
}
