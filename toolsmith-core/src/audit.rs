//! The audit trail: one record per call, registration and deregistration.
//!
//! The overview is in the docs of [`AuditSink`], where it is rendered.

use crate::approval::ApprovalBasis;
use crate::envelope::{Envelope, Status};
use crate::operation::new_operation_id;
use crate::policy::Caller;
use crate::spec::{canonical_json, ToolSpec};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What an audit record is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuditEvent {
    /// A call to a tool (whatever its outcome).
    Call,
    /// A tool was added to a toolbox.
    Register,
    /// A tool was removed from a toolbox.
    Deregister,
    /// A deprecated tool left the list because its retirement time came
    /// ([`ToolboxBuilder::retire_at`](crate::ToolboxBuilder::retire_at)); its calls answer
    /// `TOOL_RETIRED` from then on.
    Retire,
}

/// Where a deprecated tool is in its life, as an audit record tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DeprecationState {
    /// Deprecated, still listed and callable.
    Deprecated,
    /// Retired: no longer listed, and its calls are refused with `TOOL_RETIRED`.
    Retired,
}

/// The deprecation of the tool an audit record is about ([`AuditRecord::deprecation`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuditDeprecation {
    /// Deprecated (still called) or retired (refused).
    pub state: DeprecationState,
    /// The version the tool is deprecated since.
    pub since: String,
    /// The tool that replaces it, when one is named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<String>,
}

impl AuditDeprecation {
    /// The deprecation of `spec` in `state`; `None` when the tool is not deprecated.
    pub fn of(spec: &ToolSpec, state: DeprecationState) -> Option<AuditDeprecation> {
        let d = spec.deprecated.as_ref()?;
        Some(AuditDeprecation {
            state,
            since: d.since.clone(),
            replaced_by: d.replaced_by.clone(),
        })
    }
}

/// One entry of the audit trail. Holds no argument values, results or secrets.
///
/// Serialized as one flat JSON object; fields that carry nothing are left out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuditRecord {
    /// The operation id, shared with the call's envelope.
    pub operation_id: String,
    /// When the event happened, RFC 3339 in UTC with milliseconds (`2026-11-30T12:09:12.345Z`).
    pub at: String,
    /// What happened.
    pub event: AuditEvent,
    /// The tool's name (as called, for a call to an unknown tool).
    pub tool: String,
    /// The spec's fingerprint ([`ToolSpec::fingerprint`]): the description version the model read.
    /// Empty for a call to an unknown tool.
    pub fingerprint: String,
    /// The implementation version. Empty for a call to an unknown tool.
    pub version: String,
    /// The caller's identity, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// For calls: the outcome. Absent for a call the host dropped before it finished (its
    /// `code` is then [`CANCELLED`](crate::codes::CANCELLED)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// For calls: the envelope's code, or [`CANCELLED`](crate::codes::CANCELLED) for a dropped call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// For calls: how long the call took, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// For calls: a digest of the arguments (never the arguments themselves). Records written by
    /// a toolbox carry [`keyed_args_digest`] with the toolbox's audit key; [`AuditRecord::call`]
    /// uses the unkeyed [`args_digest`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args_digest: Option<String>,
    /// Host-only detail, e.g. a panic message. Never shown to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// For calls of a tool that may need approval, once the call got that far (past validation
    /// and the before-hooks): whether the approver was asked and why (`always`,
    /// `condition_met`, `condition_not_met`, `condition_panicked`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalBasis>,
    /// The name of the condition that decided [`approval`](AuditRecord::approval), for a tool
    /// whose approval depends on its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_condition: Option<String>,
    /// The tool's deprecation, when it is deprecated or retired (absent for a tool in use):
    /// a call of a deprecated tool is recorded with `state: deprecated`, a refused call of a
    /// retired one with `state: retired`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecation: Option<AuditDeprecation>,
}

impl AuditRecord {
    /// A record of `event` for `tool`, stamped now, with every optional field empty.
    pub fn new(
        event: AuditEvent,
        operation_id: impl Into<String>,
        tool: impl Into<String>,
    ) -> Self {
        AuditRecord {
            operation_id: operation_id.into(),
            at: rfc3339(SystemTime::now()),
            event,
            tool: tool.into(),
            fingerprint: String::new(),
            version: String::new(),
            caller: None,
            status: None,
            code: None,
            duration_ms: None,
            args_digest: None,
            detail: None,
            approval: None,
            approval_condition: None,
            deprecation: None,
        }
    }

