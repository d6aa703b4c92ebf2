//! The toolbox's own threads, where a tool runs apart from the caller's runtime: a tool with a
//! timeout, a tool the host isolates ([`ToolboxBuilder::isolate_tools`]), and every sync tool
//! with [`ToolboxBuilder::offload_sync_tools`].
//!
//! A tool there holds one of these threads while it runs. An async tool is driven on it by the
//! caller's runtime handle (`Handle::block_on`), so its timers, its I/O and the tasks it spawns
//! belong to the host's runtime as before; but a tool that blocks its thread (a synchronous
//! sleep or lock inside `async fn`) blocks a thread of the toolbox, never one of the host's
//! workers: the host's timers, its other tasks and its other calls go on. The threads are
//! bounded ([`ToolboxBuilder::tool_threads`]); a call that finds them all taken waits for one
//! within its timeout, and when none frees in time it did not run and is answered
//! `temporary_failure` (`TOOLS_BUSY`).
//!
//! Each run is claimed once: either the thread starts the tool, or the caller withdraws it (a
//! timeout while it waited, or a dropped call), never both, so "did not run" is exact. A thread
//! still running a tool whose call already ended (timed out or dropped) is counted as held
//! ([`crate::Toolbox::held_tool_threads`]) until the tool returns.
//!
//! A tool there sees the call's progress sink and client channel (`#[context] progress:
//! &Progress`, `#[context] client: &Client`) as it would in the caller's task: they are
//! task-locals of the caller's task, which a tool thread does not poll, so [`ToolThreads::run`]
//! takes them from the caller's task and sets them again around the tool on its thread.
//!
//! The threads are those of a tokio blocking pool (idle ones end after ten seconds); the pool is
//! built on the first call that needs it, and shut down without waiting when the toolbox drops
//! (a thread still blocked in a tool ends when the tool returns).
//!
//! [`ToolboxBuilder::isolate_tools`]: crate::ToolboxBuilder::isolate_tools
//! [`ToolboxBuilder::offload_sync_tools`]: crate::ToolboxBuilder::offload_sync_tools
//! [`ToolboxBuilder::tool_threads`]: crate::ToolboxBuilder::tool_threads

use crate::client::ClientChannel;
use crate::progress::ProgressSink;
use crate::tool::BoxFuture;
use crate::unwind::{panic_text, CatchUnwind};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;
use tokio::runtime::{Handle, Runtime};
use tokio::sync::oneshot;

/// How long an idle tool thread waits for the next run before it ends.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// How long a timed-out async tool is given to stop at its next `.await` before the timeout is
/// answered (and the tool, still running, is found to block its thread).
pub(crate) const ABORT_GRACE: Duration = Duration::from_millis(100);

/// A run's states; each moves once, by a compare-and-swap, so the thread and the caller agree.
const PENDING: u8 = 0;
const RUNNING: u8 = 1;
/// The caller gave up before a thread started it: it never runs.
const WITHDRAWN: u8 = 2;
/// The caller gave up while it ran: the thread is counted as held until it returns.
const ABANDONED: u8 = 3;
const DONE: u8 = 4;

/// The toolbox's tool threads.
pub(crate) struct ToolThreads {
    limit: usize,
    pool: OnceLock<Result<Runtime, String>>,
    /// Threads still running a tool whose call has ended.
    held: Arc<AtomicUsize>,
}

