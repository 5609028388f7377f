//! Events per second of resumable runs served through the Redis store against the
//! in-memory store, over loopback: one run of 2,000 text deltas, and 100 concurrent runs
//! of 200 deltas each; runs per second of short runs (10 deltas, 50 at a time); then
//! Redis commands per event for both shapes, and the Redis connections the store holds
//! while many runs are followed.
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

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ag_ui_builders::RunEmitter;
use ag_ui_core::{RunAgentInput, SseReader};
use ag_ui_redis::{RedisConfig, RedisStore};
use ag_ui_server::runs::{MemoryStore, Runs};
use ag_ui_server::{Agent, AgentService, AgentStream, Cancellation};
use ag_ui_testkit::redis::RedisServer;
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
    let mut last = String::new();
    while let Some(chunk) = body.next().await {
        reader.feed(&chunk.expect("the body")).expect("SSE");
        while let Some(m) = reader.next_message() {
            let _: ag_ui_core::Event = ag_ui_core::read::from_str(&m).expect("an event");
            events += 1;
            last = m;
        }
    }
    assert_eq!(
        events,
        tokens + 4,
        "RUN_STARTED, START, deltas, END, RUN_FINISHED; the last: {last}"
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
    // Median, fastest and slowest round of one side, in seconds.
    let spread = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    let [mut m1, mut r1, mut mn, mut rn] = times;
    let one_events = (ONE + 4) as f64;
    let many_events = (RUNS as u64 * (EACH + 4)) as f64;
    println!("interleaved, {rounds} rounds (events/s: median, slowest to fastest round):");
    for (case, events, memory, redis) in [
        ("one run of 2000 deltas", one_events, &mut m1, &mut r1),
        ("100 runs of 200 deltas", many_events, &mut mn, &mut rn),
    ] {
        let (m, m_fast, m_slow) = spread(memory);
        let (r, r_fast, r_slow) = spread(redis);
        println!(
            "  {case}: memory {:.0} ({:.0}-{:.0}), redis {:.0} ({:.0}-{:.0}); memory/redis {:.2}x",
            events / m,
            events / m_slow,
            events / m_fast,
            events / r,
            events / r_slow,
            events / r_fast,
            r / m
        );
    }

    // Short runs: runs per second, interleaved rounds, the median of per-round ratios.
    const SHORT: u64 = 10;
    const AT_ONCE: usize = 50;
    const BATCHES: usize = 8;
    let mut ratios = Vec::new();
    let mut rates: [Vec<f64>; 2] = Default::default();
    for _ in 0..rounds {
        let mut took = [0.0; 2];
        for (i, addr) in [memory, on_redis].into_iter().enumerate() {
            let t = Instant::now();
            for _ in 0..BATCHES {
                rt.block_on(concurrent(&client, addr, AT_ONCE, SHORT));
            }
            took[i] = t.elapsed().as_secs_f64();
            rates[i].push((AT_ONCE * BATCHES) as f64 / took[i]);
        }
        ratios.push(took[0] / took[1]);
    }
    ratios.sort_by(f64::total_cmp);
    for r in &mut rates {
        r.sort_by(f64::total_cmp);
    }
    println!(
        "  short runs ({SHORT} deltas, {AT_ONCE} at a time): memory {:.0} runs/s, redis {:.0} \
         runs/s (medians); redis/memory {:.2}x (median of {rounds} per-round ratios, {:.2}-{:.2})",
        rates[0][rates[0].len() / 2],
        rates[1][rates[1].len() / 2],
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1],
    );

    // Commands per event, counted twice: by the store, and by redis-server itself
    // (`total_commands_processed`, which also counts the one `INFO` of each reading).
    let url = format!("redis://127.0.0.1:{}/0", redis.port);
    let (one, many) = rt.block_on(async {
        let mut info = redis::Client::open(url.as_str())
            .expect("the bench's URL")
            .get_multiplexed_async_connection()
            .await
            .expect("a connection for INFO");
        let mut processed = async || -> u64 {
            let text: String = redis::cmd("INFO")
                .arg("stats")
                .query_async(&mut info)
                .await
                .expect("INFO stats");
            text.lines()
                .find_map(|l| l.strip_prefix("total_commands_processed:"))
                .and_then(|n| n.trim().parse().ok())
                .expect("INFO stats has total_commands_processed")
        };
        let mut count = async |runs: usize, tokens: u64| {
            // The store's runs are idle between cases: no lease renewals in flight.
            let (sent, seen) = (store.commands_sent(), processed().await);
            let events = if runs == 1 {
                run(&client, on_redis, tokens).await
            } else {
                concurrent(&client, on_redis, runs, tokens).await
            };
            let processed_after = processed().await;
            (
                store.commands_sent() - sent,
                processed_after - seen - 1,
                events,
            )
        };
        let one = count(1, ONE).await;
        let many = count(RUNS, EACH).await;
        (one, many)
    });
    for (name, (sent, processed, events)) in [
        ("one run of 2000 deltas", one),
        ("100 runs of 200 deltas", many),
    ] {
        println!(
            "redis commands, {name}: {events} events; the store sent {sent} ({:.3} per event), \
             redis-server processed {processed} ({:.3} per event)",
            sent as f64 / events as f64,
            processed as f64 / events as f64
        );
    }
    // Connections: Redis clients while 100 runs are followed on this store (each by its
    // POST stream), against the idle store.
    let url = format!("redis://127.0.0.1:{}/0", redis.port);
    let (idle, busy) = rt.block_on(async {
        let mut info = redis::Client::open(url.as_str())
            .expect("the bench's URL")
            .get_multiplexed_async_connection()
            .await
            .expect("a connection for INFO");
        let mut clients = async || -> u64 {
            let text: String = redis::cmd("INFO")
                .arg("clients")
                .query_async(&mut info)
                .await
                .expect("INFO clients");
            text.lines()
                .find_map(|l| l.strip_prefix("connected_clients:"))
                .and_then(|n| n.trim().parse().ok())
                .expect("INFO clients has connected_clients")
        };
        let idle = clients().await;
        let runs = tokio::spawn({
            let client = client.clone();
            async move { concurrent(&client, on_redis, RUNS, 20 * EACH).await }
        });
        let mut busy = idle;
        while !runs.is_finished() {
            busy = busy.max(clients().await);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        (idle, busy)
    });
    println!(
        "redis clients: {idle} with the store idle (this count's own included), at most {busy} \
         while {RUNS} runs were followed"
    );
    drop(rt);
    drop(redis);
}
