//! Throughput of typed AG-UI decoding and encoding against untyped `serde_json::Value`.
//!
//! Runs on the generated corpora of `corpus/mod.rs` (the same lines for every contender).
//! Criterion measures each case with its usual statistics; then a summary times every
//! contender again on the same lines, interleaved round by round (in an order shuffled per
//! round) so that machine noise hits all of them alike, and prints each ratio as the median of the per-round ratios, with their spread.
//!
//! `cargo bench -p ag-ui-core --bench throughput` runs everything;
//! `cargo bench -p ag-ui-core --bench throughput -- summary` prints only the summary.
//! Without `--bench` (as `cargo test --benches` runs it) every case runs once.

mod corpus;

use std::hint::black_box;
use std::time::{Duration, Instant};

use ag_ui_core::{Event, ReadMode, SseReader};
use criterion::{Criterion, Throughput};
use serde_json::Value;

use corpus::Corpus;

/// Events in the streaming and token-heavy corpora.
const STREAMING_EVENTS: usize = 20_000;
/// State snapshots (100–300 KB each) in the large-snapshot corpus.
const LARGE_SNAPSHOTS: usize = 12;
/// Bytes handed to the SSE reader at a time (a typical socket read).
const SSE_CHUNK: usize = 16 * 1024;
/// Summary rounds (the median of these is reported).
const ROUNDS: usize = 21;

/// A corpus with everything the contenders start from, built before timing.
struct Prepared {
    corpus: Corpus,
    bytes: usize,
    events: Vec<Event>,
    values: Vec<Value>,
    sse: Vec<u8>,
}

fn prepare(corpus: Corpus) -> Prepared {
    let mut events = Vec::with_capacity(corpus.lines.len());
    for (i, line) in corpus.lines.iter().enumerate() {
        let decoded = ag_ui_core::read::decode::<Event>(line, ReadMode::Exact);
        assert!(
            decoded.as_ref().is_ok_and(|d| d.warnings.is_empty()),
            "{} line {i} is not exact 1.0: {:?}",
            corpus.name,
            decoded.err()
        );
        events.extend(decoded.ok().map(|d| d.value));
    }
    let values = corpus
        .lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).expect("valid JSON"))
        .collect();
    let mut sse = Vec::new();
    for e in &events {
        ag_ui_core::sse::write_sse_frame(&mut sse, e).expect("encodes");
    }
    Prepared {
        bytes: corpus.bytes(),
        corpus,
        events,
        values,
        sse,
    }
}

// ---------------------------------------------------------------------------
// Contenders: one pass over a whole corpus each
// ---------------------------------------------------------------------------

type Pass = fn(&Prepared, &mut Vec<u8>);

fn decode_value(p: &Prepared, _: &mut Vec<u8>) {
    for line in &p.corpus.lines {
        black_box(serde_json::from_str::<Value>(line).expect("valid"));
    }
}

fn decode_typed(p: &Prepared, _: &mut Vec<u8>) {
    for line in &p.corpus.lines {
        black_box(serde_json::from_str::<Event>(line).expect("valid"));
    }
}

fn decode_forgiving(p: &Prepared, _: &mut Vec<u8>) {
    for line in &p.corpus.lines {
        black_box(ag_ui_core::read::decode::<Event>(line, ReadMode::Forgiving).expect("valid"));
    }
}

fn decode_exact(p: &Prepared, _: &mut Vec<u8>) {
    for line in &p.corpus.lines {
        black_box(ag_ui_core::read::decode::<Event>(line, ReadMode::Exact).expect("valid"));
    }
}

fn encode_value(p: &Prepared, _: &mut Vec<u8>) {
    for v in &p.values {
        black_box(serde_json::to_vec(v).expect("encodes"));
    }
}

fn encode_typed(p: &Prepared, _: &mut Vec<u8>) {
    for e in &p.events {
        black_box(ag_ui_core::write::to_vec(e).expect("encodes"));
    }
}

fn sse_write(p: &Prepared, buf: &mut Vec<u8>) {
    buf.clear();
    for e in &p.events {
        ag_ui_core::sse::write_sse_frame(&mut *buf, e).expect("encodes");
    }
    black_box(&buf);
}

fn sse_read(p: &Prepared, _: &mut Vec<u8>) {
    let mut reader = SseReader::new();
    let mut n = 0;
    for chunk in p.sse.chunks(SSE_CHUNK) {
        reader.feed(chunk).expect("valid SSE");
        while let Some(m) = reader.next_message() {
            black_box(m);
            n += 1;
        }
    }
    assert!(reader.finish().expect("valid SSE").is_none());
    assert_eq!(n, p.events.len());
}

fn sse_read_decode(p: &Prepared, _: &mut Vec<u8>) {
    let mut reader = SseReader::new();
    for chunk in p.sse.chunks(SSE_CHUNK) {
        reader.feed(chunk).expect("valid SSE");
        while let Some(m) = reader.next_message() {
            black_box(ag_ui_core::read::from_str::<Event>(&m).expect("valid"));
        }
    }
}

const CONTENDERS: &[(&str, &str, Pass)] = &[
    ("decode", "value", decode_value),
    ("decode", "typed", decode_typed),
    ("decode", "forgiving", decode_forgiving),
    ("decode", "exact", decode_exact),
    ("encode", "value", encode_value),
    ("encode", "typed", encode_typed),
    ("sse", "write", sse_write),
    ("sse", "read", sse_read),
    ("sse", "read+decode", sse_read_decode),
];

// ---------------------------------------------------------------------------
// Criterion
// ---------------------------------------------------------------------------

