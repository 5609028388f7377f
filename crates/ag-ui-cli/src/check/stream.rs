//! Checking one stream: SSE framing, each event's fields, the stream rules (the core's
//! verifier), run identity, the terminal event and the fold.

use ag_ui_core::{
    Event, EventDecoder, EventPipeline, Message, PipelineError, ReadMode, SseReader, ThreadState,
    WarningKind,
};
use serde_json::Value;

use crate::check::finding::{self, Finding, Place};

/// What the check expects of a stream and where its findings go.
pub(crate) struct Expect<'a> {
    /// The suite case, if any.
    pub(crate) case: Option<&'a str>,
    /// The protocol version read as.
    pub(crate) protocol: ag_ui_core::ProtocolVersion,
    /// The input's `threadId` and `runId`, when the stream answers a known input.
    pub(crate) ids: Option<(&'a str, &'a str)>,
    /// The messages the thread held before the stream (the input's).
    pub(crate) history: Vec<Message>,
}

/// What a stream left: the thread after the fold, the last terminal event, how many events.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// The thread: the input's messages, then every event applied.
    pub(crate) thread: ThreadState,
    /// The last `RUN_FINISHED` or `RUN_ERROR`.
    pub(crate) terminal: Option<Event>,
    /// How many events (messages) the stream had.
    pub(crate) events: usize,
}

impl Outcome {
    /// The outcome in a word: `success`, `interrupt`, `cancelled`, `run_error` or `none`.
    pub(crate) fn word(&self) -> &'static str {
        match &self.terminal {
            Some(Event::RunError(_)) => "run_error",
            Some(Event::RunFinished(e)) => match &e.outcome {
                Some(ag_ui_core::RunFinishedOutcome::Interrupt(_)) => "interrupt",
                Some(ag_ui_core::RunFinishedOutcome::Cancelled(_)) => "cancelled",
                _ => "success",
            },
            _ => "none",
        }
    }
}

/// Splits raw SSE bytes into message texts, with the framing findings.
pub(crate) fn sse_messages(
    bytes: &[u8],
    case: Option<&str>,
    out: &mut Vec<Finding>,
) -> Vec<String> {
    let place = || Place {
        case: case.map(str::to_owned),
        ..Place::default()
    };
    if bytes.contains(&b'\r') {
        out.push(Finding::cli(
            &finding::F2,
            place(),
            "the stream has CR line ends",
        ));
    }
    let trimmed = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    if trimmed > 0
        && !(bytes[trimmed..].windows(2).any(|w| w == b"\n\n")
            || bytes[trimmed..].windows(4).any(|w| w == b"\r\n\r\n"))
    {
        out.push(Finding::cli(
            &finding::F3,
            place(),
            "the last message is not ended by a blank line",
        ));
    }
    let mut reader = SseReader::new();
    let mut messages = Vec::new();
    if let Err(e) = reader.feed(bytes) {
        out.push(Finding::cli(
            &finding::F1,
            place(),
            format!("the SSE stream cannot be read: {e}"),
        ));
        return messages;
    }
    while let Some(m) = reader.next_message() {
        messages.push(m);
    }
    match reader.finish() {
        Ok(Some(m)) => messages.push(m),
        Ok(None) => {}
        Err(e) => out.push(Finding::cli(
            &finding::F1,
            place(),
            format!("the SSE stream cannot be read: {e}"),
        )),
    }
    messages
}

