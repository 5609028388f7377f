//! The crate's compact JSON writer, byte-for-byte identical to `serde_json::to_vec`.
//!
//! Two paths write the same bytes. Every AG-UI type has a writer of its own ([`Encode`],
//! generated with the type by the `codec::wire` macros): the constant parts of an object
//! (its opening brace, its tag, each key with its quotes and colon) are copied whole, and
//! only ids, texts and numbers are formatted. Anything else, and any value the generated
//! writer cannot write (an integer beyond ±(2^53 − 1), an invalid JSON Pointer, nesting too
//! deep, a member set without the one it needs), goes through `serde`: a serializer of this
//! crate with a faster string writer, which hands numbers and keys that are not strings to
//! `serde_json` itself (so that the output never differs from it, even under
//! `serde_json`'s `arbitrary_precision` and `raw_value` features, whose marker structs are
//! recognised and written raw as `serde_json` writes them) and whose errors name the JSON
//! Pointer of the offending member.
//!
//! Encoding AG-UI events is mostly writing short strings (keys, ids, text deltas).
//! `serde_json` checks every byte of a string against its escape table one at a time; this
//! writer checks eight bytes at a time and copies runs that need no escape in one go.

use serde::ser::{self, Impossible, Serialize};

use crate::codec::swar::{self, escaped, may_escape};

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

/// Writes `value` as compact JSON at the end of `out` through `serde` (the writer of any
/// `Serialize` type). A value that cannot be written is an encoding error naming the JSON
/// Pointer of the offending member.
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

/// Appends `value`, as compact JSON, to `out`: the way to encode many values into one
/// buffer reused from value to value (an SSE frame buffer, a batch of JSON lines). On an
/// error `out` is left as it was.
///
/// ```
/// use ag_ui_core::{Event, TextMessageContentEvent};
///
/// let mut out = Vec::new();
/// for delta in ["Hel", "lo"] {
///     let event: Event = TextMessageContentEvent::new("m1", delta).into();
///     ag_ui_core::write::append(&mut out, &event)?;
///     out.push(b'\n');
/// }
/// assert_eq!(
///     out,
///     b"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"Hel\"}\n\
///       {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"lo\"}\n"
/// );
/// # Ok::<(), ag_ui_core::Error>(())
/// ```
///
/// # Errors
/// As [`to_string`].
pub fn append<T: Encode + ?Sized>(out: &mut Vec<u8>, value: &T) -> crate::Result<()> {
    let start = out.len();
    let mut to = Out::new(&mut *out);
    if value.encode(&mut to).is_ok() {
        return Ok(());
    }
    out.truncate(start);
    refused(out, start, value)
}

/// What [`append`] does when the generated writer refuses `value`: writes it through
/// `serde`, which names the offending member in its error (and, should it write the value
/// after all, writes the same bytes).
#[cold]
#[inline(never)]
fn refused<T: Serialize + ?Sized>(out: &mut Vec<u8>, start: usize, value: &T) -> crate::Result<()> {
    write(out, value).inspect_err(|_| out.truncate(start))
}

