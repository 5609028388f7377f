//! Typed tools (feature `schemars`).

use ag_ui_builders::{BuildError, TypedTool, parameters_schema, tool_call};
use serde_json::json;

use crate::support::exact;

/// Arguments of `get_weather`.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct WeatherArgs {
    /// City name.
    city: String,
    /// Days ahead.
    days: Option<u8>,
    /// Where to look.
    at: Option<Place>,
}

/// A place.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Place {
    /// Coordinates.
    coords: Vec<f64>,
}

#[test]
fn the_schema_comes_from_the_type() {
    let tool = TypedTool::<WeatherArgs>::new("get_weather", "Get the weather");
    let params = tool.tool().parameters.clone().unwrap();
    assert_eq!(params["type"], "object");
    assert_eq!(params["required"], json!(["city"]));
    assert_eq!(params["properties"]["city"]["description"], "City name.");
    assert!(params.get("$schema").is_none());
    assert!(
        params.get("$defs").is_none(),
        "sub-schemas are inlined: {params}"
    );
    assert_eq!(
        params["properties"]["at"]["properties"]["coords"]["type"],
        "array"
    );
    assert_eq!(parameters_schema::<WeatherArgs>(), params);
    exact("Tool", tool.tool()).unwrap();
}

#[test]
fn arguments_parse_into_the_type_with_pointed_errors() {
    let tool = TypedTool::<WeatherArgs>::new("get_weather", "Get the weather");
    let ok = tool
        .parse(&tool_call(
            "c1",
            "get_weather",
            r#"{"city":"Oslo","at":{"coords":[59.9,10.7]}}"#,
        ))
        .unwrap();
    assert_eq!(
        ok,
        WeatherArgs {
            city: "Oslo".into(),
            days: None,
            at: Some(Place {
                coords: vec![59.9, 10.7]
            })
        }
    );

    let err = tool
        .parse(&tool_call(
            "c2",
            "get_weather",
            r#"{"city":"Oslo","at":{"coords":[59.9,"north"]}}"#,
        ))
        .unwrap_err();
    assert_eq!(err.pointer(), Some("/at/coords/1"));
    let err = tool
        .parse_arguments(r#"{"city":"Oslo","days":300}"#)
        .unwrap_err();
    assert_eq!(err.pointer(), Some("/days"));
    let err = tool.parse_arguments(r#"{"days":1}"#).unwrap_err();
    assert_eq!(err.pointer(), Some(""));
    assert!(err.to_string().contains("missing field `city`"), "{err}");
    let err = tool
        .parse_arguments(r#"{"city":"Oslo"} trailing"#)
        .unwrap_err();
    assert!(matches!(err, BuildError::Json { .. }));
    let err = tool.parse(&tool_call("c3", "get_time", "{}")).unwrap_err();
    assert_eq!(
        err,
        BuildError::WrongTool {
            tool_call_id: "c3".into(),
            expected: "get_weather".into(),
            found: "get_time".into()
        }
    );
    let none = TypedTool::<std::collections::BTreeMap<String, u8>>::new("noop", "No arguments");
    assert!(
        none.parse_function(&ag_ui_core::FunctionCall::new("noop", ""))
            .unwrap()
            .is_empty()
    );
}

/// Arguments declared through the crate's own `schemars` (no dependency of the user's).
#[derive(Debug, serde::Deserialize, ag_ui_builders::schemars::JsonSchema)]
#[schemars(crate = "ag_ui_builders::schemars")]
#[allow(dead_code, reason = "only the schema is used")]
struct Search {
    /// The title to look for.
    title: String,
    /// How many results.
    limit: u32,
    /// Since when.
    since: Option<Since>,
}

/// A lower bound.
#[derive(Debug, serde::Deserialize, ag_ui_builders::schemars::JsonSchema)]
#[schemars(crate = "ag_ui_builders::schemars")]
#[allow(dead_code, reason = "only the schema is used")]
struct Since {
    /// Days ago.
    days: u16,
    /// Ratio.
    weight: f64,
}

#[test]
fn the_clean_schema_has_no_title_or_numeric_format() {
    let faithful = parameters_schema::<Search>();
    assert_eq!(faithful["title"], "Search");
    assert_eq!(faithful["properties"]["limit"]["format"], "uint32");

    let clean = ag_ui_builders::clean_parameters_schema::<Search>();
    let text = clean.to_string();
    assert!(!text.contains("uint") && !text.contains("double"), "{text}");
    assert!(clean.get("title").is_none());
    // A property named `title` is not a keyword.
    assert_eq!(clean["properties"]["title"]["type"], "string");
    assert_eq!(clean["properties"]["limit"]["minimum"], 0);
    let since = &clean["properties"]["since"];
    let nested = since
        .get("anyOf")
        .and_then(|a| a.as_array())
        .and_then(|a| a.iter().find(|s| s.get("properties").is_some()))
        .unwrap_or(since);
    assert_eq!(
        nested["properties"]["days"],
        json!({"type": "integer", "minimum": 0, "maximum": 65535, "description": "Days ago."})
    );
    assert!(nested.get("title").is_none(), "{nested}");

    let tool = TypedTool::<Search>::new("search", "Search").with_clean_schema();
    assert_eq!(tool.tool().parameters.as_ref(), Some(&clean));
    exact("Tool", tool.tool()).unwrap();
}
