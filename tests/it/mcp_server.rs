//! The MCP server (`toolsmith::mcp`, feature `mcp`) driven by rmcp's own client over an
//! in-memory stdio-like stream and over streamable HTTP on 127.0.0.1, and by raw JSON-RPC where
//! the wire itself is the point (cancellation, progress, bad input at the protocol edge).
//!
//! One test per protocol revision (2025-06-18, 2025-11-25, 2026-07-28) checks the version every
//! client settles on and the `tools/list` result it receives against the golden file of the
//! revision in `tests/golden/mcp/`.
//!
//! At the end: how a stream session ends when its client closes its side (with a
//! `subscriptions/listen` stream open, as one is asked for, during a call that reports
//! progress) and how HTTP shutdown ends an open stream; and kept results served as resources
//! (`resource_link` in a cut result, `resources/read` by its caller only).
//!
//! No Python here: `tests/it/mcp_interop.rs` runs the official Python SDK against the example
//! server.

use crate::workspace_tools as tools;

use crate::fixture;

use fixture::{tool_validator, workspace_file, Dir};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ErrorCode, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceError};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Notify;
use toolsmith::approval::sync_approver;
use toolsmith::audit::{AuditEvent, MemorySink};
use toolsmith::export::ENVELOPE_META_KEY;
use toolsmith::mcp::McpServer;
use toolsmith::Approval;
use toolsmith::{tool, Caller, Policy, Progress, Toolbox};

/// A generous bound on every wait, so a broken server fails the test instead of hanging it.
const BOUND: Duration = Duration::from_secs(30);

/// What the slow tool signals: that it started, and that its future was dropped.
#[derive(Default)]
struct Probe {
    started: Notify,
    dropped: Notify,
    was_dropped: AtomicBool,
}

struct DropFlag<'a>(&'a Probe);

impl Drop for DropFlag<'_> {
    fn drop(&mut self) {
        self.0.was_dropped.store(true, Ordering::SeqCst);
        self.0.dropped.notify_one();
    }
}

/// Waits until cancelled. Returns nothing, ever.
#[tool(read_only)]
async fn wait_forever(#[context] probe: &Probe) -> u32 {
    let _flag = DropFlag(probe);
    probe.started.notify_one();
    std::future::pending::<u32>().await
}

/// Counts to three, reporting progress after each step. Returns 3.
#[tool(read_only)]
async fn count_three(#[context] progress: &Progress) -> u32 {
    for i in 1..=3u32 {
        tokio::task::yield_now().await;
        progress.report(f64::from(i), Some(3.0), Some("counting"));
    }
    3
}

/// Says the server is up. Returns the text "served".
#[tool(read_only)]
fn get_marker() -> &'static str {
    "served"
}

fn toolbox(dir: &Dir, probe: Arc<Probe>, policy: Policy) -> Arc<Toolbox> {
    toolbox_audited(dir, probe, policy, Arc::new(MemorySink::new()))
}

/// The test toolbox, its audit trail in `sink`.
fn toolbox_audited(
    dir: &Dir,
    probe: Arc<Probe>,
    policy: Policy,
    sink: Arc<MemorySink>,
) -> Arc<Toolbox> {
    let ws = Arc::new(tools::Workspace::open(dir.root()).unwrap());
    Arc::new(
        Toolbox::builder()
            .tools(tools::tools())
            .tool(wait_forever::tool())
            .tool(count_three::tool())
            .shared_context(Arc::clone(&ws))
            .shared_context(probe)
            .hooks(tools::boundary_hooks(ws))
            .shared_approver(sync_approver(|_| Approval::Approved))
            .policy(policy)
            .shared_audit(sink)
            .build()
            .unwrap(),
    )
}

/// The client side: records list_changed and progress notifications.
#[derive(Clone)]
struct Watcher {
    version: ProtocolVersion,
    list_changed: Arc<Notify>,
}

impl Watcher {
    fn new(version: ProtocolVersion) -> Self {
        Watcher {
            version,
            list_changed: Arc::new(Notify::new()),
        }
    }
}

impl ClientHandler for Watcher {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = self.version.clone();
        info
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }
}

fn args(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("arguments are objects"),
    }
}

async fn call(
    client: &RunningService<RoleClient, Watcher>,
    name: &'static str,
    arguments: Value,
) -> Result<CallToolResult, ServiceError> {
    tokio::time::timeout(
        BOUND,
        client.call_tool(CallToolRequestParams::new(name).with_arguments(args(arguments))),
    )
    .await
    .expect("the server answers within the bound")
}

fn text_of(result: &CallToolResult) -> String {
    let v = serde_json::to_value(result).unwrap();
    v["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Compares the tools a client listed with the `tools` of the committed
/// `tests/golden/mcp/tools-list-<version>.json` (written by the revision's own test with
/// `TOOLSMITH_UPDATE_SNAPSHOTS=1`; this check skips in that mode).
#[track_caller]
fn check_listed_golden(listed: &[Value], version: &str) {
    if toolsmith::export::update_requested() {
        return;
    }
    let rel = format!("tests/golden/mcp/tools-list-{version}.json");
    let path = crate::workspace().join(&rel);
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("{rel}: {e}. Run with TOOLSMITH_UPDATE_SNAPSHOTS=1, review and commit it.")
        }))
        .unwrap_or_else(|e| panic!("{rel}: {e}"));
    let expected = expected["tools"].as_array().expect("a tools list");
    for (i, (e, a)) in expected.iter().zip(listed).enumerate() {
        assert_eq!(a, e, "tools/list ({version}) item {i} differs from {rel}");
    }
    assert_eq!(
        listed.len(),
        expected.len(),
        "tools/list ({version}) has another number of tools than {rel}"
    );
}

