//! Tasks over MCP 2026-07-28 (`McpServer::tasks`), in process, over streamable HTTP with raw
//! JSON-RPC: which calls become tasks, whose they are, questions answered by `tasks/update`,
//! progress as the status message, the limits, and a server without tasks. The conformance
//! suite's `tasks-*` scenarios check the wire against the example server
//! (`conformance_suite.rs`); `replicas_http.rs` runs tasks across two processes.

use crate::fixture;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::Notify;
use toolsmith::mcp::McpServer;
use toolsmith::spec::TaskSupport;
use toolsmith::state::task::Tasks;
use toolsmith::{tool, Caller, Client, Policy, Progress, Question, ToolError, Toolbox};

/// The gates the `hold_at_gate` tool waits at, by name: a test opens one when it has seen what it
/// waits for (a permit is kept when it opens first).
fn gate(name: &str) -> Arc<Notify> {
    static GATES: OnceLock<Mutex<HashMap<String, Arc<Notify>>>> = OnceLock::new();
    let mut gates = GATES.get_or_init(Mutex::default).lock().unwrap();
    Arc::clone(gates.entry(name.to_string()).or_default())
}

/// Reports that it is waiting, then waits until its gate opens. Returns the gate's name.
#[tool(read_only, task = "optional")]
async fn hold_at_gate(
    /// The gate to wait at, e.g. "first".
    gate_name: String,
    #[context] progress: &Progress,
) -> String {
    progress.report(0.0, Some(1.0), Some("waiting"));
    gate(&gate_name).notified().await;
    format!("released {gate_name}")
}

/// Builds the yearly report, only as a task. Returns the report's title.
#[tool(read_only, task = "required")]
async fn build_report() -> String {
    "Report 2026".into()
}

/// Mixes the paints, then asks the user for a colour, then answers with it. Returns the colour
/// chosen.
#[tool(read_only, task = "optional")]
async fn choose_colour(#[context] client: &Client) -> Result<String, ToolError> {
    // Work before the question (one yield stands for it): the call is a task by the time it
    // asks.
    tokio::task::yield_now().await;
    let form = json!({"type": "object", "properties": {
        "colour": {"type": "string", "description": "A colour"}}, "required": ["colour"]});
    let answer = client
        .question(&Question::new("Which colour?", &form)?.with_key("colour"))
        .await?;
    Ok(format!(
        "chose {}",
        answer["colour"].as_str().unwrap_or("?")
    ))
}

/// Asks the user's name, then prints their badge. Returns the badge's text.
#[tool(read_only, task = "required")]
async fn print_badge(#[context] client: &Client) -> Result<String, ToolError> {
    // Asked before any work: in the request's `input_required` rounds.
    let form = json!({"type": "object", "properties": {
        "name": {"type": "string", "description": "The name on the badge"}}, "required": ["name"]});
    let answer = client
        .question(&Question::new("Whose badge?", &form)?.with_key("name"))
        .await?;
    tokio::task::yield_now().await;
    Ok(format!(
        "badge of {}",
        answer["name"].as_str().unwrap_or("?")
    ))
}

/// Asks the user for a colour, and takes grey when no answer comes. Returns the colour.
#[tool(read_only, task = "optional")]
async fn colour_or_grey(#[context] client: &Client) -> Result<String, ToolError> {
    tokio::task::yield_now().await;
    let form = json!({"type": "object", "properties": {
        "colour": {"type": "string", "description": "A colour"}}, "required": ["colour"]});
    let asked = client
        .question(&Question::new("Which colour?", &form)?.with_key("colour"))
        .await;
    // No answer within the client timeout: the tool goes on without it, until the test has
    // seen the question withdrawn.
    gate("grey").notified().await;
    Ok(match asked {
        Ok(answer) => answer["colour"].as_str().unwrap_or("?").to_string(),
        Err(_) => "grey".into(),
    })
}

