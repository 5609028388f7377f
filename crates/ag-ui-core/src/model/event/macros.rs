//! The event-struct macro: a [`wire_struct!`](crate::codec::wire) with the base fields of every
//! event (`timestamp`, `rawEvent`, `metadata`) and, for attributable events, `subagentRunId`
//! and an [`Attributable`](super::Attributable) impl.

macro_rules! event_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident = $tag:literal [attributable] {
            required { $($req:tt)* }
            optional { $($opt:tt)* }
        }
    ) => {
        $crate::model::event::macros::event_struct! {
            $(#[$meta])*
            pub struct $name = $tag [base] {
                required { $($req)* }
                optional {
                    /// Subagent invocation this item belongs to (it produced the event, owns the message or
                    /// raised the interrupt); absent = the parent agent. Never `null`.
                    subagent_run_id / with_subagent_run_id: $crate::SubagentRunId = "subagentRunId" [Reject],
                    $($opt)*
                }
            }
        }

        impl $crate::model::event::Attributable for $name {
            fn subagent_run_id(&self) -> Option<&$crate::SubagentRunId> {
                self.subagent_run_id.as_ref()
            }

            fn set_subagent_run_id(&mut self, subagent_run_id: Option<$crate::SubagentRunId>) {
                self.subagent_run_id = subagent_run_id;
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident = $tag:literal [base] {
            required { $($req:tt)* }
            optional { $($opt:tt)* }
        }
    ) => {
        $crate::codec::wire::wire_struct! {
            $(#[$meta])*
            pub struct $name ["type" = $tag] {
                required { $($req)* }
                optional {
                    /// When the producer created the event (an integer in ±(2^53 − 1); every SDK
                    /// that fills it uses Unix epoch milliseconds).
                    timestamp / with_timestamp: i64 = "timestamp" [Absent],
                    /// The provider-native event this one was translated from, verbatim (any JSON).
                    raw_event / with_raw_event: Box<::serde_json::Value> = "rawEvent" [Absent],
                    /// Open-by-key extra information (spec §2.7).
                    metadata / with_metadata: Box<$crate::Metadata> = "metadata" [Absent],
                    $($opt)*
                }
            }
        }
    };
}
pub(crate) use event_struct;
