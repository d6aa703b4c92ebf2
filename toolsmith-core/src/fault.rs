//! Faults of the host's own parts during a call: an audit sink or a record store that fails, an
//! approver that panics. The call still answers with an envelope; the fault is never dropped
//! silently: it is counted ([`Toolbox::faults`](crate::Toolbox::faults)) and passed to the
//! callback the host sets with [`ToolboxBuilder::on_fault`](crate::ToolboxBuilder::on_fault).
//!
//! The overview is in the docs of [`Fault`], where it is rendered.

use crate::state::{StateStore, MAX_KEPT_BYTES};
use crate::store::{RecordStore, StoredOutcome};
use crate::unwind::CatchUnwind;
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub use crate::store::BackendError;

/// Which part of the host failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FaultKind {
    /// The audit sink returned an error or panicked: the record was not kept.
    AuditSink,
    /// The record store returned an error or panicked: a result, a page or an idempotency
    /// record was not kept or could not be read.
    RecordStore,
    /// The approver panicked: the call was not run (`failed`, code `APPROVER_FAILED`).
    Approver,
}

/// One fault, as the [`on_fault`](crate::ToolboxBuilder::on_fault) callback receives it.
///
/// # Overview
///
/// Faults of the host's own parts during a call: an audit sink or a record store that fails, an
/// approver that panics. The call still answers with an envelope; the fault is never dropped
/// silently: it is counted ([`Toolbox::faults`](crate::Toolbox::faults)) and passed to the
/// callback the host sets with [`ToolboxBuilder::on_fault`](crate::ToolboxBuilder::on_fault).
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use std::sync::{Arc, Mutex};
/// use toolsmith::audit::{AuditRecord, AuditSink};
/// use toolsmith::fault::{BackendError, FaultKind};
/// use toolsmith::{Effects, Tool, Toolbox};
///
/// /// A sink whose disk is full.
/// struct FullDisk;
/// impl AuditSink for FullDisk {
///     fn record(&self, _rec: &AuditRecord) {}
///     fn try_record(&self, _rec: &AuditRecord) -> Result<(), BackendError> {
///         Err(BackendError::new("no space left on device"))
///     }
/// }
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&seen);
/// let toolbox = Toolbox::builder()
///     .audit(FullDisk)
///     .on_fault(move |f| log.lock().unwrap().push(f.kind))
///     .build()
///     .unwrap();
/// # let _ = Effects::default(); let _: Option<Tool> = None;
/// let env = tokio::runtime::Builder::new_current_thread().build().unwrap()
///     .block_on(toolbox.call("no_such_tool", "{}"));
/// assert_eq!(env.code.as_deref(), Some("UNKNOWN_TOOL")); // the call still answers
/// assert_eq!(toolbox.faults().audit_sink, 1);
/// assert_eq!(*seen.lock().unwrap(), vec![FaultKind::AuditSink]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fault {
    /// Which part failed.
    pub kind: FaultKind,
    /// The tool concerned, when known (a record-store fault does not say which call it served).
    pub tool: Option<String>,
    /// The operation id of the call concerned, when known.
    pub operation_id: Option<String>,
    /// What failed, for the host: the backend's error or the panic's text.
    pub detail: String,
}

/// How many faults of each kind a toolbox has seen since it was built
/// ([`Toolbox::faults`](crate::Toolbox::faults)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FaultCounts {
    /// Audit records that could not be kept.
    pub audit_sink: u64,
    /// Record-store operations that failed.
    pub record_store: u64,
    /// Approver panics.
    pub approver: u64,
}

impl FaultCounts {
    /// The sum of all kinds.
    pub fn total(&self) -> u64 {
        self.audit_sink + self.record_store + self.approver
    }
}

/// The callback a host sets to hear of every fault.
pub type FaultHandler = Arc<dyn Fn(&Fault) + Send + Sync>;

/// The counters and the callback of one toolbox.
#[derive(Default)]
pub(crate) struct Faults {
    audit_sink: AtomicU64,
    record_store: AtomicU64,
    approver: AtomicU64,
    handler: Option<FaultHandler>,
}

impl Faults {
    pub(crate) fn new(handler: Option<FaultHandler>) -> Self {
        Faults {
            handler,
            ..Faults::default()
        }
    }

    /// Counts `fault` and passes it to the callback (a panicking callback is contained).
    pub(crate) fn report(&self, fault: Fault) {
        let counter = match fault.kind {
            FaultKind::AuditSink => &self.audit_sink,
            FaultKind::RecordStore => &self.record_store,
            FaultKind::Approver => &self.approver,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        if let Some(handler) = &self.handler {
            let _ = catch_unwind(AssertUnwindSafe(|| handler(&fault)));
        }
    }

    pub(crate) fn counts(&self) -> FaultCounts {
        FaultCounts {
            audit_sink: self.audit_sink.load(Ordering::Relaxed),
            record_store: self.record_store.load(Ordering::Relaxed),
            approver: self.approver.load(Ordering::Relaxed),
        }
    }
}

/// Runs a backend operation, turning a panic into an error.
pub(crate) fn contained<T>(f: impl FnOnce() -> Result<T, BackendError>) -> Result<T, BackendError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(BackendError::new(format!(
            "panic: {}",
            crate::unwind::panic_text(payload)
        ))),
    }
}

