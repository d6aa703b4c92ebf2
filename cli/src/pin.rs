//! `toolsmith pin` and `toolsmith verify`: a lockfile of each tool's definition hash, so a server
//! that changes a tool after approval is caught.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use tool_core::__internal::canonical_json;

use crate::input::{self, name_of};
use crate::{emit, CliError};

/// The fields a tool's hash covers, in the order `verify` reports them.
pub const FIELDS: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// The lockfile format version.
const VERSION: u64 = 1;

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

/// The lock entry of one tool: the hash over the canonical JSON of all [`FIELDS`] present, and
/// each field's own hash.
pub fn entry(def: &Value) -> Value {
    let mut covered = Map::new();
    let mut fields = Map::new();
    for f in FIELDS {
        if let Some(v) = def.get(f).filter(|v| !v.is_null()) {
            covered.insert(f.into(), v.clone());
        }
        fields.insert(f.into(), field_hash(def, f));
    }
    json!({
        "name": name_of(def),
        "sha256": sha256(&canonical_json(&Value::Object(covered))),
        "fields": fields,
    })
}

/// `toolsmith pin FILE`: prints the lockfile.
pub fn pin(file: &Path) -> Result<u8, CliError> {
    let source = input::load_file(file)?;
    let lock = json!({
        "toolsmithLock": VERSION,
        "hash": "sha256 of the canonical JSON (sorted keys, compact) of name, title, description, inputSchema, outputSchema and annotations",
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
    Changed(String, Vec<&'static str>),
}

/// Compares lock entries with a list's definitions.
pub fn compare(lock: &[Value], defs: &[Value]) -> Vec<Drift> {
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
        if now["sha256"] != e["sha256"] {
            let fields: Vec<&'static str> = FIELDS
                .iter()
                .copied()
                .filter(|f| now["fields"][*f] != e["fields"][*f])
                .collect();
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
    match lock.get("toolsmithLock").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(v) => {
            return Err(CliError::input(format!(
                "{label}: lockfile version {v}; this toolsmith reads version {VERSION}"
            )))
        }
        None => {
            return Err(CliError::input(format!(
                "{label}: not a toolsmith lockfile (no \"toolsmithLock\" version); write one with `toolsmith pin FILE > {label}`"
            )))
        }
    }
    let entries = lock
        .get("tools")
        .and_then(Value::as_array)
        .ok_or_else(|| CliError::input(format!("{label}: \"tools\" is missing or not an array")))?;
    let source = input::load_file(file)?;
    let drift = compare(entries, &source.defs);
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
            compare(&[entry(&a)], &[b]),
            vec![Drift::Changed("t".into(), vec!["inputSchema"])]
        );
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
