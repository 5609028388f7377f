//! The consumer's fast lane for the events most of a stream is made of: a plain
//! `TEXT_MESSAGE_CONTENT`, `TOOL_CALL_ARGS` or `REASONING_MESSAGE_CONTENT` (`type`, the id,
//! `delta` and at most a `timestamp`), or a plain `TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK` or
//! `REASONING_MESSAGE_CHUNK` (`type`, perhaps the id, `delta`, at most a `timestamp`), read
//! with its strings borrowed from the SSE buffer and appended to its message or tool call
//! without building an owned [`Event`](crate::Event).
//!
//! [`peek`] only recognises; it never refuses. Anything else (another type, a late `type`,
//! an escaped id, a duplicate or unknown member, `metadata`, `rawEvent`, `subagentRunId`, a
//! chunk's opener fields, a `null`, a timestamp the full path does not read as a safe
//! integer, malformed JSON) is `None`, and the document takes the full path, which gives it
//! the same treatment as ever (its warnings, its error). What [`peek`] accepts, the full
//! path decodes without a warning to an event with the same id and delta, whose other
//! members the stream checks and the reducer do not read; the consumer then runs the same
//! checks and the same append as for that event (a chunk only when it continues the stream
//! open in the parent lane, as the content event it expands to), and
//! `tests/it/consumer.rs`, `tests/it/streams.rs` and `tests/it/bench_corpus.rs` compare
//! both paths.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use crate::codec::key::{Key, KeySeed};
use crate::codec::parser;
use crate::codec::wire::SafeInt;
use crate::model::event::EventType;

/// The streamed deltas the fast lane reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeltaKind {
    /// `TEXT_MESSAGE_CONTENT`, by `messageId`.
    Text,
    /// `TOOL_CALL_ARGS`, by `toolCallId`.
    ToolCallArgs,
    /// `REASONING_MESSAGE_CONTENT`, by `messageId`.
    Reasoning,
}

impl DeltaKind {
    const ALL: [DeltaKind; 3] = [
        DeltaKind::Text,
        DeltaKind::ToolCallArgs,
        DeltaKind::Reasoning,
    ];

    /// The event type.
    pub(crate) fn event_type(self) -> EventType {
        match self {
            DeltaKind::Text => EventType::TextMessageContent,
            DeltaKind::ToolCallArgs => EventType::ToolCallArgs,
            DeltaKind::Reasoning => EventType::ReasoningMessageContent,
        }
    }

    /// The chunk abbreviating the event.
    fn chunk_type(self) -> EventType {
        match self {
            DeltaKind::Text => EventType::TextMessageChunk,
            DeltaKind::ToolCallArgs => EventType::ToolCallChunk,
            DeltaKind::Reasoning => EventType::ReasoningMessageChunk,
        }
    }

    /// The member holding the id of what the delta continues.
    fn id_key(self) -> &'static str {
        match self {
            DeltaKind::Text | DeltaKind::Reasoning => "messageId",
            DeltaKind::ToolCallArgs => "toolCallId",
        }
    }
}

/// Which of its two events a plain delta is, with its id (`messageId` or `toolCallId`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape<'a> {
    /// The content event (`TEXT_MESSAGE_CONTENT`, ...), whose id is required.
    Content(&'a str),
    /// The chunk (`TEXT_MESSAGE_CHUNK`, ...), whose id may be absent.
    Chunk(Option<&'a str>),
}

/// A plain streamed delta, borrowed from its JSON text.
pub(crate) struct Delta<'a> {
    /// Which kind of delta.
    pub(crate) kind: DeltaKind,
    /// Content event or chunk, and the id.
    pub(crate) shape: Shape<'a>,
    /// `delta` (owned only when the JSON escapes something in it).
    pub(crate) delta: Key<'a>,
}

/// Reads `json` as a plain streamed delta whose `type` comes first, or says it is not one
/// (`None`). Costs a few byte comparisons for any other event.
pub(crate) fn peek(json: &str) -> Option<Delta<'_>> {
    let (kind, chunk) = kind_of(json.as_bytes())?;
    parser::parse(json, |p| Plain { kind, chunk }.deserialize(p))
}

/// The kind of delta `json` opens as (`{"type":"<its type>"`, JSON whitespace allowed
/// between the tokens), and whether as its chunk.
fn kind_of(json: &[u8]) -> Option<(DeltaKind, bool)> {
    let mut rest = json;
    for token in [&b"{"[..], b"\"type\"", b":"] {
        rest = rest.trim_ascii_start().strip_prefix(token)?;
    }
    let rest = rest.trim_ascii_start().strip_prefix(b"\"")?;
    let named = |t: EventType| {
        rest.strip_prefix(t.as_str().as_bytes())
            .is_some_and(|r| r.first() == Some(&b'"'))
    };
    DeltaKind::ALL.into_iter().find_map(|k| {
        if named(k.event_type()) {
            Some((k, false))
        } else {
            named(k.chunk_type()).then_some((k, true))
        }
    })
}

/// Stops a [`peek`]: the document is not a plain delta.
fn not_plain<E: de::Error>() -> E {
    E::custom("not a plain streamed delta")
}

/// Reads a plain delta of one kind and shape (what [`kind_of`] saw).
struct Plain {
    kind: DeltaKind,
    chunk: bool,
}

