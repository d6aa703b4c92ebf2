//! The execution boundary (issue 4): policy, business authorization, approval, hooks,
//! idempotency, the audit trail, and the declared side effects in specs and exports — all proved
//! through `Toolbox::call`.

use crate::common;

use common::{create_ticket, wire, Runs, SharedStore};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolsmith::approval::{fn_approver, reject_all};
use toolsmith::audit::{AuditEvent, AuditRecord, AuditSink, JsonLinesSink, MemorySink};
use toolsmith::export::{McpVersion, Target};
use toolsmith::{
    model, tool, CallOptions, Effects, Envelope, Status, Tool, ToolError, ToolSpec, Toolbox,
    ToolboxBuilder,
};
use toolsmith::{Approval, ApprovalRequest, Hooks};
use toolsmith::{Caller, Effect, Policy};

/// The signed-in user of this session (the host knows it; the model does not supply it).
struct Session {
    user: String,
}

/// Notes: (id, owner, text).
const NOTES: &[(u32, &str, &str)] = &[(1, "u1", "Buy milk"), (2, "u2", "Plan the offsite")];

/// Reads one of your notes by id. Returns the note's text.
#[tool(read_only)]
fn get_note(
    #[context] runs: &Runs,
    #[context] session: &Session,
    /// The note's id, e.g. 1.
    id: u32,
) -> Result<String, ToolError> {
    runs.bump("get_note");
    // "Not yours" and "does not exist" must be indistinguishable to the model.
    match NOTES
        .iter()
        .find(|(nid, owner, _)| *nid == id && *owner == session.user)
    {
        Some((_, _, text)) => Ok((*text).to_string()),
        None => Err(ToolError::invalid_input(
            "NOTE_NOT_FOUND",
            "No note with this id is visible to you. List your notes to find the right id.",
        )),
    }
}

/// Replaces the text of a note. Returns a confirmation.
#[tool(writes)]
fn update_note(
    #[context] runs: &Runs,
    /// The note's id, e.g. 1.
    id: u32,
    /// The new text of the note.
    text: String,
) -> String {
    runs.bump("update_note");
    format!("Note {id} now has {} characters.", text.chars().count())
}

/// Deletes a note for good. Returns a confirmation.
#[tool(writes, destructive, requires_approval)]
fn delete_note(
    #[context] runs: &Runs,
    /// The note's id, e.g. 1.
    id: u32,
) -> String {
    runs.bump("delete_note");
    format!("Deleted note {id}.")
}

/// A payment receipt.
#[model]
struct Receipt {
    /// The invoice paid, e.g. "INV-7".
    invoice: String,
    /// The amount paid, in cents.
    amount: u32,
    /// The sequence number of the payment.
    number: usize,
}

/// Pays an invoice once. Returns the receipt.
#[tool(writes, idempotent, idempotency_key(invoice))]
async fn send_payment(
    #[context] runs: &Runs,
    /// The invoice to pay, e.g. "INV-7".
    invoice: String,
    /// The amount in cents, e.g. 1250.
    amount: u32,
    /// A note for the payee.
    memo: Option<String>,
) -> Receipt {
    let number = runs.bump("send_payment");
    // Stay in flight long enough for concurrent repeats to arrive while this one runs.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let _ = memo;
    Receipt {
        invoice,
        amount,
        number,
    }
}

/// Runs the nightly job, which is broken. Returns nothing.
#[tool(read_only)]
fn run_broken_job() -> u32 {
    panic!(
        "job crashed in /srv/jobs/nightly.rs with token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
    )
}

/// Builds the quarterly report, which takes long. Returns the report.
#[tool(read_only, timeout_ms = 50)]
async fn get_slow_report() -> String {
    tokio::time::sleep(Duration::from_secs(10)).await;
    "report".to_string()
}

/// Fetches a web page. Returns the page's text.
#[tool(read_only, network, open_world, untrusted_output)]
fn read_web_page(
    /// The page's address, e.g. "https://example.com".
    url: String,
) -> String {
    format!("Text of {url}")
}

