//! What reaches the client and when: no buffering, disconnects, failures, concurrency.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ag_ui_builders::RunEmitter;
use ag_ui_core::{
    Event, RunAgentInput, RunStartedEvent, TextMessageContentEvent, TextMessageStartEvent,
};
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::{AgentService, AgentStream, Cancellation, EmitError, ReportKind, emit};
use serde_json::json;
use tokio::sync::mpsc;

use crate::support::{Events, input, post, serve, types, values};

type Gate = Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<()>>>;

#[tokio::test]
async fn each_event_reaches_the_client_before_the_next_is_produced() {
    let (open, gate) = mpsc::unbounded_channel::<()>();
    let gate: Gate = Arc::new(tokio::sync::Mutex::new(gate));
    // The agent produces delta i+1 only after the client has read delta i.
    let agent = move |input: RunAgentInput, _cancel: Cancellation| -> AgentStream {
        let gate = Arc::clone(&gate);
        emit(RunEmitter::start_for(&input), move |mut run| async move {
            for i in 0..5 {
                run.emit(|r| r.text(format!("{i}"))).await?;
                if gate.lock().await.recv().await.is_none() {
                    return Ok(());
                }
            }
            run.emit(RunEmitter::finish).await?;
            Ok::<_, EmitError>(())
        })
    };
    let server = serve(AgentService::new(agent).keep_alive(None)).await;
    let mut events = Events::new(post(&server, &input("run-1", json!({}))).await);
    let mut seen = Vec::new();
    for i in 0..5 {
        loop {
            let event = tokio::time::timeout(Duration::from_secs(5), events.next())
                .await
                .unwrap_or_else(|_| panic!("delta {i} did not arrive before the next was produced"))
                .unwrap();
            seen.push(event.clone());
            if let Event::TextMessageContent(c) = &event {
                assert_eq!(c.delta, i.to_string());
                break;
            }
        }
        open.send(()).unwrap();
    }
    seen.extend(events.all().await);
    assert_eq!(
        types(&seen),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
}

#[tokio::test]
async fn a_client_disconnect_cancels_the_run() {
    // The agent hands its cancellation signal out, then works forever; the run's stream
    // dropping (when the connection fails) also drops this future.
    let (signal_tx, mut signal_rx) = mpsc::unbounded_channel::<Cancellation>();
    let (dropped_tx, mut dropped_rx) = mpsc::unbounded_channel::<()>();
    struct OnDrop(mpsc::UnboundedSender<()>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    let agent = move |input: RunAgentInput, cancel: Cancellation| -> AgentStream {
        signal_tx.send(cancel).unwrap();
        let dropped = OnDrop(dropped_tx.clone());
        emit(RunEmitter::start_for(&input), move |mut run| async move {
            let _dropped = dropped;
            run.emit(|r| r.text("working")).await?;
            std::future::pending::<()>().await;
            Ok::<_, EmitError>(())
        })
    };
    let (report_tx, report_rx) = std::sync::mpsc::channel();
    let report_tx = Mutex::new(report_tx);
    let service = AgentService::new(agent)
        .keep_alive(Some(Duration::from_millis(50)))
        .hook(move |r| {
            if matches!(r.kind(), ReportKind::Disconnected) {
                report_tx.lock().unwrap().send(()).unwrap();
            }
        });
    let server = serve(service).await;
    let mut events = Events::new(post(&server, &input("run-gone", json!({}))).await);
    let first = events.next().await.unwrap();
    assert_eq!(first.event_type().as_str(), "RUN_STARTED");
    let cancel = signal_rx.recv().await.unwrap();
    // Still connected: keep-alive comments flow, the run goes on.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!cancel.is_cancelled());
    assert!(dropped_rx.try_recv().is_err());
    drop(events);
    tokio::time::timeout(Duration::from_secs(10), cancel.cancelled())
        .await
        .expect("the run was not cancelled after the client went away");
    tokio::time::timeout(Duration::from_secs(5), dropped_rx.recv())
        .await
        .expect("the agent's work was not dropped")
        .unwrap();
    report_rx.recv_timeout(Duration::from_secs(5)).unwrap();
}

fn started(input: &RunAgentInput) -> Event {
    RunStartedEvent::new(input.thread_id.clone(), input.run_id.clone()).into()
}

async fn run_of<A: ag_ui_server::Agent>(agent: A) -> Vec<Event> {
    let server = serve(AgentService::new(agent)).await;
    let response = post(&server, &input("run-1", json!({}))).await;
    assert_eq!(response.status().as_u16(), 200);
    let events = Events::new(response).all().await;
    ag_ui_core::stream::verify_events(&events).unwrap();
    events
}

fn run_error(event: &Event) -> (String, String) {
    match event {
        Event::RunError(e) => (e.message.clone(), e.code.clone().unwrap_or_default()),
        other => panic!("expected RUN_ERROR, got {other:?}"),
    }
}

fn failing_agent(input: RunAgentInput, _: Cancellation) -> AgentStream {
    Box::pin(futures_util::stream::iter(vec![
        Ok(started(&input)),
        Ok(TextMessageStartEvent::new("m1").into()),
        Err("the model provider is down: password=hunter2".into()),
        Ok(TextMessageContentEvent::new("m1", "never sent").into()),
    ]))
}

#[tokio::test]
async fn a_failing_agent_ends_with_run_error_whose_message_is_redacted_with_an_error_id() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let hook_seen = Arc::clone(&seen);
    let service = AgentService::new(failing_agent).hook(move |r| {
        if let ReportKind::AgentError(e) = r.kind() {
            hook_seen.lock().unwrap().push((
                e.to_string(),
                r.error_id().unwrap().to_owned(),
                r.thread_id().unwrap().to_owned(),
                r.run_id().unwrap().to_owned(),
            ));
        }
    });
    let server = serve(service).await;
    let events = Events::new(post(&server, &input("run-1", json!({}))).await)
        .all()
        .await;
    ag_ui_core::stream::verify_events(&events).unwrap();
    assert_eq!(
        types(&events),
        ["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_ERROR"]
    );
    let (message, code) = run_error(&events[2]);
    assert_eq!(code, "agent_error");
    assert!(!message.contains("hunter2"), "{message}");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let (text, error_id, thread, run) = &seen[0];
    assert_eq!(text, "the model provider is down: password=hunter2");
    assert_eq!(error_id.len(), 16);
    assert_eq!(message, format!("the agent failed (error id {error_id})"));
    assert_eq!((thread.as_str(), run.as_str()), ("thread-1", "run-1"));
}

#[tokio::test]
async fn expose_errors_forwards_the_agent_error_text() {
    let server = serve(AgentService::new(failing_agent).expose_errors(true)).await;
    let events = Events::new(post(&server, &input("run-1", json!({}))).await)
        .all()
        .await;
    let (message, code) = run_error(&events[2]);
    assert_eq!(code, "agent_error");
    assert_eq!(
        message,
        "the agent failed: the model provider is down: password=hunter2"
    );
}

#[tokio::test]
async fn a_panicking_agent_ends_with_run_error_and_the_server_goes_on() {
    let agent = |input: RunAgentInput, _: Cancellation| -> AgentStream {
        emit(RunEmitter::start_for(&input), |mut run| async move {
            run.emit(|r| r.text("about to fail")).await?;
            if run.run().run_id().as_str() == "run-1" {
                panic!("the agent hit a bug");
            }
            run.emit(RunEmitter::finish).await
        })
    };
    let server = serve(AgentService::new(agent)).await;
    let events = Events::new(post(&server, &input("run-1", json!({}))).await)
        .all()
        .await;
    ag_ui_core::stream::verify_events(&events).unwrap();
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "RUN_ERROR"
        ]
    );
    let (message, code) = run_error(&events[3]);
    assert_eq!(code, "agent_panic");
    assert!(
        message.starts_with("the agent panicked (error id "),
        "{message}"
    );
    assert!(!message.contains("bug"), "{message}");
    // The next run on the same server is unaffected.
    let events = Events::new(post(&server, &input("run-2", json!({}))).await)
        .all()
        .await;
    assert_eq!(events.last().unwrap().event_type().as_str(), "RUN_FINISHED");
}

