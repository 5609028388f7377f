//! A compact JSON writer into a `Vec<u8>`, byte-for-byte identical to
//! `serde_json::to_vec`, with a faster string writer.
//!
//! Encoding AG-UI events is mostly writing short strings (keys, ids, text deltas).
//! `serde_json` checks every byte of a string against its escape table one at a time; this
//! writer checks eight bytes at a time and copies runs that need no escape in one go. Map
//! keys that are strings take the same path. Everything else (numbers, and keys that are
//! not strings) is handed to `serde_json` itself, so the output never differs from it,
//! including under `serde_json`'s `arbitrary_precision` and `raw_value` features, whose
//! marker structs are recognised and written raw as `serde_json` writes them.

use serde::ser::{self, Impossible, Serialize};

use crate::codec::swar::{escaped, may_escape};

type Error = serde_json::Error;
type Result<T = ()> = std::result::Result<T, Error>;

/// The marker struct names `serde_json` uses for numbers written verbatim
/// (`arbitrary_precision`) and raw JSON (`raw_value`).
const RAW_MARKERS: [&str; 2] = [
    "$serde_json::private::Number",
    "$serde_json::private::RawValue",
];

/// Levels of arrays and objects the crate's readers accept (serde_json's recursion limit
/// refuses the 128th); the writer refuses to go deeper, so it never writes a document the
/// readers refuse, and it never recurses deeper than this either.
pub(crate) const MAX_DEPTH: usize = 127;

/// Writes `value` as compact JSON at the end of `out`. A value that cannot be written is
/// an encoding error naming the JSON Pointer of the offending member.
pub(crate) fn write<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> crate::Result<()> {
    let mut w = Writer {
        out,
        depth: 0,
        path: Vec::new(),
    };
    match value.serialize(&mut w) {
        Ok(()) => Ok(()),
        Err(e) => Err(encode_error(&e, w.path)),
    }
}

/// The crate's error for `e`, raised below the members `path` names (innermost first).
#[cold]
fn encode_error(e: &Error, mut path: Vec<String>) -> crate::Error {
    path.reverse();
    let mut pointer = String::new();
    for token in &path {
        pointer.push('/');
        pointer.push_str(&crate::codec::pointer::escape_token(token));
    }
    crate::Error::encode(pointer, e.to_string())
}

/// The error for a value nested deeper than [`MAX_DEPTH`].
#[cold]
fn too_deep() -> Error {
    ser::Error::custom(format_args!(
        "arrays and objects nested deeper than {MAX_DEPTH} levels (the limit every AG-UI reader of this crate applies)"
    ))
}

/// Encodes `value` as compact JSON.
fn to_json_vec<T: Serialize + ?Sized>(value: &T) -> crate::Result<Vec<u8>> {
    // Most AG-UI events (deltas, starts, ends) encode to fewer than 256 bytes: one
    // allocation, no regrowth.
    let mut out = Vec::with_capacity(256);
    write(&mut out, value)?;
    Ok(out)
}

/// Encodes `value` as compact JSON (absent optional fields omitted, never `null`).
///
/// # Errors
/// An error of kind [`ErrorKind::Encode`](crate::ErrorKind::Encode) when the value cannot
/// be written as AG-UI 1.0 (an integer beyond ±(2^53 − 1), a count beyond 2^53 − 1, an
/// invalid JSON Pointer, arrays and objects nested deeper than 127 levels), with the JSON
/// Pointer of the offending member ([`Error::pointer`](crate::Error::pointer)).
///
/// ```
/// use ag_ui_core::{Event, RunStartedEvent};
///
/// let event: Event = RunStartedEvent::new("t1", "r1").with_timestamp(1_i64 << 60).into();
/// let err = ag_ui_core::write::to_string(&event).unwrap_err();
/// assert_eq!(err.pointer(), Some("/timestamp"));
/// ```
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> crate::Result<String> {
    let json = to_vec(value)?;
    // The JSON writer only produces UTF-8.
    String::from_utf8(json).map_err(|e| crate::Error::encode(String::new(), e.to_string()))
}

/// Encodes `value` as compact JSON bytes.
///
/// # Errors
/// As [`to_string`].
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> crate::Result<Vec<u8>> {
    to_json_vec(value)
}

// ---------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------

/// Writes one escaped byte (one that [`escaped`] flags).
#[cold]
fn write_escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match byte {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'\x08' => out.extend_from_slice(b"\\b"),
        b'\t' => out.extend_from_slice(b"\\t"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\x0c' => out.extend_from_slice(b"\\f"),
        b'\r' => out.extend_from_slice(b"\\r"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(byte >> 4)],
            HEX[usize::from(byte & 0xf)],
        ]),
    }
}