    /// The record of a call to `spec` by `caller` with `args`, which ended with `env` after
    /// `duration`.
    pub fn call(
        operation_id: impl Into<String>,
        spec: &ToolSpec,
        caller: &Caller,
        args: &Value,
        env: &Envelope,
        duration: Duration,
    ) -> Self {
        let mut rec = AuditRecord::new(AuditEvent::Call, operation_id, spec.name.clone());
        rec.fingerprint = spec.fingerprint();
        rec.version = spec.version.clone();
        rec.caller = caller.id().map(String::from);
        rec.status = Some(env.status);
        rec.code = env.code.clone();
        rec.duration_ms = Some(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX));
        rec.args_digest = Some(args_digest(args));
        rec.deprecation = AuditDeprecation::of(spec, DeprecationState::Deprecated);
        rec
    }

    /// The record of registering `spec`, with a new operation id.
    pub fn register(spec: &ToolSpec) -> Self {
        Self::lifecycle(AuditEvent::Register, spec)
    }

    /// The record of deregistering `spec`, with a new operation id.
    pub fn deregister(spec: &ToolSpec) -> Self {
        Self::lifecycle(AuditEvent::Deregister, spec)
    }

    /// The record of retiring `spec` after its deprecation window, with a new operation id.
    pub fn retire(spec: &ToolSpec) -> Self {
        let mut rec = Self::lifecycle(AuditEvent::Retire, spec);
        rec.deprecation = AuditDeprecation::of(spec, DeprecationState::Retired);
        rec
    }

    fn lifecycle(event: AuditEvent, spec: &ToolSpec) -> Self {
        let mut rec = AuditRecord::new(event, new_operation_id(), spec.name.clone());
        rec.fingerprint = spec.fingerprint();
        rec.version = spec.version.clone();
        rec.deprecation = AuditDeprecation::of(spec, DeprecationState::Deprecated);
        rec
    }

    /// Adds host-only detail (e.g. a panic message).
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

/// HMAC-SHA-256 of the canonical JSON of `args` keyed with `key`, as 16 lowercase hex
/// characters: equal arguments give equal digests under one key, and nobody without the key can
/// test a guess of the arguments against a digest.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::audit::{args_digest, keyed_args_digest};
/// use toolsmith::SecretKey;
/// let key = SecretKey::random();
/// let pin = serde_json::json!({"pin": "4821"});
/// assert_eq!(keyed_args_digest(&key, &pin), keyed_args_digest(&key, &pin));
/// assert_ne!(keyed_args_digest(&key, &pin), args_digest(&pin));
/// ```
pub fn keyed_args_digest(key: &crate::secret::SecretKey, args: &Value) -> String {
    key.mac_hex(&[b"toolsmith-args", canonical_json(args).as_bytes()], 8)
}

