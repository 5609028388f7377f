//! [`StreamConsumer`]: SSE bytes (or event texts) in, delivered events out, a
//! [`ThreadState`] kept current: the whole receiving side of a client in one call.

use crate::codec::error::{Error, Repr};
use crate::codec::read::Warning;
use crate::model::event::{Event, EventType};
use crate::stream::pipeline::{EventPipeline, PipelineError};
use crate::stream::sse::SseReader;
use crate::stream::verify::Violation;
use crate::thread::ThreadState;

/// Why a [`StreamConsumer`] stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConsumeError {
    /// SSE framing: invalid UTF-8, a message over the size cap.
    #[error(transparent)]
    Sse(Error),
    /// The pipeline refused an event: a decode error or a stream rule violation.
    #[error(transparent)]
    Pipeline(PipelineError),
    /// The input ended without a terminal event (`RUN_FINISHED` or `RUN_ERROR` as the last
    /// run event). What was delivered before stays applied.
    #[error(
        "the stream ended without RUN_FINISHED or RUN_ERROR ({events_delivered} events delivered{})",
        match last_event { Some(t) => format!(", the last {t}"), None => String::new() }
    )]
    Incomplete {
        /// Events delivered (and applied) in all.
        events_delivered: usize,
        /// The type of the last event delivered, if any.
        last_event: Option<EventType>,
    },
}

/// SSE bytes (or event texts) in, delivered events out, [`ThreadState`] kept current.
///
/// Each complete SSE message goes through the receiving pipeline of an AG-UI 1.0 client
/// (spec §9): SSE framing ([`SseReader`]) → decode with the forgiving reader → expand chunk
/// events → verify the stream rules ([`EventPipeline`]) → apply to the thread
/// ([`ThreadState::apply`], from a borrow: the events are returned to the caller too, so the
/// thread copies what it keeps of them). The events returned are the ones the thread has
/// just applied, in order (chunks expanded, unknown event types dropped).
///
/// Warnings from every stage (the reader, the stream decoder, the reducer) are kept until
/// [`StreamConsumer::take_warnings`], each with the index and type of the event that raised
/// it. The first error stops the consumer: events delivered before it stay applied, and
/// any later call returns the same kind of error.
///
/// ```
/// use ag_ui_core::StreamConsumer;
///
/// let mut consumer = StreamConsumer::new();
/// let sse = concat!(
///     "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
///     "data: {\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"Hi\"}\n\n",
///     "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
/// );
/// // Bytes may arrive in any chunking.
/// let (a, b) = sse.as_bytes().split_at(50);
/// let mut events = consumer.feed(a)?;
/// events.extend(consumer.feed(b)?);
/// events.extend(consumer.finish()?);
/// assert_eq!(events.len(), 5); // RUN_STARTED, START, CONTENT, END, RUN_FINISHED
/// assert_eq!(consumer.thread().messages().len(), 1);
/// assert!(consumer.take_warnings().is_empty());
/// # Ok::<(), ag_ui_core::ConsumeError>(())
/// ```
#[derive(Debug)]
pub struct StreamConsumer {
    sse: SseReader,
    pipeline: EventPipeline,
    thread: ThreadState,
    warnings: Vec<Warning>,
    omitted_warnings: usize,
    delivered: usize,
    last_run_event: Option<EventType>,
    last_event: Option<EventType>,
    failed: Option<Failure>,
    /// The events of one read on their way into the thread ([`StreamConsumer::feed_to_thread`]),
    /// kept for its capacity.
    scratch: Vec<Event>,
}

/// What the consumer failed with, to refuse later input with the same kind of error.
#[derive(Debug, Clone)]
enum Failure {
    Sse(u64, String),
    Decode(usize, String),
    Violation(Violation),
    Incomplete,
}

impl Default for StreamConsumer {
    fn default() -> Self {
        Self::new()
    }
}

impl StreamConsumer {
    /// A consumer with the forgiving pipeline, the default 10 MiB SSE message cap and an
    /// empty thread.
    #[must_use]
    pub fn new() -> Self {
        Self::with_thread(ThreadState::new())
    }

    /// A consumer that keeps `thread` current (a history loaded before the run).
    #[must_use]
    pub fn with_thread(thread: ThreadState) -> Self {
        StreamConsumer {
            sse: SseReader::new(),
            pipeline: EventPipeline::new(),
            thread,
            warnings: Vec::new(),
            omitted_warnings: 0,
            delivered: 0,
            last_run_event: None,
            last_event: None,
            failed: None,
            scratch: Vec::new(),
        }
    }

