//! A tool talking back to its client over MCP (`#[context] client: &Client`): questions
//! (`elicitation/create`) answered, declined, dismissed and unsupported; a `needs_input` turned
//! into a question and the call completed with the answer; sampling (`sampling/createMessage`)
//! answered, refused and unsupported; log messages (`notifications/message`) at the level the
//! session set, and per call in 2026-07-28; the handle on the toolbox's tool threads; and
//! outside MCP, the documented degradation.
//!
//! rmcp's own client answers over an in-memory stream and over streamable HTTP on 127.0.0.1;
//! raw JSON-RPC checks the wire where order or shape is the point (the official schemas of
//! each revision in `tests/fixtures/specs/`).

// Logging and sampling are deprecated by SEP-2577 (2026-07-28), in rmcp's model too; the 2025
// revisions have them.
#![allow(deprecated)]

use crate::fixture;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction, ErrorCode,
    LoggingLevel, LoggingMessageNotificationParam, ProtocolVersion, SamplingMessage,
    SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolsmith::approval::sync_approver;
use toolsmith::audit::{AuditEvent, MemorySink};
use toolsmith::client::{LogLevel, SampleRequest};
use toolsmith::mcp::McpServer;
use toolsmith::{codes, model, tool, Client};
use toolsmith::{Approval, Status, ToolError, Toolbox};

/// A generous bound on every wait, so a broken server fails the test instead of hanging it.
const BOUND: Duration = Duration::from_secs(30);

// The `toolsmith::mcp` page (`src/docs/mcp.md`) shows `SizeAnswer` and `ask_boot_size` as they are here
// (tests/it/readme.rs checks).

/// The size a customer wants.
#[model]
struct SizeAnswer {
    /// The boot size, 42 to 44.
    #[schemars(range(min = 42, max = 44))]
    size: u32,
}

/// Asks the user which boot size they want. Returns the size.
#[tool(read_only)]
async fn ask_boot_size(#[context] client: &Client) -> Result<u32, ToolError> {
    // A form of SizeAnswer's fields; `needs_input` naming them when no client can show it.
    let answer: SizeAnswer = client.ask("Which size? 42, 43 or 44.").await?;
    Ok(answer.size)
}

const WHICH_SIZE: &str = "Which size? 42, 43 or 44.";

/// Asks the user which boot size they want, from the toolbox's tool threads. Returns the size.
#[tool(read_only)]
async fn pick_boot_size(#[context] client: &Client) -> Result<u32, ToolError> {
    let thread = std::thread::current()
        .name()
        .unwrap_or_default()
        .to_string();
    assert_eq!(thread, "toolsmith-tool", "isolated: runs on a tool thread");
    let answer: SizeAnswer = client.ask(WHICH_SIZE).await?;
    Ok(answer.size)
}

/// Looks up the price of a boot in a size. Returns the price in euros.
#[tool(read_only)]
fn get_boot_price(
    /// The boot model, e.g. "hiker".
    item: String,
    /// The boot size, 42 to 44.
    #[arg(minimum = 42, maximum = 44)]
    size: Option<u32>,
) -> Result<String, ToolError> {
    match size {
        Some(size) => Ok(format!("{item} in {size}: 120 EUR")),
        None => Err(ToolError::needs_input(["size"], WHICH_SIZE)),
    }
}

/// Looks up the colours of a boot. Returns the colour chosen.
#[tool(read_only)]
fn get_boot_colour(
    /// The boot model, e.g. "hiker".
    item: String,
    /// The colour, e.g. "brown".
    colour: Option<String>,
) -> Result<String, ToolError> {
    let _ = (item, colour);
    Err(ToolError::needs_input(["colour"], "Which colour?"))
}

/// Counts the stock of a boot in one warehouse. Returns the count.
#[tool(read_only)]
fn count_boot_stock(
    /// The boot model, e.g. "hiker".
    item: String,
) -> Result<u32, ToolError> {
    let _ = item;
    Err(ToolError::needs_input(["warehouse"], "Which warehouse?"))
}

/// Books a pair of boots for the customer. Returns the booking.
#[tool(writes, requires_approval)]
fn book_boots(
    /// The boot model, e.g. "hiker".
    item: String,
    /// The store's code of the size, e.g. "S-43".
    #[arg(pattern = "^S-4[234]$")]
    size_code: Option<String>,
) -> Result<String, ToolError> {
    match size_code {
        Some(code) => Ok(format!("booked {item} {code}")),
        None => Err(ToolError::needs_input(["size_code"], "Which size code?")),
    }
}

/// Greets the user by the name they give. Returns the greeting.
#[tool(read_only)]
async fn greet_user(#[context] client: &Client) -> Result<String, ToolError> {
    let form = json!({"type": "object", "properties": {"name": {"type": "string"}},
                      "required": ["name"]});
    // Named, so a 2026-07-28 client can answer it by that name, even before it is asked.
    let question = toolsmith::Question::new("What is your name?", &form)?.with_key("user_name");
    let answer = client.question(&question).await?;
    let name = answer["name"].as_str().unwrap_or_default().to_string();
    let summary = client
        .sample(SampleRequest::new(format!("Greet {name}"), 20).with_key("greeting"))
        .await?;
    Ok(format!("Hello, {name}! {}", summary.text))
}

/// Summarizes a text with the client's model. Returns the summary and the model's name.
#[tool(read_only)]
async fn summarize_text(
    #[context] client: &Client,
    /// The text to summarize.
    text: String,
) -> Result<String, ToolError> {
    let request = SampleRequest::new(format!("Summarize: {text}"), 100)
        .with_system_prompt("Be brief.")
        .with_model_hint("claude");
    let result = client.sample(request).await?;
    Ok(format!("{} ({})", result.text, result.model))
}

/// Lists the folders the client shares. Returns their URIs.
#[tool(read_only)]
async fn list_shared_roots(#[context] client: &Client) -> Result<Vec<String>, ToolError> {
    let roots = client.roots().await?;
    Ok(roots.into_iter().map(|r| r.uri).collect())
}

/// Logs one message at every level, least severe first. Returns the number of messages.
#[tool(read_only)]
fn report_levels(#[context] client: &Client) -> usize {
    for level in LogLevel::ALL {
        client.log(level, level.as_str());
    }
    LogLevel::ALL.len()
}

/// Logs one message at every level from the toolbox's tool threads. Returns the number of
/// messages.
#[tool(read_only, timeout_ms = 30000)]
fn report_levels_slowly(#[context] client: &Client) -> usize {
    let thread = std::thread::current()
        .name()
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        thread, "toolsmith-tool",
        "a sync tool with a timeout: a tool thread"
    );
    for level in LogLevel::ALL {
        client.log_data(level, Some("stock"), json!({"level": level.as_str()}));
    }
    LogLevel::ALL.len()
}

/// The fittings `book_fitting` booked, by item, over every test of this file.
static FITTINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Books a boot fitting for an item, with a confirmation text from the client's model. Returns
/// the confirmation.
#[tool(writes, idempotency_key(item))]
async fn book_fitting(
    #[context] client: &Client,
    /// The boot model, e.g. "hiker".
    item: String,
) -> Result<String, ToolError> {
    let text = client
        .sample(SampleRequest::new(
            format!("Confirm a fitting of {item}"),
            20,
        ))
        .await?;
    FITTINGS.lock().unwrap().push(item);
    Ok(text.text)
}

/// How many fittings `book_fitting` booked for `item`.
fn fittings(item: &str) -> usize {
    FITTINGS
        .lock()
        .unwrap()
        .iter()
        .filter(|i| *i == item)
        .count()
}

/// The ticket `summarize_ticket` reads: a GitHub token and a database password in it.
const TICKET: &str = "Deploy failed with token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB \
                      on postgres://app:hunter2hunter2@db.internal/prod";

