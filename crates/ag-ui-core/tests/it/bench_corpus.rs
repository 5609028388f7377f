//! The benchmark corpora (`benches/corpus`) are what they claim to be: every line is exact
//! AG-UI 1.0, every event type of the table appears, and the traits that make them realistic (type-last
//! lines, `\u` escapes, raw non-ASCII text, large snapshots) are present.

use std::collections::BTreeMap;

use ag_ui_core::{Event, EventType, ReadMode};

#[path = "../../benches/corpus/mod.rs"]
mod corpus;

fn check_exact(c: &corpus::Corpus) -> BTreeMap<EventType, usize> {
    let mut seen = BTreeMap::new();
    for (i, line) in c.lines.iter().enumerate() {
        let decoded = ag_ui_core::read::decode::<Event>(line, ReadMode::Exact)
            .unwrap_or_else(|e| panic!("{} line {i} is not exact: {e}\n{line}", c.name));
        assert!(decoded.warnings.is_empty(), "{} line {i}", c.name);
        // Re-encoding gives the same document.
        let again = ag_ui_core::write::to_string(&decoded.value).unwrap();
        let a: serde_json::Value = serde_json::from_str(line).unwrap();
        let b: serde_json::Value = serde_json::from_str(&again).unwrap();
        assert_eq!(a, b, "{} line {i} does not round-trip", c.name);
        *seen.entry(decoded.value.event_type()).or_insert(0) += 1;
    }
    seen
}

#[test]
fn streaming_corpus_is_exact_and_complete() {
    let c = corpus::streaming(corpus::SEED, 20_000);
    assert!(c.lines.len() >= 20_000);
    let seen = check_exact(&c);
    let missing: Vec<_> = EventType::ALL
        .iter()
        .filter(|t| !seen.contains_key(t))
        .collect();
    assert!(
        missing.is_empty(),
        "event types never generated: {missing:?}"
    );
    // Mostly small text deltas.
    let content = seen[&EventType::TextMessageContent];
    assert!(
        content * 2 > c.lines.len(),
        "{content} of {}",
        c.lines.len()
    );
    assert!(
        c.lines.iter().any(|l| !l.starts_with("{\"type\"")),
        "no type-last line"
    );
    assert!(c.lines.iter().any(|l| l.contains("\\u")), "no \\u escape");
    assert!(
        c.lines.iter().any(|l| !l.is_ascii()),
        "no raw non-ASCII text"
    );
    assert!(
        c.lines
            .iter()
            .any(|l| l.contains("\\n") && l.contains("\\\""))
    );
}

#[test]
fn large_snapshot_corpus_is_exact_and_dominated_by_snapshots() {
    let c = corpus::large_snapshots(corpus::SEED, 3);
    check_exact(&c);
    let snapshots: usize = c
        .lines
        .iter()
        .filter(|l| l.contains("\"STATE_SNAPSHOT\""))
        .map(|l| {
            assert!(l.len() >= 100_000, "a snapshot of {} bytes", l.len());
            l.len()
        })
        .sum();
    assert!(
        snapshots * 10 > c.bytes() * 9,
        "{snapshots} of {}",
        c.bytes()
    );
}

#[test]
fn corpus_is_deterministic() {
    let a = corpus::streaming(7, 2_000);
    let b = corpus::streaming(7, 2_000);
    assert_eq!(a.lines, b.lines);
    assert_ne!(a.lines, corpus::streaming(8, 2_000).lines);
}

/// The consumer benchmark runs the whole receiving pipeline over the corpus: it must pass
/// the verifier and fold without a reducer warning (other than for its JSON Patch deltas,
/// which the generator writes without regard to the state, so some fail and are skipped),
/// or the benchmark would measure an early stop.
#[test]
fn streaming_corpus_is_a_valid_stream_for_the_consumer() {
    let c = corpus::streaming(corpus::SEED, 3_000);
    let sse = corpus::sse_of(c.lines.iter().map(String::as_str));
    let mut consumer = ag_ui_core::StreamConsumer::new();
    for chunk in sse.chunks(16 * 1024) {
        consumer.feed(chunk).unwrap();
    }
    consumer.finish().unwrap();
    let warnings: Vec<_> = consumer
        .take_warnings()
        .into_iter()
        .filter(|w| w.kind != ag_ui_core::WarningKind::PatchFailed)
        .collect();
    assert!(
        warnings.is_empty(),
        "{:?}",
        &warnings[..warnings.len().min(5)]
    );
    assert!(consumer.events_delivered() >= c.lines.len());
    assert!(!consumer.thread().messages().is_empty());
}

/// The token-heavy corpus is exact, about 85 % text and tool-argument deltas, and a valid
/// stream for the consumer (read from the reader's buffer, into one reused vector).
#[test]
fn token_heavy_corpus_is_mostly_deltas_and_a_valid_stream() {
    let c = corpus::token_heavy(corpus::SEED, 5_000);
    let seen = check_exact(&c);
    let deltas = seen.get(&EventType::TextMessageContent).unwrap_or(&0)
        + seen.get(&EventType::ToolCallArgs).unwrap_or(&0);
    let share = deltas as f64 / c.lines.len() as f64;
    assert!((0.80..=0.92).contains(&share), "deltas are {share:.3}");
    let sse = corpus::sse_of(c.lines.iter().map(String::as_str));
    let mut consumer = ag_ui_core::StreamConsumer::new();
    let mut events = Vec::new();
    let mut delivered = 0;
    for chunk in sse.chunks(4096) {
        consumer.feed_into(chunk, &mut events).unwrap();
        delivered += events.len();
        events.clear();
    }
    delivered += consumer.finish().unwrap().len();
    assert_eq!(delivered, consumer.events_delivered());
    assert_eq!(delivered, c.lines.len());
    let warnings: Vec<_> = consumer
        .take_warnings()
        .into_iter()
        .filter(|w| w.kind != ag_ui_core::WarningKind::PatchFailed)
        .collect();
    assert!(
        warnings.is_empty(),
        "{:?}",
        &warnings[..warnings.len().min(5)]
    );
}

/// The consumer benchmark's fastest path, `feed_to_thread` (which reads plain text deltas
/// in place), leaves the same thread, warnings and count as `feed` on both corpora.
#[test]
fn feed_to_thread_ends_as_feed_on_both_corpora() {
    for c in [
        corpus::streaming(corpus::SEED, 3_000),
        corpus::token_heavy(corpus::SEED, 3_000),
    ] {
        let sse = corpus::sse_of(c.lines.iter().map(String::as_str));
        let mut full = ag_ui_core::StreamConsumer::new();
        let mut fast = ag_ui_core::StreamConsumer::new();
        for chunk in sse.chunks(16 * 1024) {
            let delivered = full.feed(chunk).unwrap().len();
            assert_eq!(fast.feed_to_thread(chunk).unwrap(), delivered, "{}", c.name);
        }
        assert_eq!(full.finish().unwrap().len(), fast.finish().unwrap().len());
        assert_eq!(full.events_delivered(), fast.events_delivered());
        assert_eq!(
            serde_json::to_value(full.thread().messages()).unwrap(),
            serde_json::to_value(fast.thread().messages()).unwrap(),
            "{}",
            c.name
        );
        assert_eq!(full.thread().state(), fast.thread().state(), "{}", c.name);
        assert_eq!(full.take_warnings(), fast.take_warnings(), "{}", c.name);
    }
}