/// The checks every transport and version must pass.
async fn session_checks(
    client: &RunningService<RoleClient, Watcher>,
    toolbox: &Toolbox,
    dir: &Dir,
    version: &str,
) {
    // tools/list: the export for the negotiated version, valid against the official schema.
    let tools = tokio::time::timeout(BOUND, client.list_all_tools())
        .await
        .unwrap()
        .unwrap();
    let listed: Vec<Value> = tools
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    let v = match version {
        "2025-06-18" => toolsmith::export::McpVersion::V2025_06_18,
        "2025-11-25" => toolsmith::export::McpVersion::V2025_11_25,
        _ => toolsmith::export::McpVersion::V2026_07_28,
    };
    // The reviewed list: the committed golden file, and the workspace example's reviewed
    // export for its three tools (kept by tests/it/tool_specs.rs).
    check_listed_golden(&listed, version);
    let reviewed = workspace_file(&format!(
        "tests/golden/examples/workspace/mcp-{version}.json"
    ));
    let reviewed = reviewed["tools"].as_array().expect("a tools list");
    assert_eq!(reviewed.len(), 3, "{version}");
    for tool in reviewed {
        let served = listed.iter().find(|t| t["name"] == tool["name"]);
        assert_eq!(served, Some(tool), "{version}: {}", tool["name"]);
    }
    // And what the server lists is the toolbox's export for the version.
    let export = toolbox.export(toolsmith::export::Target::Mcp(v)).unwrap();
    assert_eq!(Value::Array(listed.clone()), export["tools"], "{version}");
    let validator = tool_validator(version);
    for tool in &listed {
        let errors: Vec<String> = validator.iter_errors(tool).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{version} {}: {errors:?}", tool["name"]);
    }
    let output_schema = |name: &str| {
        let t = listed.iter().find(|t| t["name"] == name).unwrap();
        jsonschema::validator_for(&t["outputSchema"]).unwrap()
    };

    // Reading a file.
    let read = call(client, "read_file", json!({"path": "notes/todo.md"}))
        .await
        .unwrap();
    assert_eq!(read.is_error, Some(false));
    let structured = read.structured_content.clone().unwrap();
    assert_eq!(structured["content"], "# Todo\n- TODO: pack the tent\n");
    assert!(output_schema("read_file").is_valid(&structured));
    // A plain ok: the text is the structured data's JSON, and there is no `_meta`.
    let text: Value = serde_json::from_str(&text_of(&read)).unwrap();
    assert_eq!(text, structured);
    assert!(read.meta.is_none(), "{:?}", read.meta);

    // An invalid argument: a result from 2025-11-25 on, a protocol error in 2025-06-18; the
    // parameter's description is quoted either way.
    let bad = call(
        client,
        "read_file",
        json!({"path": "notes/todo.md", "max_bytes": 0}),
    )
    .await;
    let description = "Largest file size to read";
    if version == "2025-06-18" {
        let Err(ServiceError::McpError(e)) = bad else {
            panic!("{version}: expected a protocol error, got {bad:?}")
        };
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert!(e.message.contains(description), "{}", e.message);
    } else {
        let bad = bad.unwrap();
        assert_eq!(bad.is_error, Some(true));
        assert!(text_of(&bad).contains(description), "{}", text_of(&bad));
        let structured = bad.structured_content.clone().unwrap();
        assert_eq!(structured, json!({"status": "invalid_input"}));
        assert!(output_schema("read_file").is_valid(&structured));
        // Every outcome but a plain ok carries the envelope without its data in `_meta`.
        let meta = bad.meta.as_ref().expect("_meta on an invalid_input result");
        assert_eq!(meta.0[ENVELOPE_META_KEY]["status"], "invalid_input");
        assert!(meta.0[ENVELOPE_META_KEY]["code"].is_string(), "{meta:?}");
    }

    // Path attacks: denied, conforming, and no host path anywhere.
    for (path, what) in dir.attacks() {
        let r = call(client, "read_file", json!({ "path": path }))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(true), "{what}");
        let structured = r.structured_content.clone().unwrap();
        assert_eq!(structured["status"], "denied", "{what}: {}", text_of(&r));
        assert!(output_schema("read_file").is_valid(&structured), "{what}");
        let wire = serde_json::to_string(&r).unwrap();
        assert!(!wire.contains("SECRET-OUTSIDE"), "{what}");
        for host in dir.host_paths() {
            assert!(!wire.contains(&host), "{what}: host path in {wire}");
        }
    }

    // An unknown tool is a protocol error naming the tools that exist.
    let unknown = call(client, "no_such_tool", json!({})).await;
    let Err(ServiceError::McpError(e)) = unknown else {
        panic!("expected a protocol error, got {unknown:?}")
    };
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    assert!(e.message.contains("\"read_file\""), "{}", e.message);
}

async fn list_changed_after_register(
    client: &RunningService<RoleClient, Watcher>,
    toolbox: &Toolbox,
) {
    let notified = client.service().list_changed.clone();
    toolbox.register(get_marker::tool()).unwrap();
    tokio::time::timeout(BOUND, notified.notified())
        .await
        .expect("list_changed arrives after a register");
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "get_marker"));
    toolbox.deregister("get_marker").unwrap();
    tokio::time::timeout(BOUND, notified.notified())
        .await
        .expect("list_changed arrives after a retirement");
    let tools = client.list_all_tools().await.unwrap();
    assert!(!tools.iter().any(|t| t.name == "get_marker"));
}

/// 2026-07-28 has no session-wide notifications: list_changed arrives on a `subscriptions/listen`
/// stream that asked for it.
async fn list_changed_on_a_subscription(
    client: &RunningService<RoleClient, Watcher>,
    toolbox: &Toolbox,
) {
    use rmcp::model::{ServerNotification, SubscriptionFilter};
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut subscription = tokio::time::timeout(BOUND, client.listen(filter))
        .await
        .unwrap()
        .unwrap();
    for (change, listed) in [(true, true), (false, false)] {
        if change {
            toolbox.register(get_marker::tool()).unwrap();
        } else {
            toolbox.deregister("get_marker").unwrap();
        }
        let notification = tokio::time::timeout(BOUND, subscription.next())
            .await
            .expect("list_changed arrives on the subscription")
            .unwrap();
        assert!(
            matches!(
                notification,
                Some(ServerNotification::ToolListChangedNotification(_))
            ),
            "{notification:?}"
        );
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(tools.iter().any(|t| t.name == "get_marker"), listed);
    }
    subscription.cancel().await.unwrap();
}

/// The lifecycle rmcp's client of `version` opens with: `initialize` up to 2025-11-25; from
/// 2026-07-28, which has no handshake, `server/discover` and the version in every request.
fn lifecycle_of(version: &ProtocolVersion) -> rmcp::service::ClientLifecycleMode {
    if version.has_initialize() {
        rmcp::service::ClientLifecycleMode::Initialize
    } else {
        rmcp::service::ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        }
    }
}

/// The session checks and list_changed for rmcp's client of `version` on `transport`.
async fn every_version_checks<T, E, A>(
    version: ProtocolVersion,
    transport: T,
    toolbox: &Toolbox,
    dir: &Dir,
) where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let client = rmcp::service::serve_client_with_lifecycle(
        Watcher::new(version.clone()),
        transport,
        lifecycle_of(&version),
    )
    .await
    .unwrap();
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        version,
        "the server agrees to the client's version"
    );
    session_checks(&client, toolbox, dir, version.as_str()).await;
    if version.has_initialize() {
        list_changed_after_register(&client, toolbox).await;
    } else {
        list_changed_on_a_subscription(&client, toolbox).await;
    }
    client.cancel().await.unwrap();
}

