//! Properties checked on generated inputs (proptest, a bounded number of cases in every
//! `cargo test`): a call never panics and always answers with a valid envelope of a known
//! status; the compiled validator agrees with the `jsonschema` crate; oversized arguments are
//! refused before parsing, and only those; every built-in redaction pattern redacts its secret
//! whatever text surrounds it.
//!
//! Failures are saved to `properties.proptest-regressions` beside this file, and the seeds
//! committed there are replayed before any new case (checked by
//! `the_committed_regression_seeds_are_the_ones_replayed`).

use crate::common;

use common::rt;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{json, Map, Value};
use std::sync::OnceLock;
use toolsmith_core::validate::Validator;
use toolsmith_core::{Redactor, Status, Tool, ToolError, ToolSpec, Toolbox};

const STATUSES: &[&str] = &[
    "ok",
    "empty",
    "invalid_input",
    "needs_input",
    "refused",
    "denied",
    "cancelled_by_user",
    "temporary_failure",
    "failed",
    "timeout",
];

fn spec(name: &str, input_schema: Value) -> ToolSpec {
    common::spec(
        name,
        "A tool for property tests. Returns its arguments.",
        input_schema,
        common::read_only(),
    )
}

/// The input schemas of the tools under test: every keyword family the validator compiles.
fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        (
            "echo_text",
            json!({"type": "object", "properties": {
                "text": {"type": "string", "minLength": 1, "maxLength": 20, "description": "Text."},
                "repeat": {"type": "integer", "minimum": 1, "maximum": 3, "description": "Times."}
            }, "required": ["text"], "additionalProperties": false}),
        ),
        (
            "add_numbers",
            json!({"type": "object", "properties": {
                "a": {"type": "number", "multipleOf": 0.5},
                "b": {"type": "number", "exclusiveMinimum": -10, "exclusiveMaximum": 10}
            }, "required": ["a", "b"], "additionalProperties": false}),
        ),
        (
            "pick_size",
            json!({"type": "object", "properties": {
                "size": {"oneOf": [{"const": "small", "title": "Small"}, {"const": "large", "title": "Large"}]},
                "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "maxItems": 4, "uniqueItems": true},
                "shape": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"w": {"type": "integer"}}, "required": ["w"]}]}
            }, "required": ["size"], "additionalProperties": false}),
        ),
        (
            "tree",
            json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}},
                "$defs": {"Node": {"type": "object", "properties": {
                    "v": {"type": ["integer", "null"]},
                    "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                }, "additionalProperties": false}}}),
        ),
        (
            "tagged",
            json!({"type": "object", "properties": {"cmd": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "move"}, "x": {"type": "integer"}}, "required": ["kind", "x"]},
                {"type": "object", "properties": {"kind": {"const": "say"}, "s": {"type": "string"}}, "required": ["kind", "s"]}
            ]}, "extra": {"type": "object", "additionalProperties": {"type": "boolean"}}}}),
        ),
    ]
}

