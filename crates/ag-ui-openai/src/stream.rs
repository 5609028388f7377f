//! One model call: a chat-completions chunk stream turned into AG-UI events.

use ag_ui_builders::{Accounting, ProviderUsage, RunEmitter, tool_call};
use ag_ui_core::ToolCall;
use ag_ui_server::{Cancellation, EmitError, Emitter};
use async_openai::Client;
use async_openai::config::Config;
use async_openai::error::OpenAIError;
use async_openai::types::chat::{
    CompletionUsage, CreateChatCompletionRequest, CreateChatCompletionStreamResponse, FinishReason,
};
use futures_util::StreamExt;

/// `RUN_ERROR.code` when the provider failed (refused the request, or failed mid-stream).
pub const CODE_PROVIDER_ERROR: &str = "provider_error";
/// `RUN_ERROR.code` when the provider's stream ended before the model finished.
pub const CODE_INCOMPLETE: &str = "provider_incomplete";
/// `RUN_ERROR.code` when the model stopped at its output token limit (`finish_reason:
/// length`).
pub const CODE_LENGTH: &str = "length";
/// `RUN_ERROR.code` when the provider filtered the answer (`finish_reason:
/// content_filter`).
pub const CODE_CONTENT_FILTER: &str = "content_filter";

/// What a model call produced, when the run goes on.
#[derive(Debug, Default)]
pub(crate) struct Turn {
    /// The answer text of the turn (for the conversation of the next call).
    pub(crate) text: String,
    /// The tool calls, in the order of their indices, with their complete arguments.
    pub(crate) calls: Vec<ToolCall>,
}

