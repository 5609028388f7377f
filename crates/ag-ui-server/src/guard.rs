//! The guarantees the server gives every stream, whatever the agent does.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use ag_ui_core::{
    ChunkExpander, Event, EventType, RunErrorEvent, RunLifecycle, Verifier, Violation, Warning,
};
use futures_core::Stream;

use crate::agent::AgentStream;
use crate::{Cancellation, Rejection};
use ag_ui_core::BoxError;

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

/// What the server noticed, handed to the [`Hook`] (and, with the `tracing` feature,
/// logged as a `tracing` event): a [`ReportKind`] and the ids of the run (or request) it
/// concerns.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    kind: ReportKind<'a>,
    thread_id: Option<&'a str>,
    run_id: Option<&'a str>,
    request_id: Option<&'a str>,
    error_id: Option<&'a str>,
}

impl<'a> Report<'a> {
    /// A report of `kind`, about no run in particular (add ids with the `with_*` methods).
    #[must_use]
    pub fn new(kind: ReportKind<'a>) -> Self {
        Report {
            kind,
            thread_id: None,
            run_id: None,
            request_id: None,
            error_id: None,
        }
    }

    /// This report, about the run `run_id` of thread `thread_id`.
    #[must_use]
    pub fn with_run(mut self, thread_id: &'a str, run_id: &'a str) -> Self {
        self.thread_id = Some(thread_id);
        self.run_id = Some(run_id);
        self
    }

    /// This report, about the request `request_id`.
    #[must_use]
    pub fn with_request_id(mut self, request_id: Option<&'a str>) -> Self {
        self.request_id = request_id;
        self
    }

    /// What happened.
    #[must_use]
    pub fn kind(&self) -> &ReportKind<'a> {
        &self.kind
    }

    /// The thread of the run concerned, when the request was read that far.
    #[must_use]
    pub fn thread_id(&self) -> Option<&'a str> {
        self.thread_id
    }

    /// The run concerned, when the request was read that far.
    #[must_use]
    pub fn run_id(&self) -> Option<&'a str> {
        self.run_id
    }

    /// The request's `x-request-id`, when it had one.
    #[must_use]
    pub fn request_id(&self) -> Option<&'a str> {
        self.request_id
    }

    /// For [`ReportKind::AgentError`] and [`ReportKind::AgentPanic`]: the error id the client
    /// was sent in the `RUN_ERROR` message, to find this report from what the client saw.
    #[must_use]
    pub fn error_id(&self) -> Option<&'a str> {
        self.error_id
    }
}

/// What a [`Report`] is about.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum ReportKind<'a> {
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
    /// What the caller's protocol version does not know was left out for it: members of
    /// an event, or a whole event whose type is newer than the caller (one
    /// [`WarningKind::Downgraded`](ag_ui_core::WarningKind::Downgraded) warning each,
    /// pointers relative to the event, `""` for a withheld event), as
    /// [`ag_ui_core::version::downgrade_event`] says.
    Downgraded(&'a [Warning]),
    /// The client went away before the stream ended; the run's cancellation was tripped.
    Disconnected,
}

/// A function that receives every [`Report`].
pub type Hook = Arc<dyn Fn(&Report<'_>) + Send + Sync>;

/// How runs are guarded.
#[derive(Clone)]
#[non_exhaustive]
pub struct GuardOptions {
    /// Verify what the agent emits (spec §9.1 rules, chunks expanded first); the first
    /// violation ends the run with `RUN_ERROR`. On by default.
    pub verify: bool,
    /// Send the agent's error text to the client in the `RUN_ERROR` message. Off by default:
    /// the client gets `the agent failed (error id …)`, and the text goes only to the
    /// [`Hook`] and the log, with the same error id (an agent's errors may carry database
    /// or provider details).
    pub expose_errors: bool,
    /// Receives every [`Report`]. None by default.
    pub hook: Option<Hook>,
    /// The agent's name, for the run's span (`invoke_agent {name}`, `gen_ai.agent.name`).
    /// None by default (the span is then named `invoke_agent`).
    pub agent_name: Option<Arc<str>>,
    /// Counts runs and their events (the metrics, when configured).
    pub(crate) observer: Option<crate::runstats::Observer>,
}

impl Default for GuardOptions {
    fn default() -> Self {
        GuardOptions {
            verify: true,
            expose_errors: false,
            hook: None,
            agent_name: None,
            observer: None,
        }
    }
}

impl std::fmt::Debug for GuardOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardOptions")
            .field("verify", &self.verify)
            .field("expose_errors", &self.expose_errors)
            .field("hook", &self.hook.as_ref().map(|_| "Fn(&Report)"))
            .field("agent_name", &self.agent_name)
            .finish_non_exhaustive()
    }
}

