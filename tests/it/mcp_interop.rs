//! Interop: the official Python MCP SDK (`mcp` from PyPI, pinned in
//! `.ci/consumers-requirements.txt`) connects to `examples/mcp_server.rs` over stdio and over
//! streamable HTTP, in both of its connection modes (2026-07-28 through `server/discover`, and
//! the `initialize` handshake), and runs `tests/mcp/python_client.py`: tools/list validated
//! against the official schema of the negotiated version, a read, an invalid argument, path
//! attacks, a cut result's full result read back through its resource link (and an edited link
//! refused), list_changed after a register, and a cancelled slow call followed by a served one.
//!
//! The example server is also run on real stdio pipes by rmcp's own client, to check that it
//! exits promptly once its stdin closes, a 2026-07-28 client's open `subscriptions/listen`
//! stream included (the TypeScript SDK's client kills a server that takes 2 s).
//!
//! Without the Python SDK the test prints a loud SKIP line and passes, unless
//! `TOOLSMITH_REQUIRE_CONSUMERS=1` (CI). The interpreter is `TOOLSMITH_PYTHON`, else
//! `target/consumers-venv/bin/python` when it exists, else `python3`.

use crate::fixture;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A bound on every child process, so a hang fails the test instead of stalling CI.
const BOUND: Duration = Duration::from_secs(120);

use crate::require;

fn python() -> String {
    require::python(env!("CARGO_MANIFEST_DIR"))
}

/// Prints SKIP, or panics when CI requires the consumer.
fn missing(what: &str, why: &str) {
    require::missing::<()>(what, why);
}

/// The example server's binary, built by `cargo test` beside this test's binary.
fn server_bin() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?.parent()?.join("examples").join("mcp_server");
    bin.exists().then_some(bin)
}

/// Waits for `child` within [`BOUND`], killing it when the bound passes.
fn wait_bounded(mut child: Child, what: &str) -> (bool, String) {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < BOUND => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                break;
            }
        }
    }
    let out = child
        .wait_with_output()
        .expect("collect the client's output");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let ok = out.status.success();
    if !ok {
        eprintln!("{what}:\n{text}");
    }
    (ok, text)
}

