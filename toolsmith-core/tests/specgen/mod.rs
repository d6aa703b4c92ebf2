//! Random tool specs for export tests (`crate::specgen` in `tests/it`): schemas made
//! of the keywords every lowering pass looks at (const unions, `oneOf`/`anyOf`/`allOf`, `$ref`s
//! into `$defs`, recursion, tuples, map-like objects, boolean subschemas, moved constraints,
//! formats, non-scalar enums), roots that some targets refuse, names and descriptions that break
//! name and length rules, output schemas of every shape MCP wraps, titles, effects and allows.
//! Many of them fail for some targets (the strict ones most), which is what they are for.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use toolsmith_core::{Allow, Effects, ToolSpec};

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(
            json!({"type": "string", "description": "Search text.", "minLength": 1, "maxLength": 200})
        ),
        Just(json!({"type": "string", "minLength": 2, "maxLength": 2})),
        Just(json!({"type": "string", "format": "uri", "description": "  "})),
        Just(json!({"type": "string", "format": "date-time", "pattern": "^[0-9]+$"})),
        Just(json!({"type": "integer", "minimum": 1, "maximum": 50, "default": 10})),
        Just(json!({"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5})),
        Just(json!({"type": "boolean", "description": "Flag."})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": "null"})),
        Just(
            json!({"oneOf": [{"const": "low", "title": "Reply within 3 days"}, {"const": "high", "description": "Today"}]})
        ),
        Just(
            json!({"anyOf": [{"const": 1}, {"const": 2, "title": "Two"}], "description": "Level."})
        ),
        Just(json!({"oneOf": [{"const": "a"}, {"const": 1}]})),
        Just(json!({"type": "string", "oneOf": [{"const": "a"}, {"const": "b"}]})),
        Just(json!({"const": "x"})),
        Just(json!({"const": "x", "type": "string", "description": "Fixed."})),
        Just(json!({"enum": ["a", "b"]})),
        Just(json!({"type": "string", "enum": ["a", "b"]})),
        Just(json!({"enum": [{"a": 1}, [2]]})),
        Just(json!({"$ref": "#/$defs/Item"})),
        Just(json!({"$ref": "#/$defs/Item", "description": "An item."})),
        Just(json!({"$ref": "#/$defs/Node"})),
        Just(json!({"$ref": "#/$defs/Missing"})),
        Just(json!({"$ref": "https://example.com/x"})),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        Just(json!({"description": "Anything."})),
        Just(json!({"type": "array"})),
        Just(
            json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": true})
        ),
        Just(json!({"type": "array", "items": {"type": "integer"}, "minItems": 4})),
        Just(json!({"not": {"type": "string"}, "type": "string"})),
        Just(
            json!({"type": "string", "if": {"minLength": 3}, "then": {"maxLength": 5}, "else": {"const": "x"}})
        ),
        Just(json!({"type": "object", "patternProperties": {"^x": {"type": "string"}}})),
        Just(json!({"type": "object", "minProperties": 1, "maxProperties": 1})),
    ]
}

/// An object schema of `props`; `bits` choose `type`, a description, which properties are
/// required and `additionalProperties` (false, true, a schema or none).
pub fn object_of(props: Vec<(String, Value)>, bits: u8) -> Value {
    let mut m = Map::new();
    if bits & 1 == 0 {
        m.insert("type".into(), json!("object"));
    }
    if bits & 2 != 0 {
        m.insert("description".into(), json!("An object."));
    }
    let required: Vec<Value> = props
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (4 << (i % 3)) != 0)
        .map(|(_, (k, _))| json!(k))
        .collect();
    m.insert(
        "properties".into(),
        Value::Object(props.into_iter().collect()),
    );
    if !required.is_empty() {
        m.insert("required".into(), Value::Array(required));
    }
    match bits >> 5 {
        0 | 1 => {
            m.insert("additionalProperties".into(), json!(false));
        }
        2 => {
            m.insert("additionalProperties".into(), json!(true));
        }
        3 => {
            m.insert("additionalProperties".into(), json!({"type": "string"}));
        }
        _ => {}
    }
    Value::Object(m)
}

/// A subschema.
pub fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                prop::collection::vec(("[a-e]{1,2}", inner.clone()), 0..4),
                any::<u8>()
            )
                .prop_map(|(props, bits)| object_of(props, bits)),
            inner
                .clone()
                .prop_map(|s| json!({"type": "array", "items": s})),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|v| json!({"type": "array", "prefixItems": v})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"anyOf": v})),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|v| json!({"oneOf": v, "description": "Either."})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"allOf": v})),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({
                "description": "Merged.",
                "allOf": [
                    {"type": "object", "properties": {"p": a}, "required": ["p"], "description": "Part one."},
                    {"properties": {"q": b, "p": {"type": "string"}}, "required": ["q", "p"]}
                ]
            })),
            inner.clone().prop_map(|s| json!({"type": "object", "additionalProperties": s})),
            inner.prop_map(|s| json!({"type": "object", "properties": {"x": s}, "dependentSchemas": {"x": {"required": ["x"]}}})),
        ]
    })
}

