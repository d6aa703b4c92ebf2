//! toolsmith tools inside ADK-Rust's own agent loop (`adk_agent::LlmAgent`, 2.3), given by
//! `toolsmith_adk::ToolboxTools`, with a scripted model (an `adk_core::Llm` of the test's own):
//! it asks for a tool, then for one with bad arguments, then for a tool the policy denies, then
//! for a keyed write twice, then answers. The test checks what the loop hands back to the model
//! after each call, and what ran. The example `adk_agent` runs the same tools as a process, its
//! model ADK's OpenAI client talking to the scripted model server of `common::scripted_model`.

use adk_agent::LlmAgentBuilder;
use adk_core::{
    Agent, Content, FinishReason, InvocationContext, Llm, LlmRequest, LlmResponse,
    LlmResponseStream, Part, RunConfig, Session, State,
};
use futures::StreamExt;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use toolsmith::{tool, Caller, Effect, Policy, Toolbox};
use toolsmith_adk::ToolboxTools;

static NOTES_READ: AtomicUsize = AtomicUsize::new(0);
static CHARGES: AtomicUsize = AtomicUsize::new(0);
static DELETES: AtomicUsize = AtomicUsize::new(0);

/// Reads the notes. Returns their text.
#[tool(read_only)]
fn read_adk_notes() -> String {
    NOTES_READ.fetch_add(1, Ordering::SeqCst);
    "pack the tent".into()
}

/// Charges the customer's card with the amount, once per request_id. Returns the receipt.
#[tool(writes, idempotency_key(request_id))]
fn charge_adk_card(
    /// The amount to charge, in cents, e.g. 500.
    amount: u64,
    /// The request's id, e.g. "r-1": a repeat with the same id charges nothing.
    request_id: String,
) -> String {
    CHARGES.fetch_add(1, Ordering::SeqCst);
    format!("receipt {amount} {request_id}")
}

/// Deletes every note. Returns how many were deleted.
#[tool(destructive, requires_approval)]
fn delete_adk_notes() -> u32 {
    DELETES.fetch_add(1, Ordering::SeqCst);
    3
}

/// The model: one planned answer per turn, each request it was given kept.
struct Scripted {
    plan: Vec<Part>,
    turn: AtomicUsize,
    requests: Mutex<Vec<LlmRequest>>,
}

fn call(name: &str, args: Value, n: usize) -> Part {
    Part::FunctionCall {
        name: name.into(),
        args,
        id: Some(format!("call_{n}")),
        thought_signature: None,
    }
}

#[async_trait::async_trait]
impl Llm for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    async fn generate_content(
        &self,
        req: LlmRequest,
        _stream: bool,
    ) -> adk_core::Result<LlmResponseStream> {
        self.requests.lock().unwrap().push(req);
        let turn = self.turn.fetch_add(1, Ordering::SeqCst);
        let part = self.plan.get(turn).cloned().unwrap_or(Part::Text {
            text: "All done.".into(),
        });
        let response = LlmResponse {
            content: Some(Content {
                role: "model".into(),
                parts: vec![part],
            }),
            usage_metadata: None,
            finish_reason: Some(FinishReason::Stop),
            citation_metadata: None,
            partial: false,
            turn_complete: true,
            interrupted: false,
            error_code: None,
            error_message: None,
            provider_metadata: None,
            interaction_id: None,
        };
        Ok(Box::pin(async_stream::stream! { yield Ok(response); }))
    }
}

struct NoState;
impl State for NoState {
    fn get(&self, _key: &str) -> Option<Value> {
        None
    }
    fn set(&mut self, _key: String, _value: Value) {}
    fn all(&self) -> HashMap<String, Value> {
        HashMap::new()
    }
}

struct OneSession;
impl Session for OneSession {
    fn id(&self) -> &str {
        "session-1"
    }
    fn app_name(&self) -> &str {
        "toolsmith-adk-test"
    }
    fn user_id(&self) -> &str {
        "ann"
    }
    fn state(&self) -> &dyn State {
        &NoState
    }
    fn conversation_history(&self) -> Vec<Content> {
        Vec::new()
    }
}

