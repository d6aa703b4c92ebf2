//! The client handle (`toolsmith_core::Client`): the forms a question may have, the check of an
//! answer, what each answer and error of a client makes of a tool's request, the degradation
//! outside a transport, and the handle on the toolbox's tool threads. The MCP side (rmcp's
//! client answering) is in the facade's `tests/it/mcp_client.rs`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use toolsmith_core::{
    codes, with_client, with_progress, Status, Tool, ToolError, ToolSpec, Toolbox,
};
use toolsmith_core::{
    Answer, Client, ClientChannel, ClientError, ClientFuture, LogLevel, LogMessage, Progress,
    ProgressReport, ProgressSink, Question, SampleRequest, SampleResult,
};

#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
enum Speed {
    /// Three to five days
    Standard,
    /// Next day
    Express,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Size {
    Small,
    Large,
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
struct Shipping {
    /// Where to send the receipt
    #[schemars(email)]
    email: String,
    /// How many boxes
    #[schemars(range(min = 1, max = 9))]
    boxes: u32,
    express: Option<bool>,
    speed: Speed,
    size: Option<Size>,
    weight: f64,
}

#[test]
fn a_struct_of_flat_fields_is_a_form_with_its_descriptions_bounds_and_choices() {
    let q = Question::of::<Shipping>("Where and how should it ship?").unwrap();
    assert_eq!(q.message(), "Where and how should it ship?");
    assert_eq!(
        q.fields(),
        ["email", "boxes", "express", "speed", "size", "weight"]
    );
    assert_eq!(
        q.schema(),
        &json!({
            "type": "object",
            "properties": {
                "email": {"description": "Where to send the receipt", "type": "string", "format": "email"},
                "boxes": {"description": "How many boxes", "type": "integer", "minimum": 1, "maximum": 9},
                "express": {"type": "boolean"},
                "speed": {"type": "string", "oneOf": [
                    {"const": "Standard", "title": "Three to five days"},
                    {"const": "Express", "title": "Next day"},
                ]},
                "size": {"type": "string", "enum": ["small", "large"]},
                "weight": {"type": "number"},
            },
            "required": ["email", "boxes", "speed", "weight"],
        })
    );
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Nested {
    name: String,
    address: Address,
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Listed {
    tags: Vec<String>,
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Anything {
    extra: Value,
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Numbered {
    level: Level,
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum Level {
    Number(u32),
    Name(String),
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Node {
    next: Option<Box<Node>>,
}

#[test]
fn a_field_no_form_can_show_is_refused_by_name() {
    let cases = [
        (Question::of::<Nested>("?"), Some("address"), "is an object"),
        (Question::of::<Listed>("?"), Some("tags"), "is a list"),
        (
            Question::of::<Anything>("?"),
            Some("extra"),
            "any JSON value",
        ),
        (
            Question::of::<Numbered>("?"),
            Some("level"),
            "several kinds",
        ),
        (Question::of::<Node>("?"), Some("next"), "recursive"),
        (
            Question::of::<Size>("?"),
            None,
            "must be an object of fields",
        ),
        (Question::of::<String>("?"), None, "type \"string\""),
    ];
    for (result, field, words) in cases {
        let e = result.unwrap_err();
        assert_eq!(e.field(), field, "{e}");
        assert!(e.to_string().contains(words), "{e}");
        if let Some(field) = field {
            assert!(e.to_string().contains(&format!("\"{field}\"")), "{e}");
        }
        // As the tool's answer: failed, INVALID_QUESTION, the field named.
        let t = ToolError::from(e.clone());
        assert_eq!(t.status(), Status::Failed);
        assert_eq!(t.code(), codes::INVALID_QUESTION);
        assert!(t.message().contains(&e.to_string()), "{}", t.message());
    }
    let choices = Question::new(
        "?",
        &json!({"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}}}),
    );
    assert!(choices
        .unwrap_err()
        .to_string()
        .contains("choices are not all text"));
}

#[test]
fn a_hand_written_form_keeps_only_what_a_form_carries() {
    let q = Question::new(
        "?",
        &json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "id": {"type": "string", "format": "uuid", "pattern": "^[0-9a-f-]+$", "maxLength": 36},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Optional"},
                "ratio": {"type": ["number", "null"], "exclusiveMinimum": 0, "default": "x"},
            },
            "required": ["id", "not_a_field"],
        }),
    )
    .unwrap();
    assert_eq!(
        q.schema(),
        &json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "maxLength": 36},
                "note": {"description": "Optional", "type": "string"},
                "ratio": {"type": "number"},
            },
            "required": ["id"],
        })
    );
}

#[test]
fn an_answer_is_checked_against_the_form() {
    let q = Question::of::<Shipping>("?").unwrap();
    let answer = |v: Value| q.check(v.as_object().unwrap().clone());
    let ok = answer(json!({
        "email": "a@b.c", "boxes": 3.0, "express": null, "speed": "Express", "weight": 2.5
    }))
    .unwrap();
    // 3.0 became 3, the null of an optional field is left out.
    assert_eq!(
        Value::Object(ok),
        json!({"email": "a@b.c", "boxes": 3, "speed": "Express", "weight": 2.5})
    );
    let bad = [
        (
            json!({"email": "a@b.c", "boxes": 3, "speed": "Express"}),
            "\"weight\" is missing",
        ),
        (
            json!({"email": "a@b.c", "boxes": 3, "speed": "Express", "weight": 1, "admin": true}),
            "\"admin\", which the question did not ask for",
        ),
        (
            json!({"email": 7, "boxes": 3, "speed": "Express", "weight": 1}),
            "\"email\" should be text",
        ),
        (
            json!({"email": "a@b.c", "boxes": 10, "speed": "Express", "weight": 1}),
            "\"boxes\" should be within the bounds",
        ),
        (
            json!({"email": "a@b.c", "boxes": 2.5, "speed": "Express", "weight": 1}),
            "\"boxes\" should be a whole number",
        ),
        (
            json!({"email": "a@b.c", "boxes": 2, "speed": "Tomorrow", "weight": 1}),
            "\"speed\" should be one of the choices",
        ),
        (
            json!({"email": "a@b.c", "boxes": 2, "speed": "Express", "size": "huge", "weight": 1}),
            "\"size\" should be one of the choices",
        ),
        (
            json!({"email": "a@b.c", "boxes": 2, "speed": "Express", "express": "yes", "weight": 1}),
            "\"express\" should be true or false",
        ),
    ];
    for (content, words) in bad {
        let e = answer(content.clone()).unwrap_err();
        assert_eq!(e.status(), Status::Failed, "{content}");
        assert_eq!(e.code(), codes::INVALID_ANSWER, "{content}");
        assert!(e.message().contains(words), "{content}: {}", e.message());
    }
}

#[test]
fn a_question_for_a_tools_missing_parameters_requires_each_of_them() {
    let input = json!({
        "type": "object",
        "properties": {
            "item": {"type": "string"},
            "size": {"type": "integer", "description": "The boot size", "minimum": 42, "maximum": 44},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["item"],
    });
    let q = Question::for_fields("Which size?", &input, &["size".to_string()]).unwrap();
    assert_eq!(
        q.schema(),
        &json!({"type": "object", "properties": {
            "size": {"description": "The boot size", "type": "integer", "minimum": 42, "maximum": 44}
        }, "required": ["size"]})
    );
    // A field named twice is asked once.
    let twice = Question::for_fields("?", &input, &["size".into(), "size".into()]).unwrap();
    assert_eq!(twice.schema(), q.schema());
    let e = Question::for_fields("?", &input, &["colour".to_string()]).unwrap_err();
    assert_eq!(e.field(), Some("colour"));
    assert!(
        e.to_string().contains("not one of the tool's parameters"),
        "{e}"
    );
    let e = Question::for_fields("?", &input, &["tags".to_string()]).unwrap_err();
    assert_eq!(e.field(), Some("tags"));
    assert!(Question::for_fields("?", &input, &[]).is_err());
}

#[test]
fn log_levels_order_by_severity_and_parse_by_name() {
    let mut sorted = LogLevel::ALL;
    sorted.sort();
    assert_eq!(sorted, LogLevel::ALL);
    assert!(LogLevel::Emergency > LogLevel::Debug);
    for level in LogLevel::ALL {
        assert_eq!(level.as_str().parse::<LogLevel>(), Ok(level));
        assert_eq!(level.to_string(), level.as_str());
    }
    let e = "verbose".parse::<LogLevel>().unwrap_err();
    assert!(
        e.to_string().contains("\"verbose\" is not a log level"),
        "{e}"
    );
}

#[test]
fn every_client_error_becomes_the_tool_error_its_table_says() {
    let cases = [
        (
            ClientError::Unsupported("no sampling".into()),
            Status::Failed,
            codes::CLIENT_UNSUPPORTED,
        ),
        (
            ClientError::Rejected {
                code: -1,
                message: "User rejected sampling request".into(),
            },
            Status::CancelledByUser,
            codes::CANCELLED_BY_USER,
        ),
        (
            ClientError::Rejected {
                code: -32603,
                message: "model unavailable".into(),
            },
            Status::Failed,
            codes::CLIENT_REJECTED,
        ),
        (ClientError::Closed, Status::Failed, codes::CLIENT_CLOSED),
        (
            ClientError::InvalidAnswer("an image".into()),
            Status::Failed,
            codes::INVALID_ANSWER,
        ),
    ];
    for (error, status, code) in cases {
        let e = ToolError::from(error.clone());
        assert_eq!((e.status(), e.code()), (status, code), "{error}");
        assert_eq!(codes::status_of(code), Some(status));
    }
}

// ------------------------------------------------------------------ a scripted client

/// A client whose answers a test scripts, recording what it was sent.
#[derive(Default)]
struct Scripted {
    level: Option<LogLevel>,
    samples: bool,
    elicits: bool,
    logs: Mutex<Vec<LogMessage>>,
    answers: Mutex<VecDeque<Result<Answer, ClientError>>>,
    sampled: Mutex<Vec<SampleRequest>>,
    asked: Mutex<Vec<Question>>,
}

impl Scripted {
    fn answering(answers: impl IntoIterator<Item = Result<Answer, ClientError>>) -> Arc<Self> {
        Arc::new(Scripted {
            elicits: true,
            answers: Mutex::new(answers.into_iter().collect()),
            ..Scripted::default()
        })
    }

    fn logged(&self) -> Vec<(LogLevel, Value)> {
        let logs = self.logs.lock().unwrap();
        logs.iter().map(|m| (m.level, m.data.clone())).collect()
    }
}

impl ClientChannel for Scripted {
    fn log_level(&self) -> Option<LogLevel> {
        self.level
    }

    fn log(&self, message: LogMessage) {
        self.logs.lock().unwrap().push(message);
    }

    fn can_sample(&self) -> bool {
        self.samples
    }

    fn can_elicit(&self) -> bool {
        self.elicits
    }

    fn sample(
        &self,
        request: SampleRequest,
    ) -> ClientFuture<'_, Result<SampleResult, ClientError>> {
        let text = format!("{} messages", request.messages.len());
        self.sampled.lock().unwrap().push(request);
        Box::pin(async move {
            if self.samples {
                Ok(SampleResult::new(text, "test-model").with_stop_reason("endTurn"))
            } else {
                Err(ClientError::Unsupported("no sampling".into()))
            }
        })
    }

    fn elicit<'a>(
        &'a self,
        question: &'a Question,
    ) -> ClientFuture<'a, Result<Answer, ClientError>> {
        self.asked.lock().unwrap().push(question.clone());
        let answer = self
            .answers
            .lock()
            .unwrap()
            .pop_front()
            .expect("a scripted answer");
        Box::pin(async move {
            tokio::task::yield_now().await;
            answer
        })
    }
}

fn content(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[tokio::test]
async fn outside_a_transport_log_goes_nowhere_sample_is_unsupported_and_ask_needs_input() {
    let client = Client::default();
    assert!(!client.is_connected() && !client.can_ask() && !client.can_sample());
    assert!(!client.logs(LogLevel::Emergency));
    client.log(LogLevel::Emergency, "nobody listens");
    client.log_data(LogLevel::Info, Some("db"), json!({"rows": 3}));
    let sampled = client.sample(SampleRequest::new("Hi", 10)).await;
    let Err(ClientError::Unsupported(why)) = sampled else {
        panic!("{sampled:?}")
    };
    assert!(why.contains("no client is connected"), "{why}");
    let e = client.ask::<Shipping>("Where?").await.unwrap_err();
    assert_eq!(e.status(), Status::NeedsInput);
    assert_eq!(e.code(), codes::NEEDS_INPUT);
    assert_eq!(e.message(), "Where?");
    assert_eq!(
        e.missing(),
        ["email", "boxes", "express", "speed", "size", "weight"]
    );
    let form = json!({"type": "object", "properties": {"size": {"type": "integer"}}});
    let e = client.elicit("Which size?", &form).await.unwrap_err();
    assert_eq!(
        (e.status(), e.missing()),
        (Status::NeedsInput, &["size".to_string()][..])
    );
    // A question no form can show is the tool's bug, said even where nobody could be asked.
    let e = client.ask::<Nested>("?").await.err().unwrap();
    assert_eq!(e.code(), codes::INVALID_QUESTION);
}

#[tokio::test]
async fn messages_below_the_clients_level_are_not_sent() {
    let channel = Arc::new(Scripted {
        level: Some(LogLevel::Warning),
        ..Scripted::default()
    });
    let client = Client::default();
    with_client(channel.clone(), async {
        assert!(client.is_connected());
        assert!(!client.logs(LogLevel::Info) && client.logs(LogLevel::Warning));
        client.log(LogLevel::Debug, "d");
        client.log(LogLevel::Info, "i");
        client.log(LogLevel::Warning, "w");
        client.log_data(LogLevel::Critical, Some("db"), json!({"down": true}));
    })
    .await;
    assert_eq!(
        channel.logged(),
        [
            (LogLevel::Warning, json!("w")),
            (LogLevel::Critical, json!({"down": true}))
        ]
    );
    assert_eq!(
        channel.logs.lock().unwrap()[1].logger.as_deref(),
        Some("db")
    );
    // A client that receives no messages gets none.
    let silent = Arc::new(Scripted::default());
    with_client(silent.clone(), async {
        client.log(LogLevel::Emergency, "e")
    })
    .await;
    assert!(silent.logged().is_empty());
}

#[tokio::test]
async fn ask_reads_the_accepted_answer_into_the_type() {
    let channel = Scripted::answering([Ok(Answer::Accept(content(json!({
        "email": "a@b.c", "boxes": 2, "speed": "Standard", "size": "large", "weight": 1.5
    }))))]);
    let answer = with_client(channel.clone(), Client::default().ask::<Shipping>("Where?"))
        .await
        .unwrap();
    assert_eq!(
        answer,
        Shipping {
            email: "a@b.c".into(),
            boxes: 2,
            express: None,
            speed: Speed::Standard,
            size: Some(Size::Large),
            weight: 1.5
        }
    );
    let asked = channel.asked.lock().unwrap();
    assert_eq!(asked[0].message(), "Where?");
    assert_eq!(asked[0], Question::of::<Shipping>("Where?").unwrap());
}

#[tokio::test]
async fn each_other_answer_to_a_question_is_the_error_the_envelope_carries() {
    let form = json!({"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]});
    let cases: [(Result<Answer, ClientError>, Status, &str); 6] = [
        (
            Ok(Answer::Decline),
            Status::CancelledByUser,
            codes::CANCELLED_BY_USER,
        ),
        (
            Ok(Answer::Cancel),
            Status::CancelledByUser,
            codes::QUESTION_DISMISSED,
        ),
        (
            Ok(Answer::Accept(content(json!({"size": "big"})))),
            Status::Failed,
            codes::INVALID_ANSWER,
        ),
        (
            Err(ClientError::Unsupported("no forms".into())),
            Status::NeedsInput,
            codes::NEEDS_INPUT,
        ),
        (
            Err(ClientError::Rejected {
                code: -32000,
                message: "no".into(),
            }),
            Status::Failed,
            codes::CLIENT_REJECTED,
        ),
        (
            Err(ClientError::Closed),
            Status::Failed,
            codes::CLIENT_CLOSED,
        ),
    ];
    for (answer, status, code) in cases {
        let channel = Scripted::answering([answer.clone()]);
        let e = with_client(channel, Client::default().elicit("Which size?", &form))
            .await
            .unwrap_err();
        assert_eq!((e.status(), e.code()), (status, code), "{answer:?}");
        if status == Status::CancelledByUser {
            assert!(e.message().contains("Which size?"), "{}", e.message());
        }
    }
    // An accepted answer comes back checked.
    let channel = Scripted::answering([Ok(Answer::Accept(content(json!({"size": 43.0}))))]);
    let fields = with_client(channel, Client::default().elicit("Which size?", &form))
        .await
        .unwrap();
    assert_eq!(Value::Object(fields), json!({"size": 43}));
}

#[tokio::test]
async fn a_client_that_cannot_ask_is_never_sent_the_question() {
    let channel = Arc::new(Scripted::default());
    let e = with_client(channel.clone(), Client::default().ask::<Shipping>("?"))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Status::NeedsInput);
    assert!(channel.asked.lock().unwrap().is_empty());
}

#[tokio::test]
async fn sample_goes_to_the_channel() {
    let channel = Arc::new(Scripted {
        samples: true,
        ..Scripted::default()
    });
    let client = Client::default();
    let request = SampleRequest::new("one", 64)
        .with_message("two")
        .with_system_prompt("be brief")
        .with_temperature(0.5)
        .with_model_hint("claude");
    let result = with_client(channel.clone(), async {
        assert!(client.can_sample());
        client.sample(request.clone()).await
    })
    .await
    .unwrap();
    assert_eq!(
        result,
        SampleResult::new("2 messages", "test-model").with_stop_reason("endTurn")
    );
    assert_eq!(channel.sampled.lock().unwrap()[0], request);
    let unsupported = with_client(
        Arc::new(Scripted::default()),
        client.sample(SampleRequest::new("x", 1)),
    )
    .await;
    assert!(matches!(unsupported, Err(ClientError::Unsupported(_))));
}

// ------------------------------------------------------------------ on the tool threads

/// Logs, asks, reports progress and says which thread it ran on.
fn chatty(name: &str, timeout_ms: Option<u64>) -> Tool {
    let mut spec = ToolSpec::new(
        name,
        "Asks the user a size and reports. Returns the size and the thread.",
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
    );
    if let Some(ms) = timeout_ms {
        spec = spec.with_timeout_ms(ms);
    }
    Tool::from_fn(spec, |context, _| {
        Box::pin(async move {
            let client = context
                .get::<Client>()
                .expect("every toolbox supplies a Client");
            let progress = context.get::<Progress>().expect("and a Progress");
            client.log(LogLevel::Info, "asking");
            progress.report(1.0, Some(2.0), None);
            let fields = client
                .elicit(
                    "Which size?",
                    &json!({"type": "object", "properties": {"size": {"type": "integer"}}}),
                )
                .await?;
            progress.report(2.0, Some(2.0), None);
            let thread = std::thread::current()
                .name()
                .unwrap_or_default()
                .to_string();
            Ok(json!({"size": fields["size"], "thread": thread}))
        })
    })
}

#[derive(Default)]
struct Reports(Mutex<Vec<f64>>);

impl ProgressSink for Reports {
    fn report(&self, report: ProgressReport) {
        self.0.lock().unwrap().push(report.progress);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_handle_reaches_tools_on_the_tool_threads() {
    let toolbox = Toolbox::builder()
        .tool(chatty("isolated", None))
        .tool(chatty("timed", Some(30_000)))
        .tool(chatty("inline", None))
        .isolate_tools(["isolated"])
        .build()
        .unwrap();
    for (tool, on_tool_thread) in [("isolated", true), ("timed", true), ("inline", false)] {
        let channel = Arc::new(Scripted {
            level: Some(LogLevel::Debug),
            elicits: true,
            answers: Mutex::new(VecDeque::from([Ok(Answer::Accept(content(
                json!({"size": 43}),
            )))])),
            ..Scripted::default()
        });
        let reports = Arc::new(Reports::default());
        let env = with_client(
            channel.clone(),
            with_progress(reports.clone(), toolbox.call(tool, json!({}))),
        )
        .await;
        assert_eq!(env.status, Status::Ok, "{tool}: {env:?}");
        let data = env.data.unwrap();
        assert_eq!(data["size"], 43, "{tool}");
        assert_eq!(
            data["thread"] == "toolsmith-tool",
            on_tool_thread,
            "{tool} ran on {}",
            data["thread"]
        );
        assert_eq!(
            channel.logged(),
            [(LogLevel::Info, json!("asking"))],
            "{tool}"
        );
        assert_eq!(channel.asked.lock().unwrap().len(), 1, "{tool}");
        assert_eq!(*reports.0.lock().unwrap(), [1.0, 2.0], "{tool}");
    }
    // Without a channel, the same tool on a tool thread answers needs_input.
    let env = toolbox.call("isolated", json!({})).await;
    assert_eq!(env.status, Status::NeedsInput);
    assert_eq!(env.missing, ["size"]);
}

/// Lists of choices (MCP 2025-11-25's multi-select, untitled and titled) and the older
/// `enumNames` titles are forms too; an answer must pick among the choices, as many as asked.
#[test]
fn lists_of_choices_and_legacy_titles_are_forms() {
    use serde_json::json;
    use toolsmith_core::Question;
    let form = json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]},
                 "minItems": 1, "maxItems": 2},
        "picks": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "Ex"},
                                                        {"const": "y", "title": "Why"}]}},
        "legacy": {"type": "string", "enum": ["o1", "o2"], "enumNames": ["One", "Two"]},
    }});
    let q = Question::new("Pick.", &form).unwrap();
    assert_eq!(
        q.schema()["properties"]["legacy"]["enumNames"],
        json!(["One", "Two"])
    );
    assert_eq!(
        q.schema()["properties"]["picks"]["items"]["anyOf"][1],
        json!({"const": "y", "title": "Why"})
    );
    let ok = json!({"tags": ["a", "c"], "picks": ["y"], "legacy": "o2"});
    assert!(q.check(ok.as_object().unwrap().clone()).is_ok());
    for bad in [
        json!({"tags": ["z"]}),
        json!({"tags": []}),
        json!({"tags": ["a", "b", "c"]}),
        json!({"picks": "x"}),
    ] {
        assert!(q.check(bad.as_object().unwrap().clone()).is_err(), "{bad}");
    }
    // A list of anything else is still refused, naming the field.
    let numbers = json!({"type": "object", "properties": {
        "sizes": {"type": "array", "items": {"type": "integer"}}}});
    let e = Question::new("Sizes?", &numbers).unwrap_err();
    assert_eq!(e.field(), Some("sizes"));
}

