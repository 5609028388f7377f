//! [`ThreadState`]: the client's view of a thread (its messages and its shared state), kept
//! current by applying the events of its runs (spec §9.4).

mod history;
mod index;
mod messages;
mod tools;

use crate::codec::read::{Warning, WarningKind};
use crate::model::event::{Event, EventType, RunErrorEvent};
use crate::model::interrupt::Interrupt;
use crate::model::message::Message;
use crate::model::metadata::{Metadata, State};
use crate::model::outcome::RunFinishedOutcome;
use crate::model::tool::ToolCall;
use crate::stream::lifecycle::{RunLifecycle, RunStatus};

pub use history::{
    HistoryRepair, NO_TOOL_RESULT, ProviderHistory, ProviderMessage, RepairKind, provider_history,
};
use index::Index;

/// The client's view of a thread: the message list a UI shows and the agent's shared state,
/// folded from the events of its runs by the rules of spec §9.4.
///
/// [`ThreadState::apply`] never fails: an event that cannot apply (a delta for a message
/// the thread does not hold, a JSON Patch that fails) is skipped and reported as a
/// [`Warning`]; nothing is invented and what was applied before stays.
///
/// Applying an event costs O(size of the event), whatever the length of the transcript or
/// the size of the state: messages and tool calls are found through an index, text is
/// appended in place, and patches are applied in place ([`crate::JsonPatch::apply`]). The
/// exceptions are the events that rewrite the transcript by nature: `MESSAGES_SNAPSHOT`
/// (O(transcript + snapshot)) and `TOOL_CALL_RESULT`, which inserts its tool message after
/// the call's assistant message (O(messages after it)).
///
/// Chunk events (`*_CHUNK`) are not applied: they abbreviate start / content / end events
/// and are expanded first ([`crate::ChunkExpander`], [`crate::EventPipeline`],
/// [`crate::StreamConsumer`]); one given here is skipped with
/// [`WarningKind::ChunkNotApplied`].
///
/// ```
/// use ag_ui_core::{Event, RunStatus, ThreadState};
///
/// let mut thread = ThreadState::new();
/// for json in [
///     r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
///     r#"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
///     r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}"#,
///     r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
///     r#"{"type":"STATE_SNAPSHOT","snapshot":{"step":1}}"#,
///     r#"{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/step","value":2}]}"#,
///     r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
/// ] {
///     let event: Event = ag_ui_core::read::from_str(json)?;
///     assert!(thread.apply(&event).is_empty());
/// }
/// assert_eq!(serde_json::to_value(thread.messages())?,
///            serde_json::json!([{"id": "m1", "role": "assistant", "content": "Hello"}]));
/// assert_eq!(thread.state(), &serde_json::json!({"step": 2}));
/// assert_eq!(thread.run_status(), RunStatus::Finished);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ThreadState {
    messages: Vec<Message>,
    state: State,
    index: Index,
    lifecycle: RunLifecycle,
    outcome: Option<RunFinishedOutcome>,
    run_error: Option<RunErrorEvent>,
    /// The ids of the tool calls started since the last `RUN_STARTED`
    /// ([`ThreadState::unanswered_tool_calls`]).
    run_calls: crate::hash::HashSet<String>,
}

impl Default for ThreadState {
    /// No messages, state `{}`.
    fn default() -> Self {
        ThreadState {
            messages: Vec::new(),
            state: State::Object(serde_json::Map::new()),
            index: Index::default(),
            lifecycle: RunLifecycle::new(),
            outcome: None,
            run_error: None,
            run_calls: crate::hash::HashSet::default(),
        }
    }
}

/// The events that change neither the messages nor the state (spans, steps, subagent
/// segments, `RAW`, `CUSTOM`), as a pattern: both of [`ThreadState`]'s matches use it.
macro_rules! stores_nothing {
    () => {
        Event::StepStarted(_)
            | Event::StepFinished(_)
            | Event::Raw(_)
            | Event::Custom(_)
            | Event::ReasoningStart(_)
            | Event::ReasoningEnd(_)
            | Event::SubagentStarted(_)
            | Event::SubagentFinished(_)
            | Event::SubagentError(_)
    };
}

