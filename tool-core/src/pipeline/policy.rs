//! Stage `policy`: the caller against the tool's declared effects, right after the lookup. The
//! policy needs only the declared effects, so a denied caller costs no parsing or validation
//! and learns nothing about the parameters.

use super::{CallState, Shared, Step};

pub(super) fn run(sh: &Shared, call: &mut CallState<'_>) -> Step {
    let Err(denial) = sh
        .policy
        .check(call.entry().tool.spec(), call.options.who())
    else {
        return Step::Continue;
    };
    // The audit record still gets a digest of what was sent (parsing is linear; no schema work
    // is done).
    call.args = call
        .raw
        .take()
        .and_then(|raw| super::decode::into_value(raw).ok());
    Step::refuse(denial.into_envelope())
}
