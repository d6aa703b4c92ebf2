//! Redaction: one test per secret kind, host patterns, JSON walking and no false positives.
//!
//! Fake secrets are assembled at run time so the source holds nothing a secret scanner flags.

use serde_json::json;
use toolsmith_core::{Envelope, Status};
use toolsmith_core::{RedactError, Redactor};

fn redact(text: &str) -> String {
    Redactor::new().redact_str(text).into_owned()
}

/// Asserts that `secret` is gone from the redaction of `text`, replaced by the `kind` marker,
/// and that everything else in `text` is kept.
fn assert_redacted(text: &str, secret: &str, kind: &str) {
    let out = redact(text);
    assert!(!out.contains(secret), "secret survived redaction: {out:?}");
    let marker = format!("[REDACTED:{kind}]");
    assert!(out.contains(&marker), "expected {marker} in {out:?}");
    assert_eq!(
        out,
        text.replacen(secret, &marker, 1),
        "context must be kept"
    );
}

fn alnum(n: usize) -> String {
    "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z"
        .chars()
        .cycle()
        .take(n)
        .collect()
}

#[test]
fn openai_keys() {
    let legacy = format!("sk-{}", alnum(48));
    assert_redacted(
        &format!("OPENAI_API_KEY={legacy}"),
        &legacy,
        "openai_api_key",
    );
    let project = format!("sk-proj-{}_{}", alnum(40), alnum(20));
    assert_redacted(
        &format!("key \"{project}\" in config"),
        &project,
        "openai_api_key",
    );
}

#[test]
fn anthropic_keys() {
    let key = format!("sk-ant-api03-{}-{}", alnum(60), alnum(20));
    assert_redacted(&format!("x-api-key: {key}"), &key, "anthropic_api_key");
}

#[test]
fn aws_access_key_id_and_secret_key() {
    let id = format!("AKIA{}", "IOSFODNN7EXAMPL1");
    assert_redacted(
        &format!("aws_access_key_id = {id}"),
        &id,
        "aws_access_key_id",
    );
    let secret = format!("wJalrXUtnFEMI/K7MDENG/{}", "bPxRfiCYEXAMPLEKEY");
    assert_eq!(secret.len(), 40);
    let text = format!("[default]\naws_secret_access_key = {secret}\n");
    assert_redacted(&text, &secret, "aws_secret_access_key");
    // Also in JSON-ish form with quotes and a colon.
    let text = format!("{{\"aws_secret_access_key\": \"{secret}\"}}");
    assert_redacted(&text, &secret, "aws_secret_access_key");
}

/// The AWS secret key in the spellings of environment files, INI and YAML configs, and the JSON
/// of the SDKs: the name before the value is what makes it a secret.
#[test]
fn aws_secret_access_key_in_every_spelling() {
    let secret = format!("wJalrXUtnFEMI/K7MDENG/{}", "bPxRfiCYEXAMPLEKEY");
    let cases = [
        // Environment variables, as `env` prints them, in a `.env` file and exported.
        format!("AWS_SECRET_ACCESS_KEY={secret}"),
        format!("AWS_SECRET_KEY={secret}\n"),
        format!("AWS_SECRET={secret}"),
        format!("export AWS_SECRET_ACCESS_KEY=\"{secret}\""),
        format!("AWS_SECRET='{secret}'"),
        format!("$env:AWS_SECRET_ACCESS_KEY = \"{secret}\""),
        // INI (~/.aws/credentials, boto) and other config lines.
        format!("[default]\naws_secret_access_key = {secret}\n"),
        format!("[prod]\naws_secret_key: {secret}\n"),
        format!("aws_secret = {secret}"),
        format!("aws.secretKey={secret}"),
        format!("aws-secret-access-key: {secret}"),
        // JSON: the SDKs' credentials, STS's answer, JSON quoted inside a string.
        format!("{{\"accessKeyId\": \"AKIA…\", \"secretAccessKey\": \"{secret}\"}}"),
        format!("{{\"Credentials\": {{\"SecretAccessKey\": \"{secret}\"}}}}"),
        format!("{{\"awsSecretAccessKey\":\"{secret}\"}}"),
        format!("\"{{\\\"secretAccessKey\\\": \\\"{secret}\\\"}}\""),
        // YAML keys.
        format!("credentials:\n  aws_secret_access_key: {secret}\n"),
        format!("Credentials:\n  SecretAccessKey: '{secret}'\n"),
        // A {name, value} environment entry (Kubernetes, ECS task definitions).
        format!("env:\n- name: AWS_SECRET_ACCESS_KEY\n  value: {secret}\n"),
        format!("{{\"name\": \"AWS_SECRET_ACCESS_KEY\", \"value\": \"{secret}\"}}"),
    ];
    for text in &cases {
        assert_redacted(text, &secret, "aws_secret_access_key");
    }
    // A longer value after the name is all secret: no tail reaches the model.
    let long = format!("{secret}{}", "Zz09+/");
    assert_redacted(
        &format!("AWS_SECRET={long}"),
        &long,
        "aws_secret_access_key",
    );
}

