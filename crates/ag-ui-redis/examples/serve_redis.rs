//! Serves the demo agent (`ag_ui_server::demo`) at `POST /` with resumable runs, kept in
//! memory or on Redis, so that several instances can share runs.
//!
//! `cargo run -p ag-ui-redis --example serve_redis -- [ADDR] [--store memory|redis://HOST:PORT/DB]
//! [--lease-ms N] [--prefix P] [--pace-ms N] [--keep-alive-ms N]
//! [--on-disconnect cancel|continue|grace-ms=N] [--retention-ms N] [--cors-origin ORIGIN]...
//! [--threads postgres://…|sqlite://PATH] [--bearer TOKEN=PRINCIPAL]...
//! [--metrics] [--log-format text|json]`
//!
//! `--metrics` serves Prometheus metrics at `GET /metrics`; the log goes to stderr
//! (`RUST_LOG` filters it, default `info`); spans are exported when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set (see `docs/observability.md`).
//!
//! ADDR defaults to `127.0.0.1:0` (port 0 picks a free port). The bound address is the
//! first line on stdout; the server runs until it is killed. `--cors-origin` lets browser
//! pages from ORIGIN (`scheme://host[:port]`, repeatable) call every route
//! (`ag_ui_server::cors::cors_layer`), as `serve --cors-origin` does.
//!
//! With `--store redis://…` (or `rediss://…` with the `tls` feature; the URL may carry
//! credentials, never printed) every instance started with the same URL and prefix
//! shares runs: a run started on one is joined at `GET /runs/{runId}/events` (with
//! `Last-Event-ID`) and stopped with `POST /runs/{runId}/stop` on any other (threads are
//! kept in each instance's memory, read at `GET /threads/{threadId}`). `--lease-ms` is the
//! owner's lease (default 10 s): when an instance dies, its runs end with `RUN_ERROR`
//! `run_orphaned` within it. Redis unavailable at start is an error (exit status 1). On Redis the disconnect policy
//! defaults to `continue` (a client may rejoin on another instance, which the owner does
//! not count). The default store is memory (`ag-ui-server`'s `serve --resumable`).
//!
//! `--threads postgres://…` keeps every thread durably in PostgreSQL (`ag-ui-sql`), which
//! every instance shares: with Redis for the live runs, this is the production setup
//! (`docs/threads.md`); a thread written through one instance is read whole through any
//! other, and after every instance restarted. (`--threads sqlite://PATH` is for one
//! instance.) `--bearer TOKEN=PRINCIPAL` (repeatable) authenticates every request by its
//! bearer token (401 with `WWW-Authenticate` otherwise); each principal sees only its own
//! runs and threads. Without `--bearer` every thread belongs to one anonymous principal.

use std::io::Write;
use std::time::Duration;

use ag_ui_core::{AgentCapabilities, IdentityCapabilities, TransportCapabilities};
use ag_ui_redis::{RedisConfig, RedisStore};
use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::{DisconnectPolicy, MemoryLimits, MemoryStore, Runs};

#[path = "../../ag-ui-server/examples/shared/threads_options.rs"]
mod threads_options;
use threads_options::ThreadsOptions;

const HELP: &str = "\
Serves the AG-UI demo agent at POST / with resumable runs in memory or on Redis.

usage: serve_redis [ADDR] [OPTIONS]

ADDR                     address to bind (default 127.0.0.1:0: a free loopback port); the
                         bound address is printed as the first line
--store memory|URL       where live runs are kept: memory (default) or redis://HOST:PORT/DB
                         (every instance with the same URL and prefix shares runs)
--lease-ms N             with redis: the owner's lease on its runs (default 10000)
--prefix P               with redis: the key prefix
--pace-ms N              pause between the events of the chat scenario (default 0)
--keep-alive-ms N        keep-alive comment after N ms without an event (default 15000)
--on-disconnect POLICY   cancel, continue or grace-ms=N (default: continue on Redis)
--retention-ms N         how long an ended run stays joinable (default 300000)
--cors-origin ORIGIN     let browser pages from ORIGIN call every route; repeatable
--max-connections N      connections served at once; more wait in the backlog (default 1000;
                         each needs a file descriptor: raise `ulimit -n` above N)
--header-timeout-ms N    time a request head may take, from the connection's first moment
                         (default 10000; raise it when thousands connect at once)
