//! Run emitters: every sequence they produce passes the lifecycle rules of spec §9.1.

use ag_ui_builders::interrupt::{confirmation, tool_approval};
use ag_ui_builders::outcome::success_pending;
use ag_ui_builders::{BuildError, ModelChunk, ProviderUsage, RunEmitter, SequentialIds};
use ag_ui_core::{
    Event, EventType, JsonPatchOperation, MessageId, ReasoningEncryptedValueSubtype,
    RunFinishedOutcome, SubagentStartedEvent, ToolCallId,
};
use serde_json::{Value, json};

use crate::support::{assert_valid_sequence, types};

fn emitter() -> RunEmitter {
    RunEmitter::start("thread-1", "run-1").with_ids(SequentialIds::new())
}

fn finished(events: &[Event]) -> &ag_ui_core::RunFinishedEvent {
    match events.last() {
        Some(Event::RunFinished(f)) => f,
        other => panic!("last event is {other:?}"),
    }
}

#[test]
fn a_streamed_answer_with_a_tool_round_trip() {
    let mut run = emitter();
    run.step_start("agent").unwrap();
    run.push(ModelChunk::Thinking("Need the weather.".into()))
        .unwrap();
    run.push(ModelChunk::Text("Let me check".into())).unwrap();
    run.push(ModelChunk::Text("".into())).unwrap();
    run.push(ModelChunk::ToolCallStart {
        id: "call_1".into(),
        name: "get_weather".into(),
    })
    .unwrap();
    run.push(ModelChunk::ToolCallDelta {
        id: "call_1".into(),
        delta: r#"{"city":"#.into(),
    })
    .unwrap();
    run.push(ModelChunk::ToolCallDelta {
        id: "call_1".into(),
        delta: r#""Oslo"}"#.into(),
    })
    .unwrap();
    run.push(ModelChunk::ToolCallEnd {
        id: "call_1".into(),
    })
    .unwrap();
    run.push(ModelChunk::EndTurn {
        usage: Some(
            ProviderUsage::new(100, 20)
                .with_reasoning_tokens(5)
                .with_provider("openai")
                .with_model("gpt-5"),
        ),
    })
    .unwrap();
    let tool_msg = run
        .tool_call_result("call_1", r#"{"temperature":3}"#)
        .unwrap();
    run.state(&json!({"city": "Oslo", "temperature": 3}))
        .unwrap();
    run.push(ModelChunk::Text("It is 3 °C.".into())).unwrap();
    run.push(ModelChunk::EndTurn {
        usage: Some(
            ProviderUsage::new(130, 8)
                .with_provider("openai")
                .with_model("gpt-5"),
        ),
    })
    .unwrap();
    run.step_finish("agent").unwrap();
    run.finish().unwrap();
    let events = run.into_events();
    assert_valid_sequence(&events);
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "STEP_STARTED",
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "REASONING_END",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_RESULT",
            "STATE_SNAPSHOT",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "STEP_FINISHED",
            "RUN_FINISHED",
        ]
    );
    // The call hangs off the text message of its turn; the answer after the result is a
    // new message.
    let Event::TextMessageStart(first) = &events[7] else {
        panic!()
    };
    let Event::ToolCallStart(call) = &events[11] else {
        panic!()
    };
    assert_eq!(call.parent_message_id.as_ref(), Some(&first.message_id));
    let Event::TextMessageStart(second) = &events[17] else {
        panic!()
    };
    assert_ne!(second.message_id, first.message_id);
    assert_ne!(second.message_id, tool_msg);
    // Everything answered: a plain success; usage added up per model.
    let end = finished(&events);
    assert_eq!(end.outcome, Some(RunFinishedOutcome::success()));
    let usage = end.usage.as_ref().unwrap();
    assert_eq!(usage.len(), 1);
    assert_eq!(
        (
            usage[0].input_tokens,
            usage[0].output_tokens,
            usage[0].total_tokens,
            usage[0].reasoning_tokens
        ),
        (Some(230), Some(28), Some(258), Some(5))
    );
}

