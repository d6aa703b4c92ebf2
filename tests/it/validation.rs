//! Argument validation through `Toolbox::call`: every constraint keyword the macro emits, every
//! parameter shape, accepted and rejected inputs, and the exact envelope the model reads back.
//!
//! Each call is made twice, once with a `serde_json::Value` and once with the same arguments as
//! JSON text (the OpenAI form); both must give the same envelope.

use crate::common;

use common::block_on;
use common::validation_tools::{toolbox, toolbox_with};
use serde_json::{json, Value};
use toolsmith::{Arguments, Envelope, Status};

/// The same call through the general path (parse, validate, decode): every case of this suite
/// must give the same envelope on both paths.
#[track_caller]
fn same_on_the_general_path(name: &str, args: Arguments, fast: &Envelope) {
    let mut general = block_on(toolbox_with(false).call(name, args.clone()));
    general.operation_id = None;
    assert_eq!(
        *fast, general,
        "{name} {args:?}: the typed fast path and the general path differ"
    );
}

/// Calls `name` with `args` as a `Value` and as JSON text; both envelopes must agree.
fn call(name: &str, args: Value) -> Envelope {
    let tb = toolbox();
    let env = block_on(async {
        let mut by_value = tb.call(name, args.clone()).await;
        let mut by_text = tb.call(name, args.to_string()).await;
        by_value.operation_id = None;
        by_text.operation_id = None;
        assert_eq!(
            by_value, by_text,
            "{name} {args}: the Value and text calls differ"
        );
        by_value
    });
    same_on_the_general_path(name, Arguments::Value(args.clone()), &env);
    same_on_the_general_path(name, Arguments::Text(args.to_string()), &env);
    env
}

/// Calls with raw JSON text only.
fn call_text(name: &str, text: &str) -> Envelope {
    let tb = toolbox();
    let env = block_on(async {
        let mut env = tb.call(name, text).await;
        env.operation_id = None;
        env
    });
    same_on_the_general_path(name, Arguments::Text(text.to_string()), &env);
    env
}

#[track_caller]
fn ok(name: &str, args: Value) -> Value {
    let env = call(name, args.clone());
    assert_eq!(
        env.status,
        Status::Ok,
        "{name} {args} was rejected: {}",
        env.to_json()
    );
    env.data.unwrap_or(Value::Null)
}

/// Asserts a rejection with exactly this code and message.
#[track_caller]
fn rejected(name: &str, args: Value, code: &str, message: &str) -> Envelope {
    let env = call(name, args.clone());
    assert_eq!(
        env.status,
        Status::InvalidInput,
        "{name} {args}: {}",
        env.to_json()
    );
    assert_eq!(
        env.code.as_deref(),
        Some(code),
        "{name} {args}: {}",
        env.to_json()
    );
    assert_eq!(
        env.message.as_deref(),
        Some(message),
        "{name} {args}: {}",
        env.to_json()
    );
    env
}

const INVALID: &str = "INVALID_ARGUMENT";

// ---------------------------------------------------------------------------------------------
// Strings: minLength, maxLength, pattern
// ---------------------------------------------------------------------------------------------

#[test]
fn min_length_counts_characters() {
    ok("search_text", json!({"query": "ab"}));
    // Two characters, four bytes: the bound counts characters (code points), not bytes.
    ok("search_text", json!({"query": "éé"}));
    ok("search_text", json!({"query": "🙂🙂"}));
    rejected(
        "search_text",
        json!({"query": "a"}),
        INVALID,
        r#""query" must be at least 2 characters long. Words to look for in product names, e.g. "tent"."#,
    );
    rejected(
        "search_text",
        json!({"query": ""}),
        INVALID,
        r#""query" must be at least 2 characters long. Words to look for in product names, e.g. "tent"."#,
    );
    rejected(
        "search_text",
        json!({"query": "🙂"}),
        INVALID,
        r#""query" must be at least 2 characters long. Words to look for in product names, e.g. "tent"."#,
    );
}

#[test]
fn max_length_counts_characters() {
    ok("search_text", json!({"query": "abcdefghij"}));
    ok("search_text", json!({"query": "éééééééééé"}));
    rejected(
        "search_text",
        json!({"query": "abcdefghijk"}),
        INVALID,
        r#""query" must be at most 10 characters long; it has 11. Words to look for in product names, e.g. "tent"."#,
    );
    rejected(
        "search_text",
        json!({"query": "🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂"}),
        INVALID,
        r#""query" must be at most 10 characters long; it has 11. Words to look for in product names, e.g. "tent"."#,
    );
}