// ------------------------------------------------------------------ keyed writes that ask

/// A keyed write (`book_room`, keyed by `room`, neither idempotent nor read-only) that asks the
/// client's model for a confirmation text before it books, counting its bookings. With
/// `act_first` it books, says so ([`Client::mark_acted`]), and asks after.
fn asking_write(booked: Arc<std::sync::atomic::AtomicUsize>, act_first: bool) -> Tool {
    use std::sync::atomic::Ordering;
    let spec = ToolSpec::new(
        "book_room",
        "Books a meeting room. Returns the booking and its confirmation text.",
        json!({"type": "object", "properties": {"room": {"type": "string"}},
               "required": ["room"], "additionalProperties": false}),
    )
    .with_effects(toolsmith_core::Effects::none().with_writes(true));
    Tool::from_fn(spec, move |context, args| {
        let booked = booked.clone();
        Box::pin(async move {
            let client = context.get::<Client>().expect("every toolbox has one");
            if act_first {
                booked.fetch_add(1, Ordering::SeqCst);
                client.mark_acted();
            }
            let text = client
                .sample(SampleRequest::new(format!("Confirm {}", args["room"]), 20))
                .await?;
            if !act_first {
                booked.fetch_add(1, Ordering::SeqCst);
            }
            Ok(json!({"room": args["room"], "confirmation": text.text}))
        })
    })
    .with_idempotency_key(["room"])
}

