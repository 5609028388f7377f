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
    /// No longer reported: extra members of a JSON Patch operation are kept in the
    /// operation's `extra` and written back (RFC 6902 §4 open objects). Kept so that code
    /// matching on it still compiles.
    IgnoredMember,
    /// A 0.x `THINKING_*` event, translated to its `REASONING_*` successor (spec §3.1).
    LegacyEvent,
    /// A 0.x `binary` content part, translated to a media part (spec §4).
    LegacyBinaryPart,
    /// An event whose `type` is not one of the 31 of 1.0; a stream consumer drops it
    /// (spec §2.3). Only [`crate::EventDecoder`] produces this warning.
    UnknownEventType,
    /// [`crate::ThreadState`]: a continuation, end or delta names a message that the thread
    /// does not hold; the event is skipped (no message is invented).
    MissingMessage,
    /// [`crate::ThreadState`]: a `TOOL_CALL_ARGS`, `TOOL_CALL_END` or
    /// `REASONING_ENCRYPTED_VALUE` names a tool call that the thread does not hold; skipped.
    MissingToolCall,
    /// `subagentRunId: null`, which spec §6 rule 12 forbids, read as absent: some servers
    /// write it on every event and the official client tolerates it. The exact reader
    /// rejects it; a stream decoder reports it once per run.
    LegacyNull,
    /// A member of a union whose tag (`role`, part / source / outcome `type`, patch `op`) is
    /// not one 1.0 knows, in a list or an optional slot: removed (a list element dropped,
    /// an optional member omitted; an unknown `RUN_FINISHED` outcome therefore reads as
    /// success). In a required slot (a media part's `source`) the object holding it is
    /// removed from its list instead. The pointer names the unknown tag (spec §2.3).
    UnknownMember,
    /// `RUN_STARTED.protocolVersion` is newer than [`crate::PROTOCOL_VERSION`] or not
    /// `MAJOR.MINOR` (spec §10): the stream is read on, but material the producer's version
    /// added is stripped. Only [`crate::EventDecoder`] produces this warning; the schema
    /// accepts any string, so exact mode does too.
    ProtocolVersion,
    /// [`crate::ThreadState`]: the event names a message whose role it cannot apply to (a
    /// text delta for an activity message, an activity delta for a user message, …); the
    /// event is skipped, or for `TOOL_CALL_START` a new assistant message is created.
    RoleMismatch,
    /// [`crate::ThreadState`]: a `TOOL_CALL_START` for a known call id names another tool;
    /// the call is renamed.
    ToolCallRenamed,
    /// [`crate::ThreadState`]: a `STATE_DELTA` or `ACTIVITY_DELTA` patch failed; nothing of
    /// it was applied (spec §9.4). A fresh snapshot is the recovery path.
    PatchFailed,
    /// [`crate::ThreadState`]: a chunk event reached the reducer. Chunks are expanded into
    /// start / content / end events first (spec §9.3), so they are never applied.
    ChunkNotApplied,
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
            Self::LegacyNull => "legacy-null",
            Self::UnknownMember => "unknown-member",
            Self::ProtocolVersion => "protocol-version",
            Self::MissingMessage => "missing-message",
            Self::MissingToolCall => "missing-tool-call",
            Self::RoleMismatch => "role-mismatch",
            Self::ToolCallRenamed => "tool-call-renamed",
            Self::PatchFailed => "patch-failed",
            Self::ChunkNotApplied => "chunk-not-applied",
        }
    }

    /// Every kind, in declaration order.
    pub const ALL: [WarningKind; 16] = [
        Self::UnknownField,
        Self::NullAsAbsent,
        Self::NullState,
        Self::IgnoredMember,
        Self::LegacyEvent,
        Self::LegacyBinaryPart,
        Self::UnknownEventType,
        Self::LegacyNull,
        Self::UnknownMember,
        Self::ProtocolVersion,
        Self::MissingMessage,
        Self::MissingToolCall,
        Self::RoleMismatch,
        Self::ToolCallRenamed,
        Self::PatchFailed,
        Self::ChunkNotApplied,
    ];

    /// The kind named `name` (the inverse of [`WarningKind::as_str`]).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Whether the kind is raised by [`crate::ThreadState`] when applying an event (as
    /// opposed to the reader or the stream decoder).
    #[must_use]
    pub const fn is_reducer(self) -> bool {
        matches!(
            self,
            Self::MissingMessage
                | Self::MissingToolCall
                | Self::RoleMismatch
                | Self::ToolCallRenamed
                | Self::PatchFailed
                | Self::ChunkNotApplied
        )
    }

    /// Whether the 1.0 schema accepts a document carrying this (so exact mode does too).
    #[must_use]
    pub const fn valid_in_exact_mode(self) -> bool {
        matches!(
            self,
            Self::NullState | Self::IgnoredMember | Self::ProtocolVersion
        )
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
            Self::LegacyNull => {
                "subagentRunId: null (forbidden by AG-UI 1.0 §6 rule 12; read as absent)"
            }
            Self::UnknownMember => {
                "union member with a tag unknown to AG-UI 1.0 (removed with what holds it)"
            }
            Self::ProtocolVersion => {
                "producer protocol version newer than 1.0 or not MAJOR.MINOR (read on; newer material is stripped)"
            }
            Self::MissingMessage => "event for a message the thread does not hold (skipped)",
            Self::MissingToolCall => "event for a tool call the thread does not hold (skipped)",
            Self::RoleMismatch => "event does not apply to the role of the message it names",
            Self::ToolCallRenamed => "TOOL_CALL_START for a known call names another tool",
            Self::PatchFailed => "JSON Patch failed; nothing of it was applied",
            Self::ChunkNotApplied => {
                "chunk event given to the reducer (expand chunks first; not applied)"
            }
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing the forgiving reader accepted, or that applying an event could not do, and
/// where.
///
/// A warning from [`crate::decode`] knows only its kind and pointer. The stream stages add
/// what a log needs: [`crate::EventPipeline`] and [`crate::StreamConsumer`] set the index
/// and type of the stream event that raised it, and [`crate::ThreadState`] says what it
/// could not do in `detail`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Warning {
    /// What was forgiven or skipped.
    pub kind: WarningKind,
    /// JSON Pointer (RFC 6901) of the member concerned, relative to the event (or the
    /// decoded document).
    pub pointer: String,
    /// 0-based index of the stream event that raised the warning (counting every event
    /// given to the pipeline, dropped ones included), when it came through a stream stage.
    pub event_index: Option<usize>,
    /// Type of the event that raised the warning, when known (`None` for an event dropped
    /// for its unknown type, and for warnings of a single decode).
    pub event_type: Option<crate::EventType>,
    /// What exactly happened, when the kind and pointer do not say it all (the id that was
    /// not found, why a patch failed).
    pub detail: Option<String>,
}

