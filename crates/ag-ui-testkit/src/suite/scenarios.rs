//! The scenarios every model adapter must pass, end to end (see [the suite](super)). Each
//! scenario takes the agent to test from a factory `(provider, max_steps) -> agent`
//! ([`super::agent`] on the adapter's model).

use ag_ui_client::{RunOptions, RunOutcome};
use ag_ui_core::{Message, ToolMessage};
use ag_ui_server::Agent;
use serde_json::{Value, json};

use crate::provider::{
    MODEL, Provider, Reply, call_args, call_start, finish, reasoning, refusal, role, stream_error,
    text_delta, usage,
};
use crate::suite::{Served, confirm_tool, drain, of_type, types};

/// What makes the agent under test: `(provider, max_steps) -> agent`.
pub trait Factory<A>: Fn(&Provider, usize) -> A {}
impl<A, F: Fn(&Provider, usize) -> A> Factory<A> for F {}

fn message_json(messages: &[Message]) -> Vec<Value> {
    messages
        .iter()
        .map(|m| serde_json::to_value(m).unwrap())
        .collect()
}

/// The ids of the tool calls the run started, in order (an adapter may keep the
/// provider's ids or mint its own).
fn started(events: &[Value]) -> Vec<Value> {
    of_type(events, "TOOL_CALL_START")
        .iter()
        .map(|e| e["toolCallId"].clone())
        .collect()
}

fn finished(events: &[Value]) -> &Value {
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_FINISHED", "{events:#?}");
    last
}

fn errored<'a>(events: &'a [Value], code: &str) -> &'a Value {
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_ERROR", "{events:#?}");
    assert_eq!(last["code"], code, "{last}");
    last
}

/// Plain text: streamed as one text message; `RUN_FINISHED` carries the usage.
pub async fn plain_text<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        text_delta("Hello"),
        text_delta(", world"),
        finish("stop"),
        usage(12, 3, 0, 0),
    ])])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-plain");
    client.add_user_message("Hi");
    let (events, end) = drain(client.run(RunOptions::new())).await;
    assert!(end.is_ok(), "{:?}", end.error);
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(
        finished(&events)["usage"],
        json!([{"provider": "openai", "model": MODEL, "inputTokens": 12, "outputTokens": 3,
                "totalTokens": 15, "cachedInputTokens": 0, "reasoningTokens": 0}])
    );
    let messages = message_json(client.messages());
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], "Hello, world");
    let sent = &provider.requests()[0];
    assert_eq!(sent["model"], MODEL);
    assert_eq!(sent["stream"], true);
    assert_eq!(
        sent["messages"].as_array().unwrap().last().unwrap(),
        &json!({"role": "user", "content": "Hi"})
    );
}

/// Two parallel frontend tool calls whose argument deltas interleave, named by index
/// only after their first delta: each call gets exactly its own arguments, and the run
/// ends with both pending for the UI.
pub async fn parallel_tool_calls<A: Agent>(make: impl Factory<A>) -> Vec<Value> {
    let provider = Provider::start(vec![Reply::stream(parallel_calls())]).await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-parallel");
    client.add_user_message("Confirm both");
    let (events, end) = drain(client.run(RunOptions::new().tool(confirm_tool()))).await;
    assert!(end.is_ok(), "{:?}", end.error);
    let ids = started(&events);
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1]);
    assert_eq!(
        finished(&events)["outcome"],
        json!({"type": "success", "pendingToolCallIds": ids})
    );
    let messages = message_json(client.messages());
    let calls = &messages.last().unwrap()["toolCalls"];
    assert_eq!(
        calls,
        &json!([
            {"id": ids[0], "type": "function",
             "function": {"name": "confirm", "arguments": "{\"question\":\"Send the email?\"}"}},
            {"id": ids[1], "type": "function",
             "function": {"name": "confirm", "arguments": "{\"question\":\"Book the room?\"}"}}
        ])
    );
    match &end.outcome {
        Some(RunOutcome::Success {
            pending_tool_call_ids,
            ..
        }) => assert_eq!(pending_tool_call_ids.len(), 2),
        other => panic!("{other:?}"),
    }
    // The frontend tool was offered to the model as a function.
    let sent = &provider.requests()[0];
    let offered: Vec<&str> = sent["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"confirm") && offered.contains(&"get_weather"),
        "{offered:?}"
    );
    events
}

