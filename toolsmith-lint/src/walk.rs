//! The one schema walker of the workspace: the table of subschema keywords, a read-only and a
//! mutable visitor over it, the local `$ref` resolver and JSON-pointer escaping.
//!
//! Every pass that walks a JSON Schema (cleaning and closing objects in `toolsmith-spec::schema`, the
//! export lowering, the lint rules, the validator's compiler, the CLI's schema diff) reads the
//! keyword list from [`KEYWORDS`]. A pass that deliberately leaves some keywords alone lists
//! itself in their [`Keyword::skipped_by`], with the reason in [`Pass`]'s rustdoc; the
//! keyword-reach test (`toolsmith-core/tests/it/keyword_reach.rs`; the diff's own in `toolsmith-cli/src/diff.rs`)
//! checks that every other keyword is reached by every pass.
//!
//! Pointers are built lazily: the visitors hand out a [`Pointer`], a chain of borrowed steps on
//! the stack, which becomes a string (escaped per RFC 6901) only when a pass needs one.
//!
//! ```
//! use toolsmith_lint::walk::{self, Pointer};
//! let schema = serde_json::json!({"properties": {"a/b": {"items": {"type": "string"}}}});
//! let mut seen = Vec::new();
//! walk::visit(&schema, &Pointer::root("/inputSchema"), &mut |_, ptr| seen.push(ptr.to_string()));
//! assert_eq!(seen, ["/inputSchema", "/inputSchema/properties/a~1b", "/inputSchema/properties/a~1b/items"]);
//! ```

use std::borrow::Cow;
use std::fmt::{self, Write as _};

use serde_json::{Map, Value};

/// How a keyword holds its subschemas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One subschema (`not`, `additionalProperties`).
    Single,
    /// An array of subschemas (`anyOf`, `prefixItems`).
    Array,
    /// One subschema, or (draft 2019-09 and earlier tuples) an array of them: `items`.
    SingleOrArray,
    /// An object whose values are subschemas (`properties`, `$defs`).
    Map,
}

/// What a keyword's subschemas describe, relative to the instance the parent describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The same instance (`allOf`, `not`, `if`, `dependentSchemas`).
    InPlace,
    /// Members of the instance: array items or object property values.
    Member,
    /// The instance's property names (`propertyNames`): string schemas.
    Names,
    /// No instance: definitions, reached through `$ref` where they are used.
    Definitions,
}

/// A pass over schemas, as named in [`Keyword::skipped_by`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Inlining definitions and the hygiene rules (`toolsmith-spec::schema`): reaches every keyword.
    Clean,
    /// Closing input objects with `additionalProperties: false` (`toolsmith-spec::schema`). It leaves
    /// `not`, `if`, `then`, `else` and `dependentSchemas` open: they describe the same instance
    /// as their parent (a condition, a negation or an addition to the parent's fields), so
    /// closing them would reject the parent's own fields or turn a negation around. (`allOf`,
    /// `anyOf` and `oneOf` branches are closed; their parent stays open instead.)
    Close,
    /// The export lowering (`toolsmith-spec::export`): reaches every keyword, except that a target
    /// may move a keyword into the description text instead of walking it (its profile's list),
    /// and a boolean `additionalProperties` has nothing to lower.
    Lower,
    /// The lint rules over every subschema (descriptions, enums, hidden text): reach every
    /// keyword.
    LintSchemas,
    /// The lint rules over fields (names, descriptions of properties): every keyword, except
    /// that definitions are visited through the `$ref`s that use them, so that each field is
    /// reported once and definitions nobody uses are not reported.
    LintFields,
    /// The validator's compiler (`toolsmith-core::validate`): definitions are compiled through the
    /// `$ref`s that use them, and `additionalItems` (with the array form of `items`) belongs to
    /// drafts before 2020-12, the dialect the validator checks (where `additionalItems` is no
    /// keyword and `items` is one schema); every other keyword is checked, by the compiled
    /// checks or the full validator behind them.
    Validate,
    /// The CLI's schema diff (`toolsmith diff`), which classifies each change by whether calls
    /// made to the old schema still work. It compares `properties` (each property removed,
    /// added, newly required or optional, and its schema) and the one-schema form of `items`;
    /// every other keyword is skipped, and so is the array form of `items`: the diff has no
    /// rule yet for what a change under them does to old calls, so it reports none there.
    Diff,
}