impl ThreadState {
    /// A thread with no messages and the state `{}`.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the messages (a history loaded from storage, say). Costs O(messages) to
    /// index them.
    #[must_use]
    pub fn with_messages(mut self, messages: Vec<Message>) -> Self {
        self.index = Index::build(&messages);
        self.messages = messages;
        self
    }

    /// Appends `message` to the transcript (a user message, or the result of a frontend
    /// tool call, before the next run), indexing it. The state, the last run's outcome and
    /// what [`ThreadState::unanswered_tool_calls`] reports otherwise are kept.
    pub fn add_message(&mut self, message: Message) {
        self.push_message(message);
    }

    /// Replaces the state.
    #[must_use]
    pub fn with_state(mut self, state: State) -> Self {
        self.state = state;
        self
    }

    /// Applies one event (spec §9.4) and returns what it could not do. Never fails.
    ///
    /// Copies what the event brings into the thread; [`ThreadState::apply_owned`] moves it
    /// instead.
    pub fn apply(&mut self, event: &Event) -> Vec<Warning> {
        let mut warnings = Vec::new();
        // The streamed deltas, most of a stream, are applied from the borrowed event.
        // So are the events that store nothing of their payload; the others are copied
        // once, since the thread keeps what they bring.
        match event {
            Event::TextMessageContent(e) => self.text_content(e, &mut warnings),
            Event::ToolCallArgs(e) => self.tool_call_args(e, &mut warnings),
            Event::ReasoningMessageContent(e) => self.reasoning_content(e, &mut warnings),
            Event::StateDelta(e) => {
                if let Err(err) = e.delta.apply(&mut self.state) {
                    warnings.push(patch_failed(&err));
                }
            }
            Event::RunStarted(_) => self.run_started(),
            Event::RunFinished(e) => self.run_finished(e.outcome.clone()),
            stores_nothing!() => {}
            // The thread keeps what these bring: copied once, then moved in.
            Event::TextMessageStart(_)
            | Event::TextMessageEnd(_)
            | Event::TextMessageChunk(_)
            | Event::ToolCallStart(_)
            | Event::ToolCallEnd(_)
            | Event::ToolCallChunk(_)
            | Event::ToolCallResult(_)
            | Event::StateSnapshot(_)
            | Event::MessagesSnapshot(_)
            | Event::ActivitySnapshot(_)
            | Event::ActivityDelta(_)
            | Event::ReasoningMessageStart(_)
            | Event::ReasoningMessageEnd(_)
            | Event::ReasoningMessageChunk(_)
            | Event::ReasoningEncryptedValue(_)
            | Event::RunError(_) => return self.apply_owned(event.clone()),
        }
        stamp(&mut warnings, event);
        warnings
    }

    /// A streamed delta without metadata, given by its kind, id and text: what
    /// [`ThreadState::apply`] does with that event (`stream::delta`, the consumer's fast
    /// lane). The warnings are stamped with the event's type.
    pub(crate) fn append_delta(
        &mut self,
        kind: crate::stream::delta::DeltaKind,
        id: &str,
        delta: &str,
        w: &mut Vec<Warning>,
    ) {
        use crate::stream::delta::DeltaKind;
        let start = w.len();
        match kind {
            DeltaKind::Text => self.append_text(id, delta, None, w),
            DeltaKind::ToolCallArgs => self.append_args(id, delta, None, w),
            DeltaKind::Reasoning => self.append_reasoning(id, delta, None, w),
        }
        for w in &mut w[start..] {
            w.event_type = Some(kind.event_type());
        }
    }

    /// [`ThreadState::apply`] taking the event by value: its text, content, snapshot and
    /// patch values are moved into the thread, not copied.
    pub fn apply_owned(&mut self, event: Event) -> Vec<Warning> {
        let event_type = event.event_type();
        let mut warnings = Vec::new();
        self.dispatch(event, &mut warnings);
        for w in &mut warnings {
            w.event_type = Some(event_type);
        }
        warnings
    }

