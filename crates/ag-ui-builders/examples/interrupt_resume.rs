//! Human in the loop: a run pauses on a tool-approval interrupt, the client answers it in
//! the next run's input, and the resumed run delivers the tool result.
//!
//! Run with `cargo run -p ag-ui-builders --example interrupt_resume`.

use ag_ui_builders::{
    Conversation, RunEmitter, RunInputBuilder, SequentialIds, resolve, tool_approval,
};
use ag_ui_core::{Event, RunFinishedOutcome};
use serde_json::json;

fn print(events: &[Event]) -> Result<(), Box<dyn std::error::Error>> {
    for e in events {
        println!("  {}", ag_ui_core::to_string(e)?);
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Run 1: the agent wants to send an email and asks for approval first.
    let first = RunInputBuilder::new("thread-1", "run-1")
        .conversation(Conversation::with_ids(SequentialIds::new()).user("Email Bob the report."))
        .build();
    let mut run = RunEmitter::start_for(&first).with_ids(SequentialIds::with_prefix("r1"));
    run.text("I will send the report to bob@example.com.")?;
    let call = run.tool_call("send_email", json!({"to": "bob@example.com"}))?;
    run.interrupt([
        tool_approval("int-1", call.clone(), "Send the email to bob@example.com?")
            .with_response_schema(
                json!({"type": "object", "properties": {"approved": {"type": "boolean"}}})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
    ])?;
    let events = run.into_events();
    println!("run 1:");
    print(&events)?;

    // The client sees the pause and answers every interrupt in the next run's input.
    let Some(Event::RunFinished(finished)) = events.last() else {
        return Err("run 1 did not finish".into());
    };
    let RunFinishedOutcome::Interrupt(paused) = finished.outcome().into_owned() else {
        return Err("run 1 did not pause".into());
    };
    let mut next = RunInputBuilder::next_run(&first, "run-2");
    for interrupt in paused.interrupts.iter() {
        println!(
            "needs input: {}",
            interrupt.message.as_deref().unwrap_or(&interrupt.reason)
        );
        next = next.resume(resolve(interrupt.id.clone(), json!({"approved": true})));
    }
    let second = next.build();
    println!("run 2 input:\n  {}", ag_ui_core::to_string(&second)?);

    // Run 2: approved, so the tool runs; its result answers the call of run 1.
    let mut run = RunEmitter::start_for(&second).with_ids(SequentialIds::with_prefix("r2"));
    run.tool_result(call, r#"{"sent":true}"#)?;
    run.text("Done: the report is on its way to Bob.")?;
    run.finish()?;
    println!("run 2:");
    print(&run.into_events())?;
    Ok(())
}
