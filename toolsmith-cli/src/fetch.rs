//! `toolsmith fetch`: connect to an MCP server with rmcp's client, perform the handshake and
//! print its `tools/list` result exactly as the server sent it.
//!
//! rmcp's typed `Tool` drops the fields it does not know (`execution`, vendor fields, ...), so the
//! tools are not read through it: `tools/list` is sent as a custom request and its result is
//! taken from the raw JSON-RPC response on the wire (a copy of the child's standard output, or
//! the HTTP body of that request). Each tool's object is printed with every field the server sent.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use rmcp::model::{ClientRequest, CustomRequest, RequestId};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, DuplexStream};

use crate::{emit, one_line, CliError};

fn fail(message: String) -> CliError {
    CliError { code: 2, message }
}

/// At most this many `tools/list` pages are read (a server whose cursors never end is an error).
const MAX_PAGES: usize = 1000;

/// The longest line of a server's standard error quoted in an error message, in characters.
const STDERR_LINE_MAX: usize = 200;

/// The most characters quoted of a line a server wrote to standard output that was not
/// JSON-RPC.
const STDOUT_QUOTE_MAX: usize = 80;

/// The raw `result` of each JSON-RPC response seen on the wire, by request id (its JSON text).
#[derive(Clone, Default)]
struct Raw(Arc<Mutex<HashMap<String, Value>>>);

impl Raw {
    /// Records the result of a JSON-RPC response message (anything else is ignored).
    fn record(&self, message: &Value) {
        if let (Some(id), Some(result)) = (message.get("id"), message.get("result")) {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(id.to_string(), result.clone());
        }
    }

    /// Records every message of a JSON text that is one message or a batch; whether the text
    /// is JSON-RPC (an object with `"jsonrpc"`, or a non-empty batch of them).
    fn record_text(&self, text: &[u8]) -> bool {
        let is_message = |m: &Value| m.get("jsonrpc").is_some();
        match serde_json::from_slice::<Value>(text) {
            Ok(Value::Array(batch)) => {
                batch.iter().for_each(|m| self.record(m));
                !batch.is_empty() && batch.iter().all(is_message)
            }
            Ok(message) => {
                self.record(&message);
                is_message(&message)
            }
            Err(_) => false,
        }
    }

    fn take(&self, id: &RequestId) -> Option<Value> {
        let key = serde_json::to_value(id).ok()?.to_string();
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&key)
    }
}

/// What a stdio server wrote to standard output besides JSON-RPC, for the error message of a
/// failed fetch.
#[derive(Default)]
struct Stdout {
    /// Whether a line was a JSON-RPC message.
    json_rpc: bool,
    /// The first non-blank line that was not (clipped to [`STDOUT_QUOTE_MAX`] characters, on one
    /// line).
    other: Option<String>,
}

/// [`Stdout`], shared between the reader and the one who words the failure.
type SeenOnStdout = Arc<Mutex<Stdout>>;

impl Stdout {
    /// The clause of an error message about what the server wrote to standard output (with
    /// `; ` before it), or nothing when every line was JSON-RPC.
    fn clause(seen: &SeenOnStdout) -> String {
        let seen = seen.lock().unwrap_or_else(PoisonError::into_inner);
        match (&seen.other, seen.json_rpc) {
            (None, _) => String::new(),
            (Some(line), false) => format!(
                "; it wrote `{line}` to standard output, which is not a JSON-RPC message (is it an MCP server?)"
            ),
            (Some(line), true) => format!(
                "; it wrote `{line}` to standard output, which is not a JSON-RPC message (an MCP server writes nothing else there)"
            ),
        }
    }
}

/// The lines of the server's standard output: each complete line is recorded in [`Raw`] and
/// noted in [`Stdout`].
struct Lines {
    line: Vec<u8>,
    raw: Raw,
    seen: SeenOnStdout,
}

impl Lines {
    /// Takes the next bytes of the output.
    fn feed(&mut self, mut new: &[u8]) {
        while let Some(i) = memchr::memchr(b'\n', new) {
            self.line.extend_from_slice(&new[..i]);
            self.end_line();
            new = &new[i + 1..];
        }
        self.line.extend_from_slice(new);
    }