/// Summarizes the latest support ticket with the client's model. Returns the summary.
#[tool(read_only)]
async fn summarize_ticket(#[context] client: &Client) -> Result<String, ToolError> {
    let request = SampleRequest::new(format!("Summarize: {TICKET}"), 50)
        .with_system_prompt(format!("Tickets look like: {TICKET}"));
    Ok(client.sample(request).await?.text)
}

/// The approvals `book_boots` was given, over every test of this file.
static APPROVALS: AtomicUsize = AtomicUsize::new(0);

fn toolbox(sink: Arc<MemorySink>) -> Arc<Toolbox> {
    Arc::new(
        Toolbox::builder()
            .tool(ask_boot_size::tool())
            .tool(pick_boot_size::tool())
            .tool(get_boot_price::tool())
            .tool(get_boot_colour::tool())
            .tool(count_boot_stock::tool())
            .tool(summarize_text::tool())
            .tool(list_shared_roots::tool())
            .tool(greet_user::tool())
            .tool(report_levels::tool())
            .tool(report_levels_slowly::tool())
            .tool(book_boots::tool())
            .tool(book_fitting::tool())
            .tool(summarize_ticket::tool())
            .isolate_tools(["pick_boot_size"])
            .shared_approver(sync_approver(|request| {
                APPROVALS.fetch_add(1, Ordering::SeqCst);
                assert_eq!(request.tool, "book_boots");
                Approval::Approved
            }))
            .shared_audit(sink)
            .build()
            .unwrap(),
    )
}

// ------------------------------------------------------------------ rmcp's client

/// The client side: declares the capabilities a test gives it, answers questions as scripted
/// and sampling with a fixed text (or an error), and records what it was sent.
#[derive(Clone)]
struct Person {
    version: ProtocolVersion,
    capabilities: Value,
    answers: Arc<Mutex<VecDeque<ElicitResult>>>,
    sampling_error: Option<ErrorData>,
    questions: Arc<Mutex<Vec<(String, Value)>>>,
    samples: Arc<Mutex<Vec<CreateMessageRequestParams>>>,
    logs: Arc<Mutex<Vec<LoggingMessageNotificationParam>>>,
    /// Never answers a sampling request (the request is recorded).
    silent: bool,
    /// The requests the server said it cancelled (`notifications/cancelled`).
    cancelled: Arc<Mutex<Vec<rmcp::model::CancelledNotificationParam>>>,
    heard_cancel: Arc<tokio::sync::Notify>,
    /// Notified when a sampling request arrives.
    sampled: Arc<tokio::sync::Notify>,
}

impl Person {
    fn new(version: ProtocolVersion, capabilities: Value) -> Self {
        Person {
            version,
            capabilities,
            answers: Arc::default(),
            sampling_error: None,
            questions: Arc::default(),
            samples: Arc::default(),
            logs: Arc::default(),
            silent: false,
            cancelled: Arc::default(),
            heard_cancel: Arc::default(),
            sampled: Arc::default(),
        }
    }

    fn answering(self, answers: impl IntoIterator<Item = ElicitResult>) -> Self {
        self.answers.lock().unwrap().extend(answers);
        self
    }

    fn questions(&self) -> Vec<(String, Value)> {
        self.questions.lock().unwrap().clone()
    }
}

fn accept(content: Value) -> ElicitResult {
    ElicitResult::new(ElicitationAction::Accept).with_content(content)
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = self.version.clone();
        info.capabilities = serde_json::from_value(self.capabilities.clone()).unwrap();
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Err(ErrorData::invalid_params("forms only", None));
        };
        let schema = serde_json::to_value(&requested_schema).unwrap();
        self.questions.lock().unwrap().push((message, schema));
        let answer = self.answers.lock().unwrap().pop_front();
        Ok(answer.unwrap_or_else(|| ElicitResult::new(ElicitationAction::Decline)))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.samples.lock().unwrap().push(params);
        self.sampled.notify_one();
        if self.silent {
            return std::future::pending().await;
        }
        if let Some(e) = &self.sampling_error {
            return Err(e.clone());
        }
        let mut result = CreateMessageResult::new(
            SamplingMessage::assistant_text("Boots, briefly."),
            "test-model".to_string(),
        );
        result.stop_reason = Some(CreateMessageResult::STOP_REASON_END_TURN.to_string());
        Ok(result)
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, ErrorData> {
        let root = rmcp::model::Root::new("file:///home/ann/boots");
        Ok(rmcp::model::ListRootsResult::new(vec![root]))
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params);
    }

    async fn on_cancelled(
        &self,
        params: rmcp::model::CancelledNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.cancelled.lock().unwrap().push(params);
        self.heard_cancel.notify_one();
    }
}

const ELICITATION: &str = r#"{"elicitation": {"form": {}}}"#;
const SAMPLING: &str = r#"{"sampling": {}}"#;
const BOTH: &str = r#"{"sampling": {}, "elicitation": {}}"#;

fn capabilities(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// A session of `person` with a server of `toolbox`, over an in-memory stream or over
/// streamable HTTP on 127.0.0.1; the HTTP server, when there is one, is returned to be shut
/// down.
async fn connect(
    person: Person,
    toolbox: &Arc<Toolbox>,
    http: bool,
) -> (
    RunningService<RoleClient, Person>,
    Option<toolsmith::mcp::HttpServer>,
) {
    connect_to(McpServer::new(Arc::clone(toolbox)), person, http).await
}

/// [`connect`] to a server the test configured.
async fn connect_to(
    server: McpServer,
    person: Person,
    http: bool,
) -> (
    RunningService<RoleClient, Person>,
    Option<toolsmith::mcp::HttpServer>,
) {
    let lifecycle = if person.version.has_initialize() {
        rmcp::service::ClientLifecycleMode::Initialize
    } else {
        rmcp::service::ClientLifecycleMode::Discover {
            preferred_versions: vec![person.version.clone()],
        }
    };
    if http {
        let http = server.bind_http("127.0.0.1:0").await.unwrap();
        let transport =
            rmcp::transport::StreamableHttpClientTransport::from_uri(http.url().as_str());
        let client = rmcp::service::serve_client_with_lifecycle(person, transport, lifecycle)
            .await
            .unwrap();
        (client, Some(http))
    } else {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        tokio::spawn(server.serve(server_end));
        let client = rmcp::service::serve_client_with_lifecycle(person, client_end, lifecycle)
            .await
            .unwrap();
        (client, None)
    }
}

async fn call(
    client: &RunningService<RoleClient, Person>,
    name: &'static str,
    arguments: Value,
) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are objects")
    };
    tokio::time::timeout(
        BOUND,
        client.call_tool(CallToolRequestParams::new(name).with_arguments(arguments)),
    )
    .await
    .expect("the server answers within the bound")
    .unwrap()
}

/// The envelope of a result: the structured data on a plain ok, else the envelope in `_meta`.
fn envelope_of(result: &CallToolResult) -> Value {
    match &result.meta {
        Some(meta) => meta.0[toolsmith::export::ENVELOPE_META_KEY].clone(),
        None => json!({"status": "ok", "data": result.structured_content}),
    }
}

#[track_caller]
fn assert_outcome(result: &CallToolResult, status: Status, code: Option<&str>) {
    let env = envelope_of(result);
    assert_eq!(env["status"], status.as_str(), "{env}");
    assert_eq!(env["code"].as_str(), code, "{env}");
}

async fn finish(
    client: RunningService<RoleClient, Person>,
    http: Option<toolsmith::mcp::HttpServer>,
) {
    client.cancel().await.unwrap();
    if let Some(http) = http {
        http.shutdown().await;
    }
}