/// The chunks of two parallel `confirm` calls with interleaved argument deltas.
pub fn parallel_calls() -> Vec<Value> {
    vec![
        role(),
        call_start(0, "call_a", "confirm", ""),
        call_args(0, "{\"question\":"),
        call_start(1, "call_b", "confirm", "{\"quest"),
        call_args(0, "\"Send the email?\"}"),
        call_args(1, "ion\":\"Book the room?\"}"),
        finish("tool_calls"),
        usage(40, 30, 0, 0),
    ]
}

/// A frontend tool call ends the run; the UI's result comes with the next run, which the
/// provider receives as the assistant's tool call followed by the tool message.
pub async fn frontend_tool_then_result<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![
        Reply::stream(vec![
            role(),
            call_start(0, "call_c", "confirm", "{\"question\":\"Proceed?\"}"),
            finish("tool_calls"),
        ]),
        Reply::stream(vec![role(), text_delta("Done."), finish("stop")]),
    ])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-frontend");
    client.add_user_message("Go");
    let (events, _) = drain(client.run(RunOptions::new().tool(confirm_tool()))).await;
    let ids = started(&events);
    assert_eq!(
        finished(&events)["outcome"]["pendingToolCallIds"],
        json!(ids)
    );
    let id = ids[0].as_str().unwrap();
    client.add_message(ToolMessage::new("tool-1", "{\"confirmed\":true}", id));
    let (events, end) = drain(client.run(RunOptions::new().tool(confirm_tool()))).await;
    assert!(end.is_ok());
    finished(&events);
    let sent = provider.requests();
    assert_eq!(sent.len(), 2);
    let messages = sent[1]["messages"].as_array().unwrap();
    let n = messages.len();
    assert_eq!(messages[n - 2]["role"], "assistant");
    assert_eq!(
        messages[n - 2]["tool_calls"],
        json!([{"id": id, "type": "function",
                "function": {"name": "confirm", "arguments": "{\"question\":\"Proceed?\"}"}}])
    );
    assert_eq!(
        messages[n - 1],
        json!({"role": "tool", "content": "{\"confirmed\":true}", "tool_call_id": id})
    );
    let thread = message_json(client.messages());
    assert_eq!(thread.last().unwrap()["content"], "Done.");
}

fn weather_call(id: &str, city: &str) -> Reply {
    Reply::stream(vec![
        role(),
        call_start(0, id, "get_weather", "{\"city\":"),
        call_args(0, &format!("\"{city}\"}}")),
        finish("tool_calls"),
        usage(100, 10, 50, 0),
    ])
}

/// Two steps of the backend tool loop: the model calls `get_weather` twice, one call per
/// turn; each runs in the server (`TOOL_CALL_RESULT`) and the model is called again with
/// the result; then it answers. Usage adds up over the three calls.
pub async fn backend_tool_loop<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![
        weather_call("call_1", "Amsterdam"),
        weather_call("call_2", "Paris"),
        Reply::stream(vec![
            role(),
            text_delta("14 °C in both."),
            finish("stop"),
            usage(200, 8, 150, 0),
        ]),
    ])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-backend");
    client.add_user_message("Weather in Amsterdam and Paris?");
    let (events, end) = drain(client.run(RunOptions::new())).await;
    assert!(end.is_ok(), "{:?}", end.error);
    let results = of_type(&events, "TOOL_CALL_RESULT");
    let ids = started(&events);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["toolCallId"], ids[0]);
    assert_eq!(results[1]["toolCallId"], ids[1]);
    let content: Value = serde_json::from_str(results[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(content, json!({"city": "Amsterdam", "temperature": 14}));
    let last = finished(&events);
    assert!(
        last.get("outcome")
            .is_none_or(|o| o.get("pendingToolCallIds").is_none()),
        "{last}"
    );
    assert_eq!(
        last["usage"],
        json!([{"provider": "openai", "model": MODEL, "inputTokens": 400, "outputTokens": 28,
                "totalTokens": 428, "cachedInputTokens": 250, "reasoningTokens": 0}])
    );
    let sent = provider.requests();
    assert_eq!(sent.len(), 3);
    for (request, (id, city)) in sent[1..]
        .iter()
        .zip([(&ids[0], "Amsterdam"), (&ids[1], "Paris")])
    {
        let messages = request["messages"].as_array().unwrap();
        let tool = messages.iter().rev().find(|m| m["role"] == "tool").unwrap();
        assert_eq!(&tool["tool_call_id"], id);
        let result: Value = serde_json::from_str(tool["content"].as_str().unwrap()).unwrap();
        assert_eq!(result["city"], city);
    }
    // The thread holds the calls, their results and the answer.
    let thread = message_json(client.messages());
    let roles: Vec<&str> = thread.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant"
        ]
    );
}

