//! toolsmith tools inside rig's own agent loop (`rig_agent::Agent`, 0.44), given by
//! `toolsmith_rig::ToolboxTools`. The model is rig's own OpenAI chat-completions client talking to
//! a scripted model server on 127.0.0.1 (`common::scripted_model`): it asks for a tool, then for
//! one with bad arguments, then for a tool the policy denies, then for a keyed write twice, then
//! for a tool that needs approval, then answers. The test reads what the loop sent the model after
//! each call (the `tool` messages of the next request), and what ran.

use crate::common::scripted_model::{tool_result, Reply, ScriptedModel};
use rig_agent::AgentBuilder;
use rig_core::providers::openai::OpenAIConfig;
use rig_core::tool::{ToolContext, ToolErrorKind};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use toolsmith::approval::fn_approver;
use toolsmith::{tool, Approval, Effect, Policy, Toolbox};
use toolsmith_rig::{RunCaller, ToolboxTools};

static NOTES_READ: AtomicUsize = AtomicUsize::new(0);
/// The request ids charged (the tests run side by side, each with ids of its own).
static CHARGES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
static DELETES: AtomicUsize = AtomicUsize::new(0);
static ARCHIVES: AtomicUsize = AtomicUsize::new(0);

/// Reads the notes. Returns their text.
#[tool(read_only)]
fn read_rig_notes() -> String {
    NOTES_READ.fetch_add(1, Ordering::SeqCst);
    "pack the tent".into()
}

/// Charges the customer's card with the amount, once per request_id. Returns the receipt.
#[tool(writes, idempotency_key(request_id))]
fn charge_rig_card(
    /// The amount to charge, in cents, e.g. 500.
    amount: u64,
    /// The request's id, e.g. "r-1": a repeat with the same id charges nothing.
    request_id: String,
) -> String {
    CHARGES.lock().unwrap().push(request_id.clone());
    format!("receipt {amount} {request_id}")
}

/// Deletes every note. Returns how many were deleted.
#[tool(destructive, requires_approval)]
fn delete_rig_notes() -> u32 {
    DELETES.fetch_add(1, Ordering::SeqCst);
    3
}

/// Moves every note to the archive, after the user approves. Returns how many were moved.
#[tool(writes, requires_approval)]
fn archive_rig_notes() -> u32 {
    ARCHIVES.fetch_add(1, Ordering::SeqCst);
    3
}

/// Shares the notes with a colleague. Returns the colleague's name once shared.
#[tool(writes)]
fn share_rig_notes(
    /// The colleague's name, e.g. "Ben"; left out when the user has not said.
    colleague: Option<String>,
) -> Result<String, toolsmith::ToolError> {
    let Some(colleague) = colleague else {
        return Err(toolsmith::ToolError::needs_input(
            ["colleague"],
            "Ask the user who to share the notes with, then call again with `colleague`.",
        ));
    };
    Ok(colleague)
}

fn toolbox() -> Toolbox {
    Toolbox::builder()
        .tool(share_rig_notes::tool())
        .tool(read_rig_notes::tool())
        .tool(charge_rig_card::tool())
        .tool(delete_rig_notes::tool())
        .tool(archive_rig_notes::tool())
        .policy(
            Policy::allow_all()
                .deny_effect(Effect::Destructive)
                .require_scope("charge_rig_card", "billing:write"),
        )
        // The host's approver: ann may archive; nobody else.
        .approver(fn_approver(|req| {
            let ann = req.caller.id() == Some("ann");
            async move {
                if ann {
                    Approval::Approved
                } else {
                    Approval::rejected("only the notes' owner may archive them")
                }
            }
        }))
        .build()
        .unwrap()
}

