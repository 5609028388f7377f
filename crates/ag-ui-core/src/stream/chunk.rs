//! Chunk expansion (spec §9.3): `TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK` and
//! `REASONING_MESSAGE_CHUNK` become the start / content / end events they abbreviate.

use std::collections::VecDeque;

use crate::hash::HashMap;

use crate::codec::shown::Shown;
use crate::model::event::{
    Event, ReasoningMessageChunkEvent, ReasoningMessageContentEvent, ReasoningMessageEndEvent,
    ReasoningMessageStartEvent, TextMessageChunkEvent, TextMessageContentEvent,
    TextMessageEndEvent, TextMessageStartEvent, ToolCallArgsEvent, ToolCallChunkEvent,
    ToolCallEndEvent, ToolCallStartEvent,
};
use crate::model::id::{MessageId, SubagentRunId, ToolCallId};
use crate::model::message::TextMessageRole;
use crate::stream::delta::DeltaKind;
use crate::stream::rule::{LISTED_IDS, Rule, Violation};

/// The three kinds of chunk-built stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    ToolCall,
    Reasoning,
}

impl Kind {
    /// The kind of stream a streamed delta's chunk builds.
    fn of(delta: DeltaKind) -> Kind {
        match delta {
            DeltaKind::Text => Kind::Text,
            DeltaKind::ToolCallArgs => Kind::ToolCall,
            DeltaKind::Reasoning => Kind::Reasoning,
        }
    }

    /// Index of the kind in per-kind tables.
    fn slot(self) -> usize {
        match self {
            Kind::Text => 0,
            Kind::ToolCall => 1,
            Kind::Reasoning => 2,
        }
    }

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

    /// The `*_START` opening this stream (without the chunk's base fields).
    fn start(&self) -> Event {
        match self {
            Pending::Text {
                message_id,
                role,
                name,
            } => {
                let mut start = TextMessageStartEvent::new(message_id.clone());
                start.role = Some(*role);
                start.name.clone_from(name);
                start.into()
            }
            Pending::ToolCall {
                tool_call_id,
                name,
                parent_message_id,
            } => {
                let mut start = ToolCallStartEvent::new(tool_call_id.clone(), name.clone());
                start.parent_message_id.clone_from(parent_message_id);
                start.into()
            }
            Pending::Reasoning { message_id } => {
                ReasoningMessageStartEvent::for_message(message_id.clone()).into()
            }
        }
    }

    /// The content event carrying `delta` into this stream (without the chunk's base
    /// fields).
    fn content(&self, delta: String) -> Event {
        match self {
            Pending::Text { message_id, .. } => {
                TextMessageContentEvent::new(message_id.clone(), delta).into()
            }
            Pending::ToolCall { tool_call_id, .. } => {
                ToolCallArgsEvent::new(tool_call_id.clone(), delta).into()
            }
            Pending::Reasoning { message_id } => {
                ReasoningMessageContentEvent::new(message_id.clone(), delta).into()
            }
        }
    }
}

/// A lane's open stream, with its opening number (streams open in increasing numbers).
type Open = (u64, Pending);

/// The stream each lane is assembling, by owner (`None` is the parent agent).
#[derive(Debug, Clone, Default)]
struct Lanes {
    parent: Option<Open>,
    subagents: HashMap<SubagentRunId, Open>,
}

impl Lanes {
    fn get(&self, owner: Option<&SubagentRunId>) -> Option<&Open> {
        match owner {
            None => self.parent.as_ref(),
            Some(o) => self.subagents.get(o),
        }
    }

    fn insert(&mut self, owner: Option<SubagentRunId>, open: Open) {
        match owner {
            None => self.parent = Some(open),
            Some(o) => {
                self.subagents.insert(o, open);
            }
        }
    }

    fn remove(&mut self, owner: Option<&SubagentRunId>) -> Option<Open> {
        match owner {
            None => self.parent.take(),
            Some(o) => self.subagents.remove(o),
        }
    }

    fn is_empty(&self) -> bool {
        self.parent.is_none() && self.subagents.is_empty()
    }

