//! The five validator defects a conformance run found, each pinned by the input that showed it,
//! through the validator and through a toolbox (where a defect refused the whole tool, or killed
//! the process on the first call).

use crate::common;

use common::rt;
use serde_json::{json, Value};
use toolsmith_core::validate::Validator;
use toolsmith_core::{Status, Tool, ToolSpec, Toolbox};

fn spec(name: &str, input_schema: Value) -> ToolSpec {
    common::spec(
        name,
        "Echoes its arguments. Returns them unchanged.",
        input_schema,
        common::read_only(),
    )
}

fn echo(name: &str, input_schema: Value) -> Tool {
    common::echo_tool(spec(name, input_schema))
}

#[test]
fn percent_encoded_reference_pointers_resolve() {
    // schemars percent-encodes definition names outside a small set; a recursive user type
    // whose name needs it must still compile.
    let schema = json!({
        "type": "object",
        "properties": {
            "tree": {"$ref": "#/$defs/Tree%3Cu8%3E", "description": "The tree."},
            "quoted": {"$ref": "#/$defs/foo%22bar"},
            "percent": {"$ref": "#/$defs/percent%25field"}
        },
        "$defs": {
            "Tree<u8>": {
                "type": "object",
                "properties": {
                    "leaf": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Tree%3Cu8%3E"}}
                },
                "additionalProperties": false
            },
            "foo\"bar": {"type": "number"},
            "percent%field": {"type": "integer"}
        },
        "additionalProperties": false
    });
    let v = Validator::new(&schema).expect("percent-encoded pointers compile");
    assert!(v.is_valid(&json!({"tree": {"leaf": 1, "children": [{"leaf": 2, "children": []}]}})));
    assert!(!v.is_valid(&json!({"tree": {"children": [{"leaf": "two"}]}})));
    assert!(v.is_valid(&json!({"quoted": 1.5, "percent": 3})));
    assert!(!v.is_valid(&json!({"quoted": "x"})));
    assert!(!v.is_valid(&json!({"percent": 1.5})));
    // A malformed escape names the reference instead of resolving something else.
    let bad = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/x%zz"}}, "$defs": {"x%zz": {}}});
    let e = Validator::new(&bad).unwrap_err();
    assert!(e.reason.contains("#/$defs/x%zz"), "{e}");
    let tb = Toolbox::builder()
        .tool(echo("walk_tree", schema))
        .build()
        .unwrap();
    let env = rt().block_on(tb.call("walk_tree", json!({"tree": {"leaf": 1}})));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
}

#[test]
fn references_that_only_point_at_each_other_are_refused_at_registration() {
    let schema = json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/a"}},
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}
    });
    let e = Validator::new(&schema).unwrap_err();
    assert!(
        e.reason.contains("#/$defs/a → #/$defs/b → #/$defs/a")
            || e.reason.contains("#/$defs/b → #/$defs/a → #/$defs/b"),
        "{e}"
    );
    assert!(e.reason.contains("cycle"), "{e}");
    let err = Toolbox::builder()
        .tool(echo("loop_refs", schema))
        .build()
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("loop_refs") && text.contains("cycle"),
        "{text}"
    );

    // Through a combinator and to itself: the same.
    for schema in [
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
               "$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}}),
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
               "$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}}}),
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
               "$defs": {"a": {"$ref": "#/$defs/a"}}}),
        json!({"type": "object", "oneOf": [{"$ref": "#"}]}),
    ] {
        let e = Validator::new(&schema).unwrap_err();
        assert!(e.reason.contains("cycle"), "{schema}: {e}");
    }
    // Recursion through a property, an item or an additional property descends into the value,
    // so it ends: still accepted.
    let tree = json!({
        "type": "object",
        "properties": {"t": {"$ref": "#/$defs/t"}},
        "$defs": {"t": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/t"}}},
                         "additionalProperties": {"$ref": "#/$defs/t"}}}
    });
    let v = Validator::new(&tree).unwrap();
    assert!(v.is_valid(&json!({"t": {"kids": [{"kids": []}], "x": {}}})));
}

