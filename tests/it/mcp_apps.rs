//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865) through the real server and rmcp's client,
//! in a 2025 revision (the extension announced in `initialize`) and in 2026-07-28 (announced in
//! each request's `_meta`): a client that announces the extension gets each tool's
//! `_meta.ui.resourceUri`, reads the form as `text/html;profile=mcp-app` and finds every
//! parameter in it; one that does not gets neither the link nor the resource.

use crate::store_tools as store;

use rmcp::model::{ClientConfig, ErrorCode, ProtocolVersion, ReadResourceRequestParams};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceError};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use toolsmith::mcp::McpServer;

fn toolbox() -> Arc<toolsmith::Toolbox> {
    let customer = store::Customer {
        id: "cust-1".into(),
        purchased: Vec::new(),
    };
    Arc::new(store::toolbox(store::demo_catalogue(), customer).unwrap())
}

fn client_config(version: &ProtocolVersion, announce: bool) -> ClientConfig {
    let mut info = ClientConfig::default();
    info.protocol_version = version.clone();
    let capabilities = if announce {
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
    } else {
        json!({})
    };
    info.capabilities = serde_json::from_value(capabilities).unwrap();
    info
}

async fn connect(
    version: &ProtocolVersion,
    announce: bool,
) -> RunningService<RoleClient, ClientConfig> {
    connect_to(McpServer::new(toolbox()), version, announce).await
}

async fn connect_to(
    server: McpServer,
    version: &ProtocolVersion,
    announce: bool,
) -> RunningService<RoleClient, ClientConfig> {
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
        Duration::from_secs(10),
        rmcp::service::serve_client_with_lifecycle(
            client_config(version, announce),
            client_end,
            lifecycle,
        ),
    )
    .await
    .expect("the session starts")
    .unwrap()
}

async fn listed(client: &RunningService<RoleClient, ClientConfig>) -> Vec<Value> {
    let tools = tokio::time::timeout(Duration::from_secs(10), client.peer().list_all_tools())
        .await
        .unwrap()
        .unwrap();
    tools
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect()
}

async fn read(
    client: &RunningService<RoleClient, ClientConfig>,
    uri: &str,
) -> Result<Value, ServiceError> {
    tokio::time::timeout(
        Duration::from_secs(10),
        client
            .peer()
            .read_resource(ReadResourceRequestParams::new(uri)),
    )
    .await
    .unwrap()
    .map(|r| serde_json::to_value(r).unwrap())
}

const VERSIONS: [ProtocolVersion; 2] =
    [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// Resource-not-found: -32002 before 2026-07-28, -32602 (invalid params) from it on (rmcp maps
/// it as the 2026-07-28 revision says).
fn not_found(version: &ProtocolVersion) -> ErrorCode {
    if version.has_initialize() {
        ErrorCode::RESOURCE_NOT_FOUND
    } else {
        ErrorCode::INVALID_PARAMS
    }
}

/// Whether the server's capabilities, as the client received them, declare MCP Apps (`None`
/// when the session has no server info to read).
fn declares_apps(client: &RunningService<RoleClient, ClientConfig>) -> Option<bool> {
    let info = client.peer().peer_info()?;
    let capabilities = serde_json::to_value(&info.capabilities).unwrap();
    Some(
        capabilities["extensions"]["io.modelcontextprotocol/ui"]["mimeTypes"]
            == json!(["text/html;profile=mcp-app"]),
    )
}

#[tokio::test]
async fn a_client_that_announces_apps_gets_each_tool_s_form() {
    for version in VERSIONS {
        let client = connect(&version, true).await;
        if version.has_initialize() {
            assert_eq!(declares_apps(&client), Some(true), "{version}");
        }
        let tools = listed(&client).await;
        assert_eq!(tools.len(), 3, "{version}");
        for tool in &tools {
            let name = tool["name"].as_str().unwrap();
            let uri = format!("ui://toolsmith/{name}");
            assert_eq!(
                tool["_meta"]["ui"]["resourceUri"],
                json!(uri),
                "{version}: {tool}"
            );
            let read = read(&client, &uri).await.unwrap();
            let contents = &read["contents"][0];
            assert_eq!(contents["uri"], json!(uri));
            assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
            let html = contents["text"].as_str().unwrap();
            assert!(html.starts_with("<!doctype html>"), "{html}");
            assert!(html.contains("ui/initialize"), "the MCP Apps script");
            for param in tool["inputSchema"]["properties"]
                .as_object()
                .unwrap()
                .keys()
            {
                assert!(
                    html.contains(&format!("name=\"{param}\"")),
                    "{version}: {name}'s form has {param}"
                );
            }
        }
        // A name that is no tool, and a URI beyond the form's.
        for uri in [
            "ui://toolsmith/no_such_tool",
            "ui://toolsmith/add_to_cart/x",
        ] {
            let ServiceError::McpError(e) = read(&client, uri).await.unwrap_err() else {
                panic!("{uri}: not a protocol error")
            };
            assert_eq!(e.code, not_found(&version), "{version} {uri}");
        }
        client.cancel().await.unwrap();
    }
}

/// The client gets every tool without a `_meta.ui` link, and reading a form is resource-not-found
/// with a message that says why (`why`).
async fn assert_no_apps(
    client: &RunningService<RoleClient, ClientConfig>,
    version: &ProtocolVersion,
    why: &str,
) {
    let tools = listed(client).await;
    assert_eq!(tools.len(), 3, "{version}");
    for tool in &tools {
        assert!(tool["_meta"].get("ui").is_none(), "{version}: {tool}");
    }
    let ServiceError::McpError(e) = read(client, "ui://toolsmith/add_to_cart")
        .await
        .unwrap_err()
    else {
        panic!("not a protocol error")
    };
    assert_eq!(e.code, not_found(version), "{version}");
    assert!(e.message.contains(why), "{}", e.message);
}

#[tokio::test]
async fn a_client_that_does_not_announce_apps_gets_neither_link_nor_form() {
    for version in VERSIONS {
        let client = connect(&version, false).await;
        assert_no_apps(&client, &version, "io.modelcontextprotocol/ui").await;
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_server_with_apps_switched_off_offers_none_to_a_client_that_announces_them() {
    for version in VERSIONS {
        let server = McpServer::new(toolbox()).mcp_apps(false);
        let client = connect_to(server, &version, true).await;
        if version.has_initialize() {
            assert_eq!(declares_apps(&client), Some(false), "{version}");
        }
        assert_no_apps(&client, &version, "switched off").await;
        // The tools still answer.
        let args = json!({"query": "tent"}).as_object().cloned();
        let result = tokio::time::timeout(
            Duration::from_secs(10),
            client.peer().call_tool(
                rmcp::model::CallToolRequestParams::new("search_products")
                    .with_arguments(args.unwrap()),
            ),
        )
        .await
        .unwrap()
        .unwrap();
        assert_ne!(result.is_error, Some(true), "{version}: {result:?}");
        client.cancel().await.unwrap();
    }
}
