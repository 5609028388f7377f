//! `ag-ui run`: one run, shown as it streams (or as JSON Lines), exit code by outcome.

use std::io::{IsTerminal, Write};

use std::time::{Duration, Instant};

use ag_ui_client::{HttpRun, RunEnd, RunItem, RunOutcome};
use ag_ui_core::Event;
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
    let mut agent = match input::agent_accepting(&args.target, args.accept) {
        Ok(a) => a,
        Err(e) => return e,
    };
    let run = match input::start(&mut agent, &args.prompt, &args.extras, text.as_deref()) {
        Ok(r) => r,
        Err(e) => return e,
    };
    match drive(run, args.json, None).await {
        Some(end) => report_end(&end, args.json),
        None => Exit::Ok,
    }
}

/// Reads a run to its end, showing each event (as JSON Lines with `json`) and writing it
/// to `record` as `{"ms": N, "event": EVENT}` (milliseconds since the run started). `None`
/// when stdout was closed (a pipe into `head`) and the run was left.
pub(crate) async fn drive(
    mut run: HttpRun<'_>,
    json: bool,
    mut record: Option<&mut dyn Write>,
) -> Option<RunEnd> {
    let started = Instant::now();
    let stdout = std::io::stdout();
    let mut renderer = Renderer::new(stdout.lock(), Paint::stdout());
    let mut end = None;
    // On a terminal, a spinner on stderr until the agent's first event arrives.
    let mut spinner = std::io::stderr().is_terminal();
    loop {
        let next = if spinner {
            spinner = false;
            with_spinner(run.next()).await
        } else {
            run.next().await
        };
        let Some(item) = next else { break };
        let shown = match item {
            RunItem::Event(event) => {
                let line = ag_ui_core::write::to_string(&event);
                if let (Some(w), Ok(line)) = (record.as_mut(), &line) {
                    let ms = started.elapsed().as_millis();
                    if let Err(e) = writeln!(w, "{{\"ms\":{ms},\"event\":{line}}}") {
                        eprintln!("ag-ui: cannot write the recording: {e}");
                        record = None;
                    }
                }
                if json {
                    match line {
                        Ok(line) => {
                            let mut out = stdout.lock();
                            writeln!(out, "{line}").and_then(|()| out.flush())
                        }
                        Err(e) => {
                            eprintln!("ag-ui: cannot write an event as JSON: {e}");
                            Ok(())
                        }
                    }
                } else {
                    if let Event::ToolCallResult(e) = &event
                        && let Some(call) = run.thread().tool_call(e.tool_call_id.as_str())
                    {
                        renderer.know_tool(call.id.as_str(), &call.function.name);
                    }
                    renderer.event(&event)
                }
            }
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
            return None;
        }
    }
    let Some(end) = end else {
        eprintln!("ag-ui: the run ended without an end");
        return None;
    };
    if !json {
        let _ = renderer.end(&end);
    }
    Some(end)
}

/// Awaits `next` with a spinner on stderr, cleared when it is ready.
async fn with_spinner<T>(next: impl std::future::Future<Output = T>) -> T {
    const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let mut ticker = tokio::time::interval(Duration::from_millis(100));
    let mut frame = 0;
    tokio::pin!(next);
    let mut err = std::io::stderr();
    let value = loop {
        tokio::select! {
            value = &mut next => break value,
            _ = ticker.tick() => {
                let _ = write!(err, "\r{} waiting for the agent…", FRAMES[frame % FRAMES.len()]);
                let _ = err.flush();
                frame += 1;
            }
        }
    };
    if frame > 0 {
        let _ = write!(err, "\r\x1b[K");
        let _ = err.flush();
    }
    value
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
