//! The security suite (issue 12): each test plays one attack a hostile caller (or a hostile model,
//! or third-party text) can make through the documented API, and checks that the boundary holds.
//!
//! One test per item of the issue, in its order: idempotency scoped to caller and tool; no second
//! run after an unknown outcome; cursors and references that cannot be forged; page fetches that
//! never re-run a write; approval of exactly what runs; timeouts that hold for blocking code; an
//! audit record for every call, with a keyed digest; authorization before any work; redaction and
//! bounds on every channel; and the smaller gaps (tool lists, anonymous ids, run-time tools).

use crate::common;

use common::{create_ticket, Runs, SharedStore};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolsmith::approval::{fn_approver, CallInfo};
use toolsmith::audit::{args_digest, MemorySink};
use toolsmith::budget::{encode_cursor, page_digest};
use toolsmith::budget::{MemoryRecordStore, RecordStore};
use toolsmith::{tool, CallOptions, Effects, Envelope, Status, Tool, ToolError, Toolbox};
use toolsmith::{Approval, ApprovalRequest, Hooks};
use toolsmith::{Caller, Policy};

/// Released by the test to let a running `book_room` finish.
#[derive(Default)]
struct Gate(tokio::sync::Notify);

// ------------------------------------------------------------------------------- 1. idempotency

/// Opens a support case about a subject. Returns the case number.
#[tool(writes, idempotency_key(subject))]
fn open_case(
    #[context] runs: &Runs,
    /// What the case is about, e.g. "Invoice 7 is wrong".
    subject: String,
) -> usize {
    let _ = subject;
    runs.bump("open_case")
}

#[tokio::test]
async fn idempotency_is_scoped_to_the_caller_and_a_reused_key_with_other_arguments_is_refused() {
    let runs = Arc::new(Runs::default());
    let tb = Toolbox::builder()
        .tool(open_case::tool())
        .tool(create_ticket::tool())
        .shared_context(Arc::clone(&runs))
        .build()
        .unwrap();
    let (alice, bob) = (Caller::new("alice"), Caller::new("bob"));
    let args = json!({"subject": "Salary of Alice"});
    let a = tb.call_as(&alice, "open_case", args.clone()).await;
    assert_eq!(a.data, Some(json!(1)));

    // Bob sends the same identifying arguments: his own request runs, and he never sees Alice's.
    let b = tb.call_as(&bob, "open_case", args.clone()).await;
    assert_eq!(b.status, Status::Ok, "{}", b.to_json());
    assert_eq!(b.data, Some(json!(2)));
    assert!(!b.to_json().contains(a.operation_id.as_deref().unwrap()));
    assert_eq!(runs.of("open_case"), 2);
    // Alice's own repeat is still a duplicate.
    let again = tb.call_as(&alice, "open_case", args).await;
    assert_eq!(again.code.as_deref(), Some("DUPLICATE"));

    // An explicit key reused with other arguments is an error, never the first result.
    let keyed = |who: &Caller| {
        CallOptions::new()
            .caller(who.clone())
            .idempotency_key("k-1")
    };
    let first = tb
        .call_with(
            "create_ticket",
            json!({"title": "Refund 10"}),
            keyed(&alice),
        )
        .await;
    assert_eq!(first.data, Some(json!(1)));
    let reused = tb
        .call_with(
            "create_ticket",
            json!({"title": "Refund 9000"}),
            keyed(&alice),
        )
        .await;
    assert_eq!(reused.status, Status::InvalidInput, "{}", reused.to_json());
    assert_eq!(reused.code.as_deref(), Some("IDEMPOTENCY_KEY_REUSED"));
    assert!(reused.data.is_none() && reused.reference.is_none());
    assert!(reused
        .message
        .as_deref()
        .unwrap()
        .contains("new idempotency key"));
    // The same key from another caller is another request.
    let other = tb
        .call_with("create_ticket", json!({"title": "Refund 10"}), keyed(&bob))
        .await;
    assert_eq!(other.data, Some(json!(2)));
    assert_eq!(runs.of("create_ticket"), 2);
}

