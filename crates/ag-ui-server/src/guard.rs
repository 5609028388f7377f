//! The guarantees the server gives every stream, whatever the agent does.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use ag_ui_core::{ChunkExpander, Event, EventType, RunErrorEvent, Verifier, Violation, Warning};
use futures_core::Stream;

use crate::agent::{BoxError, EventStream};
use crate::{Cancellation, Rejection};

/// `code` of the `RUN_ERROR` sent when the agent's stream yields an error.
pub const CODE_AGENT_ERROR: &str = "agent_error";
/// `code` of the `RUN_ERROR` sent when the agent panics.
pub const CODE_AGENT_PANIC: &str = "agent_panic";
/// `code` of the `RUN_ERROR` sent when verification refuses an event of the agent's.
pub const CODE_PROTOCOL_VIOLATION: &str = "protocol_violation";
/// `code` of the `RUN_ERROR` sent when the agent's stream ends with its run still open
/// (or without any event).
pub const CODE_INCOMPLETE_RUN: &str = "incomplete_run";
/// `code` of the `RUN_ERROR` sent when an event of the agent's cannot be encoded.
pub const CODE_ENCODE_ERROR: &str = "encode_error";

/// Something the server noticed, handed to the [`Hook`] (and, with the `tracing`
/// feature, logged as a `tracing` event).
#[derive(Debug)]
#[non_exhaustive]
pub enum Report<'a> {
    /// The agent's stream yielded an error; the run ended with `RUN_ERROR`.
    AgentError(&'a (dyn std::error::Error + Send + Sync + 'static)),
    /// The agent panicked (the panic message, when it was a string); the run ended with
    /// `RUN_ERROR`.
    AgentPanic(&'a str),
    /// Verification refused an event of the agent's; the run ended with `RUN_ERROR`.
    Violation(&'a Violation),
    /// The agent's stream ended while its run was open; the server added `RUN_ERROR`.
    IncompleteRun,
    /// An event could not be encoded; the run ended with `RUN_ERROR`.
    EncodeError(&'a ag_ui_core::Error),
    /// A request was refused before any run started.
    Rejected(&'a Rejection),
    /// The request was read with what the forgiving reader accepted.
    Forgiven(&'a [Warning]),
    /// The client went away before the stream ended; the run's cancellation was tripped.
    Disconnected,
}

/// A function that receives every [`Report`].
pub type Hook = Arc<dyn Fn(&Report<'_>) + Send + Sync>;

/// How runs are guarded.
#[derive(Clone)]
#[non_exhaustive]
pub struct RunOptions {
    /// Verify what the agent emits (spec §9.1 rules, chunks expanded first); the first
    /// violation ends the run with `RUN_ERROR`. On by default.
    pub verify: bool,
    /// Receives every [`Report`]. None by default.
    pub hook: Option<Hook>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            verify: true,
            hook: None,
        }
    }
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("verify", &self.verify)
            .field("hook", &self.hook.as_ref().map(|_| "Fn(&Report)"))
            .finish()
    }
}

impl RunOptions {
    /// Hands `report` to the hook and, with the `tracing` feature, to `tracing`.
    pub fn report(&self, report: &Report<'_>) {
        #[cfg(feature = "tracing")]
        trace(report);
        if let Some(hook) = &self.hook {
            hook(report);
        }
    }
}

#[cfg(feature = "tracing")]
fn trace(report: &Report<'_>) {
    match report {
        Report::AgentError(e) => {
            tracing::warn!(error = %e, "AG-UI agent failed; run ended with RUN_ERROR")
        }
        Report::AgentPanic(m) => {
            tracing::error!(panic = %m, "AG-UI agent panicked; run ended with RUN_ERROR")
        }
        Report::Violation(v) => {
            tracing::warn!(violation = %v, "AG-UI agent broke the protocol; run ended with RUN_ERROR")
        }
        Report::IncompleteRun => {
            tracing::warn!("AG-UI agent stream ended with its run open; RUN_ERROR added")
        }
        Report::EncodeError(e) => {
            tracing::warn!(error = %e, "AG-UI event could not be encoded; run ended with RUN_ERROR")
        }
        Report::Rejected(r) => tracing::debug!(rejection = %r, "AG-UI request refused"),
        Report::Forgiven(w) => tracing::debug!(
            warnings = w.len(),
            "AG-UI request read with forgiven deviations"
        ),
        Report::Disconnected => tracing::debug!("AG-UI client disconnected; run cancelled"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing sent yet.
    Fresh,
    /// A run has started and not ended.
    Active,
    /// The last run ended with `RUN_FINISHED`.
    Finished,
    /// The last run ended with `RUN_ERROR`.
    Errored,
}

/// An agent's event stream with the server's guarantees:
///
/// - an `Err` item ends the run with `RUN_ERROR` (`code` [`CODE_AGENT_ERROR`], the error's
///   text as `message`);
/// - a panic while the agent's stream is polled (or, through [`RunGuard::start`], in
///   [`Agent::run`](crate::Agent::run) itself) is caught and ends the run with
///   `RUN_ERROR` ([`CODE_AGENT_PANIC`]; the panic message goes to the [`Hook`] only);
/// - with [`RunOptions::verify`], an event that breaks a spec §9.1 rule is not sent; the run
///   ends with `RUN_ERROR` ([`CODE_PROTOCOL_VIOLATION`]);
/// - a stream that ends with its run open, or without any event, gets a `RUN_ERROR`
///   ([`CODE_INCOMPLETE_RUN`]), so every stream ends with a terminal event;
/// - after any of these the agent's stream is dropped and its [`Cancellation`] tripped;
///   dropping the guard before the end (the client went away) trips it too.
///
/// No `RUN_ERROR` is added where the protocol forbids one (right after another
/// `RUN_ERROR`).
pub struct RunGuard {
    inner: Option<EventStream>,
    cancel: Cancellation,
    options: RunOptions,
    checker: Option<(ChunkExpander, Verifier)>,
    phase: Phase,
    ready: VecDeque<Event>,
    ended: bool,
    pre_1_0_peer: bool,
}

impl std::fmt::Debug for RunGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunGuard")
            .field("phase", &self.phase)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl RunGuard {
    /// Guards `events`, the stream of a run started with `cancel`.
    #[must_use]
    pub fn new(events: EventStream, cancel: Cancellation, options: RunOptions) -> Self {
        let checker = options
            .verify
            .then(|| (ChunkExpander::new(), Verifier::new()));
        RunGuard {
            inner: Some(events),
            cancel,
            options,
            checker,
            phase: Phase::Fresh,
            ready: VecDeque::new(),
            ended: false,
            pre_1_0_peer: false,
        }
    }

    /// Starts `agent` on `input` and guards its stream. A panic in [`Agent::run`] itself
    /// (before it returns a stream) is caught like one while the stream is polled: the run
    /// is a single `RUN_ERROR` with [`CODE_AGENT_PANIC`]. An `input` without
    /// `protocolVersion` comes from a caller older than 1.0: its stream is sent a success
    /// outcome without `pendingToolCallIds` and no `cancelled` outcome, which such callers
    /// refuse (the rest as the agent produced it).
    ///
    /// [`Agent::run`]: crate::Agent::run
    #[must_use]
    pub fn start(
        agent: &dyn crate::Agent,
        input: ag_ui_core::RunAgentInput,
        options: RunOptions,
    ) -> Self {
        let cancel = Cancellation::new();
        // No protocolVersion: a caller older than 1.0, sent only what it can read.
        let pre_1_0_peer = input.protocol_version.is_none();
        let mut guard = match catch_unwind(AssertUnwindSafe(|| agent.run(input, cancel.clone()))) {
            Ok(events) => Self::new(events, cancel, options),
            Err(payload) => {
                let mut guard = Self::new(Box::pin(futures_util::stream::empty()), cancel, options);
                guard.panicked(payload);
                guard
            }
        };
        guard.pre_1_0_peer = pre_1_0_peer;
        guard
    }

    /// The run's cancellation signal.
    #[must_use]
    pub fn cancellation(&self) -> &Cancellation {
        &self.cancel
    }

    /// Whether the stream has ended (its last item was given out).
    #[must_use]
    pub fn is_ended(&self) -> bool {
        self.ended && self.ready.is_empty()
    }

    /// Encodes each event as one SSE frame (`data: <JSON>\n\n`), with the core writer.
    #[must_use]
    pub fn frames(self) -> SseFrames {
        SseFrames { guard: self }
    }

    /// Stops the agent and queues the `RUN_ERROR` that ends the stream (unless the protocol
    /// forbids one here).
    fn abort(&mut self, message: String, code: &str) {
        self.inner = None;
        self.cancel.cancel();
        self.ended = true;
        if self.phase != Phase::Errored {
            let event: Event = RunErrorEvent::new(message)
                .with_code(code.to_owned())
                .into();
            self.phase = Phase::Errored;
            self.ready.push_back(event);
        }
    }

    /// Checks `event` and queues it, or aborts the run when verification refuses it (what a
    /// chunk expands to is checked; the chunk itself is what is sent).
    fn accept(&mut self, event: Event) {
        if let Some((expander, verifier)) = &mut self.checker {
            let result = if event.event_type().is_chunk() || expander.has_pending() {
                expander
                    .push(event.clone())
                    .and_then(|out| out.iter().try_for_each(|e| verifier.push(e)))
            } else {
                verifier.push(&event)
            };
            if let Err(v) = result {
                self.options.report(&Report::Violation(&v));
                let message = format!("the agent broke the AG-UI protocol: {v}");
                self.abort(message, CODE_PROTOCOL_VIOLATION);
                return;
            }
        }
        match event.event_type() {
            EventType::RunStarted => self.phase = Phase::Active,
            EventType::RunFinished => self.phase = Phase::Finished,
            EventType::RunError => self.phase = Phase::Errored,
            _ => {}
        }
        self.ready.push_back(event);
    }

    fn fail(&mut self, error: BoxError) {
        self.options.report(&Report::AgentError(&*error));
        self.abort(format!("the agent failed: {error}"), CODE_AGENT_ERROR);
    }

    fn panicked(&mut self, payload: Box<dyn Any + Send>) {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        self.options.report(&Report::AgentPanic(&message));
        self.abort("the agent panicked".to_owned(), CODE_AGENT_PANIC);
    }

    fn finish(&mut self) {
        self.inner = None;
        if let Some((expander, verifier)) = &mut self.checker {
            let closing = expander.finish();
            for e in closing {
                if let Err(v) = verifier.push(&e) {
                    self.options.report(&Report::Violation(&v));
                    self.abort(
                        format!("the agent broke the AG-UI protocol: {v}"),
                        CODE_PROTOCOL_VIOLATION,
                    );
                    return;
                }
                self.ready.push_back(e);
            }
        }
        if matches!(self.phase, Phase::Fresh | Phase::Active) {
            self.options.report(&Report::IncompleteRun);
            self.abort(
                "the agent's stream ended before its run finished".to_owned(),
                CODE_INCOMPLETE_RUN,
            );
        }
        self.ended = true;
    }

    /// Encoding `event` failed: report and end the run.
    fn encode_failed(&mut self, error: &ag_ui_core::Error) {
        self.options.report(&Report::EncodeError(error));
        self.ready.clear();
        // The client never saw the event, so a RUN_ERROR is in order unless one was sent.
        if self.phase == Phase::Errored {
            self.phase = Phase::Active;
        }
        self.abort(
            format!("an event could not be encoded: {error}"),
            CODE_ENCODE_ERROR,
        );
    }
}

impl Stream for RunGuard {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let this = &mut *self;
        loop {
            if let Some(event) = this.ready.pop_front() {
                if this.pre_1_0_peer {
                    return Poll::Ready(Some(crate::peer::downgrade_for_pre_1_0(event)));
                }
                return Poll::Ready(Some(event));
            }
            let Some(inner) = this.inner.as_mut() else {
                this.ended = true;
                return Poll::Ready(None);
            };
            match catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll_next(cx))) {
                Ok(Poll::Pending) => return Poll::Pending,
                Ok(Poll::Ready(Some(Ok(event)))) => this.accept(event),
                Ok(Poll::Ready(Some(Err(error)))) => this.fail(error),
                Ok(Poll::Ready(None)) => this.finish(),
                Err(payload) => this.panicked(payload),
            }
        }
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        if !self.ended {
            self.cancel.cancel();
            self.options.report(&Report::Disconnected);
        }
    }
}

/// A guarded run as SSE frames, one per event, each written by
/// [`ag_ui_core::write_sse_frame`] as soon as the event is produced (from
/// [`RunGuard::frames`]). An event that cannot be encoded ends the run with `RUN_ERROR`
/// ([`CODE_ENCODE_ERROR`]).
#[derive(Debug)]
pub struct SseFrames {
    guard: RunGuard,
}

impl SseFrames {
    /// The run's cancellation signal.
    #[must_use]
    pub fn cancellation(&self) -> &Cancellation {
        &self.guard.cancel
    }
}

impl Stream for SseFrames {
    type Item = Vec<u8>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u8>>> {
        loop {
            let Some(event) = std::task::ready!(Pin::new(&mut self.guard).poll_next(cx)) else {
                return Poll::Ready(None);
            };
            let mut frame = Vec::with_capacity(256);
            match ag_ui_core::write_sse_frame(&mut frame, &event) {
                Ok(()) => return Poll::Ready(Some(frame)),
                Err(e) => self.guard.encode_failed(&e),
            }
        }
    }
}
