//! Serves the demo agent (`ag_ui_server::demo`) at `POST /`.
//!
//! `cargo run -p ag-ui-server --example serve -- [ADDR] [--pace-ms N] [--keep-alive-ms N]`
//!
//! ADDR defaults to `127.0.0.1:0` (port 0 picks a free port). The bound address is the
//! first line on stdout; the server runs until it is killed.

use std::io::Write;
use std::time::Duration;

use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut addr = "127.0.0.1:0".to_owned();
    let mut pace = Duration::ZERO;
    let mut keep_alive = ag_ui_server::DEFAULT_KEEP_ALIVE;
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
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}").into()),
            _ => addr = arg,
        }
    }
    let service = AgentService::new(DemoAgent::with_pace(pace)).keep_alive(Some(keep_alive));
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", listener.local_addr()?)?;
    out.flush()?;
    drop(out);
    ag_ui_server::axum::serve(listener, ag_ui_server::axum::service_router(service)).await?;
    Ok(())
}
