//! Every event of AG-UI 1.0 (`Event`, tagged by `type`) and `EventType`.
//!
//! The [`Event`] variants of the less frequent, larger events (`RUN_STARTED`,
//! `RUN_FINISHED`, `SUBAGENT_STARTED`, `TOOL_CALL_START`, `TOOL_CALL_RESULT`, the
//! `TEXT_MESSAGE_CHUNK` and `TOOL_CALL_CHUNK` shorthands, `ACTIVITY_SNAPSHOT`,
//! `ACTIVITY_DELTA`) hold their struct in a `Box`, so that an `Event` is no larger than the
//! frequent small events (a stream held in memory is mostly deltas). Build any variant with
//! `Event::from(x)` or `x.into()`; matching and field access work through the box.

mod activity;
#[cfg(test)]
mod codec_tests;
pub(crate) mod macros;
mod reasoning;
mod run;
mod special;
mod state;
mod step;
mod subagent;
pub(crate) mod table;
mod text_message;
mod tool_call;

pub use reasoning::{ReasoningEncryptedValueSubtype, ReasoningRole};
pub use tool_call::ToolRole;

use serde::de::MapAccess;
use serde_json::Value;

pub use crate::codec::event_type::EventType;

use crate::codec::wire::tagged_union;
use crate::model::id::SubagentRunId;
use crate::model::metadata::Metadata;

/// The five 0.x event types retired in 1.0, with their successors (spec §3.1).
pub const LEGACY_EVENT_TYPES: [(&str, EventType); 5] = [
    ("THINKING_START", EventType::ReasoningStart),
    ("THINKING_END", EventType::ReasoningEnd),
    (
        "THINKING_TEXT_MESSAGE_START",
        EventType::ReasoningMessageStart,
    ),
    (
        "THINKING_TEXT_MESSAGE_CONTENT",
        EventType::ReasoningMessageContent,
    ),
    ("THINKING_TEXT_MESSAGE_END", EventType::ReasoningMessageEnd),
];

/// An event struct that carries the optional `subagentRunId` attribution (the `Attributable`
/// mixin of spec §2.8): every event whose [`EventType::is_attributable`] is true.
///
/// ```
/// use ag_ui_core::{Attributable, SubagentRunId, TextMessageContentEvent};
///
/// fn owned_by<E: Attributable>(mut event: E, owner: &str) -> E {
///     event.set_subagent_run_id(Some(SubagentRunId::from(owner)));
///     event
/// }
/// let e = owned_by(TextMessageContentEvent::new("m1", "Hi"), "sub-1");
/// assert_eq!(e.subagent_run_id.as_ref().map(SubagentRunId::as_str), Some("sub-1"));
/// ```
pub trait Attributable {
    /// The subagent invocation this event belongs to; `None` = the parent agent.
    fn subagent_run_id(&self) -> Option<&SubagentRunId>;
    /// Sets or clears the attribution.
    fn set_subagent_run_id(&mut self, subagent_run_id: Option<SubagentRunId>);
}

