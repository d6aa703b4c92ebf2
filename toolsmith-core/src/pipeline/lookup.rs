//! Stage `lookup`: finds the tool by name. An unknown or retired name is `invalid_input`, naming
//! only the tools the caller may call (for a tool retired after its deprecation window, the
//! tool that replaces it).

use super::registry::{Engine, Registry};
use super::{retire, CallState, Step};
use crate::codes;
use crate::envelope::{Envelope, Status};
use crate::policy::{Caller, Policy};
use std::sync::Arc;

/// Finds the tool in the engine's registry; an unknown name's error names the tools `policy`
/// lets the caller call.
pub(super) fn run(tb: &Engine, policy: &Policy, call: &mut CallState<'_>) -> Step {
    let reg = tb.registry();
    let Some(&i) = reg.index.get(call.name) else {
        return Step::refuse(unknown_tool(tb, &reg, call, policy));
    };
    // A tool whose retirement time has come answers as retired, even before a listing has
    // moved it out of the list.
    if !reg.retire_at.is_empty() {
        let now = tb.retirement.now();
        if reg.is_due(call.name, now) {
            let entry = Arc::clone(&reg.entries[i]);
            let who = call.options.who();
            let env = retire::retired(&reg, call.name, Some(entry.tool.spec()), now, policy, who);
            call.retired = Some(entry);
            return Step::refuse(env);
        }
    }
    let entry = Arc::clone(&reg.entries[i]);
    drop(reg);
    if call.audited() {
        call.trace.set_entry(&entry);
    }
    call.entry = Some(entry);
    Step::Continue
}

/// The error for a name that is not a listed tool; it lists only the tools `caller` may call.
fn unknown_tool(
    tb: &Engine,
    reg: &Registry,
    call: &mut CallState<'_>,
    policy: &Policy,
) -> Envelope {
    let (name, caller): (&str, &Caller) = (call.name, call.options.who());
    let now = tb.retirement.now();
    if let Some(kept) = reg.retired.get(name) {
        call.retired.clone_from(kept);
        return retire::retired(
            reg,
            name,
            kept.as_ref().map(|e| e.tool.spec()),
            now,
            policy,
            caller,
        );
    }
    Envelope::error(
        Status::InvalidInput,
        codes::UNKNOWN_TOOL,
        format!(
            "No tool is named \"{name}\". {}",
            retire::available(reg, now, policy, caller)
        ),
    )
}
