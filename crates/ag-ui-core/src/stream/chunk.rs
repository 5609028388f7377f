//! Chunk expansion (spec §9.3): `TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK` and
//! `REASONING_MESSAGE_CHUNK` become the start / content / end events they abbreviate.

use crate::model::event::{
    Event, ReasoningMessageChunkEvent, ReasoningMessageContentEvent, ReasoningMessageEndEvent,
    ReasoningMessageStartEvent, TextMessageChunkEvent, TextMessageContentEvent,
    TextMessageEndEvent, TextMessageStartEvent, ToolCallArgsEvent, ToolCallChunkEvent,
    ToolCallEndEvent, ToolCallStartEvent,
};
use crate::model::id::{MessageId, SubagentRunId, ToolCallId};
use crate::model::message::TextMessageRole;
use crate::stream::rule::{Rule, Violation};

/// The three kinds of chunk-built stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    ToolCall,
    Reasoning,
}

impl Kind {
    fn noun(self) -> &'static str {
        match self {
            Kind::Text => "text message",
            Kind::ToolCall => "tool call",
            Kind::Reasoning => "reasoning message",
        }
    }

    fn chunk(self) -> &'static str {
        match self {
            Kind::Text => "TEXT_MESSAGE_CHUNK",
            Kind::ToolCall => "TOOL_CALL_CHUNK",
            Kind::Reasoning => "REASONING_MESSAGE_CHUNK",
        }
    }

    fn id_field(self) -> &'static str {
        match self {
            Kind::ToolCall => "toolCallId",
            Kind::Text | Kind::Reasoning => "messageId",
        }
    }
}

/// The stream one lane is assembling from chunks, with the opener fields it established.
#[derive(Debug, Clone)]
enum Pending {
    Text {
        message_id: MessageId,
        role: TextMessageRole,
        name: Option<String>,
    },
    ToolCall {
        tool_call_id: ToolCallId,
        name: String,
        parent_message_id: Option<MessageId>,
    },
    Reasoning {
        message_id: MessageId,
    },
}

impl Pending {
    fn kind(&self) -> Kind {
        match self {
            Pending::Text { .. } => Kind::Text,
            Pending::ToolCall { .. } => Kind::ToolCall,
            Pending::Reasoning { .. } => Kind::Reasoning,
        }
    }

    fn id(&self) -> &str {
        match self {
            Pending::Text { message_id, .. } | Pending::Reasoning { message_id } => {
                message_id.as_str()
            }
            Pending::ToolCall { tool_call_id, .. } => tool_call_id.as_str(),
        }
    }
}

/// One producer's lane: `owner` `None` is the parent agent.
#[derive(Debug, Clone)]
struct Lane {
    owner: Option<SubagentRunId>,
    pending: Pending,
}

