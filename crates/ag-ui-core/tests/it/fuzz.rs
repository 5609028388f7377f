//! A mutation fuzzer on the stable toolchain, driven by `cargo test`.
//!
//! It takes every fixture document, mutates it (structurally: dropped, duplicated and
//! renamed keys, swapped types, inserted nulls, deep nesting, changed tags, boundary
//! numbers; and as bytes: truncation, bit flips, inserted and deleted bytes), and reads the
//! result every way the crate offers. Nothing may panic, every error must name where and
//! what, and whatever is accepted must re-encode to an exact document of the same value.
//! The SSE reader is fed streams of such documents split at random chunk boundaries and
//! must yield the same messages whatever the split.
//!
//! Deterministic: `AG_UI_FUZZ_SEED` (default below) and `AG_UI_FUZZ_ITERS` (default sized
//! for CI) choose the run; see `docs/robustness.md`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ag_ui_core::read::{decode_slice, from_slice, from_str};
use ag_ui_core::sse::to_sse_frame;
use ag_ui_core::write::to_string;
use ag_ui_core::*;
use serde_json::{Map, Value};

use crate::contract::error_explains_itself;
use crate::props::read_every_way;

const DEFAULT_SEED: u64 = 0x00A6_0151_2025_0001;
const DEFAULT_ITERS: u64 = 3_000;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => {
            let v = v.trim();
            let parsed = match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => v.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("{name}={v:?} is not a number"))
        }
        Err(_) => default,
    }
}

/// SplitMix64: tiny, fast, and the same sequence on every platform.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

