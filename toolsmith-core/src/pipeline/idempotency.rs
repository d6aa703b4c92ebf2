//! Stages `idempotency` and `idempotency_record`: a call with an idempotency key (declared
//! identifying arguments, or an explicit key bound to all the arguments; scoped to the caller and
//! the tool) claims it before approval; a repeat of a request that returned within the window is
//! refused as `DUPLICATE` (with the original when it fits the budget), a repeat while it runs as
//! `IN_PROGRESS`, after an unknown outcome as `OUTCOME_UNKNOWN`. Once the answer is redacted, the
//! record keeps it for the repeats, or releases the key: when the tool never ran, answered with a
//! status that says it did nothing (`did_not_act`), or stopped at a request to its client that
//! got no usable answer (`stopped_at_question`), so the retry runs; unless the tool said it had
//! acted (`Client::mark_acted`), which keeps its outcome whatever it answered.

use super::{CallState, Entry, Ran, Step};
use crate::budget::OutputBudget;
use crate::envelope::Envelope;
use crate::envelope::Status;
use crate::fault::{Fault, FaultKind, Faults, GuardedState, GuardedStore};
use crate::idempotency::{
    unavailable_envelope, Disposition, Entered, IdempotencyGate, IdempotencyKey, Ticket,
};
use crate::options::CallOptions;
use crate::state::KeptValue;
use crate::store::{new_reference, BackendError, RecordStore};
use serde_json::Value;
use std::sync::Arc;

/// Stages `idempotency` and `idempotency_record`, with the gate that holds the claims, the
/// record store that keeps what a repeat is shown, and the default output budget (a repeat is
/// shown its original only when it fits).
pub(crate) struct Claims {
    pub(crate) gate: IdempotencyGate,
    pub(crate) store: Arc<GuardedStore>,
    pub(crate) budget: OutputBudget,
    /// Where the shared state's failures are counted.
    pub(crate) faults: Arc<Faults>,
    /// The state shared with the other replicas, when the toolbox has one: what a repeat is
    /// shown is kept and read there.
    pub(crate) shared: Option<Arc<GuardedState>>,
}

/// The idempotency key of a call: the declared identifying arguments, or the explicit key
/// (bound to all the arguments), scoped to the caller and the tool.
fn key(entry: &Entry, args: &Value, options: &CallOptions) -> Option<IdempotencyKey> {
    if keyless(entry, options) {
        return None;
    }
    let name = entry.tool.name();
    let caller = options.who().id();
    let declared = &entry.tool.inner.idempotency_key;
    if !declared.is_empty() {
        let keys: Vec<&str> = declared.iter().map(String::as_str).collect();
        return Some(IdempotencyKey::from_args(name, args, &keys).for_caller(caller));
    }
    options.idempotency_key.as_deref().map(|k| {
        IdempotencyKey::explicit(name, k)
            .for_caller(caller)
            .with_request(args)
    })
}

/// Whether a call of the tool with these options has no key whatever its arguments: the tool
/// declares no identifying arguments and the caller sent no explicit key, so there is nothing to
/// claim or record.
pub(super) fn keyless(entry: &Entry, options: &CallOptions) -> bool {
    entry.tool.inner.idempotency_key.is_empty() && options.idempotency_key.is_none()
}

/// Whether repeating the tool is safe (a read, or an idempotent write): then an unknown outcome
/// releases the key.
fn safe_to_repeat(entry: &Entry) -> bool {
    let effects = entry.tool.spec().effects;
    effects.read_only || effects.idempotent
}

/// Whether a status the tool returned says the operation was not performed, so its key is
/// released and a repeat runs: the statuses that, like the pipeline's own refusals before the
/// tool (validation, policy, approval), say "nothing was done" — `invalid_input` and
/// `needs_input` (the agent calls again with other arguments), `refused` and `denied` (a rule
/// said no), `cancelled_by_user` (the user declined) and `temporary_failure` (wait, then call
/// again). `ok` and `empty` did the work, `failed` may have done part of it and `timeout` does
/// not know: those are kept. The gate trusts the status: a tool that acts and then answers one
/// of these lets a repeat act again (a tool that may have acted says `failed` or `timeout`).
fn did_not_act(status: Status) -> bool {
    match status {
        Status::InvalidInput
        | Status::NeedsInput
        | Status::Refused
        | Status::Denied
        | Status::CancelledByUser
        | Status::TemporaryFailure => true,
        Status::Ok | Status::Empty | Status::Failed | Status::Timeout => false,
    }
}

