//! The crate's one error type.

use crate::codec::read::{Location, WarningKind};

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
    let w = crate::codec::read::Warning::new(kind, "");
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

/// Whether `message` is one of the messages serde_json gives for malformed input (its
/// syntax and end-of-input error codes), as opposed to a type or value mismatch.
fn is_syntax_message(message: &str) -> bool {
    matches!(
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
    )
}

/// Adds what serde_json's terse message leaves implicit, for the two limits a hostile
/// document runs into.
fn explain_syntax(message: &str) -> String {
    match message {
        "recursion limit exceeded" => {
            "recursion limit exceeded (arrays and objects nest at most 127 levels deep)".to_owned()
        }
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

impl Error {
    /// Converts a `serde_json` error raised by this crate's visitors, recovering the pointer
    /// they put at the front of the message.
    pub(crate) fn from_json(e: serde_json::Error) -> Self {
        let (line, column) = (e.line(), e.column());
        let full = e.to_string();
        let suffix = format!(" at line {line} column {column}");
        let text = full.strip_suffix(&suffix).unwrap_or(&full);
        let (pointer, message) = crate::codec::wire::split_pointer(text);
        // A syntax error met inside a member was re-raised by the visitors with the
        // member's pointer, which turns it into a data error for serde_json: recover it.
        let category = match e.classify() {
            serde_json::error::Category::Data if is_syntax_message(message) => {
                serde_json::error::Category::Syntax
            }
            other => other,
        };
        let message = crate::codec::shown::bounded(explain_syntax(message));
        match category {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                Error::Syntax {
                    pointer,
                    message,
                    line,
                    column,
                }
            }
            serde_json::error::Category::Io => Error::Io(std::io::Error::other(message)),
            serde_json::error::Category::Data => Error::Invalid {
                pointer,
                message,
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
            | Error::Invalid { pointer, .. }
            | Error::NotExact { pointer, .. } => Some(pointer),
            Error::UnknownEventType { .. } | Error::LegacyEventType { .. } => Some("/type"),
            _ => None,
        }
    }
}
