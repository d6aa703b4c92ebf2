//! A lowered document that borrows what the lowering leaves unchanged.
//!
//! Lowering copies a subtree of the canonical spec only where a pass changes it (copy on write);
//! everything else stays a reference into the spec. The result serializes straight to text
//! ([`super::export_text`], the artifact files) or becomes an owned [`Value`] for the callers
//! that want one ([`super::export`]). Both go through serde's data model in the same order, so
//! the text is byte for byte `serde_json::to_string` of the value.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};

/// A JSON node of a lowered document.
#[derive(Debug)]
pub(crate) enum Tree<'a> {
    /// An unchanged subtree of the spec.
    Ref(&'a Value),
    /// A string of the spec (a tool's name, description, title) or a constant.
    Str(&'a str),
    /// A subtree the lowering built or changed.
    Val(Value),
    /// An object whose members are lowered separately, in order.
    Obj(Entries<'a>),
    /// An array whose elements are lowered separately, in order.
    Arr(Vec<Tree<'a>>),
}

/// The members of a [`Tree::Obj`], in order, with the semantics of serde_json's
/// order-preserving `Map` (an insert of a present key replaces its value in place; a removal
/// moves the last member into the gap, as `Map::remove` does).
#[derive(Debug, Default)]
pub(crate) struct Entries<'a>(Vec<(Cow<'a, str>, Tree<'a>)>);

impl<'a> Entries<'a> {
    /// No members, room for `n`.
    pub(crate) fn with_capacity(n: usize) -> Entries<'a> {
        Entries(Vec::with_capacity(n))
    }

    /// Appends the member `key` (which the object does not have yet).
    pub(crate) fn push(&mut self, key: &'a str, value: Tree<'a>) {
        self.0.push((Cow::Borrowed(key), value));
    }

    /// The members of a spec object, each borrowed.
    pub(crate) fn borrowed(map: &'a Map<String, Value>) -> Entries<'a> {
        Entries(
            map.iter()
                .map(|(k, v)| (Cow::Borrowed(k.as_str()), Tree::Ref(v)))
                .collect(),
        )
    }

    /// The members of an owned object, moved in.
    pub(crate) fn owned(map: Map<String, Value>) -> Entries<'a> {
        Entries(
            map.into_iter()
                .map(|(k, v)| (Cow::Owned(k), Tree::Val(v)))
                .collect(),
        )
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.0.iter().position(|(k, _)| k == key)
    }

    /// The member `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Tree<'a>> {
        self.0.iter().find_map(|(k, v)| (k == key).then_some(v))
    }

    /// The member `key`, mutably.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Tree<'a>> {
        self.0.iter_mut().find_map(|(k, v)| (k == key).then_some(v))
    }

    /// The keys, in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    /// The number of members.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The keys as string nodes, in order: a borrowed key stays borrowed.
    pub(crate) fn key_nodes(&self) -> impl Iterator<Item = Tree<'a>> + '_ {
        self.0.iter().map(|(k, _)| match k {
            Cow::Borrowed(k) => Tree::Str(k),
            Cow::Owned(k) => Tree::Val(Value::String(k.clone())),
        })
    }

    /// The members, in order, the values mutably.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut Tree<'a>)> {
        self.0.iter_mut().map(|(k, v)| (&**k, v))
    }

    /// The `properties` member as members of its own (when it is an object) and the
    /// `required` member (when it is an array), at once: the first to change, the second to
    /// read.
    pub(crate) fn properties_and_required(
        &mut self,
    ) -> (Option<&mut Entries<'a>>, Option<&Vec<Value>>) {
        let (mut props, mut required) = (None, None);
        for (k, v) in self.0.iter_mut() {
            match k.as_ref() {
                "properties" if v.is_object() => props = Some(v.make_entries()),
                "required" => {
                    if let Some(Value::Array(r)) = v.value() {
                        required = Some(r);
                    }
                }
                _ => {}
            }
        }
        (props, required)
    }

    /// Whether there is a member `key`.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key` to `value`: in place when present, else at the end.
    pub(crate) fn insert(&mut self, key: impl Into<Cow<'a, str>>, value: Tree<'a>) {
        let key = key.into();
        match self.position(&key) {
            Some(i) => self.0[i].1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// Removes `key` the way serde_json's order-preserving `Map::remove` does: the last member
    /// takes its place.
    pub(crate) fn remove(&mut self, key: &str) -> Option<Tree<'a>> {
        let i = self.position(key)?;
        Some(self.0.swap_remove(i).1)
    }

    /// The owned object.
    pub(crate) fn into_map(self) -> Map<String, Value> {
        self.0
            .into_iter()
            .map(|(k, v)| (k.into_owned(), v.into_value()))
            .collect()
    }
}

