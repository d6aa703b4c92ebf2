//! The quality components of a tool definition: what a model needs in order to pick a tool and
//! call it right, read from the description and the input schema.
//!
//! The components follow the rubric LLM judges scored MCP tool descriptions with (Hasan et al.,
//! "MCP Tool Descriptions Are Smelly!", arXiv 2602.14878): *purpose* (what the tool does, to
//! what, how it behaves or what comes back), *when to use it* (and when not), *limitations*,
//! *parameters* (what each means and its format) and, from toolsmith's own table, *what comes
//! back* (`says_what_it_returns`). Each rule reports one warning per tool that lacks its
//! component, with what to add; `toolsmith lint` ranks these findings above the other style
//! findings and prints, per list, how many tools have each component.
//!
//! The rules are off in [`crate::lint_definition`], [`crate::lint_tools`] and their kin, whose
//! findings stay what they were; [`lint_definition`], [`lint_tools`] and [`lint_nodes_then`] of
//! this module run them too.
//!
//! ```
//! let tool = serde_json::json!({
//!     "name": "search_products",
//!     "description": "Search the catalog. Returns products.",
//!     "inputSchema": {"type": "object", "properties": {
//!         "query": {"type": "string", "description": "Words to look for, e.g. \"red shoes\"."}
//!     }}
//! });
//! let findings = toolsmith_lint::quality::lint_definition(&tool, &toolsmith_lint::LintConfig::default());
//! let rules: Vec<&str> = findings.iter().map(|f| f.rule).collect();
//! assert_eq!(rules, ["states_purpose", "says_when_to_use", "states_limits"]);
//! let missing = toolsmith_lint::quality::missing(&findings);
//! assert_eq!(missing, [true, true, true, false, false]); // purpose, when, limits, parameters, returns
//! ```

use serde_json::Value;

use crate::config::LintConfig;
use crate::doc::Node;
use crate::finding::Finding;

/// One quality component: the rule that checks it and how reports name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Component {
    /// The rule's id in [`crate::RULES`].
    pub rule: &'static str,
    /// The component in a sentence: `"purpose"`, `"when to use"`, ...
    pub name: &'static str,
    /// The component as a JSON key: `"purpose"`, `"when_to_use"`, ...
    pub key: &'static str,
}

/// The components, in the order reports list them.
pub const COMPONENTS: [Component; 5] = [
    Component {
        rule: "states_purpose",
        name: "purpose",
        key: "purpose",
    },
    Component {
        rule: "says_when_to_use",
        name: "when to use",
        key: "when_to_use",
    },
    Component {
        rule: "states_limits",
        name: "limits",
        key: "limits",
    },
    Component {
        rule: "explains_parameters",
        name: "parameters",
        key: "parameters",
    },
    Component {
        rule: "says_what_it_returns",
        name: "returns",
        key: "returns",
    },
];

/// Whether `rule` checks one of the [`COMPONENTS`].
///
/// ```
/// assert!(toolsmith_lint::quality::is_component("says_when_to_use"));
/// assert!(!toolsmith_lint::quality::is_component("name_style"));
/// ```
pub fn is_component(rule: &str) -> bool {
    COMPONENTS.iter().any(|c| c.rule == rule)
}

/// Which [`COMPONENTS`] a tool lacks, from its findings (all of them, as a lint with the quality
/// rules on reports them): a component's rule fired, or, for the components read from the
/// description, the tool has no description to read.
pub fn missing(findings: &[Finding]) -> [bool; 5] {
    let no_text = findings.iter().any(|f| {
        (f.rule == "described" && f.pointer == "/description")
            || (f.rule == "well_formed" && (f.pointer.is_empty() || f.pointer == "/description"))
    });
    COMPONENTS.map(|c| {
        (no_text && c.rule != "explains_parameters") || findings.iter().any(|f| f.rule == c.rule)
    })
}

/// [`crate::lint_definition`] with the quality rules on.
///
/// ```
/// let tool = serde_json::json!({"name": "get_time", "description": "Returns the time."});
/// let findings = toolsmith_lint::quality::lint_definition(&tool, &toolsmith_lint::LintConfig::default());
/// assert!(findings.iter().any(|f| f.rule == "states_purpose"));
/// assert!(toolsmith_lint::lint_definition(&tool, &toolsmith_lint::LintConfig::default()).is_empty());
/// ```
pub fn lint_definition(tool: &Value, cfg: &LintConfig) -> Vec<Finding> {
    let arena = bumpalo::Bump::new();
    crate::lint::lint_in_list(&Node::from_value(tool, &arena), cfg, None, true)
}

/// [`crate::lint_tools`] with the quality rules on.
pub fn lint_tools(tools: &[Value], cfg: &LintConfig) -> Vec<Finding> {
    let arena = bumpalo::Bump::new();
    let nodes: Vec<Node<'_>> = tools.iter().map(|t| Node::from_value(t, &arena)).collect();
    let mut out: Vec<Finding> = lint_nodes_then(&nodes, cfg, nodes.len() / 2, |_, each| each)
        .into_iter()
        .flatten()
        .flatten()
        .collect();
    out.extend(crate::flow::toxic_flow(tools));
    out
}

/// [`crate::lint_nodes_then`] with the quality rules on.
pub fn lint_nodes_then<R, F>(tools: &[Node<'_>], cfg: &LintConfig, split: usize, then: F) -> Vec<R>
where
    R: Send,
    F: Fn(usize, Vec<Vec<Finding>>) -> R + Sync,
{
    crate::list::lint_parts(tools, cfg, true, split, then)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_component_rule_is_in_the_table() {
        for c in COMPONENTS {
            let r = crate::rule(c.rule).unwrap();
            assert_eq!(r.severity, crate::Severity::Warning, "{}", c.rule);
            assert!(!r.poisoning);
        }
    }

    #[test]
    fn missing_reads_the_findings() {
        let f = lint_definition(&json!({"name": "get_time"}), &LintConfig::default());
        assert_eq!(missing(&f), [true, true, true, false, true]);
        let good = json!({"name": "get_time", "description": "Returns the current time of a time zone as an ISO 8601 string, to the second. Use it when the user asks what time it is somewhere; it cannot convert past dates."});
        let f = lint_definition(&good, &LintConfig::default());
        assert_eq!(missing(&f), [false; 5], "{f:?}");
    }
}
