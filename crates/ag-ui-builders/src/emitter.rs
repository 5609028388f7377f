//! [`RunEmitter`]: turns an agent's work — a model's streamed output, tool results, state,
//! steps, activity, subagents — into a well-ordered AG-UI event sequence.

use std::collections::HashMap;
use std::fmt;

use ag_ui_core::{
    Content, Event, EventType, Interrupt, InterruptId, JsonPatchOperation, Message, MessageId,
    ReasoningEncryptedValueSubtype, RunFinishedOutcome, RunId, RunStartedEvent, RunStatus,
    SubagentFinishedOutcome, SubagentRunId, SubagentStartedEvent, ThreadId, TokenUsage, ToolCallId,
    Verifier,
};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, into_object, to_value};
use crate::event;
use crate::ids::{IdGenerator, UuidIds};
use crate::outcome::{interrupted, subagent_suspended, success_pending};
use crate::patch::{check, diff};
use crate::tool::IntoArguments;
use crate::usage::{ProviderUsage, UsageMeter};

/// How many fresh ids the emitter draws from its generator before giving up on finding one
/// not yet used in the run (a generator that keeps repeating itself).
const MINT_ATTEMPTS: usize = 64;

/// One piece of a model's streamed output, as agent frameworks report it (text, thinking,
/// tool-call start / argument delta / end, the end of the model's turn with usage).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelChunk {
    /// A fragment of the answer text (of the open text message, or of a new one with a
    /// minted id).
    Text(String),
    /// A fragment of the answer text of the provider's message `id` (the message id is
    /// reused; several messages may interleave).
    TextWithId {
        /// The provider's message id.
        id: String,
        /// The fragment.
        delta: String,
    },
    /// A fragment of visible reasoning ("thinking").
    Thinking(String),
    /// A tool call begins; `id` is the provider's call id.
    ToolCallStart {
        /// The provider's call id.
        id: String,
        /// The tool called.
        name: String,
    },
    /// A fragment of a tool call's JSON arguments.
    ToolCallDelta {
        /// The call.
        id: String,
        /// The fragment.
        delta: String,
    },
    /// A tool call's arguments are complete.
    ToolCallEnd {
        /// The call.
        id: String,
    },
    /// The model call is over: the assistant's turn ends (open text, reasoning and tool
    /// calls are closed, see [`RunEmitter::close_turn`]) and its usage, if reported, is
    /// counted. It does **not** end the run: the agent may run tools and call the model
    /// again; end the run with [`RunEmitter::finish`], [`RunEmitter::interrupt`],
    /// [`RunEmitter::cancel`] or [`RunEmitter::fail`].
    EndTurn {
        /// The provider's counts for this call.
        usage: Option<ProviderUsage>,
    },
}

/// What one owner (the agent itself, or one subagent invocation) has open.
#[derive(Debug, Default)]
struct Lane {
    owner: Option<SubagentRunId>,
    /// Open text messages, in opening order.
    texts: Vec<MessageId>,
    /// The open text message that [`RunEmitter::text`] appends to.
    text: Option<MessageId>,
    /// The assistant message the turn's tool calls attach to.
    turn: Option<MessageId>,
    /// Open reasoning spans, in opening order.
    reasoning_spans: Vec<MessageId>,
    /// Open reasoning messages, in opening order (the last one is appended to).
    reasoning_messages: Vec<MessageId>,
    last_reasoning: Option<MessageId>,
    calls: Vec<ToolCallId>,
    steps: Vec<String>,
}

impl Lane {
    fn owned_by(owner: Option<SubagentRunId>) -> Self {
        Self {
            owner,
            ..Self::default()
        }
    }
}

/// A tool call the run has seen: started in it, or answered in it after an earlier run
/// made it.
#[derive(Debug)]
struct Call {
    id: ToolCallId,
    owner: Option<SubagentRunId>,
    /// The argument text so far; `None` when the call was made by an earlier run.
    arguments: Option<String>,
}

/// An activity message the emitter has created, with its last content (for deltas;
/// `None` once a raw patch made it unknown).
#[derive(Debug)]
struct Activity {
    id: MessageId,
    activity_type: String,
    owner: Option<SubagentRunId>,
    content: Option<Map<String, Value>>,
}

/// Emits the events of one run in an order the protocol accepts (spec §9.1).
///
/// * Creating the emitter emits `RUN_STARTED` (declaring `protocolVersion: "1.0"`); ending it
///   ([`finish`](Self::finish), [`interrupt`](Self::interrupt), [`cancel`](Self::cancel),
///   [`fail`](Self::fail)) emits `RUN_FINISHED` or `RUN_ERROR`, after which every call is an
///   [`Error::RunEnded`].
/// * Text and reasoning deltas open their message (and reasoning span) when none is open and
///   close the other kind first; starting a tool call closes the open text message and
///   attaches the call to it (`parentMessageId`); a tool result ends the assistant turn, so
///   the next text is a new message. [`text_with_id`](Self::text_with_id) reuses a
///   provider's message id and lets several text messages interleave.
/// * Ids are unique within the run (spec §9.5): a tool-call id cannot be started twice, a
///   message id cannot be taken over by another owner, and minted ids skip ids already used.
/// * Finishing closes what is still open — reasoning, text, tool calls, then steps, innermost
///   first — because `RUN_FINISHED` is not accepted with anything open; it refuses
///   ([`Error::SubagentActive`]) while a subagent invocation is active, since only the caller
///   knows how that ended, and it refuses ([`Error::IncompleteArguments`]) to hand out a
///   tool call whose arguments are not complete JSON. `fail` emits `RUN_ERROR` at once,
///   which the protocol accepts with anything open.
/// * Between [`subagent_start`](Self::subagent_start) and its end, everything emitted is
///   attributed to that invocation (`subagentRunId`); nested starts name their parent.
/// * Calls that would break an order rule (a delta for a call that is not open, a step
///   finished twice, …) return an error and emit nothing. Every event, the emitter's own
///   and the hand-built ones sent with [`push_event`](Self::push_event), is checked with
///   the lifecycle rules of [`ag_ui_core::Verifier`] before it is emitted, so the stream
///   stays valid even when hand-built events or a `MESSAGES_SNAPSHOT` changed what the run
///   holds ([`Error::Violation`]).
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
/// # Ok::<(), ag_ui_builders::Error>(())
/// ```
pub struct RunEmitter {
    thread_id: ThreadId,
    run_id: RunId,
    ids: Box<dyn IdGenerator>,
    clock: Option<fn() -> i64>,
    out: Vec<Event>,
    lanes: Vec<Lane>,
    subagents_used: Vec<SubagentRunId>,
    calls: Vec<Call>,
    /// Message ids used in the run (text, tool, reasoning, activity) and their owners.
    messages: HashMap<MessageId, Option<SubagentRunId>>,
    interrupt_ids: Vec<InterruptId>,
    /// The protocol version the `RUN_STARTED` declared (1.0 when it declared none).
    protocol: ag_ui_core::ProtocolVersion,
    unanswered: Vec<ToolCallId>,
    activities: Vec<Activity>,
    state: Option<Value>,
    usage: UsageMeter,
    verifier: Verifier,
    /// Why the `RUN_STARTED` given to [`RunEmitter::start_with`] was refused, if it was:
    /// every call then fails with it.
    refused: Option<Error>,
}

impl fmt::Debug for RunEmitter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunEmitter")
            .field("thread_id", &self.thread_id)
            .field("run_id", &self.run_id)
            .field("status", &self.verifier.lifecycle().status())
            .field("lanes", &self.lanes)
            .field("pending", &self.out.len())
            .finish_non_exhaustive()
    }
}

/// Sets the attribution of an attributable event, by value.
trait Attribute: Into<Event> {
    fn owned_by(self, owner: Option<&SubagentRunId>) -> Self;
}