/// The step limit: a model that keeps calling backend tools is stopped with `RUN_ERROR`.
pub async fn step_limit<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![
        weather_call("call_1", "Amsterdam"),
        weather_call("call_2", "Paris"),
    ])
    .await;
    let served = Served::start(make(&provider, 2)).await;
    let mut client = served.client("t-limit");
    client.add_user_message("Weather?");
    let (events, _) = drain(client.run(RunOptions::new())).await;
    errored(&events, "step_limit");
    assert_eq!(provider.requests().len(), 2);
}

/// Usage with cached and reasoning tokens, OpenAI style (both inside their counts).
pub async fn usage_details<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        text_delta("42"),
        finish("stop"),
        usage(1200, 340, 800, 200),
    ])])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-usage");
    client.add_user_message("Think");
    let (events, end) = drain(client.run(RunOptions::new())).await;
    let expected = json!([{"provider": "openai", "model": MODEL, "inputTokens": 1200,
        "outputTokens": 340, "totalTokens": 1540, "reasoningTokens": 200,
        "cachedInputTokens": 800}]);
    assert_eq!(finished(&events)["usage"], expected);
    assert_eq!(serde_json::to_value(&end.usage).unwrap(), expected);
}

/// Reasoning streamed beside the answer (`reasoning_content`, as OpenAI-compatible servers
/// send it) becomes a reasoning message before the text.
pub async fn reasoning_is_streamed<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        reasoning("The user wants "),
        reasoning("a number."),
        text_delta("42"),
        finish("stop"),
    ])])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-reasoning");
    client.add_user_message("A number?");
    let (events, _) = drain(client.run(RunOptions::new())).await;
    finished(&events);
    let kinds = types(&events);
    let reasoning_at = kinds
        .iter()
        .position(|t| *t == "REASONING_MESSAGE_CONTENT")
        .unwrap();
    let text_at = kinds
        .iter()
        .position(|t| *t == "TEXT_MESSAGE_CONTENT")
        .unwrap();
    assert!(reasoning_at < text_at, "{kinds:?}");
    let thread = message_json(client.messages());
    let roles: Vec<&str> = thread.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "reasoning", "assistant"]);
    assert_eq!(thread[1]["content"], "The user wants a number.");
    assert_eq!(thread[2]["content"], "42");
}

/// A refusal is the model's answer: shown as its text, and the run finishes.
pub async fn refusal_is_shown<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        refusal("I can't help"),
        refusal(" with that."),
        finish("stop"),
    ])])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-refusal");
    client.add_user_message("Something bad");
    let (events, _) = drain(client.run(RunOptions::new())).await;
    finished(&events);
    let thread = message_json(client.messages());
    assert_eq!(thread.last().unwrap()["content"], "I can't help with that.");
}

/// `finish_reason: length`: the text so far stays, the run ends with `RUN_ERROR` (code
/// `length`) carrying the usage.
pub async fn length_ending<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        text_delta("The answer is"),
        finish("length"),
        usage(10, 4, 0, 0),
    ])])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-length");
    client.add_user_message("Long answer");
    let (events, _) = drain(client.run(RunOptions::new())).await;
    let error = errored(&events, "length");
    assert_eq!(error["usage"][0]["outputTokens"], 4);
    assert_eq!(of_type(&events, "TEXT_MESSAGE_CONTENT").len(), 1);
}

/// A provider error in the middle of the stream: `RUN_ERROR` with a redacted message
/// (the provider's error type and code, none of its text).
pub async fn provider_error_mid_stream<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        text_delta("Let me"),
        stream_error(),
    ])])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-error");
    client.add_user_message("Hi");
    let (events, end) = drain(client.run(RunOptions::new())).await;
    assert!(
        end.is_ok(),
        "a RUN_ERROR is a well-ended stream: {:?}",
        end.error
    );
    let error = errored(&events, "provider_error");
    let message = error["message"].as_str().unwrap();
    assert!(
        !message.contains("sk-secret") && !message.contains("10.0.0.7"),
        "{message}"
    );
    assert_eq!(of_type(&events, "TEXT_MESSAGE_CONTENT").len(), 1);
}

/// The provider refuses the request (HTTP 401): `RUN_ERROR`, redacted.
pub async fn provider_refuses<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![Reply::Status(
        401,
        json!({"error": {"message": "Incorrect API key provided: sk-secret", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}),
    )])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-refused");
    client.add_user_message("Hi");
    let (events, _) = drain(client.run(RunOptions::new())).await;
    let error = errored(&events, "provider_error");
    assert!(
        !error["message"].as_str().unwrap().contains("sk-secret"),
        "{error}"
    );
}