/// Values of the AWS key's shape (40 base64 characters) that no secret name introduces, and
/// names of the AWS key followed by something that is not one, are left alone.
#[test]
fn aws_key_shapes_without_a_secret_name_are_left_alone() {
    let hash = "3f786850e387550fdab836ed7e6dc881de23001b";
    let forty = format!("wJalrXUtnFEMI/K7MDENG/{}", "bPxRfiCYEXAMPLEKEY");
    let texts = [
        format!("commit: {hash}"),
        format!("commit {hash}\nAuthor: Ann <ann@example.com>"),
        format!("sha1: {hash}"),
        format!("{{\"etag\": \"{forty}\"}}"),
        format!("checksum = {forty}"),
        format!("AWS_SECRET_NAME={forty}"),
        format!("aws_secret_arn: {forty}"),
        format!("AWS_ACCESS_KEY_ID_FILE: {forty}"),
        "AWS_SECRET_ACCESS_KEY=short".to_string(),
        "aws_secret_access_key = <your secret key>".to_string(),
        "Set AWS_SECRET_ACCESS_KEY in the environment; see the AWS docs.".to_string(),
        format!("The secret access key is shown once. Commit {hash} adds the docs."),
    ];
    let r = Redactor::new();
    for t in &texts {
        assert_eq!(r.redact_str(t), t.as_str(), "false positive on {t:?}");
    }
}

#[test]
fn github_tokens() {
    for prefix in ["ghp_", "gho_", "ghs_", "ghr_", "ghu_"] {
        let token = format!("{prefix}{}", alnum(36));
        assert_redacted(&format!("token: {token}."), &token, "github_token");
    }
    let pat = format!("github_pat_{}_{}", alnum(22), alnum(59));
    assert_redacted(&format!("GH_TOKEN={pat}"), &pat, "github_token");
}

#[test]
fn slack_tokens() {
    for kind in ['b', 'a', 'p', 'r', 's'] {
        let token = format!("xox{kind}-1234567890-{}", alnum(24));
        assert_redacted(&format!("slack {token} here"), &token, "slack_token");
    }
}

#[test]
fn google_api_keys() {
    let key = format!("AIza{}", alnum(35));
    assert_redacted(
        &format!("https://maps.example/api?key={key}&q=x"),
        &key,
        "google_api_key",
    );
}

#[test]
fn stripe_keys() {
    let live = format!("sk_live_{}", alnum(24));
    assert_redacted(&format!("stripe: {live}"), &live, "stripe_key");
    let restricted = format!("rk_live_{}", alnum(24));
    assert_redacted(&format!("stripe: {restricted}"), &restricted, "stripe_key");
}

