//! Stage `redact`: secrets (API keys, bearer tokens, private keys, passwords in URLs, host
//! patterns) are masked in everything the envelope says, once, whatever ended the call: an
//! early envelope carries text too (a hook's message, an echo of the arguments), and the model
//! reads it like any result. What the idempotency record keeps is redacted, as it comes after.

use super::{CallState, Shared, Step};

pub(super) fn run(sh: &Shared, call: &mut CallState<'_>) -> Step {
    if let (Some(r), Some(env)) = (&sh.redactor, call.env.as_mut()) {
        r.redact_envelope(env);
    }
    Step::Continue
}
