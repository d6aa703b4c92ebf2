//! The Toolbox: registration, context injection, dispatch, and the envelope of each outcome.

use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use toolsmith::{model, tool, tools, Problem, Status, ToolError, Toolbox};

/// Greets someone by name. Returns the greeting.
#[tool(read_only)]
fn get_greeting(
    /// The person's name, e.g. "Ada".
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Waits briefly, then echoes the text. Returns the same text.
#[tool(read_only)]
async fn echo_later(
    /// Text to echo, e.g. "ping".
    text: String,
) -> String {
    tokio::task::yield_now().await;
    text
}

/// Fails on purpose to exercise panic handling. Returns nothing.
#[tool(read_only)]
fn run_broken_task() -> u32 {
    panic!("boom at /home/builder/secret/path.rs")
}

/// Records a visit. Returns nothing.
#[tool(writes)]
fn record_visit(#[context] counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::SeqCst);
}

#[derive(Debug)]
enum StoreError {
    OutOfStock { left: u32 },
}

impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::OutOfStock { left } => ToolError::refused(
                "OUT_OF_STOCK",
                format!("Only {left} left. Ask the user whether {left} will do."),
            )
            .with_details(json!({ "left": left })),
        }
    }
}

fn reserve(quantity: u32) -> Result<u32, StoreError> {
    if quantity > 2 {
        Err(StoreError::OutOfStock { left: 2 })
    } else {
        Ok(quantity)
    }
}

/// Reserves items. Returns the reserved quantity.
#[tool(writes)]
fn reserve_items(
    /// How many to reserve, 1 to 10.
    #[arg(minimum = 1, maximum = 10)]
    quantity: u32,
) -> Result<u32, ToolError> {
    Ok(reserve(quantity)?)
}

/// A shop with a visit counter; its tools are methods.
struct Shop {
    name: String,
    visits: AtomicU64,
}

/// A shop's opening hours.
#[model]
struct Hours {
    /// Opening time, e.g. "09:00".
    opens: String,
    /// Closing time, e.g. "17:00".
    closes: String,
}

#[tools]
impl Shop {
    /// Names the shop. Returns the shop's name.
    #[tool(read_only)]
    fn get_shop_name(&self) -> String {
        self.visits.fetch_add(1, Ordering::SeqCst);
        self.name.clone()
    }

    /// Gives the opening hours for a weekday. Returns opening and closing times.
    #[tool(read_only)]
    async fn get_opening_hours(
        &self,
        /// Weekday number, 1 (Monday) to 7 (Sunday).
        #[arg(minimum = 1, maximum = 7)]
        weekday: u8,
    ) -> Result<Hours, ToolError> {
        self.visits.fetch_add(1, Ordering::SeqCst);
        if weekday == 7 {
            return Err(ToolError::empty(
                "Closed on Sundays. Ask about another day.",
            ));
        }
        Ok(Hours {
            opens: "09:00".into(),
            closes: "17:00".into(),
        })
    }
}

type Count = u32;

/// Counts things. Returns the count.
#[tool(read_only)]
fn count_things(
    /// How many, e.g. 3.
    #[arg(max_length = 3)]
    n: Count,
) -> Count {
    n
}

fn toolbox() -> Toolbox {
    Toolbox::builder()
        .tool(get_greeting::tool())
        .tool(echo_later::tool())
        .tool(run_broken_task::tool())
        .tool(record_visit::tool())
        .tool(reserve_items::tool())
        .tools(Shop::tools())
        .context(AtomicU64::new(0))
        .context(Shop {
            name: "Fjellsport".into(),
            visits: AtomicU64::new(0),
        })
        .build()
        .expect("toolbox builds")
}

/// The envelope as JSON without its per-call operation id.
fn wire(env: &toolsmith::Envelope) -> Value {
    let mut v = serde_json::to_value(env).unwrap();
    let id = v.as_object_mut().unwrap().remove("operation_id");
    assert!(id.is_some_and(|id| id.as_str().is_some_and(|s| !s.is_empty())));
    v
}

#[tokio::test]
async fn ok_envelope_has_the_documented_shape() {
    let tb = toolbox();
    let env = tb.call("get_greeting", json!({"name": "Ada"})).await;
    assert_eq!(
        wire(&env),
        json!({"status": "ok", "data": "Hello, Ada!", "schema_version": "1"})
    );
}

