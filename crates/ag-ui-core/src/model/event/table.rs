//! The event table: every AG-UI 1.0 event, named once.
//!
//! [`for_each_event!`](crate::for_each_event) is the single list of the events. The
//! crate derives [`EventType`](super::EventType), [`Event`](super::Event), `EventType::ALL`,
//! the base-field accessors of `Event` and `EventType::is_attributable` from it, and the
//! other crates of the workspace (builders, schema, fixtures, tests) read it instead of
//! keeping lists of their own. Adding an event is one line here plus the event's own struct
//! (see `docs/design.md`, "Adding an event").

/// Calls `$callback!` with the table of every AG-UI 1.0 event, in the protocol's
/// declaration order.
///
/// The callback receives, first, the bracketed extra tokens given after the callback (or
/// `[]`), then one entry per event:
///
/// ```text
/// Variant(StructName) = "WIRE_NAME" in area [attribution, boxing],
/// ```
///
/// * `Variant`: the [`Event`](crate::Event) and [`EventType`](crate::EventType) variant.
/// * `StructName`: the event struct, exported at the crate root.
/// * `area`: the protocol area, the module of `src/model/event/` that defines the struct
///   (`text_message`, `tool_call`, `state`, `activity`, `special`, `run`, `step`,
///   `reasoning`, `subagent`).
/// * `attribution`: `attributable` (carries the optional `subagentRunId` attribution, spec
///   §2.8), `identity` (a `SUBAGENT_*` event, whose required `subagentRunId` is the
///   invocation's identity) or `scoped` (run-scoped, no `subagentRunId`).
/// * `boxing`: `boxed` when `Event` holds the struct in a `Box` (large, rare events), else
///   `inline`.
///
/// ```
/// macro_rules! wire_names {
///     ([] $($variant:ident($ty:ident) = $wire:literal in $area:ident [$attr:ident, $boxing:ident],)*) => {
///         [$($wire),*]
///     };
/// }
/// let names = ag_ui_core::for_each_event!(wire_names);
/// assert_eq!(names, ag_ui_core::EventType::WIRE_NAMES);
/// assert_eq!(names.len(), ag_ui_core::EventType::ALL.len());
/// ```
#[macro_export]
macro_rules! for_each_event {
    ($($callback:ident)::+ $(, $($args:tt)*)?) => {
        $($callback)::+! {
            [$($($args)*)?]
            TextMessageStart(TextMessageStartEvent) = "TEXT_MESSAGE_START" in text_message [attributable, inline],
            TextMessageContent(TextMessageContentEvent) = "TEXT_MESSAGE_CONTENT" in text_message [attributable, inline],
            TextMessageEnd(TextMessageEndEvent) = "TEXT_MESSAGE_END" in text_message [attributable, inline],
            TextMessageChunk(TextMessageChunkEvent) = "TEXT_MESSAGE_CHUNK" in text_message [attributable, boxed],
            ToolCallStart(ToolCallStartEvent) = "TOOL_CALL_START" in tool_call [attributable, boxed],
            ToolCallArgs(ToolCallArgsEvent) = "TOOL_CALL_ARGS" in tool_call [attributable, inline],
            ToolCallEnd(ToolCallEndEvent) = "TOOL_CALL_END" in tool_call [attributable, inline],
            ToolCallChunk(ToolCallChunkEvent) = "TOOL_CALL_CHUNK" in tool_call [attributable, boxed],
            ToolCallResult(ToolCallResultEvent) = "TOOL_CALL_RESULT" in tool_call [attributable, boxed],
            StateSnapshot(StateSnapshotEvent) = "STATE_SNAPSHOT" in state [attributable, inline],
            StateDelta(StateDeltaEvent) = "STATE_DELTA" in state [attributable, inline],
            MessagesSnapshot(MessagesSnapshotEvent) = "MESSAGES_SNAPSHOT" in state [scoped, inline],
            ActivitySnapshot(ActivitySnapshotEvent) = "ACTIVITY_SNAPSHOT" in activity [attributable, boxed],
            ActivityDelta(ActivityDeltaEvent) = "ACTIVITY_DELTA" in activity [attributable, boxed],
            Raw(RawEvent) = "RAW" in special [attributable, inline],
            Custom(CustomEvent) = "CUSTOM" in special [attributable, inline],
            RunStarted(RunStartedEvent) = "RUN_STARTED" in run [scoped, boxed],
            RunFinished(RunFinishedEvent) = "RUN_FINISHED" in run [scoped, boxed],
            RunError(RunErrorEvent) = "RUN_ERROR" in run [scoped, inline],
            StepStarted(StepStartedEvent) = "STEP_STARTED" in step [attributable, inline],
            StepFinished(StepFinishedEvent) = "STEP_FINISHED" in step [attributable, inline],
            ReasoningStart(ReasoningStartEvent) = "REASONING_START" in reasoning [attributable, inline],
            ReasoningMessageStart(ReasoningMessageStartEvent) = "REASONING_MESSAGE_START" in reasoning [attributable, inline],
            ReasoningMessageContent(ReasoningMessageContentEvent) = "REASONING_MESSAGE_CONTENT" in reasoning [attributable, inline],
            ReasoningMessageEnd(ReasoningMessageEndEvent) = "REASONING_MESSAGE_END" in reasoning [attributable, inline],
            ReasoningMessageChunk(ReasoningMessageChunkEvent) = "REASONING_MESSAGE_CHUNK" in reasoning [attributable, inline],
            ReasoningEnd(ReasoningEndEvent) = "REASONING_END" in reasoning [attributable, inline],
            ReasoningEncryptedValue(ReasoningEncryptedValueEvent) = "REASONING_ENCRYPTED_VALUE" in reasoning [attributable, boxed],
            SubagentStarted(SubagentStartedEvent) = "SUBAGENT_STARTED" in subagent [identity, boxed],
            SubagentFinished(SubagentFinishedEvent) = "SUBAGENT_FINISHED" in subagent [identity, inline],
            SubagentError(SubagentErrorEvent) = "SUBAGENT_ERROR" in subagent [identity, inline],
        }
    };
}
