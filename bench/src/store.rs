//! The store-like tools, declared with `#[tool]`, and the floor of the call benchmark.
//!
//! `search_products` is the tool whose call overhead is measured: three parameters with
//! constraints (`query` 2..=100 characters, `max_price` at most 100000, `in_stock_only`).
//! Its body is [`search_catalogue`], shared with the floor and the rmcp version so that every
//! path does the same work.

// `ToolError` is 168 bytes, so returning `Result<_, ToolError>` (the documented way for a tool to
// report an outcome) trips this lint in every user crate; reported to the lead.
#![allow(clippy::result_large_err)]

use serde::{Deserialize, Serialize};
use toolsmith::{model, tool, ToolError};

/// A product in the catalogue.
#[model]
#[derive(Clone, PartialEq)]
pub struct Product {
    /// Stock-keeping unit, e.g. "TNT-2P".
    pub sku: String,
    /// Product name.
    pub name: String,
    /// Price in NOK.
    pub price_nok: u32,
    /// Whether the product can ship today.
    pub in_stock: bool,
}

/// Product categories.
#[model]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Tents and shelters.
    Tents,
    /// Sleeping bags and mats.
    Sleeping,
    /// Stoves, pots and fuel.
    Cooking,
}

const CATALOGUE: [(&str, &str, u32, bool); 6] = [
    ("TNT-2P", "Fjell 2-person tent", 3499, true),
    ("TNT-1P", "Vidde 1-person tent", 2199, false),
    ("TNT-4P", "Hytte 4-person tent", 5999, true),
    ("BAG-M5", "Vinter sleeping bag", 1899, true),
    ("STV-GAS", "Kompakt gas stove", 499, true),
    ("MAT-AIR", "Luft sleeping mat", 899, false),
];

/// The work every path of the call benchmark does: a case-insensitive substring search over a
/// six-product catalogue, filtered by price and stock, cheapest first.
pub fn search_catalogue(
    query: &str,
    max_price: Option<u32>,
    in_stock_only: Option<bool>,
) -> Vec<Product> {
    let query = query.to_lowercase();
    let mut hits: Vec<Product> = CATALOGUE
        .iter()
        .filter(|(_, name, price, stock)| {
            name.to_lowercase().contains(&query)
                && max_price.is_none_or(|max| *price <= max)
                && (!in_stock_only.unwrap_or(false) || *stock)
        })
        .map(|&(sku, name, price_nok, in_stock)| Product {
            sku: sku.into(),
            name: name.into(),
            price_nok,
            in_stock,
        })
        .collect();
    hits.sort_by_key(|p| p.price_nok);
    hits
}

/// Searches the outdoor-gear catalogue by name. Returns the matching products, cheapest first, each with SKU, name, price in NOK and stock status.
#[tool(read_only, title = "Search products")]
pub fn search_products(
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
) -> Vec<Product> {
    let _ = category;
    search_catalogue(&query, max_price, in_stock_only)
}

/// The floor's argument struct: what a hand-written handler would deserialize into, with no
/// constraint checks beyond the types.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words to look for in product names.
    pub query: String,
    /// Only products in this category.
    #[serde(default)]
    pub category: Option<Category>,
    /// Highest price in NOK.
    #[serde(default)]
    pub max_price: Option<u32>,
    /// Only products that can ship today.
    #[serde(default)]
    pub in_stock_only: Option<bool>,
}

/// Compares two to four products side by side. Returns one row per SKU with name, price in NOK and stock status.
#[tool(read_only)]
pub fn compare_products(
    /// The SKUs to compare, e.g. ["TNT-2P", "TNT-1P"].
    #[arg(min_items = 2, max_items = 4, unique_items)]
    skus: Vec<String>,
) -> Result<Vec<Product>, ToolError> {
    let rows: Vec<Product> = skus
        .iter()
        .flat_map(|sku| {
            search_catalogue("", None, None)
                .into_iter()
                .filter(move |p| &p.sku == sku)
        })
        .collect();
    if rows.is_empty() {
        return Err(ToolError::empty("None of these SKUs is in the catalogue."));
    }
    Ok(rows)
}

/// Adds a product to the shopping cart. Returns the cart's line count after the change.
#[tool(writes, title = "Add to cart")]
pub fn add_to_cart(
    /// The product's SKU, e.g. "TNT-2P".
    #[arg(pattern = "^[A-Z]{3}-[A-Z0-9]+$")]
    sku: String,
    /// How many to add, 1 to 10.
    #[arg(minimum = 1, maximum = 10)]
    quantity: u32,
) -> u32 {
    let _ = sku;
    quantity
}

fn floor_error(message: String) -> String {
    serde_json::json!({ "error": message }).to_string()
}

/// The floor after parsing: the constraints `#[arg]` declares, checked by hand, then the call and
/// `serde_json::to_string` of the result (or of `{"error": message}`).
pub fn floor_run(args: SearchArgs) -> String {
    let len = args.query.chars().count();
    if !(2..=100).contains(&len) {
        return floor_error(format!("query must be 2 to 100 characters long, not {len}"));
    }
    if args.max_price.is_some_and(|p| p > 100_000) {
        return floor_error("max_price must be at most 100000".into());
    }
    let hits = search_catalogue(&args.query, args.max_price, args.in_stock_only);
    serde_json::to_string(&hits).unwrap_or_default()
}

/// The floor for JSON text: `serde_json::from_str` into [`SearchArgs`], then [`floor_run`].
pub fn floor_text(text: &str) -> String {
    match serde_json::from_str::<SearchArgs>(text) {
        Ok(args) => floor_run(args),
        Err(e) => floor_error(e.to_string()),
    }
}

/// The floor for a parsed value: `serde_json::from_value` into [`SearchArgs`], then
/// [`floor_run`].
pub fn floor_value(value: serde_json::Value) -> String {
    match serde_json::from_value::<SearchArgs>(value) {
        Ok(args) => floor_run(args),
        Err(e) => floor_error(e.to_string()),
    }
}
