//! `SqliteRecordStore` as a `StateStore`: the conformance suite through two connections to one
//! file (as two processes hold them), rows that are not the store's, a file locked past the busy
//! timeout, and the record store beside the state in one file.

use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use toolsmith_core::state::{ClaimRequest, ClaimState, StateStore};
use toolsmith_core::{new_reference, BackendError, RecordStore};
use toolsmith_sqlite::SqliteRecordStore;

/// A fresh directory for one test's file, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "tool-sqlite-{name}-{}-{}",
            std::process::id(),
            &new_reference()[4..12]
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self) -> PathBuf {
        self.0.join("state.db")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn request(token: &str) -> ClaimRequest<'_> {
    ClaimRequest {
        token,
        operation_id: "op_1",
        request: None,
        lease: Duration::from_secs(60),
        window: Duration::from_secs(60),
        started: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_connections_on_one_file_pass_the_conformance_suite() {
    let dir = TempDir::new("conformance");
    let a = SqliteRecordStore::open(dir.file()).unwrap();
    let b = SqliteRecordStore::open(dir.file()).unwrap();
    toolsmith_core::state::conformance::check(&a, &b).await;
    // Twice: the suite's keys are its own, the data of the first run stays in the file.
    toolsmith_core::state::conformance::check(&b, &a).await;
}

#[tokio::test]
async fn one_connection_passes_the_conformance_suite_on_a_current_thread_runtime() {
    let dir = TempDir::new("conformance-one");
    let store = SqliteRecordStore::open(dir.file()).unwrap();
    toolsmith_core::state::conformance::check(&store, &store).await;
}

/// Claims from threads of their own, each with its own connection and runtime, as processes
/// make them: one is granted.
#[test]
fn claims_from_separate_connections_and_runtimes_have_one_winner() {
    let dir = TempDir::new("race");
    let path = dir.file();
    let barrier = Arc::new(std::sync::Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let (path, barrier) = (path.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                let store = SqliteRecordStore::open(&path).unwrap();
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                let token = format!("t{i}");
                barrier.wait();
                runtime
                    .block_on(store.claim("race", request(&token)))
                    .unwrap()
            })
        })
        .collect();
    let answers: Vec<ClaimState> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let winners = answers
        .iter()
        .filter(|a| **a == ClaimState::Claimed)
        .count();
    assert_eq!(winners, 1, "{answers:?}");
}

/// The methods answer outside a tokio runtime too (they then run inline).
#[test]
fn the_state_methods_work_outside_a_runtime() {
    let dir = TempDir::new("no-runtime");
    let store = SqliteRecordStore::open(dir.file()).unwrap();
    let answer = block_on(store.claim("k", request("t1"))).unwrap();
    assert_eq!(answer, ClaimState::Claimed);
    let reference = new_reference();
    block_on(store.keep(&reference, &json!([1, 2]), Duration::from_secs(60))).unwrap();
    assert_eq!(
        block_on(store.read(&reference)).unwrap(),
        Some(json!([1, 2]))
    );
}

/// Polls a future that never waits (the inline path answers at once).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(out) => out,
        std::task::Poll::Pending => panic!("outside a runtime the store answers inline"),
    }
}

fn assert_foreign<T: std::fmt::Debug>(answer: Result<T, BackendError>, key: &str, what: &str) {
    match answer {
        Err(e) => {
            assert!(
                e.message().contains("is not a toolsmith record"),
                "{what}: {e}"
            );
            assert!(e.message().contains(key), "{what} must name {key}: {e}");
            assert!(
                e.message().contains("state.db"),
                "{what} must name the file: {e}"
            );
        }
        Ok(v) => panic!("{what}: a foreign row under {key} must be an error, got {v:?}"),
    }
}

