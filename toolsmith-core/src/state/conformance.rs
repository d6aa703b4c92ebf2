//! The conformance suite every [`StateStore`] passes (feature `testkit`): the promises of the
//! [module table](super) checked on a real store, through two handles to the same state (two
//! connections, as two replicas hold them; for a store of one process, the same store twice).
//!
//! ```
//! # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! let store = toolsmith::state::MemoryStateStore::default();
//! toolsmith::state::conformance::check(&store, &store).await;
//! # });
//! ```
//!
//! Each check uses keys of its own (a random prefix), so the suite can run against a store that
//! holds other data, and more than once. It panics with the promise that failed.
//!
//! No check assumes that a step of the store takes less than some time. A check that needs a
//! short lease (a window, a kept value) to lapse asks the store until it says so (a few hundred
//! milliseconds in all; at most 30 s each, reached only by a store that never lets go). The
//! renewal check measures its own round trips: a round counts only when every step was answered
//! within the lease it relied on, and a round the store (or a loaded machine) was too slow for
//! is run again with a lease twice as long.

use super::{ClaimRequest, ClaimState, KeptValue, StateStore, MAX_KEPT_BYTES};
use crate::store::{new_reference, StoredOutcome};
use serde_json::json;
use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;

/// A lease long enough that no check sees it lapse by accident.
const LONG: Duration = Duration::from_secs(60);
/// A lease checks wait out.
const SHORT: Duration = Duration::from_millis(150);
/// How long a check asks the store for a short lease (window, kept value) to lapse before it
/// fails: far beyond `SHORT`, so only a store that never lets go reaches it.
const LAPSE_BOUND: Duration = Duration::from_secs(30);
/// The pause between two questions to the store while a check waits for a lapse.
const POLL: Duration = Duration::from_millis(10);
/// The lease of the renewal check's first round; each inconclusive round doubles it.
const RENEW_LEASE: Duration = Duration::from_millis(300);
/// Rounds of the renewal check before it gives up (the last with a lease of 4.8 s).
const RENEW_ROUNDS: u32 = 5;

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

/// Asks `look` until it answers `Some` (the store says that what had to lapse has lapsed),
/// pausing [`POLL`] between questions, for at most [`LAPSE_BOUND`]. `look` answers `None` while
/// the store still shows the state before the lapse, and panics on anything else.
async fn until_lapsed<T, F, Fut>(what: &str, mut look: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + LAPSE_BOUND;
    loop {
        if let Some(found) = look().await {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the store still held it {LAPSE_BOUND:?} later"
        );
        tokio::time::sleep(POLL).await;
    }
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
    records_are_replaced_by_version(a, b, &key("record")).await;
    concurrent_swaps_have_one_winner(a, b, &key("record_race")).await;
    records_expire_and_stand_apart(a, b, &key("record_ttl")).await;
}

async fn load(store: &dyn StateStore, key: &str) -> Option<super::Record> {
    store
        .load_record(key)
        .await
        .unwrap_or_else(|e| panic!("load_record of {key} failed: {e}"))
}

async fn swap(
    store: &dyn StateStore,
    key: &str,
    expected: u64,
    value: &serde_json::Value,
    ttl: Duration,
) -> Option<u64> {
    store
        .swap_record(key, expected, value, ttl)
        .await
        .unwrap_or_else(|e| panic!("swap_record of {key} failed: {e}"))
}

async fn records_are_replaced_by_version(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(load(a, key).await, None, "a fresh key holds no record");
    let first = json!({"status": "working", "n": 1});
    let v1 = swap(a, key, 0, &first, LONG)
        .await
        .expect("writing a new record (expected version 0) must succeed");
    assert!(v1 >= 1, "a record's version is at least 1, got {v1}");
    let seen = load(b, key)
        .await
        .expect("the record must be seen everywhere");
    assert_eq!((seen.version, &seen.value), (v1, &first));
    assert_eq!(
        swap(b, key, 0, &json!({"n": "other"}), LONG).await,
        None,
        "creating a record that exists must be refused"
    );
    let second = json!({"status": "completed", "n": 2});
    let v2 = swap(b, key, v1, &second, LONG)
        .await
        .expect("a swap at the current version must succeed");
    assert!(
        v2 > v1,
        "a replacement must increase the version ({v1} -> {v2})"
    );
    assert_eq!(
        swap(a, key, v1, &json!({"stale": true}), LONG).await,
        None,
        "a swap at a stale version must be refused"
    );
    let seen = load(a, key).await.expect("the record is still there");
    assert_eq!(
        (seen.version, &seen.value),
        (v2, &second),
        "a refused swap wrote nothing"
    );
    let huge = json!("x".repeat(MAX_KEPT_BYTES + 1));
    assert!(
        a.swap_record(key, v2, &huge, LONG).await.is_err(),
        "a record over MAX_KEPT_BYTES must be refused with an error"
    );
    assert_eq!(load(b, key).await.map(|r| r.version), Some(v2));
}