fn builder(runs: &Arc<Runs>, user: &str) -> ToolboxBuilder {
    Toolbox::builder()
        .tool(get_note::tool())
        .tool(update_note::tool())
        .tool(delete_note::tool())
        .tool(send_payment::tool())
        .tool(create_ticket::tool())
        .tool(run_broken_job::tool())
        .tool(get_slow_report::tool())
        .tool(read_web_page::tool())
        .shared_context(Arc::clone(runs))
        .context(Session { user: user.into() })
}

// ---------------------------------------------------------------- policy

#[tokio::test]
async fn a_call_beyond_the_policy_is_denied_and_never_runs() {
    let runs = Arc::new(Runs::default());
    let tb = builder(&runs, "u1")
        .policy(Policy::read_only())
        .build()
        .unwrap();
    let env = tb
        .call("update_note", json!({"id": 1, "text": "Buy oat milk"}))
        .await;
    assert_eq!(
        wire(&env),
        json!({
            "status": "denied",
            "code": "POLICY_DENIED",
            "message": "The call to \"update_note\" was refused: this session may not use tools that change data (writes). Retrying will not help; ask the user to grant access.",
            "data": {"tool": "update_note", "reason": "effect", "effect": "writes"},
            "schema_version": "1"
        })
    );
    assert_eq!(runs.of("update_note"), 0);

    // The most consequential effect is the one reported.
    let env = tb.call("delete_note", json!({"id": 1})).await;
    assert_eq!(
        env.message.as_deref(),
        Some("The call to \"delete_note\" was refused: this session may not use tools that delete data (destructive). Retrying will not help; ask the user to grant access.")
    );
    assert_eq!(runs.of("delete_note"), 0);

    // Reads stay allowed.
    let env = tb.call("get_note", json!({"id": 1})).await;
    assert_eq!(env.status, Status::Ok);
    assert_eq!(runs.of("get_note"), 1);
}

#[tokio::test]
async fn a_tool_can_be_denied_by_name() {
    let runs = Arc::new(Runs::default());
    let tb = builder(&runs, "u1")
        .policy(Policy::allow_all().deny_tool("get_note"))
        .build()
        .unwrap();
    let env = tb.call("get_note", json!({"id": 1})).await;
    assert_eq!(
        wire(&env),
        json!({
            "status": "denied",
            "code": "POLICY_DENIED",
            "message": "The call to \"get_note\" was refused: this tool is blocked for this session. Retrying will not help; ask the user to grant access.",
            "data": {"tool": "get_note", "reason": "tool_denied"},
            "schema_version": "1"
        })
    );
    assert_eq!(runs.of("get_note"), 0);
    // Other tools are unaffected.
    let env = tb.call("create_ticket", json!({"title": "Printer"})).await;
    assert_eq!(env.status, Status::Ok);
}

#[tokio::test]
async fn the_callers_role_can_be_granted_what_the_session_denies() {
    let runs = Arc::new(Runs::default());
    let tb = builder(&runs, "u1")
        .policy(
            Policy::read_only()
                .grant_role("editor", [Effect::Writes])
                .require_identity(),
        )
        .build()
        .unwrap();
    let args = json!({"id": 1, "text": "Buy oat milk"});

    let editor = Caller::new("u1").with_role("editor");
    let env = tb.call_as(&editor, "update_note", args.clone()).await;
    assert_eq!(env.status, Status::Ok, "{env:?}");
    assert_eq!(runs.of("update_note"), 1);

    let viewer = Caller::new("u2").with_role("viewer");
    let env = tb.call_as(&viewer, "update_note", args.clone()).await;
    assert_eq!(env.status, Status::Denied);
    assert_eq!(
        env.data,
        Some(json!({"tool": "update_note", "reason": "effect", "effect": "writes"}))
    );

    // The grant covers writes only: deleting stays denied even for an editor.
    let env = tb.call_as(&editor, "delete_note", json!({"id": 1})).await;
    assert_eq!(env.status, Status::Denied);
    assert_eq!(env.data.as_ref().unwrap()["effect"], "destructive");

    // Anonymous callers are refused outright.
    let env = tb.call("get_note", json!({"id": 1})).await;
    assert_eq!(
        env.message.as_deref(),
        Some("The call to \"get_note\" was refused: this tool requires a signed-in caller. Retrying will not help; ask the user to grant access.")
    );
    assert_eq!(runs.of("update_note"), 1);
    assert_eq!(runs.of("delete_note"), 0);
    assert_eq!(runs.of("get_note"), 0);
}

