//! Replicas: two toolboxes of one service over one shared state ([`StateStore`]), as two
//! processes behind a load balancer are. Here the state is the in-memory store shared by both
//! toolboxes; the Redis and PostgreSQL backends run the same promises in their own crates
//! (`toolsmith_core::state::conformance`) and across processes.

use crate::common;

use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use toolsmith_core::state::{ClaimRequest, ClaimState, KeptValue, MemoryStateStore, StateStore};
use toolsmith_core::SecretKey;
use toolsmith_core::{
    BackendError, CallOptions, Effects, Status, StoredOutcome, Tool, ToolError, Toolbox,
};

/// A keyed write (`reserve_slot`, keyed by `slot`; neither idempotent nor read-only) that counts
/// its runs, and waits for `hold` (when given) after it started.
fn write_tool(
    runs: Arc<AtomicUsize>,
    started: Arc<Notify>,
    hold: Option<Arc<Notify>>,
    approval: bool,
) -> Tool {
    Tool::from_fn(
        common::spec(
            "reserve_slot",
            "Reserves a delivery slot for an order. Returns the reservation.",
            json!({"type": "object", "properties": {"slot": {"type": "string"}},
                   "required": ["slot"], "additionalProperties": false}),
            Effects::none()
                .with_writes(true)
                .with_requires_approval(approval),
        ),
        move |_, args| {
            let (runs, started, hold) = (runs.clone(), started.clone(), hold.clone());
            Box::pin(async move {
                runs.fetch_add(1, Ordering::SeqCst);
                started.notify_one();
                match hold {
                    Some(hold) => hold.notified().await,
                    None => tokio::time::sleep(Duration::from_millis(50)).await,
                }
                if args["slot"] == "invalid" {
                    return Err(ToolError::invalid_input("BAD_SLOT", "No such slot."));
                }
                Ok(json!({"reserved": args["slot"]}))
            })
        },
    )
    .with_idempotency_key(["slot"])
}

struct Replicas {
    a: Toolbox,
    b: Toolbox,
    runs: Arc<AtomicUsize>,
    started: Arc<Notify>,
}

fn replicas(state: Arc<dyn StateStore>, lease: Duration, hold: Option<Arc<Notify>>) -> Replicas {
    replicas_of(state, lease, hold, false)
}

/// [`replicas`] of a write that needs approval when `approval` (each replica approves all).
fn replicas_of(
    state: Arc<dyn StateStore>,
    lease: Duration,
    hold: Option<Arc<Notify>>,
    approval: bool,
) -> Replicas {
    let (runs, started) = (Arc::new(AtomicUsize::new(0)), Arc::new(Notify::new()));
    let replica = || {
        Toolbox::builder()
            .tool(write_tool(
                runs.clone(),
                started.clone(),
                hold.clone(),
                approval,
            ))
            .approver(toolsmith_core::ApproveAll)
            .state_store(Arc::clone(&state))
            .claim_lease(lease)
            .build()
            .unwrap()
    };
    Replicas {
        a: replica(),
        b: replica(),
        runs,
        started,
    }
}

async fn reserve(tb: &Toolbox, slot: &str) -> toolsmith_core::Envelope {
    tb.call("reserve_slot", json!({ "slot": slot })).await
}

/// Twenty identical keyed writes sent at once, alternating between the two replicas: the write
/// runs once; every other answer is `DUPLICATE` or `IN_PROGRESS`; a later repeat on either
/// replica is a `DUPLICATE` naming the one that ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identical_writes_on_two_replicas_run_once() {
    let r = Arc::new(replicas(
        Arc::new(MemoryStateStore::default()),
        Duration::from_secs(10),
        None,
    ));
    let calls: Vec<_> = (0..20)
        .map(|i| {
            let r = Arc::clone(&r);
            tokio::spawn(async move {
                let tb = if i % 2 == 0 { &r.a } else { &r.b };
                reserve(tb, "tue-09").await
            })
        })
        .collect();
    let mut codes = Vec::new();
    for c in calls {
        let env = c.await.unwrap();
        codes.push(env.code.clone().unwrap_or_else(|| env.status.to_string()));
    }
    assert_eq!(r.runs.load(Ordering::SeqCst), 1, "{codes:?}");
    assert_eq!(codes.iter().filter(|c| *c == "ok").count(), 1, "{codes:?}");
    assert!(
        codes
            .iter()
            .all(|c| c == "ok" || c == "DUPLICATE" || c == "IN_PROGRESS"),
        "{codes:?}"
    );
    for tb in [&r.a, &r.b] {
        let again = reserve(tb, "tue-09").await;
        assert_eq!(again.code.as_deref(), Some("DUPLICATE"), "{again:?}");
    }
    assert_eq!(r.runs.load(Ordering::SeqCst), 1);
}

