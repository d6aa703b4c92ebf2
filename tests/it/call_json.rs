//! `Toolbox::call_json` answers exactly what `Toolbox::call` followed by `Envelope::to_json`
//! answers, byte for byte (the operation id, and the record-store reference and cursor of a cut
//! result, aside: they are new on every call), whatever the result holds and whatever the
//! toolbox has configured. `call_json` serializes a typed result straight to text and keeps it
//! as text unless a stage needs the value (redaction with something to mask, a cut to the
//! budget, an idempotency key, after-hooks), so this test drives every one of those paths with
//! results built from random pieces: secrets in values and keys, secret-named fields, PEM blocks
//! in lists, escapes, non-ASCII text, long text, deep nesting.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use toolsmith::{tool, CallOptions, Hooks, Reply, Status, ToolError, Toolbox};

/// Builds a document from its pieces. Returns an object with one field per key (each holding the
/// texts), the texts as a list, and the numbers.
#[tool(read_only)]
fn build_document(
    /// The field names of the object, e.g. ["name"].
    keys: Vec<String>,
    /// The texts, e.g. ["a tent"].
    texts: Vec<String>,
    /// Numbers to include, e.g. [1.5].
    numbers: Vec<f64>,
    /// How many levels to nest the texts in lists, 0 to 140.
    #[arg(maximum = 140)]
    depth: u32,
) -> Value {
    let mut object = Map::new();
    for (i, k) in keys.iter().enumerate() {
        let v = match i % 3 {
            0 => json!(texts),
            1 => json!(texts.first()),
            _ => json!(i),
        };
        object.insert(k.clone(), v);
    }
    let mut nested = json!(texts);
    for _ in 0..depth {
        nested = json!([nested]);
    }
    json!({"object": object, "texts": texts, "numbers": numbers, "nested": nested})
}

/// A product row of the typed result.
#[toolsmith::model]
struct Row {
    /// The row's name.
    name: String,
    /// A free-text note.
    note: String,
    /// A count.
    count: u32,
}

/// Lists rows made from the texts. Returns one row per text, with a note when asked.
#[tool(read_only)]
fn list_rows(
    /// The texts, e.g. ["a tent"].
    texts: Vec<String>,
    /// A note for the model, e.g. "Showing all rows.".
    note: Option<String>,
) -> Reply<Vec<Row>> {
    let rows = texts
        .iter()
        .enumerate()
        .map(|(i, t)| Row {
            name: t.clone(),
            note: format!("row {i}: {t}"),
            count: i as u32,
        })
        .collect();
    match note {
        Some(n) => Reply::new(rows).note(n),
        None => Reply::new(rows),
    }
}

/// Fails or answers nothing, as asked. Returns nothing.
#[tool(read_only)]
fn check_stock(
    /// Whether to fail, e.g. true.
    fail: bool,
    /// The failure's message, e.g. "Out of stock.".
    message: String,
) -> Result<(), ToolError> {
    if fail {
        Err(ToolError::refused("OUT_OF_STOCK", message))
    } else {
        Ok(())
    }
}

/// Pages through rows of the texts. Returns a page of rows; pass the cursor for the next one.
#[tool(read_only)]
fn list_pages(
    /// The texts, e.g. ["a tent"].
    texts: Vec<String>,
    /// The cursor of the next page, from the previous answer.
    cursor: Option<String>,
) -> Vec<String> {
    let _ = cursor;
    texts
}

/// Records a text. Returns the text recorded.
#[tool(writes, idempotent)]
fn record_text(
    /// The request's id, e.g. "r-1".
    request_id: String,
    /// The text to record, e.g. "hello".
    text: String,
) -> String {
    let _ = request_id;
    text
}

