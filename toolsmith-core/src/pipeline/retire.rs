//! Deprecated tools and their retirement: the host's schedule (`registry::Retirement`, with
//! the clock it reads), the checks of replacements when tools are registered (the replacement is
//! registered, no cycle), the move of tools whose time has come out of the list
//! ([`Registry::retire_due`]), and the `TOOL_RETIRED` answer naming the replacement.

use super::prepare::Problem;
use super::registry::{Registry, Retirement};
use super::Entry;
use crate::codes;
use crate::envelope::{Envelope, Status};
use crate::policy::{Caller, Policy};
use crate::spec::ToolSpec;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::SystemTime;

/// A time set for a tool that is not deprecated: the model would lose the tool without having
/// been told what to use instead.
pub(crate) fn retirement_problem(retirement: &Retirement, spec: &ToolSpec) -> Option<Problem> {
    (retirement.at.contains_key(&spec.name) && spec.deprecated.is_none()).then(|| {
        Problem::InvalidRetirement {
            tool: spec.name.clone(),
            reason: "it has a retirement time but is not deprecated: deprecate it first \
                     (#[tool(deprecated(since = \"...\", replaced_by = \"...\"))] or \
                     ToolSpec::with_deprecated), so the model reads what to use instead \
                     before the tool leaves the list"
                .into(),
        }
    })
}
impl Registry {
    /// Sets the retirement time of a registered tool that has one.
    pub(crate) fn schedule(&mut self, retirement: &Retirement, spec: &ToolSpec) {
        match retirement.time_for(spec) {
            Some(at) => self.retire_at.insert(spec.name.clone(), at),
            None => self.retire_at.remove(&spec.name),
        };
    }

    /// Whether the tool `name` is listed but its retirement time has come (`now` or earlier).
    pub(crate) fn is_due(&self, name: &str, now: SystemTime) -> bool {
        self.retire_at.get(name).is_some_and(|at| *at <= now)
    }

    /// Whether some listed tool's retirement time has come.
    pub(crate) fn any_due(&self, now: SystemTime) -> bool {
        self.retire_at.values().any(|at| *at <= now)
    }

    /// Moves the tools whose retirement time has come out of the list, keeping each in
    /// `retired` for the answer and the audit record of later calls; returns them.
    pub(crate) fn retire_due(&mut self, now: SystemTime) -> Vec<Arc<Entry>> {
        if !self.any_due(now) {
            return Vec::new();
        }
        let mut retired = Vec::new();
        let entries = std::mem::take(&mut self.entries);
        self.index.clear();
        for e in entries {
            let name = e.tool.name();
            if self.is_due(name, now) {
                self.retire_at.remove(name);
                self.retired.insert(name.to_string(), Some(Arc::clone(&e)));
                retired.push(e);
            } else {
                self.index.insert(name.to_string(), self.entries.len());
                self.entries.push(e);
            }
        }
        retired
    }
}

/// The replacements of the deprecated tools among `names` (all registered in `reg`): each
/// names a registered tool, and no chain of replacements comes back to where it started.
pub(crate) fn replacement_problems<'a>(
    reg: &Registry,
    names: impl IntoIterator<Item = &'a str>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let replacement = |name: &str| -> Option<String> {
        let i = *reg.index.get(name)?;
        reg.entries[i]
            .tool
            .spec()
            .deprecated
            .as_ref()?
            .replaced_by
            .clone()
    };
    let mut cycles_seen: BTreeSet<Vec<String>> = BTreeSet::new();
    for name in names {
        let Some(by) = replacement(name) else {
            continue;
        };
        if !reg.index.contains_key(&by) {
            problems.push(Problem::InvalidReplacement {
                tool: name.to_string(),
                reason: if reg.retired.contains_key(&by) {
                    format!("it is replaced by `{by}`, which was retired: name a tool that is registered")
                } else {
                    format!("it is replaced by `{by}`, which is not registered: register `{by}` too, or name another tool")
                },
            });
            continue;
        }
        // Follow the chain; it ends at a tool that is not deprecated (or has no replacement),
        // or comes back to a tool already on it.
        let mut chain = vec![name.to_string()];
        let mut next = Some(by);
        while let Some(n) = next {
            if let Some(pos) = chain.iter().position(|c| *c == n) {
                let mut cycle = chain[pos..].to_vec();
                if pos == 0 {
                    let shown = cycle
                        .iter()
                        .chain(std::iter::once(&n))
                        .map(|c| format!("`{c}`"))
                        .collect::<Vec<_>>()
                        .join(" → ");
                    cycle.sort();
                    if cycles_seen.insert(cycle) {
                        problems.push(Problem::InvalidReplacement {
                            tool: name.to_string(),
                            reason: format!("its replacements form a cycle ({shown}): the model would be sent round it; end the chain at a tool that is not deprecated"),
                        });
                    }
                }
                break;
            }
            chain.push(n.clone());
            next = replacement(&n);
        }
    }
    problems
}

/// The answer to a call of a retired tool: `invalid_input` with `TOOL_RETIRED`, naming the tool
/// to call instead with its description (the first tool along the chain of replacements that
/// is still listed, not due to retire, and that `policy` lets `caller` call), or else the tools
/// the caller may call. `spec` is the retired tool's, when the toolbox kept it (a deregistered
/// tool's is not kept).
pub(crate) fn retired(
    reg: &Registry,
    name: &str,
    spec: Option<&ToolSpec>,
    now: SystemTime,
    policy: &Policy,
    caller: &Caller,
) -> Envelope {
    let gone = format!("The tool \"{name}\" was retired and can no longer be called.");
    let mut next = spec
        .and_then(|s| s.deprecated.as_ref())
        .and_then(|d| d.replaced_by.clone());
    let mut steps = 0;
    while let Some(by) = next.take() {
        steps += 1;
        if steps > reg.entries.len() + reg.retired.len() {
            break;
        }
        let spec = match reg.index.get(&by) {
            Some(&i) => reg.entries[i].tool.spec(),
            None => match reg.retired.get(&by) {
                Some(Some(e)) => e.tool.spec(),
                _ => break,
            },
        };
        let listed = reg.index.contains_key(&by) && !reg.is_due(&by, now);
        if listed {
            if policy.check(spec, caller).is_err() {
                break;
            }
            return Envelope::error(
                Status::InvalidInput,
                codes::TOOL_RETIRED,
                format!(
                    "{gone} Call \"{by}\" instead, which replaces it: {}",
                    spec.description
                ),
            );
        }
        next = spec.deprecated.as_ref().and_then(|d| d.replaced_by.clone());
    }
    Envelope::error(
        Status::InvalidInput,
        codes::TOOL_RETIRED,
        format!("{gone} {}", available(reg, now, policy, caller)),
    )
}

/// `The tools are "a", "b".`: the listed tools `caller` may call (none due to retire).
pub(crate) fn available(
    reg: &Registry,
    now: SystemTime,
    policy: &Policy,
    caller: &Caller,
) -> String {
    let names: Vec<String> = reg
        .entries
        .iter()
        .filter(|e| !reg.is_due(e.tool.name(), now))
        .filter(|e| policy.check(e.tool.spec(), caller).is_ok())
        .map(|e| format!("\"{}\"", e.tool.name()))
        .collect();
    if names.is_empty() {
        "No tools are available.".to_string()
    } else {
        format!("The tools are {}.", names.join(", "))
    }
}
