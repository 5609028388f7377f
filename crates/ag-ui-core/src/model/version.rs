//! Protocol versions: [`ProtocolVersion`], the members each version after 1.0 added
//! ([`VERSIONED_FIELDS`]), and how a value is read or written for a peer of an older
//! version ([`Versioned`]).
//!
//! The crate's ordinary reader and writer speak [`ProtocolVersion::LATEST`]. For a peer of
//! an older version, [`Versioned::downgrade`] removes what that version does not know and
//! reports each removal; [`decode_for`] reads as a receiver of that version does (the
//! newer members stripped as unknown fields, or refused in exact mode), and
//! [`to_string_for`] / [`to_vec_for`] write what such a peer may receive.

use std::fmt;
use std::str::FromStr;

use serde::de::DeserializeOwned;

use crate::codec::diagnostics::{MAX_WARNINGS, Warning, WarningKind};
use crate::codec::error::{Error, Repr};
use crate::codec::read::{Decoded, ReadMode, decode};
use crate::codec::write::{Encode, to_vec};
use crate::model::content::Content;
use crate::model::event::{Event, EventType, MessagesSnapshotEvent, RunStartedEvent};
use crate::model::input::RunAgentInput;
use crate::model::message::{
    AssistantMessage, DeveloperMessage, Message, ReasoningMessage, SystemMessage, ToolMessage,
    UserMessage,
};
use crate::model::outcome::RunFinishedOutcome;
use crate::model::tool::ToolCall;

/// A protocol or package version as peers declare it: `MAJOR.MINOR` (the grammar of
/// `protocolVersion`) or `MAJOR.MINOR.PATCH` (the 0.x package versions older agents
/// report). Versions compare numerically, component by component (`1.10` is newer than
/// `1.9`), so an unknown newer version still orders correctly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub struct ProtocolVersion {
    /// Major component.
    pub major: u32,
    /// Minor component.
    pub minor: u32,
    /// Patch component (0 when not given).
    pub patch: u32,
}

impl ProtocolVersion {
    /// AG-UI 1.0, what the official 1.0.0 SDKs speak.
    pub const V1_0: ProtocolVersion = ProtocolVersion::new(1, 0, 0);
    /// AG-UI 1.1: adds `encryptedValueType` beside every `encryptedValue`.
    pub const V1_1: ProtocolVersion = ProtocolVersion::new(1, 1, 0);
    /// The newest version this crate knows: what its ordinary reader and writer speak.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V1_1;
    /// The last version before content parts (user message `content` is text only).
    pub const BEFORE_CONTENT_PARTS: ProtocolVersion = ProtocolVersion::new(0, 0, 39);
    /// The first version with subagents (the `SUBAGENT_*` events, `subagentRunId`): the
    /// release after 0.0.57.
    pub const SUBAGENTS: ProtocolVersion = ProtocolVersion::new(0, 0, 58);
    /// The 0.x releases, as the first version of an element this crate does not date more
    /// precisely: every peer is taken to know it (0.0.0 orders before every release).
    pub const V0: ProtocolVersion = ProtocolVersion::new(0, 0, 0);

