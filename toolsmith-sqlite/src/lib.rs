//! A durable [`RecordStore`] and a shared [`StateStore`] on SQLite for toolsmith (the facade's
//! feature `sqlite`; SQLite is compiled in, no system library is needed).
//!
//! As a [`RecordStore`] it keeps the full results cut to the budget (so their `ref`s and cursors
//! work after a restart) and the idempotency records of the toolbox's gate: a new toolbox on the
//! same file answers the repeat of an approved write as the old one did — a `DUPLICATE` naming
//! the original operation and its result, or `OUTCOME_UNKNOWN` if the write had started and
//! never reported (the process died while it ran). Writes are committed before the call answers
//! (`synchronous = FULL`, write-ahead log).
//!
//! ```
//! use toolsmith_core::RecordStore;
//! use toolsmith_sqlite::SqliteRecordStore;
//! let dir = std::env::temp_dir().join(format!("toolsmith-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("records.db");
//! let reference = SqliteRecordStore::open(&path).unwrap().put(serde_json::json!({"id": 7}));
//! let reopened = SqliteRecordStore::open(&path).unwrap();
//! assert_eq!(reopened.get(&reference), Some(serde_json::json!({"id": 7})));
//! # drop(reopened); let _ = std::fs::remove_dir_all(&dir);
//! ```
//!
//! # A state store for the processes of one machine
//!
//! It is a [`StateStore`] too (`Toolbox::builder().state_store(Arc::new(store))`): the
//! processes (or toolboxes) that open the same file share idempotency claims with their leases,
//! their outcomes, kept results and versioned records, as the replicas of a service do on Redis
//! or PostgreSQL. A claim made by one process is `IN_PROGRESS` for the others, its outcome
//! answers their repeats, and a process that dies mid-run leaves the write's outcome unknown.
//! SQLite shares a file between the processes of **one machine** (its locks do not work over
//! network file systems): for replicas on several machines use `toolsmith-redis` or
//! `toolsmith-postgres`.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::time::Duration;
//! use toolsmith_core::state::{ClaimRequest, ClaimState, StateStore};
//! use toolsmith_sqlite::SqliteRecordStore;
//! let dir = std::env::temp_dir().join(format!("toolsmith-doc-state-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("state.db");
//! // Two handles on one file, as two processes hold them.
//! let (a, b) = (SqliteRecordStore::open(&path).unwrap(), SqliteRecordStore::open(&path).unwrap());
//! let req = |token| ClaimRequest {
//!     token,
//!     operation_id: "op_1",
//!     request: None,
//!     lease: Duration::from_secs(30),
//!     window: Duration::from_secs(3600),
//!     started: false,
//! };
//! assert_eq!(a.claim("orders:42", req("t1")).await.unwrap(), ClaimState::Claimed);
//! assert!(matches!(b.claim("orders:42", req("t2")).await.unwrap(), ClaimState::Running { .. }));
//! # drop((a, b)); let _ = std::fs::remove_dir_all(&dir);
//! # });
//! ```
//!
//! ## Tables
//!
//! [`open`](SqliteRecordStore::open) creates, when they are absent, beside the record store's
//! `records` and `outcomes`:
//!
//! ```sql
//! CREATE TABLE IF NOT EXISTS state_claims (
//!     key           TEXT PRIMARY KEY,
//!     token         TEXT,              -- the lease holder's token; NULL once it holds an outcome
//!     operation_id  TEXT NOT NULL,
//!     request       TEXT,              -- the request fingerprint of an explicit key
//!     started       INTEGER NOT NULL,  -- 1 once the run began to take effect
//!     outcome       TEXT,              -- the StoredOutcome as JSON; NULL while the key is leased
//!     expires_at_ms INTEGER NOT NULL   -- the lease's expiry, or the end of the outcome's window
//! ) STRICT;
//! CREATE TABLE IF NOT EXISTS state_kept (
//!     reference     TEXT PRIMARY KEY,  -- rec_<32 hex>
//!     value         TEXT NOT NULL,     -- JSON, in its key order
//!     expires_at_ms INTEGER NOT NULL
//! ) STRICT;
//! CREATE TABLE IF NOT EXISTS state_records (
//!     key           TEXT PRIMARY KEY,  -- apart from state_claims' keys: one string may name both
//!     version       INTEGER NOT NULL,  -- from 1; each swap writes the expected version plus 1
//!     value         TEXT NOT NULL,     -- JSON, in its key order
//!     expires_at_ms INTEGER NOT NULL   -- past it the record is absent (version 0)
//! ) STRICT;
//! ```
//!
//! ## Semantics
//!
//! Times are milliseconds since the Unix epoch on **the wall clock of the process that makes the
//! call** (Rust's `SystemTime`, passed to the SQL as a parameter): the processes that share a
//! file run on one machine and read the same clock, so they agree on when a lease lapses. (A
//! wall clock set back lengthens the leases and windows in force by as much; set forward, it
//! shortens them.)
//!
//! Each step of the [`StateStore`] table is atomic across processes. A claim reads the key's row
//! and writes its answer in one `BEGIN IMMEDIATE` transaction, which takes the file's write lock
//! before it reads: of any number of concurrent claims, in one process or several, exactly one
//! is granted. `renew`, `mark_started` and `release` are one `UPDATE`/`DELETE ... WHERE key = ?
//! AND token = ?` on a lease that has not lapsed; `finish` is that `UPDATE`, the insert of the
//! value it keeps and a purge in one immediate transaction, `keep` an insert and a purge.
//! [`swap_record`](StateStore::swap_record) reads the key's record and, only when it is at the
//! expected version (a live row's version, or 0 for no row or an expired one), writes the value
//! with the expected version plus 1, in one immediate transaction (with a purge when it creates
//! the record); [`load_record`](StateStore::load_record) is one `SELECT` of the row that has not
//! expired. A value over [`MAX_KEPT_BYTES`](toolsmith_core::state::MAX_KEPT_BYTES) is refused
//! before the transaction begins.
//!
//! A writer that finds the file locked by another waits for it up to the busy timeout
//! ([`DEFAULT_BUSY_TIMEOUT`], or [`SqliteRecordStore::with_busy_timeout`]); past it the call
//! answers a [`BackendError`] naming the file. A row this crate cannot read (an outcome that is
//! not a toolsmith outcome, a row with neither lease nor outcome, a kept value or record that is
//! not JSON, a record whose version is below 1) is a [`BackendError`] naming the table and the
//! key, never a result.
//!
//! The SQLite work of each async method runs on tokio's blocking threads (`spawn_blocking`): it
//! may wait for another process's write lock up to the busy timeout and for the disk (`fsync`),
//! which must not hold a runtime's worker. Called outside a tokio runtime, it runs inline.
//!
//! ## Housekeeping
//!
//! SQLite has no expiry of its own. Each [`keep`](StateStore::keep) deletes up to 100 kept values
//! past their expiry; each successful [`finish`](StateStore::finish) deletes up to 100 keys whose
//! outcome window has ended or whose unstarted lease lapsed; each
//! [`swap_record`](StateStore::swap_record) that creates a record deletes up to 100 records past
//! their expiry. A lapsed lease of a run that had started stays until the key is claimed again
//! (it is then answered as an unknown outcome for the window).