/// Whether the tool ended with the error of a request to its client that got no usable answer
/// ([`crate::client::unanswered`]): the `failed` error `?` makes of a [`crate::ClientError`]
/// (the `cancelled_by_user` ones release the key by their status).
fn stopped_at_question(env: &Envelope) -> bool {
    env.status == Status::Failed && env.code.as_deref().is_some_and(crate::client::unanswered)
}

/// The call's idempotency key, if it has one (then `claim` runs). A call on the typed fast path
/// has no argument value, and never a key (`decode` takes that path only for calls without one).
pub(super) fn key_of(call: &CallState<'_>) -> Option<IdempotencyKey> {
    key(call.entry(), call.args.as_ref()?, call.options)
}

/// Stage `idempotency`, for a call with a key.
pub(super) async fn claim<'a>(
    sh: &'a Claims,
    call: &mut CallState<'a>,
    key: IdempotencyKey,
) -> Step {
    // A write with no approval to ask between its claim and its run is claimed started: one
    // round trip to a shared store fewer. (Should the process die before the run, a repeat is
    // told the outcome is unknown, the safe reading.)
    // A tool whose approval depends on its arguments is decided here, once for the call (the
    // approval stage reads the same decision): a call that needs none this time takes this path.
    let started = !safe_to_repeat(call.entry()) && !super::approval::asks(&sh.faults, call);
    let name = call.entry().tool.name();
    match sh
        .gate
        .enter(key, call.operation_id.as_str(), started)
        .await
    {
        Entered::Run(ticket) => {
            call.claim = Some(Box::new(ticket));
            Step::Continue
        }
        Entered::Duplicate(dup) => {
            let original = match (&sh.shared, dup.reference.as_deref()) {
                (Some(state), Some(r)) => state.read(r).await,
                (None, Some(r)) => sh.store.get(r),
                (_, None) => None,
            };
            // The original is shown only when it fits the output budget (a refused envelope is
            // not cut); its `ref` always names it.
            let budget = super::budget::budget_of(sh.budget, call.entry.as_deref());
            let original = original.filter(|o| crate::budget::fits(o, budget.max_chars));
            let mut env = dup.into_envelope(name, &sh.gate);
            if let (Some(original), Some(Value::Object(details))) = (original, env.data.as_mut()) {
                details.insert("original".into(), original);
            }
            Step::answer(env)
        }
        Entered::Refused(refusal) => Step::answer(refusal.into_envelope(name, &sh.gate)),
    }
}

/// For a claim held in the shared state ([`IdempotencyGate::with_state_store`]), of a write that
/// is not safe to repeat: marks it started there, before the tool runs, so that a replica that
/// dies while it runs leaves the outcome unknown rather than the key free. When the mark cannot
/// be written the tool does not run: the envelope to answer (`temporary_failure`,
/// `IDEMPOTENCY_UNAVAILABLE`), the store's error counted as a fault.
///
/// [`IdempotencyGate::with_state_store`]: crate::idempotency::IdempotencyGate::with_state_store
pub(super) async fn mark_started_shared(faults: &Faults, call: &CallState<'_>) -> Option<Envelope> {
    let ticket = call.claim.as_ref()?;
    if !ticket.is_shared() || safe_to_repeat(call.entry()) {
        return None;
    }
    let e = ticket.mark_started().await.err()?;
    let tool = call.entry().tool.name();
    faults.report(Fault {
        kind: FaultKind::RecordStore,
        tool: Some(tool.to_string()),
        operation_id: Some(call.operation_id.as_str().to_string()),
        detail: e.to_string(),
    });
    Some(unavailable_envelope(tool))
}

/// Marks the claim started, before the tool runs: from then on a drop of the call leaves the
/// outcome of a write that is not safe to repeat unknown.
pub(super) fn mark_started(call: &CallState<'_>) {
    if let Some(ticket) = &call.claim {
        if !safe_to_repeat(call.entry()) {
            ticket.started().mark();
        }
    }
}

