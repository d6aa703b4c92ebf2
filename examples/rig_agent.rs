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
use toolsmith_rig::{RunCaller, ToolboxTools};

#[path = "notes/tools.rs"]
mod notes;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let notes::Settings {
        prompt,
        key,
        base_url,
        model,
    } = match notes::settings("rig_agent") {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    let mut config = OpenAIConfig::new(key);
    if let Some(url) = base_url {
        config = config.with_base_url(url);
    }
    let toolbox = notes::toolbox();
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
