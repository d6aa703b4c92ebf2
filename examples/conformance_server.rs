//! `conformance_server`: the server the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) tests, and an example of a whole MCP server built on
//! toolsmith: the tools are `#[tool]` functions in a `Toolbox`, and the rest (prompts,
//! resources, resource templates, subscriptions, completions) is an rmcp `ServerHandler` handed
//! to `McpServer::with_handler`.
//!
//! ```sh
//! cargo run -p toolsmith-tests --example conformance_server -- 3001    # prints http://127.0.0.1:3001/mcp
//! cargo run -p toolsmith-tests --example conformance_server            # port 0: the system picks a free one
//! ```
//!
//! It serves streamable HTTP on 127.0.0.1 only and prints the endpoint's URL as its first line
//! on stdout. A bad port is one line on stderr and exit code 2. `tests/it/conformance_suite.rs`
//! runs the suite against it (TESTING.md).
//!
//! How the two halves compose:
//!
//! - **toolsmith owns the tools**: `tools/list` (the toolbox's export for the negotiated
//!   protocol version), `tools/call` (the toolbox's pipeline: validation, policy, budgets,
//!   audit), their progress and list-changed notifications, and the session's lifecycle.
//! - **rmcp owns the rest**: the handler below is plain rmcp (`rmcp::ServerHandler`, rmcp's
//!   model types). `McpServer` forwards to it `prompts/*`, `resources/*` (except the toolbox's
//!   own `toolsmith:` URIs) and `completion/complete`, and declares the capabilities its
//!   `get_info` declares for them. Its tool methods, if it had any, would never be called.
//!
//! The tools that talk back take the client handle (`#[context] client: &Client`): they log
//! (`test_tool_with_logging`), ask the client's model (`test_sampling`) and ask the user
//! (`test_elicitation` and the SEP-1034 and SEP-1330 forms) through it.

use base64::Engine as _;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, PaginatedRequestParams, Prompt, PromptArgument, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Reference,
    Resource as McpResource, ResourceContents, ResourceTemplate, Role, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::io::Write as _;
use std::sync::Mutex;
use std::time::Duration;
use toolsmith::client::{LogLevel, SampleRequest};
use toolsmith::content::{Audio, Content, Image, Resource};
use toolsmith::mcp::McpServer;
use toolsmith::state::task::Tasks;
use toolsmith::{codes, tool, Client, Effects, Progress, Question};
use toolsmith::{Tool, ToolError, ToolSpec, Toolbox};

const USAGE: &str = "usage: conformance_server [PORT]   (0 or none: any free port)";

/// A 1x1 red PNG.
const RED_PIXEL_PNG: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xf7, 0x03, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// One millisecond of silence: a WAV file, 8 kHz mono 8-bit, eight samples.
const SILENCE_WAV: [u8; 52] = [
    0x52, 0x49, 0x46, 0x46, 0x2c, 0x00, 0x00, 0x00, 0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74, 0x20,
    0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x40, 0x1f, 0x00, 0x00, 0x40, 0x1f, 0x00, 0x00,
    0x01, 0x00, 0x08, 0x00, 0x64, 0x61, 0x74, 0x61, 0x08, 0x00, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80,
];

// ---- The tools: toolsmith's half ------------------------------------------------------------

/// Answers with a fixed sentence, for testing text results. Returns the sentence.
#[tool(read_only)]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Answers with a 1x1 red PNG, for testing image results. Returns the image.
#[tool(read_only)]
fn test_image_content() -> Image {
    Image::png(RED_PIXEL_PNG)
}

/// Answers with a short WAV clip of silence, for testing audio results. Returns the audio.
#[tool(read_only)]
fn test_audio_content() -> Audio {
    Audio::wav(SILENCE_WAV)
}

/// Answers with an embedded text resource, for testing resource results. Returns the resource.
#[tool(read_only)]
fn test_embedded_resource() -> Resource {
    Resource::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Answers with text, an image and an embedded JSON resource at once, for testing mixed
/// results. Returns the three content blocks.
#[tool(read_only)]
fn test_multiple_content_types() -> Content {
    Content::new()
        .text("Multiple content types test:")
        .block(Image::png(RED_PIXEL_PNG))
        .block(Resource::text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ))
}