/// The shared-state half of `idempotency_record`: the value the outcome names (the result, or
/// the outcome of a kept error) is named before it is written and kept in the same step as the
/// outcome, so a keyed write pays one round trip here. A result that could not be kept loses its
/// `ref`. A result the outcome does not name (its key is released) is kept on its own.
async fn record_shared(
    state: &GuardedState,
    ticket: Box<Ticket<'_>>,
    env: &mut Envelope,
    disposition: Disposition,
    result: Option<Value>,
    outcome: Option<Value>,
) -> Result<(), BackendError> {
    let result = result
        .filter(|v| state.admits(v))
        .map(|v| (new_reference(), v));
    let outcome = outcome
        .filter(|v| state.admits(v))
        .map(|v| (new_reference(), v));
    if let Some((r, _)) = &result {
        env.reference = Some(r.clone());
    }
    let (reference, named) = match disposition {
        Disposition::Keep if env.is_success() => (env.reference.clone(), result.as_ref()),
        Disposition::Keep => (outcome.as_ref().map(|(r, _)| r.clone()), outcome.as_ref()),
        Disposition::Release | Disposition::Unknown => (None, None),
    };
    let kept = named.map(|(r, v)| KeptValue {
        reference: r,
        value: v,
        ttl: state.ttl(),
    });
    let finished = ticket.finish(disposition, reference, kept).await;
    let result_kept = match (&result, named) {
        (Some((r, v)), None) => state.keep_as(r, v).await,
        (Some(_), Some(_)) => finished.is_ok(),
        (None, _) => true,
    };
    if !result_kept {
        env.reference = None;
    }
    finished
}

/// Stage `idempotency_record`.
pub(super) async fn record(sh: &Claims, call: &mut CallState<'_>) -> Step {
    if call.claim.is_some() {
        // What is kept for a repeat is the value (a keyed call takes the general path, whose
        // result is a value already: this keeps it so if that changes).
        call.materialize();
    }
    // Only a call with a claim has an entry here, so `entry` is asked only then.
    let repeat_safe = call.claim.is_some() && safe_to_repeat(call.entry());
    let (Some(ticket), Some(env)) = (call.claim.take(), call.env.as_mut()) else {
        return Step::Continue;
    };
    // The tool said it had taken effect (`Client::mark_acted`): whatever it answers after that,
    // a repeat must not act again. A run stopped while it waited for its client, not having
    // said so, did nothing.
    let talk = call.talk.take();
    let acted = talk.as_ref().is_some_and(|t| t.acted());
    let stopped_asking = talk.as_ref().is_some_and(|t| t.stopped_at_question());
    let disposition = match call.ran {
        Ran::NotRun => Disposition::Release,
        Ran::Returned if acted => Disposition::Keep,
        // The tool answered that it did nothing: the agent is told to retry (after
        // `retry_after`, with fixed arguments, after asking the user), and a kept record would
        // refuse that retry as a duplicate of an operation that never happened.
        Ran::Returned if did_not_act(env.status) => Disposition::Release,
        // It stopped at a request to its client that got no usable answer (the client could
        // not take it, closed, refused it, or did not answer in time): it did not act either.
        Ran::Returned if stopped_at_question(env) => Disposition::Release,
        Ran::Returned => Disposition::Keep,
        Ran::Stopped if repeat_safe || stopped_asking => Disposition::Release,
        Ran::Stopped => Disposition::Unknown,
    };
    // Keep the result so a refused repeat can point at it (it is redacted already, as
    // everything kept is); a returned error that is kept is kept with its outcome, so a repeat
    // answered as a duplicate can say what the original outcome was.
    let result = (env.status == Status::Ok && env.reference.is_none())
        .then(|| env.data.clone())
        .flatten();
    let outcome = (disposition == Disposition::Keep && !env.is_success()).then(|| {
        serde_json::json!({
            "status": env.status,
            "code": env.code,
            "message": env.message,
        })
    });
    let finished = match &sh.shared {
        Some(state) => record_shared(state, ticket, env, disposition, result, outcome).await,
        None => {
            if let Some(data) = result {
                env.reference = sh.store.keep(data);
            }
            let kept = match disposition {
                Disposition::Keep if env.is_success() => env.reference.clone(),
                Disposition::Keep => outcome.and_then(|o| sh.store.keep(o)),
                Disposition::Release | Disposition::Unknown => None,
            };
            ticket.finish(disposition, kept, None).await
        }
    };
    if let Err(e) = finished {
        sh.faults.report(Fault {
            kind: FaultKind::RecordStore,
            tool: Some(call.name.to_string()),
            operation_id: Some(call.operation_id.as_str().to_string()),
            detail: e.to_string(),
        });
    }
    Step::Continue
}
