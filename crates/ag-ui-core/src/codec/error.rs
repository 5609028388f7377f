//! The crate's one error type.

use crate::codec::diagnostics::{Fault, WarningKind};
use crate::codec::pointer::Location;

/// A boxed error that crosses threads: what an agent's stream, a transport or a store may
/// fail with. One definition for every crate of the workspace.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong reading or writing AG-UI.
///
/// The representation is private; read an error through its accessors: [`Error::kind`]
/// (what went wrong, to match on), [`Error::pointer`] (where in the document, a JSON
/// Pointer, RFC 6901; the empty pointer is the document root), [`Error::line_column`]
/// (where in the input text), and the details of some kinds ([`Error::event_type`],
/// [`Error::successor`], [`Error::warning_kind`], [`Error::offset`]). Every error about a
/// document has a pointer (reading and writing alike); only the two about a byte stream,
/// [`ErrorKind::Sse`] and [`ErrorKind::Io`], have none. The message ([`Display`]) says what
/// was expected and what was found, and where.
///
/// [`Display`]: std::fmt::Display
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Error(Box<Repr>);

/// The private representation of [`Error`]: one variant per [`ErrorKind`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum Repr {
    /// The input is not well-formed JSON (or ends early).
    #[error(
        "malformed JSON at {}{}: {message}",
        Location(pointer),
        LineCol(*at)
    )]
    Syntax {
        /// Pointer of the member being read when the syntax broke (may be the root).
        pointer: String,
        /// What the parser expected.
        message: String,
        /// 1-based line and column of the offending byte.
        at: Option<(usize, usize)>,
    },
    /// Arrays and objects nested deeper than the reader allows (127 levels): refused before
    /// the stack is at risk.
    #[error(
        "document nested too deep at {}{}: arrays and objects nest at most 127 levels deep",
        Location(pointer),
        LineCol(*at)
    )]
    TooDeep {
        /// Pointer of the member being read when the limit was met: the container one
        /// level too deep, or the unknown member being skipped that holds it.
        pointer: String,
        /// 1-based line and column of the offending byte (`None` when not read from text).
        at: Option<(usize, usize)>,
    },
    /// Well-formed JSON that breaks the AG-UI 1.0 shape.
    #[error("invalid AG-UI document at {}: {message}{}", Location(pointer), LineCol(*at))]
    Invalid {
        /// Pointer of the offending member (for a missing field: of the object lacking it).
        pointer: String,
        /// What was expected and what was found.
        message: String,
        /// 1-based line and column in the input text (`None` when not read from text).
        at: Option<(usize, usize)>,
    },
    /// An event whose `type` is none of the AG-UI event types this crate knows.
    #[error(
        "unknown event type {:?} (not one of the {} AG-UI event types)",
        crate::codec::shown::Shown(event_type),
        crate::codec::event_type::EventType::ALL.len()
    )]
    UnknownEventType {
        /// The `type` value found.
        event_type: String,
    },
    /// A 0.x `THINKING_*` event read as a single document.
    #[error(
        "{event_type} is a 0.x event type retired in AG-UI 1.0 (its successor is {successor}); \
         read 0.x streams with `EventDecoder`, which translates it"
    )]
    LegacyEventType {
        /// The `type` value found.
        event_type: String,
        /// The 1.0 event type it became.
        successor: crate::codec::event_type::EventType,
    },
    /// Exact mode refused something the forgiving reader would have accepted.
    #[error("not exact AG-UI 1.0 at {}: {}", Location(pointer), kind_text(*kind))]
    NotExact {
        /// What the forgiving reader would have forgiven.
        kind: WarningKind,
        /// Where.
        pointer: String,
    },
    /// A value could not be written as AG-UI 1.0.
    #[error("cannot encode AG-UI JSON at {}: {message}", Location(pointer))]
    Encode {
        /// Pointer of the member that cannot be written, in the document being written.
        pointer: String,
        /// What is wrong with the value.
        message: String,
    },
    /// A Server-Sent Events frame broke the framing rules or a size cap.
    #[error("SSE stream error at byte {offset}: {message}")]
    Sse {
        /// Byte offset in the stream where the problem was detected.
        offset: u64,
        /// What went wrong.
        message: String,
    },
    /// Reading or writing the underlying stream failed.
    #[error("I/O error: {0}")]
    Io(#[source] std::io::Error),
}