// ---------------------------------------------------------------- business authorization

#[tokio::test]
async fn not_yours_and_does_not_exist_look_the_same() {
    let runs = Arc::new(Runs::default());
    let tb = builder(&runs, "u1").build().unwrap();
    let mine = tb.call("get_note", json!({"id": 1})).await;
    assert_eq!(mine.data, Some(json!("Buy milk")));
    let not_mine = wire(&tb.call("get_note", json!({"id": 2})).await);
    let missing = wire(&tb.call("get_note", json!({"id": 99})).await);
    assert_eq!(not_mine, missing);
    assert_eq!(
        not_mine,
        json!({
            "status": "invalid_input",
            "code": "NOTE_NOT_FOUND",
            "message": "No note with this id is visible to you. List your notes to find the right id.",
            "schema_version": "1"
        })
    );
    // The note of u2 is readable in u2's session.
    let runs2 = Arc::new(Runs::default());
    let tb2 = builder(&runs2, "u2").build().unwrap();
    let env = tb2.call("get_note", json!({"id": 2})).await;
    assert_eq!(env.data, Some(json!("Plan the offsite")));
}

// ---------------------------------------------------------------- approval and hooks

type Seen = Arc<Mutex<Vec<ApprovalRequest>>>;

/// Approves deleting note 1, rejects anything else; records every request.
fn recording_approver(
    seen: &Seen,
) -> impl Fn(&ApprovalRequest) -> std::future::Ready<Approval> + Send + Sync {
    let seen = Arc::clone(seen);
    move |req: &ApprovalRequest| {
        seen.lock().unwrap().push(req.clone());
        std::future::ready(if req.arguments["id"] == 1 {
            Approval::Approved
        } else {
            Approval::rejected("that note is still needed")
        })
    }
}

#[tokio::test]
async fn approval_runs_rejects_and_shows_the_exact_arguments() {
    let runs = Arc::new(Runs::default());
    let seen: Seen = Arc::default();
    let tb = builder(&runs, "u1")
        .approver(fn_approver(recording_approver(&seen)))
        .build()
        .unwrap();

    let env = tb
        .call_as(&Caller::new("u1"), "delete_note", r#"{"id": 1}"#)
        .await;
    assert_eq!(
        wire(&env),
        json!({"status": "ok", "data": "Deleted note 1.", "schema_version": "1"})
    );
    assert_eq!(runs.of("delete_note"), 1);

    let env = tb.call("delete_note", json!({"id": 2})).await;
    assert_eq!(
        wire(&env),
        json!({
            "status": "cancelled_by_user",
            "code": "CANCELLED_BY_USER",
            "message": "The user declined the call to \"delete_note\" (reason: that note is still needed). It did not run. Do not retry unless the user asks.",
            "schema_version": "1"
        })
    );
    assert_eq!(runs.of("delete_note"), 1);

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].tool, "delete_note");
    assert_eq!(seen[0].arguments, json!({"id": 1}));
    assert_eq!(seen[0].caller, Caller::new("u1"));
    assert_eq!(
        seen[0].effects,
        Effects::none()
            .with_writes(true)
            .with_destructive(true)
            .with_requires_approval(true)
    );
    assert_eq!(
        seen[0].summary,
        "Call delete_note (writes, destructive, requires_approval) with id=1"
    );
    assert_eq!(seen[1].arguments, json!({"id": 2}));
    // Tools that need no approval never reach the approver.
    let env = tb.call("get_note", json!({"id": 1})).await;
    assert_eq!(env.status, Status::Ok);
}

