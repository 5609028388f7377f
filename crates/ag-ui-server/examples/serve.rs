//! Serves the demo agent (`ag_ui_server::demo`) at `POST /`, and its capabilities at
//! `GET /capabilities`.
//!
//! `cargo run -p ag-ui-server --example serve -- [ADDR] [--pace-ms N] [--keep-alive-ms N]
//! [--resumable] [--on-disconnect cancel|continue|grace-ms=N] [--retention-ms N]`
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
//! Runs shared by several instances on Redis: `cargo run -p ag-ui-redis --example serve --
//! --store redis://HOST:PORT/DB [--lease-ms N]` (the same demo, the same options).

use std::io::Write;
use std::time::Duration;

use ag_ui_core::{AgentCapabilities, IdentityCapabilities, TransportCapabilities};
use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::{DisconnectPolicy, MemoryLimits, MemoryStore, Runs};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut addr = "127.0.0.1:0".to_owned();
    let mut pace = Duration::ZERO;
    let mut keep_alive = ag_ui_server::DEFAULT_KEEP_ALIVE;
    let mut resumable = false;
    let mut on_disconnect = None;
    let mut retention = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut millis = |name: &str| -> Result<Duration, String> {
            let v = args.next().ok_or(format!("{name} needs a value"))?;
            v.parse()
                .map(Duration::from_millis)
                .map_err(|e| format!("{name} {v}: {e}"))
        };
        match arg.as_str() {
            "--pace-ms" => pace = millis("--pace-ms")?,
            "--keep-alive-ms" => keep_alive = millis("--keep-alive-ms")?,
            "--retention-ms" => retention = Some(millis("--retention-ms")?),
            "--resumable" => resumable = true,
            "--on-disconnect" => {
                let v = args.next().ok_or("--on-disconnect needs a value")?;
                on_disconnect = Some(policy(&v)?);
            }
            "--store" | "--lease-ms" => {
                return Err(format!(
                    "{arg}: runs on Redis are served by `cargo run -p ag-ui-redis --example serve`"
                )
                .into());
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}").into()),
            _ => addr = arg,
        }
    }
    if !resumable && (on_disconnect.is_some() || retention.is_some()) {
        return Err("--on-disconnect and --retention-ms need --resumable".into());
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
        service = service.runs(runs);
    }
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", listener.local_addr()?)?;
    out.flush()?;
    drop(out);
    ag_ui_server::axum::serve(listener, ag_ui_server::axum::service_router(service)).await?;
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
