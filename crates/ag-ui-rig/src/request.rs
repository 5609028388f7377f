//! From a model call's request ([`ModelRequest`]) to a rig [`CompletionRequest`]: the
//! system texts, the conversation and the tools.

use std::collections::BTreeMap;

use ag_ui_agent::model::message_pointer;
use ag_ui_agent::{ModelRequest, Unmapped};
use ag_ui_core::{Content, ContentPart, Message, PartSource, ProviderMessage, Tool, ToolCall};
use rig_core::completion::{CompletionRequest, ToolDefinition};
use rig_core::message::{
    AssistantContent, AssistantMessage, Audio, AudioMediaType, CallId, Document, DocumentMediaType,
    DocumentSourceKind, Image, ImageMediaType, Message as RigMessage, MimeType, ToolName,
    ToolResult, ToolResultContent, UserContent,
};

fn unmapped(pointer: String, reason: impl Into<String>) -> Unmapped {
    Unmapped::new(pointer, reason)
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

/// The rig request of `request`, and what of the run input it cannot hold.
pub(crate) fn to_request(request: &ModelRequest<'_>) -> (CompletionRequest, Vec<Unmapped>) {
    let mut skipped = Vec::new();
    let mut history: Vec<RigMessage> = request.system.iter().map(RigMessage::system).collect();
    map_messages(
        request.messages,
        request.input_len,
        &mut history,
        &mut skipped,
    );
    let mut tools: Vec<ToolDefinition> = Vec::new();
    for offered in request.tools {
        match definition(offered.tool) {
            Some(d) => tools.push(d),
            None => skipped.push(unmapped(offered.pointer(), "a tool needs a name")),
        }
    }
    (CompletionRequest::from(history).tools(tools), skipped)
}

/// Maps the messages of a repaired history (`ag_ui_core::provider_history`) to rig's,
/// reporting what rig's messages cannot hold.
fn map_messages(
    messages: &[ProviderMessage<'_>],
    input_len: usize,
    history: &mut Vec<RigMessage>,
    skipped: &mut Vec<Unmapped>,
) {
    // Tool results name their tool in rig: the names of the calls made so far.
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for m in messages {
        // A tool message added for a call without a result has no place in the input; it
        // is never reported (when its call cannot be sent, the call is).
        let (message, at) = (&*m.message, message_pointer(m, input_len));
        let added = at.is_empty();
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