/// Writes `s` as a JSON string, escaped exactly as `serde_json` escapes it.
#[inline]
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..).and_then(|b| b.first_chunk::<8>()) {
        if may_escape(u64::from_le_bytes(*chunk)) == 0 {
            i += 8;
            continue;
        }
        for _ in 0..8 {
            let b = bytes[i];
            if escaped(b) {
                out.extend_from_slice(&bytes[start..i]);
                write_escape(out, b);
                start = i + 1;
            }
            i += 1;
        }
    }
    if i < bytes.len() {
        // The tail: when the string is at least a word long, its last eight bytes (which
        // overlap bytes already handled) usually show that nothing is left to escape.
        let clean = bytes.len() >= 8
            && bytes[bytes.len() - 8..]
                .first_chunk::<8>()
                .is_some_and(|w| may_escape(u64::from_le_bytes(*w)) == 0);
        if !clean {
            while i < bytes.len() {
                let b = bytes[i];
                if escaped(b) {
                    out.extend_from_slice(&bytes[start..i]);
                    write_escape(out, b);
                    start = i + 1;
                }
                i += 1;
            }
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Writes anything that is not a string through `serde_json` itself.
#[inline]
fn delegate<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result {
    serde_json::to_writer(out, value)
}

// ---------------------------------------------------------------------------
// The serializer
// ---------------------------------------------------------------------------

struct Writer<'a> {
    out: &'a mut Vec<u8>,
    /// Arrays and objects open around the value being written.
    depth: usize,
    /// On the error path only: the reference tokens of the members the error was raised
    /// in, innermost first (each level adds its own as the error passes up).
    path: Vec<String>,
}

/// A map, struct or sequence being written.
struct Compound<'w, 'a> {
    w: &'w mut Writer<'a>,
    /// Items written so far.
    count: usize,
    /// An enum variant's content, wrapped in `{"variant": …}`.
    wrapped: Option<&'static str>,
    /// A `serde_json` marker struct: its one field is written raw.
    raw: bool,
    /// Where the current map key starts in the output (to name it in an error).
    key_start: usize,
}

impl Compound<'_, '_> {
    #[inline]
    fn comma(&mut self) {
        if self.count > 0 {
            self.w.out.push(b',');
        }
        self.count += 1;
    }

    #[inline]
    fn close(self, bracket: u8) {
        self.w.out.push(bracket);
        self.w.depth -= 1;
        if self.wrapped.is_some() {
            self.w.out.push(b'}');
            self.w.depth -= 1;
        }
    }

    /// On the error path: names the member the error was raised in (and the variant
    /// wrapping this compound, if any).
    #[cold]
    fn failed_in(&mut self, token: String) {
        self.w.path.push(token);
        if let Some(variant) = self.wrapped {
            self.w.path.push(variant.to_owned());
        }
    }
}

impl<'w, 'a> Writer<'a> {
    /// Opens an array or object (wrapped in `{"variant": …}` for an enum variant), one
    /// level deeper (two when wrapped).
    #[inline]
    fn open(&'w mut self, bracket: u8, variant: Option<&'static str>) -> Result<Compound<'w, 'a>> {
        self.enter(1 + usize::from(variant.is_some()))?;
        if let Some(v) = variant {
            self.out.push(b'{');
            write_str(self.out, v);
            self.out.push(b':');
        }
        self.out.push(bracket);
        Ok(Compound {
            w: self,
            count: 0,
            wrapped: variant,
            raw: false,
            key_start: 0,
        })
    }

    /// Goes `levels` deeper, or refuses to go beyond [`MAX_DEPTH`].
    #[inline]
    fn enter(&mut self, levels: usize) -> Result {
        self.depth += levels;
        if self.depth > MAX_DEPTH {
            return Err(too_deep());
        }
        Ok(())
    }
}