/// Always fails, for testing how a failed call is reported. Returns an error every time.
#[tool(read_only)]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::failed(
        "TEST_ERROR",
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0, 50 and 100 of 100, 50 ms apart, for testing progress notifications.
/// Returns a confirmation text.
#[tool(read_only)]
async fn test_tool_with_progress(#[context] progress: &Progress) -> &'static str {
    progress.report(0.0, Some(100.0), Some("started"));
    tokio::time::sleep(Duration::from_millis(50)).await;
    progress.report(50.0, Some(100.0), Some("halfway"));
    tokio::time::sleep(Duration::from_millis(50)).await;
    progress.report(100.0, Some(100.0), Some("done"));
    "Progress reported: 0, 50 and 100 of 100."
}

/// Logs three messages at level info, 50 ms apart, for testing log notifications. Returns a
/// confirmation text.
#[tool(read_only)]
async fn test_tool_with_logging(#[context] client: &Client) -> &'static str {
    client.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.log(LogLevel::Info, "Tool execution completed");
    "Tool with logging executed: three messages sent."
}

/// Asks the client's model to answer a prompt, for testing sampling. Returns the model's answer.
#[tool(read_only)]
async fn test_sampling(
    #[context] client: &Client,
    /// The prompt to send to the client's model.
    prompt: String,
) -> Result<String, ToolError> {
    let answer = client.sample(SampleRequest::new(prompt, 100)).await?;
    Ok(format!("LLM response: {}", answer.text))
}

/// The user's answer to a question as the suite's tools report it: the action and the content.
async fn answer_of(client: &Client, question: &Question) -> Result<(String, Value), ToolError> {
    match client.question(question).await {
        Ok(content) => Ok(("accept".into(), Value::Object(content))),
        Err(e) if e.code() == codes::CANCELLED_BY_USER => Ok(("decline".into(), json!({}))),
        Err(e) if e.code() == codes::QUESTION_DISMISSED => Ok(("cancel".into(), json!({}))),
        Err(e) => Err(e),
    }
}

/// Asks the user for a user name and an email address, for testing elicitation. Returns the
/// user's action and answer.
#[tool(read_only)]
async fn test_elicitation(
    #[context] client: &Client,
    /// The message shown to the user.
    message: String,
) -> Result<String, ToolError> {
    let form = json!({"type": "object", "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    }, "required": ["username", "email"]});
    let (action, content) = answer_of(client, &Question::new(message, &form)?).await?;
    Ok(format!("User response: action={action}, content={content}"))
}

/// Asks the user a form whose every field has a default (SEP-1034). Returns the user's action
/// and answer.
#[tool(
    read_only,
    allow(
        name_budget,
        reason = "the conformance suite calls the tool by this name"
    )
)]
async fn test_elicitation_sep1034_defaults(
    #[context] client: &Client,
) -> Result<String, ToolError> {
    let form = json!({"type": "object", "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"],
                   "default": "active"},
        "verified": {"type": "boolean", "default": true},
    }});
    let question = Question::new(
        "Please review and update the form fields with defaults",
        &form,
    )?;
    let (action, content) = answer_of(client, &question).await?;
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

/// Asks the user a form with the five kinds of choices (SEP-1330). Returns the user's action and
/// answer.
#[tool(
    read_only,
    allow(
        name_budget,
        reason = "the conformance suite calls the tool by this name"
    )
)]
async fn test_elicitation_sep1330_enums(#[context] client: &Client) -> Result<String, ToolError> {
    let form = json!({"type": "object", "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": [
            {"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "Second Option"},
            {"const": "value3", "title": "Third Option"}]},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                       "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array",
                          "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "items": {"anyOf": [
            {"const": "value1", "title": "First Choice"},
            {"const": "value2", "title": "Second Choice"},
            {"const": "value3", "title": "Third Choice"}]}},
    }});
    let question = Question::new("Please select options from the enum fields", &form)?;
    let (action, content) = answer_of(client, &question).await?;
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