/// One keyword whose value holds subschemas.
#[derive(Clone, Copy, Debug)]
pub struct Keyword {
    /// The keyword as written.
    pub name: &'static str,
    /// How it holds its subschemas.
    pub shape: Shape,
    /// What its subschemas describe.
    pub role: Role,
    /// The passes that deliberately do not walk into it (see [`Pass`] for each one's reason).
    pub skipped_by: &'static [Pass],
}

const fn kw(name: &'static str, shape: Shape, role: Role, skipped_by: &'static [Pass]) -> Keyword {
    Keyword {
        name,
        shape,
        role,
        skipped_by,
    }
}

const DEFS_SKIPPED: &[Pass] = &[Pass::LintFields, Pass::Validate, Pass::Diff];
const SAME_INSTANCE: &[Pass] = &[Pass::Close, Pass::Diff];
const DIFF_SKIPPED: &[Pass] = &[Pass::Diff];

/// Writes [`KEYWORDS`] and [`keyword`] from one list, so that the lookup rejects every other
/// key with one `match` (most keys of a schema are no subschema keyword).
macro_rules! keyword_table {
    ($($name:literal: $shape:ident, $role:ident, $skipped_by:expr;)*) => {
        /// Every JSON Schema 2020-12 keyword (and the draft-07 `definitions`, `additionalItems`
        /// and array `items`) whose value holds subschemas. The order is the one the cleaner
        /// rewrites them in: maps, then single subschemas, then arrays.
        pub static KEYWORDS: &[Keyword] = &[
            $(kw($name, Shape::$shape, Role::$role, $skipped_by),)*
        ];

        /// The keyword named `name`, if its value holds subschemas.
        ///
        /// ```
        /// use toolsmith_lint::walk::{keyword, Shape};
        /// assert_eq!(keyword("anyOf").map(|k| k.shape), Some(Shape::Array));
        /// assert!(keyword("description").is_none());
        /// ```
        pub fn keyword(name: &str) -> Option<&'static Keyword> {
            match name {
                $($name)|* => KEYWORDS.iter().find(|k| k.name == name),
                _ => None,
            }
        }
    };
}

keyword_table! {
    "properties": Map, Member, &[];
    "patternProperties": Map, Member, DIFF_SKIPPED;
    "$defs": Map, Definitions, DEFS_SKIPPED;
    "definitions": Map, Definitions, DEFS_SKIPPED;
    "dependentSchemas": Map, InPlace, SAME_INSTANCE;
    "items": SingleOrArray, Member, &[];
    "additionalProperties": Single, Member, DIFF_SKIPPED;
    "not": Single, InPlace, SAME_INSTANCE;
    "if": Single, InPlace, SAME_INSTANCE;
    "then": Single, InPlace, SAME_INSTANCE;
    "else": Single, InPlace, SAME_INSTANCE;
    "contains": Single, Member, DIFF_SKIPPED;
    "propertyNames": Single, Names, DIFF_SKIPPED;
    "additionalItems": Single, Member, &[Pass::Validate, Pass::Diff];
    "unevaluatedItems": Single, Member, DIFF_SKIPPED;
    "unevaluatedProperties": Single, Member, DIFF_SKIPPED;
    "prefixItems": Array, Member, DIFF_SKIPPED;
    "oneOf": Array, InPlace, DIFF_SKIPPED;
    "anyOf": Array, InPlace, DIFF_SKIPPED;
    "allOf": Array, InPlace, DIFF_SKIPPED;
}

impl Keyword {
    /// Whether `pass` walks into this keyword.
    pub fn walked_by(&self, pass: Pass) -> bool {
        !self.skipped_by.contains(&pass)
    }
}

