//! The lowering pipeline: one walk over the canonical schema, with passes switched on per target
//! by a [`Passes`].

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write;

use serde_json::{json, Map, Value};
use toolsmith_lint::mcp_fields::HEADER_KEYWORD;

use super::error::{ExportError, ExportErrorKind};
use super::target::{McpVersion, Target};
use super::tree::{Entries, Tree};
use crate::spec::ToolSpec;
use toolsmith_lint::platform::{self, StrictFacts};
use toolsmith_lint::walk::{self, Pointer, RefStack};

/// How a strict target treats objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Strict {
    /// Not strict: objects are left as they are.
    No,
    /// OpenAI structured outputs: closed objects, every property required, optional → nullable.
    OpenAi,
    /// Anthropic strict tools: closed objects, optional stays optional (but is counted).
    Anthropic,
}

/// What to do with a root `$schema`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SchemaUri {
    /// Leave it as it is.
    Keep,
    /// Drop it: the target does not take one.
    Strip,
}

/// Which passes apply to a target, and its limits.
#[derive(Clone, Debug)]
pub(crate) struct Passes {
    pub target: Target,
    pub max_description: Option<usize>,
    pub description_required: bool,
    pub max_tools: Option<usize>,
    pub root_forbidden: &'static [&'static str],
    pub schema_uri: SchemaUri,
    pub inline_refs: bool,
    pub collapse_const_unions: bool,
    pub one_of_to_any_of: bool,
    pub const_to_enum: bool,
    pub merge_all_of: bool,
    pub reject_tuples: bool,
    pub arrays_need_items: bool,
    pub scalar_enums_only: bool,
    pub strict: Strict,
    /// Keyword groups moved into the description, in phrase order.
    pub move_to_description: &'static [&'static [&'static str]],
    pub supported_formats: Option<&'static [&'static str]>,
    pub max_min_items: Option<u64>,
    pub max_optional_params: Option<usize>,
    pub max_union_params: Option<usize>,
}

/// The keyword groups a non-strict Gemini export moves into the description.
const GEMINI_MOVED: &[&[&str]] = &[platform::GEMINI.unsupported];

impl Passes {
    /// The profile of `target`: the single table of which pass applies where.
    pub(crate) fn of(target: Target) -> Passes {
        let base = Passes {
            target,
            max_description: None,
            description_required: false,
            max_tools: None,
            root_forbidden: &[],
            schema_uri: SchemaUri::Strip,
            inline_refs: false,
            collapse_const_unions: false,
            one_of_to_any_of: false,
            const_to_enum: false,
            merge_all_of: false,
            reject_tuples: false,
            arrays_need_items: false,
            scalar_enums_only: false,
            strict: Strict::No,
            move_to_description: &[],
            supported_formats: None,
            max_min_items: None,
            max_optional_params: None,
            max_union_params: None,
        };
        match target {
            // MCP keeps a root `$schema` the schema's author wrote (SEP-1613: a client reads
            // the dialect from it; the conformance suite's `json-schema-2020-12` checks it is
            // kept). Schemas derived from Rust types have none: `schema::clean_document` and the
            // generator's hygiene drop schemars' own.
            Target::Mcp(_) => Passes {
                schema_uri: SchemaUri::Keep,
                ..base
            },
            Target::WebMcp => Passes {
                description_required: platform::WEBMCP.description_required,
                ..base
            },
            Target::OpenAiChat { strict } | Target::OpenAiResponses { strict } => {
                let loose = Passes {
                    max_description: platform::OPENAI.max_description,
                    max_tools: platform::OPENAI.max_tools,
                    root_forbidden: platform::OPENAI.root_forbidden,
                    collapse_const_unions: true,
                    one_of_to_any_of: true,
                    arrays_need_items: true,
                    ..base
                };
                match (strict, platform::OPENAI.strict) {
                    (true, Some(facts)) => Passes {
                        merge_all_of: true,
                        reject_tuples: true,
                        strict: Strict::OpenAi,
                        ..loose.with_strict(&facts)
                    },
                    _ => loose,
                }
            }
            Target::Anthropic { strict } => {
                let loose = Passes {
                    root_forbidden: platform::ANTHROPIC.root_forbidden,
                    collapse_const_unions: true,
                    ..base
                };
                match (strict, platform::ANTHROPIC.strict) {
                    (true, Some(facts)) => Passes {
                        inline_refs: true,
                        one_of_to_any_of: true,
                        merge_all_of: true,
                        reject_tuples: true,
                        scalar_enums_only: true,
                        strict: Strict::Anthropic,
                        ..loose.with_strict(&facts)
                    },
                    _ => loose,
                }
            }
            Target::Gemini => Passes {
                inline_refs: true,
                collapse_const_unions: true,
                one_of_to_any_of: true,
                const_to_enum: true,
                merge_all_of: true,
                move_to_description: GEMINI_MOVED,
                ..base
            },
        }
    }
}

impl Passes {
    /// The limits and keyword lists of a platform's strict mode laid over this profile.
    fn with_strict(self, facts: &StrictFacts) -> Passes {
        Passes {
            max_tools: facts.max_tools.or(self.max_tools),
            move_to_description: facts.unsupported,
            supported_formats: Some(facts.formats),
            max_min_items: facts.max_min_items,
            max_optional_params: facts.max_optional_params,
            max_union_params: facts.max_union_params,
            ..self
        }
    }

    /// Whether the walk over every subschema (step 5 of the pipeline) has anything to do: some
    /// per-node pass is on. Every field is named, so a new pass cannot be forgotten here.
    fn walks_nodes(&self) -> bool {
        let Passes {
            target: _,
            max_description: _,
            description_required: _,
            max_tools: _,
            root_forbidden: _,
            schema_uri: _,
            inline_refs: _,
            collapse_const_unions,
            one_of_to_any_of,
            const_to_enum,
            merge_all_of,
            reject_tuples,
            arrays_need_items,
            scalar_enums_only,
            strict,
            move_to_description,
            supported_formats,
            max_min_items,
            max_optional_params: _,
            max_union_params: _,
        } = self;
        *collapse_const_unions
            || *one_of_to_any_of
            || *const_to_enum
            || *merge_all_of
            || *reject_tuples
            || *arrays_need_items
            || *scalar_enums_only
            || *strict != Strict::No
            || !move_to_description.is_empty()
            || supported_formats.is_some()
            || max_min_items.is_some()
    }

    /// Whether `keyword` moves into the description text.
    fn moves(&self, keyword: &str) -> bool {
        self.move_to_description
            .iter()
            .any(|group| group.contains(&keyword))
    }

    /// Whether `keyword` moves into the description text on some schema object: always
    /// ([`Passes::moves`]), or depending on its value (a format outside the supported ones, a
    /// `minItems` above the limit).
    fn may_move(&self, keyword: &str) -> bool {
        self.moves(keyword)
            || (keyword == "format" && self.supported_formats.is_some())
            || (keyword == "minItems" && self.max_min_items.is_some())
    }
}

/// Counts a strict target limits per request.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stats {
    pub optional_params: usize,
    pub union_params: usize,
}

struct Cx<'a> {
    p: &'a Passes,
    tool: &'a str,
    defs: Map<String, Value>,
    defs_ptr: &'a str,
    stats: Stats,
}

impl Cx<'_> {
    fn err(&self, pointer: impl Into<String>, kind: ExportErrorKind) -> ExportError {
        ExportError {
            tool: self.tool.to_string(),
            target: self.p.target,
            pointer: pointer.into(),
            kind,
        }
    }
}

/// Schema objects up to this many keywords are searched by comparing keys (see [`get`]).
const SCAN_MAX: usize = 16;

/// The value of `key` in a schema object. A schema object holds a handful of keywords, and
/// comparing them costs less than the SipHash a map lookup computes for `key`, so small objects
/// are scanned.
fn get<'m>(map: &'m Map<String, Value>, key: &str) -> Option<&'m Value> {
    if map.len() > SCAN_MAX {
        return map.get(key);
    }
    map.iter().find_map(|(k, v)| (k == key).then_some(v))
}

/// [`get`], mutably.
fn get_mut<'m>(map: &'m mut Map<String, Value>, key: &str) -> Option<&'m mut Value> {
    if map.len() > SCAN_MAX {
        return map.get_mut(key);
    }
    map.iter_mut().find_map(|(k, v)| (k == key).then_some(v))
}

/// Whether a schema object has `key` (see [`get`]).
fn has(map: &Map<String, Value>, key: &str) -> bool {
    get(map, key).is_some()
}

/// `map.remove(key)`, which looks the key up (hashing it) only when the object has it.
fn take(map: &mut Map<String, Value>, key: &str) -> Option<Value> {
    if has(map, key) {
        map.remove(key)
    } else {
        None
    }
}

fn type_is(map: &Map<String, Value>, t: &str) -> bool {
    match get(map, "type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(t)),
        _ => false,
    }
}

