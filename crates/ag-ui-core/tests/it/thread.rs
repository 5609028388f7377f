//! `ThreadState`: the reducer rules of spec §9.4, through the public API.

use ag_ui_core::{
    Event, Message, RunFinishedOutcome, RunStatus, ThreadState, UserMessage, WarningKind,
};
use serde_json::{Value, json};

fn ev(v: Value) -> Event {
    serde_json::from_value(v).unwrap()
}

/// Applies each event, returning the warning kinds raised.
fn apply_all(thread: &mut ThreadState, events: Vec<Value>) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    for e in events {
        for w in thread.apply(&ev(e)) {
            kinds.push(w.kind.as_str());
        }
    }
    kinds
}

fn messages(thread: &ThreadState) -> Value {
    serde_json::to_value(thread.messages()).unwrap()
}

#[test]
fn default_thread_is_empty_with_an_object_state() {
    let t = ThreadState::default();
    assert!(t.messages().is_empty());
    assert_eq!(t.state(), &json!({}));
    assert_eq!(t.run_status(), RunStatus::Idle);
    assert!(t.outcome().is_none());
    assert!(t.pending_interrupts().is_empty());
    assert!(t.run_error().is_none());
}

#[test]
fn text_message_start_content_end() {
    let mut t = ThreadState::new();
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"TEXT_MESSAGE_START","messageId":"m1","metadata":{"a":1}}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hel"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"lo"}),
            json!({"type":"TEXT_MESSAGE_END","messageId":"m1","metadata":{"b":[1],"a":null}}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"u1","role":"user","name":"Ann"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"u1","delta":"hi"}),
        ],
    );
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(
        messages(&t),
        json!([
            {"id":"m1","role":"assistant","content":"Hello","metadata":{"a":null,"b":[1]}},
            {"id":"u1","role":"user","content":"hi","name":"Ann"}
        ])
    );
    assert_eq!(t.message("u1").unwrap().id(), "u1");
    assert!(t.message("nope").is_none());
}

#[test]
fn content_for_a_missing_message_is_skipped_with_a_warning() {
    let mut t = ThreadState::new();
    let w = t.apply(&ev(
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"ghost","delta":"x"}),
    ));
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].kind, WarningKind::MissingMessage);
    assert_eq!(w[0].pointer, "/messageId");
    assert_eq!(
        w[0].event_type,
        Some(ag_ui_core::EventType::TextMessageContent)
    );
    assert!(w[0].to_string().contains("\"ghost\""), "{}", w[0]);
    assert!(t.messages().is_empty(), "no message is invented");
}

#[test]
fn tool_calls_attach_to_their_assistant_message() {
    let mut t = ThreadState::new();
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"TEXT_MESSAGE_START","messageId":"a1"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Let me check"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"weather","parentMessageId":"a1","metadata":{"k":"v"}}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"city\":"}),
        ],
    );
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(t.tool_call_arguments("c1"), Some("{\"city\":"));
    apply_all(
        &mut t,
        vec![
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"Paris\"}"}),
            json!({"type":"TOOL_CALL_END","toolCallId":"c1"}),
            json!({"type":"TEXT_MESSAGE_END","messageId":"a1"}),
            // No parent: a new assistant message keyed by the call id.
            json!({"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"search"}),
            // Unknown parent: an assistant message with that id.
            json!({"type":"TOOL_CALL_START","toolCallId":"c3","toolCallName":"x","parentMessageId":"p9"}),
        ],
    );
    assert_eq!(
        messages(&t),
        json!([
            {"id":"a1","role":"assistant","content":"Let me check","toolCalls":[
                {"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"},"metadata":{"k":"v"}}
            ]},
            {"id":"c2","role":"assistant","toolCalls":[{"id":"c2","type":"function","function":{"name":"search","arguments":""}}]},
            {"id":"p9","role":"assistant","toolCalls":[{"id":"c3","type":"function","function":{"name":"x","arguments":""}}]}
        ])
    );
}

