//! The emitter itself: its fields, how a run starts, what it asks the verifier, and how an
//! event is emitted.

use std::collections::{HashMap, HashSet};
use std::fmt;

use ag_ui_core::stream::verify::{EntityKind, Open, OpenKind};
use ag_ui_core::{
    Event, EventType, InterruptId, MessageId, ProtocolVersion, RunAgentInput, RunId,
    RunStartedEvent, RunStatus, SubagentRunId, ThreadId, TokenUsage, ToolCallId, Verifier,
};
use serde_json::{Map, Value};

use crate::error::BuildError;
use crate::event;
use crate::ids::{IdGenerator, UuidIds};
use crate::usage::UsageMeter;

/// How many fresh ids the emitter draws from its generator before giving up on finding one
/// not yet used in the run (a generator that keeps repeating itself).
pub(super) const MINT_ATTEMPTS: usize = 64;

/// Where one owner's (the agent's, or one subagent invocation's) next text and tool calls
/// go. Each id is a hint: it counts only while the verifier has it open.
#[derive(Debug, Default, Clone)]
pub(super) struct Cursor {
    /// The text message [`RunEmitter::text`] appends to.
    pub(super) text: Option<MessageId>,
    /// The assistant message the turn's tool calls attach to (`parentMessageId`).
    pub(super) turn: Option<MessageId>,
    /// The last reasoning message started, for encrypted values.
    pub(super) reasoning: Option<MessageId>,
}

/// A tool call of this run: started in it, or answered in it after an earlier run made it.
#[derive(Debug)]
pub(super) struct Call {
    pub(super) id: ToolCallId,
    /// The argument text so far; `None` when the call was made by an earlier run.
    pub(super) arguments: Option<String>,
    /// Whether a `TOOL_CALL_RESULT` answered it in this run.
    pub(super) answered: bool,
}

/// An activity message of the run, with its type and last content (for deltas; `None`
/// once a raw patch made it unknown).
#[derive(Debug)]
pub(super) struct Activity {
    pub(super) id: MessageId,
    pub(super) activity_type: String,
    pub(super) content: Option<Map<String, Value>>,
}

