//! The public paths of the crate. `canonical` pins the one documented path of each item:
//! every type at the crate root; the reader's functions in `read`, the writer's in `write`,
//! SSE framing in `sse`, `verify_events` in `stream`. The other modules pin every path of
//! the first release, which stays as a hidden re-export. This module fails to compile if
//! one goes away.

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

/// The first release's paths below the modules it made public.
mod nested {
    #[allow(unused_imports)]
    use ag_ui_core::codec::read::{
        Decoded, MAX_WARNINGS, ReadMode, Warning, WarningKind, decode, decode_slice, decode_value,
        from_slice, from_str,
    };
    #[allow(unused_imports)]
    use ag_ui_core::model::event::{Event, EventType, LEGACY_EVENT_TYPES, RunStartedEvent};
    #[allow(unused_imports)]
    use ag_ui_core::stream::chunk::ChunkExpander;
    #[allow(unused_imports)]
    use ag_ui_core::stream::sse::{
        DEFAULT_MAX_FRAME_BYTES, PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, SseReader, to_sse_frame,
        to_string, to_vec, write_sse_frame,
    };
    #[allow(unused_imports)]
    use ag_ui_core::stream::verify::{Rule, Verifier, Violation, verify_events};
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
        NonEmpty, OutputCapabilities, PROTO_MEDIA_TYPE, PROTOCOL_VERSION, PartSource,
        PipelineError, REASON_CONFIRMATION, REASON_INPUT_REQUIRED, REASON_TOOL_CALL, ReadMode,
        ReasoningCapabilities, ReasoningMessage, RemoveOperation, ReplaceOperation, Result,
        ResumeEntry, ResumeStatus, Role, Rule, RunAgentInput, RunFinishedCancelledOutcome,
        RunFinishedInterruptOutcome, RunFinishedOutcome, RunFinishedSuccessOutcome, RunId,
        SSE_MEDIA_TYPE, SseReader, State, StateCapabilities, SubagentFinishedOutcome,
        SubagentFinishedSuccessOutcome, SubagentFinishedSuspendedOutcome, SubagentInfo,
        SubagentRunId, SystemMessage, TestOperation, TextInputContent, TextMessageRole, TextPart,
        ThreadId, TokenUsage, Tool, ToolCall, ToolCallId, ToolMessage, ToolsCapabilities,
        TransportCapabilities, UrlSource, UserMessage, Verifier, VideoInputContent, VideoPart,
        Violation, Warning, WarningKind, decode, decode_slice, decode_value, from_slice, from_str,
        to_sse_frame, to_string, to_vec, verify_events, write_sse_frame,
    };
}

mod event {
    #[allow(unused_imports)]
    use ag_ui_core::event::{
        ActivityDeltaEvent, ActivitySnapshotEvent, CustomEvent, Event, EventType,
        LEGACY_EVENT_TYPES, MessagesSnapshotEvent, RawEvent, ReasoningEncryptedValueEvent,
        ReasoningEncryptedValueSubtype, ReasoningEndEvent, ReasoningMessageChunkEvent,
        ReasoningMessageContentEvent, ReasoningMessageEndEvent, ReasoningMessageStartEvent,
        ReasoningRole, ReasoningStartEvent, RunErrorEvent, RunFinishedEvent, RunStartedEvent,
        StateDeltaEvent, StateSnapshotEvent, StepFinishedEvent, StepStartedEvent,
        SubagentErrorEvent, SubagentFinishedEvent, SubagentStartedEvent, TextMessageChunkEvent,
        TextMessageContentEvent, TextMessageEndEvent, TextMessageStartEvent, ToolCallArgsEvent,
        ToolCallChunkEvent, ToolCallEndEvent, ToolCallResultEvent, ToolCallStartEvent, ToolRole,
    };
}

mod read {
    #[allow(unused_imports)]
    use ag_ui_core::read::{
        Decoded, ReadMode, Warning, WarningKind, decode, decode_slice, decode_value, from_slice,
        from_str,
    };
}

mod sse {
    #[allow(unused_imports)]
    use ag_ui_core::sse::{
        DEFAULT_MAX_FRAME_BYTES, PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, SseReader, to_sse_frame,
        to_string, to_vec, write_sse_frame,
    };
}

mod verify {
    #[allow(unused_imports)]
    use ag_ui_core::verify::{Rule, Verifier, Violation, verify_events};
}

mod chunk {
    #[allow(unused_imports)]
    use ag_ui_core::chunk::ChunkExpander;
}