/// Expands chunk events into the events they stand for, as an AG-UI 1.0 client does before
/// applying a stream (spec §9.3).
///
/// Each *lane* — one per `subagentRunId`, absent = the parent agent — assembles at most one
/// stream from chunks at a time:
///
/// * A chunk continues the lane's open stream of its kind when its id is absent or equal;
///   otherwise the lane's stream is closed and a new one opened. Opening needs the id
///   (`messageId` / `toolCallId`) and, for a tool call, `toolCallName` (rule
///   [`Rule::C1`]); it synthesizes the `*_START` (a text message's role defaults to
///   `assistant`). A `delta` or `rawEvent` synthesizes the content event; a continuation
///   carrying only `metadata` synthesizes an empty-delta content event so the metadata is
///   not lost.
/// * A continuation may repeat an opener field (`role`, `name`, `toolCallName`,
///   `parentMessageId`) only with the same value ([`Rule::C2`]).
/// * An id-less continuation goes to the lane its `subagentRunId` names; untagged, to the
///   parent lane if that has a stream of the kind, else to the only lane that has one;
///   several candidates are ambiguous ([`Rule::C3`]). A chunk naming an id open in another
///   lane continues it there; a `subagentRunId` disagreeing with that lane is
///   [`Rule::O2`].
/// * A lane's pending stream is closed (its `*_END` synthesized, carrying the opener's
///   `subagentRunId`) by a chunk of another id in the lane; by any `TEXT_MESSAGE_*`,
///   `TOOL_CALL_*` (including `TOOL_CALL_RESULT`), `STATE_*`, `CUSTOM`, `STEP_*` or
///   `REASONING_*` event of the lane (not `REASONING_ENCRYPTED_VALUE`); by the lane's own
///   `SUBAGENT_FINISHED` / `SUBAGENT_ERROR`. `RUN_STARTED`, `RUN_FINISHED`, `RUN_ERROR` and
///   `MESSAGES_SNAPSHOT` close every lane, in the order the lanes opened; so does
///   [`finish`](Self::finish) at the end of the stream.
/// * A chunk's `metadata` goes on every event synthesized from that chunk (never on the
///   `*_END` that closes the previous stream); its `rawEvent` rides the content event; its
///   `timestamp` goes on the events synthesized from it. The content event carries the
///   chunk's `subagentRunId`, or the opener's when the chunk has none.
///
/// Non-chunk events pass through unchanged, after whatever they close.
///
/// ```
/// use ag_ui_core::{ChunkExpander, Event, EventType, TextMessageChunkEvent};
///
/// let mut expander = ChunkExpander::new();
/// let out = expander.push(TextMessageChunkEvent::new().with_message_id("m1").with_delta("Hel").into())?;
/// let types: Vec<EventType> = out.iter().map(Event::event_type).collect();
/// assert_eq!(types, [EventType::TextMessageStart, EventType::TextMessageContent]);
///
/// let out = expander.push(TextMessageChunkEvent::new().with_delta("lo").into())?;
/// assert_eq!(out.len(), 1);
/// let out = expander.finish();
/// assert_eq!(out[0].event_type(), EventType::TextMessageEnd);
/// # Ok::<(), ag_ui_core::Violation>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ChunkExpander {
    /// Lanes with a pending stream, in the order they opened.
    lanes: Vec<Lane>,
    index: usize,
}

impl ChunkExpander {
    /// An expander for a new stream.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// How many events have been pushed (the index the next one gets).
    #[must_use]
    pub fn events_seen(&self) -> usize {
        self.index
    }

    /// Whether some lane is assembling a stream from chunks.
    #[must_use]
    pub fn has_pending(&self) -> bool {
        !self.lanes.is_empty()
    }

    /// Expands the next event: the events it closes, then the event itself (a non-chunk
    /// event) or what it expands to (a chunk).
    ///
    /// # Errors
    /// A [`Violation`] of [`Rule::C1`], [`Rule::C2`], [`Rule::C3`] or [`Rule::O2`]; the
    /// expander's state is then unchanged.
    pub fn push(&mut self, event: Event) -> Result<Vec<Event>, Violation> {
        let mut out = Vec::new();
        if self.step(&event, &mut out)? {
            out.push(event);
        }
        Ok(out)
    }

    /// Ends the stream: the `*_END` events of every stream still pending, in the order
    /// the lanes opened.
    pub fn finish(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        self.close_all(&mut out);
        out
    }

    /// Appends to `out` what `event` closes and, for a chunk, what it expands to; returns
    /// whether `event` itself follows (it is not a chunk).
    pub(crate) fn step(&mut self, event: &Event, out: &mut Vec<Event>) -> Result<bool, Violation> {
        let index = self.index;
        self.index += 1;
        match event {
            Event::TextMessageChunk(c) => self.text(c, index, out).map(|()| false),
            Event::ToolCallChunk(c) => self.tool_call(c, index, out).map(|()| false),
            Event::ReasoningMessageChunk(c) => self.reasoning(c, index, out).map(|()| false),
            Event::RunStarted(_)
            | Event::RunFinished(_)
            | Event::RunError(_)
            | Event::MessagesSnapshot(_) => {
                self.close_all(out);
                Ok(true)
            }
            Event::Raw(_)
            | Event::ActivitySnapshot(_)
            | Event::ActivityDelta(_)
            | Event::ReasoningEncryptedValue(_)
            | Event::SubagentStarted(_) => Ok(true),
            Event::SubagentFinished(e) => {
                self.close_lane(Some(&e.subagent_run_id), out);
                Ok(true)
            }
            Event::SubagentError(e) => {
                self.close_lane(Some(&e.subagent_run_id), out);
                Ok(true)
            }
            Event::TextMessageStart(_)
            | Event::TextMessageContent(_)
            | Event::TextMessageEnd(_)
            | Event::ToolCallStart(_)
            | Event::ToolCallArgs(_)
            | Event::ToolCallEnd(_)
            | Event::ToolCallResult(_)
            | Event::StateSnapshot(_)
            | Event::StateDelta(_)
            | Event::Custom(_)
            | Event::StepStarted(_)
            | Event::StepFinished(_)
            | Event::ReasoningStart(_)
            | Event::ReasoningMessageStart(_)
            | Event::ReasoningMessageContent(_)
            | Event::ReasoningMessageEnd(_)
            | Event::ReasoningEnd(_) => {
                self.close_lane(event.subagent_run_id(), out);
                Ok(true)
            }
        }
    }