/// SHA-256 of the canonical JSON of `args` (keys sorted), as the first 16 lowercase hex
/// characters: equal arguments give equal digests whatever their key order.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// let a = toolsmith::audit::args_digest(&serde_json::json!({"a": 1, "b": [true]}));
/// let b = toolsmith::audit::args_digest(&serde_json::json!({"b": [true], "a": 1}));
/// assert_eq!(a, b);
/// assert_eq!(a.len(), 16);
/// ```
pub fn args_digest(args: &Value) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(canonical_json(args).as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Formats `t` as RFC 3339 in UTC with milliseconds, e.g. `2026-11-30T12:09:12.345Z`.
/// Times before 1970 are clamped to the epoch, times after 9999 to its last millisecond.
pub(crate) fn rfc3339(t: SystemTime) -> String {
    // humantime formats the years 1970 to 9999; times outside are clamped here.
    let last = UNIX_EPOCH + Duration::from_millis(253_402_300_799_999);
    let t = t.clamp(UNIX_EPOCH, last);
    humantime::format_rfc3339_millis(t).to_string()
}

/// Where audit records go. A sink never fails a call: a sink that can fail implements
/// [`try_record`](AuditSink::try_record), and the toolbox counts each error (and each panic) as
/// a [`Fault`](crate::Fault) and passes it to the host's callback.
///
/// # Overview
///
/// The audit trail: one record per call, registration and deregistration.
///
/// An [`AuditRecord`] says which tool ran, which description version the model read
/// (`fingerprint`), which implementation ran (`version`), for whom, with what outcome and how long
/// it took. It never holds argument values or results — only a keyed digest of the arguments
/// ([`keyed_args_digest`], with the toolbox's audit key) — so the trail can be kept without
/// holding secrets, and a low-entropy argument (a PIN) cannot be recovered by hashing every
/// candidate.
///
/// Every call leaves exactly one record, including a call whose future the host drops before it
/// finishes: that record has no `status` and the code [`CANCELLED`](crate::codes::CANCELLED), and its `detail` says whether
/// the tool had started (then its effects are unknown).
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::audit::{AuditRecord, AuditSink, MemorySink};
/// use toolsmith::Caller;
/// use toolsmith::Envelope;
/// # use toolsmith::{Effects, ToolSpec};
/// # let spec = ToolSpec::new("search", "Searches.", serde_json::json!({"type": "object"}))
/// #     .with_effects(Effects::none().with_read_only(true)).with_version("1.2.0");
/// let sink = MemorySink::new();
/// let args = serde_json::json!({"query": "secret plans"});
/// let env = Envelope::ok(serde_json::json!([]));
/// let rec = AuditRecord::call("op_1", &spec, &Caller::new("ann"), &args, &env, std::time::Duration::from_millis(12));
/// sink.record(&rec);
/// let line = serde_json::to_string(&sink.records()[0]).unwrap();
/// assert!(line.contains("\"status\":\"ok\"") && !line.contains("secret plans"));
/// ```
pub trait AuditSink: Send + Sync {
    /// Records one entry.
    fn record(&self, rec: &AuditRecord);

    /// Records one entry, saying whether it was kept. The toolbox calls this one; the default
    /// calls [`record`](AuditSink::record) and reports success.
    ///
    /// # Errors
    /// A [`BackendError`](crate::fault::BackendError) when the record was not kept.
    fn try_record(&self, rec: &AuditRecord) -> Result<(), crate::fault::BackendError> {
        self.record(rec);
        Ok(())
    }
}

/// An [`AuditSink`] that keeps records in memory (for tests and inspection).
#[derive(Debug, Default)]
pub struct MemorySink {
    records: Mutex<Vec<AuditRecord>>,
}

impl MemorySink {
    /// An empty sink.
    pub fn new() -> Self {
        MemorySink::default()
    }

    /// A copy of the records so far, oldest first.
    pub fn records(&self) -> Vec<AuditRecord> {
        self.records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Forgets every record.
    pub fn clear(&self) {
        self.records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}

impl AuditSink for MemorySink {
    fn record(&self, rec: &AuditRecord) {
        self.records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(rec.clone());
    }
}

/// An [`AuditSink`] appending one JSON line per record to a file.
///
/// A failed write never fails the call: it is counted ([`JsonLinesSink::errors`]) and the first
/// one is reported on stderr.
#[derive(Debug)]
pub struct JsonLinesSink {
    path: PathBuf,
    file: Mutex<File>,
    errors: AtomicU64,
    reported: AtomicBool,
}

impl JsonLinesSink {
    /// Opens `path` for appending, creating it if needed.
    ///
    /// # Errors
    /// The I/O error when the file cannot be opened or created.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(JsonLinesSink {
            path,
            file: Mutex::new(file),
            errors: AtomicU64::new(0),
            reported: AtomicBool::new(false),
        })
    }

    /// The file records are appended to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many records could not be written.
    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }

    /// Reads every record from a JSON Lines audit file, skipping blank lines.
    ///
    /// # Errors
    /// An I/O error, or `InvalidData` naming the line that is not a record.
    pub fn read_all(path: impl AsRef<Path>) -> std::io::Result<Vec<AuditRecord>> {
        let text = std::fs::read_to_string(path)?;
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l).map_err(|e| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("line {} is not an audit record: {e}", i + 1),
                    )
                })
            })
            .collect()
    }

    fn fail(&self, what: &str, e: &dyn std::fmt::Display) -> crate::fault::BackendError {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let message = format!("could not {what} audit file {}: {e}", self.path.display());
        if !self.reported.swap(true, Ordering::Relaxed) {
            eprintln!("toolsmith: {message} (further errors are counted, not printed)");
        }
        crate::fault::BackendError::new(message)
    }
}

impl AuditSink for JsonLinesSink {
    fn record(&self, rec: &AuditRecord) {
        let _ = self.try_record(rec);
    }

    /// Appends the record; a failed write is counted ([`JsonLinesSink::errors`]) and returned.
    fn try_record(&self, rec: &AuditRecord) -> Result<(), crate::fault::BackendError> {
        let mut line = match serde_json::to_string(rec) {
            Ok(l) => l,
            Err(e) => return Err(self.fail("serialize a record for the", &e)),
        };
        line.push('\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = file.write_all(line.as_bytes()).and_then(|()| file.flush()) {
            drop(file);
            return Err(self.fail("write to the", &e));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{new_operation_id, rfc3339};
    use std::collections::HashSet;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let cases = [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_709_164_800_999, "2024-02-29T00:00:00.999Z"),
            (4_102_444_799_000, "2099-12-31T23:59:59.000Z"),
            (1_796_040_552_345, "2026-11-30T12:09:12.345Z"),
        ];
        for (ms, want) in cases {
            assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_millis(ms)), want);
        }
        let far = UNIX_EPOCH + Duration::from_secs(400_000_000_000);
        assert_eq!(rfc3339(far), "9999-12-31T23:59:59.999Z");
        let now = rfc3339(std::time::SystemTime::now());
        assert_eq!(now.len(), 24);
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T');
    }

    #[test]
    fn operation_ids_are_unique() {
        let ids: HashSet<String> = (0..10_000).map(|_| new_operation_id()).collect();
        assert_eq!(ids.len(), 10_000);
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| (0..1000).map(|_| new_operation_id()).collect::<Vec<_>>())
            })
            .collect();
        let mut all = HashSet::new();
        for t in threads {
            for id in t.join().unwrap() {
                assert!(id.starts_with("op_"));
                assert!(all.insert(id), "duplicate id across threads");
            }
        }
    }
}
