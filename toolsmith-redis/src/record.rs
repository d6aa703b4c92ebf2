//! What the store writes under its keys: JSON, each record tagged with the kind of record it is
//! (`"toolsmith": "lease" | "outcome" | "kept"`), and the versioned records as hashes tagged the
//! same way (`toolsmith` = `record`), so a value another program put under a key the store reads
//! is told apart and reported, never read as state.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use toolsmith_core::state::Record;
use toolsmith_core::StoredOutcome;

pub(crate) const LEASE: &str = "lease";
pub(crate) const OUTCOME: &str = "outcome";
pub(crate) const KEPT: &str = "kept";
pub(crate) const RECORD: &str = "record";

/// A lease (and, copied when the run starts, the started marker). The Lua scripts read
/// `toolsmith`, `token` and `window_ms`.
#[derive(Serialize)]
pub(crate) struct LeaseOut<'a> {
    pub(crate) toolsmith: &'static str,
    pub(crate) token: &'a str,
    pub(crate) operation_id: &'a str,
    pub(crate) request: Option<&'a str>,
    /// The window of the claim: how long a started marker outlives the lease.
    pub(crate) window_ms: u64,
}

#[derive(Deserialize)]
pub(crate) struct LeaseIn {
    toolsmith: String,
    pub(crate) token: String,
    pub(crate) operation_id: String,
    #[serde(default)]
    pub(crate) request: Option<String>,
    #[allow(dead_code)] // read by the scripts; parsed here so a record without it is foreign
    window_ms: u64,
}

#[derive(Serialize)]
pub(crate) struct OutcomeOut<'a> {
    pub(crate) toolsmith: &'static str,
    pub(crate) outcome: &'a StoredOutcome,
}

#[derive(Deserialize)]
pub(crate) struct OutcomeIn {
    toolsmith: String,
    pub(crate) outcome: StoredOutcome,
}

#[derive(Serialize)]
pub(crate) struct KeptOut<'a> {
    pub(crate) toolsmith: &'static str,
    pub(crate) value: &'a Value,
}

#[derive(Deserialize)]
pub(crate) struct KeptIn {
    toolsmith: String,
    pub(crate) value: Value,
}

pub(crate) fn lease(raw: &[u8]) -> Option<LeaseIn> {
    serde_json::from_slice::<LeaseIn>(raw)
        .ok()
        .filter(|r| r.toolsmith == LEASE)
}

pub(crate) fn outcome(raw: &[u8]) -> Option<StoredOutcome> {
    serde_json::from_slice::<OutcomeIn>(raw)
        .ok()
        .filter(|r| r.toolsmith == OUTCOME)
        .map(|r| r.outcome)
}

pub(crate) fn kept(raw: &[u8]) -> Option<Value> {
    serde_json::from_slice::<KeptIn>(raw)
        .ok()
        .filter(|r| r.toolsmith == KEPT)
        .map(|r| r.value)
}

/// The versioned record of a hash's fields (as `HGETALL` answers them): `toolsmith` =
/// `record`, `version` the decimal the swap script writes (at least 1, no sign, no leading
/// zero), `value` JSON. `None` when any of them is missing or malformed.
pub(crate) fn versioned(fields: &BTreeMap<Vec<u8>, Vec<u8>>) -> Option<Record> {
    let field = |name: &str| fields.get(name.as_bytes());
    if field("toolsmith")? != RECORD.as_bytes() {
        return None;
    }
    let version = field("version")?;
    if version.first() == Some(&b'0') || !version.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let version = std::str::from_utf8(version).ok()?.parse::<u64>().ok()?;
    let value = serde_json::from_slice(field("value")?).ok()?;
    Some(Record { version, value })
}

pub(crate) fn to_json(record: &impl Serialize) -> Vec<u8> {
    // The records are strings, numbers and `serde_json::Value`s: serializing cannot fail.
    serde_json::to_vec(record).expect("a record serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_foreign_values_do_not_parse() {
        let raw = to_json(&LeaseOut {
            toolsmith: LEASE,
            token: "t1",
            operation_id: "op_1",
            request: Some("fp"),
            window_ms: 5,
        });
        let back = lease(&raw).unwrap();
        assert_eq!(
            (back.token.as_str(), back.operation_id.as_str()),
            ("t1", "op_1")
        );
        assert_eq!(back.request.as_deref(), Some("fp"));
        let stored = StoredOutcome {
            operation_id: "op_1".into(),
            reference: Some("rec_1".into()),
            unknown: false,
            request: None,
            at_unix_ms: 7,
        };
        let raw = to_json(&OutcomeOut {
            toolsmith: OUTCOME,
            outcome: &stored,
        });
        assert_eq!(outcome(&raw), Some(stored));
        let value = serde_json::json!({"a": [1, 2]});
        let raw = to_json(&KeptOut {
            toolsmith: KEPT,
            value: &value,
        });
        assert_eq!(kept(&raw), Some(value));
        // A record of another kind, JSON of another program, or no JSON at all.
        assert!(kept(&raw).is_some() && outcome(&raw).is_none() && lease(&raw).is_none());
        for foreign in [&b"42"[..], b"hello", b"{\"value\": 1}", b"", b"\xff"] {
            assert!(kept(foreign).is_none() && outcome(foreign).is_none());
            assert!(lease(foreign).is_none());
        }
    }

    #[test]
    fn versioned_records_read_only_their_own_fields() {
        let hash = |fields: &[(&str, &[u8])]| -> BTreeMap<Vec<u8>, Vec<u8>> {
            fields
                .iter()
                .map(|(k, v)| (k.as_bytes().to_vec(), v.to_vec()))
                .collect()
        };
        let ours = hash(&[
            ("toolsmith", b"record"),
            ("version", b"12"),
            ("value", br#"{"b": 1, "a": [2]}"#),
        ]);
        assert_eq!(
            versioned(&ours),
            Some(Record {
                version: 12,
                value: serde_json::json!({"b": 1, "a": [2]})
            })
        );
        for (name, version, value) in [
            (&b"kept"[..], &b"1"[..], &b"1"[..]),
            (b"record", b"0", b"1"),
            (b"record", b"012", b"1"),
            (b"record", b"+3", b"1"),
            (b"record", b"-3", b"1"),
            (b"record", b"", b"1"),
            (b"record", b"18446744073709551616", b"1"),
            (b"record", b"3", b"not json"),
        ] {
            let fields = hash(&[("toolsmith", name), ("version", version), ("value", value)]);
            assert_eq!(versioned(&fields), None, "{fields:?}");
        }
        assert_eq!(
            versioned(&hash(&[("version", b"1"), ("value", b"1")])),
            None
        );
        assert_eq!(
            versioned(&hash(&[("toolsmith", b"record"), ("value", b"1")])),
            None
        );
        assert_eq!(
            versioned(&hash(&[("toolsmith", b"record"), ("version", b"1")])),
            None
        );
    }
}
