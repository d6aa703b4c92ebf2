//! `toolsmith fetch` against real stdio MCP servers built here: this test binary is also the
//! server. Run with `TOOLSMITH_TEST_SERVER` set, it serves instead of testing: `catalog` serves
//! the filesystem catalog's tools with rmcp, `raw` writes its JSON-RPC by hand to list tools with
//! fields rmcp's `Tool` lacks (over two pages), `exit` writes a line to standard error and exits
//! with status 3, `silent` reads its input and never answers (for at most 60 seconds), `banner`
//! writes a line that is not JSON-RPC to standard output, then stays silent like `silent`. HTTP
//! servers are small `std::net` servers on 127.0.0.1 in the tests themselves.

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

/// The tools of the `raw` server, two pages, the first with the fields rmcp's `Tool` lacks;
/// `TOOLSMITH_TEST_CHANGE` (`execution`, `icons` or `x-vendor`) changes that field.
fn raw_pages() -> [Value; 2] {
    let change = std::env::var("TOOLSMITH_TEST_CHANGE").unwrap_or_default();
    let pick = |field: &str, before: &str, after: &'static str| {
        if change == field {
            after.to_string()
        } else {
            before.to_string()
        }
    };
    let first = serde_json::json!({
        "tools": [{
            "name": "get_weather",
            "description": "Returns the weather for a city.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description": "The city."}}, "required": ["city"]},
            "execution": {"taskSupport": pick("execution", "optional", "required")},
            "icons": [{"src": pick("icons", "https://example.invalid/sun.png", "https://example.invalid/moon.png"), "mimeType": "image/png", "sizes": ["48x48"]}],
            "x-vendor": {"tier": pick("x-vendor", "gold", "silver"), "audit": true},
        }],
        "nextCursor": "page-2",
    });
    let second = serde_json::json!({
        "tools": [{
            "name": "get_time",
            "description": "Returns the time.",
            "inputSchema": {"type": "object"},
        }],
    });
    [first, second]
}

/// A stdio MCP server written by hand: answers `initialize` and `tools/list` (two pages) with
/// the JSON it chooses, until its input ends. Writes its process id to `TOOLSMITH_TEST_PIDFILE`.
fn serve_raw() {
    use std::io::{BufRead, Write};
    if let Ok(file) = std::env::var("TOOLSMITH_TEST_PIDFILE") {
        std::fs::write(file, std::process::id().to_string()).unwrap();
    }
    let pages = raw_pages();
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (msg.get("id"), msg["method"].as_str()) else {
            continue;
        };
        let result = match method {
            "initialize" => serde_json::json!({
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw-test-server", "version": "1.0.0"},
            }),
            "tools/list" => match msg["params"]["cursor"].as_str() {
                Some("page-2") => pages[1].clone(),
                _ => pages[0].clone(),
            },
            _ => serde_json::json!({}),
        };
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
        writeln!(out, "{reply}").unwrap();
        out.flush().unwrap();
    }
}

