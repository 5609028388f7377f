//! The producer contract (spec §2.2, §2.6): absent optional fields are omitted, never
//! written as `null`; defaults are never materialized; meaningful `null`s survive.

use ag_ui_core::read::{decode, from_str};
use ag_ui_core::sse::to_sse_frame;
use ag_ui_core::write::to_string;
use ag_ui_core::*;
use ag_ui_fixtures::{CaseKind, Failures, decode_as, load_cases};
use serde_json::{Value, json};

fn event_def(t: EventType) -> String {
    t.as_str()
        .split('_')
        .map(|p| p[..1].to_owned() + &p[1..].to_lowercase())
        .collect::<String>()
        + "Event"
}

/// For every event type, takes its fully populated valid case and checks, key by key, that
/// an optional key left out is left out on write, and that an optional key given as `null`
/// is read as absent and left out on write.
#[test]
fn null_omission_holds_for_every_optional_field_of_every_event() {
    let cases = load_cases().expect("fixtures");
    let mut f = Failures::new();
    for t in EventType::ALL {
        let def = event_def(*t);
        let Some(full) = cases
            .iter()
            .filter(|c| c.definition == def && matches!(c.kind, CaseKind::Valid))
            .max_by_key(|c| c.input.as_object().map_or(0, serde_json::Map::len))
        else {
            f.check(&def, Err("no valid case".into()));
            continue;
        };
        let obj = full.input.as_object().expect("events are objects").clone();
        for key in obj.keys().filter(|k| *k != "type") {
            let mut without = obj.clone();
            without.remove(key);
            let text = Value::Object(without.clone()).to_string();
            let Some(Ok(out)) = decode_as("Event", &text, ReadMode::Exact) else {
                continue; // a required key
            };
            let name = format!("{def}.{key}");
            if out.encoded.get(key).is_some() {
                f.check(
                    &name,
                    Err(format!("absent {key} was written as {}", out.encoded[key])),
                );
                continue;
            }
            let mut nulled = without.clone();
            nulled.insert(key.clone(), Value::Null);
            let text = Value::Object(nulled).to_string();
            let r = match decode_as("Event", &text, ReadMode::Forgiving) {
                Some(Ok(o)) if o.encoded.get(key).is_some() => {
                    Err(format!("null {key} was written back"))
                }
                Some(Ok(o)) if o.encoded != Value::Object(without) => {
                    Err(format!("null {key} changed other fields"))
                }
                Some(Ok(_)) => Ok(()),
                Some(Err(e)) if key == "subagentRunId" && e.pointer() == Some("/subagentRunId") => {
                    Ok(())
                }
                Some(Err(e)) => Err(format!("null {key} rejected: {e}")),
                None => Err("Event unknown".into()),
            };
            f.check(&name, r);
        }
    }
    assert!(
        f.checked > 100,
        "too few optional fields walked: {}",
        f.checked
    );
    f.finish("null-omission");
}

#[test]
fn normative_defaults_are_not_written_but_are_read() {
    let start = TextMessageStartEvent::new("m1");
    assert_eq!(start.role(), TextMessageRole::Assistant);
    assert_eq!(
        serde_json::to_value(&start).unwrap(),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1"})
    );

    let snap = ActivitySnapshotEvent::new("a1", "PLAN", serde_json::Map::new());
    assert!(snap.replace());
    assert!(
        serde_json::to_value(&snap)
            .unwrap()
            .get("replace")
            .is_none()
    );

    let fin = RunFinishedEvent::new("t", "r");
    assert_eq!(*fin.outcome(), RunFinishedOutcome::success());
    assert!(serde_json::to_value(&fin).unwrap().get("outcome").is_none());

    let input = RunAgentInput::new("t", "r", Vec::new());
    assert!(input.tools().is_empty() && input.context().is_empty());
    assert_eq!(
        serde_json::to_value(&input).unwrap(),
        json!({"threadId": "t", "runId": "r", "messages": []})
    );
}