/// Emits the events of one run in an order the protocol accepts (spec §9.1).
///
/// * Creating the emitter emits `RUN_STARTED` (declaring `protocolVersion: "1.0"`); ending it
///   ([`finish`](Self::finish), [`interrupt`](Self::interrupt), [`cancel`](Self::cancel),
///   [`fail`](Self::fail)) emits `RUN_FINISHED` or `RUN_ERROR`, after which every call is an
///   [`BuildError::RunEnded`].
/// * Text and reasoning deltas open their message (and reasoning span) when none is open and
///   close the other kind first; starting a tool call closes the open text message and
///   attaches the call to it (`parentMessageId`); a tool result ends the assistant turn, so
///   the next text is a new message. [`text_with_id`](Self::text_with_id) reuses a
///   provider's message id and lets several text messages interleave.
/// * Ids are unique within the run (spec §9.5): a tool-call id cannot be started twice, a
///   message id cannot be taken over by another owner, and minted ids skip ids already used.
/// * Finishing closes what is still open — reasoning, text, tool calls, then steps, innermost
///   first — because `RUN_FINISHED` is not accepted with anything open; it refuses
///   ([`BuildError::SubagentActive`]) while a subagent invocation is active, since only the caller
///   knows how that ended, and it refuses ([`BuildError::IncompleteArguments`]) to hand out a
///   tool call whose arguments are not complete JSON. `fail` emits `RUN_ERROR` at once,
///   which the protocol accepts with anything open.
/// * Between [`subagent_start`](Self::subagent_start) and its end, everything emitted is
///   attributed to that invocation (`subagentRunId`); nested starts name their parent.
/// * Calls that would break an order rule (a delta for a call that is not open, a step
///   finished twice, …) return an error and emit nothing. Every event, the emitter's own
///   and the hand-built ones sent with [`push_event`](Self::push_event), is checked with
///   the lifecycle rules of [`ag_ui_core::Verifier`] before it is emitted, so the stream
///   stays valid even when hand-built events or a `MESSAGES_SNAPSHOT` changed what the run
///   holds ([`BuildError::Violation`]). What is open, who owns an id and which invocation is
///   active are that verifier's answers: the emitter keeps no copy of the run's state
///   machine, so a hand-built event counts for everything that follows.
///
/// Events accumulate in the emitter; take them with [`drain`](Self::drain) as you go (to
/// write them to a stream) or all at once with [`into_events`](Self::into_events).
///
/// ```
/// use ag_ui_builders::{ModelChunk, ProviderUsage, RunEmitter, SequentialIds};
///
/// let mut run = RunEmitter::start("thread-1", "run-1").with_ids(SequentialIds::new());
/// run.push(ModelChunk::Thinking("The user greets me.".into()))?;
/// run.push(ModelChunk::Text("Hello".into()))?;
/// run.push(ModelChunk::Text(" there!".into()))?;
/// run.push(ModelChunk::EndTurn { usage: Some(ProviderUsage::new(12, 5).with_provider("openai").with_model("gpt-5")) })?;
/// run.finish()?;
/// let types: Vec<_> = run.drain().iter().map(|e| e.event_type().as_str()).collect();
/// assert_eq!(types, [
///     "RUN_STARTED",
///     "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
///     "REASONING_MESSAGE_END", "REASONING_END",
///     "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
///     "RUN_FINISHED",
/// ]);
/// # Ok::<(), ag_ui_builders::BuildError>(())
/// ```
pub struct RunEmitter {
    pub(super) thread_id: ThreadId,
    pub(super) run_id: RunId,
    pub(super) ids: Box<dyn IdGenerator>,
    pub(super) clock: Option<fn() -> i64>,
    pub(super) out: Vec<Event>,
    /// Every event emitted went through it: the one record of what the run has open.
    pub(super) verifier: Verifier,
    /// By owner (`None`: the agent itself); a few at most, one per active owner.
    pub(super) cursors: Vec<(Option<SubagentRunId>, Cursor)>,
    /// Tool calls started or answered in this run, in that order.
    pub(super) calls: Vec<Call>,
    /// Where each call is in `calls`.
    pub(super) call_index: HashMap<ToolCallId, usize>,
    /// Message ids minted in this run (some, like a tool call's parent message, never
    /// reach the verifier as an entity of their own).
    pub(super) minted: HashSet<MessageId>,
    pub(super) interrupt_ids: Vec<InterruptId>,
    /// The protocol version the `RUN_STARTED` declared (1.0 when it declared none).
    pub(super) protocol: ProtocolVersion,
    pub(super) activities: Vec<Activity>,
    pub(super) state: Option<Value>,
    pub(super) usage: UsageMeter,
    /// Why the `RUN_STARTED` given to [`RunEmitter::start_with`] was refused, if it was:
    /// every call then fails with it.
    pub(super) refused: Option<BuildError>,
}

impl fmt::Debug for RunEmitter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunEmitter")
            .field("thread_id", &self.thread_id)
            .field("run_id", &self.run_id)
            .field("status", &self.verifier.lifecycle().status())
            .field("open", &self.verifier.open())
            .field("pending", &self.out.len())
            .finish_non_exhaustive()
    }
}

/// Sets the attribution of an attributable event, by value.
pub(super) trait Attribute: Into<Event> {
    /// The event attributed to `owner` (`None`: the agent itself).
    fn owned_by(self, owner: Option<&SubagentRunId>) -> Self;
}

impl<E: ag_ui_core::Attributable + Into<Event>> Attribute for E {
    fn owned_by(mut self, owner: Option<&SubagentRunId>) -> Self {
        self.set_subagent_run_id(owner.cloned());
        self
    }
}