fn criterion_benches(c: &mut Criterion, corpora: &[Prepared]) {
    for p in corpora {
        for group_name in ["decode", "encode", "sse"] {
            let mut group = c.benchmark_group(format!("{group_name}/{}", p.corpus.name));
            group.throughput(Throughput::Bytes(p.bytes as u64));
            group.sample_size(15);
            group.warm_up_time(Duration::from_millis(500));
            group.measurement_time(Duration::from_secs(3));
            for (g, name, pass) in CONTENDERS {
                if *g == group_name {
                    let mut buf = Vec::with_capacity(1 << 16);
                    group.bench_function(*name, |b| b.iter(|| pass(p, &mut buf)));
                }
            }
            group.finish();
        }
    }
}

// ---------------------------------------------------------------------------
// Summary: interleaved rounds, medians, ratios
// ---------------------------------------------------------------------------

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort_unstable();
    xs[xs.len() / 2]
}

fn summary(corpora: &[Prepared], rounds: usize) {
    println!();
    println!(
        "== AG-UI throughput summary ({rounds} interleaved rounds: medians; ratios are medians of the per-round ratios, with the lowest and highest round)"
    );
    for p in corpora {
        let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(rounds); CONTENDERS.len()];
        let mut buf = Vec::with_capacity(1 << 16);
        for (_, _, pass) in CONTENDERS {
            pass(p, &mut buf); // warm-up
        }
        for round in 0..rounds {
            for i in corpus::round_order(round, CONTENDERS.len()) {
                let t = Instant::now();
                (CONTENDERS[i].2)(p, &mut buf);
                times[i].push(t.elapsed());
            }
        }
        let med: Vec<Duration> = times.iter().cloned().map(median).collect();
        let at = |g: &str, n: &str| {
            CONTENDERS
                .iter()
                .position(|(cg, cn, _)| *cg == g && *cn == n)
                .expect("known contender")
        };
        let mb = p.bytes as f64 / 1e6;
        println!();
        println!(
            "-- {}: {} events, {:.2} MB of JSON (mean {} B/event)",
            p.corpus.name,
            p.events.len(),
            mb,
            p.bytes / p.events.len()
        );
        for ((g, n, _), t) in CONTENDERS.iter().zip(&med) {
            let secs = t.as_secs_f64();
            println!(
                "   {:<24} {:>9.2} ms {:>8.1} MB/s {:>7.0} ns/event",
                format!("{g}/{n}"),
                secs * 1e3,
                mb / secs,
                secs * 1e9 / p.events.len() as f64
            );
        }
        // Each ratio: the median of the per-round ratios (the two sides ran back to back
        // in each round), with the lowest and highest round.
        let ratio = |slow: (&str, &str), fast: (&str, &str)| {
            let (a, b) = (&times[at(slow.0, slow.1)], &times[at(fast.0, fast.1)]);
            let mut r: Vec<f64> = a
                .iter()
                .zip(b)
                .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
                .collect();
            r.sort_by(f64::total_cmp);
            format!(
                "{:.2}x  ({:.2} – {:.2})",
                r[r.len() / 2],
                r[0],
                r[r.len() - 1]
            )
        };
        let lines = [
            (
                "forgiving decode vs Value",
                ("decode", "value"),
                ("decode", "forgiving"),
            ),
            (
                "typed decode vs Value",
                ("decode", "value"),
                ("decode", "typed"),
            ),
            (
                "typed encode vs Value",
                ("encode", "value"),
                ("encode", "typed"),
            ),
            (
                "forgiving vs plain decode",
                ("decode", "forgiving"),
                ("decode", "typed"),
            ),
            (
                "exact vs plain decode",
                ("decode", "exact"),
                ("decode", "typed"),
            ),
            (
                "SSE write vs typed encode",
                ("sse", "write"),
                ("encode", "typed"),
            ),
            (
                "SSE read+decode vs decode",
                ("sse", "read+decode"),
                ("decode", "forgiving"),
            ),
        ];
        for (label, slow, fast) in lines {
            println!("   {:<30} {}", format!("{label}:"), ratio(slow, fast));
        }
    }
}

fn main() {
    let corpora = [
        prepare(corpus::streaming(corpus::SEED, STREAMING_EVENTS)),
        prepare(corpus::token_heavy(corpus::SEED, STREAMING_EVENTS)),
        prepare(corpus::large_snapshots(corpus::SEED, LARGE_SNAPSHOTS)),
    ];
    if let Ok(name) = std::env::var("AG_UI_BENCH_PROFILE") {
        // For a profiler: one contender, 300 passes over one corpus, nothing printed.
        let (_, _, pass) = CONTENDERS
            .iter()
            .find(|(g, n, _)| format!("{g}/{n}") == name)
            .expect("AG_UI_BENCH_PROFILE names a contender (group/name, as printed)");
        let wanted = std::env::var("AG_UI_BENCH_CORPUS").unwrap_or_else(|_| "streaming".into());
        let p = corpora
            .iter()
            .find(|p| p.corpus.name == wanted)
            .expect("AG_UI_BENCH_CORPUS names a corpus");
        let mut buf = Vec::new();
        for _ in 0..300 {
            pass(p, &mut buf);
        }
        return;
    }
    let full = std::env::args().any(|a| a == "--bench");
    let mut c = Criterion::default().configure_from_args();
    criterion_benches(&mut c, &corpora);
    c.final_summary();
    summary(&corpora, if full { corpus::rounds(ROUNDS) } else { 1 });
}
