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
//!   [`export::mcp_call_result`](tool_core::export::mcp_call_result). An unknown or retired tool is
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
//! # async fn run(toolbox: tool_core::Toolbox) -> Result<(), toolsmith_mcp::ServeError> {
//! use toolsmith_mcp::McpServer;
//! // stdio: the process is the server of one client.
//! McpServer::new(toolbox).serve_stdio().await?;
//! # Ok(()) }
//! # async fn run_http(toolbox: tool_core::Toolbox) -> Result<(), toolsmith_mcp::ServeError> {
//! # use toolsmith_mcp::McpServer;
//! // Streamable HTTP at http://127.0.0.1:8080/mcp, until the process ends.
//! McpServer::new(toolbox).bind_http("127.0.0.1:8080").await?.wait().await?;
//! # Ok(()) }
//! ```

#![deny(unreachable_pub)]
#![deny(missing_docs)]

mod apps;
mod cache;
mod client;
mod compose;
mod http;
mod input_required;

pub use self::cache::CacheScope;
pub use self::http::{HttpServer, MAX_REQUEST_BODY_BYTES, MCP_PATH, SHUTDOWN_GRACE};

use arc_swap::ArcSwap;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, ListToolsResult, MetaObject, PaginatedRequestParams,
    ProgressToken, ProtocolVersion, ResultType, ServerCapabilities, ServerConfig,
    SubscriptionFilter,
};
use rmcp::model::{
    ClientNotification, ClientRequest, Resource, ServerResult, SubscriptionsListenResult,
};
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResponse, SubscribeRequestParams, UnsubscribeRequestParams,
};
#[allow(deprecated)] // logging/setLevel: deprecated in 2026-07-28, in the 2025 revisions
use rmcp::model::{SetLevelRequestMethod, SetLevelRequestParams};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{self, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;
use tool_core::budget::{ResultReadError, ResultResource};
use tool_core::export::{mcp_call_parts, McpVersion, Target};
use tool_core::{codes, CallOptions, Caller, Envelope, Status, ToolSpec, Toolbox};
use tool_core::{with_client, ClientChannel, Question};
use tool_core::{with_progress, ProgressSink};

/// The protocol versions the server speaks: the ones the MCP export knows.
const VERSIONS: [ProtocolVersion; 3] = [
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// Maps one HTTP request to the caller it acts for.
pub type HttpCallerFn = dyn Fn(&::http::request::Parts) -> Caller + Send + Sync;

/// Why serving stopped or could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The address could not be bound or the connection failed.
    #[error("MCP server I/O failed: {0}")]
    Io(#[from] std::io::Error),
    /// The client's session could not be established (for example no `initialize`).
    #[error("the MCP session could not start: {0}")]
    Session(String),
}

/// How long a tool's request to the client waits for its answer unless the host says otherwise
/// ([`McpServer::client_timeout`]).
pub const DEFAULT_CLIENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

struct Inner {
    toolbox: Arc<Toolbox>,
    caller: Caller,
    http_caller: Option<Arc<HttpCallerFn>>,
    info: Implementation,
    catalog: Catalogs,
    starts: WatchStarts,
    watchers: Watchers,
    /// Seals the `requestState` of 2026-07-28 `input_required` results.
    state_key: tool_core::SecretKey,
    /// Prompts, resources and completions ([`McpServer::with_handler`]).
    handler: Option<Arc<dyn compose::Delegate>>,
    /// The 2026-07-28 cache hints of `tools/list` ([`McpServer::list_cache`]).
    list_cache: cache::ListCache,
    /// Whether tools' forms are offered as MCP Apps ([`McpServer::mcp_apps`]).
    apps: bool,
    /// How long a tool's request to the client waits for its answer
    /// ([`McpServer::client_timeout`]).
    client_timeout: std::time::Duration,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The server is gone: its sessions' watchers have nothing left to report for.
        self.watchers.abort_all();
    }
}

/// The sessions' `list_changed` watchers (2025 revisions: one task per session, started on
/// `notifications/initialized`), with each session's peer.
///
/// A watcher learns that its session ended only when sending to it fails, that is on the next
/// change of the tool list, and a server whose list never changes would keep one task per
/// session it ever served. So every new session first aborts the watchers of sessions whose
/// transport has closed: the list holds the live sessions and those that ended since the last
/// one started.
#[derive(Default)]
struct Watchers(Mutex<Vec<(rmcp::Peer<RoleServer>, tokio::task::AbortHandle)>>);

impl Watchers {
    /// Adds a session's watcher, after aborting those of the sessions that ended.
    fn add(&self, peer: rmcp::Peer<RoleServer>, watcher: tokio::task::AbortHandle) {
        let mut list = self.lock();
        list.retain(|(peer, watcher)| {
            let live = !peer.is_transport_closed() && !watcher.is_finished();
            if !live {
                watcher.abort();
            }
            live
        });
        list.push((peer, watcher));
    }

    fn abort_all(&self) {
        for (_, watcher) in self.lock().drain(..) {
            watcher.abort();
        }
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, Vec<(rmcp::Peer<RoleServer>, tokio::task::AbortHandle)>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The tool-list generation each session saw when its change stream was acknowledged, kept
/// until the stream's watcher starts.
///
/// rmcp acknowledges `subscriptions/listen` (and answers `initialize`) before it runs the code
/// that watches for changes, and the client may register a tool in between: a watcher that
/// subscribed only when it started would never report that change. So the generation is noted
/// at the acknowledgment, and a watcher that starts on a newer one reports a change at once.
/// Sessions share the list (they share the server); a watcher takes the oldest generation noted,
/// which at worst sends one list_changed too many, never one too few.
#[derive(Clone, Default)]
struct WatchStarts(Arc<Mutex<Vec<u64>>>);

impl WatchStarts {
    /// At most this many acknowledgments wait for their watcher (a session that never starts
    /// one must not grow the list).
    const MAX_PENDING: usize = 64;

    /// Notes the generation a session is acknowledged at.
    fn acknowledged(&self, generation: u64) {
        let mut pending = self.pending();
        if pending.len() >= Self::MAX_PENDING {
            // Dropping the newest keeps every remaining watcher at or before its own start.
            if let Some(newest) = (0..pending.len()).max_by_key(|&i| pending[i]) {
                pending.swap_remove(newest);
            }
        }
        pending.push(generation);
    }

    /// Whether the list changed between the oldest acknowledgment still waiting and `now`, the
    /// generation a starting watcher subscribed at.
    fn changed_since_acknowledged(&self, now: u64) -> bool {
        let mut pending = self.pending();
        match (0..pending.len()).min_by_key(|&i| pending[i]) {
            Some(oldest) => pending.swap_remove(oldest) != now,
            None => false,
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What the server derives from the tool list, rebuilt only when the list changes (every
/// register or deregister ticks [`Toolbox::generation`]).
struct Catalog {
    generation: u64,
    specs: HashMap<String, ToolSpec>,
    /// The `tools/list` result per version, lowered on first use, and whether its tools link
    /// their MCP App (for clients that announced the extension, [`apps`]).
    lists: Mutex<HashMap<(McpVersion, bool), Arc<ListToolsResult>>>,
}

/// The current [`Catalog`], shared by every session of one server.
///
/// Every call reads it, so it is held in an `ArcSwap` and the generation is an atomic load: a
/// lock or a reference count would be written on every call, on a line every thread shares.
#[derive(Clone)]
struct Catalogs {
    current: Arc<ArcSwap<Catalog>>,
}

impl Catalogs {
    fn new(toolbox: &Toolbox) -> Self {
        Catalogs {
            current: Arc::new(ArcSwap::from_pointee(Catalog::of(toolbox))),
        }
    }

    /// The catalog of the toolbox's current tools, rebuilt when they have changed.
    fn get(&self, toolbox: &Toolbox) -> arc_swap::Guard<Arc<Catalog>> {
        let cached = self.current.load();
        if cached.generation == toolbox.generation() {
            return cached;
        }
        drop(cached);
        // Sessions that see the change at once each build a catalog; the last stored stands,
        // and every one of them is of the tools as they are now.
        self.current.store(Arc::new(Catalog::of(toolbox)));
        self.current.load()
    }
}

impl Catalog {
    fn of(toolbox: &Toolbox) -> Self {
        // Read before the specs: a change in between leaves this catalog one generation
        // behind, so the next `get` rebuilds it (never the other way round).
        let generation = toolbox.generation();
        Catalog {
            generation,
            specs: toolbox
                .specs()
                .into_iter()
                .map(|s| (s.name.clone(), s))
                .collect(),
            lists: Mutex::new(HashMap::new()),
        }
    }

    fn list(
        &self,
        toolbox: &Toolbox,
        version: McpVersion,
        apps: bool,
    ) -> Result<Arc<ListToolsResult>, ErrorData> {
        if let Some(list) = self
            .lists
            .lock()
            .ok()
            .and_then(|l| l.get(&(version, apps)).cloned())
        {
            return Ok(list);
        }
        if apps {
            let linked = Arc::new(apps::linked(&*self.list(toolbox, version, false)?));
            if let Ok(mut lists) = self.lists.lock() {
                lists.insert((version, true), Arc::clone(&linked));
            }
            return Ok(linked);
        }
        let mut list = toolbox.export(Target::Mcp(version)).map_err(|e| {
            ErrorData::internal_error(format!("the tool list cannot be exported: {e}"), None)
        })?;
        // rmcp drops `resultType` for peers before 2026-07-28, which define none.
        list["resultType"] = Value::String("complete".into());
        let list: Arc<ListToolsResult> = Arc::new(serde_json::from_value(list).map_err(internal)?);
        if let Ok(mut lists) = self.lists.lock() {
            lists.insert((version, false), Arc::clone(&list));
        }
        Ok(list)
    }
}

impl Inner {
    /// Notes the generation a change stream is acknowledged at (see [`WatchStarts`]).
    fn acknowledge_watch(&self) {
        // The watch channel's own count, which the watchers compare against (`start_watch`).
        self.starts
            .acknowledged(*self.toolbox.watch_changes().borrow());
    }

    /// Subscribes a session's watcher to tool-list changes, and says whether the list changed
    /// since the stream was acknowledged (a change the watcher must report at once).
    fn start_watch(&self) -> (tokio::sync::watch::Receiver<u64>, bool) {
        let mut changes = self.toolbox.watch_changes();
        let now = *changes.borrow_and_update();
        (changes, self.starts.changed_since_acknowledged(now))
    }
}

/// A [`Toolbox`] as an MCP server (rmcp's `ServerHandler`). Cheap to clone: clones share the
/// toolbox.
///
/// What a session sets (its log level, `logging/setLevel`) belongs to the session:
/// [`serve`](Self::serve), [`serve_stdio`](Self::serve_stdio) and every HTTP session start
/// with none. A value handed to rmcp's `serve_server` directly keeps one set of session state
/// for every session it serves: give each session a server of its own.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
    /// The session this value serves (its log level). [`serve`](McpServer::serve) and the HTTP
    /// listener give each session a value of its own ([`McpServer::for_session`]).
    session: Arc<client::Session>,
    /// Cancelled when the input of the session this handler serves has closed: set by
    /// [`serve`](McpServer::serve) (see [`Session`]); `None` over HTTP, whose sessions rmcp
    /// ends by cancelling their requests.
    input_closed: Option<CancellationToken>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("toolbox", &self.inner.toolbox)
            .field("caller", &self.inner.caller)
            .finish()
    }
}

impl McpServer {
    /// A server for `toolbox` (a `Toolbox` or an `Arc<Toolbox>` the host keeps, to register and
    /// retire tools while serving). Every call is anonymous until [`caller`](Self::caller) or
    /// [`caller_from_http`](Self::caller_from_http) says otherwise.
    pub fn new(toolbox: impl Into<Arc<Toolbox>>) -> Self {
        let toolbox = toolbox.into();
        McpServer {
            input_closed: None,
            inner: Arc::new(Inner {
                catalog: Catalogs::new(&toolbox),
                toolbox,
                caller: Caller::anonymous(),
                http_caller: None,
                info: Implementation::new("toolsmith", env!("CARGO_PKG_VERSION")),
                starts: WatchStarts::default(),
                watchers: Watchers::default(),
                state_key: tool_core::SecretKey::random(),
                handler: None,
                list_cache: cache::ListCache::default(),
                apps: true,
                client_timeout: DEFAULT_CLIENT_TIMEOUT,
            }),
            session: Arc::default(),
        }
    }

    /// This server for a new session: the same toolbox and settings, its own session state.
    fn for_session(&self) -> Self {
        McpServer {
            inner: Arc::clone(&self.inner),
            session: Arc::default(),
            input_closed: self.input_closed.clone(),
        }
    }

    fn map(self, f: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Inner {
            toolbox: Arc::clone(&self.inner.toolbox),
            caller: self.inner.caller.clone(),
            http_caller: self.inner.http_caller.clone(),
            info: self.inner.info.clone(),
            catalog: self.inner.catalog.clone(),
            starts: self.inner.starts.clone(),
            // The new server's sessions are its own.
            watchers: Watchers::default(),
            state_key: self.inner.state_key.clone(),
            handler: self.inner.handler.clone(),
            list_cache: self.inner.list_cache,
            apps: self.inner.apps,
            client_timeout: self.inner.client_timeout,
        };
        f(&mut inner);
        McpServer {
            inner: Arc::new(inner),
            session: Arc::default(),
            input_closed: self.input_closed.clone(),
        }
    }

    /// The caller every call acts for over stdio, and over HTTP when no
    /// [`caller_from_http`](Self::caller_from_http) mapping is set.
    #[must_use]
    pub fn caller(self, caller: Caller) -> Self {
        self.map(|i| i.caller = caller)
    }

    /// Maps each HTTP request (method, URI, headers, and extensions such as an authenticated
    /// user a tower layer put there) to the caller it acts for, so policy and idempotency apply
    /// per user.
    #[must_use]
    pub fn caller_from_http(
        self,
        f: impl Fn(&::http::request::Parts) -> Caller + Send + Sync + 'static,
    ) -> Self {
        self.map(|i| i.http_caller = Some(Arc::new(f)))
    }

    /// The key that seals the `requestState` of the `input_required` results a 2026-07-28
    /// client gets when a call needs the user's input (default: a random key of this process).
    /// Replicas behind one load balancer share it, so a retry is served wherever it lands; the
    /// example server reads it from `TOOLSMITH_CURSOR_KEY` with the cursor key.
    #[must_use]
    pub fn request_state_key(self, key: tool_core::SecretKey) -> Self {
        self.map(|i| i.state_key = key)
    }

    /// The cache hints of `tools/list` for 2026-07-28 clients: how long a client may reuse the
    /// list without asking again (`ttlMs`, whole milliseconds) and who may keep it
    /// (`cacheScope`). Default: `0` and [`CacheScope::Private`], so every client asks each time.
    ///
    /// A positive time suits a toolbox whose tools stay as built. A client that listens
    /// (`subscriptions/listen`) drops its copy on `notifications/tools/list_changed`; one that
    /// does not keeps listing a retired tool, and calling it (answered `-32602`), until the time
    /// runs out. Older revisions have no such hints and get none.
    #[must_use]
    pub fn list_cache(self, ttl: std::time::Duration, scope: CacheScope) -> Self {
        let hints = cache::ListCache::new(ttl, scope);
        self.map(|i| i.list_cache = hints)
    }

    /// Whether the server offers each tool's form as an MCP App (the `io.modelcontextprotocol/ui`
    /// extension; default `true`). With `false` the server does not declare the extension,
    /// links no `_meta.ui.resourceUri` in `tools/list` and answers a `ui://toolsmith/...` read
    /// with resource-not-found, whatever the client announces: for a host that wants its tools
    /// called by the model only, or shows its own forms.
    #[must_use]
    pub fn mcp_apps(self, enabled: bool) -> Self {
        self.map(|i| i.apps = enabled)
    }

    /// How long a tool's request to the client (a completion from its model, a question to its
    /// user: `sampling/createMessage`, `elicitation/create` in the 2025 revisions) waits for the
    /// answer; default [`DEFAULT_CLIENT_TIMEOUT`] (60 s, as the official TypeScript SDK waits
    /// for a request). When it passes, the server tells the client the request is cancelled
    /// and the tool gets [`ClientError::TimedOut`](tool_core::ClientError::TimedOut)
    /// (`failed`, `CLIENT_TIMEOUT` when it passes it on with `?`).
    ///
    /// A keyed write that stops at such a question did not act, so its idempotency key is
    /// released and the agent's retry runs; the bound is how long one silent client can hold
    /// the key (`IN_PROGRESS` for every other caller of its scope). Give the user time to read
    /// and answer a form, and no more.
    #[must_use]
    pub fn client_timeout(self, timeout: std::time::Duration) -> Self {
        let timeout = timeout.max(std::time::Duration::from_millis(1));
        self.map(|i| i.client_timeout = timeout)
    }

    /// Whether this request's client gets the tools' MCP Apps: the server offers them
    /// ([`McpServer::mcp_apps`]) and the client announced the extension.
    fn apps_for(&self, context: &RequestContext<RoleServer>, version: McpVersion) -> bool {
        self.inner.apps && apps::announced(context, version)
    }

    /// The name and version the server gives in `initialize` and `server/discover` (default
    /// `toolsmith` and its version).
    #[must_use]
    pub fn server_info(self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let info = Implementation::new(name, version);
        self.map(|i| i.info = info)
    }

    /// The toolbox served.
    pub fn toolbox(&self) -> &Arc<Toolbox> {
        &self.inner.toolbox
    }

    /// Serves one client on this process's stdin and stdout until it disconnects.
    ///
    /// # Errors
    /// When the session cannot start or the transport fails.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.serve(rmcp::transport::stdio()).await
    }

    /// Serves one client over any rmcp transport (a duplex stream in tests) until it
    /// disconnects.
    ///
    /// Returns soon after the client closes its side (end of input): the answers to requests
    /// still running are sent first (rmcp waits up to 5 s for them), and the client's
    /// `subscriptions/listen` streams end at once with their final result, as they would when
    /// the server shuts down, so an open subscription never holds the session up.
    ///
    /// # Errors
    /// When the session cannot start or the transport fails.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<(), ServeError>
    where
        T: rmcp::transport::IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let input_closed = CancellationToken::new();
        let transport = WatchedInput {
            inner: transport.into_transport(),
            closed: input_closed.clone(),
        };
        let session = Session {
            server: McpServer {
                inner: self.inner,
                // The session's own state (its log level), as `for_session` gives.
                session: Arc::default(),
                input_closed: Some(input_closed.clone()),
            },
            input_closed,
        };
        let running = rmcp::serve_server(session, transport)
            .await
            .map_err(|e| ServeError::Session(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| ServeError::Session(e.to_string()))?;
        Ok(())
    }

    /// The caller a request acts for.
    fn caller_of(&self, context: &RequestContext<RoleServer>) -> Caller {
        match (
            &self.inner.http_caller,
            context.extensions.get::<::http::request::Parts>(),
        ) {
            (Some(map), Some(parts)) => map(parts),
            _ => self.inner.caller.clone(),
        }
    }
}

/// Whether a 2026-07-28 request's client declared it can answer requests: elicitation or
/// sampling, in the request's `_meta`.
fn answers_requests(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .client_capabilities()
        .is_some_and(|c| c.elicitation.is_some() || c.sampling.is_some())
}

/// Whether a 2026-07-28 request's client declared elicitation in form mode (in the request's
/// `_meta`, as 2026-07-28 clients declare their capabilities per request).
fn elicits_forms(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .client_capabilities()
        .and_then(|c| c.elicitation)
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// The handler of one session served by [`McpServer::serve`]: the server, and the end of the
/// session's input ([`WatchedInput`]).
///
/// Once the input has closed, rmcp's service loop stops reading and sending anything but
/// answers, and waits (up to 5 s) for every request handler still running to answer before it
/// ends; it cancels their requests only after that wait. Two kinds of handler would hold it
/// for the whole wait:
///
/// - a `subscriptions/listen` stream answers only when its request is cancelled, and one whose
///   acknowledgment was being sent when the input closed waits for a delivery report the loop
///   no longer gives; so each ends at once here, with the final result of a stream the server
///   ends (`SubscriptionsListenResult`);
/// - a call that reports progress waits for each notification's delivery report the same way;
///   [`reporting_progress`] stops sending reports once the input has closed (the session's
///   server holds the same token), and the call's answer still goes out.
///
/// Without this a session with an open subscription took those 5 s to end (and the TypeScript
/// SDK's client, which waits 2 s for a stdio server to exit, killed it).
struct Session {
    /// The server, its `input_closed` set to the same token.
    server: McpServer,
    input_closed: CancellationToken,
}

impl rmcp::Service<RoleServer> for Session {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        if !matches!(request, ClientRequest::SubscriptionsListenRequest(_)) {
            return rmcp::Service::handle_request(&self.server, request, context).await;
        }
        let id = context.id.clone();
        tokio::select! {
            result = rmcp::Service::handle_request(&self.server, request, context) => result,
            () = self.input_closed.cancelled() => {
                let mut ended = SubscriptionsListenResult::complete(id);
                ended.meta.set_server_info(self.server.inner.info.clone());
                Ok(ServerResult::SubscriptionsListenResult(ended))
            }
        }
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        rmcp::Service::handle_notification(&self.server, notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        rmcp::Service::get_info(&self.server)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        rmcp::Service::supported_protocol_versions(&self.server)
    }
}

/// A transport whose end of input is announced: when `receive` finds no more messages,
/// `closed` is cancelled (see [`Session`]).
struct WatchedInput<T> {
    inner: T,
    closed: CancellationToken,
}

impl<T> rmcp::transport::Transport<RoleServer> for WatchedInput<T>
where
    T: rmcp::transport::Transport<RoleServer>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<RoleServer>> {
        let message = self.inner.receive().await;
        if message.is_none() {
            self.closed.cancel();
        }
        message
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        // Closing is the end of input too (the loop closes the transport when it ends for any
        // reason).
        self.closed.cancel();
        self.inner.close()
    }
}

/// An MCP `resource_link` to a kept result.
fn resource_link(link: ResultResource) -> ContentBlock {
    ContentBlock::resource_link(
        Resource::new(link.uri, link.name)
            .with_title(link.title)
            .with_description(link.description)
            .with_mime_type(link.mime_type),
    )
}

/// The longest URI quoted back in an error's `data`, in bytes.
const MAX_QUOTED_URI: usize = 2048;

/// The protocol error of a kept result that could not be read: resource-not-found (`-32002`,
/// which rmcp sends as `-32602` to 2026-07-28 clients, as that revision asks) for a URI that
/// names nothing (any more), invalid params for a link refused to this caller, an internal
/// error for a store that failed. `data` quotes the URI, as the specification's example does.
fn read_error(uri: &str, error: &ResultReadError) -> ErrorData {
    let data = (uri.len() <= MAX_QUOTED_URI).then(|| serde_json::json!({ "uri": uri }));
    let message = error.to_string();
    if error.is_not_found() {
        ErrorData::resource_not_found(message, data)
    } else if *error == ResultReadError::Unavailable {
        ErrorData::internal_error(message, data)
    } else {
        ErrorData::invalid_params(message, data)
    }
}

/// The export's version for a negotiated protocol version; versions before 2025-06-18 are not
/// negotiated (the server does not offer them), so anything unknown gets the oldest shape.
fn version_of(context: &RequestContext<RoleServer>) -> McpVersion {
    match context.protocol_version() {
        Some(v) if v == ProtocolVersion::V_2026_07_28 => McpVersion::V2026_07_28,
        Some(v) if v == ProtocolVersion::V_2025_11_25 => McpVersion::V2025_11_25,
        _ => McpVersion::V2025_06_18,
    }
}

/// The codes of arguments the schema rejected (the validation stage) and of unknown tools.
const ARGUMENT_CODES: [&str; 4] = [
    codes::INVALID_ARGUMENT,
    codes::MISSING_ARGUMENT,
    codes::UNKNOWN_ARGUMENT,
    codes::INVALID_INPUT,
];
const TOOL_CODES: [&str; 2] = [codes::UNKNOWN_TOOL, codes::TOOL_RETIRED];

/// The JSON-RPC error an envelope becomes instead of a result, where the version says so.
fn protocol_error(env: &Envelope, version: McpVersion) -> Option<ErrorData> {
    if env.status != Status::InvalidInput {
        return None;
    }
    let code = env.code.as_deref().unwrap_or_default();
    let as_error = TOOL_CODES.contains(&code)
        || (version == McpVersion::V2025_06_18 && ARGUMENT_CODES.contains(&code));
    as_error.then(|| {
        let data = serde_json::to_value(env).ok();
        ErrorData::invalid_params(env.message.clone().unwrap_or_default(), data)
    })
}

/// The answer to a request the client cancelled (rmcp sends nothing for it).
fn cancelled() -> ErrorData {
    ErrorData::internal_error("the request was cancelled", None)
}

/// Drives `call` until it ends or the client cancels the request, sending its notifications as
/// they are made: progress reports as `notifications/progress` for `token` (the outbox is the
/// call's progress sink only when the client sent one), log messages as
/// `notifications/message`.
/// After `input_closed` (a stream session's end of input, see [`Session`]) nothing more is
/// sent: rmcp no longer reports a notification delivered then.
///
/// rmcp's client sends a progress token with every request, and every call has a client
/// channel, so this runs on every call: the outbox costs one small allocation and nothing more
/// until the tool reports or logs.
async fn driving(
    call: impl std::future::Future<Output = Envelope>,
    outbox: &client::Outbox,
    token: Option<&ProgressToken>,
    context: &RequestContext<RoleServer>,
    input_closed: Option<&CancellationToken>,
) -> Result<Envelope, ErrorData> {
    tokio::pin!(call);
    let env = loop {
        tokio::select! {
            // The call first: one that finishes on its first poll (a sync tool run in place)
            // never registers with the cancellation token or the outbox's `Notify`.
            biased;
            env = &mut call => break env,
            // A cancelled request: the call's future is dropped here, and rmcp has already
            // forgotten the request, so nothing more is sent for it.
            () = context.ct.cancelled() => return Err(cancelled()),
            () = outbox.ready.notified() => {
                while let Some(item) = outbox.pop() {
                    send_unless_closed(item, token, context, input_closed).await;
                }
            }
        }
    };
    // Notifications made just before the call ended go out before its result.
    while let Some(item) = outbox.pop() {
        send_unless_closed(item, token, context, input_closed).await;
    }
    Ok(env)
}

/// Sends one notification of a call, unless the session's input has closed: rmcp no longer
/// reports a notification delivered then, and waiting for the report would hold the call (and
/// the session's end) up. The call's answer still goes out.
async fn send_unless_closed(
    item: client::Outgoing,
    token: Option<&ProgressToken>,
    context: &RequestContext<RoleServer>,
    input_closed: Option<&CancellationToken>,
) {
    match input_closed {
        Some(closed) => {
            tokio::select! {
                biased;
                () = closed.cancelled() => {}
                () = client::send(item, token, &context.peer) => {}
            }
        }
        None => client::send(item, token, &context.peer).await,
    }
}

fn internal(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("the server could not encode its answer: {e}"), None)
}

impl McpServer {
    /// Runs one `tools/call` through the pipeline. When the client can answer questions, a
    /// `needs_input` whose `missing` fields are all plain parameters of the tool becomes one
    /// question to the user (`elicitation/create`), and the call runs again, through the whole
    /// pipeline, with the answers merged into its arguments: once, so a tool that answers
    /// `needs_input` again ends the call with it. A user who declines makes the envelope
    /// `cancelled_by_user` (`CANCELLED_BY_USER`; `QUESTION_DISMISSED` when the question was
    /// dismissed); an answer that does not fit is `INVALID_ANSWER`; a client that fails to ask
    /// leaves the `needs_input` as it was.
    async fn run_call(
        &self,
        name: &str,
        args: Value,
        caller: Caller,
        channel: &client::CallChannel,
    ) -> Envelope {
        let toolbox = &self.inner.toolbox;
        // No question can follow, or (2026-07-28) it follows in an `input_required` result
        // (`call_tool`): the arguments go to the call as they are.
        if !channel.can_elicit() || channel.rounds().is_some() {
            return toolbox
                .call_with(name, args, CallOptions::new().caller(caller))
                .await;
        }
        // Borrowed, so they are still here for a second run.
        let env = toolbox
            .call_with(name, &args, CallOptions::new().caller(caller.clone()))
            .await;
        let Some(question) = self.question_for(name, &env) else {
            return env;
        };
        let answer = match channel.elicit(&question).await {
            Ok(answer) => answer,
            // The client could not ask: the agent asks the user instead.
            Err(_) => return env,
        };
        match question.answered(answer) {
            Ok(fields) => {
                let mut merged = match args {
                    Value::Object(map) => map,
                    _ => serde_json::Map::new(),
                };
                merged.extend(fields);
                toolbox
                    .call_with(
                        name,
                        Value::Object(merged),
                        CallOptions::new().caller(caller),
                    )
                    .await
            }
            Err(e) => e.into_envelope(),
        }
    }

    /// The `CallToolResult` of an envelope of the tool `name` (a JSON-RPC error where the
    /// version makes the envelope one).
    fn result_of(
        &self,
        name: &str,
        env: Envelope,
        version: McpVersion,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(error) = protocol_error(&env, version) {
            return Err(error);
        }
        let toolbox = &self.inner.toolbox;
        // The kept full result, for the caller it was made for (the caller was moved into the
        // call's options; mapping the request again gives the same one, and is done only for
        // the few results that keep something).
        let link = env
            .reference
            .is_some()
            .then(|| toolbox.result_resource(name, &env, &self.caller_of(context)))
            .flatten();
        let catalog = self.inner.catalog.get(toolbox);
        // rmcp's result type built from the parts directly: no JSON tree to decode again.
        let parts = mcp_call_parts(catalog.specs.get(name), env, version).with_resource_link(link);
        let mut blocks = Vec::with_capacity(1 + parts.content.len());
        if !parts.text.is_empty() || parts.content.is_empty() {
            blocks.push(ContentBlock::text(parts.text));
        }
        // A tool's own content blocks (images, audio, resources, links), written by
        // `tool_core::content` in MCP's shapes.
        for block in parts.content {
            blocks.push(serde_json::from_value::<ContentBlock>(block).map_err(internal)?);
        }
        blocks.extend(parts.resource_link.map(resource_link));
        let mut result = CallToolResult::success(blocks);
        result.structured_content = parts.structured_content;
        result.is_error = Some(parts.is_error);
        result.meta = (!parts.meta.is_empty()).then(|| MetaObject(parts.meta));
        result.result_type = Some(ResultType::COMPLETE);
        Ok(result)
    }

    /// The `input_required` answer that asks `question` (2026-07-28).
    fn input_required(
        &self,
        name: &str,
        question: &Question,
        earlier: serde_json::Map<String, Value>,
        caller: &Caller,
        args: &Value,
        expires: Option<u64>,
    ) -> Result<CallToolResponse, ErrorData> {
        input_required::ask(
            &self.inner.state_key,
            name,
            question,
            earlier,
            caller,
            args,
            expires,
        )
        .map(CallToolResponse::from)
        .map_err(internal)
    }

    /// Verifies a retry's `requestState` and reads its answer (2026-07-28).
    fn resume(
        &self,
        name: &str,
        state: &str,
        responses: Option<&rmcp::model::InputResponses>,
        caller: &Caller,
        args: &Value,
    ) -> Result<(input_required::Resume, u64), ErrorData> {
        let catalog = self.inner.catalog.get(&self.inner.toolbox);
        let Some(spec) = catalog.specs.get(name) else {
            return Err(ErrorData::invalid_params(
                format!("the requestState names no tool of this server (\"{name}\")"),
                None,
            ));
        };
        input_required::resume(
            &self.inner.state_key,
            name,
            &spec.input_schema,
            state,
            responses,
            caller,
            args,
        )
        .map_err(|why| ErrorData::invalid_params(why, None))
    }

    /// The question for the missing fields of a `needs_input` envelope: `None` when the
    /// envelope is something else, names no field, or a field is not a parameter of the tool a
    /// form can ask for.
    fn question_for(&self, name: &str, env: &Envelope) -> Option<Question> {
        if env.status != Status::NeedsInput || env.missing.is_empty() {
            return None;
        }
        let toolbox = &self.inner.toolbox;
        let catalog = self.inner.catalog.get(toolbox);
        let spec = catalog.specs.get(name)?;
        let message = env.message.clone().unwrap_or_default();
        Question::for_fields(message, &spec.input_schema, &env.missing).ok()
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        #[allow(deprecated)] // logging: deprecated in 2026-07-28, in the 2025 revisions
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            // The full results kept when a result is cut (or a keyed write's), read by the
            // URI of the `resource_link` in the call's result; per caller and short-lived, so
            // `resources/list` lists none of them.
            .enable_resources()
            .enable_tool_list_changed()
            .build();
        let mut capabilities = capabilities;
        // MCP Apps: each tool's form, for clients that announce the extension too (`apps`).
        if self.inner.apps {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    tool_spec::ui::APP_EXTENSION.to_string(),
                    serde_json::Map::from_iter([(
                        "mimeTypes".to_string(),
                        Value::from(vec![tool_spec::ui::APP_MIME_TYPE]),
                    )]),
                );
        }
        let own = ServerConfig::new(capabilities).with_server_info(self.inner.info.clone());
        // With the prompts, resources and completions of the handler, if any.
        match self.handler() {
            Some(handler) => compose::merged(own, handler),
            None => own,
        }
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(VERSIONS.to_vec())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let version = version_of(&context);
        let toolbox = &self.inner.toolbox;
        let apps = self.apps_for(&context, version);
        let list = self
            .inner
            .catalog
            .get(toolbox)
            .list(toolbox, version, apps)?;
        let mut list = ListToolsResult::clone(&list);
        self.inner.list_cache.apply(&mut list, version);
        Ok(list)
    }

    /// The tool as listed to 2026-07-28 clients (rmcp checks `Mcp-Param-*` headers against its
    /// input schema).
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        let toolbox = &self.inner.toolbox;
        let list = self
            .inner
            .catalog
            .get(toolbox)
            .list(toolbox, McpVersion::V2026_07_28, false)
            .ok()?;
        list.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let version = version_of(&context);
        let caller = self.caller_of(&context);
        let mut args = request.arguments.map_or(Value::Null, Value::Object);
        let name: &str = &request.name;
        // 2026-07-28: a call that needs the user's input is answered `input_required`, and
        // retried with the answers (see `input_required.rs`): the original arguments and the
        // caller are kept for the seal.
        // Only for a client that declared it can answer (elicitation or sampling in the
        // request's `_meta`): no other call pays for the copies below.
        let rounds = version == McpVersion::V2026_07_28 && answers_requests(&context);
        let asking = rounds && elicits_forms(&context);
        let original = rounds.then(|| (args.clone(), caller.clone()));
        let mut earlier = serde_json::Map::new();
        // The answers to the tool's own requests (`Client::ask`, `Client::sample`): those of
        // earlier rounds (in the verified state), then this request's.
        let mut answers = serde_json::Map::new();
        // The expiry of the state the retry presented: every state issued in answer keeps it.
        let mut expires = None;
        if let (Some(state), Some((original, caller))) = (&request.request_state, &original) {
            let (resume, expiry) = self.resume(
                name,
                state,
                request.input_responses.as_ref(),
                caller,
                original,
            )?;
            expires = Some(expiry);
            match resume {
                input_required::Resume::Answered(fields) => {
                    if let Value::Object(map) = &mut args {
                        map.extend(fields.clone());
                    }
                    earlier = fields;
                }
                input_required::Resume::AskAgain(question, answered) => {
                    return self
                        .input_required(name, &question, answered, caller, original, expires);
                }
                input_required::Resume::Answers(earlier_answers) => answers = earlier_answers,
                input_required::Resume::Refused(env) => {
                    return Ok(self.result_of(name, env, version, &context)?.into());
                }
            }
        }
        let outbox = Arc::new(client::Outbox::default());
        if let Some(responses) = request.input_responses.filter(|_| rounds) {
            answers.extend(responses);
        }
        let channel = Arc::new(client::CallChannel::new(
            &context,
            &self.session,
            version,
            Arc::clone(&outbox),
            rounds.then(|| client::Rounds::new(answers)),
            self.input_closed.clone(),
            self.inner.client_timeout,
        ));
        let token = context.meta.get_progress_token();
        // Boxed: the pipeline's future is large, and rmcp moves the request's future into a
        // task of its own, copying it whole on every call when it is held inline.
        let call = Box::pin(with_client(
            channel.clone(),
            self.run_call(name, args, caller, &channel),
        ));
        let env = match &token {
            // No token: progress reports are no-ops, and the outbox carries log messages only.
            None => driving(call, &outbox, None, &context, self.input_closed.as_ref()).await?,
            Some(token) => {
                let sink: Arc<dyn ProgressSink> = outbox.clone();
                driving(
                    with_progress(sink, call),
                    &outbox,
                    Some(token),
                    &context,
                    self.input_closed.as_ref(),
                )
                .await?
            }
        };
        if let (Some((original, caller)), Some(rounds)) = (&original, channel.rounds()) {
            // The tool asked for what no answer met: this run's result gives way to the
            // requests, and the next round runs the tool again with the answers.
            let pending = rounds.pending();
            if !pending.is_empty() {
                return input_required::rounds(
                    &self.inner.state_key,
                    name,
                    pending,
                    rounds.answers.clone(),
                    caller,
                    original,
                    expires,
                )
                .map(CallToolResponse::from)
                .map_err(internal);
            }
        }
        if let Some((original, caller)) = original.as_ref().filter(|_| asking) {
            // A field answered in an earlier round and missing again is not asked twice: the
            // agent gets the `needs_input` (the client bounds the rounds too).
            let question = self
                .question_for(name, &env)
                .filter(|q| !q.fields().iter().any(|f| earlier.contains_key(f)));
            if let Some(question) = question {
                return self.input_required(name, &question, earlier, caller, original, expires);
            }
        }
        Ok(self.result_of(name, env, version, &context)?.into())
    }

    /// Sets the session's log level (2025 revisions); 2026-07-28 has no such request (each
    /// call names its level in `_meta`).
    #[allow(deprecated)] // logging/setLevel: deprecated in 2026-07-28, in the 2025 revisions
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if version_of(&context) == McpVersion::V2026_07_28 {
            return Err(ErrorData::method_not_found::<SetLevelRequestMethod>());
        }
        self.session.set_level(client::level_of(request.level));
        Ok(())
    }

    // Prompts, resources and completions: the handler's (`compose.rs`).

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.handler_complete(request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.handler_get_prompt(request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.handler_list_prompts(request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.handler_list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.handler_list_resource_templates(request, context).await
    }

    /// The toolbox's own URIs (`toolsmith:`) are read by `read_toolbox_resource`, every other
    /// one by the handler.
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.route_read_resource(request, context).await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.handler_subscribe(request, context).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.handler_unsubscribe(request, context).await
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.inner.acknowledge_watch();
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // One watcher per session: it ends when sending to the client fails (on the next
        // change), when the toolbox is dropped, when a later session finds this one ended (see
        // `Watchers`) or when the server is dropped.
        let (mut changes, missed) = self.inner.start_watch();
        let peer = context.peer;
        // Weak: the watcher must not keep the toolbox alive (its end ends the watch).
        let toolbox = Arc::downgrade(&self.inner.toolbox);
        let watcher = tokio::spawn({
            let peer = peer.clone();
            async move {
                if missed && peer.notify_tool_list_changed().await.is_err() {
                    return;
                }
                loop {
                    tokio::select! {
                        changed = changes.changed() => {
                            if changed.is_err() || peer.notify_tool_list_changed().await.is_err() {
                                break;
                            }
                        }
                        // A deprecated tool's retirement time came: the toolbox retires it
                        // when asked, and the change arrives above.
                        () = next_retirement(&toolbox) => {}
                    }
                }
            }
        });
        self.inner.watchers.add(peer, watcher.abort_handle());
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // rmcp acknowledges the stream right after this returns, before `listen` runs.
        self.inner.acknowledge_watch();
        let own = SubscriptionFilter::builder().tools_list_changed().build();
        // And what the handler accepts (prompts, resources).
        Some(self.with_handler_filter(own, requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let (mut changes, missed) = self.inner.start_watch();
        let toolbox = Arc::downgrade(&self.inner.toolbox);
        let wanted = context.accepted().tools_list_changed == Some(true);
        let sink = context.sink().clone();
        let cancelled = context.request_context().ct.clone();
        // The handler's notifications go on the same stream, from its own `listen`; the stream
        // ends when either side ends it.
        let mut theirs = self.handler_listen(context);
        if missed && wanted && sink.notify_tool_list_changed().await.is_err() {
            return Ok(());
        }
        loop {
            tokio::select! {
                () = cancelled.cancelled() => return Ok(()),
                ended = &mut theirs => return ended,
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    if wanted && sink.notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
                () = next_retirement(&toolbox) => {}
            }
        }
    }
}

/// Waits until the toolbox's next deprecated tool is due to retire, then lets the toolbox retire
/// it (which announces the change to the watchers); never ends when none is to retire, or once
/// the toolbox is gone. Waits at most an hour at a time, so a clock set anew is read again.
async fn next_retirement(toolbox: &std::sync::Weak<Toolbox>) {
    let wait = toolbox.upgrade().and_then(|t| t.next_retirement_in());
    let Some(wait) = wait else {
        return std::future::pending().await;
    };
    let (least, most) = (
        std::time::Duration::from_millis(10),
        std::time::Duration::from_secs(3600),
    );
    tokio::time::sleep(wait.clamp(least, most)).await;
    if let Some(toolbox) = toolbox.upgrade() {
        toolbox.generation();
    }
}

#[cfg(test)]
mod tests {
    use super::{McpServer, WatchStarts};
    use std::time::Duration;

    /// Waits (bounded) until `done` holds.
    async fn eventually(what: &str, done: impl Fn() -> bool) {
        for _ in 0..500 {
            if done() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("{what}: not within 5 s");
    }

    #[tokio::test]
    async fn the_watchers_of_ended_sessions_are_aborted_when_a_new_session_starts() {
        let server = McpServer::new(tool_core::Toolbox::builder().build().unwrap());
        let mut ended = Vec::new();
        for _ in 0..3 {
            let (server_end, client_end) = tokio::io::duplex(1 << 16);
            let serving = tokio::spawn(server.clone().serve(server_end));
            let client = rmcp::serve_client((), client_end).await.unwrap();
            let watchers = &server.inner.watchers;
            // Its watcher is listed, and those of the sessions that ended before it are gone.
            eventually("the session's watcher starts", || {
                let list = watchers.lock();
                list.len() == 1 && !list[0].0.is_transport_closed()
            })
            .await;
            let handle = watchers.lock()[0].1.clone();
            client.cancel().await.unwrap();
            tokio::time::timeout(Duration::from_secs(5), serving)
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            // The list never changed, so the ended session's watcher is still waiting.
            assert!(!handle.is_finished());
            ended.push(handle);
        }
        let (server_end, client_end) = tokio::io::duplex(1 << 16);
        let _serving = tokio::spawn(server.clone().serve(server_end));
        let _client = rmcp::serve_client((), client_end).await.unwrap();
        eventually("every ended session's watcher ends", || {
            ended.iter().all(tokio::task::AbortHandle::is_finished)
        })
        .await;
        assert_eq!(server.inner.watchers.lock().len(), 1);
    }

    #[test]
    fn a_watcher_reports_a_change_made_between_its_acknowledgment_and_its_start() {
        let starts = WatchStarts::default();
        starts.acknowledged(3);
        assert!(starts.changed_since_acknowledged(4));
        starts.acknowledged(4);
        assert!(!starts.changed_since_acknowledged(4));
        // Nothing acknowledged: nothing to report.
        assert!(!starts.changed_since_acknowledged(9));
    }

    #[test]
    fn watchers_take_the_oldest_acknowledgment_and_the_list_stays_bounded() {
        let starts = WatchStarts::default();
        starts.acknowledged(7);
        starts.acknowledged(5);
        // The oldest (5) goes first: the watcher started at 7 reports a change.
        assert!(starts.changed_since_acknowledged(7));
        assert!(!starts.changed_since_acknowledged(7));
        for g in 0..(WatchStarts::MAX_PENDING as u64 + 10) {
            starts.acknowledged(g);
        }
        let pending = starts.0.lock().unwrap().clone();
        assert_eq!(pending.len(), WatchStarts::MAX_PENDING);
        // The newest were dropped, never the oldest.
        assert!(pending.contains(&0));
    }
}
