//! Stages `before_hooks` and `after_hooks`: the host's hooks observe every call with the same
//! arguments. A before-hook's error stops the call; after-hooks see the answer (not a call that
//! ended before one) and cannot change its outcome.

use super::{CallState, Step};
use crate::approval::{CallInfo, Hooks};

fn info<'c>(call: &'c CallState<'_>) -> CallInfo<'c> {
    CallInfo {
        tool: call.name,
        arguments: call.args(),
        caller: call.options.who(),
        operation_id: call.operation_id.as_str(),
    }
}

/// Stage `before_hooks`.
pub(super) fn before(hooks: &Hooks, call: &mut CallState<'_>) -> Step {
    if hooks.is_empty() {
        // Nothing to run (and on the typed fast path, no argument value to show).
        return Step::Continue;
    }
    match hooks.run_before(&info(call)) {
        Ok(()) => Step::Continue,
        Err(e) => Step::refuse(e.into_envelope()),
    }
}

/// Stage `after_hooks`.
pub(super) fn after(hooks: &Hooks, call: &mut CallState<'_>) -> Step {
    if call.early || call.args.is_none() {
        return Step::Continue;
    }
    if hooks.has_after() {
        // The hooks see the result as a value (a call with hooks takes the general path, whose
        // result is a value already: this keeps it so if that changes).
        call.materialize();
    }
    if let Some(mut env) = call.env.take() {
        hooks.run_after(&info(call), &mut env);
        call.env = Some(env);
    }
    Step::Continue
}
