//! Shared state: what the boundary must agree on when a service runs as several replicas (or
//! restarts) — idempotency claims with a lease, their outcomes, and kept results (the full
//! results cut to the output budget, the originals a duplicate points at).
//!
//! A [`StateStore`] is async and every step a promise rests on is one atomic operation of the
//! store:
//!
//! | step | what the store does atomically | who may do it |
//! |---|---|---|
//! | [`claim`](StateStore::claim) | a record within the window: answer it; a live lease: answer it; a lapsed lease of a run that had **started**: turn it into an *unknown* record and answer that; otherwise write a lease for the caller's token (already started when the request says so) | anyone |
//! | [`renew`](StateStore::renew) | push the lease's expiry out | the lease's holder |
//! | [`mark_started`](StateStore::mark_started) | note that the run began to take effect | the holder |
//! | [`finish`](StateStore::finish) | replace the lease by the outcome, kept for the window, and keep the value the outcome names (if any) | the holder |
//! | [`release`](StateStore::release) | delete the lease | the holder |
//! | [`keep`](StateStore::keep) / [`read`](StateStore::read) | store a value under a fresh reference (made by the caller with [`new_reference`]; an existing one is never replaced), with an expiry / read it back | anyone |
//! | [`load_record`](StateStore::load_record) / [`swap_record`](StateStore::swap_record) | read a mutable record (a [`task`]'s) with its version / replace it only if its version is still the one the writer read, with an expiry | anyone |
//!
//! A keyed write therefore pays two round trips to the store: its claim (written started when
//! no step between the claim and the run can refuse it) and its outcome (with the result it
//! keeps). A write that needs approval marks its start apart, once approved.
//!
//! The holder is named by the random token of its run; an operation by any other token changes
//! nothing and answers `false`. So a process that dies mid-run leaves a lease that lapses: if its
//! run had started, the next claim (on any replica) finds the key's outcome **unknown** for the
//! window, and nothing runs again unasked; if it had not started, the key is free again.
//!
//! Failure modes: every method answers [`BackendError`] when the store cannot be reached or
//! answered with something that is not a record of this crate (a foreign or malformed value is
//! an error, never a result). A claim that fails runs nothing (the call is `temporary_failure`,
//! `IDEMPOTENCY_UNAVAILABLE`). A `renew` or `finish` that fails is counted as a fault: the lease
//! then lapses, and a started run is answered `OUTCOME_UNKNOWN` by its repeats, the safe
//! reading. Values larger than [`MAX_KEPT_BYTES`] are not kept.
//!
//! [`MemoryStateStore`] is the single-process implementation; the backends of other crates
//! (`toolsmith-redis`, `toolsmith-postgres`; `toolsmith-sqlite` for the processes of one machine) share the
//! state between processes. Each is checked by the same conformance suite
//! (`toolsmith_core::state::conformance`, feature `testkit`).

pub use crate::reply::BoxFuture;
#[cfg(doc)]
use crate::store::new_reference;
use crate::store::{unix_ms, BackendError, StoredOutcome};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

/// The largest value (in bytes of compact JSON) a store is asked to keep; a larger one is not
/// kept (its `ref` is left out), so one huge result cannot fill a shared store.
pub const MAX_KEPT_BYTES: usize = 8 * 1024 * 1024;

/// A mutable record as [`StateStore::load_record`] found it: its value and the version that
/// names this state of it (a [`swap_record`](StateStore::swap_record) must name it to replace it).
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The version, at least 1; every replacement increases it.
    pub version: u64,
    /// The value.
    pub value: Value,
}

/// The error of a store that keeps no mutable records (the default of
/// [`StateStore::load_record`] and [`StateStore::swap_record`]).
fn records_unsupported() -> BackendError {
    BackendError::new(
        "this state store keeps no mutable records (StateStore::load_record and swap_record); \
         tasks need a store that does: MemoryStateStore, or the SQLite, Redis or PostgreSQL store",
    )
}

