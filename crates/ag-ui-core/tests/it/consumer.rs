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
