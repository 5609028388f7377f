//! [`RigAgent`]: the run loop (model call, backend tools, model call again) and the
//! server's `Agent` impl.

use std::fmt;
use std::sync::Arc;

use ag_ui_builders::RunEmitter;
use ag_ui_core::{HistoryRepair, RunAgentInput, Tool};
use ag_ui_server::tools::{BackendTools, TurnEnd};
use ag_ui_server::{AgentStream, Cancellation, EmitError, Emitter, emit};
use rig_core::DynModel;
use rig_core::completion::CompletionRequest;
use rig_core::operation::Completion;

use crate::mapping::{Shape, continue_with, model_call, rig_tool, to_request};

/// How many model calls one run makes at most, by default.
pub const DEFAULT_MAX_STEPS: usize = 8;

/// `RUN_ERROR.code` when the run reached its step limit with backend tool calls still to
/// answer.
pub const CODE_STEP_LIMIT: &str = "step_limit";

/// The `CUSTOM` event's name that reports what of the run input could not be sent to the
/// model (its value: a list of [`Unmapped`](crate::Unmapped), `{pointer, reason}`).
pub const UNMAPPED_EVENT: &str = "unmapped_input";

type Configure = Arc<dyn Fn(CompletionRequest) -> CompletionRequest + Send + Sync>;

#[derive(Clone)]
struct Inner {
    model: DynModel<Completion>,
    system_prompt: Option<String>,
    state_in_prompt: bool,
    tools: BackendTools,
    max_steps: usize,
    configure: Option<Configure>,
}

/// An AG-UI agent backed by a rig completion model: any rig provider's model (OpenAI
/// chat completions or Responses, Anthropic, Gemini, Ollama, …), erased to a
/// [`DynModel<Completion>`].
///
/// Each run sends the run's conversation, the frontend tools (`RunAgentInput.tools`), the
/// backend tools and the `context` to the model, and streams its answer as AG-UI events.
/// A turn that calls only backend tools runs them in the server (their results are
/// `TOOL_CALL_RESULT` events) and calls the model again, at most
/// [`max_steps`](Self::max_steps) times; a turn that calls a frontend tool ends the run
/// with the call pending (`RUN_FINISHED` with `pendingToolCallIds`), and the UI sends its
/// result with the next run. Cheap to clone.
pub struct RigAgent {
    inner: Arc<Inner>,
}

impl Clone for RigAgent {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl fmt::Debug for RigAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigAgent")
            .field("model", &self.inner.model.name())
            .field("tools", &self.inner.tools)
            .field("max_steps", &self.inner.max_steps)
            .finish_non_exhaustive()
    }
}

impl RigAgent {
    /// An agent for `model` (a rig `Model` of any completion wire, or a `DynModel`).
    #[must_use]
    pub fn new(model: impl Into<DynModel<Completion>>) -> Self {
        Self {
            inner: Arc::new(Inner {
                model: model.into(),
                system_prompt: None,
                state_in_prompt: false,
                tools: BackendTools::new(),
                max_steps: DEFAULT_MAX_STEPS,
                configure: None,
            }),
        }
    }

    fn with_inner(self, f: impl FnOnce(&mut Inner)) -> Self {
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
        self.with_inner(|i| i.system_prompt = Some(prompt))
    }

    /// Whether the run's `state` is given to the model (as a system message holding its
    /// JSON); off by default.
    #[must_use]
    pub fn state_in_prompt(self, on: bool) -> Self {
        self.with_inner(|i| i.state_in_prompt = on)
    }

    /// The tools the server runs itself (they replace the ones given before, rig tools
    /// included).
    #[must_use]
    pub fn tools(self, tools: BackendTools) -> Self {
        self.with_inner(|i| i.tools = tools)
    }