#[tokio::test]
async fn without_an_approver_approval_tools_are_denied() {
    let runs = Arc::new(Runs::default());
    let tb = builder(&runs, "u1").build().unwrap();
    let env = tb.call("delete_note", json!({"id": 1})).await;
    assert_eq!(
        wire(&env),
        json!({
            "status": "denied",
            "code": "APPROVAL_UNAVAILABLE",
            "message": "The call to \"delete_note\" needs a person's approval, and no one can approve it here. It did not run; retrying will not help. Tell the user it needs approval.",
            "schema_version": "1"
        })
    );
    assert_eq!(runs.of("delete_note"), 0);
}

type Log = Arc<Mutex<Vec<String>>>;

#[tokio::test]
async fn hooks_observe_every_call_and_cannot_change_its_outcome() {
    let runs = Arc::new(Runs::default());
    let log: Log = Arc::default();
    let after_ids: Log = Arc::default();
    let (before_log, after_log, ids) = (log.clone(), log.clone(), after_ids.clone());
    let hooks = Hooks::new()
        .before(move |call| {
            before_log
                .lock()
                .unwrap()
                .push(format!("before {} {}", call.tool, call.arguments));
            if call.arguments["title"] == "blocked" {
                return Err(ToolError::denied(
                    "HOOK_BLOCKED",
                    "The host blocks this title. Retrying will not help.",
                ));
            }
            Ok(())
        })
        .after(move |call, env| {
            after_log.lock().unwrap().push(format!(
                "after {} {} {}",
                call.tool,
                env.status,
                env.data.as_ref().map_or(String::new(), Value::to_string)
            ));
            ids.lock().unwrap().push(call.operation_id.to_string());
            // Try to turn the outcome around: status and code are restored, the note stays.
            env.status = Status::Failed;
            env.code = Some("HIJACKED".into());
            env.note = Some("Checked by the host.".into());
        });
    let tb = builder(&runs, "u1")
        .hooks(hooks)
        .approver(fn_approver(recording_approver(&Seen::default())))
        .build()
        .unwrap();

    let ok = tb.call("create_ticket", json!({"title": "Printer"})).await;
    assert_eq!(
        wire(&ok),
        json!({"status": "ok", "data": 1, "note": "Checked by the host.", "schema_version": "1"})
    );
    let refused = tb.call("get_note", json!({"id": 2})).await;
    assert_eq!(refused.status, Status::InvalidInput);
    assert_eq!(refused.code.as_deref(), Some("NOTE_NOT_FOUND"));
    let cancelled = tb.call("delete_note", json!({"id": 2})).await;
    assert_eq!(cancelled.status, Status::CancelledByUser);
    let blocked = tb.call("create_ticket", json!({"title": "blocked"})).await;
    assert_eq!(
        wire(&blocked),
        json!({
            "status": "denied",
            "code": "HOOK_BLOCKED",
            "message": "The host blocks this title. Retrying will not help.",
            "schema_version": "1"
        })
    );
    assert_eq!(runs.of("create_ticket"), 1);

    assert_eq!(
        *log.lock().unwrap(),
        vec![
            r#"before create_ticket {"title":"Printer"}"#,
            r#"after create_ticket ok 1"#,
            r#"before get_note {"id":2}"#,
            r#"after get_note invalid_input "#,
            r#"before delete_note {"id":2}"#,
            r#"after delete_note cancelled_by_user "#,
            r#"before create_ticket {"title":"blocked"}"#,
        ]
    );
    // The after-hook saw the same operation as the caller got back.
    assert_eq!(
        *after_ids.lock().unwrap(),
        vec![
            ok.operation_id.clone().unwrap(),
            refused.operation_id.clone().unwrap(),
            cancelled.operation_id.clone().unwrap(),
        ]
    );
}

// ---------------------------------------------------------------- idempotency

