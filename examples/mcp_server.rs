//! `mcp_server`: the workspace tools (read, search and write text files inside one root) served
//! over MCP with rmcp, on stdio or streamable HTTP.
//!
//! ```sh
//! cargo run -p toolsmith-tests --example mcp_server -- ./some/dir                       # stdio
//! cargo run -p toolsmith-tests --example mcp_server -- ./some/dir --http 127.0.0.1:8080 # http://127.0.0.1:8080/mcp
//! ```
//!
//! Several replicas behind one HTTP load balancer share their state (`toolsmith::mcp` docs, "Run several
//! replicas"):
//!
//! ```sh
//! export TOOLSMITH_CURSOR_KEY=$(openssl rand -hex 32)   # the same key for every replica
//! cargo run -p toolsmith-tests --example mcp_server -- ./dir --store redis://127.0.0.1:6379 --http 127.0.0.1:8081
//! cargo run -p toolsmith-tests --example mcp_server -- ./dir --store redis://127.0.0.1:6379 --http 127.0.0.1:8082
//! ```
//!
//! Options:
//!
//! - `--allow-writes` lets the writes run (`write_file`, and `append_note` with `--demo`):
//!   starting the server with it is the standing approval of every write; without it the policy
//!   is read-only and writes are `denied`.
//! - `--store URL`: where idempotency claims, their outcomes and kept results (later pages, the
//!   originals duplicates show) live: `memory` (the default: this process only),
//!   `redis://HOST:PORT` (Redis or Valkey) or `postgres://...` / `postgresql://...`. Replicas
//!   given the same store answer a repeated keyed write the same (`DUPLICATE`, `IN_PROGRESS`,
//!   `OUTCOME_UNKNOWN`) whichever of them receives it.
//! - `--claim-lease-ms N`: how long a claim in the store lives unless renewed (default 10000;
//!   30 to 3600000). A replica that dies mid-write leaves the write's outcome unknown once its
//!   lease lapses.
//! - `--demo` adds tools for trying the protocol and the replicas: `wait_ms` (a slow tool that
//!   reports progress, to cancel), `enable_count_words` (registers `count_words` while serving,
//!   so clients receive `notifications/tools/list_changed`), `append_note` (a keyed write that
//!   is not safe to repeat: appends one line to `notes.log` in the root, keyed by its
//!   `request_id`, optionally after `delay_ms`, reporting progress when it starts; a task for
//!   a client that polls tasks), `clear_notes` (empties `notes.log` once the user confirms; a
//!   task whose question any replica's `tasks/update` answers) and `list_entries` (a long read
//!   answered a page at a time, with a cursor).
//!
//! - `--auth ISSUER_URL --resource URL` (with `--http`): every request needs an OAuth access
//!   token (a JWT) that the authorization server `ISSUER_URL` issued for the resource `URL`
//!   (this server's endpoint as clients name it, e.g. `https://tools.example.com/mcp`); the
//!   token's subject is the caller and its scopes the caller's scopes. The reads (`read_file`,
//!   `search_text`, and with `--demo` `list_entries`) then need the scope `workspace:read`,
//!   which the server's `401` asks for, and the writes (`write_file`, and with `--demo`
//!   `append_note` and `clear_notes`) `workspace:write`; a token without it gets
//!   `403 insufficient_scope` naming it, and a client that can obtains a token with it and
//!   calls again. The server's metadata is at `/.well-known/oauth-protected-resource/mcp`.
//!
//! The environment variable `TOOLSMITH_CURSOR_KEY`, when set, is the key that binds cursors
//! (64 hexadecimal digits, or any text of at least 32 bytes) and seals the state of the
//! `input_required` results 2026-07-28 clients get; replicas given the same key serve each
//! other's cursors and retries. Without it every process has a random key of its own. Without
//! `--auth` every call is anonymous.
//!
//! A missing or unreadable root, a bad option, a store that cannot be reached or a key that is
//! too short is one line on stderr and exit code 2.

