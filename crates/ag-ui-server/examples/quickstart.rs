//! Starts the demo agent on a loopback port, runs its `chat` scenario over HTTP and prints
//! what streams back: reasoning, the assistant's text, the tool call and its result, and
//! the state.
//!
//! `cargo run -p ag-ui-server --example quickstart`
//!
//! The client side is a plain HTTP read (reqwest, the core's `SseReader` and decoder).

use std::io::Write;

use ag_ui_core::{Event, SseReader};
use ag_ui_server::demo::DemoAgent;
use futures_util::StreamExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/", listener.local_addr()?);
    tokio::spawn(ag_ui_server::axum::serve(
        listener,
        ag_ui_server::axum::router(DemoAgent::with_pace(std::time::Duration::from_millis(150))),
    ));
    println!("demo agent serving at {url}\n");
    println!("user: What is the weather in Amsterdam?");

    let input = serde_json::json!({
        "threadId": "thread-1",
        "runId": "run-1",
        "messages": [{"id": "user-1", "role": "user", "content": "What is the weather in Amsterdam?"}],
        "forwardedProps": {"scenario": "chat"},
    });
    let response = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(&input)?)
        .send()
        .await?;
    let mut body = response.bytes_stream();
    let mut reader = SseReader::new();
    let mut out = std::io::stdout().lock();
    while let Some(chunk) = body.next().await {
        reader.feed(&chunk?)?;
        while let Some(message) = reader.next_message() {
            show(&mut out, &ag_ui_core::from_str(&message)?)?;
            out.flush()?;
        }
    }
    Ok(())
}

fn show(out: &mut impl Write, event: &Event) -> std::io::Result<()> {
    match event {
        Event::RunStarted(e) => writeln!(out, "[run {} started]", e.run_id.as_str()),
        Event::ReasoningMessageStart(_) => write!(out, "(thinking: "),
        Event::ReasoningMessageContent(e) => write!(out, "{}", e.delta),
        Event::ReasoningMessageEnd(_) => writeln!(out, ")"),
        Event::TextMessageStart(_) => write!(out, "assistant: "),
        Event::TextMessageContent(e) => write!(out, "{}", e.delta),
        Event::TextMessageEnd(_) => writeln!(out),
        Event::ToolCallStart(e) => write!(out, "tool call {}(", e.tool_call_name),
        Event::ToolCallArgs(e) => write!(out, "{}", e.delta),
        Event::ToolCallEnd(_) => writeln!(out, ")"),
        Event::ToolCallResult(e) => {
            writeln!(out, "tool result: {}", serde_json::to_string(&e.content)?)
        }
        Event::StateSnapshot(e) => writeln!(out, "state: {}", e.snapshot),
        Event::StateDelta(e) => writeln!(out, "state patch: {}", serde_json::to_string(&e.delta)?),
        Event::RunFinished(e) => writeln!(
            out,
            "[run {} finished: {}]",
            e.run_id.as_str(),
            serde_json::to_value(&e.outcome)?["type"]
        ),
        Event::RunError(e) => writeln!(out, "[run failed: {}]", e.message),
        _ => Ok(()),
    }
}
