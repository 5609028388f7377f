//! The crate's own JSON parser: a `serde` deserializer over UTF-8 text that every text
//! reader of the crate tries first.
//!
//! On the documents it reads, it calls the visitors exactly as `serde_json`'s deserializer
//! (with the `float_roundtrip` feature this crate turns on) calls them: the same `visit_*`
//! method with the same value, borrowed strings where `serde_json` borrows them, the same
//! recursion limit. It is faster because it does less: no error positions, errors that
//! carry nothing, a scratch buffer for escaped strings kept from document to document, and
//! runs of `\u` escapes decoded in one loop.
//!
//! What it does not read the same way, it does not read at all: malformed JSON, a number
//! `serde_json` would refuse or parse another way (`f32`, 128-bit integers, infinities),
//! a lone surrogate escape, the marker names of `serde_json`'s `RawValue`, enum
//! representations, byte buffers, keys that are not read as strings. Every such case is
//! [`Bail`], after which the reader reads the document again with `serde_json`, whose
//! verdict (and error message) stands. So is any error a visitor raises: only a document
//! that decodes without one is taken from this parser. This module's tests compare the two
//! parsers' visitor calls on generated, damaged and edge-case documents;
//! `model/event/codec_tests.rs` reads every valid event of the fixtures with both.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Visitor};

use crate::codec::swar::find_escaped;

/// Nesting levels of arrays and objects, as `serde_json` counts them: the 128th is refused.
const RECURSION_LIMIT: u8 = 128;

/// The longest scratch buffer kept for the next document (longer ones are dropped).
const KEPT_SCRATCH: usize = 64 * 1024;

thread_local! {
    /// The scratch buffer for escaped strings, kept between documents.
    static SCRATCH: Cell<String> = const { Cell::new(String::new()) };
}

/// Why the parser stopped: the document is left to `serde_json`. Carries nothing, so that
/// an error costs nothing to make.
#[derive(Debug)]
pub(crate) struct Bail;

impl fmt::Display for Bail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("left to serde_json")
    }
}

impl std::error::Error for Bail {}

impl de::Error for Bail {
    #[cold]
    fn custom<T: fmt::Display>(_: T) -> Self {
        Bail
    }
}

type Result<T> = std::result::Result<T, Bail>;

/// Reads `text` as one `T` with `read` (a whole document: only whitespace may follow it),
/// or returns `None` when the document is left to `serde_json`.
pub(crate) fn parse<'de, T>(
    text: &'de str,
    read: impl FnOnce(&mut Parser<'de>) -> Result<T>,
) -> Option<T> {
    let mut parser = Parser::new(text);
    match read(&mut parser) {
        Ok(value) if !parser.failed && parser.peek().is_none() => Some(value),
        _ => None,
    }
}

/// A position in a JSON document.
pub(crate) struct Parser<'de> {
    text: &'de str,
    pos: usize,
    /// Levels of nesting left before the recursion limit.
    depth: u8,
    /// Escaped strings are unescaped here (the thread's kept buffer, taken at the first
    /// escape).
    scratch: String,
    /// Whether the parser itself refused something (a visitor that swallows an error does
    /// not make the document the parser's to read).
    failed: bool,
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // Only a document with an escaped string took the buffer.
        if self.scratch.capacity() != 0 && self.scratch.capacity() <= KEPT_SCRATCH {
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            // After the thread's locals are gone (a parse in another local's destructor)
            // the buffer is simply dropped.
            let _ = SCRATCH.try_with(|s| s.set(scratch));
        }
    }
}

/// A string read from the document.
enum Str<'de> {
    /// No escapes: a slice of the document.
    Borrowed(&'de str),
    /// Unescaped into the scratch buffer.
    Scratch,
}

impl<'de> Parser<'de> {
    fn new(text: &'de str) -> Self {
        Parser {
            text,
            pos: 0,
            depth: RECURSION_LIMIT,
            scratch: String::new(),
            failed: false,
        }
    }

    /// Stops: the document is left to `serde_json`.
    #[cold]
    fn fail<T>(&mut self) -> Result<T> {
        self.failed = true;
        Err(Bail)
    }