const VERSIONS: [ProtocolVersion; 3] = [
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

#[tokio::test]
async fn rmcp_client_over_a_stdio_stream_in_every_version() {
    for version in VERSIONS {
        let dir = Dir::new("stdio");
        let tb = toolbox(&dir, Arc::default(), Policy::allow_all());
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        let server = tokio::spawn(McpServer::new(Arc::clone(&tb)).serve(server_end));
        every_version_checks(version, client_end, &tb, &dir).await;
        tokio::time::timeout(BOUND, server)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
    }
}

#[tokio::test]
async fn rmcp_client_over_streamable_http_in_every_version() {
    for version in VERSIONS {
        let dir = Dir::new("http");
        let tb = toolbox(&dir, Arc::default(), Policy::allow_all());
        let http = McpServer::new(Arc::clone(&tb))
            .bind_http("127.0.0.1:0")
            .await
            .unwrap();
        let transport =
            rmcp::transport::StreamableHttpClientTransport::from_uri(http.url().as_str());
        every_version_checks(version, transport, &tb, &dir).await;
        http.shutdown().await;
    }
}

// ------------------------------------------------------------------ raw JSON-RPC over a stream

struct Raw {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    /// Every message received, in order.
    seen: Vec<Value>,
}

impl Raw {
    /// A connection to a fresh server for `toolbox`, after a 2025-11-25 handshake.
    async fn start(toolbox: Arc<Toolbox>) -> Raw {
        let mut raw = Raw::connect(toolbox);
        raw.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        )
        .await;
        raw.response(1).await;
        raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        raw
    }

    /// A connection to a fresh server for `toolbox`, before any message.
    fn connect(toolbox: Arc<Toolbox>) -> Raw {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        tokio::spawn(McpServer::new(toolbox).serve(server_end));
        let (read, write) = tokio::io::split(client_end);
        Raw {
            write,
            lines: BufReader::new(read).lines(),
            seen: Vec::new(),
        }
    }

    async fn send(&mut self, message: Value) {
        self.send_text(&message.to_string()).await;
    }

    async fn send_text(&mut self, text: &str) {
        self.write.write_all(text.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
        self.write.flush().await.unwrap();
    }

    /// Reads until the response (result or error) to `id`.
    async fn response(&mut self, id: u64) -> Value {
        tokio::time::timeout(BOUND, async {
            loop {
                let line = self
                    .lines
                    .next_line()
                    .await
                    .unwrap()
                    .expect("the server is up");
                let message: Value = serde_json::from_str(&line).unwrap();
                self.seen.push(message.clone());
                if message["id"] == id && message.get("method").is_none() {
                    return message;
                }
            }
        })
        .await
        .expect("the response arrives within the bound")
    }
}

#[tokio::test]
async fn cancellation_drops_the_call_sends_nothing_for_it_and_the_next_call_is_served() {
    let dir = Dir::new("cancel");
    let probe = Arc::new(Probe::default());
    let sink = Arc::new(MemorySink::new());
    let tb = toolbox_audited(
        &dir,
        Arc::clone(&probe),
        Policy::allow_all(),
        Arc::clone(&sink),
    );
    let mut raw = Raw::start(tb).await;
    raw.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "wait_forever", "arguments": {}}}))
        .await;
    tokio::time::timeout(BOUND, probe.started.notified())
        .await
        .expect("the slow tool starts");
    raw.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "the user moved on"}}),
    )
    .await;
    tokio::time::timeout(BOUND, probe.dropped.notified())
        .await
        .expect("the tool's future is dropped");
    assert!(probe.was_dropped.load(Ordering::SeqCst));
    // The audit records the call as cancelled (written as the call's future is dropped).
    let cancelled = tokio::time::timeout(BOUND, async {
        loop {
            let found = sink
                .records()
                .into_iter()
                .find(|r| r.event == AuditEvent::Call && r.tool == "wait_forever");
            if let Some(rec) = found {
                return rec;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the cancelled call leaves an audit record");
    assert_eq!(cancelled.code.as_deref(), Some(toolsmith::codes::CANCELLED));
    assert_eq!(cancelled.status, None, "{cancelled:?}");
    // The next call is served, and a ping after it: nothing answered request 2 in between.
    raw.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "read_file", "arguments": {"path": "notes/todo.md"}}}))
        .await;
    let read = raw.response(3).await;
    assert_eq!(read["result"]["isError"], false);
    raw.send(json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}))
        .await;
    raw.response(4).await;
    assert!(
        raw.seen.iter().all(|m| m["id"] != 2),
        "a message was sent for the cancelled request: {:?}",
        raw.seen
    );
}

#[tokio::test]
async fn progress_reports_become_notifications_only_when_the_client_sent_a_token() {
    let dir = Dir::new("progress");
    let mut raw = Raw::start(toolbox(&dir, Arc::default(), Policy::allow_all())).await;
    raw.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "count_three", "arguments": {}, "_meta": {"progressToken": "tok-7"}}}))
        .await;
    let done = raw.response(2).await;
    assert_eq!(done["result"]["structuredContent"], json!({"result": 3}));
    let progress: Vec<&Value> = raw
        .seen
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    let values: Vec<f64> = progress
        .iter()
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [1.0, 2.0, 3.0]);
    assert!(progress
        .iter()
        .all(|m| m["params"]["progressToken"] == "tok-7"
            && m["params"]["total"] == 3.0
            && m["params"]["message"] == "counting"));
    // Without a token the same reports go nowhere.
    let before = raw.seen.len();
    raw.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "count_three", "arguments": {}}}))
        .await;
    raw.response(3).await;
    assert!(raw.seen[before..]
        .iter()
        .all(|m| m["method"] != "notifications/progress"));
}

#[tokio::test]
async fn malformed_json_rpc_and_unknown_methods_get_protocol_errors_and_serving_goes_on() {
    let dir = Dir::new("edge-stdio");
    let mut raw = Raw::start(toolbox(&dir, Arc::default(), Policy::allow_all())).await;
    raw.send(json!({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}))
        .await;
    let unknown = raw.response(2).await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    raw.send_text("{this is not json").await;
    raw.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
        .await;
    let listed = raw.response(3).await;
    assert!(listed["result"]["tools"].as_array().unwrap().len() >= 3);
}

// ---------------------------------------------------------------------- raw HTTP

/// A minimal streamable-HTTP session: initialize, then requests with the session header.
struct HttpSession {
    http: reqwest::Client,
    url: String,
    session: Option<String>,
}

/// The JSON-RPC messages in a response body (plain JSON or server-sent events).
fn messages(body: &str) -> Vec<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        return vec![v];
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

impl HttpSession {
    async fn start(url: String, headers: &[(&str, &str)]) -> HttpSession {
        let mut s = HttpSession {
            http: reqwest::Client::new(),
            url,
            session: None,
        };
        let (status, headers_back, _) = s
            .post(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "raw-http", "version": "1"}}})
                .to_string(),
                headers,
            )
            .await;
        assert!(status.is_success(), "{status}");
        s.session = headers_back
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_string());
        let (status, _, _) = s
            .post(
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
                headers,
            )
            .await;
        assert!(status.is_success(), "{status}");
        s
    }

    async fn post(
        &self,
        body: &str,
        headers: &[(&str, &str)],
    ) -> (reqwest::StatusCode, reqwest::header::HeaderMap, String) {
        let mut req = self.http.post(&self.url);
        if let Some(s) = &self.session {
            req = req
                .header("mcp-session-id", s)
                .header("mcp-protocol-version", "2025-11-25");
        }
        send_post(req, body, headers).await
    }

    async fn call(&self, id: u64, name: &str, arguments: Value, headers: &[(&str, &str)]) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}});
        let (_, _, text) = self.post(&body.to_string(), headers).await;
        messages(&text)
            .into_iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no response to {id} in {text}"))
    }
}

#[tokio::test]
async fn over_http_bad_bodies_get_protocol_errors_and_serving_goes_on() {
    let dir = Dir::new("edge-http");
    let tb = toolbox(&dir, Arc::default(), Policy::allow_all());
    let http = McpServer::new(tb).bind_http("127.0.0.1:0").await.unwrap();
    let s = HttpSession::start(http.url(), &[]).await;

    let (status, _, text) = s.post("{this is not json", &[]).await;
    assert!(status.is_client_error(), "{status}: {text}");
    let unknown = json!({"jsonrpc": "2.0", "id": 5, "method": "no/such/method"}).to_string();
    let (_, _, text) = s.post(&unknown, &[]).await;
    let answer = messages(&text).into_iter().find(|m| m["id"] == 5).unwrap();
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"read_file","arguments":{{"path":"{}"}}}}}}"#,
        "a".repeat(toolsmith::mcp::MAX_REQUEST_BODY_BYTES + 1)
    );
    let (status, _, _) = s.post(&huge, &[]).await;
    assert_eq!(status, reqwest::StatusCode::PAYLOAD_TOO_LARGE);
    let (status, _, _) = s
        .http
        .get(format!("http://{}/elsewhere", http.local_addr()))
        .send()
        .await
        .map(|r| (r.status(), (), ()))
        .unwrap();
    assert_eq!(status, reqwest::StatusCode::NOT_FOUND);
    // rmcp's transport settings apply to every request: a foreign `Host` is refused (DNS
    // rebinding), and the next request is served as usual.
    let ping = json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}).to_string();
    let (status, _, _) = s.post(&ping, &[("host", "attacker.example")]).await;
    assert_eq!(status, reqwest::StatusCode::FORBIDDEN);

    let read = s
        .call(7, "read_file", json!({"path": "notes/todo.md"}), &[])
        .await;
    assert_eq!(read["result"]["isError"], false, "{read}");
    http.shutdown().await;
}

