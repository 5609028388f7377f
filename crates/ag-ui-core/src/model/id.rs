//! Identifier newtypes.
//!
//! AG-UI ids are opaque strings: any string is valid, the empty string included, and
//! nothing requires a UUID. Each kind of id gets its own type so that a message id cannot
//! be passed where a tool-call id is expected; all of them are written as plain JSON
//! strings. With the `uuid` feature (on by default), `MessageId::random` and friends mint UUID
//! v4 ids for producers that want them.

macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]
        #[expect(clippy::exhaustive_structs, reason = "an id is exactly one string, forever")]
        pub struct $name(pub String);

        impl $name {
            /// Wraps a string; every string is a valid id.
            #[must_use]
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            /// Mints a random (UUID v4) id.
            #[cfg(feature = "uuid")]
            #[cfg_attr(docsrs, doc(cfg(feature = "uuid")))]
            #[must_use]
            pub fn random() -> Self {
                Self($crate::model::id::random_uuid())
            }

            /// The id as a string slice.
            #[must_use]
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id as an owned string.
            #[must_use]
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s)
            }
        }

        impl From<&String> for $name {
            fn from(s: &String) -> Self {
                Self(s.clone())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl ::std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl $crate::codec::write::Encode for $name {
            #[inline]
            fn encode(&self, out: &mut $crate::codec::write::Out<'_>) -> Result<(), $crate::codec::write::Refused> {
                out.str(&self.0);
                Ok(())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d).map(Self)
            }
        }

        $crate::codec::wire::wire_as_self!(id $name);
    };
}

id_type! {
    /// Id of a conversation (`threadId`); a resume reuses the interrupted run's thread.
    ThreadId
}
id_type! {
    /// Id of one run of an agent (`runId`, `parentRunId`).
    RunId
}
id_type! {
    /// Id of a message (`messageId`, `Message.id`), also of a reasoning span.
    MessageId
}
id_type! {
    /// Id of a tool call (`toolCallId`, `ToolCall.id`).
    ToolCallId
}
id_type! {
    /// Id of an interrupt (`Interrupt.id`, `ResumeEntry.interruptId`).
    InterruptId
}
id_type! {
    /// Opaque id of one subagent invocation (`subagentRunId`): attribution on events,
    /// messages and interrupts, identity on the `SUBAGENT_*` events.
    SubagentRunId
}

/// A random UUID v4 as text: the one place the crate mints a random id (the `random()`
/// constructors and the 0.x translation's default generator).
#[cfg(feature = "uuid")]
pub(crate) fn random_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}
