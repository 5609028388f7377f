//! Cost of the consumer side: applying one event to a `ThreadState` as the thread grows
//! (it must not grow with it), and the whole `StreamConsumer` (SSE read, decode, expand,
//! verify, apply) against decoding alone on the streaming and token-heavy corpora of
//! `corpus/mod.rs`.
//!
//! Criterion measures each case; then a summary times the contenders again, interleaved
//! round by round so that machine noise hits all of them alike, and prints each one's
//! median and spread (the lowest and highest round) and, for the ratios, the median of the
//! per-round ratios with their spread.
//!
//! `cargo bench -p ag-ui-core --bench consumer` runs everything;
//! `cargo bench -p ag-ui-core --bench consumer -- summary` prints only the summary;
//! `-- summary-consumer` only its consumer tables.
//! Without `--bench` (as `cargo test --benches` runs it) every case runs once.

mod corpus;

use std::hint::black_box;
use std::time::{Duration, Instant};

use ag_ui_core::{
    AssistantMessage, Event, JsonPatchOperation, Message, StateDeltaEvent, StreamConsumer,
    TextMessageContentEvent, ThreadState, ToolCall, ToolCallArgsEvent, UserMessage,
};
use criterion::Criterion;
use serde_json::{Map, Value, json};

/// Events in the streaming corpus.
const STREAMING_EVENTS: usize = 20_000;
/// Bytes handed to the SSE reader at a time (a typical socket read).
const SSE_CHUNK: usize = 16 * 1024;
/// Applications per timed batch in the summary.
const BATCH: usize = 20_000;
/// Summary rounds (the median of these is reported).
const ROUNDS: usize = 15;

/// A thread of `messages` messages (user and assistant turns of about 200 bytes), the last
/// an assistant message holding tool call `c-last`, and a state of `keys` keys.
fn thread(messages: usize, keys: usize) -> ThreadState {
    let text = "The quick brown fox jumps over the lazy dog. ".repeat(4);
    let mut list = Vec::with_capacity(messages);
    for i in 0..messages.saturating_sub(1) {
        list.push(if i % 2 == 0 {
            Message::User(UserMessage::new(format!("m-{i}"), text.as_str()))
        } else {
            Message::Assistant(AssistantMessage::new(format!("m-{i}")).with_content(text.clone()))
        });
    }
    list.push(Message::Assistant(
        AssistantMessage::new("m-last")
            .with_content("")
            .with_tool_calls(vec![ToolCall::function("c-last", "search", "")]),
    ));
    let state: Map<String, Value> = (0..keys)
        .map(|k| (format!("key-{k:05}"), json!({"n": k, "label": "value"})))
        .collect();
    ThreadState::new()
        .with_messages(list)
        .with_state(Value::Object(state))
}

fn text_delta() -> Event {
    TextMessageContentEvent::new("m-last", "tok ").into()
}

fn args_delta() -> Event {
    ToolCallArgsEvent::new("c-last", "{\"q\":").into()
}

/// A 2-op delta on a key in the middle of the state and a counter (the state stays the
/// same size however often it is applied).
fn state_delta(keys: usize) -> Event {
    let key = format!("/key-{:05}/n", keys / 2);
    StateDeltaEvent::new(vec![
        JsonPatchOperation::replace(key, 7),
        JsonPatchOperation::add("/counter", 1),
    ])
    .into()
}

/// The apply cases: (name, messages, state keys, event).
fn apply_cases() -> Vec<(String, usize, usize, Event)> {
    let mut cases = Vec::new();
    for n in [10, 100_000] {
        cases.push((format!("text-content/{n}-messages"), n, 10, text_delta()));
        cases.push((format!("tool-call-args/{n}-messages"), n, 10, args_delta()));
    }
    for (n, keys) in [(10, 10), (10, 10_000), (100_000, 10_000)] {
        cases.push((
            format!("state-delta-2-ops/{n}-messages-{keys}-keys"),
            n,
            keys,
            state_delta(keys),
        ));
    }
    cases
}

type Pass = fn(&[String], &[u8]);

fn decode(lines: &[String], _: &[u8]) {
    for line in lines {
        black_box(ag_ui_core::read::from_str::<Event>(line).expect("valid"));
    }
}

