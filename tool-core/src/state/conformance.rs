//! The conformance suite every [`StateStore`] passes (feature `testkit`): the promises of the
//! [module table](super) checked on a real store, through two handles to the same state (two
//! connections, as two replicas hold them; for a store of one process, the same store twice).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! let store = tool_core::state::MemoryStateStore::default();
//! tool_core::state::conformance::check(&store, &store).await;
//! # });
//! ```
//!
//! Each check uses keys of its own (a random prefix), so the suite can run against a store that
//! holds other data, and more than once. It sleeps for short leases to lapse (a few hundred
//! milliseconds in all) and panics with the promise that failed.

use super::{ClaimRequest, ClaimState, KeptValue, StateStore, MAX_KEPT_BYTES};
use crate::store::{new_reference, StoredOutcome};
use serde_json::json;
use std::time::Duration;

/// A lease long enough that no check sees it lapse by accident.
const LONG: Duration = Duration::from_secs(60);
/// A lease checks wait out.
const SHORT: Duration = Duration::from_millis(150);

fn request<'a>(token: &'a str, operation_id: &'a str, lease: Duration) -> ClaimRequest<'a> {
    ClaimRequest {
        token,
        operation_id,
        request: None,
        lease,
        window: LONG,
        started: false,
    }
}

fn outcome(operation_id: &str, reference: Option<&str>) -> StoredOutcome {
    StoredOutcome {
        operation_id: operation_id.to_string(),
        reference: reference.map(str::to_string),
        unknown: false,
        request: None,
        at_unix_ms: crate::store::unix_ms(),
    }
}

async fn claim(store: &dyn StateStore, key: &str, req: ClaimRequest<'_>) -> ClaimState {
    store
        .claim(key, req)
        .await
        .unwrap_or_else(|e| panic!("claim of {key} failed: {e}"))
}

/// Runs every check on `a` and `b`, two handles to one shared state.
pub async fn check(a: &dyn StateStore, b: &dyn StateStore) {
    let prefix = format!("conformance:{}:", crate::secret::random_hex(6));
    let key = |name: &str| format!("{prefix}{name}");
    one_claim_wins(a, b, &key("one")).await;
    finish_is_seen_everywhere(a, b, &key("finish")).await;
    release_frees_the_key(a, b, &key("release")).await;
    only_the_holder_acts(a, b, &key("holder")).await;
    a_lapsed_lease_frees_an_unstarted_run(a, b, &key("lapsed")).await;
    a_lapsed_started_run_is_unknown(a, b, &key("crashed")).await;
    renewal_keeps_the_lease(a, b, &key("renew")).await;
    the_request_fingerprint_is_kept(a, b, &key("request")).await;
    outcomes_end_with_the_window(a, b, &key("window")).await;
    kept_values_are_shared_and_expire(a, b).await;
    a_claim_written_started_is_unknown_once_lapsed(a, b, &key("started")).await;
    a_released_started_claim_frees_the_key(a, b, &key("started_release")).await;
    finish_keeps_its_value_atomically(a, b, &key("finish_kept")).await;
    a_finish_under_a_kept_reference_writes_nothing(a, b, &key("finish_taken")).await;
    concurrent_claims_have_one_winner(a, b, &key("race")).await;
}

async fn one_claim_wins(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(
        claim(a, key, request("t1", "op_1", LONG)).await,
        ClaimState::Claimed
    );
    // The same token claiming again (a retried claim whose answer was lost) holds it still.
    assert_eq!(
        claim(b, key, request("t1", "op_1", LONG)).await,
        ClaimState::Claimed,
        "a claim repeated by its own token must be granted"
    );
    match claim(b, key, request("t2", "op_2", LONG)).await {
        ClaimState::Running { operation_id, .. } => assert_eq!(operation_id, "op_1"),
        other => panic!("a second claim must see the run of op_1, got {other:?}"),
    }
}

async fn finish_is_seen_everywhere(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(
        claim(a, key, request("t1", "op_1", LONG)).await,
        ClaimState::Claimed
    );
    let done = outcome("op_1", Some("rec_1"));
    assert!(a.finish(key, "t1", &done, LONG, None).await.unwrap());
    match claim(b, key, request("t2", "op_2", LONG)).await {
        ClaimState::Recorded(kept) => {
            assert_eq!(kept.operation_id, "op_1");
            assert_eq!(kept.reference.as_deref(), Some("rec_1"));
            assert!(!kept.unknown);
        }
        other => panic!("a finished outcome must answer the next claim, got {other:?}"),
    }
    // Finishing is the holder's once: the lease is gone.
    assert!(!a.finish(key, "t1", &done, LONG, None).await.unwrap());
}

async fn release_frees_the_key(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(
        claim(a, key, request("t1", "op_1", LONG)).await,
        ClaimState::Claimed
    );
    assert!(a.release(key, "t1").await.unwrap());
    assert_eq!(
        claim(b, key, request("t2", "op_2", LONG)).await,
        ClaimState::Claimed,
        "a released key must be claimable"
    );
}

