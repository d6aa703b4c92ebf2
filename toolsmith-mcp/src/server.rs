//! The server and its settings: [`McpServer`], the builder methods that configure it, and the
//! state its sessions share.

use crate::cache::{self, CacheScope};
use crate::catalog::Catalogs;
use crate::watch::{WatchStarts, Watchers};
use crate::{apps, client};
use rmcp::model::Implementation;
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use toolsmith_core::export::McpVersion;
use toolsmith_core::{Caller, Toolbox};

/// Maps one HTTP request to the caller it acts for.
pub type HttpCallerFn = dyn Fn(&::http::request::Parts) -> Caller + Send + Sync;

/// How long a tool's request to the client waits for its answer unless the host says otherwise
/// ([`McpServer::client_timeout`]).
pub const DEFAULT_CLIENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

pub(crate) struct Inner {
    pub(crate) toolbox: Arc<Toolbox>,
    caller: Caller,
    http_caller: Option<Arc<HttpCallerFn>>,
    pub(crate) info: Implementation,
    pub(crate) catalog: Catalogs,
    pub(crate) starts: WatchStarts,
    pub(crate) watchers: Watchers,
    /// Seals the `requestState` of 2026-07-28 `input_required` results.
    pub(crate) state_key: toolsmith_core::SecretKey,
    /// Prompts, resources and completions ([`McpServer::with_handler`]).
    pub(crate) handler: Option<Arc<dyn crate::delegate::Delegate>>,
    /// The 2026-07-28 cache hints of `tools/list` ([`McpServer::list_cache`]).
    pub(crate) list_cache: cache::ListCache,
    /// Whether tools' forms are offered as MCP Apps ([`McpServer::mcp_apps`]).
    pub(crate) apps: bool,
    /// How long a tool's request to the client waits for its answer
    /// ([`McpServer::client_timeout`]).
    pub(crate) client_timeout: std::time::Duration,
    /// Where calls that run as tasks are kept ([`McpServer::tasks`]); `None`: no tasks.
    pub(crate) tasks: Option<toolsmith_core::state::task::Tasks>,
    /// The OAuth resource-server settings of the HTTP server ([`McpServer::oauth`]).
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<crate::oauth::OAuth>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The server is gone: its sessions' watchers have nothing left to report for.
        self.watchers.abort_all();
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
    pub(crate) inner: Arc<Inner>,
    /// The session this value serves (its log level). [`serve`](McpServer::serve) and the HTTP
    /// listener give each session a value of its own ([`McpServer::for_session`]).
    pub(crate) session: Arc<client::Session>,
    /// Cancelled when the input of the session this handler serves has closed: set by
    /// [`serve`](McpServer::serve) (see [`Session`]); `None` over HTTP, whose sessions rmcp
    /// ends by cancelling their requests.
    ///
    /// [`Session`]: crate::session
    pub(crate) input_closed: Option<CancellationToken>,
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
                state_key: toolsmith_core::SecretKey::random(),
                handler: None,
                list_cache: cache::ListCache::default(),
                apps: true,
                client_timeout: DEFAULT_CLIENT_TIMEOUT,
                tasks: None,
                #[cfg(feature = "oauth")]
                oauth: None,
            }),
            session: Arc::default(),
        }
    }

    /// This server for a new session: the same toolbox and settings, its own session state.
    pub(crate) fn for_session(&self) -> Self {
        McpServer {
            inner: Arc::clone(&self.inner),
            session: Arc::default(),
            input_closed: self.input_closed.clone(),
        }
    }

    pub(crate) fn map(self, f: impl FnOnce(&mut Inner)) -> Self {
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
            tasks: self.inner.tasks.clone(),
            #[cfg(feature = "oauth")]
            oauth: self.inner.oauth.clone(),
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
    pub fn request_state_key(self, key: toolsmith_core::SecretKey) -> Self {
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
    /// and the tool gets [`ClientError::TimedOut`](toolsmith_core::ClientError::TimedOut)
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

    /// Serves tasks (the 2026-07-28 extension `io.modelcontextprotocol/tasks`, SEP-2663),
    /// kept in `tasks` (give it the state store the toolbox's replicas share, and any replica
    /// answers for any task): the server declares the extension, and a call of a tool with
    /// `#[tool(task = "optional")]` (or `"required"`) from a request that declares it runs in
    /// its request until it first waits (its questions until then are `input_required`
    /// rounds; a call that ends at once is answered at once), then becomes a task, answered
    /// with its id (`resultType: "task"`) and run on through the toolbox's pipeline in the
    /// background; `tasks/get`, `tasks/update` and `tasks/cancel` answer for it, to the
    /// caller that started it only. The tool's later questions (`Client::ask`,
    /// `Client::sample`) become the task's `inputRequests`, answered by `tasks/update` (each
    /// waits at most the [`client_timeout`](Self::client_timeout)); its progress messages
    /// become the task's `statusMessage`. A `"required"` tool called without the extension is
    /// refused with `-32021`. Without this setting no call becomes a task and every tool runs
    /// in its request. See [`toolsmith_core::state::task`] for the record, the leases and the
    /// limits.
    ///
    /// The 2025-11-25 form of tasks (`tasks/list`, `tasks/result`, a tool's
    /// `execution.taskSupport` in `tools/list`) is not served: that revision's clients call
    /// every tool directly.
    #[must_use]
    pub fn tasks(self, tasks: toolsmith_core::state::task::Tasks) -> Self {
        self.map(|i| i.tasks = Some(tasks))
    }

    /// Whether this request's client gets the tools' MCP Apps: the server offers them
    /// ([`McpServer::mcp_apps`]) and the client announced the extension.
    pub(crate) fn apps_for(
        &self,
        context: &RequestContext<RoleServer>,
        version: McpVersion,
    ) -> bool {
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

    /// Makes the HTTP server an OAuth 2.1 resource server (feature `oauth`): every request to
    /// the endpoint needs an access token the authorization server issued for this server, and
    /// the token's subject, scopes and roles are the caller (see [`crate::oauth`]). It then
    /// decides the caller of every HTTP request: [`caller_from_http`](Self::caller_from_http)
    /// is not consulted, and a request without a token (where
    /// [`OAuth::allow_anonymous`](crate::oauth::OAuth::allow_anonymous) lets one in) is
    /// anonymous. Stdio is not affected. The settings are checked when the server binds
    /// ([`ServeError::Config`](crate::ServeError::Config)).
    #[cfg(feature = "oauth")]
    #[must_use]
    pub fn oauth(self, oauth: crate::oauth::OAuth) -> Self {
        self.map(|i| i.oauth = Some(oauth))
    }

    /// The OAuth checks the HTTP server puts in front of the endpoint, when set.
    #[cfg(feature = "oauth")]
    pub(crate) fn oauth_verifier(&self) -> Result<Option<crate::oauth::Guard>, crate::ServeError> {
        let Some(settings) = &self.inner.oauth else {
            return Ok(None);
        };
        Ok(Some(crate::oauth::Guard {
            verifier: Arc::new(crate::oauth::Verifier::new(settings.clone())?),
            toolbox: Arc::clone(&self.inner.toolbox),
            max_body: crate::http::MAX_REQUEST_BODY_BYTES,
        }))
    }

    /// Without the `oauth` feature there are no OAuth checks.
    #[cfg(not(feature = "oauth"))]
    pub(crate) fn oauth_verifier<G>(&self) -> Result<Option<G>, crate::ServeError> {
        Ok(None)
    }

    /// The caller a request acts for.
    pub(crate) fn caller_of(&self, context: &RequestContext<RoleServer>) -> Caller {
        #[cfg(feature = "oauth")]
        if self.inner.oauth.is_some() {
            if let Some(parts) = context.extensions.get::<::http::request::Parts>() {
                return parts
                    .extensions
                    .get::<crate::oauth::Authenticated>()
                    .map(|a| a.0.clone())
                    .unwrap_or_default();
            }
        }
        match (
            &self.inner.http_caller,
            context.extensions.get::<::http::request::Parts>(),
        ) {
            (Some(map), Some(parts)) => map(parts),
            _ => self.inner.caller.clone(),
        }
    }
}
