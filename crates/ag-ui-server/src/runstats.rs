//! What a guarded run reports about itself: its start and end in the log (with the
//! `tracing` feature), its span's GenAI attributes, and the counts an installed
//! [`RunObserver`] (the metrics) keeps.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ag_ui_core::{Event, EventType, RunFinishedOutcome, TokenUsage};

/// How a run ended, as the `outcome` label says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// `RUN_FINISHED` with a success outcome (or none).
    Success,
    /// `RUN_FINISHED` with an interrupt outcome.
    Interrupt,
    /// `RUN_FINISHED` with a cancelled outcome, or the client went away first.
    Cancelled,
    /// `RUN_ERROR`.
    Error,
}

impl Outcome {
    /// The label value.
    #[cfg_attr(
        not(any(feature = "tracing", feature = "metrics")),
        expect(dead_code, reason = "read by the log and the metrics")
    )]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Interrupt => "interrupt",
            Outcome::Cancelled => "cancelled",
            Outcome::Error => "error",
        }
    }
}

/// Receives what guarded runs do (the metrics implement it).
pub(crate) trait RunObserver: Send + Sync {
    /// A run started.
    fn run_started(&self);
    /// An event of type `event_type` was sent; `first` is the time from the run's start
    /// when it is the run's first event.
    fn event_sent(&self, event_type: EventType, first: Option<Duration>);
    /// A run ended with `outcome` (and `error_code`, a `RUN_ERROR`'s code) after `duration`.
    fn run_ended(&self, outcome: Outcome, error_code: Option<&str>, duration: Duration);
}

/// An installed observer.
pub(crate) type Observer = Arc<dyn RunObserver>;

/// The ids a run's log lines carry.
#[derive(Debug, Default, Clone)]
pub(crate) struct RunIds {
    pub(crate) thread_id: Option<String>,
    pub(crate) run_id: Option<String>,
    pub(crate) request_id: Option<String>,
    #[cfg_attr(
        not(feature = "tracing"),
        expect(dead_code, reason = "read by the log")
    )]
    pub(crate) principal: Option<String>,
}

/// One run's figures, from its start to its end.
pub(crate) struct RunStats {
    started: Instant,
    events: u64,
    outcome: Option<(Outcome, Option<String>)>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    observer: Option<Observer>,
    /// Whether the start was logged (the end is logged only then, once).
    open: bool,
}

impl std::fmt::Debug for RunStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStats")
            .field("events", &self.events)
            .field("outcome", &self.outcome)
            .finish_non_exhaustive()
    }
}

impl RunStats {
    /// Figures of a run that has not started (a guard made without ids reports nothing).
    pub(crate) fn idle() -> Self {
        RunStats {
            started: Instant::now(),
            events: 0,
            outcome: None,
            input_tokens: None,
            output_tokens: None,
            observer: None,
            open: false,
        }
    }

    /// The run `ids` starts now: logged at info, counted.
    pub(crate) fn start(ids: &RunIds, observer: Option<Observer>) -> Self {
        #[cfg(feature = "tracing")]
        tracing::info!(
            run_id = ids.run_id.as_deref().unwrap_or(""),
            thread_id = ids.thread_id.as_deref().unwrap_or(""),
            request_id = ids.request_id.as_deref().unwrap_or(""),
            principal = ids.principal.as_deref().unwrap_or(""),
            "AG-UI run started"
        );
        #[cfg(not(feature = "tracing"))]
        let _ = ids;
        if let Some(o) = &observer {
            o.run_started();
        }
        RunStats {
            observer,
            open: true,
            ..RunStats::idle()
        }
    }

