//! A loop of `Toolbox::call` on the call bench's tool, for profilers (callgrind, perf): no
//! criterion machinery around the calls.
//!
//! ```sh
//! cargo build --release -p toolsmith-bench --bin profile-call
//! valgrind --tool=callgrind target/release/profile-call valid text 20000
//! ```
//!
//! Arguments: scenario (`valid`, `invalid_type`, `invalid_constraint`), entry point (`text`,
//! `value`: `Toolbox::call` then `Envelope::to_json`; `json-text`, `json-value`:
//! `Toolbox::call_json`; the floor: `floor-text`, `floor-value`; with `--features rmcp`, rmcp's
//! router as the call bench runs it: `rmcp-text`, `rmcp-value`; what running the tool on a tool
//! thread costs: `json-text-isolated`, `call_json` with `ToolboxBuilder::isolate_all_tools`, and
//! `json-text-timeout`, with a 5 s default timeout (a timer too), on a runtime with time
//! enabled), number of calls (default 10000).

use serde_json::Value;
use toolsmith_bench::store::{floor_text, floor_value};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scenario = args.first().map_or("valid", String::as_str);
    let entry = args.get(1).map_or("text", String::as_str);
    let calls = toolsmith_bench::count_arg(&args, 2, 10_000, "calls");
    let text = match scenario {
        "valid" => r#"{"query": "tent", "max_price": 4000, "in_stock_only": true}"#,
        "invalid_type" => r#"{"query": "tent", "max_price": "cheap", "in_stock_only": true}"#,
        "invalid_constraint" => r#"{"query": "x", "max_price": 4000, "in_stock_only": true}"#,
        other => {
            eprintln!("unknown scenario {other:?}; use valid, invalid_type or invalid_constraint");
            std::process::exit(2);
        }
    };
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let (rt, toolbox) = match entry {
        "json-text-isolated" => (
            toolsmith_bench::runtime(),
            toolsmith_bench::store_builder().isolate_all_tools(),
        ),
        "json-text-timeout" => (
            tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .expect("a current-thread runtime with time"),
            toolsmith_bench::store_builder().default_timeout(std::time::Duration::from_secs(5)),
        ),
        _ => (toolsmith_bench::runtime(), toolsmith_bench::store_builder()),
    };
    let toolbox = toolbox
        .build()
        .unwrap_or_else(|e| panic!("the store fixture toolbox does not build: {e}"));
    // rmcp's caller starts an idle server task (for its `Peer`) inside the runtime.
    #[cfg(feature = "rmcp")]
    let rmcp = {
        let _guard = rt.enter();
        toolsmith_bench::rmcp_tools::RmcpCaller::new()
    };
    let mut bytes = 0usize;
    for _ in 0..calls {
        let out = match entry {
            "value" => rt
                .block_on(toolbox.call("search_products", value.clone()))
                .to_json(),
            "json-text" | "json-text-isolated" | "json-text-timeout" => {
                rt.block_on(toolbox.call_json("search_products", text))
            }
            "json-value" => rt.block_on(toolbox.call_json("search_products", value.clone())),
            "floor-text" => rt.block_on(async { floor_text(text) }),
            "floor-value" => {
                let v = value.clone();
                rt.block_on(async { floor_value(v) })
            }
            #[cfg(feature = "rmcp")]
            "rmcp-text" => rt.block_on(rmcp.call_text("search_products", text)),
            #[cfg(feature = "rmcp")]
            "rmcp-value" => rt.block_on(rmcp.call_value("search_products", value.clone())),
            _ => rt.block_on(toolbox.call("search_products", text)).to_json(),
        };
        bytes += out.len();
    }
    println!("{calls} calls, {bytes} bytes of envelopes");
}
