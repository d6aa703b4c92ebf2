//! Idempotency: a repeat of a completed (or running) write does not run twice.
//!
//! A tool that writes declares which arguments identify the operation
//! (`#[tool(idempotency_key = [..])]`, [`Tool::with_idempotency_key`](crate::Tool::with_idempotency_key)),
//! or a call carries an explicit key. Each request then has an [`IdempotencyKey`]: the caller's
//! scope, the tool's name and a digest of those arguments (or the explicit key, bound to all the
//! arguments). The toolbox runs the first request for a key; what its repeats within the window
//! get depends on how it ended:
//!
//! - it returned a result (kept): repeats are refused with the code `DUPLICATE`, naming the
//!   original operation and its result's reference, when kept;
//! - it never ran, or answered `needs_input` or `temporary_failure` (released): a repeat runs;
//! - it was stopped with an unknown outcome (a timeout, or a drop after it started): repeats are
//!   refused with `OUTCOME_UNKNOWN` for the window.
//!
//! A repeat of a request still running is refused at once with `IN_PROGRESS` (and
//! `retry_after`); an explicit key reused with other arguments with `KEY_REUSED`. After the
//! window, a new request runs. With a [`StateStore`] shared by
//! replicas, the claims and outcomes are shared too.
//!
//! ```
//! # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
//! use serde_json::json;
//! use toolsmith::{Effects, Status, Tool, ToolSpec, Toolbox};
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let spec = ToolSpec::new(
//!     "create_ticket",
//!     "Opens a support ticket. Returns its id.",
//!     json!({"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}),
//! )
//! .with_effects(Effects::none().with_writes(true));
//! let tool = Tool::from_fn(spec, |_, _| Box::pin(async { Ok(json!({"id": 7})) }))
//!     .with_idempotency_key(["title"]);
//! let toolbox = Toolbox::builder().tool(tool).build().unwrap();
//!
//! let first = toolbox.call("create_ticket", r#"{"title": "Printer on fire"}"#).await;
//! assert_eq!(first.status, Status::Ok);
//! let again = toolbox.call("create_ticket", r#"{"title": "Printer on fire"}"#).await;
//! assert_eq!(again.code.as_deref(), Some("DUPLICATE"));
//! # });
//! ```

use crate::codes;
use crate::envelope::Envelope;
use crate::error::ToolError;
use crate::state::{ClaimRequest, ClaimState, KeptValue, StateStore};
use crate::store::BackendError;
use serde_json::{Map, Value};
use std::collections::HashMap;
#[cfg(test)]
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// What identifies one operation: the caller's scope, the tool's name and a digest of its
/// identifying arguments (or the explicit key the call carries).
///
/// Two keys are equal when scope, tool and digest are; the request fingerprint
/// ([`IdempotencyKey::with_request`]) is not part of the identity: it is compared with the
/// fingerprint stored for the key, so a key reused for another request is refused.
#[derive(Clone, Debug)]
pub struct IdempotencyKey {
    slot: Slot,
    request: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Slot {
    scope: String,
    tool: String,
    digest: String,
}

impl PartialEq for IdempotencyKey {
    fn eq(&self, other: &Self) -> bool {
        self.slot == other.slot
    }
}
impl Eq for IdempotencyKey {}
impl std::hash::Hash for IdempotencyKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.slot.hash(state);
    }
}

impl IdempotencyKey {
    /// The key of a call to `tool` identified by the arguments named in `key_params`.
    ///
    /// An empty `key_params` means all arguments identify the call. A named argument that is
    /// absent counts as absent (distinct from `null`), so leaving it out is a different key.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::idempotency::IdempotencyKey;
    /// let a = IdempotencyKey::from_args("pay", &serde_json::json!({"invoice": 9, "note": "a"}), &["invoice"]);
    /// let b = IdempotencyKey::from_args("pay", &serde_json::json!({"note": "b", "invoice": 9}), &["invoice"]);
    /// assert_eq!(a, b);
    /// ```
    pub fn from_args(tool: &str, args: &Value, key_params: &[&str]) -> Self {
        let identifying = match args {
            Value::Object(map) if !key_params.is_empty() => {
                let picked: Map<String, Value> = key_params
                    .iter()
                    .filter_map(|k| map.get(*k).map(|v| ((*k).to_string(), v.clone())))
                    .collect();
                Value::Object(picked)
            }
            other => other.clone(),
        };
        IdempotencyKey {
            slot: Slot {
                scope: String::new(),
                tool: tool.to_string(),
                digest: crate::audit::args_digest(&identifying),
            },
            request: None,
        }
    }

    /// The key of a call to `tool` carrying the explicit idempotency key `key`.
    pub fn explicit(tool: &str, key: &str) -> Self {
        IdempotencyKey {
            slot: Slot {
                scope: String::new(),
                tool: tool.to_string(),
                digest: format!("explicit:{key}"),
            },
            request: None,
        }
    }

    /// Scopes the key to one caller: the same key from another caller is another operation.
    /// Anonymous callers (`None`) share one scope.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::idempotency::IdempotencyKey;
    /// let a = IdempotencyKey::explicit("pay", "k").for_caller(Some("ann"));
    /// let b = IdempotencyKey::explicit("pay", "k").for_caller(Some("bob"));
    /// assert_ne!(a, b);
    /// ```
    #[must_use]
    pub fn for_caller(mut self, caller: Option<&str>) -> Self {
        self.slot.scope = match caller {
            Some(id) => format!("caller:{id}"),
            None => String::new(),
        };
        self
    }

    /// Binds the key to one request (a digest of all its arguments): the key reused with other
    /// arguments is refused (`KEY_REUSED`) instead of answered as a duplicate.
    #[must_use]
    pub fn with_request(mut self, args: &Value) -> Self {
        self.request = Some(crate::audit::args_digest(args));
        self
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.slot.tool
    }