#[test]
fn bearer_tokens() {
    let jwt = format!("eyJ{}.eyJ{}.{}", alnum(20), alnum(30), alnum(43));
    assert_redacted(
        &format!("Authorization: Bearer {jwt}"),
        &jwt,
        "bearer_token",
    );
    assert_redacted(
        &format!("authorization: bearer {jwt}"),
        &jwt,
        "bearer_token",
    );
    // After an explicit Authorization header even a short token is a secret.
    assert_redacted("Authorization: Bearer abc", "abc", "bearer_token");
    // A bare "Bearer <token>" when it looks like a token.
    assert_redacted(&format!("use Bearer {jwt} to call"), &jwt, "bearer_token");
    // ... but not an ordinary word after "bearer".
    assert_eq!(redact("the bearer of bad news"), "the bearer of bad news");
    assert_eq!(redact("Bearer bonds are rare"), "Bearer bonds are rare");
}

#[test]
fn pem_private_keys() {
    for label in ["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED "] {
        let body = format!(
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n{}\n{}==",
            alnum(64),
            alnum(40)
        );
        let block =
            format!("-----BEGIN {label}PRIVATE KEY-----\n{body}\n-----END {label}PRIVATE KEY-----");
        let text = format!("key file:\n{block}\nend of file");
        let out = redact(&text);
        assert_eq!(
            out, "key file:\n[REDACTED:private_key]\nend of file",
            "label {label:?}"
        );
    }
    // A block cut off before its END line is still redacted, to the end of the text.
    let cut = format!("-----BEGIN PRIVATE KEY-----\n{}", alnum(64));
    assert_eq!(
        redact(&format!("start {cut}")),
        "start [REDACTED:private_key]"
    );
    // Public keys and certificates are not secrets.
    let public = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----";
    assert_eq!(redact(public), public);
}

#[test]
fn passwords_in_urls() {
    assert_eq!(
        redact("DATABASE_URL=postgres://app:s3cr3t!@db.internal:5432/main"),
        "DATABASE_URL=postgres://app:[REDACTED:url_password]@db.internal:5432/main"
    );
    assert_eq!(
        redact("redis://:hunter2@cache:6379/0"),
        "redis://:[REDACTED:url_password]@cache:6379/0"
    );
    assert_eq!(
        redact("mongodb+srv://admin:pa%40ss@cluster0.example.net/db"),
        "mongodb+srv://admin:[REDACTED:url_password]@cluster0.example.net/db"
    );
    // Ports and user-only URLs are not passwords.
    assert_eq!(
        redact("http://example.com:8080/path"),
        "http://example.com:8080/path"
    );
    assert_eq!(
        redact("ssh://git@github.com/org/repo"),
        "ssh://git@github.com/org/repo"
    );
}

#[test]
fn passwords_in_connection_strings() {
    assert_eq!(
        redact("Server=tcp:db,1433;User Id=app;Password=Xy9!long;Encrypt=true;"),
        "Server=tcp:db,1433;User Id=app;Password=[REDACTED:connection_string_password];Encrypt=true;"
    );
    assert_eq!(
        redact("Data Source=x;pwd=abc123"),
        "Data Source=x;pwd=[REDACTED:connection_string_password]"
    );
    assert_eq!(
        redact("jdbc:mysql://db/app?user=u&password=pw42&ssl=true"),
        "jdbc:mysql://db/app?user=u&password=[REDACTED:connection_string_password]&ssl=true"
    );
}

#[test]
fn host_patterns_replace_the_secret_group_or_the_whole_match() {
    let r = Redactor::new()
        .with_pattern("employee_id", regex::Regex::new(r"\bEMP-\d{6}\b").unwrap())
        .try_with_pattern("session", r"session=(?P<secret>[0-9a-f]{16})")
        .unwrap();
    assert_eq!(
        r.redact_str("EMP-123456 logged in with session=0123456789abcdef ok"),
        "[REDACTED:employee_id] logged in with session=[REDACTED:session] ok"
    );
    assert!(r.kinds().contains(&"employee_id"));
    let err = Redactor::new()
        .try_with_pattern("broken", "(unclosed")
        .unwrap_err();
    assert!(matches!(err, RedactError::InvalidPattern { ref kind, .. } if kind == "broken"));
    assert!(err.to_string().contains("\"broken\""));
}

