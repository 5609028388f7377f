//! The serde machinery shared by every wire type.
//!
//! Every AG-UI object is read by a hand-written (macro-generated) visitor rather than
//! `#[derive(Deserialize)]`, for three reasons:
//!
//! * **Paths in errors.** A failure inside a field is re-raised with the field's JSON
//!   Pointer segment in front, so the final message starts with the full pointer
//!   (`/messages/0/content: invalid type …`). This costs nothing on success.
//! * **Honest forgiveness.** Unknown fields and `null` in optional fields are accepted, as
//!   the 1.0 receiver does, but each one is reported to the `crate::codec::diagnostics` machinery, which
//!   can list them with pointers or refuse them (exact mode).
//! * **Single-pass dispatch.** Tagged unions read the tag when it is the first key (the
//!   common case) and hand the rest of the map straight to the variant's visitor; only a
//!   late tag buffers the keys before it.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::codec::diagnostics::{self, WarningKind};
use crate::codec::pointer::escape_token;
use crate::codec::write::{Encode, Out, Refused};

/// Largest magnitude of an integer that every JSON peer holds exactly (2^53 − 1).
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

// Pointer segments, error paths and keys: in `codec::key` (a leaf module, so that
// `codec::skip` can use them without importing this module), re-exported here for the
// macros.
pub(crate) use crate::codec::key::{KeySeed, at, duplicate};

// ---------------------------------------------------------------------------
// The `Wire` trait: how one field value is read and written
// ---------------------------------------------------------------------------

/// How a field's value travels: the type read from the wire (`Proxy`) and how it is
/// written. Leaf types are their own proxy; sequences use [`SeqProxy`] so that errors and
/// warnings inside an element name its index; integers use bounded proxies.
pub(crate) trait Wire: Sized {
    /// The type actually deserialized.
    #[doc(hidden)]
    type Proxy: for<'de> Deserialize<'de>;
    /// Converts the proxy into the field value.
    #[doc(hidden)]
    fn from_proxy(p: Self::Proxy) -> Self;
    /// Writes the value (checking any bound the wire imposes).
    #[doc(hidden)]
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error>;
    /// Writes the value with the generated writer: the bytes of [`Wire::write`], or a
    /// refusal wherever it fails.
    #[doc(hidden)]
    fn encode(&self, out: &mut Out<'_>) -> Result<(), Refused>;
    /// Whether an optional field holding this value is left out on write. Only a JSON
    /// `null` in an optional any-JSON field is: the 1.0 schema forbids it there and every
    /// reader takes it for "absent" (spec §2.2), so it is written as absence.
    #[doc(hidden)]
    #[inline]
    fn omitted_when_optional(&self) -> bool {
        false
    }
    /// The id this value is, for an identifier newtype (names the object an error is in).
    #[doc(hidden)]
    #[inline]
    fn as_id(&self) -> Option<&str> {
        None
    }
}

/// Implements [`Wire`] for a type that is its own proxy and serializes as itself.
macro_rules! wire_as_self {
    (id $t:ty) => {
        impl $crate::codec::wire::Wire for $t {
            type Proxy = Self;
            #[inline]
            fn from_proxy(p: Self) -> Self { p }
            #[inline]
            fn write<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                ::serde::Serialize::serialize(self, s)
            }
            #[inline]
            fn encode(&self, out: &mut $crate::codec::write::Out<'_>) -> Result<(), $crate::codec::write::Refused> {
                $crate::codec::write::Encode::encode(self, out)
            }
            #[inline]
            fn as_id(&self) -> Option<&str> {
                Some(self.as_str())
            }
        }
    };
    ($($t:ty),* $(,)?) => {$(
        impl $crate::codec::wire::Wire for $t {
            type Proxy = Self;
            #[inline]
            fn from_proxy(p: Self) -> Self { p }
            #[inline]
            fn write<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                ::serde::Serialize::serialize(self, s)
            }
            #[inline]
            fn encode(&self, out: &mut $crate::codec::write::Out<'_>) -> Result<(), $crate::codec::write::Refused> {
                $crate::codec::write::Encode::encode(self, out)
            }
        }
    )*};
}
pub(crate) use wire_as_self;

wire_as_self!(String, bool);

impl Wire for serde_json::Map<String, Value> {
    type Proxy = JsonObject;
    #[inline]
    fn from_proxy(p: JsonObject) -> Self {
        p.0
    }
    #[inline]
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Serialize::serialize(self, s)
    }
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> Result<(), Refused> {
        Encode::encode(self, out)
    }
}