/// ann's run context, with the scope the charge needs.
fn ann() -> ToolContext {
    let mut context = ToolContext::new();
    context
        .insert(RunCaller::new("ann").with_scope("billing:write"))
        .unwrap();
    context
}

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test]
async fn toolsmith_tools_run_through_the_boundary_inside_rigs_agent_loop() {
    let keyed = json!({"amount": 500, "request_id": "r-1"});
    let model = ScriptedModel::start(vec![
        Reply::tool_call("call_1", "read_rig_notes", json!({})),
        Reply::tool_call(
            "call_2",
            "charge_rig_card",
            json!({"amount": "five hundred", "request_id": "r-1"}),
        ),
        Reply::tool_call("call_3", "delete_rig_notes", json!({})),
        Reply::tool_call("call_4", "charge_rig_card", keyed.clone()),
        Reply::tool_call("call_5", "charge_rig_card", keyed),
        Reply::tool_call("call_6", "archive_rig_notes", json!({})),
        Reply::text("All done."),
    ])
    .await;
    let openai = OpenAIConfig::new("sk-test-not-a-key")
        .with_base_url(&model.url)
        .client();
    let agent = AgentBuilder::new(openai.chat("scripted"))
        .preamble("You keep the user's notes.")
        .dynamic_tools(ToolboxTools::new(toolbox()).dynamic_tools())
        .build();
    let run = agent
        .prompt("Read my notes, charge 500 cents, clear the notes, then archive them.")
        .max_turns(10)
        .tool_context(ann());
    let answer = tokio::time::timeout(std::time::Duration::from_secs(60), run.run())
        .await
        .expect("the agent loop ended within the bound")
        .expect("the run succeeded");
    assert_eq!(answer.output(), "All done.");

    let requests = model.requests();
    assert_eq!(requests.len(), 7, "one model turn per planned answer");
    // The model was given each tool as the toolbox declares it.
    let tools = requests[0]["tools"].as_array().expect("tools were sent");
    let charge = tools
        .iter()
        .find(|t| t["function"]["name"] == "charge_rig_card")
        .expect("charge_rig_card was offered");
    assert_eq!(
        charge["function"]["parameters"]["properties"]["amount"]["description"],
        "The amount to charge, in cents, e.g. 500."
    );
    let result = |n: usize, id: &str| {
        tool_result(&requests[n], id).unwrap_or_else(|| panic!("no result for {id}"))
    };
    // A valid call ran once and handed back the tool's data.
    assert_eq!(parsed(&result(1, "call_1")), json!("pack the tent"));
    assert_eq!(NOTES_READ.load(Ordering::SeqCst), 1);
    // Bad arguments come back with the parameter's description, for the next call to fix.
    let invalid = parsed(&result(2, "call_2"));
    assert_eq!(invalid["status"], "invalid_input", "{invalid}");
    let message = invalid["message"].as_str().unwrap();
    assert!(
        message.contains("The amount to charge, in cents"),
        "{message}"
    );
    // The denied tool is refused without running.
    let denied = parsed(&result(3, "call_3"));
    assert_eq!(denied["status"], "denied", "{denied}");
    assert_eq!(denied["code"], "POLICY_DENIED", "{denied}");
    assert_eq!(DELETES.load(Ordering::SeqCst), 0);
    // The keyed write ran once (ann's scope reached the policy); the loop's repeat is the first
    // one's duplicate.
    let charged = parsed(&result(4, "call_4"));
    assert_eq!(charged["status"], "ok", "{charged}");
    assert_eq!(charged["data"], "receipt 500 r-1", "{charged}");
    let repeat = parsed(&result(5, "call_5"));
    assert_eq!(repeat["code"], "DUPLICATE", "{repeat}");
    let charges = CHARGES.lock().unwrap().clone();
    assert_eq!(charges.iter().filter(|id| *id == "r-1").count(), 1);
    // The host's approver said yes to ann: the archive ran.
    assert_eq!(parsed(&result(6, "call_6")), json!(3));
    assert_eq!(ARCHIVES.load(Ordering::SeqCst), 1);
}