#[tokio::test]
async fn a_repeated_write_is_refused_as_a_duplicate_naming_the_original() {
    let runs = Arc::new(Runs::default());
    let tb = builder(&runs, "u1").build().unwrap();
    let first = tb
        .call(
            "send_payment",
            json!({"invoice": "INV-7", "amount": 1250, "memo": "March"}),
        )
        .await;
    assert_eq!(first.status, Status::Ok);
    let receipt = json!({"invoice": "INV-7", "amount": 1250, "number": 1});
    assert_eq!(first.data, Some(receipt.clone()));
    let original_op = first.operation_id.clone().unwrap();
    let reference = first.reference.clone().expect("the result is kept");

    // Same invoice (the identifying argument), different memo: a repeat.
    let again = tb
        .call(
            "send_payment",
            json!({"invoice": "INV-7", "amount": 1250, "memo": "again"}),
        )
        .await;
    assert_eq!(
        wire(&again),
        json!({
            "status": "refused",
            "code": "DUPLICATE",
            "message": format!(
                "This call to \"send_payment\" repeats operation {original_op} with the same identifying arguments, which already completed within the last hour; it was not run again. Its result is kept as ref \"{reference}\". Use the earlier result. If the user wants it done a second time, ask them to confirm, then change the arguments."
            ),
            "data": {"original_operation_id": original_op, "ref": reference, "original": receipt},
            "ref": reference,
            "schema_version": "1"
        })
    );
    assert_eq!(runs.of("send_payment"), 1);

    // Another invoice is another operation.
    let other = tb
        .call("send_payment", json!({"invoice": "INV-8", "amount": 10}))
        .await;
    assert_eq!(other.status, Status::Ok);
    assert_eq!(runs.of("send_payment"), 2);
}

#[tokio::test]
async fn an_explicit_idempotency_key_gates_a_tool_without_declared_keys() {
    let runs = Arc::new(Runs::default());
    let tb = builder(&runs, "u1").build().unwrap();
    let args = json!({"title": "Printer on fire"});
    let first = tb
        .call_with(
            "create_ticket",
            args.clone(),
            CallOptions::new().idempotency_key("k"),
        )
        .await;
    assert_eq!(first.data, Some(json!(1)));
    let again = tb
        .call_with(
            "create_ticket",
            args.clone(),
            CallOptions::new().idempotency_key("k"),
        )
        .await;
    assert_eq!(again.status, Status::Refused);
    assert_eq!(again.code.as_deref(), Some("DUPLICATE"));
    let data = again.data.unwrap();
    assert_eq!(data["original_operation_id"], json!(first.operation_id));
    assert_eq!(data["original"], json!(1));
    assert_eq!(runs.of("create_ticket"), 1);

    // Another key, or no key, runs again.
    let other = tb
        .call_with(
            "create_ticket",
            args.clone(),
            CallOptions::new().idempotency_key("k2"),
        )
        .await;
    assert_eq!(other.data, Some(json!(2)));
    let unkeyed = tb.call("create_ticket", args).await;
    assert_eq!(unkeyed.data, Some(json!(3)));
    assert_eq!(runs.of("create_ticket"), 3);
}

/// Creates many accounts at once. Returns the new accounts' keys.
#[tool(writes, idempotency_key(batch))]
fn create_accounts(
    /// The batch's name, e.g. "march".
    batch: String,
) -> Vec<String> {
    let _ = batch;
    (0..200)
        .map(|i| format!("account {i:03} key ghp_{i:03}456789abcdefghijklmnopqrstuvwxyzABC"))
        .collect()
}

#[tokio::test]
async fn results_kept_for_duplicates_are_redacted() {
    use toolsmith::budget::RecordStore;
    let store = Arc::new(toolsmith::budget::MemoryRecordStore::default());
    let tb = Toolbox::builder()
        .tool(create_accounts::tool())
        .record_store(SharedStore(store.clone()))
        .build()
        .unwrap();
    let first = tb.call("create_accounts", json!({"batch": "march"})).await;
    assert_eq!(first.status, Status::Ok);
    assert!(first.truncated);
    let again = tb.call("create_accounts", json!({"batch": "march"})).await;
    assert_eq!(again.code.as_deref(), Some("DUPLICATE"));
    // Every record kept for these calls is redacted, like the envelopes.
    for reference in [first.reference.unwrap(), again.reference.unwrap()] {
        let kept = store.get(&reference).unwrap();
        assert_eq!(kept.as_array().unwrap().len(), 200);
        let kept = kept.to_string();
        assert!(!kept.contains("ghp_"), "the record store holds a secret");
        assert!(kept.contains("[REDACTED:github_token]"));
    }
}

