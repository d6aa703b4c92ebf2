//! The information check behind the context-cost comparison: every description, constraint
//! and enum value/title declared in the fixtures, looked up in an exported tool definition, and
//! the schema keywords one export uses that another does not.

use serde_json::Value;
use std::collections::BTreeMap;

/// One piece of information the model should be able to read in a tool definition.
#[derive(Debug, Clone)]
pub enum Fact {
    /// A text (a description, a title, an enum value) that must appear in some string of the
    /// definition.
    Text(&'static str),
    /// A constraint keyword with its value that must appear in the schema of one parameter.
    Keyword {
        /// The parameter.
        param: &'static str,
        /// The JSON Schema keyword, e.g. `maxLength`.
        key: &'static str,
        /// The value.
        value: Value,
    },
}

impl std::fmt::Display for Fact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fact::Text(t) => write!(f, "text {t:?}"),
            Fact::Keyword { param, key, value } => write!(f, "{param}.{key} = {value}"),
        }
    }
}

fn kw(param: &'static str, key: &'static str, value: Value) -> Fact {
    Fact::Keyword { param, key, value }
}

/// What was declared for each fixture tool, by tool name.
pub fn declared() -> Vec<(&'static str, Vec<Fact>)> {
    use serde_json::json;
    use Fact::Text;
    vec![
        (
            "search_products",
            vec![
                Text("Searches the outdoor-gear catalogue by name. Returns the matching products, cheapest first, each with SKU, name, price in NOK and stock status."),
                Text("Words to look for in product names, e.g. \"tent\"."),
                Text("Only products in this category."),
                Text("Highest price in NOK, e.g. 2500."),
                Text("Only products that can ship today."),
                Text("tents"),
                Text("sleeping"),
                Text("cooking"),
                Text("Tents and shelters."),
                Text("Sleeping bags and mats."),
                Text("Stoves, pots and fuel."),
                kw("query", "minLength", json!(2)),
                kw("query", "maxLength", json!(100)),
                kw("max_price", "maximum", json!(100000)),
            ],
        ),
        (
            "compare_products",
            vec![
                Text("Compares two to four products side by side. Returns one row per SKU with name, price in NOK and stock status."),
                Text("The SKUs to compare, e.g. [\"TNT-2P\", \"TNT-1P\"]."),
                kw("skus", "minItems", json!(2)),
                kw("skus", "maxItems", json!(4)),
                kw("skus", "uniqueItems", json!(true)),
            ],
        ),
        (
            "add_to_cart",
            vec![
                Text("Adds a product to the shopping cart. Returns the cart's line count after the change."),
                Text("The product's SKU, e.g. \"TNT-2P\"."),
                Text("How many to add, 1 to 10."),
                kw("sku", "pattern", json!("^[A-Z]{3}-[A-Z0-9]+$")),
                kw("quantity", "minimum", json!(1)),
                kw("quantity", "maximum", json!(10)),
            ],
        ),
        (
            "search_articles",
            vec![
                Text("Searches the help-centre articles. Returns up to 5 articles, best match first, each with id and title."),
                Text("Words to look for, e.g. \"reset password\"."),
                kw("query", "minLength", json!(2)),
                kw("query", "maxLength", json!(200)),
            ],
        ),
        (
            "create_ticket",
            vec![
                Text("Opens a support ticket for a human agent. Returns the new ticket's id, e.g. \"SUP-1042\"."),
                Text("One-line summary of the problem, e.g. \"Cannot log in\"."),
                Text("The full problem statement in the customer's words."),
                Text("How urgent the ticket is."),
                Text("low"),
                Text("normal"),
                Text("urgent"),
                Text("Answered within five working days."),
                Text("Answered within one working day."),
                Text("The customer is blocked; answered within two hours."),
                kw("subject", "minLength", json!(3)),
                kw("subject", "maxLength", json!(120)),
                kw("body", "maxLength", json!(4000)),
            ],
        ),
        (
            "get_ticket_status",
            vec![
                Text("Looks up a support ticket. Returns its status (open, waiting or closed) and the last update."),
                Text("The ticket id, e.g. \"SUP-1042\"."),
                kw("ticket_id", "pattern", json!("^SUP-[0-9]+$")),
            ],
        ),
    ]
}

fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn same_number_or_value(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn has_keyword(v: &Value, key: &str, value: &Value) -> bool {
    match v {
        Value::Object(m) => {
            m.get(key).is_some_and(|x| same_number_or_value(x, value))
                || m.values().any(|x| has_keyword(x, key, value))
        }
        Value::Array(a) => a.iter().any(|x| has_keyword(x, key, value)),
        _ => false,
    }
}

/// Whether `fact` can be read in `definition` (an object with `description` and `inputSchema`).
/// A keyword is looked up in the parameter's schema and in the root `$defs` it may refer to.
pub fn present(definition: &Value, fact: &Fact) -> bool {
    match fact {
        Fact::Text(t) => {
            let mut all = Vec::new();
            strings(definition, &mut all);
            all.iter().any(|s| s.contains(t))
        }
        Fact::Keyword { param, key, value } => {
            let schema = &definition["inputSchema"];
            has_keyword(&schema["properties"][*param], key, value)
                || schema
                    .get("$defs")
                    .is_some_and(|d| has_keyword(d, key, value))
        }
    }
}

/// Every JSON Schema keyword used in `schema` with how often (property names are not counted).
pub fn keywords(schema: &Value) -> BTreeMap<String, usize> {
    fn walk(v: &Value, in_properties: bool, out: &mut BTreeMap<String, usize>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if !in_properties {
                        *out.entry(k.clone()).or_default() += 1;
                    }
                    let next_is_map =
                        !in_properties && matches!(k.as_str(), "properties" | "$defs");
                    walk(x, next_is_map, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, false, out)),
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    walk(schema, false, &mut out);
    out
}

/// The agent-facing trio of an exported tool: `{"name", "description", "inputSchema"}`.
pub fn trio(tool: &Value) -> Value {
    serde_json::json!({
        "name": tool["name"],
        "description": tool["description"],
        "inputSchema": tool["inputSchema"],
    })
}

/// Compact JSON length in bytes.
pub fn compact_len(v: &Value) -> usize {
    serde_json::to_string(v).map_or(0, |s| s.len())
}
