//! Tools that block their thread cannot take the host down (issue 35, point 1): a tool with a
//! timeout, or one the host isolates, runs on the toolbox's own bounded tool threads, so while
//! such tools block (at least as many as the host runtime has workers) the host's timers and its
//! other calls go on; a call that finds every tool thread taken did not run and says so
//! (`TOOLS_BUSY`, key released); a thread a blocked tool still holds is counted.
//!
//! Timing bounds are generous (ten times the expected time or more); the proofs that matter are
//! the counts: how many tools ran, and how many threads are held.

mod common;

use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolsmith::{tool, CallOptions, MemorySink, Status, Toolbox};

/// How long the blocking tools block their thread.
const BLOCK: Duration = Duration::from_millis(1_500);
/// The toolbox's default timeout in these tests.
const TIMEOUT: Duration = Duration::from_millis(200);

/// Counts the runs of the tools that share it.
#[derive(Default)]
struct Starts(AtomicUsize);

/// Blocks its thread inside `async fn`, far past its timeout. Returns nothing.
#[tool(read_only)]
async fn get_blocked_report(#[context] starts: &Starts) {
    starts.0.fetch_add(1, Ordering::SeqCst);
    std::thread::sleep(BLOCK);
}

/// Blocks its thread in a sync tool, far past its timeout. Returns nothing.
#[tool(read_only)]
fn compute_blocked_sum(#[context] starts: &Starts) {
    starts.0.fetch_add(1, Ordering::SeqCst);
    std::thread::sleep(BLOCK);
}

/// Answers at once after one await. Returns "pong".
#[tool(read_only)]
async fn get_ping() -> String {
    tokio::task::yield_now().await;
    "pong".to_string()
}

/// Records a payment under its own id. Returns the id.
#[tool(writes, idempotency_key(payment))]
async fn record_payment(
    #[context] starts: &Starts,
    /// The payment's own id, e.g. "P-1".
    payment: String,
) -> String {
    starts.0.fetch_add(1, Ordering::SeqCst);
    payment
}

/// The toolbox of these tests (a 200 ms default timeout, `threads` tool threads) and its run
/// counter.
fn toolbox(threads: usize, audit: Option<Arc<MemorySink>>) -> (Arc<Toolbox>, Arc<Starts>) {
    let starts = Arc::new(Starts::default());
    let mut b = Toolbox::builder()
        .tool(get_blocked_report::tool())
        .tool(compute_blocked_sum::tool())
        .tool(get_ping::tool())
        .tool(record_payment::tool())
        .shared_context(Arc::clone(&starts))
        .default_timeout(TIMEOUT)
        .tool_threads(threads);
    if let Some(sink) = audit {
        b = b.shared_audit(sink);
    }
    (Arc::new(b.build().unwrap()), starts)
}

/// Starts `n` calls of `tool`, each on a task of its own.
fn start_calls(
    tb: &Arc<Toolbox>,
    tool: &'static str,
    n: usize,
) -> Vec<tokio::task::JoinHandle<Status>> {
    (0..n)
        .map(|_| {
            let tb = Arc::clone(tb);
            tokio::spawn(async move { tb.call(tool, json!({})).await.status })
        })
        .collect()
}

/// Waits (a bounded number of times) until `held_tool_threads` is `want`.
async fn wait_held(tb: &Toolbox, want: usize) {
    for _ in 0..200 {
        if tb.held_tool_threads() == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "held_tool_threads stayed {} (wanted {want})",
        tb.held_tool_threads()
    );
}

