//! Approvers and hooks.

// Before-hooks return `Result<(), ToolError>`; ToolError is large (168 bytes) until it is boxed.
#![allow(clippy::result_large_err)]

use crate::common;

use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use toolsmith_core::Caller;
use toolsmith_core::{
    approve_all, fn_approver, reject_all, sync_approver, Approval, ApprovalRequest, Approver,
    CallInfo, Hooks,
};
use toolsmith_core::{Effects, ToolSpec};
use toolsmith_core::{Envelope, Status, ToolError};

fn delete_spec() -> ToolSpec {
    common::spec(
        "delete_file",
        "Deletes a file. Returns nothing.",
        json!({"type": "object"}),
        Effects::none()
            .with_writes(true)
            .with_destructive(true)
            .with_requires_approval(true),
    )
    .with_title("Delete file")
}

#[test]
fn requests_carry_the_exact_arguments_and_a_summary() {
    let args = json!({"path": "notes/old.txt", "force": true});
    let req = ApprovalRequest::new(&delete_spec(), args.clone(), Caller::new("ann"));
    assert_eq!(req.arguments, args);
    assert_eq!(req.tool, "delete_file");
    assert_eq!(req.caller.id(), Some("ann"));
    assert_eq!(
        req.summary,
        "Delete file (delete_file; writes, destructive, requires_approval) with path=\"notes/old.txt\", force=true"
    );
    // Long values are shortened in the summary, never in the arguments.
    let long = "x".repeat(500);
    let req = ApprovalRequest::new(&delete_spec(), json!({"path": long}), Caller::anonymous());
    assert!(req.summary.chars().count() < 200);
    assert_eq!(req.arguments["path"].as_str().unwrap().len(), 500);
}

#[tokio::test]
async fn stock_approvers_answer_as_named() {
    let req = ApprovalRequest::new(&delete_spec(), json!({}), Caller::anonymous());
    assert_eq!(approve_all().approve(&req).await, Approval::Approved);
    let no = reject_all().approve(&req).await;
    assert!(!no.is_approved());
    let e = no.into_tool_error("delete_file").unwrap();
    assert_eq!(e.status(), Status::CancelledByUser);
    assert_eq!(e.code(), "CANCELLED_BY_USER");
    assert!(e.message().contains("Do not retry unless the user asks."));
    assert!(Approval::Approved.into_tool_error("x").is_none());
}

#[tokio::test]
async fn closure_approvers_see_the_request_and_can_wait() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let approver: Arc<dyn Approver> = Arc::new(fn_approver(move |req: &ApprovalRequest| {
        log.lock().unwrap().push(req.arguments.clone());
        let path = req.arguments["path"].as_str().unwrap_or("").to_string();
        async move {
            tokio::task::yield_now().await; // a real approver would await a human
            if path.starts_with("tmp/") {
                Approval::Approved
            } else {
                Approval::rejected("only tmp/ may be deleted")
            }
        }
    }));
    let ok = ApprovalRequest::new(
        &delete_spec(),
        json!({"path": "tmp/a"}),
        Caller::anonymous(),
    );
    let no = ApprovalRequest::new(
        &delete_spec(),
        json!({"path": "etc/b"}),
        Caller::anonymous(),
    );
    assert_eq!(approver.approve(&ok).await, Approval::Approved);
    let answer = approver.approve(&no).await;
    assert_eq!(answer, Approval::rejected("only tmp/ may be deleted"));
    assert_eq!(
        answer.into_tool_error("delete_file").unwrap().message(),
        "The user declined the call to \"delete_file\" (reason: only tmp/ may be deleted). It did \
         not run. Do not retry unless the user asks."
    );
    assert_eq!(seen.lock().unwrap().len(), 2);

    let sync = sync_approver(|req| {
        if req.effects.destructive {
            Approval::Rejected { reason: None }
        } else {
            Approval::Approved
        }
    });
    let answer = sync.approve(&ok).await;
    assert_eq!(
        answer.into_tool_error("delete_file").unwrap().message(),
        "The user declined the call to \"delete_file\". It did not run. Do not retry unless the user asks."
    );
}

#[test]
fn approvals_serialize_with_a_decision_tag() {
    assert_eq!(
        serde_json::to_value(Approval::Approved).unwrap(),
        json!({"decision": "approved"})
    );
    assert_eq!(
        serde_json::to_value(Approval::rejected("no")).unwrap(),
        json!({"decision": "rejected", "reason": "no"})
    );
}

