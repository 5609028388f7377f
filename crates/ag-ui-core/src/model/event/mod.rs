//! The 31 events of AG-UI 1.0 (`Event`, tagged by `type`) and `EventType`.
//!
//! The [`Event`] variants of the less frequent, larger events (`RUN_STARTED`,
//! `RUN_FINISHED`, `SUBAGENT_STARTED`, `TOOL_CALL_START`, `TOOL_CALL_RESULT`, the
//! `TEXT_MESSAGE_CHUNK` and `TOOL_CALL_CHUNK` shorthands, `ACTIVITY_SNAPSHOT`,
//! `ACTIVITY_DELTA`) hold their struct in a `Box`, so that an `Event` is no larger than the
//! frequent small events (a stream held in memory is mostly deltas). Build any variant with
//! `Event::from(x)` or `x.into()`; matching and field access work through the box.

mod activity;
pub(crate) mod macros;
mod reasoning;
mod run;
mod special;
mod state;
mod step;
mod subagent;
mod text_message;
mod tool_call;

pub use activity::{ActivityDeltaEvent, ActivitySnapshotEvent};
pub use reasoning::{
    ReasoningEncryptedValueEvent, ReasoningEncryptedValueSubtype, ReasoningEndEvent,
    ReasoningMessageChunkEvent, ReasoningMessageContentEvent, ReasoningMessageEndEvent,
    ReasoningMessageStartEvent, ReasoningRole, ReasoningStartEvent,
};
pub use run::{RunErrorEvent, RunFinishedEvent, RunStartedEvent};
pub use special::{CustomEvent, RawEvent};
pub use state::{MessagesSnapshotEvent, StateDeltaEvent, StateSnapshotEvent};
pub use step::{StepFinishedEvent, StepStartedEvent};
pub use subagent::{SubagentErrorEvent, SubagentFinishedEvent, SubagentStartedEvent};
pub use text_message::{
    TextMessageChunkEvent, TextMessageContentEvent, TextMessageEndEvent, TextMessageStartEvent,
};
pub use tool_call::{
    ToolCallArgsEvent, ToolCallChunkEvent, ToolCallEndEvent, ToolCallResultEvent,
    ToolCallStartEvent, ToolRole,
};

use serde::de::MapAccess;
use serde_json::Value;

use crate::codec::wire::{tagged_union, wire_enum};
use crate::model::id::SubagentRunId;
use crate::model::metadata::Metadata;

/// The five 0.x event types retired in 1.0, with their successors (spec §3.1).
pub const LEGACY_EVENT_TYPES: [(&str, EventType); 5] = [
    ("THINKING_START", EventType::ReasoningStart),
    ("THINKING_END", EventType::ReasoningEnd),
    (
        "THINKING_TEXT_MESSAGE_START",
        EventType::ReasoningMessageStart,
    ),
    (
        "THINKING_TEXT_MESSAGE_CONTENT",
        EventType::ReasoningMessageContent,
    ),
    ("THINKING_TEXT_MESSAGE_END", EventType::ReasoningMessageEnd),
];

wire_enum! {
    /// `EventType`: the 31 `type` values of AG-UI 1.0, in the protocol's declaration order.
    pub enum EventType ["event type"] {
        /// `TEXT_MESSAGE_START`.
        TextMessageStart = "TEXT_MESSAGE_START",
        /// `TEXT_MESSAGE_CONTENT`.
        TextMessageContent = "TEXT_MESSAGE_CONTENT",
        /// `TEXT_MESSAGE_END`.
        TextMessageEnd = "TEXT_MESSAGE_END",
        /// `TEXT_MESSAGE_CHUNK`.
        TextMessageChunk = "TEXT_MESSAGE_CHUNK",
        /// `TOOL_CALL_START`.
        ToolCallStart = "TOOL_CALL_START",
        /// `TOOL_CALL_ARGS`.
        ToolCallArgs = "TOOL_CALL_ARGS",
        /// `TOOL_CALL_END`.
        ToolCallEnd = "TOOL_CALL_END",
        /// `TOOL_CALL_CHUNK`.
        ToolCallChunk = "TOOL_CALL_CHUNK",
        /// `TOOL_CALL_RESULT`.
        ToolCallResult = "TOOL_CALL_RESULT",
        /// `STATE_SNAPSHOT`.
        StateSnapshot = "STATE_SNAPSHOT",
        /// `STATE_DELTA`.
        StateDelta = "STATE_DELTA",
        /// `MESSAGES_SNAPSHOT`.
        MessagesSnapshot = "MESSAGES_SNAPSHOT",
        /// `ACTIVITY_SNAPSHOT`.
        ActivitySnapshot = "ACTIVITY_SNAPSHOT",
        /// `ACTIVITY_DELTA`.
        ActivityDelta = "ACTIVITY_DELTA",
        /// `RAW`.
        Raw = "RAW",
        /// `CUSTOM`.
        Custom = "CUSTOM",
        /// `RUN_STARTED`.
        RunStarted = "RUN_STARTED",
        /// `RUN_FINISHED`.
        RunFinished = "RUN_FINISHED",
        /// `RUN_ERROR`.
        RunError = "RUN_ERROR",
        /// `STEP_STARTED`.
        StepStarted = "STEP_STARTED",
        /// `STEP_FINISHED`.
        StepFinished = "STEP_FINISHED",
        /// `REASONING_START`.
        ReasoningStart = "REASONING_START",
        /// `REASONING_MESSAGE_START`.
        ReasoningMessageStart = "REASONING_MESSAGE_START",
        /// `REASONING_MESSAGE_CONTENT`.
        ReasoningMessageContent = "REASONING_MESSAGE_CONTENT",
        /// `REASONING_MESSAGE_END`.
        ReasoningMessageEnd = "REASONING_MESSAGE_END",
        /// `REASONING_MESSAGE_CHUNK`.
        ReasoningMessageChunk = "REASONING_MESSAGE_CHUNK",
        /// `REASONING_END`.
        ReasoningEnd = "REASONING_END",
        /// `REASONING_ENCRYPTED_VALUE`.
        ReasoningEncryptedValue = "REASONING_ENCRYPTED_VALUE",
        /// `SUBAGENT_STARTED`.
        SubagentStarted = "SUBAGENT_STARTED",
        /// `SUBAGENT_FINISHED`.
        SubagentFinished = "SUBAGENT_FINISHED",
        /// `SUBAGENT_ERROR`.
        SubagentError = "SUBAGENT_ERROR",
    }
}