    /// A version from its components.
    #[must_use]
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        ProtocolVersion {
            major,
            minor,
            patch,
        }
    }

    /// Parses `MAJOR.MINOR` or `MAJOR.MINOR.PATCH` (decimal components, nothing else).
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        let mut parts = s.split('.');
        let num = |p: Option<&str>| -> Option<u32> {
            let p = p?;
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            p.parse().ok()
        };
        let major = num(parts.next())?;
        let minor = num(parts.next())?;
        let patch = match parts.next() {
            None => 0,
            p => num(p)?,
        };
        if parts.next().is_some() {
            return None;
        }
        Some(ProtocolVersion::new(major, minor, patch))
    }

    /// The version two parties both speak: the older of the two (a producer answers a
    /// consumer in the highest version both know).
    #[must_use]
    pub fn common(self, other: ProtocolVersion) -> ProtocolVersion {
        self.min(other)
    }

    /// The version a producer of this crate answers a run input with, given the input's
    /// `protocolVersion`: the highest version both sides speak. An input without one comes
    /// from a caller older than 1.0, served 1.0 as before; a declaration that is not
    /// `MAJOR.MINOR` is read as a newer version (it cannot be older than the field), so it
    /// is answered with [`LATEST`](Self::LATEST).
    ///
    /// ```
    /// use ag_ui_core::ProtocolVersion;
    ///
    /// assert_eq!(ProtocolVersion::answer_for(Some("1.1")), ProtocolVersion::V1_1);
    /// assert_eq!(ProtocolVersion::answer_for(Some("1.0")), ProtocolVersion::V1_0);
    /// assert_eq!(ProtocolVersion::answer_for(Some("1.10")), ProtocolVersion::LATEST);
    /// assert_eq!(ProtocolVersion::answer_for(None), ProtocolVersion::V1_0);
    /// ```
    #[must_use]
    pub fn answer_for(declared: Option<&str>) -> ProtocolVersion {
        match declared {
            None => ProtocolVersion::V1_0,
            Some(text) => ProtocolVersion::parse(text).map_or(ProtocolVersion::LATEST, |v| {
                v.common(ProtocolVersion::LATEST)
            }),
        }
    }

    /// The members of [`VERSIONED_FIELDS`] that this version does not know.
    pub fn unknown_fields(self) -> impl Iterator<Item = &'static VersionedField> {
        VERSIONED_FIELDS.iter().filter(move |f| f.since > self)
    }

    /// Whether a peer of this version knows events of type `event_type` (the event
    /// table's `since` column is not newer).
    ///
    /// ```
    /// use ag_ui_core::{EventType, ProtocolVersion};
    ///
    /// assert!(ProtocolVersion::V1_0.knows(EventType::SubagentStarted));
    /// assert!(!ProtocolVersion::new(0, 0, 57).knows(EventType::SubagentStarted));
    /// ```
    #[must_use]
    pub fn knows(self, event_type: EventType) -> bool {
        event_type.since() <= self
    }

    /// The event types this version does not know, in table order.
    pub fn unknown_events(self) -> impl Iterator<Item = EventType> {
        EventType::ALL
            .iter()
            .copied()
            .filter(move |t| !self.knows(*t))
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.patch == 0 {
            write!(f, "{}.{}", self.major, self.minor)
        } else {
            write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
        }
    }
}

/// The error of parsing a [`ProtocolVersion`] from text that is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseVersionError {
    /// The text that was given.
    pub text: String,
}

impl fmt::Display for ParseVersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "protocol version {:?} is not MAJOR.MINOR or MAJOR.MINOR.PATCH (e.g. \"1.1\", \
             \"0.0.45\")",
            crate::codec::shown::Shown(&self.text)
        )
    }
}

impl std::error::Error for ParseVersionError {}

impl FromStr for ProtocolVersion {
    type Err = ParseVersionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProtocolVersion::parse(s).ok_or_else(|| ParseVersionError { text: s.to_owned() })
    }
}

/// A member that a protocol version after 1.0 added to a definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct VersionedField {
    /// The definition (struct) that holds it, as the schema names it.
    pub definition: &'static str,
    /// Its wire name: an optional member of the definition.
    pub field: &'static str,
    /// The first version that has it.
    pub since: ProtocolVersion,
}

impl VersionedField {
    /// The member `field` of `definition`, first in `since`.
    #[must_use]
    pub const fn new(
        definition: &'static str,
        field: &'static str,
        since: ProtocolVersion,
    ) -> Self {
        VersionedField {
            definition,
            field,
            since,
        }
    }
}

const fn since_1_1(definition: &'static str) -> VersionedField {
    VersionedField::new(definition, "encryptedValueType", ProtocolVersion::V1_1)
}