#[tokio::test]
async fn a_duplicate_of_a_large_result_stays_within_the_budget() {
    let tb = Toolbox::builder()
        .tool(create_accounts::tool())
        .build()
        .unwrap();
    let first = tb.call("create_accounts", json!({"batch": "march"})).await;
    assert!(first.truncated);
    let again = tb.call("create_accounts", json!({"batch": "march"})).await;
    assert_eq!(again.code.as_deref(), Some("DUPLICATE"));
    let data = again.data.as_ref().unwrap();
    assert!(
        data.get("original").is_none(),
        "an original over the budget is left out: {} characters",
        again.to_json().chars().count()
    );
    assert_eq!(data["ref"], json!(again.reference));
    assert!(again.reference.is_some());
    // A small original is still carried (see a_repeated_write_is_refused_as_a_duplicate_naming_the_original).
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_concurrent_identical_writes_run_once() {
    let runs = Arc::new(Runs::default());
    let tb = Arc::new(builder(&runs, "u1").build().unwrap());
    let handles: Vec<_> = (0..1000)
        .map(|_| {
            let tb = Arc::clone(&tb);
            tokio::spawn(async move {
                tb.call("send_payment", json!({"invoice": "INV-9", "amount": 500}))
                    .await
            })
        })
        .collect();
    let mut envs = Vec::new();
    for h in handles {
        envs.push(h.await.unwrap());
    }
    assert_eq!(runs.of("send_payment"), 1);
    let ok: Vec<&Envelope> = envs.iter().filter(|e| e.status == Status::Ok).collect();
    assert_eq!(ok.len(), 1);
    let original = ok[0].operation_id.clone().unwrap();
    // A repeat that arrives while the first runs is refused as IN_PROGRESS (it no longer waits,
    // so no call hangs behind another's); one that arrives after it is a DUPLICATE. Both name
    // the original.
    for e in envs.iter().filter(|e| e.status != Status::Ok) {
        assert_eq!(e.status, Status::Refused);
        assert!(
            matches!(e.code.as_deref(), Some("DUPLICATE" | "IN_PROGRESS")),
            "{}",
            e.to_json()
        );
        assert_eq!(
            e.data.as_ref().unwrap()["original_operation_id"],
            json!(original)
        );
    }
}

// ---------------------------------------------------------------- audit

/// Sends every record to two sinks.
struct Tee(Arc<MemorySink>, Arc<JsonLinesSink>);

impl AuditSink for Tee {
    fn record(&self, rec: &AuditRecord) {
        self.0.record(rec);
        self.1.record(rec);
    }
}

fn temp_path(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[tokio::test]
async fn every_call_and_registration_leaves_one_audit_record_without_secrets() {
    let runs = Arc::new(Runs::default());
    let memory = Arc::new(MemorySink::new());
    let path = temp_path("audit");
    let file = Arc::new(JsonLinesSink::open(&path).unwrap());
    let tb = builder(&runs, "u1")
        .policy(Policy::allow_all().deny_tool("read_web_page"))
        .shared_approver(reject_all())
        .shared_audit(Arc::new(Tee(memory.clone(), file.clone())))
        .build()
        .unwrap();
    let names = tb.names();
    let specs = tb.specs();
    let spec_of = |name: &str| specs.iter().find(|s| s.name == name).unwrap().clone();
    let secret = "ghp_S3cretS3cretS3cretS3cretS3cretS3cr3t";
    let u1 = Caller::new("u1");

    let mut calls: Vec<(Envelope, &str, Status)> = Vec::new();
    for (tool, args, status) in [
        ("get_note", json!({"id": 1}), Status::Ok),
        ("get_note", json!({"id": "one"}), Status::InvalidInput),
        (
            "read_web_page",
            json!({"url": "https://example.com"}),
            Status::Denied,
        ),
        ("delete_note", json!({"id": 1}), Status::CancelledByUser),
        (
            "send_payment",
            json!({"invoice": "INV-1", "amount": 5}),
            Status::Ok,
        ),
        (
            "send_payment",
            json!({"invoice": "INV-1", "amount": 5}),
            Status::Refused,
        ),
        ("run_broken_job", json!({}), Status::Failed),
        ("get_slow_report", json!({}), Status::Timeout),
        ("book_flight", json!({"to": "Oslo"}), Status::InvalidInput),
        (
            "update_note",
            json!({"id": 1, "text": format!("my key is {secret}")}),
            Status::Ok,
        ),
    ] {
        let env = tb.call_as(&u1, tool, args).await;
        assert_eq!(env.status, status, "{tool}: {env:?}");
        calls.push((env, tool, status));
    }
    tb.deregister("get_slow_report").unwrap();

    let records = memory.records();
    // Registrations first, one per tool in order.
    let registered: Vec<&AuditRecord> = records
        .iter()
        .filter(|r| r.event == AuditEvent::Register)
        .collect();
    assert_eq!(
        registered
            .iter()
            .map(|r| r.tool.as_str())
            .collect::<Vec<_>>(),
        names
    );
    for r in &registered {
        let spec = spec_of(&r.tool);
        assert_eq!(r.fingerprint, spec.fingerprint());
        assert_eq!(r.version, spec.version);
        assert!(r.status.is_none() && r.args_digest.is_none());
    }
    // Then one record per call, in order, sharing the envelope's operation id.
    let call_records: Vec<&AuditRecord> = records
        .iter()
        .filter(|r| r.event == AuditEvent::Call)
        .collect();
    assert_eq!(call_records.len(), calls.len());
    for (rec, (env, tool, status)) in call_records.iter().zip(&calls) {
        assert_eq!(rec.tool, *tool);
        assert_eq!(Some(&rec.operation_id), env.operation_id.as_ref());
        assert_eq!(rec.status, Some(*status));
        assert_eq!(rec.code, env.code);
        assert_eq!(rec.caller.as_deref(), Some("u1"));
        assert!(rec.duration_ms.is_some());
        if *tool == "book_flight" {
            assert_eq!(rec.code.as_deref(), Some("UNKNOWN_TOOL"));
            assert_eq!(rec.fingerprint, "");
        } else {
            assert_eq!(rec.fingerprint, spec_of(tool).fingerprint());
            assert_eq!(rec.args_digest.as_ref().map(String::len), Some(16));
        }
    }
    // The panic's text is in the audit detail (for the host), not in the envelope.
    let panic_rec = call_records[6];
    let detail = panic_rec.detail.as_deref().unwrap();
    assert_eq!(
        detail,
        "panic: job crashed in /srv/jobs/nightly.rs with token [REDACTED:github_token]"
    );
    let panic_env = &calls[6].0;
    assert_eq!(panic_env.code.as_deref(), Some("INTERNAL"));
    assert!(!panic_env.to_json().contains("crashed") && !panic_env.to_json().contains("/srv"));
    // The last record is the deregistration.
    let last = records.last().unwrap();
    assert_eq!(last.event, AuditEvent::Deregister);
    assert_eq!(last.tool, "get_slow_report");
    assert_eq!(
        last.fingerprint,
        get_slow_report::tool().spec().fingerprint()
    );
    assert_eq!(records.len(), names.len() + calls.len() + 1);

    // The JSON Lines file holds the same records, and no argument values or secrets.
    let from_file = JsonLinesSink::read_all(&path).unwrap();
    assert_eq!(from_file, records);
    assert_eq!(file.errors(), 0);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), records.len());
    for needle in [
        secret,
        "my key is",
        "INV-1",
        "https://example.com",
        "Oslo",
        "ghp_",
    ] {
        assert!(!text.contains(needle), "the audit file contains {needle:?}");
    }
    let _ = std::fs::remove_file(&path);
}