/// What rig's error carries for each refused outcome: the envelope's message as its text, the
/// code, the status's kind, and the envelope for the model; and who the call acts for.
#[tokio::test]
async fn refusals_are_rig_tool_errors_with_the_envelopes_message_code_and_kind() {
    let tools = ToolboxTools::new(toolbox());
    let by_name = |name: &str| {
        tools
            .dynamic_tools()
            .into_iter()
            .find(|t| t.name().as_str() == name)
            .unwrap()
    };
    let charge = by_name("charge_rig_card");

    // Without a RunCaller the call is anonymous: the scope is missing, so the policy denies it.
    let err = charge
        .execute(json!({"amount": 1, "request_id": "anon"}))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::PermissionDenied);
    assert_eq!(err.code(), Some("POLICY_DENIED"));
    assert_eq!(err.retryable(), Some(false));
    let seen = err.model_output().as_json().expect("the envelope").clone();
    assert_eq!(seen["status"], "denied");
    assert_eq!(err.message(), seen["message"].as_str().unwrap());

    // Bad arguments: InvalidArgs, the message naming the parameter's description.
    let err = charge
        .execute_with(&mut ann(), json!({"amount": -5, "request_id": "r-9"}))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidArgs);
    assert!(err.message().contains("amount"), "{}", err.message());

    // A repeat of a completed write is a refusal, with the code DUPLICATE.
    let args = json!({"amount": 7, "request_id": "r-dup"});
    let first = charge.execute_with(&mut ann(), args.clone()).await.unwrap();
    assert_eq!(first.as_json().unwrap()["data"], "receipt 7 r-dup");
    let err = charge.execute_with(&mut ann(), args).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::PermissionDenied);
    assert_eq!(err.code(), Some("DUPLICATE"));

    // A question for the user is a result the agent relays, not an error.
    let asked = by_name("share_rig_notes")
        .execute_with(&mut ann(), json!({}))
        .await
        .expect("needs_input is a result");
    let asked = asked.as_json().expect("the envelope").clone();
    assert_eq!(asked["status"], "needs_input", "{asked}");
    assert_eq!(asked["missing"], json!(["colleague"]), "{asked}");
    assert!(asked["message"]
        .as_str()
        .unwrap()
        .starts_with("Ask the user"));

    // The approver says no to bob: cancelled by the user, never run.
    let mut bob = ToolContext::new();
    bob.insert(RunCaller::new("bob")).unwrap();
    let err = by_name("archive_rig_notes")
        .execute_with(&mut bob, json!({}))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Cancelled);
    assert!(err.message().contains("owner"), "{}", err.message());
    let seen = err.model_output().as_json().expect("the envelope").clone();
    assert_eq!(seen["status"], "cancelled_by_user", "{seen}");
}

/// The tool set and the embedding documents an agent retrieves tools by.
#[test]
fn tools_are_retrievable_by_their_spec_text() {
    let tools = ToolboxTools::new(toolbox()).only(["charge_rig_card", "read_rig_notes"]);
    let schemas = tools.schemas();
    let names: Vec<_> = schemas.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["read_rig_notes", "charge_rig_card"]);
    let charge = &schemas[1];
    assert!(charge.embedding_docs[0].starts_with("Charges the customer's card"));
    assert!(charge
        .embedding_docs
        .contains(&"amount: The amount to charge, in cents, e.g. 500.".to_string()));
    let set = tools.toolset();
    assert_eq!(set.len(), 2);
    assert!(set.contains("charge_rig_card") && !set.contains("delete_rig_notes"));
}

/// The example (`examples/rig_agent.rs`) against an OpenAI-compatible endpoint: the scripted
/// server, given to it as `OPENAI_BASE_URL`. It adds a note, lists the notes, is refused the
/// destructive clear, and prints the model's answer; the key is never printed.
#[tokio::test]
async fn the_example_agent_runs_against_an_openai_compatible_endpoint() {
    crate::common::notes_example_runs("rig_agent").await;
}
