//! Helpers of tool-redis's tests: the server under test (`TOOLSMITH_REDIS_URL`, set by
//! `.ci/services.sh`), a redis-server of a test's own on a free port, and raw access to both.
//!
//! A test whose server is absent prints `SKIP: ...` and passes, unless
//! `TOOLSMITH_REQUIRE_SERVICES=1` (CI), where it fails saying what is missing.

#![allow(dead_code)] // each test file uses its own part

pub const URL_ENV: &str = "TOOLSMITH_REDIS_URL";
pub const REQUIRE_ENV: &str = "TOOLSMITH_REQUIRE_SERVICES";

fn required() -> bool {
    std::env::var(REQUIRE_ENV).is_ok_and(|v| v == "1")
}

/// The URL of the Redis under test, or `None` (after printing SKIP) when it is not set.
pub fn redis_url() -> Option<String> {
    match std::env::var(URL_ENV) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ if required() => panic!(
            "{URL_ENV} is not set and {REQUIRE_ENV}=1: run the tests under \
             `bash .ci/services.sh cargo test -p tool-redis`, which starts Redis and sets it"
        ),
        _ => {
            println!("SKIP: {URL_ENV} not set");
            None
        }
    }
}

/// A prefix no other test (or run) uses.
pub fn unique_prefix(test: &str) -> String {
    format!("toolsmith-test:{test}:{}:", tool_core::new_reference())
}

/// A raw connection to `url`, for writing what the store would not and reading what it wrote.
pub async fn raw(url: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(url)
        .expect("the test URL parses")
        .get_multiplexed_async_connection()
        .await
        .expect("a raw connection to the test server")
}

#[path = "server.rs"]
mod server;
#[allow(unused_imports)] // each test file uses its own part
pub use server::{free_port, OwnServer};