/// A stream cut without `[DONE]` (and without a `finish_reason`): `RUN_ERROR`.
pub async fn stream_cut<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![Reply::cut(vec![role(), text_delta("Half an ans")])]).await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-cut");
    client.add_user_message("Hi");
    let (events, end) = drain(client.run(RunOptions::new())).await;
    assert!(end.is_ok());
    errored(&events, "provider_incomplete");
}

/// A run input holding every message kind AG-UI has, every content part, a tool call and
/// its result, context and state (see the adapter's own test for what the provider must
/// receive).
pub fn every_message_kind() -> Value {
    json!({
        "threadId": "t-history",
        "runId": "r-history",
        "state": {"todos": ["buy milk"]},
        "tools": [serde_json::to_value(confirm_tool()).unwrap()],
        "context": [{"description": "user's city", "value": "Amsterdam"}],
        "forwardedProps": {},
        "messages": [
            {"id": "m0", "role": "developer", "content": "Be brief."},
            {"id": "m1", "role": "system", "content": "You are a helpful assistant."},
            {"id": "m2", "role": "user", "content": "Hi", "name": "ada"},
            {"id": "m3", "role": "user", "content": [
                {"type": "text", "text": "What is in these?"},
                {"type": "image", "source": {"type": "url", "value": "https://example.com/cat.png"}},
                {"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"}},
                {"type": "audio", "source": {"type": "data", "value": "UklGRg==", "mimeType": "audio/wav"}},
                {"type": "document", "source": {"type": "data", "value": "JVBERi0=", "mimeType": "application/pdf"}},
                {"type": "video", "source": {"type": "url", "value": "https://example.com/clip.mp4"}}
            ]},
            {"id": "m4", "role": "reasoning", "content": "The user wants pictures described."},
            {"id": "m5", "role": "assistant", "content": "Let me look.", "encryptedValue": "gAAAA-opaque",
             "toolCalls": [{"id": "call_h", "type": "function",
                            "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]},
            {"id": "m6", "role": "tool", "content": "{\"temperature\":3}", "toolCallId": "call_h"},
            {"id": "m7", "role": "activity", "activityType": "progress", "content": {"done": 1}},
            {"id": "m8", "role": "assistant", "content": "A cat, and it is 3 °C in Oslo."}
        ]
    })
}

/// Runs [`every_message_kind`] through `make`'s agent and returns the request body the
/// provider received and the `CUSTOM` events of the run.
pub async fn history_request<A: Agent>(make: impl Factory<A>) -> (Value, Vec<Value>) {
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        text_delta("Ok"),
        finish("stop"),
    ])])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-history");
    let input = serde_json::from_value(every_message_kind()).unwrap();
    let (events, end) = drain(client.run_input(input)).await;
    assert!(end.is_ok(), "{:?}", end.error);
    finished(&events);
    let customs = of_type(&events, "CUSTOM").into_iter().cloned().collect();
    (provider.requests().remove(0), customs)
}

// ---------------------------------------------------------------- histories with unanswered calls

/// The text of a chat-completions message's content: the string, or its text parts joined
/// (async-openai sends a user message's text as a string, rig as parts).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// The conversation a request carries, without the system messages the agent puts first:
/// `(role, text, tool calls or the answered call id)`.
fn conversation(request: &Value) -> Vec<(String, String, Value)> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            let calls = if m["role"] == "tool" {
                m["tool_call_id"].clone()
            } else {
                m.get("tool_calls").cloned().unwrap_or(Value::Null)
            };
            (
                m["role"].as_str().unwrap().to_owned(),
                text_of(&m["content"]),
                calls,
            )
        })
        .collect()
}

