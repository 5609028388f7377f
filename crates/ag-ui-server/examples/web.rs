//! Serves the demo agent (`ag_ui_server::demo`) and a web page that chats with it.
//!
//! `cargo run -p ag-ui-server --example web -- [ADDR] [--pace-ms N] [--log-runs]
//! [--client-bundle PATH] [--threads postgres://…|sqlite://PATH] [--bearer TOKEN=PRINCIPAL]...`
//!
//! Open the printed address in a browser. The page (HTML and JavaScript embedded in this
//! binary, no build step) streams the agent's text, reasoning and tool calls, shows the
//! shared state as it is patched, and answers an interrupt with a button.
//!
//! - `GET /`: the page; `GET /app.js`: its script. `GET /?agent=URL` points the page at
//!   another AG-UI endpoint that allows its origin (`ag-ui replay` of a recorded run).
//! - `POST /agent`: the demo agent (an AG-UI endpoint; the scenario is
//!   `forwardedProps.scenario`).
//! - with `--threads` or `--bearer`, resumable runs and the threads API below `/agent`:
//!   `GET /agent/runs/{runId}/events`, `POST /agent/runs/{runId}/stop`, `GET
//!   /agent/threads`, `GET`, `PATCH` and `DELETE /agent/threads/{threadId}`.
//! - `GET /ag-ui-client.js`: with `--client-bundle PATH`, the file at PATH (a browser bundle
//!   of the official `@ag-ui/client`, built as the README says); the page then offers it as
//!   the client. Without the option the route answers 404.
//!
//! ADDR defaults to `127.0.0.1:8080` (port 0 picks a free port). The bound address is the
//! first line on stdout; the server runs until it is killed. `--pace-ms` pauses between the
//! chat scenario's events (default 120, so that the streaming is visible). `--log-runs`
//! writes one JSON line per run to stderr when it starts (`"event":"started"`, with the
//! scenario and the input's `protocolVersion`) and when it ends: `"ended"` when the agent's
//! stream finished, `"cancelled"` when the client went away first and the run's
//! cancellation was tripped (the agent stops there), with the number of events produced.
//!
//! `--threads sqlite://PATH` (a file, relative to the working directory, created when
//! missing) or `--threads postgres://…` keeps every conversation durably, and turns
//! resumable runs on: the page keeps its thread's id in the browser's `localStorage` and,
//! when it loads, reads the thread back from `GET /agent/threads/{threadId}`, so a
//! conversation survives a reload and a restart of the server. Its sidebar lists the
//! threads (`GET /agent/threads`), opens, renames, archives and deletes them, titles a new
//! thread from its first user message, and reads the open thread again when another tab or
//! client ran it (docs/threads.md, "The web demo"). `--bearer TOKEN=PRINCIPAL`
//! (repeatable) makes every `/agent` request need a known bearer token (the page has a
//! field for it; the page and its script stay public); each principal sees only its own
//! threads. Without `--bearer` every thread belongs to one anonymous principal.

use std::io::Write;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ag_ui_core::{BoxError, Event, RunAgentInput};
use ag_ui_server::demo::{DemoAgent, scenario};
use ag_ui_server::runs::Runs;
use ag_ui_server::{Agent, AgentService, Cancellation};
use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_core::Stream;
use serde_json::json;

/// One run's events (the type `Agent::run` returns).
type Events = Pin<Box<dyn Stream<Item = Result<Event, BoxError>> + Send>>;

#[path = "shared/threads_options.rs"]
mod threads_options;
use threads_options::ThreadsOptions;

const HELP: &str = "\
Serves the AG-UI demo agent at POST /agent and a page that chats with it at GET /.

usage: web [ADDR] [OPTIONS]

ADDR                     address to bind (default 127.0.0.1:8080; port 0 picks a free port); the
                         bound address is printed as the first line
--pace-ms N              pause between the events of the chat scenario (default 120)
--log-runs               a JSON line on stderr as each run starts and ends
--client-bundle PATH     serve a browser bundle of @ag-ui/client at /ag-ui-client.js
";

