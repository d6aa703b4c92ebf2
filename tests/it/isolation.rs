//! Tools that block their thread cannot take the host down (issue 35, point 1): a tool with a
//! timeout, or one the host isolates, runs on the toolbox's own bounded tool threads, so while
//! such tools block (at least as many as the host runtime has workers) the host's timers and its
//! other calls go on; a call that finds every tool thread taken did not run and says so
//! (`TOOLS_BUSY`, key released); a thread a blocked tool still holds is counted.
//!
//! The tests wait on events, never on delays (issue 49). A blocking tool counts its start (the
//! test waits for the count) and blocks its thread until the test opens its gate, so "the tools
//! hold their threads" is known rather than hoped for, and the host's timer, a cheap call and
//! the timeouts are shown to go on because they answer while the gate is still shut. The one tool
//! that blocks for a set time is the control that stalls a host in place (the block is what it
//! shows). "Did not run" is driven through the start/withdraw race many times, each round's
//! count read once the tool thread has settled (every thread reached a rendezvous after it).

use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Barrier, Condvar, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use toolsmith::audit::MemorySink;
use toolsmith::{tool, CallOptions, Envelope, Status, Toolbox};

/// How long the control tool stalls the host's only thread.
const BLOCK: Duration = Duration::from_millis(1_500);
/// The toolbox's default timeout in these tests.
const TIMEOUT: Duration = Duration::from_millis(200);
/// The bound of every wait for an event; only a failing test reaches it.
const BOUND: Duration = Duration::from_secs(30);

/// A count (of tools started, of tools stopped) the test can wait for.
struct Counter(watch::Sender<usize>);

impl Default for Counter {
    fn default() -> Self {
        Counter(watch::channel(0).0)
    }
}

impl Counter {
    fn bump(&self) {
        self.0.send_modify(|n| *n += 1);
    }

    fn get(&self) -> usize {
        *self.0.borrow()
    }

    /// Waits until the count is at least `n`.
    async fn reach(&self, n: usize) {
        let mut seen = self.0.subscribe();
        let reached = tokio::time::timeout(BOUND, seen.wait_for(|c| *c >= n)).await;
        assert!(
            matches!(reached, Ok(Ok(_))),
            "the count stayed {} (waited for {n})",
            self.get()
        );
    }
}

/// Counts the runs of the tools that share it, and says when they start.
#[derive(Default)]
struct Starts(Counter);

/// Where the blocking tools block their thread (a synchronous wait, as a blocking lock is) until
/// the test opens it. It opens by itself after [`BOUND`], so a failing test leaves no thread
/// behind for long, and says so.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
    expired: AtomicBool,
}

impl Gate {
    fn pass(&self) {
        let deadline = Instant::now() + BOUND;
        let mut open = self.open.lock().unwrap();
        while !*open {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                self.expired.store(true, Ordering::SeqCst);
                return;
            }
            open = self.opened.wait_timeout(open, left).unwrap().0;
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }

    /// Whether the gate was shut all along until the test opened it (it did not open by
    /// itself because the test stalled).
    fn held_until_opened(&self) -> bool {
        !self.expired.load(Ordering::SeqCst)
    }
}

/// Blocks its thread inside `async fn` until the test opens the gate. Returns nothing.
#[tool(read_only)]
async fn get_blocked_report(#[context] starts: &Starts, #[context] gate: &Gate) {
    starts.0.bump();
    gate.pass();
}

/// Blocks its thread in a sync tool until the test opens the gate. Returns nothing.
#[tool(read_only)]
fn compute_blocked_sum(#[context] starts: &Starts, #[context] gate: &Gate) {
    starts.0.bump();
    gate.pass();
}

/// Blocks its thread inside `async fn` for a set time. Returns nothing.
#[tool(read_only)]
async fn get_stalled_report() {
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
    starts.0.bump();
    payment
}

/// As many parties as the toolbox has tool threads.
struct Rendezvous(Barrier);

/// Waits on its tool thread until every tool thread has come to it. Returns nothing.
#[tool(read_only, timeout_ms = 30000)]
fn wait_for_every_thread(#[context] all: &Rendezvous) {
    all.0.wait();
}

