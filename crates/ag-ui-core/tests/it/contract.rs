//! The error contract every reading test checks: an error says where (a pointer that is in
//! the document) and what (a message naming what was expected).

use ag_ui_core::*;
use serde_json::Value;

/// Checks that an error says where and what: a pointer that exists in the document (when
/// the document is well-formed JSON) and a message naming what was expected.
pub(crate) fn error_explains_itself(text: &str, e: &Error) -> Result<(), String> {
    let message = e.to_string();
    if message.is_empty() {
        return Err(format!("empty error message for {text}"));
    }
    let pointer = e.pointer().unwrap_or_default();
    match e.kind() {
        ErrorKind::Invalid | ErrorKind::Syntax => {
            // What follows the place (`… at X (line L, column C): what`).
            let what = message.split_once(": ").map_or("", |(_, what)| what);
            if what.is_empty() {
                return Err(format!("error without a description at {pointer:?}"));
            }
            let explains = [
                "expected",
                "missing",
                "duplicate",
                "must",
                "not allowed",
                "no AG-UI 1.0",
                "retired",
                "unknown",
                "invalid",
                "EOF",
                "trailing",
                "limit",
                "range",
                "surrogate",
                "control character",
                "escape",
                "key must be",
            ]
            .iter()
            .any(|w| what.contains(w));
            if !explains {
                return Err(format!("error does not say what was expected: {message:?}"));
            }
            if e.kind() == ErrorKind::Invalid
                && let Ok(doc) = serde_json::from_str::<Value>(text)
                && doc.pointer(pointer).is_none()
                && !has_duplicate_keys(text)
            {
                return Err(format!(
                    "error points at {pointer:?}, which is not in {text}: {e}"
                ));
            }
        }
        ErrorKind::NotExact => {
            if let Ok(doc) = serde_json::from_str::<Value>(text)
                && doc.pointer(pointer).is_none()
                && !has_duplicate_keys(text)
            {
                return Err(format!(
                    "exact-mode error points at {pointer:?}, not in {text}"
                ));
            }
        }
        // Where the nesting was met is checked by the hostile-input tests.
        ErrorKind::TooDeep => {}
        ErrorKind::UnknownEventType | ErrorKind::LegacyEventType => {
            let event_type = e.event_type().unwrap_or_default();
            if !text.contains(event_type) && !text.contains('\\') {
                return Err(format!(
                    "unknown event type {event_type:?} is not in {text}"
                ));
            }
        }
        _ => return Err(format!("unexpected error kind for a document: {e:?}")),
    }
    Ok(())
}

/// Whether some object of `text` repeats a key. The error of such a document may point
/// into the first of the repeated members, which a parsed `Value` (last one wins) lacks.
fn has_duplicate_keys(text: &str) -> bool {
    use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
    struct Dup;
    impl<'de> serde::de::DeserializeSeed<'de> for Dup {
        type Value = bool;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
            d.deserialize_any(Dup)
        }
    }
    impl<'de> Visitor<'de> for Dup {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_str<E>(self, _: &str) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_unit<E>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            let mut dup = false;
            while let Some(d) = seq.next_element_seed(Dup)? {
                dup |= d;
            }
            Ok(dup)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut seen = std::collections::HashSet::new();
            let mut dup = false;
            while let Some(k) = map.next_key::<String>()? {
                dup |= !seen.insert(k);
                dup |= map.next_value_seed(Dup)?;
            }
            Ok(dup)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    serde::de::DeserializeSeed::deserialize(Dup, &mut de).unwrap_or(false)
}