#[allow(dead_code)]
#[path = "workspace/tools.rs"]
mod tools;

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;
use toolsmith::approval::sync_approver;
use toolsmith::mcp::oauth::OAuth;
use toolsmith::mcp::McpServer;
use toolsmith::state::task::Tasks;
use toolsmith::state::StateStore;
use toolsmith::Approval;
use toolsmith::{model, tool, Client, Policy, Progress, Question, SecretKey, ToolError, Toolbox};

const USAGE: &str = "usage: mcp_server ROOT [--http 127.0.0.1:PORT] [--allow-writes] [--demo] \
                     [--store memory|redis://...|postgres://...] [--claim-lease-ms N] \
                     [--auth ISSUER_URL --resource URL]";

/// The scopes the reads and the writes need when the server checks tokens (`--auth`).
const READ_SCOPE: &str = "workspace:read";
const WRITE_SCOPE: &str = "workspace:write";

/// The environment variable holding the cursor key shared by replicas.
const CURSOR_KEY_VAR: &str = "TOOLSMITH_CURSOR_KEY";

/// The file `append_note` appends to, in the workspace root.
const NOTES_FILE: &str = "notes.log";

/// The command line.
struct Options {
    root: String,
    http: Option<String>,
    allow_writes: bool,
    demo: bool,
    store: Store,
    claim_lease: Option<Duration>,
    /// `--auth ISSUER_URL --resource URL`.
    auth: Option<(String, String)>,
}

/// Where the shared state lives (`--store`).
enum Store {
    Memory,
    Redis(String),
    Postgres(String),
}

fn parse_store(url: &str) -> Result<Store, String> {
    if url == "memory" {
        Ok(Store::Memory)
    } else if url.starts_with("redis://") || url.starts_with("rediss://") {
        Ok(Store::Redis(url.to_string()))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Store::Postgres(url.to_string()))
    } else {
        Err(format!(
            "--store takes memory, redis://HOST:PORT or postgres://USER@HOST:PORT/DB, not {:?}; {USAGE}",
            url.split_once("://").map_or(url, |(scheme, _)| scheme)
        ))
    }
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut root = None;
    let mut http = None;
    let mut store = Store::Memory;
    let mut claim_lease = None;
    let (mut issuer, mut resource) = (None, None);
    let (mut allow_writes, mut demo) = (false, false);
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => match args.next() {
                Some(addr) if !addr.starts_with("--") => http = Some(addr),
                _ => {
                    return Err(format!(
                        "--http needs an address such as 127.0.0.1:8080; {USAGE}"
                    ))
                }
            },
            "--store" => match args.next() {
                Some(url) if !url.starts_with("--") => store = parse_store(&url)?,
                _ => return Err(format!("--store needs memory or a URL; {USAGE}")),
            },
            "--claim-lease-ms" => match args.next().map(|n| n.parse::<u64>()) {
                Some(Ok(ms)) if (30..=3_600_000).contains(&ms) => {
                    claim_lease = Some(Duration::from_millis(ms));
                }
                _ => {
                    return Err(format!(
                        "--claim-lease-ms needs milliseconds from 30 to 3600000; {USAGE}"
                    ))
                }
            },
            "--auth" => match args.next() {
                Some(url) if !url.starts_with("--") => issuer = Some(url),
                _ => return Err(format!("--auth needs the issuer's URL; {USAGE}")),
            },
            "--resource" => match args.next() {
                Some(url) if !url.starts_with("--") => resource = Some(url),
                _ => return Err(format!("--resource needs this server's URL; {USAGE}")),
            },
            "--allow-writes" => allow_writes = true,
            "--demo" => demo = true,
            "-h" | "--help" => return Err(USAGE.to_string()),
            other if other.starts_with("--") => {
                return Err(format!("unknown option {other:?}; {USAGE}"))
            }
            other if root.is_none() => root = Some(other.to_string()),
            other => return Err(format!("unexpected argument {other:?}; {USAGE}")),
        }
    }
    let root = root.ok_or_else(|| format!("the workspace root is missing; {USAGE}"))?;
    let auth = match (issuer, resource) {
        (Some(issuer), Some(resource)) if http.is_some() => Some((issuer, resource)),
        (None, None) => None,
        (Some(_), Some(_)) => return Err(format!("--auth works with --http only; {USAGE}")),
        _ => return Err(format!("--auth and --resource go together; {USAGE}")),
    };
    Ok(Options {
        auth,
        root,
        http,
        allow_writes,
        demo,
        store,
        claim_lease,
    })
}

