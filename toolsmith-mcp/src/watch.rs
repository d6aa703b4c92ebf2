//! The watchers of tool-list changes: each session's `notifications/tools/list_changed` (2025
//! revisions: one task per session; 2026-07-28: each `subscriptions/listen` stream), and the
//! retirement of deprecated tools that makes such a change.

use rmcp::RoleServer;
use std::sync::{Arc, Mutex};
use toolsmith_core::Toolbox;

/// The sessions' `list_changed` watchers (2025 revisions: one task per session, started on
/// `notifications/initialized`), with each session's peer.
///
/// A watcher learns that its session ended only when sending to it fails, that is on the next
/// change of the tool list, and a server whose list never changes would keep one task per
/// session it ever served. So every new session first aborts the watchers of sessions whose
/// transport has closed: the list holds the live sessions and those that ended since the last
/// one started.
#[derive(Default)]
pub(crate) struct Watchers(Mutex<Vec<(rmcp::Peer<RoleServer>, tokio::task::AbortHandle)>>);

impl Watchers {
    /// Adds a session's watcher, after aborting those of the sessions that ended.
    pub(crate) fn add(&self, peer: rmcp::Peer<RoleServer>, watcher: tokio::task::AbortHandle) {
        let mut list = self.lock();
        list.retain(|(peer, watcher)| {
            let live = !peer.is_transport_closed() && !watcher.is_finished();
            if !live {
                watcher.abort();
            }
            live
        });
        list.push((peer, watcher));
    }

