//! Hostile input: each case here is documented in `docs/robustness.md`.

use ag_ui_core::read::{decode, decode_slice, decode_value, from_slice, from_str};
use ag_ui_core::sse::{to_sse_frame, write_sse_frame};
use ag_ui_core::stream::verify_events;
use ag_ui_core::write::{to_string, to_vec};
use ag_ui_core::*;
use serde_json::{Value, json};

/// Runs `f` on a thread with the platform's default spawned-thread stack (2 MiB unless
/// `RUST_MIN_STACK` says otherwise), so that unbounded recursion would overflow it.
fn on_default_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(f)
        .join()
        .expect("the reader must not crash the thread")
}

fn err_text<T: serde::de::DeserializeOwned + std::fmt::Debug>(
    json: &str,
    mode: ReadMode,
) -> String {
    match decode::<T>(json, mode) {
        Ok(v) => panic!("accepted: {v:?}"),
        Err(e) => e.to_string(),
    }
}

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn nesting_100k_deep_is_a_clean_error_on_every_path() {
    on_default_stack(|| {
        let deep = nested(100_000);
        // Payload position, tag first (single pass) and tag last (buffered as a Value).
        for doc in [
            format!(r#"{{"type":"RAW","event":{deep}}}"#),
            format!(r#"{{"event":{deep},"type":"RAW"}}"#),
            format!(r#"{{"threadId":"t","runId":"r","messages":[],"state":{deep}}}"#),
            format!(
                r#"{{"role":"activity","id":"a","activityType":"x","content":{{"k":{deep}}}}}"#
            ),
        ] {
            for mode in [ReadMode::Forgiving, ReadMode::Exact] {
                let e = decode::<Event>(&doc, mode)
                    .map(|_| ())
                    .or_else(|_| decode::<RunAgentInput>(&doc, mode).map(|_| ()))
                    .or_else(|_| decode::<Message>(&doc, mode).map(|_| ()))
                    .unwrap_err();
                assert!(e.kind() == ErrorKind::TooDeep, "{e:?}");
                assert_eq!(e.kind(), ErrorKind::TooDeep);
                assert!(
                    e.to_string()
                        .contains("arrays and objects nest at most 127 levels deep"),
                    "{e}"
                );
            }
        }
        let e = decode::<Event>(
            &format!(r#"{{"type":"RAW","event":{deep}}}"#),
            ReadMode::Forgiving,
        )
        .unwrap_err();
        assert_eq!(e.pointer(), Some("/event"));
        // The stream decoder, including its 0.x path that reads the document as a map.
        for doc in [
            format!(r#"{{"type":"RAW","event":{deep}}}"#),
            format!(r#"{{"type":"THINKING_START","x":{deep}}}"#),
        ] {
            assert!(EventDecoder::default().decode(&doc).is_err());
        }
        // An unknown member has the same limit, wherever the tag is: the depth limit is a
        // property of the document, not of the order of its keys.
        for doc in [
            format!(r#"{{"type":"RAW","event":1,"x":{deep}}}"#),
            format!(r#"{{"x":{deep},"event":1,"type":"RAW"}}"#),
        ] {
            let e = decode::<Event>(&doc, ReadMode::Forgiving).unwrap_err();
            assert!(e.kind() == ErrorKind::TooDeep, "{e:?}");
            assert_eq!(e.pointer(), Some("/x"));
        }
        // SSE carries it as text; the reader does not parse JSON.
        let mut r = SseReader::new();
        r.feed(format!("data: {deep}\n\n").as_bytes()).unwrap();
        assert_eq!(r.next_message().map(|m| m.len()), Some(200_000));
    });
}

#[test]
fn the_depth_limit_is_the_same_for_text_and_values() {
    on_default_stack(|| {
        // The root object is one level: 126 more fit, 127 more do not.
        let ok = format!(r#"{{"type":"RAW","event":{}}}"#, nested(126));
        let too_deep = format!(r#"{{"type":"RAW","event":{}}}"#, nested(127));
        assert!(from_str::<Event>(&ok).is_ok());
        assert!(from_str::<Event>(&too_deep).is_err());
        // decode_value applies the same limit to a value built in memory.
        let mut v = Value::Null;
        for _ in 0..126 {
            v = Value::Array(vec![v]);
        }
        let event = json!({"type":"RAW","event":v});
        assert!(decode_value::<Event>(&event, ReadMode::Exact).is_ok());
        let event = json!({"type":"RAW","event":[v]});
        let e = decode_value::<Event>(&event, ReadMode::Exact).unwrap_err();
        assert!(e.kind() == ErrorKind::TooDeep, "{e:?}");
        assert_eq!(e.pointer().map(|p| p.len()), Some("/event".len() + 2 * 126));
        // A value far deeper than any parser would build is refused without recursing
        // (and taken apart without recursing, as its own drop would overflow).
        let mut deep = Value::Null;
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep]);
        }
        let doc = json!({"type":"RAW","event":null});
        let mut doc = doc;
        doc["event"] = deep;
        assert!(decode_value::<Event>(&doc, ReadMode::Forgiving).is_err());
        let mut cur = doc["event"].take();
        while let Value::Array(mut items) = cur {
            cur = items.pop().unwrap_or(Value::Null);
        }
    });
}

#[test]
fn a_50_mb_string_is_read_whole_and_capped_on_sse() {
    let big = "x".repeat(50 * 1024 * 1024);
    let doc = format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{big}"}}"#);
    let e = from_str::<Event>(&doc).unwrap();
    let Event::TextMessageContent(e) = e else {
        panic!("wrong variant")
    };
    assert_eq!(e.delta.len(), big.len());
    // As one SSE message it is over the 10 MiB cap, reported with the offset.
    let mut r = SseReader::new();
    let err = r.feed(format!("data: {doc}").as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "SSE stream error at byte 0: SSE message exceeds the 10485760 byte cap without ending"
    );
    // The reader then refuses more input rather than resynchronising mid-message.
    assert!(r.feed(b"\n\n").is_err());
}

#[test]
fn integers_beyond_2_53_and_2_64() {
    let at = |n: &str| format!(r#"{{"type":"RUN_ERROR","message":"m","timestamp":{n}}}"#);
    // Typed fields: a clear error naming the field and the bound.
    assert_eq!(
        err_text::<Event>(&at("9007199254740992"), ReadMode::Forgiving),
        "invalid AG-UI document at `/timestamp`: invalid value: integer `9007199254740992`, expected an integer between -9007199254740991 and 9007199254740991 (line 1, column 62)"
    );
    assert_eq!(
        err_text::<Event>(&at("18446744073709551616"), ReadMode::Forgiving),
        "invalid AG-UI document at `/timestamp`: invalid value: floating point `1.8446744073709552e+19`, expected an integer between -9007199254740991 and 9007199254740991 (line 1, column 66)"
    );
    let usage = r#"{"type":"RUN_ERROR","message":"m","usage":[{"inputTokens":-1}]}"#;
    assert!(err_text::<Event>(usage, ReadMode::Forgiving).contains("`/usage/0/inputTokens`: invalid value: integer `-1`, expected an integer between 0 and 9007199254740991"));
    // The writer refuses what it could not read back.
    let e = to_string(&RunErrorEvent::new("m").with_timestamp(MAX_SAFE_INTEGER + 1)).unwrap_err();
    assert!(e.to_string().contains("outside ±(2^53 − 1)"), "{e}");
    let e = to_string(&TokenUsage::new().with_input_tokens(u64::MAX)).unwrap_err();
    assert!(e.to_string().contains("above 2^53 − 1"), "{e}");

    // Payloads: every integer of i64 or u64 round-trips exactly, beyond 2^53 included.
    for n in [
        "9007199254740993",
        "-9223372036854775808",
        "18446744073709551615",
    ] {
        let doc = format!(r#"{{"type":"CUSTOM","name":"n","value":{n}}}"#);
        let v = from_str::<Event>(&doc).unwrap();
        assert_eq!(to_string(&v).unwrap(), doc);
    }
    // Beyond u64 (or below i64) serde_json reads the nearest double, as JavaScript does:
    // the digits past the 17th are lost. Documented, not refused (every 1.0 peer accepts it).
    let doc = r#"{"type":"CUSTOM","name":"n","value":18446744073709551617}"#;
    let v = from_str::<Event>(doc).unwrap();
    assert_eq!(
        to_string(&v).unwrap(),
        r#"{"type":"CUSTOM","name":"n","value":1.8446744073709552e+19}"#
    );
    // Beyond the largest double it is an error.
    let doc = r#"{"type":"CUSTOM","name":"n","value":1e400}"#;
    assert_eq!(
        err_text::<Event>(doc, ReadMode::Forgiving),
        "malformed JSON at `/value` (line 1, column 41): number out of range (beyond the largest finite 64-bit float)"
    );
}

#[test]
fn floats_where_integers_go() {
    let at = |n: &str| format!(r#"{{"type":"RUN_ERROR","message":"m","timestamp":{n}}}"#);
    // An integral float is the integer (both 1.0 SDKs agree); it is written back as one.
    for n in ["1000.0", "1e3", "-0.0"] {
        let v = from_str::<Event>(&at(n)).unwrap();
        assert_eq!(v.timestamp(), Some(if n == "-0.0" { 0 } else { 1000 }));
        assert!(!to_string(&v).unwrap().contains('.'));
    }
    assert!(
        err_text::<Event>(&at("1.5"), ReadMode::Exact)
            .contains("invalid value: floating point `1.5`, expected an integer between")
    );
    assert!(
        err_text::<Event>(&at("9007199254740992.0"), ReadMode::Exact)
            .contains("floating point `9007199254740992")
    );
}

#[test]
fn floats_in_payloads_survive_bit_for_bit() {
    // serde_json's default float parser can land one ulp off; the crate enables its
    // correctly-rounded parser, so a written double reads back identical.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let f = f64::from_bits(x);
        if !f.is_finite() {
            continue;
        }
        let e = Event::from(CustomEvent::new("n", json!(f)));
        let back = from_str::<Event>(&to_string(&e).unwrap()).unwrap();
        let Event::Custom(c) = back else { panic!() };
        assert_eq!(
            c.value.as_f64().map(f64::to_bits),
            Some(f.to_bits()),
            "{f:e}"
        );
    }
}

#[test]
fn lone_surrogates_are_syntax_errors_with_a_pointer() {
    let cases = [
        (
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud800"}"#,
            "/delta",
            "unexpected end of hex escape",
        ),
        (
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\udc00"}"#,
            "/delta",
            "lone leading surrogate in hex escape",
        ),
        (
            r#"{"type":"CUSTOM","name":"n","value":{"k":"\ud83dx"}}"#,
            "/value",
            "unexpected end of hex escape",
        ),
        (
            r#"{"value":"\ud800","type":"CUSTOM","name":"n"}"#,
            "/value",
            "unexpected end of hex escape",
        ),
    ];
    for (doc, pointer, what) in cases {
        let e = from_str::<Event>(doc).unwrap_err();
        assert!(e.kind() == ErrorKind::Syntax, "{e:?}");
        assert_eq!(e.pointer(), Some(pointer), "{doc}");
        assert!(e.to_string().contains(what), "{e}");
    }
    // A valid pair is one character.
    let e = from_str::<Event>(
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\ude00"}"#,
    )
    .unwrap();
    let Event::TextMessageContent(e) = e else {
        panic!()
    };
    assert_eq!(e.delta, "😀");
}

#[test]
fn invalid_utf8_in_sse_and_in_json_bytes() {
    let mut r = SseReader::new();
    r.feed(b"data: {\"ok\":1}\n\n").unwrap();
    let e = r.feed(b"data: \xff\xfe\n\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "SSE stream error at byte 16: invalid UTF-8 in a data line (at byte 6 of the line)"
    );
    assert_eq!(r.next_message().as_deref(), Some("{\"ok\":1}"));
    // A character split across chunks is not invalid.
    let mut r = SseReader::new();
    for b in "data: é😀\n\n".as_bytes() {
        r.feed(&[*b]).unwrap();
    }
    assert_eq!(r.next_message().as_deref(), Some("é😀"));
    // Invalid UTF-8 in a field the reader ignores is ignored with it.
    let mut r = SseReader::new();
    r.feed(b"event: \xff\n: \xfe\ndata: x\n\n").unwrap();
    assert_eq!(r.next_message().as_deref(), Some("x"));
    // JSON bytes: a syntax error at the member.
    let e = from_slice::<Event>(b"{\"type\":\"RUN_ERROR\",\"message\":\"\xff\"}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "malformed JSON at `/message` (line 1, column 32): invalid unicode code point"
    );
}

#[test]
fn duplicate_keys() {
    // A declared member twice: refused, in every mode, wherever the tag is.
    for doc in [
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","delta":"y"}"#,
        r#"{"messageId":"m","delta":"x","delta":"y","type":"TEXT_MESSAGE_CONTENT"}"#,
    ] {
        let e = from_str::<Event>(doc).unwrap_err();
        assert_eq!(e.pointer(), Some("/delta"));
        assert!(
            e.to_string()
                .contains("duplicate field; each key may appear once")
        );
    }
    // The tag twice, equal or not: refused too.
    for doc in [
        r#"{"type":"TEXT_MESSAGE_END","type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        r#"{"type":"TEXT_MESSAGE_END","type":"RUN_ERROR","messageId":"m"}"#,
        r#"{"messageId":"m","type":"TEXT_MESSAGE_END","type":"RUN_ERROR"}"#,
    ] {
        let e = from_str::<Event>(doc).unwrap_err();
        assert_eq!(e.pointer(), Some("/type"), "{doc}");
        assert!(e.to_string().contains("duplicate field"), "{e}");
    }
    let e =
        from_str::<Message>(r#"{"role":"user","role":"user","id":"1","content":"x"}"#).unwrap_err();
    assert_eq!(e.pointer(), Some("/role"));
    // An unknown member twice: skipped and reported each time (exact mode refuses it).
    let d = decode::<Event>(
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m","z":1,"z":2}"#,
        ReadMode::Forgiving,
    )
    .unwrap();
    assert_eq!(
        d.warnings,
        [
            Warning::new(WarningKind::UnknownField, "/z"),
            Warning::new(WarningKind::UnknownField, "/z")
        ]
    );
    // Inside opaque JSON (payloads, metadata, state, content maps) keys are data: the last
    // one wins, as with JSON.parse and Python's json.
    let d = decode::<Event>(
        r#"{"type":"CUSTOM","name":"n","value":{"a":1,"a":2},"metadata":{"k":null,"k":3}}"#,
        ReadMode::Exact,
    )
    .unwrap();
    assert_eq!(
        to_string(&d.value).unwrap(),
        r#"{"type":"CUSTOM","name":"n","value":{"a":2},"metadata":{"k":3}}"#
    );
}

#[test]
fn a_type_that_is_not_a_string() {
    for (doc, found) in [
        (r#"{"type":5,"messageId":"m"}"#, "integer `5`"),
        (r#"{"type":null}"#, "null"),
        (r#"{"type":{"x":1}}"#, "map"),
        (
            r#"{"messageId":"m","type":["TEXT_MESSAGE_END"]}"#,
            "sequence",
        ),
        (r#"{"type":true}"#, "boolean `true`"),
    ] {
        let e = from_str::<Event>(doc).unwrap_err();
        assert_eq!(e.pointer(), Some("/type"), "{doc}");
        assert!(
            e.to_string()
                .contains(&format!("invalid type: {found}, expected a string")),
            "{e}"
        );
    }
    let e = from_str::<Event>(r#"{"messageId":"m"}"#).unwrap_err();
    assert!(e.to_string().starts_with("invalid AG-UI document at the document root: missing required field `type` (the event type tag, one of \"TEXT_MESSAGE_START\""), "{e}");
}

#[test]
fn proto_and_other_odd_keys() {
    // Unknown members named like JavaScript prototype keys are unknown members like any
    // other: reported with an escaped pointer and dropped (nothing is merged anywhere).
    let doc = r#"{"type":"CUSTOM","name":"n","value":{"__proto__":{"x":1}},"__proto__":{"polluted":true},"constructor":{"prototype":1},"a/b~c":1,"":2}"#;
    let d = decode::<Event>(doc, ReadMode::Forgiving).unwrap();
    let pointers: Vec<&str> = d.warnings.iter().map(|w| w.pointer.as_str()).collect();
    assert_eq!(pointers, ["/__proto__", "/constructor", "/a~1b~0c", "/"]);
    assert_eq!(
        to_string(&d.value).unwrap(),
        r#"{"type":"CUSTOM","name":"n","value":{"__proto__":{"x":1}}}"#
    );
    assert_eq!(
        decode::<Event>(doc, ReadMode::Exact).unwrap_err().pointer(),
        Some("/__proto__")
    );
    // Inside payloads and metadata they are plain keys, kept as they are.
    let doc = r#"{"type":"CUSTOM","name":"n","value":1,"metadata":{"__proto__":1,"":2,"a/b~c":3,"ag-ui":{"constructor":null}}}"#;
    let d = decode::<Event>(doc, ReadMode::Exact).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&to_string(&d.value).unwrap()).unwrap(),
        serde_json::from_str::<Value>(doc).unwrap()
    );
    // A key with a control character is escaped in the pointer as JSON escapes it.
    let d = decode::<Event>(
        "{\"type\":\"RUN_ERROR\",\"message\":\"m\",\"\\u0000\":1}",
        ReadMode::Forgiving,
    )
    .unwrap();
    assert_eq!(
        d.warnings,
        [Warning::new(WarningKind::UnknownField, "/\u{0}")]
    );
}

#[test]
fn sse_frames_without_end_over_the_cap_and_with_cr_only() {
    // No blank line at the end: held until `finish`, which delivers it.
    let mut r = SseReader::new();
    r.feed(b"data: {\"a\":1}").unwrap();
    assert_eq!(r.next_message(), None);
    assert_eq!(r.finish().unwrap().as_deref(), Some("{\"a\":1}"));
    // A data line without its line end at the end of the stream counts.
    let mut r = SseReader::new();
    r.feed(b"data: x\r").unwrap();
    assert_eq!(r.next_message(), None, "no blank line yet");
    assert_eq!(r.finish().unwrap().as_deref(), Some("x"));
    // A CR ending a chunk ends its line at once; an LF opening the next chunk completes
    // that CRLF instead of being read as a blank line.
    let mut r = SseReader::new();
    r.feed(b"data: x\r\r").unwrap();
    assert_eq!(
        r.next_message().as_deref(),
        Some("x"),
        "CR-only messages are not held back"
    );
    r.feed(b"data: y\r").unwrap();
    r.feed(b"\ndata: z\r").unwrap();
    r.feed(b"\n\r\n").unwrap();
    assert_eq!(r.next_message().as_deref(), Some("y\nz"));
    assert_eq!(r.next_message(), None);
    // Over the cap: an error with the offset of the message, before it is all buffered.
    let mut r = SseReader::with_max_frame_bytes(16);
    r.feed(b"data: ok\n\n").unwrap();
    let e = r.feed(b"data: 0123456789\ndata: 0123456789\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "SSE stream error at byte 10: SSE message exceeds the 16 byte cap without ending"
    );
    assert_eq!(r.next_message().as_deref(), Some("ok"));
    // A line without end that keeps growing hits the cap too.
    let mut r = SseReader::with_max_frame_bytes(1024);
    let e = (0..100).find_map(|_| r.feed(&[b'x'; 100]).err()).unwrap();
    assert!(e.to_string().contains("exceeds the 1024 byte cap"), "{e}");
    // CR-only line ends.
    let mut r = SseReader::new();
    r.feed(b"data: a\rdata: b\r\rdata: c\r\r").unwrap();
    assert_eq!(r.next_message().as_deref(), Some("a\nb"));
    assert_eq!(r.next_message().as_deref(), Some("c"));
}

#[test]
fn many_short_lines_in_one_chunk_take_linear_time() {
    // 4 MiB of blank lines and comments in a single chunk: each line is cut by offset, not
    // by shifting the rest of the buffer, so this is fast even in a debug build.
    let mut stream = Vec::new();
    while stream.len() < 4 << 20 {
        stream.extend_from_slice(b":\n\r\n\r");
    }
    stream.extend_from_slice(b"data: end\n\n");
    let t = std::time::Instant::now();
    let mut r = SseReader::new();
    r.feed(&stream).unwrap();
    assert_eq!(r.next_message().as_deref(), Some("end"));
    assert!(
        t.elapsed() < std::time::Duration::from_secs(20),
        "took {:?}",
        t.elapsed()
    );
}

/// A value of `depth` nested arrays around `null`, built without recursion.
fn deep_value(depth: usize) -> Value {
    let mut v = Value::Null;
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

/// Takes a deep value apart without recursion (its own drop would overflow the stack).
fn dismantle(mut v: Value) {
    loop {
        v = match v {
            Value::Array(mut items) => match items.pop() {
                Some(inner) => inner,
                None => return,
            },
            Value::Object(mut m) => match m.keys().next().cloned() {
                Some(k) => m.remove(&k).unwrap_or(Value::Null),
                None => return,
            },
            _ => return,
        };
    }
}

#[test]
fn the_writer_refuses_what_the_reader_could_not_read_back() {
    on_default_stack(|| {
        // 30 000 levels would overflow a recursive writer; 10 000 would be written and then
        // refused by the reader. Both are refused by the writer, naming the limit.
        for depth in [30_000, 10_000, 128] {
            let event = Event::from(StateSnapshotEvent::new(deep_value(depth)));
            // The container one level too deep: the 128th, 126 arrays below `/snapshot`.
            let pointer = format!("/snapshot{}", "/0".repeat(126));
            for e in [
                to_sse_frame(&event).unwrap_err(),
                to_string(&event).unwrap_err(),
                to_vec(&event).unwrap_err(),
                write_sse_frame(Vec::new(), &event).unwrap_err(),
            ] {
                assert_eq!(e.kind(), ErrorKind::Encode, "{e:?}");
                assert_eq!(e.pointer(), Some(pointer.as_str()));
                assert_eq!(e.line_column(), None);
                assert!(
                    e.to_string()
                        .starts_with("cannot encode AG-UI JSON at `/snapshot/0/0/"),
                    "{e}"
                );
                assert!(
                    e.to_string().ends_with(": arrays and objects nested deeper than 127 levels (the limit every AG-UI reader of this crate applies)"),
                    "{e}"
                );
            }
            let Event::StateSnapshot(s) = event else {
                unreachable!()
            };
            dismantle(s.snapshot);
        }
        // At the limit, whatever is written reads back; one level more is refused by both.
        // The event's own object is the first level, as for the reader.
        for inner in [125, 126, 127] {
            let event = Event::from(StateSnapshotEvent::new(deep_value(inner)));
            let written = to_string(&event);
            assert_eq!(to_vec(&event).is_ok(), inner <= 126, "{inner}");
            let doc = format!(
                r#"{{"type":"STATE_SNAPSHOT","snapshot":{}}}"#,
                nested(inner).replace("[]", "[null]")
            );
            assert_eq!(written.is_ok(), inner <= 126, "{inner}");
            assert_eq!(from_str::<Event>(&doc).is_ok(), inner <= 126, "{inner}");
            if let Ok(text) = written {
                assert_eq!(from_str::<Event>(&text).unwrap(), event);
            }
        }
        // serde_json's own writer, given a wire type, has no such limit (documented).
        let event = Event::from(StateSnapshotEvent::new(deep_value(200)));
        assert!(serde_json::to_string(&event).is_ok());
        assert!(to_string(&event).is_err());
        // Deeper in the document, the same count: a tool's parameters sit three levels down.
        for inner in [124, 125] {
            let input = RunAgentInput::new("t", "r", Vec::<Message>::new())
                .with_tools(vec![Tool::new("n", "d").with_parameters(deep_value(inner))]);
            let written = to_string(&input);
            assert_eq!(written.is_ok(), inner <= 124, "{inner}");
            if let Ok(text) = written {
                assert_eq!(from_str::<RunAgentInput>(&text).unwrap(), input);
            }
        }
    });
}

/// What `EventDecoder` (forgiving) and `EventPipeline` make of `doc`: `Ok(true)` for an
/// event delivered, `Ok(false)` for one dropped with a warning, or the error text.
fn stream_outcome(doc: &str) -> Result<bool, String> {
    let decoded = EventDecoder::default()
        .decode(doc)
        .map_err(|e| e.to_string())?;
    let mut pipeline = EventPipeline::new();
    pipeline
        .push_text(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#)
        .unwrap();
    let piped = pipeline.push_text(doc).map_err(|e| e.to_string())?;
    assert_eq!(decoded.value.is_some(), !piped.value.is_empty(), "{doc}");
    Ok(decoded.value.is_some())
}

#[test]
fn malformed_json_after_an_unknown_type_fails_the_stream() {
    on_default_stack(|| {
        let deep = nested(1_000_000);
        let cases: Vec<(String, &str, &str)> = vec![
            (
                r#"{"type":"X"} garbage"#.to_owned(),
                "",
                "malformed JSON at the document root (line 1, column 14): trailing characters",
            ),
            (
                r#"{"type":"X","a":"#.to_owned(),
                "/a",
                "malformed JSON at `/a` (line 1, column 16): EOF while parsing a value",
            ),
            (
                r#"{"a":1,"type":"X","b":[1,}"#.to_owned(),
                "/b",
                "malformed JSON at `/b` (line 1, column 26): expected value",
            ),
            (
                format!(r#"{{"type":"X","a":{deep}}}"#),
                "/a",
                "arrays and objects nest at most 127 levels deep",
            ),
            (
                r#"{"type":"X","a":"\ud800"}"#.to_owned(),
                "/a",
                "unexpected end of hex escape",
            ),
        ];
        for (doc, pointer, message) in &cases {
            let e = from_str::<Event>(doc).unwrap_err();
            // Too deep is its own kind; everything else here is a syntax error.
            if message.contains("127 levels") {
                assert!(e.kind() == ErrorKind::TooDeep, "{e:?}");
            } else {
                assert!(e.kind() == ErrorKind::Syntax, "{e:?}");
            }
            assert_eq!(e.pointer(), Some(*pointer), "{e}");
            assert!(e.to_string().contains(message), "{e}");
            let streamed = stream_outcome(doc).unwrap_err();
            assert!(streamed.contains(message), "{streamed}");
        }
        // Invalid UTF-8 after the tag, in bytes.
        let e = from_slice::<Event>(b"{\"type\":\"X\",\"a\":\"\xff\"}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "malformed JSON at `/a` (line 1, column 18): invalid unicode code point"
        );
    });
}

#[test]
fn the_type_is_a_non_empty_string_given_once() {
    for (doc, message) in [
        (
            r#"{"type":""}"#,
            "invalid AG-UI document at `/type`: invalid value: string \"\", expected a non-empty event type (line 1, column 11)",
        ),
        (
            r#"{"type":"X","type":"RUN_ERROR","message":"m"}"#,
            "invalid AG-UI document at `/type`: duplicate field; each key may appear once (line 1, column 18)",
        ),
        (
            r#"{"a":1,"type":"X","type":"X"}"#,
            "invalid AG-UI document at `/type`: duplicate field; each key may appear once (line 1, column 24)",
        ),
        // The 0.x path too: a second `type` is refused, not translated.
        (
            r#"{"type":"THINKING_START","type":"RUN_ERROR","message":"m"}"#,
            "invalid AG-UI document at `/type`: duplicate field; each key may appear once (line 1, column 31)",
        ),
    ] {
        let e = from_str::<Event>(doc).unwrap_err();
        assert!(e.kind() == ErrorKind::Invalid, "{e:?}");
        assert_eq!(e.to_string(), message);
        assert_eq!(
            EventDecoder::default().decode(doc).unwrap_err().to_string(),
            message
        );
        let mut pipeline = EventPipeline::new();
        pipeline
            .push_text(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#)
            .unwrap();
        assert_eq!(
            pipeline.push_text(doc).unwrap_err().to_string(),
            format!("event 1 rejected by the reader: {message}")
        );
    }
    // A well-formed unknown event is still dropped with a warning.
    for doc in [
        r#"{"type":"FUTURE_EVENT","a":{"b":[1,"\u00e9",null]}}"#,
        r#"{"a":[{}],"type":"FUTURE_EVENT"}"#,
    ] {
        assert_eq!(
            from_str::<Event>(doc).map_err(|e| e.kind()).err(),
            Some(ErrorKind::UnknownEventType)
        );
        assert_eq!(stream_outcome(doc), Ok(false), "{doc}");
    }
}

#[test]
fn unknown_members_are_well_formed_json_too() {
    on_default_stack(|| {
        // Invalid UTF-8 and lone surrogates inside a member the type does not declare are
        // syntax errors, and excessive depth is too deep, as anywhere else (the member is
        // parsed, not skipped blindly).
        let deep = nested(100_000);
        let cases: Vec<(Vec<u8>, &str, &str)> = vec![
            (
                b"{\"type\":\"RUN_ERROR\",\"message\":\"m\",\"x\":\"\xff\"}".to_vec(),
                "/x",
                "invalid unicode code point",
            ),
            (
                br#"{"type":"RUN_ERROR","message":"m","x":["\ud800"]}"#.to_vec(),
                "/x",
                "unexpected end of hex escape",
            ),
            (
                br#"{"type":"RUN_ERROR","message":"m","x":{"\udc00":1}}"#.to_vec(),
                "/x",
                "lone leading surrogate in hex escape",
            ),
            (
                format!(r#"{{"type":"RUN_ERROR","message":"m","x":{deep}}}"#).into_bytes(),
                "/x",
                "nest at most 127 levels deep",
            ),
            (
                format!(
                    r#"{{"type":"STATE_DELTA","delta":[{{"op":"remove","path":"/a","x":{deep}}}]}}"#
                )
                .into_bytes(),
                "/delta/0/x",
                "nest at most 127 levels deep",
            ),
        ];
        for (doc, pointer, message) in &cases {
            for mode in [ReadMode::Forgiving, ReadMode::Exact] {
                let e = decode_slice::<Event>(doc, mode).unwrap_err();
                if message.contains("127 levels") {
                    assert!(e.kind() == ErrorKind::TooDeep, "{e:?}");
                } else {
                    assert!(e.kind() == ErrorKind::Syntax, "{e:?}");
                }
                assert_eq!(e.pointer(), Some(*pointer), "{e}");
                assert!(e.to_string().contains(message), "{e}");
            }
        }
    });
}

/// Feeds `chunks` to a reader with message cap `cap` and finishes it: the messages
/// delivered (also those delivered before an error) and the error, if any.
fn read_sse(cap: usize, chunks: &[&[u8]]) -> (Vec<String>, Option<String>) {
    let mut r = SseReader::with_max_frame_bytes(cap);
    let mut out = Vec::new();
    let mut error = None;
    for c in chunks {
        if let Err(e) = r.feed(c) {
            error = Some(e.to_string());
            break;
        }
        while let Some(m) = r.next_message() {
            out.push(m);
        }
    }
    if error.is_none() {
        match r.finish() {
            Ok(m) => out.extend(m),
            Err(e) => error = Some(e.to_string()),
        }
    }
    while let Some(m) = r.next_message() {
        out.push(m);
    }
    (out, error)
}

/// [`read_sse`] for the whole stream, for every split in two, and byte by byte; asserts
/// they agree and returns the result.
fn read_sse_every_split(cap: usize, stream: &[u8]) -> (Vec<String>, Option<String>) {
    let whole = read_sse(cap, &[stream]);
    for at in 0..=stream.len() {
        let (a, b) = stream.split_at(at);
        assert_eq!(read_sse(cap, &[a, b]), whole, "split at {at}");
    }
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(read_sse(cap, &bytes), whole, "byte by byte");
    whole
}

#[test]
fn a_leading_bom_is_stripped_whole_or_split() {
    let cap = ag_ui_core::sse::DEFAULT_MAX_FRAME_BYTES;
    let ok = |v: &[&str]| (v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(), None);
    assert_eq!(
        read_sse_every_split(cap, b"\xEF\xBB\xBFdata: {\"a\":1}\n\ndata: 2\n\n"),
        ok(&["{\"a\":1}", "2"])
    );
    // One BOM only: a second one belongs to the first line, whose field is then not `data`.
    assert_eq!(
        read_sse_every_split(cap, b"\xEF\xBB\xBF\xEF\xBB\xBFdata: 1\n\ndata: 2\n\n"),
        ok(&["2"])
    );
    // Only at the start of the stream.
    assert_eq!(
        read_sse_every_split(cap, b"data: 1\n\n\xEF\xBB\xBFdata: 2\n\n"),
        ok(&["1"])
    );
    // A BOM's first bytes followed by something else are kept as they are.
    assert_eq!(
        read_sse_every_split(cap, b"\xEF\xBBdata: 1\n\ndata: 2\n\n"),
        ok(&["2"])
    );
    assert_eq!(read_sse_every_split(cap, b"\xEF\xBB"), ok(&[]));
    // Offsets count the BOM's bytes.
    assert_eq!(
        read_sse_every_split(cap, b"\xEF\xBB\xBFdata: \xff\n\n")
            .1
            .as_deref(),
        Some("SSE stream error at byte 3: invalid UTF-8 in a data line (at byte 6 of the line)")
    );
}

#[test]
fn the_sse_cap_means_the_same_for_every_split() {
    // A message's size is its lines with their line ends, up to the blank line that ends
    // it. At the cap it is accepted, one byte more is refused, whatever the chunks.
    let cap = 16;
    for (stream, expected) in [
        (&b"data: 012345678\n\n"[..], (vec!["012345678".to_owned()], None)),
        (&b"data: 01234567\r\n\r\n"[..], (vec!["01234567".to_owned()], None)),
        (&b": 3\ndata: 0123\r\n"[..], (vec!["0123".to_owned()], None)),
        (
            &b"data: 0123456789\n\n"[..],
            (
                vec![],
                Some("SSE stream error at byte 0: SSE message exceeds the 16 byte cap without ending".to_owned()),
            ),
        ),
        (
            &b"data: 012345678\r\n\r\n"[..],
            (
                vec![],
                Some("SSE stream error at byte 0: SSE message exceeds the 16 byte cap without ending".to_owned()),
            ),
        ),
        (
            &b"data: a\n\n: comment\n: comment\ndata: b\n\n"[..],
            (
                vec!["a".to_owned()],
                Some("SSE stream error at byte 9: SSE message exceeds the 16 byte cap without ending".to_owned()),
            ),
        ),
        (
            &b"data: a\r\rdata: 0123456789ab"[..],
            (
                vec!["a".to_owned()],
                Some("SSE stream error at byte 9: SSE message exceeds the 16 byte cap without ending".to_owned()),
            ),
        ),
    ] {
        assert_eq!(
            read_sse_every_split(cap, stream),
            expected,
            "{}",
            String::from_utf8_lossy(stream)
        );
    }
    // 20 MB in one message: refused fed whole and fed in 64 KiB chunks alike.
    let stream = format!("data: {}\n\n", "x".repeat(20 << 20)).into_bytes();
    let refused = Some(
        "SSE stream error at byte 0: SSE message exceeds the 10485760 byte cap without ending"
            .to_owned(),
    );
    assert_eq!(
        read_sse(ag_ui_core::sse::DEFAULT_MAX_FRAME_BYTES, &[&stream]),
        (vec![], refused.clone())
    );
    let chunks: Vec<&[u8]> = stream.chunks(64 << 10).collect();
    assert_eq!(
        read_sse(ag_ui_core::sse::DEFAULT_MAX_FRAME_BYTES, &chunks),
        (vec![], refused)
    );
}

#[test]
fn forty_thousand_open_chunk_lanes() {
    // Each of 40 000 subagents holds an open tool call built from chunks. The expander
    // finds lanes and ids through hash maps (its cost per event does not grow with the
    // number of open lanes; `cargo bench --bench chunk` measures it), and what it reports
    // stays bounded.
    const N: usize = 40_000;
    let mut x = ChunkExpander::new();
    let lane = |i: usize| SubagentRunId::from(format!("s{i}"));
    for i in 0..N {
        let out = x
            .push(
                ToolCallChunkEvent::new()
                    .with_tool_call_id(format!("c{i}"))
                    .with_tool_call_name("f")
                    .with_subagent_run_id(lane(i))
                    .into(),
            )
            .unwrap();
        assert_eq!(out.len(), 1);
    }
    // Events of other lanes pass by without touching them.
    for _ in 0..1_000 {
        assert_eq!(
            x.push(CustomEvent::new("n", json!(1)).into())
                .unwrap()
                .len(),
            1
        );
    }
    // An id continues its stream in its lane, wherever that is.
    let out = x
        .push(
            ToolCallChunkEvent::new()
                .with_tool_call_id("c777")
                .with_delta("{}")
                .into(),
        )
        .unwrap();
    assert_eq!(out[0].subagent_run_id(), Some(&lane(777)));
    // Untagged and id-less: ambiguous, and the message names five lanes and a count.
    let v = x
        .push(ToolCallChunkEvent::new().with_delta("x").into())
        .unwrap_err();
    assert_eq!(v.rule, Rule::C3);
    assert_eq!(v.ids, ["c0", "c1", "c2", "c3", "c4"]);
    assert_eq!(
        v.message,
        "TOOL_CALL_CHUNK carries neither toolCallId nor subagentRunId, and 40000 lanes have an open tool call ('c0', 'c1', 'c2', 'c3', 'c4' and 39995 more): tag the chunk with the subagent it belongs to"
    );
    // Closing all lanes but one (from the front, the back and the middle) leaves that
    // one as the only candidate.
    let mut ends = 0;
    for i in (0..N).filter(|i| *i != 20_000) {
        ends += x
            .push(SubagentFinishedEvent::new(lane(i)).into())
            .unwrap()
            .len()
            - 1;
    }
    assert_eq!(ends, N - 1);
    let out = x
        .push(ToolCallChunkEvent::new().with_delta("y").into())
        .unwrap();
    assert_eq!(out[0].subagent_run_id(), Some(&lane(20_000)));
    // The end of the stream closes what is left, in the order the lanes opened.
    for i in 0..10 {
        x.push(
            TextMessageChunkEvent::new()
                .with_message_id(format!("m{i}"))
                .with_subagent_run_id(lane(N - i))
                .into(),
        )
        .unwrap();
    }
    let closed: Vec<Option<String>> = x
        .finish()
        .iter()
        .map(|e| e.subagent_run_id().map(|s| s.as_str().to_owned()))
        .collect();
    let expected: Vec<String> = std::iter::once(20_000)
        .chain((0..10).map(|i| N - i))
        .map(|i| format!("s{i}"))
        .collect();
    assert_eq!(closed, expected.into_iter().map(Some).collect::<Vec<_>>());
    assert!(!x.has_pending());
}

#[test]
fn outputs_stay_bounded() {
    // L5 with 100 000 open tool calls: every id is in `ids`, the text names five.
    let mut events: Vec<Event> = vec![RunStartedEvent::new("t", "r").into()];
    for i in 0..100_000 {
        events.push(ToolCallStartEvent::new(format!("c{i}"), "f").into());
    }
    events.push(RunFinishedEvent::new("t", "r").into());
    let v = verify_events(&events).unwrap_err();
    assert_eq!(v.rule, Rule::L5);
    assert_eq!(v.ids.len(), 100_000);
    assert_eq!(
        v.message,
        "RUN_FINISHED while still open: tool calls 'c0', 'c1', 'c10', 'c100', 'c1000' and 99995 more; close them first (or end the run with RUN_ERROR)"
    );
    assert_eq!(
        v.to_string(),
        format!(
            "rule L5 broken at event 100001 ('c0', 'c1', 'c10', 'c100', 'c1000' and 99995 more): {}",
            v.message
        )
    );

    // A 1 MB name or id is shown by its start and its length, and kept whole as data.
    let huge = "X".repeat(1 << 20);
    let e = from_str::<Event>(&format!(r#"{{"type":"{huge}"}}"#)).unwrap_err();
    let Some(event_type) = e.event_type() else {
        panic!("{e:?}")
    };
    assert_eq!(event_type.len(), 1 << 20);
    assert_eq!(
        e.to_string(),
        format!(
            "unknown event type \"{}…\" (1048576 bytes) (not one of the {} AG-UI event types)",
            "X".repeat(64),
            EventType::ALL.len()
        )
    );
    let e = from_str::<Event>(&format!(
        r#"{{"type":"TEXT_MESSAGE_START","messageId":"m","role":"{huge}"}}"#
    ))
    .unwrap_err();
    assert!(e.to_string().len() < 400, "{}", e.to_string().len());
    assert!(e.to_string().contains("…\" (1048576 bytes)"), "{e}");
    let e =
        from_str::<Message>(&format!(r#"{{"id":"1","role":"{huge}","content":"x"}}"#)).unwrap_err();
    assert!(e.to_string().len() < 400, "{}", e.to_string().len());
    assert!(e.to_string().contains("…\" (1048576 bytes)"), "{e}");
    // A serde message quoting a huge value keeps its start and its end.
    let e = from_str::<Event>(&format!(
        r#"{{"type":"RUN_ERROR","message":"m","timestamp":"{huge}"}}"#
    ))
    .unwrap_err();
    let text = e.to_string();
    assert!(text.len() < 1200, "{}", text.len());
    assert!(text.starts_with("invalid AG-UI document at `/timestamp`: invalid type: string \"XXX"));
    assert!(text.contains("bytes left out"), "{text}");
    assert!(
        text.ends_with("expected an integer between -9007199254740991 and 9007199254740991 (line 1, column 1048624)"),
        "{text}"
    );
    // A pointer through a huge key, and a violation about a huge id.
    let e = decode::<Event>(
        &format!(r#"{{"type":"RUN_ERROR","message":"m","{huge}":1}}"#),
        ReadMode::Exact,
    )
    .unwrap_err();
    assert_eq!(e.pointer().map(str::len), Some(1 + (1 << 20)));
    assert!(e.to_string().len() < 300, "{}", e.to_string().len());
    let v = verify_events(&[
        Event::from(RunStartedEvent::new("t", "r")),
        TextMessageContentEvent::new(huge.as_str(), "x").into(),
    ])
    .unwrap_err();
    assert!(
        v.message.len() <= 1100 && v.to_string().len() < 1400,
        "{}",
        v.message.len()
    );

    // A million unknown members: a hundred warnings and a count of the rest.
    let mut doc = String::from(r#"{"type":"RUN_ERROR","message":"m""#);
    for i in 0..1_000_000 {
        doc.push_str(&format!(r#","f{i}":0"#));
    }
    doc.push('}');
    let d = decode::<Event>(&doc, ReadMode::Forgiving).unwrap();
    assert_eq!(d.warnings.len(), ag_ui_core::read::MAX_WARNINGS);
    assert_eq!(
        d.warnings[99],
        Warning::new(WarningKind::UnknownField, "/f99")
    );
    assert_eq!(d.omitted_warnings, 1_000_000 - 100);
    let d = EventDecoder::default().decode(&doc).unwrap();
    assert_eq!((d.warnings.len(), d.omitted_warnings), (100, 999_900));
    // A malformed member after an offence is reported first: the document is read whole.
    let e = decode::<Event>(
        r#"{"type":"RUN_ERROR","message":"m","x":1,"timestamp":"t"}"#,
        ReadMode::Exact,
    )
    .unwrap_err();
    assert_eq!(e.pointer(), Some("/timestamp"));
    // Exact mode keeps only the first offence.
    let e = decode::<Event>(&doc, ReadMode::Exact).unwrap_err();
    assert_eq!(
        e.to_string(),
        "not exact AG-UI 1.0 at `/f0`: unknown field (the 1.0 schema closes this object)"
    );
}

#[test]
fn a_surrogate_pair_split_across_two_deltas_is_refused() {
    // JSON text is Unicode (spec §8.3: UTF-8) and a string holds whole characters: a
    // UTF-16 pair split across two deltas is two lone surrogates, each refused with a
    // message that says so. (A JavaScript peer would join them; no Rust string can hold
    // half a character, and replacing it would lose data silently.)
    for (delta, what) in [
        (
            r"\ud83d",
            "unexpected end of hex escape (a lone UTF-16 surrogate",
        ),
        (
            r"\ude00",
            "lone leading surrogate in hex escape (a lone UTF-16 surrogate",
        ),
    ] {
        let doc = format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{delta}"}}"#);
        let e = from_str::<Event>(&doc).unwrap_err();
        assert!(e.kind() == ErrorKind::Syntax, "{e:?}");
        assert_eq!(e.pointer(), Some("/delta"));
        let text = e.to_string();
        assert!(text.contains(what), "{text}");
        assert!(
            text.ends_with(
                "a string holds whole characters, so a pair cannot be split across two strings)"
            ),
            "{text}"
        );
    }
}

#[test]
fn a_late_type_keeps_positions_at_the_bad_value() {
    let at = |doc: &str, needle: &str| -> (usize, usize) {
        // Line and column of the last byte of the first `needle` in `doc`.
        let end = doc.find(needle).unwrap() + needle.len() - 1;
        let line = 1 + doc[..end].matches('\n').count();
        let col = end - doc[..end].rfind('\n').map_or(0, |i| i + 1) + 1;
        (line, col)
    };
    let doc = r#"{"messageId":5,"type":"TEXT_MESSAGE_START"}"#;
    assert_eq!(
        from_str::<Event>(doc).unwrap_err().to_string(),
        "invalid AG-UI document at `/messageId`: invalid type: integer `5`, expected a string (line 1, column 14)"
    );
    let doc = "{\n  \"outcome\": {\"type\": \"failed\"},\n  \"threadId\": \"t\", \"runId\": \"r\",\n  \"type\": \"RUN_FINISHED\"\n}";
    let (line, column) = at(doc, "\"failed\"");
    // (Exact mode: the forgiving reader removes an unknown outcome, spec §2.3.)
    let e = decode::<Event>(doc, ReadMode::Exact).unwrap_err();
    assert_eq!(e.pointer(), Some("/outcome/type"));
    assert!(
        e.to_string()
            .ends_with(&format!("(line {line}, column {column})")),
        "{e}"
    );
    assert_eq!(line, 2);
    // A key repeated before the tag: the second one.
    let doc = r#"{"delta":"x","delta":"y","messageId":"m","type":"TEXT_MESSAGE_CONTENT"}"#;
    let e = from_str::<Event>(doc).unwrap_err();
    assert_eq!(e.pointer(), Some("/delta"));
    let (line, column) = at(doc, r#""y""#);
    assert!(
        e.to_string()
            .ends_with(&format!("(line {line}, column {column})")),
        "{e}"
    );
    // Members after the tag keep the parser's own position.
    let doc = r#"{"threadId":"t","type":"RUN_STARTED","runId":5}"#;
    assert!(
        from_str::<Event>(doc)
            .unwrap_err()
            .to_string()
            .ends_with("(line 1, column 46)")
    );
}

#[test]
fn a_top_level_array_keeps_the_index_in_pointers() {
    let doc = r#"[{"type":"RUN_ERROR","message":"m"},{"type":"RUN_ERROR","message":5}]"#;
    let e = from_str::<Vec<Event>>(doc).unwrap_err();
    assert_eq!(e.pointer(), Some("/1/message"));
    let value: Value = serde_json::from_str(doc).unwrap();
    let e = decode_value::<Vec<Event>>(&value, ReadMode::Forgiving).unwrap_err();
    assert_eq!(e.pointer(), Some("/1/message"));
    let e = from_slice::<Vec<Event>>(doc.as_bytes()).unwrap_err();
    assert_eq!(e.pointer(), Some("/1/message"));
    // Warnings too.
    let d = decode::<Vec<Event>>(
        r#"[{"type":"RUN_ERROR","message":"m"},{"type":"RUN_ERROR","message":"m","x":1}]"#,
        ReadMode::Forgiving,
    )
    .unwrap();
    assert_eq!(
        d.warnings,
        [Warning::new(WarningKind::UnknownField, "/1/x")]
    );
    // An unknown event type inside an array is an invalid member there in exact mode; the
    // forgiving reader removes it from the list with a warning (spec §2.3).
    let list = r#"[{"type":"RUN_ERROR","message":"m"},{"type":"X"}]"#;
    let e = decode::<Vec<Event>>(list, ReadMode::Exact).unwrap_err();
    assert!(e.kind() == ErrorKind::Invalid, "{e:?}");
    assert_eq!(e.pointer(), Some("/1/type"));
    let d = decode::<Vec<Event>>(list, ReadMode::Forgiving).unwrap();
    assert_eq!(d.value.len(), 1);
    assert_eq!(
        d.warnings
            .iter()
            .map(|w| (w.kind, w.pointer.as_str()))
            .collect::<Vec<_>>(),
        [(WarningKind::UnknownMember, "/1/type")]
    );
    let e = from_str::<Vec<Message>>(r#"[{"id":"1","role":"user","content":5}]"#).unwrap_err();
    assert_eq!(e.pointer(), Some("/0/content"));
}

#[test]
fn duplicate_keys_are_refused_when_an_unknown_member_is_removed() {
    // The forgiving reader removes unknown union members and decodes again; a declared
    // member given twice elsewhere in the document is still refused, with the error the
    // document without the unknown member gets (kind and pointer).
    for (doc, clean, pointer) in [
        (
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"x"},"threadId":"t2"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","threadId":"t2"}"#,
            "/threadId",
        ),
        (
            r#"{"threadId":"t","outcome":{"type":"x"},"runId":"r","threadId":"t2","type":"RUN_FINISHED"}"#,
            r#"{"threadId":"t","runId":"r","threadId":"t2","type":"RUN_FINISHED"}"#,
            "/threadId",
        ),
        // The removed member's own key given twice.
        (
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"x"},"outcome":{"type":"success"}}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"},"outcome":{"type":"success"}}"#,
            "/outcome",
        ),
        (
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"function","content":"x"},{"id":"2","role":"user","content":"a","content":"b"}]}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":"x"},{"id":"2","role":"user","content":"a","content":"b"}]}"#,
            "/messages/1/content",
        ),
        (
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"function","content":"x"}],"messages":[]}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[],"messages":[]}"#,
            "/messages",
        ),
    ] {
        let expected = from_str::<Event>(clean).unwrap_err();
        assert_eq!(expected.pointer(), Some(pointer), "{clean}");
        for e in [
            from_str::<Event>(doc).unwrap_err(),
            from_slice::<Event>(doc.as_bytes()).unwrap_err(),
            decode::<Event>(doc, ReadMode::Forgiving).unwrap_err(),
            EventDecoder::new(ReadMode::Forgiving)
                .decode(doc)
                .unwrap_err(),
        ] {
            assert_eq!(e.kind(), expected.kind(), "{doc}: {e}");
            assert_eq!(e.pointer(), Some(pointer), "{doc}: {e}");
            assert!(e.to_string().contains("duplicate field"), "{doc}: {e}");
        }
    }
    // An undeclared member given twice is still reported twice, and keys inside opaque
    // JSON are still data (the last one wins).
    let d = decode::<Event>(
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"x"},"z":1,"z":2,"result":{"a":1,"a":2}}"#,
        ReadMode::Forgiving,
    )
    .unwrap();
    assert_eq!(
        d.warnings
            .iter()
            .map(|w| (w.kind, w.pointer.as_str()))
            .collect::<Vec<_>>(),
        [
            (WarningKind::UnknownMember, "/outcome/type"),
            (WarningKind::UnknownField, "/z"),
            (WarningKind::UnknownField, "/z"),
        ]
    );
    assert_eq!(
        serde_json::from_str::<Value>(&to_string(&d.value).unwrap()).unwrap(),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": {"a": 2}})
    );
}

#[test]
fn a_long_line_dripped_a_byte_at_a_time_is_read_once() {
    // A server sending a large snapshot one byte per read (slowly, or to pin the client's
    // CPU): the reader reads each byte a bounded number of times (searched for the line
    // end, checked as UTF-8, copied), not the whole waiting line again on every read.
    // `bytes_examined` counts every pass; `tests/it/sse_work.rs` holds it to four per
    // byte for every way of cutting a stream.
    for mib in [1, 3, 9] {
        let unit = r#"{"k":"ä€😀 text","n":[1,2,3]},"#;
        let value = unit.repeat((mib << 20) / unit.len());
        let stream = format!("data: {value}\n\n");
        let mut r = SseReader::new();
        for b in stream.as_bytes() {
            r.feed(std::slice::from_ref(b)).unwrap();
        }
        assert_eq!(r.next_data(), Some(value.as_str()), "{mib} MiB");
        let per_byte = r.bytes_examined() as f64 / stream.len() as f64;
        assert!(
            per_byte <= 4.0,
            "{mib} MiB: {per_byte} bytes examined per byte fed"
        );
    }
}

/// A 1, 3 and 9 MiB `data:` line, each fed one byte per read, is read whole (the reader
/// examines each byte a bounded number of times, so this takes seconds, not minutes).
#[test]
fn large_lines_dripped_a_byte_at_a_time_are_read() {
    for mib in [1usize, 3, 9] {
        let value = "x".repeat(mib << 20);
        let frame = format!(
            "data: {{\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{{\"blob\":\"{value}\"}}}}\n\n"
        );
        let mut reader = ag_ui_core::SseReader::new();
        let mut got = None;
        for b in frame.as_bytes() {
            reader.feed(std::slice::from_ref(b)).unwrap();
            if let Some(m) = reader.next_data() {
                got = Some(m.len());
            }
        }
        assert_eq!(got, Some(frame.len() - "data: \n\n".len()), "{mib} MiB");
        assert!(
            reader.bytes_examined() <= 4 * frame.len() as u64,
            "{mib} MiB"
        );
    }
}
