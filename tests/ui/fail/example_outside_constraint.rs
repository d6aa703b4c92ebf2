use toolsmith::tool;

/// Searches the catalog. Returns matching products.
#[tool(
    read_only,
    example(query = "", max_price = 0, tags = ["a", "a", "b", "c"], ratio = 1.5, step = 7),
    example(query = "a very long query indeed", max_price = 100001, tags = [], ratio = 0.0, step = 10)
)]
fn search_products(
    /// Words to search for, e.g. "tent".
    #[arg(min_length = 1, max_length = 20)]
    query: String,
    /// Highest price in cents, e.g. 2500.
    #[arg(minimum = 1, maximum = 100000)]
    max_price: u32,
    /// Tags to match, e.g. ["outdoor"].
    #[arg(min_items = 1, max_items = 3, unique_items)]
    tags: Vec<String>,
    /// A weight between relevance and price, e.g. 0.5.
    #[arg(exclusive_minimum = 0, exclusive_maximum = 1)]
    ratio: f64,
    /// A page step, e.g. 5.
    #[arg(multiple_of = 5)]
    step: u32,
) -> Vec<String> {
    let _ = (max_price, tags, ratio, step);
    vec![query]
}

fn main() {}
