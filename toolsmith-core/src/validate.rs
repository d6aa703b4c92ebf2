//! Argument validation against the exact schema the model was given.
//!
//! A [`Validator`] is compiled once per tool from its input schema and checks every keyword the
//! schema generator emits (types, `required`, `additionalProperties`, `enum`, `const`, `oneOf`,
//! `anyOf`, `allOf`, string lengths, `pattern`, common `format`s, numeric bounds, `multipleOf`,
//! array sizes, `uniqueItems`, `prefixItems`, local `$ref`s). Where a schema uses a keyword or
//! format outside that set (a user type with a hand-written schema), the compiled checks run
//! first and a full JSON Schema validator (the `jsonschema` crate) checks the rest: that needs
//! the `full-json-schema` feature (toolsmith's feature of the same name). Without it such a schema
//! is refused when its tool is registered, with the keyword's pointer and what to do, rather
//! than left unchecked; keywords outside JSON Schema's vocabularies (`x-order`, `nullable`) and
//! format names it does not define are annotations (JSON Schema 2020-12, sections 6.5 and
//! 7.2.3) and are ignored with or without the feature.
//!
//! Errors name the field by its path (`filters.size`, `items[2].sku`), say what is wrong, quote
//! that parameter's description, and carry a stable code:
//!
//! | code | when |
//! |---|---|
//! | `INVALID_INPUT` | the arguments are not a JSON object |
//! | `MISSING_ARGUMENT` | a required parameter or field is absent |
//! | `UNKNOWN_ARGUMENT` | a parameter or field the schema does not have |
//! | `INVALID_ARGUMENT` | a value of the wrong type or outside a constraint |

use crate::codes::{INVALID_ARGUMENT, INVALID_INPUT, MISSING_ARGUMENT, UNKNOWN_ARGUMENT};
use regex::Regex;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt::Write as _;
use toolsmith_lint::walk::{self, Pass};

/// One problem with the arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError {
    /// Stable code: `INVALID_INPUT`, `MISSING_ARGUMENT`, `UNKNOWN_ARGUMENT` or `INVALID_ARGUMENT`.
    pub code: &'static str,
    /// Where: the parameter's name, or a path into it (`filters.size`, `skus[1]`); empty for the root.
    pub path: String,
    /// The model-facing message.
    pub message: String,
}

/// Error raised when a schema cannot be compiled into a validator.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the schema cannot be used for validation at {pointer}: {reason}")]
pub struct SchemaError {
    /// JSON pointer of the offending part of the schema.
    pub pointer: String,
    /// What is wrong.
    pub reason: String,
}

const T_NULL: u8 = 1;
const T_BOOL: u8 = 2;
const T_INT: u8 = 4;
const T_NUM: u8 = 8;
const T_STR: u8 = 16;
const T_ARR: u8 = 32;
const T_OBJ: u8 = 64;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bound {
    value: f64,
    /// The bound as an exact integer, when it is one (compared exactly with integer values).
    int: Option<i128>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    DateTime,
    Date,
    Time,
    Email,
    Uuid,
    Ipv4,
    Ipv6,
    Hostname,
}

impl Format {
    /// The format a `format` keyword names, if the compiled checks know it.
    fn named(name: &str) -> Option<Format> {
        Some(match name {
            "date-time" => Format::DateTime,
            "date" => Format::Date,
            "time" => Format::Time,
            "email" => Format::Email,
            "uuid" => Format::Uuid,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "hostname" => Format::Hostname,
            _ => return None,
        })
    }
}

#[derive(Debug, Default)]
enum Additional {
    #[default]
    Any,
    Deny,
    Schema(usize),
}

#[derive(Debug, Default)]
struct Node {
    /// Bit set of admitted types; 0 = any.
    types: u8,
    never: bool,
    enum_values: Option<Vec<Value>>,
    const_value: Option<Value>,
    min_len: Option<u64>,
    max_len: Option<u64>,
    pattern: Option<(Regex, String)>,
    format: Option<Format>,
    minimum: Option<Bound>,
    maximum: Option<Bound>,
    excl_min: Option<Bound>,
    excl_max: Option<Bound>,
    multiple_of: Option<f64>,
    items: Option<usize>,
    items_false: bool,
    prefix_items: Vec<usize>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique: bool,
    properties: Vec<(String, usize)>,
    required: Vec<String>,
    additional: Additional,
    one_of: Vec<usize>,
    any_of: Vec<usize>,
    all_of: Vec<usize>,
    reference: Option<usize>,
    description: Option<String>,
    /// A keyword of this schema is left to the full validator (see [`Run::deferred`]).
    partial: bool,
}

/// A validator compiled from one input schema.
#[derive(Debug)]
pub struct Validator {
    nodes: Vec<Node>,
    root: usize,
    #[cfg(feature = "full-json-schema")]
    fallback: Option<jsonschema::Validator>,
}

/// A validator's verdict on valid arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Valid {
    /// The arguments can be decoded as they are.
    AsIs,
    /// Valid, but some integer-typed values were written as floats (`3.0`): the toolbox
    /// rewrites them as integers (`3`) on a copy before decoding.
    NormalizeIntegers,
}

impl Validator {
    /// Compiles a schema.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::validate::Validator;
    /// let schema = serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"max_price": {"type": "number", "description": "Highest price in NOK, e.g. 2500."}},
    ///     "additionalProperties": false
    /// });
    /// let v = Validator::new(&schema).unwrap();
    /// let errors = v.validate(&serde_json::json!({"max_price": "cheap"})).unwrap_err();
    /// assert_eq!(errors[0].message, r#""max_price" must be a number. Highest price in NOK, e.g. 2500."#);
    /// assert_eq!(errors[0].code, "INVALID_ARGUMENT");
    /// ```
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        let mut c = Compiler {
            nodes: Vec::new(),
            defs: HashMap::new(),
            unsupported: None,
            root_doc: schema,
        };
        let root = c.compile(schema, "")?;
        check_reference_cycles(&c.nodes, &c.defs)?;
        #[cfg(not(feature = "full-json-schema"))]
        if let Some((pointer, keyword)) = c.unsupported {
            return Err(SchemaError {
                pointer,
                reason: format!(
                    "{keyword} is checked only by the full JSON Schema validator, which this build leaves out: enable toolsmith's `full-json-schema` feature (toolsmith = {{ version = \"0.1\", features = [\"full-json-schema\"] }}), or describe the value with the keywords the built-in checks compile (type, enum, const, lengths, pattern, the formats date-time, date, time, email, uuid, ipv4, ipv6 and hostname, numeric bounds, multipleOf, array sizes, uniqueItems, prefixItems, properties, required, additionalProperties, oneOf, anyOf, allOf, local $ref)"
                ),
            });
        }
        #[cfg(feature = "full-json-schema")]
        let fallback = if c.unsupported.is_some() {
            // Patterns never reach a backtracking engine: the `regex` crate matches in linear
            // time, and a pattern it cannot run is refused when the tool is registered.
            let v = jsonschema::options()
                .should_validate_formats(true)
                .with_pattern_options(jsonschema::PatternOptions::regex())
                .build(schema)
                .map_err(|e| {
                    let pointer = e.schema_path().to_string();
                    let reason = if pointer.ends_with("/pattern")
                        || pointer.contains("/patternProperties")
                    {
                        format!(
                            "{e}: the pattern needs a backtracking regex engine (look-around or a back-reference), which can take exponential time on a crafted argument, so it is not used; rewrite the pattern without look-around and back-references"
                        )
                    } else {
                        e.to_string()
                    };
                    SchemaError { pointer, reason }
                })?;
            Some(v)
        } else {
            None
        };
        Ok(Validator {
            nodes: c.nodes,
            root,
            #[cfg(feature = "full-json-schema")]
            fallback,
        })
    }

    /// Whether a full JSON Schema validator backs the compiled checks for this schema (never,
    /// without the `full-json-schema` feature: such a schema does not compile).
    pub fn uses_fallback(&self) -> bool {
        #[cfg(feature = "full-json-schema")]
        return self.fallback.is_some();
        #[cfg(not(feature = "full-json-schema"))]
        false
    }

    /// Validates arguments; on failure returns every problem found.
    pub fn validate(&self, args: &Value) -> Result<Valid, Vec<ArgError>> {
        let root = &self.nodes[self.root];
        if !args.is_object() && root.types & T_OBJ != 0 {
            return Err(vec![not_an_object(root)]);
        }
        let mut run = Run::new(self);
        let mut path = String::new();
        run.check(self.root, args, &mut path, None);
        #[cfg(feature = "full-json-schema")]
        if run.errors.is_empty() {
            if let Some(fallback) = &self.fallback {
                run.check_fallback(fallback, args);
            }
        }
        run.note_omitted();
        run.verdict()
    }

    /// The problems [`Validator::validate`] finds in arguments that hold `value` for the
    /// top-level property `name` and are otherwise valid (every other property present is
    /// valid, no required one is missing, no unknown one is sent): those of `value` alone, at
    /// the path `name`. `None` when `value` has none the compiled checks find, or the root
    /// schema checks more than its properties (a reference, a combinator, a fixed value), so
    /// only a whole validation can tell.
    pub(crate) fn parameter_errors(&self, name: &str, value: &Value) -> Option<Vec<ArgError>> {
        let root = &self.nodes[self.root];
        let plain_object = !root.never
            && root.reference.is_none()
            && root.enum_values.is_none()
            && root.const_value.is_none()
            && root.all_of.is_empty()
            && root.any_of.is_empty()
            && root.one_of.is_empty()
            && (root.types == 0 || root.types & T_OBJ != 0);
        if !plain_object {
            return None;
        }
        // As `check_object` checks a known property: at its name, with its own description.
        let &(_, n) = root.properties.iter().find(|(k, _)| k == name)?;
        let mut run = Run::new(self);
        let mut path = name.to_string();
        run.check(n, value, &mut path, None);
        if run.errors.is_empty() {
            return None;
        }
        run.note_omitted();
        run.verdict().err()
    }

    /// Whether the arguments are valid (no messages are built).
    pub fn is_valid(&self, args: &Value) -> bool {
        self.validate(args).is_ok()
    }
}