/// Where a subschema sits inside its parent: the keyword, and the member name or index.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    /// The keyword that holds the subschema.
    pub keyword: &'static Keyword,
    /// The member under the keyword, for maps and arrays.
    pub member: Member<'a>,
}

/// The member of a keyword's value that a subschema is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Member<'a> {
    /// The keyword's value itself.
    Whole,
    /// The value at this name of a map keyword.
    Name(&'a str),
    /// The value at this index of an array keyword.
    Index(usize),
}

/// A JSON pointer under construction: a chain of steps borrowed from the walk, rendered (and
/// escaped) only when displayed.
#[derive(Clone, Copy, Debug)]
pub enum Pointer<'a> {
    /// The pointer of the walk's root, already escaped (`""` or `/inputSchema`).
    Root(&'a str),
    /// One reference token (unescaped) below a parent.
    Token(&'a Pointer<'a>, &'a str),
    /// One array index below a parent.
    Index(&'a Pointer<'a>, usize),
    /// A subschema's step below its parent schema.
    Step(&'a Pointer<'a>, Step<'a>),
}

impl<'a> Pointer<'a> {
    /// The pointer of a walk's root.
    pub const fn root(escaped: &'a str) -> Self {
        Pointer::Root(escaped)
    }

    /// The pointer of one token below this one.
    pub fn token(&'a self, token: &'a str) -> Pointer<'a> {
        Pointer::Token(self, token)
    }

    /// The pointer of a subschema at `step` below this one.
    pub fn step(&'a self, step: Step<'a>) -> Pointer<'a> {
        Pointer::Step(self, step)
    }

    /// Appends the pointer, escaped, to `out`: the text of its `Display`, written without the
    /// formatting machinery.
    ///
    /// ```
    /// use toolsmith_lint::walk::Pointer;
    /// let root = Pointer::root("/inputSchema");
    /// let (a, b) = (root.token("a/b"), root.token("c"));
    /// let mut out = String::new();
    /// Pointer::Index(&a, 3).write_to(&mut out);
    /// assert_eq!(out, "/inputSchema/a~1b/3");
    /// assert_eq!(b.to_string(), "/inputSchema/c");
    /// ```
    pub fn write_to(&self, out: &mut String) {
        match self {
            Pointer::Root(s) => out.push_str(s),
            Pointer::Token(parent, t) => {
                parent.write_to(out);
                push_token(out, t);
            }
            Pointer::Index(parent, i) => {
                parent.write_to(out);
                push_index(out, *i);
            }
            Pointer::Step(parent, step) => {
                parent.write_to(out);
                push_token(out, step.keyword.name);
                match step.member {
                    Member::Whole => {}
                    Member::Name(n) => push_token(out, n),
                    Member::Index(i) => push_index(out, i),
                }
            }
        }
    }

    /// The pointer as a string: [`Pointer::write_to`] into a new one.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(64);
        self.write_to(&mut out);
        out
    }
}

impl fmt::Display for Pointer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pointer::Root(s) => f.write_str(s),
            Pointer::Token(parent, t) => write!(f, "{parent}/{}", escape_token(t)),
            Pointer::Index(parent, i) => write!(f, "{parent}/{i}"),
            Pointer::Step(parent, step) => {
                write!(f, "{parent}/{}", escape_token(step.keyword.name))?;
                match step.member {
                    Member::Whole => Ok(()),
                    Member::Name(n) => write!(f, "/{}", escape_token(n)),
                    Member::Index(i) => write!(f, "/{i}"),
                }
            }
        }
    }
}

