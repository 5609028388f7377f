//! From a run's input to a chat-completions request: the conversation, the tools, the
//! context and (when asked) the shared state.

use ag_ui_core::{
    AssistantMessage, Content, ContentPart, HistoryRepair, Message, PartSource, RepairKind,
    RunAgentInput, Tool, ToolCall as AgToolCall, ToolMessage, provider_history,
};
use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestAssistantMessageContent,
    ChatCompletionRequestDeveloperMessage, ChatCompletionRequestMessage,
    ChatCompletionRequestMessageContentPartAudio, ChatCompletionRequestMessageContentPartFile,
    ChatCompletionRequestMessageContentPartImage, ChatCompletionRequestMessageContentPartText,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestToolMessage,
    ChatCompletionRequestUserMessage, ChatCompletionRequestUserMessageContent,
    ChatCompletionRequestUserMessageContentPart, ChatCompletionStreamOptions, ChatCompletionTool,
    ChatCompletionTools, CreateChatCompletionRequest, FileObject, FunctionCall, FunctionObject,
    ImageUrl, InputAudio, InputAudioFormat,
};

/// Something of the run input the chat-completions API has no place for, and that was left
/// out of the request: where it is (a JSON Pointer into the `RunAgentInput`) and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Unmapped {
    /// The JSON Pointer of the item in the run input, e.g. `/messages/2/content/1`.
    pub pointer: String,
    /// Why it was left out.
    pub reason: String,
}

impl Unmapped {
    fn new(pointer: String, reason: impl Into<String>) -> Self {
        Self {
            pointer,
            reason: reason.into(),
        }
    }
}

/// How the run input becomes a request (the agent's settings that shape it).
#[derive(Debug, Clone, Default)]
pub(crate) struct Shape<'a> {
    pub(crate) model: &'a str,
    pub(crate) system_prompt: Option<&'a str>,
    pub(crate) state_in_prompt: bool,
    pub(crate) backend_tools: Vec<&'a Tool>,
}

/// The request for the first model call of a run, what was left out, and what of the
/// history was repaired so that the provider accepts it (`ag_ui_core::provider_history`:
/// tool calls without a result, arguments that are not JSON).
pub(crate) fn to_request(
    input: &RunAgentInput,
    shape: &Shape<'_>,
) -> (
    CreateChatCompletionRequest,
    Vec<Unmapped>,
    Vec<HistoryRepair>,
) {
    let mut unmapped = Vec::new();
    let mut messages: Vec<ChatCompletionRequestMessage> = Vec::new();
    if let Some(prompt) = shape.system_prompt {
        messages.push(ChatCompletionRequestSystemMessage::from(prompt).into());
    }
    if let Some(context) = input.context.as_deref().filter(|c| !c.is_empty()) {
        let mut text = String::from("Context from the application:");
        for entry in context {
            text.push_str(&format!("\n- {}: {}", entry.description, entry.value));
        }
        messages.push(ChatCompletionRequestSystemMessage::from(text).into());
    }
    if shape.state_in_prompt
        && let Some(state) = input.state.as_ref().filter(|s| !s.is_null())
    {
        messages.push(
            ChatCompletionRequestSystemMessage::from(format!(
                "The application's shared state (JSON): {state}"
            ))
            .into(),
        );
    }
    let history = provider_history(&input.messages);
    for m in &history.messages {
        // A tool message added for a call without a result has no place in the input, and
        // nothing of it is ever left out.
        let at = m
            .index
            .map(|i| format!("/messages/{i}"))
            .unwrap_or_default();
        map_message(&m.message, &at, &mut messages, &mut unmapped);
    }
    for r in &history.repairs {
        if r.kind == RepairKind::ResultWithoutCall {
            unmapped.push(Unmapped::new(
                format!("/messages{}", r.pointer()),
                "the tool result answers no tool call before it in the conversation",
            ));
        }
    }
    let mut tools: Vec<ChatCompletionTools> = shape
        .backend_tools
        .iter()
        .map(|t| function_tool(t))
        .collect();
    for (i, tool) in input.tools().iter().enumerate() {
        if shape.backend_tools.iter().any(|b| b.name == tool.name) {
            unmapped.push(Unmapped::new(
                format!("/tools/{i}"),
                format!(
                    "a backend tool is named {:?} too; the backend one is offered",
                    tool.name
                ),
            ));
            continue;
        }
        tools.push(function_tool(tool));
    }
    let request = CreateChatCompletionRequest {
        model: shape.model.to_owned(),
        messages,
        tools: (!tools.is_empty()).then_some(tools),
        stream: Some(true),
        stream_options: Some(ChatCompletionStreamOptions {
            include_usage: Some(true),
            include_obfuscation: None,
        }),
        ..Default::default()
    };
    (request, unmapped, history.repairs)
}