/// Every member added after AG-UI 1.0, one line per definition that holds it: the one
/// table of member versions (the event table, [`for_each_event!`](crate::for_each_event),
/// holds the events' versions). What a peer of an older version is sent ([`Versioned`],
/// [`downgrade_event`]) and the schema crate's per-version export both follow it; a line
/// naming a member its definition does not have makes the schema crate's export fail.
pub const VERSIONED_FIELDS: &[VersionedField] = &[
    since_1_1("ReasoningEncryptedValueEvent"),
    since_1_1("DeveloperMessage"),
    since_1_1("SystemMessage"),
    since_1_1("AssistantMessage"),
    since_1_1("UserMessage"),
    since_1_1("ToolMessage"),
    since_1_1("ReasoningMessage"),
    since_1_1("ToolCall"),
];

/// Removes from a value of `definition` (through `take`, which removes an optional member
/// by wire name and says whether it was set) every member [`VERSIONED_FIELDS`] lists for it
/// that `version` does not know, calling `removed` with each one's pointer below `at`.
pub(crate) fn strip_listed(
    definition: &str,
    take: &mut dyn FnMut(&str) -> bool,
    version: ProtocolVersion,
    at: &str,
    removed: &mut dyn FnMut(String),
) {
    for f in version.unknown_fields() {
        if f.definition == definition && take(f.field) {
            removed(format!("{at}/{}", f.field));
        }
    }
}

/// A value that can hold members a protocol version added after 1.0, and so can be
/// downgraded for a peer of an older version.
pub trait Versioned {
    /// Removes every member `version` does not know, calling `removed` with the JSON
    /// Pointer of each (below `at`, the pointer of this value in its document).
    fn strip_unknown_to(
        &mut self,
        version: ProtocolVersion,
        at: &str,
        removed: &mut dyn FnMut(String),
    );

    /// Removes every member `version` does not know and returns one
    /// [`WarningKind::Downgraded`] warning per removal (what was left out, and where): the
    /// value as a peer of `version` may receive it. Nothing else changes.
    fn downgrade(&mut self, version: ProtocolVersion) -> Vec<Warning> {
        let mut warnings = Vec::new();
        self.strip_unknown_to(version, "", &mut |pointer| {
            warnings.push(
                Warning::new(WarningKind::Downgraded, pointer).with_detail(format!(
                    "left out for a peer speaking AG-UI {version}, which does not know it"
                )),
            );
        });
        warnings
    }
}

impl<T: Versioned> Versioned for Vec<T> {
    fn strip_unknown_to(
        &mut self,
        version: ProtocolVersion,
        at: &str,
        removed: &mut dyn FnMut(String),
    ) {
        for (i, item) in self.iter_mut().enumerate() {
            item.strip_unknown_to(version, &format!("{at}/{i}"), removed);
        }
    }
}

impl<T: Versioned> Versioned for Box<T> {
    fn strip_unknown_to(
        &mut self,
        version: ProtocolVersion,
        at: &str,
        removed: &mut dyn FnMut(String),
    ) {
        (**self).strip_unknown_to(version, at, removed);
    }
}

/// `Versioned` for definitions whose own members are all there is to downgrade: the
/// members [`VERSIONED_FIELDS`] lists for them.
macro_rules! versioned_leaf {
    ($($t:ty),* $(,)?) => {$(
        impl Versioned for $t {
            fn strip_unknown_to(
                &mut self,
                version: ProtocolVersion,
                at: &str,
                removed: &mut dyn FnMut(String),
            ) {
                strip_listed(
                    <$t>::DEFINITION,
                    &mut |wire| self.take_optional_member(wire),
                    version,
                    at,
                    removed,
                );
            }
        }
    )*};
}

versioned_leaf!(
    DeveloperMessage,
    SystemMessage,
    UserMessage,
    ToolMessage,
    ReasoningMessage,
    ToolCall,
);

