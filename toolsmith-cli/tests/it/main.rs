//! The integration tests of the `toolsmith` command, one module per former `tests/*.rs` file.
//!
//! One test binary instead of one per file: each binary links the whole dependency graph (rmcp,
//! reqwest, tokio, ...), so three binaries linked it three times; this one links it once (the
//! layout clap uses).
//! The `fetch` tests stand apart (tests/fetch.rs): their binary is the MCP server they fetch
//! from, speaking on its standard output, so it has its own main.

mod cli;
mod lint_golden;
mod registry;
