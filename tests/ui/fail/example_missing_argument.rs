use toolsmith::tool;

/// Searches the catalog. Returns matching products.
#[tool(read_only, example(query = "tent"), example(max_price = 2500))]
fn search_products(
    /// Words to search for, e.g. "tent".
    query: String,
    /// Highest price in cents, e.g. 2500.
    max_price: Option<u32>,
    /// How many results to return, e.g. 10.
    #[arg(default = 10)]
    limit: u32,
) -> Vec<String> {
    let _ = (max_price, limit);
    vec![query]
}

fn main() {}