fn sse_read_decode(_: &[String], sse: &[u8]) {
    let mut reader = ag_ui_core::SseReader::new();
    for chunk in sse.chunks(SSE_CHUNK) {
        reader.feed(chunk).expect("valid SSE");
        while let Some(m) = reader.next_data() {
            black_box(ag_ui_core::read::from_str::<Event>(m).expect("valid"));
        }
    }
}

fn pipeline(lines: &[String], _: &[u8]) {
    let mut p = ag_ui_core::EventPipeline::new();
    for line in lines {
        black_box(p.push_text(line).expect("valid stream"));
    }
    black_box(p.finish().expect("complete stream"));
}

fn pipeline_apply(lines: &[String], _: &[u8]) {
    let mut p = ag_ui_core::EventPipeline::new();
    let mut thread = ThreadState::new();
    for line in lines {
        for event in p.push_text(line).expect("valid stream").value {
            black_box(thread.apply_owned(event));
        }
    }
    black_box(p.finish().expect("complete stream"));
    black_box(thread);
}

/// The consumer as a client runs it: the events of each read into one reused vector.
fn consume(_: &[String], sse: &[u8]) {
    let mut consumer = StreamConsumer::new();
    let mut events = Vec::new();
    for chunk in sse.chunks(SSE_CHUNK) {
        consumer
            .feed_into(chunk, &mut events)
            .expect("valid stream");
        black_box(&events);
        events.clear();
    }
    black_box(consumer.finish().expect("complete stream"));
    black_box(consumer.into_thread());
}

/// The consumer reading only the thread: events moved into it, not returned.
fn consume_to_thread(_: &[String], sse: &[u8]) {
    let mut consumer = StreamConsumer::new();
    for chunk in sse.chunks(SSE_CHUNK) {
        black_box(consumer.feed_to_thread(chunk).expect("valid stream"));
    }
    black_box(consumer.finish().expect("complete stream"));
    black_box(consumer.into_thread());
}

/// The consumer through `feed`, which returns a new vector per call.
fn consume_feed(_: &[String], sse: &[u8]) {
    let mut consumer = StreamConsumer::new();
    for chunk in sse.chunks(SSE_CHUNK) {
        black_box(consumer.feed(chunk).expect("valid stream"));
    }
    black_box(consumer.finish().expect("complete stream"));
    black_box(consumer.into_thread());
}

const CONTENDERS: &[(&str, Pass)] = &[
    ("decode (forgiving from_str)", decode),
    ("SSE read (next_data) + decode", sse_read_decode),
    ("pipeline (decode, expand, verify)", pipeline),
    ("pipeline + apply_owned", pipeline_apply),
    ("StreamConsumer::feed_into (SSE to ThreadState)", consume),
    ("StreamConsumer::feed", consume_feed),
    ("StreamConsumer::feed_to_thread", consume_to_thread),
];

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort_unstable();
    xs[xs.len() / 2]
}

fn summary(rounds: usize) {
    println!();
    println!(
        "== ThreadState apply cost ({rounds} interleaved rounds of {BATCH} applications, medians)"
    );
    let cases = apply_cases();
    let mut threads: Vec<ThreadState> = cases.iter().map(|(_, n, k, _)| thread(*n, *k)).collect();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    for round in 0..rounds {
        for i in corpus::round_order(round, cases.len()) {
            let event = &cases[i].3;
            let t = Instant::now();
            for _ in 0..BATCH {
                black_box(threads[i].apply(event));
            }
            times[i].push(t.elapsed());
        }
    }
    let per: Vec<f64> = times
        .into_iter()
        .map(|t| median(t).as_secs_f64() * 1e9 / BATCH as f64)
        .collect();
    for ((name, ..), ns) in cases.iter().zip(&per) {
        println!("   {name:<48} {ns:>8.1} ns/event");
    }
    let find = |name: &str| {
        cases
            .iter()
            .position(|(n, ..)| n == name)
            .map(|i| per[i])
            .unwrap_or(f64::NAN)
    };
    println!(
        "   TEXT_MESSAGE_CONTENT, 100,000 vs 10 messages:  {:.2}x",
        find("text-content/100000-messages") / find("text-content/10-messages")
    );
    println!(
        "   TOOL_CALL_ARGS, 100,000 vs 10 messages:        {:.2}x",
        find("tool-call-args/100000-messages") / find("tool-call-args/10-messages")
    );
    println!(
        "   STATE_DELTA, 10,000 vs 10 keys:                {:.2}x",
        find("state-delta-2-ops/10-messages-10000-keys")
            / find("state-delta-2-ops/10-messages-10-keys")
    );
    println!(
        "   STATE_DELTA, 10,000 keys, 100,000 vs 10 msgs:  {:.2}x",
        find("state-delta-2-ops/100000-messages-10000-keys")
            / find("state-delta-2-ops/10-messages-10000-keys")
    );
}