impl GuardOptions {
    /// Hands `report` to the hook and, with the `tracing` feature, to `tracing`.
    pub fn report(&self, report: &Report<'_>) {
        #[cfg(feature = "tracing")]
        trace(report);
        if let Some(hook) = &self.hook {
            hook(report);
        }
    }
}

/// A fresh error id: 16 hex digits, unpredictable and unique within the process.
fn new_error_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    format!("{:016x}", hasher.finish())
}

#[cfg(feature = "tracing")]
fn trace(report: &Report<'_>) {
    let thread_id = report.thread_id.unwrap_or("");
    let run_id = report.run_id.unwrap_or("");
    let request_id = report.request_id.unwrap_or("");
    let error_id = report.error_id.unwrap_or("");
    match report.kind {
        ReportKind::AgentError(e) => tracing::warn!(
            thread_id, run_id, request_id, error_id, error = %e,
            "AG-UI agent failed; run ended with RUN_ERROR"
        ),
        ReportKind::AgentPanic(m) => tracing::error!(
            thread_id, run_id, request_id, error_id, panic = %m,
            "AG-UI agent panicked; run ended with RUN_ERROR"
        ),
        ReportKind::Violation(v) => tracing::warn!(
            thread_id, run_id, request_id, violation = %v,
            "AG-UI agent broke the protocol; run ended with RUN_ERROR"
        ),
        ReportKind::IncompleteRun => tracing::warn!(
            thread_id,
            run_id,
            request_id,
            "AG-UI agent stream ended with its run open; RUN_ERROR added"
        ),
        ReportKind::EncodeError(e) => tracing::warn!(
            thread_id, run_id, request_id, error = %e,
            "AG-UI event could not be encoded; run ended with RUN_ERROR"
        ),
        ReportKind::Rejected(r) => {
            tracing::info!(request_id, rejection = %r, "AG-UI request refused")
        }
        ReportKind::Forgiven(warnings) => {
            let list: Vec<String> = warnings
                .iter()
                .map(|w| format!("{:?} at {:?}", w.kind, w.pointer))
                .collect();
            tracing::info!(
                thread_id, run_id, request_id, count = warnings.len(),
                warnings = %list.join("; "),
                "AG-UI request read with forgiven deviations"
            );
        }
        ReportKind::Downgraded(warnings) => {
            let list: Vec<String> = warnings.iter().map(|w| w.pointer.clone()).collect();
            tracing::info!(
                thread_id, run_id, request_id, count = warnings.len(),
                left_out = %list.join("; "),
                "AG-UI event downgraded for the caller's protocol version"
            );
        }
        ReportKind::Disconnected => tracing::debug!(
            thread_id,
            run_id,
            request_id,
            "AG-UI client disconnected; run cancelled"
        ),
    }
}

/// The ids a guard's reports carry.
type Ids = crate::runstats::RunIds;

/// An agent's event stream with the server's guarantees:
///
/// - an `Err` item ends the run with `RUN_ERROR` (`code` [`CODE_AGENT_ERROR`], the error's
///   text as `message`);
/// - a panic while the agent's stream is polled (or, through [`RunGuard::start`], in
///   [`Agent::run`](crate::Agent::run) itself) is caught and ends the run with
///   `RUN_ERROR` ([`CODE_AGENT_PANIC`]; the panic message goes to the [`Hook`] only);
/// - with [`GuardOptions::verify`], an event that breaks a spec §9.1 rule is not sent; the run
///   ends with `RUN_ERROR` ([`CODE_PROTOCOL_VIOLATION`]);
/// - a stream that ends with its run open, or without any event, gets a `RUN_ERROR`
///   ([`CODE_INCOMPLETE_RUN`]), so every stream ends with a terminal event;
/// - after any of these the agent's stream is dropped and its [`Cancellation`] tripped;
///   dropping the guard before the end (the client went away) trips it too.
///
/// No `RUN_ERROR` is added where the protocol forbids one (right after another
/// `RUN_ERROR`).
pub struct RunGuard {
    inner: Option<AgentStream>,
    cancel: Cancellation,
    options: GuardOptions,
    checker: Option<(ChunkExpander, Verifier)>,
    /// Where the run stands, from the events sent (core's tracker, as the verifier's).
    lifecycle: RunLifecycle,
    /// Where the run stood for the caller before the last event handed out (the agent's
    /// stream is read ahead of the caller, so `lifecycle` may be further on): what an
    /// encoding failure of that event goes back to.
    before_last: RunLifecycle,
    /// Where the run stands for the caller: the events handed out.
    handed: RunLifecycle,
    ready: VecDeque<Event>,
    ended: bool,
    ids: Ids,
    stats: crate::runstats::RunStats,
    #[cfg(feature = "tracing")]
    span: tracing::Span,
    pre_1_0_peer: bool,
    /// The protocol version the caller is sent: the highest both sides speak.
    peer: ag_ui_core::ProtocolVersion,
}

