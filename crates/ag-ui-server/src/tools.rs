//! Backend tools: tools an agent runs in the server, between two model calls.
//!
//! A model adapter offers the model two kinds of tools. The **frontend** tools come with the
//! run (`RunAgentInput.tools`): the UI runs them, so a call of one ends the run with the
//! call pending (spec §9.2 `pendingToolCallIds`) and its result arrives with the next run.
//! The **backend** tools are registered here, in Rust: a call of one runs in the server, its
//! result is emitted as `TOOL_CALL_RESULT`, and the model is called again.
//! [`BackendTools::answer`] is that decision for one model turn, shared by every adapter.
//!
//! ```
//! # #[cfg(feature = "schemars")] {
//! use ag_ui_builders::TypedTool;
//! use ag_ui_server::tools::BackendTools;
//!
//! /// Arguments of `add`.
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct AddArgs { a: i64, b: i64 }
//!
//! let tools = BackendTools::new().typed(
//!     TypedTool::<AddArgs>::new("add", "Add two integers"),
//!     |args: AddArgs| async move { Ok::<_, std::io::Error>(args.a + args.b) },
//! );
//! assert!(tools.contains("add"));
//! let answer = futures_executor_block_on(tools.call("add", r#"{"a":2,"b":3}"#));
//! assert_eq!(answer, ag_ui_server::tools::ToolAnswer::Output("5".into()));
//! # fn futures_executor_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     let mut f = std::pin::pin!(f);
//! #     let waker = std::task::Waker::noop();
//! #     match f.as_mut().poll(&mut std::task::Context::from_waker(waker)) {
//! #         std::task::Poll::Ready(v) => v,
//! #         std::task::Poll::Pending => unreachable!("the handler is ready at once"),
//! #     }
//! # }
//! # }
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use ag_ui_core::{Tool, ToolCall};
use serde_json::json;

use crate::{EmitError, Emitter};
use ag_ui_core::BoxError;

/// The future a tool handler returns: the result text, or why the tool failed.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<String, BoxError>> + Send + 'static>>;

type Handler = Arc<dyn Fn(String) -> ToolFuture + Send + Sync + 'static>;

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

/// What to do after a model turn (see [`BackendTools::answer`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TurnEnd {
    /// The model called no tool: its answer is complete, finish the run.
    Answered,
    /// Every call was a backend one and has been answered: call the model again with
    /// these results (in the order of the calls).
    CallAgain(Vec<(ToolCall, String)>),
    /// At least one call is for a frontend tool: finish the run, the UI answers it (the
    /// backend calls of the same turn have been answered).
    Pending,
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

    /// Adds `tool`, run by `handler` on the call's raw argument text. A tool of the same
    /// name registered before is replaced.
    #[must_use]
    pub fn raw<F>(mut self, tool: Tool, handler: F) -> Self
    where
        F: Fn(String) -> ToolFuture + Send + Sync + 'static,
    {
        self.tools.retain(|(t, _)| t.name != tool.name);
        self.tools.push((tool, Arc::new(handler)));
        self
    }

    /// Adds a typed tool: the call's arguments are parsed into `T` (a parse error is
    /// answered to the model with the JSON Pointer of the offending argument), `handler`
    /// runs on them and its output is serialized as JSON (a string output is sent as is).
    #[cfg(feature = "schemars")]
    #[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
    #[must_use]
    pub fn typed<T, F, Fut, R, E>(self, tool: ag_ui_builders::TypedTool<T>, handler: F) -> Self
    where
        T: schemars::JsonSchema + serde::de::DeserializeOwned + Send + 'static,
        F: Fn(T) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
        R: serde::Serialize,
        E: Into<BoxError>,
    {
        let handler = Arc::new(handler);
        let parser = tool.clone();
        self.raw(tool.into_tool(), move |arguments: String| {
            let parsed = parser.parse_arguments(&arguments);
            let handler = Arc::clone(&handler);
            Box::pin(async move {
                let args =
                    parsed.map_err(|e| -> BoxError { format!("invalid arguments: {e}").into() })?;
                let output = handler(args).await.map_err(Into::into)?;
                let value = serde_json::to_value(&output)?;
                Ok(match value {
                    serde_json::Value::String(s) => s,
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

    /// Runs tool `name` on `arguments`. An unknown tool is a [`ToolAnswer::Error`].
    pub async fn call(&self, name: &str, arguments: &str) -> ToolAnswer {
        let Some((_, handler)) = self.tools.iter().find(|(t, _)| t.name == name) else {
            return ToolAnswer::Error(format!("there is no tool named {name:?}"));
        };
        match handler(arguments.to_owned()).await {
            Ok(text) => ToolAnswer::Output(text),
            Err(e) => ToolAnswer::Error(e.to_string()),
        }
    }

    /// Decides what follows a model turn that made `calls`: every call of a backend tool
    /// runs (in order) and its result is emitted as `TOOL_CALL_RESULT`; a call of a tool
    /// that is neither a backend tool nor one of the run's `frontend` tools is answered
    /// with an error result, so the model can correct itself. Then: no calls at all is
    /// [`TurnEnd::Answered`], a frontend call among them [`TurnEnd::Pending`], otherwise
    /// [`TurnEnd::CallAgain`] with the results.
    ///
    /// A backend tool shadows a frontend tool of the same name.
    ///
    /// # Errors
    /// [`EmitError`] when a result cannot be emitted (the client went away, or the run
    /// refused it).
    pub async fn answer(
        &self,
        run: &mut Emitter,
        calls: &[ToolCall],
        frontend: &[Tool],
    ) -> Result<TurnEnd, EmitError> {
        if calls.is_empty() {
            return Ok(TurnEnd::Answered);
        }
        let mut pending = false;
        let mut results = Vec::new();
        for call in calls {
            let name = call.function.name.as_str();
            let answer = if self.contains(name) {
                self.call(name, &call.function.arguments).await
            } else if frontend.iter().any(|t| t.name == name) {
                pending = true;
                continue;
            } else {
                ToolAnswer::Error(format!("there is no tool named {name:?}"))
            };
            let content = answer.into_content();
            let id = call.id.clone();
            let text = content.clone();
            run.emit(move |r| r.tool_call_result(id, text)).await?;
            results.push((call.clone(), content));
        }
        Ok(if pending {
            TurnEnd::Pending
        } else {
            TurnEnd::CallAgain(results)
        })
    }
}
