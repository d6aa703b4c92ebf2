//! Approval that depends on the arguments (`Tool::requires_approval_when`, the run-time form of
//! `#[tool(requires_approval(when = fn_name))]`): the condition decides per call whether the
//! approver is asked, on the validated arguments; a panicking condition asks; the idempotency
//! claim follows the decision; the audit record says why. The typed, macro-generated form is
//! tested in the facade's tests/it/approval_when.rs.

use crate::common;

use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolsmith_core::state::{
    BoxFuture, ClaimRequest, ClaimState, KeptValue, MemoryStateStore, StateStore,
};
use toolsmith_core::{
    sync_approver, Approval, ApprovalBasis, ApprovalRequest, BackendError, Effects, MemorySink,
    Status, StoredOutcome, Tool, Toolbox,
};

fn transfer_spec() -> toolsmith_core::ToolSpec {
    common::spec(
        "send_money",
        "Sends money to an account. Returns the transfer id.",
        json!({
            "type": "object",
            "properties": {
                "amount": {"type": "integer", "minimum": 1, "description": "NOK, e.g. 250."},
                "to": {"type": "string", "description": "Account, e.g. \"1234.56.78901\"."},
                "note": {"type": "string", "default": "", "description": "For the receiver."}
            },
            "required": ["amount", "to"],
            "additionalProperties": false
        }),
        Effects::none().with_writes(true),
    )
}

/// `send_money`, counting its runs, approval over 100 NOK (a string amount would fail
/// validation first: the condition only ever sees valid arguments, so `as_u64` holds).
fn transfer(runs: Arc<AtomicUsize>) -> Tool {
    Tool::from_fn(transfer_spec(), move |_, args| {
        runs.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move { Ok(json!(format!("t-{}", args["amount"]))) })
    })
    .requires_approval_when("over_limit", |args: &Value| {
        args["amount"].as_u64().expect("validated") > 100
    })
}

/// An approver that counts the requests it is asked, keeps them, and answers `answer`.
fn counting(
    answer: Approval,
) -> (
    Arc<Mutex<Vec<ApprovalRequest>>>,
    Arc<dyn toolsmith_core::Approver>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let approver = sync_approver(move |req| {
        log.lock().unwrap().push(req.clone());
        answer.clone()
    });
    (seen, approver)
}

/// The audit records of calls (registrations aside).
fn calls(audit: &MemorySink) -> Vec<toolsmith_core::AuditRecord> {
    let mut records = audit.records();
    records.retain(|r| r.event == toolsmith_core::AuditEvent::Call);
    records
}

#[tokio::test]
async fn the_condition_decides_each_call_and_the_approver_sees_the_exact_arguments() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (seen, approver) = counting(Approval::Approved);
    let audit = Arc::new(MemorySink::new());
    let tb = Toolbox::builder()
        .tool(transfer(runs.clone()))
        .shared_approver(approver)
        .shared_audit(audit.clone())
        .build()
        .unwrap();

    // Under the limit: runs, nobody asked.
    let env = tb
        .call("send_money", json!({"amount": 40, "to": "a"}))
        .await;
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert_eq!(seen.lock().unwrap().len(), 0);
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // Over it: asked, with the validated arguments, then runs.
    let env = tb
        .call("send_money", json!({"amount": 250, "to": "b"}))
        .await;
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    let asked = seen.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].arguments, json!({"amount": 250, "to": "b"}));
    assert_eq!(asked[0].basis, ApprovalBasis::ConditionMet);
    assert_eq!(asked[0].condition.as_deref(), Some("over_limit"));
    assert!(
        asked[0].summary.contains("amount=250"),
        "{}",
        asked[0].summary
    );
    let wire = serde_json::to_value(&asked[0]).unwrap();
    assert_eq!(wire["basis"], "condition_met");
    assert_eq!(wire["condition"], "over_limit");

    // Invalid arguments never reach the condition (it would panic on a string amount).
    let env = tb
        .call("send_money", json!({"amount": "lots", "to": "c"}))
        .await;
    assert_eq!(env.status, Status::InvalidInput);
    assert_eq!(tb.faults().approver, 0);

    // The audit record says whether and why.
    let records = calls(&audit);
    let why: Vec<_> = records
        .iter()
        .map(|r| (r.approval, r.approval_condition.as_deref()))
        .collect();
    assert_eq!(
        why,
        vec![
            (Some(ApprovalBasis::ConditionNotMet), Some("over_limit")),
            (Some(ApprovalBasis::ConditionMet), Some("over_limit")),
            (None, None),
        ]
    );
    let line = serde_json::to_value(&records[1]).unwrap();
    assert_eq!(line["approval"], "condition_met");
    assert_eq!(line["approval_condition"], "over_limit");
}