// ---- 2026-07-28: questions in rounds (SEP-2322) --------------------------------------------
//
// On 2026-07-28 a question or a sample a tool makes is sent to the client in an
// `input_required` result, under the request's name (`with_key`), and the tool runs again with
// the answers when the client retries (the suite's `input-required-result-*` scenarios, outside
// its active set).

/// A form of one required text field.
fn one_text_field(name: &str) -> Value {
    json!({"type": "object", "properties": {name: {"type": "string"}}, "required": [name]})
}

/// Asks the user's name in a round of its own. Returns a greeting.
#[tool(
    read_only,
    allow(
        name_budget,
        reason = "the conformance suite calls the tool by this name"
    )
)]
async fn test_input_required_result_elicitation(
    #[context] client: &Client,
) -> Result<String, ToolError> {
    let question =
        Question::new("What is your name?", &one_text_field("name"))?.with_key("user_name");
    let answer = client.question(&question).await?;
    Ok(format!(
        "Hello, {}!",
        answer["name"].as_str().unwrap_or_default()
    ))
}

/// Asks the client's model a question in a round of its own. Returns the model's answer.
#[tool(
    read_only,
    allow(
        name_budget,
        reason = "the conformance suite calls the tool by this name"
    )
)]
async fn test_input_required_result_sampling(
    #[context] client: &Client,
) -> Result<String, ToolError> {
    let request =
        SampleRequest::new("What is the capital of France?", 100).with_key("capital_question");
    Ok(client.sample(request).await?.text)
}

/// Asks for a confirmation; the server verifies the sealed request state of the retry.
/// Returns the confirmation.
#[tool(
    read_only,
    allow(
        name_budget,
        reason = "the conformance suite calls the tool by this name"
    )
)]
async fn test_input_required_result_request_state(
    #[context] client: &Client,
) -> Result<String, ToolError> {
    let ok = confirm(client).await?;
    // A retry reaches the tool only once its requestState verified (or with none sent).
    Ok(format!("Confirmed: ok={ok} (state-ok)"))
}

/// Asks the user to confirm (a round named `confirm`): their `ok`.
async fn confirm(client: &Client) -> Result<Value, ToolError> {
    let form = json!({"type": "object", "properties": {"ok": {"type": "boolean"}},
                      "required": ["ok"]});
    let answer = client
        .question(&Question::new("Please confirm", &form)?.with_key("confirm"))
        .await?;
    Ok(answer["ok"].clone())
}

/// Asks two questions, one round each. Returns both answers.
#[tool(
    read_only,
    allow(
        name_budget,
        reason = "the conformance suite calls the tool by this name"
    )
)]
async fn test_input_required_result_multi_round(
    #[context] client: &Client,
) -> Result<String, ToolError> {
    let name = client
        .question(
            &Question::new("Step 1: What is your name?", &one_text_field("name"))?
                .with_key("step1"),
        )
        .await?;
    let color = client
        .question(
            &Question::new(
                "Step 2: What is your favorite color?",
                &one_text_field("color"),
            )?
            .with_key("step2"),
        )
        .await?;
    Ok(format!(
        "{} likes {}.",
        name["name"].as_str().unwrap_or_default(),
        color["color"].as_str().unwrap_or_default()
    ))
}

/// Asks for a confirmation whose request state the suite then edits. Returns the confirmation.
#[tool(
    read_only,
    allow(
        name_budget,
        reason = "the conformance suite calls the tool by this name"
    )
)]
async fn test_input_required_result_tampered_state(
    #[context] client: &Client,
) -> Result<String, ToolError> {
    Ok(format!("Confirmed: ok={}", confirm(client).await?))
}

/// The input schema of `json_schema_2020_12_tool`, as the suite's scenario `json-schema-2020-12`
/// expects it back: `$schema`, `$defs` with an `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

/// A tool whose schema `#[tool]` cannot write (conditional keywords), built from a spec written
/// by hand.
fn json_schema_2020_12_tool() -> Tool {
    let spec = ToolSpec::new(
        "json_schema_2020_12_tool",
        "Echoes a contact, for testing that JSON Schema 2020-12 keywords reach the client. \
         Returns the arguments it was given.",
        json_schema_2020_12(),
    )
    .with_effects(Effects::none().with_read_only(true));
    Tool::from_fn(spec, |_ctx, args| Box::pin(async move { Ok(args) }))
}

