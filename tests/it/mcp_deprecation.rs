//! A deprecated tool over MCP, end to end with rmcp's client: listed with the notice and its
//! `_meta` before the window ends; when its retirement time comes, the server tells the open
//! session that the list changed (without being asked first), the list no longer has it, a
//! call of it is refused naming the replacement, and the replacement answers.

use rmcp::model::{CallToolRequestParams, ClientConfig, ErrorCode, ProtocolVersion};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient, ServiceError};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::sync::Notify;
use toolsmith::mcp::McpServer;
use toolsmith::{tool, Toolbox};

const BOUND: Duration = Duration::from_secs(30);

/// Books a flight for the traveller. Returns the booking reference.
#[tool(
    writes,
    deprecated(
        since = "3",
        note = "bookings moved to one tool",
        replaced_by = "book_trip"
    )
)]
fn book_flight(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    format!("booked {flight}")
}

/// Books a trip: flights, hotel and car in one booking. Returns the booking reference.
#[tool(writes)]
fn book_trip(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    format!("trip {flight}")
}

#[derive(Clone)]
struct Watcher {
    list_changed: Arc<Notify>,
}

impl ClientHandler for Watcher {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }
}

#[tokio::test]
async fn the_server_lists_the_notice_then_retires_the_tool_and_tells_the_session() {
    // The test moves the toolbox's clock; the server wakes by real time (at most the second
    // the window has left) and then reads the clock.
    let now = Arc::new(Mutex::new(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
    ));
    let clock = Arc::clone(&now);
    let start = *now.lock().unwrap();
    let toolbox = Arc::new(
        Toolbox::builder()
            .tool(book_flight::tool())
            .tool(book_trip::tool())
            .retire_at("book_flight", start + Duration::from_secs(1))
            .clock(move || *clock.lock().unwrap())
            .build()
            .unwrap(),
    );
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    let server = tokio::spawn(McpServer::new(Arc::clone(&toolbox)).serve(server_end));
    let watcher = Watcher {
        list_changed: Arc::new(Notify::new()),
    };
    let notified = Arc::clone(&watcher.list_changed);
    let client = rmcp::serve_client(watcher, client_end).await.unwrap();

    let tools = client.list_all_tools().await.unwrap();
    let old = tools.iter().find(|t| t.name == "book_flight").unwrap();
    assert!(old.description.as_deref().unwrap().ends_with(
        "Deprecated since version 3: bookings moved to one tool. Use `book_trip` instead."
    ));
    assert_eq!(
        serde_json::to_value(old.meta.as_ref().unwrap()).unwrap()["toolsmith/deprecated"],
        json!({"since": "3", "note": "bookings moved to one tool", "replacedBy": "book_trip"})
    );

    // The window ends; the client asks nothing, and hears of the change.
    *now.lock().unwrap() += Duration::from_secs(1);
    tokio::time::timeout(BOUND, notified.notified())
        .await
        .expect("list_changed arrives when the retirement time comes");
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["book_trip"]);

    let flight = json!({"flight": "SK1455"}).as_object().unwrap().clone();
    let refused = client
        .call_tool(CallToolRequestParams::new("book_flight").with_arguments(flight.clone()))
        .await;
    let Err(ServiceError::McpError(e)) = refused else {
        panic!("expected a protocol error, got {refused:?}")
    };
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    assert!(
        e.message
            .contains("Call \"book_trip\" instead, which replaces it: Books a trip"),
        "{}",
        e.message
    );
    let answer = client
        .call_tool(CallToolRequestParams::new("book_trip").with_arguments(flight))
        .await
        .unwrap();
    assert_eq!(answer.is_error, Some(false));

    client.cancel().await.unwrap();
    tokio::time::timeout(BOUND, server)
        .await
        .expect("the server ends with the session")
        .unwrap()
        .unwrap();
}