#![deny(unreachable_pub)]
#![deny(missing_docs)]

use rusqlite::{params, Connection, ErrorCode, OptionalExtension, TransactionBehavior};
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use toolsmith_core::state::{
    oversized_record, BoxFuture, ClaimRequest, ClaimState, KeptValue, Record, StateStore,
};
use toolsmith_core::{new_reference, BackendError, RecordStore, StoredOutcome};

/// How many results a [`SqliteRecordStore`] keeps unless told otherwise; the oldest go first.
pub const DEFAULT_SQLITE_CAPACITY: u64 = 10_000;

/// How long a write waits for another connection's (or process's) write lock on the file before
/// it fails, unless told otherwise.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How many expired rows one `keep`, `finish` or creating `swap_record` deletes at most.
const PURGE_BATCH: i64 = 100;
/// The longest lease, window or expiry the store writes (longer ones are cut to it), so the
/// arithmetic on times stays far within `i64`: 100 years, in milliseconds.
const MAX_MS: i64 = 100 * 365 * 24 * 3600 * 1000;

/// A [`RecordStore`] and a [`StateStore`] in one SQLite file, durable across restarts (see the
/// [module](self)).
///
/// References are `rec_<32 hex>` (128 random bits), as with the in-memory store. Several
/// toolboxes (in one process or several on one machine) may share a file; SQLite serializes
/// their writes.
pub struct SqliteRecordStore {
    inner: Arc<Inner>,
    capacity: u64,
}

