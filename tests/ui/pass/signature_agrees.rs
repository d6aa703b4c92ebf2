#![deny(deprecated)]
//! Descriptions that agree with the signature: the returned type named or the result stated,
//! and each parameter's text saying what is declared of it.
use serde::Serialize;
use toolsmith::{tool, ToolError};

/// One day of the forecast.
#[derive(Serialize, schemars::JsonSchema)]
struct Forecast {
    /// Highest temperature of the day, in °C.
    high: f64,
}

/// Daily forecasts for a city, e.g. for a trip. Use it before planning outdoor work.
#[tool(read_only)]
fn get_forecast(
    /// City name, e.g. "Bergen". Required.
    city: String,
    /// How many days to cover, e.g. 3. Defaults to 7, at most 14.
    #[arg(default = 7, minimum = 1, maximum = 14)]
    days: u32,
    /// Unit of temperature, e.g. "celsius". Optional.
    unit: Option<String>,
) -> Result<Vec<Forecast>, ToolError> {
    let _ = (city, days, unit);
    Ok(Vec::new())
}

/// Names a city's weather in a few words, e.g. "mild and wet". Use it for a greeting.
#[tool(read_only, allow(return_unstated, reason = "the words are the whole answer"))]
fn describe_weather(
    /// City name, e.g. "Bergen", up to 40 characters.
    #[arg(max_length = 40)]
    city: String,
) -> String {
    city
}

fn main() {}
