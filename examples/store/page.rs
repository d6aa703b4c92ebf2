//! The store's page for people: the product search and add-to-cart tools as forms
//! (`toolsmith::ui`), rendered from the very specs the model reads. In a browser with WebMCP the
//! forms are declarative tools too, so a person and an agent use the same form, and both reach
//! the toolbox through the same pipeline (validation, policy, audit).
//!
//! `respond` answers one request (the tests call it directly); `serve` runs it over HTTP/1.1 on a
//! listener the caller binds (127.0.0.1 in the example and the tests).

use std::sync::Arc;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use toolsmith::ui::{self, FormOptions};
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

/// Answers one request. `query` is the request's query string, `content_type` its header.
pub async fn respond(
    toolbox: &Toolbox,
    method: &str,
    path: &str,
    query: Option<&str>,
    content_type: Option<&str>,
    body: &[u8],
) -> Answer {
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

/// Serves the page on `listener` until the task is dropped.
pub async fn serve(
    toolbox: Arc<Toolbox>,
    listener: tokio::net::TcpListener,
) -> std::io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        let toolbox = Arc::clone(&toolbox);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let toolbox = Arc::clone(&toolbox);
                async move { Ok::<_, std::convert::Infallible>(handle(&toolbox, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn handle(toolbox: &Toolbox, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let method = req.method().as_str().to_string();
    let path = req.uri().path().to_string();
    let query = req.uri().query().map(str::to_string);
    let content_type = req
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let answer = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(body) => {
            let bytes = body.to_bytes();
            respond(
                toolbox,
                &method,
                &path,
                query.as_deref(),
                content_type.as_deref(),
                &bytes,
            )
            .await
        }
        Err(_) => Answer::text(413, format!("the request is over {MAX_BODY} bytes")),
    };
    Response::builder()
        .status(answer.status)
        .header(hyper::header::CONTENT_TYPE, answer.content_type)
        .header("x-content-type-options", "nosniff")
        .body(Full::new(Bytes::from(answer.body)))
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::from_static(b"internal error"))))
}
