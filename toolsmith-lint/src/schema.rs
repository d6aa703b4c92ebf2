//! Walking a JSON Schema: every subschema, and the fields of object types (following local
//! `$ref`s into `$defs` / `definitions`).

use crate::doc::{Node, Obj};
use crate::text::FastSet;

use crate::walk::{self, Member, Pass, Pointer};

/// Calls `f(schema, pointer)` for every subschema object of `node` (itself included), each once,
/// in document order. `$ref`s are not followed: definitions are visited where they are written.
pub(crate) fn visit_schemas<'a>(
    node: &'a Node<'a>,
    pointer: &str,
    f: &mut dyn FnMut(Obj<'a>, &Pointer<'_>),
) {
    walk::visit_of(
        node,
        &Pointer::root(pointer),
        &mut |n: &'a Node<'a>, ptr| {
            if let Some(obj) = n.as_object() {
                f(obj, ptr);
            }
        },
    );
}

/// Resolves a local `$ref` against the schema root: the target and its pointer relative to the
/// root (`""` for the root).
pub(crate) fn resolve_ref<'a>(
    root: &'a Node<'a>,
    reference: &str,
) -> Option<(&'a Node<'a>, String)> {
    walk::resolve_ref(root, reference)
        .ok()
        .map(|(v, p)| (v, p.into_owned()))
}

/// A field of an object type inside an input schema.
pub(crate) struct Field<'a> {
    /// The property name.
    pub name: &'a str,
    /// The property's schema.
    pub schema: &'a Node<'a>,
    /// Pointer of the property's schema, e.g. `/inputSchema/properties/filters/properties/size`.
    pub pointer: String,
    /// 0 for the tool's parameters, 1 for their fields, and so on.
    pub depth: usize,
}

/// Every field of every object type reachable from the input schema's root: its parameters, and
/// recursively the fields of object-typed parameters through every subschema keyword of
/// [`walk::KEYWORDS`] (definitions through the local `$ref`s that use them, see
/// [`Pass::LintFields`]). Each object type is visited once (shared and recursive definitions
/// included), so fields of a `$defs` entry are reported at their place in `$defs`.
pub(crate) fn fields<'a>(root: &'a Node<'a>, base: &str) -> Vec<Field<'a>> {
    let mut out = Vec::new();
    if fields_without_refs(root, &Pointer::root(base), 0, &mut out) {
        return out;
    }
    out.clear();
    let mut seen = FastSet::default();
    collect_fields(root, root, base, base, 0, &mut seen, &mut out);
    out
}

/// [`collect_fields`] of a schema without `$ref`s, with no set of visited pointers and no
/// pointer string but each field's: without references the walk reaches each object once, at
/// a pointer of its own, so the set would turn nothing away. Returns `false` (with `out`
/// partly filled) when it meets a `$ref`; the caller then walks again with the set.
fn fields_without_refs<'a>(
    node: &'a Node<'a>,
    pointer: &Pointer<'_>,
    depth: usize,
    out: &mut Vec<Field<'a>>,
) -> bool {
    let Some(obj) = node.as_object() else {
        return true;
    };
    if obj.get("$ref").and_then(Node::as_str).is_some() {
        return false;
    }
    let mut ok = true;
    walk::for_each_child_of(obj.iter(), |step, schema| {
        if !ok || !step.keyword.walked_by(Pass::LintFields) {
            return;
        }
        let here = pointer.step(step);
        ok = match (step.keyword.name, step.member) {
            ("properties", Member::Name(name)) => {
                out.push(Field {
                    name,
                    schema,
                    pointer: here.render(),
                    depth,
                });
                fields_without_refs(schema, &here, depth + 1, out)
            }
            _ => fields_without_refs(schema, &here, depth, out),
        };
    });
    ok
}

fn collect_fields<'a>(
    root: &'a Node<'a>,
    node: &'a Node<'a>,
    base: &str,
    pointer: &str,
    depth: usize,
    seen: &mut FastSet<String>,
    out: &mut Vec<Field<'a>>,
) {
    let Some(obj) = node.as_object() else { return };
    if !seen.insert(pointer.to_string()) {
        return;
    }
    if let Some(reference) = obj.get("$ref").and_then(Node::as_str) {
        if let Some((target, rel)) = resolve_ref(root, reference) {
            let here = format!("{base}{rel}");
            collect_fields(root, target, base, &here, depth, seen, out);
        }
    }
    let start = Pointer::root(pointer);
    walk::for_each_child_of(obj.iter(), |step, schema| {
        if !step.keyword.walked_by(Pass::LintFields) {
            return;
        }
        let here = start.step(step).render();
        match (step.keyword.name, step.member) {
            ("properties", Member::Name(name)) => {
                out.push(Field {
                    name,
                    schema,
                    pointer: here.clone(),
                    depth,
                });
                collect_fields(root, schema, base, &here, depth + 1, seen, out);
            }
            _ => collect_fields(root, schema, base, &here, depth, seen, out),
        }
    });
}

/// The description a model reads for a schema: its own non-blank `description`, else that of its
/// `$ref` target, else that of its single non-null `allOf`/`anyOf`/`oneOf` branch (how schemars
/// writes `Option<T>` and documented references).
pub(crate) fn effective_description<'a>(root: &'a Node<'a>, node: &'a Node<'a>) -> Option<&'a str> {
    effective_description_inner(root, node, 0)
}