#[tokio::test]
async fn text_and_value_arguments_give_the_same_envelope() {
    let tb = toolbox();
    for (text, value) in [
        (r#"{"name": "Ada"}"#, json!({"name": "Ada"})),
        (r#"{"name": 7}"#, json!({"name": 7})),
        (r#"{}"#, json!({})),
    ] {
        let a = tb.call("get_greeting", text).await;
        let b = tb.call("get_greeting", value).await;
        assert_eq!(wire(&a), wire(&b), "{text}");
    }
}

#[tokio::test]
async fn async_tools_and_unit_results() {
    let tb = toolbox();
    let env = tb.call("echo_later", r#"{"text":"ping"}"#).await;
    assert_eq!(env.data, Some(json!("ping")));
    let env = tb.call("record_visit", "{}").await;
    assert_eq!(wire(&env), json!({"status": "ok", "schema_version": "1"}));
}

#[tokio::test]
async fn context_values_are_injected_and_shared() {
    let counter = std::sync::Arc::new(AtomicU64::new(5));
    let tb = Toolbox::builder()
        .tool(record_visit::tool())
        .shared_context(counter.clone())
        .build()
        .unwrap();
    tb.call("record_visit", json!({})).await;
    tb.call("record_visit", Value::Null).await;
    assert_eq!(counter.load(Ordering::SeqCst), 7);
    assert!(!tb.specs()[0].input_schema.to_string().contains("counter"));
}

#[tokio::test]
async fn method_tools_get_self_from_the_context() {
    let tb = toolbox();
    let env = tb.call("get_shop_name", "{}").await;
    assert_eq!(env.data, Some(json!("Fjellsport")));
    let env = tb.call("get_opening_hours", json!({"weekday": 2})).await;
    assert_eq!(env.data, Some(json!({"opens": "09:00", "closes": "17:00"})));
    let env = tb.call("get_opening_hours", json!({"weekday": 7})).await;
    assert_eq!(
        wire(&env),
        json!({"status": "empty", "code": "EMPTY", "message": "Closed on Sundays. Ask about another day.", "schema_version": "1"})
    );
    let env = tb.call("get_opening_hours", json!({"weekday": 8})).await;
    assert_eq!(env.status, Status::InvalidInput);
    assert_eq!(
        env.message.as_deref(),
        Some(r#""weekday" must be at most 7. Weekday number, 1 (Monday) to 7 (Sunday)."#)
    );
    let spec = tb.spec("get_opening_hours").unwrap();
    assert_eq!(spec.param_names(), vec!["weekday"]);
    assert!(spec.output_schema.is_some());
}

#[tokio::test]
async fn user_errors_convert_with_the_question_mark() {
    let tb = toolbox();
    let env = tb.call("reserve_items", json!({"quantity": 5})).await;
    assert_eq!(
        wire(&env),
        json!({
            "status": "refused",
            "code": "OUT_OF_STOCK",
            "message": "Only 2 left. Ask the user whether 2 will do.",
            "data": {"left": 2},
            "schema_version": "1"
        })
    );
    let env = tb.call("reserve_items", json!({"quantity": 2})).await;
    assert_eq!(env.data, Some(json!(2)));
}

#[tokio::test]
async fn a_panic_becomes_failed_and_the_toolbox_keeps_serving() {
    let tb = toolbox();
    let env = tb.call("run_broken_task", "{}").await;
    assert_eq!(env.status, Status::Failed);
    assert_eq!(env.code.as_deref(), Some("INTERNAL"));
    let message = env.message.unwrap();
    assert!(
        !message.contains("boom") && !message.contains("/home"),
        "{message}"
    );
    let env = tb.call("get_greeting", json!({"name": "Bo"})).await;
    assert_eq!(env.status, Status::Ok);
}

#[tokio::test]
async fn unknown_tool_names_the_tools_that_exist() {
    let tb = Toolbox::builder()
        .tool(get_greeting::tool())
        .tool(echo_later::tool())
        .build()
        .unwrap();
    let env = tb.call("book_flight", "{}").await;
    assert_eq!(
        wire(&env),
        json!({
            "status": "invalid_input",
            "code": "UNKNOWN_TOOL",
            "message": "No tool is named \"book_flight\". The tools are \"get_greeting\", \"echo_later\".",
            "schema_version": "1"
        })
    );
}

#[tokio::test]
async fn deregister_retires_a_tool() {
    let tb = toolbox();
    assert!(tb.names().contains(&"echo_later".to_string()));
    tb.deregister("echo_later").unwrap();
    assert!(!tb.names().contains(&"echo_later".to_string()));
    assert!(tb.specs().iter().all(|s| s.name != "echo_later"));
    let env = tb.call("echo_later", r#"{"text":"x"}"#).await;
    assert_eq!(env.status, Status::InvalidInput);
    assert_eq!(env.code.as_deref(), Some("TOOL_RETIRED"));
    let message = env.message.unwrap();
    assert!(
        message.starts_with("The tool \"echo_later\" was retired and can no longer be called. The tools are \"get_greeting\""),
        "{message}"
    );
    assert_eq!(
        tb.deregister("echo_later").unwrap_err().to_string(),
        "no tool named `echo_later` is registered"
    );
    // Registering it again brings it back.
    tb.register(echo_later::tool()).unwrap();
    assert_eq!(
        tb.call("echo_later", r#"{"text":"x"}"#).await.status,
        Status::Ok
    );
}

#[tokio::test]
async fn malformed_json_text_is_invalid_input() {
    let tb = toolbox();
    let env = tb.call("get_greeting", r#"{"name": "Ada""#).await;
    assert_eq!(env.status, Status::InvalidInput);
    assert_eq!(env.code.as_deref(), Some("INVALID_INPUT"));
    let message = env.message.unwrap();
    assert!(
        message.starts_with("The arguments are not valid JSON ("),
        "{message}"
    );
    assert!(
        message.ends_with("Send one JSON object, e.g. {\"name\": \"value\"}."),
        "{message}"
    );
}

#[test]
fn duplicate_names_are_a_build_error() {
    let err = Toolbox::builder()
        .tool(get_greeting::tool())
        .tool(get_greeting::tool())
        .build()
        .unwrap_err();
    assert_eq!(
        err.problems,
        vec![Problem::DuplicateTool {
            name: "get_greeting".into()
        }]
    );
    assert_eq!(
        err.to_string(),
        "two tools are named `get_greeting`; tool names must be unique (rename one with #[tool(name = \"...\")])"
    );
}

#[test]
fn missing_context_is_a_build_error_naming_the_type() {
    let err = Toolbox::builder()
        .tool(record_visit::tool())
        .tools(Shop::tools())
        .build()
        .unwrap_err();
    assert_eq!(
        err.problems,
        vec![
            Problem::MissingContext {
                tool: "record_visit".into(),
                param: "counter".into(),
                type_name: "AtomicU64".into()
            },
            Problem::MissingContext {
                tool: "get_shop_name".into(),
                param: "self".into(),
                type_name: "Shop".into()
            },
            Problem::MissingContext {
                tool: "get_opening_hours".into(),
                param: "self".into(),
                type_name: "Shop".into()
            },
        ]
    );
}

#[test]
fn a_constraint_that_does_not_fit_a_user_type_is_a_build_error() {
    let err = Toolbox::builder()
        .tool(count_things::tool())
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `count_things`: parameter `n`: `maxLength` applies to string values, but the parameter's schema has type integer"
    );
}

#[test]
fn the_original_function_stays_callable() {
    assert_eq!(get_greeting("Ada".into()), "Hello, Ada!");
    assert_eq!(reserve_items(1).unwrap(), 1);
}

/// Lists numbers from 0. Returns the numbers, paged when long.
#[tool(read_only)]
fn list_numbers(
    /// How many numbers, e.g. 200.
    #[arg(maximum = 1000)]
    count: u32,
    /// Cursor from the previous page's `cursor`, to fetch the next page.
    cursor: Option<String>,
) -> Vec<u32> {
    let _ = cursor;
    (0..count).collect()
}

#[tokio::test]
async fn a_panicking_hook_fails_the_call_instead_of_the_host() {
    let tb = Toolbox::builder()
        .tool(get_greeting::tool())
        .hooks(toolsmith::Hooks::new().before(|_| panic!("hook bug")))
        .build()
        .unwrap();
    let env = tb.call("get_greeting", json!({"name": "Ada"})).await;
    assert_eq!(env.status, Status::Failed);
    assert_eq!(env.code.as_deref(), Some("INTERNAL"));
    assert!(!env.message.unwrap().contains("hook bug"));
}

#[tokio::test]
async fn a_cursor_works_only_for_the_caller_it_was_issued_to() {
    use toolsmith::Caller;
    let tb = Toolbox::builder()
        .tool(list_numbers::tool())
        .build()
        .unwrap();
    let ada = Caller::new("ada");
    let first = tb
        .call_as(&ada, "list_numbers", json!({"count": 1000}))
        .await;
    assert!(first.truncated);
    let cursor = first.cursor.clone().expect("a next-page cursor");
    let next = tb
        .call_as(
            &ada,
            "list_numbers",
            json!({"count": 1000, "cursor": cursor}),
        )
        .await;
    assert_eq!(next.status, Status::Ok, "{next:?}");
    let other = tb
        .call_as(
            &Caller::new("bo"),
            "list_numbers",
            json!({"count": 1000, "cursor": cursor}),
        )
        .await;
    assert_eq!(other.status, Status::InvalidInput);
    assert_eq!(other.code.as_deref(), Some("INVALID_CURSOR"));
}

#[tokio::test]
async fn null_for_an_optional_parameter_means_left_out() {
    let tb = Toolbox::builder()
        .tool(list_numbers::tool())
        .build()
        .unwrap();
    let env = tb
        .call("list_numbers", r#"{"count": 3, "cursor": null}"#)
        .await;
    assert_eq!(env.data, Some(json!([0, 1, 2])));
}
