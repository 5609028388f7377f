//! Text messages and reasoning: deltas that open what they need, and closing.

use ag_ui_core::stream::verify::OpenKind;
use ag_ui_core::{MessageId, ProtocolVersion, ReasoningEncryptedValueSubtype, SubagentRunId};

use super::run::{Attribute, RunEmitter};
use crate::error::BuildError;
use crate::event;

impl RunEmitter {
    /// Appends `delta` to the open text message, opening one with a minted id (and closing
    /// open reasoning) when none is open. Returns the message id.
    ///
    /// # Errors
    /// [`BuildError::RunEnded`]; [`BuildError::AlreadyOpen`] when the generator keeps returning used
    /// ids.
    pub fn text(&mut self, delta: impl Into<String>) -> Result<MessageId, BuildError> {
        self.live()?;
        let owner = self.owner();
        let id = match self.text_of(owner.as_ref()) {
            Some(id) => id,
            None => {
                let id = self.mint_message_id()?;
                self.open_text(id.clone(), owner.as_ref())?;
                id
            }
        };
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
    /// # Ok::<(), ag_ui_builders::BuildError>(())
    /// ```
    ///
    /// # Errors
    /// [`BuildError::AlreadyOpen`] when `id` was used in this run by another owner (a message id
    /// keeps its owner for the whole run); [`BuildError::Violation`] when a subagent invocation
    /// writes to a message open for another owner (the rule broken names the owner on
    /// record); [`BuildError::RunEnded`].
    pub fn text_with_id(
        &mut self,
        id: impl Into<MessageId>,
        delta: impl Into<String>,
    ) -> Result<(), BuildError> {
        self.live()?;
        let id = id.into();
        let owner = self.owner();
        let recorded = self.message_owner(id.as_str());
        let open = self.verifier.is_open(OpenKind::TextMessage, id.as_str());
        // An open message is written to when it is the owner's; a subagent's write to one
        // that is not is left to the verifier, which names the owner on record and why.
        let append = open && (recorded.as_ref() == Some(&owner) || owner.is_some());
        if !append {
            if open || recorded.is_some_and(|o| o != owner) {
                return Err(BuildError::AlreadyOpen {
                    kind: "message",
                    id: id.into_string(),
                });
            }
            self.open_text(id.clone(), owner.as_ref())?;
        }
        self.emit(event::text_message_content(id.clone(), delta).owned_by(owner.as_ref()))?;
        let cursor = self.cursor_mut(owner.as_ref());
        cursor.text = Some(id.clone());
        cursor.turn = Some(id);
        Ok(())
    }

    /// Closes the text message [`text`](Self::text) appends to, if any (other open text
    /// messages stay open).
    ///
    /// # Errors
    /// [`BuildError::RunEnded`].
    pub fn close_text(&mut self) -> Result<(), BuildError> {
        self.live()?;
        let owner = self.owner();
        self.close_text_of(owner.as_ref())
    }

    /// Closes text message `id` of the current owner.
    ///
    /// # Errors
    /// [`BuildError::NotOpen`] when the current owner has no text message `id` open;
    /// [`BuildError::RunEnded`].
    pub fn text_message_end(&mut self, id: impl Into<MessageId>) -> Result<(), BuildError> {
        self.live()?;
        let id = id.into();
        let owner = self.owner();
        if !self
            .open_of(OpenKind::TextMessage, owner.as_ref())
            .iter()
            .any(|open| open == id.as_str())
        {
            return Err(BuildError::NotOpen {
                kind: "text message",
                id: id.into_string(),
            });
        }
        self.emit(event::text_message_end(id).owned_by(owner.as_ref()))
    }

    /// Ends the assistant turn: closes open text, reasoning and tool calls of the current
    /// owner; the next text or tool call belongs to a new assistant message.
    ///
    /// # Errors
    /// [`BuildError::RunEnded`].
    pub fn close_turn(&mut self) -> Result<(), BuildError> {
        self.live()?;
        let owner = self.owner();
        self.close_turn_of(owner.as_ref())
    }

    /// Appends `delta` to the open reasoning message, opening a reasoning span and message
    /// (and closing open text) when none is open. Returns the reasoning message id.
    ///
    /// # Errors
    /// [`BuildError::RunEnded`]; [`BuildError::AlreadyOpen`] when the generator keeps returning used
    /// ids.
    pub fn reasoning(&mut self, delta: impl Into<String>) -> Result<MessageId, BuildError> {
        self.live()?;
        let owner = self.owner();
        let open = self.open_of(OpenKind::ReasoningMessage, owner.as_ref());
        let id = match open.last() {
            Some(id) => MessageId::from(id.as_str()),
            None => {
                let id = self.mint_message_id()?;
                self.close_text_of(owner.as_ref())?;
                if self
                    .open_of(OpenKind::ReasoningSpan, owner.as_ref())
                    .is_empty()
                {
                    self.emit(event::reasoning_start(id.clone()).owned_by(owner.as_ref()))?;
                }
                self.emit(event::reasoning_message_start(id.clone()).owned_by(owner.as_ref()))?;
                self.cursor_mut(owner.as_ref()).reasoning = Some(id.clone());
                id
            }
        };
        self.emit(event::reasoning_message_content(id.clone(), delta).owned_by(owner.as_ref()))?;
        Ok(id)
    }

    /// Closes the open reasoning messages and spans, if any.
    ///
    /// # Errors
    /// [`BuildError::RunEnded`].
    pub fn close_reasoning(&mut self) -> Result<(), BuildError> {
        self.live()?;
        let owner = self.owner();
        self.close_reasoning_of(owner.as_ref())
    }

    /// Attaches an encrypted reasoning artefact to the last reasoning message of the current
    /// owner (`REASONING_ENCRYPTED_VALUE`, subtype `message`).
    ///
    /// # Errors
    /// [`BuildError::NotOpen`] when no reasoning message was emitted; [`BuildError::RunEnded`].
    pub fn reasoning_encrypted_value(
        &mut self,
        value: impl Into<String>,
    ) -> Result<(), BuildError> {
        self.live()?;
        let id = self.last_reasoning()?;
        self.encrypted_value(ReasoningEncryptedValueSubtype::Message, id, value)
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
    ) -> Result<(), BuildError> {
        self.live()?;
        let id = self.last_reasoning()?;
        self.typed_encrypted_value(
            ReasoningEncryptedValueSubtype::Message,
            id,
            value,
            value_type,
        )
    }

    /// [`encrypted_value`](Self::encrypted_value) with the kind of artefact the value is
    /// (`encryptedValueType`, AG-UI 1.1): the value and its type are stored together, and
    /// a later value without a type removes it.
    ///
    /// # Errors
    /// [`BuildError::NotInVersion`] when the run declared a protocol version older than 1.1 (a
    /// stream that carries the type speaks 1.1); as [`encrypted_value`](Self::encrypted_value).
    pub fn typed_encrypted_value(
        &mut self,
        subtype: ReasoningEncryptedValueSubtype,
        entity_id: impl Into<String>,
        value: impl Into<String>,
        value_type: impl Into<String>,
    ) -> Result<(), BuildError> {
        self.live()?;
        let needs = ProtocolVersion::V1_1;
        if self.protocol < needs {
            return Err(BuildError::NotInVersion {
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
    /// [`BuildError::RunEnded`].
    pub fn encrypted_value(
        &mut self,
        subtype: ReasoningEncryptedValueSubtype,
        entity_id: impl Into<String>,
        value: impl Into<String>,
    ) -> Result<(), BuildError> {
        self.live()?;
        self.encrypted_value_of(subtype, entity_id.into(), value.into(), None)
    }

    fn encrypted_value_of(
        &mut self,
        subtype: ReasoningEncryptedValueSubtype,
        entity_id: String,
        value: String,
        value_type: Option<String>,
    ) -> Result<(), BuildError> {
        let known = match subtype {
            ReasoningEncryptedValueSubtype::ToolCall => {
                self.owner_of(ag_ui_core::stream::verify::EntityKind::ToolCall, &entity_id)
            }
            ReasoningEncryptedValueSubtype::Message => self.message_owner(&entity_id),
            _ => None,
        };
        let owner = known.unwrap_or_else(|| self.owner());
        let mut e = event::reasoning_encrypted_value(subtype, entity_id, value);
        e.encrypted_value_type = value_type;
        self.emit(e.owned_by(owner.as_ref()))
    }

    /// The last reasoning message the current owner started.
    fn last_reasoning(&self) -> Result<String, BuildError> {
        self.cursor_of(self.owner().as_ref())
            .and_then(|c| c.reasoning.as_ref())
            .map(ToString::to_string)
            .ok_or(BuildError::NotOpen {
                kind: "reasoning message",
                id: String::new(),
            })
    }

    /// Opens text message `id` for `owner` (closing its open reasoning) and makes it the
    /// one text is appended to and tool calls attach to.
    fn open_text(
        &mut self,
        id: MessageId,
        owner: Option<&SubagentRunId>,
    ) -> Result<(), BuildError> {
        self.close_reasoning_of(owner)?;
        self.emit(event::text_message_start(id.clone()).owned_by(owner))?;
        let cursor = self.cursor_mut(owner);
        cursor.text = Some(id.clone());
        cursor.turn = Some(id);
        Ok(())
    }

    /// Closes the text message of `owner` that text is appended to, if it is open.
    pub(super) fn close_text_of(
        &mut self,
        owner: Option<&SubagentRunId>,
    ) -> Result<(), BuildError> {
        match self.text_of(owner) {
            Some(id) => self.emit(event::text_message_end(id).owned_by(owner)),
            None => Ok(()),
        }
    }
}