impl std::fmt::Debug for RunGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunGuard")
            .field("lifecycle", &self.lifecycle)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl RunGuard {
    /// Guards `events`, the stream of a run started with `cancel`.
    #[must_use]
    pub fn new(events: AgentStream, cancel: Cancellation, options: GuardOptions) -> Self {
        let checker = options
            .verify
            .then(|| (ChunkExpander::new(), Verifier::new()));
        RunGuard {
            inner: Some(events),
            cancel,
            options,
            checker,
            lifecycle: RunLifecycle::new(),
            before_last: RunLifecycle::new(),
            handed: RunLifecycle::new(),
            ready: VecDeque::new(),
            ended: false,
            ids: Ids::default(),
            stats: crate::runstats::RunStats::idle(),
            #[cfg(feature = "tracing")]
            span: tracing::Span::none(),
            pre_1_0_peer: false,
            peer: ag_ui_core::ProtocolVersion::LATEST,
        }
    }

    fn with_ids(mut self, ids: Ids) -> Self {
        #[cfg(feature = "tracing")]
        {
            let agent = self.options.agent_name.as_deref().unwrap_or("");
            let name = if agent.is_empty() {
                "invoke_agent".to_owned()
            } else {
                format!("invoke_agent {agent}")
            };
            self.span = tracing::info_span!(
                "ag_ui_run",
                otel.name = %name,
                gen_ai.operation.name = "invoke_agent",
                gen_ai.agent.name = agent,
                gen_ai.conversation.id = ids.thread_id.as_deref().unwrap_or(""),
                thread_id = ids.thread_id.as_deref().unwrap_or(""),
                run_id = ids.run_id.as_deref().unwrap_or(""),
                request_id = ids.request_id.as_deref().unwrap_or(""),
                gen_ai.usage.input_tokens = tracing::field::Empty,
                gen_ai.usage.output_tokens = tracing::field::Empty,
                agui.outcome = tracing::field::Empty,
                error.type = tracing::field::Empty,
                otel.status_code = tracing::field::Empty,
            );
        }
        {
            #[cfg(feature = "tracing")]
            let _entered = self.span.enter();
            self.stats = crate::runstats::RunStats::start(&ids, self.options.observer.clone());
        }
        self.ids = ids;
        self
    }

    /// The run is over: its end logged and counted (once).
    fn end_stats(&mut self) {
        #[cfg(feature = "tracing")]
        let _entered = self.span.enter();
        self.stats.end(
            &self.ids,
            #[cfg(feature = "tracing")]
            &self.span,
        );
    }

    /// Starts `agent` on `input` and guards its stream. A panic in [`Agent::run`] itself
    /// (before it returns a stream) is caught like one while the stream is polled: the run
    /// is a single `RUN_ERROR` with [`CODE_AGENT_PANIC`]. An `input` without
    /// `protocolVersion` comes from a caller older than 1.0: its stream is sent a success
    /// outcome without `pendingToolCallIds` and no `cancelled` outcome, which such callers
    /// refuse (the rest as the agent produced it). The stream is sent in the highest
    /// protocol version both sides speak
    /// ([`ProtocolVersion::answer_for`](ag_ui_core::ProtocolVersion::answer_for)): for a
    /// caller of 1.0 or older, what 1.1 added is left out and an event newer than the
    /// caller withheld (each a [`ReportKind::Downgraded`]), and a `RUN_STARTED` declaring a
    /// newer version declares the caller's
    /// ([`ag_ui_core::version::downgrade_event`],
    /// [`ag_ui_core::version::downgrade_for_pre_1_0`]).
    ///
    /// [`Agent::run`]: crate::Agent::run
    #[must_use]
    pub fn start(
        agent: &dyn crate::Agent,
        input: ag_ui_core::RunAgentInput,
        options: GuardOptions,
    ) -> Self {
        let context = crate::RunContext::new(&input, Cancellation::new());
        Self::start_with_context(agent, input, context, options)
    }

    /// Starts `agent` on `input` through [`Agent::run_with_context`] and guards its
    /// stream, as [`start`](Self::start) does. The guard's [`Report`]s and its `tracing`
    /// span (`ag_ui_run`, with `thread_id`, `run_id` and `request_id`) carry the context's
    /// ids; the run's cancellation is a fresh signal, which the context the agent gets
    /// holds.
    ///
    /// [`Agent::run_with_context`]: crate::Agent::run_with_context
    #[must_use]
    pub fn start_with_context(
        agent: &dyn crate::Agent,
        input: ag_ui_core::RunAgentInput,
        context: crate::RunContext,
        options: GuardOptions,
    ) -> Self {
        let cancel = Cancellation::new();
        let context = context.with_cancellation(cancel.clone());
        let ids = Ids {
            thread_id: Some(context.thread_id().as_str().to_owned()),
            run_id: Some(context.run_id().as_str().to_owned()),
            request_id: context.request_id().map(str::to_owned),
            principal: context.principal().map(str::to_owned),
        };
        let mut guard =
            Self::new(Box::pin(futures_util::stream::empty()), cancel, options).with_ids(ids);
        // No protocolVersion: a caller older than 1.0, sent only what it can read.
        guard.pre_1_0_peer = input.protocol_version.is_none();
        // The highest version both sides speak: what the stream is sent in.
        guard.peer = ag_ui_core::ProtocolVersion::answer_for(input.protocol_version.as_deref());
        let _in_span = guard.enter_span();
        match catch_unwind(AssertUnwindSafe(|| agent.run_with_context(input, context))) {
            Ok(events) => guard.inner = Some(events),
            Err(payload) => guard.panicked(payload),
        }
        guard
    }

    /// Hands a report of `kind` to the hook and the log, with this run's ids (inside the
    /// run's span).
    pub fn report(&self, kind: ReportKind<'_>) {
        self.report_with_error_id(kind, None);
    }

    fn report_with_error_id(&self, kind: ReportKind<'_>, error_id: Option<&str>) {
        #[cfg(feature = "tracing")]
        let _entered = self.span.enter();
        let mut report = Report::new(kind).with_request_id(self.ids.request_id.as_deref());
        report.thread_id = self.ids.thread_id.as_deref();
        report.run_id = self.ids.run_id.as_deref();
        report.error_id = error_id;
        self.options.report(&report);
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

    /// Encodes each event as one protobuf frame (a 4-byte big-endian length and the
    /// envelope, [`ag_ui_core::proto::write_frame`]); feature `proto`.
    #[cfg(feature = "proto")]
    #[must_use]
    pub fn proto_frames(self) -> ProtoFrames {
        ProtoFrames { guard: self }
    }

    /// Stops the agent and queues the `RUN_ERROR` that ends the stream (unless the protocol
    /// forbids one here).
    fn abort(&mut self, message: String, code: &str) {
        self.inner = None;
        self.cancel.cancel();
        self.ended = true;
        if self.lifecycle.check(EventType::RunError).is_ok() {
            let event: Event = RunErrorEvent::new(message)
                .with_code(code.to_owned())
                .into();
            self.lifecycle.advance(EventType::RunError);
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
                self.report(ReportKind::Violation(&v));
                let message = format!("the agent broke the AG-UI protocol: {v}");
                self.abort(message, CODE_PROTOCOL_VIOLATION);
                return;
            }
        }
        self.lifecycle.advance(event.event_type());
        self.ready.push_back(event);
    }

    fn fail(&mut self, error: BoxError) {
        let error_id = new_error_id();
        self.report_with_error_id(ReportKind::AgentError(&*error), Some(&error_id));
        let message = if self.options.expose_errors {
            format!("the agent failed: {error}")
        } else {
            format!("the agent failed (error id {error_id})")
        };
        self.abort(message, CODE_AGENT_ERROR);
    }

    fn panicked(&mut self, payload: Box<dyn Any + Send>) {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let error_id = new_error_id();
        self.report_with_error_id(ReportKind::AgentPanic(&message), Some(&error_id));
        self.abort(
            format!("the agent panicked (error id {error_id})"),
            CODE_AGENT_PANIC,
        );
    }

    fn finish(&mut self) {
        self.inner = None;
        if let Some((expander, verifier)) = &mut self.checker {
            let closing = expander.finish();
            for e in closing {
                if let Err(v) = verifier.push(&e) {
                    self.report(ReportKind::Violation(&v));
                    self.abort(
                        format!("the agent broke the AG-UI protocol: {v}"),
                        CODE_PROTOCOL_VIOLATION,
                    );
                    return;
                }
                self.ready.push_back(e);
            }
        }
        if !self.lifecycle.has_ended() {
            self.report(ReportKind::IncompleteRun);
            self.abort(
                "the agent's stream ended before its run finished".to_owned(),
                CODE_INCOMPLETE_RUN,
            );
        }
        self.ended = true;
    }

    /// Encoding `event` failed: report and end the run.
    fn encode_failed(&mut self, error: &ag_ui_core::Error) {
        self.report(ReportKind::EncodeError(error));
        // The client never saw the event (nor those read ahead of it), so the run goes
        // back to where the client has it, and a RUN_ERROR is in order unless one was sent.
        self.ready.clear();
        self.lifecycle = self.before_last;
        self.abort(
            format!("an event could not be encoded: {error}"),
            CODE_ENCODE_ERROR,
        );
    }
}

