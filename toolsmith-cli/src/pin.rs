//! `toolsmith pin` and `toolsmith verify`: a lockfile of each tool's definition hash, so a server
//! that changes a tool after approval is caught.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use toolsmith_spec::canonical_json;

use crate::input::{self, name_of};
use crate::{emit, one_line, CliError};

/// A tool name as a message shows it: on one line, at most 200 characters.
fn shown(name: &str) -> String {
    one_line(name, 200)
}

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

/// The SHA-256 of `text`, in lowercase hex.
pub fn sha256(text: &str) -> String {
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

/// The first name `names` holds more than once, with the indices of its copies, and how many
/// other names are repeated.
fn first_repeat<'a>(names: impl Iterator<Item = &'a str>) -> Option<(&'a str, Vec<usize>, usize)> {
    let mut at: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (i, name) in names.enumerate() {
        at.entry(name)
            .or_insert_with(|| {
                order.push(name);
                Vec::new()
            })
            .push(i);
    }
    let mut repeated = order.into_iter().filter(|n| at[n].len() > 1);
    let first = repeated.next()?;
    Some((first, at[first].clone(), repeated.count()))
}

/// The lock entries ([`entry`]) of the tool list in `file`, in the list's order. A list that names
/// a tool more than once is refused (exit code 2): a lock approves one definition per name, and a
/// client given two definitions of one name may call either.
pub fn lock_entries(file: &Path) -> Result<Vec<Value>, CliError> {
    let source = input::load_file(file)?;
    if let Some((name, copies, others)) = first_repeat(source.defs.iter().map(name_of)) {
        let places: Vec<&str> = copies
            .iter()
            .map(|&i| source.tools[i].at.as_str())
            .collect();
        return Err(CliError::input(format!(
            "{}: the tool `{}` appears {} times ({}){}; a lock approves one definition per name, so a list that names a tool more than once cannot be pinned",
            source.label,
            shown(name),
            copies.len(),
            places.join(", "),
            match others {
                0 => String::new(),
                1 => ", and 1 other name repeats".into(),
                n => format!(", and {n} other names repeat"),
            }
        )));
    }
    Ok(source.defs.iter().map(entry).collect())
}