    /// A stable id of the key (scope, tool and digest; not the request fingerprint): 64 hex
    /// characters of SHA-256, under which a durable store keeps its record.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::idempotency::IdempotencyKey;
    /// let a = IdempotencyKey::explicit("pay", "k").for_caller(Some("ann"));
    /// assert_eq!(a.id(), a.clone().with_request(&serde_json::json!({"x": 1})).id());
    /// assert_ne!(a.id(), IdempotencyKey::explicit("pay", "k").id());
    /// ```
    pub fn id(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for part in [&self.slot.scope, &self.slot.tool, &self.slot.digest] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

use crate::store::unix_ms;
pub use crate::store::StoredOutcome;

/// What a finished run means for the repeats of its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Disposition {
    /// The operation ran and returned a result (an error included): repeats within the window
    /// are duplicates of it.
    Keep,
    /// The operation never ran (refused before it started): the key is released.
    Release,
    /// The operation may or may not have taken effect (it timed out or crashed): repeats within
    /// the window are refused ([`Refusal::OutcomeUnknown`]).
    Unknown,
}

#[cfg(test)]
/// How a gated call's result reports success and the reference a duplicate should point at.
pub(crate) trait GateOutcome {
    /// Whether the operation completed successfully.
    fn succeeded(&self) -> bool;
    /// The reference of the result (e.g. the record-store `ref`), if any.
    fn reference(&self) -> Option<String> {
        None
    }
    /// What the result means for repeats; by default a success is kept and anything else
    /// releases the key.
    fn disposition(&self) -> Disposition {
        if self.succeeded() {
            Disposition::Keep
        } else {
            Disposition::Release
        }
    }
}

#[cfg(test)]
impl GateOutcome for Envelope {
    fn succeeded(&self) -> bool {
        self.is_success()
    }
    fn reference(&self) -> Option<String> {
        self.reference.clone()
    }
}

#[cfg(test)]
impl<T, E> GateOutcome for Result<T, E> {
    fn succeeded(&self) -> bool {
        self.is_ok()
    }
}

/// A request that was not run because it repeats an operation that ran (or is running).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Duplicate {
    /// The operation id of the original request.
    pub original_operation_id: String,
    /// The reference of the original result, when it had one.
    pub reference: Option<String>,
}

impl Duplicate {
    /// The `refused` error (code `DUPLICATE`) the repeated call returns, naming the original.
    pub(crate) fn into_tool_error(self, tool: &str, gate: &IdempotencyGate) -> ToolError {
        let reference = match &self.reference {
            Some(r) => format!(" Its result is kept as ref \"{r}\"."),
            None => String::new(),
        };
        let message = format!(
            "This call to \"{tool}\" repeats operation {} with the same identifying arguments, \
             which already completed within the last {}; it was not run again.{reference} Use the \
             earlier result. If the user wants it done a second time, ask them to confirm, then \
             change the arguments.",
            self.original_operation_id,
            describe_window(gate.window()),
        );
        let details = serde_json::json!({
            "original_operation_id": self.original_operation_id,
            "ref": self.reference,
        });
        ToolError::refused(codes::DUPLICATE, message).with_details(details)
    }

    /// The envelope of [`Duplicate::into_tool_error`], with `ref` set to the original's reference.
    pub(crate) fn into_envelope(self, tool: &str, gate: &IdempotencyGate) -> Envelope {
        let reference = self.reference.clone();
        let mut env = self.into_tool_error(tool, gate).into_envelope();
        env.reference = reference;
        env
    }
}

fn describe_window(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 && s % 3600 == 0 {
        plural(s / 3600, "hour")
    } else if s >= 60 && s % 60 == 0 {
        plural(s / 60, "minute")
    } else if s >= 1 {
        plural(s, "second")
    } else {
        format!("{} ms", d.as_millis())
    }
}

fn plural(n: u64, unit: &str) -> String {
    if n == 1 {
        unit.to_string()
    } else {
        format!("{n} {unit}s")
    }
}

#[cfg(test)]
/// The outcome of [`IdempotencyGate::run`].
#[derive(Debug)]
#[must_use = "a duplicate must be reported to the caller (Duplicate::into_envelope)"]
pub(crate) enum Gate<T> {
    /// This request ran; here is its result.
    Ran(T),
    /// This request repeats one that ran (or that was running and completed successfully); it
    /// was not run.
    Duplicate(Duplicate),
    /// This request was not run and there is no result to point at: its key is in use by a
    /// running request, belongs to a request whose outcome is unknown, or was used for other
    /// arguments.
    Refused(Refusal),
}

/// Why a request was refused without a result to show ([`Gate::Refused`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// An identical request is running now (only with
    /// [`IdempotencyGate::refusing_in_progress`]; otherwise repeats wait for it).
    InProgress {
        /// The operation id of the running request.
        original_operation_id: String,
    },
    /// An identical request was stopped before it reported (timed out, dropped, crashed), so
    /// whether it took effect is unknown.
    OutcomeUnknown {
        /// The operation id of that request.
        original_operation_id: String,
    },
    /// The explicit key was used with other arguments.
    KeyReused,
    /// The durable store that keeps the idempotency records could not be read, so whether this
    /// request already ran is unknown; it was not run.
    Unavailable,
}

/// Seconds an agent is told to wait before asking again about a request still in progress.
pub const IN_PROGRESS_RETRY_AFTER_SECS: u64 = 1;

/// Seconds an agent is told to wait when the durable idempotency records cannot be read.
pub const UNAVAILABLE_RETRY_AFTER_SECS: u64 = 5;

