//! Stage `audit`: every call leaves one audit record (operation id, tool, fingerprint, version,
//! caller, status, code, duration, a keyed digest of the arguments, never their values), and its
//! envelope gets the operation id. It runs after the panic guard, so a panic anywhere before it
//! still leaves a record. A call whose future is dropped before it finishes is recorded by
//! [`record_dropped`] (from the call state's `Drop`): no status, the code `CANCELLED`, and
//! whether the tool had started.

use super::{CallState, Entry};
use crate::audit::{
    keyed_args_digest, AuditDeprecation, AuditEvent, AuditRecord, AuditSink, DeprecationState,
};
use crate::codes::CANCELLED;
use crate::fault::{Fault, FaultKind, Faults};
use crate::redact::Redactor;
use crate::secret::SecretKey;
use std::sync::Arc;

/// Stage `audit`, with the host's audit sink, the key of the argument digests, the redactor
/// of host-only detail, and where the sink's failures are counted.
pub(crate) struct AuditTrail {
    pub(crate) sink: Option<Arc<dyn AuditSink>>,
    /// Keys the argument digests of audit records.
    pub(crate) key: SecretKey,
    pub(crate) redactor: Option<Arc<Redactor>>,
    pub(crate) faults: Arc<Faults>,
}

impl AuditTrail {
    /// Writes a record that is not a call's (a tool registered or retired), when there is a
    /// sink.
    pub(crate) fn write(&self, rec: &AuditRecord) {
        if let Some(sink) = &self.sink {
            write_audit(sink.as_ref(), &self.faults, rec);
        }
    }
}
use std::time::Instant;

/// Writes the call's audit record (a call without an envelope is recorded, and answered, as the
/// generic failure).
pub(super) fn record(call: &mut CallState<'_>) {
    let sh = &call.engine.stages.audit;
    if let Some(sink) = &sh.sink {
        let mut rec = call_record(call, call.entry.as_deref());
        if let Some(retired) = &call.retired {
            let spec = retired.tool.spec();
            rec.fingerprint.clone_from(&retired.fingerprint);
            rec.version.clone_from(&spec.version);
            rec.deprecation = AuditDeprecation::of(spec, DeprecationState::Retired);
        }
        let env = call.env.get_or_insert_with(super::internal_failure);
        rec.status = Some(env.status);
        rec.code.clone_from(&env.code);
        rec.args_digest = call.args.as_ref().map(|a| keyed_args_digest(&sh.key, a));
        rec.approval = call.approval;
        rec.approval_condition = super::approval::condition_name(call);
        // Host-only detail (a panic's text, output-contract errors) can quote secrets too.
        rec.detail = match (call.detail.take(), &sh.redactor) {
            (Some(d), Some(r)) => Some(r.redact_str(&d).into_owned()),
            (d, _) => d,
        };
        // A failing sink must not turn a finished call into a panic; its failure is a fault.
        write_audit(sink.as_ref(), &sh.faults, &rec);
    }
}

/// What the record of `call` says in every case: its operation id, tool, caller and duration,
/// and the fingerprint and version of its tool's `entry` when it was found.
fn call_record(call: &CallState<'_>, entry: Option<&Entry>) -> AuditRecord {
    let mut rec = AuditRecord::new(AuditEvent::Call, call.operation_id.as_str(), call.name);
    if let Some(entry) = entry {
        rec.fingerprint.clone_from(&entry.fingerprint);
        rec.version.clone_from(&entry.tool.spec().version);
        rec.deprecation = AuditDeprecation::of(entry.tool.spec(), DeprecationState::Deprecated);
    }
    rec.caller = call.options.who().id().map(String::from);
    rec.duration_ms = call.started.map(elapsed_ms);
    rec
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Keeps the digest of the validated arguments for the record of a call dropped from here on.
pub(super) fn remember_args(sh: &AuditTrail, call: &CallState<'_>) {
    if let (Some(_), Some(args)) = (&sh.sink, &call.args) {
        call.trace.set_args_digest(keyed_args_digest(&sh.key, args));
    }
}

/// Writes one audit record; an error or a panic of the sink is counted as a fault.
fn write_audit(sink: &dyn AuditSink, faults: &Faults, rec: &AuditRecord) {
    if let Err(e) = crate::fault::contained(|| sink.try_record(rec)) {
        faults.report(Fault {
            kind: FaultKind::AuditSink,
            tool: Some(rec.tool.clone()),
            operation_id: Some(rec.operation_id.clone()),
            detail: e.to_string(),
        });
    }
}

/// What the pipeline learned about a call so far, for the audit record of a dropped call: kept
/// only by a toolbox with an audit sink (the stages skip it otherwise).
#[derive(Default)]
pub(crate) struct Trace(std::sync::Mutex<TraceInner>);

#[derive(Default)]
struct TraceInner {
    entry: Option<Arc<Entry>>,
    args_digest: Option<String>,
    started: bool,
}

impl Trace {
    fn lock(&self) -> std::sync::MutexGuard<'_, TraceInner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
    pub(super) fn set_entry(&self, entry: &Arc<Entry>) {
        self.lock().entry = Some(Arc::clone(entry));
    }
    fn set_args_digest(&self, digest: String) {
        self.lock().args_digest = Some(digest);
    }
    pub(super) fn mark_started(&self) {
        self.lock().started = true;
    }
}

/// Writes the audit record of a call whose future is dropped before it finishes (the call
/// state's `Drop`, while `in_flight`).
pub(super) fn record_dropped(call: &CallState<'_>) {
    super::telemetry::cancelled();
    let sh = &call.engine.stages.audit;
    let Some(sink) = &sh.sink else {
        return;
    };
    let t = call.trace.lock();
    // The trace's entry: `execute` holds the call's own while the tool runs.
    let mut rec = call_record(call, t.entry.as_deref());
    rec.code = Some(CANCELLED.to_string());
    rec.args_digest.clone_from(&t.args_digest);
    rec.detail = Some(if t.started {
        "the host dropped the call while the tool ran; its effects are unknown".to_string()
    } else {
        "the host dropped the call before the tool ran".to_string()
    });
    drop(t);
    write_audit(sink.as_ref(), &sh.faults, &rec);
}