/// Echoes the region it runs in. Returns the region. (The suite's
/// `http-custom-header-server-validation`: the argument also travels as `Mcp-Param-Region`,
/// which rmcp's transport compares with it.)
#[tool(read_only)]
fn test_custom_header(
    /// Region to run in, e.g. "us-west1".
    #[arg(header = "Region")]
    region: String,
) -> String {
    region
}

// ---- Tasks (2026-07-28 extension io.modelcontextprotocol/tasks) -----------------------------

/// Greets someone by name, for testing a call that never becomes a task. Returns the greeting.
#[tool(
    read_only,
    allow(name_style, reason = "the conformance suite calls it by this name")
)]
fn greet(
    /// The name to greet.
    name: String,
) -> Content {
    // A text block alone: the suite compares the text with the greeting exactly.
    Content::new().text(format!("Hello, {name}!"))
}

/// Works for the given number of seconds, as a task when the client polls tasks, for testing
/// long-running calls. Returns what it computed.
#[tool(
    read_only,
    task = "optional",
    allow(name_style, reason = "the conformance suite calls it by this name")
)]
async fn slow_compute(
    /// How long to work, in seconds (0 to 120).
    #[arg(maximum = 120)]
    seconds: u64,
    /// A label echoed in the result.
    label: String,
) -> String {
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    format!("Computed {label} in {seconds} s")
}

/// Works briefly, then fails, and only as a task, for testing how a tool's error ends a task.
/// Returns an error every time.
#[tool(
    read_only,
    task = "required",
    allow(name_style, reason = "the conformance suite calls it by this name")
)]
async fn failing_job() -> Result<String, ToolError> {
    // The work (one yield stands for it): the call is a task by the time it fails.
    tokio::task::yield_now().await;
    Err(ToolError::failed(
        "JOB_FAILED",
        "The job failed, as it always does",
    ))
}

/// Works briefly, then ends as a call of a tool that is gone ends (`invalid_input`, `UNKNOWN_TOOL`), which
/// 2026-07-28 answers with a JSON-RPC error, for testing a task that fails. Returns an error
/// every time.
#[tool(
    read_only,
    task = "optional",
    allow(name_style, reason = "the conformance suite calls it by this name")
)]
async fn protocol_error_job() -> Result<String, ToolError> {
    // Work first (one yield stands for it): the call is a task by the time it ends.
    tokio::task::yield_now().await;
    Err(ToolError::invalid_input(
        codes::UNKNOWN_TOOL,
        "The job's tool is gone, as it always is",
    ))
}

/// Prepares the deletion of a file, then asks the user to confirm it, for testing questions
/// inside a task. Returns whether the file would be deleted; deletes nothing.
#[tool(read_only, task = "optional")]
async fn confirm_delete(
    #[context] client: &Client,
    /// The file to delete.
    filename: String,
) -> Result<String, ToolError> {
    // The work before the question (one yield stands for it): the call is a task by the
    // time it asks, so the question is the task's `inputRequests`.
    tokio::task::yield_now().await;
    let form = json!({"type": "object", "properties": {
        "confirm": {"type": "boolean", "description": "Delete the file?"}}, "required": ["confirm"]});
    let answer = client
        .question(&Question::new(format!("Delete {filename}?"), &form)?)
        .await?;
    Ok(format!("confirm={} for {filename}", answer["confirm"]))
}

/// Prepares, then asks the user two questions at once, for testing answers that arrive one
/// at a time.
/// Returns both answers.
#[tool(
    read_only,
    task = "optional",
    allow(name_style, reason = "the conformance suite calls it by this name")
)]
async fn multi_input(#[context] client: &Client) -> Result<String, ToolError> {
    let ask = |n: u8| {
        let form = json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "A name"},
            "confirm": {"type": "boolean", "description": "Go on?"}}, "required": ["name"]});
        Question::new(format!("Question {n}: your name?"), &form)
            .map(|q| q.with_key(format!("q{n}")))
    };
    let (one, two) = (ask(1)?, ask(2)?);
    // Work first (one yield stands for it): the questions are the task's.
    tokio::task::yield_now().await;
    let (a, b) = tokio::join!(client.question(&one), client.question(&two));
    Ok(format!("first={}, second={}", a?["name"], b?["name"]))
}

