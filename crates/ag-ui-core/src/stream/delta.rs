//! The consumer's fast lane for the events most of a stream is made of: a plain
//! `TEXT_MESSAGE_CONTENT`, `TOOL_CALL_ARGS` or `REASONING_MESSAGE_CONTENT` (`type`, the id,
//! `delta` and at most a `timestamp`), read with its strings borrowed from the SSE buffer
//! and appended to its message or tool call without building an owned
//! [`Event`](crate::Event).
//!
//! [`peek`] only recognises; it never refuses. Anything else (another type, a late `type`,
//! an escaped id, a duplicate or unknown member, `metadata`, `rawEvent`, `subagentRunId`,
//! a `null`, a timestamp that is not a safe integer, malformed JSON) is `None`, and the
//! document takes the full path, which gives it the same treatment as ever (its warnings,
//! its error). What [`peek`] accepts, the full path decodes without a warning to an event
//! with the same id and delta, whose other members the stream checks and the reducer do
//! not read; the consumer then runs the same checks and the same append as for that event
//! (`tests/it/consumer.rs` and `tests/it/bench_corpus.rs` compare both paths).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use crate::codec::wire::MAX_SAFE_INTEGER;
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

    /// The member holding the id of what the delta continues.
    fn id_key(self) -> &'static str {
        match self {
            DeltaKind::Text | DeltaKind::Reasoning => "messageId",
            DeltaKind::ToolCallArgs => "toolCallId",
        }
    }
}

/// A plain streamed delta, borrowed from its JSON text.
#[derive(Debug)]
pub(crate) struct Delta<'a> {
    /// Which event.
    pub(crate) kind: DeltaKind,
    /// `messageId` or `toolCallId`.
    pub(crate) id: &'a str,
    /// `delta` (owned only when the JSON escapes something in it).
    pub(crate) delta: Cow<'a, str>,
}

/// Reads `json` as a plain streamed delta whose `type` comes first, or says it is not one
/// (`None`). Costs a few byte comparisons for any other event.
pub(crate) fn peek(json: &str) -> Option<Delta<'_>> {
    let kind = kind_of(json.as_bytes())?;
    let mut de = serde_json::Deserializer::from_str(json);
    let delta = Plain(kind).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(delta)
}

/// The kind of delta `json` opens as: `{"type":"<its type>"`, JSON whitespace allowed
/// between the tokens.
fn kind_of(json: &[u8]) -> Option<DeltaKind> {
    let mut rest = json;
    for token in [&b"{"[..], b"\"type\"", b":"] {
        rest = rest.trim_ascii_start().strip_prefix(token)?;
    }
    let rest = rest.trim_ascii_start().strip_prefix(b"\"")?;
    DeltaKind::ALL.into_iter().find(|k| {
        rest.strip_prefix(k.event_type().as_str().as_bytes())
            .is_some_and(|r| r.first() == Some(&b'"'))
    })
}

/// Stops a [`peek`]: the document is not a plain delta.
fn not_plain<E: de::Error>() -> E {
    E::custom("not a plain streamed delta")
}

/// Reads a plain delta of one kind (the kind [`kind_of`] saw).
struct Plain(DeltaKind);

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
        let kind = self.0;
        // `kind_of` saw the type first; it is read again here.
        if map.next_key::<&'de str>()? != Some("type")
            || map.next_value::<&'de str>()? != kind.event_type().as_str()
        {
            return Err(not_plain());
        }
        let (mut id, mut delta, mut timestamp) = (None, None, false);
        while let Some(key) = map.next_key::<&'de str>()? {
            if key == kind.id_key() && id.is_none() {
                id = Some(map.next_value::<&'de str>()?);
            } else if key == "delta" && delta.is_none() {
                delta = Some(map.next_value::<Text<'de>>()?.0);
            } else if key == "timestamp" && !timestamp {
                map.next_value::<SafeTimestamp>()?;
                timestamp = true;
            } else {
                return Err(not_plain());
            }
        }
        match (id, delta) {
            (Some(id), Some(delta)) => Ok(Delta { kind, id, delta }),
            _ => Err(not_plain()),
        }
    }
}

/// A string, borrowed when the JSON holds it unescaped.
struct Text<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A `timestamp` the full path reads without a word: an integer within ±(2^53 − 1).
struct SafeTimestamp;

impl<'de> de::Deserialize<'de> for SafeTimestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = SafeTimestamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a safe integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<SafeTimestamp, E> {
                if v.abs() <= MAX_SAFE_INTEGER {
                    Ok(SafeTimestamp)
                } else {
                    Err(not_plain())
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<SafeTimestamp, E> {
                if v <= MAX_SAFE_INTEGER.unsigned_abs() {
                    Ok(SafeTimestamp)
                } else {
                    Err(not_plain())
                }
            }
        }
        d.deserialize_i64(V)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use crate::stream::delta::{DeltaKind, peek};

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
        ];
        for (json, kind) in plain {
            let d = peek(json).expect(json);
            assert_eq!(
                (d.kind, d.id, d.delta.as_ref()),
                (kind, "m", "hi"),
                "{json}"
            );
            assert!(matches!(d.delta, Cow::Borrowed(_)), "{json}");
        }
        let escaped = peek(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\"b"}"#)
            .expect("an escaped delta is plain");
        assert_eq!(escaped.delta, "a\"b");
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
        ];
        for json in not_plain {
            assert!(peek(json).is_none(), "{json}");
        }
    }
}
