//! The secrets corpus (issue 17, item 7): secrets in real formats placed in results, nested
//! data, object keys, error messages, error details and notes must all be redacted; look-alike
//! ordinary text (UUIDs, hashes, base64 images, long hex ids, ordinary words) must pass through
//! unchanged. The test prints the detection and false-positive counts.
//!
//! Every secret is generated here from a fixed seed: well-formed, fake, and never committed as a
//! literal that secret scanners would flag.

use serde_json::{json, Value};
use toolsmith::Redactor;
use toolsmith::{tool, Envelope, Reply, Status, ToolError, Toolbox};

/// A small deterministic generator (xorshift64*), so the corpus is the same on every run.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick(&mut self, alphabet: &str, n: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        (0..n)
            .map(|_| chars[(self.next() % chars.len() as u64) as usize])
            .collect()
    }
    fn alnum(&mut self, n: usize) -> String {
        self.pick(ALNUM, n)
    }
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGITS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const HEX: &str = "0123456789abcdef";
const DIGITS: &str = "0123456789";

/// One secret: its kind (for the report), the text that carries it, and the part that must not
/// reach the model.
struct Secret {
    kind: &'static str,
    text: String,
    secret: String,
}

fn secret(kind: &'static str, text: String, secret: String) -> Secret {
    Secret { kind, text, secret }
}

/// A secret that is its own text.
fn bare(kind: &'static str, s: String) -> Secret {
    secret(kind, s.clone(), s)
}

fn pem(g: &mut Gen, label: &str) -> Secret {
    let body: Vec<String> = (0..6).map(|_| g.pick(B64, 64)).collect();
    let text = format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----",
        body.join("\n")
    );
    secret("private_key", text, body[2].clone())
}

fn jwt(g: &mut Gen) -> String {
    let b64url = |v: &Value| {
        // Unpadded base64url of the JSON, as a JWT carries it.
        let bytes = v.to_string().into_bytes();
        let mut out = String::new();
        let alphabet: Vec<char> = B64URL.chars().collect();
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..=chunk.len() {
                out.push(alphabet[((n >> (18 - 6 * i)) & 63) as usize]);
            }
        }
        out
    };
    let header = b64url(&json!({"alg": "HS256", "typ": "JWT"}));
    let payload = b64url(&json!({"sub": g.pick(DIGITS, 10), "name": "Ann", "iat": 1_700_000_000}));
    format!("{header}.{payload}.{}", g.pick(B64URL, 43))
}