/// The toolbox being served, for the demo tool that registers another tool.
#[derive(Default)]
struct Served(OnceLock<Weak<Toolbox>>);

/// Waits the given number of milliseconds, reporting progress every 100 ms. Returns the
/// milliseconds waited. A tool for trying cancellation and progress.
#[tool(read_only, title = "Wait")]
async fn wait_ms(
    /// How long to wait in milliseconds, 1 to 60000, e.g. 500.
    #[arg(minimum = 1, maximum = 60000)]
    ms: u32,
    #[context] progress: &Progress,
) -> u32 {
    let mut waited = 0;
    while waited < ms {
        let step = (ms - waited).min(100);
        tokio::time::sleep(Duration::from_millis(u64::from(step))).await;
        waited += step;
        progress.report(f64::from(waited), Some(f64::from(ms)), Some("waiting"));
    }
    waited
}

/// Counts the words of one UTF-8 text file inside the workspace. Returns the word count.
#[tool(read_only, title = "Count words")]
fn count_words(
    /// Path relative to the workspace root, e.g. "notes/todo.md".
    #[arg(min_length = 1, max_length = 4096)]
    path: String,
    #[context] ws: &tools::Workspace,
) -> Result<usize, ToolError> {
    let text = tools::read_file(path, None, ws)?;
    Ok(text.content.split_whitespace().count())
}

/// Adds the count_words tool to this server while it runs (clients are told the tool list
/// changed). Returns the tool names now served.
#[tool(writes, idempotent, title = "Enable count words")]
fn enable_count_words(#[context] served: &Served) -> Result<Vec<String>, ToolError> {
    let toolbox = served.0.get().and_then(Weak::upgrade).ok_or_else(|| {
        ToolError::failed(
            "NOT_SERVING",
            "The server is shutting down; try again later.",
        )
    })?;
    if toolbox.spec("count_words").is_none() {
        toolbox.register(count_words::tool()).map_err(|e| {
            ToolError::failed(
                "REGISTER_FAILED",
                format!("count_words could not be added: {e}"),
            )
        })?;
    }
    Ok(toolbox.names())
}

/// Where `append_note` writes: `notes.log` in the workspace root.
struct Notes(PathBuf);

/// What `append_note` did.
#[model]
struct Appended {
    /// The request the line was written for.
    request_id: String,
    /// The file the line was appended to, relative to the workspace root.
    path: String,
}

/// Appends one line of text to notes.log in the workspace root, once per request_id: a repeat
/// with the same request_id is answered as a duplicate and writes nothing. Returns the request
/// and the file written.
#[tool(
    writes,
    idempotency_key(request_id),
    task = "optional",
    title = "Append note"
)]
async fn append_note(
    /// The caller's identifier of this request, e.g. "req-42"; repeats use the same one.
    #[arg(min_length = 1, max_length = 200)]
    request_id: String,
    /// The line to append, without line breaks, e.g. "call the plumber".
    #[arg(min_length = 1, max_length = 1000, pattern = "^[^\\r\\n]*$")]
    text: String,
    /// Milliseconds to wait before writing, 0 to 60000 (default 0): for trying a write that a
    /// dying server leaves unfinished.
    #[arg(minimum = 0, maximum = 60000)]
    delay_ms: Option<u32>,
    #[context] notes: &Notes,
    #[context] progress: &Progress,
) -> Result<Appended, ToolError> {
    progress.report(0.0, Some(1.0), Some("started"));
    if let Some(ms) = delay_ms.filter(|ms| *ms > 0) {
        tokio::time::sleep(Duration::from_millis(u64::from(ms))).await;
    }
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&notes.0)
        .and_then(|mut f| f.write_all(format!("{request_id}\t{text}\n").as_bytes()));
    written.map_err(|e| {
        ToolError::failed(
            "WRITE_FAILED",
            format!("{NOTES_FILE} could not be written: {e}"),
        )
    })?;
    progress.report(1.0, Some(1.0), Some("written"));
    Ok(Appended {
        request_id,
        path: NOTES_FILE.to_string(),
    })
}

