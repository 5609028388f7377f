//! Integration tests: the model-agent suite (`ag_ui_testkit::suite`) run on `RigModel`
//! through rig's OpenAI chat-completions model against the test kit's local provider, and
//! what is particular to rig.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::exhaustive_structs,
    clippy::exhaustive_enums,
    unreachable_pub,
    missing_docs,
    dead_code
)]

use ag_ui_rig::ag_ui_agent::BackendTools;
use ag_ui_rig::rig_core::providers::openai::OpenAIConfig;
use ag_ui_rig::{RigAgent, RigModel, RigTools};
use ag_ui_testkit::provider::{MODEL, Provider};
use ag_ui_testkit::suite::{Served, agent, drain, of_type, scenarios};
use serde_json::json;

/// The model under test: rig's OpenAI chat model pointed at the local provider by its
/// base URL.
fn model(provider: &Provider) -> RigModel {
    RigModel::new(
        OpenAIConfig::new("sk-test")
            .with_base_url(provider.base_url())
            .client()
            .chat(MODEL),
    )
}

mod suite {
    ag_ui_testkit::model_agent_suite!(super::model);
}

/// The request body the provider receives (through rig's chat wire) for a history with
/// every message kind; what rig's messages cannot hold is reported with its JSON Pointer.
#[tokio::test]
async fn request_body_for_every_message_kind() {
    let (body, customs) = scenarios::history_request(|p: &Provider, n| agent(model(p), n)).await;
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
    assert_eq!(
        names,
        ["get_weather", "add_todo", "whoami", "wait", "confirm"]
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
    use ag_ui_testkit::provider::{Reply, call_start, finish, role, text_delta};

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
        Reply::stream(vec![role(), text_delta("42"), finish("stop")]),
    ])
    .await;
    let agent = RigAgent::new(model(&provider)).tools(BackendTools::new().rig_tool(Add));
    let served = Served::start(agent).await;
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

/// `RigModel::configure` changes every request the run sends (here: each of the two model
/// calls of a backend tool loop).
#[tokio::test]
async fn configure_changes_every_request() {
    use ag_ui_testkit::provider::{Reply, call_start, finish, role, text_delta};
    let provider = Provider::start(vec![
        Reply::stream(vec![
            role(),
            call_start(0, "call_1", "get_weather", "{\"city\":\"Oslo\"}"),
            finish("tool_calls"),
        ]),
        Reply::stream(vec![role(), text_delta("3 °C."), finish("stop")]),
    ])
    .await;
    let configured = model(&provider).configure(|mut request| {
        request.temperature = Some(0.25);
        request
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
    }
}