fn toolbox() -> Toolbox {
    Toolbox::builder()
        .tool(hold_at_gate::tool())
        .tool(build_report::tool())
        .tool(choose_colour::tool())
        .tool(print_badge::tool())
        .tool(colour_or_grey::tool())
        .build()
        .unwrap()
}

/// The server with tasks, the caller named by the `x-user` header, with the scopes of
/// `x-scope` (`hold_at_gate` requires `wait`, when `scoped`).
async fn serve_with(tasks: Option<Tasks>, scoped: bool) -> (toolsmith::mcp::HttpServer, String) {
    let toolbox = if scoped {
        Toolbox::builder()
            .tool(hold_at_gate::tool())
            .policy(Policy::allow_all().require_scope("hold_at_gate", "wait"))
            .build()
            .unwrap()
    } else {
        toolbox()
    };
    let mut server = McpServer::new(toolbox).caller_from_http(|parts| {
        let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
        let caller = header("x-user").map_or_else(Caller::anonymous, Caller::new);
        match header("x-scope") {
            Some(scope) => caller.with_scope(scope),
            None => caller,
        }
    });
    if let Some(tasks) = tasks {
        server = server.tasks(tasks);
    }
    let http = server.bind_http("127.0.0.1:0").await.unwrap();
    let url = http.url();
    (http, url)
}

async fn serve(tasks: Option<Tasks>) -> (toolsmith::mcp::HttpServer, String) {
    serve_with(tasks, false).await
}

fn declaring() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

async fn rpc(url: &str, user: &str, method: &str, params: Value) -> Value {
    fixture::post_2026(url, method, params, declaring(), &[("x-user", user)])
        .await
        .1
}

