//! The lifecycle state machine of spec §9.1.

use crate::stream::delta::DeltaKind;
use std::collections::{BTreeMap, BTreeSet};

use crate::hash::{HashMap, HashSet};

use crate::codec::shown::{Shown, listed};
use crate::model::event::{Event, EventType, ReasoningEncryptedValueSubtype};
use crate::model::id::SubagentRunId;
use crate::model::message::Message;
use crate::model::outcome::RunFinishedOutcome;
use crate::stream::lifecycle::RunLifecycle;
use crate::stream::rule::{LISTED_IDS, Rule, Violation};

mod query;

/// Who produced an entity: `None` is the parent agent, `Some` a subagent invocation.
type Agent = Option<String>;

fn agent_of(tag: Option<&SubagentRunId>) -> Agent {
    tag.map(|t| t.as_str().to_owned())
}

fn describe_agent(agent: Option<&str>) -> String {
    match agent {
        Some(a) => format!("subagent '{a}'"),
        None => "the parent agent".to_owned(),
    }
}

/// What put an owner on record (it decides which rule a disagreement breaks).
#[derive(Debug, Clone)]
enum Origin {
    /// The entity's own opener (`TEXT_MESSAGE_START`, `TOOL_CALL_START`, …).
    Opener(EventType),
    /// An untagged `TOOL_CALL_START` inherited the owner of this parent message (O3).
    ParentMessage(String),
    /// A `TOOL_CALL_RESULT` minted the tool message (O4).
    ToolCallResult,
    /// An `ACTIVITY_SNAPSHOT` created or replaced the activity (O4).
    ActivitySnapshot,
    /// A `MESSAGES_SNAPSHOT` restated the message (O4).
    MessagesSnapshot,
    /// The `RUN_STARTED.input` echo carried the message (O4).
    RunInput,
}

impl Origin {
    fn describe(&self) -> String {
        match self {
            Origin::Opener(t) => format!("its {t}"),
            Origin::ParentMessage(m) => format!("its parent message '{m}'"),
            Origin::ToolCallResult => "the TOOL_CALL_RESULT that minted it".to_owned(),
            Origin::ActivitySnapshot => "its ACTIVITY_SNAPSHOT".to_owned(),
            Origin::MessagesSnapshot => "a MESSAGES_SNAPSHOT".to_owned(),
            Origin::RunInput => "the RUN_STARTED input".to_owned(),
        }
    }
}

#[derive(Debug, Clone)]
struct Owner {
    agent: Agent,
    origin: Origin,
}

/// The four owner buckets of O1 (ids are unique per entity kind only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Text messages and the tool messages `TOOL_CALL_RESULT` mints.
    Message,
    ToolCall,
    Activity,
    /// Reasoning spans and reasoning messages: one bucket for both.
    Reasoning,
}

impl Kind {
    fn noun(self) -> &'static str {
        match self {
            Kind::Message => "message",
            Kind::ToolCall => "tool call",
            Kind::Activity => "activity",
            Kind::Reasoning => "reasoning entity",
        }
    }
}

/// Everything tracked for one run (reset by the `RUN_STARTED` that begins the next).
#[derive(Debug, Default, Clone)]
struct RunState {
    open_text: BTreeSet<String>,
    open_tool_calls: BTreeSet<String>,
    open_spans: BTreeSet<String>,
    open_reasoning: BTreeSet<String>,
    /// Open step names, by owner.
    steps: BTreeMap<Agent, BTreeSet<String>>,
    active_subagents: BTreeSet<String>,
    closed_subagents: HashSet<String>,
    message_owners: HashMap<String, Owner>,
    tool_call_owners: HashMap<String, Owner>,
    activity_owners: HashMap<String, Owner>,
    reasoning_owners: HashMap<String, Owner>,
    /// When each entity was opened (for [`Verifier::open`]'s order).
    order: crate::stream::verify::open::OpenOrder,
}

impl RunState {
    fn owners(&self, kind: Kind) -> &HashMap<String, Owner> {
        match kind {
            Kind::Message => &self.message_owners,
            Kind::ToolCall => &self.tool_call_owners,
            Kind::Activity => &self.activity_owners,
            Kind::Reasoning => &self.reasoning_owners,
        }
    }

