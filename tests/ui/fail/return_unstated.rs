#![deny(deprecated)]
use serde::Serialize;
use toolsmith::tool;

/// One day of the forecast.
#[derive(Serialize, schemars::JsonSchema)]
struct Forecast {
    /// Highest temperature of the day, in °C.
    high: f64,
}

/// Watches the sky over a city, e.g. for a trip. Use it before planning outdoor work.
#[tool(read_only)]
fn get_forecast(
    /// City name, e.g. "Bergen".
    city: String,
) -> Vec<Forecast> {
    let _ = city;
    Vec::new()
}

/// Weather words for a city, e.g. for a greeting. Use it when a greeting needs the weather.
#[tool(read_only)]
fn describe_weather(
    /// City name, e.g. "Bergen".
    city: String,
) -> Result<String, toolsmith::ToolError> {
    Ok(city)
}

fn main() {}