#[tokio::test]
async fn over_the_limit_a_refusal_or_no_approver_does_not_run_it() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (seen, approver) = counting(Approval::rejected("too much"));
    let tb = Toolbox::builder()
        .tool(transfer(runs.clone()))
        .shared_approver(approver)
        .build()
        .unwrap();
    let env = tb
        .call("send_money", json!({"amount": 500, "to": "b"}))
        .await;
    assert_eq!(env.status, Status::CancelledByUser);
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    // Under it, the same toolbox runs it unasked.
    assert_eq!(
        tb.call("send_money", json!({"amount": 5, "to": "b"}))
            .await
            .status,
        Status::Ok
    );
    assert_eq!(
        (seen.lock().unwrap().len(), runs.load(Ordering::SeqCst)),
        (1, 1)
    );

    // Without an approver: under the limit runs, over it is denied.
    let tb = Toolbox::builder()
        .tool(transfer(runs.clone()))
        .build()
        .unwrap();
    assert_eq!(
        tb.call("send_money", json!({"amount": 5, "to": "b"}))
            .await
            .status,
        Status::Ok
    );
    let env = tb
        .call("send_money", json!({"amount": 500, "to": "b"}))
        .await;
    assert_eq!(env.status, Status::Denied);
    assert_eq!(env.code.as_deref(), Some("APPROVAL_UNAVAILABLE"));
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_panicking_condition_asks_the_approver_and_never_runs_unapproved() {
    let runs = Arc::new(AtomicUsize::new(0));
    let r = runs.clone();
    let tool = Tool::from_fn(transfer_spec(), move |_, _| {
        r.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Ok(json!("t")) })
    })
    .requires_approval_when("broken_rule", |_: &Value| panic!("limit table missing"));
    let (seen, approver) = counting(Approval::rejected("not now"));
    let audit = Arc::new(MemorySink::new());
    let tb = Toolbox::builder()
        .tool(tool.clone())
        .shared_approver(approver)
        .shared_audit(audit.clone())
        .build()
        .unwrap();
    let env = tb.call("send_money", json!({"amount": 5, "to": "b"})).await;
    assert_eq!(env.status, Status::CancelledByUser);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let asked = seen.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].basis, ApprovalBasis::ConditionPanicked);
    assert_eq!(tb.faults().approver, 1);
    let rec = &calls(&audit)[0];
    assert_eq!(rec.approval, Some(ApprovalBasis::ConditionPanicked));
    assert!(rec
        .detail
        .as_deref()
        .unwrap()
        .contains("limit table missing"));
    assert!(!env.to_json().contains("limit table"));

    // With no approver, the same call is denied, not run.
    let tb = Toolbox::builder().tool(tool).build().unwrap();
    let env = tb.call("send_money", json!({"amount": 5, "to": "b"})).await;
    assert_eq!(env.code.as_deref(), Some("APPROVAL_UNAVAILABLE"));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

/// A state store that records how each claim was written and counts the `mark_started` writes:
/// a keyed write that needs no approval is claimed started (two writes: claim, finish), one that
/// waits for approval is marked started after it (three).
struct Counting {
    inner: MemoryStateStore,
    claims_started: Mutex<Vec<bool>>,
    marks: AtomicUsize,
}

