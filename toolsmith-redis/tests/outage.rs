//! A server that goes away mid-use: each step fails with a `BackendError` that says what
//! happened to it, and service comes back once the server does; a step the server is too slow
//! to answer says its outcome is unknown. Runs a redis-server of its own on a free port.

use super::common;

use std::time::{Duration, Instant};
use toolsmith_core::state::{ClaimRequest, ClaimState, StateStore};
use toolsmith_redis::{RedisOptions, RedisStateStore};

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

fn options() -> RedisOptions {
    RedisOptions::new()
        .with_connect_timeout(Duration::from_millis(500))
        .with_response_timeout(Duration::from_millis(300))
        .with_reconnect_retries(1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_goes_away_gives_errors_and_service_comes_back() {
    let Some(mut server) = common::OwnServer::start() else {
        return;
    };
    let url = server.url();
    let store = RedisStateStore::connect_with(&url, options())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        store.claim("before", request("t1")).await.unwrap(),
        ClaimState::Claimed
    );

    server.kill();
    for (i, key) in ["down-1", "down-2"].into_iter().enumerate() {
        let started = Instant::now();
        let err = store.claim(key, request("t1")).await.unwrap_err();
        let took = started.elapsed();
        let message = err.message();
        assert!(
            took < Duration::from_secs(5),
            "step {i} took {took:?}: {message}"
        );
        assert!(message.contains(&format!("Redis at {url}")), "{message}");
        assert!(
            message.contains("dropped") || message.contains("refused"),
            "step {i}: {message}"
        );
    }
    assert!(store
        .read("rec_00000000000000000000000000000000")
        .await
        .is_err());

    // Back (empty: no persistence); the store reconnects and reloads its scripts by itself.
    server.restart();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut last = None;
    while Instant::now() < deadline {
        match store.claim("after", request("t2")).await {
            Ok(state) => {
                assert_eq!(state, ClaimState::Claimed);
                last = None;
                break;
            }
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        last.is_none(),
        "service did not come back within 10 s: {last:?}"
    );
    let value = serde_json::json!({"back": true});
    let reference = toolsmith_core::new_reference();
    store
        .keep(&reference, &value, Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(store.read(&reference).await.unwrap(), Some(value));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_the_server_does_not_answer_in_time_is_of_unknown_outcome() {
    let Some(server) = common::OwnServer::start() else {
        return;
    };
    let url = server.url();
    let store = RedisStateStore::connect_with(&url, options())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // Hold every client's commands for 1 s on the server.
    let mut raw = common::raw(&url).await;
    let _: () = redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(1000)
        .query_async(&mut raw)
        .await
        .unwrap();
    let started = Instant::now();
    let err = store.claim("slow", request("t1")).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_millis(900), "{err}");
    assert!(
        err.message()
            .contains("did not answer the claim of `slow` within 300ms")
            && err
                .message()
                .contains("the outcome of this step is unknown"),
        "{err}"
    );
    // The pause ends and the claim applies after all: claiming again with the same token finds
    // it the caller's (a claim is retried with its token after an unknown outcome). Wait until
    // Redis holds the late claim's lease (asked on a connection of the test's own; no claim is
    // made meanwhile).
    let lease_key = format!("{}claim:{{slow}}:lease", toolsmith_redis::DEFAULT_PREFIX);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let held: Result<Option<String>, _> = redis::cmd("GET")
            .arg(&lease_key)
            .query_async(&mut raw)
            .await;
        if let Ok(Some(lease)) = held {
            let lease: serde_json::Value = serde_json::from_str(&lease).unwrap();
            assert_eq!(lease["token"], "t1", "{lease}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the late claim never landed: {held:?}"
        );
        if held.is_err() {
            raw = common::raw(&url).await;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        store.claim("slow", request("t1")).await.unwrap(),
        ClaimState::Claimed
    );
    match store.claim("slow", request("t2")).await.unwrap() {
        ClaimState::Running { operation_id, .. } => assert_eq!(operation_id, "op_1"),
        other => panic!("the late claim holds the key, got {other:?}"),
    }
}

/// A claim that the server applies only after the store stopped waiting for it: the keyed
/// write answers `temporary_failure` (`IDEMPOTENCY_UNAVAILABLE`: nothing ran), and the claim
/// that lands late is withdrawn with its token, so the retry after the stall runs the write
/// once. Before, the late claim (written started, as a write's claim is) held the key:
/// `IN_PROGRESS`, then `OUTCOME_UNKNOWN` for the whole window, with zero runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_answered_too_late_is_withdrawn_and_the_retry_runs() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use toolsmith_core::{codes, Effects, Status, Tool, ToolSpec, Toolbox};

    let Some(server) = common::OwnServer::start() else {
        return;
    };
    let url = server.url();
    let store = RedisStateStore::connect_with(
        &url,
        RedisOptions::new()
            .with_connect_timeout(Duration::from_millis(500))
            .with_response_timeout(Duration::from_millis(400)),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&runs);
    let spec = ToolSpec::new(
        "append_note",
        "Appends a note to the order. Returns the note.",
        serde_json::json!({"type": "object", "properties": {"note": {"type": "string"}},
                           "required": ["note"], "additionalProperties": false}),
    )
    .with_effects(Effects::none().with_writes(true));
    let tool = Tool::from_fn(spec, move |_, args| {
        let counted = Arc::clone(&counted);
        Box::pin(async move {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(args)
        })
    })
    .with_idempotency_key(["note"]);
    let toolbox = Toolbox::builder()
        .tool(tool)
        .state_store(Arc::new(store))
        .claim_lease(Duration::from_secs(1))
        .build()
        .unwrap();
    let args = serde_json::json!({"note": "ship on Monday"});

    // Redis holds every other client's commands for 1.5 s: the claim is sent during the stall.
    let mut raw = common::raw(&url).await;
    let _: () = redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(1500)
        .query_async(&mut raw)
        .await
        .unwrap();
    let env = toolbox.call("append_note", args.clone()).await;
    assert_eq!(env.status, Status::TemporaryFailure, "{env:?}");
    assert_eq!(env.code.as_deref(), Some(codes::IDEMPOTENCY_UNAVAILABLE));
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    // The stall ends (a fresh connection's PING answers again), then the retry runs, once.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let mut probe = common::raw(&url).await;
        let pong: Result<String, _> = redis::cmd("PING").query_async(&mut probe).await;
        if pong.is_ok() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "Redis never answered again"
        );
    }
    let env = toolbox.call("append_note", args.clone()).await;
    assert_eq!(env.status, Status::Ok, "{env:?}");
    let again = toolbox.call("append_note", args).await;
    assert_eq!(again.code.as_deref(), Some(codes::DUPLICATE), "{again:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}