#[tokio::test]
async fn over_http_the_host_maps_each_request_to_its_caller() {
    let dir = Dir::new("caller");
    // Only identified callers may use any tool; anonymous ones are denied.
    let tb = toolbox(&dir, Arc::default(), Policy::allow_all().require_identity());
    let http = McpServer::new(tb)
        .caller_from_http(|parts| match parts.headers.get("x-user") {
            Some(user) => Caller::new(user.to_str().unwrap_or("unknown")),
            None => Caller::anonymous(),
        })
        .bind_http("127.0.0.1:0")
        .await
        .unwrap();
    let s = HttpSession::start(http.url(), &[]).await;
    let args = json!({"path": "notes/todo.md"});
    let ann = s
        .call(2, "read_file", args.clone(), &[("x-user", "ann")])
        .await;
    assert_eq!(ann["result"]["isError"], false, "{ann}");
    let anonymous = s.call(3, "read_file", args, &[]).await;
    assert_eq!(anonymous["result"]["isError"], true, "{anonymous}");
    assert_eq!(anonymous["result"]["structuredContent"]["status"], "denied");
    http.shutdown().await;
}

#[tokio::test]
async fn over_http_shutdown_cancels_calls_in_progress_and_closes_every_connection() {
    use tokio::io::AsyncReadExt;
    let dir = Dir::new("shutdown");
    let probe = Arc::new(Probe::default());
    let tb = toolbox(&dir, Arc::clone(&probe), Policy::allow_all());
    let http = McpServer::new(tb).bind_http("127.0.0.1:0").await.unwrap();
    let addr = http.local_addr();
    let s = HttpSession::start(http.url(), &[]).await;
    // An idle connection kept alive after its answer.
    let mut idle = tokio::net::TcpStream::connect(addr).await.unwrap();
    idle.write_all(b"GET /elsewhere HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0u8; 512];
    let n = tokio::time::timeout(BOUND, idle.read(&mut answer))
        .await
        .unwrap()
        .unwrap();
    assert!(
        answer[..n].starts_with(b"HTTP/1.1 404"),
        "{:?}",
        &answer[..n]
    );
    // A call that never ends on its own.
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "wait_forever", "arguments": {}}});
    let request = s
        .http
        .post(&s.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", s.session.clone().unwrap())
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    let slow = tokio::spawn(async move { request.send().await?.text().await });
    tokio::time::timeout(BOUND, probe.started.notified())
        .await
        .expect("the slow tool starts");
    tokio::time::timeout(BOUND, http.shutdown())
        .await
        .expect("shutdown ends within its grace");
    // The session's end drops the call in its own task: wait for it (a permit is kept if it
    // came first).
    tokio::time::timeout(BOUND, probe.dropped.notified())
        .await
        .expect("the call in progress is dropped");
    assert!(probe.was_dropped.load(Ordering::SeqCst));
    // The idle connection is closed (end of stream, or a reset), and nothing listens any more.
    let closed = tokio::time::timeout(BOUND, idle.read(&mut answer))
        .await
        .expect("the idle connection is closed");
    assert!(matches!(closed, Ok(0) | Err(_)), "{closed:?}");
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
    // The client of the slow call gets no answer for it (its stream ended without one).
    let ended = tokio::time::timeout(BOUND, slow)
        .await
        .expect("the call's request ends")
        .unwrap();
    if let Ok(text) = ended {
        assert!(
            messages(&text).iter().all(|m| m["id"] != 2),
            "an answer was sent for the dropped call: {text}"
        );
    }
}

// ------------------------------------------------------------ one test per protocol revision
//
// Each revision the server speaks, as a client of that revision sees it: rmcp's client and raw
// JSON-RPC, over a stdio-like stream and over streamable HTTP on 127.0.0.1. The version is
// asserted exactly, and the `tools/list` result every client receives is the committed golden
// file of its revision, `tests/golden/mcp/tools-list-<revision>.json`
// (`TOOLSMITH_UPDATE_SNAPSHOTS=1` rewrites them; review the diff).
//
// The 2025 revisions negotiate in the `initialize` handshake, whose result names the version.
// 2026-07-28 has no handshake: the client names its version in every request's `_meta`
// (`io.modelcontextprotocol/protocolVersion`, required beside `clientCapabilities`), over HTTP
// also in the `MCP-Protocol-Version` header (with `Mcp-Method`) and without a session; it may
// first ask `server/discover` which versions the server supports.

/// The revisions the server speaks, oldest first, as `server/discover` lists them.
const REVISIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// Whether `version` opens with the `initialize` handshake (the revisions before 2026-07-28).
fn has_initialize(version: &str) -> bool {
    version < "2026-07-28"
}

/// The `_meta` a 2026-07-28 client sends with every request.
fn request_meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    })
}

fn initialize_request(id: u64, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

/// A request of the 2026-07-28 lifecycle: `params` with the request `_meta` of `version`.
fn inline_request(id: u64, method: &str, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method,
        "params": {"_meta": request_meta(version)}})
}

/// Asserts `value` conforms to the definition `name` of the official schema of `version`.
#[track_caller]
fn assert_conforms(version: &str, name: &str, value: &Value) {
    let validator = fixture::definition_validator(version, name);
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{version} {name}: {errors:?}\n{value}");
}

/// The checks of a `tools/list` result that do not need the golden file: the official
/// `ListToolsResult` of the revision, and the fields that differ between revisions.
#[track_caller]
fn assert_revision_shape(version: &str, list: &Value) {
    assert_conforms(version, "ListToolsResult", list);
    let mut keys: Vec<&str> = list
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    let search_text = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "search_text")
        .expect("search_text is listed");
    if has_initialize(version) {
        // No `resultType` and no cache hints before 2026-07-28, and every output schema is an
        // object (a list result is wrapped as `{"result": [...]}`).
        assert_eq!(keys, ["tools"], "{version}");
        assert_eq!(search_text["outputSchema"]["type"], "object", "{version}");
    } else {
        assert_eq!(
            keys,
            ["cacheScope", "resultType", "tools", "ttlMs"],
            "{version}"
        );
        assert_eq!(list["resultType"], "complete");
        // The list is built on every request (`ttlMs` 0) for this caller only (`private`).
        assert_eq!(list["ttlMs"], 0);
        assert_eq!(list["cacheScope"], "private");
        // Any JSON value may be a tool's output: the list of matches is not wrapped.
        assert!(
            search_text["outputSchema"].get("type").is_none(),
            "{search_text}"
        );
    }
}

/// How a test uses a golden file under `TOOLSMITH_UPDATE_SNAPSHOTS=1`.
#[derive(PartialEq)]
enum Golden {
    /// The revision's own test: it rewrites the file.
    Writes,
    /// Another test: it skips the comparison (the file is being rewritten).
    Reads,
}

/// `list` is the committed `tools/list` result of `version`; with
/// `TOOLSMITH_UPDATE_SNAPSHOTS=1` the revision's own test writes it instead.
#[track_caller]
fn assert_golden_tools_list(version: &str, list: &Value, golden: Golden) {
    let path = crate::workspace().join(format!("tests/golden/mcp/tools-list-{version}.json"));
    let actual = serde_json::to_string_pretty(list).unwrap() + "\n";
    if toolsmith::export::update_requested() {
        if golden == Golden::Reads {
            return;
        }
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; TOOLSMITH_UPDATE_SNAPSHOTS=1 writes it",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "{}: the tools/list result differs from the golden file\n--- expected\n{expected}\n+++ actual\n{actual}\n\
         If the change is intended, rerun with TOOLSMITH_UPDATE_SNAPSHOTS=1 and review the diff.",
        path.display()
    );
}

