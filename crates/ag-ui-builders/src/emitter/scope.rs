//! Steps and subagent invocations: what everything in between is attributed to.

use ag_ui_core::stream::verify::OpenKind;
use ag_ui_core::{InterruptId, SubagentFinishedOutcome, SubagentRunId, SubagentStartedEvent};
use serde_json::Value;

use super::run::{Attribute, RunEmitter};
use crate::error::BuildError;
use crate::event;
use crate::outcome::subagent_suspended;

impl RunEmitter {
    /// Opens step `name` for the current owner.
    ///
    /// # Errors
    /// [`BuildError::AlreadyOpen`] when that owner has the step open; [`BuildError::RunEnded`].
    pub fn step_start(&mut self, name: impl Into<String>) -> Result<(), BuildError> {
        self.live()?;
        let name = name.into();
        let owner = self.owner();
        if self.open_of(OpenKind::Step, owner.as_ref()).contains(&name) {
            return Err(BuildError::AlreadyOpen {
                kind: "step",
                id: name,
            });
        }
        self.emit(event::step_started(name).owned_by(owner.as_ref()))
    }

    /// Closes step `name` of the current owner.
    ///
    /// # Errors
    /// [`BuildError::NotOpen`] when that owner has no such step open; [`BuildError::RunEnded`].
    pub fn step_finish(&mut self, name: impl Into<String>) -> Result<(), BuildError> {
        self.live()?;
        let name = name.into();
        let owner = self.owner();
        if !self.open_of(OpenKind::Step, owner.as_ref()).contains(&name) {
            return Err(BuildError::NotOpen {
                kind: "step",
                id: name,
            });
        }
        self.emit(event::step_finished(name).owned_by(owner.as_ref()))
    }

    /// Starts a subagent invocation of `name` (minted id, returned); until it ends,
    /// everything emitted is attributed to it. Nested in an active invocation, it names that
    /// one as its parent.
    ///
    /// # Errors
    /// [`BuildError::RunEnded`].
    pub fn subagent_start(&mut self, name: impl Into<String>) -> Result<SubagentRunId, BuildError> {
        self.live()?;
        let id = self.ids.subagent_run_id();
        self.subagent_start_with(event::subagent_started(id.clone(), name))?;
        Ok(id)
    }

    /// Starts a subagent invocation described by `started` (to set `description`,
    /// `parentToolCallId`, …). Its parent defaults to the active invocation.
    ///
    /// # Errors
    /// [`BuildError::AlreadyOpen`] when the id was already used in this run; [`BuildError::NotOpen`]
    /// when the named parent never started in this run; [`BuildError::RunEnded`].
    pub fn subagent_start_with(
        &mut self,
        mut started: SubagentStartedEvent,
    ) -> Result<(), BuildError> {
        self.live()?;
        if self
            .verifier
            .has_subagent_started(started.subagent_run_id.as_str())
        {
            return Err(BuildError::AlreadyOpen {
                kind: "subagent invocation",
                id: started.subagent_run_id.into_string(),
            });
        }
        match &started.parent_subagent_run_id {
            Some(p) if !self.verifier.has_subagent_started(p.as_str()) => {
                return Err(BuildError::NotOpen {
                    kind: "subagent invocation",
                    id: p.to_string(),
                });
            }
            Some(_) => {}
            None => started.parent_subagent_run_id = self.owner(),
        }
        self.emit(started)
    }

    /// Ends the active invocation successfully (`SUBAGENT_FINISHED`), closing what it left
    /// open.
    ///
    /// # Errors
    /// [`BuildError::NotOpen`] when no invocation is active; [`BuildError::RunEnded`].
    pub fn subagent_finish(&mut self, result: Option<Value>) -> Result<(), BuildError> {
        self.end_subagent(None, result)
    }

    /// Ends the active invocation as suspended on the interrupts it raised itself.
    ///
    /// # Errors
    /// As [`subagent_finish`](Self::subagent_finish).
    pub fn subagent_suspend(
        &mut self,
        interrupt_ids: impl IntoIterator<Item = impl Into<InterruptId>>,
    ) -> Result<(), BuildError> {
        self.end_subagent(Some(subagent_suspended(interrupt_ids)), None)
    }

    /// Reports the active invocation as failed (`SUBAGENT_ERROR`), closing what it left
    /// open; the run goes on.
    ///
    /// # Errors
    /// As [`subagent_finish`](Self::subagent_finish).
    pub fn subagent_fail(&mut self, message: impl Into<String>) -> Result<(), BuildError> {
        self.live()?;
        let id = self.close_subagent()?;
        self.emit(event::subagent_error(id.clone(), message))?;
        self.drop_cursor(Some(&id));
        Ok(())
    }

    fn end_subagent(
        &mut self,
        outcome: Option<SubagentFinishedOutcome>,
        result: Option<Value>,
    ) -> Result<(), BuildError> {
        self.live()?;
        let id = self.close_subagent()?;
        let mut ev = event::subagent_finished(id.clone());
        ev.outcome = outcome;
        ev.result = result.filter(|r| !r.is_null());
        self.emit(ev)?;
        self.drop_cursor(Some(&id));
        Ok(())
    }

    /// Closes what the active invocation has open and returns its id.
    fn close_subagent(&mut self) -> Result<SubagentRunId, BuildError> {
        let Some(id) = self.owner() else {
            return Err(BuildError::NotOpen {
                kind: "subagent invocation",
                id: String::new(),
            });
        };
        self.close_all_of(Some(&id))?;
        Ok(id)
    }
}
