use toolsmith::tool;

/// Runs one query in a region. Returns the rows.
#[tool(read_only)]
fn run_query(
    /// Region to run in, e.g. "eu-west1".
    #[arg(header = "Cloud Region")]
    region: String,
    /// The query, e.g. "select 1".
    query: String,
) -> Vec<String> {
    vec![region, query]
}

/// Reads one shard. Returns its rows.
#[tool(read_only)]
fn read_shard(
    /// Shard name, e.g. "s1".
    #[arg(header = "Shard\r\nX-Injected: 1")]
    shard: String,
) -> Vec<String> {
    vec![shard]
}

/// Reads one shard. Returns its rows.
#[tool(read_only)]
fn read_shard_named(
    /// Shard name, e.g. "s1".
    #[arg(header = "")]
    shard: String,
) -> Vec<String> {
    vec![shard]
}

fn main() {}