impl EventType {
    /// Whether events of this type carry the optional `subagentRunId` attribution (spec §2.8).
    #[must_use]
    pub fn is_attributable(self) -> bool {
        !matches!(
            self,
            Self::RunStarted
                | Self::RunFinished
                | Self::RunError
                | Self::MessagesSnapshot
                | Self::SubagentStarted
                | Self::SubagentFinished
                | Self::SubagentError
        )
    }

    /// Whether this is one of the three chunk shorthands expanded by consumers (spec §9.3).
    #[must_use]
    pub fn is_chunk(self) -> bool {
        matches!(
            self,
            Self::TextMessageChunk | Self::ToolCallChunk | Self::ReasoningMessageChunk
        )
    }
}

tagged_union! {
    /// `Event`: one AG-UI event, tagged by `type`.
    ///
    /// Decoding reads `type` first when it is the first key (what every SDK writes) and
    /// goes straight to the event's fields; a late `type` is handled by buffering only the
    /// keys before it. An unknown `type` is an error ([`crate::Error::UnknownEventType`]
    /// through [`crate::decode`]); a stream reader drops it with a warning.
    pub enum Event ["type", "event type"] {
        /// `TEXT_MESSAGE_START`.
        TextMessageStart(TextMessageStartEvent) = "TEXT_MESSAGE_START",
        /// `TEXT_MESSAGE_CONTENT`.
        TextMessageContent(TextMessageContentEvent) = "TEXT_MESSAGE_CONTENT",
        /// `TEXT_MESSAGE_END`.
        TextMessageEnd(TextMessageEndEvent) = "TEXT_MESSAGE_END",
        /// `TEXT_MESSAGE_CHUNK`.
        TextMessageChunk(TextMessageChunkEvent) = "TEXT_MESSAGE_CHUNK" [boxed],
        /// `TOOL_CALL_START`.
        ToolCallStart(ToolCallStartEvent) = "TOOL_CALL_START" [boxed],
        /// `TOOL_CALL_ARGS`.
        ToolCallArgs(ToolCallArgsEvent) = "TOOL_CALL_ARGS",
        /// `TOOL_CALL_END`.
        ToolCallEnd(ToolCallEndEvent) = "TOOL_CALL_END",
        /// `TOOL_CALL_CHUNK`.
        ToolCallChunk(ToolCallChunkEvent) = "TOOL_CALL_CHUNK" [boxed],
        /// `TOOL_CALL_RESULT`.
        ToolCallResult(ToolCallResultEvent) = "TOOL_CALL_RESULT" [boxed],
        /// `STATE_SNAPSHOT`.
        StateSnapshot(StateSnapshotEvent) = "STATE_SNAPSHOT",
        /// `STATE_DELTA`.
        StateDelta(StateDeltaEvent) = "STATE_DELTA",
        /// `MESSAGES_SNAPSHOT`.
        MessagesSnapshot(MessagesSnapshotEvent) = "MESSAGES_SNAPSHOT",
        /// `ACTIVITY_SNAPSHOT`.
        ActivitySnapshot(ActivitySnapshotEvent) = "ACTIVITY_SNAPSHOT" [boxed],
        /// `ACTIVITY_DELTA`.
        ActivityDelta(ActivityDeltaEvent) = "ACTIVITY_DELTA" [boxed],
        /// `RAW`.
        Raw(RawEvent) = "RAW",
        /// `CUSTOM`.
        Custom(CustomEvent) = "CUSTOM",
        /// `RUN_STARTED`.
        RunStarted(RunStartedEvent) = "RUN_STARTED" [boxed],
        /// `RUN_FINISHED`.
        RunFinished(RunFinishedEvent) = "RUN_FINISHED" [boxed],
        /// `RUN_ERROR`.
        RunError(RunErrorEvent) = "RUN_ERROR",
        /// `STEP_STARTED`.
        StepStarted(StepStartedEvent) = "STEP_STARTED",
        /// `STEP_FINISHED`.
        StepFinished(StepFinishedEvent) = "STEP_FINISHED",
        /// `REASONING_START`.
        ReasoningStart(ReasoningStartEvent) = "REASONING_START",
        /// `REASONING_MESSAGE_START`.
        ReasoningMessageStart(ReasoningMessageStartEvent) = "REASONING_MESSAGE_START",
        /// `REASONING_MESSAGE_CONTENT`.
        ReasoningMessageContent(ReasoningMessageContentEvent) = "REASONING_MESSAGE_CONTENT",
        /// `REASONING_MESSAGE_END`.
        ReasoningMessageEnd(ReasoningMessageEndEvent) = "REASONING_MESSAGE_END",
        /// `REASONING_MESSAGE_CHUNK`.
        ReasoningMessageChunk(ReasoningMessageChunkEvent) = "REASONING_MESSAGE_CHUNK",
        /// `REASONING_END`.
        ReasoningEnd(ReasoningEndEvent) = "REASONING_END",
        /// `REASONING_ENCRYPTED_VALUE`.
        ReasoningEncryptedValue(ReasoningEncryptedValueEvent) = "REASONING_ENCRYPTED_VALUE",
        /// `SUBAGENT_STARTED`.
        SubagentStarted(SubagentStartedEvent) = "SUBAGENT_STARTED" [boxed],
        /// `SUBAGENT_FINISHED`.
        SubagentFinished(SubagentFinishedEvent) = "SUBAGENT_FINISHED",
        /// `SUBAGENT_ERROR`.
        SubagentError(SubagentErrorEvent) = "SUBAGENT_ERROR",
    }
    legacy unknown_event;
}