/// Encodes `value` as compact JSON.
fn to_json_vec<T: Encode + ?Sized>(value: &T) -> crate::Result<Vec<u8>> {
    // Most AG-UI events (deltas, starts, ends) encode to fewer than 256 bytes: one
    // allocation, no regrowth.
    let mut out = Vec::with_capacity(256);
    append(&mut out, value)?;
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
pub fn to_string<T: Encode + ?Sized>(value: &T) -> crate::Result<String> {
    let json = to_vec(value)?;
    // The JSON writer only produces UTF-8.
    String::from_utf8(json).map_err(|e| crate::Error::encode(String::new(), e.to_string()))
}

/// Encodes `value` as compact JSON bytes.
///
/// # Errors
/// As [`to_string`].
pub fn to_vec<T: Encode + ?Sized>(value: &T) -> crate::Result<Vec<u8>> {
    to_json_vec(value)
}

// ---------------------------------------------------------------------------
// Encode: the generated writers
// ---------------------------------------------------------------------------

/// A value this crate's writer encodes ([`to_vec`], [`to_string`], [`append`], the SSE
/// framing): every AG-UI type of this crate, `serde_json::Value` and `Map`, strings,
/// booleans, integers and floats, and options, vectors, slices, boxes, references and
/// `Cow`s of them.
///
/// The AG-UI types have writers of their own that write the bytes their `Serialize` impl
/// gives `serde_json`, faster. A `Serialize` type of your own becomes encodable with an
/// empty impl, and is then written through its `Serialize` impl (by this crate's
/// serializer, the same bytes as `serde_json`'s):
///
/// ```
/// use ag_ui_core::{Event, RunStartedEvent};
/// use ag_ui_core::write::Encode;
///
/// #[derive(serde::Serialize)]
/// struct Logged {
///     seq: u64,
///     event: Event,
/// }
/// impl Encode for Logged {}
///
/// let line = Logged { seq: 7, event: RunStartedEvent::new("t1", "r1").into() };
/// assert_eq!(
///     ag_ui_core::write::to_string(&line)?,
///     r#"{"seq":7,"event":{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}}"#
/// );
/// # Ok::<(), ag_ui_core::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a type the AG-UI writer encodes",
    note = "a `Serialize` type of your own becomes one with `impl ag_ui_core::write::Encode for {Self} {{}}`"
)]
pub trait Encode: Serialize {
    /// Appends the value's JSON to `out`, or refuses (for the `serde` writer to name the
    /// problem). The provided method writes through `Serialize`.
    #[doc(hidden)]
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        out.serde(self)
    }
}

/// Where a generated writer writes: the output and how deep it is.
#[doc(hidden)]
#[derive(Debug)]
pub struct Out<'a> {
    buf: &'a mut Vec<u8>,
    /// Arrays and objects open around the value being written.
    depth: usize,
}

/// A generated writer stopped: the value is written again through `serde`, whose error
/// names the problem.
#[doc(hidden)]
#[derive(Debug)]
#[non_exhaustive]
pub struct Refused;

impl<'a> Out<'a> {
    /// Writes at the end of `buf`, outside any array or object.
    pub(crate) fn new(buf: &'a mut Vec<u8>) -> Self {
        Out { buf, depth: 0 }
    }

    /// Appends bytes as they are.
    #[inline]
    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Appends one byte.
    #[inline]
    pub(crate) fn byte(&mut self, byte: u8) {
        self.buf.push(byte);
    }

    /// Appends a JSON string.
    #[inline]
    pub(crate) fn str(&mut self, s: &str) {
        write_str(self.buf, s);
    }

    /// Appends an integer.
    #[inline]
    pub(crate) fn int(&mut self, n: impl itoa::Integer) {
        self.buf
            .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }

    /// Opens an array or object: one level deeper, or refused beyond [`MAX_DEPTH`].
    #[inline]
    pub(crate) fn open(&mut self, bracket: u8) -> std::result::Result<(), Refused> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Refused);
        }
        self.buf.push(bracket);
        Ok(())
    }

    /// Closes what [`Out::open`] opened.
    #[inline]
    pub(crate) fn close(&mut self, bracket: u8) {
        self.buf.push(bracket);
        self.depth -= 1;
    }

    /// Writes `items` as a JSON array, each with `each`.
    #[inline]
    pub(crate) fn array<T>(
        &mut self,
        items: &[T],
        mut each: impl FnMut(&T, &mut Self) -> std::result::Result<(), Refused>,
    ) -> std::result::Result<(), Refused> {
        self.open(b'[')?;
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.byte(b',');
            }
            each(item, self)?;
        }
        self.close(b']');
        Ok(())
    }

    /// Appends a member's `,"key":` (a constant of the type's writer, checked by
    /// [`plain`]), without its comma when it is the object's first member.
    #[inline]
    pub(crate) fn key(&mut self, first: &mut bool, comma_key_colon: &'static str) {
        let bytes = comma_key_colon.as_bytes();
        self.buf.extend_from_slice(if *first {
            bytes.get(1..).unwrap_or_default()
        } else {
            bytes
        });
        *first = false;
    }

    /// Appends a member's key that is data (written as a JSON string).
    #[inline]
    pub(crate) fn dyn_key(&mut self, first: &mut bool, key: &str) {
        if !*first {
            self.buf.push(b',');
        }
        *first = false;
        write_str(self.buf, key);
        self.buf.push(b':');
    }

    /// Writes `value` through `serde` at the current depth.
    #[inline]
    pub(crate) fn serde<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), Refused> {
        let mut w = Writer {
            out: &mut *self.buf,
            depth: self.depth,
            path: Vec::new(),
        };
        value.serialize(&mut w).map_err(|_| Refused)
    }
}

