//! Stage `execute`: runs the tool with its timeout (declared, or the toolbox default), catching
//! panics. A returned error, a timeout and a panic are the call's answer; a result goes on to
//! the output contract. The tool runs on the validated value, or on the arguments the typed
//! fast path decoded (`decode`), with the same choice of where it runs.

use super::threads::{Isolation, ToolThreads, Unrun, Work, ABORT_GRACE};
use super::{idempotency, internal_failure, CallState, Entry, Ran, Step};
use crate::context::Context;
use crate::envelope::Envelope;
use crate::error::ToolError;
use crate::fault::Faults;
use crate::redact::{Redactor, ResultScan};
use crate::reply::{Encoded, Encoding, Reply, TextScan};
use crate::spec::ToolSpec;
use crate::tool::{BoxFuture, Invoke};
use crate::typed::{Decoded, Fused, TypedArgs, TypedDef, TypedExec};
use crate::unwind::{panic_text, CatchUnwind};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, PoisonError};
use std::time::Duration;

/// Stage `execute`, with what running a tool takes: the toolbox's context, the default timeout,
/// which tools run on the toolbox's tool threads, and the redactor a typed tool's text result is
/// judged by as it is written.
pub(crate) struct Execute {
    pub(crate) context: Arc<Context>,
    /// Whether the tools registered compile their output schema for the `output_contract`
    /// stage (`ToolboxBuilder::check_output_contract`).
    pub(crate) check_output_contract: bool,
    pub(crate) default_timeout: Option<Duration>,
    /// Run every sync tool on the tool threads, not only those with a timeout.
    pub(crate) offload_sync_tools: bool,
    /// The tools the host runs on the tool threads whatever their timeout.
    pub(crate) isolation: Isolation,
    /// Where tools run apart from the caller's runtime.
    pub(crate) threads: ToolThreads,
    pub(crate) redactor: Option<Arc<Redactor>>,
    /// The redactor a tool's requests to its client pass (`None`: they go out as written).
    pub(crate) client_redactor: Option<Arc<Redactor>>,
    /// Where a failure to mark a claim started in the shared state is counted.
    pub(crate) faults: Arc<Faults>,
}

/// For `decode`, on a call whose stages between `decode` and `execute` have no work: a typed
/// sync tool that runs in the caller's task ([`runs_in_place`]) is decoded, checked and run in one call
/// ([`crate::typed::TypedRunFn`]), so its arguments are never boxed. When it ran, the answer or
/// the reply is set as `execute` sets it (and `ran` with it: `execute` has nothing left to do).
/// `Err` with what the decoding made of the arguments when they did not decode or pass the
/// checks (nothing ran, and the call is as it was); `None` for a tool without this path.
pub(super) fn run_fused(sh: &Execute, call: &mut CallState<'_>) -> Option<Result<Step, Decoded>> {
    let entry = call.entry.as_ref()?;
    let f = entry.typed.as_ref()?.run()?;
    if !runs_in_place(sh, entry) {
        return None;
    }
    let raw = call.raw.take()?;
    let entry = start(call);
    let scan = super::redact::scan(sh.redactor.as_deref(), &entry);
    let encoding = encoding_of(&call.encoding, scan.as_ref());
    // One unwind boundary around decoding and the run (the generated function has none): a
    // panic is the tool's, whether its body or a user type's decoding raised it.
    let channel = super::redact::client_channel(sh.client_redactor.as_ref());
    let fused = crate::client::sync_scope(channel, || {
        catch_unwind(AssertUnwindSafe(|| {
            f(&sh.context, raw.as_input(), encoding)
        }))
    });
    match fused {
        Ok(Fused::Ran(outcome)) => Some(Ok(finish(call, entry, Ok(outcome)))),
        Err(p) => Some(Ok(finish(call, entry, Err(Stop::Panic(panic_text(p)))))),
        Ok(Fused::Declined(decoded)) => {
            // Nothing ran: the call is as it was (no audit sink and no idempotency claim on this
            // path, so marking it started left no trace).
            call.raw = Some(raw);
            call.entry = Some(entry);
            Some(Err(decoded))
        }
    }
}