/// A client that never answers with what was asked: every request fails with the error
/// (`Fails`), or reaches it and waits for ever, the `Notify` saying it arrived (`Silent`).
enum NoAnswer {
    Fails(ClientError),
    Silent(tokio::sync::Notify),
}

impl NoAnswer {
    fn answer<T: Send + 'static>(&self) -> ClientFuture<'_, Result<T, ClientError>> {
        match self {
            NoAnswer::Fails(e) => Box::pin(std::future::ready(Err(e.clone()))),
            NoAnswer::Silent(asked) => {
                asked.notify_one();
                Box::pin(std::future::pending())
            }
        }
    }
}

impl ClientChannel for NoAnswer {
    fn log_level(&self) -> Option<LogLevel> {
        None
    }
    fn log(&self, _: LogMessage) {}
    fn can_sample(&self) -> bool {
        true
    }
    fn can_elicit(&self) -> bool {
        true
    }
    fn sample(&self, _: SampleRequest) -> ClientFuture<'_, Result<SampleResult, ClientError>> {
        self.answer()
    }
    fn elicit<'a>(&'a self, _: &'a Question) -> ClientFuture<'a, Result<Answer, ClientError>> {
        self.answer()
    }
}

/// A keyed write whose request to the client gets no usable answer (no client at all, one
/// that cannot sample, one that closed, refused or did not answer in time) stopped before it
/// acted: its key is released and the agent's retry runs, once a client answers. Before, the
/// `failed` answer was kept and every retry for the window was a `DUPLICATE` of a booking that
/// never happened.
#[tokio::test]
async fn a_keyed_write_stopped_at_an_unanswered_request_releases_its_key() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let failures = [
        None,
        Some(ClientError::Unsupported("no sampling".into())),
        Some(ClientError::Closed),
        Some(ClientError::Rejected {
            code: -32603,
            message: "model unavailable".into(),
        }),
        Some(ClientError::TimedOut(std::time::Duration::from_secs(60))),
        Some(ClientError::InvalidAnswer("an image".into())),
    ];
    for failure in failures {
        let booked = Arc::new(AtomicUsize::new(0));
        let toolbox = Toolbox::builder()
            .tool(asking_write(booked.clone(), false))
            .build()
            .unwrap();
        let args = json!({"room": "fjord"});
        let code = match &failure {
            None => codes::CLIENT_UNSUPPORTED.to_string(),
            Some(e) => ToolError::from(e.clone()).code().to_string(),
        };
        for round in 0..2 {
            let env = match &failure {
                None => toolbox.call("book_room", args.clone()).await,
                Some(e) => {
                    let channel = Arc::new(NoAnswer::Fails(e.clone()));
                    with_client(channel, toolbox.call("book_room", args.clone())).await
                }
            };
            assert_eq!(
                env.status,
                Status::Failed,
                "{failure:?} round {round}: {env:?}"
            );
            assert_eq!(
                env.code.as_deref(),
                Some(&*code),
                "{failure:?} round {round}"
            );
        }
        // A client that answers: the booking runs, once.
        let answering = Arc::new(Scripted {
            samples: true,
            ..Scripted::default()
        });
        let env = with_client(answering, toolbox.call("book_room", args.clone())).await;
        assert_eq!(env.status, Status::Ok, "{failure:?}: {env:?}");
        let again = toolbox.call("book_room", args.clone()).await;
        assert_eq!(again.code.as_deref(), Some(codes::DUPLICATE), "{failure:?}");
        assert_eq!(booked.load(Ordering::SeqCst), 1, "{failure:?}");
    }
}

