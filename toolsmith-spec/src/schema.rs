//! Schema generation and hygiene.
//!
//! Parameter and return types describe themselves through `schemars`; this module assembles the
//! tool's input object schema from its parameters and cleans the generator's output into what
//! agent platforms accept (TARGETS.md, "Canonical schema hygiene"):
//!
//! - no root `$schema` or `title`;
//! - definitions inlined, except recursive ones, which stay in a root `$defs`;
//! - only standard `format`s (`uint32`, `double` and the like are dropped: `minimum` and the
//!   integer type already say it);
//! - an optional field is one left out of `required`; its schema does not also admit `null`;
//! - an enum whose variants are documented becomes `oneOf` of `{const, title}` pairs;
//! - a `true` schema (any JSON) becomes `{}`;
//! - the input root is `{"type":"object", ..., "additionalProperties": false}`.

use schemars::{generate::SchemaSettings, JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap};
use toolsmith_lint::walk::{self, Pass, Shape};

/// Generates the schema of one type with a generator (used by generated code).
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// The schema of `T` as a subschema of `generator` (a `$ref` for non-inlined types).
pub fn schema_of<T: JsonSchema + ?Sized>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// The formats that are part of JSON Schema 2020-12; every other `format` is dropped.
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// One model-facing parameter as the macro declares it.
#[derive(Clone, Copy)]
pub struct ParamDef {
    /// The parameter's name in the schema.
    pub name: &'static str,
    /// Its description (doc comment or `#[arg(description)]`).
    pub description: &'static str,
    /// Whether it must be given (not `Option<T>` and no `default`).
    pub required: bool,
    /// The schema of its (non-optional) type.
    pub schema: SchemaFn,
    /// The `#[arg(...)]` constraints, typed (the macro never hands over JSON text to parse).
    pub constraints: &'static [Constraint],
    /// The default value, if declared.
    pub default: Option<fn() -> Value>,
}

/// A number written in `#[arg(...)]`, as the literal was written: a whole number stays whole in
/// the schema (`1`, not `1.0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// A negative whole number.
    Int(i64),
    /// A non-negative whole number.
    UInt(u64),
    /// Any other number (a fraction, an exponent, or a whole number beyond 64 bits).
    Float(f64),
}

impl Num {
    /// The number as a JSON value (`null` for a non-finite float, which the macro never emits).
    pub fn to_value(self) -> Value {
        match self {
            Num::Int(n) => Value::from(n),
            Num::UInt(n) => Value::from(n),
            Num::Float(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        }
    }
}

/// One `#[arg(...)]` constraint of a parameter, as the macro declares it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constraint {
    /// `min_length`: `minLength`.
    MinLength(u64),
    /// `max_length`: `maxLength`.
    MaxLength(u64),
    /// `pattern`: `pattern` (checked to be a valid regular expression at compile time).
    Pattern(&'static str),
    /// `minimum`.
    Minimum(Num),
    /// `maximum`.
    Maximum(Num),
    /// `exclusive_minimum`: `exclusiveMinimum`.
    ExclusiveMinimum(Num),
    /// `exclusive_maximum`: `exclusiveMaximum`.
    ExclusiveMaximum(Num),
    /// `multiple_of`: `multipleOf`.
    MultipleOf(Num),
    /// `min_items`: `minItems`.
    MinItems(u64),
    /// `max_items`: `maxItems`.
    MaxItems(u64),
    /// `unique_items`: `uniqueItems: true`.
    UniqueItems,
    /// `header = "Region"`: the MCP 2026-07-28 annotation `x-mcp-header` (the argument is
    /// mirrored into the HTTP header `Mcp-Param-Region`); no constraint on the value, and only
    /// the MCP 2026-07-28 export keeps it.
    Header(&'static str),
}

impl Constraint {
    /// The JSON Schema keyword and its value.
    pub fn to_keyword(self) -> (&'static str, Value) {
        match self {
            Constraint::MinLength(n) => ("minLength", n.into()),
            Constraint::MaxLength(n) => ("maxLength", n.into()),
            Constraint::Pattern(p) => ("pattern", p.into()),
            Constraint::Minimum(n) => ("minimum", n.to_value()),
            Constraint::Maximum(n) => ("maximum", n.to_value()),
            Constraint::ExclusiveMinimum(n) => ("exclusiveMinimum", n.to_value()),
            Constraint::ExclusiveMaximum(n) => ("exclusiveMaximum", n.to_value()),
            Constraint::MultipleOf(n) => ("multipleOf", n.to_value()),
            Constraint::MinItems(n) => ("minItems", n.into()),
            Constraint::MaxItems(n) => ("maxItems", n.into()),
            Constraint::UniqueItems => ("uniqueItems", true.into()),
            Constraint::Header(h) => (toolsmith_lint::mcp_fields::HEADER_KEYWORD, h.into()),
        }
    }
}

/// A fresh generator for input (deserialize-side) schemas.
pub fn input_generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
}

/// A fresh generator for output (serialize-side) schemas.
pub fn output_generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
}

