//! The error type of this crate.

use std::fmt;
use std::sync::Arc;

use ag_ui_core::{EventType, Violation};

/// Why a value could not be built or an event could not be emitted.
///
/// Every variant that is about a place inside a JSON document carries that place as a JSON
/// Pointer ([`BuildError::pointer`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A position that must hold a JSON object (activity content, a schema) holds something
    /// else.
    #[error("{}: expected a JSON object, found {found}", Loc(pointer))]
    NotAnObject {
        /// Where the value sits (`""` for the value itself).
        pointer: String,
        /// The JSON type found (`an array`, `a string`, `null`, …).
        found: &'static str,
    },
    /// A JSON Patch `path` or `from` that is not an RFC 6901 pointer.
    #[error(
        "{}: invalid JSON Pointer {value:?} (empty, or `/`-separated tokens with `~` written `~0` and `/` written `~1`)",
        Loc(pointer)
    )]
    InvalidPointer {
        /// Where the pointer sits in the patch (`/0/path`, …).
        pointer: String,
        /// The offending text.
        value: String,
    },
    /// An object schema lists a required property it does not declare.
    #[error(
        "{}: required property {name:?} is not declared in `properties`",
        Loc(pointer)
    )]
    UndeclaredRequired {
        /// Where the name sits (`/required/1`, …).
        pointer: String,
        /// The undeclared property.
        name: String,
    },
    /// A value could not be turned into JSON (or JSON into a value), for example tool
    /// arguments that do not fit the tool's argument type.
    #[error("{}: {message}", Loc(pointer))]
    Json {
        /// Where it went wrong (`""` for the document itself; for a missing field, the
        /// object lacking it).
        pointer: String,
        /// What went wrong, as serde says it.
        message: String,
    },
    /// A tool call names another tool than the one its arguments were parsed for.
    #[error("tool call {tool_call_id:?} calls {found:?}, not {expected:?}")]
    WrongTool {
        /// The call.
        tool_call_id: String,
        /// The tool the arguments were parsed for.
        expected: String,
        /// The tool the call names.
        found: String,
    },
    /// An interrupt outcome needs at least one interrupt.
    #[error("an interrupt outcome needs at least one interrupt")]
    NoInterrupts,
    /// Two interrupts of one outcome carry the same id (each interrupt of a run needs its
    /// own).
    #[error("two interrupts carry the id {id:?}: each interrupt of a run needs its own id")]
    DuplicateInterrupt {
        /// The id given twice.
        id: String,
    },
    /// A member that the protocol version the run declared does not have (for instance
    /// `encryptedValueType`, added by AG-UI 1.1, in a run that declared 1.0).
    #[error(
        "{member} needs AG-UI {needs}, and this run declared {declared}: start it with \
         protocolVersion {needs} (RunEmitter::start_for does for a caller that speaks it)"
    )]
    NotInVersion {
        /// The member's wire name.
        member: &'static str,
        /// The version the run declared on `RUN_STARTED`.
        declared: ag_ui_core::ProtocolVersion,
        /// The first version with the member.
        needs: ag_ui_core::ProtocolVersion,
    },
    /// A tool result answers a call that is not open: never made in this conversation, or
    /// already answered.
    #[error(
        "no open tool call{} to answer (open calls: {open:?})",
        Named(tool_call_id)
    )]
    NoOpenToolCall {
        /// The id answered (empty when the result was to answer the next open call).
        tool_call_id: String,
        /// The calls still open, in call order.
        open: Vec<String>,
    },
    /// An event that needs an open entity (a text message, tool call, reasoning message,
    /// step, activity or subagent invocation) was emitted without one.
    #[error("no open {kind}{}", Named(id))]
    NotOpen {
        /// What kind of entity.
        kind: &'static str,
        /// Its id or name (empty when the emitter was to pick the current one).
        id: String,
    },
    /// An entity was opened again while still open, or an id was reused where it must be
    /// unique.
    #[error("{kind} {id:?} is already open or was already used")]
    AlreadyOpen {
        /// What kind of entity.
        kind: &'static str,
        /// Its id or name.
        id: String,
    },
    /// The run cannot end while a subagent invocation is active: only the caller knows how
    /// it ended (finish, suspend or fail it first).
    #[error("subagent invocation {id:?} is still active")]
    SubagentActive {
        /// The innermost active invocation.
        id: String,
    },
    /// The run has already finished or failed; nothing more can be emitted for it.
    #[error("the run has already ended (with {0})")]
    RunEnded(EventType),
    /// The event type has no short form in this version of the crate.
    #[error("no short form for event type {0}")]
    NoShortForm(EventType),
    /// A tool call would be handed out (as pending, or for approval) with arguments that
    /// are not complete JSON, for example because the model's stream was cut off mid-call.
    #[error(
        "tool call {tool_call_id:?} has arguments that are not complete JSON ({}); answer it or end the run with RUN_ERROR",
        Shown(arguments)
    )]
    IncompleteArguments {
        /// The call.
        tool_call_id: String,
        /// Its argument text so far.
        arguments: String,
    },
    /// An event would break a lifecycle rule (spec §9.1) given what the run has emitted:
    /// a hand-built event, or one of the emitter's own after hand-built events or a
    /// `MESSAGES_SNAPSHOT` changed what the run holds. Nothing was emitted for it.
    #[error("{0}")]
    Violation(Violation),
    /// A `*_CHUNK` event was handed to the emitter: consumers expand chunks, so an emitter
    /// sends the start, content and end events a chunk stands for.
    #[error("{0} is a chunk event; emit the start, content and end events it stands for")]
    ChunkEvent(EventType),
    /// A JSON Patch for the state does not apply to the state the emitter knows (a client
    /// would fail on it the same way). Nothing was emitted.
    #[error("the state delta does not apply at {pointer}: {reason}")]
    PatchFailed {
        /// The JSON Pointer of the failing operation in the event (`/delta/<i>`).
        pointer: String,
        /// Why it failed.
        reason: String,
    },
    /// An error of `ag-ui-core` (reading, writing or framing AG-UI).
    #[error(transparent)]
    Core(CoreError),
}

