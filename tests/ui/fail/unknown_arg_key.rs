use toolsmith::tool;

/// Searches notes. Returns matching note titles.
#[tool(read_only)]
fn search_notes(
    /// Words to look for, e.g. "budget".
    #[arg(max_lenght = 100)]
    query: String,
) -> Vec<String> {
    vec![query]
}

fn main() {}