/// `toolsmith pin FILE`: prints the lockfile of [`lock_entries`].
pub fn pin(file: &Path) -> Result<u8, CliError> {
    let lock = json!({
        "toolsmithLock": VERSION,
        "hash": "sha256 of the canonical JSON (sorted keys, compact) of the whole tool object: every field, known or not",
        "tools": lock_entries(file)?,
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
    /// A locked tool whose definition changed, with the fields that differ (in any of its
    /// copies, when the list names it more than once).
    Changed(String, Vec<String>),
    /// A tool the list names more than once, with the number of its copies.
    Duplicate(String, usize),
}

/// The order of fields in an entry: [`FIELDS`] first, then the others by name.
fn field_order(name: &str) -> (usize, &str) {
    (
        FIELDS
            .iter()
            .position(|f| *f == name)
            .unwrap_or(FIELDS.len()),
        name,
    )
}

/// The name of a lock entry (empty if it has none).
fn entry_name(e: &Value) -> &str {
    e.get("name").and_then(Value::as_str).unwrap_or_default()
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
    names.sort_by(|a, b| field_order(a).cmp(&field_order(b)));
    names
        .into_iter()
        .filter(|f| hash(locked, f) != hash(now, f))
        .collect()
}

/// The fields in which the definition `def` differs from the lock entry `e` (of a lockfile of
/// `version`); empty when it matches.
fn changes(e: &Value, def: &Value, version: u64) -> Vec<String> {
    let now = entry(def);
    let differs = if version >= 2 {
        now["sha256"] != e["sha256"]
    } else {
        !changed_fields(e, &now, version).is_empty()
    };
    if !differs {
        return Vec::new();
    }
    let mut fields = changed_fields(e, &now, version);
    if fields.is_empty() {
        // Only possible for an entry edited by hand: its hash and fields disagree.
        fields.push("the tool's hash".into());
    }
    fields
}

/// Compares lock entries (of a lockfile of `version`) with a list's definitions: per name of
/// the list, in the order the names first appear, `Added` or `Changed` (over every copy of the
/// name), then `Duplicate` when the list names it more than once; then `Removed`, in the lock's
/// order. Of lock entries sharing a name (which `pin` does not write), the first counts.
pub fn compare(lock: &[Value], defs: &[Value], version: u64) -> Vec<Drift> {
    let mut locked: HashMap<&str, &Value> = HashMap::new();
    for e in lock {
        locked.entry(entry_name(e)).or_insert(e);
    }
    let mut order: Vec<&str> = Vec::new();
    let mut copies: HashMap<&str, Vec<&Value>> = HashMap::new();
    for def in defs {
        let name = name_of(def);
        copies
            .entry(name)
            .or_insert_with(|| {
                order.push(name);
                Vec::new()
            })
            .push(def);
    }
    let mut out = Vec::new();
    for name in order {
        let defs = &copies[name];
        match locked.get(name) {
            None => out.push(Drift::Added(name.to_string())),
            Some(e) => {
                let mut fields: Vec<String> = Vec::new();
                for def in defs {
                    for f in changes(e, def, version) {
                        if !fields.contains(&f) {
                            fields.push(f);
                        }
                    }
                }
                if !fields.is_empty() {
                    fields.sort_by(|a, b| field_order(a).cmp(&field_order(b)));
                    out.push(Drift::Changed(name.to_string(), fields));
                }
            }
        }
        if defs.len() > 1 {
            out.push(Drift::Duplicate(name.to_string(), defs.len()));
        }
    }
    for e in lock {
        let name = entry_name(e);
        if !copies.contains_key(name) && locked.remove(name).is_some() {
            out.push(Drift::Removed(name.to_string()));
        }
    }
    out
}

/// The lockfile at `lock_path`, written by `toolsmith pin`: its format version and its entries.
/// Refused (exit code 2) when it cannot be read, is not a lockfile of a version this toolsmith
/// reads, or pins a name twice.
pub fn read_lock(lock_path: &Path) -> Result<(u64, Vec<Value>), CliError> {
    let label = lock_path.display().to_string();
    let text = std::fs::read_to_string(lock_path)
        .map_err(|e| CliError::input(format!("{label}: cannot read: {e}")))?;
    let mut lock: Value = serde_json::from_str(&text).map_err(|e| {
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
    let entries = match lock.get_mut("tools").map(Value::take) {
        Some(Value::Array(entries)) => entries,
        _ => {
            return Err(CliError::input(format!(
                "{label}: \"tools\" is missing or not an array"
            )))
        }
    };
    if let Some((name, copies, _)) = first_repeat(entries.iter().map(entry_name)) {
        return Err(CliError::input(format!(
            "{label}: the lock pins `{}` {} times; a lock approves one definition per name: pin again from a list that names each tool once",
            shown(name),
            copies.len()
        )));
    }
    Ok((version, entries))
}

/// `toolsmith verify --lock LOCK FILE`.
pub fn verify(lock_path: &Path, file: &Path) -> Result<u8, CliError> {
    let label = lock_path.display().to_string();
    let (version, entries) = read_lock(lock_path)?;
    let source = input::load_file(file)?;
    let drift = compare(&entries, &source.defs, version);
    let mut out = String::new();
    for d in &drift {
        let _ = match d {
            Drift::Removed(n) => writeln!(
                out,
                "removed: `{}` is in the lock but not in the list",
                shown(n)
            ),
            Drift::Added(n) => writeln!(out, "added: `{}` is not in the lock", shown(n)),
            Drift::Duplicate(n, k) => writeln!(
                out,
                "duplicate: `{}` appears {k} times in the list; the lock approves one definition per name",
                shown(n)
            ),
            Drift::Changed(n, fields) => writeln!(
                out,
                "changed: `{}`: {} differ{} from the lock",
                shown(n),
                fields
                    .iter()
                    .map(|f| shown(f))
                    .collect::<Vec<_>>()
                    .join(", "),
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
    fn added_removed_and_repeated_tools_are_drift() {
        let t = |name: &str, d: &str| json!({"name": name, "description": d});
        let lock = [entry(&t("a", "A.")), entry(&t("b", "B."))];
        let drift = |defs: &[Value]| compare(&lock, defs, VERSION);
        assert!(drift(&[t("b", "B."), t("a", "A.")]).is_empty());
        assert_eq!(
            drift(&[t("a", "A."), t("b", "B."), t("c", "C.")]),
            vec![Drift::Added("c".into())]
        );
        assert_eq!(drift(&[t("b", "B.")]), vec![Drift::Removed("a".into())]);
        // A copy of an approved tool, identical or not, and a new tool twice.
        assert_eq!(
            drift(&[t("a", "A."), t("b", "B."), t("a", "A.")]),
            vec![Drift::Duplicate("a".into(), 2)]
        );
        assert_eq!(
            drift(&[
                t("a", "A."),
                t("c", "C."),
                t("b", "B."),
                t("a", "Evil."),
                t("c", "C.")
            ]),
            vec![
                Drift::Changed("a".into(), vec!["description".into()]),
                Drift::Duplicate("a".into(), 2),
                Drift::Added("c".into()),
                Drift::Duplicate("c".into(), 2),
            ]
        );
        // Of lock entries sharing a name (not written by `pin`), the first counts, once.
        let twice = [entry(&t("a", "A.")), entry(&t("a", "Other."))];
        assert!(compare(&twice, &[t("a", "A.")], VERSION).is_empty());
        assert_eq!(
            compare(&twice, &[], VERSION),
            vec![Drift::Removed("a".into())]
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