/// Events taken from the agent's stream in one poll of the guard, at most (while the agent
/// has them ready), when the guard enters the run's span itself: the guard then hands them
/// out one by one.
const PULL_BATCH: usize = 8;

/// The run's span entered by [`RunGuard::enter_span`], exited when dropped. It holds the
/// span's id and subscriber, not a new reference to the span (which the guard keeps).
pub(crate) struct InSpan {
    #[cfg(feature = "tracing")]
    entered: Option<(tracing::Dispatch, tracing::span::Id)>,
}

impl Drop for InSpan {
    fn drop(&mut self) {
        #[cfg(feature = "tracing")]
        if let Some((dispatch, id)) = &self.entered {
            dispatch.exit(id);
        }
    }
}

impl RunGuard {
    /// Enters the run's span (what the agent logs and the spans it opens while polled then
    /// belong to the run) until the returned value is dropped.
    pub(crate) fn enter_span(&self) -> InSpan {
        InSpan {
            #[cfg(feature = "tracing")]
            entered: self.span.with_subscriber(|(id, dispatch)| {
                dispatch.enter(id);
                (dispatch.clone(), id.clone())
            }),
        }
    }

    /// The next event, as [`Stream::poll_next`] gives it. With `in_span` the caller has
    /// entered the run's span ([`enter_span`](Self::enter_span)) for as long as it polls,
    /// so the guard takes one event at a time without entering it again; otherwise the
    /// guard enters it once for what the agent has ready, up to [`PULL_BATCH`] events.
    pub(crate) fn poll_event(
        &mut self,
        cx: &mut Context<'_>,
        in_span: bool,
    ) -> Poll<Option<Event>> {
        loop {
            if let Some(mut event) = self.ready.pop_front() {
                if self.pre_1_0_peer {
                    event = ag_ui_core::version::downgrade_for_pre_1_0(event);
                }
                let (sent, left_out) = ag_ui_core::version::downgrade_event(event, self.peer);
                if !left_out.is_empty() {
                    self.report(ReportKind::Downgraded(&left_out));
                }
                match sent {
                    Some(event) => {
                        self.before_last = self.handed;
                        self.handed.advance(event.event_type());
                        self.stats.event(&event);
                        if self.ended && self.ready.is_empty() {
                            self.end_stats();
                        }
                        return Poll::Ready(Some(event));
                    }
                    // An event the caller's version does not know is withheld.
                    None => continue,
                }
            }
            if self.inner.is_none() {
                self.ended = true;
                self.end_stats();
                return Poll::Ready(None);
            }
            let (_entered, batch) = if in_span {
                (None, 1)
            } else {
                (Some(self.enter_span()), PULL_BATCH)
            };
            while let Some(inner) = self.inner.as_mut()
                && self.ready.len() < batch
            {
                match catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll_next(cx))) {
                    Ok(Poll::Pending) if self.ready.is_empty() => return Poll::Pending,
                    Ok(Poll::Pending) => break,
                    Ok(Poll::Ready(Some(Ok(event)))) => self.accept(event),
                    Ok(Poll::Ready(Some(Err(error)))) => self.fail(error),
                    Ok(Poll::Ready(None)) => self.finish(),
                    Err(payload) => self.panicked(payload),
                }
            }
        }
    }
}

