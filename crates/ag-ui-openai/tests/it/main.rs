//! Integration tests: `OpenAiAgent` on the real `async-openai` client against a local
//! OpenAI-compatible provider, served by the ag-ui-server axum router and run by the
//! workspace's client, all over loopback.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::exhaustive_structs,
    clippy::exhaustive_enums,
    unreachable_pub,
    missing_docs,
    dead_code
)]

mod provider;
mod scenarios;

use ag_ui_openai::OpenAiAgent;
use ag_ui_openai::async_openai::Client;
use ag_ui_openai::async_openai::config::OpenAIConfig;
use serde_json::{Value, json};

use provider::{MODEL, Provider, backend_tools};

/// The agent under test: async-openai pointed at the local provider by its base URL.
fn agent(provider: &Provider, max_steps: usize) -> OpenAiAgent {
    let config = OpenAIConfig::new()
        .with_api_base(provider.base_url())
        .with_api_key("sk-test");
    OpenAiAgent::new(Client::with_config(config), MODEL)
        .tools(backend_tools())
        .max_steps(max_steps)
        .state_in_prompt(true)
}

#[tokio::test]
async fn plain_text() {
    scenarios::plain_text(agent).await;
}

#[tokio::test]
async fn parallel_tool_calls_with_interleaved_arguments() {
    let events = scenarios::parallel_tool_calls(agent).await;
    // The provider's call ids are kept.
    let ids: Vec<&Value> = provider::of_type(&events, "TOOL_CALL_START")
        .iter()
        .map(|e| &e["toolCallId"])
        .collect();
    assert_eq!(ids, [&json!("call_a"), &json!("call_b")]);
}

#[tokio::test]
async fn frontend_tool_call_then_its_result_on_the_next_run() {
    scenarios::frontend_tool_then_result(agent).await;
}

#[tokio::test]
async fn backend_tool_loop_of_two_steps() {
    scenarios::backend_tool_loop(agent).await;
}

#[tokio::test]
async fn step_limit_ends_the_run() {
    scenarios::step_limit(agent).await;
}

#[tokio::test]
async fn usage_with_cached_and_reasoning_tokens() {
    scenarios::usage_details(agent).await;
}

#[tokio::test]
async fn reasoning_content() {
    scenarios::reasoning_is_streamed(agent).await;
}

/// Servers that number every parallel call 0 tell the calls apart by their ids.
#[tokio::test]
async fn parallel_calls_all_at_index_zero() {
    use provider::{Reply, Served, call_start, confirm_tool, drain, finish, role};
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        call_start(0, "call_x", "confirm", "{\"question\":\"X?\"}"),
        call_start(0, "call_y", "confirm", "{\"question\":\"Y?\"}"),
        finish("tool_calls"),
    ])])
    .await;
    let served = Served::start(agent(&provider, 8)).await;
    let mut client = served.client("t-index-zero");
    client.add_user_message("X and Y");
    let (events, _) = drain(client.run(ag_ui_client::RunOptions::new().tool(confirm_tool()))).await;
    assert_eq!(
        events.last().unwrap()["outcome"]["pendingToolCallIds"],
        json!(["call_x", "call_y"])
    );
    let args: Vec<&Value> = provider::of_type(&events, "TOOL_CALL_ARGS")
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

#[tokio::test]
async fn refusal() {
    scenarios::refusal_is_shown(agent).await;
}

#[tokio::test]
async fn finish_reason_length() {
    scenarios::length_ending(agent).await;
}

#[tokio::test]
async fn provider_error_in_the_middle() {
    scenarios::provider_error_mid_stream(agent).await;
}

#[tokio::test]
async fn provider_refuses_the_request() {
    scenarios::provider_refuses(agent).await;
}

#[tokio::test]
async fn stream_cut_without_done() {
    scenarios::stream_cut(agent).await;
}

/// A run cut before any argument of a tool call arrived, then a new message.
#[tokio::test]
async fn a_call_cut_with_empty_arguments_does_not_poison_the_thread() {
    scenarios::cut_in_a_tool_call_then_a_new_message(agent, "").await;
}

/// A run cut in the middle of a tool call's arguments, then a new message.
#[tokio::test]
async fn a_call_cut_with_partial_arguments_does_not_poison_the_thread() {
    scenarios::cut_in_a_tool_call_then_a_new_message(agent, "{\"city\":\"Os").await;
}

#[tokio::test]
async fn of_two_parallel_calls_one_answered_the_other_gets_the_note() {
    scenarios::parallel_calls_one_answered(agent).await;
}

#[tokio::test]
async fn a_frontend_call_never_answered_then_a_user_message() {
    scenarios::unanswered_frontend_call_then_a_user_message(agent).await;
}

#[tokio::test]
async fn each_repair_is_logged_at_warn() {
    scenarios::repairs_are_logged_at_warn(agent).await;
}

#[test]
fn the_local_provider_refuses_what_openai_refuses() {
    scenarios::the_provider_refuses_what_openai_refuses();
}

/// The request body the provider receives for a history with every message kind: what
/// chat completions can take is mapped, in order; what it cannot is left out and reported
/// in a `CUSTOM` event with its JSON Pointer.
#[tokio::test]
async fn request_body_for_every_message_kind() {
    let (body, customs) = scenarios::history_request(agent).await;
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
    assert_eq!(
        tools,
        json!([
            {"type": "function", "function": {
                "name": "get_weather", "description": "The weather in a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city."}}, "required": ["city"], "description": "Arguments of the backend tool `get_weather`."}}},
            {"type": "function", "function": {
                "name": "confirm", "description": "Ask the user to confirm an action",
                "parameters": {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}}}
        ])
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
