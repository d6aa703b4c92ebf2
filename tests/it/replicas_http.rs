//! Replicas across processes: two `examples/mcp_server.rs` processes on 127.0.0.1, sharing one
//! store (Redis, then PostgreSQL) and one cursor key (`TOOLSMITH_CURSOR_KEY`), driven by rmcp's
//! client over streamable HTTP, as a load balancer would spread calls over them:
//!
//! - 200 identical keyed `append_note` calls sent at once, alternating between the servers:
//!   the note file has exactly one line; every other answer is `DUPLICATE` or `IN_PROGRESS`;
//! - a cursor issued by one server is served by the other;
//! - a server killed (SIGKILL) while its slow `append_note` runs: a retry on the other server is
//!   `IN_PROGRESS` while the write runs, then `OUTCOME_UNKNOWN` once the lease lapses, and the
//!   line is never written;
//! - tasks (the 2026-07-28 extension, raw JSON-RPC): a keyed write started as a task on one
//!   server is polled to its end on the other, and repeated there as a task it runs no
//!   second time; a task's question answered on the other server (`tasks/update`) lets it go
//!   on where it runs; a task cancelled on the other server ends `cancelled` and never writes; the
//!   server running a task killed (SIGKILL) mid-task: the other reports the task `failed`
//!   with `OUTCOME_UNKNOWN` once the lease lapses, and the write never runs;
//! - a Redis of the test's own killed under a load of keyed writes: the writes are
//!   `temporary_failure` (`IDEMPOTENCY_UNAVAILABLE`) and do not run, reads go on, and service
//!   comes back when Redis does.
//!
//! Every wait is for an event (a progress notification, an answer, a count of answers), asked
//! for within [`BOUND`]; no step assumes the servers or the store got somewhere within a time.
//!
//! The stores come from `TOOLSMITH_REDIS_URL` and `TOOLSMITH_PG_URL` (`bash .ci/services.sh`
//! sets both). Without one its test prints `SKIP: ...` and passes, unless
//! `TOOLSMITH_REQUIRE_SERVICES=1` (CI).

use crate::fixture;

use rmcp::model::{CallToolRequestParams, CallToolResult, ProgressNotificationParam};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolsmith::export::ENVELOPE_META_KEY;

/// A bound on every wait, so a broken server fails the test instead of hanging it.
const BOUND: Duration = Duration::from_secs(30);

/// The claim lease the servers are started with: short, so a dead server's claim lapses soon.
const LEASE_MS: u64 = 800;

/// The cursor key both servers share.
const CURSOR_KEY: &str = "7c1d0a5e9b3f4c2d8e6a1b0f9d7c5e3a2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a";

use crate::skip;

/// The URL in `var`, or `None` after a SKIP (a panic under `TOOLSMITH_REQUIRE_SERVICES=1`).
fn service_url(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            skip::skip(
                skip::Need::Service,
                "the store under test",
                &format!("{var} is not set"),
            );
            None
        }
    }
}

/// The example server's binary, built by `cargo test` beside this test's binary.
fn server_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/debug")
        .join("examples")
        .join("mcp_server");
    assert!(
        bin.exists(),
        "examples/mcp_server is not built; `cargo test` builds it"
    );
    bin
}

/// One server process; killed (SIGKILL) when dropped.
struct Replica {
    child: Child,
    url: String,
}

impl Replica {
    fn start(root: &Path, store: &str) -> Replica {
        let mut child = Command::new(server_bin())
            .arg(root)
            .args(["--http", "127.0.0.1:0", "--demo", "--allow-writes"])
            .args(["--store", store])
            .args(["--claim-lease-ms", &LEASE_MS.to_string()])
            .env("TOOLSMITH_CURSOR_KEY", CURSOR_KEY)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the example server");
        let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
        let mut line = String::new();
        // The server prints its URL, or its one-line error and exits: either ends the read.
        let _ = stderr.read_line(&mut line);
        let Some(url) = line.trim().strip_prefix("serving MCP on ") else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server did not start: {line}");
        };
        let url = url.to_string();
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = stderr.read_to_end(&mut sink);
        });
        Replica { child, url }
    }

    /// Ends the process at once (SIGKILL): nothing of it runs again.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The client side: counts the progress notifications that say a write started (rmcp's client
