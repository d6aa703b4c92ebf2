//! The checks in front of the MCP endpoint: a request's token, its scopes for the tool it
//! calls, its session; and the HTTP answers that refuse it.

use super::Verifier;
use bytes::Bytes;
use http_body_util::BodyExt;
use serde_json::json;
use std::sync::Arc;
use toolsmith_core::Caller;

/// The caller a verified token names, put in the request's extensions for the handler.
#[derive(Clone, Debug)]
pub(crate) struct Authenticated(pub(crate) Caller);

/// An HTTP answer that ends a request before it reaches rmcp.
pub(crate) struct Refusal {
    pub(super) status: http::StatusCode,
    pub(super) challenge: Option<String>,
    pub(super) retry_after: Option<u64>,
    pub(super) error: &'static str,
    pub(super) description: String,
}

impl Refusal {
    pub(crate) fn into_response(self) -> crate::http::Response {
        let body = json!({"error": self.error, "error_description": self.description});
        let mut res = json_response(self.status, &body);
        let headers = res.headers_mut();
        if let Some(value) = self
            .challenge
            .and_then(|c| http::HeaderValue::from_str(&c).ok())
        {
            headers.insert(http::header::WWW_AUTHENTICATE, value);
        }
        if let Some(secs) = self.retry_after {
            headers.insert(http::header::RETRY_AFTER, http::HeaderValue::from(secs));
        }
        res
    }
}

/// What the body of a POST says, as far as the scope check needs: its method and, for
/// `tools/call`, the tool.
pub(crate) fn called_tool(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Peek {
        method: Option<String>,
        params: Option<Params>,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        name: Option<String>,
    }
    let peek: Peek = serde_json::from_slice(body).ok()?;
    (peek.method.as_deref() == Some("tools/call"))
        .then(|| peek.params.and_then(|p| p.name))
        .flatten()
}

/// The OAuth checks in front of the MCP endpoint: the verifier and the toolbox whose policy
/// says which scopes each tool needs.
#[derive(Clone)]
pub(crate) struct Guard {
    pub(crate) verifier: Arc<Verifier>,
    pub(crate) toolbox: Arc<toolsmith_core::Toolbox>,
    /// The largest request body read (the transport's, set by [`Guard::fit`]).
    pub(crate) max_body: usize,
}

impl Guard {
    /// Fits the guard and the transport's settings to each other: the guard reads bodies up to
    /// the transport's limit, and `config` gets the resource URI's host among the allowed `Host`
    /// headers (rmcp's check against DNS rebinding allows only loopback names by default; a list
    /// the host emptied, which allows every host, stays empty).
    pub(crate) fn fit(
        &mut self,
        mut config: rmcp::transport::StreamableHttpServerConfig,
    ) -> rmcp::transport::StreamableHttpServerConfig {
        self.max_body = config.max_request_body_bytes;
        if let Some(host) = self.verifier.resource_host() {
            if !config.allowed_hosts.is_empty() && !config.allowed_hosts.contains(&host) {
                config.allowed_hosts.push(host);
            }
        }
        config
    }

    /// The Protected Resource Metadata, for a `GET` of one of its paths.
    pub(crate) fn metadata_for(
        &self,
        req: &http::Request<hyper::body::Incoming>,
    ) -> Option<crate::http::Response> {
        (req.method() == http::Method::GET && self.verifier.is_metadata_path(req.uri().path()))
            .then(|| self.verifier.metadata(self.toolbox.policy()))
    }

    /// Serves a request to the endpoint once its token passes: the `Authorization` header
    /// taken off and the caller put in its extensions; a `tools/call` of a tool whose scopes
    /// the token lacks refused; a session used only by the subject that opened it.
    pub(crate) async fn serve(
        &self,
        service: &rmcp::transport::StreamableHttpService<
            crate::McpServer,
            rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
        >,
        req: http::Request<hyper::body::Incoming>,
    ) -> crate::http::Response {
        let v = &self.verifier;
        if req.method() == http::Method::OPTIONS {
            // A browser's CORS preflight carries no token, and runs nothing.
            return service.handle(req).await;
        }
        let (mut parts, body) = req.into_parts();
        let caller = match v.authenticate(&parts).await {
            Ok(caller) => caller,
            Err(refusal) => return refusal.into_response(),
        };
        parts.headers.remove(http::header::AUTHORIZATION);
        let subject = caller.as_ref().and_then(|c| c.id().map(str::to_string));
        let session = parts
            .headers
            .get("mcp-session-id")
            .and_then(|h| h.to_str().ok())
            .map(str::to_string);
        if let Some(id) = &session {
            if !v.session_allowed(id, subject.as_deref()) {
                return plain(http::StatusCode::NOT_FOUND, "Not found: no such session.\n");
            }
        }
        let is_delete = parts.method == http::Method::DELETE;
        let req = if parts.method == http::Method::POST {
            let limited = http_body_util::Limited::new(body, self.max_body);
            let bytes = match limited.collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(_) => {
                    return plain(
                        http::StatusCode::PAYLOAD_TOO_LARGE,
                        "Payload too large, or the body could not be read.\n",
                    )
                }
            };
            if let Some(tool) = called_tool(&bytes) {
                let policy = self.toolbox.policy();
                let checked = match &caller {
                    Some(c) => v.scope_check(policy, &tool, c),
                    None => v.anonymous_check(policy, &tool),
                };
                if let Err(refusal) = checked {
                    return refusal.into_response();
                }
            }
            if let Some(c) = caller {
                parts.extensions.insert(Authenticated(c));
            }
            http::Request::from_parts(
                parts,
                http_body_util::Either::Right(http_body_util::Full::new(bytes)),
            )
        } else {
            if let Some(c) = caller {
                parts.extensions.insert(Authenticated(c));
            }
            http::Request::from_parts(parts, http_body_util::Either::Left(body))
        };
        let res = service.handle(req).await;
        match (&session, res.headers().get("mcp-session-id")) {
            (None, Some(opened)) => {
                if let Ok(id) = opened.to_str() {
                    v.session_opened(id, subject.as_deref());
                }
            }
            (Some(id), _) if is_delete && res.status().is_success() => v.session_closed(id),
            _ => {}
        }
        res
    }
}

/// A plain-text answer.
fn plain(status: http::StatusCode, text: &'static str) -> crate::http::Response {
    respond(status, Bytes::from_static(text.as_bytes()))
}

/// A JSON answer.
pub(super) fn json_response(
    status: http::StatusCode,
    body: &serde_json::Value,
) -> crate::http::Response {
    let mut res = respond(status, Bytes::from(body.to_string()));
    res.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    res
}

fn respond(status: http::StatusCode, body: Bytes) -> crate::http::Response {
    let mut res = http::Response::new(http_body_util::Full::new(body).boxed());
    *res.status_mut() = status;
    res
}