    fn owners_mut(&mut self, kind: Kind) -> &mut HashMap<String, Owner> {
        match kind {
            Kind::Message => &mut self.message_owners,
            Kind::ToolCall => &mut self.tool_call_owners,
            Kind::Activity => &mut self.activity_owners,
            Kind::Reasoning => &mut self.reasoning_owners,
        }
    }

    /// Seeds owners from replayed messages (O4): authoritatively from a snapshot,
    /// only for unknown ids from the `RUN_STARTED` input echo.
    fn seed(&mut self, messages: &[Message], origin: &Origin, authoritative: bool) {
        for message in messages {
            let kind = match message {
                Message::Reasoning(_) => Kind::Reasoning,
                Message::Activity(_) => Kind::Activity,
                _ => Kind::Message,
            };
            let agent = agent_of(message.subagent_run_id());
            let id = message.id().as_str();
            let owners = self.owners_mut(kind);
            if authoritative || !owners.contains_key(id) {
                owners.insert(
                    id.to_owned(),
                    Owner {
                        agent: agent.clone(),
                        origin: origin.clone(),
                    },
                );
            }
            if let Message::Assistant(a) = message {
                for call in a.tool_calls.iter().flatten() {
                    let id = call.id.as_str();
                    if authoritative || !self.tool_call_owners.contains_key(id) {
                        self.tool_call_owners.insert(
                            id.to_owned(),
                            Owner {
                                agent: agent.clone(),
                                origin: origin.clone(),
                            },
                        );
                    }
                }
            }
        }
    }
}

/// Checks a stream of events against the lifecycle rules of spec §9.1, one event at a time.
///
/// Feed it events in arrival order with [`push`](Self::push); the first event that breaks a
/// rule comes back as a [`Violation`] naming the rule, the event's index and the ids
/// concerned, and is not applied. Several runs may follow one another in one stream; all
/// tracking resets when a new run starts.
///
/// The verifier works on events as a client's reducer sees them: chunk events expanded
/// ([`crate::ChunkExpander`]) and unknown event types already dropped
/// ([`crate::EventDecoder`]). It does not expand chunks itself; a chunk event given to it is
/// only checked for its place in the run lifecycle (`L1`, `L3`, `L4`). [`crate::stream::verify_events`]
/// and [`crate::EventPipeline`] run the whole pipeline.
///
/// Rule `O6` (`subagentRunId: null`) and the string-typed fields required by `A1`–`A3`
/// cannot be broken by a typed [`Event`]: the reader rejects such documents, and
/// [`crate::EventPipeline`] reports those rejections under the rule.
///
/// ```
/// use ag_ui_core::{Event, Rule, RunFinishedEvent, RunStartedEvent, TextMessageStartEvent, Verifier};
///
/// let mut verifier = Verifier::new();
/// verifier.push(&RunStartedEvent::new("t1", "r1").into())?;
/// verifier.push(&TextMessageStartEvent::new("m1").into())?;
/// let err = verifier.push(&RunFinishedEvent::new("t1", "r1").into()).unwrap_err();
/// assert_eq!(err.rule, Rule::L5);
/// assert_eq!((err.index, err.ids.as_slice()), (2, ["m1".to_owned()].as_slice()));
/// # Ok::<(), ag_ui_core::Violation>(())
/// ```
#[derive(Debug, Clone)]
pub struct Verifier {
    lifecycle: RunLifecycle,
    run: RunState,
    index: usize,
    /// The stream's thread: the first `RUN_STARTED`'s (`L7`).
    thread_id: Option<String>,
    /// The `runId` of the latest `RUN_STARTED` (`L6`).
    run_id: Option<String>,
}

impl Default for Verifier {
    fn default() -> Self {
        Self::new()
    }
}

impl Verifier {
    /// A verifier for a new stream.
    #[must_use]
    pub fn new() -> Self {
        Verifier {
            lifecycle: RunLifecycle::new(),
            run: RunState::default(),
            index: 0,
            thread_id: None,
            run_id: None,
        }
    }

    /// How many events have been pushed (the index the next one gets).
    #[must_use]
    pub fn events_seen(&self) -> usize {
        self.index
    }