impl<'w, 'a> ser::Serializer for &'w mut Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'w, 'a>;
    type SerializeTuple = Compound<'w, 'a>;
    type SerializeTupleStruct = Compound<'w, 'a>;
    type SerializeTupleVariant = Compound<'w, 'a>;
    type SerializeMap = Compound<'w, 'a>;
    type SerializeStruct = Compound<'w, 'a>;
    type SerializeStructVariant = Compound<'w, 'a>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result {
        delegate(self.out, &v)
    }
    fn serialize_i16(self, v: i16) -> Result {
        delegate(self.out, &v)
    }
    fn serialize_i32(self, v: i32) -> Result {
        delegate(self.out, &v)
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> Result {
        delegate(self.out, &v)
    }
    fn serialize_i128(self, v: i128) -> Result {
        delegate(self.out, &v)
    }
    fn serialize_u8(self, v: u8) -> Result {
        delegate(self.out, &v)
    }
    fn serialize_u16(self, v: u16) -> Result {
        delegate(self.out, &v)
    }
    fn serialize_u32(self, v: u32) -> Result {
        delegate(self.out, &v)
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> Result {
        delegate(self.out, &v)
    }
    fn serialize_u128(self, v: u128) -> Result {
        delegate(self.out, &v)
    }
    fn serialize_f32(self, v: f32) -> Result {
        delegate(self.out, &v)
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result {
        delegate(self.out, &v)
    }
    fn serialize_char(self, v: char) -> Result {
        write_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result {
        write_str(self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result {
        delegate(self.out, &v)
    }
    #[inline]
    fn serialize_none(self) -> Result {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.enter(1)?;
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.push(b':');
        if let Err(e) = value.serialize(&mut *self) {
            self.path.push(variant.to_owned());
            return Err(e);
        }
        self.out.push(b'}');
        self.depth -= 1;
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        self.open(b'[', None)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        self.open(b'[', None)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        self.open(b'[', None)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        self.open(b'[', Some(variant))
    }
    #[inline]
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        self.open(b'{', None)
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        if RAW_MARKERS.contains(&name) {
            return Ok(Compound {
                w: self,
                count: 0,
                wrapped: None,
                raw: true,
                key_start: 0,
            });
        }
        self.open(b'{', None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        self.open(b'{', Some(variant))
    }
}

impl ser::SerializeSeq for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.comma();
        let r = value.serialize(&mut *self.w);
        if r.is_err() {
            self.failed_in((self.count - 1).to_string());
        }
        r
    }
    #[inline]
    fn end(self) -> Result {
        self.close(b']');
        Ok(())
    }
}

impl ser::SerializeTuple for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        self.comma();
        self.key_start = self.w.out.len();
        key.serialize(MapKey { out: self.w.out })
    }
    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        let key_end = self.w.out.len();
        self.w.out.push(b':');
        let r = value.serialize(&mut *self.w);
        if r.is_err() {
            // The key as written: a JSON string.
            let key = self.w.out.get(self.key_start..key_end).unwrap_or_default();
            let key = serde_json::from_slice::<String>(key).unwrap_or_default();
            self.failed_in(key);
        }
        r
    }
    #[inline]
    fn end(self) -> Result {
        self.close(b'}');
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        if self.raw {
            return value.serialize(RawStr { out: self.w.out });
        }
        self.comma();
        write_str(self.w.out, key);
        self.w.out.push(b':');
        let r = value.serialize(&mut *self.w);
        if r.is_err() {
            self.failed_in(key.to_owned());
        }
        r
    }
    fn end(self) -> Result {
        if !self.raw {
            self.close(b'}');
        }
        Ok(())
    }
}

impl ser::SerializeStructVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result {
        ser::SerializeStruct::end(self)
    }
}

// ---------------------------------------------------------------------------
// Map keys: strings on the fast path, anything else exactly as serde_json writes it
// ---------------------------------------------------------------------------

struct MapKey<'a> {
    out: &'a mut Vec<u8>,
}

/// A one-entry map whose key is `K`, to let `serde_json` write a key that is not a string
/// (an integer, a boolean, …) or refuse it with its own error.
struct KeyOnly<K>(K);

impl<K: Serialize> Serialize for KeyOnly<K> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use ser::SerializeMap;
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(&self.0, &())?;
        m.end()
    }
}

impl MapKey<'_> {
    /// Writes `key` as `serde_json` writes it as a map key.
    #[cold]
    fn via_serde_json<K: Serialize>(self, key: K) -> Result {
        let entry = serde_json::to_vec(&KeyOnly(key))?;
        // `{<key>:null}`
        let inner = &entry[1..entry.len() - ":null}".len()];
        self.out.extend_from_slice(inner);
        Ok(())
    }
}

macro_rules! key_via_serde_json {
    ($($method:ident($t:ty)),* $(,)?) => {$(
        fn $method(self, v: $t) -> Result {
            self.via_serde_json(v)
        }
    )*};
}

