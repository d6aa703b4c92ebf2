//! The HTTP server as an OAuth 2.1 resource server (`McpServer::oauth`), in process, against an
//! authorization server of the test's own on 127.0.0.1 (its metadata and its key set, which the
//! test can rotate or take down, counting the fetches), with tokens signed by the test keys of
//! `tests/fixtures/oauth`: the metadata and the challenges, every hostile token of the issue's
//! list refused with the right status and no tool run, scopes as `403 insufficient_scope`, the
//! key set down (`503`) and back, a session kept to its subject, and the token kept out of the
//! audit trail.

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use toolsmith::audit::{AuditEvent, MemorySink};
use toolsmith::mcp::oauth::OAuth;
use toolsmith::mcp::{HttpServer, McpServer};
use toolsmith::{tool, Policy, Status, Toolbox};

/// The resource the server is, as its tokens name it.
const RESOURCE: &str = "http://127.0.0.1/mcp";

/// Reads the notes. Returns their text.
#[tool(read_only)]
fn read_notes() -> String {
    "the notes".into()
}

/// Lists the numbers below 1000, a page at a time. Returns the numbers.
#[tool(read_only)]
fn list_numbers(
    /// The cursor of the previous page, to get the next one.
    cursor: Option<String>,
) -> Vec<u32> {
    let _ = cursor; // the toolbox serves later pages from the kept result
    (0..1000).collect()
}

/// Charges the customer's card with the amount, once per request_id. Returns the receipt
/// number.
#[tool(writes, idempotency_key(request_id))]
fn charge_card(
    /// The amount, in cents.
    amount: u64,
    /// The request's id, e.g. "r-1": a repeat with the same id charges nothing.
    request_id: String,
) -> String {
    format!("receipt-{amount}-{request_id}")
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(crate::workspace().join("tests/fixtures/oauth").join(name)).unwrap()
}

