//! Serving the core benchmark corpus over loopback: events per second and time to first
//! event, for this crate's server read by a Rust client, against a Node server using the
//! official `@ag-ui/encoder` read by the official client (`@ag-ui/client`), side by side,
//! and crosswise (each client against the other server).
//!
//! Every contender serves the same events: the streaming corpus of
//! `ag-ui-core/benches/corpus` (20,005 events, 3.16 MB of JSON), one run per request.
//! Rounds are interleaved (each round runs every pair once) so that machine noise hits all
//! alike; the report is the median of the rounds.
//!
//! `cargo bench -p ag-ui-server --bench serve` (needs `node` and `npm ci` in
//! `scripts/interop`, which `scripts/interop/run.sh` does; without them only the Rust pair
//! runs). `cargo bench -p ag-ui-server --bench serve -- --rounds N` sets the rounds.
//!
//! `cargo bench -p ag-ui-server --features otel,metrics,logging --bench serve -- observability`
//! compares the cost of observability instead (see [`observability`]).

#[path = "../../ag-ui-core/benches/corpus/mod.rs"]
mod corpus;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ag_ui_client::{HttpAgent, RunItem};
use ag_ui_core::{Event, RunAgentInput};
use ag_ui_server::Cancellation;
use futures_util::StreamExt;

/// Events in the corpus (as in the core throughput benchmark).
const EVENTS: usize = 20_000;

/// One run as a client saw it.
#[derive(Debug, Clone, Copy)]
struct Sample {
    events: usize,
    first: Duration,
    total: Duration,
}

/// The Rust reading side: the workspace's client (`ag_ui_client::HttpAgent` over the given
/// `reqwest` client) runs the input and reads the response as it arrives through the whole
/// 1.0 receiving pipeline (SSE framing, decoding, chunk expansion, verification) and folds
/// every event into its `ThreadState`, as the official client does.
async fn rust_client(client: &reqwest::Client, url: &str, body: &[u8]) -> Result<Sample, String> {
    let input: RunAgentInput = ag_ui_core::read::from_slice(body).map_err(|e| e.to_string())?;
    let mut agent = HttpAgent::builder(url)
        .client(client.clone())
        .build()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut first = None;
    let mut events = 0;
    let mut run = agent.run_input(input);
    while let Some(item) = run.next().await {
        match item {
            RunItem::Event(_) => {
                first.get_or_insert_with(|| start.elapsed());
                events += 1;
            }
            RunItem::End(end) => {
                if let Some(error) = end.error {
                    return Err(error.to_string());
                }
            }
            _ => {}
        }
    }
    Ok(Sample {
        events,
        first: first.unwrap_or_default(),
        total: start.elapsed(),
    })
}

/// The official client's share of the work, in Rust, for a like-for-like comparison with
/// `bench-client.mjs` (which runs the official fetch, SSE parsing and event decoding, without
/// chunk expansion, verification or a reducer): `reqwest`, `ag_ui_core::SseReader` and
/// `ag_ui_core::read::from_str`, every event decoded.
async fn rust_reader(client: &reqwest::Client, url: &str, body: &[u8]) -> Result<Sample, String> {
    let start = Instant::now();
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body.to_vec())
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let mut body = response.bytes_stream();
    let mut reader = ag_ui_core::SseReader::new();
    let mut first = None;
    let mut events = 0;
    while let Some(chunk) = body.next().await {
        reader
            .feed(&chunk.map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
        while let Some(message) = reader.next_message() {
            let _event: Event = ag_ui_core::read::from_str(&message).map_err(|e| e.to_string())?;
            first.get_or_insert_with(|| start.elapsed());
            events += 1;
        }
    }
    Ok(Sample {
        events,
        first: first.unwrap_or_default(),
        total: start.elapsed(),
    })
}

/// The Node reading side: a long-running `bench-client.mjs` that runs once per URL line.
struct NodeClient {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl NodeClient {
    fn start(interop: &Path) -> Result<Self, String> {
        let mut child = Command::new("node")
            .arg("bench-client.mjs")
            .current_dir(interop)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("node: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(NodeClient {
            child,
            stdin,
            stdout,
        })
    }

    fn run(&mut self, url: &str) -> Result<Sample, String> {
        writeln!(self.stdin, "{url}").map_err(|e| e.to_string())?;
        self.stdin.flush().map_err(|e| e.to_string())?;
        let mut line = String::new();
        self.stdout
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        let v: serde_json::Value =
            serde_json::from_str(&line).map_err(|e| format!("{e}: {line}"))?;
        if let Some(e) = v.get("error") {
            return Err(format!("node client: {e}"));
        }
        let ms = |k: &str| Duration::from_secs_f64(v[k].as_f64().unwrap_or(0.0) / 1000.0);
        Ok(Sample {
            events: v["events"].as_u64().unwrap_or(0) as usize,
            first: ms("firstMs"),
            total: ms("totalMs"),
        })
    }
}

