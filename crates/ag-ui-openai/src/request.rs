//! From a model call's request ([`ModelRequest`]) to a chat-completions request: the
//! system texts, the conversation and the tools.

use ag_ui_agent::model::message_pointer;
use ag_ui_agent::{ModelRequest, Unmapped};
use ag_ui_core::{Content, ContentPart, Message, PartSource, Tool, ToolCall as AgToolCall};
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

/// The chat-completions request of `request` for `model` (streamed, with the usage), and
/// what of the run input it cannot hold.
pub(crate) fn to_request(
    request: &ModelRequest<'_>,
    model: &str,
) -> (CreateChatCompletionRequest, Vec<Unmapped>) {
    let mut unmapped = Vec::new();
    let mut messages: Vec<ChatCompletionRequestMessage> = request
        .system
        .iter()
        .map(|text| ChatCompletionRequestSystemMessage::from(text.as_str()).into())
        .collect();
    for m in request.messages {
        let at = message_pointer(m, request.input_len);
        map_message(&m.message, &at, &mut messages, &mut unmapped);
    }
    let tools: Vec<ChatCompletionTools> = request
        .tools
        .iter()
        .map(|t| function_tool(t.tool))
        .collect();
    let request = CreateChatCompletionRequest {
        model: model.to_owned(),
        messages,
        tools: (!tools.is_empty()).then_some(tools),
        stream: Some(true),
        stream_options: Some(ChatCompletionStreamOptions {
            include_usage: Some(true),
            include_obfuscation: None,
        }),
        ..Default::default()
    };
    (request, unmapped)
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