/// The connection and the file's name, shared with the blocking tasks of the async methods.
struct Inner {
    conn: Mutex<Connection>,
    /// The file, for messages.
    path: String,
    /// The busy timeout in force, for messages.
    busy_timeout: Mutex<Duration>,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A connection is left consistent by SQLite itself whatever panicked while it was held
        // (an open rusqlite `Transaction` rolls back when dropped).
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// An error of `step` on this file, saying what to check.
    fn error(&self, step: &str, e: &rusqlite::Error) -> BackendError {
        let code = e.sqlite_error_code();
        if matches!(
            code,
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
        ) {
            let waited = *self.busy_timeout.lock().unwrap_or_else(|p| p.into_inner());
            return BackendError::new(format!(
                "SQLite state store {}: {step}: the file stayed locked by another writer past \
                 the busy timeout of {} ms ({e})",
                self.path,
                waited.as_millis()
            ));
        }
        BackendError::new(format!("SQLite state store {}: {step}: {e}", self.path))
    }

    /// A row of `table` under `key` that is not this crate's.
    fn foreign(&self, table: &str, key: &str, why: impl std::fmt::Display) -> BackendError {
        BackendError::new(format!(
            "SQLite state store {}: the row of {key:?} in {table} is not a toolsmith record: {why}",
            self.path
        ))
    }
}