/// sends a progress token of its own with every request, so every call's reports arrive).
#[derive(Clone, Default)]
struct Watcher {
    started: Arc<AtomicUsize>,
}

impl ClientHandler for Watcher {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if params.message.as_deref() == Some("started") {
            self.started.fetch_add(1, Ordering::SeqCst);
        }
    }
}

type Client = RunningService<RoleClient, Watcher>;

async fn connect(url: &str) -> (Client, Arc<AtomicUsize>) {
    let watcher = Watcher::default();
    let progress = Arc::clone(&watcher.started);
    let transport = StreamableHttpClientTransport::from_uri(url);
    let client = tokio::time::timeout(BOUND, rmcp::serve_client(watcher, transport))
        .await
        .expect("the handshake ends within the bound")
        .expect("the client connects");
    (client, progress)
}

fn params(name: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are objects")
    };
    CallToolRequestParams::new(name).with_arguments(arguments)
}

/// The call's envelope: from `_meta` and the text (which then is the whole envelope), or, on a
/// plain `ok`, the status and the structured data.
fn envelope(result: &CallToolResult) -> Value {
    let v = serde_json::to_value(result).unwrap();
    if v["_meta"][ENVELOPE_META_KEY].is_object() {
        let text = v["content"][0]["text"].as_str().unwrap_or_default();
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {v}"))
    } else {
        json!({"status": "ok", "data": v["structuredContent"]})
    }
}

async fn call(client: &Client, name: &'static str, arguments: Value) -> Value {
    let result = tokio::time::timeout(BOUND, client.call_tool(params(name, arguments)))
        .await
        .expect("the server answers within the bound")
        .expect("a tools/call result");
    envelope(&result)
}

/// The code of an answer, or its status when it has none (`ok`).
fn code(env: &Value) -> String {
    env["code"]
        .as_str()
        .or(env["status"].as_str())
        .unwrap_or("?")
        .to_string()
}

/// An identifier no other run uses (the store outlives the test).
fn unique(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{tag}-{}-{nanos}", std::process::id())
}

fn note_lines(root: &Path) -> Vec<String> {
    match std::fs::read_to_string(root.join("notes.log")) {
        Ok(text) => text.lines().map(str::to_string).collect(),
        Err(_) => Vec::new(),
    }
}

