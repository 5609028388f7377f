//! `TEXT_MESSAGE_*` short forms.

use ag_ui_core::{
    MessageId, TextMessageChunkEvent, TextMessageContentEvent, TextMessageEndEvent,
    TextMessageStartEvent,
};

/// `TEXT_MESSAGE_START(message_id)`; `role` is left absent, which means `assistant` (add
/// `.with_role(..)` for another text role).
#[must_use]
pub fn text_message_start(message_id: impl Into<MessageId>) -> TextMessageStartEvent {
    TextMessageStartEvent::new(message_id)
}

/// `TEXT_MESSAGE_CONTENT(message_id, delta)`; an empty delta is allowed (keep-alives).
#[must_use]
pub fn text_message_content(
    message_id: impl Into<MessageId>,
    delta: impl Into<String>,
) -> TextMessageContentEvent {
    TextMessageContentEvent::new(message_id, delta)
}

/// `TEXT_MESSAGE_END(message_id)`.
#[must_use]
pub fn text_message_end(message_id: impl Into<MessageId>) -> TextMessageEndEvent {
    TextMessageEndEvent::new(message_id)
}

/// `TEXT_MESSAGE_CHUNK(message_id, delta)`: the chunk that opens (or continues, with the
/// same id) a message; the role is left absent (`assistant`).
#[must_use]
pub fn text_message_chunk(
    message_id: impl Into<MessageId>,
    delta: impl Into<String>,
) -> TextMessageChunkEvent {
    TextMessageChunkEvent::new()
        .with_message_id(message_id)
        .with_delta(delta)
}

/// `TEXT_MESSAGE_CHUNK(delta)` without an id: continues the open chunk-built message.
#[must_use]
pub fn text_message_chunk_continue(delta: impl Into<String>) -> TextMessageChunkEvent {
    TextMessageChunkEvent::new().with_delta(delta)
}