    /// Adds a rig tool, run in the server like the other backend tools: rig parses its
    /// arguments and maps its errors; its output is rendered as rig renders it for a model.
    #[must_use]
    pub fn rig_tool<T: rig_core::tool::Tool + 'static>(self, tool: T) -> Self {
        let (described, handler) = rig_tool(tool);
        self.with_inner(|i| i.tools = std::mem::take(&mut i.tools).raw(described, handler))
    }

    /// How many model calls one run makes at most (at least 1; [`DEFAULT_MAX_STEPS`]).
    #[must_use]
    pub fn max_steps(self, steps: usize) -> Self {
        self.with_inner(|i| i.max_steps = steps.max(1))
    }

    /// Changes every request before it is sent (temperature, `max_tokens`, reasoning, …).
    #[must_use]
    pub fn configure(
        self,
        f: impl Fn(CompletionRequest) -> CompletionRequest + Send + Sync + 'static,
    ) -> Self {
        self.with_inner(|i| i.configure = Some(Arc::new(f)))
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &DynModel<Completion> {
        &self.inner.model
    }

    /// The request of the first model call for `input`, and what of the input it leaves
    /// out (each with its JSON Pointer in the input).
    #[must_use]
    pub fn request_for(&self, input: &RunAgentInput) -> (CompletionRequest, Vec<crate::Unmapped>) {
        let (request, unmapped, _) = self.build(input);
        (request, unmapped)
    }

    /// [`Self::request_for`], and what of the history was repaired.
    fn build(
        &self,
        input: &RunAgentInput,
    ) -> (CompletionRequest, Vec<crate::Unmapped>, Vec<HistoryRepair>) {
        let inner = &self.inner;
        let shape = Shape {
            system_prompt: inner.system_prompt.as_deref(),
            state_in_prompt: inner.state_in_prompt,
            backend_tools: inner.tools.tools().collect(),
        };
        let (mut request, unmapped, repairs) = to_request(input, &shape);
        if let Some(configure) = &inner.configure {
            request = configure(request);
        }
        (request, unmapped, repairs)
    }

    /// Runs `input`: the event stream of the run (what the server's `Agent` impl returns).
    pub fn stream(&self, input: RunAgentInput, cancel: Cancellation) -> AgentStream {
        let agent = self.clone();
        // Random ids (UUID v4): the tool-call ids rig sends back to a provider must be
        // short (OpenAI allows 40 characters), which ids derived from a client's run id
        // are not.
        emit(RunEmitter::start_for(&input), move |mut run| async move {
            agent.drive(&mut run, &input, &cancel).await
        })
    }

    async fn drive(
        &self,
        run: &mut Emitter,
        input: &RunAgentInput,
        cancel: &Cancellation,
    ) -> Result<(), EmitError> {
        let (mut request, unmapped, repairs) = self.build(input);
        log_repairs(input, "the run's history", &repairs);
        if !unmapped.is_empty() {
            let value = serde_json::to_value(&unmapped).unwrap_or_default();
            run.emit(|r| r.custom(UNMAPPED_EVENT, value)).await?;
        }
        let frontend: &[Tool] = input.tools();
        for step in 1..=self.inner.max_steps {
            let Some(turn) = model_call(&self.inner.model, request.clone(), run, cancel).await?
            else {
                return Ok(());
            };
            match self.inner.tools.answer(run, &turn.calls, frontend).await? {
                TurnEnd::CallAgain(results) => {
                    if step == self.inner.max_steps {
                        break;
                    }
                    let repairs = continue_with(&mut request, &turn.text, &results);
                    log_repairs(input, "the model's turn", &repairs);
                }
                _ => return run.emit(RunEmitter::finish).await,
            }
        }
        let message = format!(
            "the run reached its limit of {} model calls",
            self.inner.max_steps
        );
        run.emit(|r| r.fail_with_code(message, CODE_STEP_LIMIT))
            .await
    }
}

/// Logs at warn what was changed in the request so that the provider accepts it (see
/// `ag_ui_core::provider_history`); the thread and the events are left as they are.
fn log_repairs(input: &RunAgentInput, what: &str, repairs: &[HistoryRepair]) {
    for r in repairs {
        tracing::warn!(
            thread_id = %input.thread_id,
            run_id = %input.run_id,
            tool_call_id = %r.tool_call_id,
            repair = r.kind.as_str(),
            "{what} was changed for the model provider: {r}"
        );
    }
}

// The server's `Agent` trait: the one place this crate meets it.
impl ag_ui_server::Agent for RigAgent {
    fn run(&self, input: RunAgentInput, cancel: Cancellation) -> AgentStream {
        self.stream(input, cancel)
    }
}