    pub(crate) fn abort_all(&self) {
        for (_, watcher) in self.lock().drain(..) {
            watcher.abort();
        }
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, Vec<(rmcp::Peer<RoleServer>, tokio::task::AbortHandle)>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The tool-list generation each session saw when its change stream was acknowledged, kept
/// until the stream's watcher starts.
///
/// rmcp acknowledges `subscriptions/listen` (and answers `initialize`) before it runs the code
/// that watches for changes, and the client may register a tool in between: a watcher that
/// subscribed only when it started would never report that change. So the generation is noted
/// at the acknowledgment, and a watcher that starts on a newer one reports a change at once.
/// Sessions share the list (they share the server); a watcher takes the oldest generation noted,
/// which at worst sends one list_changed too many, never one too few.
#[derive(Clone, Default)]
pub(crate) struct WatchStarts(Arc<Mutex<Vec<u64>>>);

impl WatchStarts {
    /// At most this many acknowledgments wait for their watcher (a session that never starts
    /// one must not grow the list).
    const MAX_PENDING: usize = 64;

    /// Notes the generation a session is acknowledged at.
    fn acknowledged(&self, generation: u64) {
        let mut pending = self.pending();
        if pending.len() >= Self::MAX_PENDING {
            // Dropping the newest keeps every remaining watcher at or before its own start.
            if let Some(newest) = (0..pending.len()).max_by_key(|&i| pending[i]) {
                pending.swap_remove(newest);
            }
        }
        pending.push(generation);
    }

    /// Whether the list changed between the oldest acknowledgment still waiting and `now`, the
    /// generation a starting watcher subscribed at.
    fn changed_since_acknowledged(&self, now: u64) -> bool {
        let mut pending = self.pending();
        match (0..pending.len()).min_by_key(|&i| pending[i]) {
            Some(oldest) => pending.swap_remove(oldest) != now,
            None => false,
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Notes the generation a change stream of `toolbox` is acknowledged at (see [`WatchStarts`]).
    pub(crate) fn acknowledge_watch(&self, toolbox: &Toolbox) {
        // The watch channel's own count, which the watchers compare against (`start_watch`).
        self.acknowledged(*toolbox.watch_changes().borrow());
    }

    /// Subscribes a session's watcher to `toolbox`'s tool-list changes, and says whether the
    /// list changed since the stream was acknowledged (a change the watcher must report at once).
    pub(crate) fn start_watch(
        &self,
        toolbox: &Toolbox,
    ) -> (tokio::sync::watch::Receiver<u64>, bool) {
        let mut changes = toolbox.watch_changes();
        let now = *changes.borrow_and_update();
        (changes, self.changed_since_acknowledged(now))
    }
}

/// Waits until the toolbox's next deprecated tool is due to retire, then lets the toolbox retire
/// it (which announces the change to the watchers); never ends when none is to retire, or once
/// the toolbox is gone. Waits at most an hour at a time, so a clock set anew is read again.
pub(crate) async fn next_retirement(toolbox: &std::sync::Weak<Toolbox>) {
    let wait = toolbox.upgrade().and_then(|t| t.next_retirement_in());
    let Some(wait) = wait else {
        return std::future::pending().await;
    };
    let (least, most) = (
        std::time::Duration::from_millis(10),
        std::time::Duration::from_secs(3600),
    );
    tokio::time::sleep(wait.clamp(least, most)).await;
    if let Some(toolbox) = toolbox.upgrade() {
        toolbox.generation();
    }
}

#[cfg(test)]
mod tests {
    use super::WatchStarts;
    use crate::McpServer;
    use std::time::Duration;

    /// Waits (bounded) until `done` holds.
    async fn eventually(what: &str, done: impl Fn() -> bool) {
        for _ in 0..500 {
            if done() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("{what}: not within 5 s");
    }

    #[tokio::test]
    async fn the_watchers_of_ended_sessions_are_aborted_when_a_new_session_starts() {
        let server = McpServer::new(toolsmith_core::Toolbox::builder().build().unwrap());
        let mut ended = Vec::new();
        for _ in 0..3 {
            let (server_end, client_end) = tokio::io::duplex(1 << 16);
            let serving = tokio::spawn(server.clone().serve(server_end));
            let client = rmcp::serve_client((), client_end).await.unwrap();
            let watchers = &server.inner.watchers;
            // Its watcher is listed, and those of the sessions that ended before it are gone.
            eventually("the session's watcher starts", || {
                let list = watchers.lock();
                list.len() == 1 && !list[0].0.is_transport_closed()
            })
            .await;
            let handle = watchers.lock()[0].1.clone();
            client.cancel().await.unwrap();
            tokio::time::timeout(Duration::from_secs(5), serving)
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            // The list never changed, so the ended session's watcher is still waiting.
            assert!(!handle.is_finished());
            ended.push(handle);
        }
        let (server_end, client_end) = tokio::io::duplex(1 << 16);
        let _serving = tokio::spawn(server.clone().serve(server_end));
        let _client = rmcp::serve_client((), client_end).await.unwrap();
        eventually("every ended session's watcher ends", || {
            ended.iter().all(tokio::task::AbortHandle::is_finished)
        })
        .await;
        assert_eq!(server.inner.watchers.lock().len(), 1);
    }

    #[test]
    fn a_watcher_reports_a_change_made_between_its_acknowledgment_and_its_start() {
        let starts = WatchStarts::default();
        starts.acknowledged(3);
        assert!(starts.changed_since_acknowledged(4));
        starts.acknowledged(4);
        assert!(!starts.changed_since_acknowledged(4));
        // Nothing acknowledged: nothing to report.
        assert!(!starts.changed_since_acknowledged(9));
    }

    #[test]
    fn watchers_take_the_oldest_acknowledgment_and_the_list_stays_bounded() {
        let starts = WatchStarts::default();
        starts.acknowledged(7);
        starts.acknowledged(5);
        // The oldest (5) goes first: the watcher started at 7 reports a change.
        assert!(starts.changed_since_acknowledged(7));
        assert!(!starts.changed_since_acknowledged(7));
        for g in 0..(WatchStarts::MAX_PENDING as u64 + 10) {
            starts.acknowledged(g);
        }
        let pending = starts.0.lock().unwrap().clone();
        assert_eq!(pending.len(), WatchStarts::MAX_PENDING);
        // The newest were dropped, never the oldest.
        assert!(pending.contains(&0));
    }
}
