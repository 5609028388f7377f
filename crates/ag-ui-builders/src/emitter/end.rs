//! The end of the run — usage, `RUN_FINISHED` with its outcome, `RUN_ERROR` — and closing
//! what is open, which the end of a turn, of an invocation and of the run need.

use ag_ui_core::stream::verify::{Open, OpenKind};
use ag_ui_core::{Event, Interrupt, RunFinishedOutcome, SubagentRunId, TokenUsage, ToolCallId};
use serde_json::Value;

use super::run::{Attribute, RunEmitter};
use crate::error::BuildError;
use crate::event;
use crate::outcome::{cancelled, interrupted, success_pending};

/// Whether a call's argument text can be handed out: complete JSON, or nothing at all (a
/// call without arguments).
fn complete_arguments(arguments: &str) -> bool {
    arguments.trim().is_empty() || serde_json::from_str::<serde::de::IgnoredAny>(arguments).is_ok()
}

/// The event that closes `open`, attributed to its owner (`None` for an invocation, which
/// the caller ends itself).
fn closer(open: &Open) -> Option<Event> {
    let owner = open.owner.as_deref().map(SubagentRunId::from);
    let owner = owner.as_ref();
    let id = open.id.as_str();
    Some(match open.kind {
        OpenKind::TextMessage => event::text_message_end(id).owned_by(owner).into(),
        OpenKind::ToolCall => event::tool_call_end(id).owned_by(owner).into(),
        OpenKind::ReasoningSpan => event::reasoning_end(id).owned_by(owner).into(),
        OpenKind::ReasoningMessage => event::reasoning_message_end(id).owned_by(owner).into(),
        OpenKind::Step => event::step_finished(id).owned_by(owner).into(),
        _ => return None,
    })
}

/// The order a turn is closed in: reasoning messages, their spans, text, tool calls.
const TURN: [OpenKind; 4] = [
    OpenKind::ReasoningMessage,
    OpenKind::ReasoningSpan,
    OpenKind::TextMessage,
    OpenKind::ToolCall,
];

impl RunEmitter {
    /// Counts a model call's usage (a [`ProviderUsage`](crate::ProviderUsage) is mapped with
    /// AG-UI's accounting); the totals per (provider, model) go on `RUN_FINISHED` /
    /// `RUN_ERROR`.
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
    /// use ag_ui_builders::{BuildError, ModelChunk, RunEmitter};
    ///
    /// let mut run = RunEmitter::start("thread-1", "run-1");
    /// run.push(ModelChunk::ToolCallStart { id: "call_1".into(), name: "search".into() })?;
    /// run.push(ModelChunk::ToolCallDelta { id: "call_1".into(), delta: r#"{"q":"#.into() })?;
    /// assert!(matches!(run.finish(), Err(BuildError::IncompleteArguments { .. })));
    /// run.fail("the model's output was cut off")?;
    /// # Ok::<(), ag_ui_builders::BuildError>(())
    /// ```
    ///
    /// # Errors
    /// [`BuildError::IncompleteArguments`]; [`BuildError::SubagentActive`]; [`BuildError::RunEnded`].
    pub fn finish(&mut self) -> Result<(), BuildError> {
        let outcome = success_pending(self.unanswered_tool_calls());
        self.finish_with(outcome, None)
    }

    /// As [`finish`](Self::finish), with a `result` value.
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    pub fn finish_with_result(&mut self, result: impl Into<Value>) -> Result<(), BuildError> {
        let outcome = success_pending(self.unanswered_tool_calls());
        self.finish_with(outcome, Some(result.into()))
    }

    /// Pauses the run on `interrupts` (`RUN_FINISHED` with the `interrupt` outcome). Mint
    /// their ids with [`new_interrupt_id`](Self::new_interrupt_id).
    ///
    /// # Errors
    /// [`BuildError::NoInterrupts`] when `interrupts` is empty; [`BuildError::DuplicateInterrupt`] when
    /// two interrupts share an id; as [`finish`](Self::finish) (a tool-approval interrupt for a
    /// call whose arguments are not complete JSON is refused).
    pub fn interrupt(
        &mut self,
        interrupts: impl IntoIterator<Item = Interrupt>,
    ) -> Result<(), BuildError> {
        self.live()?;
        let outcome = interrupted(interrupts)?;
        self.finish_with(outcome, None)
    }

    /// Ends the run as cancelled (not an error, nothing to resume).
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    pub fn cancel(&mut self) -> Result<(), BuildError> {
        self.finish_with(cancelled(), None)
    }

