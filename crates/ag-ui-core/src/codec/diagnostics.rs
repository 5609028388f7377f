//! What the reader noticed while decoding: the warnings of the forgiving reader
//! ([`Warning`], [`WarningKind`]) and the record of an error's place and cause ([`Fault`]),
//! gathered by the visitors in thread-local state (see `docs/design.md`, "Diagnostics").
//!
//! Clean input (the common case) is decoded once, with no bookkeeping beyond two
//! thread-local flags; only a document that needed forgiving is decoded a second time to
//! collect the pointers of what was forgiven.

use std::cell::{Cell, RefCell};
use std::fmt;

use crate::codec::pointer::{Location, escape_token};

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
    /// An event whose `type` is none of AG-UI 1.0's; a stream consumer drops it
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
    /// `RUN_STARTED.protocolVersion` is newer than
    /// [`ProtocolVersion::LATEST`](crate::ProtocolVersion::LATEST) or not `MAJOR.MINOR`
    /// (spec §10): the stream is read on, but material the producer's version
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
    /// A member that the peer's protocol version does not know, left out when writing for
    /// that peer ([`crate::write::to_string_for`]): the peer does not receive it.
    Downgraded,
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
            Self::Downgraded => "downgraded",
        }
    }

    /// Every kind, in declaration order.
    pub const ALL: [WarningKind; 17] = [
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
        Self::Downgraded,
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
                "producer protocol version newer than this reader knows or not MAJOR.MINOR (read on; newer material is stripped)"
            }
            Self::MissingMessage => "event for a message the thread does not hold (skipped)",
            Self::MissingToolCall => "event for a tool call the thread does not hold (skipped)",
            Self::RoleMismatch => "event does not apply to the role of the message it names",
            Self::ToolCallRenamed => "TOOL_CALL_START for a known call names another tool",
            Self::PatchFailed => "JSON Patch failed; nothing of it was applied",
            Self::ChunkNotApplied => {
                "chunk event given to the reducer (expand chunks first; not applied)"
            }
            Self::Downgraded => {
                "member the peer's protocol version does not know (left out for that peer)"
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
/// A warning from [`crate::read::decode`] knows only its kind and pointer. The stream stages add
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
    pub event_type: Option<crate::codec::event_type::EventType>,
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
    pub fn at_event(
        mut self,
        index: usize,
        event_type: Option<crate::codec::event_type::EventType>,
    ) -> Self {
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
    static UNKNOWN_EVENT: RefCell<Option<UnknownEvent>> = const { RefCell::new(None) };
    static FAULT: RefCell<Fault> = const { RefCell::new(Fault::new()) };
    /// Warnings counted but not kept (past [`MAX_WARNINGS`], or past the first offence in
    /// exact mode).
    static OMITTED: Cell<usize> = const { Cell::new(0) };
    /// Exact mode: whether an offence was kept (nothing after it is).
    static OFFENDED: Cell<bool> = const { Cell::new(false) };
    static EXACT: Cell<bool> = const { Cell::new(false) };
    /// Late-tag maps still handing out the entries buffered before their tag: an error
    /// meanwhile is about a member the parser is already past, so its position is wrong.
    static LATE: Cell<u32> = const { Cell::new(0) };
    /// Who puts the indices of a root array's elements into pointers: the array's own
    /// reader when it is one of this crate's (it claims the array first), else the root
    /// wrapper (for `Vec<Event>` and other serde sequences).
    static ROOT_SEQ: Cell<u8> = const { Cell::new(ROOT_SEQ_NONE) };
    static STRICT: Cell<bool> = const { Cell::new(false) };
    /// Whether anything above beyond the mode and `DIRTY` may have been written since the
    /// last reset (those writes are all on rare paths: errors, late tags, root arrays).
    static TOUCHED: Cell<bool> = const { Cell::new(false) };
}

/// Notes that a rarely written record was written (see `TOUCHED`).
#[inline]
fn touch() {
    TOUCHED.with(|t| t.set(true));
}

/// The most warnings one decode lists; the rest are counted in
/// [`Decoded::omitted_warnings`](crate::Decoded::omitted_warnings).
pub const MAX_WARNINGS: usize = 100;

/// Keeps a warning, unless the list is full (or, in exact mode, already holds the offence
/// that refuses the document): then it is only counted.
fn keep(kind: WarningKind, pointer: impl FnOnce() -> String) {
    SINK.with(|s| {
        let mut sink = s.borrow_mut();
        if sink.len() >= MAX_WARNINGS || OFFENDED.with(Cell::get) {
            OMITTED.with(|o| o.set(o.get() + 1));
            return;
        }
        sink.push(Warning::new(kind, pointer()));
        if EXACT.with(Cell::get) && !kind.valid_in_exact_mode() {
            OFFENDED.with(|o| o.set(true));
        }
    });
}

/// Sets whether the collecting pass reads in exact mode (it then keeps only the first
/// offence).
pub(crate) fn set_exact(exact: bool) {
    EXACT.with(|e| e.set(exact));
}

/// How many warnings the current collecting pass counted without keeping them.
pub(crate) fn omitted() -> usize {
    OMITTED.with(Cell::get)
}

/// A late-tag map starts handing out its buffered entries.
pub(crate) fn late_enter() {
    touch();
    LATE.with(|l| l.set(l.get().saturating_add(1)));
}

/// A late-tag map has handed out its buffered entries.
pub(crate) fn late_leave() {
    touch();
    LATE.with(|l| l.set(l.get().saturating_sub(1)));
}

/// Whether the error that ended the pass arose while entries buffered before a late tag
/// were being read (its position is then the parser's, past the tag).
pub(crate) fn ended_late() -> bool {
    LATE.with(Cell::get) > 0
}

const ROOT_SEQ_NONE: u8 = 0;
const ROOT_SEQ_PENDING: u8 = 1;
const ROOT_SEQ_CLAIMED: u8 = 2;
const ROOT_SEQ_UNCLAIMED: u8 = 3;

/// The document root is an array, about to be read.
pub(crate) fn root_seq_opened() {
    touch();
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

/// Where the error being raised is, gathered while it unwinds through the visitors.
///
/// serde's error type carries nothing but a message, so the reader's visitors note each
/// JSON Pointer segment here as an error passes through them ([`crate::codec::key::at`]),
/// outermost last; `Error::from_json` turns the record into the error's data. Only one
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

    /// Whether nothing is recorded.
    fn is_clean(&self) -> bool {
        self.pointer.is_empty()
            && self.base.is_none()
            && self.last.is_empty()
            && self.tag.is_none()
            && !self.null
            && self.missing.is_none()
            && self.owner.is_none()
            && !self.unknown_tag
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
    touch();
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
        touch();
        FAULT.with(|f| f.borrow_mut().tag = Some(tag.to_owned()));
    }
}

/// Notes that the error about to be raised is an unrecognised union tag.
#[cold]
pub(crate) fn fault_unknown_tag() {
    if MODE.with(Cell::get) != OFF {
        touch();
        FAULT.with(|f| {
            let mut f = f.borrow_mut();
            *f = Fault::new();
            f.unknown_tag = true;
        });
    }
}

/// Whether the decode in progress is in exact mode (for the rules whose forgiving reading
/// is not a warning on the same value).
#[inline]
pub(crate) fn strict() -> bool {
    STRICT.with(Cell::get)
}

/// Sets [`strict`] for one decode, restoring the previous value after it.
pub(crate) struct StrictGuard(bool);

impl StrictGuard {
    pub(crate) fn enter(exact: bool) -> Self {
        StrictGuard(STRICT.with(|s| s.replace(exact)))
    }
}

impl Drop for StrictGuard {
    fn drop(&mut self) {
        STRICT.with(|s| s.set(self.0));
    }
}

/// Notes that the error about to be raised is a forbidden `null`.
#[cold]
pub(crate) fn fault_null() {
    if MODE.with(Cell::get) != OFF {
        touch();
        FAULT.with(|f| {
            let mut f = f.borrow_mut();
            *f = Fault::new();
            f.null = true;
        });
    }
}

/// Notes that the error about to be raised is the required field `key` missing.
#[cold]
pub(crate) fn fault_missing(key: &'static str) {
    if MODE.with(Cell::get) != OFF {
        touch();
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
        touch();
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

/// The `type` of an event outside the 1.0 set, as the event's reader (in `model`) noted
/// it: the reader of a document gets it as data, without knowing the event list.
#[derive(Debug)]
pub(crate) struct UnknownEvent {
    /// The `type` as given.
    pub(crate) event_type: String,
    /// For a 0.x `THINKING_*` type, its 1.0 successor.
    pub(crate) successor: Option<crate::codec::event_type::EventType>,
}

/// Remembers the `type` of an unknown event (and, for a 0.x type, its successor) so that
/// [`decode`] can return [`ErrorKind::UnknownEventType`](crate::ErrorKind::UnknownEventType) or
/// [`ErrorKind::LegacyEventType`](crate::ErrorKind::LegacyEventType).
#[cold]
pub(crate) fn note_unknown_event(
    event_type: &str,
    successor: Option<crate::codec::event_type::EventType>,
) {
    if MODE.with(Cell::get) != OFF {
        touch();
        UNKNOWN_EVENT.with(|u| {
            *u.borrow_mut() = Some(UnknownEvent {
                event_type: event_type.to_owned(),
                successor,
            });
        });
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
pub(crate) struct ModeGuard(u8);

impl ModeGuard {
    fn enter(mode: u8) -> Self {
        let prev = MODE.with(|m| m.replace(mode));
        reset(mode);
        if mode == COLLECT {
            EXACT.with(|e| e.set(false));
        }
        ModeGuard(prev)
    }
}

/// Forgets what the current pass recorded (all but its exact-mode setting).
#[inline]
fn reset(mode: u8) {
    DIRTY.with(|d| d.set(false));
    if TOUCHED.with(|t| t.replace(false)) {
        reset_rare();
    }
    if mode == COLLECT {
        SINK.with(|s| s.borrow_mut().clear());
        OMITTED.with(|o| o.set(0));
        OFFENDED.with(|o| o.set(false));
    }
}

/// Forgets the records written on rare paths.
#[cold]
fn reset_rare() {
    UNKNOWN_EVENT.with(|u| u.borrow_mut().take());
    FAULT.with(|f| {
        // Almost always clean already (a refusal takes its record): no need to write
        // a new one.
        let mut f = f.borrow_mut();
        if !f.is_clean() {
            *f = Fault::new();
        }
    });
    LATE.with(|l| l.set(0));
    ROOT_SEQ.with(|r| r.set(ROOT_SEQ_NONE));
}

/// Starts the current pass over, as if nothing had been read: for a document the crate's
/// parser left to `serde_json` part way through.
#[cold]
pub(crate) fn restart_pass() {
    reset(MODE.with(Cell::get));
}

impl Drop for ModeGuard {
    fn drop(&mut self) {
        MODE.with(|m| m.set(self.0));
    }
}

/// Which pass of a decode is running.
#[derive(Clone, Copy)]
pub(crate) enum Pass {
    /// Notes only whether anything was forgiven.
    Detect,
    /// Collects every warning with its pointer.
    Collect,
}

/// Starts a decode pass; the previous mode comes back when the guard drops.
pub(crate) fn enter(pass: Pass) -> ModeGuard {
    ModeGuard::enter(match pass {
        Pass::Detect => DETECT,
        Pass::Collect => COLLECT,
    })
}

/// Whether the current pass met anything to forgive.
pub(crate) fn dirty() -> bool {
    DIRTY.with(Cell::get)
}

/// The `type` of an unknown event met by the current pass, if one ended it.
pub(crate) fn take_unknown_event() -> Option<UnknownEvent> {
    UNKNOWN_EVENT.with(|u| u.borrow_mut().take())
}

/// The warnings the current collecting pass gathered.
pub(crate) fn take_warnings() -> Vec<Warning> {
    SINK.with(|s| std::mem::take(&mut *s.borrow_mut()))
}
