//! The demo agent's scenarios, served and read back.

use ag_ui_core::Event;
use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use serde_json::{Value, json};

use crate::support::{Events, input, post, serve, types};

async fn run(body: &Value) -> Vec<Event> {
    let server = serve(AgentService::new(DemoAgent::new())).await;
    let events = Events::new(post(&server, body).await).all().await;
    ag_ui_core::stream::verify_events(&events).unwrap();
    events
}

#[tokio::test]
async fn chat_is_the_default_and_shows_every_kind_of_event() {
    let events = run(&input("run-1", json!({}))).await;
    let same = run(&input("run-1", json!({"scenario": "chat"}))).await;
    assert_eq!(
        crate::support::values(&events),
        crate::support::values(&same)
    );
    let kinds = types(&events);
    for t in [
        "REASONING_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
    ] {
        assert!(kinds.contains(&t), "{t} missing from {kinds:?}");
    }
    assert_eq!(kinds.iter().filter(|t| **t == "TOOL_CALL_ARGS").count(), 3);
    assert_eq!(kinds.last(), Some(&"RUN_FINISHED"));
    // The streamed arguments are one JSON document.
    let args: String = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs(a) => Some(a.delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&args).unwrap(),
        json!({"city": "Amsterdam"})
    );
    // Ids derive from the run id.
    let Event::TextMessageStart(start) = events
        .iter()
        .find(|e| matches!(e, Event::TextMessageStart(_)))
        .unwrap()
    else {
        unreachable!()
    };
    assert!(
        start.message_id.as_str().starts_with("run-1-"),
        "{}",
        start.message_id.as_str()
    );
}

#[tokio::test]
async fn interrupt_pauses_and_a_resume_completes_it() {
    let events = run(&input("run-1", json!({"scenario": "interrupt"}))).await;
    let Some(Event::RunFinished(finished)) = events.last() else {
        panic!("{:?}", types(&events));
    };
    let outcome = serde_json::to_value(&finished.outcome).unwrap();
    assert_eq!(outcome["type"], "interrupt");
    let interrupt = &outcome["interrupts"][0];
    assert_eq!(interrupt["reason"], "tool_call");
    let interrupt_id = interrupt["id"].as_str().unwrap().to_owned();
    let call_id = interrupt["toolCallId"].as_str().unwrap().to_owned();

    let mut resume = input("run-2", json!({"scenario": "interrupt"}));
    resume["resume"] =
        json!([{"interruptId": interrupt_id, "status": "resolved", "payload": {"approved": true}}]);
    let events = run(&resume).await;
    assert_eq!(types(&events).first(), Some(&"RUN_STARTED"));
    let result = events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallResult(r) => Some(r),
            _ => None,
        })
        .unwrap();
    assert_eq!(result.tool_call_id.as_str(), call_id);
    let Some(Event::RunFinished(finished)) = events.last() else {
        panic!("{:?}", types(&events));
    };
    assert_eq!(
        serde_json::to_value(&finished.outcome).unwrap()["type"],
        "success"
    );

    // A resume the agent cannot correlate is RUN_ERROR (spec §9.2).
    let mut stray = input("run-3", json!({"scenario": "interrupt"}));
    stray["resume"] = json!([{"interruptId": "int-unknown", "status": "resolved"}]);
    let events = run(&stray).await;
    assert_eq!(types(&events), ["RUN_STARTED", "RUN_ERROR"]);
}

#[tokio::test]
async fn error_fails_mid_run() {
    let events = run(&input("run-1", json!({"scenario": "error"}))).await;
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "RUN_ERROR"
        ]
    );
    let Some(Event::RunError(e)) = events.last() else {
        unreachable!()
    };
    assert_eq!(e.code.as_deref(), Some("demo_error"));
}

#[tokio::test]
async fn an_unknown_scenario_is_a_run_error() {
    let events = run(&input("run-1", json!({"scenario": "juggle"}))).await;
    assert_eq!(types(&events), ["RUN_STARTED", "RUN_ERROR"]);
}