impl Refusal {
    /// The stable code: `IN_PROGRESS`, `OUTCOME_UNKNOWN`, `IDEMPOTENCY_KEY_REUSED` or
    /// `IDEMPOTENCY_UNAVAILABLE`.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Refusal::InProgress { .. } => codes::IN_PROGRESS,
            Refusal::OutcomeUnknown { .. } => codes::OUTCOME_UNKNOWN,
            Refusal::KeyReused => codes::IDEMPOTENCY_KEY_REUSED,
            Refusal::Unavailable => codes::IDEMPOTENCY_UNAVAILABLE,
        }
    }

    /// The envelope the refused call returns: `refused` (with `retry_after` while in progress),
    /// `invalid_input` for a reused key, or `temporary_failure` (with `retry_after`) when the
    /// durable store is unavailable.
    pub(crate) fn into_envelope(self, tool: &str, gate: &IdempotencyGate) -> Envelope {
        let code = self.code();
        match self {
            Refusal::InProgress {
                original_operation_id,
            } => {
                let mut env = ToolError::refused(
                    code,
                    format!(
                        "An identical call to \"{tool}\" (operation {original_operation_id}) is \
                         still running; this one was not run. Wait, then call again with the same \
                         arguments to get its result."
                    ),
                )
                .with_details(serde_json::json!({ "original_operation_id": original_operation_id }))
                .into_envelope();
                env.retry_after = Some(IN_PROGRESS_RETRY_AFTER_SECS);
                env
            }
            Refusal::OutcomeUnknown {
                original_operation_id,
            } => ToolError::refused(
                code,
                format!(
                    "An identical call to \"{tool}\" (operation {original_operation_id}) was \
                     stopped before it reported, so whether it took effect is unknown; this one \
                     was not run. Do not repeat it blindly: check the current state first (with \
                     a tool that reads it), or ask the user whether to do it again. Calls with \
                     the same identifying arguments are refused for the next {}.",
                    describe_window(gate.window()),
                ),
            )
            .with_details(serde_json::json!({ "original_operation_id": original_operation_id }))
            .into_envelope(),
            Refusal::Unavailable => unavailable_envelope(tool),
            Refusal::KeyReused => ToolError::invalid_input(
                code,
                format!(
                    "This idempotency key was already used for a call to \"{tool}\" with other \
                     arguments; this call was not run. Send a new idempotency key for a new \
                     request, or repeat the earlier request with exactly its arguments."
                ),
            )
            .into_envelope(),
        }
    }
}

/// The envelope of a call refused because the idempotency records could not be read or written
/// ([`Refusal::Unavailable`]): `temporary_failure`, `IDEMPOTENCY_UNAVAILABLE`, with
/// `retry_after`.
pub(crate) fn unavailable_envelope(tool: &str) -> Envelope {
    ToolError::temporary(
        UNAVAILABLE_RETRY_AFTER_SECS,
        codes::IDEMPOTENCY_UNAVAILABLE,
        format!(
            "Whether an identical call to \"{tool}\" already ran cannot be checked right now \
             (the host's record store is unavailable), so this one was not run. Wait, then call \
             again with the same arguments."
        ),
    )
    .into_envelope()
}

/// What waiters learn when the running request ends.
#[derive(Clone, Debug)]
enum Finish {
    Running,
    Succeeded(Duplicate),
    /// Stopped with an unknown outcome: waiters are refused.
    Unknown(String),
    /// Released (never ran, or failed with the default disposition): waiters try again.
    Retry,
}

#[derive(Debug)]
enum Entry {
    Running {
        rx: watch::Receiver<Finish>,
        /// Distinguishes this run from a later one under the same key.
        run: u64,
        operation_id: String,
        request: Option<String>,
    },
    Done {
        dup: Duplicate,
        at: Instant,
        /// The outcome is unknown: repeats are refused, not answered as duplicates.
        unknown: bool,
        request: Option<String>,
    },
}

impl Entry {
    fn request(&self) -> Option<&str> {
        match self {
            Entry::Running { request, .. } | Entry::Done { request, .. } => request.as_deref(),
        }
    }
}

/// Marks that a gated operation has started to take effect: if its future is dropped after
/// this, the outcome is unknown and repeats are refused instead of run again. On a gate with a
/// durable store, marking also writes that unknown outcome to the store, so a crash while the
/// operation runs leaves it unknown after a restart too.
#[derive(Clone, Default)]
pub(crate) struct Started {
    flag: Arc<std::sync::atomic::AtomicBool>,
    on_mark: Option<Arc<dyn Fn() + Send + Sync>>,
    /// What the run says of its dealings with its client (the pipeline's keyed calls): a run
    /// dropped while it waits for its client's answer, not having said it acted, did nothing.
    talk: Arc<std::sync::OnceLock<Arc<crate::client::Talk>>>,
}

impl std::fmt::Debug for Started {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Started").field(&self.is_marked()).finish()
    }
}

impl Started {
    /// From now on, a drop leaves the outcome unknown.
    pub(crate) fn mark(&self) {
        let was = self.flag.swap(true, std::sync::atomic::Ordering::SeqCst);
        if !was {
            if let Some(on_mark) = &self.on_mark {
                on_mark();
            }
        }
    }

    /// Whether the run may have taken effect: marked, and not stopped while it waited for its
    /// client without having said it acted ([`crate::client::Talk::stopped_at_question`]).
    fn is_marked(&self) -> bool {
        self.flag.load(std::sync::atomic::Ordering::SeqCst)
            && !self.talk.get().is_some_and(|t| t.stopped_at_question())
    }

    /// Lets a drop of the run read what `talk` records of it (set once, before the run).
    pub(crate) fn attach(&self, talk: Arc<crate::client::Talk>) {
        let _ = self.talk.set(talk);
    }
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<IdempotencyKey, Entry>,
    next_run: u64,
    purge_at: usize,
}

