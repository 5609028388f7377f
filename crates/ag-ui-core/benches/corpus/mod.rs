//! A deterministic generator of AG-UI event streams that look like real traffic.
//!
//! Shared by the benchmarks (`benches/throughput.rs`, `benches/memory.rs`) and by the
//! integration test that checks every generated line against the exact reader. No data
//! files: everything comes from a seeded PRNG, so the same seed gives the same bytes on
//! every machine.
//!
//! Three corpora:
//!
//! * [`streaming`]: what an agent run streams. By count it is mostly
//!   `TEXT_MESSAGE_CONTENT` deltas of 1–8 words; around them come reasoning, tool calls
//!   with argument chunks, small state snapshots and JSON Patch deltas, message snapshots
//!   of 20–50 messages with multimodal user content, activity, raw and custom events,
//!   subagents and the three chunk shorthands. All 31 event types appear. Runs alternate
//!   between two producer styles: one writes UTF-8 and epoch-millisecond timestamps, the
//!   other writes no timestamps and escapes every non-ASCII character as `\uXXXX` (as
//!   Python's `json.dumps` does). One line in 64 has its `type` key last.
//! * [`large_snapshots`]: runs dominated by `STATE_SNAPSHOT`s of 100–300 KB.
//! * [`token_heavy`]: what a chat completion streams: runs of text messages and tool calls
//!   with a small state snapshot and an occasional state delta, so that
//!   `TEXT_MESSAGE_CONTENT` and `TOOL_CALL_ARGS` deltas are 85–90 % of the events and of the
//!   bytes (the streaming corpus spends more of its bytes on snapshots, reasoning and rare
//!   event types).
#![allow(
    dead_code,
    reason = "shared by several targets, each of which uses a different part"
)]

use ag_ui_core::{
    ActivityDeltaEvent, ActivityMessage, ActivitySnapshotEvent, AddOperation, AssistantMessage,
    Content, ContentPart, Context, CustomEvent, DeveloperMessage, Event, FunctionCall, Interrupt,
    JsonPatchOperation, JsonPointer, Message, MessagesSnapshotEvent, Metadata, PartSource,
    RawEvent, ReasoningEncryptedValueEvent, ReasoningEncryptedValueSubtype, ReasoningEndEvent,
    ReasoningMessage, ReasoningMessageChunkEvent, ReasoningMessageContentEvent,
    ReasoningMessageEndEvent, ReasoningMessageStartEvent, ReasoningStartEvent, RemoveOperation,
    ReplaceOperation, RunAgentInput, RunErrorEvent, RunFinishedEvent, RunFinishedOutcome,
    RunStartedEvent, StateDeltaEvent, StateSnapshotEvent, StepFinishedEvent, StepStartedEvent,
    SubagentErrorEvent, SubagentFinishedEvent, SubagentFinishedOutcome,
    SubagentFinishedSuccessOutcome, SubagentStartedEvent, SystemMessage, TextMessageChunkEvent,
    TextMessageContentEvent, TextMessageEndEvent, TextMessageRole, TextMessageStartEvent,
    TokenUsage, Tool, ToolCall, ToolCallArgsEvent, ToolCallChunkEvent, ToolCallEndEvent,
    ToolCallResultEvent, ToolCallStartEvent, ToolMessage, UserMessage,
};
use serde_json::{Map, Value, json};

/// The seed every benchmark uses.
pub(crate) const SEED: u64 = 0x5eed_a901;

/// A generated corpus: one JSON document (one event) per line.
pub(crate) struct Corpus {
    /// Short name used in benchmark ids and reports.
    pub(crate) name: &'static str,
    /// The event lines, as a producer would put them in SSE `data:` fields.
    pub(crate) lines: Vec<String>,
}

impl Corpus {
    /// Total JSON bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.lines.iter().map(String::len).sum()
    }
}