const PAGE: &str = include_str!("web/index.html");
const SCRIPT: &str = include_str!("web/app.js");

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut addr = "127.0.0.1:8080".to_owned();
    let mut pace = Duration::from_millis(120);
    let mut log_runs = false;
    let mut bundle: Option<String> = None;
    let mut threads = ThreadsOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if threads.take(&arg, &mut args)? {
            continue;
        }
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--pace-ms" => {
                let v = value("--pace-ms")?;
                pace = Duration::from_millis(v.parse().map_err(|e| format!("--pace-ms {v}: {e}"))?);
            }
            "--client-bundle" => bundle = Some(value("--client-bundle")?),
            "--log-runs" => log_runs = true,
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
    let bundle = match bundle {
        Some(path) => Some(Arc::new(
            std::fs::read_to_string(&path).map_err(|e| format!("--client-bundle {path}: {e}"))?,
        )),
        None => None,
    };

    let agent = Logged {
        inner: DemoAgent::with_pace(pace),
        on: log_runs,
    };
    let service = AgentService::new(agent);
    let agent_routes = if threads.resumable() {
        let runs = threads.apply(Runs::in_memory()).await?;
        Router::new().nest(
            "/agent",
            ag_ui_server::axum::service_router(service.runs(runs)),
        )
    } else {
        Router::new().route_service("/agent", service)
    };
    let app = Router::new()
        .route("/", get(|| async { page(PAGE, "text/html; charset=utf-8") }))
        .route(
            "/app.js",
            get(|| async { page(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/ag-ui-client.js",
            get(move || async move {
                match bundle {
                    Some(js) => page(js.as_str(), "text/javascript; charset=utf-8"),
                    None => (
                        StatusCode::NOT_FOUND,
                        "no client bundle: start the example with --client-bundle PATH (see the README)",
                    )
                        .into_response(),
                }
            }),
        )
        .merge(agent_routes);

    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", listener.local_addr()?)?;
    out.flush()?;
    drop(out);
    ag_ui_server::axum::serve(listener, app).await?;
    Ok(())
}

fn page(body: &str, content_type: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.to_owned(),
    )
        .into_response()
}

/// The demo agent, with a line on stderr when a run starts and when it ends (if `on`).
struct Logged {
    inner: DemoAgent,
    on: bool,
}

impl Agent for Logged {
    fn run(&self, input: RunAgentInput, cancel: Cancellation) -> Events {
        if !self.on {
            return self.inner.run(input, cancel);
        }
        let fields = json!({
            "runId": input.run_id.as_str(),
            "threadId": input.thread_id.as_str(),
            "scenario": scenario(&input),
            "protocolVersion": input.protocol_version.clone(),
            "messages": input.messages.len(),
            "tools": input.tools().len(),
            "resume": input.resume.as_ref().map_or(0, Vec::len),
        });
        log("started", &fields, 0);
        Box::pin(LoggedStream {
            events: self.inner.run(input, cancel.clone()),
            cancel,
            fields,
            count: 0,
            ended: false,
        })
    }
}

struct LoggedStream {
    events: Events,
    cancel: Cancellation,
    fields: serde_json::Value,
    count: usize,
    ended: bool,
}

impl Stream for LoggedStream {
    type Item = Result<Event, BoxError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = self.events.as_mut().poll_next(cx);
        match &polled {
            Poll::Ready(Some(_)) => self.count += 1,
            Poll::Ready(None) if !self.ended => {
                self.ended = true;
                log("ended", &self.fields, self.count);
            }
            _ => {}
        }
        polled
    }
}

impl Drop for LoggedStream {
    fn drop(&mut self) {
        if !self.ended {
            // The server drops a finished run's stream without polling it to its end.
            let what = if self.cancel.is_cancelled() {
                "cancelled"
            } else {
                "ended"
            };
            log(what, &self.fields, self.count);
        }
    }
}

fn log(event: &str, fields: &serde_json::Value, events: usize) {
    let mut line = fields.clone();
    if let Some(obj) = line.as_object_mut() {
        obj.insert("event".into(), json!(event));
        obj.insert("events".into(), json!(events));
    }
    eprintln!("{line}");
}