/// A JSON object of any values, read with a message that says "a JSON object" (positions
/// that must be objects: metadata, activity content, `responseSchema`, `custom`).
pub(crate) struct JsonObject(pub(crate) serde_json::Map<String, Value>);

impl<'de> Deserialize<'de> for JsonObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JsonObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<JsonObject, A::Error> {
                let mut out = serde_json::Map::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    out.insert(k, v);
                }
                Ok(JsonObject(out))
            }
        }
        d.deserialize_map(V)
    }
}

impl Wire for Value {
    type Proxy = Self;
    #[inline]
    fn from_proxy(p: Self) -> Self {
        p
    }
    #[inline]
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Serialize::serialize(self, s)
    }
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> Result<(), Refused> {
        Encode::encode(self, out)
    }
    #[inline]
    fn omitted_when_optional(&self) -> bool {
        self.is_null()
    }
}

/// A member that may only be written beside another one (`encryptedValueType` beside
/// `encryptedValue`, AG-UI 1.1) but is not: writing it is an encoding error, raised inside
/// the member so that the error names its pointer. Holds the wire name of the member it
/// needs.
pub(crate) struct Unpaired(pub(crate) &'static str);

impl Serialize for Unpaired {
    #[cold]
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom(format_args!(
            "set without `{}` (a producer never sends the one without the other)",
            self.0
        )))
    }
}

/// Serializes a [`Wire`] value by reference.
pub(crate) struct W<'a, T>(pub(crate) &'a T);

impl<T: Wire> Serialize for W<'_, T> {
    #[inline]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.write(s)
    }
}

impl<T: Wire> Wire for Vec<T> {
    type Proxy = SeqProxy<T>;
    #[inline]
    fn from_proxy(p: SeqProxy<T>) -> Self {
        p.0
    }
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for item in self {
            seq.serialize_element(&W(item))?;
        }
        seq.end()
    }
    fn encode(&self, out: &mut Out<'_>) -> Result<(), Refused> {
        out.array(self, T::encode)
    }
}

/// A JSON array whose element errors and warnings carry the element's index.
#[doc(hidden)]
pub(crate) struct SeqProxy<T>(pub(crate) Vec<T>);

impl<'de, T: Wire> Deserialize<'de> for SeqProxy<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Wire> Visitor<'de> for V<T> {
            type Value = SeqProxy<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                diagnostics::claim_root_seq();
                let track = diagnostics::collecting();
                let cap = seq.size_hint().unwrap_or(0).min(4096);
                let mut out = Vec::with_capacity(cap);
                loop {
                    let index = out.len();
                    let mark = if track { diagnostics::mark() } else { 0 };
                    let next = seq.next_element::<T::Proxy>();
                    if track {
                        diagnostics::prefix_since(mark, &index);
                    }
                    match next {
                        Ok(Some(p)) => out.push(T::from_proxy(p)),
                        Ok(None) => break,
                        Err(e) => return Err(at(e, &index)),
                    }
                }
                Ok(SeqProxy(out))
            }
        }
        d.deserialize_seq(V(PhantomData))
    }
}

// ---------------------------------------------------------------------------
// Integers within the spec's bounds
// ---------------------------------------------------------------------------

/// Reads an integer in `[min, max]`, accepting a JSON number with a zero fraction
/// (`1000.0`) as both 1.0 SDKs do.
struct BoundedInt {
    min: i64,
    max: i64,
}

impl<'de> Visitor<'de> for BoundedInt {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an integer between {} and {}", self.min, self.max)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
        if v < self.min || v > self.max {
            return Err(E::invalid_value(de::Unexpected::Signed(v), &self));
        }
        Ok(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
        match i64::try_from(v) {
            Ok(v) if v <= self.max => self.visit_i64(v),
            _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<i64, E> {
        // Within ±2^53 every integral f64 converts to i64 exactly.
        #[expect(clippy::cast_possible_truncation, reason = "range checked first")]
        if v.fract() == 0.0 && v.abs() <= MAX_SAFE_INTEGER as f64 {
            return self.visit_i64(v as i64);
        }
        Err(E::invalid_value(de::Unexpected::Float(v), &self))
    }
}

/// The proxy of `i64` fields: an integer in ±(2^53 − 1).
#[doc(hidden)]
pub(crate) struct SafeInt(i64);

impl<'de> Deserialize<'de> for SafeInt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BoundedInt {
            min: -MAX_SAFE_INTEGER,
            max: MAX_SAFE_INTEGER,
        })
        .map(SafeInt)
    }
}

