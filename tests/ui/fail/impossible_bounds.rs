use toolsmith::tool;

/// Picks names. Returns the chosen names.
#[tool(read_only)]
fn pick_names(
    /// Candidate names, e.g. ["Ada", "Grace"].
    #[arg(min_items = 5, max_items = 2)]
    names: Vec<String>,
    /// How many to pick, e.g. 1.
    #[arg(minimum = 10, maximum = 1)]
    count: u32,
    /// A prefix to match, e.g. "A".
    #[arg(min_length = 3, max_length = 1)]
    prefix: String,
) -> Vec<String> {
    let _ = (count, prefix);
    names
}

fn main() {}