#[tokio::test]
async fn a_question_is_answered_declined_or_dismissed_over_a_stream_and_over_http() {
    for http in [false, true] {
        let tb = toolbox(Arc::new(MemorySink::new()));
        let person = Person::new(ProtocolVersion::V_2025_11_25, capabilities(ELICITATION))
            .answering([
                accept(json!({"size": 43})),
                ElicitResult::new(ElicitationAction::Decline),
                ElicitResult::new(ElicitationAction::Cancel),
                accept(json!({"size": 44})),
            ]);
        let (client, server) = connect(person.clone(), &tb, http).await;
        let answered = call(&client, "ask_boot_size", json!({})).await;
        assert_eq!(
            answered.structured_content,
            Some(json!({"result": 43})),
            "http: {http}"
        );
        let declined = call(&client, "ask_boot_size", json!({})).await;
        assert_outcome(
            &declined,
            Status::CancelledByUser,
            Some(codes::CANCELLED_BY_USER),
        );
        let dismissed = call(&client, "ask_boot_size", json!({})).await;
        assert_outcome(
            &dismissed,
            Status::CancelledByUser,
            Some(codes::QUESTION_DISMISSED),
        );
        // From a tool thread: the question still travels with its call.
        let threaded = call(&client, "pick_boot_size", json!({})).await;
        assert_eq!(
            threaded.structured_content,
            Some(json!({"result": 44})),
            "http: {http}"
        );
        // The form is the answer type's fields, with its description and bounds.
        let questions = person.questions();
        assert_eq!(questions.len(), 4);
        let (message, schema) = &questions[0];
        assert_eq!(message, WHICH_SIZE);
        assert_eq!(
            schema,
            &json!({"type": "object", "properties": {"size": {
                "description": "The boot size, 42 to 44.",
                "type": "integer", "minimum": 42, "maximum": 44,
            }}, "required": ["size"]})
        );
        finish(client, server).await;
    }
}

#[tokio::test]
async fn a_client_without_elicitation_gets_needs_input_and_no_question() {
    let tb = toolbox(Arc::new(MemorySink::new()));
    let person = Person::new(ProtocolVersion::V_2025_11_25, capabilities(SAMPLING));
    let (client, server) = connect(person.clone(), &tb, false).await;
    for tool in ["ask_boot_size", "pick_boot_size"] {
        let r = call(&client, tool, json!({})).await;
        assert_outcome(&r, Status::NeedsInput, Some(codes::NEEDS_INPUT));
        assert_eq!(envelope_of(&r)["missing"], json!(["size"]), "{tool}");
        assert_eq!(envelope_of(&r)["message"], WHICH_SIZE, "{tool}");
    }
    let r = call(&client, "get_boot_price", json!({"item": "hiker"})).await;
    assert_outcome(&r, Status::NeedsInput, Some(codes::NEEDS_INPUT));
    assert!(person.questions().is_empty());
    finish(client, server).await;
}

#[tokio::test]
async fn needs_input_becomes_a_question_and_the_call_runs_again_with_the_answer() {
    for http in [false, true] {
        let sink = Arc::new(MemorySink::new());
        let tb = toolbox(Arc::clone(&sink));
        let person = Person::new(ProtocolVersion::V_2025_11_25, capabilities(ELICITATION))
            .answering([
                accept(json!({"size": 43})),
                accept(json!({"colour": "brown"})),
                ElicitResult::new(ElicitationAction::Decline),
                ElicitResult::new(ElicitationAction::Cancel),
                accept(json!({"size": 50})),
                accept(json!({"size": 43, "item": "racer"})),
            ]);
        let (client, server) = connect(person.clone(), &tb, http).await;

        let r = call(&client, "get_boot_price", json!({"item": "hiker"})).await;
        assert_eq!(
            r.structured_content,
            Some(json!({"result": "hiker in 43: 120 EUR"})),
            "http: {http}"
        );
        // The question: the tool's message, the missing parameter with its description.
        let (message, schema) = person.questions()[0].clone();
        assert_eq!(message, WHICH_SIZE);
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {"size": {
                "description": "The boot size, 42 to 44.",
                "type": "integer", "minimum": 42, "maximum": 44,
            }}, "required": ["size"]})
        );
        // The whole pipeline ran twice: the audit has the needs_input, then the answer.
        let statuses: Vec<Option<Status>> = sink
            .records()
            .iter()
            .filter(|r| r.event == AuditEvent::Call && r.tool == "get_boot_price")
            .map(|r| r.status)
            .collect();
        assert_eq!(statuses, [Some(Status::NeedsInput), Some(Status::Ok)]);

        // A tool that needs input again ends the call with it: one question per call.
        let r = call(&client, "get_boot_colour", json!({"item": "hiker"})).await;
        assert_outcome(&r, Status::NeedsInput, Some(codes::NEEDS_INPUT));
        assert_eq!(person.questions().len(), 2);

        // Declined and dismissed.
        let r = call(&client, "get_boot_price", json!({"item": "hiker"})).await;
        assert_outcome(&r, Status::CancelledByUser, Some(codes::CANCELLED_BY_USER));
        let r = call(&client, "get_boot_price", json!({"item": "hiker"})).await;
        assert_outcome(&r, Status::CancelledByUser, Some(codes::QUESTION_DISMISSED));

        // An answer outside the form, and one that tries to change another argument.
        let r = call(&client, "get_boot_price", json!({"item": "hiker"})).await;
        assert_outcome(&r, Status::Failed, Some(codes::INVALID_ANSWER));
        let r = call(&client, "get_boot_price", json!({"item": "hiker"})).await;
        assert_outcome(&r, Status::Failed, Some(codes::INVALID_ANSWER));
        assert!(
            envelope_of(&r)["message"]
                .as_str()
                .unwrap()
                .contains("\"item\", which the question did not ask for"),
            "{}",
            envelope_of(&r)
        );

        // A missing field that is not a parameter cannot be asked: needs_input as it was.
        let r = call(&client, "count_boot_stock", json!({"item": "hiker"})).await;
        assert_outcome(&r, Status::NeedsInput, Some(codes::NEEDS_INPUT));
        assert_eq!(envelope_of(&r)["missing"], json!(["warehouse"]));
        assert_eq!(person.questions().len(), 6, "http: {http}");
        finish(client, server).await;
    }
}

#[tokio::test]
async fn the_second_run_passes_validation_and_approval_again() {
    let sink = Arc::new(MemorySink::new());
    let tb = toolbox(Arc::clone(&sink));
    let person = Person::new(ProtocolVersion::V_2025_11_25, capabilities(ELICITATION)).answering([
        accept(json!({"size_code": "S-43"})),
        accept(json!({"size_code": "43"})),
    ]);
    let (client, server) = connect(person.clone(), &tb, false).await;
    let before = APPROVALS.load(Ordering::SeqCst);
    let r = call(&client, "book_boots", json!({"item": "hiker"})).await;
    assert_eq!(
        r.structured_content,
        Some(json!({"result": "booked hiker S-43"}))
    );
    // Both runs were approved (the first one ran, and answered needs_input); no other test
    // calls `book_boots`.
    assert_eq!(APPROVALS.load(Ordering::SeqCst), before + 2);
    // The form has no `pattern`; the answer that breaks it fails the second run's validation.
    let r = call(&client, "book_boots", json!({"item": "hiker"})).await;
    assert_outcome(&r, Status::InvalidInput, Some(codes::INVALID_ARGUMENT));
    assert!(envelope_of(&r)["message"]
        .as_str()
        .unwrap()
        .contains("size_code"));
    // Its first run was approved; the second stopped at validation, before approval.
    assert_eq!(APPROVALS.load(Ordering::SeqCst), before + 3);
    let statuses: Vec<Option<Status>> = sink
        .records()
        .iter()
        .filter(|r| r.event == AuditEvent::Call && r.tool == "book_boots")
        .map(|r| r.status)
        .collect();
    assert_eq!(
        statuses,
        [
            Some(Status::NeedsInput),
            Some(Status::Ok),
            Some(Status::NeedsInput),
            Some(Status::InvalidInput)
        ]
    );
    finish(client, server).await;
}