impl ser::Serializer for MapKey<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    #[inline]
    fn serialize_str(self, v: &str) -> Result {
        write_str(self.out, v);
        Ok(())
    }

    key_via_serde_json! {
        serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_i128(i128), serialize_u8(u8), serialize_u16(u16),
        serialize_u32(u32), serialize_u64(u64), serialize_u128(u128), serialize_f32(f32),
        serialize_f64(f64), serialize_char(char), serialize_bytes(&[u8]),
    }

    fn serialize_none(self) -> Result {
        self.via_serde_json(Option::<()>::None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        self.via_serde_json(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result {
        self.via_serde_json(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
}

#[cold]
fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

/// Writes the one field of a `serde_json` marker struct verbatim (it is a string holding
/// JSON text that `serde_json` produced or checked).
struct RawStr<'a> {
    out: &'a mut Vec<u8>,
}

impl ser::Serializer for RawStr<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result {
        self.out.extend_from_slice(v.as_bytes());
        Ok(())
    }

    fn serialize_bool(self, _: bool) -> Result {
        Err(not_raw())
    }
    fn serialize_i8(self, _: i8) -> Result {
        Err(not_raw())
    }
    fn serialize_i16(self, _: i16) -> Result {
        Err(not_raw())
    }
    fn serialize_i32(self, _: i32) -> Result {
        Err(not_raw())
    }
    fn serialize_i64(self, _: i64) -> Result {
        Err(not_raw())
    }
    fn serialize_u8(self, _: u8) -> Result {
        Err(not_raw())
    }
    fn serialize_u16(self, _: u16) -> Result {
        Err(not_raw())
    }
    fn serialize_u32(self, _: u32) -> Result {
        Err(not_raw())
    }
    fn serialize_u64(self, _: u64) -> Result {
        Err(not_raw())
    }
    fn serialize_f32(self, _: f32) -> Result {
        Err(not_raw())
    }
    fn serialize_f64(self, _: f64) -> Result {
        Err(not_raw())
    }
    fn serialize_char(self, _: char) -> Result {
        Err(not_raw())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result {
        Err(not_raw())
    }
    fn serialize_none(self) -> Result {
        Err(not_raw())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result {
        Err(not_raw())
    }
    fn serialize_unit(self) -> Result {
        Err(not_raw())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result {
        Err(not_raw())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result {
        Err(not_raw())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result {
        Err(not_raw())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result {
        Err(not_raw())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(not_raw())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(not_raw())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(not_raw())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(not_raw())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(not_raw())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(not_raw())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(not_raw())
    }
}

#[cold]
fn not_raw() -> Error {
    ser::Error::custom("expected the raw JSON text of a serde_json marker struct")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_as_serde_json_does() {
        let mut all: String = (0u8..0x80).map(char::from).collect();
        all.push_str("é日本🚀\u{7f}\u{2028}");
        let mut cases = vec![
            String::new(),
            "a".into(),
            "12345678".into(),
            "1234567\"".into(),
            "\"1234567".into(),
            "abcdefgh\\ijklmnop\n".into(),
            "naïve café \u{1}\u{1f} tab\tend".into(),
            all.clone(),
        ];
        for i in 0..all.len() {
            if all.is_char_boundary(i) {
                cases.push(all[i..].to_owned());
                cases.push(all[..i].to_owned());
            }
        }
        for s in cases {
            let mut out = Vec::new();
            write_str(&mut out, &s);
            assert_eq!(out, serde_json::to_vec(&s).expect("encodes"), "{s:?}");
        }
    }

    #[test]
    fn values_and_keys_write_as_serde_json_does() {
        use std::collections::BTreeMap;
        let v = serde_json::json!({
            "a": [1, -2, 3.5, 1e300, null, true, false, "x\"y"],
            "nested": {"k\n": {"": []}, "e": {}},
            "big": u64::MAX,
        });
        assert_eq!(
            to_vec(&v).expect("encodes"),
            serde_json::to_vec(&v).expect("encodes")
        );
        let int_keys: BTreeMap<i32, Option<f32>> = [(1, Some(0.5)), (-7, None)].into();
        assert_eq!(
            to_vec(&int_keys).expect("encodes"),
            serde_json::to_vec(&int_keys).expect("encodes")
        );
        let bad: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        assert!(to_vec(&bad).is_err());
        assert!(serde_json::to_vec(&bad).is_err());
        #[derive(serde::Serialize)]
        enum E {
            Unit,
            New(u8),
            Tuple(u8, char),
            Struct { f: (u8, bool) },
        }
        let es = vec![
            E::Unit,
            E::New(1),
            E::Tuple(2, 'c'),
            E::Struct { f: (3, true) },
        ];
        assert_eq!(
            to_vec(&es).expect("encodes"),
            serde_json::to_vec(&es).expect("encodes")
        );
        assert_eq!(
            to_vec(&f64::NAN).expect("encodes"),
            serde_json::to_vec(&f64::NAN).expect("encodes")
        );
    }
}
