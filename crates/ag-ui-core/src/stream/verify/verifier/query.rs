//! What a [`Verifier`] can be asked without pushing an event: whether an event would be
//! accepted, what the run has open (in opening order), who owns an entity, which subagent
//! invocations are active. A producer that emits a run (the builders' emitter) asks these
//! instead of keeping a state machine of its own.

use super::{Agent, Kind, Verifier};
use crate::model::event::Event;
use crate::stream::rule::Violation;
use crate::stream::verify::open::{EntityKind, Open, OpenKind};

impl Verifier {
    /// Records when `event` (just accepted) opened an entity.
    pub(super) fn note_opened(&mut self, event: &Event) {
        let tag = event.subagent_run_id().map(|t| t.as_str().to_owned());
        let key = match event {
            Event::TextMessageStart(e) => (OpenKind::TextMessage, None, e.message_id.to_string()),
            Event::ToolCallStart(e) => (OpenKind::ToolCall, None, e.tool_call_id.to_string()),
            Event::ReasoningStart(e) => (OpenKind::ReasoningSpan, None, e.message_id.to_string()),
            Event::ReasoningMessageStart(e) => {
                (OpenKind::ReasoningMessage, None, e.message_id.to_string())
            }
            Event::StepStarted(e) => (OpenKind::Step, tag, e.step_name.clone()),
            Event::SubagentStarted(e) => (OpenKind::Subagent, None, e.subagent_run_id.to_string()),
            _ => return,
        };
        self.run.order.note(key);
    }

    /// Whether `event` would be accepted as the next event, without applying it: what
    /// [`push`](Self::push) would return, with the verifier left as it is. The
    /// [`Violation`]'s index is the one the event would get ([`events_seen`](Self::events_seen)).
    ///
    /// It works on a copy of the verifier's state, so it costs about as much as a clone;
    /// to check an event you will send when accepted, [`push`](Self::push) it (a refused
    /// event is not applied).
    ///
    /// ```
    /// use ag_ui_core::{Rule, RunStartedEvent, StepFinishedEvent, Verifier};
    ///
    /// let mut verifier = Verifier::new();
    /// verifier.push(&RunStartedEvent::new("t1", "r1").into())?;
    /// let err = verifier.check(&StepFinishedEvent::new("plan").into()).unwrap_err();
    /// assert_eq!((err.rule, err.index), (Rule::S2, 1));
    /// assert_eq!(verifier.events_seen(), 1);
    /// # Ok::<(), ag_ui_core::Violation>(())
    /// ```
    ///
    /// # Errors
    /// The [`Violation`] of the first rule the event breaks.
    pub fn check(&self, event: &Event) -> Result<(), Violation> {
        self.clone().push(event)
    }

    /// Everything the current run has open — text messages, tool calls, reasoning spans
    /// and messages, steps, active subagent invocations — in the order it was opened
    /// (what a `RUN_FINISHED` needs closed first, rule `L5`, plus the active invocations).
    /// Empty between runs.
    ///
    /// ```
    /// use ag_ui_core::stream::verify::{Open, OpenKind};
    /// use ag_ui_core::{RunStartedEvent, StepStartedEvent, TextMessageStartEvent, Verifier};
    ///
    /// let mut verifier = Verifier::new();
    /// verifier.push(&RunStartedEvent::new("t1", "r1").into())?;
    /// verifier.push(&StepStartedEvent::new("plan").into())?;
    /// verifier.push(&TextMessageStartEvent::new("m1").into())?;
    /// let open: Vec<_> = verifier.open().into_iter().map(|o| (o.kind, o.id)).collect();
    /// let expected = [(OpenKind::Step, "plan"), (OpenKind::TextMessage, "m1")];
    /// assert_eq!(open, expected.map(|(kind, id)| (kind, id.to_owned())));
    /// # Ok::<(), ag_ui_core::Violation>(())
    /// ```
    #[must_use]
    pub fn open(&self) -> Vec<Open> {
        let run = &self.run;
        let owner_of = |kind: Kind, id: &str| -> Agent {
            run.owners(kind).get(id).and_then(|o| o.agent.clone())
        };
        let mut open: Vec<(u64, Open)> = Vec::new();
        let mut add = |kind: OpenKind, owner: Agent, id: &str, key_owner: &Agent| {
            let rank = run.order.rank(kind, key_owner, id);
            open.push((
                rank,
                Open {
                    kind,
                    id: id.to_owned(),
                    owner,
                },
            ));
        };
        for id in &run.open_text {
            add(
                OpenKind::TextMessage,
                owner_of(Kind::Message, id),
                id,
                &None,
            );
        }
        for id in &run.open_tool_calls {
            add(OpenKind::ToolCall, owner_of(Kind::ToolCall, id), id, &None);
        }
        for id in &run.open_spans {
            add(
                OpenKind::ReasoningSpan,
                owner_of(Kind::Reasoning, id),
                id,
                &None,
            );
        }
        for id in &run.open_reasoning {
            let owner = owner_of(Kind::Reasoning, id);
            add(OpenKind::ReasoningMessage, owner, id, &None);
        }
        for (owner, names) in &run.steps {
            for name in names {
                add(OpenKind::Step, owner.clone(), name, owner);
            }
        }
        for id in &run.active_subagents {
            add(OpenKind::Subagent, None, id, &None);
        }
        open.sort_by_key(|(rank, _)| *rank);
        open.into_iter().map(|(_, o)| o).collect()
    }

