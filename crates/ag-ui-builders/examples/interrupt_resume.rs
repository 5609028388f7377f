//! Human in the loop: a run pauses on a tool-approval interrupt; the client folds the
//! streamed run into its thread, answers every pending interrupt in the next run's input
//! (which carries the whole thread on), and the resumed run delivers the tool result.
//!
//! Run with `cargo run -p ag-ui-builders --example interrupt_resume`.

use ag_ui_builders::interrupt::input_required;
use ag_ui_builders::{Conversation, RunEmitter, RunInputBuilder, SequentialIds, thread_state};
use ag_ui_core::{RunAgentInput, RunStatus, StreamConsumer, ThreadState};
use serde_json::json;

/// The agent: writes the run that `input` asks for as SSE bytes.
fn agent(input: &RunAgentInput) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let prefix = input.run_id.to_string();
    let mut run = RunEmitter::start_for(input).with_ids(SequentialIds::with_prefix(prefix));
    match input.resume.as_deref() {
        // First run: propose the email and ask for approval.
        None => {
            run.text("I will send the report to bob@example.com.")?;
            let call = run.tool_call("send_email", json!({"to": "bob@example.com"}))?;
            run.state(&json!({"outbox": ["report"]}))?;
            let approval = input_required(
                run.new_interrupt_id()?,
                "Send the email to bob@example.com?",
                json!({"type": "object", "properties": {"approved": {"type": "boolean"}}}),
            )?
            .with_tool_call_id(call);
            run.interrupt([approval])?;
        }
        // Resumed: the answer says whether to run the tool of the earlier run.
        Some(answers) => {
            let approved = answers
                .iter()
                .all(|a| a.payload.as_ref().is_some_and(|p| p["approved"] == true));
            // The call awaiting approval is the one the thread left unanswered.
            let history = Conversation::from_messages(input.messages.iter().cloned());
            let call = history
                .open_tool_calls()
                .first()
                .cloned()
                .ok_or("no tool call awaits approval")?;
            if approved {
                run.tool_call_result(call.clone(), r#"{"sent":true}"#)?;
                run.state(&json!({"outbox": []}))?;
                run.text("Done: the report is on its way to Bob.")?;
            } else {
                run.tool_call_result(call, r#"{"sent":false}"#)?;
                run.text("Not sent.")?;
            }
            run.finish()?;
        }
    }
    let mut sse = Vec::new();
    for event in run.into_events() {
        ag_ui_core::sse::write_sse_frame(&mut sse, &event)?;
    }
    Ok(sse)
}

/// The client: applies a streamed run to `thread`.
fn consume(thread: ThreadState, sse: &[u8]) -> Result<ThreadState, Box<dyn std::error::Error>> {
    let mut consumer = StreamConsumer::with_thread(thread);
    // Any chunking works; feed it in two halves as a network would.
    let (a, b) = sse.split_at(sse.len() / 2);
    consumer.feed(a)?;
    consumer.feed(b)?;
    consumer.finish()?;
    for warning in consumer.take_warnings() {
        println!("  warning: {warning}");
    }
    Ok(consumer.into_thread())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let first = RunInputBuilder::new("thread-1", "run-1")
        .conversation(Conversation::with_ids(SequentialIds::new()).user("Email Bob the report."))
        .context("User email", "alice@example.com")
        .build();
    let sse = agent(&first)?;
    println!("run 1:\n{}", String::from_utf8_lossy(&sse));

    // The thread after run 1: the user's message, the assistant's text and tool call, the
    // state, and the run's pending interrupts.
    let thread = consume(thread_state(&first), &sse)?;
    assert_eq!(thread.run_status(), RunStatus::Finished);
    for interrupt in thread.pending_interrupts() {
        println!(
            "needs input: {}",
            interrupt.message.as_deref().unwrap_or(&interrupt.reason)
        );
    }

    // The next run carries the whole thread (messages, state), the tools, the context and
    // forwarded props, and answers every pending interrupt.
    let second = RunInputBuilder::next_run(&first, "run-2")
        .resolve_all(thread.pending_interrupts(), |_| json!({"approved": true}))
        .thread_owned(thread.clone())
        .build();
    println!("run 2 input:\n  {}", ag_ui_core::write::to_string(&second)?);
    assert_eq!(second.messages.len(), 2);

    let sse = agent(&second)?;
    println!("run 2:\n{}", String::from_utf8_lossy(&sse));
    let thread = consume(thread, &sse)?;
    println!(
        "thread after run 2:\n  {}",
        serde_json::to_string(thread.messages())?
    );
    println!("state: {}", thread.state());
    Ok(())
}
