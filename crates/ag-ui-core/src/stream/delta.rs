//! The consumer's fast lane for the event most of a stream is made of: a plain
//! `TEXT_MESSAGE_CONTENT` (`type`, `messageId`, `delta` and at most a `timestamp`), read
//! with its strings borrowed from the SSE buffer and appended to its message without
//! building an owned [`Event`](crate::Event).
//!
//! [`peek`] only recognises; it never refuses. Anything else (another type, a late `type`,
//! an escaped id, a duplicate or unknown member, `metadata`, `rawEvent`, `subagentRunId`,
//! a `null`, a timestamp that is not a safe integer, malformed JSON) is `None`, and the
//! document takes the full path, which gives it the same treatment as ever (its warnings,
//! its error). What [`peek`] accepts, the full path decodes without a warning to an event
//! with the same message id and delta, whose other members the stream checks and the
//! reducer do not read; the consumer then runs the same checks and the same append as for
//! that event (`tests/it/consumer.rs` compares both paths on generated and hostile
//! streams).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::codec::wire::MAX_SAFE_INTEGER;

/// A plain `TEXT_MESSAGE_CONTENT`, borrowed from its JSON text.
#[derive(Debug)]
pub(crate) struct TextDelta<'a> {
    /// `messageId`.
    pub(crate) message_id: &'a str,
    /// `delta` (owned only when the JSON escapes something in it).
    pub(crate) delta: Cow<'a, str>,
}

/// The `type` every document [`peek`] accepts starts with.
const TYPE: &str = "TEXT_MESSAGE_CONTENT";

/// Reads `json` as a plain `TEXT_MESSAGE_CONTENT` whose `type` comes first, or says it is
/// not one (`None`). Costs a few byte comparisons for any other event.
pub(crate) fn peek(json: &str) -> Option<TextDelta<'_>> {
    if !starts_as_delta(json.as_bytes()) {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(json);
    let delta = (&mut de).deserialize_map(Plain).ok()?;
    de.end().ok()?;
    Some(delta)
}

/// Whether `json` opens with `{"type":"TEXT_MESSAGE_CONTENT"` (JSON whitespace allowed
/// between the tokens).
fn starts_as_delta(json: &[u8]) -> bool {
    let mut rest = json;
    for token in [&b"{"[..], b"\"type\"", b":", b"\"TEXT_MESSAGE_CONTENT\""] {
        rest = rest.trim_ascii_start();
        match rest.strip_prefix(token) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    true
}

/// Stops a [`peek`]: the document is not a plain delta.
fn not_plain<E: de::Error>() -> E {
    E::custom("not a plain TEXT_MESSAGE_CONTENT")
}

struct Plain;

impl<'de> Visitor<'de> for Plain {
    type Value = TextDelta<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a plain TEXT_MESSAGE_CONTENT")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // `starts_as_delta` saw the type first; it is read again here.
        if map.next_key::<&'de str>()? != Some("type") || map.next_value::<&'de str>()? != TYPE {
            return Err(not_plain());
        }
        let (mut message_id, mut delta, mut timestamp) = (None, None, false);
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "messageId" if message_id.is_none() => {
                    message_id = Some(map.next_value::<&'de str>()?);
                }
                "delta" if delta.is_none() => delta = Some(map.next_value::<Text<'de>>()?.0),
                "timestamp" if !timestamp => {
                    map.next_value::<SafeTimestamp>()?;
                    timestamp = true;
                }
                _ => return Err(not_plain()),
            }
        }
        match (message_id, delta) {
            (Some(message_id), Some(delta)) => Ok(TextDelta { message_id, delta }),
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
    use super::*;

    #[test]
    fn recognises_only_plain_deltas() {
        let plain = [
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}"#,
            r#" { "type" : "TEXT_MESSAGE_CONTENT" , "delta":"hi","messageId":"m"} "#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":-9007199254740991}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","timestamp":9007199254740991,"messageId":"m","delta":"hi"}"#,
        ];
        for json in plain {
            let d = peek(json).expect(json);
            assert_eq!((d.message_id, d.delta.as_ref()), ("m", "hi"), "{json}");
            assert!(matches!(d.delta, Cow::Borrowed(_)), "{json}");
        }
        let escaped = peek(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\"b"}"#)
            .expect("an escaped delta is plain");
        assert_eq!(escaped.delta, "a\"b");
        let not_plain = [
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
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
            r#"[{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}]"#,
        ];
        for json in not_plain {
            assert!(peek(json).is_none(), "{json}");
        }
    }
}
