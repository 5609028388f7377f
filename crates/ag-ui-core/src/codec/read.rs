//! Reading AG-UI JSON: plain, forgiving-with-warnings, and exact.
//!
//! Every type's `Deserialize` impl is the **forgiving** 1.0 receiver: it accepts what the
//! official TypeScript validator accepts, reads `null` in an optional field as absent and
//! ignores unknown fields. [`decode`] runs the same impls and also reports what was forgiven
//! ([`Warning`], with a JSON Pointer), or — in [`ReadMode::Exact`] — refuses it, accepting
//! precisely what the 1.0 JSON Schema accepts.
//!
//! Clean input (the common case) is decoded once; only a document that needed forgiving is
//! decoded a second time to collect the pointers of what was forgiven.

use serde::de::DeserializeOwned;

use crate::codec::diagnostics::{self, Fault, Pass};
pub use crate::codec::diagnostics::{Warning, WarningKind};
use crate::codec::error::{Error, Repr};
use crate::codec::parser;
use crate::codec::pointer::escape_token;
use crate::codec::root::Root;

/// How strictly [`decode`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ReadMode {
    /// The 1.0 receiver: unknown fields skipped, optional `null`s read as absent, legacy 0.x
    /// shapes translated; each reported as a [`Warning`].
    #[default]
    Forgiving,
    /// Exactly what the 1.0 JSON Schema accepts: closed objects, no optional `null`s, no
    /// legacy shapes. The first offence is an [`ErrorKind::NotExact`](crate::ErrorKind::NotExact).
    Exact,
}

/// A decoded value and what was forgiven to decode it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Decoded<T> {
    /// The value.
    pub value: T,
    /// What the forgiving reader accepted, in document order (empty on clean input): the
    /// first [`MAX_WARNINGS`].
    pub warnings: Vec<Warning>,
    /// How many more warnings there were, counted but not listed (a document with a
    /// million unknown members gets a hundred warnings and this count, not a million).
    pub omitted_warnings: usize,
}

impl<T> Decoded<T> {
    /// A value decoded without anything to forgive.
    #[inline]
    pub(crate) fn clean(value: T) -> Self {
        Decoded {
            value,
            warnings: Vec::new(),
            omitted_warnings: 0,
        }
    }
}

pub use crate::codec::diagnostics::MAX_WARNINGS;

// ---------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------

/// Decodes `T` from JSON text as the forgiving 1.0 receiver does, with errors that name
/// the JSON Pointer of the offending member.
///
/// # Errors
/// [`ErrorKind::Syntax`](crate::ErrorKind::Syntax) for malformed JSON, [`ErrorKind::Invalid`](crate::ErrorKind::Invalid) for a document that breaks the
/// 1.0 shape, [`ErrorKind::UnknownEventType`](crate::ErrorKind::UnknownEventType) for an event `type` that is none of AG-UI 1.0's.
pub fn from_str<T: DeserializeOwned>(json: &str) -> Result<T, Error> {
    // `decode`, without wrapping a clean document's value in `Decoded` and taking it out.
    match first_pass(Text::Str(json), ReadMode::Forgiving) {
        Ok(value) => Ok(value),
        Err(missed) => match decode_rest(json, ReadMode::Forgiving, missed) {
            Ok(d) => Ok(d.value),
            Err(r) => Err(r.error),
        },
    }
}

/// [`from_str`] over bytes (which must be UTF-8).
///
/// # Errors
/// As [`from_str`].
pub fn from_slice<T: DeserializeOwned>(json: &[u8]) -> Result<T, Error> {
    match first_pass(Text::Slice(json), ReadMode::Forgiving) {
        Ok(value) => Ok(value),
        Err(missed) => slice_rest(json, ReadMode::Forgiving, missed).map(|d| d.value),
    }
}