fn is_union(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        has(m, "anyOf") || has(m, "oneOf") || get(m, "type").is_some_and(Value::is_array)
    })
}

fn append_description(map: &mut Map<String, Value>, extra: &str) {
    if let Some(Value::String(d)) = get_mut(map, "description") {
        if !d.trim().is_empty() {
            // In place: the description, trimmed at the end, then a space and `extra`.
            d.truncate(d.trim_end().len());
            d.push(' ');
            d.push_str(extra);
            return;
        }
    }
    map.insert("description".into(), Value::String(extra.to_string()));
}

/// Writes `n` and the unit that fits it ("1 character", "5 characters").
fn write_plural(out: &mut String, n: &Value, one: &str, many: &str) {
    let unit = if n.as_u64() == Some(1) { one } else { many };
    let _ = write!(out, "{n} {unit}");
}

/// Writes the phrase a constraint becomes when moved into the description text; `false` (and
/// nothing written) for a keyword value that says nothing (`uniqueItems: false`).
fn write_phrase(out: &mut String, keyword: &str, v: &Value) -> bool {
    // Writing to a String cannot fail.
    let _ = match keyword {
        "minLength" => {
            out.push_str("at least ");
            write_plural(out, v, "character", "characters");
            Ok(())
        }
        "maxLength" => {
            out.push_str("at most ");
            write_plural(out, v, "character", "characters");
            Ok(())
        }
        "minimum" => write!(out, "at least {v}"),
        "maximum" => write!(out, "at most {v}"),
        "exclusiveMinimum" => write!(out, "greater than {v}"),
        "exclusiveMaximum" => write!(out, "less than {v}"),
        "multipleOf" => write!(out, "a multiple of {v}"),
        "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            out.push_str(if keyword.starts_with("min") {
                "at least "
            } else {
                "at most "
            });
            let (one, many) = if keyword.ends_with("Items") {
                ("item", "items")
            } else {
                ("entry", "entries")
            };
            write_plural(out, v, one, many);
            Ok(())
        }
        "uniqueItems" => {
            if v != &Value::Bool(true) {
                return false;
            }
            out.push_str("no duplicate items");
            Ok(())
        }
        "pattern" => write!(
            out,
            "matching the pattern `{}`",
            v.as_str().unwrap_or_default()
        ),
        "format" => write!(out, "format: {}", v.as_str().unwrap_or_default()),
        "default" => write!(out, "default: {v}"),
        other => write!(out, "`{other}`: {}", crate::spec::canonical_json(v)),
    };
    true
}