/// Asks the user's name, then works and greets them, for testing questions asked in
/// `input_required` rounds before a call becomes a task. Returns the greeting.
#[tool(read_only, task = "required")]
async fn test_tool_with_task(#[context] client: &Client) -> Result<Content, ToolError> {
    // Asked before any work: in the request's rounds (MRTR), not in a task.
    let answer = client
        .question(&Question::new("What is your name?", &one_text_field("name"))?.with_key("name"))
        .await?;
    // The work: the call becomes a task here.
    tokio::task::yield_now().await;
    let name = answer["name"].as_str().unwrap_or("stranger").to_string();
    Ok(Content::new().text(format!("Hello, {name}! The task is done.")))
}

/// Asks the client for its roots in a round of its own. Returns the roots it shares.
#[tool(
    read_only,
    allow(
        name_budget,
        reason = "the conformance suite calls the tool by this name"
    )
)]
async fn test_input_required_result_list_roots(
    #[context] client: &Client,
) -> Result<String, ToolError> {
    let roots = client.roots().await?;
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!("Roots: {}", uris.join(", ")))
}

/// Asks the user's name, the client's model for a greeting and the client for its roots, all
/// in one round. Returns the three answers.
#[tool(
    read_only,
    allow(
        name_budget,
        reason = "the conformance suite calls the tool by this name"
    )
)]
async fn test_input_required_result_multiple_inputs(
    #[context] client: &Client,
) -> Result<String, ToolError> {
    let question =
        Question::new("What is your name?", &one_text_field("name"))?.with_key("user_name");
    let (name, greeting, roots) = tokio::join!(
        client.question(&question),
        client.sample(SampleRequest::new("Generate a greeting", 50)),
        client.roots(),
    );
    let (name, greeting, roots) = (name?, greeting?, roots?);
    Ok(format!(
        "name={}, greeting={}, roots={}",
        name["name"].as_str().unwrap_or_default(),
        greeting.text,
        roots.len()
    ))
}

/// Asks only what the request's client declared it can answer (here, its model), for testing
/// that a round respects the client's capabilities. Returns the answers.
#[tool(
    read_only,
    allow(
        name_budget,
        reason = "the conformance suite calls the tool by this name"
    )
)]
async fn test_input_required_result_capabilities(
    #[context] client: &Client,
) -> Result<String, ToolError> {
    let mut answers = Vec::new();
    if client.can_sample() {
        let reply = client
            .sample(SampleRequest::new("What is the capital of France?", 50))
            .await?;
        answers.push(format!("model: {}", reply.text));
    }
    if client.can_ask() {
        let question =
            Question::new("What is your name?", &one_text_field("name"))?.with_key("user_name");
        let answer = client.question(&question).await?;
        answers.push(format!(
            "name: {}",
            answer["name"].as_str().unwrap_or_default()
        ));
    }
    Ok(answers.join("; "))
}

// ---- The stateless revision's diagnostic tools (2026-07-28, `server-stateless`) -------------

/// Asks the client's model a question, for testing the refusal of a request whose client did
/// not declare sampling (`-32021`). Returns the model's answer.
#[tool(read_only)]
async fn test_missing_capability(#[context] client: &Client) -> Result<String, ToolError> {
    let answer = client.sample(SampleRequest::new("Say hello.", 20)).await?;
    Ok(answer.text)
}

/// Asks the user a question, for testing that a 2026-07-28 response stream carries no request
/// of the server's own (the question is an `input_required` result). Returns the answer.
#[tool(read_only)]
async fn test_streaming_elicitation(#[context] client: &Client) -> Result<String, ToolError> {
    let question = Question::new("What is your name?", &one_text_field("name"))?.with_key("name");
    let answer = client.question(&question).await?;
    Ok(format!(
        "Hello, {}!",
        answer["name"].as_str().unwrap_or_default()
    ))
}