fn hand_spec(description: &str, version: &str) -> ToolSpec {
    common::spec(
        "get_weather",
        description,
        json!({
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city, e.g. \"Oslo\"."}},
            "required": ["city"],
            "additionalProperties": false
        }),
        common::read_only(),
    )
    .with_version(version)
}

/// The fingerprint an audit trail records for a toolbox holding `spec`.
async fn audited_fingerprint(spec: ToolSpec) -> (String, String) {
    let sink = Arc::new(MemorySink::new());
    let tool = Tool::from_fn(spec, |_, args| {
        Box::pin(async move { Ok(json!(format!("Sunny in {}", args["city"]))) })
    });
    let tb = Toolbox::builder()
        .tool(tool)
        .shared_audit(sink.clone())
        .build()
        .unwrap();
    let env = tb.call("get_weather", json!({"city": "Oslo"})).await;
    assert_eq!(env.status, Status::Ok);
    let records = sink.records();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].fingerprint, records[1].fingerprint);
    (records[1].fingerprint.clone(), records[1].version.clone())
}

#[tokio::test]
async fn fingerprints_change_with_agent_facing_text_only() {
    let text = "Looks up the weather. Returns today's forecast.";
    let (v1, version1) = audited_fingerprint(hand_spec(text, "1.0.0")).await;
    let (v2, version2) = audited_fingerprint(hand_spec(text, "2.0.0")).await;
    assert_eq!(
        v1, v2,
        "a new implementation version is not a new description"
    );
    assert_eq!((version1.as_str(), version2.as_str()), ("1.0.0", "2.0.0"));
    let (v3, _) = audited_fingerprint(hand_spec(
        "Looks up the weather. Returns today's forecast in Celsius.",
        "1.0.0",
    ))
    .await;
    assert_ne!(v1, v3, "a changed description is a new description version");
    assert_eq!(v1, hand_spec(text, "9.9.9").fingerprint());
}