async fn only_the_holder_acts(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(
        claim(a, key, request("t1", "op_1", LONG)).await,
        ClaimState::Claimed
    );
    let forged = outcome("op_x", None);
    assert!(!b.finish(key, "t2", &forged, LONG, None).await.unwrap());
    assert!(!b.release(key, "t2").await.unwrap());
    assert!(!b.renew(key, "t2", LONG).await.unwrap());
    assert!(!b.mark_started(key, "t2").await.unwrap());
    match claim(b, key, request("t3", "op_3", LONG)).await {
        ClaimState::Running { operation_id, .. } => assert_eq!(operation_id, "op_1"),
        other => panic!("another token must change nothing, got {other:?}"),
    }
}

async fn a_lapsed_lease_frees_an_unstarted_run(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(
        claim(a, key, request("t1", "op_1", SHORT)).await,
        ClaimState::Claimed
    );
    tokio::time::sleep(SHORT * 2).await;
    assert_eq!(
        claim(b, key, request("t2", "op_2", LONG)).await,
        ClaimState::Claimed,
        "the lapsed lease of a run that never started must free the key"
    );
    // The old holder has lost it.
    assert!(!a.renew(key, "t1", LONG).await.unwrap());
    assert!(!a
        .finish(key, "t1", &outcome("op_1", None), LONG, None)
        .await
        .unwrap());
}

async fn a_lapsed_started_run_is_unknown(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(
        claim(a, key, request("t1", "op_1", SHORT)).await,
        ClaimState::Claimed
    );
    assert!(a.mark_started(key, "t1").await.unwrap());
    // The holder dies: no renewal, no finish.
    tokio::time::sleep(SHORT * 2).await;
    for (store, token) in [(b, "t2"), (a, "t3")] {
        match claim(store, key, request(token, "op_2", LONG)).await {
            ClaimState::Recorded(kept) => {
                assert!(kept.unknown, "a run that started and lapsed is unknown");
                assert_eq!(kept.operation_id, "op_1");
            }
            other => panic!("a lapsed started run must be an unknown outcome, got {other:?}"),
        }
    }
}

async fn renewal_keeps_the_lease(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(
        claim(a, key, request("t1", "op_1", SHORT)).await,
        ClaimState::Claimed
    );
    for _ in 0..3 {
        tokio::time::sleep(SHORT / 2).await;
        assert!(a.renew(key, "t1", SHORT).await.unwrap());
    }
    match claim(b, key, request("t2", "op_2", LONG)).await {
        ClaimState::Running { operation_id, .. } => assert_eq!(operation_id, "op_1"),
        other => panic!("a renewed lease must stay live, got {other:?}"),
    }
}

async fn the_request_fingerprint_is_kept(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    let mut req = request("t1", "op_1", LONG);
    req.request = Some("fp_1");
    assert_eq!(claim(a, key, req).await, ClaimState::Claimed);
    match claim(b, key, request("t2", "op_2", LONG)).await {
        ClaimState::Running { request, .. } => assert_eq!(request.as_deref(), Some("fp_1")),
        other => panic!("the running claim must carry its fingerprint, got {other:?}"),
    }
    let mut done = outcome("op_1", None);
    done.request = Some("fp_1".into());
    assert!(a.finish(key, "t1", &done, LONG, None).await.unwrap());
    match claim(b, key, request("t2", "op_2", LONG)).await {
        ClaimState::Recorded(kept) => assert_eq!(kept.request.as_deref(), Some("fp_1")),
        other => panic!("the outcome must carry its fingerprint, got {other:?}"),
    }
}

async fn outcomes_end_with_the_window(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(
        claim(a, key, request("t1", "op_1", LONG)).await,
        ClaimState::Claimed
    );
    assert!(a
        .finish(key, "t1", &outcome("op_1", None), SHORT, None)
        .await
        .unwrap());
    tokio::time::sleep(SHORT * 2).await;
    assert_eq!(
        claim(b, key, request("t2", "op_2", LONG)).await,
        ClaimState::Claimed,
        "an outcome past its window must free the key"
    );
}