impl StateStore for Counting {
    fn claim<'a>(
        &'a self,
        key: &'a str,
        req: ClaimRequest<'a>,
    ) -> BoxFuture<'a, Result<ClaimState, BackendError>> {
        self.claims_started.lock().unwrap().push(req.started);
        self.inner.claim(key, req)
    }
    fn renew<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        self.inner.renew(key, token, lease)
    }
    fn mark_started<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        self.marks.fetch_add(1, Ordering::SeqCst);
        self.inner.mark_started(key, token)
    }
    fn finish<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
        outcome: &'a StoredOutcome,
        window: Duration,
        kept: Option<KeptValue<'a>>,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        self.inner.finish(key, token, outcome, window, kept)
    }
    fn release<'a>(
        &'a self,
        key: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, BackendError>> {
        self.inner.release(key, token)
    }
    fn keep<'a>(
        &'a self,
        reference: &'a str,
        value: &'a Value,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        self.inner.keep(reference, value, ttl)
    }
    fn read<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, BackendError>> {
        self.inner.read(reference)
    }
}

#[tokio::test]
async fn keyed_calls_claim_by_the_decision_and_duplicates_are_refused_before_asking() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (seen, approver) = counting(Approval::Approved);
    let state = Arc::new(Counting {
        inner: MemoryStateStore::new(1024),
        claims_started: Mutex::new(Vec::new()),
        marks: AtomicUsize::new(0),
    });
    let audit = Arc::new(MemorySink::new());
    let tb = Toolbox::builder()
        .tool(transfer(runs.clone()).with_idempotency_key(["to", "amount"]))
        .shared_approver(approver)
        .state_store(state.clone())
        .shared_audit(audit.clone())
        .build()
        .unwrap();

    // Under the limit: claimed started, no mark written, nobody asked.
    let small = json!({"amount": 40, "to": "a"});
    assert_eq!(
        tb.call("send_money", small.clone()).await.status,
        Status::Ok
    );
    assert_eq!(*state.claims_started.lock().unwrap(), vec![true]);
    assert_eq!(state.marks.load(Ordering::SeqCst), 0);

    // Over it: claimed not started, asked, then marked started before it runs.
    let large = json!({"amount": 400, "to": "a"});
    assert_eq!(
        tb.call("send_money", large.clone()).await.status,
        Status::Ok
    );
    assert_eq!(*state.claims_started.lock().unwrap(), vec![true, false]);
    assert_eq!(state.marks.load(Ordering::SeqCst), 1);
    assert_eq!(seen.lock().unwrap().len(), 1);

    // Repeats of either are duplicates, refused before any approver is asked.
    for args in [small, large] {
        let env = tb.call("send_money", args).await;
        assert_eq!(env.code.as_deref(), Some("DUPLICATE"), "{}", env.to_json());
    }
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    // The duplicates' records still say what the condition decided.
    let why: Vec<_> = calls(&audit).iter().map(|r| r.approval).collect();
    assert_eq!(
        why,
        vec![
            Some(ApprovalBasis::ConditionNotMet),
            Some(ApprovalBasis::ConditionMet),
            Some(ApprovalBasis::ConditionNotMet),
            Some(ApprovalBasis::ConditionMet),
        ]
    );
}

#[test]
fn the_spec_says_approval_may_be_needed_and_a_destructive_tool_may_not_skip_it() {
    let tool = transfer(Arc::new(AtomicUsize::new(0)));
    let e = tool.spec().effects;
    assert!(e.requires_approval && e.conditional_approval && e.writes);
    let canonical = tool.spec().agent_facing();
    assert_eq!(canonical["effects"]["conditionalApproval"], true);
    assert_eq!(canonical["effects"]["requiresApproval"], true);

    let destructive = Tool::from_fn(
        transfer_spec().with_effects(Effects::none().with_writes(true).with_destructive(true)),
        |_, _| Box::pin(async { Ok(json!(null)) }),
    )
    .requires_approval_when("over_limit", |_: &Value| false);
    let err = Toolbox::builder()
        .tool(destructive)
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("needs approval of every call"), "{err}");
}

#[tokio::test]
async fn a_policy_that_refuses_approval_tools_refuses_it_whatever_the_arguments() {
    let runs = Arc::new(AtomicUsize::new(0));
    let tb = Toolbox::builder()
        .tool(transfer(runs.clone()))
        .policy(
            toolsmith_core::Policy::allow_all()
                .deny_effect(toolsmith_core::Effect::RequiresApproval),
        )
        .shared_approver(toolsmith_core::approve_all())
        .build()
        .unwrap();
    let env = tb.call("send_money", json!({"amount": 5, "to": "b"})).await;
    assert_eq!(env.status, Status::Denied, "{}", env.to_json());
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}