/// An event type outside the 1.0 set: the rest of the object is still read (it must be
/// well-formed, with one non-empty `type`) before the type is reported as unknown.
#[cold]
fn unknown_event<'de, A: MapAccess<'de>>(tag: &str, map: A) -> Option<Result<Event, A::Error>> {
    if let Err(e) = crate::codec::skip::rest_of_unknown("type", tag, "event type", map) {
        return Some(Err(e));
    }
    crate::codec::read::note_unknown_event(tag);
    if let Some((_, successor)) = LEGACY_EVENT_TYPES.iter().find(|(name, _)| *name == tag) {
        return Some(Err(crate::codec::wire::at(
            serde::de::Error::custom(format_args!(
                "{tag} is a 0.x event type retired in AG-UI 1.0 (its successor is {successor}); \
                 read 0.x streams with `EventDecoder`, which translates it"
            )),
            &"type",
        )));
    }
    None
}

/// Applies `$body` to the inner event struct, whatever the variant.
macro_rules! each_event {
    ($event:expr, $e:ident => $body:expr) => {
        match $event {
            Event::TextMessageStart($e) => $body,
            Event::TextMessageContent($e) => $body,
            Event::TextMessageEnd($e) => $body,
            Event::TextMessageChunk($e) => $body,
            Event::ToolCallStart($e) => $body,
            Event::ToolCallArgs($e) => $body,
            Event::ToolCallEnd($e) => $body,
            Event::ToolCallChunk($e) => $body,
            Event::ToolCallResult($e) => $body,
            Event::StateSnapshot($e) => $body,
            Event::StateDelta($e) => $body,
            Event::MessagesSnapshot($e) => $body,
            Event::ActivitySnapshot($e) => $body,
            Event::ActivityDelta($e) => $body,
            Event::Raw($e) => $body,
            Event::Custom($e) => $body,
            Event::RunStarted($e) => $body,
            Event::RunFinished($e) => $body,
            Event::RunError($e) => $body,
            Event::StepStarted($e) => $body,
            Event::StepFinished($e) => $body,
            Event::ReasoningStart($e) => $body,
            Event::ReasoningMessageStart($e) => $body,
            Event::ReasoningMessageContent($e) => $body,
            Event::ReasoningMessageEnd($e) => $body,
            Event::ReasoningMessageChunk($e) => $body,
            Event::ReasoningEnd($e) => $body,
            Event::ReasoningEncryptedValue($e) => $body,
            Event::SubagentStarted($e) => $body,
            Event::SubagentFinished($e) => $body,
            Event::SubagentError($e) => $body,
        }
    };
}