/// What a [`StateStore::claim`] asks for.
#[derive(Clone, Copy, Debug)]
pub struct ClaimRequest<'a> {
    /// The run's random token: it names the lease's holder.
    pub token: &'a str,
    /// The operation id of the call that claims.
    pub operation_id: &'a str,
    /// The request fingerprint of an explicit key, stored with the lease and the outcome.
    pub request: Option<&'a str>,
    /// How long the lease lives unless renewed.
    pub lease: Duration,
    /// How long an outcome is kept (for an unknown outcome found on a lapsed lease too).
    pub window: Duration,
    /// Write the lease already started, as if [`StateStore::mark_started`] followed at once:
    /// for a run that nothing can refuse between its claim and its start, which saves that
    /// round trip. A process that dies between the claim and the run then leaves the outcome
    /// unknown rather than the key free (the safe reading).
    pub started: bool,
}

/// A value that [`StateStore::finish`] keeps in the same atomic step as the outcome (the
/// result a duplicate points at, or the outcome of a kept error): both are written, or neither.
#[derive(Clone, Copy, Debug)]
pub struct KeptValue<'a> {
    /// A fresh reference, made by the caller with [`new_reference`] (the outcome's
    /// `reference` names it).
    pub reference: &'a str,
    /// The value.
    pub value: &'a Value,
    /// How long it is kept.
    pub ttl: Duration,
}

/// What a key holds, as [`StateStore::claim`] found it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimState {
    /// The lease is the caller's (newly written, or already its own token's): run.
    Claimed,
    /// Another run holds a live lease.
    Running {
        /// The operation id of the running call.
        operation_id: String,
        /// Its request fingerprint.
        request: Option<String>,
    },
    /// An outcome within the window: finished, or unknown (a run stopped before it reported,
    /// or whose holder's lease lapsed after it had started).
    Recorded(StoredOutcome),
}

/// The shared state of a toolbox's boundary (see the [module](self)): claims with leases, the
/// outcomes of keyed runs, and kept results. Replicas that share one store (and the keys that
/// bind cursors) answer as one process.
pub trait StateStore: Send + Sync {
    /// Claims `key` for `req.token`, atomically (the table of the [module](self)).
    ///
    /// # Errors
    /// A [`BackendError`] when the store could not be reached or read; nothing was claimed.
    fn claim<'a>(
        &'a self,
        key: &'a str,
        req: ClaimRequest<'a>,
    ) -> BoxFuture<'a, Result<ClaimState, BackendError>>;

    /// Pushes the expiry of `token`'s lease on `key` to `lease` from now. `false`: the lease is
    /// not `token`'s (it lapsed and was taken, or was finished).
    ///
    /// # Errors
    /// A [`BackendError`] when the store could not be reached.
    fn renew<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<bool, BackendError>>;

    /// Notes that `token`'s run on `key` began to take effect: from now on a lapsed lease
    /// means an unknown outcome. `false`: the lease is not `token`'s.
    ///
    /// # Errors
    /// A [`BackendError`] when the store could not be reached.
    fn mark_started<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>>;

    /// Replaces `token`'s lease on `key` by `outcome`, kept for `window`, and keeps `kept`
    /// (as [`keep`](StateStore::keep) would) in the same atomic step. `false`: the lease is not
    /// `token`'s, and nothing was written (nor kept).
    ///
    /// # Errors
    /// A [`BackendError`] when the store could not be reached, or `kept`'s reference is kept
    /// already; nothing was written.
    fn finish<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        outcome: &'a StoredOutcome,
        window: Duration,
        kept: Option<KeptValue<'a>>,
    ) -> BoxFuture<'a, Result<bool, BackendError>>;

    /// Deletes `token`'s lease on `key`, so the next claim runs. `false`: it was not `token`'s.
    ///
    /// # Errors
    /// A [`BackendError`] when the store could not be reached.
    fn release<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>>;

    /// Keeps `value` for `ttl` under `reference`, a fresh one the caller made with
    /// [`new_reference`] (so the caller can name it before the write lands: the pipeline cuts a
    /// result synchronously and writes what it keeps afterwards). A reference already kept is
    /// never replaced: that is an error.
    ///
    /// # Errors
    /// A [`BackendError`] when it was not kept.
    fn keep<'a>(
        &'a self,
        reference: &'a str,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), BackendError>>;

    /// The value kept under `reference`, if it is still kept.
    ///
    /// # Errors
    /// A [`BackendError`] when the store could not be read, or holds something under the
    /// reference that is not a kept value.
    fn read<'a>(&'a self, reference: &'a str)
        -> BoxFuture<'a, Result<Option<Value>, BackendError>>;

    /// The live record under `key` (records are apart from claims and kept values: the same
    /// string names different things in each), with its version; `None` when there is none or
    /// it expired.
    ///
    /// The default answers an error: a store written before records existed keeps none, and
    /// what needs them ([tasks](crate::state::task)) reports that clearly.
    ///
    /// # Errors
    /// A [`BackendError`] when the store could not be read, or holds something under `key`
    /// that is not a record of this crate.
    fn load_record<'a>(
        &'a self,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Record>, BackendError>> {
        let _ = key;
        Box::pin(std::future::ready(Err(records_unsupported())))
    }

    /// Replaces the record under `key` by `value`, kept for `ttl` from now, if its version is
    /// still `expected` (`0`: there is no live record), in one atomic step. Answers the new
    /// version, or `None` when the record is not at `expected` (another writer came first:
    /// load it again and decide again); then nothing was written.
    ///
    /// # Errors
    /// A [`BackendError`] when the store could not be reached, or `value` is larger than
    /// [`MAX_KEPT_BYTES`]; nothing was written.
    fn swap_record<'a>(
        &'a self,
        key: &'a str,
        expected: u64,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, BackendError>> {
        let _ = (key, expected, value, ttl);
        Box::pin(std::future::ready(Err(records_unsupported())))
    }
}

