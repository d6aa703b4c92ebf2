//! Helpers toolsmith-core's integration tests share (`crate::common` in `tests/it`), also included
//! by the facade's (`tests/common/mod.rs`). Each uses only some of them.
#![allow(dead_code)]

use serde_json::Value;
use toolsmith_core::{Effects, Tool, ToolSpec};

/// A hand-written spec (no output schema, no allows, no timeout, version 1.0.0); tests change
/// the fields they need with the `with_*` setters.
pub fn spec(name: &str, description: &str, input_schema: Value, effects: Effects) -> ToolSpec {
    ToolSpec::new(name, description, input_schema)
        .with_effects(effects)
        .with_version("1.0.0")
}

/// The effects of a tool that only reads.
pub fn read_only() -> Effects {
    Effects::none().with_read_only(true)
}

/// A tool that answers with its arguments.
pub fn echo_tool(spec: ToolSpec) -> Tool {
    Tool::from_fn(spec, |_, args| Box::pin(async move { Ok(args) }))
}

/// A current-thread runtime with time and I/O enabled, for tests that are not `async`.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Makes `subscriber` this thread's default (the tests that capture spans or events use this, not
/// `tracing::subscriber::with_default`) for the guard's life (what a test here captures),
/// after installing [`Inert`] as the process's global default once.
///
/// Why the global default: `tracing` caches each callsite's interest process-wide, the first time
/// any thread reaches it, and while a single dispatcher is registered it asks only the default of
/// the thread that reaches it (tokio-rs/tracing#3611). Other modules of a test binary make
/// calls at the same time on threads without a subscriber; one of them reaching `execute_tool`
/// first while a capturing test holds its subscriber cached `never`, and the test captured no span
/// (seen under load). With `Inert` as the global default, every thread without a subscriber of
/// its own answers `sometimes`, so no callsite is ever cached as `never` and each span and event
/// asks the subscriber of the thread it runs on: a capture sees exactly what it saw when its
/// test file was a binary of its own.
pub fn capture_with(
    subscriber: impl tracing::Subscriber + Send + Sync + 'static,
) -> tracing::subscriber::DefaultGuard {
    static INERT: std::sync::Once = std::sync::Once::new();
    INERT.call_once(|| {
        tracing::subscriber::set_global_default(Inert)
            .expect("nothing else in the test binary sets a global subscriber");
    });
    tracing::subscriber::set_default(subscriber)
}

/// A subscriber that enables nothing but is interested in every callsite `sometimes`: each span
/// and event asks the subscriber of its thread whether it is enabled.
struct Inert;

impl tracing::Subscriber for Inert {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::sometimes()
    }
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        false
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}
