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
use crate::codec::error::Error;
use crate::codec::pointer::escape_token;

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
    /// What the forgiving reader accepted, in document order (empty on clean input).
    pub warnings: Vec<Warning>,
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
    recover(
        mode,
        run_detailed(mode, || serde_json::from_str::<T>(json)),
        || serde_json::from_str(json).ok(),
    )
    .map_err(|r| r.error)
}

/// [`decode`] over bytes (which must be UTF-8).
///
/// # Errors
/// As [`decode`].
pub fn decode_slice<T: DeserializeOwned>(json: &[u8], mode: ReadMode) -> Result<Decoded<T>, Error> {
    recover(
        mode,
        run_detailed(mode, || serde_json::from_slice::<T>(json)),
        || serde_json::from_slice(json).ok(),
    )
    .map_err(|r| r.error)
}

/// Decodes `T` from an already-parsed JSON value in `mode`.
///
/// A value nested deeper than the text readers allow (127 levels of arrays and objects,
/// serde_json's recursion limit) is refused before decoding, so that a value built in memory cannot exhaust the
/// stack either.
///
/// # Errors
/// As [`decode`], and [`Error::TooDeep`] for a value nested too deep.
pub fn decode_value<T: DeserializeOwned>(
    value: &serde_json::Value,
    mode: ReadMode,
) -> Result<Decoded<T>, Error> {
    if let Some(pointer) = too_deep(value) {
        return Err(Error::TooDeep {
            pointer,
            line: 0,
            column: 0,
        });
    }
    recover(mode, run_detailed(mode, || T::deserialize(value)), || {
        Some(value.clone())
    })
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
pub(crate) fn decode_detailed<T: DeserializeOwned>(
    json: &str,
    mode: ReadMode,
) -> Result<Decoded<T>, Rejection> {
    recover(
        mode,
        run_detailed(mode, || serde_json::from_str::<T>(json)),
        || serde_json::from_str(json).ok(),
    )
}

fn run_detailed<T>(
    mode: ReadMode,
    parse: impl Fn() -> Result<T, serde_json::Error>,
) -> Result<Decoded<T>, Rejection> {
    let _strict = diagnostics::StrictGuard::enter(mode == ReadMode::Exact);
    let dirty = {
        let _g = diagnostics::enter(Pass::Detect);
        match parse() {
            Ok(value) if !diagnostics::dirty() => {
                return Ok(Decoded {
                    value,
                    warnings: Vec::new(),
                });
            }
            Ok(_) => true,
            Err(e) => {
                if let Some(event_type) = diagnostics::take_unknown_event() {
                    if let Some((_, successor)) = crate::model::event::LEGACY_EVENT_TYPES
                        .iter()
                        .find(|(n, _)| *n == event_type)
                    {
                        return Err(Error::LegacyEventType {
                            event_type,
                            successor: *successor,
                        }
                        .into());
                    }
                    return Err(Error::UnknownEventType { event_type }.into());
                }
                return Err(Rejection::from_json(&e));
            }
        }
    };
    debug_assert!(dirty);
    let _g = diagnostics::enter(Pass::Collect);
    let value = parse().map_err(|e| Rejection::from_json(&e))?;
    let warnings = diagnostics::take_warnings();
    if mode == ReadMode::Exact
        && let Some(w) = warnings.iter().find(|w| !w.kind.valid_in_exact_mode())
    {
        return Err(Error::NotExact {
            kind: w.kind,
            pointer: w.pointer.clone(),
        }
        .into());
    }
    Ok(Decoded { value, warnings })
}

/// At most this many union members are removed from one document (each removal decodes
/// the document again); past it the document is refused.
const MAX_REMOVALS: usize = 32;

/// The forgiving reader's handling of unknown union members (spec §2.3): when `first`
/// failed on an unrecognised tag, the member (or, in a required slot, the object holding
/// it) is removed from the parsed document, which is decoded again, until it decodes.
/// Clean documents never get here.
fn recover<T: DeserializeOwned>(
    mode: ReadMode,
    first: Result<Decoded<T>, Rejection>,
    source: impl FnOnce() -> Option<serde_json::Value>,
) -> Result<Decoded<T>, Rejection> {
    let rejection = match first {
        Err(r) if mode == ReadMode::Forgiving && r.fault.unknown_tag => r,
        other => return other,
    };
    let Some(mut doc) = source() else {
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
        let Some((detail, shift)) = remove_unknown_member(&mut doc, &tag_pointer) else {
            return Err(current);
        };
        warnings.push(
            Warning::new(WarningKind::UnknownMember, original(&tag_pointer, &removed))
                .with_detail(detail),
        );
        removed.extend(shift);
        match run_detailed(mode, || T::deserialize(&doc)) {
            Ok(d) => {
                for mut w in d.warnings {
                    w.pointer = original(&w.pointer, &removed);
                    warnings.push(w);
                }
                return Ok(Decoded {
                    value: d.value,
                    warnings,
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

/// Removes what an unknown tag at `tag_pointer` makes removable: the union member when it
/// is a list element or a `RUN_FINISHED` outcome, the media part holding it when it is a
/// part's `source`. Returns what was done and the array element removed, if any.
fn remove_unknown_member(
    doc: &mut serde_json::Value,
    tag_pointer: &str,
) -> Option<(String, Option<(String, usize)>)> {
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
            Some(("the list element was removed".to_owned(), Some(at)))
        }
        Value::Object(o)
            if token == "outcome"
                && o.get("type").and_then(Value::as_str) == Some("RUN_FINISHED") =>
        {
            doc.pointer_mut(parent)?.as_object_mut()?.remove("outcome");
            Some((
                "the outcome was removed, so the run reads as a success".to_owned(),
                None,
            ))
        }
        Value::Object(_) if token == "source" => {
            let (list, index) = parent.rsplit_once('/')?;
            let at = remove_element(doc, list, index)?;
            Some((
                "the part holding this source (a required member) was removed from its list"
                    .to_owned(),
                Some(at),
            ))
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
fn with_pointer(error: Error, f: impl Fn(&str) -> String) -> Error {
    match error {
        Error::Invalid {
            pointer,
            message,
            line,
            column,
        } => Error::Invalid {
            pointer: f(&pointer),
            message,
            line,
            column,
        },
        Error::Syntax {
            pointer,
            message,
            line,
            column,
        } => Error::Syntax {
            pointer: f(&pointer),
            message,
            line,
            column,
        },
        Error::NotExact { kind, pointer } => Error::NotExact {
            kind,
            pointer: f(&pointer),
        },
        other => other,
    }
}
