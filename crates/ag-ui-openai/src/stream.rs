//! [`OpenAiModel`]: the chat-completions client as a [`CompletionModel`], and its chunk
//! stream as [`ModelEvent`]s.

use std::fmt;
use std::sync::Arc;

use ag_ui_agent::{
    CompletionModel, Finish, ModelAgent, ModelError, ModelEvent, ModelRequest, ModelStream,
    Unmapped,
};
use ag_ui_builders::{Accounting, ProviderUsage};
use async_openai::Client;
use async_openai::config::{Config, OpenAIConfig};
use async_openai::error::OpenAIError;
use async_openai::types::chat::{
    CompletionUsage, CreateChatCompletionRequest, CreateChatCompletionStreamResponse, FinishReason,
};
use futures_util::{StreamExt, stream};

use crate::request::to_request;

/// An AG-UI agent on a chat-completions model through `async-openai`: the shared
/// model-agent loop ([`ModelAgent`]) driving an [`OpenAiModel`].
pub type OpenAiAgent<C = OpenAIConfig> = ModelAgent<OpenAiModel<C>>;

type Configure = Arc<dyn Fn(&mut CreateChatCompletionRequest) + Send + Sync>;

/// A chat-completions model through `async-openai`: OpenAI, or any OpenAI-compatible
/// server (vLLM, Ollama, llama.cpp, DeepSeek, Groq, …) through the client's base URL.
///
/// Each model call is one streamed request (`stream: true`, with the usage); reasoning
/// that OpenAI-compatible servers stream beside the answer (`reasoning_content`,
/// `reasoning`) is streamed as reasoning, a refusal as the answer's text. Cheap to clone.
#[derive(Clone)]
pub struct OpenAiModel<C: Config = OpenAIConfig> {
    client: Client<C>,
    model: String,
    configure: Option<Configure>,
}

impl<C: Config> fmt::Debug for OpenAiModel<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiModel")
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl<C: Config> OpenAiModel<C> {
    /// `model` on `client`.
    #[must_use]
    pub fn new(client: Client<C>, model: impl Into<String>) -> Self {
        Self {
            client,
            model: model.into(),
            configure: None,
        }
    }

    /// Changes every request before it is sent (temperature, `max_completion_tokens`,
    /// `reasoning_effort`, …).
    #[must_use]
    pub fn configure(
        mut self,
        f: impl Fn(&mut CreateChatCompletionRequest) + Send + Sync + 'static,
    ) -> Self {
        self.configure = Some(Arc::new(f));
        self
    }

    /// The model's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.model
    }
}

impl<C: Config + Clone + 'static> CompletionModel for OpenAiModel<C> {
    type Request = CreateChatCompletionRequest;

    fn request(&self, request: &ModelRequest<'_>) -> (Self::Request, Vec<Unmapped>) {
        let (mut out, unmapped) = to_request(request, &self.model);
        if let Some(configure) = &self.configure {
            configure(&mut out);
        }
        (out, unmapped)
    }

    fn provider_name(&self) -> &str {
        "openai"
    }

    fn model_name(&self) -> &str {
        &self.model
    }

    fn stream(&self, request: Self::Request) -> ModelStream {
        let client = self.client.clone();
        let model = request.model.clone();
        // The chunks are read as JSON first: OpenAI-compatible servers stream reasoning in
        // members the typed chunk does not have (`reasoning_content`, `reasoning`), and a
        // provider error arrives as `{"error": {...}}` in place of a chunk.
        let opened = async move {
            client
                .chat()
                .create_stream_byot::<_, serde_json::Value>(request)
                .await
        };
        Box::pin(stream::once(opened).flat_map(move |opened| -> ModelStream {
            match opened {
                Ok(chunks) => {
                    let model = model.clone();
                    Box::pin(chunks.flat_map(move |item| stream::iter(events(item, &model))))
                }
                Err(e) => Box::pin(stream::iter([Err(provider_error(&e))])),
            }
        }))
    }
}

