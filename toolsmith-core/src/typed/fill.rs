//! Table-driven decoding of a `#[tool]`'s arguments.
//!
//! The macro used to derive serde's `Deserialize` for each tool's argument struct, and each tool
//! then instantiated serde_json's object decoding four times (JSON text and a parsed value, each
//! plain and guarded): most of the code a crate of tools compiled. Now the generated code holds
//! one `Option<T>` per parameter and hands them to [`fill`] as [`Slot`]s; the walk over the
//! object (keys, unknown, repeated and missing parameters) is compiled once, here, and each
//! parameter's value is decoded by a function instantiated once per parameter *type* in the
//! crate, not per tool.
//!
//! What is accepted is what the derived decoder accepted (`deny_unknown_fields`, no repeated
//! key, a missing parameter only when it is optional or has a default), except that the
//! arguments must be a JSON object: the derived decoder also read a struct from an array, which
//! the input schema does not allow and the fast path never let through. The errors name the
//! parameter in serde's own words (`unknown field`, `duplicate field`, `missing field`), and a
//! value's error is serde's for the parameter's type.
//!
//! JSON text is read in one pass: a value of a common type (text, a flag, the usual integers,
//! `f64`, their `Option`s, a list of texts) is decoded in place, and any other value is borrowed
//! as raw text ([`RawValue`]) and decoded from that slice by its parameter's type. A parsed
//! value is walked directly. A `#[model]` parameter is decoded through the guard
//! ([`super::guard`]) when the generated code asks for it.

use super::guard::Guard;
use super::Input;
use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Error, Value};
use std::any::Any;
use std::fmt;

/// The decoder of one parameter's value from JSON text, into its slot.
type TextFn = fn(&str, &mut dyn Any, bool) -> Result<(), Error>;

/// The decoder of one parameter's value from a parsed value, into its slot.
type ValueFn = fn(&Value, &mut dyn Any, bool) -> Result<(), Error>;

/// Where one parameter's decoded value goes: the generated code's `Option<T>`, and how to decode
/// a `T`. Built by generated code, one per parameter, in the order of the names given to
/// [`fill`].
#[doc(hidden)]
pub struct Slot<'a> {
    out: &'a mut dyn Any,
    /// For the common types, decoded straight from the object's text (no raw value between).
    kind: Kind,
    text: TextFn,
    value: ValueFn,
    guarded: bool,
    required: bool,
    filled: bool,
}

impl<'a> Slot<'a> {
    /// The slot of a parameter of type `T`. `guarded`: decode through the guard (a `#[model]`
    /// type, [`super::Fast::GUARDED`]); `required`: the parameter must be sent (neither an
    /// `Option` nor given a default).
    #[inline]
    pub fn new<T: DeserializeOwned + 'static>(
        out: &'a mut Option<T>,
        guarded: bool,
        required: bool,
    ) -> Self {
        Slot {
            out,
            kind: if guarded { Kind::Other } else { kind_of::<T>() },
            text: text::<T>,
            value: value::<T>,
            guarded,
            required,
            filled: false,
        }
    }

    fn take_text(&mut self, name: &'static str, raw: &str) -> Result<(), Error> {
        self.claim(name)?;
        (self.text)(raw, self.out, self.guarded)
    }

    fn take_value(&mut self, name: &'static str, v: &Value) -> Result<(), Error> {
        self.claim(name)?;
        (self.value)(v, self.out, self.guarded)
    }

    fn claim(&mut self, name: &'static str) -> Result<(), Error> {
        if std::mem::replace(&mut self.filled, true) {
            return Err(de::Error::duplicate_field(name));
        }
        Ok(())
    }
}

fn store<T: 'static>(out: &mut dyn Any, v: T) -> Result<(), Error> {
    match out.downcast_mut::<Option<T>>() {
        Some(slot) => {
            *slot = Some(v);
            Ok(())
        }
        // `Slot::new` pairs the slot with its own type's decoders, so this never happens.
        None => Err(de::Error::custom("a parameter's slot has another type")),
    }
}

fn text<T: DeserializeOwned + 'static>(
    raw: &str,
    out: &mut dyn Any,
    guarded: bool,
) -> Result<(), Error> {
    let mut de = serde_json::Deserializer::from_str(raw);
    let v = if guarded {
        T::deserialize(Guard(&mut de))?
    } else {
        T::deserialize(&mut de)?
    };
    store(out, v)
}

fn value<T: DeserializeOwned + 'static>(
    v: &Value,
    out: &mut dyn Any,
    guarded: bool,
) -> Result<(), Error> {
    let v = if guarded {
        T::deserialize(Guard(v))?
    } else {
        T::deserialize(v)?
    };
    store(out, v)
}