// ---------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, at: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    out.push(at.clone());
    match v {
        Value::Array(items) => {
            for (i, c) in items.iter().enumerate() {
                at.push(Seg::Index(i));
                paths(c, at, out);
                at.pop();
            }
        }
        Value::Object(map) => {
            for (k, c) in map {
                at.push(Seg::Key(k.clone()));
                paths(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn node_mut<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    let mut cur = v;
    for seg in path {
        cur = match (seg, cur) {
            (Seg::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Seg::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

const ODD_KEYS: &[&str] = &[
    "__proto__",
    "constructor",
    "prototype",
    "",
    "a/b~c",
    "TYPE",
    "type ",
    "\u{0}",
    "\u{feff}type",
    "hasOwnProperty",
];

fn swap_value(rng: &mut Rng) -> Value {
    let pool = [
        Value::Null,
        Value::Bool(true),
        Value::from(0),
        Value::from(-1),
        Value::from(1.5),
        Value::from(1000.0),
        Value::from(MAX_SAFE_INTEGER),
        Value::from(MAX_SAFE_INTEGER + 1),
        Value::from(-MAX_SAFE_INTEGER - 1),
        Value::from(u64::MAX),
        Value::from(i64::MIN),
        Value::from(1.8446744073709552e19),
        Value::from(1e308),
        Value::from(""),
        Value::from("x"),
        Value::from("\u{0}\u{1f}\"\\😀\u{2028}"),
        Value::Array(vec![]),
        Value::Object(Map::new()),
        Value::from(*rng.pick(EventType::WIRE_NAMES)),
        Value::from(*rng.pick(Role::WIRE_NAMES)),
        Value::from("THINKING_START"),
        Value::from("/a/~0/~1"),
        Value::from("~2"),
    ];
    pool[rng.below(pool.len())].clone()
}

/// A structural mutation of `doc`, rendered as text. Some mutations (duplicate keys, very
/// deep nesting) cannot be held by a `Value` and are made while rendering.
fn mutate_structure(doc: &Value, rng: &mut Rng) -> String {
    let mut v = doc.clone();
    let mut all = Vec::new();
    paths(&v, &mut Vec::new(), &mut all);
    let path = rng.pick(&all).clone();
    let Some(node) = node_mut(&mut v, &path) else {
        return v.to_string();
    };
    const MARK: &str = "\u{0}\u{1}mutation-mark";
    let mut replace_mark: Option<String> = None;
    match rng.below(12) {
        // Drop a key.
        0 => {
            if let Value::Object(m) = node
                && !m.is_empty()
            {
                let k = m
                    .keys()
                    .nth(rng.below(m.len()))
                    .cloned()
                    .unwrap_or_default();
                m.remove(&k);
            } else {
                *node = Value::Null;
            }
        }
        // Duplicate a key, with the same or another value (rendered by hand).
        1 => {
            if let Value::Object(m) = node
                && !m.is_empty()
            {
                let k = m
                    .keys()
                    .nth(rng.below(m.len()))
                    .cloned()
                    .unwrap_or_default();
                let first = m.get(&k).cloned().unwrap_or_default();
                let second = if rng.chance(2) {
                    first.clone()
                } else {
                    swap_value(rng)
                };
                let dup_key = Value::from(k.clone()).to_string();
                let rendered = format!("{dup_key}:{first},{dup_key}:{second}");
                m.remove(&k);
                let rest = Value::Object(std::mem::take(m)).to_string();
                let inner = rest.trim_start_matches('{').trim_end_matches('}');
                let text = if inner.is_empty() {
                    format!("{{{rendered}}}")
                } else if rng.chance(2) {
                    format!("{{{rendered},{inner}}}")
                } else {
                    format!("{{{inner},{rendered}}}")
                };
                *node = Value::from(MARK);
                replace_mark = Some(text);
            }
        }
        // Swap the type (or value) of a member.
        2 | 3 => *node = swap_value(rng),
        // Insert a null.
        4 => match node {
            Value::Object(m) if rng.chance(2) => {
                let key = if m.is_empty() || rng.chance(2) {
                    (*rng.pick(crate::props::WIRE_KEYS)).to_owned()
                } else {
                    m.keys()
                        .nth(rng.below(m.len()))
                        .cloned()
                        .unwrap_or_default()
                };
                m.insert(key, Value::Null);
            }
            _ => *node = Value::Null,
        },
        // Nest deeply.
        5 => {
            let depth = *rng.pick(&[8_usize, 126, 127, 128, 129, 1_000, 100_000]);
            let inner = node.to_string();
            let text = if rng.chance(2) {
                format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
            } else {
                format!("{}{inner}{}", "{\"a\":".repeat(depth), "}".repeat(depth))
            };
            *node = Value::from(MARK);
            replace_mark = Some(text);
        }
        // Rename a key: to another known key, or to an odd one.
        6 => {
            if let Value::Object(m) = node
                && !m.is_empty()
            {
                let k = m
                    .keys()
                    .nth(rng.below(m.len()))
                    .cloned()
                    .unwrap_or_default();
                let to = if rng.chance(2) {
                    *rng.pick(crate::props::WIRE_KEYS)
                } else {
                    *rng.pick(ODD_KEYS)
                };
                if let Some(val) = m.remove(&k) {
                    m.insert(to.to_owned(), val);
                }
            }
        }
        // Change a tag.
        7 => {
            if let Value::Object(m) = node {
                for key in ["type", "role", "op"] {
                    if let Some(t) = m.get_mut(key) {
                        *t = swap_value(rng);
                        if rng.chance(2) {
                            *t = Value::from(*rng.pick(EventType::WIRE_NAMES));
                        }
                        break;
                    }
                }
            }
        }
        // Add an unknown member.
        8 => {
            if let Value::Object(m) = node {
                m.insert((*rng.pick(ODD_KEYS)).to_owned(), swap_value(rng));
            }
        }
        // Arrays: drop, duplicate or empty.
        9 => {
            if let Value::Array(a) = node {
                match (a.is_empty(), rng.below(3)) {
                    (false, 0) => {
                        a.remove(rng.below(a.len()));
                    }
                    (false, 1) => {
                        let e = a[rng.below(a.len())].clone();
                        a.push(e);
                    }
                    _ => a.clear(),
                }
            } else {
                *node = Value::Array(vec![node.clone()]);
            }
        }
        // Wrap in an object or unwrap.
        10 => {
            let inner = node.take();
            *node = if rng.chance(2) {
                Value::Object([("value".to_owned(), inner)].into_iter().collect())
            } else {
                Value::from(inner.to_string())
            };
        }
        // A float where an integer goes, or an integer beyond every bound.
        _ => {
            let pool = [
                "1.5",
                "1e3",
                "-0.0",
                "9007199254740992",
                "18446744073709551616",
                "-9223372036854775809",
                "1e400",
                "123456789012345678901234567890",
            ];
            *node = Value::from(MARK);
            replace_mark = Some((*rng.pick(&pool)).to_owned());
        }
    }
    let text = v.to_string();
    match replace_mark {
        Some(r) => text.replacen(&Value::from(MARK).to_string(), &r, 1),
        None => text,
    }
}

/// A byte-level mutation of `text`.
fn mutate_bytes(text: &str, rng: &mut Rng) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    let len = b.len().max(1);
    match rng.below(7) {
        0 => b.truncate(rng.below(len)),
        1 => {
            if !b.is_empty() {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
        }
        2 => {
            let noise: &[&[u8]] = &[
                b"{",
                b"}",
                b"[",
                b"]",
                b",",
                b":",
                b"\"",
                b"\\",
                b"\0",
                b"\xff",
                b"\xc3",
                b"\n",
                b"\r",
                b"\\ud800",
                b"\\udc00",
                b"\xef\xbb\xbf",
                b"null",
                b"1e999",
            ];
            let at = rng.below(len);
            let n = *rng.pick(noise);
            b.splice(at.min(b.len())..at.min(b.len()), n.iter().copied());
        }
        3 => {
            let at = rng.below(len).min(b.len());
            let end = (at + rng.below(16)).min(b.len());
            b.drain(at..end);
        }
        4 => {
            let at = rng.below(len).min(b.len());
            let end = (at + rng.below(32)).min(b.len());
            let copy = b[at..end].to_vec();
            b.splice(at..at, copy);
        }
        5 => {
            // Break an escape or a string into a lone surrogate.
            if let Some(i) = text.find('"') {
                b.splice(i + 1..i + 1, b"\\ud83d".iter().copied());
            }
        }
        _ => {
            let i = rng.below(len).min(b.len());
            b.insert(i, u8::try_from(rng.below(256)).unwrap_or(0));
        }
    }
    b
}

// ---------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------

fn read_bytes(bytes: &[u8]) -> Result<(), String> {
    let _ = from_slice::<Event>(bytes);
    let _ = decode_slice::<RunAgentInput>(bytes, ReadMode::Exact);
    let _ = decode_slice::<Message>(bytes, ReadMode::Forgiving);
    match std::str::from_utf8(bytes) {
        Ok(text) => read_every_way(text),
        Err(_) => match from_slice::<Event>(bytes) {
            Ok(_) => Err("invalid UTF-8 accepted".to_owned()),
            Err(e) => error_explains_itself("", &e).or(Ok(())),
        },
    }
}

/// Every message of an SSE stream, fed in one piece.
fn sse_messages(stream: &[u8]) -> Result<Vec<String>, String> {
    let mut r = SseReader::new();
    r.feed(stream).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(m) = r.next_message() {
        out.push(m);
    }
    if let Some(m) = r.finish().map_err(|e| e.to_string())? {
        out.push(m);
    }
    Ok(out)
}

/// Builds an SSE stream of `docs` with random line ends, comments and fields, checks that
/// it yields `docs` whole and split at random boundaries.
fn sse_split(docs: &[String], rng: &mut Rng) -> Result<(), String> {
    let mut stream = Vec::new();
    // A leading byte order mark is removed by the reader (WHATWG), whole or split.
    if rng.chance(4) {
        stream.extend_from_slice(b"\xef\xbb\xbf");
    }
    let ends: [&[u8]; 3] = [b"\n", b"\r\n", b"\r"];
    for d in docs {
        let eol = *rng.pick(&ends);
        if rng.chance(4) {
            stream.extend_from_slice(b": keep-alive");
            stream.extend_from_slice(eol);
        }
        if rng.chance(4) {
            stream.extend_from_slice(b"event: message");
            stream.extend_from_slice(eol);
        }
        stream.extend_from_slice(if rng.chance(3) { b"data:" } else { b"data: " });
        stream.extend_from_slice(d.as_bytes());
        stream.extend_from_slice(eol);
        stream.extend_from_slice(eol);
    }
    let whole = sse_messages(&stream)?;
    if whole != docs {
        return Err(format!("SSE stream yielded {whole:?}, expected {docs:?}"));
    }
    let mut r = SseReader::new();
    let mut got = Vec::new();
    let mut rest: &[u8] = &stream;
    while !rest.is_empty() {
        let small = rng.chance(2);
        let n = 1 + rng.below(rest.len().min(if small { 4 } else { 64 }));
        let (chunk, tail) = rest.split_at(n);
        r.feed(chunk).map_err(|e| e.to_string())?;
        while let Some(m) = r.next_message() {
            got.push(m);
        }
        rest = tail;
    }
    if let Some(m) = r.finish().map_err(|e| e.to_string())? {
        got.push(m);
    }
    if got != whole {
        return Err(format!(
            "split stream yielded {got:?}, whole stream {whole:?}"
        ));
    }
    for m in &got {
        read_every_way(m)?;
    }
    Ok(())
}

/// The fixture documents, as parsed values and as stored text.
fn corpus() -> Vec<(Value, String)> {
    let cases = ag_ui_fixtures::load_cases().unwrap();
    let mut docs: Vec<(Value, String)> = cases
        .into_iter()
        .map(|c| {
            let text = if c.text.is_empty() {
                c.input.to_string()
            } else {
                c.text.clone()
            };
            (c.input, text)
        })
        .collect();
    docs.sort_by(|a, b| a.1.cmp(&b.1));
    docs.dedup_by(|a, b| a.1 == b.1);
    docs
}

#[test]
fn mutation_fuzz_over_the_fixtures() {
    let seed = env_u64("AG_UI_FUZZ_SEED", DEFAULT_SEED);
    let iters = env_u64("AG_UI_FUZZ_ITERS", DEFAULT_ITERS);
    let docs = corpus();
    assert!(docs.len() > 100, "fixture corpus too small: {}", docs.len());
    let mut rng = Rng::new(seed);
    let mut accepted = 0_u64;
    for i in 0..iters {
        let (value, text) = rng.pick(&docs).clone();
        let mut mutated: Vec<u8> = if rng.chance(3) {
            mutate_bytes(&text, &mut rng)
        } else {
            mutate_structure(&value, &mut rng).into_bytes()
        };
        // Stack a second mutation now and then.
        if rng.chance(4) {
            let again = match String::from_utf8(mutated.clone()) {
                Ok(t) => match serde_json::from_str::<Value>(&t) {
                    Ok(v) => mutate_structure(&v, &mut rng).into_bytes(),
                    Err(_) => mutate_bytes(&t, &mut rng),
                },
                Err(_) => mutated.clone(),
            };
            mutated = again;
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| read_bytes(&mutated)));
        let shown = String::from_utf8_lossy(&mutated);
        let shown: String = shown.chars().take(600).collect();
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(why)) => {
                panic!("fuzz iteration {i} (AG_UI_FUZZ_SEED={seed:#x}): {why}\n  input: {shown}")
            }
            Err(_) => {
                panic!("fuzz iteration {i} (AG_UI_FUZZ_SEED={seed:#x}) panicked\n  input: {shown}")
            }
        }
        if from_slice::<Event>(&mutated).is_ok() {
            accepted += 1;
        }
        // Every 16th iteration: an SSE stream of accepted documents, split at random.
        if i % 16 == 0 {
            let n = 1 + rng.below(4);
            let stream: Vec<String> = (0..n)
                .map(|_| {
                    let (v, _) = rng.pick(&docs);
                    let t = mutate_structure(v, &mut rng);
                    // SSE carries one line per data field: keep documents on one line.
                    if t.contains(['\n', '\r']) {
                        v.to_string()
                    } else {
                        t
                    }
                })
                .collect();
            if let Err(why) = sse_split(&stream, &mut rng) {
                panic!("fuzz iteration {i} (AG_UI_FUZZ_SEED={seed:#x}), SSE: {why}");
            }
        }
    }
    // The mutations must leave some documents valid, or the fuzzer only tests rejection.
    assert!(
        iters < 200 || accepted * 20 > iters,
        "only {accepted} of {iters} mutated documents were accepted"
    );
}

#[test]
fn raw_sse_bytes_never_panic_and_split_does_not_matter() {
    let mut rng = Rng::new(env_u64("AG_UI_FUZZ_SEED", DEFAULT_SEED) ^ 0x55E);
    let iters = env_u64("AG_UI_FUZZ_ITERS", DEFAULT_ITERS) / 4;
    let alphabet: &[&[u8]] = &[
        b"data",
        b"data:",
        b"data: ",
        b":",
        b"\n",
        b"\r",
        b"\r\n",
        b"event: x",
        b"id: 1",
        b"{\"type\":\"RUN_ERROR\",\"message\":\"m\"}",
        b"\xff",
        b"\xc3\xa9",
        b"\xf0\x9f",
        b"\x98\x80",
        b" ",
        b"x",
        b"\xef\xbb\xbf",
        b"\xef\xbb",
    ];
    for i in 0..iters {
        let mut stream = Vec::new();
        // A byte order mark (whole or in part) opens the stream now and then.
        if rng.chance(3) {
            let bom: &[u8] = b"\xef\xbb\xbf";
            stream.extend_from_slice(&bom[..1 + rng.below(3)]);
        }
        for _ in 0..rng.below(24) {
            let piece: &&[u8] = rng.pick(alphabet);
            stream.extend_from_slice(piece);
        }
        let cap = if rng.chance(3) {
            1 + rng.below(40)
        } else {
            1 << 20
        };
        let run = |chunks: &mut dyn Iterator<Item = &[u8]>| -> (Vec<String>, Option<String>) {
            let mut r = SseReader::with_max_frame_bytes(cap);
            let mut out = Vec::new();
            let mut error = None;
            for c in chunks {
                if let Err(e) = r.feed(c) {
                    error = Some(e.to_string());
                    break;
                }
                while let Some(m) = r.next_message() {
                    out.push(m);
                }
            }
            if error.is_none() {
                match r.finish() {
                    Ok(m) => out.extend(m),
                    Err(e) => error = Some(e.to_string()),
                }
            }
            // Messages completed before an error stay available.
            while let Some(m) = r.next_message() {
                out.push(m);
            }
            (out, error)
        };
        let whole = catch_unwind(AssertUnwindSafe(|| run(&mut std::iter::once(&stream[..]))));
        let split_at: Vec<usize> = {
            let mut v: Vec<usize> = (0..rng.below(6))
                .map(|_| rng.below(stream.len().max(1)))
                .collect();
            v.sort_unstable();
            v
        };
        let split = catch_unwind(AssertUnwindSafe(|| {
            let mut pieces = Vec::new();
            let mut last = 0;
            for &at in &split_at {
                pieces.push(&stream[last..at.max(last)]);
                last = at.max(last);
            }
            pieces.push(&stream[last..]);
            run(&mut pieces.into_iter())
        }));
        let shown = String::from_utf8_lossy(&stream).into_owned();
        let (Ok(whole), Ok(split)) = (whole, split) else {
            panic!("SSE fuzz iteration {i} panicked on {shown:?}");
        };
        // The split never matters: the same messages, the same error at the same offset.
        assert_eq!(
            whole, split,
            "SSE fuzz iteration {i}: split {split_at:?} of {shown:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// The writer: deep and wide values
// ---------------------------------------------------------------------------

/// A value placed in a document: how deep the place is, what the writer made of the
/// document, and whether a text reads back as the same document.
type Placed = (
    usize,
    &'static str,
    Result<String, Error>,
    Box<dyn Fn(&str) -> bool>,
);

/// Levels of arrays and objects in `v` (0 for a scalar), counted without recursion.
fn depth_of(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 0_usize)];
    while let Some((v, d)) = stack.pop() {
        let children: Vec<&Value> = match v {
            Value::Array(a) => a.iter().collect(),
            Value::Object(m) => m.values().collect(),
            _ => continue,
        };
        deepest = deepest.max(d + 1);
        stack.extend(children.into_iter().map(|c| (c, d + 1)));
    }
    deepest
}

/// A random scalar.
fn scalar(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => Value::Null,
        1 => Value::from(rng.chance(2)),
        2 => Value::from(rng.next() as i64),
        3 => Value::from(rng.next()),
        4 => Value::from(f64::from_bits(rng.next() & 0x7FEF_FFFF_FFFF_FFFF)),
        _ => Value::from((*rng.pick(ODD_KEYS)).to_owned() + "\"\\\n\u{1}é😀"),
    }
}

/// A random container `depth` levels deep (at least 1), with up to `width` members at
/// each level beside the one leading down. Built from the inside out, without recursion.
fn deep_and_wide(depth: usize, width: usize, rng: &mut Rng) -> Value {
    let mut v = scalar(rng);
    for _ in 0..depth {
        let n = rng.below(width + 1);
        v = if rng.chance(2) {
            let mut items: Vec<Value> = (0..n).map(|_| scalar(rng)).collect();
            items.insert(rng.below(n + 1), v);
            Value::Array(items)
        } else {
            let mut m: Map<String, Value> = (0..n)
                .map(|i| (format!("{}{i}", rng.pick(ODD_KEYS)), scalar(rng)))
                .collect();
            m.insert((*rng.pick(ODD_KEYS)).to_owned(), v);
            Value::Object(m)
        };
    }
    v
}

/// Takes `v` apart without recursion (a deep value's own drop would recurse).
fn dismantle(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(a) => stack.extend(a),
            Value::Object(m) => stack.extend(m.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[test]
fn the_writer_on_deep_and_wide_values() {
    let mut rng = Rng::new(env_u64("AG_UI_FUZZ_SEED", DEFAULT_SEED) ^ 0x3717E);
    let iters = env_u64("AG_UI_FUZZ_ITERS", DEFAULT_ITERS) / 8;
    let too_deep = ": arrays and objects nested deeper than 127 levels (the limit every AG-UI reader of this crate applies)";
    for i in 0..iters {
        let depth = match rng.below(4) {
            0 => 1 + rng.below(8),
            1 => 120 + rng.below(12),
            2 => 1 + rng.below(400),
            _ if rng.chance(8) => 30_000,
            _ => 1 + rng.below(130),
        };
        let width = if depth > 1_000 {
            0
        } else {
            *rng.pick(&[0, 1, 3, 50])
        };
        let value = deep_and_wide(depth, width, &mut rng);
        if depth > 1_000 {
            // Far too deep to clone or drop by recursion: refused without recursing.
            let mut e = Event::from(StateSnapshotEvent::new(value));
            let err = to_string(&e).unwrap_err();
            assert!(err.to_string().ends_with(too_deep), "{err}");
            // The container one level too deep: 127 tokens below the document root.
            let pointer = err.pointer().unwrap_or_default();
            assert_eq!(pointer.matches('/').count(), 127, "{pointer}");
            assert!(pointer.starts_with("/snapshot/"), "{pointer}");
            if let Event::StateSnapshot(s) = &mut e {
                dismantle(s.snapshot.take());
            }
            continue;
        }
        // Where the value goes, and how deep that place is in the document.
        let (doc_depth, place, encoded, back): Placed = match rng.below(5) {
            0 => {
                let e = Event::from(StateSnapshotEvent::new(value.clone()));
                (
                    1,
                    "/snapshot",
                    to_string(&e),
                    Box::new(move |t| from_str::<Event>(t).ok() == Some(e.clone())),
                )
            }
            1 => {
                let e = Event::from(CustomEvent::new("n", value.clone()));
                (
                    1,
                    "/value",
                    to_sse_frame(&e).map(|f| f["data: ".len()..f.len() - 2].to_owned()),
                    Box::new(move |t| from_str::<Event>(t).ok() == Some(e.clone())),
                )
            }
            2 => {
                let mut e = Event::from(TextMessageEndEvent::new("m"));
                e.set_raw_event(Some(value.clone()));
                (
                    1,
                    "/rawEvent",
                    to_string(&e),
                    Box::new(move |t| from_str::<Event>(t).ok() == Some(e.clone())),
                )
            }
            3 => {
                let input =
                    RunAgentInput::new("t", "r", Vec::<Message>::new()).with_state(value.clone());
                (
                    1,
                    "/state",
                    to_string(&input),
                    Box::new(move |t| from_str::<RunAgentInput>(t).ok() == Some(input.clone())),
                )
            }
            _ => {
                let input = RunAgentInput::new("t", "r", Vec::<Message>::new())
                    .with_tools(vec![Tool::new("n", "d").with_parameters(value.clone())]);
                (
                    3,
                    "/tools/0/parameters",
                    to_string(&input),
                    Box::new(move |t| from_str::<RunAgentInput>(t).ok() == Some(input.clone())),
                )
            }
        };
        let total = doc_depth + depth_of(&value);
        match &encoded {
            Ok(text) => {
                assert!(total <= 127, "iteration {i}: wrote {total} levels");
                assert!(back(text), "iteration {i}: {text:.300} does not read back");
            }
            Err(e) => {
                assert!(total > 127, "iteration {i}: refused {total} levels: {e}");
                assert_eq!(e.kind(), ErrorKind::Encode, "iteration {i}");
                assert!(e.to_string().ends_with(too_deep), "iteration {i}: {e}");
                // The pointer names the container one level too deep, in the document as
                // serde_json (which has no depth limit) writes it.
                let pointer = e.pointer().unwrap_or_default();
                assert_eq!(
                    pointer.matches('/').count(),
                    127,
                    "iteration {i}: {pointer}"
                );
                let inside = pointer
                    .strip_prefix(place)
                    .unwrap_or_else(|| panic!("iteration {i}: {pointer} is not below {place}"));
                assert!(
                    value
                        .pointer(inside)
                        .is_some_and(|v| v.is_array() || v.is_object()),
                    "iteration {i}: {pointer} is not a container of the value"
                );
            }
        }
        drop(back);
        dismantle(value);
    }
}
