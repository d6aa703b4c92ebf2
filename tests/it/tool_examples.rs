//! Example calls (`#[tool(example(...))]`, `ToolSpec::with_example`): they land in the spec,
//! are exported where a target carries them, and a tool whose example does not fit its input
//! schema is refused at registration. The compile-time checks are the UI cases
//! `tests/ui/fail/example_*.rs`.

use serde_json::{json, Value};
use toolsmith::export::{export, McpVersion, Target};
use toolsmith::{tool, Effects, Problem, Tool, ToolSpec, Toolbox};

/// Searches the catalog. Returns matching products.
#[tool(
    read_only,
    example(query = "tent", max_price = 2500),
    example(query = "lamp")
)]
fn search_products(
    /// Words to search for, e.g. "tent".
    #[arg(min_length = 1)]
    query: String,
    /// Highest price in cents, e.g. 2500.
    #[arg(minimum = 1)]
    max_price: Option<u32>,
) -> Vec<String> {
    let _ = max_price;
    vec![query]
}

/// Lists the open orders. Returns their ids.
#[tool(read_only)]
fn list_orders() -> Vec<String> {
    Vec::new()
}

fn declared() -> Vec<Value> {
    vec![
        json!({"query": "tent", "max_price": 2500}),
        json!({"query": "lamp"}),
    ]
}

#[test]
fn a_tool_examples_land_in_its_spec_in_declaration_order() {
    let toolbox = Toolbox::builder()
        .tool(search_products::tool())
        .build()
        .unwrap();
    let spec = toolbox.spec("search_products").unwrap();
    assert_eq!(spec.examples, declared());
    // Keys keep the order they were written in.
    let keys: Vec<&String> = spec.examples[0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["query", "max_price"]);
    let serialized = serde_json::to_value(spec).unwrap();
    assert_eq!(serialized["examples"], Value::Array(declared()));
}

#[test]
fn a_tool_without_examples_serializes_and_exports_as_before() {
    let spec = list_orders::tool().spec().clone();
    assert!(spec.examples.is_empty());
    let serialized = serde_json::to_value(&spec).unwrap();
    assert!(serialized.get("examples").is_none(), "{serialized}");
    assert!(spec.agent_facing().get("examples").is_none());
    let anthropic = export(
        std::slice::from_ref(&spec),
        Target::Anthropic { strict: false },
    )
    .unwrap();
    assert!(anthropic[0].get("input_examples").is_none(), "{anthropic}");
    let mcp = export(&[spec], Target::Mcp(McpVersion::V2025_11_25)).unwrap();
    assert!(mcp["tools"][0].get("_meta").is_none(), "{mcp}");
}

#[test]
fn examples_are_exported_as_anthropic_input_examples_and_in_mcp_meta() {
    let spec = search_products::tool().spec().clone();
    for strict in [false, true] {
        let out = export(std::slice::from_ref(&spec), Target::Anthropic { strict }).unwrap();
        assert_eq!(
            out[0]["input_examples"],
            Value::Array(declared()),
            "strict: {strict}"
        );
    }
    for version in [
        McpVersion::V2025_06_18,
        McpVersion::V2025_11_25,
        McpVersion::V2026_07_28,
    ] {
        let out = export(std::slice::from_ref(&spec), Target::Mcp(version)).unwrap();
        let tool = &out["tools"][0];
        assert_eq!(
            tool["_meta"]["toolsmith/examples"],
            Value::Array(declared()),
            "{version:?}"
        );
        assert!(tool.get("input_examples").is_none());
    }
    // The targets without a place for examples leave them out.
    let out = export(&[spec], Target::OpenAiResponses { strict: false }).unwrap();
    assert!(!out.to_string().contains("lamp"), "{out}");
}

#[test]
fn examples_count_in_the_fingerprint() {
    let spec = list_orders::tool().spec().clone();
    let with = spec.clone().with_example(json!({}));
    assert_ne!(spec.fingerprint(), with.fingerprint());
}