/// Escapes one JSON pointer reference token (`~` → `~0`, `/` → `~1`, RFC 6901).
///
/// ```
/// assert_eq!(toolsmith_lint::walk::escape_token("a/b~c"), "a~1b~0c");
/// ```
pub fn escape_token(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Unescapes one JSON pointer reference token (`~1` → `/`, then `~0` → `~`).
///
/// ```
/// assert_eq!(toolsmith_lint::walk::unescape_token("a~1b~0c"), "a/b~c");
/// ```
pub fn unescape_token(token: &str) -> Cow<'_, str> {
    // Tokens are short: a plain loop beats a memchr call.
    if token.bytes().any(|b| b == b'~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Which kind of JSON value `v` is, for a message about a document of the wrong shape: `an
/// array`, `null`, `an object with keys "a", "b"` (at most `max_keys` of them, in document order).
///
/// ```
/// let v = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "x"});
/// assert_eq!(toolsmith_lint::walk::describe_value(&v, 2), r#"an object with keys "jsonrpc", "id""#);
/// assert_eq!(toolsmith_lint::walk::describe_value(&serde_json::json!([]), 2), "an array");
/// ```
pub fn describe_value(v: &Value, max_keys: usize) -> String {
    match v {
        Value::Object(m) if m.is_empty() => "an empty object".to_string(),
        Value::Object(m) => format!(
            "an object with keys {}",
            m.keys()
                .take(max_keys)
                .map(|k| format!("{k:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(_) => "an array".to_string(),
        Value::String(_) => "a string".to_string(),
        Value::Number(_) => "a number".to_string(),
        Value::Bool(_) => "a boolean".to_string(),
        Value::Null => "null".to_string(),
    }
}

/// Appends `/token`, escaped, to a pointer string.
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    if token.bytes().any(|b| b == b'~' || b == b'/') {
        pointer.push_str(&escape_token(token));
    } else {
        pointer.push_str(token);
    }
}

/// Appends `/index` to a pointer string.
pub fn push_index(pointer: &mut String, index: usize) {
    if index < 10 {
        pointer.push('/');
        pointer.push((b'0' + index as u8) as char);
    } else {
        let _ = write!(pointer, "/{index}");
    }
}

/// A JSON value the read-only walks can descend into: `serde_json::Value`, and the lint's
/// borrowed [`Node`](crate::doc::Node).
pub trait Json<'a>: Copy + 'a {
    /// The members of an object, in document order; `None` for any other value.
    fn members(self) -> Option<impl Iterator<Item = (&'a str, Self)> + 'a>;
    /// The items of an array; `None` for any other value.
    fn items(self) -> Option<impl Iterator<Item = Self> + 'a>;
    /// The value at a JSON pointer, as `serde_json::Value::pointer` finds it.
    fn at_pointer(self, pointer: &str) -> Option<Self>;
}

impl<'a> Json<'a> for &'a Value {
    fn members(self) -> Option<impl Iterator<Item = (&'a str, Self)> + 'a> {
        Some(self.as_object()?.iter().map(|(k, v)| (k.as_str(), v)))
    }

    fn items(self) -> Option<impl Iterator<Item = Self> + 'a> {
        Some(self.as_array()?.iter())
    }

    fn at_pointer(self, pointer: &str) -> Option<Self> {
        self.pointer(pointer)
    }
}

/// Calls `f` with every subschema directly below `schema`, in document order.
pub fn for_each_child<'a>(schema: &'a Map<String, Value>, f: impl FnMut(Step<'a>, &'a Value)) {
    for_each_child_of(schema.iter().map(|(k, v)| (k.as_str(), v)), f);
}

/// [`for_each_child`] over the members of a schema object of any [`Json`] model.
pub fn for_each_child_of<'a, J: Json<'a>>(
    members: impl Iterator<Item = (&'a str, J)>,
    mut f: impl FnMut(Step<'a>, J),
) {
    for (key, value) in members {
        let Some(keyword) = keyword(key) else {
            continue;
        };
        let step = |member| Step { keyword, member };
        match keyword.shape {
            Shape::Map => {
                for (name, s) in value.members().into_iter().flatten() {
                    f(step(Member::Name(name)), s);
                }
            }
            Shape::Array => {
                for (i, s) in value.items().into_iter().flatten().enumerate() {
                    f(step(Member::Index(i)), s);
                }
            }
            Shape::SingleOrArray => match value.items() {
                Some(items) => {
                    for (i, s) in items.enumerate() {
                        f(step(Member::Index(i)), s);
                    }
                }
                None => f(step(Member::Whole), value),
            },
            Shape::Single => f(step(Member::Whole), value),
        }
    }
}

/// Calls `f` with every subschema directly below `schema`, mutably, in document order; stops at
/// the first error.
pub fn try_for_each_child_mut<E>(
    schema: &mut Map<String, Value>,
    mut f: impl FnMut(Step<'_>, &mut Value) -> Result<(), E>,
) -> Result<(), E> {
    for (key, value) in schema.iter_mut() {
        let Some(keyword) = keyword(key) else {
            continue;
        };
        let step = |member| Step { keyword, member };
        match (keyword.shape, value) {
            (Shape::Map, Value::Object(m)) => {
                for (name, s) in m.iter_mut() {
                    f(step(Member::Name(name)), s)?;
                }
            }
            (Shape::Array | Shape::SingleOrArray, Value::Array(a)) => {
                for (i, s) in a.iter_mut().enumerate() {
                    f(step(Member::Index(i)), s)?;
                }
            }
            (Shape::Single | Shape::SingleOrArray, s) => f(step(Member::Whole), s)?,
            _ => {}
        }
    }
    Ok(())
}

/// Calls `f` with every subschema directly below `schema`, mutably, in document order.
pub fn for_each_child_mut(
    schema: &mut Map<String, Value>,
    mut f: impl FnMut(Step<'_>, &mut Value),
) {
    let _ = try_for_each_child_mut::<()>(schema, |step, v| {
        f(step, v);
        Ok(())
    });
}

/// Calls `f(step, old, new)` for every subschema directly below either of two versions of a
/// schema, paired by where it sits, for a pass that compares them (the CLI's diff). Keywords come
/// in [`KEYWORDS`] order; under a map keyword, the names of `old` in its order, then the names
/// only `new` has; under an array keyword, index by index; a single subschema whole, and so is
/// `items` unless it is an array on each side that has it. A side without the subschema gets
/// `None`; a side that is not an object (`true`, or no schema at all) has no subschemas.
///
/// ```
/// use toolsmith_lint::walk::{self, Pointer};
/// let old = serde_json::json!({"items": {}, "properties": {"a": {}, "b": {}}});
/// let new = serde_json::json!({"items": [{}], "properties": {"c": {}, "a": {}}});
/// let root = Pointer::root("");
/// let mut seen = Vec::new();
/// walk::for_each_child_pair(&old, &new, |step, o, n| {
///     seen.push(format!("{} {} {}", root.step(step), o.is_some(), n.is_some()))
/// });
/// assert_eq!(seen, [
///     "/properties/a true true",
///     "/properties/b true false",
///     "/properties/c false true",
///     "/items true true",
/// ]);
/// ```
pub fn for_each_child_pair<'a>(
    old: &'a Value,
    new: &'a Value,
    mut f: impl FnMut(Step<'a>, Option<&'a Value>, Option<&'a Value>),
) {
    for keyword in KEYWORDS {
        let (o, n) = (old.get(keyword.name), new.get(keyword.name));
        if o.is_none() && n.is_none() {
            continue;
        }
        let step = |member| Step { keyword, member };
        let array = |v: Option<&'a Value>| v.and_then(Value::as_array);
        match keyword.shape {
            Shape::Map => {
                let (om, nm) = (o.and_then(Value::as_object), n.and_then(Value::as_object));
                for (name, s) in om.into_iter().flatten() {
                    f(
                        step(Member::Name(name)),
                        Some(s),
                        nm.and_then(|m| m.get(name)),
                    );
                }
                for (name, s) in nm.into_iter().flatten() {
                    if !om.is_some_and(|m| m.contains_key(name)) {
                        f(step(Member::Name(name)), None, Some(s));
                    }
                }
            }
            Shape::SingleOrArray
                if !(o.is_none_or(Value::is_array) && n.is_none_or(Value::is_array)) =>
            {
                f(step(Member::Whole), o, n)
            }
            Shape::Array | Shape::SingleOrArray => {
                let (oa, na) = (
                    array(o).map_or(&[][..], Vec::as_slice),
                    array(n).map_or(&[][..], Vec::as_slice),
                );
                for i in 0..oa.len().max(na.len()) {
                    f(step(Member::Index(i)), oa.get(i), na.get(i));
                }
            }
            Shape::Single => f(step(Member::Whole), o, n),
        }
    }
}

/// Calls `f(schema, pointer)` for every subschema object of `node` (itself included), each once,
/// in document order. `$ref`s are not followed: definitions are visited where they are written.
pub fn visit<'a>(
    node: &'a Value,
    pointer: &Pointer<'_>,
    f: &mut dyn FnMut(&'a Map<String, Value>, &Pointer<'_>),
) {
    visit_of(node, pointer, &mut |n: &'a Value, ptr| {
        if let Value::Object(obj) = n {
            f(obj, ptr);
        }
    });
}

/// [`visit`] over any [`Json`] model: `f` gets each subschema object's node.
pub fn visit_of<'a, J: Json<'a>>(
    node: J,
    pointer: &Pointer<'_>,
    f: &mut dyn FnMut(J, &Pointer<'_>),
) {
    let Some(members) = node.members() else {
        return;
    };
    f(node, pointer);
    for_each_child_of(members, |step, child| {
        visit_of(child, &pointer.step(step), f)
    });
}

/// Calls `f(schema, pointer)` for every subschema object of `node` (itself included), parents
/// before their subschemas, mutably. `f` may rewrite the schema it is given; the walk then goes
/// on into the subschemas the schema has after `f`.
pub fn visit_mut(
    node: &mut Value,
    pointer: &Pointer<'_>,
    f: &mut dyn FnMut(&mut Map<String, Value>, &Pointer<'_>),
) {
    let Some(obj) = node.as_object_mut() else {
        return;
    };
    f(obj, pointer);
    for_each_child_mut(obj, |step, child| visit_mut(child, &pointer.step(step), f));
}

/// The property names a schema object lists in `required` (the strings of it; none when it is
/// absent or not an array).
///
/// ```
/// let schema = serde_json::json!({"required": ["a", 1, "b"]});
/// let names: Vec<&str> = toolsmith_lint::walk::required(schema.as_object().unwrap()).collect();
/// assert_eq!(names, ["a", "b"]);
/// ```
pub fn required(schema: &Map<String, Value>) -> impl Iterator<Item = &str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// Why a `$ref` does not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefError {
    /// Not a local reference (`#` or `#/...`): another document, or an anchor.
    NotLocal,
    /// A `%` escape that is not two hex digits of UTF-8.
    BadEscape,
    /// The pointer leads nowhere in the document.
    Missing,
    /// The reference leads back to itself through references only.
    Cycle,
}

impl fmt::Display for RefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RefError::NotLocal => "not a local reference (#/...)",
            RefError::BadEscape => "a %-escape that is not UTF-8 in hex",
            RefError::Missing => "no such place in the schema",
            RefError::Cycle => "the references form a cycle",
        })
    }
}

impl std::error::Error for RefError {}

/// The JSON pointer a local reference names (`#/$defs/A%20B` → `/$defs/A B`, still
/// pointer-escaped), percent-decoded; `""` for `#`.
///
/// ```
/// use toolsmith_lint::walk::{ref_pointer, RefError};
/// assert_eq!(ref_pointer("#/$defs/a%20b").as_deref(), Ok("/$defs/a b"));
/// assert_eq!(ref_pointer("other.json#/x"), Err(RefError::NotLocal));
/// assert_eq!(ref_pointer("#/%zz"), Err(RefError::BadEscape));
/// ```
pub fn ref_pointer(reference: &str) -> Result<Cow<'_, str>, RefError> {
    let fragment = reference.strip_prefix('#').ok_or(RefError::NotLocal)?;
    if !(fragment.is_empty() || fragment.starts_with('/')) {
        return Err(RefError::NotLocal);
    }
    percent_decode(fragment).ok_or(RefError::BadEscape)
}

fn percent_decode(fragment: &str) -> Option<Cow<'_, str>> {
    if !fragment.contains('%') {
        return Some(Cow::Borrowed(fragment));
    }
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = fragment.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

/// Resolves a local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any `#/...` pointer) against
/// the schema root (of any [`Json`] model). Returns the target and its pointer relative to the
/// root (`""` for the root).
///
/// ```
/// let root = serde_json::json!({"definitions": {"a b": {"k": 1}}});
/// let (target, ptr) = toolsmith_lint::walk::resolve_ref(&root, "#/definitions/a%20b").unwrap();
/// assert_eq!((target["k"].as_i64(), ptr.as_ref()), (Some(1), "/definitions/a b"));
/// ```
pub fn resolve_ref<'a, 'r, J: Json<'a>>(
    root: J,
    reference: &'r str,
) -> Result<(J, Cow<'r, str>), RefError> {
    let pointer = ref_pointer(reference)?;
    let target = root.at_pointer(&pointer).ok_or(RefError::Missing)?;
    Ok((target, pointer))
}

