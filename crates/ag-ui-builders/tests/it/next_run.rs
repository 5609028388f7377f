//! The next run of a thread: carrying the input over, answering interrupts.

use ag_ui_builders::event::run_finished_interrupt;
use ag_ui_builders::interrupt::*;
use ag_ui_builders::*;
use ag_ui_core::{Message, ResumeStatus, RunFinishedOutcome, StreamConsumer};
use serde_json::json;

use crate::support::exact;

fn first_input() -> ag_ui_core::RunAgentInput {
    RunInputBuilder::new("thread-1", "run-1")
        .message(system_message("sys-1", "Be brief."))
        .message(user_message("msg-1", "Email Bob."))
        .tool(tool(
            "send_email",
            "Send an email",
            ObjectSchema::new().required_property("to", json!({"type": "string"})),
        ))
        .context("User locale", "nb-NO")
        .state(json!({"drafts": 1}))
        .forwarded_props(json!({"model": "fast"}))
        .parent_run_id("run-0")
        .resume(cancel("int-0"))
        .build()
}

#[test]
fn the_next_run_carries_the_whole_input() {
    let first = first_input();
    let next = RunInputBuilder::next_run(&first, "run-2").build();
    let written = exact("RunAgentInput", &next).unwrap();
    let mut expected = exact("RunAgentInput", &first).unwrap();
    expected["runId"] = json!("run-2");
    // What answered and branched from the earlier runs is not carried.
    expected.as_object_mut().unwrap().remove("resume");
    expected.as_object_mut().unwrap().remove("parentRunId");
    assert_eq!(written, expected);
    assert_eq!(written["messages"].as_array().unwrap().len(), 2);
    assert_eq!(written["tools"][0]["name"], "send_email");
    assert_eq!(written["context"][0]["value"], "nb-NO");
    assert_eq!(written["state"], json!({"drafts": 1}));
    assert_eq!(written["forwardedProps"], json!({"model": "fast"}));
}

#[test]
fn every_interrupt_is_answered_in_one_call() {
    let paused = run_finished_interrupt(
        "thread-1",
        "run-1",
        [
            confirmation("int-1", "Send?"),
            tool_approval("int-2", "call-1", "Run it?"),
        ],
    )
    .unwrap();
    assert_eq!(paused.interrupts().len(), 2);
    assert_eq!(paused.outcome().interrupts()[1].id.as_str(), "int-2");
    assert!(
        ag_ui_builders::event::run_finished_success("t", "r")
            .interrupts()
            .is_empty()
    );
    assert!(RunFinishedOutcome::cancelled().interrupts().is_empty());

    let resolved = RunInputBuilder::next_run(&first_input(), "run-2")
        .resolve_all(paused.interrupts(), |i| json!({"seen": i.id.as_str()}))
        .build();
    let entries = resolved.resume.as_deref().unwrap();
    assert_eq!(entries.len(), 2);
    assert!(
        entries
            .iter()
            .zip(paused.interrupts())
            .all(|(e, i)| e.interrupt_id == i.id
                && e.status == ResumeStatus::Resolved
                && e.payload == Some(json!({"seen": i.id.as_str()})))
    );
    exact("RunAgentInput", &resolved).unwrap();

    let cancelled = RunInputBuilder::next_run(&first_input(), "run-2")
        .cancel_all(paused.interrupts())
        .build();
    let entries = cancelled.resume.as_deref().unwrap();
    assert_eq!(entries, cancel_all(paused.interrupts()).as_slice());
    assert!(
        entries
            .iter()
            .all(|e| e.status == ResumeStatus::Cancelled && e.payload.is_none())
    );
    assert_eq!(
        resolve_all(paused.interrupts(), |_| json!(null))[0],
        resume("int-1", ResumeStatus::Resolved, None)
    );
}

/// The agent's side of run 1: text, a tool call awaiting approval, state; as SSE bytes.
fn streamed_first_run(input: &ag_ui_core::RunAgentInput) -> Vec<u8> {
    let mut run = RunEmitter::start_for(input).with_ids(SequentialIds::with_prefix("r1"));
    run.text("Drafting the email.").unwrap();
    let call = run
        .tool_call("send_email", json!({"to": "bob@example.com"}))
        .unwrap();
    run.state(&json!({"drafts": 2, "outbox": ["bob"]})).unwrap();
    let id = run.new_interrupt_id().unwrap();
    run.interrupt([tool_approval(id, call, "Send it?")])
        .unwrap();
    let mut sse = Vec::new();
    for event in run.into_events() {
        ag_ui_core::sse::write_sse_frame(&mut sse, &event).unwrap();
    }
    sse
}

#[test]
fn the_next_run_is_built_from_the_streamed_thread() {
    let first = first_input();
    let sse = streamed_first_run(&first);
    let mut consumer = StreamConsumer::with_thread(thread_state(&first));
    // Chunked as a network would.
    for piece in sse.chunks(7) {
        consumer.feed(piece).unwrap();
    }
    consumer.finish().unwrap();
    assert!(consumer.take_warnings().is_empty());
    let thread = consumer.thread();

    let next = RunInputBuilder::next_run(&first, "run-2")
        .thread(thread)
        .resolve_all(thread.pending_interrupts(), |_| json!({"approved": true}))
        .build();
    let written = exact("RunAgentInput", &next).unwrap();
    // The history: the two input messages, then the assistant turn with its tool call.
    let messages = written["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[0]["id"], "sys-1");
    assert_eq!(messages[1]["id"], "msg-1");
    assert_eq!(
        messages[2],
        json!({
            "id": "r1-msg-1", "role": "assistant", "content": "Drafting the email.",
            "toolCalls": [{"id": "r1-call-1", "type": "function", "function": {
                "name": "send_email", "arguments": "{\"to\":\"bob@example.com\"}"}}]
        })
    );
    // The state the agent streamed, and everything else the first input carried.
    assert_eq!(written["state"], json!({"drafts": 2, "outbox": ["bob"]}));
    assert_eq!(written["tools"][0]["name"], "send_email");
    assert_eq!(written["context"][0]["value"], "nb-NO");
    assert_eq!(written["forwardedProps"], json!({"model": "fast"}));
    assert_eq!(
        written["resume"],
        json!([{"interruptId": "r1-int-1", "status": "resolved", "payload": {"approved": true}}])
    );
    assert!(written.get("parentRunId").is_none());

    // Moving the thread in gives the same input.
    let moved = RunInputBuilder::next_run(&first, "run-2")
        .thread_owned(consumer.into_thread())
        .resume_all(next.resume.clone().unwrap())
        .build();
    assert_eq!(moved, next);
}

#[test]
fn a_thread_starts_from_the_input() {
    let first = first_input();
    let thread = thread_state(&first);
    assert_eq!(thread.messages(), first.messages.as_slice());
    assert_eq!(thread.state(), &json!({"drafts": 1}));
    let bare = RunInputBuilder::new("t", "r")
        .message(user_message("u", "hi"))
        .build();
    let thread = thread_state(&bare);
    assert_eq!(thread.state(), &json!({}));
    let messages: Vec<Message> = thread.messages().to_vec();
    assert_eq!(messages, bare.messages);
}
