//! Heap held by a decoded AG-UI stream, against the size of its JSON.
//!
//! A counting global allocator (this binary only) measures the live heap bytes that
//! decoding each corpus of `corpus/mod.rs` leaves behind: the `Vec<Event>` itself and
//! everything its events own. The same is done with `serde_json::Value` for comparison.
//! Bytes are the sizes requested from the allocator (its own rounding is not counted).
//!
//! `cargo bench -p ag-ui-core --bench memory` prints the table.

mod corpus;

use std::alloc::System;
use std::collections::BTreeMap;

use ag_ui_core::Event;
use cap::Cap;
use serde_json::Value;

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// Live heap bytes held by what `build` returns, and the value (kept alive meanwhile).
fn held<T>(build: impl FnOnce() -> T) -> (usize, T) {
    let before = ALLOCATOR.allocated();
    let value = build();
    let after = ALLOCATOR.allocated();
    (after.saturating_sub(before), value)
}

fn report(corpus: &corpus::Corpus) {
    let json = corpus.bytes();
    let (typed, events) = held(|| {
        let mut v = Vec::with_capacity(corpus.lines.len());
        v.extend(
            corpus
                .lines
                .iter()
                .map(|l| ag_ui_core::read::from_str::<Event>(l).expect("valid")),
        );
        v
    });
    let (untyped, values) = held(|| {
        let mut v = Vec::with_capacity(corpus.lines.len());
        v.extend(
            corpus
                .lines
                .iter()
                .map(|l| serde_json::from_str::<Value>(l).expect("valid")),
        );
        v
    });
    let inline = std::mem::size_of::<Event>() * events.len();
    // Per event type: what each event owns on the heap (boxed variants included) plus its
    // slot in the vector, against its JSON.
    let mut by_type: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for line in &corpus.lines {
        let (heap, event) = held(|| ag_ui_core::read::from_str::<Event>(line).expect("valid"));
        let t = by_type.entry(event.tag()).or_default();
        t.0 += 1;
        t.1 += line.len();
        t.2 += heap + std::mem::size_of::<Event>();
    }
    println!();
    println!(
        "-- {}: {} events, {} bytes of JSON",
        corpus.name,
        events.len(),
        json
    );
    println!(
        "   Vec<Event>:  {:>10} bytes = {:.2}x the JSON ({} of them the {}-byte Event slots)",
        typed,
        typed as f64 / json as f64,
        inline,
        std::mem::size_of::<Event>()
    );
    println!(
        "   Vec<Value>:  {:>10} bytes = {:.2}x the JSON",
        untyped,
        untyped as f64 / json as f64
    );
    println!("   by event type (heap owned + Event slot, over JSON bytes):");
    let mut rows: Vec<_> = by_type.into_iter().collect();
    rows.sort_by_key(|(_, (_, json, _))| std::cmp::Reverse(*json));
    for (tag, (n, json, held)) in rows {
        println!(
            "     {tag:<26} {n:>6} events {json:>9} B JSON  {:>5.2}x",
            held as f64 / json as f64
        );
    }
    drop((events, values));
}

fn main() {
    println!("== AG-UI decoded stream in memory (live heap bytes / JSON bytes)");
    report(&corpus::streaming(corpus::SEED, 20_000));
    report(&corpus::large_snapshots(corpus::SEED, 12));
}