/// Decodes the arguments `input` into `slots`, one per name of `names` in the same order.
/// `Err` when the input is not an object, names a parameter that is not in `names` or names
/// one twice, lacks a required one, or a value does not decode as its parameter's type (then
/// the slots hold what was decoded before; the caller drops them). An optional parameter that
/// was not sent leaves its slot `None`.
#[doc(hidden)]
pub fn fill(
    input: Input<'_>,
    names: &'static [&'static str],
    slots: &mut [Slot<'_>],
) -> Result<(), Error> {
    match input {
        Input::Value(Value::Object(map)) => {
            for (key, v) in map {
                let i = index(names, key).ok_or_else(|| de::Error::unknown_field(key, names))?;
                slot(slots, i)?.take_value(names[i], v)?;
            }
        }
        Input::Value(other) => {
            return Err(de::Error::invalid_type(unexpected(other), &Arguments));
        }
        Input::Text(text) => {
            let mut de = serde_json::Deserializer::from_str(text);
            let mut failed = None;
            let args = TextArgs {
                names,
                slots: &mut *slots,
                failed: &mut failed,
            };
            if let Err(e) = de::Deserializer::deserialize_map(&mut de, args) {
                // A value's own error, as its decoder gave it (not re-formatted through the
                // object's deserializer), or the object's.
                return Err(failed.unwrap_or(e));
            }
            de.end()?;
        }
    }
    match slots.iter().position(|s| s.required && !s.filled) {
        Some(i) => Err(de::Error::missing_field(
            names.get(i).copied().unwrap_or("?"),
        )),
        None => Ok(()),
    }
}

/// The slot of the `i`th name (generated code gives one slot per name; should it not, the
/// arguments are refused rather than indexed past the end).
fn slot<'s, 'a>(slots: &'s mut [Slot<'a>], i: usize) -> Result<&'s mut Slot<'a>, Error> {
    slots
        .get_mut(i)
        .ok_or_else(|| de::Error::custom("a parameter has no slot"))
}

/// A required parameter's value ([`fill`] has refused arguments without it, so this is only
/// the generated code's way of taking it out of its slot).
#[doc(hidden)]
#[inline]
pub fn filled<T>(slot: Option<T>, name: &'static str) -> Result<T, Error> {
    slot.ok_or_else(|| de::Error::missing_field(name))
}

fn index(names: &[&str], key: &str) -> Option<usize> {
    names.iter().position(|n| *n == key)
}

fn unexpected(v: &Value) -> de::Unexpected<'_> {
    match v {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(_) => de::Unexpected::Other("number"),
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

/// What the arguments must be, for serde's errors.
struct Arguments;

impl de::Expected for Arguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of arguments")
    }
}

/// The visitor of the arguments' object in JSON text. A value that does not decode stops the
/// walk with a bare error and leaves its own in `failed`.
struct TextArgs<'s, 'a> {
    names: &'static [&'static str],
    slots: &'s mut [Slot<'a>],
    failed: &'s mut Option<Error>,
}

impl<'de> Visitor<'de> for TextArgs<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        de::Expected::fmt(&Arguments, f)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(i) = map.next_key_seed(Key(self.names))? {
            let slot = slot(self.slots, i).map_err(de::Error::custom)?;
            if !matches!(slot.kind, Kind::Other) {
                slot.claim(self.names[i]).map_err(de::Error::custom)?;
                take_common(slot.kind, &mut map, slot.out)?;
                continue;
            }
            let raw: &RawValue = map.next_value()?;
            if let Err(e) = slot.take_text(self.names[i], raw.get()) {
                *self.failed = Some(e);
                return Err(de::Error::custom(""));
            }
        }
        Ok(())
    }
}

/// The common parameter types, which the walk over JSON text decodes in place; any other type
/// is borrowed as raw text and decoded by its slot's function.
macro_rules! common_kinds {
    ($($kind:ident => $t:ty),* $(,)?) => {
        #[derive(Clone, Copy)]
        enum Kind {
            Other,
            $($kind),*
        }

        /// `T`'s kind (decided when the code is compiled: `TypeId`s of known types compare).
        fn kind_of<T: 'static>() -> Kind {
            let t = std::any::TypeId::of::<T>();
            $(if t == std::any::TypeId::of::<$t>() {
                return Kind::$kind;
            })*
            Kind::Other
        }

        /// Decodes the map's next value as `kind`'s type into `out`.
        fn take_common<'de, A: MapAccess<'de>>(kind: Kind, map: &mut A, out: &mut dyn Any) -> Result<(), A::Error> {
            match kind {
                $(Kind::$kind => {
                    let v: $t = map.next_value()?;
                    store(out, v).map_err(de::Error::custom)
                })*
                Kind::Other => Err(de::Error::custom("not a common type")),
            }
        }
    };
}

