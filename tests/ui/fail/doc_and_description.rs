use toolsmith::tool;

/// Finds a city. Returns its country.
#[tool(read_only)]
fn find_city(
    /// City name, e.g. "Bergen".
    #[arg(description = "The city's name.")]
    city: String,
) -> String {
    city
}

fn main() {}
