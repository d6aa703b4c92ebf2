use toolsmith::tool;

/// Runs one query in a region. Returns the rows.
#[tool(
    read_only,
    icon = "https://example.com/query.svg",
    icon(src = "https://example.com/query-48.png", mime_type = "image/png", sizes = ["48x48", "96x96"], theme = "dark"),
    icon(src = "data:image/png;base64,iVBORw0KGgo=", mime_type = "image/png", theme = "light")
)]
fn run_query(
    /// Region to run in, e.g. "eu-west1".
    #[arg(header = "Region")]
    region: String,
    /// Shard number, e.g. 3.
    #[arg(header = "Shard", maximum = 1000)]
    shard: Option<u32>,
    /// Row id, e.g. 7.
    #[arg(header = "Row", minimum = 0, maximum = 9007199254740991)]
    row: u64,
    /// Whether to include deleted rows, e.g. false.
    #[arg(header = "X-Deleted")]
    deleted: bool,
    /// The query, e.g. "select 1".
    query: String,
) -> Vec<String> {
    let _ = (shard, row, deleted);
    vec![region, query]
}

fn main() {
    let spec = run_query::tool().spec().clone();
    assert_eq!(spec.icons.len(), 3);
    assert_eq!(spec.input_schema["properties"]["region"]["x-mcp-header"], "Region");
}