/// A tool that acts first and asks after says so (`Client::mark_acted`): a request that then
/// goes unanswered leaves the call's outcome kept, and the retry is a `DUPLICATE`, never a
/// second act. The mark holds on the tool threads too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_acted_before_it_asked_keeps_its_key() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    for isolated in [false, true] {
        let booked = Arc::new(AtomicUsize::new(0));
        let mut builder = Toolbox::builder().tool(asking_write(booked.clone(), true));
        if isolated {
            builder = builder.isolate_tools(["book_room"]);
        }
        let toolbox = builder.build().unwrap();
        let args = json!({"room": "fjord"});
        let closed = Arc::new(NoAnswer::Fails(ClientError::Closed));
        let env = with_client(closed.clone(), toolbox.call("book_room", args.clone())).await;
        assert_eq!(env.code.as_deref(), Some(codes::CLIENT_CLOSED));
        let again = with_client(closed, toolbox.call("book_room", args.clone())).await;
        assert_eq!(again.code.as_deref(), Some(codes::DUPLICATE), "{isolated}");
        assert_eq!(booked.load(Ordering::SeqCst), 1, "{isolated}");
    }
    // Outside a keyed call the mark does nothing, and costs nothing.
    Client::default().mark_acted();
}

/// A keyed write stopped while it waits for its client, by its timeout or because its caller
/// dropped the call (an MCP client that cancels its `tools/call` instead of answering the
/// question), had not acted: its key is released and the retry runs, with the gate's own map
/// and with a shared state store. A tool that said it acted keeps its key
/// (`OUTCOME_UNKNOWN`). Before, every such stop left the outcome unknown for the window.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyed_write_stopped_while_it_waits_for_its_client_releases_its_key() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let answering = || {
        Arc::new(Scripted {
            samples: true,
            ..Scripted::default()
        })
    };
    for shared in [false, true] {
        for act_first in [false, true] {
            let booked = Arc::new(AtomicUsize::new(0));
            let timed = Tool::from_fn(
                ToolSpec::new(
                    "book_slowly",
                    "Books a meeting room, waiting at most 300 ms. Returns the booking.",
                    json!({"type": "object", "properties": {"room": {"type": "string"}},
                           "required": ["room"], "additionalProperties": false}),
                )
                .with_timeout_ms(300)
                .with_effects(toolsmith_core::Effects::none().with_writes(true)),
                {
                    let booked = booked.clone();
                    move |context, args| {
                        let booked = booked.clone();
                        Box::pin(async move {
                            let client = context.get::<Client>().expect("every toolbox has one");
                            if act_first {
                                booked.fetch_add(1, Ordering::SeqCst);
                                client.mark_acted();
                            }
                            client.sample(SampleRequest::new("Confirm", 20)).await?;
                            if !act_first {
                                booked.fetch_add(1, Ordering::SeqCst);
                            }
                            Ok(args)
                        })
                    }
                },
            )
            .with_idempotency_key(["room"]);
            let mut builder = Toolbox::builder()
                .tool(asking_write(booked.clone(), act_first))
                .tool(timed);
            if shared {
                builder =
                    builder.state_store(Arc::new(toolsmith_core::state::MemoryStateStore::new(64)));
            }
            let toolbox = builder.build().unwrap();
            let case = format!("shared: {shared}, act first: {act_first}");

            // Dropped while the question waits.
            let silent = Arc::new(NoAnswer::Silent(tokio::sync::Notify::new()));
            let NoAnswer::Silent(asked) = &*silent else {
                unreachable!()
            };
            let args = json!({"room": "fjord"});
            tokio::select! {
                env = with_client(silent.clone(), toolbox.call("book_room", args.clone())) => {
                    panic!("{case}: a silent client's call ended: {env:?}")
                }
                () = asked.notified() => {}
            }
            // Stopped by its timeout while the question waits.
            let env = with_client(silent, toolbox.call("book_slowly", args.clone())).await;
            assert_eq!(env.status, Status::Timeout, "{case}: {env:?}");

            for tool in ["book_room", "book_slowly"] {
                // A dropped call's claim in the shared state is written off in a task of its
                // own: until it lands, the retry is told the call is still in progress.
                let mut again = with_client(answering(), toolbox.call(tool, args.clone())).await;
                for _ in 0..10_000 {
                    if again.code.as_deref() != Some(codes::IN_PROGRESS) {
                        break;
                    }
                    tokio::task::yield_now().await;
                    again = with_client(answering(), toolbox.call(tool, args.clone())).await;
                }
                if act_first {
                    assert_eq!(
                        again.code.as_deref(),
                        Some(codes::OUTCOME_UNKNOWN),
                        "{case}, {tool}: {again:?}"
                    );
                } else {
                    assert_eq!(again.status, Status::Ok, "{case}, {tool}: {again:?}");
                }
            }
            // Acting first: once each, before the stop, and never again. Asking first: never
            // before the stop, once each in the retry.
            assert_eq!(booked.load(Ordering::SeqCst), 2, "{case}");
        }
    }
}