/// Unix epoch milliseconds now (0 if the clock is before 1970).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl RunEmitter {
    /// Starts run `run_id` on thread `thread_id`: emits `RUN_STARTED` with
    /// `protocolVersion: "1.0"`. Ids are UUID v4 unless [`with_ids`](Self::with_ids) says
    /// otherwise.
    #[must_use]
    pub fn start(thread_id: impl Into<ThreadId>, run_id: impl Into<RunId>) -> Self {
        Self::start_with(event::run_started(thread_id, run_id))
    }

    /// Starts the run `input` asks for (its thread and run ids), declaring the highest
    /// protocol version both sides speak
    /// ([`ProtocolVersion::answer_for`](ag_ui_core::ProtocolVersion::answer_for) the input's
    /// `protocolVersion`): `"1.1"` for a caller that declares 1.1, `"1.0"` for one that
    /// declares 1.0 or nothing.
    #[must_use]
    pub fn start_for(input: &RunAgentInput) -> Self {
        let version = ProtocolVersion::answer_for(input.protocol_version.as_deref());
        Self::start_with(
            event::run_started(input.thread_id.clone(), input.run_id.clone())
                .with_protocol_version(version.to_string()),
        )
    }

    /// The protocol version the run declared on `RUN_STARTED` (1.0 when it declared none):
    /// what the run may emit.
    #[must_use]
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol
    }

    /// Starts a run with a `RUN_STARTED` of your own (to set `parentRunId`, echo the
    /// `input`, …).
    #[must_use]
    pub fn start_with(started: RunStartedEvent) -> Self {
        let mut run = Self {
            thread_id: started.thread_id.clone(),
            run_id: started.run_id.clone(),
            ids: Box::new(UuidIds),
            clock: None,
            out: Vec::new(),
            verifier: Verifier::new(),
            cursors: Vec::new(),
            calls: Vec::new(),
            call_index: HashMap::new(),
            minted: HashSet::new(),
            interrupt_ids: Vec::new(),
            protocol: started
                .protocol_version
                .as_deref()
                .and_then(ProtocolVersion::parse)
                .unwrap_or(ProtocolVersion::V1_0),
            activities: Vec::new(),
            state: None,
            usage: UsageMeter::new(),
            refused: None,
        };
        if let Err(refused) = run.emit(started) {
            run.refused = Some(refused);
        }
        run
    }

    /// Mints ids from `ids` from now on.
    #[must_use]
    pub fn with_ids(mut self, ids: impl IdGenerator + 'static) -> Self {
        self.ids = Box::new(ids);
        self
    }

    /// Stamps every event (those already emitted included) with the current Unix time in
    /// milliseconds.
    #[must_use]
    pub fn with_timestamps(self) -> Self {
        self.with_clock(now_ms)
    }

    /// Stamps every event (those already emitted included) with `clock()`.
    #[must_use]
    pub fn with_clock(mut self, clock: fn() -> i64) -> Self {
        self.clock = Some(clock);
        for e in &mut self.out {
            if e.timestamp().is_none() {
                e.set_timestamp(Some(clock()));
            }
        }
        self
    }

    /// The thread id.
    #[must_use]
    pub fn thread_id(&self) -> &ThreadId {
        &self.thread_id
    }

    /// The run id.
    #[must_use]
    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// Whether the run has ended (`RUN_FINISHED` or `RUN_ERROR` emitted).
    #[must_use]
    pub fn is_ended(&self) -> bool {
        self.verifier.lifecycle().has_ended()
    }

    /// The verifier every emitted event went through: ask it what the run has open
    /// ([`Verifier::open`]), who owns an id ([`Verifier::owner`]), whether an event would
    /// be accepted next ([`Verifier::check`]).
    #[must_use]
    pub fn verifier(&self) -> &Verifier {
        &self.verifier
    }

    /// The events emitted and not yet drained.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.out
    }

    /// Takes the events emitted since the last drain.
    pub fn drain(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.out)
    }

    /// The events not yet drained.
    #[must_use]
    pub fn into_events(self) -> Vec<Event> {
        self.out
    }

    /// The id of the text message of the current owner that [`text`](Self::text) appends
    /// to, if one is open.
    #[must_use]
    pub fn open_text_message(&self) -> Option<&MessageId> {
        self.cursor_of(self.owner().as_ref())
            .and_then(|c| c.text.as_ref())
            .filter(|id| self.verifier.is_open(OpenKind::TextMessage, id.as_str()))
    }

    /// The text messages the current owner has open, in opening order.
    #[must_use]
    pub fn open_text_messages(&self) -> Vec<MessageId> {
        self.open_of(OpenKind::TextMessage, self.owner().as_ref())
            .into_iter()
            .map(MessageId::from)
            .collect()
    }

    /// The tool calls started in this run and not answered yet, in call order (what
    /// [`finish`](Self::finish) names as pending).
    #[must_use]
    pub fn unanswered_tool_calls(&self) -> Vec<ToolCallId> {
        self.calls
            .iter()
            .filter(|c| c.arguments.is_some() && !c.answered)
            .map(|c| c.id.clone())
            .collect()
    }

    /// The argument text call `id` of this run has received so far.
    #[must_use]
    pub fn tool_call_arguments(&self, id: &str) -> Option<&str> {
        self.call(id).and_then(|c| c.arguments.as_deref())
    }

    /// The innermost active subagent invocation, if any.
    #[must_use]
    pub fn current_subagent(&self) -> Option<SubagentRunId> {
        self.owner()
    }

    /// The usage counted so far, one entry per (provider, model).
    #[must_use]
    pub fn usage_so_far(&self) -> &[TokenUsage] {
        self.usage.entries()
    }

    /// A fresh interrupt id from the emitter's generator, not used before in this run (as
    /// tool-call and message ids are minted), for the interrupts the run ends with.
    ///
    /// ```
    /// use ag_ui_builders::{RunEmitter, SequentialIds, interrupt::tool_approval};
    ///
    /// let mut run = RunEmitter::start("thread-1", "run-1").with_ids(SequentialIds::new());
    /// let call = run.tool_call("send_email", serde_json::json!({"to": "a@b.com"}))?;
    /// let approval = tool_approval(run.new_interrupt_id()?, call, "Send it?");
    /// assert_eq!(approval.id.as_str(), "int-1");
    /// run.interrupt([approval])?;
    /// # Ok::<(), ag_ui_builders::BuildError>(())
    /// ```
    ///
    /// # Errors
    /// [`BuildError::AlreadyOpen`] when the generator keeps returning used ids.
    pub fn new_interrupt_id(&mut self) -> Result<InterruptId, BuildError> {
        let mut last = String::new();
        for _ in 0..MINT_ATTEMPTS {
            let id = self.ids.interrupt_id();
            if !self.interrupt_ids.contains(&id) {
                self.interrupt_ids.push(id.clone());
                return Ok(id);
            }
            last = id.into_string();
        }
        Err(BuildError::AlreadyOpen {
            kind: "interrupt",
            id: last,
        })
    }

    // ---------------------------------------------------------------- asking the verifier

    /// The owner of what is emitted now: the innermost active subagent invocation, `None`
    /// for the agent itself.
    pub(super) fn owner(&self) -> Option<SubagentRunId> {
        self.verifier
            .active_subagents()
            .last()
            .map(|id| SubagentRunId::from(*id))
    }

    /// The ids of `kind` that `owner` has open, in opening order.
    pub(super) fn open_of(&self, kind: OpenKind, owner: Option<&SubagentRunId>) -> Vec<String> {
        self.verifier
            .open()
            .into_iter()
            .filter(|o| o.kind == kind && o.owner.as_deref() == owner.map(SubagentRunId::as_str))
            .map(|o| o.id)
            .collect()
    }

    /// What the run has open that `keep` selects, in opening order.
    pub(super) fn open_where(&self, keep: impl Fn(&Open) -> bool) -> Vec<Open> {
        self.verifier.open().into_iter().filter(keep).collect()
    }

    /// The owner on record for `id` of `kind` (`None`: the run has not seen it).
    pub(super) fn owner_of(&self, kind: EntityKind, id: &str) -> Option<Option<SubagentRunId>> {
        self.verifier
            .owner(kind, id)
            .map(|o| o.map(SubagentRunId::from))
    }

    /// The owner of message id `id`, whichever kind of message (text, tool, reasoning,
    /// activity) it names (`None`: the run has not seen it).
    pub(super) fn message_owner(&self, id: &str) -> Option<Option<SubagentRunId>> {
        [
            EntityKind::Message,
            EntityKind::Reasoning,
            EntityKind::Activity,
        ]
        .into_iter()
        .find_map(|kind| self.owner_of(kind, id))
    }

    /// The cursor of `owner`, if it has one.
    pub(super) fn cursor_of(&self, owner: Option<&SubagentRunId>) -> Option<&Cursor> {
        self.cursors
            .iter()
            .find(|(o, _)| o.as_ref() == owner)
            .map(|(_, c)| c)
    }

    /// The cursor of `owner`, made when missing.
    pub(super) fn cursor_mut(&mut self, owner: Option<&SubagentRunId>) -> &mut Cursor {
        let at = match self.cursors.iter().position(|(o, _)| o.as_ref() == owner) {
            Some(at) => at,
            None => {
                self.cursors.push((owner.cloned(), Cursor::default()));
                self.cursors.len() - 1
            }
        };
        &mut self.cursors[at].1
    }

    /// Forgets the cursor of `owner` (an invocation that ended).
    pub(super) fn drop_cursor(&mut self, owner: Option<&SubagentRunId>) {
        self.cursors.retain(|(o, _)| o.as_ref() != owner);
    }

    /// The text message of `owner` that text is appended to, when it is open.
    pub(super) fn text_of(&self, owner: Option<&SubagentRunId>) -> Option<MessageId> {
        self.cursor_of(owner)
            .and_then(|c| c.text.clone())
            .filter(|id| self.verifier.is_open(OpenKind::TextMessage, id.as_str()))
    }

    /// The tool call `id` of this run, if any.
    pub(super) fn call(&self, id: &str) -> Option<&Call> {
        self.call_index.get(id).map(|&at| &self.calls[at])
    }

    /// The tool call `id` of this run, to update.
    pub(super) fn call_mut(&mut self, id: &str) -> Option<&mut Call> {
        self.call_index.get(id).map(|&at| &mut self.calls[at])
    }

    /// Adds a call to the run's ledger (its id not in it yet).
    pub(super) fn add_call(&mut self, call: Call) {
        self.call_index.insert(call.id.clone(), self.calls.len());
        self.calls.push(call);
    }

    /// A fresh message id not used in this run.
    pub(super) fn mint_message_id(&mut self) -> Result<MessageId, BuildError> {
        let mut last = String::new();
        for _ in 0..MINT_ATTEMPTS {
            let id = self.ids.message_id();
            if !self.minted.contains(&id) && self.message_owner(id.as_str()).is_none() {
                self.minted.insert(id.clone());
                return Ok(id);
            }
            last = id.into_string();
        }
        Err(BuildError::AlreadyOpen {
            kind: "message",
            id: last,
        })
    }

    // ---------------------------------------------------------------- emitting

    /// Refuses every call once the run has ended (or its `RUN_STARTED` was refused).
    pub(super) fn live(&self) -> Result<(), BuildError> {
        if let Some(refused) = &self.refused {
            return Err(refused.clone());
        }
        match self.verifier.lifecycle().status() {
            RunStatus::Finished => Err(BuildError::RunEnded(EventType::RunFinished)),
            RunStatus::Errored => Err(BuildError::RunEnded(EventType::RunError)),
            _ => Ok(()),
        }
    }

    /// Emits one of the emitter's own events, checked by the verifier like a hand-built one
    /// (what the caller did, hand-built events and snapshots included, could make one
    /// break a rule: it is then refused, so the stream stays valid).
    pub(super) fn emit(&mut self, event: impl Into<Event>) -> Result<(), BuildError> {
        let mut event = event.into();
        if let Some(clock) = self.clock {
            event.set_timestamp(Some(clock()));
        }
        self.verifier.push(&event).map_err(BuildError::Violation)?;
        self.out.push(event);
        Ok(())
    }
}
