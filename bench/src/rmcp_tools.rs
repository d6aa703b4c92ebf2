//! The same six tools declared with rmcp's `#[tool_router]`/`#[tool]` macros and
//! `Parameters<T>`, with the same doc text and the constraints spelled as schemars attributes,
//! each publishing the same output type as the toolsmith tool (rmcp's `output_schema`, from
//! the type's schemars schema as `Json<T>` would give it; the bodies still return text, so the
//! call benchmark measures what it measured before), plus an in-process caller that goes through rmcp's `ToolRouter::call` (argument parsing
//! included) without a transport.

use crate::helpdesk::{Article, Priority};
use crate::store::{search_catalogue, Category, Product};
use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, JsonObject, NumberOrString, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{serve_directly, RequestContext, RunningService};
use rmcp::{tool, tool_handler, tool_router, Peer, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `search_products`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchProductsArgs {
    /// Words to look for in product names, e.g. "tent".
    #[schemars(length(min = 2, max = 100))]
    pub query: String,
    /// Only products in this category.
    pub category: Option<Category>,
    /// Highest price in NOK, e.g. 2500.
    #[schemars(range(max = 100000))]
    pub max_price: Option<u32>,
    /// Only products that can ship today.
    pub in_stock_only: Option<bool>,
}

/// Arguments of `compare_products`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CompareProductsArgs {
    /// The SKUs to compare, e.g. ["TNT-2P", "TNT-1P"].
    #[schemars(length(min = 2, max = 4), extend("uniqueItems" = true))]
    pub skus: Vec<String>,
}

/// Arguments of `add_to_cart`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddToCartArgs {
    /// The product's SKU, e.g. "TNT-2P".
    #[schemars(regex(pattern = "^[A-Z]{3}-[A-Z0-9]+$"))]
    pub sku: String,
    /// How many to add, 1 to 10.
    #[schemars(range(min = 1, max = 10))]
    pub quantity: u32,
}

/// Arguments of `search_articles`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArticlesArgs {
    /// Words to look for, e.g. "reset password".
    #[schemars(length(min = 2, max = 200))]
    pub query: String,
}

/// Arguments of `create_ticket`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateTicketArgs {
    /// One-line summary of the problem, e.g. "Cannot log in".
    #[schemars(length(min = 3, max = 120))]
    pub subject: String,
    /// The full problem statement in the customer's words.
    #[schemars(length(max = 4000))]
    pub body: String,
    /// How urgent the ticket is.
    pub priority: Priority,
}

/// Arguments of `get_ticket_status`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetTicketStatusArgs {
    /// The ticket id, e.g. "SUP-1042".
    #[schemars(regex(pattern = "^SUP-[0-9]+$"))]
    pub ticket_id: String,
}

fn to_text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The store-like rmcp server.
#[derive(Debug, Clone, Copy, Default)]
pub struct StoreServer;

#[tool_router]
impl StoreServer {
    /// Searches the outdoor-gear catalogue by name. Returns the matching products, cheapest first, each with SKU, name, price in NOK and stock status.
    #[tool(
        annotations(title = "Search products", read_only_hint = true),
        output_schema = schema_for_output::<Vec<Product>>()
    )]
    pub fn search_products(&self, Parameters(args): Parameters<SearchProductsArgs>) -> String {
        to_text(&search_catalogue(
            &args.query,
            args.max_price,
            args.in_stock_only,
        ))
    }

    /// Compares two to four products side by side. Returns one row per SKU with name, price in NOK and stock status.
    #[tool(
        annotations(read_only_hint = true),
        output_schema = schema_for_output::<Vec<Product>>()
    )]
    pub fn compare_products(&self, Parameters(args): Parameters<CompareProductsArgs>) -> String {
        to_text(&args.skus)
    }

    /// Adds a product to the shopping cart. Returns the cart's line count after the change.
    #[tool(
        annotations(title = "Add to cart", read_only_hint = false, destructive_hint = false),
        output_schema = schema_for_output::<u32>()
    )]
    pub fn add_to_cart(&self, Parameters(args): Parameters<AddToCartArgs>) -> String {
        args.quantity.to_string()
    }
}

/// The helpdesk-like rmcp server.
#[derive(Debug, Clone, Copy, Default)]
pub struct HelpdeskServer;

