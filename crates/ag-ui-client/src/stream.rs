//! The runtime-free core: SSE bytes from any source in, delivered events and the run's end
//! out, the thread kept current.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use ag_ui_core::{ConsumeError, Event, PipelineError, SseReader, StreamConsumer, ThreadState};
use futures_core::Stream;
use futures_util::task::AtomicWaker;

use crate::compat::{self, Compat};
use crate::end::{RunEnd, RunItem, RunOutcome};
use crate::error::ClientError;
use crate::warning::{self, RunWarning, WarningSource};
use ag_ui_core::ProtocolVersion;

/// Stops a run from anywhere (another task, a signal handler): the run's stream closes its
/// byte source at once (for HTTP, the connection) and ends with [`ClientError::Aborted`].
///
/// Cloning gives another handle to the same run. Aborting a run that already ended does
/// nothing.
#[derive(Debug, Clone, Default)]
pub struct AbortHandle {
    inner: Arc<AbortInner>,
}

#[derive(Debug, Default)]
struct AbortInner {
    aborted: AtomicBool,
    waker: AtomicWaker,
}

impl AbortHandle {
    /// A handle not yet attached to a run (attach it with `with_abort_handle`).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Aborts the run: its stream wakes, closes its source and ends.
    pub fn abort(&self) {
        self.inner.aborted.store(true, Ordering::SeqCst);
        self.inner.waker.wake();
    }

    /// Whether [`AbortHandle::abort`] was called.
    #[must_use]
    pub fn is_aborted(&self) -> bool {
        self.inner.aborted.load(Ordering::SeqCst)
    }

    /// Registers the polling task; true when the run is aborted.
    pub(crate) fn poll_aborted(&self, cx: &Context<'_>) -> bool {
        if self.is_aborted() {
            return true;
        }
        self.inner.waker.register(cx.waker());
        self.is_aborted()
    }
}

/// The receiving side of one run, without I/O: SSE bytes in, events and the end out.
#[derive(Debug)]
pub(crate) struct RunCore {
    reader: SseReader,
    /// The protobuf frame reader, when the response is protobuf (feature `proto`).
    #[cfg(feature = "proto")]
    proto: Option<ag_ui_core::proto::ProtoReader>,
    consumer: StreamConsumer,
    /// The events of the message being read, on their way to the queue (one buffer reused
    /// for the whole run).
    scratch: Vec<Event>,
    queue: VecDeque<RunItem>,
    warnings: Vec<RunWarning>,
    compat: Compat,
    outcome: Option<RunOutcome>,
    usage: Vec<ag_ui_core::TokenUsage>,
    /// Tool calls started in the current run, in order, and those answered by a result.
    calls_started: Vec<ag_ui_core::ToolCallId>,
    calls_answered: std::collections::HashSet<ag_ui_core::ToolCallId>,
    error: Option<ClientError>,
    /// Events the agent sent, dropped ones included.
    sent: usize,
    /// Indices (as sent) of the events a downgrade dropped before the pipeline.
    dropped: Vec<usize>,
    delivered: usize,
    /// The SSE id in force for the last message read (the cursor of a resumable run).
    last_event_id: Option<String>,
    /// The run id of the last `RUN_STARTED` delivered.
    run_id: Option<ag_ui_core::RunId>,
    /// Whether a terminal event (`RUN_FINISHED`, `RUN_ERROR`) was delivered.
    terminal: bool,
    /// The cap on one SSE message the reader was given, for a fresh reader.
    max_frame: Option<usize>,
    /// The source is done (ended or failed); only the queue and the end remain.
    closed: bool,
    end_taken: bool,
    pub(crate) abort: AbortHandle,
}

impl RunCore {
    pub(crate) fn new(thread: ThreadState) -> Self {
        RunCore {
            reader: SseReader::new(),
            #[cfg(feature = "proto")]
            proto: None,
            consumer: StreamConsumer::with_thread(thread),
            scratch: Vec::new(),
            queue: VecDeque::new(),
            warnings: Vec::new(),
            compat: Compat::new(None),
            outcome: None,
            usage: Vec::new(),
            calls_started: Vec::new(),
            calls_answered: std::collections::HashSet::new(),
            error: None,
            sent: 0,
            dropped: Vec::new(),
            delivered: 0,
            last_event_id: None,
            run_id: None,
            terminal: false,
            max_frame: None,
            closed: false,
            end_taken: false,
            abort: AbortHandle::new(),
        }
    }

