//! The store's page for people: the product search and add-to-cart tools as forms
//! (`toolsmith::ui`), rendered from the very specs the model reads. In a browser with WebMCP the
//! forms are declarative tools too, so a person and an agent use the same form, and both reach
//! the toolbox through the same pipeline (validation, policy, audit).
//!
//! The endpoint runs a tool for whoever posts to it, and a browser posts a form across sites
//! without asking, so every request passes the page's [`RequestGuard`] first: only the names the
//! page is served under are answered (against DNS rebinding), and only the page's own origin may
//! post. A refused request runs no tool.
//!
//! `respond` answers one request (the tests call it directly); `serve` runs it over HTTP/1.1 on a
//! listener the caller binds (127.0.0.1 in the example and the tests).

use std::sync::Arc;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use toolsmith::ui::{self, FormOptions, RequestGuard};
use toolsmith::Toolbox;

/// The tools the page offers, in page order.
pub const PAGE_TOOLS: [&str; 2] = ["search_products", "add_to_cart"];

/// Where the forms post (`/call?tool=<name>`).
pub const CALL_PATH: &str = "/call";

/// The largest request body the page accepts.
pub const MAX_BODY: usize = 64 * 1024;

/// An answer: status, content type, body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

impl Answer {
    fn text(status: u16, message: impl Into<String>) -> Answer {
        Answer {
            status,
            content_type: "text/plain; charset=utf-8",
            body: message.into(),
        }
    }
}

/// The page: one form per tool of [`PAGE_TOOLS`], posting to [`CALL_PATH`].
pub fn page(toolbox: &Toolbox) -> String {
    let specs: Vec<_> = PAGE_TOOLS.iter().filter_map(|n| toolbox.spec(n)).collect();
    ui::page(
        "Outdoor store",
        &specs,
        &FormOptions::default().endpoint(CALL_PATH),
    )
}

/// The guard's refusal of a request, as an answer; `None` when the guard lets it through.
/// `headers` are the request's name-value pairs (names in any case).
pub fn refused(guard: &RequestGuard, method: &str, headers: &[(&str, &str)]) -> Option<Answer> {
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    };
    guard
        .check(method, header)
        .err()
        .map(|refusal| Answer::text(refusal.status(), refusal.message()))
}

/// Answers one request: `query` is its query string, `headers` its name-value pairs (names in
/// any case). The guard sees it first; a refused request runs no tool.
pub async fn respond(
    toolbox: &Toolbox,
    guard: &RequestGuard,
    method: &str,
    path: &str,
    query: Option<&str>,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    if let Some(refusal) = refused(guard, method, headers) {
        return refusal;
    }
    let content_type = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| *v);
    match (method, path) {
        ("GET", "/") => Answer {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: page(toolbox),
        },
        ("POST", CALL_PATH) => call(toolbox, query, content_type, body).await,
        (_, "/") | (_, CALL_PATH) => Answer::text(405, "method not allowed"),
        _ => Answer::text(404, "not found: the page is at /"),
    }
}

async fn call(
    toolbox: &Toolbox,
    query: Option<&str>,
    content_type: Option<&str>,
    body: &[u8],
) -> Answer {
    if body.len() > MAX_BODY {
        return Answer::text(413, format!("the request is over {MAX_BODY} bytes"));
    }
    let media = content_type
        .and_then(|c| c.split(';').next())
        .map(|c| c.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let named = query.and_then(|q| {
        form_urlencoded::parse(q.as_bytes())
            .find(|(k, _)| k == "tool")
            .map(|(_, v)| v.into_owned())
    });
    match media.as_str() {
        // The page's script: {"tool": ..., "arguments": {...}}.
        "application/json" => {
            let request: Value = match serde_json::from_slice(body) {
                Ok(v) => v,
                Err(e) => return Answer::text(400, format!("the body is not JSON: {e}")),
            };
            let Some(tool) = request["tool"].as_str().map(str::to_string).or(named) else {
                return Answer::text(400, "the request names no tool (\"tool\")");
            };
            if !PAGE_TOOLS.contains(&tool.as_str()) {
                return Answer::text(404, format!("this page has no tool `{tool}`"));
            }
            let arguments = request.get("arguments").cloned().unwrap_or(Value::Null);
            let env = toolbox.call(&tool, arguments).await;
            Answer {
                status: 200,
                content_type: "application/json",
                body: env.to_json(),
            }
        }
        // A native submission, without the script: name-value pairs typed by the spec.
        "application/x-www-form-urlencoded" => {
            let Some(tool) = named else {
                return Answer::text(400, "a form submission names its tool in the query (?tool=)");
            };
            let Some(spec) = PAGE_TOOLS
                .contains(&tool.as_str())
                .then(|| toolbox.spec(&tool))
                .flatten()
            else {
                return Answer::text(404, format!("this page has no tool `{tool}`"));
            };
            let pairs: Vec<(String, String)> = form_urlencoded::parse(body).into_owned().collect();
            let arguments = ui::form_arguments(&spec, &pairs);
            let env = toolbox.call(&tool, arguments).await;
            let escaped = env
                .to_json()
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            Answer {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: format!(
                    "<!doctype html>\n<html lang=\"en\"><meta charset=\"utf-8\"><title>{tool}</title>\n<pre>{escaped}</pre>\n<p><a href=\"/\">Back to the store</a></p></html>\n"
                ),
            }
        }
        _ => Answer::text(
            415,
            "send application/json (the page's script) or application/x-www-form-urlencoded (a form)",
        ),
    }
}

/// Serves the page on `listener`, behind `guard`, until the task is dropped.
pub async fn serve(
    toolbox: Arc<Toolbox>,
    guard: RequestGuard,
    listener: tokio::net::TcpListener,
) -> std::io::Result<()> {
    let guard = Arc::new(guard);
    loop {
        let (stream, _) = listener.accept().await?;
        let toolbox = Arc::clone(&toolbox);
        let guard = Arc::clone(&guard);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let toolbox = Arc::clone(&toolbox);
                let guard = Arc::clone(&guard);
                async move { Ok::<_, std::convert::Infallible>(handle(&toolbox, &guard, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn handle(
    toolbox: &Toolbox,
    guard: &RequestGuard,
    req: Request<Incoming>,
) -> Response<Full<Bytes>> {
    let method = req.method().as_str().to_string();
    let path = req.uri().path().to_string();
    let query = req.uri().query().map(str::to_string);
    // A value that is not UTF-8 is kept (lossily) rather than dropped, so the guard sees that
    // the header is there.
    let owned: Vec<(String, String)> = req
        .headers()
        .iter()
        .map(|(n, v)| {
            let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
            (n.as_str().to_string(), value)
        })
        .collect();
    let headers: Vec<(&str, &str)> = owned
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    // The guard first, so that a refused request's body is not even read.
    let answer = match refused(guard, &method, &headers) {
        Some(refusal) => refusal,
        None => match Limited::new(req.into_body(), MAX_BODY).collect().await {
            Ok(body) => {
                let bytes = body.to_bytes();
                respond(
                    toolbox,
                    guard,
                    &method,
                    &path,
                    query.as_deref(),
                    &headers,
                    &bytes,
                )
                .await
            }
            Err(_) => Answer::text(413, format!("the request is over {MAX_BODY} bytes")),
        },
    };
    Response::builder()
        .status(answer.status)
        .header(hyper::header::CONTENT_TYPE, answer.content_type)
        .header("x-content-type-options", "nosniff")
        .body(Full::new(Bytes::from(answer.body)))
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::from_static(b"internal error"))))
}