impl std::fmt::Debug for SqliteRecordStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteRecordStore")
            .field("path", &self.inner.path)
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
CREATE TABLE IF NOT EXISTS state_claims (
    key TEXT PRIMARY KEY,
    token TEXT,
    operation_id TEXT NOT NULL,
    request TEXT,
    started INTEGER NOT NULL,
    outcome TEXT,
    expires_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS state_claims_expires ON state_claims (expires_at_ms);
CREATE TABLE IF NOT EXISTS state_kept (
    reference TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS state_kept_expires ON state_kept (expires_at_ms);
CREATE TABLE IF NOT EXISTS state_records (
    key TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    value TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS state_records_expires ON state_records (expires_at_ms);
";

/// The file's journal mode, durability and tables; the tables in one immediate transaction,
/// so a concurrent opener waits for them rather than upgrading a read lock.
fn set_up(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute_batch(SCHEMA)?;
    tx.commit()
}

/// Whether `e` is SQLite's "database is busy / locked".
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

impl SqliteRecordStore {
    /// Opens (or creates) the store in `path`, keeping [`DEFAULT_SQLITE_CAPACITY`] results and
    /// waiting [`DEFAULT_BUSY_TIMEOUT`] for another writer's lock.
    ///
    /// # Errors
    /// [`OpenError`] when the file cannot be opened or is not a database this store can use.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, OpenError> {
        let path = path.as_ref();
        let fail = |source| OpenError {
            path: path.display().to_string(),
            source,
        };
        let mut conn = Connection::open(path).map_err(fail)?;
        conn.busy_timeout(DEFAULT_BUSY_TIMEOUT).map_err(fail)?;
        // Several processes opening a new file at once contend for the switch to WAL and the
        // schema; SQLite answers some of those lock upgrades with SQLITE_BUSY at once (to avoid
        // a deadlock) rather than through the busy handler, so the setup is tried again, for
        // as long as the busy timeout.
        let started = std::time::Instant::now();
        loop {
            match set_up(&mut conn) {
                Ok(()) => break,
                Err(e) if is_busy(&e) && started.elapsed() < DEFAULT_BUSY_TIMEOUT => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(fail(e)),
            }
        }
        Ok(SqliteRecordStore {
            inner: Arc::new(Inner {
                conn: Mutex::new(conn),
                path: path.display().to_string(),
                busy_timeout: Mutex::new(DEFAULT_BUSY_TIMEOUT),
            }),
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

    /// How long a write waits for the write lock another connection or process holds on the
    /// file before it fails with a [`BackendError`] naming the file (default
    /// [`DEFAULT_BUSY_TIMEOUT`]).
    #[must_use]
    pub fn with_busy_timeout(self, timeout: Duration) -> Self {
        // Setting SQLite's busy handler does not fail on an open connection; should it, the
        // previous timeout stays in force and is the one messages name.
        if self.inner.lock().busy_timeout(timeout).is_ok() {
            *self
                .inner
                .busy_timeout
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = timeout;
        }
        self
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.inner.lock()
    }

    /// Runs `work` on the connection: on tokio's blocking threads inside a runtime (it may wait
    /// up to the busy timeout for another writer's lock, and for `fsync`, which must not hold a
    /// runtime worker), inline outside one.
    fn run<T: Send + 'static>(
        &self,
        step: &'static str,
        work: impl FnOnce(&Inner, &mut Connection) -> Result<T, BackendError> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, BackendError>> {
        let inner = Arc::clone(&self.inner);
        let job = move || {
            let mut conn = inner.lock();
            work(&inner, &mut conn)
        };
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                let path = self.inner.path.clone();
                let task = handle.spawn_blocking(job);
                Box::pin(async move {
                    task.await.unwrap_or_else(|e| {
                        Err(BackendError::new(format!(
                            "SQLite state store {path}: {step}: the blocking task did not \
                             complete ({e})"
                        )))
                    })
                })
            }
            Err(_) => Box::pin(std::future::ready(job())),
        }
    }

    /// A value to keep, owned (serialized on the caller's thread: the value is borrowed).
    fn owned_kept(&self, step: &str, kept: KeptValue<'_>) -> Result<OwnedKept, BackendError> {
        let text = serde_json::to_string(kept.value).map_err(|e| {
            BackendError::new(format!(
                "SQLite state store {}: {step}: the value is not serializable: {e}",
                self.inner.path
            ))
        })?;
        Ok((kept.reference.to_string(), text, ms(kept.ttl)))
    }
}

fn backend(e: impl std::fmt::Display) -> BackendError {
    BackendError::new(format!("SQLite: {e}"))
}

/// Milliseconds since the Unix epoch on this process's wall clock (see the module's
/// Semantics).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A duration as whole milliseconds (rounded up, so a short lease is not zero), cut to
/// [`MAX_MS`].
fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_micros().div_ceil(1000)).map_or(MAX_MS, |n| n.min(MAX_MS))
}

/// Whether a rusqlite error is a value of the wrong type or range (a row that is not ours),
/// rather than a failure of the database.
fn is_decoding(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::IntegralValueOutOfRange(..)
    )
}

/// A key's row in `state_claims`, as read.
struct ClaimRow {
    token: Option<String>,
    operation_id: String,
    request: Option<String>,
    started: bool,
    outcome: Option<String>,
    expires_at_ms: i64,
}

/// A lease that has not lapsed and is `?2`'s (`?1` the key, `?3` now).
const HELD: &str = "key = ?1 AND token = ?2 AND outcome IS NULL AND expires_at_ms > ?3";

/// Claims `key` for `req` in one immediate transaction: reads the key's row, then answers from
/// it or writes the caller's lease.
fn claim_now(
    inner: &Inner,
    conn: &mut Connection,
    key: &str,
    req: &OwnedClaim,
) -> Result<ClaimState, BackendError> {
    let step = "claim";
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| inner.error(step, &e))?;
    let now = now_ms();
    if let Some(row) = read_claim_row(inner, &tx, step, key)? {
        if row.token.is_none() && row.outcome.is_none() {
            return Err(inner.foreign(
                "state_claims",
                key,
                "it holds neither a lease nor an outcome",
            ));
        }
        if row.expires_at_ms > now {
            // Live: answered as it is; nothing is written (the transaction rolls back).
            return live_claim_state(inner, key, req, row);
        }
        if row.outcome.is_none() && row.started {
            return record_lost_run(inner, tx, step, key, req, row, now);
        }
    }
    // Free, an unstarted lapsed lease, or an outcome past its window: the caller's lease.
    write_lease(inner, tx, step, key, req, now)?;
    Ok(ClaimState::Claimed)
}