/// The error of a record larger than [`MAX_KEPT_BYTES`]; `None` when it fits. Every backend
/// checks it before it writes.
pub fn oversized_record(key: &str, value: &Value) -> Option<BackendError> {
    let len = crate::limits::json_len(value);
    (len > MAX_KEPT_BYTES).then(|| {
        BackendError::new(format!(
            "the record under {key} is {len} bytes, over the {MAX_KEPT_BYTES} a store keeps"
        ))
    })
}

/// The state of one process, in memory: what a toolbox uses when it is given no shared store.
/// At most `capacity` kept values (the oldest go first) and claims (expired ones are dropped
/// first; past that a claim is refused with a [`BackendError`]).
///
/// Uses `tokio::time::Instant`, so tests can move time with `tokio::time::pause()`.
#[derive(Debug)]
pub struct MemoryStateStore {
    capacity: usize,
    inner: Mutex<MemoryInner>,
}

#[derive(Debug, Default)]
struct MemoryInner {
    keys: HashMap<String, Slot>,
    values: HashMap<String, (Value, Instant)>,
    order: VecDeque<String>,
    records: HashMap<String, (Record, Instant)>,
}

#[derive(Debug, Clone)]
enum Slot {
    Lease {
        token: String,
        operation_id: String,
        request: Option<String>,
        started: bool,
        until: Instant,
    },
    Outcome {
        outcome: StoredOutcome,
        until: Instant,
    },
}

impl MemoryInner {
    /// Keeps `value` under the new `reference` until `until`, the oldest going first past
    /// `capacity`.
    fn insert_value(&mut self, reference: &str, value: &Value, until: Instant, capacity: usize) {
        self.values
            .insert(reference.to_string(), (value.clone(), until));
        self.order.push_back(reference.to_string());
        while self.order.len() > capacity {
            if let Some(old) = self.order.pop_front() {
                self.values.remove(&old);
            }
        }
    }
}

