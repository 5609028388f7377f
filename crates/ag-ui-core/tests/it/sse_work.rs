//! The SSE reader's work per byte: however a stream is cut into reads, each byte is read
//! a bounded number of times. `SseReader::bytes_examined` counts every pass (line-end
//! searches, UTF-8 checks, copies, the buffer's compaction); these tests hold it to
//! [`PER_BYTE`] per byte fed, and check that every way of cutting reads the same messages
//! and the same error.

use ag_ui_core::SseReader;
use serde_json::json;

use crate::fuzz::Rng;

/// The most bytes the reader may examine per byte fed.
const PER_BYTE: u64 = 4;

/// A stream and what reading it must give.
struct Case {
    name: &'static str,
    stream: Vec<u8>,
    /// The messages (data and last event ID) delivered before the end or the error.
    messages: Vec<(String, Option<String>)>,
    /// The error, if the stream holds one.
    error: Option<String>,
}

/// What one way of reading a stream gave.
#[derive(Debug, PartialEq)]
struct Outcome {
    messages: Vec<(String, Option<String>)>,
    error: Option<String>,
}

/// Feeds `chunks`, taking the waiting messages out after every `take_every`th read (and at
/// the end), then finishes. Asserts the work bound on the bytes fed (up to and including
/// the read that failed).
fn read(chunks: &[&[u8]], take_every: usize, what: &str) -> Outcome {
    let mut r = SseReader::new();
    let mut messages = Vec::new();
    let mut error = None;
    let mut fed = 0u64;
    let take = |r: &mut SseReader, out: &mut Vec<(String, Option<String>)>| {
        while let Some((data, id)) = r.next_data_with_id() {
            out.push((data.to_owned(), id.map(str::to_owned)));
        }
    };
    for (i, chunk) in chunks.iter().enumerate() {
        fed += chunk.len() as u64;
        if let Err(e) = r.feed(chunk) {
            error = Some(e.to_string());
            break;
        }
        if (i + 1) % take_every == 0 {
            take(&mut r, &mut messages);
        }
    }
    if error.is_none() {
        // (`finish` returns the first message still waiting: take them out first.)
        take(&mut r, &mut messages);
        match r.finish() {
            Ok(last) => {
                take(&mut r, &mut messages);
                messages.extend(last.map(|m| (m, r.last_event_id().map(str::to_owned))));
            }
            Err(e) => error = Some(e.to_string()),
        }
    }
    take(&mut r, &mut messages);
    let examined = r.bytes_examined();
    assert!(
        examined <= PER_BYTE * fed,
        "{what}: {examined} bytes examined for {fed} fed ({:.3} per byte)",
        examined as f64 / fed as f64
    );
    if error.is_none() {
        // The count is no estimate: every byte of a stream read to its end was looked at.
        assert!(
            examined >= fed,
            "{what}: {examined} bytes examined for {fed} fed"
        );
    }
    Outcome { messages, error }
}

/// The reads of each way of cutting `stream`: whole, TCP-sized, at random points, one
/// byte at a time, and cut right after every CR and inside every multi-byte character.
fn cuttings<'a>(stream: &'a [u8], rng: &mut Rng) -> Vec<(&'static str, Vec<&'a [u8]>)> {
    let at = |points: &[usize]| -> Vec<&'a [u8]> {
        let mut out = Vec::new();
        let mut from = 0;
        for &p in points.iter().chain([stream.len()].iter()) {
            if p > from {
                out.push(&stream[from..p]);
                from = p;
            }
        }
        out
    };
    let mut random: Vec<usize> = (0..stream.len() / 100 + 2)
        .map(|_| rng.below(stream.len() + 1))
        .collect();
    random.sort_unstable();
    let mut small: Vec<usize> = Vec::new();
    let mut p = 0;
    while p < stream.len() {
        p += 1 + rng.below(7);
        small.push(p.min(stream.len()));
    }
    let awkward: Vec<usize> = (1..stream.len())
        .filter(|&i| stream[i - 1] == b'\r' || stream[i] & 0xC0 == 0x80)
        .collect();
    vec![
        ("whole", vec![stream]),
        ("1460-byte reads", stream.chunks(1460).collect()),
        ("random cuts", at(&random)),
        ("reads of 1 to 7 bytes", at(&small)),
        ("one byte a read", stream.chunks(1).collect()),
        (
            "cut after every CR and inside every character",
            at(&awkward),
        ),
    ]
}