/// The definition a reference names directly, `#/$defs/NAME` or `#/definitions/NAME` (one
/// token, unescaped and percent-decoded): the keyword and the name. Passes that hold the
/// definitions apart from the document (the cleaner, the lowering's inliner) resolve names with
/// this.
///
/// ```
/// use toolsmith_lint::walk::def_name;
/// assert_eq!(def_name("#/$defs/Tree"), Some(("$defs", "Tree".into())));
/// assert_eq!(def_name("#/definitions/a~1b"), Some(("definitions", "a/b".into())));
/// assert_eq!(def_name("#/$defs/A/properties/x"), None);
/// ```
pub fn def_name(reference: &str) -> Option<(&'static str, Cow<'_, str>)> {
    let pointer = ref_pointer(reference).ok()?;
    let (keyword, name) = ["$defs", "definitions"].into_iter().find_map(|k| {
        let rest = pointer
            .strip_prefix('/')?
            .strip_prefix(k)?
            .strip_prefix('/')?;
        (!rest.contains('/')).then_some((k, rest))
    })?;
    let name = match &pointer {
        Cow::Borrowed(_) => {
            // Re-borrow from the reference itself: the pointer was not decoded.
            let start = reference.len() - name.len();
            unescape_token(&reference[start..])
        }
        Cow::Owned(_) => Cow::Owned(unescape_token(name).into_owned()),
    };
    Some((keyword, name))
}