/// Runs each operation once per key within a time window. Cheap to share (`Arc` inside).
///
/// Uses `tokio::time::Instant`, so tests can move time with `tokio::time::pause()`/`advance()`.
#[derive(Clone)]
pub(crate) struct IdempotencyGate {
    window: Duration,
    refuse_in_progress: bool,
    inner: Arc<Mutex<Inner>>,
    /// Keeps the records of completed and started requests across restarts.
    durable: Option<Arc<dyn crate::store::RecordStore>>,
    /// The state shared with the other replicas: every run also claims its key there.
    shared: Option<SharedState>,
    /// Alive as long as a handle to the gate: a claim's renewal stops when the gate is gone
    /// (its toolbox dropped), and its lease lapses as when the process dies.
    alive: Arc<()>,
}

/// A gate's shared state ([`IdempotencyGate::with_state_store`]).
#[derive(Clone)]
struct SharedState {
    store: Arc<dyn StateStore>,
    /// How long a claim lives unless renewed (it is renewed every third of it while it runs).
    lease: Duration,
    /// Hears of the shared store's failures that no call answers for (a renewal, a release).
    on_error: Option<ErrorSink>,
}

/// Where a gate passes the shared store's failures that no call answers for.
pub(crate) type ErrorSink = Arc<dyn Fn(&BackendError) + Send + Sync>;

impl SharedState {
    fn report(&self, e: &BackendError) {
        if let Some(f) = &self.on_error {
            f(e);
        }
    }

    /// Withdraws the claim `token` made on `id` when its answer never came (the store timed
    /// out, or the connection dropped after the write): it may have landed after all, and a
    /// landed claim would answer every repeat `IN_PROGRESS`, then `OUTCOME_UNKNOWN` for the
    /// window (a write's claim is written started), though nothing ran. The release goes out
    /// at once, so on a store that keeps the order of one connection's steps (Redis) it lands
    /// after the claim and before the caller's retry; when it is not answered either, or finds
    /// nothing (a claim still on its way by another path), it is sent twice more in the
    /// background while a landed claim's lease would still hold.
    async fn withdraw(&self, id: String, token: String) {
        if let Ok(true) = self.store.release(&id, &token).await {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (state, pause) = (self.clone(), self.lease / 3);
        rt.spawn(async move {
            let mut failed = None;
            for _ in 0..2 {
                tokio::time::sleep(pause).await;
                match state.store.release(&id, &token).await {
                    Ok(true) => return,
                    Ok(false) => failed = None,
                    Err(e) => failed = Some(e),
                }
            }
            if let Some(e) = failed {
                state.report(&e);
            }
        });
    }
}

impl std::fmt::Debug for IdempotencyGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdempotencyGate")
            .field("window", &self.window)
            .field("refuse_in_progress", &self.refuse_in_progress)
            .field("durable", &self.durable.is_some())
            .field("shared", &self.shared.is_some())
            .finish()
    }
}

/// Removes the running entry if the run ends without reporting (its future was dropped), so
/// waiters try again instead of waiting forever.
struct RunGuard<'g> {
    gate: &'g IdempotencyGate,
    key: Option<IdempotencyKey>,
    run: u64,
    tx: watch::Sender<Finish>,
    operation_id: String,
    started: Started,
}

impl RunGuard<'_> {
    fn finish(mut self, outcome: Finish, record: Option<(Duplicate, bool)>) {
        if let (Some(key), Some(store)) = (&self.key, &self.gate.durable) {
            match &record {
                Some((dup, unknown)) => self.gate.persist(key, dup, *unknown),
                None => {
                    let _ = store.remove_outcome(&key.id());
                }
            }
        }
        if let Some(key) = self.key.take() {
            let mut inner = self.gate.lock();
            if matches!(inner.entries.get(&key), Some(Entry::Running { run, .. }) if *run == self.run)
            {
                match record {
                    Some((dup, unknown)) => {
                        let request = key.request.clone();
                        inner.entries.insert(
                            key,
                            Entry::Done {
                                dup,
                                at: Instant::now(),
                                unknown,
                                request,
                            },
                        );
                    }
                    None => {
                        inner.entries.remove(&key);
                    }
                }
            }
        }
        // Send after the map is updated, so a woken waiter sees the final state.
        self.tx.send_replace(outcome);
    }
}

impl Drop for RunGuard<'_> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            // Dropped before it finished: released if it had not started to take effect,
            // otherwise its outcome is unknown for the window.
            let unknown = self.started.is_marked();
            let mut inner = self.gate.lock();
            if matches!(inner.entries.get(&key), Some(Entry::Running { run, .. }) if *run == self.run)
            {
                if !unknown && self.started.flag.load(std::sync::atomic::Ordering::SeqCst) {
                    // Marked (and persisted as unknown), but it stopped at a question: released.
                    if let Some(store) = &self.gate.durable {
                        let _ = store.remove_outcome(&key.id());
                    }
                }
                if unknown {
                    let request = key.request.clone();
                    let dup = Duplicate {
                        original_operation_id: self.operation_id.clone(),
                        reference: None,
                    };
                    inner.entries.insert(
                        key,
                        Entry::Done {
                            dup,
                            at: Instant::now(),
                            unknown: true,
                            request,
                        },
                    );
                } else {
                    inner.entries.remove(&key);
                }
            }
            drop(inner);
            self.tx.send_replace(if unknown {
                Finish::Unknown(self.operation_id.clone())
            } else {
                Finish::Retry
            });
        }
    }
}

enum Claim {
    Run(u64, watch::Sender<Finish>),
    Wait(watch::Receiver<Finish>),
    Duplicate(Duplicate),
    Refused(Refusal),
}

/// What [`IdempotencyGate::enter`] answers.
pub(crate) enum Entered<'g> {
    /// The request runs; the ticket is held until it ends.
    Run(Ticket<'g>),
    /// An identical request completed within the window.
    Duplicate(Duplicate),
    /// The request is refused.
    Refused(Refusal),
}

