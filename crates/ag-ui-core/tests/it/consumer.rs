//! `StreamConsumer`: SSE bytes in, events out, the thread kept current.

use ag_ui_core::{ConsumeError, EventType, PipelineError, Rule, StreamConsumer, WarningKind};
use serde_json::{Value, json};

fn sse(events: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(serde_json::to_string(e).unwrap().as_bytes());
        out.extend_from_slice(b"\n\n");
    }
    out
}

fn run_events() -> Vec<Value> {
    vec![
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r"}),
        json!({"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Hé"}),
        json!({"type":"TEXT_MESSAGE_CHUNK","delta":"llo"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"m"}),
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{}"}),
        json!({"type":"TOOL_CALL_END","toolCallId":"c"}),
        json!({"type":"STATE_SNAPSHOT","snapshot":{"n":1}}),
        json!({"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}),
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r"}),
    ]
}

fn expected_messages() -> Value {
    json!([{"id":"m","role":"assistant","content":"Héllo","toolCalls":[
        {"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}
    ]}])
}

#[test]
fn any_chunking_gives_the_same_events_and_thread() {
    let bytes = sse(&run_events());
    let mut reference: Option<Vec<Value>> = None;
    // Every split size, including cuts inside the two-byte 'é'.
    for size in [1, 2, 3, 5, 7, 64, bytes.len()] {
        let mut c = StreamConsumer::new();
        let mut events = Vec::new();
        for chunk in bytes.chunks(size) {
            events.extend(c.feed(chunk).unwrap());
        }
        events.extend(c.finish().unwrap());
        let events: Vec<Value> = events
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect();
        assert_eq!(c.events_delivered(), events.len());
        assert_eq!(
            serde_json::to_value(c.thread().messages()).unwrap(),
            expected_messages()
        );
        assert_eq!(c.thread().state(), &json!({"n":2}));
        assert!(c.take_warnings().is_empty());
        match &reference {
            None => reference = Some(events),
            Some(r) => assert_eq!(r, &events, "split {size}"),
        }
    }
    // START, CONTENT, CONTENT, END (closed by TOOL_CALL_START), and the 6 others.
    assert_eq!(reference.unwrap().len(), 11);
}

#[test]
fn push_text_skips_sse_framing() {
    let mut c = StreamConsumer::new();
    for e in run_events() {
        c.push_text(&serde_json::to_string(&e).unwrap()).unwrap();
    }
    c.finish().unwrap();
    assert_eq!(
        serde_json::to_value(c.into_thread().messages()).unwrap(),
        expected_messages()
    );
}

#[test]
fn a_stream_without_a_terminal_event_is_incomplete_but_keeps_what_it_applied() {
    let events = run_events();
    let mut c = StreamConsumer::new();
    c.feed(&sse(&events[..3])).unwrap();
    let err = c.finish().unwrap_err();
    let ConsumeError::Incomplete {
        events_delivered,
        last_event,
        ..
    } = err
    else {
        panic!("{err}")
    };
    // The pending chunk message was closed by the end of input.
    assert_eq!(events_delivered, 5);
    assert_eq!(last_event, Some(EventType::TextMessageEnd));
    assert_eq!(
        serde_json::to_value(c.thread().messages()).unwrap(),
        json!([{"id":"m","role":"assistant","content":"Héllo"}])
    );
    // A truncated run is never a success: it stays running, with no outcome.
    assert_eq!(c.thread().run_status(), ag_ui_core::RunStatus::Running);
    assert_eq!(c.thread().outcome(), None);
}

#[test]
fn a_final_message_without_its_blank_line_is_delivered_by_finish() {
    let mut bytes = sse(&run_events());
    bytes.truncate(bytes.len() - 2);
    let mut c = StreamConsumer::new();
    let before = c.feed(&bytes).unwrap();
    let after = c.finish().unwrap();
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].event_type(), EventType::RunFinished);
    assert_eq!(before.len() + after.len(), c.events_delivered());
}

#[test]
fn a_violation_stops_the_consumer_and_later_input_is_refused() {
    let mut c = StreamConsumer::new();
    c.feed(&sse(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"m"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"kept"}),
    ]))
    .unwrap();
    let err = c
        .feed(&sse(&[
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"other","delta":"x"}),
        ]))
        .unwrap_err();
    let ConsumeError::Pipeline(PipelineError::Violation(v)) = &err else {
        panic!("{err}")
    };
    assert_eq!((v.rule, v.index), (Rule::M2, 3));
    assert_eq!(
        serde_json::to_value(c.thread().messages()).unwrap()[0]["content"],
        "kept"
    );
    let again = c.feed(b"data: {}\n\n").unwrap_err();
    assert!(
        matches!(again, ConsumeError::Pipeline(PipelineError::Violation(ref v2)) if v2.rule == Rule::M2),
        "{again}"
    );
    assert!(matches!(c.finish(), Err(ConsumeError::Pipeline(_))));
}