/// Rewrites every float with an integral value (`3.0`) as an integer, so that it decodes into
/// integer types. Valid for any schema: integers decode into float types too.
pub(crate) fn normalize_integers(value: &mut Value) {
    match value {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
                    *value = Value::from(f as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_integers),
        Value::Object(obj) => obj.values_mut().for_each(normalize_integers),
        _ => {}
    }
}

/// The one problem of arguments that are not a JSON object when the root schema wants one:
/// `INVALID_INPUT`, naming the parameters to send.
fn not_an_object(root: &Node) -> ArgError {
    let names: Vec<&str> = root.properties.iter().map(|(n, _)| n.as_str()).collect();
    let message = if names.is_empty() {
        "The arguments must be a JSON object; this tool takes no parameters, so send {}."
            .to_string()
    } else {
        format!(
            "The arguments must be a JSON object with the parameters {}.",
            quote_list(&names)
        )
    };
    ArgError {
        code: INVALID_INPUT,
        path: String::new(),
        message,
    }
}

#[cfg(feature = "full-json-schema")]
fn pointer_to_path(pointer: &str) -> String {
    let mut out = String::new();
    for seg in pointer.split('/').skip(1) {
        let seg = toolsmith_lint::walk::unescape_token(seg);
        if seg.parse::<usize>().is_ok() && !out.is_empty() {
            let _ = write!(out, "[{seg}]");
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    out
}

/// Whether `key` is a keyword of JSON Schema that constrains a value (2020-12 or an earlier draft)
/// beyond those the compiler reads: a subschema keyword the compiled checks do not walk, or one
/// of the validation vocabulary's other keywords.
fn validation_keyword(key: &str) -> bool {
    walk::keyword(key).is_some_and(|k| k.walked_by(Pass::Validate))
        || matches!(
            key,
            "dependentRequired"
                | "dependencies"
                | "minProperties"
                | "maxProperties"
                | "minContains"
                | "maxContains"
                | "$dynamicRef"
                | "$recursiveRef"
        )
}

/// Whether JSON Schema 2020-12 defines the format `name` (section 7.3); the compiled checks know
/// some of them ([`Format::named`]).
fn defined_format(name: &str) -> bool {
    toolsmith_spec::schema::STANDARD_FORMATS.contains(&name)
}

fn quote_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match quoted.len() {
        0 => String::new(),
        1 => quoted[0].clone(),
        n => format!("{} and {}", quoted[..n - 1].join(", "), quoted[n - 1]),
    }
}

struct Compiler<'s> {
    nodes: Vec<Node>,
    defs: HashMap<String, usize>,
    /// The first keyword left to the full validator: its pointer and how to name it.
    unsupported: Option<(String, String)>,
    root_doc: &'s Value,
}

impl<'s> Compiler<'s> {
    /// Leaves a keyword of `node` (at `here`, described as `what`) to the full validator.
    fn defer(&mut self, node: &mut Node, here: &str, what: impl FnOnce() -> String) {
        if self.unsupported.is_none() {
            self.unsupported = Some((here.to_string(), what()));
        }
        node.partial = true;
    }

    fn compile(&mut self, schema: &'s Value, pointer: &str) -> Result<usize, SchemaError> {
        let idx = self.nodes.len();
        self.nodes.push(Node::default());
        let obj = match schema {
            Value::Bool(true) => return Ok(idx),
            Value::Bool(false) => {
                self.nodes[idx].never = true;
                return Ok(idx);
            }
            Value::Object(obj) => obj,
            _ => {
                return Err(SchemaError {
                    pointer: pointer.to_string(),
                    reason: "a schema must be an object or a boolean".into(),
                })
            }
        };
        let mut node = Node::default();
        for (key, value) in obj {
            let mut here = pointer.to_string();
            walk::push_token(&mut here, key);
            if self.value_keyword(&mut node, key, value, &here)?
                || self.subschema_keyword(&mut node, key, value, &here)?
            {
                continue;
            }
            match key.as_str() {
                // Annotations that do not constrain a value by themselves.
                "title" | "default" | "examples" | "deprecated" | "readOnly" | "writeOnly"
                | "$comment" | "$schema" | "$id" | "$anchor" | "contentEncoding"
                | "contentMediaType" => {}
                // MCP 2026-07-28: the argument travels in a header too; rmcp's transport compares
                // the two, the value itself is constrained by the rest of the schema.
                toolsmith_lint::mcp_fields::HEADER_KEYWORD => {}
                // Definitions: compiled through the references that use them (walk::Pass).
                k if walk::keyword(k).is_some_and(|k| !k.walked_by(Pass::Validate)) => {}
                k if cfg!(feature = "full-json-schema") || validation_keyword(k) => {
                    self.defer(&mut node, &here, || format!("the keyword `{k}`"))
                }
                // Not a keyword of JSON Schema: an annotation (2020-12, section 6.5).
                _ => {}
            }
        }
        if obj.contains_key("patternProperties") {
            // Keys matching a pattern are not additional: leave them, and the pattern schemas,
            // to the full validator.
            node.additional = Additional::Any;
        }
        self.nodes[idx] = node;
        Ok(idx)
    }

