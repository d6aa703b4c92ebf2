//! Tasks: calls that outlive their request, kept in the [state store](crate::state) so that
//! any replica sharing it answers for them.
//!
//! A host (or the MCP server, which does this for a tool with `#[tool(task = "optional")]`)
//! starts a call as a task with [`Tasks::start`]: the task's record is written at once
//! (`working`), and the call runs on this replica in the background, through the same pipeline
//! as a direct call. Any replica then answers [`Tasks::get`] (the record, with the call's
//! envelope once it has one), [`Tasks::answer`] (the responses to the questions the tool asked
//! while it ran) and [`Tasks::cancel`] from the store alone.
//!
//! ```text
//! start ──▶ working ──envelope──▶ completed            (kept until the task's ttl)
//!            │  ├─ asks ──▶ input_required ──answer (any replica)──▶ working
//!            │  └─ cancel (any replica) ──▶ cancelled  (the call's future is dropped)
//!            └─ its replica stops renewing the lease ──▶ failed (outcome unknown for a write)
//! ```
//!
//! **The record** is one JSON value in the store ([`StateStore::swap_record`]), replaced only
//! by compare-and-swap, so two replicas never overwrite each other's step. It names the replica
//! that runs the call and how long that replica's lease lasts; the runner renews the lease every
//! third of it, and reads the record every [poll interval](Tasks::poll_interval) for a cancel or
//! an answer (at once when they land on its own replica). A replica that finds the lease lapsed
//! ends the task `failed`: for a tool that writes, with the boundary's `OUTCOME_UNKNOWN`
//! meaning (the write may or may not have happened; its idempotency record says the same to a
//! repeat), never `working` forever. Leases are compared with the replicas' wall clocks, so the
//! clocks must agree to well within the lease (15 s by default; NTP does).
//!
//! **Who may read it**: a task is answered only to the caller that started it (the same
//! [`Caller::id`]; anonymous callers' tasks to anonymous callers). Another caller is told it
//! does not exist, as for an unknown id; the ids are random (128 bits).
//!
//! **Limits**: at most [`max_per_caller`](Tasks::max_per_caller) live tasks per caller and
//! [`max_live`](Tasks::max_live) in all (both counted across the replicas that share the
//! store), and [`max_running`](Tasks::max_running) running on one replica; the envelope a
//! record keeps is at most [`max_result_bytes`](Tasks::max_result_bytes) of JSON (a larger
//! one is replaced by a `RESULT_TOO_LARGE` failure); the record lives for the task's
//! [ttl](Tasks::ttl) from its creation and is removed by the store after it. Each limit is a
//! [`TaskError`] with its figure.
//!
//! [`Caller::id`]: crate::Caller::id

use crate::fault::BackendError;
use crate::reply::BoxFuture;
use crate::state::{Record, StateStore};
use crate::store::unix_ms;
use crate::{Caller, Envelope};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;
use tokio::sync::{oneshot, Notify};

/// The status of a task, as MCP spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The call is running.
    Working,
    /// The tool asked something; [`Tasks::answer`] lets it go on.
    InputRequired,
    /// The call ended with an envelope (of any status: a tool's error is a completed task).
    Completed,
    /// The task ended without an envelope: its replica stopped, or the envelope was too large.
    Failed,
    /// The task was cancelled before its call ended.
    Cancelled,
}

impl TaskStatus {
    /// `true` for the statuses a task never leaves: completed, failed, cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// The code of a task whose replica stopped mid-run, for a tool that writes nothing (it can be
/// started again); a writing tool's is [`OUTCOME_UNKNOWN`](crate::codes::OUTCOME_UNKNOWN).
pub const ABANDONED: &str = "TASK_ABANDONED";

/// The code of a task whose envelope is larger than [`TaskSettings::max_result_bytes`].
pub const RESULT_TOO_LARGE: &str = "TASK_RESULT_TOO_LARGE";

/// Why a task ended without an envelope ([`TaskStatus::Failed`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskFailure {
    /// [`OUTCOME_UNKNOWN`](crate::codes::OUTCOME_UNKNOWN) (a writing tool's replica stopped
    /// mid-run), [`ABANDONED`] (a tool that does not write; it can be started again) or
    /// [`RESULT_TOO_LARGE`].
    pub code: String,
    /// What happened and what to do, for the agent.
    pub message: String,
}

/// One task as the store holds it: what [`Tasks::get`] answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task's id (random, `task_` and 32 hex digits).
    pub id: String,
    /// The tool the call runs.
    pub tool: String,
    /// The id of the caller that started it (`None`: anonymous).
    pub owner: Option<String>,
    /// Where the task is.
    pub status: TaskStatus,
    /// A line for the user on what the task is doing (the tool's last progress message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When its record last changed.
    pub updated_ms: u64,
    /// How long the record is kept from its creation, in milliseconds.
    pub ttl_ms: u64,
    /// How often a client should poll, in milliseconds.
    pub poll_ms: u64,
    /// Whether the tool declares writes (a lapsed run then leaves its outcome unknown).
    pub writes: bool,
    /// The questions the tool asked and nobody answered yet, by key (their form is the
    /// transport's: an MCP `inputRequests` entry).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub input_requests: Map<String, Value>,
    /// The call's envelope, once completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<Envelope>,
    /// Why it failed, once failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<TaskFailure>,
    /// The replica's token that runs the call.
    holder: String,
    /// Until when (Unix ms) the holder's lease runs.
    lease_until_ms: u64,
    /// A cancel was asked for; the runner acts on it.
    #[serde(default)]
    cancel_requested: bool,
    /// Answers that arrived for the tool's questions, not yet taken by the runner.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    input_responses: Map<String, Value>,
}