impl Event {
    /// The event's type.
    #[must_use]
    pub fn event_type(&self) -> EventType {
        match EventType::from_wire(self.tag()) {
            Some(t) => t,
            None => unreachable!("every Event tag is an EventType"),
        }
    }

    /// `timestamp`, if set.
    #[must_use]
    pub fn timestamp(&self) -> Option<i64> {
        each_event!(self, e => e.timestamp)
    }

    /// Sets or clears `timestamp`.
    pub fn set_timestamp(&mut self, timestamp: Option<i64>) {
        each_event!(self, e => e.timestamp = timestamp);
    }

    /// `rawEvent`, if set.
    #[must_use]
    pub fn raw_event(&self) -> Option<&Value> {
        each_event!(self, e => e.raw_event.as_deref())
    }

    /// `metadata`, if set.
    #[must_use]
    pub fn metadata(&self) -> Option<&Metadata> {
        each_event!(self, e => e.metadata.as_deref())
    }

    /// Mutable access to `metadata`, created empty when absent (an empty object is written
    /// as `"metadata":{}`; use [`Event::clear_metadata`] to remove it).
    pub fn metadata_mut(&mut self) -> &mut Metadata {
        each_event!(self, e => e.metadata.get_or_insert_with(Box::default))
    }

    /// Sets `metadata`, or removes it with `None`.
    pub fn set_metadata(&mut self, metadata: Option<Metadata>) {
        each_event!(self, e => e.metadata = metadata.map(Box::new));
    }

    /// Removes `metadata`, returning it.
    pub fn clear_metadata(&mut self) -> Option<Metadata> {
        each_event!(self, e => e.metadata.take().map(|m| *m))
    }

    /// Sets `rawEvent`, or removes it with `None`.
    pub fn set_raw_event(&mut self, raw_event: Option<Value>) {
        each_event!(self, e => e.raw_event = raw_event.map(Box::new));
    }

    /// The subagent invocation this event belongs to: the attribution of an attributable
    /// event, or the identity carried by a `SUBAGENT_*` event. `None` = the parent agent
    /// (or a run-scoped event).
    #[must_use]
    pub fn subagent_run_id(&self) -> Option<&SubagentRunId> {
        match self {
            Event::RunStarted(_)
            | Event::RunFinished(_)
            | Event::RunError(_)
            | Event::MessagesSnapshot(_) => None,
            Event::SubagentStarted(e) => Some(&e.subagent_run_id),
            Event::SubagentFinished(e) => Some(&e.subagent_run_id),
            Event::SubagentError(e) => Some(&e.subagent_run_id),
            Event::TextMessageStart(e) => e.subagent_run_id.as_ref(),
            Event::TextMessageContent(e) => e.subagent_run_id.as_ref(),
            Event::TextMessageEnd(e) => e.subagent_run_id.as_ref(),
            Event::TextMessageChunk(e) => e.subagent_run_id.as_ref(),
            Event::ToolCallStart(e) => e.subagent_run_id.as_ref(),
            Event::ToolCallArgs(e) => e.subagent_run_id.as_ref(),
            Event::ToolCallEnd(e) => e.subagent_run_id.as_ref(),
            Event::ToolCallChunk(e) => e.subagent_run_id.as_ref(),
            Event::ToolCallResult(e) => e.subagent_run_id.as_ref(),
            Event::StateSnapshot(e) => e.subagent_run_id.as_ref(),
            Event::StateDelta(e) => e.subagent_run_id.as_ref(),
            Event::ActivitySnapshot(e) => e.subagent_run_id.as_ref(),
            Event::ActivityDelta(e) => e.subagent_run_id.as_ref(),
            Event::Raw(e) => e.subagent_run_id.as_ref(),
            Event::Custom(e) => e.subagent_run_id.as_ref(),
            Event::StepStarted(e) => e.subagent_run_id.as_ref(),
            Event::StepFinished(e) => e.subagent_run_id.as_ref(),
            Event::ReasoningStart(e) => e.subagent_run_id.as_ref(),
            Event::ReasoningMessageStart(e) => e.subagent_run_id.as_ref(),
            Event::ReasoningMessageContent(e) => e.subagent_run_id.as_ref(),
            Event::ReasoningMessageEnd(e) => e.subagent_run_id.as_ref(),
            Event::ReasoningMessageChunk(e) => e.subagent_run_id.as_ref(),
            Event::ReasoningEnd(e) => e.subagent_run_id.as_ref(),
            Event::ReasoningEncryptedValue(e) => e.subagent_run_id.as_ref(),
        }
    }
}
