//! Everything this crate knows of rig's types, in one module: the run input as a rig
//! [`CompletionRequest`], rig's part-indexed completion stream
//! (`StreamEvent::{Start, Text, Reasoning, Arguments, End}`) as AG-UI events, rig's usage
//! and errors, and rig tools as backend tools.

use std::collections::BTreeMap;
use std::sync::Arc;

use ag_ui_builders::{Accounting, ProviderUsage, RunEmitter, tool_call};
use ag_ui_core::{
    AssistantMessage as AgAssistantMessage, Content, ContentPart, HistoryRepair, Message,
    PartSource, ProviderMessage, RepairKind, RunAgentInput, Tool, ToolCall, ToolMessage,
    provider_history,
};
use ag_ui_server::tools::ToolFuture;
use ag_ui_server::{Cancellation, EmitError, Emitter};
use futures_util::StreamExt;
use rig_core::DynModel;
use rig_core::completion::{
    CompletionRequest, CompletionResponse, FinishReason, ToolDefinition, Usage,
};
use rig_core::error::ProviderError;
use rig_core::message::{
    AssistantContent, AssistantMessage, Audio, AudioMediaType, CallId, Document, DocumentMediaType,
    DocumentSourceKind, Image, ImageMediaType, Message as RigMessage, MimeType, ToolName,
    ToolResult, ToolResultContent, UserContent,
};
use rig_core::operation::Completion;
use rig_core::streaming::{Item, PartKind, StreamEvent};
use rig_core::tool::ToolContext;

/// `RUN_ERROR.code` when the provider failed (refused the request, or failed mid-stream).
pub const CODE_PROVIDER_ERROR: &str = "provider_error";
/// `RUN_ERROR.code` when the provider's stream ended before the model finished.
pub const CODE_INCOMPLETE: &str = "provider_incomplete";
/// `RUN_ERROR.code` when the model stopped at its output token limit.
pub const CODE_LENGTH: &str = "length";
/// `RUN_ERROR.code` when the provider filtered the answer.
pub const CODE_CONTENT_FILTER: &str = "content_filter";

/// Something of the run input rig's messages have no place for, and that was left out of
/// the request: where it is (a JSON Pointer into the `RunAgentInput`) and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Unmapped {
    /// The JSON Pointer of the item in the run input, e.g. `/messages/2/content/1`.
    pub pointer: String,
    /// Why it was left out.
    pub reason: String,
}

fn unmapped(pointer: String, reason: impl Into<String>) -> Unmapped {
    Unmapped {
        pointer,
        reason: reason.into(),
    }
}

// ---------------------------------------------------------------- the request

/// The settings of the agent that shape a request.
pub(crate) struct Shape<'a> {
    pub(crate) system_prompt: Option<&'a str>,
    pub(crate) state_in_prompt: bool,
    pub(crate) backend_tools: Vec<&'a Tool>,
}

fn tool_name(name: &str) -> Option<ToolName> {
    ToolName::new(name).ok()
}

fn definition(tool: &Tool) -> Option<ToolDefinition> {
    Some(ToolDefinition::new(
        tool_name(&tool.name)?,
        tool.description.clone(),
        tool.parameters
            .clone()
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}})),
    ))
}

/// The request of a run's first model call, what was left out, and what of the history
/// was repaired so that the provider accepts it (`ag_ui_core::provider_history`: tool calls
/// without a result, arguments that are not JSON).
pub(crate) fn to_request(
    input: &RunAgentInput,
    shape: &Shape<'_>,
) -> (CompletionRequest, Vec<Unmapped>, Vec<HistoryRepair>) {
    let mut skipped = Vec::new();
    let mut history: Vec<RigMessage> = Vec::new();
    if let Some(prompt) = shape.system_prompt {
        history.push(RigMessage::system(prompt));
    }
    if let Some(context) = input.context.as_deref().filter(|c| !c.is_empty()) {
        let mut text = String::from("Context from the application:");
        for entry in context {
            text.push_str(&format!("\n- {}: {}", entry.description, entry.value));
        }
        history.push(RigMessage::system(text));
    }
    if shape.state_in_prompt
        && let Some(state) = input.state.as_ref().filter(|s| !s.is_null())
    {
        history.push(RigMessage::system(format!(
            "The application's shared state (JSON): {state}"
        )));
    }
    let repaired = provider_history(&input.messages);
    map_messages(&repaired.messages, &mut history, &mut skipped);
    for r in &repaired.repairs {
        if r.kind == RepairKind::ResultWithoutCall {
            skipped.push(unmapped(
                format!("/messages{}", r.pointer()),
                "the tool result answers no tool call before it in the conversation",
            ));
        }
    }
    let mut tools: Vec<ToolDefinition> = shape
        .backend_tools
        .iter()
        .filter_map(|t| definition(t))
        .collect();
    for (i, tool) in input.tools().iter().enumerate() {
        if shape.backend_tools.iter().any(|b| b.name == tool.name) {
            skipped.push(unmapped(
                format!("/tools/{i}"),
                format!(
                    "a backend tool is named {:?} too; the backend one is offered",
                    tool.name
                ),
            ));
            continue;
        }
        match definition(tool) {
            Some(d) => tools.push(d),
            None => skipped.push(unmapped(format!("/tools/{i}"), "a tool needs a name")),
        }
    }
    let request = CompletionRequest::from(history).tools(tools);
    (request, skipped, repaired.repairs)
}