/// The authorization server of the tests: RFC 8414 metadata and a JWK set, served on
/// 127.0.0.1; `down` answers every request `503`.
struct AuthServer {
    url: String,
    jwks: Arc<Mutex<Value>>,
    /// Requests for the key set, answered or not.
    fetches: Arc<AtomicUsize>,
    down: Arc<AtomicBool>,
    /// What `/introspect` answers for each opaque token (others: `{"active": false}`), to the
    /// client `rs` / `rs-secret` only; and how many times it was asked.
    opaque: Arc<Mutex<std::collections::HashMap<String, Value>>>,
    introspections: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn auth_server() -> AuthServer {
    use http_body_util::Full;
    use hyper::body::Bytes;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let jwks: Value = serde_json::from_slice(&fixture("jwks.json")).unwrap();
    let jwks = Arc::new(Mutex::new(jwks));
    let fetches = Arc::new(AtomicUsize::new(0));
    let down = Arc::new(AtomicBool::new(false));
    let opaque = Arc::new(Mutex::new(std::collections::HashMap::new()));
    let introspections = Arc::new(AtomicUsize::new(0));
    let (keys, count, off, issuer) = (
        Arc::clone(&jwks),
        Arc::clone(&fetches),
        Arc::clone(&down),
        url.clone(),
    );
    let (tokens, asked) = (Arc::clone(&opaque), Arc::clone(&introspections));
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let (keys, count, off, issuer) = (
                Arc::clone(&keys),
                Arc::clone(&count),
                Arc::clone(&off),
                issuer.clone(),
            );
            let (tokens, asked) = (Arc::clone(&tokens), Arc::clone(&asked));
            let service =
                hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let (keys, count, off, issuer) = (
                        Arc::clone(&keys),
                        Arc::clone(&count),
                        Arc::clone(&off),
                        issuer.clone(),
                    );
                    let (tokens, asked) = (Arc::clone(&tokens), Arc::clone(&asked));
                    async move {
                        let path = req.uri().path().to_string();
                        let basic = req
                            .headers()
                            .get("authorization")
                            .map(|v| v.to_str().unwrap().to_string());
                        let form = {
                            use http_body_util::BodyExt as _;
                            req.into_body().collect().await.unwrap().to_bytes()
                        };
                        if path == "/jwks" {
                            // Every request for the keys counts, answered or not.
                            count.fetch_add(1, Ordering::SeqCst);
                        }
                        let (status, body) = if off.load(Ordering::SeqCst) {
                            (503, json!({"error": "down"}))
                        } else if path == "/.well-known/oauth-authorization-server" {
                            let meta = json!({
                                "issuer": issuer,
                                "jwks_uri": format!("{issuer}/jwks"),
                                "token_endpoint": format!("{issuer}/token"),
                                "response_types_supported": ["code"],
                            });
                            (200, meta)
                        } else if path == "/jwks-elsewhere" {
                            // A redirect that leaves for plain HTTP on another host.
                            let mut res = hyper::Response::new(Full::new(Bytes::new()));
                            *res.status_mut() = hyper::StatusCode::FOUND;
                            res.headers_mut().insert(
                                "location",
                                hyper::header::HeaderValue::from_static("http://198.51.100.7/jwks"),
                            );
                            return Ok(res);
                        } else if path == "/jwks" {
                            (200, keys.lock().unwrap().clone())
                        } else if path == "/introspect" {
                            asked.fetch_add(1, Ordering::SeqCst);
                            if basic.as_deref()
                                != Some(&format!("Basic {}", b64_std(b"rs:rs-secret")))
                            {
                                (401, json!({"error": "invalid_client"}))
                            } else {
                                let token = form_urlencoded::parse(&form)
                                    .find(|(k, _)| k == "token")
                                    .map(|(_, v)| v.into_owned())
                                    .unwrap_or_default();
                                let answer = tokens.lock().unwrap().get(&token).cloned();
                                (200, answer.unwrap_or_else(|| json!({"active": false})))
                            }
                        } else {
                            (404, json!({"error": "not found"}))
                        };
                        let mut res =
                            hyper::Response::new(Full::new(Bytes::from(body.to_string())));
                        *res.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
                        Ok::<_, std::convert::Infallible>(res)
                    }
                });
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    AuthServer {
        url,
        jwks,
        fetches,
        down,
        opaque,
        introspections,
        task,
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Claims of a token `as_server` issues for `sub` with `scope`, valid for an hour.
fn claims(issuer: &str, sub: &str, scope: &str) -> Value {
    json!({
        "iss": issuer, "sub": sub, "aud": RESOURCE, "scope": scope,
        "iat": now(), "nbf": now() - 1, "exp": now() + 3600,
    })
}

/// `claims` signed with the test key `kid` (`rsa-1`, `rsa-2`: RS256; `ec-1`: ES256).
fn sign(claims: &Value, kid: &str) -> String {
    let (alg, key) = match kid {
        "ec-1" => (
            Algorithm::ES256,
            EncodingKey::from_ec_pem(&fixture("ec-private.pem")).unwrap(),
        ),
        "rsa-2" => (
            Algorithm::RS256,
            EncodingKey::from_rsa_pem(&fixture("rsa-rotated-private.pem")).unwrap(),
        ),
        _ => (
            Algorithm::RS256,
            EncodingKey::from_rsa_pem(&fixture("rsa-private.pem")).unwrap(),
        ),
    };
    let mut header = Header::new(alg);
    header.kid = Some(kid.into());
    jsonwebtoken::encode(&header, claims, &key).unwrap()
}

fn b64_std(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

struct Served {
    server: HttpServer,
    audit: Arc<MemorySink>,
}

impl Served {
    fn url(&self) -> String {
        self.server.url()
    }

    /// The tools that ran (their audit records' `executed` events), by tool and caller.
    fn ran(&self) -> Vec<(String, Option<String>)> {
        self.audit
            .records()
            .into_iter()
            .filter(|r| r.event == AuditEvent::Call && r.status == Some(Status::Ok))
            .map(|r| (r.tool, r.caller))
            .collect()
    }
}

async fn serve(oauth: OAuth) -> Served {
    let audit = Arc::new(MemorySink::new());
    let toolbox = Toolbox::builder()
        .tool(read_notes::tool())
        .tool(charge_card::tool())
        .tool(list_numbers::tool())
        .output_budget(400)
        .policy(Policy::allow_all().require_scope("charge_card", "billing:write"))
        .shared_audit(Arc::clone(&audit) as _)
        .build()
        .unwrap();
    let server = McpServer::new(toolbox)
        .oauth(oauth)
        .bind_http(("127.0.0.1", 0))
        .await
        .unwrap();
    Served { server, audit }
}

/// What the server answered a raw request: status, `WWW-Authenticate`, `Retry-After`, body.
struct Answer {
    status: u16,
    challenge: String,
    retry_after: Option<String>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        let line = self
            .body
            .lines()
            .filter_map(|l| l.strip_prefix("data:").map(str::trim).or(Some(l)))
            .find(|l| l.starts_with('{'))
            .unwrap_or_else(|| panic!("no JSON in {:?}", self.body));
        serde_json::from_str(line).unwrap()
    }
}

/// A 2026-07-28 `tools/call` of `tool` (sessionless) with `headers`.
async fn call(url: &str, tool: &str, args: Value, headers: &[(&str, String)]) -> Answer {
    rpc(
        url,
        "tools/call",
        json!({"name": tool, "arguments": args}),
        headers,
    )
    .await
}

/// A 2026-07-28 request (sessionless) with `headers`.
async fn rpc(url: &str, method: &str, params: Value, headers: &[(&str, String)]) -> Answer {
    let mut req = crate::fixture::request_2026(url, method, params, json!({}));
    for (k, v) in headers {
        req = req.header(*k, v);
    }
    send(req).await
}

async fn send(req: reqwest::RequestBuilder) -> Answer {
    let bound = Duration::from_secs(30);
    let res = tokio::time::timeout(bound, req.send())
        .await
        .unwrap()
        .unwrap();
    let header = |name: &str| {
        res.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    let (status, challenge, retry_after) = (
        res.status().as_u16(),
        header("www-authenticate").unwrap_or_default(),
        header("retry-after"),
    );
    let body = tokio::time::timeout(bound, res.text())
        .await
        .unwrap()
        .unwrap();
    Answer {
        status,
        challenge,
        retry_after,
        body,
    }
}

fn bearer(token: &str) -> Vec<(&'static str, String)> {
    vec![("authorization", format!("Bearer {token}"))]
}

#[tokio::test]
async fn the_metadata_and_the_challenge_name_the_authorization_server() {
    let auth = auth_server().await;
    let served = serve(OAuth::new(&auth.url, RESOURCE).scopes(["notes:read"])).await;
    let base = served.url().trim_end_matches("/mcp").to_string();
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let meta = send(reqwest::Client::new().get(format!("{base}{path}"))).await;
        assert_eq!(meta.status, 200, "{path}: {}", meta.body);
        let meta: Value = serde_json::from_str(&meta.body).unwrap();
        assert_eq!(meta["resource"], RESOURCE);
        assert_eq!(meta["authorization_servers"], json!([auth.url]));
        // The host's scopes first, then every scope the policy requires.
        assert_eq!(
            meta["scopes_supported"],
            json!(["notes:read", "billing:write"])
        );
        assert_eq!(meta["bearer_methods_supported"], json!(["header"]));
    }
    // A browser's CORS preflight carries no token: it is not refused for that.
    let preflight = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, served.url())
        .header("origin", "http://127.0.0.1:3000")
        .header("access-control-request-method", "POST");
    assert_ne!(send(preflight).await.status, 401);
    let answer = call(&served.url(), "read_notes", json!({}), &[]).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(
        answer.challenge,
        "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource/mcp\", \
         scope=\"notes:read\""
    );
    assert!(served.ran().is_empty());
    served.server.shutdown().await;
}

