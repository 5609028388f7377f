#![doc = include_str!("../README.md")]

mod wire;

#[cfg(feature = "schemars")]
mod schema;

mod capabilities;
pub mod chunk;
mod content;
mod error;
pub mod event;
mod id;
mod input;
mod interrupt;
mod json;
mod message;
mod metadata;
mod outcome;
mod patch;
mod pipeline;
pub mod read;
pub mod sse;
mod stream;
mod tool;
mod usage;
pub mod verify;

pub use capabilities::{
    AgentCapabilities, ExecutionCapabilities, HumanInTheLoopCapabilities, IdentityCapabilities,
    MultiAgentCapabilities, MultimodalCapabilities, MultimodalInputCapabilities,
    MultimodalOutputCapabilities, OutputCapabilities, ReasoningCapabilities, StateCapabilities,
    SubagentInfo, ToolsCapabilities, TransportCapabilities,
};
pub use chunk::ChunkExpander;
pub use content::{
    AudioPart, BinaryInputContent, Content, ContentPart, DataSource, DocumentPart, FileSource,
    ImagePart, PartSource, TextPart, UrlSource, VideoPart,
};
pub use error::{Error, Result};
pub use event::*;
pub use id::{InterruptId, MessageId, RunId, SubagentRunId, ThreadId, ToolCallId};
pub use input::RunAgentInput;
pub use interrupt::{
    Interrupt, REASON_CONFIRMATION, REASON_INPUT_REQUIRED, REASON_TOOL_CALL, ResumeEntry,
    ResumeStatus,
};
pub use message::{
    ActivityMessage, AssistantMessage, DeveloperMessage, Message, ReasoningMessage, Role,
    SystemMessage, TextMessageRole, ToolMessage, UserMessage,
};
pub use metadata::{AGUI_METADATA_KEY, Metadata, State};
pub use outcome::{
    NonEmpty, RunFinishedCancelledOutcome, RunFinishedInterruptOutcome, RunFinishedOutcome,
    RunFinishedSuccessOutcome, SubagentFinishedOutcome, SubagentFinishedSuccessOutcome,
    SubagentFinishedSuspendedOutcome,
};
pub use patch::{
    AddOperation, CopyOperation, JsonPatch, JsonPatchOperation, JsonPointer, MoveOperation,
    RemoveOperation, ReplaceOperation, TestOperation,
};
pub use pipeline::{EventPipeline, PipelineError};
pub use read::{
    Decoded, ReadMode, Warning, WarningKind, decode, decode_slice, decode_value, from_slice,
    from_str,
};
pub use sse::{
    PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, SseReader, to_sse_frame, to_string, to_vec, write_sse_frame,
};
pub use stream::EventDecoder;
pub use tool::{Context, FunctionCall, Tool, ToolCall};
pub use usage::TokenUsage;
pub use verify::{Rule, Verifier, Violation, verify_events};
pub use wire::MAX_SAFE_INTEGER;

/// The protocol version this crate implements, as declared in `protocolVersion`.
pub const PROTOCOL_VERSION: &str = "1.0";

/// 0.x name of [`ContentPart`].
#[deprecated(since = "0.1.0", note = "renamed ContentPart in AG-UI 1.0")]
pub type InputContent = ContentPart;
/// 0.x name of [`TextPart`].
#[deprecated(since = "0.1.0", note = "renamed TextPart in AG-UI 1.0")]
pub type TextInputContent = TextPart;
/// 0.x name of [`ImagePart`].
#[deprecated(since = "0.1.0", note = "renamed ImagePart in AG-UI 1.0")]
pub type ImageInputContent = ImagePart;
/// 0.x name of [`AudioPart`].
#[deprecated(since = "0.1.0", note = "renamed AudioPart in AG-UI 1.0")]
pub type AudioInputContent = AudioPart;
/// 0.x name of [`VideoPart`].
#[deprecated(since = "0.1.0", note = "renamed VideoPart in AG-UI 1.0")]
pub type VideoInputContent = VideoPart;
/// 0.x name of [`DocumentPart`].
#[deprecated(since = "0.1.0", note = "renamed DocumentPart in AG-UI 1.0")]
pub type DocumentInputContent = DocumentPart;
/// 0.x name of [`PartSource`].
#[deprecated(since = "0.1.0", note = "renamed PartSource in AG-UI 1.0")]
pub type InputContentSource = PartSource;
/// 0.x name of [`DataSource`].
#[deprecated(since = "0.1.0", note = "renamed DataSource in AG-UI 1.0")]
pub type InputContentDataSource = DataSource;
/// 0.x name of [`UrlSource`].
#[deprecated(since = "0.1.0", note = "renamed UrlSource in AG-UI 1.0")]
pub type InputContentUrlSource = UrlSource;
