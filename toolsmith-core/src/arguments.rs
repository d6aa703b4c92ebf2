//! The arguments of a call, as a caller hands them over: parsed JSON or JSON text, owned or
//! borrowed.

use serde_json::Value;

/// The arguments of a call: an already-parsed JSON value (MCP, Anthropic) or JSON text (OpenAI),
/// owned or borrowed.
///
/// Borrowed arguments (`&str`, `&Value`) are not copied: a `#[tool]` whose arguments decode on
/// the typed fast path reads them in place, and the general path copies a borrowed value only
/// because validation fills in defaults. The call's future then borrows them.
#[derive(Debug, Clone)]
pub enum Arguments<'a> {
    /// Parsed JSON.
    Value(Value),
    /// JSON text, parsed by the toolbox.
    Text(String),
    /// Parsed JSON, borrowed.
    ValueRef(&'a Value),
    /// JSON text, borrowed.
    TextRef(&'a str),
}

impl From<Value> for Arguments<'_> {
    fn from(v: Value) -> Self {
        Arguments::Value(v)
    }
}
impl<'a> From<&'a Value> for Arguments<'a> {
    fn from(v: &'a Value) -> Self {
        Arguments::ValueRef(v)
    }
}
impl From<String> for Arguments<'_> {
    fn from(s: String) -> Self {
        Arguments::Text(s)
    }
}
impl<'a> From<&'a str> for Arguments<'a> {
    fn from(s: &'a str) -> Self {
        Arguments::TextRef(s)
    }
}
impl<'a> From<&'a String> for Arguments<'a> {
    fn from(s: &'a String) -> Self {
        Arguments::TextRef(s)
    }
}
