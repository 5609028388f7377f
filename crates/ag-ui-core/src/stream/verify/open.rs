//! The answers of a [`Verifier`](super::Verifier)'s queries about what a run has open, and
//! the opening order it keeps for them.

use std::collections::HashMap;

/// The kinds of entity that open and close within a run (spec §9.1), as
/// [`Verifier::open`](crate::Verifier::open) lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OpenKind {
    /// A text message (`TEXT_MESSAGE_START` … `TEXT_MESSAGE_END`).
    TextMessage,
    /// A tool call (`TOOL_CALL_START` … `TOOL_CALL_END`).
    ToolCall,
    /// A reasoning span (`REASONING_START` … `REASONING_END`).
    ReasoningSpan,
    /// A reasoning message (`REASONING_MESSAGE_START` … `REASONING_MESSAGE_END`).
    ReasoningMessage,
    /// A step (`STEP_STARTED` … `STEP_FINISHED`); its id is the step name, unique per owner.
    Step,
    /// A subagent invocation (`SUBAGENT_STARTED` … `SUBAGENT_FINISHED` / `SUBAGENT_ERROR`).
    Subagent,
}

/// One entity a run has open, as [`Verifier::open`](crate::Verifier::open) lists it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Open {
    /// What is open.
    pub kind: OpenKind,
    /// Its id: the message, tool-call or subagent-run id, or the step name.
    pub id: String,
    /// The `subagentRunId` the entity belongs to (rules `O1`–`O4`); `None` for the parent
    /// agent, and for a [`OpenKind::Subagent`] entry (an invocation is not attributed).
    pub owner: Option<String>,
}

/// The id spaces owners are recorded in (spec §9.1 `O1`: ids are unique per entity kind
/// only), as [`Verifier::owner`](crate::Verifier::owner) takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EntityKind {
    /// Text messages, the tool messages `TOOL_CALL_RESULT` mints, and messages restated by
    /// a `MESSAGES_SNAPSHOT` or the `RUN_STARTED` input.
    Message,
    /// Tool calls.
    ToolCall,
    /// Activity messages.
    Activity,
    /// Reasoning spans and reasoning messages (one id space for both).
    Reasoning,
}

/// When each entity of the run was last opened (a counter), for the order
/// [`Verifier::open`](crate::Verifier::open) lists them in.
#[derive(Debug, Clone, Default)]
pub(super) struct OpenOrder {
    next: u64,
    /// By kind, owner (steps only: their names are unique per owner) and id.
    opened: HashMap<(OpenKind, Option<String>, String), u64>,
}

impl OpenOrder {
    /// Records that the entity `key` (kind, step owner, id) opened now.
    pub(super) fn note(&mut self, key: (OpenKind, Option<String>, String)) {
        self.next += 1;
        self.opened.insert(key, self.next);
    }

    /// When entity `id` of `kind` (a step: of `owner`) last opened.
    pub(super) fn rank(&self, kind: OpenKind, owner: &Option<String>, id: &str) -> u64 {
        // Every open entity was opened by an accepted event; `0` is never reached.
        let key = (kind, owner.clone(), id.to_owned());
        self.opened.get(&key).copied().unwrap_or(0)
    }
}