    /// Uses `pipeline` (exact mode, a custom id generator for translated 0.x events).
    /// Set it before the first input.
    #[must_use]
    pub fn with_pipeline(mut self, pipeline: EventPipeline) -> Self {
        self.pipeline = pipeline;
        self
    }

    /// Caps one SSE message at `max` bytes. Set it before the first input.
    #[must_use]
    pub fn with_max_frame_bytes(mut self, max: usize) -> Self {
        self.sse = SseReader::with_max_frame_bytes(max);
        self
    }

    /// SSE bytes, in any chunking. Returns the events delivered by the complete SSE
    /// messages in `bytes` (and earlier partial input), in order, each already applied to
    /// the thread.
    ///
    /// # Errors
    /// [`ConsumeError::Sse`] for broken framing, [`ConsumeError::Pipeline`] for a refused
    /// event. The events of the same call before the refused one are applied (read them
    /// from [`StreamConsumer::thread`]); they are not returned.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<Event>, ConsumeError> {
        let mut out = Vec::new();
        self.feed_into(bytes, &mut out)?;
        Ok(out)
    }

    /// [`StreamConsumer::feed`], appending the events delivered to `out` (a buffer the
    /// caller reuses from call to call, so that feeding costs no vector of its own). The
    /// SSE messages are decoded from the reader's buffer, without a copy of their own.
    ///
    /// # Errors
    /// As [`StreamConsumer::feed`]; the events of the same call before the refused one
    /// are applied and left in `out`.
    ///
    /// ```
    /// let mut consumer = ag_ui_core::StreamConsumer::new();
    /// let mut events = Vec::new();
    /// consumer.feed_into(b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n", &mut events)?;
    /// assert_eq!(events.len(), 1);
    /// events.clear(); // keeps its capacity for the next call
    /// # Ok::<(), ag_ui_core::ConsumeError>(())
    /// ```
    pub fn feed_into(&mut self, bytes: &[u8], out: &mut Vec<Event>) -> Result<(), ConsumeError> {
        self.feed_with(bytes, out, true)
    }

    /// SSE bytes, in any chunking, applied to the thread and not returned: each event is
    /// moved into the thread rather than copied (the cheapest way from bytes to a
    /// [`ThreadState`], for a caller that reads only the thread). Returns how many events
    /// the call delivered.
    ///
    /// The streamed deltas that are most of a stream (`TEXT_MESSAGE_CONTENT`,
    /// `TOOL_CALL_ARGS`, `REASONING_MESSAGE_CONTENT` with their `type` first and nothing
    /// but their id, `delta` and perhaps a `timestamp`; and `TEXT_MESSAGE_CHUNK`,
    /// `TOOL_CALL_CHUNK`, `REASONING_MESSAGE_CHUNK` with nothing but perhaps their id,
    /// their `delta` and perhaps a `timestamp`) are read with the id and the delta
    /// borrowed from the SSE buffer and appended without building an [`Event`]; every
    /// other line, and any such line the stream's state needs whole (a content event while
    /// a chunk stream is open in the parent lane, which it closes; a chunk that does not
    /// continue the parent lane's open stream), takes the path of
    /// [`StreamConsumer::feed`]. Both end the same: the same checks, thread, warnings and
    /// errors.
    ///
    /// # Errors
    /// As [`StreamConsumer::feed`]; the events of the same call before the refused one are
    /// applied.
    ///
    /// ```
    /// let mut consumer = ag_ui_core::StreamConsumer::new();
    /// let sse = b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n\
    ///             data: {\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"Hi\"}\n\n";
    /// assert_eq!(consumer.feed_to_thread(sse)?, 3); // RUN_STARTED, START, CONTENT
    /// assert_eq!(consumer.thread().messages().len(), 1);
    /// # Ok::<(), ag_ui_core::ConsumeError>(())
    /// ```
    #[inline]
    pub fn feed_to_thread(&mut self, bytes: &[u8]) -> Result<usize, ConsumeError> {
        if !self.read(bytes)? {
            return Ok(0);
        }
        let before = self.delivered;
        let mut scratch = std::mem::take(&mut self.scratch);
        let result = self.take_messages(&mut scratch, false);
        self.scratch = scratch;
        result.map(|()| self.delivered - before)
    }

    /// Feeds `bytes` to the SSE reader; returns whether a message is complete. (Most reads
    /// of a line that arrives in pieces complete nothing: they cost no more than this.)
    #[inline]
    fn read(&mut self, bytes: &[u8]) -> Result<bool, ConsumeError> {
        if self.failed.is_some() {
            self.check_failed()?;
        }
        if let Err(e) = self.sse.feed(bytes) {
            return Err(self.fail_sse(e));
        }
        Ok(self.sse.has_message())
    }

    /// Reads the SSE messages of `bytes` into `out`; with `keep` false each event is moved
    /// into the thread and `out` is left empty.
    fn feed_with(
        &mut self,
        bytes: &[u8],
        out: &mut Vec<Event>,
        keep: bool,
    ) -> Result<(), ConsumeError> {
        if !self.read(bytes)? {
            return Ok(());
        }
        self.take_messages(out, keep)
    }

    /// Reads the complete SSE messages waiting in the reader into `out` (moved into the
    /// thread unless `keep`).
    fn take_messages(&mut self, out: &mut Vec<Event>, keep: bool) -> Result<(), ConsumeError> {
        // The reader lends each message from its buffer while the rest of the consumer
        // works on it: take it out for the loop (an empty reader allocates nothing).
        let mut sse = std::mem::replace(&mut self.sse, SseReader::with_max_frame_bytes(0));
        let mut result = Ok(());
        while let Some(text) = sse.next_data() {
            result = self.text(text, out, keep);
            if result.is_err() {
                break;
            }
        }
        self.sse = sse;
        result
    }

    /// One event's JSON text (no SSE framing). Returns the events it delivers, applied.
    ///
    /// # Errors
    /// [`ConsumeError::Pipeline`] for a refused event.
    pub fn push_text(&mut self, json: &str) -> Result<Vec<Event>, ConsumeError> {
        let mut out = Vec::new();
        self.push_text_into(json, &mut out)?;
        Ok(out)
    }

    /// [`StreamConsumer::push_text`], appending the events delivered to `out` (a buffer
    /// the caller reuses, as with [`StreamConsumer::feed_into`]).
    ///
    /// # Errors
    /// As [`StreamConsumer::push_text`]; `out` is then left as it was.
    ///
    /// ```
    /// let mut consumer = ag_ui_core::StreamConsumer::new();
    /// let mut events = Vec::new();
    /// consumer.push_text_into(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#, &mut events)?;
    /// consumer.push_text_into(r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Hi"}"#, &mut events)?;
    /// assert_eq!(events.len(), 3); // RUN_STARTED, TEXT_MESSAGE_START, TEXT_MESSAGE_CONTENT
    /// # Ok::<(), ag_ui_core::ConsumeError>(())
    /// ```
    pub fn push_text_into(&mut self, json: &str, out: &mut Vec<Event>) -> Result<(), ConsumeError> {
        self.check_failed()?;
        self.text(json, out, true)
    }

    /// End of input: delivers a final SSE message that lacks its blank line and the `*_END`
    /// events closing chunk streams still pending.
    ///
    /// # Errors
    /// As [`StreamConsumer::feed`], and [`ConsumeError::Incomplete`] when the stream did not
    /// end with `RUN_FINISHED` or `RUN_ERROR` (events delivered before stay applied; those
    /// of this call are in the thread but not returned).
    pub fn finish(&mut self) -> Result<Vec<Event>, ConsumeError> {
        self.check_failed()?;
        let mut out = Vec::new();
        match self.sse.finish() {
            Ok(Some(text)) => self.text(&text, &mut out, true)?,
            Ok(None) => {}
            Err(e) => return Err(self.fail_sse(e)),
        }
        let index = self.pipeline.events_seen();
        match self.pipeline.finish() {
            Ok(events) => self.deliver(index, events, &mut out),
            Err(e) => return Err(self.fail_pipeline(e)),
        }
        if !matches!(
            self.last_run_event,
            Some(EventType::RunFinished | EventType::RunError)
        ) {
            self.failed = Some(Failure::Incomplete);
            return Err(self.incomplete());
        }
        Ok(out)
    }

    /// Warnings so far (reader, pipeline and reducer), in order, each with the index and
    /// type of the event that raised it; drains them. The reader lists at most
    /// [`MAX_WARNINGS`](crate::read::MAX_WARNINGS) per event and counts the rest: that count
    /// stays in [`StreamConsumer::omitted_warnings`], which draining does not reset.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }

    /// How many warnings the reader counted but did not list, over every event consumed so
    /// far ([`Decoded::omitted_warnings`](crate::Decoded::omitted_warnings) of each): an
    /// event with a million unknown fields gives a hundred warnings and adds 999 900 here.
    /// Not reset by [`StreamConsumer::take_warnings`].
    #[must_use]
    pub fn omitted_warnings(&self) -> usize {
        self.omitted_warnings
    }

    /// The thread as the events delivered so far left it.
    #[must_use]
    pub fn thread(&self) -> &ThreadState {
        &self.thread
    }

    /// Mutable access to the thread (to add a user message between runs, say).
    pub fn thread_mut(&mut self) -> &mut ThreadState {
        &mut self.thread
    }

    /// The thread.
    #[must_use]
    pub fn into_thread(self) -> ThreadState {
        self.thread
    }

    /// How many events have been delivered (and applied) in all.
    #[must_use]
    pub fn events_delivered(&self) -> usize {
        self.delivered
    }

    /// Decodes and applies one event's text; the events it delivers stay in `out` when
    /// `keep`, else they are moved into the thread.
    fn text(&mut self, json: &str, out: &mut Vec<Event>, keep: bool) -> Result<(), ConsumeError> {
        let index = self.pipeline.events_seen();
        // A plain streamed delta going only to the thread is read in place
        // (`stream::delta`).
        if !keep
            && let Some(d) = crate::stream::delta::peek(json)
            && let Some(checked) = self.pipeline.push_delta(d.kind, d.shape)
        {
            let id = match checked {
                Ok(id) => id,
                Err(e) => {
                    self.warnings.extend(self.pipeline.take_refused_warnings());
                    return Err(self.fail_pipeline(e));
                }
            };
            let mut applied = Vec::new();
            self.thread
                .append_delta(d.kind, id, d.delta.as_str(), &mut applied);
            let t = self.note(d.kind.event_type());
            self.warnings
                .extend(applied.into_iter().map(|w| w.at_event(index, Some(t))));
            return Ok(());
        }
        let start = out.len();
        match self.pipeline.push_text_into(json, out) {
            Ok((warnings, omitted)) => {
                self.warnings.extend(warnings);
                self.omitted_warnings += omitted;
                if keep {
                    self.apply_from(index, &out[start..]);
                } else {
                    for event in out.drain(start..) {
                        let t = self.note(event.event_type());
                        let applied = self.thread.apply_owned(event);
                        self.warnings
                            .extend(applied.into_iter().map(|w| w.at_event(index, Some(t))));
                    }
                }
                Ok(())
            }
            Err(e) => {
                self.warnings.extend(self.pipeline.take_refused_warnings());
                Err(self.fail_pipeline(e))
            }
        }
    }

    fn deliver(&mut self, index: usize, events: Vec<Event>, out: &mut Vec<Event>) {
        let start = out.len();
        out.extend(events);
        self.apply_from(index, &out[start..]);
    }

    /// Applies `events`, the events delivered for the input event `index`, in order.
    fn apply_from(&mut self, index: usize, events: &[Event]) {
        for event in events {
            let t = self.note(event.event_type());
            let applied = self.thread.apply(event);
            self.warnings
                .extend(applied.into_iter().map(|w| w.at_event(index, Some(t))));
        }
    }

    /// Counts a delivered event of type `t` (about to be applied); returns `t`.
    fn note(&mut self, t: EventType) -> EventType {
        if matches!(
            t,
            EventType::RunStarted | EventType::RunFinished | EventType::RunError
        ) {
            self.last_run_event = Some(t);
        }
        self.last_event = Some(t);
        self.delivered += 1;
        t
    }

    fn check_failed(&self) -> Result<(), ConsumeError> {
        let Some(f) = &self.failed else {
            return Ok(());
        };
        let again = |what: &str| format!("the stream already failed: {what}");
        Err(match f {
            Failure::Sse(offset, m) => ConsumeError::Sse(
                Repr::Sse {
                    offset: *offset,
                    message: again(m),
                }
                .into(),
            ),
            Failure::Decode(index, m) => ConsumeError::Pipeline(PipelineError::Decode {
                index: *index,
                error: Error::invalid(String::new(), again(m)),
            }),
            Failure::Violation(v) => ConsumeError::Pipeline(PipelineError::Violation(v.clone())),
            Failure::Incomplete => self.incomplete(),
        })
    }

    fn incomplete(&self) -> ConsumeError {
        ConsumeError::Incomplete {
            events_delivered: self.delivered,
            last_event: self.last_event,
        }
    }

    fn fail_sse(&mut self, e: Error) -> ConsumeError {
        let offset = e.offset().unwrap_or(0);
        self.failed = Some(Failure::Sse(offset, e.to_string()));
        ConsumeError::Sse(e)
    }

    fn fail_pipeline(&mut self, e: PipelineError) -> ConsumeError {
        self.failed = Some(match &e {
            PipelineError::Violation(v) => Failure::Violation(v.clone()),
            other => Failure::Decode(other.index(), other.to_string()),
        });
        ConsumeError::Pipeline(e)
    }
}
