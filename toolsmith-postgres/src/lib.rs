//! Shared state on PostgreSQL for toolsmith (the facade's feature `postgres`): a
//! [`StateStore`] the replicas of a service share, so an idempotency key claimed on one replica
//! is seen on every other, an outcome is answered by all of them, a kept result can be read
//! back wherever the next page is asked for, and a versioned record is replaced by one writer at
//! a time.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use toolsmith_core::state::{ClaimRequest, ClaimState, StateStore};
//! use toolsmith_postgres::PostgresStateStore;
//!
//! let store = PostgresStateStore::connect("postgresql://toolsmith@db.internal/app").await?;
//! let req = ClaimRequest {
//!     token: "run-token",
//!     operation_id: "op_1",
//!     request: None,
//!     lease: Duration::from_secs(30),
//!     window: Duration::from_secs(24 * 3600),
//!     started: false,
//! };
//! if store.claim("orders:42", req).await? == ClaimState::Claimed {
//!     // run the write, then `finish` (or `release` if it never began)
//! }
//! # Ok(()) }
//! ```
//!
//! # Tables
//!
//! [`connect`](PostgresStateStore::connect) creates three tables when they are absent (under an
//! advisory lock, so replicas that start at once do not race), named with a prefix
//! ([`DEFAULT_TABLE_PREFIX`], or [`PostgresOptions::with_table_prefix`]), in the first schema of
//! the connection's `search_path` (choose another with `options=-c search_path=...` in the URL):
//!
//! ```sql
//! CREATE TABLE IF NOT EXISTS toolsmith_claims (
//!     key          text PRIMARY KEY,
//!     token        text,                  -- the lease holder's token; NULL once it holds an outcome
//!     operation_id text NOT NULL,         -- the operation id of the run
//!     request      text,                  -- the request fingerprint of an explicit key
//!     started      boolean NOT NULL DEFAULT false,  -- the run began to take effect
//!     outcome      jsonb,                 -- the StoredOutcome; NULL while the key is leased
//!     expires_at   timestamptz NOT NULL   -- the lease's expiry, or the end of the outcome's window
//! );
//! CREATE INDEX IF NOT EXISTS toolsmith_claims_expires ON toolsmith_claims (expires_at);
//! CREATE TABLE IF NOT EXISTS toolsmith_kept (
//!     reference  text PRIMARY KEY,        -- rec_<32 hex>
//!     value      json NOT NULL,           -- json, not jsonb: a kept result keeps its key order
//!     expires_at timestamptz NOT NULL
//! );
//! CREATE INDEX IF NOT EXISTS toolsmith_kept_expires ON toolsmith_kept (expires_at);
//! CREATE TABLE IF NOT EXISTS toolsmith_records (
//!     key        text PRIMARY KEY,        -- apart from the claims' keys: one string may name both
//!     version    bigint NOT NULL,         -- from 1; each swap writes the expected version plus 1
//!     value      json NOT NULL,           -- json, not jsonb: a record keeps its key order
//!     expires_at timestamptz NOT NULL     -- past it the record is absent (version 0)
//! );
//! CREATE INDEX IF NOT EXISTS toolsmith_records_expires ON toolsmith_records (expires_at);
//! ```
//!
//! A user that may not create tables can run these beforehand; the store then only checks them.
//!
//! # Semantics
//!
//! Each step of the [`StateStore`] table is one SQL statement, timed by the database's clock
//! (`now()`), so the replicas' clocks need not agree. A claim is one `INSERT … ON CONFLICT (key)
//! DO UPDATE` that decides on the newest version of the key's row, under its row lock: of any
//! number of concurrent claims exactly one is granted. It always returns the key's row (a claim
//! that finds a live lease or outcome rewrites the row unchanged), so the answer and the row it
//! describes are the same version; a claim asked for as started writes its row started.
//! `renew`, `mark_started`, `finish` and `release` are an `UPDATE`/`DELETE … WHERE key = $1 AND
//! token = $2` on a lease that has not lapsed; a `finish` that keeps a value inserts it in the
//! same statement (a data-modifying `WITH`), only when the update applied.
//!
//! [`swap_record`](StateStore::swap_record) is one statement too: a data-modifying `WITH` whose
//! `UPDATE` replaces the key's row if it is live at the expected version (or, when the expected
//! version is 0, expired), and whose `INSERT … ON CONFLICT (key) DO NOTHING` creates the row only
//! when the expected version is 0 and the update found nothing; it returns the new version (the
//! expected one plus 1), or no row when the record was not at the expected version, and then
//! nothing was written. Of concurrent swaps from one version exactly one applies: the others
//! wait for its row lock and find the version moved on (or its row inserted). A value over
//! [`MAX_KEPT_BYTES`](toolsmith_core::state::MAX_KEPT_BYTES) is refused before it is sent.
//! [`load_record`](StateStore::load_record) is a `SELECT` of the row that has not expired.
//!
//! A row this crate cannot read (an outcome that is not a toolsmith outcome, a row with neither
//! lease nor outcome, a record whose version is below 1) is a [`BackendError`] naming the table
//! and key, never a result.
//!
//! # Housekeeping
//!
//! PostgreSQL has no expiry of its own. Each [`keep`](StateStore::keep) deletes, in the same
//! statement, up to 100 kept values past their expiry; each successful
//! [`finish`](StateStore::finish) deletes, in a statement of its own sent alongside, up to 100
//! keys whose outcome window has ended or whose unstarted lease lapsed; each
//! [`swap_record`](StateStore::swap_record) that creates a record (expected version 0) deletes,
//! in a statement of its own sent alongside, up to 100 records past their expiry. A lapsed lease
//! of a run that had started stays until the key is claimed again (it is then answered as an
//! unknown outcome for the window). No deletion waits for a lock (`FOR UPDATE SKIP LOCKED`).
//!
//! # Connections and failures
//!
//! One connection per store; tokio-postgres pipelines the statements of concurrent calls on it.
//! [`connect`](PostgresStateStore::connect) must run inside a tokio runtime (it spawns the
//! connection's task there). It gives up after the connect timeout
//! ([`DEFAULT_CONNECT_TIMEOUT`]) and sets a server-side `statement_timeout`
//! ([`DEFAULT_STATEMENT_TIMEOUT`]) through the connection's startup options; each statement is
//! also bounded on the client by that timeout and a second, so a dead peer cannot hang a call.
//!
//! When the connection closes (the server restarted, the network failed, a statement went
//! unanswered), the call answers a [`BackendError`] and the next call opens a new connection (at
//! most one attempt per second; calls in between answer the last attempt's error). Every error
//! is a [`BackendError`] whose message says what failed and what to check: the server refused
//! or closed the connection, a statement ran past the `statement_timeout` (SQLSTATE 57014), the
//! tables are missing, a row is not this crate's.
//!
//! **TLS** is for a later version: this one connects without it (`NoTls`) and refuses a URL
//! that requires it (`sslmode=require`). Use it on a trusted network, or through a local
//! socket or tunnel.