async fn concurrent_swaps_have_one_winner(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    let v1 = swap(a, key, 0, &json!({"n": 0}), LONG)
        .await
        .expect("the record is new");
    let (x, y) = (json!({"by": "a"}), json!({"by": "b"}));
    let (ra, rb) = tokio::join!(swap(a, key, v1, &x, LONG), swap(b, key, v1, &y, LONG));
    let winner = match (ra, rb) {
        (Some(v), None) => (v, x),
        (None, Some(v)) => (v, y),
        other => panic!("two swaps from one version must have exactly one winner, got {other:?}"),
    };
    let seen = load(b, key).await.expect("the record is there");
    assert_eq!((seen.version, seen.value), winner);
}

async fn records_expire_and_stand_apart(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    assert_eq!(
        claim(a, key, request("t1", "op_1", LONG)).await,
        ClaimState::Claimed
    );
    assert_eq!(
        load(b, key).await,
        None,
        "a claim under a key is not a record under it"
    );
    swap(a, key, 0, &json!({"short": true}), SHORT)
        .await
        .expect("the record is new");
    until_lapsed("a record past its ttl", || async {
        load(b, key).await.is_none().then_some(())
    })
    .await;
    assert!(
        swap(b, key, 0, &json!({"again": true}), LONG)
            .await
            .is_some(),
        "an expired record's key must be free to create again"
    );
    assert_eq!(
        claim(b, key, request("t2", "op_2", LONG)).await,
        ClaimState::Running {
            operation_id: "op_1".into(),
            request: None
        },
        "a record under a key leaves its claim alone"
    );
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
    // Until the lease lapses the key is op_1's; then the lapsed lease of a run that never
    // started frees it.
    until_lapsed("an unstarted lease", || async {
        match claim(b, key, request("t2", "op_2", LONG)).await {
            ClaimState::Claimed => Some(()),
            ClaimState::Running { operation_id, .. } if operation_id == "op_1" => None,
            other => {
                panic!("the lapsed lease of a run that never started must free the key: {other:?}")
            }
        }
    })
    .await;
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
    // The holder dies: no renewal, no finish. Running until the lease lapses, then unknown.
    let recorded = |store, token| async move {
        match claim(store, key, request(token, "op_2", LONG)).await {
            ClaimState::Recorded(kept) => {
                assert!(kept.unknown, "a run that started and lapsed is unknown");
                assert_eq!(kept.operation_id, "op_1");
                Some(())
            }
            ClaimState::Running { operation_id, .. } if operation_id == "op_1" => None,
            other => panic!("a lapsed started run must be an unknown outcome, got {other:?}"),
        }
    };
    until_lapsed("a started lease", || recorded(b, "t2")).await;
    assert_eq!(
        recorded(a, "t3").await,
        Some(()),
        "the unknown outcome is seen everywhere"
    );
}

/// Renewal keeps a lease live past its first end: the holder renews in a loop until more than a
/// lease has passed since its claim was answered, then another claim (sent after the unrenewed
/// lease would have ended) must find the run still going.
///
/// Nothing is assumed of the store's speed: a lease written by a step asked at `t` ends no
/// earlier than `t + lease` (the store wrote it after it was asked), so a step answered before
/// then certainly found it live. A round in which some step was answered later proves nothing
/// (the lease may have lapsed in between, as it should) and is run again with a lease twice as
/// long.
async fn renewal_keeps_the_lease(a: &dyn StateStore, b: &dyn StateStore, key: &str) {
    let mut lease = RENEW_LEASE;
    for round in 0..RENEW_ROUNDS {
        if renewal_round(a, b, &format!("{key}:{round}"), lease).await {
            return;
        }
        lease *= 2;
    }
    panic!(
        "renewal: in {RENEW_ROUNDS} rounds (leases up to {:?}) some step was always answered \
         too late to show anything",
        lease / 2
    );
}

