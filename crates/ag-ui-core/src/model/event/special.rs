//! `RAW`, `CUSTOM`.

use serde_json::Value;

use super::macros::event_struct;

event_struct! {
    /// `RAW`: passes a provider-native event through untranslated.
    pub struct RawEvent = "RAW" [attributable] {
        required {
            /// The provider event; any JSON, `null` included.
            event: Value = "event" ("any JSON value, null included"),
        }
        optional {
            /// Provider or framework name.
            source / with_source: String = "source" [Absent],
        }
    }
}

event_struct! {
    /// `CUSTOM`: an application-defined event; its semantics are outside the protocol.
    pub struct CustomEvent = "CUSTOM" [attributable] {
        required {
            /// Application event name, for routing.
            name: String = "name" ("a string"),
            /// Payload; any JSON, `null` included.
            value: Value = "value" ("any JSON value, null included"),
        }
        optional {}
    }
}
