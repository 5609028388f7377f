//! Talking to agents older than AG-UI 1.0: the peer protocol ceiling.
//!
//! An agent may declare (or its operator may know) the newest protocol version it speaks.
//! With a ceiling set, the client downgrades what it sends and filters what it receives, as
//! the official TypeScript client does, and only ever removes or reshapes (spec §10):
//!
//! | ceiling | request | stream |
//! |---|---|---|
//! | below 1.0 | `protocolVersion` omitted; tool message content parts flattened to text | |
//! | at or below 0.0.57 | `subagentRunId` stripped from messages | `subagentRunId` removed from events |
//! | older than an event's first version ([`EventType::since`], from the event table: `SUBAGENT_*` for 0.0.57 and older) | | the event dropped |
//! | at or below 0.0.39 | user message content parts flattened to text | |
//! | below the version the client speaks ([`HttpAgentBuilder::protocol_version`](crate::HttpAgentBuilder::protocol_version)) | `protocolVersion` is the ceiling's (from 1.0); what it lacks (`encryptedValueType` for 1.0 and older) left out | |
//!
//! The request side is core's
//! [`version::downgrade_input`](ag_ui_core::version::downgrade_input) for the older of the
//! ceiling and the version the client speaks; the stream side drops by the event table's
//! dates. This module adds only what the HTTP client needs around them (the declaration,
//! and reading an event's type before it is decoded).
//!
//! Flattening keeps the text parts in order and drops the rest; each flattened message is
//! reported as a warning (with the number of media parts dropped, if any), and so is each
//! event dropped or changed. Event indices in warnings and errors count the events as the
//! agent sent them, dropped ones included.

use ag_ui_core::{EventType, RunAgentInput};

/// First-release path of the version type, which now lives in `ag-ui-core` (documented at
/// [`crate::ProtocolVersion`]).
#[doc(hidden)]
pub use ag_ui_core::ProtocolVersion;

use crate::warning::{RunWarning, WarningSource};

/// What the client changes for a peer with a given ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Compat {
    ceiling: Option<ProtocolVersion>,
    /// The version the client speaks (declares, unless the ceiling is older).
    speaks: ProtocolVersion,
}

impl Compat {
    pub(crate) fn new(ceiling: Option<ProtocolVersion>) -> Self {
        Compat {
            ceiling,
            speaks: ProtocolVersion::V1_0,
        }
    }

    /// The same, for a client that speaks `speaks`.
    pub(crate) fn speaking(mut self, speaks: ProtocolVersion) -> Self {
        self.speaks = speaks;
        self
    }

    /// The `protocolVersion` the request declares: the version the client speaks, or the
    /// peer's ceiling when that is older (and not older than 1.0, which omits the field).
    pub(crate) fn declared(&self) -> ProtocolVersion {
        match self.ceiling {
            Some(c) if c < self.speaks => ProtocolVersion::new(c.major, c.minor, 0),
            _ => self.speaks,
        }
    }

    fn below(&self, v: ProtocolVersion) -> bool {
        self.ceiling.is_some_and(|c| c < v)
    }

    /// Whether an event of wire type `event_type` is dropped: the peer's ceiling predates
    /// it (the event table's first version, [`ProtocolVersion::knows`]). A type this crate
    /// does not know is left to the pipeline.
    pub(crate) fn withholds(&self, event_type: &str) -> bool {
        self.ceiling
            .is_some_and(|c| EventType::from_wire(event_type).is_some_and(|t| !c.knows(t)))
    }

    /// Whether the peer's ceiling predates any event type (so each event's type is read
    /// before it is decoded).
    pub(crate) fn withholds_any(&self) -> bool {
        self.ceiling
            .is_some_and(|c| c.unknown_events().next().is_some())
    }

    /// Whether `subagentRunId` is removed from events (the peer predates subagents).
    pub(crate) fn strips_subagent_run_id(&self) -> bool {
        self.below(ProtocolVersion::SUBAGENTS)
    }

    /// The version whose shapes the request is sent in: the version the client speaks, or
    /// the peer's ceiling when that is older.
    fn sent_in(&self) -> ProtocolVersion {
        self.ceiling.map_or(self.speaks, |c| c.min(self.speaks))
    }

    /// Downgrades `input` in place for the peer (core's
    /// [`downgrade_input`](ag_ui_core::version::downgrade_input)); returns a warning for
    /// each lossy change (a member left out, a message whose content was flattened).
    pub(crate) fn downgrade(&self, input: &mut RunAgentInput) -> Vec<RunWarning> {
        input.protocol_version = Some(self.declared().to_string());
        ag_ui_core::version::downgrade_input(input, self.sent_in())
            .into_iter()
            .map(|w| RunWarning {
                source: WarningSource::Compatibility,
                event_index: None,
                event_type: None,
                kind: Some(w.kind),
                message: format!(
                    "request: {} {}",
                    w.pointer,
                    w.detail.as_deref().unwrap_or_default()
                ),
            })
            .collect()
    }
}

/// The `type` of an event's JSON text, read without decoding the event: the value of the
/// top-level `"type"` member when it is a string.
pub(crate) fn event_type_of(json: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Tag {
        #[serde(rename = "type")]
        event_type: Option<String>,
    }
    // `IgnoredAny` members skip the rest without building values.
    serde_json::from_str::<Tag>(json).ok()?.event_type
}
