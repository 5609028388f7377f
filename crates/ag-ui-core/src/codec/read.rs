//! Reading AG-UI JSON: plain, forgiving-with-warnings, and exact.
//!
//! Every type's `Deserialize` impl is the **forgiving** 1.0 receiver: it accepts what the
//! official TypeScript validator accepts, reads `null` in an optional field as absent and
//! ignores unknown fields. [`decode`] runs the same impls and also reports what was forgiven
//! ([`Warning`], with a JSON Pointer), or — in [`ReadMode::Exact`] — refuses it, accepting
//! precisely what the 1.0 JSON Schema accepts.
//!
//! Clean input (the common case) is decoded once, with no bookkeeping beyond two
//! thread-local flags; only a document that needed forgiving is decoded a second time to
//! collect the pointers of what was forgiven.

use std::cell::{Cell, RefCell};
use std::fmt;

use serde::de::DeserializeOwned;

use crate::codec::error::Error;
use crate::codec::root::Root;
use crate::codec::wire::escape_token;

/// What the forgiving reader accepted that the 1.0 schema does not (or that a caller may
/// want to log).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// A key the object does not declare; it was skipped (strip-and-warn, spec §2.3).
    UnknownField,
    /// An optional field given as `null`; read as absent (spec §2.2).
    NullAsAbsent,
    /// `RunAgentInput.state: null`, read as absent. Valid in exact mode too: every 1.0
    /// SDK normalises it (spec §4 RunAgentInput).
    NullState,
    /// An extra member of a JSON Patch operation; ignored as RFC 6902 §4 requires. Valid in
    /// exact mode: patch operations are open objects.
    IgnoredMember,
    /// A 0.x `THINKING_*` event, translated to its `REASONING_*` successor (spec §3.1).
    LegacyEvent,
    /// A 0.x `binary` content part, translated to a media part (spec §4).
    LegacyBinaryPart,
    /// An event whose `type` is not one of the 31 of 1.0; a stream consumer drops it
    /// (spec §2.3). Only [`crate::EventDecoder`] produces this warning.
    UnknownEventType,
}

impl WarningKind {
    /// The kebab-case name used in fixtures and logs (`unknown-field`, `null-as-absent`, …).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::UnknownField => "unknown-field",
            Self::NullAsAbsent => "null-as-absent",
            Self::NullState => "null-state",
            Self::IgnoredMember => "ignored-member",
            Self::LegacyEvent => "legacy-event",
            Self::LegacyBinaryPart => "legacy-binary-part",
            Self::UnknownEventType => "unknown-event-type",
        }
    }

    /// Whether the 1.0 schema accepts a document carrying this (so exact mode does too).
    #[must_use]
    pub const fn valid_in_exact_mode(self) -> bool {
        matches!(self, Self::NullState | Self::IgnoredMember)
    }

    fn describe(self) -> &'static str {
        match self {
            Self::UnknownField => "unknown field (the 1.0 schema closes this object)",
            Self::NullAsAbsent => "null in an optional field (omit the field instead)",
            Self::NullState => "null state (read as absent)",
            Self::IgnoredMember => "extra member of a JSON Patch operation (ignored)",
            Self::LegacyEvent => "0.x THINKING_* event (retired in 1.0; use REASONING_*)",
            Self::LegacyBinaryPart => "0.x binary content part (retired in 1.0; use a media part)",
            Self::UnknownEventType => "event type unknown to AG-UI 1.0",
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing the forgiving reader accepted, and where.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Warning {
    /// What was forgiven.
    pub kind: WarningKind,
    /// JSON Pointer (RFC 6901) of the member concerned, relative to the decoded document.
    pub pointer: String,
}

impl Warning {
    /// Creates a warning.
    #[must_use]
    pub fn new(kind: WarningKind, pointer: impl Into<String>) -> Self {
        Warning {
            kind,
            pointer: pointer.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.kind.describe(), Location(&self.pointer))
    }
}

/// Formats a JSON Pointer for messages (the empty pointer is the document root).
pub(crate) struct Location<'a>(pub(crate) &'a str);

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match crate::codec::shown::Shown(self.0) {
            _ if self.0.is_empty() => f.write_str("the document root"),
            // A pointer through long keys is shortened (the error keeps it whole).
            shown if self.0.len() > crate::codec::shown::SHOWN_WHOLE => {
                let text = shown.to_string();
                match text.split_once("… (") {
                    Some((head, len)) => write!(f, "`{head}…` ({len}"),
                    None => write!(f, "`{text}`"),
                }
            }
            _ => write!(f, "`{}`", self.0),
        }
    }
}