common_kinds! {
    Text => String,
    Flag => bool,
    U32 => u32,
    U64 => u64,
    Usize => usize,
    I32 => i32,
    I64 => i64,
    F64 => f64,
    OptText => Option<String>,
    OptFlag => Option<bool>,
    OptU32 => Option<u32>,
    OptU64 => Option<u64>,
    OptUsize => Option<usize>,
    OptI32 => Option<i32>,
    OptI64 => Option<i64>,
    OptF64 => Option<f64>,
    Texts => Vec<String>,
}

/// A key of the arguments' object: the index of its parameter.
struct Key(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = usize;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a parameter's name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<usize, E> {
        index(self.0, key).ok_or_else(|| E::unknown_field(key, self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A `#[model]`-like struct: serde's derived decoding skips an unknown field and reads an
    /// array of the field values.
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Point {
        x: i64,
        y: i64,
    }

    const NAMES: &[&str] = &["query", "limit", "at"];

    type Decoded = Result<(String, Option<u32>, Option<Point>), String>;

    /// Decodes `input` the way generated code does for `(query: String, limit: Option<u32>,
    /// at: Option<Point>)`, `at` guarded.
    fn decode(input: Input<'_>) -> Decoded {
        let (mut q, mut l, mut at) = (None::<String>, None::<Option<u32>>, None::<Option<Point>>);
        fill(
            input,
            NAMES,
            &mut [
                Slot::new(&mut q, false, true),
                Slot::new(&mut l, false, false),
                Slot::new(&mut at, true, false),
            ],
        )
        .map_err(|e| e.to_string())?;
        Ok((q.ok_or("no query")?, l.flatten(), at.flatten()))
    }

    fn both(v: Value) -> (Decoded, Decoded) {
        (
            decode(Input::Text(&v.to_string())),
            decode(Input::Value(&v)),
        )
    }

    #[test]
    fn text_and_value_decode_the_same() {
        for v in [
            json!({"query": "tent"}),
            json!({"query": "tent", "limit": 3}),
            json!({"limit": null, "query": "t\u{e9}nt \"x\""}),
            json!({"query": "a", "at": {"x": 1, "y": -2}}),
        ] {
            let (t, val) = both(v.clone());
            assert!(t.is_ok(), "{v}: {t:?}");
            assert_eq!(t, val, "{v}");
        }
        let (t, _) = both(json!({"query": "tent", "limit": 3}));
        assert_eq!(t.unwrap(), ("tent".to_string(), Some(3), None));
    }

    #[test]
    fn refusals_name_the_parameter() {
        let cases = [
            (json!({"limit": 3}), "missing field `query`"),
            (
                json!({"query": "a", "extra": 1}),
                "unknown field `extra`, expected one of `query`, `limit`, `at`",
            ),
            (
                json!({"query": 5}),
                "invalid type: integer `5`, expected a string",
            ),
            (
                json!({"query": "a", "limit": -1}),
                "invalid value: integer `-1`, expected u32",
            ),
            (json!(["a", 1]), "expected an object of arguments"),
            (
                json!({"query": "a", "at": "here"}),
                "invalid type: string \"here\", expected struct Point",
            ),
        ];
        for (v, want) in cases {
            let (t, val) = both(v.clone());
            for got in [t, val] {
                let err = got.unwrap_err();
                assert!(err.contains(want), "{v}: {err}");
            }
        }
    }

    #[test]
    fn a_repeated_key_in_text_is_refused() {
        let err = decode(Input::Text(r#"{"query": "a", "query": "b"}"#)).unwrap_err();
        assert!(err.contains("duplicate field `query`"), "{err}");
        let at = r#"{"x": 1, "y": 2}"#;
        let err = decode(Input::Text(&format!(
            r#"{{"query": "a", "at": {at}, "at": {at}}}"#
        )))
        .unwrap_err();
        assert!(err.contains("duplicate field `at`"), "{err}");
    }

    #[test]
    fn fewer_slots_than_names_is_an_error_not_a_panic() {
        let mut q = None::<String>;
        for input in [
            Input::Text(r#"{"limit": 3}"#),
            Input::Value(&json!({"limit": 3})),
        ] {
            let got = fill(input, NAMES, &mut [Slot::new(&mut q, false, true)]);
            assert!(got.is_err());
        }
    }

    #[test]
    fn common_and_other_types_decode_alike() {
        // `u32` is decoded in place from the object's text, `u16` from its raw text: the same
        // values and the same refusals.
        fn one<T: DeserializeOwned + 'static>(text: &str) -> Result<Option<T>, String> {
            let mut slot = None::<T>;
            fill(
                Input::Text(text),
                &["n"],
                &mut [Slot::new(&mut slot, false, true)],
            )
            .map_err(|e| e.to_string())?;
            Ok(slot)
        }
        for text in [
            r#"{"n": 7}"#,
            r#"{"n": -1}"#,
            r#"{"n": 1.5}"#,
            r#"{"n": "7"}"#,
            r#"{"n": null}"#,
        ] {
            let (a, b) = (one::<u32>(text), one::<u16>(text));
            assert_eq!(a.is_ok(), b.is_ok(), "{text}: {a:?} {b:?}");
            if let (Ok(a), Ok(b)) = (a, b) {
                assert_eq!(a.map(u64::from), b.map(u64::from), "{text}");
            }
        }
        assert!(matches!(kind_of::<u32>(), Kind::U32) && matches!(kind_of::<u16>(), Kind::Other));
    }

    #[test]
    fn trailing_text_and_escaped_keys() {
        assert!(decode(Input::Text(r#"{"query": "a"} x"#)).is_err());
        assert_eq!(
            decode(Input::Text(" {\"qu\\u0065ry\": \"a\"}\n"))
                .unwrap()
                .0,
            "a"
        );
    }

    #[test]
    fn a_guarded_model_refuses_what_its_schema_does() {
        // An unknown field inside the model and the model as an array: serde's derived decoding
        // would take the array; the guard refuses both.
        for v in [
            json!({"query": "a", "at": {"x": 1, "y": 2, "z": 3}}),
            json!({"query": "a", "at": [1, 2]}),
        ] {
            let (t, val) = both(v.clone());
            assert!(t.is_err() && val.is_err(), "{v}");
        }
    }

    /// The derived decoder `fill` replaces, for `(query: String, limit: Option<u32>,
    /// at: Option<Point>, tags: Vec<String>, n: u16)`: the common kinds in place, `Point` and
    /// `u16` through their raw text.
    #[derive(serde::Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Derived {
        query: String,
        limit: Option<u32>,
        at: Option<Point>,
        tags: Vec<String>,
        n: u16,
    }

    fn filled_args(input: Input<'_>) -> Option<Derived> {
        let (mut query, mut limit, mut at, mut tags, mut n) = (None, None, None, None, None);
        fill(
            input,
            &["query", "limit", "at", "tags", "n"],
            &mut [
                Slot::new(&mut query, false, true),
                Slot::new(&mut limit, false, false),
                Slot::new(&mut at, false, false),
                Slot::new(&mut tags, false, true),
                Slot::new(&mut n, false, true),
            ],
        )
        .ok()?;
        Some(Derived {
            query: filled(query, "query").ok()?,
            limit: limit.unwrap_or(None),
            at: at.unwrap_or(None),
            tags: filled(tags, "tags").ok()?,
            n: filled(n, "n").ok()?,
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// On any object of these keys (an unknown one and repeats included) and values of
        /// every JSON type, `fill` accepts exactly what serde's derived decoder accepts, with
        /// the same values, from JSON text and from the parsed value.
        #[test]
        fn fill_decodes_what_the_derived_decoder_decodes(
            base in proptest::prelude::any::<bool>(),
            entries in proptest::collection::vec((0usize..6, 0usize..14), 0..6),
        ) {
            const KEYS: [&str; 6] = ["query", "limit", "at", "tags", "n", "extra"];
            const VALUES: [&str; 14] = [
                r#""tent""#, r#""t\u00e9nt \"x\"""#, "5", "-1", "1.5", "70000", "null", "true",
                "[]", r#"["a", "b"]"#, "[1]", r#"{"x": 1, "y": 2}"#, r#"{"x": 1}"#, "{}",
            ];
            // Half the objects start valid, so acceptance is tried as often as refusal.
            let mut body: Vec<String> = if base {
                vec![r#""query": "a""#.into(), r#""tags": []"#.into(), r#""n": 3"#.into()]
            } else {
                Vec::new()
            };
            body.extend(entries.iter().map(|&(k, v)| format!("{:?}: {}", KEYS[k], VALUES[v])));
            let text = format!("{{{}}}", body.join(", "));
            let derived = serde_json::from_str::<Derived>(&text).ok();
            proptest::prop_assert_eq!(filled_args(Input::Text(&text)), derived, "{}", text);
            let value: Value = serde_json::from_str(&text).unwrap();
            let derived = <Derived as serde::Deserialize>::deserialize(&value).ok();
            proptest::prop_assert_eq!(filled_args(Input::Value(&value)), derived, "{}", text);
        }
    }
}
