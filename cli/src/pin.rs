//! `toolsmith pin` and `toolsmith verify`: a lockfile of each tool's definition hash, so a server
//! that changes a tool after approval is caught.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use tool_spec::canonical_json;

use crate::input::{self, name_of};
use crate::{emit, CliError};

/// The fields every lock entry lists (with `null` when the tool has none), first and in this
/// order; any other field the tool has follows in key order. The hash covers them all.
pub const FIELDS: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// The lockfile format version: 2 hashes the whole tool object, every field the server sent
/// (`execution`, `icons`, `_meta`, vendor fields, ...); 1 hashed [`FIELDS`] only and is still
/// read (see [`compare`]).
const VERSION: u64 = 2;

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The hash of one field: SHA-256 of its canonical JSON (keys sorted, compact), or `null` when
/// the tool has no such field.
fn field_hash(def: &Value, field: &str) -> Value {
    match def.get(field) {
        None | Some(Value::Null) => Value::Null,
        Some(v) => Value::String(sha256(&canonical_json(v))),
    }
}

/// The fields of a definition an entry lists: [`FIELDS`], then every other key in key order.
fn field_names(def: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = FIELDS.to_vec();
    if let Some(obj) = def.as_object() {
        let mut others: Vec<&str> = obj
            .keys()
            .map(String::as_str)
            .filter(|k| !FIELDS.contains(k))
            .collect();
        others.sort_unstable();
        names.extend(others);
    }
    names
}

/// The lock entry of one tool: the hash over the canonical JSON of the whole definition (every
/// field, known or not), and each field's own hash.
pub fn entry(def: &Value) -> Value {
    let mut fields = Map::new();
    for f in field_names(def) {
        fields.insert(f.into(), field_hash(def, f));
    }
    json!({
        "name": name_of(def),
        "sha256": sha256(&canonical_json(def)),
        "fields": fields,
    })
}

/// `toolsmith pin FILE`: prints the lockfile.
pub fn pin(file: &Path) -> Result<u8, CliError> {
    let source = input::load_file(file)?;
    let lock = json!({
        "toolsmithLock": VERSION,
        "hash": "sha256 of the canonical JSON (sorted keys, compact) of the whole tool object: every field, known or not",
        "tools": source.defs.iter().map(entry).collect::<Vec<_>>(),
    });
    emit(&format!(
        "{}\n",
        serde_json::to_string_pretty(&lock).expect("JSON values serialize")
    ))?;
    Ok(0)
}

/// One difference between the lock and the list.
#[derive(Debug, PartialEq, Eq)]
pub enum Drift {
    /// A locked tool is gone.
    Removed(String),
    /// A tool that is not in the lock.
    Added(String),
    /// A locked tool whose definition changed, with the fields that differ.
    Changed(String, Vec<String>),
}

/// The fields of `now` (an [`entry`]) whose hashes differ from the lock entry `locked`: over
/// the fields of both for a version 2 lock, over the fields the entry lists for version 1 (its
/// hash covered those alone).
fn changed_fields(locked: &Value, now: &Value, version: u64) -> Vec<String> {
    let null = Value::Null;
    let hash = |e: &Value, f: &str| e["fields"].get(f).unwrap_or(&null).clone();
    let mut names: Vec<String> = Vec::new();
    let mut push = |e: &Value| {
        if let Some(m) = e["fields"].as_object() {
            for k in m.keys() {
                if !names.contains(k) {
                    names.push(k.clone());
                }
            }
        }
    };
    push(locked);
    if version >= 2 {
        push(now);
    }
    // The entry's order: the known fields first, then the others by name.
    names.sort_by_key(|n| {
        (
            FIELDS.iter().position(|f| f == n).unwrap_or(FIELDS.len()),
            n.clone(),
        )
    });
    names
        .into_iter()
        .filter(|f| hash(locked, f) != hash(now, f))
        .collect()
}

/// Compares lock entries (of a lockfile of `version`) with a list's definitions.
pub fn compare(lock: &[Value], defs: &[Value], version: u64) -> Vec<Drift> {
    let mut locked: HashMap<&str, Vec<&Value>> = HashMap::new();
    for e in lock {
        locked
            .entry(e.get("name").and_then(Value::as_str).unwrap_or_default())
            .or_default()
            .push(e);
    }
    for v in locked.values_mut() {
        v.reverse();
    }
    let mut out = Vec::new();
    for def in defs {
        let name = name_of(def);
        let Some(e) = locked.get_mut(name).and_then(Vec::pop) else {
            out.push(Drift::Added(name.to_string()));
            continue;
        };
        let now = entry(def);
        let differs = if version >= 2 {
            now["sha256"] != e["sha256"]
        } else {
            !changed_fields(e, &now, version).is_empty()
        };
        if differs {
            let mut fields = changed_fields(e, &now, version);
            if fields.is_empty() {
                // Only possible for an entry edited by hand: its hash and fields disagree.
                fields.push("the tool's hash".into());
            }
            out.push(Drift::Changed(name.to_string(), fields));
        }
    }
    for e in lock {
        let name = e.get("name").and_then(Value::as_str).unwrap_or_default();
        if locked.get_mut(name).and_then(Vec::pop).is_some() {
            out.push(Drift::Removed(name.to_string()));
        }
    }
    out
}