/// Logs a message at level info, for testing that a call without a log level in its `_meta`
/// gets no log notifications. Returns a confirmation text.
#[tool(read_only)]
async fn test_logging_tool(#[context] client: &Client) -> &'static str {
    client.log(LogLevel::Info, "Tool execution started");
    "Logged one message."
}

/// The toolbox the server serves, for `test_trigger_tool_change` (set once by `main`).
static SERVED: std::sync::OnceLock<std::sync::Weak<Toolbox>> = std::sync::OnceLock::new();

/// Answers with a fixed sentence; `test_trigger_tool_change` adds and removes it. Returns the
/// sentence.
#[tool(read_only)]
fn test_dynamic_tool() -> &'static str {
    "A tool added while the server runs."
}

/// Adds `test_dynamic_tool` to the tool list, or takes it away again, for testing that a
/// change of the list reaches the clients that listen for it. Returns what changed.
#[tool(writes)]
fn test_trigger_tool_change() -> Result<String, ToolError> {
    let toolbox = SERVED
        .get()
        .and_then(std::sync::Weak::upgrade)
        .ok_or_else(|| ToolError::failed("NOT_SERVING", "The server is not serving a toolbox"))?;
    let name = "test_dynamic_tool";
    if toolbox.names().iter().any(|n| n == name) {
        toolbox
            .deregister(name)
            .map_err(|e| ToolError::failed("NOT_REGISTERED", e.to_string()))?;
        Ok(format!("removed {name}"))
    } else {
        toolbox
            .register(test_dynamic_tool::tool())
            .map_err(|e| ToolError::failed("NOT_REGISTERED", e.to_string()))?;
        Ok(format!("added {name}"))
    }
}

fn toolbox() -> Result<Toolbox, String> {
    Toolbox::builder()
        .tool(test_simple_text::tool())
        .tool(test_image_content::tool())
        .tool(test_audio_content::tool())
        .tool(test_embedded_resource::tool())
        .tool(test_multiple_content_types::tool())
        .tool(test_error_handling::tool())
        .tool(test_tool_with_progress::tool())
        .tool(test_tool_with_logging::tool())
        .tool(test_sampling::tool())
        .tool(test_elicitation::tool())
        .tool(test_elicitation_sep1034_defaults::tool())
        .tool(test_elicitation_sep1330_enums::tool())
        .tool(test_input_required_result_elicitation::tool())
        .tool(test_input_required_result_sampling::tool())
        .tool(test_input_required_result_request_state::tool())
        .tool(test_input_required_result_multi_round::tool())
        .tool(test_input_required_result_tampered_state::tool())
        .tool(json_schema_2020_12_tool())
        .tool(test_custom_header::tool())
        .tool(greet::tool())
        .tool(slow_compute::tool())
        .tool(failing_job::tool())
        .tool(protocol_error_job::tool())
        .tool(confirm_delete::tool())
        .tool(multi_input::tool())
        .tool(test_tool_with_task::tool())
        .tool(test_missing_capability::tool())
        .tool(test_streaming_elicitation::tool())
        .tool(test_logging_tool::tool())
        .tool(test_input_required_result_list_roots::tool())
        .tool(test_input_required_result_multiple_inputs::tool())
        .tool(test_input_required_result_capabilities::tool())
        .tool(test_trigger_tool_change::tool())
        .build()
        .map_err(|e| format!("the toolbox could not be built: {e}"))
}

// ---- Prompts, resources, completions: rmcp's half -------------------------------------------

const STATIC_TEXT: &str = "test://static-text";
const STATIC_BINARY: &str = "test://static-binary";
const WATCHED: &str = "test://watched-resource";
const TEMPLATE: &str = "test://template/{id}/data";

/// The suite's prompts, resources and completions, as any rmcp server writes them.
///
/// One handler serves every session (`McpServer` shares it between them, as it shares the
/// toolbox); the subscriptions are one set for all of them, which is all the suite needs. A
/// server that notifies subscribers keeps each subscription with the peer of its request
/// (`context.peer`) and sends `notifications/resources/updated` through it.
#[derive(Default)]
struct Fixtures {
    subscriptions: Mutex<HashSet<String>>,
}