/// How strictly [`decode`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ReadMode {
    /// The 1.0 receiver: unknown fields skipped, optional `null`s read as absent, legacy 0.x
    /// shapes translated; each reported as a [`Warning`].
    #[default]
    Forgiving,
    /// Exactly what the 1.0 JSON Schema accepts: closed objects, no optional `null`s, no
    /// legacy shapes. The first offence is an [`Error::NotExact`].
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

/// The most warnings one decode lists; the rest are counted in
/// [`Decoded::omitted_warnings`].
pub const MAX_WARNINGS: usize = 100;

// ---------------------------------------------------------------------------
// Thread-local bookkeeping
// ---------------------------------------------------------------------------

const OFF: u8 = 0;
const DETECT: u8 = 1;
const COLLECT: u8 = 2;

thread_local! {
    static MODE: Cell<u8> = const { Cell::new(OFF) };
    static DIRTY: Cell<bool> = const { Cell::new(false) };
    static SINK: RefCell<Vec<Warning>> = const { RefCell::new(Vec::new()) };
    static UNKNOWN_EVENT: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Warnings counted but not kept (past [`MAX_WARNINGS`], or past the first offence in
    /// exact mode).
    static OMITTED: Cell<usize> = const { Cell::new(0) };
    /// Exact mode: whether an offence was kept (nothing after it is).
    static OFFENDED: Cell<bool> = const { Cell::new(false) };
    static EXACT: Cell<bool> = const { Cell::new(false) };
    /// Late-tag maps still handing out the entries buffered before their tag: an error
    /// meanwhile is about a member the parser is already past, so its position is wrong.
    static LATE: Cell<u32> = const { Cell::new(0) };
}

const ROOT_SEQ_NONE: u8 = 0;
const ROOT_SEQ_PENDING: u8 = 1;
const ROOT_SEQ_CLAIMED: u8 = 2;
const ROOT_SEQ_UNCLAIMED: u8 = 3;

thread_local! {
    /// Who puts the indices of a root array's elements into pointers: the array's own
    /// reader when it is one of this crate's (it claims the array first), else the root
    /// wrapper (for `Vec<Event>` and other serde sequences).
    static ROOT_SEQ: Cell<u8> = const { Cell::new(ROOT_SEQ_NONE) };
}

/// The document root is an array, about to be read.
pub(crate) fn root_seq_opened() {
    ROOT_SEQ.with(|r| r.set(ROOT_SEQ_PENDING));
}

/// An array reader of this crate, which indexes its elements itself, starts reading.
#[inline]
pub(crate) fn claim_root_seq() {
    ROOT_SEQ.with(|r| {
        if r.get() == ROOT_SEQ_PENDING {
            r.set(ROOT_SEQ_CLAIMED);
        }
    });
}

/// Whether the root wrapper must index the root array's elements (asked as each element
/// is read: nobody claimed the array before its first element).
pub(crate) fn root_seq_unclaimed() -> bool {
    ROOT_SEQ.with(|r| {
        if r.get() == ROOT_SEQ_PENDING {
            r.set(ROOT_SEQ_UNCLAIMED);
        }
        r.get() == ROOT_SEQ_UNCLAIMED
    })
}

/// A late-tag map starts handing out its buffered entries.
pub(crate) fn late_enter() {
    LATE.with(|l| l.set(l.get().saturating_add(1)));
}

/// A late-tag map has handed out its buffered entries.
pub(crate) fn late_leave() {
    LATE.with(|l| l.set(l.get().saturating_sub(1)));
}

/// Keeps a warning, unless the list is full (or, in exact mode, already holds the offence
/// that refuses the document): then it is only counted.
fn keep(kind: WarningKind, pointer: impl FnOnce() -> String) {
    SINK.with(|s| {
        let mut sink = s.borrow_mut();
        if sink.len() >= MAX_WARNINGS || OFFENDED.with(Cell::get) {
            OMITTED.with(|o| o.set(o.get() + 1));
            return;
        }
        sink.push(Warning {
            kind,
            pointer: pointer(),
        });
        if EXACT.with(Cell::get) && !kind.valid_in_exact_mode() {
            OFFENDED.with(|o| o.set(true));
        }
    });
}

/// Whether warnings are being collected with pointers (visitors then fix up paths).
#[inline]
pub(crate) fn collecting() -> bool {
    MODE.with(Cell::get) == COLLECT
}

/// Reports something forgiven at member `key` of the object being read.
#[cold]
pub(crate) fn report(kind: WarningKind, key: &str) {
    match MODE.with(Cell::get) {
        DETECT => DIRTY.with(|d| d.set(true)),
        COLLECT => keep(kind, || format!("/{}", escape_token(key))),
        _ => {}
    }
}

/// Reports something forgiven about the value being read as a whole.
#[cold]
pub(crate) fn report_here(kind: WarningKind) {
    match MODE.with(Cell::get) {
        DETECT => DIRTY.with(|d| d.set(true)),
        COLLECT => keep(kind, String::new),
        _ => {}
    }
}

/// Remembers the `type` of an unknown event so that [`decode`] can return
/// [`Error::UnknownEventType`].
#[cold]
pub(crate) fn note_unknown_event(event_type: &str) {
    if MODE.with(Cell::get) != OFF {
        UNKNOWN_EVENT.with(|u| *u.borrow_mut() = Some(event_type.to_owned()));
    }
}

/// The number of warnings collected so far.
#[inline]
pub(crate) fn mark() -> usize {
    SINK.with(|s| s.borrow().len())
}

/// Prefixes `segment` to the pointer of every warning collected since `mark`.
#[inline]
pub(crate) fn prefix_since(mark: usize, segment: &dyn fmt::Display) {
    SINK.with(|s| {
        let mut sink = s.borrow_mut();
        if sink.len() > mark {
            let prefix = format!("/{segment}");
            for w in &mut sink[mark..] {
                w.pointer.insert_str(0, &prefix);
            }
        }
    });
}

/// Restores the previous mode when a decode ends (even by unwinding).
struct ModeGuard(u8);

impl ModeGuard {
    fn enter(mode: u8) -> Self {
        let prev = MODE.with(|m| m.replace(mode));
        DIRTY.with(|d| d.set(false));
        LATE.with(|l| l.set(0));
        ROOT_SEQ.with(|r| r.set(ROOT_SEQ_NONE));
        UNKNOWN_EVENT.with(|u| u.borrow_mut().take());
        if mode == COLLECT {
            SINK.with(|s| s.borrow_mut().clear());
            OMITTED.with(|o| o.set(0));
            OFFENDED.with(|o| o.set(false));
        }
        ModeGuard(prev)
    }
}

impl Drop for ModeGuard {
    fn drop(&mut self) {
        MODE.with(|m| m.set(self.0));
    }
}

// ---------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------

/// Decodes `T` from JSON text as the forgiving 1.0 receiver does, with errors that name
/// the JSON Pointer of the offending member.
///
/// # Errors
/// [`Error::Syntax`] for malformed JSON, [`Error::Invalid`] for a document that breaks the
/// 1.0 shape, [`Error::UnknownEventType`] for an event `type` outside the 31 of 1.0.
pub fn from_str<T: DeserializeOwned>(json: &str) -> Result<T, Error> {
    decode(json, ReadMode::Forgiving).map(|d| d.value)
}

/// [`from_str`] over bytes (which must be UTF-8).
///
/// # Errors
/// As [`from_str`].
pub fn from_slice<T: DeserializeOwned>(json: &[u8]) -> Result<T, Error> {
    decode_slice(json, ReadMode::Forgiving).map(|d| d.value)
}

/// Decodes `T` from JSON text in `mode`, reporting what was forgiven.
///
/// # Errors
/// As [`from_str`], plus [`Error::NotExact`] in [`ReadMode::Exact`] when the document is
/// outside the 1.0 schema (an unknown field, an optional `null`, a legacy shape).
pub fn decode<T: DeserializeOwned>(json: &str, mode: ReadMode) -> Result<Decoded<T>, Error> {
    run(
        mode,
        Some(json.as_bytes()),
        || {
            read_root(
                serde_json::Deserializer::from_str(json),
                is_array(json.as_bytes()),
            )
        },
        || well_formed(serde_json::Deserializer::from_str(json)),
    )
}

/// [`decode`] over bytes (which must be UTF-8).
///
/// # Errors
/// As [`decode`].
pub fn decode_slice<T: DeserializeOwned>(json: &[u8], mode: ReadMode) -> Result<Decoded<T>, Error> {
    run(
        mode,
        Some(json),
        || read_root(serde_json::Deserializer::from_slice(json), is_array(json)),
        || well_formed(serde_json::Deserializer::from_slice(json)),
    )
}

/// Reads a whole document as `T`, refusing anything after it. A root array is read
/// through [`Root`], so that its elements have their index in pointers (an object, the
/// common case, is read directly).
fn read_root<'de, T: serde::Deserialize<'de>, R: serde_json::de::Read<'de>>(
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

/// Whether JSON text starts with an array.
fn is_array(json: &[u8]) -> bool {
    json.iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .is_some_and(|b| *b == b'[')
}

/// Checks that a whole document is well-formed JSON (nothing kept), for a document whose
/// typed reading stopped early at an unknown event type.
#[cold]
fn well_formed<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
) -> Result<(), serde_json::Error> {
    serde::Deserialize::deserialize(&mut de).map(|crate::codec::skip::Skip| ())?;
    de.end()
}

