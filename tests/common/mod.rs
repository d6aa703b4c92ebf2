//! Helpers the facade's integration tests share (`crate::common` in `tests/it`); each module uses
//! only some of them.
//!
//! - [`validation_tools`]: the `#[tool]` corpus of every parameter shape and constraint keyword.
//! - [`instances`]: the schema-driven generator of pseudo-random instances.
//! - [`workspace`]: a temporary directory tree with a workspace root and a canary outside it.
//! - Here: runtimes, envelope views and assertions, a shared record store, run counters and a
//!   counted tool, hand-written specs (toolsmith-core's helpers), temporary paths, `required`
//!   lists, the examples' binaries and the lint check every example's tools pass.
#![allow(dead_code)]

pub mod instances;
pub mod scripted_model;
pub mod validation_tools;
pub mod workspace;

// The hand-written spec, the echo tool and the runtime are toolsmith-core's test helpers (the facade's
// types are toolsmith-core's).
#[path = "../../toolsmith-core/tests/common/mod.rs"]
mod runtime_helpers;
#[allow(unused_imports)] // each binary uses some of them
pub use runtime_helpers::{capture_with, echo_tool, read_only, rt, spec};

use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use toolsmith::budget::{MemoryRecordStore, RecordStore};
use toolsmith::{tool, Envelope, Status, Tool, ToolSpec, Toolbox};

/// The example `name`'s binary (an `[[example]]` of `tests/Cargo.toml`), built by `cargo test`
/// beside the test binary; `None`, with a SKIP said, when it is not built.
pub fn example_bin(name: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?.parent()?.join("examples").join(name);
    if bin.exists() {
        return Some(bin);
    }
    crate::require::missing::<()>(
        &format!("examples/{name}"),
        &format!(
            "not built; `cargo test` builds it, `cargo build -p toolsmith-tests --example {name}` \
             does too"
        ),
    );
    None
}

/// Runs the notes keeper example `name` (`examples/notes/tools.rs`, with rig or ADK) against
/// the scripted model server, given to it as `OPENAI_BASE_URL` with a canary key: the model adds
/// a note, lists the notes, asks for the destructive clear, then answers. Checks what every such
/// example must do (it prints the answer; the key is in no output and no request body; the
/// tools' results reach the model; the clear is refused; without a key, one line and exit 2) and
/// returns the requests the model was sent, for the framework's own checks. `None` when the
/// example is not built.
pub async fn notes_example_runs(name: &str) -> Option<Vec<Value>> {
    use scripted_model::{tool_result, Reply, ScriptedModel};
    use serde_json::json;
    let bin = example_bin(name)?;
    let model = ScriptedModel::start(vec![
        Reply::tool_call(
            "call_1",
            "add_note",
            json!({"text": "The tent is packed.", "note_id": "n-1"}),
        ),
        Reply::tool_call("call_2", "list_notes", json!({})),
        Reply::tool_call("call_3", "clear_notes", json!({})),
        Reply::text("Your note is kept: The tent is packed."),
    ])
    .await;
    let key = "sk-canary-7f3a9d-not-a-real-key";
    let run = tokio::process::Command::new(&bin)
        .arg("Note that the tent is packed.")
        .env("OPENAI_API_KEY", key)
        .env("OPENAI_BASE_URL", &model.url)
        .env("OPENAI_MODEL", "scripted")
        .env_remove("HTTPS_PROXY")
        .env_remove("HTTP_PROXY")
        .env_remove("ALL_PROXY")
        .env("NO_PROXY", "127.0.0.1")
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), run)
        .await
        .expect("the example ended within the bound")
        .expect("the example ran");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), "Your note is kept: The tent is packed.");
    assert!(!stdout.contains(key) && !stderr.contains(key));
    let requests = model.requests();
    assert_eq!(requests.len(), 4, "{requests:?}");
    assert_eq!(requests[0]["model"], "scripted");
    assert!(!Value::Array(requests.clone()).to_string().contains(key));
    let parsed = |text: String| -> Value {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    };
    // A keyed write's result names its kept record: the envelope, with the data in it.
    let added = parsed(tool_result(&requests[1], "call_1").unwrap());
    assert_eq!(added["data"], 1, "{added}");
    assert_eq!(
        parsed(tool_result(&requests[2], "call_2").unwrap()),
        json!(["The tent is packed."])
    );
    let refused = parsed(tool_result(&requests[3], "call_3").unwrap());
    assert_eq!(refused["code"], "POLICY_DENIED", "{refused}");

    // Without a key it says what to set, and exits 2.
    let out = tokio::process::Command::new(&bin)
        .env_remove("OPENAI_API_KEY")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("set OPENAI_API_KEY"));
    Some(requests)
}

/// Runs `f` to completion on a fresh [`rt`].
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    rt().block_on(f)
}

/// Calls `name` with `args` on `tb` from a test that is not `async`.
pub fn call_blocking(tb: &Toolbox, name: &str, args: Value) -> Envelope {
    rt().block_on(tb.call(name, args))
}

/// Drives `call` until `started()` holds (asked every millisecond, for at most 30 s), then drops
/// it: a call dropped while its tool runs, however long the tool took to start on a loaded
/// machine. Panics when the call answers first.
pub async fn drop_once(
    call: impl std::future::Future<Output = Envelope>,
    started: impl Fn() -> bool,
) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    tokio::pin!(call);
    while !started() {
        assert!(
            std::time::Instant::now() < deadline,
            "the tool did not start within 30 s"
        );
        tokio::select! {
            env = &mut call => panic!("the call answered before it was dropped: {}", env.to_json()),
            () = tokio::time::sleep(std::time::Duration::from_millis(1)) => {}
        }
    }
}