// ------------------------------------------------------------------------ 2. unknown outcomes

/// Moves money between accounts. Returns the transfer id.
#[tool(writes, idempotency_key(transfer), timeout_ms = 50)]
async fn transfer_funds(
    #[context] runs: &Runs,
    /// The transfer's own id, e.g. "T-1".
    transfer: String,
    /// The amount in cents, e.g. 500.
    amount: u32,
) -> String {
    let _ = amount;
    runs.bump("transfer_funds");
    // The money has moved; the confirmation from the bank never comes back in time.
    tokio::time::sleep(Duration::from_secs(30)).await;
    transfer
}

/// Books a meeting room. Returns the booking.
#[tool(writes, idempotency_key(room))]
async fn book_room(
    #[context] runs: &Runs,
    #[context] gate: &Gate,
    /// The room, e.g. "Fjord".
    room: String,
) -> String {
    runs.bump("book_room");
    gate.0.notified().await;
    format!("booked {room}")
}

/// Charges a card. Returns the charge id.
#[tool(writes, idempotency_key(order))]
fn pay_order(
    #[context] runs: &Runs,
    /// The order, e.g. "O-1".
    order: String,
) -> Result<String, ToolError> {
    let _ = order;
    runs.bump("pay_order");
    Err(ToolError::failed(
        "GATEWAY_ERROR",
        "The card gateway answered with an error after taking the charge.",
    ))
}

/// Wipes a disk after a person approves. Returns a confirmation.
#[tool(writes, destructive, requires_approval, idempotency_key(disk))]
fn delete_disk(
    #[context] runs: &Runs,
    /// The disk, e.g. "sdb".
    disk: String,
) -> String {
    runs.bump("delete_disk");
    format!("wiped {disk}")
}

