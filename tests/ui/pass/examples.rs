use toolsmith::{tool, Toolbox};

/// A product filter.
#[toolsmith::model]
struct Filter {
    /// Brand to match.
    brand: String,
}

/// Searches the catalog. Returns matching products.
#[tool(
    read_only,
    example(query = "tent", max_price = 2500),
    example(query = "lamp", tags = ["outdoor", "led"], ratio = 1, limit = 5, initial = "L"),
    example(query = "tent", filter = 3),
    example = r#"{"query": "tent", "max_price": null, "filter": {"brand": "Acme"}}"#
)]
fn search_products(
    /// Words to search for, e.g. "tent".
    #[arg(min_length = 1)]
    query: String,
    /// Highest price in cents, e.g. 2500.
    #[arg(minimum = 1)]
    max_price: Option<u32>,
    /// Tags to match, e.g. ["outdoor"].
    #[arg(max_items = 3, unique_items)]
    tags: Option<Vec<String>>,
    /// A weight between relevance and price, e.g. 0.5.
    ratio: Option<f64>,
    /// How many results to return, e.g. 10.
    #[arg(default = 10, maximum = 50)]
    limit: u32,
    /// The first letter of the brand, e.g. "A".
    initial: Option<char>,
    /// A filter on the brand, e.g. {"brand": "Acme"}.
    filter: Option<Filter>,
) -> Vec<String> {
    let _ = (max_price, tags, ratio, limit, initial, filter);
    vec![query]
}

fn main() {
    let tool = search_products::tool();
    // The macro cannot judge a user type: the third example is left to registration.
    assert_eq!(tool.spec().examples.len(), 4);
    assert_eq!(
        tool.spec().examples[3],
        serde_json::json!({"query": "tent", "max_price": null, "filter": {"brand": "Acme"}})
    );
    assert_eq!(
        tool.spec().examples[1],
        serde_json::json!({"query": "lamp", "tags": ["outdoor", "led"], "ratio": 1, "limit": 5, "initial": "L"})
    );
    let err = Toolbox::builder().tool(tool).build().err().expect("the third example is refused");
    let text = err.to_string();
    assert!(text.contains("example 3"), "{text}");
    assert!(text.contains("filter"), "{text}");
}
