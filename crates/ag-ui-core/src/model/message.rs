//! Messages (`Message`, tagged by `role`) and the role enumerations.

use serde_json::{Map, Value};

use crate::codec::wire::{tagged_union, wire_enum, wire_struct};
use crate::model::content::Content;
use crate::model::id::{MessageId, SubagentRunId, ToolCallId};
use crate::model::metadata::Metadata;
use crate::model::tool::ToolCall;

wire_enum! {
    /// `Role`: the seven message roles (the `role` tag of [`Message`]).
    pub enum Role ["role"] {
        /// Instructions from the application developer.
        Developer = "developer",
        /// System instructions.
        System = "system",
        /// Agent output.
        Assistant = "assistant",
        /// The end user.
        User = "user",
        /// A tool's result.
        Tool = "tool",
        /// Structured, non-conversational progress (frontend-only).
        Activity = "activity",
        /// Visible reasoning kept in history.
        Reasoning = "reasoning",
    }
}

wire_enum! {
    /// `TextMessageRole`: the roles a streamed text message may have (no `tool`,
    /// `activity` or `reasoning`).
    pub enum TextMessageRole ["text message role"] {
        /// Developer.
        Developer = "developer",
        /// System.
        System = "system",
        /// Assistant (the default when a `TEXT_MESSAGE_START` omits `role`).
        Assistant = "assistant",
        /// User.
        User = "user",
    }
}

impl From<TextMessageRole> for Role {
    fn from(r: TextMessageRole) -> Role {
        match r {
            TextMessageRole::Developer => Role::Developer,
            TextMessageRole::System => Role::System,
            TextMessageRole::Assistant => Role::Assistant,
            TextMessageRole::User => Role::User,
        }
    }
}

