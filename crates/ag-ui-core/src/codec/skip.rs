//! Reading JSON the document does not keep: members a type does not declare, and events
//! of a type this crate does not know.
//!
//! Such JSON is still parsed, not skipped blindly: its strings must be valid UTF-8 without
//! lone surrogate escapes, and it nests at most as deep as any other value (serde_json's
//! recursion limit, which bounds this reader's own recursion too). A document is then
//! well-formed or not whatever this crate knows of its members.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::codec::key::{KeySeed, at, duplicate};
use crate::codec::pointer::escape_token;

/// Any JSON value, parsed in full and dropped.
pub(crate) struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Skip)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i128<E>(self, _: i128) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u128<E>(self, _: u128) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_string<E>(self, _: String) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_none<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Skip, D::Error> {
        Skip::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Skip, D::Error> {
        Skip::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}

/// Reads the rest of a tagged object whose tag value (`tag`, under `tag_key`) names no
/// member of the union: the tag must be a non-empty string given once, and every other
/// member well-formed JSON. Errors carry the member's pointer.
#[cold]
pub(crate) fn rest_of_unknown<'de, A: MapAccess<'de>>(
    tag_key: &'static str,
    tag: &str,
    what: &'static str,
    mut map: A,
) -> Result<(), A::Error> {
    if tag.is_empty() {
        return Err(at(
            de::Error::invalid_value(de::Unexpected::Str(""), &NonEmpty(what)),
            &tag_key,
        ));
    }
    while let Some(key) = map.next_key_seed(KeySeed)? {
        if key.as_str() == tag_key {
            return Err(duplicate(tag_key));
        }
        map.next_value::<Skip>()
            .map_err(|e| at(e, &escape_token(key.as_str())))?;
    }
    Ok(())
}

struct NonEmpty(&'static str);

impl de::Expected for NonEmpty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a non-empty {}", self.0)
    }
}
