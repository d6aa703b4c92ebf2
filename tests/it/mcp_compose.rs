//! `McpServer::with_handler`: an rmcp `ServerHandler` serves prompts, resources, resource
//! templates, subscriptions and completions beside the toolbox's tools, driven by rmcp's own
//! client over an in-memory stream (2025-11-25 with `initialize`, 2026-07-28 with
//! `server/discover` and `subscriptions/listen`).

use rmcp::model::{
    CallToolRequestParams, ClientConfig, CompleteRequestParams, CompleteResult, CompletionInfo,
    ErrorCode, GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    Prompt, PromptArgument, PromptMessage, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role,
    ServerCapabilities, ServerConfig, ServerNotification, SubscribeRequestParams,
    SubscriptionFilter, Tool as McpTool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, RunningService, SubscriptionContext};
use rmcp::{ClientHandler, ErrorData, RoleClient, RoleServer, ServerHandler, ServiceError};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolsmith::mcp::McpServer;
use toolsmith::{tool, Toolbox};

/// A generous bound on every wait, so a broken server fails the test instead of hanging it.
const BOUND: Duration = Duration::from_secs(30);

/// Says the server is up. Returns the text "served".
#[tool(read_only)]
fn get_marker() -> &'static str {
    "served"
}

/// What the handler was asked, in order.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    fn push(&self, entry: String) {
        self.0.lock().unwrap().push(entry);
    }
    fn entries(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// A plain rmcp handler: one prompt, one resource, one template, subscriptions, completions. It
/// also declares tools and logging, and lists a tool of its own, none of which the server takes.
struct Shelf {
    log: Log,
}

const ITEM: &str = "shelf://a";

impl ServerHandler for Shelf {
    #[allow(deprecated)] // logging (SEP-2577): declared to show the server does not take it
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .enable_prompts()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_completions()
                .build(),
        )
        .with_instructions("Prompts and resources of the shelf.")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.log.push("tools/list".into());
        let schema = serde_json::from_value(json!({"type": "object"})).unwrap();
        Ok(ListToolsResult::with_all_items(vec![McpTool::new(
            "handler_tool",
            "Never listed.",
            Arc::new(schema),
        )]))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.log.push("prompts/list".into());
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "greet",
            Some("Greets someone."),
            Some(vec![PromptArgument::new("name").with_required(true)]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.log.push(format!("prompts/get {}", request.name));
        let name = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| ErrorData::invalid_params("greet needs a name", None))?;
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Say hello to {name}."),
        )])
        .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.log.push("resources/list".into());
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            ITEM, "a",
        )]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.log.push("resources/templates/list".into());
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("shelf://{id}", "item"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.log.push(format!("resources/read {}", request.uri));
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            format!("the item at {}", request.uri),
            request.uri,
        )])
        .into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log
            .push(format!("resources/subscribe {}", request.uri));
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log
            .push(format!("resources/unsubscribe {}", request.uri));
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.log
            .push(format!("completion/complete {}", request.argument.value));
        Ok(CompleteResult::new(
            CompletionInfo::new(vec!["alice".into(), "alfred".into()]).unwrap(),
        ))
    }

    /// Accepts the subscription to [`ITEM`], and nothing else.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let wanted = requested
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == ITEM));
        wanted.then(|| {
            let mut filter = SubscriptionFilter::new();
            filter.resource_subscriptions = Some(vec![ITEM.into()]);
            filter
        })
    }

    /// Reports one update of [`ITEM`] at once, then waits for the stream's end.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.log.push("listen".into());
        let _ = context.sink().notify_resource_updated(ITEM).await;
        context.cancelled().await;
        Ok(())
    }
}

struct Client(ProtocolVersion);

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = self.0.clone();
        info
    }
}

/// rmcp's client of `version` connected to `server` over an in-memory stream.
async fn connect(
    server: McpServer,
    version: ProtocolVersion,
) -> RunningService<RoleClient, Client> {
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    tokio::spawn(server.serve(server_end));
    let lifecycle = if version.has_initialize() {
        rmcp::service::ClientLifecycleMode::Initialize
    } else {
        rmcp::service::ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        }
    };
    tokio::time::timeout(
        BOUND,
        rmcp::service::serve_client_with_lifecycle(Client(version), client_end, lifecycle),
    )
    .await
    .expect("the client starts within the bound")
    .expect("the session starts")
}