/// A claimed run of a request. [`finish`](Ticket::finish) records its outcome; dropping it
/// unfinished releases the key, or leaves the outcome unknown once [`started`](Ticket::started)
/// was marked.
pub(crate) struct Ticket<'g> {
    guard: RunGuard<'g>,
    started: Started,
    /// The run's claim in the shared state, when the gate has one (boxed: most gates have
    /// none).
    shared: Option<Box<SharedTicket>>,
}

/// Makes a [`Started::mark`] by the run's own code ([`IdempotencyGate::run_tracked`]) write
/// the mark to the shared state too, in a task of its own (a mark is synchronous). The
/// pipeline marks through [`Ticket::mark_started`] instead, which awaits the write before the
/// tool runs.
fn mark_in_shared_state(started: &mut Started, shared: &SharedState, id: &str, token: &str) {
    let before = started.on_mark.take();
    let (state, id, token) = (shared.clone(), id.to_string(), token.to_string());
    started.on_mark = Some(Arc::new(move || {
        if let Some(before) = &before {
            before();
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (state, id, token) = (state.clone(), id.clone(), token.clone());
        rt.spawn(async move {
            match state.store.mark_started(&id, &token).await {
                Ok(true) => {}
                Ok(false) => state.report(&BackendError::new(format!(
                    "the claim on idempotency key {id} lapsed before its run started"
                ))),
                Err(e) => state.report(&e),
            }
        });
    }));
}

/// A run's claim in the shared state: its token, the renewal of its lease, and what a drop
/// leaves there.
struct SharedTicket {
    state: SharedState,
    id: String,
    token: String,
    started: Started,
    /// What an unknown outcome written on drop says.
    operation_id: String,
    request: Option<String>,
    window: Duration,
    renewal: Option<tokio::task::AbortHandle>,
    /// The claim was written started: [`Ticket::mark_started`] has nothing to write.
    started_in_store: bool,
    /// The outcome (or the release) was written: nothing is left to do on drop.
    done: bool,
}

impl SharedTicket {
    fn new(state: &SharedState, id: String, token: String, ticket: &Ticket<'_>) -> Self {
        let renewal = tokio::runtime::Handle::try_current().ok().map(|rt| {
            let (store, key, tok, lease) = (
                Arc::clone(&state.store),
                id.clone(),
                token.clone(),
                state.lease,
            );
            let (alive, report) = (Arc::downgrade(&ticket.guard.gate.alive), state.clone());
            rt.spawn(async move {
                loop {
                    tokio::time::sleep(lease / 3).await;
                    // The gate is gone (its toolbox dropped, as in a crash): the lease lapses.
                    if alive.upgrade().is_none() {
                        return;
                    }
                    match store.renew(&key, &tok, lease).await {
                        Ok(true) => {}
                        Ok(false) => {
                            report.report(&BackendError::new(format!(
                                "the claim on idempotency key {key} lapsed while its run went on"
                            )));
                            return;
                        }
                        Err(e) => report.report(&e),
                    }
                }
            })
            .abort_handle()
        });
        let key = ticket.guard.key.as_ref();
        SharedTicket {
            state: state.clone(),
            id,
            token,
            started: ticket.started.clone(),
            operation_id: ticket.guard.operation_id.clone(),
            request: key.and_then(|k| k.request.clone()),
            window: ticket.guard.gate.window,
            renewal,
            started_in_store: false,
            done: false,
        }
    }

    /// The outcome the shared state keeps for the run's key.
    fn outcome(&self, reference: Option<String>, unknown: bool) -> StoredOutcome {
        StoredOutcome {
            operation_id: self.operation_id.clone(),
            reference,
            unknown,
            request: self.request.clone(),
            at_unix_ms: unix_ms(),
        }
    }

    /// Writes what the run's end means for its key in the shared state, with the value its
    /// outcome names (kept in the same step; a release keeps nothing).
    async fn write(
        &mut self,
        disposition: Disposition,
        reference: Option<String>,
        kept: Option<KeptValue<'_>>,
    ) -> Result<(), BackendError> {
        if let Some(r) = self.renewal.take() {
            r.abort();
        }
        self.done = true;
        let store = &self.state.store;
        let held = match disposition {
            Disposition::Release => store.release(&self.id, &self.token).await?,
            Disposition::Keep | Disposition::Unknown => {
                let outcome = self.outcome(reference, disposition == Disposition::Unknown);
                store
                    .finish(&self.id, &self.token, &outcome, self.window, kept)
                    .await?
            }
        };
        if held {
            Ok(())
        } else {
            Err(BackendError::new(format!(
                "the claim on idempotency key {} lapsed before its outcome was recorded",
                self.id
            )))
        }
    }
}

impl Drop for SharedTicket {
    fn drop(&mut self) {
        if let Some(r) = self.renewal.take() {
            r.abort();
        }
        if self.done {
            return;
        }
        // Dropped before it finished (the call was dropped): released if the run had not
        // started, its outcome unknown if it had. Written in a task of its own when there is a
        // runtime; otherwise the lease lapses, with the same meaning.
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (state, id, token) = (self.state.clone(), self.id.clone(), self.token.clone());
        let unknown = self.started.is_marked().then(|| self.outcome(None, true));
        let window = self.window;
        rt.spawn(async move {
            let written = if let Some(outcome) = unknown {
                state
                    .store
                    .finish(&id, &token, &outcome, window, None)
                    .await
                    .map(|_| ())
            } else {
                state.store.release(&id, &token).await.map(|_| ())
            };
            if let Err(e) = written {
                state.report(&e);
            }
        });
    }
}

impl Ticket<'_> {
    /// The handle to mark once the request starts to take effect.
    pub(crate) fn started(&self) -> &Started {
        &self.started
    }

    /// Whether the run holds a claim in the shared state.
    pub(crate) fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// Marks the run started ([`Started::mark`]), in the shared state first when the gate has
    /// one: a run whose start cannot be recorded there must not run (a crash would free its
    /// key for another run).
    ///
    /// # Errors
    /// The shared store's error, or its claim lapsed; the run is not marked.
    pub(crate) async fn mark_started(&self) -> Result<(), BackendError> {
        if let Some(s) = self.shared.as_ref().filter(|s| !s.started_in_store) {
            if !s.state.store.mark_started(&s.id, &s.token).await? {
                return Err(BackendError::new(format!(
                    "the claim on idempotency key {} lapsed before its run started",
                    s.id
                )));
            }
        }
        // The guard's handle: the ticket's own would write the shared mark again.
        self.guard.started.mark();
        Ok(())
    }

    /// Records the outcome: repeats within the window get duplicates of it
    /// ([`Disposition::Keep`], pointing at `reference`), a refusal ([`Disposition::Unknown`]),
    /// or a new run ([`Disposition::Release`]); in the shared state too, when the gate has one,
    /// keeping `kept` there in the same step (the value `reference` names; ignored without a
    /// shared state, and on a release).
    ///
    /// # Errors
    /// The shared store's error (or its claim lapsed): this process records the outcome all
    /// the same, and on the other replicas the lease lapses (a started run is then unknown);
    /// `kept` was not kept.
    pub(crate) async fn finish(
        self,
        disposition: Disposition,
        reference: Option<String>,
        kept: Option<KeptValue<'_>>,
    ) -> Result<(), BackendError> {
        let Ticket {
            guard,
            shared,
            started: _,
        } = self;
        let written = match shared {
            Some(mut s) => s.write(disposition, reference.clone(), kept).await,
            None => Ok(()),
        };
        Self::finish_here(guard, disposition, reference);
        written
    }

    /// Records the outcome in this process's map.
    fn finish_here(guard: RunGuard<'_>, disposition: Disposition, reference: Option<String>) {
        let operation_id = guard.operation_id.clone();
        let dup = Duplicate {
            original_operation_id: operation_id.clone(),
            reference,
        };
        match disposition {
            Disposition::Keep => guard.finish(Finish::Succeeded(dup.clone()), Some((dup, false))),
            Disposition::Unknown => guard.finish(Finish::Unknown(operation_id), Some((dup, true))),
            Disposition::Release => guard.finish(Finish::Retry, None),
        }
    }
}