/// Reads the key's row in `state_claims`, if any (a row this crate cannot decode is foreign).
fn read_claim_row(
    inner: &Inner,
    tx: &rusqlite::Transaction<'_>,
    step: &str,
    key: &str,
) -> Result<Option<ClaimRow>, BackendError> {
    tx.prepare_cached(
        "SELECT token, operation_id, request, started, outcome, expires_at_ms \
         FROM state_claims WHERE key = ?1",
    )
    .and_then(|mut stmt| {
        stmt.query_row(params![key], |row| {
            Ok(ClaimRow {
                token: row.get(0)?,
                operation_id: row.get(1)?,
                request: row.get(2)?,
                started: row.get(3)?,
                outcome: row.get(4)?,
                expires_at_ms: row.get(5)?,
            })
        })
        .optional()
    })
    .map_err(|e| {
        if is_decoding(&e) {
            inner.foreign("state_claims", key, e)
        } else {
            inner.error(step, &e)
        }
    })
}

/// The answer of a live row: its outcome, the caller's own lease, or another caller's run.
fn live_claim_state(
    inner: &Inner,
    key: &str,
    req: &OwnedClaim,
    row: ClaimRow,
) -> Result<ClaimState, BackendError> {
    match (row.outcome, row.token) {
        (Some(text), _) => decode_outcome(inner, key, &text).map(ClaimState::Recorded),
        (None, Some(holder)) if holder == req.token => Ok(ClaimState::Claimed),
        _ => Ok(ClaimState::Running {
            operation_id: row.operation_id,
            request: row.request,
        }),
    }
}

/// Records an unknown outcome for the lapsed lease of a started run, and commits.
fn record_lost_run(
    inner: &Inner,
    tx: rusqlite::Transaction<'_>,
    step: &str,
    key: &str,
    req: &OwnedClaim,
    row: ClaimRow,
    now: i64,
) -> Result<ClaimState, BackendError> {
    // The lapsed lease of a run that had started: its outcome is unknown for the window.
    let outcome = StoredOutcome {
        operation_id: row.operation_id,
        reference: None,
        unknown: true,
        request: row.request,
        at_unix_ms: u64::try_from(now).unwrap_or(0),
    };
    let text = serde_json::to_string(&outcome).map_err(|e| inner.error(step, &e_sql(e)))?;
    tx.prepare_cached(
        "UPDATE state_claims SET token = NULL, outcome = ?2, expires_at_ms = ?3 \
         WHERE key = ?1",
    )
    .and_then(|mut stmt| stmt.execute(params![key, text, now.saturating_add(req.window_ms)]))
    .and_then(|_| tx.commit())
    .map_err(|e| inner.error(step, &e))?;
    Ok(ClaimState::Recorded(outcome))
}

/// Writes the caller's lease over whatever the key's row held, and commits.
fn write_lease(
    inner: &Inner,
    tx: rusqlite::Transaction<'_>,
    step: &str,
    key: &str,
    req: &OwnedClaim,
    now: i64,
) -> Result<(), BackendError> {
    tx.prepare_cached(
        "INSERT OR REPLACE INTO state_claims \
         (key, token, operation_id, request, started, outcome, expires_at_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6)",
    )
    .and_then(|mut stmt| {
        stmt.execute(params![
            key,
            req.token,
            req.operation_id,
            req.request,
            req.started,
            now.saturating_add(req.lease_ms)
        ])
    })
    .and_then(|_| tx.commit())
    .map_err(|e| inner.error(step, &e))
}

/// A serialization failure as a rusqlite error, for [`Inner::error`].
fn e_sql(e: serde_json::Error) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(e))
}

fn decode_outcome(inner: &Inner, key: &str, text: &str) -> Result<StoredOutcome, BackendError> {
    serde_json::from_str(text).map_err(|e| {
        inner.foreign(
            "state_claims",
            key,
            format!("its outcome is not a stored outcome ({e})"),
        )
    })
}

/// What a claim asks for, owned, for the blocking task.
struct OwnedClaim {
    token: String,
    operation_id: String,
    request: Option<String>,
    lease_ms: i64,
    window_ms: i64,
    started: bool,
}

