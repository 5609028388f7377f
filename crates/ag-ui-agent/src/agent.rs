//! [`ModelAgent`]: the agent's settings and the request of each model call. The run itself,
//! and the server's `Agent` impl, are in `driver`.

use std::fmt;
use std::sync::Arc;

use ag_ui_core::{HistoryRepair, ProviderHistory, RepairKind, RunAgentInput};

use crate::model::{CompletionModel, ModelRequest, OfferedTool, Unmapped};
use crate::tools::BackendTools;

/// How many model calls one run makes at most, by default.
pub const DEFAULT_MAX_STEPS: usize = 8;

/// `RUN_ERROR.code` when the run reached its step limit with backend tool calls still to
/// answer.
pub const CODE_STEP_LIMIT: &str = "step_limit";

/// The `CUSTOM` event's name that reports what of the run input could not be sent to the
/// model (its value: a list of [`Unmapped`], `{pointer, reason}`).
pub const UNMAPPED_EVENT: &str = "unmapped_input";

pub(crate) struct Settings<M> {
    pub(crate) model: Arc<M>,
    pub(crate) system_prompt: Option<String>,
    pub(crate) state_in_prompt: bool,
    pub(crate) tools: BackendTools,
    pub(crate) max_steps: usize,
    pub(crate) tool_headers: Vec<String>,
}

impl<M> Clone for Settings<M> {
    fn clone(&self) -> Self {
        Self {
            model: Arc::clone(&self.model),
            system_prompt: self.system_prompt.clone(),
            state_in_prompt: self.state_in_prompt,
            tools: self.tools.clone(),
            max_steps: self.max_steps,
            tool_headers: self.tool_headers.clone(),
        }
    }
}

/// An AG-UI agent driving a [`CompletionModel`]: the model-agent loop every model adapter
/// shares.
///
/// Each run sends the run's conversation, the frontend tools (`RunAgentInput.tools`), the
/// backend tools and the `context` to the model, and streams its answer as AG-UI events.
/// A turn that calls only backend tools runs them in the server with a [`ToolContext`](crate::ToolContext)
/// (what they change of the state is emitted as `STATE_DELTA`, their results as
/// `TOOL_CALL_RESULT`) and calls the model again, at most [`max_steps`](Self::max_steps)
/// times; a turn that calls a frontend tool ends the run with the call pending
/// (`RUN_FINISHED` with `pendingToolCallIds`), and the UI sends its result with the next
/// run. A history the provider would refuse (a call without a result, arguments that are
/// not JSON) is repaired for the request (`ag_ui_core::provider_history`) and each repair
/// logged at warn. Each model call runs in a `tracing` span `chat` (exported as
/// `chat {model}` with the OpenTelemetry GenAI attributes), each backend tool call in one
/// named `execute_tool`; a provider failure is logged at warn with the provider's status and
/// message; each call is reported to the run's
/// [`ModelCallHook`](ag_ui_server::telemetry::ModelCallHook) when the server installed one
/// (its metrics). Cheap to clone.
pub struct ModelAgent<M> {
    pub(crate) inner: Arc<Settings<M>>,
}

impl<M> Clone for ModelAgent<M> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<M: fmt::Debug> fmt::Debug for ModelAgent<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelAgent")
            .field("model", &self.inner.model)
            .field("tools", &self.inner.tools)
            .field("max_steps", &self.inner.max_steps)
            .finish_non_exhaustive()
    }
}

impl<M: CompletionModel> ModelAgent<M> {
    /// An agent driving `model`: no system prompt, no backend tools,
    /// [`DEFAULT_MAX_STEPS`], the state not given to the model.
    #[must_use]
    pub fn new(model: M) -> Self {
        Self {
            inner: Arc::new(Settings {
                model: Arc::new(model),
                system_prompt: None,
                state_in_prompt: false,
                tools: BackendTools::new(),
                max_steps: DEFAULT_MAX_STEPS,
                tool_headers: Vec::new(),
            }),
        }
    }

