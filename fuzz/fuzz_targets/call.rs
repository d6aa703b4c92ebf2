//! Fuzzes `Toolbox::call` with arbitrary bytes, deeply nested JSON, huge strings, wrong types and
//! unknown tools: no panic escapes, every output is a valid envelope with a known status.
//!
//! The first byte picks the shape of the input, the second the tool; the rest is the payload.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::sync::OnceLock;
use toolsmith::{model, tool, Effects, Status, Tool, ToolError, ToolSpec, Toolbox};

/// A size.
#[model]
#[derive(Debug)]
pub enum Size {
    /// Small.
    Small,
    /// Large.
    Large,
}

/// Filters for a search.
#[model]
pub struct Filters {
    /// Lowest price in NOK, e.g. 100.
    #[schemars(range(min = 0))]
    pub min_price: Option<u32>,
    /// Sizes to include.
    pub sizes: Vec<Size>,
}

/// Finds products. Returns the matching products.
#[tool(read_only)]
fn find_products(
    /// Words to look for, e.g. "tent".
    #[arg(min_length = 1, max_length = 100, pattern = "^[a-z ]+$")]
    query: String,
    /// Most results, 1 to 50.
    #[arg(minimum = 1, maximum = 50)]
    limit: Option<u8>,
    /// Narrower results.
    filters: Option<Filters>,
    /// The size to prefer.
    size: Option<Size>,
) -> Result<Vec<String>, ToolError> {
    Ok(vec![format!("{query} {limit:?} {}", filters.is_some()), format!("{size:?}")])
}

/// Adds two numbers. Returns the sum.
#[tool(read_only)]
fn add_numbers(
    /// The first number.
    a: f64,
    /// The second number, a whole number from -1000000 to 1000000.
    #[arg(minimum = -1000000, maximum = 1000000)]
    b: i64,
) -> f64 {
    a + b as f64
}

fn hand_written() -> Tool {
    let spec = ToolSpec::new(
        "hand_written",
        "A tool with a hand-written schema. Returns its arguments.",
        json!({
            "type": "object",
            "properties": {
                "v": {"oneOf": [
                    {"type": "object", "minProperties": 1, "patternProperties": {"^x": {"type": "integer"}}},
                    {"type": "object", "maxProperties": 1, "not": {"required": ["y"]}}
                ]},
                "host": {"type": "string", "format": "hostname"},
                "uri": {"type": "string", "format": "uri"},
                "n": {"type": "number", "multipleOf": 0.5},
                "tree": {"$ref": "#/$defs/Tree%3Cu8%3E"}
            },
            "$defs": {"Tree<u8>": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree%3Cu8%3E"}, "uniqueItems": true}}}}
        }),
    )
    .with_effects(Effects::none().with_read_only(true))
    .with_version("1.0.0");
    Tool::from_fn(spec, |_, args| Box::pin(async move { Ok(args) }))
}

fn toolbox() -> &'static Toolbox {
    static TB: OnceLock<Toolbox> = OnceLock::new();
    TB.get_or_init(|| {
        Toolbox::builder()
            .tool(find_products::tool())
            .tool(add_numbers::tool())
            .tool(hand_written())
            // The default argument limit (4 MiB): redaction of a long returned string is linear
            // and runs in the regex crate's DFA (TESTING.md), so inputs up to the limit are
            // explored whole and larger ones reach the size check.
            .build()
            .expect("the fuzz toolbox builds")
    })
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    })
}

const TOOLS: &[&str] = &["find_products", "add_numbers", "hand_written", "no_such_tool", ""];
const PARAMS: &[&str] = &["query", "limit", "filters", "size", "a", "b", "v", "host", "uri", "n", "tree"];

/// A size from the payload's first bytes, spread over powers of two below `2^bits`, so most
/// inputs stay small and fast and some are huge.
fn log_scale(rest: &[u8], bits: u32) -> usize {
    let exp = u32::from(rest.first().copied().unwrap_or(0)) % (bits + 1);
    let low = rest.iter().skip(1).take(3).fold(0usize, |a, b| a * 256 + usize::from(*b));
    if exp == 0 {
        return 0;
    }
    (1usize << (exp - 1)) + low % (1usize << (exp - 1))
}