#[test]
fn pattern() {
    assert_eq!(
        ok("search_text", json!({"query": "tent", "code": "TNT-12"})),
        json!({"query": "tent", "code": "TNT-12"})
    );
    rejected(
        "search_text",
        json!({"query": "tent", "code": "tnt-12"}),
        INVALID,
        r#""code" must match the pattern ^[A-Z]{3}-[0-9]+$. Product code, e.g. "TNT-12"."#,
    );
    rejected(
        "search_text",
        json!({"query": "tent", "code": "TNT-12 "}),
        INVALID,
        r#""code" must match the pattern ^[A-Z]{3}-[0-9]+$. Product code, e.g. "TNT-12"."#,
    );
}

#[test]
fn string_type() {
    rejected(
        "search_text",
        json!({"query": 42}),
        INVALID,
        r#""query" must be a string. Words to look for in product names, e.g. "tent"."#,
    );
    // An optional parameter sent as null (as strict-mode clients do) counts as left out.
    assert_eq!(
        ok("search_text", json!({"query": "tent", "code": null})),
        json!({"query": "tent", "code": null})
    );
    // A required one does not.
    rejected(
        "search_text",
        json!({"query": null}),
        INVALID,
        r#""query" must be a string. Words to look for in product names, e.g. "tent"."#,
    );
}

// ---------------------------------------------------------------------------------------------
// Numbers: minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf
// ---------------------------------------------------------------------------------------------

#[test]
fn minimum_and_maximum() {
    ok("list_offers", json!({"max_price": 0}));
    ok("list_offers", json!({"max_price": 10000}));
    ok("list_offers", json!({"max_price": 10000.0}));
    ok("list_offers", json!({"max_price": 2500.5}));
    rejected(
        "list_offers",
        json!({"max_price": -0.01}),
        INVALID,
        r#""max_price" must be at least 0. Highest price in NOK, e.g. 2500."#,
    );
    rejected(
        "list_offers",
        json!({"max_price": 10000.01}),
        INVALID,
        r#""max_price" must be at most 10000. Highest price in NOK, e.g. 2500."#,
    );
    rejected(
        "list_offers",
        json!({"max_price": "cheap"}),
        INVALID,
        r#""max_price" must be a number. Highest price in NOK, e.g. 2500."#,
    );
    // Negative bounds on an integer.
    ok("list_offers", json!({"count": -5}));
    ok("list_offers", json!({"count": 50}));
    rejected(
        "list_offers",
        json!({"count": -6}),
        INVALID,
        r#""count" must be at least -5. Number of offers, e.g. 3."#,
    );
    rejected(
        "list_offers",
        json!({"count": 51}),
        INVALID,
        r#""count" must be at most 50. Number of offers, e.g. 3."#,
    );
}

#[test]
fn exclusive_bounds() {
    ok("list_offers", json!({"discount": 0.0001}));
    ok("list_offers", json!({"discount": 0.9999}));
    rejected(
        "list_offers",
        json!({"discount": 0}),
        INVALID,
        r#""discount" must be greater than 0. Discount as a fraction, e.g. 0.2."#,
    );
    rejected(
        "list_offers",
        json!({"discount": 1.0}),
        INVALID,
        r#""discount" must be less than 1. Discount as a fraction, e.g. 0.2."#,
    );
    rejected(
        "list_offers",
        json!({"discount": 1}),
        INVALID,
        r#""discount" must be less than 1. Discount as a fraction, e.g. 0.2."#,
    );
}

#[test]
fn multiple_of() {
    ok("list_offers", json!({"pack": 0}));
    ok("list_offers", json!({"pack": 15}));
    rejected(
        "list_offers",
        json!({"pack": 12}),
        INVALID,
        r#""pack" must be a multiple of 5. Pack size in units of five, e.g. 10."#,
    );
    ok("list_offers", json!({"length": 1.75}));
    ok("list_offers", json!({"length": 3}));
    rejected(
        "list_offers",
        json!({"length": 1.1}),
        INVALID,
        r#""length" must be a multiple of 0.25. Length in quarter metres, e.g. 1.75."#,
    );
}