/// A replica dies while its write runs (its call future is leaked, its toolbox dropped: no drop
/// handler writes anything, its lease is no longer renewed). Until the lease lapses a retry on
/// the other replica is `IN_PROGRESS`; after, `OUTCOME_UNKNOWN`, and the write never runs again.
///
/// The clock is tokio's, paused (the in-memory state reads it): it moves only when every task
/// waits for a timer, so the first retry is certainly within the lease however loaded the
/// machine, and the lapse is waited for by asking until the state says so.
#[tokio::test(start_paused = true)]
async fn a_write_whose_replica_died_is_unknown_everywhere_and_never_reruns() {
    let hold = Arc::new(Notify::new());
    let lease = Duration::from_millis(200);
    let Replicas {
        a,
        b,
        runs,
        started,
    } = replicas(Arc::new(MemoryStateStore::default()), lease, Some(hold));
    let mut dying = Box::pin(reserve(&a, "wed-10"));
    tokio::select! {
        _ = &mut dying => panic!("the held write cannot finish"),
        _ = started.notified() => {}
    }
    // The replica dies: nothing of its call or its toolbox runs again.
    std::mem::forget(dying);
    drop(a);
    let first = reserve(&b, "wed-10").await;
    assert_eq!(first.code.as_deref(), Some("IN_PROGRESS"), "{first:?}");
    // In progress until the lease lapses (at most a lease after the last renewal), then unknown.
    let mut retries = 0;
    let lapsed = loop {
        tokio::time::sleep(lease / 4).await;
        let retry = reserve(&b, "wed-10").await;
        if retry.code.as_deref() != Some("IN_PROGRESS") {
            break retry;
        }
        retries += 1;
        assert!(
            retries < 20,
            "still IN_PROGRESS five leases after the replica died"
        );
    };
    assert_eq!(
        lapsed.code.as_deref(),
        Some("OUTCOME_UNKNOWN"),
        "{lapsed:?}"
    );
    for _ in 0..2 {
        let retry = reserve(&b, "wed-10").await;
        assert_eq!(retry.status, Status::Refused, "{retry:?}");
        assert_eq!(retry.code.as_deref(), Some("OUTCOME_UNKNOWN"), "{retry:?}");
    }
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "the write never runs again unasked"
    );
}

/// A call dropped by its host while the write runs (the replica lives): the other replica learns
/// at once that the outcome is unknown (the drop writes it), without waiting for the lease.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_write_is_unknown_on_the_other_replica() {
    let hold = Arc::new(Notify::new());
    let r = replicas(
        Arc::new(MemoryStateStore::default()),
        Duration::from_secs(60),
        Some(hold),
    );
    let mut call = Box::pin(reserve(&r.a, "thu-11"));
    tokio::select! {
        _ = &mut call => panic!("the held write cannot finish"),
        _ = r.started.notified() => {}
    }
    drop(call);
    // The drop's write runs in a task of its own: bounded wait for it.
    let mut answer = reserve(&r.b, "thu-11").await;
    for _ in 0..100 {
        if answer.code.as_deref() != Some("IN_PROGRESS") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        answer = reserve(&r.b, "thu-11").await;
    }
    assert_eq!(
        answer.code.as_deref(),
        Some("OUTCOME_UNKNOWN"),
        "{answer:?}"
    );
    assert_eq!(r.runs.load(Ordering::SeqCst), 1);
}

/// A write that answered that it did nothing (`invalid_input`) releases its key in the shared
/// state too: the corrected retry runs on the other replica.
#[tokio::test]
async fn a_release_is_seen_by_the_other_replica() {
    let r = replicas(
        Arc::new(MemoryStateStore::default()),
        Duration::from_secs(10),
        None,
    );
    let first = reserve(&r.a, "invalid").await;
    assert_eq!(first.status, Status::InvalidInput, "{first:?}");
    let retry = reserve(&r.b, "invalid").await;
    assert_eq!(
        retry.status,
        Status::InvalidInput,
        "the retry ran: {retry:?}"
    );
    assert_eq!(r.runs.load(Ordering::SeqCst), 2);
}