#[test]
fn one_of_branches_that_differ_only_in_fallback_keywords_are_decided_by_the_fallback() {
    let cases = [
        (
            json!({"oneOf": [{"type": "object", "minProperties": 1}, {"type": "object", "maxProperties": 1}]}),
            json!({"a": 1, "b": 2}),
            json!({"a": 1}),
        ),
        (
            json!({"oneOf": [{"type": "string", "not": {"const": "x"}}, {"type": "string", "not": {"const": "y"}}]}),
            json!("x"),
            json!("z"),
        ),
        (
            json!({"oneOf": [{"type": "string", "format": "uri"}, {"type": "string", "maxLength": 3}]}),
            json!("https://example.com/a"),
            json!("a:b"),
        ),
        (
            json!({"oneOf": [
                {"type": "object", "patternProperties": {"^x_": {"type": "integer"}}, "additionalProperties": false},
                {"type": "object", "properties": {"y": {"type": "integer"}}, "additionalProperties": false}
            ]}),
            json!({"x_1": 1}),
            json!({}),
        ),
    ];
    for (branches, valid, both) in cases {
        let schema = json!({"type": "object", "properties": {"v": branches}, "required": ["v"]});
        let v = Validator::new(&schema).unwrap();
        assert!(v.uses_fallback(), "{schema}");
        assert!(
            v.is_valid(&json!({ "v": valid })),
            "{schema} rejects {valid}: {:?}",
            v.validate(&json!({ "v": valid }))
        );
        assert!(
            !v.is_valid(&json!({ "v": both })),
            "{schema} accepts {both}, which matches both branches"
        );
    }
    // Two branches that both match on compiled keywords alone are still refused here, with the
    // compiled message.
    let schema = json!({"type": "object", "properties": {"v": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}});
    let errors = Validator::new(&schema)
        .unwrap()
        .validate(&json!({"v": 3}))
        .unwrap_err();
    assert!(errors[0].message.contains("more than one"), "{errors:?}");
}

#[test]
fn multiple_of_does_not_overflow_on_huge_numbers() {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "number", "multipleOf": 0.5}}});
    let v = Validator::new(&schema).unwrap();
    assert!(v.is_valid(&json!({"n": 1e308})));
    assert!(v.is_valid(&json!({"n": 1.7976931348623157e308})));
    assert!(v.is_valid(&json!({"n": 2.5})));
    assert!(!v.is_valid(&json!({"n": 2.25})));
    let ints =
        json!({"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 1e19}}});
    let v = Validator::new(&ints).unwrap();
    assert!(!v.is_valid(&json!({"n": i64::MAX})));
    assert!(v.is_valid(&json!({"n": 0})));
}

#[test]
fn hostname_a_labels_must_be_valid_punycode() {
    let schema =
        json!({"type": "object", "properties": {"h": {"type": "string", "format": "hostname"}}});
    let v = Validator::new(&schema).unwrap();
    for ok in [
        "xn--9n2bp8q.xn--9t4b11yi5a",
        "xn--bcher-kva.example",
        "example.com",
        "a-b.c",
    ] {
        assert!(v.is_valid(&json!({ "h": ok })), "{ok}");
    }
    for bad in [
        "xn--X",               // invalid Punycode
        "xn--07jt112bpxg.com", // decodes to a label with U+302E (disallowed)
        "xn--hello-",          // ends with a hyphen
        "xn--vek",             // KATAKANA MIDDLE DOT with no Hiragana, Katakana or Han
        "XN--aa---o47jg78q",   // decodes to a label with `--` in the third and fourth position
        "ab--cd.example",      // `--` in the third and fourth position outside an A-label
    ] {
        assert!(!v.is_valid(&json!({ "h": bad })), "{bad}");
    }
    // The email format's domain is a host name too.
    let email =
        json!({"type": "object", "properties": {"e": {"type": "string", "format": "email"}}});
    let v = Validator::new(&email).unwrap();
    assert!(!v.is_valid(&json!({"e": "ada@xn--X.example"})));
    assert!(v.is_valid(&json!({"e": "ada@xn--bcher-kva.example"})));
}
