//! Stage `policy`: the caller against the tool's declared effects, right after the lookup. The
//! policy needs only the declared effects, so a denied caller costs no parsing or validation
//! and learns nothing about the parameters.

use super::{CallState, Step};
use crate::policy::Policy;

/// Stage `policy`, with the host's policy (which `lookup` also reads, to name only the tools a
/// caller may call).
pub(crate) struct PolicyCheck {
    pub(crate) policy: Policy,
}

impl PolicyCheck {
    /// Whether every caller may call every tool: the stage has nothing to do.
    pub(super) fn idle(&self) -> bool {
        self.policy.admits_all()
    }

    pub(super) fn run(&self, call: &mut CallState<'_>) -> Step {
        let Err(denial) = self
            .policy
            .check(call.entry().tool.spec(), call.options.who())
        else {
            return Step::Continue;
        };
        // The audit record still gets a digest of what was sent (parsing is linear; no schema
        // work is done).
        call.args = call
            .raw
            .take()
            .and_then(|raw| super::decode::into_value(raw).ok());
        Step::refuse(denial.into_envelope())
    }
}