    /// The next byte after whitespace, not consumed.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        // Compact JSON (what producers send) has none.
        if let Some(&b) = bytes.get(self.pos)
            && b > b' '
        {
            return Some(b);
        }
        self.skip_whitespace()
    }

    /// [`Parser::peek`] past whitespace.
    #[cold]
    fn skip_whitespace(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Consumes `word` (the rest of `null`, `true` or `false`).
    #[inline]
    fn word(&mut self, word: &[u8]) -> Result<()> {
        if self.text.as_bytes().get(self.pos..self.pos + word.len()) == Some(word) {
            self.pos += word.len();
            Ok(())
        } else {
            self.fail()
        }
    }

    /// Goes one level deeper.
    #[inline]
    fn enter(&mut self) -> Result<()> {
        self.depth -= 1;
        if self.depth == 0 {
            return self.fail();
        }
        Ok(())
    }

    // -----------------------------------------------------------------------
    // Strings
    // -----------------------------------------------------------------------

    /// Reads a string whose opening quote is consumed.
    #[inline]
    fn string(&mut self) -> Result<Str<'de>> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let end = find_escaped(bytes, start);
        match bytes.get(end) {
            Some(b'"') => match self.text.get(start..end) {
                Some(s) => {
                    self.pos = end + 1;
                    Ok(Str::Borrowed(s))
                }
                None => self.fail(),
            },
            Some(b'\\') => self.escaped_string(start, end),
            _ => self.fail(),
        }
    }

    /// Reads the rest of a string holding an escape at `escape` into the scratch buffer.
    #[cold]
    fn escaped_string(&mut self, start: usize, mut escape: usize) -> Result<Str<'de>> {
        let text = self.text;
        let bytes = text.as_bytes();
        if self.scratch.capacity() == 0 {
            self.scratch = SCRATCH.try_with(Cell::take).unwrap_or_default();
        }
        self.scratch.clear();
        let mut run = start;
        loop {
            // `escape` is at a backslash; `run..escape` holds no escape.
            match text.get(run..escape) {
                Some(s) => self.scratch.push_str(s),
                None => return self.fail(),
            }
            let mut i = escape;
            // A run of escapes, one after the other (`\u4e2d\u6587`, as producers that
            // escape everything outside ASCII write text).
            while bytes.get(i) == Some(&b'\\') {
                let Some(&kind) = bytes.get(i + 1) else {
                    return self.fail();
                };
                let c = match kind {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\x08',
                    b'f' => '\x0c',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => match unicode_escape(bytes, i) {
                        Some((c, len)) => {
                            self.scratch.push(c);
                            i += len;
                            continue;
                        }
                        None => return self.fail(),
                    },
                    _ => return self.fail(),
                };
                self.scratch.push(c);
                i += 2;
            }
            run = i;
            escape = find_escaped(bytes, i);
            match bytes.get(escape) {
                Some(b'"') => {
                    match text.get(run..escape) {
                        Some(s) => self.scratch.push_str(s),
                        None => return self.fail(),
                    }
                    self.pos = escape + 1;
                    return Ok(Str::Scratch);
                }
                Some(b'\\') => {}
                _ => return self.fail(),
            }
        }
    }

    /// Reads a string (after whitespace, its quote not yet consumed) and hands it to
    /// `visitor` as `serde_json` does: borrowed when it holds no escape.
    #[inline]
    fn str_to<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        if self.peek() != Some(b'"') {
            return self.fail();
        }
        self.quoted_to(visitor)
    }

    /// [`Parser::str_to`] at the opening quote.
    #[inline]
    fn quoted_to<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.pos += 1;
        match self.string()? {
            Str::Borrowed(s) => visitor.visit_borrowed_str(s),
            Str::Scratch => visitor.visit_str(&self.scratch),
        }
    }

    // -----------------------------------------------------------------------
    // Numbers
    // -----------------------------------------------------------------------

    /// Reads a number (at its first byte: `-` or a digit) and hands it to `visitor` as
    /// `serde_json` does: `u64` for a non-negative integer that fits, `i64` for a negative
    /// one, `f64` for everything else (`-0`, integers beyond 64 bits, fractions,
    /// exponents), rounded to the nearest double.
    #[inline]
    fn number<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let negative = bytes.get(start) == Some(&b'-');
        let mut i = start + usize::from(negative);
        let mut significand: u64 = match bytes.get(i) {
            Some(b'0') => {
                i += 1;
                if bytes.get(i).is_some_and(u8::is_ascii_digit) {
                    return self.fail();
                }
                0
            }
            Some(&d @ b'1'..=b'9') => {
                i += 1;
                u64::from(d - b'0')
            }
            _ => return self.fail(),
        };
        // Up to 19 digits fit in a u64 whatever they are; only longer numbers are checked.
        let digits_from = i - usize::from(significand != 0);
        while let Some(&d) = bytes.get(i) {
            if !d.is_ascii_digit() {
                break;
            }
            significand = significand
                .wrapping_mul(10)
                .wrapping_add(u64::from(d - b'0'));
            i += 1;
        }
        let overflow = i - digits_from > 19 && !fits_u64(&bytes[digits_from..i]);
        let fraction_or_exponent = matches!(bytes.get(i), Some(b'.' | b'e' | b'E'));
        if !overflow && !fraction_or_exponent {
            self.pos = i;
            if !negative {
                return visitor.visit_u64(significand);
            }
            #[expect(
                clippy::cast_possible_wrap,
                reason = "serde_json's rule: a wrapped (non-negative) result means the value does not fit"
            )]
            let value = (significand as i64).wrapping_neg();
            if value < 0 {
                return visitor.visit_i64(value);
            }
            #[expect(clippy::cast_precision_loss, reason = "-0 and values below i64::MIN")]
            return visitor.visit_f64(-(significand as f64));
        }
        self.float(start, i, visitor)
    }

    /// Reads the rest of a number that is a double (`start` is its first byte, `i` the
    /// first byte after its integer part).
    #[cold]
    fn float<V: Visitor<'de>>(
        &mut self,
        start: usize,
        mut i: usize,
        visitor: V,
    ) -> Result<V::Value> {
        let bytes = self.text.as_bytes();
        let digits = |i: &mut usize| {
            let from = *i;
            while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > from
        };
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            if !digits(&mut i) {
                return self.fail();
            }
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !digits(&mut i) {
                return self.fail();
            }
        }
        // The standard library rounds to the nearest double, as serde_json's
        // `float_roundtrip` does; an infinity is serde_json's "number out of range".
        match self.text.get(start..i).map(str::parse::<f64>) {
            Some(Ok(f)) if f.is_finite() => {
                self.pos = i;
                visitor.visit_f64(f)
            }
            _ => self.fail(),
        }
    }

    // -----------------------------------------------------------------------
    // Containers
    // -----------------------------------------------------------------------

    /// Reads an array whose `[` is at the current position.
    #[inline]
    fn array<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        self.pos += 1;
        let value = visitor.visit_seq(Seq {
            parser: self,
            first: true,
        })?;
        self.leave(b']', value)
    }

    /// Reads an object whose `{` is at the current position.
    #[inline]
    fn object<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        self.pos += 1;
        let value = visitor.visit_map(Map {
            parser: self,
            first: true,
        })?;
        self.leave(b'}', value)
    }

    /// Leaves the array or object whose contents the visitor read: one level up, past its
    /// closing `bracket`.
    #[inline]
    fn leave<T>(&mut self, bracket: u8, value: T) -> Result<T> {
        self.depth += 1;
        if self.peek() == Some(bracket) {
            self.pos += 1;
            Ok(value)
        } else {
            self.fail()
        }
    }
}

