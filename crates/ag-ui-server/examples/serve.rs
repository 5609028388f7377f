//! Serves the demo agent (`ag_ui_server::demo`) at `POST /` with the production server,
//! and its capabilities at `GET /capabilities`.
//!
//! `cargo run -p ag-ui-server --example serve -- [ADDR] [OPTIONS]` (`--help` lists them).
//!
//! ADDR defaults to `127.0.0.1:0` (port 0 picks a free port). The bound address is the
//! first line on stdout; the server runs until it is killed.
//!
//! `--resumable` keeps runs in an in-memory run log (the non-standard extension in
//! `ag_ui_server::runs`): every frame carries its cursor as its SSE `id:`, runs can be
//! joined at `GET /runs/{runId}/events` (with `Last-Event-ID` or `?after=`), stopped with
//! `POST /runs/{runId}/stop`, and threads read at `GET /threads/{threadId}`; the
//! capabilities then declare `transport.resumable`. `--on-disconnect` says what a run does
//! when its last subscriber goes away (default: a 30 s grace period), `--retention-ms` how
//! long an ended run stays joinable (default 5 minutes). Both need `--resumable`.
//!
//! Runs shared by several instances on Redis: `cargo run -p ag-ui-redis --example serve_redis --
//! --store redis://HOST:PORT/DB [--lease-ms N]` (the same demo, resumable; of this example's
//! options it takes `--pace-ms`, `--keep-alive-ms`, `--on-disconnect`, `--retention-ms`,
//! `--cors-origin`, `--threads` and `--bearer`).
//!
//! `--threads postgres://…|sqlite://PATH` keeps every thread durably (PostgreSQL for several
//! instances, a SQLite file for one machine; `ag-ui-sql`) and turns resumable runs on: a
//! thread read at `GET /threads/{threadId}` after a restart is whole. `--bearer
//! TOKEN=PRINCIPAL` (repeatable) authenticates every request by its bearer token (401
//! with `WWW-Authenticate` otherwise); each principal sees only its own runs and threads.
//! Without `--bearer` every thread belongs to one anonymous principal. (See
//! `docs/threads.md`.)
//!
//! `--cors-origin ORIGIN` lets browser pages from ORIGIN call every route
//! (`ag_ui_server::cors::cors_layer`: `GET` and `POST`, `Last-Event-ID` allowed,
//! `Content-Location` readable).
//!
//! Built with `--features metrics,logging,otel`: `--metrics` serves Prometheus metrics at
//! `GET /metrics`, the log goes to stderr (`RUST_LOG`, `--log-format text|json`), and spans
//! are exported when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (see `docs/observability.md`).

use std::io::Write;
use std::time::Duration;

use ag_ui_core::{AgentCapabilities, IdentityCapabilities, TransportCapabilities};
use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::serve::ServeConfig;

const HELP: &str = "\
Serves the AG-UI demo agent at POST / (HTTP/1.1, and HTTP/2 by prior knowledge).

usage: serve [ADDR] [OPTIONS]

ADDR                     address to bind (default 127.0.0.1:0: a free loopback port); the
                         bound address is printed as the first line
--pace-ms N              pause between the events of the chat scenario (default 0)
--keep-alive-ms N        keep-alive comment after N ms without an event (default 15000)
--header-timeout-ms N    time a request head may take, from the connection's first moment
                         or a new request's first byte (default 10000)
--body-timeout-ms N      time a request body may take after its head; then 408 (default 30000)
--idle-timeout-ms N      time a connection may stay open without a request (default 60000)
--write-timeout-ms N     time the server waits for a client to accept any byte of a response;
                         then the connection is closed (default 60000)
