//! Events per second of resumable runs served through the Redis store against the
//! in-memory store, over loopback: one run of 2,000 text deltas, and 100 concurrent runs
//! of 200 deltas each; then Redis commands per event for both shapes.
//!
//! Each case is a whole run as a client sees it: `POST`, the run's driver appending the
//! agent's events to the store in batches, the response tailing the store, every SSE
//! frame read and decoded by the client. The agent produces its events as fast as it can
//! (the case that batching is for). Both stores are measured in one `cargo bench` run,
//! one after the other per case, on the same server code.
//!
//! `cargo bench -p ag-ui-redis --bench store` (needs `redis-server` on the PATH; the bench
//! starts its own on a free loopback port). Without `--bench` (as `cargo test --benches`
//! runs it) every case runs once.

use std::net::{SocketAddr, TcpListener as StdListener, TcpStream as StdStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ag_ui_builders::RunEmitter;
use ag_ui_core::{RunAgentInput, SseReader};
use ag_ui_redis::{RedisConfig, RedisStore};
use ag_ui_server::runs::{MemoryStore, Runs};
use ag_ui_server::{Agent, AgentService, AgentStream, Cancellation};
use criterion::{Criterion, Throughput};
use futures_util::StreamExt;

/// Emits `forwardedProps.tokens` text deltas as fast as it can, then finishes.
struct Burst;

impl Agent for Burst {
    fn run(&self, input: RunAgentInput, _cancel: Cancellation) -> AgentStream {
        let n = input
            .forwarded_props
            .as_ref()
            .and_then(|p| p.get("tokens"))
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(10);
        ag_ui_server::emit(RunEmitter::start_for(&input), move |mut run| async move {
            for _ in 0..n {
                run.emit(|r| r.text("token ")).await?;
            }
            run.emit(|r| r.finish()).await
        })
    }
}

/// A redis-server of the bench's own; killed by its pid when dropped.
struct RedisServer {
    port: u16,
    dir: PathBuf,
    child: Child,
}

impl RedisServer {
    fn start() -> RedisServer {
        let port = StdListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let dir = std::env::temp_dir().join(format!("ag-ui-redis-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&dir)
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is installed");
        let t = Instant::now();
        while StdStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        RedisServer { port, dir, child }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn serve(runs: Runs) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    let router = ag_ui_server::axum::service_router(AgentService::new(Burst).runs(runs));
    tokio::spawn(async move {
        let _ = ag_ui_server::axum::serve(listener, router).await;
    });
    addr
}

static RUN: AtomicU64 = AtomicU64::new(0);

/// One run of `tokens` deltas: the events the client read.
async fn run(client: &reqwest::Client, addr: SocketAddr, tokens: u64) -> u64 {
    let id = RUN.fetch_add(1, Ordering::Relaxed);
    let body = serde_json::json!({
        "threadId": format!("t-{id}"), "runId": format!("r-{id}"), "messages": [],
        "forwardedProps": {"tokens": tokens},
    });
    let response = client
        .post(format!("http://{addr}/"))
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body.to_string())
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let mut reader = SseReader::new();
    let mut events = 0;
    while let Some(chunk) = body.next().await {
        reader.feed(&chunk.expect("the body")).expect("SSE");
        while let Some(m) = reader.next_message() {
            let _: ag_ui_core::Event = ag_ui_core::read::from_str(&m).expect("an event");
            events += 1;
        }
    }
    assert_eq!(
        events,
        tokens + 4,
        "RUN_STARTED, START, deltas, END, RUN_FINISHED"
    );
    events
}

async fn concurrent(client: &reqwest::Client, addr: SocketAddr, runs: usize, tokens: u64) -> u64 {
    let all = (0..runs).map(|_| run(client, addr, tokens));
    futures_util::future::join_all(all).await.into_iter().sum()
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let redis = RedisServer::start();
    let (memory, on_redis, store) = rt.block_on(async {
        let store = RedisStore::connect(RedisConfig::new(format!(
            "redis://127.0.0.1:{}/0",
            redis.port
        )))
        .await
        .expect("the bench's redis-server");
        let memory = serve(Runs::new(MemoryStore::new())).await;
        let on_redis = serve(store.runs()).await;
        (memory, on_redis, store)
    });
    let client = Arc::new(reqwest::Client::new());
    let mut c = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();

    const ONE: u64 = 2_000;
    let mut g = c.benchmark_group("one_run_2000_deltas");
    g.throughput(Throughput::Elements(ONE + 4));
    for (name, addr) in [("memory", memory), ("redis", on_redis)] {
        g.bench_function(name, |b| {
            b.iter(|| rt.block_on(run(&client, addr, ONE)));
        });
    }
    g.finish();

    const RUNS: usize = 100;
    const EACH: u64 = 200;
    let mut g = c.benchmark_group("100_runs_200_deltas");
    g.throughput(Throughput::Elements(RUNS as u64 * (EACH + 4)));
    for (name, addr) in [("memory", memory), ("redis", on_redis)] {
        g.bench_function(name, |b| {
            b.iter(|| rt.block_on(concurrent(&client, addr, RUNS, EACH)));
        });
    }
    g.finish();

    // The ratios, with the sides interleaved: each round runs each case on each store
    // once; the report is the median of the rounds.
    let rounds = if std::env::args().any(|a| a == "--bench") {
        9
    } else {
        1
    };
    let mut times: [Vec<f64>; 4] = Default::default();
    for _ in 0..rounds {
        for (i, addr) in [memory, on_redis].into_iter().enumerate() {
            let t = Instant::now();
            rt.block_on(run(&client, addr, ONE));
            times[i].push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            rt.block_on(concurrent(&client, addr, RUNS, EACH));
            times[2 + i].push(t.elapsed().as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let [mut m1, mut r1, mut mn, mut rn] = times;
    let (m1, r1, mn, rn) = (
        median(&mut m1),
        median(&mut r1),
        median(&mut mn),
        median(&mut rn),
    );
    let one_events = (ONE + 4) as f64;
    let many_events = (RUNS as u64 * (EACH + 4)) as f64;
    println!(
        "interleaved, {rounds} rounds: one run: memory {:.0} events/s, redis {:.0} events/s \
         (memory/redis {:.2}x); 100 runs: memory {:.0} events/s, redis {:.0} events/s \
         (memory/redis {:.2}x)",
        one_events / m1,
        one_events / r1,
        r1 / m1,
        many_events / mn,
        many_events / rn,
        rn / mn
    );

    // Commands per event, counted by the store itself.
    let (one, many) = rt.block_on(async {
        let before = store.commands_sent();
        let events = run(&client, on_redis, ONE).await;
        let one = (store.commands_sent() - before, events);
        let before = store.commands_sent();
        let events = concurrent(&client, on_redis, RUNS, EACH).await;
        (one, (store.commands_sent() - before, events))
    });
    for (name, (commands, events)) in [("one run of 2000 deltas", one), ("100 runs of 200", many)] {
        println!(
            "redis commands, {name}: {commands} for {events} events ({:.3} per event)",
            commands as f64 / events as f64
        );
    }
    drop(rt);
    drop(redis);
}