pub(super) async fn run(sh: &Execute, call: &mut CallState<'_>) -> Step {
    if let Some(env) = idempotency::mark_started_shared(&sh.faults, call).await {
        return Step::answer(env);
    }
    let timeout = call.entry.as_ref().and_then(|e| timeout_of(sh, e));
    // A keyed call learns what the tool says of its effects (`Client::mark_acted`): its record
    // releases the key of a run that stopped at an unanswered question only if it had not.
    let talk = call.claim.as_ref().map(|ticket| {
        let talk = Arc::new(crate::client::Talk::default());
        ticket.started().attach(Arc::clone(&talk));
        talk
    });
    call.talk.clone_from(&talk);
    // Boxed: these futures hold a timer or a task handle, and held in place they made every
    // call's future (which hosts move into a task or a box) larger, for a run that spawns a
    // task or builds a boxed future anyway (a sync tool run in place goes `run_fused`'s way).
    if let Some((entry, typed)) = start_typed(call) {
        let scan = super::redact::scan(sh.redactor.as_deref(), &entry);
        let encoding = encoding_of(&call.encoding, scan.as_ref());
        let run = Box::pin(invoke_typed(sh, &entry, typed, timeout, encoding));
        let outcome = in_scopes(sh, talk, run).await;
        return finish(call, entry, outcome);
    }
    let entry = start(call);
    let run = Box::pin(invoke(sh, &entry, call.args(), timeout));
    let outcome = in_scopes(sh, talk, run)
        .await
        .map(|r| r.map(|reply| reply.map_data(Encoded::Value)));
    finish(call, entry, outcome)
}

/// Runs a tool's future with its requests to the client redacted
/// ([`super::redact::client_channel`]) and, for a keyed call, what it says of its effects
/// recorded in `talk`; the tool threads carry both over ([`super::threads`]).
async fn in_scopes<F: std::future::Future>(
    sh: &Execute,
    talk: Option<Arc<crate::client::Talk>>,
    run: F,
) -> F::Output {
    let channel = super::redact::client_channel(sh.client_redactor.as_ref());
    crate::client::scope(channel, crate::client::talk_scope(talk, run)).await
}

/// The tool's timeout: its own, or the toolbox default.
fn timeout_of(sh: &Execute, entry: &Entry) -> Option<Duration> {
    entry
        .tool
        .spec()
        .timeout_ms
        .map(Duration::from_millis)
        .or(sh.default_timeout)
}

/// Marks the call started (for the idempotency record and the audit) and takes its entry out
/// for the run: a clone would write the entry's reference count, a line every thread calling
/// this tool shares. [`finish`] puts it back. (A call dropped while its tool runs leaves it out:
/// nothing reads the state of a dropped call.)
fn start(call: &mut CallState<'_>) -> Arc<Entry> {
    idempotency::mark_started(call);
    if call.audited() {
        call.trace.mark_started();
    }
    call.entry
        .take()
        .expect("stages after lookup run only on calls with a tool")
}

/// [`start`] for a call the typed fast path decoded: also its arguments. `None` (and nothing
/// done) for a call on a validated value.
fn start_typed(call: &mut CallState<'_>) -> Option<(Arc<Entry>, TypedArgs)> {
    let typed = call.typed.take()?;
    let typed = typed.into_inner().unwrap_or_else(PoisonError::into_inner);
    Some((start(call), typed))
}

/// How a typed tool encodes its result for the call: a result written as text is judged for
/// redaction as it is written, by `scan` ([`super::redact::scan`]).
fn encoding_of<'e>(call: &Encoding<'_>, scan: Option<&'e ResultScan<'e>>) -> Encoding<'e> {
    match call {
        Encoding::Text(_) => Encoding::Text(scan.map(|s| TextScan(s))),
        Encoding::Value => Encoding::Value,
    }
}