#![deny(unreachable_pub)]
#![deny(missing_docs)]

use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;
use tokio_postgres::config::{Host, SslMode};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{Json, ToSql};
use tokio_postgres::{Client, Config, NoTls, Row, Statement};
use toolsmith_core::state::{
    oversized_record, ClaimRequest, ClaimState, KeptValue, Record, StateStore,
};
use toolsmith_core::{BackendError, StoredOutcome};

/// The prefix of the tables' names unless told otherwise: `toolsmith_claims`, `toolsmith_kept`,
/// `toolsmith_records`.
pub const DEFAULT_TABLE_PREFIX: &str = "toolsmith_";
/// How long [`PostgresStateStore::connect`] (and a reconnect) waits for the server, unless told
/// otherwise.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// The server-side `statement_timeout` of the store's connection unless told otherwise.
pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);

/// How many expired rows one `keep`, `finish` or creating `swap_record` deletes at most.
const PURGE_BATCH: i64 = 100;
/// The longest lease, window or expiry the store writes (longer ones are cut to it), so the
/// arithmetic on timestamps stays far within PostgreSQL's range: 100 years, in microseconds.
const MAX_MICROS: i64 = 100 * 365 * 24 * 3600 * 1_000_000;
/// After a failed reconnect, calls answer its error for this long before the next attempt.
const RECONNECT_GAP: Duration = Duration::from_secs(1);
/// The longest table prefix (PostgreSQL's identifiers have at most 63 bytes).
const MAX_PREFIX: usize = 40;
/// The first key of the advisory lock taken around the creation of the tables (`tool` in ASCII);
/// the second is the hash of the prefix.
const LOCK_CLASS: i32 = 0x746f_6f6c;

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How a [`PostgresStateStore`] connects and names its tables; [`Default`] is the defaults of
/// this crate's constants.
///
/// ```
/// use std::time::Duration;
/// use toolsmith_postgres::PostgresOptions;
/// let options = PostgresOptions::default()
///     .with_table_prefix("billing_")
///     .with_statement_timeout(Duration::from_secs(2));
/// # let _ = options;
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PostgresOptions {
    table_prefix: String,
    connect_timeout: Duration,
    statement_timeout: Duration,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        PostgresOptions {
            table_prefix: DEFAULT_TABLE_PREFIX.to_string(),
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            statement_timeout: DEFAULT_STATEMENT_TIMEOUT,
        }
    }
}

impl PostgresOptions {
    /// The prefix of the tables' names (`<prefix>claims`, `<prefix>kept`, `<prefix>records`):
    /// lowercase ASCII letters, digits and `_`, not starting with a digit, at most 40 characters
    /// (checked by [`PostgresStateStore::connect_with`]). Services that share a database but not
    /// their state use different prefixes.
    #[must_use]
    pub fn with_table_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.table_prefix = prefix.into();
        self
    }

    /// How long connecting (resolving, TCP, startup, authentication and the tables) may take,
    /// at the start and at each reconnect (at least a millisecond). It replaces a
    /// `connect_timeout` of the URL.
    #[must_use]
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// The server-side `statement_timeout` of the connection (at least a millisecond): a
    /// statement that runs longer, waiting for a lock included, is cancelled and the call
    /// answers a [`BackendError`]. The client gives up one second after it.
    #[must_use]
    pub fn with_statement_timeout(mut self, timeout: Duration) -> Self {
        self.statement_timeout = timeout.max(Duration::from_millis(1));
        self
    }
}

