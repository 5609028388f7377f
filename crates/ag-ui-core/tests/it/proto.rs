//! The protobuf transport (`ag_ui_core::proto`, feature `proto`): every valid 1.0 event
//! fixture through the envelope and back, the shared byte corpus (`fixtures/_proto-bytes/`)
//! byte for byte, framing across chunk cuts, the frame limit, truncation, an unknown arm, a
//! malformed frame and a 1.1-only member refused.

use ag_ui_core::proto::{
    ProtoError, ProtoFrame, ProtoReader, decode_event, encode_event, write_frame,
};
use ag_ui_core::read::{decode, from_str};
use ag_ui_core::write::to_vec;
use ag_ui_core::{Event, ProtocolVersion, ReadMode, TextMessageContentEvent};
use ag_ui_fixtures::{CaseKind, Failures, fixtures_dir, load_cases, protocol_of};
use serde_json::Value;

/// The event a frame decodes to (panics on an unknown arm).
fn event_of(frame: ProtoFrame) -> Event {
    match frame {
        ProtoFrame::Event(d) => {
            assert!(d.warnings.is_empty(), "warnings: {:?}", d.warnings);
            d.value
        }
        other => panic!("expected an event, got {other:?}"),
    }
}

/// The event's JSON document, parsed.
fn json(e: &Event) -> Value {
    serde_json::from_slice(&to_vec(e).unwrap()).unwrap()
}

/// What the protobuf transport cannot keep of an event's JSON (spec B7): the members a patch
/// operation has beside `op`, `path`, `from` and `value`, and the difference between an
/// empty list and an absent one (`usage`, a success outcome's `pendingToolCallIds`, a run
/// input's `tools`, `context` and `resume`).
fn without_what_the_wire_drops(mut v: Value) -> Value {
    if let Some(Value::Object(input)) = v.get_mut("input") {
        for key in ["tools", "context", "resume"] {
            if input
                .get(key)
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            {
                input.remove(key);
            }
        }
    }
    if let Some(o) = v.as_object_mut() {
        if o.get("usage")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            o.remove("usage");
        }
        if let Some(Value::Object(outcome)) = o.get_mut("outcome") {
            let empty = outcome.get("pendingToolCallIds").and_then(Value::as_array);
            if empty.is_some_and(Vec::is_empty) {
                outcome.remove("pendingToolCallIds");
            }
        }
    }
    for key in ["delta", "patch"] {
        if let Some(Value::Array(ops)) = v.get_mut(key) {
            for op in ops.iter_mut().filter_map(Value::as_object_mut) {
                op.retain(|k, _| matches!(k.as_str(), "op" | "path" | "from" | "value"));
            }
        }
    }
    v
}

#[test]
fn every_valid_1_0_event_fixture_round_trips() {
    let mut f = Failures::new();
    let mut n = 0;
    for case in load_cases().unwrap() {
        let def = case.definition.as_str();
        if !def.ends_with("Event")
            || case.kind != CaseKind::Valid
            || protocol_of(&case.name) != ProtocolVersion::V1_0
        {
            continue;
        }
        n += 1;
        let result = (|| {
            let event: Event = from_str(&case.text).map_err(|e| e.to_string())?;
            let bytes = encode_event(&event).map_err(|e| e.to_string())?;
            let back = event_of(decode_event(&bytes).map_err(|e| e.to_string())?);
            let (want, got) = (without_what_the_wire_drops(json(&event)), json(&back));
            if want != got {
                return Err(format!("decoded {got}, expected {want}"));
            }
            Ok(())
        })();
        f.check(&format!("{def}/{}", case.name), result);
    }
    assert!(n > 100, "only {n} valid event cases found");
    f.finish("protobuf round trips");
}