/// What the executor's outcome makes of the call: the reply for the output contract, or the
/// answer; the entry goes back.
fn finish(call: &mut CallState<'_>, entry: Arc<Entry>, outcome: Executed<Reply<Encoded>>) -> Step {
    let (ran, step) = match outcome {
        Ok(Ok(reply)) => {
            call.reply = Some(reply);
            (Ran::Returned, Step::Continue)
        }
        Ok(Err(e)) => (Ran::Returned, Step::answer(e.into_envelope())),
        Err(Stop::Timeout { limit, detail }) => {
            call.detail = detail;
            (
                Ran::Stopped,
                Step::answer(timeout_envelope(entry.tool.spec(), limit)),
            )
        }
        Err(Stop::Busy { waited, detail }) => {
            call.detail = Some(detail);
            (
                Ran::NotRun,
                Step::answer(busy_envelope(entry.tool.spec(), waited)),
            )
        }
        Err(Stop::Unavailable(detail)) => {
            call.detail = Some(detail);
            (Ran::NotRun, Step::answer(internal_failure()))
        }
        Err(Stop::Panic(panic)) => {
            call.detail = Some(format!("panic: {panic}"));
            call.panicked = true;
            (Ran::Stopped, Step::answer(internal_failure()))
        }
    };
    call.ran = ran;
    call.entry = Some(entry);
    step
}

/// Why an executor gave no result.
enum Stop {
    /// It ran past its time limit; the detail (for the audit record only) says whether it
    /// still holds its thread.
    Timeout {
        limit: Duration,
        detail: Option<String>,
    },
    /// It panicked (the message is for the audit record only).
    Panic(String),
    /// It never ran: every tool thread stayed taken for as long as it could wait.
    Busy { waited: Duration, detail: String },
    /// It never ran: the tool threads could not be started (the text is for the audit record).
    Unavailable(String),
}

impl Stop {
    /// What a run on the tool threads that gave no result means for a call with `timeout`.
    fn of(unrun: Unrun, timeout: Option<Duration>, sync: bool) -> Stop {
        let limit = timeout.unwrap_or_default();
        match unrun {
            Unrun::Panic(text) => Stop::Panic(text),
            Unrun::Unavailable(text) => Stop::Unavailable(text),
            Unrun::Busy {
                limit: threads,
                held,
            } => Stop::Busy {
                waited: limit,
                detail: format!(
                    "the tool did not run: all {threads} tool threads stayed taken for {} ms \
                     ({held} by tools still running after their call ended); raise \
                     ToolboxBuilder::tool_threads, or fix the tools that block",
                    limit.as_millis()
                ),
            },
            Unrun::Timeout { blocked } => Stop::Timeout {
                limit,
                detail: if sync {
                    Some(
                        "a sync tool cannot be stopped: it runs on, on a tool thread, until it \
                         returns (its result is discarded)"
                            .to_string(),
                    )
                } else if blocked {
                    Some(format!(
                        "the tool did not stop at its next .await within {} ms: it blocks its \
                         thread, and holds one of the toolbox's tool threads until it returns",
                        ABORT_GRACE.as_millis()
                    ))
                } else {
                    None
                },
            },
        }
    }
}

/// What an executor gave: its result (as the entry point encoded it) or error, or why it gave
/// none.
type Executed<R = Reply<Value>> = Result<Result<R, ToolError>, Stop>;

