//! The values of `#[tool(example(...))]`: read from literals or from JSON text.

use crate::syntax::Class;
use proc_macro2::Span;

/// A value in `#[tool(example(...))]`: a literal, or a list of them, with where it was written.
pub(crate) struct ExampleValue {
    pub kind: ExampleKind,
    pub span: Span,
}

/// What an example value is.
pub(crate) enum ExampleKind {
    Text(String),
    /// A whole number (within JSON's `i64`/`u64` range).
    Integer(i128),
    /// A number with a fraction or an exponent, as written.
    Number(f64),
    Boolean(bool),
    List(Vec<ExampleValue>),
    /// Only in the JSON form: `null`.
    Null,
    /// Only in the JSON form: an object, its members in the order written.
    Object(Vec<(String, ExampleValue)>),
}

impl ExampleValue {
    /// Reads a literal value: a string, a (negative) number, `true`/`false`, or a list `[...]`.
    pub(crate) fn parse(expr: &syn::Expr) -> syn::Result<ExampleValue> {
        use syn::{Expr, Lit};
        let span = syn::spanned::Spanned::span(expr);
        let (neg, inner) = match expr {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => (true, &*u.expr),
            other => (false, other),
        };
        let kind = match inner {
            Expr::Lit(l) => match (&l.lit, neg) {
                (Lit::Str(s), false) => ExampleKind::Text(s.value()),
                (Lit::Bool(b), false) => ExampleKind::Boolean(b.value),
                (Lit::Int(i), _) => {
                    let n: i128 = i.base10_parse()?;
                    let n = if neg { -n } else { n };
                    if n < i128::from(i64::MIN) || n > i128::from(u64::MAX) {
                        return Err(syn::Error::new(
                            span,
                            "this number is outside what JSON tools exchange (64-bit integers)",
                        ));
                    }
                    ExampleKind::Integer(n)
                }
                (Lit::Float(f), _) => {
                    let n: f64 = f.base10_parse()?;
                    ExampleKind::Number(if neg { -n } else { n })
                }
                _ => return Err(not_a_literal(span)),
            },
            Expr::Array(a) if !neg => ExampleKind::List(
                a.elems
                    .iter()
                    .map(ExampleValue::parse)
                    .collect::<syn::Result<_>>()?,
            ),
            _ => return Err(not_a_literal(span)),
        };
        Ok(ExampleValue { kind, span })
    }

    /// The value as JSON.
    pub(crate) fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            ExampleKind::Text(s) => Value::String(s.clone()),
            ExampleKind::Integer(n) => match i64::try_from(*n) {
                Ok(i) => Value::from(i),
                // `parse` keeps integers within `i64::MIN..=u64::MAX`.
                Err(_) => Value::from(u64::try_from(*n).unwrap_or(u64::MAX)),
            },
            ExampleKind::Number(f) => Value::from(*f),
            ExampleKind::Boolean(b) => Value::Bool(*b),
            ExampleKind::List(items) => Value::Array(items.iter().map(Self::to_json).collect()),
            ExampleKind::Null => Value::Null,
            ExampleKind::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// The class of JSON value this is, for matching against a parameter's [`Class`].
    pub(crate) fn class(&self) -> Class {
        match self.kind {
            ExampleKind::Text(_) => Class::Text,
            ExampleKind::Integer(_) => Class::Integer,
            ExampleKind::Number(_) => Class::Number,
            ExampleKind::Boolean(_) => Class::Boolean,
            ExampleKind::List(_) => Class::Array,
            ExampleKind::Null => Class::Null,
            ExampleKind::Object(_) => Class::Object,
        }
    }

    /// How an error message names what the example gives.
    pub(crate) fn noun(&self) -> &'static str {
        match self.kind {
            ExampleKind::Number(_) => "a number with a fraction",
            _ => self.class().noun(),
        }
    }

    /// The value as a number, when it is one.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self.kind {
            ExampleKind::Integer(n) => Some(n as f64),
            ExampleKind::Number(f) => Some(f),
            _ => None,
        }
    }

    /// The value as Rust source would show it in a message (`"tent"`, `2500`, `[1, 2]`).
    pub(crate) fn shown(&self) -> String {
        self.to_json().to_string()
    }
}

/// Reads an example written as JSON text (`example = r#"{...}"#`): every value gets the span of
/// the string literal. A member given twice is an error (serde_json would keep the last).
pub(crate) fn example_from_json(text: &str, span: Span) -> Result<ExampleValue, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde::de::DeserializeSeed::deserialize(JsonExample(span), &mut de)?;
    de.end()?;
    Ok(value)
}

/// Builds an [`ExampleValue`] from JSON, keeping the order of members and refusing repeats.
#[derive(Clone, Copy)]
struct JsonExample(Span);

impl<'de> serde::de::DeserializeSeed<'de> for JsonExample {
    type Value = ExampleValue;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<ExampleValue, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for JsonExample {
    type Value = ExampleValue;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<ExampleValue, E> {
        Ok(self.value(ExampleKind::Boolean(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<ExampleValue, E> {
        Ok(self.value(ExampleKind::Integer(v.into())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<ExampleValue, E> {
        Ok(self.value(ExampleKind::Integer(v.into())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<ExampleValue, E> {
        Ok(self.value(ExampleKind::Number(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<ExampleValue, E> {
        Ok(self.value(ExampleKind::Text(v.to_string())))
    }
    fn visit_unit<E>(self) -> Result<ExampleValue, E> {
        Ok(self.value(ExampleKind::Null))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<ExampleValue, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(self.value(ExampleKind::List(items)))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ExampleValue, A::Error> {
        let mut members: Vec<(String, ExampleValue)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if members.iter().any(|(k, _)| *k == key) {
                return Err(serde::de::Error::custom(format!("`{key}` is given twice")));
            }
            let value = map.next_value_seed(self)?;
            members.push((key, value));
        }
        Ok(self.value(ExampleKind::Object(members)))
    }
}

impl JsonExample {
    fn value(self, kind: ExampleKind) -> ExampleValue {
        ExampleValue { kind, span: self.0 }
    }
}

fn not_a_literal(span: Span) -> syn::Error {
    syn::Error::new(
        span,
        "an example value is a literal: a string, a number, `true` or `false`, or a list `[...]` of them",
    )
}
