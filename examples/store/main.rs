//! `store`: an outdoor-gear catalogue and cart, prices in NOK.
//!
//! Run it with `cargo run -p toolsmith-tests --example store`. It prints the tools' MCP export and a scripted
//! session: a search with more results than are shown, a narrowed search, a search with no
//! match, a comparison, and cart additions that need a size, hit a per-customer limit, or ask for
//! more than the store has.
//!
//! `cargo run -p toolsmith-tests --example store -- --serve [127.0.0.1:8080]` serves the store's page for people
//! instead: the search and add-to-cart forms rendered from the same specs (`page.rs`); in a
//! browser with WebMCP they are the agent's tools too. The page answers under the loopback names
//! only (`localhost`, `127.0.0.1`, `[::1]`: `RequestGuard::loopback`) and takes posts from its
//! own origin only; served under another name, it must list that name
//! (`RequestGuard::for_hosts`).

mod page;
mod tools;

use toolsmith::export::{McpVersion, Target};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let customer = tools::Customer {
        id: "cust-7".into(),
        purchased: vec![("LMP-HEAD".into(), 1)],
    };
    let toolbox = tools::toolbox(tools::demo_catalogue(), customer)?;

    let mut args = std::env::args().skip(1);
    if args.next().as_deref() == Some("--serve") {
        let addr = args.next().unwrap_or_else(|| "127.0.0.1:8080".to_string());
        let listener = tokio::net::TcpListener::bind(&addr).await?;
        println!("the store's page: http://{}/", listener.local_addr()?);
        let guard = toolsmith::ui::RequestGuard::loopback();
        tokio::select! {
            served = page::serve(std::sync::Arc::new(toolbox), guard, listener) => served?,
            _ = tokio::signal::ctrl_c() => {}
        }
        return Ok(());
    }

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
        ("search_products", r#"{"query": "jacket"}"#),
        (
            "search_products",
            r#"{"query": "jacket", "max_price": 1500, "in_stock_only": true}"#,
        ),
        ("search_products", r#"{"query": "kayak"}"#),
        ("compare_products", r#"{"skus": ["TNT-1P", "TNT-2P"]}"#),
        ("compare_products", r#"{"skus": ["TNT-1P", "KAYAK-1"]}"#),
        ("compare_products", r#"{"skus": ["TNT-1P"]}"#),
        ("add_to_cart", r#"{"sku": "BOOT-TROLL", "quantity": 1}"#),
        (
            "add_to_cart",
            r#"{"sku": "BOOT-TROLL", "quantity": 1, "size": "43"}"#,
        ),
        ("add_to_cart", r#"{"sku": "LMP-HEAD", "quantity": 2}"#),
        ("add_to_cart", r#"{"sku": "TNT-1P", "quantity": 5}"#),
        ("add_to_cart", r#"{"sku": "TNT-1P", "quantity": 1}"#),
        ("add_to_cart", r#"{"sku": "TNT-1P", "quantity": 11}"#),
    ];
    for (name, args) in calls {
        let env = toolbox.call(name, args).await;
        println!("{name} {args}\n  -> {}", env.to_json());
    }
    Ok(())
}
