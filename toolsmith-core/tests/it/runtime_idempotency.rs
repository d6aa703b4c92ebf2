//! Through the toolbox: which answers of a keyed write keep its idempotency key and which
//! release it (the gate on its own is tested inside the crate, `src/idempotency/tests.rs`).

use crate::common;

use serde_json::json;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;
use toolsmith_core::{Effects, Status, Tool, ToolError, Toolbox};

/// What the scripted write answers on each run, in order; once the script is empty it succeeds.
type Script = Arc<Mutex<VecDeque<ToolError>>>;

/// A toolbox with one keyed write (`reserve_slot`, keyed by `slot`, neither idempotent nor
/// read-only) that answers from `script`, counts its runs in `runs` and, when `hold` is given,
/// waits for it before answering.
fn scripted_write(script: Script, runs: Arc<AtomicUsize>, hold: Option<Arc<Notify>>) -> Toolbox {
    let tool = Tool::from_fn(
        common::spec(
            "reserve_slot",
            "Reserves a delivery slot for an order. Returns the reservation.",
            json!({"type": "object", "properties": {
                "slot": {"type": "string"}, "note": {"type": "string"}
            }, "required": ["slot"], "additionalProperties": false}),
            Effects::none().with_writes(true),
        ),
        move |_, args| {
            let (script, runs, hold) = (script.clone(), runs.clone(), hold.clone());
            Box::pin(async move {
                runs.fetch_add(1, Ordering::SeqCst);
                if let Some(hold) = hold {
                    hold.notified().await;
                }
                let next = script.lock().unwrap().pop_front();
                match next {
                    Some(e) => Err(e),
                    None => Ok(json!({"reserved": args["slot"]})),
                }
            })
        },
    )
    .with_idempotency_key(["slot"]);
    Toolbox::builder().tool(tool).build().unwrap()
}

/// A keyed write whose tool answers `temporary_failure` did nothing: the retry the envelope asks
/// for (after `retry_after`) runs, instead of being refused as a duplicate of it; a repeat while
/// the first call still runs is refused `IN_PROGRESS` all the same, and once the retry succeeds
/// its repeats are duplicates again.
#[tokio::test(start_paused = true)]
async fn a_temporary_failure_releases_the_key_so_the_retry_runs() {
    let script: Script = Arc::new(Mutex::new(VecDeque::from([ToolError::temporary(
        30,
        "SLOT_LOCKED",
        "The slot is being changed by someone else. Wait, then try again.",
    )])));
    let runs = Arc::new(AtomicUsize::new(0));
    let hold = Arc::new(Notify::new());
    let tb = Arc::new(scripted_write(script, runs.clone(), Some(hold.clone())));
    let args = json!({"slot": "tue-10"});

    let first = tokio::spawn({
        let (tb, args) = (tb.clone(), args.clone());
        async move { tb.call("reserve_slot", args).await }
    });
    while runs.load(Ordering::SeqCst) == 0 {
        tokio::task::yield_now().await;
    }
    // While the first call runs, its key is claimed: a repeat is not run.
    let repeat = tb.call("reserve_slot", args.clone()).await;
    assert_eq!(repeat.status, Status::Refused, "{}", repeat.to_json());
    assert_eq!(repeat.code.as_deref(), Some("IN_PROGRESS"));
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    hold.notify_one();
    let first = first.await.unwrap();
    assert_eq!(
        first.status,
        Status::TemporaryFailure,
        "{}",
        first.to_json()
    );
    assert_eq!(first.code.as_deref(), Some("SLOT_LOCKED"));
    let wait = first
        .retry_after
        .expect("a temporary failure says when to retry");
    assert_eq!(wait, 30);

    // The agent does as told: waits `retry_after` (the test's clock is paused and moves on its
    // own), then calls again with the same arguments. The call runs.
    tokio::time::sleep(Duration::from_secs(wait)).await;
    // The permit lets the retry's run through at once (if it runs at all).
    hold.notify_one();
    let retry = tb.call("reserve_slot", args.clone()).await;
    assert_eq!(retry.status, Status::Ok, "{}", retry.to_json());
    assert_eq!(retry.data, Some(json!({"reserved": "tue-10"})));
    assert_eq!(runs.load(Ordering::SeqCst), 2);

    // The retry did the work: its repeats are duplicates of it, not of the failed attempt.
    let again = tb.call("reserve_slot", args).await;
    assert_eq!(
        again.code.as_deref(),
        Some("DUPLICATE"),
        "{}",
        again.to_json()
    );
    assert_eq!(
        again.data.as_ref().unwrap()["original_operation_id"],
        json!(retry.operation_id)
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

/// Every status a tool can answer, and what it means for the repeat of a keyed write: the
/// statuses that say nothing was done release the key (the repeat runs); a success, a failure
/// (which may have done part of the work) and a timeout keep it (the repeat is `DUPLICATE`).
#[tokio::test]
async fn each_status_a_keyed_write_answers_keeps_or_releases_its_key() {
    // `None`: the tool returns its result (`ok`).
    let answers: [(Option<ToolError>, bool); 10] = [
        (None, false),
        (Some(ToolError::empty("Nothing to reserve.")), false),
        (
            Some(ToolError::invalid_input("BAD_SLOT", "No such slot.")),
            true,
        ),
        (Some(ToolError::needs_input(["note"], "Which door?")), true),
        (
            Some(ToolError::refused("SLOT_FULL", "The slot is full.")),
            true,
        ),
        (
            Some(ToolError::denied("NOT_YOURS", "Not your order.")),
            true,
        ),
        (
            Some(ToolError::cancelled_by_user("The user declined.")),
            true,
        ),
        (
            Some(ToolError::temporary(5, "BUSY", "Busy; try again.")),
            true,
        ),
        (
            Some(ToolError::failed("GATEWAY", "Charged, then failed.")),
            false,
        ),
        (Some(ToolError::timeout("The depot did not answer.")), false),
    ];
    let status_of = |e: &Option<ToolError>| e.as_ref().map_or(Status::Ok, ToolError::status);
    // Every status is covered.
    let statuses: Vec<Status> = answers.iter().map(|(e, _)| status_of(e)).collect();
    assert_eq!(statuses, Status::ALL);

    for (answer, released) in answers {
        let status = status_of(&answer);
        let script: Script = Arc::new(Mutex::new(answer.into_iter().collect()));
        let runs = Arc::new(AtomicUsize::new(0));
        let tb = scripted_write(script, runs.clone(), None);
        let args = json!({"slot": "wed-14"});
        let first = tb.call("reserve_slot", args.clone()).await;
        assert_eq!(first.status, status, "{}", first.to_json());
        let repeat = tb.call("reserve_slot", args).await;
        if released {
            assert_eq!(
                repeat.status,
                Status::Ok,
                "{status:?}: {}",
                repeat.to_json()
            );
            assert_eq!(runs.load(Ordering::SeqCst), 2, "{status:?}");
        } else {
            assert_eq!(
                repeat.code.as_deref(),
                Some("DUPLICATE"),
                "{status:?}: {}",
                repeat.to_json()
            );
            assert_eq!(runs.load(Ordering::SeqCst), 1, "{status:?}");
        }
    }
}