    fn text(
        &mut self,
        c: &TextMessageChunkEvent,
        index: usize,
        out: &mut Vec<Event>,
    ) -> Result<(), Violation> {
        let id = c.message_id.as_ref().map(MessageId::as_str);
        let lane = self.resolve_lane(Kind::Text, id, c.subagent_run_id.as_ref(), index)?;
        let continued = match self.pending(lane.as_ref()) {
            Some(Pending::Text {
                message_id,
                role,
                name,
            }) if id.is_none_or(|id| id == message_id.as_str()) => {
                let noun = Kind::Text.noun();
                let role_text = role.as_str();
                agree(
                    index,
                    noun,
                    message_id.as_str(),
                    "role",
                    c.role.map(|r| r.as_str()),
                    Some(role_text),
                )?;
                agree(
                    index,
                    noun,
                    message_id.as_str(),
                    "name",
                    c.name.as_deref(),
                    name.as_deref(),
                )?;
                Some(message_id.clone())
            }
            _ => None,
        };
        let opened = continued.is_none();
        let message_id = match continued {
            Some(id) => id,
            None => {
                let Some(message_id) = c.message_id.clone() else {
                    return Err(missing_id(Kind::Text, index));
                };
                self.close_lane(lane.as_ref(), out);
                let role = c.role.unwrap_or(TextMessageRole::Assistant);
                self.lanes.push(Lane {
                    owner: lane.clone(),
                    pending: Pending::Text {
                        message_id: message_id.clone(),
                        role,
                        name: c.name.clone(),
                    },
                });
                let mut start = TextMessageStartEvent::new(message_id.clone());
                start.role = Some(role);
                start.name.clone_from(&c.name);
                start.subagent_run_id.clone_from(&c.subagent_run_id);
                start.metadata.clone_from(&c.metadata);
                start.timestamp = c.timestamp;
                out.push(start.into());
                message_id
            }
        };
        let owner = c.subagent_run_id.clone().or(lane);
        if c.delta.is_some() || c.raw_event.is_some() || (!opened && c.metadata.is_some()) {
            let mut content =
                TextMessageContentEvent::new(message_id, c.delta.clone().unwrap_or_default());
            content.subagent_run_id = owner;
            content.metadata.clone_from(&c.metadata);
            content.raw_event.clone_from(&c.raw_event);
            content.timestamp = c.timestamp;
            out.push(content.into());
        }
        Ok(())
    }