/// Text with one-, two-, three- and four-byte characters.
fn text(rng: &mut Rng, len: usize) -> String {
    let pieces = [
        "plain words ",
        "é",
        "ü",
        "€",
        "漢字",
        "😀",
        "👍🏽",
        "\"quoted\" ",
        "Ж",
    ];
    let mut s = String::new();
    while s.len() < len {
        let piece: &&str = rng.pick(&pieces);
        s.push_str(piece);
    }
    s
}

/// A valid stream: a byte order mark; messages of one data line and of several (some
/// `data:` without the space, one an empty `data`); comments, `event` and `retry` fields,
/// `id` fields (one holding NUL, ignored); LF, CRLF and CR line ends; two long lines.
fn valid(rng: &mut Rng) -> Case {
    let mut stream = b"\xEF\xBB\xBF".to_vec();
    let mut messages = Vec::new();
    let mut id: Option<String> = None;
    for i in 0..400 {
        let end: &[u8] = match i % 3 {
            0 => b"\n",
            1 => b"\r\n",
            _ => b"\r",
        };
        let line = |stream: &mut Vec<u8>, bytes: &[u8]| {
            stream.extend_from_slice(bytes);
            stream.extend_from_slice(end);
        };
        if i % 11 == 0 {
            line(&mut stream, b": a comment");
        }
        if i % 13 == 0 {
            line(&mut stream, b"event: update");
            line(&mut stream, b"retry: 1000");
        }
        if i % 7 == 0 {
            let new_id = format!("run-{i}-{}", text(rng, 3));
            line(&mut stream, format!("id: {new_id}").as_bytes());
            id = Some(new_id);
        }
        if i % 17 == 0 {
            line(&mut stream, b"id: with\0nul");
        }
        let len = match i {
            100 => 200_000,
            300 => 70_000,
            _ => 20 + rng.below(300),
        };
        let doc = json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": format!("m{i}"), "delta": text(rng, len)})
            .to_string();
        let data = match i % 5 {
            0 => {
                let second = text(rng, 40);
                line(&mut stream, format!("data:{doc}").as_bytes());
                line(&mut stream, format!("data: {second}").as_bytes());
                line(&mut stream, b"data");
                format!("{doc}\n{second}\n")
            }
            _ => {
                line(&mut stream, format!("data: {doc}").as_bytes());
                doc
            }
        };
        line(&mut stream, b"");
        messages.push((data, id.clone()));
    }
    Case {
        name: "valid",
        stream,
        messages,
        error: None,
    }
}

/// A stream whose data line at message `at_message` holds `bad` after a long stretch of
/// valid text: refused with the offset of the line and the position of `bad` in it (where
/// a UTF-8 check of the whole line stops), after the messages before it.
fn invalid(rng: &mut Rng, name: &'static str, bad: &[u8]) -> Case {
    let mut stream = Vec::new();
    let mut messages = Vec::new();
    for i in 0..20 {
        let doc = json!({"n": i, "text": text(rng, 100)}).to_string();
        stream.extend_from_slice(format!("data: {doc}\r\n\r\n").as_bytes());
        messages.push((doc, None));
    }
    // Invalid bytes in a comment and an ignored field do not count.
    stream.extend_from_slice(b": \xff\xfe\nevent: \xc0\n");
    let offset = stream.len();
    let before = text(rng, 5000);
    stream.extend_from_slice(b"data: ");
    stream.extend_from_slice(before.as_bytes());
    stream.extend_from_slice(bad);
    stream.extend_from_slice("and more é😀\n\ndata: after\n\n".as_bytes());
    Case {
        name,
        stream,
        messages,
        error: Some(format!(
            "SSE stream error at byte {offset}: invalid UTF-8 in a data line (at byte {} of the line)",
            6 + before.len()
        )),
    }
}