/// What a tool thread runs: the executor, its panic caught.
pub(crate) enum Work<R> {
    /// A sync tool, called on the thread (inside the host runtime's context).
    Sync(Box<dyn FnOnce() -> R + Send>),
    /// An async tool, driven on the thread by the host runtime's handle.
    Async(BoxFuture<'static, R>),
}

/// Why a run gave no result.
pub(crate) enum Unrun {
    /// No thread took it within the timeout (all were taken); it never ran.
    Busy { limit: usize, held: usize },
    /// The pool could not be started; it never ran.
    Unavailable(String),
    /// It ran past the timeout. `blocked`: an async tool that did not stop at its next
    /// `.await` within the grace, so it blocks its thread.
    Timeout { blocked: bool },
    /// It panicked (the text is for the audit record only).
    Panic(String),
}

impl ToolThreads {
    pub(crate) fn new(limit: usize) -> ToolThreads {
        ToolThreads {
            limit: limit.max(1),
            pool: OnceLock::new(),
            held: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Threads still running a tool whose call has ended (it timed out or was dropped).
    pub(crate) fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    fn pool(&self) -> Result<&Handle, &str> {
        let limit = self.limit;
        let pool = self.pool.get_or_init(|| {
            tokio::runtime::Builder::new_current_thread()
                .max_blocking_threads(limit)
                .thread_keep_alive(KEEP_ALIVE)
                .thread_name("toolsmith-tool")
                .build()
                .map_err(|e| format!("the toolbox could not start its tool threads: {e}"))
        });
        match pool {
            Ok(rt) => Ok(rt.handle()),
            Err(e) => Err(e),
        }
    }

    /// Runs `work` on a tool thread, answering within `timeout` whether or not the tool blocks.
    /// Dropping the returned future withdraws a run not yet started and cancels an async tool
    /// at its next `.await`.
    pub(crate) async fn run<R: Send + 'static>(
        &self,
        host: Handle,
        work: Work<R>,
        timeout: Option<Duration>,
    ) -> Result<R, Unrun> {
        let pool = self.pool().map_err(|e| Unrun::Unavailable(e.to_string()))?;
        let work = CallLocals::take().around(work);
        let is_async = matches!(work, Work::Async(_));
        let (cancel, cancelled) = oneshot::channel::<()>();
        let claim = Claim {
            state: Arc::new(AtomicU8::new(PENDING)),
            held: Arc::clone(&self.held),
            _cancel: cancel,
        };
        let (state, held) = (Arc::clone(&claim.state), Arc::clone(&self.held));
        let mut task = pool.spawn_blocking(move || {
            if state
                .compare_exchange(PENDING, RUNNING, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                return None;
            }
            let out = match work {
                Work::Sync(f) => {
                    let _host = host.enter();
                    catch_unwind(AssertUnwindSafe(f)).map_err(panic_text)
                }
                Work::Async(fut) => host
                    .block_on(UntilCancelled {
                        fut: CatchUnwind(fut),
                        cancelled,
                    })
                    .unwrap_or_else(|| Err("cancelled".to_string())),
            };
            if state.swap(DONE, Ordering::AcqRel) == ABANDONED {
                held.fetch_sub(1, Ordering::AcqRel);
            }
            Some(out)
        });
        let joined = match timeout {
            None => (&mut task).await,
            Some(limit) => match tokio::time::timeout(limit, &mut task).await {
                Ok(joined) => joined,
                Err(_) => {
                    if claim.withdraw() {
                        return Err(Unrun::Busy {
                            limit: self.limit,
                            held: self.held(),
                        });
                    }
                    // Started: stop it. A cooperative async tool ends at its next `.await`; one
                    // that blocks its thread (or a sync tool) runs on and holds the thread.
                    drop(claim);
                    let blocked =
                        is_async && tokio::time::timeout(ABORT_GRACE, &mut task).await.is_err();
                    return Err(Unrun::Timeout { blocked });
                }
            },
        };
        drop(claim);
        match joined {
            Ok(Some(Ok(v))) => Ok(v),
            Ok(Some(Err(panic))) => Err(Unrun::Panic(panic)),
            Ok(None) => Err(Unrun::Busy {
                limit: self.limit,
                held: self.held(),
            }),
            Err(e) => Err(Unrun::Unavailable(format!(
                "the tool's thread ended without a result: {e}"
            ))),
        }
    }
}

impl Drop for ToolThreads {
    fn drop(&mut self) {
        // Never wait for a thread still blocked in a tool; it ends when the tool returns.
        if let Some(Ok(rt)) = self.pool.take() {
            rt.shutdown_background();
        }
    }
}

/// The caller's side of a run. Dropped (the run answered, timed out or was dropped), it
/// withdraws a run not yet started, or counts a running one as held, and cancels an async tool
/// at its next `.await` (the channel's sender goes with it).
struct Claim {
    state: Arc<AtomicU8>,
    held: Arc<AtomicUsize>,
    _cancel: oneshot::Sender<()>,
}

impl Claim {
    /// Withdraws a run no thread has started; `true` when it will never run.
    fn withdraw(&self) -> bool {
        self.state
            .compare_exchange(PENDING, WITHDRAWN, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if self.withdraw() || self.state.load(Ordering::Acquire) == DONE {
            return;
        }
        // Running (or just finishing): counted before the state says so, so the thread's
        // decrement never comes first.
        self.held.fetch_add(1, Ordering::AcqRel);
        if self
            .state
            .compare_exchange(RUNNING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // It had already returned.
            self.held.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// The task-locals of a call a tool reads, taken in the caller's task and set again around the
/// tool on its thread (a task-local does not cross to another thread).
struct CallLocals {
    progress: Option<Arc<dyn ProgressSink>>,
    client: Option<Arc<dyn ClientChannel>>,
    talk: Option<Arc<crate::client::Talk>>,
}

impl CallLocals {
    /// The current task's.
    fn take() -> CallLocals {
        CallLocals {
            progress: crate::progress::current(),
            client: crate::client::current(),
            talk: crate::client::current_talk(),
        }
    }

    /// `work`, run with these task-locals set.
    fn around<R: Send + 'static>(self, work: Work<R>) -> Work<R> {
        if self.progress.is_none() && self.client.is_none() && self.talk.is_none() {
            return work;
        }
        let CallLocals {
            progress,
            client,
            talk,
        } = self;
        match work {
            Work::Sync(f) => Work::Sync(Box::new(move || {
                crate::progress::sync_scope(progress, || {
                    crate::client::sync_scope(client, || crate::client::talk_sync_scope(talk, f))
                })
            })),
            Work::Async(fut) => Work::Async(Box::pin(crate::progress::scope(
                progress,
                crate::client::scope(client, crate::client::talk_scope(talk, fut)),
            ))),
        }
    }
}

/// A tool's future that ends (`None`) when its caller is gone.
struct UntilCancelled<F> {
    fut: F,
    cancelled: oneshot::Receiver<()>,
}

impl<F: Future + Unpin> Future for UntilCancelled<F> {
    type Output = Option<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        if Pin::new(&mut self.cancelled).poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Pin::new(&mut self.fut).poll(cx).map(Some)
    }
}

/// The tools the host runs on the tool threads whatever their timeout
/// ([`ToolboxBuilder::isolate_tools`], [`ToolboxBuilder::isolate_all_tools`]).
///
/// [`ToolboxBuilder::isolate_tools`]: crate::ToolboxBuilder::isolate_tools
/// [`ToolboxBuilder::isolate_all_tools`]: crate::ToolboxBuilder::isolate_all_tools
#[derive(Default)]
pub(crate) enum Isolation {
    #[default]
    None,
    Listed(std::collections::HashSet<String>),
    All,
}

impl Isolation {
    /// Whether the tool of this name is isolated.
    pub(crate) fn covers(&self, name: &str) -> bool {
        match self {
            Isolation::None => false,
            Isolation::Listed(names) => names.contains(name),
            Isolation::All => true,
        }
    }
}

#[cfg(test)]
mod tests {
    //! The claim of the module: a run is started by its thread or withdrawn by its caller, never
    //! both, so `Busy` ("it did not run") is exact. Driven through the race many times: the only
    //! tool thread frees at a moment drawn across the caller's timeout.
    use super::{ToolThreads, Unrun, Work};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{mpsc, Arc};
    use std::time::{Duration, Instant};
    use tokio::sync::oneshot;

    /// Rounds of the race (each a few milliseconds).
    const ROUNDS: u64 = 800;
    /// The caller's timeout: its timer fires between one and two milliseconds after the run is
    /// submitted (tokio's timer has a millisecond's resolution).
    const TIMEOUT: Duration = Duration::from_millis(1);
    /// The thread frees this long after the run is submitted, plus up to `SPREAD`: from before
    /// the earliest firing of the timer to after the latest.
    const EARLIEST: Duration = Duration::from_micros(700);
    const SPREAD_US: u64 = 1_600;
    /// How long the sync tool runs: a start shortly before the timer fires is seen as a timeout
    /// (the start won the race by less than this).
    const BODY: Duration = Duration::from_micros(200);

    /// Says so when dropped: the work that owns it has run, or was thrown away unrun. Either
    /// way the thread is done with it.
    struct Settled(Option<oneshot::Sender<()>>);

    impl Drop for Settled {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                let _ = tx.send(());
            }
        }
    }

