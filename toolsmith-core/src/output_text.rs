//! Whether a tool's results can hold a secret, decided once from its output schema, so that
//! redaction can skip the data of results that cannot (numbers, booleans, enums, dates).
//!
//! Redaction replaces text that looks like a secret and the whole value of a field whose *key*
//! names one (`password`, `pin`, `api_key`, … — [`toolsmith_lint::secrets::is_secret_field`]), numbers
//! included. So a schema "may hold text" unless every value it admits is one of:
//!
//! - `null`, a boolean, an integer or a number, under a key that does not name a secret;
//! - a string fixed by the schema (`const`, or every `enum` value), since the tool's author wrote
//!   it, not a user or an upstream service;
//! - a string with a `format` that cannot carry a secret: `date-time`, `date`, `time` and
//!   `duration` (digits and a few separators). `uuid` is **not** one of them (API keys and
//!   session ids are often UUIDs), nor are `email`, `hostname`, `ipv4`/`ipv6` or `uri` (a URI
//!   carries passwords), nor a string with only a `pattern`;
//! - an array of such values (`items` or `prefixItems` given), or an object that lists its
//!   `properties`, has no `patternProperties` and no `additionalProperties` schema (a map's keys
//!   are free text), with keys that do not name a secret.
//!
//! Everything else may hold text: a string without those limits, an empty schema (any JSON),
//! a union (`anyOf`/`oneOf`/`allOf`: decided branch by branch), a `$ref` that cannot be followed
//! or nests too deep, a keyword this module does not know, and a tool without an output schema
//! (its results are free text). The answer is conservative: `true` whenever in doubt.
//!
//! The schema describes what the tool returns because both come from the same Rust type (the
//! output contract checks it, by default in debug builds). A hand-written `Tool::from_fn` result is not tied
//! to its spec's output schema, so such tools are always redacted.

use serde_json::{Map, Value};
use toolsmith_lint::secrets::is_secret_field;

/// Formats whose strings cannot hold a secret.
const SAFE_FORMATS: &[&str] = &["date-time", "date", "time", "duration"];

/// Keywords that only describe (they admit nothing more or less).
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
    "$defs",
    "definitions",
];

/// Keywords whose limits this module reads (with [`ANNOTATIONS`], every keyword it knows; a
/// schema with any other may hold text).
const CHECKED: &[&str] = &[
    "type",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
];

/// Whether results of a tool with this output schema may hold text a secret could be in
/// (`None`: no output schema, so yes). See the [module docs](self).
pub(crate) fn may_hold_text(schema: Option<&Value>) -> bool {
    match schema {
        None => true,
        Some(root) => walk(root, root, 0),
    }
}

/// The property names of `schema` (at any depth, definitions included): the keys its results
/// mostly have.
pub(crate) fn property_names(schema: &Value) -> Vec<&str> {
    let mut names = Vec::new();
    toolsmith_lint::walk::visit(
        schema,
        &toolsmith_lint::walk::Pointer::root(""),
        &mut |obj, _| {
            if let Some(Value::Object(props)) = obj.get("properties") {
                names.extend(props.keys().map(String::as_str));
            }
        },
    );
    names
}

/// Whether a value `schema` admits may hold text ([module docs](self)); `root` is the whole
/// schema (for `$ref`s), `depth` the nesting so far.
fn walk(root: &Value, schema: &Value, depth: usize) -> bool {
    if depth > 32 {
        return true;
    }
    let obj = match schema {
        Value::Bool(admits) => return *admits,
        Value::Object(obj) => obj,
        _ => return true,
    };
    if ref_may_hold_text(root, obj, depth) {
        return true;
    }
    // A fixed set of values: written by the author.
    if obj.contains_key("const") {
        return false;
    }
    if let Some(values) = obj.get("enum") {
        return !values.is_array();
    }
    if branches_may_hold_text(root, obj, depth) {
        return true;
    }
    if obj
        .keys()
        .any(|k| !ANNOTATIONS.contains(&k.as_str()) && !CHECKED.contains(&k.as_str()))
    {
        return true;
    }
    types_may_hold_text(root, obj, depth)
}

/// Whether the schema's `$ref` cannot be followed (only `#/$defs/…` can) or leads to a schema
/// whose values may hold text; `false` without a `$ref`.
fn ref_may_hold_text(root: &Value, obj: &Map<String, Value>, depth: usize) -> bool {
    let Some(r) = obj.get("$ref") else {
        return false;
    };
    let target = r
        .as_str()
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| root.get("$defs")?.get(name));
    target.is_none_or(|t| walk(root, t, depth + 1))
}

/// Whether some branch of the schema's `anyOf`, `oneOf` or `allOf` may hold text (or one of
/// them is not an array).
fn branches_may_hold_text(root: &Value, obj: &Map<String, Value>, depth: usize) -> bool {
    ["anyOf", "oneOf", "allOf"].iter().any(|key| {
        obj.get(*key)
            .is_some_and(|branches| match branches.as_array() {
                Some(bs) => bs.iter().any(|b| walk(root, b, depth + 1)),
                None => true,
            })
    })
}