/// Decodes `T` from JSON text in `mode`, reporting what was forgiven.
///
/// # Errors
/// As [`from_str`], plus [`ErrorKind::NotExact`](crate::ErrorKind::NotExact) in [`ReadMode::Exact`] when the document is
/// outside the 1.0 schema (an unknown field, an optional `null`, a legacy shape).
pub fn decode<T: DeserializeOwned>(json: &str, mode: ReadMode) -> Result<Decoded<T>, Error> {
    match first_pass(Text::Str(json), mode) {
        Ok(value) => Ok(Decoded::clean(value)),
        Err(missed) => decode_rest(json, mode, missed).map_err(|r| r.error),
    }
}

/// [`decode`] over bytes (which must be UTF-8).
///
/// # Errors
/// As [`decode`].
pub fn decode_slice<T: DeserializeOwned>(json: &[u8], mode: ReadMode) -> Result<Decoded<T>, Error> {
    match first_pass(Text::Slice(json), mode) {
        Ok(value) => Ok(Decoded::clean(value)),
        Err(missed) => slice_rest(json, mode, missed),
    }
}

/// [`decode_slice`] after a first pass that did not end it.
#[cold]
#[inline(never)]
fn slice_rest<T: DeserializeOwned>(
    json: &[u8],
    mode: ReadMode,
    missed: Missed,
) -> Result<Decoded<T>, Error> {
    match run_after(mode, Text::Slice(json), missed) {
        Ok(d) => Ok(d),
        Err(r) => recover(mode, r, Some(json), || serde_json::from_slice(json).ok()),
    }
    .map_err(|r| r.error)
}

/// What a document is read from.
#[derive(Clone, Copy)]
enum Text<'a> {
    Str(&'a str),
    Slice(&'a [u8]),
    Value(&'a serde_json::Value),
}

impl<'a> Text<'a> {
    /// Reads the whole document as `T`, refusing anything after it. A root array is read
    /// through [`Root`], so that its elements have their index in pointers (an object, the
    /// common case, is read directly). Text is read by the crate's parser
    /// ([`crate::codec::parser`]), and by `serde_json` when the parser leaves it to it.
    fn parse<T: DeserializeOwned>(self) -> Result<T, serde_json::Error> {
        match self.parse_own() {
            Some(value) => Ok(value),
            None => {
                diagnostics::restart_pass();
                self.parse_serde_json()
            }
        }
    }

    /// [`Text::parse`] by `serde_json`.
    #[cold]
    #[inline(never)]
    fn parse_serde_json<T: DeserializeOwned>(self) -> Result<T, serde_json::Error> {
        fn whole<'de, T: serde::Deserialize<'de>, R: serde_json::de::Read<'de>>(
            mut de: serde_json::Deserializer<R>,
            array: bool,
        ) -> Result<T, serde_json::Error> {
            let value = if array {
                T::deserialize(Root(&mut de))?
            } else {
                T::deserialize(&mut de)?
            };
            de.end()?;
            Ok(value)
        }
        match self {
            Text::Str(s) => whole(
                serde_json::Deserializer::from_str(s),
                is_array(s.as_bytes()),
            ),
            Text::Slice(b) => whole(serde_json::Deserializer::from_slice(b), is_array(b)),
            Text::Value(v) if v.is_array() => T::deserialize(Root(v)),
            Text::Value(v) => T::deserialize(v),
        }
    }

    /// Reads the whole document with the crate's parser, or returns `None` when the parser
    /// leaves it to `serde_json` (what the pass recorded meanwhile is then to be forgotten).
    #[inline(always)]
    fn parse_own<T: DeserializeOwned>(self) -> Option<T> {
        let text = match self {
            Text::Str(s) => s,
            Text::Slice(b) => std::str::from_utf8(b).ok()?,
            Text::Value(_) => return None,
        };
        if is_array(text.as_bytes()) {
            parser::parse(text, |p| T::deserialize(Root(p)))
        } else {
            parser::parse(text, |p| T::deserialize(p))
        }
    }

    /// Checks that the whole document is well-formed JSON (nothing kept), for a document
    /// whose typed reading stopped early at an unknown event type.
    #[cold]
    fn well_formed(self) -> Result<(), serde_json::Error> {
        fn whole<'de, R: serde_json::de::Read<'de>>(
            mut de: serde_json::Deserializer<R>,
        ) -> Result<(), serde_json::Error> {
            serde::Deserialize::deserialize(&mut de).map(|crate::codec::skip::Skip| ())?;
            de.end()
        }
        match self {
            Text::Str(s) => whole(serde_json::Deserializer::from_str(s)),
            Text::Slice(b) => whole(serde_json::Deserializer::from_slice(b)),
            Text::Value(_) => Ok(()),
        }
    }

    fn bytes(self) -> Option<&'a [u8]> {
        match self {
            Text::Str(s) => Some(s.as_bytes()),
            Text::Slice(b) => Some(b),
            Text::Value(_) => None,
        }
    }
}