    /// Records the line read so far, and empties it.
    fn end_line(&mut self) {
        if self.line.iter().any(|b| !b.is_ascii_whitespace()) {
            let json_rpc = self.raw.record_text(&self.line);
            let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
            if json_rpc {
                seen.json_rpc = true;
            } else if seen.other.is_none() {
                // Only the start of the line is quoted: no need to decode all of it.
                let head = &self.line[..self.line.len().min(STDOUT_QUOTE_MAX * 4 + 4)];
                let text = String::from_utf8_lossy(head);
                let mut quoted = one_line(text.trim(), STDOUT_QUOTE_MAX);
                if head.len() < self.line.len() && !quoted.ends_with('…') {
                    quoted.push('…');
                }
                seen.other = Some(quoted);
            }
        }
        self.line.clear();
    }
}

/// Reads the server's standard output to its end, passing it on to `to` (what rmcp reads) line
/// by line after [`Lines`] has recorded it, so a response is in [`Raw`] before rmcp decodes it.
/// Once rmcp stops reading (a failed handshake), the rest is still read and noted, so an error
/// message can say what the server wrote.
async fn pump_stdout(
    mut from: tokio::process::ChildStdout,
    mut to: DuplexStream,
    mut lines: Lines,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut forward = true;
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        lines.feed(&buf[..n]);
        if forward && to.write_all(&buf[..n]).await.is_err() {
            forward = false;
        }
    }
    // A last line without a line break counts too, recorded before rmcp sees the end (`to` is
    // dropped after this).
    lines.end_line();
}

/// Runs the command: a stdio server started from `command`, or a streamable-HTTP server at
/// `url`. Every failure (the server does not start, exits, answers wrongly or not within
/// `timeout` seconds) is exit code 2, and no process of the server is left running.
pub fn run(url: Option<&str>, command: &[String], timeout: f64) -> Result<u8, CliError> {
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(fail(format!(
            "--timeout must be a positive number of seconds, not {timeout}"
        )));
    }
    let limit = Duration::from_secs_f64(timeout.min(86_400.0));
    match (url, command) {
        (Some(url), []) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(fail(format!(
                    "--url must be an http:// or https:// address, not `{url}`"
                )));
            }
        }
        (None, [_, ..]) => {}
        (None, []) => {
            return Err(fail(
                "give a server: `toolsmith fetch -- COMMAND ARGS...` or `toolsmith fetch --url http://...`".into(),
            ))
        }
        (Some(_), _) => return Err(fail("give either --url or a command, not both".into())),
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| fail(format!("cannot start the async runtime: {e}")))?;
    let tools = match url {
        Some(url) => runtime.block_on(fetch_http(url, limit)),
        None => runtime.block_on(fetch_stdio(command, limit)),
    };
    // The child, if any, is killed and reaped by now; do not wait for tasks that ignore the close.
    runtime.shutdown_timeout(Duration::from_millis(500));
    let doc = json!({"tools": tools?});
    emit(&format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).expect("JSON values serialize")
    ))?;
    Ok(0)
}

/// The last non-empty line a server wrote to standard error, kept while it runs.
type LastLine = Arc<Mutex<Option<String>>>;