#[tool_router]
impl HelpdeskServer {
    /// Searches the help-centre articles. Returns up to 5 articles, best match first, each with id and title.
    #[tool(
        annotations(read_only_hint = true),
        output_schema = schema_for_output::<Vec<Article>>()
    )]
    pub fn search_articles(&self, Parameters(args): Parameters<SearchArticlesArgs>) -> String {
        args.query
    }

    /// Opens a support ticket for a human agent. Returns the new ticket's id, e.g. "SUP-1042".
    #[tool(
        annotations(title = "Create ticket", read_only_hint = false, destructive_hint = false),
        output_schema = schema_for_output::<String>()
    )]
    pub fn create_ticket(&self, Parameters(args): Parameters<CreateTicketArgs>) -> String {
        let _ = args;
        "SUP-1042".into()
    }

    /// Looks up a support ticket. Returns its status (open, waiting or closed) and the last update.
    #[tool(
        annotations(read_only_hint = true),
        output_schema = schema_for_output::<String>()
    )]
    pub fn get_ticket_status(&self, Parameters(args): Parameters<GetTicketStatusArgs>) -> String {
        format!("{}: open", args.ticket_id)
    }
}

/// The store tools as an rmcp server (`#[tool_handler]` routes `tools/list` and `tools/call`
/// through the router, built once).
#[tool_handler(router = store_router_ref())]
impl ServerHandler for StoreServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn store_router_ref() -> &'static ToolRouter<StoreServer> {
    static ROUTER: std::sync::OnceLock<ToolRouter<StoreServer>> = std::sync::OnceLock::new();
    ROUTER.get_or_init(StoreServer::tool_router)
}

/// The store tools' rmcp router.
pub fn store_router() -> ToolRouter<StoreServer> {
    StoreServer::tool_router()
}

/// The helpdesk tools' rmcp router.
pub fn helpdesk_router() -> ToolRouter<HelpdeskServer> {
    HelpdeskServer::tool_router()
}

/// Calls rmcp tools in process: builds the `ToolCallContext` a server would build for a
/// `tools/call` request and hands it to `ToolRouter::call`, which parses the arguments into
/// `Parameters<T>`, runs the tool and returns the `CallToolResult`.
///
/// rmcp's `Peer::new` is crate-private, so the peer a `RequestContext` needs is taken from a
/// server started with `serve_directly` over an in-memory pipe that nobody writes to; calls do
/// not go through that pipe.
pub struct RmcpCaller {
    router: ToolRouter<StoreServer>,
    server: StoreServer,
    peer: Peer<RoleServer>,
    _running: RunningService<RoleServer, StoreServer>,
    _other_end: tokio::io::DuplexStream,
}

impl RmcpCaller {
    /// Starts the idle server (needs a tokio runtime context: call inside `Runtime::enter`).
    pub fn new() -> Self {
        let (ours, other_end) = tokio::io::duplex(64 * 1024);
        let running = serve_directly(StoreServer, ours, None);
        let peer = running.peer().clone();
        RmcpCaller {
            router: store_router(),
            server: StoreServer,
            peer,
            _running: running,
            _other_end: other_end,
        }
    }

    /// Calls `name` with already-parsed arguments; returns the JSON text of the result as rmcp
    /// would put it in the JSON-RPC response (`CallToolResult`, or the protocol error).
    pub async fn call_object(&self, name: &'static str, args: JsonObject) -> String {
        let ctx = ToolCallContext::new(
            &self.server,
            CallToolRequestParams::new(name).with_arguments(args),
            RequestContext::new(NumberOrString::Number(1), self.peer.clone()),
        );
        match self.router.call(ctx).await {
            Ok(CallToolResponse::Complete(result)) => to_text(&result),
            Ok(CallToolResponse::InputRequired(result)) => to_text(&result),
            Ok(CallToolResponse::Task(result)) => to_text(&result),
            Ok(_) => String::new(),
            Err(error) => to_text(&error),
        }
    }

    /// Calls `name` with an already-parsed `serde_json::Value` (the MCP entry point).
    pub async fn call_value(&self, name: &'static str, args: serde_json::Value) -> String {
        match args {
            serde_json::Value::Object(map) => self.call_object(name, map).await,
            other => to_text(&rmcp::ErrorData::invalid_params(
                format!("arguments must be an object, not {other}"),
                None,
            )),
        }
    }

    /// Calls `name` with JSON text (parsed into rmcp's `JsonObject` first, as its JSON-RPC layer
    /// does).
    pub async fn call_text(&self, name: &'static str, args: &str) -> String {
        match serde_json::from_str::<JsonObject>(args) {
            Ok(map) => self.call_object(name, map).await,
            Err(e) => to_text(&rmcp::ErrorData::parse_error(e.to_string(), None)),
        }
    }
}

impl Default for RmcpCaller {
    fn default() -> Self {
        Self::new()
    }
}