#[tokio::test]
async fn a_valid_token_is_the_caller_and_goes_no_further() {
    let auth = auth_server().await;
    let served = serve(OAuth::new(&auth.url, RESOURCE)).await;
    for kid in ["rsa-1", "ec-1"] {
        let token = sign(&claims(&auth.url, "ann", "notes:read"), kid);
        let answer = call(&served.url(), "read_notes", json!({}), &bearer(&token)).await;
        assert_eq!(answer.status, 200, "{kid}: {}", answer.body);
        let message = answer.json();
        assert_eq!(
            message["result"]["structuredContent"], "the notes",
            "{message}"
        );
        // The token reaches no audit record (nor anything else past the check).
        let audit = serde_json::to_string(&served.audit.records()).unwrap();
        assert!(!audit.contains(&token), "{audit}");
    }
    assert_eq!(
        served.ran(),
        vec![
            ("read_notes".into(), Some("ann".into())),
            ("read_notes".into(), Some("ann".into()))
        ]
    );
    // The key set was fetched once, for both keys.
    assert_eq!(auth.fetches.load(Ordering::SeqCst), 1);
    served.server.shutdown().await;
}

#[tokio::test]
async fn hostile_tokens_are_refused_and_run_nothing() {
    let auth = auth_server().await;
    let served = serve(OAuth::new(&auth.url, RESOURCE)).await;
    let good = claims(&auth.url, "ann", "notes:read billing:write");
    let with = |k: &str, v: Value| {
        let mut c = good.clone();
        c[k] = v;
        c
    };
    let unsigned = format!(
        "{}.{}.",
        b64(br#"{"alg":"none","typ":"JWT"}"#),
        b64(good.to_string().as_bytes())
    );
    let hs256 = {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("rsa-1".into());
        let key = EncodingKey::from_secret(&fixture("rsa-public.pem")).unwrap();
        jsonwebtoken::encode(&header, &good, &key).unwrap()
    };
    let tampered = {
        let token = sign(&good, "rsa-1");
        let parts: Vec<&str> = token.split('.').collect();
        let payload = b64(with("sub", json!("admin")).to_string().as_bytes());
        format!("{}.{payload}.{}", parts[0], parts[2])
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("alg none", unsigned, "unsigned (alg none)"),
        ("HS256 with the public key", hs256, "signed with HS256"),
        (
            "another issuer",
            sign(&with("iss", json!("http://127.0.0.1:1")), "rsa-1"),
            "issued by another authorization server",
        ),
        (
            "another audience",
            sign(&with("aud", json!("https://other.example/mcp")), "rsa-1"),
            "issued for another resource",
        ),
        (
            "expired",
            sign(&with("exp", json!(now() - 3600)), "rsa-1"),
            "has expired",
        ),
        (
            "not yet valid",
            sign(&with("nbf", json!(now() + 3600)), "rsa-1"),
            "not valid yet",
        ),
        ("tampered payload", tampered, "signature does not verify"),
        (
            "no subject",
            sign(&with("sub", json!("")), "rsa-1"),
            "subject is empty",
        ),
        ("not a JWT", "not-a-token".into(), "not a well-formed JWT"),
        ("too long", "a".repeat(20_000), "longer than 16384 bytes"),
    ];
    for (what, token, says) in cases {
        let answer = call(&served.url(), "read_notes", json!({}), &bearer(&token)).await;
        assert_eq!(answer.status, 401, "{what}: {}", answer.body);
        assert!(
            answer.challenge.contains("error=\"invalid_token\"") && answer.challenge.contains(says),
            "{what}: {}",
            answer.challenge
        );
        let body: Value = serde_json::from_str(&answer.body).unwrap();
        assert!(
            body["error_description"].as_str().unwrap().contains(says),
            "{what}: {body}"
        );
    }
    // A token in the query string: refused, whatever it is.
    let token = sign(&good, "rsa-1");
    let answer = call(
        &format!("{}?access_token={token}", served.url()),
        "read_notes",
        json!({}),
        &[],
    )
    .await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(answer.body.contains("query string"), "{}", answer.body);
    // Two Authorization headers.
    let mut two = bearer(&token);
    two.extend(bearer(&token));
    let answer = call(&served.url(), "read_notes", json!({}), &two).await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    // A header of a megabyte: the HTTP layer refuses it before anything reads it.
    let huge = format!("Bearer {}", "a".repeat(1 << 20));
    let answer = call(
        &served.url(),
        "read_notes",
        json!({}),
        &[("authorization", huge)],
    )
    .await;
    assert_eq!(answer.status, 431, "{}", answer.body);
    assert!(served.ran().is_empty(), "{:?}", served.ran());
    served.server.shutdown().await;
}

#[tokio::test]
async fn an_unknown_key_is_fetched_for_once_per_interval() {
    let auth = auth_server().await;
    let served =
        serve(OAuth::new(&auth.url, RESOURCE).refetch_interval(Duration::from_secs(3600))).await;
    let good = claims(&auth.url, "ann", "");
    let answer = call(
        &served.url(),
        "read_notes",
        json!({}),
        &bearer(&sign(&good, "rsa-1")),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(auth.fetches.load(Ordering::SeqCst), 1);
    // A key the set lacks: one fetch again, then refused; a flood of made-up ids fetches
    // nothing more within the interval.
    let mut forged = Header::new(Algorithm::RS256);
    for n in 0..20 {
        forged.kid = Some(format!("made-up-{n}"));
        let key = EncodingKey::from_rsa_pem(&fixture("rsa-private.pem")).unwrap();
        let token = jsonwebtoken::encode(&forged, &good, &key).unwrap();
        let answer = call(&served.url(), "read_notes", json!({}), &bearer(&token)).await;
        assert_eq!(answer.status, 401, "{}", answer.body);
        assert!(answer.body.contains("is not among"), "{}", answer.body);
    }
    assert_eq!(auth.fetches.load(Ordering::SeqCst), 2);
    assert_eq!(served.ran().len(), 1);
    served.server.shutdown().await;
}

#[tokio::test]
async fn a_rotated_key_is_found_on_the_refetch() {
    let auth = auth_server().await;
    let served = serve(OAuth::new(&auth.url, RESOURCE)).await;
    let good = claims(&auth.url, "ann", "");
    let answer = call(
        &served.url(),
        "read_notes",
        json!({}),
        &bearer(&sign(&good, "rsa-1")),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    // The authorization server rotates to a new key: the first token signed with it makes the
    // server fetch the set again, and it passes.
    *auth.jwks.lock().unwrap() = serde_json::from_slice(&fixture("jwks-rotated.json")).unwrap();
    let answer = call(
        &served.url(),
        "read_notes",
        json!({}),
        &bearer(&sign(&good, "rsa-2")),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(auth.fetches.load(Ordering::SeqCst), 2);
    served.server.shutdown().await;
}

#[tokio::test]
async fn a_missing_scope_is_403_naming_it_and_a_token_with_it_runs() {
    let auth = auth_server().await;
    let served = serve(OAuth::new(&auth.url, RESOURCE)).await;
    let reader = sign(&claims(&auth.url, "ann", "notes:read"), "rsa-1");
    let answer = call(
        &served.url(),
        "charge_card",
        json!({"amount": 500, "request_id": "r-1"}),
        &bearer(&reader),
    )
    .await;
    assert_eq!(answer.status, 403, "{}", answer.body);
    assert!(
        answer.challenge.contains("error=\"insufficient_scope\"")
            && answer.challenge.contains("scope=\"billing:write\""),
        "{}",
        answer.challenge
    );
    assert!(served.ran().is_empty());
    // Step-up: a token with the scope.
    let payer = sign(
        &claims(&auth.url, "ann", "notes:read billing:write"),
        "rsa-1",
    );
    let answer = call(
        &served.url(),
        "charge_card",
        json!({"amount": 500, "request_id": "r-1"}),
        &bearer(&payer),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.json()["result"]["structuredContent"],
        "receipt-500-r-1"
    );
    assert_eq!(
        served.ran(),
        vec![("charge_card".into(), Some("ann".into()))]
    );
    served.server.shutdown().await;
}

#[tokio::test]
async fn the_key_set_down_refuses_calls_with_503_until_it_is_back() {
    let auth = auth_server().await;
    auth.down.store(true, Ordering::SeqCst);
    // No pause between fetches: the test decides when the set is back.
    let served = serve(OAuth::new(&auth.url, RESOURCE).refetch_interval(Duration::ZERO)).await;
    let token = sign(&claims(&auth.url, "ann", ""), "rsa-1");
    let answer = call(&served.url(), "read_notes", json!({}), &bearer(&token)).await;
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert!(answer.retry_after.is_some());
    assert!(answer.body.contains("no tool ran"), "{}", answer.body);
    assert!(served.ran().is_empty());
    auth.down.store(false, Ordering::SeqCst);
    let answer = call(&served.url(), "read_notes", json!({}), &bearer(&token)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(served.ran().len(), 1);
    served.server.shutdown().await;
}

#[tokio::test]
async fn anonymous_access_is_the_hosts_choice() {
    let auth = auth_server().await;
    let served = serve(OAuth::new(&auth.url, RESOURCE).allow_anonymous()).await;
    let answer = call(&served.url(), "read_notes", json!({}), &[]).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    // A tool that needs a scope asks for a token; a bad token is refused as ever.
    let answer = call(
        &served.url(),
        "charge_card",
        json!({"amount": 1, "request_id": "r-2"}),
        &[],
    )
    .await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert!(
        answer.challenge.contains("scope=\"billing:write\""),
        "{}",
        answer.challenge
    );
    let answer = call(
        &served.url(),
        "read_notes",
        json!({}),
        &bearer("not-a-token"),
    )
    .await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(served.ran(), vec![("read_notes".into(), None)]);
    served.server.shutdown().await;
}

/// A 2025-11-25 request on the session `session` (none: `initialize`) with `token`.
async fn post_2025(
    url: &str,
    token: &str,
    session: Option<&str>,
    body: Value,
) -> (Answer, Option<String>) {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("authorization", format!("Bearer {token}"))
        .body(body.to_string());
    if let Some(id) = session {
        req = req.header("mcp-session-id", id);
    }
    let res = tokio::time::timeout(Duration::from_secs(30), req.send())
        .await
        .unwrap()
        .unwrap();
    let id = res
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let status = res.status().as_u16();
    let body = res.text().await.unwrap();
    (
        Answer {
            status,
            challenge: String::new(),
            retry_after: None,
            body,
        },
        id,
    )
}

#[tokio::test]
async fn a_session_is_served_only_to_the_subject_that_opened_it() {
    let auth = auth_server().await;
    let served = serve(OAuth::new(&auth.url, RESOURCE)).await;
    let ann = sign(&claims(&auth.url, "ann", ""), "rsa-1");
    let bob = sign(&claims(&auth.url, "bob", ""), "rsa-1");
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let (answer, session) = post_2025(&served.url(), &ann, None, init).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let session = session.expect("a session id");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (answer, _) = post_2025(&served.url(), &bob, Some(&session), list.clone()).await;
    assert_eq!(answer.status, 404, "{}", answer.body);
    let (answer, _) = post_2025(&served.url(), &ann, Some(&session), list).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    served.server.shutdown().await;
}

/// Reads `child`'s first line on `pipe` that contains `marker`, within 30 s.
fn line_with(pipe: impl std::io::Read + Send + 'static, marker: &'static str) -> String {
    use std::io::BufRead as _;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(pipe).lines() {
            let Ok(line) = line else { return };
            if line.contains(marker) {
                let _ = tx.send(line);
                return;
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("no line with {marker:?} within 30 s"))
}

/// A real authorization server (oidc-provider, `tests/conformance/oauth_provider.mjs`) and
/// `examples/mcp_server` started with `--auth` and `--resource` for it, on 127.0.0.1: both
/// processes (killed when dropped), the issuer, the resource (the server's URL) and the
/// server's root. `None` (SKIP, or a failure under `TOOLSMITH_REQUIRE_CONSUMERS=1`) without the
/// npm install.
struct RealFlow {
    _provider: crate::conformance_suite::Killed,
    _server: crate::conformance_suite::Killed,
    node: std::path::PathBuf,
    issuer: String,
    resource: String,
    root: crate::fixture::Dir,
}

fn real_flow() -> Option<RealFlow> {
    use std::process::{Command, Stdio};
    let (node, _) = crate::conformance_suite::suite()?;
    let exe = std::env::current_exe().unwrap();
    let server = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples/mcp_server");
    assert!(server.exists(), "{} is not built", server.display());
    // A free port, so the resource URI is known before the server starts.
    let port = std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let mut provider = crate::conformance_suite::node_command(&node);
    provider
        .arg("oauth_provider.mjs")
        .arg(&resource)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut provider = crate::conformance_suite::Killed(provider.spawn().unwrap());
    let issuer = line_with(provider.0.stdout.take().unwrap(), "http://127.0.0.1:")
        .trim()
        .to_string();
    let root = crate::fixture::Dir::new("oauth");
    let mut mcp = Command::new(&server);
    mcp.arg(root.root())
        .args(["--http", &format!("127.0.0.1:{port}"), "--allow-writes"])
        .args(["--auth", &issuer, "--resource", &resource])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut mcp = crate::conformance_suite::Killed(mcp.spawn().unwrap());
    line_with(mcp.0.stderr.take().unwrap(), "serving MCP on");
    Some(RealFlow {
        _provider: provider,
        _server: mcp,
        node,
        issuer,
        resource,
        root,
    })
}

/// The official TypeScript SDK's client with its client-credentials provider
/// (`tests/conformance/oauth_client.mjs`) against the real flow: the client finds the
/// authorization server from the server's `401`, obtains a token, reads, and steps up to the
/// write scope on the server's `403`; the write lands.
#[test]
fn the_official_client_gets_a_token_from_a_real_authorization_server_and_steps_up() {
    let Some(flow) = real_flow() else { return };
    let mut client = crate::conformance_suite::node_command(&flow.node);
    client
        .arg("oauth_client.mjs")
        .arg(&flow.resource)
        .arg(&flow.issuer);
    let (ok, out) = crate::conformance_suite::run_bounded(client);
    assert!(ok && out.contains("all checks passed"), "{out}");
    let written = std::fs::read_to_string(flow.root.root().join("from-oauth.txt")).unwrap();
    assert_eq!(written, "written with a stepped-up token\n");
}

/// The official Python SDK's client with its client-credentials provider
/// (`tests/mcp/python_oauth_client.py`) through the same flow.
#[test]
fn the_official_python_client_gets_a_token_and_steps_up_too() {
    let python = crate::require::python(env!("CARGO_MANIFEST_DIR"));
    let probe = std::process::Command::new(&python)
        .args(["-c", "import mcp.client.auth.extensions.client_credentials"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        crate::require::missing::<()>(
            "the Python MCP SDK (mcp)",
            "not installed; .ci/consumers.sh installs it into target/consumers-venv",
        );
        return;
    }
    let Some(flow) = real_flow() else { return };
    let mut client = std::process::Command::new(&python);
    client
        .arg(crate::workspace().join("tests/mcp/python_oauth_client.py"))
        .arg(&flow.resource)
        .arg(&flow.issuer)
        .arg(flow.root.root());
    crate::conformance_suite::without_proxy(&mut client);
    let (ok, out) = crate::conformance_suite::run_bounded(client);
    assert!(ok && out.contains("all checks passed"), "{out}");
}

#[tokio::test]
async fn two_subjects_keep_their_idempotency_keys_apart() {
    let auth = auth_server().await;
    let served = serve(OAuth::new(&auth.url, RESOURCE)).await;
    let ann = sign(&claims(&auth.url, "ann", "billing:write"), "rsa-1");
    let bob = sign(&claims(&auth.url, "bob", "billing:write"), "ec-1");
    let charge = json!({"amount": 700, "request_id": "same-id"});
    for token in [&ann, &ann, &bob] {
        let answer = call(&served.url(), "charge_card", charge.clone(), &bearer(token)).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
    // Ann's repeat is her first call's duplicate; Bob's call with the same id is his own.
    assert_eq!(
        served.ran(),
        vec![
            ("charge_card".into(), Some("ann".into())),
            ("charge_card".into(), Some("bob".into()))
        ]
    );
    served.server.shutdown().await;
}

#[tokio::test]
async fn opaque_tokens_are_checked_by_introspection_and_kept_a_while() {
    let auth = auth_server().await;
    let endpoint = format!("{}/introspect", auth.url);
    let served =
        serve(OAuth::new(&auth.url, RESOURCE).introspection(&endpoint, "rs", "rs-secret")).await;
    let answer = |sub: &str, aud: Value, extra: Value| {
        let mut a = json!({"active": true, "sub": sub, "scope": "billing:write", "aud": aud,
            "iss": auth.url, "exp": now() + 600});
        for (k, v) in extra.as_object().unwrap() {
            a[k] = v.clone();
        }
        a
    };
    {
        let mut opaque = auth.opaque.lock().unwrap();
        opaque.insert(
            "opaque-ann".into(),
            answer("ann", json!([RESOURCE, "other"]), json!({})),
        );
        opaque.insert(
            "opaque-other".into(),
            answer("ann", json!("https://other.example/mcp"), json!({})),
        );
        opaque.insert(
            "opaque-old".into(),
            answer("ann", json!(RESOURCE), json!({"exp": now() - 3600})),
        );
        opaque.insert(
            "opaque-foreign".into(),
            answer(
                "ann",
                json!(RESOURCE),
                json!({"iss": "https://evil.example"}),
            ),
        );
        opaque.insert(
            "opaque-nobody".into(),
            answer("", json!(RESOURCE), json!({})),
        );
    }
    let charge = json!({"amount": 1, "request_id": "o-1"});
    let ok = call(
        &served.url(),
        "charge_card",
        charge.clone(),
        &bearer("opaque-ann"),
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    // The answer is kept: a second call asks nothing.
    let again = call(
        &served.url(),
        "read_notes",
        json!({}),
        &bearer("opaque-ann"),
    )
    .await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(auth.introspections.load(Ordering::SeqCst), 1);
    for (token, says) in [
        ("opaque-unknown", "not active"),
        ("opaque-other", "issued for another resource"),
        ("opaque-old", "has expired"),
        ("opaque-foreign", "another authorization server"),
        ("opaque-nobody", "subject is empty"),
    ] {
        let refused = call(&served.url(), "read_notes", json!({}), &bearer(token)).await;
        assert_eq!(refused.status, 401, "{token}: {}", refused.body);
        assert!(refused.body.contains(says), "{token}: {}", refused.body);
    }
    // JWTs still go the JWT way.
    let jwt = sign(&claims(&auth.url, "bob", ""), "rsa-1");
    let answer_jwt = call(&served.url(), "read_notes", json!({}), &bearer(&jwt)).await;
    assert_eq!(answer_jwt.status, 200, "{}", answer_jwt.body);
    assert_eq!(
        served.ran(),
        vec![
            ("charge_card".into(), Some("ann".into())),
            ("read_notes".into(), Some("ann".into())),
            ("read_notes".into(), Some("bob".into()))
        ]
    );
    served.server.shutdown().await;
}

#[tokio::test]
async fn introspection_that_cannot_answer_is_503_and_runs_nothing() {
    let auth = auth_server().await;
    let endpoint = format!("{}/introspect", auth.url);
    // Credentials the authorization server refuses, then the server down.
    let served =
        serve(OAuth::new(&auth.url, RESOURCE).introspection(&endpoint, "rs", "wrong")).await;
    let refused = call(
        &served.url(),
        "read_notes",
        json!({}),
        &bearer("opaque-ann"),
    )
    .await;
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert!(
        refused.body.contains("401 Unauthorized"),
        "{}",
        refused.body
    );
    auth.down.store(true, Ordering::SeqCst);
    let refused = call(
        &served.url(),
        "read_notes",
        json!({}),
        &bearer("opaque-ann"),
    )
    .await;
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert!(served.ran().is_empty());
    served.server.shutdown().await;
}

#[tokio::test]
async fn two_subjects_keep_their_result_links_and_cursors_apart() {
    let auth = auth_server().await;
    let served = serve(OAuth::new(&auth.url, RESOURCE)).await;
    let ann = bearer(&sign(&claims(&auth.url, "ann", ""), "rsa-1"));
    let bob = bearer(&sign(&claims(&auth.url, "bob", ""), "ec-1"));
    let first = call(&served.url(), "list_numbers", json!({}), &ann)
        .await
        .json();
    let result = &first["result"];
    let link = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "resource_link")
        .unwrap_or_else(|| panic!("no link in {result}"))["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let envelope: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    let cursor = envelope["cursor"]
        .as_str()
        .unwrap_or_else(|| panic!("{envelope}"))
        .to_string();
    // Ann reads her full result and her next page; Bob, with a valid token of his own, neither.
    let url = served.url();
    let read = json!({"uri": link});
    let mine = rpc(&url, "resources/read", read.clone(), &ann).await.json();
    assert!(mine["result"]["contents"][0]["text"].is_string(), "{mine}");
    let theirs = rpc(&url, "resources/read", read, &bob).await.json();
    assert!(theirs["error"].is_object(), "{theirs}");
    let why = theirs["error"]["message"].as_str().unwrap();
    assert!(why.contains("not made for this caller"), "{theirs}");
    let next = json!({"cursor": cursor});
    let mine = call(&url, "list_numbers", next.clone(), &ann).await.json();
    assert_eq!(mine["result"]["isError"], false, "{mine}");
    let theirs = call(&url, "list_numbers", next, &bob).await.json();
    assert_eq!(theirs["result"]["isError"], true, "{theirs}");
    assert_eq!(
        theirs["result"]["_meta"]["dev.toolsmith/envelope"]["code"],
        "INVALID_CURSOR"
    );
    served.server.shutdown().await;
}

/// Every span and event of the server, the toolbox and rmcp at `trace`, while a call with a
/// token runs (all of them on this thread: a current-thread runtime), holds no trace of the
/// token; the call's span is there, so the capture saw the call.
#[test]
fn the_token_reaches_no_log_or_span() {
    let capture = crate::common::capture_trace();
    let token = crate::common::rt().block_on(async {
        let auth = auth_server().await;
        let served = serve(OAuth::new(&auth.url, RESOURCE)).await;
        let token = sign(&claims(&auth.url, "ann", "billing:write"), "rsa-1");
        let charge = json!({"amount": 9, "request_id": "t-1"});
        let answer = call(&served.url(), "charge_card", charge, &bearer(&token)).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        served.server.shutdown().await;
        token
    });
    let text = capture.finish();
    assert!(
        text.contains("charge_card"),
        "the capture saw no call:\n{text}"
    );
    let signature = token.rsplit('.').next().unwrap();
    assert!(
        !text.contains(signature),
        "the token's signature is in the logs"
    );
    assert!(
        !text.contains("Bearer"),
        "an Authorization header is in the logs"
    );
}

#[tokio::test]
async fn keys_are_not_fetched_through_a_redirect_to_plain_http() {
    let auth = auth_server().await;
    let jwks = format!("{}/jwks-elsewhere", auth.url);
    let served = serve(OAuth::new(&auth.url, RESOURCE).jwks_uri(jwks)).await;
    let token = sign(&claims(&auth.url, "ann", ""), "rsa-1");
    let answer = call(&served.url(), "read_notes", json!({}), &bearer(&token)).await;
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert!(answer.body.contains("302"), "{}", answer.body);
    assert!(served.ran().is_empty());
    served.server.shutdown().await;
}

#[tokio::test]
async fn the_resource_host_is_served_and_other_hosts_are_not() {
    let auth = auth_server().await;
    let public = "https://tools.example.com/mcp";
    let served = serve(OAuth::new(&auth.url, public)).await;
    let mut good = claims(&auth.url, "ann", "");
    good["aud"] = json!(public);
    let mut headers = bearer(&sign(&good, "rsa-1"));
    headers.push(("host", "tools.example.com".into()));
    let answer = call(&served.url(), "read_notes", json!({}), &headers).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    // rmcp's check against DNS rebinding still refuses any other name.
    headers.pop();
    headers.push(("host", "attacker.example.net".into()));
    let answer = call(&served.url(), "read_notes", json!({}), &headers).await;
    assert_eq!(answer.status, 403, "{}", answer.body);
    assert_eq!(served.ran().len(), 1);
    served.server.shutdown().await;
}

#[tokio::test]
async fn a_body_past_the_limit_is_413_with_a_token_too() {
    let auth = auth_server().await;
    let served = serve(OAuth::new(&auth.url, RESOURCE)).await;
    let token = sign(&claims(&auth.url, "ann", ""), "rsa-1");
    let big = json!({"padding": "x".repeat(toolsmith::mcp::MAX_REQUEST_BODY_BYTES)});
    let answer = call(&served.url(), "read_notes", big, &bearer(&token)).await;
    assert_eq!(answer.status, 413, "{}", answer.body);
    assert!(served.ran().is_empty());
    served.server.shutdown().await;
}

#[tokio::test]
async fn keys_past_their_age_are_refreshed_at_most_once_per_interval() {
    let auth = auth_server().await;
    let oauth = OAuth::new(&auth.url, RESOURCE)
        .keys_max_age(Duration::ZERO)
        .refetch_interval(Duration::from_secs(3600));
    let served = serve(oauth).await;
    let token = sign(&claims(&auth.url, "ann", ""), "rsa-1");
    // The authorization server goes down after the first fetch: the kept keys serve, and the
    // requests do not each wait on a fetch.
    let answer = call(&served.url(), "read_notes", json!({}), &bearer(&token)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    auth.down.store(true, Ordering::SeqCst);
    for _ in 0..5 {
        let answer = call(&served.url(), "read_notes", json!({}), &bearer(&token)).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
    assert_eq!(auth.fetches.load(Ordering::SeqCst), 1);
    assert_eq!(served.ran().len(), 6);
    served.server.shutdown().await;
}