// ------------------------------------------------------------------ redaction of requests

/// A tool that summarizes a stored ticket through the client's model and asks the user to
/// confirm, quoting the ticket: the text carries a GitHub token and a database password.
fn summarizer() -> Tool {
    const TICKET: &str = "Deploy failed: token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB, \
                          db postgres://app:hunter2hunter2@db.internal/prod";
    let spec = ToolSpec::new(
        "summarize_ticket",
        "Summarizes a support ticket with the client's model. Returns the summary.",
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
    );
    Tool::from_fn(spec, |context, _| {
        Box::pin(async move {
            let client = context.get::<Client>().expect("every toolbox has one");
            let summary = client
                .sample(
                    SampleRequest::new(format!("Summarize: {TICKET}"), 50)
                        .with_system_prompt(format!("You read tickets like: {TICKET}")),
                )
                .await?;
            let form = json!({"type": "object", "properties": {
                "ok": {
                    "type": "boolean", "title": "Send it?", "description": format!("Ticket: {TICKET}")
                },
                "via": {"type": "string", "oneOf": [
                    {"const": "db", "title": format!("Post to {TICKET}")},
                    {"const": "mail", "title": "Mail it"},
                ]},
            }});
            client.elicit(format!("Send this? {TICKET}"), &form).await?;
            Ok(json!({"summary": summary.text}))
        })
    })
}

