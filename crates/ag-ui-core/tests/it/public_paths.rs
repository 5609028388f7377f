//! The public paths of the crate, pinned: this module fails to compile if one goes away.
//! `canonical` holds the one documented path of each item: the reader's functions in
//! `read`, the writer's in `write`, SSE framing in `sse`, `verify_events` in `stream`;
//! `root` the types a user names, at the crate root. The first release's other paths
//! (functions at the root, `event`, `chunk` and `verify` at the root, types repeated in
//! `read` and `sse`) are gone: one path per item.

mod canonical {
    #[allow(unused_imports)]
    use ag_ui_core::read::{
        MAX_WARNINGS, decode, decode_for, decode_slice, decode_value, from_slice, from_str,
    };
    #[allow(unused_imports)]
    use ag_ui_core::sse::{
        DEFAULT_MAX_FRAME_BYTES, PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, to_sse_frame, write_sse_frame,
    };
    #[allow(unused_imports)]
    use ag_ui_core::stream::verify::{EntityKind, Open, OpenKind};
    #[allow(unused_imports)]
    use ag_ui_core::stream::verify_events;
    #[allow(unused_imports)]
    use ag_ui_core::write::{to_string, to_string_for, to_vec, to_vec_for};
    #[allow(unused_imports)]
    use ag_ui_core::{
        BoxError, ConsumeError, Error, ErrorKind, HistoryRepair, NO_TOOL_RESULT, PatchError,
        PipelineError, ProviderHistory, ProviderMessage, RepairKind, RunLifecycle, RunStatus,
        StreamConsumer, ThreadState, provider_history,
    };
    #[allow(unused_imports)]
    use ag_ui_core::{
        ParseVersionError, ProtocolVersion, VERSIONED_FIELDS, Versioned, VersionedField,
    };
}

mod root {
    #[allow(unused_imports, deprecated)]
    use ag_ui_core::{
        AGUI_METADATA_KEY, ActivityMessage, AddOperation, AgentCapabilities, AssistantMessage,
        AudioInputContent, AudioPart, BinaryInputContent, ChunkExpander, Content, ContentPart,
        Context, CopyOperation, DataSource, Decoded, DeveloperMessage, DocumentInputContent,
        DocumentPart, Error, EventDecoder, EventPipeline, ExecutionCapabilities, FileSource,
        FunctionCall, HumanInTheLoopCapabilities, IdentityCapabilities, ImageInputContent,
        ImagePart, InputContent, InputContentDataSource, InputContentSource, InputContentUrlSource,
        Interrupt, InterruptId, JsonPatch, JsonPatchOperation, JsonPointer, MAX_SAFE_INTEGER,
        Message, MessageId, Metadata, MoveOperation, MultiAgentCapabilities,
        MultimodalCapabilities, MultimodalInputCapabilities, MultimodalOutputCapabilities,
        NonEmpty, OutputCapabilities, PROTOCOL_VERSION, PartSource, PipelineError,
        REASON_CONFIRMATION, REASON_INPUT_REQUIRED, REASON_TOOL_CALL, ReadMode,
        ReasoningCapabilities, ReasoningMessage, RemoveOperation, ReplaceOperation, Result,
        ResumeEntry, ResumeStatus, Role, Rule, RunAgentInput, RunFinishedCancelledOutcome,
        RunFinishedInterruptOutcome, RunFinishedOutcome, RunFinishedSuccessOutcome, RunId,
        SseReader, State, StateCapabilities, SubagentFinishedOutcome,
        SubagentFinishedSuccessOutcome, SubagentFinishedSuspendedOutcome, SubagentInfo,
        SubagentRunId, SystemMessage, TestOperation, TextInputContent, TextMessageRole, TextPart,
        ThreadId, TokenUsage, Tool, ToolCall, ToolCallId, ToolMessage, ToolsCapabilities,
        TransportCapabilities, UrlSource, UserMessage, Verifier, VideoInputContent, VideoPart,
        Violation, Warning, WarningKind,
    };
}
