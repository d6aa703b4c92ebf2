//! A server that wants a password: the wrong one is a `ConnectError` that does not repeat it,
//! the right one connects. Runs a redis-server of its own on a free port.

use super::common;

use std::time::Duration;
use toolsmith_core::state::{ClaimRequest, ClaimState, StateStore};
use toolsmith_redis::{RedisOptions, RedisStateStore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_are_checked_at_connect_and_never_shown() {
    let Some(server) = common::OwnServer::start_with(&["--requirepass", "right-pw-42"]) else {
        return;
    };
    let port = server.port();
    let options = RedisOptions::new().with_reconnect_retries(0);
    let wrong = format!("redis://:wrong-pw-17@127.0.0.1:{port}/");
    let err = RedisStateStore::connect_with(&wrong, options.clone())
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(
        !message.contains("wrong-pw-17") && !message.contains("right-pw-42"),
        "{message}"
    );
    assert!(
        message.contains(&format!("redis://:***@127.0.0.1:{port}/"))
            && message.contains("refused the credentials"),
        "{message}"
    );
    let none = RedisStateStore::connect_with(&server.url(), options.clone())
        .await
        .unwrap_err();
    assert!(
        none.to_string().contains("NOAUTH") || none.to_string().contains("credentials"),
        "{none}"
    );

    let right = format!("redis://:right-pw-42@127.0.0.1:{port}/");
    let store = RedisStateStore::connect_with(&right, options)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!format!("{store:?}").contains("right-pw-42"));
    let req = ClaimRequest {
        token: "t1",
        operation_id: "op_1",
        request: None,
        lease: Duration::from_secs(10),
        window: Duration::from_secs(10),
        started: false,
    };
    assert_eq!(store.claim("k", req).await.unwrap(), ClaimState::Claimed);
}