    /// Reads a keyword that constrains the value itself (its type, length, bounds, pattern,
    /// format; and its description) into `node`, at `here`; `false` when `key` is none of them.
    fn value_keyword(
        &mut self,
        node: &mut Node,
        key: &str,
        value: &'s Value,
        here: &str,
    ) -> Result<bool, SchemaError> {
        match key {
            "type" => node.types = parse_types(value, here)?,
            "enum" => node.enum_values = Some(as_array(value, here)?.clone()),
            "const" => node.const_value = Some(value.clone()),
            "minLength" => node.min_len = Some(as_u64(value, here)?),
            "maxLength" => node.max_len = Some(as_u64(value, here)?),
            "minItems" => node.min_items = Some(as_u64(value, here)?),
            "maxItems" => node.max_items = Some(as_u64(value, here)?),
            "uniqueItems" => node.unique = value.as_bool().unwrap_or(false),
            "pattern" => {
                let text = value.as_str().ok_or_else(|| SchemaError {
                    pointer: here.to_string(),
                    reason: "pattern must be a string".into(),
                })?;
                match ecma_pattern(text).map(|p| Regex::new(&p)) {
                    Some(Ok(re)) => node.pattern = Some((re, text.to_string())),
                    // An ECMA-262 feature the regex crate lacks: the full validator checks it.
                    _ => self.defer(node, here, || {
                        format!(
                            "the pattern {text:?} (an ECMA-262 construct the regex crate lacks)"
                        )
                    }),
                }
            }
            "format" => match value.as_str().and_then(Format::named) {
                Some(format) => node.format = Some(format),
                // A format JSON Schema defines and the compiled checks do not (`uri`,
                // `duration`); one it does not define is an annotation (2020-12, section 7.2.3),
                // which the full validator ignores too.
                None if cfg!(feature = "full-json-schema")
                    || value.as_str().is_some_and(defined_format) =>
                {
                    self.defer(node, here, || format!("the format {value}"))
                }
                None => {}
            },
            "minimum" => node.minimum = Some(as_bound(value, here)?),
            "maximum" => node.maximum = Some(as_bound(value, here)?),
            "exclusiveMinimum" => node.excl_min = Some(as_bound(value, here)?),
            "exclusiveMaximum" => node.excl_max = Some(as_bound(value, here)?),
            "multipleOf" => {
                let b = as_bound(value, here)?;
                if b.value <= 0.0 {
                    return Err(SchemaError {
                        pointer: here.to_string(),
                        reason: "multipleOf must be greater than 0".into(),
                    });
                }
                node.multiple_of = Some(b.value);
            }
            "description" => node.description = value.as_str().map(String::from),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Compiles a keyword that holds subschemas (items, properties, branches, a reference), or
    /// names the required properties, into `node`, at `here`; `false` when `key` is none of
    /// them.
    fn subschema_keyword(
        &mut self,
        node: &mut Node,
        key: &str,
        value: &'s Value,
        here: &str,
    ) -> Result<bool, SchemaError> {
        match key {
            "items" => match value {
                Value::Bool(false) => node.items_false = true,
                _ => node.items = Some(self.compile(value, here)?),
            },
            "prefixItems" => {
                for (i, s) in as_array(value, here)?.iter().enumerate() {
                    let n = self.compile(s, &format!("{here}/{i}"))?;
                    node.prefix_items.push(n);
                }
            }
            "properties" => {
                let props = value.as_object().ok_or_else(|| SchemaError {
                    pointer: here.to_string(),
                    reason: "properties must be an object".into(),
                })?;
                for (name, s) in props {
                    let mut at = here.to_string();
                    walk::push_token(&mut at, name);
                    let n = self.compile(s, &at)?;
                    node.properties.push((name.clone(), n));
                }
            }
            "required" => {
                node.required = as_array(value, here)?
                    .iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            }
            "additionalProperties" => {
                node.additional = match value {
                    Value::Bool(true) => Additional::Any,
                    Value::Bool(false) => Additional::Deny,
                    other => Additional::Schema(self.compile(other, here)?),
                }
            }
            "oneOf" | "anyOf" | "allOf" => {
                let mut list = Vec::new();
                for (i, s) in as_array(value, here)?.iter().enumerate() {
                    list.push(self.compile(s, &format!("{here}/{i}"))?);
                }
                match key {
                    "oneOf" => node.one_of = list,
                    "anyOf" => node.any_of = list,
                    _ => node.all_of = list,
                }
            }
            "$ref" => {
                let reference = value.as_str().unwrap_or_default();
                node.reference = Some(self.resolve(reference, here)?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn resolve(&mut self, reference: &str, here: &str) -> Result<usize, SchemaError> {
        if let Some(&n) = self.defs.get(reference) {
            return Ok(n);
        }
        let target = walk::ref_pointer(reference)
            .ok()
            .and_then(|p| self.root_doc.pointer(&p))
            .ok_or_else(|| SchemaError {
                pointer: here.to_string(),
                reason: format!("the reference {reference} does not resolve inside the schema"),
            })?;
        // Reserve the node before compiling, so recursive references find it.
        let slot = self.nodes.len();
        self.nodes.push(Node::default());
        self.defs.insert(reference.to_string(), slot);
        let compiled = self.compile(target, reference.trim_start_matches('#'))?;
        self.nodes[slot].reference = Some(compiled);
        Ok(slot)
    }
}

fn parse_types(value: &Value, here: &str) -> Result<u8, SchemaError> {
    let one = |t: &str| -> Result<u8, SchemaError> {
        Ok(match t {
            "null" => T_NULL,
            "boolean" => T_BOOL,
            "integer" => T_INT,
            "number" => T_NUM | T_INT,
            "string" => T_STR,
            "array" => T_ARR,
            "object" => T_OBJ,
            other => {
                return Err(SchemaError {
                    pointer: here.to_string(),
                    reason: format!("unknown type {other:?}"),
                })
            }
        })
    };
    match value {
        Value::String(t) => one(t),
        Value::Array(ts) => ts
            .iter()
            .try_fold(0u8, |acc, t| Ok(acc | one(t.as_str().unwrap_or("?"))?)),
        _ => Err(SchemaError {
            pointer: here.to_string(),
            reason: "type must be a string or an array of strings".into(),
        }),
    }
}

fn as_array<'a>(value: &'a Value, here: &str) -> Result<&'a Vec<Value>, SchemaError> {
    value.as_array().ok_or_else(|| SchemaError {
        pointer: here.to_string(),
        reason: "expected an array".into(),
    })
}

fn as_u64(value: &Value, here: &str) -> Result<u64, SchemaError> {
    value
        .as_u64()
        .or_else(|| {
            value
                .as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                .map(|f| f as u64)
        })
        .ok_or_else(|| SchemaError {
            pointer: here.to_string(),
            reason: "expected a non-negative integer".into(),
        })
}

impl Bound {
    /// The bound an `#[arg(...)]` number compiles to: what the schema's compilation
    /// (`as_bound`) makes of its schema value ([`Num::to_value`](crate::schema::Num::to_value)), without building the value (`None` for a non-finite float,
    /// whose schema value is `null`).
    pub(crate) fn of_num(n: crate::schema::Num) -> Option<Bound> {
        use crate::schema::Num;
        Some(match n {
            Num::Int(i) => Bound {
                value: i as f64,
                int: Some(i128::from(i)),
            },
            Num::UInt(u) => Bound {
                value: u as f64,
                int: Some(i128::from(u)),
            },
            // A float schema value is no integer to `as_bound` (serde_json keeps it a float).
            Num::Float(f) if f.is_finite() => Bound {
                value: f,
                int: None,
            },
            Num::Float(_) => return None,
        })
    }
}

/// Compiles a `pattern` as the validator does (ECMA-262 rewritten for the `regex` crate);
/// `None` when the validator leaves the pattern to the full JSON Schema validator.
pub(crate) fn compile_pattern(text: &str) -> Option<Regex> {
    ecma_pattern(text).and_then(|p| Regex::new(&p).ok())
}

fn as_bound(value: &Value, here: &str) -> Result<Bound, SchemaError> {
    let n = value.as_number().ok_or_else(|| SchemaError {
        pointer: here.to_string(),
        reason: "expected a number".into(),
    })?;
    let int = n
        .as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from));
    Ok(Bound {
        value: n.as_f64().unwrap_or(f64::NAN),
        int,
    })
}

/// One validation pass.
struct Run<'v> {
    v: &'v Validator,
    errors: Vec<ArgError>,
    normalize: bool,
    /// Problems found after [`MAX_ERRORS`] were listed: counted, not described.
    omitted: usize,
    /// The pass checked a schema with a keyword left to the full validator, so "no errors" means
    /// "no errors in the compiled checks" only.
    deferred: bool,
}

/// The most problems one validation describes; the rest are counted in one last message, so
/// hostile arguments (100,000 unknown keys) cannot make the error itself huge.
pub const MAX_ERRORS: usize = 20;

impl<'v> Run<'v> {
    /// An empty pass of validator `v` (allocates nothing until a problem is found).
    #[inline]
    fn new(v: &'v Validator) -> Self {
        Run {
            v,
            errors: Vec::new(),
            normalize: false,
            omitted: 0,
            deferred: false,
        }
    }