/// Builds the clean input object schema of a tool from its parameters.
///
/// Returns the schema and the problems found (for example a constraint that does not fit the
/// type's schema); a tool with problems is rejected when a toolbox is built.
pub fn input_schema(params: &[ParamDef]) -> (Value, Vec<String>) {
    let mut generator = input_generator();
    let raw: Vec<Value> = params
        .iter()
        .map(|p| (p.schema)(&mut generator).to_value())
        .collect();
    let defs = generator.take_definitions(true);
    let mut cleaner = Cleaner::new(&defs);
    let mut problems = Vec::new();
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (param, raw) in params.iter().zip(raw) {
        let mut prop = cleaner.clean(raw);
        if let Value::Bool(true) = prop {
            prop = Value::Object(Map::new());
        }
        close_objects(&mut prop);
        let Value::Object(obj) = &mut prop else {
            problems.push(format!(
                "parameter `{}` has a schema that admits nothing",
                param.name
            ));
            continue;
        };
        obj.insert(
            "description".into(),
            Value::String(param.description.to_string()),
        );
        for constraint in param.constraints {
            let (key, value) = constraint.to_keyword();
            if let Some(problem) = constraint_misfit(param.name, key, obj) {
                problems.push(problem);
            }
            let value = tighter_bound(key, obj.get(key), value);
            obj.insert(key.to_string(), value);
        }
        if let Some(default) = param.default {
            obj.insert("default".into(), default());
        }
        if param.required {
            required.push(Value::String(param.name.to_string()));
        }
        properties.insert(param.name.to_string(), prop);
    }
    let mut root = Map::new();
    root.insert("type".into(), "object".into());
    if !properties.is_empty() {
        root.insert("properties".into(), Value::Object(properties));
    }
    if !required.is_empty() {
        root.insert("required".into(), Value::Array(required));
    }
    root.insert("additionalProperties".into(), Value::Bool(false));
    if let Some(mut defs) = cleaner.finish() {
        defs.values_mut().for_each(close_objects);
        root.insert("$defs".into(), Value::Object(defs));
    }
    (Value::Object(root), problems)
}

/// Closes every input object that lists its properties: `additionalProperties: false` unless the
/// schema says otherwise, so a misspelt nested field is reported (`UNKNOWN_ARGUMENT`) instead of
/// being dropped silently. Objects combined with `allOf`/`anyOf`/`oneOf` stay open, since
/// closing one branch would reject the fields of the others.
fn close_objects(schema: &mut Value) {
    let Value::Object(obj) = schema else { return };
    let composed = ["allOf", "anyOf", "oneOf"]
        .iter()
        .any(|k| obj.contains_key(*k));
    if obj.contains_key("properties") && !obj.contains_key("additionalProperties") && !composed {
        obj.insert("additionalProperties".into(), Value::Bool(false));
    }
    walk::for_each_child_mut(obj, |step, child| {
        if step.keyword.walked_by(Pass::Close) {
            close_objects(child);
        }
    });
}