/// A message for `RUN_ERROR` that says what kind of failure it was and nothing the provider
/// wrote (which can quote the request, keys or internal addresses): the provider's error
/// `type` / `code` are identifiers, and are kept.
pub(crate) fn redact(error: &OpenAIError) -> String {
    match error {
        OpenAIError::ApiError(e) => {
            let kind = [e.api_error.r#type.as_deref(), e.api_error.code.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(", ");
            if kind.is_empty() {
                "the model provider returned an error".to_owned()
            } else {
                format!("the model provider returned an error ({kind})")
            }
        }
        OpenAIError::JSONDeserialize(_, content) => {
            // A stream that carries `{"error": {...}}` instead of a chunk.
            #[derive(serde::Deserialize)]
            struct Wrapped {
                error: async_openai::error::ApiError,
            }
            match serde_json::from_str::<Wrapped>(content) {
                Ok(w) => {
                    let kind = [w.error.r#type, w.error.code]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(", ");
                    if kind.is_empty() {
                        "the model provider failed mid-stream".to_owned()
                    } else {
                        format!("the model provider failed mid-stream ({kind})")
                    }
                }
                Err(_) => "the model provider sent a chunk that could not be read".to_owned(),
            }
        }
        OpenAIError::Reqwest(_) => "the model provider could not be reached".to_owned(),
        OpenAIError::StreamError(_) => "the model provider's stream broke off".to_owned(),
        OpenAIError::InvalidArgument(_) => {
            "the request to the model provider is invalid".to_owned()
        }
        _ => "the model provider failed".to_owned(),
    }
}

/// The reasoning text a chunk carries beside the chat-completions format: DeepSeek's,
/// vLLM's and llama.cpp's `delta.reasoning_content`, or `delta.reasoning` (Ollama,
/// OpenRouter).
fn reasoning_of(chunk: &serde_json::Value) -> Option<String> {
    let delta = chunk.pointer("/choices/0/delta")?;
    ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|key| delta.get(*key).and_then(serde_json::Value::as_str))
        .map(str::to_owned)
}

/// The AG-UI usage of a chat-completions usage chunk (OpenAI counts cache reads inside
/// `prompt_tokens` and reasoning inside `completion_tokens`).
pub(crate) fn usage(u: &CompletionUsage, model: &str) -> ProviderUsage {
    let mut usage = ProviderUsage::new(u.prompt_tokens.into(), u.completion_tokens.into())
        .with_total_tokens(u.total_tokens.into())
        .with_provider("openai")
        .with_model(model)
        .with_reasoning_accounting(Accounting::Included)
        .with_cache_accounting(Accounting::Included);
    if let Some(cached) = u
        .prompt_tokens_details
        .as_ref()
        .and_then(|d| d.cached_tokens)
    {
        usage = usage.with_cached_tokens(cached.into());
    }
    if let Some(reasoning) = u
        .completion_tokens_details
        .as_ref()
        .and_then(|d| d.reasoning_tokens)
    {
        usage = usage.with_reasoning_tokens(reasoning.into());
    }
    usage
}

/// Streams one model call into the run. `Ok(None)`: the run has ended (`RUN_ERROR` for a
/// provider failure or an unusable ending, or cancelled).
pub(crate) async fn model_call<C: Config>(
    client: &Client<C>,
    request: CreateChatCompletionRequest,
    run: &mut Emitter,
    cancel: &Cancellation,
) -> Result<Option<Turn>, EmitError> {
    let model = request.model.clone();
    // The chunks are read as JSON first: OpenAI-compatible servers stream reasoning in
    // members the typed chunk does not have (`reasoning_content`, `reasoning`), and a
    // provider error arrives as `{"error": {...}}` in place of a chunk.
    let mut stream = match client
        .chat()
        .create_stream_byot::<_, serde_json::Value>(request)
        .await
    {
        Ok(s) => s,
        Err(e) => {
            let message = redact(&e);
            run.emit(|r| r.fail_with_code(message, CODE_PROVIDER_ERROR))
                .await?;
            return Ok(None);
        }
    };
    let mut mapper = ChunkMapper::default();
    while let Some(item) = stream.next().await {
        if cancel.is_cancelled() {
            run.emit(RunEmitter::cancel).await?;
            return Ok(None);
        }
        let chunk = item.and_then(|value| {
            if value.get("error").is_some_and(serde_json::Value::is_object) {
                return Err(OpenAIError::JSONDeserialize(
                    serde::de::Error::custom("an error in place of a chunk"),
                    value.to_string(),
                ));
            }
            let reasoning = reasoning_of(&value);
            serde_json::from_value::<CreateChatCompletionStreamResponse>(value)
                .map(|chunk| (chunk, reasoning))
                .map_err(|e| OpenAIError::JSONDeserialize(e, String::new()))
        });
        match chunk {
            Ok((chunk, reasoning)) => {
                run.emit(|r| mapper.chunk(r, &chunk, reasoning.as_deref(), &model))
                    .await?;
            }
            Err(e) => {
                let message = redact(&e);
                run.emit(|r| {
                    if let Some(u) = mapper.usage.take() {
                        r.usage(u);
                    }
                    r.fail_with_code(message, CODE_PROVIDER_ERROR)
                })
                .await?;
                return Ok(None);
            }
        }
    }
    run.emit(|r| mapper.end(r)).await
}

/// The state of one model call's chunk stream.
#[derive(Debug, Default)]
struct ChunkMapper {
    /// The tool-call index, call id and tool name of each call, in the order they started.
    calls: Vec<(u32, String, String)>,
    text: String,
    finish: Option<FinishReason>,
    usage: Option<ProviderUsage>,
}

impl ChunkMapper {
    fn chunk(
        &mut self,
        r: &mut RunEmitter,
        chunk: &CreateChatCompletionStreamResponse,
        reasoning: Option<&str>,
        model: &str,
    ) -> Result<(), ag_ui_builders::Error> {
        if let Some(thinking) = reasoning.filter(|t| !t.is_empty()) {
            r.reasoning(thinking)?;
        }
        if let Some(u) = &chunk.usage {
            let reported = if chunk.model.is_empty() {
                model
            } else {
                &chunk.model
            };
            self.usage = Some(usage(u, reported));
        }
        // One choice is asked for (`n` is not set); others are not the answer.
        for choice in chunk.choices.iter().filter(|c| c.index == 0) {
            let delta = &choice.delta;
            if let Some(text) = delta.content.as_deref().filter(|t| !t.is_empty()) {
                self.text.push_str(text);
                r.text(text)?;
            }
            if let Some(refusal) = delta.refusal.as_deref().filter(|t| !t.is_empty()) {
                // A refusal is the model's answer to the user: shown as its text.
                self.text.push_str(refusal);
                r.text(refusal)?;
            }
            for call in delta.tool_calls.iter().flatten() {
                let fresh_id = call.id.as_deref().filter(|i| !i.is_empty());
                let known = self
                    .calls
                    .iter()
                    .rev()
                    .find(|(index, _, _)| *index == call.index)
                    // A server that numbers every call 0 tells them apart by id.
                    .filter(|(_, id, _)| fresh_id.is_none_or(|f| f == id));
                let id = match known {
                    Some((_, id, _)) => id.clone(),
                    None => {
                        let name = call
                            .function
                            .as_ref()
                            .and_then(|f| f.name.clone())
                            .filter(|n| !n.is_empty())
                            .ok_or_else(|| ag_ui_builders::Error::NotOpen {
                                kind: "tool call (its first chunk names no function)",
                                id: format!("index {}", call.index),
                            })?;
                        let id = match call.id.clone().filter(|i| !i.is_empty()) {
                            Some(id) => {
                                r.tool_call_start_with_id(id.clone(), name.clone())?;
                                id
                            }
                            None => r.tool_call_start(name.clone())?.into_string(),
                        };
                        self.calls.push((call.index, id.clone(), name));
                        id
                    }
                };
                if let Some(args) = call
                    .function
                    .as_ref()
                    .and_then(|f| f.arguments.as_deref())
                    .filter(|a| !a.is_empty())
                {
                    r.tool_call_args(id, args)?;
                }
            }
            if let Some(finish) = choice.finish_reason {
                self.finish = Some(finish);
            }
        }
        Ok(())
    }

    /// The stream is over: the turn ends (with the usage), or the run does.
    fn end(&mut self, r: &mut RunEmitter) -> Result<Option<Turn>, ag_ui_builders::Error> {
        let usage = self.usage.take();
        let failure = match self.finish {
            None => Some((
                "the model provider's stream ended before the model finished",
                CODE_INCOMPLETE,
            )),
            Some(FinishReason::Length) => {
                Some(("the model stopped at its output token limit", CODE_LENGTH))
            }
            Some(FinishReason::ContentFilter) => Some((
                "the model provider filtered the answer",
                CODE_CONTENT_FILTER,
            )),
            Some(_) => None,
        };
        if let Some((message, code)) = failure {
            if let Some(u) = usage {
                r.usage(u);
            }
            r.fail_with_code(message, code)?;
            return Ok(None);
        }
        r.push(ag_ui_builders::ModelChunk::EndTurn { usage })?;
        let calls = self
            .calls
            .iter()
            .map(|(_, id, name)| {
                let arguments = r.tool_call_arguments(id).unwrap_or_default().to_owned();
                tool_call(id.as_str(), name.as_str(), arguments)
            })
            .collect();
        Ok(Some(Turn {
            text: std::mem::take(&mut self.text),
            calls,
        }))
    }
}
