//! Resumable runs (`ag_ui_server::runs`): events per second of a run served through the
//! run log against the same run served directly, and the memory a retained run holds.
//!
//! Throughput: the streaming corpus of `ag-ui-core/benches/corpus` (20,005 events, 3.16 MB
//! of JSON) served as one run per request over loopback by three services of one agent:
//! directly (no run log), through the in-memory run log (threads kept, the default), and
//! through the log without threads; plus a join replaying a finished run from the log.
//! The reader is the like-for-like Rust reader of the serve benchmark (`reqwest`,
//! `SseReader`, every event decoded). Rounds are interleaved (each round runs every case
//! once); the report is the median of the rounds.
//!
//! Memory: runs served through `AgentService::handle` in process (no sockets) and kept by
//! the store after they ended; the heap growth (a counting global allocator) divided by the
//! runs, for the demo's chat run and for the corpus run.
//!
//! `cargo bench -p ag-ui-server --bench runs` (`-- --rounds N` sets the rounds).
//!
//! Run rate (`-- rate`, alone): runs per second of short runs (the demo agent's `firehose`
//! scenario: 300 text deltas of 100 bytes in one message) started over loopback by 1 and by
//! 100 concurrent clients, each starting its next run as soon as the last one ended (each
//! run on a thread of its own), against three services: directly (no run log), resumable
//! in memory with threads kept (`Runs::in_memory()`, the default), and without threads.
//! The clients are plain HTTP/1.1 over kept-alive loopback connections (as a load
//! generator's are): each reads a body to the end of its chunked encoding and checks its
//! terminal event. Each round
//! measures every case for a fixed window, interleaved; the report is the median of the
//! per-round runs/s and of the per-round ratios to the direct service.
//! `cargo bench -p ag-ui-server --bench runs -- rate --rounds 7 --window-ms 1500`
//! (`--deltas N` sets the text deltas per run, 300 by default; `--workers N` the server
//! runtime's worker threads, 2 by default; `--max-runs N` the runs each resumable store
//! keeps, [`MemoryLimits`]' default by default: with a few, the store is full from the
//! start and each run reuses the memory of one it removed, as in a server that has run
//! for a while).

#[path = "../../ag-ui-core/benches/corpus/mod.rs"]
mod corpus;

use std::alloc::System;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ag_ui_core::{Event, RunAgentInput};
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::{DisconnectPolicy, MemoryLimits, MemoryStore, Runs};
use ag_ui_server::{Agent, AgentService, Cancellation};
use futures_util::StreamExt;
use http_body_util::BodyExt;

#[global_allocator]
static ALLOC: cap::Cap<System> = cap::Cap::new(System, usize::MAX);

const EVENTS: usize = 20_000;

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// Reads one run's response to its end: SSE framing and every event decoded.
async fn read(request: reqwest::RequestBuilder) -> Result<(usize, Duration), String> {
    let start = Instant::now();
    let response = request.send().await.map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        return Err(format!("status {}", response.status()));
    }
    let mut body = response.bytes_stream();
    let mut reader = ag_ui_core::SseReader::new();
    let mut events = 0;
    while let Some(chunk) = body.next().await {
        reader
            .feed(&chunk.map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
        while let Some(message) = reader.next_message() {
            let _event: Event = ag_ui_core::read::from_str(&message).map_err(|e| e.to_string())?;
            events += 1;
        }
    }
    Ok((events, start.elapsed()))
}

fn post(client: &reqwest::Client, url: &str, run: &str) -> reqwest::RequestBuilder {
    let body = format!(
        r#"{{"threadId":"bench","runId":"{run}","messages":[],"tools":[],"context":[],"forwardedProps":{{}},"state":{{}}}}"#
    );
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body)
}

fn serve<A: Agent>(runtime: &tokio::runtime::Runtime, service: AgentService<A>) -> String {
    runtime
        .block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            let url = format!("http://{}/", listener.local_addr()?);
            tokio::spawn(ag_ui_server::axum::serve(
                listener,
                ag_ui_server::axum::service_router(service),
            ));
            Ok::<_, std::io::Error>(url)
        })
        .unwrap_or_default()
}

