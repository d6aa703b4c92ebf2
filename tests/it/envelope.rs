//! The result envelope (issue 5): the exact envelope of every status, the field contract, panics,
//! timeouts, the output budget with cursors, the output contract and the MCP mapping — all proved
//! through `Toolbox::call`. Redaction is tested in `tests/it/secrets.rs`.

use crate::common;

use common::{wire, SharedStore};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use toolsmith::budget::{MemoryRecordStore, RecordStore};
use toolsmith::{model, tool, Envelope, Reply, Status, Tool, ToolError, ToolSpec, Toolbox};

// ---------------------------------------------------------------- one envelope per status

/// Stock of one product.
#[model]
struct Stock {
    /// The product's SKU, e.g. "TNT-1P".
    sku: String,
    /// How many are left.
    left: u32,
}

/// Checks the stock of a product; each SKU shows another outcome. Returns the stock.
#[tool(read_only)]
fn get_stock(
    /// The product's SKU, e.g. "TNT-1P".
    sku: String,
) -> Result<Stock, ToolError> {
    match sku.as_str() {
        "TNT-1P" => Ok(Stock { sku, left: 4 }),
        "none" => Err(ToolError::empty(
            "No product matches this SKU. Search products by name to find the SKU.",
        )),
        "bad" => Err(ToolError::invalid_input(
            "INVALID_SKU",
            "\"sku\" must look like TNT-1P (letters, a dash, a digit and letters).",
        )),
        "size" => Err(ToolError::needs_input(
            ["size"],
            "Which size? The boot comes in 42, 43 and 44. Ask the user.",
        )
        .with_details(json!({"sizes": [42, 43, 44]}))),
        "limit" => Err(ToolError::refused(
            "LIMIT_REACHED",
            "Only 2 per customer. Ask the user whether 2 will do.",
        )
        .with_details(json!({"limit": 2}))),
        "hidden" => Err(ToolError::denied(
            "NOT_PERMITTED",
            "This product is restricted for this account. Retrying will not help.",
        )),
        "declined" => Err(ToolError::cancelled_by_user(
            "The user declined. Do not retry unless the user asks.",
        )),
        "busy" => Err(ToolError::temporary(
            30,
            "WAREHOUSE_BUSY",
            "The warehouse system is busy. Wait 30 seconds, then try again.",
        )),
        "broken" => Err(ToolError::failed(
            "WAREHOUSE_DOWN",
            "The warehouse system is down. Tell the user stock cannot be checked now.",
        )),
        _ => Err(ToolError::timeout(
            "The warehouse did not answer in time. Checking again is safe.",
        )),
    }
}

async fn stock(sku: &str) -> Value {
    let tb = Toolbox::builder().tool(get_stock::tool()).build().unwrap();
    wire(&tb.call("get_stock", json!({ "sku": sku })).await)
}

#[tokio::test]
async fn status_ok() {
    assert_eq!(
        stock("TNT-1P").await,
        json!({"status": "ok", "data": {"sku": "TNT-1P", "left": 4}, "schema_version": "1"})
    );
}

#[tokio::test]
async fn status_empty() {
    assert_eq!(
        stock("none").await,
        json!({
            "status": "empty",
            "code": "EMPTY",
            "message": "No product matches this SKU. Search products by name to find the SKU.",
            "schema_version": "1"
        })
    );
}

#[tokio::test]
async fn status_invalid_input() {
    assert_eq!(
        stock("bad").await,
        json!({
            "status": "invalid_input",
            "code": "INVALID_SKU",
            "message": "\"sku\" must look like TNT-1P (letters, a dash, a digit and letters).",
            "schema_version": "1"
        })
    );
    // From argument validation, before the tool runs.
    let tb = Toolbox::builder().tool(get_stock::tool()).build().unwrap();
    let env = wire(&tb.call("get_stock", json!({"sku": 7})).await);
    assert_eq!(
        env,
        json!({
            "status": "invalid_input",
            "code": "INVALID_ARGUMENT",
            "message": "\"sku\" must be a string. The product's SKU, e.g. \"TNT-1P\".",
            "schema_version": "1"
        })
    );
}

