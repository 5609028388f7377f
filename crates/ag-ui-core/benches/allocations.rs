//! Allocations the consumer makes per delivered event.
//!
//! A counting global allocator (`stats_alloc`, this binary only) counts every allocation and reallocation
//! while a `StreamConsumer` reads SSE bytes, two ways: into one reused event vector
//! (`feed_into`, the way a client that hands out events runs it) and into its thread only
//! (`feed_to_thread`). Two measures:
//!
//! * per delivered event, over the whole streaming and token-heavy corpora of
//!   `corpus/mod.rs` (16 KiB reads);
//! * per token event: a run is opened, then the allocations made while 10,000 deltas of one
//!   kind are fed (`TEXT_MESSAGE_CONTENT`, `TOOL_CALL_ARGS`, and `TEXT_MESSAGE_CHUNK`
//!   continuing an open message) are divided by the events delivered for them.
//!
//! `cargo bench -p ag-ui-core --bench allocations` prints the table. Counts, not times: the
//! figures are the same on every run of the same code.

mod corpus;

use corpus::sse_of;

use std::alloc::System;

use ag_ui_core::{Event, StreamConsumer};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Allocations and reallocations so far.
fn allocations() -> usize {
    let stats = ALLOCATOR.stats();
    stats.allocations + stats.reallocations
}

const SSE_CHUNK: usize = 16 * 1024;
const TOKENS: usize = 10_000;

/// Feeds `sse` in 16 KiB reads, through `feed_into` (into one reused vector) or, with
/// `to_thread`, `feed_to_thread`; returns (allocations, events delivered).
fn feed(consumer: &mut StreamConsumer, sse: &[u8], to_thread: bool) -> (usize, usize) {
    let mut events: Vec<Event> = Vec::with_capacity(1024);
    let before = allocations();
    let mut delivered = 0;
    for chunk in sse.chunks(SSE_CHUNK) {
        if to_thread {
            delivered += consumer.feed_to_thread(chunk).expect("valid stream");
        } else {
            consumer
                .feed_into(chunk, &mut events)
                .expect("valid stream");
            delivered += events.len();
            events.clear();
        }
    }
    (allocations() - before, delivered)
}

/// Prints one row: allocations per delivered event through both paths.
fn row(name: &str, mut measure: impl FnMut(bool) -> (usize, usize)) {
    let (into, delivered) = measure(false);
    let (to_thread, again) = measure(true);
    assert_eq!(
        delivered, again,
        "{name}: both paths deliver the same events"
    );
    println!(
        "   {name:<44} {delivered:>7} events: {:>5.2} (feed_into) {:>5.2} (feed_to_thread) per event",
        into as f64 / delivered as f64,
        to_thread as f64 / delivered as f64
    );
}

fn corpus_row(corpus: &corpus::Corpus) {
    let sse = sse_of(corpus.lines.iter().map(String::as_str));
    let name = format!(
        "{} corpus ({} input events)",
        corpus.name,
        corpus.lines.len()
    );
    row(&name, |to_thread| {
        feed(&mut StreamConsumer::new(), &sse, to_thread)
    });
}

fn token_row(name: &str, open: &[&str], delta: &str) {
    let start = sse_of(
        std::iter::once(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#)
            .chain(open.iter().copied()),
    );
    // Warm up: buffers reach their working size before counting.
    let warm = sse_of(std::iter::repeat_n(delta, 1_000));
    let sse = sse_of(std::iter::repeat_n(delta, TOKENS));
    row(name, |to_thread| {
        let mut consumer = StreamConsumer::new();
        feed(&mut consumer, &start, to_thread);
        feed(&mut consumer, &warm, to_thread);
        feed(&mut consumer, &sse, to_thread)
    });
}

fn main() {
    println!();
    println!("== Allocations per delivered event, StreamConsumer, 16 KiB reads");
    corpus_row(&corpus::streaming(corpus::SEED, 20_000));
    corpus_row(&corpus::token_heavy(corpus::SEED, 20_000));
    token_row(
        "TEXT_MESSAGE_CONTENT \"tok \"",
        &[
            r#"{"type":"TEXT_MESSAGE_START","messageId":"msg_7QvXkP2mRt9LbN4wYz8cHs1d","role":"assistant"}"#,
        ],
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_7QvXkP2mRt9LbN4wYz8cHs1d","delta":"tok "}"#,
    );
    token_row(
        "TOOL_CALL_ARGS \"{\\\"q\\\":\"",
        &[
            r#"{"type":"TEXT_MESSAGE_START","messageId":"msg_1","role":"assistant"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"call_Hk3mPq9ZtR2wXb7LcN5vYs8a","toolCallName":"search","parentMessageId":"msg_1"}"#,
        ],
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"call_Hk3mPq9ZtR2wXb7LcN5vYs8a","delta":"{\"q\":"}"#,
    );
    token_row(
        "TEXT_MESSAGE_CHUNK continuing",
        &[
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"msg_7QvXkP2mRt9LbN4wYz8cHs1d","delta":"a"}"#,
        ],
        r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"tok "}"#,
    );
    token_row(
        "TEXT_MESSAGE_CONTENT, 1 ms timestamps",
        &[r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#],
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"tok ","timestamp":1767225600000}"#,
    );
}