/// Heap bytes a retained run holds: `runs` runs of `input` served in process and kept.
fn retained<A: Agent>(agent: A, inputs: &[String]) -> Result<(f64, usize), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let store = MemoryStore::with_limits(
        MemoryLimits::default()
            .max_runs(inputs.len() + 1)
            .retention(Duration::from_secs(3600)),
    );
    let service = AgentService::new(agent)
        .runs(Runs::new(store.clone()).on_disconnect(DisconnectPolicy::Continue));
    runtime.block_on(async {
        // One run first, so that lazily built structures are not counted.
        let mut sizes = 0;
        for (i, input) in inputs.iter().enumerate() {
            if i == 1 {
                tokio::time::sleep(Duration::from_millis(20)).await;
                sizes = ALLOC.allocated();
            }
            let request = http::Request::post("/")
                .header("content-type", "application/json")
                .header("accept", "text/event-stream")
                .body(http_body_util::Full::new(bytes::Bytes::from(input.clone())))
                .map_err(|e| e.to_string())?;
            let response = service.handle(request).await;
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(|e| e.to_string())?;
            drop(body);
        }
        // The drivers record the ends and the threads after the last frame.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let grown = ALLOC.allocated().saturating_sub(sizes);
        let runs = inputs.len() - 1;
        if store.run_count() != inputs.len() {
            return Err(format!(
                "{} runs kept, {} expected",
                store.run_count(),
                inputs.len()
            ));
        }
        Ok((grown as f64 / runs as f64, runs))
    })
}

fn input(thread: &str, run: &str) -> String {
    format!(
        r#"{{"threadId":"{thread}","runId":"{run}","messages":[{{"id":"u","role":"user","content":"What is the weather?"}}],"tools":[],"context":[],"forwardedProps":{{}},"state":{{}}}}"#
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let benching = args.iter().any(|a| a == "--bench");
    // The value after `--name`, when there is one that parses.
    let flag = |name: &str| -> Option<u64> {
        let i = args.iter().position(|a| a == name)?;
        args.get(i + 1)?.parse().ok()
    };
    let rounds = flag("--rounds").map_or(if benching { 11 } else { 1 }, |n| n as usize);

    if args.iter().any(|a| a == "rate") {
        let settings = rate::Settings {
            rounds: rounds.max(1),
            window: flag("--window-ms").map_or(Duration::from_millis(1000), Duration::from_millis),
            deltas: flag("--deltas").map_or(300, |n| n as usize),
            workers: flag("--workers").map_or(2, |n| (n as usize).max(1)),
            limits: flag("--max-runs").map_or(MemoryLimits::default(), |n| {
                MemoryLimits::default().max_runs(n as usize)
            }),
        };
        return rate::compare(&settings);
    }

    let corpus = corpus::streaming(corpus::SEED, EVENTS);
    let events: Arc<Vec<Event>> = Arc::new(
        corpus
            .lines
            .iter()
            .map(|l| ag_ui_core::read::from_str(l))
            .collect::<Result<_, _>>()?,
    );
    let n = events.len();
    let bytes = corpus.bytes();
    let served = Arc::clone(&events);
    let agent = move |_: RunAgentInput, _: Cancellation| {
        let events = Arc::clone(&served);
        futures_util::stream::iter(
            (0..events.len()).map(move |i| Ok::<_, std::convert::Infallible>(events[i].clone())),
        )
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let log_limits = MemoryLimits::default().max_runs(4 * (rounds + 2));
    let direct = serve(&runtime, AgentService::new(agent.clone()));
    let logged = serve(
        &runtime,
        AgentService::new(agent.clone()).runs(Runs::new(MemoryStore::with_limits(log_limits))),
    );
    let no_threads = serve(
        &runtime,
        AgentService::new(agent).runs(Runs::new(MemoryStore::with_limits(log_limits)).no_threads()),
    );
    let client_runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let client = reqwest::Client::new();

    let names = [
        "served directly (no run log)",
        "through the run log (threads kept)",
        "through the run log (no threads)",
        "a join replaying the finished run",
    ];
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); names.len()];
    for round in 0..=rounds {
        let run = format!("run-{round}");
        let requests = [
            post(&client, &direct, &run),
            post(&client, &logged, &run),
            post(&client, &no_threads, &run),
            client
                .get(format!("{logged}runs/{run}/events"))
                .header("accept", "text/event-stream"),
        ];
        for (i, request) in requests.into_iter().enumerate() {
            let (got, took) = client_runtime.block_on(read(request))?;
            if got != n {
                return Err(format!("{}: {got} events read, {n} expected", names[i]).into());
            }
            if round > 0 {
                samples[i].push(took);
            }
        }
    }
    let eps: Vec<f64> = samples
        .iter()
        .map(|s| n as f64 / median(s.clone()).as_secs_f64())
        .collect();
    println!(
        "\nruns: streaming corpus, {n} events, {:.2} MB of JSON, one run per request, median of {rounds} rounds",
        bytes as f64 / 1e6
    );
    println!("| how the run is served | events/s | MB/s | vs direct |");
    println!("|---|---:|---:|---:|");
    for (name, e) in names.iter().zip(&eps) {
        println!(
            "| {name} | {e:.0} | {:.1} | {:.3}x |",
            e * bytes as f64 / n as f64 / 1e6,
            e / eps[0]
        );
    }
    println!(
        "through the log (threads kept) is {:.1} % slower than directly",
        (1.0 - eps[1] / eps[0]) * 100.0
    );

    // Memory per retained run.
    let chat_inputs: Vec<String> = (0..201)
        .map(|i| input(&format!("t{i}"), &format!("chat-{i}")))
        .collect();
    let (chat, chat_runs) = retained(DemoAgent::new(), &chat_inputs)?;
    let chat_json: usize = {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let input: RunAgentInput = ag_ui_core::read::from_str(&chat_inputs[0])?;
        let events: Vec<Event> = runtime
            .block_on(
                DemoAgent::new()
                    .run(input, Cancellation::new())
                    .map(|e| e.map_err(|e| e.to_string()))
                    .collect::<Vec<_>>(),
            )
            .into_iter()
            .collect::<Result<_, _>>()?;
        events
            .iter()
            .map(|e| ag_ui_core::write::to_vec(e).map(|v| v.len()).unwrap_or(0))
            .sum()
    };
    let corpus_events = Arc::clone(&events);
    let corpus_agent = move |_: RunAgentInput, _: Cancellation| {
        let events = Arc::clone(&corpus_events);
        futures_util::stream::iter(
            (0..events.len()).map(move |i| Ok::<_, std::convert::Infallible>(events[i].clone())),
        )
    };
    let corpus_inputs: Vec<String> = (0..if benching { 6 } else { 2 })
        .map(|i| input(&format!("c{i}"), &format!("corpus-{i}")))
        .collect();
    let (big, big_runs) = retained(corpus_agent, &corpus_inputs)?;
    println!(
        "\n| retained run (ended, kept for joins, its thread kept) | heap per run | event JSON per run | heap / JSON |"
    );
    println!("|---|---:|---:|---:|");
    println!(
        "| demo chat run (27 events), {chat_runs} runs | {:.1} KB | {:.1} KB | {:.2}x |",
        chat / 1e3,
        chat_json as f64 / 1e3,
        chat / chat_json as f64
    );
    println!(
        "| corpus run ({n} events), {big_runs} runs | {:.2} MB | {:.2} MB | {:.2}x |",
        big / 1e6,
        bytes as f64 / 1e6,
        big / bytes as f64
    );
    Ok(())
}