impl Cx<'_> {
    /// Replaces every `$ref` by its definition; recursion is an error.
    fn inline(
        &self,
        node: &mut Value,
        ptr: &Pointer<'_>,
        stack: &mut RefStack,
    ) -> Result<(), ExportError> {
        let Value::Object(map) = node else {
            return Ok(());
        };
        if let Some(reference) = get(map, "$ref").and_then(Value::as_str).map(str::to_string) {
            let unresolvable = || {
                self.err(
                    ptr.to_string(),
                    ExportErrorKind::UnresolvableRef {
                        reference: reference.clone(),
                    },
                )
            };
            let name = match walk::def_name(&reference) {
                Some(("$defs", name)) => name.into_owned(),
                _ => return Err(unresolvable()),
            };
            if stack.enter(&name).is_err() {
                return Err(self.err(ptr.to_string(), ExportErrorKind::Recursive { reference }));
            }
            let mut resolved = self.defs.get(&name).cloned().ok_or_else(unresolvable)?;
            let root = Pointer::root(self.defs_ptr);
            let defs = root.token("$defs");
            self.inline(&mut resolved, &defs.token(&name), stack)?;
            stack.leave();
            map.remove("$ref");
            let siblings = std::mem::take(map);
            match resolved {
                Value::Object(mut r) => {
                    r.extend(siblings);
                    *map = r;
                }
                other => {
                    if siblings.is_empty() {
                        *node = other;
                        return Ok(());
                    }
                    *map = siblings;
                }
            }
        }
        let Value::Object(map) = node else {
            return Ok(());
        };
        walk::try_for_each_child_mut(map, |step, child| {
            self.inline(child, &ptr.step(step), stack)
        })
    }

    fn walk(&mut self, node: &mut Value, ptr: &Pointer<'_>) -> Result<(), ExportError> {
        let p = self.p;
        let map = match node {
            Value::Object(map) => map,
            Value::Bool(true) if p.strict != Strict::No => {
                return Err(self.err(ptr.to_string(), ExportErrorKind::Untyped))
            }
            _ => return Ok(()),
        };
        self.rewrite(map, ptr)?;
        walk::try_for_each_child_mut(map, |step, child| {
            let keyword = step.keyword.name;
            if keyword == "additionalProperties" && child.is_boolean() {
                return Ok(());
            }
            if p.moves(keyword) {
                return Ok(()); // becomes description text below
            }
            self.walk(child, &ptr.step(step))
        })?;
        if p.strict != Strict::No {
            self.strict_object(map, ptr)?;
        }
        self.move_to_description(map);
        Ok(())
    }

    /// Whether [`Cx::walk`] changes or checks anything on the schema object `map` itself (the
    /// passes of [`Cx::rewrite`], [`Cx::strict_object`] and [`Cx::move_to_description`]), apart
    /// from what it does to the subschemas below. A superset: `false` means the walk leaves this
    /// object's own members as they are, raises no error here and counts nothing here.
    fn touches(&self, map: &Map<String, Value>) -> bool {
        const TYPED: &[&str] = &["type", "anyOf", "oneOf", "allOf", "enum", "const", "$ref"];
        let p = self.p;
        (p.merge_all_of && has(map, "allOf"))
            || (p.collapse_const_unions && (has(map, "oneOf") || has(map, "anyOf")))
            || (p.one_of_to_any_of && has(map, "oneOf"))
            || (p.const_to_enum && has(map, "const"))
            || (p.reject_tuples && has(map, "prefixItems"))
            || (p.arrays_need_items
                && type_is(map, "array")
                && !has(map, "items")
                && !has(map, "prefixItems"))
            || (p.scalar_enums_only && has(map, "enum"))
            || (p.strict != Strict::No
                && (has(map, "properties")
                    || type_is(map, "object")
                    || has(map, "$ref")
                    || !map.keys().any(|k| TYPED.contains(&k.as_str()))))
            || map.keys().any(|k| p.may_move(k))
    }

    /// [`Cx::walk`] of a subschema of the spec, copy on write: an object the walk touches
    /// ([`Cx::touches`]) is copied and walked as before; one it does not touch is borrowed, and
    /// only its subschemas are lowered (so only the objects a pass changes are copied).
    fn walk_cow<'s>(
        &mut self,
        node: &'s Value,
        ptr: &Pointer<'_>,
    ) -> Result<Tree<'s>, ExportError> {
        match node {
            Value::Object(map) if self.touches(map) => {
                if self.in_place(map) {
                    let members = map.iter().map(|(k, v)| (k.as_str(), v));
                    return self.walk_in_place(map, members, ptr).map(Tree::Obj);
                }
                if let Some(collapsed) = self.collapse_on_members(map, ptr)? {
                    return Ok(Tree::Obj(collapsed));
                }
                let mut owned = node.clone();
                self.walk(&mut owned, ptr)?;
                Ok(Tree::Val(owned))
            }
            Value::Object(map) => {
                let members = map.iter().map(|(k, v)| (k.as_str(), v));
                Ok(match self.walk_members(members, ptr, false)? {
                    Some(lowered) => Tree::Obj(lowered),
                    None => Tree::Ref(node),
                })
            }
            Value::Bool(true) if self.p.strict != Strict::No => {
                Err(self.err(ptr.to_string(), ExportErrorKind::Untyped))
            }
            _ => Ok(Tree::Ref(node)),
        }
    }

    /// The members of a schema object with their subschemas lowered in the walk's order; `None`
    /// when no subschema changed, unless `always` asks for the members anyway. The members are
    /// only collected from the first change on (the unchanged ones before it are borrowed again
    /// from a copy of the iterator), with room for the members the strict pass adds.
    fn walk_members<'s, I>(
        &mut self,
        members: I,
        ptr: &Pointer<'_>,
        always: bool,
    ) -> Result<Option<Entries<'s>>, ExportError>
    where
        I: Iterator<Item = (&'s str, &'s Value)> + Clone,
    {
        /// Room for what [`Cx::strict_entries`] adds to an object (`type`,
        /// `additionalProperties`, `properties`, `required`).
        const ROOM: usize = 4;
        let start = members.clone();
        let mut out: Option<Entries<'s>> = None;
        for (i, (key, value)) in members.enumerate() {
            let lowered = match walk::keyword(key) {
                // A keyword that moves into the description is not walked (and the object that
                // has it is touched, so it does not come here).
                Some(keyword) if !self.p.moves(keyword.name) => {
                    self.walk_keyword(keyword, value, ptr)?
                }
                _ => Tree::Ref(value),
            };
            match &mut out {
                Some(e) => e.push(key, lowered),
                None if matches!(lowered, Tree::Ref(_)) && !always => {}
                None => {
                    let before = start.clone();
                    let mut e = Entries::with_capacity(before.size_hint().0 + ROOM);
                    for (k, v) in before.take(i) {
                        e.push(k, Tree::Ref(v));
                    }
                    e.push(key, lowered);
                    out = Some(e);
                }
            }
        }
        if out.is_none() && always {
            out = Some(Entries::with_capacity(ROOM));
        }
        Ok(out)
    }

    /// Whether the walk's own changes to a schema object it touches can be made on its members
    /// in place, without a copy of the object: none of the rewrites that restructure the
    /// object and its subschemas (`allOf` merged, a const union collapsed, `oneOf` renamed,
    /// `const` made an `enum`, a `$ref` with siblings wrapped) applies. What is left is the
    /// checks, [`Cx::strict_object`] and [`Cx::move_to_description`], done by
    /// [`Cx::walk_in_place`].
    fn in_place(&self, map: &Map<String, Value>) -> bool {
        let p = self.p;
        !((p.merge_all_of && has(map, "allOf"))
            || (p.collapse_const_unions && (has(map, "oneOf") || has(map, "anyOf")))
            || (p.one_of_to_any_of && has(map, "oneOf"))
            || (p.const_to_enum && has(map, "const"))
            || (p.strict == Strict::OpenAi && has(map, "$ref")))
    }

    /// [`Cx::walk`] of a schema object that [`Cx::in_place`] admits, on its `members` (those of
    /// `map`, less the root's dropped `$schema`/`$defs`): the checks of [`Cx::rewrite`], the
    /// subschemas lowered, then [`Cx::strict_object`] and [`Cx::move_to_description`] on the
    /// members, which stay borrowed where nothing changes them.
    fn walk_in_place<'s>(
        &mut self,
        map: &Map<String, Value>,
        members: impl Iterator<Item = (&'s str, &'s Value)> + Clone,
        ptr: &Pointer<'_>,
    ) -> Result<Entries<'s>, ExportError> {
        self.check(map, ptr)?;
        let mut e = self.walk_members(members, ptr, true)?.unwrap_or_default();
        if self.p.strict != Strict::No {
            self.strict_entries(&mut e, ptr)?;
        }
        self.move_to_description(&mut e);
        Ok(e)
    }

    /// [`Cx::walk`] of a schema object whose only restructuring rewrite is a constant union to
    /// collapse ([`collapse_const_union`]) and that has no other subschema, on its borrowed
    /// members: the union's branches are not copied, the `enum` borrows their constants, and
    /// only the description is written anew. `None` (nothing done) for any other object, which
    /// is copied and walked as a `Map`.
    fn collapse_on_members<'s>(
        &mut self,
        map: &'s Map<String, Value>,
        ptr: &Pointer<'_>,
    ) -> Result<Option<Entries<'s>>, ExportError> {
        let p = self.p;
        if !p.collapse_const_unions
            || (p.merge_all_of && has(map, "allOf"))
            || (p.const_to_enum && has(map, "const"))
            || (p.strict == Strict::OpenAi && has(map, "$ref"))
        {
            return Ok(None);
        }
        let key = if has(map, "oneOf") { "oneOf" } else { "anyOf" };
        let Some(Value::Array(branches)) = get(map, key) else {
            return Ok(None);
        };
        if map.keys().any(|k| k != key && walk::keyword(k).is_some()) {
            return Ok(None);
        }
        // The description's new text starts with the present one, as `append_description`
        // would write it.
        let prefix = match get(map, "description") {
            Some(Value::String(d)) if !d.trim().is_empty() => d.trim_end(),
            _ => "",
        };
        let Some(union) = const_union(branches, prefix) else {
            return Ok(None);
        };
        // What `rewrite` checks after the collapse: the enum is of scalars and the object is
        // typed, so only the tuple and array rules can fail (the added `type` is never
        // "array").
        self.check_arrays(map, ptr)?;
        // The members after `Map::remove(key)`, which moves the last member into its place.
        let at = map.keys().position(|k| k == key).unwrap_or_default();
        let last = map.len() - 1;
        let mut e = Entries::with_capacity(map.len() + 4);
        for (i, (k, v)) in map.iter().enumerate() {
            if i == at {
                if let Some((k, v)) = map.iter().next_back().filter(|_| at != last) {
                    e.push(k, Tree::Ref(v));
                }
            } else if i != last {
                e.push(k, Tree::Ref(v));
            }
        }
        if !e.contains_key("type") {
            e.insert("type", Tree::Ref(type_name(union.kind)));
        }
        let mut values = Vec::with_capacity(branches.len() + 1);
        values.extend(
            branches
                .iter()
                .filter_map(|b| b.as_object().and_then(|o| get(o, "const")).map(Tree::Ref)),
        );
        e.insert("enum", Tree::Arr(values));
        if union.any_label {
            e.insert("description", Tree::Val(Value::String(union.text)));
        }
        if p.strict != Strict::No {
            self.strict_entries(&mut e, ptr)?;
        }
        self.move_to_description(&mut e);
        Ok(Some(e))
    }

    /// The checks of [`Cx::rewrite`], which are all it does to an object [`Cx::in_place`]
    /// admits.
    fn check(&self, map: &Map<String, Value>, ptr: &Pointer<'_>) -> Result<(), ExportError> {
        let p = self.p;
        self.check_arrays(map, ptr)?;
        if p.scalar_enums_only {
            if let Some(Value::Array(values)) = get(map, "enum") {
                if values.iter().any(|v| v.is_object() || v.is_array()) {
                    return Err(self.err(format!("{ptr}/enum"), ExportErrorKind::NonScalarEnum));
                }
            }
        }
        if p.strict != Strict::No {
            const TYPED: &[&str] = &["type", "anyOf", "oneOf", "allOf", "enum", "const", "$ref"];
            if !map.keys().any(|k| TYPED.contains(&k.as_str())) {
                return Err(self.err(ptr.to_string(), ExportErrorKind::Untyped));
            }
        }
        Ok(())
    }

    /// The first checks of [`Cx::check`]: no tuples where the profile rejects them, `items` on
    /// every array where the profile needs them.
    fn check_arrays(&self, map: &Map<String, Value>, ptr: &Pointer<'_>) -> Result<(), ExportError> {
        let p = self.p;
        if p.reject_tuples && has(map, "prefixItems") {
            return Err(self.err(ptr.to_string(), ExportErrorKind::Tuple));
        }
        if p.arrays_need_items
            && type_is(map, "array")
            && !has(map, "items")
            && !has(map, "prefixItems")
        {
            return Err(self.err(ptr.to_string(), ExportErrorKind::ArrayWithoutItems));
        }
        Ok(())
    }

    /// [`Cx::strict_object`] on the members of a lowered object.
    fn strict_entries<'s>(
        &mut self,
        e: &mut Entries<'s>,
        ptr: &Pointer<'_>,
    ) -> Result<(), ExportError> {
        let has_props = e.get("properties").is_some_and(Tree::is_object);
        if has_props && !e.contains_key("type") {
            e.insert("type", Tree::Str("object"));
        }
        if !e.get("type").is_some_and(|t| tree_type_is(t, "object")) {
            return Ok(());
        }
        match e.get("additionalProperties") {
            None => e.insert("additionalProperties", Tree::Val(Value::Bool(false))),
            Some(t) if t.is_bool(false) => {}
            Some(_) => {
                return Err(self.err(
                    format!("{ptr}/additionalProperties"),
                    ExportErrorKind::MapLike,
                ))
            }
        }
        if self.p.strict == Strict::OpenAi && !has_props {
            e.insert("properties", Tree::Val(Value::Object(Map::new())));
        }
        // The spec's own `required`, to borrow when it already lists every property in order.
        let spec_required = match e.get("required") {
            Some(&Tree::Ref(r)) => Some(r),
            _ => None,
        };
        // `properties` (to change) and `required` (to read) at once.
        let (props, required) = e.properties_and_required();
        let Some(props) = props else {
            return Ok(());
        };
        let required = required.map_or(&[][..], Vec::as_slice);
        self.strict_properties(
            props.iter_mut(),
            required,
            tree_is_union,
            make_tree_nullable,
        );
        if self.p.strict == Strict::OpenAi {
            // Every property, in order: the spec's list when it is that already, else the keys
            // (borrowed where the spec's are).
            let lists_all = |r: &&Value| {
                r.as_array().is_some_and(|r| {
                    r.len() == props.len()
                        && r.iter()
                            .zip(props.keys())
                            .all(|(a, k)| a.as_str() == Some(k))
                })
            };
            let all = match spec_required.filter(lists_all) {
                Some(r) => Tree::Ref(r),
                None => {
                    let mut all = Vec::with_capacity(props.len());
                    all.extend(props.key_nodes());
                    Tree::Arr(all)
                }
            };
            e.insert("required", all);
        }
        Ok(())
    }

    /// The properties of a strict object (lowered or copied, hence the two helpers): counts the
    /// union-typed and the optional ones for the request limits and makes the optional ones
    /// nullable for OpenAI (whose `required`, every property in order, the callers write).
    fn strict_properties<'p, P: 'p>(
        &mut self,
        props: impl Iterator<Item = (&'p str, &'p mut P)>,
        required: &[Value],
        is_union: fn(&P) -> bool,
        make_nullable: fn(&mut P),
    ) {
        let openai = self.p.strict == Strict::OpenAi;
        for (name, prop) in props {
            if is_union(prop) {
                self.stats.union_params += 1;
            }
            if !required.iter().any(|r| r.as_str() == Some(name)) {
                self.stats.optional_params += 1;
                if openai {
                    make_nullable(prop);
                }
            }
        }
    }

    /// The value of a subschema keyword with its subschemas lowered, as
    /// `walk::try_for_each_child_mut` reaches them.
    fn walk_keyword<'s>(
        &mut self,
        keyword: &'static walk::Keyword,
        value: &'s Value,
        ptr: &Pointer<'_>,
    ) -> Result<Tree<'s>, ExportError> {
        let step = |member| walk::Step { keyword, member };
        match (keyword.shape, value) {
            (walk::Shape::Map, Value::Object(m)) => {
                let mut out = Entries::with_capacity(m.len());
                let mut changed = false;
                for (name, s) in m {
                    let t =
                        self.walk_child(keyword, s, &ptr.step(step(walk::Member::Name(name))))?;
                    changed |= !matches!(t, Tree::Ref(_));
                    out.push(name, t);
                }
                Ok(if changed {
                    Tree::Obj(out)
                } else {
                    Tree::Ref(value)
                })
            }
            (walk::Shape::Array | walk::Shape::SingleOrArray, Value::Array(a)) => {
                let mut out = Vec::with_capacity(a.len());
                let mut changed = false;
                for (i, s) in a.iter().enumerate() {
                    let t = self.walk_child(keyword, s, &ptr.step(step(walk::Member::Index(i))))?;
                    changed |= !matches!(t, Tree::Ref(_));
                    out.push(t);
                }
                Ok(if changed {
                    Tree::Arr(out)
                } else {
                    Tree::Ref(value)
                })
            }
            (walk::Shape::Single | walk::Shape::SingleOrArray, s) => {
                self.walk_child(keyword, s, &ptr.step(step(walk::Member::Whole)))
            }
            _ => Ok(Tree::Ref(value)),
        }
    }

    /// One subschema under `keyword`, as [`Cx::walk`] treats its children.
    fn walk_child<'s>(
        &mut self,
        keyword: &'static walk::Keyword,
        child: &'s Value,
        ptr: &Pointer<'_>,
    ) -> Result<Tree<'s>, ExportError> {
        if keyword.name == "additionalProperties" && child.is_boolean() {
            return Ok(Tree::Ref(child));
        }
        self.walk_cow(child, ptr)
    }

    /// The profile's rewrites and checks of one schema object, before its subschemas.
    fn rewrite(&self, map: &mut Map<String, Value>, ptr: &Pointer<'_>) -> Result<(), ExportError> {
        let p = self.p;
        if p.merge_all_of {
            merge_all_of(map);
        }
        if p.collapse_const_unions {
            collapse_const_union(map);
        }
        if p.one_of_to_any_of && !has(map, "anyOf") {
            if let Some(v) = take(map, "oneOf") {
                map.insert("anyOf".into(), v);
            }
        }
        if p.const_to_enum {
            if let Some(v) = take(map, "const") {
                map.insert("enum".into(), Value::Array(vec![v]));
            }
        }
        self.check(map, ptr)?;
        if p.strict == Strict::OpenAi && map.len() > 1 && has(map, "$ref") {
            // openai-agents (and the API) inline a `$ref` with siblings; keep it bare instead.
            if let Some(r) = map.remove("$ref") {
                map.insert("anyOf".into(), Value::Array(vec![object([("$ref", r)])]));
            }
        }
        Ok(())
    }

    fn strict_object(
        &mut self,
        map: &mut Map<String, Value>,
        ptr: &Pointer<'_>,
    ) -> Result<(), ExportError> {
        let has_props = get(map, "properties").is_some_and(Value::is_object);
        if has_props && !has(map, "type") {
            map.insert("type".into(), Value::String("object".into()));
        }
        if !type_is(map, "object") {
            return Ok(());
        }
        match get(map, "additionalProperties") {
            None => {
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            Some(Value::Bool(false)) => {}
            Some(_) => {
                return Err(self.err(
                    format!("{ptr}/additionalProperties"),
                    ExportErrorKind::MapLike,
                ))
            }
        }
        if self.p.strict == Strict::OpenAi && !has_props {
            map.insert("properties".into(), Value::Object(Map::new()));
        }
        // `properties` (to change) and `required` (to read) at once, in one pass over the keys.
        let (mut props, mut required) = (None, None);
        for (k, v) in map.iter_mut() {
            match (k.as_str(), v) {
                ("properties", Value::Object(m)) => props = Some(m),
                ("required", Value::Array(r)) => required = Some(&*r),
                _ => {}
            }
        }
        let Some(props) = props else {
            return Ok(());
        };
        let required = required.map_or(&[][..], Vec::as_slice);
        let names = props.iter_mut().map(|(k, v)| (k.as_str(), v));
        self.strict_properties(names, required, is_union, make_nullable);
        if self.p.strict == Strict::OpenAi {
            let all = props.keys().map(|k| Value::String(k.clone())).collect();
            map.insert("required".into(), Value::Array(all));
        }
        Ok(())
    }

    /// Moves the constraints the target cannot carry into the description, as phrases; on a
    /// `Map` (the copy-and-lower path) and on a lowered object's entries alike.
    fn move_to_description<'s>(&self, m: &mut impl Members<'s>) {
        let p = self.p;
        if !m.any_key(|k| p.may_move(k)) {
            return;
        }
        // The members that move whatever their value: once they are all taken, the rest of
        // the keyword list is not searched for.
        let mut pending = m.count_keys(|k| p.moves(k));
        // The parenthetical, "(phrase; phrase)", written in one buffer with room for the
        // description it is appended to.
        let mut text = String::new();
        let room = m.description_len() + 1 + 64;
        let next = |text: &mut String| {
            if text.is_empty() {
                text.reserve(room);
                text.push('(');
            } else {
                text.push_str("; ");
            }
        };
        let phrase = |text: &mut String, kw: &str, v: &Value| {
            let mark = text.len();
            next(text);
            if !write_phrase(text, kw, v) {
                text.truncate(mark);
            }
        };
        // Bounds that move together read as one range: "1 to 200 characters", "from 1 to 50".
        for (lo, hi, unit) in [
            ("minLength", "maxLength", " characters"),
            ("minimum", "maximum", ""),
            ("minItems", "maxItems", " items"),
        ] {
            if !(p.moves(lo) && p.moves(hi) && m.has(lo) && m.has(hi)) {
                continue;
            }
            if let (Some(a), Some(b)) = (m.take(lo), m.take(hi)) {
                pending = pending.saturating_sub(2);
                next(&mut text);
                // Writing to a String cannot fail.
                let _ = match (a == b, unit.is_empty()) {
                    (true, _) => write!(text, "exactly {a}{unit}"),
                    (false, true) => write!(text, "from {a} to {b}"),
                    (false, false) => write!(text, "{a} to {b}{unit}"),
                };
            }
        }
        for kw in p.move_to_description.iter().copied().flatten() {
            if pending == 0 {
                break;
            }
            if let Some(v) = m.take(kw) {
                pending -= 1;
                phrase(&mut text, kw, &v);
            }
        }
        if let Some(formats) = p.supported_formats {
            if m.has("format") && !m.str_of("format").is_some_and(|f| formats.contains(&f)) {
                if let Some(v) = m.take("format") {
                    phrase(&mut text, "format", &v);
                }
            }
        }
        if let Some(max) = p.max_min_items {
            if m.u64_of("minItems").is_some_and(|n| n > max) {
                if let Some(v) = m.take("minItems") {
                    phrase(&mut text, "minItems", &v);
                }
            }
        }
        if !text.is_empty() {
            text.push(')');
            m.append_description(text);
        }
    }
}