impl Drop for NodeClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Node server, killed when dropped.
struct NodeServer(Child, String);

impl NodeServer {
    fn start(interop: &Path, corpus_file: &Path) -> Result<Self, String> {
        let mut child = Command::new("node")
            .arg("bench-server.mjs")
            .arg(corpus_file)
            .current_dir(interop)
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("node: {e}"))?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().ok_or("no stdout")?)
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        Ok(NodeServer(child, format!("http://{}/", line.trim())))
    }
}

impl Drop for NodeServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

struct Pair<S, R> {
    name: &'static str,
    server: S,
    reader: R,
    samples: Vec<Sample>,
}

impl<S, R> Pair<S, R> {
    fn new(name: &'static str, server: S, reader: R) -> Self {
        Pair {
            name,
            server,
            reader,
            samples: Vec::new(),
        }
    }

    /// Events served per second: every pair serves the same `served` events (a Rust client
    /// delivers a few more, the chunk shorthands expanded, which are not counted).
    fn events_per_sec(&self, served: usize) -> f64 {
        served as f64 / median(self.samples.iter().map(|s| s.total).collect()).as_secs_f64()
    }
    fn first(&self) -> Duration {
        median(self.samples.iter().map(|s| s.first).collect())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    // `cargo test --benches` runs this with `--test`-like flags and no `--bench`: one round.
    let benching = args.iter().any(|a| a == "--bench");
    let rounds_arg = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse::<usize>().ok());
    if args.iter().any(|a| a == "observability") {
        let rounds = rounds_arg.unwrap_or(if benching { 41 } else { 1 });
        return observability::compare(rounds);
    }
    let rounds = rounds_arg.unwrap_or(if benching { 11 } else { 1 });