    /// Whether a run has started and not yet finished or errored.
    #[must_use]
    pub fn is_run_active(&self) -> bool {
        self.lifecycle.is_running()
    }

    /// The run lifecycle of the events accepted so far (a refused event is not counted).
    #[must_use]
    pub fn lifecycle(&self) -> RunLifecycle {
        self.lifecycle
    }

    /// Checks the next event of the stream and applies it.
    ///
    /// # Errors
    /// The [`Violation`] of the first rule the event breaks; the event is then not applied
    /// (the verifier's state is what it was before the call).
    pub fn push(&mut self, event: &Event) -> Result<(), Violation> {
        let index = self.index;
        self.index += 1;
        Check {
            v: self,
            index,
            event_type: event.event_type(),
        }
        .run(event)?;
        self.note_opened(event);
        Ok(())
    }

    /// [`Verifier::push`] for a streamed delta without a `subagentRunId`, given by its kind
    /// and the id of what it continues.
    pub(crate) fn push_delta(&mut self, kind: DeltaKind, id: &str) -> Result<(), Violation> {
        let index = self.index;
        self.index += 1;
        let event_type = kind.event_type();
        self.lifecycle.check_at(event_type, index)?;
        let mut check = Check {
            v: self,
            index,
            event_type,
        };
        match kind {
            DeltaKind::Text => check.continue_text(id, None, false),
            DeltaKind::ToolCallArgs => check.continue_tool_call(id, None, false),
            DeltaKind::Reasoning => check.continue_reasoning(id, None, false, false),
        }
    }

    /// Ends the stream.
    ///
    /// AG-UI 1.0 puts no requirement on how a stream ends (a transport may close after any
    /// event; the reference client checks nothing here), so this reports nothing; it resets
    /// the verifier so that it can check another stream. Call it anyway: a future protocol
    /// version may add end-of-stream rules, and [`is_run_active`](Self::is_run_active)
    /// (queried before the call) tells whether the last run was left open.
    ///
    /// # Errors
    /// None under AG-UI 1.0.
    pub fn finish(&mut self) -> Result<(), Violation> {
        *self = Verifier::new();
        Ok(())
    }
}

/// One `push` in progress.
struct Check<'a> {
    v: &'a mut Verifier,
    index: usize,
    event_type: EventType,
}