/// Checks a stream of event texts.
pub(crate) fn check_events(
    messages: &[String],
    expect: Expect<'_>,
    out: &mut Vec<Finding>,
) -> Outcome {
    let decoder = EventDecoder::new(ReadMode::Forgiving).with_protocol_version(expect.protocol);
    let mut pipeline = EventPipeline::with_decoder(decoder);
    let mut verifying = true;
    let mut outcome = Outcome {
        thread: ThreadState::new().with_messages(expect.history.clone()),
        terminal: None,
        events: messages.len(),
    };
    // The run index: RUN_STARTED events seen, less one.
    let mut runs = 0usize;
    let mut terminals_in_run = 0usize;
    // The type of the last event delivered (decoded, known, not refused).
    let mut last_type: Option<&'static str> = None;
    for (i, text) in messages.iter().enumerate() {
        let place = |path: Option<String>, runs: usize| Place {
            case: expect.case.map(str::to_owned),
            run: runs.checked_sub(1),
            event: Some(i),
            path,
        };
        // Framing of the payload: a JSON object with a non-empty string `type`.
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                out.push(Finding::cli(
                    &finding::F1,
                    place(None, runs),
                    format!("the data is not JSON: {e}"),
                ));
                continue;
            }
        };
        let Some(event_type) = value
            .get("type")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        else {
            out.push(Finding::cli(
                &finding::F1,
                place(Some("/type".into()), runs),
                "the data has no non-empty string `type`",
            ));
            continue;
        };
        if event_type == "RUN_STARTED" {
            runs += 1;
            terminals_in_run = 0;
        }
        let pushed = if verifying {
            pipeline.push_text(text).map(|d| (d.value, d.warnings))
        } else {
            // After the first broken stream rule the rules are not checked any further
            // (what follows would only repeat it); each event's fields still are.
            ag_ui_core::read::decode::<Event>(text, ReadMode::Forgiving)
                .map(|d| (vec![d.value], d.warnings))
                .map_err(|error| PipelineError::Decode { index: i, error })
        };
        let delivered = match pushed {
            Ok((events, warnings)) => {
                for w in &warnings {
                    let rule = match w.kind {
                        WarningKind::UnknownEventType => &finding::E3,
                        WarningKind::ProtocolVersion => &finding::P1,
                        _ => &finding::E2,
                    };
                    let detail = w.detail.clone().unwrap_or_default();
                    out.push(Finding::cli(
                        rule,
                        place(Some(w.pointer.clone()), runs),
                        format!("{event_type}: {} {detail}", w.kind.as_str())
                            .trim_end()
                            .to_owned(),
                    ));
                }
                events
            }
            Err(PipelineError::Violation(v)) => {
                verifying = false;
                out.push(Finding::verifier(&v, place(None, runs)));
                Vec::new()
            }
            Err(PipelineError::Decode { error, .. }) => {
                out.push(Finding::cli(
                    &finding::E1,
                    place(error.pointer().map(str::to_owned), runs),
                    format!("{event_type} is refused: {error}"),
                ));
                Vec::new()
            }
            Err(e) => {
                out.push(Finding::cli(&finding::E1, place(None, runs), e.to_string()));
                Vec::new()
            }
        };
        for event in delivered {
            last_type = Some(event.event_type().as_str());
            match &event {
                Event::RunStarted(e) => {
                    if let Some((thread, run)) = expect.ids
                        && (e.thread_id.as_str() != thread || e.run_id.as_str() != run)
                    {
                        {
                            out.push(Finding::cli(
                                &finding::R3,
                                place(None, runs),
                                format!(
                                    "RUN_STARTED has threadId {:?} and runId {:?}, the input {thread:?} and {run:?}",
                                    e.thread_id.as_str(),
                                    e.run_id.as_str()
                                ),
                            ));
                        }
                    }
                }
                Event::RunFinished(_) | Event::RunError(_) => {
                    terminals_in_run += 1;
                    if terminals_in_run == 2 {
                        out.push(Finding::cli(
                            &finding::R2,
                            place(None, runs),
                            format!("a second terminal event ({event_type}) in the same run"),
                        ));
                    }
                    outcome.terminal = Some(event.clone());
                }
                _ => {}
            }
            for w in outcome.thread.apply(&event) {
                let detail = w.detail.clone().unwrap_or_default();
                out.push(Finding::cli(
                    &finding::D1,
                    place(Some(w.pointer.clone()), runs),
                    format!("{event_type} does not apply: {} {detail}", w.kind.as_str())
                        .trim_end()
                        .to_owned(),
                ));
            }
        }
    }
    if verifying {
        match pipeline.finish() {
            Ok(closing) => {
                for event in closing {
                    let _ = outcome.thread.apply(&event);
                }
            }
            Err(PipelineError::Violation(v)) => out.push(Finding::verifier(
                &v,
                Place {
                    case: expect.case.map(str::to_owned),
                    run: runs.checked_sub(1),
                    event: Some(messages.len()),
                    path: None,
                },
            )),
            Err(_) => {}
        }
    }
    let ended = matches!(last_type, Some("RUN_FINISHED" | "RUN_ERROR"));
    if !ended {
        out.push(Finding::cli(
            &finding::R1,
            Place {
                case: expect.case.map(str::to_owned),
                run: runs.checked_sub(1),
                event: Some(messages.len()),
                path: None,
            },
            match last_type {
                Some(t) => format!("the stream ends after {t}"),
                None => "the stream has no events".to_owned(),
            },
        ));
    }
    outcome
}

/// The event texts of a recording: JSON Lines of events or of `{"ms": N, "event": EVENT}`,
/// or raw SSE. Framing findings of an SSE recording go to `out`.
pub(crate) fn recording_messages(text: &str, out: &mut Vec<Finding>) -> Vec<String> {
    let first = text.trim_start();
    if !first.starts_with('{') {
        return sse_messages(text.as_bytes(), None, out);
    }
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) if !o.contains_key("type") && o.contains_key("event") => {
                o.get("event").map(Value::to_string).unwrap_or_default()
            }
            _ => line.to_owned(),
        })
        .collect()
}
