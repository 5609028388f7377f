//! The SDK end to end on one machine: serves the demo agent (`ag-ui-server`) on a loopback
//! port, runs it with the Rust client (`ag-ui-client`: HTTP, SSE, the 1.0 receiving
//! pipeline and `ThreadState`), prints the events as they stream, then the conversation
//! and the shared state the client folded from them. A second turn sends the whole
//! history back, as every AG-UI client does.
//!
//! `cargo run --example quickstart` (from the workspace root)

use std::io::Write;

use ag_ui_client::{HttpAgent, RunItem, RunOptions};
use ag_ui_core::{Content, Event, Message};
use ag_ui_server::demo::DemoAgent;
use futures_util::StreamExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/", listener.local_addr()?);
    tokio::spawn(ag_ui_server::axum::serve(
        listener,
        ag_ui_server::axum::router(DemoAgent::with_pace(std::time::Duration::from_millis(60))),
    ));
    println!("demo agent serving at {url}");

    let mut agent = HttpAgent::builder(url.as_str()).build()?;
    for question in [
        "What is the weather in Amsterdam?",
        "Check it again, please.",
    ] {
        println!("\n> user: {question}");
        agent.add_user_message(question);
        let options = RunOptions::new().forwarded_props(serde_json::json!({"scenario": "chat"}));
        let mut run = agent.run(options);
        let mut out = std::io::stdout().lock();
        while let Some(item) = run.next().await {
            match item {
                RunItem::Event(event) => show(&mut out, &event)?,
                RunItem::End(end) => {
                    if let Some(error) = end.error {
                        return Err(error.into());
                    }
                }
                _ => {}
            }
            out.flush()?;
        }
    }

    println!("\n== the conversation, as the client's thread holds it");
    for message in agent.messages() {
        println!("{}", line(message));
    }
    println!("\n== the shared state");
    println!("{}", serde_json::to_string_pretty(agent.state())?);
    Ok(())
}

/// Prints an event the moment it arrives.
fn show(out: &mut impl Write, event: &Event) -> std::io::Result<()> {
    match event {
        Event::RunStarted(e) => writeln!(out, "[run {} started]", e.run_id.as_str()),
        Event::ReasoningMessageStart(_) => write!(out, "  (thinking: "),
        Event::ReasoningMessageContent(e) => write!(out, "{}", e.delta),
        Event::ReasoningMessageEnd(_) => writeln!(out, ")"),
        Event::TextMessageStart(_) => write!(out, "  assistant: "),
        Event::TextMessageContent(e) => write!(out, "{}", e.delta),
        Event::TextMessageEnd(_) => writeln!(out),
        Event::ToolCallStart(e) => write!(out, "  tool call {}(", e.tool_call_name),
        Event::ToolCallArgs(e) => write!(out, "{}", e.delta),
        Event::ToolCallEnd(_) => writeln!(out, ")"),
        Event::StateDelta(e) => writeln!(
            out,
            "  state patch: {}",
            ag_ui_core::write::to_string(&e.delta).unwrap_or_default()
        ),
        Event::RunFinished(e) => writeln!(out, "[run {} finished]", e.run_id.as_str()),
        Event::RunError(e) => writeln!(out, "[run failed: {}]", e.message),
        _ => Ok(()),
    }
}

/// One line per message of the folded thread.
fn line(message: &Message) -> String {
    let text = |c: &Content| match c {
        Content::Text(t) => t.clone(),
        other => ag_ui_core::write::to_string(other).unwrap_or_default(),
    };
    match message {
        Message::User(m) => format!("user:      {}", text(&m.content)),
        Message::Reasoning(m) => format!("reasoning: {}", m.content),
        Message::Assistant(m) => {
            let calls: Vec<String> = m
                .tool_calls
                .iter()
                .flatten()
                .map(|c| format!("{}({})", c.function.name, c.function.arguments))
                .collect();
            match (&m.content, calls.is_empty()) {
                (Some(content), true) => format!("assistant: {content}"),
                (Some(content), false) => {
                    format!("assistant: {content} [calls {}]", calls.join(", "))
                }
                (None, _) => format!("assistant: [calls {}]", calls.join(", ")),
            }
        }
        Message::Tool(m) => format!("tool:      {}", text(&m.content)),
        other => format!(
            "{}: {}",
            other.role(),
            ag_ui_core::write::to_string(other).unwrap_or_default()
        ),
    }
}