/// The invocation: user `ann` in one session.
struct Invocation {
    session: OneSession,
    user_content: Content,
}

#[async_trait::async_trait]
impl adk_core::ReadonlyContext for Invocation {
    fn invocation_id(&self) -> &str {
        "invocation-1"
    }
    fn agent_name(&self) -> &str {
        "assistant"
    }
    fn user_id(&self) -> &str {
        "ann"
    }
    fn app_name(&self) -> &str {
        "toolsmith-adk-test"
    }
    fn session_id(&self) -> &str {
        "session-1"
    }
    fn branch(&self) -> &str {
        "main"
    }
    fn user_content(&self) -> &Content {
        &self.user_content
    }
}

#[async_trait::async_trait]
impl adk_core::CallbackContext for Invocation {
    fn artifacts(&self) -> Option<Arc<dyn adk_core::Artifacts>> {
        None
    }
}

#[async_trait::async_trait]
impl InvocationContext for Invocation {
    fn agent(&self) -> Arc<dyn Agent> {
        unreachable!("the agent under test never asks for itself")
    }
    fn memory(&self) -> Option<Arc<dyn adk_core::Memory>> {
        None
    }
    fn session(&self) -> &dyn Session {
        &self.session
    }
    fn run_config(&self) -> &RunConfig {
        static CONFIG: std::sync::OnceLock<RunConfig> = std::sync::OnceLock::new();
        CONFIG.get_or_init(RunConfig::default)
    }
    fn end_invocation(&self) {}
    fn ended(&self) -> bool {
        false
    }
}

/// The function response the loop handed back in `req` for the call `id`.
fn response_to(req: &LlmRequest, id: &str) -> Value {
    let contents = serde_json::to_value(&req.contents).unwrap();
    let mut found = None;
    find_response(&contents, id, &mut found);
    found.unwrap_or_else(|| panic!("no response to {id} in {contents}"))
}

fn find_response(v: &Value, id: &str, found: &mut Option<Value>) {
    match v {
        Value::Object(map) => {
            let is_it = map.get("id").and_then(Value::as_str) == Some(id)
                && (map.contains_key("function_response") || map.contains_key("functionResponse"));
            if is_it {
                let data = map
                    .get("function_response")
                    .or_else(|| map.get("functionResponse"))
                    .unwrap();
                *found = Some(data["response"].clone());
            }
            map.values().for_each(|x| find_response(x, id, found));
        }
        Value::Array(items) => items.iter().for_each(|x| find_response(x, id, found)),
        _ => {}
    }
}

