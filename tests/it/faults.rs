//! Faults (issue 17, item 5): a tool that panics, hangs, breaks its output schema or returns
//! secrets; an approver that hangs or panics; an audit sink or a record store that fails. Every
//! call still answers with an envelope, no fault is dropped silently (each is counted by
//! `Toolbox::faults` and passed to the `on_fault` callback), and a durable record store (SQLite)
//! keeps every approved write's idempotency record across a restart.

use crate::common;

use common::{without_operation_id, Runs};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolsmith::approval::fn_approver;
use toolsmith::audit::{AuditRecord, AuditSink, MemorySink};
use toolsmith::budget::{MemoryRecordStore, RecordStore};
use toolsmith::fault::{BackendError, Fault, FaultKind};
use toolsmith::idempotency::StoredOutcome;
use toolsmith::sqlite::SqliteRecordStore;
use toolsmith::{tool, CallOptions, Status, Tool, ToolSpec, Toolbox};
use toolsmith::{Approval, ApprovalRequest};

/// Fails on purpose. Returns nothing.
#[tool(read_only)]
fn run_crash_job() {
    panic!("index out of range in /srv/app/src/report.rs with ghp_0123456789abcdefghijklmnopqrstuvwxyzAB")
}

/// Fails on purpose after an await. Returns nothing.
#[tool(read_only)]
async fn run_crash_task() {
    tokio::task::yield_now().await;
    panic!("async crash")
}

/// Never finishes. Returns nothing.
#[tool(read_only, timeout_ms = 30)]
async fn get_stuck_status() {
    std::future::pending::<()>().await
}

/// Blocks its thread far longer than its timeout. Returns nothing.
#[tool(read_only, timeout_ms = 30)]
fn compute_slow_sum() {
    std::thread::sleep(Duration::from_millis(300));
}

/// Reads the deploy settings. Returns them, secrets included (redacted on the way out).
#[tool(read_only)]
fn get_settings() -> Value {
    json!({
        "aws": "AKIAIOSFODNN7EXAMPLE",
        "db": "postgres://app:hunter2@db:5432/main",
        "password": "correct horse",
    })
}

/// Wipes a disk after a person approves. Returns a confirmation.
#[tool(writes, destructive, requires_approval, idempotency_key(disk))]
fn delete_disk(
    #[context] runs: &Runs,
    /// The disk, e.g. "sdb".
    disk: String,
) -> String {
    runs.bump("wipe");
    format!("wiped {disk}")
}

/// Sends a payment after a person approves. Returns the payment number.
#[tool(writes, requires_approval, idempotency_key(invoice))]
fn send_payment(
    #[context] runs: &Runs,
    /// The invoice to pay, e.g. "INV-7".
    invoice: String,
) -> usize {
    let _ = invoice;
    runs.bump("send")
}

/// Creates an invoice. Returns its number.
#[tool(writes)]
fn create_invoice(
    #[context] runs: &Runs,
    /// The amount in cents, e.g. 500.
    amount: u32,
) -> usize {
    let _ = amount;
    runs.bump("invoice")
}

/// Moves money; the bank never confirms in time. Returns the transfer id.
#[tool(writes, idempotency_key(transfer), timeout_ms = 30)]
async fn move_money(
    #[context] runs: &Runs,
    /// The transfer's own id, e.g. "T-1".
    transfer: String,
) -> String {
    runs.bump("transfer");
    std::future::pending::<()>().await;
    transfer
}

/// Lists many rows. Returns them.
#[tool(read_only)]
fn list_rows(
    #[context] runs: &Runs,
    /// The cursor from the previous page; leave it out for the first page.
    cursor: Option<String>,
) -> Vec<String> {
    let _ = cursor;
    runs.bump("rows");
    (0..400).map(|i| format!("row number {i}")).collect()
}

fn spec_with_output() -> ToolSpec {
    common::spec(
        "count_orders",
        "Counts orders. Returns the count.",
        json!({"type": "object", "properties": {}}),
        common::read_only(),
    )
    .with_output_schema(json!({
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
    }))
}

