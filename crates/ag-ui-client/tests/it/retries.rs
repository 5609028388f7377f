//! What the client retries, over real sockets: only the stream of a run the server declared
//! resumable (`Content-Location` on a 2xx SSE response), joined again with `GET` and
//! `Last-Event-ID` from the last event received; never the run's `POST`.

use std::time::Duration;

use ag_ui_client::{ClientError, ClientErrorKind, HttpAgent, RunItem, RunOptions};
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::server::{Ending, Part, Plan, TestServer};
use crate::{bounded, chat, to_json};

/// SSE messages with ids `first`, `first + 1`, …
fn with_ids(events: &[Value], first: usize) -> String {
    events
        .iter()
        .enumerate()
        .map(|(k, e)| format!("id: {}\ndata: {e}\n\n", first + k))
        .collect()
}

const JOIN: &str = "/agent/runs/r1/events";

/// The run's `POST` answered with the first three events of [`chat`], ids 1 to 3, as a
/// resumable run; then the connection is cut.
fn cut_after_three() -> Plan {
    Plan::sse_parts(
        vec![Part::Bytes(
            with_ids(&chat("a1", "Hel", "lo")[..3], 1).into_bytes(),
        )],
        Ending::Cut,
    )
    .header("content-location", JOIN)
}

fn error(status: u16) -> Plan {
    Plan {
        status,
        content_type: Some("application/json".into()),
        parts: vec![Part::Bytes(br#"{"error":"busy"}"#.to_vec())],
        ending: Ending::Clean,
        headers: Vec::new(),
    }
}

fn resumable_agent(server: &TestServer, attempts: u32) -> HttpAgent {
    HttpAgent::builder(&server.url)
        .thread_id("t1")
        .resume_attempts(attempts)
        .resume_backoff(Duration::from_millis(5), Duration::from_millis(20))
        .build()
        .unwrap()
}

/// Every item of a run and its end.
async fn read_all(mut run: ag_ui_client::HttpRun<'_>) -> (Vec<RunItem>, ag_ui_client::RunEnd) {
    let mut items = Vec::new();
    while let Some(item) = run.next().await {
        match item {
            RunItem::End(end) => return (items, end),
            item => items.push(item),
        }
    }
    panic!("the run yielded no end")
}

fn event_types(items: &[RunItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(RunItem::event)
        .map(|e| e.event_type().to_string())
        .collect()
}

fn attempts(items: &[RunItem]) -> Vec<u32> {
    items
        .iter()
        .filter_map(|i| match i {
            RunItem::Reconnecting(r) => Some(r.attempt),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_cut_resumable_run_is_joined_from_its_last_event_and_a_join_answered_5xx_is_retried() {
    bounded(async {
        let rest = Plan::sse(with_ids(&chat("a1", "Hel", "lo")[3..], 4));
        let server = TestServer::start(move |_, n| match n {
            0 => cut_after_three(),
            1 => error(503),
            _ => rest.clone(),
        })
        .await;
        let mut agent = resumable_agent(&server, 5);
        agent.add_user_message("Hi");
        let (items, end) = read_all(agent.run(RunOptions::new().run_id("r1"))).await;
        assert!(end.is_ok(), "{:?}", end.error);
        // Every event once, in order.
        let expected: Vec<String> = chat("a1", "Hel", "lo")
            .iter()
            .map(|e| e["type"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(event_types(&items), expected);
        assert_eq!(to_json(agent.messages())[1]["content"], "Hello");
        // No event arrived between the two attempts: they count up.
        assert_eq!(attempts(&items), [1, 2]);
        let requests = server.requests();
        let sent: Vec<(&str, &str, Option<&str>)> = requests
            .iter()
            .map(|r| {
                let after = r.headers.get("last-event-id").map(|v| v.to_str().unwrap());
                (r.method.as_str(), r.path.as_str(), after)
            })
            .collect();
        assert_eq!(
            sent,
            [
                ("POST", "/agent", None),
                ("GET", JOIN, Some("3")),
                ("GET", JOIN, Some("3")),
            ]
        );
        // The join sends no run input: the agent is not run again.
        assert_eq!(requests[1].body, Value::Null);
        assert_eq!(requests[0].body["runId"], json!("r1"));
    })
    .await;
}

#[tokio::test]
async fn a_join_answered_4xx_ends_the_run_with_that_status() {
    bounded(async {
        let server = TestServer::start(|_, n| {
            if n == 0 {
                cut_after_three()
            } else {
                error(410)
            }
        })
        .await;
        let mut agent = resumable_agent(&server, 5);
        let (items, end) = read_all(agent.run(RunOptions::new().run_id("r1"))).await;
        assert_eq!(event_types(&items).len(), 3);
        assert_eq!(attempts(&items), [1]);
        assert!(
            matches!(end.error, Some(ClientError::HttpStatus { status: 410, .. })),
            "{:?}",
            end.error
        );
        assert_eq!(server.requests().len(), 2);
    })
    .await;
}

#[tokio::test]
async fn the_attempts_are_bounded_and_zero_turns_resuming_off() {
    bounded(async {
        // Every join fails with 503: the attempts run out.
        let server = TestServer::start(|_, n| {
            if n == 0 {
                cut_after_three()
            } else {
                error(503)
            }
        })
        .await;
        let mut agent = resumable_agent(&server, 3);
        let (items, end) = read_all(agent.run(RunOptions::new().run_id("r1"))).await;
        assert_eq!(attempts(&items), [1, 2, 3]);
        assert!(
            matches!(end.error, Some(ClientError::HttpStatus { status: 503, .. })),
            "{:?}",
            end.error
        );
        assert_eq!(server.requests().len(), 4);

        let server = TestServer::always(cut_after_three()).await;
        let mut agent = resumable_agent(&server, 0);
        let (items, end) = read_all(agent.run(RunOptions::new().run_id("r1"))).await;
        assert!(attempts(&items).is_empty());
        assert_eq!(
            end.error.as_ref().map(ClientError::kind),
            Some(ClientErrorKind::Transport)
        );
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_post_answered_with_an_error_is_never_retried_even_with_a_location() {
    bounded(async {
        let server = TestServer::always(error(503).header("content-location", JOIN)).await;
        let mut agent = resumable_agent(&server, 5);
        let (items, end) = read_all(agent.run(RunOptions::new().run_id("r1"))).await;
        assert!(items.is_empty());
        assert!(
            matches!(end.error, Some(ClientError::HttpStatus { status: 503, .. })),
            "{:?}",
            end.error
        );
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_resumable_run_that_sends_a_refused_event_is_not_joined_again() {
    bounded(async {
        let events = [
            chat("a1", "Hel", "lo")[0].clone(),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":7}),
        ];
        let plan = Plan::sse_parts(
            vec![Part::Bytes(with_ids(&events, 1).into_bytes())],
            Ending::Cut,
        )
        .header("content-location", JOIN);
        let server = TestServer::always(plan).await;
        let mut agent = resumable_agent(&server, 5);
        let (items, end) = read_all(agent.run(RunOptions::new().run_id("r1"))).await;
        assert!(attempts(&items).is_empty());
        let kind = end.error.as_ref().map(ClientError::kind);
        assert_eq!(kind, Some(ClientErrorKind::Schema), "{:?}", end.error);
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}
