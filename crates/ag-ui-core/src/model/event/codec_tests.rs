//! The events through the crate's own codec paths: the parser reads every valid event of
//! the fixtures as serde_json does, and the generated writers write events themselves
//! (not through their fallback) as serde_json writes them. (Here rather than in `codec`,
//! which knows no event.)

use serde::Deserialize;

use crate::codec::parser;
use crate::codec::write::{Encode, Out, to_vec};
use crate::{Event, ReasoningMessage, RunStartedEvent, TextMessageContentEvent};

/// Every valid event document of the fixtures is read by the parser, to the event
/// serde_json reads.
#[test]
fn reads_every_valid_event_of_the_fixtures() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let manifest = std::fs::read_to_string(root.join("MANIFEST.txt")).expect("MANIFEST.txt");
    let mut events = 0;
    for path in manifest.lines().filter(|p| p.contains("/valid/")) {
        let text = std::fs::read_to_string(root.join(path)).expect("fixture");
        let Ok(theirs) = serde_json::from_str::<Event>(&text) else {
            continue;
        };
        let ours = parser::parse(&text, |p| Event::deserialize(p));
        assert_eq!(ours.as_ref(), Some(&theirs), "{path}");
        events += 1;
    }
    assert!(events > 50, "only {events} valid events found");
}

#[test]
fn the_generated_writers_write_what_serde_json_writes() {
    let events: Vec<Event> = vec![
        TextMessageContentEvent::new("m1", "a \"quoted\" \u{1} delta é")
            .with_timestamp(1_767_225_600_000_i64)
            .into(),
        RunStartedEvent::new("t", "r")
            .with_raw_event(serde_json::json!({"k": [1, 2.5, null, {"x": "y"}]}))
            .into(),
    ];
    for e in &events {
        let mut out = Vec::new();
        let mut to = Out::new(&mut out);
        // Written by the generated writer itself, not through the fallback.
        assert!(e.encode(&mut to).is_ok());
        assert_eq!(out, serde_json::to_vec(e).expect("encodes"));
    }
    let m = ReasoningMessage::new("r1", "").with_encrypted_value_type("t");
    let mut out = Vec::new();
    let mut to = Out::new(&mut out);
    // A member without the one it needs is refused, and the fallback names it.
    assert!(m.encode(&mut to).is_err());
    let err = to_vec(&m).expect_err("unpaired");
    assert_eq!(err.pointer(), Some("/encryptedValueType"));
}
