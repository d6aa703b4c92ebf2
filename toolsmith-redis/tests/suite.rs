//! toolsmith-redis's integration tests, a module per file: they are compiled into the workspace's
//! one integration-test binary (`tests/it`, package toolsmith-tests), which includes this file, so
//! the Redis client and the runtime are linked once for every crate's tests (TESTING.md, "Test
//! binaries").

pub(crate) mod common;

mod auth;
mod conformance;
mod connect;
mod foreign;
mod outage;
