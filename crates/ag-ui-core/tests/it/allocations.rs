//! Allocations per delivered token event, the figures of `docs/performance.md`
//! ("Allocations per delivered event"): a run and a stream are opened, 500 deltas warm the
//! buffers up, then the allocations (and reallocations) this thread makes while the
//! consumer reads 2,000 more are divided by the events delivered for them. The counting
//! allocator (`allocation-counter`) counts per thread, so the tests running beside this
//! one do not count.

use ag_ui_core::{Event, StreamConsumer};

/// SSE framing of event lines.
fn sse_lines(lines: &[&str]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|l| format!("data: {l}\n\n").into_bytes())
        .collect()
}

const WARM_UP: usize = 500;
const COUNTED: usize = 2_000;

/// Allocations per delivered event while `consumer` reads `sse` in 16 KiB reads, through
/// `feed_to_thread` or through `feed_into` with one reused vector.
fn per_event(consumer: &mut StreamConsumer, sse: &[u8], to_thread: bool) -> f64 {
    let mut events: Vec<Event> = Vec::with_capacity(1024);
    let mut delivered = 0;
    let info = allocation_counter::measure(|| {
        for chunk in sse.chunks(16 * 1024) {
            if to_thread {
                delivered += consumer.feed_to_thread(chunk).unwrap();
            } else {
                consumer.feed_into(chunk, &mut events).unwrap();
                delivered += events.len();
                events.clear();
            }
        }
    });
    assert!(delivered > 0);
    info.count_total as f64 / delivered as f64
}

/// (`feed_into`, `feed_to_thread`) allocations per event for a stream of `delta` after
/// `open`.
fn token_row(open: &[&str], delta: &str) -> (f64, f64) {
    let start: Vec<&str> = std::iter::once(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#)
        .chain(open.iter().copied())
        .collect();
    let measure = |to_thread: bool| {
        let mut consumer = StreamConsumer::new();
        per_event(&mut consumer, &sse_lines(&start), to_thread);
        per_event(&mut consumer, &sse_lines(&vec![delta; WARM_UP]), to_thread);
        per_event(&mut consumer, &sse_lines(&vec![delta; COUNTED]), to_thread)
    };
    (measure(false), measure(true))
}

/// The counting allocator is this binary's: a test of nothing would pass with zero.
#[test]
fn the_counter_counts() {
    let info = allocation_counter::measure(|| {
        std::hint::black_box(String::from("x"));
    });
    assert_eq!(info.count_total, 1);
}

/// The token rows of the table: at most two allocations per delivered token event through
/// `feed_to_thread` (none for a plain text delta or chunk continuation), and the
/// `feed_into` figures the table gives.
#[test]
fn token_events_cost_what_the_table_says() {
    let id = "msg_7QvXkP2mRt9LbN4wYz8cHs1d";
    let rows = [
        (
            "TEXT_MESSAGE_CONTENT",
            vec![format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}","role":"assistant"}}"#)],
            format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"tok "}}"#),
            (2.0, 0.0),
        ),
        (
            "TEXT_MESSAGE_CONTENT with a timestamp",
            vec![format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}","role":"assistant"}}"#)],
            format!(
                r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"tok ","timestamp":1767225600000}}"#
            ),
            (2.0, 0.0),
        ),
        (
            "TOOL_CALL_ARGS with an escape",
            vec![
                r#"{"type":"TEXT_MESSAGE_START","messageId":"msg_1","role":"assistant"}"#.to_owned(),
                r#"{"type":"TOOL_CALL_START","toolCallId":"call_1","toolCallName":"search","parentMessageId":"msg_1"}"#.to_owned(),
            ],
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"call_1","delta":"{\"q\":"}"#.to_owned(),
            (2.0, 1.0),
        ),
        (
            "TEXT_MESSAGE_CHUNK continuing an open message",
            vec![format!(r#"{{"type":"TEXT_MESSAGE_CHUNK","messageId":"{id}","delta":"a"}}"#)],
            r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"tok "}"#.to_owned(),
            (3.0, 0.0),
        ),
    ];
    for (name, open, delta, (into, to_thread)) in rows {
        let open: Vec<&str> = open.iter().map(String::as_str).collect();
        let (got_into, got_to_thread) = token_row(&open, &delta);
        // Rounded as the table is: what is left of zero is the message's own growth, a few
        // reallocations per thousand deltas.
        let round = |x: f64| (x * 100.0).round() / 100.0;
        assert_eq!(
            (round(got_into), round(got_to_thread)),
            (into, to_thread),
            "{name}: (feed_into, feed_to_thread) = ({got_into}, {got_to_thread})"
        );
        assert!(round(got_to_thread) <= 2.0, "{name}");
    }
}