#[tokio::test]
async fn sampling_is_answered_refused_or_unsupported() {
    let tb = toolbox(Arc::new(MemorySink::new()));
    let person = Person::new(ProtocolVersion::V_2025_11_25, capabilities(SAMPLING));
    let (client, server) = connect(person.clone(), &tb, true).await;
    let r = call(
        &client,
        "summarize_text",
        json!({"text": "Boots are shoes."}),
    )
    .await;
    assert_eq!(
        r.structured_content,
        Some(json!({"result": "Boots, briefly. (test-model)"}))
    );
    let sent = person.samples.lock().unwrap()[0].clone();
    assert_eq!(
        serde_json::to_value(&sent.messages).unwrap(),
        json!([{"role": "user", "content": {"type": "text", "text": "Summarize: Boots are shoes."}}])
    );
    assert_eq!(sent.system_prompt.as_deref(), Some("Be brief."));
    assert_eq!(sent.max_tokens, 100);
    assert_eq!(
        serde_json::to_value(&sent.model_preferences).unwrap(),
        json!({"hints": [{"name": "claude"}]})
    );
    finish(client, server).await;

    // The user rejects (MCP's -1), or the client fails.
    for (error, status, code) in [
        (
            ErrorData::new(ErrorCode(-1), "User rejected sampling request", None),
            Status::CancelledByUser,
            codes::CANCELLED_BY_USER,
        ),
        (
            ErrorData::internal_error("no model configured", None),
            Status::Failed,
            codes::CLIENT_REJECTED,
        ),
    ] {
        let mut person = Person::new(ProtocolVersion::V_2025_11_25, capabilities(SAMPLING));
        person.sampling_error = Some(error);
        let (client, server) = connect(person, &tb, false).await;
        let r = call(&client, "summarize_text", json!({"text": "x"})).await;
        assert_outcome(&r, status, Some(code));
        finish(client, server).await;
    }

    // No sampling capability: the tool's `?` makes it CLIENT_UNSUPPORTED; nothing was sent.
    let person = Person::new(ProtocolVersion::V_2025_11_25, capabilities(ELICITATION));
    let (client, server) = connect(person.clone(), &tb, false).await;
    let r = call(&client, "summarize_text", json!({"text": "x"})).await;
    assert_outcome(&r, Status::Failed, Some(codes::CLIENT_UNSUPPORTED));
    assert!(envelope_of(&r)["message"]
        .as_str()
        .unwrap()
        .contains("did not declare the sampling capability"));
    assert!(person.samples.lock().unwrap().is_empty());
    finish(client, server).await;
}

#[tokio::test]
async fn protocol_2026_07_28_sends_no_requests_to_the_client() {
    for http in [false, true] {
        let tb = toolbox(Arc::new(MemorySink::new()));
        // Without the capabilities: nothing is asked at all.
        let person = Person::new(ProtocolVersion::V_2026_07_28, capabilities("{}"))
            .answering([accept(json!({"size": 43}))]);
        let (client, server) = connect(person.clone(), &tb, http).await;
        let r = call(&client, "ask_boot_size", json!({})).await;
        assert_outcome(&r, Status::NeedsInput, Some(codes::NEEDS_INPUT));
        let r = call(&client, "get_boot_price", json!({"item": "hiker"})).await;
        assert_outcome(&r, Status::NeedsInput, Some(codes::NEEDS_INPUT));
        // A tool that needs sampling, which the request did not declare: `-32021` naming it.
        let refused = client
            .call_tool(
                CallToolRequestParams::new("summarize_text")
                    .with_arguments(json!({"text": "x"}).as_object().unwrap().clone()),
            )
            .await
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("-32021") || refused.contains("sampling"),
            "{refused}"
        );
        assert!(person.questions().is_empty() && person.samples.lock().unwrap().is_empty());
        finish(client, server).await;
    }
}

/// 2026-07-28: a `needs_input` for parameters of the tool is answered `input_required` with a
/// form; rmcp's client asks its person and sends the call again with the answer and the
/// `requestState`, and the whole pipeline runs again with the answer in the arguments.
#[tokio::test]
async fn in_2026_07_28_needs_input_is_asked_through_an_input_required_result() {
    for http in [false, true] {
        let sink = Arc::new(MemorySink::new());
        let tb = toolbox(Arc::clone(&sink));
        let person = Person::new(ProtocolVersion::V_2026_07_28, capabilities(BOTH)).answering([
            accept(json!({"size": 43})),
            ElicitResult::new(ElicitationAction::Decline),
            accept(json!({"size": 50})),
        ]);
        let (client, server) = connect(person.clone(), &tb, http).await;
        let r = call(&client, "get_boot_price", json!({"item": "hiker"})).await;
        assert_eq!(
            r.structured_content,
            Some(json!("hiker in 43: 120 EUR")),
            "http: {http}: {r:?}"
        );
        let (message, schema) = person.questions()[0].clone();
        assert_eq!(message, WHICH_SIZE);
        assert_eq!(schema["required"], json!(["size"]));
        let statuses: Vec<Option<Status>> = sink
            .records()
            .iter()
            .filter(|r| r.event == AuditEvent::Call && r.tool == "get_boot_price")
            .map(|r| r.status)
            .collect();
        assert_eq!(statuses, [Some(Status::NeedsInput), Some(Status::Ok)]);
        let r = call(&client, "get_boot_price", json!({"item": "hiker"})).await;
        assert_outcome(&r, Status::CancelledByUser, Some(codes::CANCELLED_BY_USER));
        let r = call(&client, "get_boot_price", json!({"item": "hiker"})).await;
        assert_outcome(&r, Status::Failed, Some(codes::INVALID_ANSWER));
        // A question inside a tool goes in a round too (the person has no answer left).
        let r = call(&client, "ask_boot_size", json!({})).await;
        assert_outcome(&r, Status::CancelledByUser, Some(codes::CANCELLED_BY_USER));
        assert_eq!(person.questions().len(), 4, "http: {http}");
        finish(client, server).await;
    }
}

/// One `tools/call` without driving its rounds: the `input_required` result comes back as is.
async fn call_once(
    client: &RunningService<RoleClient, Person>,
    params: CallToolRequestParams,
) -> Result<rmcp::model::CallToolResponse, rmcp::ServiceError> {
    tokio::time::timeout(BOUND, client.call_tool_once(params))
        .await
        .expect("answered within the bound")
}

/// 2026-07-28: a tool's own requests (`Client::ask`, `Client::sample`) go to the client in
/// `input_required` results, round after round, the tool running again from the start each
/// time with every answer so far; rmcp's client drives the rounds.
#[tokio::test]
async fn in_2026_07_28_a_tools_questions_and_samples_go_in_rounds() {
    for http in [false, true] {
        let sink = Arc::new(MemorySink::new());
        let tb = toolbox(Arc::clone(&sink));
        let person = Person::new(ProtocolVersion::V_2026_07_28, capabilities(BOTH))
            .answering([accept(json!({"size": 44})), accept(json!({"name": "Ann"}))]);
        let (client, server) = connect(person.clone(), &tb, http).await;
        let r = call(&client, "ask_boot_size", json!({})).await;
        assert_eq!(r.structured_content, Some(json!(44)), "http: {http}: {r:?}");
        let r = call(&client, "summarize_text", json!({"text": "boots"})).await;
        assert_eq!(
            r.structured_content,
            Some(json!("Boots, briefly. (test-model)")),
            "{r:?}"
        );
        // Two rounds: the question, then the sample (the answer carried in the state).
        let r = call(&client, "greet_user", json!({})).await;
        assert_eq!(
            r.structured_content,
            Some(json!("Hello, Ann! Boots, briefly.")),
            "{r:?}"
        );
        assert_eq!(person.questions().len(), 2);
        assert_eq!(person.samples.lock().unwrap().len(), 2);
        let runs = sink
            .records()
            .iter()
            .filter(|r| r.event == AuditEvent::Call && r.tool == "greet_user")
            .count();
        assert_eq!(runs, 3, "a run per round");
        finish(client, server).await;
    }
}

