//! The shared state of a toolsmith boundary on Redis (or Valkey): a [`StateStore`] that every
//! replica of a service connects to, so idempotency claims, their outcomes, kept results and
//! versioned records are one state however many processes answer calls (the facade's feature
//! `redis`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use toolsmith_core::state::{ClaimRequest, ClaimState, StateStore};
//! use toolsmith_redis::{RedisOptions, RedisStateStore};
//!
//! let store = RedisStateStore::connect_with(
//!     "redis://127.0.0.1:6379/",
//!     RedisOptions::new().with_response_timeout(Duration::from_secs(1)),
//! )
//! .await?
//! .with_prefix("billing:");
//! let req = ClaimRequest {
//!     token: "run-7f3a",
//!     operation_id: "op_1",
//!     request: None,
//!     lease: Duration::from_secs(30),
//!     window: Duration::from_secs(24 * 3600),
//!     started: false,
//! };
//! if store.claim("refund:order-42", req).await? == ClaimState::Claimed {
//!     // ... run, renewing the lease; then `finish` with the outcome.
//! }
//! # Ok(()) }
//! ```
//!
//! # Keys
//!
//! Every key starts with the store's prefix ([`DEFAULT_PREFIX`], `toolsmith:`, unless
//! [`with_prefix`](RedisStateStore::with_prefix) says otherwise). An idempotency key `K` uses up
//! to three keys, whose `{K}` hash tag keeps them in one slot:
//!
//! | key | holds | expires |
//! |---|---|---|
//! | `{prefix}claim:{K}:lease` | the lease: `{"toolsmith":"lease","token","operation_id","request","window_ms"}` | with the lease (`PX`), pushed out by `renew` |
//! | `{prefix}claim:{K}:started` | a copy of the lease, written by `mark_started` | the window after the lease's expiry |
//! | `{prefix}claim:{K}:outcome` | `{"toolsmith":"outcome","outcome":StoredOutcome}` | the window (`PX`) |
//! | `{prefix}rec:{reference}` | a kept value: `{"toolsmith":"kept","value":...}` | its ttl (`PX`) |
//! | `{prefix}record:{K}` | the versioned record under `K` (`load_record`, `swap_record`), a hash: `toolsmith` = `record`, `version` (a decimal, from 1), `value` (JSON) | its ttl (`PEXPIRE`), set again by every swap |
//!
//! A record's key is apart from the claim keys of the same `K`: one string can name a claim
//! and a record, which never meet.
//!
//! Each step is one Lua script (sent by its hash, `EVALSHA`), one `SET NX PX` or one read:
//!
//! - **claim** reads the outcome, then the lease: an outcome answers `Recorded`; a lease answers
//!   `Claimed` when it is the caller's token, else `Running`. With neither, a started marker
//!   means a run that started and whose lease lapsed: the client builds the *unknown* outcome
//!   (stamped now) from the marker, and a second run of the script writes it for the window
//!   and deletes the marker, if the marker is still the one it was built from. Otherwise the
//!   script writes the caller's lease.
//!   A claim asked for as started writes the started marker with the lease.
//! - **renew**, **mark_started**, **finish**, **release** change nothing unless the lease's token
//!   is the caller's (checked inside the script), so a run whose lease lapsed can never touch
//!   the state of the run that took the key over. **finish** also writes the value the outcome
//!   names (`{prefix}rec:{reference}`, refused if that key exists) in the same script.
//! - **keep** is `SET {prefix}rec:{reference} ... NX PX ttl`; **read** is `GET`.
//! - **swap_record** is one script: it reads the record's `version` (`0` when there is no key:
//!   Redis drops an expired record itself), and only when it is the expected one writes the
//!   three fields with the new version (the expected one plus 1) and sets the expiry; otherwise
//!   it writes nothing. **load_record** is `HGETALL`. A value over
//!   [`MAX_KEPT_BYTES`](toolsmith_core::state::MAX_KEPT_BYTES) is refused before it is sent.
//!
//! Redis expires the keys on its own clock, so the replicas' clocks need not agree; outcomes are
//! stamped (`at_unix_ms`) by the client that records them.
//!
//! # Errors
//!
//! A key the store reads that holds anything else (another type, a string that is not one of
//! the records above, a hash without a record's three fields) is a [`BackendError`] naming the
//! key ("... holds a value that is not a toolsmith record"), never a result. A step that the
//! server did not answer within the response timeout, or whose connection dropped, says *the
//! outcome of this step is unknown*; a refused connection says the step was not applied. After a
//! drop the store reconnects by itself in the background (`redis::aio::ConnectionManager`), so
//! service comes back with the server.
//!
//! # Deployment
//!
//! The state is only as durable as the server: a restart without persistence forgets every
//! claim, outcome and record (repeats then run again). Run Redis with `appendonly yes` and
//! `maxmemory-policy noeviction` (an evicted lease or outcome is lost silently). One server (or a
//! primary behind a failover proxy) is supported; Redis Cluster is not (the keys of a claim share
//! a slot, but the client speaks to one node).