    let corpus = corpus::streaming(corpus::SEED, EVENTS);
    let events: Arc<Vec<Event>> = Arc::new(
        corpus
            .lines
            .iter()
            .map(|l| ag_ui_core::read::from_str(l))
            .collect::<Result<_, _>>()?,
    );
    let n = events.len();
    // The Rust client counts the events it delivers: chunk shorthands arrive expanded.
    let delivered = {
        let mut pipeline = ag_ui_core::EventPipeline::new();
        let mut count = 0;
        for line in &corpus.lines {
            count += pipeline.push_text(line)?.value.len();
        }
        count + pipeline.finish()?.len()
    };
    let bytes = corpus.bytes();
    let interop = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/interop");
    let corpus_file =
        std::env::temp_dir().join(format!("ag-ui-serve-bench-{}.jsonl", std::process::id()));
    std::fs::write(&corpus_file, corpus.lines.join("\n"))?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // Our server: an agent that streams the corpus (each event cloned, as an agent
    // producing owned events would), with the default settings (verification on).
    let served = Arc::clone(&events);
    let agent = move |_: RunAgentInput, _: Cancellation| {
        let events = Arc::clone(&served);
        futures_util::stream::iter(
            (0..events.len()).map(move |i| Ok::<_, std::convert::Infallible>(events[i].clone())),
        )
    };
    let previous_agent = agent.clone();
    let rust_url = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/", listener.local_addr()?);
        tokio::spawn(ag_ui_server::axum::serve(
            listener,
            ag_ui_server::axum::router(agent),
        ));
        Ok::<_, std::io::Error>(url)
    })?;
    // The same service on the previous serve path: `axum::serve` with `TCP_NODELAY` (no
    // timeouts, HTTP/1 only).
    let previous_url = runtime.block_on(async {
        use axum::serve::ListenerExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/", listener.local_addr()?);
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let router = ag_ui_server::axum::router(previous_agent);
        tokio::spawn(async move { axum::serve(listener, router).await });
        Ok::<_, std::io::Error>(url)
    })?;

    let node = node_available(&interop);
    let node_server = match &node {
        Ok(()) => Some(NodeServer::start(&interop, &corpus_file)?),
        Err(why) => {
            eprintln!("serve bench: Node pairs skipped ({why})");
            None
        }
    };
    let mut node_client = node_server
        .as_ref()
        .map(|_| NodeClient::start(&interop))
        .transpose()?;

    // The Rust readers run on a runtime of their own with one thread, as a client reading
    // one stream would: the connection and the reader wake each other without crossing
    // threads. The server keeps the two-worker runtime above.
    let client_runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let client = reqwest::Client::new();
    let input = br#"{"threadId":"bench","runId":"bench-run","messages":[],"tools":[],"context":[],"forwardedProps":{},"state":{}}"#;
    #[derive(Clone, Copy, PartialEq)]
    enum Reader {
        RustClient,
        SseDecode,
        Official,
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Server {
        Rust,
        /// The same service on `axum::serve`, the serve path before the production one.
        RustAxum,
        Node,
    }
    let mut pairs = vec![
        Pair::new(
            "Rust server, Rust client (HttpAgent)",
            Server::Rust,
            Reader::RustClient,
        ),
        Pair::new(
            "Node server (@ag-ui/encoder), official client",
            Server::Node,
            Reader::Official,
        ),
        Pair::new(
            "Rust server, Rust reader (SSE + decode)",
            Server::Rust,
            Reader::SseDecode,
        ),
        Pair::new(
            "Rust server on axum::serve (previous path), Rust reader (SSE + decode)",
            Server::RustAxum,
            Reader::SseDecode,
        ),
        Pair::new(
            "Rust server on axum::serve (previous path), Rust client (HttpAgent)",
            Server::RustAxum,
            Reader::RustClient,
        ),
        Pair::new(
            "Rust server, official client",
            Server::Rust,
            Reader::Official,
        ),
        Pair::new(
            "Node server (@ag-ui/encoder), Rust client (HttpAgent)",
            Server::Node,
            Reader::RustClient,
        ),
        Pair::new(
            "Node server (@ag-ui/encoder), Rust reader (SSE + decode)",
            Server::Node,
            Reader::SseDecode,
        ),
    ];
    if node_server.is_none() {
        pairs.retain(|p| p.server != Server::Node && p.reader != Reader::Official);
    }
    // One warm-up round, then the measured ones.
    for round in 0..=rounds {
        for pair in &mut pairs {
            let url = match pair.server {
                Server::Rust => rust_url.as_str(),
                Server::RustAxum => previous_url.as_str(),
                Server::Node => node_server.as_ref().map_or("", |s| s.1.as_str()),
            };
            let s = match (pair.reader, node_client.as_mut()) {
                (Reader::RustClient, _) => {
                    client_runtime.block_on(rust_client(&client, url, input))?
                }
                (Reader::SseDecode, _) => {
                    client_runtime.block_on(rust_reader(&client, url, input))?
                }
                (Reader::Official, Some(nc)) => nc.run(url)?,
                (Reader::Official, None) => unreachable!("official pairs need node"),
            };
            // The HttpAgent delivers the chunk shorthands expanded; the others read them.
            let expected = if pair.reader == Reader::RustClient {
                delivered
            } else {
                n
            };
            if s.events != expected {
                return Err(format!(
                    "{}: {} events read, {expected} expected ({n} served)",
                    pair.name, s.events
                )
                .into());
            }
            if round > 0 {
                pair.samples.push(s);
            }
        }
    }
    drop(node_client);
    drop(node_server);
    let _ = std::fs::remove_file(&corpus_file);

    pairs.retain(|p| !p.samples.is_empty());
    println!(
        "\nserve: streaming corpus, {n} events, {:.2} MB of JSON, one run per request, median of {rounds} rounds",
        bytes as f64 / 1e6
    );
    println!("| server, client | events/s | MB/s | time to first event | events/s vs Node pair |");
    println!("|---|---:|---:|---:|---:|");
    let node_pair = pairs
        .iter()
        .find(|p| p.name.starts_with("Node server (@ag-ui/encoder), official"))
        .map(|p| p.events_per_sec(n));
    for p in &pairs {
        let eps = p.events_per_sec(n);
        let ratio = node_pair.map_or("–".to_owned(), |b| format!("{:.1}x", eps / b));
        println!(
            "| {} | {:.0} | {:.1} | {:.2} ms | {} |",
            p.name,
            eps,
            eps * bytes as f64 / n as f64 / 1e6,
            p.first().as_secs_f64() * 1000.0,
            ratio
        );
    }
    let find = |server, reader| {
        pairs
            .iter()
            .find(|p| p.server == server && p.reader == reader)
    };
    for (reader, what) in [
        (Reader::SseDecode, "Rust reader (SSE + decode)"),
        (Reader::RustClient, "Rust client (HttpAgent)"),
    ] {
        if let (Some(production), Some(previous)) =
            (find(Server::Rust, reader), find(Server::RustAxum, reader))
        {
            println!(
                "production serve path vs axum::serve, {what}: events/s {:.2}x, time to first event {:.2}x",
                production.events_per_sec(n) / previous.events_per_sec(n),
                production.first().as_secs_f64() / previous.first().as_secs_f64()
            );
        }
    }
    if let Some(theirs) = find(Server::Node, Reader::Official) {
        for (reader, what) in [
            (Reader::RustClient, "Rust client (HttpAgent)"),
            (Reader::SseDecode, "Rust reader (SSE + decode)"),
        ] {
            if let Some(ours) = find(Server::Rust, reader) {
                println!(
                    "Rust server with the {what} vs the Node pair: events/s {:.1}x, time to first event {:.1}x shorter",
                    ours.events_per_sec(n) / theirs.events_per_sec(n),
                    theirs.first().as_secs_f64() / ours.first().as_secs_f64()
                );
            }
        }
    }
    Ok(())
}