impl IdempotencyGate {
    /// A gate treating repeats within `window` after completion as duplicates.
    pub(crate) fn new(window: Duration) -> Self {
        IdempotencyGate {
            window,
            refuse_in_progress: false,
            inner: Arc::new(Mutex::new(Inner {
                purge_at: 1024,
                ..Inner::default()
            })),
            durable: None,
            shared: None,
            alive: Arc::new(()),
        }
    }

    /// Claims every run's key in `store` too, the state the service's replicas share: a run
    /// holds a lease there (renewed every third of `lease` while it runs), and its outcome is
    /// written there, so a repeat on any replica is answered as this one would answer it
    /// (duplicate, in progress, outcome unknown). A replica that dies mid-run leaves a lease
    /// that lapses after `lease`: its key is then free if the run had not started, and its
    /// outcome unknown for the window if it had. When `store` cannot be reached, a call is
    /// refused ([`Refusal::Unavailable`]) and nothing runs.
    #[must_use]
    pub(crate) fn with_state_store(mut self, store: Arc<dyn StateStore>, lease: Duration) -> Self {
        self.shared = Some(SharedState {
            store,
            lease: lease.max(Duration::from_millis(30)),
            on_error: None,
        });
        self
    }

    /// Passes the shared store's failures that no call answers for (a renewal, a release after a
    /// drop) to `f` (the toolbox counts them as faults).
    pub(crate) fn reporting_to(mut self, f: ErrorSink) -> Self {
        if let Some(shared) = &mut self.shared {
            shared.on_error = Some(f);
        }
        self
    }

    /// Keeps the records of completed and started requests in `store` too, when it keeps them
    /// ([`RecordStore::keeps_outcomes`](crate::budget::RecordStore::keeps_outcomes)): a new gate
    /// on the same store answers the repeats of a request as the old one did (duplicate, or
    /// outcome unknown). When the store cannot be read, a request with no record in memory is
    /// refused ([`Refusal::Unavailable`]) rather than risk running twice; when a record cannot
    /// be written, the store's error is the store's to report (the toolbox counts it as a fault).
    #[must_use]
    pub(crate) fn with_durable_store(mut self, store: Arc<dyn crate::store::RecordStore>) -> Self {
        self.durable = store.keeps_outcomes().then_some(store);
        self
    }

    /// The record of `key` in the durable store, as a claim, when it is within the window.
    fn durable_claim(&self, key: &IdempotencyKey) -> Option<Claim> {
        let store = self.durable.as_ref()?;
        let id = key.id();
        let kept = match store.get_outcome(&id) {
            Ok(Some(kept)) => kept,
            Ok(None) => return None,
            Err(_) => return Some(Claim::Refused(Refusal::Unavailable)),
        };
        let age = unix_ms().saturating_sub(kept.at_unix_ms);
        if u128::from(age) >= self.window.as_millis() {
            let _ = store.remove_outcome(&id);
            return None;
        }
        if key.request.is_some() && kept.request != key.request {
            return Some(Claim::Refused(Refusal::KeyReused));
        }
        Some(if kept.unknown {
            Claim::Refused(Refusal::OutcomeUnknown {
                original_operation_id: kept.operation_id,
            })
        } else {
            Claim::Duplicate(Duplicate {
                original_operation_id: kept.operation_id,
                reference: kept.reference,
            })
        })
    }

