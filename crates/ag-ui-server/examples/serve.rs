//! Serves the demo agent (`ag_ui_server::demo`) at `POST /` with the production server.
//!
//! `cargo run -p ag-ui-server --example serve -- [ADDR] [OPTIONS]` (`--help` lists them).
//!
//! ADDR defaults to `127.0.0.1:0` (port 0 picks a free port). The bound address is the
//! first line on stdout; the server runs until it is killed.

use std::io::Write;
use std::time::Duration;

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
--body-limit BYTES       largest request body; larger ones get 413 (default 8388608)
--max-connections N      connections served at once; more wait in the backlog (default 1000)
--backlog N              listen backlog (default 4096, capped by net.core.somaxconn)
--cors-origin ORIGIN     let browser pages from ORIGIN (scheme://host[:port]) call the agent;
                         repeatable
--expose-errors          send the agent's error text to clients (default: a generic message
                         with an error id, the text only in the log)
-h, --help               this text
";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut addr = "127.0.0.1:0".to_owned();
    let mut pace = Duration::ZERO;
    let mut keep_alive = ag_ui_server::DEFAULT_KEEP_ALIVE;
    let mut config = ServeConfig::new();
    let mut body_limit = ag_ui_server::DEFAULT_BODY_LIMIT;
    let mut origins = Vec::new();
    let mut expose_errors = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<String, String> {
            args.next()
                .ok_or(format!("{name} needs a value (see --help)"))
        };
        let number = |name: &str, v: String| -> Result<u64, String> {
            v.parse().map_err(|e| format!("{name} {v}: {e}"))
        };
        match arg.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
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
            "--body-limit" => body_limit = usize::try_from(number(&arg, value(&arg)?)?)?,
            "--max-connections" => {
                config = config.max_connections(usize::try_from(number(&arg, value(&arg)?)?)?);
            }
            "--backlog" => config = config.backlog(u32::try_from(number(&arg, value(&arg)?)?)?),
            "--cors-origin" => origins.push(value(&arg)?.parse()?),
            "--expose-errors" => expose_errors = true,
            _ if arg.starts_with('-') => {
                return Err(format!("unknown option {arg} (see --help)").into());
            }
            _ => addr = arg,
        }
    }
    let service = AgentService::new(DemoAgent::with_pace(pace))
        .keep_alive(Some(keep_alive))
        .body_limit(body_limit)
        .expose_errors(expose_errors);
    let mut router = ag_ui_server::axum::service_router(service);
    if !origins.is_empty() {
        router = router.layer(ag_ui_server::cors::cors_layer(origins));
    }
    let listener = config.bind(&addr).await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", listener.local_addr()?)?;
    out.flush()?;
    drop(out);
    ag_ui_server::axum::serve_with(listener, router, config).await?;
    Ok(())
}
