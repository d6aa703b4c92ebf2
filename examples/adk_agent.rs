//! An ADK-Rust agent whose tools are toolsmith tools: a notes keeper. The agent is ADK's
//! `LlmAgent`, run by ADK's `Runner` in an in-memory session; the model is ADK's own
//! OpenAI-compatible chat-completions client (`adk-model`), so any such endpoint serves (OpenAI,
//! or a local server: Ollama, llama.cpp, vLLM). Every call the agent makes goes through the
//! toolbox's pipeline (validation, policy, approval, idempotency, audit).
//!
//! ```text
//! OPENAI_API_KEY=sk-... cargo run -p toolsmith-tests --example adk_agent -- "Note that the tent is packed, then show my notes."
//! # A local model (Ollama), no key needed by the server but one must be set:
//! OPENAI_API_KEY=none OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen3 \
//!   cargo run -p toolsmith-tests --example adk_agent -- "What are my notes?"
//! ```
//!
//! The key is read from the environment only, and never printed. Exit codes: 0 the agent
//! answered, 1 the model or the run failed, 2 a setting is missing.

use adk_agent::LlmAgentBuilder;
use adk_core::{Content, Part, RunConfig, StreamingMode};
use adk_model::{OpenAIClient, OpenAIConfig};
use adk_runner::Runner;
use adk_session::{CreateRequest, InMemorySessionService, SessionService};
use futures::StreamExt;
use std::sync::Arc;
use toolsmith_adk::ToolboxTools;

#[path = "notes/tools.rs"]
mod notes;

const APP: &str = "adk_agent";
const USER: &str = "local-user";
const SESSION: &str = "notes";

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let settings = match notes::settings("adk_agent") {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    match run(settings).await {
        Ok(answer) => {
            println!("{answer}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("adk_agent: the run failed: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

/// Runs the agent on `prompt` in a new session: the model's final answer.
async fn run(settings: notes::Settings) -> Result<String, String> {
    let notes::Settings {
        prompt,
        key,
        base_url,
        model,
    } = settings;
    // Without OPENAI_BASE_URL, OpenAI's own endpoint.
    let client = match base_url {
        Some(url) => OpenAIClient::compatible(key, url, model),
        None => OpenAIClient::new(OpenAIConfig::new(key, model)),
    }
    .map_err(|e| e.to_string())?;

    let toolbox = notes::toolbox();
    // The calls act for ADK's user id (`local-user`), the toolbox's caller.
    let agent = LlmAgentBuilder::new("notes_keeper")
        .instruction("You keep the user's notes. Use the tools; keep answers short.")
        .model(Arc::new(client))
        .toolset(Arc::new(ToolboxTools::new(toolbox)))
        .max_iterations(8)
        .build()
        .map_err(|e| e.to_string())?;

    let sessions = Arc::new(InMemorySessionService::new());
    sessions
        .create(CreateRequest {
            app_name: APP.into(),
            user_id: USER.into(),
            session_id: Some(SESSION.into()),
            state: Default::default(),
        })
        .await
        .map_err(|e| e.to_string())?;
    // One event per model turn, its whole text, rather than each streamed piece.
    let config = RunConfig::builder()
        .streaming_mode(StreamingMode::None)
        .build();
    let runner = Runner::builder()
        .app_name(APP)
        .agent(Arc::new(agent))
        .session_service(sessions)
        .run_config(config)
        .build()
        .map_err(|e| e.to_string())?;

    let mut events = runner
        .run_str(USER, SESSION, Content::new("user").with_text(prompt))
        .await
        .map_err(|e| e.to_string())?;
    let mut answer = None;
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| e.to_string())?;
        if !event.is_final_response() {
            continue;
        }
        let text: String = event
            .llm_response
            .content
            .iter()
            .flat_map(|c| &c.parts)
            .filter_map(|part| match part {
                Part::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if !text.is_empty() {
            answer = Some(text);
        }
    }
    answer.ok_or_else(|| "the model gave no answer".to_string())
}
