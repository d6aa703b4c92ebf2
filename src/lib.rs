//! # toolsmith
//!
//! Declarative tool definitions for LLM agents. Put `#[tool]` on an ordinary Rust function and
//! get, from that one function, the spec a model reads, the executor a host runs, compile-time
//! checks of the text the model reads, and exports to every agent platform.
//!
//! # Getting started
//!
//! ```toml
//! [dependencies]
//! toolsmith = { version = "0.1", features = ["mcp"] }   # `mcp` only to serve over MCP
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! ```
//!
//! Calls are async: run them on a tokio runtime (`#[tokio::main]`). serde, serde_json and
//! schemars come re-exported (`toolsmith::serde_json::json!`); the generated code needs no
//! dependency on them of your own.
//!
//! ```
//! use toolsmith::{tool, Toolbox, Status};
//!
//! /// Adds two whole numbers. Returns their sum.
//! #[tool(read_only)]
//! fn add_numbers(
//!     /// The first number, e.g. 2.
//!     a: i64,
//!     /// The second number, e.g. 40.
//!     #[arg(minimum = 0)]
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! # tokio_test_block_on(async {
//! let toolbox = Toolbox::builder().tool(add_numbers::tool()).build().unwrap();
//! let env = toolbox.call("add_numbers", r#"{"a": 2, "b": 40}"#).await;
//! assert_eq!(env.status, Status::Ok);
//! assert_eq!(env.data, Some(toolsmith::serde_json::json!(42)));
//! # });
//! # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
//! # }
//! ```
//!
//! The attributes' reference is on their own pages: [`tool`] (every key of `#[tool(...)]` and
//! `#[arg(...)]`, what the signature becomes, side effects, example calls, approval, deprecation,
//! the compile-time checks), [`tools`] (methods of an impl block) and [`model`] (parameter and
//! result types). Calling and the envelope: [`guide::calling`]; the execution boundary:
//! [`guide::boundary`]; exports and artifacts: [`export`]; serving over MCP: `mcp` (feature
//! `mcp`); the person's form: `ui` (feature `ui`); the lint rules: `toolsmith_lint::reference`.
//!
//! # The surface
//!
//! Everything is reached through `toolsmith::`, each item at one path. The root holds what a tool
//! author and a host write every day:
//!
//! - the macros [`tool`], [`tools`] and [`model`];
//! - defining tools: [`Tool`], [`ToolSpec`], [`Effects`], [`ToolError`], [`Reply`], [`Context`],
//!   [`Client`], [`Question`], [`Answer`], [`Progress`], [`Namespace`], [`Deprecation`];
//! - building a toolbox: [`Toolbox`], [`ToolboxBuilder`], [`BuildError`], [`Problem`],
//!   [`NotRegistered`];
//! - calling: [`Arguments`], [`CallOptions`], [`Envelope`], [`Status`];
//! - the boundary: [`Policy`], [`Caller`], [`Effect`], [`Denial`], [`DenialReason`],
//!   [`Approval`], [`ApprovalRequest`], [`Approver`], [`Hooks`], [`Redactor`], [`RedactError`],
//!   [`SecretKey`], [`KeyError`].
//!
//! The rest is in modules named for what they hold: [`approval`] (ready-made approvers, the
//! hooks' types), [`audit`] (records and sinks), [`budget`] (output budgets, pages, record
//! stores), [`client`] (what a tool asks of its client, progress sinks), [`codes`] (the stable
//! error codes), [`content`] (images, audio, resources), [`export`] (targets, artifacts, the
//! snapshot check), [`fault`] (failures of the host's own parts), [`idempotency`], [`lint`],
//! [`pipeline`] (host stages), [`spec`] (the spec's smaller parts), [`state`] (state shared by
//! replicas, and [`state::task`]: calls that outlive their request) and [`validate`]; with features also `mcp` (with `mcp-oauth`,
//! `mcp::oauth`: OAuth access tokens on the HTTP server), `workspace`, `sqlite`, `postgres`,
//! `redis` and `ui`. The feature `full-json-schema` validates what the compiled checks leave out
//! of a hand-written schema ([`validate`] says which keywords). The dependencies whose derives the generated code uses are re-exported as
//! `serde`, `serde_json`, `schemars` and `regex`.