/// `toolsmith verify --lock LOCK FILE`.
pub fn verify(lock_path: &Path, file: &Path) -> Result<u8, CliError> {
    let label = lock_path.display().to_string();
    let text = std::fs::read_to_string(lock_path)
        .map_err(|e| CliError::input(format!("{label}: cannot read: {e}")))?;
    let lock: Value = serde_json::from_str(&text).map_err(|e| {
        CliError::input(format!(
            "{label}:{}:{}: invalid JSON: {e}",
            e.line(),
            e.column().max(1)
        ))
    })?;
    let version = match lock.get("toolsmithLock").and_then(Value::as_u64) {
        Some(v @ (1 | VERSION)) => v,
        Some(v) => {
            return Err(CliError::input(format!(
                "{label}: lockfile version {v}; this toolsmith reads versions 1 and {VERSION}"
            )))
        }
        None => {
            return Err(CliError::input(format!(
                "{label}: not a toolsmith lockfile (no \"toolsmithLock\" version); write one with `toolsmith pin FILE > {label}`"
            )))
        }
    };
    let entries = lock
        .get("tools")
        .and_then(Value::as_array)
        .ok_or_else(|| CliError::input(format!("{label}: \"tools\" is missing or not an array")))?;
    let source = input::load_file(file)?;
    let drift = compare(entries, &source.defs, version);
    let mut out = String::new();
    for d in &drift {
        let _ = match d {
            Drift::Removed(n) => writeln!(out, "removed: `{n}` is in the lock but not in the list"),
            Drift::Added(n) => writeln!(out, "added: `{n}` is not in the lock"),
            Drift::Changed(n, fields) => writeln!(
                out,
                "changed: `{n}`: {} differ{} from the lock",
                fields.join(", "),
                if fields.len() == 1 { "s" } else { "" }
            ),
        };
    }
    if drift.is_empty() {
        let _ = writeln!(
            out,
            "toolsmith: {} tool{} of {} match {label}",
            source.defs.len(),
            if source.defs.len() == 1 { "" } else { "s" },
            source.label
        );
    } else {
        let _ = writeln!(
            out,
            "toolsmith: {} of {label}: {} difference{}; review the changes, then pin again",
            source.label,
            drift.len(),
            if drift.len() == 1 { "" } else { "s" }
        );
    }
    emit(&out)?;
    Ok(if drift.is_empty() { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_change_alone_changes_the_hash() {
        let a = json!({"name": "t", "description": "d", "inputSchema": {"type": "object"}});
        let mut b = a.clone();
        b["inputSchema"]["properties"] = json!({"x": {"type": "string"}});
        assert_ne!(entry(&a)["sha256"], entry(&b)["sha256"]);
        assert_eq!(
            compare(&[entry(&a)], &[b], VERSION),
            vec![Drift::Changed("t".into(), vec!["inputSchema".into()])]
        );
    }

    #[test]
    fn every_field_is_covered_and_named() {
        let a = json!({"name": "t", "inputSchema": {"type": "object"},
            "execution": {"taskSupport": "optional"}, "x-vendor": {"tier": 1}});
        let mut b = a.clone();
        b["execution"]["taskSupport"] = json!("required");
        b["x-vendor"] = json!({"tier": 2});
        b["icons"] = json!([{"src": "https://example.invalid/i.png"}]);
        assert_eq!(
            compare(&[entry(&a)], std::slice::from_ref(&b), VERSION),
            vec![Drift::Changed(
                "t".into(),
                vec!["execution".into(), "icons".into(), "x-vendor".into()]
            )]
        );
        // A version 1 entry covered the six known fields only: nothing else is a change.
        let mut v1 = entry(&a);
        let fields = v1["fields"].as_object_mut().unwrap();
        fields.retain(|k, _| FIELDS.contains(&k.as_str()));
        assert!(compare(&[v1], &[b], 1).is_empty());
    }

    #[test]
    fn key_order_does_not_matter() {
        let a: Value = serde_json::from_str(
            r#"{"name": "t", "inputSchema": {"type": "object", "required": []}}"#,
        )
        .unwrap();
        let b: Value = serde_json::from_str(
            r#"{"inputSchema": {"required": [], "type": "object"}, "name": "t"}"#,
        )
        .unwrap();
        assert_eq!(entry(&a), entry(&b));
    }
}
