//! The StateStore conformance suite on a real Redis (`TOOLSMITH_REDIS_URL`), through two
//! connections as two replicas hold them, and the key layout the crate documents.

use super::common;

use redis::AsyncCommands;
use std::time::Duration;
use toolsmith_core::state::{conformance, ClaimRequest, ClaimState, StateStore};
use toolsmith_core::StoredOutcome;
use toolsmith_redis::RedisStateStore;

async fn connect(url: &str) -> RedisStateStore {
    RedisStateStore::connect(url)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

fn request<'a>(token: &'a str, lease: Duration, window: Duration) -> ClaimRequest<'a> {
    ClaimRequest {
        token,
        operation_id: "op_1",
        request: Some("fp_1"),
        lease,
        window,
        started: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_store_passes_the_conformance_suite() {
    let Some(url) = common::redis_url() else {
        return;
    };
    let (a, b) = (connect(&url).await, connect(&url).await);
    conformance::check(&a, &b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_suite_passes_under_another_prefix_and_prefixes_share_nothing() {
    let Some(url) = common::redis_url() else {
        return;
    };
    let prefix = common::unique_prefix("suite");
    let a = connect(&url).await.with_prefix(prefix.clone());
    let b = connect(&url).await.with_prefix(prefix.clone());
    assert_eq!(a.prefix(), prefix);
    conformance::check(&a, &b).await;

    let other = connect(&url).await.with_prefix(format!("{prefix}other:"));
    let long = Duration::from_secs(60);
    assert_eq!(
        a.claim("shared", request("t1", long, long)).await.unwrap(),
        ClaimState::Claimed
    );
    assert_eq!(
        other
            .claim("shared", request("t2", long, long))
            .await
            .unwrap(),
        ClaimState::Claimed,
        "a store under another prefix must not see the claim"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keys_are_laid_out_as_documented() {
    let Some(url) = common::redis_url() else {
        return;
    };
    let prefix = common::unique_prefix("layout");
    let store = connect(&url).await.with_prefix(prefix.clone());
    let mut raw = common::raw(&url).await;
    let (lease, window) = (Duration::from_secs(60), Duration::from_secs(120));
    let base = format!("{prefix}claim:{{order-42}}");

    assert_eq!(
        store
            .claim("order-42", request("t1", lease, window))
            .await
            .unwrap(),
        ClaimState::Claimed
    );
    let held: String = raw.get(format!("{base}:lease")).await.unwrap();
    let held: serde_json::Value = serde_json::from_str(&held).unwrap();
    assert_eq!(held["toolsmith"], "lease");
    assert_eq!(held["token"], "t1");
    assert_eq!(held["operation_id"], "op_1");
    assert_eq!(held["request"], "fp_1");
    assert_eq!(held["window_ms"], 120_000);
    let ttl: i64 = raw.pttl(format!("{base}:lease")).await.unwrap();
    assert!((50_000..=60_000).contains(&ttl), "lease PTTL {ttl}");

    assert!(store.mark_started("order-42", "t1").await.unwrap());
    let ttl: i64 = raw.pttl(format!("{base}:started")).await.unwrap();
    assert!(
        (170_000..=180_000).contains(&ttl),
        "the started marker outlives the lease by the window: PTTL {ttl}"
    );
    // Renewal pushes both out.
    assert!(store
        .renew("order-42", "t1", Duration::from_secs(90))
        .await
        .unwrap());
    let ttl: i64 = raw.pttl(format!("{base}:started")).await.unwrap();
    assert!(
        (200_000..=210_000).contains(&ttl),
        "renewed marker PTTL {ttl}"
    );

    let done = StoredOutcome {
        operation_id: "op_1".into(),
        reference: Some("rec_1".into()),
        unknown: false,
        request: Some("fp_1".into()),
        at_unix_ms: 1,
    };
    assert!(store
        .finish("order-42", "t1", &done, window, None)
        .await
        .unwrap());
    let left: i64 = raw
        .exists(&[format!("{base}:lease"), format!("{base}:started")])
        .await
        .unwrap();
    assert_eq!(left, 0, "finish removes the lease and the marker");
    let kept: String = raw.get(format!("{base}:outcome")).await.unwrap();
    let kept: serde_json::Value = serde_json::from_str(&kept).unwrap();
    assert_eq!(kept["toolsmith"], "outcome");
    assert_eq!(kept["outcome"], serde_json::to_value(&done).unwrap());
    let ttl: i64 = raw.pttl(format!("{base}:outcome")).await.unwrap();
    assert!((110_000..=120_000).contains(&ttl), "outcome PTTL {ttl}");

    let value = serde_json::json!({"rows": [1, 2]});
    let reference = toolsmith_core::new_reference();
    store
        .keep(&reference, &value, Duration::from_secs(30))
        .await
        .unwrap();
    let kept: String = raw.get(format!("{prefix}rec:{reference}")).await.unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&kept).unwrap(),
        serde_json::json!({"toolsmith": "kept", "value": value})
    );

    // A versioned record: a hash of its own, apart from the claim keys of the same string.
    let record = serde_json::json!({"status": "working", "done": [1]});
    let version = store
        .swap_record("order-42", 0, &record, Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(version, Some(1));
    let key = format!("{prefix}record:{{order-42}}");
    let fields: std::collections::BTreeMap<String, String> = raw.hgetall(&key).await.unwrap();
    assert_eq!(fields.len(), 3, "{fields:?}");
    assert_eq!(fields["toolsmith"], "record");
    assert_eq!(fields["version"], "1");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&fields["value"]).unwrap(),
        record
    );
    let ttl: i64 = raw.pttl(&key).await.unwrap();
    assert!((20_000..=30_000).contains(&ttl), "record PTTL {ttl}");
    assert_eq!(
        store
            .swap_record(
                "order-42",
                1,
                &serde_json::json!(2),
                Duration::from_secs(90)
            )
            .await
            .unwrap(),
        Some(2)
    );
    let ttl: i64 = raw.pttl(&key).await.unwrap();
    assert!(
        (80_000..=90_000).contains(&ttl),
        "a swap sets the expiry again: PTTL {ttl}"
    );
    let version: String = raw.hget(&key, "version").await.unwrap();
    assert_eq!(version, "2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_claims_on_a_lapsed_started_run_find_one_unknown_outcome() {
    let Some(url) = common::redis_url() else {
        return;
    };
    let prefix = common::unique_prefix("lapsed");
    let a = connect(&url).await.with_prefix(prefix.clone());
    let b = connect(&url).await.with_prefix(prefix.clone());
    let (short, long) = (Duration::from_millis(100), Duration::from_secs(60));
    assert_eq!(
        a.claim("k", request("dead", short, long)).await.unwrap(),
        ClaimState::Claimed
    );
    assert!(a.mark_started("k", "dead").await.unwrap());
    // The holder dies. Wait until Redis itself has let the lease go (its `PX` has passed; no
    // claim is made meanwhile, so the concurrent claims below are the first to find it).
    let mut raw = common::raw(&url).await;
    until_gone(&mut raw, &[format!("{prefix}claim:{{k}}:lease")]).await;
    let tokens: Vec<String> = (0..16).map(|i| format!("t{i}")).collect();
    let claims = tokens.iter().enumerate().map(|(i, token)| {
        let store = if i % 2 == 0 { &a } else { &b };
        store.claim("k", request(token, long, long))
    });
    let mut found = Vec::new();
    for answer in futures_join(claims).await {
        match answer.unwrap() {
            ClaimState::Recorded(outcome) => found.push(outcome),
            other => panic!("a lapsed started run must be an unknown outcome, got {other:?}"),
        }
    }
    assert!(found.iter().all(|o| o.unknown && o.operation_id == "op_1"));
    assert!(found.iter().all(|o| o.request.as_deref() == Some("fp_1")));
    // One claim recorded it; every other one read that record (same stamp).
    assert!(found.windows(2).all(|w| w[0] == w[1]), "{found:?}");
    // The dead holder can do nothing with it.
    assert!(!a.renew("k", "dead", long).await.unwrap());
    assert!(!a.release("k", "dead").await.unwrap());
    let started: bool = raw
        .exists(format!("{prefix}claim:{{k}}:started"))
        .await
        .unwrap();
    assert!(!started, "recording the unknown outcome removes the marker");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_started_marker_ends_a_window_after_its_lease() {
    let Some(url) = common::redis_url() else {
        return;
    };
    let prefix = common::unique_prefix("marker");
    let store = connect(&url).await.with_prefix(prefix.clone());
    let (lease, window) = (Duration::from_millis(100), Duration::from_millis(200));
    assert_eq!(
        store
            .claim("k", request("t1", lease, window))
            .await
            .unwrap(),
        ClaimState::Claimed
    );
    assert!(store.mark_started("k", "t1").await.unwrap());
    // Nobody asks: wait until Redis has let the lease go, and the marker a window after it.
    let mut raw = common::raw(&url).await;
    until_gone(
        &mut raw,
        &[
            format!("{prefix}claim:{{k}}:lease"),
            format!("{prefix}claim:{{k}}:started"),
        ],
    )
    .await;
    assert_eq!(
        store
            .claim("k", request("t2", Duration::from_secs(60), window))
            .await
            .unwrap(),
        ClaimState::Claimed,
        "nobody asked within the window: the key is free again"
    );
}

/// Waits until none of `keys` exists any more: Redis's own view of an expiry (`EXISTS` answers
/// 0 once a key's `PX` has passed), asked every 10 ms for at most 30 s.
async fn until_gone(raw: &mut redis::aio::MultiplexedConnection, keys: &[String]) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let left: i64 = raw.exists(keys).await.unwrap();
        if left == 0 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{keys:?} still exist 30 s later"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Polls the futures concurrently on this task and returns their outputs in order.
async fn futures_join<F: std::future::Future>(futs: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut pending: Vec<_> = futs.map(|f| Some(Box::pin(f))).collect();
    let mut out: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut waiting = false;
        for (slot, done) in pending.iter_mut().zip(out.iter_mut()) {
            if let Some(fut) = slot {
                match fut.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => {
                        *done = Some(v);
                        *slot = None;
                    }
                    std::task::Poll::Pending => waiting = true,
                }
            }
        }
        if waiting {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(|o| o.expect("finished")).collect()
}
