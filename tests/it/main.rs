//! The integration tests of the facade, its examples and the MCP server, as one binary: each test
//! binary links the whole dependency graph (rmcp, reqwest, hyper, the database drivers), so one
//! binary with a module per former test file links it once (as clap builds its tests). What must
//! run in a process of its own is a `[[test]]` of its own in `tests/Cargo.toml`, which says why.

// Shared by many modules, compiled once.
#[path = "../common/mod.rs"]
mod common;
#[path = "../mcp/fixture.rs"]
#[allow(dead_code)]
mod fixture;
#[path = "../../toolsmith-core/tests/consumers/require.rs"]
mod require;
use require::skip;

/// The workspace's root folder, from which the tests name the files they read (this package lives
/// in its `tests/` folder).
fn workspace() -> std::path::PathBuf {
    require::workspace_root(env!("CARGO_MANIFEST_DIR"))
}

// The examples' tools, which the examples' binaries run and these tests drive.
#[path = "../../examples/helpdesk/tools.rs"]
#[allow(dead_code)]
mod helpdesk_tools;
#[path = "../../examples/store/tools.rs"]
#[allow(dead_code)]
mod store_tools;
#[path = "../../examples/workspace/tools.rs"]
#[allow(dead_code)]
mod workspace_tools;

// The backends' own integration tests, kept beside their crates and compiled here.
#[path = "../../toolsmith-postgres/tests/postgres.rs"]
mod postgres_store;
#[path = "../../toolsmith-redis/tests/suite.rs"]
mod redis_store;
#[path = "../../toolsmith-sqlite/tests/state.rs"]
mod sqlite_store;

mod adk_loop;
mod approval_when;
mod boundary;
mod call_json;
mod ci_consumers;
mod conformance_suite;
mod content;
mod deprecation;
mod differential;
mod envelope;
mod eval_bfcl;
mod eval_report_page;
mod eval_run;
mod example_helpdesk;
mod example_store;
mod example_store_page;
mod example_workspace;
mod facade_only;
mod fast_path;
mod faults;
mod isolation;
mod lint_profile;
mod mcp_apps;
mod mcp_client;
mod mcp_compose;
mod mcp_deprecation;
mod mcp_fields;
mod mcp_interop;
mod mcp_oauth;
mod mcp_result;
mod mcp_server;
mod mcp_tasks;
mod readme;
mod release;
mod replicas_http;
mod rig_loop;
mod schemas;
mod secrets;
mod security;
mod tool_examples;
mod tool_specs;
mod toolbox;
mod ui_forms;
mod validation;
mod workspace_attacks;