/// Empties notes.log in the workspace root once the user confirms; the question says how many
/// lines it holds. Returns the number of lines removed.
#[tool(
    writes,
    destructive,
    requires_approval,
    task = "optional",
    title = "Clear notes"
)]
async fn clear_notes(
    #[context] notes: &Notes,
    #[context] client: &Client,
) -> Result<usize, ToolError> {
    // Counted off the runtime's threads; a client that polls tasks has the call as a task by
    // the time it asks.
    let path = notes.0.clone();
    let text = tokio::task::spawn_blocking(move || std::fs::read_to_string(path))
        .await
        .map_err(|e| ToolError::failed("READ_FAILED", e.to_string()))?
        .unwrap_or_default();
    let lines = text.lines().count();
    let form = toolsmith::serde_json::json!({"type": "object", "properties": {
        "confirm": {"type": "boolean", "description": "Delete them?"}}, "required": ["confirm"]});
    let question = Question::new(format!("Delete the {lines} notes of {NOTES_FILE}?"), &form)?
        .with_key("confirm");
    let answer = client.question(&question).await?;
    if answer.get("confirm") != Some(&toolsmith::serde_json::Value::Bool(true)) {
        return Err(ToolError::cancelled_by_user("The user kept the notes."));
    }
    std::fs::write(&notes.0, "").map_err(|e| {
        ToolError::failed(
            "WRITE_FAILED",
            format!("{NOTES_FILE} could not be emptied: {e}"),
        )
    })?;
    Ok(lines)
}

/// One entry of `list_entries`.
#[model]
struct Entry {
    /// The entry's number, from 1.
    n: u32,
    /// Its text.
    text: String,
}

/// Lists count numbered entries, a page at a time (pass the cursor of a result for its next
/// page). Returns the entries in order.
#[tool(read_only, title = "Long list")]
fn list_entries(
    /// How many entries, 1 to 10000, e.g. 500.
    #[arg(minimum = 1, maximum = 10000)]
    count: u32,
    /// The cursor from a previous result of the same list, to get its next page.
    cursor: Option<String>,
) -> Vec<Entry> {
    // The toolbox serves later pages; the tool always computes the whole result.
    let _ = cursor;
    (1..=count)
        .map(|n| Entry {
            n,
            text: format!("entry number {n} of {count}"),
        })
        .collect()
}

fn toolbox(options: &Options, state: Option<Arc<dyn StateStore>>) -> Result<Arc<Toolbox>, String> {
    let workspace = tools::Workspace::open(&options.root).map_err(|e| {
        format!(
            "the workspace root {:?} cannot be opened: {e}",
            options.root
        )
    })?;
    std::fs::read_dir(&options.root)
        .map_err(|e| format!("the workspace root {:?} cannot be read: {e}", options.root))?;
    let ws = Arc::new(workspace);
    let allow_writes = options.allow_writes;
    let mut builder = Toolbox::builder()
        .tool(tools::read_file::tool())
        .tool(tools::search_text::tool())
        .tool(tools::write_file::tool())
        .shared_context(Arc::clone(&ws))
        .hooks(tools::boundary_hooks(ws))
        .shared_approver(sync_approver(move |_| {
            if allow_writes {
                Approval::Approved
            } else {
                Approval::rejected("writes are not enabled on this server")
            }
        }))
        .policy(writes_policy(options, Policy::read_only()));
    if std::env::var_os(CURSOR_KEY_VAR).is_some() {
        let key =
            SecretKey::from_env(CURSOR_KEY_VAR).map_err(|e| format!("{CURSOR_KEY_VAR}: {e}"))?;
        builder = builder.cursor_key(key);
    }
    if let Some(state) = state {
        builder = builder.state_store(state);
    }
    if let Some(lease) = options.claim_lease {
        builder = builder.claim_lease(lease);
    }
    let served = Arc::new(Served::default());
    if options.demo {
        let notes = Notes(std::path::Path::new(&options.root).join(NOTES_FILE));
        builder = builder
            .tool(wait_ms::tool())
            .tool(enable_count_words::tool())
            .tool(append_note::tool())
            .tool(clear_notes::tool())
            .tool(list_entries::tool())
            .shared_context(Arc::clone(&served))
            .shared_context(Arc::new(notes))
            // The demo tools change only this server's tool list.
            .policy(writes_policy(
                options,
                Policy::read_only().allow_tool("enable_count_words"),
            ));
    }
    let toolbox = Arc::new(builder.build().map_err(|e| e.to_string())?);
    let _ = served.0.set(Arc::downgrade(&toolbox));
    Ok(toolbox)
}

