//! The AG-UI side of the suite: an agent served over loopback, a client of it, the tools
//! every scenario registers.

use ag_ui_agent::{BackendTools, CompletionModel, ModelAgent, ToolContext};
use ag_ui_builders::TypedTool;
use ag_ui_core::{BoxError, JsonPatchOperation, Tool};
use serde_json::{Value, json};

use crate::provider::LIMIT;

/// An AG-UI server on 127.0.0.1:0 serving `agent` at `POST /`; it stops when dropped.
pub struct Served {
    addr: std::net::SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Served {
    /// Serves `agent` with the default settings.
    pub async fn start(agent: impl ag_ui_server::Agent) -> Served {
        Self::start_router(ag_ui_server::axum::router(agent)).await
    }

    /// Serves a configured `service` (resumable runs, an authorization).
    pub async fn start_service<A: ag_ui_server::Agent>(
        service: ag_ui_server::AgentService<A>,
    ) -> Served {
        Self::start_router(ag_ui_server::axum::service_router(service)).await
    }

    async fn start_router(router: axum::Router) -> Served {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            ag_ui_server::axum::serve(listener, router).await.unwrap();
        });
        Served { addr, task }
    }

    /// A client of this server on `thread`.
    pub fn client(&self, thread: &str) -> ag_ui_client::HttpAgent {
        self.client_with(thread, &[])
    }

    /// A client of this server on `thread` that sends `headers` with every request.
    pub fn client_with(&self, thread: &str, headers: &[(&str, &str)]) -> ag_ui_client::HttpAgent {
        let mut builder =
            ag_ui_client::HttpAgent::builder(format!("http://{}/", self.addr)).thread_id(thread);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.idle_timeout(LIMIT).build().unwrap()
    }
}

/// The frontend tool every scenario offers: `confirm` (the UI asks the user).
pub fn confirm_tool() -> ag_ui_core::Tool {
    ag_ui_core::Tool::new("confirm", "Ask the user to confirm an action").with_parameters(json!({
        "type": "object",
        "properties": {"question": {"type": "string"}},
        "required": ["question"]
    }))
}

/// Arguments of the backend tool `get_weather`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct WeatherArgs {
    /// The city.
    pub city: String,
}

/// Arguments of the backend tool `add_todo`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct AddTodo {
    /// The todo.
    pub text: String,
}

/// The backend tools every scenario registers: `get_weather` (typed), `add_todo` (adds a
/// todo to the shared state), `whoami` (what its context knows of the run) and `wait`
/// (never answers: it waits for the run's cancellation).
pub fn backend_tools() -> BackendTools {
    BackendTools::new()
        .typed(
            TypedTool::<WeatherArgs>::new("get_weather", "The weather in a city")
                .with_clean_schema(),
            |args: WeatherArgs, _ctx| async move {
                Ok::<_, std::io::Error>(json!({"city": args.city, "temperature": 14}))
            },
        )
        // The five lines of a tool that changes the shared state.
        .typed(
            TypedTool::<AddTodo>::new("add_todo", "Add a todo to the list"),
            |args: AddTodo, ctx: ToolContext| async move {
                ctx.patch_state([JsonPatchOperation::add("/todos/-", args.text)])?;
                Ok::<_, BoxError>("added")
            },
        )
        .raw(
            Tool::new("whoami", "Who runs this run"),
            |_arguments, ctx: ToolContext| {
                Box::pin(async move {
                    Ok(json!({
                        "threadId": ctx.thread_id().as_str(),
                        "runId": ctx.run_id().as_str(),
                        "principal": ctx.principal(),
                        "tenant": ctx.header("X-Tenant"),
                        "secret": ctx.header("x-secret"),
                    })
                    .to_string())
                })
            },
        )
        .raw(
            Tool::new("wait", "Wait for a long time"),
            |_arguments, ctx: ToolContext| {
                Box::pin(async move {
                    ctx.cancellation().cancelled().await;
                    Ok("cancelled".to_owned())
                })
            },
        )
}

/// The agent every scenario runs: `model` with the [`backend_tools`], at most `max_steps`
/// model calls, the shared state given to the model, and the `x-tenant` header readable by
/// the tools.
pub fn agent<M: CompletionModel>(model: M, max_steps: usize) -> ModelAgent<M> {
    ModelAgent::new(model)
        .tools(backend_tools())
        .max_steps(max_steps)
        .state_in_prompt(true)
        .tool_headers(["x-tenant"])
}

/// Reads a run of the workspace's client to its end: the events delivered (as JSON) and
/// how the run ended.
pub async fn drain(mut stream: ag_ui_client::HttpRun<'_>) -> (Vec<Value>, ag_ui_client::RunEnd) {
    use futures_util::StreamExt;
    let mut events = Vec::new();
    let end = tokio::time::timeout(LIMIT, async {
        while let Some(item) = stream.next().await {
            match item {
                ag_ui_client::RunItem::Event(e) => events.push(serde_json::to_value(&e).unwrap()),
                ag_ui_client::RunItem::End(end) => return end,
                _ => {}
            }
        }
        panic!("the run's stream ended without its end")
    })
    .await
    .unwrap();
    (events, end)
}

/// The `type` of each event.
pub fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

/// The events of `kind`.
pub fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}