/// Whether JSON text starts with an array.
fn is_array(json: &[u8]) -> bool {
    json.iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .is_some_and(|b| *b == b'[')
}

/// Decodes `T` from an already-parsed JSON value in `mode`.
///
/// A value nested deeper than the text readers allow (127 levels of arrays and objects,
/// serde_json's recursion limit) is refused before decoding, so that a value built in memory cannot exhaust the
/// stack either.
///
/// # Errors
/// As [`decode`], and [`ErrorKind::TooDeep`](crate::ErrorKind::TooDeep) for a value nested too deep.
pub fn decode_value<T: DeserializeOwned>(
    value: &serde_json::Value,
    mode: ReadMode,
) -> Result<Decoded<T>, Error> {
    if let Some(pointer) = too_deep(value) {
        return Err(Repr::TooDeep { pointer, at: None }.into());
    }
    match run_detailed(mode, Text::Value(value)) {
        Ok(d) => Ok(d),
        Err(r) => recover(mode, r, None, || Some(value.clone())),
    }
    .map_err(|r| r.error)
}

/// Levels of arrays and objects the text readers accept (serde_json's recursion limit of
/// 128 refuses the 128th level).
const MAX_DEPTH: usize = 127;

/// The pointer of the first array or object nested deeper than [`MAX_DEPTH`], found
/// without recursion.
fn too_deep(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    // Each entry: a container, the token leading to it, and its depth.
    let mut stack: Vec<(&Value, Option<String>, usize)> = vec![(value, None, 0)];
    let mut path: Vec<String> = Vec::new();
    while let Some((v, token, depth)) = stack.pop() {
        path.truncate(depth.saturating_sub(1));
        if let Some(t) = token {
            path.push(t);
        }
        let children: Box<dyn Iterator<Item = (String, &Value)>> = match v {
            Value::Array(items) => {
                Box::new(items.iter().enumerate().map(|(i, c)| (i.to_string(), c)))
            }
            Value::Object(map) => {
                Box::new(map.iter().map(|(k, c)| (escape_token(k).into_owned(), c)))
            }
            _ => continue,
        };
        if depth + 1 > MAX_DEPTH {
            let mut pointer = String::new();
            for t in &path {
                pointer.push('/');
                pointer.push_str(t);
            }
            return Some(pointer);
        }
        for (t, c) in children {
            if c.is_array() || c.is_object() {
                stack.push((c, Some(t), depth + 1));
            }
        }
    }
    None
}

/// A refusal, with what the reader knew of it beyond the error (for the stream pipeline,
/// which names the stream rule a refusal breaks).
#[derive(Debug)]
pub(crate) struct Rejection {
    /// The error.
    pub(crate) error: Error,
    /// The reader's record of where and why (empty for errors raised outside the visitors).
    pub(crate) fault: Box<Fault>,
}

impl From<Error> for Rejection {
    fn from(error: Error) -> Self {
        Rejection {
            error,
            fault: Box::default(),
        }
    }
}

impl Rejection {
    fn from_json(e: &serde_json::Error) -> Self {
        let fault = diagnostics::take_fault();
        Rejection {
            error: Error::from_json(e, &fault),
            fault: Box::new(fault),
        }
    }
}

/// [`decode`], keeping the reader's record of a refusal.
#[inline]
pub(crate) fn decode_detailed<T: DeserializeOwned>(
    json: &str,
    mode: ReadMode,
) -> Result<Decoded<T>, Rejection> {
    match first_pass(Text::Str(json), mode) {
        Ok(value) => Ok(Decoded::clean(value)),
        Err(missed) => decode_rest(json, mode, missed),
    }
}