/// The state of a tool's own requests is sealed like a `needs_input`'s; answers sent up front
/// under a request's name (no state) are the tool's answers; a retry with the answer to the
/// first request and without the state asks the next one.
#[tokio::test]
async fn a_tools_own_requests_are_answered_by_name_and_their_state_is_sealed() {
    use rmcp::model::{CallToolResponse, InputResponses};
    let tb = toolbox(Arc::new(MemorySink::new()));
    let person = Person::new(ProtocolVersion::V_2026_07_28, capabilities(BOTH));
    let (client, server) = connect(person, &tb, false).await;
    let once = |p: CallToolRequestParams| call_once(&client, p);
    let greet = || CallToolRequestParams::new("greet_user").with_arguments(Default::default());
    let first = once(greet()).await.unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("expected input_required, got {first:?}")
    };
    let requests = asked.input_requests.clone().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["user_name"]);
    let state = asked.request_state.clone().unwrap();
    let mut name = InputResponses::new();
    name.insert(
        "user_name".into(),
        json!({"action": "accept", "content": {"name": "Bo"}}),
    );
    // Edited: refused.
    let r = once(
        greet()
            .with_input_responses(name.clone())
            .with_request_state(format!("{state}x")),
    )
    .await;
    assert!(
        matches!(&r, Err(rmcp::ServiceError::McpError(e)) if e.code == rmcp::model::ErrorCode::INVALID_PARAMS),
        "{r:?}"
    );
    // Up front, without a state: the question is answered, the sample is asked next, with a
    // state that carries the name.
    let r = once(greet().with_input_responses(name.clone()))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(next) = r else {
        panic!("expected input_required, got {r:?}")
    };
    assert_eq!(
        next.input_requests
            .as_ref()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["greeting"]
    );
    let mut greeting = InputResponses::new();
    greeting.insert(
        "greeting".into(),
        json!({"role": "assistant", "content": {"type": "text", "text": "Welcome."},
               "model": "m"}),
    );
    let r = once(
        greet()
            .with_input_responses(greeting)
            .with_request_state(next.request_state.unwrap()),
    )
    .await
    .unwrap();
    let CallToolResponse::Complete(done) = r else {
        panic!("expected a result, got {r:?}")
    };
    assert_eq!(done.structured_content, Some(json!("Hello, Bo! Welcome.")));
    finish(client, server).await;
}

/// The `requestState` of an `input_required` result is sealed: an edited one, one presented
/// with other arguments, and one presented for another tool are refused with a JSON-RPC error
/// (`-32602`) that says why; a retry without the answer is asked again; answers sent up front
/// without a state are not trusted (the call runs as sent).
#[tokio::test]
async fn an_input_required_state_is_sealed_to_its_call() {
    use rmcp::model::{CallToolResponse, InputResponses};
    let tb = toolbox(Arc::new(MemorySink::new()));
    let person = Person::new(ProtocolVersion::V_2026_07_28, capabilities(ELICITATION));
    let (client, server) = connect(person, &tb, false).await;
    let params = |name: &'static str, args: Value| {
        let Value::Object(args) = args else {
            unreachable!()
        };
        CallToolRequestParams::new(name).with_arguments(args)
    };
    let once = |p: CallToolRequestParams| call_once(&client, p);
    let hiker = json!({"item": "hiker"});
    let first = once(params("get_boot_price", hiker.clone())).await.unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("expected input_required, got {first:?}")
    };
    let state = asked.request_state.clone().unwrap();
    assert!(asked
        .input_requests
        .as_ref()
        .unwrap()
        .contains_key("needs_input"));
    let mut answer = InputResponses::new();
    answer.insert(
        "needs_input".into(),
        json!({"action": "accept", "content": {"size": 42}}),
    );
    let refused = |r: Result<CallToolResponse, rmcp::ServiceError>, why: &str| match r {
        Err(rmcp::ServiceError::McpError(e)) => {
            assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{e:?}");
            assert!(e.message.contains(why), "{e:?}");
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    };
    // Edited.
    let tampered = format!("{state}-TAMPERED");
    let r = once(
        params("get_boot_price", hiker.clone())
            .with_input_responses(answer.clone())
            .with_request_state(tampered),
    )
    .await;
    refused(r, "does not verify");
    // Other arguments.
    let r = once(
        params("get_boot_price", json!({"item": "racer"}))
            .with_input_responses(answer.clone())
            .with_request_state(state.clone()),
    )
    .await;
    refused(r, "does not verify");
    // Another tool with the same arguments.
    let r = once(
        params("get_boot_colour", hiker.clone())
            .with_input_responses(answer.clone())
            .with_request_state(state.clone()),
    )
    .await;
    refused(r, "issued for the tool \"get_boot_price\"");
    // No answer: asked again.
    let r = once(params("get_boot_price", hiker.clone()).with_request_state(state.clone()))
        .await
        .unwrap();
    assert!(matches!(r, CallToolResponse::InputRequired(_)), "{r:?}");
    // The answer with the state as issued: done.
    let r = once(
        params("get_boot_price", hiker.clone())
            .with_input_responses(answer.clone())
            .with_request_state(state),
    )
    .await
    .unwrap();
    let CallToolResponse::Complete(done) = r else {
        panic!("expected a result, got {r:?}")
    };
    assert_eq!(done.structured_content, Some(json!("hiker in 42: 120 EUR")));
    // Answers without a state are not trusted: the call runs as sent.
    let r = once(params("get_boot_price", hiker).with_input_responses(answer))
        .await
        .unwrap();
    assert!(matches!(r, CallToolResponse::InputRequired(_)), "{r:?}");
    finish(client, server).await;
}

/// The expiry a `requestState` carries (its payload is base64url JSON, `e` in seconds).
fn expiry_of(state: &str) -> u64 {
    use base64::Engine as _;
    let payload = state.split('.').next().unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice::<Value>(&bytes).unwrap()["e"]
        .as_u64()
        .unwrap()
}

/// A `requestState` is bound to its caller and to the key that sealed it: another caller's
/// retry and a server with another key refuse it (`-32602`), while another replica that shares
/// the key serves it (the answer completes the call there). A state presented again without
/// an answer is answered with a state that keeps the first one's expiry, so a client cannot
/// keep a call's state alive by presenting it over and over.
#[tokio::test]
async fn a_request_state_is_bound_to_its_caller_and_key_and_served_by_any_replica_sharing_it() {
    use rmcp::model::{CallToolResponse, InputResponses};
    use toolsmith::{Caller, SecretKey};
    let tb = toolbox(Arc::new(MemorySink::new()));
    let key = SecretKey::from_bytes([7; 32]);
    let replica = |caller: &str, key: &SecretKey| {
        McpServer::new(Arc::clone(&tb))
            .caller(Caller::new(caller))
            .request_state_key(key.clone())
    };
    let person = || Person::new(ProtocolVersion::V_2026_07_28, capabilities(ELICITATION));
    let price = |state: Option<String>, answer: Option<&InputResponses>| {
        let Value::Object(args) = json!({"item": "hiker"}) else {
            unreachable!()
        };
        let mut p = CallToolRequestParams::new("get_boot_price").with_arguments(args);
        if let Some(state) = state {
            p = p.with_request_state(state);
        }
        if let Some(answer) = answer {
            p = p.with_input_responses(answer.clone());
        }
        p
    };
    let asked = |r: CallToolResponse| match r {
        CallToolResponse::InputRequired(asked) => asked.request_state.unwrap(),
        other => panic!("expected input_required, got {other:?}"),
    };
    let (ann_a, server) = connect_to(replica("ann", &key), person(), false).await;
    let state = asked(call_once(&ann_a, price(None, None)).await.unwrap());
    // Presented again without an answer: asked again, under the first state's expiry.
    // (The unit tests of `input_required` show it with a state issued earlier.)
    let again = asked(
        call_once(&ann_a, price(Some(state.clone()), None))
            .await
            .unwrap(),
    );
    assert_eq!(expiry_of(&again), expiry_of(&state));
    let mut answer = InputResponses::new();
    answer.insert(
        "needs_input".into(),
        json!({"action": "accept", "content": {"size": 43}}),
    );
    for (caller, key, why) in [
        ("bob", key.clone(), "does not verify"),
        ("ann", SecretKey::from_bytes([8; 32]), "does not verify"),
    ] {
        let (client, other) = connect_to(replica(caller, &key), person(), false).await;
        match call_once(&client, price(Some(state.clone()), Some(&answer))).await {
            Err(rmcp::ServiceError::McpError(e)) => {
                assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{e:?}");
                assert!(e.message.contains(why), "{caller}: {e:?}");
            }
            other => panic!("{caller}: expected a JSON-RPC error, got {other:?}"),
        }
        finish(client, other).await;
    }
    // Another replica of the same caller sharing the key: the answer completes the call there.
    let (ann_b, other) = connect_to(replica("ann", &key), person(), false).await;
    let r = call_once(&ann_b, price(Some(again), Some(&answer)))
        .await
        .unwrap();
    let CallToolResponse::Complete(done) = r else {
        panic!("expected a result, got {r:?}")
    };
    assert_eq!(done.structured_content, Some(json!("hiker in 43: 120 EUR")));
    finish(ann_b, other).await;
    finish(ann_a, server).await;
}