/// Defines everything the crate derives from the event table ([`crate::for_each_event!`]).
macro_rules! define_events {
    ([] $($variant:ident($ty:ident) = $wire:literal in $area:ident since $since:ident [$attr:ident, $boxing:ident, $naming:ident],)*) => {
        $(pub use self::$area::$ty;)*

        // The naming rule of the table, checked when the crate compiles: a `prefixed`
        // event's wire name starts with its area's name in upper snake case, and an
        // `exempt` one's does not (so no exemption is left standing without a reason).
        const _: () = {
            $(assert!(
                self::table::naming_holds(stringify!($naming), $wire, stringify!($area)),
                concat!(
                    "event table: ", $wire, " is marked `", stringify!($naming), "` in area `",
                    stringify!($area), "`: a `prefixed` wire name is the area's name in upper \
                    snake case, alone or followed by `_`, an `exempt` one is not"
                )
            );)*
        };

        impl EventType {
            /// The name of this event type's struct, and of its definition in the JSON
            /// Schema (`"TextMessageStartEvent"`, …).
            #[must_use]
            pub const fn definition(self) -> &'static str {
                match self {
                    $(Self::$variant => stringify!($ty),)*
                }
            }

            /// The protocol area of this event type: the module of
            /// [`ag_ui_core::model::event`](crate::model::event) that defines its struct (`"text_message"`,
            /// `"tool_call"`, …).
            #[must_use]
            pub const fn area(self) -> &'static str {
                match self {
                    $(Self::$variant => stringify!($area),)*
                }
            }

            /// Whether events of this type carry the optional `subagentRunId` attribution
            /// (spec §2.8).
            #[must_use]
            pub fn is_attributable(self) -> bool {
                match self {
                    $(Self::$variant => define_events!(@is_attributable $attr),)*
                }
            }
        }

        tagged_union! {
            /// `Event`: one AG-UI event, tagged by `type`.
            ///
            /// Decoding reads `type` first when it is the first key (what every SDK writes) and
            /// goes straight to the event's fields; a late `type` is handled by buffering only the
            /// keys before it. An unknown `type` is an error ([`ErrorKind::UnknownEventType`](crate::ErrorKind::UnknownEventType)
            /// through [`crate::read::decode`]); a stream reader drops it with a warning.
            // The published schema keeps the text of the first release.
            #[cfg_attr(feature = "schemars", schemars(description = "`Event`: one AG-UI event, tagged by `type`.\n\nDecoding reads `type` first when it is the first key (what every SDK writes) and goes straight to the event's fields; a late `type` is handled by buffering only the keys before it. An unknown `type` is an error (`crate::Error::UnknownEventType` through `crate::decode`); a stream reader drops it with a warning."))]
            pub enum Event ["type", "event type"] {
                $(
                    #[doc = concat!("`", $wire, "`.")]
                    $variant($ty) = $wire [$boxing],
                )*
            }
            legacy unknown_event;
        }

        impl Event {
            /// The event's type.
            #[must_use]
            pub fn event_type(&self) -> EventType {
                match self {
                    $(Self::$variant(_) => EventType::$variant,)*
                }
            }

            /// `timestamp`, if set.
            #[must_use]
            pub fn timestamp(&self) -> Option<i64> {
                match self {
                    $(Self::$variant(e) => e.timestamp,)*
                }
            }

            /// Sets or clears `timestamp`.
            pub fn set_timestamp(&mut self, timestamp: Option<i64>) {
                match self {
                    $(Self::$variant(e) => e.timestamp = timestamp,)*
                }
            }

            /// `rawEvent`, if set.
            #[must_use]
            pub fn raw_event(&self) -> Option<&Value> {
                match self {
                    $(Self::$variant(e) => e.raw_event.as_deref(),)*
                }
            }

            /// Sets `rawEvent`, or removes it with `None`.
            pub fn set_raw_event(&mut self, raw_event: Option<Value>) {
                match self {
                    $(Self::$variant(e) => e.raw_event = raw_event.map(Box::new),)*
                }
            }

            /// `metadata`, if set.
            #[must_use]
            pub fn metadata(&self) -> Option<&Metadata> {
                match self {
                    $(Self::$variant(e) => e.metadata.as_deref(),)*
                }
            }

            /// Mutable access to `metadata`, created empty when absent (an empty object is
            /// written as `"metadata":{}`; use [`Event::clear_metadata`] to remove it).
            pub fn metadata_mut(&mut self) -> &mut Metadata {
                match self {
                    $(Self::$variant(e) => e.metadata.get_or_insert_with(Box::default),)*
                }
            }

            /// Sets `metadata`, or removes it with `None`.
            pub fn set_metadata(&mut self, metadata: Option<Metadata>) {
                match self {
                    $(Self::$variant(e) => e.metadata = metadata.map(Box::new),)*
                }
            }

            /// Removes `metadata`, returning it.
            pub fn clear_metadata(&mut self) -> Option<Metadata> {
                match self {
                    $(Self::$variant(e) => e.metadata.take().map(|m| *m),)*
                }
            }

            /// The subagent invocation this event belongs to: the attribution of an
            /// attributable event, or the identity carried by a `SUBAGENT_*` event. `None` =
            /// the parent agent (or a run-scoped event).
            #[must_use]
            pub fn subagent_run_id(&self) -> Option<&SubagentRunId> {
                match self {
                    $(Self::$variant(e) => define_events!(@get e $attr),)*
                }
            }

            /// Sets or clears the `subagentRunId` attribution of an attributable event
            /// ([`EventType::is_attributable`]) and returns `true`. Any other event (run-scoped,
            /// or a `SUBAGENT_*` event, whose `subagentRunId` is its identity) is left unchanged
            /// and the result is `false`.
            #[must_use = "false means the event cannot carry an attribution and was not changed"]
            pub fn set_subagent_run_id(&mut self, subagent_run_id: Option<SubagentRunId>) -> bool {
                match self {
                    $(Self::$variant(e) => define_events!(@set e subagent_run_id $attr),)*
                }
            }
        }
    };
    (@is_attributable attributable) => { true };
    (@is_attributable $other:ident) => { false };
    (@get $e:ident attributable) => { $e.subagent_run_id.as_ref() };
    (@get $e:ident identity) => { Some(&$e.subagent_run_id) };
    (@get $e:ident scoped) => {{ let _ = $e; None }};
    (@set $e:ident $id:ident attributable) => {{ $e.subagent_run_id = $id; true }};
    (@set $e:ident $id:ident $other:ident) => {{ let _ = (&$e, $id); false }};
}

crate::for_each_event!(define_events);

impl EventType {
    /// Whether this is one of the three chunk shorthands expanded by consumers (spec §9.3).
    #[must_use]
    pub fn is_chunk(self) -> bool {
        matches!(
            self,
            Self::TextMessageChunk | Self::ToolCallChunk | Self::ReasoningMessageChunk
        )
    }
}

/// An event type outside the 1.0 set: the rest of the object is still read (it must be
/// well-formed, with one non-empty `type`) before the type is reported as unknown.
#[cold]
fn unknown_event<'de, A: MapAccess<'de>>(tag: &str, map: A) -> Option<Result<Event, A::Error>> {
    if let Err(e) = crate::codec::skip::rest_of_unknown("type", tag, "event type", map) {
        return Some(Err(e));
    }
    let legacy = LEGACY_EVENT_TYPES.iter().find(|(name, _)| *name == tag);
    crate::codec::diagnostics::note_unknown_event(tag, legacy.map(|(_, successor)| *successor));
    if let Some((_, successor)) = legacy {
        return Some(Err(crate::codec::wire::at(
            serde::de::Error::custom(format_args!(
                "{tag} is a 0.x event type retired in AG-UI 1.0 (its successor is {successor}); \
                 read 0.x streams with `EventDecoder`, which translates it"
            )),
            &"type",
        )));
    }
    None
}