    fn tool_call(
        &mut self,
        c: &ToolCallChunkEvent,
        index: usize,
        out: &mut Vec<Event>,
    ) -> Result<(), Violation> {
        let id = c.tool_call_id.as_ref().map(ToolCallId::as_str);
        let lane = self.resolve_lane(Kind::ToolCall, id, c.subagent_run_id.as_ref(), index)?;
        let continued = match self.pending(lane.as_ref()) {
            Some(Pending::ToolCall {
                tool_call_id,
                name,
                parent_message_id,
            }) if id.is_none_or(|id| id == tool_call_id.as_str()) => {
                let noun = Kind::ToolCall.noun();
                let call = tool_call_id.as_str();
                agree(
                    index,
                    noun,
                    call,
                    "toolCallName",
                    c.tool_call_name.as_deref(),
                    Some(name),
                )?;
                agree(
                    index,
                    noun,
                    call,
                    "parentMessageId",
                    c.parent_message_id.as_ref().map(MessageId::as_str),
                    parent_message_id.as_ref().map(MessageId::as_str),
                )?;
                Some(tool_call_id.clone())
            }
            _ => None,
        };
        let opened = continued.is_none();
        let tool_call_id = match continued {
            Some(id) => id,
            None => {
                let Some(tool_call_id) = c.tool_call_id.clone() else {
                    return Err(missing_id(Kind::ToolCall, index));
                };
                let Some(name) = c.tool_call_name.clone() else {
                    return Err(Violation::new(
                        Rule::C1,
                        index,
                        vec![tool_call_id.into_string()],
                        "TOOL_CALL_CHUNK opens a tool call without a toolCallName: the first chunk of a tool call needs toolCallId and toolCallName",
                    ));
                };
                self.close_lane(lane.as_ref(), out);
                self.lanes.push(Lane {
                    owner: lane.clone(),
                    pending: Pending::ToolCall {
                        tool_call_id: tool_call_id.clone(),
                        name: name.clone(),
                        parent_message_id: c.parent_message_id.clone(),
                    },
                });
                let mut start = ToolCallStartEvent::new(tool_call_id.clone(), name);
                start.parent_message_id.clone_from(&c.parent_message_id);
                start.subagent_run_id.clone_from(&c.subagent_run_id);
                start.metadata.clone_from(&c.metadata);
                start.timestamp = c.timestamp;
                out.push(start.into());
                tool_call_id
            }
        };
        let owner = c.subagent_run_id.clone().or(lane);
        if c.delta.is_some() || c.raw_event.is_some() || (!opened && c.metadata.is_some()) {
            let mut args =
                ToolCallArgsEvent::new(tool_call_id, c.delta.clone().unwrap_or_default());
            args.subagent_run_id = owner;
            args.metadata.clone_from(&c.metadata);
            args.raw_event.clone_from(&c.raw_event);
            args.timestamp = c.timestamp;
            out.push(args.into());
        }
        Ok(())
    }

    fn reasoning(
        &mut self,
        c: &ReasoningMessageChunkEvent,
        index: usize,
        out: &mut Vec<Event>,
    ) -> Result<(), Violation> {
        let id = c.message_id.as_ref().map(MessageId::as_str);
        let lane = self.resolve_lane(Kind::Reasoning, id, c.subagent_run_id.as_ref(), index)?;
        let continued = match self.pending(lane.as_ref()) {
            Some(Pending::Reasoning { message_id })
                if id.is_none_or(|id| id == message_id.as_str()) =>
            {
                Some(message_id.clone())
            }
            _ => None,
        };
        let opened = continued.is_none();
        let message_id = match continued {
            Some(id) => id,
            None => {
                let Some(message_id) = c.message_id.clone() else {
                    return Err(missing_id(Kind::Reasoning, index));
                };
                self.close_lane(lane.as_ref(), out);
                self.lanes.push(Lane {
                    owner: lane.clone(),
                    pending: Pending::Reasoning {
                        message_id: message_id.clone(),
                    },
                });
                let mut start = ReasoningMessageStartEvent::for_message(message_id.clone());
                start.subagent_run_id.clone_from(&c.subagent_run_id);
                start.metadata.clone_from(&c.metadata);
                start.timestamp = c.timestamp;
                out.push(start.into());
                message_id
            }
        };
        let owner = c.subagent_run_id.clone().or(lane);
        if c.delta.is_some() || c.raw_event.is_some() || (!opened && c.metadata.is_some()) {
            let mut content =
                ReasoningMessageContentEvent::new(message_id, c.delta.clone().unwrap_or_default());
            content.subagent_run_id = owner;
            content.metadata.clone_from(&c.metadata);
            content.raw_event.clone_from(&c.raw_event);
            content.timestamp = c.timestamp;
            out.push(content.into());
        }
        Ok(())
    }

    fn pending(&self, owner: Option<&SubagentRunId>) -> Option<&Pending> {
        self.lanes
            .iter()
            .find(|l| l.owner.as_ref() == owner)
            .map(|l| &l.pending)
    }

