//! Error quality: every message names where (a JSON Pointer) and what was expected.

use ag_ui_core::read::{decode, from_str};
use ag_ui_core::sse::write_sse_frame;
use ag_ui_core::write::to_string;
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
            &format!(
                "unknown event type \"FOO_BAR\" (not one of the {} AG-UI event types)",
                EventType::ALL.len()
            ),
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
    assert_eq!(e.kind(), ErrorKind::UnknownEventType, "{e:?}");
    assert_eq!(e.event_type(), Some("META_EVENT"));
    assert_eq!(e.pointer(), Some("/type"));
    assert_eq!(e.line_column(), None);
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
    assert_eq!(exact.kind(), ErrorKind::NotExact, "{exact}");
    assert_eq!(exact.warning_kind(), Some(WarningKind::LegacyEvent));
    assert_eq!(exact.pointer(), Some("/type"));
}

#[test]
fn errors_have_a_kind_and_their_place_as_data() {
    use ag_ui_core::{ErrorKind, Event, RunAgentInput};
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
    assert!(e.kind() == ErrorKind::Io, "{e:?}");
    assert_eq!(e.kind(), ErrorKind::Io);
    assert_eq!(e.pointer(), None);
    assert_eq!(e.to_string(), "I/O error: disk full");
}

/// An encoding error names the member that cannot be written, as a reading error does:
/// an integer beyond ±(2^53 − 1), a count beyond 2^53 − 1, an invalid JSON Pointer, a value
/// nested deeper than 127 levels; keys are escaped as RFC 6901 says. The same through every
/// writer (`write`, `sse`).
#[test]
fn encoding_errors_name_the_member() {
    use ag_ui_core::write::{to_string, to_vec};
    use serde_json::json;

    fn nested(depth: usize) -> serde_json::Value {
        let mut v = serde_json::Value::Null;
        for _ in 0..depth {
            v = json!({ "a/b~": v });
        }
        v
    }

    let cases: Vec<(Event, String, &str)> = vec![
        (
            RunStartedEvent::new("t", "r")
                .with_timestamp(1_i64 << 60)
                .into(),
            "/timestamp".into(),
            "integer 1152921504606846976 is outside ±(2^53 − 1)",
        ),
        (
            RunFinishedEvent::new("t", "r")
                .with_usage(vec![
                    TokenUsage::new(),
                    TokenUsage::new().with_output_tokens(1_u64 << 60),
                ])
                .into(),
            "/usage/1/outputTokens".into(),
            "count 1152921504606846976 is above 2^53 − 1",
        ),
        (
            StateDeltaEvent::new(vec![
                JsonPatchOperation::add("/ok", 1_i64),
                JsonPatchOperation::copy("/ok", "/fine"),
                JsonPatchOperation::move_("no-slash", "/x"),
            ])
            .into(),
            "/delta/2/from".into(),
            "invalid JSON Pointer \"no-slash\"",
        ),
        (
            StateSnapshotEvent::new(json!({"list": [1, nested(126)]})).into(),
            // The object at level 128: the event is level 1, `snapshot` 2, `list` 3, the
            // second item 4; 124 `a/b~` objects below it reach 128.
            format!("/snapshot/list/1{}", "/a~1b~0".repeat(124)),
            "arrays and objects nested deeper than 127 levels",
        ),
    ];
    for (event, pointer, what) in cases {
        let errors = [
            to_string(&event).unwrap_err(),
            to_vec(&event).unwrap_err(),
            ag_ui_core::sse::to_sse_frame(&event).unwrap_err(),
            ag_ui_core::sse::write_sse_frame(Vec::new(), &event).unwrap_err(),
        ];
        for e in errors {
            assert_eq!(e.kind(), ErrorKind::Encode, "{e}");
            assert_eq!(e.pointer(), Some(pointer.as_str()), "{e}");
            assert_eq!(e.line_column(), None);
            let text = e.to_string();
            assert!(text.starts_with("cannot encode AG-UI JSON at `/"), "{text}");
            assert!(text.contains(what), "{text}");
        }
    }

    // The reader, given the same too-deep value as text, names the member holding it (it
    // reads free-form JSON whole); the writer names the container inside it that is one
    // level too deep, below it.
    let event: Event = StateSnapshotEvent::new(nested(127)).into();
    let written = to_string(&event).unwrap_err();
    let text = serde_json::to_string(&event).unwrap();
    let read = ag_ui_core::read::from_str::<Event>(&text).unwrap_err();
    assert_eq!(read.kind(), ErrorKind::TooDeep);
    assert_eq!(read.pointer(), Some("/snapshot"));
    assert!(
        written.pointer().unwrap().starts_with("/snapshot/"),
        "{written}"
    );
}

/// `Error` is opaque and boxed: one pointer, whatever its representation holds.
#[test]
fn an_error_is_one_pointer() {
    assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    assert_eq!(
        std::mem::size_of::<Result<(), Error>>(),
        std::mem::size_of::<usize>()
    );
}