impl Wire for i64 {
    type Proxy = SafeInt;
    #[inline]
    fn from_proxy(p: SafeInt) -> Self {
        p.0
    }
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(self) {
            return Err(serde::ser::Error::custom(format_args!(
                "integer {self} is outside ±(2^53 − 1), the range every AG-UI peer holds exactly"
            )));
        }
        s.serialize_i64(*self)
    }
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> Result<(), Refused> {
        if !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(self) {
            return Err(Refused);
        }
        out.int(*self);
        Ok(())
    }
}

/// The proxy of `u64` fields: an integer in 0 … 2^53 − 1.
#[doc(hidden)]
pub(crate) struct SafeCount(u64);

impl<'de> Deserialize<'de> for SafeCount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BoundedInt {
            min: 0,
            max: MAX_SAFE_INTEGER,
        })
        .map(|v| SafeCount(v.unsigned_abs()))
    }
}

impl Wire for u64 {
    type Proxy = SafeCount;
    #[inline]
    fn from_proxy(p: SafeCount) -> Self {
        p.0
    }
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if *self > MAX_SAFE_INTEGER.unsigned_abs() {
            return Err(serde::ser::Error::custom(format_args!(
                "count {self} is above 2^53 − 1, the largest integer every AG-UI peer holds exactly"
            )));
        }
        s.serialize_u64(*self)
    }
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> Result<(), Refused> {
        if *self > MAX_SAFE_INTEGER.unsigned_abs() {
            return Err(Refused);
        }
        out.int(*self);
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Reading one field inside a struct visitor
// ---------------------------------------------------------------------------

/// Reads a required field's value, with its key in any error and warning path.
#[inline]
pub(crate) fn required<'de, A: MapAccess<'de>, T: Wire>(
    map: &mut A,
    key: &'static str,
    track: bool,
) -> Result<T, A::Error> {
    let mark = if track { diagnostics::mark() } else { 0 };
    let r = map.next_value::<T::Proxy>();
    if track {
        diagnostics::prefix_since(mark, &key);
    }
    match r {
        Ok(p) => Ok(T::from_proxy(p)),
        Err(e) => Err(at(e, &key)),
    }
}

/// What a `null` in an optional field means.
#[derive(Clone, Copy)]
pub(crate) enum OnNull {
    /// Read as absent and reported (the 1.0 receiver's rule for optional fields).
    Absent,
    /// Read as absent; valid even in exact mode (`RunAgentInput.state`).
    State,
    /// Forbidden (`subagentRunId`, spec §6 rule 12): rejected by the exact reader; the
    /// forgiving one reads it as absent and reports `legacy-null` (servers that emit it
    /// on every event exist, and the official client tolerates them).
    Reject,
}

/// Reads an optional field's value (the key is present), applying the `null` policy.
#[inline]
pub(crate) fn optional<'de, A: MapAccess<'de>, T: Wire>(
    map: &mut A,
    key: &'static str,
    on_null: OnNull,
    track: bool,
) -> Result<Option<T>, A::Error> {
    let mark = if track { diagnostics::mark() } else { 0 };
    let r = map.next_value::<Option<T::Proxy>>();
    if track {
        diagnostics::prefix_since(mark, &key);
    }
    match r {
        Ok(Some(p)) => Ok(Some(T::from_proxy(p))),
        Ok(None) => match on_null {
            OnNull::Absent => {
                diagnostics::report(WarningKind::NullAsAbsent, key);
                Ok(None)
            }
            OnNull::State => {
                diagnostics::report(WarningKind::NullState, key);
                Ok(None)
            }
            OnNull::Reject if !diagnostics::strict() => {
                diagnostics::report(WarningKind::LegacyNull, key);
                Ok(None)
            }
            OnNull::Reject => {
                diagnostics::fault_null();
                Err(at(
                    de::Error::custom(
                        "null is not allowed here; omit the field instead (AG-UI 1.0 §6 rule 12)",
                    ),
                    &key,
                ))
            }
        },
        Err(e) => Err(at(e, &key)),
    }
}

/// Skips the value of a key the type does not declare, reporting it.
#[cold]
pub(crate) fn unknown<'de, A: MapAccess<'de>>(
    map: &mut A,
    key: &str,
    kind: WarningKind,
) -> Result<(), A::Error> {
    diagnostics::report(kind, key);
    map.next_value::<crate::codec::skip::Skip>()
        .map(|_| ())
        .map_err(|e| at(e, &escape_token(key)))
}

/// The error for a required field that is missing (reported at the object's pointer).
#[cold]
pub(crate) fn missing<E: de::Error>(key: &'static str, what: &'static str) -> E {
    diagnostics::fault_missing(key);
    E::custom(format_args!("missing required field `{key}` ({what})"))
}

/// Checks a tag that repeats inside an object whose type is already known.
#[cold]
pub(crate) fn check_tag<'de, A: MapAccess<'de>>(
    map: &mut A,
    key: &'static str,
    expected: &'static str,
) -> Result<(), A::Error> {
    let got = map.next_value_seed(KeySeed).map_err(|e| at(e, &key))?;
    if got.as_str() == expected {
        Ok(())
    } else {
        Err(at(
            de::Error::custom(format_args!(
                "expected the constant {expected:?}, found {:?}",
                crate::codec::shown::Shown(got.as_str())
            )),
            &key,
        ))
    }
}

// ---------------------------------------------------------------------------
// Maps whose first entries were already read (late tags)
// ---------------------------------------------------------------------------

/// A map whose leading entries were buffered while looking for the tag, followed by the
/// rest of the original map.
pub(crate) struct Chained<A> {
    buffered: std::vec::IntoIter<(String, Value)>,
    pending: Option<Value>,
    rest: A,
    /// Whether the buffered entries are all handed out (see `diagnostics::late_enter`).
    drained: bool,
}

impl<A> Chained<A> {
    pub(crate) fn new(buffered: Vec<(String, Value)>, rest: A) -> Self {
        diagnostics::late_enter();
        Chained {
            buffered: buffered.into_iter(),
            pending: None,
            rest,
            drained: false,
        }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Chained<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if let Some((k, v)) = self.buffered.next() {
            self.pending = Some(v);
            return seed
                .deserialize(de::value::StringDeserializer::<A::Error>::new(k))
                .map(Some);
        }
        if !self.drained {
            self.drained = true;
            diagnostics::late_leave();
        }
        self.rest.next_key_seed(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match self.pending.take() {
            Some(v) => seed.deserialize(v).map_err(de::Error::custom),
            None => self.rest.next_value_seed(seed),
        }
    }
}

/// The tag value found after other keys (if any), and the entries before it.
pub(crate) type LateTag = (Option<String>, Vec<(String, Value)>);

/// Reads entries until the tag key, buffering the ones before it. Returns the tag value
/// (or `None` when the object has no tag) and the buffered entries.
pub(crate) fn find_late_tag<'de, A: MapAccess<'de>>(
    map: &mut A,
    first_key: String,
    tag_key: &'static str,
) -> Result<LateTag, A::Error> {
    let mut buffered = Vec::new();
    let first_value: Value = map
        .next_value()
        .map_err(|e| at(e, &escape_token(&first_key)))?;
    buffered.push((first_key, first_value));
    while let Some(key) = map.next_key_seed(KeySeed)? {
        if key.as_str() == tag_key {
            let tag = map.next_value_seed(KeySeed).map_err(|e| at(e, &tag_key))?;
            return Ok((Some(tag.as_str().to_owned()), buffered));
        }
        let owned = key.as_str().to_owned();
        let v: Value = map.next_value().map_err(|e| at(e, &escape_token(&owned)))?;
        buffered.push((owned, v));
    }
    Ok((None, buffered))
}

/// The error for an unrecognised tag value of a closed union.
#[cold]
pub(crate) fn unknown_tag<E: de::Error>(
    tag_key: &'static str,
    found: &str,
    union: &'static str,
    expected: &'static [&'static str],
) -> E {
    diagnostics::fault_unknown_tag();
    at(
        E::custom(format_args!(
            "unknown {union} {:?}; expected one of {}",
            crate::codec::shown::Shown(found),
            ExpectedList(expected)
        )),
        &tag_key,
    )
}

/// The error for a union member without its tag.
#[cold]
pub(crate) fn missing_tag<E: de::Error>(
    tag_key: &'static str,
    union: &'static str,
    expected: &'static [&'static str],
) -> E {
    E::custom(format_args!(
        "missing required field `{tag_key}` (the {union} tag, one of {})",
        ExpectedList(expected)
    ))
}