/// The members of a schema object, as [`Cx::move_to_description`] reads and edits them: a
/// `Map` or the entries of a lowered object (whose moved members are the spec's own values:
/// moved keywords are not walked).
trait Members<'s> {
    fn any_key(&self, f: impl Fn(&str) -> bool) -> bool;
    fn count_keys(&self, f: impl Fn(&str) -> bool) -> usize;
    fn has(&self, key: &str) -> bool;
    fn str_of(&self, key: &str) -> Option<&str>;
    fn u64_of(&self, key: &str) -> Option<u64>;
    /// The length of the string `description`, 0 without one.
    fn description_len(&self) -> usize;
    /// Removes a member (in the order of removal `Map::remove` keeps) and gives its value,
    /// borrowed where the member was.
    fn take(&mut self, key: &str) -> Option<Cow<'s, Value>>;
    /// [`append_description`], `extra` moved in (its buffer becomes the new description where
    /// one is built).
    fn append_description(&mut self, extra: String);
}

impl Members<'static> for Map<String, Value> {
    fn any_key(&self, f: impl Fn(&str) -> bool) -> bool {
        self.keys().any(|k| f(k))
    }
    fn count_keys(&self, f: impl Fn(&str) -> bool) -> usize {
        self.keys().filter(|k| f(k)).count()
    }
    fn has(&self, key: &str) -> bool {
        has(self, key)
    }
    fn str_of(&self, key: &str) -> Option<&str> {
        get(self, key).and_then(Value::as_str)
    }
    fn u64_of(&self, key: &str) -> Option<u64> {
        get(self, key).and_then(Value::as_u64)
    }
    fn description_len(&self) -> usize {
        self.str_of("description").map_or(0, str::len)
    }
    fn take(&mut self, key: &str) -> Option<Cow<'static, Value>> {
        take(self, key).map(Cow::Owned)
    }
    fn append_description(&mut self, extra: String) {
        append_description(self, &extra);
    }
}