impl Warning {
    /// Creates a warning.
    #[must_use]
    pub fn new(kind: WarningKind, pointer: impl Into<String>) -> Self {
        Warning {
            kind,
            pointer: pointer.into(),
            event_index: None,
            event_type: None,
            detail: None,
        }
    }

    /// Sets [`Warning::detail`].
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// Sets the index and type of the event that raised the warning (what is already set
    /// is kept).
    #[must_use]
    pub fn at_event(mut self, index: usize, event_type: Option<crate::EventType>) -> Self {
        self.event_index.get_or_insert(index);
        if self.event_type.is_none() {
            self.event_type = event_type;
        }
        self
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.kind.describe(), Location(&self.pointer))?;
        if let Some(d) = &self.detail {
            write!(f, ": {d}")?;
        }
        match (self.event_index, self.event_type) {
            (Some(i), Some(t)) => write!(f, " (event {i}, {t})"),
            (Some(i), None) => write!(f, " (event {i})"),
            (None, Some(t)) => write!(f, " ({t})"),
            (None, None) => Ok(()),
        }
    }
}

/// Formats a JSON Pointer for messages (the empty pointer is the document root).
pub(crate) struct Location<'a>(pub(crate) &'a str);

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("the document root")
        } else {
            write!(f, "`{}`", self.0)
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
    /// What the forgiving reader accepted, in document order (empty on clean input).
    pub warnings: Vec<Warning>,
}

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
    static FAULT: RefCell<Fault> = const { RefCell::new(Fault::new()) };
    static STRICT: Cell<bool> = const { Cell::new(false) };
}

/// Where the error being raised is, gathered while it unwinds through the visitors.
///
/// serde's error type carries nothing but a message, so the reader's visitors note each
/// JSON Pointer segment here as an error passes through them ([`crate::codec::wire::at`]),
/// outermost last; [`Error::from_json`] turns the record into the error's data. Only one
/// error unwinds at a time; a record whose last message is not the error's is stale and
/// ignored (see [`Fault::matches`]).
#[derive(Debug, Default)]
pub(crate) struct Fault {
    /// Pointer built so far (segments are prepended as the error unwinds).
    pub(crate) pointer: String,
    /// The message of the error as first raised, before any segment was added.
    pub(crate) base: Option<String>,
    /// The message text the last segment produced (for plain serde_json callers the
    /// pointer is also written in front of the message).
    pub(crate) last: String,
    /// The tag of the outermost tagged union whose member failed (for an event: its type).
    pub(crate) tag: Option<String>,
    /// The error is a `null` where the protocol forbids one.
    pub(crate) null: bool,
    /// The required field found missing, when that is the error.
    pub(crate) missing: Option<&'static str>,
    /// The id (a required `id`, `messageId`, `toolCallId` or `subagentRunId`) of the
    /// innermost object the error is in, when that object had read it before the error.
    pub(crate) owner: Option<String>,
    /// The error is an unrecognised tag of a union (which the forgiving reader may remove).
    pub(crate) unknown_tag: bool,
}

impl Fault {
    const fn new() -> Self {
        Fault {
            pointer: String::new(),
            base: None,
            last: String::new(),
            tag: None,
            null: false,
            missing: None,
            owner: None,
            unknown_tag: false,
        }
    }