struct ExpectedList(&'static [&'static str]);

impl fmt::Display for ExpectedList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{v:?}")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// The struct macro
// ---------------------------------------------------------------------------

/// Declares a wire object: the struct, its constructor and `with_*` setters, and exact
/// `Serialize` / forgiving `Deserialize` impls.
///
/// ```text
/// wire_struct! {
///     /// docs
///     pub struct Name ["tagKey" = "TAG"] {
///         required { /// doc
///                    field: Type = "wireName" ("what it is"), }
///         optional { /// doc
///                    field / with_field: Type = "wireName" [Absent], }
///     }
/// }
/// ```
macro_rules! wire_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident $([$tagkey:literal = $tagval:literal])? {
            required {
                $(
                    $(#[$rmeta:meta])*
                    $rfield:ident : $rty:ty = $rwire:literal ($rwhat:literal)
                ),* $(,)?
            }
            optional {
                $(
                    $(#[$ometa:meta])*
                    $ofield:ident / $owith:ident : $oty:ty = $owire:literal [$onull:ident]
                ),* $(,)?
            }
            $(open { $open:ident })?
            $(paired { $($pfield:ident = $pwire:literal needs $pbase:ident = $pbwire:literal),* $(,)? })?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        #[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]
        #[cfg_attr(feature = "schemars", schemars(transform = $name::__wire_schema))]
        pub struct $name {
            $(
                $(#[$rmeta])*
                #[cfg_attr(feature = "schemars", schemars(rename = $rwire,
                    transform = $crate::codec::schema::required))]
                pub $rfield: $rty,
            )*
            $(
                $(#[$ometa])*
                #[cfg_attr(feature = "schemars", schemars(rename = $owire,
                    transform = $crate::codec::schema::optional::<$crate::codec::schema::$onull>))]
                pub $ofield: Option<$oty>,
            )*
            $(
                /// Members beyond the declared ones, kept as read and written back after
                /// them (an open object: RFC 6902 §4 for patch operations).
                #[cfg_attr(feature = "schemars", schemars(skip))]
                pub $open: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
            )?
        }

        impl $name {
            /// Creates the value from its required fields; every optional field is absent.
            #[allow(clippy::new_without_default, clippy::too_many_arguments)]
            #[must_use]
            pub fn new($($rfield: impl Into<$rty>),*) -> Self {
                Self {
                    $($rfield: $rfield.into(),)*
                    $($ofield: None,)*
                    $($open: ::serde_json::Map::new(),)?
                }
            }

            $(
                #[doc = concat!("Sets `", $owire, "`.")]
                #[must_use]
                pub fn $owith(mut self, value: impl Into<$oty>) -> Self {
                    self.$ofield = Some(value.into());
                    self
                }
            )*

            /// The definition's name in the schema (the struct's name), as
            /// [`VERSIONED_FIELDS`](crate::VERSIONED_FIELDS) names it.
            #[allow(dead_code)]
            pub(crate) const DEFINITION: &'static str = stringify!($name);

            /// Removes the optional member whose wire name is `wire`; whether it was set
            /// (`false` for a name that is no optional member of this definition).
            #[allow(dead_code)]
            pub(crate) fn take_optional_member(&mut self, wire: &str) -> bool {
                match wire {
                    $($owire => self.$ofield.take().is_some(),)*
                    _ => false,
                }
            }

            /// The wire tag of this type, if it is a member of a tagged union.
            #[allow(dead_code)]
            pub(crate) const WIRE_TAG: Option<(&'static str, &'static str)> =
                $crate::codec::wire::wire_struct!(@tag $($tagkey, $tagval)?);

            /// States the tag and whether the object is closed in the derived schema.
            #[cfg(feature = "schemars")]
            fn __wire_schema(s: &mut ::schemars::Schema) {
                $crate::codec::schema::object(
                    s,
                    Self::WIRE_TAG,
                    $crate::codec::wire::wire_struct!(@tag_doc $($tagkey, $tagval)?),
                    $crate::codec::wire::wire_struct!(@open $($open)?),
                );
            }

            /// Reads the remaining fields of this object from `map`. `tag_read` says whether
            /// the tag has already been consumed by a union dispatcher.
            #[doc(hidden)]
            #[allow(unused_mut, unused_variables)]
            pub fn __from_map<'de, A: ::serde::de::MapAccess<'de>>(
                mut map: A,
                tag_read: bool,
            ) -> Result<Self, A::Error> {
                let track = $crate::codec::diagnostics::collecting();
                let mut tag_seen = tag_read;
                $( let mut $rfield: Option<$rty> = None; )*
                $( let mut $ofield: Option<Option<$oty>> = None; )*
                $( let mut $open = ::serde_json::Map::new(); )?
                // The fields are read in a closure so that an error leaving it can be given
                // the id this object had read (for messages that name the offending item).
                let read = (|| -> Result<(), A::Error> {
                    while let Some(key) = map.next_key_seed($crate::codec::wire::KeySeed)? {
                        match key.as_str() {
                            $(
                                $rwire => {
                                    if $rfield.is_some() {
                                        return Err($crate::codec::wire::duplicate($rwire));
                                    }
                                    $rfield = Some($crate::codec::wire::required::<A, $rty>(&mut map, $rwire, track)?);
                                }
                            )*
                            $(
                                $owire => {
                                    if $ofield.is_some() {
                                        return Err($crate::codec::wire::duplicate($owire));
                                    }
                                    $ofield = Some($crate::codec::wire::optional::<A, $oty>(
                                        &mut map, $owire, $crate::codec::wire::OnNull::$onull, track)?);
                                }
                            )*
                            $(
                                $tagkey => {
                                    if tag_seen {
                                        return Err($crate::codec::wire::duplicate($tagkey));
                                    }
                                    tag_seen = true;
                                    $crate::codec::wire::check_tag(&mut map, $tagkey, $tagval)?;
                                }
                            )?
                            other => {
                                $crate::codec::wire::wire_struct!(@other map, other $(, $open)?);
                            }
                        }
                    }
                    Ok(())
                })();
                read.inspect_err(|_| {
                    $( $crate::codec::wire::wire_struct!(@owner $rwire, $rfield.as_ref()); )*
                    $( $crate::codec::wire::wire_struct!(@owner $owire, $ofield.as_ref().and_then(Option::as_ref)); )*
                })?;
                $(
                    if !tag_seen {
                        return Err($crate::codec::wire::missing($tagkey, concat!("the constant ", stringify!($tagval))));
                    }
                )?
                let absent: Option<(&'static str, &'static str)> = None
                    $( .or(if $rfield.is_none() { Some(($rwire, $rwhat)) } else { None }) )*;
                if let Some((key, what)) = absent {
                    let e = $crate::codec::wire::missing(key, what);
                    $( $crate::codec::wire::wire_struct!(@owner $rwire, $rfield.as_ref()); )*
                    $( $crate::codec::wire::wire_struct!(@owner $owire, $ofield.as_ref().and_then(Option::as_ref)); )*
                    return Err(e);
                }
                Ok(Self {
                    $(
                        $rfield: match $rfield {
                            Some(v) => v,
                            None => return Err($crate::codec::wire::missing($rwire, $rwhat)),
                        },
                    )*
                    $( $ofield: $ofield.flatten(), )*
                    $( $open, )?
                })
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                $($(
                    if self.$pfield.is_some() && self.$pbase.is_none() {
                        m.serialize_entry($pwire, &$crate::codec::wire::Unpaired($pbwire))?;
                    }
                )*)?
                $( m.serialize_entry($tagkey, $tagval)?; )?
                $( m.serialize_entry($rwire, &$crate::codec::wire::W(&self.$rfield))?; )*
                $(
                    if let Some(v) = &self.$ofield
                        && !$crate::codec::wire::Wire::omitted_when_optional(v)
                    {
                        m.serialize_entry($owire, &$crate::codec::wire::W(v))?;
                    }
                )*
                $(
                    for (k, v) in &self.$open {
                        m.serialize_entry(k, v)?;
                    }
                )?
                m.end()
            }
        }

        impl $crate::codec::write::Encode for $name {
            /// The members in the order of the `Serialize` impl above, each key copied whole.
            #[allow(unused_mut, unused_variables)]
            fn encode(&self, out: &mut $crate::codec::write::Out<'_>) -> Result<(), $crate::codec::write::Refused> {
                const _: () = assert!(
                    true $(&& $crate::codec::write::plain($tagkey) && $crate::codec::write::plain($tagval))?
                        $(&& $crate::codec::write::plain($rwire))*
                        $(&& $crate::codec::write::plain($owire))*,
                    "a key or tag the generated writer copies needs escaping"
                );
                $($(
                    if self.$pfield.is_some() && self.$pbase.is_none() {
                        return Err($crate::codec::write::Refused);
                    }
                )*)?
                out.open(b'{')?;
                let mut first = true;
                $(
                    out.key(&mut first, concat!(",\"", $tagkey, "\":\"", $tagval, "\""));
                )?
                $(
                    out.key(&mut first, concat!(",\"", $rwire, "\":"));
                    $crate::codec::wire::Wire::encode(&self.$rfield, out)?;
                )*
                $(
                    if let Some(v) = &self.$ofield
                        && !$crate::codec::wire::Wire::omitted_when_optional(v)
                    {
                        out.key(&mut first, concat!(",\"", $owire, "\":"));
                        $crate::codec::wire::Wire::encode(v, out)?;
                    }
                )*
                $(
                    for (k, v) in &self.$open {
                        out.dyn_key(&mut first, k);
                        $crate::codec::write::Encode::encode(v, out)?;
                    }
                )?
                out.close(b'}');
                Ok(())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> ::serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(concat!("a JSON object (", stringify!($name), ")"))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, map: A) -> Result<$name, A::Error> {
                        $name::__from_map(map, false)
                    }
                }
                d.deserialize_map(V)
            }
        }

        $crate::codec::wire::wire_as_self!($name);
    };
    (@tag $k:literal, $v:literal) => { Some(($k, $v)) };
    (@tag) => { None };
    (@tag_doc $k:literal, $v:literal) => {
        concat!("Always `", $v, "`: the `", $k, "` tag that identifies this object.")
    };
    (@tag_doc) => { "" };
    (@open $extra:ident) => { true };
    (@open) => { false };
    (@other $map:ident, $key:ident, $extra:ident) => {
        let value = ::serde::de::MapAccess::next_value::<::serde_json::Value>(&mut $map)
            .map_err(|e| $crate::codec::wire::at(e, &$crate::codec::pointer::escape_token($key)))?;
        $extra.insert($key.to_owned(), value);
    };
    (@other $map:ident, $key:ident) => {
        $crate::codec::wire::unknown(&mut $map, $key, $crate::codec::diagnostics::WarningKind::UnknownField)?;
    };
    (@owner $wire:expr, $v:expr) => {
        if matches!($wire, "id" | "messageId" | "toolCallId" | "subagentRunId")
            && let Some(id) = $v.and_then($crate::codec::wire::Wire::as_id)
        {
            $crate::codec::diagnostics::fault_owner(id);
        }
    };
}
pub(crate) use wire_struct;