impl<'a> Tree<'a> {
    /// An object of `entries`, in order.
    pub(crate) fn object<const N: usize>(entries: [(&'static str, Tree<'a>); N]) -> Tree<'a> {
        Tree::Obj(Entries(
            entries
                .into_iter()
                .map(|(k, v)| (Cow::Borrowed(k), v))
                .collect(),
        ))
    }

    /// The owned value (the borrowed parts cloned).
    pub(crate) fn into_value(self) -> Value {
        match self {
            Tree::Ref(v) => v.clone(),
            Tree::Str(s) => Value::String(s.to_string()),
            Tree::Val(v) => v,
            Tree::Obj(e) => Value::Object(e.into_map()),
            Tree::Arr(a) => Value::Array(a.into_iter().map(Tree::into_value).collect()),
        }
    }

    /// The node as a JSON value, when it is one already (borrowed or built).
    pub(crate) fn value(&self) -> Option<&Value> {
        match self {
            Tree::Ref(v) => Some(v),
            Tree::Val(v) => Some(v),
            Tree::Str(_) | Tree::Obj(_) | Tree::Arr(_) => None,
        }
    }

    /// The members of an object node, to change one by one (the unchanged ones stay
    /// borrowed); any other node becomes an empty object.
    pub(crate) fn make_entries(&mut self) -> &mut Entries<'a> {
        if !matches!(self, Tree::Obj(_)) {
            let t = std::mem::replace(self, Tree::Obj(Entries::default()));
            *self = Tree::Obj(t.into_entries().unwrap_or_default());
        }
        match self {
            Tree::Obj(e) => e,
            _ => unreachable!("made a Tree::Obj above"),
        }
    }

    /// The elements of an array node, to change one by one (the unchanged ones stay
    /// borrowed); `None` for any other node.
    pub(crate) fn make_array(&mut self) -> Option<&mut Vec<Tree<'a>>> {
        match std::mem::replace(self, Tree::Arr(Vec::new())) {
            Tree::Ref(Value::Array(a)) => {
                // Room for one more element: the callers add one (a `null`, a branch).
                let mut elements = Vec::with_capacity(a.len() + 1);
                elements.extend(a.iter().map(Tree::Ref));
                *self = Tree::Arr(elements);
            }
            Tree::Val(Value::Array(a)) => *self = Tree::Arr(a.into_iter().map(Tree::Val).collect()),
            Tree::Arr(a) => *self = Tree::Arr(a),
            other => {
                *self = other;
                return None;
            }
        }
        match self {
            Tree::Arr(a) => Some(a),
            _ => None,
        }
    }

    /// The node as a string, if it is one.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Tree::Ref(v) => v.as_str(),
            Tree::Val(v) => v.as_str(),
            Tree::Str(s) => Some(s),
            Tree::Obj(_) | Tree::Arr(_) => None,
        }
    }

    /// The string member `key` of an object node.
    pub(crate) fn get_str(&self, key: &str) -> Option<&str> {
        match self {
            Tree::Ref(v) => v.get(key).and_then(Value::as_str),
            Tree::Val(v) => v.get(key).and_then(Value::as_str),
            Tree::Obj(e) => e.get(key).and_then(Tree::as_str),
            Tree::Str(_) | Tree::Arr(_) => None,
        }
    }

    /// Whether the node is an object with a member `key`.
    pub(crate) fn has_member(&self, key: &str) -> bool {
        match self {
            Tree::Ref(v) => v.get(key).is_some(),
            Tree::Val(v) => v.get(key).is_some(),
            Tree::Obj(e) => e.contains_key(key),
            Tree::Str(_) | Tree::Arr(_) => false,
        }
    }

    /// Whether the node is an object.
    pub(crate) fn is_object(&self) -> bool {
        match self {
            Tree::Ref(v) => v.is_object(),
            Tree::Val(v) => v.is_object(),
            Tree::Obj(_) => true,
            Tree::Str(_) | Tree::Arr(_) => false,
        }
    }

    /// Whether the node is the boolean `b`.
    pub(crate) fn is_bool(&self, b: bool) -> bool {
        match self {
            Tree::Ref(v) => v.as_bool() == Some(b),
            Tree::Val(v) => v.as_bool() == Some(b),
            _ => false,
        }
    }

    /// Whether the node is a non-empty array.
    pub(crate) fn is_non_empty_array(&self) -> bool {
        match self {
            Tree::Ref(v) => v.as_array().is_some_and(|a| !a.is_empty()),
            Tree::Val(v) => v.as_array().is_some_and(|a| !a.is_empty()),
            Tree::Arr(a) => !a.is_empty(),
            Tree::Str(_) | Tree::Obj(_) => false,
        }
    }

    /// The members of an object node (borrowed members stay borrowed); `Err(self)` for any
    /// other node.
    pub(crate) fn into_entries(self) -> Result<Entries<'a>, Tree<'a>> {
        match self {
            Tree::Obj(e) => Ok(e),
            Tree::Ref(Value::Object(m)) => Ok(Entries::borrowed(m)),
            Tree::Val(Value::Object(m)) => Ok(Entries::owned(m)),
            other => Err(other),
        }
    }

    /// The compact JSON text, as `serde_json::to_string` writes the value.
    pub(crate) fn to_text(&self) -> String {
        // Cannot fail: every key is a string and every leaf a JSON value, written to a String.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// [`Tree::to_text`] of one tool object, written into a buffer with room for a typical
    /// tool (so it is not grown from serde_json's 128 bytes three or four times per tool).
    pub(crate) fn to_tool_text(&self) -> String {
        /// A vendor tool object of the fixtures' size (a handful of documented parameters) is
        /// 550-600 bytes of JSON text; larger ones grow the buffer by doubling, as before.
        const TOOL_TEXT_ROOM: usize = 1024;
        let mut buf = Vec::with_capacity(TOOL_TEXT_ROOM);
        // Cannot fail, as for `to_text`; serde_json writes UTF-8 only.
        match serde_json::to_writer(&mut buf, self) {
            Ok(()) => String::from_utf8(buf).unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// The pretty JSON text, as `serde_json::to_string_pretty` writes the value.
    pub(crate) fn to_pretty_text(&self) -> String {
        // Cannot fail, as for `to_text`.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

impl Serialize for Tree<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Tree::Ref(v) => v.serialize(serializer),
            Tree::Val(v) => v.serialize(serializer),
            Tree::Str(s) => serializer.serialize_str(s),
            Tree::Obj(e) => e.serialize(serializer),
            Tree::Arr(a) => {
                let mut seq = serializer.serialize_seq(Some(a.len()))?;
                for x in a {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
        }
    }
}

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k.as_ref(), v)?;
        }
        map.end()
    }
}