/// Decodes `T` from an already-parsed JSON value in `mode`.
///
/// A value nested deeper than the text readers allow (127 levels of arrays and objects,
/// serde_json's recursion limit) is refused before decoding, so that a value built in memory cannot exhaust the
/// stack either.
///
/// # Errors
/// As [`decode`]; the only [`Error::Syntax`] is for a value nested too deep.
pub fn decode_value<T: DeserializeOwned>(
    value: &serde_json::Value,
    mode: ReadMode,
) -> Result<Decoded<T>, Error> {
    if let Some(pointer) = too_deep(value) {
        return Err(Error::Syntax {
            pointer,
            message: "recursion limit exceeded (arrays and objects nest at most 127 levels deep)"
                .to_owned(),
            line: 0,
            column: 0,
        });
    }
    let parse = || {
        if value.is_array() {
            T::deserialize(Root(value))
        } else {
            T::deserialize(value)
        }
    };
    run(mode, None, parse, || Ok(()))
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

/// Decodes with `parse`, first detecting whether anything needs forgiving, then (only if
/// so) collecting the warnings. `well_formed` checks the whole document's syntax, for when
/// `parse` stopped early at an unknown event type.
fn run<T>(
    mode: ReadMode,
    text: Option<&[u8]>,
    parse: impl Fn() -> Result<T, serde_json::Error>,
    well_formed: impl Fn() -> Result<(), serde_json::Error>,
) -> Result<Decoded<T>, Error> {
    run_inner(mode, parse, well_formed).map_err(|e| relocate(e, text))
}

/// Gives an error about a member read before a late tag the position of that member (the
/// parser's own position is past the tag by then).
#[cold]
fn relocate(mut e: Error, text: Option<&[u8]>) -> Error {
    if LATE.with(Cell::get) > 0
        && let (
            Some(text),
            Error::Invalid {
                pointer,
                line,
                column,
                ..
            },
        ) = (text, &mut e)
        && let Some((l, c)) = crate::codec::locate::locate(text, pointer)
    {
        (*line, *column) = (l, c);
    }
    e
}

fn run_inner<T>(
    mode: ReadMode,
    parse: impl Fn() -> Result<T, serde_json::Error>,
    well_formed: impl Fn() -> Result<(), serde_json::Error>,
) -> Result<Decoded<T>, Error> {
    let dirty = {
        let _g = ModeGuard::enter(DETECT);
        match parse() {
            Ok(value) if !DIRTY.with(Cell::get) => {
                return Ok(Decoded {
                    value,
                    warnings: Vec::new(),
                    omitted_warnings: 0,
                });
            }
            Ok(_) => true,
            Err(e) => {
                if let Some(event_type) = UNKNOWN_EVENT.with(|u| u.borrow_mut().take()) {
                    // The event's object was read in full; what follows it must be
                    // well-formed too. An unknown type is its own error only for the
                    // document's root event (inside an array it is a plain invalid value).
                    well_formed().map_err(Error::from_json)?;
                    let e = Error::from_json(e);
                    if e.pointer() != Some("/type") {
                        return Err(e);
                    }
                    if let Some((_, successor)) = crate::model::event::LEGACY_EVENT_TYPES
                        .iter()
                        .find(|(n, _)| *n == event_type)
                    {
                        return Err(Error::LegacyEventType {
                            event_type,
                            successor: *successor,
                        });
                    }
                    return Err(Error::UnknownEventType { event_type });
                }
                return Err(Error::from_json(e));
            }
        }
    };
    debug_assert!(dirty);
    let _g = ModeGuard::enter(COLLECT);
    EXACT.with(|e| e.set(mode == ReadMode::Exact));
    let value = parse().map_err(Error::from_json)?;
    let warnings = SINK.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let omitted_warnings = OMITTED.with(Cell::get);
    if mode == ReadMode::Exact
        && let Some(w) = warnings.iter().find(|w| !w.kind.valid_in_exact_mode())
    {
        return Err(Error::NotExact {
            kind: w.kind,
            pointer: w.pointer.clone(),
        });
    }
    Ok(Decoded {
        value,
        warnings,
        omitted_warnings,
    })
}