/// Follows `$ref`s from `node` while the schema it reaches is a reference, and returns the
/// first schema that is not only a reference hop (`node` itself when it has no `$ref`). A
/// chain that comes back to a reference it passed is [`RefError::Cycle`].
///
/// ```
/// use serde_json::json;
/// use toolsmith_lint::walk::{follow_refs, RefError};
/// let root = json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"}, "C": {"$ref": "#/$defs/C"}}});
/// assert_eq!(follow_refs(&root, &json!({"$ref": "#/$defs/A"})), Ok(&json!({"type": "string"})));
/// assert_eq!(follow_refs(&root, &json!({"$ref": "#/$defs/C"})), Err(RefError::Cycle));
/// ```
pub fn follow_refs<'a>(root: &'a Value, mut node: &'a Value) -> Result<&'a Value, RefError> {
    let mut passed: Vec<&'a str> = Vec::new();
    while let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        if passed.contains(&reference) {
            return Err(RefError::Cycle);
        }
        passed.push(reference);
        node = resolve_ref(root, reference)?.0;
    }
    Ok(node)
}

/// The references being expanded, innermost last: a pass that inlines definitions pushes one
/// before expanding it, and a reference met again while it is open is a cycle.
#[derive(Debug, Default)]
pub struct RefStack(Vec<String>);

