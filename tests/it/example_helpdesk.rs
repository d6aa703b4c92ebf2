//! The `helpdesk` example's behaviour: article search, tickets with approval, duplicates and the
//! hourly limit refused before the approver is asked, and ticket look-ups that treat another
//! customer's ticket exactly like a missing one and mark the latest reply as untrusted.

use crate::common;
use crate::helpdesk_tools as tools;

use common::call_blocking as call;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use toolsmith::approval::sync_approver;
use toolsmith::Approval;
use toolsmith::{Envelope, Status, Toolbox};

type Seen = Arc<Mutex<Vec<Value>>>;

/// The demo help desk with an approver that records what it saw and answers `answer`.
fn helpdesk(answer: Approval) -> (tools::Helpdesk, Toolbox, Seen) {
    let h = tools::demo_helpdesk();
    let (tb, seen) = toolbox_over(&h, answer);
    (h, tb, seen)
}

fn toolbox_over(h: &tools::Helpdesk, answer: Approval) -> (Toolbox, Seen) {
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let approver = sync_approver(move |req| {
        log.lock().unwrap().push(req.arguments.clone());
        answer.clone()
    });
    (tools::toolbox(h, approver).unwrap(), seen)
}

fn ticket(subject: &str) -> Value {
    json!({
        "subject": subject,
        "body": "Signing in fails with \"invalid code\" since this morning.",
        "priority": "normal",
    })
}

fn own_tickets(h: &tools::Helpdesk) -> usize {
    h.desk
        .tickets
        .lock()
        .unwrap()
        .iter()
        .filter(|t| t.customer_id == h.account.customer_id)
        .count()
}

#[test]
fn every_tool_passes_the_lint_and_stays_within_budgets() {
    common::assert_lint_clean_within_budgets(tools::tools(), |spec| {
        for name in spec.input_schema["properties"].as_object().unwrap().keys() {
            // The account and contact details are injected, never parameters.
            assert!(!["account", "email", "customer_id"].contains(&name.as_str()));
        }
    });
}

