//! Stage `decode`: the arguments as sent (JSON text or a value) become one JSON value.
//! "No arguments" (`null`, empty text) becomes the empty object.
//!
//! The typed fast path ([`crate::typed`]) is taken here, when the tool has one and no later
//! stage reads the arguments as a value: the arguments are decoded straight into the tool's
//! argument struct with its constraints checked, `args` stays empty and `validate` has nothing
//! to do. For a sync tool that runs in place the decoding, the checks and the run are one call
//! (`execute::run_fused`), since no stage between here and `execute` has work on the fast path:
//! the decoded arguments are never boxed. Whatever the fast path cannot prove valid goes the
//! general way, to `validate`, which builds the errors; except arguments that decode and fail
//! the checks of exactly one parameter that was sent: the validator checks that one value and
//! its problems are the answer (the same the general path gives).

use super::execute::Execute;
use super::{CallState, Step};
use crate::arguments::Arguments;
use crate::codes;
use crate::envelope::{Envelope, Status};
use crate::typed::Decoded;
use serde_json::Value;

/// Stage `decode`: whether the typed fast path is open in this toolbox.
pub(crate) struct Decode {
    /// The typed fast path is on (it is, except in tests comparing the two paths) and no stage
    /// the toolbox configures reads the argument value for every call: no audit sink (its
    /// digest), no hooks, no host stages (which see the arguments).
    pub(crate) typed: bool,
}

/// Stage `decode`; a sync tool on the fast path runs here, as `ex` runs it.
pub(super) fn run(sh: &Decode, ex: &Execute, call: &mut CallState<'_>) -> Step {
    if fast_path_allowed(sh, call) {
        // No stage between here and `execute` has work (`fast_path_allowed`): a sync tool that
        // runs in place is decoded, checked and run in one call, its arguments never boxed.
        let decoded = match super::execute::run_fused(ex, call) {
            Some(Ok(step)) => {
                #[cfg(feature = "tracing")]
                tracing::trace!(
                    target: "toolsmith::decode",
                    "arguments decoded into the tool's types (typed fast path)"
                );
                return step;
            }
            // It did not run: what its decoding made of the arguments.
            Some(Err(decoded)) => Some(decoded),
            None => {
                let typed = call.entry().typed.as_ref();
                call.raw
                    .as_ref()
                    .map(|raw| crate::typed::decode(typed, raw.as_input()))
            }
        };
        if let Some(decoded) = decoded {
            match decoded {
                Decoded::Args(args) => call.typed = Some(std::sync::Mutex::new(args)),
                // One parameter fails its checks and all else is valid: its own problems, as the
                // validator describes them, are the call's (the general path would find exactly
                // these after parsing and validating everything).
                Decoded::OneInvalid(name, value) => {
                    if let Some(env) = super::validate::one_parameter(call.entry(), name, &value) {
                        #[cfg(feature = "tracing")]
                        tracing::trace!(
                            target: "toolsmith::decode",
                            "one invalid parameter answered from its decoded value"
                        );
                        call.raw = None;
                        return Step::refuse(env);
                    }
                }
                Decoded::Fallback => {}
            }
        }
        if call.typed.is_some() {
            // What `tests/it/fast_path.rs` watches for: no cost unless a subscriber takes `trace`.
            #[cfg(feature = "tracing")]
            tracing::trace!(
                target: "toolsmith::decode",
                "arguments decoded into the tool's types (typed fast path)"
            );
            call.raw = None;
            return Step::Continue;
        }
    }
    let mut args = match call.raw.take().map(into_value) {
        Some(Ok(v)) => v,
        Some(Err(env)) => return Step::Refuse(env),
        None => Value::Null,
    };
    if args.is_null() {
        // "No arguments" is sent as null by some clients.
        args = Value::Object(Default::default());
    }
    call.args = Some(args);
    Step::Continue
}

/// Whether the call may skip the argument value: the tool has a fast path and no stage
/// configured for the call reads the value. Keep this in step with the pipeline: every stage
/// that reads `args` must be named here.
fn fast_path_allowed(sh: &Decode, call: &CallState<'_>) -> bool {
    let entry = call.entry();
    let effects = &entry.tool.spec().effects;
    // The audit digest (`audit`), the hooks, the host's stages: `Decode::typed`.
    sh.typed
        && entry.typed.is_some()
        // `cursor`, `idempotency`, `approval`.
        && !entry.paginated
        && entry.tool.inner.idempotency_key.is_empty()
        && call.options.idempotency_key.is_none()
        && !effects.requires_approval
}

/// Parses JSON text arguments; blank text is the empty object.
pub(crate) fn parse_text(text: &str) -> Result<Value, Box<Envelope>> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text).map_err(|e| {
        Box::new(Envelope::error(
            Status::InvalidInput,
            codes::INVALID_INPUT,
            format!(
                "The arguments are not valid JSON ({e}). Send one JSON object, e.g. {{\"name\": \"value\"}}."
            ),
        ))
    })
}

/// The arguments as a value of their own: text parsed (its error envelope on failure), a
/// borrowed value copied.
pub(crate) fn into_value(args: Arguments<'_>) -> Result<Value, Box<crate::Envelope>> {
    match args {
        Arguments::Value(v) => Ok(v),
        Arguments::ValueRef(v) => Ok(v.clone()),
        Arguments::Text(text) => parse_text(&text),
        Arguments::TextRef(text) => parse_text(text),
    }
}