    /// Whether the list is full; if so, the problem about to be described is counted instead.
    fn full(&mut self) -> bool {
        if self.errors.len() >= MAX_ERRORS {
            self.omitted += 1;
            true
        } else {
            false
        }
    }
}

fn type_phrase(types: u8) -> String {
    let mut parts = Vec::new();
    if types & T_OBJ != 0 {
        parts.push("an object");
    }
    if types & T_ARR != 0 {
        parts.push("a list");
    }
    if types & T_STR != 0 {
        parts.push("a string");
    }
    if types & T_NUM != 0 {
        parts.push("a number");
    } else if types & T_INT != 0 {
        parts.push("a whole number");
    }
    if types & T_BOOL != 0 {
        parts.push("true or false");
    }
    if types & T_NULL != 0 {
        parts.push("null");
    }
    match parts.len() {
        0 => "nothing".into(),
        1 => parts[0].into(),
        n => format!("{} or {}", parts[..n - 1].join(", "), parts[n - 1]),
    }
}

fn value_types(v: &Value) -> u8 {
    match v {
        Value::Null => T_NULL,
        Value::Bool(_) => T_BOOL,
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() {
                T_INT
            } else if n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                T_INT | T_NUM
            } else {
                T_NUM
            }
        }
        Value::String(_) => T_STR,
        Value::Array(_) => T_ARR,
        Value::Object(_) => T_OBJ,
    }
}

/// JSON Schema equality: numbers compare by value (`1` equals `1.0`).
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// The first item that repeats an earlier one (JSON Schema equality, [`json_eq`]), as
/// `(earlier, later)` indexes. Near-linear: items are bucketed by a hash of a canonical form in
/// which equal numbers (`1`, `1.0`) agree, and only items in one bucket are compared.
fn first_repeat(items: &[Value]) -> Option<(usize, usize)> {
    use std::hash::{BuildHasher, Hasher};
    let state = std::collections::hash_map::RandomState::new();
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::with_capacity(items.len());
    for (j, b) in items.iter().enumerate() {
        let mut h = state.build_hasher();
        hash_canonical(b, &mut h, &state);
        let bucket = buckets.entry(h.finish()).or_default();
        if let Some(&i) = bucket.iter().find(|&&i| json_eq(&items[i], b)) {
            return Some((i, j));
        }
        bucket.push(j);
    }
    None
}

/// Hashes `v` so that values equal under [`json_eq`] hash equally: numbers by their value (an
/// integral float like the integer), objects independent of key order.
/// Entries of objects are hashed with `state` too, so no part of the hash is predictable to
/// whoever writes the arguments (a predictable hash would let them fill one bucket).
fn hash_canonical<H: std::hash::Hasher>(
    v: &Value,
    h: &mut H,
    state: &std::collections::hash_map::RandomState,
) {
    use std::hash::{BuildHasher, Hash};
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => {
            // Numbers equal under `json_eq` have equal f64 values (nearby large integers may
            // share a bucket; `json_eq` tells them apart).
            2u8.hash(h);
            let f = n.as_f64().unwrap_or(0.0);
            let f = if f == 0.0 { 0.0 } else { f };
            f.to_bits().hash(h);
        }
        Value::String(s) => (3u8, s).hash(h),
        Value::Array(items) => {
            (4u8, items.len()).hash(h);
            for i in items {
                hash_canonical(i, h, state);
            }
        }
        Value::Object(map) => {
            // Order-independent: combine the entries' own hashes commutatively.
            (5u8, map.len()).hash(h);
            let mut sum: u64 = 0;
            for (k, i) in map {
                let mut eh = state.build_hasher();
                k.hash(&mut eh);
                hash_canonical(i, &mut eh, state);
                sum = sum.wrapping_add(std::hash::Hasher::finish(&eh));
            }
            sum.hash(h);
        }
    }
}

