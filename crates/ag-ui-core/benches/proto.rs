//! The protobuf transport (feature `proto`) against SSE JSON on the same events: encoding
//! (`proto::write_frame` against `sse::write_sse_frame`), decoding a whole body
//! (`proto::ProtoReader` against `SseReader` and the forgiving reader), and the bytes on the
//! wire, on the streaming and token-heavy corpora of `corpus/mod.rs`.
//!
//! `cargo bench -p ag-ui-core --features proto --bench proto` prints the medians of
//! interleaved rounds (`AG_UI_BENCH_ROUNDS`, default 21). Without `--bench` (as
//! `cargo test --benches` runs it) every case runs once.

mod corpus;

use std::hint::black_box;
use std::time::{Duration, Instant};

use ag_ui_core::proto::{ProtoFrame, ProtoReader, write_frame};
use ag_ui_core::{Event, SseReader};

/// Events in each corpus.
const EVENTS: usize = 20_000;
/// Bytes handed to a reader at a time (a typical socket read).
const CHUNK: usize = 16 * 1024;

fn sse_body(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        ag_ui_core::sse::write_sse_frame(&mut out, e).expect("encodes");
    }
    out
}

fn proto_body(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        write_frame(e, &mut out).expect("encodes");
    }
    out
}

fn sse_decode(body: &[u8]) -> usize {
    let mut reader = SseReader::new();
    let mut n = 0;
    for chunk in body.chunks(CHUNK) {
        reader.feed(chunk).expect("frames");
        while let Some(text) = reader.next_message() {
            let e: Event = ag_ui_core::read::from_str(&text).expect("decodes");
            black_box(&e);
            n += 1;
        }
    }
    n
}

fn proto_decode(body: &[u8]) -> usize {
    let mut reader = ProtoReader::new();
    let mut n = 0;
    for chunk in body.chunks(CHUNK) {
        reader.push(chunk).expect("frames");
        while let Some(frame) = reader.next_frame().expect("decodes") {
            if let ProtoFrame::Event(e) = frame {
                black_box(&e);
                n += 1;
            }
        }
    }
    reader.finish().expect("complete");
    n
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let rounds = if full { corpus::rounds(21) } else { 1 };
    println!(
        "| corpus | events | SSE bytes | protobuf bytes | encode SSE | encode protobuf | decode SSE | decode protobuf |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for corpus in [
        corpus::streaming(corpus::SEED, EVENTS),
        corpus::token_heavy(corpus::SEED, EVENTS),
    ] {
        let events: Vec<Event> = corpus
            .lines
            .iter()
            .map(|l| ag_ui_core::read::from_str(l).expect("valid"))
            .collect();
        let (sse, proto) = (sse_body(&events), proto_body(&events));
        assert_eq!(sse_decode(&sse), events.len());
        assert_eq!(proto_decode(&proto), events.len());
        let mut times: [Vec<Duration>; 4] = Default::default();
        for round in 0..rounds {
            for i in corpus::round_order(round, 4) {
                let start = Instant::now();
                match i {
                    0 => drop(black_box(sse_body(black_box(&events)))),
                    1 => drop(black_box(proto_body(black_box(&events)))),
                    2 => drop(black_box(sse_decode(black_box(&sse)))),
                    _ => drop(black_box(proto_decode(black_box(&proto)))),
                }
                times[i].push(start.elapsed());
            }
        }
        let per_event =
            |d: Duration| format!("{:.0} ns/event", d.as_nanos() as f64 / events.len() as f64);
        let [a, b, c, d] = times.map(median);
        println!(
            "| {} | {} | {} | {} ({:.0} %) | {} | {} | {} | {} |",
            corpus.name,
            events.len(),
            sse.len(),
            proto.len(),
            100.0 * proto.len() as f64 / sse.len() as f64,
            per_event(a),
            per_event(b),
            per_event(c),
            per_event(d),
        );
    }
}