#![deny(unreachable_pub)]
#![deny(missing_docs)]

mod error;
mod record;

use crate::error::{connect_reason, redact_url, scrub, Site};
use crate::record::{KeptOut, LeaseOut, OutcomeOut, KEPT, LEASE, OUTCOME, RECORD};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{RedisError, Script};
use serde_json::Value;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use toolsmith_core::state::{
    oversized_record, ClaimRequest, ClaimState, KeptValue, Record, StateStore,
};
use toolsmith_core::{BackendError, StoredOutcome};

pub use crate::error::ConnectError;

/// The prefix of every key the store writes unless [`RedisStateStore::with_prefix`] names another.
pub const DEFAULT_PREFIX: &str = "toolsmith:";

/// The settings of [`RedisStateStore::connect_with`]: how long a connection attempt and an
/// answer may take, and how often a lost connection is tried again before a step fails.
///
/// ```
/// use std::time::Duration;
/// let options = toolsmith_redis::RedisOptions::new()
///     .with_connect_timeout(Duration::from_millis(500))
///     .with_response_timeout(Duration::from_secs(5))
///     .with_reconnect_retries(4);
/// assert_eq!(options.response_timeout(), Duration::from_secs(5));
/// ```
#[derive(Clone, Debug)]
pub struct RedisOptions {
    connect_timeout: Duration,
    response_timeout: Duration,
    reconnect_retries: usize,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            connect_timeout: Duration::from_secs(1),
            response_timeout: Duration::from_secs(2),
            reconnect_retries: 2,
        }
    }
}

impl RedisOptions {
    /// The defaults: 1 s per connection attempt, 2 s per answer, 2 retries of a connection.
    pub fn new() -> Self {
        RedisOptions::default()
    }

    /// How long one connection attempt may take (at least 1 ms; default 1 s).
    #[must_use]
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How long the server may take to answer a step (at least 1 ms; default 2 s). A step it
    /// does not answer in time fails with "the outcome of this step is unknown".
    #[must_use]
    pub fn with_response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How many times a connection is tried again (with a short, growing delay) before the
    /// connect, or a step waiting for a reconnection, fails (default 2). Connecting to a server
    /// that is down takes at most `1 + retries` connect timeouts plus the delays.
    #[must_use]
    pub fn with_reconnect_retries(mut self, retries: usize) -> Self {
        self.reconnect_retries = retries;
        self
    }

    /// How long one connection attempt may take.
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// How long the server may take to answer a step.
    pub fn response_timeout(&self) -> Duration {
        self.response_timeout
    }

    /// How many times a connection is tried again.
    pub fn reconnect_retries(&self) -> usize {
        self.reconnect_retries
    }
}

/// The scripts of the steps, hashed once (see the [crate] documentation).
struct Scripts {
    claim: Script,
    renew: Script,
    mark_started: Script,
    finish: Script,
    release: Script,
    swap_record: Script,
}

