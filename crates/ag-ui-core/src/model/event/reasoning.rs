//! The seven `REASONING_*` events.

use super::macros::event_struct;
use crate::codec::wire::wire_enum;
use crate::model::id::MessageId;

event_struct! {
    /// `REASONING_START`: opens a reasoning span (which may hold several reasoning messages).
    pub struct ReasoningStartEvent = "REASONING_START" [attributable] {
        required {
            /// Id of the reasoning span.
            message_id: MessageId = "messageId" ("a message id string"),
        }
        optional {}
    }
}

wire_enum! {
    /// The constant `role` of `REASONING_MESSAGE_START`: only `"reasoning"` is allowed.
    pub enum ReasoningRole ["reasoning message role"] {
        /// `"reasoning"`.
        Reasoning = "reasoning",
    }
}

event_struct! {
    /// `REASONING_MESSAGE_START`: opens a streamed reasoning message.
    pub struct ReasoningMessageStartEvent = "REASONING_MESSAGE_START" [attributable] {
        required {
            /// Reasoning message id.
            message_id: MessageId = "messageId" ("a message id string"),
            /// Always `"reasoning"` (required on the wire).
            role: ReasoningRole = "role" ("the constant \"reasoning\""),
        }
        optional {}
    }
}

impl ReasoningMessageStartEvent {
    /// Opens reasoning message `message_id` (role `reasoning`).
    #[must_use]
    pub fn for_message(message_id: impl Into<MessageId>) -> Self {
        Self::new(message_id, ReasoningRole::Reasoning)
    }
}

event_struct! {
    /// `REASONING_MESSAGE_CONTENT`: appends to an open reasoning message.
    pub struct ReasoningMessageContentEvent = "REASONING_MESSAGE_CONTENT" [attributable] {
        required {
            /// Reasoning message id.
            message_id: MessageId = "messageId" ("a message id string"),
            /// Fragment; may be empty.
            delta: String = "delta" ("a string"),
        }
        optional {}
    }
}

event_struct! {
    /// `REASONING_MESSAGE_END`: closes a reasoning message.
    pub struct ReasoningMessageEndEvent = "REASONING_MESSAGE_END" [attributable] {
        required {
            /// Reasoning message being closed.
            message_id: MessageId = "messageId" ("a message id string"),
        }
        optional {}
    }
}

event_struct! {
    /// `REASONING_MESSAGE_CHUNK`: shorthand for the reasoning message START/CONTENT/END.
    pub struct ReasoningMessageChunkEvent = "REASONING_MESSAGE_CHUNK" [attributable] {
        required {}
        optional {
            /// Required on the opening chunk.
            message_id / with_message_id: MessageId = "messageId" [Absent],
            /// Fragment (an empty string is just an empty fragment).
            delta / with_delta: String = "delta" [Absent],
        }
    }
}

event_struct! {
    /// `REASONING_END`: closes a reasoning span.
    pub struct ReasoningEndEvent = "REASONING_END" [attributable] {
        required {
            /// Span being closed.
            message_id: MessageId = "messageId" ("a message id string"),
        }
        optional {}
    }
}

wire_enum! {
    /// `ReasoningEncryptedValueSubtype`: what `REASONING_ENCRYPTED_VALUE.entityId` names.
    pub enum ReasoningEncryptedValueSubtype ["reasoning encrypted value subtype"] {
        /// A tool call id.
        ToolCall = "tool-call",
        /// A message id (text or reasoning).
        Message = "message",
    }
}

event_struct! {
    /// `REASONING_ENCRYPTED_VALUE`: attaches an opaque encrypted reasoning artefact to a
    /// message or tool call; opens and closes nothing, may follow the entity's close.
    pub struct ReasoningEncryptedValueEvent = "REASONING_ENCRYPTED_VALUE" [attributable] {
        required {
            /// Whether `entityId` is a message or a tool call.
            subtype: ReasoningEncryptedValueSubtype = "subtype" ("\"tool-call\" or \"message\""),
            /// Id of the entity that stores the value.
            entity_id: String = "entityId" ("an id string"),
            /// Opaque artefact, stored on the entity's `encryptedValue`.
            encrypted_value: String = "encryptedValue" ("a string"),
        }
        optional {
            /// What kind of artefact `encryptedValue` is, named by its producer (AG-UI 1.1, e.g.
            /// `anthropic.redacted_thinking`); the entity stores it with the value, and an event
            /// without it removes the type the entity held.
            encrypted_value_type / with_encrypted_value_type: String = "encryptedValueType" [Absent],
        }
    }
}