--body-limit BYTES       largest request body; larger ones get 413 (default 8388608)
--max-connections N      connections served at once; more wait in the backlog (default 1000)
--backlog N              listen backlog (default 4096, capped by net.core.somaxconn)
--cors-origin ORIGIN     let browser pages from ORIGIN (scheme://host[:port]) call every route
                         (the agent, the capabilities, with --resumable joins, stops, threads);
                         repeatable
--expose-errors          send the agent's error text to clients (default: a generic message
                         with an error id, the text only in the log)
--resumable              keep runs in an in-memory run log: joinable at GET /runs/{runId}/events
                         (Last-Event-ID or ?after=), stoppable at POST /runs/{runId}/stop, threads
                         at GET /threads/{threadId}
--on-disconnect POLICY   with --resumable: cancel, continue or grace-ms=N (default: a 30 s grace)
--retention-ms N         with --resumable: how long an ended run stays joinable (default 300000)
--metrics                Prometheus metrics at GET /metrics (feature metrics)
--log-format FORMAT      text or json: the log on stderr (feature logging; RUST_LOG filters)
";
use ag_ui_server::runs::{DisconnectPolicy, MemoryLimits, MemoryStore, Runs};

#[path = "shared/threads_options.rs"]
mod threads_options;
use threads_options::ThreadsOptions;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut addr = "127.0.0.1:0".to_owned();
    let mut pace = Duration::ZERO;
    let mut keep_alive = ag_ui_server::DEFAULT_KEEP_ALIVE;
    let mut config = ServeConfig::new();
    let mut body_limit = ag_ui_server::DEFAULT_BODY_LIMIT;
    let mut origins = Vec::new();
    let mut expose_errors = false;
    let mut resumable = false;
    let mut on_disconnect = None;
    let mut retention = None;
    let mut threads = ThreadsOptions::default();
    let (mut metrics, mut log_format) = (false, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if threads.take(&arg, &mut args)? {
            continue;
        }
        let mut value = |name: &str| -> Result<String, String> {
            args.next()
                .ok_or(format!("{name} needs a value (see --help)"))
        };
        let number = |name: &str, v: String| -> Result<u64, String> {
            v.parse().map_err(|e| format!("{name} {v}: {e}"))
        };
        match arg.as_str() {
            "-h" | "--help" => {
                println!(
                    "{HELP}{}-h, --help               this text",
                    threads_options::HELP
                );
                return Ok(());
            }
            "--pace-ms" => pace = Duration::from_millis(number(&arg, value(&arg)?)?),
            "--keep-alive-ms" => keep_alive = Duration::from_millis(number(&arg, value(&arg)?)?),
            "--header-timeout-ms" => {
                config = config.header_timeout(Duration::from_millis(number(&arg, value(&arg)?)?));
            }
            "--body-timeout-ms" => {
                config = config.body_timeout(Duration::from_millis(number(&arg, value(&arg)?)?));
            }
            "--idle-timeout-ms" => {
                config = config.idle_timeout(Duration::from_millis(number(&arg, value(&arg)?)?));
            }
            "--write-timeout-ms" => {
                config = config.write_timeout(Duration::from_millis(number(&arg, value(&arg)?)?));
            }
            "--body-limit" => body_limit = usize::try_from(number(&arg, value(&arg)?)?)?,
            "--max-connections" => {
                config = config.max_connections(usize::try_from(number(&arg, value(&arg)?)?)?);
            }
            "--backlog" => config = config.backlog(u32::try_from(number(&arg, value(&arg)?)?)?),
            "--cors-origin" => origins.push(value(&arg)?.parse()?),
            "--expose-errors" => expose_errors = true,
            "--retention-ms" => {
                retention = Some(Duration::from_millis(number(&arg, value(&arg)?)?));
            }
            "--resumable" => resumable = true,
            "--metrics" => metrics = true,
            "--log-format" => log_format = Some(value(&arg)?),
            "--on-disconnect" => on_disconnect = Some(policy(&value(&arg)?)?),
            "--store" | "--lease-ms" => {
                return Err(format!(
                    "{arg}: runs on Redis are served by `cargo run -p ag-ui-redis --example serve_redis`"
                )
                .into());
            }
            _ if arg.starts_with('-') => {
                return Err(format!("unknown option {arg} (see --help)").into());
            }
            _ => addr = arg,
        }
    }
    resumable |= threads.resumable();
    if !resumable && (on_disconnect.is_some() || retention.is_some()) {
        return Err("--on-disconnect and --retention-ms need --resumable (or --threads)".into());
    }
    let capabilities = AgentCapabilities::new()
        .with_identity(
            IdentityCapabilities::new()
                .with_name("demo")
                .with_description("the ag-ui-server demo agent"),
        )
        .with_transport(TransportCapabilities::new().with_streaming(true));
    let mut service = AgentService::new(DemoAgent::with_pace(pace))
        .keep_alive(Some(keep_alive))
        .body_limit(body_limit)
        .expose_errors(expose_errors)
        .capabilities(capabilities);
    if resumable {
        let mut limits = MemoryLimits::default();
        if let Some(r) = retention {
            limits = limits.retention(r);
        }
        let mut runs = Runs::new(MemoryStore::with_limits(limits));
        if let Some(p) = on_disconnect {
            runs = runs.on_disconnect(p);
        }
        service = service.runs(threads.apply(runs).await?);
    }
    let logging = observe::install(log_format.as_deref())?;
    let service = observe::metrics(service, metrics)?;
    let mut router = ag_ui_server::axum::service_router(service);
    if !origins.is_empty() {
        router = router.layer(ag_ui_server::cors::cors_layer(origins));
    }
    let listener = config.bind(&addr).await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", listener.local_addr()?)?;
    out.flush()?;
    drop(out);
    let served = tokio::select! {
        served = ag_ui_server::axum::serve_with(listener, router, config) => served,
        _ = tokio::signal::ctrl_c() => Ok(()),
    };
    observe::shutdown(logging);
    served?;
    Ok(())
}