/// Calls the executor.
///
/// - A tool with a timeout (declared, or the toolbox default), a tool the host isolates
///   ([`ToolboxBuilder::isolate_tools`](crate::ToolboxBuilder::isolate_tools)), and every sync
///   tool with [`ToolboxBuilder::offload_sync_tools`](crate::ToolboxBuilder::offload_sync_tools)
///   run on the toolbox's tool threads ([`super::threads`]): one that blocks its thread holds a
///   thread of the toolbox, never one of the host's, and its timeout answers on time. A sync
///   tool cannot be stopped (it runs to its end, its result discarded); an async tool is
///   cancelled at its next `.await`.
/// - Otherwise, and outside a tokio runtime, the executor runs in the caller's task, at the
///   cost of a function call.
async fn invoke(
    sh: &Execute,
    entry: &Arc<Entry>,
    args: &Value,
    timeout: Option<Duration>,
) -> Executed {
    let runtime = tokio::runtime::Handle::try_current().ok();
    let invoke = &entry.tool.inner.invoke;
    let host = match runtime {
        Some(rt) if isolated(sh, entry, timeout, matches!(invoke, Invoke::Blocking(_))) => rt,
        _ => return inline(sh, invoke, args, timeout).await,
    };
    let (context, args) = (Arc::clone(&sh.context), args.clone());
    let work: Work<Result<Reply<Value>, ToolError>> = match invoke {
        Invoke::Blocking(f) => {
            let f = *f;
            Work::Sync(Box::new(move || f(&context, &args)))
        }
        Invoke::Generated(f) => {
            let f = *f;
            Work::Async(Box::pin(async move { f(&context, &args).await }))
        }
        Invoke::Dynamic(f) => {
            let f = Arc::clone(f);
            Work::Async(Box::pin(
                async move { f(context, args).await.map(Reply::new) },
            ))
        }
    };
    let sync = matches!(invoke, Invoke::Blocking(_));
    (sh.threads.run(host, work, timeout).await).map_err(|u| Stop::of(u, timeout, sync))
}

/// Whether the tool runs on the toolbox's tool threads (given a runtime): it has a timeout,
/// the host isolates it, or it is a sync tool and the host offloads every sync tool.
fn isolated(sh: &Execute, entry: &Entry, timeout: Option<Duration>, sync: bool) -> bool {
    timeout.is_some() || (sync && sh.offload_sync_tools) || sh.isolation.covers(entry.tool.name())
}

/// Runs the executor in the caller's task, with the timeout as a tokio timer around it.
async fn inline(
    sh: &Execute,
    invoke: &Invoke,
    args: &Value,
    timeout: Option<Duration>,
) -> Executed {
    // The executor is called inside the future, so a panic while it builds its own future
    // (possible in a hand-written `Tool::from_fn` closure) is caught like one while polling.
    let fut: BoxFuture<'_, Result<Reply<Value>, ToolError>> = match invoke {
        Invoke::Generated(f) => {
            let f = *f;
            let context = &sh.context;
            Box::pin(async move { f(context, args).await })
        }
        Invoke::Blocking(f) => {
            let f = *f;
            let context = &sh.context;
            Box::pin(async move { f(context, args) })
        }
        Invoke::Dynamic(f) => {
            let (f, context, args) = (Arc::clone(f), Arc::clone(&sh.context), args.clone());
            Box::pin(async move { f(context, args).await.map(Reply::new) })
        }
    };
    guarded(fut, timeout).await
}

/// Polls an executor's future in the caller's task, catching a panic, within the timeout.
async fn guarded<R>(
    fut: BoxFuture<'_, Result<R, ToolError>>,
    timeout: Option<Duration>,
) -> Executed<R> {
    let outcome = match timeout {
        Some(limit) => match tokio::time::timeout(limit, CatchUnwind(fut)).await {
            Ok(outcome) => outcome,
            Err(_) => {
                return Err(Stop::Timeout {
                    limit,
                    detail: None,
                })
            }
        },
        None => CatchUnwind(fut).await,
    };
    outcome.map_err(Stop::Panic)
}

/// Whether the tool is a typed sync tool that runs in the caller's task, at the cost of a
/// function call: no timeout, and not offloaded to the blocking pool (or no runtime to offload
/// it to), as [`invoke_typed`] would run it.
fn runs_in_place(sh: &Execute, entry: &Entry) -> bool {
    entry.typed.as_ref().is_some_and(|d| d.blocking().is_some())
        && timeout_of(sh, entry).is_none()
        && !(isolated(sh, entry, None, true) && tokio::runtime::Handle::try_current().is_ok())
}

