//! Stage `lookup`: finds the tool by name. An unknown or retired name is `invalid_input`, naming
//! only the tools the caller may call.

use super::registry::{Engine, Registry};
use super::{CallState, Step};
use crate::codes;
use crate::envelope::{Envelope, Status};
use crate::policy::{Caller, Policy};
use std::sync::Arc;

/// Finds the tool in the engine's registry; an unknown name's error names the tools `policy`
/// lets the caller call.
pub(super) fn run(tb: &Engine, policy: &Policy, call: &mut CallState<'_>) -> Step {
    let reg = tb.registry();
    let Some(&i) = reg.index.get(call.name) else {
        return Step::refuse(unknown_tool(&reg, call.name, policy, call.options.who()));
    };
    let entry = Arc::clone(&reg.entries[i]);
    drop(reg);
    if call.audited() {
        call.trace.set_entry(&entry);
    }
    call.entry = Some(entry);
    Step::Continue
}

/// The error for a name that is not a tool; it lists only the tools `caller` may call.
fn unknown_tool(reg: &Registry, name: &str, policy: &Policy, caller: &Caller) -> Envelope {
    let names: Vec<String> = reg
        .entries
        .iter()
        .filter(|e| policy.check(e.tool.spec(), caller).is_ok())
        .map(|e| format!("\"{}\"", e.tool.name()))
        .collect();
    let available = if names.is_empty() {
        "No tools are available.".to_string()
    } else {
        format!("The tools are {}.", names.join(", "))
    };
    if reg.retired.contains(name) {
        Envelope::error(
            Status::InvalidInput,
            codes::TOOL_RETIRED,
            format!("The tool \"{name}\" was retired and can no longer be called. {available}"),
        )
    } else {
        Envelope::error(
            Status::InvalidInput,
            codes::UNKNOWN_TOOL,
            format!("No tool is named \"{name}\". {available}"),
        )
    }
}