fn function_tool(tool: &Tool) -> ChatCompletionTools {
    ChatCompletionTools::Function(ChatCompletionTool {
        function: FunctionObject {
            name: tool.name.clone(),
            description: Some(tool.description.clone()).filter(|d| !d.is_empty()),
            parameters: tool.parameters.clone(),
            strict: None,
        },
    })
}

fn map_message(
    message: &Message,
    at: &str,
    out: &mut Vec<ChatCompletionRequestMessage>,
    unmapped: &mut Vec<Unmapped>,
) {
    match message {
        Message::Developer(m) => {
            let mut dev = ChatCompletionRequestDeveloperMessage::from(m.content.as_str());
            dev.name.clone_from(&m.name);
            out.push(dev.into());
        }
        Message::System(m) => {
            let mut sys = ChatCompletionRequestSystemMessage::from(m.content.as_str());
            sys.name.clone_from(&m.name);
            out.push(sys.into());
        }
        Message::User(m) => {
            let content = match &m.content {
                Content::Text(text) => ChatCompletionRequestUserMessageContent::Text(text.clone()),
                Content::Parts(parts) => {
                    let mapped: Vec<_> = parts
                        .iter()
                        .enumerate()
                        .filter_map(|(j, p)| user_part(p, &format!("{at}/content/{j}"), unmapped))
                        .collect();
                    if mapped.is_empty() {
                        unmapped.push(Unmapped::new(
                            at.to_owned(),
                            "no part of this user message can be sent",
                        ));
                        return;
                    }
                    ChatCompletionRequestUserMessageContent::Array(mapped)
                }
                _ => {
                    unmapped.push(Unmapped::new(format!("{at}/content"), "unknown content"));
                    return;
                }
            };
            out.push(
                ChatCompletionRequestUserMessage {
                    content,
                    name: m.name.clone(),
                }
                .into(),
            );
        }
        Message::Assistant(m) => {
            if m.encrypted_value.is_some() {
                unmapped.push(Unmapped::new(
                    format!("{at}/encryptedValue"),
                    "chat completions take no encrypted reasoning",
                ));
            }
            let tool_calls: Vec<ChatCompletionMessageToolCalls> = m
                .tool_calls
                .iter()
                .flatten()
                .map(|c: &AgToolCall| {
                    ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
                        id: c.id.to_string(),
                        function: FunctionCall {
                            name: c.function.name.clone(),
                            arguments: c.function.arguments.clone(),
                        },
                    })
                })
                .collect();
            let content = m
                .content
                .clone()
                .filter(|c| !c.is_empty())
                .map(ChatCompletionRequestAssistantMessageContent::Text);
            if content.is_none() && tool_calls.is_empty() {
                return;
            }
            out.push(
                ChatCompletionRequestAssistantMessage {
                    content,
                    name: m.name.clone(),
                    tool_calls: (!tool_calls.is_empty()).then_some(tool_calls),
                    ..Default::default()
                }
                .into(),
            );
        }
        Message::Tool(m) => {
            let mut text = m.content.to_text();
            if m.content.has_media() {
                unmapped.push(Unmapped::new(
                    format!("{at}/content"),
                    "chat completions take only text in tool results; the media parts were left out",
                ));
            }
            if let Some(error) = &m.error {
                text = if text.is_empty() {
                    serde_json::json!({ "error": error }).to_string()
                } else {
                    format!("{text}\n(error: {error})")
                };
            }
            out.push(
                ChatCompletionRequestToolMessage {
                    content: text.into(),
                    tool_call_id: m.tool_call_id.to_string(),
                }
                .into(),
            );
        }
        Message::Reasoning(_) => unmapped.push(Unmapped::new(
            at.to_owned(),
            "chat completions take no reasoning messages",
        )),
        Message::Activity(_) => unmapped.push(Unmapped::new(
            at.to_owned(),
            "activity messages are for the UI, not the model",
        )),
        _ => unmapped.push(Unmapped::new(at.to_owned(), "unknown message role")),
    }
}