macro_rules! text_message {
    ($(#[$meta:meta])* $name:ident = $tag:literal) => {
        wire_struct! {
            $(#[$meta])*
            pub struct $name ["role" = $tag] {
                required {
                    /// Message id, unique within the conversation (the empty string is valid).
                    id: MessageId = "id" ("a message id string"),
                    /// The text (may be empty).
                    content: String = "content" ("a string"),
                }
                optional {
                    /// Subagent invocation this item belongs to (it produced the event, owns the message or
                    /// raised the interrupt); absent = the parent agent. Never `null`.
                    subagent_run_id / with_subagent_run_id: SubagentRunId = "subagentRunId" [Reject],
                    /// Display name of the author.
                    name / with_name: String = "name" [Absent],
                    /// Opaque provider artefact the client stores and sends back on later turns.
                    encrypted_value / with_encrypted_value: String = "encryptedValue" [Absent],
                    /// What kind of artefact `encryptedValue` is, named by its producer (AG-UI 1.1, e.g.
                    /// `anthropic.redacted_thinking`); opaque, and only ever written beside `encryptedValue`.
                    encrypted_value_type / with_encrypted_value_type: String = "encryptedValueType" [Absent],
                    /// Extra information; accumulates from the events that build the message.
                    metadata / with_metadata: Metadata = "metadata" [Absent],
                }
                paired {
                    encrypted_value_type = "encryptedValueType" needs encrypted_value = "encryptedValue",
                }
            }
        }
    };
}

text_message! {
    /// `DeveloperMessage` (`role: "developer"`): instructions from the application developer.
    DeveloperMessage = "developer"
}
text_message! {
    /// `SystemMessage` (`role: "system"`): system instructions.
    SystemMessage = "system"
}

wire_struct! {
    /// `AssistantMessage` (`role: "assistant"`): agent output; may consist of tool calls only.
    pub struct AssistantMessage ["role" = "assistant"] {
        required {
            /// Message id, unique within the conversation (the empty string is valid).
            id: MessageId = "id" ("a message id string"),
        }
        optional {
            /// Subagent invocation this item belongs to (it produced the event, owns the message or
            /// raised the interrupt); absent = the parent agent. Never `null`.
            subagent_run_id / with_subagent_run_id: SubagentRunId = "subagentRunId" [Reject],
            /// Display name of the author.
            name / with_name: String = "name" [Absent],
            /// Opaque provider artefact the client stores and sends back on later turns.
            encrypted_value / with_encrypted_value: String = "encryptedValue" [Absent],
            /// What kind of artefact `encryptedValue` is, named by its producer (AG-UI 1.1, e.g.
            /// `anthropic.redacted_thinking`); opaque, and only ever written beside `encryptedValue`.
            encrypted_value_type / with_encrypted_value_type: String = "encryptedValueType" [Absent],
            /// Extra information; accumulates from the events that build the message.
            metadata / with_metadata: Metadata = "metadata" [Absent],
            /// The text (string only); absent when the turn is only tool calls.
            content / with_content: String = "content" [Absent],
            /// Calls made in this turn, in order (an empty array is valid).
            tool_calls / with_tool_calls: Vec<ToolCall> = "toolCalls" [Absent],
        }
        paired {
            encrypted_value_type = "encryptedValueType" needs encrypted_value = "encryptedValue",
        }
    }
}

wire_struct! {
    /// `UserMessage` (`role: "user"`): from the end user; plain text or multimodal parts.
    pub struct UserMessage ["role" = "user"] {
        required {
            /// Message id, unique within the conversation (the empty string is valid).
            id: MessageId = "id" ("a message id string"),
            /// A string or an ordered array of content parts.
            content: Content = "content" ("a string or an array of content parts"),
        }
        optional {
            /// Subagent invocation this item belongs to (it produced the event, owns the message or
            /// raised the interrupt); absent = the parent agent. Never `null`.
            subagent_run_id / with_subagent_run_id: SubagentRunId = "subagentRunId" [Reject],
            /// Display name of the author.
            name / with_name: String = "name" [Absent],
            /// Opaque provider artefact the client stores and sends back on later turns.
            encrypted_value / with_encrypted_value: String = "encryptedValue" [Absent],
            /// What kind of artefact `encryptedValue` is, named by its producer (AG-UI 1.1, e.g.
            /// `anthropic.redacted_thinking`); opaque, and only ever written beside `encryptedValue`.
            encrypted_value_type / with_encrypted_value_type: String = "encryptedValueType" [Absent],
            /// Extra information; accumulates from the events that build the message.
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
        paired {
            encrypted_value_type = "encryptedValueType" needs encrypted_value = "encryptedValue",
        }
    }
}

wire_struct! {
    /// `ToolMessage` (`role: "tool"`): a tool's result inside the conversation (no `name`).
    pub struct ToolMessage ["role" = "tool"] {
        required {
            /// Message id, unique within the conversation (the empty string is valid).
            id: MessageId = "id" ("a message id string"),
            /// A string or an ordered array of content parts.
            content: Content = "content" ("a string or an array of content parts"),
            /// Id of the tool call this answers.
            tool_call_id: ToolCallId = "toolCallId" ("a tool call id string"),
        }
        optional {
            /// Subagent invocation this item belongs to (it produced the event, owns the message or
            /// raised the interrupt); absent = the parent agent. Never `null`.
            subagent_run_id / with_subagent_run_id: SubagentRunId = "subagentRunId" [Reject],
            /// Failure description; sits beside `content` so a partial result survives.
            error / with_error: String = "error" [Absent],
            /// Opaque provider artefact the client stores and sends back on later turns.
            encrypted_value / with_encrypted_value: String = "encryptedValue" [Absent],
            /// What kind of artefact `encryptedValue` is, named by its producer (AG-UI 1.1, e.g.
            /// `anthropic.redacted_thinking`); opaque, and only ever written beside `encryptedValue`.
            encrypted_value_type / with_encrypted_value_type: String = "encryptedValueType" [Absent],
            /// Extra information; accumulates from the events that build the message.
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
        paired {
            encrypted_value_type = "encryptedValueType" needs encrypted_value = "encryptedValue",
        }
    }
}

wire_struct! {
    /// `ActivityMessage` (`role: "activity"`): structured progress materialised as a message
    /// (frontend-only); built by `ACTIVITY_SNAPSHOT` / `ACTIVITY_DELTA`.
    pub struct ActivityMessage ["role" = "activity"] {
        required {
            /// Message id (shared with the `ACTIVITY_*` events that build it).
            id: MessageId = "id" ("a message id string"),
            /// Producer-defined kind, e.g. `"PLAN"`; UIs pick a renderer by it.
            activity_type: String = "activityType" ("a string"),
            /// Structured payload; a JSON object.
            content: Map<String, Value> = "content" ("a JSON object"),
        }
        optional {
            /// Subagent invocation this item belongs to (it produced the event, owns the message or
            /// raised the interrupt); absent = the parent agent. Never `null`.
            subagent_run_id / with_subagent_run_id: SubagentRunId = "subagentRunId" [Reject],
            /// Extra information; accumulates from the events that build the message.
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
    }
}

wire_struct! {
    /// `ReasoningMessage` (`role: "reasoning"`): visible reasoning (and/or its encrypted
    /// artefact) kept in history; built by `REASONING_MESSAGE_*` events.
    pub struct ReasoningMessage ["role" = "reasoning"] {
        required {
            /// Message id, unique within the conversation (the empty string is valid).
            id: MessageId = "id" ("a message id string"),
            /// Visible reasoning text (may be empty).
            content: String = "content" ("a string"),
        }
        optional {
            /// Subagent invocation this item belongs to (it produced the event, owns the message or
            /// raised the interrupt); absent = the parent agent. Never `null`.
            subagent_run_id / with_subagent_run_id: SubagentRunId = "subagentRunId" [Reject],
            /// Opaque encrypted chain-of-thought the client must send back unchanged.
            encrypted_value / with_encrypted_value: String = "encryptedValue" [Absent],
            /// What kind of artefact `encryptedValue` is, named by its producer (AG-UI 1.1, e.g.
            /// `anthropic.redacted_thinking`); opaque, and only ever written beside `encryptedValue`.
            encrypted_value_type / with_encrypted_value_type: String = "encryptedValueType" [Absent],
            /// Extra information; accumulates from the events that build the message.
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
        paired {
            encrypted_value_type = "encryptedValueType" needs encrypted_value = "encryptedValue",
        }
    }
}

tagged_union! {
    /// `Message`: one conversation message, tagged by `role`.
    pub enum Message ["role", "message role"] {
        /// `role: "developer"`.
        Developer(DeveloperMessage) = "developer",
        /// `role: "system"`.
        System(SystemMessage) = "system",
        /// `role: "assistant"`.
        Assistant(AssistantMessage) = "assistant",
        /// `role: "user"`.
        User(UserMessage) = "user",
        /// `role: "tool"`.
        Tool(ToolMessage) = "tool",
        /// `role: "activity"`.
        Activity(ActivityMessage) = "activity",
        /// `role: "reasoning"`.
        Reasoning(ReasoningMessage) = "reasoning",
    }
}

impl Message {
    /// The message's role.
    #[must_use]
    pub fn role(&self) -> Role {
        match self {
            Message::Developer(_) => Role::Developer,
            Message::System(_) => Role::System,
            Message::Assistant(_) => Role::Assistant,
            Message::User(_) => Role::User,
            Message::Tool(_) => Role::Tool,
            Message::Activity(_) => Role::Activity,
            Message::Reasoning(_) => Role::Reasoning,
        }
    }

    /// The message id.
    #[must_use]
    pub fn id(&self) -> &MessageId {
        match self {
            Message::Developer(m) => &m.id,
            Message::System(m) => &m.id,
            Message::Assistant(m) => &m.id,
            Message::User(m) => &m.id,
            Message::Tool(m) => &m.id,
            Message::Activity(m) => &m.id,
            Message::Reasoning(m) => &m.id,
        }
    }

    /// The owning subagent invocation (`None` = the parent agent).
    #[must_use]
    pub fn subagent_run_id(&self) -> Option<&SubagentRunId> {
        match self {
            Message::Developer(m) => m.subagent_run_id.as_ref(),
            Message::System(m) => m.subagent_run_id.as_ref(),
            Message::Assistant(m) => m.subagent_run_id.as_ref(),
            Message::User(m) => m.subagent_run_id.as_ref(),
            Message::Tool(m) => m.subagent_run_id.as_ref(),
            Message::Activity(m) => m.subagent_run_id.as_ref(),
            Message::Reasoning(m) => m.subagent_run_id.as_ref(),
        }
    }

    /// The message's metadata.
    #[must_use]
    pub fn metadata(&self) -> Option<&Metadata> {
        match self {
            Message::Developer(m) => m.metadata.as_ref(),
            Message::System(m) => m.metadata.as_ref(),
            Message::Assistant(m) => m.metadata.as_ref(),
            Message::User(m) => m.metadata.as_ref(),
            Message::Tool(m) => m.metadata.as_ref(),
            Message::Activity(m) => m.metadata.as_ref(),
            Message::Reasoning(m) => m.metadata.as_ref(),
        }
    }
}
