//! Model streams no chat-completions client produces, through the loop: a scripted model.

use std::collections::VecDeque;
use std::sync::Mutex;

use ag_ui_agent::{
    BackendTools, CompletionModel, Finish, ModelAgent, ModelEvent, ModelRequest, ModelStream,
    ToolContext, Unmapped,
};
use ag_ui_core::{RunAgentInput, Tool};
use ag_ui_server::{Agent, Cancellation};
use futures_util::StreamExt;
use serde_json::{Value, json};

/// A model answering each call with the next of its scripts.
struct Scripted(Mutex<VecDeque<Vec<ModelEvent>>>);

impl Scripted {
    fn new(scripts: Vec<Vec<ModelEvent>>) -> Self {
        Self(Mutex::new(scripts.into()))
    }
}

impl CompletionModel for Scripted {
    type Request = ();

    fn request(&self, _request: &ModelRequest<'_>) -> (Self::Request, Vec<Unmapped>) {
        ((), Vec::new())
    }

    fn stream(&self, (): Self::Request) -> ModelStream {
        let events = self.0.lock().unwrap().pop_front().unwrap_or_default();
        Box::pin(futures_util::stream::iter(events.into_iter().map(Ok)))
    }
}

fn input(tools: Value) -> RunAgentInput {
    serde_json::from_value(json!({
        "threadId": "t-1", "runId": "r-1", "state": {"count": 1}, "tools": tools,
        "context": [], "forwardedProps": {},
        "messages": [{"id": "u1", "role": "user", "content": "Go"}]
    }))
    .unwrap()
}

async fn run(agent: &impl Agent, input: RunAgentInput) -> Vec<Value> {
    agent
        .run(input, Cancellation::new())
        .map(|e| serde_json::to_value(e.unwrap()).unwrap())
        .collect()
        .await
}

fn call(name: Option<&str>, arguments: &str) -> ModelEvent {
    ModelEvent::ToolCall {
        index: 0,
        id: None,
        name: name.map(str::to_owned),
        arguments: arguments.to_owned(),
    }
}

#[tokio::test]
async fn a_tool_call_that_names_no_tool_ends_the_run_with_a_provider_error() {
    let agent = ModelAgent::new(Scripted::new(vec![vec![call(None, "{}")]]));
    let events = run(&agent, input(json!([]))).await;
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_ERROR", "{events:#?}");
    assert_eq!(last["code"], "provider_error");
    assert_eq!(
        last["message"],
        "the model provider started a tool call without naming its tool"
    );
}

/// A provider that sends a call whole streams no arguments: the whole ones given at its
/// end are its arguments; the loop mints the call's id (a UUID).
#[tokio::test]
async fn a_call_sent_whole_gets_its_arguments_at_its_end() {
    let agent = ModelAgent::new(Scripted::new(vec![vec![
        call(Some("confirm"), ""),
        ModelEvent::ToolCallEnd {
            index: 0,
            arguments: Some("{\"question\":\"Go?\"}".to_owned()),
        },
        ModelEvent::Finish(Finish::Stop),
    ]]));
    let confirm = serde_json::to_value(Tool::new("confirm", "Ask the user")).unwrap();
    let events = run(&agent, input(json!([confirm]))).await;
    let args: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "TOOL_CALL_ARGS")
        .map(|e| &e["delta"])
        .collect();
    assert_eq!(args, [&json!("{\"question\":\"Go?\"}")]);
    let id = events[1]["toolCallId"].as_str().unwrap();
    assert_eq!(id.len(), 36, "{id}");
    let last = events.last().unwrap();
    assert_eq!(last["outcome"]["pendingToolCallIds"], json!([id]));
}

/// A tool that replaces the state: the change is emitted as the patch from the state before.
#[tokio::test]
async fn set_state_is_emitted_as_the_patch_from_the_state_before() {
    let tools = BackendTools::new().raw(Tool::new("bump", "Bump"), |_args, ctx: ToolContext| {
        Box::pin(async move {
            ctx.set_state(json!({"count": 2}));
            Ok("bumped".to_owned())
        })
    });
    let agent = ModelAgent::new(Scripted::new(vec![
        vec![call(Some("bump"), "{}"), ModelEvent::Finish(Finish::Stop)],
        vec![
            ModelEvent::Text("Done.".to_owned()),
            ModelEvent::Finish(Finish::Stop),
        ],
    ]))
    .tools(tools);
    let events = run(&agent, input(json!([]))).await;
    let deltas: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "STATE_DELTA")
        .map(|e| &e["delta"])
        .collect();
    assert_eq!(
        deltas,
        [&json!([{"op": "replace", "path": "/count", "value": 2}])]
    );
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
}

/// A tool that patches the state, then fails: the change stands and is emitted (before the
/// error result the model is given).
#[tokio::test]
async fn what_a_failing_tool_changed_is_emitted_before_its_error() {
    use ag_ui_core::JsonPatchOperation;
    let tools =
        BackendTools::new().raw(Tool::new("half", "Half done"), |_args, ctx: ToolContext| {
            Box::pin(async move {
                ctx.patch_state([JsonPatchOperation::replace("/count", 5)])?;
                Err("then it failed".into())
            })
        });
    let agent = ModelAgent::new(Scripted::new(vec![
        vec![call(Some("half"), "{}"), ModelEvent::Finish(Finish::Stop)],
        vec![
            ModelEvent::Text("Sorry.".to_owned()),
            ModelEvent::Finish(Finish::Stop),
        ],
    ]))
    .tools(tools);
    let events = run(&agent, input(json!([]))).await;
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let delta_at = types.iter().position(|t| *t == "STATE_DELTA").unwrap();
    assert_eq!(types[delta_at + 1], "TOOL_CALL_RESULT", "{types:?}");
    assert_eq!(
        events[delta_at]["delta"],
        json!([{"op": "replace", "path": "/count", "value": 5}])
    );
    let content: Value =
        serde_json::from_str(events[delta_at + 1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(content, json!({"error": "then it failed"}));
}
