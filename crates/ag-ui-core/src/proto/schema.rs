//! The messages of AG-UI's protobuf wire schema (package `ag_ui`), declared by hand with
//! `prost`'s derive (so no `protoc` and no build script are needed): the same message names,
//! field numbers and types as the official schema, which is generated from the JSON Schema
//! (spec B8). Each message also maps to the JSON document of the same shape (serde, camelCase
//! names), and refuses a JSON member it has no field for: a value the protobuf transport cannot
//! carry is an error, never a silent drop.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::value::{PStruct, PValue, some_value};

/// `Event`: the envelope, one frame's message, a `oneof event` over every event kind.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Envelope {
    /// The event, `None` when the frame sets no arm this build knows.
    #[prost(
        oneof = "Arm",
        tags = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31"
    )]
    pub(crate) event: Option<Arm>,
}

/// Defines [`Arm`] (the envelope's `oneof event`) and its mapping to the JSON event types:
/// `Variant(Message) = envelope field number, wire type name, EventType enum number`.
macro_rules! envelope {
    ($($arm:ident($msg:ident) = $tag:literal, $wire:literal, $num:literal;)*) => {
        /// `Event.event`: one arm per event kind.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub(crate) enum Arm {
            $(
                #[doc = concat!("`", $wire, "`.")]
                #[prost(message, tag = $tag)]
                $arm($msg),
            )*
        }

        impl Arm {
            /// The envelope arm of a JSON event type and the `EventType` enum number its
            /// `BaseEvent.type` carries.
            pub(crate) fn number_of(wire: &str) -> Option<i32> {
                match wire {
                    $($wire => Some($num),)*
                    _ => None,
                }
            }

            /// Builds the arm of event type `wire` from the JSON members of the event beside
            /// the base fields, and sets its base.
            pub(crate) fn from_json(
                wire: &str,
                rest: Map<String, Value>,
                base: BaseEvent,
            ) -> Result<Self, String> {
                match wire {
                    $($wire => {
                        let mut m: $msg =
                            serde_json::from_value(Value::Object(rest)).map_err(|e| e.to_string())?;
                        m.base_event = Some(base);
                        Ok(Self::$arm(m))
                    })*
                    other => Err(format!("no envelope arm for event type {other}")),
                }
            }

            /// The JSON event type, the `EventType` enum number the arm stands for, the base
            /// and the other members as JSON.
            pub(crate) fn into_json(
                self,
            ) -> Result<(&'static str, i32, Option<BaseEvent>, Value), String> {
                match self {
                    $(Self::$arm(mut m) => {
                        let base = m.base_event.take();
                        let json = serde_json::to_value(&m).map_err(|e| e.to_string())?;
                        Ok(($wire, $num, base, json))
                    })*
                }
            }
        }
    };
}