fn serve(mode: &str) {
    match mode {
        "raw" => serve_raw(),
        "exit" => {
            eprintln!("starting up");
            eprintln!("test server: cannot open the database");
            std::process::exit(3)
        }
        "banner" | "silent" => {
            if mode == "banner" {
                use std::io::Write;
                // A terminal escape, a bidi override and a long line: quoted on one line, clipped.
                let banner = format!("\x1b[1mlistening\u{202e} on stdio {}", "y".repeat(300));
                let mut out = std::io::stdout().lock();
                writeln!(out, "{banner}").unwrap();
                out.flush().unwrap();
            }
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
    fetch_with(mode, extra, &[])
}

/// `toolsmith fetch EXTRA -- <this binary>` serving `mode`, with more environment variables.
fn fetch_with(mode: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let me = std::env::current_exe().unwrap();
    let mut args = vec!["fetch"];
    args.extend_from_slice(extra);
    args.push("--");
    args.push(me.to_str().unwrap());
    Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(&args)
        .env(MODE, mode)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// `toolsmith ARGS`.
fn toolsmith(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(args)
        .output()
        .unwrap()
}

/// An empty directory of the test's own under the target directory.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fetch-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A process id written to `file` by a server (waits up to 10 s for the file).
fn pid_in(file: &Path) -> u32 {
    for _ in 0..200 {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("no process id in {}", file.display());
}

/// Asserts that process `pid` is gone within 10 s: no /proc entry, or a zombie whose parent is
/// not this test (init or a subreaper reaps it; nothing of it runs).
fn assert_gone(pid: u32) {
    let ours = std::process::id();
    let mut state = String::new();
    for _ in 0..200 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return;
        };
        // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
        let after = &stat[stat.rfind(')').map_or(0, |i| i + 2)..];
        let mut fields = after.split_whitespace();
        let (st, ppid) = (fields.next().unwrap_or(""), fields.next().unwrap_or(""));
        if st == "Z" && ppid != ours.to_string() {
            return;
        }
        state = stat;
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("process {pid} is still alive: {state}");
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

fn fields_rmcp_lacks_are_fetched_pinned_and_verified() {
    let dir = scratch("raw");
    let pidfile = dir.join("server.pid");
    let pidfile = pidfile.to_str().unwrap();
    let o = fetch_with("raw", &[], &[("TOOLSMITH_TEST_PIDFILE", pidfile)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Every field of every tool, both pages, exactly as sent.
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let [first, second] = raw_pages();
    assert_eq!(
        doc["tools"],
        serde_json::json!([first["tools"][0], second["tools"][0]])
    );
    assert_eq!(doc["tools"][0]["execution"]["taskSupport"], "optional");
    assert_eq!(doc["tools"][0]["x-vendor"]["tier"], "gold");
    assert_eq!(doc["tools"][0]["icons"][0]["sizes"][0], "48x48");
    // The server is ended on success too.
    assert_gone(pid_in(Path::new(pidfile)));

    let list = dir.join("list.json");
    std::fs::write(&list, &o.stdout).unwrap();
    let o = toolsmith(&["pin", list.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lock: Value = serde_json::from_slice(&o.stdout).unwrap();
    for field in ["execution", "icons", "x-vendor"] {
        assert!(
            lock["tools"][0]["fields"][field].is_string(),
            "{field}: {lock}"
        );
    }
    let lock_path = dir.join("tools.lock");
    std::fs::write(&lock_path, &o.stdout).unwrap();
    let verify = |file: &Path| {
        toolsmith(&[
            "verify",
            "--lock",
            lock_path.to_str().unwrap(),
            file.to_str().unwrap(),
        ])
    };
    assert_eq!(verify(&list).status.code(), Some(0));
    for field in ["execution", "icons", "x-vendor"] {
        let o = fetch_with("raw", &[], &[("TOOLSMITH_TEST_CHANGE", field)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let changed = dir.join(format!("changed-{field}.json"));
        std::fs::write(&changed, &o.stdout).unwrap();
        let o = verify(&changed);
        assert_eq!(o.status.code(), Some(1), "{field}");
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(
            out.lines().next(),
            Some(format!("changed: `get_weather`: {field} differs from the lock").as_str()),
            "{out}"
        );
    }
}

fn a_timed_out_fetch_leaves_no_process() {
    let dir = scratch("sleep");
    let (pid, bg) = (dir.join("pid"), dir.join("bg"));
    // The server's process replaced by `sleep`.
    let script = format!("echo $$ > '{}'; exec sleep 30", pid.display());
    let started = std::time::Instant::now();
    let o = toolsmith(&["fetch", "--timeout", "1", "--", "sh", "-c", &script]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "toolsmith: error: the server `sh -c ".to_string()
            + &script
            + "` did not answer the MCP handshake within 1 s\n"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(25));
    assert_gone(pid_in(&pid));
    // A server that started a process of its own: the whole group is ended.
    let _ = std::fs::remove_file(&pid);
    let script = format!(
        "sleep 30 & echo $! > '{}'; echo $$ > '{}'; wait",
        bg.display(),
        pid.display()
    );
    let o = toolsmith(&["fetch", "--timeout", "1", "--", "sh", "-c", &script]);
    assert_eq!(o.status.code(), Some(2));
    assert_gone(pid_in(&pid));
    assert_gone(pid_in(&bg));
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

/// `toolsmith fetch -- ARGS` (with a timeout of 2 s).
fn fetch_command(args: &[&str]) -> Output {
    let mut all = vec!["fetch", "--timeout", "2", "--"];
    all.extend_from_slice(args);
    toolsmith(&all)
}

fn a_command_that_is_no_mcp_server_says_what_it_wrote() {
    // It exits at once, having written a line that is not JSON-RPC.
    let o = fetch_command(&["echo", "hello"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "toolsmith: error: the server `echo hello` exited (exit status: 0) before answering `initialize`; it wrote `hello` to standard output, which is not a JSON-RPC message (is it an MCP server?); it wrote nothing to standard error\n"
    );
    assert!(o.stdout.is_empty());

    // A command that writes nothing at all: as before.
    let o = fetch_command(&["true"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "toolsmith: error: the server `true` exited (exit status: 0) before answering `initialize`; it wrote nothing to standard error\n"
    );

    // Still running after its banner: the timeout says what it wrote, on one line, clipped
    // to 80 characters, its control and invisible characters shown as code points.
    let o = fetch("banner", &["--timeout", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let quoted = format!("<U+001B>[1mlistening<U+202E> on stdio {}…", "y".repeat(56));
    assert!(
        err.ends_with(&format!(
            "` did not answer the MCP handshake within 1 s; it wrote `{quoted}` to standard output, which is not a JSON-RPC message (is it an MCP server?)\n"
        )),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains(['\x1b', '\u{202e}']), "{err}");
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
    assert_eq!(
        stderr(&o),
        format!("toolsmith: error: nothing listens at http://127.0.0.1:{port}/mcp (connection refused or unreachable)\n")
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

/// Serves HTTP/1.1 on 127.0.0.1 for 20 seconds at most: each request (its head and body) is
/// answered with `answer`'s bytes and the connection closed. Returns the port.
fn http_server(answer: fn(&str, &[u8]) -> Vec<u8>) -> u16 {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::time::{Duration, Instant};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            let stream = match listener.accept() {
                Ok((stream, _)) => stream,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                Err(_) => return,
            };
            std::thread::spawn(move || {
                let _ = stream.set_nonblocking(false);
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let mut reader = BufReader::new(&stream);
                let mut head = String::new();
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || head.len() > 65_536 {
                        return;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    if line == "\r\n" {
                        break;
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; length.min(1 << 20)];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let _ = (&stream).write_all(&answer(&head, &body));
            });
        }
    });
    port
}

fn an_http_address_that_is_no_mcp_endpoint_says_its_status() {
    let port = http_server(|_, _| {
        b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found".to_vec()
    });
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = toolsmith(&["fetch", "--timeout", "5", "--url", &url]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("toolsmith: error: {url} answered HTTP 404 Not Found; it is not an MCP endpoint (check the path, e.g. /mcp)\n")
    );
    assert!(o.stdout.is_empty());
}

/// A streamable-HTTP MCP server written by hand: JSON answers, `tools/list` as an event stream
/// (a notification first), the tools of the `raw` stdio server.
fn mcp_over_http(head: &str, body: &[u8]) -> Vec<u8> {
    let respond = |status: &str, ct: &str, body: &str| {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: {ct}\r\nMcp-Session-Id: s1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    };
    if !head.starts_with("POST ") {
        return respond("405 Method Not Allowed", "text/plain", "");
    }
    let Ok(msg) = serde_json::from_slice::<Value>(body) else {
        return respond("400 Bad Request", "text/plain", "");
    };
    let Some(id) = msg.get("id") else {
        return respond("202 Accepted", "text/plain", "");
    };
    let result = match msg["method"].as_str() {
        Some("initialize") => serde_json::json!({
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw-http-test-server", "version": "1.0.0"},
        }),
        Some("tools/list") => {
            let pages = raw_pages();
            let page = match msg["params"]["cursor"].as_str() {
                Some("page-2") => pages[1].clone(),
                _ => pages[0].clone(),
            };
            let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": page});
            let note = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "listing"}});
            let events =
                format!("event: message\ndata: {note}\n\nevent: message\ndata: {reply}\n\n");
            return respond("200 OK", "text/event-stream", &events);
        }
        _ => serde_json::json!({}),
    };
    let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
    respond("200 OK", "application/json", &reply.to_string())
}

fn an_http_server_hands_over_every_field() {
    let port = http_server(mcp_over_http);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = toolsmith(&["fetch", "--timeout", "10", "--url", &url]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let [first, second] = raw_pages();
    assert_eq!(
        doc["tools"],
        serde_json::json!([first["tools"][0], second["tools"][0]])
    );
}

fn main() {
    if let Ok(mode) = std::env::var(MODE) {
        serve(&mode);
        return;
    }
    let tests: [(&str, fn()); 10] = [
        (
            "fields_rmcp_lacks_are_fetched_pinned_and_verified",
            fields_rmcp_lacks_are_fetched_pinned_and_verified,
        ),
        (
            "a_timed_out_fetch_leaves_no_process",
            a_timed_out_fetch_leaves_no_process,
        ),
        (
            "an_http_address_that_is_no_mcp_endpoint_says_its_status",
            an_http_address_that_is_no_mcp_endpoint_says_its_status,
        ),
        (
            "an_http_server_hands_over_every_field",
            an_http_server_hands_over_every_field,
        ),
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
            "a_command_that_is_no_mcp_server_says_what_it_wrote",
            a_command_that_is_no_mcp_server_says_what_it_wrote,
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
