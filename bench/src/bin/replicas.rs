//! Replicas: what a shared state store costs a call. Keyed writes (each call a distinct
//! idempotency key) and plain reads (no key), each on
//!
//! - **baseline**: one toolbox with no state store (the in-memory gate of one process);
//! - **memory**: two toolboxes ("replicas", calls alternating) sharing one `MemoryStateStore`;
//! - **redis**: two toolboxes, each with its own connection to one Redis (`TOOLSMITH_REDIS_URL`);
//! - **postgres**: two toolboxes, each with its own connection to one PostgreSQL
//!   (`TOOLSMITH_PG_URL`).
//!
//! A fixed number of calls (`--calls` keyed writes, default 2,000; `--read-calls` reads,
//! default 100,000, since 2,000 reads take about a millisecond, too short to time by the wall
//! clock) with a fixed number in flight (`--concurrency`, default 16) on a
//! multi-thread tokio runtime, wall-clock timed: calls per second, p50 and p99 latency, and the
//! ratios against the baseline of the same run. Every store is wrapped in a counting
//! `StateStore` that forwards each call and counts it by method, so the table says how many
//! round trips to the store each call made.
//!
//! Scenarios: `write` is a keyed write that is neither read-only nor idempotent (the store is
//! told it started before it runs); `idempotent` is a keyed write declared idempotent (no
//! start mark); `read` is a read-only tool without a key. A round runs every state in turn
//! (the order rotates between rounds) after an unreported warm-up; latencies are pooled over the
//! rounds and calls per second is the total calls over the total time.
//!
//! A state whose URL is not set is reported as skipped; the binary exits with status 1 when any
//! call does not answer `ok`.
//!
//! ```sh
//! .ci/services.sh cargo run --release -p toolsmith-bench --features replicas --bin replicas -- --calls 2000 --concurrency 16 --rounds 5
//! ```

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolsmith::fault::BackendError;
use toolsmith::idempotency::StoredOutcome;
use toolsmith::serde_json::{json, Value};
use toolsmith::state::task::{TaskStatus, Tasks};
use toolsmith::state::{
    BoxFuture, ClaimRequest, ClaimState, KeptValue, MemoryStateStore, Record, StateStore,
};
use toolsmith::{tool, Status, Toolbox};

/// Reserves a delivery slot for an order. Returns the reservation's slot.
#[tool(writes, idempotency_key(slot), title = "Reserve slot")]
fn reserve_slot(
    /// The slot to reserve, e.g. "tue-09".
    #[arg(min_length = 1, max_length = 80)]
    slot: String,
) -> String {
    slot
}

/// Sets the note of a delivery slot (setting the same note twice changes nothing). Returns the slot.
#[tool(writes, idempotent, idempotency_key(slot), title = "Set slot note")]
fn set_slot_note(
    /// The slot, e.g. "tue-09".
    #[arg(min_length = 1, max_length = 80)]
    slot: String,
) -> String {
    slot
}

/// Looks up whether a delivery slot is free. Returns the slot's status.
#[tool(read_only, title = "Slot status")]
fn get_slot_status(
    /// The slot to look up, e.g. "tue-09".
    #[arg(min_length = 1, max_length = 80)]
    slot: String,
) -> String {
    let _ = slot;
    "free".to_string()
}

/// The store's methods, in the order of the trait.
const METHODS: [&str; 9] = [
    "claim",
    "renew",
    "mark_started",
    "finish",
    "release",
    "keep",
    "read",
    "load_record",
    "swap_record",
];

/// Calls to the store, by method (index into [`METHODS`]).
#[derive(Default)]
struct Counts([AtomicU64; 9]);

impl Counts {
    fn snapshot(&self) -> [u64; 9] {
        std::array::from_fn(|i| self.0[i].load(Ordering::Relaxed))
    }
}

/// A `StateStore` that forwards every call to `inner` and counts it by method.
struct Counting {
    inner: Arc<dyn StateStore>,
    counts: Arc<Counts>,
}

impl Counting {
    fn count(&self, method: usize) {
        self.counts.0[method].fetch_add(1, Ordering::Relaxed);
    }
}