#[test]
fn meaningful_nulls_survive() {
    let docs = [
        json!({"type": "STATE_SNAPSHOT", "snapshot": null}),
        json!({"type": "RAW", "event": null}),
        json!({"type": "CUSTOM", "name": "n", "value": null}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": null}, {"op": "test", "path": "", "value": null}]}),
        json!({"type": "STEP_STARTED", "stepName": "s", "metadata": {"ag-ui": null, "x": [null, {"y": null}]}}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": null, "b": [null]}, "rawEvent": {"k": null}}),
    ];
    for doc in docs {
        let event: Event = from_str(&doc.to_string()).unwrap();
        assert_eq!(serde_json::to_value(&event).unwrap(), doc);
    }
}

#[test]
fn type_is_written_first() {
    let e: Event = RunErrorEvent::new("boom")
        .with_code("E1")
        .with_timestamp(5)
        .into();
    let s = to_string(&e).unwrap();
    assert!(s.starts_with(r#"{"type":"RUN_ERROR","#), "{s}");
}

#[test]
fn late_type_key_decodes_the_same() {
    let late = r#"{"messageId":"m","delta":"d","metadata":{"k":1},"type":"TEXT_MESSAGE_CONTENT","timestamp":3}"#;
    let early = r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","metadata":{"k":1},"timestamp":3}"#;
    assert_eq!(
        from_str::<Event>(late).unwrap(),
        from_str::<Event>(early).unwrap()
    );
    let warned = decode::<Event>(
        r#"{"x":null,"messageId":"m","type":"TEXT_MESSAGE_END","name":null}"#,
        ReadMode::Forgiving,
    )
    .unwrap();
    let kinds: Vec<_> = warned
        .warnings
        .iter()
        .map(|w| (w.kind, w.pointer.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (WarningKind::UnknownField, "/x"),
            (WarningKind::UnknownField, "/name")
        ]
    );
}

#[test]
fn values_the_wire_cannot_hold_fail_to_encode() {
    let too_big = RunFinishedEvent::new("t", "r")
        .with_usage(vec![TokenUsage::new().with_input_tokens(1_u64 << 60)]);
    let err = to_string(&too_big).unwrap_err();
    assert!(err.to_string().contains("2^53"), "{err}");

    let bad_ts = StepStartedEvent::new("s").with_timestamp(i64::MAX);
    assert!(to_string(&bad_ts).is_err());

    let bad_pointer = StateDeltaEvent::new(vec![JsonPatchOperation::remove("a")]);
    let err = to_sse_frame(&bad_pointer).unwrap_err();
    assert!(err.to_string().contains("JSON Pointer"), "{err}");

    assert!(RunFinishedOutcome::interrupt(Vec::new()).is_none());
}

#[test]
fn every_event_type_round_trips_through_the_union_and_sse() {
    let cases = load_cases().expect("fixtures");
    let mut seen = std::collections::BTreeSet::new();
    for c in cases
        .iter()
        .filter(|c| matches!(c.kind, CaseKind::Valid) && c.definition.ends_with("Event"))
    {
        let event: Event = from_str(&c.text).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        seen.insert(event.event_type());
        let frame = to_sse_frame(&event).unwrap();
        let mut reader = SseReader::new();
        reader.feed(frame.as_bytes()).unwrap();
        let data = reader.next_message().expect("one message");
        let back: Value = serde_json::from_str(&data).unwrap();
        assert_eq!(back, c.input, "{}", c.name);
    }
    assert_eq!(
        seen.len(),
        EventType::ALL.len(),
        "event types with a valid fixture: {seen:?}"
    );
}

#[test]
fn metadata_merge_is_key_by_key_and_shallow() {
    let target = Metadata::new()
        .with("a", 1)
        .with(AGUI_METADATA_KEY, json!({"x": 1, "y": 2}));
    let incoming = Metadata::new()
        .with(AGUI_METADATA_KEY, json!({"x": 3}))
        .with("b", Value::Null);
    let merged = Metadata::merged(Some(&target), Some(&incoming)).unwrap();
    assert_eq!(
        Value::Object(merged.0),
        json!({"a": 1, "ag-ui": {"x": 3}, "b": null})
    );
    assert_eq!(Metadata::merged(Some(&target), None), Some(target.clone()));
    assert_eq!(Metadata::merged(None, None), None);
}

#[test]
fn content_flattens_to_text_parts_only() {
    let c = Content::Parts(vec![
        ContentPart::text("a"),
        ContentPart::image(PartSource::url("https://x")),
        ContentPart::text("b"),
    ]);
    assert_eq!(c.to_text(), "ab");
    assert!(c.has_media());
    assert!(!Content::from("x").has_media());
}

/// A stream of small events is stored compactly: rare, large variants and the rarely
/// present `rawEvent` / `metadata` are boxed (docs/performance.md).
#[test]
#[cfg(target_pointer_width = "64")]
fn an_event_slot_stays_small() {
    let size = std::mem::size_of::<Event>();
    assert!(size <= 128, "Event grew to {size} bytes");
}