#[test]
fn tool_call_start_is_idempotent_for_a_known_call() {
    let mut t = ThreadState::new();
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}),
        ],
    );
    assert!(w.is_empty());
    assert_eq!(t.messages().len(), 1);
    assert_eq!(t.tool_call_arguments("c1"), Some("{}"));
    let w = apply_all(
        &mut t,
        vec![json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"g"})],
    );
    assert_eq!(w, ["tool-call-renamed"]);
    assert_eq!(t.tool_call("c1").unwrap().function.name, "g");
}

#[test]
fn tool_result_goes_after_its_call_and_earlier_results() {
    let mut t = ThreadState::new();
    apply_all(
        &mut t,
        vec![
            json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"a1"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"g","parentMessageId":"a1"}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"a2"}),
            json!({"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"c1","content":"one"}),
            json!({"type":"TOOL_CALL_RESULT","messageId":"t2","toolCallId":"c2","content":[{"type":"text","text":"two"},{"type":"image","source":{"type":"file","value":"f1","mimeType":"image/png"}}]}),
            json!({"type":"TOOL_CALL_RESULT","messageId":"t3","toolCallId":"unknown","content":"three"}),
        ],
    );
    let ids: Vec<&str> = t.messages().iter().map(|m| m.id().as_str()).collect();
    assert_eq!(ids, ["a1", "t1", "t2", "a2", "t3"]);
    // Content is kept as sent (parts and file sources included).
    assert_eq!(
        messages(&t)[2],
        json!({"id":"t2","role":"tool","toolCallId":"c2","content":[{"type":"text","text":"two"},{"type":"image","source":{"type":"file","value":"f1","mimeType":"image/png"}}]})
    );
    // The index follows the inserted messages.
    assert_eq!(t.message("a2").unwrap().id(), "a2");
    assert_eq!(t.message("t3").unwrap().id(), "t3");
    let w = apply_all(
        &mut t,
        vec![json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a2","delta":"ok"})],
    );
    assert!(w.is_empty());
    assert_eq!(messages(&t)[3]["content"], "ok");
}

#[test]
fn state_snapshot_and_atomic_delta() {
    let mut t = ThreadState::new();
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"STATE_SNAPSHOT","snapshot":{"a":1,"list":[1,2]}}),
            json!({"type":"STATE_DELTA","delta":[{"op":"add","path":"/list/-","value":3},{"op":"test","path":"/a","value":1.0}]}),
        ],
    );
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(t.state(), &json!({"a":1,"list":[1,2,3]}));
    let w = t.apply(&ev(json!({"type":"STATE_DELTA","delta":[
        {"op":"replace","path":"/a","value":2},
        {"op":"remove","path":"/missing"}
    ]})));
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].kind, WarningKind::PatchFailed);
    assert_eq!(w[0].pointer, "/delta/1");
    assert_eq!(t.state(), &json!({"a":1,"list":[1,2,3]}), "all or nothing");
    // Any JSON value is a state.
    apply_all(
        &mut t,
        vec![json!({"type":"STATE_SNAPSHOT","snapshot":null})],
    );
    assert_eq!(t.state(), &Value::Null);
}