#[test]
fn sse_errors_are_reported_and_repeated() {
    let mut c = StreamConsumer::new().with_max_frame_bytes(16);
    let err = c
        .feed(b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}")
        .unwrap_err();
    assert!(matches!(err, ConsumeError::Sse(_)), "{err}");
    assert!(matches!(c.feed(b"\n"), Err(ConsumeError::Sse(_))));
    assert!(matches!(c.push_text("{}"), Err(ConsumeError::Sse(_))));
}

#[test]
fn warnings_carry_the_index_and_type_of_their_event() {
    let mut c = StreamConsumer::new();
    c.feed(&sse(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r"}),
        json!({"type":"FUTURE_EVENT"}),
        json!({"type":"STATE_DELTA","delta":[{"op":"remove","path":"/nope"}]}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"m","extra":1}),
        json!({"type":"TEXT_MESSAGE_END","messageId":"m"}),
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r"}),
    ]))
    .unwrap();
    c.finish().unwrap();
    let got: Vec<(WarningKind, &str, Option<usize>, Option<EventType>)> = Vec::new();
    let warnings = c.take_warnings();
    let got = warnings.iter().fold(got, |mut acc, w| {
        acc.push((w.kind, w.pointer.as_str(), w.event_index, w.event_type));
        acc
    });
    assert_eq!(
        got,
        [
            (WarningKind::UnknownEventType, "/type", Some(1), None),
            (
                WarningKind::PatchFailed,
                "/delta/0",
                Some(2),
                Some(EventType::StateDelta)
            ),
            (
                WarningKind::UnknownField,
                "/extra",
                Some(3),
                Some(EventType::TextMessageStart)
            ),
        ]
    );
    assert!(c.take_warnings().is_empty(), "drained");
}