#[tokio::test]
async fn a_retry_after_an_unknown_outcome_does_not_run_twice() {
    let runs = Arc::new(Runs::default());
    let gate = Arc::new(Gate::default());
    let answers = Arc::new(Mutex::new(vec![
        Approval::Approved,
        Approval::rejected("not yet"),
    ]));
    let approver = {
        let answers = Arc::clone(&answers);
        fn_approver(move |_req: &ApprovalRequest| {
            let a = answers.lock().unwrap().pop().unwrap_or(Approval::Approved);
            std::future::ready(a)
        })
    };
    let tb = Arc::new(
        Toolbox::builder()
            .tool(transfer_funds::tool())
            .tool(book_room::tool())
            .tool(pay_order::tool())
            .tool(delete_disk::tool())
            .shared_context(Arc::clone(&runs))
            .shared_context(Arc::clone(&gate))
            .approver(approver)
            .build()
            .unwrap(),
    );

    // A timed-out write: its outcome is unknown, so a retry is refused for the window.
    let args = json!({"transfer": "T-1", "amount": 90000});
    let first = tb.call("transfer_funds", args.clone()).await;
    assert_eq!(first.status, Status::Timeout);
    let retry = tb.call("transfer_funds", args.clone()).await;
    let message = common::assert_outcome(&retry, Status::Refused, "OUTCOME_UNKNOWN");
    assert!(
        message.contains("check") && message.contains("ask the user"),
        "{message}"
    );
    assert_eq!(runs.of("transfer_funds"), 1);

    // A dropped call of a write (dropped once the tool has started): the same.
    common::drop_once(
        tb.call("transfer_funds", json!({"transfer": "T-2", "amount": 1})),
        || runs.of("transfer_funds") == 2,
    )
    .await;
    let retry = tb
        .call("transfer_funds", json!({"transfer": "T-2", "amount": 1}))
        .await;
    assert_eq!(retry.code.as_deref(), Some("OUTCOME_UNKNOWN"));
    assert_eq!(runs.of("transfer_funds"), 2);

    // While the first attempt runs, a repeat is refused as in progress, with a retry_after.
    let running = {
        let tb = Arc::clone(&tb);
        tokio::spawn(async move { tb.call("book_room", json!({"room": "Fjord"})).await })
    };
    for _ in 0..10_000 {
        if runs.of("book_room") == 1 {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert_eq!(runs.of("book_room"), 1);
    let repeat = tokio::time::timeout(
        Duration::from_secs(10),
        tb.call("book_room", json!({"room": "Fjord"})),
    )
    .await
    .expect("a repeat of a running call answers at once instead of waiting");
    assert_eq!(repeat.status, Status::Refused);
    assert_eq!(repeat.code.as_deref(), Some("IN_PROGRESS"));
    assert!(repeat.retry_after.is_some());
    gate.0.notify_one();
    assert_eq!(running.await.unwrap().status, Status::Ok);
    assert_eq!(runs.of("book_room"), 1);

    // A failure the tool returned (it may have done part of the work) is kept: the repeat is a
    // duplicate. (An answer that says it did nothing releases the key: runtime_idempotency.rs.)
    let failed = tb.call("pay_order", json!({"order": "O-1"})).await;
    assert_eq!(failed.code.as_deref(), Some("GATEWAY_ERROR"));
    let again = tb.call("pay_order", json!({"order": "O-1"})).await;
    assert_eq!(
        again.code.as_deref(),
        Some("DUPLICATE"),
        "{}",
        again.to_json()
    );
    // The duplicate says what the original outcome was.
    let original = &again.data.as_ref().unwrap()["original"];
    assert_eq!(original["code"], json!("GATEWAY_ERROR"));
    assert_eq!(runs.of("pay_order"), 1);

    // Approval refused: the tool never ran, so the key is released and the retry is asked again.
    let refused = tb.call("delete_disk", json!({"disk": "sdb"})).await;
    assert_eq!(refused.status, Status::CancelledByUser);
    let approved = tb.call("delete_disk", json!({"disk": "sdb"})).await;
    assert_eq!(approved.status, Status::Ok, "{}", approved.to_json());
    assert_eq!(runs.of("delete_disk"), 1);
}

// ------------------------------------------------------------------ 3. forged cursors and refs

/// Lists the payroll. Returns the rows.
#[tool(read_only)]
fn list_payroll(
    /// The cursor from the previous page; leave it out for the first page.
    cursor: Option<String>,
) -> Vec<String> {
    let _ = cursor;
    (0..300)
        .map(|i| format!("employee {i:03}: salary 9{i:03}00"))
        .collect()
}

/// Lists the public notices. Returns the notices.
#[tool(read_only)]
fn list_notices(
    /// The cursor from the previous page; leave it out for the first page.
    cursor: Option<String>,
) -> Vec<String> {
    let _ = cursor;
    (0..300).map(|i| format!("notice {i:03}")).collect()
}

#[tokio::test]
async fn cursors_and_references_cannot_be_forged_or_moved_between_tools() {
    let store = Arc::new(MemoryRecordStore::default());
    let tb = Toolbox::builder()
        .tool(list_payroll::tool())
        .tool(list_notices::tool())
        .policy(Policy::allow_all().require_scope("list_payroll", "payroll:read"))
        .record_store(SharedStore(Arc::clone(&store)))
        .build()
        .unwrap();
    let hr = Caller::new("hr").with_scope("payroll:read");
    let eve = Caller::new("eve");
    let payroll = tb.call_as(&hr, "list_payroll", json!({})).await;
    assert!(payroll.truncated);
    let payroll_ref = payroll.reference.clone().unwrap();

    // Eve may not list the payroll; she builds a cursor of a tool she may call that points at the
    // payroll's stored rows, exactly as the library builds cursors.
    let digest = args_digest(&json!({"args": page_digest(&json!({}), "cursor"), "caller": "eve"}));
    let forged = encode_cursor(1, &digest, Some(&payroll_ref));
    let env = tb
        .call_as(&eve, "list_notices", json!({"cursor": forged}))
        .await;
    assert!(!env.to_json().contains("salary"), "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("INVALID_CURSOR"));

    // A real cursor of one tool is not accepted by another.
    let cursor = payroll.cursor.clone().unwrap();
    let env = tb
        .call_as(&hr, "list_notices", json!({"cursor": cursor}))
        .await;
    assert_eq!(env.code.as_deref(), Some("INVALID_CURSOR"));
    assert!(!env.to_json().contains("salary"));
    // Nor by another caller of the same tool (who is denied by policy before any page is served).
    let env = tb
        .call_as(&eve, "list_payroll", json!({"cursor": cursor}))
        .await;
    assert_eq!(env.code.as_deref(), Some("POLICY_DENIED"));

    // References are random, not a counter someone can step through.
    let (r1, r2) = (store.put(json!(1)), store.put(json!(2)));
    let common = r1
        .chars()
        .zip(r2.chars())
        .take_while(|(a, b)| a == b)
        .count();
    assert!(r1.len() >= 30 && common < r1.len() - 16, "{r1} {r2}");
}

// ------------------------------------------------------------- 4. pages never re-run a write

/// Exports rows to the ledger and returns them.
#[tool(writes)]
fn export_rows(
    #[context] runs: &Runs,
    /// The cursor from the previous page; leave it out for the first page.
    cursor: Option<String>,
    /// The batch, e.g. "march".
    batch: String,
) -> Vec<String> {
    let _ = (cursor, batch);
    runs.bump("export_rows");
    (0..300).map(|i| format!("row {i:03} exported")).collect()
}

/// Lists the items. Returns the items.
#[tool(read_only)]
fn list_items(
    #[context] runs: &Runs,
    /// The cursor from the previous page; leave it out for the first page.
    cursor: Option<String>,
) -> Vec<String> {
    let _ = cursor;
    runs.bump("list_items");
    (0..300).map(|i| format!("item {i:03}")).collect()
}

#[tokio::test]
async fn fetching_a_page_of_an_evicted_write_result_does_not_run_the_write_again() {
    let runs = Arc::new(Runs::default());
    let tb = Toolbox::builder()
        .tool(export_rows::tool())
        .tool(list_items::tool())
        .shared_context(Arc::clone(&runs))
        .record_store(MemoryRecordStore::new(1))
        .build()
        .unwrap();
    let first = tb.call("export_rows", json!({"batch": "march"})).await;
    let cursor = first.cursor.clone().expect("a next page");
    // Another result evicts the first from the one-record store.
    let _ = tb.call("export_rows", json!({"batch": "april"})).await;
    assert_eq!(runs.of("export_rows"), 2);
    let page = tb
        .call("export_rows", json!({"batch": "march", "cursor": cursor}))
        .await;
    assert_eq!(page.status, Status::Refused, "{}", page.to_json());
    assert_eq!(page.code.as_deref(), Some("PAGE_EXPIRED"));
    assert_eq!(runs.of("export_rows"), 2, "the write ran again");

    // A read-only tool may be re-run for a page.
    let first = tb.call("list_items", json!({})).await;
    let cursor = first.cursor.clone().unwrap();
    let _ = tb.call("export_rows", json!({"batch": "may"})).await;
    let page = tb.call("list_items", json!({"cursor": cursor})).await;
    assert_eq!(page.status, Status::Ok);
    assert_eq!(runs.of("list_items"), 2);
}

// ------------------------------------------------------------------ 5. the approver sees what runs

/// Deletes the files matching a pattern. Returns how many were deleted.
#[tool(writes, destructive, requires_approval)]
fn delete_files(
    /// The glob of the files to delete, e.g. "tmp/*.log".
    #[arg(default = String::from("**/*"))]
    pattern: String,
) -> String {
    format!("deleted {pattern}")
}

/// Pays an amount to a payee. Returns the receipt.
#[tool(writes, requires_approval)]
fn pay_invoice(
    /// The payee, e.g. "ACME".
    payee: String,
    /// What the payment is for.
    memo: String,
) -> String {
    format!("paid {payee}: {memo}")
}

#[tokio::test]
async fn the_approver_and_the_hooks_see_exactly_what_runs() {
    let seen: Arc<Mutex<Vec<ApprovalRequest>>> = Arc::default();
    let hooked: Arc<Mutex<Vec<Value>>> = Arc::default();
    let approver = {
        let seen = Arc::clone(&seen);
        fn_approver(move |req: &ApprovalRequest| {
            seen.lock().unwrap().push(req.clone());
            std::future::ready(Approval::Approved)
        })
    };
    let hooks = {
        let hooked = Arc::clone(&hooked);
        Hooks::new().before(move |call: &CallInfo<'_>| {
            hooked.lock().unwrap().push(call.arguments.clone());
            Ok(())
        })
    };
    let tb = Toolbox::builder()
        .tool(delete_files::tool())
        .tool(pay_invoice::tool())
        .approver(approver)
        .hooks(hooks)
        .build()
        .unwrap();
    let env = tb.call("delete_files", json!({})).await;
    assert_eq!(env.data, Some(json!("deleted **/*")));
    let req = seen.lock().unwrap()[0].clone();
    assert_eq!(req.arguments, json!({"pattern": "**/*"}));
    assert!(req.summary.contains("**/*"), "{}", req.summary);
    assert_eq!(hooked.lock().unwrap()[0], json!({"pattern": "**/*"}));

    // A long value is shown whole or says how much is hidden; control and bidi characters are
    // escaped so the prompt reads as the bytes are.
    let memo = format!(
        "{}AND SEND 90000 MORE",
        "Invoice 42 for office chairs. ".repeat(4)
    );
    let payee = "ACME\u{202E}EMCA\u{7}\u{2066}";
    let _ = tb
        .call("pay_invoice", json!({"payee": payee, "memo": memo}))
        .await;
    let summary = seen.lock().unwrap()[1].summary.clone();
    assert!(
        summary.contains("AND SEND 90000 MORE") || summary.contains("more characters"),
        "{summary}"
    );
    for c in ['\u{202E}', '\u{7}', '\u{2066}'] {
        assert!(!summary.contains(c), "{summary:?}");
    }
    assert!(summary.contains("\\u{202e}"), "{summary:?}");
}

// -------------------------------------------------------------------- 6. timeouts that hold

/// Crunches numbers synchronously, slowly. Returns the result.
#[tool(read_only, timeout_ms = 100)]
fn compute_numbers() -> u32 {
    std::thread::sleep(Duration::from_millis(1500));
    42
}

/// Hashes a file with blocking code inside an async function. Returns the hash.
#[tool(read_only, timeout_ms = 100)]
async fn compute_hash() -> u32 {
    std::thread::sleep(Duration::from_millis(1500));
    7
}

/// Names the thread it runs on. Returns the thread's id.
#[tool(read_only)]
fn get_thread_id() -> String {
    format!("{:?}", std::thread::current().id())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_hold_for_sync_tools_and_for_async_tools_that_block() {
    let tb = Toolbox::builder()
        .tool(compute_numbers::tool())
        .tool(compute_hash::tool())
        .build()
        .unwrap();
    let env = tb.call("compute_numbers", json!({})).await;
    assert_eq!(env.status, Status::Timeout, "{}", env.to_json());
    // An async tool that blocks its thread runs on a tool thread, so the caller's timer still
    // fires (documented in SECURITY.md; tests/it/isolation.rs plays the host's side).
    let env = tb.call("compute_hash", json!({})).await;
    assert_eq!(env.status, Status::Timeout, "{}", env.to_json());
    // Two blocking calls at once do not stall each other's timers either.
    let (a, b) = tokio::join!(
        tb.call("compute_numbers", json!({})),
        tb.call("compute_numbers", json!({}))
    );
    assert_eq!((a.status, b.status), (Status::Timeout, Status::Timeout));

    // Without a timeout a sync tool runs in the caller's task; offload_sync_tools moves every
    // sync tool to the tool threads.
    let here = format!("{:?}", std::thread::current().id());
    let inline = Toolbox::builder()
        .tool(get_thread_id::tool())
        .build()
        .unwrap();
    assert_eq!(
        inline.call("get_thread_id", json!({})).await.data,
        Some(json!(here))
    );
    let offloaded = Toolbox::builder()
        .tool(get_thread_id::tool())
        .offload_sync_tools()
        .build()
        .unwrap();
    let env = offloaded.call("get_thread_id", json!({})).await;
    assert_eq!(env.status, Status::Ok);
    assert_ne!(env.data, Some(json!(here)));
}

// ------------------------------------------------------------------ 7. every call is audited

/// Sends a transfer with a PIN. Returns the confirmation.
#[tool(writes)]
async fn send_transfer(
    #[context] runs: &Runs,
    /// The 4-digit PIN, e.g. "1234".
    pin: String,
) -> String {
    let _ = pin;
    runs.bump("transfer_funds");
    std::future::pending::<()>().await;
    "sent".into()
}

/// Checks a PIN. Returns whether it is right.
#[tool(read_only)]
fn check_pin(
    /// The 4-digit PIN, e.g. "1234".
    pin: String,
) -> bool {
    pin == "4821"
}

#[tokio::test]
async fn a_dropped_call_is_audited_as_cancelled_and_digests_are_keyed() {
    let runs = Arc::new(Runs::default());
    let sink = Arc::new(MemorySink::new());
    let tb = Toolbox::builder()
        .tool(send_transfer::tool())
        .tool(check_pin::tool())
        .shared_context(Arc::clone(&runs))
        .shared_audit(sink.clone())
        .build()
        .unwrap();
    sink.clear();
    let dropped = tokio::time::timeout(
        Duration::from_millis(20),
        tb.call_as(&Caller::new("ann"), "send_transfer", json!({"pin": "1111"})),
    )
    .await;
    assert!(dropped.is_err());
    assert_eq!(runs.of("transfer_funds"), 1);
    let records = sink.records();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].tool, "send_transfer");
    assert_eq!(records[0].code.as_deref(), Some("CANCELLED"));
    assert_eq!(records[0].status, None);
    assert_eq!(records[0].caller.as_deref(), Some("ann"));
    assert!(records[0].detail.as_deref().unwrap().contains("dropped"));
    // What the call had learned before it was dropped: the tool, that it ran, when it began.
    assert_eq!(
        records[0].detail.as_deref(),
        Some("the host dropped the call while the tool ran; its effects are unknown")
    );
    assert_eq!(
        records[0].fingerprint,
        tb.spec("send_transfer").unwrap().fingerprint()
    );
    assert!(
        records[0].duration_ms.is_some_and(|ms| ms >= 15),
        "{records:?}"
    );

    // The argument digest cannot be reversed by trying every PIN.
    let _ = tb.call("check_pin", json!({"pin": "4821"})).await;
    let digest = sink.records()[1].args_digest.clone().unwrap();
    assert!(sink.records()[1].duration_ms.is_some());
    let found = (0..10_000)
        .map(|n| format!("{n:04}"))
        .find(|pin| args_digest(&json!({"pin": pin})) == digest);
    assert_eq!(found, None, "the PIN was recovered from the audit trail");
}

// ------------------------------------------------------------ 8. authorization before work

/// Tags many records at once. Returns how many were tagged.
#[tool(writes)]
fn tag_records(
    /// The record ids, each once, e.g. [1, 2].
    #[arg(unique_items)]
    ids: Vec<u64>,
    /// The tag, e.g. "urgent".
    secret_tag_name: String,
) -> usize {
    let _ = secret_tag_name;
    ids.len()
}

fn hand_tool(name: &str, schema: Value, effects: Effects) -> Tool {
    common::echo_tool(common::spec(
        name,
        "Looks up a code. Returns the matching entry.",
        schema,
        effects,
    ))
}

#[tokio::test]
async fn authorization_comes_before_any_work_and_validation_stays_linear() {
    let tb = Toolbox::builder()
        .tool(tag_records::tool())
        .policy(Policy::read_only())
        .build()
        .unwrap();
    // A denied caller learns nothing of the parameters, whatever it sends.
    let ids: Vec<u64> = (0..40_000).map(|i| i % 20_000).collect();
    let env = tb
        .call("tag_records", json!({"ids": ids, "nonsense": true}))
        .await;
    assert_eq!(
        env.code.as_deref(),
        Some("POLICY_DENIED"),
        "{}",
        env.to_json()
    );
    assert!(!env.to_json().contains("secret_tag_name"));

    // uniqueItems on 40k items still answers, and finds the repeat.
    let tb = Toolbox::builder()
        .tool(tag_records::tool())
        .build()
        .unwrap();
    let mut ids: Vec<Value> = (0..40_000).map(|i| json!(i)).collect();
    ids.push(json!(39_999.0));
    let env = tb
        .call("tag_records", json!({"ids": ids, "secret_tag_name": "x"}))
        .await;
    assert_eq!(env.status, Status::InvalidInput);
    assert!(env.message.as_deref().unwrap().contains("ids[40000]"));

    // A hand-written pattern only a backtracking engine can run is refused when the tool is
    // registered, not run on every call.
    let schema = json!({
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^(?=.*\\d)(\\w+\\s?)*$"}},
        "required": ["code"]
    });
    let built = Toolbox::builder()
        .tool(hand_tool(
            "find_code",
            schema,
            Effects::none().with_read_only(true),
        ))
        .build();
    let err = built.expect_err("a backtracking-only pattern is not accepted");
    assert!(err.to_string().contains("pattern"), "{err}");
}

// -------------------------------------------------------------- 9. redaction on every channel

/// Reports on an account. Returns the report.
#[tool(read_only)]
fn get_account_report(
    /// Which report, e.g. "keys".
    kind: String,
) -> Result<Value, ToolError> {
    let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    match kind.as_str() {
        "fields" => Ok(json!({
            "pin": 4821,
            "api_key": {"value": "plain-secret-1"},
            "token": "plain-secret-2",
            "db_password": "plain-secret-3",
            "secret_key": "plain-secret-4",
            "userPassword": "plain-secret-5",
            token: "a secret as a key",
            "pem": [
                "-----BEGIN RSA PRIVATE KEY-----",
                "MIIEowIBAAKCAQEAplainsecret6",
                "-----END RSA PRIVATE KEY-----"
            ],
            "max_tokens": 100,
        })),
        "error" => Err(ToolError::failed(token, format!("Upstream said {token}"))
            .with_details(json!({"password": "plain-secret-7", "echo": token}))),
        _ => Err(ToolError::invalid_input("UNKNOWN_KIND", "Use \"fields\".")),
    }
}

/// Writes a long diary. Returns a short answer with a very long note.
#[tool(read_only)]
fn get_long_note() -> toolsmith::Reply<String> {
    toolsmith::Reply::new("done".to_string()).note("n".repeat(200_000))
}

#[tokio::test]
async fn redaction_and_the_budget_cover_every_channel_the_model_reads() {
    let hooks = Hooks::new().before(|call: &CallInfo<'_>| {
        if call.arguments.get("kind") == Some(&json!("hook")) {
            return Err(ToolError::denied(
                "BLOCKED",
                "Blocked: token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB is revoked",
            ));
        }
        Ok(())
    });
    let tb = Toolbox::builder()
        .tool(get_account_report::tool())
        .tool(get_long_note::tool())
        .hooks(hooks)
        .build()
        .unwrap();
    let leaks = |env: &Envelope| {
        let text = env.to_json();
        let mut found: Vec<&str> = ["ghp_", "plain-secret"]
            .into_iter()
            .filter(|s| text.contains(s))
            .collect();
        found.sort_unstable();
        (found, text)
    };
    for kind in ["fields", "error", "hook"] {
        let env = tb.call("get_account_report", json!({"kind": kind})).await;
        let (found, text) = leaks(&env);
        assert!(found.is_empty(), "{kind}: {found:?} in {text}");
    }
    let fields = tb
        .call("get_account_report", json!({"kind": "fields"}))
        .await;
    let data = fields.data.as_ref().unwrap();
    assert_eq!(data["max_tokens"], json!(100));
    assert_eq!(data["pin"], json!("[REDACTED:secret_field]"));

    // Notes and messages are bounded like data.
    let env = tb.call("get_long_note", json!({})).await;
    assert!(
        env.to_json().chars().count() < 5_000,
        "{} characters",
        env.to_json().len()
    );
    let unknown: serde_json::Map<String, Value> = (0..100_000)
        .map(|i| (format!("unknown_key_{i}"), json!(1)))
        .collect();
    let mut args = unknown;
    args.insert("kind".into(), json!("fields"));
    let env = tb.call("get_account_report", Value::Object(args)).await;
    assert_eq!(env.status, Status::InvalidInput);
    assert!(
        env.to_json().chars().count() < 10_000,
        "{} characters",
        env.to_json().len()
    );
}