impl Check<'_> {
    fn fail(&self, rule: Rule, ids: Vec<String>, message: String) -> Result<(), Violation> {
        Err(Violation::new(rule, self.index, ids, message))
    }

    fn run(self, event: &Event) -> Result<(), Violation> {
        self.v.lifecycle.check_at(self.event_type, self.index)?;
        self.apply(event)
    }

    #[expect(clippy::too_many_lines, reason = "one arm per event type")]
    fn apply(mut self, event: &Event) -> Result<(), Violation> {
        let tag = agent_of(event.subagent_run_id());
        match event {
            Event::RunStarted(e) => {
                self.check_thread(e.thread_id.as_str())?;
                if self.v.thread_id.is_none() {
                    self.v.thread_id = Some(e.thread_id.as_str().to_owned());
                }
                self.v.run_id = Some(e.run_id.as_str().to_owned());
                if self.v.lifecycle.has_ended() {
                    self.v.run = RunState::default();
                }
                self.v.lifecycle.advance(EventType::RunStarted);
                if let Some(input) = &e.input {
                    self.v.run.seed(&input.messages, &Origin::RunInput, false);
                }
                Ok(())
            }
            Event::RunFinished(e) => {
                self.check_thread(e.thread_id.as_str())?;
                let run_id = e.run_id.as_str();
                if let Some(started) = &self.v.run_id
                    && started != run_id
                {
                    return self.fail(
                        Rule::L6,
                        vec![run_id.to_owned(), started.clone()],
                        format!(
                            "RUN_FINISHED for run '{run_id}' closes run '{started}': the two boundary events of a run must agree on their runId"
                        ),
                    );
                }
                if let Some(RunFinishedOutcome::Interrupt(o)) = &e.outcome {
                    let mut seen = HashSet::default();
                    if let Some(dup) = o.interrupts.iter().find(|i| !seen.insert(i.id.as_str())) {
                        let id = dup.id.as_str();
                        return self.fail(
                            Rule::I1,
                            vec![id.to_owned()],
                            format!(
                                "RUN_FINISHED has two interrupts carrying the id '{id}': each interrupt of a run needs its own id"
                            ),
                        );
                    }
                }
                self.check_nothing_open()?;
                self.v.lifecycle.advance(EventType::RunFinished);
                Ok(())
            }
            Event::RunError(_) => {
                self.v.lifecycle.advance(EventType::RunError);
                Ok(())
            }

            Event::TextMessageStart(e) => {
                let id = e.message_id.as_str();
                if self.v.run.open_text.contains(id) {
                    return self.fail(
                        Rule::M1,
                        vec![id.to_owned()],
                        format!(
                            "TEXT_MESSAGE_START for text message '{id}', which is already open: close it with TEXT_MESSAGE_END first"
                        ),
                    );
                }
                self.check_owner(Kind::Message, id, tag.as_deref())?;
                self.v.run.open_text.insert(id.to_owned());
                self.record_opener(Kind::Message, id, tag);
                Ok(())
            }
            Event::TextMessageContent(e) => self.continue_text(e.message_id.as_str(), tag, false),
            Event::TextMessageEnd(e) => self.continue_text(e.message_id.as_str(), tag, true),

            Event::ToolCallStart(e) => {
                let id = e.tool_call_id.as_str();
                if self.v.run.open_tool_calls.contains(id) {
                    return self.fail(
                        Rule::T1,
                        vec![id.to_owned()],
                        format!(
                            "TOOL_CALL_START for tool call '{id}', which is already open: close it with TOOL_CALL_END first"
                        ),
                    );
                }
                let mut inherited: Option<(String, Agent)> = None;
                if let Some(parent) = &e.parent_message_id {
                    let parent = parent.as_str();
                    if let Some(owner) = self.v.run.message_owners.get(parent) {
                        if let Some(t) = &tag
                            && owner.agent.as_deref() != Some(t.as_str())
                        {
                            return self.fail(
                                Rule::O3,
                                ids_of(id, tag.as_deref(), owner.agent.as_deref()),
                                format!(
                                    "TOOL_CALL_START for tool call '{id}' carries subagentRunId '{t}', but its parent message '{parent}' belongs to {}: a tool call belongs to the message that holds it",
                                    describe_agent(owner.agent.as_deref())
                                ),
                            );
                        }
                        inherited = Some((parent.to_owned(), owner.agent.clone()));
                    }
                }
                let existing = self.v.run.tool_call_owners.get(id).cloned();
                if let Some(existing) = &existing {
                    self.check_owner(Kind::ToolCall, id, tag.as_deref())?;
                    if tag.is_none()
                        && let Some((parent, agent)) = &inherited
                        && *agent != existing.agent
                    {
                        return self.fail(
                            Rule::O3,
                            ids_of(id, agent.as_deref(), existing.agent.as_deref()),
                            format!(
                                "TOOL_CALL_START re-opens tool call '{id}' inside parent message '{parent}', which belongs to {}, but the call belongs to {} (recorded by {}): a tool call belongs to the message that holds it",
                                describe_agent(agent.as_deref()),
                                describe_agent(existing.agent.as_deref()),
                                existing.origin.describe()
                            ),
                        );
                    }
                }
                self.v.run.open_tool_calls.insert(id.to_owned());
                if existing.is_none() {
                    let owner = match (tag, inherited) {
                        (Some(t), _) => Owner {
                            agent: Some(t),
                            origin: Origin::Opener(EventType::ToolCallStart),
                        },
                        (None, Some((parent, agent))) => Owner {
                            agent,
                            origin: Origin::ParentMessage(parent),
                        },
                        (None, None) => Owner {
                            agent: None,
                            origin: Origin::Opener(EventType::ToolCallStart),
                        },
                    };
                    self.v.run.tool_call_owners.insert(id.to_owned(), owner);
                }
                Ok(())
            }
            Event::ToolCallArgs(e) => self.continue_tool_call(e.tool_call_id.as_str(), tag, false),
            Event::ToolCallEnd(e) => self.continue_tool_call(e.tool_call_id.as_str(), tag, true),
            Event::ToolCallResult(e) => {
                let id = e.message_id.as_str();
                if self.v.run.open_text.contains(id) {
                    return self.fail(
                        Rule::T3,
                        vec![id.to_owned(), e.tool_call_id.as_str().to_owned()],
                        format!(
                            "TOOL_CALL_RESULT for tool call '{}' mints tool message '{id}', but a text message with that id is still streaming: a result needs a message id of its own",
                            e.tool_call_id
                        ),
                    );
                }
                self.v.run.message_owners.insert(
                    id.to_owned(),
                    Owner {
                        agent: tag,
                        origin: Origin::ToolCallResult,
                    },
                );
                Ok(())
            }

            Event::StepStarted(e) => {
                let name = e.step_name.as_str();
                if self
                    .v
                    .run
                    .steps
                    .get(&tag)
                    .is_some_and(|open| open.contains(name))
                {
                    return self.fail(
                        Rule::S1,
                        step_ids(name, tag.as_deref()),
                        format!(
                            "STEP_STARTED for step '{name}', which {} already has open: finish it with STEP_FINISHED first",
                            describe_agent(tag.as_deref())
                        ),
                    );
                }
                self.v
                    .run
                    .steps
                    .entry(tag)
                    .or_default()
                    .insert(name.to_owned());
                Ok(())
            }
            Event::StepFinished(e) => {
                let name = e.step_name.as_str();
                let removed = self
                    .v
                    .run
                    .steps
                    .get_mut(&tag)
                    .is_some_and(|open| open.remove(name));
                if removed {
                    return Ok(());
                }
                let other = self
                    .v
                    .run
                    .steps
                    .iter()
                    .find(|(owner, names)| **owner != tag && names.contains(name))
                    .map(|(owner, _)| owner.clone());
                match other {
                    Some(other) => {
                        let mut ids = step_ids(name, tag.as_deref());
                        ids.extend(other.clone());
                        self.fail(
                            Rule::S2,
                            ids,
                            format!(
                                "STEP_FINISHED for step '{name}' attributed to {}, but that step is open under {}: a step is finished by whoever started it",
                                describe_agent(tag.as_deref()),
                                describe_agent(other.as_deref())
                            ),
                        )
                    }
                    None => self.fail(
                        Rule::S2,
                        step_ids(name, tag.as_deref()),
                        format!(
                            "STEP_FINISHED for step '{name}', which {} has not started (or already finished)",
                            describe_agent(tag.as_deref())
                        ),
                    ),
                }
            }

            Event::ReasoningStart(e) => self.open_reasoning(e.message_id.as_str(), tag, true),
            Event::ReasoningMessageStart(e) => {
                self.open_reasoning(e.message_id.as_str(), tag, false)
            }
            Event::ReasoningMessageContent(e) => {
                self.continue_reasoning(e.message_id.as_str(), tag, false, false)
            }
            Event::ReasoningMessageEnd(e) => {
                self.continue_reasoning(e.message_id.as_str(), tag, false, true)
            }
            Event::ReasoningEnd(e) => {
                self.continue_reasoning(e.message_id.as_str(), tag, true, true)
            }
            Event::ReasoningEncryptedValue(e) => {
                let id = e.entity_id.as_str();
                let (owner, open, noun) = match e.subtype {
                    ReasoningEncryptedValueSubtype::ToolCall => (
                        self.v.run.tool_call_owners.get(id),
                        self.v.run.open_tool_calls.contains(id),
                        "tool call",
                    ),
                    ReasoningEncryptedValueSubtype::Message => {
                        match self.v.run.message_owners.get(id) {
                            Some(o) => (Some(o), self.v.run.open_text.contains(id), "message"),
                            None => (
                                self.v.run.reasoning_owners.get(id),
                                self.v.run.open_reasoning.contains(id)
                                    || self.v.run.open_spans.contains(id),
                                "reasoning message",
                            ),
                        }
                    }
                };
                if let (Some(t), Some(owner)) = (&tag, owner)
                    && owner.agent.as_deref() != Some(t.as_str())
                {
                    let closed = !open && matches!(owner.origin, Origin::Opener(_));
                    let rule = if closed { Rule::Z3 } else { Rule::O5 };
                    let when = if closed {
                        " (the entity has closed, but its owner stays on record for the run)"
                    } else {
                        ""
                    };
                    return self.fail(
                        rule,
                        ids_of(id, Some(t), owner.agent.as_deref()),
                        format!(
                            "REASONING_ENCRYPTED_VALUE for {noun} '{id}' carries subagentRunId '{t}', but the {noun} belongs to {} (recorded by {}){when}",
                            describe_agent(owner.agent.as_deref()),
                            owner.origin.describe()
                        ),
                    );
                }
                Ok(())
            }

            Event::ActivitySnapshot(e) => {
                let id = e.message_id.as_str();
                if !self.v.run.activity_owners.contains_key(id) || e.replace() {
                    self.v.run.activity_owners.insert(
                        id.to_owned(),
                        Owner {
                            agent: tag,
                            origin: Origin::ActivitySnapshot,
                        },
                    );
                }
                Ok(())
            }
            Event::ActivityDelta(e) => {
                self.check_owner(Kind::Activity, e.message_id.as_str(), tag.as_deref())
            }
            Event::MessagesSnapshot(e) => {
                self.v
                    .run
                    .seed(&e.messages, &Origin::MessagesSnapshot, true);
                Ok(())
            }

            Event::SubagentStarted(e) => {
                let id = e.subagent_run_id.as_str();
                if self.v.run.active_subagents.contains(id) {
                    return self.fail(
                        Rule::A1,
                        vec![id.to_owned()],
                        format!(
                            "SUBAGENT_STARTED for subagent '{id}', which is already active: end it with SUBAGENT_FINISHED or SUBAGENT_ERROR first"
                        ),
                    );
                }
                if self.v.run.closed_subagents.contains(id) {
                    return self.fail(
                        Rule::A1,
                        vec![id.to_owned()],
                        format!(
                            "SUBAGENT_STARTED for subagent '{id}', which already ended in this run: a subagentRunId names one invocation and cannot be reused"
                        ),
                    );
                }
                if let Some(parent) = &e.parent_subagent_run_id {
                    let parent = parent.as_str();
                    if !self.v.run.active_subagents.contains(parent)
                        && !self.v.run.closed_subagents.contains(parent)
                    {
                        return self.fail(
                            Rule::A1,
                            vec![id.to_owned(), parent.to_owned()],
                            format!(
                                "SUBAGENT_STARTED for subagent '{id}' names parentSubagentRunId '{parent}', which has not started in this run"
                            ),
                        );
                    }
                }
                self.v.run.active_subagents.insert(id.to_owned());
                Ok(())
            }
            Event::SubagentFinished(_) | Event::SubagentError(_) => {
                let id = tag.unwrap_or_default();
                if !self.v.run.active_subagents.remove(&id) {
                    let t = self.event_type;
                    let why = if self.v.run.closed_subagents.contains(&id) {
                        "it already ended in this run"
                    } else {
                        "no SUBAGENT_STARTED opened it in this run"
                    };
                    return self.fail(
                        Rule::A2,
                        vec![id.clone()],
                        format!("{t} for subagent '{id}', which is not active: {why}"),
                    );
                }
                self.v.run.closed_subagents.insert(id);
                Ok(())
            }

            // Not checked by the reference verifier (spec §9.1): state, RAW, CUSTOM. Chunk
            // events are expanded before verification; given here they only pass the
            // lifecycle checks above.
            Event::StateSnapshot(_)
            | Event::StateDelta(_)
            | Event::Raw(_)
            | Event::Custom(_)
            | Event::TextMessageChunk(_)
            | Event::ToolCallChunk(_)
            | Event::ReasoningMessageChunk(_) => Ok(()),
        }
    }

    fn continue_text(&mut self, id: &str, tag: Agent, close: bool) -> Result<(), Violation> {
        let t = self.event_type;
        if !self.v.run.open_text.contains(id) {
            if self.v.run.open_tool_calls.contains(id) {
                return self.fail(
                    Rule::T2,
                    vec![id.to_owned()],
                    format!(
                        "{t} for text message '{id}', which is not open; '{id}' is an open tool call: text messages and tool calls are matched by id within their own kind"
                    ),
                );
            }
            return self.fail(
                Rule::M2,
                vec![id.to_owned()],
                format!(
                    "{t} for text message '{id}', which is not open: start it with TEXT_MESSAGE_START first"
                ),
            );
        }
        self.check_owner(Kind::Message, id, tag.as_deref())?;
        if close {
            self.v.run.open_text.remove(id);
        }
        Ok(())
    }

    fn continue_tool_call(&mut self, id: &str, tag: Agent, close: bool) -> Result<(), Violation> {
        let t = self.event_type;
        if !self.v.run.open_tool_calls.contains(id) {
            if self.v.run.open_text.contains(id) {
                return self.fail(
                    Rule::T2,
                    vec![id.to_owned()],
                    format!(
                        "{t} for tool call '{id}', which is not open; '{id}' is an open text message: text messages and tool calls are matched by id within their own kind"
                    ),
                );
            }
            return self.fail(
                Rule::T1,
                vec![id.to_owned()],
                format!(
                    "{t} for tool call '{id}', which is not open: start it with TOOL_CALL_START first"
                ),
            );
        }
        self.check_owner(Kind::ToolCall, id, tag.as_deref())?;
        if close {
            self.v.run.open_tool_calls.remove(id);
        }
        Ok(())
    }

    fn open_reasoning(&mut self, id: &str, tag: Agent, span: bool) -> Result<(), Violation> {
        let t = self.event_type;
        let (open, noun, closer) = if span {
            (&self.v.run.open_spans, "reasoning span", "REASONING_END")
        } else {
            (
                &self.v.run.open_reasoning,
                "reasoning message",
                "REASONING_MESSAGE_END",
            )
        };
        if open.contains(id) {
            return self.fail(
                Rule::Z1,
                vec![id.to_owned()],
                format!(
                    "{t} for {noun} '{id}', which is already open: close it with {closer} first"
                ),
            );
        }
        self.check_owner(Kind::Reasoning, id, tag.as_deref())?;
        if span {
            self.v.run.open_spans.insert(id.to_owned());
        } else {
            self.v.run.open_reasoning.insert(id.to_owned());
        }
        self.record_opener(Kind::Reasoning, id, tag);
        Ok(())
    }

    fn continue_reasoning(
        &mut self,
        id: &str,
        tag: Agent,
        span: bool,
        close: bool,
    ) -> Result<(), Violation> {
        let t = self.event_type;
        let open = if span {
            &self.v.run.open_spans
        } else {
            &self.v.run.open_reasoning
        };
        if !open.contains(id) {
            let (noun, opener) = if span {
                ("reasoning span", "REASONING_START")
            } else {
                ("reasoning message", "REASONING_MESSAGE_START")
            };
            return self.fail(
                Rule::Z2,
                vec![id.to_owned()],
                format!("{t} for {noun} '{id}', which is not open: start it with {opener} first"),
            );
        }
        self.check_owner(Kind::Reasoning, id, tag.as_deref())?;
        if close {
            if span {
                self.v.run.open_spans.remove(id);
            } else {
                self.v.run.open_reasoning.remove(id);
            }
        }
        Ok(())
    }

    /// Records the opener's owner unless one is on record (the first writer wins, so an
    /// untagged re-open never hands a subagent's entity to the parent).
    fn record_opener(&mut self, kind: Kind, id: &str, tag: Agent) {
        let origin = Origin::Opener(self.event_type);
        self.v
            .run
            .owners_mut(kind)
            .entry(id.to_owned())
            .or_insert(Owner { agent: tag, origin });
    }

    /// O1–O4: an event that carries a tag must agree with the entity's recorded owner.
    fn check_owner(&self, kind: Kind, id: &str, tag: Option<&str>) -> Result<(), Violation> {
        let Some(tag) = tag else { return Ok(()) };
        let Some(owner) = self.v.run.owners(kind).get(id) else {
            return Ok(());
        };
        if owner.agent.as_deref() == Some(tag) {
            return Ok(());
        }
        let t = self.event_type;
        let opener = matches!(
            t,
            EventType::TextMessageStart
                | EventType::ToolCallStart
                | EventType::ReasoningStart
                | EventType::ReasoningMessageStart
        );
        let rule = match &owner.origin {
            Origin::Opener(o) if kind == Kind::Reasoning && span_kind(*o) != span_kind(t) => {
                Rule::O1
            }
            Origin::Opener(_) => Rule::O2,
            Origin::ParentMessage(_) => Rule::O3,
            Origin::ToolCallResult
            | Origin::ActivitySnapshot
            | Origin::MessagesSnapshot
            | Origin::RunInput => Rule::O4,
        };
        let what = if opener { "re-opens" } else { "continues" };
        let shared = if rule == Rule::O1 {
            " (a reasoning span and the reasoning message sharing its id have one owner)"
        } else {
            ""
        };
        let noun = match kind {
            Kind::Reasoning if span_kind(t) => "reasoning span",
            Kind::Reasoning => "reasoning message",
            Kind::Message if t == EventType::TextMessageStart => "message id",
            other => other.noun(),
        };
        self.fail(
            rule,
            ids_of(id, Some(tag), owner.agent.as_deref()),
            format!(
                "{t} {what} {noun} '{id}' with subagentRunId '{tag}', but it belongs to {} (recorded by {}){shared}",
                describe_agent(owner.agent.as_deref()),
                owner.origin.describe()
            ),
        )
    }

    /// L5: nothing may be open when the run finishes.
    /// `L7`: a run boundary on the stream's thread.
    fn check_thread(&self, thread_id: &str) -> Result<(), Violation> {
        match &self.v.thread_id {
            Some(stream) if stream != thread_id => self.fail(
                Rule::L7,
                vec![thread_id.to_owned(), stream.clone()],
                format!(
                    "{} on thread '{thread_id}' in a stream of thread '{stream}': every run on a stream carries the input's threadId (RUN_STARTED and RUN_FINISHED must carry the input's threadId)",
                    self.event_type
                ),
            ),
            _ => Ok(()),
        }
    }

    fn check_nothing_open(&self) -> Result<(), Violation> {
        let run = &self.v.run;
        let mut ids = Vec::new();
        let mut parts = Vec::new();
        // Each kind lists its first few ids (in sorted order) and how many more there are;
        // `ids` keeps them all.
        let open_steps: usize = run.steps.values().map(BTreeSet::len).sum();
        if open_steps > 0 {
            let steps: Vec<String> = run
                .steps
                .iter()
                .flat_map(|(owner, names)| {
                    names.iter().map(move |n| match owner {
                        Some(o) => format!("'{}' (subagent '{}')", Shown(n), Shown(o)),
                        None => format!("'{}'", Shown(n)),
                    })
                })
                .take(LISTED_IDS)
                .collect();
            let more = match open_steps - steps.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            ids.extend(run.steps.values().flatten().cloned());
            parts.push(format!("steps {}{more}", steps.join(", ")));
        }
        for (set, noun) in [
            (&run.open_text, "text messages"),
            (&run.open_reasoning, "reasoning messages"),
            (&run.open_spans, "reasoning spans"),
            (&run.open_tool_calls, "tool calls"),
            (&run.active_subagents, "subagents"),
        ] {
            if !set.is_empty() {
                ids.extend(set.iter().cloned());
                let list = listed(set.iter().map(String::as_str), set.len(), LISTED_IDS);
                parts.push(format!("{noun} {list}"));
            }
        }
        if parts.is_empty() {
            return Ok(());
        }
        self.fail(
            Rule::L5,
            ids,
            format!(
                "RUN_FINISHED while still open: {}; close them first (or end the run with RUN_ERROR)",
                parts.join("; ")
            ),
        )
    }
}

fn span_kind(t: EventType) -> bool {
    matches!(t, EventType::ReasoningStart | EventType::ReasoningEnd)
}

fn ids_of(id: &str, tag: Option<&str>, owner: Option<&str>) -> Vec<String> {
    let mut ids = vec![id.to_owned()];
    ids.extend(tag.map(str::to_owned));
    ids.extend(owner.map(str::to_owned));
    ids
}

fn step_ids(name: &str, owner: Option<&str>) -> Vec<String> {
    let mut ids = vec![name.to_owned()];
    ids.extend(owner.map(str::to_owned));
    ids
}