#![deny(unreachable_pub, missing_docs)]
// docs.rs (which sets `docsrs`) marks each feature-gated item with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
// The root: what a user writes every day, each named (no glob), each at this one path.
pub use toolsmith_core::{
    Answer, Approval, ApprovalRequest, Approver, Arguments, BuildError, CallOptions, Caller,
    Client, Context, Denial, DenialReason, Deprecation, Effect, Effects, Envelope, Hooks, KeyError,
    Namespace, NotRegistered, Policy, Problem, Progress, Question, RedactError, Redactor, Reply,
    SecretKey, Status, Tool, ToolError, ToolSpec, Toolbox, ToolboxBuilder,
};

// toolsmith-core's namespaces, each re-exported by name.
#[doc(inline)]
pub use toolsmith_core::{
    audit, budget, codes, content, idempotency, lint, pipeline, state, validate,
};

/// Approving consequential calls: the ready-made approvers and the types of the before/after
/// hooks. The overview is on [`Approver`]; the approval stage's place in a call
/// is in [`guide::boundary`].
pub mod approval {
    #[doc(inline)]
    pub use toolsmith_core::{
        approve_all, escape_for_display, fn_approver, reject_all, sync_approver, AfterHook,
        ApprovalBasis, ApprovalFuture, ApproveAll, BeforeHook, CallInfo, FnApprover, RejectAll,
    };
}

/// What a running tool asks of the client that called it (log messages, a completion from the
/// client's model, a question to the user) and where its progress reports go. The overviews are
/// on [`Client`] and [`Progress`].
pub mod client {
    #[doc(inline)]
    pub use toolsmith_core::{
        with_client, with_progress, ClientChannel, ClientError, ClientFuture, LogLevel, LogMessage,
        ProgressReport, ProgressSink, QuestionError, Root, SampleRequest, SampleResult,
        UnknownLogLevel,
    };
}

/// Faults of the host's own parts during a call: an audit sink, a record store or a state store
/// that fails, an approver that panics. The call still answers with an envelope; the fault is
/// counted ([`Toolbox::faults`]) and passed to the callback set with
/// [`ToolboxBuilder::on_fault`]. The overview is on [`Fault`](fault::Fault).
pub mod fault {
    #[doc(inline)]
    pub use toolsmith_core::{BackendError, Fault, FaultCounts, FaultHandler, FaultKind};
}

/// The smaller parts of a [`ToolSpec`]: a lint exception it carries ([`Allow`](spec::Allow))
/// and its icons ([`Icon`](spec::Icon), [`IconTheme`](spec::IconTheme)).
pub mod spec {
    #[doc(inline)]
    pub use toolsmith_core::{Allow, Icon, IconTheme, TaskSupport};
}

#[doc = include_str!("docs/export.md")]
pub mod export {
    #[doc(inline)]
    pub use toolsmith_core::export::{
        check_namespaces, check_snapshot, default_artifact_dir, export, export_text,
        export_text_with, export_tool, export_tool_text, export_with, mcp, mcp_call_parts,
        mcp_call_result, name_rejected_by, tool_result, update_requested, write_artifacts,
        write_artifacts_with, ArtifactError, ArtifactReport, ExportError, ExportErrorKind,
        ExportOptions, McpCallParts, McpVersion, NameRule, SnapshotDrift, Target, ToolSearch,
        ENVELOPE_META_KEY, UPDATE_ENV,
    };
}