    pub(crate) fn set_ceiling(&mut self, ceiling: Option<ProtocolVersion>) {
        self.compat = Compat::new(ceiling);
    }

    pub(crate) fn set_max_frame_bytes(&mut self, max: usize) {
        self.reader = SseReader::with_max_frame_bytes(max);
        self.max_frame = Some(max);
    }

    /// The SSE id of the last message read, if the stream carries ids.
    #[cfg(feature = "http")]
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The run id of the last `RUN_STARTED` delivered.
    #[cfg(feature = "http")]
    pub(crate) fn run_id(&self) -> Option<&ag_ui_core::RunId> {
        self.run_id.as_ref()
    }

    /// Whether the stream delivered its terminal event.
    #[cfg(feature = "http")]
    pub(crate) fn has_terminal(&self) -> bool {
        self.terminal
    }

    /// Events delivered so far.
    #[cfg(feature = "http")]
    pub(crate) fn delivered(&self) -> usize {
        self.delivered
    }

    /// Continues on a new connection: the part of a message the old one left unfinished
    /// is dropped (the server sends it again), the pipeline and thread go on; `item`
    /// tells the application.
    #[cfg(feature = "http")]
    pub(crate) fn reconnect(&mut self, item: RunItem, warning: RunWarning) {
        self.reader = match self.max_frame {
            Some(max) => SseReader::with_max_frame_bytes(max),
            None => SseReader::new(),
        };
        self.warnings.push(warning);
        self.queue.push_back(item);
    }

    #[cfg(feature = "http")]
    pub(crate) fn add_warnings(&mut self, warnings: impl IntoIterator<Item = RunWarning>) {
        self.warnings.extend(warnings);
    }

    pub(crate) fn thread(&self) -> &ThreadState {
        self.consumer.thread()
    }