fn check(env: &toolsmith::Envelope) {
    let text = env.to_json();
    let parsed: Value = serde_json::from_str(&text).expect("the envelope is JSON");
    let status = parsed["status"].as_str().expect("the envelope has a status");
    assert!(
        [
            "ok", "empty", "invalid_input", "needs_input", "refused", "denied",
            "cancelled_by_user", "temporary_failure", "failed", "timeout"
        ]
        .contains(&status),
        "unknown status {status}"
    );
    if !matches!(env.status, Status::Ok | Status::Empty) {
        assert!(env.code.is_some() && env.message.as_deref().is_some_and(|m| !m.is_empty()));
    }
}

fuzz_target!(|data: &[u8]| {
    let (mode, tool, rest) = match data {
        [m, t, rest @ ..] => (*m, *t, rest),
        _ => (0, 0, data),
    };
    let text = String::from_utf8_lossy(rest);
    let name: String = match TOOLS.get(usize::from(tool) % (TOOLS.len() + 1)) {
        Some(n) => (*n).to_string(),
        // An arbitrary name.
        None => text.chars().take(40).collect(),
    };
    let tb = toolbox();
    let rt = runtime();
    let env = match mode % 6 {
        // Arbitrary bytes as the JSON text of the arguments.
        0 => rt.block_on(tb.call(&name, text.as_ref())),
        // Deeply nested JSON, as text and as a parsed value.
        1 => {
            let depth = log_scale(rest, 18); // up to 262,143 levels
            let (open, close) = if tool % 2 == 0 { ("[", "]") } else { ("{\"a\":", "}") };
            let deep = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            let env = rt.block_on(tb.call(&name, deep.as_str()));
            check(&env);
            // Built by moving, not with `json!` (which would copy the value at every level).
            let mut v = Value::from(1);
            for _ in 0..depth.min(5_000) {
                v = Value::Array(vec![v]);
            }
            let mut args = serde_json::Map::new();
            args.insert("query".into(), v);
            rt.block_on(tb.call(&name, Value::Object(args)))
        }
        // Huge strings, up to 4 MiB.
        2 => {
            let n = log_scale(rest, 22); // up to 4 MiB
            let param = PARAMS[usize::from(tool) % PARAMS.len()];
            let fill = text.chars().nth(3).unwrap_or('x');
            let big: String = std::iter::repeat(fill).take(n).collect();
            let env = rt.block_on(tb.call(&name, json!({ param: big })));
            check(&env);
            rt.block_on(tb.call(&name, json!({ param: big }).to_string()))
        }
        // Wrong types: the payload's JSON (or the payload as a string) as every parameter.
        3 => {
            let value: Value = serde_json::from_slice(rest).unwrap_or_else(|_| Value::String(text.to_string()));
            let mut last = None;
            for param in PARAMS {
                let env = rt.block_on(tb.call(&name, json!({ *param: value.clone() })));
                check(&env);
                last = Some(env);
            }
            last.expect("at least one parameter")
        }
        // The payload parsed by the transport, sent as a value.
        4 => match serde_json::from_slice::<Value>(rest) {
            Ok(v) => rt.block_on(tb.call(&name, v)),
            Err(_) => rt.block_on(tb.call(&name, Value::Null)),
        },
        // Known parameters with fuzzed values from the payload split at NUL bytes.
        _ => {
            let mut args = serde_json::Map::new();
            for (i, part) in rest.split(|b| *b == 0).enumerate().take(PARAMS.len()) {
                let v = serde_json::from_slice(part)
                    .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(part).into_owned()));
                args.insert(PARAMS[(i + usize::from(tool)) % PARAMS.len()].to_string(), v);
            }
            rt.block_on(tb.call(&name, Value::Object(args)))
        }
    };
    check(&env);
});