envelope! {
    TextMessageStart(TextMessageStartEvent) = "1", "TEXT_MESSAGE_START", 0;
    TextMessageContent(TextMessageContentEvent) = "2", "TEXT_MESSAGE_CONTENT", 1;
    TextMessageEnd(TextMessageEndEvent) = "3", "TEXT_MESSAGE_END", 2;
    ToolCallStart(ToolCallStartEvent) = "4", "TOOL_CALL_START", 3;
    ToolCallArgs(ToolCallArgsEvent) = "5", "TOOL_CALL_ARGS", 4;
    ToolCallEnd(ToolCallEndEvent) = "6", "TOOL_CALL_END", 5;
    StateSnapshot(StateSnapshotEvent) = "7", "STATE_SNAPSHOT", 6;
    StateDelta(StateDeltaEvent) = "8", "STATE_DELTA", 7;
    MessagesSnapshot(MessagesSnapshotEvent) = "9", "MESSAGES_SNAPSHOT", 8;
    Raw(RawEvent) = "10", "RAW", 9;
    Custom(CustomEvent) = "11", "CUSTOM", 10;
    RunStarted(RunStartedEvent) = "12", "RUN_STARTED", 11;
    RunFinished(RunFinishedEvent) = "13", "RUN_FINISHED", 12;
    RunError(RunErrorEvent) = "14", "RUN_ERROR", 13;
    StepStarted(StepStartedEvent) = "15", "STEP_STARTED", 14;
    StepFinished(StepFinishedEvent) = "16", "STEP_FINISHED", 15;
    TextMessageChunk(TextMessageChunkEvent) = "17", "TEXT_MESSAGE_CHUNK", 19;
    ToolCallChunk(ToolCallChunkEvent) = "18", "TOOL_CALL_CHUNK", 20;
    SubagentStarted(SubagentStartedEvent) = "19", "SUBAGENT_STARTED", 16;
    SubagentFinished(SubagentFinishedEvent) = "20", "SUBAGENT_FINISHED", 17;
    SubagentError(SubagentErrorEvent) = "21", "SUBAGENT_ERROR", 18;
    ToolCallResult(ToolCallResultEvent) = "22", "TOOL_CALL_RESULT", 21;
    ActivitySnapshot(ActivitySnapshotEvent) = "23", "ACTIVITY_SNAPSHOT", 22;
    ActivityDelta(ActivityDeltaEvent) = "24", "ACTIVITY_DELTA", 23;
    ReasoningStart(ReasoningStartEvent) = "25", "REASONING_START", 24;
    ReasoningMessageStart(ReasoningMessageStartEvent) = "26", "REASONING_MESSAGE_START", 25;
    ReasoningMessageContent(ReasoningMessageContentEvent) = "27", "REASONING_MESSAGE_CONTENT", 26;
    ReasoningMessageEnd(ReasoningMessageEndEvent) = "28", "REASONING_MESSAGE_END", 27;
    ReasoningMessageChunk(ReasoningMessageChunkEvent) = "29", "REASONING_MESSAGE_CHUNK", 28;
    ReasoningEnd(ReasoningEndEvent) = "30", "REASONING_END", 29;
    ReasoningEncryptedValue(ReasoningEncryptedValueEvent) = "31", "REASONING_ENCRYPTED_VALUE", 30;
}

/// The highest envelope field number this build knows.
pub(crate) const LAST_ARM: u32 = 31;

/// The fields every event shares.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct BaseEvent {
    /// `type` = 1.
    #[prost(int32, tag = "1")]
    #[serde(default)]
    pub(crate) r#type: i32,
    /// `timestamp` = 2.
    #[prost(int64, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) timestamp: Option<i64>,
    /// `raw_event` = 3.
    #[prost(message, optional, tag = "3")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) raw_event: Option<PValue>,
    /// `metadata` = 4.
    #[prost(message, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) metadata: Option<PStruct>,
}

/// One JSON Patch operation (`op` is the enum `JsonPatchOperationType`: add 0, remove 1, replace 2, move 3, copy 4, test 5).
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct JsonPatchOperation {
    /// `op` = 1.
    #[prost(int32, tag = "1")]
    #[serde(default)]
    pub(crate) op: i32,
    /// `path` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) path: String,
    /// `from` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) from: Option<String>,
    /// `value` = 4.
    #[prost(message, optional, tag = "4")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) value: Option<PValue>,
}

/// A text content part.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TextInputPart {
    /// `text` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) text: String,
    /// `id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
    /// `metadata` = 3.
    #[prost(message, optional, tag = "3")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) metadata: Option<PValue>,
}

/// An image, audio, video or document content part (the four messages share one shape).
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct MediaInputPart {
    /// `source` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) source: Option<InputContentSource>,
    /// `metadata` = 2.
    #[prost(message, optional, tag = "2")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) metadata: Option<PValue>,
    /// `id` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
}

/// Inline base64 data.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct InputContentDataSource {
    /// `value` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) value: String,
    /// `mime_type` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) mime_type: String,
}

/// A URL.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct InputContentUrlSource {
    /// `value` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) value: String,
    /// `mime_type` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mime_type: Option<String>,
}

/// A provider's file id.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct InputContentFileSource {
    /// `value` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) value: String,
    /// `provider` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) provider: Option<String>,
    /// `mime_type` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mime_type: Option<String>,
}

