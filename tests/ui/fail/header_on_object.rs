use toolsmith::tool;

/// Where to run, e.g. {"region": "eu"}.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Place {
    /// Region, e.g. "eu".
    region: String,
}

/// Runs one query at a place. Returns the rows.
#[tool(read_only)]
fn run_at(
    /// Where to run, e.g. {"region": "eu"}.
    #[arg(header = "Place")]
    place: Place,
) -> Vec<String> {
    vec![place.region]
}

/// Runs one query at an optional place. Returns the rows.
#[tool(read_only)]
fn run_maybe_at(
    /// Where to run, e.g. {"region": "eu"}.
    #[arg(header = "Place")]
    place: Option<Place>,
) -> Vec<String> {
    place.map(|p| vec![p.region]).unwrap_or_default()
}

/// Tags rows. Returns the count.
#[tool(read_only)]
fn tag_rows(
    /// Tags, e.g. ["a"].
    #[arg(header = "Tags")]
    tags: Vec<String>,
) -> usize {
    tags.len()
}

/// Scales rows. Returns the factor.
#[tool(read_only)]
fn scale_rows(
    /// Factor, e.g. 1.5.
    #[arg(header = "Factor")]
    factor: f64,
) -> f64 {
    factor
}

/// Reads one row by id. Returns it.
#[tool(read_only)]
fn read_row(
    /// Row id, e.g. 7.
    #[arg(header = "Row")]
    id: u64,
) -> u64 {
    id
}

/// Reads one account. Returns it.
#[tool(read_only)]
fn read_account(
    /// API key of the account, e.g. "k-1".
    #[arg(header = "Key")]
    api_key: String,
) -> String {
    api_key
}

fn main() {}
