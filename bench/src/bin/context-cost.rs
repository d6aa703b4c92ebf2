//! Context cost: the compact JSON size of the store-like and helpdesk-like tool sets exported
//! for MCP 2025-11-25, against the same tools declared with rmcp (with `--features rmcp`), and
//! whether every declared description, constraint and enum title survives. Two sizes per tool:
//! the name, description and input schema the model reads to choose a call, and the full
//! `tools/list` entry (title, output schema, annotations and `_meta` too), which a client puts
//! into the context as well.
//!
//! Prints Markdown (the tables `scripts/bench.sh` puts in BENCHMARKS.md); exits with status 1
//! when a declared fact is missing from toolsmith's export.
//!
//! ```sh
//! cargo run --release -p toolsmith-bench --features rmcp --bin context-cost
//! ```

use serde_json::Value;
use std::collections::BTreeMap;
use toolsmith::export::{export, McpVersion, Target};
use toolsmith_bench::facts::{self, compact_len, declared, present, trio};

fn toolsmith_tools(toolbox: &toolsmith::Toolbox) -> Result<Vec<Value>, String> {
    let list = export(&toolbox.specs(), Target::Mcp(McpVersion::V2025_11_25))
        .map_err(|e| format!("toolsmith's MCP export failed: {e}"))?;
    list["tools"]
        .as_array()
        .cloned()
        .ok_or_else(|| "toolsmith's MCP export has no \"tools\" array".to_string())
}

#[cfg(feature = "rmcp")]
fn rmcp_tools(set: &str) -> Vec<Value> {
    use toolsmith_bench::rmcp_tools::{helpdesk_router, store_router};
    let tools = if set == "store" {
        store_router().list_all()
    } else {
        helpdesk_router().list_all()
    };
    tools
        .iter()
        .map(|t| serde_json::to_value(t).unwrap_or(Value::Null))
        .collect()
}

#[cfg(not(feature = "rmcp"))]
fn rmcp_tools(_set: &str) -> Vec<Value> {
    Vec::new()
}

fn by_name(tools: &[Value]) -> BTreeMap<String, Value> {
    tools
        .iter()
        .map(|t| (t["name"].as_str().unwrap_or("").to_string(), t.clone()))
        .collect()
}

fn show(name: &str) {
    for (set, toolbox) in [
        ("store", toolsmith_bench::store_toolbox()),
        ("helpdesk", toolsmith_bench::helpdesk_toolbox()),
    ] {
        let ours = toolsmith_tools(&toolbox)
            .map(|t| by_name(&t))
            .unwrap_or_default();
        let theirs = by_name(&rmcp_tools(set));
        for (who, tools) in [("toolsmith", ours), ("rmcp", theirs)] {
            if let Some(tool) = tools.get(name) {
                println!(
                    "== {who}\n{}",
                    serde_json::to_string_pretty(tool).unwrap_or_default()
                );
            }
        }
    }
}

fn ratio(a: usize, b: usize) -> String {
    if b == 0 {
        "n/a".into()
    } else {
        format!("{:.2}×", a as f64 / b as f64)
    }
}

