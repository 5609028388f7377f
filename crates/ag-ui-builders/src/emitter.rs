//! [`RunEmitter`]: turns an agent's work — a model's streamed output, tool results, state,
//! steps, activity, subagents — into a well-ordered AG-UI event sequence.

use std::fmt;

use ag_ui_core::{
    Content, Event, EventType, Interrupt, JsonPatchOperation, Message, MessageId,
    ReasoningEncryptedValueSubtype, RunFinishedOutcome, RunId, RunStartedEvent,
    SubagentFinishedOutcome, SubagentRunId, SubagentStartedEvent, ThreadId, TokenUsage, ToolCallId,
};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, into_object, to_value};
use crate::event;
use crate::ids::{IdGenerator, UuidIds};
use crate::interrupt::{interrupted, subagent_suspended, success_pending};
use crate::patch::{check, diff};
use crate::tool::IntoArguments;
use crate::usage::{ProviderUsage, UsageMeter};

/// One piece of a model's streamed output, as agent frameworks report it (text, thinking,
/// tool-call start / argument delta / end, finish with usage).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelChunk {
    /// A fragment of the answer text.
    Text(String),
    /// A fragment of visible reasoning ("thinking").
    Thinking(String),
    /// A tool call begins; `id` is the provider's call id.
    ToolCallStart {
        /// The provider's call id.
        id: String,
        /// The tool called.
        name: String,
    },
    /// A fragment of a tool call's JSON arguments.
    ToolCallDelta {
        /// The call.
        id: String,
        /// The fragment.
        delta: String,
    },
    /// A tool call's arguments are complete.
    ToolCallEnd {
        /// The call.
        id: String,
    },
    /// The model call is over (its usage, if reported, is counted).
    Finish {
        /// The provider's counts for this call.
        usage: Option<ProviderUsage>,
    },
}

/// What one owner (the agent itself, or one subagent invocation) has open.
#[derive(Debug, Default)]
struct Lane {
    owner: Option<SubagentRunId>,
    text: Option<MessageId>,
    turn: Option<MessageId>,
    reasoning_span: Option<MessageId>,
    reasoning_message: Option<MessageId>,
    last_reasoning: Option<MessageId>,
    calls: Vec<ToolCallId>,
    steps: Vec<String>,
}

/// An activity message the emitter has created, with its last content (for deltas).
#[derive(Debug)]
struct Activity {
    id: MessageId,
    activity_type: String,
    content: Map<String, Value>,
}

/// Emits the events of one run in an order the protocol accepts (spec §9.1).
///
/// * Creating the emitter emits `RUN_STARTED` (declaring `protocolVersion: "1.0"`); ending it
///   ([`finish`](Self::finish), [`interrupt`](Self::interrupt), [`cancel`](Self::cancel),
///   [`fail`](Self::fail)) emits `RUN_FINISHED` or `RUN_ERROR`, after which every call is an
///   [`Error::RunEnded`].
/// * Text and reasoning deltas open their message (and reasoning span) when none is open and
///   close the other kind first; starting a tool call closes the open text message and
///   attaches the call to it (`parentMessageId`); a tool result ends the assistant turn, so
///   the next text is a new message.
/// * Finishing closes what is still open — reasoning, text, tool calls, then steps, innermost
///   first — because `RUN_FINISHED` is not accepted with anything open; it refuses
///   ([`Error::SubagentActive`]) while a subagent invocation is active, since only the caller
///   knows how that ended. `fail` emits `RUN_ERROR` at once, which the protocol accepts with
///   anything open.
/// * Between [`subagent_start`](Self::subagent_start) and its end, everything emitted is
///   attributed to that invocation (`subagentRunId`); nested starts name their parent.
/// * Calls that would break an order rule (a delta for a call that is not open, a step
///   finished twice, …) return an error and emit nothing.
///
/// Events accumulate in the emitter; take them with [`drain`](Self::drain) as you go (to
/// write them to a stream) or all at once with [`into_events`](Self::into_events).
///
/// ```
/// use ag_ui_builders::{ModelChunk, ProviderUsage, RunEmitter, SequentialIds};
///
/// let mut run = RunEmitter::start("thread-1", "run-1").with_ids(SequentialIds::new());
/// run.push(ModelChunk::Thinking("The user greets me.".into()))?;
/// run.push(ModelChunk::Text("Hello".into()))?;
/// run.push(ModelChunk::Text(" there!".into()))?;
/// run.push(ModelChunk::Finish { usage: Some(ProviderUsage::new(12, 5).model("openai", "gpt-5")) })?;
/// run.finish()?;
/// let types: Vec<_> = run.drain().iter().map(|e| e.event_type().as_str()).collect();
/// assert_eq!(types, [
///     "RUN_STARTED",
///     "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
///     "REASONING_MESSAGE_END", "REASONING_END",
///     "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
///     "RUN_FINISHED",
/// ]);
/// # Ok::<(), ag_ui_builders::Error>(())
/// ```
pub struct RunEmitter {
    thread_id: ThreadId,
    run_id: RunId,
    ids: Box<dyn IdGenerator>,
    clock: Option<fn() -> i64>,
    out: Vec<Event>,
    ended: Option<EventType>,
    lanes: Vec<Lane>,
    subagents_used: Vec<SubagentRunId>,
    call_owners: Vec<(ToolCallId, Option<SubagentRunId>)>,
    unanswered: Vec<ToolCallId>,
    activities: Vec<Activity>,
    state: Option<Value>,
    usage: UsageMeter,
}