impl StateStore for Counting {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        req: ClaimRequest<'a>,
    ) -> BoxFuture<'a, Result<ClaimState, BackendError>> {
        self.count(0);
        self.inner.claim(key, req)
    }

    fn renew<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        self.count(1);
        self.inner.renew(key, token, lease)
    }

    fn mark_started<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        self.count(2);
        self.inner.mark_started(key, token)
    }

    fn finish<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        outcome: &'a StoredOutcome,
        window: Duration,
        kept: Option<KeptValue<'a>>,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        self.count(3);
        self.inner.finish(key, token, outcome, window, kept)
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        self.count(4);
        self.inner.release(key, token)
    }

    fn keep<'a>(
        &'a self,
        reference: &'a str,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        self.count(5);
        self.inner.keep(reference, value, ttl)
    }

    fn read<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, BackendError>> {
        self.count(6);
        self.inner.read(reference)
    }

    fn load_record<'a>(
        &'a self,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Record>, BackendError>> {
        self.count(7);
        self.inner.load_record(key)
    }

    fn swap_record<'a>(
        &'a self,
        key: &'a str,
        expected: u64,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, BackendError>> {
        self.count(8);
        self.inner.swap_record(key, expected, value, ttl)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Backend {
    Baseline,
    Memory,
    Redis,
    Postgres,
}

impl Backend {
    const ALL: [Backend; 4] = [
        Backend::Baseline,
        Backend::Memory,
        Backend::Redis,
        Backend::Postgres,
    ];

    fn label(self) -> &'static str {
        match self {
            Backend::Baseline => "one toolbox, no state store (baseline)",
            Backend::Memory => "two replicas, `MemoryStateStore`",
            Backend::Redis => "two replicas, Redis",
            Backend::Postgres => "two replicas, PostgreSQL",
        }
    }

    fn env(self) -> Option<&'static str> {
        match self {
            Backend::Redis => Some("TOOLSMITH_REDIS_URL"),
            Backend::Postgres => Some("TOOLSMITH_PG_URL"),
            Backend::Baseline | Backend::Memory => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scenario {
    Write,
    Idempotent,
    Read,
}

impl Scenario {
    const ALL: [Scenario; 3] = [Scenario::Write, Scenario::Idempotent, Scenario::Read];

    fn tool(self) -> &'static str {
        match self {
            Scenario::Write => "reserve_slot",
            Scenario::Idempotent => "set_slot_note",
            Scenario::Read => "get_slot_status",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Scenario::Write => "(a) keyed write (`writes`, a distinct key per call)",
            Scenario::Idempotent => "(a′) keyed write declared `idempotent`",
            Scenario::Read => "(b) plain read (`read_only`, no key)",
        }
    }
}

/// The toolboxes of one state, and the counts of their store's calls.
struct Setup {
    replicas: Vec<Toolbox>,
    /// Each replica's (counted) store, for its tasks.
    stores: Vec<Arc<dyn StateStore>>,
    counts: Option<Arc<Counts>>,
}

fn toolbox(state: Option<Arc<dyn StateStore>>) -> Toolbox {
    let mut builder = Toolbox::builder()
        .tool(reserve_slot::tool())
        .tool(set_slot_note::tool())
        .tool(get_slot_status::tool());
    if let Some(state) = state {
        builder = builder.state_store(state);
    }
    builder
        .build()
        .unwrap_or_else(|e| panic!("the replicas toolbox does not build: {e}"))
}

/// Builds the toolboxes of `backend` (connecting each replica on its own, as two processes
/// would; the in-memory store, which holds `keys` keys, is one object shared by both).
/// `Ok(None)`: its URL is not set.
async fn setup(backend: Backend, keys: usize) -> Result<Option<Setup>, String> {
    let url = match backend.env() {
        Some(var) => match std::env::var(var) {
            Ok(url) if !url.is_empty() => Some(url),
            _ => return Ok(None),
        },
        None => None,
    };
    let counts = Arc::new(Counts::default());
    let stores = std::cell::RefCell::new(Vec::new());
    let counted = |inner: Arc<dyn StateStore>| -> Option<Arc<dyn StateStore>> {
        let store: Arc<dyn StateStore> = Arc::new(Counting {
            inner,
            counts: Arc::clone(&counts),
        });
        stores.borrow_mut().push(Arc::clone(&store));
        Some(store)
    };
    let replicas = match backend {
        Backend::Baseline => {
            return Ok(Some(Setup {
                replicas: vec![toolbox(None)],
                stores: Vec::new(),
                counts: None,
            }))
        }
        Backend::Memory => {
            // Sized for the run: the default holds 16,384 keys, and past that (within the
            // idempotency window) a claim is refused.
            let shared: Arc<dyn StateStore> = Arc::new(MemoryStateStore::new(keys));
            vec![
                toolbox(counted(Arc::clone(&shared))),
                toolbox(counted(shared)),
            ]
        }
        Backend::Redis => {
            let url = url.unwrap_or_default();
            let mut replicas = Vec::new();
            for _ in 0..2 {
                let store = toolsmith::redis::RedisStateStore::connect(&url)
                    .await
                    .map_err(|e| format!("redis: {e}"))?;
                replicas.push(toolbox(counted(Arc::new(store))));
            }
            replicas
        }
        Backend::Postgres => {
            let url = url.unwrap_or_default();
            let mut replicas = Vec::new();
            for _ in 0..2 {
                let store = toolsmith::postgres::PostgresStateStore::connect(&url)
                    .await
                    .map_err(|e| format!("postgres: {e}"))?;
                replicas.push(toolbox(counted(Arc::new(store))));
            }
            replicas
        }
    };
    Ok(Some(Setup {
        replicas,
        stores: stores.into_inner(),
        counts: Some(counts),
    }))
}

/// What one batch of calls measured.
#[derive(Default)]
struct Measured {
    calls: usize,
    wall: Duration,
    latencies: Vec<Duration>,
    /// Calls that did not answer `ok`, with the first one's code.
    errors: usize,
    first_error: Option<String>,
    /// Store calls by method during the batch.
    store: [u64; 9],
}

impl Measured {
    fn add(&mut self, other: Measured) {
        self.calls += other.calls;
        self.wall += other.wall;
        self.latencies.extend(other.latencies);
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
        for (a, b) in self.store.iter_mut().zip(other.store) {
            *a += b;
        }
    }
}

/// `calls` calls of `scenario`'s tool, `concurrency` in flight, alternating between the replicas;
/// `prefix` makes every slot (and so every key) distinct across batches and runs.
async fn batch(
    setup: &Arc<Setup>,
    scenario: Scenario,
    calls: usize,
    concurrency: usize,
    prefix: &str,
) -> Measured {
    let before = setup.counts.as_ref().map(|c| c.snapshot());
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (setup, next, prefix) = (Arc::clone(setup), Arc::clone(&next), prefix.to_string());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                let (mut errors, mut first_error) = (0, None);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= calls {
                        break;
                    }
                    let tb = &setup.replicas[i % setup.replicas.len()];
                    let args = json!({ "slot": format!("{prefix}-{i}") });
                    let t = Instant::now();
                    let env = tb.call(scenario.tool(), args).await;
                    latencies.push(t.elapsed());
                    if env.status != Status::Ok {
                        errors += 1;
                        first_error.get_or_insert_with(|| {
                            format!("{}: {}", env.status, env.code.unwrap_or_default())
                        });
                    }
                }
                (latencies, errors, first_error)
            })
        })
        .collect();
    let mut m = Measured::default();
    for w in workers {
        let (latencies, errors, first_error) = w.await.expect("a benchmark worker panicked");
        m.latencies.extend(latencies);
        m.errors += errors;
        if m.first_error.is_none() {
            m.first_error = first_error;
        }
    }
    m.wall = start.elapsed();
    m.calls = calls;
    if let (Some(before), Some(counts)) = (before, &setup.counts) {
        let after = counts.snapshot();
        m.store = std::array::from_fn(|i| after[i] - before[i]);
    }
    m
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    // Nearest rank.
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us >= 10_000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.1} µs")
    }
}

