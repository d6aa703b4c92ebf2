//! What the macro can tell from syntax alone: the class of a type, an identifier's text.

use syn::{Ident, Type};

/// What the macro can tell about a type from its syntax; constraints are checked against it.
/// For `Other` (user types, aliases) the toolbox checks them against the generated schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Text,
    Integer,
    Number,
    Boolean,
    Array,
    /// Only an example value is one of these two (a type never is).
    Null,
    Object,
    Other,
}

impl Class {
    pub(crate) fn of(ty: &Type) -> Class {
        match ty {
            Type::Array(_) | Type::Slice(_) => Class::Array,
            Type::Paren(p) => Class::of(&p.elem),
            Type::Group(g) => Class::of(&g.elem),
            Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return Class::Other;
                };
                match last.ident.to_string().as_str() {
                    "String" | "str" | "char" | "Cow" => Class::Text,
                    "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32"
                    | "u64" | "u128" | "usize" => Class::Integer,
                    "f32" | "f64" => Class::Number,
                    "bool" => Class::Boolean,
                    "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "IndexSet" | "LinkedList" => {
                        Class::Array
                    }
                    _ => Class::Other,
                }
            }
            _ => Class::Other,
        }
    }

    /// How an error message names the class.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Class::Text => "text",
            Class::Integer => "an integer",
            Class::Number => "a number",
            Class::Boolean => "a boolean",
            Class::Array => "a list",
            Class::Null => "null",
            Class::Object => "an object",
            Class::Other => "another type",
        }
    }
}

/// An identifier's text without a raw prefix (`r#type` → `type`).
pub(crate) fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(String::from).unwrap_or(s)
}