fn sent_call(id: &Value, name: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

fn turn(role: &str, text: &str, calls: Value) -> (String, String, Value) {
    (role.to_owned(), text.to_owned(), calls)
}

/// The ids of the calls `client`'s thread reports unanswered.
fn unanswered(client: &ag_ui_client::HttpAgent) -> Vec<Value> {
    client
        .thread()
        .unanswered_tool_calls()
        .iter()
        .map(|c| json!(c.id.as_str()))
        .collect()
}

/// A run cut while the model streamed a tool call's `arguments` (nothing of them, or half):
/// the thread keeps the call without a result, and reports it unanswered. The next run
/// sends the model the call with the arguments `{}`, followed by a tool message saying that
/// no result arrived, before the new user message: the provider (which refuses a call
/// without a result and arguments that are not JSON, as OpenAI does) answers, and neither
/// the events nor the thread get that tool message.
pub async fn cut_in_a_tool_call_then_a_new_message<A: Agent>(
    make: impl Factory<A>,
    arguments: &str,
) {
    let provider = Provider::start(vec![
        Reply::cut(vec![
            role(),
            call_start(0, "call_cut", "get_weather", arguments),
        ]),
        Reply::stream(vec![role(), text_delta("Where were we?"), finish("stop")]),
    ])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-cut-call");
    client.add_user_message("Weather in Oslo?");
    let (events, _) = drain(client.run(RunOptions::new())).await;
    errored(&events, "provider_incomplete");
    let ids = started(&events);
    assert_eq!(ids.len(), 1, "{events:#?}");
    let id = &ids[0];
    assert_eq!(unanswered(&client), ids);
    let kept = client.thread().unanswered_tool_calls()[0]
        .function
        .arguments
        .clone();
    assert_eq!(
        kept, arguments,
        "the thread keeps the arguments as they came"
    );

    client.add_user_message("Hello?");
    let (events, end) = drain(client.run(RunOptions::new())).await;
    assert!(end.is_ok(), "{:?}", end.error);
    finished(&events);
    assert!(of_type(&events, "TOOL_CALL_RESULT").is_empty());
    let sent = provider.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(
        conversation(&sent[1]),
        [
            turn("user", "Weather in Oslo?", Value::Null),
            turn("assistant", "", json!([sent_call(id, "get_weather", "{}")])),
            turn("tool", ag_ui_core::NO_TOOL_RESULT, id.clone()),
            turn("user", "Hello?", Value::Null),
        ]
    );
    // The thread holds no tool message: the result was the request's only.
    let roles: Vec<Value> = message_json(client.messages())
        .iter()
        .map(|m| m["role"].clone())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    assert_eq!(
        client.thread().tool_call_arguments(id.as_str().unwrap()),
        Some(arguments)
    );
    // The call was the run before's: the last run left nothing unanswered.
    assert!(unanswered(&client).is_empty());
}

/// Two parallel frontend calls, of which the UI answers one: the model gets the answer of
/// the one and the no-result note for the other, each call with its own arguments.
pub async fn parallel_calls_one_answered<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![
        Reply::stream(parallel_calls()),
        Reply::stream(vec![
            role(),
            text_delta("Sent; not booked."),
            finish("stop"),
        ]),
    ])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-one-answered");
    client.add_user_message("Confirm both");
    let (events, _) = drain(client.run(RunOptions::new().tool(confirm_tool()))).await;
    let ids = started(&events);
    assert_eq!(
        finished(&events)["outcome"]["pendingToolCallIds"],
        json!(ids)
    );
    assert_eq!(unanswered(&client), ids);
    let first = ids[0].as_str().unwrap();
    client.add_message(ToolMessage::new("answer-1", "{\"confirmed\":true}", first));
    assert_eq!(unanswered(&client), [ids[1].clone()]);

    let (events, end) = drain(client.run(RunOptions::new().tool(confirm_tool()))).await;
    assert!(end.is_ok(), "{:?}", end.error);
    finished(&events);
    let sent = provider.requests();
    assert_eq!(
        conversation(&sent[1]),
        [
            turn("user", "Confirm both", Value::Null),
            turn(
                "assistant",
                "",
                json!([
                    sent_call(&ids[0], "confirm", "{\"question\":\"Send the email?\"}"),
                    sent_call(&ids[1], "confirm", "{\"question\":\"Book the room?\"}")
                ])
            ),
            turn("tool", "{\"confirmed\":true}", ids[0].clone()),
            turn("tool", ag_ui_core::NO_TOOL_RESULT, ids[1].clone()),
        ]
    );
    let roles: Vec<Value> = message_json(client.messages())
        .iter()
        .map(|m| m["role"].clone())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
}

/// A frontend call the user never answered (the tab was closed), then a new message: the
/// note is sent right after the call, before the user's message.
pub async fn unanswered_frontend_call_then_a_user_message<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![
        Reply::stream(vec![
            role(),
            call_start(0, "call_c", "confirm", "{\"question\":\"Proceed?\"}"),
            finish("tool_calls"),
        ]),
        Reply::stream(vec![role(), text_delta("Fine."), finish("stop")]),
    ])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-never-answered");
    client.add_user_message("Go");
    let (events, _) = drain(client.run(RunOptions::new().tool(confirm_tool()))).await;
    let ids = started(&events);
    finished(&events);
    assert_eq!(unanswered(&client), ids);
    client.add_user_message("Never mind");
    assert_eq!(unanswered(&client), ids, "a user message answers no call");
    let (events, end) = drain(client.run(RunOptions::new().tool(confirm_tool()))).await;
    assert!(end.is_ok(), "{:?}", end.error);
    finished(&events);
    assert_eq!(
        conversation(&provider.requests()[1]),
        [
            turn("user", "Go", Value::Null),
            turn(
                "assistant",
                "",
                json!([sent_call(&ids[0], "confirm", "{\"question\":\"Proceed?\"}")])
            ),
            turn("tool", ag_ui_core::NO_TOOL_RESULT, ids[0].clone()),
            turn("user", "Never mind", Value::Null),
        ]
    );
}

