//! A representative hand-built set of specs shared by the export tests
//! (`crate::fixtures` in `tests/it`).
#![allow(dead_code)]

use serde_json::{json, Value};
use toolsmith_core::{Allow, Effects, ToolSpec};

/// A spec with defaults for what a test does not care about.
pub fn spec(name: &str, input_schema: serde_json::Value) -> ToolSpec {
    ToolSpec::new(
        name,
        format!("Does {name}. Returns what it did."),
        input_schema,
    )
    .with_version("1.0.0")
}

/// Read-only search with constraints, a default, a format and optional parameters.
pub fn search_products() -> ToolSpec {
    ToolSpec::new(
        "search_products",
        "Search the catalog by text. Returns up to `limit` products, best match first; an empty \
         list when nothing matches.",
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to search for, e.g. \"red shoes\".",
                          "minLength": 1, "maxLength": 200},
                "limit": {"type": "integer", "description": "How many products to return, 1 to 50.",
                          "minimum": 1, "maximum": 50, "default": 10},
                "since": {"type": "string", "format": "date",
                          "description": "Only products listed on or after this day."}
            },
            "required": ["query"],
            "additionalProperties": false
        }),
    )
    .with_title("Search products")
    .with_output_schema(json!({
        "type": "array",
        "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "name": {"type": "string"}, "price_cents": {"type": "integer", "minimum": 0}
        }, "required": ["sku", "name", "price_cents"]}
    }))
    .with_effects(Effects::none().with_read_only(true).with_network(true))
    .with_timeout_ms(5000)
    .with_version("1.2.0")
}

/// Destructive, approval-requiring write with a documented enum and a lint exception.
pub fn close_ticket() -> ToolSpec {
    ToolSpec::new(
        "close_ticket",
        "Close a support ticket for good; it cannot be reopened. A human approves each call. \
         Returns the closed ticket.",
        json!({
            "type": "object",
            "properties": {
                "ticket_id": {"type": "string", "description": "The ticket to close, e.g. \"T-1042\".",
                              "pattern": "^T-[0-9]+$"},
                "resolution": {"description": "Why the ticket is closed.", "oneOf": [
                    {"const": "fixed", "title": "The problem was solved"},
                    {"const": "wont_fix", "title": "The request is declined"},
                    {"const": "duplicate", "title": "Another ticket covers it"}
                ]},
                "note": {"type": "string", "description": "A note for the customer.", "maxLength": 500}
            },
            "required": ["ticket_id", "resolution"],
            "additionalProperties": false
        }),
    )
    .with_title("Close ticket")
    .with_output_schema(json!({"type": "object", "properties": {
        "ticketId": {"type": "string"}, "ticketState": {"type": "string"}
    }, "required": ["ticketId", "ticketState"]}))
    .with_effects(
        Effects::none()
            .with_writes(true)
            .with_destructive(true)
            .with_requires_approval(true),
    )
    .with_allow(Allow::new(
        "description_budget",
        "the legal note must be quoted in full",
    ))
    .with_version("1.2.0")
}

/// A write with a nested object and arrays.
pub fn create_order() -> ToolSpec {
    ToolSpec::new(
        "create_order",
        "Place an order for the given items and ship it to the address. Returns the order id; \
         repeating the call with the same items places a second order.",
        json!({
            "type": "object",
            "properties": {
                "items": {"type": "array", "description": "What to order, 1 to 20 lines.",
                          "minItems": 1, "maxItems": 20,
                          "items": {"type": "object", "properties": {
                              "sku": {"type": "string", "description": "The product's SKU."},
                              "quantity": {"type": "integer", "description": "How many, 1 to 10.",
                                           "minimum": 1, "maximum": 10}
                          }, "required": ["sku", "quantity"], "additionalProperties": false}},
                "shipping_address": {"type": "object", "description": "Where to ship the order.",
                    "properties": {
                        "street": {"type": "string", "description": "Street and number."},
                        "city": {"type": "string", "description": "City name."},
                        "country": {"type": "string", "description": "ISO 3166-1 alpha-2 code, e.g. \"DE\".",
                                    "minLength": 2, "maxLength": 2},
                        "postal_code": {"type": "string", "description": "Postal code, if the country uses one."}
                    },
                    "required": ["street", "city", "country"], "additionalProperties": false},
                "tags": {"type": "array", "description": "Labels for the order.", "uniqueItems": true,
                         "items": {"type": "string"}}
            },
            "required": ["items", "shipping_address"],
            "additionalProperties": false
        }),
    )
    .with_output_schema(json!({"type": "object", "properties": {"orderId": {"type": "string"}},
                               "required": ["orderId"]}))
    .with_effects(
        Effects::none()
            .with_writes(true)
            .with_network(true)
            .with_open_world(true),
    )
    .with_version("1.2.0")
}

/// A tool whose parameter is a recursive type (kept as root `$defs`).
pub fn render_outline() -> ToolSpec {
    ToolSpec::new(
        "render_outline",
        "Render a nested outline as Markdown. Returns the Markdown text.",
        json!({
            "type": "object",
            "properties": {
                "outline": {"$ref": "#/$defs/Section", "description": "The outline's root section."}
            },
            "required": ["outline"],
            "additionalProperties": false,
            "$defs": {"Section": {"type": "object", "properties": {
                "heading": {"type": "string", "description": "The section heading."},
                "children": {"type": "array", "description": "Sub-sections, in order.",
                             "items": {"$ref": "#/$defs/Section"}}
            }, "required": ["heading", "children"], "additionalProperties": false}}
        }),
    )
    .with_title("Render outline")
    .with_output_schema(json!({"type": "string"}))
    .with_effects(Effects::none().with_read_only(true).with_idempotent(true))
    .with_version("1.2.0")
}

/// A tool with no parameters.
pub fn get_time() -> ToolSpec {
    ToolSpec::new(
        "get_time",
        "Returns the current UTC time as RFC 3339 text, e.g. \"2026-11-30T12:00:00Z\".",
        json!({"type": "object", "additionalProperties": false}),
    )
    .with_output_schema(json!({"type": "string", "format": "date-time"}))
    .with_effects(Effects::none().with_read_only(true))
    .with_version("1.2.0")
}

/// The representative set, in a stable order.
pub fn all() -> Vec<ToolSpec> {
    vec![
        search_products(),
        close_ticket(),
        create_order(),
        render_outline(),
        get_time(),
    ]
}

/// A JSON file of the workspace (the fixtures live in `<workspace>/tests/fixtures`).
pub fn workspace_file(rel: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The tools captured from two real MCP servers, read back into specs and exported again.
pub fn catalog_specs(file: &str) -> Vec<ToolSpec> {
    let doc = workspace_file(&format!("tests/fixtures/catalogs/{file}"));
    doc["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            let hint = |k: &str| t["annotations"][k].as_bool().unwrap_or(false);
            let mut spec = ToolSpec::new(
                t["name"].as_str().expect("name"),
                t["description"].as_str().unwrap_or_default(),
                t["inputSchema"].clone(),
            )
            .with_effects(
                Effects::none()
                    .with_read_only(hint("readOnlyHint"))
                    .with_destructive(hint("destructiveHint"))
                    .with_idempotent(hint("idempotentHint"))
                    .with_open_world(hint("openWorldHint")),
            )
            .with_version("0.0.0");
            spec.title = t["title"].as_str().map(str::to_string);
            spec.output_schema = t.get("outputSchema").cloned();
            spec
        })
        .collect()
}