/// Where a media part's bytes are (a `oneof source`, declared as optional fields: an encoder sets one).
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct InputContentSource {
    /// `data` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) data: Option<InputContentDataSource>,
    /// `url` = 2.
    #[prost(message, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) url: Option<InputContentUrlSource>,
    /// `file` = 3.
    #[prost(message, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) file: Option<InputContentFileSource>,
}

/// One content part (a `oneof part`, declared as optional fields: an encoder sets one).
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct InputContent {
    /// `text` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<TextInputPart>,
    /// `image` = 2.
    #[prost(message, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) image: Option<MediaInputPart>,
    /// `audio` = 3.
    #[prost(message, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) audio: Option<MediaInputPart>,
    /// `video` = 4.
    #[prost(message, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) video: Option<MediaInputPart>,
    /// `document` = 5.
    #[prost(message, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) document: Option<MediaInputPart>,
}

/// `ToolCall.Function`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ToolCallFunction {
    /// `name` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) name: String,
    /// `arguments` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) arguments: String,
}

/// A tool call of an assistant message (`type` is always `"function"`).
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ToolCall {
    /// `id` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) id: String,
    /// `type` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) r#type: String,
    /// `function` = 3.
    #[prost(message, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) function: Option<ToolCallFunction>,
    /// `metadata` = 4.
    #[prost(message, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) metadata: Option<PStruct>,
    /// `encrypted_value` = 5.
    #[prost(string, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) encrypted_value: Option<String>,
}

/// Every role's message in one shape.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Message {
    /// `id` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) id: String,
    /// `role` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) role: String,
    /// `content` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) content: Option<String>,
    /// `name` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    /// `tool_calls` = 5.
    #[prost(message, repeated, tag = "5")]
    #[serde(default)]
    pub(crate) tool_calls: Vec<ToolCall>,
    /// `tool_call_id` = 6.
    #[prost(string, optional, tag = "6")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tool_call_id: Option<String>,
    /// `error` = 7.
    #[prost(string, optional, tag = "7")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// `content_parts` = 8.
    #[prost(message, repeated, tag = "8")]
    #[serde(default)]
    pub(crate) content_parts: Vec<InputContent>,
    /// `metadata` = 9.
    #[prost(message, optional, tag = "9")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) metadata: Option<PStruct>,
    /// `subagent_run_id` = 10.
    #[prost(string, optional, tag = "10")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `encrypted_value` = 11.
    #[prost(string, optional, tag = "11")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) encrypted_value: Option<String>,
    /// `activity_type` = 12.
    #[prost(string, optional, tag = "12")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) activity_type: Option<String>,
    /// `activity_content` = 13.
    #[prost(message, optional, tag = "13")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) activity_content: Option<PStruct>,
}

/// A tool the agent may call.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Tool {
    /// `name` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) name: String,
    /// `description` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) description: String,
    /// `parameters` = 3.
    #[prost(message, optional, tag = "3")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) parameters: Option<PValue>,
    /// `metadata` = 4.
    #[prost(message, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) metadata: Option<PStruct>,
}

/// A piece of context.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Context {
    /// `description` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) description: String,
    /// `value` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) value: String,
}

/// The answer to one interrupt.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ResumeEntry {
    /// `interrupt_id` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) interrupt_id: String,
    /// `status` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) status: String,
    /// `payload` = 3.
    #[prost(message, optional, tag = "3")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) payload: Option<PValue>,
    /// `metadata` = 4.
    #[prost(message, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) metadata: Option<PStruct>,
}