/// The secrets corpus: every format the redactor must catch.
fn secrets() -> Vec<Secret> {
    let mut g = Gen(0x5EC2_E7C0_2B05);
    let mut out = Vec::new();
    for prefix in ["AKIA", "ASIA"] {
        out.push(bare(
            "aws_access_key_id",
            format!("{prefix}{}", g.pick(UPPER_DIGITS, 16)),
        ));
    }
    let aws_secret = g.pick(B64, 40);
    out.push(secret(
        "aws_secret_access_key",
        format!("aws_secret_access_key = {aws_secret}"),
        aws_secret,
    ));
    let aws_secret = g.pick(B64, 40);
    out.push(secret(
        "aws_secret_access_key",
        format!("AWS_SECRET_ACCESS_KEY: \"{aws_secret}\""),
        aws_secret,
    ));
    out.push(bare(
        "google_api_key",
        format!("AIza{}", g.pick(B64URL, 35)),
    ));
    for prefix in ["ghp_", "gho_", "ghs_", "ghu_", "ghr_"] {
        out.push(bare("github_token", format!("{prefix}{}", g.alnum(36))));
    }
    out.push(bare(
        "github_token",
        format!("github_pat_{}_{}", g.alnum(22), g.alnum(59)),
    ));
    out.push(bare(
        "gitlab_token",
        format!("glpat-{}", g.pick(B64URL, 20)),
    ));
    out.push(bare("npm_token", format!("npm_{}", g.alnum(36))));
    for prefix in ["xoxb", "xoxp", "xoxa", "xoxs"] {
        out.push(bare(
            "slack_token",
            format!(
                "{prefix}-{}-{}-{}",
                g.pick(DIGITS, 12),
                g.pick(DIGITS, 13),
                g.alnum(24)
            ),
        ));
    }
    out.push(bare(
        "slack_token",
        format!(
            "xapp-1-A{}-{}-{}",
            g.pick(UPPER_DIGITS, 10),
            g.pick(DIGITS, 13),
            g.pick(HEX, 64)
        ),
    ));
    let hook = format!(
        "T{}/B{}/{}",
        g.pick(UPPER_DIGITS, 10),
        g.pick(UPPER_DIGITS, 10),
        g.alnum(24)
    );
    out.push(secret(
        "slack_webhook",
        format!("https://hooks.slack.com/services/{hook}"),
        hook,
    ));
    for _ in 0..3 {
        out.push(bare("jwt", jwt(&mut g)));
    }
    for label in [
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "DSA PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ] {
        out.push(pem(&mut g, label));
    }
    for (scheme, user) in [
        ("postgres", "app"),
        ("postgresql", "report_ro"),
        ("mysql", "root"),
        ("mongodb+srv", "svc"),
        ("redis", ""),
        ("amqp", "guest"),
        ("https", "deploy"),
        ("ftp", "backup"),
    ] {
        let pw = format!("{}{}!", g.alnum(14), g.pick(DIGITS, 2));
        out.push(secret(
            "url_password",
            format!(
                "{scheme}://{user}:{pw}@db-{}.internal:5432/main",
                g.pick(DIGITS, 2)
            ),
            pw,
        ));
    }
    let pw = g.alnum(16);
    out.push(secret(
        "connection_string_password",
        format!("Server=db;Database=main;User Id=app;Password={pw};"),
        pw,
    ));
    for prefix in ["sk_live_", "sk_test_", "rk_live_"] {
        out.push(bare("stripe_key", format!("{prefix}{}", g.alnum(24))));
    }
    out.push(bare("stripe_key", format!("whsec_{}", g.alnum(32))));
    out.push(bare(
        "openai_api_key",
        format!("sk-proj-{}", g.pick(B64URL, 48)),
    ));
    out.push(bare(
        "anthropic_api_key",
        format!("sk-ant-api03-{}", g.pick(B64URL, 80)),
    ));
    out.push(bare(
        "sendgrid_api_key",
        format!("SG.{}.{}", g.pick(B64URL, 22), g.pick(B64URL, 43)),
    ));
    let token = g.pick(B64URL, 32);
    out.push(secret(
        "bearer_token",
        format!("Authorization: Bearer {token}"),
        token,
    ));
    out
}

/// Look-alike ordinary text that must reach the model unchanged.
fn look_alikes() -> Vec<String> {
    let mut g = Gen(0x00C0_FFEE_1234);
    let mut out = Vec::new();
    for _ in 0..5 {
        let h = g.pick(HEX, 32);
        out.push(format!(
            "{}-{}-4{}-a{}-{}",
            &h[..8],
            &h[8..12],
            &h[13..16],
            &h[17..20],
            &h[20..32]
        ));
    }
    for _ in 0..3 {
        out.push(g.pick(HEX, 40)); // git commit ids
        out.push(format!("commit {}", g.pick(HEX, 40)));
        out.push(format!("sha256:{}", g.pick(HEX, 64))); // image digests
        out.push(g.pick(HEX, 24)); // object ids
        out.push(g.pick(HEX, 128)); // long hex ids
    }
    for kind in ["png", "jpeg", "gif"] {
        out.push(format!("data:image/{kind};base64,{}==", g.pick(B64, 600)));
    }
    out.push(g.pick(B64, 88)); // base64 of some bytes
    out.extend(
        [
            "Passwords must be at least 12 characters long.",
            "Reset your password from the account page.",
            "The token count of this prompt is 1,204.",
            "max_tokens was raised to 4096",
            "the Bearer of this letter is our guest",
            "Use a secret santa list for the party.",
            "sk-learn is a typo for scikit-learn",
            "task-manager and risk-assessment notes",
            "AKIA is not a key by itself",
            "ghp is a prefix, not a token",
            "Download from https://example.com:8443/files/report.pdf",
            "Mail ann@example.com or visit https://example.com/users/ann@team",
            "arn:aws:iam::123456789012:role/deploy-role",
            "s3://my-bucket/path/to/object.txt",
            "pk_live_ keys are publishable and safe to show",
            "Order 2026-11-30T12:09:12.345Z shipped; version 1.4.2-beta.3",
            "ssh://git@example.com:22/team/repo.git",
            "Call +1 (555) 010-9999 between 9 and 5",
            "color #1e90ff and rgba(0,0,0,0.5)",
            "01HZX3K7Q8V5M2N9P4R6T8W0YB",
            "eyJhbGciOiJIUzI1NiJ9 alone is just a header",
            "sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
        ]
        .map(String::from),
    );
    out
}

