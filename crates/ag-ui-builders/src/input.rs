//! [`RunAgentInput`]: the short form and [`RunInputBuilder`].

use ag_ui_core::{
    Context, Message, PROTOCOL_VERSION, ResumeEntry, RunAgentInput, RunId, ThreadId, Tool,
};
use serde::Serialize;
use serde_json::Value;

use crate::conversation::Conversation;
use crate::error::{Error, to_value};
use crate::ids::IdGenerator;

/// A run input `(thread_id, run_id, messages, tools)`, declaring `protocolVersion: "1.0"`
/// and sending `tools` and `context` as arrays (empty ones included), as the official
/// client does.
#[must_use]
pub fn run_input(
    thread_id: impl Into<ThreadId>,
    run_id: impl Into<RunId>,
    messages: impl IntoIterator<Item = Message>,
    tools: impl IntoIterator<Item = Tool>,
) -> RunAgentInput {
    RunInputBuilder::new(thread_id, run_id)
        .messages(messages)
        .tools(tools)
        .build()
}

/// Builds a [`RunAgentInput`]: `protocolVersion` is `"1.0"` unless changed, `tools` and
/// `context` are always sent as arrays, `state` and `forwardedProps` only when set.
///
/// ```
/// use ag_ui_builders::{Conversation, RunInputBuilder, SequentialIds, tool, ObjectSchema};
/// use serde_json::json;
///
/// let input = RunInputBuilder::new("thread-1", "run-1")
///     .conversation(Conversation::with_ids(SequentialIds::new()).user("Weather in Oslo?"))
///     .tool(tool(
///         "get_weather",
///         "Get the weather for a city",
///         ObjectSchema::new().required_property("city", json!({"type": "string"})),
///     ))
///     .context("User locale", "nb-NO")
///     .build();
/// assert_eq!(input.protocol_version.as_deref(), Some("1.0"));
/// assert_eq!(input.tools().len(), 1);
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct RunInputBuilder {
    input: RunAgentInput,
}

impl RunInputBuilder {
    /// A builder for a run `run_id` on thread `thread_id`.
    pub fn new(thread_id: impl Into<ThreadId>, run_id: impl Into<RunId>) -> Self {
        Self {
            input: RunAgentInput::new(thread_id, run_id, Vec::new())
                .with_protocol_version(PROTOCOL_VERSION)
                .with_tools(Vec::new())
                .with_context(Vec::new()),
        }
    }

    /// A builder for a new run on a new thread, both ids minted by `ids`.
    pub fn minted(ids: &mut impl IdGenerator) -> Self {
        let thread = ids.thread_id();
        let run = ids.run_id();
        Self::new(thread, run)
    }

    /// A builder for the next run on `previous`'s thread: the same thread, a new run id,
    /// lineage (`parentRunId`) left unset.
    pub fn next_run(previous: &RunAgentInput, run_id: impl Into<RunId>) -> Self {
        Self::new(previous.thread_id.clone(), run_id)
    }

    /// Appends a message.
    pub fn message(mut self, message: impl Into<Message>) -> Self {
        self.input.messages.push(message.into());
        self
    }

    /// Appends messages.
    pub fn messages(mut self, messages: impl IntoIterator<Item = Message>) -> Self {
        self.input.messages.extend(messages);
        self
    }

    /// Appends the messages of a conversation.
    pub fn conversation(self, conversation: Conversation) -> Self {
        self.messages(conversation.build())
    }

    /// Adds a client-provided tool.
    pub fn tool(mut self, tool: impl Into<Tool>) -> Self {
        self.input
            .tools
            .get_or_insert_with(Vec::new)
            .push(tool.into());
        self
    }

    /// Adds client-provided tools.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> Self {
        self.input.tools.get_or_insert_with(Vec::new).extend(tools);
        self
    }

    /// Adds a context entry `(description, value)`.
    pub fn context(mut self, description: impl Into<String>, value: impl Into<String>) -> Self {
        self.input
            .context
            .get_or_insert_with(Vec::new)
            .push(Context::new(description, value));
        self
    }

    /// Sets the starting state (any JSON; a bare `null` means no state and is left out).
    pub fn state(mut self, state: impl Into<Value>) -> Self {
        self.input.state = Some(state.into()).filter(|s| !s.is_null());
        self
    }

    /// Sets the starting state from a serializable value.
    ///
    /// # Errors
    /// [`Error::Json`] when `state` cannot be serialized.
    pub fn state_of(self, state: &(impl Serialize + ?Sized)) -> Result<Self, Error> {
        Ok(self.state(to_value(state)?))
    }

    /// Sets `forwardedProps` (a bare `null` is left out).
    pub fn forwarded_props(mut self, props: impl Into<Value>) -> Self {
        self.input.forwarded_props = Some(props.into()).filter(|p| !p.is_null());
        self
    }

    /// Sets `parentRunId` (the run this one branches from).
    pub fn parent_run_id(mut self, run_id: impl Into<RunId>) -> Self {
        self.input.parent_run_id = Some(run_id.into());
        self
    }

    /// Adds an answer to an interrupt of the previous run (see [`crate::resolve`],
    /// [`crate::cancel`]).
    pub fn resume(mut self, entry: ResumeEntry) -> Self {
        self.input.resume.get_or_insert_with(Vec::new).push(entry);
        self
    }

    /// Sets the declared protocol version (`"1.0"` by default).
    pub fn protocol_version(mut self, version: impl Into<String>) -> Self {
        self.input.protocol_version = Some(version.into());
        self
    }

    /// Leaves `protocolVersion` out (as a pre-1.0 caller would).
    pub fn without_protocol_version(mut self) -> Self {
        self.input.protocol_version = None;
        self
    }

    /// The input.
    #[must_use]
    pub fn build(self) -> RunAgentInput {
        self.input
    }
}

impl From<RunInputBuilder> for RunAgentInput {
    fn from(b: RunInputBuilder) -> RunAgentInput {
        b.build()
    }
}
