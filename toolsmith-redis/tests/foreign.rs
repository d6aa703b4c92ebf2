//! A value the store did not write, under a key it reads, is a `BackendError` naming the key,
//! never a result; the store leaves the value alone.

use super::common;

use redis::AsyncCommands;
use std::time::Duration;
use toolsmith_core::state::{ClaimRequest, StateStore};
use toolsmith_core::{BackendError, StoredOutcome};
use toolsmith_redis::RedisStateStore;

const NOT_OURS: &str = "holds a value that is not a toolsmith record";

fn assert_foreign<T: std::fmt::Debug>(answer: Result<T, BackendError>, key: &str, what: &str) {
    match answer {
        Err(e) => {
            assert!(e.message().contains(NOT_OURS), "{what}: {e}");
            assert!(e.message().contains(key), "{what} must name {key}: {e}");
        }
        Ok(v) => panic!("{what}: a foreign value under {key} must be an error, got {v:?}"),
    }
}

fn request(token: &str) -> ClaimRequest<'_> {
    ClaimRequest {
        token,
        operation_id: "op_1",
        request: None,
        lease: Duration::from_secs(60),
        window: Duration::from_secs(60),
        started: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_values_are_errors_not_results() {
    let Some(url) = common::redis_url() else {
        return;
    };
    let prefix = common::unique_prefix("foreign");
    let store = RedisStateStore::connect(&url)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .with_prefix(prefix.clone());
    let mut raw = common::raw(&url).await;
    let writer = raw.clone();
    let set = |key: String, value: &'static str| {
        let mut raw = writer.clone();
        async move {
            let _: () = raw.pset_ex(&key, value, 60_000).await.unwrap();
            key
        }
    };

    // Kept values: text that is no JSON, JSON of another program, another type.
    for (name, value) in [
        ("rec_text", "not json"),
        ("rec_number", "42"),
        ("rec_object", r#"{"value": {"a": 1}}"#),
        ("rec_other_kind", r#"{"toolsmith": "lease", "value": 1}"#),
    ] {
        let key = set(format!("{prefix}rec:{name}"), value).await;
        assert_foreign(store.read(name).await, &key, name);
        let still: String = raw.get(&key).await.unwrap();
        assert_eq!(still, value, "the store leaves a foreign value alone");
    }
    let list = format!("{prefix}rec:rec_list");
    let _: () = raw.rpush(&list, "x").await.unwrap();
    let _: () = raw.pexpire(&list, 60_000).await.unwrap();
    assert_foreign(store.read("rec_list").await, &list, "a list");

    // An outcome that is not ours answers no claim.
    let key = set(
        format!("{prefix}claim:{{out}}:outcome"),
        r#"{"operation_id":"x","unknown":false,"at_unix_ms":1}"#,
    )
    .await;
    assert_foreign(store.claim("out", request("t1")).await, &key, "outcome");

    // A lease that is not ours: no claim, and no holder step treats it as a lease.
    let key = set(
        format!("{prefix}claim:{{lease}}:lease"),
        r#"{"token":"t1"}"#,
    )
    .await;
    assert_foreign(store.claim("lease", request("t1")).await, &key, "lease");
    assert_foreign(
        store.renew("lease", "t1", Duration::from_secs(1)).await,
        &key,
        "renew",
    );
    assert_foreign(
        store.mark_started("lease", "t1").await,
        &key,
        "mark_started",
    );
    let done = StoredOutcome {
        operation_id: "op_1".into(),
        reference: None,
        unknown: false,
        request: None,
        at_unix_ms: 1,
    };
    assert_foreign(
        store
            .finish("lease", "t1", &done, Duration::from_secs(1), None)
            .await,
        &key,
        "finish",
    );
    assert_foreign(store.release("lease", "t1").await, &key, "release");
    let still: String = raw.get(&key).await.unwrap();
    assert_eq!(still, r#"{"token":"t1"}"#);

    // A lease key of another type.
    let hash = format!("{prefix}claim:{{hash}}:lease");
    let _: () = raw.hset(&hash, "token", "t1").await.unwrap();
    let _: () = raw.pexpire(&hash, 60_000).await.unwrap();
    assert_foreign(
        store.claim("hash", request("t1")).await,
        &hash,
        "a hash lease",
    );
    assert_foreign(
        store.release("hash", "t1").await,
        &hash,
        "release of a hash lease",
    );

    // A started marker that is not ours.
    let key = set(format!("{prefix}claim:{{started}}:started"), "garbage").await;
    assert_foreign(store.claim("started", request("t1")).await, &key, "started");
    let still: String = raw.get(&key).await.unwrap();
    assert_eq!(still, "garbage");

    // Versioned records: a string, hashes without a record's fields, a version below 1 or not
    // a decimal, a value that is not JSON. Neither loaded nor replaced.
    let value = serde_json::json!({"n": 1});
    let long = Duration::from_secs(60);
    let key = set(format!("{prefix}record:{{string}}"), r#"{"version":1}"#).await;
    assert_foreign(store.load_record("string").await, &key, "a string record");
    assert_foreign(
        store.swap_record("string", 0, &value, long).await,
        &key,
        "a swap over a string",
    );
    for (name, fields) in [
        ("untagged", &[("version", "1"), ("value", "1")][..]),
        (
            "other_tag",
            &[("toolsmith", "kept"), ("version", "1"), ("value", "1")],
        ),
        (
            "v0",
            &[("toolsmith", "record"), ("version", "0"), ("value", "1")],
        ),
        (
            "v_text",
            &[("toolsmith", "record"), ("version", "one"), ("value", "1")],
        ),
        (
            "no_json",
            &[("toolsmith", "record"), ("version", "1"), ("value", "{")],
        ),
    ] {
        let key = format!("{prefix}record:{{{name}}}");
        let _: () = raw.hset_multiple(&key, fields).await.unwrap();
        let _: () = raw.pexpire(&key, 60_000).await.unwrap();
        assert_foreign(store.load_record(name).await, &key, name);
        if name != "no_json" {
            // The swap reads the tag and the version only.
            assert_foreign(store.swap_record(name, 0, &value, long).await, &key, name);
            assert_foreign(store.swap_record(name, 1, &value, long).await, &key, name);
            let version: Option<String> = raw.hget(&key, "version").await.unwrap();
            let left: Option<String> = raw.hget(&key, "value").await.unwrap();
            assert_eq!(
                (version.as_deref(), left.as_deref()),
                (
                    fields.iter().find(|f| f.0 == "version").map(|f| f.1),
                    Some("1")
                ),
                "{name}: the store leaves a foreign hash alone"
            );
        }
    }
}