#[doc = include_str!("docs/mcp.md")]
#[cfg(feature = "mcp")]
pub mod mcp {
    /// The HTTP endpoint as an OAuth 2.1 resource server (feature `mcp-oauth`).
    #[cfg(feature = "mcp-oauth")]
    #[doc(inline)]
    pub use toolsmith_mcp::oauth;
    /// rmcp, the MCP SDK the server stands on, at the version it uses: name its `ServerHandler`
    /// (for [`McpServer::with_handler`]) through this path and no second copy of rmcp can
    /// disagree with the server's.
    pub use toolsmith_mcp::rmcp;
    #[doc(inline)]
    pub use toolsmith_mcp::CacheScope;
    #[doc(inline)]
    pub use toolsmith_mcp::{
        HttpCallerFn, HttpServer, McpServer, ServeError, DEFAULT_CLIENT_TIMEOUT,
        MAX_REQUEST_BODY_BYTES, MCP_PATH, SHUTDOWN_GRACE,
    };
}
// The README's Rust, compiled and run as a doctest, so the front page stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The guides: the longer texts of the manual, each a page whose examples compile. The
/// attributes' reference is on [`tool`], [`tools`] and [`model`]; serving over MCP on `mcp`
/// (feature `mcp`), exports on [`export`], the person's form on `ui` (feature `ui`).
pub mod guide {
    #[doc = include_str!("docs/guide/calling.md")]
    pub mod calling {}
    #[doc = include_str!("docs/guide/boundary.md")]
    pub mod boundary {}
}
#[doc = include_str!("docs/model.md")]
pub use toolsmith_macros::model;
#[doc = include_str!("docs/tool.md")]
pub use toolsmith_macros::tool;
#[doc = include_str!("docs/tools.md")]
pub use toolsmith_macros::tools;
/// A directory tools may read, search and write, its boundary enforced by the operating system
/// (feature `workspace`; the `toolsmith-workspace` crate).
#[cfg(feature = "workspace")]
pub mod workspace {
    #[doc(inline)]
    pub use toolsmith_workspace::{
        Entry, EntryKind, Match, SearchLimits, TextFile, Workspace, WorkspaceError, Written,
        MAX_NAME_BYTES, MAX_PATH_BYTES, MAX_SEARCH_DEPTH,
    };
}
/// The durable record store on SQLite (feature `sqlite`; the `toolsmith-sqlite` crate): kept results
/// and idempotency records survive a restart. It is a state store too: the processes of one
/// machine that open the same file share idempotency claims, outcomes and kept results (for
/// replicas on several machines use `redis` or `postgres`).
#[cfg(feature = "sqlite")]
pub mod sqlite {
    #[doc(inline)]
    pub use toolsmith_sqlite::{
        OpenError, SqliteRecordStore, DEFAULT_BUSY_TIMEOUT, DEFAULT_SQLITE_CAPACITY,
    };
}
/// Shared state on PostgreSQL (feature `postgres`; the `toolsmith-postgres` crate): idempotency
/// claims with leases, their outcomes and kept results, shared by the replicas of a service.
#[cfg(feature = "postgres")]
pub mod postgres {
    #[doc(inline)]
    pub use toolsmith_postgres::{
        ConnectError, PostgresOptions, PostgresStateStore, DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_STATEMENT_TIMEOUT, DEFAULT_TABLE_PREFIX,
    };
}

/// The shared state on Redis or Valkey (feature `redis`; the `toolsmith-redis` crate): idempotency
/// claims, outcomes and kept results shared by every replica.
#[cfg(feature = "redis")]
pub mod redis {
    #[doc(inline)]
    pub use toolsmith_redis::{ConnectError, RedisOptions, RedisStateStore, DEFAULT_PREFIX};
}

#[doc = include_str!("docs/ui.md")]
#[cfg(feature = "ui")]
pub mod ui {
    #[doc(inline)]
    pub use toolsmith_spec::ui::{
        app, app_tool, app_uri, form, form_arguments, form_with, page, Form, FormOptions, Gap,
        Refusal, RequestGuard, APP_EXTENSION, APP_MIME_TYPE, APP_SCRIPT, SCRIPT,
    };
}

/// The regex version toolsmith uses (for host redaction patterns, `Redactor::with_pattern`).
pub use toolsmith_core::__deps::regex;
/// The schemars version toolsmith uses (for `#[schemars(crate = "toolsmith::schemars")]`).
pub use toolsmith_core::__deps::schemars;
/// The serde version toolsmith uses (for `#[serde(crate = "toolsmith::serde")]`).
pub use toolsmith_core::__deps::serde;
/// The serde_json version toolsmith uses.
pub use toolsmith_core::__deps::serde_json;

/// Items the generated code refers to. Not public API.
#[doc(hidden)]
pub use toolsmith_core::__private;