impl TaskRecord {
    /// When it was created, in RFC 3339 (UTC, milliseconds), as MCP's `createdAt`.
    pub fn created_at(&self) -> String {
        rfc3339_ms(self.created_ms)
    }

    /// When its record last changed, in RFC 3339, as MCP's `lastUpdatedAt`.
    pub fn updated_at(&self) -> String {
        rfc3339_ms(self.updated_ms)
    }
    /// The lapse of the record's ttl from now, at least a second (the store's expiry).
    fn remaining(&self, now: u64) -> Duration {
        let end = self.created_ms.saturating_add(self.ttl_ms);
        Duration::from_millis(end.saturating_sub(now).max(1_000))
    }

    /// Whether `caller` may see it.
    fn owned_by(&self, caller: &Caller) -> bool {
        self.owner.as_deref() == caller.id()
    }
}

/// Why a task operation was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    /// No task with this id is visible to the caller (never created, past its ttl, or
    /// another caller's).
    #[error("no task {0} exists for this caller (unknown id, past its ttl, or another caller's)")]
    NotFound(String),
    /// The caller has [`Tasks::max_per_caller`] live tasks already.
    #[error("this caller has {limit} live tasks, the most a caller may have; wait for one to end or cancel one")]
    TooManyForCaller {
        /// The limit.
        limit: usize,
    },
    /// The service has [`Tasks::max_live`] live tasks already, across its replicas.
    #[error("this service has {limit} live tasks, the most it keeps at once; try again once some have ended")]
    TooManyLive {
        /// The limit.
        limit: usize,
    },
    /// This replica runs [`Tasks::max_running`] tasks already.
    #[error("this server runs {limit} tasks, the most it runs at once; try again shortly")]
    TooManyRunning {
        /// The limit.
        limit: usize,
    },
    /// The store could not be reached or read.
    #[error("the task store failed: {0}")]
    Store(#[from] BackendError),
}

/// The shared bookkeeping of a running task on its replica: wakes the runner when a cancel or
/// an answer lands here, and hands answers to the questions waiting for them.
#[derive(Default)]
struct Local {
    wake: Notify,
    waiting: Mutex<HashMap<String, oneshot::Sender<Value>>>,
}

/// The tasks of a service: started here, answered from the shared [`StateStore`] (see the
/// [module](self)).
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; }
/// use std::sync::Arc;
/// use std::time::Duration;
/// let store = Arc::new(toolsmith::state::MemoryStateStore::default());
/// let tasks = toolsmith::state::task::Tasks::new(store)
///     .ttl(Duration::from_secs(600))
///     .poll_interval(Duration::from_millis(500))
///     .max_per_caller(8);
/// assert_eq!(tasks.settings().poll_interval, Duration::from_millis(500));
/// ```
#[derive(Clone)]
pub struct Tasks {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn StateStore>,
    settings: TaskSettings,
    /// This replica's token: it names the holder of the tasks it runs.
    replica: String,
    running: AtomicUsize,
    local: Mutex<HashMap<String, Arc<Local>>>,
}

/// The figures of a [`Tasks`], read with [`Tasks::settings`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskSettings {
    /// How long a task's record is kept from its creation (default one hour).
    pub ttl: Duration,
    /// How often a client should poll, and the runner reads the record (default 1 s).
    pub poll_interval: Duration,
    /// How long the runner's lease lasts unless renewed (default 15 s).
    pub lease: Duration,
    /// Live tasks per caller (default 16).
    pub max_per_caller: usize,
    /// Live tasks in all, across the replicas (default 1024).
    pub max_live: usize,
    /// Tasks running on this replica (default 64).
    pub max_running: usize,
    /// The largest envelope a record keeps, in bytes of JSON (default 1 MiB).
    pub max_result_bytes: usize,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_secs(1),
            lease: Duration::from_secs(15),
            max_per_caller: 16,
            max_live: 1024,
            max_running: 64,
            max_result_bytes: 1 << 20,
        }
    }
}

/// The key of a task's record.
fn record_key(id: &str) -> String {
    format!("toolsmith:task:{id}")
}

/// The key of the record that lists every live task of the service.
const LIVE_KEY: &str = "toolsmith:tasks-live";

/// The key of the record that lists a caller's live tasks.
fn owner_key(owner: Option<&str>) -> String {
    match owner {
        Some(id) => format!(
            "toolsmith:tasks-of:{}",
            crate::audit::args_digest(&Value::from(id))
        ),
        None => "toolsmith:tasks-of:anonymous".into(),
    }
}