/// Whether the decimal digits `digits` (no leading zero) are at most `u64::MAX`.
#[cold]
fn fits_u64(digits: &[u8]) -> bool {
    const MAX: &[u8] = b"18446744073709551615";
    digits.len() < MAX.len() || (digits.len() == MAX.len() && digits <= MAX)
}

/// Reads the `\uXXXX` escape at `i` (and the low surrogate's escape after a high one):
/// the character and the bytes read. `None` for bad hex digits and lone surrogates.
#[inline]
fn unicode_escape(bytes: &[u8], i: usize) -> Option<(char, usize)> {
    let unit = hex4(bytes.get(i + 2..i + 6)?)?;
    match unit {
        0xD800..=0xDBFF => {
            if bytes.get(i + 6..i + 8)? != b"\\u" {
                return None;
            }
            let low = hex4(bytes.get(i + 8..i + 12)?)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return None;
            }
            let c = char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?;
            Some((c, 12))
        }
        0xDC00..=0xDFFF => None,
        _ => Some((char::from_u32(unit)?, 6)),
    }
}

/// Four hex digits as a number.
#[inline]
fn hex4(digits: &[u8]) -> Option<u32> {
    /// Each byte's value as a hex digit, or `0xff`.
    const HEX: [u8; 256] = {
        let mut table = [0xff; 256];
        let mut i = 0;
        while i < 10 {
            table[b'0' as usize + i] = i as u8;
            i += 1;
        }
        let mut i = 0;
        while i < 6 {
            table[b'a' as usize + i] = 10 + i as u8;
            table[b'A' as usize + i] = 10 + i as u8;
            i += 1;
        }
        table
    };
    let [a, b, c, d] = *digits.first_chunk::<4>()?;
    let [a, b, c, d] = [a, b, c, d].map(|x| HEX[usize::from(x)]);
    if (a | b | c | d) & 0xf0 != 0 {
        return None;
    }
    Some(u32::from(a) << 12 | u32::from(b) << 8 | u32::from(c) << 4 | u32::from(d))
}

