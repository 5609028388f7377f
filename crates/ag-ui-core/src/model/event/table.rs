//! The event table: every AG-UI event, named once, with the first protocol version that has
//! it.
//!
//! [`for_each_event!`](crate::for_each_event) is the single list of the events. The
//! crate derives [`EventType`](super::EventType), [`Event`](super::Event), `EventType::ALL`,
//! the base-field accessors of `Event`, `EventType::is_attributable`, `EventType::since`,
//! `EventType::area` and what a peer of an older version is sent from it, and the other
//! crates of the workspace (builders, schema, fixtures, tests) read it instead of keeping
//! lists of their own. Adding an event is one line here plus the event's own struct (see
//! `docs/design.md`, "Adding an event").

/// Calls `$callback!` with the table of every AG-UI event, in the protocol's declaration
/// order.
///
/// The callback receives, first, the bracketed extra tokens given after the callback (or
/// `[]`), then one entry per event:
///
/// ```text
/// Variant(StructName) = "WIRE_NAME" in area since VERSION [attribution, boxing, naming],
/// ```
///
/// * `Variant`: the [`Event`](crate::Event) and [`EventType`](crate::EventType) variant.
/// * `StructName`: the event struct, exported at the crate root.
/// * `area`: the protocol area, the module of `src/model/event/` that defines the struct
///   (`text_message`, `tool_call`, `state`, `activity`, `special`, `run`, `step`,
///   `reasoning`, `subagent`).
/// * `VERSION`: the first protocol version that has the event, a constant of
///   [`ProtocolVersion`](crate::ProtocolVersion): `V0` for an event of the 0.x releases
///   this crate does not date more precisely, `SUBAGENTS` for the `SUBAGENT_*` events,
///   `V1_1` for an event AG-UI 1.1 added (none so far). A peer of an older version is not
///   sent the event, and the JSON Schema of an older version does not have it.
/// * `attribution`: `attributable` (carries the optional `subagentRunId` attribution, spec
///   §2.8), `identity` (a `SUBAGENT_*` event, whose required `subagentRunId` is the
///   invocation's identity) or `scoped` (run-scoped, no `subagentRunId`).
/// * `boxing`: `boxed` when `Event` holds the struct in a `Box` (large, rare events), else
///   `inline`.
/// * `naming`: `prefixed` when the wire name is the area's name in upper snake case, alone
///   or followed by `_` and the rest (`tool_call` → `TOOL_CALL_START`), the rule for every
///   event whose area is the entity it opens, continues or closes; `exempt` for the protocol's
///   own exceptions, events it files under an area whose name they do not carry:
///   `MESSAGES_SNAPSHOT` (state management: it restates the message list) and `RAW` /
///   `CUSTOM` (the special events: passthrough, no entity). The rule is checked when the
///   crate compiles: a `prefixed` name without the prefix, or an `exempt` one with it, is
///   a build error.
///
/// ```
/// macro_rules! wire_names {
///     ([] $($variant:ident($ty:ident) = $wire:literal in $area:ident since $since:ident
///         [$attr:ident, $boxing:ident, $naming:ident],)*) => {
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
            TextMessageStart(TextMessageStartEvent) = "TEXT_MESSAGE_START" in text_message since V0 [attributable, inline, prefixed],
            TextMessageContent(TextMessageContentEvent) = "TEXT_MESSAGE_CONTENT" in text_message since V0 [attributable, inline, prefixed],
            TextMessageEnd(TextMessageEndEvent) = "TEXT_MESSAGE_END" in text_message since V0 [attributable, inline, prefixed],
            TextMessageChunk(TextMessageChunkEvent) = "TEXT_MESSAGE_CHUNK" in text_message since V0 [attributable, boxed, prefixed],
            ToolCallStart(ToolCallStartEvent) = "TOOL_CALL_START" in tool_call since V0 [attributable, boxed, prefixed],
            ToolCallArgs(ToolCallArgsEvent) = "TOOL_CALL_ARGS" in tool_call since V0 [attributable, inline, prefixed],
            ToolCallEnd(ToolCallEndEvent) = "TOOL_CALL_END" in tool_call since V0 [attributable, inline, prefixed],
            ToolCallChunk(ToolCallChunkEvent) = "TOOL_CALL_CHUNK" in tool_call since V0 [attributable, boxed, prefixed],
            ToolCallResult(ToolCallResultEvent) = "TOOL_CALL_RESULT" in tool_call since V0 [attributable, boxed, prefixed],
            StateSnapshot(StateSnapshotEvent) = "STATE_SNAPSHOT" in state since V0 [attributable, inline, prefixed],
            StateDelta(StateDeltaEvent) = "STATE_DELTA" in state since V0 [attributable, inline, prefixed],
            MessagesSnapshot(MessagesSnapshotEvent) = "MESSAGES_SNAPSHOT" in state since V0 [scoped, inline, exempt],
            ActivitySnapshot(ActivitySnapshotEvent) = "ACTIVITY_SNAPSHOT" in activity since V0 [attributable, boxed, prefixed],
            ActivityDelta(ActivityDeltaEvent) = "ACTIVITY_DELTA" in activity since V0 [attributable, boxed, prefixed],
            Raw(RawEvent) = "RAW" in special since V0 [attributable, inline, exempt],
            Custom(CustomEvent) = "CUSTOM" in special since V0 [attributable, inline, exempt],
            RunStarted(RunStartedEvent) = "RUN_STARTED" in run since V0 [scoped, boxed, prefixed],
            RunFinished(RunFinishedEvent) = "RUN_FINISHED" in run since V0 [scoped, boxed, prefixed],
            RunError(RunErrorEvent) = "RUN_ERROR" in run since V0 [scoped, inline, prefixed],
            StepStarted(StepStartedEvent) = "STEP_STARTED" in step since V0 [attributable, inline, prefixed],
            StepFinished(StepFinishedEvent) = "STEP_FINISHED" in step since V0 [attributable, inline, prefixed],
            ReasoningStart(ReasoningStartEvent) = "REASONING_START" in reasoning since V0 [attributable, inline, prefixed],
            ReasoningMessageStart(ReasoningMessageStartEvent) = "REASONING_MESSAGE_START" in reasoning since V0 [attributable, inline, prefixed],
            ReasoningMessageContent(ReasoningMessageContentEvent) = "REASONING_MESSAGE_CONTENT" in reasoning since V0 [attributable, inline, prefixed],
            ReasoningMessageEnd(ReasoningMessageEndEvent) = "REASONING_MESSAGE_END" in reasoning since V0 [attributable, inline, prefixed],
            ReasoningMessageChunk(ReasoningMessageChunkEvent) = "REASONING_MESSAGE_CHUNK" in reasoning since V0 [attributable, inline, prefixed],
            ReasoningEnd(ReasoningEndEvent) = "REASONING_END" in reasoning since V0 [attributable, inline, prefixed],
            ReasoningEncryptedValue(ReasoningEncryptedValueEvent) = "REASONING_ENCRYPTED_VALUE" in reasoning since V0 [attributable, boxed, prefixed],
            SubagentStarted(SubagentStartedEvent) = "SUBAGENT_STARTED" in subagent since SUBAGENTS [identity, boxed, prefixed],
            SubagentFinished(SubagentFinishedEvent) = "SUBAGENT_FINISHED" in subagent since SUBAGENTS [identity, inline, prefixed],
            SubagentError(SubagentErrorEvent) = "SUBAGENT_ERROR" in subagent since SUBAGENTS [identity, inline, prefixed],
        }
    };
}

/// Whether `wire` follows the naming rule `naming` (`prefixed` or `exempt`) for `area` (see
/// [`for_each_event!`](crate::for_each_event)); an unknown `naming` never does.
pub(crate) const fn naming_holds(naming: &str, wire: &str, area: &str) -> bool {
    let prefixed = has_area_prefix(wire.as_bytes(), area.as_bytes());
    if eq(naming.as_bytes(), b"prefixed") {
        prefixed
    } else if eq(naming.as_bytes(), b"exempt") {
        !prefixed
    } else {
        false
    }
}

/// Whether `wire` is `area` in upper snake case, alone or followed by `_`.
const fn has_area_prefix(wire: &[u8], area: &[u8]) -> bool {
    if wire.len() < area.len() || (wire.len() > area.len() && wire[area.len()] != b'_') {
        return false;
    }
    let mut i = 0;
    while i < area.len() {
        if wire[i] != area[i].to_ascii_uppercase() {
            return false;
        }
        i += 1;
    }
    true
}

/// Byte-wise equality, usable in `const` checks.
pub(crate) const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