/// `--metrics` and `--log-format`, with the features that serve them or an error that
/// names the missing feature.
mod observe {
    use ag_ui_server::{Agent, AgentService};

    type Error = Box<dyn std::error::Error>;

    #[cfg(feature = "logging")]
    pub(crate) type Logging = ag_ui_server::logging::Logging;
    /// Nothing to keep without the `logging` feature.
    #[cfg(not(feature = "logging"))]
    pub(crate) struct Logging;

    /// The stderr subscriber (and, with `otel`, the span export).
    #[cfg(feature = "logging")]
    pub(crate) fn install(format: Option<&str>) -> Result<Logging, Error> {
        Ok(ag_ui_server::logging::install(
            format.unwrap_or("text").parse()?,
        )?)
    }

    #[cfg(not(feature = "logging"))]
    pub(crate) fn install(format: Option<&str>) -> Result<Logging, Error> {
        match format {
            Some(_) => Err("--log-format needs the logging feature (--features logging)".into()),
            None => Ok(Logging),
        }
    }

    /// Sends the last spans.
    pub(crate) fn shutdown(logging: Logging) {
        #[cfg(feature = "logging")]
        logging.shutdown();
        #[cfg(not(feature = "logging"))]
        let Logging = logging;
    }

    /// `service` with metrics when `on`.
    #[cfg(feature = "metrics")]
    pub(crate) fn metrics<A: Agent>(
        service: AgentService<A>,
        on: bool,
    ) -> Result<AgentService<A>, Error> {
        Ok(if on {
            service.metrics(ag_ui_server::metrics::Metrics::new())
        } else {
            service
        })
    }

    #[cfg(not(feature = "metrics"))]
    pub(crate) fn metrics<A: Agent>(
        service: AgentService<A>,
        on: bool,
    ) -> Result<AgentService<A>, Error> {
        if on {
            return Err("--metrics needs the metrics feature (--features metrics)".into());
        }
        Ok(service)
    }
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