#[tokio::test]
async fn an_agent_that_panics_before_returning_its_stream_ends_with_run_error() {
    // The panic happens in the agent function itself, as `input.messages.last().unwrap()`
    // on an empty input would, before any stream exists.
    let agent = |input: RunAgentInput, _: Cancellation| -> AgentStream {
        if input.run_id.as_str() == "run-1" {
            panic!("no message to answer");
        }
        emit(RunEmitter::start_for(&input), |mut run| async move {
            run.emit(RunEmitter::finish).await
        })
    };
    let server = serve(AgentService::new(agent)).await;
    let events = Events::new(post(&server, &input("run-1", json!({}))).await)
        .all()
        .await;
    ag_ui_core::stream::verify_events(&events).unwrap();
    assert_eq!(types(&events), ["RUN_ERROR"]);
    let (message, code) = run_error(&events[0]);
    assert_eq!(
        (&message[..28], code.as_str()),
        ("the agent panicked (error id", "agent_panic")
    );
    let events = Events::new(post(&server, &input("run-2", json!({}))).await)
        .all()
        .await;
    assert_eq!(types(&events), ["RUN_STARTED", "RUN_FINISHED"]);
}

#[tokio::test]
async fn a_stream_that_ends_early_still_ends_with_a_terminal_event() {
    let events = run_of(|input: RunAgentInput, _: Cancellation| {
        futures_util::stream::iter(vec![
            Ok::<_, std::io::Error>(started(&input)),
            Ok(TextMessageStartEvent::new("m1").into()),
        ])
    })
    .await;
    assert_eq!(
        types(&events),
        ["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_ERROR"]
    );
    assert_eq!(run_error(&events[2]).1, "incomplete_run");

    let events = run_of(|_: RunAgentInput, _: Cancellation| {
        futures_util::stream::empty::<Result<Event, std::io::Error>>()
    })
    .await;
    assert_eq!(types(&events), ["RUN_ERROR"]);
    assert_eq!(run_error(&events[0]).1, "incomplete_run");
}