/// Why a [`PostgresStateStore`] could not connect; the message says what to check.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct ConnectError {
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl ConnectError {
    fn new(message: impl Into<String>) -> Self {
        ConnectError {
            message: message.into(),
            source: None,
        }
    }

    fn with_source(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        ConnectError {
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }

    /// The message (the same as `Display`).
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The SQL of one store, with its tables' names in it.
#[derive(Debug)]
struct Sql {
    claims: String,
    kept: String,
    records: String,
    schema: String,
    claim: String,
    renew: String,
    mark_started: String,
    finish: String,
    finish_keeping: String,
    purge_claims: String,
    release: String,
    keep: String,
    read: String,
    swap_record: String,
    purge_records: String,
    load_record: String,
}

impl Sql {
    /// The SQL of the store whose tables' names begin with `prefix`.
    fn new(prefix: &str) -> Sql {
        let claims = format!("{prefix}claims");
        let kept = format!("{prefix}kept");
        let records = format!("{prefix}records");
        // A lease that has not lapsed and is `$2`'s.
        let held = "key = $1 AND token = $2 AND outcome IS NULL AND expires_at > now()";
        Sql {
            schema: Sql::schema_sql(prefix, &claims, &kept, &records),
            claim: Sql::claim_sql(&claims),
            renew: format!(
                "UPDATE \"{claims}\" SET expires_at = {} WHERE {held}",
                micros_from_now(3)
            ),
            mark_started: format!("UPDATE \"{claims}\" SET started = true WHERE {held}"),
            // $3 operation id, $4 request, $5 outcome, $6 window µs.
            finish: format!(
                "UPDATE \"{claims}\" SET token = NULL, operation_id = $3, request = $4,
                     outcome = $5, expires_at = {} WHERE {held}",
                micros_from_now(6)
            ),
            finish_keeping: Sql::finish_keeping_sql(&claims, &kept, held),
            purge_claims: format!(
                "DELETE FROM \"{claims}\" WHERE key IN (
                     SELECT key FROM \"{claims}\"
                      WHERE expires_at <= now() AND (outcome IS NOT NULL OR NOT started)
                      ORDER BY expires_at LIMIT {PURGE_BATCH} FOR UPDATE SKIP LOCKED)"
            ),
            release: format!("DELETE FROM \"{claims}\" WHERE {held}"),
            keep: Sql::keep_sql(&kept),
            read: format!(
                "SELECT value FROM \"{kept}\" WHERE reference = $1 AND expires_at > now()"
            ),
            swap_record: Sql::swap_record_sql(&records),
            purge_records: format!(
                "DELETE FROM \"{records}\" WHERE key IN (
                     SELECT key FROM \"{records}\" WHERE expires_at <= now()
                      ORDER BY expires_at LIMIT {PURGE_BATCH} FOR UPDATE SKIP LOCKED)"
            ),
            load_record: format!(
                "SELECT version, value FROM \"{records}\" WHERE key = $1 AND expires_at > now()"
            ),
            claims,
            kept,
            records,
        }
    }

    /// The script that creates the tables and their indexes if absent, under the prefix's lock.
    fn schema_sql(prefix: &str, claims: &str, kept: &str, records: &str) -> String {
        format!(
            "BEGIN;
                 SELECT pg_advisory_xact_lock({LOCK_CLASS}, hashtext('{prefix}'));
                 CREATE TABLE IF NOT EXISTS \"{claims}\" (
                     key          text PRIMARY KEY,
                     token        text,
                     operation_id text NOT NULL,
                     request      text,
                     started      boolean NOT NULL DEFAULT false,
                     outcome      jsonb,
                     expires_at   timestamptz NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS \"{claims}_expires\" ON \"{claims}\" (expires_at);
                 CREATE TABLE IF NOT EXISTS \"{kept}\" (
                     reference  text PRIMARY KEY,
                     value      json NOT NULL,
                     expires_at timestamptz NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS \"{kept}_expires\" ON \"{kept}\" (expires_at);
                 CREATE TABLE IF NOT EXISTS \"{records}\" (
                     key        text PRIMARY KEY,
                     version    bigint NOT NULL,
                     value      json NOT NULL,
                     expires_at timestamptz NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS \"{records}_expires\" ON \"{records}\" (expires_at);
                 COMMIT;"
        )
    }

    /// The claim: one upsert that takes, keeps or settles the key's row and returns it.
    fn claim_sql(claims: &str) -> String {
        // $1 key, $2 token, $3 operation id, $4 request, $5 lease µs, $6 window µs, $7 the
        // lease is written started.
        // Live (a lease or an outcome): the row unchanged. A lapsed lease of a started run:
        // an unknown outcome for the window. Otherwise (an unstarted lapsed lease, an
        // outcome past its window): the caller's lease.
        let live = "c.expires_at > now()";
        let lost = "(c.outcome IS NULL AND c.started)";
        format!(
            "INSERT INTO \"{claims}\" AS c
                         (key, token, operation_id, request, started, outcome, expires_at)
                     VALUES ($1, $2, $3, $4, $7, NULL, {lease})
                     ON CONFLICT (key) DO UPDATE SET
                         token = CASE WHEN {live} THEN c.token WHEN {lost} THEN NULL
                                      ELSE EXCLUDED.token END,
                         operation_id = CASE WHEN {live} OR {lost} THEN c.operation_id
                                             ELSE EXCLUDED.operation_id END,
                         request = CASE WHEN {live} OR {lost} THEN c.request
                                        ELSE EXCLUDED.request END,
                         started = CASE WHEN {live} OR {lost} THEN c.started
                                        ELSE EXCLUDED.started END,
                         outcome = CASE WHEN {live} THEN c.outcome
                                        WHEN {lost} THEN jsonb_build_object(
                                            'operation_id', c.operation_id,
                                            'reference', NULL,
                                            'unknown', true,
                                            'request', c.request,
                                            'at_unix_ms',
                                            floor(extract(epoch FROM now()) * 1000)::bigint)
                                        ELSE NULL END,
                         expires_at = CASE WHEN {live} THEN c.expires_at WHEN {lost} THEN {window}
                                           ELSE EXCLUDED.expires_at END
                     RETURNING token, operation_id, request, outcome",
            lease = micros_from_now(5),
            window = micros_from_now(6),
        )
    }

    /// The finish that also keeps the value its outcome names, in one statement.
    fn finish_keeping_sql(claims: &str, kept: &str, held: &str) -> String {
        // As `finish`, and in the same statement the value the outcome names: $7 reference,
        // $8 value, $9 ttl µs. Kept only when the update applied; a reference kept already
        // fails the whole statement.
        format!(
            "WITH done AS (
                     UPDATE \"{claims}\" SET token = NULL, operation_id = $3, request = $4,
                         outcome = $5, expires_at = {} WHERE {held} RETURNING 1),
                 kept AS (
                     INSERT INTO \"{kept}\" (reference, value, expires_at)
                     SELECT $7, $8, {} FROM done RETURNING 1)
                 SELECT count(*) FROM done",
            micros_from_now(6),
            micros_from_now(9)
        )
    }

    /// The compare-and-swap of a record, in one statement: the new version, or no row.
    fn swap_record_sql(records: &str) -> String {
        // $1 key, $2 expected version (0: no live record), $3 value, $4 ttl µs.
        // The row is at $2 when it is live at $2 (a live row's version is at least 1: one
        // below is not this crate's, and is left alone), or expired (absent) and $2 is 0: then
        // the update replaces it. With no row at all, the insert creates it when $2 is 0; a
        // row another swap inserted meanwhile is a conflict, and nothing is written.
        format!(
            "WITH swapped AS (
                     UPDATE \"{records}\" SET version = $2 + 1, value = $3, expires_at = {ttl}
                      WHERE key = $1 AND CASE WHEN expires_at > now() THEN version = $2 AND $2 > 0
                                              ELSE $2 = 0 END
                     RETURNING version),
                 created AS (
                     INSERT INTO \"{records}\" (key, version, value, expires_at)
                     SELECT $1, 1, $3, {ttl}
                      WHERE $2 = 0 AND NOT EXISTS (SELECT 1 FROM swapped)
                     ON CONFLICT (key) DO NOTHING
                     RETURNING version)
                 SELECT version FROM swapped UNION ALL SELECT version FROM created",
            ttl = micros_from_now(4)
        )
    }

    /// Keeping a value: purges a batch of lapsed values, then inserts the new one.
    fn keep_sql(kept: &str) -> String {
        // $1 reference, $2 value, $3 ttl µs.
        format!(
            "WITH purged AS (
                     DELETE FROM \"{kept}\" WHERE reference IN (
                         SELECT reference FROM \"{kept}\" WHERE expires_at <= now()
                          ORDER BY expires_at LIMIT {PURGE_BATCH} FOR UPDATE SKIP LOCKED))
                 INSERT INTO \"{kept}\" (reference, value, expires_at) VALUES ($1, $2, {})",
            micros_from_now(3)
        )
    }
}