/// An [`ag_ui_core::Error`] inside an [`BuildError`]: shared, so that the builders' error stays
/// `Clone`; two are equal when they say the same.
#[derive(Debug, Clone)]
pub struct CoreError(Arc<ag_ui_core::Error>);

impl CoreError {
    /// The core error.
    #[must_use]
    pub fn get(&self) -> &ag_ui_core::Error {
        &self.0
    }
}

impl std::ops::Deref for CoreError {
    type Target = ag_ui_core::Error;
    fn deref(&self) -> &ag_ui_core::Error {
        &self.0
    }
}

impl PartialEq for CoreError {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl Eq for CoreError {}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for CoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl From<ag_ui_core::Error> for BuildError {
    fn from(e: ag_ui_core::Error) -> Self {
        BuildError::Core(CoreError(Arc::new(e)))
    }
}

impl From<Violation> for BuildError {
    fn from(v: Violation) -> Self {
        BuildError::Violation(v)
    }
}

/// Shows argument text, long text cut after 60 characters.
struct Shown<'a>(&'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(60) {
            Some((at, _)) => write!(f, "{:?}… ({} bytes)", &self.0[..at], self.0.len()),
            None => write!(f, "{:?}", self.0),
        }
    }
}

impl BuildError {
    /// The JSON Pointer this error is about, when it is about a place in a document.
    #[must_use]
    pub fn pointer(&self) -> Option<&str> {
        match self {
            BuildError::NotAnObject { pointer, .. }
            | BuildError::InvalidPointer { pointer, .. }
            | BuildError::UndeclaredRequired { pointer, .. }
            | BuildError::Json { pointer, .. }
            | BuildError::PatchFailed { pointer, .. } => Some(pointer),
            _ => None,
        }
    }

    /// The same error with `prefix` put in front of its pointer (for a value nested in a
    /// larger document).
    #[must_use]
    pub fn under(mut self, prefix: &str) -> Self {
        if let BuildError::NotAnObject { pointer, .. }
        | BuildError::InvalidPointer { pointer, .. }
        | BuildError::UndeclaredRequired { pointer, .. }
        | BuildError::Json { pointer, .. } = &mut self
        {
            pointer.insert_str(0, prefix);
        }
        self
    }

    pub(crate) fn json(err: &serde_json::Error) -> Self {
        BuildError::Json {
            pointer: String::new(),
            message: err.to_string(),
        }
    }
}

/// Shows a pointer, `""` as "the document".
/// An id in a message, quoted after a space; nothing when empty (the entity was to be the
/// current or the next one, and there was none).
struct Named<'a>(&'a str);

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, " {:?}", self.0)
        }
    }
}

struct Loc<'a>(&'a str);

impl fmt::Display for Loc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("at the document root")
        } else {
            write!(f, "at {}", self.0)
        }
    }
}

/// The JSON type name of `v`, for error messages.
pub(crate) fn json_type(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// `Ok(map)` when `v` is an object, else [`BuildError::NotAnObject`] at `pointer`.
pub(crate) fn into_object(
    v: serde_json::Value,
    pointer: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, BuildError> {
    match v {
        serde_json::Value::Object(m) => Ok(m),
        other => Err(BuildError::NotAnObject {
            pointer: pointer.to_owned(),
            found: json_type(&other),
        }),
    }
}

/// Serializes `value` to JSON, naming the failing member.
pub(crate) fn to_value<T: serde::Serialize + ?Sized>(
    value: &T,
) -> Result<serde_json::Value, BuildError> {
    serde_json::to_value(value).map_err(|e| BuildError::json(&e))
}
