//! The completion-model trait a model adapter implements, and what crosses it: the request
//! of one model call in AG-UI terms ([`ModelRequest`]), the model's streamed answer
//! ([`ModelEvent`]) and its failures ([`ModelError`]).

use std::fmt;
use std::pin::Pin;

use ag_ui_builders::ProviderUsage;
use ag_ui_core::{ProviderMessage, Tool};
use futures_util::Stream;

/// `RUN_ERROR.code` when the provider failed (refused the request, or failed mid-stream).
pub const CODE_PROVIDER_ERROR: &str = "provider_error";
/// `RUN_ERROR.code` when the provider's stream ended before the model finished.
pub const CODE_INCOMPLETE: &str = "provider_incomplete";
/// `RUN_ERROR.code` when the model stopped at its output token limit.
pub const CODE_LENGTH: &str = "length";
/// `RUN_ERROR.code` when the provider filtered the answer.
pub const CODE_CONTENT_FILTER: &str = "content_filter";

/// Something of the run input the model's request has no place for, and that was left out
/// of it: where it is (a JSON Pointer into the `RunAgentInput`) and why. A run reports them
/// in one `CUSTOM` event named [`UNMAPPED_EVENT`](crate::UNMAPPED_EVENT).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Unmapped {
    /// The JSON Pointer of the item in the run input, e.g. `/messages/2/content/1`.
    pub pointer: String,
    /// Why it was left out.
    pub reason: String,
}

impl Unmapped {
    /// `pointer` was left out because of `reason`.
    #[must_use]
    pub fn new(pointer: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            reason: reason.into(),
        }
    }
}

/// A tool the model is offered.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct OfferedTool<'a> {
    /// The tool.
    pub tool: &'a Tool,
    /// Its index in `RunAgentInput.tools` for a frontend tool; `None` for a backend tool.
    pub index: Option<usize>,
}

impl OfferedTool<'_> {
    /// The JSON Pointer of the tool in the run input (`/tools/3`), or `""` for a backend
    /// tool.
    #[must_use]
    pub fn pointer(&self) -> String {
        self.index
            .map(|i| format!("/tools/{i}"))
            .unwrap_or_default()
    }
}

/// The JSON Pointer of a message of [`ModelRequest::messages`] in the run input
/// (`/messages/3`), or `""` for a message the run added (a result noted as missing, a turn
/// of this run).
#[must_use]
pub fn message_pointer(message: &ProviderMessage<'_>, input_len: usize) -> String {
    match message.index {
        Some(i) if i < input_len => format!("/messages/{i}"),
        _ => String::new(),
    }
}

/// One model call, in AG-UI terms: what an adapter maps to its library's request.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ModelRequest<'a> {
    /// System texts, in this order: the agent's system prompt, the run's `context`, the
    /// shared state (when the agent gives it to the model) as it is at this call.
    pub system: Vec<String>,
    /// The conversation, as a provider accepts it (`ag_ui_core::provider_history`): the
    /// run's messages, then this run's turns so far (the model's tool calls and the backend
    /// tools' results).
    pub messages: &'a [ProviderMessage<'a>],
    /// How many of [`messages`](Self::messages)' indices are the run input's (see
    /// [`message_pointer`]).
    pub input_len: usize,
    /// The tools offered: the backend tools, then the run's frontend tools that no backend
    /// tool shadows.
    pub tools: &'a [OfferedTool<'a>],
}

/// Why a model's answer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Finish {
    /// The model finished its answer (or its tool calls).
    Stop,
    /// The model stopped at its output token limit: the run ends with [`CODE_LENGTH`].
    Length,
    /// The provider filtered the answer: the run ends with [`CODE_CONTENT_FILTER`].
    ContentFilter,
}

/// One piece of a model's streamed answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelEvent {
    /// A fragment of the answer text (a refusal is answer text too).
    Text(String),
    /// A fragment of visible reasoning.
    Reasoning(String),
    /// A fragment of tool call `index`. The first fragment of an index names the tool; a
    /// fragment whose `id` differs from the call open at its index starts another call (a
    /// server that numbers every call 0 tells them apart by id).
    ToolCall {
        /// The call's index in the turn.
        index: u64,
        /// The provider's call id, when this fragment has it (kept as the AG-UI call id;
        /// one is minted otherwise).
        id: Option<String>,
        /// The tool's name, when this fragment has it.
        name: Option<String>,
        /// A fragment of the JSON arguments (may be empty).
        arguments: String,
    },
    /// Tool call `index` is complete; `arguments` are its whole arguments, used when none
    /// were streamed (a provider that sends a call whole).
    ToolCallEnd {
        /// The call's index in the turn.
        index: u64,
        /// The whole arguments, when the adapter has them.
        arguments: Option<String>,
    },
    /// The usage of this model call (the last one given counts).
    Usage(ProviderUsage),
    /// The answer is complete. A stream that ends without it ends the run with
    /// [`CODE_INCOMPLETE`].
    Finish(Finish),
}

/// A model call that failed: `RUN_ERROR` with this code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    code: &'static str,
    message: String,
    status: Option<u16>,
    detail: Option<String>,
}

impl ModelError {
    /// The provider failed ([`CODE_PROVIDER_ERROR`]). `message` is sent to the client: it
    /// says what kind of failure it was and nothing the provider wrote (which can quote the
    /// request, keys or internal addresses).
    #[must_use]
    pub fn provider(message: impl Into<String>) -> Self {
        Self {
            code: CODE_PROVIDER_ERROR,
            message: message.into(),
            status: None,
            detail: None,
        }
    }

    /// The provider's stream ended before the model finished ([`CODE_INCOMPLETE`]).
    #[must_use]
    pub fn incomplete() -> Self {
        Self {
            code: CODE_INCOMPLETE,
            message: "the model provider's stream ended before the model finished".to_owned(),
            status: None,
            detail: None,
        }
    }

    /// An error of `code`.
    pub(crate) fn with_code(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            status: None,
            detail: None,
        }
    }

    /// This error with the provider's HTTP status (logged, never sent to the client).
    #[must_use]
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// This error with what the provider said (its error message, logged at warn and never
    /// sent to the client). The adapter keeps keys and prompts out of it.
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// The provider's HTTP status, when the adapter knows it.
    #[must_use]
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// What the provider said, when the adapter kept it (for the log only).
    #[must_use]
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// The `RUN_ERROR.code`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The `RUN_ERROR.message`.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ModelError {}

/// A model call's answer, streamed.
pub type ModelStream = Pin<Box<dyn Stream<Item = Result<ModelEvent, ModelError>> + Send>>;

/// A chat model as the loop ([`ModelAgent`](crate::ModelAgent)) drives it: a request made
/// from a [`ModelRequest`], then its answer streamed as [`ModelEvent`]s. A model adapter
/// implements this for its library and nothing else.
pub trait CompletionModel: Send + Sync + 'static {
    /// The library's request.
    type Request: Send + 'static;

    /// The request of one model call, and what of it the library's request cannot hold.
    fn request(&self, request: &ModelRequest<'_>) -> (Self::Request, Vec<Unmapped>);

    /// Sends `request` and streams the answer. A failure before the answer starts is the
    /// stream's first item.
    fn stream(&self, request: Self::Request) -> ModelStream;

    /// The provider's name, for spans and metrics (`gen_ai.provider.name`: `openai`…);
    /// `""` by default (unknown).
    fn provider_name(&self) -> &str {
        ""
    }

    /// The model asked for, for spans and metrics (`gen_ai.request.model`); `""` by default
    /// (unknown).
    fn model_name(&self) -> &str {
        ""
    }
}
