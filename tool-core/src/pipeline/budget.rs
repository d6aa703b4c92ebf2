//! Stage `budget`: the answer's `data` is cut to the tool's output budget (a note, a cursor, the
//! raw result's `ref` in the record store); notes, messages and error details are bounded like
//! data, after the hooks, which may have added to them. A call that ended before an answer has
//! only its channels bounded.

use super::{CallState, Shared, Step};
use crate::budget::{bound_channels, fit_envelope};

pub(super) fn run(sh: &Shared, call: &mut CallState<'_>) -> Step {
    let budget = sh.budget_of(call.entry.as_deref());
    let Some(env) = call.env.as_mut() else {
        return Step::Continue;
    };
    if call.early {
        bound_channels(env, budget);
        return Step::Continue;
    }
    if let Some(page) = &call.page {
        fit_envelope(env, budget, page, sh.store.as_ref());
    }
    bound_channels(env, budget);
    if call.entry.as_ref().is_some_and(|e| !e.paginated) {
        // Without a cursor parameter the model cannot ask for the next page.
        env.cursor = None;
    }
    Step::Continue
}