/// Microseconds from now, as a timestamp: `n` numbers the parameter that holds them.
fn micros_from_now(n: u8) -> String {
    format!("now() + ${n}::bigint * interval '1 microsecond'")
}

/// One connection with its statements prepared.
struct Conn {
    client: Client,
    /// Set when a statement went unanswered or the connection failed under it: the next call
    /// replaces the connection.
    broken: AtomicBool,
    statements: Statements,
}

/// The statements of [`Sql`], prepared on one connection.
struct Statements {
    claim: Statement,
    renew: Statement,
    mark_started: Statement,
    finish: Statement,
    finish_keeping: Statement,
    purge_claims: Statement,
    release: Statement,
    keep: Statement,
    read: Statement,
    swap_record: Statement,
    purge_records: Statement,
    load_record: Statement,
}

impl Conn {
    fn usable(&self) -> bool {
        !self.client.is_closed() && !self.broken.load(Ordering::Relaxed)
    }
}

/// The last failed reconnect: when, and what it answered.
#[derive(Default)]
struct Reconnect {
    failed: Option<(Instant, String)>,
}

/// A [`StateStore`] on PostgreSQL, shared by every process that connects to the same tables
/// (see the [crate docs](crate) for the tables, the statements and the failure modes).
pub struct PostgresStateStore {
    config: Config,
    options: PostgresOptions,
    /// Where the store connects, for messages: host, port, database and user (never the
    /// password).
    target: String,
    sql: Sql,
    conn: Mutex<Arc<Conn>>,
    reconnect: tokio::sync::Mutex<Reconnect>,
}

impl std::fmt::Debug for PostgresStateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStateStore")
            .field("target", &self.target)
            .field("claims", &self.sql.claims)
            .field("kept", &self.sql.kept)
            .field("records", &self.sql.records)
            .finish_non_exhaustive()
    }
}

impl PostgresStateStore {
    /// Connects to the database of `url` (`postgresql://user:password@host:port/dbname`, or a
    /// `key=value` string) with the default [`PostgresOptions`], and creates the tables if
    /// they are absent. Must be called inside a tokio runtime.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), toolsmith_postgres::ConnectError> {
    /// let store = toolsmith_postgres::PostgresStateStore::connect(
    ///     "postgresql://toolsmith:secret@127.0.0.1:5432/app",
    /// )
    /// .await?;
    /// # let _ = store; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`ConnectError`] when the URL is invalid or requires TLS, the server cannot be reached
    /// within the connect timeout or refuses the login, or the tables cannot be created or are
    /// not this crate's.
    pub async fn connect(url: &str) -> Result<Self, ConnectError> {
        Self::connect_with(url, PostgresOptions::default()).await
    }