/// One round of [`renewal_keeps_the_lease`] with `lease`: `true` when it proved the promise,
/// `false` when a step came too late to tell (it panics when the promise is broken).
async fn renewal_round(a: &dyn StateStore, b: &dyn StateStore, key: &str, lease: Duration) -> bool {
    // A step answered within this much of the end of the lease it relied on certainly found it
    // live (a tenth is kept back for the store's clock and ours to disagree).
    let sure = lease - lease / 10;
    // When the lease as last written was asked for: it ends no earlier than `since + lease`.
    let mut since = Instant::now();
    assert_eq!(
        claim(a, key, request("t1", "op_1", lease)).await,
        ClaimState::Claimed
    );
    let claimed = Instant::now();
    // Unrenewed, the lease ends by `claimed + lease`: renew until that is past.
    while Instant::now() <= claimed + lease {
        tokio::time::sleep(lease / 4).await;
        let asked = Instant::now();
        let renewed = a.renew(key, "t1", lease).await.unwrap();
        if Instant::now() >= since + sure {
            return false;
        }
        assert!(
            renewed,
            "the holder's renewal of its live lease must succeed"
        );
        since = asked;
    }
    let state = claim(b, key, request("t2", "op_2", LONG)).await;
    if Instant::now() >= since + sure {
        return false;
    }
    match state {
        ClaimState::Running { operation_id, .. } => assert_eq!(operation_id, "op_1"),
        other => panic!(
            "a renewed lease must stay live past its first end ({lease:?} after the claim), got \
             {other:?}"
        ),
    }
    true
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
    // The outcome answers until its window ends; then the key is free.
    until_lapsed("an outcome's window", || async {
        match claim(b, key, request("t2", "op_2", LONG)).await {
            ClaimState::Claimed => Some(()),
            ClaimState::Recorded(kept) if kept.operation_id == "op_1" => None,
            other => panic!("an outcome past its window must free the key, got {other:?}"),
        }
    })
    .await;
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
    until_lapsed("a kept value", || async {
        match b.read(&short).await.unwrap() {
            None => Some(()),
            Some(kept) => {
                assert_eq!(kept, value, "a kept value reads as kept until it expires");
                None
            }
        }
    })
    .await;
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
    until_lapsed("a lease written started", || async {
        match claim(b, key, request("t2", "op_2", LONG)).await {
            ClaimState::Recorded(kept) => {
                assert!(
                    kept.unknown,
                    "a claim written started and lapsed is unknown"
                );
                assert_eq!(kept.operation_id, "op_1");
                Some(())
            }
            ClaimState::Running { operation_id, .. } if operation_id == "op_1" => None,
            other => panic!("a lapsed claim written started must be unknown, got {other:?}"),
        }
    })
    .await;
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

#[cfg(test)]
mod tests {
    //! The suite's own checks catch what they name: a store that answers a renewal without
    //! pushing the lease out fails the renewal check.
    use super::super::{
        BackendError, BoxFuture, ClaimRequest, ClaimState, KeptValue, MemoryStateStore, StateStore,
    };
    use crate::store::StoredOutcome;
    use serde_json::Value;
    use std::time::Duration;

    /// The memory store, except that a renewal by the holder changes nothing.
    #[derive(Default)]
    struct NoRenewal(MemoryStateStore);

    impl StateStore for NoRenewal {
        fn claim<'a>(
            &'a self,
            key: &'a str,
            req: ClaimRequest<'a>,
        ) -> BoxFuture<'a, Result<ClaimState, BackendError>> {
            self.0.claim(key, req)
        }
        fn renew<'a>(
            &'a self,
            key: &'a str,
            token: &'a str,
            _lease: Duration,
        ) -> BoxFuture<'a, Result<bool, BackendError>> {
            // Says yes while the lease is the holder's, as a store that forgot to write would.
            let held = self.0.with_lease(key, token, |_| {});
            Box::pin(std::future::ready(Ok(held)))
        }
        fn mark_started<'a>(
            &'a self,
            key: &'a str,
            token: &'a str,
        ) -> BoxFuture<'a, Result<bool, BackendError>> {
            self.0.mark_started(key, token)
        }
        fn finish<'a>(
            &'a self,
            key: &'a str,
            token: &'a str,
            outcome: &'a StoredOutcome,
            window: Duration,
            kept: Option<KeptValue<'a>>,
        ) -> BoxFuture<'a, Result<bool, BackendError>> {
            self.0.finish(key, token, outcome, window, kept)
        }
        fn release<'a>(
            &'a self,
            key: &'a str,
            token: &'a str,
        ) -> BoxFuture<'a, Result<bool, BackendError>> {
            self.0.release(key, token)
        }
        fn keep<'a>(
            &'a self,
            reference: &'a str,
            value: &'a Value,
            ttl: Duration,
        ) -> BoxFuture<'a, Result<(), BackendError>> {
            self.0.keep(reference, value, ttl)
        }
        fn read<'a>(
            &'a self,
            reference: &'a str,
        ) -> BoxFuture<'a, Result<Option<Value>, BackendError>> {
            self.0.read(reference)
        }
    }

    #[tokio::test]
    // The holder's renewal after the first end is refused, or the other claim finds the key
    // free: either way the lease did not stay live.
    #[should_panic(expected = "live")]
    async fn the_renewal_check_fails_a_store_that_does_not_renew() {
        let store = NoRenewal::default();
        super::renewal_keeps_the_lease(&store, &store, "renew").await;
    }
}