/// What `map` holds under `key` until a time still to come.
fn live<T: Clone>(map: &HashMap<String, (T, Instant)>, key: &str) -> Option<T> {
    let now = Instant::now();
    map.get(key)
        .filter(|(_, until)| *until > now)
        .map(|(v, _)| v.clone())
}

/// The error of a `keep` under a reference kept already.
fn already_kept(reference: &str) -> BackendError {
    BackendError::new(format!("a value is already kept under {reference}"))
}

impl Default for MemoryStateStore {
    fn default() -> Self {
        MemoryStateStore::new(crate::store::DEFAULT_RECORD_CAPACITY * 64)
    }
}

impl MemoryStateStore {
    /// A store holding at most `capacity` kept values and `capacity` keys (at least one each).
    pub fn new(capacity: usize) -> Self {
        MemoryStateStore {
            capacity: capacity.max(1),
            inner: Mutex::new(MemoryInner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoryInner> {
        // Each critical section is a few map operations that leave the maps consistent.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn claim_now(&self, key: &str, req: ClaimRequest<'_>) -> Result<ClaimState, BackendError> {
        let now = Instant::now();
        let mut inner = self.lock();
        if let Some(slot) = inner.keys.get(key).cloned() {
            match slot {
                Slot::Outcome { outcome, until } if until > now => {
                    return Ok(ClaimState::Recorded(outcome))
                }
                Slot::Lease {
                    token,
                    operation_id,
                    request,
                    until,
                    ..
                } if until > now => {
                    return Ok(if token == req.token {
                        ClaimState::Claimed
                    } else {
                        ClaimState::Running {
                            operation_id,
                            request,
                        }
                    });
                }
                Slot::Lease {
                    operation_id,
                    request,
                    started: true,
                    ..
                } => {
                    let outcome = StoredOutcome {
                        operation_id,
                        reference: None,
                        unknown: true,
                        request,
                        at_unix_ms: unix_ms(),
                    };
                    inner.keys.insert(
                        key.to_string(),
                        Slot::Outcome {
                            outcome: outcome.clone(),
                            until: now + req.window,
                        },
                    );
                    return Ok(ClaimState::Recorded(outcome));
                }
                // A lapsed lease of a run that never started, or an outcome past its window.
                _ => {}
            }
        }
        if inner.keys.len() >= self.capacity {
            inner.keys.retain(|_, s| match s {
                Slot::Lease { until, started, .. } => *until > now || *started,
                Slot::Outcome { until, .. } => *until > now,
            });
            if inner.keys.len() >= self.capacity {
                return Err(BackendError::new(format!(
                    "the in-memory state holds {} live keys, its capacity",
                    self.capacity
                )));
            }
        }
        inner.keys.insert(
            key.to_string(),
            Slot::Lease {
                token: req.token.to_string(),
                operation_id: req.operation_id.to_string(),
                request: req.request.map(str::to_string),
                started: req.started,
                until: now + req.lease,
            },
        );
        Ok(ClaimState::Claimed)
    }

    fn swap_record_now(
        &self,
        key: &str,
        expected: u64,
        value: &Value,
        ttl: Duration,
    ) -> Result<Option<u64>, BackendError> {
        if let Some(err) = oversized_record(key, value) {
            return Err(err);
        }
        let now = Instant::now();
        let mut inner = self.lock();
        let current = match inner.records.get(key) {
            Some((r, until)) if *until > now => r.version,
            _ => 0,
        };
        if current != expected {
            return Ok(None);
        }
        if current == 0 && inner.records.len() >= self.capacity {
            inner.records.retain(|_, (_, until)| *until > now);
            if inner.records.len() >= self.capacity {
                return Err(BackendError::new(format!(
                    "the in-memory state holds {} live records, its capacity",
                    self.capacity
                )));
            }
        }
        let version = expected + 1;
        inner.records.insert(
            key.to_string(),
            (
                Record {
                    version,
                    value: value.clone(),
                },
                now + ttl,
            ),
        );
        Ok(Some(version))
    }

    /// Applies `f` to `token`'s live lease on `key`; `false` when there is none.
    fn with_lease(&self, key: &str, token: &str, f: impl FnOnce(&mut MemoryInner)) -> bool {
        let now = Instant::now();
        let mut inner = self.lock();
        let held = matches!(
            inner.keys.get(key),
            Some(Slot::Lease { token: t, until, .. }) if t == token && *until > now
        );
        if held {
            f(&mut inner);
        }
        held
    }
}

impl StateStore for MemoryStateStore {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        req: ClaimRequest<'a>,
    ) -> BoxFuture<'a, Result<ClaimState, BackendError>> {
        Box::pin(std::future::ready(self.claim_now(key, req)))
    }

    fn renew<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        let held = self.with_lease(key, token, |inner| {
            if let Some(Slot::Lease { until, .. }) = inner.keys.get_mut(key) {
                *until = Instant::now() + lease;
            }
        });
        Box::pin(std::future::ready(Ok(held)))
    }