fn toolbox() -> &'static Toolbox {
    static TB: OnceLock<Toolbox> = OnceLock::new();
    TB.get_or_init(|| {
        let mut b = Toolbox::builder().max_argument_bytes(2048);
        for (name, schema) in schemas() {
            b = b.tool(Tool::from_fn(spec(name, schema), |_, args| {
                Box::pin(async move { Ok(args) })
            }));
        }
        // A tool that fails in every way a tool can, chosen by its argument.
        let failing = spec(
            "misbehave",
            json!({"type": "object", "properties": {"how": {"type": "integer"}}}),
        );
        b = b.tool(Tool::from_fn(failing, |_, args| {
            Box::pin(async move {
                match args["how"].as_i64().unwrap_or(0).rem_euclid(4) {
                    0 => panic!("a tool panics"),
                    1 => Err(ToolError::failed("BROKEN", "The tool is broken.")),
                    2 => Err(ToolError::refused("NO", "Not today.")),
                    _ => Ok(json!({"deep": [[[[{"x": "y"}]]]]})),
                }
            })
        }));
        b.build().expect("the property-test toolbox builds")
    })
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        prop_oneof![
            Just(1e308),
            Just(-0.0),
            Just(0.5),
            Just(3.0),
            Just(9_007_199_254_740_993.0)
        ]
        .prop_map(Value::from),
        "[a-z]{0,6}".prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        prop_oneof![Just("small"), Just("large"), Just("move"), Just("say")].prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("text".to_string()),
                        Just("repeat".to_string()),
                        Just("a".to_string()),
                        Just("b".to_string()),
                        Just("size".to_string()),
                        Just("tags".to_string()),
                        Just("shape".to_string()),
                        Just("node".to_string()),
                        Just("kids".to_string()),
                        Just("v".to_string()),
                        Just("cmd".to_string()),
                        Just("kind".to_string()),
                        Just("x".to_string()),
                        Just("how".to_string()),
                        "[a-z]{1,4}",
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn arb_tool() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("echo_text".to_string()),
        Just("add_numbers".to_string()),
        Just("pick_size".to_string()),
        Just("tree".to_string()),
        Just("tagged".to_string()),
        Just("misbehave".to_string()),
        Just("no_such_tool".to_string()),
        any::<String>(),
    ]
}

/// The envelope as the model reads it: valid JSON with a known status, and a message when the
/// status is not a success.
fn check_envelope(env: &toolsmith_core::Envelope) -> Result<(), TestCaseError> {
    let text = env.to_json();
    let parsed: Value = serde_json::from_str(&text)
        .map_err(|e| TestCaseError::fail(format!("not JSON: {e}: {text}")))?;
    let status = parsed["status"].as_str().unwrap_or_default();
    prop_assert!(STATUSES.contains(&status), "unknown status: {text}");
    if !matches!(env.status, Status::Ok | Status::Empty) {
        prop_assert!(
            env.message.as_deref().is_some_and(|m| !m.is_empty()),
            "no message: {text}"
        );
        prop_assert!(env.code.is_some(), "no code: {text}");
    }
    prop_assert!(env.operation_id.is_some());
    Ok(())
}

/// A call with `args` as a value answers with a valid envelope, and what a well-behaved tool ran
/// with (the arguments after the toolbox's normalization: null as {}, nulls for optional
/// parameters left out) is valid for its schema.
fn call_with_value(name: &str, args: Value) -> Result<(), TestCaseError> {
    let env = rt().block_on(toolbox().call(name, args));
    check_envelope(&env)?;
    if env.status == Status::Ok && name != "misbehave" {
        let schema = schemas().into_iter().find(|(n, _)| *n == name).unwrap().1;
        let v = Validator::new(&schema).unwrap();
        prop_assert!(
            v.is_valid(env.data.as_ref().unwrap()),
            "{} ran with invalid {}",
            name,
            env.to_json()
        );
    }
    Ok(())
}

/// The case `properties.proptest-regressions` records (null arguments, shrunk to `tree`), for
/// every tool, whatever the strategies generate from the committed seed today.
#[test]
fn null_arguments_answer_with_a_valid_envelope_for_every_tool() {
    for name in [
        "echo_text",
        "add_numbers",
        "pick_size",
        "tree",
        "tagged",
        "misbehave",
    ] {
        if let Err(e) = call_with_value(name, Value::Null) {
            panic!("{name}: {e}");
        }
    }
}

/// The configuration of every property here. A failure's seed is appended to
/// `properties.proptest-regressions` beside this file (proptest's `WithSource` naming: the
/// source file's name with that extension), and every seed in it is replayed first.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 400,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