pub(crate) fn cmp_bound(n: &serde_json::Number, b: &Bound) -> std::cmp::Ordering {
    if let Some(bi) = b.int {
        if let Some(i) = n.as_i64() {
            return i128::from(i).cmp(&bi);
        }
        if let Some(u) = n.as_u64() {
            return i128::from(u).cmp(&bi);
        }
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    f.partial_cmp(&b.value).unwrap_or(std::cmp::Ordering::Equal)
}

fn fmt_num(b: &Bound) -> String {
    match b.int {
        Some(i) => i.to_string(),
        None => b.value.to_string(),
    }
}

impl Run<'_> {
    /// Adds the full validator's problems with `args` (the keywords left to it), each as an
    /// `INVALID_ARGUMENT` naming the path it found.
    #[cfg(feature = "full-json-schema")]
    fn check_fallback(&mut self, fallback: &jsonschema::Validator, args: &Value) {
        for e in fallback.iter_errors(args) {
            if self.full() {
                continue;
            }
            let path = pointer_to_path(&e.instance_path().to_string());
            let message = if path.is_empty() {
                format!("The arguments are invalid: {e}.")
            } else {
                format!("\"{path}\" is invalid: {e}.")
            };
            self.errors.push(ArgError {
                code: INVALID_ARGUMENT,
                path,
                message,
            });
        }
    }

    /// Ends the list with one message counting the problems past [`MAX_ERRORS`], if any.
    fn note_omitted(&mut self) {
        if self.omitted == 0 {
            return;
        }
        let n = self.omitted;
        let code = self.errors.first().map_or(INVALID_ARGUMENT, |e| e.code);
        self.errors.push(ArgError {
            code,
            path: String::new(),
            message: format!(
                "{n} more {} not listed; fix the ones above and send the call again.",
                if n == 1 { "problem is" } else { "problems are" }
            ),
        });
    }

    /// The pass's verdict: valid (as is, or once integers are normalized), or its problems.
    fn verdict(self) -> Result<Valid, Vec<ArgError>> {
        if !self.errors.is_empty() {
            Err(self.errors)
        } else if self.normalize {
            Ok(Valid::NormalizeIntegers)
        } else {
            Ok(Valid::AsIs)
        }
    }

    fn push(&mut self, code: &'static str, path: &str, what: String, desc: Option<&str>) {
        if self.full() {
            return;
        }
        // `"{path}" {what}.` (or `The arguments {what}.`), then the description: written into
        // one string with room for all of it.
        let room = path.len() + what.len() + desc.map_or(0, |d| d.len() + 1) + 16;
        let mut message = String::with_capacity(room);
        if path.is_empty() {
            message.push_str("The arguments ");
        } else {
            message.push('"');
            message.push_str(path);
            message.push_str("\" ");
        }
        message.push_str(&what);
        message.push('.');
        self.errors.push(ArgError {
            code,
            path: path.to_string(),
            message: with_description(message, desc),
        });
    }

    /// Checks `value` against node `n`; `desc` is the nearest parameter/field description.
    fn check(&mut self, n: usize, value: &Value, path: &mut String, desc: Option<&str>) {
        let v = self.v;
        let node = &v.nodes[n];
        let desc = node.description.as_deref().or(desc);
        self.deferred |= node.partial;
        if node.never {
            self.push(INVALID_ARGUMENT, path, "is not allowed here".into(), None);
            return;
        }
        if let Some(r) = node.reference {
            self.check(r, value, path, desc);
        }
        if node.types != 0 {
            let vt = value_types(value);
            if vt & node.types == 0 {
                let what = format!("must be {}", type_phrase(node.types));
                self.push(INVALID_ARGUMENT, path, what, desc);
                return;
            }
            if node.types & T_INT != 0 && node.types & T_NUM == 0 && vt == (T_INT | T_NUM) {
                self.normalize = true;
            }
        }
        if let Some(values) = &node.enum_values {
            if !values.iter().any(|e| json_eq(e, value)) {
                let list: Vec<String> = values.iter().map(Value::to_string).collect();
                let what = format!("must be one of {}", list.join(", "));
                self.push(INVALID_ARGUMENT, path, what, desc);
                return;
            }
        }
        if let Some(c) = &node.const_value {
            if !json_eq(c, value) {
                self.push(INVALID_ARGUMENT, path, format!("must be {c}"), desc);
                return;
            }
        }
        match value {
            Value::String(s) => self.check_string(node, s, path, desc),
            Value::Number(num) => self.check_number(node, num, path, desc),
            Value::Array(items) => self.check_array(node, items, path, desc),
            Value::Object(obj) => self.check_object(node, obj, path, desc),
            _ => {}
        }
        for &s in &node.all_of {
            self.check(s, value, path, desc);
        }
        if !node.any_of.is_empty() {
            self.check_union(&node.any_of, value, path, desc, false);
        }
        if !node.one_of.is_empty() {
            self.check_union(&node.one_of, value, path, desc, true);
        }
    }

    /// `anyOf` (`exactly_one` false) or `oneOf` (true) over `branches`: each branch is checked in
    /// a pass of its own; when none matches, the problems reported are those of the closest form.
    fn check_union(
        &mut self,
        branches: &[usize],
        value: &Value,
        path: &mut String,
        desc: Option<&str>,
        exactly_one: bool,
    ) {
        let tried = self.try_branches(branches, value, path, desc);
        if tried.matched == 0 {
            self.report_no_branch(branches, value, path, desc, tried.best);
        } else if exactly_one && tried.matched > 1 && !one_of_left_to_fallback(tried.exact) {
            self.push(
                INVALID_ARGUMENT,
                path,
                "matches more than one of the allowed forms; make it match exactly one".into(),
                desc,
            );
        } else {
            self.normalize |= tried.normalize;
        }
        self.deferred |= tried.deferred;
    }

    /// Checks `value` against each of `branches` in a pass of its own.
    #[inline]
    fn try_branches(
        &self,
        branches: &[usize],
        value: &Value,
        path: &mut String,
        desc: Option<&str>,
    ) -> Branches {
        let mut tried = Branches::default();
        for &b in branches {
            let mut sub = Run::new(self.v);
            sub.check(b, value, path, desc);
            tried.deferred |= sub.deferred;
            if sub.errors.is_empty() {
                tried.matched += 1;
                tried.exact += usize::from(!sub.deferred);
                tried.normalize |= sub.normalize;
            } else if tried
                .best
                .as_ref()
                .is_none_or(|e| sub.errors.len() < e.len())
            {
                tried.best = Some(sub.errors);
            }
        }
        tried
    }

    /// Reports a value that matches none of `branches`: a union of constants (a documented
    /// enum) as its list of values, a tagged union by its tag, any other by the problems of the
    /// branch with the fewest (`best`).
    fn report_no_branch(
        &mut self,
        branches: &[usize],
        value: &Value,
        path: &mut String,
        desc: Option<&str>,
        best: Option<Vec<ArgError>>,
    ) {
        let v = self.v;
        let consts: Option<Vec<&Value>> = branches
            .iter()
            .map(|&b| v.nodes[b].const_value.as_ref())
            .collect();
        if let Some(consts) = consts {
            let list: Vec<String> = consts.iter().map(|c| c.to_string()).collect();
            let what = format!("must be one of {}", list.join(", "));
            self.push(INVALID_ARGUMENT, path, what, desc);
        } else if let Some(tagged) = discriminate(v, branches, value) {
            self.report_tagged(&tagged, value, path, desc);
        } else if let Some(errors) = best {
            self.errors.extend(errors);
        }
    }

    /// A tagged union (a data-carrying enum) that no branch matched: the tag says which form was
    /// meant, so report that form's problems, or the tag itself when it names none of them.
    fn report_tagged(
        &mut self,
        tagged: &Tagged<'_>,
        value: &Value,
        path: &mut String,
        desc: Option<&str>,
    ) {
        let full = join_path(path, tagged.tag);
        let list: Vec<String> = tagged.values.iter().map(|c| c.to_string()).collect();
        match (tagged.given, tagged.chosen) {
            (None, _) => {
                let message = format!("Provide \"{full}\", one of {}.", list.join(", "));
                self.errors.push(missing_argument(full, message, desc));
            }
            (Some(_), Some(b)) => {
                let mut sub = Run::new(self.v);
                sub.check(b, value, path, desc);
                self.errors.extend(sub.errors);
            }
            (Some(_), None) => {
                let what = format!("must be one of {}", list.join(", "));
                self.push(INVALID_ARGUMENT, &full, what, desc);
            }
        }
    }

    fn check_string(&mut self, node: &Node, s: &str, path: &str, desc: Option<&str>) {
        if node.min_len.is_some() || node.max_len.is_some() {
            let len = s.chars().count() as u64;
            if let Some(min) = node.min_len {
                if len < min {
                    let unit = if min == 1 { "character" } else { "characters" };
                    let what = format!("must be at least {min} {unit} long");
                    self.push(INVALID_ARGUMENT, path, what, desc);
                }
            }
            if let Some(max) = node.max_len {
                if len > max {
                    let what = format!("must be at most {max} characters long; it has {len}");
                    self.push(INVALID_ARGUMENT, path, what, desc);
                }
            }
        }
        if let Some((re, text)) = &node.pattern {
            if !re.is_match(s) {
                let what = format!("must match the pattern {text}");
                self.push(INVALID_ARGUMENT, path, what, desc);
            }
        }
        if let Some(f) = node.format {
            if !format_ok(f, s) {
                let (name, example) = match f {
                    Format::DateTime => ("date-time", "2026-11-30T12:00:00Z"),
                    Format::Date => ("date", "2026-11-30"),
                    Format::Time => ("time", "12:00:00Z"),
                    Format::Email => ("email address", "ada@example.com"),
                    Format::Uuid => ("UUID", "123e4567-e89b-12d3-a456-426614174000"),
                    Format::Ipv4 => ("IPv4 address", "192.0.2.1"),
                    Format::Ipv6 => ("IPv6 address", "2001:db8::1"),
                    Format::Hostname => ("hostname", "example.com"),
                };
                let what = format!("must be a valid {name}, e.g. {example}");
                self.push(INVALID_ARGUMENT, path, what, desc);
            }
        }
    }

    fn check_number(
        &mut self,
        node: &Node,
        num: &serde_json::Number,
        path: &str,
        desc: Option<&str>,
    ) {
        use std::cmp::Ordering::*;
        if let Some(b) = &node.minimum {
            if cmp_bound(num, b) == Less {
                let what = format!("must be at least {}", fmt_num(b));
                self.push(INVALID_ARGUMENT, path, what, desc);
            }
        }
        if let Some(b) = &node.maximum {
            if cmp_bound(num, b) == Greater {
                let what = format!("must be at most {}", fmt_num(b));
                self.push(INVALID_ARGUMENT, path, what, desc);
            }
        }
        if let Some(b) = &node.excl_min {
            if cmp_bound(num, b) != Greater {
                let what = format!("must be greater than {}", fmt_num(b));
                self.push(INVALID_ARGUMENT, path, what, desc);
            }
        }
        if let Some(b) = &node.excl_max {
            if cmp_bound(num, b) != Less {
                let what = format!("must be less than {}", fmt_num(b));
                self.push(INVALID_ARGUMENT, path, what, desc);
            }
        }
        if let Some(m) = node.multiple_of {
            if !is_multiple_of(num, m) {
                let what = format!("must be a multiple of {m}");
                self.push(INVALID_ARGUMENT, path, what, desc);
            }
        }
    }

    fn check_array(&mut self, node: &Node, items: &[Value], path: &mut String, desc: Option<&str>) {
        let len = items.len() as u64;
        if let Some(min) = node.min_items {
            if len < min {
                let unit = if min == 1 { "item" } else { "items" };
                let what = format!("must have at least {min} {unit}; it has {len}");
                self.push(INVALID_ARGUMENT, path, what, desc);
            }
        }
        let max = match (node.max_items, node.items_false) {
            (Some(m), true) => Some(m.min(node.prefix_items.len() as u64)),
            (None, true) => Some(node.prefix_items.len() as u64),
            (m, false) => m,
        };
        if let Some(max) = max {
            if len > max {
                let unit = if max == 1 { "item" } else { "items" };
                let what = format!("must have at most {max} {unit}; it has {len}");
                self.push(INVALID_ARGUMENT, path, what, desc);
            }
        }
        if node.unique {
            if let Some((i, j)) = first_repeat(items) {
                let what =
                    format!("must list distinct items; \"{path}[{j}]\" repeats \"{path}[{i}]\"");
                self.push(INVALID_ARGUMENT, path, what, desc);
            }
        }
        let base = path.len();
        for (i, item) in items.iter().enumerate() {
            let schema = node.prefix_items.get(i).copied().or(node.items);
            if let Some(s) = schema {
                let _ = write!(path, "[{i}]");
                self.check(s, item, path, desc);
                path.truncate(base);
            }
        }
    }

    fn check_object(
        &mut self,
        node: &Node,
        obj: &Map<String, Value>,
        path: &mut String,
        desc: Option<&str>,
    ) {
        self.check_required(node, obj, path);
        let base = path.len();
        for (key, value) in obj {
            let known = node.properties.iter().find(|(n, _)| n == key);
            let schema = match (known, &node.additional) {
                (Some((_, s)), _) => *s,
                (None, Additional::Schema(s)) => *s,
                (None, Additional::Any) => continue,
                (None, Additional::Deny) => {
                    self.push_unknown(node, key, path);
                    continue;
                }
            };
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(key);
            let field_desc = if known.is_some() { None } else { desc };
            self.check(schema, value, path, field_desc);
            path.truncate(base);
        }
    }

    /// A `MISSING_ARGUMENT` for each of `node`'s required properties absent from `obj`, quoting
    /// the property's description.
    #[inline]
    fn check_required(&mut self, node: &Node, obj: &Map<String, Value>, path: &str) {
        for name in &node.required {
            if obj.contains_key(name) || self.full() {
                continue;
            }
            let field_desc = node
                .properties
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, s)| self.v.nodes[*s].description.as_deref());
            let full = join_path(path, name);
            let message = format!("Provide \"{full}\".");
            self.errors
                .push(missing_argument(full, message, field_desc));
        }
    }

    /// An `UNKNOWN_ARGUMENT` for `key` of the object at `path`, which `node` does not admit:
    /// the message lists the names it does.
    fn push_unknown(&mut self, node: &Node, key: &str, path: &str) {
        if self.full() {
            return;
        }
        let names: Vec<&str> = node.properties.iter().map(|(n, _)| n.as_str()).collect();
        let full = join_path(path, key);
        let message = match (path.is_empty(), names.is_empty()) {
            (true, true) => {
                format!("Unknown parameter \"{key}\": this tool takes no parameters, so send {{}}.")
            }
            (true, false) => format!(
                "Unknown parameter \"{key}\". The parameters are {}.",
                quote_list(&names)
            ),
            (false, true) => {
                format!("Unknown field \"{full}\": \"{path}\" takes no fields, so send {{}}.")
            }
            (false, false) => format!(
                "Unknown field \"{full}\". The fields of \"{path}\" are {}.",
                quote_list(&names)
            ),
        };
        self.errors.push(ArgError {
            code: UNKNOWN_ARGUMENT,
            path: full,
            message,
        });
    }
}

