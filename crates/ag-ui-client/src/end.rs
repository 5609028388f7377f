//! What a run stream yields: the delivered events, then the run's end.

use ag_ui_core::{
    Event, Interrupt, RunErrorEvent, RunFinishedEvent, RunFinishedOutcome, TokenUsage, ToolCallId,
};
use serde_json::Value;

use crate::error::ClientError;
use crate::warning::RunWarning;

/// One item of a run stream: a delivered event (already applied to the thread), or the
/// run's end, which is always the last item.
#[derive(Debug)]
#[non_exhaustive]
pub enum RunItem {
    /// An event delivered by the receiving pipeline (chunks expanded, unknown events
    /// dropped), already applied to the thread.
    Event(Event),
    /// How the run ended; nothing follows it.
    End(RunEnd),
    /// The connection of a resumable run broke off and the client is joining it again
    /// from the last event it has (see [`Reconnecting`]); the events that follow continue
    /// the run without a gap or a repeat. An application may show "reconnecting".
    Reconnecting(Reconnecting),
}

/// A reconnection of a resumable run (a non-standard extension that the workspace's
/// server offers): which attempt, from which cursor, after what, and how long the client
/// waits before it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reconnecting {
    /// 1 for the first attempt since the last event arrived.
    pub attempt: u32,
    /// The SSE id of the last event received (sent as `Last-Event-ID`), `None` when none
    /// arrived yet (the run is joined from its start).
    pub last_event_id: Option<String>,
    /// The wait before this attempt.
    pub delay: std::time::Duration,
    /// What broke off the connection, in a sentence.
    pub reason: String,
}

impl RunItem {
    /// The event, if this item is one.
    #[must_use]
    pub fn event(&self) -> Option<&Event> {
        match self {
            RunItem::Event(e) => Some(e),
            RunItem::End(_) | RunItem::Reconnecting(_) => None,
        }
    }

    /// The end, if this item is it.
    #[must_use]
    pub fn into_end(self) -> Option<RunEnd> {
        match self {
            RunItem::End(end) => Some(end),
            RunItem::Event(_) | RunItem::Reconnecting(_) => None,
        }
    }
}

/// How the agent ended the run: the last `RUN_FINISHED` or `RUN_ERROR` of the stream.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RunOutcome {
    /// `RUN_FINISHED` with a success outcome (or none, which means success).
    Success {
        /// The run's `result`, if it sent one.
        result: Option<Value>,
        /// Frontend tool calls the run left for the application to answer, in call order:
        /// as the agent named them, or, when it named none, the calls started in this run
        /// that no `TOOL_CALL_RESULT` answered (spec §4).
        pending_tool_call_ids: Vec<ToolCallId>,
    },
    /// `RUN_FINISHED` with an interrupt outcome: resume with answers to every interrupt.
    Interrupt {
        /// The interrupts (at least one).
        interrupts: Vec<Interrupt>,
    },
    /// `RUN_FINISHED` with the `cancelled` outcome: the agent's side stopped the run. Not a
    /// client abort ([`crate::ClientErrorKind::Abort`]).
    Cancelled,
    /// `RUN_ERROR`: the agent reported a failure. The run itself worked as a protocol
    /// exchange, so this is an outcome, not a [`ClientError`].
    Error {
        /// The agent's message.
        message: String,
        /// The agent's code, if any.
        code: Option<String>,
    },
}

impl RunOutcome {
    pub(crate) fn from_finished(e: &RunFinishedEvent) -> Self {
        match e.outcome.as_ref() {
            None => RunOutcome::Success {
                result: e.result.clone(),
                pending_tool_call_ids: Vec::new(),
            },
            Some(RunFinishedOutcome::Success(s)) => RunOutcome::Success {
                result: e.result.clone(),
                pending_tool_call_ids: s.pending_tool_call_ids.clone().unwrap_or_default(),
            },
            Some(RunFinishedOutcome::Interrupt(i)) => RunOutcome::Interrupt {
                interrupts: i.interrupts.to_vec(),
            },
            Some(RunFinishedOutcome::Cancelled(_)) => RunOutcome::Cancelled,
            // An outcome type newer than this crate: the run finished, so read it as the
            // success that absence means rather than invent a failure.
            Some(_) => RunOutcome::Success {
                result: e.result.clone(),
                pending_tool_call_ids: Vec::new(),
            },
        }
    }

    pub(crate) fn from_error(e: &RunErrorEvent) -> Self {
        RunOutcome::Error {
            message: e.message.clone(),
            code: e.code.clone(),
        }
    }

    /// The outcome as the `run_agent` example prints it: `{"type":"success","result"?,
    /// "pendingToolCallIds"}`, `{"type":"interrupt","interrupts"}`, `{"type":"cancelled"}`
    /// or `{"type":"run_error","message","code"}` (`code` is `null` when absent).
    #[must_use]
    pub fn to_json(&self) -> Value {
        let mut o = serde_json::Map::new();
        match self {
            RunOutcome::Success {
                result,
                pending_tool_call_ids,
            } => {
                o.insert("type".into(), "success".into());
                if let Some(r) = result {
                    o.insert("result".into(), r.clone());
                }
                o.insert(
                    "pendingToolCallIds".into(),
                    pending_tool_call_ids
                        .iter()
                        .map(|id| Value::String(id.to_string()))
                        .collect(),
                );
            }
            RunOutcome::Interrupt { interrupts } => {
                o.insert("type".into(), "interrupt".into());
                o.insert(
                    "interrupts".into(),
                    serde_json::to_value(interrupts).unwrap_or(Value::Null),
                );
            }
            RunOutcome::Cancelled => {
                o.insert("type".into(), "cancelled".into());
            }
            RunOutcome::Error { message, code } => {
                o.insert("type".into(), "run_error".into());
                o.insert("message".into(), message.clone().into());
                o.insert(
                    "code".into(),
                    code.clone().map(Value::String).unwrap_or(Value::Null),
                );
            }
        }
        Value::Object(o)
    }
}

/// How a run ended: the agent's outcome (if a terminal event arrived), the client's error
/// (if the run failed), usage, warnings and the count of delivered events.
///
/// The thread keeps everything applied before a failure.
#[derive(Debug)]
#[non_exhaustive]
pub struct RunEnd {
    /// The last `RUN_FINISHED` or `RUN_ERROR` of the stream; `None` when none arrived.
    pub outcome: Option<RunOutcome>,
    /// `usage` of that terminal event (empty when it had none).
    pub usage: Vec<TokenUsage>,
    /// The client-side failure, if the run failed: transport, HTTP, framing, a refused
    /// event, a clean end without a terminal event, a timeout or an abort.
    pub error: Option<ClientError>,
    /// What was forgiven or changed along the way, in order.
    pub warnings: Vec<RunWarning>,
    /// How many events were delivered (and applied).
    pub events: usize,
}

impl RunEnd {
    /// Whether the run worked as a protocol exchange (no [`ClientError`]); a `RUN_ERROR`
    /// outcome is still `true`.
    #[must_use]
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }

    /// The interrupts the run ended on (empty unless the outcome is an interrupt).
    #[must_use]
    pub fn pending_interrupts(&self) -> &[Interrupt] {
        match &self.outcome {
            Some(RunOutcome::Interrupt { interrupts }) => interrupts,
            _ => &[],
        }
    }

    /// The outcome, or the client error.
    ///
    /// # Errors
    /// The run's [`ClientError`], if it failed.
    pub fn into_result(self) -> Result<Option<RunOutcome>, ClientError> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.outcome),
        }
    }
}
