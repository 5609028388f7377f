//! Hand-built events, and the two event types the emitter passes through as given
//! (`CUSTOM`, `RAW`).

use ag_ui_core::stream::verify::OpenKind;
use ag_ui_core::{Event, EventType, SubagentRunId};
use serde_json::Value;

use super::run::{Attribute, Call, RunEmitter};
use crate::error::BuildError;
use crate::event;

impl RunEmitter {
    /// Sends an event you built yourself, checked and tracked like the emitter's own: it is
    /// refused (nothing emitted) when it breaks a lifecycle rule of spec §9.1 given what the
    /// run has emitted so far ([`BuildError::Violation`]) or a rule of the emitter, and once
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
    /// use ag_ui_builders::{BuildError, RunEmitter, event};
    ///
    /// let mut run = RunEmitter::start("thread-1", "run-1");
    /// run.push_event(event::text_message_start("msg_1").with_name("planner"))?;
    /// run.text("Step one.")?; // appends to msg_1
    /// assert!(matches!(
    ///     run.push_event(event::text_message_content("msg_9", "?")),
    ///     Err(BuildError::Violation(_))
    /// ));
    /// run.finish()?; // closes msg_1
    /// # Ok::<(), ag_ui_builders::BuildError>(())
    /// ```
    ///
    /// # Errors
    /// [`BuildError::Violation`] naming the rule broken; [`BuildError::ChunkEvent`] for a
    /// `*_CHUNK` event (consumers expand those; send the events it stands for);
    /// [`BuildError::AlreadyOpen`] for a `TOOL_CALL_START` whose id was used in this run;
    /// [`BuildError::NotOpen`] for an event attributed to a subagent invocation that is not
    /// active; [`BuildError::IncompleteArguments`] for a `RUN_FINISHED` handing out a call whose
    /// arguments are not complete JSON; [`BuildError::RunEnded`].
    pub fn push_event(&mut self, event: impl Into<Event>) -> Result<(), BuildError> {
        self.live()?;
        let mut event = event.into();
        let kind = event.event_type();
        if matches!(
            kind,
            EventType::TextMessageChunk
                | EventType::ToolCallChunk
                | EventType::ReasoningMessageChunk
        ) {
            return Err(BuildError::ChunkEvent(kind));
        }
        let owner = match &event {
            Event::SubagentStarted(_) => None,
            e => e.subagent_run_id().cloned(),
        };
        if let Some(o) = &owner
            && !self.verifier.is_open(OpenKind::Subagent, o.as_str())
        {
            return Err(BuildError::NotOpen {
                kind: "subagent invocation",
                id: o.to_string(),
            });
        }
        match &event {
            Event::ToolCallStart(e) if self.call(e.tool_call_id.as_str()).is_some() => {
                return Err(BuildError::AlreadyOpen {
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
            self.verifier.check(&event).map_err(BuildError::Violation)?;
            self.close_all_of(owner.as_ref())?;
        }
        self.verifier.push(&event).map_err(BuildError::Violation)?;
        self.record(owner.as_ref(), &event);
        self.out.push(event);
        Ok(())
    }

    /// Sends `CUSTOM(name, value)`.
    ///
    /// # Errors
    /// [`BuildError::RunEnded`].
    pub fn custom(
        &mut self,
        name: impl Into<String>,
        value: impl Into<Value>,
    ) -> Result<(), BuildError> {
        self.live()?;
        let owner = self.owner();
        self.emit(event::custom(name, value).owned_by(owner.as_ref()))?;
        Ok(())
    }

    /// Passes a provider-native event through (`RAW`).
    ///
    /// # Errors
    /// [`BuildError::RunEnded`].
    pub fn raw(&mut self, raw: impl Into<Value>, source: Option<&str>) -> Result<(), BuildError> {
        self.live()?;
        let owner = self.owner();
        let mut ev = event::raw(raw).owned_by(owner.as_ref());
        ev.source = source.map(str::to_owned);
        self.emit(ev)?;
        Ok(())
    }

    /// Records what the emitter keeps of a hand-built event of `owner` that the verifier
    /// accepted: where the owner's next text and tool calls go, its tool calls' arguments
    /// and answers, the state and activity content. What is open is the verifier's.
    fn record(&mut self, owner: Option<&SubagentRunId>, event: &Event) {
        match event {
            Event::TextMessageStart(e) => {
                let cursor = self.cursor_mut(owner);
                cursor.text = Some(e.message_id.clone());
                cursor.turn = Some(e.message_id.clone());
            }
            Event::ToolCallStart(e) => {
                if let Some(parent) = &e.parent_message_id {
                    self.cursor_mut(owner).turn = Some(parent.clone());
                }
                self.add_call(Call {
                    id: e.tool_call_id.clone(),
                    arguments: Some(String::new()),
                    answered: false,
                });
            }
            Event::ToolCallArgs(e) => self.record_arguments(&e.tool_call_id, &e.delta),
            Event::ToolCallResult(e) => self.record_answer(e.tool_call_id.clone()),
            Event::ReasoningMessageStart(e) => {
                self.cursor_mut(owner).reasoning = Some(e.message_id.clone());
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
                let known = self.activities.iter().any(|a| a.id == e.message_id);
                if !known || e.replace != Some(false) {
                    self.track_activity(
                        e.message_id.clone(),
                        e.activity_type.clone(),
                        Some(e.content.clone()),
                    );
                }
            }
            Event::ActivityDelta(e) => {
                let (id, activity_type) = (e.message_id.clone(), e.activity_type.clone());
                self.track_activity(id, activity_type, None);
            }
            Event::SubagentFinished(_) | Event::SubagentError(_) => {
                self.drop_cursor(owner);
            }
            _ => {}
        }
    }
}
