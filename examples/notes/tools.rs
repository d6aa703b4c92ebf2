//! The notes keeper both agent examples run (`rig_agent.rs`, `adk_agent.rs`): its three tools,
//! its toolbox, and the settings each reads from the environment.

use std::sync::Mutex;
use toolsmith::{tool, Effect, Policy, Toolbox};

/// The notes, kept for the run.
static NOTES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Lists the user's notes, oldest first. Returns the notes' texts; an empty list when there are
/// none.
#[tool(read_only)]
pub fn list_notes() -> Vec<String> {
    NOTES.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Adds a note for the user, once per note_id. Use it when the user asks to remember something.
/// Returns the number of notes kept after adding it.
#[tool(writes, idempotency_key(note_id))]
pub fn add_note(
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
pub fn clear_notes() -> usize {
    let mut notes = NOTES.lock().unwrap_or_else(|e| e.into_inner());
    let n = notes.len();
    notes.clear();
    n
}

/// The three tools. Clearing the notes is destructive: this host denies it outright. (A host
/// with a person at hand would set an approver instead, and the tool would run when they say
/// yes.)
pub fn toolbox() -> Toolbox {
    Toolbox::builder()
        .tools([list_notes::tool(), add_note::tool(), clear_notes::tool()])
        .policy(Policy::allow_all().deny_effect(Effect::Destructive))
        .build()
        .expect("the example's tools are valid")
}

/// What an example run reads: the request (its arguments), the key, the endpoint, the model.
pub struct Settings {
    pub prompt: String,
    pub key: String,
    /// `OPENAI_BASE_URL`; OpenAI's own endpoint when unset.
    pub base_url: Option<String>,
    pub model: String,
}

fn setting(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The settings, or exit code 2 after one line naming what to set (`example` names the
/// program in it).
pub fn settings(example: &str) -> Result<Settings, std::process::ExitCode> {
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let prompt = if prompt.is_empty() {
        "Note that the tent is packed, then tell me what my notes say.".to_string()
    } else {
        prompt
    };
    let Some(key) = setting("OPENAI_API_KEY") else {
        eprintln!(
            "{example}: set OPENAI_API_KEY (and OPENAI_BASE_URL for a local server such as \
             http://127.0.0.1:11434/v1) to run the agent against a model"
        );
        return Err(std::process::ExitCode::from(2));
    };
    Ok(Settings {
        prompt,
        key,
        base_url: setting("OPENAI_BASE_URL"),
        model: setting("OPENAI_MODEL").unwrap_or_else(|| "gpt-5.4-mini".to_string()),
    })
}