fn main() {
    // `--show <tool>` prints both definitions of one tool instead of the tables.
    let args: Vec<String> = std::env::args().collect();
    if let Some(name) = args
        .iter()
        .position(|a| a == "--show")
        .and_then(|i| args.get(i + 1))
    {
        show(name);
        return;
    }
    let sets = [
        ("store", toolsmith_bench::store_toolbox()),
        ("helpdesk", toolsmith_bench::helpdesk_toolbox()),
    ];
    let facts = declared();
    let with_rmcp = cfg!(feature = "rmcp");
    let mut failed = false;
    let mut size_rows = Vec::new();
    let mut fact_rows = Vec::new();
    let mut keyword_rows = Vec::new();
    let (mut ours_total, mut theirs_total, mut ours_full_total, mut theirs_full_total) =
        (0, 0, 0, 0);

    for (set, toolbox) in &sets {
        let ours = match toolsmith_tools(toolbox) {
            Ok(t) => by_name(&t),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let theirs = by_name(&rmcp_tools(set));
        let (mut o_set, mut t_set, mut of_set, mut tf_set) = (0, 0, 0, 0);
        for (name, tool) in &ours {
            let o = compact_len(&trio(tool));
            let t = theirs.get(name).map_or(0, |x| compact_len(&trio(x)));
            let of = compact_len(tool);
            let tf = theirs.get(name).map_or(0, compact_len);
            o_set += o;
            t_set += t;
            of_set += of;
            tf_set += tf;
            size_rows.push(format!(
                "| {set} | `{name}` | {o} | {t} | {} | {of} | {tf} | {} |",
                ratio(o, t),
                ratio(of, tf)
            ));
            let declared_here = facts
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, f)| f.as_slice())
                .unwrap_or(&[]);
            let ours_missing: Vec<String> = declared_here
                .iter()
                .filter(|f| !present(&trio(tool), f))
                .map(ToString::to_string)
                .collect();
            let theirs_missing: Vec<String> = match theirs.get(name) {
                Some(x) => declared_here
                    .iter()
                    .filter(|f| !present(&trio(x), f))
                    .map(ToString::to_string)
                    .collect(),
                None => vec!["(not exported)".into()],
            };
            if !ours_missing.is_empty() {
                failed = true;
            }
            fact_rows.push(format!(
                "| `{name}` | {} | {}/{} | {} |",
                declared_here.len(),
                declared_here.len() - ours_missing.len(),
                declared_here.len(),
                if !with_rmcp {
                    "(rmcp not built)".to_string()
                } else if theirs_missing.is_empty() {
                    format!("{0}/{0}", declared_here.len())
                } else {
                    format!(
                        "{}/{}; missing: {}",
                        declared_here.len() - theirs_missing.len(),
                        declared_here.len(),
                        theirs_missing.join("; ")
                    )
                }
            ));
            if !ours_missing.is_empty() {
                fact_rows.push(format!(
                    "| | toolsmith missing: {} | | |",
                    ours_missing.join("; ")
                ));
            }
            if let Some(x) = theirs.get(name) {
                let ko = facts::keywords(&tool["inputSchema"]);
                let kt = facts::keywords(&x["inputSchema"]);
                let only = |a: &BTreeMap<String, usize>, b: &BTreeMap<String, usize>| {
                    a.iter()
                        .filter(|(k, n)| b.get(*k).is_none_or(|m| m < n))
                        .map(|(k, n)| format!("`{k}`×{}", n - b.get(k).copied().unwrap_or(0)))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                keyword_rows.push(format!(
                    "| `{name}` | {} | {} |",
                    only(&kt, &ko),
                    only(&ko, &kt)
                ));
            }
        }
        ours_total += o_set;
        theirs_total += t_set;
        ours_full_total += of_set;
        theirs_full_total += tf_set;
        size_rows.push(format!(
            "| **{set}** | **all** | **{o_set}** | **{t_set}** | **{}** | **{of_set}** | **{tf_set}** | **{}** |",
            ratio(o_set, t_set),
            ratio(of_set, tf_set)
        ));
    }

    println!("| Set | Tool | toolsmith (bytes) | rmcp (bytes) | ratio | toolsmith full entry | rmcp full entry | full ratio |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for r in &size_rows {
        println!("{r}");
    }
    println!(
        "| **both** | **all** | **{ours_total}** | **{theirs_total}** | **{}** | **{ours_full_total}** | **{theirs_full_total}** | **{}** |",
        ratio(ours_total, theirs_total),
        ratio(ours_full_total, theirs_full_total)
    );
    println!();
    println!("| Tool | declared facts | present in toolsmith | present in rmcp |");
    println!("|---|---:|---:|---|");
    for r in &fact_rows {
        println!("{r}");
    }
    if with_rmcp {
        println!();
        println!("| Tool | schema keywords only rmcp emits (extra count) | only toolsmith emits |");
        println!("|---|---|---|");
        for r in &keyword_rows {
            println!("{r}");
        }
    }
    if failed {
        eprintln!("toolsmith's export is missing declared information (see the table above)");
        std::process::exit(1);
    }
}
