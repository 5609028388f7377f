//! Hostile input: each case here is documented in `docs/robustness.md`.

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
                assert!(matches!(e, Error::TooDeep { .. }), "{e:?}");
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
        // An unknown member is skipped without recursion when the tag comes first; when the
        // tag comes last it must be buffered, and the buffer has the same limit.
        let skipped = decode::<Event>(
            &format!(r#"{{"type":"RAW","event":1,"x":{deep}}}"#),
            ReadMode::Forgiving,
        )
        .unwrap();
        assert_eq!(
            skipped.warnings,
            [Warning::new(WarningKind::UnknownField, "/x")]
        );
        let buffered = decode::<Event>(
            &format!(r#"{{"x":{deep},"event":1,"type":"RAW"}}"#),
            ReadMode::Forgiving,
        )
        .unwrap_err();
        assert_eq!(buffered.pointer(), Some("/x"));
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
        assert!(matches!(e, Error::TooDeep { .. }), "{e:?}");
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
        assert!(matches!(e, Error::Syntax { .. }), "{e:?}");
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
        "SSE stream error at byte 44: SSE message exceeds the 16 byte cap without ending"
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
