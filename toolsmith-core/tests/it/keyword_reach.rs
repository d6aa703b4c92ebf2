//! Every keyword of the one keyword table (`toolsmith_lint::walk::KEYWORDS`) is reached by every pass
//! that walks schemas, except where the table documents that the pass skips it.
//!
//! For each keyword a marker schema is nested under it (inside a parameter `p`), and each pass
//! must show its effect at the marker: the cleaner inlines and cleans it, closing closes it, the
//! Gemini lowering turns its `const` into an `enum` (or moves the keyword into the description,
//! as the profile says), the lint reports on its description and its field, and the validator
//! refuses a value the marker refuses.

use std::cell::RefCell;

use serde_json::{json, Value};
use toolsmith_core::export::{export_tool, Target};
use toolsmith_core::validate::Validator;
use toolsmith_core::ToolSpec;
use toolsmith_lint::walk::{Keyword, Pass, Shape, KEYWORDS};
use toolsmith_spec::schema::{clean_document, input_schema, ParamDef};

/// `marker` placed under `kw`, and the pointer suffix that leads to it.
fn nest(kw: &Keyword, marker: Value, array_items: bool) -> (Value, String) {
    let name = kw.name;
    match kw.shape {
        Shape::Map => (json!({ name: {"m": marker} }), format!("/{name}/m")),
        Shape::Array => (json!({ name: [marker] }), format!("/{name}/0")),
        Shape::SingleOrArray if array_items => (json!({ name: [marker] }), format!("/{name}/0")),
        Shape::Single | Shape::SingleOrArray => (json!({ name: marker }), format!("/{name}")),
    }
}

/// Every keyword, with `items` in both of its forms.
fn cases() -> Vec<(&'static Keyword, bool)> {
    let mut out = Vec::new();
    for kw in KEYWORDS {
        out.push((kw, false));
        if kw.shape == Shape::SingleOrArray {
            out.push((kw, true));
        }
    }
    out
}

fn label(kw: &Keyword, array: bool) -> String {
    format!("{}{}", kw.name, if array { " (array form)" } else { "" })
}

fn at<'a>(v: &'a Value, suffix: &str) -> &'a Value {
    v.pointer(suffix)
        .unwrap_or_else(|| panic!("nothing at {suffix} in {v}"))
}

#[test]
fn the_cleaner_inlines_and_cleans_under_every_keyword() {
    for (kw, array) in cases() {
        assert!(kw.walked_by(Pass::Clean));
        let (nested, suffix) = nest(kw, json!({"$ref": "#/$defs/Mark"}), array);
        let doc = json!({
            "type": "object",
            "properties": {"p": nested},
            "$defs": {"Mark": {"type": "integer", "format": "uint32", "description": "MARK"}},
        });
        let clean = clean_document(doc);
        let marker = at(&clean, &format!("/properties/p{suffix}"));
        assert_eq!(
            marker,
            &json!({"type": "integer", "description": "MARK"}),
            "{}",
            label(kw, array)
        );
    }
}

thread_local! {
    static PARAM: RefCell<Value> = const { RefCell::new(Value::Null) };
}

fn param_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    PARAM.with(|p| schemars::Schema::try_from(p.borrow().clone()).expect("an object schema"))
}

#[test]
fn closing_reaches_every_keyword_it_does_not_skip() {
    for (kw, array) in cases() {
        let marker = json!({"type": "object", "properties": {"x": {"type": "string"}}});
        let (nested, suffix) = nest(kw, marker, array);
        PARAM.with(|p| *p.borrow_mut() = nested);
        let params = [ParamDef {
            name: "p",
            description: "The p.",
            required: true,
            schema: param_schema,
            constraints: &[],
            default: None,
        }];
        let (schema, problems) = input_schema(&params);
        assert!(problems.is_empty(), "{problems:?}");
        let marker = at(&schema, &format!("/properties/p{suffix}"));
        let closed = marker.get("additionalProperties") == Some(&json!(false));
        assert_eq!(
            closed,
            kw.walked_by(Pass::Close),
            "{}: {marker}",
            label(kw, array)
        );
    }
}

fn spec(p: Value, defs: Value) -> ToolSpec {
    ToolSpec::new(
        "get_thing",
        "Gets the thing. Returns it.",
        json!({
            "type": "object",
            "properties": {"p": p},
            "additionalProperties": false,
            "$defs": defs,
        }),
    )
    .with_version("1.0.0")
}

