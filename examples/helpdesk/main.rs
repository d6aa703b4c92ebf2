//! `helpdesk`: help articles and support tickets for a signed-in user.
//!
//! Run it with `cargo run -p toolsmith-tests --example helpdesk`. It prints the tools' MCP export and a scripted
//! session: article searches, tickets opened with approval, a duplicate refused before the
//! approver is asked, the hourly limit, a rejected ticket, and ticket look-ups (including another
//! customer's ticket, answered exactly like a missing one).

mod tools;

use toolsmith::approval::sync_approver;
use toolsmith::export::{McpVersion, Target};
use toolsmith::Approval;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let desk = tools::demo_helpdesk();
    // The approver a host would show a person: here it prints the request and approves every
    // ticket except those marked "draft".
    let approver = sync_approver(|req| {
        println!("  [approver] {}", req.summary);
        let subject = req.arguments["subject"].as_str().unwrap_or_default();
        if subject.to_lowercase().contains("draft") {
            Approval::rejected("that was only a draft")
        } else {
            Approval::Approved
        }
    });
    let toolbox = tools::toolbox(&desk, approver)?;

    println!("== MCP 2025-11-25 tools/list ==");
    let mcp = toolbox.export(Target::Mcp(McpVersion::V2025_11_25))?;
    println!("{}", serde_json::to_string_pretty(&mcp)?);

    println!("\n== lint ==");
    for tool in tools::tools() {
        let findings = toolsmith::lint::lint(tool.spec());
        println!("{}: {} findings", tool.name(), findings.len());
    }

    println!("\n== session ==");
    let ticket = |subject: &str, priority: &str| {
        serde_json::json!({
            "subject": subject,
            "body": "Signing in fails with \"invalid code\" since this morning.",
            "priority": priority,
        })
        .to_string()
    };
    let calls = [
        ("search_articles", r#"{"query": "password"}"#.to_string()),
        (
            "search_articles",
            r#"{"query": "kayak rental"}"#.to_string(),
        ),
        ("create_ticket", ticket("Cannot sign in", "high")),
        ("create_ticket", ticket("Cannot sign in", "high")),
        ("create_ticket", ticket("Draft: sign-in question", "low")),
        ("create_ticket", ticket("Sign-in code rejected", "normal")),
        (
            "create_ticket",
            ticket("Sign-in code rejected again", "normal"),
        ),
        ("create_ticket", ticket("Fourth ticket this hour", "normal")),
        (
            "get_ticket_status",
            r#"{"ticket_id": "SUP-1040"}"#.to_string(),
        ),
        (
            "get_ticket_status",
            r#"{"ticket_id": "SUP-1041"}"#.to_string(),
        ),
        (
            "get_ticket_status",
            r#"{"ticket_id": "SUP-9999"}"#.to_string(),
        ),
        ("get_ticket_status", r#"{"ticket_id": "1040"}"#.to_string()),
    ];
    for (name, args) in calls {
        let env = toolbox.call(name, args.as_str()).await;
        println!("{name} {args}\n  -> {}", env.to_json());
    }

    // An hour later the limit has reset.
    desk.clock.advance(tools::HOUR);
    let args = ticket("Fourth ticket, an hour later", "normal");
    let env = toolbox.call("create_ticket", args.as_str()).await;
    println!(
        "(one hour later) create_ticket {args}\n  -> {}",
        env.to_json()
    );
    Ok(())
}