/// The scenario of the issue: blocking tools past their timeout, more of them than the host has
/// workers, started while earlier ones still block; the host's timer, a cheap call and the
/// timeouts themselves all answer in their normal time.
async fn host_goes_on_while_tools_block(tool: &'static str) {
    let audit = Arc::new(MemorySink::new());
    let (tb, starts) = toolbox(8, Some(Arc::clone(&audit)));
    let first = start_calls(&tb, tool, 1);
    tokio::time::sleep(Duration::from_millis(50)).await;
    // Three more while the first still blocks: four blocking tools, twice the host's workers.
    let blocked = start_calls(&tb, tool, 3);

    let t = Instant::now();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let slept = t.elapsed();
    assert!(
        slept < Duration::from_millis(500),
        "the host's 50 ms sleep took {slept:?}"
    );

    let t = Instant::now();
    let ping = tb.call("get_ping", json!({})).await;
    let took = t.elapsed();
    assert_eq!(ping.status, Status::Ok, "{}", ping.to_json());
    assert!(took < Duration::from_secs(1), "a cheap call took {took:?}");

    let t = Instant::now();
    for call in first.into_iter().chain(blocked) {
        assert_eq!(call.await.unwrap(), Status::Timeout);
    }
    // Each answered about TIMEOUT after it started; all four well before the tools return.
    let took = t.elapsed();
    assert!(
        took < BLOCK,
        "the timeouts took {took:?}, as long as the tools block"
    );
    assert_eq!(starts.0.load(Ordering::SeqCst), 4);
    // The four threads are still held by the tools, and counted; they free when the tools
    // return.
    assert_eq!(tb.held_tool_threads(), 4);
    let details: Vec<String> = audit
        .records()
        .iter()
        .filter(|r| r.tool == tool && r.code.as_deref() == Some("TIMEOUT"))
        .filter_map(|r| r.detail.clone())
        .collect();
    assert_eq!(details.len(), 4, "{details:?}");
    let says = if tool == "compute_blocked_sum" {
        "a sync tool cannot be stopped"
    } else {
        "it blocks its thread"
    };
    assert!(details.iter().all(|d| d.contains(says)), "{details:?}");
    wait_held(&tb, 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocking_async_tools_do_not_stall_a_two_worker_host() {
    host_goes_on_while_tools_block("get_blocked_report").await;
}

#[tokio::test(flavor = "current_thread")]
async fn blocking_async_tools_do_not_stall_a_current_thread_host() {
    host_goes_on_while_tools_block("get_blocked_report").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocking_sync_tools_do_not_stall_the_host() {
    host_goes_on_while_tools_block("compute_blocked_sum").await;
}

/// The control: the same async tool run in the caller's task (no timeout, not isolated) on a
/// current-thread host does stall the host's timer, which is what isolation prevents. Then
/// isolated (`isolate_tools`, still no timeout), it does not.
#[tokio::test(flavor = "current_thread")]
async fn isolating_a_tool_without_a_timeout_keeps_the_host_running() {
    for isolated in [false, true] {
        let mut b = Toolbox::builder()
            .tool(get_blocked_report::tool())
            .context(Starts::default());
        if isolated {
            b = b.isolate_tools(["get_blocked_report"]);
        }
        let tb = Arc::new(b.build().unwrap());
        let call = start_calls(&tb, "get_blocked_report", 1);
        // The host yields (the call starts, on this runtime's only thread unless isolated),
        // then sleeps 20 ms.
        let t = Instant::now();
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(20)).await;
        let slept = t.elapsed();
        if isolated {
            assert!(
                slept < Duration::from_millis(750),
                "isolated: the host slept {slept:?}"
            );
        } else {
            // The tool held the host's only thread for its whole block.
            assert!(
                slept >= BLOCK / 2,
                "in place: the host slept only {slept:?}"
            );
        }
        for c in call {
            assert_eq!(c.await.unwrap(), Status::Ok);
        }
    }
}

/// With every tool thread held by blocked tools, a call waits for a thread within its timeout;
/// none frees, so it did not run: `temporary_failure` `TOOLS_BUSY` with `retry_after`, and the
/// idempotency key is released, so the retry after the tools return runs (once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_finds_every_tool_thread_taken_did_not_run_and_its_retry_does() {
    let audit = Arc::new(MemorySink::new());
    let (tb, starts) = toolbox(2, Some(Arc::clone(&audit)));
    let blocked = start_calls(&tb, "get_blocked_report", 2);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(starts.0.load(Ordering::SeqCst), 2);

    let pay = json!({"payment": "P-1"});
    let busy = tb.call("record_payment", pay.clone()).await;
    assert_eq!(busy.status, Status::TemporaryFailure, "{}", busy.to_json());
    assert_eq!(busy.code.as_deref(), Some("TOOLS_BUSY"));
    assert_eq!(busy.retry_after, Some(1));
    assert!(busy.message.as_deref().unwrap().contains("it did not run"));
    // It did not run: only the two blocked tools started.
    assert_eq!(starts.0.load(Ordering::SeqCst), 2);
    let record = audit
        .records()
        .into_iter()
        .find(|r| r.code.as_deref() == Some("TOOLS_BUSY"))
        .expect("an audit record for the busy call");
    let detail = record.detail.unwrap();
    assert!(detail.contains("all 2 tool threads"), "{detail}");

    for c in blocked {
        assert_eq!(c.await.unwrap(), Status::Timeout);
    }
    wait_held(&tb, 0).await;
    // The retry the envelope asked for runs, exactly once; its repeat is the duplicate.
    let retry = tb.call("record_payment", pay.clone()).await;
    assert_eq!(retry.status, Status::Ok, "{}", retry.to_json());
    assert_eq!(starts.0.load(Ordering::SeqCst), 3);
    let repeat = tb.call("record_payment", pay).await;
    assert_eq!(repeat.code.as_deref(), Some("DUPLICATE"));
    assert_eq!(starts.0.load(Ordering::SeqCst), 3);
}

/// A call the host drops while its isolated tool blocks leaves the thread counted as held until
/// the tool returns; a dropped call whose tool waits cooperatively stops the tool at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_frees_a_cooperative_tool_and_counts_a_blocked_one() {
    let drops = Arc::new(Drops::default());
    let tb = Arc::new(
        Toolbox::builder()
            .tool(get_blocked_report::tool())
            .tool(wait_for_event::tool())
            .context(Starts::default())
            .shared_context(Arc::clone(&drops))
            .isolate_all_tools()
            .build()
            .unwrap(),
    );
    let call = tb.call("get_blocked_report", json!({}));
    assert!(tokio::time::timeout(Duration::from_millis(100), call)
        .await
        .is_err());
    assert_eq!(tb.held_tool_threads(), 1);
    wait_held(&tb, 0).await;

    let call = tb.call("wait_for_event", json!({}));
    assert!(tokio::time::timeout(Duration::from_millis(100), call)
        .await
        .is_err());
    for _ in 0..200 {
        if drops.0.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        drops.0.load(Ordering::SeqCst),
        1,
        "the waiting tool was not stopped"
    );
    wait_held(&tb, 0).await;
}

/// Counts the tools stopped while they waited.
#[derive(Default)]
struct Drops(Arc<AtomicUsize>);

/// Counts a drop.
struct OnDrop(Arc<AtomicUsize>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Waits for an event that never comes. Returns nothing.
#[tool(read_only)]
async fn wait_for_event(#[context] drops: &Drops) {
    let _guard = OnDrop(Arc::clone(&drops.0));
    std::future::pending::<()>().await;
}

/// Calls with an explicit key go the same way: a busy answer releases the key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_explicit_key_is_released_by_a_busy_answer() {
    let (tb, _) = toolbox(1, None);
    let blocked = start_calls(&tb, "compute_blocked_sum", 1);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let options = || CallOptions::new().idempotency_key("k-1");
    let busy = tb.call_with("get_ping", json!({}), options()).await;
    assert_eq!(
        busy.code.as_deref(),
        Some("TOOLS_BUSY"),
        "{}",
        busy.to_json()
    );
    for c in blocked {
        assert_eq!(c.await.unwrap(), Status::Timeout);
    }
    wait_held(&tb, 0).await;
    let retry = tb.call_with("get_ping", json!({}), options()).await;
    assert_eq!(retry.status, Status::Ok, "{}", retry.to_json());
}