#[test]
fn integers() {
    // 3.0 is an integer in JSON Schema; it is accepted and decoded as 3.
    assert_eq!(
        ok("echo_word", json!({"word": "ha", "times": 3.0})),
        json!("hahaha")
    );
    assert_eq!(ok("list_offers", json!({"count": 3.0}))["count"], json!(3));
    rejected(
        "echo_word",
        json!({"word": "ha", "times": 2.5}),
        INVALID,
        r#""times" must be a whole number. How many times, e.g. 3."#,
    );
    rejected(
        "echo_word",
        json!({"word": "ha", "times": "3"}),
        INVALID,
        r#""times" must be a whole number. How many times, e.g. 3."#,
    );
    // u8's range comes from the schema (minimum 0, maximum 255).
    rejected(
        "echo_word",
        json!({"word": "ha", "times": -1}),
        INVALID,
        r#""times" must be at least 0. How many times, e.g. 3."#,
    );
    rejected(
        "echo_word",
        json!({"word": "ha", "times": 256}),
        INVALID,
        r#""times" must be at most 255. How many times, e.g. 3."#,
    );
}

#[test]
fn declared_bounds_looser_than_the_type_keep_the_type_range() {
    assert_eq!(ok("set_volume", json!({"volume": 255})), json!(255));
    assert_eq!(ok("set_volume", json!({"volume": 0})), json!(0));
    // Without the type's range the value passed validation and failed to decode
    // ("The arguments could not be read: invalid value: integer `300`, expected u8").
    rejected(
        "set_volume",
        json!({"volume": 300}),
        INVALID,
        r#""volume" must be at most 255. Volume from 0 to 255, e.g. 80."#,
    );
    rejected(
        "set_volume",
        json!({"volume": -1}),
        INVALID,
        r#""volume" must be at least 0. Volume from 0 to 255, e.g. 80."#,
    );
}

#[test]
fn booleans() {
    ok(
        "compare_skus",
        json!({"skus": ["A", "B"], "discontinued": true}),
    );
    rejected(
        "compare_skus",
        json!({"skus": ["A", "B"], "discontinued": "yes"}),
        INVALID,
        r#""discontinued" must be true or false. Whether to include discontinued products, e.g. false."#,
    );
    rejected(
        "compare_skus",
        json!({"skus": ["A", "B"], "discontinued": 1}),
        INVALID,
        r#""discontinued" must be true or false. Whether to include discontinued products, e.g. false."#,
    );
}

// ---------------------------------------------------------------------------------------------
// Arrays: minItems, maxItems, uniqueItems, item types
// ---------------------------------------------------------------------------------------------

#[test]
fn array_sizes() {
    ok("compare_skus", json!({"skus": ["A", "B"]}));
    ok("compare_skus", json!({"skus": ["A", "B", "C"]}));
    rejected(
        "compare_skus",
        json!({"skus": ["A"]}),
        INVALID,
        r#""skus" must have at least 2 items; it has 1. SKUs to compare, e.g. ["TNT-2P", "TNT-1P"]."#,
    );
    rejected(
        "compare_skus",
        json!({"skus": []}),
        INVALID,
        r#""skus" must have at least 2 items; it has 0. SKUs to compare, e.g. ["TNT-2P", "TNT-1P"]."#,
    );
    rejected(
        "compare_skus",
        json!({"skus": ["A", "B", "C", "D"]}),
        INVALID,
        r#""skus" must have at most 3 items; it has 4. SKUs to compare, e.g. ["TNT-2P", "TNT-1P"]."#,
    );
    rejected(
        "compare_skus",
        json!({"skus": "A,B"}),
        INVALID,
        r#""skus" must be a list. SKUs to compare, e.g. ["TNT-2P", "TNT-1P"]."#,
    );
}

#[test]
fn unique_items() {
    rejected(
        "compare_skus",
        json!({"skus": ["A", "B", "A"]}),
        INVALID,
        r#""skus" must list distinct items; "skus[2]" repeats "skus[0]". SKUs to compare, e.g. ["TNT-2P", "TNT-1P"]."#,
    );
}

#[test]
fn array_item_types() {
    rejected(
        "compare_skus",
        json!({"skus": ["A", 2]}),
        INVALID,
        r#""skus[1]" must be a string. SKUs to compare, e.g. ["TNT-2P", "TNT-1P"]."#,
    );
}

// ---------------------------------------------------------------------------------------------
// Defaults
// ---------------------------------------------------------------------------------------------