async fn fetch_stdio(command: &[String], limit: Duration) -> Result<Vec<Value>, CliError> {
    let what = format!("the server `{}`", command.join(" "));
    let mut cmd = tokio::process::Command::new(&command[0]);
    cmd.args(&command[1..])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    // Its own process group, so the processes it starts are ended with it.
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| fail(format!("cannot start {what}: {e}")))?;
    let (stdin, stdout, stderr) = (
        child.stdin.take().expect("piped"),
        child.stdout.take().expect("piped"),
        child.stderr.take().expect("piped"),
    );
    let last: LastLine = Arc::default();
    let stderr_task = tokio::spawn(read_stderr(stderr, last.clone()));
    let raw = Raw::default();
    let seen = SeenOnStdout::default();
    let (rmcp_side, pump_side) = tokio::io::duplex(64 * 1024);
    let lines = Lines {
        line: Vec::new(),
        raw: raw.clone(),
        seen: seen.clone(),
    };
    let stdout_task = tokio::spawn(pump_stdout(stdout, pump_side, lines));
    let failure = match handshake_and_list((rmcp_side, stdin), &raw, limit).await {
        Ok(tools) => {
            end_child(&mut child).await;
            return Ok(tools);
        }
        Err(failure) => failure,
    };
    // A server that exited before the handshake says why: its status, and its last line on
    // standard error.
    let exited = match failure {
        Failure::Handshake(_) => {
            match tokio::time::timeout(Duration::from_millis(500), child.wait()).await {
                Ok(Ok(status)) => Some(status),
                _ => None,
            }
        }
        _ => None,
    };
    end_child(&mut child).await;
    // Its output and standard error close once no process of it is left: read both to the end.
    let _ = tokio::time::timeout(Duration::from_millis(500), async {
        let _ = stdout_task.await;
        let _ = stderr_task.await;
    })
    .await;
    // What it wrote to standard output that was not JSON-RPC, for every failure.
    let stdout_said = Stdout::clause(&seen);
    let message = match (failure, exited) {
        (Failure::Handshake(_), Some(status)) => {
            let stderr_said = last
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                .map_or("it wrote nothing to standard error".to_string(), |l| {
                    format!("its last line on standard error: {l}")
                });
            format!("{what} exited ({status}) before answering `initialize`{stdout_said}; {stderr_said}")
        }
        (failure, _) => format!("{}{stdout_said}", failure.into_error(&what, limit).message),
    };
    Err(fail(message))
}

/// Ends the server: its whole process group, then the child itself, reaped.
async fn end_child(child: &mut tokio::process::Child) {
    // A server that exits on the close of its input gets a moment to do so.
    let exited = matches!(
        tokio::time::timeout(Duration::from_millis(200), child.wait()).await,
        Ok(Ok(_))
    );
    #[cfg(unix)]
    if let Some(pid) = child.id() {
        // Processes it started may outlive it in its group. The group id is the child's pid,
        // which cannot be reused while the child is not yet reaped (`id()` is `None` once it is).
        // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
        unsafe {
            libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
        }
    }
    if !exited {
        // SIGKILL, then wait: no zombie is left behind.
        let _ = child.kill().await;
    }
}

/// Keeps the last non-empty line of `stderr` (clipped to [`STDERR_LINE_MAX`] characters, on one
/// line).
async fn read_stderr(stderr: tokio::process::ChildStderr, last: LastLine) {
    let mut lines = tokio::io::BufReader::new(stderr);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match lines.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let text = String::from_utf8_lossy(&buf);
                let line = text.trim();
                if !line.is_empty() {
                    *last.lock().unwrap_or_else(PoisonError::into_inner) =
                        Some(one_line(line, STDERR_LINE_MAX));
                }
            }
        }
    }
}

/// Why a fetch failed, before it is worded for the server it was.
enum Failure {
    /// The handshake failed with this cause.
    Handshake(String),
    /// This step did not finish within the limit.
    Timeout(&'static str),
    /// `tools/list` failed; the message says how.
    List(String),
}

impl Failure {
    fn into_error(self, what: &str, limit: Duration) -> CliError {
        let secs = limit.as_secs_f64();
        fail(match self {
            Failure::Handshake(cause) => format!("the MCP handshake with {what} failed: {cause}"),
            Failure::Timeout(step) => format!("{what} did not answer {step} within {secs} s"),
            Failure::List(how) => format!("tools/list on {what} failed: {how}"),
        })
    }
}

/// Reads every page of `tools/list` (at most [`MAX_PAGES`], all within `limit`), then closes
/// the session.
/// The MCP handshake over `transport` within `limit`, then every page of `tools/list` (see
/// [`list_and_close`]): the one road of both transports.
async fn handshake_and_list<T, E, A>(
    transport: T,
    raw: &Raw,
    limit: Duration,
) -> Result<Vec<Value>, Failure>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let client = match tokio::time::timeout(limit, ().serve(transport)).await {
        Err(_) => Err(Failure::Timeout("the MCP handshake")),
        Ok(Err(e)) => Err(Failure::Handshake(cause(&e))),
        Ok(Ok(client)) => Ok(client),
    }?;
    list_and_close(client, raw, limit).await
}