    /// The stream `owner`'s lane holds, when a chunk of `kind` whose id is `id` continues
    /// it (the chunk's id is absent or the stream's).
    fn continued(
        &self,
        owner: Option<&SubagentRunId>,
        kind: Kind,
        id: Option<&str>,
    ) -> Option<&Pending> {
        self.get(owner)
            .map(|(_, p)| p)
            .filter(|p| p.kind() == kind && id.is_none_or(|id| id == p.id()))
    }

    /// Whether `owner`'s lane still holds the stream opened as number `seq`.
    fn holds(&self, owner: Option<&SubagentRunId>, seq: u64) -> bool {
        self.get(owner).is_some_and(|(s, _)| *s == seq)
    }
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
///
/// Every event costs O(1) amortised time, however many lanes hold an open stream: lanes
/// and open ids are found through hash maps, and the order the lanes opened in (needed
/// only when several close at once) is kept in queues pruned as streams close.
#[derive(Debug, Clone, Default)]
pub struct ChunkExpander {
    /// The stream each lane is assembling.
    lanes: Lanes,
    /// For each kind (by [`Kind::slot`]): the lane holding the stream of each open id.
    holders: [HashMap<String, Option<SubagentRunId>>; 3],
    /// For each kind: the lanes that opened a stream of that kind, in the order they
    /// opened, with the stream's number. Entries of closed streams leave when they reach
    /// the front, or when they outnumber the open streams, so the front is always open.
    order: [VecDeque<(u64, Option<SubagentRunId>)>; 3],
    /// The number the next stream opens with.
    next_seq: u64,
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
        let mut event = event;
        let delta = take_chunk_delta(&mut event);
        let mut out = Vec::new();
        if self.step(&event, delta, &mut out)? {
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

    /// Counts an event of the parent agent (no `subagentRunId`) that is neither a chunk
    /// nor a run boundary, when the parent lane holds no chunk stream: what [`step`]
    /// does for such an event then, without the event. `false` (nothing done) when the
    /// lane holds a stream, which the event would close.
    ///
    /// [`step`]: ChunkExpander::step
    pub(crate) fn step_idle_parent(&mut self) -> bool {
        if self.lanes.parent.is_some() {
            return false;
        }
        self.index += 1;
        true
    }

    /// Counts a chunk of the parent agent (no `subagentRunId`) that carries nothing but its
    /// `delta`, perhaps its id and a `timestamp`, when it continues the stream open in the
    /// parent lane: what [`step`] does for such a chunk then, without the chunk (the content
    /// event it expands to, `kind`'s event with the returned id, is the caller's). `None`
    /// (nothing done) when the chunk would go to another lane or open a stream.
    ///
    /// [`step`]: ChunkExpander::step
    pub(crate) fn continue_parent(&mut self, kind: DeltaKind, id: Option<&str>) -> Option<&str> {
        // Such a chunk is the parent lane's when that lane continues it (`resolve_lane`
        // sends an untagged id-less chunk to the parent lane when it holds a stream of the
        // kind, and a chunk naming an id to the lane holding it, the parent's for the id
        // of the parent's stream: an id opens in no other lane while one holds it, [`Rule::O2`]).
        let pending = self.lanes.continued(None, Kind::of(kind), id)?;
        self.index += 1;
        Some(pending.id())
    }

    /// Appends to `out` what `event` closes and, for a chunk, what it expands to; returns
    /// whether `event` itself follows (it is not a chunk). A chunk's `delta` is given
    /// apart, as `delta` (taken out of a chunk the caller owns, so that it moves into the
    /// content event; copied from a borrowed one, [`chunk_delta`]); the chunk's own is not
    /// read.
    pub(crate) fn step(
        &mut self,
        event: &Event,
        delta: Option<String>,
        out: &mut Vec<Event>,
    ) -> Result<bool, Violation> {
        let index = self.index;
        self.index += 1;
        match event {
            Event::TextMessageChunk(c) => self
                .expand::<TextMessageChunkEvent>(event, c, delta, index, out)
                .map(|()| false),
            Event::ToolCallChunk(c) => self
                .expand::<ToolCallChunkEvent>(event, c, delta, index, out)
                .map(|()| false),
            Event::ReasoningMessageChunk(c) => self
                .expand::<ReasoningMessageChunkEvent>(event, c, delta, index, out)
                .map(|()| false),
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

    /// Expands one chunk of any kind: continues the stream of its lane or opens one (its
    /// `*_START`, after closing what the lane held), then its content event.
    fn expand<C: Chunk>(
        &mut self,
        event: &Event,
        c: &C,
        mut delta: Option<String>,
        index: usize,
        out: &mut Vec<Event>,
    ) -> Result<(), Violation> {
        let id = c.id();
        let tag = event.subagent_run_id();
        let lane = self.resolve_lane(C::KIND, id, tag, index)?;
        // The content event: for a delta or a `rawEvent`, and for a continuation carrying
        // only `metadata` (so that the metadata is not lost).
        let content = |p: &Pending, continued: bool, delta: &mut Option<String>| {
            let carries = delta.is_some()
                || event.raw_event().is_some()
                || (continued && event.metadata().is_some());
            carries.then(|| p.content(delta.take().unwrap_or_default()))
        };
        let continuing = match self.lanes.continued(lane.as_ref(), C::KIND, id) {
            Some(p) => {
                c.agrees(p, index)?;
                Some(content(p, true, &mut delta))
            }
            None => None,
        };
        let content = match continuing {
            Some(content) => content,
            None => {
                let pending = c.opens(index)?;
                self.close_lane(lane.as_ref(), out);
                let mut start = pending.start();
                start.set_metadata(event.metadata().cloned());
                start.set_timestamp(event.timestamp());
                let _attributable = start.set_subagent_run_id(tag.cloned());
                out.push(start);
                let content = content(&pending, false, &mut delta);
                self.open(lane.clone(), pending);
                content
            }
        };
        if let Some(mut content) = content {
            content.set_metadata(event.metadata().cloned());
            content.set_raw_event(event.raw_event().cloned());
            content.set_timestamp(event.timestamp());
            let _attributable = content.set_subagent_run_id(tag.cloned().or(lane));
            out.push(content);
        }
        Ok(())
    }

    fn pending(&self, owner: Option<&SubagentRunId>) -> Option<&Pending> {
        self.lanes.get(owner).map(|(_, p)| p)
    }

    /// Opens `pending` in `owner`'s lane (which holds no stream).
    fn open(&mut self, owner: Option<SubagentRunId>, pending: Pending) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let slot = pending.kind().slot();
        self.holders[slot].insert(pending.id().to_owned(), owner.clone());
        self.order[slot].push_back((seq, owner.clone()));
        self.lanes.insert(owner, (seq, pending));
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
            let holder = self.holders[kind.slot()].get(id);
            return match (holder, tag) {
                (Some(owner), Some(tag)) if owner.as_ref() != Some(tag) => {
                    let mut ids = vec![id.to_owned(), tag.as_str().to_owned()];
                    ids.extend(owner.as_ref().map(|o| o.as_str().to_owned()));
                    Err(Violation::new(
                        Rule::O2,
                        index,
                        ids,
                        format!(
                            "{} continues {} '{}' with subagentRunId '{}', but that stream is open in the lane of {}",
                            kind.chunk(),
                            kind.noun(),
                            Shown(id),
                            Shown(tag.as_str()),
                            match owner {
                                Some(o) => format!("subagent '{}'", Shown(o.as_str())),
                                None => "the parent agent".to_owned(),
                            }
                        ),
                    ))
                }
                (Some(owner), _) => Ok(owner.clone()),
                (None, tag) => Ok(tag.cloned()),
            };
        }
        if let Some(tag) = tag {
            return Ok(Some(tag.clone()));
        }
        if self.pending(None).is_some_and(|p| p.kind() == kind) {
            return Ok(None);
        }
        let open = self.holders[kind.slot()].len();
        if open <= 1 {
            // The front of the queue is always an open stream.
            return Ok(self.order[kind.slot()]
                .front()
                .and_then(|(_, owner)| owner.clone()));
        }
        // Ambiguous: name the first lanes that opened, and how many there are.
        let ids: Vec<String> = self.order[kind.slot()]
            .iter()
            .filter(|(seq, owner)| self.lanes.holds(owner.as_ref(), *seq))
            .filter_map(|(_, owner)| self.pending(owner.as_ref()))
            .take(LISTED_IDS)
            .map(|p| p.id().to_owned())
            .collect();
        let listed = ids
            .iter()
            .map(|i| format!("'{}'", Shown(i)))
            .collect::<Vec<_>>()
            .join(", ");
        let more = match open - ids.len() {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        Err(Violation::new(
            Rule::C3,
            index,
            ids,
            format!(
                "{} carries neither {} nor subagentRunId, and {open} lanes have an open {} ({listed}{more}): tag the chunk with the subagent it belongs to",
                kind.chunk(),
                kind.id_field(),
                kind.noun(),
            ),
        ))
    }

    /// Closes the stream pending in `owner`'s lane, if any.
    fn close_lane(&mut self, owner: Option<&SubagentRunId>, out: &mut Vec<Event>) {
        let Some((_, pending)) = self.lanes.remove(owner) else {
            return;
        };
        let slot = pending.kind().slot();
        self.holders[slot].remove(pending.id());
        let (lanes, queue) = (&self.lanes, &mut self.order[slot]);
        while queue
            .front()
            .is_some_and(|(seq, o)| !lanes.holds(o.as_ref(), *seq))
        {
            queue.pop_front();
        }
        if queue.len() > 2 * self.holders[slot].len() + 16 {
            queue.retain(|(seq, o)| lanes.holds(o.as_ref(), *seq));
        }
        out.push(end_of(owner.cloned(), pending));
    }

    /// Closes every lane's stream, in the order they opened.
    fn close_all(&mut self, out: &mut Vec<Event>) {
        let mut queues = std::mem::take(&mut self.order);
        // The three queues are each in opening order: merge them.
        while let Some(slot) = (0..queues.len())
            .filter_map(|k| queues[k].front().map(|(seq, _)| (*seq, k)))
            .min()
            .map(|(_, k)| k)
        {
            let Some((seq, owner)) = queues[slot].pop_front() else {
                break;
            };
            if self.lanes.holds(owner.as_ref(), seq)
                && let Some((_, pending)) = self.lanes.remove(owner.as_ref())
            {
                out.push(end_of(owner, pending));
            }
        }
        for h in &mut self.holders {
            h.clear();
        }
        debug_assert!(self.lanes.is_empty());
    }
}

/// Takes a chunk's `delta` out of it, for [`ChunkExpander::step`] (`None` for any other
/// event, or a chunk without one).
pub(crate) fn take_chunk_delta(event: &mut Event) -> Option<String> {
    match event {
        Event::TextMessageChunk(c) => c.delta.take(),
        Event::ToolCallChunk(c) => c.delta.take(),
        Event::ReasoningMessageChunk(c) => c.delta.take(),
        _ => None,
    }
}

/// A copy of a borrowed chunk's `delta`, for [`ChunkExpander::step`].
pub(crate) fn chunk_delta(event: &Event) -> Option<String> {
    match event {
        Event::TextMessageChunk(c) => c.delta.clone(),
        Event::ToolCallChunk(c) => c.delta.clone(),
        Event::ReasoningMessageChunk(c) => c.delta.clone(),
        _ => None,
    }
}

/// The `*_END` closing a lane's stream, attributed like its opener.
fn end_of(owner: Option<SubagentRunId>, pending: Pending) -> Event {
    let mut end: Event = match pending {
        Pending::Text { message_id, .. } => TextMessageEndEvent::new(message_id).into(),
        Pending::ToolCall { tool_call_id, .. } => ToolCallEndEvent::new(tool_call_id).into(),
        Pending::Reasoning { message_id } => ReasoningMessageEndEvent::new(message_id).into(),
    };
    let _attributable = end.set_subagent_run_id(owner);
    end
}

/// What expanding a chunk needs of it beyond its base fields, per kind; the expansion
/// itself is one routine ([`ChunkExpander::expand`]).
trait Chunk {
    /// The kind of stream the chunk builds.
    const KIND: Kind;
    /// The chunk's `messageId` / `toolCallId`.
    fn id(&self) -> Option<&str>;
    /// The stream the chunk opens, or [`Rule::C1`] when it lacks what opening needs.
    fn opens(&self, index: usize) -> Result<Pending, Violation>;
    /// [`Rule::C2`]: the opener fields the chunk repeats agree with the stream it continues.
    fn agrees(&self, pending: &Pending, index: usize) -> Result<(), Violation>;
}

impl Chunk for TextMessageChunkEvent {
    const KIND: Kind = Kind::Text;
    fn id(&self) -> Option<&str> {
        self.message_id.as_ref().map(MessageId::as_str)
    }
    fn opens(&self, index: usize) -> Result<Pending, Violation> {
        let Some(message_id) = self.message_id.clone() else {
            return Err(missing_id(Kind::Text, index));
        };
        Ok(Pending::Text {
            message_id,
            role: self.role.unwrap_or(TextMessageRole::Assistant),
            name: self.name.clone(),
        })
    }
    fn agrees(&self, pending: &Pending, index: usize) -> Result<(), Violation> {
        let Pending::Text {
            message_id,
            role,
            name,
        } = pending
        else {
            return Ok(());
        };
        let (noun, id) = (Kind::Text.noun(), message_id.as_str());
        let role = Some(role.as_str());
        agree(index, noun, id, "role", self.role.map(|r| r.as_str()), role)?;
        agree(
            index,
            noun,
            id,
            "name",
            self.name.as_deref(),
            name.as_deref(),
        )
    }
}

impl Chunk for ToolCallChunkEvent {
    const KIND: Kind = Kind::ToolCall;
    fn id(&self) -> Option<&str> {
        self.tool_call_id.as_ref().map(ToolCallId::as_str)
    }
    fn opens(&self, index: usize) -> Result<Pending, Violation> {
        let Some(tool_call_id) = self.tool_call_id.clone() else {
            return Err(missing_id(Kind::ToolCall, index));
        };
        let Some(name) = self.tool_call_name.clone() else {
            return Err(Violation::new(
                Rule::C1,
                index,
                vec![tool_call_id.into_string()],
                "TOOL_CALL_CHUNK opens a tool call without a toolCallName: the first chunk of a tool call needs toolCallId and toolCallName",
            ));
        };
        Ok(Pending::ToolCall {
            tool_call_id,
            name,
            parent_message_id: self.parent_message_id.clone(),
        })
    }
    fn agrees(&self, pending: &Pending, index: usize) -> Result<(), Violation> {
        let Pending::ToolCall {
            tool_call_id,
            name,
            parent_message_id,
        } = pending
        else {
            return Ok(());
        };
        let (noun, id) = (Kind::ToolCall.noun(), tool_call_id.as_str());
        let name = Some(name.as_str());
        agree(
            index,
            noun,
            id,
            "toolCallName",
            self.tool_call_name.as_deref(),
            name,
        )?;
        agree(
            index,
            noun,
            id,
            "parentMessageId",
            self.parent_message_id.as_ref().map(MessageId::as_str),
            parent_message_id.as_ref().map(MessageId::as_str),
        )
    }
}

impl Chunk for ReasoningMessageChunkEvent {
    const KIND: Kind = Kind::Reasoning;
    fn id(&self) -> Option<&str> {
        self.message_id.as_ref().map(MessageId::as_str)
    }
    fn opens(&self, index: usize) -> Result<Pending, Violation> {
        let Some(message_id) = self.message_id.clone() else {
            return Err(missing_id(Kind::Reasoning, index));
        };
        Ok(Pending::Reasoning { message_id })
    }
    fn agrees(&self, _pending: &Pending, _index: usize) -> Result<(), Violation> {
        // A reasoning message has no opener field a chunk could repeat.
        Ok(())
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