    /// Writes the record of a finished (or started) request to the durable store.
    fn persist(&self, key: &IdempotencyKey, dup: &Duplicate, unknown: bool) {
        if let Some(store) = &self.durable {
            let kept = StoredOutcome {
                operation_id: dup.original_operation_id.clone(),
                reference: dup.reference.clone(),
                unknown,
                request: key.request.clone(),
                at_unix_ms: unix_ms(),
            };
            let _ = store.put_outcome(&key.id(), &kept);
        }
    }

    /// A repeat that arrives while an identical request runs is refused at once
    /// ([`Refusal::InProgress`]) instead of waiting for it. The toolbox's gate works this way, so
    /// a call never hangs behind another caller's slow request.
    #[must_use]
    pub(crate) fn refusing_in_progress(mut self) -> Self {
        self.refuse_in_progress = true;
        self
    }

    /// The window after completion during which repeats are duplicates.
    pub(crate) fn window(&self) -> Duration {
        self.window
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // No invariant can be broken half-way under this lock (each critical section is a single
        // map operation), so a poisoned lock is safe to keep using.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn claim(&self, key: &IdempotencyKey, operation_id: &str) -> Claim {
        let mut inner = self.lock();
        let now = Instant::now();
        if inner.entries.len() >= inner.purge_at {
            self.purge(&mut inner, now);
        }
        let live = inner.entries.get(key).filter(|e| match e {
            Entry::Running { .. } => true,
            Entry::Done { at, .. } => now.duration_since(*at) < self.window,
        });
        if let Some(entry) = live {
            return self.existing(key, entry);
        }
        // Under the lock, so two requests cannot both miss the record and both run.
        if let Some(claim) = self.durable_claim(key) {
            return claim;
        }
        inner.next_run += 1;
        let run = inner.next_run;
        let (tx, rx) = watch::channel(Finish::Running);
        inner.entries.insert(
            key.clone(),
            Entry::Running {
                rx,
                run,
                operation_id: operation_id.to_string(),
                request: key.request.clone(),
            },
        );
        Claim::Run(run, tx)
    }

    /// Drops the records older than the window, and sets when to purge next.
    fn purge(&self, inner: &mut Inner, now: Instant) {
        let window = self.window;
        inner.entries.retain(|_, e| match e {
            Entry::Running { .. } => true,
            Entry::Done { at, .. } => now.duration_since(*at) < window,
        });
        inner.purge_at = (inner.entries.len() * 2).max(1024);
    }

    /// The claim of a request whose key has a live entry (running, or done within the window).
    fn existing(&self, key: &IdempotencyKey, entry: &Entry) -> Claim {
        if key.request.is_some() && entry.request() != key.request.as_deref() {
            return Claim::Refused(Refusal::KeyReused);
        }
        match entry {
            Entry::Running {
                operation_id, rx, ..
            } => {
                if self.refuse_in_progress {
                    Claim::Refused(Refusal::InProgress {
                        original_operation_id: operation_id.clone(),
                    })
                } else {
                    Claim::Wait(rx.clone())
                }
            }
            Entry::Done {
                dup, unknown: true, ..
            } => Claim::Refused(Refusal::OutcomeUnknown {
                original_operation_id: dup.original_operation_id.clone(),
            }),
            Entry::Done { dup, .. } => Claim::Duplicate(dup.clone()),
        }
    }

    #[cfg(test)]
    /// Runs `f` unless an identical request (same `key`) is running or completed successfully
    /// within the window.
    ///
    /// - No other request with `key`: `f` runs, and its result is returned as [`Gate::Ran`]. Its
    ///   [`GateOutcome::disposition`] decides what repeats within the window get: duplicates of
    ///   `operation_id` ([`Disposition::Keep`]), a new run ([`Disposition::Release`]), or a
    ///   refusal ([`Disposition::Unknown`]).
    /// - A request with `key` is running: this one waits (without polling) for it to end, or is
    ///   refused at once with [`Refusal::InProgress`] on a gate built with
    ///   [`refusing_in_progress`](Self::refusing_in_progress). If the running one is kept, this
    ///   one returns [`Gate::Duplicate`]; if it is released, this one tries again.
    /// - A request with `key` completed less than the window ago: [`Gate::Duplicate`] at once,
    ///   or [`Gate::Refused`] when its outcome is unknown.
    /// - `key` carries a request fingerprint ([`IdempotencyKey::with_request`]) that differs
    ///   from the one stored for the key: [`Refusal::KeyReused`].
    ///
    /// Cancel-safe: dropping the returned future while `f` runs releases the key (see
    /// [`run_tracked`](Self::run_tracked) for operations that must not be repeated after a drop).
    pub(crate) async fn run<F, Fut, T>(
        &self,
        key: IdempotencyKey,
        operation_id: &str,
        f: F,
    ) -> Gate<T>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
        T: GateOutcome,
    {
        self.run_tracked(key, operation_id, |_started| f()).await
    }

    #[cfg(test)]
    /// Like [`run`](Self::run), but `f` receives a [`Started`] handle: once `f` marks it, a drop
    /// of the returned future leaves the outcome unknown ([`Refusal::OutcomeUnknown`] for the
    /// window) instead of releasing the key.
    pub(crate) async fn run_tracked<F, Fut, T>(
        &self,
        key: IdempotencyKey,
        operation_id: &str,
        f: F,
    ) -> Gate<T>
    where
        F: FnOnce(Started) -> Fut,
        Fut: Future<Output = T>,
        T: GateOutcome,
    {
        match self.enter(key, operation_id, false).await {
            Entered::Duplicate(dup) => Gate::Duplicate(dup),
            Entered::Refused(r) => Gate::Refused(r),
            Entered::Run(ticket) => {
                let out = f(ticket.started().clone()).await;
                if let Err(e) = ticket
                    .finish(out.disposition(), out.reference(), None)
                    .await
                {
                    if let Some(shared) = &self.shared {
                        shared.report(&e);
                    }
                }
                Gate::Ran(out)
            }
        }
    }