/// Collects every fault the callback is told of.
fn fault_log() -> (
    Arc<Mutex<Vec<Fault>>>,
    impl Fn(&Fault) + Send + Sync + 'static,
) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&log);
    (log, move |f: &Fault| sink.lock().unwrap().push(f.clone()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_panics_hangs_breaks_its_schema_or_leaks_still_answers() {
    let broken = Tool::from_fn(spec_with_output(), |_, _| {
        Box::pin(async { Ok(json!({"count": "many"})) })
    });
    let audit = Arc::new(MemorySink::new());
    let tb = Toolbox::builder()
        .tool(run_crash_job::tool())
        .tool(run_crash_task::tool())
        .tool(get_stuck_status::tool())
        .tool(compute_slow_sum::tool())
        .tool(get_settings::tool())
        .tool(broken)
        .shared_audit(audit.clone())
        .check_output_contract(true)
        .build()
        .unwrap();
    let mut table = Vec::new();
    for _round in 0..3 {
        for (name, status, code) in [
            ("run_crash_job", Status::Failed, "INTERNAL"),
            ("run_crash_task", Status::Failed, "INTERNAL"),
            ("get_stuck_status", Status::Timeout, "TIMEOUT"),
            ("compute_slow_sum", Status::Timeout, "TIMEOUT"),
        ] {
            let env = tb.call(name, json!({})).await;
            assert_eq!(env.status, status, "{name}: {}", env.to_json());
            assert_eq!(env.code.as_deref(), Some(code), "{name}");
            let wire = env.to_json();
            assert!(!wire.contains("/srv") && !wire.contains("ghp_"), "{wire}");
            table.push((name, env.status));
        }
    }
    // The panic's text is for the host only, and redacted there too.
    let details: Vec<String> = audit
        .records()
        .iter()
        .filter_map(|r| r.detail.clone())
        .collect();
    assert!(details
        .iter()
        .any(|d| d.contains("/srv/app") && d.contains("[REDACTED:github_token]")));
    assert!(details.iter().all(|d| !d.contains("ghp_")));

    let leak = tb.call("get_settings", json!({})).await;
    assert_eq!(leak.status, Status::Ok);
    assert_eq!(
        leak.data,
        Some(json!({
            "aws": "[REDACTED:aws_access_key_id]",
            "db": "postgres://app:[REDACTED:url_password]@db:5432/main",
            "password": "[REDACTED:secret_field]",
        }))
    );
    let contract = tb.call("count_orders", json!({})).await;
    assert_eq!(contract.status, Status::Failed);
    assert_eq!(contract.code.as_deref(), Some("OUTPUT_CONTRACT"));
    assert!(!contract.to_json().contains("many"));
    // After all that, the toolbox still serves and nothing was counted as a host fault.
    assert_eq!(tb.call("get_settings", json!({})).await.status, Status::Ok);
    assert_eq!(tb.faults().total(), 0);
    println!(
        "tool faults: {} calls, all answered: {table:?}",
        table.len()
    );
}

/// An approver that hangs on the first request and approves the rest.
fn hanging_then_approving() -> impl toolsmith::Approver {
    let asked = Arc::new(AtomicUsize::new(0));
    fn_approver(move |_req: &ApprovalRequest| {
        let n = asked.fetch_add(1, Ordering::SeqCst);
        async move {
            if n == 0 {
                std::future::pending::<()>().await;
            }
            Approval::Approved
        }
    })
}

#[tokio::test]
async fn an_approver_that_hangs_times_out_and_the_tool_does_not_run() {
    let runs = Arc::new(Runs::default());
    let tb = Toolbox::builder()
        .tool(delete_disk::tool())
        .shared_context(Arc::clone(&runs))
        .approver(hanging_then_approving())
        .approval_timeout(Duration::from_millis(40))
        .build()
        .unwrap();
    let env = tb.call("delete_disk", json!({"disk": "sdb"})).await;
    assert_eq!(env.status, Status::Denied, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("APPROVAL_TIMEOUT"));
    assert_eq!(
        env.message.as_deref(),
        Some("No one approved the call to \"delete_disk\" within 40 ms, so it did not run. Tell the user it needs their approval; call it again only if they ask.")
    );
    assert_eq!(runs.of("wipe"), 0);
    // The tool never ran, so the key is released: the next (approved) call runs once.
    let again = tb.call("delete_disk", json!({"disk": "sdb"})).await;
    assert_eq!(again.status, Status::Ok, "{}", again.to_json());
    assert_eq!(runs.of("wipe"), 1);
    // A hang is an answer that did not come, not a fault of the host's code.
    assert_eq!(tb.faults().total(), 0);
}

#[tokio::test]
async fn an_approver_that_panics_fails_the_call_counts_a_fault_and_runs_nothing() {
    let runs = Arc::new(Runs::default());
    let asked = Arc::new(AtomicUsize::new(0));
    let approver = {
        let asked = Arc::clone(&asked);
        fn_approver(move |_req: &ApprovalRequest| {
            let n = asked.fetch_add(1, Ordering::SeqCst);
            async move {
                if n == 0 {
                    panic!("approval UI crashed at /opt/ui/dialog.rs");
                }
                Approval::Approved
            }
        })
    };
    let (log, on_fault) = fault_log();
    let tb = Toolbox::builder()
        .tool(send_payment::tool())
        .shared_context(Arc::clone(&runs))
        .approver(approver)
        .on_fault(on_fault)
        .build()
        .unwrap();
    let env = tb.call("send_payment", json!({"invoice": "INV-7"})).await;
    assert_eq!(env.status, Status::Failed, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("APPROVER_FAILED"));
    assert!(!env.to_json().contains("/opt/ui"));
    assert_eq!(runs.of("send"), 0);
    assert_eq!(tb.faults().approver, 1);
    {
        let log = log.lock().unwrap();
        assert_eq!(log.len(), 1);
        assert_eq!(log[0].kind, FaultKind::Approver);
        assert_eq!(log[0].tool.as_deref(), Some("send_payment"));
        assert!(
            log[0].detail.contains("approval UI crashed"),
            "{:?}",
            log[0]
        );
    }
    // Nothing ran, so the key is free: the next approved call runs exactly once.
    let again = tb.call("send_payment", json!({"invoice": "INV-7"})).await;
    assert_eq!(again.data, Some(json!(1)));
    let dup = tb.call("send_payment", json!({"invoice": "INV-7"})).await;
    assert_eq!(dup.code.as_deref(), Some("DUPLICATE"));
    assert_eq!(runs.of("send"), 1);
}

/// A sink whose every write fails: every other one with an error, the rest with a panic.
#[derive(Default)]
struct BrokenSink {
    attempts: AtomicUsize,
}

impl AuditSink for BrokenSink {
    fn record(&self, _rec: &AuditRecord) {
        panic!("record called directly");
    }
    fn try_record(&self, _rec: &AuditRecord) -> Result<(), BackendError> {
        if self.attempts.fetch_add(1, Ordering::SeqCst) % 2 == 0 {
            Err(BackendError::new("disk full"))
        } else {
            panic!("sink bug")
        }
    }
}

#[tokio::test]
async fn a_failing_audit_sink_is_counted_and_reported_and_the_call_still_answers() {
    let sink = Arc::new(BrokenSink::default());
    let (log, on_fault) = fault_log();
    let tb = Toolbox::builder()
        .tool(get_settings::tool())
        .shared_audit(sink.clone())
        .on_fault(on_fault)
        .build()
        .unwrap();
    // One registration record failed already.
    assert_eq!(tb.faults().audit_sink, 1);
    let mut ops = Vec::new();
    for _ in 0..6 {
        let env = tb.call("get_settings", json!({})).await;
        assert_eq!(env.status, Status::Ok);
        ops.push(env.operation_id.unwrap());
    }
    let unknown = tb.call("no_such_tool", json!({})).await;
    assert_eq!(unknown.code.as_deref(), Some("UNKNOWN_TOOL"));
    assert_eq!(tb.faults().audit_sink, 8);
    assert_eq!(sink.attempts.load(Ordering::SeqCst), 8);
    let log = log.lock().unwrap();
    assert_eq!(log.len(), 8);
    assert!(log.iter().all(|f| f.kind == FaultKind::AuditSink));
    // Each fault names its call, and both kinds of failure are told.
    for (fault, op) in log[1..7].iter().zip(&ops) {
        assert_eq!(fault.operation_id.as_ref(), Some(op));
        assert_eq!(fault.tool.as_deref(), Some("get_settings"));
    }
    assert!(log.iter().any(|f| f.detail == "disk full"));
    assert!(log.iter().any(|f| f.detail.contains("sink bug")));
}

/// A record store that fails on demand, with an error or a panic.
#[derive(Default)]
struct FlakyStore {
    inner: MemoryRecordStore,
    failing: std::sync::atomic::AtomicBool,
    panics: std::sync::atomic::AtomicBool,
}

impl FlakyStore {
    fn check(&self) -> Result<(), BackendError> {
        if self.panics.load(Ordering::SeqCst) {
            panic!("store bug");
        }
        if self.failing.load(Ordering::SeqCst) {
            return Err(BackendError::new("connection reset"));
        }
        Ok(())
    }
}

/// The flaky store, shared with the test.
struct SharedFlaky(Arc<FlakyStore>);

impl RecordStore for SharedFlaky {
    fn put(&self, value: Value) -> String {
        self.0.inner.put(value)
    }
    fn get(&self, reference: &str) -> Option<Value> {
        self.0.inner.get(reference)
    }
    fn try_put(&self, value: Value) -> Result<String, BackendError> {
        self.0.check()?;
        Ok(self.0.inner.put(value))
    }
    fn try_get(&self, reference: &str) -> Result<Option<Value>, BackendError> {
        self.0.check()?;
        Ok(self.0.inner.get(reference))
    }
}

#[tokio::test]
async fn a_failing_record_store_is_counted_and_reported_and_the_call_still_answers() {
    let runs = Arc::new(Runs::default());
    let store = Arc::new(FlakyStore::default());
    let (log, on_fault) = fault_log();
    let tb = Toolbox::builder()
        .tool(list_rows::tool())
        .tool(send_payment::tool())
        .shared_context(Arc::clone(&runs))
        .approver(toolsmith::approval::ApproveAll)
        .record_store(SharedFlaky(Arc::clone(&store)))
        .on_fault(on_fault)
        .build()
        .unwrap();
    // A first page whose full result cannot be kept: still answered, cut to the budget.
    store.failing.store(true, Ordering::SeqCst);
    let first = tb.call("list_rows", json!({})).await;
    assert_eq!(first.status, Status::Ok, "{}", first.to_json());
    assert!(first.truncated);
    assert_eq!(tb.faults().record_store, 1);
    // Its next page cannot be read from the store: a read-only tool runs again for it.
    let cursor = first.cursor.clone().unwrap();
    let next = tb.call("list_rows", json!({ "cursor": cursor })).await;
    assert_eq!(next.status, Status::Ok, "{}", next.to_json());
    assert_ne!(next.data, first.data);
    assert_eq!(runs.of("rows"), 2);
    assert!(tb.faults().record_store >= 2);

    // A panicking store: an approved write still answers with its result, and runs once.
    store.panics.store(true, Ordering::SeqCst);
    let paid = tb.call("send_payment", json!({"invoice": "INV-1"})).await;
    assert_eq!(paid.status, Status::Ok, "{}", paid.to_json());
    assert_eq!(paid.data, Some(json!(1)));
    let dup = tb.call("send_payment", json!({"invoice": "INV-1"})).await;
    assert_eq!(dup.code.as_deref(), Some("DUPLICATE"), "{}", dup.to_json());
    assert_eq!(runs.of("send"), 1);
    let counted = tb.faults().record_store;
    let log = log.lock().unwrap();
    assert_eq!(log.len() as u64, counted);
    assert!(log.iter().all(|f| f.kind == FaultKind::RecordStore));
    assert!(log.iter().any(|f| f.detail.contains("connection reset")));
    assert!(log.iter().any(|f| f.detail.contains("store bug")));
}

// ------------------------------------------------------------------ durable idempotency

/// A database path in a fresh directory for one test.
fn temp_db(name: &str) -> PathBuf {
    common::fresh_dir(&format!("faults-{name}")).join("records.db")
}

fn durable_toolbox(path: &PathBuf, runs: &Arc<Runs>) -> Toolbox {
    let approver = fn_approver(|req: &ApprovalRequest| {
        let ok = req.arguments["disk"] != "sdz" && req.arguments["invoice"] != "INV-no";
        std::future::ready(if ok {
            Approval::Approved
        } else {
            Approval::rejected("no")
        })
    });
    Toolbox::builder()
        .tool(delete_disk::tool())
        .tool(send_payment::tool())
        .tool(move_money::tool())
        .tool(create_invoice::tool())
        .shared_context(Arc::clone(runs))
        .approver(approver)
        .record_store(SqliteRecordStore::open(path).unwrap())
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_restart_loses_no_approved_writes_idempotency_record() {
    let path = temp_db("restart");
    let runs = Arc::new(Runs::default());
    let keyed = CallOptions::new().idempotency_key("pay-once-7");
    let (before, paid_op) = {
        let tb = durable_toolbox(&path, &runs);
        let wiped = tb.call("delete_disk", json!({"disk": "sdb"})).await;
        assert_eq!(wiped.status, Status::Ok);
        let paid = tb
            .call_with("create_invoice", json!({"amount": 700}), keyed.clone())
            .await;
        assert_eq!(paid.data, Some(json!(1)));
        let timed_out = tb.call("move_money", json!({"transfer": "T-1"})).await;
        assert_eq!(timed_out.status, Status::Timeout);
        // A write the host dropped while it ran (as a crash would stop it), once it started.
        common::drop_once(tb.call("move_money", json!({"transfer": "T-2"})), || {
            runs.of("transfer") == 2
        })
        .await;
        // Refused approval: the write never ran, so its key is not kept.
        let rejected = tb.call("delete_disk", json!({"disk": "sdz"})).await;
        assert_eq!(rejected.status, Status::CancelledByUser);
        let before = vec![
            tb.call("delete_disk", json!({"disk": "sdb"})).await,
            tb.call_with("create_invoice", json!({"amount": 700}), keyed.clone())
                .await,
            tb.call("move_money", json!({"transfer": "T-1"})).await,
            tb.call("move_money", json!({"transfer": "T-2"})).await,
            tb.call_with("create_invoice", json!({"amount": 800}), keyed.clone())
                .await,
        ];
        (before, paid.operation_id.unwrap())
    };
    let codes: Vec<_> = before.iter().map(|e| e.code.clone().unwrap()).collect();
    assert_eq!(
        codes,
        [
            "DUPLICATE",
            "DUPLICATE",
            "OUTCOME_UNKNOWN",
            "OUTCOME_UNKNOWN",
            "IDEMPOTENCY_KEY_REUSED"
        ]
    );
    assert_eq!(
        before[1].data.as_ref().unwrap()["original_operation_id"],
        json!(paid_op)
    );
    assert_eq!(before[1].data.as_ref().unwrap()["original"], json!(1));
    let ran = |r: &Runs| {
        (
            r.of("wipe"),
            r.of("send"),
            r.of("transfer"),
            r.of("invoice"),
        )
    };
    assert_eq!(ran(&runs), (1, 0, 2, 1));

    // The restart: a new toolbox on the same file answers every repeat exactly as before.
    let tb = durable_toolbox(&path, &runs);
    let after = vec![
        tb.call("delete_disk", json!({"disk": "sdb"})).await,
        tb.call_with("create_invoice", json!({"amount": 700}), keyed.clone())
            .await,
        tb.call("move_money", json!({"transfer": "T-1"})).await,
        tb.call("move_money", json!({"transfer": "T-2"})).await,
        tb.call_with("create_invoice", json!({"amount": 800}), keyed.clone())
            .await,
    ];
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(without_operation_id(a), without_operation_id(b));
    }
    assert_eq!(
        ran(&runs),
        (1, 0, 2, 1),
        "nothing ran again after the restart"
    );
    // A new approved write still runs, once.
    let approved = tb.call("send_payment", json!({"invoice": "INV-9"})).await;
    assert_eq!(approved.status, Status::Ok);
    assert_eq!(ran(&runs), (1, 1, 2, 1));
    println!(
        "durable idempotency: {} repeats after a restart answered as before",
        after.len()
    );
    drop(tb);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[tokio::test]
async fn after_the_window_a_durable_record_no_longer_refuses() {
    let path = temp_db("window");
    let runs = Arc::new(Runs::default());
    let build = || {
        Toolbox::builder()
            .tool(send_payment::tool())
            .shared_context(Arc::clone(&runs))
            .approver(toolsmith::approval::ApproveAll)
            .record_store(SqliteRecordStore::open(&path).unwrap())
            .idempotency_window(Duration::from_millis(1))
            .build()
            .unwrap()
    };
    assert_eq!(
        build()
            .call("send_payment", json!({"invoice": "A"}))
            .await
            .status,
        Status::Ok
    );
    // A repeat is a duplicate until the 1 ms window has passed (asked until the store says so,
    // within 30 s); then it runs.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let again = loop {
        let again = build().call("send_payment", json!({"invoice": "A"})).await;
        if again.code.as_deref() != Some("DUPLICATE") {
            break again;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still a duplicate 30 s later"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert_eq!(again.status, Status::Ok, "{}", again.to_json());
    assert_eq!(runs.of("send"), 2);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// A durable store whose idempotency records cannot be read.
struct UnreadableOutcomes(MemoryRecordStore);

impl RecordStore for UnreadableOutcomes {
    fn put(&self, value: Value) -> String {
        self.0.put(value)
    }
    fn get(&self, reference: &str) -> Option<Value> {
        self.0.get(reference)
    }
    fn keeps_outcomes(&self) -> bool {
        true
    }
    fn get_outcome(&self, _key: &str) -> Result<Option<StoredOutcome>, BackendError> {
        Err(BackendError::new("database is locked"))
    }
}

#[tokio::test]
async fn an_unreadable_durable_store_refuses_a_keyed_write_rather_than_risk_a_second_run() {
    let runs = Arc::new(Runs::default());
    let (log, on_fault) = fault_log();
    let tb = Toolbox::builder()
        .tool(send_payment::tool())
        .shared_context(Arc::clone(&runs))
        .approver(toolsmith::approval::ApproveAll)
        .record_store(UnreadableOutcomes(MemoryRecordStore::default()))
        .on_fault(on_fault)
        .build()
        .unwrap();
    let env = tb.call("send_payment", json!({"invoice": "INV-7"})).await;
    assert_eq!(env.status, Status::TemporaryFailure, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("IDEMPOTENCY_UNAVAILABLE"));
    assert!(env.retry_after.is_some());
    assert_eq!(runs.of("send"), 0);
    assert_eq!(tb.faults().record_store, 1);
    assert!(log.lock().unwrap()[0].detail.contains("database is locked"));
}

#[test]
fn the_sqlite_store_keeps_its_capacity_and_its_outcomes_across_reopening() {
    let path = temp_db("capacity");
    let store = SqliteRecordStore::open(&path).unwrap().with_capacity(2);
    let refs: Vec<String> = (0..3).map(|i| store.put(json!(i))).collect();
    assert_eq!(store.get(&refs[0]), None, "the oldest is evicted");
    assert_eq!(store.get(&refs[2]), Some(json!(2)));
    let kept = StoredOutcome {
        operation_id: "op_1".into(),
        reference: Some(refs[2].clone()),
        unknown: false,
        request: None,
        at_unix_ms: 1,
    };
    store.put_outcome("k", &kept).unwrap();
    drop(store);
    let reopened = SqliteRecordStore::open(&path).unwrap();
    assert!(reopened.keeps_outcomes());
    assert_eq!(reopened.get_outcome("k").unwrap(), Some(kept));
    assert_eq!(reopened.get(&refs[1]), Some(json!(1)));
    reopened.remove_outcome("k").unwrap();
    assert_eq!(reopened.get_outcome("k").unwrap(), None);
    // A file that is not a database is a clear error, not a panic.
    drop(reopened);
    let bogus = path.with_file_name("not-a-db");
    std::fs::write(&bogus, "plain text, not SQLite ".repeat(100)).unwrap();
    let err = SqliteRecordStore::open(&bogus).unwrap_err().to_string();
    assert!(
        err.contains("could not open the SQLite record store"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