    /// [`connect`](Self::connect) with `options`: the table prefix and the timeouts.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), toolsmith_postgres::ConnectError> {
    /// use toolsmith_postgres::{PostgresOptions, PostgresStateStore};
    /// let options = PostgresOptions::default().with_table_prefix("billing_");
    /// let store = PostgresStateStore::connect_with("postgresql://app@db/app", options).await?;
    /// # let _ = store; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`connect`](Self::connect), and when the table prefix is not a plain identifier.
    pub async fn connect_with(url: &str, options: PostgresOptions) -> Result<Self, ConnectError> {
        check_prefix(&options.table_prefix)?;
        let mut config: Config = url.parse().map_err(|e: tokio_postgres::Error| {
            let detail =
                std::error::Error::source(&e).map_or_else(String::new, |s| format!(": {s}"));
            ConnectError::with_source(format!("invalid PostgreSQL URL{detail}"), e)
        })?;
        if !matches!(config.get_ssl_mode(), SslMode::Disable | SslMode::Prefer) {
            return Err(ConnectError::new(
                "the PostgreSQL URL requires TLS (sslmode=require), which toolsmith-postgres does not \
                 support yet: connect over a trusted network, a local socket or a tunnel with \
                 sslmode=disable or prefer",
            ));
        }
        config.connect_timeout(options.connect_timeout);
        let statement_ms = options.statement_timeout.as_millis().max(1);
        let startup = format!("-c statement_timeout={statement_ms}");
        let combined = match config.get_options() {
            Some(own) if !own.trim().is_empty() => format!("{own} {startup}"),
            _ => startup,
        };
        config.options(combined);
        if config.get_application_name().is_none() {
            config.application_name("toolsmith");
        }
        let target = target_of(&config);
        let sql = Sql::new(&options.table_prefix);
        let conn = open(&config, &sql, &options, &target).await?;
        Ok(PostgresStateStore {
            config,
            options,
            target,
            sql,
            conn: Mutex::new(Arc::new(conn)),
            reconnect: tokio::sync::Mutex::new(Reconnect::default()),
        })
    }

