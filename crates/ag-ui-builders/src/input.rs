//! [`RunAgentInput`]: the short form and [`RunInputBuilder`].

use ag_ui_core::{
    Context, Interrupt, Message, PROTOCOL_VERSION, ResumeEntry, RunAgentInput, RunId, ThreadId,
    ThreadState, Tool,
};
use serde::Serialize;
use serde_json::Value;

use crate::conversation::Conversation;
use crate::error::{BuildError, to_value};
use crate::ids::IdGenerator;

/// A run input `(thread_id, run_id, messages, tools)`, declaring `protocolVersion: "1.0"`
/// and sending `tools` and `context` as arrays (empty ones included), as the official
/// client does. `messages` is a `Vec<Message>` (a list mixing message types is written with
/// [`messages!`](crate::messages!)) or a [`Conversation`].
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

/// The thread as `input` hands it to the agent: its messages and its state (`{}` when it
/// sends none). Apply the run's events to it (with `ag_ui_core::StreamConsumer::with_thread`)
/// and it holds the whole thread after the run, ready for
/// [`RunInputBuilder::thread`].
#[must_use]
pub fn thread_state(input: &RunAgentInput) -> ThreadState {
    let thread = ThreadState::new().with_messages(input.messages.clone());
    match &input.state {
        Some(state) => thread.with_state(state.clone()),
        None => thread,
    }
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

    /// A builder for the next run on `previous`'s thread, carrying everything `previous`
    /// sent: its messages, tools, context, state, `forwardedProps` and `protocolVersion`,
    /// with a new run id. Its `resume` answers and its lineage (`parentRunId`) are not
    /// carried: they were about `previous`.
    ///
    /// What the agent streamed back during the previous run (its messages, its state) is not
    /// in `previous`: take it from the `ThreadState` a stream consumer built with
    /// [`thread`](Self::thread), which replaces the messages and the state, or add messages
    /// with [`message`](Self::message).
    ///
    /// ```
    /// use ag_ui_builders::{RunInputBuilder, user_message};
    ///
    /// let first = RunInputBuilder::new("thread-1", "run-1")
    ///     .message(user_message("msg-1", "Hi"))
    ///     .context("User locale", "nb-NO")
    ///     .state(serde_json::json!({"step": 1}))
    ///     .build();
    /// let second = RunInputBuilder::next_run(&first, "run-2")
    ///     .message(user_message("msg-3", "And then?"))
    ///     .build();
    /// assert_eq!(second.run_id.as_str(), "run-2");
    /// assert_eq!(second.messages.len(), 2);
    /// assert_eq!(second.context(), first.context());
    /// assert_eq!(second.state, first.state);
    /// ```
    pub fn next_run(previous: &RunAgentInput, run_id: impl Into<RunId>) -> Self {
        let mut input = previous.clone();
        input.run_id = run_id.into();
        input.resume = None;
        input.parent_run_id = None;
        Self { input }
    }

    /// Takes the messages and the state from `thread` (what the previous runs' events made
    /// of the thread), replacing those set so far.
    ///
    /// ```
    /// use ag_ui_builders::{RunEmitter, RunInputBuilder, thread_state, user_message};
    /// use ag_ui_core::StreamConsumer;
    ///
    /// let first = RunInputBuilder::new("thread-1", "run-1")
    ///     .message(user_message("msg-1", "Hi"))
    ///     .build();
    /// // The agent answers (here in-process; normally over HTTP as SSE).
    /// let mut run = RunEmitter::start_for(&first);
    /// run.text("Hello!")?;
    /// run.state(&serde_json::json!({"greeted": true}))?;
    /// run.finish()?;
    /// let mut sse = Vec::new();
    /// for event in run.into_events() {
    ///     ag_ui_core::sse::write_sse_frame(&mut sse, &event)?;
    /// }
    /// // The client folds the stream into the thread and builds the next run from it.
    /// let mut consumer = StreamConsumer::with_thread(thread_state(&first));
    /// consumer.feed(&sse)?;
    /// consumer.finish()?;
    /// let second = RunInputBuilder::next_run(&first, "run-2")
    ///     .thread(consumer.thread())
    ///     .message(user_message("msg-3", "How are you?"))
    ///     .build();
    /// assert_eq!(second.messages.len(), 3); // user, assistant, user
    /// assert_eq!(second.state, Some(serde_json::json!({"greeted": true})));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn thread(mut self, thread: &ThreadState) -> Self {
        self.input.messages = thread.messages().to_vec();
        self.input.state = Some(thread.state().clone()).filter(|s| !s.is_null());
        self
    }

    /// As [`thread`](Self::thread), moving the messages and the state out of `thread`.
    pub fn thread_owned(mut self, thread: ThreadState) -> Self {
        let (messages, state) = thread.into_parts();
        self.input.messages = messages;
        self.input.state = Some(state).filter(|s| !s.is_null());
        self
    }

    /// Appends a message.
    pub fn message(mut self, message: impl Into<Message>) -> Self {
        self.input.messages.push(message.into());
        self
    }

    /// Appends messages (of any message type, or a [`Conversation`]; a list mixing types
    /// is written with [`messages!`](crate::messages!)).
    pub fn messages(mut self, messages: impl IntoIterator<Item = impl Into<Message>>) -> Self {
        self.input
            .messages
            .extend(messages.into_iter().map(Into::into));
        self
    }

    /// Replaces the messages.
    pub fn replace_messages(
        mut self,
        messages: impl IntoIterator<Item = impl Into<Message>>,
    ) -> Self {
        self.input.messages = messages.into_iter().map(Into::into).collect();
        self
    }

    /// Appends the messages of a conversation.
    pub fn conversation(self, conversation: Conversation) -> Self {
        self.messages(conversation)
    }

    /// Adds a client-provided tool.
    pub fn tool(mut self, tool: impl Into<Tool>) -> Self {
        self.input
            .tools
            .get_or_insert_with(Vec::new)
            .push(tool.into());
        self
    }

    /// Adds client-provided tools (`Tool`s, typed tools).
    pub fn tools(mut self, tools: impl IntoIterator<Item = impl Into<Tool>>) -> Self {
        self.input
            .tools
            .get_or_insert_with(Vec::new)
            .extend(tools.into_iter().map(Into::into));
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
    /// [`BuildError::Json`] when `state` cannot be serialized.
    pub fn state_of(self, state: &(impl Serialize + ?Sized)) -> Result<Self, BuildError> {
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

    /// Adds an answer to an interrupt of the previous run (see [`crate::interrupt::resolve`],
    /// [`crate::interrupt::cancel`]).
    pub fn resume(mut self, entry: ResumeEntry) -> Self {
        self.input.resume.get_or_insert_with(Vec::new).push(entry);
        self
    }

    /// Adds answers to interrupts of the previous run (see [`crate::interrupt::resolve_all`],
    /// [`crate::interrupt::cancel_all`]).
    pub fn resume_all(mut self, entries: impl IntoIterator<Item = ResumeEntry>) -> Self {
        self.input
            .resume
            .get_or_insert_with(Vec::new)
            .extend(entries);
        self
    }

    /// Resolves every interrupt in `interrupts` (the previous run's, which must all be
    /// answered: spec §9.2) with the payload `payload` gives for it.
    ///
    /// ```
    /// use ag_ui_builders::{RunInputBuilder, event::run_finished_interrupt, interrupt::confirmation};
    /// use serde_json::json;
    ///
    /// let paused = run_finished_interrupt("thread-1", "run-1", [confirmation("int-1", "Go?")])?;
    /// let input = RunInputBuilder::new("thread-1", "run-2")
    ///     .resolve_all(paused.interrupts(), |_| json!({"approved": true}))
    ///     .build();
    /// assert_eq!(input.resume.unwrap()[0].interrupt_id.as_str(), "int-1");
    /// # Ok::<(), ag_ui_builders::BuildError>(())
    /// ```
    pub fn resolve_all<'a>(
        self,
        interrupts: impl IntoIterator<Item = &'a Interrupt>,
        payload: impl FnMut(&Interrupt) -> Value,
    ) -> Self {
        self.resume_all(crate::interrupt::resolve_all(interrupts, payload))
    }

    /// Cancels every interrupt in `interrupts` (the previous run's).
    pub fn cancel_all<'a>(self, interrupts: impl IntoIterator<Item = &'a Interrupt>) -> Self {
        self.resume_all(crate::interrupt::cancel_all(interrupts))
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