    fn spin_until(at: Instant) {
        while Instant::now() < at {
            std::hint::spin_loop();
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_run_is_started_or_withdrawn_never_both() {
        let threads = ToolThreads::new(1);
        let host = tokio::runtime::Handle::current();
        let ran = Arc::new(AtomicUsize::new(0));
        let (mut busy, mut returned, mut timed_out) = (0u64, 0u64, 0u64);
        // Withdrawn rounds whose thread was already free when the caller had its answer: the
        // thread went for the run while the caller withdrew it (a photo finish).
        let mut photo_finish = 0u64;
        // A fixed xorshift: the same moments on every run.
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        for round in 0..ROUNDS {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let offset = EARLIEST + Duration::from_micros(seed % SPREAD_US);
            // The only tool thread, held by a run that frees it at the moment the test sends.
            let (held_tx, held_rx) = oneshot::channel::<()>();
            let (free_tx, free_rx) = mpsc::channel::<Instant>();
            let holder: Work<()> = Work::Sync(Box::new(move || {
                let _ = held_tx.send(());
                if let Ok(at) = free_rx.recv() {
                    spin_until(at);
                }
            }));
            // The run under test counts its body; its guard says when the thread is done with
            // it (run, or thrown away unrun).
            let (settled_tx, settled_rx) = oneshot::channel();
            let settled = Settled(Some(settled_tx));
            let counter = Arc::clone(&ran);
            let sync = round % 2 == 0;
            let work: Work<()> = if sync {
                Work::Sync(Box::new(move || {
                    let _settled = settled;
                    counter.fetch_add(1, Ordering::SeqCst);
                    spin_until(Instant::now() + BODY);
                }))
            } else {
                Work::Async(Box::pin(async move {
                    let _settled = settled;
                    counter.fetch_add(1, Ordering::SeqCst);
                }))
            };
            let before = ran.load(Ordering::SeqCst);
            let race = async {
                // The holder has the thread (an event, not a delay); it frees it `offset` from
                // now, while the run below waits for it within its timeout.
                held_rx.await.expect("the holder runs");
                let free_at = Instant::now() + offset;
                free_tx.send(free_at).unwrap();
                let answer = threads.run(host.clone(), work, Some(TIMEOUT)).await;
                (answer, free_at, Instant::now())
            };
            let (held, (answer, free_at, answered_at)) =
                tokio::join!(threads.run(host.clone(), holder, None), race);
            assert!(held.is_ok(), "round {round}: the holder gave no result");
            // The thread has run the work or dropped it: only now is the count final.
            tokio::time::timeout(Duration::from_secs(30), settled_rx)
                .await
                .expect("the thread settles the run within 30 s")
                .expect("the run's guard is dropped, never leaked");
            let runs = ran.load(Ordering::SeqCst) - before;
            match answer {
                Err(Unrun::Busy { .. }) => {
                    assert_eq!(runs, 0, "round {round}: answered Busy, yet the tool ran");
                    busy += 1;
                    if free_at <= answered_at {
                        photo_finish += 1;
                    }
                }
                Ok(()) => {
                    assert_eq!(runs, 1, "round {round}: answered, yet the tool did not run");
                    returned += 1;
                }
                // Started as the timer fired. A sync tool runs to its end; an async one may be
                // cancelled before its first poll: "timeout" never claims it did not run.
                Err(Unrun::Timeout { .. }) => {
                    if sync {
                        assert_eq!(runs, 1, "round {round}: a started sync tool did not run");
                    }
                    timed_out += 1;
                }
                Err(Unrun::Panic(p)) => panic!("round {round}: the tool panicked: {p}"),
                Err(Unrun::Unavailable(e)) => panic!("round {round}: no tool thread: {e}"),
            }
        }
        println!(
            "{ROUNDS} rounds: {busy} withdrawn (Busy, did not run; {photo_finish} of them with the \
             thread already free when the answer came), {returned} ran and answered, \
             {timed_out} started within {BODY:?} before the timer fired (timeout, ran)"
        );
        // The draw crossed the race: both sides won in some rounds.
        assert!(busy > 0, "no round was withdrawn: the draw missed the race");
        assert!(
            returned + timed_out > 0,
            "no round started: the draw missed the race"
        );
        assert_eq!(threads.held(), 0);
    }
}