/// The local provider refuses what OpenAI refuses (so that the scenarios above would fail
/// without the repair): a call without a result, a result before its call, arguments that
/// are not JSON; and accepts a properly answered call.
pub fn the_provider_refuses_what_openai_refuses() {
    use crate::provider::refuse_history;
    let call = |args: &str| {
        json!({"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}
        ]})
    };
    let tool = json!({"role": "tool", "tool_call_id": "c1", "content": "ok"});
    let user = json!({"role": "user", "content": "Hi"});
    let refused = |messages: Vec<Value>| refuse_history(&json!({"messages": messages}));
    let unanswered = refused(vec![user.clone(), call("{}"), user.clone()]).unwrap();
    assert!(
        unanswered["error"]["message"]
            .as_str()
            .unwrap()
            .contains("must be followed by tool messages responding to each 'tool_call_id'"),
        "{unanswered}"
    );
    assert_eq!(unanswered["error"]["param"], "messages.[2].role");
    assert!(refused(vec![user.clone(), call("{}")]).is_some());
    assert!(refused(vec![user.clone(), call("{}"), user.clone(), tool.clone()]).is_some());
    assert!(refused(vec![tool.clone(), call("{}"), tool.clone()]).is_some());
    let bad_args = refused(vec![user.clone(), call("{\"a\":"), tool.clone()]).unwrap();
    assert_eq!(
        bad_args["error"]["param"],
        "messages.[1].tool_calls.[0].function.arguments"
    );
    assert!(refused(vec![user.clone(), call(""), tool.clone()]).is_some());
    assert_eq!(
        refused(vec![user.clone(), call("{}"), tool.clone(), user]),
        None
    );
}

/// A `tracing` subscriber keeping the level and the fields of every event on the thread
/// it is the default of.
#[derive(Clone, Default)]
pub struct Captured(std::sync::Arc<std::sync::Mutex<Vec<(tracing::Level, String)>>>);

impl tracing::Subscriber for Captured {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Fields(String);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push_str(&format!("{}={value:?} ", field.name()));
            }
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                self.0.push_str(&format!("{}={value} ", field.name()));
            }
        }
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0
            .lock()
            .unwrap()
            .push((*event.metadata().level(), fields.0));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// Each repair of the request is logged at warn, with the thread, the run, the call and
/// the kind of repair. Runs the agent on this test's (current-thread) runtime, where the
/// capturing subscriber is the default.
pub async fn repairs_are_logged_at_warn<A: Agent>(make: impl Factory<A>) {
    use futures_util::StreamExt;
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        text_delta("Fine."),
        finish("stop"),
    ])])
    .await;
    let agent = make(&provider, 8);
    let input = serde_json::from_value(json!({
        "threadId": "t-logged", "runId": "r-logged", "state": {}, "tools": [], "context": [],
        "forwardedProps": {},
        "messages": [
            {"id": "u1", "role": "user", "content": "Go"},
            {"id": "a1", "role": "assistant", "toolCalls": [{"id": "call_l", "type": "function",
                "function": {"name": "confirm", "arguments": "{\"quest"}}]},
            {"id": "u2", "role": "user", "content": "Never mind"}
        ]
    }))
    .unwrap();
    let captured = Captured::default();
    let guard = tracing::dispatcher::set_default(&tracing::Dispatch::new(captured.clone()));
    let events: Vec<_> = tokio::time::timeout(
        crate::provider::LIMIT,
        agent
            .run(input, ag_ui_server::Cancellation::new())
            .collect::<Vec<_>>(),
    )
    .await
    .unwrap();
    drop(guard);
    let last = serde_json::to_value(events.last().unwrap().as_ref().unwrap()).unwrap();
    assert_eq!(last["type"], "RUN_FINISHED", "{last}");
    let warnings: Vec<String> = captured
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|(level, fields)| {
            *level == tracing::Level::WARN && fields.contains("changed for the model provider")
        })
        .map(|(_, fields)| fields.clone())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    for (warning, kind) in warnings.iter().zip(["invalid_arguments", "no_result"]) {
        for field in [
            "thread_id=t-logged",
            "run_id=r-logged",
            "tool_call_id=call_l",
            &format!("repair={kind}"),
        ] {
            assert!(warning.contains(field), "{field} in {warning}");
        }
    }
}