async fn start(url: &str, user: &str, name: &str, arguments: Value) -> Value {
    rpc(
        url,
        user,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
    .await
}

/// Polls `tasks/get` as `user` until `done` holds for the task ([`fixture::poll_task`]).
async fn poll(url: &str, user: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    fixture::poll_task(url, id, declaring(), &[("x-user", user)], done).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_its_callers_and_reports_progress_and_its_result() {
    let tasks = Tasks::in_memory().poll_interval(Duration::from_millis(50));
    let (_http, url) = serve(Some(tasks)).await;
    let created = start(&url, "alice", "hold_at_gate", json!({"gate_name": "first"})).await;
    let task = &created["result"];
    assert_eq!(task["resultType"], "task", "{created}");
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(task["pollIntervalMs"], 50, "{created}");
    let id = task["taskId"].as_str().unwrap();
    // The progress message becomes the task's status message.
    let working = poll(&url, "alice", id, |t| t["statusMessage"] == "waiting").await;
    assert_eq!(working["status"], "working");
    // Another caller, and an anonymous one, are told it does not exist.
    for other in ["bob", ""] {
        for method in ["tasks/get", "tasks/cancel", "tasks/update"] {
            let mut params = json!({"taskId": id});
            if method == "tasks/update" {
                params["inputResponses"] = json!({});
            }
            let answer = rpc(&url, other, method, params).await;
            assert_eq!(
                answer["error"]["code"], -32602,
                "{other} {method}: {answer}"
            );
        }
    }
    gate("first").notify_one();
    let done = poll(&url, "alice", id, |t| t["status"] == "completed").await;
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert_eq!(
        done["result"]["structuredContent"], "released first",
        "{done}"
    );
    assert_eq!(done["resultType"], "complete", "{done}");
    // A client that does not declare the extension gets an optional tool's result directly,
    // and a required tool's refusal naming the extension.
    gate("direct").notify_one();
    let (_, direct) = fixture::post_2026(
        &url,
        "tools/call",
        json!({"name": "hold_at_gate", "arguments": {"gate_name": "direct"}}),
        json!({}),
        &[],
    )
    .await;
    assert_eq!(direct["result"]["resultType"], "complete", "{direct}");
    let (status, refused) = fixture::post_2026(
        &url,
        "tools/call",
        json!({"name": "build_report", "arguments": {}}),
        json!({}),
        &[],
    )
    .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"]
            ["io.modelcontextprotocol/tasks"]
            .is_object(),
        "{refused}"
    );
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_in_a_task_is_answered_by_tasks_update() {
    let tasks = Tasks::in_memory().poll_interval(Duration::from_millis(50));
    let (_http, url) = serve(Some(tasks)).await;
    let created = start(&url, "alice", "choose_colour", json!({})).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    let asked = poll(&url, "alice", &id, |t| t["status"] == "input_required").await;
    let request = &asked["inputRequests"]["colour"];
    assert_eq!(request["method"], "elicitation/create", "{asked}");
    assert_eq!(request["params"]["message"], "Which colour?", "{asked}");
    let ack = rpc(
        &url,
        "alice",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {
            "colour": {"action": "accept", "content": {"colour": "teal"}},
            "unknown": {"ignored": true}}}),
    )
    .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let done = poll(&url, "alice", &id, |t| t["status"] == "completed").await;
    assert_eq!(done["result"]["structuredContent"], "chose teal", "{done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn questions_before_the_work_come_in_rounds_and_the_call_then_becomes_a_task() {
    let tasks = Tasks::in_memory().poll_interval(Duration::from_millis(50));
    let (_http, url) = serve(Some(tasks)).await;
    let round = start(&url, "alice", "print_badge", json!({})).await;
    let asked = &round["result"];
    assert_eq!(asked["resultType"], "input_required", "{round}");
    assert!(asked.get("taskId").is_none(), "{round}");
    assert_eq!(
        asked["inputRequests"]["name"]["method"], "elicitation/create",
        "{round}"
    );
    let mut retry = json!({"name": "print_badge", "arguments": {},
        "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}});
    if let Some(state) = asked.get("requestState") {
        retry["requestState"] = state.clone();
    }
    let created = rpc(&url, "alice", "tools/call", retry).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert!(created["result"].get("requestState").is_none(), "{created}");
    let id = created["result"]["taskId"].as_str().unwrap();
    let done = poll(&url, "alice", id, |t| t["status"] == "completed").await;
    assert_eq!(
        done["result"]["structuredContent"], "badge of Ada",
        "{done}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_limits_and_cancel_are_answered_clearly() {
    let tasks = Tasks::in_memory()
        .poll_interval(Duration::from_millis(50))
        .max_per_caller(1);
    let (_http, url) = serve(Some(tasks)).await;
    // Gates nobody opens: tasks that run until they are cancelled.
    let first = start(&url, "alice", "hold_at_gate", json!({"gate_name": "never"})).await;
    let id = first["result"]["taskId"].as_str().unwrap().to_string();
    let second = start(&url, "alice", "hold_at_gate", json!({"gate_name": "never"})).await;
    let message = second["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("1 live tasks"), "{second}");
    // Another caller has room.
    let bobs = start(&url, "bob", "hold_at_gate", json!({"gate_name": "never"})).await;
    assert_eq!(bobs["result"]["resultType"], "task", "{bobs}");
    // A cancel ends the task and frees the caller's room; cancelling it again is no error.
    for _ in 0..2 {
        let ack = rpc(&url, "alice", "tasks/cancel", json!({"taskId": id})).await;
        assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    }
    let cancelled = poll(&url, "alice", &id, |t| t["status"] == "cancelled").await;
    assert!(cancelled.get("result").is_none(), "{cancelled}");
    let again = start(&url, "alice", "hold_at_gate", json!({"gate_name": "never"})).await;
    assert_eq!(again["result"]["resultType"], "task", "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_tasks_runs_every_call_in_its_request() {
    assert_eq!(build_report::tool().spec().task, TaskSupport::Required);
    assert_eq!(hold_at_gate::tool().spec().task, TaskSupport::Optional);
    let (_http, url) = serve(None).await;
    let discovered = rpc(&url, "alice", "server/discover", json!({})).await;
    let extensions = &discovered["result"]["capabilities"]["extensions"];
    assert!(
        extensions.get("io.modelcontextprotocol/tasks").is_none(),
        "{discovered}"
    );
    let direct = start(&url, "alice", "build_report", json!({})).await;
    assert_eq!(direct["result"]["resultType"], "complete", "{direct}");
    assert_eq!(
        direct["result"]["structuredContent"], "Report 2026",
        "{direct}"
    );
    let get = rpc(&url, "alice", "tasks/get", json!({"taskId": "task_x"})).await;
    assert_eq!(get["error"]["code"], -32601, "{get}");
    // With tasks, the server declares the extension.
    let (_http, url) = serve(Some(Tasks::in_memory())).await;
    let discovered = rpc(&url, "alice", "server/discover", json!({})).await;
    assert!(
        discovered["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"]
            .is_object(),
        "{discovered}"
    );
}

/// The policy is checked again for the caller who polls: a scope taken away since the task
/// started refuses its result, as it would refuse the call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_policy_is_checked_again_when_the_result_is_read() {
    let tasks = Tasks::in_memory().poll_interval(Duration::from_millis(50));
    let (_http, url) = serve_with(Some(tasks), true).await;
    let post = |method: &'static str, params: Value, scope: Option<&'static str>| {
        let url = url.clone();
        async move {
            let mut headers = vec![("x-user", "alice")];
            if let Some(scope) = scope {
                headers.push(("x-scope", scope));
            }
            fixture::post_2026(&url, method, params, declaring(), &headers)
                .await
                .1
        }
    };
    let denied = post(
        "tools/call",
        json!({"name": "hold_at_gate", "arguments": {"gate_name": "policy"}}),
        None,
    )
    .await;
    assert_eq!(denied["result"]["isError"], true, "{denied}");
    let created = post(
        "tools/call",
        json!({"name": "hold_at_gate", "arguments": {"gate_name": "policy"}}),
        Some("wait"),
    )
    .await;
    let id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_string();
    gate("policy").notify_one();
    let with_scope = [("x-user", "alice"), ("x-scope", "wait")];
    let done = fixture::poll_task(&url, &id, declaring(), &with_scope, |t| {
        t["status"] == "completed"
    })
    .await;
    assert_eq!(done["result"]["isError"], false, "{done}");
    // The same caller without the scope now: the result is refused.
    let refused = post("tasks/get", json!({"taskId": id}), None).await;
    let result = &refused["result"]["result"];
    assert_eq!(result["isError"], true, "{refused}");
    assert!(result.to_string().contains("POLICY_DENIED"), "{refused}");
    assert!(!result.to_string().contains("released"), "{refused}");
}

/// A question nobody answers within the client timeout leaves the task's `inputRequests`: the
/// task is `working` again while the tool goes on, and a late answer is ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_question_leaves_the_task_at_the_client_timeout() {
    let tasks = Tasks::in_memory().poll_interval(Duration::from_millis(20));
    let server = McpServer::new(toolbox())
        .client_timeout(Duration::from_millis(150))
        .tasks(tasks);
    let http = server.bind_http("127.0.0.1:0").await.unwrap();
    let url = http.url();
    let created = start(&url, "", "colour_or_grey", json!({})).await;
    let id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_string();
    let asked = poll(&url, "", &id, |t| t["status"] == "input_required").await;
    assert!(asked["inputRequests"]["colour"].is_object(), "{asked}");
    let withdrawn = poll(&url, "", &id, |t| t["status"] != "input_required").await;
    assert_eq!(withdrawn["status"], "working", "{withdrawn}");
    assert!(withdrawn.get("inputRequests").is_none(), "{withdrawn}");
    let late = rpc(
        &url,
        "",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {
            "colour": {"action": "accept", "content": {"colour": "teal"}}}}),
    )
    .await;
    assert_eq!(late["result"], json!({"resultType": "complete"}), "{late}");
    gate("grey").notify_one();
    let done = poll(&url, "", &id, |t| t["status"] == "completed").await;
    assert_eq!(done["result"]["structuredContent"], "grey", "{done}");
}