impl Versioned for AssistantMessage {
    fn strip_unknown_to(
        &mut self,
        version: ProtocolVersion,
        at: &str,
        removed: &mut dyn FnMut(String),
    ) {
        strip_listed(
            AssistantMessage::DEFINITION,
            &mut |wire| self.take_optional_member(wire),
            version,
            at,
            removed,
        );
        if let Some(calls) = &mut self.tool_calls {
            calls.strip_unknown_to(version, &format!("{at}/toolCalls"), removed);
        }
    }
}

impl Versioned for Message {
    fn strip_unknown_to(
        &mut self,
        version: ProtocolVersion,
        at: &str,
        removed: &mut dyn FnMut(String),
    ) {
        match self {
            Message::Developer(m) => m.strip_unknown_to(version, at, removed),
            Message::System(m) => m.strip_unknown_to(version, at, removed),
            Message::Assistant(m) => m.strip_unknown_to(version, at, removed),
            Message::User(m) => m.strip_unknown_to(version, at, removed),
            Message::Tool(m) => m.strip_unknown_to(version, at, removed),
            Message::Reasoning(m) => m.strip_unknown_to(version, at, removed),
            // Activity messages carry no encrypted value in any version.
            Message::Activity(_) => {}
        }
    }
}

impl Versioned for RunAgentInput {
    fn strip_unknown_to(
        &mut self,
        version: ProtocolVersion,
        at: &str,
        removed: &mut dyn FnMut(String),
    ) {
        self.messages
            .strip_unknown_to(version, &format!("{at}/messages"), removed);
    }
}

impl Versioned for MessagesSnapshotEvent {
    fn strip_unknown_to(
        &mut self,
        version: ProtocolVersion,
        at: &str,
        removed: &mut dyn FnMut(String),
    ) {
        self.messages
            .strip_unknown_to(version, &format!("{at}/messages"), removed);
    }
}

impl Versioned for RunStartedEvent {
    fn strip_unknown_to(
        &mut self,
        version: ProtocolVersion,
        at: &str,
        removed: &mut dyn FnMut(String),
    ) {
        if let Some(input) = &mut self.input {
            input.strip_unknown_to(version, &format!("{at}/input"), removed);
        }
    }
}

/// What the crate derives from the event table's `since` column.
macro_rules! event_versions {
    ([] $($variant:ident($ty:ident) = $wire:literal in $area:ident since $since:ident
        [$attr:ident, $boxing:ident, $naming:ident],)*) => {
        impl EventType {
            /// The first protocol version that has this event type (the event table's
            /// `since` column): a peer of an older version is not sent such an event
            /// ([`downgrade_event`]), and the JSON Schema of an older version leaves it out.
            #[must_use]
            pub const fn since(self) -> ProtocolVersion {
                match self {
                    $(Self::$variant => ProtocolVersion::$since,)*
                }
            }
        }

        impl Event {
            /// Removes the members of this event's own definition that `version` does not
            /// know, as [`VERSIONED_FIELDS`] lists them, calling `removed` with the pointer
            /// of each (below `at`).
            fn strip_listed_members(
                &mut self,
                version: ProtocolVersion,
                at: &str,
                removed: &mut dyn FnMut(String),
            ) {
                match self {
                    $(Self::$variant(e) => strip_listed(
                        crate::model::event::$ty::DEFINITION,
                        &mut |wire| e.take_optional_member(wire),
                        version,
                        at,
                        removed,
                    ),)*
                }
            }
        }
    };
}

crate::for_each_event!(event_versions);

impl Versioned for Event {
    fn strip_unknown_to(
        &mut self,
        version: ProtocolVersion,
        at: &str,
        removed: &mut dyn FnMut(String),
    ) {
        // The event's own members, from the table.
        self.strip_listed_members(version, at, removed);
        // The definitions nested in an event: messages and the run input. The schema
        // crate's tests downgrade every event fixture to every older version and validate
        // it against that version's schema, so an event that nests a definition with
        // versioned members and is missing here fails there.
        match self {
            Event::MessagesSnapshot(e) => e.strip_unknown_to(version, at, removed),
            Event::RunStarted(e) => e.strip_unknown_to(version, at, removed),
            _ => {}
        }
    }
}