async fn two_replicas_share_one_store(store: &str, label: &str) {
    let dir = fixture::Dir::new(label);
    let root = dir.root();
    let mut a = Replica::start(&root, store);
    let b = Replica::start(&root, store);
    let (client_a, started_a) = connect(&a.url).await;
    let (client_b, _) = connect(&b.url).await;
    let clients = Arc::new([client_a, client_b]);

    // (a) 200 identical keyed writes at once, alternating between the servers: one runs.
    let started = Instant::now();
    let id = unique("once");
    let calls: Vec<_> = (0..200)
        .map(|i| {
            let (clients, id) = (Arc::clone(&clients), id.clone());
            tokio::spawn(async move {
                let args = json!({"request_id": id, "text": "exactly once", "delay_ms": 200});
                call(&clients[i % 2], "append_note", args).await
            })
        })
        .collect();
    let mut codes = Vec::new();
    for c in calls {
        codes.push(code(&c.await.expect("the call's task")));
    }
    assert_eq!(
        codes.iter().filter(|c| *c == "ok").count(),
        1,
        "one write ran: {codes:?}"
    );
    assert!(
        codes
            .iter()
            .all(|c| c == "ok" || c == "DUPLICATE" || c == "IN_PROGRESS"),
        "{codes:?}"
    );
    assert_eq!(note_lines(&root), [format!("{id}\texactly once")]);
    for client in clients.iter() {
        let again = call(
            client,
            "append_note",
            json!({"request_id": id, "text": "exactly once"}),
        )
        .await;
        assert_eq!(code(&again), "DUPLICATE", "{again}");
    }
    assert_eq!(note_lines(&root).len(), 1);
    println!(
        "{label}: 200 keyed writes on two servers in {:?}",
        started.elapsed()
    );

    // (b) A cursor issued by one server is served by the other.
    let first = call(&clients[0], "list_entries", json!({"count": 3000})).await;
    assert_eq!(first["status"], "ok", "{first}");
    assert_eq!(first["truncated"], true, "{first}");
    let cursor = first["cursor"].as_str().expect("a next page").to_string();
    let second = call(
        &clients[1],
        "list_entries",
        json!({"count": 3000, "cursor": cursor}),
    )
    .await;
    assert_eq!(second["status"], "ok", "{second}");
    assert_eq!(
        second["reference"], first["reference"],
        "the same kept result"
    );
    let last_of_first = first["data"].as_array().unwrap().last().unwrap()["n"]
        .as_u64()
        .unwrap();
    assert_eq!(
        second["data"][0]["n"].as_u64(),
        Some(last_of_first + 1),
        "the page after the first: {second}"
    );

    // (c) The server running a slow write is killed after the write started: the other server
    // answers IN_PROGRESS while it runs (and until the lease lapses), then OUTCOME_UNKNOWN, and
    // never writes.
    let id = unique("dies");
    let slow = json!({"request_id": id, "text": "never twice", "delay_ms": 10000});
    let request = params("append_note", slow.clone());
    // Every earlier call on server A has answered, and its reports came before its answer.
    let before = started_a.load(Ordering::SeqCst);
    let clients_a = Arc::clone(&clients);
    let pending = tokio::spawn(async move { clients_a[0].call_tool(request).await });
    let waiting = Instant::now();
    while started_a.load(Ordering::SeqCst) == before {
        assert!(
            waiting.elapsed() < BOUND,
            "the slow write never reported that it started"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // While server A runs the write (and renews its lease), a retry on B is in progress.
    let running = call(&clients[1], "append_note", slow.clone()).await;
    assert_eq!(code(&running), "IN_PROGRESS", "{running}");
    a.kill();
    pending.abort();
    let killed = Instant::now();
    let mut seen = Vec::new();
    loop {
        let retry = call(&clients[1], "append_note", slow.clone()).await;
        let c = code(&retry);
        assert!(
            c == "IN_PROGRESS" || c == "OUTCOME_UNKNOWN",
            "after {seen:?}: {retry}"
        );
        seen.push(c.clone());
        if c == "OUTCOME_UNKNOWN" {
            assert_eq!(retry["status"], "refused", "{retry}");
            break;
        }
        assert!(killed.elapsed() < BOUND, "still {seen:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    println!(
        "{label}: OUTCOME_UNKNOWN {:?} after the kill (lease {LEASE_MS} ms)",
        killed.elapsed()
    );
    let again = call(&clients[1], "append_note", slow).await;
    assert_eq!(code(&again), "OUTCOME_UNKNOWN", "{again}");
    assert!(
        note_lines(&root).iter().all(|l| !l.starts_with(&id)),
        "the write never ran again"
    );
    drop(b);
}

/// A client that declares the tasks extension and elicitation (2026-07-28, in each request's
/// `_meta`).
fn tasks_client() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// Starts `append_note` as a task on `url`: the task's id.
async fn start_task(url: &str, args: Value) -> String {
    start_task_of(url, "append_note", args).await
}

/// Starts `tool` as a task on `url`: the task's id.
async fn start_task_of(url: &str, tool: &str, args: Value) -> String {
    let (status, answer) = fixture::post_2026(
        url,
        "tools/call",
        json!({"name": tool, "arguments": args}),
        tasks_client(),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let result = &answer["result"];
    assert_eq!(result["resultType"], "task", "{answer}");
    assert!(result["ttlMs"].as_u64().is_some(), "{answer}");
    result["taskId"].as_str().expect("a task id").to_string()
}

/// `tasks/get` on `url`: the task as the server answers it.
async fn get_task(url: &str, id: &str) -> Value {
    let (_, answer) =
        fixture::post_2026(url, "tasks/get", json!({"taskId": id}), tasks_client(), &[]).await;
    assert!(answer.get("error").is_none(), "{answer}");
    answer["result"].clone()
}

/// Polls `tasks/get` on `url` until the task ends ([`fixture::poll_task`]); until then it is
/// `working` or asking.
async fn task_end(url: &str, id: &str) -> Value {
    fixture::poll_task(url, id, tasks_client(), &[], |task| {
        let status = task["status"].as_str().unwrap_or_default();
        assert!(
            [
                "working",
                "input_required",
                "completed",
                "failed",
                "cancelled"
            ]
            .contains(&status),
            "{task}"
        );
        ["completed", "failed", "cancelled"].contains(&status)
    })
    .await
}

/// The envelope of a completed task's result.
fn task_envelope(task: &Value) -> Value {
    task["result"]["_meta"][ENVELOPE_META_KEY].clone()
}

/// Tasks across two servers on one store (see the module's list).
async fn tasks_across_replicas(store: &str, label: &str) {
    let dir = fixture::Dir::new(label);
    let root = dir.root();
    let mut a = Replica::start(&root, store);
    let b = Replica::start(&root, store);

    // A keyed write started as a task on A ends on B's answers; its repeat as a task on B is
    // the first run's duplicate.
    let id = unique("task");
    let args = json!({"request_id": id, "text": "as a task", "delay_ms": 300});
    let task = start_task(&a.url, args.clone()).await;
    let done = task_end(&b.url, &task).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(task_envelope(&done)["status"], "ok", "{done}");
    let again = start_task(&b.url, args).await;
    let repeat = task_end(&a.url, &again).await;
    assert_eq!(code(&task_envelope(&repeat)), "DUPLICATE", "{repeat}");
    assert_eq!(note_lines(&root), [format!("{id}\tas a task")]);

    // A question of a task running on A, answered on B: `clear_notes` asks to confirm, B's
    // `tasks/update` answers, A's runner takes the answer and empties the notes.
    let task = start_task_of(&a.url, "clear_notes", json!({})).await;
    let question = fixture::poll_task(&b.url, &task, tasks_client(), &[], |t| {
        assert!(
            t["status"] == "working" || t["status"] == "input_required",
            "{t}"
        );
        t["status"] == "input_required"
    })
    .await;
    let request = &question["inputRequests"]["confirm"];
    assert_eq!(request["method"], "elicitation/create", "{question}");
    assert!(
        request["params"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Delete the 1 notes")),
        "{question}"
    );
    let (_, ack) = fixture::post_2026(
        &b.url,
        "tasks/update",
        json!({"taskId": task, "inputResponses": {
            "confirm": {"action": "accept", "content": {"confirm": true}}}}),
        tasks_client(),
        &[],
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let cleared = task_end(&b.url, &task).await;
    assert_eq!(cleared["status"], "completed", "{cleared}");
    assert_eq!(cleared["result"]["isError"], false, "{cleared}");
    assert_eq!(
        cleared["result"]["structuredContent"], 1,
        "one line removed: {cleared}"
    );
    assert!(note_lines(&root).is_empty(), "the notes were emptied");

    // Cancelled on B while A runs it: it ends cancelled, and the line is never written.
    let id = unique("cancelled");
    let task = start_task(
        &a.url,
        json!({"request_id": id, "text": "no", "delay_ms": 20000}),
    )
    .await;
    let (_, ack) = fixture::post_2026(
        &b.url,
        "tasks/cancel",
        json!({"taskId": task}),
        tasks_client(),
        &[],
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let cancelled = task_end(&b.url, &task).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");

    // A killed mid-task: B answers `working` until the lease lapses, then `failed` with
    // OUTCOME_UNKNOWN; the write never runs.
    let id = unique("task_dies");
    let task = start_task(
        &a.url,
        json!({"request_id": id, "text": "never", "delay_ms": 20000}),
    )
    .await;
    assert_eq!(get_task(&b.url, &task).await["status"], "working");
    a.kill();
    let killed = Instant::now();
    let failed = task_end(&b.url, &task).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(
        failed["error"]["data"]["code"], "OUTCOME_UNKNOWN",
        "{failed}"
    );
    assert!(failed.get("result").is_none(), "{failed}");
    println!(
        "{label}: a dead server's task failed {:?} after the kill (lease {LEASE_MS} ms)",
        killed.elapsed()
    );
    assert!(
        note_lines(&root)
            .iter()
            .all(|l| !l.starts_with(&id) && !l.contains("\tno")),
        "neither the cancelled nor the dead task wrote"
    );
    drop(b);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_servers_on_one_redis() {
    let Some(url) = service_url("TOOLSMITH_REDIS_URL") else {
        return;
    };
    two_replicas_share_one_store(&url, "replicas-redis").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_servers_on_one_postgres() {
    let Some(url) = service_url("TOOLSMITH_PG_URL") else {
        return;
    };
    two_replicas_share_one_store(&url, "replicas-postgres").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tasks_across_two_servers_on_one_redis() {
    let Some(url) = service_url("TOOLSMITH_REDIS_URL") else {
        return;
    };
    tasks_across_replicas(&url, "tasks-redis").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tasks_across_two_servers_on_one_postgres() {
    let Some(url) = service_url("TOOLSMITH_PG_URL") else {
        return;
    };
    tasks_across_replicas(&url, "tasks-postgres").await;
}

/// `--store` with anything but memory or a Redis or PostgreSQL URL, a bad lease, or a cursor
/// key too short: one line on stderr, exit code 2.
#[test]
fn a_bad_store_lease_or_cursor_key_is_one_line_and_exit_code_2() {
    let dir = fixture::Dir::new("replica-options");
    let root = dir.root().display().to_string();
    let cases: [(&[&str], Option<&str>, &str); 4] = [
        (&["--store", "mysql://db/x"], None, "--store"),
        (&["--store"], None, "--store"),
        (&["--claim-lease-ms", "5"], None, "--claim-lease-ms"),
        (&[], Some("too-short"), "TOOLSMITH_CURSOR_KEY"),
    ];
    for (args, key, named) in cases {
        let mut cmd = Command::new(server_bin());
        cmd.arg(&root).args(args).stdin(Stdio::null());
        match key {
            Some(k) => cmd.env("TOOLSMITH_CURSOR_KEY", k),
            None => cmd.env_remove("TOOLSMITH_CURSOR_KEY"),
        };
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("mcp_server: "), "{err}");
        assert!(err.contains(named), "{args:?}: {err}");
    }
}

/// The answers of a load so far, by kind; the test waits for counts of them.
#[derive(Default)]
struct Tally {
    seen: std::sync::Mutex<Seen>,
    changed: tokio::sync::Notify,
}

#[derive(Default)]
struct Seen {
    ok: usize,
    refused: usize,
    ok_after: usize,
    restarted: Option<Instant>,
}

impl Tally {
    /// Counts an answer that came back at `at`.
    fn count(&self, env: &Value, at: Instant) {
        let mut seen = self.seen.lock().unwrap();
        match env["status"].as_str() {
            Some("ok") => {
                seen.ok += 1;
                if seen.restarted.is_some_and(|r| at > r) {
                    seen.ok_after += 1;
                }
            }
            Some("temporary_failure") => seen.refused += 1,
            _ => {}
        }
        drop(seen);
        self.changed.notify_waiters();
    }

    /// Notes when the store came back: `ok` answers after it are counted apart.
    fn restarted(&self, at: Instant) {
        self.seen.lock().unwrap().restarted = Some(at);
    }

    /// Waits (within [`BOUND`]) until `enough` holds of the answers so far.
    async fn wait_for(&self, what: &str, enough: impl Fn(&Seen) -> bool) {
        let deadline = tokio::time::Instant::now() + BOUND;
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let seen = self.seen.lock().unwrap();
                if enough(&seen) {
                    return;
                }
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "{what}: not seen within {BOUND:?} (ok {}, refused {}, ok after the restart {})",
                    seen.ok,
                    seen.refused,
                    seen.ok_after
                );
            }
            let _ = tokio::time::timeout_at(deadline, changed).await;
        }
    }
}

/// A redis-server of the test's own on a free 127.0.0.1 port, without persistence; killed when
/// dropped (toolsmith-redis's test helper, shared).
use crate::redis_store::common::OwnServer as OwnRedis;

/// The store goes away under a load of keyed writes on two servers: every answer is `ok` or
/// `temporary_failure` (`IDEMPOTENCY_UNAVAILABLE`), a write so refused never ran, a read with
/// no key is served meanwhile, and keyed writes run again once the store is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_store_that_goes_away_refuses_keyed_writes_until_it_returns() {
    let Some(mut redis) = OwnRedis::start() else {
        return;
    };
    let dir = fixture::Dir::new("replicas-outage");
    let root = dir.root();
    let a = Replica::start(&root, &redis.url());
    let b = Replica::start(&root, &redis.url());
    let clients = Arc::new([connect(&a.url).await.0, connect(&b.url).await.0]);
    let stop = Arc::new(AtomicBool::new(false));
    // What the load has seen so far, for the test to wait on: answers `ok`, answers refused
    // (`temporary_failure`), and `ok` answers after the restart (once it is set).
    let tally = Arc::new(Tally::default());
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let (clients, stop, tally) =
                (Arc::clone(&clients), Arc::clone(&stop), Arc::clone(&tally));
            tokio::spawn(async move {
                let mut answers = Vec::new();
                let mut i = 0;
                while !stop.load(Ordering::SeqCst) && i < 2000 {
                    let id = unique(&format!("load{w}-{i}"));
                    let env = call(
                        &clients[(w + i) % 2],
                        "append_note",
                        json!({"request_id": id, "text": "under load"}),
                    )
                    .await;
                    let at = Instant::now();
                    tally.count(&env, at);
                    answers.push((id, env, at));
                    i += 1;
                    // Pacing, so the load does not crowd out the test's own steps.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                answers
            })
        })
        .collect();
    // The load is under way: some keyed writes have run.
    tally
        .wait_for("writes served before the outage", |t| t.ok >= 8)
        .await;
    // Taken before the kill: an answer can come back while the kill is under way.
    let killed = Instant::now();
    redis.kill();
    // The outage is seen: some keyed writes of the load have been refused.
    tally
        .wait_for("writes refused during the outage", |t| t.refused >= 2)
        .await;
    // A read with no key never touches the store.
    let read = call(&clients[0], "list_entries", json!({"count": 3})).await;
    assert_eq!(read["status"], "ok", "{read}");
    redis.restart();
    let restarted = Instant::now();
    tally.restarted(restarted);
    // Service comes back (the stores reconnect by themselves): bounded wait for a keyed write.
    let back = loop {
        let env = call(
            &clients[1],
            "append_note",
            json!({"request_id": unique("back"), "text": "after the outage"}),
        )
        .await;
        if env["status"] == "ok" {
            break restarted.elapsed();
        }
        assert_eq!(env["code"], "IDEMPOTENCY_UNAVAILABLE", "{env}");
        assert!(
            restarted.elapsed() < BOUND,
            "no service {:?} after the restart",
            restarted.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    println!("redis outage: keyed writes served again {back:?} after the restart");
    // The load's own writes are served again too.
    tally
        .wait_for("writes of the load served after the restart", |t| {
            t.ok_after >= 2
        })
        .await;
    stop.store(true, Ordering::SeqCst);
    let mut answers = Vec::new();
    for w in workers {
        answers.extend(
            tokio::time::timeout(BOUND, w)
                .await
                .expect("the load ends")
                .unwrap(),
        );
    }
    let lines = note_lines(&root);
    let (mut refused, mut ok_after) = (0, 0);
    for (id, env, at) in &answers {
        let written = lines
            .iter()
            .filter(|l| l.starts_with(&format!("{id}\t")))
            .count();
        match env["status"].as_str() {
            Some("ok") => {
                assert_eq!(written, 1, "{id}: {env}");
                if *at > restarted {
                    ok_after += 1;
                }
            }
            Some("temporary_failure") => {
                assert_eq!(env["code"], "IDEMPOTENCY_UNAVAILABLE", "{env}");
                assert!(
                    env["retry_after"].is_string() || env["retry_after"].is_number(),
                    "{env}"
                );
                assert_eq!(written, 0, "a refused write ran: {id}");
                assert!(*at > killed, "refused before the outage: {env}");
                refused += 1;
            }
            _ => panic!("{id}: {env}"),
        }
    }
    assert!(refused > 0, "no write was refused while the store was down");
    assert!(
        ok_after > 0,
        "no write of the load ran after the store came back"
    );
    println!(
        "redis outage: {} writes, {refused} refused while the store was down, {ok_after} served after",
        answers.len()
    );
}
