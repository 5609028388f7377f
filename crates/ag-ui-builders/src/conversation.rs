//! [`Conversation`]: a message history built by chaining, with minted ids and tool calls
//! paired with their results.

use std::fmt;

use ag_ui_core::{
    Content, FunctionCall, Message, MessageId, ReasoningMessage, ToolCall, ToolCallId,
};
use serde::{Serialize, Serializer};

use crate::error::BuildError;
use crate::ids::{IdGenerator, UuidIds};
use crate::message::{
    activity_message, assistant_message, developer_message, system_message, tool_message,
    user_message,
};
use crate::tool::IntoArguments;

/// A conversation (`Vec<Message>`) built by chaining.
///
/// It serializes as the JSON array of its messages and can be passed wherever messages are
/// taken (it is an iterator of [`Message`]s).
///
/// Message and tool-call ids come from an [`IdGenerator`] ([`UuidIds`] unless
/// [`Conversation::with_ids`] says otherwise). The conversation keeps track of the tool calls
/// its assistant turns made, so that a tool result answers an open call by id — answering a
/// call that was never made, or twice, is an [`BuildError::NoOpenToolCall`], not a panic.
///
/// ```
/// use ag_ui_builders::{Conversation, SequentialIds};
/// use serde_json::json;
///
/// let messages = Conversation::with_ids(SequentialIds::new())
///     .system("You are a helpful assistant.")
///     .user("What's the weather in Amsterdam?")
///     .assistant_tool_call("get_weather", json!({"city": "Amsterdam"}))
///     .tool_result("call-1", r#"{"temperature":14}"#)?
///     .assistant("It is 14 °C in Amsterdam.")
///     .build();
/// assert_eq!(messages.len(), 5);
/// assert_eq!(messages[3].id().as_str(), "msg-4");
/// # Ok::<(), ag_ui_builders::BuildError>(())
/// ```
#[must_use]
pub struct Conversation {
    messages: Vec<Message>,
    open_calls: Vec<ToolCallId>,
    ids: Box<dyn IdGenerator>,
}

impl fmt::Debug for Conversation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conversation")
            .field("messages", &self.messages)
            .field("open_calls", &self.open_calls)
            .finish_non_exhaustive()
    }
}

impl Default for Conversation {
    fn default() -> Self {
        Self::new()
    }
}

impl Conversation {
    /// An empty conversation minting UUID v4 ids.
    pub fn new() -> Self {
        Self::with_ids(UuidIds)
    }

    /// An empty conversation minting ids from `ids`.
    pub fn with_ids(ids: impl IdGenerator + 'static) -> Self {
        Self {
            messages: Vec::new(),
            open_calls: Vec::new(),
            ids: Box::new(ids),
        }
    }

    /// Continues an existing history: the tool calls it left unanswered are open.
    pub fn from_messages(messages: impl IntoIterator<Item = impl Into<Message>>) -> Self {
        messages
            .into_iter()
            .fold(Self::new(), |conv, message| conv.message(message))
    }

    /// Replaces the id generator.
    pub fn ids(mut self, ids: impl IdGenerator + 'static) -> Self {
        self.ids = Box::new(ids);
        self
    }

    /// Appends a system message.
    pub fn system(mut self, content: impl Into<String>) -> Self {
        let id = self.ids.message_id();
        self.message(system_message(id, content))
    }

    /// Appends a developer message.
    pub fn developer(mut self, content: impl Into<String>) -> Self {
        let id = self.ids.message_id();
        self.message(developer_message(id, content))
    }

    /// Appends a user message: text, or parts (see [`crate::content::Parts`]).
    pub fn user(mut self, content: impl Into<Content>) -> Self {
        let id = self.ids.message_id();
        self.message(user_message(id, content))
    }