async fn kept_values_are_shared_and_expire(a: &dyn StateStore, b: &dyn StateStore) {
    let value = json!({"items": [1, 2, 3], "note": "kept"});
    let reference = new_reference();
    a.keep(&reference, &value, LONG).await.unwrap();
    assert_eq!(b.read(&reference).await.unwrap(), Some(value.clone()));
    // A kept reference is never replaced.
    assert!(
        b.keep(&reference, &json!("other"), LONG).await.is_err(),
        "keeping under a reference already kept must fail"
    );
    assert_eq!(a.read(&reference).await.unwrap(), Some(value.clone()));
    assert_eq!(
        b.read("rec_00000000000000000000000000000000")
            .await
            .unwrap(),
        None
    );
    let short = new_reference();
    a.keep(&short, &value, SHORT).await.unwrap();
    tokio::time::sleep(SHORT * 2).await;
    assert_eq!(
        b.read(&short).await.unwrap(),
        None,
        "a kept value must expire"
    );
    // The bound is the caller's to apply; a store need only keep values up to it.
    let big = json!("x".repeat(MAX_KEPT_BYTES.min(1 << 20)));
    let big_ref = new_reference();
    a.keep(&big_ref, &big, LONG).await.unwrap();
    assert_eq!(b.read(&big_ref).await.unwrap(), Some(big));
}

async fn concurrent_claims_have_one_winner(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    let tokens: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
    let claims = tokens.iter().enumerate().map(|(i, token)| {
        let store = if i % 2 == 0 { a } else { b };
        async move { claim(store, key, request(token, "op", LONG)).await }
    });
    let answers = futures_util::future::join_all(claims).await;
    let winners = answers
        .iter()
        .filter(|s| **s == ClaimState::Claimed)
        .count();
    assert_eq!(
        winners, 1,
        "exactly one of 20 concurrent claims wins: {answers:?}"
    );
}

async fn a_claim_written_started_is_unknown_once_lapsed(
    a: &dyn StateStore,
    b: &dyn StateStore,
    key: &str,
) {
    let mut req = request("t1", "op_1", SHORT);
    req.started = true;
    assert_eq!(claim(a, key, req).await, ClaimState::Claimed);
    // The holder dies before it marks anything: the claim itself said the run started.
    tokio::time::sleep(SHORT * 2).await;
    match claim(b, key, request("t2", "op_2", LONG)).await {
        ClaimState::Recorded(kept) => {
            assert!(
                kept.unknown,
                "a claim written started and lapsed is unknown"
            );
            assert_eq!(kept.operation_id, "op_1");
        }
        other => panic!("a lapsed claim written started must be unknown, got {other:?}"),
    }
}

async fn a_released_started_claim_frees_the_key(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    let mut req = request("t1", "op_1", LONG);
    req.started = true;
    assert_eq!(claim(a, key, req).await, ClaimState::Claimed);
    // Refused before it ran (a hook said no): the holder releases it.
    assert!(a.release(key, "t1").await.unwrap());
    assert_eq!(
        claim(b, key, request("t2", "op_2", LONG)).await,
        ClaimState::Claimed,
        "a released claim must free the key, started or not"
    );
}

async fn finish_keeps_its_value_atomically(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(
        claim(a, key, request("t1", "op_1", LONG)).await,
        ClaimState::Claimed
    );
    let value = json!({"refund": "r_1", "amount": 12});
    let reference = new_reference();
    let kept = KeptValue {
        reference: &reference,
        value: &value,
        ttl: LONG,
    };
    // Another token's finish keeps nothing either.
    let forged = new_reference();
    let forged_kept = KeptValue {
        reference: &forged,
        ..kept
    };
    let done = outcome("op_1", Some(&reference));
    assert!(!b
        .finish(key, "t2", &done, LONG, Some(forged_kept))
        .await
        .unwrap());
    assert_eq!(
        a.read(&forged).await.unwrap(),
        None,
        "a finish that is not the holder's must keep no value"
    );
    assert!(a.finish(key, "t1", &done, LONG, Some(kept)).await.unwrap());
    match claim(b, key, request("t2", "op_2", LONG)).await {
        ClaimState::Recorded(rec) => {
            assert_eq!(rec.reference.as_deref(), Some(reference.as_str()));
            assert_eq!(
                b.read(&reference).await.unwrap(),
                Some(value),
                "the value kept with an outcome must be readable everywhere"
            );
        }
        other => panic!("a finished outcome must answer the next claim, got {other:?}"),
    }
}

async fn a_finish_under_a_kept_reference_writes_nothing(
    a: &dyn StateStore,
    b: &dyn StateStore,
    key: &str,
) {
    let reference = new_reference();
    a.keep(&reference, &json!("first"), LONG).await.unwrap();
    assert_eq!(
        claim(a, key, request("t1", "op_1", LONG)).await,
        ClaimState::Claimed
    );
    let kept = KeptValue {
        reference: &reference,
        value: &json!("second"),
        ttl: LONG,
    };
    let done = outcome("op_1", Some(&reference));
    assert!(
        a.finish(key, "t1", &done, LONG, Some(kept)).await.is_err(),
        "a finish keeping under a reference kept already must fail"
    );
    assert_eq!(b.read(&reference).await.unwrap(), Some(json!("first")));
    match claim(b, key, request("t2", "op_2", LONG)).await {
        ClaimState::Running { operation_id, .. } => assert_eq!(operation_id, "op_1"),
        other => panic!("a failed finish must leave the lease as it was, got {other:?}"),
    }
}