async fn list_and_close(
    client: RunningService<RoleClient, ()>,
    raw: &Raw,
    limit: Duration,
) -> Result<Vec<Value>, Failure> {
    let tools = match tokio::time::timeout(limit, list_pages(&client, raw)).await {
        Err(_) => Err(Failure::Timeout("tools/list")),
        Ok(r) => r,
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), client.cancel()).await;
    tools
}

async fn list_pages(
    client: &RunningService<RoleClient, ()>,
    raw: &Raw,
) -> Result<Vec<Value>, Failure> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.as_ref().map(|c| json!({"cursor": c}));
        let request = ClientRequest::CustomRequest(CustomRequest::new("tools/list", params));
        let handle = client
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| Failure::List(e.to_string()))?;
        let id = handle.id.clone();
        handle
            .await_response()
            .await
            .map_err(|e| Failure::List(e.to_string()))?;
        let result = raw
            .take(&id)
            .ok_or_else(|| Failure::List("its response was not seen on the wire".into()))?;
        let Some(Value::Array(page)) = result.get("tools") else {
            return Err(Failure::List(format!(
                "the result has no \"tools\" array: {}",
                toolsmith_lint::walk::describe_value(&result, 6)
            )));
        };
        tools.extend(page.iter().cloned());
        match result.get("nextCursor") {
            Some(Value::String(next)) if !next.is_empty() => {
                if cursor.as_deref() == Some(next.as_str()) {
                    return Err(Failure::List(format!(
                        "the server sent the cursor {next:?} twice in a row"
                    )));
                }
                cursor = Some(next.clone());
            }
            _ => return Ok(tools),
        }
    }
    Err(Failure::List(format!(
        "more than {MAX_PAGES} pages; stopped reading"
    )))
}

/// The reqwest client of rmcp's streamable-HTTP transport, except that `tools/list` is posted
/// here so its raw result can be recorded.
#[derive(Clone)]
struct RawHttp {
    inner: reqwest::Client,
    raw: Raw,
}

type HttpError = StreamableHttpError<reqwest::Error>;

/// The event stream of a GET, as the trait names it.
type SseStream = futures_core::stream::BoxStream<
    'static,
    Result<sse_stream::Sse, rmcp::transport::streamable_http_client::SseError>,
>;

impl RawHttp {
    /// Posts a `tools/list` request; records the raw response (a JSON body or the events of an
    /// event stream) and hands rmcp the typed message.
    async fn post_list(
        &self,
        uri: Arc<str>,
        message: rmcp::model::ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let id = match &message {
            rmcp::model::JsonRpcMessage::Request(r) => serde_json::to_value(&r.id)
                .map(|v| v.to_string())
                .unwrap_or_default(),
            _ => String::new(),
        };
        let mut request = self
            .inner
            .post(uri.as_ref())
            .header(ACCEPT, "application/json, text/event-stream")
            .json(&message);
        if let Some(auth) = auth_header {
            request = request.bearer_auth(auth);
        }
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        if let Some(session) = &session_id {
            request = request.header("Mcp-Session-Id", session.as_ref());
        }
        let response = request.send().await.map_err(StreamableHttpError::Client)?;
        let status = response.status();
        if !status.is_success() {
            return Err(StreamableHttpError::UnexpectedServerResponse(
                format!("HTTP {status}").into(),
            ));
        }
        let session = response
            .headers()
            .get("Mcp-Session-Id")
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        let event_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("text/event-stream"));
        let message = self.read_answer(response, &id, event_stream).await?;
        Ok(StreamableHttpPostResponse::Json(
            serde_json::from_value(message)?,
            session,
        ))
    }

    /// Reads the answer to the request `id` from `response`: from its event stream (recording
    /// each message, and stopping at the answer), or its JSON body (recorded).
    async fn read_answer(
        &self,
        mut response: reqwest::Response,
        id: &str,
        event_stream: bool,
    ) -> Result<Value, HttpError> {
        const MAX_BODY: usize = 64 * 1024 * 1024;
        let mut body = Vec::new();
        let mut answer: Option<Value> = None;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(StreamableHttpError::Client)?
        {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_BODY {
                return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: MAX_BODY });
            }
            if event_stream {
                answer = sse_answer(&body, id, &self.raw);
                if answer.is_some() {
                    break;
                }
            }
        }
        Ok(match answer {
            Some(m) => m,
            None if event_stream => {
                return Err(StreamableHttpError::UnexpectedServerResponse(
                    "the event stream ended without the tools/list response".into(),
                ))
            }
            None => {
                let m: Value = serde_json::from_slice(&body)?;
                self.raw.record(&m);
                m
            }
        })
    }
}