#[test]
fn run_lifecycle() {
    let mut t = ThreadState::new();
    apply_all(
        &mut t,
        vec![json!({"type":"RUN_STARTED","threadId":"t","runId":"r1"})],
    );
    assert_eq!(t.run_status(), RunStatus::Running);
    apply_all(
        &mut t,
        vec![json!({"type":"RUN_FINISHED","threadId":"t","runId":"r1"})],
    );
    assert_eq!(t.run_status(), RunStatus::Finished);
    assert_eq!(t.outcome(), Some(&RunFinishedOutcome::success()));
    apply_all(
        &mut t,
        vec![
            json!({"type":"RUN_STARTED","threadId":"t","runId":"r2"}),
            json!({"type":"RUN_FINISHED","threadId":"t","runId":"r2","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"tool_call","toolCallId":"c1"}]}}),
        ],
    );
    assert_eq!(t.pending_interrupts().len(), 1);
    assert_eq!(t.pending_interrupts()[0].id, "i1");
    apply_all(
        &mut t,
        vec![
            json!({"type":"RUN_STARTED","threadId":"t","runId":"r3"}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"m"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"partial"}),
            json!({"type":"RUN_ERROR","message":"boom","code":"E1"}),
        ],
    );
    assert_eq!(t.run_status(), RunStatus::Errored);
    assert_eq!(t.run_error().unwrap().message, "boom");
    // What was applied before RUN_ERROR stays.
    assert_eq!(messages(&t)[0]["content"], "partial");
    // The interrupts of the last RUN_FINISHED are still pending.
    assert_eq!(t.pending_interrupts().len(), 1);
    apply_all(
        &mut t,
        vec![json!({"type":"RUN_STARTED","threadId":"t","runId":"r4"})],
    );
    assert!(t.run_error().is_none());
}

#[test]
fn chunks_are_not_applied() {
    let mut t = ThreadState::new();
    let w = t.apply(&ev(
        json!({"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x"}),
    ));
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].kind, WarningKind::ChunkNotApplied);
    assert!(t.messages().is_empty());
}

#[test]
fn with_messages_indexes_the_history_and_into_parts_returns_it() {
    let history = vec![Message::User(UserMessage::new("u1", "hello"))];
    let mut t = ThreadState::default()
        .with_messages(history)
        .with_state(json!({"x":1}));
    let w = apply_all(
        &mut t,
        vec![json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"u1","delta":"!"})],
    );
    assert!(w.is_empty());
    let (messages, state) = t.into_parts();
    assert_eq!(
        serde_json::to_value(&messages).unwrap(),
        json!([{"id":"u1","role":"user","content":"hello!"}])
    );
    assert_eq!(state, json!({"x":1}));
}

#[test]
fn empty_event_metadata_creates_no_metadata() {
    let mut t = ThreadState::new();
    apply_all(
        &mut t,
        vec![
            json!({"type":"TEXT_MESSAGE_START","messageId":"m","metadata":{}}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","metadata":{}}),
            json!({"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"m","metadata":{}}),
        ],
    );
    assert_eq!(
        messages(&t),
        json!([{"id":"m","role":"assistant","content":"x","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":""}}]}])
    );
}

#[test]
fn streamed_text_for_a_multimodal_user_message_keeps_its_parts() {
    let history: Vec<Message> = serde_json::from_value(json!([
        {"id":"u","role":"user","content":[{"type":"image","source":{"type":"url","value":"https://x/y.png"}}]}
    ]))
    .unwrap();
    let mut t = ThreadState::new().with_messages(history);
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"TEXT_MESSAGE_START","messageId":"u","role":"user"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"u","delta":"What is "}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"u","delta":"this?"}),
        ],
    );
    assert!(w.is_empty());
    assert_eq!(
        messages(&t)[0]["content"],
        json!([{"type":"image","source":{"type":"url","value":"https://x/y.png"}},{"type":"text","text":"What is this?"}])
    );
}

#[test]
fn apply_and_apply_owned_agree_on_a_full_stream() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/streams/valid/spec-full-run.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (mut a, mut b) = (ThreadState::new(), ThreadState::new());
    for e in doc["events"].as_array().unwrap() {
        let event = ev(e.clone());
        assert_eq!(a.apply(&event), b.apply_owned(event));
    }
    assert_eq!(messages(&a), messages(&b));
    assert_eq!(a.state(), b.state());
    assert_eq!(a.run_status(), b.run_status());
}

#[test]
fn lookups_follow_a_messages_snapshot() {
    let mut t = ThreadState::new();
    apply_all(
        &mut t,
        vec![
            json!({"type":"TEXT_MESSAGE_START","messageId":"old"}),
            json!({"type":"MESSAGES_SNAPSHOT","messages":[
                {"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{"}}]},
                {"id":"b","role":"assistant","content":"B"}
            ]}),
        ],
    );
    assert!(t.message("old").is_none());
    assert_eq!(t.tool_call_arguments("c"), Some("{"));
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"}"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"b","delta":"!"}),
        ],
    );
    assert!(w.is_empty());
    assert_eq!(t.tool_call_arguments("c"), Some("{}"));
    assert_eq!(messages(&t)[1]["content"], "B!");
}

