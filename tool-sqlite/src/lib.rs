//! A durable [`RecordStore`] on SQLite for toolsmith (the facade's feature `sqlite`; SQLite is
//! compiled in, no system library is needed).
//!
//! It keeps the full results cut to the budget (so their `ref`s and cursors work after a
//! restart) and the idempotency records of the toolbox's gate: a new toolbox on the same file
//! answers the repeat of an approved write as the old one did — a `DUPLICATE` naming the
//! original operation and its result, or `OUTCOME_UNKNOWN` if the write had started and never
//! reported (the process died while it ran). Writes are committed before the call answers
//! (`synchronous = FULL`, write-ahead log).
//!
//! ```
//! use tool_core::RecordStore;
//! use tool_sqlite::SqliteRecordStore;
//! let dir = std::env::temp_dir().join(format!("toolsmith-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("records.db");
//! let reference = SqliteRecordStore::open(&path).unwrap().put(serde_json::json!({"id": 7}));
//! let reopened = SqliteRecordStore::open(&path).unwrap();
//! assert_eq!(reopened.get(&reference), Some(serde_json::json!({"id": 7})));
//! # drop(reopened); let _ = std::fs::remove_dir_all(&dir);
//! ```

#![deny(unreachable_pub)]
#![warn(missing_docs)]

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use tool_core::{new_reference, BackendError, RecordStore, StoredOutcome};

/// How many results a [`SqliteRecordStore`] keeps unless told otherwise; the oldest go first.
pub const DEFAULT_SQLITE_CAPACITY: u64 = 10_000;

/// A [`RecordStore`] in one SQLite file, durable across restarts (see the [module](self)).
///
/// References are `rec_<32 hex>` (128 random bits), as with the in-memory store. Several
/// toolboxes (in one process or several) may share a file; SQLite serializes their writes.
pub struct SqliteRecordStore {
    conn: Mutex<Connection>,
    capacity: u64,
}

impl std::fmt::Debug for SqliteRecordStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteRecordStore")
            .field("capacity", &self.capacity)
            .finish()
    }
}

/// Why a [`SqliteRecordStore`] could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("could not open the SQLite record store {path}: {source}")]
#[non_exhaustive]
pub struct OpenError {
    path: String,
    #[source]
    source: rusqlite::Error,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    reference TEXT NOT NULL UNIQUE,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS outcomes (
    key TEXT PRIMARY KEY,
    operation_id TEXT NOT NULL,
    reference TEXT,
    unknown INTEGER NOT NULL,
    request TEXT,
    at_unix_ms INTEGER NOT NULL
);
";

impl SqliteRecordStore {
    /// Opens (or creates) the store in `path`, keeping [`DEFAULT_SQLITE_CAPACITY`] results.
    ///
    /// # Errors
    /// [`OpenError`] when the file cannot be opened or is not a database this store can use.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, OpenError> {
        let path = path.as_ref();
        let fail = |source| OpenError {
            path: path.display().to_string(),
            source,
        };
        let conn = Connection::open(path).map_err(fail)?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(fail)?;
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
            .map_err(fail)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(fail)?;
        conn.execute_batch(SCHEMA).map_err(fail)?;
        Ok(SqliteRecordStore {
            conn: Mutex::new(conn),
            capacity: DEFAULT_SQLITE_CAPACITY,
        })
    }

    /// Keeps at most `capacity` results (at least one); the oldest are removed first.
    /// Idempotency records are not counted: they are removed when their window has passed and a
    /// repeat asks for them.
    #[must_use]
    pub fn with_capacity(mut self, capacity: u64) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A connection is left consistent by SQLite itself whatever panicked while it was held.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn backend(e: impl std::fmt::Display) -> BackendError {
    BackendError::new(format!("SQLite: {e}"))
}

impl RecordStore for SqliteRecordStore {
    fn put(&self, value: Value) -> String {
        self.try_put(value).unwrap_or_else(|_| new_reference())
    }

    fn get(&self, reference: &str) -> Option<Value> {
        self.try_get(reference).ok().flatten()
    }

    fn try_put(&self, value: Value) -> Result<String, BackendError> {
        let reference = new_reference();
        let text = serde_json::to_string(&value).map_err(backend)?;
        let conn = self.lock();
        conn.execute(
            "INSERT INTO records (reference, value) VALUES (?1, ?2)",
            params![reference, text],
        )
        .map_err(backend)?;
        let last = conn.last_insert_rowid();
        let keep_from = last.saturating_sub(i64::try_from(self.capacity).unwrap_or(i64::MAX));
        if keep_from > 0 {
            conn.execute("DELETE FROM records WHERE id <= ?1", params![keep_from])
                .map_err(backend)?;
        }
        Ok(reference)
    }

    fn try_get(&self, reference: &str) -> Result<Option<Value>, BackendError> {
        let text: Option<String> = self
            .lock()
            .query_row(
                "SELECT value FROM records WHERE reference = ?1",
                params![reference],
                |row| row.get(0),
            )
            .optional()
            .map_err(backend)?;
        text.map(|t| serde_json::from_str(&t).map_err(backend))
            .transpose()
    }

    fn keeps_outcomes(&self) -> bool {
        true
    }

    fn put_outcome(&self, key: &str, outcome: &StoredOutcome) -> Result<(), BackendError> {
        self.lock()
            .execute(
                "INSERT OR REPLACE INTO outcomes \
                 (key, operation_id, reference, unknown, request, at_unix_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    key,
                    outcome.operation_id,
                    outcome.reference,
                    outcome.unknown,
                    outcome.request,
                    i64::try_from(outcome.at_unix_ms).unwrap_or(i64::MAX),
                ],
            )
            .map(|_| ())
            .map_err(backend)
    }

    fn get_outcome(&self, key: &str) -> Result<Option<StoredOutcome>, BackendError> {
        self.lock()
            .query_row(
                "SELECT operation_id, reference, unknown, request, at_unix_ms \
                 FROM outcomes WHERE key = ?1",
                params![key],
                |row| {
                    Ok(StoredOutcome {
                        operation_id: row.get(0)?,
                        reference: row.get(1)?,
                        unknown: row.get(2)?,
                        request: row.get(3)?,
                        at_unix_ms: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
                    })
                },
            )
            .optional()
            .map_err(backend)
    }

    fn remove_outcome(&self, key: &str) -> Result<(), BackendError> {
        self.lock()
            .execute("DELETE FROM outcomes WHERE key = ?1", params![key])
            .map(|_| ())
            .map_err(backend)
    }
}
