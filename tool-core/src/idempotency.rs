//! The idempotency gate: a repeat of a completed (or running) write does not run twice.
//!
//! Each request has an [`IdempotencyKey`]: the tool's name plus a digest of the arguments that
//! identify the operation (or an explicit key the call carries). [`IdempotencyGate::run`] executes
//! the first request for a key; concurrent identical requests wait for it and get
//! [`Gate::Duplicate`], as does a repeat within the window after it completed successfully. After
//! the window, or when the first request failed (or was cancelled), a new request runs.
//!
//! ```
//! use std::time::Duration;
//! use tool_core::idempotency::{Gate, IdempotencyGate, IdempotencyKey};
//! use tool_core::Envelope;
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! let gate = IdempotencyGate::new(Duration::from_secs(600));
//! let args = serde_json::json!({"title": "Printer on fire", "priority": "high"});
//! let key = IdempotencyKey::from_args("create_ticket", &args, &["title"]);
//!
//! let first = gate.run(key.clone(), "op_1", || async { Envelope::ok(serde_json::json!({"id": 7})) }).await;
//! assert!(matches!(first, Gate::Ran(_)));
//! let again = gate.run(key, "op_2", || async { Envelope::ok(serde_json::json!({"id": 8})) }).await;
//! let Gate::Duplicate(dup) = again else { panic!() };
//! assert_eq!(dup.original_operation_id, "op_1");
//! assert_eq!(dup.into_envelope("create_ticket", &gate).code.as_deref(), Some("DUPLICATE"));
//! # });
//! ```

use crate::envelope::Envelope;
use crate::error::ToolError;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// What identifies one operation: the tool's name and a digest of its identifying arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdempotencyKey {
    tool: String,
    digest: String,
}

impl IdempotencyKey {
    /// The key of a call to `tool` identified by the arguments named in `key_params`.
    ///
    /// An empty `key_params` means all arguments identify the call. A named argument that is
    /// absent counts as absent (distinct from `null`), so leaving it out is a different key.
    ///
    /// ```
    /// use tool_core::idempotency::IdempotencyKey;
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
            tool: tool.to_string(),
            digest: crate::audit::args_digest(&identifying),
        }
    }

    /// The key of a call to `tool` carrying the explicit idempotency key `key`.
    pub fn explicit(tool: &str, key: &str) -> Self {
        IdempotencyKey {
            tool: tool.to_string(),
            digest: format!("explicit:{key}"),
        }
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }
}

/// How a gated call's result reports success and the reference a duplicate should point at.
pub trait GateOutcome {
    /// Whether the operation completed successfully (only then are repeats duplicates).
    fn succeeded(&self) -> bool;
    /// The reference of the result (e.g. the record-store `ref`), if any.
    fn reference(&self) -> Option<String> {
        None
    }
}

impl GateOutcome for Envelope {
    fn succeeded(&self) -> bool {
        self.is_success()
    }
    fn reference(&self) -> Option<String> {
        self.reference.clone()
    }
}

impl<T, E> GateOutcome for Result<T, E> {
    fn succeeded(&self) -> bool {
        self.is_ok()
    }
}

/// A request that was not run because it repeats an operation that ran (or is running).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The operation id of the original request.
    pub original_operation_id: String,
    /// The reference of the original result, when it had one.
    pub reference: Option<String>,
}

impl Duplicate {
    /// The `refused` error (code `DUPLICATE`) the repeated call returns, naming the original.
    pub fn into_tool_error(self, tool: &str, gate: &IdempotencyGate) -> ToolError {
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
        ToolError::refused("DUPLICATE", message).with_details(details)
    }

