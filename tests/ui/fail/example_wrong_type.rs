use toolsmith::tool;

/// Searches the catalog. Returns matching products.
#[tool(
    read_only,
    example(query = 42, max_price = "2500", in_stock = 1, ratio = true),
    example(query = "tent", max_price = 2.5, tags = ["a", 3], initial = "ab"),
    example(query = "tent", max_price = -1, tags = "outdoor"),
    example(query = "tent", max_price = 70000)
)]
fn search_products(
    /// Words to search for, e.g. "tent".
    query: String,
    /// Highest price in cents, e.g. 2500.
    max_price: Option<u16>,
    /// Only products in stock, e.g. true.
    in_stock: Option<bool>,
    /// A weight between relevance and price, e.g. 0.5.
    ratio: Option<f64>,
    /// Tags to match, e.g. ["outdoor"].
    tags: Option<Vec<String>>,
    /// The first letter of the brand, e.g. "A".
    initial: Option<char>,
) -> Vec<String> {
    let _ = (max_price, in_stock, ratio, tags, initial);
    vec![query]
}

fn main() {}