/// Runs per second of short runs, direct against resumable (see the module docs).
mod rate {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    use ag_ui_server::AgentService;
    use ag_ui_server::demo::DemoAgent;
    use ag_ui_server::runs::{MemoryLimits, MemoryStore, Runs};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Starts one run on `stream` (HTTP/1.1, kept alive) and reads its response to the
    /// end of its chunked body; checks the status and the terminal event.
    async fn one_run(
        stream: &mut tokio::net::TcpStream,
        buf: &mut [u8],
        id: &str,
        deltas: usize,
    ) -> Result<(), String> {
        let body = format!(
            r#"{{"threadId":"{id}","runId":"{id}","messages":[],"tools":[],"context":[],"forwardedProps":{{"scenario":"firehose","events":{}}},"state":{{}}}}"#,
            deltas
        );
        let request = format!(
            "POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
             accept: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        // The status line, then the body's last bytes: the chunked body's end follows the
        // run's terminal event.
        let mut window: Vec<u8> = Vec::with_capacity(1024);
        let mut first = true;
        loop {
            let n = stream.read(buf).await.map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("the server closed the connection".into());
            }
            if first {
                first = false;
                if !buf[..n].starts_with(b"HTTP/1.1 200") {
                    return Err(String::from_utf8_lossy(&buf[..n.min(200)]).into_owned());
                }
            }
            window.extend_from_slice(&buf[n.saturating_sub(512)..n]);
            let keep = window.len().saturating_sub(512);
            window.drain(..keep);
            if window.ends_with(b"\r\n0\r\n\r\n") {
                let text = String::from_utf8_lossy(&window);
                if !text.contains("RUN_FINISHED") {
                    return Err(format!("a run did not finish: ...{text}"));
                }
                return Ok(());
            }
        }
    }