// ---------------------------------------------------------------------------
// The tagged-union macro
// ---------------------------------------------------------------------------

/// Declares a union tagged by `tag_key` whose members are [`wire_struct!`] types carrying
/// the same tag. `Serialize` delegates to the member (which writes its tag first). A
/// variant marked `[boxed]` holds its member in a `Box` (to keep the enum small).
macro_rules! tagged_union {
    (
        $(#[$meta:meta])*
        pub enum $name:ident [$tagkey:literal, $what:literal] {
            $(
                $(#[$vmeta:meta])*
                $variant:ident($inner:ty) = $tag:literal $([$boxed:ident])?
            ),* $(,)?
        }
        $(legacy $legacy:path;)?
    ) => {
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        #[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]
        #[cfg_attr(feature = "schemars", schemars(untagged, transform = $crate::codec::schema::one_of))]
        // After the derive, so that the declaration may add `schemars` attributes.
        $(#[$meta])*
        pub enum $name {
            $(
                $(#[$vmeta])*
                $variant($crate::codec::wire::tagged_union!(@ty $inner $(, $boxed)?)),
            )*
        }

        impl $name {
            /// Every tag value of this union, in declaration order.
            pub const TAGS: &'static [&'static str] = &[$($tag),*];

            /// The tag value this member is written with.
            #[must_use]
            pub fn tag(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => $tag, )*
                }
            }

            #[allow(unreachable_code, unused_variables)]
            fn __dispatch<'de, A: ::serde::de::MapAccess<'de>>(
                tag: &str,
                map: A,
            ) -> Result<Self, A::Error> {
                match tag {
                    $( $tag => <$inner>::__from_map(map, true)
                        .map(|v| Self::$variant(v.into()))
                        .map_err(|e| { $crate::codec::diagnostics::fault_tag($tag); e }), )*
                    other => {
                        $( if let Some(r) = $legacy(other, map) { return r; } )?
                        Err($crate::codec::wire::unknown_tag($tagkey, other, $what, Self::TAGS))
                    }
                }
            }
        }

        $(
            impl From<$inner> for $name {
                fn from(v: $inner) -> Self {
                    Self::$variant(v.into())
                }
            }
        )*

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( Self::$variant(v) => ::serde::Serialize::serialize(v, s), )*
                }
            }
        }

        impl $crate::codec::write::Encode for $name {
            #[inline]
            fn encode(&self, out: &mut $crate::codec::write::Out<'_>) -> Result<(), $crate::codec::write::Refused> {
                match self {
                    $( Self::$variant(v) => $crate::codec::write::Encode::encode(v, out), )*
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> ::serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(concat!("a JSON object (", stringify!($name), ")"))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let Some(first) = map.next_key_seed($crate::codec::wire::KeySeed)? else {
                            return Err($crate::codec::wire::missing_tag($tagkey, $what, $name::TAGS));
                        };
                        if first.as_str() == $tagkey {
                            let tag = map
                                .next_value_seed($crate::codec::wire::KeySeed)
                                .map_err(|e| $crate::codec::wire::at(e, &$tagkey))?;
                            return $name::__dispatch(tag.as_str(), map);
                        }
                        let first = first.as_str().to_owned();
                        let (tag, buffered) = $crate::codec::wire::find_late_tag(&mut map, first, $tagkey)?;
                        match tag {
                            Some(tag) => $name::__dispatch(&tag, $crate::codec::wire::Chained::new(buffered, map)),
                            None => Err($crate::codec::wire::missing_tag($tagkey, $what, $name::TAGS)),
                        }
                    }
                }
                d.deserialize_map(V)
            }
        }

        $crate::codec::wire::wire_as_self!($name);
    };
    (@ty $inner:ty) => { $inner };
    (@ty $inner:ty, boxed) => { Box<$inner> };
    (@ty $inner:ty, inline) => { $inner };
}
pub(crate) use tagged_union;