/// `event` as a peer speaking `version` may receive it, and one
/// [`WarningKind::Downgraded`] warning for each thing left out:
///
/// - an event whose type `version` does not know ([`EventType::since`], the event table)
///   is withheld: `None`, with one warning at the event's own pointer (`""`) naming it;
/// - otherwise every member `version` does not know is removed ([`Versioned::downgrade`]),
///   and a `RUN_STARTED` that declares a newer version declares `version` instead, since
///   the stream it starts now speaks `version` (a producer that translates down declares
///   what it emits).
///
/// For [`ProtocolVersion::LATEST`] (or newer) the event is returned unchanged.
///
/// ```
/// use ag_ui_core::{Event, ProtocolVersion, SubagentErrorEvent, WarningKind};
///
/// let event: Event = SubagentErrorEvent::new("sub-1", "failed").into();
/// let (sent, warnings) =
///     ag_ui_core::version::downgrade_event(event.clone(), ProtocolVersion::V1_0);
/// assert_eq!(sent, Some(event.clone()));
/// assert!(warnings.is_empty());
/// let (sent, warnings) =
///     ag_ui_core::version::downgrade_event(event, ProtocolVersion::new(0, 0, 57));
/// assert_eq!(sent, None);
/// assert_eq!(warnings[0].kind, WarningKind::Downgraded);
/// assert_eq!(warnings[0].pointer, "");
/// ```
#[must_use]
pub fn downgrade_event(
    mut event: Event,
    version: ProtocolVersion,
) -> (Option<Event>, Vec<Warning>) {
    if version >= ProtocolVersion::LATEST {
        return (Some(event), Vec::new());
    }
    let event_type = event.event_type();
    if !version.knows(event_type) {
        let warning = Warning::new(WarningKind::Downgraded, String::new()).with_detail(format!(
            "{event_type} withheld from a peer speaking AG-UI {version}, which does not know \
             it (first in {})",
            event_type.since()
        ));
        return (None, vec![warning]);
    }
    if let Event::RunStarted(e) = &mut event
        && e.protocol_version
            .as_deref()
            .and_then(ProtocolVersion::parse)
            .is_some_and(|declared| declared > version)
    {
        e.protocol_version = Some(version.to_string());
    }
    let warnings = event.downgrade(version);
    (Some(event), warnings)
}

