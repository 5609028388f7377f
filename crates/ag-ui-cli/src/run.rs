//! `ag-ui run`: one run, shown as it streams (or as JSON Lines), exit code by outcome.

use std::io::Write;

use ag_ui_client::{RunEnd, RunItem, RunOutcome};
use futures_util::StreamExt;

use crate::cli::RunArgs;
use crate::exit::Exit;
use crate::input;
use crate::render::{Paint, Renderer, Style};

/// Runs `ag-ui run`.
pub(crate) async fn run(args: RunArgs) -> Exit {
    let text = match input::input_file(&args.prompt) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let mut agent = match input::agent(&args.target) {
        Ok(a) => a,
        Err(e) => return e,
    };
    let mut run = match input::start(&mut agent, &args.prompt, text.as_deref()) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let stdout = std::io::stdout();
    let mut renderer = Renderer::new(stdout.lock(), Paint::stdout());
    let mut end = None;
    while let Some(item) = run.next().await {
        let shown = match item {
            RunItem::Event(event) if args.json => match ag_ui_core::write::to_string(&event) {
                Ok(line) => {
                    let mut out = stdout.lock();
                    writeln!(out, "{line}").and_then(|()| out.flush())
                }
                Err(e) => {
                    eprintln!("ag-ui: cannot write an event as JSON: {e}");
                    Ok(())
                }
            },
            RunItem::Event(event) => renderer.event(&event),
            RunItem::Reconnecting(r) => {
                eprintln!(
                    "{}",
                    Paint::stderr().paint(
                        Style::Warn,
                        &format!("reconnecting (attempt {}): {}", r.attempt, r.reason)
                    )
                );
                Ok(())
            }
            RunItem::End(e) => {
                end = Some(e);
                Ok(())
            }
            _ => Ok(()),
        };
        if shown.is_err() {
            // stdout closed (a pipe into `head`): stop reading.
            return Exit::Ok;
        }
    }
    let Some(end) = end else {
        eprintln!("ag-ui: the run ended without an end");
        return Exit::Transport;
    };
    if !args.json {
        let _ = renderer.end(&end);
    }
    report_end(&end, args.json)
}

/// Reports warnings and the client's error on stderr; the exit code of the run's end.
pub(crate) fn report_end(end: &RunEnd, json: bool) -> Exit {
    let paint = Paint::stderr();
    for w in &end.warnings {
        eprintln!("{}", paint.paint(Style::Warn, &format!("warning: {w}")));
    }
    if json {
        // The outcome is not an event: it goes to stderr, so that stdout holds events alone.
        if let Some(o) = &end.outcome {
            eprintln!("outcome: {}", o.to_json());
        }
    }
    if let Some(e) = &end.error {
        eprintln!("{}", paint.paint(Style::Bad, &format!("ag-ui: {e}")));
        return Exit::Transport;
    }
    exit_for(end.outcome.as_ref())
}

/// The exit code of an outcome.
pub(crate) fn exit_for(outcome: Option<&RunOutcome>) -> Exit {
    match outcome {
        Some(RunOutcome::Success { .. }) => Exit::Ok,
        Some(RunOutcome::Error { .. }) => Exit::RunError,
        Some(RunOutcome::Interrupt { .. }) => Exit::Interrupt,
        Some(RunOutcome::Cancelled) => Exit::Cancelled,
        None | Some(_) => Exit::Transport,
    }
}