/// Declares a closed string enumeration: [`closed_enum!`](crate::codec::enums) and
/// [`wire_enum_impls!`].
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident [$what:literal] {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $wire:literal
            ),* $(,)?
        }
    ) => {
        $crate::codec::enums::closed_enum! {
            $(#[$meta])*
            pub enum $name {
                $(
                    $(#[$vmeta])*
                    $variant = $wire
                ),*
            }
        }
        $crate::codec::wire::wire_enum_impls!($name, $what);
    };
}
pub(crate) use wire_enum;

/// Reading, writing and the schema of a closed string enumeration declared with
/// [`closed_enum!`](crate::codec::enums); `$what` names its values in errors.
macro_rules! wire_enum_impls {
    ($name:ident, $what:literal) => {
        impl $name {
            /// States the enumeration in the derived schema.
            #[cfg(feature = "schemars")]
            pub(crate) fn __wire_schema(s: &mut ::schemars::Schema) {
                $crate::codec::schema::string_enum(s, Self::WIRE_NAMES);
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::Error;
            fn from_str(s: &str) -> Result<Self, $crate::Error> {
                Self::from_wire(s).ok_or_else(|| {
                    $crate::Error::invalid(
                        String::new(),
                        format!(
                            "unknown {} {:?}; expected one of {:?}",
                            $what,
                            s,
                            Self::WIRE_NAMES
                        ),
                    )
                })
            }
        }

        impl $crate::codec::write::Encode for $name {
            #[inline]
            fn encode(
                &self,
                out: &mut $crate::codec::write::Out<'_>,
            ) -> Result<(), $crate::codec::write::Refused> {
                out.str(self.as_str());
                Ok(())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let key =
                    ::serde::de::DeserializeSeed::deserialize($crate::codec::wire::KeySeed, d)?;
                $name::from_wire(key.as_str()).ok_or_else(|| {
                    <D::Error as ::serde::de::Error>::custom(format_args!(
                        "unknown {} {:?}; expected one of {:?}",
                        $what,
                        $crate::codec::shown::Shown(key.as_str()),
                        $name::WIRE_NAMES
                    ))
                })
            }
        }

        $crate::codec::wire::wire_as_self!($name);
    };
}
pub(crate) use wire_enum_impls;

// `EventType` is declared below the codec (the codec's errors name it); its codec impls are
// these.
wire_enum_impls!(EventType, "event type");
use crate::codec::event_type::EventType;

impl<T: Wire> Wire for Box<T> {
    type Proxy = T::Proxy;
    #[inline]
    fn from_proxy(p: T::Proxy) -> Self {
        Box::new(T::from_proxy(p))
    }
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).write(s)
    }
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> Result<(), Refused> {
        (**self).encode(out)
    }
    #[inline]
    fn omitted_when_optional(&self) -> bool {
        (**self).omitted_when_optional()
    }
}