    fn current(&self) -> Arc<Conn> {
        // The guarded value is one pointer, replaced whole.
        Arc::clone(&self.conn.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The connection to use: the current one, or a new one when it closed.
    async fn conn(&self) -> Result<Arc<Conn>, BackendError> {
        let current = self.current();
        if current.usable() {
            return Ok(current);
        }
        let mut state = self.reconnect.lock().await;
        // Another call may have reconnected while this one waited.
        let current = self.current();
        if current.usable() {
            return Ok(current);
        }
        if let Some((at, message)) = &state.failed {
            if at.elapsed() < RECONNECT_GAP {
                return Err(BackendError::new(message.clone()));
            }
        }
        match open(&self.config, &self.sql, &self.options, &self.target).await {
            Ok(conn) => {
                state.failed = None;
                let conn = Arc::new(conn);
                *self.conn.lock().unwrap_or_else(|p| p.into_inner()) = Arc::clone(&conn);
                Ok(conn)
            }
            Err(e) => {
                let message = format!(
                    "PostgreSQL: the connection was lost and reconnecting failed: {e} (the next \
                     attempt is in a second at the earliest)"
                );
                state.failed = Some((Instant::now(), message.clone()));
                Err(BackendError::new(message))
            }
        }
    }

    /// Runs one statement on `conn`, bounded by the statement timeout and a second; maps its
    /// error to a [`BackendError`] and marks the connection for replacement when it failed.
    async fn bounded<T>(
        &self,
        conn: &Conn,
        what: &str,
        run: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T, BackendError> {
        let limit = self.options.statement_timeout + Duration::from_secs(1);
        match tokio::time::timeout(limit, run).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => {
                if replace_after(&e) {
                    conn.broken.store(true, Ordering::Relaxed);
                }
                Err(self.backend_error(what, &e))
            }
            Err(_) => {
                conn.broken.store(true, Ordering::Relaxed);
                Err(BackendError::new(format!(
                    "PostgreSQL {what}: no answer from {} within {} ms (the server or the \
                     network is stalled); the next call opens a new connection",
                    self.target,
                    limit.as_millis()
                )))
            }
        }
    }

    fn backend_error(&self, what: &str, e: &tokio_postgres::Error) -> BackendError {
        let target = &self.target;
        let message = if e.is_closed() {
            format!(
                "PostgreSQL {what}: the connection to {target} is closed (the server stopped or \
                 restarted, or the network failed); the next call reconnects"
            )
        } else if let Some(db) = e.as_db_error() {
            let code = db.code().code();
            let text = db.message();
            match db.code() {
                c if *c == SqlState::QUERY_CANCELED => format!(
                    "PostgreSQL {what}: the statement ran past the statement timeout of {} ms \
                     (SQLSTATE {code}: {text}); the server is overloaded or a lock on the key is \
                     held too long (PostgresOptions::with_statement_timeout sets the limit)",
                    self.options.statement_timeout.as_millis()
                ),
                c if *c == SqlState::ADMIN_SHUTDOWN
                    || *c == SqlState::CRASH_SHUTDOWN
                    || *c == SqlState::CANNOT_CONNECT_NOW
                    || *c == SqlState::IDLE_SESSION_TIMEOUT =>
                {
                    format!(
                        "PostgreSQL {what}: the server at {target} ended the session (SQLSTATE \
                         {code}: {text}); the next call reconnects"
                    )
                }
                c if *c == SqlState::UNDEFINED_TABLE || *c == SqlState::UNDEFINED_COLUMN => {
                    format!(
                        "PostgreSQL {what}: the table {}, {} or {} is missing or changed \
                         (SQLSTATE {code}: {text}); the next call reconnects and creates the \
                         tables",
                        self.sql.claims, self.sql.kept, self.sql.records
                    )
                }
                c if *c == SqlState::INSUFFICIENT_PRIVILEGE => format!(
                    "PostgreSQL {what}: permission denied (SQLSTATE {code}: {text}); the user of \
                     the URL needs SELECT, INSERT, UPDATE and DELETE on {}, {} and {}",
                    self.sql.claims, self.sql.kept, self.sql.records
                ),
                c if *c == SqlState::UNIQUE_VIOLATION => format!(
                    "PostgreSQL {what}: {} already keeps a value under this reference (SQLSTATE \
                     {code}: {text}); nothing was written",
                    self.sql.kept
                ),
                _ => format!("PostgreSQL {what} failed: {text} (SQLSTATE {code})"),
            }
        } else {
            let detail =
                std::error::Error::source(e).map_or_else(String::new, |s| format!(": {s}"));
            format!("PostgreSQL {what} failed at {target}: {e}{detail}")
        };
        BackendError::new(message)
    }

    /// The claim's answer from the key's row as the claim left it.
    fn claim_state(&self, key: &str, token: &str, row: &Row) -> Result<ClaimState, BackendError> {
        let foreign = |what: String| {
            BackendError::new(format!(
                "PostgreSQL claim: the row of key {key:?} in {} is not a toolsmith claim: {what}",
                self.sql.claims
            ))
        };
        let holder: Option<String> = row.try_get(0).map_err(|e| foreign(e.to_string()))?;
        let operation_id: String = row.try_get(1).map_err(|e| foreign(e.to_string()))?;
        let request: Option<String> = row.try_get(2).map_err(|e| foreign(e.to_string()))?;
        let outcome: Option<Value> = row.try_get(3).map_err(|e| foreign(e.to_string()))?;
        match (outcome, holder) {
            (Some(value), _) => serde_json::from_value::<StoredOutcome>(value)
                .map(ClaimState::Recorded)
                .map_err(|e| foreign(format!("its outcome is not a stored outcome ({e})"))),
            (None, Some(holder)) if holder == token => Ok(ClaimState::Claimed),
            (None, Some(_)) => Ok(ClaimState::Running {
                operation_id,
                request,
            }),
            (None, None) => Err(foreign("it holds neither a lease nor an outcome".into())),
        }
    }

    async fn claim_now(
        &self,
        key: &str,
        req: ClaimRequest<'_>,
    ) -> Result<ClaimState, BackendError> {
        let conn = self.conn().await?;
        let (lease, window) = (micros(req.lease), micros(req.window));
        let row = self
            .bounded(
                &conn,
                "claim",
                conn.client.query_one(
                    &conn.statements.claim,
                    &[
                        &key,
                        &req.token,
                        &req.operation_id,
                        &req.request,
                        &lease,
                        &window,
                        &req.started,
                    ],
                ),
            )
            .await?;
        self.claim_state(key, req.token, &row)
    }

    /// Runs a statement on `token`'s lease of `key`: whether it was there.
    async fn on_lease(
        &self,
        what: &str,
        pick: impl FnOnce(&Conn) -> &Statement,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<bool, BackendError> {
        let conn = self.conn().await?;
        let n = self
            .bounded(&conn, what, conn.client.execute(pick(&conn), params))
            .await?;
        Ok(n > 0)
    }

    async fn finish_now(
        &self,
        key: &str,
        token: &str,
        outcome: &StoredOutcome,
        window: Duration,
        kept: Option<KeptValue<'_>>,
    ) -> Result<bool, BackendError> {
        let conn = self.conn().await?;
        let window = micros(window);
        let outcome_json = Json(outcome);
        let ttl = kept.map_or(0, |k| micros(k.ttl));
        let params: [&(dyn ToSql + Sync); 6] = [
            &key,
            &token,
            &outcome.operation_id,
            &outcome.request,
            &outcome_json,
            &window,
        ];
        let finish = async {
            match kept {
                None => conn.client.execute(&conn.statements.finish, &params).await,
                Some(k) => {
                    let mut all: Vec<&(dyn ToSql + Sync)> = params.to_vec();
                    all.extend([&k.reference as &(dyn ToSql + Sync), k.value, &ttl]);
                    let row = conn
                        .client
                        .query_one(&conn.statements.finish_keeping, &all)
                        .await?;
                    Ok(u64::try_from(row.try_get::<_, i64>(0)?).unwrap_or(0))
                }
            }
        };
        // Sent alongside (pipelined on the connection), in a transaction of its own: it takes
        // only locks it need not wait for, so it cannot deadlock with the update.
        let purge = conn.client.execute(&conn.statements.purge_claims, &[]);
        let (finished, _purged) = futures_util::future::join(
            self.bounded(&conn, "finish", finish),
            // Housekeeping: a failure here changes no answer (the rows are deleted next time).
            self.bounded(&conn, "purge", purge),
        )
        .await;
        Ok(finished? > 0)
    }

    async fn keep_now(
        &self,
        reference: &str,
        value: &Value,
        ttl: Duration,
    ) -> Result<(), BackendError> {
        let conn = self.conn().await?;
        let ttl = micros(ttl);
        self.bounded(
            &conn,
            "keep",
            conn.client
                .execute(&conn.statements.keep, &[&reference, value, &ttl]),
        )
        .await?;
        Ok(())
    }

    async fn read_now(&self, reference: &str) -> Result<Option<Value>, BackendError> {
        let conn = self.conn().await?;
        let row = self
            .bounded(
                &conn,
                "read",
                conn.client.query_opt(&conn.statements.read, &[&reference]),
            )
            .await?;
        row.map(|row| {
            row.try_get::<_, Value>(0).map_err(|e| {
                BackendError::new(format!(
                    "PostgreSQL read: the row of {reference:?} in {} is not a kept value: {e}",
                    self.sql.kept
                ))
            })
        })
        .transpose()
    }

    async fn load_record_now(&self, key: &str) -> Result<Option<Record>, BackendError> {
        let conn = self.conn().await?;
        let row = self
            .bounded(
                &conn,
                "load_record",
                conn.client.query_opt(&conn.statements.load_record, &[&key]),
            )
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let foreign = |what: String| {
            BackendError::new(format!(
                "PostgreSQL load_record: the row of key {key:?} in {} is not a toolsmith \
                 record: {what}",
                self.sql.records
            ))
        };
        let version: i64 = row.try_get(0).map_err(|e| foreign(e.to_string()))?;
        let value: Value = row.try_get(1).map_err(|e| foreign(e.to_string()))?;
        match u64::try_from(version) {
            Ok(version) if version >= 1 => Ok(Some(Record { version, value })),
            _ => Err(foreign(format!("its version {version} is below 1"))),
        }
    }

    async fn swap_record_now(
        &self,
        key: &str,
        expected: u64,
        value: &Value,
        ttl: Duration,
    ) -> Result<Option<u64>, BackendError> {
        if let Some(e) = oversized_record(key, value) {
            return Err(e);
        }
        // A bigint holds the versions; no record is at one it cannot hold (or add 1 to).
        let Some(expected) = i64::try_from(expected).ok().filter(|v| *v < i64::MAX) else {
            return Ok(None);
        };
        let conn = self.conn().await?;
        let ttl = micros(ttl);
        let params: [&(dyn ToSql + Sync); 4] = [&key, &expected, value, &ttl];
        let swap = conn.client.query_opt(&conn.statements.swap_record, &params);
        let row = if expected == 0 {
            // Creating a record: sent alongside (pipelined), in a transaction of its own that
            // waits for no lock, the deletion of a batch of expired ones.
            let purge = conn.client.execute(&conn.statements.purge_records, &[]);
            let (swapped, _purged) = futures_util::future::join(
                self.bounded(&conn, "swap_record", swap),
                // Housekeeping: a failure here changes no answer (the rows are deleted next time).
                self.bounded(&conn, "purge", purge),
            )
            .await;
            swapped?
        } else {
            self.bounded(&conn, "swap_record", swap).await?
        };
        row.map(|row| {
            let version: i64 = row
                .try_get(0)
                .map_err(|e| self.backend_error("swap_record", &e))?;
            u64::try_from(version).map_err(|_| {
                BackendError::new(format!(
                    "PostgreSQL swap_record: {} answered the version {version} for key {key:?}",
                    self.sql.records
                ))
            })
        })
        .transpose()
    }
}

impl StateStore for PostgresStateStore {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        req: ClaimRequest<'a>,
    ) -> BoxFuture<'a, Result<ClaimState, BackendError>> {
        Box::pin(self.claim_now(key, req))
    }

    fn renew<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        Box::pin(async move {
            let lease = micros(lease);
            self.on_lease("renew", |c| &c.statements.renew, &[&key, &token, &lease])
                .await
        })
    }