/// Builds the clean output schema of a return type.
pub fn output_schema(schema: SchemaFn) -> Value {
    let mut generator = output_generator();
    let raw = schema(&mut generator).to_value();
    let defs = generator.take_definitions(true);
    let mut cleaner = Cleaner::new(&defs);
    let mut out = cleaner.clean(raw);
    if let Value::Bool(true) = out {
        out = Value::Object(Map::new());
    }
    if let (Value::Object(obj), Some(defs)) = (&mut out, cleaner.finish()) {
        obj.insert("$defs".into(), Value::Object(defs));
    }
    out
}

/// Cleans a complete schema document (for example one a user wrote by hand or `schema_for!`
/// produced): inlines its `$defs`, applies the hygiene rules and drops the root `$schema`/`title`.
///
/// ```
/// let raw = serde_json::json!({
///     "$schema": "https://json-schema.org/draft/2020-12/schema",
///     "title": "Args",
///     "type": "object",
///     "properties": {"n": {"type": "integer", "format": "uint32", "minimum": 0}},
/// });
/// let clean = toolsmith_spec::schema::clean_document(raw);
/// assert_eq!(clean, serde_json::json!({
///     "type": "object",
///     "properties": {"n": {"type": "integer", "minimum": 0}},
/// }));
/// ```
pub fn clean_document(mut schema: Value) -> Value {
    let defs = match &mut schema {
        Value::Object(obj) => {
            obj.remove("$schema");
            obj.remove("title");
            let mut defs = match obj.remove("$defs") {
                Some(Value::Object(d)) => d,
                _ => Map::new(),
            };
            if let Some(Value::Object(d)) = obj.remove("definitions") {
                defs.extend(d);
            }
            defs
        }
        _ => Map::new(),
    };
    let mut cleaner = Cleaner::new(&defs);
    let mut out = cleaner.clean(schema);
    if let (Value::Object(obj), Some(defs)) = (&mut out, cleaner.finish()) {
        obj.insert("$defs".into(), Value::Object(defs));
    }
    out
}

/// A declared bound laid over the type's own (`u8` has `minimum: 0`, `maximum: 255`): the tighter
/// of the two, so the schema never admits a value the type cannot decode (`maximum = 1000` on a
/// `u8` stays 255).
fn tighter_bound(keyword: &str, existing: Option<&Value>, declared: Value) -> Value {
    let (Some(old), Some(new)) = (existing.and_then(Value::as_f64), declared.as_f64()) else {
        return declared;
    };
    let keep_old = match keyword {
        "minimum" | "exclusiveMinimum" | "minLength" | "minItems" => old > new,
        "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" => old < new,
        _ => false,
    };
    match (keep_old, existing) {
        (true, Some(old)) => old.clone(),
        _ => declared,
    }
}

/// Says what is wrong when a constraint keyword does not fit the schema it is added to.
fn constraint_misfit(param: &str, keyword: &str, schema: &Map<String, Value>) -> Option<String> {
    let needs = match keyword {
        "minLength" | "maxLength" | "pattern" => "string",
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => "number",
        "minItems" | "maxItems" | "uniqueItems" => "array",
        _ => return None,
    };
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        // No type keyword (any JSON, or a union): the constraint applies where it can.
        _ => return None,
    };
    let fits = types
        .iter()
        .any(|t| *t == needs || (needs == "number" && *t == "integer"));
    if fits {
        None
    } else {
        Some(format!(
            "parameter `{param}`: `{keyword}` applies to {needs} values, but the parameter's schema has type {}",
            types.join(" or ")
        ))
    }
}

/// Inlines definitions and applies the hygiene rules, one schema at a time.
struct Cleaner<'d> {
    defs: &'d Map<String, Value>,
    recursive: BTreeSet<String>,
    /// Recursive definitions referenced so far, cleaned.
    kept: Map<String, Value>,
    /// Definitions already cleaned (non-recursive ones, to inline again).
    cache: HashMap<String, Value>,
}

/// The definition a `#/$defs/NAME` or `#/definitions/NAME` reference names.
fn def_name(reference: &str) -> Option<String> {
    walk::def_name(reference).map(|(_, name)| name.into_owned())
}

