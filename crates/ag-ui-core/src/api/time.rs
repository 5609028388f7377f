//! Times in the threads API's JSON: RFC 3339 in UTC with milliseconds
//! (`2026-12-06T12:00:00.000Z`), read back by any RFC 3339 reader.

/// A `SystemTime` as an RFC 3339 string.
pub(crate) mod rfc3339 {
    use std::time::SystemTime;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&humantime::format_rfc3339_millis(*t))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        humantime::parse_rfc3339_weak(&text).map_err(|e| {
            serde::de::Error::custom(format_args!("{text:?} is not an RFC 3339 time: {e}"))
        })
    }
}

/// An `Option<SystemTime>` as an RFC 3339 string or `null`.
pub(crate) mod rfc3339_option {
    use std::time::SystemTime;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        t: &Option<SystemTime>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => super::rfc3339::serialize(t, s),
            None => s.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<SystemTime>, D::Error> {
        let Some(text) = Option::<std::borrow::Cow<'_, str>>::deserialize(d)? else {
            return Ok(None);
        };
        humantime::parse_rfc3339_weak(&text).map(Some).map_err(|e| {
            serde::de::Error::custom(format_args!("{text:?} is not an RFC 3339 time: {e}"))
        })
    }
}