#[tokio::test]
async fn log_messages_reach_an_http_client_at_its_level() {
    let tb = toolbox(Arc::new(MemorySink::new()));
    let person = Person::new(ProtocolVersion::V_2025_11_25, capabilities("{}"));
    let (client, server) = connect(person.clone(), &tb, true).await;
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Error))
        .await
        .unwrap();
    let r = call(&client, "report_levels_slowly", json!({})).await;
    assert_eq!(r.structured_content, Some(json!({"result": 8})));
    // Over HTTP the messages travel on the session's own stream, apart from the result.
    let levels = tokio::time::timeout(BOUND, async {
        loop {
            let levels: Vec<Value> = person
                .logs
                .lock()
                .unwrap()
                .iter()
                .map(|m| m.data["level"].clone())
                .collect();
            if levels.len() >= 4 {
                return levels;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the log messages arrive");
    assert_eq!(levels, ["error", "critical", "alert", "emergency"]);
    assert!(person
        .logs
        .lock()
        .unwrap()
        .iter()
        .all(|m| m.logger.as_deref() == Some("stock")));
    finish(client, server).await;
}

// ------------------------------------------------------------------ raw JSON-RPC over a stream

struct Raw {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    /// Every message received, in order.
    seen: Vec<Value>,
}

impl Raw {
    /// A session of `server` (a clone: sessions of one server), before any message.
    fn connect(server: &McpServer) -> Raw {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        tokio::spawn(server.clone().serve(server_end));
        let (read, write) = tokio::io::split(client_end);
        Raw {
            write,
            lines: BufReader::new(read).lines(),
            seen: Vec::new(),
        }
    }

    /// A session after the `initialize` handshake of `version` (a 2025 revision), declaring
    /// `capabilities`.
    async fn start(server: &McpServer, version: &str, capabilities: Value) -> Raw {
        let mut raw = Raw::connect(server);
        raw.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": capabilities,
            "clientInfo": {"name": "raw", "version": "1"}}}),
        )
        .await;
        let init = raw.response(1).await;
        assert_eq!(
            init["result"]["capabilities"]["logging"],
            json!({}),
            "{init}"
        );
        raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        raw
    }

    async fn send(&mut self, message: Value) {
        let text = message.to_string();
        self.write.write_all(text.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
        self.write.flush().await.unwrap();
    }

    /// Reads until a message `pick` accepts; every message read is kept in `seen`.
    async fn until(&mut self, pick: impl Fn(&Value) -> bool) -> Value {
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
                if pick(&message) {
                    return message;
                }
            }
        })
        .await
        .expect("the message arrives within the bound")
    }

    /// Reads until the response (result or error) to `id`.
    async fn response(&mut self, id: u64) -> Value {
        self.until(|m| m["id"] == id && m.get("method").is_none())
            .await
    }

    /// Reads until the server's request `method`.
    async fn request(&mut self, method: &str) -> Value {
        self.until(|m| m["method"] == method && m.get("id").is_some())
            .await
    }

    /// The `notifications/message` received since `from`, as (level, data).
    fn logs_since(&self, from: usize) -> Vec<(String, Value)> {
        self.seen[from..]
            .iter()
            .filter(|m| m["method"] == "notifications/message")
            .map(|m| {
                let level = m["params"]["level"].as_str().unwrap().to_string();
                (level, m["params"]["data"].clone())
            })
            .collect()
    }
}

fn tools_call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

fn names(levels: &[LogLevel]) -> Vec<String> {
    levels.iter().map(|l| l.as_str().to_string()).collect()
}

#[tokio::test]
async fn log_messages_follow_the_level_each_session_set_and_conform_to_the_schema() {
    let validator = fixture::definition_validator("2025-11-25", "LoggingMessageNotification");
    let server = McpServer::new(toolbox(Arc::new(MemorySink::new())));
    let mut one = Raw::start(&server, "2025-11-25", json!({})).await;
    let mut two = Raw::start(&server, "2025-11-25", json!({})).await;

    // Before the client sets a level, every message is sent, before the call's result.
    let from = one.seen.len();
    one.send(tools_call(2, "report_levels", json!({}))).await;
    one.response(2).await;
    let sent = one.logs_since(from);
    let levels: Vec<String> = sent.iter().map(|(l, _)| l.clone()).collect();
    assert_eq!(levels, names(&LogLevel::ALL));
    assert!(sent.iter().all(|(l, data)| data == l), "{sent:?}");
    for m in one.seen[from..]
        .iter()
        .filter(|m| m["method"] == "notifications/message")
    {
        let errors: Vec<String> = validator.iter_errors(m).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{m}: {errors:?}");
    }

    // At `warning`: warning and above, from a tool run in place and from a tool thread.
    one.send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel",
        "params": {"level": "warning"}}),
    )
    .await;
    assert_eq!(one.response(3).await["result"], json!({}));
    for (id, tool) in [(4, "report_levels"), (5, "report_levels_slowly")] {
        let from = one.seen.len();
        one.send(tools_call(id, tool, json!({}))).await;
        let done = one.response(id).await;
        assert_eq!(
            done["result"]["structuredContent"],
            json!({"result": 8}),
            "{tool}"
        );
        let levels: Vec<String> = one.logs_since(from).into_iter().map(|(l, _)| l).collect();
        assert_eq!(levels, names(&LogLevel::ALL[3..]), "{tool}");
    }
    let logger: Vec<&Value> = one
        .seen
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| &m["params"]["logger"])
        .collect();
    assert_eq!(logger.last().unwrap().as_str(), Some("stock"));

    // The other session of the same server set no level: it still gets every message.
    let from = two.seen.len();
    two.send(tools_call(2, "report_levels", json!({}))).await;
    two.response(2).await;
    assert_eq!(two.logs_since(from).len(), 8);

    // A level that is not one of the eight is an error (rmcp's protocol edge answers it), and
    // the session's level stays as it was.
    one.send(
        json!({"jsonrpc": "2.0", "id": 6, "method": "logging/setLevel",
        "params": {"level": "verbose"}}),
    )
    .await;
    let refused = one.response(6).await;
    assert!(refused["error"]["code"].is_i64(), "{refused}");
    let from = one.seen.len();
    one.send(tools_call(7, "report_levels", json!({}))).await;
    one.response(7).await;
    assert_eq!(one.logs_since(from).len(), 5);
}

