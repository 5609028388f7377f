//! Runs a remote AG-UI agent once and reports what happened, in a shape test matrices can
//! read.
//!
//! ```text
//! cargo run -p ag-ui-client --example run_agent -- URL INPUT [--abort-after-ms N]
//! ```
//!
//! INPUT is the path of a `RunAgentInput` JSON file, or else the text of one user message.
//! Prints `EVENT <TYPE>` for each delivered event as it arrives, then, as the last line of
//! stdout, one JSON object:
//! `{"ok","error","errorKind","messages","state","outcome","warnings","events"}`.
//! Exit code 0 whenever that line describes a run (`ok` true or false), 2 for bad
//! arguments or an unreadable INPUT (the JSON line is printed then too).

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use ag_ui_client::{ClientError, HttpAgent, RunEnd, RunItem};
use futures_util::StreamExt;
use serde_json::{Value, json};

const USAGE: &str = "usage: run_agent URL INPUT [--abort-after-ms N]\n  INPUT: a RunAgentInput JSON file, or the text of one user message";

struct Args {
    url: String,
    input: String,
    abort_after: Option<Duration>,
}

fn parse_args() -> Result<Args, String> {
    let mut positional = Vec::new();
    let mut abort_after = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--abort-after-ms" {
            let n = args
                .next()
                .ok_or("--abort-after-ms needs a number of milliseconds")?;
            let ms: u64 = n
                .parse()
                .map_err(|_| format!("--abort-after-ms: {n:?} is not a number of milliseconds"))?;
            abort_after = Some(Duration::from_millis(ms));
        } else if let Some(n) = a.strip_prefix("--abort-after-ms=") {
            let ms: u64 = n
                .parse()
                .map_err(|_| format!("--abort-after-ms: {n:?} is not a number of milliseconds"))?;
            abort_after = Some(Duration::from_millis(ms));
        } else {
            positional.push(a);
        }
    }
    match <[String; 2]>::try_from(positional) {
        Ok([url, input]) => Ok(Args {
            url,
            input,
            abort_after,
        }),
        Err(p) => Err(format!(
            "expected URL and INPUT, got {} argument(s)",
            p.len()
        )),
    }
}

/// The final line for a failure before any run (nothing was sent).
fn print_failure(kind: &str, error: &str) {
    let line = json!({
        "ok": false,
        "error": error,
        "errorKind": kind,
        "messages": [],
        "state": {},
        "outcome": null,
        "warnings": [],
        "events": 0,
    });
    println!("{line}");
}

fn report(agent: &HttpAgent, end: &RunEnd) -> Value {
    json!({
        "ok": end.is_ok(),
        "error": end.error.as_ref().map(ClientError::to_string),
        "errorKind": end.error.as_ref().map(|e| e.kind().as_str()),
        "messages": serde_json::to_value(agent.messages()).unwrap_or(Value::Null),
        "state": agent.state(),
        "outcome": end.outcome.as_ref().map(|o| o.to_json()),
        "warnings": end.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "events": end.events,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            print_failure("usage", &e);
            return ExitCode::from(2);
        }
    };
    let mut agent = match HttpAgent::builder(&args.url).build() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            print_failure(e.kind().as_str(), &e.to_string());
            return ExitCode::from(2);
        }
    };
    let path = std::path::Path::new(&args.input);
    let mut run = if path.is_file() {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                let msg = format!("cannot read {}: {e}", path.display());
                eprintln!("{msg}");
                print_failure("usage", &msg);
                return ExitCode::from(2);
            }
        };
        match agent.run_json(&text) {
            Ok(run) => run,
            Err(e) => {
                eprintln!("{e}");
                print_failure(e.kind().as_str(), &e.to_string());
                return ExitCode::from(2);
            }
        }
    } else {
        agent.send(args.input.clone())
    };
    if let Some(after) = args.abort_after {
        let handle = run.abort_handle();
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            handle.abort();
        });
    }
    let mut stdout = std::io::stdout();
    let mut end = None;
    while let Some(item) = run.next().await {
        match item {
            RunItem::Event(event) => {
                // A closed stdout must not stop the run: the thread is still reported.
                let _ = writeln!(stdout, "EVENT {}", event.event_type());
                let _ = stdout.flush();
            }
            RunItem::End(e) => end = Some(e),
            _ => {}
        }
    }
    drop(run);
    let Some(end) = end else {
        print_failure("transport", "the run ended without reporting its end");
        return ExitCode::SUCCESS;
    };
    println!("{}", report(&agent, &end));
    ExitCode::SUCCESS
}