/// The envelope as JSON without its per-call operation id, which is asserted present and of the
/// `op_` form.
#[track_caller]
pub fn wire(env: &Envelope) -> Value {
    let mut v = serde_json::to_value(env).unwrap();
    let id = v.as_object_mut().unwrap().remove("operation_id");
    assert!(
        id.is_some_and(|id| id.as_str().is_some_and(|s| s.starts_with("op_"))),
        "operation_id missing in {v}"
    );
    v
}

/// The envelope as JSON without its operation id (a new one per call), present or not.
pub fn without_operation_id(env: &Envelope) -> Value {
    let mut v = serde_json::to_value(env).unwrap();
    v.as_object_mut().unwrap().remove("operation_id");
    v
}

/// A record store the test keeps a handle to, to look at what the toolbox kept.
pub struct SharedStore(pub Arc<MemoryRecordStore>);

impl RecordStore for SharedStore {
    fn put(&self, value: Value) -> String {
        self.0.put(value)
    }
    fn get(&self, reference: &str) -> Option<Value> {
        self.0.get(reference)
    }
}

/// How often each tool body ran, by name: proves what the boundary let through. Tools take it
/// as a `#[context]` value.
#[derive(Default)]
pub struct Runs(Mutex<HashMap<&'static str, usize>>);

impl Runs {
    /// Counts one run of `tool`; returns the count with this one (1 for the first run).
    pub fn bump(&self, tool: &'static str) -> usize {
        let mut runs = self.0.lock().unwrap();
        let n = runs.entry(tool).or_insert(0);
        *n += 1;
        *n
    }

    /// How often `tool` ran so far.
    pub fn of(&self, tool: &str) -> usize {
        self.0.lock().unwrap().get(tool).copied().unwrap_or(0)
    }
}

// A write without idempotency keys, counted in `Runs` (boundary and security tests).
/// Opens a support ticket. Returns the ticket number.
#[tool(writes)]
pub fn create_ticket(
    #[context] runs: &Runs,
    /// The ticket's title, e.g. "Printer on fire".
    title: String,
) -> usize {
    let _ = title;
    runs.bump("create_ticket")
}

/// Asserts the envelope's status and code (showing the envelope when either differs) and
/// returns its message.
#[track_caller]
pub fn assert_outcome(env: &Envelope, status: Status, code: &str) -> String {
    assert_eq!(env.status, status, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some(code), "{}", env.to_json());
    env.message.clone().unwrap()
}

/// The names a schema object lists in `required`.
pub fn required_of(obj: &serde_json::Map<String, Value>) -> Vec<&str> {
    obj.get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

static NEXT_DIR: AtomicUsize = AtomicUsize::new(0);

/// A new empty directory under the system's temporary directory, unique to this process and
/// call; `label` names it for whoever finds it left behind.
pub fn fresh_dir(label: &str) -> PathBuf {
    let n = NEXT_DIR.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("toolsmith-{label}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Asserts what every example's tools promise: no lint finding, a description of at most 500
/// characters, and a description of at most 150 characters on every parameter. `more` adds the
/// example's own checks on each spec.
#[track_caller]
pub fn assert_lint_clean_within_budgets(tools: Vec<Tool>, more: impl Fn(&ToolSpec)) {
    for tool in tools {
        let spec = tool.spec();
        let findings = toolsmith::lint::lint(spec);
        assert!(findings.is_empty(), "{}: {findings:?}", spec.name);
        assert!(spec.description.chars().count() <= 500, "{}", spec.name);
        for (name, p) in spec.input_schema["properties"].as_object().unwrap() {
            let d = p["description"].as_str().unwrap_or_default();
            assert!(!d.is_empty() && d.chars().count() <= 150, "{name}");
        }
        more(spec);
    }
}

/// A writer into a shared buffer, for a subscriber's formatted lines.
#[derive(Clone, Default)]
struct TraceLines(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for TraceLines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every span and event at `trace`, formatted, on this thread while it lives ([`capture_with`]
/// says why a thread's default and not `with_default`).
pub struct TraceCapture {
    lines: TraceLines,
    guard: tracing::subscriber::DefaultGuard,
}

/// Starts a [`TraceCapture`] on this thread.
pub fn capture_trace() -> TraceCapture {
    let lines = TraceLines::default();
    let writer = lines.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    TraceCapture {
        guard: capture_with(subscriber),
        lines,
    }
}

impl TraceCapture {
    /// Ends the capture: the text of what it took.
    pub fn finish(self) -> String {
        drop(self.guard);
        String::from_utf8(self.lines.0.lock().unwrap().clone()).unwrap()
    }
}

/// The browser consumers' folder (`toolsmith-core/tests/consumers`: playwright-core and the
/// page scripts).
pub fn consumers_dir() -> PathBuf {
    crate::workspace().join("toolsmith-core/tests/consumers")
}

/// Debian's Chromium (or `TOOLSMITH_CHROMIUM`), with playwright-core and node to drive it: its
/// path, or `None` with a SKIP (a panic under `TOOLSMITH_REQUIRE_CONSUMERS=1`) when one of them
/// is missing.
pub fn chromium() -> Option<String> {
    let chromium =
        std::env::var("TOOLSMITH_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !std::path::Path::new(&chromium).exists() {
        return crate::require::missing("chromium", &format!("{chromium} does not exist"));
    }
    if !consumers_dir()
        .join("node_modules/playwright-core")
        .exists()
    {
        return crate::require::missing(
            "playwright-core",
            "toolsmith-core/tests/consumers/node_modules/playwright-core is not installed",
        );
    }
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        return crate::require::missing("node", "`node` is not on PATH");
    }
    Some(chromium)
}
