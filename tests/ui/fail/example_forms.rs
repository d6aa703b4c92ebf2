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

fn main() {}