/// Median and spread (lowest, highest) of `xs`.
fn spread(xs: &[f64]) -> (f64, f64, f64) {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

/// The consumer contenders on one corpus, interleaved round by round.
fn consumer_summary(name: &str, lines: &[String], sse: &[u8], rounds: usize) {
    println!();
    println!(
        "== StreamConsumer vs decoding alone, {name} corpus ({} events, {:.2} MB; {rounds} interleaved rounds)",
        lines.len(),
        lines.iter().map(String::len).sum::<usize>() as f64 / 1e6
    );
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); CONTENDERS.len()];
    for (_, pass) in CONTENDERS {
        pass(lines, sse); // warm-up
    }
    for round in 0..rounds {
        for i in corpus::round_order(round, CONTENDERS.len()) {
            let t = Instant::now();
            (CONTENDERS[i].1)(lines, sse);
            times[i].push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    println!("   {:<48} {:>9} {:>19}", "", "median", "spread");
    for ((name, _), t) in CONTENDERS.iter().zip(&times) {
        let (m, lo, hi) = spread(t);
        println!("   {name:<48} {m:>6.2} ms  ({lo:>6.2} – {hi:>6.2})");
    }
    let ratio = |a: usize, b: usize| {
        let per_round: Vec<f64> = times[a].iter().zip(&times[b]).map(|(x, y)| x / y).collect();
        let (m, lo, hi) = spread(&per_round);
        format!("{m:.2}x  ({lo:.2} – {hi:.2})")
    };
    println!("   consumer (feed_into) vs decode:       {}", ratio(4, 0));
    println!("   consumer (feed) vs decode:            {}", ratio(5, 0));
    println!("   consumer (feed_to_thread) vs decode:  {}", ratio(6, 0));
    println!("   consumer vs SSE read + decode:        {}", ratio(4, 1));
    println!("   pipeline vs decode:                   {}", ratio(2, 0));
    println!("   pipeline + apply_owned vs decode:     {}", ratio(3, 0));
    println!("   SSE read + decode vs decode:          {}", ratio(1, 0));
}

/// A 1 MB `STATE_SNAPSHOT` decoded and applied to a thread holding the previous one: by
/// borrow (the thread copies the state), moved in (`apply_owned`), and through the consumer
/// (`feed_into`, which applies by borrow, and `feed_to_thread`, which moves), interleaved.
fn snapshot_summary(rounds: usize) {
    let line = corpus::state_snapshot(corpus::SEED, 1_000_000);
    let sse = corpus::sse_of([line.as_str()]);
    let started = corpus::sse_of([r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#]);
    type Case = fn(&str, &[u8], &[u8]) -> Duration;
    fn decode_only(line: &str, _: &[u8], _: &[u8]) -> Duration {
        let t = Instant::now();
        black_box(ag_ui_core::read::from_str::<Event>(line).expect("valid"));
        t.elapsed()
    }
    fn borrowed(line: &str, _: &[u8], _: &[u8]) -> Duration {
        let mut thread = ThreadState::new();
        thread.apply_owned(ag_ui_core::read::from_str::<Event>(line).expect("valid"));
        let t = Instant::now();
        let event = ag_ui_core::read::from_str::<Event>(line).expect("valid");
        black_box(thread.apply(&event));
        drop(black_box(event));
        t.elapsed()
    }
    fn owned(line: &str, _: &[u8], _: &[u8]) -> Duration {
        let mut thread = ThreadState::new();
        thread.apply_owned(ag_ui_core::read::from_str::<Event>(line).expect("valid"));
        let t = Instant::now();
        let event = ag_ui_core::read::from_str::<Event>(line).expect("valid");
        black_box(thread.apply_owned(event));
        t.elapsed()
    }
    fn consumer_into(_: &str, sse: &[u8], started: &[u8]) -> Duration {
        let mut consumer = StreamConsumer::new();
        let mut events = Vec::new();
        consumer.feed_into(started, &mut events).expect("valid");
        consumer.feed_into(sse, &mut events).expect("valid");
        events.clear();
        let t = Instant::now();
        consumer.feed_into(sse, &mut events).expect("valid");
        events.clear();
        t.elapsed()
    }
    fn consumer_to_thread(_: &str, sse: &[u8], started: &[u8]) -> Duration {
        let mut consumer = StreamConsumer::new();
        consumer.feed_to_thread(started).expect("valid");
        consumer.feed_to_thread(sse).expect("valid");
        let t = Instant::now();
        black_box(consumer.feed_to_thread(sse).expect("valid"));
        t.elapsed()
    }
    let cases: &[(&str, Case)] = &[
        ("decode alone", decode_only),
        ("decode + apply (by borrow)", borrowed),
        ("decode + apply_owned", owned),
        ("StreamConsumer::feed_into", consumer_into),
        ("StreamConsumer::feed_to_thread", consumer_to_thread),
    ];
    println!();
    println!(
        "== A {:.2} MB STATE_SNAPSHOT decoded and applied over the previous one ({rounds} interleaved rounds)",
        line.len() as f64 / 1e6
    );
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for round in 0..rounds {
        for i in corpus::round_order(round, cases.len()) {
            times[i].push((cases[i].1)(&line, &sse, &started).as_secs_f64() * 1e3);
        }
    }
    for ((name, _), t) in cases.iter().zip(&times) {
        let (m, lo, hi) = spread(t);
        println!("   {name:<48} {m:>6.2} ms  ({lo:>6.2} – {hi:>6.2})");
    }
}

fn criterion_benches(c: &mut Criterion, lines: &[String], sse: &[u8]) {
    let mut group = c.benchmark_group("apply");
    for (name, n, keys, event) in apply_cases() {
        let mut t = thread(n, keys);
        group.bench_function(name, |b| b.iter(|| black_box(t.apply(&event))));
    }
    group.finish();
    let mut group = c.benchmark_group("consumer/streaming");
    group.sample_size(10);
    group.throughput(criterion::Throughput::Bytes(
        lines.iter().map(String::len).sum::<usize>() as u64,
    ));
    for (name, pass) in CONTENDERS {
        group.bench_function(*name, |b| b.iter(|| pass(lines, sse)));
    }
    group.finish();
}

fn main() {
    if let Ok(path) = std::env::var("AG_UI_BENCH_WRITE_SNAPSHOT") {
        // For `scripts/bench-snapshot-then.sh`: the 1 MB snapshot line of the last table,
        // written to a file for a program built against another version of the crate.
        std::fs::write(&path, corpus::state_snapshot(corpus::SEED, 1_000_000))
            .expect("AG_UI_BENCH_WRITE_SNAPSHOT names a writable file");
        return;
    }
    let lines = corpus::streaming(corpus::SEED, STREAMING_EVENTS).lines;
    let sse = corpus::sse_of(lines.iter().map(String::as_str));
    let tokens = corpus::token_heavy(corpus::SEED, STREAMING_EVENTS).lines;
    let token_sse = corpus::sse_of(tokens.iter().map(String::as_str));
    if let Ok(name) = std::env::var("AG_UI_BENCH_PROFILE") {
        // For a profiler: one contender, 200 passes over one corpus, nothing printed.
        let (_, pass) = CONTENDERS
            .iter()
            .find(|(n, _)| n.starts_with(name.as_str()))
            .expect("AG_UI_BENCH_PROFILE starts a contender's name, as printed");
        let corpus = std::env::var("AG_UI_BENCH_CORPUS").unwrap_or_else(|_| "streaming".into());
        assert!(
            ["streaming", "token-heavy"].contains(&corpus.as_str()),
            "AG_UI_BENCH_CORPUS is streaming or token-heavy"
        );
        let (l, s) = if corpus == "token-heavy" {
            (&tokens, &token_sse)
        } else {
            (&lines, &sse)
        };
        for _ in 0..200 {
            pass(l, s);
        }
        return;
    }
    let full = std::env::args().any(|a| a == "--bench");
    let mut c = Criterion::default().configure_from_args();
    criterion_benches(&mut c, &lines, &sse);
    c.final_summary();
    let rounds = if full { corpus::rounds(ROUNDS) } else { 1 };
    // `-- summary-consumer` (a filter no Criterion case matches) skips the apply table.
    if !std::env::args().any(|a| a == "summary-consumer") {
        summary(rounds);
    }
    consumer_summary("streaming", &lines, &sse, rounds);
    consumer_summary("token-heavy", &tokens, &token_sse, rounds);
    snapshot_summary(rounds);
}