/// Returns text in the place the test asks for. Returns the payload.
#[tool(read_only, output_budget = 100000)]
fn get_payload(
    /// The text to return, e.g. "hello".
    text: String,
    /// Where to put it: "result", "nested", "key", "error", "details" or "note".
    place: String,
) -> Result<Reply<Value>, ToolError> {
    match place.as_str() {
        "result" => Ok(Reply::new(json!(format!("log line: {text} (end)")))),
        "nested" => Ok(Reply::new(
            json!({"a": [{"b": {"c": [1, {"d": text}]}}], "ok": true}),
        )),
        "key" => Ok(Reply::new(json!({ text: 1 }))),
        "error" => Err(ToolError::failed(
            "UPSTREAM",
            format!("The upstream answered: {text}"),
        )),
        "details" => Err(ToolError::failed("UPSTREAM", "The upstream failed.")
            .with_details(json!({"raw": [text]}))),
        _ => Ok(Reply::new(json!("done")).note(format!("Seen on the way: {text}"))),
    }
}

const PLACES: [&str; 6] = ["result", "nested", "key", "error", "details", "note"];

fn toolbox() -> Toolbox {
    Toolbox::builder()
        .tool(get_payload::tool())
        .output_budget(100_000)
        .build()
        .unwrap()
}

fn wire(env: &Envelope) -> String {
    env.to_json()
}

#[tokio::test]
async fn every_secret_is_redacted_wherever_it_is_placed() {
    let tb = toolbox();
    let corpus = secrets();
    let (mut detected, mut missed) = (0, Vec::new());
    for s in &corpus {
        for place in PLACES {
            let env = tb
                .call("get_payload", json!({"text": s.text, "place": place}))
                .await;
            assert_ne!(env.status, Status::InvalidInput, "{}", wire(&env));
            let out = wire(&env);
            if out.contains(&s.secret) || !out.contains("[REDACTED:") {
                missed.push(format!("{} in {place}: {out}", s.kind));
            } else {
                detected += 1;
            }
        }
    }
    let total = corpus.len() * PLACES.len();
    println!(
        "secrets: {detected} of {total} placements redacted ({} secrets of {} kinds, {} places each)",
        corpus.len(),
        corpus
            .iter()
            .map(|s| s.kind)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        PLACES.len()
    );
    assert!(missed.is_empty(), "missed:\n{}", missed.join("\n"));
}

#[test]
fn split_private_keys_and_secret_fields_are_redacted_too() {
    let mut g = Gen(7);
    let key = pem(&mut g, "RSA PRIVATE KEY");
    let lines: Vec<Value> = key.text.lines().map(|l| json!(l)).collect();
    let mut value = json!({"lines": lines, "db_password": g.alnum(12), "apiKey": g.alnum(30)});
    let n = Redactor::new().redact_value(&mut value);
    let out = value.to_string();
    assert!(!out.contains(&key.secret), "{out}");
    assert_eq!(value["db_password"], "[REDACTED:secret_field]");
    assert_eq!(value["apiKey"], "[REDACTED:secret_field]");
    assert!(n >= 3, "{n}");
}

#[tokio::test]
async fn look_alike_ordinary_text_passes_unchanged() {
    let tb = toolbox();
    let corpus = look_alikes();
    let mut changed = Vec::new();
    for text in &corpus {
        for place in ["result", "nested", "key", "error", "note"] {
            let env = tb
                .call("get_payload", json!({"text": text, "place": place}))
                .await;
            let out = wire(&env);
            let kept = match place {
                "key" => env
                    .data
                    .as_ref()
                    .and_then(|d| d.get(text.as_str()))
                    .is_some(),
                _ => {
                    let escaped = serde_json::to_string(text).unwrap();
                    out.contains(&escaped[1..escaped.len() - 1])
                }
            };
            if out.contains("[REDACTED:") || !kept {
                changed.push(format!("{place}: {out}"));
            }
        }
    }
    println!(
        "look-alikes: {} of {} placements changed ({} texts, 5 places each)",
        changed.len(),
        corpus.len() * 5,
        corpus.len()
    );
    assert!(
        changed.is_empty(),
        "false positives:\n{}",
        changed.join("\n")
    );
    // Look-alike field names keep their values.
    let mut v = json!({"max_tokens": 100, "token_count": 7, "next_page_token": "abc123", "keyboard": "de", "author": "ann"});
    let before = v.clone();
    assert_eq!(Redactor::new().redact_value(&mut v), 0);
    assert_eq!(v, before);
}