    /// Whether this record describes the error whose message (as serde_json prints it,
    /// possibly followed by its position) is `text`.
    pub(crate) fn matches(&self, text: &str) -> bool {
        self.base.is_some() && text.starts_with(self.last.as_str())
    }
}

/// Notes that the error `inner` passed member `segment` and was re-raised as `rendered`.
#[cold]
pub(crate) fn fault_at(inner: &str, segment: &dyn fmt::Display, rendered: String) {
    if MODE.with(Cell::get) == OFF {
        return;
    }
    FAULT.with(|f| {
        let mut f = f.borrow_mut();
        if f.base.is_some() && !inner.starts_with(f.last.as_str()) {
            // A record left by an error that was not raised to the end: start anew.
            *f = Fault::new();
        }
        if f.base.is_none() {
            f.base = Some(inner.to_owned());
        }
        f.pointer.insert_str(0, &format!("/{segment}"));
        f.last = rendered;
    });
}

/// Notes the tag of a tagged union whose member failed to decode.
#[cold]
pub(crate) fn fault_tag(tag: &str) {
    if MODE.with(Cell::get) != OFF {
        FAULT.with(|f| f.borrow_mut().tag = Some(tag.to_owned()));
    }
}

/// Notes that the error about to be raised is a forbidden `null`.
#[cold]
pub(crate) fn fault_null() {
    if MODE.with(Cell::get) != OFF {
        FAULT.with(|f| {
            let mut f = f.borrow_mut();
            *f = Fault::new();
            f.null = true;
        });
    }
}

/// Notes that the error about to be raised is an unrecognised union tag.
#[cold]
pub(crate) fn fault_unknown_tag() {
    if MODE.with(Cell::get) != OFF {
        FAULT.with(|f| {
            let mut f = f.borrow_mut();
            *f = Fault::new();
            f.unknown_tag = true;
        });
    }
}

/// Notes that the error about to be raised is the required field `key` missing.
#[cold]
pub(crate) fn fault_missing(key: &'static str) {
    if MODE.with(Cell::get) != OFF {
        FAULT.with(|f| {
            let mut f = f.borrow_mut();
            *f = Fault::new();
            f.missing = Some(key);
        });
    }
}

/// Notes the id of the object an error is leaving, unless an inner object gave one.
#[cold]
pub(crate) fn fault_owner(id: &str) {
    if MODE.with(Cell::get) != OFF {
        FAULT.with(|f| {
            let mut f = f.borrow_mut();
            if f.owner.is_none() {
                f.owner = Some(id.to_owned());
            }
        });
    }
}

/// Takes the record of the error that just ended a decode.
#[cold]
pub(crate) fn take_fault() -> Fault {
    FAULT.with(|f| std::mem::take(&mut *f.borrow_mut()))
}

/// Whether the decode in progress is in [`ReadMode::Exact`] (for the rules whose forgiving
/// reading is not a warning-and-continue of the same value).
#[inline]
pub(crate) fn strict() -> bool {
    STRICT.with(Cell::get)
}

/// Sets [`strict`] for one decode, restoring the previous value after it.
struct StrictGuard(bool);

impl StrictGuard {
    fn enter(mode: ReadMode) -> Self {
        StrictGuard(STRICT.with(|s| s.replace(mode == ReadMode::Exact)))
    }
}

impl Drop for StrictGuard {
    fn drop(&mut self) {
        STRICT.with(|s| s.set(self.0));
    }
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
        COLLECT => SINK.with(|s| {
            s.borrow_mut()
                .push(Warning::new(kind, format!("/{}", escape_token(key))));
        }),
        _ => {}
    }
}

/// Reports something forgiven about the value being read as a whole.
#[cold]
pub(crate) fn report_here(kind: WarningKind) {
    match MODE.with(Cell::get) {
        DETECT => DIRTY.with(|d| d.set(true)),
        COLLECT => SINK.with(|s| s.borrow_mut().push(Warning::new(kind, String::new()))),
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
        UNKNOWN_EVENT.with(|u| u.borrow_mut().take());
        FAULT.with(|f| *f.borrow_mut() = Fault::new());
        if mode == COLLECT {
            SINK.with(|s| s.borrow_mut().clear());
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
        let fault = take_fault();
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
    let _strict = StrictGuard::enter(mode);
    let dirty = {
        let _g = ModeGuard::enter(DETECT);
        match parse() {
            Ok(value) if !DIRTY.with(Cell::get) => {
                return Ok(Decoded {
                    value,
                    warnings: Vec::new(),
                });
            }
            Ok(_) => true,
            Err(e) => {
                if let Some(event_type) = UNKNOWN_EVENT.with(|u| u.borrow_mut().take()) {
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
    let _g = ModeGuard::enter(COLLECT);
    let value = parse().map_err(|e| Rejection::from_json(&e))?;
    let warnings = SINK.with(|s| std::mem::take(&mut *s.borrow_mut()));
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
