//! `mcp_server`: the workspace tools (read, search and write text files inside one root) served
//! over MCP with rmcp, on stdio or streamable HTTP.
//!
//! ```sh
//! cargo run --example mcp_server -- ./some/dir                       # stdio
//! cargo run --example mcp_server -- ./some/dir --http 127.0.0.1:8080 # http://127.0.0.1:8080/mcp
//! ```
//!
//! Options: `--allow-writes` lets `write_file` run (starting the server with it is the standing
//! approval of every write; without it the policy is read-only and writes are `denied`);
//! `--demo` adds two tools for trying the protocol: `wait_ms` (a slow tool that reports
//! progress, to cancel) and `enable_count_words` (registers `count_words` while serving, so
//! clients receive `notifications/tools/list_changed`). Every call is anonymous.
//!
//! A missing or unreadable root, or a bad option, is one line on stderr and exit code 2.

#[allow(dead_code)]
#[path = "workspace/tools.rs"]
mod tools;

use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;
use toolsmith::mcp::McpServer;
use toolsmith::{sync_approver, Approval};
use toolsmith::{tool, Policy, Progress, ToolError, Toolbox};

const USAGE: &str = "usage: mcp_server ROOT [--http 127.0.0.1:PORT] [--allow-writes] [--demo]";

/// The command line.
struct Options {
    root: String,
    http: Option<String>,
    allow_writes: bool,
    demo: bool,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut root = None;
    let mut http = None;
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
    Ok(Options {
        root,
        http,
        allow_writes,
        demo,
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

fn toolbox(options: &Options) -> Result<Arc<Toolbox>, String> {
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
        .policy(if allow_writes {
            Policy::allow_all()
        } else {
            Policy::read_only()
        });
    let served = Arc::new(Served::default());
    if options.demo {
        builder = builder
            .tool(wait_ms::tool())
            .tool(enable_count_words::tool())
            .shared_context(Arc::clone(&served))
            // The demo tools change only this server's tool list.
            .policy(if allow_writes {
                Policy::allow_all()
            } else {
                Policy::read_only().allow_tool("enable_count_words")
            });
    }
    let toolbox = Arc::new(builder.build().map_err(|e| e.to_string())?);
    let _ = served.0.set(Arc::downgrade(&toolbox));
    Ok(toolbox)
}

async fn run(options: Options) -> Result<(), String> {
    let toolbox = toolbox(&options)?;
    let server =
        McpServer::new(toolbox).server_info("toolsmith-workspace", env!("CARGO_PKG_VERSION"));
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