// ---------------------------------------------------------------- the run seen by backend tools

fn add_todo_call(id: &str, text: &str) -> Reply {
    Reply::stream(vec![
        role(),
        call_start(0, id, "add_todo", &format!("{{\"text\":\"{text}\"}}")),
        finish("tool_calls"),
    ])
}

/// A backend tool that patches the shared state: the patch is emitted as `STATE_DELTA`
/// before the call's result, the next model call sees the patched state, and the client's
/// state is the patched one. A patch that does not apply changes nothing, and the model is
/// told why.
pub async fn backend_tool_patches_state<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![
        add_todo_call("call_t", "buy bread"),
        Reply::stream(vec![role(), text_delta("Added."), finish("stop")]),
    ])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-state");
    client.set_state(json!({"todos": ["buy milk"]}));
    client.add_user_message("Add bread");
    let (events, end) = drain(client.run(RunOptions::new())).await;
    assert!(end.is_ok(), "{:?}", end.error);
    finished(&events);
    let kinds = types(&events);
    let delta_at = kinds.iter().position(|t| *t == "STATE_DELTA").unwrap();
    let result_at = kinds.iter().position(|t| *t == "TOOL_CALL_RESULT").unwrap();
    assert!(delta_at < result_at, "{kinds:?}");
    assert_eq!(
        events[delta_at]["delta"],
        json!([{"op": "add", "path": "/todos/-", "value": "buy bread"}])
    );
    assert_eq!(events[result_at]["content"], "added");
    assert_eq!(
        serde_json::to_value(client.state()).unwrap(),
        json!({"todos": ["buy milk", "buy bread"]})
    );
    let sent = provider.requests();
    let state_text = |request: &Value| -> String {
        request["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| text_of(&m["content"]))
            .find(|t| t.starts_with("The application's shared state"))
            .unwrap()
    };
    let shared = |request: &Value| -> Value {
        let text = state_text(request);
        serde_json::from_str(text.split_once(": ").unwrap().1).unwrap()
    };
    assert_eq!(shared(&sent[0]), json!({"todos": ["buy milk"]}));
    assert_eq!(
        shared(&sent[1]),
        json!({"todos": ["buy milk", "buy bread"]})
    );

    // A state without `todos`: the patch does not apply.
    let provider = Provider::start(vec![
        add_todo_call("call_u", "buy eggs"),
        Reply::stream(vec![role(), text_delta("Sorry."), finish("stop")]),
    ])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-state-refused");
    client.set_state(json!({"notes": []}));
    client.add_user_message("Add eggs");
    let (events, end) = drain(client.run(RunOptions::new())).await;
    assert!(end.is_ok(), "{:?}", end.error);
    assert!(of_type(&events, "STATE_DELTA").is_empty(), "{events:#?}");
    let result = of_type(&events, "TOOL_CALL_RESULT")[0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    let result: Value = serde_json::from_str(&result).unwrap();
    assert!(
        result["error"].as_str().unwrap().contains("/todos/-"),
        "{result}"
    );
    assert_eq!(
        serde_json::to_value(client.state()).unwrap(),
        json!({"notes": []})
    );
}

/// A backend tool's context knows the run: its thread and run ids, the principal the
/// server's authorization named, and the request headers the agent lets tools read (and
/// no other).
pub async fn tool_context_sees_the_run<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![
        Reply::stream(vec![
            role(),
            call_start(0, "call_w", "whoami", "{}"),
            finish("tool_calls"),
        ]),
        Reply::stream(vec![role(), text_delta("You are ada."), finish("stop")]),
    ])
    .await;
    let runs = ag_ui_server::runs::Runs::in_memory().authorize(|parts| {
        let user = parts.headers.get("x-user").and_then(|v| v.to_str().ok());
        Ok(user.map(str::to_owned))
    });
    let service = ag_ui_server::AgentService::new(make(&provider, 8)).runs(runs);
    let served = Served::start_service(service).await;
    let mut client = served.client_with(
        "t-whoami",
        &[
            ("x-user", "ada"),
            ("x-tenant", "acme"),
            ("x-secret", "s3cret"),
        ],
    );
    client.add_user_message("Who am I?");
    let (events, end) = drain(client.run(RunOptions::new())).await;
    assert!(end.is_ok(), "{:?}", end.error);
    finished(&events);
    let run_id = events[0]["runId"].clone();
    let result = of_type(&events, "TOOL_CALL_RESULT")[0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        serde_json::from_str::<Value>(&result).unwrap(),
        json!({"threadId": "t-whoami", "runId": run_id, "principal": "ada",
               "tenant": "acme", "secret": null})
    );
}