/// The [`ModelError`] of `error`: the redacted message for the client, and, for the log,
/// the provider's HTTP status and its own message (keys masked, at most
/// [`DETAIL_LIMIT`] characters).
fn provider_error(error: &OpenAIError) -> ModelError {
    let mut out = ModelError::provider(redact(error));
    let (status, detail) = match error {
        OpenAIError::ApiError(e) => (
            Some(e.status_code.as_u16()),
            Some(e.api_error.message.clone()),
        ),
        OpenAIError::Reqwest(e) => (e.status().map(|s| s.as_u16()), Some(e.to_string())),
        OpenAIError::JSONDeserialize(_, content) => {
            #[derive(serde::Deserialize)]
            struct Wrapped {
                error: async_openai::error::ApiError,
            }
            let message = serde_json::from_str::<Wrapped>(content)
                .map(|w| w.error.message)
                .ok();
            (None, message)
        }
        OpenAIError::StreamError(e) => (None, Some(e.to_string())),
        _ => (None, None),
    };
    if let Some(status) = status {
        out = out.with_status(status);
    }
    if let Some(detail) = detail {
        out = out.with_detail(mask_keys(&detail));
    }
    out
}

/// The longest provider message kept for the log, in characters.
const DETAIL_LIMIT: usize = 500;

/// `text` with every word that looks like a key (`sk-…`, `Bearer …`'s token) masked, cut to
/// [`DETAIL_LIMIT`] characters.
fn mask_keys(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(DETAIL_LIMIT));
    let mut bearer = false;
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let secret = bearer || word.starts_with("sk-") || word.starts_with("key-");
        bearer = word.eq_ignore_ascii_case("bearer");
        out.push_str(if secret { "[redacted]" } else { word });
    }
    match out.char_indices().nth(DETAIL_LIMIT) {
        Some((cut, _)) => format!("{}…", &out[..cut]),
        None => out,
    }
}

/// A message for `RUN_ERROR` that says what kind of failure it was and nothing the provider
/// wrote (which can quote the request, keys or internal addresses): the provider's error
/// `type` / `code` are identifiers, and are kept.
fn redact(error: &OpenAIError) -> String {
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
fn usage(u: &CompletionUsage, model: &str) -> ProviderUsage {
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

/// The events of one item of the chunk stream.
fn events(
    item: Result<serde_json::Value, OpenAIError>,
    model: &str,
) -> Vec<Result<ModelEvent, ModelError>> {
    let value = match item {
        Ok(value) => value,
        Err(e) => return vec![Err(provider_error(&e))],
    };
    if value.get("error").is_some_and(serde_json::Value::is_object) {
        let e = OpenAIError::JSONDeserialize(
            serde::de::Error::custom("an error in place of a chunk"),
            value.to_string(),
        );
        return vec![Err(provider_error(&e))];
    }
    let reasoning = reasoning_of(&value);
    let chunk = match serde_json::from_value::<CreateChatCompletionStreamResponse>(value) {
        Ok(chunk) => chunk,
        Err(e) => {
            let e = OpenAIError::JSONDeserialize(e, String::new());
            return vec![Err(provider_error(&e))];
        }
    };
    let mut out = Vec::new();
    if let Some(thinking) = reasoning {
        out.push(ModelEvent::Reasoning(thinking));
    }
    if let Some(u) = &chunk.usage {
        let reported = if chunk.model.is_empty() {
            model
        } else {
            &chunk.model
        };
        out.push(ModelEvent::Usage(usage(u, reported)));
    }
    // One choice is asked for (`n` is not set); others are not the answer.
    for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
        let delta = choice.delta;
        // A refusal is the model's answer to the user: shown as its text.
        for text in [delta.content, delta.refusal].into_iter().flatten() {
            out.push(ModelEvent::Text(text));
        }
        for call in delta.tool_calls.into_iter().flatten() {
            let (name, arguments) = call
                .function
                .map(|f| (f.name, f.arguments.unwrap_or_default()))
                .unwrap_or_default();
            out.push(ModelEvent::ToolCall {
                index: call.index.into(),
                id: call.id,
                name,
                arguments,
            });
        }
        match choice.finish_reason {
            Some(FinishReason::Length) => out.push(ModelEvent::Finish(Finish::Length)),
            Some(FinishReason::ContentFilter) => {
                out.push(ModelEvent::Finish(Finish::ContentFilter));
            }
            Some(_) => out.push(ModelEvent::Finish(Finish::Stop)),
            None => {}
        }
    }
    out.into_iter().map(Ok).collect()
}