impl Plain {
    fn event_type(&self) -> EventType {
        if self.chunk {
            self.kind.chunk_type()
        } else {
            self.kind.event_type()
        }
    }
}

impl<'de> DeserializeSeed<'de> for Plain {
    type Value = Delta<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Plain {
    type Value = Delta<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a plain streamed delta")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let kind = self.kind;
        // `kind_of` saw the type first; it is read again here.
        if map.next_key::<&'de str>()? != Some("type")
            || map.next_value::<&'de str>()? != self.event_type().as_str()
        {
            return Err(not_plain());
        }
        let (mut id, mut delta, mut timestamp) = (None, None, false);
        while let Some(key) = map.next_key::<&'de str>()? {
            if key == kind.id_key() && id.is_none() {
                id = Some(map.next_value::<&'de str>()?);
            } else if key == "delta" && delta.is_none() {
                delta = Some(map.next_value_seed(KeySeed)?);
            } else if key == "timestamp" && !timestamp {
                // The proxy the full path reads `timestamp` with: what it accepts without
                // a word, this accepts.
                map.next_value::<SafeInt>()?;
                timestamp = true;
            } else {
                return Err(not_plain());
            }
        }
        let shape = match (id, self.chunk) {
            (id, true) => Shape::Chunk(id),
            (Some(id), false) => Shape::Content(id),
            (None, false) => return Err(not_plain()),
        };
        match delta {
            Some(delta) => Ok(Delta { kind, shape, delta }),
            None => Err(not_plain()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::codec::key::Key;
    use crate::stream::delta::{DeltaKind, Shape, peek};

    #[test]
    fn recognises_only_plain_deltas() {
        let plain = [
            (
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}"#,
                DeltaKind::Text,
            ),
            (
                r#" { "type" : "TEXT_MESSAGE_CONTENT" , "delta":"hi","messageId":"m"} "#,
                DeltaKind::Text,
            ),
            (
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":-9007199254740991}"#,
                DeltaKind::Text,
            ),
            (
                r#"{"type":"TOOL_CALL_ARGS","timestamp":9007199254740991,"toolCallId":"m","delta":"hi"}"#,
                DeltaKind::ToolCallArgs,
            ),
            (
                r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"m","delta":"hi"}"#,
                DeltaKind::Reasoning,
            ),
            // An integral float, which the full path reads as that integer (as the 1.0
            // SDKs do).
            (
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":1000.0}"#,
                DeltaKind::Text,
            ),
        ];
        for (json, kind) in plain {
            let d = peek(json).expect(json);
            assert_eq!(
                (d.kind, d.shape, d.delta.as_str()),
                (kind, Shape::Content("m"), "hi"),
                "{json}"
            );
            assert!(matches!(d.delta, Key::Borrowed(_)), "{json}");
        }
        let chunks = [
            (
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"hi"}"#,
                DeltaKind::Text,
                Some("m"),
            ),
            (
                r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"hi","timestamp":5}"#,
                DeltaKind::Text,
                None,
            ),
            (
                r#"{"type":"TOOL_CALL_CHUNK","delta":"hi","toolCallId":"m"}"#,
                DeltaKind::ToolCallArgs,
                Some("m"),
            ),
            (
                r#"{"type":"REASONING_MESSAGE_CHUNK","delta":"hi"}"#,
                DeltaKind::Reasoning,
                None,
            ),
        ];
        for (json, kind, id) in chunks {
            let d = peek(json).expect(json);
            assert_eq!(
                (d.kind, d.shape, d.delta.as_str()),
                (kind, Shape::Chunk(id), "hi"),
                "{json}"
            );
        }
        let escaped = peek(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\"b"}"#)
            .expect("an escaped delta is plain");
        assert_eq!(escaped.delta.as_str(), "a\"b");
        let not_plain = [
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
            r#"{"type":"TOOL_CALL_ARGS","messageId":"m","delta":"hi"}"#,
            r#"{"type":"REASONING_MESSAGE_CONTENT","toolCallId":"m","delta":"hi"}"#,
            r#"{"messageId":"m","type":"TEXT_MESSAGE_CONTENT","delta":"hi"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"hi"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"\u006d","delta":"hi"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","delta":"ho"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","type":"TEXT_MESSAGE_CONTENT"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","extra":1}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","metadata":{}}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","subagentRunId":"s"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","rawEvent":{}}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":null}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":1.5}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":9007199254740992}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":null}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":5,"delta":"hi"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"} x"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi""#,
            r#"{"type":"TEXT_MESSAGE_CONTENTS","messageId":"m","delta":"hi"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT\u0020","messageId":"m","delta":"hi"}"#,
            r#"[{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}]"#,
            // A chunk's opener fields, a chunk without a delta, the wrong id member.
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"assistant","delta":"hi"}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK","name":"n","delta":"hi"}"#,
            r#"{"type":"TOOL_CALL_CHUNK","toolCallName":"f","delta":"hi"}"#,
            r#"{"type":"TOOL_CALL_CHUNK","parentMessageId":"p","delta":"hi"}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m"}"#,
            r#"{"type":"TOOL_CALL_CHUNK","messageId":"m","delta":"hi"}"#,
            r#"{"type":"REASONING_MESSAGE_CHUNK","delta":"hi","subagentRunId":"s"}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"hi","metadata":{}}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK","delta":null}"#,
        ];
        for json in not_plain {
            assert!(peek(json).is_none(), "{json}");
        }
    }
}