/// Whether `s` can be written between quotes as it is (no `"`, `\` or control
/// character): the constant keys and tags the generated writers copy are checked with
/// it when the crate compiles.
pub(crate) const fn plain(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if escaped(bytes[i]) {
            return false;
        }
        i += 1;
    }
    true
}

impl Encode for str {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        out.str(self);
        Ok(())
    }
}

impl Encode for String {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        out.str(self);
        Ok(())
    }
}

impl Encode for bool {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        out.raw(if *self { b"true" } else { b"false" });
        Ok(())
    }
}

impl Encode for char {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        out.str(self.encode_utf8(&mut [0; 4]));
        Ok(())
    }
}

impl Encode for () {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        out.raw(b"null");
        Ok(())
    }
}

/// Integers, written as `serde_json` writes them (with `itoa`).
macro_rules! encode_integers {
    ($($t:ty),*) => {$(
        impl Encode for $t {
            #[inline]
            fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
                out.int(*self);
                Ok(())
            }
        }
    )*};
}
encode_integers!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

impl Encode for f32 {}
impl Encode for f64 {}

impl<T: Encode> Encode for Option<T> {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        match self {
            Some(v) => v.encode(out),
            None => {
                out.raw(b"null");
                Ok(())
            }
        }
    }
}

impl<T: Encode> Encode for [T] {
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        out.array(self, T::encode)
    }
}

impl<T: Encode> Encode for Vec<T> {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        self.as_slice().encode(out)
    }
}

impl<T: Encode + ?Sized> Encode for Box<T> {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        (**self).encode(out)
    }
}

impl<T: Encode + ?Sized> Encode for &T {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        (**self).encode(out)
    }
}

impl<T: Encode + ?Sized> Encode for &mut T {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        (**self).encode(out)
    }
}

impl<T: Encode + ?Sized + ToOwned> Encode for std::borrow::Cow<'_, T> {
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        (**self).encode(out)
    }
}

impl Encode for serde_json::Value {
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        use serde_json::Value;
        match self {
            Value::Null => out.raw(b"null"),
            Value::Bool(b) => return b.encode(out),
            Value::Number(n) => return n.encode(out),
            Value::String(s) => out.str(s),
            Value::Array(items) => return items.encode(out),
            Value::Object(map) => return map.encode(out),
        }
        Ok(())
    }
}

impl Encode for serde_json::Map<String, serde_json::Value> {
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        out.open(b'{')?;
        let mut first = true;
        for (k, v) in self {
            out.dyn_key(&mut first, k);
            v.encode(out)?;
        }
        out.close(b'}');
        Ok(())
    }
}

impl Encode for serde_json::Number {
    /// Integers with `itoa`, as `serde_json` writes them; floats (and every number when
    /// `serde_json`'s `arbitrary_precision` keeps numbers as their text) by `serde_json`.
    #[inline]
    fn encode(&self, out: &mut Out<'_>) -> std::result::Result<(), Refused> {
        if !numbers_kept_as_text() {
            if let Some(n) = self.as_u64() {
                out.int(n);
                return Ok(());
            }
            if let Some(n) = self.as_i64() {
                out.int(n);
                return Ok(());
            }
        }
        out.serde(self)
    }
}