#[tokio::test]
async fn rows_the_store_did_not_write_are_errors_not_results() {
    let dir = TempDir::new("foreign");
    let store = SqliteRecordStore::open(dir.file()).unwrap();
    let raw = rusqlite::Connection::open(dir.file()).unwrap();
    let far = i64::MAX / 2;
    let claims = [
        ("no_json", Some("t9"), "not json"),
        ("other_json", None, r#"{"kind": "something else"}"#),
        ("number", None, "42"),
    ];
    for (key, token, outcome) in claims {
        raw.execute(
            "INSERT INTO state_claims \
             (key, token, operation_id, request, started, outcome, expires_at_ms) \
             VALUES (?1, ?2, 'op_x', NULL, 0, ?3, ?4)",
            rusqlite::params![key, token, outcome, far],
        )
        .unwrap();
        assert_foreign(store.claim(key, request("t1")).await, key, key);
    }
    // Neither a lease nor an outcome, live or lapsed.
    for (key, expires) in [("empty_live", far), ("empty_lapsed", 1)] {
        raw.execute(
            "INSERT INTO state_claims \
             (key, token, operation_id, request, started, outcome, expires_at_ms) \
             VALUES (?1, NULL, 'op_x', NULL, 1, NULL, ?2)",
            rusqlite::params![key, expires],
        )
        .unwrap();
        assert_foreign(store.claim(key, request("t1")).await, key, key);
    }
    // A kept value that is not JSON.
    let reference = new_reference();
    raw.execute(
        "INSERT INTO state_kept (reference, value, expires_at_ms) VALUES (?1, 'not json', ?2)",
        rusqlite::params![reference, far],
    )
    .unwrap();
    assert_foreign(store.read(&reference).await, &reference, "kept value");
    // Records that are not JSON, or whose version is below 1: neither loaded nor replaced.
    for (key, version, value) in [("record_text", 1, "not json"), ("record_v0", 0, "{}")] {
        raw.execute(
            "INSERT INTO state_records (key, version, value, expires_at_ms) \
             VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![key, version, value, far],
        )
        .unwrap();
        assert_foreign(store.load_record(key).await, key, key);
    }
    for expected in [0, 1] {
        let swapped = store
            .swap_record("record_v0", expected, &json!(1), Duration::from_secs(60))
            .await;
        assert_foreign(swapped, "record_v0", "swap over a version below 1");
    }
    // The rows are left alone.
    let left: i64 = raw
        .query_row("SELECT count(*) FROM state_claims", [], |r| r.get(0))
        .unwrap();
    assert_eq!(left, 5);
    let value: String = raw
        .query_row(
            "SELECT value FROM state_records WHERE key = 'record_v0'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(value, "{}");
}

#[tokio::test]
async fn a_file_locked_past_the_busy_timeout_is_an_error_naming_it() {
    let dir = TempDir::new("busy");
    let store = SqliteRecordStore::open(dir.file())
        .unwrap()
        .with_busy_timeout(Duration::from_millis(100));
    let mut other = rusqlite::Connection::open(dir.file()).unwrap();
    let lock = other
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    let err = store.claim("k", request("t1")).await.unwrap_err();
    assert!(err.message().contains("state.db"), "{err}");
    assert!(err.message().contains("locked"), "{err}");
    let reference = new_reference();
    let err = store
        .keep(&reference, &json!(1), Duration::from_secs(60))
        .await
        .unwrap_err();
    assert!(err.message().contains("busy timeout of 100 ms"), "{err}");
    // Reads are not blocked by a writer (write-ahead log).
    assert_eq!(store.read(&reference).await.unwrap(), None);
    lock.rollback().unwrap();
    assert_eq!(
        store.claim("k", request("t1")).await.unwrap(),
        ClaimState::Claimed
    );
}

/// Another connection holds the write lock; a claim made while it does waits (within the busy
/// timeout) and goes on once the lock is released. The holder says when it has the lock (an
/// event); the test then holds it for `HOLD` with the claim under way (the wait is what it tests)
/// and sees the claim still pending before it lets the holder commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_that_waits_within_the_busy_timeout_goes_on() {
    const HOLD: Duration = Duration::from_millis(300);
    let dir = TempDir::new("wait");
    let store = SqliteRecordStore::open(dir.file()).unwrap();
    let path = dir.file();
    let (locked_tx, locked_rx) = tokio::sync::oneshot::channel();
    let (commit_tx, commit_rx) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        let mut other = rusqlite::Connection::open(path).unwrap();
        let lock = other
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .unwrap();
        locked_tx.send(()).unwrap();
        // Until the test says so (at most 30 s, should the test fail first).
        let _ = commit_rx.recv_timeout(Duration::from_secs(30));
        lock.commit().unwrap();
    });
    tokio::time::timeout(Duration::from_secs(30), locked_rx)
        .await
        .expect("the holder takes the write lock")
        .unwrap();
    let mut claim = store.claim("k", request("t1"));
    tokio::select! {
        early = &mut claim => panic!("the claim ended while the file was locked: {early:?}"),
        () = tokio::time::sleep(HOLD) => {}
    }
    commit_tx.send(()).unwrap();
    assert_eq!(claim.await.unwrap(), ClaimState::Claimed);
    holder.join().unwrap();
}

#[tokio::test]
async fn the_record_store_and_the_state_share_a_file_apart() {
    let dir = TempDir::new("both");
    let store = SqliteRecordStore::open(dir.file())
        .unwrap()
        .with_capacity(1);
    let kept = new_reference();
    store
        .keep(&kept, &json!({"b": 1, "a": 2}), Duration::from_secs(60))
        .await
        .unwrap();
    let first = store.put(json!(1));
    let second = store.put(json!(2));
    // The record store's capacity does not reach the kept values, nor its references them.
    assert_eq!(store.get(&first), None);
    assert_eq!(store.get(&second), Some(json!(2)));
    assert_eq!(store.get(&kept), None);
    let reopened = SqliteRecordStore::open(dir.file()).unwrap();
    let value = reopened.read(&kept).await.unwrap().unwrap();
    // Key order is kept.
    assert_eq!(value.to_string(), r#"{"b":1,"a":2}"#);
    assert_eq!(reopened.read(&second).await.unwrap(), None);
}