macro_rules! lua {
    ($file:literal) => {
        Script::new(concat!(
            include_str!("lua/prelude.lua"),
            include_str!(concat!("lua/", $file))
        ))
    };
}

impl Scripts {
    fn new() -> Self {
        Scripts {
            claim: lua!("claim.lua"),
            renew: lua!("renew.lua"),
            mark_started: lua!("mark_started.lua"),
            finish: lua!("finish.lua"),
            release: lua!("release.lua"),
            swap_record: lua!("swap_record.lua"),
        }
    }

    fn all(&self) -> [&Script; 6] {
        [
            &self.claim,
            &self.renew,
            &self.mark_started,
            &self.finish,
            &self.release,
            &self.swap_record,
        ]
    }
}

/// A [`StateStore`] on one Redis (or Valkey) server, shared by every process connected to it
/// (see the [crate] documentation for its keys, scripts and errors).
///
/// Its one connection is multiplexed: a single store (behind an `Arc`, as a toolbox holds it)
/// serves concurrent calls.
pub struct RedisStateStore {
    conn: ConnectionManager,
    prefix: String,
    site: Site,
    scripts: Scripts,
}

impl std::fmt::Debug for RedisStateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStateStore")
            .field("url", &self.site.url)
            .field("prefix", &self.prefix)
            .field("response_timeout", &self.site.response_timeout)
            .finish_non_exhaustive()
    }
}

/// The Redis keys of one idempotency key.
struct ClaimKeys {
    lease: String,
    started: String,
    outcome: String,
}

/// A tagged answer of a script: `(tag, data)`.
type Answer = (String, Vec<u8>);

/// Milliseconds for a `PX` argument: at least 1 (Redis refuses 0) and at most 10^12 (about 31
/// years; the scripts add two such numbers in Lua, whose doubles print integers exactly only up
/// to 14 digits).
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis())
        .unwrap_or(u64::MAX)
        .clamp(1, 1_000_000_000_000)
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, BackendError>> + Send + 'a>>;

impl RedisStateStore {
    /// Connects to the server at `url` (`redis://[[user]:password@]host[:port][/db]`, or
    /// `valkey://`) with the default [`RedisOptions`], and loads the store's scripts. Must be
    /// called within a Tokio runtime (the connection's task runs on it).
    ///
    /// # Errors
    /// [`ConnectError`] (one line, naming the URL without its password) when the URL does not
    /// parse, nothing answers there within the timeouts, the credentials are refused, or the
    /// server cannot run the scripts.
    pub async fn connect(url: &str) -> Result<Self, ConnectError> {
        RedisStateStore::connect_with(url, RedisOptions::default()).await
    }

