//! The workspace's own client (`ag_ui_client::HttpAgent`) against the workspace's own
//! server (the demo agent served by `ag_ui_server::axum` on 127.0.0.1:0).
//!
//! Expectations come from the demo's documented scenarios (`ag_ui_server::demo`): ids are
//! `<runId>-msg-N` / `<runId>-call-N`, the interrupt's id is the tool call's id with
//! `-approval` appended.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ag_ui_client::{ClientErrorKind, HttpAgent, RunEnd, RunItem, RunOptions, RunOutcome};
use ag_ui_core::{Event, Message, RunAgentInput, UserMessage};
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::{Agent, AgentService, AgentStream, Cancellation, ReportKind};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::{LIMIT, Server, serve};

/// How promptly the server must notice that the client went away.
const PROMPT: Duration = Duration::from_secs(5);

/// The demo agent, recording every input it is given and the cancellation of every run.
struct Recording {
    demo: DemoAgent,
    inputs: Arc<Mutex<Vec<RunAgentInput>>>,
    runs: mpsc::UnboundedSender<Cancellation>,
}

impl Agent for Recording {
    fn run(&self, input: RunAgentInput, cancel: Cancellation) -> AgentStream {
        self.inputs.lock().unwrap().push(input.clone());
        // The receiver may be gone (a test that does not watch cancellations).
        let _ = self.runs.send(cancel.clone());
        self.demo.run(input, cancel)
    }
}

/// A served recording demo agent.
struct Demo {
    server: Server,
    inputs: Arc<Mutex<Vec<RunAgentInput>>>,
    runs: mpsc::UnboundedReceiver<Cancellation>,
    disconnects: mpsc::UnboundedReceiver<()>,
}

impl Demo {
    async fn start() -> Demo {
        let inputs = Arc::new(Mutex::new(Vec::new()));
        let (runs_tx, runs) = mpsc::unbounded_channel();
        let (gone_tx, disconnects) = mpsc::unbounded_channel();
        let agent = Recording {
            demo: DemoAgent::new(),
            inputs: Arc::clone(&inputs),
            runs: runs_tx,
        };
        let service = AgentService::new(agent).hook(move |r| {
            if matches!(r.kind(), ReportKind::Disconnected) {
                let _ = gone_tx.send(());
            }
        });
        Demo {
            server: serve(service).await,
            inputs,
            runs,
            disconnects,
        }
    }

    /// A client for this server on `thread`, holding one user message `u1`.
    fn client(&self, thread: &str) -> HttpAgent {
        let mut agent = HttpAgent::builder(self.server.url())
            .thread_id(thread)
            .idle_timeout(LIMIT)
            .build()
            .unwrap();
        agent.add_message(Message::User(UserMessage::new(
            "u1",
            "What is the weather in Amsterdam?",
        )));
        agent
    }

    /// The inputs the agent received, as JSON.
    fn inputs(&self) -> Vec<Value> {
        self.inputs
            .lock()
            .unwrap()
            .iter()
            .map(|i| serde_json::to_value(i).unwrap())
            .collect()
    }
}

fn scenario(run_id: &str, scenario: &str) -> RunOptions {
    RunOptions::new()
        .run_id(run_id)
        .forwarded_props(json!({ "scenario": scenario }))
}

fn user() -> Value {
    json!({"id": "u1", "role": "user", "content": "What is the weather in Amsterdam?"})
}

fn messages(agent: &HttpAgent) -> Vec<Value> {
    agent
        .messages()
        .iter()
        .map(|m| serde_json::to_value(m).unwrap())
        .collect()
}

/// A run read to its end within the time limit.
async fn finish(run: ag_ui_client::HttpRun<'_>) -> RunEnd {
    tokio::time::timeout(LIMIT, run.finish())
        .await
        .expect("the run did not end in time")
}