/// [`invoke`] for arguments the typed fast path decoded: the same choice of where the executor
/// runs.
async fn invoke_typed(
    sh: &Execute,
    entry: &Entry,
    args: TypedArgs,
    timeout: Option<Duration>,
    encoding: Encoding<'_>,
) -> Executed<Reply<Encoded>> {
    let Some(def) = entry.typed else {
        return Ok(Err(crate::typed::wrong_arguments()));
    };
    let runtime = tokio::runtime::Handle::try_current().ok();
    let sync = def.blocking().is_some();
    let host = match runtime {
        Some(rt) if isolated(sh, entry, timeout, sync) => rt,
        _ => return inline_typed(sh, &def, args, timeout, encoding).await,
    };
    let context = Arc::clone(&sh.context);
    let encoding = detached(encoding);
    let work: Work<Result<Reply<Encoded>, ToolError>> = match def.exec {
        TypedExec::Sync { blocking: f, .. } => {
            Work::Sync(Box::new(move || f(&context, args, encoding)))
        }
        TypedExec::Async(f) => {
            Work::Async(Box::pin(async move { f(&context, args, encoding).await }))
        }
    };
    (sh.threads.run(host, work, timeout).await).map_err(|u| Stop::of(u, timeout, sync))
}

/// The encoding for a tool run in a task of its own: the redaction scan borrows the call, so
/// the text is judged by `redact` after the run instead.
fn detached(encoding: Encoding<'_>) -> Encoding<'static> {
    match encoding {
        Encoding::Text(_) => Encoding::Text(None),
        Encoding::Value => Encoding::Value,
    }
}

/// [`inline`] for arguments the typed fast path decoded.
async fn inline_typed(
    sh: &Execute,
    def: &TypedDef,
    args: TypedArgs,
    timeout: Option<Duration>,
    encoding: Encoding<'_>,
) -> Executed<Reply<Encoded>> {
    let context = &sh.context;
    let fut: BoxFuture<'_, Result<Reply<Encoded>, ToolError>> = match def.exec {
        TypedExec::Sync { blocking: f, .. } if timeout.is_none() => {
            // A sync tool in the caller's task: no future needed.
            return catch_unwind(AssertUnwindSafe(|| f(context, args, encoding)))
                .map_err(|p| Stop::Panic(panic_text(p)));
        }
        TypedExec::Sync { blocking: f, .. } => Box::pin(async move { f(context, args, encoding) }),
        TypedExec::Async(f) => f(context, args, encoding),
    };
    guarded(fut, timeout).await
}

fn timeout_envelope(spec: &ToolSpec, limit: Duration) -> Envelope {
    let e = &spec.effects;
    let ms = limit.as_millis();
    let advice = if e.read_only {
        "It only reads, so calling it again is safe; if it keeps timing out, ask for less."
    } else if e.idempotent {
        "It is idempotent, so calling it again with the same arguments is safe."
    } else {
        "It may have partly completed. Do not repeat it blindly: check the current state first, or ask the user."
    };
    ToolError::timeout(format!(
        "The tool \"{}\" did not finish within {ms} ms and was stopped. {advice}",
        spec.name
    ))
    .into_envelope()
}

/// The answer to a call no tool thread took in time: nothing ran, so the key is released and
/// the agent may call again.
fn busy_envelope(spec: &ToolSpec, waited: Duration) -> Envelope {
    let retry = waited.as_secs().max(1);
    ToolError::temporary(
        retry,
        crate::codes::TOOLS_BUSY,
        format!(
            "The host was too busy to start the tool \"{}\" within {} ms; it did not run. Wait \
             {retry} s, then call it again with the same arguments.",
            spec.name,
            waited.as_millis()
        ),
    )
    .into_envelope()
}