/// Runs one statement on `token`'s live lease of `key`: whether it was there. `sql` has `?1`
/// the key, `?2` the token, `?3` now and, when `until` is given, `?4` that many milliseconds
/// from now.
fn on_lease(
    inner: &Inner,
    conn: &mut Connection,
    step: &str,
    sql: &str,
    key: &str,
    token: &str,
    until: Option<i64>,
) -> Result<bool, BackendError> {
    let now = now_ms();
    conn.prepare_cached(sql)
        .and_then(|mut stmt| match until {
            Some(ms) => stmt.execute(params![key, token, now, now.saturating_add(ms)]),
            None => stmt.execute(params![key, token, now]),
        })
        .map(|n| n > 0)
        .map_err(|e| inner.error(step, &e))
}

/// A value kept with an outcome, owned for the blocking task: reference, JSON text, ttl ms.
type OwnedKept = (String, String, i64);

fn finish_now(
    inner: &Inner,
    conn: &mut Connection,
    key: &str,
    token: &str,
    outcome: &StoredOutcome,
    window_ms: i64,
    kept: Option<&OwnedKept>,
) -> Result<bool, BackendError> {
    let step = "finish";
    let text = serde_json::to_string(outcome).map_err(|e| inner.error(step, &e_sql(e)))?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| inner.error(step, &e))?;
    let now = now_ms();
    let finished = tx
        .prepare_cached(&format!(
            "UPDATE state_claims SET token = NULL, operation_id = ?4, request = ?5, \
             outcome = ?6, expires_at_ms = ?7 WHERE {HELD}"
        ))
        .and_then(|mut stmt| {
            stmt.execute(params![
                key,
                token,
                now,
                outcome.operation_id,
                outcome.request,
                text,
                now.saturating_add(window_ms)
            ])
        })
        .map_err(|e| inner.error(step, &e))?;
    if finished == 0 {
        // Not the holder's: nothing is written (the transaction rolls back).
        return Ok(false);
    }
    if let Some((reference, text, ttl_ms)) = kept {
        insert_kept(
            inner,
            &tx,
            step,
            reference,
            text,
            now.saturating_add(*ttl_ms),
        )?;
    }
    // Housekeeping: outcomes past their window and unstarted leases that lapsed.
    tx.prepare_cached(
        "DELETE FROM state_claims WHERE key IN ( \
             SELECT key FROM state_claims \
              WHERE expires_at_ms <= ?1 AND (outcome IS NOT NULL OR started = 0) \
              ORDER BY expires_at_ms LIMIT ?2)",
    )
    .and_then(|mut stmt| stmt.execute(params![now, PURGE_BATCH]))
    .map_err(|e| inner.error(step, &e))?;
    tx.commit().map_err(|e| inner.error(step, &e))?;
    Ok(true)
}

/// Inserts a kept value in `tx` (an existing reference is an error, never replaced).
fn insert_kept(
    inner: &Inner,
    tx: &rusqlite::Transaction<'_>,
    step: &str,
    reference: &str,
    text: &str,
    expires_at_ms: i64,
) -> Result<(), BackendError> {
    tx.prepare_cached(
        "INSERT INTO state_kept (reference, value, expires_at_ms) VALUES (?1, ?2, ?3)",
    )
    .and_then(|mut stmt| stmt.execute(params![reference, text, expires_at_ms]))
    .map(drop)
    .map_err(|e| {
        if e.sqlite_error_code() == Some(ErrorCode::ConstraintViolation) {
            BackendError::new(format!(
                "SQLite state store {}: {step}: a value is already kept under {reference}",
                inner.path
            ))
        } else {
            inner.error(step, &e)
        }
    })
}

fn keep_now(
    inner: &Inner,
    conn: &mut Connection,
    reference: &str,
    text: &str,
    ttl_ms: i64,
) -> Result<(), BackendError> {
    let step = "keep";
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| inner.error(step, &e))?;
    let now = now_ms();
    tx.prepare_cached(
        "DELETE FROM state_kept WHERE reference IN ( \
             SELECT reference FROM state_kept WHERE expires_at_ms <= ?1 \
              ORDER BY expires_at_ms LIMIT ?2)",
    )
    .and_then(|mut stmt| stmt.execute(params![now, PURGE_BATCH]))
    .map_err(|e| inner.error(step, &e))?;
    insert_kept(
        inner,
        &tx,
        step,
        reference,
        text,
        now.saturating_add(ttl_ms),
    )?;
    tx.commit().map_err(|e| inner.error(step, &e))
}