/// A run's input.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RunAgentInput {
    /// `thread_id` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) thread_id: String,
    /// `run_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) run_id: String,
    /// `parent_run_id` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent_run_id: Option<String>,
    /// `state` = 4.
    #[prost(message, optional, tag = "4")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) state: Option<PValue>,
    /// `messages` = 5.
    #[prost(message, repeated, tag = "5")]
    #[serde(default)]
    pub(crate) messages: Vec<Message>,
    /// `tools` = 6.
    #[prost(message, repeated, tag = "6")]
    #[serde(default)]
    pub(crate) tools: Vec<Tool>,
    /// `context` = 7.
    #[prost(message, repeated, tag = "7")]
    #[serde(default)]
    pub(crate) context: Vec<Context>,
    /// `forwarded_props` = 8.
    #[prost(message, optional, tag = "8")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) forwarded_props: Option<PValue>,
    /// `resume` = 9.
    #[prost(message, repeated, tag = "9")]
    #[serde(default)]
    pub(crate) resume: Vec<ResumeEntry>,
    /// `protocol_version` = 10.
    #[prost(string, optional, tag = "10")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) protocol_version: Option<String>,
}

/// One interrupt of a run.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Interrupt {
    /// `id` = 1.
    #[prost(string, tag = "1")]
    #[serde(default)]
    pub(crate) id: String,
    /// `reason` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) reason: String,
    /// `message` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<String>,
    /// `tool_call_id` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tool_call_id: Option<String>,
    /// `response_schema` = 5.
    #[prost(message, optional, tag = "5")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) response_schema: Option<PValue>,
    /// `expires_at` = 6.
    #[prost(string, optional, tag = "6")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expires_at: Option<String>,
    /// `metadata` = 7.
    #[prost(message, optional, tag = "7")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) metadata: Option<PValue>,
    /// `subagent_run_id` = 8.
    #[prost(string, optional, tag = "8")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// Token usage of one provider and model.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Usage {
    /// `provider` = 1.
    #[prost(string, optional, tag = "1")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) provider: Option<String>,
    /// `model` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) model: Option<String>,
    /// `input_tokens` = 3.
    #[prost(int64, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) input_tokens: Option<i64>,
    /// `output_tokens` = 4.
    #[prost(int64, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) output_tokens: Option<i64>,
    /// `total_tokens` = 5.
    #[prost(int64, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) total_tokens: Option<i64>,
    /// `reasoning_tokens` = 6.
    #[prost(int64, optional, tag = "6")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reasoning_tokens: Option<i64>,
    /// `cached_input_tokens` = 7.
    #[prost(int64, optional, tag = "7")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cached_input_tokens: Option<i64>,
    /// `cache_write_input_tokens` = 8.
    #[prost(int64, optional, tag = "8")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cache_write_input_tokens: Option<i64>,
}

/// `TEXT_MESSAGE_START`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TextMessageStartEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `message_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) message_id: String,
    /// `role` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) role: Option<String>,
    /// `name` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    /// `subagent_run_id` = 5.
    #[prost(string, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `TEXT_MESSAGE_CONTENT`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TextMessageContentEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `message_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) message_id: String,
    /// `delta` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) delta: String,
    /// `subagent_run_id` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `TEXT_MESSAGE_END`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TextMessageEndEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `message_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) message_id: String,
    /// `subagent_run_id` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `TEXT_MESSAGE_CHUNK`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TextMessageChunkEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `message_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) message_id: Option<String>,
    /// `role` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) role: Option<String>,
    /// `delta` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) delta: Option<String>,
    /// `name` = 5.
    #[prost(string, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    /// `subagent_run_id` = 6.
    #[prost(string, optional, tag = "6")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `TOOL_CALL_START`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ToolCallStartEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `tool_call_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) tool_call_id: String,
    /// `tool_call_name` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) tool_call_name: String,
    /// `parent_message_id` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent_message_id: Option<String>,
    /// `subagent_run_id` = 5.
    #[prost(string, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `TOOL_CALL_ARGS`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ToolCallArgsEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `tool_call_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) tool_call_id: String,
    /// `delta` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) delta: String,
    /// `subagent_run_id` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `TOOL_CALL_END`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ToolCallEndEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `tool_call_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) tool_call_id: String,
    /// `subagent_run_id` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `TOOL_CALL_CHUNK`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ToolCallChunkEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `tool_call_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tool_call_id: Option<String>,
    /// `tool_call_name` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tool_call_name: Option<String>,
    /// `parent_message_id` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent_message_id: Option<String>,
    /// `delta` = 5.
    #[prost(string, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) delta: Option<String>,
    /// `subagent_run_id` = 6.
    #[prost(string, optional, tag = "6")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `TOOL_CALL_RESULT`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ToolCallResultEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `message_id` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) message_id: String,
    /// `tool_call_id` = 4.
    #[prost(string, tag = "4")]
    #[serde(default)]
    pub(crate) tool_call_id: String,
    /// `content` = 5.
    #[prost(string, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) content: Option<String>,
    /// `role` = 6.
    #[prost(string, optional, tag = "6")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) role: Option<String>,
    /// `content_parts` = 7.
    #[prost(message, repeated, tag = "7")]
    #[serde(default)]
    pub(crate) content_parts: Vec<InputContent>,
}