fn run_time_spec() -> ToolSpec {
    ToolSpec::new(
        "find_flights",
        "Finds flights between two airports. Returns the flights found.",
        json!({
            "type": "object",
            "properties": {
                "from": {"type": "string", "description": "Departure airport code, e.g. \"LHR\".", "pattern": "^[A-Z]{3}$"},
                "seats": {"type": "integer", "description": "Seats to book, e.g. 2.", "minimum": 1, "maximum": 9},
            },
            "required": ["from"],
            "additionalProperties": false,
        }),
    )
    .with_effects(Effects::none().with_read_only(true))
    .with_version("1.0.0")
}

fn from_fn(spec: ToolSpec) -> Tool {
    Tool::from_fn(spec, |_ctx, _args| Box::pin(async { Ok(json!([])) }))
}

fn reasons(err: &toolsmith::BuildError) -> Vec<String> {
    err.problems
        .iter()
        .map(|p| match p {
            Problem::InvalidDeclaration { tool, reason } => {
                assert_eq!(tool, "find_flights");
                reason.clone()
            }
            other => panic!("unexpected problem: {other}"),
        })
        .collect()
}

#[test]
fn a_run_time_tool_with_fitting_examples_registers() {
    let spec = run_time_spec()
        .with_example(json!({"from": "LHR"}))
        .with_example(json!({"from": "CDG", "seats": 2}));
    let toolbox = Toolbox::builder().tool(from_fn(spec)).build().unwrap();
    assert_eq!(toolbox.spec("find_flights").unwrap().examples.len(), 2);
}

#[test]
fn a_run_time_tool_with_a_bad_example_is_refused_naming_the_example_and_the_argument() {
    let spec = run_time_spec()
        .with_example(json!({"from": "LHR"}))
        .with_example(json!({"from": "LHR", "seats": 12}))
        .with_example(json!({"from": "london"}))
        .with_example(json!({"seats": 1, "class": "economy"}))
        .with_example(json!(["LHR"]));
    let err = Toolbox::builder()
        .tool(from_fn(spec))
        .build()
        .err()
        .unwrap();
    let reasons = reasons(&err);
    assert_eq!(reasons.len(), 4, "{reasons:#?}");
    assert!(reasons[0].starts_with("example 2 "), "{}", reasons[0]);
    assert!(reasons[0].contains("argument `seats`"), "{}", reasons[0]);
    assert!(reasons[1].starts_with("example 3 "), "{}", reasons[1]);
    assert!(reasons[1].contains("argument `from`"), "{}", reasons[1]);
    assert!(reasons[2].starts_with("example 4 "), "{}", reasons[2]);
    assert!(
        reasons[2].contains("`from`") && reasons[2].contains("`class`"),
        "{}",
        reasons[2]
    );
    assert!(
        reasons[3].starts_with("example 5 is not an object"),
        "{}",
        reasons[3]
    );
}

#[test]
fn a_bad_example_is_refused_by_register_too() {
    let toolbox = Toolbox::builder()
        .tool(list_orders::tool())
        .build()
        .unwrap();
    let spec = run_time_spec().with_example(json!({"from": 7}));
    let err = toolbox.register(from_fn(spec)).expect_err("refused");
    let text = format!("{err:?}");
    assert!(
        text.contains("example 1") && text.contains("from"),
        "{text}"
    );
    assert!(toolbox.spec("find_flights").is_none());
}

/// Through the real server: an rmcp client's `tools/list` carries the examples under `_meta`
/// (the per-revision shape is `examples_are_exported_as_anthropic_input_examples_and_in_mcp_meta`).
#[tokio::test]
async fn an_mcp_client_lists_the_examples_under_meta() {
    let toolbox = std::sync::Arc::new(
        Toolbox::builder()
            .tool(search_products::tool())
            .tool(list_orders::tool())
            .build()
            .unwrap(),
    );
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(toolsmith::mcp::McpServer::new(toolbox).serve(server_end));
    let client = rmcp::service::serve_client((), client_end).await.unwrap();
    let tools = client.peer().list_all_tools().await.unwrap();
    let listed = serde_json::to_value(&tools).unwrap();
    let search = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "search_products")
        .expect("search_products is listed");
    assert_eq!(
        search["_meta"]["toolsmith/examples"],
        Value::Array(declared())
    );
    let orders = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "list_orders")
        .expect("list_orders is listed");
    assert!(
        orders
            .get("_meta")
            .and_then(|m| m.get("toolsmith/examples"))
            .is_none(),
        "{orders}"
    );
    client.cancel().await.unwrap();
}