impl RunGuard {
    /// The next event, encoded by `encode` into a frame of its own (`capacity` bytes
    /// reserved); `in_span` as for [`poll_event`](Self::poll_event). An event that cannot
    /// be encoded ends the run with `RUN_ERROR` ([`CODE_ENCODE_ERROR`]).
    pub(crate) fn poll_encoded(
        &mut self,
        cx: &mut Context<'_>,
        in_span: bool,
        capacity: usize,
        encode: impl Fn(&Event, &mut Vec<u8>) -> Result<(), ag_ui_core::Error>,
    ) -> Poll<Option<Vec<u8>>> {
        loop {
            let Some(event) = std::task::ready!(self.poll_event(cx, in_span)) else {
                return Poll::Ready(None);
            };
            let mut frame = Vec::with_capacity(capacity);
            match encode(&event, &mut frame) {
                Ok(()) => return Poll::Ready(Some(frame)),
                Err(e) => self.encode_failed(&e),
            }
        }
    }
}

impl Stream for RunGuard {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        self.poll_event(cx, false)
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        self.end_stats();
        if !self.ended {
            self.cancel.cancel();
            self.report(ReportKind::Disconnected);
            // The agent's stream is dropped inside the run's span.
            let _in_span = self.enter_span();
            self.inner = None;
        }
    }
}

