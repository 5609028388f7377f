//! Short forms for the seven message types: the required fields, nothing else set.

use ag_ui_core::{
    ActivityMessage, AssistantMessage, Content, DeveloperMessage, MessageId, ReasoningMessage,
    SystemMessage, ToolCall, ToolCallId, ToolMessage, UserMessage,
};
use serde::Serialize;

use crate::error::{BuildError, into_object, to_value};

/// A system message `(id, content)`.
#[must_use]
pub fn system_message(id: impl Into<MessageId>, content: impl Into<String>) -> SystemMessage {
    SystemMessage::new(id, content)
}

/// A developer message `(id, content)`.
#[must_use]
pub fn developer_message(id: impl Into<MessageId>, content: impl Into<String>) -> DeveloperMessage {
    DeveloperMessage::new(id, content)
}

/// A user message `(id, content)`; `content` is a string or content parts (see
/// [`crate::content`]).
#[must_use]
pub fn user_message(id: impl Into<MessageId>, content: impl Into<Content>) -> UserMessage {
    UserMessage::new(id, content)
}

/// An assistant message `(id, content)` with text and no tool calls.
#[must_use]
pub fn assistant_message(id: impl Into<MessageId>, content: impl Into<String>) -> AssistantMessage {
    AssistantMessage::new(id).with_content(content)
}

/// An assistant turn made only of tool calls (`content` absent, as the protocol allows).
#[must_use]
pub fn assistant_tool_calls(
    id: impl Into<MessageId>,
    tool_calls: impl IntoIterator<Item = ToolCall>,
) -> AssistantMessage {
    AssistantMessage::new(id).with_tool_calls(tool_calls.into_iter().collect::<Vec<_>>())
}

/// An assistant message with both text and tool calls.
#[must_use]
pub fn assistant_message_with_tool_calls(
    id: impl Into<MessageId>,
    content: impl Into<String>,
    tool_calls: impl IntoIterator<Item = ToolCall>,
) -> AssistantMessage {
    assistant_tool_calls(id, tool_calls).with_content(content)
}

/// A tool message `(id, content, tool_call_id)`: the result of the call `tool_call_id`.
#[must_use]
pub fn tool_message(
    id: impl Into<MessageId>,
    content: impl Into<Content>,
    tool_call_id: impl Into<ToolCallId>,
) -> ToolMessage {
    ToolMessage::new(id, content, tool_call_id)
}

/// A reasoning message `(id, content)` (role `reasoning`).
#[must_use]
pub fn reasoning_message(id: impl Into<MessageId>, content: impl Into<String>) -> ReasoningMessage {
    ReasoningMessage::new(id, content)
}

/// An activity message `(id, activity_type, content)`; `content` is any value that
/// serializes to a JSON object (a `serde_json::json!({..})`, a map, a struct).
///
/// # Errors
/// [`BuildError::NotAnObject`] at `/content` when `content` is not an object;
/// [`BuildError::Json`] when it cannot be serialized.
pub fn activity_message(
    id: impl Into<MessageId>,
    activity_type: impl Into<String>,
    content: &(impl Serialize + ?Sized),
) -> Result<ActivityMessage, BuildError> {
    let content = into_object(to_value(content)?, "/content")?;
    Ok(ActivityMessage::new(id, activity_type, content))
}