// ---------------------------------------------------------------------------
// The deserializer
// ---------------------------------------------------------------------------

/// Implements the `deserialize_*` methods the parser leaves to `serde_json`.
macro_rules! bail {
    ($($method:ident ( $($arg:ident : $ty:ty),* );)*) => {$(
        #[cold]
        fn $method<V: Visitor<'de>>(self, $(_: $ty,)* _: V) -> Result<V::Value> {
            self.fail()
        }
    )*};
}

/// Implements the `deserialize_*` methods of numbers.
macro_rules! numbers {
    ($($method:ident)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.peek() {
                Some(b'-' | b'0'..=b'9') => self.number(visitor),
                _ => self.fail(),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Parser<'de> {
    type Error = Bail;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'"') => {
                self.pos += 1;
                match self.string()? {
                    Str::Borrowed(s) => visitor.visit_borrowed_str(s),
                    Str::Scratch => visitor.visit_str(&self.scratch),
                }
            }
            Some(b'-' | b'0'..=b'9') => self.number(visitor),
            Some(b'{') => self.object(visitor),
            Some(b'[') => self.array(visitor),
            Some(b'n') => self.deserialize_unit(visitor),
            Some(b't' | b'f') => self.deserialize_bool(visitor),
            _ => self.fail(),
        }
    }

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b't') => {
                self.word(b"true")?;
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.word(b"false")?;
                visitor.visit_bool(false)
            }
            _ => self.fail(),
        }
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_f64
    }

    #[inline]
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str_to(visitor)
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str_to(visitor)
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str_to(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek() == Some(b'n') {
            self.word(b"null")?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    #[inline]
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek() == Some(b'n') {
            self.word(b"null")?;
            visitor.visit_unit()
        } else {
            self.fail()
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name.starts_with("$serde_json::") {
            return self.fail();
        }
        visitor.visit_newtype_struct(self)
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek() == Some(b'[') {
            self.array(visitor)
        } else {
            self.fail()
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek() == Some(b'{') {
            self.object(visitor)
        } else {
            self.fail()
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.peek() {
            Some(b'{') => self.object(visitor),
            Some(b'[') => self.array(visitor),
            _ => self.fail(),
        }
    }

    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str_to(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_any(&mut *self, de::IgnoredAny)?;
        visitor.visit_unit()
    }

    bail! {
        deserialize_i128();
        deserialize_u128();
        deserialize_f32();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }
}

/// The elements of an array.
struct Seq<'a, 'de> {
    parser: &'a mut Parser<'de>,
    first: bool,
}

impl<'de> de::SeqAccess<'de> for Seq<'_, 'de> {
    type Error = Bail;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.parser.peek() {
            Some(b']') => return Ok(None),
            Some(_) if self.first => self.first = false,
            Some(b',') => {
                self.parser.pos += 1;
                match self.parser.peek() {
                    Some(b']') | None => return self.parser.fail(),
                    Some(_) => {}
                }
            }
            _ => return self.parser.fail(),
        }
        seed.deserialize(&mut *self.parser).map(Some)
    }
}

/// The members of an object.
struct Map<'a, 'de> {
    parser: &'a mut Parser<'de>,
    first: bool,
}

impl<'de> de::MapAccess<'de> for Map<'_, 'de> {
    type Error = Bail;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.parser.peek() {
            Some(b'}') => return Ok(None),
            Some(b'"') if self.first => self.first = false,
            Some(b',') if !self.first => {
                self.parser.pos += 1;
                if self.parser.peek() != Some(b'"') {
                    return self.parser.fail();
                }
            }
            _ => return self.parser.fail(),
        }
        seed.deserialize(Key {
            parser: &mut *self.parser,
        })
        .map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        if self.parser.peek() != Some(b':') {
            return self.parser.fail();
        }
        self.parser.pos += 1;
        seed.deserialize(&mut *self.parser)
    }
}

/// An object's key (the parser at its opening quote): read as a string, as `serde_json`
/// reads keys.
struct Key<'a, 'de> {
    parser: &'a mut Parser<'de>,
}

impl<'de> de::Deserializer<'de> for Key<'_, 'de> {
    type Error = Bail;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.parser.quoted_to(visitor)
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.parser.quoted_to(visitor)
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.parser.quoted_to(visitor)
    }

    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.parser.quoted_to(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.parser.quoted_to(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.parser.quoted_to(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name.starts_with("$serde_json::") {
            return self.parser.fail();
        }
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        unit unit_struct seq tuple tuple_struct map struct
    }

    bail! {
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }
}

impl Key<'_, '_> {
    #[cold]
    fn fail<T>(self) -> Result<T> {
        self.parser.fail()
    }
}

#[cfg(test)]
mod tests {
    //! The parser against `serde_json`: the same visitor calls on every document the parser
    //! reads, and nothing read that `serde_json` refuses.

    use std::fmt::{self, Write as _};

    use proptest::prelude::*;
    use serde::de::{
        self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
    };

    use super::parse;

    /// Every visitor call a document makes through `deserialize_any`, in order, with what
    /// it was given: borrowed (`B`), copied (`S`) or owned (`O`) strings apart, floats by
    /// their bits.
    #[derive(Debug, PartialEq)]
    struct Trace(String);

    impl<'de> Deserialize<'de> for Trace {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let mut log = String::new();
            Step(&mut log).deserialize(d)?;
            Ok(Trace(log))
        }
    }

    struct Step<'a>(&'a mut String);

    impl<'de> DeserializeSeed<'de> for Step<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Step<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("anything")
        }
        fn visit_bool<E>(self, v: bool) -> Result<(), E> {
            let _ = write!(self.0, "b{v} ");
            Ok(())
        }
        fn visit_u64<E>(self, v: u64) -> Result<(), E> {
            let _ = write!(self.0, "u{v} ");
            Ok(())
        }
        fn visit_i64<E>(self, v: i64) -> Result<(), E> {
            let _ = write!(self.0, "i{v} ");
            Ok(())
        }
        fn visit_f64<E>(self, v: f64) -> Result<(), E> {
            let _ = write!(self.0, "f{:x} ", v.to_bits());
            Ok(())
        }
        fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
            let _ = write!(self.0, "B{v:?} ");
            Ok(())
        }
        fn visit_str<E>(self, v: &str) -> Result<(), E> {
            let _ = write!(self.0, "S{v:?} ");
            Ok(())
        }
        fn visit_string<E>(self, v: String) -> Result<(), E> {
            let _ = write!(self.0, "O{v:?} ");
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            self.0.push_str("n ");
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            self.0.push_str("[ ");
            while seq.next_element_seed(Step(&mut *self.0))?.is_some() {}
            self.0.push_str("] ");
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            self.0.push_str("{ ");
            while map.next_key_seed(Step(&mut *self.0))?.is_some() {
                self.0.push_str(": ");
                map.next_value_seed(Step(&mut *self.0))?;
            }
            self.0.push_str("} ");
            Ok(())
        }
    }

    /// The parser's trace of `text`, or `None` when it leaves the document to serde_json.
    fn own(text: &str) -> Option<Trace> {
        parse(text, |p| Trace::deserialize(p))
    }

    /// Checks the parser against serde_json on `text`: whatever the parser reads, serde_json
    /// reads to the same trace. Returns whether the parser read it.
    fn agrees(text: &str) -> bool {
        let theirs = serde_json::from_str::<Trace>(text);
        match own(text) {
            Some(ours) => {
                // serde_json must read it too, to the same trace.
                assert_eq!(
                    theirs.map_err(|e| e.to_string()).as_ref(),
                    Ok(&ours),
                    "{text:?}"
                );
                true
            }
            None => false,
        }
    }

    #[test]
    fn reads_what_serde_json_reads_the_same_way() {
        let read = [
            "null",
            "true",
            "false",
            "0",
            "-0",
            "7",
            "-7",
            "1.5",
            "-1.5",
            "1e3",
            "1E+3",
            "1e-3",
            "-0.0",
            "0e0",
            "2.5e-400",
            "-2.5e-400",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "123456789012345678901234567890.5e-3",
            "0.1",
            "0.30000000000000004",
            "9007199254740993",
            "1.7976931348623157e308",
            "4.9e-324",
            "2.2250738585072011e-308",
            "\"\"",
            "\"abc\"",
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u0041\u00e9\u4e2d\ud83d\ude00""#,
            r#""\uD83D\uDE00x""#,
            "\"é中😀\"",
            r#""x\u0000y""#,
            "[]",
            "[1,2,3]",
            " [ 1 , [ ] , { } ] ",
            "{}",
            r#"{"a":1,"b":[true,null],"a":2}"#,
            "\t\n\r {\"k\" : \"v\" } \n",
            r#"{"\u006b":"\u0076"}"#,
        ];
        for text in read {
            assert!(agrees(text), "the parser left {text:?} to serde_json");
        }
    }

    #[test]
    fn leaves_to_serde_json_what_it_does_not_read() {
        let left = [
            "",
            " ",
            "nul",
            "tru",
            "01",
            "-",
            "+1",
            ".5",
            "1.",
            "1.e5",
            "1e",
            "1e+",
            "--1",
            "1e400",
            "-1e400",
            "NaN",
            "\"abc",
            "\"a\u{1}b\"",
            r#""\x""#,
            r#""\u12""#,
            r#""\ud83d""#,
            r#""\ude00""#,
            r#""\ud83d\u0041""#,
            "[1,]",
            "[1 2]",
            "[,1]",
            "{,}",
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{1:2}"#,
            r#"{"a":1"#,
            "[",
            "]",
            "1 2",
            "{}x",
        ];
        for text in left {
            assert!(!agrees(text), "the parser read {text:?}");
        }
        // The recursion limit is serde_json's: 127 levels read, the 128th refused.
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(agrees(&deep(127)));
        assert!(!agrees(&deep(128)));
    }

    /// A JSON text of any shape, with its numbers, strings and whitespace written in any of
    /// the ways JSON allows.
    fn document() -> impl Strategy<Value = String> {
        let ws = prop::sample::select(vec!["", "", "", " ", "\n", "\t", "\r\n  "]);
        let number = prop_oneof![
            any::<i64>().prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| format!("{f:?}")),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| format!("{f:e}")),
            (
                "-?",
                "[1-9][0-9]{0,30}",
                "(\\.[0-9]{1,25})?",
                "([eE][+-]?[0-9]{1,3})?"
            )
                .prop_map(|(s, i, f, e)| format!("{s}{i}{f}{e}")),
        ];
        let string = prop::collection::vec((any::<char>(), 0..4u8), 0..12).prop_map(|chars| {
            let mut out = String::from("\"");
            for (c, style) in chars {
                match (c, style) {
                    ('"', _) => out.push_str("\\\""),
                    ('\\', _) => out.push_str("\\\\"),
                    (c, _) if u32::from(c) < 0x20 => {
                        let _ = write!(out, "\\u{:04x}", u32::from(c));
                    }
                    (c, 0) => {
                        let mut units = [0u16; 2];
                        for unit in c.encode_utf16(&mut units) {
                            let _ = write!(out, "\\u{unit:04X}");
                        }
                    }
                    ('\n', 1) => out.push_str("\\n"),
                    ('/', 1) => out.push_str("\\/"),
                    (c, _) => out.push(c),
                }
            }
            out.push('"');
            out
        });
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            number,
            string.clone(),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            let ws = ws.clone();
            prop_oneof![
                (
                    prop::collection::vec((inner.clone(), ws.clone()), 0..6),
                    ws.clone()
                )
                    .prop_map(|(items, w)| {
                        let items: Vec<String> = items
                            .into_iter()
                            .map(|(v, w)| format!("{w}{v}{w}"))
                            .collect();
                        format!("[{w}{}]", items.join(","))
                    }),
                (
                    prop::collection::vec((string.clone(), inner, ws.clone()), 0..6),
                    ws
                )
                    .prop_map(|(members, w)| {
                        let members: Vec<String> = members
                            .into_iter()
                            .map(|(k, v, w)| format!("{w}{k}{w}:{w}{v}{w}"))
                            .collect();
                        format!("{{{w}{}}}", members.join(","))
                    }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Every generated document is read by the parser (none of them holds what it leaves
        /// to serde_json: an out-of-range number, a lone surrogate, nesting too deep), with
        /// serde_json's trace.
        #[test]
        fn generated_documents_are_read_as_serde_json_reads_them(text in document()) {
            let out_of_range = serde_json::from_str::<Trace>(&text).is_err();
            prop_assert!(agrees(&text) || out_of_range, "left {text:?}");
        }

        /// Numbers in every form JSON allows, many near the edges of double precision:
        /// the same visitor call with the same value (a double to the bit).
        #[test]
        fn numbers_are_read_to_the_bit(
            text in ("-?", "(0|[1-9][0-9]{0,40})", "(\\.[0-9]{1,40})?", "([eE][+-]?[0-9]{1,3})?")
                .prop_map(|(s, i, f, e)| format!("{s}{i}{f}{e}")),
        ) {
            let out_of_range = serde_json::from_str::<Trace>(&text).is_err();
            prop_assert!(agrees(&text) || out_of_range, "left {text:?}");
        }

        /// Damaged documents: whatever the parser still reads, serde_json reads the same way.
        #[test]
        fn damaged_documents_are_never_read_otherwise(
            text in document(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0..4u8, prop::sample::select(
                vec!['"', '\\', ',', ':', '[', ']', '{', '}', '0', '-', '.', 'e', 'u', ' ', 'x', '\u{1}', 'é']
            )), 1..4),
        ) {
            let mut chars: Vec<char> = text.chars().collect();
            for (at, op, c) in edits {
                if chars.is_empty() {
                    chars.push(c);
                    continue;
                }
                let i = at.index(chars.len());
                match op {
                    0 => { chars.remove(i); }
                    1 => chars.insert(i, c),
                    2 => chars[i] = c,
                    _ => chars.truncate(i),
                }
            }
            let text: String = chars.into_iter().collect();
            agrees(&text);
        }
    }

    /// The scratch buffer is kept from one document to the next, and a long one is not.
    #[test]
    fn keeps_a_short_scratch_buffer_between_documents() {
        let _ = own(r#""\n""#);
        assert!(super::SCRATCH.with(|s| {
            let kept = s.take();
            let cap = kept.capacity();
            s.set(kept);
            cap > 0
        }));
        let long = format!("\"\\n{}\"", "x".repeat(super::KEPT_SCRATCH + 1));
        let _ = own(&long);
        assert_eq!(super::SCRATCH.with(|s| s.take().capacity()), 0);
    }

    #[test]
    fn bail_is_an_error_without_a_message_to_build() {
        let e = <super::Bail as de::Error>::custom("anything");
        assert_eq!(e.to_string(), "left to serde_json");
    }
}
