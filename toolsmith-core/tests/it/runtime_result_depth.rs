//! A result nested deeper than JSON readers accept becomes a `failed` envelope that every client
//! can read. Found by the fuzz target: an echo tool given arguments 127 levels deep (accepted:
//! the argument limit is 128) answered with an envelope serde_json refused to parse.

use crate::common;

use common::{echo_tool, read_only, rt, spec};
use serde_json::{json, Value};
use toolsmith_core::{Status, Toolbox};

fn nested(levels: usize) -> Value {
    let mut v = Value::from(1);
    for _ in 0..levels {
        v = Value::Array(vec![v]);
    }
    v
}

fn toolbox() -> Toolbox {
    let schema = json!({"type": "object", "properties": {"query": {}}});
    Toolbox::builder()
        .tool(echo_tool(spec(
            "echo_value",
            "Echoes its arguments. Returns them unchanged.",
            schema,
            read_only(),
        )))
        .build()
        .unwrap()
}

#[test]
fn a_result_too_deep_for_json_readers_is_failed_and_readable() {
    let tb = toolbox();
    for (levels, text) in [(126, true), (126, false), (101, false)] {
        let deep = nested(levels);
        let env = if text {
            rt().block_on(tb.call("echo_value", format!("{{\"query\": {deep}}}")))
        } else {
            rt().block_on(tb.call("echo_value", json!({ "query": deep })))
        };
        assert_eq!(env.status, Status::Failed, "{levels} levels");
        assert_eq!(env.code.as_deref(), Some("OUTPUT_NOT_ENCODABLE"));
        let message = env.message.as_deref().unwrap();
        assert!(message.contains("deeper than 100 levels"), "{message}");
        let parsed: Value = serde_json::from_str(&env.to_json()).expect("a readable envelope");
        assert_eq!(parsed["status"], "failed");
    }
}

#[test]
fn a_result_within_the_depth_limit_is_answered_whole() {
    let tb = toolbox();
    // The result is `{"query": <98 levels>}`: 99 levels, within the limit of 100.
    let env = rt().block_on(tb.call("echo_value", json!({ "query": nested(98) })));
    assert_eq!(env.status, Status::Ok);
    let parsed: Value = serde_json::from_str(&env.to_json()).expect("a readable envelope");
    assert_eq!(parsed["data"]["query"], nested(98));
    // One level more is over it.
    let env = rt().block_on(tb.call("echo_value", json!({ "query": nested(100) })));
    assert_eq!(env.code.as_deref(), Some("OUTPUT_NOT_ENCODABLE"));
}