    /// Claims `key` for the request `operation_id`: the request may run (holding the returned
    /// [`Ticket`] until it ends), or it is a duplicate, or it is refused. A repeat of a running
    /// request waits for it (without polling) unless the gate refuses in-progress repeats.
    ///
    /// `started`: the run begins to take effect as soon as it is claimed (nothing can refuse it
    /// in between), so its claim in the shared state is written started, which saves the round
    /// trip of [`Ticket::mark_started`]'s write.
    pub(crate) async fn enter(
        &self,
        key: IdempotencyKey,
        operation_id: &str,
        started: bool,
    ) -> Entered<'_> {
        loop {
            match self.claim(&key, operation_id) {
                Claim::Duplicate(dup) => return Entered::Duplicate(dup),
                Claim::Refused(r) => return Entered::Refused(r),
                Claim::Wait(rx) => match Self::wait(rx).await {
                    Some(done) => return done,
                    // Released, or the sender is gone: try to claim again.
                    None => continue,
                },
                Claim::Run(run, tx) => {
                    let ticket = self.ticket(key, operation_id, run, tx);
                    return match &self.shared {
                        None => Entered::Run(ticket),
                        Some(shared) => self.claim_shared(shared, ticket, started).await,
                    };
                }
            }
        }
    }

    /// Claims the key of a run this process claimed in the shared state too: the run goes on
    /// only when the claim is its own; otherwise the local claim is released (the ticket drops
    /// unstarted) and the call gets what the shared state holds.
    async fn claim_shared<'g>(
        &'g self,
        shared: &SharedState,
        mut ticket: Ticket<'g>,
        started: bool,
    ) -> Entered<'g> {
        let Some(key) = ticket.guard.key.clone() else {
            return Entered::Run(ticket);
        };
        let (id, token) = (key.id(), crate::secret::random_hex(16));
        let claimed = shared
            .store
            .claim(
                &id,
                ClaimRequest {
                    token: &token,
                    operation_id: &ticket.guard.operation_id,
                    request: key.request.as_deref(),
                    lease: shared.lease,
                    window: self.window,
                    started,
                },
            )
            .await;
        let reused = |request: &Option<String>| key.request.is_some() && *request != key.request;
        match claimed {
            Ok(ClaimState::Claimed) => {
                if !started {
                    mark_in_shared_state(&mut ticket.started, shared, &id, &token);
                }
                let mut held = SharedTicket::new(shared, id, token, &ticket);
                held.started_in_store = started;
                ticket.shared = Some(Box::new(held));
                Entered::Run(ticket)
            }
            Ok(ClaimState::Running { request, .. }) if reused(&request) => {
                Entered::Refused(Refusal::KeyReused)
            }
            Ok(ClaimState::Running { operation_id, .. }) => Entered::Refused(Refusal::InProgress {
                original_operation_id: operation_id,
            }),
            Ok(ClaimState::Recorded(kept)) if reused(&kept.request) => {
                Entered::Refused(Refusal::KeyReused)
            }
            Ok(ClaimState::Recorded(kept)) if kept.unknown => {
                Entered::Refused(Refusal::OutcomeUnknown {
                    original_operation_id: kept.operation_id,
                })
            }
            Ok(ClaimState::Recorded(kept)) => Entered::Duplicate(Duplicate {
                original_operation_id: kept.operation_id,
                reference: kept.reference,
            }),
            Err(e) => {
                shared.report(&e);
                shared.withdraw(id, token).await;
                Entered::Refused(Refusal::Unavailable)
            }
        }
    }

    /// Waits for the running request to end: its duplicate, its refusal, or `None` to claim again.
    async fn wait<'g>(mut rx: watch::Receiver<Finish>) -> Option<Entered<'g>> {
        let finished = rx
            .wait_for(|f| !matches!(f, Finish::Running))
            .await
            .map(|f| f.clone());
        match finished {
            Ok(Finish::Succeeded(dup)) => Some(Entered::Duplicate(dup)),
            Ok(Finish::Unknown(op)) => Some(Entered::Refused(Refusal::OutcomeUnknown {
                original_operation_id: op,
            })),
            _ => None,
        }
    }

    /// The ticket of a claimed run; on a durable gate, marking it started persists the unknown
    /// outcome at once.
    fn ticket(
        &self,
        key: IdempotencyKey,
        operation_id: &str,
        run: u64,
        tx: watch::Sender<Finish>,
    ) -> Ticket<'_> {
        let mut started = Started::default();
        if self.durable.is_some() {
            let (gate, key, op) = (self.clone(), key.clone(), operation_id.to_string());
            started.on_mark = Some(Arc::new(move || {
                let dup = Duplicate {
                    original_operation_id: op.clone(),
                    reference: None,
                };
                gate.persist(&key, &dup, true);
            }));
        }
        Ticket {
            shared: None,
            guard: RunGuard {
                gate: self,
                key: Some(key),
                run,
                tx,
                operation_id: operation_id.to_string(),
                started: started.clone(),
            },
            started,
        }
    }

    #[cfg(test)]
    /// Forgets every completed operation, so repeats run again; requests running now are not
    /// affected. For administrative resets and tests.
    pub(crate) fn clear(&self) {
        self.lock()
            .entries
            .retain(|_, e| matches!(e, Entry::Running { .. }));
    }

    #[cfg(test)]
    /// How many keys are tracked now (running, or completed and maybe not yet purged).
    pub(crate) fn len(&self) -> usize {
        self.lock().entries.len()
    }

    #[cfg(test)]
    /// Whether no key is tracked.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests;