#[test]
fn before_hooks_run_in_order_and_the_first_error_stops() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (c1, c2) = (calls.clone(), calls.clone());
    let hooks = Hooks::new()
        .before(move |call| {
            c1.fetch_add(1, Ordering::SeqCst);
            if call.arguments.get("path").and_then(|p| p.as_str()) == Some("/") {
                Err(ToolError::denied(
                    "ROOT_PATH",
                    "The root folder cannot be used here. Pass a path inside the workspace.",
                ))
            } else {
                Ok(())
            }
        })
        .before(move |_| {
            c2.fetch_add(10, Ordering::SeqCst);
            Ok(())
        });
    let caller = Caller::anonymous();
    let good = json!({"path": "a"});
    let bad = json!({"path": "/"});
    let info = |args| CallInfo::new("delete_file", args, &caller, "op_1");
    assert!(hooks.run_before(&info(&good)).is_ok());
    assert_eq!(calls.load(Ordering::SeqCst), 11);
    let e = hooks.run_before(&info(&bad)).unwrap_err();
    assert_eq!(e.code(), "ROOT_PATH");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        12,
        "the second hook did not run"
    );
}

#[test]
fn after_hooks_may_edit_content_but_not_the_outcome() {
    let hooks = Hooks::new()
        .after(|_, env| {
            env.status = Status::Ok;
            env.code = Some("HIJACKED".into());
            env.operation_id = Some("op_other".into());
            env.message = Some("edited".into());
        })
        .after(|call, env| {
            // The second hook sees the restored outcome and the first hook's edit.
            assert_eq!(env.status, Status::Failed);
            assert_eq!(env.message.as_deref(), Some("edited"));
            env.note = Some(format!("seen by {}", call.tool));
        });
    let caller = Caller::anonymous();
    let args = json!({});
    let call = CallInfo::new("t", &args, &caller, "op_1");
    let mut env = Envelope::error(Status::Failed, "BROKEN", "broken");
    env.operation_id = Some("op_1".into());
    hooks.run_after(&call, &mut env);
    assert_eq!(env.status, Status::Failed);
    assert_eq!(env.code.as_deref(), Some("BROKEN"));
    assert_eq!(env.operation_id.as_deref(), Some("op_1"));
    assert_eq!(env.message.as_deref(), Some("edited"));
    assert_eq!(env.note.as_deref(), Some("seen by t"));
    assert!(!hooks.is_empty());
    assert!(Hooks::new().is_empty());
}

/// An approver that panics: the call is `failed` (`APPROVER_FAILED`) and does not run; the
/// panic's text goes to the audit record's host-only detail, redacted like every detail (a
/// token the panic message quotes is masked there), and never to the agent's envelope.
#[tokio::test]
async fn an_approver_panic_is_in_the_audit_detail_and_not_in_the_envelope() {
    let token = format!("ghp_{}", "a1B2c3D4e5".repeat(4).get(..36).unwrap());
    let message = format!("approval UI crashed at /opt/ui/dialog.rs with {token}");
    let approver: Arc<dyn Approver> = Arc::new(fn_approver(move |_req: &ApprovalRequest| {
        let message = message.clone();
        async move {
            if !message.is_empty() {
                panic!("{message}");
            }
            Approval::Approved
        }
    }));
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let sink = Arc::new(toolsmith_core::MemorySink::new());
    let tb = toolsmith_core::Toolbox::builder()
        .tool(toolsmith_core::Tool::from_fn(delete_spec(), move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move { Ok(json!(null)) })
        }))
        .shared_approver(approver)
        .shared_audit(sink.clone())
        .build()
        .unwrap();

    let env = tb
        .call("delete_file", json!({"path": "notes/old.txt"}))
        .await;
    assert_eq!(env.status, Status::Failed, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("APPROVER_FAILED"));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let shown = env.to_json();
    for panic_text in ["approval UI crashed", "/opt/ui", "ghp_"] {
        assert!(
            !shown.contains(panic_text),
            "{panic_text} reached the agent: {shown}"
        );
    }

    // The registration has its record too; the call's is the one that counts here.
    let records: Vec<_> = sink
        .records()
        .into_iter()
        .filter(|r| r.event == toolsmith_core::AuditEvent::Call)
        .collect();
    assert_eq!(records.len(), 1);
    let rec = &records[0];
    assert_eq!(rec.code.as_deref(), Some("APPROVER_FAILED"));
    let detail = rec
        .detail
        .as_deref()
        .expect("the panic is in the audit detail");
    assert!(
        detail.contains("approval UI crashed at /opt/ui/dialog.rs"),
        "{detail}"
    );
    assert!(
        !detail.contains(&token),
        "the token is not redacted: {detail}"
    );
    assert!(detail.contains("[REDACTED:github_token]"), "{detail}");
}
