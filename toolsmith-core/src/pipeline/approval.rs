//! Stage `approval`: a `requires_approval` tool asks the host's approver, within the approval
//! timeout, with a panic contained. Without an approver such calls are `denied`
//! (`APPROVAL_UNAVAILABLE`); no answer in time is `denied` (`APPROVAL_TIMEOUT`); an approver that
//! panics is `failed` (`APPROVER_FAILED`, counted as a fault, its text in the audit record's
//! host-only detail). None of them runs the tool. A tool whose approval depends on its
//! arguments (`requires_approval(when = ..)`) is asked only when its condition holds (`decide`).

use super::{CallState, Step};
use crate::approval::{Approval, ApprovalBasis, ApprovalRequest, Approver};
use crate::codes;
use crate::envelope::Envelope;
use crate::error::ToolError;
use crate::fault::{Fault, FaultKind, Faults};
use crate::unwind::{panic_text, CatchUnwind};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Duration;

/// Stage `approval`, with the host's approver, how long it may take, and where its panics are
/// counted.
pub(crate) struct Approve {
    pub(crate) approver: Option<Arc<dyn Approver>>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) faults: Arc<Faults>,
}

/// Whether the tool may need approval (then `decide` says whether this call does, and `run`
/// asks for it).
pub(super) fn needed(entry: &super::Entry) -> bool {
    entry.tool.spec().effects.requires_approval
}

/// Whether this call is put to the approver: its tool may need approval and `decide` says this
/// call does.
pub(super) fn asks(faults: &Faults, call: &mut CallState<'_>) -> bool {
    needed(call.entry()) && decide(faults, call).asks()
}

/// Whether this call of a tool that may need approval is put to the approver, and why: decided
/// once per call, on the validated arguments (the same value the approver and the tool see),
/// and kept in the call state for the stages after (the idempotency claim asks first) and the
/// audit record. A tool without a condition is always asked. The condition never runs the tool;
/// a panic in it asks the approver (the call never runs unapproved), counted as a fault of the
/// approver, its text in the audit record's host-only detail.
pub(super) fn decide(faults: &Faults, call: &mut CallState<'_>) -> ApprovalBasis {
    if let Some(basis) = call.approval {
        return basis;
    }
    let decided = call.entry().tool.inner.approval_when.as_ref().map(|when| {
        let args = call.args();
        catch_unwind(AssertUnwindSafe(|| (when.decide)(args))).map_err(panic_text)
    });
    let basis = match decided {
        None => ApprovalBasis::Always,
        Some(Ok(true)) => ApprovalBasis::ConditionMet,
        Some(Ok(false)) => ApprovalBasis::ConditionNotMet,
        Some(Err(panic)) => {
            let tool = call.entry().tool.name().to_string();
            call.detail = Some(format!("approval condition panic: {panic}"));
            faults.report(Fault {
                kind: FaultKind::Approver,
                tool: Some(tool),
                operation_id: Some(call.operation_id.as_str().to_string()),
                detail: format!("approval condition panic: {panic}"),
            });
            ApprovalBasis::ConditionPanicked
        }
    };
    call.approval = Some(basis);
    basis
}

/// The name of the condition that decided the call's approval, for the audit record: only for
/// a call decided by one.
pub(super) fn condition_name(call: &CallState<'_>) -> Option<String> {
    call.approval.filter(|b| *b != ApprovalBasis::Always)?;
    let when = call.entry.as_ref()?.tool.inner.approval_when.as_ref()?;
    Some(when.name.clone())
}

pub(super) async fn run(sh: &Approve, call: &mut CallState<'_>) -> Step {
    let spec = call.entry().tool.spec();
    let Some(approver) = &sh.approver else {
        return Step::answer(
            ToolError::denied(
                codes::APPROVAL_UNAVAILABLE,
                format!(
                    "The call to \"{}\" needs a person's approval, and no one can approve it here. It did not run; retrying will not help. Tell the user it needs approval.",
                    spec.name
                ),
            )
            .into_envelope(),
        );
    };
    let mut request = ApprovalRequest::new(spec, call.args().clone(), call.options.who().clone());
    if let Some(name) = condition_name(call) {
        request = request.because(call.approval.unwrap_or(ApprovalBasis::Always), name);
    }
    let mut detail = None;
    let approval = match ask(sh, approver.as_ref(), &request, &mut detail).await {
        Ok(approval) => approval,
        Err(env) => {
            call.detail = detail;
            return Step::answer(env);
        }
    };
    match approval.into_tool_error(&spec.name) {
        Some(e) => Step::answer(e.into_envelope()),
        None => Step::Continue,
    }
}

/// Asks the approver, within the approval timeout, containing a panic. Either answer is the
/// approver's; otherwise the envelope of a call that did not run. A panic's text goes to
/// `detail`, the audit record's host-only detail (redacted there like every detail), so the host
/// can find out why; the agent's envelope never holds it.
async fn ask(
    sh: &Approve,
    approver: &dyn Approver,
    request: &ApprovalRequest,
    detail: &mut Option<String>,
) -> Result<Approval, Envelope> {
    let asked = CatchUnwind(Box::pin(async move { approver.approve(request).await }));
    let answer = match sh.timeout {
        Some(limit) => match tokio::time::timeout(limit, asked).await {
            Ok(answer) => answer,
            Err(_) => return Err(approval_timeout_envelope(&request.tool, limit)),
        },
        None => asked.await,
    };
    answer.map_err(|panic| {
        *detail = Some(format!("approver panic: {panic}"));
        sh.faults.report(Fault {
            kind: FaultKind::Approver,
            tool: Some(request.tool.clone()),
            operation_id: None,
            detail: format!("panic: {panic}"),
        });
        ToolError::failed(
            codes::APPROVER_FAILED,
            format!(
                "The approval step for \"{}\" failed, so the call did not run. Retrying is unlikely to help; tell the user the action needs their approval and could not be confirmed here.",
                request.tool
            ),
        )
        .into_envelope()
    })
}

/// The envelope of a call whose approval did not come within `limit`.
fn approval_timeout_envelope(tool: &str, limit: Duration) -> Envelope {
    ToolError::denied(
        codes::APPROVAL_TIMEOUT,
        format!(
            "No one approved the call to \"{tool}\" within {} ms, so it did not run. Tell the user it needs their approval; call it again only if they ask.",
            limit.as_millis()
        ),
    )
    .into_envelope()
}