impl<'s> Members<'s> for Entries<'s> {
    fn any_key(&self, f: impl Fn(&str) -> bool) -> bool {
        self.keys().any(f)
    }
    fn count_keys(&self, f: impl Fn(&str) -> bool) -> usize {
        self.keys().filter(|k| f(k)).count()
    }
    fn has(&self, key: &str) -> bool {
        self.contains_key(key)
    }
    fn str_of(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Tree::as_str)
    }
    fn u64_of(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(Tree::value).and_then(Value::as_u64)
    }
    fn description_len(&self) -> usize {
        self.get("description")
            .and_then(Tree::value)
            .and_then(Value::as_str)
            .map_or(0, str::len)
    }
    fn take(&mut self, key: &str) -> Option<Cow<'s, Value>> {
        self.remove(key).map(|t| match t {
            Tree::Ref(v) => Cow::Borrowed(v),
            other => Cow::Owned(other.into_value()),
        })
    }
    fn append_description(&mut self, extra: String) {
        append_entries_description(self, extra);
    }
}

/// [`type_is`] of a lowered `type` member. A constant (the `"object"` [`Cx::strict_entries`]
/// adds) is not read as a type name, as before type lists were built as nodes.
fn tree_type_is(t: &Tree<'_>, name: &str) -> bool {
    match t {
        Tree::Arr(a) => a.iter().any(|x| x.as_str() == Some(name)),
        _ => match t.value() {
            Some(Value::String(s)) => s == name,
            Some(Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(name)),
            _ => false,
        },
    }
}

/// Whether a lowered `type` member is an array of types.
fn tree_is_type_list(t: &Tree<'_>) -> bool {
    matches!(t, Tree::Arr(_)) || t.value().is_some_and(Value::is_array)
}

/// [`is_union`] of a lowered subschema.
fn tree_is_union(t: &Tree<'_>) -> bool {
    match t {
        Tree::Obj(e) => {
            e.contains_key("anyOf")
                || e.contains_key("oneOf")
                || e.get("type").is_some_and(tree_is_type_list)
        }
        Tree::Ref(v) => is_union(v),
        Tree::Val(v) => is_union(v),
        Tree::Str(_) | Tree::Arr(_) => false,
    }
}

/// [`append_description`] on the members of a lowered object: the description, trimmed at the
/// end, a space and `extra` are written into `extra`'s buffer (which has room for them when
/// it was made with the description's length in mind).
fn append_entries_description(e: &mut Entries<'_>, mut extra: String) {
    if let Some(d) = e
        .get("description")
        .and_then(Tree::value)
        .and_then(Value::as_str)
    {
        if !d.trim().is_empty() {
            let d = d.trim_end();
            extra.insert(0, ' ');
            extra.insert_str(0, d);
        }
    }
    e.insert("description", Tree::Val(Value::String(extra)));
}

/// [`make_nullable`] of a lowered property.
fn make_tree_nullable(prop: &mut Tree<'_>) {
    if !prop.is_object() {
        return;
    }
    let m = prop.make_entries();
    let add_null_to_enum = |m: &mut Entries<'_>| {
        if let Some(c) = m.remove("const") {
            let mut values = Vec::with_capacity(2);
            values.push(c);
            m.insert("enum", Tree::Arr(values));
        }
        if let Some(values) = m.get_mut("enum").and_then(Tree::make_array) {
            if !values.iter().any(|v| v.value() == Some(&Value::Null)) {
                values.push(Tree::Val(Value::Null));
            }
        }
    };
    // A single type name of the spec or built, borrowed where the lowered member is (a
    // constant `type`, the `"object"` of `Cx::strict_entries`, is not read as one).
    let single = match m.get("type") {
        Some(&Tree::Ref(Value::String(t))) => Some(Tree::Str(t)),
        Some(Tree::Val(Value::String(t))) => Some(Tree::Val(Value::String(t.clone()))),
        _ => None,
    };
    match single {
        Some(t) if t.as_str() == Some("null") => {}
        Some(t) => {
            let pair = match t.as_str().and_then(nullable_type) {
                Some(shared) => Tree::Ref(shared),
                None => Tree::Arr(vec![t, Tree::Str("null")]),
            };
            m.insert("type", pair);
            add_null_to_enum(m);
        }
        None if m.get("type").is_some_and(tree_is_type_list) => {
            if let Some(ts) = m.get_mut("type").and_then(Tree::make_array) {
                if !ts.iter().any(|t| t.as_str() == Some("null")) {
                    ts.push(Tree::Str("null"));
                }
            }
            add_null_to_enum(m);
        }
        None => {
            if let Some(branches) = m.get_mut("anyOf").and_then(Tree::make_array) {
                if !branches.iter().any(|b| b.get_str("type") == Some("null")) {
                    branches.push(Tree::Val(json!({"type": "null"})));
                }
                return;
            }
            let mut outer = Vec::new();
            for k in ["title", "description"] {
                if let Some(v) = m.remove(k) {
                    outer.push((k, v));
                }
            }
            let inner = std::mem::take(m);
            m.insert(
                "anyOf",
                Tree::Arr(vec![Tree::Obj(inner), Tree::Val(json!({"type": "null"}))]),
            );
            for (k, v) in outer {
                m.insert(k, v);
            }
        }
    }
}

/// Merges `allOf` branches that are plain objects (no `$ref`) into their parent.
fn merge_all_of(map: &mut Map<String, Value>) {
    let mergeable = match get(map, "allOf") {
        Some(Value::Array(branches)) => branches
            .iter()
            .all(|b| b.as_object().is_some_and(|o| !has(o, "$ref"))),
        _ => false,
    };
    if !mergeable {
        return;
    }
    let Some(Value::Array(branches)) = map.remove("allOf") else {
        return;
    };
    for branch in branches {
        let Value::Object(b) = branch else { continue };
        for (k, v) in b {
            match (k.as_str(), map.get_mut(&k), v) {
                ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                    for (pk, pv) in theirs {
                        mine.entry(pk).or_insert(pv);
                    }
                }
                ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                    for r in theirs {
                        if !mine.contains(&r) {
                            mine.push(r);
                        }
                    }
                }
                ("description", Some(Value::String(mine)), Value::String(theirs)) => {
                    if !mine.contains(theirs.as_str()) {
                        mine.push(' ');
                        mine.push_str(&theirs);
                    }
                }
                (_, Some(_), _) => {}
                (_, None, v) => {
                    map.insert(k, v);
                }
            }
        }
    }
}

/// A constant union that collapses: the constants' JSON type, whether a branch has a label,
/// and the description text (`prefix`, then "One of: low (Reply within 3 days), high (Reply
/// today).").
struct ConstUnion {
    kind: &'static str,
    any_label: bool,
    text: String,
}

/// The [`ConstUnion`] of `branches` when each one is a `{const, title?, description?}` scalar
/// and all are of one type; `None` otherwise. `prefix` (a description to extend) starts the
/// text, followed by a space when it is not empty.
fn const_union(branches: &[Value], prefix: &str) -> Option<ConstUnion> {
    if branches.is_empty() {
        return None;
    }
    let mut kind: Option<&'static str> = None;
    let mut any_label = false;
    // The description's addition, written as the branches are checked.
    let mut text = String::with_capacity(prefix.len() + 16 + 48 * branches.len());
    if !prefix.is_empty() {
        text.push_str(prefix);
        text.push(' ');
    }
    text.push_str("One of: ");
    for (i, b) in branches.iter().enumerate() {
        let (k, c, label) = const_branch(b)?;
        match kind {
            None => kind = Some(k),
            Some(prev) if prev == k => {}
            Some(_) => return None,
        }
        if i > 0 {
            text.push_str(", ");
        }
        match c.as_str() {
            Some(shown) => text.push_str(shown),
            None => text.push_str(&c.to_string()),
        }
        if let Some(l) = label {
            any_label = true;
            text.push_str(" (");
            text.push_str(l);
            text.push(')');
        }
    }
    text.push('.');
    Some(ConstUnion {
        kind: kind?,
        any_label,
        text,
    })
}