#[test]
fn defaults_are_applied_when_absent() {
    assert_eq!(
        ok("list_orders", json!({})),
        json!({"limit": 10, "newest_first": true})
    );
    assert_eq!(
        ok("list_orders", json!({"limit": 20, "newest_first": false})),
        json!({"limit": 20, "newest_first": false})
    );
    // Empty text and null arguments are "no arguments".
    assert_eq!(
        call_text("list_orders", "").data,
        Some(json!({"limit": 10, "newest_first": true}))
    );
    assert_eq!(
        call_text("list_orders", "null").data,
        Some(json!({"limit": 10, "newest_first": true}))
    );
    // A defaulted parameter is still validated when given.
    rejected(
        "list_orders",
        json!({"limit": 0}),
        INVALID,
        r#""limit" must be at least 1. How many orders to list, e.g. 20."#,
    );
}

// ---------------------------------------------------------------------------------------------
// Required, unknown, non-object, malformed
// ---------------------------------------------------------------------------------------------

#[test]
fn missing_required() {
    rejected(
        "search_text",
        json!({}),
        "MISSING_ARGUMENT",
        r#"Provide "query". Words to look for in product names, e.g. "tent"."#,
    );
    rejected(
        "search_text",
        json!({"code": "TNT-1"}),
        "MISSING_ARGUMENT",
        r#"Provide "query". Words to look for in product names, e.g. "tent"."#,
    );
}

#[test]
fn unknown_argument() {
    rejected(
        "search_text",
        json!({"query": "tent", "colour": "red"}),
        "UNKNOWN_ARGUMENT",
        r#"Unknown parameter "colour". The parameters are "query" and "code"."#,
    );
    rejected(
        "compare_skus",
        json!({"skus": ["A", "B"], "sort": "asc"}),
        "UNKNOWN_ARGUMENT",
        r#"Unknown parameter "sort". The parameters are "skus" and "discontinued"."#,
    );
    rejected(
        "list_offers",
        json!({"price": 1}),
        "UNKNOWN_ARGUMENT",
        r#"Unknown parameter "price". The parameters are "max_price", "discount", "pack", "length" and "count"."#,
    );
    rejected(
        "get_time",
        json!({"zone": "UTC"}),
        "UNKNOWN_ARGUMENT",
        r#"Unknown parameter "zone": this tool takes no parameters, so send {}."#,
    );
}

#[test]
fn non_object_arguments() {
    for args in [json!([1, 2]), json!("tent"), json!(3), json!(true)] {
        rejected(
            "search_text",
            args,
            "INVALID_INPUT",
            r#"The arguments must be a JSON object with the parameters "query" and "code"."#,
        );
    }
    rejected(
        "get_time",
        json!([]),
        "INVALID_INPUT",
        "The arguments must be a JSON object; this tool takes no parameters, so send {}.",
    );
    assert_eq!(ok("get_time", json!({})), json!("12:00"));
}

