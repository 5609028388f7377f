//! Integration tests: `RigAgent` on rig's OpenAI chat-completions model against a local
//! OpenAI-compatible provider, served by the ag-ui-server axum router and run by the
//! workspace's client, all over loopback. The provider and the scenarios are those of
//! `ag-ui-openai`'s tests (the same wire).
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::exhaustive_structs,
    clippy::exhaustive_enums,
    unreachable_pub,
    missing_docs,
    dead_code
)]

#[path = "../../../ag-ui-openai/tests/it/provider.rs"]
mod provider;
#[path = "../../../ag-ui-openai/tests/it/scenarios.rs"]
mod scenarios;

use ag_ui_rig::RigAgent;
use ag_ui_rig::rig_core::providers::openai::OpenAIConfig;
use serde_json::json;

use provider::{MODEL, Provider, backend_tools};

/// The agent under test: rig's OpenAI chat model pointed at the local provider by its base
/// URL.
fn agent(provider: &Provider, max_steps: usize) -> RigAgent {
    let model = OpenAIConfig::new("sk-test")
        .with_base_url(provider.base_url())
        .client()
        .chat(MODEL);
    RigAgent::new(model)
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
    scenarios::parallel_tool_calls(agent).await;
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

/// The request body the provider receives (through rig's chat wire) for a history with
/// every message kind; what rig's messages cannot hold is reported with its JSON Pointer.
#[tokio::test]
async fn request_body_for_every_message_kind() {
    let (body, customs) = scenarios::history_request(agent).await;
    let text = |t: &str| json!({"role": "system", "content": [{"type": "text", "text": t}]});
    assert_eq!(
        body["messages"],
        json!([
            text("Context from the application:\n- user's city: Amsterdam"),
            text("The application's shared state (JSON): {\"todos\":[\"buy milk\"]}"),
            text("Be brief."),
            text("You are a helpful assistant."),
            // rig joins the two user messages that follow each other into one.
            {"role": "user", "content": [
                {"type": "text", "text": "Hi"},
                {"type": "text", "text": "What is in these?"},
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "auto"}},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"}},
                {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "document.pdf"}}
            ]},
            {"role": "assistant", "content": "Let me look.", "tool_calls": [
                {"type": "function", "id": "call_h",
                 "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_h", "content": "{\"temperature\":3}"},
            {"role": "assistant", "content": "A cat, and it is 3 °C in Oslo."}
        ])
    );
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get_weather", "confirm"]);
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
            "/messages/2/name",
            "/messages/3/content/5",
            "/messages/4",
            "/messages/5/encryptedValue",
        ]
    );
}

/// A rig tool runs in the server like any backend tool: its result is emitted and given to
/// the model in the next call.
#[tokio::test]
async fn rig_tool_runs_in_the_server() {
    use provider::{Reply, Served, call_start, drain, finish, of_type, role, text};

    #[derive(serde::Deserialize)]
    struct AddArgs {
        a: i64,
        b: i64,
    }
    struct Add;
    impl ag_ui_rig::rig_core::tool::Tool for Add {
        const NAME: &'static str = "add";
        type Args = AddArgs;
        type Output = i64;
        type Error = std::io::Error;
        fn description(&self) -> String {
            "Add two integers".to_owned()
        }
        fn parameters(&self) -> serde_json::Value {
            json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]})
        }
        async fn call(
            &self,
            _context: &mut ag_ui_rig::rig_core::tool::ToolContext,
            args: AddArgs,
        ) -> Result<i64, std::io::Error> {
            Ok(args.a + args.b)
        }
    }

    let provider = Provider::start(vec![
        Reply::stream(vec![
            role(),
            call_start(0, "call_add", "add", "{\"a\":2,\"b\":40}"),
            finish("tool_calls"),
        ]),
        Reply::stream(vec![role(), text("42"), finish("stop")]),
    ])
    .await;
    let model = OpenAIConfig::new("sk-test")
        .with_base_url(provider.base_url())
        .client()
        .chat(MODEL);
    let served = Served::start(RigAgent::new(model).rig_tool(Add)).await;
    let mut client = served.client("t-rig-tool");
    client.add_user_message("2 + 40?");
    let (events, end) = drain(client.run(ag_ui_client::RunOptions::new())).await;
    assert!(end.is_ok());
    let results = of_type(&events, "TOOL_CALL_RESULT");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["content"], "42");
    let sent = provider.requests();
    assert_eq!(sent[0]["tools"][0]["function"]["name"], "add");
    let tool = sent[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(tool["role"], "tool");
    assert_eq!(tool["content"], "42");
}