#[test]
fn the_gemini_lowering_reaches_every_keyword_or_moves_it() {
    // Gemini inlines references, turns `const` into `enum` and moves the keywords it lacks
    // into the description: every keyword shows one effect or the other.
    let moved = toolsmith_lint::platform::GEMINI.unsupported;
    for (kw, array) in cases() {
        assert!(kw.walked_by(Pass::Lower));
        let (mut nested, suffix) = nest(kw, json!({"$ref": "#/$defs/Mark"}), array);
        nested["description"] = json!("The p.");
        let tool = export_tool(
            &spec(nested, json!({"Mark": {"const": "MARK"}})),
            Target::Gemini,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", label(kw, array)));
        let p = at(&tool, "/parametersJsonSchema/properties/p");
        let text = p.to_string();
        assert!(!text.contains("$ref"), "{}: {text}", label(kw, array));
        if moved.contains(&kw.name) {
            assert!(p.get(kw.name).is_none(), "{}: {text}", label(kw, array));
            let description = p["description"].as_str().unwrap_or_default();
            assert!(description.contains("MARK"), "{}: {text}", label(kw, array));
        } else {
            // A one-branch allOf is merged into its parent, and a union of one const collapses
            // into an enum on it: the marker's enum may land on `p` itself.
            let marker = match kw.name {
                "allOf" | "anyOf" | "oneOf" => p.pointer(&suffix).unwrap_or(p),
                _ => at(p, &suffix),
            };
            assert_eq!(
                marker.get("enum"),
                Some(&json!(["MARK"])),
                "{}: {text}",
                label(kw, array)
            );
        }
    }
}

#[test]
fn the_lint_reaches_every_keyword() {
    let long = "A marker whose description is far longer than any budget allows. ".repeat(4);
    for (kw, array) in cases() {
        let marker = json!({
            "type": "object",
            "description": long.trim(),
            "properties": {"mark": {"type": "string"}},
        });
        let (mut nested, suffix) = nest(kw, marker, array);
        nested["description"] = json!("The p.");
        let tool = json!({
            "name": "get_thing",
            "description": "Gets the thing. Returns it.",
            "inputSchema": {"type": "object", "properties": {"p": nested}},
        });
        let findings =
            toolsmith_lint::lint_definition(&tool, &toolsmith_lint::LintConfig::default());
        let base = format!("/inputSchema/properties/p{suffix}");
        let found = |rule: &str, pointer: String| {
            findings
                .iter()
                .any(|f| f.rule == rule && f.pointer == pointer)
        };
        assert!(
            found("param_description_budget", format!("{base}/description")),
            "{}: {findings:?}",
            label(kw, array)
        );
        assert_eq!(
            found("described", format!("{base}/properties/mark/description")),
            kw.walked_by(Pass::LintFields),
            "{}: {findings:?}",
            label(kw, array)
        );
    }
}

/// A schema under `kw` that refuses the value `p` is given, and that value.
fn refusing(kw: &Keyword) -> (Value, Value) {
    let no = Value::Bool(false);
    match kw.name {
        "properties" | "patternProperties" => {
            let key = if kw.name == "properties" { "m" } else { "^m$" };
            (json!({ kw.name: { key: no } }), json!({"m": 1}))
        }
        "dependentSchemas" => (json!({ kw.name: {"m": no} }), json!({"m": 1})),
        "$defs" | "definitions" => (json!({ kw.name: {"m": no} }), json!({"m": 1})),
        "not" => (json!({"not": {}}), json!(1)),
        "if" => (json!({"if": {"const": 1}, "then": no}), json!(1)),
        "then" => (json!({"if": true, "then": no}), json!(1)),
        "else" => (json!({"if": false, "else": no}), json!(1)),
        "prefixItems" => (json!({ kw.name: [no] }), json!([1])),
        "items" | "contains" | "unevaluatedItems" | "additionalItems" => {
            (json!({ kw.name: no }), json!([1]))
        }
        "additionalProperties" | "propertyNames" | "unevaluatedProperties" => {
            (json!({ kw.name: no }), json!({"m": 1}))
        }
        _ => (json!({ kw.name: [no] }), json!(1)),
    }
}

#[test]
fn the_validator_reaches_every_keyword_it_does_not_skip() {
    for kw in KEYWORDS {
        let (p, value) = refusing(kw);
        let schema = json!({"type": "object", "properties": {"p": p}});
        let validator = Validator::new(&schema).unwrap_or_else(|e| panic!("{}: {e}", kw.name));
        let refused = match validator.validate(&json!({ "p": value })) {
            Ok(_) => false,
            Err(errors) => {
                assert!(
                    errors.iter().all(|e| e.path.starts_with('p')),
                    "{}: {errors:?}",
                    kw.name
                );
                true
            }
        };
        assert_eq!(refused, kw.walked_by(Pass::Validate), "{}", kw.name);
    }
}