/// What checking a value against each branch of a union found.
#[derive(Default)]
struct Branches {
    /// The problems of the branch with the fewest, when some branch did not match.
    best: Option<Vec<ArgError>>,
    /// How many branches matched.
    matched: usize,
    /// Branches that matched with every keyword checked here (none left to the fallback).
    exact: usize,
    /// Some branch has a keyword left to the full validator.
    deferred: bool,
    /// Some matching branch wants integers normalized.
    normalize: bool,
}

/// How an object selects one branch of a union: a property every branch requires with a
/// different `const` (serde's `#[serde(tag = "...")]`).
struct Tagged<'a> {
    tag: &'a str,
    /// The tag values of the branches, in order.
    values: Vec<&'a Value>,
    /// The tag value given, if any.
    given: Option<&'a Value>,
    /// The branch the given tag selects.
    chosen: Option<usize>,
}

fn discriminate<'a>(v: &'a Validator, branches: &[usize], value: &'a Value) -> Option<Tagged<'a>> {
    let obj = value.as_object()?;
    let target = |mut n: usize| {
        while let Some(r) = v.nodes[n].reference {
            n = r;
        }
        &v.nodes[n]
    };
    let first = target(*branches.first()?);
    'candidates: for (tag, _) in &first.properties {
        let mut values: Vec<&Value> = Vec::new();
        for &b in branches {
            let node = target(b);
            if !node.required.iter().any(|r| r == tag) {
                continue 'candidates;
            }
            let Some(c) = node
                .properties
                .iter()
                .find(|(n, _)| n == tag)
                .and_then(|(_, s)| target(*s).const_value.as_ref())
            else {
                continue 'candidates;
            };
            if values.iter().any(|seen| json_eq(seen, c)) {
                continue 'candidates;
            }
            values.push(c);
        }
        let given = obj.get(tag.as_str());
        let chosen = given.and_then(|g| {
            values
                .iter()
                .position(|c| json_eq(c, g))
                .map(|i| branches[i])
        });
        return Some(Tagged {
            tag,
            values,
            given,
            chosen,
        });
    }
    None
}

/// `message`, then the parameter's or field's description `desc` when there is one.
fn with_description(mut message: String, desc: Option<&str>) -> String {
    if let Some(d) = desc {
        message.push(' ');
        message.push_str(d);
    }
    message
}

/// A `MISSING_ARGUMENT` for the absent value at `path`: `message`, then its description.
fn missing_argument(path: String, message: String, desc: Option<&str>) -> ArgError {
    ArgError {
        code: MISSING_ARGUMENT,
        path,
        message: with_description(message, desc),
    }
}