#[test]
fn malformed_json_text() {
    let env = call_text("search_text", r#"{"query": "tent""#);
    assert_eq!(env.status, Status::InvalidInput);
    assert_eq!(env.code.as_deref(), Some("INVALID_INPUT"));
    let message = env.message.unwrap_or_default();
    assert!(
        message.starts_with("The arguments are not valid JSON (")
            && message.ends_with(r#"). Send one JSON object, e.g. {"name": "value"}."#),
        "{message}"
    );
    let env = call_text("search_text", "{'query': 'tent'}");
    assert_eq!(env.code.as_deref(), Some("INVALID_INPUT"));
}

#[test]
fn several_errors_are_all_reported() {
    let env = rejected(
        "list_offers",
        json!({"max_price": -1, "discount": 2, "pack": 7, "extra": 1}),
        INVALID,
        concat!(
            r#""max_price" must be at least 0. Highest price in NOK, e.g. 2500. "#,
            r#""discount" must be less than 1. Discount as a fraction, e.g. 0.2. "#,
            r#""pack" must be a multiple of 5. Pack size in units of five, e.g. 10. "#,
            r#"Unknown parameter "extra". The parameters are "max_price", "discount", "pack", "length" and "count"."#,
        ),
    );
    let data = env.data.expect("data.errors");
    let errors = data["errors"].as_array().expect("an errors list");
    let summary: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap_or("?"),
                e["code"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("max_price", INVALID),
            ("discount", INVALID),
            ("pack", INVALID),
            ("extra", "UNKNOWN_ARGUMENT"),
        ]
    );
    // A missing argument comes first and gives the envelope its code.
    let env = rejected(
        "echo_word",
        json!({"times": "x"}),
        "MISSING_ARGUMENT",
        r#"Provide "word". The word, e.g. "ha". "times" must be a whole number. How many times, e.g. 3."#,
    );
    assert_eq!(
        env.data.expect("data")["errors"].as_array().map(Vec::len),
        Some(2)
    );
    // One error: no data.errors.
    let env = rejected(
        "echo_word",
        json!({"word": "ha"}),
        "MISSING_ARGUMENT",
        r#"Provide "times". How many times, e.g. 3."#,
    );
    assert_eq!(env.data, None);
}

// ---------------------------------------------------------------------------------------------
// Nested structs, enums, lists of structs, tagged enums, recursion
// ---------------------------------------------------------------------------------------------

#[test]
fn nested_struct_fields() {
    ok("find_garments", json!({"filters": {"size": "medium"}}));
    ok(
        "find_garments",
        json!({"filters": {"size": "large", "colour": "red", "max_weight": 800}}),
    );
    rejected(
        "find_garments",
        json!({"filters": {"size": "huge"}}),
        INVALID,
        r#""filters.size" must be one of "small", "medium", "large". Garment size, e.g. "medium"."#,
    );
    rejected(
        "find_garments",
        json!({"filters": {}}),
        "MISSING_ARGUMENT",
        r#"Provide "filters.size". Garment size, e.g. "medium"."#,
    );
    rejected(
        "find_garments",
        json!({"filters": {"size": "small", "max_weight": -3}}),
        INVALID,
        r#""filters.max_weight" must be at least 0. Heaviest weight in grams, e.g. 800."#,
    );
    rejected(
        "find_garments",
        json!({"filters": "small"}),
        INVALID,
        r#""filters" must be an object. Filters to apply."#,
    );
    rejected(
        "find_garments",
        json!({}),
        "MISSING_ARGUMENT",
        r#"Provide "filters". Filters to apply."#,
    );
}

#[test]
fn nested_unknown_field() {
    // Input objects are closed (`additionalProperties: false`), so a misspelt nested field is
    // reported with the fields that exist instead of being dropped silently.
    rejected(
        "find_garments",
        json!({"filters": {"size": "small", "fabric": "wool"}}),
        "UNKNOWN_ARGUMENT",
        r#"Unknown field "filters.fabric". The fields of "filters" are "size", "colour" and "max_weight"."#,
    );
}

#[test]
fn documented_and_undocumented_enums() {
    ok(
        "find_garments",
        json!({"filters": {"size": "small"}, "size": "large", "colour": "blue"}),
    );
    rejected(
        "find_garments",
        json!({"filters": {"size": "small"}, "size": "Large"}),
        INVALID,
        r#""size" must be one of "small", "medium", "large". Size, e.g. "small"."#,
    );
    rejected(
        "find_garments",
        json!({"filters": {"size": "small"}, "colour": "purple"}),
        INVALID,
        r#""colour" must be one of "red", "green", "blue". Colour, e.g. "blue"."#,
    );
    rejected(
        "find_garments",
        json!({"filters": {"size": "small"}, "colour": 1}),
        INVALID,
        r#""colour" must be a string. Colour, e.g. "blue"."#,
    );
}

#[test]
fn list_of_structs() {
    assert_eq!(
        ok(
            "calculate_order",
            json!({"items": [{"sku": "A", "quantity": 1}, {"sku": "B", "quantity": 2.0}]})
        ),
        json!({"lines": 2, "units": 3})
    );
    rejected(
        "calculate_order",
        json!({"items": [{"sku": "A", "quantity": 1}, {"sku": "B", "quantity": 1}, {"sku": 3, "quantity": 1}]}),
        INVALID,
        r#""items[2].sku" must be a string. Stock-keeping unit, e.g. "TNT-2P"."#,
    );
    rejected(
        "calculate_order",
        json!({"items": [{"sku": "A"}]}),
        "MISSING_ARGUMENT",
        r#"Provide "items[0].quantity". How many, e.g. 2."#,
    );
    rejected(
        "calculate_order",
        json!({"items": []}),
        INVALID,
        r#""items" must have at least 1 item; it has 0. Order lines, e.g. [{"sku": "TNT-2P", "quantity": 1}]."#,
    );
    rejected(
        "calculate_order",
        json!({"items": [5]}),
        INVALID,
        r#""items[0]" must be an object. One line of an order."#,
    );
}

#[test]
fn tagged_enum() {
    let area = ok(
        "compute_area",
        json!({"shape": {"kind": "rectangle", "width": 2, "height": 3}}),
    );
    assert_eq!(area, json!(6.0));
    ok(
        "compute_area",
        json!({"shape": {"kind": "circle", "radius": 1}}),
    );
    // The tag selects the form: an unknown tag is reported as such, not as the problems of
    // whichever form came closest.
    rejected(
        "compute_area",
        json!({"shape": {"kind": "triangle", "side": 1}}),
        INVALID,
        r#""shape.kind" must be one of "circle", "rectangle". The shape, e.g. {"kind": "circle", "radius": 2}."#,
    );
    rejected(
        "compute_area",
        json!({"shape": {"radius": 1}}),
        "MISSING_ARGUMENT",
        r#"Provide "shape.kind", one of "circle", "rectangle". The shape, e.g. {"kind": "circle", "radius": 2}."#,
    );
    // A known tag: the problems of that form.
    rejected(
        "compute_area",
        json!({"shape": {"kind": "circle"}}),
        "MISSING_ARGUMENT",
        r#"Provide "shape.radius". Radius in cm, e.g. 4.5."#,
    );
    rejected(
        "compute_area",
        json!({"shape": {"kind": "rectangle", "width": 1, "radius": 3}}),
        "MISSING_ARGUMENT",
        r#"Provide "shape.height". Height in cm, e.g. 20. Unknown field "shape.radius". The fields of "shape" are "kind", "width" and "height"."#,
    );
    rejected(
        "compute_area",
        json!({"shape": {"kind": "circle", "radius": "big"}}),
        INVALID,
        r#""shape.radius" must be a number. Radius in cm, e.g. 4.5."#,
    );
}

#[test]
fn recursive_struct_through_vec() {
    assert_eq!(
        ok(
            "count_folders",
            json!({"root": {"name": "a", "children": [{"name": "b", "children": [{"name": "c", "children": []}]}]}})
        ),
        json!(3)
    );
    rejected(
        "count_folders",
        json!({"root": {"name": "a", "children": [{"name": "b", "children": [{"name": 1, "children": []}]}]}}),
        INVALID,
        r#""root.children[0].children[0].name" must be a string. Folder name, e.g. "docs"."#,
    );
    rejected(
        "count_folders",
        json!({"root": {"name": "a", "children": [{"name": "b"}]}}),
        "MISSING_ARGUMENT",
        r#"Provide "root.children[0].children". Sub-folders."#,
    );
}

#[test]
fn recursive_struct_through_box() {
    assert_eq!(
        ok(
            "add_chain",
            json!({"chain": {"value": 1, "next": {"value": 2, "next": {"value": 3.0}}}})
        ),
        json!(6)
    );
    rejected(
        "add_chain",
        json!({"chain": {"value": 1, "next": {"value": 2, "next": {"value": 0.5}}}}),
        INVALID,
        r#""chain.next.next.value" must be a whole number. The number at this link, e.g. 7."#,
    );
}

#[test]
fn method_tool() {
    assert_eq!(
        ok("check_stock", json!({"sku": "TNT"})),
        json!({"sku": "TNT", "stock": 4})
    );
    rejected(
        "check_stock",
        json!({"sku": "TN"}),
        INVALID,
        r#""sku" must be at least 3 characters long. Stock-keeping unit, e.g. "TNT-2P"."#,
    );
}

/// Greets a person by name, e.g. "Hello, Ann". Returns the greeting.
#[toolsmith::tool(read_only)]
fn greet_by_default(
    /// The person's name, e.g. "Ann". Defaults to "friend".
    #[arg(default = "friend")]
    name: String,
) -> String {
    format!("Hello, {name}")
}

/// A `String` parameter's default written as a string literal fills a left-out argument, on the
/// typed path and the general one.
#[test]
fn a_string_literal_default_fills_a_left_out_argument() {
    for typed in [true, false] {
        let tb =
            common::validation_tools::toolbox_with_tools(typed, vec![greet_by_default::tool()]);
        let env = common::call_blocking(&tb, "greet_by_default", json!({}));
        assert_eq!(
            env.data,
            Some(json!("Hello, friend")),
            "typed {typed}: {env:?}"
        );
        let env = common::call_blocking(&tb, "greet_by_default", json!({"name": "Ann"}));
        assert_eq!(env.data, Some(json!("Hello, Ann")));
    }
}
