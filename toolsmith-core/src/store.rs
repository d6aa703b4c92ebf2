//! The record store: where cut results, kept results of keyed writes and (in a durable store)
//! idempotency records are kept.

use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// An error a host backend (an audit sink, a record store) reports instead of panicking.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BackendError {
    message: String,
}

impl BackendError {
    /// An error with a message for the host (never shown to the model).
    pub fn new(message: impl Into<String>) -> Self {
        BackendError {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The idempotency record of one key as a durable [`RecordStore`] keeps it, so the repeats of a
/// request are answered after a restart exactly as before it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoredOutcome {
    /// The operation id of the request.
    pub operation_id: String,
    /// The record-store reference of its result, when it has one.
    pub reference: Option<String>,
    /// Whether its outcome is unknown (it started and did not report): repeats are refused as
    /// `OUTCOME_UNKNOWN` rather than answered as duplicates.
    pub unknown: bool,
    /// The request fingerprint of an explicit key ([`IdempotencyKey::with_request`](crate::idempotency::IdempotencyKey::with_request)).
    pub request: Option<String>,
    /// When it was recorded, in milliseconds since the Unix epoch (the window is counted from
    /// here, on the wall clock, since a restart loses the monotonic one).
    pub at_unix_ms: u64,
}

/// Where full results are kept when a result is cut, so the host (or a next page) can reach them,
/// and the results a refused repeat of a keyed write points at.
///
/// A store that can fail implements the `try_` methods; the toolbox calls those, counts each
/// error (and each panic) as a [`Fault`](crate::Fault) and answers the call all the same: the
/// kept result of a keyed write that could not be stored has no reference (its repeat is still a
/// `DUPLICATE`, without the original), a cut result that could not be stored keeps a `ref` and
/// cursor that lead nowhere, and a page that cannot be read is treated like an evicted one.
///
/// A durable store (one that survives a restart, such as the SQLite store of the `sqlite`
/// feature) also keeps the idempotency records of the toolbox's gate
/// ([`keeps_outcomes`](RecordStore::keeps_outcomes)), so a repeat of an approved write after a
/// restart is refused exactly as before it.
pub trait RecordStore: Send + Sync {
    /// Stores `value` and returns its reference.
    fn put(&self, value: Value) -> String;
    /// The value stored under `reference`, if it is still kept.
    fn get(&self, reference: &str) -> Option<Value>;

    /// Stores `value`, or says why it could not. The default calls [`put`](RecordStore::put).
    ///
    /// # Errors
    /// A [`BackendError`](BackendError) when the value was not kept.
    fn try_put(&self, value: Value) -> Result<String, BackendError> {
        Ok(self.put(value))
    }

    /// The value stored under `reference`, or why it could not be read. The default calls
    /// [`get`](RecordStore::get).
    ///
    /// # Errors
    /// A [`BackendError`](BackendError) when the store could not be read.
    fn try_get(&self, reference: &str) -> Result<Option<Value>, BackendError> {
        Ok(self.get(reference))
    }

    /// Whether this store keeps idempotency records (the `*_outcome` methods). Default `false`:
    /// the gate keeps them in memory only.
    fn keeps_outcomes(&self) -> bool {
        false
    }

    /// Keeps the idempotency record of `key` (an opaque id), replacing any earlier one.
    ///
    /// # Errors
    /// A [`BackendError`](BackendError) when it was not kept.
    fn put_outcome(&self, key: &str, outcome: &StoredOutcome) -> Result<(), BackendError> {
        let _ = (key, outcome);
        Ok(())
    }

    /// The idempotency record of `key`, if one is kept.
    ///
    /// # Errors
    /// A [`BackendError`](BackendError) when the store could not be read.
    fn get_outcome(&self, key: &str) -> Result<Option<StoredOutcome>, BackendError> {
        let _ = key;
        Ok(None)
    }

    /// Forgets the idempotency record of `key`.
    ///
    /// # Errors
    /// A [`BackendError`](BackendError) when it could not be removed.
    fn remove_outcome(&self, key: &str) -> Result<(), BackendError> {
        let _ = key;
        Ok(())
    }
}

/// An in-memory [`RecordStore`] keeping the most recent `capacity` records; the oldest is evicted.
///
/// References look like `rec_<32 hex>`: 128 random bits each, so nobody can guess or step
/// through another caller's references.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::budget::{MemoryRecordStore, RecordStore};
/// let store = MemoryRecordStore::new(2);
/// let a = store.put(serde_json::json!(1));
/// let b = store.put(serde_json::json!(2));
/// let _c = store.put(serde_json::json!(3));
/// assert_eq!(store.get(&a), None); // evicted
/// assert_eq!(store.get(&b), Some(serde_json::json!(2)));
/// ```
#[derive(Debug)]
pub struct MemoryRecordStore {
    capacity: usize,
    inner: Mutex<StoreInner>,
}

#[derive(Debug, Default)]
struct StoreInner {
    order: VecDeque<String>,
    records: HashMap<String, Value>,
}

/// The default number of records a [`MemoryRecordStore`] keeps.
pub(crate) const DEFAULT_RECORD_CAPACITY: usize = 256;

impl Default for MemoryRecordStore {
    fn default() -> Self {
        MemoryRecordStore::new(DEFAULT_RECORD_CAPACITY)
    }
}

impl MemoryRecordStore {
    /// A store keeping at most `capacity` records (at least one).
    pub fn new(capacity: usize) -> Self {
        MemoryRecordStore {
            capacity: capacity.max(1),
            inner: Mutex::new(StoreInner::default()),
        }
    }

    /// How many records are kept now.
    pub fn len(&self) -> usize {
        self.lock().records.len()
    }

    /// Whether no record is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, StoreInner> {
        // A panic while holding the lock cannot leave the map half-updated in a way that
        // matters here; keep serving.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl RecordStore for MemoryRecordStore {
    fn put(&self, value: Value) -> String {
        let reference = new_reference();
        let mut inner = self.lock();
        inner.order.push_back(reference.clone());
        inner.records.insert(reference.clone(), value);
        while inner.order.len() > self.capacity {
            if let Some(old) = inner.order.pop_front() {
                inner.records.remove(&old);
            }
        }
        reference
    }

    fn get(&self, reference: &str) -> Option<Value> {
        self.lock().records.get(reference).cloned()
    }
}

/// A fresh record reference: `rec_` and 128 random bits in hex, from the operating system's
/// random source. Every store that makes its own references (this crate's, a durable backend's)
/// makes them this way, so a reference cannot be guessed from another.
pub fn new_reference() -> String {
    format!("rec_{}", crate::secret::random_hex(16))
}

/// Milliseconds since the Unix epoch on the wall clock (what outcomes are stamped with: a
/// restart, or another replica, has no monotonic clock in common with this process).
pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
