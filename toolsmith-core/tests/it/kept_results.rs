//! Kept results read whole by their URI ([`Toolbox::result_resource`],
//! [`Toolbox::read_result`]): only by the caller the result was made for, behind the policy, and
//! never from the store when the link is not that caller's.

use crate::common;

use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use toolsmith_core::budget::{ResultReadError, RESULT_MIME_TYPE, RESULT_URI_PREFIX};
use toolsmith_core::state::MemoryStateStore;
use toolsmith_core::{
    BackendError, CallOptions, Caller, Effects, Envelope, MemoryRecordStore, Policy, RecordStore,
    SecretKey, Status, Tool, Toolbox,
};

/// `list_numbers`: a read that answers the numbers 0..1000 (far over a budget of 100).
fn list_numbers() -> Tool {
    Tool::from_fn(
        common::spec(
            "list_numbers",
            "Lists the numbers below 1000. Returns a list.",
            json!({"type": "object", "additionalProperties": false}),
            common::read_only(),
        ),
        |_, _| Box::pin(async { Ok(json!((0..1000).collect::<Vec<_>>())) }),
    )
}

/// `get_one`: a read whose answer fits any budget.
fn get_one() -> Tool {
    Tool::from_fn(
        common::spec(
            "get_one",
            "Gets the number one. Returns 1.",
            json!({"type": "object", "additionalProperties": false}),
            common::read_only(),
        ),
        |_, _| Box::pin(async { Ok(json!(1)) }),
    )
}

/// `reserve_slot`: a keyed write (by `slot`) whose result is kept for its repeats.
fn reserve_slot() -> Tool {
    Tool::from_fn(
        common::spec(
            "reserve_slot",
            "Reserves a delivery slot. Returns the reservation.",
            json!({"type": "object", "properties": {"slot": {"type": "string"}},
                   "required": ["slot"], "additionalProperties": false}),
            Effects::none().with_writes(true),
        ),
        |_, args| Box::pin(async move { Ok(json!({"reserved": args["slot"]})) }),
    )
    .with_idempotency_key(["slot"])
}

/// A memory store that counts its reads, and fails them when told to.
#[derive(Default)]
struct CountingStore {
    inner: MemoryRecordStore,
    reads: AtomicUsize,
    failing: std::sync::atomic::AtomicBool,
}

/// The store as the toolbox holds it, while the test keeps a handle.
struct Shared(Arc<CountingStore>);

impl RecordStore for Shared {
    fn put(&self, value: Value) -> String {
        self.0.inner.put(value)
    }

    fn get(&self, reference: &str) -> Option<Value> {
        self.try_get(reference).ok().flatten()
    }

    fn try_get(&self, reference: &str) -> Result<Option<Value>, BackendError> {
        self.0.reads.fetch_add(1, Ordering::SeqCst);
        if self.0.failing.load(Ordering::SeqCst) {
            return Err(BackendError::new("the disk is gone"));
        }
        Ok(self.0.inner.get(reference))
    }
}

fn toolbox(store: Arc<CountingStore>, policy: Policy) -> Toolbox {
    Toolbox::builder()
        .tools([list_numbers(), get_one(), reserve_slot()])
        .output_budget(100)
        .record_store(Shared(store))
        .policy(policy)
        .build()
        .unwrap()
}

fn numbers() -> Value {
    json!((0..1000).collect::<Vec<_>>())
}

#[tokio::test]
async fn a_cut_result_is_read_whole_by_the_caller_it_was_made_for() {
    let store = Arc::new(CountingStore::default());
    let tb = toolbox(Arc::clone(&store), Policy::allow_all());
    for caller in [Caller::new("ann"), Caller::anonymous()] {
        let env = tb.call_as(&caller, "list_numbers", "{}").await;
        assert!(env.truncated, "{}", env.to_json());
        let link = tb.result_resource("list_numbers", &env, &caller).unwrap();
        let reference = env.reference.clone().unwrap();
        assert!(link.uri.starts_with(RESULT_URI_PREFIX), "{}", link.uri);
        assert!(link.uri.contains(&reference), "{}", link.uri);
        assert_eq!(link.name, reference);
        assert_eq!(link.mime_type, RESULT_MIME_TYPE);
        assert_eq!(link.title, "Full result of list_numbers");
        assert!(
            link.description
                .starts_with("The full result of this call to \"list_numbers\", of which"),
            "{}",
            link.description
        );
        assert_eq!(tb.read_result(&link.uri, &caller).await.unwrap(), numbers());
        // A caller is named by its identity: the same id with other roles reads it too.
        let same = caller.clone().with_role("auditor");
        assert_eq!(tb.read_result(&link.uri, &same).await.unwrap(), numbers());
    }
    // An envelope without a `ref` names nothing.
    let small = tb.call_as(&Caller::new("ann"), "get_one", "{}").await;
    assert_eq!(small.status, Status::Ok);
    assert_eq!(
        tb.result_resource("get_one", &small, &Caller::new("ann")),
        None
    );
}

