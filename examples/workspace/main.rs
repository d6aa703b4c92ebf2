//! `workspace`: tools that read, search and write text files inside one root directory.
//!
//! Run it with `cargo run -p toolsmith-tests --example workspace`. It builds a small workspace in a temporary
//! directory (with a link that points outside it), prints the tools' MCP export, and runs a
//! scripted session: reads, path attacks that are refused, a paged search, approved and
//! rejected writes, and a repeated write that is refused before the approver is asked again.

mod tools;

use std::fs;
use std::path::PathBuf;
use toolsmith::approval::sync_approver;
use toolsmith::export::{McpVersion, Target};
use toolsmith::Approval;

fn demo_dir() -> std::io::Result<PathBuf> {
    let base =
        std::env::temp_dir().join(format!("toolsmith-workspace-demo-{}", std::process::id()));
    let root = base.join("ws");
    fs::create_dir_all(root.join("notes"))?;
    fs::create_dir_all(base.join("private"))?;
    fs::write(base.join("private/secret.txt"), "not for the model\n")?;
    fs::write(
        root.join("notes/todo.md"),
        "# Todo\n- TODO: pack the tent\n- TODO: buy stove fuel\n- check the weather\n",
    )?;
    let mut log = String::new();
    for i in 1..=60 {
        log.push_str(&format!(
            "2026-11-30 12:{:02} TODO entry number {i}\n",
            i % 60
        ));
    }
    fs::write(root.join("notes/log.txt"), log)?;
    #[cfg(unix)]
    {
        let _ = std::os::unix::fs::symlink(base.join("private"), root.join("shortcut"));
    }
    Ok(base)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base = demo_dir()?;
    let workspace = tools::Workspace::open(base.join("ws"))?;
    // The approver a host would show a person; here it prints the exact change and approves
    // writes under notes/ only.
    let approver = sync_approver(|req| {
        println!("  [approver] {}", req.summary);
        let path = req.arguments["path"].as_str().unwrap_or_default();
        if path.starts_with("notes/") {
            Approval::Approved
        } else {
            Approval::rejected("only files under notes/ may change")
        }
    });
    let toolbox = tools::toolbox(workspace, approver)?;

    println!("== MCP 2025-11-25 tools/list ==");
    let mcp = toolbox.export(Target::Mcp(McpVersion::V2025_11_25))?;
    println!("{}", serde_json::to_string_pretty(&mcp)?);

    println!("\n== lint ==");
    for tool in tools::tools() {
        let findings = toolsmith::lint::lint(tool.spec());
        println!("{}: {} findings", tool.name(), findings.len());
    }

    println!("\n== session ==");
    let calls = [
        ("read_file", r#"{"path": "notes/todo.md"}"#.to_string()),
        ("read_file", r#"{"path": "notes/missing.md"}"#.to_string()),
        ("read_file", r#"{"path": "/etc/passwd"}"#.to_string()),
        (
            "read_file",
            r#"{"path": "../private/secret.txt"}"#.to_string(),
        ),
        (
            "read_file",
            r#"{"path": "shortcut/secret.txt"}"#.to_string(),
        ),
        ("read_file", r#"{"path": "notes"}"#.to_string()),
        (
            "read_file",
            r#"{"path": "notes/log.txt", "max_bytes": 100}"#.to_string(),
        ),
        ("search_text", r#"{"query": "tent"}"#.to_string()),
        ("search_text", r#"{"query": "kayak"}"#.to_string()),
        ("search_text", r#"{"query": "todo"}"#.to_string()),
    ];
    let mut cursor = None;
    for (name, args) in calls {
        let env = toolbox.call(name, args.as_str()).await;
        println!("{name} {args}\n  -> {}", env.to_json());
        cursor = env.cursor.clone().or(cursor);
    }
    if let Some(c) = cursor {
        let args = serde_json::json!({"query": "todo", "cursor": c});
        let env = toolbox.call("search_text", args.clone()).await;
        println!("search_text {args}\n  -> {}", env.to_json());
    }
    let writes = [
        r#"{"path": "notes/packing.md", "content": "- tent\n- stove\n"}"#,
        r#"{"path": "notes/packing.md", "content": "- tent\n- stove\n"}"#,
        r#"{"path": "README.md", "content": "hello\n"}"#,
        r#"{"path": "../escape.txt", "content": "x"}"#,
    ];
    for args in writes {
        let env = toolbox.call("write_file", args).await;
        println!("write_file {args}\n  -> {}", env.to_json());
    }
    let _ = fs::remove_dir_all(&base);
    Ok(())
}
