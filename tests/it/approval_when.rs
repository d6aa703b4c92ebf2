//! Approval that depends on the arguments, declared with
//! `#[tool(requires_approval(when = fn_name))]`: the typed condition decides per call whether the
//! approver is asked (a transfer under 100 NOK needs none, above it needs the user), the approver
//! still sees the exact arguments, and the exports say the tool may need approval. The
//! pipeline's side (panics, idempotency, audit) is tested on the run-time form in
//! toolsmith-core/tests/it/runtime_approval_when.rs; the signature errors are the UI cases
//! `tests/ui/fail/approval_when_*.rs`.

use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use toolsmith::approval::{sync_approver, ApprovalBasis};
use toolsmith::audit::{AuditEvent, MemorySink};
use toolsmith::export::{export, McpVersion, Target};
use toolsmith::{tool, Approval, ApprovalRequest, Status, Toolbox};

/// The condition: a transfer above 100 NOK, or one to an account abroad, needs the user.
fn over_limit(amount: &u32, to: &str, memo: &Option<String>) -> bool {
    let _ = memo;
    *amount > 100 || !to.starts_with("NO")
}

/// How many times `send_money` ran, over every test of this file.
static RUNS: AtomicUsize = AtomicUsize::new(0);

/// Sends money to an account. Returns the transfer id.
#[tool(writes, requires_approval(when = over_limit))]
fn send_money(
    /// Amount in NOK, e.g. 250.
    #[arg(minimum = 1)]
    amount: u32,
    /// Account number, e.g. "NO9386011117947".
    to: String,
    /// A message for the receiver, e.g. "rent".
    memo: Option<String>,
) -> String {
    RUNS.fetch_add(1, Ordering::SeqCst);
    format!("t-{amount}-{to}-{}", memo.unwrap_or_default())
}

fn toolbox(answer: Approval) -> (Toolbox, Arc<Mutex<Vec<ApprovalRequest>>>, Arc<MemorySink>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let audit = Arc::new(MemorySink::new());
    let tb = Toolbox::builder()
        .tool(send_money::tool())
        .shared_approver(sync_approver(move |req| {
            log.lock().unwrap().push(req.clone());
            answer.clone()
        }))
        .shared_audit(audit.clone())
        .build()
        .unwrap();
    (tb, seen, audit)
}

#[tokio::test]
async fn under_the_limit_runs_unasked_and_above_it_asks_the_user() {
    let (tb, seen, audit) = toolbox(Approval::Approved);
    let before = RUNS.load(Ordering::SeqCst);
    let env = tb
        .call("send_money", json!({"amount": 40, "to": "NO9386011117947"}))
        .await;
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert!(seen.lock().unwrap().is_empty());

    let args = json!({"amount": 250, "to": "NO9386011117947", "memo": "rent"});
    let env = tb.call("send_money", args.clone()).await;
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    // Every parameter reaches the condition: a foreign account asks even for a small amount.
    let env = tb
        .call(
            "send_money",
            json!({"amount": 5, "to": "SE4550000000058398257466"}),
        )
        .await;
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let asked = seen.lock().unwrap().clone();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[0].arguments, args);
    assert_eq!(asked[0].basis, ApprovalBasis::ConditionMet);
    assert_eq!(asked[0].condition.as_deref(), Some("over_limit"));
    assert!(RUNS.load(Ordering::SeqCst) >= before + 3);

    let why: Vec<_> = audit
        .records()
        .into_iter()
        .filter(|r| r.event == AuditEvent::Call)
        .map(|r| (r.approval, r.approval_condition))
        .collect();
    let cond = Some("over_limit".to_string());
    assert_eq!(
        why,
        vec![
            (Some(ApprovalBasis::ConditionNotMet), cond.clone()),
            (Some(ApprovalBasis::ConditionMet), cond.clone()),
            (Some(ApprovalBasis::ConditionMet), cond),
        ]
    );
}

#[tokio::test]
async fn above_the_limit_a_refusal_stops_the_transfer() {
    let (tb, seen, _) = toolbox(Approval::rejected("not this month"));
    let env = tb
        .call(
            "send_money",
            json!({"amount": 5000, "to": "NO9386011117947"}),
        )
        .await;
    assert_eq!(env.status, Status::CancelledByUser);
    assert_eq!(seen.lock().unwrap().len(), 1);
    // Under it the same toolbox still runs it.
    let env = tb
        .call("send_money", json!({"amount": 99, "to": "NO9386011117947"}))
        .await;
    assert_eq!(env.status, Status::Ok);
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn the_exports_say_the_tool_may_need_approval() {
    let spec = send_money::tool().spec().clone();
    assert!(spec.effects.requires_approval && spec.effects.conditional_approval);
    assert_eq!(spec.agent_facing()["effects"]["conditionalApproval"], true);
    let mcp = export(
        std::slice::from_ref(&spec),
        Target::Mcp(McpVersion::V2025_11_25),
    )
    .unwrap();
    let tool = &mcp["tools"][0];
    assert_eq!(tool["_meta"]["toolsmith/approval"], "conditional");
    assert_eq!(tool["annotations"]["readOnlyHint"], false);
    let web = export(std::slice::from_ref(&spec), Target::WebMcp).unwrap();
    assert_eq!(web[0]["annotations"]["consequentialHint"], true, "{web}");
    // The vendor targets have no place for it and reject unknown fields.
    let anthropic = export(&[spec], Target::Anthropic { strict: false }).unwrap();
    assert!(!anthropic.to_string().contains("approval"), "{anthropic}");
    if std::env::var_os("TOOLSMITH_PRINT_EXPORT").is_some() {
        println!("{}", serde_json::to_string_pretty(tool).unwrap());
    }
}

/// The example of the `toolsmith::tool` page (src/docs/tool.md), exactly.
mod readme {
    use toolsmith::tool;

    /// Whether a transfer needs the user: above 100 NOK.
    fn over_limit(amount: &u32, to: &str) -> bool {
        let _ = to;
        *amount > 100
    }

    /// Sends money to an account. Returns the transfer id.
    #[tool(writes, requires_approval(when = over_limit), idempotency_key(to, amount))]
    pub fn send_money(
        /** Amount in NOK, e.g. 250. */
        amount: u32,
        /** Account number, e.g. "NO9386011117947". */
        to: String,
    ) -> String {
        format!("t-{amount}-{to}")
    }
}

#[test]
fn the_tool_page_shows_the_mcp_export_of_its_example() {
    let spec = readme::send_money::tool().spec().clone();
    let mcp = export(&[spec], Target::Mcp(McpVersion::V2025_11_25)).unwrap();
    let mut tool = mcp["tools"][0].clone();
    tool.as_object_mut().unwrap().remove("outputSchema");
    let readme = include_str!("../../src/docs/tool.md");
    let from = readme
        .find("What an MCP client sees in `tools/list`")
        .expect("the tool page's section");
    let block = &readme[from..];
    let start = block.find("```json\n").unwrap() + "```json\n".len();
    let end = start + block[start..].find("```").unwrap();
    let shown: serde_json::Value = serde_json::from_str(&block[start..end]).unwrap();
    assert_eq!(
        shown,
        tool,
        "{}",
        serde_json::to_string_pretty(&tool).unwrap()
    );
}