fn toolboxes() -> Vec<(&'static str, Toolbox)> {
    let tools = || {
        vec![
            build_document::tool(),
            list_rows::tool(),
            check_stock::tool(),
            list_pages::tool(),
            record_text::tool(),
        ]
    };
    vec![
        (
            "default",
            Toolbox::builder().tools(tools()).build().unwrap(),
        ),
        (
            "small budget",
            Toolbox::builder()
                .tools(tools())
                .output_budget(120)
                .build()
                .unwrap(),
        ),
        (
            "no redaction",
            Toolbox::builder()
                .tools(tools())
                .without_redaction()
                .build()
                .unwrap(),
        ),
        (
            // Sync tools run on the tool threads: their text is written without the
            // redaction scan and judged by the redaction stage instead.
            "offloaded",
            Toolbox::builder()
                .tools(tools())
                .offload_sync_tools()
                .build()
                .unwrap(),
        ),
        (
            // As a release build runs by default: the text a tool writes is passed through
            // without being parsed for the output schema.
            "contract unchecked",
            Toolbox::builder()
                .tools(tools())
                .check_output_contract(false)
                .build()
                .unwrap(),
        ),
        (
            "after-hook",
            Toolbox::builder()
                .tools(tools())
                .hooks(Hooks::new().after(|_, env| {
                    env.note = Some(format!("seen: {}", env.data.is_some()));
                }))
                .build()
                .unwrap(),
        ),
    ]
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// The envelope text with the fields that are new on every call taken out, and the call's
/// `cursor` (for the next page).
fn settled(text: &str) -> (String, Option<String>) {
    let mut v: Value = serde_json::from_str(text).expect("an envelope is JSON");
    let map = v.as_object_mut().expect("an envelope is an object");
    assert!(
        map.remove("operation_id").is_some(),
        "no operation id in {text}"
    );
    map.remove("ref");
    let cursor = map
        .remove("cursor")
        .and_then(|c| c.as_str().map(String::from));
    // The rest in the order written: comparing texts compares field order too; the ids of
    // other operations and records a repeat's answer quotes are new on every call as well.
    (without_ids(&serde_json::to_string(&v).unwrap()), cursor)
}

/// `text` with every operation id (`op_…`) and record reference (`rec_…`) replaced by a
/// placeholder.
fn without_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = ["op_", "rec_"]
        .iter()
        .filter_map(|p| rest.find(p).map(|i| (i, p.len())))
        .min()
    {
        let (i, len) = at;
        out.push_str(&rest[..i + len]);
        rest = &rest[i + len..];
        let id_len = rest
            .find(|c: char| !(c.is_ascii_hexdigit() || c == '_'))
            .unwrap_or(rest.len());
        out.push('…');
        rest = &rest[id_len..];
    }
    out.push_str(rest);
    out
}

/// Calls `tool` both ways and asserts the answers agree; returns the settled text and whether
/// it had a cursor (of each path, for the next page).
fn agree(
    label: &str,
    tb: &Toolbox,
    tool: &str,
    args: &Value,
    options: CallOptions,
) -> (String, Option<(String, String)>) {
    let by_value = block_on(tb.call_with(tool, args.clone(), options.clone())).to_json();
    let by_text = block_on(tb.call_json_with(tool, args.clone(), options.clone()));
    let by_text_from_text =
        block_on(tb.call_json_with(tool, serde_json::to_string(args).unwrap(), options));
    let (a, ca) = settled(&by_value);
    let (b, cb) = settled(&by_text);
    let (c, _) = settled(&by_text_from_text);
    assert_eq!(a, b, "{label}: {tool} {args}");
    assert_eq!(a, c, "{label}: {tool} from text {args}");
    // Where nothing was cut, the texts are equal but for the operation id.
    if ca.is_none() && !by_value.contains("\"ref\":") {
        let id = |t: &str| {
            serde_json::from_str::<Value>(t).unwrap()["operation_id"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(
            by_value.replace(&id(&by_value), &id(&by_text)),
            by_text,
            "{label}: {tool} {args}"
        );
    }
    (a, ca.zip(cb))
}

const PIECES: &[&str] = &[
    "a tent for two",
    "",
    "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB here",
    "Authorization: Bearer abc.def.ghi",
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIIEpAIBAAKCAQEA7",
    "-----END RSA PRIVATE KEY-----",
    "postgres://admin:hunter2@db.internal:5432/app",
    "password",
    "api_key",
    "next_page_token",
    "name",
    "a \"quoted\" word",
    "back\\slash",
    "tab\tand\nnewline",
    "ünïcødé ✓ 漢字",
    "\u{212A}elvin sign and \u{17F} long s",
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "AKIAIOSFODNN7EXAMPLE",
    "a sentence that is not a secret but is rather long for a key, to pass the word limit",
];

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(PIECES).prop_map(String::from),
        1 => "[a-zA-Z0-9 _./:@-]{0,40}",
        1 => Just("x".repeat(300)),
    ]
}

/// The configuration of the properties below. A failure's seed is appended to
/// `call_json.proptest-regressions` beside this file (proptest's `WithSource` naming), and every
/// seed in it is replayed first.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 32,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    }
}