impl From<Repr> for Error {
    #[cold]
    fn from(repr: Repr) -> Self {
        Error(Box::new(repr))
    }
}

impl From<std::io::Error> for Error {
    #[cold]
    fn from(e: std::io::Error) -> Self {
        Repr::Io(e).into()
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn kind_text(kind: WarningKind) -> String {
    let w = crate::codec::diagnostics::Warning::new(kind, "");
    let s = w.to_string();
    s.strip_suffix(" at the document root")
        .unwrap_or(&s)
        .to_owned()
}

struct LineCol(Option<(usize, usize)>);

impl std::fmt::Display for LineCol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some((line, column)) => write!(f, " (line {line}, column {column})"),
            None => Ok(()),
        }
    }
}

/// What serde_json said, recognised: the one place that reads serde_json's message texts.
#[derive(Debug, PartialEq, Eq)]
enum JsonFault<'a> {
    /// Malformed input (a syntax or end-of-input message), with the message.
    Syntax(&'a str),
    /// Nesting beyond serde_json's recursion limit.
    TooDeep,
    /// A type or value mismatch, with the message.
    Data(&'a str),
}

/// Recognises serde_json's message `raised` (the text of an error as first raised, possibly
/// followed by serde_json's ` at line L column C`). A syntax error met inside a member is
/// re-raised by the visitors with the member's pointer, which makes serde_json report it as
/// a data error: the message tells them apart.
fn recognise(raised: &str, line: usize, column: usize, syntax: bool) -> JsonFault<'_> {
    let message = raised
        .strip_suffix(&format!(" at line {line} column {column}"))
        .unwrap_or(raised);
    let syntax = syntax
        || matches!(
            message,
            "EOF while parsing a list"
                | "EOF while parsing an object"
                | "EOF while parsing a string"
                | "EOF while parsing a value"
                | "expected `:`"
                | "expected `,` or `]`"
                | "expected `,` or `}`"
                | "expected ident"
                | "expected value"
                | "expected `\"`"
                | "invalid escape"
                | "invalid number"
                | "number out of range"
                | "invalid unicode code point"
                | "control character (\\u0000-\\u001F) found while parsing a string"
                | "key must be a string"
                | "float key must be finite (got NaN or +/-inf)"
                | "lone leading surrogate in hex escape"
                | "trailing comma"
                | "trailing characters"
                | "unexpected end of hex escape"
                | "recursion limit exceeded"
        );
    match message {
        "recursion limit exceeded" => JsonFault::TooDeep,
        m if syntax => JsonFault::Syntax(m),
        m => JsonFault::Data(m),
    }
}

/// Adds what serde_json's terse message leaves implicit.
fn explain_syntax(message: &str) -> String {
    match message {
        "number out of range" => {
            "number out of range (beyond the largest finite 64-bit float)".to_owned()
        }
        // A lone UTF-16 surrogate escape: JSON text is Unicode, so a string holds whole
        // characters and a pair cannot be split across two strings (two deltas).
        "unexpected end of hex escape" => "unexpected end of hex escape (a lone UTF-16 \
             surrogate: \\ud800–\\udbff must be followed by a \\udc00–\\udfff escape; a string \
             holds whole characters, so a pair cannot be split across two strings)"
            .to_owned(),
        "lone leading surrogate in hex escape" => "lone leading surrogate in hex escape (a lone \
             UTF-16 surrogate: \\udc00–\\udfff must follow a \\ud800–\\udbff escape; a string \
             holds whole characters, so a pair cannot be split across two strings)"
            .to_owned(),
        other => other.to_owned(),
    }
}