    /// [`connect`](RedisStateStore::connect) with the given timeouts and retries.
    ///
    /// # Errors
    /// As [`connect`](RedisStateStore::connect).
    pub async fn connect_with(url: &str, options: RedisOptions) -> Result<Self, ConnectError> {
        let shown = redact_url(url);
        let client = redis::Client::open(url).map_err(|e| {
            ConnectError::new(
                shown.clone(),
                connect_reason(&e, options.connect_timeout, 1),
            )
        })?;
        let password = client
            .get_connection_info()
            .redis_settings()
            .password()
            .map(str::to_string);
        let fail =
            |reason: String| ConnectError::new(shown.clone(), scrub(reason, password.as_deref()));
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.connect_timeout))
            .set_response_timeout(Some(options.response_timeout))
            .set_number_of_retries(options.reconnect_retries);
        let attempts = options.reconnect_retries + 1;
        let mut conn = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|e| fail(connect_reason(&e, options.connect_timeout, attempts)))?;
        // Loading the scripts now is the first round trip: a server that does not answer, or
        // one that cannot run them (scripting disabled, an ACL without EVALSHA), fails here
        // rather than at the first claim.
        let scripts = Scripts::new();
        for script in scripts.all() {
            script.load_async(&mut conn).await.map_err(|e| {
                fail(format!(
                    "loading the store's Lua scripts: {}",
                    connect_reason(&e, options.response_timeout, 1)
                ))
            })?;
        }
        Ok(RedisStateStore {
            conn,
            prefix: DEFAULT_PREFIX.to_string(),
            site: Site {
                url: shown,
                response_timeout: options.response_timeout,
            },
            scripts,
        })
    }

    /// Puts every key of this store under `prefix` (default [`DEFAULT_PREFIX`]): stores with
    /// different prefixes on one server share nothing.
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The prefix of the store's keys.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    fn claim_keys(&self, key: &str) -> ClaimKeys {
        let base = format!("{}claim:{{{key}}}", self.prefix);
        ClaimKeys {
            lease: format!("{base}:lease"),
            started: format!("{base}:started"),
            outcome: format!("{base}:outcome"),
        }
    }

    fn record_key(&self, reference: &str) -> String {
        format!("{}rec:{reference}", self.prefix)
    }

    /// The key of the versioned record under `key` (`load_record`, `swap_record`).
    fn versioned_key(&self, key: &str) -> String {
        format!("{}record:{{{key}}}", self.prefix)
    }

    /// A connection handle for one step (a clone of the multiplexed connection).
    fn conn(&self) -> ConnectionManager {
        self.conn.clone()
    }

    async fn claim_now(
        &self,
        key: &str,
        req: ClaimRequest<'_>,
    ) -> Result<ClaimState, BackendError> {
        let keys = self.claim_keys(key);
        let step = format!("claim of `{key}`");
        let window_ms = millis(req.window);
        let lease = record::to_json(&LeaseOut {
            toolsmith: LEASE,
            token: req.token,
            operation_id: req.operation_id,
            request: req.request,
            window_ms,
        });
        // (the started record seen, the unknown outcome built from it)
        let mut seen: (Vec<u8>, Vec<u8>) = (Vec::new(), Vec::new());
        let mut conn = self.conn();
        // Two rounds settle every case (the second writes the unknown outcome or finds what
        // another claim wrote); the third is slack for a marker replaced in between.
        for _ in 0..3 {
            let (tag, data): Answer = self
                .scripts
                .claim
                .key(&keys.lease)
                .key(&keys.started)
                .key(&keys.outcome)
                .arg(&lease)
                .arg(millis(req.lease))
                .arg(window_ms)
                .arg(seen.0.as_slice())
                .arg(seen.1.as_slice())
                .arg(if req.started { "1" } else { "0" })
                .invoke_async(&mut conn)
                .await
                .map_err(|e| self.site.error(&step, &e))?;
            match tag.as_str() {
                "claimed" => return Ok(ClaimState::Claimed),
                "outcome" => {
                    let outcome = record::outcome(&data)
                        .ok_or_else(|| self.site.foreign(&keys.outcome, OUTCOME))?;
                    return Ok(ClaimState::Recorded(outcome));
                }
                "lease" => {
                    let held = record::lease(&data)
                        .ok_or_else(|| self.site.foreign(&keys.lease, LEASE))?;
                    return Ok(if held.token == req.token {
                        ClaimState::Claimed
                    } else {
                        ClaimState::Running {
                            operation_id: held.operation_id,
                            request: held.request,
                        }
                    });
                }
                "started" => {
                    let run = record::lease(&data)
                        .ok_or_else(|| self.site.foreign(&keys.started, LEASE))?;
                    let unknown = StoredOutcome {
                        operation_id: run.operation_id,
                        reference: None,
                        unknown: true,
                        request: run.request,
                        at_unix_ms: unix_ms(),
                    };
                    let built = record::to_json(&OutcomeOut {
                        toolsmith: OUTCOME,
                        outcome: &unknown,
                    });
                    seen = (data, built);
                }
                "foreign" => return Err(self.foreign_answer(&data, &keys)),
                other => return Err(self.site.unexpected(&step, other)),
            }
        }
        Err(BackendError::new(format!(
            "the {step} at {} found its started marker replaced three times in a row; try again",
            self.site.url
        )))
    }

    /// The error of a script's `{'foreign', key}` answer.
    fn foreign_answer(&self, data: &[u8], keys: &ClaimKeys) -> BackendError {
        let key = String::from_utf8_lossy(data);
        let kind = if key == keys.outcome { OUTCOME } else { LEASE };
        self.site.foreign(&key, kind)
    }

    /// Runs a holder's step (`renew`, `mark_started`, `finish`, `release`): `true` when the
    /// lease was `token`'s and the step applied.
    async fn holder_step(
        &self,
        step: String,
        keys: &ClaimKeys,
        invocation: &redis::ScriptInvocation<'_>,
    ) -> Result<bool, BackendError> {
        let mut conn = self.conn();
        let (tag, data): Answer = invocation
            .invoke_async(&mut conn)
            .await
            .map_err(|e| self.site.error(&step, &e))?;
        match tag.as_str() {
            "ok" => Ok(true),
            "not_holder" => Ok(false),
            "exists" => Err(BackendError::new(format!(
                "Redis at {} already keeps a value under `{}`; the {step} wrote nothing",
                self.site.url,
                String::from_utf8_lossy(&data)
            ))),
            "foreign" => Err(self.foreign_answer(&data, keys)),
            other => Err(self.site.unexpected(&step, other)),
        }
    }

    fn error(&self, step: &str, e: &RedisError) -> BackendError {
        self.site.error(step, e)
    }
}