    fn edit(self, f: impl FnOnce(&mut Settings<M>)) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| (*shared).clone());
        f(&mut inner);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// A system message put first in every request.
    #[must_use]
    pub fn system_prompt(self, prompt: impl Into<String>) -> Self {
        let prompt = prompt.into();
        self.edit(|i| i.system_prompt = Some(prompt))
    }

    /// Whether the shared state is given to the model (as a system message holding its
    /// JSON, as it is at each model call); off by default.
    #[must_use]
    pub fn state_in_prompt(self, on: bool) -> Self {
        self.edit(|i| i.state_in_prompt = on)
    }

    /// The tools the server runs itself (they replace the ones given before).
    #[must_use]
    pub fn tools(self, tools: BackendTools) -> Self {
        self.edit(|i| i.tools = tools)
    }

    /// The request headers backend tools may read ([`ToolContext::header`](crate::ToolContext::header)); none by
    /// default. Names are case-insensitive.
    #[must_use]
    pub fn tool_headers<I, S>(self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let names = names.into_iter().map(|n| n.into().to_ascii_lowercase());
        self.edit(|i| i.tool_headers = names.collect())
    }

    /// How many model calls one run makes at most (at least 1; [`DEFAULT_MAX_STEPS`]).
    #[must_use]
    pub fn max_steps(self, steps: usize) -> Self {
        self.edit(|i| i.max_steps = steps.max(1))
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &M {
        &self.inner.model
    }

    /// The backend tools.
    #[must_use]
    pub fn backend_tools(&self) -> &BackendTools {
        &self.inner.tools
    }

    /// The request of the first model call for `input`, and what of the input it leaves
    /// out (each with its JSON Pointer in the input).
    #[must_use]
    pub fn request_for(&self, input: &RunAgentInput) -> (M::Request, Vec<Unmapped>) {
        let state = input.state.clone().unwrap_or_default();
        let history = ag_ui_core::provider_history(&input.messages);
        let (request, unmapped, _) = self.request(input, &state, &history, true);
        (request, unmapped)
    }

    /// The request of one model call on `history` (the run's messages and its turns so
    /// far) with the shared state as `state`; what was left out (of the input, on the first
    /// call only) and the repairs made to `history`.
    pub(crate) fn request(
        &self,
        input: &RunAgentInput,
        state: &serde_json::Value,
        history: &ProviderHistory<'_>,
        first: bool,
    ) -> (M::Request, Vec<Unmapped>, Vec<HistoryRepair>) {
        let inner = &self.inner;
        let mut system = Vec::new();
        if let Some(prompt) = &inner.system_prompt {
            system.push(prompt.clone());
        }
        if let Some(context) = input.context.as_deref().filter(|c| !c.is_empty()) {
            let mut text = String::from("Context from the application:");
            for entry in context {
                text.push_str(&format!("\n- {}: {}", entry.description, entry.value));
            }
            system.push(text);
        }
        if inner.state_in_prompt && !state.is_null() {
            system.push(format!("The application's shared state (JSON): {state}"));
        }
        let mut offered: Vec<OfferedTool<'_>> = inner
            .tools
            .tools()
            .map(|tool| OfferedTool { tool, index: None })
            .collect();
        let mut clashes = Vec::new();
        for (i, tool) in input.tools().iter().enumerate() {
            if inner.tools.contains(&tool.name) {
                clashes.push(Unmapped::new(
                    format!("/tools/{i}"),
                    format!(
                        "a backend tool is named {:?} too; the backend one is offered",
                        tool.name
                    ),
                ));
            } else {
                offered.push(OfferedTool {
                    tool,
                    index: Some(i),
                });
            }
        }
        let (request, mut unmapped) = inner.model.request(&ModelRequest {
            system,
            messages: &history.messages,
            input_len: input.messages.len(),
            tools: &offered,
        });
        if !first {
            unmapped.clear();
        } else {
            for r in &history.repairs {
                if r.kind == RepairKind::ResultWithoutCall {
                    unmapped.push(Unmapped::new(
                        format!("/messages{}", r.pointer()),
                        "the tool result answers no tool call before it in the conversation",
                    ));
                }
            }
            unmapped.extend(clashes);
        }
        (request, unmapped, history.repairs.clone())
    }
}
