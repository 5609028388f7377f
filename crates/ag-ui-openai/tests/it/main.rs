//! Integration tests: the model-agent suite (`ag_ui_testkit::suite`) run on `OpenAiModel`
//! through the real `async-openai` client against the test kit's local provider, and what
//! is particular to chat completions through async-openai.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::exhaustive_structs,
    clippy::exhaustive_enums,
    unreachable_pub,
    missing_docs,
    dead_code
)]

use ag_ui_openai::OpenAiModel;
use ag_ui_openai::async_openai::Client;
use ag_ui_openai::async_openai::config::OpenAIConfig;
use ag_ui_testkit::provider::{self, MODEL, Provider};
use ag_ui_testkit::suite::{Served, agent, confirm_tool, drain, of_type, scenarios};
use serde_json::{Value, json};

/// The model under test: async-openai pointed at the local provider by its base URL.
fn model(provider: &Provider) -> OpenAiModel {
    let config = OpenAIConfig::new()
        .with_api_base(provider.base_url())
        .with_api_key("sk-test");
    OpenAiModel::new(Client::with_config(config), MODEL)
}

mod example;
mod observability;

mod suite {
    ag_ui_testkit::model_agent_suite!(super::model);
}

/// The provider's call ids are kept as the AG-UI call ids.
#[tokio::test]
async fn provider_call_ids_are_kept() {
    let events = scenarios::parallel_tool_calls(|p: &Provider, n| agent(model(p), n)).await;
    let ids: Vec<&Value> = of_type(&events, "TOOL_CALL_START")
        .iter()
        .map(|e| &e["toolCallId"])
        .collect();
    assert_eq!(ids, [&json!("call_a"), &json!("call_b")]);
}

/// Servers that number every parallel call 0 tell the calls apart by their ids.
#[tokio::test]
async fn parallel_calls_all_at_index_zero() {
    use provider::{Reply, call_start, finish, role};
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        call_start(0, "call_x", "confirm", "{\"question\":\"X?\"}"),
        call_start(0, "call_y", "confirm", "{\"question\":\"Y?\"}"),
        finish("tool_calls"),
    ])])
    .await;
    let served = Served::start(agent(model(&provider), 8)).await;
    let mut client = served.client("t-index-zero");
    client.add_user_message("X and Y");
    let (events, _) = drain(client.run(ag_ui_client::RunOptions::new().tool(confirm_tool()))).await;
    assert_eq!(
        events.last().unwrap()["outcome"]["pendingToolCallIds"],
        json!(["call_x", "call_y"])
    );
    let args: Vec<&Value> = of_type(&events, "TOOL_CALL_ARGS")
        .iter()
        .map(|e| &e["delta"])
        .collect();
    assert_eq!(
        args,
        [
            &json!("{\"question\":\"X?\"}"),
            &json!("{\"question\":\"Y?\"}")
        ]
    );
}

/// The request body the provider receives for a history with every message kind: what
/// chat completions can take is mapped, in order; what it cannot is left out and reported
/// in a `CUSTOM` event with its JSON Pointer.
#[tokio::test]
async fn request_body_for_every_message_kind() {
    let (body, customs) = scenarios::history_request(|p: &Provider, n| agent(model(p), n)).await;
    let tools = body["tools"].clone();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "Context from the application:\n- user's city: Amsterdam"},
            {"role": "system", "content": "The application's shared state (JSON): {\"todos\":[\"buy milk\"]}"},
            {"role": "developer", "content": "Be brief."},
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Hi", "name": "ada"},
            {"role": "user", "content": [
                {"type": "text", "text": "What is in these?"},
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "document"}}
            ]},
            {"role": "assistant", "content": "Let me look.", "tool_calls": [
                {"id": "call_h", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}
            ]},
            {"role": "tool", "content": "{\"temperature\":3}", "tool_call_id": "call_h"},
            {"role": "assistant", "content": "A cat, and it is 3 °C in Oslo."}
        ])
    );
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["get_weather", "add_todo", "whoami", "wait", "confirm"]
    );
    assert_eq!(
        [&tools[0], &tools[4]],
        [
            &json!({"type": "function", "function": {
                "name": "get_weather", "description": "The weather in a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city."}}, "required": ["city"], "description": "Arguments of the backend tool `get_weather`."}}}),
            &json!({"type": "function", "function": {
                "name": "confirm", "description": "Ask the user to confirm an action",
                "parameters": {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}}})
        ]
    );
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(customs.len(), 1);
    assert_eq!(customs[0]["name"], "unmapped_input");
    let pointers: Vec<&str> = customs[0]["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(
        pointers,
        [
            "/messages/3/content/5",
            "/messages/4",
            "/messages/5/encryptedValue",
        ]
    );
}

/// `OpenAiModel::configure` changes every request the run sends (here: each of the two
/// model calls of a backend tool loop).
#[tokio::test]
async fn configure_changes_every_request() {
    use provider::{Reply, call_start, finish, role, text_delta};
    let provider = Provider::start(vec![
        Reply::stream(vec![
            role(),
            call_start(0, "call_1", "get_weather", "{\"city\":\"Oslo\"}"),
            finish("tool_calls"),
        ]),
        Reply::stream(vec![role(), text_delta("3 °C."), finish("stop")]),
    ])
    .await;
    let configured = model(&provider).configure(|request| {
        request.temperature = Some(0.25);
        request.max_completion_tokens = Some(64);
    });
    let served = Served::start(agent(configured, 8)).await;
    let mut client = served.client("t-configure");
    client.add_user_message("Weather in Oslo?");
    let (events, end) = drain(client.run(ag_ui_client::RunOptions::new())).await;
    assert!(end.is_ok(), "{:?}", end.error);
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    let sent = provider.requests();
    assert_eq!(sent.len(), 2);
    for request in &sent {
        assert_eq!(request["temperature"], json!(0.25));
        assert_eq!(request["max_completion_tokens"], json!(64));
    }
}
