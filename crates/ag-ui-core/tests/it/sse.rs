//! SSE framing: the writer's exact bytes and the incremental reader's rules.

use ag_ui_core::read::from_str;
use ag_ui_core::sse::{to_sse_frame, write_sse_frame};
use ag_ui_core::*;

fn read_all(chunks: &[&[u8]]) -> Result<Vec<String>, Error> {
    let mut r = SseReader::new();
    let mut out = Vec::new();
    for c in chunks {
        r.feed(c)?;
        while let Some(m) = r.next_message() {
            out.push(m);
        }
    }
    if let Some(m) = r.finish()? {
        out.push(m);
    }
    while let Some(m) = r.next_message() {
        out.push(m);
    }
    Ok(out)
}

#[test]
fn writer_produces_data_line_and_blank_line() {
    let e: Event = TextMessageContentEvent::new("m", "héllo \"x\"\n").into();
    let frame = to_sse_frame(&e).unwrap();
    assert_eq!(
        frame,
        "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"héllo \\\"x\\\"\\n\"}\n\n"
    );
    let mut buf = Vec::new();
    write_sse_frame(&mut buf, &e).unwrap();
    assert_eq!(buf, frame.as_bytes());
}

#[test]
fn reader_handles_lf_crlf_and_cr() {
    for sep in ["\n", "\r\n", "\r"] {
        let text = format!("data: a{sep}{sep}data:b{sep}{sep}");
        assert_eq!(
            read_all(&[text.as_bytes()]).unwrap(),
            ["a", "b"],
            "separator {sep:?}"
        );
    }
}

#[test]
fn reader_joins_data_lines_and_ignores_other_fields() {
    let text = b": comment\nevent: x\nid: 7\nretry: 10\ndata: {\"a\":\ndata: 1}\nfoo\n\n";
    assert_eq!(read_all(&[text]).unwrap(), ["{\"a\":\n1}"]);
}

#[test]
fn reader_reassembles_split_utf8_and_split_crlf() {
    let text = "data: é✓\r\n\r\n".as_bytes();
    for cut in 1..text.len() {
        let (a, b) = text.split_at(cut);
        assert_eq!(read_all(&[a, b]).unwrap(), ["é✓"], "cut at {cut}");
    }
}

#[test]
fn reader_delivers_an_unterminated_final_message() {
    assert_eq!(
        read_all(&[b"data: x\n\ndata: tail"]).unwrap(),
        ["x", "tail"]
    );
    assert_eq!(read_all(&[b"data: tail\n"]).unwrap(), ["tail"]);
    assert!(read_all(&[b": only a comment"]).unwrap().is_empty());
}

#[test]
fn reader_rejects_invalid_utf8_with_offset() {
    let err = read_all(&[b"data: ok\n\ndata: \xff\n\n"]).unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (ErrorKind::Sse, Some(10)),
        "{err}"
    );
    assert_eq!(err.pointer(), None);
}

/// Invalid UTF-8 outside a data line is ignored and inside one refused at its offset, the
/// same way however the stream is cut (the reader checks whole reads at once and falls back
/// to one line at a time when a read holds invalid bytes).
#[test]
fn invalid_utf8_means_the_same_for_every_cut() {
    let ignored: &[u8] = b": caf\xe9\nid: \xff7\ndata: \xc3\xa9t\xc3\xa9\n\ndata: b\n\n";
    let refused: &[u8] = b"data: \xe2\x82\xac\n\n: \xff\ndata: ok\ndata: \xe2\x82\n\n";
    for cut in 0..=ignored.len() {
        let (a, b) = ignored.split_at(cut);
        assert_eq!(
            read_all(&[a, b]).unwrap(),
            ["\u{e9}t\u{e9}", "b"],
            "cut at {cut}"
        );
    }
    for cut in 0..=refused.len() {
        let (a, b) = refused.split_at(cut);
        let err = read_all(&[a, b]).unwrap_err();
        assert_eq!(
            (err.kind(), err.offset()),
            (ErrorKind::Sse, Some(24)),
            "cut at {cut}: {err}"
        );
        assert!(err.to_string().contains("at byte 6 of the line"), "{err}");
    }
}

