//! Backend tools: tools the agent runs in the server, between two model calls, each with
//! a [`ToolContext`] on its run.
//!
//! A model agent offers the model two kinds of tools. The **frontend** tools come with the
//! run (`RunAgentInput.tools`): the UI runs them, so a call of one ends the run with the
//! call pending (`RUN_FINISHED` with `pendingToolCallIds`) and its result arrives with the
//! next run. The **backend** tools are registered here, in Rust: a call of one runs in the
//! server, what it changed of the shared state is emitted as `STATE_DELTA`, its result as
//! `TOOL_CALL_RESULT`, and the model is called again.
//!
//! ```
//! use ag_ui_agent::{BackendTools, ToolAnswer, ToolContext};
//! use ag_ui_builders::TypedTool;
//! use ag_ui_core::{BoxError, JsonPatchOperation};
//! use serde_json::json;
//!
//! /// Arguments of `add_todo`.
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct AddTodo { text: String }
//!
//! let tools = BackendTools::new().typed(
//!     TypedTool::<AddTodo>::new("add_todo", "Add a todo to the list"),
//!     |args: AddTodo, ctx: ToolContext| async move {
//!         ctx.patch_state([JsonPatchOperation::add("/todos/-", args.text)])?;
//!         Ok::<_, BoxError>("added")
//!     },
//! );
//! let ctx = ToolContext::new("thread-1", "run-1", json!({"todos": []}));
//! let runtime = tokio::runtime::Builder::new_current_thread().build()?;
//! let answer = runtime.block_on(tools.call("add_todo", r#"{"text":"buy milk"}"#, ctx.clone()));
//! assert_eq!(answer, ToolAnswer::Output("added".into()));
//! assert_eq!(ctx.state(), json!({"todos": ["buy milk"]}));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};

use ag_ui_core::{BoxError, JsonPatch, JsonPatchOperation, PatchError, RunId, ThreadId, Tool};
use ag_ui_server::Cancellation;
use serde_json::{Value, json};

/// The future a tool handler returns: the result text, or why the tool failed.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<String, BoxError>> + Send + 'static>>;

type Handler = Arc<dyn Fn(String, ToolContext) -> ToolFuture + Send + Sync + 'static>;

/// What a backend tool answered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolAnswer {
    /// The tool's result, as the text given to the model and sent as `TOOL_CALL_RESULT`.
    Output(String),
    /// The tool failed, or its arguments did not parse: the message the model is given
    /// (as `{"error": "..."}`) so that it can correct itself.
    Error(String),
}

impl ToolAnswer {
    /// The content sent to the model and the UI: the output, or `{"error": message}`.
    #[must_use]
    pub fn into_content(self) -> String {
        match self {
            ToolAnswer::Output(text) => text,
            ToolAnswer::Error(message) => json!({ "error": message }).to_string(),
        }
    }
}

#[derive(Debug, Clone)]
struct RunInfo {
    thread_id: ThreadId,
    run_id: RunId,
    principal: Option<String>,
    headers: Vec<(String, String)>,
    cancel: Cancellation,
}

#[derive(Debug, Default)]
struct SharedState {
    state: Value,
    /// The operations applied since the loop last emitted them.
    patches: Vec<JsonPatchOperation>,
}