#[test]
fn what_cannot_apply_is_skipped_with_a_warning() {
    let mut t = ThreadState::new();
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"ACTIVITY_SNAPSHOT","messageId":"act","activityType":"PLAN","content":{"a":1}}),
            // An activity never stores an encrypted value.
            json!({"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"act","encryptedValue":"x"}),
            // The content must stay a JSON object.
            json!({"type":"ACTIVITY_DELTA","messageId":"act","activityType":"PLAN","patch":[{"op":"replace","path":"","value":[1]}]}),
            // Replacing it whole with an object is fine.
            json!({"type":"ACTIVITY_DELTA","messageId":"act","activityType":"PLAN","patch":[{"op":"replace","path":"","value":{"b":2}}]}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"act","delta":"x"}),
            json!({"type":"REASONING_MESSAGE_START","messageId":"act","role":"reasoning"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"nope","delta":"x"}),
            json!({"type":"TOOL_CALL_END","toolCallId":"nope"}),
            json!({"type":"REASONING_MESSAGE_CONTENT","messageId":"nope","delta":"x"}),
            json!({"type":"TEXT_MESSAGE_END","messageId":"nope"}),
            // The call id names the activity: no assistant message can take it.
            json!({"type":"TOOL_CALL_START","toolCallId":"act","toolCallName":"f"}),
        ],
    );
    assert_eq!(
        w,
        [
            "role-mismatch",
            "patch-failed",
            "role-mismatch",
            "role-mismatch",
            "missing-tool-call",
            "missing-tool-call",
            "missing-message",
            "missing-message",
            "role-mismatch"
        ]
    );
    assert_eq!(
        messages(&t),
        json!([{"id":"act","role":"activity","activityType":"PLAN","content":{"b":2}}])
    );
}

/// Where the official client departs from spec §9.4 (client-reference §1.7), the spec is
/// followed; docs/design.md lists each decision.
#[test]
fn spec_rules_where_the_official_client_departs() {
    let mut t = ThreadState::new();
    let w = apply_all(
        &mut t,
        vec![
            // RUN_STARTED.input.messages are not appended (§9.4 has no such rule).
            json!({"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"u0","role":"user","content":"hi"}]}}),
            json!({"type":"ACTIVITY_SNAPSHOT","messageId":"act","activityType":"PLAN","content":{"n":1},"metadata":{"a":1}}),
            // replace:false leaves an existing activity as it is, metadata included.
            json!({"type":"ACTIVITY_SNAPSHOT","messageId":"act","activityType":"OTHER","content":{"n":2},"replace":false,"metadata":{"b":1}}),
            // A failed delta changes nothing, metadata included.
            json!({"type":"ACTIVITY_DELTA","messageId":"act","activityType":"PLAN","patch":[{"op":"remove","path":"/missing"}],"metadata":{"c":1}}),
            // A delta keeps the activity type of the last snapshot.
            json!({"type":"ACTIVITY_DELTA","messageId":"act","activityType":"RENAMED","patch":[{"op":"replace","path":"/n","value":3}]}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"a1"}),
            json!({"type":"TEXT_MESSAGE_END","messageId":"a1"}),
            // An activity snapshot does not replace an assistant message with the same id.
            json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"PLAN","content":{}}),
            // A delta for a missing activity warns.
            json!({"type":"ACTIVITY_DELTA","messageId":"ghost","activityType":"PLAN","patch":[]}),
            // A state patch refused by RFC 6902 is refused here (fast-json-patch accepts it).
            json!({"type":"STATE_DELTA","delta":[{"op":"remove","path":""}]}),
        ],
    );
    assert_eq!(
        w,
        [
            "patch-failed",
            "role-mismatch",
            "missing-message",
            "patch-failed"
        ]
    );
    assert_eq!(
        messages(&t),
        json!([
            {"id":"act","role":"activity","activityType":"PLAN","content":{"n":3},"metadata":{"a":1}},
            {"id":"a1","role":"assistant","content":""}
        ])
    );
    assert_eq!(t.state(), &json!({}));
}

