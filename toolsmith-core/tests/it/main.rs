//! toolsmith-core's integration tests, one module per subject, in one test binary: each test
//! binary links the whole dependency graph (tokio, jsonschema, regex, proptest, ...) again, so
//! one binary links it once instead of once per file, and `cargo test` starts one process. Run
//! one subject with `cargo test -p toolsmith-core --test it <module>::`.
//!
//! The modules share one process and run in parallel threads: a test here must not set
//! environment variables, install a global tracing subscriber or change the working directory.
//! The one test that sets variables, `tests/export_snapshot_ci.rs`, is a binary of its own (see
//! its `[[test]]` entry in Cargo.toml).
//!
//! The shared helpers are included once here and named `crate::common`, `crate::fixtures`,
//! `crate::require` and `crate::specgen` in the modules. They stay beside this folder, not in
//! it: the facade's tests include `consumers/` and `common/` by path.

#[path = "../common/mod.rs"]
mod common;
#[path = "../consumers/fixtures.rs"]
mod fixtures;
#[path = "../consumers/require.rs"]
mod require;
#[path = "../specgen/mod.rs"]
mod specgen;

mod architecture;
mod concurrency;
mod conformance;
mod conformance_fixes;
mod export_artifacts;
mod export_consumers;
mod export_golden;
mod export_loading;
mod export_lowering;
mod export_mcp_schema;
mod export_text;
mod kept_results;
mod keyword_reach;
mod properties;
mod replicas;
mod runtime_approval;
mod runtime_approval_when;
mod runtime_audit;
mod runtime_client;
mod runtime_idempotency;
mod runtime_policy;
mod runtime_redact;
mod runtime_result_depth;
mod runtime_stage;
mod runtime_tracing;