impl<'d> Cleaner<'d> {
    fn new(defs: &'d Map<String, Value>) -> Self {
        Cleaner {
            defs,
            recursive: recursive_defs(defs),
            kept: Map::new(),
            cache: HashMap::new(),
        }
    }

    /// The recursive definitions the cleaned schemas refer to, if any.
    fn finish(&mut self) -> Option<Map<String, Value>> {
        if self.kept.is_empty() {
            None
        } else {
            Some(std::mem::take(&mut self.kept))
        }
    }

    fn clean(&mut self, schema: Value) -> Value {
        let inlined = self.inline(schema);
        hygiene(inlined)
    }

    fn inline(&mut self, schema: Value) -> Value {
        let Value::Object(mut obj) = schema else {
            return schema;
        };
        if let Some(Value::String(reference)) = obj.get("$ref") {
            if let Some(name) = def_name(reference) {
                if self.recursive.contains(&name) {
                    self.keep(&name);
                    let reference = format!("#/$defs/{}", walk::escape_token(&name));
                    obj.insert("$ref".into(), Value::String(reference));
                } else if let Some(body) = self.inlined_def(&name) {
                    obj.remove("$ref");
                    self.inline_children(&mut obj);
                    return merge_ref(body, obj);
                }
            }
        }
        self.inline_children(&mut obj);
        Value::Object(obj)
    }

    /// Inlines the references of every subschema of `obj`.
    fn inline_children(&mut self, obj: &mut Map<String, Value>) {
        walk::for_each_child_mut(obj, |_, child| {
            let taken = std::mem::take(child);
            *child = self.inline(taken);
        });
    }

    /// The body of a non-recursive definition with its own references inlined.
    fn inlined_def(&mut self, name: &str) -> Option<Value> {
        if let Some(done) = self.cache.get(name) {
            return Some(done.clone());
        }
        let body = self.defs.get(name)?.clone();
        let done = self.inline(body);
        self.cache.insert(name.to_string(), done.clone());
        Some(done)
    }

    fn keep(&mut self, name: &str) {
        if self.kept.contains_key(name) {
            return;
        }
        // Reserve the slot first: the body refers back to itself.
        self.kept.insert(name.to_string(), Value::Null);
        let body = self.defs.get(name).cloned().unwrap_or(Value::Bool(true));
        let cleaned = hygiene(self.inline(body));
        self.kept.insert(name.to_string(), cleaned);
    }
}

/// `{"$ref": X, ...siblings}` becomes X's body with the (inlined) siblings laid over it.
fn merge_ref(body: Value, siblings: Map<String, Value>) -> Value {
    if siblings.is_empty() {
        return body;
    }
    match body {
        Value::Object(mut merged) => {
            merged.extend(siblings);
            Value::Object(merged)
        }
        Value::Bool(true) => Value::Object(siblings),
        other => other,
    }
}

/// The definitions that can reach themselves through `$ref`s.
fn recursive_defs(defs: &Map<String, Value>) -> BTreeSet<String> {
    fn refs_in(v: &Value, out: &mut BTreeSet<String>) {
        walk::visit(v, &walk::Pointer::root(""), &mut |schema, _| {
            if let Some(name) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(def_name)
            {
                out.insert(name);
            }
        });
    }
    let edges: HashMap<&str, BTreeSet<String>> = defs
        .iter()
        .map(|(name, body)| {
            let mut out = BTreeSet::new();
            refs_in(body, &mut out);
            (name.as_str(), out)
        })
        .collect();
    let mut recursive = BTreeSet::new();
    for start in defs.keys() {
        let mut stack: Vec<&str> = edges[start.as_str()].iter().map(String::as_str).collect();
        let mut seen = BTreeSet::new();
        while let Some(next) = stack.pop() {
            if next == start {
                recursive.insert(start.clone());
                break;
            }
            if seen.insert(next) {
                if let Some(more) = edges.get(next) {
                    stack.extend(more.iter().map(String::as_str));
                }
            }
        }
    }
    recursive
}