impl fmt::Debug for RunEmitter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunEmitter")
            .field("thread_id", &self.thread_id)
            .field("run_id", &self.run_id)
            .field("ended", &self.ended)
            .field("lanes", &self.lanes)
            .field("pending", &self.out.len())
            .finish_non_exhaustive()
    }
}

/// Sets the attribution of an attributable event, by value.
trait Attribute: Into<Event> {
    fn owned_by(self, owner: Option<&SubagentRunId>) -> Self;
}

impl<E: ag_ui_core::Attributable + Into<Event>> Attribute for E {
    fn owned_by(mut self, owner: Option<&SubagentRunId>) -> Self {
        self.set_subagent_run_id(owner.cloned());
        self
    }
}

/// Unix epoch milliseconds now (0 if the clock is before 1970).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl RunEmitter {
    /// Starts run `run_id` on thread `thread_id`: emits `RUN_STARTED` with
    /// `protocolVersion: "1.0"`. Ids are UUID v4 unless [`with_ids`](Self::with_ids) says
    /// otherwise.
    #[must_use]
    pub fn start(thread_id: impl Into<ThreadId>, run_id: impl Into<RunId>) -> Self {
        Self::start_with(event::run_started(thread_id, run_id))
    }

    /// Starts the run `input` asks for (its thread and run ids).
    #[must_use]
    pub fn start_for(input: &ag_ui_core::RunAgentInput) -> Self {
        Self::start(input.thread_id.clone(), input.run_id.clone())
    }

    /// Starts a run with a `RUN_STARTED` of your own (to set `parentRunId`, echo the
    /// `input`, …).
    #[must_use]
    pub fn start_with(started: RunStartedEvent) -> Self {
        Self {
            thread_id: started.thread_id.clone(),
            run_id: started.run_id.clone(),
            ids: Box::new(UuidIds),
            clock: None,
            out: vec![started.into()],
            ended: None,
            lanes: vec![Lane::default()],
            subagents_used: Vec::new(),
            call_owners: Vec::new(),
            unanswered: Vec::new(),
            activities: Vec::new(),
            state: None,
            usage: UsageMeter::new(),
        }
    }

    /// Mints ids from `ids` from now on.
    #[must_use]
    pub fn with_ids(mut self, ids: impl IdGenerator + 'static) -> Self {
        self.ids = Box::new(ids);
        self
    }

    /// Stamps every event (those already emitted included) with the current Unix time in
    /// milliseconds.
    #[must_use]
    pub fn with_timestamps(self) -> Self {
        self.with_clock(now_ms)
    }

    /// Stamps every event (those already emitted included) with `clock()`.
    #[must_use]
    pub fn with_clock(mut self, clock: fn() -> i64) -> Self {
        self.clock = Some(clock);
        for e in &mut self.out {
            if e.timestamp().is_none() {
                e.set_timestamp(Some(clock()));
            }
        }
        self
    }

    /// The thread id.
    #[must_use]
    pub fn thread_id(&self) -> &ThreadId {
        &self.thread_id
    }

    /// The run id.
    #[must_use]
    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// Whether the run has ended (`RUN_FINISHED` or `RUN_ERROR` emitted).
    #[must_use]
    pub fn is_ended(&self) -> bool {
        self.ended.is_some()
    }

    /// The events emitted and not yet drained.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.out
    }

    /// Takes the events emitted since the last drain.
    pub fn drain(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.out)
    }

    /// The events not yet drained.
    #[must_use]
    pub fn into_events(self) -> Vec<Event> {
        self.out
    }

    /// The id of the open text message of the current owner, if any.
    #[must_use]
    pub fn open_text_message(&self) -> Option<&MessageId> {
        self.lane().text.as_ref()
    }

    /// The innermost active subagent invocation, if any.
    #[must_use]
    pub fn current_subagent(&self) -> Option<&SubagentRunId> {
        self.lane().owner.as_ref()
    }

    /// The usage counted so far, one entry per (provider, model).
    #[must_use]
    pub fn usage_so_far(&self) -> &[TokenUsage] {
        self.usage.entries()
    }

    // ---------------------------------------------------------------- model output

    /// Feeds one chunk of a model's streamed output.
    ///
    /// # Errors
    /// As the method each chunk maps to ([`text`](Self::text),
    /// [`reasoning`](Self::reasoning), [`tool_call_start_with_id`](Self::tool_call_start_with_id),
    /// [`tool_call_args`](Self::tool_call_args), [`tool_call_end`](Self::tool_call_end),
    /// [`end_turn`](Self::end_turn)).
    pub fn push(&mut self, chunk: ModelChunk) -> Result<(), Error> {
        match chunk {
            ModelChunk::Text(delta) => self.text(delta).map(drop),
            ModelChunk::Thinking(delta) => self.reasoning(delta).map(drop),
            ModelChunk::ToolCallStart { id, name } => self.tool_call_start_with_id(id, name),
            ModelChunk::ToolCallDelta { id, delta } => self.tool_call_args(id, delta),
            ModelChunk::ToolCallEnd { id } => self.tool_call_end(id),
            ModelChunk::Finish { usage } => {
                self.live()?;
                if let Some(u) = usage {
                    self.usage(u);
                }
                self.end_turn()
            }
        }
    }

    /// Appends `delta` to the open text message, opening one (and closing open reasoning)
    /// when none is open. Returns the message id.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn text(&mut self, delta: impl Into<String>) -> Result<MessageId, Error> {
        self.live()?;
        let id = match self.lane().text.clone() {
            Some(id) => id,
            None => {
                self.close_reasoning_inner();
                let id = self.ids.message_id();
                let owner = self.owner();
                self.emit(event::text_message_start(id.clone()).owned_by(owner.as_ref()));
                let lane = self.lane_mut();
                lane.text = Some(id.clone());
                lane.turn = Some(id.clone());
                id
            }
        };
        let owner = self.owner();
        self.emit(event::text_message_content(id.clone(), delta).owned_by(owner.as_ref()));
        Ok(id)
    }

    /// Closes the open text message, if any.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn close_text(&mut self) -> Result<(), Error> {
        self.live()?;
        self.close_text_inner();
        Ok(())
    }

    /// Ends the assistant turn: closes open text, reasoning and tool calls of the current
    /// owner; the next text or tool call belongs to a new assistant message.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn end_turn(&mut self) -> Result<(), Error> {
        self.live()?;
        self.close_turn_inner();
        Ok(())
    }

    /// Appends `delta` to the open reasoning message, opening a reasoning span and message
    /// (and closing open text) when none is open. Returns the reasoning message id.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn reasoning(&mut self, delta: impl Into<String>) -> Result<MessageId, Error> {
        self.live()?;
        let owner = self.owner();
        let id = match self.lane().reasoning_message.clone() {
            Some(id) => id,
            None => {
                self.close_text_inner();
                let id = self.ids.message_id();
                if self.lane().reasoning_span.is_none() {
                    self.emit(event::reasoning_start(id.clone()).owned_by(owner.as_ref()));
                    self.lane_mut().reasoning_span = Some(id.clone());
                }
                self.emit(event::reasoning_message_start(id.clone()).owned_by(owner.as_ref()));
                let lane = self.lane_mut();
                lane.reasoning_message = Some(id.clone());
                lane.last_reasoning = Some(id.clone());
                id
            }
        };
        self.emit(event::reasoning_message_content(id.clone(), delta).owned_by(owner.as_ref()));
        Ok(id)
    }

    /// Closes the open reasoning message and span, if any.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn close_reasoning(&mut self) -> Result<(), Error> {
        self.live()?;
        self.close_reasoning_inner();
        Ok(())
    }

    /// Attaches an encrypted reasoning artefact to the last reasoning message of the current
    /// owner (`REASONING_ENCRYPTED_VALUE`, subtype `message`).
    ///
    /// # Errors
    /// [`Error::NotOpen`] when no reasoning message was emitted; [`Error::RunEnded`].
    pub fn reasoning_encrypted_value(&mut self, value: impl Into<String>) -> Result<(), Error> {
        self.live()?;
        let id = self.lane().last_reasoning.clone().ok_or(Error::NotOpen {
            kind: "reasoning message",
            id: String::new(),
        })?;
        self.encrypted_value(
            ReasoningEncryptedValueSubtype::Message,
            id.into_string(),
            value,
        )
    }

    /// Attaches an encrypted artefact to any message or tool call
    /// (`REASONING_ENCRYPTED_VALUE`).
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn encrypted_value(
        &mut self,
        subtype: ReasoningEncryptedValueSubtype,
        entity_id: impl Into<String>,
        value: impl Into<String>,
    ) -> Result<(), Error> {
        self.live()?;
        let owner = self.owner();
        self.emit(
            event::reasoning_encrypted_value(subtype, entity_id, value).owned_by(owner.as_ref()),
        );
        Ok(())
    }

    // ---------------------------------------------------------------- tool calls

    /// Starts a call of `name` with a minted id, attached to the current assistant message
    /// (the open text message is closed). Returns the call id.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn tool_call_start(&mut self, name: impl Into<String>) -> Result<ToolCallId, Error> {
        self.live()?;
        let id = self.ids.tool_call_id();
        self.tool_call_start_with_id(id.clone(), name)?;
        Ok(id)
    }

    /// Starts call `id` (a provider's call id) of `name`.
    ///
    /// # Errors
    /// [`Error::AlreadyOpen`] when call `id` is open, or was used in this run by another
    /// owner (a call id keeps its owner for the whole run); [`Error::RunEnded`].
    pub fn tool_call_start_with_id(
        &mut self,
        id: impl Into<ToolCallId>,
        name: impl Into<String>,
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let owner = self.owner();
        let reused_elsewhere = self
            .call_owners
            .iter()
            .any(|(c, o)| *c == id && *o != owner);
        if reused_elsewhere || self.lanes.iter().any(|l| l.calls.contains(&id)) {
            return Err(Error::AlreadyOpen {
                kind: "tool call",
                id: id.into_string(),
            });
        }
        self.close_reasoning_inner();
        self.close_text_inner();
        let parent = match self.lane().turn.clone() {
            Some(p) => p,
            None => {
                let p = self.ids.message_id();
                self.lane_mut().turn = Some(p.clone());
                p
            }
        };
        self.emit(
            event::tool_call_start(id.clone(), name)
                .with_parent_message_id(parent)
                .owned_by(owner.as_ref()),
        );
        self.lane_mut().calls.push(id.clone());
        if !self.call_owners.iter().any(|(c, _)| *c == id) {
            self.call_owners.push((id.clone(), owner));
        }
        if !self.unanswered.contains(&id) {
            self.unanswered.push(id);
        }
        Ok(())
    }

    /// Appends an argument fragment to open call `id` (an empty fragment is allowed).
    ///
    /// # Errors
    /// [`Error::NotOpen`] when call `id` is not open; [`Error::RunEnded`].
    pub fn tool_call_args(
        &mut self,
        id: impl Into<ToolCallId>,
        delta: impl Into<String>,
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let owner = self.call_owner(&id)?;
        self.emit(event::tool_call_args(id, delta).owned_by(owner.as_ref()));
        Ok(())
    }

    /// Marks the arguments of open call `id` complete.
    ///
    /// # Errors
    /// [`Error::NotOpen`] when call `id` is not open; [`Error::RunEnded`].
    pub fn tool_call_end(&mut self, id: impl Into<ToolCallId>) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let owner = self.call_owner(&id)?;
        self.end_call(&id, owner.as_ref());
        Ok(())
    }

    /// A whole call: start (minted id), arguments, end. Returns the call id.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn tool_call(
        &mut self,
        name: impl Into<String>,
        arguments: impl IntoArguments,
    ) -> Result<ToolCallId, Error> {
        let id = self.tool_call_start(name)?;
        self.tool_call_args(id.clone(), arguments.into_arguments())?;
        self.tool_call_end(id.clone())?;
        Ok(id)
    }

    /// Delivers the result of call `tool_call_id` (`TOOL_CALL_RESULT`, minting the tool
    /// message id, which is returned). A call whose arguments are still open is ended first;
    /// the call may also come from an earlier run (resuming after an interrupt). The
    /// assistant turn ends: later text is a new message.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn tool_result(
        &mut self,
        tool_call_id: impl Into<ToolCallId>,
        content: impl Into<Content>,
    ) -> Result<MessageId, Error> {
        self.live()?;
        let call = tool_call_id.into();
        if let Ok(owner) = self.call_owner(&call) {
            self.end_call(&call, owner.as_ref());
        }
        self.close_turn_inner();
        let id = self.ids.message_id();
        let owner = self.owner();
        self.emit(
            event::tool_call_result(id.clone(), call.clone(), content).owned_by(owner.as_ref()),
        );
        self.unanswered.retain(|c| *c != call);
        Ok(id)
    }

    // ---------------------------------------------------------------- state

    /// Sends the whole state (`STATE_SNAPSHOT`).
    ///
    /// # Errors
    /// [`Error::Json`] when `state` cannot be serialized; [`Error::RunEnded`].
    pub fn state_snapshot(&mut self, state: &(impl Serialize + ?Sized)) -> Result<(), Error> {
        self.live()?;
        let value = to_value(state)?;
        let owner = self.owner();
        self.emit(event::state_snapshot(value.clone()).owned_by(owner.as_ref()));
        self.state = Some(value);
        Ok(())
    }

    /// Sends a JSON Patch against the state (`STATE_DELTA`). The emitter does not apply it,
    /// so the next [`state`](Self::state) sends a snapshot.
    ///
    /// # Errors
    /// [`Error::InvalidPointer`] (at `/delta/<i>/…`); [`Error::RunEnded`].
    pub fn state_delta(
        &mut self,
        patch: impl IntoIterator<Item = JsonPatchOperation>,
    ) -> Result<(), Error> {
        self.live()?;
        let ev = event::state_delta(patch)?;
        let owner = self.owner();
        self.emit(ev.owned_by(owner.as_ref()));
        self.state = None;
        Ok(())
    }

    /// Sends the new state the cheapest way: a snapshot the first time, then a JSON Patch
    /// from the last state sent (nothing when unchanged).
    ///
    /// # Errors
    /// [`Error::Json`] when `state` cannot be serialized; [`Error::RunEnded`].
    pub fn state(&mut self, state: &(impl Serialize + ?Sized)) -> Result<(), Error> {
        self.live()?;
        let value = to_value(state)?;
        match &self.state {
            None => self.state_snapshot(&value),
            Some(old) => {
                let patch = diff(old, &value);
                if !patch.is_empty() {
                    let owner = self.owner();
                    self.emit(ag_ui_core::StateDeltaEvent::new(patch).owned_by(owner.as_ref()));
                }
                self.state = Some(value);
                Ok(())
            }
        }
    }

    /// Sends `MESSAGES_SNAPSHOT` (the complete set of messages this agent owns).
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn messages_snapshot(
        &mut self,
        messages: impl IntoIterator<Item = Message>,
    ) -> Result<(), Error> {
        self.live()?;
        self.emit(event::messages_snapshot(messages));
        Ok(())
    }

    // ---------------------------------------------------------------- steps

    /// Opens step `name` for the current owner.
    ///
    /// # Errors
    /// [`Error::AlreadyOpen`] when that owner has the step open; [`Error::RunEnded`].
    pub fn step_started(&mut self, name: impl Into<String>) -> Result<(), Error> {
        self.live()?;
        let name = name.into();
        if self.lane().steps.contains(&name) {
            return Err(Error::AlreadyOpen {
                kind: "step",
                id: name,
            });
        }
        let owner = self.owner();
        self.emit(event::step_started(name.clone()).owned_by(owner.as_ref()));
        self.lane_mut().steps.push(name);
        Ok(())
    }

    /// Closes step `name` of the current owner.
    ///
    /// # Errors
    /// [`Error::NotOpen`] when that owner has no such step open; [`Error::RunEnded`].
    pub fn step_finished(&mut self, name: impl Into<String>) -> Result<(), Error> {
        self.live()?;
        let name = name.into();
        let Some(pos) = self.lane().steps.iter().position(|s| *s == name) else {
            return Err(Error::NotOpen {
                kind: "step",
                id: name,
            });
        };
        self.lane_mut().steps.remove(pos);
        let owner = self.owner();
        self.emit(event::step_finished(name).owned_by(owner.as_ref()));
        Ok(())
    }

    // ---------------------------------------------------------------- activity

    /// Creates an activity message (minted id, returned) with `content`, which must
    /// serialize to a JSON object.
    ///
    /// # Errors
    /// [`Error::NotAnObject`] at `/content`; [`Error::Json`]; [`Error::RunEnded`].
    pub fn activity(
        &mut self,
        activity_type: impl Into<String>,
        content: &(impl Serialize + ?Sized),
    ) -> Result<MessageId, Error> {
        self.live()?;
        let id = self.ids.message_id();
        self.activity_snapshot(id.clone(), activity_type, content)?;
        Ok(id)
    }

    /// Creates or replaces activity message `id` (`ACTIVITY_SNAPSHOT`).
    ///
    /// # Errors
    /// As [`activity`](Self::activity).
    pub fn activity_snapshot(
        &mut self,
        id: impl Into<MessageId>,
        activity_type: impl Into<String>,
        content: &(impl Serialize + ?Sized),
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let activity_type = activity_type.into();
        let content = into_object(to_value(content)?, "/content")?;
        let owner = self.owner();
        self.emit(
            ag_ui_core::ActivitySnapshotEvent::new(
                id.clone(),
                activity_type.clone(),
                content.clone(),
            )
            .owned_by(owner.as_ref()),
        );
        match self.activities.iter_mut().find(|a| a.id == id) {
            Some(a) => {
                a.activity_type = activity_type;
                a.content = content;
            }
            None => self.activities.push(Activity {
                id,
                activity_type,
                content,
            }),
        }
        Ok(())
    }

    /// Updates activity message `id` to `content`, sending the JSON Patch from its last
    /// content (`ACTIVITY_DELTA`; nothing when unchanged).
    ///
    /// # Errors
    /// [`Error::NotOpen`] when this emitter created no activity `id`; [`Error::NotAnObject`];
    /// [`Error::Json`]; [`Error::RunEnded`].
    pub fn activity_update(
        &mut self,
        id: impl Into<MessageId>,
        content: &(impl Serialize + ?Sized),
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let content = into_object(to_value(content)?, "/content")?;
        let owner = self.owner();
        let Some(a) = self.activities.iter_mut().find(|a| a.id == id) else {
            return Err(Error::NotOpen {
                kind: "activity",
                id: id.into_string(),
            });
        };
        let patch = diff(
            &Value::Object(a.content.clone()),
            &Value::Object(content.clone()),
        );
        a.content = content;
        let activity_type = a.activity_type.clone();
        if !patch.is_empty() {
            self.emit(
                ag_ui_core::ActivityDeltaEvent::new(id, activity_type, patch)
                    .owned_by(owner.as_ref()),
            );
        }
        Ok(())
    }

    /// Sends a JSON Patch against activity message `id`'s content (`ACTIVITY_DELTA`).
    ///
    /// # Errors
    /// [`Error::NotOpen`] when this emitter created no activity `id`;
    /// [`Error::InvalidPointer`]; [`Error::RunEnded`].
    pub fn activity_delta(
        &mut self,
        id: impl Into<MessageId>,
        patch: impl IntoIterator<Item = JsonPatchOperation>,
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let patch: Vec<_> = patch.into_iter().collect();
        check(&patch).map_err(|e| e.under("/patch"))?;
        let owner = self.owner();
        let Some(a) = self.activities.iter().find(|a| a.id == id) else {
            return Err(Error::NotOpen {
                kind: "activity",
                id: id.into_string(),
            });
        };
        let activity_type = a.activity_type.clone();
        self.emit(
            ag_ui_core::ActivityDeltaEvent::new(id, activity_type, patch).owned_by(owner.as_ref()),
        );
        Ok(())
    }

    // ---------------------------------------------------------------- special

    /// Sends `CUSTOM(name, value)`.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn custom(
        &mut self,
        name: impl Into<String>,
        value: impl Into<Value>,
    ) -> Result<(), Error> {
        self.live()?;
        let owner = self.owner();
        self.emit(event::custom(name, value).owned_by(owner.as_ref()));
        Ok(())
    }

    /// Passes a provider-native event through (`RAW`).
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn raw(&mut self, raw: impl Into<Value>, source: Option<&str>) -> Result<(), Error> {
        self.live()?;
        let owner = self.owner();
        let mut ev = event::raw(raw).owned_by(owner.as_ref());
        ev.source = source.map(str::to_owned);
        self.emit(ev);
        Ok(())
    }

    // ---------------------------------------------------------------- subagents

    /// Starts a subagent invocation of `name` (minted id, returned); until it ends,
    /// everything emitted is attributed to it. Nested in an active invocation, it names that
    /// one as its parent.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn subagent_start(&mut self, name: impl Into<String>) -> Result<SubagentRunId, Error> {
        self.live()?;
        let id = self.ids.subagent_run_id();
        self.subagent_start_with(event::subagent_started(id.clone(), name))?;
        Ok(id)
    }

    /// Starts a subagent invocation described by `started` (to set `description`,
    /// `parentToolCallId`, …). Its parent defaults to the active invocation.
    ///
    /// # Errors
    /// [`Error::AlreadyOpen`] when the id was already used in this run; [`Error::NotOpen`]
    /// when the named parent never started in this run; [`Error::RunEnded`].
    pub fn subagent_start_with(&mut self, mut started: SubagentStartedEvent) -> Result<(), Error> {
        self.live()?;
        if self.subagents_used.contains(&started.subagent_run_id) {
            return Err(Error::AlreadyOpen {
                kind: "subagent invocation",
                id: started.subagent_run_id.into_string(),
            });
        }
        match &started.parent_subagent_run_id {
            Some(p) if !self.subagents_used.contains(p) => {
                return Err(Error::NotOpen {
                    kind: "subagent invocation",
                    id: p.to_string(),
                });
            }
            Some(_) => {}
            None => started.parent_subagent_run_id = self.owner(),
        }
        let id = started.subagent_run_id.clone();
        self.emit(started);
        self.subagents_used.push(id.clone());
        self.lanes.push(Lane {
            owner: Some(id),
            ..Lane::default()
        });
        Ok(())
    }

    /// Ends the active invocation successfully (`SUBAGENT_FINISHED`), closing what it left
    /// open.
    ///
    /// # Errors
    /// [`Error::NotOpen`] when no invocation is active; [`Error::RunEnded`].
    pub fn subagent_finish(&mut self, result: Option<Value>) -> Result<(), Error> {
        self.end_subagent(None, result)
    }

    /// Ends the active invocation as suspended on the interrupts it raised itself.
    ///
    /// # Errors
    /// As [`subagent_finish`](Self::subagent_finish).
    pub fn subagent_suspend(
        &mut self,
        interrupt_ids: impl IntoIterator<Item = impl Into<ag_ui_core::InterruptId>>,
    ) -> Result<(), Error> {
        self.end_subagent(Some(subagent_suspended(interrupt_ids)), None)
    }

    /// Reports the active invocation as failed (`SUBAGENT_ERROR`), closing what it left
    /// open; the run goes on.
    ///
    /// # Errors
    /// As [`subagent_finish`](Self::subagent_finish).
    pub fn subagent_fail(&mut self, message: impl Into<String>) -> Result<(), Error> {
        self.live()?;
        let id = self.pop_subagent()?;
        self.emit(event::subagent_error(id, message));
        Ok(())
    }

    // ---------------------------------------------------------------- usage and the end

    /// Counts a model call's usage (a [`ProviderUsage`] is mapped with AG-UI's accounting);
    /// the totals per (provider, model) go on `RUN_FINISHED` / `RUN_ERROR`.
    pub fn usage(&mut self, usage: impl Into<TokenUsage>) {
        self.usage.add(usage);
    }

    /// Finishes the run with the `success` outcome, naming the tool calls started in this
    /// run and never answered (`pendingToolCallIds`), with the usage counted.
    ///
    /// # Errors
    /// [`Error::SubagentActive`]; [`Error::RunEnded`].
    pub fn finish(&mut self) -> Result<(), Error> {
        let outcome = success_pending(self.unanswered.clone());
        self.finish_with(outcome, None)
    }

    /// As [`finish`](Self::finish), with a `result` value.
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    pub fn finish_with_result(&mut self, result: impl Into<Value>) -> Result<(), Error> {
        let outcome = success_pending(self.unanswered.clone());
        self.finish_with(outcome, Some(result.into()))
    }

    /// Pauses the run on `interrupts` (`RUN_FINISHED` with the `interrupt` outcome).
    ///
    /// # Errors
    /// [`Error::NoInterrupts`] when `interrupts` is empty; as [`finish`](Self::finish).
    pub fn interrupt(
        &mut self,
        interrupts: impl IntoIterator<Item = Interrupt>,
    ) -> Result<(), Error> {
        self.live()?;
        let outcome = interrupted(interrupts)?;
        self.finish_with(outcome, None)
    }

    /// Ends the run as cancelled (not an error, nothing to resume).
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    pub fn cancel(&mut self) -> Result<(), Error> {
        self.finish_with(crate::interrupt::cancelled(), None)
    }

    /// Ends the run with `RUN_FINISHED` carrying `outcome` (and `result`), after closing
    /// what is open.
    ///
    /// # Errors
    /// [`Error::SubagentActive`] while a subagent invocation is active; [`Error::RunEnded`].
    pub fn finish_with(
        &mut self,
        outcome: RunFinishedOutcome,
        result: Option<Value>,
    ) -> Result<(), Error> {
        self.live()?;
        if let Some(active) = self.current_subagent() {
            return Err(Error::SubagentActive {
                id: active.to_string(),
            });
        }
        self.close_lane_inner();
        let mut ev =
            event::run_finished(self.thread_id.clone(), self.run_id.clone()).with_outcome(outcome);
        ev.result = result;
        if !self.usage.is_empty() {
            ev.usage = Some(self.usage.entries().to_vec());
        }
        self.emit(ev);
        self.ended = Some(EventType::RunFinished);
        Ok(())
    }

    /// Fails the run (`RUN_ERROR` with `message`, and the usage counted so far). The
    /// protocol accepts it with anything open; nothing can follow it.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn fail(&mut self, message: impl Into<String>) -> Result<(), Error> {
        self.fail_inner(message.into(), None)
    }

    /// As [`fail`](Self::fail), with a machine-readable `code`.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn fail_with_code(
        &mut self,
        message: impl Into<String>,
        code: impl Into<String>,
    ) -> Result<(), Error> {
        self.fail_inner(message.into(), Some(code.into()))
    }

    // ---------------------------------------------------------------- internals

    fn fail_inner(&mut self, message: String, code: Option<String>) -> Result<(), Error> {
        self.live()?;
        let mut ev = event::run_error(message);
        ev.code = code;
        if !self.usage.is_empty() {
            ev.usage = Some(self.usage.entries().to_vec());
        }
        self.emit(ev);
        self.ended = Some(EventType::RunError);
        Ok(())
    }

    fn live(&self) -> Result<(), Error> {
        match self.ended {
            Some(t) => Err(Error::RunEnded(t)),
            None => Ok(()),
        }
    }

    fn emit(&mut self, event: impl Into<Event>) {
        let mut event = event.into();
        if let Some(clock) = self.clock {
            event.set_timestamp(Some(clock()));
        }
        self.out.push(event);
    }

    fn lane(&self) -> &Lane {
        // The parent lane is never removed, so there is always one.
        &self.lanes[self.lanes.len() - 1]
    }

    fn lane_mut(&mut self) -> &mut Lane {
        let last = self.lanes.len() - 1;
        &mut self.lanes[last]
    }

    fn owner(&self) -> Option<SubagentRunId> {
        self.lane().owner.clone()
    }

    /// The owner of open call `id`.
    fn call_owner(&self, id: &ToolCallId) -> Result<Option<SubagentRunId>, Error> {
        self.lanes
            .iter()
            .find(|l| l.calls.contains(id))
            .map(|l| l.owner.clone())
            .ok_or_else(|| Error::NotOpen {
                kind: "tool call",
                id: id.to_string(),
            })
    }

    fn end_call(&mut self, id: &ToolCallId, owner: Option<&SubagentRunId>) {
        for lane in &mut self.lanes {
            lane.calls.retain(|c| c != id);
        }
        self.emit(event::tool_call_end(id.clone()).owned_by(owner));
    }

    fn close_text_inner(&mut self) {
        if let Some(id) = self.lane_mut().text.take() {
            let owner = self.owner();
            self.emit(event::text_message_end(id).owned_by(owner.as_ref()));
        }
    }

    fn close_reasoning_inner(&mut self) {
        let owner = self.owner();
        if let Some(id) = self.lane_mut().reasoning_message.take() {
            self.emit(event::reasoning_message_end(id).owned_by(owner.as_ref()));
        }
        if let Some(id) = self.lane_mut().reasoning_span.take() {
            self.emit(event::reasoning_end(id).owned_by(owner.as_ref()));
        }
    }

    fn close_calls_inner(&mut self) {
        let owner = self.owner();
        let calls = std::mem::take(&mut self.lane_mut().calls);
        for id in calls {
            self.emit(event::tool_call_end(id).owned_by(owner.as_ref()));
        }
    }

    fn close_turn_inner(&mut self) {
        self.close_reasoning_inner();
        self.close_text_inner();
        self.close_calls_inner();
        self.lane_mut().turn = None;
    }

    /// Closes everything the current lane has open, steps last (innermost first).
    fn close_lane_inner(&mut self) {
        self.close_turn_inner();
        let owner = self.owner();
        while let Some(step) = self.lane_mut().steps.pop() {
            self.emit(event::step_finished(step).owned_by(owner.as_ref()));
        }
    }

    fn pop_subagent(&mut self) -> Result<SubagentRunId, Error> {
        let Some(id) = self.owner() else {
            return Err(Error::NotOpen {
                kind: "subagent invocation",
                id: String::new(),
            });
        };
        self.close_lane_inner();
        self.lanes.pop();
        Ok(id)
    }

    fn end_subagent(
        &mut self,
        outcome: Option<SubagentFinishedOutcome>,
        result: Option<Value>,
    ) -> Result<(), Error> {
        self.live()?;
        let id = self.pop_subagent()?;
        let mut ev = event::subagent_finished(id);
        ev.outcome = outcome;
        ev.result = result.filter(|r| !r.is_null());
        self.emit(ev);
        Ok(())
    }
}