/// `STATE_SNAPSHOT`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StateSnapshotEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `snapshot` = 2.
    #[prost(message, optional, tag = "2")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) snapshot: Option<PValue>,
    /// `subagent_run_id` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `STATE_DELTA`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StateDeltaEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `delta` = 2.
    #[prost(message, repeated, tag = "2")]
    #[serde(default)]
    pub(crate) delta: Vec<JsonPatchOperation>,
    /// `subagent_run_id` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `MESSAGES_SNAPSHOT`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct MessagesSnapshotEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `messages` = 2.
    #[prost(message, repeated, tag = "2")]
    #[serde(default)]
    pub(crate) messages: Vec<Message>,
}

/// `ACTIVITY_SNAPSHOT`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ActivitySnapshotEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `message_id` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) message_id: String,
    /// `activity_type` = 4.
    #[prost(string, tag = "4")]
    #[serde(default)]
    pub(crate) activity_type: String,
    /// `content` = 5.
    #[prost(message, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) content: Option<PStruct>,
    /// `replace` = 6.
    #[prost(bool, optional, tag = "6")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) replace: Option<bool>,
}

/// `ACTIVITY_DELTA`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ActivityDeltaEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `message_id` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) message_id: String,
    /// `activity_type` = 4.
    #[prost(string, tag = "4")]
    #[serde(default)]
    pub(crate) activity_type: String,
    /// `patch` = 5.
    #[prost(message, repeated, tag = "5")]
    #[serde(default)]
    pub(crate) patch: Vec<JsonPatchOperation>,
}

/// `RAW`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RawEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `event` = 2.
    #[prost(message, optional, tag = "2")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) event: Option<PValue>,
    /// `source` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) source: Option<String>,
    /// `subagent_run_id` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `CUSTOM`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct CustomEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `name` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) name: String,
    /// `value` = 3.
    #[prost(message, optional, tag = "3")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) value: Option<PValue>,
    /// `subagent_run_id` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `RUN_STARTED`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RunStartedEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `thread_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) thread_id: String,
    /// `run_id` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) run_id: String,
    /// `parent_run_id` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent_run_id: Option<String>,
    /// `input` = 5.
    #[prost(message, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) input: Option<RunAgentInput>,
    /// `protocol_version` = 6.
    #[prost(string, optional, tag = "6")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) protocol_version: Option<String>,
}