#[tokio::test]
async fn in_2026_07_28_a_call_gets_log_messages_only_at_the_level_it_names() {
    let server = McpServer::new(toolbox(Arc::new(MemorySink::new())));
    let mut raw = Raw::connect(&server);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    });
    raw.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": meta}}),
    )
    .await;
    raw.response(1).await;
    let mut with_level = meta.clone();
    with_level["io.modelcontextprotocol/logLevel"] = json!("error");
    for (id, meta, expected) in [(2, &meta, 0), (3, &with_level, 4)] {
        let from = raw.seen.len();
        raw.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "report_levels", "arguments": {}, "_meta": meta}}),
        )
        .await;
        let done = raw.response(id).await;
        // 2026-07-28 does not wrap a result that is not an object.
        assert_eq!(done["result"]["structuredContent"], json!(8), "{done}");
        let levels: Vec<String> = raw.logs_since(from).into_iter().map(|(l, _)| l).collect();
        assert_eq!(levels, names(&LogLevel::ALL[8 - expected..]));
    }
    // 2026-07-28 has no logging/setLevel.
    raw.send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel",
        "params": {"level": "debug", "_meta": meta}}),
    )
    .await;
    assert_eq!(raw.response(4).await["error"]["code"], -32601);
}

#[tokio::test]
async fn the_requests_a_tool_sends_conform_to_the_schema_of_each_2025_revision() {
    for version in ["2025-06-18", "2025-11-25"] {
        let sink = Arc::new(MemorySink::new());
        let server = McpServer::new(toolbox(Arc::clone(&sink)));
        let mut raw =
            Raw::start(&server, version, json!({"elicitation": {}, "sampling": {}})).await;

        // The question for a needs_input, answered on the wire.
        raw.send(tools_call(2, "get_boot_price", json!({"item": "hiker"})))
            .await;
        let question = raw.request("elicitation/create").await;
        let validator = fixture::definition_validator(version, "ElicitRequest");
        let errors: Vec<String> = validator
            .iter_errors(&question)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{version}: {question}: {errors:?}");
        assert_eq!(question["params"]["message"], WHICH_SIZE);
        assert_eq!(
            question["params"]["requestedSchema"]["required"],
            json!(["size"])
        );
        raw.send(json!({"jsonrpc": "2.0", "id": question["id"], "result": {
            "action": "accept", "content": {"size": 42}}}))
            .await;
        let done = raw.response(2).await;
        assert_eq!(
            done["result"]["structuredContent"],
            json!({"result": "hiker in 42: 120 EUR"}),
            "{version}: {done}"
        );

        // A sampling request, answered on the wire.
        raw.send(tools_call(3, "summarize_text", json!({"text": "Boots."})))
            .await;
        let sample = raw.request("sampling/createMessage").await;
        let validator = fixture::definition_validator(version, "CreateMessageRequest");
        let errors: Vec<String> = validator
            .iter_errors(&sample)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{version}: {sample}: {errors:?}");
        raw.send(json!({"jsonrpc": "2.0", "id": sample["id"], "result": {
            "role": "assistant", "content": {"type": "text", "text": "Short."},
            "model": "wire-model", "stopReason": "endTurn"}}))
            .await;
        let done = raw.response(3).await;
        assert_eq!(
            done["result"]["structuredContent"],
            json!({"result": "Short. (wire-model)"}),
            "{version}: {done}"
        );

        // A question the client answers with an error: the needs_input stands.
        raw.send(tools_call(4, "get_boot_price", json!({"item": "hiker"})))
            .await;
        let question = raw.request("elicitation/create").await;
        raw.send(json!({"jsonrpc": "2.0", "id": question["id"], "error": {
            "code": -32603, "message": "no user present"}}))
            .await;
        let done = raw.response(4).await;
        assert_eq!(
            done["result"]["_meta"][toolsmith::export::ENVELOPE_META_KEY]["status"],
            "needs_input",
            "{version}: {done}"
        );
    }
}

// ------------------------------------------------------------------ outside MCP

#[tokio::test]
async fn outside_mcp_each_request_degrades_as_documented() {
    let tb = toolbox(Arc::new(MemorySink::new()));
    let asked = tb.call("ask_boot_size", json!({})).await;
    assert_eq!(asked.status, Status::NeedsInput);
    assert_eq!(asked.missing, ["size"]);
    assert_eq!(asked.message.as_deref(), Some(WHICH_SIZE));
    let threaded = tb.call("pick_boot_size", json!({})).await;
    assert_eq!(threaded.status, Status::NeedsInput);
    let sampled = tb.call("summarize_text", json!({"text": "x"})).await;
    assert_eq!(sampled.status, Status::Failed);
    assert_eq!(sampled.code.as_deref(), Some(codes::CLIENT_UNSUPPORTED));
    let logged = tb.call("report_levels", json!({})).await;
    assert_eq!((logged.status, logged.data), (Status::Ok, Some(json!(8))));
    let price = tb.call("get_boot_price", json!({"item": "hiker"})).await;
    assert_eq!(price.status, Status::NeedsInput);
}

/// A client that declares elicitation, notes each question, and never answers it.
#[derive(Clone, Default)]
struct Silent {
    asked: Arc<tokio::sync::Notify>,
}

impl ClientHandler for Silent {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info.capabilities = serde_json::from_value(capabilities(ELICITATION)).unwrap();
        info
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.notify_one();
        std::future::pending().await
    }
}

/// A stream session whose input closes while a tool waits for the user's answer ends at once:
/// the question is answered `CLIENT_CLOSED` inside the server, and the session does not wait
/// for rmcp's grace period (5 s) on it.
#[tokio::test]
async fn a_stream_session_ends_promptly_when_its_input_closes_during_a_question() {
    let tb = toolbox(Arc::new(MemorySink::new()));
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    let server = tokio::spawn(McpServer::new(Arc::clone(&tb)).serve(server_end));
    let silent = Silent::default();
    let client = rmcp::service::serve_client(silent.clone(), client_end)
        .await
        .unwrap();
    let peer = client.peer().clone();
    let call = tokio::spawn(async move {
        let _ = peer
            .call_tool(CallToolRequestParams::new("ask_boot_size"))
            .await;
    });
    tokio::time::timeout(BOUND, silent.asked.notified())
        .await
        .expect("the question reaches the client");
    // (rmcp's client itself takes its own grace period here: its handler never answers.)
    client.cancel().await.unwrap();
    tokio::time::timeout(Duration::from_secs(3), server)
        .await
        .expect("the session ends within 3 s of its input closing")
        .unwrap()
        .unwrap();
    call.abort();
}

// ------------------------------------------------------------------ keyed writes that ask

/// The `data` of a result's envelope, as its first text block carries it (in every revision).
fn data_of(result: &CallToolResult) -> Value {
    let block = serde_json::to_value(&result.content[0]).unwrap();
    let env: Value = serde_json::from_str(block["text"].as_str().unwrap()).unwrap();
    env["data"].clone()
}