/// An explicit key reused with other arguments on the other replica is refused, as on one.
#[tokio::test]
async fn an_explicit_key_reused_on_the_other_replica_is_refused() {
    let state: Arc<dyn StateStore> = Arc::new(MemoryStateStore::default());
    let runs = Arc::new(AtomicUsize::new(0));
    // The write declares no identifying arguments: the caller's explicit key is its key.
    let replica = || {
        let tool = write_tool(runs.clone(), Arc::new(Notify::new()), None, false)
            .with_idempotency_key(Vec::<String>::new());
        Toolbox::builder()
            .tool(tool)
            .state_store(Arc::clone(&state))
            .build()
            .unwrap()
    };
    let (a, b) = (replica(), replica());
    let with_key = |k: &str| CallOptions::new().idempotency_key(k);
    let first = a
        .call_with("reserve_slot", json!({"slot": "fri-12"}), with_key("k-1"))
        .await;
    assert_eq!(first.status, Status::Ok, "{first:?}");
    let repeat = b
        .call_with("reserve_slot", json!({"slot": "fri-12"}), with_key("k-1"))
        .await;
    assert_eq!(repeat.code.as_deref(), Some("DUPLICATE"), "{repeat:?}");
    let reused = b
        .call_with("reserve_slot", json!({"slot": "fri-13"}), with_key("k-1"))
        .await;
    assert_eq!(
        reused.code.as_deref(),
        Some("IDEMPOTENCY_KEY_REUSED"),
        "{reused:?}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// A paginated read (`list_orders`, with a `cursor` parameter) whose result is cut to the
/// budget; it counts its runs.
fn list_tool(runs: Arc<AtomicUsize>) -> Tool {
    Tool::from_fn(
        common::spec(
            "list_orders",
            "Lists the shop's orders, newest first. Returns one page; pass the cursor for the next.",
            json!({"type": "object", "properties": {"cursor": {"type": "string"}},
                   "additionalProperties": false}),
            Effects::none().with_read_only(true),
        ),
        move |_, _| {
            let runs = runs.clone();
            Box::pin(async move {
                runs.fetch_add(1, Ordering::SeqCst);
                let orders: Vec<_> = (0..400)
                    .map(|i| json!({"id": i, "item": format!("order number {i} of the shop")}))
                    .collect();
                Ok(json!(orders))
            })
        },
    )
}

fn list_replica(
    state: &Arc<dyn StateStore>,
    key: Option<&SecretKey>,
    runs: &Arc<AtomicUsize>,
) -> Toolbox {
    let mut b = Toolbox::builder()
        .tool(list_tool(runs.clone()))
        .state_store(Arc::clone(state));
    if let Some(key) = key {
        b = b.cursor_key(key.clone());
    }
    b.build().unwrap()
}

/// A cursor issued by one replica is served by the other when both share the cursor key and
/// the state: the next page comes from the result the first kept in the shared state (the tool
/// does not run again). A replica with another key refuses the cursor.
#[tokio::test]
async fn a_cursor_from_one_replica_is_served_by_the_other() {
    let state: Arc<dyn StateStore> = Arc::new(MemoryStateStore::default());
    let runs = Arc::new(AtomicUsize::new(0));
    let key = SecretKey::from_text(&"5e".repeat(32)).unwrap();
    let a = list_replica(&state, Some(&key), &runs);
    let b = list_replica(&state, Some(&key), &runs);
    let first = a.call("list_orders", json!({})).await;
    assert!(first.truncated, "{first:?}");
    let cursor = first.cursor.clone().expect("a next page");
    let second = b.call("list_orders", json!({ "cursor": cursor })).await;
    assert_eq!(second.status, Status::Ok, "{second:?}");
    assert_eq!(second.reference, first.reference, "the same kept result");
    let (p1, p2) = (first.data.unwrap(), second.data.unwrap());
    let last_of_first = p1.as_array().unwrap().last().unwrap()["id"]
        .as_i64()
        .unwrap();
    let first_of_second = p2.as_array().unwrap()[0]["id"].as_i64().unwrap();
    assert_eq!(
        first_of_second,
        last_of_first + 1,
        "the page after the first"
    );
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "served from the shared state"
    );

    let stranger = list_replica(&state, None, &runs);
    let refused = stranger
        .call("list_orders", json!({ "cursor": first.cursor.unwrap() }))
        .await;
    assert_eq!(refused.status, Status::InvalidInput, "{refused:?}");
    assert_eq!(refused.code.as_deref(), Some("INVALID_CURSOR"));
}

/// The original result a duplicate shows is read from the shared state on the other replica.
#[tokio::test]
async fn a_duplicate_on_the_other_replica_shows_the_original() {
    let r = replicas(
        Arc::new(MemoryStateStore::default()),
        Duration::from_secs(10),
        None,
    );
    let first = reserve(&r.a, "mon-16").await;
    assert_eq!(first.status, Status::Ok);
    let dup = reserve(&r.b, "mon-16").await;
    assert_eq!(dup.code.as_deref(), Some("DUPLICATE"));
    assert_eq!(dup.reference, first.reference, "{dup:?}");
    assert_eq!(
        dup.data.as_ref().unwrap()["original"],
        json!({"reserved": "mon-16"}),
        "{dup:?}"
    );
}

/// A shared state that cannot be reached: a keyed write is `temporary_failure`
/// (`IDEMPOTENCY_UNAVAILABLE`, with `retry_after`) and does not run, and the failure is
/// counted as a fault; a call without a key never touches the state.
#[tokio::test]
async fn an_unreachable_state_runs_no_keyed_write() {
    let r = replicas(Arc::new(Unreachable), Duration::from_secs(10), None);
    let env = reserve(&r.a, "sat-14").await;
    assert_eq!(env.status, Status::TemporaryFailure, "{env:?}");
    assert_eq!(env.code.as_deref(), Some("IDEMPOTENCY_UNAVAILABLE"));
    assert!(env.retry_after.is_some());
    assert_eq!(r.runs.load(Ordering::SeqCst), 0, "nothing ran");
    assert_eq!(r.a.faults().record_store, 1);
}

/// A state whose claim succeeds and whose every later step fails: the start of an approved
/// write that is not safe to repeat cannot be recorded, so it does not run.
#[tokio::test]
async fn a_start_that_cannot_be_recorded_runs_nothing() {
    let r = replicas_of(
        Arc::new(ClaimsOnly::default()),
        Duration::from_secs(10),
        None,
        true,
    );
    let env = reserve(&r.a, "sun-15").await;
    assert_eq!(
        env.code.as_deref(),
        Some("IDEMPOTENCY_UNAVAILABLE"),
        "{env:?}"
    );
    assert_eq!(r.runs.load(Ordering::SeqCst), 0);
    assert!(r.a.faults().record_store >= 1);
}

/// A keyed write pays two steps of the shared state: its claim, written started (nothing can
/// refuse the run in between), and its outcome, with the result a duplicate shows kept in the
/// same step. A write that needs approval marks its start apart, once approved: three. A
/// duplicate on the other replica pays its claim and the read of the original.
#[tokio::test]
async fn a_keyed_write_pays_two_steps_of_the_shared_state() {
    for (approval, steps) in [(false, [1, 0, 1, 0]), (true, [1, 1, 1, 0])] {
        let store = Arc::new(Counting::default());
        let r = replicas_of(store.clone(), Duration::from_secs(10), None, approval);
        let env = reserve(&r.a, "wed-10").await;
        assert_eq!(env.status, Status::Ok, "{env:?}");
        // claim, mark_started, finish, keep (renewals are off: the lease outlives the run).
        assert_eq!(store.counts(), (steps, 0), "approval: {approval}");
        let dup = reserve(&r.b, "wed-10").await;
        assert_eq!(dup.code.as_deref(), Some("DUPLICATE"), "{dup:?}");
        assert_eq!(
            dup.data.as_ref().unwrap()["original"],
            json!({"reserved": "wed-10"}),
            "the result kept with the outcome is read on the other replica: {dup:?}"
        );
        let [claims, marks, finishes, keeps] = steps;
        assert_eq!(
            store.counts(),
            ([claims + 1, marks, finishes, keeps], 1),
            "approval: {approval}"
        );
        assert_eq!(r.runs.load(Ordering::SeqCst), 1);
    }
}

/// A [`MemoryStateStore`] that counts its steps.
#[derive(Default)]
struct Counting {
    inner: MemoryStateStore,
    /// claim, mark_started, finish, keep, read.
    n: [AtomicUsize; 5],
}

impl Counting {
    fn bump(&self, i: usize) {
        self.n[i].fetch_add(1, Ordering::SeqCst);
    }

    /// (claim, mark_started, finish, keep), read.
    fn counts(&self) -> ([usize; 4], usize) {
        let n = |i: usize| self.n[i].load(Ordering::SeqCst);
        ([n(0), n(1), n(2), n(3)], n(4))
    }
}

impl StateStore for Counting {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        req: ClaimRequest<'a>,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<ClaimState, BackendError>> {
        self.bump(0);
        self.inner.claim(key, req)
    }
    fn renew<'a>(
        &'a self,
        k: &'a str,
        t: &'a str,
        l: Duration,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        self.inner.renew(k, t, l)
    }
    fn mark_started<'a>(
        &'a self,
        k: &'a str,
        t: &'a str,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        self.bump(1);
        self.inner.mark_started(k, t)
    }
    fn finish<'a>(
        &'a self,
        k: &'a str,
        t: &'a str,
        o: &'a StoredOutcome,
        w: Duration,
        v: Option<KeptValue<'a>>,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        self.bump(2);
        self.inner.finish(k, t, o, w, v)
    }
    fn release<'a>(
        &'a self,
        k: &'a str,
        t: &'a str,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        self.inner.release(k, t)
    }
    fn keep<'a>(
        &'a self,
        r: &'a str,
        v: &'a serde_json::Value,
        ttl: Duration,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<(), BackendError>> {
        self.bump(3);
        self.inner.keep(r, v, ttl)
    }
    fn read<'a>(
        &'a self,
        r: &'a str,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<Option<serde_json::Value>, BackendError>> {
        self.bump(4);
        self.inner.read(r)
    }
}