#[test]
fn every_cut_reads_the_same_with_at_most_four_bytes_examined_per_byte() {
    let mut rng = Rng::new(0x55E_C075);
    let mut cases = vec![valid(&mut rng)];
    for (name, bad) in [
        ("a byte that is never UTF-8", &b"\xff"[..]),
        ("a stray continuation byte", b"\x80"),
        ("an overlong form", b"\xc0\xaf"),
        ("an overlong three-byte form", b"\xe0\x80\xaf"),
        ("a surrogate", b"\xed\xa0\x80"),
        ("beyond U+10FFFF", b"\xf4\x90\x80\x80"),
        ("a character cut short by ASCII", b"\xf0\x9f\x98A"),
        ("a character cut short by the line end", b"\xe2\x82\n"),
    ] {
        cases.push(invalid(&mut rng, name, bad));
    }
    for case in &cases {
        for (how, chunks) in cuttings(&case.stream, &mut rng) {
            for take_every in [1, 5] {
                let what = format!(
                    "{}, {how}, messages taken every {take_every} reads",
                    case.name
                );
                let got = read(&chunks, take_every, &what);
                assert_eq!(got.error, case.error, "{what}");
                assert_eq!(got.messages.len(), case.messages.len(), "{what}");
                assert!(got.messages == case.messages, "{what}: other messages");
            }
        }
    }
}

#[test]
fn a_stream_of_many_short_messages_read_a_byte_at_a_time_stays_within_the_bound() {
    // Short messages, each taken out as soon as it is complete: the buffer is reused and
    // the compaction that drops what was handed out counts too.
    let mut stream = Vec::new();
    for i in 0..20_000 {
        stream.extend_from_slice(format!("data: {{\"n\":{i}}}\n\n").as_bytes());
    }
    for take_every in [1, 2, 3] {
        let chunks: Vec<&[u8]> = stream.chunks(1).collect();
        let got = read(&chunks, take_every, &format!("taken every {take_every}"));
        assert_eq!(got.messages.len(), 20_000);
        assert_eq!(got.messages[19_999].0, "{\"n\":19999}");
    }
}

/// Feeds `chunks` to a reader with message cap `cap`, taking the messages out after every
/// read, then finishes: the messages and the error, if any.
fn read_capped(cap: usize, chunks: &[&[u8]]) -> (Vec<String>, Option<String>) {
    let mut r = SseReader::with_max_frame_bytes(cap);
    let mut messages = Vec::new();
    let mut error = None;
    let mut fed = 0u64;
    for chunk in chunks {
        fed += chunk.len() as u64;
        if let Err(e) = r.feed(chunk) {
            error = Some(e.to_string());
            break;
        }
        while let Some(m) = r.next_message() {
            messages.push(m);
        }
    }
    if error.is_none() {
        match r.finish() {
            Ok(last) => messages.extend(last),
            Err(e) => error = Some(e.to_string()),
        }
    }
    // Messages completed before an error stay available.
    while let Some(m) = r.next_message() {
        messages.push(m);
    }
    assert!(r.bytes_examined() <= PER_BYTE * fed, "cap {cap}");
    (messages, error)
}

#[test]
fn control_bytes_in_a_data_line_dripped_a_byte_at_a_time_read_as_the_line_whole() {
    // A data line dripped a byte a read is appended byte by byte while its bytes are
    // printable ASCII; a control byte (tab, vertical tab, form feed, unit separator...),
    // DEL, a multi-byte character or a CR cut from its LF break that run and the run starts
    // again after it. Every cap makes it fail (or not) at the same place as the line fed
    // whole.
    let stream: &[u8] = b"data: a\tb\x01c\x0bd\x0ce\x7ff \xc3\xa9\xf0\x9f\x98\x80 g\x1fh\r\n\
                          data:\x00x\ty\r\rdata: after a CR\n\n";
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    let whole = read_capped(1 << 20, &[stream]);
    assert_eq!(
        whole,
        (
            vec![
                "a\tb\u{1}c\u{b}d\u{c}e\u{7f}f é😀 g\u{1f}h\n\0x\ty".to_owned(),
                "after a CR".to_owned()
            ],
            None
        )
    );
    assert_eq!(read_capped(1 << 20, &bytes), whole, "byte by byte");
    for cap in 1..=stream.len() {
        let whole = read_capped(cap, &[stream]);
        assert_eq!(read_capped(cap, &bytes), whole, "cap {cap}, byte by byte");
        let halves = [&stream[..cap], &stream[cap..]];
        assert_eq!(read_capped(cap, &halves), whole, "cap {cap}, cut at {cap}");
    }
}