/// The JSON type name `kind` as a shared string value (what a collapsed union's added `type`
/// borrows).
fn type_name(kind: &'static str) -> &'static Value {
    const NAMES: [&str; 4] = ["string", "boolean", "integer", "number"];
    static VALUES: std::sync::LazyLock<[Value; 4]> =
        std::sync::LazyLock::new(|| NAMES.map(|n| Value::String(n.to_string())));
    let i = NAMES.iter().position(|n| *n == kind).unwrap_or_default();
    &VALUES[i]
}

/// The type list `[t, "null"]` of a JSON type name `t` as a shared value (what an optional
/// property's nullable `type` borrows); `None` for any other name.
fn nullable_type(t: &str) -> Option<&'static Value> {
    const NAMES: [&str; 6] = ["string", "integer", "number", "boolean", "object", "array"];
    static PAIRS: std::sync::LazyLock<[Value; 6]> = std::sync::LazyLock::new(|| {
        NAMES.map(|n| Value::Array(vec![Value::String(n.into()), Value::String("null".into())]))
    });
    NAMES.iter().position(|n| *n == t).map(|i| &PAIRS[i])
}

/// `oneOf`/`anyOf` of `{const, title?, description?}` scalars of one type → `type` + `enum`,
/// with the variants' titles moved into the description.
fn collapse_const_union(map: &mut Map<String, Value>) {
    let key = if has(map, "oneOf") { "oneOf" } else { "anyOf" };
    let Some(Value::Array(branches)) = get(map, key) else {
        return;
    };
    let Some(union) = const_union(branches, "") else {
        return;
    };
    let Some(Value::Array(branches)) = map.remove(key) else {
        return;
    };
    // Every branch is a `{const, ...}` object (checked above): its constant moves out.
    let values: Vec<Value> = branches
        .into_iter()
        .filter_map(|b| match b {
            Value::Object(o) => o.into_iter().find_map(|(k, v)| (k == "const").then_some(v)),
            _ => None,
        })
        .collect();
    if !has(map, "type") {
        map.insert("type".into(), Value::String(union.kind.into()));
    }
    map.insert("enum".into(), Value::Array(values));
    if union.any_label {
        append_description(map, &union.text);
    }
}

/// A branch of a constant union, `{const, title?, description?}` with a scalar constant: the
/// constant's JSON type, the constant, and its label (the title, else the description). `None`
/// for any other branch.
fn const_branch(branch: &Value) -> Option<(&'static str, &Value, Option<&str>)> {
    let o = branch.as_object()?;
    if o.keys()
        .any(|k| !matches!(k.as_str(), "const" | "title" | "description"))
    {
        return None;
    }
    let c = get(o, "const")?;
    let kind = match c {
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        _ => return None,
    };
    let label = get(o, "title")
        .or_else(|| get(o, "description"))
        .and_then(Value::as_str);
    Some((kind, c, label))
}

/// Makes an optional property accept `null` (OpenAI strict: null means absent).
fn make_nullable(prop: &mut Value) {
    let Value::Object(m) = prop else { return };
    let null = Value::String("null".into());
    let add_null_to_enum = |m: &mut Map<String, Value>| {
        if let Some(c) = m.remove("const") {
            m.insert("enum".into(), Value::Array(vec![c]));
        }
        if let Some(Value::Array(values)) = m.get_mut("enum") {
            if !values.contains(&Value::Null) {
                values.push(Value::Null);
            }
        }
    };
    match m.get_mut("type") {
        Some(Value::String(t)) if t == "null" => {}
        Some(t @ Value::String(_)) => {
            *t = Value::Array(vec![t.clone(), null]);
            add_null_to_enum(m);
        }
        Some(Value::Array(ts)) => {
            if !ts.contains(&null) {
                ts.push(null);
            }
            add_null_to_enum(m);
        }
        _ => {
            if let Some(Value::Array(branches)) = m.get_mut("anyOf") {
                if !branches
                    .iter()
                    .any(|b| b.get("type") == Some(&Value::String("null".into())))
                {
                    branches.push(json!({"type": "null"}));
                }
                return;
            }
            let mut outer = Map::new();
            for k in ["title", "description"] {
                if let Some(v) = m.remove(k) {
                    outer.insert(k.into(), v);
                }
            }
            let inner = std::mem::take(m);
            let mut wrapped = Map::new();
            wrapped.insert(
                "anyOf".into(),
                Value::Array(vec![Value::Object(inner), json!({"type": "null"})]),
            );
            wrapped.extend(outer);
            *m = wrapped;
        }
    }
}

/// Lowers one JSON Schema for a profile; `base` is its pointer in the tool definition.
///
/// Copy on write: a profile that changes nothing below the root (no `$ref` inlining, no pass
/// over the subschemas, no boolean property schema to normalize) borrows every member of the
/// root and only drops `$schema` where the profile says so; the others lower an owned copy.
pub(crate) fn lower_schema<'a>(
    p: &Passes,
    tool: &str,
    schema: &'a Value,
    base: &str,
    is_input: bool,
) -> Result<(Tree<'a>, Stats), ExportError> {
    let mut cx = Cx {
        p,
        tool,
        defs: Map::new(),
        defs_ptr: base,
        stats: Stats::default(),
    };
    let root = match schema {
        Value::Object(m) => m,
        _ if is_input => return Err(cx.err(base, ExportErrorKind::NonObjectRoot)),
        _ => return Ok((Tree::Ref(schema), cx.stats)),
    };
    if is_input {
        cx.check_input_root(root, base)?;
    }
    let tree = if cx.copies_root(schema, root) {
        let mut owned = schema.clone();
        cx.lower_copy(&mut owned, base)?;
        Tree::Val(owned)
    } else {
        cx.lower_borrowed(schema, root, base)?
    };
    Ok((tree, cx.stats))
}

impl SchemaUri {
    /// Whether the root object `root` loses its `$schema` under this rule.
    fn drops(self, root: &Map<String, Value>) -> bool {
        match self {
            SchemaUri::Keep => false,
            SchemaUri::Strip => has(root, "$schema"),
        }
    }
}

impl Passes {
    /// Whether `x-mcp-header` annotations stay on the properties: only in MCP 2026-07-28, the
    /// revision that defines them; every other target drops them ([`strip_mcp_headers`]), as a
    /// strict platform refuses a keyword it does not know.
    fn keeps_mcp_headers(&self) -> bool {
        self.target == Target::Mcp(McpVersion::V2026_07_28)
    }

    /// Whether boolean property schemas become objects ([`normalize_boolean_properties`]):
    /// everywhere but MCP 2026-07-28, whose schemas keep them.
    fn normalizes_boolean_properties(&self) -> bool {
        self.target != Target::Mcp(McpVersion::V2026_07_28)
    }
}

