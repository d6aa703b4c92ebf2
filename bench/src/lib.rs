//! Benchmark fixtures for toolsmith: the tools measured, the same tools declared with rmcp
//! (feature `rmcp`), the serde "floor" each call is compared with, generated spec lists for the
//! lint and export benches, and the information check behind the context-cost comparison.
//!
//! Everything timed lives in `benches/` (criterion, feature `bench`); the context-cost report is
//! the `context-cost` binary; compile times are measured by `scripts/bench.sh compile`.
//! `scripts/bench.sh` runs all of them and rewrites the tables in `BENCHMARKS.md`.
#![deny(unreachable_pub)]
#![warn(missing_docs)]

pub mod facts;
pub mod generate;
pub mod helpdesk;
pub mod store;

#[cfg(feature = "rmcp")]
pub mod rmcp_tools;

use toolsmith::{Toolbox, ToolboxBuilder};

/// The whole number at `args[index]` of a profiling binary's command line (`default` when it is
/// absent). Exits with status 2 and a message naming `what` when it is not a whole number.
pub fn count_arg(args: &[String], index: usize, default: usize, what: &str) -> usize {
    match args.get(index).map(|n| n.parse()) {
        None => default,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("the number of {what} must be a whole number ({e})");
            std::process::exit(2);
        }
    }
}

/// The toolbox with the store-like tools (`search_products`, `compare_products`, `add_to_cart`).
///
/// Panics if the toolbox cannot be built: the fixtures are fixed, so that is a bug in this crate.
pub fn store_toolbox() -> Toolbox {
    store_builder()
        .build()
        .unwrap_or_else(|e| panic!("the store fixture toolbox does not build: {e}"))
}

/// The builder of [`store_toolbox`], for a bench that changes a setting.
pub fn store_builder() -> ToolboxBuilder {
    Toolbox::builder()
        .tool(store::search_products::tool())
        .tool(store::compare_products::tool())
        .tool(store::add_to_cart::tool())
}

/// The toolbox with the helpdesk-like tools (`search_articles`, `create_ticket`,
/// `get_ticket_status`).
///
/// Panics if the toolbox cannot be built: the fixtures are fixed, so that is a bug in this crate.
pub fn helpdesk_toolbox() -> Toolbox {
    Toolbox::builder()
        .tool(helpdesk::search_articles::tool())
        .tool(helpdesk::create_ticket::tool())
        .tool(helpdesk::get_ticket_status::tool())
        .build()
        .unwrap_or_else(|e| panic!("the helpdesk fixture toolbox does not build: {e}"))
}

/// Runs a future that completes without waiting (every fixture tool does) on a
/// current-thread tokio runtime; the benches put every path, the floor included, through it so
/// they pay the same executor cost.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("cannot start a current-thread tokio runtime: {e}"))
}