/// The question of `test_input_required_result_prompt`: an `input_required` result asking the
/// user for the prompt's context.
fn context_question() -> Result<rmcp::model::InputRequiredResult, ErrorData> {
    let form = json!({"type": "object", "properties": {
        "context": {"type": "string", "description": "The context"}}, "required": ["context"]});
    let Value::Object(form) = form else {
        unreachable!("an object literal")
    };
    let schema = rmcp::model::ElicitationSchema::from_json_schema(form)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let request =
        rmcp::model::ElicitRequest::new(rmcp::model::ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "What context should the prompt use?".into(),
            requested_schema: schema,
        });
    let requests = rmcp::model::InputRequests::from([(
        "user_context".to_string(),
        rmcp::model::InputRequest::Elicitation(request),
    )]);
    Ok(rmcp::model::InputRequiredResult::from_input_requests(
        requests,
    ))
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The string argument `name` of a prompt, or invalid params naming it.
fn prompt_arg(request: &GetPromptRequestParams, name: &str) -> Result<String, ErrorData> {
    match request.arguments.as_ref().and_then(|a| a.get(name)) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(ErrorData::invalid_params(
            format!(
                "the argument {name} of prompt {} must be a string",
                request.name
            ),
            None,
        )),
        None => Err(ErrorData::invalid_params(
            format!("prompt {} needs the argument {name}", request.name),
            None,
        )),
    }
}

/// The id of a `test://template/{id}/data` URI (one non-empty path segment).
fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

fn not_found(uri: &str) -> ErrorData {
    ErrorData::resource_not_found("Resource not found", Some(json!({ "uri": uri })))
}