    pub(crate) fn take_thread(&mut self) -> ThreadState {
        std::mem::take(self.consumer.thread_mut())
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    /// Reads the bodies that follow as protobuf frames (`true`) or as SSE (`false`), by the
    /// response's `Content-Type`.
    #[cfg(feature = "proto")]
    pub(crate) fn set_proto(&mut self, proto: bool) {
        self.proto = proto.then(|| match self.max_frame {
            Some(max) => ag_ui_core::proto::ProtoReader::with_max_frame_bytes(max),
            None => ag_ui_core::proto::ProtoReader::new(),
        });
    }

    /// Feeds protobuf bytes: each decoded event goes through the same pipeline as an SSE
    /// message (spec B7); a frame of an unknown event kind is skipped with a warning (B6); a
    /// frame that does not decode, or one above the size cap, fails the run (B5).
    #[cfg(feature = "proto")]
    fn feed_proto(&mut self, bytes: &[u8]) {
        use ag_ui_core::proto::ProtoFrame;
        let Some(mut reader) = self.proto.take() else {
            return;
        };
        let mut result = reader.push(bytes);
        while result.is_ok() && !self.closed {
            match reader.next_frame() {
                Ok(Some(ProtoFrame::Event(decoded))) => {
                    match ag_ui_core::write::to_string(&decoded.value) {
                        Ok(text) => self.push_text(&text),
                        Err(e) => {
                            result = Err(ag_ui_core::proto::ProtoError::Malformed {
                                offset: 0,
                                detail: e.to_string(),
                            })
                        }
                    }
                }
                Ok(Some(ProtoFrame::UnknownArm { offset, field })) => {
                    self.warnings.push(RunWarning {
                        source: WarningSource::Stream,
                        event_index: Some(self.sent),
                        event_type: None,
                        kind: Some(ag_ui_core::WarningKind::UnknownEventType),
                        message: format!(
                            "event {}: skipped the protobuf frame at byte {offset}: its envelope \
                             arm ({field}) is an event kind this client does not know",
                            self.sent
                        ),
                    });
                    self.sent += 1;
                }
                // (No other frame kind exists yet.)
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => result = Err(e),
            }
        }
        self.proto = Some(reader);
        if let Err(e) = result {
            self.fail(ClientError::Sse(e.into()));
        }
    }

    /// Feeds bytes of the body.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        if self.closed {
            return;
        }
        #[cfg(feature = "proto")]
        if self.proto.is_some() {
            self.feed_proto(bytes);
            return;
        }
        if let Err(e) = self.reader.feed(bytes) {
            self.drain_messages();
            self.fail(ClientError::Sse(e));
            return;
        }
        self.drain_messages();
    }

    fn drain_messages(&mut self) {
        // Each message is read from the reader's buffer (no copy of its own) while the rest
        // of the run works on it: the reader is taken out for the loop and put back.
        let mut reader = std::mem::replace(&mut self.reader, SseReader::with_max_frame_bytes(0));
        while let Some((text, id)) = reader.next_data_with_id() {
            if self.closed {
                break;
            }
            if let Some(id) = id
                && self.last_event_id.as_deref() != Some(id)
            {
                self.last_event_id = Some(id.to_owned());
            }
            self.push_text(text);
        }
        self.reader = reader;
    }

    fn push_text(&mut self, text: &str) {
        if self.compat.withholds_any()
            && let Some(t) = compat::event_type_of(text)
            && self.compat.withholds(&t)
        {
            self.dropped.push(self.sent);
            self.warnings.push(RunWarning {
                source: WarningSource::Compatibility,
                event_index: Some(self.sent),
                event_type: Some(t.clone()),
                kind: Some(ag_ui_core::WarningKind::Downgraded),
                message: format!(
                    "event {}: dropping {t}: the agent's protocol predates it (first in {})",
                    self.sent,
                    ag_ui_core::EventType::from_wire(&t)
                        .map_or_else(String::new, |e| e.since().to_string())
                ),
            });
            self.sent += 1;
            return;
        }
        self.sent += 1;
        let text = self.strip_subagent_run_id(text);
        let mut events = std::mem::take(&mut self.scratch);
        let result = self.consumer.push_text_into(&text, &mut events);
        self.collect(result, &mut events);
        self.scratch = events;
    }

    /// For a peer that predates subagents, removes a top-level `subagentRunId` from the
    /// event (with a warning), as the official client does.
    fn strip_subagent_run_id<'t>(&mut self, text: &'t str) -> std::borrow::Cow<'t, str> {
        if !self.compat.strips_subagent_run_id() || !text.contains("\"subagentRunId\"") {
            return std::borrow::Cow::Borrowed(text);
        }
        let Ok(serde_json::Value::Object(mut map)) = serde_json::from_str(text) else {
            return std::borrow::Cow::Borrowed(text);
        };
        if map.remove("subagentRunId").is_none() {
            return std::borrow::Cow::Borrowed(text);
        }
        let index = self.sent - 1;
        self.warnings.push(RunWarning {
            source: WarningSource::Compatibility,
            event_index: Some(index),
            event_type: map.get("type").and_then(|t| t.as_str()).map(str::to_owned),
            kind: None,
            message: format!(
                "event {index}: subagentRunId removed: the agent's protocol predates subagents"
            ),
        });
        std::borrow::Cow::Owned(serde_json::Value::Object(map).to_string())
    }

    /// The index of an event in the stream as the agent sent it, from its index among the
    /// events given to the pipeline (they differ when a downgrade dropped events).
    fn sent_index(&self, pipeline_index: usize) -> usize {
        let mut i = pipeline_index;
        for d in &self.dropped {
            if *d <= i {
                i += 1;
            }
        }
        i
    }

    /// Queues the events a message delivered (draining `events`), or fails the run.
    fn collect(&mut self, result: Result<(), ConsumeError>, events: &mut Vec<Event>) {
        self.take_stream_warnings();
        let result = result.map_err(|mut e| {
            match &mut e {
                ConsumeError::Pipeline(PipelineError::Decode { index, .. }) => {
                    *index = self.sent_index(*index);
                }
                ConsumeError::Pipeline(PipelineError::Violation(v)) => {
                    v.index = self.sent_index(v.index);
                }
                _ => {}
            }
            e
        });
        match result {
            Ok(()) => {
                for e in events.drain(..) {
                    self.note(&e);
                    self.delivered += 1;
                    self.queue.push_back(RunItem::Event(e));
                }
            }
            Err(e) => {
                events.clear();
                self.fail(consume_error(e, self.delivered));
            }
        }
    }

    fn note(&mut self, event: &Event) {
        match event {
            Event::RunStarted(e) => {
                self.calls_started.clear();
                self.calls_answered.clear();
                self.run_id = Some(e.run_id.clone());
                self.terminal = false;
            }
            Event::ToolCallStart(e) => self.calls_started.push(e.tool_call_id.clone()),
            Event::ToolCallResult(e) => {
                self.calls_answered.insert(e.tool_call_id.clone());
            }
            Event::RunFinished(e) => {
                self.terminal = true;
                let mut outcome = RunOutcome::from_finished(e);
                // A success that names no pending calls leaves the consumer to derive them:
                // the calls started in this run that no result answered (spec §4).
                if let RunOutcome::Success {
                    pending_tool_call_ids,
                    ..
                } = &mut outcome
                    && pending_tool_call_ids.is_empty()
                {
                    for id in &self.calls_started {
                        if !self.calls_answered.contains(id) && !pending_tool_call_ids.contains(id)
                        {
                            pending_tool_call_ids.push(id.clone());
                        }
                    }
                }
                self.outcome = Some(outcome);
                self.usage = e.usage.clone().unwrap_or_default();
            }
            Event::RunError(e) => {
                self.terminal = true;
                self.outcome = Some(RunOutcome::from_error(e));
                self.usage = e.usage.clone().unwrap_or_default();
            }
            _ => {}
        }
    }

    fn take_stream_warnings(&mut self) {
        for w in self.consumer.take_warnings() {
            let mut w = warning::stream_warning(w);
            w.event_index = w.event_index.map(|i| self.sent_index(i));
            self.warnings.push(w);
        }
    }

    /// The source ended cleanly.
    pub(crate) fn finish(&mut self) {
        if self.closed {
            return;
        }
        match self.reader.finish() {
            // A final message without its blank line is read, as the official client does,
            // unless its JSON stops short: then the source ended in the middle of a message,
            // which over HTTP/1.1 without chunked framing is how a cut connection looks.
            Ok(Some(text)) if ends_mid_json(&text) => {
                self.fail(ClientError::Transport {
                    source: Box::new(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!(
                            "the response ended in the middle of an SSE message ({} bytes of \
                             data, its JSON unfinished and no blank line after it)",
                            text.len()
                        ),
                    )),
                });
                return;
            }
            Ok(Some(text)) => self.push_text(&text),
            Ok(None) => {}
            Err(e) => {
                self.fail(ClientError::Sse(e));
                return;
            }
        }
        if self.closed {
            return;
        }
        match self.consumer.finish() {
            Ok(mut events) => self.collect(Ok(()), &mut events),
            Err(e) => self.collect(Err(e), &mut Vec::new()),
        }
        self.closed = true;
    }

    /// The run failed (the first failure wins).
    pub(crate) fn fail(&mut self, error: ClientError) {
        if self.error.is_none() && !self.end_taken {
            self.error = Some(error);
        }
        self.closed = true;
    }

    /// The next item, once the source has nothing more to give right now.
    pub(crate) fn next_item(&mut self) -> Option<RunItem> {
        if let Some(item) = self.queue.pop_front() {
            return Some(item);
        }
        if self.closed && !self.end_taken {
            self.end_taken = true;
            return Some(RunItem::End(RunEnd {
                outcome: self.outcome.clone(),
                usage: std::mem::take(&mut self.usage),
                error: self.error.take(),
                warnings: std::mem::take(&mut self.warnings),
                events: self.delivered,
            }));
        }
        None
    }

    pub(crate) fn has_item(&self) -> bool {
        !self.queue.is_empty() || (self.closed && !self.end_taken)
    }

    pub(crate) fn is_done(&self) -> bool {
        self.end_taken
    }
}