#[tokio::test]
async fn status_needs_input() {
    assert_eq!(
        stock("size").await,
        json!({
            "status": "needs_input",
            "code": "NEEDS_INPUT",
            "message": "Which size? The boot comes in 42, 43 and 44. Ask the user.",
            "data": {"sizes": [42, 43, 44]},
            "missing": ["size"],
            "schema_version": "1"
        })
    );
}

#[tokio::test]
async fn status_refused() {
    assert_eq!(
        stock("limit").await,
        json!({
            "status": "refused",
            "code": "LIMIT_REACHED",
            "message": "Only 2 per customer. Ask the user whether 2 will do.",
            "data": {"limit": 2},
            "schema_version": "1"
        })
    );
}

#[tokio::test]
async fn status_denied() {
    assert_eq!(
        stock("hidden").await,
        json!({
            "status": "denied",
            "code": "NOT_PERMITTED",
            "message": "This product is restricted for this account. Retrying will not help.",
            "schema_version": "1"
        })
    );
}

#[tokio::test]
async fn status_cancelled_by_user() {
    assert_eq!(
        stock("declined").await,
        json!({
            "status": "cancelled_by_user",
            "code": "CANCELLED_BY_USER",
            "message": "The user declined. Do not retry unless the user asks.",
            "schema_version": "1"
        })
    );
}

#[tokio::test]
async fn status_temporary_failure() {
    assert_eq!(
        stock("busy").await,
        json!({
            "status": "temporary_failure",
            "code": "WAREHOUSE_BUSY",
            "message": "The warehouse system is busy. Wait 30 seconds, then try again.",
            "retry_after": 30,
            "schema_version": "1"
        })
    );
}

#[tokio::test]
async fn status_failed() {
    assert_eq!(
        stock("broken").await,
        json!({
            "status": "failed",
            "code": "WAREHOUSE_DOWN",
            "message": "The warehouse system is down. Tell the user stock cannot be checked now.",
            "schema_version": "1"
        })
    );
}

#[tokio::test]
async fn status_timeout() {
    assert_eq!(
        stock("slow").await,
        json!({
            "status": "timeout",
            "code": "TIMEOUT",
            "message": "The warehouse did not answer in time. Checking again is safe.",
            "schema_version": "1"
        })
    );
}

// ---------------------------------------------------------------- the field contract

#[test]
fn every_field_round_trips_under_its_documented_name() {
    // Every field set (the envelope is `#[non_exhaustive]`: a new field is added here too).
    let mut env = Envelope::error(Status::TemporaryFailure, "BUSY", "Busy. Wait 5 seconds.");
    env.data = Some(json!({"queue": 3}));
    env.missing = vec!["date".into()];
    env.retry_after = Some(5);
    env.truncated = true;
    env.note = Some("Showing 1 of 2.".into());
    env.cursor = Some("c1.1..abcdefabcdef".into());
    env.reference = Some("rec_x_1".into());
    env.operation_id = Some("op_1".into());
    env.schema_version = "1".into();
    let v = serde_json::to_value(&env).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "status",
            "code",
            "message",
            "data",
            "missing",
            "retry_after",
            "truncated",
            "note",
            "cursor",
            "ref",
            "operation_id",
            "schema_version"
        ]
    );
    assert_eq!(v["status"], "temporary_failure");
    assert_eq!(v["ref"], "rec_x_1");
    let back: Envelope = serde_json::from_value(v).unwrap();
    assert_eq!(back, env);
    let back: Envelope = serde_json::from_str(&env.to_json()).unwrap();
    assert_eq!(back, env);
}