    /// Ends the run with `RUN_FINISHED` carrying `outcome` (and `result`), after closing
    /// what is open.
    ///
    /// # Errors
    /// [`BuildError::IncompleteArguments`] when the outcome hands out a call of this run
    /// (`pendingToolCallIds`, or an interrupt's `toolCallId`) whose arguments are not
    /// complete JSON; [`BuildError::DuplicateInterrupt`] when two interrupts share an id;
    /// [`BuildError::SubagentActive`] while a subagent invocation is active; [`BuildError::RunEnded`].
    pub fn finish_with(
        &mut self,
        outcome: RunFinishedOutcome,
        result: Option<Value>,
    ) -> Result<(), BuildError> {
        self.live()?;
        if let Some(active) = self.current_subagent() {
            return Err(BuildError::SubagentActive {
                id: active.to_string(),
            });
        }
        self.check_handed_out(&outcome)?;
        self.close_all()?;
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
    /// [`BuildError::RunEnded`].
    pub fn fail(&mut self, message: impl Into<String>) -> Result<(), BuildError> {
        self.fail_inner(message.into(), None)
    }

    /// As [`fail`](Self::fail), with a machine-readable `code`.
    ///
    /// # Errors
    /// [`BuildError::RunEnded`].
    pub fn fail_with_code(
        &mut self,
        message: impl Into<String>,
        code: impl Into<String>,
    ) -> Result<(), BuildError> {
        self.fail_inner(message.into(), Some(code.into()))
    }

    // ---------------------------------------------------------------- internals

    fn fail_inner(&mut self, message: String, code: Option<String>) -> Result<(), BuildError> {
        self.live()?;
        let mut ev = event::run_error(message);
        ev.code = code;
        if !self.usage.is_empty() {
            ev.usage = Some(self.usage.entries().to_vec());
        }
        self.emit(ev)?;
        Ok(())
    }

    /// Refuses an outcome that hands out (as pending, or for approval) a call of this run
    /// whose arguments are not complete JSON, or that names one interrupt id twice.
    pub(super) fn check_handed_out(&self, outcome: &RunFinishedOutcome) -> Result<(), BuildError> {
        let mut handed_out: Vec<&ToolCallId> = Vec::new();
        match outcome {
            RunFinishedOutcome::Success(s) => {
                handed_out.extend(s.pending_tool_call_ids.iter().flatten());
            }
            RunFinishedOutcome::Interrupt(i) => {
                for (n, int) in i.interrupts.iter().enumerate() {
                    if i.interrupts[..n].iter().any(|o| o.id == int.id) {
                        return Err(BuildError::DuplicateInterrupt {
                            id: int.id.to_string(),
                        });
                    }
                    handed_out.extend(int.tool_call_id.as_ref());
                }
            }
            _ => {}
        }
        for id in handed_out {
            let arguments = self.tool_call_arguments(id.as_str());
            if let Some(arguments) = arguments
                && !complete_arguments(arguments)
            {
                return Err(BuildError::IncompleteArguments {
                    tool_call_id: id.to_string(),
                    arguments: arguments.to_owned(),
                });
            }
        }
        Ok(())
    }

    /// Closes the reasoning messages, then the reasoning spans, `owner` has open.
    pub(super) fn close_reasoning_of(
        &mut self,
        owner: Option<&SubagentRunId>,
    ) -> Result<(), BuildError> {
        self.close_kinds(&TURN[..2], |o| same_owner(o, owner))
    }

    /// Ends `owner`'s assistant turn: closes its reasoning, text and tool calls; its next
    /// text or tool call belongs to a new assistant message.
    pub(super) fn close_turn_of(
        &mut self,
        owner: Option<&SubagentRunId>,
    ) -> Result<(), BuildError> {
        self.close_kinds(&TURN, |o| same_owner(o, owner))?;
        if let Some((_, cursor)) = self.cursors.iter_mut().find(|(o, _)| o.as_ref() == owner) {
            cursor.turn = None;
        }
        Ok(())
    }

    /// Closes everything `owner` has open: its turn, then its steps, innermost first.
    pub(super) fn close_all_of(&mut self, owner: Option<&SubagentRunId>) -> Result<(), BuildError> {
        self.close_turn_of(owner)?;
        self.close_steps(|o| same_owner(o, owner))
    }

    /// Closes everything the run has open, whoever owns it (what `RUN_FINISHED` needs).
    fn close_all(&mut self) -> Result<(), BuildError> {
        self.close_kinds(&TURN, |_| true)?;
        self.cursors.clear();
        self.close_steps(|_| true)
    }

    /// Closes what `keep` selects of each of `kinds`, kind by kind, each in opening order.
    fn close_kinds(
        &mut self,
        kinds: &[OpenKind],
        keep: impl Fn(&Open) -> bool,
    ) -> Result<(), BuildError> {
        for kind in kinds {
            for open in self.open_where(|o| o.kind == *kind && keep(o)) {
                if let Some(e) = closer(&open) {
                    self.emit(e)?;
                }
            }
        }
        Ok(())
    }

    /// Finishes the steps `keep` selects, the latest started first.
    fn close_steps(&mut self, keep: impl Fn(&Open) -> bool) -> Result<(), BuildError> {
        let steps = self.open_where(|o| o.kind == OpenKind::Step && keep(o));
        for open in steps.iter().rev() {
            if let Some(e) = closer(open) {
                self.emit(e)?;
            }
        }
        Ok(())
    }
}

/// Whether `open` belongs to `owner`.
fn same_owner(open: &Open, owner: Option<&SubagentRunId>) -> bool {
    open.owner.as_deref() == owner.map(SubagentRunId::as_str)
}
