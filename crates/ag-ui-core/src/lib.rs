#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod codec;
pub mod model;
pub mod stream;
pub(crate) mod thread;

pub use codec::read;
pub use model::event;
pub use stream::{chunk, sse, verify};

pub use codec::error::{BoxError, Error, ErrorKind, Result};
pub use codec::read::{
    Decoded, ReadMode, Warning, WarningKind, decode, decode_slice, decode_value, from_slice,
    from_str,
};
pub use codec::wire::MAX_SAFE_INTEGER;
pub use model::capabilities::{
    AgentCapabilities, ExecutionCapabilities, HumanInTheLoopCapabilities, IdentityCapabilities,
    MultiAgentCapabilities, MultimodalCapabilities, MultimodalInputCapabilities,
    MultimodalOutputCapabilities, OutputCapabilities, ReasoningCapabilities, StateCapabilities,
    SubagentInfo, ToolsCapabilities, TransportCapabilities,
};
pub use model::content::{
    AudioPart, BinaryInputContent, Content, ContentPart, DataSource, DocumentPart, FileSource,
    ImagePart, PartSource, TextPart, UrlSource, VideoPart,
};
pub use model::definitions::{DEFINITIONS, MIXINS};
pub use model::event::*;
pub use model::id::{InterruptId, MessageId, RunId, SubagentRunId, ThreadId, ToolCallId};
pub use model::input::RunAgentInput;
pub use model::interrupt::{
    Interrupt, REASON_CONFIRMATION, REASON_INPUT_REQUIRED, REASON_TOOL_CALL, ResumeEntry,
    ResumeMismatch, ResumeStatus, check_resume,
};
pub use model::message::{
    ActivityMessage, AssistantMessage, DeveloperMessage, Message, ReasoningMessage, Role,
    SystemMessage, TextMessageRole, ToolMessage, UserMessage,
};
pub use model::metadata::{AGUI_METADATA_KEY, Metadata, State};
pub use model::outcome::{
    NonEmpty, RunFinishedCancelledOutcome, RunFinishedInterruptOutcome, RunFinishedOutcome,
    RunFinishedSuccessOutcome, SubagentFinishedOutcome, SubagentFinishedSuccessOutcome,
    SubagentFinishedSuspendedOutcome,
};
pub use model::patch::{
    AddOperation, CopyOperation, JsonPatch, JsonPatchOperation, JsonPointer, MoveOperation,
    RemoveOperation, ReplaceOperation, TestOperation,
};
pub use model::patch_apply::PatchError;
pub use model::tool::{Context, FunctionCall, Tool, ToolCall};
pub use model::usage::TokenUsage;
pub use stream::chunk::ChunkExpander;
pub use stream::consumer::{ConsumeError, StreamConsumer};
pub use stream::decoder::EventDecoder;
pub use stream::pipeline::{EventPipeline, PipelineError};
pub use stream::sse::{
    PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, SseReader, to_sse_frame, to_string, to_vec, write_sse_frame,
};
pub use stream::verify::{Rule, Verifier, Violation, verify_events};
pub use thread::{RunStatus, ThreadState};

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