#[tokio::test]
async fn slow_sends_one_delta_per_second_and_stops_when_cancelled() {
    use ag_ui_server::Agent;
    use futures_util::StreamExt;
    let input: ag_ui_core::RunAgentInput =
        serde_json::from_value(input("run-1", json!({"scenario": "slow"}))).unwrap();
    let cancel = ag_ui_server::Cancellation::new();
    let mut stream = DemoAgent::new().run(input, cancel.clone());
    let started = std::time::Instant::now();
    let mut deltas = 0;
    while deltas < 2 {
        if let Event::TextMessageContent(_) = stream.next().await.unwrap().unwrap() {
            deltas += 1;
        }
    }
    let elapsed = started.elapsed();
    assert!(
        elapsed >= std::time::Duration::from_millis(900),
        "{elapsed:?}"
    );
    cancel.cancel();
    // The agent stops at once instead of running for a minute, and says it was cancelled.
    let rest = tokio::time::timeout(
        std::time::Duration::from_millis(500),
        stream.collect::<Vec<_>>(),
    )
    .await
    .expect("the slow scenario ignored its cancellation");
    let rest: Vec<Event> = rest.into_iter().map(Result::unwrap).collect();
    assert_eq!(types(&rest), ["TEXT_MESSAGE_END", "RUN_FINISHED"]);
    assert_eq!(
        serde_json::to_value(&rest[1]).unwrap()["outcome"],
        json!({"type": "cancelled"})
    );
}

#[tokio::test]
async fn frontend_tool_calls_the_clients_tool_and_answers_its_result() {
    let mut first = input("run-1", json!({"scenario": "frontend_tool"}));
    first["tools"] = json!([{"name": "show_city", "description": "Shows a city"}]);
    let events = run(&first).await;
    let v = crate::support::values(&events);
    let start = v.iter().find(|e| e["type"] == "TOOL_CALL_START").unwrap();
    assert_eq!(start["toolCallName"], "show_city");
    assert!(!types(&events).contains(&"TOOL_CALL_RESULT"));
    assert_eq!(v.last().unwrap()["type"], "RUN_FINISHED");

    let mut second = input("run-2", json!({"scenario": "frontend_tool"}));
    second["messages"] = json!([
        {"id": "u1", "role": "user", "content": "Show me the city"},
        {"id": "a1", "role": "assistant", "toolCalls": [{"id": start["toolCallId"], "type": "function",
            "function": {"name": "show_city", "arguments": "{\"city\":\"Amsterdam\"}"}}]},
        {"id": "t1", "role": "tool", "toolCallId": start["toolCallId"], "content": "{\"shown\":\"Amsterdam\"}"}
    ]);
    let answer = crate::support::values(&run(&second).await);
    let text: Vec<&Value> = answer
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| &e["delta"])
        .collect();
    assert_eq!(
        text,
        [&json!("Your browser answered: {\"shown\":\"Amsterdam\"}")]
    );

    let without_tools =
        crate::support::values(&run(&input("run-3", json!({"scenario": "frontend_tool"}))).await);
    assert_eq!(without_tools.last().unwrap()["code"], "no_tools");
}

#[tokio::test]
async fn firehose_sends_that_many_text_deltas_of_that_many_bytes() {
    let events = run(&input(
        "run-1",
        json!({"scenario": "firehose", "events": 300, "bytes": 7}),
    ))
    .await;
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::TextMessageContent(c) => Some(c.delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas.len(), 300);
    assert!(deltas.iter().all(|d| *d == "xxxxxxx"));
    let kinds = types(&events);
    assert_eq!(
        (kinds.first(), kinds.last()),
        (Some(&"RUN_STARTED"), Some(&"RUN_FINISHED"))
    );
    // The defaults: 1000 deltas of 100 bytes.
    let events = run(&input("run-2", json!({"scenario": "firehose"}))).await;
    let sizes: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::TextMessageContent(c) => Some(c.delta.len()),
            _ => None,
        })
        .collect();
    assert_eq!((sizes.len(), sizes.iter().all(|&n| n == 100)), (1000, true));
}