/// The `tools/list` result a raw client of `version` receives over a stdio-like stream, after
/// the version is settled: `initialize` (2025) or `server/discover` (2026-07-28).
async fn raw_stdio_tools_list(toolbox: Arc<Toolbox>, version: &str) -> Value {
    let mut raw = Raw::connect(toolbox);
    if has_initialize(version) {
        raw.send(initialize_request(1, version)).await;
        let init = raw.response(1).await;
        assert_eq!(init["result"]["protocolVersion"], version, "{init}");
        assert_conforms(version, "InitializeResult", &init["result"]);
        raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        raw.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
            .await;
    } else {
        raw.send(inline_request(1, "server/discover", version))
            .await;
        let discovered = raw.response(1).await;
        assert_eq!(
            discovered["result"]["supportedVersions"],
            json!(REVISIONS),
            "{discovered}"
        );
        assert_conforms(version, "DiscoverResult", &discovered["result"]);
        raw.send(inline_request(2, "tools/list", version)).await;
    }
    let list = raw.response(2).await;
    assert!(list.get("error").is_none(), "{version}: {list}");
    list["result"].clone()
}

/// One POST of `body` to `url`: the status, the headers and the JSON-RPC messages of the body.
async fn http_post(
    url: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> (reqwest::StatusCode, reqwest::header::HeaderMap, Vec<Value>) {
    let (status, headers, text) =
        send_post(reqwest::Client::new().post(url), &body.to_string(), headers).await;
    (status, headers, messages(&text))
}

/// Sends `req` with `body` as a JSON-RPC POST with `headers`: the status, the headers and the
/// body's text.
async fn send_post(
    req: reqwest::RequestBuilder,
    body: &str,
    headers: &[(&str, &str)],
) -> (reqwest::StatusCode, reqwest::header::HeaderMap, String) {
    let mut req = req
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = tokio::time::timeout(BOUND, req.send())
        .await
        .unwrap()
        .unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let text = tokio::time::timeout(BOUND, res.text())
        .await
        .unwrap()
        .unwrap();
    (status, headers, text)
}

/// The response to `id` among `messages`.
#[track_caller]
fn response_to(messages: &[Value], id: u64) -> Value {
    messages
        .iter()
        .find(|m| m["id"] == id && m.get("method").is_none())
        .unwrap_or_else(|| panic!("no response to {id} in {messages:?}"))
        .clone()
}

/// Opens a session of a 2025 `version` at `url` over raw HTTP (`initialize`, its result
/// checked against the official schema, then `notifications/initialized`): its
/// `Mcp-Session-Id`.
async fn open_http_session(url: &str, version: &str) -> String {
    let (status, headers, answer) = http_post(url, &initialize_request(1, version), &[]).await;
    assert!(status.is_success(), "{status}");
    let init = response_to(&answer, 1);
    assert_eq!(init["result"]["protocolVersion"], version, "{init}");
    assert_conforms(version, "InitializeResult", &init["result"]);
    let session = headers
        .get("mcp-session-id")
        .expect("a session for a 2025 revision")
        .to_str()
        .unwrap()
        .to_string();
    let with = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", version),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, _) = http_post(url, &initialized, &with).await;
    assert!(status.is_success(), "{status}");
    session
}

/// The `tools/list` result a raw client of `version` receives over streamable HTTP: a session
/// opened by `initialize` (2025), or sessionless requests that carry the version in their
/// `_meta` and in the `MCP-Protocol-Version` header (2026-07-28).
async fn raw_http_tools_list(url: &str, version: &str) -> Value {
    if has_initialize(version) {
        let session = open_http_session(url, version).await;
        let with = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", version),
        ];
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let (status, _, answer) = http_post(url, &list, &with).await;
        assert!(status.is_success(), "{status}");
        return response_to(&answer, 2)["result"].clone();
    }
    let with = |method| [("mcp-protocol-version", version), ("mcp-method", method)];
    let discover = inline_request(1, "server/discover", version);
    let (status, headers, answer) = http_post(url, &discover, &with("server/discover")).await;
    assert!(status.is_success(), "{status}");
    assert!(
        headers.get("mcp-session-id").is_none(),
        "no session in 2026-07-28"
    );
    let discovered = response_to(&answer, 1);
    assert_eq!(
        discovered["result"]["supportedVersions"],
        json!(REVISIONS),
        "{discovered}"
    );
    assert_conforms(version, "DiscoverResult", &discovered["result"]);
    let list = inline_request(2, "tools/list", version);
    let (status, headers, answer) = http_post(url, &list, &with("tools/list")).await;
    assert!(status.is_success(), "{status}");
    assert!(
        headers.get("mcp-session-id").is_none(),
        "no session in 2026-07-28"
    );
    let list = response_to(&answer, 2);
    assert!(list.get("error").is_none(), "{version}: {list}");
    list["result"].clone()
}

/// The version rmcp's client of `version` settles on, and the tools it lists: with the
/// `initialize` handshake (2025), or with `server/discover` and per-request `_meta` (2026-07-28).
async fn rmcp_tools_list<T, E, A>(version: &str, transport: T) -> (ProtocolVersion, Value)
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let wanted: ProtocolVersion = serde_json::from_value(json!(version)).unwrap();
    let lifecycle = lifecycle_of(&wanted);
    let client = tokio::time::timeout(
        BOUND,
        rmcp::service::serve_client_with_lifecycle(Watcher::new(wanted), transport, lifecycle),
    )
    .await
    .expect("the client starts within the bound")
    .unwrap();
    let settled = client.peer_info().unwrap().protocol_version.clone();
    let tools = tokio::time::timeout(BOUND, client.list_all_tools())
        .await
        .unwrap()
        .unwrap();
    client.cancel().await.unwrap();
    (settled, serde_json::to_value(tools).unwrap())
}