// ---------------------------------------------------------------- effects in specs and exports

#[test]
fn specs_and_exports_show_the_declared_effects() {
    let runs = Arc::new(Runs::default());
    let tb = builder(&runs, "u1").build().unwrap();
    let effects = |name: &str| tb.spec(name).unwrap().effects;
    assert_eq!(effects("get_note"), Effects::none().with_read_only(true));
    assert_eq!(
        effects("delete_note"),
        Effects::none()
            .with_writes(true)
            .with_destructive(true)
            .with_requires_approval(true)
    );
    assert_eq!(
        effects("send_payment"),
        Effects::none().with_writes(true).with_idempotent(true)
    );
    assert_eq!(
        effects("read_web_page"),
        Effects::none()
            .with_read_only(true)
            .with_network(true)
            .with_open_world(true)
            .with_untrusted_output(true)
    );
    assert_eq!(tb.spec("get_slow_report").unwrap().timeout_ms, Some(50));
    // The spec's JSON carries them too.
    let spec_json = serde_json::to_value(tb.spec("delete_note").unwrap()).unwrap();
    assert_eq!(spec_json["effects"]["requiresApproval"], true);

    let mcp = tb.export(Target::Mcp(McpVersion::V2025_11_25)).unwrap();
    let mcp_ann = |name: &str| {
        mcp["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} not exported"))["annotations"]
            .clone()
    };
    assert_eq!(
        mcp_ann("get_note"),
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(
        mcp_ann("delete_note"),
        json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false})
    );
    assert_eq!(
        mcp_ann("send_payment"),
        json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(
        mcp_ann("read_web_page"),
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true})
    );

    let web = tb.export(Target::WebMcp).unwrap();
    let web_ann = |name: &str| {
        web.as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} not exported"))["annotations"]
            .clone()
    };
    assert_eq!(
        web_ann("get_note"),
        json!({"readOnlyHint": true, "untrustedContentHint": false, "consequentialHint": false})
    );
    assert_eq!(
        web_ann("delete_note"),
        json!({"readOnlyHint": false, "untrustedContentHint": false, "consequentialHint": true})
    );
    assert_eq!(
        web_ann("send_payment"),
        json!({"readOnlyHint": false, "untrustedContentHint": false, "consequentialHint": true})
    );
    assert_eq!(
        web_ann("read_web_page"),
        json!({"readOnlyHint": true, "untrustedContentHint": true, "consequentialHint": false})
    );
}
