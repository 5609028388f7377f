//! One 9 MiB SSE line (a `STATE_SNAPSHOT`, as a server sends a large state) fed whole, in
//! 1460-byte reads (a TCP segment) and one byte at a time (a server dripping it, slowly or
//! to pin the client's CPU): `SseReader` alone, and `StreamConsumer::feed_to_thread` (read,
//! decode, apply), which is what a client does with the line.
//!
//! Criterion measures each case; then a summary times the contenders again, interleaved
//! round by round in an order shuffled anew each round, and prints each one's median and
//! spread and, for the ratios of each way of cutting to the line fed whole, the median of
//! the per-round ratios with their spread.
//!
//! `cargo bench -p ag-ui-core --bench sse_cuts` runs everything;
//! `cargo bench -p ag-ui-core --bench sse_cuts -- summary` prints only the summary.
//! `AG_UI_BENCH_ROUNDS` sets the number of rounds (11 unless it says otherwise).
//! Without `--bench` (as `cargo test --benches` runs it) every case runs once on a 64 KiB
//! line.

mod corpus;

use std::hint::black_box;
use std::time::Instant;

use ag_ui_core::{SseReader, StreamConsumer};
use criterion::Criterion;

/// The size of the line of the benchmark.
const LINE: usize = 9 << 20;
/// Bytes per read of the "TCP" contenders (the payload of an Ethernet-sized segment).
const TCP: usize = 1460;
/// Summary rounds (the median of these is reported).
const ROUNDS: usize = 11;

/// Feeds `sse` to a new reader in reads of `read` bytes, taking the message out.
fn reader(sse: &[u8], read: usize) {
    let mut r = SseReader::new();
    let mut bytes = 0;
    for chunk in sse.chunks(read) {
        r.feed(chunk).expect("valid SSE");
        while let Some(m) = r.next_data() {
            bytes += m.len();
        }
    }
    assert!(bytes + 8 >= sse.len(), "the line was read");
    black_box(r);
}

/// Feeds `started` (a `RUN_STARTED`) then `sse` to a new consumer in reads of `read`
/// bytes: the snapshot is read, decoded and applied to its thread.
fn consumer(started: &[u8], sse: &[u8], read: usize) {
    let mut c = StreamConsumer::new();
    c.feed_to_thread(started).expect("valid");
    let mut delivered = 0;
    for chunk in sse.chunks(read) {
        delivered += c.feed_to_thread(chunk).expect("valid stream");
    }
    assert_eq!(delivered, 1, "the snapshot was applied");
    black_box(c.into_thread());
}

type Case = fn(&[u8], &[u8]);

const CASES: &[(&str, Case)] = &[
    ("SseReader, whole", |_, s| reader(s, usize::MAX)),
    ("SseReader, 1460-byte reads", |_, s| reader(s, TCP)),
    ("SseReader, one byte a read", |_, s| reader(s, 1)),
    ("StreamConsumer::feed_to_thread, whole", |r, s| {
        consumer(r, s, usize::MAX);
    }),
    ("StreamConsumer::feed_to_thread, 1460-byte reads", |r, s| {
        consumer(r, s, TCP);
    }),
    ("StreamConsumer::feed_to_thread, one byte a read", |r, s| {
        consumer(r, s, 1);
    }),
];

/// Median and spread (lowest, highest) of `xs`.
fn spread(xs: &[f64]) -> (f64, f64, f64) {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn summary(started: &[u8], sse: &[u8], rounds: usize) {
    println!();
    println!(
        "== One {:.2} MB SSE line ({} bytes) fed whole, in {TCP}-byte reads and one byte a read ({rounds} interleaved rounds)",
        sse.len() as f64 / 1e6,
        sse.len()
    );
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); CASES.len()];
    for (_, case) in CASES {
        case(started, sse); // warm-up
    }
    for round in 0..rounds {
        for i in corpus::round_order(round, CASES.len()) {
            let t = Instant::now();
            (CASES[i].1)(started, sse);
            times[i].push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    println!("   {:<50} {:>9} {:>21}", "", "median", "spread");
    for ((name, _), t) in CASES.iter().zip(&times) {
        let (m, lo, hi) = spread(t);
        println!("   {name:<50} {m:>6.2} ms  ({lo:>7.2} – {hi:>7.2})");
    }
    let ratio = |a: usize, b: usize| {
        let per_round: Vec<f64> = times[a].iter().zip(&times[b]).map(|(x, y)| x / y).collect();
        let (m, lo, hi) = spread(&per_round);
        format!("{m:.2}x  ({lo:.2} – {hi:.2})")
    };
    println!(
        "   SseReader, 1460-byte reads vs whole:        {}",
        ratio(1, 0)
    );
    println!(
        "   SseReader, one byte a read vs whole:        {}",
        ratio(2, 0)
    );
    println!(
        "   consumer, 1460-byte reads vs whole:         {}",
        ratio(4, 3)
    );
    println!(
        "   consumer, one byte a read vs whole:         {}",
        ratio(5, 3)
    );
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let line = corpus::state_snapshot(corpus::SEED, if full { LINE } else { 64 << 10 });
    let sse = corpus::sse_of([line.as_str()]);
    let started = corpus::sse_of([r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#]);
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("sse_cuts");
    group.sample_size(10);
    group.throughput(criterion::Throughput::Bytes(sse.len() as u64));
    for (name, case) in CASES {
        group.bench_function(*name, |b| b.iter(|| case(&started, &sse)));
    }
    group.finish();
    c.final_summary();
    summary(
        &started,
        &sse,
        if full { corpus::rounds(ROUNDS) } else { 1 },
    );
}
