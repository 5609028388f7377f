//! Cost of chunk expansion per event while many lanes hold an open chunk stream.
//!
//! N subagents each hold an open tool call built from `TOOL_CALL_CHUNK`s; then one round
//! of four events is timed: a `CUSTOM` of the parent agent, a chunk continuing one of the
//! open calls by id, a chunk opening a call in a new lane, and that lane's
//! `SUBAGENT_FINISHED` (which closes it, leaving the state as it was). With lanes found by
//! hash, the time per round does not grow with N.
//!
//! `cargo bench -p ag-ui-core --bench chunk`. Without `--bench` (as `cargo test --benches`
//! runs it) every case runs once.

use std::hint::black_box;

use ag_ui_core::{
    ChunkExpander, CustomEvent, Event, SubagentFinishedEvent, SubagentRunId, ToolCallChunkEvent,
};
use criterion::{BenchmarkId, Criterion};

/// An expander with `n` lanes, each holding an open tool call.
fn with_open_lanes(n: usize) -> ChunkExpander {
    let mut x = ChunkExpander::new();
    for i in 0..n {
        x.push(
            ToolCallChunkEvent::new()
                .with_tool_call_id(format!("c{i}"))
                .with_tool_call_name("f")
                .with_subagent_run_id(SubagentRunId::from(format!("s{i}")))
                .into(),
        )
        .expect("opens");
    }
    x
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("chunk_lanes");
    for n in [100, 1_000, 10_000, 40_000] {
        let mut x = with_open_lanes(n);
        let custom: Event = CustomEvent::new("n", serde_json::json!(1)).into();
        let continued: Event = ToolCallChunkEvent::new()
            .with_tool_call_id(format!("c{}", n / 2))
            .with_delta("x")
            .into();
        let opened: Event = ToolCallChunkEvent::new()
            .with_tool_call_id("extra")
            .with_tool_call_name("f")
            .with_subagent_run_id(SubagentRunId::from("extra"))
            .into();
        let finished: Event = SubagentFinishedEvent::new("extra").into();
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                for e in [&custom, &continued, &opened, &finished] {
                    black_box(x.push(e.clone()).expect("expands"));
                }
            });
        });
    }
    group.finish();
    c.final_summary();
}
