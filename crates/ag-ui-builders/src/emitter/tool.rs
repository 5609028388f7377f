//! Tool calls: start, arguments, end, and their results.

use ag_ui_core::stream::verify::{EntityKind, OpenKind};
use ag_ui_core::{Content, MessageId, SubagentRunId, ToolCallId};

use super::run::{Attribute, Call, MINT_ATTEMPTS, RunEmitter};
use crate::error::BuildError;
use crate::event;
use crate::tool::IntoArguments;

impl RunEmitter {
    /// Starts a call of `name` with a minted id (one not used in this run), attached to the
    /// current assistant message (the open text message is closed). Returns the call id.
    ///
    /// # Errors
    /// [`BuildError::RunEnded`]; [`BuildError::AlreadyOpen`] when the generator keeps returning used
    /// ids.
    pub fn tool_call_start(&mut self, name: impl Into<String>) -> Result<ToolCallId, BuildError> {
        self.live()?;
        let mut last = String::new();
        for _ in 0..MINT_ATTEMPTS {
            let id = self.ids.tool_call_id();
            let used = self.call(id.as_str()).is_some()
                || self.owner_of(EntityKind::ToolCall, id.as_str()).is_some();
            if !used {
                self.tool_call_start_with_id(id.clone(), name)?;
                return Ok(id);
            }
            last = id.into_string();
        }
        Err(BuildError::AlreadyOpen {
            kind: "tool call",
            id: last,
        })
    }

    /// Starts call `id` (a provider's call id) of `name`.
    ///
    /// # Errors
    /// [`BuildError::AlreadyOpen`] when call `id` was already started in this run (open or not:
    /// tool-call ids are unique within a run, spec §9.5) or answered in it;
    /// [`BuildError::RunEnded`].
    pub fn tool_call_start_with_id(
        &mut self,
        id: impl Into<ToolCallId>,
        name: impl Into<String>,
    ) -> Result<(), BuildError> {
        self.live()?;
        let id = id.into();
        if self.call(id.as_str()).is_some() {
            return Err(BuildError::AlreadyOpen {
                kind: "tool call",
                id: id.into_string(),
            });
        }
        let owner = self.owner();
        let parent = match self.cursor_of(owner.as_ref()).and_then(|c| c.turn.clone()) {
            Some(p) => p,
            None => self.mint_message_id()?,
        };
        self.close_reasoning_of(owner.as_ref())?;
        self.close_text_of(owner.as_ref())?;
        self.cursor_mut(owner.as_ref()).turn = Some(parent.clone());
        self.emit(
            event::tool_call_start(id.clone(), name)
                .with_parent_message_id(parent)
                .owned_by(owner.as_ref()),
        )?;
        self.add_call(Call {
            id,
            arguments: Some(String::new()),
            answered: false,
        });
        Ok(())
    }

    /// Appends an argument fragment to open call `id` (an empty fragment is allowed).
    ///
    /// # Errors
    /// [`BuildError::NotOpen`] when call `id` is not open; [`BuildError::RunEnded`].
    pub fn tool_call_args(
        &mut self,
        id: impl Into<ToolCallId>,
        delta: impl Into<String>,
    ) -> Result<(), BuildError> {
        self.live()?;
        let id = id.into();
        let owner = self.open_call_owner(&id)?;
        let delta = delta.into();
        self.emit(event::tool_call_args(id.clone(), delta.clone()).owned_by(owner.as_ref()))?;
        self.record_arguments(&id, &delta);
        Ok(())
    }

    /// Marks the arguments of open call `id` complete.
    ///
    /// # Errors
    /// [`BuildError::NotOpen`] when call `id` is not open; [`BuildError::RunEnded`].
    pub fn tool_call_end(&mut self, id: impl Into<ToolCallId>) -> Result<(), BuildError> {
        self.live()?;
        let id = id.into();
        let owner = self.open_call_owner(&id)?;
        self.emit(event::tool_call_end(id).owned_by(owner.as_ref()))
    }

    /// A whole call: start (minted id), arguments, end. Returns the call id.
    ///
    /// # Errors
    /// [`BuildError::RunEnded`].
    pub fn tool_call(
        &mut self,
        name: impl Into<String>,
        arguments: impl IntoArguments,
    ) -> Result<ToolCallId, BuildError> {
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
    /// [`BuildError::RunEnded`]; [`BuildError::AlreadyOpen`] when the generator keeps returning used
    /// ids.
    pub fn tool_call_result(
        &mut self,
        tool_call_id: impl Into<ToolCallId>,
        content: impl Into<Content>,
    ) -> Result<MessageId, BuildError> {
        self.live()?;
        let call = tool_call_id.into();
        let id = self.mint_message_id()?;
        if let Ok(owner) = self.open_call_owner(&call) {
            self.emit(event::tool_call_end(call.clone()).owned_by(owner.as_ref()))?;
        }
        let owner = self.owner();
        self.close_turn_of(owner.as_ref())?;
        self.emit(
            event::tool_call_result(id.clone(), call.clone(), content).owned_by(owner.as_ref()),
        )?;
        self.record_answer(call);
        Ok(id)
    }

    /// The owner of open call `id`.
    fn open_call_owner(&self, id: &ToolCallId) -> Result<Option<SubagentRunId>, BuildError> {
        if !self.verifier.is_open(OpenKind::ToolCall, id.as_str()) {
            return Err(BuildError::NotOpen {
                kind: "tool call",
                id: id.to_string(),
            });
        }
        Ok(self.owner_of(EntityKind::ToolCall, id.as_str()).flatten())
    }

    /// Counts `delta` into the argument text of call `id` of this run.
    pub(super) fn record_arguments(&mut self, id: &ToolCallId, delta: &str) {
        if let Some(args) = self
            .call_mut(id.as_str())
            .and_then(|c| c.arguments.as_mut())
        {
            args.push_str(delta);
        }
    }

    /// Counts call `id` as answered in this run.
    pub(super) fn record_answer(&mut self, id: ToolCallId) {
        match self.call_mut(id.as_str()) {
            Some(c) => c.answered = true,
            None => self.add_call(Call {
                id,
                arguments: None,
                answered: true,
            }),
        }
    }
}
