//! What a `Verifier` answers without being pushed an event: `check`, `open`, `is_open`,
//! `owner`, `active_subagents`, `has_subagent_started`.

use ag_ui_core::stream::verify::{EntityKind, Open, OpenKind};
use ag_ui_core::{Event, Rule, Verifier};
use serde_json::{Value, json};

fn ev(value: Value) -> Event {
    serde_json::from_value(value).unwrap()
}

fn push_all(verifier: &mut Verifier, events: Vec<Value>) {
    for e in events {
        verifier.push(&ev(e)).unwrap();
    }
}

type Listed = (OpenKind, String, Option<String>);

fn open(kind: OpenKind, id: &str, owner: Option<&str>) -> Listed {
    (kind, id.to_owned(), owner.map(str::to_owned))
}

fn listed(v: &Verifier) -> Vec<Listed> {
    v.open()
        .into_iter()
        .map(|o: Open| (o.kind, o.id, o.owner))
        .collect()
}

fn started() -> Verifier {
    let mut v = Verifier::new();
    push_all(
        &mut v,
        vec![json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})],
    );
    v
}

#[test]
fn check_answers_as_push_would_and_changes_nothing() {
    let mut v = started();
    let before = v.clone();
    let ok = ev(json!({"type": "TEXT_MESSAGE_START", "messageId": "m"}));
    let bad = ev(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "x", "delta": "?"}));
    assert_eq!(v.check(&ok), Ok(()));
    let refused = v.check(&bad).unwrap_err();
    assert_eq!((refused.rule, refused.index), (Rule::M2, 1));
    // Nothing was applied: the message is not open, the index did not move.
    assert_eq!(v.events_seen(), before.events_seen());
    assert!(!v.is_open(OpenKind::TextMessage, "m"));
    assert_eq!(listed(&v), listed(&before));
    // What `check` said is what `push` does.
    assert_eq!(v.push(&bad).unwrap_err(), refused);
    v.push(&ok).unwrap();
    assert!(v.is_open(OpenKind::TextMessage, "m"));
}

#[test]
fn open_lists_every_kind_in_opening_order_with_its_owner() {
    let mut v = started();
    push_all(
        &mut v,
        vec![
            json!({"type": "STEP_STARTED", "stepName": "plan"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "z"}),
            json!({"type": "SUBAGENT_STARTED", "subagentRunId": "sub", "name": "helper"}),
            json!({"type": "REASONING_START", "messageId": "r1", "subagentRunId": "sub"}),
            json!({"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning", "subagentRunId": "sub"}),
            json!({"type": "STEP_STARTED", "stepName": "plan", "subagentRunId": "sub"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "a"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "a"}),
        ],
    );
    assert_eq!(
        listed(&v),
        [
            open(OpenKind::Step, "plan", None),
            open(OpenKind::TextMessage, "z", None),
            open(OpenKind::Subagent, "sub", None),
            open(OpenKind::ReasoningSpan, "r1", Some("sub")),
            open(OpenKind::ReasoningMessage, "r1", Some("sub")),
            open(OpenKind::Step, "plan", Some("sub")),
            open(OpenKind::TextMessage, "a", None),
            open(OpenKind::ToolCall, "c", None),
        ]
    );
    // Closed entities leave the list; a re-opened one takes its new place.
    push_all(
        &mut v,
        vec![
            json!({"type": "TEXT_MESSAGE_END", "messageId": "z"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "z"}),
            json!({"type": "STEP_FINISHED", "stepName": "plan"}),
        ],
    );
    let order: Vec<(OpenKind, String)> = v.open().into_iter().map(|o| (o.kind, o.id)).collect();
    assert_eq!(order.first(), Some(&(OpenKind::Subagent, "sub".to_owned())));
    assert_eq!(order.last(), Some(&(OpenKind::TextMessage, "z".to_owned())));
    assert!(
        v.is_open(OpenKind::Step, "plan"),
        "the subagent's step is open"
    );
    // A refused opener is not listed.
    let twice = ev(json!({"type": "STEP_STARTED", "stepName": "plan", "subagentRunId": "sub"}));
    assert_eq!(v.push(&twice).unwrap_err().rule, Rule::S1);
    assert_eq!(
        v.open().iter().filter(|o| o.kind == OpenKind::Step).count(),
        1
    );
}

#[test]
fn the_next_run_starts_with_nothing_open() {
    let mut v = started();
    push_all(
        &mut v,
        vec![
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m"}),
            json!({"type": "RUN_ERROR", "message": "boom"}),
        ],
    );
    // RUN_ERROR ends the run with anything open; the next run starts clean.
    push_all(
        &mut v,
        vec![json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r2"})],
    );
    assert_eq!(listed(&v), []);
    assert_eq!(v.owner(EntityKind::Message, "m"), None);
}

#[test]
fn owners_are_the_ones_on_record() {
    let mut v = started();
    push_all(
        &mut v,
        vec![
            json!({"type": "SUBAGENT_STARTED", "subagentRunId": "sub", "name": "helper"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "sub"}),
            // An untagged call inside the subagent's message belongs to the subagent (O3).
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "PLAN", "content": {}}),
        ],
    );
    assert_eq!(v.owner(EntityKind::Message, "m"), Some(Some("sub")));
    assert_eq!(v.owner(EntityKind::ToolCall, "c"), Some(Some("sub")));
    assert_eq!(v.owner(EntityKind::Activity, "act"), Some(None));
    assert_eq!(
        v.owner(EntityKind::Reasoning, "m"),
        None,
        "ids are per kind"
    );
    // A snapshot restates the message as the agent's own: that is the owner on record now.
    push_all(
        &mut v,
        vec![json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "m", "role": "assistant", "content": "hi"}
        ]})],
    );
    assert_eq!(v.owner(EntityKind::Message, "m"), Some(None));
    // The owner stays on record after the entity closes.
    push_all(
        &mut v,
        vec![json!({"type": "TOOL_CALL_END", "toolCallId": "c"})],
    );
    assert!(!v.is_open(OpenKind::ToolCall, "c"));
    assert_eq!(v.owner(EntityKind::ToolCall, "c"), Some(Some("sub")));
}

#[test]
fn active_subagents_innermost_last_and_ended_ones_stay_known() {
    let mut v = started();
    push_all(
        &mut v,
        vec![
            json!({"type": "SUBAGENT_STARTED", "subagentRunId": "outer", "name": "a"}),
            json!({"type": "SUBAGENT_STARTED", "subagentRunId": "inner", "name": "b", "parentSubagentRunId": "outer"}),
            json!({"type": "SUBAGENT_STARTED", "subagentRunId": "a-last", "name": "c", "parentSubagentRunId": "inner"}),
        ],
    );
    // Opening order, not the ids' order.
    assert_eq!(v.active_subagents(), ["outer", "inner", "a-last"]);
    push_all(
        &mut v,
        vec![json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "a-last"})],
    );
    assert_eq!(v.active_subagents(), ["outer", "inner"]);
    assert!(v.has_subagent_started("a-last"));
    assert!(!v.is_open(OpenKind::Subagent, "a-last"));
    assert!(!v.has_subagent_started("never"));
}
