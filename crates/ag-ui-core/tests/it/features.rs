//! What the optional features change: the ids minted for translated 0.x events (UUID v4 with
//! `uuid`, a process-wide counter without it) and the `::random()` constructors.

use ag_ui_core::{Event, EventDecoder};

/// The ids the default generator gives a translated 0.x reasoning span and message.
fn minted_ids(dec: &mut EventDecoder) -> (String, String) {
    let id = |json: &str, dec: &mut EventDecoder| -> String {
        match dec.decode(json).unwrap().value.unwrap() {
            Event::ReasoningStart(e) => e.message_id.into_string(),
            Event::ReasoningMessageStart(e) => e.message_id.into_string(),
            other => panic!("unexpected translation {other:?}"),
        }
    };
    (
        id(r#"{"type":"THINKING_START"}"#, dec),
        id(r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#, dec),
    )
}

#[cfg(feature = "uuid")]
#[test]
fn translated_legacy_events_get_uuid_v4_ids_by_default() {
    let is_v4 = |s: &str| {
        let b = s.as_bytes();
        s.len() == 36
            && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
            && b[14] == b'4'
            && s.chars().all(|c| c == '-' || c.is_ascii_hexdigit())
    };
    let (span, message) = minted_ids(&mut EventDecoder::default());
    assert!(is_v4(&span) && is_v4(&message), "{span} {message}");
    assert_ne!(span, message);
    let random = ag_ui_core::MessageId::random();
    assert!(is_v4(random.as_str()), "{random}");
    assert_ne!(random, ag_ui_core::MessageId::random());
}

#[cfg(not(feature = "uuid"))]
#[test]
fn without_uuid_translated_legacy_events_get_counter_ids_unique_across_decoders() {
    let (a_span, a_message) = minted_ids(&mut EventDecoder::default());
    let (b_span, b_message) = minted_ids(&mut EventDecoder::default());
    let all = [&a_span, &a_message, &b_span, &b_message];
    for id in all {
        assert!(id.starts_with("legacy-"), "{id}");
    }
    let mut unique: Vec<_> = all.to_vec();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 4, "{all:?}");
    // One prefix for the process, then the counter.
    let prefix = |s: &str| s.rsplit_once('-').unwrap().0.to_owned();
    assert!(
        all.iter().all(|id| prefix(id) == prefix(&a_span)),
        "{all:?}"
    );
}
