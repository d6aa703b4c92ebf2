//! The guarded decoding of arguments that hold `#[model]` types.
//!
//! serde's derived decoders are more lenient than the schemas schemars generates for the same
//! types, in three ways that matter to the fast path:
//!
//! - a struct ignores fields it does not know, where the input schema closes every object
//!   (`additionalProperties: false`);
//! - a struct also decodes from an array of its field values in order, where the schema says
//!   `"type": "object"`;
//! - a unit variant also decodes from `{"Variant": null}`, where the schema lists strings.
//!
//! [`Guard`] wraps a deserializer (serde_json's over text, or `&Value`) and, at every depth,
//! turns each of these into an error: an ignored value (`deserialize_ignored_any`, which is how a
//! derived struct skips an unknown field), a struct visited as a sequence, and an enum that is
//! not a string. The decoding then fails, and the call falls back to the validator. It never
//! changes a value it lets through, so what decodes is what the general path would decode.

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    Visitor,
};
use std::fmt;

/// The error every refusal of the guard carries (the fast path only sees that decoding failed).
const REFUSED: &str = "not certainly valid against the schema";

/// A deserializer that refuses the inputs serde would accept and the schema may not.
pub(crate) struct Guard<D>(pub(crate) D);

/// A seed whose deserializer is guarded.
struct Seed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(Guard(deserializer))
    }
}

/// A visitor whose nested deserializers, sequences and maps are guarded. `object` is set for a
/// struct, which must then be visited as a map.
struct Visit<V> {
    visitor: V,
    object: bool,
}

impl<V> Visit<V> {
    fn new(visitor: V) -> Self {
        Visit {
            visitor,
            object: false,
        }
    }
}

macro_rules! forward_visits {
    ($($method:ident($t:ty)),* $(,)?) => {$(
        fn $method<E: de::Error>(self, v: $t) -> Result<Self::Value, E> {
            self.visitor.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Visit<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.visitor.expecting(f)
    }

    forward_visits!(
        visit_bool(bool),
        visit_i8(i8),
        visit_i16(i16),
        visit_i32(i32),
        visit_i64(i64),
        visit_i128(i128),
        visit_u8(u8),
        visit_u16(u16),
        visit_u32(u32),
        visit_u64(u64),
        visit_u128(u128),
        visit_f32(f32),
        visit_f64(f64),
        visit_char(char),
        visit_str(&str),
        visit_borrowed_str(&'de str),
        visit_string(String),
        visit_bytes(&[u8]),
        visit_borrowed_bytes(&'de [u8]),
        visit_byte_buf(Vec<u8>),
    );

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visitor.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.visitor.visit_some(Guard(d))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.visitor.visit_newtype_struct(Guard(d))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        if self.object {
            return Err(de::Error::custom(REFUSED));
        }
        self.visitor.visit_seq(Items(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.visitor.visit_map(Entries(map))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        // Neither serde_json nor `&Value` visits an enum outside `deserialize_enum`, which the
        // guard answers itself; anything else is not a form it knows.
        Err(de::Error::custom(REFUSED))
    }
}

/// A guarded sequence.
struct Items<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Items<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// A guarded map.
struct Entries<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Entries<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Seed(seed))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// An enum read from a string only (the schema of a unit-only enum lists strings).
struct VariantName<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for VariantName<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.0.visit_enum(v.into_deserializer())
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.0
            .visit_enum(de::value::BorrowedStrDeserializer::new(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.0.visit_enum(v.into_deserializer())
    }
}

macro_rules! forward_deserialize {
    ($($method:ident),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(Visit::new(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Guard<D> {
    type Error = D::Error;

    forward_deserialize!(
        deserialize_any,
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_option,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier,
    );

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, Visit::new(visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, Visit::new(visitor))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Visit::new(visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_tuple_struct(name, len, Visit::new(visitor))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visit = Visit {
            visitor,
            object: true,
        };
        self.0.deserialize_struct(name, fields, visit)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(VariantName(visitor))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, D::Error> {
        // A derived struct skips a field it does not know this way.
        Err(de::Error::custom(REFUSED))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// Decodes JSON text through the guard (`None` when serde or the guard refuses it).
#[cfg(test)]
pub(crate) fn from_str<T: de::DeserializeOwned>(text: &str) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Guard(&mut de)).ok()?;
    de.end().ok()?;
    Some(value)
}

/// Decodes a parsed value through the guard, without cloning it.
#[cfg(test)]
pub(crate) fn from_value<'de, T: de::Deserialize<'de>>(value: &'de serde_json::Value) -> Option<T> {
    T::deserialize(Guard(value)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Point {
        x: i32,
        tag: Option<Kind>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    enum Kind {
        A,
        B,
    }

    fn both<T: de::DeserializeOwned>(text: &str) -> (Option<T>, Option<T>) {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        (from_str(text), from_value(&value))
    }

    #[test]
    fn lets_through_what_the_schema_allows_unchanged() {
        let (a, b) =
            both::<Vec<Point>>(r#"[{"x": 1, "tag": "B"}, {"x": -2, "tag": null}, {"x": 3}]"#);
        let want = vec![
            Point {
                x: 1,
                tag: Some(Kind::B),
            },
            Point { x: -2, tag: None },
            Point { x: 3, tag: None },
        ];
        assert_eq!(a.as_ref(), Some(&want));
        assert_eq!(b.as_ref(), Some(&want));
        assert_eq!(
            from_str::<Point>(r#" {"x": 1} "#),
            Some(Point { x: 1, tag: None })
        );
    }

    #[test]
    fn refuses_what_serde_alone_would_accept() {
        for text in [
            r#"{"x": 1, "extra": true}"#,
            r#"[1, "A"]"#,
            r#"{"x": 1, "tag": {"A": null}}"#,
        ] {
            assert!(serde_json::from_str::<Point>(text).is_ok(), "{text}");
            assert_eq!(both::<Point>(text), (None, None), "{text}");
        }
        assert_eq!(from_str::<Point>(r#"{"x": 1} x"#), None, "trailing text");
        assert_eq!(from_value::<Point>(&json!({"x": 1, "x2": 2})), None);
    }
}
