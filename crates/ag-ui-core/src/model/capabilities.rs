//! `AgentCapabilities`: the discovery document an agent returns (not part of the event
//! stream). Everything is optional; an absent field means "not declared", not "unsupported".

use serde_json::{Map, Value};

use crate::codec::wire::wire_struct;
use crate::model::metadata::Metadata;
use crate::model::tool::Tool;

macro_rules! flags {
    ($(#[$meta:meta])* $name:ident { $( $(#[$fmeta:meta])* $field:ident / $with:ident = $wire:literal ),* $(,)? }) => {
        wire_struct! {
            $(#[$meta])*
            pub struct $name {
                required {}
                optional {
                    $( $(#[$fmeta])* $field / $with: bool = $wire [Absent], )*
                }
            }
        }
    };
}

wire_struct! {
    /// `IdentityCapabilities`: who the agent is.
    pub struct IdentityCapabilities {
        required {}
        optional {
            /// Display name.
            name / with_name: String = "name" [Absent],
            /// Framework powering the agent (`langgraph`, `mastra`, …); an open string.
            r#type / with_type: String = "type" [Absent],
            /// What the agent does.
            description / with_description: String = "description" [Absent],
            /// Agent version (semver suggested).
            version / with_version: String = "version" [Absent],
            /// Maintaining organisation.
            provider / with_provider: String = "provider" [Absent],
            /// Documentation or homepage URL (no format check).
            documentation_url / with_documentation_url: String = "documentationUrl" [Absent],
            /// Integration-specific identity information.
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
    }
}

flags! {
    /// `TransportCapabilities`: how the agent can be reached.
    TransportCapabilities {
        /// Streams over SSE.
        streaming / with_streaming = "streaming",
        /// Accepts WebSocket connections.
        websocket / with_websocket = "websocket",
        /// Speaks the protobuf binary transport.
        http_binary / with_http_binary = "httpBinary",
        /// Can push updates via webhooks after a run.
        push_notifications / with_push_notifications = "pushNotifications",
        /// Can resume interrupted streams via sequence numbers.
        resumable / with_resumable = "resumable",
    }
}

wire_struct! {
    /// `ToolsCapabilities`: the agent's tool support.
    pub struct ToolsCapabilities {
        required {}
        optional {
            /// Can call tools at all (`false` disables even if `items` is present).
            supported / with_supported: bool = "supported" [Absent],
            /// Tools the agent itself provides (distinct from `RunAgentInput.tools`).
            items / with_items: Vec<Tool> = "items" [Absent],
            /// Can issue several calls concurrently in one step.
            parallel_calls / with_parallel_calls: bool = "parallelCalls" [Absent],
            /// Accepts client tools at run time.
            client_provided / with_client_provided: bool = "clientProvided" [Absent],
        }
    }
}

wire_struct! {
    /// `OutputCapabilities`: what the agent can produce.
    pub struct OutputCapabilities {
        required {}
        optional {
            /// Can emit JSON conforming to a schema.
            structured_output / with_structured_output: bool = "structuredOutput" [Absent],
            /// MIME types it can produce.
            supported_mime_types / with_supported_mime_types: Vec<String> = "supportedMimeTypes" [Absent],
        }
    }
}

flags! {
    /// `StateCapabilities`: how the agent handles state.
    StateCapabilities {
        /// Emits `STATE_SNAPSHOT`.
        snapshots / with_snapshots = "snapshots",
        /// Emits `STATE_DELTA`.
        deltas / with_deltas = "deltas",
        /// Has long-term memory beyond the thread.
        memory / with_memory = "memory",
        /// State survives across runs of a thread.
        persistent_state / with_persistent_state = "persistentState",
    }
}

wire_struct! {
    /// `SubagentInfo`: one invocable subagent.
    pub struct SubagentInfo {
        required {
            /// Subagent name (reusable across invocations).
            name: String = "name" ("a string"),
        }
        optional {
            /// What it specialises in.
            description / with_description: String = "description" [Absent],
        }
    }
}

wire_struct! {
    /// `MultiAgentCapabilities`: multi-agent coordination.
    pub struct MultiAgentCapabilities {
        required {}
        optional {
            /// Takes part in multi-agent coordination.
            supported / with_supported: bool = "supported" [Absent],
            /// Delegates subtasks while keeping control.
            delegation / with_delegation: bool = "delegation" [Absent],
            /// Hands the conversation off entirely.
            handoffs / with_handoffs: bool = "handoffs" [Absent],
            /// Invocable subagents (wire key `subagents`; 0.x `subAgents` is now an unknown field).
            subagents / with_subagents: Vec<SubagentInfo> = "subagents" [Absent],
        }
    }
}

flags! {
    /// `ReasoningCapabilities`: visible reasoning.
    ReasoningCapabilities {
        /// Produces visible reasoning.
        supported / with_supported = "supported",
        /// Streams reasoning incrementally.
        streaming / with_streaming = "streaming",
        /// Reasoning arrives encrypted (expect `encryptedValue`).
        encrypted / with_encrypted = "encrypted",
    }
}

flags! {
    /// `MultimodalInputCapabilities`: accepted input modalities.
    MultimodalInputCapabilities {
        /// Accepts images.
        image / with_image = "image",
        /// Accepts audio.
        audio / with_audio = "audio",
        /// Accepts video.
        video / with_video = "video",
        /// Accepts PDF documents.
        pdf / with_pdf = "pdf",
        /// Accepts arbitrary files not covered by the other parts.
        file / with_file = "file",
    }
}

flags! {
    /// `MultimodalOutputCapabilities`: produced output modalities.
    MultimodalOutputCapabilities {
        /// Can produce images.
        image / with_image = "image",
        /// Can produce audio.
        audio / with_audio = "audio",
    }
}

wire_struct! {
    /// `MultimodalCapabilities`: input and output modalities.
    pub struct MultimodalCapabilities {
        required {}
        optional {
            /// Accepted input modalities.
            input / with_input: MultimodalInputCapabilities = "input" [Absent],
            /// Produced output modalities.
            output / with_output: MultimodalOutputCapabilities = "output" [Absent],
        }
    }
}

wire_struct! {
    /// `ExecutionCapabilities`: code execution and limits.
    pub struct ExecutionCapabilities {
        required {}
        optional {
            /// Can execute code.
            code_execution / with_code_execution: bool = "codeExecution" [Absent],
            /// Code runs sandboxed (meaningful only with `codeExecution`).
            sandboxed / with_sandboxed: bool = "sandboxed" [Absent],
            /// Maximum tool/reasoning iterations per run (0 … 2^53 − 1).
            max_iterations / with_max_iterations: u64 = "maxIterations" [Absent],
            /// Maximum wall-clock run time in milliseconds (0 … 2^53 − 1).
            max_execution_time / with_max_execution_time: u64 = "maxExecutionTime" [Absent],
        }
    }
}

flags! {
    /// `HumanInTheLoopCapabilities`: human-in-the-loop support.
    HumanInTheLoopCapabilities {
        /// Any human-in-the-loop support.
        supported / with_supported = "supported",
        /// Asks for approval before sensitive actions.
        approvals / with_approvals = "approvals",
        /// Lets humans modify the plan mid-run.
        interventions / with_interventions = "interventions",
        /// Uses user feedback within the session.
        feedback / with_feedback = "feedback",
        /// Implements the interrupt lifecycle (interrupt outcome + `RunAgentInput.resume`).
        interrupts / with_interrupts = "interrupts",
        /// Tool-call interrupts accept `editedArgs` in the resume payload.
        approve_with_edits / with_approve_with_edits = "approveWithEdits",
    }
}

wire_struct! {
    /// `AgentCapabilities`: the discovery document an agent returns. There is no negotiation.
    pub struct AgentCapabilities {
        required {}
        optional {
            /// Who the agent is.
            identity / with_identity: IdentityCapabilities = "identity" [Absent],
            /// How it can be reached.
            transport / with_transport: TransportCapabilities = "transport" [Absent],
            /// Tool support.
            tools / with_tools: ToolsCapabilities = "tools" [Absent],
            /// Output support.
            output / with_output: OutputCapabilities = "output" [Absent],
            /// State handling.
            state / with_state: StateCapabilities = "state" [Absent],
            /// Multi-agent coordination.
            multi_agent / with_multi_agent: MultiAgentCapabilities = "multiAgent" [Absent],
            /// Visible reasoning.
            reasoning / with_reasoning: ReasoningCapabilities = "reasoning" [Absent],
            /// Modalities.
            multimodal / with_multimodal: MultimodalCapabilities = "multimodal" [Absent],
            /// Code execution and limits.
            execution / with_execution: ExecutionCapabilities = "execution" [Absent],
            /// Human-in-the-loop support.
            human_in_the_loop / with_human_in_the_loop: HumanInTheLoopCapabilities = "humanInTheLoop" [Absent],
            /// Integration-specific capabilities (a JSON object, any values).
            custom / with_custom: Map<String, Value> = "custom" [Absent],
        }
    }
}