/// Every client of `version`, over both transports, settles on `version` exactly and receives
/// the golden `tools/list` result of `version`.
async fn revision_checks(version: &str) {
    let dir = Dir::new("revision");
    let tb = toolbox(&dir, Arc::default(), Policy::allow_all());

    let stdio_raw = raw_stdio_tools_list(Arc::clone(&tb), version).await;
    assert_revision_shape(version, &stdio_raw);
    assert_golden_tools_list(version, &stdio_raw, Golden::Writes);
    for tool in stdio_raw["tools"].as_array().unwrap() {
        assert_conforms(version, "Tool", tool);
    }

    let http = McpServer::new(Arc::clone(&tb))
        .bind_http("127.0.0.1:0")
        .await
        .unwrap();
    let http_raw = raw_http_tools_list(&http.url(), version).await;
    assert_eq!(
        http_raw, stdio_raw,
        "{version}: HTTP and stdio lists differ"
    );

    let wanted: ProtocolVersion = serde_json::from_value(json!(version)).unwrap();
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    let server = tokio::spawn(McpServer::new(Arc::clone(&tb)).serve(server_end));
    let (settled, tools) = rmcp_tools_list(version, client_end).await;
    assert_eq!(settled, wanted, "rmcp's client over a stream");
    assert_eq!(
        tools, stdio_raw["tools"],
        "{version}: rmcp's client over a stream"
    );
    tokio::time::timeout(BOUND, server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();

    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(http.url().as_str());
    let (settled, tools) = rmcp_tools_list(version, transport).await;
    assert_eq!(settled, wanted, "rmcp's client over HTTP");
    assert_eq!(
        tools, stdio_raw["tools"],
        "{version}: rmcp's client over HTTP"
    );
    http.shutdown().await;
}

#[tokio::test]
async fn revision_2025_06_18_is_negotiated_exactly_and_every_client_lists_its_golden_tools() {
    revision_checks("2025-06-18").await;
}

#[tokio::test]
async fn revision_2025_11_25_is_negotiated_exactly_and_every_client_lists_its_golden_tools() {
    revision_checks("2025-11-25").await;
}

#[tokio::test]
async fn revision_2026_07_28_is_served_by_discovery_and_request_meta_and_every_client_lists_its_golden_tools(
) {
    revision_checks("2026-07-28").await;
}

/// `server/discover` is optional in 2026-07-28: a first request with complete `_meta` is
/// served as 2026-07-28 on its own, over both transports.
#[tokio::test]
async fn a_2026_07_28_client_may_list_tools_without_discovering_first() {
    let version = "2026-07-28";
    let dir = Dir::new("no-discover");
    let tb = toolbox(&dir, Arc::default(), Policy::allow_all());
    let mut raw = Raw::connect(Arc::clone(&tb));
    raw.send(inline_request(1, "tools/list", version)).await;
    let list = raw.response(1).await["result"].clone();
    assert_revision_shape(version, &list);
    assert_golden_tools_list(version, &list, Golden::Reads);

    let http = McpServer::new(tb).bind_http("127.0.0.1:0").await.unwrap();
    let headers = [
        ("mcp-protocol-version", version),
        ("mcp-method", "tools/list"),
    ];
    let (status, _, answer) = http_post(
        &http.url(),
        &inline_request(1, "tools/list", version),
        &headers,
    )
    .await;
    assert!(status.is_success(), "{status}");
    assert_eq!(response_to(&answer, 1)["result"], list);
    http.shutdown().await;
}

/// Pins what a client gets when it names 2026-07-28 in `initialize`, a handshake that revision
/// does not have: the server answers with 2025-11-25, the newest revision it speaks that has
/// the handshake (the 2025 rules: a version the server supports, preferably its latest), and
/// the session is a 2025-11-25 session. rmcp's `serve_client` does this when its
/// `ClientConfig` names 2026-07-28; a 2026-07-28 session needs `server/discover` or
/// per-request `_meta` (see the revision tests above).
#[tokio::test]
async fn initialize_naming_2026_07_28_is_answered_with_2025_11_25_the_newest_revision_with_a_handshake(
) {
    let dir = Dir::new("init-2026");
    let tb = toolbox(&dir, Arc::default(), Policy::allow_all());

    let mut raw = Raw::connect(Arc::clone(&tb));
    raw.send(initialize_request(1, "2026-07-28")).await;
    let init = raw.response(1).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    raw.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    let list = raw.response(2).await["result"].clone();
    assert_golden_tools_list("2025-11-25", &list, Golden::Reads);

    let http = McpServer::new(Arc::clone(&tb))
        .bind_http("127.0.0.1:0")
        .await
        .unwrap();
    let (status, headers, answer) =
        http_post(&http.url(), &initialize_request(1, "2026-07-28"), &[]).await;
    assert!(status.is_success(), "{status}");
    assert!(headers.get("mcp-session-id").is_some(), "a 2025 session");
    let init = response_to(&answer, 1);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    http.shutdown().await;

    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    tokio::spawn(McpServer::new(tb).serve(server_end));
    let client = rmcp::serve_client(Watcher::new(ProtocolVersion::V_2026_07_28), client_end)
        .await
        .unwrap();
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2025_11_25
    );
    client.cancel().await.unwrap();
}

/// A 2026-07-28-style request naming a revision the server does not speak (2025-03-26, which
/// rmcp knows) gets `UnsupportedProtocolVersionError` (-32022) with the requested version and
/// the supported ones; over HTTP with status 400. Serving goes on.
#[tokio::test]
async fn a_request_naming_a_revision_the_server_does_not_speak_gets_unsupported_protocol_version() {
    let old = "2025-03-26";
    let dir = Dir::new("unsupported");
    let tb = toolbox(&dir, Arc::default(), Policy::allow_all());
    let expected = json!({"requested": old, "supported": REVISIONS});

    let mut raw = Raw::connect(Arc::clone(&tb));
    for (id, method) in [(1, "server/discover"), (2, "tools/list")] {
        raw.send(inline_request(id, method, old)).await;
        let answer = raw.response(id).await;
        assert_eq!(answer["error"]["code"], -32022, "{method}: {answer}");
        assert_eq!(answer["error"]["data"], expected, "{method}: {answer}");
        assert_conforms("2026-07-28", "UnsupportedProtocolVersionError", &answer);
    }
    raw.send(inline_request(3, "tools/list", "2026-07-28"))
        .await;
    assert_eq!(raw.response(3).await["result"]["resultType"], "complete");

    let http = McpServer::new(tb).bind_http("127.0.0.1:0").await.unwrap();
    for (id, method) in [(1, "server/discover"), (2, "tools/list")] {
        let headers = [("mcp-protocol-version", old), ("mcp-method", method)];
        let (status, _, answer) =
            http_post(&http.url(), &inline_request(id, method, old), &headers).await;
        assert_eq!(status, reqwest::StatusCode::BAD_REQUEST, "{method}");
        let answer = response_to(&answer, id);
        assert_eq!(answer["error"]["code"], -32022, "{method}: {answer}");
        assert_eq!(answer["error"]["data"], expected, "{method}: {answer}");
    }
    http.shutdown().await;
}

// ------------------------------------------------------------------ the end of a stdio session

/// The close of a session's input by rmcp's client of `version` over a stream: the client
/// subscribes (2026-07-28: `subscriptions/listen` to tools list_changed, and keeps the
/// subscription), then closes its side without unsubscribing. Returns how long the server took
/// to end after the input closed; fails when it takes 3 s (rmcp's own wait for the handlers
/// still running is 5 s, and the TypeScript client kills the server after 2 s).
async fn close_time(version: ProtocolVersion) -> Duration {
    let dir = Dir::new("close");
    let tb = toolbox(&dir, Arc::default(), Policy::allow_all());
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(McpServer::new(Arc::clone(&tb)).serve(server_end));
    let client = rmcp::service::serve_client_with_lifecycle(
        Watcher::new(version.clone()),
        client_end,
        lifecycle_of(&version),
    )
    .await
    .unwrap();
    // A request answered: the session is established.
    tokio::time::timeout(BOUND, client.list_all_tools())
        .await
        .unwrap()
        .unwrap();
    let subscription = if version.has_initialize() {
        None
    } else {
        let filter = rmcp::model::SubscriptionFilter::builder()
            .tools_list_changed()
            .build();
        Some(
            tokio::time::timeout(BOUND, client.listen(filter))
                .await
                .unwrap()
                .unwrap(),
        )
    };
    // Cancelling rmcp's client closes its transport (the server's input); the subscription
    // handle is still held, so nothing was unsubscribed. The time counts from here.
    let closing = std::time::Instant::now();
    client.cancel().await.unwrap();
    tokio::time::timeout(Duration::from_secs(3), server)
        .await
        .unwrap_or_else(|_| panic!("{version}: the server still serves 3 s after its input closed"))
        .unwrap()
        .unwrap();
    let took = closing.elapsed();
    drop(subscription);
    took
}

#[tokio::test]
async fn a_session_ends_promptly_when_its_input_closes_even_with_a_subscription_open() {
    for version in [ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25] {
        let took = close_time(version.clone()).await;
        eprintln!("{version}: the server ended {took:?} after its input closed");
    }
}

/// `HttpServer::shutdown` with a 2026-07-28 client's `subscriptions/listen` stream open: the
/// stream ends with the server (its final result sent), and shutdown returns well before
/// `SHUTDOWN_GRACE`, the longest it lets a response under way run.
#[tokio::test]
async fn http_shutdown_ends_an_open_subscription_at_once() {
    let dir = Dir::new("close-http");
    let tb = toolbox(&dir, Arc::default(), Policy::allow_all());
    let http = McpServer::new(Arc::clone(&tb))
        .bind_http("127.0.0.1:0")
        .await
        .unwrap();
    let version = ProtocolVersion::V_2026_07_28;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(http.url().as_str());
    let client = rmcp::service::serve_client_with_lifecycle(
        Watcher::new(version.clone()),
        transport,
        lifecycle_of(&version),
    )
    .await
    .unwrap();
    let filter = rmcp::model::SubscriptionFilter::builder()
        .tools_list_changed()
        .build();
    let mut subscription = tokio::time::timeout(BOUND, client.listen(filter))
        .await
        .unwrap()
        .unwrap();
    let stopping = std::time::Instant::now();
    tokio::time::timeout(toolsmith::mcp::SHUTDOWN_GRACE / 2, http.shutdown())
        .await
        .expect("shutdown does not wait for the open subscription");
    eprintln!(
        "HTTP shutdown with a subscription open took {:?}",
        stopping.elapsed()
    );
    // The client's stream has ended.
    let end = tokio::time::timeout(BOUND, subscription.next())
        .await
        .expect("the subscription ends with the server");
    assert!(!matches!(end, Ok(Some(_))), "{end:?}");
    let _ = client.cancel().await;
}