fn defs() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        schema().prop_map(|item| Some(json!({
            "Item": item,
            "Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}},
        }))),
    ]
}

/// An input schema: mostly an object root with properties, sometimes one a target refuses.
pub fn input_schema() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(("[a-f]{1,3}", schema()), 0..5),
        any::<u8>(),
        0..4u8,
        defs(),
        0..16u8,
    )
        .prop_map(|(props, bits, uri, defs, root)| {
            let mut s = object_of(props, bits & !1);
            let m = s.as_object_mut().expect("an object");
            let mut with_uri = Map::new();
            match uri {
                0 => {
                    with_uri.insert("$schema".into(), json!(DIALECT));
                }
                1 => {
                    with_uri.insert(
                        "$schema".into(),
                        json!("http://json-schema.org/draft-07/schema#"),
                    );
                }
                _ => {}
            }
            with_uri.extend(std::mem::take(m));
            *m = with_uri;
            if uri == 3 {
                m.insert("$schema".into(), json!(DIALECT));
            }
            if let Some(d) = defs {
                m.insert("$defs".into(), d);
            }
            match root {
                0 => {
                    m.insert("type".into(), json!("string"));
                }
                1 => {
                    m.insert(
                        "oneOf".into(),
                        json!([{"required": ["a"]}, {"required": ["b"]}]),
                    );
                }
                2 => {
                    m.insert("enum".into(), json!([{}]));
                }
                3 => {
                    m.remove("type");
                }
                _ => {}
            }
            s
        })
}

/// An output schema of any shape MCP publishes, or none.
pub fn output_schema() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        schema().prop_map(Some),
        input_schema().prop_map(Some),
        (schema(), defs()).prop_map(|(s, d)| {
            let mut s = json!({"type": "object", "properties": {"v": s}, "required": ["v"], "anyOf": [{"required": ["v"]}]});
            if let Some(d) = d {
                s["$defs"] = d;
            }
            Some(s)
        }),
        Just(Some(json!({"type": "string", "format": "date-time"}))),
        Just(Some(json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": []}))),
        Just(Some(json!(true))),
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        30 => "[a-z][a-z0-9_]{0,12}",
        1 => Just("files.read".to_string()),
        1 => Just("1st_tool".to_string()),
        1 => Just("tool:x".to_string()),
        1 => Just(String::new()),
        1 => Just("x".repeat(70)),
    ]
}

fn description() -> impl Strategy<Value = String> {
    prop_oneof![
        30 => "[A-Za-z ,.]{1,60}",
        1 => Just(String::new()),
        1 => Just("   ".to_string()),
        1 => Just("Long. ".repeat(200)),
        1 => Just("Ünïcödé \"quoted\" \\ \n\t text.".to_string()),
    ]
}

/// A tool spec.
pub fn spec() -> impl Strategy<Value = ToolSpec> {
    (
        name(),
        description(),
        input_schema(),
        output_schema(),
        prop::option::of("[A-Za-z ]{1,20}"),
        any::<u8>(),
        0..3usize,
    )
        .prop_map(
            |(name, description, input, output, title, effects, allows)| {
                let mut e = Effects::none();
                e.read_only = effects & 1 != 0;
                e.writes = effects & 2 != 0;
                e.destructive = effects & 4 != 0;
                e.idempotent = effects & 8 != 0;
                e.open_world = effects & 16 != 0;
                e.requires_approval = effects & 32 != 0;
                e.untrusted_output = effects & 64 != 0;
                let mut spec = ToolSpec::new(name, description, input)
                    .with_effects(e)
                    .with_version("1.0.0")
                    .with_allows((0..allows).map(|i| Allow::new(format!("rule_{i}"), "Reviewed.")));
                spec.title = title;
                spec.output_schema = output;
                spec
            },
        )
}

/// A list of specs, sometimes with a repeated name.
pub fn specs() -> impl Strategy<Value = Vec<ToolSpec>> {
    (prop::collection::vec(spec(), 1..6), any::<bool>()).prop_map(|(mut specs, dup)| {
        if dup && specs.len() > 1 {
            specs[1].name = specs[0].name.clone();
        }
        specs
    })
}
