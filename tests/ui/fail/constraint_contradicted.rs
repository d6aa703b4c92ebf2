use toolsmith::tool;

/// Searches the product catalog by words. Returns the matching products.
#[tool(read_only)]
fn search_products(
    /// Words to search for, e.g. "red shoes". Optional.
    query: String,
    /// How many products to return, e.g. 10. Required.
    limit: Option<u32>,
    /// Results to skip, e.g. 20. Defaults to 10.
    #[arg(default = 0)]
    offset: u32,
    /// Most products per page, up to 500.
    #[arg(maximum = 100, default = 20)]
    page_size: u32,
    /// Sort key, e.g. "price". At most 64 characters.
    #[arg(max_length = 32, default = String::from("relevance"))]
    sort: String,
) -> Vec<String> {
    let _ = (limit, offset, page_size, sort);
    vec![query]
}

fn main() {}
