//! A server that goes away mid-use: each step fails with a `BackendError` that says what
//! happened to it, and service comes back once the server does; a step the server is too slow
//! to answer says its outcome is unknown. Runs a redis-server of its own on a free port.

mod common;

use std::time::{Duration, Instant};
use tool_core::state::{ClaimRequest, ClaimState, StateStore};
use tool_redis::{RedisOptions, RedisStateStore};

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
    let reference = tool_core::new_reference();
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
    // it the caller's (a claim is retried with its token after an unknown outcome).
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(
        store.claim("slow", request("t1")).await.unwrap(),
        ClaimState::Claimed
    );
    match store.claim("slow", request("t2")).await.unwrap() {
        ClaimState::Running { operation_id, .. } => assert_eq!(operation_id, "op_1"),
        other => panic!("the late claim holds the key, got {other:?}"),
    }
}
