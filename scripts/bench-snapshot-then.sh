#!/usr/bin/env bash
# The 1 MB STATE_SNAPSHOT of the consumer benchmark, decoded and applied by the code of an
# earlier commit and by the code of this checkout, in one session, alternated.
#
#   scripts/bench-snapshot-then.sh [COMMIT] [RUNS]
#
# COMMIT (default 1f16808, the code when the consumer-speed work began) must have
# `StreamConsumer::feed`, `ThreadState::apply` / `apply_owned` and `read::from_str`. Each
# program times, 41 times over, three ways to get the snapshot into a thread that holds the
# previous one: `read::from_str` + `apply` (by borrow), `read::from_str` + `apply_owned`,
# and the stream consumer given the SSE frame (`feed` then, `feed_to_thread` now), and
# prints the medians in milliseconds. Everything it builds lives in a temporary directory
# that is removed at the end (the worktree of COMMIT included).
set -euo pipefail
cd "$(dirname "$0")/.."
commit=${1:-1f16808}
runs=${2:-3}
root=$(pwd)
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/then-tree" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

AG_UI_BENCH_WRITE_SNAPSHOT="$tmp/snapshot.json" cargo bench -q -p ag-ui-core --bench consumer --locked
git worktree add -q --detach "$tmp/then-tree" "$commit"

# One program, two builds: `feed_step` is the only line that differs.
program() { # name core-path consume-call
  mkdir -p "$tmp/$1/src"
  cat >"$tmp/$1/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false
[dependencies]
ag-ui-core = { path = "$2" }
[profile.release]
codegen-units = 1
lto = "thin"
[workspace]
TOML
  cat >"$tmp/$1/src/main.rs" <<RUST
use std::hint::black_box;
use std::time::Instant;

use ag_ui_core::{Event, StreamConsumer, ThreadState};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

fn feed_step(c: &mut StreamConsumer, bytes: &[u8]) {
    black_box($3);
}

fn main() {
    let path = std::env::args().nth(1).expect("the snapshot file");
    let line = std::fs::read_to_string(path).expect("readable");
    let frame = format!("data: {line}\n\n").into_bytes();
    let started = b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";
    let decode = || ag_ui_core::read::from_str::<Event>(&line).expect("valid");
    let (mut borrow, mut owned, mut consumer) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..41 {
        let mut thread = ThreadState::new();
        thread.apply_owned(decode());
        let t = Instant::now();
        let event = decode();
        black_box(thread.apply(&event));
        drop(black_box(event));
        borrow.push(ms(t));

        let mut thread = ThreadState::new();
        thread.apply_owned(decode());
        let t = Instant::now();
        black_box(thread.apply_owned(decode()));
        owned.push(ms(t));

        let mut c = StreamConsumer::new();
        feed_step(&mut c, started);
        feed_step(&mut c, &frame);
        let t = Instant::now();
        feed_step(&mut c, &frame);
        consumer.push(ms(t));
    }
    println!(
        "from_str + apply {:.2} ms, from_str + apply_owned {:.2} ms, consumer {:.2} ms",
        median(borrow),
        median(owned),
        median(consumer)
    );
}
RUST
  cargo build -q --release --manifest-path "$tmp/$1/Cargo.toml" --target-dir "$tmp/target"
}

program then "$tmp/then-tree/crates/ag-ui-core" 'c.feed(bytes).expect("valid")'
program now "$root/crates/ag-ui-core" 'c.feed_to_thread(bytes).expect("valid")'
for _ in $(seq "$runs"); do
  echo "then ($commit): $("$tmp/target/release/then" "$tmp/snapshot.json")"
  echo "now:              $("$tmp/target/release/now" "$tmp/snapshot.json")"
done