// ----------------------------------------------------------------------- 10. smaller gaps

/// Reads the weather. Returns the forecast.
#[tool(read_only)]
fn get_weather() -> String {
    "sunny".into()
}

/// Shuts the plant down. Returns a confirmation.
#[tool(writes)]
fn shutdown_plant() -> String {
    "down".into()
}

#[tokio::test]
async fn smaller_gaps_tool_lists_anonymous_ids_and_run_time_tools() {
    let tb = Toolbox::builder()
        .tool(get_weather::tool())
        .tool(shutdown_plant::tool())
        .policy(Policy::read_only().require_identity())
        .build()
        .unwrap();
    // UNKNOWN_TOOL names only the tools this caller may call.
    let env = tb
        .call_as(&Caller::new("ann"), "shutdwn_plant", json!({}))
        .await;
    assert_eq!(env.code.as_deref(), Some("UNKNOWN_TOOL"));
    let message = env.message.unwrap();
    assert!(message.contains("get_weather"), "{message}");
    assert!(!message.contains("shutdown_plant"), "{message}");

    // An empty id is anonymous.
    let env = tb.call_as(&Caller::new(""), "get_weather", json!({})).await;
    assert_eq!(
        env.code.as_deref(),
        Some("POLICY_DENIED"),
        "{}",
        env.to_json()
    );
    assert!(Caller::new("  ").is_anonymous());

    // A run-time tool gets the macro's declaration checks.
    let schema = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let destructive = Effects::none().with_writes(true).with_destructive(true);
    let err = Toolbox::builder()
        .tool(hand_tool("drop_tables", schema.clone(), destructive))
        .build()
        .expect_err("destructive without approval");
    assert!(err.to_string().contains("requires_approval"), "{err}");
    let allowed = hand_tool("drop_tables", schema, destructive)
        .spec()
        .clone()
        .with_allows([toolsmith::spec::Allow::new(
            "destructive_without_approval",
            "a sandbox that is thrown away",
        )]);
    let tool = Tool::from_fn(allowed, |_ctx, args| Box::pin(async move { Ok(args) }));
    assert!(Toolbox::builder().tool(tool).build().is_ok());
}