/// A `TEXT_MESSAGE_START` for an id the thread holds reuses the message without renaming
/// it, as the official client does (it sets `name` only when it creates the message), with
/// both `apply` and `apply_owned`; the name of a START that creates a message is kept.
#[test]
fn a_start_for_an_existing_message_keeps_its_name() {
    let events = vec![
        json!({"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","name":"first"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}),
        json!({"type":"TEXT_MESSAGE_END","messageId":"m1"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","name":"second"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}),
        json!({"type":"TEXT_MESSAGE_END","messageId":"m1"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m2"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant","name":"late"}),
    ];
    let expected = json!([
        {"id":"m1","role":"assistant","content":"ab","name":"first"},
        {"id":"m2","role":"assistant","toolCalls":[
            {"id":"c1","type":"function","function":{"name":"f","arguments":""}}
        ]},
    ]);
    let mut borrowed = ThreadState::new();
    assert!(apply_all(&mut borrowed, events.clone()).is_empty());
    assert_eq!(messages(&borrowed), expected);
    let mut owned = ThreadState::new();
    for e in events {
        assert!(owned.apply_owned(ev(e)).is_empty());
    }
    assert_eq!(messages(&owned), expected);
}

/// Deltas find their message and call by id whatever the event before them named: with a
/// transcript holding one id twice (the first wins), after a tool result is inserted
/// before a message being streamed, and after a snapshot replaces the transcript.
#[test]
fn deltas_find_their_target_across_duplicates_insertions_and_snapshots() {
    let history = vec![
        Message::User(UserMessage::new("u", "a")),
        Message::User(UserMessage::new("u", "b")),
    ];
    let mut t = ThreadState::default().with_messages(history);
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"u","delta":"1"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"a1"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{"}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"a2"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a2","delta":"x"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"u","delta":"2"}),
            // Inserted after a1, before a2: a2 moves one place on.
            json!({"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"c1","content":"r"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a2","delta":"y"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"}"}),
        ],
    );
    assert!(w.is_empty(), "{w:?}");
    let m = messages(&t);
    assert_eq!(m[0]["content"], "a12");
    assert_eq!(m[1]["content"], "b");
    assert_eq!(m[2]["toolCalls"][0]["function"]["arguments"], "{}");
    assert_eq!(m[3]["id"], "t1");
    assert_eq!(m[4], json!({"id":"a2","role":"assistant","content":"xy"}));
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"MESSAGES_SNAPSHOT","messages":[
                {"id":"a2","role":"assistant","content":"new"},
                {"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":""}}]}
            ]}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a2","delta":"!"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"[]"}),
        ],
    );
    assert!(w.is_empty(), "{w:?}");
    let m = messages(&t);
    // The snapshot keeps the transcript's order for the ids it already had: a1, then a2.
    assert_eq!(m[0]["toolCalls"][0]["function"]["arguments"], "[]");
    assert_eq!(m[1], json!({"id":"a2","role":"assistant","content":"new!"}));
}

/// A thread can be shared between threads (behind an `RwLock`, in an `Arc`): it holds no
/// interior mutability.
#[test]
fn a_thread_is_send_and_sync() {
    fn shareable<T: Send + Sync + 'static>() {}
    shareable::<ThreadState>();
}

// ---------------------------------------------------------------- unanswered tool calls

fn ids(calls: &[&ag_ui_core::ToolCall]) -> Vec<String> {
    calls.iter().map(|c| c.id.to_string()).collect()
}

/// A run cut while the model streamed a call (no `TOOL_CALL_END`, no `RUN_FINISHED`).
fn cut_in_a_call() -> Vec<Value> {
    vec![
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r1"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"get_weather","parentMessageId":"a1"}),
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"city\":\"Os"}),
    ]
}