/// A store that is never there.
struct Unreachable;

fn down() -> BackendError {
    BackendError::new("connection refused (127.0.0.1:1)")
}

impl StateStore for Unreachable {
    fn claim<'a>(
        &'a self,
        _: &'a str,
        _: ClaimRequest<'a>,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<ClaimState, BackendError>> {
        Box::pin(async { Err(down()) })
    }
    fn renew<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
        _: Duration,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        Box::pin(async { Err(down()) })
    }
    fn mark_started<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        Box::pin(async { Err(down()) })
    }
    fn finish<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
        _: &'a StoredOutcome,
        _: Duration,
        _: Option<KeptValue<'a>>,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        Box::pin(async { Err(down()) })
    }
    fn release<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        Box::pin(async { Err(down()) })
    }
    fn keep<'a>(
        &'a self,
        _: &'a str,
        _: &'a serde_json::Value,
        _: Duration,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<(), BackendError>> {
        Box::pin(async { Err(down()) })
    }
    fn read<'a>(
        &'a self,
        _: &'a str,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<Option<serde_json::Value>, BackendError>> {
        Box::pin(async { Err(down()) })
    }
}

/// A store that grants claims and then goes away.
#[derive(Default)]
struct ClaimsOnly(MemoryStateStore);

impl StateStore for ClaimsOnly {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        req: ClaimRequest<'a>,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<ClaimState, BackendError>> {
        self.0.claim(key, req)
    }
    fn renew<'a>(
        &'a self,
        k: &'a str,
        t: &'a str,
        l: Duration,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        Unreachable.renew(k, t, l)
    }
    fn mark_started<'a>(
        &'a self,
        k: &'a str,
        t: &'a str,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        Unreachable.mark_started(k, t)
    }
    fn finish<'a>(
        &'a self,
        k: &'a str,
        t: &'a str,
        o: &'a StoredOutcome,
        w: Duration,
        v: Option<KeptValue<'a>>,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        Unreachable.finish(k, t, o, w, v)
    }
    fn release<'a>(
        &'a self,
        k: &'a str,
        t: &'a str,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<bool, BackendError>> {
        Unreachable.release(k, t)
    }
    fn keep<'a>(
        &'a self,
        r: &'a str,
        v: &'a serde_json::Value,
        ttl: Duration,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<(), BackendError>> {
        Unreachable.keep(r, v, ttl)
    }
    fn read<'a>(
        &'a self,
        r: &'a str,
    ) -> toolsmith_core::state::BoxFuture<'a, Result<Option<serde_json::Value>, BackendError>> {
        Unreachable.read(r)
    }
}