/// One call of `wait_for_every_thread` per tool thread, at once: they answer when every thread
/// is in one of them, so each thread has finished what it took before (the pool hands out work
/// in the order it was given). Only then is a count of runs final.
async fn settle(tb: &Arc<Toolbox>, threads: usize) {
    let calls: Vec<_> = (0..threads)
        .map(|_| {
            let tb = Arc::clone(tb);
            tokio::spawn(async move { tb.call("wait_for_every_thread", json!({})).await })
        })
        .collect();
    for call in calls {
        let env = tokio::time::timeout(BOUND, call)
            .await
            .expect("the tool threads settle")
            .unwrap();
        assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    }
}

/// The toolbox of these tests (a 200 ms default timeout, `threads` tool threads), its run
/// counter and its gate.
struct Fixture {
    tb: Arc<Toolbox>,
    starts: Arc<Starts>,
    gate: Arc<Gate>,
    threads: usize,
}

fn toolbox(threads: usize, audit: Option<Arc<MemorySink>>) -> Fixture {
    let (starts, gate) = (Arc::new(Starts::default()), Arc::new(Gate::default()));
    let mut b = Toolbox::builder()
        .tool(get_blocked_report::tool())
        .tool(compute_blocked_sum::tool())
        .tool(get_ping::tool())
        .tool(record_payment::tool())
        .tool(wait_for_every_thread::tool())
        .shared_context(Arc::clone(&starts))
        .shared_context(Arc::clone(&gate))
        .context(Rendezvous(Barrier::new(threads)))
        .default_timeout(TIMEOUT)
        .tool_threads(threads);
    if let Some(sink) = audit {
        b = b.shared_audit(sink);
    }
    Fixture {
        tb: Arc::new(b.build().unwrap()),
        starts,
        gate,
        threads,
    }
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

/// Waits (polling the count, within [`BOUND`]) until `held_tool_threads` is `want`.
async fn wait_held(tb: &Toolbox, want: usize) {
    let deadline = Instant::now() + BOUND;
    while tb.held_tool_threads() != want {
        assert!(
            Instant::now() < deadline,
            "held_tool_threads stayed {} (wanted {want})",
            tb.held_tool_threads()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The scenario of the issue: blocking tools past their timeout, more of them than the host has
/// workers, started while earlier ones still block; the host's timer, a cheap call and the
/// timeouts themselves all answer while every tool still holds its thread.
async fn host_goes_on_while_tools_block(tool: &'static str) {
    let audit = Arc::new(MemorySink::new());
    let f = toolbox(8, Some(Arc::clone(&audit)));
    let first = start_calls(&f.tb, tool, 1);
    f.starts.0.reach(1).await;
    // Three more while the first still blocks: four blocking tools, twice the host's workers.
    let blocked = start_calls(&f.tb, tool, 3);
    f.starts.0.reach(4).await;

    // All four hold their threads until the gate opens; meanwhile the host's timer fires, a
    // cheap call answers, and every call's timeout answers.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let ping = f.tb.call("get_ping", json!({})).await;
    assert_eq!(ping.status, Status::Ok, "{}", ping.to_json());
    for call in first.into_iter().chain(blocked) {
        assert_eq!(call.await.unwrap(), Status::Timeout);
    }
    assert!(
        f.gate.held_until_opened(),
        "the host stalled until the gate opened by itself"
    );
    assert_eq!(f.starts.0.get(), 4);
    // The four threads are still held by the tools, and counted; they free when the tools
    // return.
    assert_eq!(f.tb.held_tool_threads(), 4);
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
    f.gate.open();
    wait_held(&f.tb, 0).await;
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

/// The control: an async tool that blocks its thread, run in the caller's task (no timeout, not
/// isolated) on a current-thread host, does stall the host's timer, which is what isolation
/// prevents. Then isolated (`isolate_tools`, still no timeout), it does not.
#[tokio::test(flavor = "current_thread")]
async fn isolating_a_tool_without_a_timeout_keeps_the_host_running() {
    // In place: the tool holds the host's only thread for its whole block, so the host's 20 ms
    // sleep cannot end before the tool returns (it starts after `t`, and blocks for BLOCK).
    let tb = Arc::new(
        Toolbox::builder()
            .tool(get_stalled_report::tool())
            .build()
            .unwrap(),
    );
    let call = start_calls(&tb, "get_stalled_report", 1);
    let t = Instant::now();
    tokio::task::yield_now().await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let slept = t.elapsed();
    assert!(slept >= BLOCK, "in place: the host slept only {slept:?}");
    for c in call {
        assert_eq!(c.await.unwrap(), Status::Ok);
    }

    // Isolated: while the tool holds a tool thread (until the gate opens), the host's sleep
    // ends.
    let (starts, gate) = (Arc::new(Starts::default()), Arc::new(Gate::default()));
    let tb = Arc::new(
        Toolbox::builder()
            .tool(get_blocked_report::tool())
            .shared_context(Arc::clone(&starts))
            .shared_context(Arc::clone(&gate))
            .isolate_tools(["get_blocked_report"])
            .build()
            .unwrap(),
    );
    let call = start_calls(&tb, "get_blocked_report", 1);
    starts.0.reach(1).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(
        gate.held_until_opened(),
        "isolated: the host's sleep waited for the tool"
    );
    gate.open();
    for c in call {
        assert_eq!(c.await.unwrap(), Status::Ok);
    }
}

/// With every tool thread held by blocked tools, a call waits for a thread within its timeout;
/// none frees, so it did not run: `temporary_failure` `TOOLS_BUSY` with `retry_after`, and the
/// idempotency key is released, so the retry after the tools return runs (once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_finds_every_tool_thread_taken_did_not_run_and_its_retry_does() {
    let audit = Arc::new(MemorySink::new());
    let f = toolbox(2, Some(Arc::clone(&audit)));
    let blocked = start_calls(&f.tb, "get_blocked_report", 2);
    // Both tool threads are held, until the gate opens.
    f.starts.0.reach(2).await;

    let pay = json!({"payment": "P-1"});
    let busy = f.tb.call("record_payment", pay.clone()).await;
    assert_eq!(busy.status, Status::TemporaryFailure, "{}", busy.to_json());
    assert_eq!(busy.code.as_deref(), Some("TOOLS_BUSY"));
    assert_eq!(busy.retry_after, Some(1));
    assert!(busy.message.as_deref().unwrap().contains("it did not run"));
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
    f.gate.open();
    wait_held(&f.tb, 0).await;
    // The threads have taken everything given to them before: the busy call's run was dropped,
    // never started; only the two blocked tools ran.
    settle(&f.tb, f.threads).await;
    assert_eq!(f.starts.0.get(), 2);
    // The retry the envelope asked for runs, exactly once; its repeat is the duplicate.
    let retry = f.tb.call("record_payment", pay.clone()).await;
    assert_eq!(retry.status, Status::Ok, "{}", retry.to_json());
    assert_eq!(f.starts.0.get(), 3);
    let repeat = f.tb.call("record_payment", pay).await;
    assert_eq!(repeat.code.as_deref(), Some("DUPLICATE"));
    settle(&f.tb, f.threads).await;
    assert_eq!(f.starts.0.get(), 3);
}

/// Counts the tools stopped while they waited.
#[derive(Default)]
struct Stops(Arc<Counter>);

/// Counts a stop when dropped.
struct OnDrop(Arc<Counter>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.bump();
    }
}

/// Waits for an event that never comes. Returns nothing.
#[tool(read_only)]
async fn wait_for_event(#[context] starts: &Starts, #[context] stops: &Stops) {
    let _guard = OnDrop(Arc::clone(&stops.0));
    starts.0.bump();
    std::future::pending::<()>().await;
}

/// Drives `call` until its tool has started (the `starts` count reaches `n`), then drops it.
async fn drop_once_started(
    call: impl std::future::Future<Output = Envelope>,
    starts: &Starts,
    n: usize,
) {
    tokio::pin!(call);
    tokio::select! {
        env = &mut call => panic!("the call answered before it was dropped: {}", env.to_json()),
        () = starts.0.reach(n) => {}
    }
}

/// A call the host drops while its isolated tool blocks leaves the thread counted as held until
/// the tool returns; a dropped call whose tool waits cooperatively stops the tool at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_frees_a_cooperative_tool_and_counts_a_blocked_one() {
    let (starts, gate, stops) = (
        Arc::new(Starts::default()),
        Arc::new(Gate::default()),
        Arc::new(Stops::default()),
    );
    let tb = Arc::new(
        Toolbox::builder()
            .tool(get_blocked_report::tool())
            .tool(wait_for_event::tool())
            .shared_context(Arc::clone(&starts))
            .shared_context(Arc::clone(&gate))
            .shared_context(Arc::clone(&stops))
            .isolate_all_tools()
            .build()
            .unwrap(),
    );
    drop_once_started(tb.call("get_blocked_report", json!({})), &starts, 1).await;
    // Dropped while its tool blocks (until the gate opens): the thread is counted as held.
    assert_eq!(tb.held_tool_threads(), 1);
    gate.open();
    wait_held(&tb, 0).await;

    drop_once_started(tb.call("wait_for_event", json!({})), &starts, 2).await;
    // The waiting tool is stopped at its `.await`: its future is dropped.
    stops.0.reach(1).await;
    wait_held(&tb, 0).await;
}

/// Calls with an explicit key go the same way: a busy answer releases the key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_explicit_key_is_released_by_a_busy_answer() {
    let f = toolbox(1, None);
    let blocked = start_calls(&f.tb, "compute_blocked_sum", 1);
    f.starts.0.reach(1).await;
    let options = || CallOptions::new().idempotency_key("k-1");
    let busy = f.tb.call_with("get_ping", json!({}), options()).await;
    assert_eq!(
        busy.code.as_deref(),
        Some("TOOLS_BUSY"),
        "{}",
        busy.to_json()
    );
    for c in blocked {
        assert_eq!(c.await.unwrap(), Status::Timeout);
    }
    f.gate.open();
    wait_held(&f.tb, 0).await;
    let retry = f.tb.call_with("get_ping", json!({}), options()).await;
    assert_eq!(retry.status, Status::Ok, "{}", retry.to_json());
}

// ------------------------------------------------------- "did not run", through the race

/// The only tool thread's holder: it says when it holds the thread, and frees it at the moment
/// the test sends.
struct Holder {
    held: Counter,
    free_at: Mutex<mpsc::Receiver<Instant>>,
}

/// Holds its tool thread until the moment the test picks. Returns nothing.
#[tool(read_only)]
fn hold_tool_thread(#[context] holder: &Holder) {
    holder.held.bump();
    let free_at = holder.free_at.lock().unwrap().recv_timeout(BOUND);
    if let Ok(at) = free_at {
        while Instant::now() < at {
            std::hint::spin_loop();
        }
    }
}

/// The runs of `book_slot`, by slot.
#[derive(Default)]
struct Booked(Mutex<HashMap<String, usize>>);

impl Booked {
    fn of(&self, slot: &str) -> usize {
        self.0.lock().unwrap().get(slot).copied().unwrap_or(0)
    }
}

/// Books a delivery slot under its own id, or gives up after 1 ms. Returns the slot.
#[tool(writes, idempotency_key(slot), timeout_ms = 1)]
fn book_slot(
    #[context] booked: &Booked,
    /// The slot's own id, e.g. "S-1".
    slot: String,
) -> String {
    *booked.0.lock().unwrap().entry(slot.clone()).or_default() += 1;
    // Takes a moment, so a start just before the timer fires is seen as a timeout.
    let until = Instant::now() + Duration::from_micros(200);
    while Instant::now() < until {
        std::hint::spin_loop();
    }
    slot
}

/// Rounds of the race through the toolbox.
const RACE_ROUNDS: u64 = 300;

/// A `TOOLS_BUSY` answer says the tool did not run, and the key is released on the strength of
/// it. The race behind it: the only tool thread frees at a moment drawn across the 1 ms timeout
/// of a keyed write waiting for it, so in some rounds the thread starts the run as the caller
/// gives up on it. In every round, once the thread has settled: a busy answer ran nothing and
/// its repeat runs; any other answer ran the tool and its repeat is refused; each slot is
/// booked exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_answer_never_ran_the_tool_even_as_a_thread_frees() {
    let (free_tx, free_rx) = mpsc::channel();
    let holder = Arc::new(Holder {
        held: Counter::default(),
        free_at: Mutex::new(free_rx),
    });
    let booked = Arc::new(Booked::default());
    let tb = Arc::new(
        Toolbox::builder()
            .tool(hold_tool_thread::tool())
            .tool(book_slot::tool())
            .tool(wait_for_every_thread::tool())
            .shared_context(Arc::clone(&holder))
            .shared_context(Arc::clone(&booked))
            .context(Rendezvous(Barrier::new(1)))
            .isolate_tools(["hold_tool_thread"])
            .tool_threads(1)
            .build()
            .unwrap(),
    );
    let (mut busy, mut answered, mut timed_out) = (0u64, 0u64, 0u64);
    // A fixed xorshift: the same moments on every run.
    let mut seed = 0x2545_F491_4F6C_DD1D_u64;
    for round in 0..RACE_ROUNDS {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        // From before the 1 ms timer can fire (it fires 1-2 ms after the run is submitted) to
        // after it has.
        let offset = Duration::from_micros(500 + seed % 2_500);
        let holding = {
            let tb = Arc::clone(&tb);
            tokio::spawn(async move { tb.call("hold_tool_thread", json!({})).await })
        };
        let round_no = usize::try_from(round).unwrap();
        holder.held.reach(round_no + 1).await;
        let slot = format!("S-{round}");
        let args = json!({ "slot": slot });
        free_tx.send(Instant::now() + offset).unwrap();
        let first = tb.call("book_slot", args.clone()).await;
        let held = holding.await.unwrap();
        assert_eq!(held.status, Status::Ok, "{}", held.to_json());
        settle(&tb, 1).await;
        let ran = booked.of(&slot);
        let was_busy = first.code.as_deref() == Some("TOOLS_BUSY");
        if was_busy {
            assert_eq!(first.status, Status::TemporaryFailure);
            assert!(first.message.as_deref().unwrap().contains("it did not run"));
            assert_eq!(ran, 0, "round {round}: TOOLS_BUSY, yet the tool ran");
            busy += 1;
        } else {
            match first.status {
                Status::Ok => answered += 1,
                Status::Timeout => timed_out += 1,
                _ => panic!("round {round}: {}", first.to_json()),
            }
            assert_eq!(ran, 1, "round {round}: {}", first.to_json());
        }
        // The key: released by a busy answer (the repeat runs), kept otherwise (the repeat is
        // refused). A repeat may itself find the thread taken for its 1 ms: it runs nothing.
        let mut repeat = None;
        for _ in 0..100 {
            let env = tb.call("book_slot", args.clone()).await;
            settle(&tb, 1).await;
            if env.code.as_deref() != Some("TOOLS_BUSY") {
                repeat = Some(env);
                break;
            }
            assert_eq!(booked.of(&slot), ran, "round {round}: a busy repeat ran");
        }
        let repeat = repeat.expect("a repeat got the free thread within 100 tries");
        if was_busy {
            assert_ne!(repeat.status, Status::Refused, "{}", repeat.to_json());
        } else {
            assert_eq!(repeat.status, Status::Refused, "{}", repeat.to_json());
        }
        assert_eq!(booked.of(&slot), 1, "round {round}: booked once");
    }
    println!(
        "{RACE_ROUNDS} rounds: {busy} TOOLS_BUSY (did not run), {answered} ran and answered, \
         {timed_out} started shortly before the 1 ms timeout fired (timeout, ran)"
    );
    assert!(busy > 0, "no round was busy: the draw missed the race");
    assert!(
        answered + timed_out > 0,
        "no round ran: the draw missed the race"
    );
}