fn node_available(interop: &Path) -> Result<(), String> {
    if !interop.join("node_modules/@ag-ui/client").exists() {
        return Err("scripts/interop/node_modules missing: run `npm ci` there".into());
    }
    Command::new("node")
        .arg("--version")
        .output()
        .map_err(|e| format!("node: {e}"))
        .map(drop)
}

/// The cost of observability: the same service served twice in one process, once with
/// logging at info, spans exported through an OpenTelemetry batch exporter that drops them,
/// and metrics (the "on" server), once with none of them (the "off" server), both read by
/// the Rust reader (SSE + decode). Each round runs both, in alternating order; the report
/// is the median of the per-round ratios of time per run (on / off), with the lowest and
/// highest round.
///
/// Each server has its own two-worker runtime; the "on" runtime's threads have the
/// subscriber as their default (so the "off" server's threads have none), and the "off"
/// service has no metrics.
mod observability {
    #[cfg(all(feature = "otel", feature = "metrics", feature = "logging"))]
    pub(crate) fn compare(rounds: usize) -> Result<(), Box<dyn std::error::Error>> {
        use std::sync::{Arc, Mutex};
        use std::time::Duration;

        use ag_ui_core::{Event, RunAgentInput};
        use ag_ui_server::{AgentService, Cancellation};
        use opentelemetry::trace::TracerProvider as _;
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::{Layer, filter::LevelFilter};

        /// Spans exported in batches, then dropped.
        #[derive(Debug)]
        struct Discard;

        impl opentelemetry_sdk::trace::SpanExporter for Discard {
            fn export(
                &self,
                batch: Vec<opentelemetry_sdk::trace::SpanData>,
            ) -> impl std::future::Future<Output = opentelemetry_sdk::error::OTelSdkResult> + Send
            {
                drop(batch);
                std::future::ready(Ok(()))
            }
        }

        let corpus = super::corpus::streaming(super::corpus::SEED, super::EVENTS);
        let events: Arc<Vec<Event>> = Arc::new(
            corpus
                .lines
                .iter()
                .map(|l| ag_ui_core::read::from_str(l))
                .collect::<Result<_, _>>()?,
        );
        let n = events.len();
        let agent = move |_: RunAgentInput, _: Cancellation| {
            let events = Arc::clone(&events);
            futures_util::stream::iter(
                (0..events.len())
                    .map(move |i| Ok::<_, std::convert::Infallible>(events[i].clone())),
            )
        };

        // The "on" side: a JSON log at info into a file (what `logging::install` writes
        // to stderr), spans at info to the discarding exporter, metrics on the service.
        let log_path = std::env::temp_dir().join(format!(
            "ag-ui-serve-bench-observability-{}.log",
            std::process::id()
        ));
        let log_file = std::fs::File::create(&log_path)?;
        let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
            .with_batch_exporter(Discard)
            .build();
        // `AG_UI_BENCH_OBSERVE=log,spans,metrics` (the default: all three) picks what the
        // "on" server has, to find where a cost is.
        let parts =
            std::env::var("AG_UI_BENCH_OBSERVE").unwrap_or_else(|_| "log,spans,metrics".to_owned());
        let has = |part: &str| parts.split(',').any(|p| p.trim() == part);
        let subscriber = tracing_subscriber::registry()
            .with(has("spans").then(|| {
                let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("ag-ui"));
                // As `otel::OtlpExport::layer` sets it up: no busy/idle timings, no
                // OpenTelemetry context attached on every enter of a span.
                // `AG_UI_BENCH_OTEL_DEFAULTS=1`: the layer's defaults (both on) instead.
                let layer = if std::env::var("AG_UI_BENCH_OTEL_DEFAULTS").is_ok() {
                    layer
                } else {
                    layer
                        .with_tracked_inactivity(false)
                        .with_context_activation(false)
                };
                layer.with_filter(LevelFilter::INFO)
            }))
            .with(has("log").then(|| {
                tracing_subscriber::fmt::layer()
                    .json()
                    .with_current_span(true)
                    .with_span_list(true)
                    .with_writer(Mutex::new(log_file))
                    .with_filter(LevelFilter::INFO)
            }));
        let dispatch = tracing::Dispatch::new(subscriber);
        let metrics = ag_ui_server::metrics::Metrics::new();