#[test]
fn fields_that_carry_nothing_are_left_out() {
    let env = Envelope::new(Status::Ok);
    assert_eq!(env.to_json(), r#"{"status":"ok","schema_version":"1"}"#);
    // ... and read back as empty.
    let back: Envelope = serde_json::from_str(r#"{"status":"ok","schema_version":"1"}"#).unwrap();
    assert_eq!(back, env);
    assert!(back.missing.is_empty() && !back.truncated && back.reference.is_none());
    // `ok` with null data has no data field; `false` and `[]` are omitted, not written.
    let env = Envelope::ok(Value::Null);
    assert_eq!(env.to_json(), r#"{"status":"ok","schema_version":"1"}"#);
    // Every status is written in snake_case; unknown statuses are rejected.
    for s in Status::ALL {
        assert_eq!(serde_json::to_value(s).unwrap(), json!(s.as_str()));
        let env: Envelope =
            serde_json::from_value(json!({"status": s.as_str(), "schema_version": "1"})).unwrap();
        assert_eq!(env.status, s);
    }
    assert!(
        serde_json::from_str::<Envelope>(r#"{"status":"maybe","schema_version":"1"}"#).is_err()
    );
}

// ---------------------------------------------------------------- panics

/// Runs the import, which crashes. Returns the number of rows imported.
#[tool(read_only)]
fn run_import() -> u32 {
    panic!("index out of bounds at /home/ci/src/import.rs:42")
}

/// Runs the export, which crashes after starting. Returns the number of rows exported.
#[tool(read_only)]
async fn run_export() -> u32 {
    tokio::task::yield_now().await;
    panic!(
        "called `Option::unwrap()` on a `None` value in {}",
        std::any::type_name::<Stock>()
    )
}

#[tokio::test]
async fn a_panic_is_failed_with_a_generic_message_and_the_toolbox_keeps_serving() {
    let tb = Toolbox::builder()
        .tool(run_import::tool())
        .tool(run_export::tool())
        .tool(get_stock::tool())
        .build()
        .unwrap();
    for name in ["run_import", "run_export"] {
        let env = tb.call(name, json!({})).await;
        assert_eq!(
            wire(&env),
            json!({
                "status": "failed",
                "code": "INTERNAL",
                "message": "The tool failed unexpectedly and did not complete. Retrying the same call is unlikely to help; tell the user the action could not be done.",
                "schema_version": "1"
            })
        );
        let text = env.to_json();
        for leak in [
            "index out of bounds",
            "/home",
            "import.rs",
            "unwrap",
            "Stock",
            "envelope::",
        ] {
            assert!(!text.contains(leak), "{leak:?} leaked into {text}");
        }
    }
    let env = tb.call("get_stock", json!({"sku": "TNT-1P"})).await;
    assert_eq!(env.status, Status::Ok);
    let env = tb.call("run_import", json!({})).await;
    assert_eq!(env.status, Status::Failed);
}

#[tokio::test]
async fn a_hand_written_executor_that_panics_before_its_future_exists_is_failed_too() {
    let mut spec = counting_spec();
    spec.output_schema = None;
    // The closure panics while building its future, not while it is polled.
    let tool = Tool::from_fn(spec, |_, args| {
        if args["broken"] == true {
            panic!("bad state in /home/ci/src/plugin.rs");
        }
        Box::pin(async move { Ok(json!(3)) })
    });
    let tb = Toolbox::builder().tool(tool).build().unwrap();
    let env = tb.call("count_orders", json!({"broken": true})).await;
    assert_eq!(env.status, Status::Failed);
    assert_eq!(env.code.as_deref(), Some("INTERNAL"));
    assert!(!env.to_json().contains("plugin.rs"));
    let env = tb.call("count_orders", json!({})).await;
    assert_eq!(env.data, Some(json!(3)));
}

// ---------------------------------------------------------------- timeouts

/// What the slow tools observe.
#[derive(Default)]
struct Probe {
    started: AtomicUsize,
    dropped: AtomicBool,
}

/// Sets a flag when the future holding it is dropped.
struct DropFlag<'a>(&'a AtomicBool);

impl Drop for DropFlag<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Builds the yearly report, which takes long. Returns the report.
#[tool(read_only, timeout_ms = 50)]
async fn get_yearly_report(#[context] probe: &Probe) -> String {
    let _guard = DropFlag(&probe.dropped);
    probe.started.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(10)).await;
    "report".to_string()
}

/// Rebuilds the search index, which takes long. Returns the number of entries.
#[tool(writes, idempotent, timeout_ms = 50)]
async fn update_search_index() -> u32 {
    tokio::time::sleep(Duration::from_secs(10)).await;
    1
}

/// Sends the newsletter, which takes long. Returns the number of recipients.
#[tool(writes, timeout_ms = 50)]
async fn send_newsletter() -> u32 {
    tokio::time::sleep(Duration::from_secs(10)).await;
    1
}

#[tokio::test]
async fn a_timeout_stops_the_tool_and_says_whether_repeating_is_safe() {
    let probe = Arc::new(Probe::default());
    let tb = Toolbox::builder()
        .tool(get_yearly_report::tool())
        .tool(update_search_index::tool())
        .tool(send_newsletter::tool())
        .tool(get_stock::tool())
        .shared_context(probe.clone())
        .build()
        .unwrap();

    let env = tb.call("get_yearly_report", json!({})).await;
    assert_eq!(
        wire(&env),
        json!({
            "status": "timeout",
            "code": "TIMEOUT",
            "message": "The tool \"get_yearly_report\" did not finish within 50 ms and was stopped. It only reads, so calling it again is safe; if it keeps timing out, ask for less.",
            "schema_version": "1"
        })
    );
    assert_eq!(probe.started.load(Ordering::SeqCst), 1);
    assert!(
        probe.dropped.load(Ordering::SeqCst),
        "the timed-out task was dropped, not left running"
    );

    let env = tb.call("update_search_index", json!({})).await;
    assert_eq!(
        env.message.as_deref(),
        Some("The tool \"update_search_index\" did not finish within 50 ms and was stopped. It is idempotent, so calling it again with the same arguments is safe.")
    );
    let env = tb.call("send_newsletter", json!({})).await;
    assert_eq!(env.status, Status::Timeout);
    assert_eq!(
        env.message.as_deref(),
        Some("The tool \"send_newsletter\" did not finish within 50 ms and was stopped. It may have partly completed. Do not repeat it blindly: check the current state first, or ask the user.")
    );
    // The toolbox keeps serving.
    let env = tb.call("get_stock", json!({"sku": "TNT-1P"})).await;
    assert_eq!(env.status, Status::Ok);
}

// ---------------------------------------------------------------- the output budget

/// One catalog item.
#[model]
struct Item {
    /// The item's number.
    id: u32,
    /// The item's name.
    name: String,
}

fn items() -> Vec<Item> {
    (0..200)
        .map(|id| Item {
            id,
            name: format!("Item number {id}"),
        })
        .collect()
}

/// How many times the catalog tools ran.
#[derive(Default)]
struct Calls(AtomicUsize);

/// Lists catalog items, page by page. Returns the items.
#[tool(read_only)]
fn list_items(
    #[context] calls: &Calls,
    /// Only items of this category, e.g. "tents".
    category: Option<String>,
    /// The cursor from the previous page; leave it out for the first page.
    cursor: Option<String>,
) -> Vec<Item> {
    let _ = (category, cursor);
    calls.0.fetch_add(1, Ordering::SeqCst);
    items()
}

/// Lists every catalog item at once. Returns the items.
#[tool(read_only)]
fn list_all_items() -> Vec<Item> {
    items()
}

/// Reads the server log. Returns the log text.
#[tool(read_only, output_budget = 400)]
fn read_server_log() -> String {
    (0..500).map(|i| format!("line {i:04}\n")).collect()
}

/// Searches the catalog. Returns the matching items with a note on how to narrow.
#[tool(read_only)]
fn search_items(
    /// Words to search for, e.g. "tent".
    query: String,
) -> Reply<Vec<Item>> {
    let all = items();
    if query == "all" {
        return Reply::new(all).note("Matched every item. Add words to narrow the search.");
    }
    Reply::new(all.into_iter().take(3).collect())
        .note("Showing 3 of 40 matches. Add a category to narrow.")
        .truncated()
}

fn catalog() -> (Toolbox, Arc<Calls>, Arc<MemoryRecordStore>) {
    let calls = Arc::new(Calls::default());
    let store = Arc::new(MemoryRecordStore::default());
    let tb = Toolbox::builder()
        .tool(list_items::tool())
        .tool(list_all_items::tool())
        .tool(read_server_log::tool())
        .tool(search_items::tool())
        .shared_context(calls.clone())
        .record_store(SharedStore(store.clone()))
        .build()
        .unwrap();
    (tb, calls, store)
}

fn ids(env: &Envelope) -> Vec<u64> {
    env.data
        .as_ref()
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no list in {env:?}"))
        .iter()
        .map(|i| i["id"].as_u64().unwrap())
        .collect()
}

#[tokio::test]
async fn a_long_list_is_cut_to_the_budget_and_paged_with_cursors() {
    let (tb, calls, store) = catalog();
    let first = tb.call("list_items", json!({"category": "tents"})).await;
    assert_eq!(first.status, Status::Ok);
    assert!(first.truncated);
    let shown = ids(&first).len();
    assert!(shown > 0 && shown < 200);
    assert!(
        serde_json::to_string(first.data.as_ref().unwrap())
            .unwrap()
            .chars()
            .count()
            <= 1500,
        "the page fits the default budget"
    );
    assert_eq!(
        first.note.as_deref(),
        Some(format!("Showing {shown} of 200. Pass the cursor to see the next page.").as_str())
    );
    let reference = first.reference.clone().expect("a ref to the full result");
    assert_eq!(
        store.get(&reference).unwrap(),
        serde_json::to_value(items()).unwrap(),
        "the ref names the full result"
    );
    assert!(first.cursor.is_some());

    // Page through with the cursor: every item exactly once, in order.
    let mut seen = ids(&first);
    let mut cursor = first.cursor.clone();
    let mut pages = 1;
    while let Some(c) = cursor {
        let page = tb
            .call("list_items", json!({"category": "tents", "cursor": c}))
            .await;
        assert_eq!(page.status, Status::Ok, "{page:?}");
        assert!(page.truncated);
        let got = ids(&page);
        assert!(!got.is_empty());
        let start = seen.len();
        seen.extend(&got);
        let note = page.note.clone().unwrap();
        let range = format!("Showing {}–{} of 200.", start + 1, seen.len());
        assert!(note.starts_with(&range), "{note}");
        cursor = page.cursor.clone();
        if cursor.is_none() {
            assert!(note.ends_with("This is the last page."), "{note}");
        }
        pages += 1;
        assert!(pages < 200, "paging does not end");
    }
    assert_eq!(seen, (0..200).collect::<Vec<u64>>());
    // Later pages were served from the stored result, without running the tool again.
    assert_eq!(calls.0.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn malformed_and_foreign_cursors_are_invalid_input() {
    let (tb, _, _) = catalog();
    let env = tb
        .call("list_items", json!({"cursor": "page-2-please"}))
        .await;
    assert_eq!(
        wire(&env),
        json!({
            "status": "invalid_input",
            "code": "INVALID_CURSOR",
            "message": "\"cursor\": The cursor is not one this tool returned (it may have been edited or cut). Pass the cursor exactly as the previous result gave it, or leave the cursor out to start from the first page.",
            "schema_version": "1"
        })
    );
    let tents = tb.call("list_items", json!({"category": "tents"})).await;
    let cursor = tents.cursor.unwrap();
    let env = tb
        .call("list_items", json!({"category": "boots", "cursor": cursor}))
        .await;
    assert_eq!(
        wire(&env),
        json!({
            "status": "invalid_input",
            "code": "INVALID_CURSOR",
            "message": "\"cursor\": The cursor belongs to a request with different arguments. Repeat the call with the same arguments as the call that returned the cursor, or leave the cursor out to start from the first page.",
            "schema_version": "1"
        })
    );
    // An edited cursor is refused too.
    let edited = cursor.replacen("c1.", "c1.1", 1);
    let env = tb
        .call("list_items", json!({"category": "tents", "cursor": edited}))
        .await;
    assert_eq!(env.code.as_deref(), Some("INVALID_CURSOR"));
}

#[tokio::test]
async fn a_tool_without_a_cursor_parameter_gets_a_ref_and_a_note_but_no_cursor() {
    let (tb, _, store) = catalog();
    let env = tb.call("list_all_items", json!({})).await;
    assert!(env.truncated);
    assert!(env.cursor.is_none());
    let shown = ids(&env).len();
    assert_eq!(
        env.note.as_deref(),
        Some(
            format!(
                "Showing {shown} of 200. The rest is not shown; ask for less (narrower arguments) to see other parts."
            )
            .as_str()
        )
    );
    let full = store.get(env.reference.as_deref().unwrap()).unwrap();
    assert_eq!(full.as_array().unwrap().len(), 200);
}

#[tokio::test]
async fn long_text_is_cut_with_a_marker() {
    let (tb, _, store) = catalog();
    let env = tb.call("read_server_log", json!({})).await;
    assert!(env.truncated);
    let text = env.data.as_ref().unwrap().as_str().unwrap().to_string();
    assert!(serde_json::to_string(&text).unwrap().chars().count() <= 400);
    let marker = text.rfind("… [truncated: ").expect("a marker");
    let kept = text[..marker].chars().count();
    assert_eq!(
        &text[marker..],
        format!("… [truncated: {kept} of 5000 characters shown]")
    );
    assert!(text.starts_with("line 0000\nline 0001\n"));
    assert_eq!(
        env.note.as_deref(),
        Some(format!("Showing characters 1–{kept} of 5000. The rest is not shown; ask for less (narrower arguments) to see other parts.").as_str())
    );
    assert!(env.cursor.is_none());
    assert_eq!(
        store
            .get(env.reference.as_deref().unwrap())
            .unwrap()
            .as_str()
            .unwrap()
            .len(),
        5000
    );
}

#[tokio::test]
async fn reply_notes_reach_the_envelope() {
    let (tb, _, _) = catalog();
    let env = tb.call("search_items", json!({"query": "tent"})).await;
    assert_eq!(
        wire(&env),
        json!({
            "status": "ok",
            "data": [
                {"id": 0, "name": "Item number 0"},
                {"id": 1, "name": "Item number 1"},
                {"id": 2, "name": "Item number 2"}
            ],
            "truncated": true,
            "note": "Showing 3 of 40 matches. Add a category to narrow.",
            "schema_version": "1"
        })
    );
    // When the budget cuts the result too, the tool's note is kept ahead of the budget's.
    let env = tb.call("search_items", json!({"query": "all"})).await;
    let shown = ids(&env).len();
    assert!(env.truncated && shown < 200);
    assert_eq!(
        env.note.as_deref(),
        Some(format!("Matched every item. Add words to narrow the search. Showing {shown} of 200. The rest is not shown; ask for less (narrower arguments) to see other parts.").as_str())
    );
}

// ---------------------------------------------------------------- the output contract

fn counting_spec() -> ToolSpec {
    common::spec(
        "count_orders",
        "Counts open orders. Returns the count.",
        json!({
            "type": "object",
            "properties": {"broken": {"type": "boolean", "description": "Whether to misbehave."}},
            "additionalProperties": false
        }),
        common::read_only(),
    )
    .with_output_schema(json!({
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
        "additionalProperties": false
    }))
}

#[tokio::test]
async fn a_result_that_breaks_the_output_schema_is_failed() {
    let tool = Tool::from_fn(counting_spec(), |_, args| {
        Box::pin(async move {
            if args["broken"] == true {
                Ok(json!({"count": "many"}))
            } else {
                Ok(json!({"count": 3}))
            }
        })
    });
    let sink = Arc::new(toolsmith::audit::MemorySink::new());
    let builder = || {
        Toolbox::builder()
            .tool(tool.clone())
            .shared_audit(sink.clone())
    };
    // The default: checked in debug builds (as these tests are), not in release builds.
    for (checked, tb) in [
        (cfg!(debug_assertions), builder().build().unwrap()),
        (true, builder().check_output_contract(true).build().unwrap()),
        (
            false,
            builder().check_output_contract(false).build().unwrap(),
        ),
    ] {
        let env = tb.call("count_orders", json!({})).await;
        assert_eq!(env.data, Some(json!({"count": 3})));
        let env = tb.call("count_orders", json!({"broken": true})).await;
        if !checked {
            assert_eq!(env.status, Status::Ok);
            assert_eq!(env.data, Some(json!({"count": "many"})));
            continue;
        }
        assert_eq!(
            wire(&env),
            json!({
                "status": "failed",
                "code": "OUTPUT_CONTRACT",
                "message": "The tool returned a result that does not match its declared output, so it is not shown. Retrying will not help; tell the user the tool is not working correctly.",
                "schema_version": "1"
            })
        );
        let detail = sink.records().last().unwrap().detail.clone().unwrap();
        assert!(detail.starts_with("output contract: "), "{detail}");
        assert!(detail.contains("count"), "{detail}");
    }
}

// ---------------------------------------------------------------- MCP CallToolResult

#[tokio::test]
async fn every_envelope_maps_to_an_mcp_call_tool_result() {
    let tb = Toolbox::builder().tool(get_stock::tool()).build().unwrap();
    let cases = [
        ("TNT-1P", Status::Ok),
        ("none", Status::Empty),
        ("bad", Status::InvalidInput),
        ("size", Status::NeedsInput),
        ("limit", Status::Refused),
        ("hidden", Status::Denied),
        ("declined", Status::CancelledByUser),
        ("busy", Status::TemporaryFailure),
        ("broken", Status::Failed),
        ("slow", Status::Timeout),
    ];
    assert_eq!(cases.len(), Status::ALL.len());
    for (sku, status) in cases {
        let env = tb.call("get_stock", json!({ "sku": sku })).await;
        assert_eq!(env.status, status);
        let spec = tb.spec("get_stock").unwrap();
        let result = toolsmith::export::mcp_call_result(
            Some(&spec),
            &env,
            toolsmith::export::McpVersion::V2025_11_25,
        );
        let keys: Vec<&str> = result
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        // A plain ok has no `_meta`: `isError: false` and a status-less structuredContent say it.
        if status == Status::Ok {
            assert_eq!(keys, ["content", "structuredContent", "isError"]);
        } else {
            assert_eq!(keys, ["content", "structuredContent", "isError", "_meta"]);
        }
        // structuredContent: the data on ok (wrapped where it is not an object), the status
        // alone otherwise; the envelope without data is the `_meta` of every outcome but a plain ok.
        let expected = match (status, &env.data) {
            (Status::Ok, Some(data)) if data.is_object() => data.clone(),
            (Status::Ok, Some(data)) => json!({ "result": data }),
            _ => json!({ "status": status.as_str() }),
        };
        assert_eq!(result["structuredContent"], expected, "{status}");
        if status != Status::Ok {
            let mut without_data = serde_json::to_value(&env).unwrap();
            without_data.as_object_mut().unwrap().remove("data");
            assert_eq!(
                result["_meta"][toolsmith::export::ENVELOPE_META_KEY],
                without_data
            );
        }
        let content = result["content"].as_array().unwrap();
        assert_eq!(content.len(), 1);
        assert_eq!(content[0]["type"], "text");
        // The text: the structured data's JSON on a plain ok, the whole envelope otherwise.
        let text: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
        if status == Status::Ok {
            assert_eq!(text, result["structuredContent"], "{status}");
        } else {
            assert_eq!(text, serde_json::to_value(&env).unwrap(), "{status}");
        }
        assert_eq!(
            result["isError"],
            json!(!matches!(status, Status::Ok | Status::Empty)),
            "{status}"
        );
    }
}