/// The host's record store as the toolbox uses it: every operation goes through the store's
/// `try_` methods with panics contained, and every failure is counted and reported. A result
/// that could not be kept gets a reference nothing is stored under (so its next page is treated
/// like an evicted one); a read that fails finds nothing.
pub(crate) struct GuardedStore {
    inner: Arc<dyn RecordStore>,
    faults: Arc<Faults>,
}

impl GuardedStore {
    pub(crate) fn new(inner: Arc<dyn RecordStore>, faults: Arc<Faults>) -> Self {
        GuardedStore { inner, faults }
    }

    fn check<T>(&self, what: &str, r: Result<T, BackendError>) -> Result<T, BackendError> {
        r.map_err(|e| {
            self.faults.report(Fault {
                kind: FaultKind::RecordStore,
                tool: None,
                operation_id: None,
                detail: format!("{what}: {e}"),
            });
            e
        })
    }

    /// The value kept under `reference`, or the store's error (reported).
    pub(crate) fn read(&self, reference: &str) -> Result<Option<Value>, BackendError> {
        let r = contained(|| self.inner.try_get(reference));
        self.check("could not read a kept result", r)
    }

    /// Keeps `value`, or `None` (reported) when the store failed.
    pub(crate) fn keep(&self, value: Value) -> Option<String> {
        let r = contained(|| self.inner.try_put(value));
        self.check("could not keep a result", r).ok()
    }
}

impl RecordStore for GuardedStore {
    fn put(&self, value: Value) -> String {
        self.keep(value).unwrap_or_else(crate::store::new_reference)
    }

    fn get(&self, reference: &str) -> Option<Value> {
        self.read(reference).ok().flatten()
    }

    fn keeps_outcomes(&self) -> bool {
        contained(|| Ok(self.inner.keeps_outcomes())).unwrap_or(false)
    }

    fn put_outcome(&self, key: &str, outcome: &StoredOutcome) -> Result<(), BackendError> {
        let r = contained(|| self.inner.put_outcome(key, outcome));
        self.check("could not keep an idempotency record", r)
    }

    fn get_outcome(&self, key: &str) -> Result<Option<StoredOutcome>, BackendError> {
        let r = contained(|| self.inner.get_outcome(key));
        self.check("could not read an idempotency record", r)
    }

    fn remove_outcome(&self, key: &str) -> Result<(), BackendError> {
        let r = contained(|| self.inner.remove_outcome(key));
        self.check("could not remove an idempotency record", r)
    }
}

/// The shared state's kept values as the toolbox uses them ([`StateStore::keep`] and
/// [`StateStore::read`]): kept for `ttl`, every failure (a panic included) counted as a
/// record-store fault, and values over [`MAX_KEPT_BYTES`] not kept. As with [`GuardedStore`], a
/// value that could not be kept leaves a reference that leads nowhere (its next page is treated
/// like an evicted one), and a read that fails finds nothing.
pub(crate) struct GuardedState {
    inner: Arc<dyn StateStore>,
    faults: Arc<Faults>,
    ttl: std::time::Duration,
}

impl GuardedState {
    pub(crate) fn new(
        inner: Arc<dyn StateStore>,
        faults: Arc<Faults>,
        ttl: std::time::Duration,
    ) -> Self {
        GuardedState { inner, faults, ttl }
    }

    fn report(&self, what: &str, e: &BackendError) {
        self.faults.report(Fault {
            kind: FaultKind::RecordStore,
            tool: None,
            operation_id: None,
            detail: format!("{what}: {e}"),
        });
    }

    /// Keeps `value` under `reference` (made with [`new_reference`](crate::new_reference)); `false` (reported) when
    /// it was not kept.
    pub(crate) async fn keep_as(&self, reference: &str, value: &Value) -> bool {
        if !self.admits(value) {
            return false;
        }
        let kept = CatchUnwind(self.inner.keep(reference, value, self.ttl)).await;
        match kept.unwrap_or_else(|p| Err(panicked(p))) {
            Ok(()) => true,
            Err(e) => {
                self.report("could not keep a result", &e);
                false
            }
        }
    }

    /// Whether `value` is within [`MAX_KEPT_BYTES`] (one that is not is reported, and is not
    /// kept).
    pub(crate) fn admits(&self, value: &Value) -> bool {
        let size = crate::limits::json_len(value);
        if size > MAX_KEPT_BYTES {
            self.report(
                "did not keep a result",
                &BackendError::new(format!(
                    "it is {size} bytes of JSON, over the {MAX_KEPT_BYTES} a shared store keeps"
                )),
            );
            return false;
        }
        true
    }

    /// How long kept values live.
    pub(crate) fn ttl(&self) -> std::time::Duration {
        self.ttl
    }

    /// The value kept under `reference`; `None` when it is not kept or cannot be read
    /// (reported).
    pub(crate) async fn read(&self, reference: &str) -> Option<Value> {
        self.try_read(reference).await.ok().flatten()
    }

    /// The value kept under `reference`, or the store's error (reported).
    pub(crate) async fn try_read(&self, reference: &str) -> Result<Option<Value>, BackendError> {
        let read = CatchUnwind(self.inner.read(reference)).await;
        read.unwrap_or_else(|p| Err(panicked(p))).inspect_err(|e| {
            self.report("could not read a kept result", e);
        })
    }
}

/// The error of a backend that panicked (`text`: the panic's).
fn panicked(text: String) -> BackendError {
    BackendError::new(format!("panic: {text}"))
}
