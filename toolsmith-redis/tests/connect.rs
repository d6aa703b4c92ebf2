//! Connecting: a URL that does not parse, a port nothing listens on and a server that never
//! answers each fail within the timeouts with a one-line `ConnectError` that names the URL
//! without its password. No Redis needed.

use super::common;

use std::net::TcpListener;
use std::time::{Duration, Instant};
use toolsmith_redis::{RedisOptions, RedisStateStore};

const SECRET: &str = "s3cret-pw";

fn assert_one_line_without_secret(message: &str) {
    assert!(!message.contains(SECRET), "the password leaked: {message}");
    assert!(!message.contains('\n'), "one line: {message}");
}

#[tokio::test]
async fn a_url_that_does_not_parse_is_a_connect_error() {
    for url in [
        format!("redis://:{SECRET}@"),
        format!("http://user:{SECRET}@127.0.0.1:1/"),
        "not a url".to_string(),
        "redis://127.0.0.1:6379/not-a-db".to_string(),
    ] {
        let err = RedisStateStore::connect(&url).await.unwrap_err();
        let message = err.to_string();
        assert_one_line_without_secret(&message);
        assert!(
            message.starts_with("could not connect to Redis at "),
            "{message}"
        );
        assert!(
            message.contains("the URL does not parse"),
            "{url}: {message}"
        );
    }
}

#[tokio::test]
async fn a_closed_port_fails_within_the_timeout() {
    let port = common::free_port();
    let url = format!("redis://app:{SECRET}@127.0.0.1:{port}/");
    let options = RedisOptions::new()
        .with_connect_timeout(Duration::from_millis(500))
        .with_reconnect_retries(1);
    let started = Instant::now();
    let err = RedisStateStore::connect_with(&url, options)
        .await
        .unwrap_err();
    let took = started.elapsed();
    let message = err.to_string();
    assert!(took < Duration::from_secs(3), "took {took:?}: {message}");
    assert_one_line_without_secret(&message);
    assert_eq!(err.url(), format!("redis://app:***@127.0.0.1:{port}/"));
    assert!(
        message.contains(&format!("redis://app:***@127.0.0.1:{port}/"))
            && message.contains("connection refused"),
        "{message}"
    );
}

#[tokio::test]
async fn a_server_that_never_answers_fails_within_the_timeouts() {
    // Accepts connections and never writes a byte, for at most 15 s.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let silent = std::thread::spawn(move || {
        let mut held = Vec::new();
        let until = Instant::now() + Duration::from_secs(15);
        while Instant::now() < until && held.len() < 16 {
            match listener.accept() {
                Ok((stream, _)) => held.push(stream),
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    });
    let url = format!("redis://:{SECRET}@127.0.0.1:{port}/");
    let options = RedisOptions::new()
        .with_connect_timeout(Duration::from_millis(300))
        .with_response_timeout(Duration::from_millis(300))
        .with_reconnect_retries(0);
    let started = Instant::now();
    let err = RedisStateStore::connect_with(&url, options)
        .await
        .unwrap_err();
    let took = started.elapsed();
    let message = err.to_string();
    assert!(took < Duration::from_secs(5), "took {took:?}: {message}");
    assert_one_line_without_secret(&message);
    assert!(message.contains("no answer within 300ms"), "{message}");
    drop(silent); // the thread ends by itself
}