    fn mark_started<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        let held = self.with_lease(key, token, |inner| {
            if let Some(Slot::Lease { started, .. }) = inner.keys.get_mut(key) {
                *started = true;
            }
        });
        Box::pin(std::future::ready(Ok(held)))
    }

    fn finish<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        outcome: &'a StoredOutcome,
        window: Duration,
        kept: Option<KeptValue<'a>>,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        if let Some(k) = kept {
            if self.lock().values.contains_key(k.reference) {
                return Box::pin(std::future::ready(Err(already_kept(k.reference))));
            }
        }
        let held = self.with_lease(key, token, |inner| {
            let now = Instant::now();
            inner.keys.insert(
                key.to_string(),
                Slot::Outcome {
                    outcome: outcome.clone(),
                    until: now + window,
                },
            );
            if let Some(k) = kept {
                inner.insert_value(k.reference, k.value, now + k.ttl, self.capacity);
            }
        });
        Box::pin(std::future::ready(Ok(held)))
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        let held = self.with_lease(key, token, |inner| {
            inner.keys.remove(key);
        });
        Box::pin(std::future::ready(Ok(held)))
    }

    fn keep<'a>(
        &'a self,
        reference: &'a str,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        let mut inner = self.lock();
        if inner.values.contains_key(reference) {
            return Box::pin(std::future::ready(Err(already_kept(reference))));
        }
        inner.insert_value(reference, value, Instant::now() + ttl, self.capacity);
        Box::pin(std::future::ready(Ok(())))
    }

    fn read<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, BackendError>> {
        let value = live(&self.lock().values, reference);
        Box::pin(std::future::ready(Ok(value)))
    }

    fn load_record<'a>(
        &'a self,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Record>, BackendError>> {
        let record = live(&self.lock().records, key);
        Box::pin(std::future::ready(Ok(record)))
    }

    fn swap_record<'a>(
        &'a self,
        key: &'a str,
        expected: u64,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, BackendError>> {
        Box::pin(std::future::ready(
            self.swap_record_now(key, expected, value, ttl),
        ))
    }
}

#[cfg(any(test, feature = "testkit"))]
pub mod conformance;
pub mod task;

#[cfg(test)]
mod tests {
    use super::MemoryStateStore;

    #[tokio::test]
    async fn the_memory_store_passes_the_conformance_suite() {
        let store = MemoryStateStore::default();
        super::conformance::check(&store, &store).await;
    }

    #[tokio::test]
    async fn a_full_memory_store_refuses_a_claim_with_an_error() {
        use super::{ClaimRequest, StateStore};
        let store = MemoryStateStore::new(2);
        let req = |token| ClaimRequest {
            token,
            operation_id: "op",
            request: None,
            lease: std::time::Duration::from_secs(60),
            window: std::time::Duration::from_secs(60),
            started: false,
        };
        store.claim("a", req("t1")).await.unwrap();
        store.claim("b", req("t2")).await.unwrap();
        let err = store.claim("c", req("t3")).await.unwrap_err();
        assert!(err.message().contains("capacity"), "{err}");
    }
}