// ---------------------------------------------------------------- one secret of each kind

// The exact redaction of one secret of each kind in results, error messages and error details,
// and a host pattern.

/// (kind, text with a secret, the same text redacted).
const SECRETS: &[(&str, &str, &str)] = &[
    (
        "openai",
        "key sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12 here",
        "key [REDACTED:openai_api_key] here",
    ),
    (
        "anthropic",
        "key sk-ant-api03-Ab12Cd34Ef56Gh78Ij90Kl12Mn here",
        "key [REDACTED:anthropic_api_key] here",
    ),
    (
        "aws_id",
        "id AKIAIOSFODNN7EXAMPLE here",
        "id [REDACTED:aws_access_key_id] here",
    ),
    (
        "aws_secret",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = [REDACTED:aws_secret_access_key]",
    ),
    (
        "github",
        "token ghp_0123456789abcdefghijklmnopqrstuvwxyz here",
        "token [REDACTED:github_token] here",
    ),
    (
        "slack",
        "token xoxb-123456789012-abcdefABCDEF here",
        "token [REDACTED:slack_token] here",
    ),
    (
        "google",
        "key AIzaSyA1234567890abcdefghijklmnopqrstuv here",
        "key [REDACTED:google_api_key] here",
    ),
    (
        "stripe",
        "key sk_live_4eC39HqLyjWDarjtT1zdp7dc here",
        "key [REDACTED:stripe_key] here",
    ),
    (
        "bearer",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl",
        "Authorization: Bearer [REDACTED:bearer_token]",
    ),
    (
        "pem",
        "cert:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcd==\n-----END RSA PRIVATE KEY-----\nend",
        "cert:\n[REDACTED:private_key]\nend",
    ),
    (
        "url",
        "db postgres://app:hunter2@db:5432/main here",
        "db postgres://app:[REDACTED:url_password]@db:5432/main here",
    ),
    (
        "connection",
        "Server=db;User Id=app;Password=hunter2;",
        "Server=db;User Id=app;Password=[REDACTED:connection_string_password];",
    ),
    (
        "employee",
        "owner EMP-004211 here",
        "owner [REDACTED:employee_id] here",
    ),
];

fn secret_text(kind: &str) -> String {
    SECRETS
        .iter()
        .find(|(k, _, _)| *k == kind)
        .map_or_else(|| "nothing".to_string(), |(_, text, _)| (*text).to_string())
}

/// Reads a configuration entry. Returns its text.
#[tool(read_only)]
fn read_config_entry(
    /// The entry's name, e.g. "openai".
    name: String,
) -> String {
    secret_text(&name)
}

/// Checks a configuration entry against its server. Returns whether it works.
#[tool(read_only)]
fn check_config_entry(
    /// The entry's name, e.g. "openai".
    name: String,
) -> Result<bool, ToolError> {
    let text = secret_text(&name);
    Err(
        ToolError::failed("REJECTED", format!("The server rejected: {text}"))
            .with_details(json!({"entry": text})),
    )
}

#[tokio::test]
async fn secrets_are_redacted_in_results_and_in_error_messages() {
    let redactor = Redactor::new()
        .try_with_pattern("employee_id", r"\bEMP-\d{6}\b")
        .unwrap();
    let tb = Toolbox::builder()
        .tool(read_config_entry::tool())
        .tool(check_config_entry::tool())
        .redactor(redactor)
        .build()
        .unwrap();
    for (kind, _, redacted) in SECRETS {
        let env = tb.call("read_config_entry", json!({ "name": kind })).await;
        assert_eq!(env.data, Some(json!(redacted)), "{kind}");
        let env = tb.call("check_config_entry", json!({ "name": kind })).await;
        assert_eq!(env.status, Status::Failed);
        assert_eq!(
            env.message.as_deref(),
            Some(format!("The server rejected: {redacted}").as_str()),
            "{kind}"
        );
        assert_eq!(env.data, Some(json!({ "entry": redacted })), "{kind}");
    }
    // Without the host pattern, employee ids pass through.
    let tb = Toolbox::builder()
        .tool(read_config_entry::tool())
        .build()
        .unwrap();
    let env = tb
        .call("read_config_entry", json!({"name": "employee"}))
        .await;
    assert_eq!(env.data, Some(json!("owner EMP-004211 here")));
}