/// Records the messages of the complete events in an event stream's text so far; returns the
/// response to the request `id` once it is there.
fn sse_answer(body: &[u8], id: &str, raw: &Raw) -> Option<Value> {
    let text = String::from_utf8_lossy(body).replace("\r\n", "\n");
    // Only complete events: those followed by a blank line.
    let complete = &text[..text.rfind("\n\n")?];
    for event in complete.split("\n\n") {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect();
        if data.is_empty() {
            continue;
        }
        let Ok(message) = serde_json::from_str::<Value>(&data.join("\n")) else {
            continue;
        };
        if message.get("id").map(Value::to_string).as_deref() == Some(id) {
            raw.record(&message);
            return Some(message);
        }
    }
    None
}

impl StreamableHttpClient for RawHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: rmcp::model::ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: rmcp::model::ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let is_list = matches!(
            &message,
            rmcp::model::JsonRpcMessage::Request(r)
                if matches!(&r.request, ClientRequest::CustomRequest(c) if c.method == "tools/list")
        );
        if is_list {
            return self
                .post_list(uri, message, session_id, auth_header, custom_headers)
                .await;
        }
        self.inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<SseStream, HttpError> {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }
}

async fn fetch_http(url: &str, limit: Duration) -> Result<Vec<Value>, CliError> {
    let what = format!("the server at {url}");
    let raw = Raw::default();
    let client = RawHttp {
        inner: reqwest::Client::new(),
        raw: raw.clone(),
    };
    let transport = StreamableHttpClientTransport::with_client(
        client,
        StreamableHttpClientTransportConfig::with_uri(url.to_string()),
    );
    let result = handshake_and_list(transport, &raw, limit).await;
    match result {
        Ok(tools) => Ok(tools),
        Err(Failure::Handshake(cause)) => {
            Err(fail(match tokio::time::timeout(limit, probe(url)).await {
                Ok(Some(what_happened)) => what_happened,
                _ => format!("the MCP handshake with {what} failed: {cause}"),
            }))
        }
        Err(other) => Err(other.into_error(&what, limit)),
    }
}

/// After a failed handshake over HTTP: what the URL does with an `initialize` request, in
/// words, when that explains the failure (nothing listens, or it is no MCP endpoint).
async fn probe(url: &str) -> Option<String> {
    let body = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "toolsmith", "version": env!("CARGO_PKG_VERSION")}},
    });
    let response = reqwest::Client::new()
        .post(url)
        .header(ACCEPT, "application/json, text/event-stream")
        .json(&body)
        .send()
        .await;
    match response {
        Err(e) if e.is_connect() => Some(format!(
            "nothing listens at {url} (connection refused or unreachable)"
        )),
        Err(_) => None,
        Ok(r) if !r.status().is_success() => Some(format!(
            "{url} answered HTTP {}; it is not an MCP endpoint (check the path, e.g. /mcp)",
            r.status()
        )),
        Ok(r) => {
            let ct = r
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("none")
                .to_string();
            (!(ct.starts_with("application/json") || ct.starts_with("text/event-stream"))).then(
                || {
                    format!(
                        "{url} answered HTTP {} with content type {ct}; it is not an MCP endpoint",
                        r.status()
                    )
                },
            )
        }
    }
}

/// An error's message without the transport's type name (`Transport [rmcp::...<...>] error:`),
/// which says nothing to a user.
fn cause(e: &dyn std::error::Error) -> String {
    let text = e.to_string();
    let Some(start) = text.find("Transport [") else {
        return text;
    };
    let mut depth = 0usize;
    for (i, c) in text[start..].char_indices() {
        match c {
            '[' | '<' => depth += 1,
            ']' | '>' => {
                depth -= 1;
                if depth == 0 && c == ']' {
                    let rest = text[start + i + 1..].trim_start();
                    let rest = rest.strip_prefix("error: ").unwrap_or(rest);
                    return format!("{}{rest}", &text[..start]);
                }
            }
            _ => {}
        }
    }
    text
}