#[test]
fn specs_declare_effects_the_priority_promises_and_the_ticket_id_pattern() {
    let specs: Vec<_> = tools::tools().iter().map(|t| t.spec().clone()).collect();
    let by = |n: &str| specs.iter().find(|s| s.name == n).unwrap().clone();
    assert!(by("search_articles").effects.read_only);
    let create = by("create_ticket");
    assert!(create.effects.writes && create.effects.requires_approval);
    let status = by("get_ticket_status");
    assert!(status.effects.read_only && status.effects.untrusted_output);
    assert_eq!(
        status.input_schema["properties"]["ticket_id"]["pattern"],
        "^SUP-[0-9]{4,6}$"
    );
    // Each priority value carries a title stating the reply time it promises.
    let priority = &create.input_schema["properties"]["priority"];
    let values = priority["oneOf"]
        .as_array()
        .expect("oneOf of documented values");
    let pairs: Vec<(String, String)> = values
        .iter()
        .map(|v| {
            (
                v["const"].as_str().unwrap().to_string(),
                v["title"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(pairs.len(), 3);
    for (value, title) in &pairs {
        assert!(title.contains("reply within"), "{value}: {title}");
    }
    assert_eq!(
        pairs.iter().map(|(v, _)| v.as_str()).collect::<Vec<_>>(),
        ["low", "normal", "high"]
    );
    // The ticket's state is not reported under a field called "status".
    let out = status.output_schema.unwrap();
    assert!(out["properties"].get("state").is_some());
    assert!(out["properties"].get("status").is_none());
}

#[test]
fn search_articles_returns_up_to_five_with_title_link_and_excerpt() {
    let (_, tb, _) = helpdesk(Approval::Approved);
    let env = call(&tb, "search_articles", json!({"query": "password"}));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let hits = env.data.unwrap();
    let hits = hits.as_array().unwrap();
    assert_eq!(
        hits.len(),
        5,
        "six articles mention passwords; five are shown"
    );
    for h in hits {
        assert!(!h["title"].as_str().unwrap().is_empty());
        assert!(h["link"]
            .as_str()
            .unwrap()
            .starts_with("https://help.example.com/"));
        let excerpt = h["excerpt"].as_str().unwrap();
        assert!(excerpt.chars().count() <= 162, "{excerpt}");
        assert!(excerpt.to_lowercase().contains("password"), "{excerpt}");
    }
    // Title matches rank first.
    assert!(hits[0]["title"]
        .as_str()
        .unwrap()
        .to_lowercase()
        .contains("password"));

    let env = call(&tb, "search_articles", json!({"query": "kayak rental"}));
    assert_eq!(env.status, Status::Empty);
    let msg = env.message.unwrap();
    assert!(
        msg.contains("Try") && msg.contains("create_ticket"),
        "{msg}"
    );
}

#[test]
fn an_approved_ticket_is_opened_with_the_injected_contact_details() {
    let (h, tb, seen) = helpdesk(Approval::Approved);
    let args = json!({
        "subject": "Cannot sign in",
        "body": "Signing in fails with \"invalid code\".",
        "priority": "high",
    });
    let env = call(&tb, "create_ticket", args.clone());
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let data = env.data.unwrap();
    assert_eq!(data["ticket_id"], "SUP-1042");
    assert_eq!(data["state"], "open");
    assert_eq!(data["replies_to"], "ola@example.com");
    assert_eq!(data["opened_for"], "Ola Nordmann");
    assert_eq!(
        data["first_reply"],
        tools::iso8601(tools::DEMO_NOW + 4 * 3600)
    );
    assert_eq!(*seen.lock().unwrap(), vec![args]);
    assert_eq!(own_tickets(&h), 2);
}

#[test]
fn an_identical_ticket_is_refused_as_a_duplicate_before_the_approver_is_asked() {
    let (h, tb, seen) = helpdesk(Approval::Approved);
    let env = call(&tb, "create_ticket", ticket("Cannot sign in"));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    // Same subject and body, another priority: still the same ticket.
    let mut again = ticket("Cannot sign in");
    again["priority"] = json!("high");
    let env = call(&tb, "create_ticket", again);
    assert_eq!(env.status, Status::Refused, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("DUPLICATE"));
    assert!(env.message.as_deref().unwrap().contains("SUP-1042"));
    assert_eq!(env.data.unwrap()["ticket_id"], "SUP-1042");
    assert_eq!(seen.lock().unwrap().len(), 1, "the approver was asked once");
    assert_eq!(own_tickets(&h), 2);
}

#[test]
fn concurrent_identical_tickets_open_one_ticket() {
    let h = tools::demo_helpdesk();
    let (tb, _) = toolbox_over(&h, Approval::Approved);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (a, b) = rt.block_on(async {
        tokio::join!(
            tb.call("create_ticket", ticket("Cannot sign in")),
            tb.call("create_ticket", ticket("Cannot sign in"))
        )
    });
    let mut statuses = [a.status, b.status];
    statuses.sort_by_key(|s| s.as_str());
    assert_eq!(statuses, [Status::Ok, Status::Refused]);
    assert_eq!(own_tickets(&h), 2);
}

#[test]
fn a_duplicate_after_a_restart_is_still_refused_by_the_tool() {
    // A new toolbox (an empty idempotency gate) over the same desk: the tool's own check, which
    // uses the injected clock, refuses the repeat.
    let (h, tb, _) = helpdesk(Approval::Approved);
    assert_eq!(
        call(&tb, "create_ticket", ticket("Cannot sign in")).status,
        Status::Ok
    );
    let (tb2, _) = toolbox_over(&h, Approval::Approved);
    let env = call(&tb2, "create_ticket", ticket("Cannot sign in"));
    assert_eq!(env.code.as_deref(), Some("DUPLICATE"), "{}", env.to_json());
    assert_eq!(env.data.unwrap()["ticket_id"], "SUP-1042");
    assert_eq!(own_tickets(&h), 2);
}

#[test]
fn a_fourth_ticket_within_the_hour_is_refused_with_when_the_limit_resets() {
    let (h, tb, seen) = helpdesk(Approval::Approved);
    let first_at = h.clock.now();
    for i in 0..3 {
        let env = call(&tb, "create_ticket", ticket(&format!("Problem number {i}")));
        assert_eq!(env.status, Status::Ok, "{}", env.to_json());
        h.clock.advance(600);
    }
    let env = call(&tb, "create_ticket", ticket("Problem number 3"));
    assert_eq!(env.status, Status::Refused, "{}", env.to_json());
    assert_eq!(env.code.as_deref(), Some("RATE_LIMITED"));
    let resets_at = tools::iso8601(first_at + 3600);
    assert!(
        env.message.as_deref().unwrap().contains(&resets_at),
        "{}",
        env.to_json()
    );
    assert!(env.message.as_deref().unwrap().contains("in 30 min"));
    assert_eq!(env.data.unwrap()["resets_at"], resets_at);
    assert_eq!(
        seen.lock().unwrap().len(),
        3,
        "the approver was not asked the fourth time"
    );
    assert_eq!(own_tickets(&h), 4);

    // When the first ticket leaves the window, one more may be opened.
    h.clock.advance(1800);
    let env = call(&tb, "create_ticket", ticket("Problem number 3"));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let env = call(&tb, "create_ticket", ticket("Problem number 4"));
    assert_eq!(
        env.code.as_deref(),
        Some("RATE_LIMITED"),
        "{}",
        env.to_json()
    );
}

#[test]
fn a_rejected_ticket_is_cancelled_by_the_user_and_not_opened() {
    let (h, tb, seen) = helpdesk(Approval::rejected("not now"));
    let env = call(&tb, "create_ticket", ticket("Cannot sign in"));
    assert_eq!(env.status, Status::CancelledByUser, "{}", env.to_json());
    assert_eq!(own_tickets(&h), 1);
    // A rejected request is not a completed one: asking again asks the approver again.
    let env = call(&tb, "create_ticket", ticket("Cannot sign in"));
    assert_eq!(env.status, Status::CancelledByUser);
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn ticket_status_reports_the_state_and_marks_the_latest_reply_untrusted() {
    let (_, tb, _) = helpdesk(Approval::Approved);
    let env = call(&tb, "get_ticket_status", json!({"ticket_id": "SUP-1040"}));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    let data = env.data.clone().unwrap();
    assert!(data.get("status").is_none());
    assert_eq!(data["state"], "waiting_on_customer");
    assert_eq!(
        data["state_changed_at"],
        tools::iso8601(tools::DEMO_NOW - 86_400)
    );
    let reply = &data["latest_reply"];
    assert_eq!(reply["from"], "Kari (support)");
    assert!(reply["untrusted_text"]
        .as_str()
        .unwrap()
        .contains("carrier"));
    assert!(env.note.as_deref().unwrap().contains("third party"));

    // A fresh ticket has no reply and no note.
    call(&tb, "create_ticket", ticket("Cannot sign in"));
    let env = call(&tb, "get_ticket_status", json!({"ticket_id": "SUP-1042"}));
    assert_eq!(env.status, Status::Ok, "{}", env.to_json());
    assert_eq!(env.data.as_ref().unwrap()["state"], "open");
    assert!(env.data.unwrap().get("latest_reply").is_none());
    assert!(env.note.is_none());
}

#[test]
fn another_customers_ticket_gets_the_same_answer_as_a_missing_one() {
    let (_, tb, _) = helpdesk(Approval::Approved);
    // SUP-1041 belongs to another customer; SUP-1077 does not exist.
    let other = call(&tb, "get_ticket_status", json!({"ticket_id": "SUP-1041"}));
    let missing = call(&tb, "get_ticket_status", json!({"ticket_id": "SUP-1077"}));
    let normalize = |env: &Envelope, id: &str| {
        let mut v: Value = serde_json::from_str(&env.to_json()).unwrap();
        v.as_object_mut().unwrap().remove("operation_id");
        serde_json::to_string(&v).unwrap().replace(id, "SUP-XXXX")
    };
    assert_eq!(other.status, Status::InvalidInput);
    assert_eq!(
        normalize(&other, "SUP-1041"),
        normalize(&missing, "SUP-1077")
    );
    assert!(!other.to_json().contains("Invoice"));

    let env = call(&tb, "get_ticket_status", json!({"ticket_id": "1040"}));
    assert_eq!(env.status, Status::InvalidInput);
    assert!(env.message.unwrap().contains("SUP-"));
}

#[test]
fn iso8601_formats_known_instants() {
    assert_eq!(tools::iso8601(0), "1970-01-01T00:00:00Z");
    assert_eq!(tools::iso8601(tools::DEMO_NOW), "2026-11-30T12:00:00Z");
    assert_eq!(tools::iso8601(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(tools::iso8601(4_102_444_799), "2099-12-31T23:59:59Z");
}