/// What a backend tool knows of its run, and the run's shared state it may change.
///
/// The loop gives every backend call the same context for the run: the state a tool
/// patches is the state the next tool and the next model call see. After each call, what
/// the tool changed is emitted as one `STATE_DELTA` (before its `TOOL_CALL_RESULT`, also
/// when the tool fails). The run's principal and the request headers the agent lets its
/// tools read ([`ModelAgent::tool_headers`](crate::ModelAgent::tool_headers)) come from
/// the server's [`RunContext`](ag_ui_server::RunContext). Cheap to clone.
#[derive(Clone)]
pub struct ToolContext {
    run: Arc<RunInfo>,
    state: Arc<Mutex<SharedState>>,
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("thread_id", &self.run.thread_id.as_str())
            .field("run_id", &self.run.run_id.as_str())
            .field("principal", &self.run.principal)
            .field(
                "headers",
                &self.run.headers.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("cancelled", &self.run.cancel.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// A context for run `run_id` of `thread_id` whose shared state is `state`: no
    /// principal, no headers, a cancellation signal of its own.
    #[must_use]
    pub fn new(thread_id: impl Into<ThreadId>, run_id: impl Into<RunId>, state: Value) -> Self {
        Self {
            run: Arc::new(RunInfo {
                thread_id: thread_id.into(),
                run_id: run_id.into(),
                principal: None,
                headers: Vec::new(),
                cancel: Cancellation::new(),
            }),
            state: Arc::new(Mutex::new(SharedState {
                state,
                patches: Vec::new(),
            })),
        }
    }

    fn edit_run(mut self, f: impl FnOnce(&mut RunInfo)) -> Self {
        f(Arc::make_mut(&mut self.run));
        self
    }

    /// This context with `principal` as who the run comes from.
    #[must_use]
    pub fn with_principal(self, principal: impl Into<String>) -> Self {
        let principal = principal.into();
        self.edit_run(|r| r.principal = Some(principal))
    }

    /// This context with request header `name` (case-insensitive) set to `value`.
    #[must_use]
    pub fn with_header(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let (name, value) = (name.into().to_ascii_lowercase(), value.into());
        self.edit_run(|r| r.headers.push((name, value)))
    }

    /// This context with `cancel` as the run's cancellation signal.
    #[must_use]
    pub fn with_cancellation(self, cancel: Cancellation) -> Self {
        self.edit_run(|r| r.cancel = cancel)
    }

    /// The run's thread id.
    #[must_use]
    pub fn thread_id(&self) -> &ThreadId {
        &self.run.thread_id
    }

    /// The run's id.
    #[must_use]
    pub fn run_id(&self) -> &RunId {
        &self.run.run_id
    }

    /// Who the run comes from, as the server's authentication named them
    /// ([`RunContext::principal`](ag_ui_server::RunContext::principal)); `None` when
    /// nothing did.
    #[must_use]
    pub fn principal(&self) -> Option<&str> {
        self.run.principal.as_deref()
    }

    /// The value of request header `name` (case-insensitive), when the agent lets its
    /// tools read it ([`ModelAgent::tool_headers`](crate::ModelAgent::tool_headers)) and
    /// the request had it as text.
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.run
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The run's cancellation signal: tripped when the client went away or the run was
    /// stopped. The loop stops waiting for a tool then (its future is dropped); a tool that
    /// does work outside its future checks it.
    #[must_use]
    pub fn cancellation(&self) -> &Cancellation {
        &self.run.cancel
    }

    fn shared(&self) -> MutexGuard<'_, SharedState> {
        match self.state.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The shared state as it is now (the run's `state`, with what the run's tools changed).
    #[must_use]
    pub fn state(&self) -> Value {
        self.shared().state.clone()
    }

    /// Applies a JSON Patch to the shared state, atomically: every operation applies, or
    /// none does and the error names the one that failed (the model is told, when the tool
    /// returns it). Emitted as `STATE_DELTA` when the tool returns.
    ///
    /// # Errors
    /// [`PatchError`] when an operation does not apply to the state (a missing target, a
    /// failed `test`, …).
    pub fn patch_state(
        &self,
        patch: impl IntoIterator<Item = JsonPatchOperation>,
    ) -> Result<(), PatchError> {
        let patch = JsonPatch::from(patch.into_iter().collect::<Vec<_>>());
        let mut shared = self.shared();
        patch.apply(&mut shared.state)?;
        shared.patches.extend(patch.0);
        Ok(())
    }

    /// Replaces the shared state with `state`; emitted as the JSON Patch from the state
    /// before (`ag_ui_builders::patch::diff`), nothing when unchanged.
    pub fn set_state(&self, state: Value) {
        let mut shared = self.shared();
        let patch = ag_ui_builders::patch::diff(&shared.state, &state);
        shared.patches.extend(patch.0);
        shared.state = state;
    }

    /// The operations applied since the last call.
    pub(crate) fn take_patches(&self) -> Vec<JsonPatchOperation> {
        std::mem::take(&mut self.shared().patches)
    }
}

/// The tools an agent runs in the server, each with its handler (see the
/// [module docs](self)). Cheap to clone.
#[derive(Clone, Default)]
pub struct BackendTools {
    tools: Vec<(Tool, Handler)>,
}

impl fmt::Debug for BackendTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|(t, _)| &t.name))
            .finish()
    }
}

impl BackendTools {
    /// No tools.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tool`, run by `handler` on the call's raw argument text and the run's
    /// context. A tool of the same name registered before is replaced.
    #[must_use]
    pub fn raw<F>(mut self, tool: Tool, handler: F) -> Self
    where
        F: Fn(String, ToolContext) -> ToolFuture + Send + Sync + 'static,
    {
        self.tools.retain(|(t, _)| t.name != tool.name);
        self.tools.push((tool, Arc::new(handler)));
        self
    }

    /// Adds a typed tool: the call's arguments are parsed into `T` (a parse error is
    /// answered to the model with the JSON Pointer of the offending argument), `handler`
    /// runs on them and the run's context, and its output is serialized as JSON (a string
    /// output is sent as is).
    #[must_use]
    pub fn typed<T, F, Fut, R, E>(self, tool: ag_ui_builders::TypedTool<T>, handler: F) -> Self
    where
        T: schemars::JsonSchema + serde::de::DeserializeOwned + Send + 'static,
        F: Fn(T, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
        R: serde::Serialize,
        E: Into<BoxError>,
    {
        let handler = Arc::new(handler);
        let parser = tool.clone();
        self.raw(tool.into_tool(), move |arguments: String, ctx| {
            let parsed = parser.parse_arguments(&arguments);
            let handler = Arc::clone(&handler);
            Box::pin(async move {
                let args =
                    parsed.map_err(|e| -> BoxError { format!("invalid arguments: {e}").into() })?;
                let output = handler(args, ctx).await.map_err(Into::into)?;
                let value = serde_json::to_value(&output)?;
                Ok(match value {
                    Value::String(s) => s,
                    other => other.to_string(),
                })
            })
        })
    }

    /// The tools, as the model is offered them.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter().map(|(t, _)| t)
    }

    /// Whether a tool named `name` is registered.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.tools.iter().any(|(t, _)| t.name == name)
    }

    /// Whether no tool is registered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Runs tool `name` on `arguments` with `ctx`. An unknown tool is a
    /// [`ToolAnswer::Error`].
    pub async fn call(&self, name: &str, arguments: &str, ctx: ToolContext) -> ToolAnswer {
        let Some((_, handler)) = self.tools.iter().find(|(t, _)| t.name == name) else {
            return no_such_tool(name);
        };
        match handler(arguments.to_owned(), ctx).await {
            Ok(text) => ToolAnswer::Output(text),
            Err(e) => ToolAnswer::Error(e.to_string()),
        }
    }
}

/// The answer to a call of a tool nobody offered.
pub(crate) fn no_such_tool(name: &str) -> ToolAnswer {
    ToolAnswer::Error(format!("there is no tool named {name:?}"))
}