#[tokio::test]
async fn toolsmith_tools_run_through_the_boundary_inside_adks_agent_loop() {
    let toolbox = Toolbox::builder()
        .tool(read_adk_notes::tool())
        .tool(charge_adk_card::tool())
        .tool(delete_adk_notes::tool())
        .policy(
            Policy::allow_all()
                .deny_effect(Effect::Destructive)
                .require_scope("charge_adk_card", "billing:write"),
        )
        .build()
        .unwrap();
    let tools = ToolboxTools::new(toolbox)
        .caller(|ctx| Caller::new(ctx.user_id()).with_scope("billing:write"));
    // What ADK reads of each tool comes from its spec.
    let by_name: HashMap<String, _> = tools
        .tools()
        .into_iter()
        .map(|t| (t.name().to_string(), t))
        .collect();
    assert!(by_name["read_adk_notes"].is_read_only());
    assert!(by_name["read_adk_notes"].is_concurrency_safe());
    assert!(!by_name["charge_adk_card"].is_read_only());
    assert_eq!(
        by_name["charge_adk_card"].required_scopes(),
        ["billing:write"]
    );
    let params = by_name["charge_adk_card"].parameters_schema().unwrap();
    assert_eq!(
        params["properties"]["amount"]["description"],
        "The amount to charge, in cents, e.g. 500."
    );

    let keyed = json!({"amount": 500, "request_id": "r-1"});
    let model = Arc::new(Scripted {
        plan: vec![
            call("read_adk_notes", json!({}), 1),
            call(
                "charge_adk_card",
                json!({"amount": "five hundred", "request_id": "r-1"}),
                2,
            ),
            call("delete_adk_notes", json!({}), 3),
            call("charge_adk_card", keyed.clone(), 4),
            call("charge_adk_card", keyed, 5),
        ],
        turn: AtomicUsize::new(0),
        requests: Mutex::new(Vec::new()),
    });
    let mut builder = LlmAgentBuilder::new("assistant").model(model.clone());
    for tool in tools.tools() {
        builder = builder.tool(tool);
    }
    let agent = builder.build().unwrap();
    let ctx = Arc::new(Invocation {
        session: OneSession,
        user_content: Content {
            role: "user".into(),
            parts: vec![Part::Text {
                text: "Read my notes, charge 500 cents, and clear the notes.".into(),
            }],
        },
    });
    let mut events = agent.run(ctx).await.unwrap();
    let bound = std::time::Duration::from_secs(30);
    tokio::time::timeout(bound, async { while events.next().await.is_some() {} })
        .await
        .expect("the agent loop ended within the bound");

    let requests = model.requests.lock().unwrap();
    assert_eq!(
        requests.len(),
        6,
        "one model turn per planned answer, and the last"
    );
    // A valid call ran once and handed back the tool's data.
    assert_eq!(response_to(&requests[1], "call_1"), json!("pack the tent"));
    assert_eq!(NOTES_READ.load(Ordering::SeqCst), 1);
    // Bad arguments come back with the parameter's description, for the next call to fix.
    let invalid = response_to(&requests[2], "call_2");
    assert_eq!(invalid["status"], "invalid_input", "{invalid}");
    assert!(
        invalid["message"]
            .as_str()
            .unwrap()
            .contains("The amount to charge, in cents"),
        "{invalid}"
    );
    // The denied tool is refused without running.
    let denied = response_to(&requests[3], "call_3");
    assert_eq!(denied["status"], "denied", "{denied}");
    assert_eq!(denied["code"], "POLICY_DENIED", "{denied}");
    assert_eq!(DELETES.load(Ordering::SeqCst), 0);
    // The keyed write ran once; its repeat by the loop is the first one's duplicate.
    // (An `ok` that names its kept record is the envelope, with the data in it.)
    let charged = response_to(&requests[4], "call_4");
    assert_eq!(charged["status"], "ok", "{charged}");
    assert_eq!(charged["data"], "receipt 500 r-1", "{charged}");
    let repeat = response_to(&requests[5], "call_5");
    assert_eq!(repeat["code"], "DUPLICATE", "{repeat}");
    assert_eq!(CHARGES.load(Ordering::SeqCst), 1);
}

/// The example (`examples/adk_agent.rs`: ADK's runner, `LlmAgent` and OpenAI client) against an
/// OpenAI-compatible endpoint: the scripted server, given to it as `OPENAI_BASE_URL`, answering
/// its streamed requests as server-sent events. It adds a note, lists the notes, is refused the
/// destructive clear, and prints the model's answer; the key is never printed.
#[tokio::test]
async fn the_example_agent_runs_against_an_openai_compatible_endpoint() {
    let Some(requests) = crate::common::notes_example_runs("adk_agent").await else {
        return;
    };
    // ADK's agent always streams from its model.
    assert_eq!(requests[0]["stream"], true);
    // The model was given each tool as the toolbox declares it.
    let tools = requests[0]["tools"].as_array().expect("tools were sent");
    let add = tools
        .iter()
        .find(|t| t["function"]["name"] == "add_note")
        .expect("add_note was offered");
    assert_eq!(
        add["function"]["parameters"]["properties"]["note_id"]["description"],
        "A short id for this note, e.g. \"n-1\": repeating it adds nothing."
    );
}