    fn dispatch(&mut self, event: Event, w: &mut Vec<Warning>) {
        match event {
            Event::TextMessageStart(e) => self.text_start(e, w),
            Event::TextMessageContent(e) => self.text_content(&e, w),
            Event::TextMessageEnd(e) => self.text_end(e, w),
            Event::ToolCallStart(e) => self.tool_call_start(*e, w),
            Event::ToolCallArgs(e) => self.tool_call_args(&e, w),
            Event::ToolCallEnd(e) => self.tool_call_end(e, w),
            Event::ToolCallResult(e) => self.tool_call_result(*e, w),
            Event::StateSnapshot(e) => self.state = e.snapshot,
            Event::StateDelta(e) => {
                if let Err(err) = e.delta.apply_owned(&mut self.state) {
                    w.push(patch_failed(&err));
                }
            }
            Event::MessagesSnapshot(e) => self.messages_snapshot(e.messages),
            Event::ActivitySnapshot(e) => self.activity_snapshot(*e, w),
            Event::ActivityDelta(e) => self.activity_delta(*e, w),
            Event::ReasoningMessageStart(e) => self.reasoning_start(e, w),
            Event::ReasoningMessageContent(e) => self.reasoning_content(&e, w),
            Event::ReasoningMessageEnd(e) => self.reasoning_end(e, w),
            Event::ReasoningEncryptedValue(e) => self.encrypted_value(*e, w),
            Event::RunStarted(_) => self.run_started(),
            Event::RunFinished(e) => self.run_finished(e.outcome),
            Event::RunError(e) => {
                self.lifecycle.advance(EventType::RunError);
                self.run_error = Some(e);
            }
            Event::TextMessageChunk(_)
            | Event::ToolCallChunk(_)
            | Event::ReasoningMessageChunk(_) => {
                w.push(Warning::new(WarningKind::ChunkNotApplied, "").with_detail(
                    "chunk events are expanded into start / content / end events before they \
                     are applied (ChunkExpander, EventPipeline or StreamConsumer)",
                ))
            }
            // Listed, not matched by a wildcard, so that a new event does not compile
            // until it is decided here.
            stores_nothing!() => {}
        }
    }

    fn run_started(&mut self) {
        self.lifecycle.advance(EventType::RunStarted);
        self.run_error = None;
        self.run_calls.clear();
    }

    fn run_finished(&mut self, outcome: Option<RunFinishedOutcome>) {
        self.lifecycle.advance(EventType::RunFinished);
        self.outcome = Some(outcome.unwrap_or_else(RunFinishedOutcome::success));
    }

    /// The messages, in order.
    #[must_use]
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The shared state.
    #[must_use]
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The message with id `id` (the first, if the transcript given holds several).
    #[must_use]
    pub fn message(&self, id: &str) -> Option<&Message> {
        self.index
            .position(&self.messages, id)
            .map(|p| &self.messages[p])
    }

    /// The tool call with id `tool_call_id`, wherever its assistant message is.
    #[must_use]
    pub fn tool_call(&self, tool_call_id: &str) -> Option<&ToolCall> {
        let (p, k) = self.index.call(&self.messages, tool_call_id)?;
        match &self.messages[p] {
            Message::Assistant(a) => a.tool_calls.as_ref()?.get(k),
            _ => None,
        }
    }

    /// The arguments of tool call `tool_call_id` received so far (the whole argument text
    /// once its `TOOL_CALL_END` has arrived). Conventionally JSON, never validated.
    #[must_use]
    pub fn tool_call_arguments(&self, tool_call_id: &str) -> Option<&str> {
        self.tool_call(tool_call_id)
            .map(|c| c.function.arguments.as_str())
    }

    /// Where the latest run stands.
    #[must_use]
    pub fn run_status(&self) -> RunStatus {
        self.lifecycle.status()
    }