/// Applies the hygiene rules to one (already inlined) schema, recursively.
fn hygiene(schema: Value) -> Value {
    let Value::Object(mut obj) = schema else {
        return schema;
    };
    obj.remove("$schema");
    if let Some(Value::String(f)) = obj.get("format") {
        if !STANDARD_FORMATS.contains(&f.as_str()) {
            obj.remove("format");
        }
    }
    // Each subschema keyword is taken out and put back cleaned, in the table's order.
    for keyword in walk::KEYWORDS {
        let Some(v) = obj.remove(keyword.name) else {
            continue;
        };
        let v = match (keyword.shape, v) {
            (Shape::Map, Value::Object(m)) => Value::Object(
                m.into_iter()
                    .map(|(k, v)| (k, hygiene(true_to_empty(v))))
                    .collect(),
            ),
            (Shape::Array | Shape::SingleOrArray, Value::Array(items)) => Value::Array(
                items
                    .into_iter()
                    .map(|i| hygiene(true_to_empty(i)))
                    .collect(),
            ),
            (Shape::Single | Shape::SingleOrArray, v @ Value::Object(_)) => hygiene(v),
            (_, other) => other,
        };
        obj.insert(keyword.name.into(), v);
    }
    optional_without_null(&mut obj);
    documented_enum(&mut obj);
    Value::Object(obj)
}

fn true_to_empty(v: Value) -> Value {
    match v {
        Value::Bool(true) => Value::Object(Map::new()),
        other => other,
    }
}

/// Optional properties (not in `required`) are expressed by absence alone: their schemas stop
/// admitting `null` (`type: ["string", "null"]` → `type: "string"`; `anyOf: [X, {"type":"null"}]` → X).
fn optional_without_null(obj: &mut Map<String, Value>) {
    let required: BTreeSet<String> = walk::required(obj).map(String::from).collect();
    let Some(Value::Object(props)) = obj.get_mut("properties") else {
        return;
    };
    for (name, prop) in props.iter_mut() {
        if required.contains(name) {
            continue;
        }
        if let Value::Object(p) = prop {
            strip_null(p);
        }
    }
}

fn is_null_schema(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.len() == 1 && o.get("type") == Some(&Value::String("null".into())))
}

fn strip_null(p: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = p.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            p.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = p.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = p.get_mut(key) {
            let before = branches.len();
            branches.retain(|b| !is_null_schema(b));
            if branches.len() == 1 && before == 2 {
                let Some(Value::Object(inner)) = branches.pop() else {
                    continue;
                };
                p.remove(key);
                // The inner schema's own keys, with the property's annotations on top.
                let outer = std::mem::take(p);
                *p = inner;
                for (k, v) in outer {
                    p.insert(k, v);
                }
            }
        }
    }
}

/// An enum whose variants carry documentation becomes `oneOf: [{const, title}]`.
fn documented_enum(obj: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = obj.get("oneOf") else {
        return;
    };
    let mut consts = Vec::new();
    let mut any_title = false;
    for b in branches {
        let Some(b) = b.as_object() else { return };
        let extra = b.keys().any(|k| {
            !matches!(
                k.as_str(),
                "type" | "const" | "enum" | "description" | "title"
            )
        });
        if extra {
            return;
        }
        let title = b
            .get("description")
            .or_else(|| b.get("title"))
            .and_then(Value::as_str);
        match (b.get("const"), b.get("enum")) {
            (Some(c), None) => {
                any_title |= title.is_some();
                consts.push((c.clone(), title.map(String::from)));
            }
            (None, Some(Value::Array(values))) if title.is_none() => {
                consts.extend(values.iter().map(|v| (v.clone(), None)));
            }
            _ => return,
        }
    }
    if !any_title || consts.is_empty() {
        return;
    }
    let items = consts
        .into_iter()
        .map(|(c, title)| {
            let mut m = Map::new();
            m.insert("const".into(), c);
            if let Some(t) = title {
                m.insert("title".into(), Value::String(t));
            }
            Value::Object(m)
        })
        .collect();
    obj.insert("oneOf".into(), Value::Array(items));
}