    /// Whether the current run has `id` of `kind` open (for a step, `id` is its name, open
    /// under any owner).
    #[must_use]
    pub fn is_open(&self, kind: OpenKind, id: &str) -> bool {
        let run = &self.run;
        match kind {
            OpenKind::TextMessage => run.open_text.contains(id),
            OpenKind::ToolCall => run.open_tool_calls.contains(id),
            OpenKind::ReasoningSpan => run.open_spans.contains(id),
            OpenKind::ReasoningMessage => run.open_reasoning.contains(id),
            OpenKind::Step => run.steps.values().any(|names| names.contains(id)),
            OpenKind::Subagent => run.active_subagents.contains(id),
        }
    }

    /// The owner on record for entity `id` of `kind` in the current run (rules `O1`–`O4`):
    /// `None` when the run has not seen the id; `Some(None)` when it belongs to the parent
    /// agent; `Some(Some(subagent_run_id))` when it belongs to a subagent invocation. An
    /// entity keeps its owner after it closes, for the whole run.
    ///
    /// ```
    /// use ag_ui_core::stream::verify::EntityKind;
    /// use ag_ui_core::{RunStartedEvent, TextMessageStartEvent, Verifier};
    ///
    /// let mut verifier = Verifier::new();
    /// verifier.push(&RunStartedEvent::new("t1", "r1").into())?;
    /// verifier.push(&TextMessageStartEvent::new("m1").into())?;
    /// assert_eq!(verifier.owner(EntityKind::Message, "m1"), Some(None));
    /// assert_eq!(verifier.owner(EntityKind::Message, "m2"), None);
    /// # Ok::<(), ag_ui_core::Violation>(())
    /// ```
    #[must_use]
    pub fn owner(&self, kind: EntityKind, id: &str) -> Option<Option<&str>> {
        self.run
            .owners(bucket(kind))
            .get(id)
            .map(|o| o.agent.as_deref())
    }

    /// The subagent invocations active in the current run, innermost (latest started)
    /// last.
    #[must_use]
    pub fn active_subagents(&self) -> Vec<&str> {
        let run = &self.run;
        let mut active: Vec<&str> = run.active_subagents.iter().map(String::as_str).collect();
        active.sort_by_key(|id| run.order.rank(OpenKind::Subagent, &None, id));
        active
    }

    /// Whether subagent invocation `id` started in the current run (active or ended: a
    /// `subagentRunId` names one invocation, rule `A1`).
    #[must_use]
    pub fn has_subagent_started(&self, id: &str) -> bool {
        self.run.active_subagents.contains(id) || self.run.closed_subagents.contains(id)
    }
}

/// The owner bucket of `kind`.
fn bucket(kind: EntityKind) -> Kind {
    match kind {
        EntityKind::Message => Kind::Message,
        EntityKind::ToolCall => Kind::ToolCall,
        EntityKind::Activity => Kind::Activity,
        EntityKind::Reasoning => Kind::Reasoning,
    }
}
