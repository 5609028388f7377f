//! Where minted ids come from: [`IdGenerator`], with [`UuidIds`] (the default) and
//! [`SequentialIds`] (deterministic, for tests and examples).

use std::collections::BTreeMap;

use ag_ui_core::{InterruptId, MessageId, RunId, SubagentRunId, ThreadId, ToolCallId};

/// What an id will name; a generator may use it to prefix or to keep one counter per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum IdKind {
    /// A conversation (`threadId`).
    Thread,
    /// A run (`runId`).
    Run,
    /// A message, including a reasoning span (`messageId`, `Message.id`).
    Message,
    /// A tool call (`toolCallId`).
    ToolCall,
    /// An interrupt (`Interrupt.id`).
    Interrupt,
    /// A subagent invocation (`subagentRunId`).
    Subagent,
}

impl IdKind {
    /// The short prefix [`SequentialIds`] writes for this kind (`thread`, `run`, `msg`,
    /// `call`, `int`, `sub`).
    #[must_use]
    pub const fn prefix(self) -> &'static str {
        match self {
            IdKind::Thread => "thread",
            IdKind::Run => "run",
            IdKind::Message => "msg",
            IdKind::ToolCall => "call",
            IdKind::Interrupt => "int",
            IdKind::Subagent => "sub",
        }
    }
}

/// A source of fresh ids. AG-UI ids are opaque strings; they only need to be unique within
/// their kind and scope (spec §9.5).
pub trait IdGenerator: Send {
    /// A fresh id for an entity of `kind`.
    fn next_id(&mut self, kind: IdKind) -> String;

    /// A fresh [`ThreadId`].
    fn thread_id(&mut self) -> ThreadId {
        ThreadId::new(self.next_id(IdKind::Thread))
    }
    /// A fresh [`RunId`].
    fn run_id(&mut self) -> RunId {
        RunId::new(self.next_id(IdKind::Run))
    }
    /// A fresh [`MessageId`].
    fn message_id(&mut self) -> MessageId {
        MessageId::new(self.next_id(IdKind::Message))
    }
    /// A fresh [`ToolCallId`].
    fn tool_call_id(&mut self) -> ToolCallId {
        ToolCallId::new(self.next_id(IdKind::ToolCall))
    }
    /// A fresh [`InterruptId`].
    fn interrupt_id(&mut self) -> InterruptId {
        InterruptId::new(self.next_id(IdKind::Interrupt))
    }
    /// A fresh [`SubagentRunId`].
    fn subagent_run_id(&mut self) -> SubagentRunId {
        SubagentRunId::new(self.next_id(IdKind::Subagent))
    }
}

impl<G: IdGenerator + ?Sized> IdGenerator for Box<G> {
    fn next_id(&mut self, kind: IdKind) -> String {
        (**self).next_id(kind)
    }
}

/// Random UUID v4 ids (`"0b5c…"`), whatever the kind; the default everywhere.
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct UuidIds;

impl UuidIds {
    /// The generator.
    #[must_use]
    pub fn new() -> Self {
        Self
    }
}

impl IdGenerator for UuidIds {
    fn next_id(&mut self, _kind: IdKind) -> String {
        // Core's one random-id source (its `uuid` feature, on by default).
        ag_ui_core::MessageId::random().into_string()
    }
}

/// Deterministic ids, one counter per kind, starting at 1: `msg-1`, `msg-2`, `call-1`,
/// `run-1`, … With a prefix, `p-msg-1`. Meant for tests, examples and replayable logs.
///
/// ```
/// use ag_ui_builders::{IdGenerator, IdKind, SequentialIds};
///
/// let mut ids = SequentialIds::new();
/// assert_eq!(ids.next_id(IdKind::Message), "msg-1");
/// assert_eq!(ids.next_id(IdKind::ToolCall), "call-1");
/// assert_eq!(ids.next_id(IdKind::Message), "msg-2");
/// assert_eq!(SequentialIds::with_prefix("t").next_id(IdKind::Run), "t-run-1");
/// ```
#[derive(Debug, Clone, Default)]
pub struct SequentialIds {
    prefix: String,
    counters: BTreeMap<IdKind, u64>,
}

impl SequentialIds {
    /// Counters at zero, no prefix.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Counters at zero; every id starts with `prefix` and a dash.
    #[must_use]
    pub fn with_prefix(prefix: impl Into<String>) -> Self {
        Self {
            prefix: prefix.into(),
            counters: BTreeMap::new(),
        }
    }
}

impl IdGenerator for SequentialIds {
    fn next_id(&mut self, kind: IdKind) -> String {
        let n = self.counters.entry(kind).or_insert(0);
        *n += 1;
        if self.prefix.is_empty() {
            format!("{}-{n}", kind.prefix())
        } else {
            format!("{}-{}-{n}", self.prefix, kind.prefix())
        }
    }
}