/// The seeds of a committed regression file, as proptest writes them (`cc <hex>`).
fn committed_seeds(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// The properties' configuration reads exactly the committed regression file: every seed in
/// it, none from anywhere else. A renamed file, a moved test or persistence switched off fails.
#[test]
fn the_committed_regression_seeds_are_the_ones_replayed() {
    let committed = committed_seeds(include_str!("properties.proptest-regressions"));
    assert!(!committed.is_empty());
    let persistence = config()
        .failure_persistence
        .expect("failure persistence is on (is PROPTEST_DISABLE_FAILURE_PERSISTENCE set?)");
    // What the runner of every `proptest!` test below loads: its source file is `file!()`.
    let loaded: Vec<String> = persistence
        .load_persisted_failures2(Some(file!()))
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(loaded, committed);
}

/// One secret per built-in redaction pattern, in the order of `Redactor::kinds()`: (kind, text,
/// the part of the text that is replaced). Written by hand: what each pattern must catch.
const SECRETS: &[(&str, &str, &str)] = &[
    (
        "private_key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq3\n-----END RSA PRIVATE KEY-----",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq3\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "anthropic_api_key",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
    ),
    (
        "openai_api_key",
        "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
        "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    ),
    (
        "stripe_key",
        "sk_live_0123456789abcdefABCDEF",
        "sk_live_0123456789abcdefABCDEF",
    ),
    (
        "aws_access_key_id",
        "AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLE",
    ),
    (
        "aws_secret_access_key",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "github_token",
        "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
        "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
    ),
    (
        "slack_token",
        "xoxb-1234567890-abcdefghij",
        "xoxb-1234567890-abcdefghij",
    ),
    (
        "slack_webhook",
        "https://hooks.slack.com/services/T0AB12CD3/B0EF45GH6/abcdefghij0123456789ABCD",
        "T0AB12CD3/B0EF45GH6/abcdefghij0123456789ABCD",
    ),
    (
        "gitlab_token",
        "glpat-abcdefghij0123456789",
        "glpat-abcdefghij0123456789",
    ),
    (
        "npm_token",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    ),
    (
        "sendgrid_api_key",
        "SG.abcdefghij0123456789AB.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
        "SG.abcdefghij0123456789AB.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
    ),
    (
        "google_api_key",
        "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",
        "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",
    ),
    (
        "bearer_token",
        "Authorization: Bearer abc123.def456",
        "abc123.def456",
    ),
    ("bearer_token", "token Bearer 9f8e7d6c5b4a", "9f8e7d6c5b4a"),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    (
        "url_password",
        "postgres://admin:hunter2@db.example.com/app",
        "hunter2",
    ),
    (
        "connection_string_password",
        "Server=db;User Id=sa;Password=Hunter2Pass;",
        "Hunter2Pass",
    ),
];

/// Text around a secret: words, digits, punctuation that starts no secret and non-ASCII text
/// (which moves the pattern set to its Unicode word boundaries), and a separator that is not a
/// word character next to the secret.
fn surrounding() -> impl Strategy<Value = String> {
    (
        "[a-zA-Z0-9 ,;!?()'\"\n\téüß漢字😀\u{301}]{0,40}",
        prop::sample::select(vec![" ", "\n", "\t", " (", "\"", "'", ", ", " é "]),
    )
        .prop_map(|(text, separator)| format!("{text}{separator}"))
}

fn reversed(s: &str) -> String {
    s.chars().rev().collect()
}

#[test]
fn every_builtin_redaction_pattern_has_a_secret_here() {
    let kinds: Vec<&str> = SECRETS.iter().map(|(kind, _, _)| *kind).collect();
    assert_eq!(
        Redactor::new().kinds(),
        kinds,
        "a built-in pattern was added, removed or moved: give it a secret in SECRETS"
    );
    for (kind, text, secret) in SECRETS {
        assert!(text.contains(secret), "{kind}");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_call_with_any_value_answers_with_a_valid_envelope(name in arb_tool(), args in arb_json()) {
        call_with_value(&name, args)?;
    }

    #[test]
    fn a_call_with_any_text_answers_with_a_valid_envelope(name in arb_tool(), text in any::<String>()) {
        let env = rt().block_on(toolbox().call(&name, text));
        check_envelope(&env)?;
    }

    #[test]
    fn a_call_with_json_text_matches_the_same_call_with_the_value(name in arb_tool(), args in arb_json()) {
        prop_assume!(name != "misbehave");
        let rt = rt();
        let a = rt.block_on(toolbox().call(&name, args.clone()));
        let b = rt.block_on(toolbox().call(&name, args.to_string()));
        prop_assert_eq!(a.status, b.status);
        prop_assert_eq!(a.code, b.code);
        prop_assert_eq!(a.data, b.data);
    }

    #[test]
    fn the_validator_agrees_with_jsonschema(index in 0usize..5, value in arb_json()) {
        let (_, schema) = &schemas()[index];
        let ours = Validator::new(schema).unwrap();
        let reference = jsonschema::options().should_validate_formats(true).build(schema).unwrap();
        for instance in [value.clone(), json!({ "text": value.clone() }), json!({ "node": value.clone() }), json!({ "cmd": value })] {
            prop_assert_eq!(
                ours.is_valid(&instance),
                reference.is_valid(&instance),
                "schema {} instance {}", schema, instance
            );
        }
    }

    /// Every built-in pattern, in every case: only the text around its secret varies, and the
    /// result is exactly that text with the secret replaced by `[REDACTED:<kind>]`.
    #[test]
    fn every_builtin_pattern_redacts_its_secret_in_any_surrounding_text(
        before in surrounding(),
        after in surrounding().prop_map(|s| reversed(&s)),
    ) {
        static REDACTOR: OnceLock<Redactor> = OnceLock::new();
        let redactor = REDACTOR.get_or_init(Redactor::new);
        for (i, (kind, text, secret)) in SECRETS.iter().enumerate() {
            let input = format!("{before}{text}{after}");
            let expected = format!(
                "{before}{}{after}",
                text.replace(secret, &format!("[REDACTED:{kind}]"))
            );
            let (redacted, count) = redactor.redact_str_counted(&input);
            prop_assert_eq!(
                redacted.as_ref(),
                expected.as_str(),
                "built-in pattern {} ({}) in {:?}",
                i,
                kind,
                input
            );
            prop_assert_eq!(count, 1, "built-in pattern {} ({})", i, kind);
        }
    }

    #[test]
    fn only_oversized_arguments_are_refused_before_parsing(len in 0usize..4096, fill in "[ -~]") {
        let text: String = fill.repeat(len);
        let env = rt().block_on(toolbox().call("echo_text", text.as_str()));
        let too_large = env.code.as_deref() == Some("ARGUMENTS_TOO_LARGE");
        prop_assert_eq!(too_large, text.len() > 2048, "{} bytes: {}", text.len(), env.to_json());
        if too_large {
            prop_assert_eq!(env.status, Status::InvalidInput);
            prop_assert!(env.message.unwrap().contains("2048 bytes"));
        }
    }
}

#[test]
fn parsed_arguments_that_nest_too_deep_or_are_too_large_are_refused() {
    let mut deep = json!(0);
    for _ in 0..200 {
        deep = json!([deep]);
    }
    let env = rt().block_on(toolbox().call("echo_text", json!({ "text": deep })));
    assert_eq!(
        env.code.as_deref(),
        Some("ARGUMENTS_TOO_DEEP"),
        "{}",
        env.to_json()
    );
    assert_eq!(env.status, Status::InvalidInput);
    let big = json!({"text": "x".repeat(5000)});
    let env = rt().block_on(toolbox().call("echo_text", big.clone()));
    assert_eq!(
        env.code.as_deref(),
        Some("ARGUMENTS_TOO_LARGE"),
        "{}",
        env.to_json()
    );
    // The same as text: refused before parsing, with its exact size.
    let env = rt().block_on(toolbox().call("echo_text", big.to_string()));
    assert_eq!(env.code.as_deref(), Some("ARGUMENTS_TOO_LARGE"));
    let size = big.to_string().len();
    assert!(env.message.unwrap().contains(&format!("are {size} bytes")));
    // The default limit admits the largest text parameter the examples declare.
    let tb = Toolbox::builder()
        .tool(Tool::from_fn(
            spec(
                "echo_text",
                json!({"type": "object", "properties": {"text": {"type": "string"}}}),
            ),
            |_, args| {
                Box::pin(async move { Ok(json!({"bytes": args["text"].as_str().map(str::len)})) })
            },
        ))
        .build()
        .unwrap();
    let env = rt().block_on(tb.call("echo_text", json!({"text": "é".repeat(200_000)})));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    // Deep JSON text is refused by the parser with a clear message, and no panic.
    let text = "[".repeat(100_000);
    let env = rt().block_on(tb.call("echo_text", text.as_str()));
    assert_eq!(env.status, Status::InvalidInput, "{}", env.to_json());
    assert_eq!(
        env.code.as_deref(),
        Some("INVALID_INPUT"),
        "{}",
        env.to_json()
    );
}

/// The size limit counts arguments given as a value as the bytes of their JSON text: at the
/// limit's edge (one byte under, at, one over the text's length) a value, a borrowed value and
/// the same arguments as text are refused or run alike, for numbers of every kind, strings with
/// escapes and nesting. And numbers are not over-counted: about 600 kB of JSON text of small
/// numbers runs under the default limit of 4 MiB as a value, as it does as text.
#[test]
fn arguments_as_a_value_and_as_text_meet_the_size_limit_alike() {
    let shapes = [
        json!({"n": 7, "big": u64::MAX, "neg": i64::MIN, "f": 0.1, "g": -2.5e-300, "h": 1.0}),
        json!({"s": "quote \" backslash \\ tab \t nl \n \u{1} \u{1f} \u{7f} é € 😀"}),
        json!({"k\"\\\u{2}": {"a": [1, [2, [3, {"b": [true, false, null, "x\ny"]}]]]}, "": []}),
        json!({"list": (0..500).map(|i| json!(i * 31 - 7000)).collect::<Vec<_>>()}),
    ];
    let echo = |limit: usize| {
        Toolbox::builder()
            .max_argument_bytes(limit)
            .tool(Tool::from_fn(
                spec("take_any", json!({"type": "object"})),
                |_, _| Box::pin(async move { Ok(json!("taken")) }),
            ))
            .build()
            .unwrap()
    };
    let refused =
        |env: &toolsmith_core::Envelope| env.code.as_deref() == Some("ARGUMENTS_TOO_LARGE");
    for args in &shapes {
        let text = args.to_string();
        let len = text.len();
        for limit in [len - 1, len, len + 1] {
            let tb = echo(limit);
            let as_value = rt().block_on(tb.call("take_any", args.clone()));
            let as_ref = rt().block_on(tb.call("take_any", args));
            let as_text = rt().block_on(tb.call("take_any", text.as_str()));
            for env in [&as_value, &as_ref, &as_text] {
                assert_eq!(
                    refused(env),
                    len > limit,
                    "{text} at {limit}: {}",
                    env.to_json()
                );
                if !refused(env) {
                    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
                }
            }
        }
    }

    let many = json!({"list": vec![json!(5); 300_000]});
    let tb = Toolbox::builder()
        .tool(Tool::from_fn(
            spec("take_any", json!({"type": "object"})),
            |_, _| Box::pin(async move { Ok(json!("taken")) }),
        ))
        .build()
        .unwrap();
    assert!(many.to_string().len() < 700_000);
    let env = rt().block_on(tb.call("take_any", many.clone()));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let env = rt().block_on(tb.call("take_any", many.to_string()));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
}
