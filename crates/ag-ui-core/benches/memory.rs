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
                .map(|l| ag_ui_core::from_str::<Event>(l).expect("valid")),
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
    drop((events, values));
}

fn main() {
    println!("== AG-UI decoded stream in memory (live heap bytes / JSON bytes)");
    report(&corpus::streaming(corpus::SEED, 20_000));
    report(&corpus::large_snapshots(corpus::SEED, 12));
}
