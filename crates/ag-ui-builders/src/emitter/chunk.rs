//! A model's streamed output, fed to the emitter chunk by chunk.

use super::run::RunEmitter;
use crate::error::BuildError;
use crate::usage::ProviderUsage;

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

impl RunEmitter {
    /// Feeds one chunk of a model's streamed output.
    ///
    /// # Errors
    /// As the method each chunk maps to ([`text`](Self::text),
    /// [`text_with_id`](Self::text_with_id), [`reasoning`](Self::reasoning),
    /// [`tool_call_start_with_id`](Self::tool_call_start_with_id),
    /// [`tool_call_args`](Self::tool_call_args), [`tool_call_end`](Self::tool_call_end),
    /// [`close_turn`](Self::close_turn)).
    pub fn push(&mut self, chunk: ModelChunk) -> Result<(), BuildError> {
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
}
