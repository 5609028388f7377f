//! [`RigModel`]: a rig completion model as a [`CompletionModel`], rig's part-indexed
//! completion stream (`StreamEvent::{Start, Text, Reasoning, Arguments, End}`) as
//! [`ModelEvent`]s, rig's usage and errors.

use std::fmt;
use std::sync::Arc;

use ag_ui_agent::{
    CompletionModel, Finish, ModelAgent, ModelError, ModelEvent, ModelRequest, ModelStream,
    Unmapped,
};
use ag_ui_builders::{Accounting, ProviderUsage};
use futures_util::{StreamExt, stream};
use rig_core::DynModel;
use rig_core::completion::{CompletionRequest, CompletionResponse, FinishReason, Usage};
use rig_core::error::ProviderError;
use rig_core::message::AssistantContent;
use rig_core::operation::Completion;
use rig_core::streaming::{CompletionStream, Item, PartKind, StreamEvent};

use crate::request::to_request;

/// An AG-UI agent on a rig completion model: the shared model-agent loop
/// ([`ModelAgent`]) driving a [`RigModel`].
pub type RigAgent = ModelAgent<RigModel>;

type Configure = Arc<dyn Fn(CompletionRequest) -> CompletionRequest + Send + Sync>;

/// A rig completion model: any rig provider's model (OpenAI chat completions or
/// Responses, Anthropic, Gemini, Ollama, …), erased to a [`DynModel<Completion>`]. Cheap
/// to clone.
#[derive(Clone)]
pub struct RigModel {
    model: DynModel<Completion>,
    configure: Option<Configure>,
}

impl fmt::Debug for RigModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigModel")
            .field("model", &self.model.name())
            .finish_non_exhaustive()
    }
}

impl RigModel {
    /// `model`: a rig `Model` of any completion wire, or a `DynModel`.
    #[must_use]
    pub fn new(model: impl Into<DynModel<Completion>>) -> Self {
        Self {
            model: model.into(),
            configure: None,
        }
    }

    /// Changes every request before it is sent (temperature, `max_tokens`, reasoning, …).
    #[must_use]
    pub fn configure(
        mut self,
        f: impl Fn(CompletionRequest) -> CompletionRequest + Send + Sync + 'static,
    ) -> Self {
        self.configure = Some(Arc::new(f));
        self
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &DynModel<Completion> {
        &self.model
    }
}

impl CompletionModel for RigModel {
    type Request = CompletionRequest;

    fn request(&self, request: &ModelRequest<'_>) -> (Self::Request, Vec<Unmapped>) {
        let (mut out, unmapped) = to_request(request);
        if let Some(configure) = &self.configure {
            out = configure(out);
        }
        (out, unmapped)
    }

    fn stream(&self, request: Self::Request) -> ModelStream {
        let streamed = match self.model.stream(request) {
            Ok(s) => s,
            Err(e) => return Box::pin(stream::iter([Err(model_error(&e))])),
        };
        let events = stream::unfold(Some((streamed, Parts::default())), |state| async move {
            let (mut streamed, mut parts) = state?;
            loop {
                match streamed.next().await {
                    Some(Ok(Item::Event(event))) => {
                        let events = parts.event(event);
                        if !events.is_empty() {
                            return Some((events, Some((streamed, parts))));
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Some((vec![Err(model_error(&e))], None)),
                    None => return Some((end(streamed).await, None)),
                }
            }
        });
        Box::pin(events.flat_map(stream::iter))
    }
}

/// The `RUN_ERROR` of a rig error: a truncated stream is incomplete; otherwise a message
/// naming the kind of failure and the provider's machine code, and nothing the provider
/// wrote (which can quote the request, keys or internal addresses).
fn model_error(error: &ProviderError) -> ModelError {
    if matches!(error, ProviderError::Truncated) {
        return ModelError::incomplete();
    }
    let code = match error {
        ProviderError::ProviderResponse(r) | ProviderError::InvalidAuthentication(r) => {
            r.machine_code()
        }
        _ => None,
    };
    let kind = error.kind().code();
    ModelError::provider(match code {
        Some(code) => format!("the model provider failed ({kind}, {code})"),
        None => format!("the model provider failed ({kind})"),
    })
}

/// The AG-UI usage of a rig usage (rig counts cache reads inside `input_tokens` and
/// reasoning inside `output_tokens`, as AG-UI does).
fn usage(u: &Usage, response: &CompletionResponse) -> Option<ProviderUsage> {
    if !u.is_reported() {
        return None;
    }
    let origin = &response.origin;
    let model = origin.response_model.as_deref().unwrap_or(&origin.model);
    let mut usage = ProviderUsage::new(u.input_tokens.unwrap_or(0), u.output_tokens.unwrap_or(0))
        .with_provider(origin.provider.clone())
        .with_model(model)
        .with_reasoning_accounting(Accounting::Included)
        .with_cache_accounting(Accounting::Included);
    if let Some(total) = u.total_tokens {
        usage = usage.with_total_tokens(total);
    }
    if let Some(cached) = u.cached_input_tokens {
        usage = usage.with_cached_tokens(cached);
    }
    if let Some(written) = u.cache_creation_input_tokens {
        usage = usage.with_cache_write_tokens(written);
    }
    if let Some(reasoning) = u.reasoning_tokens {
        usage = usage.with_reasoning_tokens(reasoning);
    }
    Some(usage)
}

/// The stream is over: rig's response gives the usage and the finish reason.
async fn end(streamed: CompletionStream) -> Vec<Result<ModelEvent, ModelError>> {
    let response = match streamed.finish().await {
        Ok(response) => response,
        Err(e) => return vec![Err(model_error(&e))],
    };
    let mut events = Vec::new();
    if let Some(u) = usage(&response.usage, &response) {
        events.push(Ok(ModelEvent::Usage(u)));
    }
    let finish = match response.finish_reason() {
        Some(FinishReason::Length) => Finish::Length,
        Some(FinishReason::ContentFilter) => Finish::ContentFilter,
        // rig reports a reply the provider did not end as `Truncated`.
        _ => Finish::Stop,
    };
    events.push(Ok(ModelEvent::Finish(finish)));
    events
}

/// The tool-call parts of one model call's stream, by part index (rig names a call's
/// provider id only at its end, so the loop mints the AG-UI call id).
#[derive(Debug, Default)]
struct Parts {
    calls: Vec<usize>,
}

impl Parts {
    fn event(&mut self, event: StreamEvent) -> Vec<Result<ModelEvent, ModelError>> {
        let event = match event {
            StreamEvent::Start {
                part,
                kind: PartKind::ToolCall,
                name,
            } => {
                self.calls.push(part.index());
                ModelEvent::ToolCall {
                    index: part.index() as u64,
                    id: None,
                    name: Some(name.map(String::from).unwrap_or_default()),
                    arguments: String::new(),
                }
            }
            StreamEvent::Text { text, .. } => ModelEvent::Text(text),
            StreamEvent::Reasoning { text, .. } => ModelEvent::Reasoning(text),
            StreamEvent::Arguments { part, json } if self.calls.contains(&part.index()) => {
                ModelEvent::ToolCall {
                    index: part.index() as u64,
                    id: None,
                    name: None,
                    arguments: json,
                }
            }
            StreamEvent::End {
                part,
                content: AssistantContent::ToolCall(call),
            } if self.calls.contains(&part.index()) => ModelEvent::ToolCallEnd {
                index: part.index() as u64,
                arguments: Some(call.function.arguments_value().to_string()),
            },
            _ => return Vec::new(),
        };
        vec![Ok(event)]
    }
}