/// The streaming corpus: `events` events (a little more: the last run is completed).
pub(crate) fn streaming(seed: u64, events: usize) -> Corpus {
    let mut g = Gen::new(seed);
    let mut lines = Vec::with_capacity(events + 512);
    while lines.len() < events {
        g.run(&mut lines);
    }
    Corpus {
        name: "streaming",
        lines,
    }
}

/// The token-heavy corpus: `events` events (a little more: the last run is completed).
pub(crate) fn token_heavy(seed: u64, events: usize) -> Corpus {
    let mut g = Gen::new(seed);
    let mut lines = Vec::with_capacity(events + 512);
    while lines.len() < events {
        g.token_run(&mut lines);
    }
    Corpus {
        name: "token-heavy",
        lines,
    }
}

/// The number of interleaved rounds a summary runs: `AG_UI_BENCH_ROUNDS` when set (more
/// rounds give steadier medians on a noisy machine), else `default`.
pub(crate) fn rounds(default: usize) -> usize {
    std::env::var("AG_UI_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

/// The order in which round `round` of a summary runs its `n` contenders: a permutation
/// shuffled anew for each round (seeded, so the same on every run). A contender's time
/// depends a little on the one before it (the allocator's state, the caches); a fixed
/// order would give every contender the same neighbour in every round.
pub(crate) fn round_order(round: usize, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = Rng(SEED ^ (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

/// `lines` as one SSE stream: each line the data of one message (`data: …` and a blank
/// line), as an agent server sends them.
pub(crate) fn sse_of<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let mut sse = Vec::new();
    for line in lines {
        sse.extend_from_slice(b"data: ");
        sse.extend_from_slice(line.as_bytes());
        sse.extend_from_slice(b"\n\n");
    }
    sse
}

/// One `STATE_SNAPSHOT` event line of about `bytes` bytes (documents, a numeric table and
/// settings, as in the large-snapshot corpus).
pub(crate) fn state_snapshot(seed: u64, bytes: usize) -> String {
    let mut g = Gen::new(seed);
    let state = g.rng.big_state(bytes);
    ag_ui_core::write::to_string(&Event::from(StateSnapshotEvent::new(state)))
        .expect("generated events encode")
}

/// The large-snapshot corpus: at least `snapshots` state snapshots of 100–300 KB, each in a
/// short run of text deltas and patches.
pub(crate) fn large_snapshots(seed: u64, snapshots: usize) -> Corpus {
    let mut g = Gen::new(seed);
    let mut lines = Vec::new();
    for _ in 0..snapshots {
        g.large_run(&mut lines);
    }
    Corpus {
        name: "large-snapshots",
        lines,
    }
}

// ---------------------------------------------------------------------------
// PRNG (SplitMix64: tiny, fast, and the same everywhere)
// ---------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant here.
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn word(&mut self, words: &[&'static str]) -> &'static str {
        words[self.below(words.len())]
    }

    fn hex(&mut self, n: usize) -> String {
        const HEX: &[u8] = b"0123456789abcdef";
        (0..n).map(|_| HEX[self.below(16)] as char).collect()
    }

    fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..n).map(|_| A[self.below(A.len())] as char).collect()
    }

    fn uuid(&mut self) -> String {
        format!(
            "{}-{}-4{}-a{}-{}",
            self.hex(8),
            self.hex(4),
            self.hex(3),
            self.hex(3),
            self.hex(12)
        )
    }
}

// ---------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------

/// Words for deltas: mostly plain English, with non-ASCII text, emoji and characters that
/// JSON must escape.
const WORDS: &[&str] = &[
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "is",
    "it",
    "for",
    "that",
    "you",
    "with",
    "on",
    "this",
    "can",
    "be",
    "as",
    "are",
    "we",
    "will",
    "your",
    "function",
    "result",
    "value",
    "data",
    "request",
    "agent",
    "model",
    "stream",
    "state",
    "token",
    "query",
    "user",
    "file",
    "table",
    "returns",
    "first",
    "next",
    "because",
    "example",
    "should",
    "update",
    "I'll",
    "let's",
    "check",
    "weather",
    "Paris",
    "report",
    "summary",
    "numbers",
    "42",
    "3.14",
    "2026-05-01",
    "naïve",
    "café",
    "Zürich",
    "façade",
    "日本語",
    "東京",
    "Привет",
    "مرحبا",
    "🚀",
    "✓",
    "→",
    "👍🏽",
    "\"quoted\"",
    "C:\\temp",
    "a\tb",
    "line\nbreak",
    "<b>",
    "&amp;",
    "{x}",
    "50%",
];

/// Lowercase prose words (for state and message bodies).
const PROSE: &[&str] = &[
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "enim",
    "minim",
    "veniam",
    "quis",
    "nostrud",
    "exercitation",
    "ullamco",
    "laboris",
    "nisi",
    "aliquip",
    "ex",
    "ea",
    "commodo",
    "consequat",
    "café",
    "résumé",
    "über",
];

const TOOLS: &[&str] = &[
    "get_weather",
    "search_web",
    "read_file",
    "run_sql",
    "create_ticket",
    "send_email",
];

const STEPS: &[&str] = &["plan", "retrieve", "call_model", "execute_tools", "respond"];

impl Rng {
    fn delta(&mut self) -> String {
        let n = self.range(1, 8);
        let mut s = String::new();
        for i in 0..n {
            if i > 0 || self.chance(80) {
                s.push(' ');
            }
            s.push_str(self.word(WORDS));
        }
        if self.chance(10) {
            s.push_str(self.word(&[".", ",", "!", "?", ":\n\n", ".\n"]));
        }
        s
    }

    fn sentence(&mut self, lo: usize, hi: usize) -> String {
        let n = self.range(lo, hi);
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(self.word(PROSE));
        }
        s.push('.');
        s
    }

    fn paragraph(&mut self, sentences: usize) -> String {
        let mut s = String::new();
        for i in 0..sentences {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&self.sentence(6, 18));
        }
        s
    }

    fn base64(&mut self, bytes: usize) -> String {
        const B: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let n = bytes.div_ceil(3) * 4;
        (0..n).map(|_| B[self.below(64)] as char).collect()
    }
}

// ---------------------------------------------------------------------------
// JSON payloads
// ---------------------------------------------------------------------------

impl Rng {
    fn scalar(&mut self) -> Value {
        match self.below(7) {
            0 => Value::Null,
            1 => Value::Bool(self.chance(50)),
            2 => json!(self.below(100_000)),
            3 => json!(self.below(1_000_000) as f64 / 1000.0),
            4 => json!(self.uuid()),
            _ => json!(self.sentence(1, 6)),
        }
    }

    /// A nested object of roughly `budget` bytes of JSON.
    fn object(&mut self, depth: usize, budget: usize) -> Value {
        let mut m = Map::new();
        let mut used = 2;
        let keys = [
            "items",
            "count",
            "status",
            "owner",
            "tags",
            "config",
            "history",
            "notes",
            "progress",
            "title",
            "filters",
            "selection",
            "draft",
            "cursor",
            "updatedAt",
        ];
        while used < budget {
            let key = format!("{}{}", self.pick(&keys), self.below(50));
            let v = if depth < 3 && self.chance(30) {
                let b = (budget - used).min(self.range(40, 400));
                self.object(depth + 1, b)
            } else if self.chance(20) {
                let n = self.range(1, 6);
                Value::Array((0..n).map(|_| self.scalar()).collect())
            } else {
                self.scalar()
            };
            used += key.len() + 4 + v.to_string().len();
            m.insert(key, v);
        }
        Value::Object(m)
    }

    /// A big, realistic document-style state of at least `target` bytes.
    fn big_state(&mut self, target: usize) -> Value {
        let mut docs = Vec::new();
        let mut rows = Vec::new();
        let mut used = 0;
        while used < target {
            if self.chance(70) {
                let sections: Vec<Value> = (0..self.range(1, 4))
                    .map(|_| {
                        json!({
                            "heading": self.sentence(2, 5),
                            "paragraphs": (0..self.range(1, 3))
                                .map(|_| {
                                    let n = self.range(1, 4);
                                    Value::String(self.paragraph(n))
                                })
                                .collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                let doc = json!({
                    "id": self.uuid(),
                    "title": self.sentence(3, 8),
                    "author": {"name": self.pick(PROSE).to_string(), "id": self.below(10_000)},
                    "tags": (0..self.range(0, 5)).map(|_| self.pick(PROSE).to_string()).collect::<Vec<_>>(),
                    "score": self.below(1_000_000) as f64 / 997.0,
                    "published": self.chance(50),
                    "updatedAt": 1_700_000_000_000_u64 + self.below(100_000_000) as u64,
                    "sections": sections,
                });
                used += doc.to_string().len();
                docs.push(doc);
            } else {
                let row: Vec<Value> = (0..12)
                    .map(|i| {
                        if i % 4 == 0 {
                            json!(self.pick(PROSE))
                        } else {
                            json!(self.below(1_000_000) as f64 / 100.0)
                        }
                    })
                    .collect();
                used += Value::Array(row.clone()).to_string().len();
                rows.push(Value::Array(row));
            }
        }
        json!({
            "documents": docs,
            "table": {"columns": ["name", "q1", "q2", "q3"], "rows": rows},
            "settings": self.object(0, 600),
            "version": self.below(1000),
        })
    }

    fn metadata(&mut self) -> Metadata {
        Metadata::new()
            .with("traceId", self.hex(32))
            .with("spanId", self.hex(16))
    }
}

// ---------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------

struct Gen {
    rng: Rng,
    /// Milliseconds; advances with every event.
    clock: i64,
    /// Events of the run being generated.
    events: Vec<Event>,
    /// The thread of the stream: every run on a stream carries the input's `threadId`.
    thread: Option<String>,
}

fn msg_id(r: &mut Rng) -> String {
    if r.chance(50) {
        r.uuid()
    } else {
        format!("msg_{}", r.alnum(24))
    }
}

fn call_id(r: &mut Rng) -> String {
    format!("call_{}", r.alnum(24))
}

impl Gen {
    fn new(seed: u64) -> Self {
        Gen {
            rng: Rng(seed),
            clock: 1_767_225_600_000,
            events: Vec::new(),
            thread: None,
        }
    }

    fn push(&mut self, e: impl Into<Event>) {
        self.events.push(e.into());
    }

    /// Serializes the current run's events in one producer's style.
    fn flush(&mut self, out: &mut Vec<String>) {
        let python_style = self.rng.chance(30);
        for mut e in std::mem::take(&mut self.events) {
            self.clock += self.rng.range(1, 40) as i64;
            if !python_style {
                e.set_timestamp(Some(self.clock));
            }
            if self.rng.chance(3) {
                e.set_metadata(Some(self.rng.metadata()));
            }
            let mut line = ag_ui_core::write::to_string(&e).expect("generated events encode");
            if python_style {
                line = ascii_escape(&line);
            }
            if self.rng.below(64) == 0 {
                line = type_last(&line);
            }
            out.push(line);
        }
    }

    /// The stream's thread id. A fresh one is drawn for every run all the same, so that the
    /// random sequence (and every other id) does not depend on it.
    fn thread(&mut self) -> String {
        let fresh = format!("thread_{}", self.rng.uuid());
        self.thread.get_or_insert(fresh).clone()
    }

    fn run(&mut self, out: &mut Vec<String>) {
        let thread = self.thread();
        let run = self.rng.uuid();
        let mut started = RunStartedEvent::new(thread.clone(), run.clone());
        if self.rng.chance(30) {
            started = started.with_input(self.input(&thread, &run));
        }
        self.push(started);
        if self.rng.chance(60) {
            let b = self.rng.range(300, 3000);
            let snapshot = self.rng.object(0, b);
            self.push(StateSnapshotEvent::new(snapshot));
        }
        if self.rng.chance(30) {
            let n = self.rng.range(20, 50);
            let messages = self.messages(n);
            self.push(MessagesSnapshotEvent::new(messages));
        }
        let turns = self.rng.range(1, 4);
        for _ in 0..turns {
            let step = self.rng.pick(STEPS).to_string();
            self.push(StepStartedEvent::new(step.clone()));
            if self.rng.chance(25) {
                self.reasoning();
            }
            self.text_message(None);
            for _ in 0..self.rng.range(0, 3) {
                self.tool_call(None);
            }
            if self.rng.chance(40) {
                self.state_delta();
            }
            if self.rng.chance(10) {
                self.activity();
            }
            if self.rng.chance(8) {
                self.raw_and_custom();
            }
            if self.rng.chance(6) {
                self.subagent();
            }
            if self.rng.chance(8) {
                self.chunks();
            }
            self.push(StepFinishedEvent::new(step));
        }
        if self.rng.chance(8) {
            let code = self
                .rng
                .pick(&["rate_limited", "tool_failed", "context_length"]);
            let message = format!("Upstream error: {}", self.rng.sentence(3, 8));
            self.push(RunErrorEvent::new(message).with_code(*code));
        } else {
            let usage = TokenUsage::for_model("openai", "gpt-5")
                .with_input_tokens(self.rng.range(100, 20_000) as u64)
                .with_output_tokens(self.rng.range(10, 4000) as u64);
            let mut fin = RunFinishedEvent::new(thread, run).with_usage(vec![usage]);
            fin = if self.rng.chance(10) {
                let interrupt = Interrupt::new(
                    format!("int_{}", self.rng.alnum(12)),
                    ag_ui_core::REASON_CONFIRMATION,
                )
                .with_message("Approve sending the email?");
                fin.with_outcome(
                    RunFinishedOutcome::interrupt(vec![interrupt]).expect("one interrupt"),
                )
            } else {
                fin.with_outcome(RunFinishedOutcome::success())
                    .with_result(json!({"answer": self.rng.sentence(3, 12)}))
            };
            self.push(fin);
        }
        self.flush(out);
    }

    /// A run of the token-heavy corpus: 1–3 steps of a text message and 0–2 tool calls,
    /// around a small state snapshot; deltas are most of its events.
    fn token_run(&mut self, out: &mut Vec<String>) {
        let thread = self.thread();
        let run = self.rng.uuid();
        self.push(RunStartedEvent::new(thread.clone(), run.clone()));
        let b = self.rng.range(300, 1500);
        let snapshot = self.rng.object(0, b);
        self.push(StateSnapshotEvent::new(snapshot));
        for _ in 0..self.rng.range(1, 3) {
            let step = self.rng.pick(STEPS).to_string();
            self.push(StepStartedEvent::new(step.clone()));
            self.text_message(None);
            for _ in 0..self.rng.range(0, 2) {
                self.tool_call(None);
            }
            if self.rng.chance(30) {
                self.state_delta();
            }
            self.push(StepFinishedEvent::new(step));
        }
        let usage = TokenUsage::for_model("openai", "gpt-5")
            .with_input_tokens(self.rng.range(100, 20_000) as u64)
            .with_output_tokens(self.rng.range(10, 4000) as u64);
        self.push(
            RunFinishedEvent::new(thread, run)
                .with_usage(vec![usage])
                .with_outcome(RunFinishedOutcome::success()),
        );
        self.flush(out);
    }

    fn large_run(&mut self, out: &mut Vec<String>) {
        let thread = self.thread();
        let run = self.rng.uuid();
        self.push(RunStartedEvent::new(thread.clone(), run.clone()));
        let target = self.rng.range(100_000, 300_000);
        let state = self.rng.big_state(target);
        self.push(StateSnapshotEvent::new(state));
        self.text_message(None);
        self.state_delta();
        self.push(RunFinishedEvent::new(thread, run));
        self.flush(out);
    }

    fn input(&mut self, thread: &str, run: &str) -> RunAgentInput {
        let n = self.rng.range(3, 8);
        let messages = self.messages(n);
        let r = &mut self.rng;
        let tools = TOOLS[..r.range(2, 4)]
            .iter()
            .map(|name| {
                Tool::new(*name, r.sentence(4, 10)).with_parameters(json!({
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": r.sentence(3, 6)},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                    },
                    "required": ["query"],
                }))
            })
            .collect::<Vec<_>>();
        let state = r.object(0, 400);
        RunAgentInput::new(thread, run, messages)
            .with_tools(tools)
            .with_context(vec![Context::new("user timezone", "Europe/Paris")])
            .with_state(state)
            .with_forwarded_props(json!({"locale": "fr-FR"}))
    }

    fn messages(&mut self, n: usize) -> Vec<Message> {
        let r = &mut self.rng;
        let mut out: Vec<Message> = vec![SystemMessage::new(msg_id(r), r.paragraph(2)).into()];
        if r.chance(30) {
            out.push(DeveloperMessage::new(msg_id(r), r.sentence(5, 15)).into());
        }
        while out.len() < n {
            match r.below(10) {
                0..=3 => {
                    let content = if r.chance(35) {
                        let mut parts = vec![ContentPart::text(r.sentence(4, 20))];
                        match r.below(4) {
                            0 => {
                                let n = r.range(200, 1500);
                                parts.push(ContentPart::image(PartSource::data(
                                    r.base64(n),
                                    "image/png",
                                )));
                            }
                            1 => parts.push(ContentPart::image(PartSource::url(format!(
                                "https://cdn.example.com/img/{}.jpg",
                                r.hex(16)
                            )))),
                            2 => parts.push(ContentPart::document(PartSource::file(format!(
                                "file-{}",
                                r.alnum(20)
                            )))),
                            _ => {
                                let n = r.range(300, 1200);
                                parts.push(ContentPart::audio(PartSource::data(
                                    r.base64(n),
                                    "audio/wav",
                                )));
                            }
                        }
                        Content::Parts(parts)
                    } else {
                        Content::Text(r.sentence(3, 25))
                    };
                    out.push(UserMessage::new(msg_id(r), content).into());
                }
                4..=6 => {
                    let mut m = AssistantMessage::new(msg_id(r)).with_content(r.paragraph(2));
                    if r.chance(30) {
                        let name = *r.pick(TOOLS);
                        let id = call_id(r);
                        let args = json!({"query": r.sentence(2, 6), "limit": r.range(1, 20)});
                        m = m.with_tool_calls(vec![ToolCall::new(
                            id.clone(),
                            FunctionCall::new(name, args.to_string()),
                        )]);
                        out.push(m.into());
                        out.push(
                            ToolMessage::new(
                                msg_id(r),
                                json!({"ok": true, "rows": r.range(0, 40)}).to_string(),
                                id,
                            )
                            .into(),
                        );
                        continue;
                    }
                    out.push(m.into());
                }
                7 => out.push(ReasoningMessage::new(msg_id(r), r.paragraph(1)).into()),
                8 => {
                    let mut content = Map::new();
                    content.insert("progress".into(), json!(r.below(100)));
                    content.insert("label".into(), json!(r.sentence(2, 4)));
                    out.push(ActivityMessage::new(msg_id(r), "PROGRESS", content).into());
                }
                _ => out.push(
                    AssistantMessage::new(msg_id(r))
                        .with_content(r.sentence(3, 12))
                        .into(),
                ),
            }
        }
        out
    }

    /// A text message of `n` deltas; `sub` attributes it to a subagent.
    fn text_message(&mut self, sub: Option<&str>) {
        let id = msg_id(&mut self.rng);
        let n = self.rng.range(10, 120);
        let attrib = |e: Event| -> Event { with_sub(e, sub) };
        let start = TextMessageStartEvent::new(id.clone()).with_role(TextMessageRole::Assistant);
        self.push(attrib(start.into()));
        for _ in 0..n {
            let delta = self.rng.delta();
            self.push(attrib(
                TextMessageContentEvent::new(id.clone(), delta).into(),
            ));
        }
        self.push(attrib(TextMessageEndEvent::new(id).into()));
    }

    fn tool_call(&mut self, sub: Option<&str>) {
        let r = &mut self.rng;
        let id = call_id(r);
        let name = *r.pick(TOOLS);
        let args = json!({
            "query": r.sentence(2, 8),
            "limit": r.range(1, 50),
            "filters": {"lang": "en", "since": "2025-01-01"},
        })
        .to_string();
        let parent = msg_id(r);
        self.push(with_sub(
            ToolCallStartEvent::new(id.clone(), name)
                .with_parent_message_id(parent)
                .into(),
            sub,
        ));
        let mut rest = args.as_str();
        while !rest.is_empty() {
            let mut cut = rest.len().min(self.rng.range(3, 24));
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            let (chunk, tail) = rest.split_at(cut);
            self.push(with_sub(
                ToolCallArgsEvent::new(id.clone(), chunk).into(),
                sub,
            ));
            rest = tail;
        }
        self.push(with_sub(ToolCallEndEvent::new(id.clone()).into(), sub));
        let r = &mut self.rng;
        let content: Content = if r.chance(80) {
            json!({"ok": true, "items": (0..r.range(0, 4)).map(|_| r.sentence(2, 6)).collect::<Vec<_>>()})
                .to_string()
                .into()
        } else {
            Content::Parts(vec![
                ContentPart::text(r.sentence(3, 10)),
                ContentPart::image(PartSource::url(format!(
                    "https://cdn.example.com/chart/{}.png",
                    r.hex(12)
                ))),
            ])
        };
        let result = ToolCallResultEvent::new(msg_id(r), id, content);
        self.push(with_sub(result.into(), sub));
    }

    fn reasoning(&mut self) {
        let id = msg_id(&mut self.rng);
        self.push(ReasoningStartEvent::new(id.clone()));
        self.push(ReasoningMessageStartEvent::for_message(id.clone()));
        for _ in 0..self.rng.range(5, 40) {
            let d = self.rng.delta();
            self.push(ReasoningMessageContentEvent::new(id.clone(), d));
        }
        self.push(ReasoningMessageEndEvent::new(id.clone()));
        if self.rng.chance(30) {
            let n = self.rng.range(100, 600);
            let blob = self.rng.base64(n);
            self.push(ReasoningEncryptedValueEvent::new(
                ReasoningEncryptedValueSubtype::Message,
                id.clone(),
                blob,
            ));
        }
        self.push(ReasoningEndEvent::new(id));
    }

    fn state_delta(&mut self) {
        let r = &mut self.rng;
        let ops = (0..r.range(1, 5))
            .map(|_| {
                let path = JsonPointer(format!(
                    "/{}/{}",
                    r.pick(&["items", "progress", "draft", "notes"]),
                    r.below(20)
                ));
                match r.below(3) {
                    0 => JsonPatchOperation::Add(AddOperation::new(path, r.scalar())),
                    1 => JsonPatchOperation::Replace(ReplaceOperation::new(path, r.scalar())),
                    _ => JsonPatchOperation::Remove(RemoveOperation::new(path)),
                }
            })
            .collect::<Vec<_>>();
        self.push(StateDeltaEvent::new(ops));
    }

    fn activity(&mut self) {
        let id = msg_id(&mut self.rng);
        let mut content = Map::new();
        content.insert("progress".into(), json!(0));
        content.insert("label".into(), json!(self.rng.sentence(2, 5)));
        self.push(ActivitySnapshotEvent::new(id.clone(), "PROGRESS", content));
        for i in 1..=self.rng.range(1, 3) {
            let op = JsonPatchOperation::Replace(ReplaceOperation::new(
                JsonPointer("/progress".into()),
                json!(i * 30),
            ));
            self.push(ActivityDeltaEvent::new(id.clone(), "PROGRESS", vec![op]));
        }
    }

    fn raw_and_custom(&mut self) {
        let r = &mut self.rng;
        let raw = json!({
            "id": format!("chatcmpl-{}", r.alnum(20)),
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": r.delta()}, "finish_reason": null}],
        });
        let raw_ev = RawEvent::new(raw).with_source("openai");
        let custom = CustomEvent::new(
            "ui.highlight",
            json!({"range": [r.below(100), r.below(100) + 5], "color": "#ffcc00"}),
        );
        self.push(raw_ev);
        self.push(custom);
    }

    fn subagent(&mut self) {
        let sub = format!("sub_{}", self.rng.alnum(16));
        let parent_call = call_id(&mut self.rng);
        self.push(
            SubagentStartedEvent::new(sub.clone(), "researcher")
                .with_description("Finds sources")
                .with_parent_tool_call_id(parent_call),
        );
        self.text_message(Some(&sub));
        if self.rng.chance(50) {
            self.tool_call(Some(&sub));
        }
        if self.rng.chance(25) {
            self.push(SubagentErrorEvent::new(sub, "subagent timed out").with_code("timeout"));
        } else {
            self.push(
                SubagentFinishedEvent::new(sub)
                    .with_outcome(SubagentFinishedOutcome::Success(
                        SubagentFinishedSuccessOutcome::new(),
                    ))
                    .with_result(json!({"sources": 3})),
            );
        }
    }

    fn chunks(&mut self) {
        let id = msg_id(&mut self.rng);
        for i in 0..self.rng.range(3, 12) {
            let mut c = TextMessageChunkEvent::new().with_delta(self.rng.delta());
            if i == 0 {
                c = c
                    .with_message_id(id.clone())
                    .with_role(TextMessageRole::Assistant);
            }
            self.push(c);
        }
        let call = call_id(&mut self.rng);
        for i in 0..self.rng.range(2, 6) {
            let mut c = ToolCallChunkEvent::new().with_delta(format!("{{\"k{i}\":{i}}}"));
            if i == 0 {
                c = c
                    .with_tool_call_id(call.clone())
                    .with_tool_call_name("lookup");
            }
            self.push(c);
        }
        let rid = msg_id(&mut self.rng);
        for i in 0..self.rng.range(2, 6) {
            let mut c = ReasoningMessageChunkEvent::new().with_delta(self.rng.delta());
            if i == 0 {
                c = c.with_message_id(rid.clone());
            }
            self.push(c);
        }
    }
}

fn with_sub(mut e: Event, sub: Option<&str>) -> Event {
    if let Some(sub) = sub {
        let id = ag_ui_core::SubagentRunId::from(sub);
        match &mut e {
            Event::TextMessageStart(x) => x.subagent_run_id = Some(id),
            Event::TextMessageContent(x) => x.subagent_run_id = Some(id),
            Event::TextMessageEnd(x) => x.subagent_run_id = Some(id),
            Event::ToolCallStart(x) => x.subagent_run_id = Some(id),
            Event::ToolCallArgs(x) => x.subagent_run_id = Some(id),
            Event::ToolCallEnd(x) => x.subagent_run_id = Some(id),
            Event::ToolCallResult(x) => x.subagent_run_id = Some(id),
            _ => {}
        }
    }
    e
}

/// Escapes every non-ASCII character as `\uXXXX` (surrogate pairs above the BMP), as
/// Python's `json.dumps` does by default. The input is compact JSON.
fn ascii_escape(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

/// Moves the leading `"type":"…",` member of a compact JSON object to the end.
fn type_last(json: &str) -> String {
    let Some(rest) = json.strip_prefix("{\"type\":\"") else {
        return json.to_owned();
    };
    let Some(end) = rest.find('"') else {
        return json.to_owned();
    };
    let tag = &rest[..end];
    let Some(body) = rest[end + 1..].strip_prefix(',') else {
        return json.to_owned();
    };
    let body = &body[..body.len() - 1];
    format!("{{{body},\"type\":\"{tag}\"}}")
}