/// What the `chat` scenario adds to a thread for run `run` (deriving the ids as the demo
/// documents them), with `turns` the state's counter after the run.
fn chat_messages(run: &str) -> Vec<Value> {
    vec![
        json!({
            "id": format!("{run}-msg-1"),
            "role": "reasoning",
            "content": "The user asks about the weather. I will look it up.",
        }),
        json!({
            "id": format!("{run}-msg-2"),
            "role": "assistant",
            "content": "Let me check the weather in Amsterdam.",
            "toolCalls": [{
                "id": format!("{run}-call-1"),
                "type": "function",
                "function": {"name": "get_weather", "arguments": r#"{"city":"Amsterdam"}"#},
            }],
        }),
        json!({
            "id": format!("{run}-msg-3"),
            "role": "tool",
            "toolCallId": format!("{run}-call-1"),
            "content": r#"{"temperature":14,"sky":"cloudy"}"#,
        }),
        json!({
            "id": format!("{run}-msg-4"),
            "role": "assistant",
            "content": "It is 14 °C and cloudy in Amsterdam.",
        }),
    ]
}

fn chat_state(turns: u64) -> Value {
    // The snapshot, then the two deltas: the temperature, then the sky.
    json!({"turns": turns, "city": "Amsterdam", "weather": {"temperature": 14, "sky": "cloudy"}})
}

#[tokio::test]
async fn chat_folds_reasoning_text_tool_call_and_state() {
    let demo = Demo::start().await;
    let mut agent = demo.client("thread-chat");

    let mut run = agent.run(scenario("run-1", "chat"));
    let mut types = Vec::new();
    let mut end = None;
    while let Some(item) = tokio::time::timeout(LIMIT, run.next()).await.unwrap() {
        match item {
            RunItem::Event(e) => types.push(e.event_type().as_str()),
            RunItem::End(e) => end = Some(e),
            _ => {}
        }
    }
    drop(run);
    let end = end.expect("no end item");
    assert!(end.is_ok(), "{:?}", end.error);
    assert_eq!(
        end.outcome,
        Some(RunOutcome::Success {
            result: None,
            pending_tool_call_ids: Vec::new()
        })
    );
    assert!(end.warnings.is_empty(), "{:?}", end.warnings);
    assert_eq!(end.events, types.len());
    // The three argument chunks arrive as they were streamed.
    assert_eq!(types.iter().filter(|t| **t == "TOOL_CALL_ARGS").count(), 3);
    assert_eq!(types.first(), Some(&"RUN_STARTED"));
    assert_eq!(types.last(), Some(&"RUN_FINISHED"));

    let mut expected = vec![user()];
    expected.extend(chat_messages("run-1"));
    assert_eq!(messages(&agent), expected);
    // The tool call's streamed arguments make one complete JSON document.
    let args = &expected[2]["toolCalls"][0]["function"]["arguments"];
    assert_eq!(
        serde_json::from_str::<Value>(args.as_str().unwrap()).unwrap(),
        json!({"city": "Amsterdam"})
    );
    assert_eq!(agent.state(), &chat_state(1));
    assert!(agent.pending_interrupts().is_empty());

    // A second run sends the whole thread back; the demo counts the turn in the state.
    agent.add_message(Message::User(UserMessage::new("u2", "And tomorrow?")));
    let end = finish(agent.run(scenario("run-2", "chat"))).await;
    assert!(end.is_ok(), "{:?}", end.error);
    assert_eq!(agent.state(), &chat_state(2));
    let inputs = demo.inputs();
    assert_eq!(inputs.len(), 2);
    let mut sent = expected.clone();
    sent.push(json!({"id": "u2", "role": "user", "content": "And tomorrow?"}));
    assert_eq!(inputs[1]["messages"], Value::from(sent.clone()));
    assert_eq!(inputs[1]["state"], chat_state(1));
    assert_eq!(inputs[1]["threadId"], "thread-chat");
    assert_eq!(inputs[1]["runId"], "run-2");
    sent.extend(chat_messages("run-2"));
    assert_eq!(messages(&agent), sent);
}

#[tokio::test]
async fn interrupt_then_one_call_resume_carries_the_history() {
    let demo = Demo::start().await;
    let mut agent = demo.client("thread-interrupt");

    let end = finish(agent.run(scenario("run-1", "interrupt"))).await;
    assert!(end.is_ok(), "{:?}", end.error);
    let interrupt = json!({
        "id": "run-1-call-1-approval",
        "reason": "tool_call",
        "message": "Send the email to ada@example.com?",
        "toolCallId": "run-1-call-1",
    });
    let Some(RunOutcome::Interrupt { interrupts }) = &end.outcome else {
        panic!("not an interrupt: {:?}", end.outcome);
    };
    assert_eq!(
        serde_json::to_value(interrupts).unwrap(),
        json!([interrupt.clone()])
    );
    assert_eq!(
        serde_json::to_value(agent.pending_interrupts()).unwrap(),
        json!([interrupt])
    );
    let first = vec![
        user(),
        json!({
            "id": "run-1-msg-1",
            "role": "assistant",
            "content": "I will send the email once you approve.",
            "toolCalls": [{
                "id": "run-1-call-1",
                "type": "function",
                "function": {
                    "name": "send_email",
                    "arguments": r#"{"to":"ada@example.com","subject":"Hello"}"#,
                },
            }],
        }),
    ];
    assert_eq!(messages(&agent), first);
    let awaiting = json!({"email": {"status": "awaiting approval"}});
    assert_eq!(agent.state(), &awaiting);

    // One call answers every pending interrupt.
    let resume = scenario("run-2", "interrupt").resume_all([ag_ui_builders::interrupt::resolve(
        "run-1-call-1-approval",
        json!({"approved": true}),
    )]);
    let run = agent.resume_with(resume).unwrap();
    let end = finish(run).await;
    assert!(end.is_ok(), "{:?}", end.error);
    assert_eq!(
        end.outcome,
        Some(RunOutcome::Success {
            result: None,
            pending_tool_call_ids: Vec::new()
        })
    );
    assert!(agent.pending_interrupts().is_empty());
    assert_eq!(agent.state(), &json!({"email": {"status": "sent"}}));

    // The second input holds the whole history of the first run, and the answer.
    let inputs = demo.inputs();
    assert_eq!(inputs.len(), 2);
    let second = &inputs[1];
    assert_eq!(second["threadId"], "thread-interrupt");
    assert_eq!(second["runId"], "run-2");
    assert_eq!(second["messages"], Value::from(first.clone()));
    assert_eq!(second["state"], awaiting);
    assert_eq!(
        second["resume"],
        json!([{
            "interruptId": "run-1-call-1-approval",
            "status": "resolved",
            "payload": {"approved": true},
        }])
    );

    let mut all = first;
    all.push(json!({
        "id": "run-2-msg-1",
        "role": "tool",
        "toolCallId": "run-1-call-1",
        "content": r#"{"sent":true}"#,
    }));
    all.push(json!({"id": "run-2-msg-2", "role": "assistant", "content": "The email is sent."}));
    assert_eq!(messages(&agent), all);

    // Nothing is pending any more: a second resume is refused before anything is sent.
    let refused = agent
        .resume([ag_ui_builders::interrupt::resolve(
            "run-1-call-1-approval",
            json!({}),
        )])
        .unwrap_err();
    assert_eq!(refused.kind(), ClientErrorKind::InvalidRequest);
    assert_eq!(demo.inputs().len(), 2);
}

#[tokio::test]
async fn run_error_mid_run_is_the_outcome_and_keeps_what_was_applied() {
    let demo = Demo::start().await;
    let mut agent = demo.client("thread-error");
    agent.set_state(json!({"kept": true}));

    let end = finish(agent.run(scenario("run-1", "error"))).await;
    assert!(
        end.is_ok(),
        "an agent's RUN_ERROR is not a client error: {:?}",
        end.error
    );
    assert_eq!(
        end.outcome,
        Some(RunOutcome::Error {
            message: "the demo agent failed on purpose".into(),
            code: Some("demo_error".into()),
        })
    );
    assert_eq!(
        end.outcome.as_ref().unwrap().to_json(),
        json!({"type": "run_error", "message": "the demo agent failed on purpose", "code": "demo_error"})
    );
    // The text streamed before the error stays in the thread.
    assert_eq!(
        messages(&agent),
        vec![
            user(),
            json!({"id": "run-1-msg-1", "role": "assistant", "content": "Starting the work and then"}),
        ]
    );
    assert_eq!(agent.state(), &json!({"kept": true}));
    assert!(agent.pending_interrupts().is_empty());
}

/// Starts a `slow` run and reads it until the first text delta; returns the run and the
/// server-side cancellation of that run.
async fn slow_run_started<'a>(
    demo: &mut Demo,
    agent: &'a mut HttpAgent,
) -> (ag_ui_client::HttpRun<'a>, Cancellation) {
    let mut run = agent.run(scenario("run-slow", "slow"));
    loop {
        let item = tokio::time::timeout(LIMIT, run.next())
            .await
            .expect("no event in time")
            .expect("the run ended early");
        match item {
            RunItem::Event(Event::TextMessageContent(c)) => {
                assert_eq!(c.delta, "1 ");
                break;
            }
            RunItem::Event(_) => {}
            RunItem::End(end) => panic!("the slow run ended: {end:?}"),
            _ => {}
        }
    }
    let cancel = tokio::time::timeout(LIMIT, demo.runs.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(!cancel.is_cancelled(), "cancelled while the client reads");
    (run, cancel)
}

/// The server trips the agent's cancellation and reports the disconnect, promptly.
async fn server_notices(demo: &mut Demo, cancel: &Cancellation) {
    tokio::time::timeout(PROMPT, cancel.cancelled())
        .await
        .expect("the agent's cancellation was not tripped within 5 s");
    tokio::time::timeout(PROMPT, demo.disconnects.recv())
        .await
        .expect("no Report::Disconnected within 5 s")
        .unwrap();
}

fn slow_partial() -> Vec<Value> {
    vec![
        user(),
        json!({"id": "run-slow-msg-1", "role": "assistant", "content": "1 "}),
    ]
}

#[tokio::test]
async fn abort_handle_ends_with_abort_and_cancels_the_agent() {
    let mut demo = Demo::start().await;
    let mut agent = demo.client("thread-slow");
    let (mut run, cancel) = slow_run_started(&mut demo, &mut agent).await;

    // Abort from elsewhere (another task), while the agent is streaming.
    let handle = run.abort_handle();
    tokio::spawn(async move { handle.abort() }).await.unwrap();
    let mut rest = Vec::new();
    while let Some(item) = tokio::time::timeout(LIMIT, run.next()).await.unwrap() {
        rest.push(item);
    }
    drop(run);
    let [RunItem::End(end)] = rest.as_slice() else {
        panic!("expected only the end after the abort: {rest:?}");
    };
    let error = end.error.as_ref().expect("an abort is a client error");
    assert_eq!(error.kind(), ClientErrorKind::Abort);
    assert_eq!(error.kind().as_str(), "abort");
    // No terminal event arrived: the agent did not end the run, so no `cancelled` outcome.
    assert_eq!(end.outcome, None);
    assert_ne!(end.outcome, Some(RunOutcome::Cancelled));

    server_notices(&mut demo, &cancel).await;
    // What was applied before the abort stays.
    assert_eq!(messages(&agent), slow_partial());
    assert_eq!(demo.inputs().len(), 1);
}

#[tokio::test]
async fn dropping_the_run_cancels_the_agent() {
    let mut demo = Demo::start().await;
    let mut agent = demo.client("thread-slow");
    let (run, cancel) = slow_run_started(&mut demo, &mut agent).await;
    drop(run);
    server_notices(&mut demo, &cancel).await;
    assert_eq!(messages(&agent), slow_partial());
}
