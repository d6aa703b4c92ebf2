use toolsmith::tool;

/// Searches the catalog. Returns matching products.
#[tool(read_only, example = "tent")]
fn search_a(
    /// Words to search for, e.g. "tent".
    query: String,
) -> String {
    query
}

/// Searches the catalog. Returns matching products.
#[tool(read_only, example(query = "tent", query = "lamp"))]
fn search_b(
    /// Words to search for, e.g. "tent".
    query: String,
) -> String {
    query
}

/// Searches the catalog. Returns matching products.
#[tool(read_only, example(query = String::from("tent")))]
fn search_c(
    /// Words to search for, e.g. "tent".
    query: String,
) -> String {
    query
}

/// Searches the catalog. Returns matching products.
#[tool(read_only, example(query = -"tent"))]
fn search_d(
    /// Words to search for, e.g. "tent".
    query: String,
) -> String {
    query
}

/// Searches the catalog. Returns matching products.
#[tool(read_only, example = "[1, 2]")]
fn search_e(
    /// Words to search for, e.g. "tent".
    query: String,
) -> String {
    query
}

/// Searches the catalog. Returns matching products.
#[tool(read_only, example = r#"{"query": "tent", "query": "lamp"}"#)]
fn search_f(
    /// Words to search for, e.g. "tent".
    query: String,
) -> String {
    query
}

/// Searches the catalog. Returns matching products.
#[tool(read_only, example = r#"{"query": "tent",}"#)]
fn search_g(
    /// Words to search for, e.g. "tent".
    query: String,
) -> String {
    query
}

/// Searches the catalog. Returns matching products.
#[tool(read_only, example = r#"{"query": null, "limit": "ten"}"#)]
fn search_h(
    /// Words to search for, e.g. "tent".
    query: String,
    /// How many results to return, e.g. 10.
    limit: Option<u32>,
) -> String {
    let _ = limit;
    query
}

fn main() {}
