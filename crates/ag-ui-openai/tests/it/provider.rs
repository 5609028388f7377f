//! A local OpenAI-compatible provider on 127.0.0.1:0 speaking the documented chat-completions
//! streaming wire format (`POST /v1/chat/completions`, SSE `data: {chunk}` frames ending with
//! `data: [DONE]`), the chunks the scenarios stream, and an AG-UI server around an agent.
//!
//! Shared by the tests of `ag-ui-openai` and `ag-ui-rig` (which talks to the same wire).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use serde_json::{Value, json};

/// Every test is bounded in time.
pub const LIMIT: Duration = Duration::from_secs(20);

/// The model name every scenario uses.
pub const MODEL: &str = "gpt-test";

/// What the provider answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// An SSE stream of these chunks, then `data: [DONE]` when `done`.
    Stream { chunks: Vec<Value>, done: bool },
    /// An HTTP error with this JSON body.
    Status(u16, Value),
}

impl Reply {
    /// A complete stream.
    pub fn stream(chunks: Vec<Value>) -> Reply {
        Reply::Stream { chunks, done: true }
    }

    /// A stream cut short: no `[DONE]`.
    pub fn cut(chunks: Vec<Value>) -> Reply {
        Reply::Stream {
            chunks,
            done: false,
        }
    }
}

#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Value>>,
}

/// The running provider; it stops when dropped.
pub struct Provider {
    addr: std::net::SocketAddr,
    script: Arc<Script>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Provider {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Provider {
    /// A provider answering the requests it gets with `replies`, in order.
    pub async fn start(replies: Vec<Reply>) -> Provider {
        let script = Arc::new(Script {
            replies: Mutex::new(replies.into()),
            requests: Mutex::default(),
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(complete))
            .with_state(Arc::clone(&script));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Provider { addr, script, task }
    }

    /// The base URL clients are given (`…/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The request bodies received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.script.requests.lock().unwrap().clone()
    }
}

async fn complete(State(script): State<Arc<Script>>, body: String) -> Response {
    let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let refusal = refuse_history(&request);
    script.requests.lock().unwrap().push(request);
    if let Some(error) = refusal {
        return json_response(400, &error);
    }
    let reply = script.replies.lock().unwrap().pop_front();
    match reply {
        None => json_response(
            500,
            &json!({"error": {"message": "no scripted reply left", "type": "test_error"}}),
        ),
        Some(Reply::Status(status, body)) => json_response(status, &body),
        Some(Reply::Stream { chunks, done }) => {
            let mut frames: Vec<Result<String, std::io::Error>> = chunks
                .iter()
                .map(|c| Ok(format!("data: {c}\n\n")))
                .collect();
            if done {
                frames.push(Ok("data: [DONE]\n\n".to_owned()));
            }
            let mut response = Response::new(Body::from_stream(futures_util::stream::iter(frames)));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            );
            response
        }
    }
}

/// The HTTP 400 body OpenAI answers for a conversation it refuses: an assistant message
/// whose `tool_calls` are not each answered by a tool message right after it, a tool
/// message that follows no call of its id, or call arguments that are not JSON. `None`
/// for a conversation it accepts.
pub fn refuse_history(request: &Value) -> Option<Value> {
    let invalid = |message: String, param: String| {
        Some(json!({"error": {
            "message": message, "type": "invalid_request_error", "param": param, "code": null
        }}))
    };
    let unanswered = |open: &[String], i: usize| {
        invalid(
            format!(
                "An assistant message with 'tool_calls' must be followed by tool messages \
                 responding to each 'tool_call_id'. The following tool_call_ids did not have \
                 response messages: {}",
                open.join(", ")
            ),
            format!("messages.[{i}].role"),
        )
    };
    let messages = request["messages"].as_array()?;
    // The calls of the last assistant message while only tool messages followed it, and
    // those of them no tool message answered yet.
    let mut calls: Vec<String> = Vec::new();
    let mut open: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if m["role"] != "tool" {
            if !open.is_empty() {
                return unanswered(&open, i);
            }
            calls.clear();
        }
        match m["role"].as_str() {
            Some("assistant") => {
                for (k, call) in m["tool_calls"].as_array().into_iter().flatten().enumerate() {
                    let arguments = call["function"]["arguments"].as_str().unwrap_or_default();
                    if serde_json::from_str::<Value>(arguments).is_err() {
                        return invalid(
                            format!(
                                "Invalid value for 'messages[{i}].tool_calls[{k}].function.\
                                 arguments': not valid JSON."
                            ),
                            format!("messages.[{i}].tool_calls.[{k}].function.arguments"),
                        );
                    }
                    calls.push(call["id"].as_str().unwrap_or_default().to_owned());
                }
                open.clone_from(&calls);
            }
            Some("tool") => {
                let id = m["tool_call_id"].as_str().unwrap_or_default();
                if !calls.iter().any(|c| c == id) {
                    return invalid(
                        "Invalid parameter: messages with role 'tool' must be a response to a \
                         preceeding message with 'tool_calls'."
                            .to_owned(),
                        format!("messages.[{i}].role"),
                    );
                }
                open.retain(|c| c != id);
            }
            _ => {}
        }
    }
    if !open.is_empty() {
        return unanswered(&open, messages.len());
    }
    None
}