#[test]
fn a_refused_events_warnings_are_kept() {
    let mut c = StreamConsumer::new();
    c.push_text(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#)
        .unwrap();
    c.push_text(r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a","x":1}"#)
        .unwrap();
    let w = c.take_warnings();
    // The chunk's warning names the chunk, not an event it expanded to.
    assert_eq!(
        (w[0].kind, w[0].event_index, w[0].event_type),
        (
            WarningKind::UnknownField,
            Some(1),
            Some(EventType::TextMessageChunk)
        )
    );
    let err = c
        .push_text(r#"{"type":"STEP_FINISHED","stepName":"s","extra":true}"#)
        .unwrap_err();
    assert!(matches!(err, ConsumeError::Pipeline(_)), "{err}");
    let w = c.take_warnings();
    assert_eq!(w.len(), 1);
    assert_eq!(
        (w[0].kind, w[0].pointer.as_str(), w[0].event_index),
        (WarningKind::UnknownField, "/extra", Some(2))
    );
}

#[test]
fn warnings_left_out_by_the_reader_are_counted() {
    // 150 unknown fields: the reader lists 100 and counts the other 50.
    let mut event = serde_json::Map::new();
    event.insert("type".into(), json!("RUN_STARTED"));
    event.insert("threadId".into(), json!("t"));
    event.insert("runId".into(), json!("r"));
    for i in 0..150 {
        event.insert(format!("x{i}"), json!(i));
    }
    let mut consumer = StreamConsumer::new();
    let events = consumer.feed(&sse(&[Value::Object(event)])).unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(consumer.omitted_warnings(), 50);
    let warnings = consumer.take_warnings();
    assert_eq!(warnings.len(), ag_ui_core::read::MAX_WARNINGS);
    assert!(
        warnings
            .iter()
            .all(|w| w.kind == WarningKind::UnknownField && w.event_index == Some(0))
    );
    // Draining the list keeps the count; later events add to it.
    assert_eq!(consumer.omitted_warnings(), 50);
    let mut more = serde_json::Map::new();
    more.insert("type".into(), json!("STEP_STARTED"));
    more.insert("stepName".into(), json!("s"));
    for i in 0..101 {
        more.insert(format!("y{i}"), json!(i));
    }
    consumer.feed(&sse(&[Value::Object(more)])).unwrap();
    assert_eq!(consumer.omitted_warnings(), 51);
    assert_eq!(consumer.take_warnings().len(), 100);
    assert_eq!(consumer.omitted_warnings(), 51);
}

/// `feed_into` (one reused vector) and `feed_to_thread` (events moved into the thread)
/// deliver what `feed` does and leave the same thread, in any chunking.
#[test]
fn feed_into_and_feed_to_thread_agree_with_feed() {
    let bytes = sse(&run_events());
    for size in [1, 3, 16, bytes.len()] {
        let mut a = StreamConsumer::new();
        let mut b = StreamConsumer::new();
        let mut c = StreamConsumer::new();
        let (mut from_feed, mut from_into, mut events) = (Vec::new(), Vec::new(), Vec::new());
        let mut counted = 0;
        for chunk in bytes.chunks(size) {
            from_feed.extend(a.feed(chunk).unwrap());
            b.feed_into(chunk, &mut events).unwrap();
            from_into.append(&mut events);
            counted += c.feed_to_thread(chunk).unwrap();
        }
        from_feed.extend(a.finish().unwrap());
        from_into.extend(b.finish().unwrap());
        counted += c.finish().unwrap().len();
        let json = |events: &[ag_ui_core::Event]| serde_json::to_value(events).unwrap();
        assert_eq!(json(&from_feed), json(&from_into), "chunks of {size}");
        assert_eq!(counted, from_feed.len());
        assert_eq!(c.events_delivered(), from_feed.len());
        for consumer in [&b, &c] {
            assert_eq!(
                serde_json::to_value(consumer.thread().messages()).unwrap(),
                serde_json::to_value(a.thread().messages()).unwrap()
            );
            assert_eq!(consumer.thread().state(), a.thread().state());
        }
        assert_eq!(
            serde_json::to_value(a.thread().messages()).unwrap(),
            expected_messages()
        );
    }
}

/// What a consumer made of a stream: every call's outcome, the thread, the warnings.
fn outcome_of(
    bytes: &[u8],
    size: usize,
    to_thread: bool,
) -> (Vec<String>, Value, Value, Vec<String>, usize) {
    let mut c = StreamConsumer::new();
    let mut calls = Vec::new();
    for chunk in bytes.chunks(size) {
        calls.push(if to_thread {
            format!("{:?}", c.feed_to_thread(chunk))
        } else {
            format!("{:?}", c.feed(chunk).map(|events| events.len()))
        });
    }
    calls.push(format!("{:?}", c.finish().map(|events| events.len())));
    let warnings = c
        .take_warnings()
        .iter()
        .map(|w| format!("{w:?} / {w}"))
        .collect();
    (
        calls,
        serde_json::to_value(c.thread().messages()).unwrap(),
        c.thread().state().clone(),
        warnings,
        c.events_delivered(),
    )
}

/// `feed_to_thread` reads plain streamed deltas without building their events; every stream
/// below ends the same through it as through `feed` (the full path): the same outcome of
/// every call (errors and their messages included), thread, warnings and count, in any
/// chunking.
#[test]
fn streamed_deltas_read_in_place_end_as_through_the_full_path() {
    let start = |id: &str| json!({"type":"TEXT_MESSAGE_START","messageId":id});
    let run = |body: Vec<Value>| {
        let mut events = vec![json!({"type":"RUN_STARTED","threadId":"t","runId":"r"})];
        events.extend(body);
        events
    };
    let raw = |events: &[Value], extra: &[&str]| {
        let mut out = sse(events);
        for line in extra {
            out.extend_from_slice(format!("data: {line}\n\n").as_bytes());
        }
        out
    };
    let streams: Vec<(&str, Vec<u8>)> = vec![
        (
            "plain and not plain deltas",
            raw(
                &run(vec![start("m")]),
                &[
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#,
                    r#" { "type" : "TEXT_MESSAGE_CONTENT", "delta":"b\"\n", "messageId":"m", "timestamp":17 }"#,
                    r#"{"messageId":"m","type":"TEXT_MESSAGE_CONTENT","delta":"c"}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"\u006d","delta":"d"}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"e","metadata":{"k":1}}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"f","rawEvent":{"x":1}}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"g","timestamp":null}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"h","unknown":[1]}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"i","timestamp":1.0}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}"#,
                    r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
                    r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
                ],
            ),
        ),
        (
            "a delta for a message that is not open",
            raw(
                &run(vec![]),
                &[r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#],
            ),
        ),
        (
            "a delta naming an open tool call",
            raw(
                &run(vec![
                    json!({"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}),
                ]),
                &[r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"c","delta":"a"}"#],
            ),
        ),
        (
            "a delta before any run",
            raw(
                &[],
                &[r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#],
            ),
        ),
        (
            "a delta after the run finished",
            raw(
                &run(vec![
                    start("m"),
                    json!({"type":"TEXT_MESSAGE_END","messageId":"m"}),
                    json!({"type":"RUN_FINISHED","threadId":"t","runId":"r"}),
                ]),
                &[r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#],
            ),
        ),
        (
            "a delta while the parent lane assembles a chunk stream",
            raw(
                &run(vec![
                    start("m"),
                    json!({"type":"TEXT_MESSAGE_CHUNK","messageId":"k","delta":"x"}),
                ]),
                &[
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"k","delta":"b"}"#,
                ],
            ),
        ),
        (
            "a delta for a subagent's message",
            raw(
                &run(vec![
                    json!({"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}),
                    json!({"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"s"}),
                ]),
                &[
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a","subagentRunId":"s"}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"b"}"#,
                ],
            ),
        ),
        (
            "a delta for a tool message",
            raw(
                &run(vec![
                    json!({"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}),
                    json!({"type":"TOOL_CALL_END","toolCallId":"c"}),
                    json!({"type":"TOOL_CALL_RESULT","messageId":"x","toolCallId":"c","content":"r"}),
                    start("x"),
                ]),
                &[r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"x","delta":"a"}"#],
            ),
        ),
        (
            "a duplicated member and a broken document",
            raw(
                &run(vec![start("m")]),
                &[
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a","delta":"b"}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"#,
                ],
            ),
        ),
        (
            "tool-argument and reasoning deltas, plain and not",
            raw(
                &run(vec![
                    json!({"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}),
                    json!({"type":"REASONING_START","messageId":"r"}),
                    json!({"type":"REASONING_MESSAGE_START","messageId":"rm","role":"reasoning"}),
                ]),
                &[
                    r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"a\""}"#,
                    r#"{"type":"TOOL_CALL_ARGS","delta":":1","toolCallId":"c","timestamp":3}"#,
                    r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"}","metadata":{"k":1}}"#,
                    r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm","delta":"hm"}"#,
                    r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm","delta":"m","rawEvent":1}"#,
                    r#"{"type":"REASONING_MESSAGE_END","messageId":"rm"}"#,
                    r#"{"type":"REASONING_END","messageId":"r"}"#,
                    r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
                    r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
                ],
            ),
        ),
        (
            "tool arguments for a text message, reasoning for a closed message",
            raw(
                &run(vec![start("m")]),
                &[
                    r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#,
                    r#"{"type":"TOOL_CALL_ARGS","toolCallId":"m","delta":"a"}"#,
                ],
            ),
        ),
        (
            "tool arguments for a call that is not open",
            raw(
                &run(vec![]),
                &[r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"a"}"#],
            ),
        ),
        (
            "a broken document",
            raw(
                &run(vec![start("m")]),
                &[r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"} x"#],
            ),
        ),
        (
            "text chunks, plain and not, continuing, opening and closing",
            raw(
                &run(vec![]),
                &[
                    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"b"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"c\"\n","timestamp":9}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":""}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"d","metadata":{"k":1}}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"e","role":"assistant"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"g","rawEvent":[1]}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"\u006d","delta":"h"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"i","timestamp":1e3}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"n","delta":"j"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"k"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"n","delta":"m"}"#,
                    r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
                ],
            ),
        ),
        (
            "tool-call and reasoning chunks, and a chunk of another kind than the open one",
            raw(
                &run(vec![]),
                &[
                    r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","delta":"{\"a\""}"#,
                    r#"{"type":"TOOL_CALL_CHUNK","delta":":"}"#,
                    r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","delta":"1}"}"#,
                    r#"{"type":"TOOL_CALL_CHUNK","delta":"","toolCallName":"f"}"#,
                    r#"{"type":"REASONING_MESSAGE_CHUNK","messageId":"r","delta":"hm"}"#,
                    r#"{"type":"REASONING_MESSAGE_CHUNK","delta":"m"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"no text stream is open"}"#,
                ],
            ),
        ),
        (
            "chunks disagreeing with their stream's opener",
            raw(
                &run(vec![
                    json!({"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}),
                ]),
                &[
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"b"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"c","role":"user"}"#,
                ],
            ),
        ),
        (
            "a tool-call chunk disagreeing with its stream's name",
            raw(
                &run(vec![
                    json!({"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","delta":"{"}),
                ]),
                &[
                    r#"{"type":"TOOL_CALL_CHUNK","delta":"}"}"#,
                    r#"{"type":"TOOL_CALL_CHUNK","delta":"x","toolCallName":"g"}"#,
                ],
            ),
        ),
        (
            "chunks and subagent lanes",
            raw(
                &run(vec![
                    json!({"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}),
                    json!({"type":"SUBAGENT_STARTED","subagentRunId":"u","name":"n"}),
                    json!({"type":"TEXT_MESSAGE_CHUNK","messageId":"sm","delta":"s","subagentRunId":"s"}),
                ]),
                &[
                    // The only lane with a text stream is the subagent's.
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"a"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"sm","delta":"b"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"pm","delta":"c"}"#,
                    // The parent's stream wins an id-less chunk now.
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"d"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"sm","delta":"e"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"pm","delta":"f"}"#,
                    r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"g","subagentRunId":"u"}"#,
                ],
            ),
        ),
        (
            "an id-less chunk two subagent lanes could continue",
            raw(
                &run(vec![
                    json!({"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}),
                    json!({"type":"SUBAGENT_STARTED","subagentRunId":"u","name":"n"}),
                    json!({"type":"TEXT_MESSAGE_CHUNK","messageId":"sm","delta":"s","subagentRunId":"s"}),
                    json!({"type":"TEXT_MESSAGE_CHUNK","messageId":"um","delta":"u","subagentRunId":"u"}),
                ]),
                &[r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"a"}"#],
            ),
        ),
    ];
    for (name, bytes) in &streams {
        for size in [1, 7, 64, bytes.len()] {
            let full = outcome_of(bytes, size, false);
            let fast = outcome_of(bytes, size, true);
            assert_eq!(fast, full, "{name}, chunks of {size}");
        }
    }
    // The deltas were applied, plain or not.
    let (_, messages, ..) = outcome_of(&streams[0].1, 64, true);
    assert_eq!(messages[0]["content"], "ab\"\ncdefghi");
    let (calls, messages, ..) = outcome_of(&streams[9].1, 64, true);
    assert!(calls.iter().all(|c| c.starts_with("Ok")), "{calls:?}");
    assert_eq!(
        messages[0]["toolCalls"][0]["function"]["arguments"],
        "{\"a\":1}"
    );
    assert_eq!(messages[1]["content"], "hmm");
    let chunks = |name: &str| {
        &streams
            .iter()
            .find(|(n, _)| n.starts_with(name))
            .expect(name)
            .1
    };
    let (calls, messages, ..) = outcome_of(chunks("text chunks"), 64, true);
    assert!(calls.iter().all(|c| c.starts_with("Ok")), "{calls:?}");
    assert_eq!(messages[0]["content"], "abc\"\ndeghi");
    assert_eq!(messages[1]["content"], "jkm");
    let (calls, messages, ..) = outcome_of(chunks("tool-call and reasoning"), 64, true);
    assert!(calls.iter().any(|c| c.contains("C1")), "{calls:?}");
    assert_eq!(
        messages[0]["toolCalls"][0]["function"]["arguments"],
        "{\"a\":1}"
    );
    for name in ["chunks disagreeing", "a tool-call chunk disagreeing"] {
        let (calls, ..) = outcome_of(chunks(name), 64, true);
        assert!(calls.iter().any(|c| c.contains("C2")), "{name}: {calls:?}");
    }
}