impl RefStack {
    /// Opens `name`, or says it is already open (a recursive definition).
    pub fn enter(&mut self, name: &str) -> Result<(), RefError> {
        if self.0.iter().any(|n| n == name) {
            return Err(RefError::Cycle);
        }
        self.0.push(name.to_string());
        Ok(())
    }

    /// Closes the innermost open reference.
    pub fn leave(&mut self) {
        self.0.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_keyword_is_listed_once() {
        for (i, k) in KEYWORDS.iter().enumerate() {
            assert!(
                KEYWORDS[..i].iter().all(|o| o.name != k.name),
                "{} is listed twice",
                k.name
            );
            assert_eq!(keyword(k.name).map(|f| f.name), Some(k.name));
        }
    }

    #[test]
    fn children_follow_each_shape() {
        let schema = json!({
            "properties": {"a": {}}, "items": [{}, {}], "not": {}, "anyOf": [{}],
            "additionalProperties": false, "required": ["a"], "items2": {}
        });
        let mut seen = Vec::new();
        let root = Pointer::root("");
        for_each_child(schema.as_object().unwrap(), |step, _| {
            seen.push(root.step(step).to_string())
        });
        assert_eq!(
            seen,
            [
                "/properties/a",
                "/items/0",
                "/items/1",
                "/not",
                "/anyOf/0",
                "/additionalProperties"
            ]
        );
    }

    #[test]
    fn child_pairs_follow_each_shape() {
        let old =
            json!({"anyOf": [{}, {}], "not": {}, "items": [{}], "prefixItems": {}, "if": true});
        let new = json!({"anyOf": [{}], "items": [{}, {}], "prefixItems": [{}], "x": {}});
        let mut seen = Vec::new();
        let root = Pointer::root("");
        for_each_child_pair(&old, &new, |step, o, n| {
            seen.push((root.step(step).to_string(), o.is_some(), n.is_some()))
        });
        let seen: Vec<(&str, bool, bool)> =
            seen.iter().map(|(p, o, n)| (p.as_str(), *o, *n)).collect();
        assert_eq!(
            seen,
            [
                ("/items/0", true, true),
                ("/items/1", false, true),
                ("/not", true, false),
                ("/if", true, false),
                ("/prefixItems/0", false, true),
                ("/anyOf/0", true, true),
                ("/anyOf/1", true, false),
            ]
        );
        let mut seen = Vec::new();
        for_each_child_pair(&json!(true), &json!({"items": {}}), |step, o, n| {
            seen.push((root.step(step).to_string(), o.is_some(), n.is_some()))
        });
        assert_eq!(seen, [("/items".to_string(), false, true)]);
    }

    #[test]
    fn visit_mut_sees_rewrites() {
        let mut schema = json!({"properties": {"a": {"type": "object"}}});
        visit_mut(&mut schema, &Pointer::root(""), &mut |m, ptr| {
            if ptr.to_string() == "/properties/a" {
                m.insert("properties".into(), json!({"b~": {}}));
            }
            m.insert("seen".into(), ptr.to_string().into());
        });
        assert_eq!(
            schema["properties"]["a"]["properties"]["b~"]["seen"],
            "/properties/a/properties/b~0"
        );
    }

    #[test]
    fn refs_and_names_resolve() {
        let root = json!({"$defs": {"a/b": {"k": 1}}, "definitions": {"é": {"k": 2}}});
        assert_eq!(resolve_ref(&root, "#/$defs/a~1b").unwrap().0["k"], 1);
        assert_eq!(
            resolve_ref(&root, "#/definitions/%C3%A9").unwrap().0["k"],
            2
        );
        assert_eq!(resolve_ref(&root, "#/$defs/x"), Err(RefError::Missing));
        assert_eq!(resolve_ref(&root, "#a"), Err(RefError::NotLocal));
        assert_eq!(
            def_name("#/definitions/%C3%A9"),
            Some(("definitions", "é".into()))
        );
        assert_eq!(def_name("#"), None);
        let mut stack = RefStack::default();
        assert_eq!(stack.enter("A"), Ok(()));
        assert_eq!(stack.enter("A"), Err(RefError::Cycle));
        stack.leave();
        assert_eq!(stack.enter("A"), Ok(()));
    }
}