fn consume_error(e: ConsumeError, delivered: usize) -> ClientError {
    match e {
        ConsumeError::Sse(e) => ClientError::Sse(e),
        ConsumeError::Pipeline(e) => ClientError::Event(e),
        ConsumeError::Incomplete { .. } => ClientError::IncompleteStream { events: delivered },
        // A failure kind newer than this crate: the stream could not be read.
        other => ClientError::transport(other.to_string()),
    }
}

/// A run read from any stream of SSE byte chunks: an HTTP body from any client, a recorded
/// file, a socket. Yields each delivered event (already applied to the thread), then one
/// [`RunItem::End`]. No runtime, no HTTP: it only polls the source.
///
/// The source's items are `Result<B, E>` with `B` bytes (`Vec<u8>`, `bytes::Bytes`,
/// `&[u8]`…) and `E` converted into a [`ClientError`] (a transport error for
/// `std::io::Error`; [`ClientError::transport`] wraps any other).
///
/// ```
/// use ag_ui_client::{EventStream, RunItem, RunOutcome};
/// use futures_util::{StreamExt, stream};
///
/// let body = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n\
///             data: {\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"Hi\"}\n\n\
///             data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";
/// // Any chunking works: here three bytes at a time.
/// let chunks = body.as_bytes().chunks(3).map(Ok::<_, std::io::Error>);
/// let mut run = EventStream::new(stream::iter(chunks));
///
/// let items: Vec<RunItem> = futures_executor::block_on(run.by_ref().collect());
/// let Some(RunItem::End(end)) = items.last() else { unreachable!() };
/// assert!(end.is_ok());
/// assert!(matches!(end.outcome, Some(RunOutcome::Success { .. })));
/// assert_eq!(end.events, 5); // RUN_STARTED, START, CONTENT, END, RUN_FINISHED
/// assert_eq!(run.thread().messages().len(), 1);
/// ```
#[derive(Debug)]
pub struct EventStream<S> {
    source: Option<S>,
    core: RunCore,
}

