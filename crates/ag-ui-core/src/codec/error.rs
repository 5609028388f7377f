//! The crate's one error type.

use crate::codec::diagnostics::{Fault, WarningKind};
use crate::codec::pointer::Location;

/// A boxed error that crosses threads: what an agent's stream, a transport or a store may
/// fail with. One definition for every crate of the workspace.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong reading or writing AG-UI.
///
/// Every variant about a document says where: a JSON Pointer (RFC 6901; the empty pointer
/// is the document root) and, for text input, the line and column.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not well-formed JSON (or ends early).
    #[error(
        "malformed JSON at {} (line {line}, column {column}): {message}",
        Location(pointer)
    )]
    Syntax {
        /// Pointer of the member being read when the syntax broke (may be the root).
        pointer: String,
        /// What the parser expected.
        message: String,
        /// 1-based line of the offending byte.
        line: usize,
        /// 1-based column of the offending byte.
        column: usize,
    },
    /// Arrays and objects nested deeper than the reader allows (127 levels): refused before
    /// the stack is at risk.
    #[error(
        "document nested too deep at {} (line {line}, column {column}): arrays and objects nest at most 127 levels deep",
        Location(pointer)
    )]
    TooDeep {
        /// Pointer of the member being read when the limit was met: the container one
        /// level too deep, or the unknown member being skipped that holds it.
        pointer: String,
        /// 1-based line of the offending byte (0 when not read from text).
        line: usize,
        /// 1-based column of the offending byte (0 when not read from text).
        column: usize,
    },
    /// Well-formed JSON that breaks the AG-UI 1.0 shape: a missing required field, a value of
    /// the wrong JSON type, a value outside an enumeration or bound.
    #[error("invalid AG-UI document at {}: {message}{}", Location(pointer), LineCol(*line, *column))]
    Invalid {
        /// Pointer of the offending member (for a missing field: of the object lacking it).
        pointer: String,
        /// What was expected and what was found.
        message: String,
        /// 1-based line in the input text (0 when not read from text).
        line: usize,
        /// 1-based column in the input text (0 when not read from text).
        column: usize,
    },
    /// An event whose `type` is not one of the 31 of AG-UI 1.0. Stream consumers drop such
    /// events with a warning (spec §2.3); it is its own variant so that they can.
    #[error(
        "unknown event type {:?} (not one of the 31 event types of AG-UI 1.0)",
        crate::codec::shown::Shown(event_type)
    )]
    UnknownEventType {
        /// The `type` value found.
        event_type: String,
    },
    /// A 0.x `THINKING_*` event read as a single document. [`crate::EventDecoder`] translates
    /// these (they need the stream's context to get their ids).
    #[error(
        "{event_type} is a 0.x event type retired in AG-UI 1.0 (its successor is {successor}); \
         read 0.x streams with `EventDecoder`, which translates it"
    )]
    LegacyEventType {
        /// The `type` value found.
        event_type: String,
        /// The 1.0 event type it became.
        successor: crate::EventType,
    },
    /// Exact mode refused something the forgiving reader would have accepted.
    #[error("not exact AG-UI 1.0 at {}: {}", Location(pointer), kind_text(*kind))]
    NotExact {
        /// What the forgiving reader would have forgiven.
        kind: WarningKind,
        /// Where.
        pointer: String,
    },
    /// A value could not be written as AG-UI 1.0 (for example a count above 2^53 − 1).
    #[error("cannot encode AG-UI JSON: {message}")]
    Encode {
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
    Io(#[from] std::io::Error),
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

struct LineCol(usize, usize);

impl std::fmt::Display for LineCol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 == 0 {
            Ok(())
        } else {
            write!(f, " (line {}, column {})", self.0, self.1)
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
    /// Malformed JSON ([`Error::Syntax`]).
    Syntax,
    /// Nesting beyond the reader's limit ([`Error::TooDeep`]).
    TooDeep,
    /// Well-formed JSON outside the AG-UI 1.0 shape ([`Error::Invalid`]).
    Invalid,
    /// An event `type` outside the 31 of 1.0 ([`Error::UnknownEventType`]).
    UnknownEventType,
    /// A 0.x event type read as a single document ([`Error::LegacyEventType`]).
    LegacyEventType,
    /// Refused by exact mode ([`Error::NotExact`]).
    NotExact,
    /// A value that cannot be written as AG-UI 1.0 ([`Error::Encode`]).
    Encode,
    /// SSE framing or a size cap ([`Error::Sse`]).
    Sse,
    /// The underlying reader or writer failed ([`Error::Io`]).
    Io,
}

impl Error {
    /// What kind of error this is.
    ///
    /// ```
    /// use ag_ui_core::{ErrorKind, Event};
    ///
    /// let err = ag_ui_core::from_str::<Event>(r#"{"type":"RUN_ERROR"}"#).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Invalid);
    /// assert_eq!(err.pointer(), Some(""));
    /// let err = ag_ui_core::from_str::<Event>(r#"{"type":"RUN_ERROR","#).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Syntax);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Syntax { .. } => ErrorKind::Syntax,
            Error::TooDeep { .. } => ErrorKind::TooDeep,
            Error::Invalid { .. } => ErrorKind::Invalid,
            Error::UnknownEventType { .. } => ErrorKind::UnknownEventType,
            Error::LegacyEventType { .. } => ErrorKind::LegacyEventType,
            Error::NotExact { .. } => ErrorKind::NotExact,
            Error::Encode { .. } => ErrorKind::Encode,
            Error::Sse { .. } => ErrorKind::Sse,
            Error::Io(_) => ErrorKind::Io,
        }
    }

    /// 1-based line and column in the input text, when the error is about a document read
    /// from text.
    #[must_use]
    pub fn line_column(&self) -> Option<(usize, usize)> {
        match self {
            Error::Syntax { line, column, .. }
            | Error::TooDeep { line, column, .. }
            | Error::Invalid { line, column, .. }
                if *line > 0 =>
            {
                Some((*line, *column))
            }
            _ => None,
        }
    }

    /// Converts a `serde_json` error raised while this crate's visitors ran, taking the
    /// pointer from the reader's fault record.
    pub(crate) fn from_json(e: &serde_json::Error, fault: &Fault) -> Self {
        let (line, column) = (e.line(), e.column());
        let text = e.to_string();
        if e.classify() == serde_json::error::Category::Io {
            return Error::Io(std::io::Error::other(text));
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
            JsonFault::TooDeep => Error::TooDeep {
                pointer,
                line,
                column,
            },
            JsonFault::Syntax(m) => Error::Syntax {
                pointer,
                message: crate::codec::shown::bounded(explain_syntax(m)),
                line,
                column,
            },
            JsonFault::Data(m) => Error::Invalid {
                pointer,
                message: crate::codec::shown::bounded(m.to_owned()),
                line,
                column,
            },
        }
    }

    /// Converts a serialization error.
    pub(crate) fn encode(e: &serde_json::Error) -> Self {
        Error::Encode {
            message: e.to_string(),
        }
    }

    /// The JSON Pointer this error is about, if it is about a document member.
    #[must_use]
    pub fn pointer(&self) -> Option<&str> {
        match self {
            Error::Syntax { pointer, .. }
            | Error::TooDeep { pointer, .. }
            | Error::Invalid { pointer, .. }
            | Error::NotExact { pointer, .. } => Some(pointer),
            Error::UnknownEventType { .. } | Error::LegacyEventType { .. } => Some("/type"),
            _ => None,
        }
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