/// A guarded run as SSE frames, one per event, each written by
/// [`ag_ui_core::sse::write_sse_frame`] as soon as the event is produced (from
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

impl SseFrames {
    /// The run's span entered (see [`RunGuard::enter_span`]).
    #[cfg(feature = "tower")]
    pub(crate) fn enter_span(&self) -> InSpan {
        self.guard.enter_span()
    }

    /// The next frame; `in_span` as for [`RunGuard::poll_event`].
    pub(crate) fn poll_frame(
        &mut self,
        cx: &mut Context<'_>,
        in_span: bool,
    ) -> Poll<Option<Vec<u8>>> {
        self.guard.poll_encoded(cx, in_span, 256, |event, frame| {
            ag_ui_core::sse::write_sse_frame(frame, event)
        })
    }
}

impl Stream for SseFrames {
    type Item = Vec<u8>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u8>>> {
        self.poll_frame(cx, false)
    }
}

/// A guarded run as protobuf frames, one per event, each written by
/// [`ag_ui_core::proto::write_frame`] as soon as the event is produced (from
/// [`RunGuard::proto_frames`]; feature `proto`). An event the protobuf transport cannot carry
/// ends the run with `RUN_ERROR` ([`CODE_ENCODE_ERROR`]), as an event JSON cannot hold does.
#[cfg(feature = "proto")]
#[derive(Debug)]
pub struct ProtoFrames {
    guard: RunGuard,
}

#[cfg(feature = "proto")]
impl ProtoFrames {
    /// The run's cancellation signal.
    #[must_use]
    pub fn cancellation(&self) -> &Cancellation {
        &self.guard.cancel
    }

    /// The run's span entered (see [`RunGuard::enter_span`]).
    #[cfg(feature = "tower")]
    pub(crate) fn enter_span(&self) -> InSpan {
        self.guard.enter_span()
    }

    /// The next frame; `in_span` as for [`RunGuard::poll_event`].
    pub(crate) fn poll_frame(
        &mut self,
        cx: &mut Context<'_>,
        in_span: bool,
    ) -> Poll<Option<Vec<u8>>> {
        self.guard.poll_encoded(cx, in_span, 128, |event, frame| {
            ag_ui_core::proto::write_frame(event, frame).map_err(Into::into)
        })
    }
}

#[cfg(feature = "proto")]
impl Stream for ProtoFrames {
    type Item = Vec<u8>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u8>>> {
        self.poll_frame(cx, false)
    }
}
