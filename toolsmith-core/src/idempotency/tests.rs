//! The idempotency gate on its own: exactly-once under concurrency, windows, failures and
//! cancellation (the toolbox's side is in `tests/it/runtime_idempotency.rs`).

use super::{Gate, IdempotencyGate, IdempotencyKey, Refusal};
use crate::{Envelope, Status, ToolError};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

fn key(title: &str) -> IdempotencyKey {
    IdempotencyKey::from_args(
        "create_ticket",
        &json!({"title": title, "n": 1}),
        &["title"],
    )
}

fn ok_with_ref(r: &str) -> Envelope {
    let mut env = Envelope::ok(json!({"id": 1}));
    env.reference = Some(r.to_string());
    env
}

/// On one thread, every task is provably waiting at the gate before the first one finishes.
#[tokio::test]
async fn a_thousand_identical_calls_waiting_at_once_run_once() {
    let gate = IdempotencyGate::new(Duration::from_secs(600));
    let runs = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(Notify::new());
    let tasks: Vec<_> = (0..1000)
        .map(|i| {
            let (gate, runs, release) = (gate.clone(), runs.clone(), release.clone());
            tokio::spawn(async move {
                gate.run(key("printer"), &format!("op_{i}"), || async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    release.notified().await;
                    ok_with_ref("rec_1")
                })
                .await
            })
        })
        .collect();
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(
        tasks.iter().all(|t| !t.is_finished()),
        "all 1000 are inside the gate"
    );
    release.notify_one();
    let mut ran = 0;
    let mut dups = 0;
    for t in tasks {
        match t.await.expect("task") {
            Gate::Ran(_) => ran += 1,
            Gate::Duplicate(d) => {
                assert_eq!(d.original_operation_id, "op_0");
                dups += 1;
            }
            Gate::Refused(r) => panic!("a waiter was refused: {r:?}"),
        }
    }
    assert_eq!((runs.load(Ordering::SeqCst), ran, dups), (1, 1, 999));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_identical_calls_run_once() {
    let gate = IdempotencyGate::new(Duration::from_secs(600));
    let runs = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(Notify::new());
    let mut tasks = Vec::new();
    for i in 0..1000 {
        let (gate, runs, release) = (gate.clone(), runs.clone(), release.clone());
        tasks.push(tokio::spawn(async move {
            gate.run(key("printer"), &format!("op_{i}"), || async move {
                runs.fetch_add(1, Ordering::SeqCst);
                // Hold the operation open until every task has been spawned, so the others
                // really arrive while it runs.
                release.notified().await;
                ok_with_ref("rec_1")
            })
            .await
        }));
    }
    // Wake the runner (notify_one stores a permit if it is not waiting yet).
    release.notify_one();
    let mut ran = Vec::new();
    let mut dups = Vec::new();
    for t in tasks {
        match t.await.expect("task") {
            Gate::Ran(env) => ran.push(env),
            Gate::Duplicate(d) => dups.push(d),
            Gate::Refused(r) => panic!("a waiter was refused: {r:?}"),
        }
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1, "executed exactly once");
    assert_eq!(ran.len(), 1);
    assert_eq!(dups.len(), 999);
    let original = &dups[0].original_operation_id;
    assert!(dups.iter().all(|d| &d.original_operation_id == original));
    assert!(dups.iter().all(|d| d.reference.as_deref() == Some("rec_1")));
}

#[tokio::test]
async fn different_keys_run_independently() {
    let gate = IdempotencyGate::new(Duration::from_secs(600));
    let runs = AtomicUsize::new(0);
    for title in ["a", "b", "c"] {
        let out = gate
            .run(key(title), title, || async {
                runs.fetch_add(1, Ordering::SeqCst);
                Envelope::ok(json!(title))
            })
            .await;
        assert!(matches!(out, Gate::Ran(_)));
    }
    // The same arguments under another tool name are another key.
    let other = IdempotencyKey::from_args("close_ticket", &json!({"title": "a"}), &["title"]);
    assert!(matches!(
        gate.run(other, "x", || async { Envelope::ok(json!(1)) })
            .await,
        Gate::Ran(_)
    ));
    // Arguments outside the identifying ones do not change the key.
    let same =
        IdempotencyKey::from_args("create_ticket", &json!({"title": "a", "n": 2}), &["title"]);
    assert!(matches!(
        gate.run(same, "y", || async { Envelope::ok(json!(1)) })
            .await,
        Gate::Duplicate(_)
    ));
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    assert_eq!(gate.len(), 4);
}