#[test]
fn empty_redactor_changes_nothing() {
    let key = format!("sk-{}", alnum(48));
    let mut v = json!({"password": "x", "k": key.clone()});
    assert_eq!(Redactor::empty().redact_value(&mut v), 0);
    assert_eq!(v["k"], key);
}

#[test]
fn values_are_walked_and_counted() {
    let gh = format!("ghp_{}", alnum(36));
    let aws = format!("AKIA{}", "ABCDEFGHIJKLMNOP");
    let mut v = json!({
        "name": "deploy",
        "password": "correct horse battery staple",
        "env": {"TOKEN": gh.clone(), "list": [format!("a {aws} b {gh}"), 7, null, true]},
        "apiKey": "k-123",
        "token_count": 12,
        "note": "",
    });
    let n = Redactor::new().redact_value(&mut v);
    assert_eq!(
        n, 5,
        "password field, TOKEN, aws id, second gh token, apiKey field: {v}"
    );
    assert_eq!(v["password"], "[REDACTED:secret_field]");
    assert_eq!(v["apiKey"], "[REDACTED:secret_field]");
    // `TOKEN` names a secret field now, so its whole value is replaced (kind secret_field).
    assert_eq!(v["env"]["TOKEN"], "[REDACTED:secret_field]");
    assert_eq!(
        v["env"]["list"][0],
        "a [REDACTED:aws_access_key_id] b [REDACTED:github_token]"
    );
    assert_eq!(v["token_count"], 12);
    assert_eq!(v["name"], "deploy");
    assert_eq!(v["note"], "");
    // Redacting again finds nothing more.
    assert_eq!(Redactor::new().redact_value(&mut v), 0);
}

#[test]
fn envelopes_are_redacted_in_data_message_and_note() {
    let key = format!("sk-ant-{}", alnum(40));
    let mut env = Envelope::error(
        Status::Failed,
        "UPSTREAM",
        format!("upstream rejected {key}"),
    );
    env.data = Some(json!({"echo": key.clone()}));
    env.note = Some(format!("note {key}"));
    assert_eq!(Redactor::new().redact_envelope(&mut env), 3);
    assert!(!env.to_json().contains(&key));
    assert_eq!(env.code.as_deref(), Some("UPSTREAM"));
}

#[test]
fn ordinary_text_is_left_alone() {
    let texts = [
        "task-manager",
        "skip",
        "sk-8",
        "sk-learn-compatible-estimators-and-pipelines",
        "risk-assessment-for-the-quarterly-report-2026",
        "ask-anthropic-about-it-please-today",
        "desk_live_stream_of_the_conference",
        "The AKIA prefix marks AWS keys.",
        "Passwords must be 12 characters long.",
        "the password field is required",
        "See https://docs.example.com/guide#section-2 and http://localhost:3000/api",
        "email: ann@example.com, user@host:22",
        "ghp_short",
        "xoxb-",
        "AIzaShort",
        "Bearer",
        "a moderately long sentence with words like bearer, token, key and secret in it.",
        "cargo test -p toolsmith-core --test it runtime_redact::",
        "Σ café — naïve façade ✓",
    ];
    let r = Redactor::new();
    for t in texts {
        assert_eq!(r.redact_str(t), t, "false positive on {t:?}");
        assert!(matches!(r.redact_str(t), std::borrow::Cow::Borrowed(_)));
    }
    let mut v =
        json!({"task": "task-manager", "skip": true, "secretary": "ann", "passwordHint": "pet"});
    let before = v.clone();
    assert_eq!(r.redact_value(&mut v), 0);
    assert_eq!(v, before);
}