impl Cx<'_> {
    /// The checks on the root of an input schema at `base`: it is typed `object` and has none
    /// of the keywords the profile forbids at the root.
    fn check_input_root(&self, root: &Map<String, Value>, base: &str) -> Result<(), ExportError> {
        if get(root, "type").and_then(Value::as_str) != Some("object") {
            return Err(self.err(format!("{base}/type"), ExportErrorKind::NonObjectRoot));
        }
        if let Some(kw) = self.p.root_forbidden.iter().find(|k| has(root, k)) {
            return Err(self.err(
                format!("{base}/{kw}"),
                ExportErrorKind::RootKeyword {
                    keyword: kw.to_string(),
                },
            ));
        }
        Ok(())
    }

    /// Whether the schema (its root object `root`) is lowered on an owned copy
    /// ([`Cx::lower_copy`]) rather than borrowed ([`Cx::lower_borrowed`]): when `$ref`s are to
    /// be inlined, boolean property schemas normalized (rare in a canonical schema) or the walk
    /// touches the root object itself in a way it cannot do on borrowed members.
    fn copies_root(&self, schema: &Value, root: &Map<String, Value>) -> bool {
        let p = self.p;
        (p.inline_refs && has_key(schema, "$ref"))
            || (p.normalizes_boolean_properties() && has_boolean_property(schema))
            || (!p.keeps_mcp_headers() && has_mcp_header(root))
            || (p.walks_nodes() && self.touches(root) && !self.in_place(root))
    }

    /// The copy-on-write lowering of a schema whose root object `root` [`Cx::copies_root`]
    /// leaves borrowed: the schema itself when the profile changes nothing, else the root's
    /// members, less the removals of the owned path ([`root_members`]), with the subschemas the
    /// walk changes lowered and the others borrowed.
    fn lower_borrowed<'s>(
        &mut self,
        schema: &'s Value,
        root: &'s Map<String, Value>,
        base: &str,
    ) -> Result<Tree<'s>, ExportError> {
        let p = self.p;
        let drop_uri = p.schema_uri.drops(root);
        let drop_defs = p.inline_refs && has(root, "$defs");
        if !(p.walks_nodes() || drop_uri || drop_defs) {
            return Ok(Tree::Ref(schema));
        }
        let (members, removed) = root_members(root, drop_uri, drop_defs);
        let ptr = Pointer::root(base);
        if p.walks_nodes() && self.touches(root) {
            let e = self.walk_in_place(root, members.into_iter(), &ptr)?;
            return Ok(Tree::Obj(e));
        }
        // Without a walk this is reached only for a removal above, so the members are always
        // lowered; with one, when a subschema changed or a member was removed.
        let lowered = if p.walks_nodes() {
            self.walk_members(members.into_iter(), &ptr, removed)?
        } else {
            let mut e = Entries::with_capacity(members.len());
            for (k, v) in members {
                e.push(k, Tree::Ref(v));
            }
            Some(e)
        };
        Ok(match lowered {
            Some(e) => Tree::Obj(e),
            None => Tree::Ref(schema),
        })
    }

    /// The lowering of an owned copy `s` of a schema at `base`, in place: the root's `$schema`
    /// dropped where the profile says so, `$ref`s inlined (the root's `$defs` taken out as the
    /// definitions), boolean property schemas normalized, then the walk over every subschema.
    fn lower_copy(&mut self, s: &mut Value, base: &str) -> Result<(), ExportError> {
        let p = self.p;
        let Value::Object(root) = s else {
            return Ok(());
        };
        if p.schema_uri.drops(root) {
            root.remove("$schema");
        }
        if p.inline_refs {
            if let Some(Value::Object(defs)) = take(root, "$defs") {
                self.defs = defs;
            }
            self.inline(s, &Pointer::root(base), &mut RefStack::default())?;
        }
        if !p.keeps_mcp_headers() {
            strip_mcp_headers(s);
        }
        if p.normalizes_boolean_properties() {
            normalize_boolean_properties(s);
        }
        if p.walks_nodes() {
            self.walk(s, &Pointer::root(base))?;
        }
        Ok(())
    }
}

/// The members of a borrowed root object with the removals of the owned path made as it makes
/// them, each moving the last member into the gap (as `Map::remove` does): `$schema` when
/// `drop_uri`, then `$defs` when `drop_defs` (`$ref`s are inlined and there are none, so the
/// definitions are dropped). The flag tells whether a member was removed.
fn root_members(
    root: &Map<String, Value>,
    drop_uri: bool,
    drop_defs: bool,
) -> (Vec<(&str, &Value)>, bool) {
    let mut members: Vec<(&str, &Value)> = root.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let mut removed = false;
    for (drop, key) in [(drop_uri, "$schema"), (drop_defs, "$defs")] {
        if let Some(i) = members.iter().position(|(k, _)| drop && *k == key) {
            members.swap_remove(i);
            removed = true;
        }
    }
    (members, removed)
}

/// Whether any object anywhere in `node` has a member `key`.
/// Whether a property reached through `properties` keys from `root` carries `x-mcp-header`
/// (the only place the annotation may be; the toolbox refuses it elsewhere).
fn has_mcp_header(root: &Map<String, Value>) -> bool {
    get(root, "properties")
        .and_then(Value::as_object)
        .is_some_and(|props| {
            props.values().any(|p| {
                p.as_object()
                    .is_some_and(|p| has(p, HEADER_KEYWORD) || has_mcp_header(p))
            })
        })
}

/// Removes `x-mcp-header` from every property reached through `properties` keys.
fn strip_mcp_headers(node: &mut Value) {
    let Some(Value::Object(props)) = node.get_mut("properties") else {
        return;
    };
    for prop in props.values_mut() {
        if let Value::Object(p) = prop {
            p.remove(HEADER_KEYWORD);
        }
        strip_mcp_headers(prop);
    }
}

fn has_key(node: &Value, key: &str) -> bool {
    match node {
        Value::Object(m) => m.iter().any(|(k, v)| k == key || has_key(v, key)),
        Value::Array(a) => a.iter().any(|v| has_key(v, key)),
        _ => false,
    }
}

/// Whether any object anywhere in `node` has a `properties` object with a boolean member: a
/// superset of what [`normalize_boolean_properties`] changes (it looks only at subschemas), so
/// `false` means that pass changes nothing.
fn has_boolean_property(node: &Value) -> bool {
    match node {
        Value::Object(m) => m.iter().any(|(k, v)| {
            (k == "properties"
                && v.as_object()
                    .is_some_and(|p| p.values().any(Value::is_boolean)))
                || has_boolean_property(v)
        }),
        Value::Array(a) => a.iter().any(has_boolean_property),
        _ => false,
    }
}

/// `true`/`false` property schemas → `{}` / `{"not": {}}` (MCP's typed shape wants objects).
fn normalize_boolean_properties(node: &mut Value) {
    let Value::Object(map) = node else { return };
    if let Some(Value::Object(props)) = get_mut(map, "properties") {
        for v in props.values_mut() {
            match v {
                Value::Bool(true) => *v = json!({}),
                Value::Bool(false) => *v = json!({"not": {}}),
                _ => {}
            }
        }
    }
    walk::for_each_child_mut(map, |_, child| normalize_boolean_properties(child));
}

/// A JSON object of `entries`, in order. The values move in: `json!` would serialize each one
/// into a new `Value` (a deep copy of a lowered schema).
pub(crate) fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// One tool lowered for a profile, borrowing from `spec` what the lowering leaves unchanged.
pub(crate) fn lower_tool<'a>(
    spec: &'a ToolSpec,
    p: &Passes,
) -> Result<(Tree<'a>, Stats), ExportError> {
    check_name_and_description(spec, p)?;
    let (input, stats) = lower_schema(p, &spec.name, &spec.input_schema, "/inputSchema", true)?;
    let name = || Tree::Str(&spec.name);
    let description = || Tree::Str(&spec.description);
    let tool = match p.target {
        Target::Mcp(version) => Tree::Obj(mcp_tool(spec, p, version, input)?),
        Target::OpenAiChat { strict } => Tree::object([
            ("type", Tree::Str("function")),
            (
                "function",
                Tree::object([
                    ("name", name()),
                    ("description", description()),
                    ("parameters", input),
                    ("strict", Tree::Val(Value::Bool(strict))),
                ]),
            ),
        ]),
        Target::OpenAiResponses { strict } => Tree::object([
            ("type", Tree::Str("function")),
            ("name", name()),
            ("description", description()),
            ("parameters", input),
            ("strict", Tree::Val(Value::Bool(strict))),
        ]),
        Target::Anthropic { strict } => {
            let mut tool = Entries::with_capacity(5);
            tool.insert("name", name());
            tool.insert("description", description());
            tool.insert("input_schema", input);
            if strict {
                tool.insert("strict", Tree::Val(Value::Bool(true)));
            }
            // Example calls the model reads beside the schema (`input_examples`); the list is
            // the spec's, unchanged.
            if !spec.examples.is_empty() {
                tool.insert(
                    "input_examples",
                    Tree::Arr(spec.examples.iter().map(Tree::Ref).collect()),
                );
            }
            Tree::Obj(tool)
        }
        Target::Gemini => Tree::object([
            ("name", name()),
            ("description", description()),
            ("parametersJsonSchema", input),
        ]),
        Target::WebMcp => Tree::Obj(web_mcp_tool(spec, input)),
    };
    Ok((tool, stats))
}

/// The profile's rules for a tool's name and description: the target's name rule, a required
/// description, its length limit.
fn check_name_and_description(spec: &ToolSpec, p: &Passes) -> Result<(), ExportError> {
    let err = |pointer: &str, kind| ExportError {
        tool: spec.name.clone(),
        target: p.target,
        pointer: pointer.into(),
        kind,
    };
    let rule = p.target.name_rule();
    if !rule.accepts(&spec.name) {
        return Err(err("/name", ExportErrorKind::InvalidName { rule }));
    }
    if p.description_required && spec.description.trim().is_empty() {
        return Err(err("/description", ExportErrorKind::MissingDescription));
    }
    if let Some(max) = p.max_description {
        let len = spec.description.chars().count();
        if len > max {
            return Err(err(
                "/description",
                ExportErrorKind::DescriptionTooLong { len, max },
            ));
        }
    }
    Ok(())
}

/// The MCP `_meta` key under which a tool's example calls ([`ToolSpec::examples`]) are kept.
pub(crate) const EXAMPLES_META_KEY: &str = "toolsmith/examples";

/// The MCP `_meta` key that marks a tool whose approval is decided per call by a condition on
/// its arguments ([`Effects::conditional_approval`](crate::spec::Effects::conditional_approval));
/// its value is `"conditional"`.
pub(crate) const APPROVAL_META_KEY: &str = "toolsmith/approval";