fn join_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Whether `oneOf` branches that matched the compiled checks leave the verdict to the full
/// validator: when fewer than two of them matched with every keyword checked here, a branch that
/// matched only because a keyword (`not`, `minProperties`, a `format` outside the compiled set,
/// ...) was skipped may still fail, so "more than one" is not certain. The full validator always
/// runs for such schemas and decides.
fn one_of_left_to_fallback(exact_matches: usize) -> bool {
    exact_matches < 2
}

/// `multipleOf`: exact for integers, within rounding for decimals, and exact (IEEE remainder)
/// when the quotient overflows (`1e308` against `0.5`).
pub(crate) fn is_multiple_of(num: &serde_json::Number, m: f64) -> bool {
    if let Some(i) = num.as_i64() {
        if m.fract() == 0.0 && m < i64::MAX as f64 {
            return i % (m as i64) == 0;
        }
    }
    let f = num.as_f64().unwrap_or(f64::NAN);
    let q = f / m;
    if q.is_finite() {
        (q - q.round()).abs() < 1e-9
    } else {
        f.is_finite() && f % m == 0.0
    }
}

/// Refuses a schema whose `$ref`s lead back to themselves with nothing in between that descends
/// into the value (only other `$ref`s, `allOf`, `anyOf` or `oneOf`): checking any value against
/// it would never end. The error names the cycle by its references.
fn check_reference_cycles(
    nodes: &[Node],
    defs: &HashMap<String, usize>,
) -> Result<(), SchemaError> {
    // 0: not seen; 1: on the current path; 2: done.
    let mut state = vec![0u8; nodes.len()];
    for start in 0..nodes.len() {
        if state[start] != 0 {
            continue;
        }
        state[start] = 1;
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some((n, i)) = stack.last_mut() {
            let n = *n;
            let step = in_place_step(&nodes[n], *i);
            *i += 1;
            match step {
                None => {
                    state[n] = 2;
                    stack.pop();
                }
                Some(m) if state[m] == 1 => return Err(cycle_error(&stack, m, defs)),
                Some(m) if state[m] == 0 => {
                    state[m] = 1;
                    stack.push((m, 0));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// The `i`th of the nodes that `n` checks the same value against (its `$ref`, then its
/// `allOf`, `anyOf` and `oneOf` branches), if it has that many.
fn in_place_step(n: &Node, i: usize) -> Option<usize> {
    n.reference
        .into_iter()
        .chain(n.all_of.iter().copied())
        .chain(n.any_of.iter().copied())
        .chain(n.one_of.iter().copied())
        .nth(i)
}

/// The error for the cycle that closes where the search `stack` steps back to node `m`: it
/// names the references on the cycle, from the first one back to itself.
fn cycle_error(stack: &[(usize, usize)], m: usize, defs: &HashMap<String, usize>) -> SchemaError {
    let from = stack.iter().position(|(k, _)| *k == m).unwrap_or(0);
    let mut names: Vec<&str> = stack[from..]
        .iter()
        .filter_map(|(k, _)| {
            defs.iter()
                .find(|(_, d)| **d == *k)
                .map(|(r, _)| r.as_str())
        })
        .collect();
    let pointer = names
        .first()
        .map(|r| r.trim_start_matches('#').to_string())
        .unwrap_or_default();
    if let Some(first) = names.first().copied() {
        names.push(first);
    }
    SchemaError {
        pointer,
        reason: format!(
            "the references {} form a cycle with no subschema in between, so checking a value \
             would never end; point one of them at a schema that constrains the value",
            names.join(" → ")
        ),
    }
}

fn format_ok(f: Format, s: &str) -> bool {
    match f {
        Format::Date => is_date(s),
        Format::Time => is_time(s),
        Format::DateTime => match s.find(['T', 't']) {
            Some(i) => is_date(&s[..i]) && is_time(&s[i + 1..]),
            None => false,
        },
        Format::Email => is_email(s),
        Format::Uuid => {
            let b = s.as_bytes();
            b.len() == 36
                && b.iter().enumerate().all(|(i, c)| match i {
                    8 | 13 | 18 | 23 => *c == b'-',
                    _ => c.is_ascii_hexdigit(),
                })
        }
        Format::Ipv4 => {
            s.parse::<std::net::Ipv4Addr>().is_ok()
                && !s.split('.').any(|p| p.len() > 1 && p.starts_with('0'))
        }
        Format::Ipv6 => s.parse::<std::net::Ipv6Addr>().is_ok(),
        Format::Hostname => is_hostname(s),
    }
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = &s[r];
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

fn is_time(s: &str) -> bool {
    // hh:mm:ss[.frac](Z|±hh:mm)
    let b = s.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let two = |i: usize| -> Option<u32> {
        let p = s.get(i..i + 2)?;
        p.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| p.parse().ok())?
    };
    let (Some(h), Some(m), Some(sec)) = (two(0), two(3), two(6)) else {
        return false;
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    // A leap second is 23:59:60 in UTC.
    let leap_ok = |offset_minutes: i32| {
        let utc = (h as i32 * 60 + m as i32 - offset_minutes).rem_euclid(24 * 60);
        sec < 60 || utc == 23 * 60 + 59
    };
    let mut rest = &s[8..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        rest = &frac[digits..];
    }
    match rest {
        "Z" | "z" => leap_ok(0),
        _ => {
            let rb = rest.as_bytes();
            if rb.len() != 6 || !(rb[0] == b'+' || rb[0] == b'-') || rb[3] != b':' {
                return false;
            }
            let (Some(oh), Some(om)) = (two_digits(&rest[1..3]), two_digits(&rest[4..6])) else {
                return false;
            };
            let sign = if rb[0] == b'-' { -1 } else { 1 };
            oh <= 23 && om <= 59 && leap_ok(sign * (oh as i32 * 60 + om as i32))
        }
    }
}

fn two_digits(s: &str) -> Option<u32> {
    s.bytes()
        .all(|c| c.is_ascii_digit())
        .then(|| s.parse().ok())?
}

/// RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens. Labels with
/// `--` in the third and fourth positions are reserved for IDNA A-labels (`xn--`, RFC 5891).
fn is_hostname(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
                && !(b.len() >= 4 && &b[2..4] == b"--" && !b[..2].eq_ignore_ascii_case(b"xn"))
        })
        && a_labels_ok(s)
}

/// Labels starting `xn--` (any case: host names are case-insensitive, RFC 5890 section 2.3.2.1)
/// are A-labels (RFC 5891): their Punycode must decode to a valid Unicode label, one without
/// `--` in its third and fourth positions and with IDNA 2008 code points and contextual rules
/// (RFC 5892). The `jsonschema` crate's hostname format implements the code point rules; it is
/// asked only about such labels, compiled once. Without the `full-json-schema` feature the
/// Punycode, the position rule and a label of more than ASCII without control characters or
/// spaces are checked, not IDNA's code point tables.
fn a_labels_ok(s: &str) -> bool {
    s.split('.')
        .filter(|l| l.len() >= 4 && l[..4].eq_ignore_ascii_case("xn--"))
        .all(|label| {
            let Some(decoded) = decode_punycode(&label[4..]) else {
                return false;
            };
            !decoded.chars().skip(2).take(2).eq("--".chars())
                && code_points_ok(&label[4..], &decoded)
        })
}

/// IDNA 2008's code point and contextual rules for the A-label whose Punycode is `punycode` and
/// which decodes to `decoded`, by the `jsonschema` crate's hostname format (compiled once).
#[cfg(feature = "full-json-schema")]
fn code_points_ok(punycode: &str, _decoded: &str) -> bool {
    static CHECK: std::sync::OnceLock<Option<jsonschema::Validator>> = std::sync::OnceLock::new();
    CHECK
        .get_or_init(|| {
            jsonschema::options()
                .should_validate_formats(true)
                .build(&serde_json::json!({"format": "hostname"}))
                .ok()
        })
        .as_ref()
        .is_some_and(|v| v.is_valid(&Value::String(format!("xn--{punycode}"))))
}

/// Without the full validator: an A-label encodes something beyond ASCII, and no control
/// character or space.
#[cfg(not(feature = "full-json-schema"))]
fn code_points_ok(_punycode: &str, decoded: &str) -> bool {
    !decoded.is_ascii() && !decoded.chars().any(|c| c.is_control() || c.is_whitespace())
}

/// Decodes the Punycode of an A-label after its `xn--` prefix (RFC 3492 section 6.2); `None`
/// when it is not valid Punycode.
fn decode_punycode(input: &str) -> Option<String> {
    const BASE: u32 = 36;
    const TMIN: u32 = 1;
    const TMAX: u32 = 26;
    let adapt = |mut delta: u32, count: u32, first: bool| {
        delta /= if first { 700 } else { 2 };
        delta += delta / count;
        let mut k = 0;
        while delta > ((BASE - TMIN) * TMAX) / 2 {
            delta /= BASE - TMIN;
            k += BASE;
        }
        k + ((BASE - TMIN + 1) * delta) / (delta + 38)
    };
    let (basic, encoded) = match input.rfind('-') {
        Some(p) if p > 0 => (&input[..p], &input[p + 1..]),
        _ => ("", input),
    };
    if !basic.is_ascii() {
        return None;
    }
    let mut out: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (128u32, 0u32, 72u32);
    let mut digits = encoded.bytes();
    while digits.len() > 0 {
        let old = i;
        let mut w = 1u32;
        let mut k = BASE;
        loop {
            let digit = match digits.next()? {
                c @ b'a'..=b'z' => u32::from(c - b'a'),
                c @ b'A'..=b'Z' => u32::from(c - b'A'),
                c @ b'0'..=b'9' => u32::from(c - b'0') + 26,
                _ => return None,
            };
            i = i.checked_add(digit.checked_mul(w)?)?;
            let t = if k <= bias {
                TMIN
            } else if k >= bias + TMAX {
                TMAX
            } else {
                k - bias
            };
            if digit < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let count = u32::try_from(out.len()).ok()? + 1;
        bias = adapt(i - old, count, old == 0);
        n = n.checked_add(i / count)?;
        i %= count;
        out.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(out.into_iter().collect())
}

/// An RFC 5321 mailbox: a dot-atom or quoted local part (ASCII; `idn-email` is the format for
/// non-ASCII ones), `@`, and a host name or an address literal (`[192.0.2.1]`, `[IPv6:::1]`).
fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c);
    let local_ok = if local.len() >= 2 && local.starts_with('"') && local.ends_with('"') {
        let mut chars = local[1..local.len() - 1].chars();
        let mut ok = true;
        while let Some(c) = chars.next() {
            ok &= match c {
                '\\' => chars.next().is_some_and(|e| ('\x21'..='\x7e').contains(&e)),
                ' ' | '\t' | '\x21' | '\x23'..='\x5b' | '\x5d'..='\x7e' => true,
                _ => false,
            };
        }
        ok
    } else {
        !local.is_empty()
            && local
                .split('.')
                .all(|a| !a.is_empty() && a.chars().all(atext))
    };
    if !local_ok || local.len() > 64 {
        return false;
    }
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => {
                literal[5..].parse::<std::net::Ipv6Addr>().is_ok()
            }
            _ => literal.parse::<std::net::Ipv4Addr>().is_ok(),
        },
        None => is_hostname(domain),
    }
}

/// Rewrites an ECMA-262 pattern (the dialect JSON Schema uses) for the `regex` crate, whose
/// classes are Unicode-aware: in ECMA-262, `\d` is `[0-9]`, `\w` is `[A-Za-z0-9_]` (so `\b`
/// is an ASCII word boundary), and `\s` is its own whitespace set. `None` for a construct that
/// reads differently in the two dialects and cannot be rewritten (an empty class `[]`, `[^]`).
fn ecma_pattern(pattern: &str) -> Option<String> {
    const DIGIT: &str = "0-9";
    const WORD: &str = "0-9A-Za-z_";
    const SPACE: &str = "\\t\\n\\x0B\\x0C\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
    let mut out = String::with_capacity(pattern.len());
    let mut in_class = false;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let set = match e {
                    'd' | 'D' => Some(DIGIT),
                    'w' | 'W' => Some(WORD),
                    's' | 'S' => Some(SPACE),
                    _ => None,
                };
                match (set, e.is_ascii_uppercase(), in_class) {
                    (Some(set), false, true) => out.push_str(set),
                    (Some(set), false, false) => {
                        let _ = write!(out, "[{set}]");
                    }
                    // A negated class, nested (the regex crate allows classes inside classes).
                    (Some(set), true, _) => {
                        let _ = write!(out, "[^{set}]");
                    }
                    (None, _, false) if e == 'b' || e == 'B' => {
                        let _ = write!(out, "(?-u:\\{e})");
                    }
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                if chars.clone().next() == Some('^') {
                    out.push('^');
                    chars.next();
                }
                // A leading `]` is an empty class in ECMA-262 but a literal in the regex crate.
                if chars.clone().next() == Some(']') {
                    return None;
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    Some(out)
}

/// Removes `null` values of optional properties from call arguments, recursively: the host side
/// of OpenAI strict mode, where an optional parameter is nullable and `null` means absent.
///
/// `input_schema` is the canonical schema (the one the runtime validates against); a property
/// counts as optional when it is not in its object's `required`. Local `$ref`s are followed.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use serde_json::json;
/// let schema = json!({"type": "object", "properties": {"q": {"type": "string"},
///     "limit": {"type": "integer"}}, "required": ["q"], "additionalProperties": false});
/// let mut args = json!({"q": "shoes", "limit": null});
/// toolsmith::validate::strip_null_optionals(&schema, &mut args);
/// assert_eq!(args, json!({"q": "shoes"}));
/// ```
pub fn strip_null_optionals(input_schema: &Value, args: &mut Value) {
    fn walk(root: &Value, schema: &Value, value: &mut Value, depth: usize) {
        if depth > 64 {
            return;
        }
        let schema = toolsmith_lint::walk::follow_refs(root, schema).unwrap_or(schema);
        match value {
            Value::Object(map) => {
                let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                    return;
                };
                let required: Vec<&str> = schema
                    .as_object()
                    .map(|s| toolsmith_lint::walk::required(s).collect())
                    .unwrap_or_default();
                map.retain(|k, v| {
                    !(v.is_null() && props.contains_key(k) && !required.contains(&k.as_str()))
                });
                for (k, v) in map.iter_mut() {
                    if let Some(s) = props.get(k) {
                        walk(root, s, v, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(s) = schema.get("items") {
                    for v in items {
                        walk(root, s, v, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
    walk(input_schema, input_schema, args, 0);
}

#[cfg(test)]
mod tests {
    use super::{as_bound, Bound};
    use crate::schema::Num;

    /// The typed fast path compiles `#[arg(...)]` bounds with `Bound::of_num`, the schema's
    /// compilation reads their schema values: both must give the same bound.
    #[test]
    fn an_arg_bound_compiles_as_its_schema_value_does() {
        let nums = [
            Num::Int(i64::MIN),
            Num::Int(-1),
            Num::UInt(0),
            Num::UInt(100_000),
            Num::UInt(u64::from(u32::MAX) + 1),
            Num::UInt(u64::MAX),
            Num::Float(0.5),
            Num::Float(-2.25),
            Num::Float(3.0),
            Num::Float(1e300),
            Num::Float(f64::NAN),
            Num::Float(f64::INFINITY),
        ];
        for n in nums {
            assert_eq!(Bound::of_num(n), as_bound(&n.to_value(), "").ok(), "{n:?}");
        }
    }
}