impl ServerHandler for Fixtures {
    /// The capabilities `McpServer` takes over: prompts, resources (with subscriptions) and
    /// completions. (Tools are the toolbox's: declaring them here would change nothing.)
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_completions()
                .build(),
        )
        .with_instructions(
            "The fixtures of the MCP conformance suite: test tools, prompts and resources.",
        )
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let arg = |name: &str, description: &str| {
            PromptArgument::new(name)
                .with_description(description)
                .with_required(true)
        };
        Ok(ListPromptsResult::with_all_items(vec![
            Prompt::new(
                "test_simple_prompt",
                Some("A prompt without arguments."),
                None,
            ),
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A prompt with two required arguments."),
                Some(vec![
                    arg("arg1", "First test argument"),
                    arg("arg2", "Second test argument"),
                ]),
            ),
            Prompt::new(
                "test_prompt_with_embedded_resource",
                Some("A prompt that embeds a resource."),
                Some(vec![arg("resourceUri", "URI of the resource to embed")]),
            ),
            Prompt::new(
                "test_input_required_result_prompt",
                Some("A prompt that asks the user for its context first."),
                None,
            ),
            Prompt::new(
                "test_prompt_with_image",
                Some("A prompt with an image."),
                None,
            ),
        ]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let messages = match request.name.as_str() {
            "test_simple_prompt" => vec![PromptMessage::new_text(
                Role::User,
                "This is a simple prompt for testing.",
            )],
            "test_prompt_with_arguments" => {
                let (arg1, arg2) = (prompt_arg(&request, "arg1")?, prompt_arg(&request, "arg2")?);
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
                )]
            }
            "test_prompt_with_embedded_resource" => {
                let uri = prompt_arg(&request, "resourceUri")?;
                vec![
                    PromptMessage::new(
                        Role::User,
                        rmcp::model::ContentBlock::resource(
                            ResourceContents::text("Embedded resource content for testing.", uri)
                                .with_mime_type("text/plain"),
                        ),
                    ),
                    PromptMessage::new_text(
                        Role::User,
                        "Please process the embedded resource above.",
                    ),
                ]
            }
            "test_prompt_with_image" => vec![
                PromptMessage::new(
                    Role::User,
                    rmcp::model::ContentBlock::image(base64(&RED_PIXEL_PNG), "image/png"),
                ),
                PromptMessage::new_text(Role::User, "Please analyze the image above."),
            ],
            "test_input_required_result_prompt" => {
                // 2026-07-28 (SEP-2322): the prompt asks the user first, in a round of its own.
                let answer = request
                    .input_responses
                    .as_ref()
                    .and_then(|r| r.get("user_context"))
                    .and_then(|a| a.get("content"))
                    .and_then(|c| c.get("context"))
                    .and_then(Value::as_str);
                let Some(context) = answer else {
                    return Ok(GetPromptResponse::InputRequired(context_question()?));
                };
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("Use this context: {context}"),
                )]
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no prompt is named {other:?}"),
                    None,
                ))
            }
        };
        Ok(GetPromptResult::new(messages).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![
            McpResource::new(STATIC_TEXT, "static-text")
                .with_description("A static text resource.")
                .with_mime_type("text/plain"),
            McpResource::new(STATIC_BINARY, "static-binary")
                .with_description("A static binary resource: a 1x1 PNG.")
                .with_mime_type("image/png"),
            McpResource::new(WATCHED, "watched-resource")
                .with_description("A resource clients may subscribe to.")
                .with_mime_type("text/plain"),
        ]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(TEMPLATE, "template-data")
                .with_description("Data for one id.")
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let contents = match uri.as_str() {
            STATIC_TEXT => {
                ResourceContents::text("This is the content of the static text resource.", &uri)
                    .with_mime_type("text/plain")
            }
            STATIC_BINARY => {
                ResourceContents::blob(base64(&RED_PIXEL_PNG), &uri).with_mime_type("image/png")
            }
            WATCHED => ResourceContents::text("The watched resource has not changed.", &uri)
                .with_mime_type("text/plain"),
            _ => match template_id(&uri) {
                Some(id) => {
                    let data = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                    ResourceContents::text(data.to_string(), &uri)
                        .with_mime_type("application/json")
                }
                None => return Err(not_found(&uri)),
            },
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if ![STATIC_TEXT, STATIC_BINARY, WATCHED].contains(&request.uri.as_str())
            && template_id(&request.uri).is_none()
        {
            return Err(not_found(&request.uri));
        }
        self.subscriptions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // Unsubscribing from what was never subscribed is not an error (nothing to stop).
        self.subscriptions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&request.uri);
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let candidates: &[&str] = match (&request.r#ref, request.argument.name.as_str()) {
            (Reference::Prompt(p), "arg1" | "arg2") if p.name == "test_prompt_with_arguments" => {
                &["paris", "park", "party", "test", "testing"]
            }
            (Reference::Resource(r), "id") if r.uri == TEMPLATE => &["1", "2", "3", "123"],
            _ => &[],
        };
        let values: Vec<String> = candidates
            .iter()
            .filter(|c| c.starts_with(&request.argument.value))
            .map(|c| (*c).to_string())
            .collect();
        let completion =
            CompletionInfo::new(values).map_err(|e| ErrorData::internal_error(e, None))?;
        Ok(CompleteResult::new(completion))
    }
}

// ---- Serving ---------------------------------------------------------------------------------

fn port(args: &[String]) -> Result<u16, String> {
    match args {
        [] => Ok(0),
        [port] => port.parse().map_err(|_| {
            format!("the port must be a number from 0 to 65535, not {port:?}; {USAGE}")
        }),
        _ => Err(format!("one argument at most; {USAGE}")),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("conformance_server: {message}");
    std::process::exit(2);
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port = port(&args).unwrap_or_else(|e| fail(&e));
    let toolbox = std::sync::Arc::new(toolbox().unwrap_or_else(|e| fail(&e)));
    let _ = SERVED.set(std::sync::Arc::downgrade(&toolbox));
    let server = McpServer::new(toolbox)
        .server_info("toolsmith-conformance", env!("CARGO_PKG_VERSION"))
        // Calls that outlive their request, kept in this process (a service of several
        // replicas gives them its shared state store).
        .tasks(Tasks::in_memory().poll_interval(Duration::from_millis(200)))
        // The rest of the server: prompts, resources, completions.
        .with_handler(Fixtures::default());
    let http = server
        .bind_http(("127.0.0.1", port))
        .await
        .unwrap_or_else(|e| fail(&format!("cannot listen on 127.0.0.1:{port}: {e}")));
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{}", http.url());
    let _ = out.flush();
    if let Err(e) = http.wait().await {
        fail(&e.to_string());
    }
}