#[tokio::test]
async fn another_caller_a_guessed_or_an_edited_link_is_refused_before_the_store_is_read() {
    let store = Arc::new(CountingStore::default());
    let tb = toolbox(Arc::clone(&store), Policy::allow_all());
    let ann = Caller::new("ann");
    let env = tb.call_as(&ann, "list_numbers", "{}").await;
    let link = tb.result_resource("list_numbers", &env, &ann).unwrap();
    let reference = env.reference.clone().unwrap();
    let tag = link.uri.rsplit_once("tag=").unwrap().1.to_string();
    let reads = store.reads.load(Ordering::SeqCst);

    // Another caller, and the anonymous one.
    for other in [Caller::new("bob"), Caller::anonymous(), Caller::new("ann ")] {
        let err = tb.read_result(&link.uri, &other).await.unwrap_err();
        assert_eq!(err, ResultReadError::Foreign, "{other:?}");
        assert!(!err.is_not_found());
        assert!(err.to_string().contains("only by the caller"), "{err}");
    }
    // A guessed reference with a made-up tag; the real reference moved to another tool; and
    // another reference under ann's tag: well-formed, and refused by the tag.
    let guessed = format!(
        "{RESULT_URI_PREFIX}rec_{}?tool=list_numbers&tag={}",
        "0".repeat(32),
        "1".repeat(32)
    );
    let moved = link.uri.replace("tool=list_numbers", "tool=get_one");
    let other_ref = link
        .uri
        .replace(&reference, "rec_00000000000000000000000000000000");
    for uri in [guessed, moved, other_ref] {
        assert_eq!(
            tb.read_result(&uri, &ann).await.unwrap_err(),
            ResultReadError::Foreign,
            "{uri}"
        );
    }
    // Cut or edited beyond parsing.
    let cut = link.uri[..link.uri.len() - 4].to_string();
    let no_tool = format!("{RESULT_URI_PREFIX}{reference}?tag={tag}");
    for uri in [cut, no_tool] {
        let err = tb.read_result(&uri, &ann).await.unwrap_err();
        assert_eq!(err, ResultReadError::Malformed, "{uri}");
        assert!(err.to_string().contains("exactly as"), "{err}");
    }
    // Not a kept result's URI at all.
    let err = tb
        .read_result("file:///etc/passwd", &ann)
        .await
        .unwrap_err();
    assert_eq!(err, ResultReadError::NotAResult);
    assert!(err.is_not_found());
    // None of these reached the store.
    assert_eq!(store.reads.load(Ordering::SeqCst), reads);
    assert_eq!(tb.read_result(&link.uri, &ann).await.unwrap(), numbers());
    assert_eq!(store.reads.load(Ordering::SeqCst), reads + 1);
}

#[tokio::test]
async fn a_result_the_store_dropped_is_not_found_and_says_what_to_do() {
    let tb = Toolbox::builder()
        .tool(list_numbers())
        .output_budget(100)
        .record_store(MemoryRecordStore::new(1))
        .build()
        .unwrap();
    let ann = Caller::new("ann");
    let first = tb.call_as(&ann, "list_numbers", "{}").await;
    let first = tb.result_resource("list_numbers", &first, &ann).unwrap();
    let second = tb.call_as(&ann, "list_numbers", "{}").await;
    let second = tb.result_resource("list_numbers", &second, &ann).unwrap();
    let err = tb.read_result(&first.uri, &ann).await.unwrap_err();
    assert_eq!(
        err,
        ResultReadError::NotKept {
            tool: "list_numbers".into()
        }
    );
    assert!(err.is_not_found());
    let text = err.to_string();
    assert!(
        text.contains("no longer kept") && text.contains("Call \"list_numbers\" again"),
        "{text}"
    );
    assert_eq!(tb.read_result(&second.uri, &ann).await.unwrap(), numbers());
}