        let runtime_on = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .on_thread_start(move || {
                // The runtime's threads live as long as the process: keep the default.
                std::mem::forget(tracing::dispatcher::set_default(&dispatch));
            })
            .build()?;
        let runtime_off = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let serve = |runtime: &tokio::runtime::Runtime, service: AgentService<_>| {
            runtime.block_on(async {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let url = format!("http://{}/", listener.local_addr()?);
                tokio::spawn(ag_ui_server::axum::serve(
                    listener,
                    ag_ui_server::axum::service_router(service),
                ));
                Ok::<_, std::io::Error>(url)
            })
        };
        let mut on_service = AgentService::new(agent.clone()).agent_name("bench");
        if has("metrics") {
            on_service = on_service.metrics(metrics.clone());
        }
        let on_url = serve(&runtime_on, on_service)?;
        let off_url = serve(&runtime_off, AgentService::new(agent).agent_name("bench"))?;

        let client_runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let client = reqwest::Client::new();
        let input = br#"{"threadId":"bench","runId":"bench-run","messages":[],"tools":[],"context":[],"forwardedProps":{},"state":{}}"#;
        let run = |url: &str| -> Result<super::Sample, Box<dyn std::error::Error>> {
            let s = client_runtime.block_on(super::rust_reader(&client, url, input))?;
            if s.events != n {
                return Err(format!("{url}: {} events read, {n} expected", s.events).into());
            }
            Ok(s)
        };
        let (mut time_ratios, mut first_ratios) = (Vec::new(), Vec::new());
        let (mut on_times, mut off_times) = (Vec::new(), Vec::new());
        // One warm-up round, then the measured ones; the order alternates by round.
        for round in 0..=rounds {
            let (on, off) = if round % 2 == 0 {
                let on = run(&on_url)?;
                (on, run(&off_url)?)
            } else {
                let off = run(&off_url)?;
                (run(&on_url)?, off)
            };
            if round > 0 {
                time_ratios.push(on.total.as_secs_f64() / off.total.as_secs_f64());
                first_ratios.push(on.first.as_secs_f64() / off.first.as_secs_f64());
                on_times.push(on.total);
                off_times.push(off.total);
            }
        }
        let _ = provider.shutdown();
        let log_bytes = std::fs::metadata(&log_path).map(|m| m.len()).unwrap_or(0);
        let _ = std::fs::remove_file(&log_path);
        let scraped = metrics.encode();
        let counted = scraped
            .lines()
            .find(|l| l.starts_with("agui_runs_started_total "))
            .unwrap_or("agui_runs_started_total ?");

        let median = |mut xs: Vec<f64>| {
            xs.sort_by(f64::total_cmp);
            (xs[xs.len() / 2], xs[0], xs[xs.len() - 1])
        };
        let (time, time_low, time_high) = median(time_ratios);
        let (first, first_low, first_high) = median(first_ratios);
        let per_sec = |d: Duration| n as f64 / d.as_secs_f64();
        println!(
            "\nserve, observability ({parts}) on / off: streaming corpus, {n} events per run, Rust reader (SSE + decode), {rounds} rounds"
        );
        println!(
            "off: median {:.0} events/s; on: median {:.0} events/s",
            per_sec(super::median(off_times)),
            per_sec(super::median(on_times))
        );
        println!(
            "time per run, on / off: median {time:.3} (lowest {time_low:.3}, highest {time_high:.3})"
        );
        println!(
            "time to first event, on / off: median {first:.3} (lowest {first_low:.3}, highest {first_high:.3})"
        );
        println!("log written: {log_bytes} bytes; {counted}");
        Ok(())
    }

    #[cfg(not(all(feature = "otel", feature = "metrics", feature = "logging")))]
    pub(crate) fn compare(_rounds: usize) -> Result<(), Box<dyn std::error::Error>> {
        Err("the observability comparison needs `--features otel,metrics,logging`".into())
    }
}