#[test]
fn the_shared_byte_corpus_is_reproduced_byte_for_byte() {
    let dir = fixtures_dir().join("_proto-bytes");
    let mut f = Failures::new();
    let (mut n, mut exact) = (0, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("bin") {
            continue;
        }
        n += 1;
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let want = std::fs::read(&path).unwrap();
        let text = std::fs::read_to_string(path.with_extension("json")).unwrap();
        let result = (|| {
            let read = decode::<Event>(&text, ReadMode::Forgiving).map_err(|e| e.to_string())?;
            let got = encode_event(&read.value).map_err(|e| e.to_string())?;
            let ProtoFrame::Event(back) = decode_event(&want).map_err(|e| e.to_string())? else {
                return Err("an unknown arm".to_owned());
            };
            // (`"rawEvent": null` is read as absent, with a warning the bytes do not repeat.)
            if back.value != read.value || !back.warnings.is_empty() {
                return Err(format!(
                    "the corpus bytes decode to {} {:?}, the document is {} {:?}",
                    json(&back.value),
                    back.warnings,
                    json(&read.value),
                    read.warnings
                ));
            }
            if got == want {
                exact += 1;
                return Ok(());
            }
            // Spec B8: another encoder may write an open object's members in another order;
            // the bytes are then a permutation of ours and decode to the same event.
            let (mut a, mut b) = (got.clone(), want.clone());
            a.sort_unstable();
            b.sort_unstable();
            let ProtoFrame::Event(ours) = decode_event(&got).map_err(|e| e.to_string())? else {
                return Err("an unknown arm".to_owned());
            };
            if a != b || ours.value != back.value {
                return Err(format!("wrote {got:02x?}, the corpus has {want:02x?}"));
            }
            Ok(())
        })();
        f.check(&name, result);
    }
    assert!(n >= 90, "only {n} corpus files in {}", dir.display());
    assert!(exact >= n - 3, "only {exact} of {n} byte for byte");
    f.finish("the protobuf byte corpus");
}

/// A body of a few events, each framed.
fn body() -> (Vec<Event>, Vec<u8>, Vec<usize>) {
    let events: Vec<Event> = [
        r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello, wörld"}"#,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"a":[1,2.5,null,true,"x"]}}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"success"}}"#,
    ]
    .iter()
    .map(|t| from_str(t).unwrap())
    .collect();
    let mut body = Vec::new();
    let mut ends = Vec::new();
    for e in &events {
        write_frame(e, &mut body).unwrap();
        ends.push(body.len());
    }
    (events, body, ends)
}

/// Reads `body` in chunks of `size`, returning the events and the result of `finish`.
fn read_in_chunks(body: &[u8], size: usize) -> (Vec<Event>, Result<(), ProtoError>) {
    let mut reader = ProtoReader::new();
    let mut out = Vec::new();
    for chunk in body.chunks(size) {
        reader.push(chunk).unwrap();
        while let Some(frame) = reader.next_frame().unwrap() {
            out.push(event_of(frame));
        }
    }
    (out, reader.finish())
}

#[test]
fn frames_split_across_reads_and_several_in_one_read() {
    let (events, body, _) = body();
    for size in 1..=body.len() {
        let (got, end) = read_in_chunks(&body, size);
        assert_eq!(got, events, "chunks of {size}");
        assert_eq!(end, Ok(()));
    }
}

#[test]
fn a_body_cut_mid_frame_is_truncated() {
    let (events, body, ends) = body();
    for cut in 0..body.len() {
        let (got, end) = read_in_chunks(&body[..cut], 7);
        let complete = ends.iter().filter(|e| **e <= cut).count();
        assert_eq!(got, events[..complete], "cut at {cut}");
        if cut == 0 || ends.contains(&cut) {
            assert_eq!(end, Ok(()), "cut at {cut}");
        } else {
            let start = if complete == 0 { 0 } else { ends[complete - 1] };
            match end {
                Err(ProtoError::Truncated { offset, have, need }) => {
                    assert_eq!(
                        (offset, have),
                        ((start as u64), cut - start),
                        "cut at {cut}"
                    );
                    let frame = ends[complete] - start;
                    assert_eq!(need, if have < 4 { 4 } else { frame }, "cut at {cut}");
                }
                other => panic!("cut at {cut}: {other:?}"),
            }
        }
    }
}

#[test]
fn a_length_prefix_above_the_limit_is_refused_before_allocating() {
    let mut reader = ProtoReader::with_max_frame_bytes(1024);
    let info = allocation_counter::measure(|| {
        let err = reader.push(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3]).unwrap_err();
        assert_eq!(
            err,
            ProtoError::FrameTooLarge {
                offset: 0,
                len: u32::MAX,
                max: 1024
            }
        );
    });
    assert_eq!(info.bytes_total, 0, "{info:?}");
    assert_eq!(reader.next_frame().unwrap_err(), ProtoError::Failed);

    // After a good frame, the prefix split over two reads.
    let mut good = Vec::new();
    write_frame(
        &Event::from(TextMessageContentEvent::new("m1", "x")),
        &mut good,
    )
    .unwrap();
    let mut reader = ProtoReader::with_max_frame_bytes(1024);
    reader.push(&good).unwrap();
    reader.push(&[0, 0]).unwrap();
    assert!(reader.next_frame().unwrap().is_some());
    let err = reader.push(&[0x04, 0x01]).unwrap_err();
    assert_eq!(
        err,
        ProtoError::FrameTooLarge {
            offset: good.len() as u64,
            len: 1025,
            max: 1024
        }
    );
    // Exactly the limit is accepted.
    let mut reader = ProtoReader::with_max_frame_bytes(good.len() - 4);
    reader.push(&good).unwrap();
    assert!(reader.next_frame().unwrap().is_some());
}

