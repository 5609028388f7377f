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
//! | below the version the client speaks ([`HttpAgentBuilder::protocol_version`](crate::HttpAgentBuilder::protocol_version)), from 1.0 | `protocolVersion` is the ceiling's; what it lacks (`encryptedValueType` for 1.0) left out | |
//!
//! Flattening keeps the text parts in order and drops the rest; each flattened message is
//! reported as a warning (with the number of media parts dropped, if any), and so is each
//! event dropped or changed. Event indices in warnings and errors count the events as the
//! agent sent them, dropped ones included.

use ag_ui_core::{Content, EventType, Message, RunAgentInput, Versioned};

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

    fn at_or_below(&self, v: ProtocolVersion) -> bool {
        self.ceiling.is_some_and(|c| c <= v)
    }

    pub(crate) fn sends_protocol_version(&self) -> bool {
        !self.below(ProtocolVersion::V1_0)
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

    fn peer(&self) -> String {
        self.ceiling.map(|c| c.to_string()).unwrap_or_default()
    }

    /// Downgrades `input` in place for the peer; returns a warning for each message whose
    /// content was flattened (saying how many non-text parts were dropped, if any).
    pub(crate) fn downgrade(&self, input: &mut RunAgentInput) -> Vec<RunWarning> {
        let mut warnings = Vec::new();
        if self.sends_protocol_version() {
            let declared = self.declared();
            input.protocol_version = Some(declared.to_string());
            // What the declared version does not know is left out, and said so: the value
            // goes back without its type (AG-UI 1.1 processing model).
            for w in input.downgrade(declared) {
                warnings.push(RunWarning {
                    source: WarningSource::Compatibility,
                    event_index: None,
                    event_type: None,
                    kind: Some(w.kind),
                    message: format!("request: {w}"),
                });
            }
        } else {
            input.protocol_version = None;
        }
        let flatten_user = self.at_or_below(ProtocolVersion::BEFORE_CONTENT_PARTS);
        let flatten_tool = self.below(ProtocolVersion::V1_0);
        let strip_subagents = self.strips_subagent_run_id();
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
                warnings.push(RunWarning {
                    source: WarningSource::Compatibility,
                    event_index: None,
                    event_type: None,
                    kind: None,
                    message: format!(
                        "content parts of /messages/{i} flattened to text for an agent at \
                         protocol {}{lost}",
                        self.peer()
                    ),
                });
                let text = content.to_text();
                *content = Content::Text(text);
            }
            if strip_subagents {
                strip_subagent_run_id(message);
            }
        }
        warnings
    }
}

fn strip_subagent_run_id(message: &mut Message) {
    match message {
        Message::Developer(m) => m.subagent_run_id = None,
        Message::System(m) => m.subagent_run_id = None,
        Message::Assistant(m) => m.subagent_run_id = None,
        Message::User(m) => m.subagent_run_id = None,
        Message::Tool(m) => m.subagent_run_id = None,
        Message::Activity(m) => m.subagent_run_id = None,
        Message::Reasoning(m) => m.subagent_run_id = None,
        // A role newer than this crate: leave it as it is.
        _ => {}
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