/// A 2026-07-28 client that asks for a `subscriptions/listen` stream and closes its side at
/// once: the session ends within the bound though the stream's acknowledgment may still have
/// been on its way when the input closed.
#[tokio::test]
async fn a_subscription_asked_for_as_the_input_closes_does_not_hold_the_session() {
    use tokio::io::AsyncReadExt;
    for _ in 0..5 {
        let dir = Dir::new("close-raw");
        let tb = toolbox(&dir, Arc::default(), Policy::allow_all());
        let (server_end, client_end) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(McpServer::new(tb).serve(server_end));
        let (mut read, mut write) = tokio::io::split(client_end);
        let mut listen = inline_request(1, "subscriptions/listen", "2026-07-28");
        listen["params"]["notifications"] = json!({"toolsListChanged": true});
        write
            .write_all(format!("{listen}\n").as_bytes())
            .await
            .unwrap();
        write.shutdown().await.unwrap();
        let reading = tokio::spawn(async move {
            let mut sent = String::new();
            read.read_to_string(&mut sent).await.map(|_| sent)
        });
        tokio::time::timeout(Duration::from_secs(3), server)
            .await
            .expect("the server ends within 3 s of its input closing")
            .unwrap()
            .unwrap();
        // Whatever went out is well-formed, and the stream, if it was established, ended with
        // its final result.
        let sent = tokio::time::timeout(BOUND, reading)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let messages: Vec<Value> = sent
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let acknowledged = messages
            .iter()
            .any(|m| m["method"] == "notifications/subscriptions/acknowledged");
        if acknowledged {
            let end = messages
                .iter()
                .find(|m| m["id"] == 1)
                .expect("a final result");
            assert_eq!(end["result"]["resultType"], "complete", "{end}");
        }
    }
}

/// What the progress tool and the test share.
#[derive(Default)]
struct Relay {
    reporting: Notify,
    released: AtomicBool,
}

/// Reports progress without pause until released. Returns the number of reports.
#[tool(read_only)]
async fn report_until_released(#[context] relay: &Relay, #[context] progress: &Progress) -> u32 {
    let mut reports = 0u32;
    while !relay.released.load(Ordering::SeqCst) {
        reports += 1;
        progress.report(f64::from(reports), None, Some("working"));
        relay.reporting.notify_one();
        tokio::task::yield_now().await;
    }
    reports
}

/// A call that keeps reporting progress while the client closes its side: its progress
/// notifications stop, it still gets its answer, and the session ends within the bound (each
/// report waits for its delivery, which rmcp no longer confirms once the input has closed).
#[tokio::test]
async fn a_call_reporting_progress_as_the_input_closes_is_answered_and_does_not_hold_the_session() {
    use tokio::io::AsyncReadExt;
    let relay = Arc::new(Relay::default());
    let tb = Toolbox::builder()
        .tool(report_until_released::tool())
        .shared_context(Arc::clone(&relay))
        .build()
        .unwrap();
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    let server = tokio::spawn(McpServer::new(tb).serve(server_end));
    let (mut read, mut write) = tokio::io::split(client_end);
    let lines: String = [
        initialize_request(1, "2025-11-25"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "report_until_released", "arguments": {},
            "_meta": {"progressToken": "p-1"}}}),
    ]
    .iter()
    .map(|m| format!("{m}\n"))
    .collect();
    write.write_all(lines.as_bytes()).await.unwrap();
    write.flush().await.unwrap();
    let reading = tokio::spawn(async move {
        let mut sent = String::new();
        read.read_to_string(&mut sent).await.map(|_| sent)
    });
    // The tool is reporting; the input closes while it does, and then the tool is released.
    tokio::time::timeout(BOUND, relay.reporting.notified())
        .await
        .expect("the tool reports");
    write.shutdown().await.unwrap();
    relay.released.store(true, Ordering::SeqCst);
    tokio::time::timeout(Duration::from_secs(3), server)
        .await
        .expect("the server ends within 3 s of its input closing")
        .unwrap()
        .unwrap();
    let sent = tokio::time::timeout(BOUND, reading)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let answer = sent
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|m| m["id"] == 2)
        .expect("the call is answered");
    assert!(
        answer["result"]["structuredContent"]["result"].as_u64() >= Some(1),
        "{answer}"
    );
}

// ------------------------------------------------------------------ kept results as resources

/// Lists the numbers below 1000. Returns them, far more than the output budget shows.
#[tool(read_only)]
fn list_numbers() -> Vec<u32> {
    (0..1000).collect()
}

/// A toolbox whose record store keeps the two most recent cut results.
fn numbers_toolbox() -> Arc<Toolbox> {
    Arc::new(
        Toolbox::builder()
            .tool(list_numbers::tool())
            .tool(get_marker::tool())
            .record_store(toolsmith::budget::MemoryRecordStore::new(2))
            .build()
            .unwrap(),
    )
}

/// The `resource_link` of a cut result, checked: after the text, naming the result's `ref`.
fn link_of(result: &CallToolResult) -> rmcp::model::Resource {
    assert_eq!(result.content.len(), 2, "{result:?}");
    let link = result.content[1]
        .as_resource_link()
        .unwrap_or_else(|| panic!("no resource_link after the text: {result:?}"))
        .clone();
    let meta = result.meta.as_ref().expect("_meta on a cut result");
    let envelope = &meta.0[ENVELOPE_META_KEY];
    assert_eq!(envelope["truncated"], true, "{envelope}");
    assert_eq!(
        Some(link.name.as_str()),
        envelope["ref"].as_str(),
        "{envelope}"
    );
    assert!(
        link.uri.starts_with(toolsmith::budget::RESULT_URI_PREFIX),
        "{}",
        link.uri
    );
    assert_eq!(link.mime_type.as_deref(), Some("application/json"));
    assert_eq!(link.title.as_deref(), Some("Full result of list_numbers"));
    let description = link.description.as_deref().unwrap_or_default();
    assert!(
        description.contains("full result of this call to \"list_numbers\""),
        "{description}"
    );
    link
}

/// The protocol error of a read that must fail, with its code and a message containing `says`.
async fn read_refused(
    client: &RunningService<RoleClient, Watcher>,
    uri: &str,
    code: ErrorCode,
    says: &str,
) {
    let read = tokio::time::timeout(
        BOUND,
        client.read_resource(rmcp::model::ReadResourceRequestParams::new(uri)),
    )
    .await
    .expect("the server answers within the bound");
    let Err(ServiceError::McpError(e)) = read else {
        panic!("{uri}: expected a protocol error, got {read:?}")
    };
    assert_eq!(e.code, code, "{uri}: {e:?}");
    assert!(e.message.contains(says), "{uri}: {}", e.message);
    assert_eq!(e.data, Some(json!({ "uri": uri })), "{uri}");
}