#[tokio::test(start_paused = true)]
async fn repeats_are_duplicates_until_the_window_expires() {
    let gate = IdempotencyGate::new(Duration::from_secs(60));
    let runs = AtomicUsize::new(0);
    let call = |op: &'static str| {
        let gate = gate.clone();
        let runs = &runs;
        async move {
            gate.run(key("p"), op, || async {
                runs.fetch_add(1, Ordering::SeqCst);
                Envelope::ok(json!(1))
            })
            .await
        }
    };
    assert!(matches!(call("op_1").await, Gate::Ran(_)));
    tokio::time::advance(Duration::from_secs(59)).await;
    match call("op_2").await {
        Gate::Duplicate(d) => assert_eq!(d.original_operation_id, "op_1"),
        Gate::Ran(_) => panic!("ran again within the window"),
        Gate::Refused(r) => panic!("refused: {r:?}"),
    }
    tokio::time::advance(Duration::from_secs(2)).await;
    assert!(
        matches!(call("op_3").await, Gate::Ran(_)),
        "runs again after the window"
    );
    match call("op_4").await {
        Gate::Duplicate(d) => assert_eq!(d.original_operation_id, "op_3"),
        Gate::Ran(_) => panic!("the new run starts a new window"),
        Gate::Refused(r) => panic!("refused: {r:?}"),
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_failed_run_does_not_block_the_next_request() {
    let gate = IdempotencyGate::new(Duration::from_secs(600));
    let first = gate
        .run(key("x"), "op_1", || async {
            Envelope::from(ToolError::temporary(5, "LOCKED", "The queue is locked."))
        })
        .await;
    assert!(matches!(first, Gate::Ran(ref e) if e.status == Status::TemporaryFailure));
    let second = gate
        .run(key("x"), "op_2", || async { Envelope::ok(json!(2)) })
        .await;
    assert!(matches!(second, Gate::Ran(ref e) if e.is_success()));
    // Result outcomes work too.
    let r: Gate<Result<u8, String>> = gate
        .run(key("y"), "op_3", || async { Err("boom".to_string()) })
        .await;
    assert!(matches!(r, Gate::Ran(Err(_))));
    let r: Gate<Result<u8, String>> = gate.run(key("y"), "op_4", || async { Ok(1) }).await;
    assert!(matches!(r, Gate::Ran(Ok(1))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiters_retry_when_the_running_request_fails() {
    let gate = IdempotencyGate::new(Duration::from_secs(600));
    let runs = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(Notify::new());
    let first = {
        let (gate, runs, release) = (gate.clone(), runs.clone(), release.clone());
        tokio::spawn(async move {
            gate.run(key("z"), "op_1", || async move {
                runs.fetch_add(1, Ordering::SeqCst);
                release.notified().await;
                Envelope::error(Status::Failed, "BROKEN", "broken")
            })
            .await
        })
    };
    // Wait until the first request is running.
    while runs.load(Ordering::SeqCst) == 0 {
        tokio::task::yield_now().await;
    }
    let second = {
        let (gate, runs) = (gate.clone(), runs.clone());
        tokio::spawn(async move {
            gate.run(key("z"), "op_2", || async move {
                runs.fetch_add(1, Ordering::SeqCst);
                Envelope::ok(json!("second"))
            })
            .await
        })
    };
    release.notify_one();
    assert!(matches!(first.await.unwrap(), Gate::Ran(ref e) if e.status == Status::Failed));
    assert!(matches!(second.await.unwrap(), Gate::Ran(ref e) if e.is_success()));
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_run_releases_its_key() {
    let gate = IdempotencyGate::new(Duration::from_secs(600));
    let slow = gate.run(key("c"), "op_1", || async {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Envelope::ok(json!(1))
    });
    // The toolbox's timeout drops the running future.
    let timed_out = tokio::time::timeout(Duration::from_secs(1), slow).await;
    assert!(timed_out.is_err());
    let next = gate
        .run(key("c"), "op_2", || async { Envelope::ok(json!(2)) })
        .await;
    assert!(matches!(next, Gate::Ran(_)), "the key was released");
}

#[tokio::test]
async fn duplicates_become_refused_envelopes_naming_the_original() {
    let gate = IdempotencyGate::new(Duration::from_secs(600));
    let _ = gate
        .run(IdempotencyKey::explicit("pay", "k-1"), "op_9", || async {
            ok_with_ref("rec_7")
        })
        .await;
    let Gate::Duplicate(dup) = gate
        .run(IdempotencyKey::explicit("pay", "k-1"), "op_10", || async {
            Envelope::ok(json!(0))
        })
        .await
    else {
        panic!("expected a duplicate");
    };
    let env = dup.into_envelope("pay", &gate);
    assert_eq!(env.status, Status::Refused);
    assert_eq!(env.code.as_deref(), Some("DUPLICATE"));
    assert_eq!(env.reference.as_deref(), Some("rec_7"));
    let msg = env.message.unwrap();
    assert!(
        msg.contains("operation op_9") && msg.contains("rec_7") && msg.contains("10 minutes"),
        "{msg}"
    );
    assert_eq!(env.data.unwrap()["original_operation_id"], "op_9");
    // An explicit key is not confused with argument digests.
    assert!(matches!(
        gate.run(IdempotencyKey::explicit("pay", "k-2"), "op_11", || async {
            Envelope::ok(json!(0))
        })
        .await,
        Gate::Ran(_)
    ));
    gate.clear();
    assert!(gate.is_empty());
}

#[tokio::test]
async fn keys_are_scoped_to_the_caller_and_explicit_keys_to_their_arguments() {
    let gate = IdempotencyGate::new(Duration::from_secs(600));
    let ann = || key("printer").for_caller(Some("ann"));
    let bob = || key("printer").for_caller(Some("bob"));
    let _ = gate
        .run(ann(), "op_1", || async { ok_with_ref("rec_1") })
        .await;
    assert!(matches!(
        gate.run(bob(), "op_2", || async { ok_with_ref("rec_2") })
            .await,
        Gate::Ran(_)
    ));
    assert!(matches!(
        gate.run(ann(), "op_3", || async { ok_with_ref("rec_3") })
            .await,
        Gate::Duplicate(_)
    ));

    let explicit = |args: serde_json::Value| {
        IdempotencyKey::explicit("pay", "k-1")
            .for_caller(Some("ann"))
            .with_request(&args)
    };
    let _ = gate
        .run(explicit(json!({"amount": 10})), "op_4", || async {
            ok_with_ref("rec_4")
        })
        .await;
    let reused = gate
        .run(explicit(json!({"amount": 9000})), "op_5", || async {
            ok_with_ref("rec_5")
        })
        .await;
    let Gate::Refused(refusal) = reused else {
        panic!("a reused key with other arguments must be refused");
    };
    assert_eq!(refusal, Refusal::KeyReused);
    let env = refusal.into_envelope("pay", &gate);
    assert_eq!(env.status, Status::InvalidInput);
    assert_eq!(env.code.as_deref(), Some("IDEMPOTENCY_KEY_REUSED"));
    assert!(matches!(
        gate.run(explicit(json!({"amount": 10})), "op_6", || async {
            ok_with_ref("rec_6")
        })
        .await,
        Gate::Duplicate(_)
    ));
}

#[tokio::test(start_paused = true)]
async fn a_started_run_that_is_dropped_leaves_its_outcome_unknown() {
    let gate = IdempotencyGate::new(Duration::from_secs(600)).refusing_in_progress();
    let slow = gate.run_tracked(key("t"), "op_1", |started| async move {
        started.mark();
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Envelope::ok(json!(1))
    });
    assert!(tokio::time::timeout(Duration::from_secs(1), slow)
        .await
        .is_err());
    let next = gate
        .run(key("t"), "op_2", || async { Envelope::ok(json!(2)) })
        .await;
    let Gate::Refused(Refusal::OutcomeUnknown {
        original_operation_id,
    }) = next
    else {
        panic!("the outcome of a dropped started run is unknown: {next:?}");
    };
    assert_eq!(original_operation_id, "op_1");
    // After the window the key is free again.
    tokio::time::advance(Duration::from_secs(601)).await;
    assert!(matches!(
        gate.run(key("t"), "op_3", || async { Envelope::ok(json!(3)) })
            .await,
        Gate::Ran(_)
    ));
}

#[tokio::test]
async fn a_gate_refusing_in_progress_answers_repeats_at_once() {
    let gate = IdempotencyGate::new(Duration::from_secs(600)).refusing_in_progress();
    let release = Arc::new(Notify::new());
    let first = {
        let (gate, release) = (gate.clone(), release.clone());
        tokio::spawn(async move {
            gate.run(key("r"), "op_1", || async move {
                release.notified().await;
                Envelope::error(Status::Failed, "BROKEN", "broken")
            })
            .await
        })
    };
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    let repeat = gate
        .run(key("r"), "op_2", || async { Envelope::ok(json!(2)) })
        .await;
    let Gate::Refused(refusal) = repeat else {
        panic!("a repeat while running is refused: {repeat:?}");
    };
    assert_eq!(
        refusal,
        Refusal::InProgress {
            original_operation_id: "op_1".into()
        }
    );
    let env = refusal.into_envelope("r", &gate);
    assert_eq!(env.code.as_deref(), Some("IN_PROGRESS"));
    assert_eq!(env.retry_after, Some(1));
    release.notify_one();
    assert!(matches!(first.await.unwrap(), Gate::Ran(_)));
}