/// The first pass of [`decode_detailed`] alone: the value of a clean document, or why the
/// rest of the decode ([`decode_rest`]) is needed. For callers that would take the value
/// straight back out of a [`Decoded`] (a 120-byte event copied twice more).
#[inline]
pub(crate) fn decode_clean<T: DeserializeOwned>(json: &str, mode: ReadMode) -> Result<T, Missed> {
    first_pass(Text::Str(json), mode)
}

/// [`decode_detailed`] after a first pass that did not end it.
#[cold]
#[inline(never)]
pub(crate) fn decode_rest<T: DeserializeOwned>(
    json: &str,
    mode: ReadMode,
    missed: Missed,
) -> Result<Decoded<T>, Rejection> {
    match run_after(mode, Text::Str(json), missed) {
        Ok(d) => Ok(d),
        Err(r) => recover(mode, r, Some(json.as_bytes()), || {
            serde_json::from_str(json).ok()
        }),
    }
}

/// Why the first pass did not end a decode.
#[derive(Clone, Copy)]
pub(crate) enum Missed {
    /// The crate's parser read the document, and something needed forgiving.
    Dirty,
    /// The crate's parser left the document to `serde_json` (or it is a parsed value).
    Left,
}

/// The first, detecting pass: the crate's parser, noting only whether anything needed
/// forgiving. Most documents end here, with their value.
#[inline(always)]
fn first_pass<T: DeserializeOwned>(text: Text<'_>, mode: ReadMode) -> Result<T, Missed> {
    if matches!(text, Text::Value(_)) {
        return Err(Missed::Left);
    }
    let _strict = diagnostics::StrictGuard::enter(mode == ReadMode::Exact);
    let _g = diagnostics::enter(Pass::Detect);
    match text.parse_own::<T>() {
        Some(value) if !diagnostics::dirty() => Ok(value),
        Some(_) => Err(Missed::Dirty),
        None => Err(Missed::Left),
    }
}

/// Decodes, first detecting whether anything needs forgiving, then (only if so)
/// collecting the warnings.
fn run_detailed<T: DeserializeOwned>(
    mode: ReadMode,
    text: Text<'_>,
) -> Result<Decoded<T>, Rejection> {
    match first_pass(text, mode) {
        Ok(value) => Ok(Decoded::clean(value)),
        Err(missed) => run_after(mode, text, missed),
    }
}

/// [`run_detailed`] after its first pass.
fn run_after<T: DeserializeOwned>(
    mode: ReadMode,
    text: Text<'_>,
    missed: Missed,
) -> Result<Decoded<T>, Rejection> {
    run_passes(mode, text, missed).map_err(|mut r| {
        relocate(&mut r.error, text.bytes());
        r
    })
}

/// Gives an error about a member read before a late tag the position of that member (the
/// parser's own position is past the tag by then).
#[cold]
fn relocate(e: &mut Error, text: Option<&[u8]>) {
    if diagnostics::ended_late()
        && let (Some(text), Repr::Invalid { pointer, at, .. }) = (text, e.repr_mut())
        && let Some((l, c)) = crate::codec::locate::locate(text, pointer)
    {
        *at = Some((l, c));
    }
}

/// The passes after the first: a detecting pass by `serde_json` when the crate's parser
/// left the document to it, then (only if something needs forgiving) the collecting pass.
fn run_passes<T: DeserializeOwned>(
    mode: ReadMode,
    text: Text<'_>,
    missed: Missed,
) -> Result<Decoded<T>, Rejection> {
    let _strict = diagnostics::StrictGuard::enter(mode == ReadMode::Exact);
    match missed {
        Missed::Dirty => {}
        Missed::Left => {
            let _g = diagnostics::enter(Pass::Detect);
            match text.parse_serde_json::<T>() {
                Ok(value) if !diagnostics::dirty() => return Ok(Decoded::clean(value)),
                Ok(_) => {}
                Err(e) => return Err(refusal(text, &e)),
            }
        }
    }
    collect_pass(mode, text)
}

