//! Integration tests: the client against a real HTTP server on 127.0.0.1, and the
//! runtime-free core (`stream`), which also runs without the `http` feature.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

#[cfg(feature = "http")]
mod compat;
#[cfg(feature = "http")]
mod errors_doc;
#[cfg(feature = "http")]
mod failures;
mod layout;
#[cfg(feature = "proto")]
mod proto;
#[cfg(feature = "http")]
mod retries;
#[cfg(feature = "http")]
mod runs;
mod server;
mod stream;

use std::future::Future;
use std::time::Duration;

use ag_ui_core::Event;
use serde_json::{Value, json};

/// Every test finishes within this bound, whatever the client does.
pub const LIMIT: Duration = Duration::from_secs(30);

/// Runs `f` within [`LIMIT`].
pub async fn bounded<T>(f: impl Future<Output = T>) -> T {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("the test took longer than its bound")
}

/// Reads a run to its end: the delivered events and the end.
#[cfg(feature = "http")]
pub async fn collect(mut run: ag_ui_client::HttpRun<'_>) -> (Vec<Event>, ag_ui_client::RunEnd) {
    use ag_ui_client::RunItem;
    use futures_util::StreamExt;
    let mut events = Vec::new();
    let mut end = None;
    while let Some(item) = run.next().await {
        match item {
            RunItem::Event(e) => {
                assert!(end.is_none(), "an event after the end");
                events.push(e);
            }
            RunItem::End(e) => {
                assert!(end.is_none(), "two ends");
                end = Some(e);
            }
            _ => {}
        }
    }
    (events, end.expect("the run yielded no end"))
}

/// The event types, as strings.
pub fn types(events: &[Event]) -> Vec<String> {
    events.iter().map(|e| e.event_type().to_string()).collect()
}

/// A value as JSON (for comparing parsed JSON, never strings).
pub fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

pub fn run_started() -> Value {
    json!({"type":"RUN_STARTED","threadId":"t1","runId":"r1"})
}

pub fn run_finished() -> Value {
    json!({"type":"RUN_FINISHED","threadId":"t1","runId":"r1"})
}

/// A whole chat turn: the assistant answers `text` in two deltas.
pub fn chat(id: &str, a: &str, b: &str) -> Vec<Value> {
    vec![
        run_started(),
        json!({"type":"TEXT_MESSAGE_START","messageId":id,"role":"assistant"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":id,"delta":a}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":id,"delta":b}),
        json!({"type":"TEXT_MESSAGE_END","messageId":id}),
        run_finished(),
    ]
}
