//! A tool whose parameters come from a Rust type, and a call parsed into that type.
//!
//! Run with `cargo run -p ag-ui-builders --example typed_tool --features schemars`.

use ag_ui_builders::schemars::JsonSchema;
use ag_ui_builders::{BuildError, TypedTool, tool_call};

/// Arguments of `get_weather`.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[schemars(crate = "ag_ui_builders::schemars")]
#[allow(dead_code, reason = "fields are shown through Debug")]
struct WeatherArgs {
    /// City name.
    city: String,
    /// Temperature unit.
    unit: Option<Unit>,
    /// Days ahead (0 for today).
    days: u8,
}

/// A temperature unit.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[schemars(crate = "ag_ui_builders::schemars")]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The clean schema: no `title`, no `format: "uint8"`, as LLM tool schemas want it.
    let weather =
        TypedTool::<WeatherArgs>::new("get_weather", "Get the current weather for a city")
            .with_clean_schema();
    println!("{}", serde_json::to_string_pretty(weather.tool())?);

    let good = tool_call(
        "call_1",
        "get_weather",
        r#"{"city":"Amsterdam","unit":"celsius","days":0}"#,
    );
    println!("parsed: {:?}", weather.parse(&good)?);

    let bad = tool_call(
        "call_2",
        "get_weather",
        r#"{"city":"Amsterdam","unit":"kelvin","days":0}"#,
    );
    match weather.parse(&bad) {
        Err(err @ BuildError::Json { .. }) => println!("rejected: {err}"),
        other => return Err(format!("expected an argument error, got {other:?}").into()),
    }
    Ok(())
}
