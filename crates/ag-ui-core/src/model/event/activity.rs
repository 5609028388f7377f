//! `ACTIVITY_SNAPSHOT`, `ACTIVITY_DELTA`.

use serde_json::{Map, Value};

use super::macros::event_struct;
use crate::model::id::MessageId;
use crate::model::patch::JsonPatch;

event_struct! {
    /// `ACTIVITY_SNAPSHOT`: creates or replaces an activity message.
    pub struct ActivitySnapshotEvent = "ACTIVITY_SNAPSHOT" [attributable] {
        required {
            /// Activity message id.
            message_id: MessageId = "messageId" ("a message id string"),
            /// Producer-defined kind.
            activity_type: String = "activityType" ("a string"),
            /// Full activity payload (a JSON object).
            content: Map<String, Value> = "content" ("a JSON object"),
        }
        optional {
            /// Absent means `true` (overwrite); `false` keeps existing content (see [`Self::replace`]).
            #[cfg_attr(feature = "schemars", schemars(extend("default" = true)))]
            replace / with_replace: bool = "replace" [Absent],
        }
    }
}

impl ActivitySnapshotEvent {
    /// Whether the snapshot overwrites an existing message, with absence read as `true`.
    #[must_use]
    pub fn replace(&self) -> bool {
        self.replace.unwrap_or(true)
    }
}

event_struct! {
    /// `ACTIVITY_DELTA`: patches an activity message's `content`.
    pub struct ActivityDeltaEvent = "ACTIVITY_DELTA" [attributable] {
        required {
            /// Activity message id.
            message_id: MessageId = "messageId" ("a message id string"),
            /// Kind (mirrors the last snapshot).
            activity_type: String = "activityType" ("a string"),
            /// RFC 6902 patch against the activity `content`.
            patch: JsonPatch = "patch" ("an array of JSON Patch operations"),
        }
        optional {}
    }
}
