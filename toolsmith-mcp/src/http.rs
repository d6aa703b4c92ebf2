//! Streamable HTTP: rmcp's `StreamableHttpService` behind a hyper HTTP/1 listener.

use super::{McpServer, ServeError};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The path the MCP endpoint is served at: `http://HOST:PORT/mcp`.
pub const MCP_PATH: &str = "/mcp";

/// The largest request body accepted, in bytes (larger ones get `413 Payload Too Large`).
pub const MAX_REQUEST_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How long [`HttpServer::shutdown`] lets a response under way end before it drops the
/// response's connection.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// A running streamable-HTTP server (see [`McpServer::bind_http`]).
#[derive(Debug)]
pub struct HttpServer {
    addr: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl HttpServer {
    /// The address the server listens on (the port the system chose for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint's URL, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.addr)
    }

    /// Stops accepting connections and ends every session (a call in progress is cancelled, as
    /// if its client had cancelled it). Idle connections close at once; one with a response
    /// under way closes when the response has ended, or after [`SHUTDOWN_GRACE`]. Returns when
    /// every connection is closed.
    pub async fn shutdown(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }

    /// Serves until the accept loop ends (it ends only on [`shutdown`](Self::shutdown) from
    /// another handle, so in practice: until the process ends).
    ///
    /// # Errors
    /// When the accept loop panicked.
    pub async fn wait(self) -> Result<(), ServeError> {
        self.task
            .await
            .map_err(|e| ServeError::Session(format!("the HTTP server stopped: {e}")))
    }
}

impl McpServer {
    /// Binds `addr` and serves streamable HTTP at [`MCP_PATH`] in the background, with rmcp's
    /// defaults (sessions for the 2025 revisions; only loopback `Host` headers accepted, against
    /// DNS rebinding) and request bodies up to 4 MiB.
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub async fn bind_http(self, addr: impl ToSocketAddrs) -> Result<HttpServer, ServeError> {
        let config = StreamableHttpServerConfig::default()
            .with_max_request_body_bytes(MAX_REQUEST_BODY_BYTES);
        self.bind_http_with(addr, config).await
    }

    /// Like [`bind_http`](Self::bind_http) with rmcp's transport settings (allowed hosts and
    /// origins, keep-alive, JSON responses, body limit).
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub async fn bind_http_with(
        self,
        addr: impl ToSocketAddrs,
        config: StreamableHttpServerConfig,
    ) -> Result<HttpServer, ServeError> {
        let mut auth: Option<Guard> = self.oauth_verifier()?;
        // With OAuth the server answers at its resource URI's host as well as on loopback, and
        // the guard reads bodies up to the transport's limit.
        let config = match &mut auth {
            Some(guard) => guard.fit(config),
            None => config,
        };
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let stop = CancellationToken::new();
        let config = config.with_cancellation_token(stop.child_token());
        let service: StreamableHttpService<McpServer, LocalSessionManager> =
            StreamableHttpService::new(
                // Each session (and each stateless request) gets its own session state.
                move || Ok(self.for_session()),
                Arc::new(LocalSessionManager::default()),
                config,
            );
        let routed = Routed {
            service: Arc::new(service),
            oauth: auth,
        };
        let task = tokio::spawn(accept_loop(listener, routed, stop.clone()));
        Ok(HttpServer { addr, stop, task })
    }
}

async fn accept_loop(listener: TcpListener, routed: Routed, stop: CancellationToken) {
    // Connections learn of the shutdown through a watch channel (its waiters are spread over
    // several locks), not by waiting on `stop` beside the accept loop: with a connection per
    // request (rmcp's client pools none), waiting on the token cost about two more `futex`
    // calls per request (lock contention and wake-ups between the worker threads).
    let (stopping, _) = tokio::sync::watch::channel(());
    // One wait on the token for the whole loop: a new one per connection registered and
    // unregistered with the token's lock on every accept.
    let cancelled = stop.cancelled();
    tokio::pin!(cancelled);
    loop {
        let accepted = tokio::select! {
            biased;
            () = &mut cancelled => break,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else {
            // Out of file descriptors and the like: wait a moment rather than spin.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            continue;
        };
        let routed = routed.clone();
        let mut stopped = stopping.subscribe();
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), TowerToHyperService::new(routed));
            tokio::pin!(conn);
            tokio::select! {
                biased;
                _ = conn.as_mut() => return,
                _ = stopped.changed() => {}
            }
            // Idle: closes at once; a response under way: once it has ended, within the grace.
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(SHUTDOWN_GRACE, conn).await;
            drop(stopped);
        });
    }
    drop(listener);
    stopping.send_replace(());
    // Every connection's receiver is dropped when its task ends, within the grace.
    stopping.closed().await;
}

/// Serves the MCP endpoint at [`MCP_PATH`] (behind the OAuth checks when the server has them,
/// with its metadata beside it) and answers `404` elsewhere.
#[derive(Clone)]
struct Routed {
    /// Shared, not cloned: rmcp's service holds its whole configuration (the allowed hosts and
    /// origins among it), and a clone per connection and another per request (rmcp's own
    /// `Service::call`) copied and dropped those lists on every call.
    service: Arc<StreamableHttpService<McpServer, LocalSessionManager>>,
    oauth: Option<Guard>,
}

pub(crate) type Response =
    ::http::Response<http_body_util::combinators::BoxBody<bytes::Bytes, std::convert::Infallible>>;

impl tower_service::Service<::http::Request<hyper::body::Incoming>> for Routed {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Response, std::convert::Infallible>> + Send>,
    >;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: ::http::Request<hyper::body::Incoming>) -> Self::Future {
        if let Some(guard) = &self.oauth {
            if let Some(res) = guard.metadata_for(&req) {
                return Box::pin(std::future::ready(Ok(res)));
            }
        }
        if req.uri().path() != MCP_PATH {
            use http_body_util::BodyExt;
            let body = http_body_util::Full::new(bytes::Bytes::from_static(
                b"Not found: the MCP endpoint is /mcp.\n",
            ))
            .boxed();
            let mut res = ::http::Response::new(body);
            *res.status_mut() = ::http::StatusCode::NOT_FOUND;
            return Box::pin(std::future::ready(Ok(res)));
        }
        // What rmcp's own `Service::call` does (one boxed future running `handle`), on the
        // shared service instead of a clone of it.
        let service = Arc::clone(&self.service);
        match self.oauth.clone() {
            None => Box::pin(async move { Ok(service.handle(req).await) }),
            Some(guard) => Box::pin(async move { Ok(guard.serve(&service, req).await) }),
        }
    }
}

#[cfg(feature = "oauth")]
use crate::oauth::Guard;

/// Without the `oauth` feature no server has OAuth checks: a guard never exists.
#[cfg(not(feature = "oauth"))]
#[derive(Clone)]
enum Guard {}

#[cfg(not(feature = "oauth"))]
impl Guard {
    fn fit(&mut self, _: StreamableHttpServerConfig) -> StreamableHttpServerConfig {
        match *self {}
    }

    fn metadata_for(&self, _: &::http::Request<hyper::body::Incoming>) -> Option<Response> {
        match *self {}
    }

    async fn serve(
        &self,
        _: &StreamableHttpService<McpServer, LocalSessionManager>,
        _: ::http::Request<hyper::body::Incoming>,
    ) -> Response {
        match *self {}
    }
}
