//! Serve a [`Toolbox`] over the Model Context Protocol, with rmcp (the official Rust SDK) as
//! the protocol stack: the `toolsmith-mcp` crate (the facade's feature `mcp`, as
//! `toolsmith::mcp`).
//!
//! [`McpServer`] implements rmcp's `ServerHandler` for a toolbox; [`McpServer::serve_stdio`]
//! and [`McpServer::bind_http`] run it over rmcp's stdio and streamable-HTTP transports.
//!
//! - `tools/list` is [`Toolbox::export`] for the protocol version the client negotiated
//!   (2025-06-18, 2025-11-25 or 2026-07-28), in registration order.
//! - `tools/call` runs the whole toolbox pipeline; the envelope becomes the result with
//!   [`export::mcp_call_result`](toolsmith_core::export::mcp_call_result). An unknown or retired tool is
//!   the JSON-RPC error `-32602` (invalid params) in every version; arguments that fail the
//!   schema are that error too in 2025-06-18, and a result with `isError` from 2025-11-25 on,
//!   which made input errors tool results.
//! - `notifications/tools/list_changed` goes to every connected client (and, on 2026-07-28, to
//!   every `subscriptions/listen` stream that asked for it) after [`Toolbox::register`] or
//!   [`Toolbox::deregister`].
//! - 2026-07-28 extras: a tool's `icons` (also in 2025-11-25) and its parameters'
//!   `x-mcp-header` annotations are listed; over streamable HTTP rmcp's transport refuses a
//!   `tools/call` whose `Mcp-Param-*` header is missing or differs from the argument (HTTP 400,
//!   `-32020`), through [`McpServer`]'s `get_tool`; `tools/list` carries the cache hints of
//!   [`McpServer::list_cache`] (default `ttlMs: 0`, `cacheScope: "private"`).
//! - `notifications/cancelled` drops the call's future; rmcp sends nothing for that request
//!   afterwards, and the server serves the next request as usual.
//! - Kept results: a result with a `ref` (cut to the output budget, or a keyed write's) carries
//!   a `resource_link` block after its text, naming the full result by
//!   [`Toolbox::result_resource`]'s URI (`toolsmith://result/<ref>?tool=<tool>&tag=<tag>`);
//!   `resources/read` of it answers the result as `application/json`
//!   ([`Toolbox::read_result`]) to the caller it was made for, and refuses it to any other
//!   (`-32602`). One the store has dropped is resource-not-found (`-32002`, which rmcp sends
//!   as `-32602` to 2026-07-28 clients). The server declares `resources`, and lists no kept
//!   result and no template: they are per caller and short-lived, and a client cannot build
//!   their URIs.
//! - The end of a stream session ([`McpServer::serve`], [`McpServer::serve_stdio`]): the
//!   server returns soon after its input closes; `subscriptions/listen` streams end at once,
//!   and calls still running are answered first.
//! - Progress: a tool that takes `#[context] progress: &Progress` reports through it; when the
//!   client sent a progress token the reports become `notifications/progress`, otherwise they
//!   are no-ops.
//! - The client: a tool that takes `#[context] client: &Client` reaches the client of its call.
//!   Log messages are `notifications/message` (the server declares `logging`), at or above the
//!   level the session set with `logging/setLevel` (every message before it sets one; in
//!   2026-07-28, which has no `logging/setLevel`, only for a call whose `_meta` names a level).
//!   Sampling (`sampling/createMessage`) and questions (`elicitation/create`, form mode) go to a
//!   client that declared the capability, in the 2025 revisions (2026-07-28 has no
//!   server-to-client requests); otherwise `sample` is unsupported and `ask` answers
//!   `needs_input`. Requests travel with their call (on its response stream over HTTP), from the
//!   toolbox's tool threads too.
//! - `needs_input` becomes a question: when a tool answers `needs_input` whose `missing` fields
//!   are all plain parameters of the tool (ones a form can show) and the client declared
//!   elicitation, the server asks the user for them and runs the call again, through the whole
//!   pipeline, with the answers merged into its arguments (once per call). A decline is
//!   `cancelled_by_user`; a client that cannot ask gets the `needs_input` as it was. In
//!   2026-07-28 the question is an `input_required` result whose sealed `requestState` the
//!   client sends back with the answer ([`McpServer::request_state_key`]; `input_required.rs`).
//! - Caller identity: [`McpServer::caller`] names the one caller of a stdio session (and the
//!   default over HTTP); [`McpServer::caller_from_http`] maps each HTTP request (its headers and
//!   extensions, `http::request::Parts`) to a [`Caller`]. Without either, every call is
//!   anonymous: the policy sees no identity, roles or scopes.
//! - The rest of a server (prompts, resources, resource templates, subscriptions, completions)
//!   is an rmcp `ServerHandler` given to [`McpServer::with_handler`]; the server forwards those
//!   requests to it and declares its capabilities for them.
//!
//! ```no_run
//! # async fn run(toolbox: toolsmith_core::Toolbox) -> Result<(), toolsmith_mcp::ServeError> {
//! use toolsmith_mcp::McpServer;
//! // stdio: the process is the server of one client.
//! McpServer::new(toolbox).serve_stdio().await?;
//! # Ok(()) }
//! # async fn run_http(toolbox: toolsmith_core::Toolbox) -> Result<(), toolsmith_mcp::ServeError> {
//! # use toolsmith_mcp::McpServer;
//! // Streamable HTTP at http://127.0.0.1:8080/mcp, until the process ends.
//! McpServer::new(toolbox).bind_http("127.0.0.1:8080").await?.wait().await?;
//! # Ok(()) }
//! ```
//!
//! [`Toolbox`]: toolsmith_core::Toolbox
//! [`Toolbox::export`]: toolsmith_core::Toolbox::export
//! [`Toolbox::register`]: toolsmith_core::Toolbox::register
//! [`Toolbox::deregister`]: toolsmith_core::Toolbox::deregister
//! [`Toolbox::result_resource`]: toolsmith_core::Toolbox::result_resource
//! [`Toolbox::read_result`]: toolsmith_core::Toolbox::read_result
//! [`Caller`]: toolsmith_core::Caller

#![deny(unreachable_pub)]
#![deny(missing_docs)]

mod apps;
mod cache;
mod call;
mod catalog;
mod client;
mod compose;
mod delegate;
mod errors;
mod handler;
mod http;
mod input_required;
#[cfg(feature = "oauth")]
pub mod oauth;
mod server;
mod session;
mod tasks;
mod version;
mod watch;

/// rmcp, the MCP SDK the server stands on, at the version it uses: name its `ServerHandler` (for
/// [`McpServer::with_handler`]) and its model types through this path, and no second copy of rmcp
/// can disagree with the server's.
pub use rmcp;

pub use self::cache::CacheScope;
pub use self::errors::ServeError;
pub use self::http::{HttpServer, MAX_REQUEST_BODY_BYTES, MCP_PATH, SHUTDOWN_GRACE};
pub use self::server::{HttpCallerFn, McpServer, DEFAULT_CLIENT_TIMEOUT};
