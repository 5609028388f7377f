//! A tool whose parameters come from a Rust type, and a call parsed into that type.
//!
//! Run with `cargo run -p ag-ui-builders --example typed_tool --features schemars`.

use ag_ui_builders::{Error, TypedTool, tool_call};

/// Arguments of `get_weather`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code, reason = "fields are shown through Debug")]
struct WeatherArgs {
    /// City name.
    city: String,
    /// Temperature unit.
    unit: Option<Unit>,
}

/// A temperature unit.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let weather =
        TypedTool::<WeatherArgs>::new("get_weather", "Get the current weather for a city");
    println!("{}", serde_json::to_string_pretty(weather.tool())?);

    let good = tool_call(
        "call_1",
        "get_weather",
        r#"{"city":"Amsterdam","unit":"celsius"}"#,
    );
    println!("parsed: {:?}", weather.parse(&good)?);

    let bad = tool_call(
        "call_2",
        "get_weather",
        r#"{"city":"Amsterdam","unit":"kelvin"}"#,
    );
    match weather.parse(&bad) {
        Err(err @ Error::Json { .. }) => println!("rejected: {err}"),
        other => return Err(format!("expected an argument error, got {other:?}").into()),
    }
    Ok(())
}
