#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The implementation, one layer per folder (docs/design.md). `codec` and `model` were public
// in the first release; their paths stay as hidden re-exports.
pub mod api;
#[doc(hidden)]
pub mod codec;
pub(crate) mod hash;
#[doc(hidden)]
pub mod model;
#[cfg(feature = "proto")]
#[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
pub mod proto;
pub mod stream;
pub(crate) mod thread;

pub mod read {
    //! Reading AG-UI JSON: the forgiving 1.0 receiver ([`from_str`], [`from_slice`]), with
    //! the warnings of what it forgave and an exact mode ([`decode`], [`decode_slice`],
    //! [`decode_value`]). The types these return ([`crate::Decoded`],
    //! [`crate::ReadMode`], [`crate::Warning`],
    //! [`crate::WarningKind`]) live at the crate root; [`crate::write`] is the
    //! other direction.

    pub use crate::codec::read::{
        MAX_WARNINGS, decode, decode_slice, decode_value, from_slice, from_str,
    };
    pub use crate::model::version::decode_for;
}

pub mod write {
    //! Writing AG-UI JSON: compact, exact 1.0 documents ([`to_string`], [`to_vec`], and
    //! [`append`] into a buffer reused from value to value) of any [`Encode`] type; a value
    //! the wire cannot hold is an [`Error`](crate::Error) of kind
    //! [`ErrorKind::Encode`](crate::ErrorKind::Encode) naming the offending member. SSE
    //! framing of the same JSON is [`crate::sse`]; [`crate::read`] is the other direction.

    pub use crate::codec::write::{Encode, append, to_string, to_vec};
    #[doc(hidden)]
    pub use crate::codec::write::{Out, Refused};
    pub use crate::model::version::{to_string_for, to_vec_for};
}

pub mod version {
    //! Protocol versions, in one place: what a peer of an older version is sent. The
    //! versions themselves come from two tables, the event table
    //! ([`for_each_event!`](crate::for_each_event): each event's first version,
    //! [`EventType::since`](crate::EventType::since)) and
    //! [`VERSIONED_FIELDS`](crate::VERSIONED_FIELDS) (each member a version after 1.0
    //! added). [`downgrade_event`] withholds or downgrades an event for a peer,
    //! [`downgrade_for_pre_1_0`] adds what a caller older than 1.0 needs, [`downgrade_input`]
    //! downgrades a run input for an agent of an older version, and
    //! [`Versioned::downgrade`](crate::Versioned::downgrade) downgrades any other value (a
    //! run input, a message); [`crate::read::decode_for`] and [`crate::write::to_string_for`]
    //! read and write as a peer of a version does.

    pub use crate::model::version::{downgrade_event, downgrade_for_pre_1_0, downgrade_input};
}

pub mod sse {
    //! Server-Sent Events framing (spec §8.3): [`to_sse_frame`] and [`write_sse_frame`]
    //! write `data: <compact JSON>\n\n`; [`crate::SseReader`] (at the crate
    //! root) reads message texts back out of bytes. The JSON itself is [`crate::write`].

    pub use crate::stream::sse::{
        DEFAULT_MAX_FRAME_BYTES, PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, to_sse_frame, write_sse_frame,
    };
}

pub use codec::error::{BoxError, Error, ErrorKind, Result};
pub use codec::read::{Decoded, ReadMode, Warning, WarningKind};
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
pub use model::version::{
    ParseVersionError, ProtocolVersion, VERSIONED_FIELDS, Versioned, VersionedField,
};
pub use stream::chunk::ChunkExpander;
pub use stream::consumer::{ConsumeError, StreamConsumer};
pub use stream::decoder::EventDecoder;
pub use stream::lifecycle::{RunLifecycle, RunStatus};
pub use stream::pipeline::{EventPipeline, PipelineError};
pub use stream::sse::SseReader;
pub use stream::verify::{Rule, Verifier, Violation};
pub use thread::{
    HistoryRepair, NO_TOOL_RESULT, ProviderHistory, ProviderMessage, RepairKind, ThreadState,
    provider_history,
};

/// The `protocolVersion` this workspace's clients and producers declare unless told
/// otherwise: `"1.0"`, what the official 1.0.0 SDKs speak, so that a 1.0 peer sees exactly
/// 1.0 traffic. The newest version the crate reads and writes is
/// [`ProtocolVersion::LATEST`]; [`ProtocolVersion::V1_1`] is opt-in where a version is
/// declared.
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
