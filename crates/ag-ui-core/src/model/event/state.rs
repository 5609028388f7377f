//! `STATE_SNAPSHOT`, `STATE_DELTA`, `MESSAGES_SNAPSHOT`.

use serde_json::Value;

use super::macros::event_struct;
use crate::model::message::Message;
use crate::model::patch::JsonPatch;

event_struct! {
    /// `STATE_SNAPSHOT`: replaces the whole agent state.
    pub struct StateSnapshotEvent = "STATE_SNAPSHOT" [attributable] {
        required {
            /// Complete new state; any JSON, `null` included (a real value here).
            snapshot: Value = "snapshot" ("any JSON value, null included"),
        }
        optional {}
    }
}

event_struct! {
    /// `STATE_DELTA`: patches the agent state (RFC 6902, applied atomically).
    pub struct StateDeltaEvent = "STATE_DELTA" [attributable] {
        required {
            /// The patch (may be empty).
            delta: JsonPatch = "delta" ("an array of JSON Patch operations"),
        }
        optional {}
    }
}

event_struct! {
    /// `MESSAGES_SNAPSHOT`: the complete set of messages the producer owns, in order.
    /// Conversation-scoped: no `subagentRunId`.
    pub struct MessagesSnapshotEvent = "MESSAGES_SNAPSHOT" [base] {
        required {
            /// Every message the producer owns, in order.
            messages: Vec<Message> = "messages" ("an array of Message objects"),
        }
        optional {}
    }
}