fn effective_description_inner<'a>(
    root: &'a Node<'a>,
    node: &'a Node<'a>,
    hops: usize,
) -> Option<&'a str> {
    if hops > 16 {
        return None;
    }
    let obj = node.as_object()?;
    if let Some(d) = obj.get("description").and_then(Node::as_str) {
        if !d.trim().is_empty() {
            return Some(d);
        }
    }
    if let Some(r) = obj.get("$ref").and_then(Node::as_str) {
        if let Some((target, _)) = resolve_ref(root, r) {
            if let Some(d) = effective_description_inner(root, target, hops + 1) {
                return Some(d);
            }
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(branches) = obj.get(key).and_then(Node::as_array) {
            let mut non_null = branches
                .iter()
                .filter(|b| b.get("type").and_then(Node::as_str) != Some("null"));
            if let (Some(only), None) = (non_null.next(), non_null.next()) {
                if let Some(d) = effective_description_inner(root, only, hops + 1) {
                    return Some(d);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use bumpalo::Bump;

    #[test]
    fn fields_follow_refs_items_and_branches_once() {
        let schema = json!({
            "type": "object",
            "properties": {
                "filters": {"$ref": "#/$defs/Filters"},
                "more": {"type": "array", "items": {"$ref": "#/$defs/Filters"}},
                "pick": {"anyOf": [{"type": "object", "properties": {"x": {}}}, {"type": "null"}]},
                "tree": {"$ref": "#/$defs/Tree"}
            },
            "$defs": {
                "Filters": {"type": "object", "properties": {"size": {}}},
                "Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}
            }
        });
        let arena = Bump::new();
        let schema = Node::from_value(&schema, &arena);
        let got: Vec<(String, usize)> = fields(&schema, "/inputSchema")
            .into_iter()
            .map(|f| (f.pointer, f.depth))
            .collect();
        assert_eq!(
            got,
            vec![
                ("/inputSchema/properties/filters".to_string(), 0),
                ("/inputSchema/$defs/Filters/properties/size".to_string(), 1),
                ("/inputSchema/properties/more".to_string(), 0),
                ("/inputSchema/properties/pick".to_string(), 0),
                (
                    "/inputSchema/properties/pick/anyOf/0/properties/x".to_string(),
                    1
                ),
                ("/inputSchema/properties/tree".to_string(), 0),
                ("/inputSchema/$defs/Tree/properties/kids".to_string(), 1),
            ]
        );
    }

    #[test]
    fn fields_without_refs_are_the_fields_of_the_walk_with_the_set() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a/b": {"type": "object", "properties": {"c~d": {}, "e": {"items": [{"properties": {"f": {}}}]}}},
                "g": {"anyOf": [{"properties": {"h": {}}}, {"not": {"properties": {"i": {}}}}]},
                "j": {"type": "array", "items": {"properties": {"k": {"additionalProperties": {"properties": {"l": {}}}}}}}
            },
            "$defs": {"Unused": {"properties": {"m": {}}}}
        });
        let arena = Bump::new();
        let schema = Node::from_value(&schema, &arena);
        let fast: Vec<(String, usize, &str)> = fields(&schema, "/inputSchema")
            .into_iter()
            .map(|f| (f.pointer, f.depth, f.name))
            .collect();
        let mut slow = Vec::new();
        let mut seen = FastSet::default();
        collect_fields(
            &schema,
            &schema,
            "/inputSchema",
            "/inputSchema",
            0,
            &mut seen,
            &mut slow,
        );
        let slow: Vec<(String, usize, &str)> = slow
            .into_iter()
            .map(|f| (f.pointer, f.depth, f.name))
            .collect();
        assert_eq!(fast, slow);
        assert_eq!(fast.len(), 10);
        assert_eq!(fast[0].0, "/inputSchema/properties/a~1b");
        assert_eq!(fast[1].0, "/inputSchema/properties/a~1b/properties/c~0d");
    }

    #[test]
    fn effective_description_looks_through_refs_and_options() {
        let arena = Bump::new();
        let node = |v: serde_json::Value| &*arena.alloc(Node::from_value(&v, &arena));
        let root = node(json!({"$defs": {"A": {"description": "An A."}}}));
        assert_eq!(
            effective_description(root, node(json!({"$ref": "#/$defs/A"}))),
            Some("An A.")
        );
        assert_eq!(
            effective_description(
                root,
                node(json!({"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}))
            ),
            Some("An A.")
        );
        assert_eq!(
            effective_description(root, node(json!({"description": "  "}))),
            None
        );
        assert_eq!(
            effective_description(root, node(json!({"$ref": "#/$defs/Missing"}))),
            None
        );
    }

    #[test]
    fn refs_resolve_with_escapes() {
        let arena = Bump::new();
        let root = Node::from_value(&json!({"definitions": {"a b": {"k": 1}}}), &arena);
        assert_eq!(
            resolve_ref(&root, "#/definitions/a%20b").map(|(_, p)| p),
            Some("/definitions/a b".to_string())
        );
        assert!(resolve_ref(&root, "other.json#/x").is_none());
    }
}
