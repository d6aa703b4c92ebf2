use toolsmith::tool;

/// Searches the catalog. Returns matching products.
#[tool(read_only, example(query = "tent", max_prize = 2500))]
fn search_products(
    /// Words to search for, e.g. "tent".
    query: String,
    /// Highest price in cents, e.g. 2500.
    max_price: Option<u32>,
) -> Vec<String> {
    let _ = max_price;
    vec![query]
}

/// Lists the open orders. Returns their ids.
#[tool(read_only, example(status = "open"))]
fn list_orders() -> Vec<String> {
    Vec::new()
}

fn main() {}