/// `RUN_FINISHED` (the outcome flattened: its `type` as a string, its lists beside it).
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RunFinishedEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `thread_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) thread_id: String,
    /// `run_id` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) run_id: String,
    /// `result` = 4.
    #[prost(message, optional, tag = "4")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) result: Option<PValue>,
    /// `outcome` = 5.
    #[prost(string, tag = "5")]
    #[serde(default)]
    pub(crate) outcome: String,
    /// `interrupts` = 6.
    #[prost(message, repeated, tag = "6")]
    #[serde(default)]
    pub(crate) interrupts: Vec<Interrupt>,
    /// `usage` = 7.
    #[prost(message, repeated, tag = "7")]
    #[serde(default)]
    pub(crate) usage: Vec<Usage>,
    /// `pending_tool_call_ids` = 8.
    #[prost(string, repeated, tag = "8")]
    #[serde(default)]
    pub(crate) pending_tool_call_ids: Vec<String>,
}

/// `RUN_ERROR`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RunErrorEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `code` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) code: Option<String>,
    /// `message` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) message: String,
    /// `usage` = 4.
    #[prost(message, repeated, tag = "4")]
    #[serde(default)]
    pub(crate) usage: Vec<Usage>,
}

/// `STEP_STARTED`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StepStartedEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `step_name` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) step_name: String,
    /// `subagent_run_id` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `STEP_FINISHED`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StepFinishedEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `step_name` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) step_name: String,
    /// `subagent_run_id` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
}

/// `REASONING_START`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReasoningStartEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `message_id` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) message_id: String,
}

/// `REASONING_MESSAGE_START`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReasoningMessageStartEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `message_id` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) message_id: String,
    /// `role` = 4.
    #[prost(string, tag = "4")]
    #[serde(default)]
    pub(crate) role: String,
}

/// `REASONING_MESSAGE_CONTENT`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReasoningMessageContentEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `message_id` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) message_id: String,
    /// `delta` = 4.
    #[prost(string, tag = "4")]
    #[serde(default)]
    pub(crate) delta: String,
}

/// `REASONING_MESSAGE_END`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReasoningMessageEndEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `message_id` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) message_id: String,
}

/// `REASONING_MESSAGE_CHUNK`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReasoningMessageChunkEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `message_id` = 3.
    #[prost(string, optional, tag = "3")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) message_id: Option<String>,
    /// `delta` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) delta: Option<String>,
}

/// `REASONING_END`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReasoningEndEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `message_id` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) message_id: String,
}

/// `REASONING_ENCRYPTED_VALUE`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReasoningEncryptedValueEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, optional, tag = "2")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subagent_run_id: Option<String>,
    /// `subtype` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) subtype: String,
    /// `entity_id` = 4.
    #[prost(string, tag = "4")]
    #[serde(default)]
    pub(crate) entity_id: String,
    /// `encrypted_value` = 5.
    #[prost(string, tag = "5")]
    #[serde(default)]
    pub(crate) encrypted_value: String,
}

/// `SUBAGENT_STARTED`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SubagentStartedEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) subagent_run_id: String,
    /// `name` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) name: String,
    /// `description` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// `parent_subagent_run_id` = 5.
    #[prost(string, optional, tag = "5")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent_subagent_run_id: Option<String>,
    /// `parent_tool_call_id` = 6.
    #[prost(string, optional, tag = "6")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent_tool_call_id: Option<String>,
    /// `parent_message_id` = 7.
    #[prost(string, optional, tag = "7")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent_message_id: Option<String>,
}

/// `SUBAGENT_FINISHED` (the outcome flattened: its `type` as a string, its `interruptIds` beside it).
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SubagentFinishedEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) subagent_run_id: String,
    /// `result` = 3.
    #[prost(message, optional, tag = "3")]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_value"
    )]
    pub(crate) result: Option<PValue>,
    /// `outcome` = 4.
    #[prost(string, tag = "4")]
    #[serde(default)]
    pub(crate) outcome: String,
    /// `interrupt_ids` = 5.
    #[prost(string, repeated, tag = "5")]
    #[serde(default)]
    pub(crate) interrupt_ids: Vec<String>,
}

/// `SUBAGENT_ERROR`.
#[derive(Clone, PartialEq, prost::Message, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SubagentErrorEvent {
    /// `base_event` = 1.
    #[prost(message, optional, tag = "1")]
    #[serde(skip)]
    pub(crate) base_event: Option<BaseEvent>,
    /// `subagent_run_id` = 2.
    #[prost(string, tag = "2")]
    #[serde(default)]
    pub(crate) subagent_run_id: String,
    /// `message` = 3.
    #[prost(string, tag = "3")]
    #[serde(default)]
    pub(crate) message: String,
    /// `code` = 4.
    #[prost(string, optional, tag = "4")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) code: Option<String>,
}