/// The refusal of a document whose detecting pass failed with `e` (called while that pass
/// is still in force).
#[cold]
fn refusal(text: Text<'_>, e: &serde_json::Error) -> Rejection {
    let Some(unknown) = diagnostics::take_unknown_event() else {
        return Rejection::from_json(e);
    };
    // The event's object was read in full; what follows it must be well-formed too. An
    // unknown type is its own error only for the document's root event (inside an array it
    // is a plain invalid value).
    if let Err(e) = text.well_formed() {
        return Rejection::from_json(&e);
    }
    let rejection = Rejection::from_json(e);
    if rejection.error.pointer() != Some("/type") {
        return rejection;
    }
    let event_type = unknown.event_type;
    if let Some(successor) = unknown.successor {
        return Error::from(Repr::LegacyEventType {
            event_type,
            successor,
        })
        .into();
    }
    Error::from(Repr::UnknownEventType { event_type }).into()
}

/// Decodes a document the detecting pass found something to forgive in, collecting the
/// warnings with their pointers.
#[cold]
fn collect_pass<T: DeserializeOwned>(
    mode: ReadMode,
    text: Text<'_>,
) -> Result<Decoded<T>, Rejection> {
    let _g = diagnostics::enter(Pass::Collect);
    diagnostics::set_exact(mode == ReadMode::Exact);
    let value = text.parse::<T>().map_err(|e| Rejection::from_json(&e))?;
    let warnings = diagnostics::take_warnings();
    let omitted_warnings = diagnostics::omitted();
    if mode == ReadMode::Exact
        && let Some(w) = warnings.iter().find(|w| !w.kind.valid_in_exact_mode())
    {
        return Err(Error::from(Repr::NotExact {
            kind: w.kind,
            pointer: w.pointer.clone(),
        })
        .into());
    }
    Ok(Decoded {
        value,
        warnings,
        omitted_warnings,
    })
}

/// At most this many union members are removed from one document (each removal decodes
/// the document again); past it the document is refused.
const MAX_REMOVALS: usize = 32;

/// The forgiving reader's handling of unknown union members (spec §2.3): when `first`
/// failed on an unrecognised tag, the member (or, in a required slot, the object holding
/// it) is removed from the parsed document, which is decoded again, until it decodes.
/// Clean documents never get here.
///
/// The parsed document (`source`, or for text the text read with the first of repeated
/// keys) decides what is removed. When the document is text (`text`), the removal is
/// also made in a copy of the text (the member overwritten with
/// spaces, line ends kept) and that copy is what is decoded again, so that everything a
/// parsed value cannot hold is read as the first pass read it: a declared member given
/// twice is refused (a parsed value would keep only the last), an undeclared one is
/// reported twice, and positions are those of the document as read.
#[cold]
fn recover<T: DeserializeOwned>(
    mode: ReadMode,
    rejection: Rejection,
    text: Option<&[u8]>,
    source: impl FnOnce() -> Option<serde_json::Value>,
) -> Result<Decoded<T>, Rejection> {
    if mode != ReadMode::Forgiving || !rejection.fault.unknown_tag {
        return Err(rejection);
    }
    let mut text: Option<Vec<u8>> = text.map(<[u8]>::to_vec);
    // For text, the document that decides is read with the first of repeated keys, as the
    // reader met them (and re-read after each removal).
    let first = match &text {
        Some(buf) => crate::codec::locate::first_wins(buf),
        None => source(),
    };
    let Some(mut doc) = first else {
        return Err(rejection);
    };
    // Array elements removed so far, as (array pointer, index) in the document as it was
    // when each was removed: pointers in the final result are mapped back through them.
    let mut removed: Vec<(String, usize)> = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let mut current = rejection;
    loop {
        let tag_pointer = current.error.pointer().unwrap_or_default().to_owned();
        if removed.len() >= MAX_REMOVALS {
            return Err(current);
        }
        let Some(removal) = remove_unknown_member(&mut doc, &tag_pointer) else {
            return Err(current);
        };
        if let Some(buf) = text.as_mut() {
            if !crate::codec::locate::remove(buf, &removal.member) {
                return Err(current);
            }
            match crate::codec::locate::first_wins(buf) {
                Some(d) => doc = d,
                None => return Err(current),
            }
        }
        warnings.push(
            Warning::new(WarningKind::UnknownMember, original(&tag_pointer, &removed))
                .with_detail(removal.detail),
        );
        removed.extend(removal.element);
        let next = match &text {
            Some(buf) => run_detailed(mode, Text::Slice(buf)),
            None => run_detailed(mode, Text::Value(&doc)),
        };
        match next {
            Ok(d) => {
                for mut w in d.warnings {
                    w.pointer = original(&w.pointer, &removed);
                    warnings.push(w);
                }
                return Ok(Decoded {
                    value: d.value,
                    warnings,
                    omitted_warnings: d.omitted_warnings,
                });
            }
            Err(r) if r.fault.unknown_tag => current = r,
            Err(mut r) => {
                r.error = with_pointer(r.error, |p| original(p, &removed));
                return Err(r);
            }
        }
    }
}

