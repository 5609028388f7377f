//! The next run of a thread: carrying the input over, answering interrupts.

use ag_ui_builders::event::run_finished_interrupt;
use ag_ui_builders::*;
use ag_ui_core::{ResumeStatus, RunFinishedOutcome};
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
