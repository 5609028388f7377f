//! Error quality: every message names where (a JSON Pointer) and what was expected.

use ag_ui_core::*;

fn err<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str) -> Error {
    match from_str::<T>(json) {
        Ok(v) => panic!("accepted {json}: {v:?}"),
        Err(e) => e,
    }
}

#[test]
fn messages_name_pointer_and_expectation() {
    let cases: &[(&str, &str)] = &[
        (
            r#"{"type":"TEXT_MESSAGE_START","messageId":5}"#,
            "invalid AG-UI document at `/messageId`: invalid type: integer `5`, expected a string (line 1, column 42)",
        ),
        (
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i"}]}}"#,
            "invalid AG-UI document at `/outcome/interrupts/0`: missing required field `reason` (a string) (line 1, column 104)",
        ),
        (
            r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"foo"}]}"#,
            "invalid AG-UI document at `/delta/0/path`: invalid JSON Pointer \"foo\": must match ^(/([^/~]|~[01])*)*$: empty, or `/`-separated tokens with `~` written `~0` and `/` written `~1` (line 1, column 59)",
        ),
        (
            r#"{"type":"FOO_BAR"}"#,
            "unknown event type \"FOO_BAR\" (not one of the 31 event types of AG-UI 1.0)",
        ),
        (
            r#"{"type":"RUN_ERROR","message":"x""#,
            "malformed JSON at the document root (line 1, column 33): EOF while parsing an object",
        ),
    ];
    for (json, want) in cases {
        assert_eq!(err::<Event>(json).to_string(), *want, "{json}");
    }
}

#[test]
fn exact_mode_names_the_first_offence() {
    let e = decode::<RunAgentInput>(
        r#"{"threadId":"t","runId":"r","messages":[{"id":"1","role":"user","content":"x","extra":1}]}"#,
        ReadMode::Exact,
    )
    .unwrap_err();
    assert_eq!(e.pointer(), Some("/messages/0/extra"));
    assert_eq!(
        e.to_string(),
        "not exact AG-UI 1.0 at `/messages/0/extra`: unknown field (the 1.0 schema closes this object)"
    );
}

#[test]
fn unknown_event_type_is_its_own_variant() {
    let e = decode::<Event>(
        r#"{"type":"META_EVENT","metaType":"x"}"#,
        ReadMode::Forgiving,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::UnknownEventType { ref event_type } if event_type == "META_EVENT"),
        "{e:?}"
    );
}

#[test]
fn stream_decoder_drops_unknown_types_and_translates_legacy_reasoning() {
    let mut ids = ["span-1".to_owned(), "msg-1".to_owned()].into_iter();
    let mut dec = EventDecoder::default().with_id_generator(move || ids.next().unwrap_or_default());
    let dropped = dec.decode(r#"{"type":"FUTURE_EVENT"}"#).unwrap();
    assert!(dropped.value.is_none());
    assert_eq!(
        dropped.warnings,
        [Warning::new(WarningKind::UnknownEventType, "/type")
            .with_detail("\"FUTURE_EVENT\"; the event was dropped")]
    );
    assert_eq!(
        dropped.warnings[0].to_string(),
        "event type unknown to AG-UI 1.0 at `/type`: \"FUTURE_EVENT\"; the event was dropped"
    );
    // A name from the input is shown by its first 64 bytes and its length.
    let huge = "X".repeat(1 << 20);
    let dropped = EventDecoder::default()
        .decode(&format!(r#"{{"type":"{huge}"}}"#))
        .unwrap();
    assert_eq!(
        dropped.warnings[0].detail.as_deref(),
        Some(
            format!(
                "\"{}…\" (1048576 bytes); the event was dropped",
                "X".repeat(64)
            )
            .as_str()
        )
    );

    let types: Vec<_> = [
        r#"{"type":"THINKING_START","title":"plan"}"#,
        r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#,
        r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hm"}"#,
        r#"{"type":"THINKING_TEXT_MESSAGE_END"}"#,
        r#"{"type":"THINKING_END"}"#,
    ]
    .iter()
    .map(|j| to_string(&dec.decode(j).unwrap().value.unwrap()).unwrap())
    .collect();
    assert_eq!(
        types,
        [
            r#"{"type":"REASONING_START","messageId":"span-1"}"#,
            r#"{"type":"REASONING_MESSAGE_START","messageId":"msg-1","role":"reasoning"}"#,
            r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"msg-1","delta":"hm"}"#,
            r#"{"type":"REASONING_MESSAGE_END","messageId":"msg-1"}"#,
            r#"{"type":"REASONING_END","messageId":"span-1"}"#,
        ]
    );
    let exact = EventDecoder::new(ReadMode::Exact)
        .decode(r#"{"type":"THINKING_END"}"#)
        .unwrap_err();
    assert!(
        matches!(
            exact,
            Error::NotExact {
                kind: WarningKind::LegacyEvent,
                ..
            }
        ),
        "{exact}"
    );
}

#[test]
fn errors_have_a_kind_and_their_place_as_data() {
    use ag_ui_core::{ErrorKind, Event, RunAgentInput, from_str};
    let cases: [(&str, ErrorKind, Option<&str>); 5] = [
        (
            r#"{"type":"RUN_ERROR","message":1}"#,
            ErrorKind::Invalid,
            Some("/message"),
        ),
        (
            r#"{"type":"RUN_ERROR","message":"m""#,
            ErrorKind::Syntax,
            Some(""),
        ),
        (
            r#"{"type":"NOPE"}"#,
            ErrorKind::UnknownEventType,
            Some("/type"),
        ),
        (
            r#"{"type":"THINKING_START"}"#,
            ErrorKind::LegacyEventType,
            Some("/type"),
        ),
        (
            &format!(
                r#"{{"type":"RAW","event":{}{}}}"#,
                "[".repeat(200),
                "]".repeat(200)
            ),
            ErrorKind::TooDeep,
            None,
        ),
    ];
    for (text, kind, pointer) in cases {
        let e = from_str::<Event>(text).unwrap_err();
        assert_eq!(e.kind(), kind, "{text}: {e}");
        if let Some(p) = pointer {
            assert_eq!(e.pointer(), Some(p), "{text}");
        }
    }
    // A nested member: the pointer and the position are data, not parsed from the message.
    let e = from_str::<RunAgentInput>(
        "{\"threadId\":\"t\",\"runId\":\"r\",\n\"messages\":[{\"role\":\"user\",\"id\":\"u\",\"content\":7}]}",
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert_eq!(e.pointer(), Some("/messages/0/content"));
    assert_eq!(e.line_column().map(|(line, _)| line), Some(2));
    assert!(!e.to_string().contains("/messages/0/content: "), "{e}");
    // serde_json used directly still shows the pointer in its message.
    let plain = serde_json::from_str::<RunAgentInput>(
        r#"{"threadId":"t","runId":"r","messages":[{"role":"user","id":"u","content":7}]}"#,
    )
    .unwrap_err();
    assert!(
        plain.to_string().starts_with("/messages/0/content: "),
        "{plain}"
    );
}

#[test]
fn a_failing_writer_is_an_io_error() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let event = Event::from(RunErrorEvent::new("m"));
    let e = write_sse_frame(Broken, &event).unwrap_err();
    assert!(matches!(e, Error::Io(_)), "{e:?}");
    assert_eq!(e.kind(), ErrorKind::Io);
    assert_eq!(e.pointer(), None);
    assert_eq!(e.to_string(), "I/O error: disk full");
}