/// What went wrong, in a form to match on: [`Error::kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Malformed JSON, or input that ends early. Pointer: the member being read when the
    /// syntax broke (may be the root); line and column of the offending byte.
    Syntax,
    /// Arrays and objects nested deeper than the readers allow (127 levels), refused before
    /// the stack is at risk. Pointer: the member being read when the limit was met (the
    /// container one level too deep, or the member holding it); line and column when read
    /// from text.
    TooDeep,
    /// Well-formed JSON outside the AG-UI 1.0 shape: a missing required field, a value of
    /// the wrong JSON type, a value outside an enumeration or bound. Pointer: the offending
    /// member (for a missing field, the object lacking it); line and column when read from
    /// text.
    Invalid,
    /// An event whose `type` is none of AG-UI 1.0's ([`Error::event_type`]). Stream
    /// consumers drop such events with a warning (spec §2.3); it is its own kind so that
    /// they can. Pointer: `/type`.
    UnknownEventType,
    /// A 0.x `THINKING_*` event read as a single document ([`Error::event_type`],
    /// [`Error::successor`]); [`crate::EventDecoder`] translates these (they need the
    /// stream's context to get their ids). Pointer: `/type`.
    LegacyEventType,
    /// Refused by exact mode: something the forgiving reader would have accepted with a
    /// warning of [`Error::warning_kind`]. Pointer: where.
    NotExact,
    /// A value that cannot be written as AG-UI 1.0: an integer beyond ±(2^53 − 1) (or a
    /// count beyond 2^53 − 1), an invalid JSON Pointer, arrays and objects nested deeper
    /// than 127 levels. Pointer: the member in the document being written.
    Encode,
    /// A Server-Sent Events frame broke the framing rules or a size cap, at byte
    /// [`Error::offset`] of the stream. No pointer.
    Sse,
    /// The underlying reader or writer failed ([`std::error::Error::source`] is the
    /// `std::io::Error`). No pointer.
    Io,
}

