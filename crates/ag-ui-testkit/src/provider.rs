//! A local OpenAI-compatible model provider on 127.0.0.1:0 speaking the documented
//! chat-completions streaming wire format (`POST /v1/chat/completions`, SSE `data: {chunk}`
//! frames ending with `data: [DONE]`), scripted reply by reply, refusing the histories
//! OpenAI refuses; and the chunks of that format.
//!
//! Every model client that speaks chat completions (async-openai, rig's OpenAI provider)
//! reaches it through its base URL ([`Provider::base_url`]).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use futures_util::StreamExt;
use serde_json::{Value, json};

/// How long a test waits for anything (a run's end, a response).
pub const LIMIT: Duration = Duration::from_secs(20);

/// The model name every scenario uses.
pub const MODEL: &str = "gpt-test";

/// What the provider answers to one request.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Reply {
    /// An SSE stream of these chunks, then `data: [DONE]` when `done`.
    Stream {
        /// The chunks, each one SSE frame.
        chunks: Vec<Value>,
        /// Whether `data: [DONE]` ends the stream.
        done: bool,
    },
    /// An HTTP error with this JSON body.
    Status(u16, Value),
    /// These chunks, then nothing: the stream stays open until the client goes away (or
    /// the provider is dropped).
    Stall(Vec<Value>),
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
        Some(Reply::Stall(chunks)) => {
            let frames: Vec<Result<String, std::io::Error>> = chunks
                .iter()
                .map(|c| Ok(format!("data: {c}\n\n")))
                .collect();
            let body = futures_util::stream::iter(frames).chain(futures_util::stream::pending());
            sse_response(Body::from_stream(body))
        }
        Some(Reply::Stream { chunks, done }) => {
            let mut frames: Vec<Result<String, std::io::Error>> = chunks
                .iter()
                .map(|c| Ok(format!("data: {c}\n\n")))
                .collect();
            if done {
                frames.push(Ok("data: [DONE]\n\n".to_owned()));
            }
            sse_response(Body::from_stream(futures_util::stream::iter(frames)))
        }
    }
}

fn sse_response(body: Body) -> Response {
    let mut response = Response::new(body);
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    response
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
pub fn text_delta(delta: &str) -> Value {
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
