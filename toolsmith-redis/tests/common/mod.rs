//! Helpers of toolsmith-redis's tests: the server under test (`TOOLSMITH_REDIS_URL`, set by
//! `.ci/services.sh`), a redis-server of a test's own on a free port, and raw access to both.
//!
//! A test whose server is absent says SKIP (at once, and in the summary at the end of
//! `cargo test --workspace`) and passes, unless `TOOLSMITH_REQUIRE_SERVICES=1` (CI), where it
//! fails saying what is missing.

#![allow(dead_code)] // each test file uses its own part

pub const URL_ENV: &str = "TOOLSMITH_REDIS_URL";

// The skip records of the test binary that includes these tests (tests/it).
use crate::skip;

/// The URL of the Redis under test, or `None` (after a SKIP) when it is not set.
pub fn redis_url() -> Option<String> {
    match std::env::var(URL_ENV) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            skip::skip(
                skip::Need::Service,
                "the Redis under test",
                &format!("{URL_ENV} is not set"),
            );
            None
        }
    }
}

/// A prefix no other test (or run) uses.
pub fn unique_prefix(test: &str) -> String {
    format!("toolsmith-test:{test}:{}:", toolsmith_core::new_reference())
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