/// The policy: every tool with `--allow-writes`, else `read_only`; with `--auth` the reads
/// need `workspace:read` and the writes `workspace:write`.
fn writes_policy(options: &Options, read_only: Policy) -> Policy {
    let policy = if options.allow_writes {
        Policy::allow_all()
    } else {
        read_only
    };
    if options.auth.is_none() {
        return policy;
    }
    let reads = ["read_file", "search_text", "list_entries"].map(|t| (t, READ_SCOPE));
    let writes = ["write_file", "append_note", "clear_notes"].map(|t| (t, WRITE_SCOPE));
    reads
        .into_iter()
        .chain(writes)
        .fold(policy, |p, (tool, scope)| p.require_scope(tool, scope))
}

/// Connects to the store of `--store` (none for `memory`: the in-process default).
async fn connect(store: &Store) -> Result<Option<Arc<dyn StateStore>>, String> {
    Ok(match store {
        Store::Memory => None,
        Store::Redis(url) => Some(Arc::new(
            toolsmith::redis::RedisStateStore::connect(url)
                .await
                .map_err(|e| format!("the Redis store cannot be used: {e}"))?,
        )),
        Store::Postgres(url) => Some(Arc::new(
            toolsmith::postgres::PostgresStateStore::connect(url)
                .await
                .map_err(|e| format!("the PostgreSQL store cannot be used: {e}"))?,
        )),
    })
}

async fn run(options: Options) -> Result<(), String> {
    let state = connect(&options.store).await?;
    // Calls that outlive their request (a client that declares the 2026-07-28 tasks
    // extension gets `append_note` as a task) live in the same store, so any replica answers
    // for them; the runner's lease is the claims' (a dead replica's task fails once it lapses).
    let tasks = match &state {
        Some(state) => Tasks::new(Arc::clone(state)),
        None => Tasks::in_memory(),
    };
    let tasks = match options.claim_lease {
        Some(lease) => tasks.lease(lease).poll_interval(lease / 4),
        None => tasks,
    };
    let toolbox = toolbox(&options, state)?;
    let mut server = McpServer::new(toolbox)
        .server_info("toolsmith-workspace", env!("CARGO_PKG_VERSION"))
        .tasks(tasks);
    if let Some((issuer, resource)) = &options.auth {
        // A client asks for the read scope first (the `401` names it), and for the write scope
        // when a write tells it to (`403 insufficient_scope`).
        server = server.oauth(OAuth::new(issuer, resource).scopes([READ_SCOPE]));
    }
    if std::env::var_os(CURSOR_KEY_VAR).is_some() {
        // The same key seals the state of 2026-07-28 `input_required` results, so a retry is
        // served by whichever replica it reaches (the variable was checked in `toolbox`).
        let key =
            SecretKey::from_env(CURSOR_KEY_VAR).map_err(|e| format!("{CURSOR_KEY_VAR}: {e}"))?;
        server = server.request_state_key(key);
    }
    match &options.http {
        None => server.serve_stdio().await.map_err(|e| e.to_string()),
        Some(addr) => {
            let http = server
                .bind_http(addr.as_str())
                .await
                .map_err(|e| format!("cannot serve on {addr}: {e}"))?;
            eprintln!("serving MCP on {}", http.url());
            http.wait().await.map_err(|e| e.to_string())
        }
    }
}

fn main() {
    let result = parse(std::env::args().skip(1)).and_then(|options| {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the runtime: {e}"))?;
        rt.block_on(run(options))
    });
    if let Err(message) = result {
        eprintln!("mcp_server: {message}");
        std::process::exit(2);
    }
}
