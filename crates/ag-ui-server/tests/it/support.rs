//! A server on 127.0.0.1:0 and a client that reads its events.

use ag_ui_core::{Event, SseReader};
use futures_util::StreamExt;
use serde_json::{Value, json};

pub use ag_ui_testkit::net::LIMIT;
pub use ag_ui_testkit::server::{Server, serve_agent as serve};

/// Serves `router` with the production server and `config`.
pub async fn serve_router(
    router: axum::Router,
    config: ag_ui_server::serve::ServeConfig,
) -> Server {
    let listener = config.bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    Server::spawn(addr, async move {
        ag_ui_server::axum::serve_with(listener, router, config)
            .await
            .unwrap();
    })
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(LIMIT).build().unwrap()
}

/// A minimal run input for `thread`/`run`, with `forwardedProps`, as a 1.0 client sends
/// it (with `protocolVersion`: without it the server serves a pre-1.0 caller).
pub fn input(run: &str, forwarded: Value) -> Value {
    json!({
        "protocolVersion": "1.0",
        "threadId": "thread-1",
        "runId": run,
        "messages": [{"id": "u1", "role": "user", "content": "What is the weather?"}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": forwarded,
    })
}

/// POSTs `body` as JSON with `Accept: text/event-stream`.
pub async fn post(server: &Server, body: &Value) -> reqwest::Response {
    client()
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(body).unwrap())
        .send()
        .await
        .unwrap()
}

/// Reads SSE messages from a response as they come.
pub struct Events {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    reader: SseReader,
    pub raw: Vec<u8>,
    done: bool,
}

impl Events {
    pub fn new(response: reqwest::Response) -> Self {
        Events {
            body: response.bytes_stream().boxed(),
            reader: SseReader::new(),
            raw: Vec::new(),
            done: false,
        }
    }

    /// The next event, or `None` at the end of the stream.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(message) = self.reader.next_message() {
                return Some(ag_ui_core::read::from_str(&message).unwrap());
            }
            if self.done {
                return None;
            }
            match tokio::time::timeout(LIMIT, self.body.next()).await.unwrap() {
                Some(chunk) => {
                    let chunk = chunk.unwrap();
                    self.raw.extend_from_slice(&chunk);
                    self.reader.feed(&chunk).unwrap();
                }
                None => {
                    self.done = true;
                    if let Some(message) = self.reader.finish().unwrap() {
                        return Some(ag_ui_core::read::from_str(&message).unwrap());
                    }
                }
            }
        }
    }

    /// Every remaining event.
    pub async fn all(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        while let Some(e) = self.next().await {
            out.push(e);
        }
        out
    }
}

/// The events of a run, as JSON values.
pub fn values(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

pub fn types(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(|e| e.event_type().as_str()).collect()
}
