//! Random JSON for the crate's property tests (the parser's and the lint's walks).

use proptest::prelude::*;
use serde_json::Value;

/// Any JSON value: every scalar kind, strings with escapes, control characters, DEL and
/// non-ASCII text, plain words, keys with the characters JSON pointers escape, nesting.
pub(crate) fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "[ -~\\u{7f}-\\u{10FFFF}\"\\\\\n\t\u{0}\u{1f}\u{8}]{0,20}".prop_map(Value::String),
        "[a-z ]{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec(("[a-z~/é\\\"\u{1}]{0,4}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}