/// `input` as an agent speaking `version` may receive it (what a client sends an agent of
/// an older version), one [`WarningKind::Downgraded`] warning for each lossy change, only
/// removing or reshaping (spec §10):
///
/// - below 1.0, `protocolVersion` is left out (such a peer predates the field) and tool
///   message content parts are flattened to their text; at or before
///   [`ProtocolVersion::BEFORE_CONTENT_PARTS`], user message content parts are flattened
///   too (each flattening a warning at the message, saying how many non-text parts were
///   dropped);
/// - below [`ProtocolVersion::SUBAGENTS`], `subagentRunId` is removed from every message
///   (lossless, so without a warning);
/// - every member `version` does not know ([`VERSIONED_FIELDS`]) is left out, as
///   [`Versioned::downgrade`] does.
///
/// `protocolVersion` is otherwise left as it is: the caller declares what it speaks.
///
/// ```
/// use ag_ui_core::{ContentPart, Message, ProtocolVersion, RunAgentInput, ToolMessage};
///
/// let tool = ToolMessage::new("tm1", vec![ContentPart::text("42")], "c1");
/// let mut input =
///     RunAgentInput::new("t", "r", vec![Message::Tool(tool)]).with_protocol_version("1.0");
/// let warnings = ag_ui_core::version::downgrade_input(&mut input, ProtocolVersion::new(0, 0, 60));
/// assert_eq!(input.protocol_version, None);
/// assert_eq!(warnings[0].pointer, "/messages/0");
/// ```
pub fn downgrade_input(input: &mut RunAgentInput, version: ProtocolVersion) -> Vec<Warning> {
    let mut warnings = Vec::new();
    if version < ProtocolVersion::V1_0 {
        input.protocol_version = None;
    }
    let flatten_user = version <= ProtocolVersion::BEFORE_CONTENT_PARTS;
    let flatten_tool = version < ProtocolVersion::V1_0;
    let strip_subagents = version < ProtocolVersion::SUBAGENTS;
    for (i, message) in input.messages.iter_mut().enumerate() {
        let content = match message {
            Message::User(m) if flatten_user => Some(&mut m.content),
            Message::Tool(m) if flatten_tool => Some(&mut m.content),
            _ => None,
        };
        if let Some(content) = content
            && let Content::Parts(parts) = content
        {
            let dropped = parts.iter().filter(|p| p.as_text().is_none()).count();
            let lost = if dropped > 0 {
                format!(": {dropped} non-text part(s) dropped")
            } else {
                String::new()
            };
            warnings.push(
                Warning::new(WarningKind::Downgraded, format!("/messages/{i}")).with_detail(
                    format!("flattened to text for a peer speaking AG-UI {version}{lost}"),
                ),
            );
            let text = content.to_text();
            *content = Content::Text(text);
        }
        if strip_subagents {
            strip_subagent_run_id(message);
        }
    }
    warnings.extend(input.downgrade(version));
    warnings
}

/// Removes the `subagentRunId` attribution of `message`.
fn strip_subagent_run_id(message: &mut Message) {
    match message {
        Message::Developer(m) => m.subagent_run_id = None,
        Message::System(m) => m.subagent_run_id = None,
        Message::Assistant(m) => m.subagent_run_id = None,
        Message::User(m) => m.subagent_run_id = None,
        Message::Tool(m) => m.subagent_run_id = None,
        Message::Activity(m) => m.subagent_run_id = None,
        Message::Reasoning(m) => m.subagent_run_id = None,
    }
}

/// `event` as a caller older than 1.0 (a run input without `protocolVersion`, spec §10) can
/// read it, besides [`downgrade_event`] for 1.0: such a client (the `HttpAgent` of
/// `@ag-ui/client` 0.0.x) validates `RUN_FINISHED.outcome` against the two outcomes it
/// knows, each closed to the members it knows, and refuses the whole stream otherwise. So,
/// only removing (never inventing):
///
/// - a success outcome loses `pendingToolCallIds` (the calls still left unanswered are in
///   the stream: their `TOOL_CALL_START`s without a `TOOL_CALL_RESULT`);
/// - a `cancelled` outcome, which such a client does not know, is removed (an absent
///   outcome is the only way left to end the run without an error).
///
/// Every other event is returned as it is.
#[must_use]
pub fn downgrade_for_pre_1_0(event: Event) -> Event {
    let Event::RunFinished(mut finished) = event else {
        return event;
    };
    match finished.outcome.take() {
        Some(RunFinishedOutcome::Success(mut success)) => {
            success.pending_tool_call_ids = None;
            finished.outcome = Some(RunFinishedOutcome::Success(success));
        }
        Some(RunFinishedOutcome::Cancelled(_)) => {}
        other => finished.outcome = other,
    }
    Event::RunFinished(finished)
}