    fn mark_started<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        Box::pin(async move {
            self.on_lease(
                "mark_started",
                |c| &c.statements.mark_started,
                &[&key, &token],
            )
            .await
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
        Box::pin(self.finish_now(key, token, outcome, window, kept))
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        Box::pin(async move {
            self.on_lease("release", |c| &c.statements.release, &[&key, &token])
                .await
        })
    }

    fn keep<'a>(
        &'a self,
        reference: &'a str,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        Box::pin(self.keep_now(reference, value, ttl))
    }

    fn read<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, BackendError>> {
        Box::pin(self.read_now(reference))
    }

    fn load_record<'a>(
        &'a self,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Record>, BackendError>> {
        Box::pin(self.load_record_now(key))
    }

    fn swap_record<'a>(
        &'a self,
        key: &'a str,
        expected: u64,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, BackendError>> {
        Box::pin(self.swap_record_now(key, expected, value, ttl))
    }
}

/// Whether a failed statement means the connection should be replaced: it closed, its I/O
/// failed, or the server ended the session or lost the tables.
fn replace_after(e: &tokio_postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        return [
            SqlState::ADMIN_SHUTDOWN,
            SqlState::CRASH_SHUTDOWN,
            SqlState::CANNOT_CONNECT_NOW,
            SqlState::IDLE_SESSION_TIMEOUT,
            SqlState::UNDEFINED_TABLE,
            SqlState::UNDEFINED_COLUMN,
        ]
        .contains(code);
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.is::<std::io::Error>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// A duration as microseconds for the SQL, cut to [`MAX_MICROS`].
fn micros(d: Duration) -> i64 {
    i64::try_from(d.as_micros()).map_or(MAX_MICROS, |n| n.min(MAX_MICROS))
}

fn check_prefix(prefix: &str) -> Result<(), ConnectError> {
    let mut chars = prefix.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
    let rest_ok = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if first_ok && rest_ok && prefix.len() <= MAX_PREFIX {
        Ok(())
    } else {
        Err(ConnectError::new(format!(
            "the table prefix {prefix:?} is not a plain identifier: use 1 to {MAX_PREFIX} \
             lowercase ASCII letters, digits and '_', not starting with a digit"
        )))
    }
}

/// Where a configuration connects, for messages (never the password).
fn target_of(config: &Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let port = config
                .get_ports()
                .get(i)
                .or_else(|| config.get_ports().first())
                .copied()
                .unwrap_or(5432);
            match host {
                Host::Tcp(name) => format!("{name}:{port}"),
                #[cfg(unix)]
                Host::Unix(path) => format!("{}:{port}", path.display()),
            }
        })
        .collect();
    let hosts = if hosts.is_empty() {
        "(no host)".to_string()
    } else {
        hosts.join(",")
    };
    let db = config.get_dbname().or(config.get_user()).unwrap_or("");
    match config.get_user() {
        Some(user) => format!("{user}@{hosts}/{db}"),
        None => format!("{hosts}/{db}"),
    }
}

