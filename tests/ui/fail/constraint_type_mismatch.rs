use toolsmith::tool;

/// Lists recent orders. Returns up to `count` orders.
#[tool(read_only)]
fn list_orders(
    /// How many orders to list, e.g. 10.
    #[arg(max_length = 50)]
    count: u32,
    /// Customer name, e.g. "Kari".
    #[arg(minimum = 1)]
    customer: String,
    /// Order tags, e.g. ["gift"].
    #[arg(pattern = "^[a-z]+$")]
    tags: Vec<String>,
) -> Vec<String> {
    let _ = (count, customer);
    tags
}

fn main() {}