    /// Appends an assistant message with text.
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        let id = self.ids.message_id();
        self.message(assistant_message(id, text))
    }

    /// Appends an assistant turn that calls one tool; the call id is minted (read it back
    /// with [`Conversation::last_tool_call_id`]).
    pub fn assistant_tool_call(
        mut self,
        name: impl Into<String>,
        arguments: impl IntoArguments,
    ) -> Self {
        let call_id = self.ids.tool_call_id();
        let call = ToolCall::new(call_id, FunctionCall::new(name, arguments.into_arguments()));
        self.assistant_tool_calls([call])
    }

    /// Appends an assistant turn made of the given tool calls (with their own ids).
    pub fn assistant_tool_calls(mut self, calls: impl IntoIterator<Item = ToolCall>) -> Self {
        let id = self.ids.message_id();
        self.message(crate::message::assistant_tool_calls(id, calls))
    }

    /// Appends an assistant turn with text and tool calls.
    pub fn assistant_with_tool_calls(
        mut self,
        text: impl Into<String>,
        calls: impl IntoIterator<Item = ToolCall>,
    ) -> Self {
        let id = self.ids.message_id();
        self.message(crate::message::assistant_message_with_tool_calls(
            id, text, calls,
        ))
    }

    /// Appends the result of the open tool call `tool_call_id`.
    ///
    /// # Errors
    /// [`BuildError::NoOpenToolCall`] when no call with that id is open (never made, or already
    /// answered).
    pub fn tool_result(
        mut self,
        tool_call_id: impl Into<ToolCallId>,
        content: impl Into<Content>,
    ) -> Result<Self, BuildError> {
        let call = tool_call_id.into();
        if !self.open_calls.contains(&call) {
            return Err(self.no_open_call(call.into_string()));
        }
        let id = self.ids.message_id();
        Ok(self.message(tool_message(id, content, call)))
    }

    /// Appends the result of the oldest open tool call.
    ///
    /// # Errors
    /// [`BuildError::NoOpenToolCall`] when no call is open.
    pub fn next_tool_result(self, content: impl Into<Content>) -> Result<Self, BuildError> {
        match self.open_calls.first().cloned() {
            Some(call) => self.tool_result(call, content),
            None => Err(self.no_open_call(String::new())),
        }
    }

    /// Appends a reasoning message (visible reasoning kept in history).
    pub fn reasoning(mut self, content: impl Into<String>) -> Self {
        let id = self.ids.message_id();
        self.message(ReasoningMessage::new(id, content))
    }

    /// Appends an activity message; `content` must serialize to a JSON object.
    ///
    /// # Errors
    /// As [`activity_message`].
    pub fn activity(
        mut self,
        activity_type: impl Into<String>,
        content: &(impl Serialize + ?Sized),
    ) -> Result<Self, BuildError> {
        let id = self.ids.message_id();
        Ok(self.message(activity_message(id, activity_type, content)?))
    }

    /// Appends any message. Tool calls of an assistant message become open; a tool message
    /// answers its call (whether or not it was open).
    pub fn message(mut self, message: impl Into<Message>) -> Self {
        let message = message.into();
        match &message {
            Message::Assistant(m) => {
                for call in m.tool_calls.iter().flatten() {
                    if !self.open_calls.contains(&call.id) {
                        self.open_calls.push(call.id.clone());
                    }
                }
            }
            Message::Tool(m) => self.open_calls.retain(|c| *c != m.tool_call_id),
            _ => {}
        }
        self.messages.push(message);
        self
    }

    /// The tool calls made and not yet answered, in call order.
    #[must_use]
    pub fn open_tool_calls(&self) -> &[ToolCallId] {
        &self.open_calls
    }

    /// The id of the last tool call made, if any.
    #[must_use]
    pub fn last_tool_call_id(&self) -> Option<&ToolCallId> {
        self.messages.iter().rev().find_map(|m| match m {
            Message::Assistant(a) => a.tool_calls.as_ref().and_then(|c| c.last()).map(|c| &c.id),
            _ => None,
        })
    }

    /// The id of the last message, if any.
    #[must_use]
    pub fn last_message_id(&self) -> Option<&MessageId> {
        self.messages.last().map(Message::id)
    }

    /// The messages so far.
    #[must_use]
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The conversation.
    #[must_use]
    pub fn build(self) -> Vec<Message> {
        self.messages
    }

    fn no_open_call(&self, tool_call_id: String) -> BuildError {
        BuildError::NoOpenToolCall {
            tool_call_id,
            open: self.open_calls.iter().map(|c| c.to_string()).collect(),
        }
    }
}

impl Serialize for Conversation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.messages.serialize(serializer)
    }
}

impl IntoIterator for Conversation {
    type Item = Message;
    type IntoIter = std::vec::IntoIter<Message>;
    fn into_iter(self) -> Self::IntoIter {
        self.messages.into_iter()
    }
}

impl<'a> IntoIterator for &'a Conversation {
    type Item = &'a Message;
    type IntoIter = std::slice::Iter<'a, Message>;
    fn into_iter(self) -> Self::IntoIter {
        self.messages.iter()
    }
}

impl From<Conversation> for Vec<Message> {
    fn from(c: Conversation) -> Vec<Message> {
        c.messages
    }
}