#[test]
fn finishing_closes_what_is_open() {
    let mut run = emitter();
    run.step_start("outer").unwrap();
    run.step_start("inner").unwrap();
    run.reasoning("hmm").unwrap();
    let call = run.tool_call_start("search").unwrap();
    run.tool_call_args(call.clone(), r#"{"q":"otters"}"#)
        .unwrap();
    run.text("partial").unwrap();
    run.finish().unwrap();
    let events = run.into_events();
    assert_valid_sequence(&events);
    let tail: Vec<_> = types(&events).into_iter().rev().take(5).collect();
    assert_eq!(
        tail,
        [
            "RUN_FINISHED",
            "STEP_FINISHED",
            "STEP_FINISHED",
            "TOOL_CALL_END",
            "TEXT_MESSAGE_END"
        ]
    );
    let Event::StepFinished(last_step) = &events[events.len() - 2] else {
        panic!()
    };
    assert_eq!(last_step.step_name, "outer");
    // A frontend call nobody answered is named as pending.
    let Some(RunFinishedOutcome::Success(s)) = &finished(&events).outcome else {
        panic!()
    };
    assert_eq!(s.pending_tool_call_ids.as_deref(), Some(&[call][..]));
}

#[test]
fn subagents_attribute_their_events_and_must_end_before_the_run() {
    let mut run = emitter();
    let call = run
        .tool_call("research", json!({"topic": "otters"}))
        .unwrap();
    let sub: ag_ui_core::SubagentRunId = run
        .subagent_start_with(
            SubagentStartedEvent::new("sub-a", "researcher").with_parent_tool_call_id(call.clone()),
        )
        .map(|()| ag_ui_core::SubagentRunId::from("sub-a"))
        .unwrap();
    assert_eq!(run.current_subagent(), Some(sub.clone()));
    run.step_start("search").unwrap();
    run.text("Found 3 sources").unwrap();
    let nested = run.subagent_start("summariser").unwrap();
    run.reasoning("short").unwrap();
    assert_eq!(
        run.finish().unwrap_err(),
        BuildError::SubagentActive {
            id: nested.to_string()
        }
    );
    run.subagent_finish(Some(json!({"summary": "otters"})))
        .unwrap();
    run.text("more").unwrap(); // attributed to sub-a again
    run.subagent_suspend(["int-1"]).unwrap();
    let failing = run.subagent_start("flaky").unwrap();
    run.tool_call_start("crash").unwrap();
    run.subagent_fail("tool crashed").unwrap();
    assert_eq!(run.current_subagent(), None);
    run.tool_call_result(call, "otters are great").unwrap();
    run.interrupt([confirmation("int-1", "Publish?")]).unwrap();
    let events = run.into_events();
    assert_valid_sequence(&events);

    let owner_of = |pred: &dyn Fn(&Event) -> bool| -> Vec<Option<String>> {
        events
            .iter()
            .filter(|e| pred(e))
            .map(|e| e.subagent_run_id().map(ToString::to_string))
            .collect()
    };
    assert_eq!(
        owner_of(&|e| e.event_type() == EventType::TextMessageContent),
        [Some("sub-a".to_owned()), Some("sub-a".to_owned())]
    );
    assert_eq!(
        owner_of(&|e| e.event_type() == EventType::ReasoningMessageContent),
        [Some(nested.to_string())]
    );
    assert_eq!(
        owner_of(&|e| e.event_type() == EventType::ToolCallResult),
        [None]
    );
    let starts: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::SubagentStarted(s) => Some((
                s.subagent_run_id.to_string(),
                s.parent_subagent_run_id.clone(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        starts,
        [
            ("sub-a".to_owned(), None),
            (nested.to_string(), Some(sub.clone())),
            (failing.to_string(), None), // sub-a had ended (suspended) by then
        ]
    );
}

#[test]
fn failing_ends_the_run_at_once() {
    let mut run = emitter();
    run.usage(ProviderUsage::new(10, 2));
    run.text("Half an answ").unwrap();
    run.tool_call_start("f").unwrap();
    run.fail_with_code("provider timed out", "provider_timeout")
        .unwrap();
    assert_eq!(
        run.text("x").unwrap_err(),
        BuildError::RunEnded(EventType::RunError)
    );
    assert!(run.finish().is_err());
    let events = run.into_events();
    assert_valid_sequence(&events);
    let Some(Event::RunError(err)) = events.last() else {
        panic!()
    };
    assert_eq!(err.code.as_deref(), Some("provider_timeout"));
    assert_eq!(err.usage.as_ref().unwrap()[0].total_tokens, Some(12));
    // Nothing is closed for it: the call stays open, as the protocol allows.
    assert_eq!(
        types(&events)[events.len() - 2..],
        ["TOOL_CALL_START", "RUN_ERROR"]
    );
}

#[test]
fn interrupts_and_cancellation() {
    let mut run = emitter();
    let call = run
        .tool_call("send_email", json!({"to": "a@b.com"}))
        .unwrap();
    assert_eq!(run.interrupt([]).unwrap_err(), BuildError::NoInterrupts);
    assert!(!run.is_ended());
    run.interrupt([tool_approval("int-1", call, "Send it?")])
        .unwrap();
    assert_eq!(
        run.cancel().unwrap_err(),
        BuildError::RunEnded(EventType::RunFinished)
    );
    let events = run.into_events();
    assert_valid_sequence(&events);
    assert!(matches!(
        finished(&events).outcome,
        Some(RunFinishedOutcome::Interrupt(_))
    ));

    // The resumed run answers the call from the earlier run and finishes.
    let mut resumed =
        RunEmitter::start("thread-1", "run-2").with_ids(SequentialIds::with_prefix("r2"));
    resumed.tool_call_result("call-1", "sent").unwrap();
    resumed.text("Done.").unwrap();
    resumed.finish().unwrap();
    assert_valid_sequence(&resumed.into_events());

    let mut cancelled = emitter();
    cancelled.text("Never mind").unwrap();
    cancelled.cancel().unwrap();
    let events = cancelled.into_events();
    assert_valid_sequence(&events);
    assert_eq!(
        finished(&events).outcome,
        Some(RunFinishedOutcome::cancelled())
    );
}

#[test]
fn order_mistakes_are_errors_and_emit_nothing() {
    let mut run = emitter();
    let before = run.events().len();
    assert!(matches!(
        run.tool_call_args("nope", "{}"),
        Err(BuildError::NotOpen {
            kind: "tool call",
            ..
        })
    ));
    assert!(matches!(
        run.tool_call_end("nope"),
        Err(BuildError::NotOpen { .. })
    ));
    run.tool_call_start_with_id("c", "f").unwrap();
    let mid = run.events().len();
    assert!(matches!(
        run.tool_call_start_with_id("c", "f"),
        Err(BuildError::AlreadyOpen { .. })
    ));
    assert!(matches!(
        run.step_finish("s"),
        Err(BuildError::NotOpen { kind: "step", .. })
    ));
    run.step_start("s").unwrap();
    assert!(matches!(
        run.step_start("s"),
        Err(BuildError::AlreadyOpen { kind: "step", .. })
    ));
    assert!(matches!(
        run.activity_update("a", &json!({})),
        Err(BuildError::NotOpen {
            kind: "activity",
            ..
        })
    ));
    assert!(matches!(
        run.activity_delta("a", []),
        Err(BuildError::NotOpen { .. })
    ));
    assert!(matches!(
        run.reasoning_encrypted_value("v"),
        Err(BuildError::NotOpen { .. })
    ));
    assert!(matches!(
        run.subagent_finish(None),
        Err(BuildError::NotOpen { .. })
    ));
    assert!(matches!(
        run.subagent_fail("x"),
        Err(BuildError::NotOpen { .. })
    ));
    assert!(matches!(
        run.subagent_start_with(
            SubagentStartedEvent::new("s2", "n").with_parent_subagent_run_id("ghost")
        ),
        Err(BuildError::NotOpen { .. })
    ));
    assert!(matches!(
        run.activity("PLAN", &json!([])),
        Err(BuildError::NotAnObject { .. })
    ));
    assert!(matches!(
        run.state_delta([JsonPatchOperation::remove("bad")]),
        Err(BuildError::InvalidPointer { .. })
    ));
    assert_eq!(run.events().len(), mid + 1, "only STEP_STARTED was added");
    assert_eq!(before, 1);
    run.subagent_start_with(SubagentStartedEvent::new("s1", "n"))
        .unwrap();
    run.subagent_finish(None).unwrap();
    assert!(matches!(
        run.subagent_start_with(SubagentStartedEvent::new("s1", "n")),
        Err(BuildError::AlreadyOpen { .. })
    ));
    run.finish().unwrap();
    assert_valid_sequence(&run.into_events());
}

#[test]
fn state_activity_and_the_rest() {
    let mut run = emitter().with_clock(|| 1_760_000_000_000);
    let notes = "a note long enough that a delta is smaller than the state".repeat(2);
    run.state(&json!({"todos": [], "count": 0, "notes": notes}))
        .unwrap();
    run.state(&json!({"todos": [], "count": 0, "notes": notes}))
        .unwrap(); // unchanged: nothing
    run.state(&json!({"todos": ["milk"], "count": 1, "new": true, "notes": notes}))
        .unwrap();
    run.state_delta([JsonPatchOperation::remove("/new")])
        .unwrap();
    run.state(&json!({"count": 1})).unwrap(); // a snapshot is smaller than the delta
    let plan = run
        .activity("PLAN", &json!({"steps": [{"title": "a", "done": false}]}))
        .unwrap();
    run.activity_update(
        plan.clone(),
        &json!({"steps": [{"title": "a", "done": true}]}),
    )
    .unwrap();
    run.activity_delta(plan.clone(), [JsonPatchOperation::add("/extra", 1)])
        .unwrap();
    run.activity_snapshot(plan, "PLAN", &json!({})).unwrap();
    run.reasoning("x").unwrap();
    run.reasoning_encrypted_value("gAAAA").unwrap();
    run.encrypted_value(ReasoningEncryptedValueSubtype::ToolCall, "call-0", "enc")
        .unwrap();
    run.custom("ping", json!(null)).unwrap();
    run.raw(json!({"provider": "event"}), Some("openai"))
        .unwrap();
    run.messages_snapshot([]).unwrap();
    run.close_reasoning().unwrap();
    run.close_text().unwrap();
    run.close_turn().unwrap();
    run.finish_with_result(json!({"answer": 42})).unwrap();
    let events = run.into_events();
    assert_valid_sequence(&events);
    assert!(
        events
            .iter()
            .all(|e| e.timestamp() == Some(1_760_000_000_000))
    );
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "STATE_SNAPSHOT",
            "STATE_DELTA",
            "STATE_DELTA",
            "STATE_SNAPSHOT",
            "ACTIVITY_SNAPSHOT",
            "ACTIVITY_DELTA",
            "ACTIVITY_DELTA",
            "ACTIVITY_SNAPSHOT",
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_ENCRYPTED_VALUE",
            "REASONING_ENCRYPTED_VALUE",
            "CUSTOM",
            "RAW",
            "MESSAGES_SNAPSHOT",
            "REASONING_MESSAGE_END",
            "REASONING_END",
            "RUN_FINISHED",
        ]
    );
    let Event::StateDelta(d) = &events[2] else {
        panic!()
    };
    assert_eq!(
        serde_json::to_value(&d.delta).unwrap(),
        json!([
            {"op": "replace", "path": "/count", "value": 1},
            {"op": "add", "path": "/new", "value": true},
            {"op": "add", "path": "/todos/-", "value": "milk"},
        ])
    );
    let Event::ActivityDelta(a) = &events[6] else {
        panic!()
    };
    assert_eq!(
        serde_json::to_value(&a.patch).unwrap(),
        json!([{"op": "replace", "path": "/steps/0/done", "value": true}])
    );
    assert_eq!(finished(&events).result, Some(json!({"answer": 42})));
}

/// A small deterministic generator (64-bit LCG), so the random runs are reproducible.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// Ends every active subagent invocation.
fn end_subagents(run: &mut RunEmitter) -> Result<(), BuildError> {
    while run.current_subagent().is_some() {
        run.subagent_finish(None)?;
    }
    Ok(())
}

/// Whatever order the calls come in — errors ignored — the emitted sequence is valid.
#[test]
fn random_call_orders_always_give_valid_sequences() {
    let mut rng = Lcg(0x5eed);
    for round in 0..300 {
        let mut run = RunEmitter::start("t", format!("run-{round}")).with_ids(SequentialIds::new());
        let mut calls: Vec<String> = Vec::new();
        for _ in 0..rng.next(60) {
            let call = if calls.is_empty() {
                "call-x".to_owned()
            } else {
                calls[rng.next(calls.len() as u64) as usize].clone()
            };
            let step = ["a", "b"][rng.next(2) as usize];
            let n = rng.next(3);
            let _ = match rng.next(25) {
                19 => run.text_with_id(format!("h-{n}"), "t"),
                20 => run.push_event(ag_ui_builders::event::text_message_start(format!("h-{n}"))),
                21 => run.push_event(ag_ui_builders::event::text_message_end(format!("h-{n}"))),
                22 => run.push_event(ag_ui_builders::event::tool_call_start(
                    format!("q-{n}"),
                    "f",
                )),
                23 => run.messages_snapshot(vec![
                    ag_ui_builders::assistant_message(format!("h-{n}"), "x").into(),
                ]),
                24 => run.text_message_end(format!("h-{n}")),
                0 | 1 => run.text("t").map(drop),
                2 => run.reasoning("r").map(drop),
                3 => run
                    .tool_call_start("f")
                    .map(|id| calls.push(id.into_string())),
                4 => run.tool_call_args(call, "{}"),
                5 => run.tool_call_end(call),
                6 => run.tool_call_result(call, "ok").map(drop),
                7 => run.step_start(step),
                8 => run.step_finish(step),
                9 => run.subagent_start("sub").map(drop),
                10 => run.subagent_finish(None),
                11 => run.subagent_fail("boom"),
                12 => run.subagent_suspend(Vec::<String>::new()),
                13 => run.close_turn(),
                14 => run.state(&json!({"n": rng.next(3)})),
                15 => run.activity("PLAN", &json!({"n": 1})).map(drop),
                16 => run.reasoning_encrypted_value("e"),
                17 => run.push(ModelChunk::ToolCallStart {
                    id: format!("p-{}", rng.next(4)),
                    name: "g".into(),
                }),
                _ => run.close_text(),
            };
        }
        let ended = match rng.next(4) {
            0 => run.fail("stop"),
            1 => end_subagents(&mut run).and_then(|()| run.cancel()),
            _ => end_subagents(&mut run).and_then(|()| run.finish()),
        };
        match ended {
            Ok(()) => {}
            // Calls with arguments like `{}{}` are not handed out, and what a snapshot
            // re-attributed cannot be closed by its old owner: the run fails instead.
            Err(BuildError::IncompleteArguments { .. } | BuildError::Violation(_)) => {
                run.fail("cannot finish").unwrap();
            }
            Err(e) => panic!("{e}"),
        }
        assert_valid_sequence(&run.into_events());
    }
}

#[test]
fn timestamps_from_the_system_clock() {
    let mut run = RunEmitter::start("t", "r").with_timestamps();
    run.finish().unwrap();
    let events = run.drain();
    assert!(
        events
            .iter()
            .all(|e| e.timestamp().is_some_and(|t| t > 1_600_000_000_000))
    );
    assert!(run.events().is_empty());
}

fn start_call(run: &mut RunEmitter, id: &str, args: &str) {
    run.push(ModelChunk::ToolCallStart {
        id: id.into(),
        name: "search".into(),
    })
    .unwrap();
    run.push(ModelChunk::ToolCallDelta {
        id: id.into(),
        delta: args.into(),
    })
    .unwrap();
}

#[test]
fn truncated_tool_calls_are_never_handed_out() {
    // Open and cut off: finishing is refused, nothing is emitted, the run stays live.
    let mut run = emitter();
    start_call(&mut run, "call_1", r#"{"q":"#);
    let before = run.events().len();
    assert_eq!(
        run.finish().unwrap_err(),
        BuildError::IncompleteArguments {
            tool_call_id: "call_1".into(),
            arguments: r#"{"q":"#.into()
        }
    );
    assert_eq!(run.events().len(), before);
    assert!(!run.is_ended());
    assert!(matches!(
        run.finish_with_result(json!(1)),
        Err(BuildError::IncompleteArguments { .. })
    ));
    // Ended by the model but still not JSON: the same.
    run.push(ModelChunk::ToolCallEnd {
        id: "call_1".into(),
    })
    .unwrap();
    assert!(matches!(
        run.finish(),
        Err(BuildError::IncompleteArguments { .. })
    ));
    // Nor is it put up for approval.
    assert!(matches!(
        run.interrupt([tool_approval("int-1", "call_1", "Search?")]),
        Err(BuildError::IncompleteArguments { .. })
    ));
    // Nor handed out by an explicit outcome, or by a hand-built RUN_FINISHED.
    assert!(matches!(
        run.finish_with(success_pending(["call_1"]), None),
        Err(BuildError::IncompleteArguments { .. })
    ));
    let hand_built = ag_ui_core::RunFinishedEvent::new("thread-1", "run-1")
        .with_outcome(success_pending(["call_1"]));
    assert!(matches!(
        run.push_event(hand_built),
        Err(BuildError::IncompleteArguments { .. })
    ));
    assert_eq!(
        run.events().len(),
        before + 1,
        "only the TOOL_CALL_END went out"
    );
    // The caller ends the run with RUN_ERROR instead.
    run.fail("the model's output was cut off").unwrap();
    let events = run.into_events();
    assert_valid_sequence(&events);
    assert_eq!(events.last().unwrap().event_type(), EventType::RunError);

    // Answered, or with complete (or no) arguments, a call is fine.
    let mut run = emitter();
    start_call(&mut run, "call_1", r#"{"q":"#);
    run.tool_call_result("call_1", "error: malformed arguments")
        .unwrap();
    start_call(&mut run, "call_2", r#"{"q":"otters"}"#);
    start_call(&mut run, "call_3", "");
    run.finish().unwrap();
    let events = run.into_events();
    assert_valid_sequence(&events);
    let Some(RunFinishedOutcome::Success(s)) = &finished(&events).outcome else {
        panic!()
    };
    assert_eq!(
        s.pending_tool_call_ids.as_deref().unwrap(),
        [ToolCallId::from("call_2"), "call_3".into()]
    );
}

#[test]
fn tool_call_ids_are_unique_within_a_run() {
    let mut run = emitter();
    start_call(&mut run, "c1", "{}");
    run.push(ModelChunk::ToolCallEnd { id: "c1".into() })
        .unwrap();
    run.push(ModelChunk::EndTurn { usage: None }).unwrap();
    let before = run.events().len();
    assert_eq!(
        run.push(ModelChunk::ToolCallStart {
            id: "c1".into(),
            name: "search".into(),
        })
        .unwrap_err(),
        BuildError::AlreadyOpen {
            kind: "tool call",
            id: "c1".into()
        }
    );
    assert!(matches!(
        run.push_event(ag_ui_builders::event::tool_call_start("c1", "search")),
        Err(BuildError::AlreadyOpen { .. })
    ));
    // A call answered here after an earlier run made it is used too.
    run.tool_call_result("call-old", "ok").unwrap();
    assert!(matches!(
        run.tool_call_start_with_id("call-old", "f"),
        Err(BuildError::AlreadyOpen { .. })
    ));
    assert_eq!(run.events().len(), before + 1, "only TOOL_CALL_RESULT");
    // Minted ids skip ids the run has used.
    run.tool_call_start_with_id("call-1", "f").unwrap();
    assert_eq!(run.tool_call_start("g").unwrap().as_str(), "call-2");
    run.finish().unwrap();
    assert_valid_sequence(&run.into_events());
}

#[test]
fn text_messages_with_provider_ids_interleave() {
    let mut run = emitter();
    run.push(ModelChunk::TextWithId {
        id: "msg_a".into(),
        delta: "Hello ".into(),
    })
    .unwrap();
    run.text_with_id("msg_b", "Bonjour ").unwrap();
    run.text_with_id("msg_a", "world").unwrap();
    assert_eq!(
        run.open_text_messages(),
        [MessageId::from("msg_a"), "msg_b".into()]
    );
    run.text(", again").unwrap(); // the message last written to
    run.text_message_end("msg_a").unwrap();
    assert!(matches!(
        run.text_message_end("msg_a"),
        Err(BuildError::NotOpen { .. })
    ));
    run.text_with_id("msg_b", "le monde").unwrap();
    // A tool call attaches to the message last written to, which it closes.
    run.text_with_id("msg_c", "Checking").unwrap();
    run.text_with_id("msg_b", "!").unwrap();
    run.tool_call_start_with_id("call_b", "check").unwrap();
    assert_eq!(run.open_text_messages(), [MessageId::from("msg_c")]);
    // A minted id never takes a provider's.
    run.text_with_id("msg-1", "x").unwrap();
    run.close_turn().unwrap();
    assert_eq!(run.text("new").unwrap().as_str(), "msg-2");
    // A subagent cannot take over a message id of the agent.
    run.subagent_start("helper").unwrap();
    assert_eq!(
        run.text_with_id("msg_a", "mine").unwrap_err(),
        BuildError::AlreadyOpen {
            kind: "message",
            id: "msg_a".into()
        }
    );
    run.subagent_finish(None).unwrap();
    run.finish().unwrap();
    let events = run.into_events();
    assert_valid_sequence(&events);
    let text: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| match e {
            Event::TextMessageContent(c) => Some((c.message_id.to_string(), c.delta.clone())),
            _ => None,
        })
        .collect();
    let pairs: Vec<(&str, &str)> = text.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let parent = events.iter().find_map(|e| match e {
        Event::ToolCallStart(c) => c.parent_message_id.clone(),
        _ => None,
    });
    assert_eq!(parent, Some(MessageId::from("msg_b")));
    assert_eq!(
        pairs,
        [
            ("msg_a", "Hello "),
            ("msg_b", "Bonjour "),
            ("msg_a", "world"),
            ("msg_a", ", again"),
            ("msg_b", "le monde"),
            ("msg_c", "Checking"),
            ("msg_b", "!"),
            ("msg-1", "x"),
            ("msg-2", "new"),
        ]
    );
}

#[test]
fn hand_built_events_are_checked_and_tracked() {
    use ag_ui_builders::event;

    let mut run = emitter();
    // Opened by hand, continued and closed by the emitter.
    run.push_event(event::text_message_start("msg_x").with_name("planner"))
        .unwrap();
    assert_eq!(run.text("Plan: ").unwrap().as_str(), "msg_x");
    // Refused, nothing emitted: a rule broken, a chunk, an unknown owner.
    let before = run.events().len();
    assert!(matches!(
        run.push_event(event::text_message_content("msg_nope", "?")),
        Err(BuildError::Violation(v)) if v.rule == ag_ui_core::Rule::M2
    ));
    assert!(matches!(
        run.push_event(event::text_message_chunk("msg_y", "hi")),
        Err(BuildError::ChunkEvent(EventType::TextMessageChunk))
    ));
    assert!(matches!(
        run.push_event(event::step_started("s").with_subagent_run_id("ghost")),
        Err(BuildError::NotOpen {
            kind: "subagent invocation",
            ..
        })
    ));
    assert!(matches!(
        run.push_event(event::run_started("thread-1", "run-9")),
        Err(BuildError::Violation(_))
    ));
    assert_eq!(run.events().len(), before);
    // A hand-built call counts as pending and its arguments are checked.
    run.push_event(event::tool_call_start("call_h", "lookup"))
        .unwrap();
    run.push_event(event::tool_call_args("call_h", r#"{"id":"#))
        .unwrap();
    assert_eq!(run.tool_call_arguments("call_h"), Some(r#"{"id":"#));
    assert!(matches!(
        run.finish(),
        Err(BuildError::IncompleteArguments { .. })
    ));
    run.tool_call_args("call_h", "7}").unwrap();
    // State: the emitter diffs against a hand-built snapshot.
    let notes = "a note long enough that a delta is smaller than the state".repeat(2);
    run.push_event(event::state_snapshot(json!({"n": 1, "notes": notes})))
        .unwrap();
    run.state(&json!({"n": 2, "notes": notes})).unwrap();
    // A subagent's end closes what it left open.
    let sub = run.subagent_start("helper").unwrap();
    run.text("working").unwrap();
    run.push_event(event::subagent_finished(sub)).unwrap();
    assert_eq!(run.current_subagent(), None);
    run.finish().unwrap();
    let events = run.into_events();
    assert_valid_sequence(&events);
    assert_eq!(
        events
            .iter()
            .filter(|e| e.event_type() == EventType::StateDelta)
            .count(),
        1
    );
    let Some(RunFinishedOutcome::Success(s)) = &finished(&events).outcome else {
        panic!()
    };
    assert_eq!(
        s.pending_tool_call_ids.as_deref().unwrap(),
        [ToolCallId::from("call_h")]
    );

    // A hand-built end ends the run.
    let mut run = emitter();
    run.push_event(event::run_finished_cancelled("thread-1", "run-1"))
        .unwrap();
    assert!(run.is_ended());
    assert_eq!(
        run.text("x").unwrap_err(),
        BuildError::RunEnded(EventType::RunFinished)
    );
    assert_valid_sequence(&run.into_events());
}

#[test]
fn interrupt_ids_are_minted_and_unique() {
    let mut run = emitter();
    let call = run
        .tool_call("send_email", json!({"to": "a@b.com"}))
        .unwrap();
    let first = run.new_interrupt_id().unwrap();
    let second = run.new_interrupt_id().unwrap();
    assert_eq!((first.as_str(), second.as_str()), ("int-1", "int-2"));
    assert_eq!(
        run.interrupt([
            tool_approval(first.clone(), call.clone(), "Send?"),
            confirmation(first.clone(), "Sure?"),
        ])
        .unwrap_err(),
        BuildError::DuplicateInterrupt { id: "int-1".into() }
    );
    run.interrupt([
        tool_approval(first, call, "Send?"),
        confirmation(second, "Sure?"),
    ])
    .unwrap();
    let events = run.into_events();
    assert_valid_sequence(&events);
    let ids: Vec<&str> = finished(&events)
        .interrupts()
        .iter()
        .map(|i| i.id.as_str())
        .collect();
    assert_eq!(ids, ["int-1", "int-2"]);
}

#[test]
fn the_end_of_a_model_turn_is_not_the_end_of_the_run() {
    let mut run = emitter();
    run.push(ModelChunk::Text("Let me look.".into())).unwrap();
    run.push(ModelChunk::EndTurn {
        usage: Some(ProviderUsage::new(10, 3)),
    })
    .unwrap();
    assert!(!run.is_ended());
    assert_eq!(run.open_text_message(), None);
    run.push(ModelChunk::Text("Found it.".into())).unwrap();
    run.finish().unwrap();
    let events = run.into_events();
    assert_valid_sequence(&events);
    assert_eq!(
        types(&events)
            .iter()
            .filter(|t| **t == "TEXT_MESSAGE_START")
            .count(),
        2
    );
}

#[test]
fn what_would_break_a_rule_is_refused_not_emitted() {
    let mut run = emitter();
    let plan = run.activity("PLAN", &json!({"n": 0})).unwrap();
    let call = run.tool_call("search", json!({})).unwrap();
    run.subagent_start("helper").unwrap();
    // The agent's activity and call keep their owner when a subagent touches them.
    run.activity_update(plan, &json!({"n": 1})).unwrap();
    run.encrypted_value(ReasoningEncryptedValueSubtype::ToolCall, call, "enc")
        .unwrap();
    run.text_with_id("m", "mine").unwrap();
    // A snapshot gives "m" to the agent itself: the subagent can no longer write it, and
    // the emitter says so instead of emitting an invalid stream.
    run.messages_snapshot(vec![
        ag_ui_builders::assistant_message("m", "theirs").into(),
    ])
    .unwrap();
    let before = run.events().len();
    assert!(matches!(
        run.text_with_id("m", "more"),
        Err(BuildError::Violation(v)) if v.rule == ag_ui_core::Rule::O4
    ));
    assert_eq!(run.events().len(), before);
    // The message is the agent's now: the invocation ends without closing it, and the
    // agent writes to it and closes it when the run finishes.
    run.subagent_finish(None).unwrap();
    run.text_with_id("m", " and more").unwrap();
    run.finish().unwrap();
    let events = run.into_events();
    let m_end = events.iter().find_map(|e| match e {
        Event::TextMessageEnd(end) if end.message_id.as_str() == "m" => Some(end),
        _ => None,
    });
    assert_eq!(m_end.map(|end| end.subagent_run_id.is_none()), Some(true));
    assert_valid_sequence(&events);
    let owner_of = |t: EventType| {
        events
            .iter()
            .find(|e| e.event_type() == t)
            .map(|e| e.subagent_run_id().cloned())
    };
    assert_eq!(owner_of(EventType::ActivityDelta), Some(None));
    assert_eq!(owner_of(EventType::ReasoningEncryptedValue), Some(None));
}

/// The naming scheme the README states for `RunEmitter`, checked on its public methods
/// (in every file of the emitter's module): imperative verbs, never the past
/// tense of the event names; the tool-call family is `tool_call_*`; closing is `close_*`.
#[test]
fn emitter_methods_follow_one_naming_scheme() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/emitter");
    let mut source = String::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        source.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    let lines: Vec<&str> = source.lines().collect();
    let mut names = Vec::new();
    for line in &lines {
        let Some(rest) = line.strip_prefix("    pub fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        names.push(name);
    }
    assert!(names.len() > 40, "{names:?}");
    for name in [
        "step_start",
        "tool_call_result",
        "text_message_end",
        "close_turn",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} missing");
    }
    let broken: Vec<&String> = names
        .iter()
        .filter(|n| {
            let past = [
                "started",
                "finished",
                "ended",
                "closed",
                "suspended",
                "failed",
            ]
            .iter()
            .any(|p| n.split('_').any(|w| w == *p));
            (past && !n.starts_with("is_"))
                || (n.starts_with("tool_") && !n.starts_with("tool_call"))
                || n.starts_with("end_")
        })
        .collect();
    assert!(broken.is_empty(), "outside the naming scheme: {broken:?}");
}

#[test]
fn a_typed_encrypted_value_needs_a_run_that_declared_1_1() {
    use ag_ui_core::{ProtocolVersion, RunAgentInput};
    let old = RunAgentInput::new("t1", "r1", vec![]).with_protocol_version("1.0");
    let mut run = RunEmitter::start_for(&old).with_ids(SequentialIds::new());
    assert_eq!(run.protocol_version(), ProtocolVersion::V1_0);
    run.reasoning("thinking").unwrap();
    let err = run
        .typed_reasoning_encrypted_value("sig", "anthropic.signature")
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::NotInVersion {
            member: "encryptedValueType",
            declared: ProtocolVersion::V1_0,
            needs: ProtocolVersion::V1_1
        }
    );
    assert!(err.to_string().contains("1.1"), "{err}");

    let new = RunAgentInput::new("t1", "r1", vec![]).with_protocol_version("1.1");
    let mut run = RunEmitter::start_for(&new).with_ids(SequentialIds::new());
    run.reasoning("thinking").unwrap();
    run.typed_reasoning_encrypted_value("sig", "anthropic.signature")
        .unwrap();
    run.finish().unwrap();
    let events: Vec<serde_json::Value> = run
        .events()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(events[0]["protocolVersion"], "1.1");
    let typed = events
        .iter()
        .find(|e| e["type"] == "REASONING_ENCRYPTED_VALUE")
        .unwrap();
    assert_eq!(typed["encryptedValue"], "sig");
    assert_eq!(typed["encryptedValueType"], "anthropic.signature");
    // Without a declared version, and for a pre-1.0 caller, the run declares 1.0.
    let bare = RunAgentInput::new("t1", "r1", vec![]);
    let run = RunEmitter::start_for(&bare);
    assert_eq!(run.protocol_version(), ProtocolVersion::V1_0);
}

#[test]
fn an_outcome_with_two_interrupts_of_one_id_is_refused() {
    let err = ag_ui_builders::outcome::interrupted([
        confirmation("i1", "Sure?"),
        confirmation("i1", "Really?"),
    ])
    .unwrap_err();
    assert_eq!(err, BuildError::DuplicateInterrupt { id: "i1".into() });
}

/// What the run has open is the verifier's answer, not a copy the emitter keeps: a
/// hand-built event that closes or opens something counts for every method after it, and
/// finishing closes in the verifier's opening order (a turn's text, then its tool calls,
/// then the steps, innermost first).
#[test]
fn what_is_open_is_the_verifiers() {
    use ag_ui_builders::event;
    use ag_ui_core::stream::verify::OpenKind;

    let mut run = emitter();
    run.step_start("outer").unwrap();
    run.step_start("inner").unwrap();
    let first = run.text("Hello").unwrap();
    run.push_event(event::text_message_end(first.clone()))
        .unwrap();
    assert_eq!(run.open_text_message(), None);
    assert!(run.open_text_messages().is_empty());
    let second = run.text("again").unwrap();
    assert_ne!(first, second, "a closed message is not appended to");
    run.push_event(event::step_started("by-hand")).unwrap();
    run.push_event(event::tool_call_start("call-hand", "f"))
        .unwrap();
    let open: Vec<(OpenKind, String)> = run
        .verifier()
        .open()
        .into_iter()
        .map(|o| (o.kind, o.id))
        .collect();
    let expected = [
        (OpenKind::Step, "outer"),
        (OpenKind::Step, "inner"),
        (OpenKind::TextMessage, second.as_str()),
        (OpenKind::Step, "by-hand"),
        (OpenKind::ToolCall, "call-hand"),
    ]
    .map(|(k, id)| (k, id.to_owned()));
    assert_eq!(open, expected);
    run.finish().unwrap();
    assert!(run.verifier().open().is_empty());
    let events = run.into_events();
    assert_valid_sequence(&events);
    let tail: Vec<Value> = events[events.len() - 6..]
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(
        tail,
        [
            json!({"type": "TEXT_MESSAGE_END", "messageId": second.as_str()}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "call-hand"}),
            json!({"type": "STEP_FINISHED", "stepName": "by-hand"}),
            json!({"type": "STEP_FINISHED", "stepName": "inner"}),
            json!({"type": "STEP_FINISHED", "stepName": "outer"}),
            json!({
                "type": "RUN_FINISHED", "threadId": "thread-1", "runId": "run-1",
                "outcome": {"type": "success", "pendingToolCallIds": ["call-hand"]}
            }),
        ]
    );
}