fn json_response(status: u16, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = StatusCode::from_u16(status).unwrap();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

// ---------------------------------------------------------------- chunks (the wire format)

fn chunk(choices: Value, usage: Value) -> Value {
    let mut c = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": MODEL,
        "system_fingerprint": "fp_test",
        "choices": choices,
    });
    if !usage.is_null() {
        c["usage"] = usage;
    }
    c
}

/// The first chunk of an answer: the role.
pub fn role() -> Value {
    chunk(
        json!([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]),
        Value::Null,
    )
}

/// A text delta.
pub fn text(delta: &str) -> Value {
    chunk(
        json!([{"index": 0, "delta": {"content": delta}, "finish_reason": null}]),
        Value::Null,
    )
}

/// A reasoning delta as DeepSeek, vLLM and llama.cpp stream it (`reasoning_content`).
pub fn reasoning(delta: &str) -> Value {
    chunk(
        json!([{"index": 0, "delta": {"reasoning_content": delta}, "finish_reason": null}]),
        Value::Null,
    )
}

/// A refusal delta.
pub fn refusal(delta: &str) -> Value {
    chunk(
        json!([{"index": 0, "delta": {"refusal": delta}, "finish_reason": null}]),
        Value::Null,
    )
}

/// The first delta of tool call `index`: its id, its name, the first argument fragment.
pub fn call_start(index: u32, id: &str, name: &str, args: &str) -> Value {
    chunk(
        json!([{"index": 0, "delta": {"tool_calls": [{
            "index": index, "id": id, "type": "function",
            "function": {"name": name, "arguments": args}
        }]}, "finish_reason": null}]),
        Value::Null,
    )
}

/// An argument fragment of tool call `index` (named by index only, as OpenAI streams it).
pub fn call_args(index: u32, args: &str) -> Value {
    chunk(
        json!([{"index": 0, "delta": {"tool_calls": [{
            "index": index, "function": {"arguments": args}
        }]}, "finish_reason": null}]),
        Value::Null,
    )
}

/// The last chunk of the choice.
pub fn finish(reason: &str) -> Value {
    chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": reason}]),
        Value::Null,
    )
}

/// The usage chunk (`stream_options.include_usage`): no choices.
pub fn usage(prompt: u32, completion: u32, cached: u32, reasoning: u32) -> Value {
    chunk(
        json!([]),
        json!({
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": reasoning, "audio_tokens": 0,
                "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0
            }
        }),
    )
}

/// The error object a provider streams instead of a chunk.
pub fn stream_error() -> Value {
    json!({"error": {
        "message": "internal detail: upstream 10.0.0.7 timed out for key sk-secret",
        "type": "server_error",
        "param": null,
        "code": "upstream_timeout"
    }})
}

// ---------------------------------------------------------------- the AG-UI side

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
    pub async fn start(agent: impl ag_ui_server::Agent) -> Served {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = ag_ui_server::axum::router(agent);
        let task = tokio::spawn(async move {
            ag_ui_server::axum::serve(listener, router).await.unwrap();
        });
        Served { addr, task }
    }

    /// A client of this server on `thread`.
    pub fn client(&self, thread: &str) -> ag_ui_client::HttpAgent {
        ag_ui_client::HttpAgent::builder(format!("http://{}/", self.addr))
            .thread_id(thread)
            .idle_timeout(LIMIT)
            .build()
            .unwrap()
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
pub struct WeatherArgs {
    /// The city.
    pub city: String,
}

/// The backend tools every scenario registers: `get_weather` (typed).
pub fn backend_tools() -> ag_ui_server::tools::BackendTools {
    ag_ui_server::tools::BackendTools::new().typed(
        ag_ui_builders::TypedTool::<WeatherArgs>::new("get_weather", "The weather in a city")
            .with_clean_schema(),
        |args: WeatherArgs| async move {
            Ok::<_, std::io::Error>(json!({"city": args.city, "temperature": 14}))
        },
    )
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