/// Over a stdio-like stream in every revision, with one server per caller on one toolbox: a cut
/// result links its full result, which its caller reads as `application/json` and nobody else
/// does; a guessed, edited or foreign URI is refused (`-32602`) and a dropped one is not found
/// (`-32002` before 2026-07-28, `-32602` from it, SEP-2164); nothing is listed.
#[tokio::test]
async fn a_cut_result_links_its_full_result_which_only_its_caller_reads() {
    for version in VERSIONS {
        let not_found = if version.has_initialize() {
            ErrorCode::RESOURCE_NOT_FOUND
        } else {
            ErrorCode::INVALID_PARAMS
        };
        let tb = numbers_toolbox();
        let connect = |caller: Caller| {
            let (server_end, client_end) = tokio::io::duplex(1 << 20);
            tokio::spawn(
                McpServer::new(Arc::clone(&tb))
                    .caller(caller)
                    .serve(server_end),
            );
            rmcp::service::serve_client_with_lifecycle(
                Watcher::new(version.clone()),
                client_end,
                lifecycle_of(&version),
            )
        };
        let ann = connect(Caller::new("ann")).await.unwrap();
        let bob = connect(Caller::new("bob")).await.unwrap();
        let info = ann.peer_info().unwrap();
        assert!(info.capabilities.resources.is_some(), "{version}: {info:?}");

        let cut = call(&ann, "list_numbers", json!({})).await.unwrap();
        assert_eq!(cut.is_error, Some(false));
        let link = link_of(&cut);
        // A plain result keeps nothing and links nothing.
        let plain = call(&ann, "get_marker", json!({})).await.unwrap();
        assert_eq!(plain.content.len(), 1, "{plain:?}");

        // Its caller reads the whole result.
        let read = tokio::time::timeout(
            BOUND,
            ann.read_resource(rmcp::model::ReadResourceRequestParams::new(&link.uri)),
        )
        .await
        .unwrap()
        .unwrap();
        let [rmcp::model::ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        }] = read.contents.as_slice()
        else {
            panic!("{version}: one text content expected: {read:?}")
        };
        assert_eq!(uri, &link.uri);
        assert_eq!(mime_type.as_deref(), Some("application/json"));
        let full: Value = serde_json::from_str(text).unwrap();
        assert_eq!(full, json!((0..1000).collect::<Vec<u32>>()), "{version}");

        // Another caller, a guessed reference, an edited tag, a cut URI: refused.
        read_refused(
            &bob,
            &link.uri,
            ErrorCode::INVALID_PARAMS,
            "only by the caller",
        )
        .await;
        let guessed = format!(
            "{}rec_{}?tool=list_numbers&tag={}",
            toolsmith::budget::RESULT_URI_PREFIX,
            "0".repeat(32),
            "1".repeat(32)
        );
        let last = link.uri.chars().last().unwrap();
        let edited = format!(
            "{}{}",
            &link.uri[..link.uri.len() - 1],
            if last == '0' { '1' } else { '0' }
        );
        for uri in [guessed, edited] {
            read_refused(&ann, &uri, ErrorCode::INVALID_PARAMS, "only by the caller").await;
        }
        let cut_uri = &link.uri[..link.uri.len() - 5];
        read_refused(&ann, cut_uri, ErrorCode::INVALID_PARAMS, "exactly as").await;
        read_refused(&ann, "file:///etc/passwd", not_found, "no resource").await;

        // Nothing is listed: kept results are per caller and ephemeral; no template either.
        let listed = ann.list_all_resources().await.unwrap();
        assert!(listed.is_empty(), "{version}: {listed:?}");
        let templates = ann.list_all_resource_templates().await.unwrap();
        assert!(templates.is_empty(), "{version}: {templates:?}");

        // Two more cut results: the store (two records) drops the first.
        for _ in 0..2 {
            call(&ann, "list_numbers", json!({})).await.unwrap();
        }
        read_refused(&ann, &link.uri, not_found, "no longer kept").await;

        ann.cancel().await.unwrap();
        bob.cancel().await.unwrap();
    }
}

/// Over streamable HTTP, where the host maps each request to its caller: the link of ann's cut
/// result is read by ann's requests and refused to bob's.
#[tokio::test]
async fn over_http_a_kept_result_is_read_by_the_caller_each_request_maps_to() {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let http = McpServer::new(numbers_toolbox())
        .caller_from_http(|parts| match parts.headers.get("x-user") {
            Some(user) => Caller::new(user.to_str().unwrap_or("unknown")),
            None => Caller::anonymous(),
        })
        .bind_http("127.0.0.1:0")
        .await
        .unwrap();
    for version in VERSIONS {
        let connect = |user: &'static str| {
            let headers = std::collections::HashMap::from([(
                reqwest::header::HeaderName::from_static("x-user"),
                reqwest::header::HeaderValue::from_static(user),
            )]);
            let config =
                StreamableHttpClientTransportConfig::with_uri(http.url()).custom_headers(headers);
            rmcp::service::serve_client_with_lifecycle(
                Watcher::new(version.clone()),
                rmcp::transport::StreamableHttpClientTransport::from_config(config),
                lifecycle_of(&version),
            )
        };
        let ann = connect("ann").await.unwrap();
        let bob = connect("bob").await.unwrap();
        let cut = call(&ann, "list_numbers", json!({})).await.unwrap();
        let link = link_of(&cut);
        let read = ann
            .read_resource(rmcp::model::ReadResourceRequestParams::new(&link.uri))
            .await
            .unwrap();
        assert_eq!(read.contents.len(), 1, "{version}: {read:?}");
        read_refused(
            &bob,
            &link.uri,
            ErrorCode::INVALID_PARAMS,
            "only by the caller",
        )
        .await;
        ann.cancel().await.unwrap();
        bob.cancel().await.unwrap();
    }
    http.shutdown().await;
}

/// Two replicas of one service (two HTTP listeners, each with its own session manager, as two
/// processes would have): a 2025-11-25 session (`Mcp-Session-Id`, from `initialize`) lives on
/// the replica that opened it, and another replica answers it `404`, so the client starts
/// over; 2026-07-28 requests carry their version and capabilities themselves, and any replica
/// serves any of them (`src/docs/mcp.md`, "Run several replicas").
#[tokio::test]
async fn across_replicas_a_2025_session_lives_on_one_and_2026_requests_on_any() {
    let dir = Dir::new("replicas");
    let tb = toolbox(&dir, Arc::default(), Policy::allow_all());
    let a = McpServer::new(Arc::clone(&tb))
        .bind_http("127.0.0.1:0")
        .await
        .unwrap();
    let b = McpServer::new(Arc::clone(&tb))
        .bind_http("127.0.0.1:0")
        .await
        .unwrap();
    let (a_url, b_url) = (a.url().to_string(), b.url().to_string());

    let version = "2025-11-25";
    let session = open_http_session(&a_url, version).await;
    let with = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", version),
    ];
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (status, _, _) = http_post(&b_url, &list, &with).await;
    assert_eq!(status, reqwest::StatusCode::NOT_FOUND, "the other replica");
    let (status, _, answer) = http_post(&a_url, &list, &with).await;
    assert!(status.is_success(), "{status}");
    assert!(response_to(&answer, 2)["result"]["tools"].is_array());

    let version = "2026-07-28";
    let with = |method| [("mcp-protocol-version", version), ("mcp-method", method)];
    let discover = inline_request(1, "server/discover", version);
    let (status, _, _) = http_post(&a_url, &discover, &with("server/discover")).await;
    assert!(status.is_success(), "{status}");
    for (id, url) in [(2, &b_url), (3, &a_url), (4, &b_url)] {
        let list = inline_request(id, "tools/list", version);
        let (status, headers, answer) = http_post(url, &list, &with("tools/list")).await;
        assert!(status.is_success(), "{url}: {status}");
        assert!(headers.get("mcp-session-id").is_none(), "no session");
        assert!(response_to(&answer, id)["result"]["tools"].is_array());
    }
    a.shutdown().await;
    b.shutdown().await;
}