impl StateStore for RedisStateStore {
    fn claim<'a>(&'a self, key: &'a str, req: ClaimRequest<'a>) -> StoreFuture<'a, ClaimState> {
        Box::pin(self.claim_now(key, req))
    }

    fn renew<'a>(&'a self, key: &'a str, token: &'a str, lease: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let keys = self.claim_keys(key);
            let mut invocation = self.scripts.renew.prepare_invoke();
            invocation
                .key(&keys.lease)
                .key(&keys.started)
                .arg(token)
                .arg(millis(lease));
            self.holder_step(format!("renewal of `{key}`"), &keys, &invocation)
                .await
        })
    }

    fn mark_started<'a>(&'a self, key: &'a str, token: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let keys = self.claim_keys(key);
            let mut invocation = self.scripts.mark_started.prepare_invoke();
            invocation.key(&keys.lease).key(&keys.started).arg(token);
            self.holder_step(format!("start of `{key}`"), &keys, &invocation)
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
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let keys = self.claim_keys(key);
            let record = record::to_json(&OutcomeOut {
                toolsmith: OUTCOME,
                outcome,
            });
            let mut invocation = self.scripts.finish.prepare_invoke();
            invocation
                .key(&keys.lease)
                .key(&keys.started)
                .key(&keys.outcome)
                .arg(token)
                .arg(record)
                .arg(millis(window));
            if let Some(kept) = kept {
                invocation
                    .key(self.record_key(kept.reference))
                    .arg(record::to_json(&KeptOut {
                        toolsmith: KEPT,
                        value: kept.value,
                    }))
                    .arg(millis(kept.ttl));
            }
            self.holder_step(format!("finish of `{key}`"), &keys, &invocation)
                .await
        })
    }

    fn release<'a>(&'a self, key: &'a str, token: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let keys = self.claim_keys(key);
            let mut invocation = self.scripts.release.prepare_invoke();
            invocation.key(&keys.lease).key(&keys.started).arg(token);
            self.holder_step(format!("release of `{key}`"), &keys, &invocation)
                .await
        })
    }

    fn keep<'a>(
        &'a self,
        reference: &'a str,
        value: &'a Value,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let record = record::to_json(&KeptOut {
                toolsmith: KEPT,
                value,
            });
            let mut conn = self.conn();
            // `NX`: a kept reference is never replaced.
            let written: Option<String> = redis::cmd("SET")
                .arg(self.record_key(reference))
                .arg(&record)
                .arg("NX")
                .arg("PX")
                .arg(millis(ttl))
                .query_async(&mut conn)
                .await
                .map_err(|e| self.error("keeping of a value", &e))?;
            match written {
                Some(_) => Ok(()),
                None => Err(BackendError::new(format!(
                    "Redis at {} already keeps a value under {reference}; it was not replaced",
                    self.site.url
                ))),
            }
        })
    }

    fn read<'a>(&'a self, reference: &'a str) -> StoreFuture<'a, Option<Value>> {
        Box::pin(async move {
            let key = self.record_key(reference);
            let mut conn = self.conn();
            let raw: Option<Vec<u8>> =
                match redis::cmd("GET").arg(&key).query_async(&mut conn).await {
                    Ok(raw) => raw,
                    Err(e) if e.code() == Some("WRONGTYPE") => {
                        return Err(self.site.foreign(&key, KEPT))
                    }
                    Err(e) => return Err(self.error(&format!("read of `{reference}`"), &e)),
                };
            match raw {
                None => Ok(None),
                Some(raw) => record::kept(&raw)
                    .map(Some)
                    .ok_or_else(|| self.site.foreign(&key, KEPT)),
            }
        })
    }

    fn load_record<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Record>> {
        Box::pin(async move {
            let hash = self.versioned_key(key);
            let mut conn = self.conn();
            let fields: BTreeMap<Vec<u8>, Vec<u8>> = match redis::cmd("HGETALL")
                .arg(&hash)
                .query_async(&mut conn)
                .await
            {
                Ok(fields) => fields,
                Err(e) if e.code() == Some("WRONGTYPE") => {
                    return Err(self.site.foreign(&hash, RECORD))
                }
                Err(e) => return Err(self.error(&format!("load of the record `{key}`"), &e)),
            };
            if fields.is_empty() {
                // No key (or an expired one): no record.
                return Ok(None);
            }
            record::versioned(&fields)
                .map(Some)
                .ok_or_else(|| self.site.foreign(&hash, RECORD))
        })
    }

    fn swap_record<'a>(
        &'a self,
        key: &'a str,
        expected: u64,
        value: &'a Value,
        ttl: Duration,
    ) -> StoreFuture<'a, Option<u64>> {
        Box::pin(async move {
            if let Some(e) = oversized_record(key, value) {
                return Err(e);
            }
            // No record reaches the largest version, so none is at it.
            let Some(next) = expected.checked_add(1) else {
                return Ok(None);
            };
            let hash = self.versioned_key(key);
            let step = format!("swap of the record `{key}`");
            let mut conn = self.conn();
            let (tag, _): Answer = self
                .scripts
                .swap_record
                .key(&hash)
                .arg(expected.to_string())
                .arg(next.to_string())
                .arg(record::to_json(value))
                .arg(millis(ttl))
                .invoke_async(&mut conn)
                .await
                .map_err(|e| self.site.error(&step, &e))?;
            match tag.as_str() {
                "ok" => Ok(Some(next)),
                "stale" => Ok(None),
                "foreign" => Err(self.site.foreign(&hash, RECORD)),
                other => Err(self.site.unexpected(&step, other)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millis_stay_in_what_redis_and_lua_take() {
        assert_eq!(millis(Duration::ZERO), 1);
        assert_eq!(millis(Duration::from_millis(1500)), 1500);
        assert_eq!(millis(Duration::MAX), 1_000_000_000_000);
    }

    #[test]
    fn the_scripts_carry_the_prelude() {
        let scripts = Scripts::new();
        // Six different scripts (different hashes), each with the shared helpers.
        let hashes: std::collections::BTreeSet<&str> =
            scripts.all().iter().map(|s| s.get_hash()).collect();
        assert_eq!(hashes.len(), 6);
        assert!(include_str!("lua/claim.lua").contains("read(KEYS[3])"));
    }
}
