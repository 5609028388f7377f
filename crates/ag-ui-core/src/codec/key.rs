//! What every reader of the crate shares about keys: reading a key without allocating,
//! prefixing a JSON Pointer segment to an error as it unwinds, and the error for a key
//! given twice. A leaf of `codec` (it uses only `diagnostics`), so that both the wire
//! macros (`codec::wire`) and the reader of undeclared JSON (`codec::skip`) can use it.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

use crate::codec::diagnostics;

// ---------------------------------------------------------------------------
// Pointer segments and error paths
// ---------------------------------------------------------------------------

/// Re-raises `err` with `segment` prepended to its JSON Pointer.
///
/// The segment is noted in the reader's fault record ([`diagnostics::fault_at`]), from which the
/// crate's [`Error`](crate::Error) takes its pointer as data. For callers that use serde_json
/// directly (`serde_json::from_str::<Event>`), the pointer is also written in front of the
/// message: `/messages/0/content: invalid type …`.
#[cold]
pub(crate) fn at<E: de::Error>(err: E, segment: &dyn fmt::Display) -> E {
    let inner = err.to_string();
    let rendered = if inner.starts_with('/') {
        format!("/{segment}{inner}")
    } else {
        format!("/{segment}: {inner}")
    };
    let err = E::custom(&rendered);
    diagnostics::fault_at(&inner, segment, rendered);
    err
}

// ---------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------

/// A map key, borrowed from the input when possible.
pub(crate) enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

/// Reads a key (or a tag value) as a string without allocating when the input allows it.
pub(crate) struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(KeySeed)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Key::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Key::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Key::Owned(v))
    }
}

/// The error for a key given twice.
#[cold]
pub(crate) fn duplicate<E: de::Error>(key: &'static str) -> E {
    at(E::custom("duplicate field; each key may appear once"), &key)
}