impl<S> EventStream<S> {
    /// Reads `source` into an empty thread.
    #[must_use]
    pub fn new(source: S) -> Self {
        Self::with_thread(source, ThreadState::new())
    }

    /// Reads `source` into `thread` (the history the run continues).
    #[must_use]
    pub fn with_thread(source: S, thread: ThreadState) -> Self {
        EventStream {
            source: Some(source),
            core: RunCore::new(thread),
        }
    }

    /// Caps one SSE message (default 10 MiB, as the official client).
    #[must_use]
    pub fn with_max_frame_bytes(mut self, max: usize) -> Self {
        self.core.set_max_frame_bytes(max);
        self
    }

    /// Reads the stream of an agent whose protocol ceiling is `ceiling`: `SUBAGENT_*`
    /// events are dropped with a warning when it predates them (see [`crate::compat`]).
    #[must_use]
    pub fn with_peer_protocol_ceiling(mut self, ceiling: ProtocolVersion) -> Self {
        self.core.set_ceiling(Some(ceiling));
        self
    }

    /// Lets `handle` abort this stream.
    #[must_use]
    pub fn with_abort_handle(mut self, handle: AbortHandle) -> Self {
        self.core.abort = handle;
        self
    }

    /// A handle that aborts this stream.
    #[must_use]
    pub fn abort_handle(&self) -> AbortHandle {
        self.core.abort.clone()
    }

    /// The thread as the events delivered so far left it.
    #[must_use]
    pub fn thread(&self) -> &ThreadState {
        self.core.thread()
    }

    /// The thread, ending the stream (the source is dropped).
    #[must_use]
    pub fn into_thread(mut self) -> ThreadState {
        self.core.take_thread()
    }
}

impl<S, B, E> Stream for EventStream<S>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: Into<ClientError>,
{
    type Item = RunItem;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RunItem>> {
        let this = self.get_mut();
        loop {
            if this.core.is_done() {
                this.source = None;
                return Poll::Ready(None);
            }
            if !this.core.is_closed() && this.core.abort.poll_aborted(cx) {
                this.source = None;
                this.core.fail(ClientError::Aborted);
            }
            if this.core.has_item() {
                if this.core.is_closed() {
                    this.source = None;
                }
                return Poll::Ready(this.core.next_item());
            }
            let Some(source) = this.source.as_mut() else {
                this.core.finish();
                continue;
            };
            match Pin::new(source).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(bytes))) => this.core.feed(bytes.as_ref()),
                Poll::Ready(Some(Err(e))) => {
                    this.source = None;
                    this.core.fail(e.into());
                }
                Poll::Ready(None) => {
                    this.source = None;
                    this.core.finish();
                }
            }
        }
    }
}

/// Whether `text` is the start of a JSON text cut short: it breaks off where a complete
/// document would go on (serde_json's end-of-input error), as opposed to text that is
/// complete or malformed.
fn ends_mid_json(text: &str) -> bool {
    use serde::Deserialize;
    let mut de = serde_json::Deserializer::from_str(text);
    matches!(serde::de::IgnoredAny::deserialize(&mut de), Err(e) if e.is_eof())
}