/// Connects, spawns the connection's task, creates the tables if absent and prepares the
/// statements, all within the connect timeout.
async fn open(
    config: &Config,
    sql: &Sql,
    options: &PostgresOptions,
    target: &str,
) -> Result<Conn, ConnectError> {
    let limit = options.connect_timeout;
    let timed_out = || {
        ConnectError::new(format!(
            "no connection to PostgreSQL at {target} within {} ms: is the server up and \
             reachable from here?",
            limit.as_millis()
        ))
    };
    let started = Instant::now();
    let (client, connection) = match tokio::time::timeout(limit, config.connect(NoTls)).await {
        Err(_) => return Err(timed_out()),
        Ok(Err(e)) => return Err(connect_error(target, e)),
        Ok(Ok(pair)) => pair,
    };
    // The connection's task ends when the server or the client closes it; the client then
    // reports `is_closed`, and the store reconnects at its next call.
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let remaining = limit.saturating_sub(started.elapsed());
    let statements = tokio::time::timeout(remaining, setup(&client, sql, target))
        .await
        .map_err(|_| timed_out())??;
    Ok(Conn {
        client,
        broken: AtomicBool::new(false),
        statements,
    })
}

/// Creates the tables if absent (under an advisory lock, so replicas that start at once do not
/// race on the catalog) and prepares the statements (which checks the tables' columns).
async fn setup(client: &Client, sql: &Sql, target: &str) -> Result<Statements, ConnectError> {
    create_tables(client, sql, target).await?;
    prepare_statements(client, sql, target).await
}

/// Creates the tables and their indexes unless both are present already.
async fn create_tables(client: &Client, sql: &Sql, target: &str) -> Result<(), ConnectError> {
    let failed = |e: tokio_postgres::Error| {
        let hint = if e.code() == Some(&SqlState::INSUFFICIENT_PRIVILEGE) {
            " (the user needs CREATE on the schema, or the tables created beforehand with the \
             SQL of toolsmith-postgres's docs)"
        } else {
            ""
        };
        ConnectError::with_source(
            format!(
                "could not create or check the tables {}, {} and {} at {target}: {}{hint}",
                sql.claims,
                sql.kept,
                sql.records,
                db_text(&e)
            ),
            e,
        )
    };
    // Tables made beforehand are only checked: CREATE ... IF NOT EXISTS needs the privilege to
    // create even when the table exists. A database of an earlier version, without the records'
    // table, gets it here.
    let present: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_catalog.pg_tables
              WHERE schemaname = current_schema() AND tablename IN ($1, $2, $3)",
            &[&sql.claims, &sql.kept, &sql.records],
        )
        .await
        .and_then(|row| row.try_get(0))
        .map_err(failed)?;
    if present < 3 {
        client.batch_execute(&sql.schema).await.map_err(failed)?;
    }
    Ok(())
}

/// Prepares every statement of `sql` on `client`, refusing tables whose columns do not fit.
async fn prepare_statements(
    client: &Client,
    sql: &Sql,
    target: &str,
) -> Result<Statements, ConnectError> {
    let prepare = |text: &str| {
        let text = text.to_string();
        async move {
            client.prepare(&text).await.map_err(|e| {
                ConnectError::with_source(
                    format!(
                        "the tables {}, {} and {} at {target} are not toolsmith-postgres's (a \
                         statement does not fit them: {}); use another table prefix",
                        sql.claims,
                        sql.kept,
                        sql.records,
                        db_text(&e)
                    ),
                    e,
                )
            })
        }
    };
    // Pipelined on the connection: one round trip's wait for all of them.
    let prepared = futures_util::future::join_all(
        [
            &sql.claim,
            &sql.renew,
            &sql.mark_started,
            &sql.finish,
            &sql.finish_keeping,
            &sql.purge_claims,
            &sql.release,
            &sql.keep,
            &sql.read,
            &sql.swap_record,
            &sql.purge_records,
            &sql.load_record,
        ]
        .map(|text| Box::pin(prepare(text))),
    )
    .await;
    // In the order above (a struct's fields are evaluated as written).
    let mut prepared = prepared.into_iter();
    let mut next = || {
        prepared
            .next()
            .unwrap_or_else(|| unreachable!("one result per statement prepared"))
    };
    Ok(Statements {
        claim: next()?,
        renew: next()?,
        mark_started: next()?,
        finish: next()?,
        finish_keeping: next()?,
        purge_claims: next()?,
        release: next()?,
        keep: next()?,
        read: next()?,
        swap_record: next()?,
        purge_records: next()?,
        load_record: next()?,
    })
}

/// A tokio-postgres error as one line: the server's message and SQLSTATE, or the error and
/// its cause.
fn db_text(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} (SQLSTATE {})", db.message(), db.code().code()),
        None => match std::error::Error::source(e) {
            Some(s) => format!("{e}: {s}"),
            None => e.to_string(),
        },
    }
}

fn connect_error(target: &str, e: tokio_postgres::Error) -> ConnectError {
    let refused = std::error::Error::source(&e)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused);
    let hint = if refused {
        ": nothing listens there; is the server running, and are the host and port right?"
    } else if e.code() == Some(&SqlState::INVALID_PASSWORD)
        || e.code() == Some(&SqlState::INVALID_AUTHORIZATION_SPECIFICATION)
    {
        ": check the user and password of the URL, and the server's pg_hba.conf"
    } else if e.code() == Some(&SqlState::INVALID_CATALOG_NAME) {
        ": the database does not exist; create it or fix the URL's database name"
    } else {
        ""
    };
    ConnectError::with_source(
        format!(
            "could not connect to PostgreSQL at {target}: {}{hint}",
            db_text(&e)
        ),
        e,
    )
}
