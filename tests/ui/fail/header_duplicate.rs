use toolsmith::tool;

/// Copies rows between regions. Returns the count.
#[tool(read_only)]
fn copy_rows(
    /// Source region, e.g. "eu".
    #[arg(header = "Region")]
    from: String,
    /// Target region, e.g. "us".
    #[arg(header = "region")]
    to: String,
) -> usize {
    from.len() + to.len()
}

fn main() {}