/// Maps the messages of a repaired history (`ag_ui_core::provider_history`) to rig's,
/// reporting what rig's messages cannot hold.
fn map_messages(
    messages: &[ProviderMessage<'_>],
    history: &mut Vec<RigMessage>,
    skipped: &mut Vec<Unmapped>,
) {
    // Tool results name their tool in rig: the names of the calls made so far.
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for m in messages {
        // A tool message added for a call without a result has no place in the input; it
        // is never reported (when its call cannot be sent, the call is).
        let (message, at) = (&*m.message, m.index.map(|i| format!("/messages/{i}")));
        let added = at.is_none();
        let at = at.unwrap_or_default();
        match message {
            Message::Developer(m) => history.push(RigMessage::system(m.content.clone())),
            Message::System(m) => history.push(RigMessage::system(m.content.clone())),
            Message::User(m) => {
                if m.name.is_some() {
                    skipped.push(unmapped(
                        format!("{at}/name"),
                        "rig messages take no author name",
                    ));
                }
                let content: Vec<UserContent> = match &m.content {
                    Content::Text(t) => vec![UserContent::text(t.clone())],
                    Content::Parts(parts) => parts
                        .iter()
                        .enumerate()
                        .filter_map(|(j, p)| user_part(p, format!("{at}/content/{j}"), skipped))
                        .collect(),
                    _ => Vec::new(),
                };
                if content.is_empty() {
                    skipped.push(unmapped(at, "no part of this user message can be sent"));
                } else {
                    history.push(RigMessage::User { content });
                }
            }
            Message::Assistant(m) => {
                if m.name.is_some() {
                    skipped.push(unmapped(
                        format!("{at}/name"),
                        "rig messages take no author name",
                    ));
                }
                if m.encrypted_value.is_some() {
                    skipped.push(unmapped(
                        format!("{at}/encryptedValue"),
                        "rig messages take no encrypted reasoning",
                    ));
                }
                let mut content = Vec::new();
                if let Some(text) = m.content.as_deref().filter(|t| !t.is_empty()) {
                    content.push(AssistantContent::text(text));
                }
                for (j, call) in m.tool_calls.iter().flatten().enumerate() {
                    names.insert(call.id.to_string(), call.function.name.clone());
                    match assistant_call(call) {
                        Some(c) => content.push(c),
                        None => skipped.push(unmapped(
                            format!("{at}/toolCalls/{j}"),
                            "a tool call needs a tool name",
                        )),
                    }
                }
                if !content.is_empty() {
                    history.push(RigMessage::Assistant(AssistantMessage::new(content)));
                }
            }
            Message::Tool(m) => {
                let Some(name) = names
                    .get(m.tool_call_id.as_str())
                    .and_then(|n| tool_name(n))
                else {
                    if !added {
                        skipped.push(unmapped(
                            at,
                            "the tool result answers no tool call of the conversation",
                        ));
                    }
                    continue;
                };
                if m.content.has_media() {
                    skipped.push(unmapped(
                        format!("{at}/content"),
                        "only text tool results are sent; the media parts were left out",
                    ));
                }
                let mut text = m.content.to_text();
                if let Some(error) = &m.error {
                    text = if text.is_empty() {
                        serde_json::json!({ "error": error }).to_string()
                    } else {
                        format!("{text}\n(error: {error})")
                    };
                }
                push_tool_result(
                    history,
                    ToolResult {
                        call: CallId::from_wire(m.tool_call_id.as_str()),
                        name,
                        content: vec![ToolResultContent::text(text)],
                        is_error: m.error.is_some(),
                    },
                );
            }
            Message::Reasoning(_) => {
                skipped.push(unmapped(at, "rig messages take no reasoning messages"));
            }
            Message::Activity(_) => {
                skipped.push(unmapped(
                    at,
                    "activity messages are for the UI, not the model",
                ));
            }
            _ => skipped.push(unmapped(at, "unknown message role")),
        }
    }
}

/// Tool results follow each other in one user message, as rig groups them.
fn push_tool_result(history: &mut Vec<RigMessage>, result: ToolResult) {
    if let Some(RigMessage::User { content }) = history.last_mut()
        && content
            .iter()
            .all(|c| matches!(c, UserContent::ToolResult(_)))
    {
        content.push(UserContent::ToolResult(result));
        return;
    }
    history.push(RigMessage::User {
        content: vec![UserContent::ToolResult(result)],
    });
}

fn assistant_call(call: &ToolCall) -> Option<AssistantContent> {
    let arguments =
        serde_json::from_str(&call.function.arguments).unwrap_or_else(|_| serde_json::json!({}));
    Some(AssistantContent::tool_call(
        call.id.as_str(),
        tool_name(&call.function.name)?,
        arguments,
    ))
}

fn source_kind(source: &PartSource) -> Option<(DocumentSourceKind, Option<&str>)> {
    match source {
        PartSource::Url(u) => Some((
            DocumentSourceKind::url(u.value.clone()),
            u.mime_type.as_deref(),
        )),
        PartSource::Data(d) => Some((
            DocumentSourceKind::base64(d.value.clone()),
            Some(&d.mime_type),
        )),
        PartSource::File(f) => Some((
            DocumentSourceKind::file_id(f.value.clone()),
            f.mime_type.as_deref(),
        )),
        _ => None,
    }
}

fn user_part(part: &ContentPart, at: String, skipped: &mut Vec<Unmapped>) -> Option<UserContent> {
    if let ContentPart::Text(t) = part {
        return Some(UserContent::text(t.text.clone()));
    }
    let Some((data, mime)) = part.source().and_then(source_kind) else {
        skipped.push(unmapped(at, "unknown content part or source"));
        return None;
    };
    Some(match part {
        ContentPart::Image(_) => UserContent::Image(Image {
            data,
            media_type: mime.and_then(ImageMediaType::from_mime_type),
            ..Image::default()
        }),
        ContentPart::Audio(_) => UserContent::Audio(Audio {
            data,
            media_type: mime.and_then(AudioMediaType::from_mime_type),
        }),
        ContentPart::Document(_) => UserContent::Document(Document {
            data,
            media_type: mime.and_then(DocumentMediaType::from_mime_type),
            additional_params: None,
        }),
        ContentPart::Video(_) => {
            skipped.push(unmapped(at, "video is not sent to the model"));
            return None;
        }
        _ => {
            skipped.push(unmapped(at, "unknown content part"));
            return None;
        }
    })
}

/// The model's turn and the backend tools' results, added to the conversation, mapped as
/// the history is (so arguments that are not JSON are sent as `{}`); what was repaired.
pub(crate) fn continue_with(
    request: &mut CompletionRequest,
    text: &str,
    results: &[(ToolCall, String)],
) -> Vec<HistoryRepair> {
    let calls: Vec<ToolCall> = results.iter().map(|(c, _)| c.clone()).collect();
    let mut turn = vec![Message::Assistant(
        AgAssistantMessage::new("turn")
            .with_content(text)
            .with_tool_calls(calls),
    )];
    for (k, (call, output)) in results.iter().enumerate() {
        turn.push(Message::Tool(ToolMessage::new(
            format!("turn-result-{k}"),
            output.as_str(),
            call.id.clone(),
        )));
    }
    let repaired = provider_history(&turn);
    let mut skipped = Vec::new();
    map_messages(&repaired.messages, &mut request.chat_history, &mut skipped);
    repaired.repairs
}

// ---------------------------------------------------------------- the stream

/// What a model call produced, when the run goes on.
#[derive(Debug, Default)]
pub(crate) struct Turn {
    pub(crate) text: String,
    pub(crate) calls: Vec<ToolCall>,
}

/// A `RUN_ERROR` message naming the kind of failure and the provider's machine code, and
/// nothing the provider wrote (which can quote the request, keys or internal addresses).
pub(crate) fn redact(error: &ProviderError) -> String {
    let code = match error {
        ProviderError::ProviderResponse(r) | ProviderError::InvalidAuthentication(r) => {
            r.machine_code()
        }
        _ => None,
    };
    let kind = error.kind().code();
    match code {
        Some(code) => format!("the model provider failed ({kind}, {code})"),
        None => format!("the model provider failed ({kind})"),
    }
}

/// The AG-UI usage of a rig usage (rig counts cache reads inside `input_tokens` and
/// reasoning inside `output_tokens`, as AG-UI does).
pub(crate) fn usage(u: &Usage, response: &CompletionResponse) -> Option<ProviderUsage> {
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

/// Streams one model call into the run. `Ok(None)`: the run has ended.
pub(crate) async fn model_call(
    model: &DynModel<Completion>,
    request: CompletionRequest,
    run: &mut Emitter,
    cancel: &Cancellation,
) -> Result<Option<Turn>, EmitError> {
    let mut stream = match model.stream(request) {
        Ok(s) => s,
        Err(e) => {
            let message = redact(&e);
            run.emit(|r| r.fail_with_code(message, CODE_PROVIDER_ERROR))
                .await?;
            return Ok(None);
        }
    };
    let mut parts = Parts::default();
    while let Some(item) = stream.next().await {
        if cancel.is_cancelled() {
            run.emit(RunEmitter::cancel).await?;
            return Ok(None);
        }
        match item {
            Ok(Item::Event(event)) => run.emit(|r| parts.event(r, event)).await?,
            Ok(_) => {}
            Err(e) => {
                let (message, code) = match e {
                    ProviderError::Truncated => (
                        "the model provider's stream ended before the model finished".to_owned(),
                        CODE_INCOMPLETE,
                    ),
                    e => (redact(&e), CODE_PROVIDER_ERROR),
                };
                run.emit(|r| r.fail_with_code(message, code)).await?;
                return Ok(None);
            }
        }
    }
    let response = stream.finish().await;
    run.emit(|r| parts.end(r, response)).await
}

/// The open parts of one model call: tool-call parts with the AG-UI call id minted when
/// they start (rig names a call's provider id only at its end).
#[derive(Debug, Default)]
struct Parts {
    calls: BTreeMap<usize, (String, String)>,
    text: String,
}

impl Parts {
    fn event(
        &mut self,
        r: &mut RunEmitter,
        event: StreamEvent,
    ) -> Result<(), ag_ui_builders::Error> {
        match event {
            StreamEvent::Start {
                part,
                kind: PartKind::ToolCall,
                name,
            } => {
                let name = name.map(String::from).unwrap_or_default();
                let id = r.tool_call_start(name.clone())?;
                self.calls.insert(part.index(), (id.into_string(), name));
            }
            StreamEvent::Text { text, .. } if !text.is_empty() => {
                self.text.push_str(&text);
                r.text(text)?;
            }
            StreamEvent::Reasoning { text, .. } if !text.is_empty() => {
                r.reasoning(text)?;
            }
            StreamEvent::Arguments { part, json } if !json.is_empty() => {
                if let Some((id, _)) = self.calls.get(&part.index()) {
                    r.tool_call_args(id.clone(), json)?;
                }
            }
            StreamEvent::End {
                part,
                content: AssistantContent::ToolCall(call),
            } => {
                if let Some((id, _)) = self.calls.get(&part.index()).cloned() {
                    // A provider that sends a call whole streams no arguments.
                    if r.tool_call_arguments(&id).is_some_and(str::is_empty) {
                        let whole = call.function.arguments_value().to_string();
                        r.tool_call_args(id.clone(), whole)?;
                    }
                    r.tool_call_end(id)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn end(
        &mut self,
        r: &mut RunEmitter,
        response: Result<CompletionResponse, ProviderError>,
    ) -> Result<Option<Turn>, ag_ui_builders::Error> {
        let response = match response {
            Ok(response) => response,
            Err(ProviderError::Truncated) => {
                r.fail_with_code(
                    "the model provider's stream ended before the model finished",
                    CODE_INCOMPLETE,
                )?;
                return Ok(None);
            }
            Err(e) => {
                r.fail_with_code(redact(&e), CODE_PROVIDER_ERROR)?;
                return Ok(None);
            }
        };
        let usage = usage(&response.usage, &response);
        let failure = match response.finish_reason() {
            Some(FinishReason::Length) => {
                Some(("the model stopped at its output token limit", CODE_LENGTH))
            }
            Some(FinishReason::ContentFilter) => Some((
                "the model provider filtered the answer",
                CODE_CONTENT_FILTER,
            )),
            _ => None,
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
            .values()
            .map(|(id, name)| {
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

// ---------------------------------------------------------------- rig tools

/// A rig tool as a backend tool: its name, description and parameter schema, run through
/// rig's own argument parsing and error mapping; its output rendered as rig renders it for
/// the model.
pub(crate) fn rig_tool<T: rig_core::tool::Tool + 'static>(
    tool: T,
) -> (Tool, impl Fn(String) -> ToolFuture + Send + Sync + 'static) {
    use rig_core::tool::ErasedTool;
    let described = Tool::new(ErasedTool::name(&tool), ErasedTool::description(&tool))
        .with_parameters(ErasedTool::parameters(&tool));
    let tool = Arc::new(tool);
    let handler = move |arguments: String| -> ToolFuture {
        let tool = Arc::clone(&tool);
        Box::pin(async move {
            let mut context = ToolContext::new();
            let result = ErasedTool::execute(&*tool, arguments, &mut context).await;
            match result.into_result() {
                Ok(output) => Ok(output.render()),
                Err(e) => Err(e
                    .model_feedback()
                    .map_or_else(|| e.message().to_owned(), str::to_owned)
                    .into()),
            }
        })
    };
    (described, handler)
}