/// A ratio, with the digits a small one needs.
fn ratio(x: f64) -> String {
    if x >= 0.1 {
        format!("{x:.2}×")
    } else if x >= 0.01 {
        format!("{x:.3}×")
    } else {
        format!("{x:.4}×")
    }
}

/// A whole number with thousands separators.
fn thousands(n: f64) -> String {
    let digits = format!("{:.0}", n.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn arg(args: &[String], name: &str, default: usize) -> usize {
    match args.iter().position(|a| a == name) {
        None => default,
        Some(i) => match args.get(i + 1).map(|v| v.parse()) {
            Some(Ok(n)) if n > 0 => n,
            _ => {
                eprintln!("{name} takes a whole number above 0");
                std::process::exit(2);
            }
        },
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let calls = arg(&args, "--calls", 2000);
    let read_calls = arg(&args, "--read-calls", 100_000);
    let concurrency = arg(&args, "--concurrency", 16);
    let rounds = arg(&args, "--rounds", 5);
    let warmup = arg(&args, "--warmup", 200);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let failed = rt.block_on(run(calls, read_calls, concurrency, rounds, warmup));
    if failed {
        std::process::exit(1);
    }
}

async fn run(
    write_calls: usize,
    read_calls: usize,
    concurrency: usize,
    rounds: usize,
    warmup: usize,
) -> bool {
    // Distinct keys on every run, so a store reused across runs holds no claim of this one.
    let run_id = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut setups: Vec<(Backend, Option<Arc<Setup>>)> = Vec::new();
    for backend in Backend::ALL {
        let keys = 4 * (warmup + rounds * write_calls);
        match setup(backend, keys).await {
            Ok(s) => setups.push((backend, s.map(Arc::new))),
            Err(e) => {
                eprintln!("replicas: {e}");
                return true;
            }
        }
    }
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut failed = false;
    let mut out = vec![
        format!(
            "{write_calls} keyed writes ({read_calls} reads) per state and scenario in each of \
             {rounds} rounds, after {warmup} unreported warm-up calls; {concurrency} in flight \
             on a tokio multi-thread runtime with {workers} workers; the two replicas take the \
             calls in turn."
        ),
        String::new(),
        "| Scenario | State | calls / s | vs baseline | p50 | p99 | p50 vs baseline | store calls per call | errors |".to_string(),
        "|---|---|---:|---:|---:|---:|---:|---|---:|".to_string(),
    ];
    let calls_of = |scenario: Scenario| {
        if scenario == Scenario::Read {
            read_calls
        } else {
            write_calls
        }
    };
    for (si, scenario) in Scenario::ALL.into_iter().enumerate() {
        for (i, (_, setup)) in setups.iter().enumerate() {
            if let Some(setup) = setup {
                let prefix = format!("{run_id}-w{si}-{i}");
                batch(setup, scenario, warmup, concurrency, &prefix).await;
            }
        }
    }
    // Rounds outermost, so every scenario meets the stores' tables at a like size (a
    // PostgreSQL store slows as they grow), and the order of the states rotates.
    let mut totals: Vec<Vec<Measured>> = Scenario::ALL
        .iter()
        .map(|_| setups.iter().map(|_| Measured::default()).collect())
        .collect();
    for round in 0..rounds {
        for (si, scenario) in Scenario::ALL.into_iter().enumerate() {
            for k in 0..setups.len() {
                let i = (k + round) % setups.len();
                if let Some(setup) = &setups[i].1 {
                    let prefix = format!("{run_id}-r{round}-{si}-{i}");
                    let m = batch(setup, scenario, calls_of(scenario), concurrency, &prefix).await;
                    totals[si][i].add(m);
                }
            }
        }
    }
    for (scenario, mut totals) in Scenario::ALL.into_iter().zip(totals) {
        let rate = |m: &Measured| m.calls as f64 / m.wall.as_secs_f64();
        let base_rate = rate(&totals[0]);
        totals[0].latencies.sort();
        let base_p50 = percentile(&totals[0].latencies, 50.0);
        for (i, (backend, setup)) in setups.iter().enumerate() {
            let m = &mut totals[i];
            if setup.is_none() {
                out.push(format!(
                    "| {} | {} | skipped: `{}` not set | | | | | | |",
                    scenario.label(),
                    backend.label(),
                    backend.env().unwrap_or_default()
                ));
                continue;
            }
            m.latencies.sort();
            let (p50, p99) = (
                percentile(&m.latencies, 50.0),
                percentile(&m.latencies, 99.0),
            );
            let store = if *backend == Backend::Baseline {
                "— (no store)".to_string()
            } else {
                let total: u64 = m.store.iter().sum();
                let parts: Vec<String> = METHODS
                    .iter()
                    .zip(m.store)
                    .filter(|(_, n)| *n > 0)
                    .map(|(name, n)| format!("{name} {:.2}", n as f64 / m.calls as f64))
                    .collect();
                if parts.is_empty() {
                    "**0**".to_string()
                } else {
                    format!(
                        "**{:.2}**: {}",
                        total as f64 / m.calls as f64,
                        parts.join(", ")
                    )
                }
            };
            if m.errors > 0 {
                failed = true;
                eprintln!(
                    "replicas: {} on {}: {} calls did not answer ok (first: {})",
                    scenario.tool(),
                    backend.label(),
                    m.errors,
                    m.first_error.as_deref().unwrap_or("?")
                );
            }
            out.push(format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                scenario.label(),
                backend.label(),
                thousands(rate(m)),
                ratio(rate(m) / base_rate),
                ms(p50),
                ms(p99),
                ratio(p50.as_secs_f64() / base_p50.as_secs_f64()),
                store,
                m.errors
            ));
        }
    }
    println!("{}", out.join("\n"));
    println!();
    failed |= tasks_table(&setups, write_calls.min(200), &run_id.to_string()).await;
    failed
}

/// What the tasks of one state measured: latencies from the start of each task, and the store
/// calls of each phase, summed.
#[derive(Default)]
struct TaskMeasured {
    direct: Vec<Duration>,
    started: Vec<Duration>,
    first_get: Vec<Duration>,
    completed: Vec<Duration>,
    start_calls: [u64; 9],
    get_calls: [u64; 9],
    runner_calls: [u64; 9],
    /// Store calls of the one extra `tasks/get` of each ended task, and how many there were.
    polls: u64,
    polled: u64,
    errors: usize,
}

/// The store calls between two snapshots, as `total: method n, ...` per task.
fn per_task(calls: &[u64; 9], tasks: usize) -> String {
    let total: u64 = calls.iter().sum();
    let parts: Vec<String> = METHODS
        .iter()
        .zip(calls)
        .filter(|(_, n)| **n > 0)
        .map(|(name, n)| format!("{name} {:.2}", *n as f64 / tasks as f64))
        .collect();
    format!(
        "**{:.2}**: {}",
        total as f64 / tasks as f64,
        parts.join(", ")
    )
}

fn diff(after: [u64; 9], before: [u64; 9]) -> [u64; 9] {
    std::array::from_fn(|i| after[i] - before[i])
}

/// Tasks on each shared state: a keyed write started as a task on replica A (`Tasks::start`,
/// the call through A's toolbox), its first `tasks/get` on replica B, then B polling every
/// millisecond until it is completed; against the same keyed write called directly. One task
/// at a time, so each phase's store calls are its own.
async fn tasks_table(setups: &[(Backend, Option<Arc<Setup>>)], n: usize, run_id: &str) -> bool {
    let mut out = vec![
        format!(
            "Tasks: {n} keyed writes (`reserve_slot`) per state, one at a time, each started as a \
             task on replica A and polled on replica B; the direct call is the same write called \
             on A (p50 of {n})."
        ),
        String::new(),
        "| State | direct call p50 | task created p50 | first `tasks/get` answered p50 (p99) | completed seen p50 | store calls per task (create, the call, its end, one `tasks/get`) | per further `tasks/get` |".to_string(),
        "|---|---:|---:|---:|---:|---|---|".to_string(),
    ];
    let mut failed = false;
    let caller = toolsmith::Caller::new("bench");
    for (backend, setup) in setups {
        let Some(setup) = setup else { continue };
        let Some(counts) = &setup.counts else {
            continue;
        };
        let (a, b) = (&setup.stores[0], &setup.stores[1]);
        let tasks_a = Tasks::new(Arc::clone(a)).poll_interval(Duration::from_millis(10));
        let tasks_b = Tasks::new(Arc::clone(b)).poll_interval(Duration::from_millis(10));
        let toolbox = Arc::new(toolbox(Some(Arc::clone(a))));
        let mut m = TaskMeasured::default();
        for i in 0..n {
            let t = Instant::now();
            let env = toolbox
                .call("reserve_slot", json!({"slot": format!("{run_id}-d-{i}")}))
                .await;
            m.direct.push(t.elapsed());
            m.errors += usize::from(env.status != Status::Ok);
            let args = json!({"slot": format!("{run_id}-t-{i}")});
            let tb = Arc::clone(&toolbox);
            let c0 = counts.snapshot();
            let t = Instant::now();
            let started = tasks_a
                .start("reserve_slot", &caller, true, move |_| {
                    Box::pin(async move { tb.call("reserve_slot", args).await })
                })
                .await;
            let Ok(task) = started else {
                m.errors += 1;
                continue;
            };
            m.started.push(t.elapsed());
            let c1 = counts.snapshot();
            let first = tasks_b.get(&task.id, &caller).await;
            m.first_get.push(t.elapsed());
            let c2 = counts.snapshot();
            let mut gets = 1u64;
            let mut seen = first.ok();
            while !seen.as_ref().is_some_and(|r| r.status.is_terminal()) {
                tokio::time::sleep(Duration::from_millis(1)).await;
                seen = tasks_b.get(&task.id, &caller).await.ok();
                gets += 1;
            }
            // One more `tasks/get` of the ended task, alone: what a further poll costs.
            let before_poll = counts.snapshot();
            let _ = tasks_b.get(&task.id, &caller).await;
            let after_poll = counts.snapshot();
            m.polls += diff(after_poll, before_poll).iter().sum::<u64>();
            m.polled += 1;
            m.completed.push(t.elapsed());
            let done = seen.expect("the task is there");
            let ok = done.status == TaskStatus::Completed
                && done
                    .envelope
                    .as_ref()
                    .is_some_and(|e| e.status == Status::Ok);
            m.errors += usize::from(!ok);
            // The runner's last step (the caller's list) may land just after the poll saw
            // the end: wait until the counts stand still (bounded).
            let mut last = counts.snapshot();
            let extra = diff(last, before_poll);
            for _ in 0..100 {
                tokio::time::sleep(Duration::from_millis(5)).await;
                let now = counts.snapshot();
                if now == last {
                    break;
                }
                last = now;
            }
            let start = diff(c1, c0);
            let get = diff(c2, c1);
            let all = diff(last, c0);
            // Every further `tasks/get` of a live task is one `load_record`; the extra poll of
            // the ended task is left out too.
            let polls: [u64; 9] = std::array::from_fn(|k| {
                (if k == 7 { gets - 1 } else { 0 }) + extra[k].min(after_poll[k] - before_poll[k])
            });
            let runner: [u64; 9] = std::array::from_fn(|k| all[k] - start[k] - get[k] - polls[k]);
            for k in 0..9 {
                m.start_calls[k] += start[k];
                m.get_calls[k] += get[k];
                m.runner_calls[k] += runner[k];
            }
        }
        if m.errors > 0 {
            failed = true;
            eprintln!(
                "replicas: {} tasks on {} did not complete ok",
                m.errors,
                backend.label()
            );
        }
        let done = m.started.len().max(1);
        for v in [
            &mut m.direct,
            &mut m.started,
            &mut m.first_get,
            &mut m.completed,
        ] {
            v.sort();
        }
        // The runner works beside the phases (the call's claim may land while the task is
        // created), so the phases' calls are reported together.
        let all: [u64; 9] =
            std::array::from_fn(|k| m.start_calls[k] + m.get_calls[k] + m.runner_calls[k]);
        out.push(format!(
            "| {} | {} | {} | {} ({}) | {} | {} | **{:.2}**: load_record {:.2} |",
            backend.label(),
            ms(percentile(&m.direct, 50.0)),
            ms(percentile(&m.started, 50.0)),
            ms(percentile(&m.first_get, 50.0)),
            ms(percentile(&m.first_get, 99.0)),
            ms(percentile(&m.completed, 50.0)),
            per_task(&all, done),
            m.polls as f64 / m.polled.max(1) as f64,
            m.polls as f64 / m.polled.max(1) as f64,
        ));
    }
    println!("{}", out.join("\n"));
    failed
}
