//! The weather conversation: built fluently, sent as a run input, printed as JSON.
//!
//! Run with `cargo run -p ag-ui-builders --example conversation`.

use ag_ui_builders::{Conversation, ObjectSchema, RunInputBuilder, SequentialIds, tool};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let conversation = Conversation::with_ids(SequentialIds::new())
        .system("You are a helpful assistant.")
        .user("What's the weather in Amsterdam?")
        .assistant_tool_call("get_weather", json!({"city": "Amsterdam"}));
    // The call id was minted; answer it by id.
    let call = conversation
        .last_tool_call_id()
        .cloned()
        .ok_or("the assistant made no call")?;
    let conversation = conversation
        .tool_result(call, r#"{"temperature":14}"#)?
        .assistant("It is 14 °C in Amsterdam.");

    let weather = tool(
        "get_weather",
        "Get the current weather for a city",
        ObjectSchema::new().required_property(
            "city",
            json!({"type": "string", "description": "City name"}),
        ),
    );
    let input = RunInputBuilder::new("thread-1", "run-1")
        .conversation(conversation)
        .tool(weather)
        .build();
    println!("{}", serde_json::to_string_pretty(&input)?);
    Ok(())
}