    /// The outcome of the last `RUN_FINISHED` (an absent outcome reads as the success it
    /// means); `None` before any.
    #[must_use]
    pub fn outcome(&self) -> Option<&RunFinishedOutcome> {
        self.outcome.as_ref()
    }

    /// The interrupts the last `RUN_FINISHED` paused on (empty unless its outcome is
    /// `interrupt`). A new run on the thread must answer every one of them (spec §9.2).
    #[must_use]
    pub fn pending_interrupts(&self) -> &[Interrupt] {
        match &self.outcome {
            Some(RunFinishedOutcome::Interrupt(o)) => &o.interrupts,
            _ => &[],
        }
    }

    /// The `RUN_ERROR` that ended the current run, if it failed; cleared by the next
    /// `RUN_STARTED`.
    #[must_use]
    pub fn run_error(&self) -> Option<&RunErrorEvent> {
        self.run_error.as_ref()
    }

    /// The events that rebuild this thread when applied to an empty one, as one run
    /// `run_id` of `thread_id`: `RUN_STARTED`, `MESSAGES_SNAPSHOT` (every message, of every
    /// role), `STATE_SNAPSHOT`, then the last run's end as the thread keeps it: its
    /// `RUN_ERROR`, or `RUN_FINISHED` with its outcome (pending interrupts included) when
    /// that was not a plain success. A store that keeps a thread keeps these, so that what
    /// the thread learns from any event survives a reload.
    #[must_use]
    pub fn snapshot(&self, thread_id: &str, run_id: &str) -> Vec<Event> {
        use crate::model::event::{
            MessagesSnapshotEvent, RunFinishedEvent, RunStartedEvent, StateSnapshotEvent,
        };
        let mut events: Vec<Event> = vec![
            RunStartedEvent::new(thread_id, run_id).into(),
            MessagesSnapshotEvent::new(self.messages.clone()).into(),
            StateSnapshotEvent::new(self.state.clone()).into(),
        ];
        if let Some(error) = &self.run_error {
            events.push(error.clone().into());
        } else {
            let mut finished = RunFinishedEvent::new(thread_id, run_id);
            if let Some(outcome) = self
                .outcome
                .as_ref()
                .filter(|o| **o != RunFinishedOutcome::success())
            {
                finished = finished.with_outcome(outcome.clone());
            }
            events.push(finished.into());
        }
        events
    }

    /// The messages and the state.
    #[must_use]
    pub fn into_parts(self) -> (Vec<Message>, State) {
        (self.messages, self.state)
    }
}

/// Folds event metadata into a message's or call's (spec §2.7): key by key, last write
/// wins, never recursive; absent or empty incoming metadata leaves the target untouched.
fn merge_metadata(target: &mut Option<Metadata>, incoming: Option<Box<Metadata>>) {
    let Some(incoming) = incoming else { return };
    if incoming.is_empty() {
        return;
    }
    match target {
        Some(t) => t.0.extend(incoming.0),
        None => *target = Some(*incoming),
    }
}

/// [`merge_metadata`] from a borrowed event.
fn merge_metadata_ref(target: &mut Option<Metadata>, incoming: Option<&Metadata>) {
    let Some(incoming) = incoming else { return };
    if incoming.is_empty() {
        return;
    }
    target.get_or_insert_default().merge_from(incoming);
}

fn patch_failed(err: &crate::PatchError) -> Warning {
    Warning::new(WarningKind::PatchFailed, format!("/delta/{}", err.index))
        .with_detail(format!("state kept: {err}"))
}

fn stamp(warnings: &mut [Warning], event: &Event) {
    for w in warnings {
        w.event_type = Some(event.event_type());
    }
}

fn missing_message(pointer: &str, id: &str) -> Warning {
    Warning::new(WarningKind::MissingMessage, pointer).with_detail(format!(
        "the thread holds no message with id {id:?}; skipped"
    ))
}

fn role_mismatch(pointer: &str, id: &str, role: crate::Role, what: &str) -> Warning {
    Warning::new(WarningKind::RoleMismatch, pointer)
        .with_detail(format!("message {id:?} has role {role}, {what}"))
}
