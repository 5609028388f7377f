//! `REASONING_*` short forms.

use ag_ui_core::{
    MessageId, ReasoningEncryptedValueEvent, ReasoningEncryptedValueSubtype, ReasoningEndEvent,
    ReasoningMessageChunkEvent, ReasoningMessageContentEvent, ReasoningMessageEndEvent,
    ReasoningMessageStartEvent, ReasoningRole, ReasoningStartEvent, ToolCallId,
};

/// `REASONING_START(message_id)`: opens a reasoning span.
#[must_use]
pub fn reasoning_start(message_id: impl Into<MessageId>) -> ReasoningStartEvent {
    ReasoningStartEvent::new(message_id)
}

/// `REASONING_MESSAGE_START(message_id)` with the `reasoning` role the wire requires.
#[must_use]
pub fn reasoning_message_start(message_id: impl Into<MessageId>) -> ReasoningMessageStartEvent {
    ReasoningMessageStartEvent::new(message_id, ReasoningRole::Reasoning)
}

/// `REASONING_MESSAGE_CONTENT(message_id, delta)`; an empty delta is allowed.
#[must_use]
pub fn reasoning_message_content(
    message_id: impl Into<MessageId>,
    delta: impl Into<String>,
) -> ReasoningMessageContentEvent {
    ReasoningMessageContentEvent::new(message_id, delta)
}

/// `REASONING_MESSAGE_END(message_id)`.
#[must_use]
pub fn reasoning_message_end(message_id: impl Into<MessageId>) -> ReasoningMessageEndEvent {
    ReasoningMessageEndEvent::new(message_id)
}

/// `REASONING_MESSAGE_CHUNK(message_id, delta)`: the chunk that opens (or continues) a
/// reasoning message.
#[must_use]
pub fn reasoning_message_chunk(
    message_id: impl Into<MessageId>,
    delta: impl Into<String>,
) -> ReasoningMessageChunkEvent {
    ReasoningMessageChunkEvent::new()
        .with_message_id(message_id)
        .with_delta(delta)
}

/// `REASONING_END(message_id)`: closes a reasoning span.
#[must_use]
pub fn reasoning_end(message_id: impl Into<MessageId>) -> ReasoningEndEvent {
    ReasoningEndEvent::new(message_id)
}

/// `REASONING_ENCRYPTED_VALUE(subtype, entity_id, encrypted_value)`.
#[must_use]
pub fn reasoning_encrypted_value(
    subtype: ReasoningEncryptedValueSubtype,
    entity_id: impl Into<String>,
    encrypted_value: impl Into<String>,
) -> ReasoningEncryptedValueEvent {
    ReasoningEncryptedValueEvent::new(subtype, entity_id, encrypted_value)
}

/// `REASONING_ENCRYPTED_VALUE` for a message (text or reasoning).
#[must_use]
pub fn message_encrypted_value(
    message_id: impl Into<MessageId>,
    encrypted_value: impl Into<String>,
) -> ReasoningEncryptedValueEvent {
    reasoning_encrypted_value(
        ReasoningEncryptedValueSubtype::Message,
        message_id.into().into_string(),
        encrypted_value,
    )
}

/// `REASONING_ENCRYPTED_VALUE` for a tool call.
#[must_use]
pub fn tool_call_encrypted_value(
    tool_call_id: impl Into<ToolCallId>,
    encrypted_value: impl Into<String>,
) -> ReasoningEncryptedValueEvent {
    reasoning_encrypted_value(
        ReasoningEncryptedValueSubtype::ToolCall,
        tool_call_id.into().into_string(),
        encrypted_value,
    )
}

/// `REASONING_ENCRYPTED_VALUE(subtype, entity_id, encrypted_value)` with the kind of
/// artefact the value is (`encryptedValueType`, AG-UI 1.1, e.g.
/// `anthropic.redacted_thinking`): the value and its type are set together.
#[must_use]
pub fn typed_encrypted_value(
    subtype: ReasoningEncryptedValueSubtype,
    entity_id: impl Into<String>,
    encrypted_value: impl Into<String>,
    encrypted_value_type: impl Into<String>,
) -> ReasoningEncryptedValueEvent {
    reasoning_encrypted_value(subtype, entity_id, encrypted_value)
        .with_encrypted_value_type(encrypted_value_type)
}