#[tokio::test]
async fn firehose_paces_and_stamps_its_events_when_asked() {
    let began = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let clock = std::time::Instant::now();
    let events = run(&input(
        "run-1",
        json!({"scenario": "firehose", "events": 5, "bytes": 3, "every_ms": 40, "timestamps": true}),
    ))
    .await;
    // Five pauses of 40 ms before the five deltas.
    assert!(clock.elapsed() >= std::time::Duration::from_millis(200));
    let stamps: Vec<i64> = crate::support::values(&events)
        .iter()
        .map(|e| e["timestamp"].as_i64().expect("every event stamped"))
        .collect();
    assert_eq!(stamps.len(), events.len());
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "{stamps:?}");
    assert!(stamps[0] >= began, "{stamps:?} before {began}");
    // The deltas are 40 ms apart (at least, give or take the clock's millisecond).
    assert!(
        stamps[stamps.len() - 2] - stamps[1] >= 4 * 40 - 2,
        "{stamps:?}"
    );
    // Unasked, no event is stamped.
    let plain = run(&input(
        "run-2",
        json!({"scenario": "firehose", "events": 2}),
    ))
    .await;
    assert!(
        crate::support::values(&plain)
            .iter()
            .all(|e| e.get("timestamp").is_none())
    );
}

/// With `track_interrupts`, the demo keeps each thread's open interrupts (spec §9.2): an
/// ordinary input on the paused thread is refused, a resume must answer exactly the open
/// interrupts, a replay of the last resume is answered again, and other threads run.
#[tokio::test]
async fn a_tracking_demo_refuses_input_on_a_paused_thread() {
    let server = serve(AgentService::new(DemoAgent::new().track_interrupts())).await;
    let run = |body: Value| {
        let server = &server;
        async move {
            let events = Events::new(post(server, &body).await).all().await;
            ag_ui_core::stream::verify_events(&events).unwrap();
            serde_json::to_value(&events).unwrap()
        }
    };
    let last = |events: &Value| events.as_array().unwrap().last().unwrap().clone();
    let paused = run(input("run-1", json!({"scenario": "interrupt"}))).await;
    let interrupt_id = last(&paused)["outcome"]["interrupts"][0]["id"].clone();

    // An ordinary input on the paused thread, whatever its scenario.
    let refused = last(&run(input("run-2", json!({"scenario": "chat"}))).await);
    assert_eq!(refused["type"], "RUN_ERROR");
    assert_eq!(refused["code"], "interrupt_pending");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains(interrupt_id.as_str().unwrap())
    );

    // A resume answering something else.
    let mut stray = input("run-3", json!({"scenario": "interrupt"}));
    stray["resume"] = json!([{"interruptId": "int-unknown", "status": "resolved"}]);
    let mismatch = last(&run(stray).await);
    assert_eq!(mismatch["code"], "resume_mismatch");
    assert!(
        mismatch["message"]
            .as_str()
            .unwrap()
            .contains("/resume/0/interruptId")
    );

    // Another thread is not paused.
    let mut other = input("run-4", json!({"scenario": "chat"}));
    other["threadId"] = json!("thread-2");
    assert_eq!(last(&run(other).await)["type"], "RUN_FINISHED");

    // The right resume completes the run and unpauses the thread.
    let mut resume = input("run-5", json!({"scenario": "interrupt"}));
    resume["resume"] =
        json!([{"interruptId": interrupt_id, "status": "resolved", "payload": {"approved": true}}]);
    let resumed = run(resume.clone()).await;
    assert_eq!(last(&resumed)["outcome"]["type"], "success");
    // Replaying it is safe: answered the same way.
    resume["runId"] = json!("run-6");
    let replayed = run(resume).await;
    assert_eq!(last(&replayed)["outcome"]["type"], "success");
    // An ordinary input runs again.
    assert_eq!(
        last(&run(input("run-7", json!({"scenario": "chat"}))).await)["type"],
        "RUN_FINISHED"
    );
}
