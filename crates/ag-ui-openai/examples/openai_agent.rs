//! An AG-UI agent on any OpenAI-compatible chat-completions endpoint, served at `POST /`.
//!
//! `cargo run -p ag-ui-openai --example openai_agent -- [ADDR] [--metrics] [--log-format text|json]`
//!
//! ADDR defaults to `127.0.0.1:0` (port 0 picks a free port). The bound address is the
//! first line on stdout; the server runs until it is killed. `--metrics` serves Prometheus
//! metrics at `GET /metrics` on the same address. The log goes to stderr (`RUST_LOG`
//! filters it, default `info`; `--log-format json` writes JSON lines); spans are exported
//! over OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Configured by the environment:
//! `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), `OPENAI_API_KEY`, `OPENAI_MODEL`
//! (default `gpt-4o-mini`). The model may call one backend tool, `get_time` (run here), and
//! the frontend tools each run's client sends (the run then ends with their calls pending).

use std::io::Write;

use ag_ui_builders::TypedTool;
use ag_ui_openai::ag_ui_agent::BackendTools;
use ag_ui_openai::async_openai::Client;
use ag_ui_openai::async_openai::config::OpenAIConfig;
use ag_ui_openai::{OpenAiAgent, OpenAiModel};
use ag_ui_server::AgentService;
use ag_ui_server::logging::LogFormat;
use ag_ui_server::metrics::Metrics;

/// Arguments of `get_time`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TimeArgs {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    const USAGE: &str = "usage: openai_agent [ADDR] [--metrics] [--log-format text|json]";
    let mut addr = None;
    let mut metrics = false;
    let mut format = LogFormat::Text;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--metrics" => metrics = true,
            "--log-format" => {
                let value = args
                    .next()
                    .ok_or(format!("--log-format needs a value ({USAGE})"))?;
                format = value.parse()?;
            }
            flag if flag.starts_with("--") => {
                return Err(format!("unknown flag {flag:?} ({USAGE})").into());
            }
            _ if addr.is_none() => addr = Some(arg),
            _ => return Err(format!("unexpected argument {arg:?} ({USAGE})").into()),
        }
    }
    let addr = addr.unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let logging = ag_ui_server::logging::install(format)?;
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let mut config = OpenAIConfig::new();
    if let Some(base) = env("OPENAI_BASE_URL") {
        config = config.with_api_base(base);
    }
    if let Some(key) = env("OPENAI_API_KEY") {
        config = config.with_api_key(key);
    }
    let model = env("OPENAI_MODEL").unwrap_or_else(|| "gpt-4o-mini".to_owned());
    let tools = BackendTools::new().typed(
        TypedTool::<TimeArgs>::new("get_time", "The current time (UTC)").with_clean_schema(),
        |_: TimeArgs, _ctx| async {
            Ok::<_, std::io::Error>(serde_json::json!({"utc": utc_now()}))
        },
    );
    let agent = OpenAiAgent::new(OpenAiModel::new(Client::with_config(config), model))
        .system_prompt("You are a helpful assistant. Use the tools when they help.")
        .tools(tools);
    let mut service = AgentService::new(agent).agent_name("openai_agent");
    if metrics {
        service = service.metrics(Metrics::new());
    }

    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", listener.local_addr()?)?;
    out.flush()?;
    drop(out);
    let router = ag_ui_server::axum::service_router(service);
    // Until the server fails or Ctrl-C (SIGINT): then the last spans are exported.
    let served = tokio::select! {
        served = ag_ui_server::axum::serve(listener, router) => served,
        _ = tokio::signal::ctrl_c() => Ok(()),
    };
    logging.shutdown();
    served?;
    Ok(())
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
    let z = i64::try_from(days).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}