    /// `event` is being sent.
    pub(crate) fn event(&mut self, event: &Event) {
        if !self.open {
            return;
        }
        self.events += 1;
        if let Some(o) = &self.observer {
            let first = (self.events == 1).then(|| self.started.elapsed());
            o.event_sent(event.event_type(), first);
        }
        let (outcome, usage) = match event {
            Event::RunFinished(e) => {
                let outcome = match &*e.outcome() {
                    RunFinishedOutcome::Interrupt(_) => Outcome::Interrupt,
                    RunFinishedOutcome::Cancelled(_) => Outcome::Cancelled,
                    _ => Outcome::Success,
                };
                ((outcome, None), e.usage.as_deref())
            }
            Event::RunError(e) => ((Outcome::Error, e.code.clone()), e.usage.as_deref()),
            _ => return,
        };
        self.outcome = Some(outcome);
        let sum = |f: fn(&TokenUsage) -> Option<u64>| {
            usage.and_then(|u| u.iter().filter_map(f).reduce(u64::saturating_add))
        };
        self.input_tokens = sum(|u| u.input_tokens);
        self.output_tokens = sum(|u| u.output_tokens);
    }

    /// The run is over (its stream ended, or was dropped before): logged at info with its
    /// outcome, recorded on `span`, counted. Only the first call does anything.
    pub(crate) fn end(&mut self, ids: &RunIds, #[cfg(feature = "tracing")] span: &tracing::Span) {
        if !std::mem::replace(&mut self.open, false) {
            return;
        }
        let (outcome, code) = self.outcome.clone().unwrap_or((Outcome::Cancelled, None));
        let duration = self.started.elapsed();
        if let Some(o) = &self.observer {
            o.run_ended(outcome, code.as_deref(), duration);
        }
        #[cfg(feature = "tracing")]
        {
            let error_code = code.as_deref().unwrap_or("");
            if let Some(n) = self.input_tokens {
                span.record("gen_ai.usage.input_tokens", as_i64(n));
            }
            if let Some(n) = self.output_tokens {
                span.record("gen_ai.usage.output_tokens", as_i64(n));
            }
            span.record("agui.outcome", outcome.as_str());
            if outcome == Outcome::Error {
                span.record("error.type", error_code_label(error_code));
                span.record("otel.status_code", "ERROR");
            }
            tracing::info!(
                run_id = ids.run_id.as_deref().unwrap_or(""),
                thread_id = ids.thread_id.as_deref().unwrap_or(""),
                request_id = ids.request_id.as_deref().unwrap_or(""),
                outcome = outcome.as_str(),
                error_code,
                duration_ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
                events = self.events,
                input_tokens = self.input_tokens,
                output_tokens = self.output_tokens,
                "AG-UI run ended"
            );
        }
        #[cfg(not(feature = "tracing"))]
        let _ = ids;
    }
}

/// `n` as an `i64` (OpenTelemetry's integer attributes are signed), saturating.
#[cfg(feature = "tracing")]
fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The `RUN_ERROR` codes the SDK's crates emit: the values an `error_code` label takes
/// (with `other` for any other code, and `""` for a run that did not fail).
pub const KNOWN_ERROR_CODES: &[&str] = &[
    // ag-ui-server: the guard.
    "agent_error",
    "agent_panic",
    "protocol_violation",
    "incomplete_run",
    "encode_error",
    // ag-ui-server: resumable runs, resume, threads.
    "stop_timeout",
    "max_duration",
    "abandoned",
    "store_error",
    "store_lost",
    "interrupt_pending",
    "resume_mismatch",
    "run_lost",
    // ag-ui-redis.
    "run_orphaned",
    // ag-ui-agent.
    "provider_error",
    "provider_incomplete",
    "length",
    "content_filter",
    "step_limit",
];

/// The label value of a `RUN_ERROR` code: the code when the SDK emits it
/// ([`KNOWN_ERROR_CODES`]), `other` for any other, `""` for none.
#[must_use]
pub fn error_code_label(code: &str) -> &'static str {
    if code.is_empty() {
        return "";
    }
    KNOWN_ERROR_CODES
        .iter()
        .find(|known| **known == code)
        .copied()
        .unwrap_or("other")
}
