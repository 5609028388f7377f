//! `TEXT_MESSAGE_START`, `TEXT_MESSAGE_CONTENT`, `TEXT_MESSAGE_END`, `TEXT_MESSAGE_CHUNK`.

use super::macros::event_struct;
use crate::model::id::MessageId;
use crate::model::message::TextMessageRole;

event_struct! {
    /// `TEXT_MESSAGE_START`: opens a streamed text message.
    pub struct TextMessageStartEvent = "TEXT_MESSAGE_START" [attributable] {
        required {
            /// Id of the message being built; links the CONTENT and END events.
            message_id: MessageId = "messageId" ("a message id string"),
        }
        optional {
            /// One of the four text roles; absent means `"assistant"` (see [`Self::role`]).
            #[cfg_attr(feature = "schemars", schemars(extend("default" = "assistant")))]
            role / with_role: TextMessageRole = "role" [Absent],
            /// Author display name.
            name / with_name: String = "name" [Absent],
        }
    }
}

impl TextMessageStartEvent {
    /// The role, with absence read as the `assistant` it means.
    #[must_use]
    pub fn role(&self) -> TextMessageRole {
        self.role.unwrap_or(TextMessageRole::Assistant)
    }
}

event_struct! {
    /// `TEXT_MESSAGE_CONTENT`: appends a fragment to an open text message.
    pub struct TextMessageContentEvent = "TEXT_MESSAGE_CONTENT" [attributable] {
        required {
            /// Message this fragment extends.
            message_id: MessageId = "messageId" ("a message id string"),
            /// Text fragment; may be empty (keep-alives).
            delta: String = "delta" ("a string"),
        }
        optional {}
    }
}

event_struct! {
    /// `TEXT_MESSAGE_END`: closes a text message.
    pub struct TextMessageEndEvent = "TEXT_MESSAGE_END" [attributable] {
        required {
            /// Message being closed.
            message_id: MessageId = "messageId" ("a message id string"),
        }
        optional {}
    }
}

event_struct! {
    /// `TEXT_MESSAGE_CHUNK`: shorthand for START/CONTENT/END, expanded by the consumer; every
    /// field optional (continuation chunks omit what has not changed).
    pub struct TextMessageChunkEvent = "TEXT_MESSAGE_CHUNK" [attributable] {
        required {}
        optional {
            /// Required on the chunk that opens a message; absent = continue the open one.
            message_id / with_message_id: MessageId = "messageId" [Absent],
            /// Text role for the opening chunk (absent ⇒ assistant).
            #[cfg_attr(feature = "schemars", schemars(extend("default" = "assistant")))]
            role / with_role: TextMessageRole = "role" [Absent],
            /// Fragment; may be empty.
            delta / with_delta: String = "delta" [Absent],
            /// Author display name.
            name / with_name: String = "name" [Absent],
        }
    }
}