#[test]
fn an_unknown_envelope_arm_is_skipped_with_a_warning() {
    // Field 40, length-delimited, holding a message with one string field.
    let unknown = [0xc2, 0x02, 0x04, 0x0a, 0x02, b'h', b'i'];
    let mut body = (unknown.len() as u32).to_be_bytes().to_vec();
    body.extend_from_slice(&unknown);
    let event = Event::from(TextMessageContentEvent::new("m1", "after"));
    write_frame(&event, &mut body).unwrap();
    let mut reader = ProtoReader::new();
    reader.push(&body).unwrap();
    match reader.next_frame().unwrap() {
        Some(ProtoFrame::UnknownArm {
            offset: 0,
            field: 40,
        }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(event_of(reader.next_frame().unwrap().unwrap()), event);
    assert!(reader.next_frame().unwrap().is_none());
    reader.finish().unwrap();
}

#[test]
fn a_complete_frame_that_does_not_decode_is_fatal() {
    let cases: [(&[u8], &str); 4] = [
        (&[0x12, 0x05, 0x0a], "buffer underflow"),
        (&[], "sets no event"),
        // TEXT_MESSAGE_CONTENT whose base event says TEXT_MESSAGE_START.
        (
            &[0x12, 0x04, 0x0a, 0x02, 0x08, 0x00],
            "base_event.type is 0",
        ),
        // A TEXT_MESSAGE_CONTENT without its base event.
        (&[0x12, 0x04, 0x12, 0x02, b'm', b'1'], "no base_event"),
    ];
    for (frame, expect) in cases {
        let mut body = (frame.len() as u32).to_be_bytes().to_vec();
        body.extend_from_slice(frame);
        let mut reader = ProtoReader::new();
        reader.push(&body).unwrap();
        match reader.next_frame() {
            Err(ProtoError::Malformed { offset: 0, detail }) => {
                assert!(detail.contains(expect), "{frame:02x?}: {detail}");
            }
            other => panic!("{frame:02x?}: {other:?}"),
        }
        assert_eq!(reader.next_frame().unwrap_err(), ProtoError::Failed);
    }
}

#[test]
fn a_1_1_only_member_is_refused_by_name() {
    let mut n = 0;
    for case in load_cases().unwrap() {
        if !case.definition.ends_with("Event")
            || case.kind != CaseKind::Valid
            || protocol_of(&case.name) == ProtocolVersion::V1_0
        {
            continue;
        }
        let event: Event = from_str(&case.text).unwrap();
        let mut out = b"kept".to_vec();
        let err = write_frame(&event, &mut out).unwrap_err();
        assert_eq!(out, b"kept", "{}", case.name);
        match &err {
            ProtoError::Unencodable { event_type, detail } => {
                assert_eq!(*event_type, event.event_type().as_str());
                assert!(
                    detail.contains("encryptedValueType"),
                    "{}: {err}",
                    case.name
                );
                let core = ag_ui_core::Error::from(err.clone());
                assert_eq!(core.kind(), ag_ui_core::ErrorKind::Encode);
                assert!(core.to_string().contains("encryptedValueType"), "{core}");
            }
            other => panic!("{}: {other:?}", case.name),
        }
        n += 1;
    }
    assert!(n >= 2, "only {n} 1.1 event cases");
}

#[test]
fn omitted_required_fields_arrive_empty_and_unknown_fields_are_skipped() {
    // TEXT_MESSAGE_CONTENT with its base event and messageId "m1", no delta (spec B7: it
    // arrives empty), then field 99 (a varint this build does not know: skipped), and
    // envelope field 40 beside the known arm (skipped: the known arm decides).
    let frame = [
        0x12, 0x0b, 0x0a, 0x02, 0x08, 0x01, 0x12, 0x02, b'm', b'1', 0x98, 0x06, 0x07, //
        0xc2, 0x02, 0x00,
    ];
    let event = event_of(decode_event(&frame).unwrap());
    assert_eq!(
        json(&event),
        serde_json::json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": ""})
    );
}
