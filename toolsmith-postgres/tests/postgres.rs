//! `PostgresStateStore` against a real PostgreSQL: the conformance suite over two connections,
//! rows it cannot read, timeouts, lost connections, concurrent start-up and the deletion of
//! expired rows.
//!
//! The server is `TOOLSMITH_PG_URL` (`bash .ci/services.sh cargo test -p toolsmith-tests --test it
//! postgres_store::` starts one on a free port of 127.0.0.1; these tests are a module of that
//! package's test binary). Without it each test that needs it prints
//! `SKIP: TOOLSMITH_PG_URL not set` and passes, unless `TOOLSMITH_REQUIRE_SERVICES=1` (CI),
//! where it fails. Every test uses tables of a fresh prefix, so runs never collide, and drops
//! them when it passes.

use serde_json::json;
use std::time::{Duration, Instant};
use tokio_postgres::{Client, NoTls};
use toolsmith_core::state::{ClaimRequest, ClaimState, StateStore};
use toolsmith_postgres::{PostgresOptions, PostgresStateStore};

// The skip records of the test binary that includes these tests (tests/it).
use crate::skip;

/// The server's URL, or `None` (after a SKIP) when there is none and none is required.
fn pg_url() -> Option<String> {
    match std::env::var("TOOLSMITH_PG_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            skip::skip(
                skip::Need::Service,
                "the PostgreSQL under test",
                "TOOLSMITH_PG_URL is not set",
            );
            None
        }
    }
}

/// A table prefix no other run uses.
fn fresh_prefix() -> String {
    format!("t{}_", &toolsmith_core::new_reference()[4..16])
}

fn options(prefix: &str) -> PostgresOptions {
    PostgresOptions::default().with_table_prefix(prefix)
}

/// A plain connection for the test's own SQL.
async fn raw(url: &str) -> Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .expect("the test's own connection");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client
}

async fn drop_tables(client: &Client, prefix: &str) {
    client
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS \"{prefix}claims\", \"{prefix}kept\", \"{prefix}records\""
        ))
        .await
        .expect("drop the test's tables");
}

fn request<'a>(token: &'a str, operation_id: &'a str) -> ClaimRequest<'a> {
    ClaimRequest {
        token,
        operation_id,
        request: None,
        lease: Duration::from_secs(60),
        window: Duration::from_secs(60),
        started: false,
    }
}

/// `url` with one more query parameter.
fn with_param(url: &str, param: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{param}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_connections_pass_the_conformance_suite() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let a = PostgresStateStore::connect_with(&url, options(&prefix))
        .await
        .unwrap();
    let b = PostgresStateStore::connect_with(&url, options(&prefix))
        .await
        .unwrap();
    toolsmith_core::state::conformance::check(&a, &b).await;
    // Twice: the suite's keys are its own, and the store holds the first run's rows.
    toolsmith_core::state::conformance::check(&b, &a).await;
    drop_tables(&raw(&url).await, &prefix).await;
}