/// A line whose text fits the cap but not with its CRLF, holding invalid UTF-8: the same
/// error wherever the stream is cut, the CRLF between two reads included (the line end is
/// counted after the line is read; found by the SSE fuzzer).
#[test]
fn a_line_and_its_line_end_fail_the_same_way_for_every_cut() {
    let stream: &[u8] = b"data: \xff\r\n\r\n";
    let read = |chunks: &[&[u8]]| {
        let mut r = SseReader::with_max_frame_bytes(8);
        for c in chunks {
            r.feed(c)?;
        }
        r.finish()
    };
    let whole = read(&[stream]).unwrap_err();
    assert!(whole.to_string().contains("invalid UTF-8"), "{whole}");
    for cut in 0..=stream.len() {
        let (a, b) = stream.split_at(cut);
        let err = read(&[a, b]).unwrap_err();
        assert_eq!(err.to_string(), whole.to_string(), "cut at {cut}");
    }
    // The line end still counts: a line that fits only without it is over the cap.
    let mut r = SseReader::with_max_frame_bytes(8);
    let err = r.feed(b"data: ab\r\n").unwrap_err();
    assert!(err.to_string().contains("8 byte cap"), "{err}");
}

#[test]
fn reader_caps_message_size() {
    let mut r = SseReader::with_max_frame_bytes(16);
    let err = r.feed(b"data: 0123456789abcdefghij").unwrap_err();
    assert!(err.to_string().contains("16 byte cap"), "{err}");
    assert!(r.feed(b"\n\n").is_err(), "a failed reader stays failed");
}

#[test]
fn spec_stream_reads_back_event_by_event() {
    let frames: String = [
        r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1","protocolVersion":"1.0"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"a1","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Checking"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"a1"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"success"}}"#,
    ]
    .iter()
    .map(|j| format!("data: {j}\n\n"))
    .collect();
    let messages = read_all(&[frames.as_bytes()]).unwrap();
    let events: Vec<Event> = messages.iter().map(|m| from_str(m).unwrap()).collect();
    assert_eq!(events.len(), 5);
    let again: String = events.iter().map(|e| to_sse_frame(e).unwrap()).collect();
    assert_eq!(again, frames);
}

/// `next_data` lends the same messages `next_message` returns, with the same event IDs,
/// whether the caller drains the reader after every read or leaves messages waiting across
/// reads (their data is kept while the buffer is reused).
#[test]
fn lending_reader_agrees_with_the_owned_one_however_messages_are_taken() {
    let mut stream = Vec::new();
    for i in 0..300 {
        if i % 7 == 0 {
            stream.extend_from_slice(format!("id: {i}\n").as_bytes());
        }
        stream.extend_from_slice(format!("data: {{\"n\":{i}}}\ndata: é{i}\n\n").as_bytes());
    }
    stream.extend_from_slice(b"data: last");
    let owned: Vec<(String, Option<String>)> = {
        let mut r = SseReader::new();
        r.feed(&stream).unwrap();
        let mut out = Vec::new();
        while let Some(m) = r.next_message() {
            out.push((m, r.last_event_id().map(str::to_owned)));
        }
        let last = r.finish().unwrap().unwrap();
        out.push((last, r.last_event_id().map(str::to_owned)));
        out
    };
    assert_eq!(owned.len(), 301);
    // Take at most `take` messages after each read of `chunk` bytes.
    for (chunk, take) in [(1, 1), (7, 1), (64, 2), (64, usize::MAX), (4096, 3)] {
        let mut r = SseReader::new();
        let mut lent = Vec::new();
        for c in stream.chunks(chunk) {
            r.feed(c).unwrap();
            for _ in 0..take {
                let Some(m) = r.next_data() else { break };
                let m = m.to_owned();
                lent.push((m, r.last_event_id().map(str::to_owned)));
            }
        }
        while let Some(m) = r.next_data() {
            let m = m.to_owned();
            lent.push((m, r.last_event_id().map(str::to_owned)));
        }
        if let Some(m) = r.finish().unwrap() {
            lent.push((m, r.last_event_id().map(str::to_owned)));
        }
        while let Some(m) = r.next_data() {
            let m = m.to_owned();
            lent.push((m, r.last_event_id().map(str::to_owned)));
        }
        assert_eq!(lent, owned, "chunks of {chunk}, {take} taken per read");
    }
}