#[test]
fn a_call_cut_in_the_middle_is_unanswered_with_its_partial_arguments() {
    let mut t = ThreadState::new();
    assert!(apply_all(&mut t, cut_in_a_call()).is_empty());
    let calls = t.unanswered_tool_calls();
    assert_eq!(ids(&calls), ["c1"]);
    assert_eq!(calls[0].function.arguments, "{\"city\":\"Os");
    assert_eq!(t.run_status(), RunStatus::Running);
}

#[test]
fn pending_frontend_calls_are_unanswered_until_a_tool_message_answers_them() {
    let mut t = ThreadState::new();
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"RUN_STARTED","threadId":"t","runId":"r1"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"confirm","parentMessageId":"a1"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}),
            json!({"type":"TOOL_CALL_END","toolCallId":"c1"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"confirm","parentMessageId":"a1"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c2","delta":"{}"}),
            json!({"type":"TOOL_CALL_END","toolCallId":"c2"}),
            json!({"type":"RUN_FINISHED","threadId":"t","runId":"r1",
                   "outcome":{"type":"success","pendingToolCallIds":["c1","c2"]}}),
        ],
    );
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(ids(&t.unanswered_tool_calls()), ["c1", "c2"]);
    // The user writes something first; then answers one of the two.
    t.add_message(Message::User(UserMessage::new("u2", "Hello?")));
    assert_eq!(ids(&t.unanswered_tool_calls()), ["c1", "c2"]);
    t.add_message(Message::Tool(ag_ui_core::ToolMessage::new(
        "t2", "yes", "c2",
    )));
    assert_eq!(ids(&t.unanswered_tool_calls()), ["c1"]);
    // Adding messages keeps the run's outcome.
    assert!(matches!(t.outcome(), Some(RunFinishedOutcome::Success(_))));
    assert_eq!(t.message("t2").unwrap().id(), "t2");
    assert_eq!(
        messages(&t)
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].clone())
            .collect::<Vec<_>>(),
        [json!("a1"), json!("u2"), json!("t2")]
    );
}

#[test]
fn backend_results_answer_calls_and_only_the_last_run_counts() {
    let mut t = ThreadState::new();
    let mut first = cut_in_a_call();
    first.push(json!({"type":"RUN_ERROR","message":"cut"}));
    apply_all(&mut t, first);
    assert_eq!(ids(&t.unanswered_tool_calls()), ["c1"]);
    // The next run answers its own call; the call of the run before is not listed.
    let w = apply_all(
        &mut t,
        vec![
            json!({"type":"RUN_STARTED","threadId":"t","runId":"r2"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"get_weather","parentMessageId":"a2"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c2","delta":"{\"city\":\"Oslo\"}"}),
            json!({"type":"TOOL_CALL_END","toolCallId":"c2"}),
        ],
    );
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(ids(&t.unanswered_tool_calls()), ["c2"], "in flight");
    apply_all(
        &mut t,
        vec![
            json!({"type":"TOOL_CALL_RESULT","messageId":"t2","toolCallId":"c2","content":"3"}),
            json!({"type":"RUN_FINISHED","threadId":"t","runId":"r2"}),
        ],
    );
    assert!(t.unanswered_tool_calls().is_empty());
    // The earlier call is still without a result in the transcript.
    assert_eq!(
        t.tool_call("c1").unwrap().function.arguments,
        "{\"city\":\"Os"
    );
}

#[test]
fn a_thread_given_its_history_has_no_last_run_to_report() {
    let history: Vec<Message> = serde_json::from_value(json!([
        {"id": "a1", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function",
            "function": {"name": "confirm", "arguments": "{}"}}]}
    ]))
    .unwrap();
    let t = ThreadState::new().with_messages(history);
    assert!(t.unanswered_tool_calls().is_empty());
    // The history as a whole: what a model adapter would answer for.
    let repairs = ag_ui_core::provider_history(t.messages()).repairs;
    assert_eq!(repairs.len(), 1);
    assert_eq!(repairs[0].tool_call_id.as_str(), "c1");
}