/// Decodes `T` as a receiver of `version` does (see [`crate::read::decode`] for the modes).
/// For [`ProtocolVersion::LATEST`] this is `decode` itself. For an older version, every
/// member that version does not know is an unknown field to it: the forgiving reader strips
/// it with an [`WarningKind::UnknownField`] warning, and exact mode refuses the document
/// with [`ErrorKind::NotExact`](crate::ErrorKind::NotExact) naming it, since that version's
/// schema closes the object.
///
/// ```
/// use ag_ui_core::{Event, ProtocolVersion, ReadMode, WarningKind};
///
/// let json = r#"{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m1",
///     "encryptedValue":"b64","encryptedValueType":"anthropic.redacted_thinking"}"#;
/// let read = ag_ui_core::read::decode_for::<Event>(json, ReadMode::Forgiving, ProtocolVersion::V1_0)
///     .unwrap();
/// assert_eq!(read.warnings[0].kind, WarningKind::UnknownField);
/// assert_eq!(read.warnings[0].pointer, "/encryptedValueType");
/// let Event::ReasoningEncryptedValue(e) = read.value else { unreachable!() };
/// assert_eq!(e.encrypted_value_type, None);
/// ```
///
/// # Errors
/// As [`crate::read::decode`]; in exact mode also a member `version` does not know.
pub fn decode_for<T: DeserializeOwned + Versioned>(
    json: &str,
    mode: ReadMode,
    version: ProtocolVersion,
) -> Result<Decoded<T>, Error> {
    let mut decoded = decode::<T>(json, mode)?;
    let mut stripped = Vec::new();
    decoded
        .value
        .strip_unknown_to(version, "", &mut |p| stripped.push(p));
    if let Some(first) = stripped.first()
        && mode == ReadMode::Exact
    {
        return Err(Repr::NotExact {
            kind: WarningKind::UnknownField,
            pointer: first.clone(),
        }
        .into());
    }
    for pointer in stripped {
        if decoded.warnings.len() < MAX_WARNINGS {
            decoded
                .warnings
                .push(Warning::new(WarningKind::UnknownField, pointer));
        } else {
            decoded.omitted_warnings += 1;
        }
    }
    Ok(decoded)
}

/// Encodes `value` as compact JSON for a peer speaking `version`: what that version does
/// not know is left out, with one [`WarningKind::Downgraded`] warning per member left out.
/// For [`ProtocolVersion::LATEST`] the text is [`crate::write::to_vec`]'s.
///
/// # Errors
/// As [`crate::write::to_vec`].
pub fn to_vec_for<T: Encode + Versioned + Clone>(
    value: &T,
    version: ProtocolVersion,
) -> Result<(Vec<u8>, Vec<Warning>), Error> {
    if version >= ProtocolVersion::LATEST {
        return Ok((to_vec(value)?, Vec::new()));
    }
    let mut copy = value.clone();
    let warnings = copy.downgrade(version);
    Ok((to_vec(&copy)?, warnings))
}

/// [`to_vec_for`], as a `String`.
///
/// ```
/// use ag_ui_core::{ProtocolVersion, ReasoningMessage, WarningKind};
///
/// let m = ReasoningMessage::new("r1", "")
///     .with_encrypted_value("sig")
///     .with_encrypted_value_type("anthropic.signature");
/// let (json, warnings) = ag_ui_core::write::to_string_for(&m, ProtocolVersion::V1_0).unwrap();
/// let written: serde_json::Value = serde_json::from_str(&json).unwrap();
/// assert_eq!(
///     written,
///     serde_json::json!({"role": "reasoning", "id": "r1", "content": "", "encryptedValue": "sig"})
/// );
/// assert_eq!(warnings[0].kind, WarningKind::Downgraded);
/// assert_eq!(warnings[0].pointer, "/encryptedValueType");
/// ```
///
/// # Errors
/// As [`crate::write::to_vec`].
pub fn to_string_for<T: Encode + Versioned + Clone>(
    value: &T,
    version: ProtocolVersion,
) -> Result<(String, Vec<Warning>), Error> {
    let (bytes, warnings) = to_vec_for(value, version)?;
    let text = String::from_utf8(bytes).map_err(|e| Error::encode(String::new(), e.to_string()))?;
    Ok((text, warnings))
}