fn rfc3339_ms(unix_ms: u64) -> String {
    crate::audit::rfc3339(std::time::UNIX_EPOCH + Duration::from_millis(unix_ms))
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Tasks {
    /// Tasks kept in `store` (the store the toolbox shares with its replicas), with the
    /// default [`TaskSettings`].
    pub fn new(store: Arc<dyn StateStore>) -> Tasks {
        Tasks {
            inner: Arc::new(Inner {
                store,
                settings: TaskSettings::default(),
                replica: crate::secret::random_hex(16),
                running: AtomicUsize::new(0),
                local: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Tasks of this process only, in a [`MemoryStateStore`](crate::state::MemoryStateStore).
    pub fn in_memory() -> Tasks {
        Tasks::new(Arc::new(crate::state::MemoryStateStore::default()))
    }

    fn with(self, f: impl FnOnce(&mut TaskSettings)) -> Tasks {
        let mut settings = self.inner.settings;
        f(&mut settings);
        Tasks {
            inner: Arc::new(Inner {
                store: Arc::clone(&self.inner.store),
                settings,
                replica: self.inner.replica.clone(),
                running: AtomicUsize::new(0),
                local: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// How long a task's record is kept from its creation (default one hour; at least 1 s).
    #[must_use]
    pub fn ttl(self, ttl: Duration) -> Tasks {
        self.with(|s| s.ttl = ttl.max(Duration::from_secs(1)))
    }

    /// How often a client should poll, and how often the runner reads the record for a cancel
    /// or an answer from another replica (default 1 s; at least 10 ms).
    #[must_use]
    pub fn poll_interval(self, interval: Duration) -> Tasks {
        self.with(|s| s.poll_interval = interval.max(Duration::from_millis(10)))
    }

    /// How long the runner's lease lasts unless renewed (default 15 s; at least 30 ms): a
    /// replica that dies leaves its tasks `working` this long at most.
    #[must_use]
    pub fn lease(self, lease: Duration) -> Tasks {
        self.with(|s| s.lease = lease.max(Duration::from_millis(30)))
    }

    /// The most live tasks one caller may have, across replicas (default 16; at least 1).
    #[must_use]
    pub fn max_per_caller(self, limit: usize) -> Tasks {
        self.with(|s| s.max_per_caller = limit.max(1))
    }

    /// The most live tasks of the whole service, across the replicas that share the store
    /// (default 1024; at least 1). Every start and end of a task rewrites the one record that
    /// counts them, so this bounds that record's size too.
    #[must_use]
    pub fn max_live(self, limit: usize) -> Tasks {
        self.with(|s| s.max_live = limit.max(1))
    }

    /// The most tasks this replica runs at once (default 64; at least 1).
    #[must_use]
    pub fn max_running(self, limit: usize) -> Tasks {
        self.with(|s| s.max_running = limit.max(1))
    }

    /// The largest envelope a task's record keeps, in bytes of JSON (default 1 MiB; at most
    /// the store's [`MAX_KEPT_BYTES`](crate::state::MAX_KEPT_BYTES) less room for the rest).
    #[must_use]
    pub fn max_result_bytes(self, limit: usize) -> Tasks {
        let cap = crate::state::MAX_KEPT_BYTES - 64 * 1024;
        self.with(|s| s.max_result_bytes = limit.min(cap))
    }

    /// The figures in force.
    pub fn settings(&self) -> TaskSettings {
        self.inner.settings
    }

    /// Starts a call as a task: writes its record (`working`, this replica holding the lease)
    /// and runs the future `run` makes on a tokio task of its own, renewing the lease and
    /// watching for a cancel and for answers until it ends. `run` is given the task's
    /// [`TaskHandle`], through which the call asks its questions.
    ///
    /// `writes`: whether the tool declares writes (a lapsed run then fails `OUTCOME_UNKNOWN`).
    ///
    /// # Errors
    /// [`TaskError::TooManyForCaller`], [`TaskError::TooManyLive`],
    /// [`TaskError::TooManyRunning`], or the store's error; nothing runs then.
    pub async fn start<F>(
        &self,
        tool: &str,
        caller: &Caller,
        writes: bool,
        run: F,
    ) -> Result<TaskRecord, TaskError>
    where
        F: FnOnce(TaskHandle) -> BoxFuture<'static, Envelope>,
    {
        let inner = &self.inner;
        let s = inner.settings;
        if inner.running.fetch_add(1, Ordering::AcqRel) >= s.max_running {
            inner.running.fetch_sub(1, Ordering::AcqRel);
            return Err(TaskError::TooManyRunning {
                limit: s.max_running,
            });
        }
        let slot = RunningSlot(Arc::clone(&self.inner));
        let id = format!("task_{}", crate::secret::random_hex(16));
        let now = unix_ms();
        let record = TaskRecord {
            id: id.clone(),
            tool: tool.to_string(),
            owner: caller.id().map(str::to_string),
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now,
            updated_ms: now,
            ttl_ms: ms(s.ttl),
            poll_ms: ms(s.poll_interval),
            writes,
            input_requests: Map::new(),
            envelope: None,
            failure: None,
            holder: inner.replica.clone(),
            lease_until_ms: now.saturating_add(ms(s.lease)),
            cancel_requested: false,
            input_responses: Map::new(),
        };
        self.admit(&record).await?;
        let value = serde_json::to_value(&record).map_err(|e| BackendError::new(e.to_string()))?;
        let written = match inner
            .store
            .swap_record(&record_key(&id), 0, &value, s.ttl)
            .await
        {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err(BackendError::new(format!("task id {id} is taken")).into()),
            Err(e) => Err(TaskError::from(e)),
        };
        if let Err(e) = written {
            // Counted for its caller, never written: the count gives its place back.
            self.discharge(&record).await;
            return Err(e);
        }
        let local = Arc::new(Local::default());
        inner
            .local
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), Arc::clone(&local));
        let handle = TaskHandle {
            tasks: self.clone(),
            id: id.clone(),
            local: Arc::clone(&local),
        };
        let call = run(handle);
        let tasks = self.clone();
        tokio::spawn(async move {
            let _slot = slot;
            tasks.drive(id, local, call).await;
        });
        Ok(record)
    }

    /// Counts the task in its caller's list of live tasks and in the service's, refusing it
    /// past either limit (and then counted in neither).
    async fn admit(&self, record: &TaskRecord) -> Result<(), TaskError> {
        let s = self.inner.settings;
        let caller = owner_key(record.owner.as_deref());
        self.count_in(&caller, record, s.max_per_caller, |limit| {
            TaskError::TooManyForCaller { limit }
        })
        .await?;
        let all = self
            .count_in(LIVE_KEY, record, s.max_live, |limit| {
                TaskError::TooManyLive { limit }
            })
            .await;
        if all.is_err() {
            self.uncount_in(&caller, record).await;
        }
        all
    }

    /// Adds the task to the list of live tasks under `key`, unless it holds `limit` already.
    async fn count_in(
        &self,
        key: &str,
        record: &TaskRecord,
        limit: usize,
        refused: impl Fn(usize) -> TaskError,
    ) -> Result<(), TaskError> {
        let until = record.created_ms.saturating_add(record.ttl_ms);
        self.update_record(key, |current, now| {
            let mut live: Map<String, Value> = current
                .and_then(|v| v.as_object().cloned())
                .unwrap_or_default();
            live.retain(|_, end| end.as_u64().is_some_and(|end| end > now));
            if live.len() >= limit {
                return Err(refused(limit));
            }
            live.insert(record.id.clone(), Value::from(until));
            Ok(Some(live_list(live, now)))
        })
        .await
        .map(|_| ())
    }

    /// Takes the task off its caller's list of live tasks and the service's (it ended).
    async fn discharge(&self, record: &TaskRecord) {
        self.uncount_in(&owner_key(record.owner.as_deref()), record)
            .await;
        self.uncount_in(LIVE_KEY, record).await;
    }

    /// Takes the task off the list of live tasks under `key`.
    async fn uncount_in(&self, key: &str, record: &TaskRecord) {
        let _ = self
            .update_record(key, |current, now| {
                let Some(mut live) = current.and_then(|v| v.as_object().cloned()) else {
                    return Ok(None);
                };
                if live.remove(&record.id).is_none() {
                    return Ok(None);
                }
                Ok(Some(live_list(live, now)))
            })
            .await;
    }

    /// Replaces the record under `key` by what `f` makes of it (`None`: leave it), by
    /// compare-and-swap, reading again when another writer came first.
    async fn update_record(
        &self,
        key: &str,
        mut f: impl FnMut(Option<&Value>, u64) -> Result<Option<(Value, Duration)>, TaskError>,
    ) -> Result<Option<u64>, TaskError> {
        let store = &self.inner.store;
        // Each round is lost only to another writer's step; a bound keeps a pathological
        // store from spinning.
        for _ in 0..64 {
            let current = store.load_record(key).await?;
            let version = current.as_ref().map_or(0, |r| r.version);
            let Some((value, ttl)) = f(current.as_ref().map(|r| &r.value), unix_ms())? else {
                return Ok(None);
            };
            if let Some(v) = store.swap_record(key, version, &value, ttl).await? {
                return Ok(Some(v));
            }
        }
        Err(BackendError::new(format!("the record {key} kept changing under 64 writes")).into())
    }

    /// Changes the task's record with `f` (which answers `false` to leave it), returning the
    /// record as written (or as found, when left).
    async fn change(
        &self,
        id: &str,
        mut f: impl FnMut(&mut TaskRecord, u64) -> bool,
    ) -> Result<Option<(TaskRecord, u64)>, TaskError> {
        let store = &self.inner.store;
        let key = record_key(id);
        for _ in 0..64 {
            let Some(Record { version, value }) = store.load_record(&key).await? else {
                return Ok(None);
            };
            let mut record = decode(&key, value)?;
            let now = unix_ms();
            if !f(&mut record, now) {
                return Ok(Some((record, version)));
            }
            record.updated_ms = now;
            let value =
                serde_json::to_value(&record).map_err(|e| BackendError::new(e.to_string()))?;
            let ttl = record.remaining(now);
            if let Some(v) = store.swap_record(&key, version, &value, ttl).await? {
                return Ok(Some((record, v)));
            }
        }
        Err(BackendError::new(format!("the task {id} kept changing under 64 writes")).into())
    }

    /// The task `id` as `caller` may see it. A task whose runner's lease lapsed is ended
    /// `failed` here (see the [module](self)).
    ///
    /// # Errors
    /// [`TaskError::NotFound`] for an unknown id, a task past its ttl or another caller's; the
    /// store's error.
    pub async fn get(&self, id: &str, caller: &Caller) -> Result<TaskRecord, TaskError> {
        let mut abandoned = false;
        let record = self
            .change_as_owner(id, caller, |r, now| {
                abandoned = !r.status.is_terminal() && r.lease_until_ms <= now;
                if abandoned {
                    abandon(r);
                }
                abandoned
            })
            .await?;
        // Ended here: the dead runner never took it off its caller's list.
        if abandoned {
            self.discharge(&record).await;
        }
        Ok(record)
    }

    /// Asks for the task to be cancelled: its runner drops the call (the tool sees it as a
    /// dropped call) and ends it `cancelled`, within a poll interval (at once on this
    /// replica). A task that has ended is left as it is: cancelling it again is no error.
    ///
    /// # Errors
    /// [`TaskError::NotFound`]; the store's error.
    pub async fn cancel(&self, id: &str, caller: &Caller) -> Result<(), TaskError> {
        self.change_as_owner(id, caller, |r, _| {
            let asked = !r.status.is_terminal() && !r.cancel_requested;
            r.cancel_requested |= asked;
            asked
        })
        .await?;
        self.wake(id);
        Ok(())
    }

    /// Answers questions the task's tool asked ([`TaskRecord::input_requests`]), by their keys.
    /// Keys that name no open question are ignored; the answered ones leave the record at
    /// once (the task stays `input_required` while another is open).
    ///
    /// # Errors
    /// [`TaskError::NotFound`]; the store's error.
    pub async fn answer(
        &self,
        id: &str,
        caller: &Caller,
        responses: Map<String, Value>,
    ) -> Result<(), TaskError> {
        self.change_as_owner(id, caller, |r, _| {
            if r.status.is_terminal() {
                return false;
            }
            let mut any = false;
            for (key, response) in &responses {
                if r.input_requests.remove(key).is_some() {
                    r.input_responses.insert(key.clone(), response.clone());
                    any = true;
                }
            }
            if any && r.input_requests.is_empty() && r.status == TaskStatus::InputRequired {
                r.status = TaskStatus::Working;
            }
            any
        })
        .await?;
        self.wake(id);
        Ok(())
    }

    /// [`change`](Self::change) for the task's owner only: another caller's task, like an
    /// unknown id, is [`TaskError::NotFound`] and left as it is.
    async fn change_as_owner(
        &self,
        id: &str,
        caller: &Caller,
        mut f: impl FnMut(&mut TaskRecord, u64) -> bool,
    ) -> Result<TaskRecord, TaskError> {
        match self
            .change(id, |r, now| r.owned_by(caller) && f(r, now))
            .await?
        {
            Some((record, _)) if record.owned_by(caller) => Ok(record),
            _ => Err(TaskError::NotFound(id.to_string())),
        }
    }

    /// Wakes the runner of `id` when it runs on this replica.
    fn wake(&self, id: &str) {
        let local = self
            .inner
            .local
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned();
        if let Some(local) = local {
            local.wake.notify_one();
        }
    }

    /// Runs `call` to its end, a cancel, or the loss of the lease; then writes how it ended.
    async fn drive(&self, id: String, local: Arc<Local>, call: BoxFuture<'static, Envelope>) {
        let s = self.inner.settings;
        let tick = s.poll_interval.min(s.lease / 3);
        let mut call = call;
        let mut renewed = tokio::time::Instant::now();
        let ended: Option<Envelope> = loop {
            // The call first; then a wake (a cancel or an answer on this replica) or the tick.
            let mut notified = std::pin::pin!(local.wake.notified());
            let mut sleep = std::pin::pin!(tokio::time::sleep(tick));
            let finished = std::future::poll_fn(|cx| {
                if let Poll::Ready(env) = call.as_mut().poll(cx) {
                    return Poll::Ready(Some(env));
                }
                if notified.as_mut().poll(cx).is_ready() || sleep.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(None);
                }
                Poll::Pending
            })
            .await;
            if let Some(env) = finished {
                break Some(env);
            }
            let renew = renewed.elapsed() >= s.lease / 3;
            let lease = ms(s.lease);
            let mut taken = Map::new();
            let step = self
                .change(&id, |r, now| {
                    taken = std::mem::take(&mut r.input_responses);
                    let lost = r.holder != self.inner.replica || r.status.is_terminal();
                    if lost || r.cancel_requested {
                        return false;
                    }
                    if renew {
                        r.lease_until_ms = now.saturating_add(lease);
                    }
                    renew || !taken.is_empty()
                })
                .await;
            match step {
                Ok(Some((r, _))) if r.cancel_requested && !r.status.is_terminal() => break None,
                // Another replica ended it (the lease lapsed), or the record is gone: the
                // call stops, and nothing more is written.
                Ok(Some((r, _))) if r.status.is_terminal() || r.holder != self.inner.replica => {
                    self.forget(&id);
                    return;
                }
                Ok(None) => {
                    self.forget(&id);
                    return;
                }
                Ok(Some(_)) => {
                    if renew {
                        renewed = tokio::time::Instant::now();
                    }
                    let mut waiting = local.waiting.lock().unwrap_or_else(PoisonError::into_inner);
                    for (key, response) in taken {
                        if let Some(tx) = waiting.remove(&key) {
                            let _ = tx.send(response);
                        }
                    }
                }
                // The store failed: the lease may lapse, which is the safe reading; the call
                // goes on and the next tick tries again.
                Err(_) => {}
            }
        };
        drop(call);
        let limit = s.max_result_bytes;
        let done = self
            .change(&id, |r, _| {
                if r.status.is_terminal() || r.holder != self.inner.replica {
                    return false;
                }
                r.input_requests.clear();
                r.input_responses.clear();
                match &ended {
                    None => r.status = TaskStatus::Cancelled,
                    Some(env) if crate::limits::json_len(&serde_json::to_value(env).unwrap_or(Value::Null)) > limit => {
                        r.status = TaskStatus::Failed;
                        r.failure = Some(TaskFailure {
                            code: RESULT_TOO_LARGE.into(),
                            message: format!("the task's result is larger than the {limit} bytes a task keeps; ask for less (a narrower query, a page)"),
                        });
                    }
                    Some(env) => {
                        r.status = TaskStatus::Completed;
                        r.envelope = Some(env.clone());
                    }
                }
                true
            })
            .await;
        if let Ok(Some((record, _))) = done {
            self.discharge(&record).await;
        }
        self.forget(&id);
    }

    fn forget(&self, id: &str) {
        self.inner
            .local
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
    }
}

/// A list of live tasks (a caller's or the service's: task id to the end of its ttl, Unix ms)
/// as the record to write: kept as long as its longest-lived task (at least a second).
fn live_list(live: Map<String, Value>, now: u64) -> (Value, Duration) {
    let end = live.values().filter_map(Value::as_u64).max().unwrap_or(now);
    let ttl = Duration::from_millis(end.saturating_sub(now).max(1_000));
    (Value::Object(live), ttl)
}

/// Ends a task whose runner's lease lapsed.
fn abandon(r: &mut TaskRecord) {
    r.status = TaskStatus::Failed;
    r.input_requests.clear();
    r.input_responses.clear();
    r.failure = Some(if r.writes {
        TaskFailure {
            code: crate::codes::OUTCOME_UNKNOWN.into(),
            message: format!(
                "the server running this task stopped before it reported; whether `{}` wrote \
                 anything is unknown: check before running it again",
                r.tool
            ),
        }
    } else {
        TaskFailure {
            code: ABANDONED.into(),
            message: format!(
                "the server running this task stopped before it reported; `{}` writes nothing, \
                 so it can be started again",
                r.tool
            ),
        }
    });
}

fn decode(key: &str, value: Value) -> Result<TaskRecord, BackendError> {
    serde_json::from_value(value)
        .map_err(|e| BackendError::new(format!("the record under {key} is not a task: {e}")))
}

/// Gives the replica's running slot back when its task ends (or its runner is dropped).
struct RunningSlot(Arc<Inner>);

impl Drop for RunningSlot {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A running task, as its call sees it: the call asks its questions and reports its progress
/// through it.
#[derive(Clone)]
pub struct TaskHandle {
    tasks: Tasks,
    id: String,
    local: Arc<Local>,
}

impl std::fmt::Debug for TaskHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHandle").field("id", &self.id).finish()
    }
}

impl TaskHandle {
    /// The task's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Asks a question: `request` is written into the record under `key` (the task becomes
    /// `input_required`), and the answer [`Tasks::answer`] gives on any replica is returned.
    /// Several questions may be open at once, under different keys.
    ///
    /// # Errors
    /// The store's error, or [`TaskError::NotFound`] when the task ended meanwhile.
    pub async fn ask(&self, key: &str, request: Value) -> Result<Value, TaskError> {
        let (tx, rx) = oneshot::channel();
        self.local
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.to_string(), tx);
        let written = self
            .tasks
            .change(&self.id, |r, _| {
                if r.status.is_terminal() {
                    return false;
                }
                r.input_requests.insert(key.to_string(), request.clone());
                r.status = TaskStatus::InputRequired;
                true
            })
            .await;
        match written {
            Ok(Some((r, _))) if !r.status.is_terminal() => {}
            Ok(_) => return Err(TaskError::NotFound(self.id.clone())),
            Err(e) => return Err(e),
        }
        rx.await.map_err(|_| TaskError::NotFound(self.id.clone()))
    }

    /// Withdraws the question `key` (its asker stopped waiting, e.g. at a timeout): it leaves
    /// the task's `input_requests` (the task is `working` again when no other is open), and an
    /// answer that comes later is ignored.
    ///
    /// # Errors
    /// The store's error.
    pub async fn withdraw(&self, key: &str) -> Result<(), TaskError> {
        self.local
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(key);
        self.tasks
            .change(&self.id, |r, _| {
                let asked = r.input_requests.remove(key).is_some();
                let answered = r.input_responses.remove(key).is_some();
                if asked && r.input_requests.is_empty() && r.status == TaskStatus::InputRequired {
                    r.status = TaskStatus::Working;
                }
                asked || answered
            })
            .await
            .map(|_| ())
    }

    /// Sets the task's status message (what a client shows beside its status).
    ///
    /// # Errors
    /// The store's error.
    pub async fn status_message(&self, message: &str) -> Result<(), TaskError> {
        self.tasks
            .change(&self.id, |r, _| {
                if r.status.is_terminal() || r.status_message.as_deref() == Some(message) {
                    return false;
                }
                r.status_message = Some(message.to_string());
                true
            })
            .await
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::MemoryStateStore;
    use serde_json::json;

    fn tasks(store: &Arc<MemoryStateStore>) -> Tasks {
        Tasks::new(Arc::clone(store) as Arc<dyn StateStore>)
            .poll_interval(Duration::from_millis(20))
            .lease(Duration::from_millis(300))
    }

    /// Polls `get` until the task ends (bounded: 10 s).
    /// Asks `tasks` for the task, as another replica (or a client) would, until `done` holds:
    /// what the runner writes is seen through the store only. Bounded (10 s).
    async fn until(
        tasks: &Tasks,
        id: &str,
        caller: &Caller,
        done: impl Fn(&TaskRecord) -> bool,
    ) -> TaskRecord {
        for _ in 0..2000 {
            let r = tasks.get(id, caller).await.expect("the task is there");
            if done(&r) {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("task {id} did not get there within 10 s");
    }

    async fn ended(tasks: &Tasks, id: &str, caller: &Caller) -> TaskRecord {
        until(tasks, id, caller, |r| r.status.is_terminal()).await
    }

    #[tokio::test]
    async fn a_task_completes_with_its_envelope_on_every_replica() {
        let store = Arc::new(MemoryStateStore::default());
        let (a, b) = (tasks(&store), tasks(&store));
        let ann = Caller::new("ann");
        let (tx, rx) = oneshot::channel::<()>();
        let started = a
            .start("export_report", &ann, false, move |_| {
                Box::pin(async move {
                    let _ = rx.await;
                    Envelope::ok(json!({"rows": 3}))
                })
            })
            .await
            .unwrap();
        assert_eq!(started.status, TaskStatus::Working);
        assert!(started.id.starts_with("task_") && started.id.len() == 37);
        // Replica B answers from the store.
        let seen = b.get(&started.id, &ann).await.unwrap();
        assert_eq!(
            (seen.status, seen.tool.as_str()),
            (TaskStatus::Working, "export_report")
        );
        tx.send(()).unwrap();
        let done = ended(&b, &started.id, &ann).await;
        assert_eq!(done.status, TaskStatus::Completed);
        assert_eq!(done.envelope.unwrap().data, Some(json!({"rows": 3})));
        // Another caller, or an anonymous one, is told it does not exist.
        for other in [Caller::new("bob"), Caller::anonymous()] {
            assert!(matches!(
                b.get(&started.id, &other).await,
                Err(TaskError::NotFound(_))
            ));
            assert!(matches!(
                b.cancel(&started.id, &other).await,
                Err(TaskError::NotFound(_))
            ));
        }
        assert!(matches!(
            b.get("task_nope", &ann).await,
            Err(TaskError::NotFound(_))
        ));
        // Cancelling an ended task changes nothing and is no error.
        b.cancel(&started.id, &ann).await.unwrap();
        assert_eq!(
            b.get(&started.id, &ann).await.unwrap().status,
            TaskStatus::Completed
        );
    }

    /// Sets a flag when dropped: the call's future was dropped.
    struct Dropped(Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[tokio::test]
    async fn a_cancel_on_another_replica_drops_the_call() {
        let store = Arc::new(MemoryStateStore::default());
        let (a, b) = (tasks(&store), tasks(&store));
        let ann = Caller::new("ann");
        let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = Dropped(Arc::clone(&dropped));
        let t = a
            .start("crawl", &ann, true, move |_| {
                Box::pin(async move {
                    let _flag = flag;
                    std::future::pending::<()>().await;
                    Envelope::ok(json!(null))
                })
            })
            .await
            .unwrap();
        b.cancel(&t.id, &ann).await.unwrap();
        let done = ended(&b, &t.id, &ann).await;
        assert_eq!(done.status, TaskStatus::Cancelled);
        assert!(done.envelope.is_none());
        assert!(
            dropped.load(Ordering::SeqCst),
            "the call's future is dropped"
        );
    }

    #[tokio::test]
    async fn a_lapsed_lease_fails_the_task_and_a_write_is_outcome_unknown() {
        let store = Arc::new(MemoryStateStore::default());
        let b = tasks(&store);
        let ann = Caller::new("ann");
        for (writes, code) in [(true, crate::codes::OUTCOME_UNKNOWN), (false, ABANDONED)] {
            // Replica A: its runtime stops (the process dies), so nobody renews the lease.
            let id = {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_time()
                    .build()
                    .unwrap();
                let a = tasks(&store);
                let ann = ann.clone();
                std::thread::spawn(move || {
                    rt.block_on(async {
                        a.start("migrate", &ann, writes, |_| {
                            Box::pin(std::future::pending::<Envelope>())
                        })
                        .await
                        .unwrap()
                        .id
                    })
                    // `rt` drops here with the runner: nothing renews the lease any more.
                })
                .join()
                .unwrap()
            };
            assert_eq!(b.get(&id, &ann).await.unwrap().status, TaskStatus::Working);
            let done = ended(&b, &id, &ann).await;
            assert_eq!(done.status, TaskStatus::Failed);
            let failure = done.failure.unwrap();
            assert_eq!(failure.code, code);
            assert!(failure.message.contains("`migrate`"), "{}", failure.message);
        }
    }

    #[tokio::test]
    async fn questions_are_answered_from_any_replica_one_at_a_time() {
        let store = Arc::new(MemoryStateStore::default());
        let (a, b) = (tasks(&store), tasks(&store));
        let ann = Caller::new("ann");
        let t = a
            .start("confirm", &ann, true, |task| {
                Box::pin(async move {
                    let (x, y) = tokio::join!(
                        task.ask("first", json!({"method": "elicitation/create"})),
                        task.ask("second", json!({"method": "elicitation/create"}))
                    );
                    Envelope::ok(json!([x.unwrap(), y.unwrap()]))
                })
            })
            .await
            .unwrap();
        let asked = until(&b, &t.id, &ann, |r| r.input_requests.len() == 2).await;
        assert_eq!(asked.status, TaskStatus::InputRequired);
        // One answer (and a key that names nothing, ignored): the other stays open.
        let mut one = Map::new();
        one.insert("first".into(), json!("yes"));
        one.insert("unknown".into(), json!("ignored"));
        b.answer(&t.id, &ann, one).await.unwrap();
        let now = b.get(&t.id, &ann).await.unwrap();
        assert_eq!(now.status, TaskStatus::InputRequired);
        assert_eq!(now.input_requests.keys().collect::<Vec<_>>(), ["second"]);
        let mut two = Map::new();
        two.insert("second".into(), json!("no"));
        b.answer(&t.id, &ann, two).await.unwrap();
        let done = ended(&b, &t.id, &ann).await;
        assert_eq!(done.envelope.unwrap().data, Some(json!(["yes", "no"])));
    }

    #[tokio::test]
    async fn a_withdrawn_question_leaves_the_record_and_its_late_answer_is_ignored() {
        let store = Arc::new(MemoryStateStore::default());
        let (a, b) = (tasks(&store), tasks(&store));
        let ann = Caller::new("ann");
        // The tool goes on only once the test has seen the withdrawn question and answered late.
        let (go, gone) = oneshot::channel::<()>();
        let (withdrawn, was_withdrawn) = oneshot::channel::<()>();
        let t = a
            .start("confirm", &ann, false, |task| {
                Box::pin(async move {
                    // The asker gives up at once: a client that never answers.
                    let asked = tokio::time::timeout(
                        Duration::from_millis(50),
                        task.ask("late", json!({"method": "elicitation/create"})),
                    )
                    .await;
                    assert!(asked.is_err(), "nobody answered");
                    task.withdraw("late").await.unwrap();
                    let _ = withdrawn.send(());
                    let _ = gone.await;
                    Envelope::ok(json!("went on"))
                })
            })
            .await
            .unwrap();
        was_withdrawn.await.expect("the tool withdrew its question");
        let seen = b.get(&t.id, &ann).await.unwrap();
        assert_eq!(seen.status, TaskStatus::Working, "{seen:?}");
        assert!(seen.input_requests.is_empty(), "{seen:?}");
        // A late answer names no open question: ignored.
        let mut late = Map::new();
        late.insert("late".into(), json!("yes"));
        b.answer(&t.id, &ann, late).await.unwrap();
        go.send(()).unwrap();
        let done = ended(&b, &t.id, &ann).await;
        assert_eq!(done.envelope.unwrap().data, Some(json!("went on")));
    }

    #[tokio::test]
    async fn the_limits_are_clear_errors() {
        let store = Arc::new(MemoryStateStore::default());
        let per_caller = tasks(&store).max_per_caller(1);
        let ann = Caller::new("ann");
        let pending =
            |_: TaskHandle| -> BoxFuture<'static, Envelope> { Box::pin(std::future::pending()) };
        let first = per_caller.start("t", &ann, false, pending).await.unwrap();
        let err = per_caller
            .start("t", &ann, false, pending)
            .await
            .unwrap_err();
        assert!(
            matches!(err, TaskError::TooManyForCaller { limit: 1 }),
            "{err}"
        );
        assert!(err.to_string().contains("1 live tasks"), "{err}");
        // Another caller has room; an ended task frees its caller's.
        per_caller
            .start("t", &Caller::new("bob"), false, pending)
            .await
            .unwrap();
        per_caller.cancel(&first.id, &ann).await.unwrap();
        ended(&per_caller, &first.id, &ann).await;
        per_caller.start("t", &ann, false, pending).await.unwrap();

        let running = tasks(&store).max_running(1);
        running
            .start("t", &Caller::new("c1"), false, pending)
            .await
            .unwrap();
        let err = running
            .start("t", &Caller::new("c2"), false, pending)
            .await
            .unwrap_err();
        assert!(
            matches!(err, TaskError::TooManyRunning { limit: 1 }),
            "{err}"
        );

        let small = tasks(&store).max_result_bytes(100);
        let t = small
            .start("t", &ann.clone().with_role("x"), false, |_| {
                Box::pin(async { Envelope::ok(json!("x".repeat(500))) })
            })
            .await;
        // `ann` has a live task of `per_caller` (max 16 here): room.
        let t = t.unwrap();
        let done = ended(&small, &t.id, &ann).await;
        assert_eq!(done.status, TaskStatus::Failed);
        assert_eq!(done.failure.unwrap().code, RESULT_TOO_LARGE);
    }

    #[tokio::test]
    async fn live_tasks_are_counted_in_all_across_replicas() {
        let store = Arc::new(MemoryStateStore::default());
        let limited = |t: Tasks| t.max_live(2).max_per_caller(1);
        let (a, b) = (limited(tasks(&store)), limited(tasks(&store)));
        let pending =
            |_: TaskHandle| -> BoxFuture<'static, Envelope> { Box::pin(std::future::pending()) };
        let (ann, bob, cat) = (Caller::new("ann"), Caller::new("bob"), Caller::new("cat"));
        let first = a.start("t", &ann, false, pending).await.unwrap();
        b.start("t", &bob, false, pending).await.unwrap();
        // Two live tasks between the replicas: a third caller is refused on either.
        for replica in [&a, &b] {
            let err = replica.start("t", &cat, false, pending).await.unwrap_err();
            assert!(matches!(err, TaskError::TooManyLive { limit: 2 }), "{err}");
            assert!(err.to_string().contains("2 live tasks"), "{err}");
        }
        // A task that ends frees its place; the refused caller's own count was given back
        // (it may have one task, and gets it).
        b.cancel(&first.id, &ann).await.unwrap();
        ended(&b, &first.id, &ann).await;
        b.start("t", &cat, false, pending).await.unwrap();
    }

    #[tokio::test]
    async fn a_record_is_gone_after_its_ttl() {
        let store = Arc::new(MemoryStateStore::default());
        let t = tasks(&store).ttl(Duration::from_secs(1));
        let ann = Caller::new("ann");
        let task = t
            .start("t", &ann, false, |_| {
                Box::pin(async { Envelope::ok(json!(1)) })
            })
            .await
            .unwrap();
        assert_eq!(task.ttl_ms, 1000);
        ended(&t, &task.id, &ann).await;
        // The memory store keeps time with tokio's clock: move it past the ttl.
        tokio::time::pause();
        tokio::time::advance(Duration::from_millis(1100)).await;
        assert!(matches!(
            t.get(&task.id, &ann).await,
            Err(TaskError::NotFound(_))
        ));
    }

    #[tokio::test]
    async fn a_store_without_records_is_a_clear_error() {
        struct Old;
        impl StateStore for Old {
            fn claim<'a>(
                &'a self,
                _: &'a str,
                _: crate::state::ClaimRequest<'a>,
            ) -> BoxFuture<'a, Result<crate::state::ClaimState, BackendError>> {
                unreachable!()
            }
            fn renew<'a>(
                &'a self,
                _: &'a str,
                _: &'a str,
                _: Duration,
            ) -> BoxFuture<'a, Result<bool, BackendError>> {
                unreachable!()
            }
            fn mark_started<'a>(
                &'a self,
                _: &'a str,
                _: &'a str,
            ) -> BoxFuture<'a, Result<bool, BackendError>> {
                unreachable!()
            }
            fn finish<'a>(
                &'a self,
                _: &'a str,
                _: &'a str,
                _: &'a crate::StoredOutcome,
                _: Duration,
                _: Option<crate::state::KeptValue<'a>>,
            ) -> BoxFuture<'a, Result<bool, BackendError>> {
                unreachable!()
            }
            fn release<'a>(
                &'a self,
                _: &'a str,
                _: &'a str,
            ) -> BoxFuture<'a, Result<bool, BackendError>> {
                unreachable!()
            }
            fn keep<'a>(
                &'a self,
                _: &'a str,
                _: &'a Value,
                _: Duration,
            ) -> BoxFuture<'a, Result<(), BackendError>> {
                unreachable!()
            }
            fn read<'a>(
                &'a self,
                _: &'a str,
            ) -> BoxFuture<'a, Result<Option<Value>, BackendError>> {
                unreachable!()
            }
        }
        let t = Tasks::new(Arc::new(Old));
        let err = t
            .start("t", &Caller::new("ann"), false, |_| {
                Box::pin(async { Envelope::ok(json!(1)) })
            })
            .await
            .unwrap_err();
        assert!(
            err.to_string().contains("keeps no mutable records"),
            "{err}"
        );
    }
}
