//! A rig agent whose tools are toolsmith tools: a notes keeper. The model is any
//! OpenAI-compatible chat-completions endpoint (OpenAI, or a local server: Ollama, llama.cpp,
//! vLLM); every call the agent makes goes through the toolbox's pipeline (validation, policy,
//! approval, idempotency, audit).
//!
//! ```text
//! OPENAI_API_KEY=sk-... cargo run -p toolsmith-tests --example rig_agent -- "Note that the tent is packed, then show my notes."
//! # A local model (Ollama), no key needed by the server but one must be set:
//! OPENAI_API_KEY=none OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen3 \
//!   cargo run -p toolsmith-tests --example rig_agent -- "What are my notes?"
//! ```
//!
//! The key is read from the environment only, and never printed. Exit codes: 0 the agent
//! answered, 1 the model or the run failed, 2 a setting is missing.

use rig_agent::AgentBuilder;
use rig_core::providers::openai::OpenAIConfig;
use rig_core::tool::ToolContext;
use std::sync::Mutex;
use toolsmith::{tool, Effect, Policy, Toolbox};
use toolsmith_rig::{RunCaller, ToolboxTools};

/// The notes, kept for the run.
static NOTES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Lists the user's notes, oldest first. Returns the notes' texts; an empty list when there are
/// none.
#[tool(read_only)]
fn list_notes() -> Vec<String> {
    NOTES.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Adds a note for the user, once per note_id. Use it when the user asks to remember something.
/// Returns the number of notes kept after adding it.
#[tool(writes, idempotency_key(note_id))]
fn add_note(
    /// The note's text, e.g. "The tent is packed."; at most 500 characters.
    #[arg(max_length = 500)]
    text: String,
    /// A short id for this note, e.g. "n-1": repeating it adds nothing.
    note_id: String,
) -> usize {
    let mut notes = NOTES.lock().unwrap_or_else(|e| e.into_inner());
    notes.push(text);
    let _ = note_id;
    notes.len()
}

/// Deletes every note of the user. Returns how many notes were deleted.
#[tool(destructive, requires_approval)]
fn clear_notes() -> usize {
    let mut notes = NOTES.lock().unwrap_or_else(|e| e.into_inner());
    let n = notes.len();
    notes.clear();
    n
}

fn setting(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let prompt = if prompt.is_empty() {
        "Note that the tent is packed, then tell me what my notes say.".to_string()
    } else {
        prompt
    };
    let Some(key) = setting("OPENAI_API_KEY") else {
        eprintln!(
            "rig_agent: set OPENAI_API_KEY (and OPENAI_BASE_URL for a local server such as \
             http://127.0.0.1:11434/v1) to run the agent against a model"
        );
        return std::process::ExitCode::from(2);
    };
    let mut config = OpenAIConfig::new(key);
    if let Some(url) = setting("OPENAI_BASE_URL") {
        config = config.with_base_url(url);
    }
    let model = setting("OPENAI_MODEL").unwrap_or_else(|| "gpt-5.4-mini".to_string());

    // Clearing the notes is destructive: this host denies it outright. (A host with a person at
    // hand would set an approver instead, and the tool would run when they say yes.)
    let toolbox = Toolbox::builder()
        .tools([list_notes::tool(), add_note::tool(), clear_notes::tool()])
        .policy(Policy::allow_all().deny_effect(Effect::Destructive))
        .build()
        .expect("the example's tools are valid");
    let agent = AgentBuilder::new(config.client().chat(model))
        .preamble("You keep the user's notes. Use the tools; keep answers short.")
        .dynamic_tools(ToolboxTools::new(toolbox).dynamic_tools())
        .build();
    let mut context = ToolContext::new();
    context
        .insert(RunCaller::new("local-user"))
        .expect("a RunCaller is plain data");
    match agent
        .prompt(prompt)
        .max_turns(8)
        .tool_context(context)
        .run()
        .await
    {
        Ok(answer) => {
            println!("{}", answer.output());
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rig_agent: the run failed: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