    /// The envelope of [`Duplicate::into_tool_error`], with `ref` set to the original's reference.
    pub fn into_envelope(self, tool: &str, gate: &IdempotencyGate) -> Envelope {
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

/// The outcome of [`IdempotencyGate::run`].
#[derive(Debug)]
#[must_use = "a duplicate must be reported to the caller (Duplicate::into_envelope)"]
pub enum Gate<T> {
    /// This request ran; here is its result.
    Ran(T),
    /// This request repeats one that ran (or that was running and completed successfully); it
    /// was not run.
    Duplicate(Duplicate),
}

/// What waiters learn when the running request ends.
#[derive(Clone, Debug)]
enum Finish {
    Running,
    Succeeded(Duplicate),
    /// Failed, or dropped before completing: waiters try again.
    Retry,
}

#[derive(Debug)]
enum Entry {
    Running {
        rx: watch::Receiver<Finish>,
        /// Distinguishes this run from a later one under the same key.
        run: u64,
    },
    Done {
        dup: Duplicate,
        at: Instant,
    },
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
#[derive(Clone, Debug)]
pub struct IdempotencyGate {
    window: Duration,
    inner: Arc<Mutex<Inner>>,
}

/// Removes the running entry if the run ends without reporting (its future was dropped), so
/// waiters try again instead of waiting forever.
struct RunGuard<'g> {
    gate: &'g IdempotencyGate,
    key: Option<IdempotencyKey>,
    run: u64,
    tx: watch::Sender<Finish>,
}

impl RunGuard<'_> {
    fn finish(mut self, outcome: Finish, record: Option<Duplicate>) {
        if let Some(key) = self.key.take() {
            let mut inner = self.gate.lock();
            if matches!(inner.entries.get(&key), Some(Entry::Running { run, .. }) if *run == self.run)
            {
                match record {
                    Some(dup) => {
                        inner.entries.insert(
                            key,
                            Entry::Done {
                                dup,
                                at: Instant::now(),
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
            let mut inner = self.gate.lock();
            if matches!(inner.entries.get(&key), Some(Entry::Running { run, .. }) if *run == self.run)
            {
                inner.entries.remove(&key);
            }
            drop(inner);
            self.tx.send_replace(Finish::Retry);
        }
    }
}

enum Claim {
    Run(u64, watch::Sender<Finish>),
    Wait(watch::Receiver<Finish>),
    Duplicate(Duplicate),
}

impl IdempotencyGate {
    /// A gate treating repeats within `window` after completion as duplicates.
    pub fn new(window: Duration) -> Self {
        IdempotencyGate {
            window,
            inner: Arc::new(Mutex::new(Inner {
                purge_at: 1024,
                ..Inner::default()
            })),
        }
    }

    /// The window after completion during which repeats are duplicates.
    pub fn window(&self) -> Duration {
        self.window
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // No invariant can be broken half-way under this lock (each critical section is a single
        // map operation), so a poisoned lock is safe to keep using.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn claim(&self, key: &IdempotencyKey) -> Claim {
        let mut inner = self.lock();
        let now = Instant::now();
        if inner.entries.len() >= inner.purge_at {
            let window = self.window;
            inner.entries.retain(|_, e| match e {
                Entry::Running { .. } => true,
                Entry::Done { at, .. } => now.duration_since(*at) < window,
            });
            inner.purge_at = (inner.entries.len() * 2).max(1024);
        }
        match inner.entries.get(key) {
            Some(Entry::Running { rx, .. }) => return Claim::Wait(rx.clone()),
            Some(Entry::Done { dup, at }) if now.duration_since(*at) < self.window => {
                return Claim::Duplicate(dup.clone())
            }
            _ => {}
        }
        inner.next_run += 1;
        let run = inner.next_run;
        let (tx, rx) = watch::channel(Finish::Running);
        inner
            .entries
            .insert(key.clone(), Entry::Running { rx, run });
        Claim::Run(run, tx)
    }

    /// Runs `f` unless an identical request (same `key`) is running or completed successfully
    /// within the window.
    ///
    /// - No other request with `key`: `f` runs, and its result is returned as [`Gate::Ran`]. If it
    ///   succeeded ([`GateOutcome::succeeded`]), repeats within the window become duplicates of
    ///   `operation_id`.
    /// - A request with `key` is running: this one waits (without polling) for it to end. If it
    ///   succeeded, this one returns [`Gate::Duplicate`]; if it failed or was dropped, this one
    ///   tries again (and may become the one that runs).
    /// - A request with `key` succeeded less than the window ago: [`Gate::Duplicate`] at once.
    ///
    /// Cancel-safe: dropping the returned future while `f` runs releases the key.
    pub async fn run<F, Fut, T>(&self, key: IdempotencyKey, operation_id: &str, f: F) -> Gate<T>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
        T: GateOutcome,
    {
        loop {
            match self.claim(&key) {
                Claim::Duplicate(dup) => return Gate::Duplicate(dup),
                Claim::Wait(mut rx) => {
                    let finished = rx
                        .wait_for(|f| !matches!(f, Finish::Running))
                        .await
                        .map(|f| f.clone());
                    match finished {
                        Ok(Finish::Succeeded(dup)) => return Gate::Duplicate(dup),
                        // Failed, dropped, or the sender is gone: try to claim again.
                        _ => continue,
                    }
                }
                Claim::Run(run, tx) => {
                    let guard = RunGuard {
                        gate: self,
                        key: Some(key),
                        run,
                        tx,
                    };
                    let out = f().await;
                    if out.succeeded() {
                        let dup = Duplicate {
                            original_operation_id: operation_id.to_string(),
                            reference: out.reference(),
                        };
                        guard.finish(Finish::Succeeded(dup.clone()), Some(dup));
                    } else {
                        guard.finish(Finish::Retry, None);
                    }
                    return Gate::Ran(out);
                }
            }
        }
    }

    /// Forgets every completed operation, so repeats run again; requests running now are not
    /// affected. For administrative resets and tests.
    pub fn clear(&self) {
        self.lock()
            .entries
            .retain(|_, e| matches!(e, Entry::Running { .. }));
    }

    /// How many keys are tracked now (running, or completed and maybe not yet purged).
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether no key is tracked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