    /// Starts runs from `concurrency` clients (one connection each) for `window`; the runs
    /// completed per second.
    async fn drive(
        addr: std::net::SocketAddr,
        tag: &str,
        concurrency: usize,
        window: Duration,
        deltas: usize,
    ) -> Result<f64, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicU64::new(0));
        let start = Instant::now();
        let mut workers = Vec::new();
        for w in 0..concurrency {
            let tag = tag.to_owned();
            let (stop, done) = (Arc::clone(&stop), Arc::clone(&done));
            workers.push(tokio::spawn(async move {
                let mut stream = tokio::net::TcpStream::connect(addr)
                    .await
                    .map_err(|e| e.to_string())?;
                stream.set_nodelay(true).map_err(|e| e.to_string())?;
                let mut buf = vec![0u8; 64 * 1024];
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    one_run(&mut stream, &mut buf, &format!("{tag}-{w}-{n}"), deltas).await?;
                    done.fetch_add(1, Ordering::Relaxed);
                }
                Ok::<_, String>(())
            }));
        }
        tokio::time::sleep(window).await;
        stop.store(true, Ordering::Relaxed);
        let counted = done.load(Ordering::Relaxed);
        let elapsed = start.elapsed();
        for w in workers {
            w.await.map_err(|e| e.to_string())??;
        }
        Ok(counted as f64 / elapsed.as_secs_f64())
    }

    fn median(mut xs: Vec<f64>) -> f64 {
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    }

    /// What the rate comparison runs.
    pub(super) struct Settings {
        pub(super) rounds: usize,
        pub(super) window: Duration,
        pub(super) deltas: usize,
        /// The server runtime's worker threads.
        pub(super) workers: usize,
        /// The resumable stores' limits.
        pub(super) limits: MemoryLimits,
    }

    pub(super) fn compare(settings: &Settings) -> Result<(), Box<dyn std::error::Error>> {
        let &Settings {
            rounds,
            window,
            deltas,
            workers,
            limits,
        } = settings;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()?;
        let store = || Runs::new(MemoryStore::with_limits(limits));
        let urls = [
            super::serve(&runtime, AgentService::new(DemoAgent::new())),
            super::serve(&runtime, AgentService::new(DemoAgent::new()).runs(store())),
            super::serve(
                &runtime,
                AgentService::new(DemoAgent::new()).runs(store().no_threads()),
            ),
        ];
        let names = [
            "served directly (no run log)",
            "resumable in memory (threads kept, the default)",
            "resumable in memory (no threads)",
        ];
        let addrs: Vec<std::net::SocketAddr> = urls
            .iter()
            .map(|u| {
                u.trim_start_matches("http://")
                    .trim_end_matches('/')
                    .parse()
            })
            .collect::<Result<_, _>>()?;
        let client_runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let levels = [1usize, 100];
        // rates[level][case] and ratios[level][case], one entry per round.
        let mut rates = vec![vec![Vec::new(); urls.len()]; levels.len()];
        let mut ratios = vec![vec![Vec::new(); urls.len()]; levels.len()];
        for round in 0..=rounds {
            for (l, &concurrency) in levels.iter().enumerate() {
                let mut got = Vec::new();
                for (c, addr) in addrs.iter().enumerate() {
                    let tag = format!("r{round}c{c}n{concurrency}");
                    // The first round warms up (connections, allocator) and is not counted.
                    let w = if round == 0 { window / 4 } else { window };
                    let r = client_runtime.block_on(drive(*addr, &tag, concurrency, w, deltas))?;
                    got.push(r);
                }
                if round > 0 {
                    for (c, r) in got.iter().enumerate() {
                        rates[l][c].push(*r);
                        ratios[l][c].push(r / got[0]);
                    }
                }
            }
        }
        println!(
            "\nrun rate: demo firehose runs ({} text deltas of 100 bytes), over loopback, \
             median of {rounds} rounds of {} ms per case; {workers} server worker thread(s), \
             resumable stores keeping {} runs",
            deltas,
            window.as_millis(),
            limits.max_runs
        );
        println!("| how the run is served | concurrent runs | runs/s | vs direct |");
        println!("|---|---:|---:|---:|");
        for (l, concurrency) in levels.iter().enumerate() {
            for (c, name) in names.iter().enumerate() {
                println!(
                    "| {name} | {concurrency} | {:.0} | {:.2}x |",
                    median(rates[l][c].clone()),
                    median(ratios[l][c].clone())
                );
            }
        }
        Ok(())
    }
}