/// An MCP tool object: name, title, description, the lowered input schema, the output schema
/// (shaped so `structuredContent` fits it on every status, [`super::mcp`]), the behaviour hints
/// and, under `_meta`, the tool's lint allowances, its example calls, its deprecation and its
/// kind of content.
fn mcp_tool<'a>(
    spec: &'a ToolSpec,
    p: &Passes,
    version: McpVersion,
    input: Tree<'a>,
) -> Result<Entries<'a>, ExportError> {
    let mut tool = titled_tool(spec, input);
    // A tool that answers with content blocks has an output schema only for the data beside
    // them (`structuredContent`); the blocks are the result's `content`.
    if let Some(out) = spec.data_schema() {
        let data = lower_schema(p, &spec.name, out, "/outputSchema", false)?.0;
        tool.insert("outputSchema", super::mcp::output_schema(data, version));
    }
    tool.insert(
        "annotations",
        Tree::Val(Value::Object(mcp_annotations(spec))),
    );
    // Icons (a field since 2025-11-25), for the client's user interface.
    if !spec.icons.is_empty() && version != McpVersion::V2025_06_18 {
        tool.insert("icons", Tree::Val(json!(spec.icons)));
    }
    // Task support: a field of 2025-11-25 only (absent means forbidden); 2026-07-28 moved tasks
    // to an extension where the server decides per call.
    if !spec.task.is_forbidden() && version == McpVersion::V2025_11_25 {
        tool.insert(
            "execution",
            Tree::Val(json!({"taskSupport": spec.task.as_str()})),
        );
    }
    let mut meta = Map::new();
    if !spec.allows.is_empty() {
        let allows: Vec<Value> = spec
            .allows
            .iter()
            .map(|a| json!({"rule": a.rule, "reason": a.reason}))
            .collect();
        meta.insert("toolsmith/allows".into(), Value::Array(allows));
    }
    // MCP has no field for example calls: they travel in `_meta`, for clients that read them.
    if !spec.examples.is_empty() {
        meta.insert(
            EXAMPLES_META_KEY.into(),
            Value::Array(spec.examples.clone()),
        );
    }
    // MCP's annotations have no approval hint: a tool whose approval a condition on the
    // arguments decides says so here, for hosts that show it before a call.
    if spec.effects.conditional_approval {
        meta.insert(APPROVAL_META_KEY.into(), json!("conditional"));
    }
    // The deprecation, for clients that read it (the model reads the notice in the description).
    if let Some(d) = &spec.deprecated {
        meta.insert(
            crate::deprecation::DEPRECATED_META_KEY.into(),
            serde_json::to_value(d).unwrap_or(Value::Null),
        );
    }
    // What comes back besides (or instead of) `structuredContent`: the kind of content blocks.
    if let Some(kind) = spec.content_kind() {
        meta.insert("toolsmith/content".into(), json!(kind.as_str()));
    }
    if !meta.is_empty() {
        tool.insert("_meta", Tree::Val(Value::Object(meta)));
    }
    Ok(tool)
}

/// The start of an MCP or WebMCP tool object: its name, title (when it has one), description
/// and lowered `inputSchema`.
fn titled_tool<'a>(spec: &'a ToolSpec, input: Tree<'a>) -> Entries<'a> {
    // Room for what the MCP and WebMCP tool objects add: outputSchema, annotations, _meta.
    let mut tool = Entries::with_capacity(7);
    tool.insert("name", Tree::Str(&spec.name));
    if let Some(t) = &spec.title {
        tool.insert("title", Tree::Str(t));
    }
    tool.insert("description", Tree::Str(&spec.description));
    tool.insert("inputSchema", input);
    tool
}

/// MCP's behaviour hints from the tool's declared effects (a read-only tool is neither
/// destructive nor anything but idempotent).
fn mcp_annotations(spec: &ToolSpec) -> Map<String, Value> {
    let e = &spec.effects;
    let mut ann = Map::with_capacity(5);
    if let Some(t) = &spec.title {
        ann.insert("title".into(), json!(t));
    }
    ann.insert("readOnlyHint".into(), json!(e.read_only));
    ann.insert(
        "destructiveHint".into(),
        json!(!e.read_only && e.destructive),
    );
    ann.insert("idempotentHint".into(), json!(e.read_only || e.idempotent));
    ann.insert("openWorldHint".into(), json!(e.open_world));
    ann
}

/// A WebMCP tool object: name, title, description, the lowered input schema and WebMCP's own
/// hints.
fn web_mcp_tool<'a>(spec: &'a ToolSpec, input: Tree<'a>) -> Entries<'a> {
    let e = &spec.effects;
    let mut tool = titled_tool(spec, input);
    tool.insert(
        "annotations",
        Tree::Val(json!({
            "readOnlyHint": e.read_only,
            "untrustedContentHint": e.untrusted_output,
            "consequentialHint": e.writes || e.destructive || e.requires_approval,
        })),
    );
    tool
}

/// A tool list lowered for one target: the tools that made it (with their index in the spec
/// list) and, in spec order, the errors of those that did not.
pub(crate) struct Assembled<'a> {
    pub tools: Vec<(usize, Tree<'a>)>,
    pub failures: Vec<ExportError>,
}

/// How far [`assemble`] goes after a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Until {
    /// Stop at the first failure ([`super::export`] reports only that one).
    FirstFailure,
    /// Lower every spec ([`super::write_artifacts`] lists every failure).
    End,
}

/// Lowers every spec in export order ([`super::loading::order`]), then applies the list-level
/// rules (namespaces, unique names, per-request limits) greedily in that order: the tool that would exceed a limit fails, the rest still export
/// (unless `until` stops at the first failure).
pub(crate) fn assemble(specs: &[ToolSpec], target: Target, until: Until) -> Assembled<'_> {
    let p = Passes::of(target);
    let mut seen = HashSet::new();
    let mut out = Assembled {
        tools: Vec::with_capacity(specs.len()),
        failures: Vec::new(),
    };
    let mut totals = Stats::default();
    // Only OpenAI Responses exports namespaces; the other targets ignore them.
    let mut namespace_errors = match target {
        Target::OpenAiResponses { .. } => super::loading::namespace_errors(specs, target),
        _ => Default::default(),
    };
    // In export order (namespace, then name), whatever the order of `specs`.
    for i in super::loading::order(specs) {
        let spec = &specs[i];
        let fail = |pointer: &str, kind| ExportError {
            tool: spec.name.clone(),
            target,
            pointer: pointer.into(),
            kind,
        };
        let admitted = if let Some(e) = namespace_errors.remove(&i) {
            Err(e)
        } else if seen.insert(spec.name.as_str()) {
            lower_tool(spec, &p).and_then(|(tool, stats)| {
                match request_limit_exceeded(&p, out.tools.len() + 1, &totals, &stats) {
                    // The tool count is the tool's own doing; the other limits its parameters'.
                    Some(kind) => {
                        let tools_limit = matches!(&kind, ExportErrorKind::RequestLimit { what, .. } if what.ends_with("tools"));
                        let pointer = if tools_limit { "/name" } else { "/inputSchema" };
                        Err(fail(pointer, kind))
                    }
                    None => Ok((tool, stats)),
                }
            })
        } else {
            Err(fail("/name", ExportErrorKind::DuplicateName))
        };
        match admitted {
            Ok((tool, stats)) => {
                totals.optional_params += stats.optional_params;
                totals.union_params += stats.union_params;
                out.tools.push((i, tool));
            }
            Err(e) => {
                out.failures.push(e);
                if until == Until::FirstFailure {
                    break;
                }
            }
        }
    }
    out
}

/// The first per-request limit of the profile that a list of `tools` tools would exceed when
/// its last one (of `stats`) joins those already in (of `totals`): the tool count, then the
/// optional parameters, then the union-typed ones.
fn request_limit_exceeded(
    p: &Passes,
    tools: usize,
    totals: &Stats,
    stats: &Stats,
) -> Option<ExportErrorKind> {
    let limit = |what: &'static str, count: usize, max: Option<usize>| match max {
        Some(max) if count > max => Some(ExportErrorKind::RequestLimit { what, count, max }),
        _ => None,
    };
    let tools_what = if p.strict == Strict::No {
        "tools"
    } else {
        "strict tools"
    };
    limit(tools_what, tools, p.max_tools)
        .or_else(|| {
            limit(
                "optional parameters",
                totals.optional_params + stats.optional_params,
                p.max_optional_params,
            )
        })
        .or_else(|| {
            limit(
                "union-typed parameters",
                totals.union_params + stats.union_params,
                p.max_union_params,
            )
        })
}

/// Wraps a target's tool array in the document shape the target uses.
pub(crate) fn wrap_list(target: Target, tools: Vec<Tree<'_>>) -> Tree<'_> {
    match target {
        Target::Mcp(_) => Tree::object([("tools", Tree::Arr(tools))]),
        Target::Gemini => Tree::object([("functionDeclarations", Tree::Arr(tools))]),
        _ => Tree::Arr(tools),
    }
}