/// What a tool sends the client's model and its user passes the redactor, as its results do;
/// `redact_client_requests(false)` is the host's way out, and sends the text as written.
#[tokio::test]
async fn requests_to_the_client_are_redacted_unless_the_host_says_otherwise() {
    for redact in [true, false] {
        let toolbox = Toolbox::builder()
            .tool(summarizer())
            .redact_client_requests(redact)
            .build()
            .unwrap();
        let channel = Arc::new(Scripted {
            samples: true,
            elicits: true,
            answers: Mutex::new(VecDeque::from([Ok(Answer::Accept(content(
                json!({"ok": true}),
            )))])),
            ..Scripted::default()
        });
        let env = with_client(channel.clone(), toolbox.call("summarize_ticket", json!({}))).await;
        assert_eq!(env.status, Status::Ok, "{env:?}");
        let sampled = channel.sampled.lock().unwrap()[0].clone();
        let asked = channel.asked.lock().unwrap()[0].clone();
        let sent = [
            sampled.messages[0].clone(),
            sampled.system_prompt.unwrap(),
            asked.message().to_string(),
            asked.schema()["properties"]["ok"]["description"]
                .as_str()
                .unwrap()
                .to_string(),
            asked.schema()["properties"]["via"]["oneOf"][0]["title"]
                .as_str()
                .unwrap()
                .to_string(),
        ];
        for text in &sent {
            assert_eq!(text.contains("ghp_0123"), !redact, "{text}");
            assert_eq!(text.contains("hunter2"), !redact, "{text}");
        }
        if redact {
            assert!(sent[0].contains("[REDACTED:github_token]"), "{}", sent[0]);
            // The form is the same form: its fields, types and title are kept.
            assert_eq!(asked.fields(), ["ok", "via"]);
            assert_eq!(asked.schema()["properties"]["ok"]["title"], "Send it?");
            assert_eq!(
                asked.schema()["properties"]["via"]["oneOf"][0]["const"],
                "db"
            );
        }
    }
}