/// The properties' configuration reads exactly the committed regression file: every seed in
/// it, none from anywhere else. A renamed file, a moved test or persistence switched off fails.
#[test]
fn the_committed_regression_seeds_are_the_ones_replayed() {
    let committed: Vec<String> = include_str!("call_json.proptest-regressions")
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(!committed.is_empty());
    let loaded: Vec<String> = config()
        .failure_persistence
        .expect("failure persistence is on (is PROPTEST_DISABLE_FAILURE_PERSISTENCE set?)")
        .load_persisted_failures2(Some(file!()))
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(loaded, committed);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn documents_agree(
        keys in prop::collection::vec(piece(), 0..5),
        texts in prop::collection::vec(piece(), 0..6),
        numbers in prop::collection::vec(prop_oneof![Just(0.1), Just(1.0), Just(-2.5e300), any::<i32>().prop_map(f64::from)], 0..3),
        depth in prop_oneof![3 => 0u32..4, 1 => 95u32..140],
    ) {
        let args = json!({"keys": keys, "texts": texts, "numbers": numbers, "depth": depth});
        for (label, tb) in toolboxes() {
            agree(label, &tb, "build_document", &args, CallOptions::new());
        }
    }

    #[test]
    fn rows_agree(
        texts in prop::collection::vec(piece(), 0..8),
        note in prop::option::of(piece()),
    ) {
        let args = json!({"texts": texts, "note": note});
        for (label, tb) in toolboxes() {
            agree(label, &tb, "list_rows", &args, CallOptions::new());
        }
    }

    #[test]
    fn pages_agree(texts in prop::collection::vec(piece(), 0..30)) {
        let args = json!({"texts": texts});
        for (label, tb) in toolboxes() {
            let (_, cursors) = agree(label, &tb, "list_pages", &args, CallOptions::new());
            // The next page, each path with its own cursor.
            if let Some((by_value, by_text)) = cursors {
                let next = |c: &str| json!({"texts": texts, "cursor": c});
                let a = block_on(tb.call("list_pages", next(&by_value))).to_json();
                let b = block_on(tb.call_json("list_pages", next(&by_text)));
                prop_assert_eq!(settled(&a).0, settled(&b).0, "{}", label);
            }
        }
    }
}

#[test]
fn errors_units_and_refusals_agree() {
    for (label, tb) in toolboxes() {
        for args in [
            json!({"fail": true, "message": "Out of stock: ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}),
            json!({"fail": false, "message": ""}),
            json!({"fail": "yes", "message": ""}),
            json!({}),
        ] {
            agree(label, &tb, "check_stock", &args, CallOptions::new());
        }
        agree(label, &tb, "no_such_tool", &json!({}), CallOptions::new());
        let (text, _) = agree(
            label,
            &tb,
            "build_document",
            &json!({"keys": [], "texts": ["x"], "numbers": [], "depth": 1}),
            CallOptions::new(),
        );
        assert!(text.contains(r#""status":"ok""#), "{text}");
    }
}

#[test]
fn a_result_deeper_than_the_limit_is_refused_both_ways() {
    let (_, tb) = toolboxes().remove(0);
    for depth in [98, 99, 100, 101, 127, 128, 140] {
        let args = json!({"keys": [], "texts": ["x"], "numbers": [], "depth": depth});
        let (text, _) = agree("default", &tb, "build_document", &args, CallOptions::new());
        let deep = text.contains("OUTPUT_NOT_ENCODABLE");
        // `nested` is depth + 1 levels (the texts' own list) inside the result object.
        assert_eq!(deep, depth + 2 > 100, "depth {depth}: {text}");
    }
}

#[test]
fn keyed_repeats_agree() {
    for (label, tb) in toolboxes() {
        for round in 0..2 {
            for (i, text) in [
                "hello",
                "password: hunter2 ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
            ]
            .iter()
            .enumerate()
            {
                // The value path and the text path each with their own key, so each sees a
                // first call and then a repeat.
                let key = |path: &str| format!("{label}-{path}-{i}");
                let args = json!({"request_id": "r", "text": text});
                let a = block_on(tb.call_with(
                    "record_text",
                    args.clone(),
                    CallOptions::new().idempotency_key(key("value")),
                ))
                .to_json();
                let b = block_on(tb.call_json_with(
                    "record_text",
                    args,
                    CallOptions::new().idempotency_key(key("text")),
                ));
                assert_eq!(settled(&a).0, settled(&b).0, "{label} round {round}");
            }
        }
    }
}

#[test]
fn redaction_still_masks_what_the_text_path_keeps_as_text() {
    for (name, tb) in toolboxes() {
        if name == "no redaction" {
            continue;
        }
        let args =
            json!({"texts": ["token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"], "note": null});
        let text = block_on(tb.call_json("list_rows", args));
        assert!(!text.contains("ghp_0123"), "{name}: {text}");
        assert!(text.contains("[REDACTED:github_token]"), "{name}: {text}");
    }
    let (_, tb) = toolboxes().remove(0);
    let args = json!({"texts": ["token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"], "note": null});
    let text = block_on(tb.call_json("list_rows", args));
    assert!(!text.contains("ghp_0123"), "{text}");
    assert!(text.contains("[REDACTED:github_token]"), "{text}");
    let env: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(env["status"], Status::Ok.as_str());
}
