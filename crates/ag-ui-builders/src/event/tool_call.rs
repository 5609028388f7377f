//! `TOOL_CALL_*` short forms.

use ag_ui_core::{
    Content, MessageId, ToolCallArgsEvent, ToolCallChunkEvent, ToolCallEndEvent, ToolCallId,
    ToolCallResultEvent, ToolCallStartEvent,
};

/// `TOOL_CALL_START(tool_call_id, tool_call_name)` (add `.with_parent_message_id(..)` to
/// attach it to an assistant message).
#[must_use]
pub fn tool_call_start(
    tool_call_id: impl Into<ToolCallId>,
    tool_call_name: impl Into<String>,
) -> ToolCallStartEvent {
    ToolCallStartEvent::new(tool_call_id, tool_call_name)
}

/// `TOOL_CALL_ARGS(tool_call_id, delta)`; an empty delta is allowed.
#[must_use]
pub fn tool_call_args(
    tool_call_id: impl Into<ToolCallId>,
    delta: impl Into<String>,
) -> ToolCallArgsEvent {
    ToolCallArgsEvent::new(tool_call_id, delta)
}

/// `TOOL_CALL_END(tool_call_id)`.
#[must_use]
pub fn tool_call_end(tool_call_id: impl Into<ToolCallId>) -> ToolCallEndEvent {
    ToolCallEndEvent::new(tool_call_id)
}

/// `TOOL_CALL_CHUNK(tool_call_id, tool_call_name, delta)`: the chunk that opens a call (an
/// opener needs both the id and the name).
#[must_use]
pub fn tool_call_chunk(
    tool_call_id: impl Into<ToolCallId>,
    tool_call_name: impl Into<String>,
    delta: impl Into<String>,
) -> ToolCallChunkEvent {
    ToolCallChunkEvent::new()
        .with_tool_call_id(tool_call_id)
        .with_tool_call_name(tool_call_name)
        .with_delta(delta)
}

/// `TOOL_CALL_CHUNK(delta)` without an id: continues the open chunk-built call.
#[must_use]
pub fn tool_call_chunk_continue(delta: impl Into<String>) -> ToolCallChunkEvent {
    ToolCallChunkEvent::new().with_delta(delta)
}

/// `TOOL_CALL_RESULT(message_id, tool_call_id, content)`: mints the tool message
/// `message_id`; `role` is left absent (it can only be `tool`).
#[must_use]
pub fn tool_call_result(
    message_id: impl Into<MessageId>,
    tool_call_id: impl Into<ToolCallId>,
    content: impl Into<Content>,
) -> ToolCallResultEvent {
    ToolCallResultEvent::new(message_id, tool_call_id, content)
}
