#![deny(deprecated)]
use toolsmith::tool;

/// The weather for a city. Do not use this for forecasts.
#[tool(read_only)]
fn weather(
    /// City name, e.g. "Bergen".
    city: String,
) -> String {
    city
}

fn main() {}