/// Whether a value of the schema's `type` may hold text: a string without a safe format, an
/// array or object with such values; without a `type`, only when nothing composes the schema.
fn types_may_hold_text(root: &Value, obj: &Map<String, Value>, depth: usize) -> bool {
    let types: Vec<&str> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => match ts.iter().map(Value::as_str).collect::<Option<_>>() {
            Some(ts) => ts,
            None => return true,
        },
        // No type: only a composition or a reference (checked before) limits the values.
        None => {
            return !["anyOf", "oneOf", "allOf", "$ref"]
                .iter()
                .any(|k| obj.contains_key(*k))
        }
        Some(_) => return true,
    };
    types.iter().any(|t| match *t {
        "null" | "boolean" | "integer" | "number" => false,
        "string" => !obj
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|f| SAFE_FORMATS.contains(&f)),
        "array" => array_may_hold_text(root, obj, depth),
        "object" => object_may_hold_text(root, obj, depth),
        _ => true,
    })
}

fn array_may_hold_text(root: &Value, obj: &Map<String, Value>, depth: usize) -> bool {
    let prefix = match obj.get("prefixItems") {
        None => false,
        Some(Value::Array(items)) => items.iter().any(|s| walk(root, s, depth + 1)),
        Some(_) => return true,
    };
    let items = match obj.get("items") {
        Some(s) => walk(root, s, depth + 1),
        // Without `items`, items past the prefix are any JSON (or there is no prefix either).
        None => true,
    };
    prefix || items
}

fn object_may_hold_text(root: &Value, obj: &Map<String, Value>, depth: usize) -> bool {
    if obj.contains_key("patternProperties") {
        return true;
    }
    match obj.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        Some(_) => return true,
    }
    let Some(Value::Object(props)) = obj.get("properties") else {
        // An object that lists nothing: any keys.
        return true;
    };
    props
        .iter()
        .any(|(key, s)| is_secret_field(key) || walk(root, s, depth + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(schema: Value) -> bool {
        may_hold_text(Some(&schema))
    }

    #[test]
    fn no_schema_and_any_json_hold_text() {
        assert!(may_hold_text(None));
        assert!(text(json!({})));
        assert!(text(json!(true)));
        assert!(text(json!({"description": "anything"})));
    }

    #[test]
    fn scalars_and_fixed_strings_do_not() {
        assert!(!text(json!({"type": "integer", "minimum": 0})));
        assert!(!text(json!({"type": ["number", "null"]})));
        assert!(!text(json!({"type": "boolean"})));
        assert!(!text(json!({"type": "string", "enum": ["a", "b"]})));
        assert!(!text(json!({"const": "fixed"})));
        assert!(!text(
            json!({"oneOf": [{"const": "a", "title": "A"}, {"const": "b"}]})
        ));
        assert!(!text(json!({"type": "string", "format": "date-time"})));
        assert!(!text(json!({"type": "string", "format": "date"})));
    }

    #[test]
    fn free_strings_hold_text() {
        assert!(text(json!({"type": "string"})));
        assert!(text(json!({"type": "string", "pattern": "^[0-9]+$"})));
        assert!(text(json!({"type": "string", "maxLength": 4})));
        for f in ["uuid", "email", "uri", "hostname", "ipv4", "regex"] {
            assert!(text(json!({"type": "string", "format": f})), "{f}");
        }
        assert!(text(json!({"type": ["integer", "string"]})));
        assert!(text(
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
        ));
        assert!(
            text(json!({"type": "integer", "not": {"const": 3}})),
            "unknown keyword"
        );
    }

    #[test]
    fn objects_and_arrays_are_walked() {
        let product = json!({
            "type": "object",
            "properties": {
                "price_nok": {"type": "integer"},
                "in_stock": {"type": "boolean"},
                "sku": {"type": "string"}
            },
            "required": ["price_nok"]
        });
        assert!(text(product.clone()));
        let counts = json!({
            "type": "array",
            "items": {"type": "object", "properties": {"n": {"type": "integer"}, "at": {"type": "string", "format": "date-time"}}}
        });
        assert!(!text(counts));
        assert!(text(json!({"type": "array"})), "items of any JSON");
        assert!(!text(
            json!({"type": "array", "prefixItems": [{"type": "integer"}], "items": false})
        ));
        assert!(text(
            json!({"type": "array", "prefixItems": [{"type": "integer"}]})
        ));
        assert!(
            text(json!({"type": "object", "additionalProperties": {"type": "integer"}})),
            "map keys are text"
        );
        assert!(text(json!({"type": "object"})));
        assert!(text(
            json!({"type": "object", "properties": {}, "patternProperties": {"^x": {"type": "integer"}}})
        ));
    }

    #[test]
    fn secret_named_fields_hold_text_whatever_their_type() {
        assert!(text(
            json!({"type": "object", "properties": {"pin": {"type": "integer"}}})
        ));
        assert!(text(
            json!({"type": "object", "properties": {"api_key": {"type": "integer"}}})
        ));
        assert!(!text(
            json!({"type": "object", "properties": {"count": {"type": "integer"}}, "additionalProperties": false})
        ));
    }

    #[test]
    fn references_are_followed() {
        let schema = json!({
            "type": "object",
            "properties": {"level": {"$ref": "#/$defs/Level"}, "next": {"$ref": "#/$defs/Node"}},
            "$defs": {
                "Level": {"type": "string", "enum": ["low", "high"]},
                "Node": {"type": "object", "properties": {"n": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}}}
            }
        });
        assert!(text(schema.clone()), "a recursive reference nests too deep");
        let flat = json!({
            "type": "object",
            "properties": {"level": {"$ref": "#/$defs/Level"}},
            "$defs": {"Level": {"type": "string", "enum": ["low", "high"]}}
        });
        assert!(!text(flat));
        assert!(text(json!({"$ref": "#/$defs/Missing"})));
        assert!(text(json!({"$ref": "https://example.com/schema"})));
    }
}