#[tokio::test]
async fn a_row_that_is_not_a_claim_is_an_error_not_a_result() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let store = PostgresStateStore::connect_with(&url, options(&prefix))
        .await
        .unwrap();
    let client = raw(&url).await;
    let insert = format!(
        "INSERT INTO \"{prefix}claims\" (key, token, operation_id, outcome, expires_at)
         VALUES ($1, $2, 'op_x', $3::text::jsonb, now() + interval '1 hour')"
    );
    let rows: [(&str, Option<&str>, Option<&str>); 4] = [
        (
            "wrong-shape",
            None,
            Some(r#"{"operation_id": 7, "unknown": "no"}"#),
        ),
        ("a-string", None, Some(r#""{\"operation_id\":\"op\"}""#)),
        ("missing-fields", None, Some(r#"{"operation_id": "op"}"#)),
        ("neither", None, None),
    ];
    for (key, token, outcome) in rows {
        client
            .execute(&insert, &[&key, &token, &outcome])
            .await
            .unwrap();
        let err = store
            .claim(key, request("t1", "op_1"))
            .await
            .expect_err("a foreign row must not be answered");
        assert!(
            err.message().contains("is not a toolsmith claim") && err.message().contains(key),
            "{key}: {err}"
        );
    }
    // The store still works for keys of its own.
    assert_eq!(
        store.claim("mine", request("t1", "op_1")).await.unwrap(),
        ClaimState::Claimed
    );
    drop_tables(&client, &prefix).await;
}

#[tokio::test]
async fn a_record_row_that_is_not_ours_is_an_error_not_a_result() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let store = PostgresStateStore::connect_with(&url, options(&prefix))
        .await
        .unwrap();
    let client = raw(&url).await;
    client
        .execute(
            &format!(
                "INSERT INTO \"{prefix}records\" (key, version, value, expires_at)
                 VALUES ('v0', 0, '{{\"a\": 1}}', now() + interval '1 hour')"
            ),
            &[],
        )
        .await
        .unwrap();
    let err = store
        .load_record("v0")
        .await
        .expect_err("a version below 1 is not a record of this crate");
    assert!(
        err.message().contains("is not a toolsmith record")
            && err.message().contains("\"v0\"")
            && err.message().contains(&format!("{prefix}records")),
        "{err}"
    );
    // No swap replaces it: it is at no version a writer can name.
    for expected in [0, 1] {
        assert_eq!(
            store
                .swap_record("v0", expected, &json!(2), Duration::from_secs(60))
                .await
                .unwrap(),
            None
        );
    }
    let left: i32 = client
        .query_one(
            &format!("SELECT version::int FROM \"{prefix}records\" WHERE key = 'v0'"),
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "the row is left alone");
    drop_tables(&client, &prefix).await;
}

#[tokio::test]
async fn tables_of_an_earlier_version_gain_the_records_table_and_records_keep_key_order() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let client = raw(&url).await;
    // A database made before records existed: the claims and kept values only.
    drop(
        PostgresStateStore::connect_with(&url, options(&prefix))
            .await
            .unwrap(),
    );
    client
        .batch_execute(&format!("DROP TABLE \"{prefix}records\""))
        .await
        .unwrap();
    let store = PostgresStateStore::connect_with(&url, options(&prefix))
        .await
        .unwrap();
    let value: serde_json::Value =
        serde_json::from_str(r#"{"zeta": 1, "alpha": {"b": [1, 2.5, null], "a": "x"}}"#).unwrap();
    let version = store
        .swap_record("task", 0, &value, Duration::from_secs(60))
        .await
        .unwrap()
        .expect("a new record");
    let back = store.load_record("task").await.unwrap().unwrap();
    assert_eq!(back.version, version);
    assert_eq!(
        serde_json::to_string(&back.value).unwrap(),
        serde_json::to_string(&value).unwrap()
    );
    drop_tables(&client, &prefix).await;
}

#[tokio::test]
async fn creating_a_record_deletes_expired_ones_a_batch_at_a_time() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let store = PostgresStateStore::connect_with(&url, options(&prefix))
        .await
        .unwrap();
    let client = raw(&url).await;
    client
        .batch_execute(&format!(
            "INSERT INTO \"{prefix}records\" (key, version, value, expires_at)
             SELECT 'old' || g, 3, '1', now() - interval '1 hour' FROM generate_series(1, 150) g"
        ))
        .await
        .unwrap();
    let count = |sql: String| {
        let client = &client;
        async move { client.query_one(&sql, &[]).await.unwrap().get::<_, i64>(0) }
    };
    let expired = format!("SELECT count(*) FROM \"{prefix}records\" WHERE expires_at <= now()");
    let long = Duration::from_secs(60);
    let v1 = store.swap_record("new", 0, &json!(1), long).await.unwrap();
    assert_eq!(v1, Some(1));
    assert_eq!(count(expired.clone()).await, 50, "one creation deletes 100");
    // Replacing a record deletes nothing; an expired one is absent, and created again at 1.
    assert_eq!(
        store.swap_record("new", 1, &json!(2), long).await.unwrap(),
        Some(2)
    );
    assert_eq!(count(expired.clone()).await, 50);
    assert_eq!(store.load_record("old7").await.unwrap(), None);
    assert_eq!(
        store.swap_record("old7", 3, &json!(3), long).await.unwrap(),
        None,
        "an expired record is at no version but 0"
    );
    assert_eq!(
        store.swap_record("old7", 0, &json!(3), long).await.unwrap(),
        Some(1)
    );
    assert_eq!(count(expired).await, 0);
    drop_tables(&client, &prefix).await;
}

#[tokio::test]
async fn a_closed_port_fails_within_the_connect_timeout() {
    // A port of 127.0.0.1 that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let url = format!("postgresql://postgres@127.0.0.1:{port}/toolsmith_test");
    let started = Instant::now();
    let err = PostgresStateStore::connect(&url)
        .await
        .expect_err("nothing listens on the port");
    assert!(
        started.elapsed()
            < toolsmith_postgres::DEFAULT_CONNECT_TIMEOUT + Duration::from_millis(500),
        "took {:?}",
        started.elapsed()
    );
    let message = err.to_string();
    assert!(
        message.contains(&format!("127.0.0.1:{port}")) && message.contains("is the server running"),
        "{message}"
    );
}

#[tokio::test]
async fn bad_settings_are_refused_before_connecting() {
    let err = PostgresStateStore::connect("postgresql://u:secret@127.0.0.1:1/db?sslmode=require")
        .await
        .unwrap_err();
    assert!(err.to_string().contains("TLS"), "{err}");
    for prefix in ["", "Upper_", "1st_", "semi;colon", "x\"y", &"p".repeat(41)] {
        let err = PostgresStateStore::connect_with(
            "postgresql://u@127.0.0.1:1/db",
            PostgresOptions::default().with_table_prefix(prefix),
        )
        .await
        .unwrap_err();
        assert!(
            err.to_string().contains("table prefix"),
            "{prefix:?}: {err}"
        );
    }
    let err = PostgresStateStore::connect("postgresql://u:secret@127.0.0.1:notaport/db")
        .await
        .unwrap_err();
    assert!(
        err.to_string().starts_with("invalid PostgreSQL URL"),
        "{err}"
    );
    assert!(!err.to_string().contains("secret"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stores_that_start_at_once_all_create_and_see_the_tables() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let connects: Vec<_> = (0..4)
        .map(|_| {
            let (url, options) = (url.clone(), options(&prefix));
            tokio::spawn(async move { PostgresStateStore::connect_with(&url, options).await })
        })
        .collect();
    let mut stores = Vec::new();
    for connect in connects {
        stores.push(connect.await.unwrap().expect("every replica starts"));
    }
    let value = json!({"kept": "by the first"});
    let reference = keep(&stores[0], &value, Duration::from_secs(60)).await;
    for store in &stores {
        assert_eq!(store.read(&reference).await.unwrap(), Some(value.clone()));
    }
    drop_tables(&raw(&url).await, &prefix).await;
}

#[tokio::test]
async fn a_statement_past_the_timeout_is_a_backend_error() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let store = PostgresStateStore::connect_with(
        &url,
        options(&prefix).with_statement_timeout(Duration::from_millis(300)),
    )
    .await
    .unwrap();
    assert_eq!(
        store.claim("locked", request("t1", "op_1")).await.unwrap(),
        ClaimState::Claimed
    );
    // Another session holds the key's row: the next claim waits for it, past the timeout.
    let client = raw(&url).await;
    client.batch_execute("BEGIN").await.unwrap();
    client
        .query(
            &format!("SELECT 1 FROM \"{prefix}claims\" WHERE key = 'locked' FOR UPDATE"),
            &[],
        )
        .await
        .unwrap();
    let started = Instant::now();
    let err = store
        .claim("locked", request("t2", "op_2"))
        .await
        .expect_err("the claim cannot get the row");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(
        err.message().contains("statement timeout") && err.message().contains("57014"),
        "{err}"
    );
    client.batch_execute("ROLLBACK").await.unwrap();
    // The connection is still good.
    match store.claim("locked", request("t2", "op_2")).await.unwrap() {
        ClaimState::Running { operation_id, .. } => assert_eq!(operation_id, "op_1"),
        other => panic!("{other:?}"),
    }
    drop_tables(&client, &prefix).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_connection_is_replaced() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let name = format!("tsm_{prefix}");
    let store = PostgresStateStore::connect_with(
        &with_param(&url, &format!("application_name={name}")),
        options(&prefix),
    )
    .await
    .unwrap();
    let value = json!([1, 2, 3]);
    let reference = keep(&store, &value, Duration::from_secs(60)).await;
    let client = raw(&url).await;
    let terminated: i64 = client
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
            &[&name],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(terminated, 1);
    // The call that finds the connection gone answers an error; a later one reconnects
    // (at most one attempt a second).
    let mut errors = Vec::new();
    let mut read = None;
    for _ in 0..40 {
        match store.read(&reference).await {
            Ok(found) => {
                read = Some(found);
                break;
            }
            Err(e) => errors.push(e.to_string()),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(read, Some(Some(value)), "never reconnected: {errors:?}");
    for e in &errors {
        assert!(e.starts_with("PostgreSQL"), "{e}");
    }
    drop_tables(&client, &prefix).await;
}

#[tokio::test]
async fn keep_deletes_expired_values_a_batch_at_a_time() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let store = PostgresStateStore::connect_with(&url, options(&prefix))
        .await
        .unwrap();
    let client = raw(&url).await;
    client
        .batch_execute(&format!(
            "INSERT INTO \"{prefix}kept\" (reference, value, expires_at)
             SELECT 'rec_old' || g, '1', now() - interval '1 hour' FROM generate_series(1, 250) g"
        ))
        .await
        .unwrap();
    let expired = format!("SELECT count(*) FROM \"{prefix}kept\" WHERE expires_at <= now()");
    let count = |sql: String| {
        let client = &client;
        async move { client.query_one(&sql, &[]).await.unwrap().get::<_, i64>(0) }
    };
    assert_eq!(count(expired.clone()).await, 250);
    keep(&store, &json!(1), Duration::from_secs(60)).await;
    assert_eq!(count(expired.clone()).await, 150, "one keep deletes 100");
    keep(&store, &json!(2), Duration::from_secs(60)).await;
    keep(&store, &json!(3), Duration::from_secs(60)).await;
    assert_eq!(count(expired).await, 0);
    assert_eq!(
        count(format!("SELECT count(*) FROM \"{prefix}kept\"")).await,
        3
    );
    let short = keep(&store, &json!(4), Duration::from_millis(1)).await;
    // An expired value is never read, deleted or not: read as kept until its 1 ms has passed
    // in the server's clock (asked until it says so, within 30 s), then it is not.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while let Some(kept) = store.read(&short).await.unwrap() {
        assert_eq!(kept, json!(4));
        assert!(
            std::time::Instant::now() < deadline,
            "still read 30 s later"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    drop_tables(&client, &prefix).await;
}

#[tokio::test]
async fn finish_deletes_ended_claims_and_keeps_lapsed_started_runs() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let store = PostgresStateStore::connect_with(&url, options(&prefix))
        .await
        .unwrap();
    let client = raw(&url).await;
    client
        .batch_execute(&format!(
            "INSERT INTO \"{prefix}claims\" (key, token, operation_id, started, outcome, expires_at)
             SELECT 'ended' || g, NULL, 'op', false,
                    '{{\"operation_id\":\"op\",\"reference\":null,\"unknown\":false,\"request\":null,\"at_unix_ms\":0}}',
                    now() - interval '1 hour' FROM generate_series(1, 30) g;
             INSERT INTO \"{prefix}claims\" (key, token, operation_id, started, expires_at)
             SELECT 'unstarted' || g, 'tok', 'op', false, now() - interval '1 hour'
               FROM generate_series(1, 30) g;
             INSERT INTO \"{prefix}claims\" (key, token, operation_id, started, expires_at)
             SELECT 'started' || g, 'tok', 'op', true, now() - interval '1 hour'
               FROM generate_series(1, 30) g;"
        ))
        .await
        .unwrap();
    assert_eq!(
        store.claim("k", request("t1", "op_1")).await.unwrap(),
        ClaimState::Claimed
    );
    let outcome = toolsmith_core::StoredOutcome {
        operation_id: "op_1".into(),
        reference: None,
        unknown: false,
        request: None,
        at_unix_ms: 1,
    };
    assert!(store
        .finish("k", "t1", &outcome, Duration::from_secs(60), None)
        .await
        .unwrap());
    let keys: Vec<String> = client
        .query(
            &format!("SELECT key FROM \"{prefix}claims\" ORDER BY key"),
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(keys.len(), 31, "{keys:?}");
    assert!(
        keys.iter().all(|k| k == "k" || k.starts_with("started")),
        "{keys:?}"
    );
    // A lapsed started run is still answered as unknown.
    match store
        .claim("started7", request("t2", "op_2"))
        .await
        .unwrap()
    {
        ClaimState::Recorded(kept) => assert!(kept.unknown && kept.operation_id == "op"),
        other => panic!("{other:?}"),
    }
    drop_tables(&client, &prefix).await;
}

#[tokio::test]
async fn a_kept_value_comes_back_as_it_was_kept() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let store = PostgresStateStore::connect_with(&url, options(&prefix))
        .await
        .unwrap();
    // Key order is kept (the column is json, not jsonb), as the other stores keep it.
    let value: serde_json::Value =
        serde_json::from_str(r#"{"zeta": 1, "alpha": {"b": [1, 2.5, null], "a": "x"}}"#).unwrap();
    let reference = keep(&store, &value, Duration::from_secs(60)).await;
    let back = store.read(&reference).await.unwrap().unwrap();
    assert_eq!(
        serde_json::to_string(&back).unwrap(),
        serde_json::to_string(&value).unwrap()
    );
    drop_tables(&raw(&url).await, &prefix).await;
}

/// A `key=value` connection string to the server of `url` as `user`, with `options`.
fn conninfo(url: &str, user: Option<&str>, options: &str) -> String {
    let config: tokio_postgres::Config = url.parse().unwrap();
    let host = match &config.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(h) => h.clone(),
        #[cfg(unix)]
        tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
    };
    let mut info = format!(
        "host={host} port={} dbname={} options='{options}'",
        config.get_ports().first().copied().unwrap_or(5432),
        config.get_dbname().unwrap_or("postgres"),
    );
    match (user, config.get_user()) {
        (Some(user), _) => info.push_str(&format!(" user={user}")),
        (None, Some(own)) => {
            info.push_str(&format!(" user={own}"));
            if let Some(password) = config.get_password() {
                let password = String::from_utf8_lossy(password).replace('\\', "\\\\");
                info.push_str(&format!(" password='{}'", password.replace('\'', "\\'")));
            }
        }
        (None, None) => {}
    }
    info
}

#[tokio::test]
async fn tables_made_beforehand_need_no_create_privilege() {
    let Some(url) = pg_url() else { return };
    let prefix = fresh_prefix();
    let (schema, role) = (format!("{prefix}schema"), format!("{prefix}role"));
    let client = raw(&url).await;
    // A schema of the test's own, where the role may use tables but not create them.
    let made = client
        .batch_execute(&format!(
            "CREATE SCHEMA \"{schema}\"; CREATE ROLE \"{role}\" LOGIN;
             GRANT USAGE ON SCHEMA \"{schema}\" TO \"{role}\";"
        ))
        .await;
    if let Err(e) = made {
        // Only a server where the test's user may create roles runs this; one that
        // TOOLSMITH_REQUIRE_SERVICES=1 requires (CI's, made by .ci/services.sh) must allow it.
        skip::skip(
            skip::Need::Service,
            "a PostgreSQL user that may create a schema and a role",
            &format!("the server refused: {e}"),
        );
        return;
    }
    let in_schema = format!("-c search_path={schema}");
    // The URL's user makes the tables, in the schema its search_path names.
    let owner =
        PostgresStateStore::connect_with(&conninfo(&url, None, &in_schema), options(&prefix)).await;
    client
        .batch_execute(&format!(
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \"{schema}\" TO \"{role}\""
        ))
        .await
        .unwrap();
    let as_role = conninfo(&url, Some(&role), &in_schema);
    let user = PostgresStateStore::connect_with(&as_role, options(&prefix)).await;
    let refused = PostgresStateStore::connect_with(&as_role, options(&fresh_prefix())).await;
    let shared = match (&owner, &user) {
        (Ok(owner), Ok(user)) => {
            let reference = keep(owner, &json!("shared"), Duration::from_secs(60)).await;
            Some(user.read(&reference).await.unwrap())
        }
        _ => None,
    };
    drop((owner, user));
    client
        .batch_execute(&format!(
            "DROP SCHEMA \"{schema}\" CASCADE; DROP ROLE \"{role}\";"
        ))
        .await
        .unwrap();
    assert_eq!(
        shared,
        Some(Some(json!("shared"))),
        "both stores connect and share the tables"
    );
    let err = refused.expect_err("new tables need CREATE on the schema");
    assert!(
        err.message().contains("permission denied") && err.message().contains("needs CREATE"),
        "{err}"
    );
}

/// Keeps `value` under a fresh reference, as the pipeline does, and returns the reference.
async fn keep(store: &PostgresStateStore, value: &serde_json::Value, ttl: Duration) -> String {
    let reference = toolsmith_core::new_reference();
    store.keep(&reference, value, ttl).await.unwrap();
    reference
}
