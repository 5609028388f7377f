//! `SUBAGENT_STARTED`, `SUBAGENT_FINISHED`, `SUBAGENT_ERROR` (new in 1.0). Here
//! `subagentRunId` is required: it is the invocation's identity, not attribution.

use serde_json::Value;

use super::macros::event_struct;
use crate::model::id::{MessageId, SubagentRunId, ToolCallId};
use crate::model::outcome::SubagentFinishedOutcome;

event_struct! {
    /// `SUBAGENT_STARTED`: announces a subagent invocation.
    pub struct SubagentStartedEvent = "SUBAGENT_STARTED" [base] {
        required {
            /// Identifies the new invocation; unique per invocation within a run.
            subagent_run_id: SubagentRunId = "subagentRunId" ("a subagent run id string"),
            /// Reusable subagent name.
            name: String = "name" ("a string"),
        }
        optional {
            /// Display text.
            description / with_description: String = "description" [Absent],
            /// Enclosing invocation for nested delegation (must have started in this run).
            parent_subagent_run_id / with_parent_subagent_run_id: SubagentRunId = "parentSubagentRunId" [Absent],
            /// Tool call that spawned it (agents-as-tools).
            parent_tool_call_id / with_parent_tool_call_id: ToolCallId = "parentToolCallId" [Absent],
            /// Message holding the spawning tool call.
            parent_message_id / with_parent_message_id: MessageId = "parentMessageId" [Absent],
        }
    }
}

event_struct! {
    /// `SUBAGENT_FINISHED`: ends the invocation's segment of this run (completed or suspended).
    pub struct SubagentFinishedEvent = "SUBAGENT_FINISHED" [base] {
        required {
            /// Invocation being closed (must be active).
            subagent_run_id: SubagentRunId = "subagentRunId" ("a subagent run id string"),
        }
        optional {
            /// Return value, any JSON.
            result / with_result: Value = "result" [Absent],
            /// How the segment ended; absent = success.
            outcome / with_outcome: SubagentFinishedOutcome = "outcome" [Absent],
        }
    }
}

event_struct! {
    /// `SUBAGENT_ERROR`: a failed invocation; the run itself may continue.
    pub struct SubagentErrorEvent = "SUBAGENT_ERROR" [base] {
        required {
            /// Invocation that failed (must be active).
            subagent_run_id: SubagentRunId = "subagentRunId" ("a subagent run id string"),
            /// Human-readable error.
            message: String = "message" ("a string"),
        }
        optional {
            /// Open machine code.
            code / with_code: String = "code" [Absent],
        }
    }
}