/// A call of a tool nobody offered is answered with an error, and the model is called
/// again with it.
pub async fn unknown_tool_is_answered_with_an_error<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![
        Reply::stream(vec![
            role(),
            call_start(0, "call_r", "launch_rockets", "{}"),
            finish("tool_calls"),
        ]),
        Reply::stream(vec![role(), text_delta("I cannot."), finish("stop")]),
    ])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-unknown");
    client.add_user_message("Launch");
    let (events, end) = drain(client.run(RunOptions::new())).await;
    assert!(end.is_ok(), "{:?}", end.error);
    finished(&events);
    let expected = json!({"error": "there is no tool named \"launch_rockets\""});
    let result = of_type(&events, "TOOL_CALL_RESULT")[0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(serde_json::from_str::<Value>(&result).unwrap(), expected);
    let sent = provider.requests();
    assert_eq!(sent.len(), 2);
    let tool = sent[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(tool["role"], "tool");
    assert_eq!(
        serde_json::from_str::<Value>(&text_of(&tool["content"])).unwrap(),
        expected
    );
}

/// Runs `agent` on a one-message run, reads its events until one of type `until`, trips
/// the run's cancellation and reads the rest: all the events, as JSON.
async fn run_and_cancel<A: Agent>(agent: A, thread: &str, until: &str) -> Vec<Value> {
    use futures_util::StreamExt;
    let input = serde_json::from_value(json!({
        "threadId": thread, "runId": format!("r-{thread}"), "state": {}, "tools": [],
        "context": [], "forwardedProps": {},
        "messages": [{"id": "u1", "role": "user", "content": "Go"}]
    }))
    .unwrap();
    let cancel = ag_ui_server::Cancellation::new();
    let mut stream = agent.run(input, cancel.clone());
    let mut events = Vec::new();
    tokio::time::timeout(crate::provider::LIMIT, async {
        while let Some(item) = stream.next().await {
            let event = serde_json::to_value(item.unwrap()).unwrap();
            let seen = event["type"] == until;
            events.push(event);
            if seen {
                cancel.cancel();
            }
        }
    })
    .await
    .expect("the run ends soon after its cancellation");
    events
}

fn cancelled(events: &[Value]) {
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_FINISHED", "{events:#?}");
    assert_eq!(last["outcome"]["type"], "cancelled", "{last}");
}

/// The run is cancelled while the provider streams (and then sends nothing more): it ends
/// at once as cancelled, without waiting for the provider.
pub async fn cancelled_while_the_model_streams<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![Reply::Stall(vec![role(), text_delta("Hel")])]).await;
    let events = run_and_cancel(
        make(&provider, 8),
        "t-cancel-stream",
        "TEXT_MESSAGE_CONTENT",
    )
    .await;
    cancelled(&events);
    assert_eq!(of_type(&events, "TEXT_MESSAGE_CONTENT").len(), 1);
    assert_eq!(provider.requests().len(), 1);
}

/// The run is cancelled while a backend tool runs: it ends at once as cancelled, with no
/// result for the call and no further model call.
pub async fn cancelled_while_a_backend_tool_runs<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![
        Reply::stream(vec![
            role(),
            call_start(0, "call_wait", "wait", "{}"),
            finish("tool_calls"),
        ]),
        Reply::stream(vec![role(), text_delta("Never sent."), finish("stop")]),
    ])
    .await;
    let events = run_and_cancel(make(&provider, 8), "t-cancel-tool", "TOOL_CALL_END").await;
    cancelled(&events);
    assert!(
        of_type(&events, "TOOL_CALL_RESULT").is_empty(),
        "{events:#?}"
    );
    assert_eq!(provider.requests().len(), 1);
}

/// `finish_reason: content_filter`: the run ends with `RUN_ERROR` (code `content_filter`).
pub async fn content_filter_ending<A: Agent>(make: impl Factory<A>) {
    let provider = Provider::start(vec![Reply::stream(vec![
        role(),
        text_delta("Well"),
        finish("content_filter"),
    ])])
    .await;
    let served = Served::start(make(&provider, 8)).await;
    let mut client = served.client("t-filter");
    client.add_user_message("Something");
    let (events, _) = drain(client.run(RunOptions::new())).await;
    errored(&events, "content_filter");
}
