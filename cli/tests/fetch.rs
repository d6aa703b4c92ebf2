//! `toolsmith fetch` against real stdio MCP servers built here with rmcp: this test binary is
//! also the server. Run with `TOOLSMITH_TEST_SERVER` set, it serves instead of testing:
//! `catalog` serves the filesystem catalog's tools, `exit` exits at once, `silent` reads its
//! input and never answers (for at most 60 seconds).

use std::path::Path;
use std::process::{Command, Output};

use rmcp::model::{ErrorData, ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

const MODE: &str = "TOOLSMITH_TEST_SERVER";

fn catalog_text() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/catalogs/filesystem.json"),
    )
    .expect("the catalog fixture")
}

struct Catalog(Vec<Tool>);

impl ServerHandler for Catalog {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.0.clone()))
    }
}

fn serve(mode: &str) {
    match mode {
        "exit" => {
            eprintln!("starting up");
            eprintln!("test server: cannot open the database");
            std::process::exit(3)
        }
        "silent" => {
            // Swallow the handshake and stay quiet; bounded so no process outlives the test.
            std::thread::spawn(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink()));
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
        _ => {
            let doc: Value = serde_json::from_str(&catalog_text()).unwrap();
            let tools: Vec<Tool> = serde_json::from_value(doc["tools"].clone()).unwrap();
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let server = Catalog(tools)
                    .serve(rmcp::transport::stdio())
                    .await
                    .expect("serve");
                let _ = server.waiting().await;
            });
        }
    }
}

fn fetch(mode: &str, extra: &[&str]) -> Output {
    let me = std::env::current_exe().unwrap();
    let mut args = vec!["fetch"];
    args.extend_from_slice(extra);
    args.push("--");
    args.push(me.to_str().unwrap());
    Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(&args)
        .env(MODE, mode)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn prints_the_servers_tools_list() {
    let o = fetch("catalog", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let tools = doc["tools"].as_array().unwrap();
    let expected: Value = serde_json::from_str(&catalog_text()).unwrap();
    let names = |v: &[Value]| {
        v.iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(tools), names(expected["tools"].as_array().unwrap()));
    assert_eq!(tools[0]["inputSchema"], expected["tools"][0]["inputSchema"]);

    // The output is a tool list `lint -` reads.
    let mut lint = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["lint", "--format", "json", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    lint.stdin.take().unwrap().write_all(&o.stdout).unwrap();
    let out = lint.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["summary"]["tools"], 14);
}

fn a_server_that_exits_at_once_is_exit_code_two() {
    let o = fetch("exit", &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.starts_with("toolsmith: error: the server `"), "{err}");
    assert!(
        err.ends_with("` exited (exit status: 3) before answering `initialize`; its last line on standard error: test server: cannot open the database\n"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(o.stdout.is_empty());
}

fn a_server_that_never_answers_times_out() {
    let o = fetch("silent", &["--timeout", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("did not answer the MCP handshake within 1 s"),
        "{err}"
    );
}

fn a_command_that_does_not_exist_is_exit_code_two() {
    let o = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["fetch", "--", "/nonexistent/toolsmith-test-server"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(
            "toolsmith: error: cannot start the server `/nonexistent/toolsmith-test-server`"
        ),
        "{}",
        stderr(&o)
    );
}

fn an_http_address_without_a_server_is_exit_code_two() {
    // A port that was just free on 127.0.0.1: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args([
            "fetch",
            "--timeout",
            "5",
            "--url",
            &format!("http://127.0.0.1:{port}/mcp"),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("toolsmith: error:"),
        "{}",
        stderr(&o)
    );
    let o = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["fetch", "--url", "ftp://x"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["fetch"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

fn main() {
    if let Ok(mode) = std::env::var(MODE) {
        serve(&mode);
        return;
    }
    let tests: [(&str, fn()); 5] = [
        (
            "prints_the_servers_tools_list",
            prints_the_servers_tools_list,
        ),
        (
            "a_server_that_exits_at_once_is_exit_code_two",
            a_server_that_exits_at_once_is_exit_code_two,
        ),
        (
            "a_server_that_never_answers_times_out",
            a_server_that_never_answers_times_out,
        ),
        (
            "a_command_that_does_not_exist_is_exit_code_two",
            a_command_that_does_not_exist_is_exit_code_two,
        ),
        (
            "an_http_address_without_a_server_is_exit_code_two",
            an_http_address_without_a_server_is_exit_code_two,
        ),
    ];
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut failed = 0;
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        match std::panic::catch_unwind(test) {
            Ok(()) => println!("test {name} ... ok"),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        println!("{failed} fetch test(s) failed");
        std::process::exit(1);
    }
}