    /// Decides which lane a chunk belongs to (see the type's documentation).
    fn resolve_lane(
        &self,
        kind: Kind,
        id: Option<&str>,
        tag: Option<&SubagentRunId>,
        index: usize,
    ) -> Result<Option<SubagentRunId>, Violation> {
        if let Some(id) = id {
            let holder = self
                .lanes
                .iter()
                .find(|l| l.pending.kind() == kind && l.pending.id() == id);
            return match (holder, tag) {
                (Some(lane), Some(tag)) if lane.owner.as_ref() != Some(tag) => {
                    let mut ids = vec![id.to_owned(), tag.as_str().to_owned()];
                    ids.extend(lane.owner.as_ref().map(|o| o.as_str().to_owned()));
                    Err(Violation::new(
                        Rule::O2,
                        index,
                        ids,
                        format!(
                            "{} continues {} '{id}' with subagentRunId '{tag}', but that stream is open in the lane of {}",
                            kind.chunk(),
                            kind.noun(),
                            match &lane.owner {
                                Some(o) => format!("subagent '{o}'"),
                                None => "the parent agent".to_owned(),
                            }
                        ),
                    ))
                }
                (Some(lane), _) => Ok(lane.owner.clone()),
                (None, tag) => Ok(tag.cloned()),
            };
        }
        if let Some(tag) = tag {
            return Ok(Some(tag.clone()));
        }
        if self.pending(None).is_some_and(|p| p.kind() == kind) {
            return Ok(None);
        }
        let candidates: Vec<&Lane> = self
            .lanes
            .iter()
            .filter(|l| l.pending.kind() == kind)
            .collect();
        match candidates.as_slice() {
            [] => Ok(None),
            [only] => Ok(only.owner.clone()),
            several => {
                let ids: Vec<String> = several.iter().map(|l| l.pending.id().to_owned()).collect();
                Err(Violation::new(
                    Rule::C3,
                    index,
                    ids.clone(),
                    format!(
                        "{} carries neither {} nor subagentRunId, and {} lanes have an open {} ({}): tag the chunk with the subagent it belongs to",
                        kind.chunk(),
                        kind.id_field(),
                        several.len(),
                        kind.noun(),
                        ids.iter()
                            .map(|i| format!("'{i}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        }
    }

    /// Closes the stream pending in `owner`'s lane, if any.
    fn close_lane(&mut self, owner: Option<&SubagentRunId>, out: &mut Vec<Event>) {
        if let Some(pos) = self.lanes.iter().position(|l| l.owner.as_ref() == owner) {
            let lane = self.lanes.remove(pos);
            out.push(end_of(lane));
        }
    }

    fn close_all(&mut self, out: &mut Vec<Event>) {
        out.extend(self.lanes.drain(..).map(end_of));
    }
}

/// The `*_END` closing a lane's stream, attributed like its opener.
fn end_of(lane: Lane) -> Event {
    match lane.pending {
        Pending::Text { message_id, .. } => {
            let mut e = TextMessageEndEvent::new(message_id);
            e.subagent_run_id = lane.owner;
            e.into()
        }
        Pending::ToolCall { tool_call_id, .. } => {
            let mut e = ToolCallEndEvent::new(tool_call_id);
            e.subagent_run_id = lane.owner;
            e.into()
        }
        Pending::Reasoning { message_id } => {
            let mut e = ReasoningMessageEndEvent::new(message_id);
            e.subagent_run_id = lane.owner;
            e.into()
        }
    }
}

fn missing_id(kind: Kind, index: usize) -> Violation {
    let extra = if kind == Kind::ToolCall {
        " and toolCallName"
    } else {
        ""
    };
    Violation::new(
        Rule::C1,
        index,
        vec![],
        format!(
            "{} opens a {} without a {}: the first chunk of a {} needs its {}{extra}",
            kind.chunk(),
            kind.noun(),
            kind.id_field(),
            kind.noun(),
            kind.id_field()
        ),
    )
}

/// C2: a continuation repeating an opener field must repeat its value.
fn agree(
    index: usize,
    noun: &str,
    id: &str,
    field: &str,
    incoming: Option<&str>,
    established: Option<&str>,
) -> Result<(), Violation> {
    match incoming {
        Some(value) if Some(value) != established => Err(Violation::new(
            Rule::C2,
            index,
            vec![id.to_owned()],
            format!(
                "chunk continuing {noun} '{id}' has {field} '{value}', but the stream opened with {}",
                match established {
                    Some(e) => format!("{field} '{e}'"),
                    None => format!("no {field}"),
                }
            ),
        )),
        _ => Ok(()),
    }
}