fn client(mode: &str, transport_args: &[String], dir: &fixture::Dir) -> Command {
    let mut cmd = Command::new(python());
    cmd.arg(crate::workspace().join("tests/mcp/python_client.py"))
        .arg(mode)
        .args(transport_args)
        .arg(crate::workspace().join("tests/fixtures/specs"))
        .args(dir.host_paths())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn ready() -> Option<PathBuf> {
    let probe = Command::new(python())
        .args(["-c", "import mcp, mcp_types, jsonschema, anyio"])
        .output();
    match probe {
        Err(e) => {
            missing("python3", &e.to_string());
            return None;
        }
        Ok(o) if !o.status.success() => {
            missing("mcp (PyPI)", "`import mcp` fails");
            return None;
        }
        Ok(_) => {}
    }
    let bin = server_bin();
    if bin.is_none() {
        missing(
            "examples/mcp_server",
            "not built; `cargo test` builds it, `cargo build -p toolsmith-tests --example mcp_server` does too",
        );
    }
    bin
}

#[test]
fn python_sdk_over_stdio() {
    let Some(bin) = ready() else { return };
    for mode in ["auto", "legacy"] {
        let dir = fixture::Dir::new("py-stdio");
        let args = [
            "stdio".to_string(),
            bin.display().to_string(),
            dir.root().display().to_string(),
        ];
        let child = client(mode, &args, &dir).spawn().expect("start python");
        let (ok, out) = wait_bounded(child, &format!("python client, stdio, {mode}"));
        assert!(ok, "the Python SDK failed over stdio ({mode}):\n{out}");
        assert!(out.contains(&format!("OK stdio mode={mode}")), "{out}");
    }
}

/// The example server on `--http 127.0.0.1:0`, and the URL it printed.
struct HttpChild(Child);

impl Drop for HttpChild {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_http(bin: &Path, dir: &fixture::Dir) -> (HttpChild, String) {
    let mut child = Command::new(bin)
        .arg(dir.root())
        .args(["--http", "127.0.0.1:0", "--demo"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the example server");
    let stderr = child.stderr.take().expect("piped stderr");
    let child = HttpChild(child);
    let mut line = String::new();
    BufReader::new(stderr)
        .read_line(&mut line)
        .expect("read the server's first line");
    let url = line
        .trim()
        .strip_prefix("serving MCP on ")
        .unwrap_or_else(|| panic!("the server did not start: {line}"))
        .to_string();
    (child, url)
}

#[test]
fn python_sdk_over_streamable_http() {
    let Some(bin) = ready() else { return };
    for mode in ["auto", "legacy"] {
        let dir = fixture::Dir::new("py-http");
        let (_server, url) = start_http(&bin, &dir);
        let child = client(mode, &["http".to_string(), url], &dir)
            .spawn()
            .expect("start python");
        let (ok, out) = wait_bounded(child, &format!("python client, http, {mode}"));
        assert!(ok, "the Python SDK failed over HTTP ({mode}):\n{out}");
        assert!(out.contains(&format!("OK http mode={mode}")), "{out}");
    }
}

#[test]
fn a_missing_or_unreadable_root_is_one_line_and_exit_code_2() {
    let Some(bin) = server_bin() else {
        missing("examples/mcp_server", "not built");
        return;
    };
    let dir = fixture::Dir::new("bad-root");
    let file = dir.root().join("notes/todo.md");
    for args in [
        vec![dir.base.join("nope").display().to_string()],
        vec![file.display().to_string()],
        vec![],
        vec![dir.root().display().to_string(), "--http".into()],
    ] {
        let out = Command::new(&bin).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("mcp_server: "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// rmcp's client of one protocol revision.
struct RevisionClient(rmcp::model::ProtocolVersion);

impl rmcp::ClientHandler for RevisionClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        info.protocol_version = self.0.clone();
        info
    }
}

/// The example server on stdio pipes, driven by rmcp's client of `version`: a tools/list, for
/// 2026-07-28 a `subscriptions/listen` stream kept open, then the client closes the server's
/// stdin. The server must exit, successfully, within 3 s (the wait rmcp's service loop gives
/// running handlers is 5 s); returns how long it took.
async fn stdio_close_time(bin: &Path, version: rmcp::model::ProtocolVersion) -> Duration {
    use rmcp::model::SubscriptionFilter;
    use rmcp::service::ClientLifecycleMode;
    let dir = fixture::Dir::new("stdio-close");
    let mut child = tokio::process::Command::new(bin)
        .arg(dir.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the example server");
    let stdout = child.stdout.take().expect("piped stdout");
    let stdin = child.stdin.take().expect("piped stdin");
    let lifecycle = if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        }
    };
    let client = rmcp::service::serve_client_with_lifecycle(
        RevisionClient(version.clone()),
        (stdout, stdin),
        lifecycle,
    )
    .await
    .expect("the session starts");
    let tools = tokio::time::timeout(BOUND, client.list_all_tools())
        .await
        .expect("tools/list within the bound")
        .expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "read_file"), "{tools:?}");
    let subscription = if version.has_initialize() {
        None
    } else {
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        Some(
            tokio::time::timeout(BOUND, client.listen(filter))
                .await
                .expect("the subscription is acknowledged within the bound")
                .expect("subscriptions/listen"),
        )
    };
    // The client's transport (the server's stdin) is closed and dropped before `cancel`
    // returns; the subscription was never cancelled.
    let closing = Instant::now();
    client.cancel().await.expect("the client stops");
    let status = tokio::time::timeout(Duration::from_secs(3), child.wait())
        .await
        .unwrap_or_else(|_| panic!("{version}: the server still runs 3 s after its stdin closed"))
        .expect("wait for the server");
    let took = closing.elapsed();
    assert!(status.success(), "{version}: {status}");
    drop(subscription);
    took
}

#[tokio::test]
async fn the_example_server_exits_promptly_when_its_stdin_closes() {
    let Some(bin) = server_bin() else {
        missing(
            "examples/mcp_server",
            "not built; `cargo test` builds it, `cargo build -p toolsmith-tests --example mcp_server` does too",
        );
        return;
    };
    for version in [
        rmcp::model::ProtocolVersion::V_2026_07_28,
        rmcp::model::ProtocolVersion::V_2025_11_25,
    ] {
        let took = stdio_close_time(&bin, version.clone()).await;
        eprintln!("{version}: the example server exited {took:?} after its stdin closed");
    }
}
