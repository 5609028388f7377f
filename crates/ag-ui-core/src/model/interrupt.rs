//! Human-in-the-loop: `Interrupt`, `ResumeEntry` and `ResumeStatus`.

use serde_json::{Map, Value};

use crate::codec::wire::{wire_enum, wire_struct};
use crate::model::id::{InterruptId, SubagentRunId, ToolCallId};
use crate::model::metadata::Metadata;

/// Core `Interrupt.reason`: the run waits for a tool call to be approved (should carry `toolCallId`).
pub const REASON_TOOL_CALL: &str = "tool_call";
/// Core `Interrupt.reason`: the run needs input (should carry `responseSchema`).
pub const REASON_INPUT_REQUIRED: &str = "input_required";
/// Core `Interrupt.reason`: the run asks for a confirmation.
pub const REASON_CONFIRMATION: &str = "confirmation";

wire_struct! {
    /// `Interrupt`: something the run needs from outside before it can continue; carried only
    /// inside a `RunFinishedInterruptOutcome`.
    pub struct Interrupt {
        required {
            /// Correlation key; a `ResumeEntry` answers it by `interruptId`.
            id: InterruptId = "id" ("an interrupt id string"),
            /// Open string; core values `tool_call`, `input_required`, `confirmation`; custom
            /// reasons are namespaced `<framework>:<name>`.
            reason: String = "reason" ("a string"),
        }
        optional {
            /// Subagent invocation this item belongs to (it produced the event, owns the message or
            /// raised the interrupt); absent = the parent agent. Never `null`.
            subagent_run_id / with_subagent_run_id: SubagentRunId = "subagentRunId" [Reject],
            /// Human-readable prompt (universal fallback UI).
            message / with_message: String = "message" [Absent],
            /// Tool call this interrupt gates (tool approval).
            tool_call_id / with_tool_call_id: ToolCallId = "toolCallId" [Absent],
            /// JSON Schema the resume payload should satisfy (a JSON object).
            response_schema / with_response_schema: Map<String, Value> = "responseSchema" [Absent],
            /// Expiry, conventionally ISO-8601 (not validated).
            expires_at / with_expires_at: String = "expiresAt" [Absent],
            /// Framework-specific data (e.g. checkpoint ids).
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
    }
}

wire_enum! {
    /// `ResumeStatus`: how a `ResumeEntry` answers its interrupt.
    pub enum ResumeStatus ["resume status"] {
        /// The payload carries the answer (a denial is expressed inside the payload).
        Resolved = "resolved",
        /// The interrupt is cancelled; the payload should be omitted.
        Cancelled = "cancelled",
    }
}

wire_struct! {
    /// `ResumeEntry`: one answer inside `RunAgentInput.resume`.
    pub struct ResumeEntry {
        required {
            /// Id of the interrupt being answered.
            interrupt_id: InterruptId = "interruptId" ("an interrupt id string"),
            /// `resolved` or `cancelled`.
            status: ResumeStatus = "status" ("\"resolved\" or \"cancelled\""),
        }
        optional {
            /// The answer, any JSON.
            payload / with_payload: Value = "payload" [Absent],
            /// Envelope data (signatures, routing keys), not the answer; no merge semantics.
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
    }
}