--metrics                Prometheus metrics at GET /metrics
--log-format FORMAT      text or json: the log on stderr (RUST_LOG filters; default info)
";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut addr = "127.0.0.1:0".to_owned();
    let mut pace = Duration::ZERO;
    let mut keep_alive = ag_ui_server::DEFAULT_KEEP_ALIVE;
    let mut store = "memory".to_owned();
    let mut lease = None;
    let mut prefix = None;
    let mut on_disconnect = None;
    let mut retention = None;
    let mut origins = Vec::new();
    let mut config = ag_ui_server::serve::ServeConfig::new();
    let mut threads = ThreadsOptions::default();
    let (mut metrics, mut log_format) = (false, ag_ui_server::logging::LogFormat::Text);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if threads.take(&arg, &mut args)? {
            continue;
        }
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let millis = |name: &str, v: String| -> Result<Duration, String> {
            v.parse()
                .map(Duration::from_millis)
                .map_err(|e| format!("{name} {v}: {e}"))
        };
        match arg.as_str() {
            "--pace-ms" => pace = millis(&arg, value(&arg)?)?,
            "--max-connections" => {
                let v = value(&arg)?;
                let n: usize = v.parse().map_err(|e| format!("{arg} {v}: {e}"))?;
                config = config.max_connections(n);
            }
            "--header-timeout-ms" => config = config.header_timeout(millis(&arg, value(&arg)?)?),
            "--keep-alive-ms" => keep_alive = millis(&arg, value(&arg)?)?,
            "--retention-ms" => retention = Some(millis(&arg, value(&arg)?)?),
            "--lease-ms" => lease = Some(millis(&arg, value(&arg)?)?),
            "--store" => store = value(&arg)?,
            "--prefix" => prefix = Some(value(&arg)?),
            "--metrics" => metrics = true,
            "--log-format" => log_format = value(&arg)?.parse()?,
            "--on-disconnect" => on_disconnect = Some(policy(&value(&arg)?)?),
            "--cors-origin" => {
                let origin = value(&arg)?;
                origins.push(
                    origin
                        .parse()
                        .map_err(|e| format!("--cors-origin {origin}: {e}"))?,
                );
            }
            "-h" | "--help" => {
                println!(
                    "{HELP}{}-h, --help               this text",
                    threads_options::HELP
                );
                return Ok(());
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}").into()),
            _ => addr = arg,
        }
    }
    let logging = ag_ui_server::logging::install(log_format)?;
    let mut runs = if store == "memory" {
        if lease.is_some() || prefix.is_some() {
            return Err("--lease-ms and --prefix need --store redis://…".into());
        }
        let mut limits = MemoryLimits::default();
        if let Some(r) = retention {
            limits = limits.retention(r);
        }
        Runs::new(MemoryStore::with_limits(limits))
    } else if store.starts_with("redis://")
        || store.starts_with("rediss://")
        || store.starts_with("redis+unix://")
    {
        let mut config = RedisConfig::new(store);
        if let Some(l) = lease {
            config = config.lease(l);
        }
        if let Some(p) = prefix {
            config = config.prefix(p);
        }
        if let Some(r) = retention {
            config = config.retention(r);
        }
        RedisStore::connect(config).await?.runs()
    } else {
        return Err("--store: expected memory or a redis:// URL".into());
    };
    if let Some(p) = on_disconnect {
        runs = runs.on_disconnect(p);
    }
    let runs = threads.apply(runs).await?;
    let capabilities = AgentCapabilities::new()
        .with_identity(
            IdentityCapabilities::new()
                .with_name("demo")
                .with_description("the ag-ui-server demo agent"),
        )
        .with_transport(TransportCapabilities::new().with_streaming(true));
    let mut service = AgentService::new(DemoAgent::with_pace(pace))
        .keep_alive(Some(keep_alive))
        .capabilities(capabilities)
        .runs(runs);
    if metrics {
        service = service.metrics(ag_ui_server::metrics::Metrics::new());
    }
    let mut router = ag_ui_server::axum::service_router(service);
    if !origins.is_empty() {
        router = router.layer(ag_ui_server::cors::cors_layer(origins));
    }
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", listener.local_addr()?)?;
    out.flush()?;
    drop(out);
    let served = tokio::select! {
        served = ag_ui_server::axum::serve_with(listener, router, config) => served,
        _ = tokio::signal::ctrl_c() => Ok(()),
    };
    logging.shutdown();
    served?;
    Ok(())
}

/// `cancel`, `continue` or `grace-ms=N`.
fn policy(value: &str) -> Result<DisconnectPolicy, String> {
    match value {
        "cancel" => Ok(DisconnectPolicy::Cancel),
        "continue" => Ok(DisconnectPolicy::Continue),
        _ => match value.strip_prefix("grace-ms=").map(str::parse::<u64>) {
            Some(Ok(ms)) => Ok(DisconnectPolicy::Grace(Duration::from_millis(ms))),
            _ => Err(format!(
                "--on-disconnect {value}: expected cancel, continue or grace-ms=N"
            )),
        },
    }
}