impl Error {
    /// What kind of error this is.
    ///
    /// ```
    /// use ag_ui_core::{ErrorKind, Event};
    ///
    /// let err = ag_ui_core::read::from_str::<Event>(r#"{"type":"RUN_ERROR"}"#).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Invalid);
    /// assert_eq!(err.pointer(), Some(""));
    /// assert_eq!(err.line_column(), Some((1, 20)));
    /// let err = ag_ui_core::read::from_str::<Event>(r#"{"type":"RUN_ERROR","#).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Syntax);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match &*self.0 {
            Repr::Syntax { .. } => ErrorKind::Syntax,
            Repr::TooDeep { .. } => ErrorKind::TooDeep,
            Repr::Invalid { .. } => ErrorKind::Invalid,
            Repr::UnknownEventType { .. } => ErrorKind::UnknownEventType,
            Repr::LegacyEventType { .. } => ErrorKind::LegacyEventType,
            Repr::NotExact { .. } => ErrorKind::NotExact,
            Repr::Encode { .. } => ErrorKind::Encode,
            Repr::Sse { .. } => ErrorKind::Sse,
            Repr::Io(_) => ErrorKind::Io,
        }
    }

    /// The JSON Pointer (RFC 6901) of the member this error is about; the empty pointer is
    /// the document root. Every kind about a document has one, reading and writing alike;
    /// `None` only for [`ErrorKind::Sse`] and [`ErrorKind::Io`], which are about a byte
    /// stream (see [`Error::offset`]).
    ///
    /// ```
    /// use ag_ui_core::{ErrorKind, Event, JsonPatchOperation, StateDeltaEvent};
    ///
    /// let patch = vec![JsonPatchOperation::remove("/a"), JsonPatchOperation::remove("b")];
    /// let event: Event = StateDeltaEvent::new(patch).into();
    /// let err = ag_ui_core::write::to_string(&event).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Encode);
    /// assert_eq!(err.pointer(), Some("/delta/1/path"));
    /// assert_eq!(err.line_column(), None);
    /// ```
    #[must_use]
    pub fn pointer(&self) -> Option<&str> {
        match &*self.0 {
            Repr::Syntax { pointer, .. }
            | Repr::TooDeep { pointer, .. }
            | Repr::Invalid { pointer, .. }
            | Repr::NotExact { pointer, .. }
            | Repr::Encode { pointer, .. } => Some(pointer),
            Repr::UnknownEventType { .. } | Repr::LegacyEventType { .. } => Some("/type"),
            Repr::Sse { .. } | Repr::Io(_) => None,
        }
    }

    /// 1-based line and column in the input text, when the error is about a document read
    /// from text (`None` for a value read from a `serde_json::Value`, for writing, and for
    /// the kinds without a pointer).
    #[must_use]
    pub fn line_column(&self) -> Option<(usize, usize)> {
        match &*self.0 {
            Repr::Syntax { at, .. } | Repr::TooDeep { at, .. } | Repr::Invalid { at, .. } => *at,
            _ => None,
        }
    }

    /// The `type` found, for [`ErrorKind::UnknownEventType`] and
    /// [`ErrorKind::LegacyEventType`].
    #[must_use]
    pub fn event_type(&self) -> Option<&str> {
        match &*self.0 {
            Repr::UnknownEventType { event_type } | Repr::LegacyEventType { event_type, .. } => {
                Some(event_type)
            }
            _ => None,
        }
    }

    /// The 1.0 event type a 0.x type became, for [`ErrorKind::LegacyEventType`].
    #[must_use]
    pub fn successor(&self) -> Option<crate::codec::event_type::EventType> {
        match &*self.0 {
            Repr::LegacyEventType { successor, .. } => Some(*successor),
            _ => None,
        }
    }

    /// What the forgiving reader would have forgiven, for [`ErrorKind::NotExact`].
    #[must_use]
    pub fn warning_kind(&self) -> Option<WarningKind> {
        match &*self.0 {
            Repr::NotExact { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    /// The byte offset in the stream where an [`ErrorKind::Sse`] error was detected.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match &*self.0 {
            Repr::Sse { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    /// The representation, to change.
    pub(crate) fn repr_mut(&mut self) -> &mut Repr {
        &mut self.0
    }

    /// Converts a `serde_json` error raised while this crate's visitors ran, taking the
    /// pointer from the reader's fault record.
    pub(crate) fn from_json(e: &serde_json::Error, fault: &Fault) -> Self {
        let (line, column) = (e.line(), e.column());
        let at = (line > 0).then_some((line, column));
        let text = e.to_string();
        if e.classify() == serde_json::error::Category::Io {
            return Repr::Io(std::io::Error::other(text)).into();
        }
        let (pointer, raised) = match &fault.base {
            Some(base) if fault.matches(&text) => (fault.pointer.clone(), base.as_str()),
            _ => (String::new(), text.as_str()),
        };
        let syntax = matches!(
            e.classify(),
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof
        );
        match recognise(raised, line, column, syntax) {
            JsonFault::TooDeep => Repr::TooDeep { pointer, at },
            JsonFault::Syntax(m) => Repr::Syntax {
                pointer,
                message: crate::codec::shown::bounded(explain_syntax(m)),
                at,
            },
            JsonFault::Data(m) => Repr::Invalid {
                pointer,
                message: crate::codec::shown::bounded(m.to_owned()),
                at,
            },
        }
        .into()
    }

    /// A document outside the AG-UI 1.0 shape, at `pointer`, not read from text.
    #[cold]
    pub(crate) fn invalid(pointer: String, message: String) -> Self {
        Repr::Invalid {
            pointer,
            message,
            at: None,
        }
        .into()
    }

    /// A value that cannot be written, at `pointer`.
    #[cold]
    pub(crate) fn encode(pointer: String, message: String) -> Self {
        Repr::Encode { pointer, message }.into()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail by panicking")]
mod tests {
    use super::{JsonFault, recognise};

    /// serde_json's own messages, as the reader meets them.
    #[test]
    fn recognises_serde_json_messages() {
        for (json, kind) in [
            ("[", "syntax"),
            ("x", "syntax"),
            ("[1,]", "syntax"),
            ("1 2", "syntax"),
        ] {
            let e = serde_json::from_str::<serde_json::Value>(json).unwrap_err();
            let text = e.to_string();
            let f = recognise(&text, e.line(), e.column(), false);
            assert!(
                matches!(f, JsonFault::Syntax(m) if !m.contains(" at line ")),
                "{json}: {f:?} ({kind})"
            );
        }
        let deep = "[".repeat(200);
        let e = serde_json::from_str::<serde_json::Value>(&deep).unwrap_err();
        assert_eq!(
            recognise(&e.to_string(), e.line(), e.column(), false),
            JsonFault::TooDeep
        );
        let e = serde_json::from_str::<String>("1").unwrap_err();
        assert_eq!(
            recognise(&e.to_string(), e.line(), e.column(), false),
            JsonFault::Data("invalid type: integer `1`, expected a string")
        );
        assert_eq!(
            recognise("missing required field `runId`", 0, 0, false),
            JsonFault::Data("missing required field `runId`")
        );
    }
}