#[tokio::test]
async fn the_policy_of_the_moment_and_the_registry_decide_too() {
    let store = Arc::new(CountingStore::default());
    let policy = Policy::allow_all().require_scope("list_numbers", "numbers:read");
    let tb = toolbox(Arc::clone(&store), policy);
    let ann = Caller::new("ann").with_scope("numbers:read");
    let env = tb.call_as(&ann, "list_numbers", "{}").await;
    assert!(env.truncated, "{}", env.to_json());
    let link = tb.result_resource("list_numbers", &env, &ann).unwrap();
    // The same identity without the scope: the policy refuses, as it would the call.
    let reads = store.reads.load(Ordering::SeqCst);
    let err = tb
        .read_result(&link.uri, &Caller::new("ann"))
        .await
        .unwrap_err();
    assert!(matches!(err, ResultReadError::Denied(_)), "{err:?}");
    assert!(err.to_string().contains("numbers:read"), "{err}");
    assert_eq!(store.reads.load(Ordering::SeqCst), reads);
    assert_eq!(tb.read_result(&link.uri, &ann).await.unwrap(), numbers());
    // A retired tool's results are not served.
    tb.deregister("list_numbers").unwrap();
    let err = tb.read_result(&link.uri, &ann).await.unwrap_err();
    assert_eq!(
        err,
        ResultReadError::ToolUnavailable {
            tool: "list_numbers".into()
        }
    );
    assert!(err.is_not_found());
}

#[tokio::test]
async fn a_store_that_fails_is_unavailable_and_a_fault() {
    let store = Arc::new(CountingStore::default());
    let tb = toolbox(Arc::clone(&store), Policy::allow_all());
    let ann = Caller::new("ann");
    let env = tb.call_as(&ann, "list_numbers", "{}").await;
    let link = tb.result_resource("list_numbers", &env, &ann).unwrap();
    store.failing.store(true, Ordering::SeqCst);
    let faults = tb.faults().record_store;
    let err = tb.read_result(&link.uri, &ann).await.unwrap_err();
    assert_eq!(err, ResultReadError::Unavailable);
    assert!(!err.is_not_found());
    assert!(err.to_string().contains("Try again"), "{err}");
    assert_eq!(tb.faults().record_store, faults + 1);
}

#[tokio::test]
async fn a_keyed_write_and_its_duplicate_name_the_same_kept_result() {
    let tb = toolbox(Arc::default(), Policy::allow_all());
    let ann = Caller::new("ann");
    let args = json!({"slot": "tue-9"});
    let first = tb.call_as(&ann, "reserve_slot", &args).await;
    assert_eq!(first.status, Status::Ok, "{}", first.to_json());
    assert!(!first.truncated);
    let link = tb.result_resource("reserve_slot", &first, &ann).unwrap();
    assert_eq!(
        link.description,
        "The full result of this call to \"reserve_slot\", as JSON (kept for a while, for this \
         caller only)."
    );
    let repeat = tb.call_as(&ann, "reserve_slot", &args).await;
    assert_eq!(
        repeat.code.as_deref(),
        Some("DUPLICATE"),
        "{}",
        repeat.to_json()
    );
    let original = tb.result_resource("reserve_slot", &repeat, &ann).unwrap();
    assert!(
        original
            .description
            .starts_with("The result of the earlier call to \"reserve_slot\""),
        "{}",
        original.description
    );
    let want = json!({"reserved": "tue-9"});
    assert_eq!(tb.read_result(&link.uri, &ann).await.unwrap(), want);
    assert_eq!(tb.read_result(&original.uri, &ann).await.unwrap(), want);
}

/// Two replicas with one shared state and one cursor key serve each other's links; a toolbox
/// with another key refuses them.
#[tokio::test]
async fn replicas_with_one_key_and_one_state_serve_each_others_links() {
    let state = Arc::new(MemoryStateStore::default());
    let key = SecretKey::from_bytes([9; 32]);
    let replica = |key: SecretKey| {
        Toolbox::builder()
            .tool(list_numbers())
            .output_budget(100)
            .state_store(state.clone())
            .cursor_key(key)
            .build()
            .unwrap()
    };
    let (a, b, other) = (
        replica(key.clone()),
        replica(key),
        replica(SecretKey::random()),
    );
    let ann = Caller::new("ann");
    let env: Envelope = a
        .call_with("list_numbers", "{}", CallOptions::new().caller(ann.clone()))
        .await;
    let link = a.result_resource("list_numbers", &env, &ann).unwrap();
    assert_eq!(b.read_result(&link.uri, &ann).await.unwrap(), numbers());
    assert_eq!(
        other.read_result(&link.uri, &ann).await.unwrap_err(),
        ResultReadError::Foreign
    );
}