impl<E: ag_ui_core::Attributable + Into<Event>> Attribute for E {
    fn owned_by(mut self, owner: Option<&SubagentRunId>) -> Self {
        self.set_subagent_run_id(owner.cloned());
        self
    }
}

/// The length of `value` as compact JSON (0 if it cannot be written, which a value built by
/// `serde_json` always can).
fn json_len(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

/// Unix epoch milliseconds now (0 if the clock is before 1970).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Whether a call's argument text can be handed out: complete JSON, or nothing at all (a
/// call without arguments).
fn complete_arguments(arguments: &str) -> bool {
    arguments.trim().is_empty() || serde_json::from_str::<serde::de::IgnoredAny>(arguments).is_ok()
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
    pub fn start_for(input: &ag_ui_core::RunAgentInput) -> Self {
        let version = ag_ui_core::ProtocolVersion::answer_for(input.protocol_version.as_deref());
        Self::start_with(
            event::run_started(input.thread_id.clone(), input.run_id.clone())
                .with_protocol_version(version.to_string()),
        )
    }

    /// The protocol version the run declared on `RUN_STARTED` (1.0 when it declared none):
    /// what the run may emit.
    #[must_use]
    pub fn protocol_version(&self) -> ag_ui_core::ProtocolVersion {
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
            lanes: vec![Lane::default()],
            subagents_used: Vec::new(),
            calls: Vec::new(),
            messages: HashMap::new(),
            interrupt_ids: Vec::new(),
            protocol: started
                .protocol_version
                .as_deref()
                .and_then(ag_ui_core::ProtocolVersion::parse)
                .unwrap_or(ag_ui_core::ProtocolVersion::V1_0),
            unanswered: Vec::new(),
            activities: Vec::new(),
            state: None,
            usage: UsageMeter::new(),
            verifier: Verifier::new(),
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
        self.lane().text.as_ref()
    }

    /// The text messages the current owner has open, in opening order.
    #[must_use]
    pub fn open_text_messages(&self) -> &[MessageId] {
        &self.lane().texts
    }

    /// The tool calls started in this run and not answered yet, in call order (what
    /// [`finish`](Self::finish) names as pending).
    #[must_use]
    pub fn unanswered_tool_calls(&self) -> &[ToolCallId] {
        &self.unanswered
    }

    /// The argument text call `id` of this run has received so far.
    #[must_use]
    pub fn tool_call_arguments(&self, id: &str) -> Option<&str> {
        self.calls
            .iter()
            .find(|c| c.id.as_str() == id)
            .and_then(|c| c.arguments.as_deref())
    }

    /// The innermost active subagent invocation, if any.
    #[must_use]
    pub fn current_subagent(&self) -> Option<&SubagentRunId> {
        self.lane().owner.as_ref()
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
    /// # Ok::<(), ag_ui_builders::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AlreadyOpen`] when the generator keeps returning used ids.
    pub fn new_interrupt_id(&mut self) -> Result<InterruptId, Error> {
        let mut last = String::new();
        for _ in 0..MINT_ATTEMPTS {
            let id = self.ids.interrupt_id();
            if !self.interrupt_ids.contains(&id) {
                self.interrupt_ids.push(id.clone());
                return Ok(id);
            }
            last = id.into_string();
        }
        Err(Error::AlreadyOpen {
            kind: "interrupt",
            id: last,
        })
    }

    // ---------------------------------------------------------------- model output

    /// Feeds one chunk of a model's streamed output.
    ///
    /// # Errors
    /// As the method each chunk maps to ([`text`](Self::text),
    /// [`text_with_id`](Self::text_with_id), [`reasoning`](Self::reasoning),
    /// [`tool_call_start_with_id`](Self::tool_call_start_with_id),
    /// [`tool_call_args`](Self::tool_call_args), [`tool_call_end`](Self::tool_call_end),
    /// [`close_turn`](Self::close_turn)).
    pub fn push(&mut self, chunk: ModelChunk) -> Result<(), Error> {
        match chunk {
            ModelChunk::Text(delta) => self.text(delta).map(drop),
            ModelChunk::TextWithId { id, delta } => self.text_with_id(id, delta),
            ModelChunk::Thinking(delta) => self.reasoning(delta).map(drop),
            ModelChunk::ToolCallStart { id, name } => self.tool_call_start_with_id(id, name),
            ModelChunk::ToolCallDelta { id, delta } => self.tool_call_args(id, delta),
            ModelChunk::ToolCallEnd { id } => self.tool_call_end(id),
            ModelChunk::EndTurn { usage } => {
                self.live()?;
                if let Some(u) = usage {
                    self.usage(u);
                }
                self.close_turn()
            }
        }
    }

    /// Appends `delta` to the open text message, opening one with a minted id (and closing
    /// open reasoning) when none is open. Returns the message id.
    ///
    /// # Errors
    /// [`Error::RunEnded`]; [`Error::AlreadyOpen`] when the generator keeps returning used
    /// ids.
    pub fn text(&mut self, delta: impl Into<String>) -> Result<MessageId, Error> {
        self.live()?;
        let id = match self.lane().text.clone() {
            Some(id) => id,
            None => {
                let id = self.mint_message_id()?;
                self.open_text(id.clone())?;
                id
            }
        };
        let owner = self.owner();
        self.emit(event::text_message_content(id.clone(), delta).owned_by(owner.as_ref()))?;
        Ok(id)
    }

    /// Appends `delta` to text message `id` (a provider's message id), opening it (and
    /// closing open reasoning) when it is not open. The message becomes the one
    /// [`text`](Self::text) appends to and the one tool calls attach to; other open messages
    /// stay open, so that messages can interleave (spec §9.1 T2) until closed with
    /// [`text_message_end`](Self::text_message_end) or the end of the turn.
    ///
    /// ```
    /// use ag_ui_builders::RunEmitter;
    ///
    /// let mut run = RunEmitter::start("thread-1", "run-1");
    /// run.text_with_id("msg_a", "Hello ")?;
    /// run.text_with_id("msg_b", "Bonjour ")?;
    /// run.text_with_id("msg_a", "world")?;
    /// run.text_message_end("msg_a")?;
    /// run.text_with_id("msg_b", "le monde")?;
    /// run.finish()?;
    /// # Ok::<(), ag_ui_builders::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AlreadyOpen`] when `id` is open for another owner or was used in this run by
    /// another owner (a message id keeps its owner for the whole run); [`Error::RunEnded`].
    pub fn text_with_id(
        &mut self,
        id: impl Into<MessageId>,
        delta: impl Into<String>,
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let owner = self.owner();
        if self.lane().texts.contains(&id) {
            let lane = self.lane_mut();
            lane.text = Some(id.clone());
            lane.turn = Some(id.clone());
        } else {
            let taken = self.lanes.iter().any(|l| l.texts.contains(&id))
                || self.messages.get(&id).is_some_and(|o| *o != owner);
            if taken {
                return Err(Error::AlreadyOpen {
                    kind: "message",
                    id: id.into_string(),
                });
            }
            self.open_text(id.clone())?;
        }
        self.emit(event::text_message_content(id, delta).owned_by(owner.as_ref()))?;
        Ok(())
    }

    /// Closes the text message [`text`](Self::text) appends to, if any (other open text
    /// messages stay open).
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn close_text(&mut self) -> Result<(), Error> {
        self.live()?;
        let top = self.top();
        self.close_text_in(top)?;
        Ok(())
    }

    /// Closes text message `id` of the current owner.
    ///
    /// # Errors
    /// [`Error::NotOpen`] when the current owner has no text message `id` open;
    /// [`Error::RunEnded`].
    pub fn text_message_end(&mut self, id: impl Into<MessageId>) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let top = self.top();
        if !self.lanes[top].texts.contains(&id) {
            return Err(Error::NotOpen {
                kind: "text message",
                id: id.into_string(),
            });
        }
        self.end_text_in(top, &id)?;
        Ok(())
    }

    /// Ends the assistant turn: closes open text, reasoning and tool calls of the current
    /// owner; the next text or tool call belongs to a new assistant message.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn close_turn(&mut self) -> Result<(), Error> {
        self.live()?;
        let top = self.top();
        self.close_turn_in(top)?;
        Ok(())
    }

    /// Appends `delta` to the open reasoning message, opening a reasoning span and message
    /// (and closing open text) when none is open. Returns the reasoning message id.
    ///
    /// # Errors
    /// [`Error::RunEnded`]; [`Error::AlreadyOpen`] when the generator keeps returning used
    /// ids.
    pub fn reasoning(&mut self, delta: impl Into<String>) -> Result<MessageId, Error> {
        self.live()?;
        let owner = self.owner();
        let top = self.top();
        let id = match self.lane().reasoning_messages.last().cloned() {
            Some(id) => id,
            None => {
                let id = self.mint_message_id()?;
                self.close_text_in(top)?;
                if self.lane().reasoning_spans.is_empty() {
                    self.emit(event::reasoning_start(id.clone()).owned_by(owner.as_ref()))?;
                    self.lane_mut().reasoning_spans.push(id.clone());
                }
                self.emit(event::reasoning_message_start(id.clone()).owned_by(owner.as_ref()))?;
                let lane = self.lane_mut();
                lane.reasoning_messages.push(id.clone());
                lane.last_reasoning = Some(id.clone());
                self.messages.insert(id.clone(), owner.clone());
                id
            }
        };
        self.emit(event::reasoning_message_content(id.clone(), delta).owned_by(owner.as_ref()))?;
        Ok(id)
    }

    /// Closes the open reasoning messages and spans, if any.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn close_reasoning(&mut self) -> Result<(), Error> {
        self.live()?;
        let top = self.top();
        self.close_reasoning_in(top)?;
        Ok(())
    }

    /// Attaches an encrypted reasoning artefact to the last reasoning message of the current
    /// owner (`REASONING_ENCRYPTED_VALUE`, subtype `message`).
    ///
    /// # Errors
    /// [`Error::NotOpen`] when no reasoning message was emitted; [`Error::RunEnded`].
    pub fn reasoning_encrypted_value(&mut self, value: impl Into<String>) -> Result<(), Error> {
        self.live()?;
        let id = self.lane().last_reasoning.clone().ok_or(Error::NotOpen {
            kind: "reasoning message",
            id: String::new(),
        })?;
        self.encrypted_value(
            ReasoningEncryptedValueSubtype::Message,
            id.into_string(),
            value,
        )
    }

    /// [`reasoning_encrypted_value`](Self::reasoning_encrypted_value) with the kind of
    /// artefact the value is (`encryptedValueType`, AG-UI 1.1, e.g.
    /// `anthropic.redacted_thinking`).
    ///
    /// # Errors
    /// As [`typed_encrypted_value`](Self::typed_encrypted_value).
    pub fn typed_reasoning_encrypted_value(
        &mut self,
        value: impl Into<String>,
        value_type: impl Into<String>,
    ) -> Result<(), Error> {
        self.live()?;
        let id = self.lane().last_reasoning.clone().ok_or(Error::NotOpen {
            kind: "reasoning message",
            id: String::new(),
        })?;
        self.typed_encrypted_value(
            ReasoningEncryptedValueSubtype::Message,
            id.into_string(),
            value,
            value_type,
        )
    }

    /// [`encrypted_value`](Self::encrypted_value) with the kind of artefact the value is
    /// (`encryptedValueType`, AG-UI 1.1): the value and its type are stored together, and
    /// a later value without a type removes it.
    ///
    /// # Errors
    /// [`Error::NotInVersion`] when the run declared a protocol version older than 1.1 (a
    /// stream that carries the type speaks 1.1); as [`encrypted_value`](Self::encrypted_value).
    pub fn typed_encrypted_value(
        &mut self,
        subtype: ReasoningEncryptedValueSubtype,
        entity_id: impl Into<String>,
        value: impl Into<String>,
        value_type: impl Into<String>,
    ) -> Result<(), Error> {
        self.live()?;
        let needs = ag_ui_core::ProtocolVersion::V1_1;
        if self.protocol < needs {
            return Err(Error::NotInVersion {
                member: "encryptedValueType",
                declared: self.protocol,
                needs,
            });
        }
        self.encrypted_value_of(
            subtype,
            entity_id.into(),
            value.into(),
            Some(value_type.into()),
        )
    }

    /// Attaches an encrypted artefact to any message or tool call
    /// (`REASONING_ENCRYPTED_VALUE`), attributed to the entity's owner when the run knows
    /// the entity, else to the current owner.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn encrypted_value(
        &mut self,
        subtype: ReasoningEncryptedValueSubtype,
        entity_id: impl Into<String>,
        value: impl Into<String>,
    ) -> Result<(), Error> {
        self.live()?;
        self.encrypted_value_of(subtype, entity_id.into(), value.into(), None)
    }

    fn encrypted_value_of(
        &mut self,
        subtype: ReasoningEncryptedValueSubtype,
        entity_id: String,
        value: String,
        value_type: Option<String>,
    ) -> Result<(), Error> {
        let known = match subtype {
            ReasoningEncryptedValueSubtype::ToolCall => self
                .calls
                .iter()
                .find(|c| c.id.as_str() == entity_id)
                .map(|c| c.owner.clone()),
            ReasoningEncryptedValueSubtype::Message => {
                self.messages.get(entity_id.as_str()).cloned()
            }
            _ => None,
        };
        let owner = known.unwrap_or_else(|| self.owner());
        let mut e = event::reasoning_encrypted_value(subtype, entity_id, value);
        e.encrypted_value_type = value_type;
        self.emit(e.owned_by(owner.as_ref()))?;
        Ok(())
    }

    // ---------------------------------------------------------------- tool calls

    /// Starts a call of `name` with a minted id (one not used in this run), attached to the
    /// current assistant message (the open text message is closed). Returns the call id.
    ///
    /// # Errors
    /// [`Error::RunEnded`]; [`Error::AlreadyOpen`] when the generator keeps returning used
    /// ids.
    pub fn tool_call_start(&mut self, name: impl Into<String>) -> Result<ToolCallId, Error> {
        self.live()?;
        let mut last = String::new();
        for _ in 0..MINT_ATTEMPTS {
            let id = self.ids.tool_call_id();
            if !self.calls.iter().any(|c| c.id == id) {
                self.tool_call_start_with_id(id.clone(), name)?;
                return Ok(id);
            }
            last = id.into_string();
        }
        Err(Error::AlreadyOpen {
            kind: "tool call",
            id: last,
        })
    }

    /// Starts call `id` (a provider's call id) of `name`.
    ///
    /// # Errors
    /// [`Error::AlreadyOpen`] when call `id` was already started in this run (open or not:
    /// tool-call ids are unique within a run, spec §9.5) or answered in it;
    /// [`Error::RunEnded`].
    pub fn tool_call_start_with_id(
        &mut self,
        id: impl Into<ToolCallId>,
        name: impl Into<String>,
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        if self.calls.iter().any(|c| c.id == id) {
            return Err(Error::AlreadyOpen {
                kind: "tool call",
                id: id.into_string(),
            });
        }
        let owner = self.owner();
        let parent = match self.lane().turn.clone() {
            Some(p) => p,
            None => self.mint_message_id()?,
        };
        let top = self.top();
        self.close_reasoning_in(top)?;
        self.close_text_in(top)?;
        self.lane_mut().turn = Some(parent.clone());
        self.messages
            .entry(parent.clone())
            .or_insert_with(|| owner.clone());
        self.emit(
            event::tool_call_start(id.clone(), name)
                .with_parent_message_id(parent)
                .owned_by(owner.as_ref()),
        )?;
        self.lane_mut().calls.push(id.clone());
        self.calls.push(Call {
            id: id.clone(),
            owner,
            arguments: Some(String::new()),
        });
        self.unanswered.push(id);
        Ok(())
    }

    /// Appends an argument fragment to open call `id` (an empty fragment is allowed).
    ///
    /// # Errors
    /// [`Error::NotOpen`] when call `id` is not open; [`Error::RunEnded`].
    pub fn tool_call_args(
        &mut self,
        id: impl Into<ToolCallId>,
        delta: impl Into<String>,
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let owner = self.call_owner(&id)?;
        let delta = delta.into();
        self.record_arguments(&id, &delta);
        self.emit(event::tool_call_args(id, delta).owned_by(owner.as_ref()))?;
        Ok(())
    }

    /// Marks the arguments of open call `id` complete.
    ///
    /// # Errors
    /// [`Error::NotOpen`] when call `id` is not open; [`Error::RunEnded`].
    pub fn tool_call_end(&mut self, id: impl Into<ToolCallId>) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let owner = self.call_owner(&id)?;
        self.end_call(&id, owner.as_ref())?;
        Ok(())
    }

    /// A whole call: start (minted id), arguments, end. Returns the call id.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn tool_call(
        &mut self,
        name: impl Into<String>,
        arguments: impl IntoArguments,
    ) -> Result<ToolCallId, Error> {
        let id = self.tool_call_start(name)?;
        self.tool_call_args(id.clone(), arguments.into_arguments())?;
        self.tool_call_end(id.clone())?;
        Ok(id)
    }

    /// Delivers the result of call `tool_call_id` (`TOOL_CALL_RESULT`, minting the tool
    /// message id, which is returned). A call whose arguments are still open is ended first;
    /// the call may also come from an earlier run (resuming after an interrupt). The
    /// assistant turn ends: later text is a new message.
    ///
    /// # Errors
    /// [`Error::RunEnded`]; [`Error::AlreadyOpen`] when the generator keeps returning used
    /// ids.
    pub fn tool_call_result(
        &mut self,
        tool_call_id: impl Into<ToolCallId>,
        content: impl Into<Content>,
    ) -> Result<MessageId, Error> {
        self.live()?;
        let call = tool_call_id.into();
        let id = self.mint_message_id()?;
        if let Ok(owner) = self.call_owner(&call) {
            self.end_call(&call, owner.as_ref())?;
        }
        let top = self.top();
        self.close_turn_in(top)?;
        let owner = self.owner();
        self.messages.insert(id.clone(), owner.clone());
        self.emit(
            event::tool_call_result(id.clone(), call.clone(), content).owned_by(owner.as_ref()),
        )?;
        if !self.calls.iter().any(|c| c.id == call) {
            self.calls.push(Call {
                id: call.clone(),
                owner,
                arguments: None,
            });
        }
        self.unanswered.retain(|c| *c != call);
        Ok(id)
    }

    // ---------------------------------------------------------------- state

    /// Sends the whole state (`STATE_SNAPSHOT`).
    ///
    /// # Errors
    /// [`Error::Json`] when `state` cannot be serialized; [`Error::RunEnded`].
    pub fn state_snapshot(&mut self, state: &(impl Serialize + ?Sized)) -> Result<(), Error> {
        self.live()?;
        let value = to_value(state)?;
        let owner = self.owner();
        self.emit(event::state_snapshot(value.clone()).owned_by(owner.as_ref()))?;
        self.state = Some(value);
        Ok(())
    }

    /// Sends a JSON Patch against the state (`STATE_DELTA`). When the emitter knows the
    /// state (a snapshot, a [`state`](Self::state) or
    /// [`with_state_baseline`](Self::with_state_baseline) before), it applies the patch to
    /// it, so that `state` and `state_delta` can be mixed; a patch that does not apply to
    /// that state is refused, as a client would fail on it.
    ///
    /// ```
    /// use ag_ui_builders::RunEmitter;
    /// use ag_ui_core::{EventType, JsonPatchOperation};
    /// use serde_json::json;
    ///
    /// let mut run = RunEmitter::start("thread-1", "run-1");
    /// let todos: Vec<String> = (1..=20).map(|i| format!("todo number {i}")).collect();
    /// run.state(&json!({"todos": todos}))?; // snapshot
    /// run.state_delta([JsonPatchOperation::add("/todos/-", "one more")])?;
    /// let mut todos = todos;
    /// todos.push("one more".into());
    /// todos.push("and another".into());
    /// run.state(&json!({"todos": todos}))?; // a delta from the patched state
    /// let types: Vec<_> = run.drain().into_iter().map(|e| e.event_type()).collect();
    /// assert_eq!(types[1..], [EventType::StateSnapshot, EventType::StateDelta, EventType::StateDelta]);
    /// # Ok::<(), ag_ui_builders::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidPointer`] (at `/delta/<i>/…`); [`Error::PatchFailed`] when the patch
    /// does not apply to the state the emitter knows; [`Error::RunEnded`].
    pub fn state_delta(
        &mut self,
        patch: impl IntoIterator<Item = JsonPatchOperation>,
    ) -> Result<(), Error> {
        self.live()?;
        let ev = event::state_delta(patch)?;
        let next = self.patched_state(&ev.delta)?;
        let owner = self.owner();
        self.emit(ev.owned_by(owner.as_ref()))?;
        self.state = next;
        Ok(())
    }

    /// Sends the new state the cheapest way: a snapshot the first time (unless
    /// [`with_state_baseline`](Self::with_state_baseline) gave the state the client holds),
    /// then the JSON Patch from the last state sent ([`patch::diff`](crate::patch::diff):
    /// array-aware) or a snapshot, whichever is smaller as JSON; nothing when unchanged.
    ///
    /// # Errors
    /// [`Error::Json`] when `state` cannot be serialized; [`Error::RunEnded`].
    pub fn state(&mut self, state: &(impl Serialize + ?Sized)) -> Result<(), Error> {
        self.live()?;
        let value = to_value(state)?;
        match &self.state {
            None => self.state_snapshot(&value),
            Some(old) => {
                let patch = diff(old, &value);
                if patch.is_empty() {
                    return Ok(());
                }
                if json_len(&value) <= json_len(&patch) {
                    return self.state_snapshot(&value);
                }
                let owner = self.owner();
                self.emit(ag_ui_core::StateDeltaEvent::new(patch).owned_by(owner.as_ref()))?;
                self.state = Some(value);
                Ok(())
            }
        }
    }

    /// The state the client holds when the run starts (typically the run input's
    /// `state`): the first [`state`](Self::state) sends a delta from it when that is
    /// smaller, and [`state_delta`](Self::state_delta) applies to it.
    #[must_use]
    pub fn with_state_baseline(mut self, state: Value) -> Self {
        self.state = Some(state);
        self
    }

    /// The state the emitter knows after `delta`: the known state patched, `None` when the
    /// state is unknown.
    fn patched_state(&self, delta: &ag_ui_core::JsonPatch) -> Result<Option<Value>, Error> {
        let Some(mut state) = self.state.clone() else {
            return Ok(None);
        };
        delta.apply(&mut state).map_err(|e| Error::PatchFailed {
            pointer: format!("/delta{}", e.pointer()),
            reason: e.to_string(),
        })?;
        Ok(Some(state))
    }

    /// Sends `MESSAGES_SNAPSHOT` (the complete set of messages this agent owns).
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn messages_snapshot(
        &mut self,
        messages: impl IntoIterator<Item = Message>,
    ) -> Result<(), Error> {
        self.live()?;
        self.emit(event::messages_snapshot(messages))?;
        Ok(())
    }

    // ---------------------------------------------------------------- steps

    /// Opens step `name` for the current owner.
    ///
    /// # Errors
    /// [`Error::AlreadyOpen`] when that owner has the step open; [`Error::RunEnded`].
    pub fn step_start(&mut self, name: impl Into<String>) -> Result<(), Error> {
        self.live()?;
        let name = name.into();
        if self.lane().steps.contains(&name) {
            return Err(Error::AlreadyOpen {
                kind: "step",
                id: name,
            });
        }
        let owner = self.owner();
        self.emit(event::step_started(name.clone()).owned_by(owner.as_ref()))?;
        self.lane_mut().steps.push(name);
        Ok(())
    }

    /// Closes step `name` of the current owner.
    ///
    /// # Errors
    /// [`Error::NotOpen`] when that owner has no such step open; [`Error::RunEnded`].
    pub fn step_finish(&mut self, name: impl Into<String>) -> Result<(), Error> {
        self.live()?;
        let name = name.into();
        let Some(pos) = self.lane().steps.iter().position(|s| *s == name) else {
            return Err(Error::NotOpen {
                kind: "step",
                id: name,
            });
        };
        self.lane_mut().steps.remove(pos);
        let owner = self.owner();
        self.emit(event::step_finished(name).owned_by(owner.as_ref()))?;
        Ok(())
    }

    // ---------------------------------------------------------------- activity

    /// Creates an activity message (minted id, returned) with `content`, which must
    /// serialize to a JSON object.
    ///
    /// # Errors
    /// [`Error::NotAnObject`] at `/content`; [`Error::Json`]; [`Error::RunEnded`].
    pub fn activity(
        &mut self,
        activity_type: impl Into<String>,
        content: &(impl Serialize + ?Sized),
    ) -> Result<MessageId, Error> {
        self.live()?;
        let id = self.mint_message_id()?;
        self.activity_snapshot(id.clone(), activity_type, content)?;
        Ok(id)
    }

    /// Creates or replaces activity message `id` (`ACTIVITY_SNAPSHOT`).
    ///
    /// # Errors
    /// As [`activity`](Self::activity).
    pub fn activity_snapshot(
        &mut self,
        id: impl Into<MessageId>,
        activity_type: impl Into<String>,
        content: &(impl Serialize + ?Sized),
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let activity_type = activity_type.into();
        let content = into_object(to_value(content)?, "/content")?;
        let owner = self.owner();
        self.emit(
            ag_ui_core::ActivitySnapshotEvent::new(
                id.clone(),
                activity_type.clone(),
                content.clone(),
            )
            .owned_by(owner.as_ref()),
        )?;
        self.messages
            .entry(id.clone())
            .or_insert_with(|| owner.clone());
        self.track_activity(id, activity_type, owner, Some(content));
        Ok(())
    }

    /// Updates activity message `id` to `content`, sending the JSON Patch from its last
    /// content (`ACTIVITY_DELTA`; nothing when unchanged; an `ACTIVITY_SNAPSHOT` when a patch
    /// sent with [`activity_delta`](Self::activity_delta) made the last content unknown).
    ///
    /// # Errors
    /// [`Error::NotOpen`] when this emitter created no activity `id`; [`Error::NotAnObject`];
    /// [`Error::Json`]; [`Error::RunEnded`].
    pub fn activity_update(
        &mut self,
        id: impl Into<MessageId>,
        content: &(impl Serialize + ?Sized),
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let content = into_object(to_value(content)?, "/content")?;
        let Some(a) = self.activities.iter().find(|a| a.id == id) else {
            return Err(Error::NotOpen {
                kind: "activity",
                id: id.into_string(),
            });
        };
        // Attributed to the activity's owner, whoever updates it.
        let (activity_type, owner) = (a.activity_type.clone(), a.owner.clone());
        match &a.content {
            // The content is unknown after a raw patch: send it whole.
            None => self.emit(
                ag_ui_core::ActivitySnapshotEvent::new(
                    id.clone(),
                    activity_type.clone(),
                    content.clone(),
                )
                .owned_by(owner.as_ref()),
            )?,
            Some(old) => {
                let patch = diff(&Value::Object(old.clone()), &Value::Object(content.clone()));
                if !patch.is_empty() {
                    self.emit(
                        ag_ui_core::ActivityDeltaEvent::new(
                            id.clone(),
                            activity_type.clone(),
                            patch,
                        )
                        .owned_by(owner.as_ref()),
                    )?;
                }
            }
        }
        self.track_activity(id, activity_type, owner, Some(content));
        Ok(())
    }

    /// Sends a JSON Patch against activity message `id`'s content (`ACTIVITY_DELTA`,
    /// attributed to the activity's owner).
    ///
    /// # Errors
    /// [`Error::NotOpen`] when this emitter created no activity `id`;
    /// [`Error::InvalidPointer`]; [`Error::RunEnded`].
    pub fn activity_delta(
        &mut self,
        id: impl Into<MessageId>,
        patch: impl IntoIterator<Item = JsonPatchOperation>,
    ) -> Result<(), Error> {
        self.live()?;
        let id = id.into();
        let patch: Vec<_> = patch.into_iter().collect();
        check(&patch).map_err(|e| e.under("/patch"))?;
        let Some(a) = self.activities.iter().find(|a| a.id == id) else {
            return Err(Error::NotOpen {
                kind: "activity",
                id: id.into_string(),
            });
        };
        let (activity_type, owner) = (a.activity_type.clone(), a.owner.clone());
        self.emit(
            ag_ui_core::ActivityDeltaEvent::new(id.clone(), activity_type.clone(), patch)
                .owned_by(owner.as_ref()),
        )?;
        // The emitter does not apply patches: the next update sends a snapshot.
        self.track_activity(id, activity_type, owner, None);
        Ok(())
    }

    // ---------------------------------------------------------------- special

    /// Sends `CUSTOM(name, value)`.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn custom(
        &mut self,
        name: impl Into<String>,
        value: impl Into<Value>,
    ) -> Result<(), Error> {
        self.live()?;
        let owner = self.owner();
        self.emit(event::custom(name, value).owned_by(owner.as_ref()))?;
        Ok(())
    }

    /// Passes a provider-native event through (`RAW`).
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn raw(&mut self, raw: impl Into<Value>, source: Option<&str>) -> Result<(), Error> {
        self.live()?;
        let owner = self.owner();
        let mut ev = event::raw(raw).owned_by(owner.as_ref());
        ev.source = source.map(str::to_owned);
        self.emit(ev)?;
        Ok(())
    }

    // ---------------------------------------------------------------- subagents

    /// Starts a subagent invocation of `name` (minted id, returned); until it ends,
    /// everything emitted is attributed to it. Nested in an active invocation, it names that
    /// one as its parent.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn subagent_start(&mut self, name: impl Into<String>) -> Result<SubagentRunId, Error> {
        self.live()?;
        let id = self.ids.subagent_run_id();
        self.subagent_start_with(event::subagent_started(id.clone(), name))?;
        Ok(id)
    }

    /// Starts a subagent invocation described by `started` (to set `description`,
    /// `parentToolCallId`, …). Its parent defaults to the active invocation.
    ///
    /// # Errors
    /// [`Error::AlreadyOpen`] when the id was already used in this run; [`Error::NotOpen`]
    /// when the named parent never started in this run; [`Error::RunEnded`].
    pub fn subagent_start_with(&mut self, mut started: SubagentStartedEvent) -> Result<(), Error> {
        self.live()?;
        if self.subagents_used.contains(&started.subagent_run_id) {
            return Err(Error::AlreadyOpen {
                kind: "subagent invocation",
                id: started.subagent_run_id.into_string(),
            });
        }
        match &started.parent_subagent_run_id {
            Some(p) if !self.subagents_used.contains(p) => {
                return Err(Error::NotOpen {
                    kind: "subagent invocation",
                    id: p.to_string(),
                });
            }
            Some(_) => {}
            None => started.parent_subagent_run_id = self.owner(),
        }
        let id = started.subagent_run_id.clone();
        self.emit(started)?;
        self.subagents_used.push(id.clone());
        self.lanes.push(Lane::owned_by(Some(id)));
        Ok(())
    }

    /// Ends the active invocation successfully (`SUBAGENT_FINISHED`), closing what it left
    /// open.
    ///
    /// # Errors
    /// [`Error::NotOpen`] when no invocation is active; [`Error::RunEnded`].
    pub fn subagent_finish(&mut self, result: Option<Value>) -> Result<(), Error> {
        self.end_subagent(None, result)
    }

    /// Ends the active invocation as suspended on the interrupts it raised itself.
    ///
    /// # Errors
    /// As [`subagent_finish`](Self::subagent_finish).
    pub fn subagent_suspend(
        &mut self,
        interrupt_ids: impl IntoIterator<Item = impl Into<ag_ui_core::InterruptId>>,
    ) -> Result<(), Error> {
        self.end_subagent(Some(subagent_suspended(interrupt_ids)), None)
    }

    /// Reports the active invocation as failed (`SUBAGENT_ERROR`), closing what it left
    /// open; the run goes on.
    ///
    /// # Errors
    /// As [`subagent_finish`](Self::subagent_finish).
    pub fn subagent_fail(&mut self, message: impl Into<String>) -> Result<(), Error> {
        self.live()?;
        let id = self.close_subagent()?;
        self.emit(event::subagent_error(id, message))?;
        self.drop_subagent_lane();
        Ok(())
    }

    // ---------------------------------------------------------------- hand-built events

    /// Sends an event you built yourself, checked and tracked like the emitter's own: it is
    /// refused (nothing emitted) when it breaks a lifecycle rule of spec §9.1 given what the
    /// run has emitted so far ([`Error::Violation`]) or a rule of the emitter, and once
    /// emitted it counts for everything that follows: a `TEXT_MESSAGE_START` opens a message
    /// that [`text`](Self::text) appends to and [`finish`](Self::finish) closes, a
    /// `TOOL_CALL_START` makes a call that is pending until answered, a `STATE_SNAPSHOT`
    /// becomes the state [`state`](Self::state) diffs against, a `RUN_FINISHED` or
    /// `RUN_ERROR` ends the run, and so on.
    ///
    /// The event is sent as built (its attribution included: an event without
    /// `subagentRunId` belongs to the agent itself), stamped with the emitter's clock when it
    /// has no timestamp. Ending a subagent invocation closes what the invocation left open
    /// first, as [`subagent_finish`](Self::subagent_finish) does.
    ///
    /// ```
    /// use ag_ui_builders::{Error, RunEmitter, event};
    ///
    /// let mut run = RunEmitter::start("thread-1", "run-1");
    /// run.push_event(event::text_message_start("msg_1").with_name("planner"))?;
    /// run.text("Step one.")?; // appends to msg_1
    /// assert!(matches!(
    ///     run.push_event(event::text_message_content("msg_9", "?")),
    ///     Err(Error::Violation(_))
    /// ));
    /// run.finish()?; // closes msg_1
    /// # Ok::<(), ag_ui_builders::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Violation`] naming the rule broken; [`Error::ChunkEvent`] for a
    /// `*_CHUNK` event (consumers expand those; send the events it stands for);
    /// [`Error::AlreadyOpen`] for a `TOOL_CALL_START` whose id was used in this run;
    /// [`Error::NotOpen`] for an event attributed to a subagent invocation that is not
    /// active; [`Error::IncompleteArguments`] for a `RUN_FINISHED` handing out a call whose
    /// arguments are not complete JSON; [`Error::RunEnded`].
    pub fn push_event(&mut self, event: impl Into<Event>) -> Result<(), Error> {
        self.live()?;
        let mut event = event.into();
        let kind = event.event_type();
        if matches!(
            kind,
            EventType::TextMessageChunk
                | EventType::ToolCallChunk
                | EventType::ReasoningMessageChunk
        ) {
            return Err(Error::ChunkEvent(kind));
        }
        let owner = match &event {
            Event::SubagentStarted(_) => None,
            e => e.subagent_run_id().cloned(),
        };
        let Some(li) = self.lane_of(owner.as_ref()) else {
            return Err(Error::NotOpen {
                kind: "subagent invocation",
                id: owner.map(SubagentRunId::into_string).unwrap_or_default(),
            });
        };
        match &event {
            Event::ToolCallStart(e) if self.calls.iter().any(|c| c.id == e.tool_call_id) => {
                return Err(Error::AlreadyOpen {
                    kind: "tool call",
                    id: e.tool_call_id.to_string(),
                });
            }
            Event::RunFinished(e) => self.check_handed_out(&e.outcome())?,
            Event::StateDelta(e) => {
                self.patched_state(&e.delta)?;
            }
            _ => {}
        }
        if let Some(clock) = self.clock
            && event.timestamp().is_none()
        {
            event.set_timestamp(Some(clock()));
        }
        if matches!(kind, EventType::SubagentFinished | EventType::SubagentError) {
            // Check the end itself before closing what the invocation left open.
            let mut probe = self.verifier.clone();
            probe.push(&event).map_err(Error::Violation)?;
            self.close_lane_in(li)?;
        }
        self.verifier.push(&event).map_err(Error::Violation)?;
        self.track(li, owner, &event);
        self.out.push(event);
        Ok(())
    }

    // ---------------------------------------------------------------- usage and the end

    /// Counts a model call's usage (a [`ProviderUsage`] is mapped with AG-UI's accounting);
    /// the totals per (provider, model) go on `RUN_FINISHED` / `RUN_ERROR`.
    pub fn usage(&mut self, usage: impl Into<TokenUsage>) {
        self.usage.add(usage);
    }

    /// Finishes the run with the `success` outcome, naming the tool calls started in this
    /// run and never answered (`pendingToolCallIds`), with the usage counted.
    ///
    /// A call is only handed out when its arguments are complete JSON (or empty: a call
    /// without arguments). When one is not (the model's stream was cut off mid-call), the
    /// run is **not** finished and nothing is emitted: answer the call with
    /// [`tool_call_result`](Self::tool_call_result) or end the run with [`fail`](Self::fail)
    /// (`RUN_ERROR`).
    ///
    /// ```
    /// use ag_ui_builders::{Error, ModelChunk, RunEmitter};
    ///
    /// let mut run = RunEmitter::start("thread-1", "run-1");
    /// run.push(ModelChunk::ToolCallStart { id: "call_1".into(), name: "search".into() })?;
    /// run.push(ModelChunk::ToolCallDelta { id: "call_1".into(), delta: r#"{"q":"#.into() })?;
    /// assert!(matches!(run.finish(), Err(Error::IncompleteArguments { .. })));
    /// run.fail("the model's output was cut off")?;
    /// # Ok::<(), ag_ui_builders::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::IncompleteArguments`]; [`Error::SubagentActive`]; [`Error::RunEnded`].
    pub fn finish(&mut self) -> Result<(), Error> {
        let outcome = success_pending(self.unanswered.clone());
        self.finish_with(outcome, None)
    }

    /// As [`finish`](Self::finish), with a `result` value.
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    pub fn finish_with_result(&mut self, result: impl Into<Value>) -> Result<(), Error> {
        let outcome = success_pending(self.unanswered.clone());
        self.finish_with(outcome, Some(result.into()))
    }

    /// Pauses the run on `interrupts` (`RUN_FINISHED` with the `interrupt` outcome). Mint
    /// their ids with [`new_interrupt_id`](Self::new_interrupt_id).
    ///
    /// # Errors
    /// [`Error::NoInterrupts`] when `interrupts` is empty; [`Error::DuplicateInterrupt`] when
    /// two interrupts share an id; as [`finish`](Self::finish) (a tool-approval interrupt for a
    /// call whose arguments are not complete JSON is refused).
    pub fn interrupt(
        &mut self,
        interrupts: impl IntoIterator<Item = Interrupt>,
    ) -> Result<(), Error> {
        self.live()?;
        let outcome = interrupted(interrupts)?;
        self.finish_with(outcome, None)
    }

    /// Ends the run as cancelled (not an error, nothing to resume).
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    pub fn cancel(&mut self) -> Result<(), Error> {
        self.finish_with(crate::outcome::cancelled(), None)
    }

    /// Ends the run with `RUN_FINISHED` carrying `outcome` (and `result`), after closing
    /// what is open.
    ///
    /// # Errors
    /// [`Error::IncompleteArguments`] when the outcome hands out a call of this run
    /// (`pendingToolCallIds`, or an interrupt's `toolCallId`) whose arguments are not
    /// complete JSON; [`Error::DuplicateInterrupt`] when two interrupts share an id;
    /// [`Error::SubagentActive`] while a subagent invocation is active; [`Error::RunEnded`].
    pub fn finish_with(
        &mut self,
        outcome: RunFinishedOutcome,
        result: Option<Value>,
    ) -> Result<(), Error> {
        self.live()?;
        if let Some(active) = self.current_subagent() {
            return Err(Error::SubagentActive {
                id: active.to_string(),
            });
        }
        self.check_handed_out(&outcome)?;
        let top = self.top();
        self.close_lane_in(top)?;
        let mut ev =
            event::run_finished(self.thread_id.clone(), self.run_id.clone()).with_outcome(outcome);
        ev.result = result;
        if !self.usage.is_empty() {
            ev.usage = Some(self.usage.entries().to_vec());
        }
        self.emit(ev)?;
        Ok(())
    }

    /// Fails the run (`RUN_ERROR` with `message`, and the usage counted so far). The
    /// protocol accepts it with anything open; nothing can follow it.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn fail(&mut self, message: impl Into<String>) -> Result<(), Error> {
        self.fail_inner(message.into(), None)
    }

    /// As [`fail`](Self::fail), with a machine-readable `code`.
    ///
    /// # Errors
    /// [`Error::RunEnded`].
    pub fn fail_with_code(
        &mut self,
        message: impl Into<String>,
        code: impl Into<String>,
    ) -> Result<(), Error> {
        self.fail_inner(message.into(), Some(code.into()))
    }

    // ---------------------------------------------------------------- internals

    fn fail_inner(&mut self, message: String, code: Option<String>) -> Result<(), Error> {
        self.live()?;
        let mut ev = event::run_error(message);
        ev.code = code;
        if !self.usage.is_empty() {
            ev.usage = Some(self.usage.entries().to_vec());
        }
        self.emit(ev)?;
        Ok(())
    }

    fn live(&self) -> Result<(), Error> {
        if let Some(refused) = &self.refused {
            return Err(refused.clone());
        }
        // Where the run stands is the verifier's run lifecycle (`ag_ui_core::RunLifecycle`),
        // which every emitted event went through.
        match self.verifier.lifecycle().status() {
            RunStatus::Finished => Err(Error::RunEnded(EventType::RunFinished)),
            RunStatus::Errored => Err(Error::RunEnded(EventType::RunError)),
            _ => Ok(()),
        }
    }

    /// Emits one of the emitter's own events, checked by the verifier like a hand-built one
    /// (what the caller did, hand-built events and snapshots included, could make one
    /// break a rule: it is then refused, so the stream stays valid).
    fn emit(&mut self, event: impl Into<Event>) -> Result<(), Error> {
        let mut event = event.into();
        if let Some(clock) = self.clock {
            event.set_timestamp(Some(clock()));
        }
        self.verifier.push(&event).map_err(Error::Violation)?;
        self.out.push(event);
        Ok(())
    }

    /// Refuses an outcome that hands out (as pending, or for approval) a call of this run
    /// whose arguments are not complete JSON, or that names one interrupt id twice.
    fn check_handed_out(&self, outcome: &RunFinishedOutcome) -> Result<(), Error> {
        let mut handed_out: Vec<&ToolCallId> = Vec::new();
        match outcome {
            RunFinishedOutcome::Success(s) => {
                handed_out.extend(s.pending_tool_call_ids.iter().flatten());
            }
            RunFinishedOutcome::Interrupt(i) => {
                for (n, int) in i.interrupts.iter().enumerate() {
                    if i.interrupts[..n].iter().any(|o| o.id == int.id) {
                        return Err(Error::DuplicateInterrupt {
                            id: int.id.to_string(),
                        });
                    }
                    handed_out.extend(int.tool_call_id.as_ref());
                }
            }
            _ => {}
        }
        for id in handed_out {
            let arguments = self
                .calls
                .iter()
                .find(|c| c.id == *id)
                .and_then(|c| c.arguments.as_deref());
            if let Some(arguments) = arguments
                && !complete_arguments(arguments)
            {
                return Err(Error::IncompleteArguments {
                    tool_call_id: id.to_string(),
                    arguments: arguments.to_owned(),
                });
            }
        }
        Ok(())
    }

    fn top(&self) -> usize {
        // The parent lane is never removed, so there is always one.
        self.lanes.len() - 1
    }

    fn lane(&self) -> &Lane {
        &self.lanes[self.top()]
    }

    fn lane_mut(&mut self) -> &mut Lane {
        let top = self.top();
        &mut self.lanes[top]
    }

    fn owner(&self) -> Option<SubagentRunId> {
        self.lane().owner.clone()
    }

    /// The lane of `owner` (`None`: the agent itself), when that owner is active.
    fn lane_of(&self, owner: Option<&SubagentRunId>) -> Option<usize> {
        self.lanes.iter().position(|l| l.owner.as_ref() == owner)
    }

    /// A fresh message id not used in this run.
    fn mint_message_id(&mut self) -> Result<MessageId, Error> {
        let mut last = String::new();
        for _ in 0..MINT_ATTEMPTS {
            let id = self.ids.message_id();
            if !self.messages.contains_key(&id) {
                return Ok(id);
            }
            last = id.into_string();
        }
        Err(Error::AlreadyOpen {
            kind: "message",
            id: last,
        })
    }

    /// Opens text message `id` for the current owner (closing its open reasoning) and
    /// makes it the one text is appended to.
    fn open_text(&mut self, id: MessageId) -> Result<(), Error> {
        let top = self.top();
        self.close_reasoning_in(top)?;
        let owner = self.owner();
        self.emit(event::text_message_start(id.clone()).owned_by(owner.as_ref()))?;
        self.messages.insert(id.clone(), owner);
        let lane = self.lane_mut();
        lane.texts.push(id.clone());
        lane.text = Some(id.clone());
        lane.turn = Some(id);
        Ok(())
    }

    /// The owner of open call `id`.
    fn call_owner(&self, id: &ToolCallId) -> Result<Option<SubagentRunId>, Error> {
        self.lanes
            .iter()
            .find(|l| l.calls.contains(id))
            .map(|l| l.owner.clone())
            .ok_or_else(|| Error::NotOpen {
                kind: "tool call",
                id: id.to_string(),
            })
    }

    fn record_arguments(&mut self, id: &ToolCallId, delta: &str) {
        if let Some(args) = self
            .calls
            .iter_mut()
            .find(|c| c.id == *id)
            .and_then(|c| c.arguments.as_mut())
        {
            args.push_str(delta);
        }
    }

    fn end_call(&mut self, id: &ToolCallId, owner: Option<&SubagentRunId>) -> Result<(), Error> {
        self.emit(event::tool_call_end(id.clone()).owned_by(owner))?;
        for lane in &mut self.lanes {
            lane.calls.retain(|c| c != id);
        }
        Ok(())
    }

    /// Closes text message `id` of lane `li`.
    fn end_text_in(&mut self, li: usize, id: &MessageId) -> Result<(), Error> {
        let owner = self.lanes[li].owner.clone();
        self.emit(event::text_message_end(id.clone()).owned_by(owner.as_ref()))?;
        let lane = &mut self.lanes[li];
        lane.texts.retain(|t| t != id);
        if lane.text.as_ref() == Some(id) {
            lane.text = None;
        }
        Ok(())
    }

    /// Closes the text message of lane `li` that text is appended to.
    fn close_text_in(&mut self, li: usize) -> Result<(), Error> {
        match self.lanes[li].text.clone() {
            Some(id) => self.end_text_in(li, &id),
            None => Ok(()),
        }
    }

    /// Closes every open text message of lane `li`.
    fn close_texts_in(&mut self, li: usize) -> Result<(), Error> {
        while let Some(id) = self.lanes[li].texts.first().cloned() {
            self.end_text_in(li, &id)?;
        }
        Ok(())
    }

    fn close_reasoning_in(&mut self, li: usize) -> Result<(), Error> {
        let owner = self.lanes[li].owner.clone();
        while let Some(id) = self.lanes[li].reasoning_messages.first().cloned() {
            self.emit(event::reasoning_message_end(id).owned_by(owner.as_ref()))?;
            self.lanes[li].reasoning_messages.remove(0);
        }
        while let Some(id) = self.lanes[li].reasoning_spans.first().cloned() {
            self.emit(event::reasoning_end(id).owned_by(owner.as_ref()))?;
            self.lanes[li].reasoning_spans.remove(0);
        }
        Ok(())
    }

    fn close_calls_in(&mut self, li: usize) -> Result<(), Error> {
        let owner = self.lanes[li].owner.clone();
        while let Some(id) = self.lanes[li].calls.first().cloned() {
            self.emit(event::tool_call_end(id).owned_by(owner.as_ref()))?;
            self.lanes[li].calls.remove(0);
        }
        Ok(())
    }

    fn close_turn_in(&mut self, li: usize) -> Result<(), Error> {
        self.close_reasoning_in(li)?;
        self.close_texts_in(li)?;
        self.close_calls_in(li)?;
        self.lanes[li].turn = None;
        Ok(())
    }

    /// Closes everything lane `li` has open, steps last (innermost first).
    fn close_lane_in(&mut self, li: usize) -> Result<(), Error> {
        self.close_turn_in(li)?;
        let owner = self.lanes[li].owner.clone();
        while let Some(step) = self.lanes[li].steps.last().cloned() {
            self.emit(event::step_finished(step).owned_by(owner.as_ref()))?;
            self.lanes[li].steps.pop();
        }
        Ok(())
    }

    /// Closes what the active invocation has open and returns its id (its lane is removed
    /// by [`Self::drop_subagent_lane`] once its end is emitted).
    fn close_subagent(&mut self) -> Result<SubagentRunId, Error> {
        let Some(id) = self.owner() else {
            return Err(Error::NotOpen {
                kind: "subagent invocation",
                id: String::new(),
            });
        };
        let top = self.top();
        self.close_lane_in(top)?;
        Ok(id)
    }

    fn drop_subagent_lane(&mut self) {
        if self.lanes.len() > 1 {
            self.lanes.pop();
        }
    }

    fn end_subagent(
        &mut self,
        outcome: Option<SubagentFinishedOutcome>,
        result: Option<Value>,
    ) -> Result<(), Error> {
        self.live()?;
        let id = self.close_subagent()?;
        let mut ev = event::subagent_finished(id);
        ev.outcome = outcome;
        ev.result = result.filter(|r| !r.is_null());
        self.emit(ev)?;
        self.drop_subagent_lane();
        Ok(())
    }

    fn track_activity(
        &mut self,
        id: MessageId,
        activity_type: String,
        owner: Option<SubagentRunId>,
        content: Option<Map<String, Value>>,
    ) {
        match self.activities.iter_mut().find(|a| a.id == id) {
            Some(a) => {
                a.activity_type = activity_type;
                a.owner = owner;
                a.content = content;
            }
            None => self.activities.push(Activity {
                id,
                activity_type,
                owner,
                content,
            }),
        }
    }

    /// Updates the bookkeeping for a hand-built event of lane `li` (owner `owner`) that
    /// the verifier accepted.
    fn track(&mut self, li: usize, owner: Option<SubagentRunId>, event: &Event) {
        match event {
            Event::TextMessageStart(e) => {
                self.messages.insert(e.message_id.clone(), owner);
                let lane = &mut self.lanes[li];
                lane.texts.push(e.message_id.clone());
                lane.text = Some(e.message_id.clone());
                lane.turn = Some(e.message_id.clone());
            }
            Event::TextMessageEnd(e) => {
                for lane in &mut self.lanes {
                    lane.texts.retain(|t| *t != e.message_id);
                    if lane.text.as_ref() == Some(&e.message_id) {
                        lane.text = None;
                    }
                }
            }
            Event::ToolCallStart(e) => {
                let lane = &mut self.lanes[li];
                if let Some(parent) = &e.parent_message_id {
                    lane.turn = Some(parent.clone());
                }
                lane.calls.push(e.tool_call_id.clone());
                self.calls.push(Call {
                    id: e.tool_call_id.clone(),
                    owner,
                    arguments: Some(String::new()),
                });
                self.unanswered.push(e.tool_call_id.clone());
            }
            Event::ToolCallArgs(e) => self.record_arguments(&e.tool_call_id, &e.delta),
            Event::ToolCallEnd(e) => {
                for lane in &mut self.lanes {
                    lane.calls.retain(|c| *c != e.tool_call_id);
                }
            }
            Event::ToolCallResult(e) => {
                self.messages.insert(e.message_id.clone(), owner.clone());
                if !self.calls.iter().any(|c| c.id == e.tool_call_id) {
                    self.calls.push(Call {
                        id: e.tool_call_id.clone(),
                        owner,
                        arguments: None,
                    });
                }
                self.unanswered.retain(|c| *c != e.tool_call_id);
            }
            Event::ReasoningStart(e) => {
                self.messages
                    .entry(e.message_id.clone())
                    .or_insert_with(|| owner.clone());
                self.lanes[li].reasoning_spans.push(e.message_id.clone());
            }
            Event::ReasoningEnd(e) => {
                for lane in &mut self.lanes {
                    lane.reasoning_spans.retain(|r| *r != e.message_id);
                }
            }
            Event::ReasoningMessageStart(e) => {
                self.messages.insert(e.message_id.clone(), owner);
                let lane = &mut self.lanes[li];
                lane.reasoning_messages.push(e.message_id.clone());
                lane.last_reasoning = Some(e.message_id.clone());
            }
            Event::ReasoningMessageEnd(e) => {
                for lane in &mut self.lanes {
                    lane.reasoning_messages.retain(|r| *r != e.message_id);
                }
            }
            Event::StepStarted(e) => self.lanes[li].steps.push(e.step_name.clone()),
            Event::StepFinished(e) => {
                let steps = &mut self.lanes[li].steps;
                if let Some(pos) = steps.iter().rposition(|s| *s == e.step_name) {
                    steps.remove(pos);
                }
            }
            Event::StateSnapshot(e) => self.state = Some(e.snapshot.clone()),
            Event::StateDelta(e) => {
                // Checked by `push_event` before: it applies to a known state.
                self.state = self
                    .state
                    .take()
                    .and_then(|mut state| e.delta.apply(&mut state).is_ok().then_some(state));
            }
            Event::ActivitySnapshot(e) => {
                self.messages
                    .entry(e.message_id.clone())
                    .or_insert_with(|| owner.clone());
                let known = self.activities.iter().any(|a| a.id == e.message_id);
                if !known || e.replace != Some(false) {
                    self.track_activity(
                        e.message_id.clone(),
                        e.activity_type.clone(),
                        owner,
                        Some(e.content.clone()),
                    );
                }
            }
            Event::ActivityDelta(e) => {
                let keeper = self.activities.iter().find(|a| a.id == e.message_id);
                let owner = keeper.map_or(owner, |a| a.owner.clone());
                let (id, activity_type) = (e.message_id.clone(), e.activity_type.clone());
                self.track_activity(id, activity_type, owner, None);
            }
            Event::SubagentStarted(e) => {
                self.subagents_used.push(e.subagent_run_id.clone());
                self.lanes
                    .push(Lane::owned_by(Some(e.subagent_run_id.clone())));
            }
            // The parent lane (index 0) is never removed.
            Event::SubagentFinished(_) | Event::SubagentError(_) if li > 0 => {
                self.lanes.remove(li);
            }
            _ => {}
        }
    }
}