/// What [`remove_unknown_member`] removed.
struct Removal {
    /// What was done, for the warning.
    detail: &'static str,
    /// The pointer of the removed member (an array element or an object member).
    member: String,
    /// The array element removed, as (array pointer, index), if it was one.
    element: Option<(String, usize)>,
}

/// Removes what an unknown tag at `tag_pointer` makes removable: the union member when it
/// is a list element or a `RUN_FINISHED` outcome, the media part holding it when it is a
/// part's `source`.
fn remove_unknown_member(doc: &mut serde_json::Value, tag_pointer: &str) -> Option<Removal> {
    use serde_json::Value;
    let (member, _) = tag_pointer.rsplit_once('/')?;
    let (parent, token) = member.rsplit_once('/')?;
    let remove_element = |doc: &mut Value, array: &str, token: &str| {
        let items = doc.pointer_mut(array)?.as_array_mut()?;
        let i: usize = token.parse().ok().filter(|i| *i < items.len())?;
        items.remove(i);
        Some((array.to_owned(), i))
    };
    match doc.pointer(parent)? {
        Value::Array(_) => {
            let at = remove_element(doc, parent, token)?;
            Some(Removal {
                detail: "the list element was removed",
                member: member.to_owned(),
                element: Some(at),
            })
        }
        Value::Object(o)
            if token == "outcome"
                && o.get("type").and_then(Value::as_str) == Some("RUN_FINISHED") =>
        {
            doc.pointer_mut(parent)?.as_object_mut()?.remove("outcome");
            Some(Removal {
                detail: "the outcome was removed, so the run reads as a success",
                member: member.to_owned(),
                element: None,
            })
        }
        Value::Object(_) if token == "source" => {
            let (list, index) = parent.rsplit_once('/')?;
            let at = remove_element(doc, list, index)?;
            Some(Removal {
                detail: "the part holding this source (a required member) was removed from its list",
                member: parent.to_owned(),
                element: Some(at),
            })
        }
        _ => None,
    }
}

/// Maps a pointer into the document after removals back to the document as it was read.
fn original(pointer: &str, removed: &[(String, usize)]) -> String {
    let mut p = pointer.to_owned();
    for (array, index) in removed.iter().rev() {
        let Some(rest) = p
            .strip_prefix(array.as_str())
            .and_then(|r| r.strip_prefix('/'))
        else {
            continue;
        };
        let (token, tail) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if let Ok(i) = token.parse::<usize>()
            && i >= *index
        {
            p = format!("{array}/{}{tail}", i + 1);
        }
    }
    p
}

/// The error with its pointer mapped by `f`.
fn with_pointer(mut error: Error, f: impl Fn(&str) -> String) -> Error {
    if let Repr::Invalid { pointer, .. }
    | Repr::Syntax { pointer, .. }
    | Repr::NotExact { pointer, .. } = error.repr_mut()
    {
        *pointer = f(pointer);
    }
    error
}