fn read_now(
    inner: &Inner,
    conn: &mut Connection,
    reference: &str,
) -> Result<Option<Value>, BackendError> {
    let text: Option<String> = conn
        .prepare_cached("SELECT value FROM state_kept WHERE reference = ?1 AND expires_at_ms > ?2")
        .and_then(|mut stmt| {
            stmt.query_row(params![reference, now_ms()], |row| row.get(0))
                .optional()
        })
        .map_err(|e| {
            if is_decoding(&e) {
                inner.foreign("state_kept", reference, e)
            } else {
                inner.error("read", &e)
            }
        })?;
    text.map(|t| {
        serde_json::from_str(&t).map_err(|e| {
            inner.foreign(
                "state_kept",
                reference,
                format!("its value is not JSON ({e})"),
            )
        })
    })
    .transpose()
}

/// The record under `key` that has not expired: one `SELECT`.
fn load_record_now(
    inner: &Inner,
    conn: &mut Connection,
    key: &str,
) -> Result<Option<Record>, BackendError> {
    let row: Option<(i64, String)> = conn
        .prepare_cached(
            "SELECT version, value FROM state_records WHERE key = ?1 AND expires_at_ms > ?2",
        )
        .and_then(|mut stmt| {
            stmt.query_row(params![key, now_ms()], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()
        })
        .map_err(|e| {
            if is_decoding(&e) {
                inner.foreign("state_records", key, e)
            } else {
                inner.error("load_record", &e)
            }
        })?;
    let Some((version, text)) = row else {
        return Ok(None);
    };
    let version = record_version(inner, key, version)?;
    let value = serde_json::from_str(&text)
        .map_err(|e| inner.foreign("state_records", key, format!("its value is not JSON ({e})")))?;
    Ok(Some(Record { version, value }))
}

/// A stored record's version, at least 1 (a smaller one is not this crate's).
fn record_version(inner: &Inner, key: &str, version: i64) -> Result<u64, BackendError> {
    u64::try_from(version)
        .ok()
        .filter(|v| *v >= 1)
        .ok_or_else(|| {
            inner.foreign(
                "state_records",
                key,
                format!("its version {version} is below 1"),
            )
        })
}

/// Replaces the record under `key` if it is at `expected`, in one immediate transaction: reads
/// the key's row, then writes (and, creating a record, purges expired ones) or rolls back.
fn swap_record_now(
    inner: &Inner,
    conn: &mut Connection,
    key: &str,
    expected: u64,
    text: &str,
    ttl_ms: i64,
) -> Result<Option<u64>, BackendError> {
    let step = "swap_record";
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| inner.error(step, &e))?;
    let now = now_ms();
    let stored: Option<(i64, i64)> = tx
        .prepare_cached("SELECT version, expires_at_ms FROM state_records WHERE key = ?1")
        .and_then(|mut stmt| {
            stmt.query_row(params![key], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()
        })
        .map_err(|e| {
            if is_decoding(&e) {
                inner.foreign("state_records", key, e)
            } else {
                inner.error(step, &e)
            }
        })?;
    // An expired record is absent: version 0.
    let current = match stored {
        Some((version, expires_at_ms)) if expires_at_ms > now => {
            record_version(inner, key, version)?
        }
        _ => 0,
    };
    if current != expected {
        // Not at the expected version: nothing is written (the transaction rolls back).
        return Ok(None);
    }
    let version = expected + 1;
    tx.prepare_cached(
        "INSERT OR REPLACE INTO state_records (key, version, value, expires_at_ms) \
         VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut stmt| stmt.execute(params![key, version, text, now.saturating_add(ttl_ms)]))
    .map_err(|e| inner.error(step, &e))?;
    if expected == 0 {
        // Housekeeping: a record is created, a batch of expired ones goes.
        tx.prepare_cached(
            "DELETE FROM state_records WHERE key IN ( \
                 SELECT key FROM state_records WHERE expires_at_ms <= ?1 \
                  ORDER BY expires_at_ms LIMIT ?2)",
        )
        .and_then(|mut stmt| stmt.execute(params![now, PURGE_BATCH]))
        .map_err(|e| inner.error(step, &e))?;
    }
    tx.commit().map_err(|e| inner.error(step, &e))?;
    Ok(Some(version))
}

impl StateStore for SqliteRecordStore {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        req: ClaimRequest<'a>,
    ) -> BoxFuture<'a, Result<ClaimState, BackendError>> {
        let key = key.to_string();
        let req = OwnedClaim {
            token: req.token.to_string(),
            operation_id: req.operation_id.to_string(),
            request: req.request.map(str::to_string),
            lease_ms: ms(req.lease),
            window_ms: ms(req.window),
            started: req.started,
        };
        self.run("claim", move |inner, conn| {
            claim_now(inner, conn, &key, &req)
        })
    }

    fn renew<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        let (key, token, lease) = (key.to_string(), token.to_string(), ms(lease));
        self.run("renew", move |inner, conn| {
            let sql = format!("UPDATE state_claims SET expires_at_ms = ?4 WHERE {HELD}");
            on_lease(inner, conn, "renew", &sql, &key, &token, Some(lease))
        })
    }

    fn mark_started<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        let (key, token) = (key.to_string(), token.to_string());
        self.run("mark_started", move |inner, conn| {
            let sql = format!("UPDATE state_claims SET started = 1 WHERE {HELD}");
            on_lease(inner, conn, "mark_started", &sql, &key, &token, None)
        })
    }

    fn finish<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        outcome: &'a StoredOutcome,
        window: Duration,
        kept: Option<KeptValue<'a>>,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        // Serialized here, on the caller's thread: the value is borrowed.
        let kept = match kept.map(|k| self.owned_kept("finish", k)).transpose() {
            Ok(kept) => kept,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        let (key, token, outcome) = (key.to_string(), token.to_string(), outcome.clone());
        let window = ms(window);
        self.run("finish", move |inner, conn| {
            finish_now(inner, conn, &key, &token, &outcome, window, kept.as_ref())
        })
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        let (key, token) = (key.to_string(), token.to_string());
        self.run("release", move |inner, conn| {
            let sql = format!("DELETE FROM state_claims WHERE {HELD}");
            on_lease(inner, conn, "release", &sql, &key, &token, None)
        })
    }

    fn keep<'a>(
        &'a self,
        reference: &'a str,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        let kept = KeptValue {
            reference,
            value,
            ttl,
        };
        // Serialized here, on the caller's thread: the value is borrowed.
        let (reference, text, ttl) = match self.owned_kept("keep", kept) {
            Ok(kept) => kept,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        self.run("keep", move |inner, conn| {
            keep_now(inner, conn, &reference, &text, ttl)
        })
    }

    fn read<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, BackendError>> {
        let reference = reference.to_string();
        self.run("read", move |inner, conn| read_now(inner, conn, &reference))
    }

    fn load_record<'a>(
        &'a self,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Record>, BackendError>> {
        let key = key.to_string();
        self.run("load_record", move |inner, conn| {
            load_record_now(inner, conn, &key)
        })
    }

    fn swap_record<'a>(
        &'a self,
        key: &'a str,
        expected: u64,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, BackendError>> {
        if let Some(e) = oversized_record(key, value) {
            return Box::pin(std::future::ready(Err(e)));
        }
        // An INTEGER holds the versions: no record is at one whose successor it cannot hold.
        if i64::try_from(expected.saturating_add(1)).is_err() {
            return Box::pin(std::future::ready(Ok(None)));
        }
        // Serialized here, on the caller's thread: the value is borrowed.
        let text = match serde_json::to_string(value) {
            Ok(text) => text,
            Err(e) => {
                return Box::pin(std::future::ready(Err(BackendError::new(format!(
                    "SQLite state store {}: swap_record: the value is not serializable: {e}",
                    self.inner.path
                )))))
            }
        };
        let (key, ttl) = (key.to_string(), ms(ttl));
        self.run("swap_record", move |inner, conn| {
            swap_record_now(inner, conn, &key, expected, &text, ttl)
        })
    }
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
