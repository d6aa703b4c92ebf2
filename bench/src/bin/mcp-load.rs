//! MCP load: N concurrent streamable-HTTP clients on 127.0.0.1 calling one cheap tool,
//! against toolsmith's MCP server and against rmcp serving the same tool with its own `#[tool]`
//! router, in the same run. Both servers use rmcp's streamable-HTTP transport with its default
//! settings behind the same hyper listener; the clients are rmcp's HTTP client, one session each.
//!
//! `--tool array` (the default) calls `search_products`, the call benchmark's tool, whose output
//! is a list: at the 2025-11-25 revision both servers negotiate, rmcp publishes no output schema
//! for it and answers with the JSON as text only, while toolsmith publishes the list wrapped as
//! `{"result": [...]}` and so also sends it as `structuredContent`. `--tool object` calls
//! `search_products_object`, the same search answered as an object (`{"products": [...]}`), for
//! which both servers send `structuredContent` and its JSON as text: the same protocol work.
//!
//! Bounded in count and time: each client makes at most `--calls` calls and stops at the
//! deadline (`--seconds`). Prints a Markdown table: calls per second, p50 and p99 latency and
//! errors (a protocol error, a transport error or an `isError` result). An unreported warm-up
//! round (up to 100 calls per client on each server) comes first, and the measured rounds swap
//! which server goes first.
//!
//! ```sh
//! cargo run --release -p toolsmith-bench --features mcp --bin mcp-load -- --clients 16 --calls 400 --seconds 20 [--tool object]
//! ```

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::CallToolRequestParams;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{
    StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::ServiceExt;
use rmcp::{tool, tool_handler, tool_router, ServerHandler};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use toolsmith_bench::rmcp_tools::SearchProductsArgs;
use toolsmith_bench::store::{search_catalogue, Category, Product};

/// The search's answer as an object.
#[toolsmith::model]
struct Matches {
    /// The matching products, cheapest first.
    products: Vec<Product>,
}

/// Searches the outdoor-gear catalogue by name. Returns an object with the matching products, cheapest first, each with SKU, name, price in NOK and stock status.
#[toolsmith::tool(read_only, title = "Search products")]
fn search_products_object(
    /// Words to look for in product names, e.g. "tent".
    #[arg(min_length = 2, max_length = 100)]
    query: String,
    /// Only products in this category.
    category: Option<Category>,
    /// Highest price in NOK, e.g. 2500.
    #[arg(maximum = 100000)]
    max_price: Option<u32>,
    /// Only products that can ship today.
    in_stock_only: Option<bool>,
) -> Matches {
    let _ = category;
    Matches {
        products: search_catalogue(&query, max_price, in_stock_only),
    }
}

/// The load tool as rmcp users write it: `#[tool_router]`, `Parameters<T>`, `Json<T>`.
#[derive(Clone)]
struct RmcpStore {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl RmcpStore {
    /// Searches the outdoor-gear catalogue by name. Returns the matching products, cheapest first, each with SKU, name, price in NOK and stock status.
    #[tool(annotations(title = "Search products", read_only_hint = true))]
    fn search_products(
        &self,
        Parameters(args): Parameters<SearchProductsArgs>,
    ) -> Json<Vec<Product>> {
        Json(search_catalogue(
            &args.query,
            args.max_price,
            args.in_stock_only,
        ))
    }

    /// Searches the outdoor-gear catalogue by name. Returns an object with the matching products, cheapest first, each with SKU, name, price in NOK and stock status.
    #[tool(annotations(title = "Search products", read_only_hint = true))]
    fn search_products_object(
        &self,
        Parameters(args): Parameters<SearchProductsArgs>,
    ) -> Json<Matches> {
        Json(Matches {
            products: search_catalogue(&args.query, args.max_price, args.in_stock_only),
        })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpStore {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[derive(Clone)]
struct Options {
    clients: usize,
    calls: usize,
    seconds: u64,
    /// How many times each server is measured (alternating).
    rounds: usize,
    /// Measure only this server (`toolsmith` or `rmcp`), for profiling one side.
    only: Option<String>,
    /// The tool called: `search_products` or `search_products_object`.
    tool: &'static str,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        clients: 16,
        calls: 400,
        seconds: 20,
        rounds: 2,
        only: None,
        tool: "search_products",
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .filter(|v| *v > 0)
                .ok_or_else(|| format!("{name} needs a whole number above 0"))
        };
        match a.as_str() {
            "--clients" => o.clients = value("--clients")? as usize,
            "--calls" => o.calls = value("--calls")? as usize,
            "--seconds" => o.seconds = value("--seconds")?,
            "--rounds" => o.rounds = value("--rounds")? as usize,
            "--only" => match args.next().as_deref() {
                Some(side @ ("toolsmith" | "rmcp")) => o.only = Some(side.to_owned()),
                _ => return Err("--only needs `toolsmith` or `rmcp`".to_owned()),
            },
            "--tool" => match args.next().as_deref() {
                Some("array") => o.tool = "search_products",
                Some("object") => o.tool = "search_products_object",
                _ => return Err("--tool needs `array` or `object`".to_owned()),
            },
            other => {
                return Err(format!(
                    "unknown argument {other:?}; usage: mcp-load [--clients N] [--calls N] [--seconds N] [--rounds N] [--only toolsmith|rmcp] [--tool array|object]"
                ))
            }
        }
    }
    Ok(o)
}

/// Serves `RmcpStore` (its `#[tool_handler]` router) on an ephemeral port, with rmcp's
/// default transport settings, as toolsmith's server uses them.
async fn serve_rmcp() -> String {
    let service: StreamableHttpService<RmcpStore, LocalSessionManager> = StreamableHttpService::new(
        || {
            Ok(RmcpStore {
                tool_router: RmcpStore::tool_router(),
            })
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let svc = TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    format!("http://{addr}/mcp")
}

/// What one client saw.
struct ClientRun {
    latencies: Vec<Duration>,
    errors: usize,
    started: Instant,
    ended: Instant,
}

async fn one_client(url: String, tool: &'static str, calls: usize, deadline: Instant) -> ClientRun {
    let now = Instant::now();
    let mut run = ClientRun {
        latencies: Vec::with_capacity(calls),
        errors: 0,
        started: now,
        ended: now,
    };
    let transport = StreamableHttpClientTransport::from_uri(url.as_str());
    let Ok(client) = ().serve(transport).await else {
        run.errors = calls;
        return run;
    };
    let mut args = serde_json::Map::new();
    args.insert("query".into(), "tent".into());
    args.insert("max_price".into(), 4000.into());
    let request = CallToolRequestParams::new(tool).with_arguments(args);
    // One warm-up call (session, connection) before the measured ones.
    let _ = client.call_tool(request.clone()).await;
    run.started = Instant::now();
    for _ in 0..calls {
        if Instant::now() >= deadline {
            break;
        }
        let t = Instant::now();
        match client.call_tool(request.clone()).await {
            Ok(r) if r.is_error != Some(true) => run.latencies.push(t.elapsed()),
            _ => run.errors += 1,
        }
    }
    run.ended = Instant::now();
    let _ = client.cancel().await;
    run
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

async fn measure(name: &str, url: String, o: &Options) -> String {
    let deadline = Instant::now() + Duration::from_secs(o.seconds);
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..o.clients {
        set.spawn(one_client(url.clone(), o.tool, o.calls, deadline));
    }
    let mut runs = Vec::new();
    while let Some(r) = set.join_next().await {
        match r {
            Ok(run) => runs.push(run),
            Err(_) => runs.push(ClientRun {
                latencies: Vec::new(),
                errors: o.calls,
                started: Instant::now(),
                ended: Instant::now(),
            }),
        }
    }
    let mut latencies: Vec<Duration> = runs.iter().flat_map(|r| r.latencies.clone()).collect();
    latencies.sort();
    let errors: usize = runs.iter().map(|r| r.errors).sum();
    let start = runs
        .iter()
        .map(|r| r.started)
        .min()
        .unwrap_or_else(Instant::now);
    let end = runs.iter().map(|r| r.ended).max().unwrap_or(start);
    let wall = end.duration_since(start).as_secs_f64();
    let per_second = if wall > 0.0 {
        latencies.len() as f64 / wall
    } else {
        0.0
    };
    format!(
        "| {name} | {} | {} | {errors} | {per_second:.0} | {:.2} | {:.2} |",
        o.clients,
        latencies.len(),
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
    )
}

fn main() {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("mcp-load: {e}");
            std::process::exit(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let toolbox = toolsmith_bench::store_toolbox();
        if let Err(e) = toolbox.register(search_products_object::tool()) {
            eprintln!("mcp-load: the object tool does not register: {e}");
            std::process::exit(2);
        }
        let ours = toolsmith::mcp::McpServer::new(toolbox)
            .bind_http("127.0.0.1:0")
            .await
            .expect("bind");
        let theirs = serve_rmcp().await;
        println!("| Server | clients | calls | errors | calls / s | p50 (ms) | p99 (ms) |");
        println!("|---|---:|---:|---:|---:|---:|---:|");
        // Alternate, and swap which goes first every round, so neither always runs on a colder
        // or warmer machine (or always first, on a process still warming up).
        let runs = |side: &str| o.only.as_deref().is_none_or(|only| only == side);
        // One unreported round first, on both servers: the process's first measured run would
        // otherwise also pay for warming up (worker threads, allocator, connection pools).
        let warm = Options {
            calls: o.calls.min(100),
            ..o.clone()
        };
        if runs("toolsmith") {
            let _ = measure("warm-up", ours.url(), &warm).await;
        }
        if runs("rmcp") {
            let _ = measure("warm-up", theirs.clone(), &warm).await;
        }
        for round in 0..o.rounds {
            let again = if round == 0 {
                String::new()
            } else {
                format!(", run {}", round + 1)
            };
            let order = if round % 2 == 0 {
                ["toolsmith", "rmcp"]
            } else {
                ["rmcp", "toolsmith"]
            };
            for side in order.into_iter().filter(|side| runs(side)) {
                let row = if side == "toolsmith" {
                    let name = format!("toolsmith (`McpServer`){again}");
                    measure(&name, ours.url(), &o).await
                } else {
                    let name = format!("rmcp (`#[tool_handler]` router){again}");
                    measure(&name, theirs.clone(), &o).await
                };
                println!("{row}");
            }
        }
        ours.shutdown().await;
    });
}