fn out_of_order(
    input: RunAgentInput,
    _: Cancellation,
) -> impl futures_core::Stream<Item = Result<Event, std::io::Error>> {
    futures_util::stream::iter(vec![
        Ok(started(&input)),
        Ok(TextMessageContentEvent::new("m9", "no message m9 is open").into()),
        Ok(TextMessageStartEvent::new("m1").into()),
    ])
}

#[tokio::test]
async fn verification_turns_a_violation_into_run_error() {
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    let service = AgentService::new(out_of_order).hook(move |r| {
        if let ReportKind::Violation(v) = r.kind() {
            tx.lock().unwrap().send(v.rule.to_string()).unwrap();
        }
    });
    let server = serve(service).await;
    let events = Events::new(post(&server, &input("run-1", json!({}))).await)
        .all()
        .await;
    assert_eq!(types(&events), ["RUN_STARTED", "RUN_ERROR"]);
    let (message, code) = run_error(&events[1]);
    assert_eq!(code, "protocol_violation");
    assert!(message.contains("M2"), "{message}");
    assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), "M2");

    // Without verification the events pass as they are (and the run, left open, still
    // gets its terminal event).
    let server = serve(AgentService::new(out_of_order).verify(false)).await;
    let events = Events::new(post(&server, &input("run-1", json!({}))).await)
        .all()
        .await;
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_START",
            "RUN_ERROR"
        ]
    );
}

#[tokio::test]
async fn concurrent_runs_do_not_interfere() {
    let server = serve(AgentService::new(DemoAgent::with_pace(
        Duration::from_millis(5),
    )))
    .await;
    let scenarios = [
        "chat",
        "interrupt",
        "error",
        "chat",
        "interrupt",
        "error",
        "chat",
        "chat",
    ];
    let mut tasks = Vec::new();
    for (i, scenario) in scenarios.iter().enumerate() {
        let body = input(&format!("run-{i}"), json!({"scenario": scenario}));
        let url = server.url();
        tasks.push(tokio::spawn(async move {
            let response = crate::support::client()
                .post(url)
                .header("content-type", "application/json")
                .header("accept", "text/event-stream")
                .body(serde_json::to_vec(&body).unwrap())
                .send()
                .await
                .unwrap();
            Events::new(response).all().await
        }));
    }
    let mut together = Vec::new();
    for t in tasks {
        together.push(t.await.unwrap());
    }
    // Each equals the same run served alone.
    for (i, scenario) in scenarios.iter().enumerate() {
        let alone = Events::new(
            post(
                &server,
                &input(&format!("run-{i}"), json!({"scenario": scenario})),
            )
            .await,
        )
        .all()
        .await;
        assert_eq!(values(&together[i]), values(&alone), "run-{i} ({scenario})");
        ag_ui_core::stream::verify_events(&together[i]).unwrap();
    }
}