async fn bounded<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, f)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within the bound"))
}

fn protocol_error(e: ServiceError) -> ErrorData {
    match e {
        ServiceError::McpError(e) => e,
        other => panic!("expected a protocol error, got {other}"),
    }
}

fn shelf() -> (McpServer, Log) {
    let log = Log::default();
    let toolbox = Toolbox::builder().tool(get_marker::tool()).build().unwrap();
    let server = McpServer::new(toolbox)
        .server_info("shelf-server", "1.2.3")
        .with_handler(Shelf { log: log.clone() });
    (server, log)
}

#[tokio::test]
async fn a_handler_serves_prompts_resources_and_completions_beside_the_toolbox() {
    let (server, log) = shelf();
    let client = connect(server, ProtocolVersion::V_2025_11_25).await;

    // The capabilities: the toolbox's tools, the handler's prompts, resources and completions
    // and its instructions; not its logging. The name is the server's.
    let info = client.peer_info().unwrap();
    let caps = serde_json::to_value(&info.capabilities).unwrap();
    assert_eq!(caps["tools"], json!({"listChanged": true}), "{caps}");
    assert!(caps["prompts"].is_object(), "{caps}");
    assert_eq!(caps["resources"]["subscribe"], json!(true), "{caps}");
    assert!(caps["completions"].is_object(), "{caps}");
    // Logging is the server's own (tools log through their client handle), never the handler's.
    assert_eq!(caps["logging"], json!({}), "{caps}");
    assert_eq!(info.server_info.as_ref().unwrap().name, "shelf-server");
    assert_eq!(
        info.instructions.as_deref(),
        Some("Prompts and resources of the shelf.")
    );

    // Tools are the toolbox's: the handler's list is never asked for.
    let tools = bounded("tools/list", client.list_all_tools())
        .await
        .unwrap();
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert_eq!(names, ["get_marker"]);
    let served = bounded(
        "tools/call",
        client.call_tool(CallToolRequestParams::new("get_marker")),
    )
    .await
    .unwrap();
    assert_eq!(served.is_error, Some(false));

    // Prompts, resources, templates, completions: the handler's.
    let prompts = bounded("prompts/list", client.list_all_prompts())
        .await
        .unwrap();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].name, "greet");
    let mut get = GetPromptRequestParams::new("greet");
    get.arguments = Some(json!({"name": "Ada"}).as_object().unwrap().clone());
    let prompt = bounded("prompts/get", client.get_prompt(get))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&prompt.messages[0].content).unwrap()["text"],
        "Say hello to Ada."
    );
    // The handler's own errors reach the client as it wrote them.
    let e = protocol_error(
        bounded(
            "prompts/get without a name",
            client.get_prompt(GetPromptRequestParams::new("greet")),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(e.message, "greet needs a name");

    let resources = bounded("resources/list", client.list_all_resources())
        .await
        .unwrap();
    assert_eq!(resources[0].uri, ITEM);
    let templates = bounded(
        "resources/templates/list",
        client.list_all_resource_templates(),
    )
    .await
    .unwrap();
    assert_eq!(templates[0].uri_template, "shelf://{id}");
    let read = bounded(
        "resources/read",
        client.read_resource(ReadResourceRequestParams::new(ITEM)),
    )
    .await
    .unwrap();
    assert_eq!(
        serde_json::to_value(&read.contents[0]).unwrap()["text"],
        "the item at shelf://a"
    );
    let completion = bounded(
        "completion/complete",
        client.complete_prompt_argument("greet", "name", "al", None),
    )
    .await
    .unwrap();
    assert_eq!(completion.values, ["alice", "alfred"]);

    #[allow(deprecated)] // the 2025 revisions' subscriptions, which this session speaks
    {
        bounded(
            "resources/subscribe",
            client.subscribe(SubscribeRequestParams::new(ITEM)),
        )
        .await
        .unwrap();
        bounded(
            "resources/unsubscribe",
            client.unsubscribe(UnsubscribeRequestParams::new(ITEM)),
        )
        .await
        .unwrap();
    }

    assert_eq!(
        log.entries(),
        [
            "prompts/list",
            "prompts/get greet",
            "prompts/get greet",
            "resources/list",
            "resources/templates/list",
            "resources/read shelf://a",
            "completion/complete al",
            "resources/subscribe shelf://a",
            "resources/unsubscribe shelf://a",
        ]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_toolbox_uris_never_reach_the_handler() {
    let (server, log) = shelf();
    let client = connect(server, ProtocolVersion::V_2025_11_25).await;
    for uri in ["toolsmith://results/abc", "TOOLSMITH:x"] {
        let e = protocol_error(
            bounded(
                "resources/read",
                client.read_resource(ReadResourceRequestParams::new(uri)),
            )
            .await
            .unwrap_err(),
        );
        assert_eq!(e.code, ErrorCode::RESOURCE_NOT_FOUND, "{uri}: {e:?}");
        assert_eq!(e.data, Some(json!({ "uri": uri })));
    }
    assert!(log.entries().is_empty(), "{:?}", log.entries());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn without_a_handler_the_server_declares_and_serves_only_its_own() {
    let toolbox = Toolbox::builder().tool(get_marker::tool()).build().unwrap();
    let client = connect(McpServer::new(toolbox), ProtocolVersion::V_2025_11_25).await;
    let caps = serde_json::to_value(&client.peer_info().unwrap().capabilities).unwrap();
    assert_eq!(
        caps.as_object().unwrap().keys().collect::<Vec<_>>(),
        // Resources: the toolbox's kept results (listed nowhere, read by their links);
        // extensions: MCP Apps, each tool's form (`tests/it/mcp_apps.rs`).
        ["extensions", "logging", "resources", "tools"],
        "{caps}"
    );
    assert_eq!(
        caps["extensions"],
        json!({"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}})
    );
    let e = protocol_error(
        bounded("prompts/list", client.list_prompts(None))
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
    let e = protocol_error(
        bounded(
            "completion/complete",
            client.complete_prompt_argument("p", "a", "", None),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
    // A read names nothing: resource-not-found with the URI, for any scheme.
    let e = protocol_error(
        bounded(
            "resources/read",
            client.read_resource(ReadResourceRequestParams::new("file:///etc/passwd")),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::RESOURCE_NOT_FOUND);
    assert_eq!(e.data, Some(json!({"uri": "file:///etc/passwd"})));
    client.cancel().await.unwrap();
}

/// 2026-07-28: one `subscriptions/listen` stream carries the handler's resource updates and the
/// toolbox's tool-list changes.
#[tokio::test]
async fn one_subscription_carries_the_handlers_and_the_toolboxs_notifications() {
    let log = Log::default();
    let toolbox = Arc::new(Toolbox::builder().tool(get_marker::tool()).build().unwrap());
    let server = McpServer::new(Arc::clone(&toolbox)).with_handler(Shelf { log: log.clone() });
    let client = connect(server, ProtocolVersion::V_2026_07_28).await;

    let mut filter = SubscriptionFilter::builder().tools_list_changed().build();
    filter.resource_subscriptions = Some(vec![ITEM.into(), "shelf://unknown".into()]);
    let mut subscription = bounded("subscriptions/listen", client.listen(filter))
        .await
        .unwrap();
    let first = bounded("the handler's update", subscription.next())
        .await
        .unwrap();
    match first {
        Some(ServerNotification::ResourceUpdatedNotification(n)) => {
            assert_eq!(n.params.uri, ITEM);
        }
        other => panic!("expected the handler's resources/updated, got {other:?}"),
    }
    toolbox.deregister("get_marker").unwrap();
    let second = bounded("the toolbox's list_changed", subscription.next())
        .await
        .unwrap();
    assert!(
        matches!(
            second,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "{second:?}"
    );
    subscription.cancel().await.unwrap();

    // A stream the handler accepts nothing of still carries the toolbox's changes.
    let tools_only = SubscriptionFilter::builder().tools_list_changed().build();
    let mut subscription = bounded("subscriptions/listen", client.listen(tools_only))
        .await
        .unwrap();
    toolbox.register(get_marker::tool()).unwrap();
    let change = bounded("the toolbox's list_changed", subscription.next())
        .await
        .unwrap();
    assert!(
        matches!(
            change,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "{change:?}"
    );
    subscription.cancel().await.unwrap();
    // The handler's `listen` ran for the first stream only.
    assert_eq!(log.entries(), ["listen"]);
    client.cancel().await.unwrap();
}