/// A `data:` URL of base64 `value`.
fn data_url(mime: &str, value: &str) -> String {
    format!("data:{mime};base64,{value}")
}

fn user_part(
    part: &ContentPart,
    at: &str,
    unmapped: &mut Vec<Unmapped>,
) -> Option<ChatCompletionRequestUserMessageContentPart> {
    use ChatCompletionRequestUserMessageContentPart as P;
    let skip = |unmapped: &mut Vec<Unmapped>, reason: &str| {
        unmapped.push(Unmapped::new(at.to_owned(), reason));
        None
    };
    match part {
        ContentPart::Text(t) => Some(P::Text(ChatCompletionRequestMessageContentPartText::from(
            t.text.as_str(),
        ))),
        ContentPart::Image(p) => {
            let url = match &p.source {
                PartSource::Url(u) => u.value.clone(),
                PartSource::Data(d) => data_url(&d.mime_type, &d.value),
                _ => return skip(unmapped, "chat completions take images by URL or data only"),
            };
            Some(P::ImageUrl(ChatCompletionRequestMessageContentPartImage {
                image_url: ImageUrl { url, detail: None },
                prompt_cache_breakpoint: None,
            }))
        }
        ContentPart::Audio(p) => {
            let PartSource::Data(d) = &p.source else {
                return skip(unmapped, "chat completions take audio as base64 data only");
            };
            let format = match d.mime_type.as_str() {
                "audio/wav" | "audio/x-wav" | "audio/wave" => InputAudioFormat::Wav,
                "audio/mpeg" | "audio/mp3" => InputAudioFormat::Mp3,
                other => {
                    return skip(
                        unmapped,
                        &format!("chat completions take wav or mp3 audio, not {other}"),
                    );
                }
            };
            Some(P::InputAudio(
                ChatCompletionRequestMessageContentPartAudio {
                    input_audio: InputAudio {
                        data: d.value.clone(),
                        format,
                    },
                    prompt_cache_breakpoint: None,
                },
            ))
        }
        ContentPart::Document(p) => {
            let file = match &p.source {
                PartSource::Data(d) => FileObject {
                    file_data: Some(data_url(&d.mime_type, &d.value)),
                    file_id: None,
                    filename: Some(String::from("document")),
                },
                PartSource::File(f) => FileObject {
                    file_data: None,
                    file_id: Some(f.value.clone()),
                    filename: None,
                },
                _ => {
                    return skip(
                        unmapped,
                        "chat completions take documents as data or file ids, not URLs",
                    );
                }
            };
            Some(P::File(ChatCompletionRequestMessageContentPartFile {
                file,
                prompt_cache_breakpoint: None,
            }))
        }
        ContentPart::Video(_) => skip(unmapped, "chat completions take no video"),
        _ => skip(unmapped, "unknown content part"),
    }
}

/// The messages the model's turn and the backend tools' results add to the conversation,
/// mapped as the history is (so arguments that are not JSON are sent as `{}`); what was
/// repaired.
pub(crate) fn continue_with(
    request: &mut CreateChatCompletionRequest,
    text: &str,
    results: &[(AgToolCall, String)],
) -> Vec<HistoryRepair> {
    let turn = turn_messages(text, results);
    let history = provider_history(&turn);
    let mut unmapped = Vec::new();
    for m in &history.messages {
        map_message(&m.message, "", &mut request.messages, &mut unmapped);
    }
    history.repairs
}

/// The model's turn and its backend tool results as AG-UI messages.
fn turn_messages(text: &str, results: &[(AgToolCall, String)]) -> Vec<Message> {
    let calls: Vec<AgToolCall> = results.iter().map(|(c, _)| c.clone()).collect();
    let mut turn = vec![Message::Assistant(
        AssistantMessage::new("turn")
            .with_content(text)
            .with_tool_calls(calls),
    )];
    for (k, (call, content)) in results.iter().enumerate() {
        turn.push(Message::Tool(ToolMessage::new(
            format!("turn-result-{k}"),
            content.as_str(),
            call.id.clone(),
        )));
    }
    turn
}