/// A keyed write that asks the client's model before it acts, and gets no answer it can use:
/// from a client that cannot sample, one that never answers (the server's bound passes and it
/// tells the client the request is cancelled), and in 2026-07-28's rounds. Each time the tool
/// did not act, so the key is released: the retry (here from another anonymous client, which
/// shares the scope) runs, once, and the repeat after it is a `DUPLICATE`. Before, every retry
/// within the hour was a `DUPLICATE` of a fitting that was never booked.
#[tokio::test]
async fn a_keyed_write_whose_request_goes_unanswered_releases_its_key() {
    let tb = toolbox(Arc::new(MemorySink::new()));
    let answering = || Person::new(ProtocolVersion::V_2025_11_25, capabilities(SAMPLING));
    let args = |item: &str| json!({"item": item});

    // A client without the sampling capability, twice: the tool never acted.
    let person = Person::new(ProtocolVersion::V_2025_11_25, capabilities(ELICITATION));
    let (client, server) = connect(person, &tb, false).await;
    for _ in 0..2 {
        let r = call(&client, "book_fitting", args("unsupported")).await;
        assert_outcome(&r, Status::Failed, Some(codes::CLIENT_UNSUPPORTED));
    }
    finish(client, server).await;
    let (client, server) = connect(answering(), &tb, false).await;
    let r = call(&client, "book_fitting", args("unsupported")).await;
    assert_eq!(data_of(&r), json!("Boots, briefly."), "{r:?}");
    let r = call(&client, "book_fitting", args("unsupported")).await;
    assert_outcome(&r, Status::Refused, Some(codes::DUPLICATE));
    finish(client, server).await;
    assert_eq!(fittings("unsupported"), 1);

    // A client that never answers, over both transports: the server's bound.
    for http in [false, true] {
        let item = if http { "silent-http" } else { "silent-stream" };
        let mut person = answering();
        person.silent = true;
        let bounded = McpServer::new(Arc::clone(&tb)).client_timeout(Duration::from_millis(300));
        let (client, server) = connect_to(bounded, person.clone(), http).await;
        let r = call(&client, "book_fitting", args(item)).await;
        assert_outcome(&r, Status::Failed, Some(codes::CLIENT_TIMEOUT));
        tokio::time::timeout(BOUND, person.heard_cancel.notified())
            .await
            .expect("the client is told the request is cancelled");
        let cancelled = person.cancelled.lock().unwrap()[0].clone();
        assert!(cancelled.request_id.is_some(), "{cancelled:?}");
        finish(client, server).await;
        let (client, server) = connect(answering(), &tb, http).await;
        let r = call(&client, "book_fitting", args(item)).await;
        assert_eq!(data_of(&r), json!("Boots, briefly."), "{r:?}");
        finish(client, server).await;
        assert_eq!(fittings(item), 1, "http: {http}");
    }

    // A client that cancels its call instead of answering (the server drops the call while the
    // tool waits): the tool did not act, and the retry runs.
    let mut person = answering();
    person.silent = true;
    let (client, server) = connect(person.clone(), &tb, false).await;
    let Value::Object(arguments) = args("cancelled") else {
        unreachable!()
    };
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
        CallToolRequestParams::new("book_fitting").with_arguments(arguments),
    ));
    let handle = client
        .peer()
        .send_cancellable_request(request, Default::default())
        .await
        .unwrap();
    tokio::time::timeout(BOUND, person.sampled.notified())
        .await
        .expect("the question reaches the client");
    handle
        .cancel(Some("the user closed the dialog".into()))
        .await
        .unwrap();
    finish(client, server).await;
    let (client, server) = connect(answering(), &tb, false).await;
    let mut r = call(&client, "book_fitting", args("cancelled")).await;
    // The dropped call's claim is released by the gate as the call is dropped; until the server
    // has dropped it, the retry is told it is in progress.
    for _ in 0..1000 {
        if envelope_of(&r)["code"] != codes::IN_PROGRESS {
            break;
        }
        tokio::task::yield_now().await;
        r = call(&client, "book_fitting", args("cancelled")).await;
    }
    assert_eq!(data_of(&r), json!("Boots, briefly."), "{r:?}");
    finish(client, server).await;
    assert_eq!(fittings("cancelled"), 1);

    // 2026-07-28: the request goes in an input_required result; the client's retry with the
    // answer runs the write once.
    let person = Person::new(ProtocolVersion::V_2026_07_28, capabilities(SAMPLING));
    let (client, server) = connect(person.clone(), &tb, false).await;
    let r = call(&client, "book_fitting", args("rounds")).await;
    assert_eq!(data_of(&r), json!("Boots, briefly."), "{r:?}");
    let r = call(&client, "book_fitting", args("rounds")).await;
    assert_outcome(&r, Status::Refused, Some(codes::DUPLICATE));
    assert_eq!(person.samples.lock().unwrap().len(), 1);
    finish(client, server).await;
    assert_eq!(fittings("rounds"), 1);
}

/// What a tool sends the client's model passes the toolbox's redactor, as its results do: a
/// token and a password in a `sampling/createMessage` (2025-11-25) and in the
/// `inputRequests` of an `input_required` result (2026-07-28) are masked.
#[tokio::test]
async fn a_sampling_request_carries_no_secret_to_the_clients_model() {
    use rmcp::model::CallToolResponse;
    let tb = toolbox(Arc::new(MemorySink::new()));
    let person = Person::new(ProtocolVersion::V_2025_11_25, capabilities(SAMPLING));
    let (client, server) = connect(person.clone(), &tb, true).await;
    let r = call(&client, "summarize_ticket", json!({})).await;
    assert_eq!(
        r.structured_content,
        Some(json!({"result": "Boots, briefly."})),
        "{r:?}"
    );
    let sent = serde_json::to_string(&person.samples.lock().unwrap()[0]).unwrap();
    finish(client, server).await;

    let person = Person::new(ProtocolVersion::V_2026_07_28, capabilities(SAMPLING));
    let (client, server) = connect(person, &tb, false).await;
    let asked = call_once(&client, CallToolRequestParams::new("summarize_ticket"))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = asked else {
        panic!("expected input_required, got {asked:?}")
    };
    let rounds = serde_json::to_string(&asked.input_requests).unwrap();
    finish(client, server).await;
    for text in [sent, rounds] {
        assert!(
            !text.contains("ghp_0123") && !text.contains("hunter2"),
            "{text}"
        );
        assert!(text.contains("[REDACTED:github_token]"), "{text}");
        assert!(text.contains("Summarize: Deploy failed"), "{text}");
    }
}

/// `Client::roots`: a `roots/list` request to a 2025-11-25 client that declares roots, a
/// request in the call's rounds for a 2026-07-28 one (rmcp's client answers it and calls
/// again), `CLIENT_UNSUPPORTED` for a 2025 client without the capability and `-32021` naming
/// `roots` for a 2026-07-28 request without it.
#[tokio::test]
async fn the_clients_roots_are_listed_in_every_revision() {
    let tb = toolbox(Arc::new(MemorySink::new()));
    for (version, http) in [
        (ProtocolVersion::V_2025_11_25, false),
        (ProtocolVersion::V_2025_11_25, true),
        (ProtocolVersion::V_2026_07_28, false),
        (ProtocolVersion::V_2026_07_28, true),
    ] {
        let person = Person::new(version.clone(), json!({"roots": {}, "elicitation": {}}));
        let (client, server) = connect(person, &tb, http).await;
        let r = call(&client, "list_shared_roots", json!({})).await;
        let roots = json!(["file:///home/ann/boots"]);
        // 2025 revisions wrap a result that is not an object; 2026-07-28 takes any JSON.
        let expected = if version == ProtocolVersion::V_2026_07_28 {
            roots
        } else {
            json!({ "result": roots })
        };
        assert_eq!(envelope_of(&r)["data"], expected, "{version:?}: {r:?}");
        finish(client, server).await;
    }
    let person = Person::new(ProtocolVersion::V_2025_11_25, json!({}));
    let (client, server) = connect(person, &tb, false).await;
    let r = call(&client, "list_shared_roots", json!({})).await;
    assert_outcome(&r, Status::Failed, Some(codes::CLIENT_UNSUPPORTED));
    finish(client, server).await;
    let (http, url) = {
        let http = McpServer::new(Arc::clone(&tb))
            .bind_http("127.0.0.1:0")
            .await
            .unwrap();
        let url = http.url();
        (http, url)
    };
    let (status, answer) = fixture::post_2026(
        &url,
        "tools/call",
        json!({"name": "list_shared_roots", "arguments": {}}),
        json!({"elicitation": {}}),
        &[],
    )
    .await;
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    assert_eq!(
        answer["error"]["data"]["requiredCapabilities"],
        json!({"roots": {}}),
        "{answer}"
    );
    assert_eq!(status, 400);
    http.shutdown().await;
}