/// Whether `serde_json` keeps numbers as their text (its `arbitrary_precision` feature,
/// which another crate of the build may turn on): `1.50` then reads back as written.
fn numbers_kept_as_text() -> bool {
    static KEPT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KEPT.get_or_init(|| {
        serde_json::from_str::<serde_json::Number>("1.50").is_ok_and(|n| n.to_string() == "1.50")
    })
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
///
/// Eight bytes a step, each word written as it is read when it holds nothing to escape
/// (a fixed-size copy, no call to `memcpy` for the short strings most events hold); the
/// last one to seven bytes go out as a padded word whose padding is cut off again.
#[inline]
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    // Room for the quotes and the padding of the last word.
    out.reserve(bytes.len() + 10);
    out.push(b'"');
    // `i` is the first byte not written yet.
    let mut i = 0;
    while i < bytes.len() {
        let (word, len) = match bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
            Some(w) => (u64::from_le_bytes(*w), 8),
            None => {
                let rest = bytes.get(i..).unwrap_or_default();
                (swar::tail_word(rest), rest.len())
            }
        };
        let m = may_escape(word);
        if m == 0 {
            out.extend_from_slice(&word.to_le_bytes());
            out.truncate(out.len() - (8 - len));
            i += len;
            continue;
        }
        // The lowest flag is a true one (see `may_escape`); the bytes before it are clean.
        let at = i + (m.trailing_zeros() / 8) as usize;
        out.extend_from_slice(bytes.get(i..at).unwrap_or_default());
        if let Some(&b) = bytes.get(at) {
            write_escape(out, b);
        }
        i = at + 1;
    }
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
            // After earlier output, as inside an object: only what is written is added.
            let mut out = b"{\"k\":".to_vec();
            write_str(&mut out, &s);
            assert_eq!(out[..5], *b"{\"k\":", "{s:?}");
            assert_eq!(out[5..], serde_json::to_vec(&s).expect("encodes"), "{s:?}");
        }
    }

    /// The `serde` path: [`write`] into a new vector.
    fn via_serde<T: Serialize + ?Sized>(value: &T) -> crate::Result<Vec<u8>> {
        let mut out = Vec::new();
        write(&mut out, value).map(|()| out)
    }

    #[test]
    fn values_and_keys_write_as_serde_json_does() {
        use std::collections::BTreeMap;
        let v = serde_json::json!({
            "a": [1, -2, 3.5, 1e300, null, true, false, "x\"y"],
            "nested": {"k\n": {"": []}, "e": {}},
            "big": u64::MAX,
        });
        for ours in [to_vec(&v), via_serde(&v)] {
            assert_eq!(
                ours.expect("encodes"),
                serde_json::to_vec(&v).expect("encodes")
            );
        }
        let int_keys: BTreeMap<i32, Option<f32>> = [(1, Some(0.5)), (-7, None)].into();
        assert_eq!(
            via_serde(&int_keys).expect("encodes"),
            serde_json::to_vec(&int_keys).expect("encodes")
        );
        let bad: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        assert!(via_serde(&bad).is_err());
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
            via_serde(&es).expect("encodes"),
            serde_json::to_vec(&es).expect("encodes")
        );
        assert_eq!(
            via_serde(&f64::NAN).expect("encodes"),
            serde_json::to_vec(&f64::NAN).expect("encodes")
        );
    }

    #[test]
    fn too_deep_is_refused_and_the_fallback_says_where() {
        let mut v = serde_json::Value::Null;
        for _ in 0..MAX_DEPTH {
            v = serde_json::Value::Array(vec![v]);
        }
        assert!(to_vec(&v).is_ok());
        let deeper = serde_json::Value::Array(vec![v]);
        let mut out = b"kept".to_vec();
        let err = append(&mut out, &deeper).expect_err("too deep");
        assert_eq!(out, b"kept", "an error leaves the buffer as it was");
        assert!(err.pointer().is_some_and(|p| p.starts_with("/0/0/0")));
    }
}
