//! `TOOL_CALL_START`, `TOOL_CALL_ARGS`, `TOOL_CALL_END`, `TOOL_CALL_CHUNK`, `TOOL_CALL_RESULT`.

use super::macros::event_struct;
use crate::codec::wire::wire_enum;
use crate::model::content::Content;
use crate::model::id::{MessageId, ToolCallId};

event_struct! {
    /// `TOOL_CALL_START`: opens a tool call.
    pub struct ToolCallStartEvent = "TOOL_CALL_START" [attributable] {
        required {
            /// Call id; links ARGS, END and RESULT.
            tool_call_id: ToolCallId = "toolCallId" ("a tool call id string"),
            /// Tool being called.
            tool_call_name: String = "toolCallName" ("a tool name string"),
        }
        optional {
            /// Assistant message holding the call; absent = unattributed.
            parent_message_id / with_parent_message_id: MessageId = "parentMessageId" [Absent],
        }
    }
}

event_struct! {
    /// `TOOL_CALL_ARGS`: appends an argument fragment; the concatenation of a call's deltas
    /// forms `FunctionCall.arguments`.
    pub struct ToolCallArgsEvent = "TOOL_CALL_ARGS" [attributable] {
        required {
            /// Call these arguments belong to.
            tool_call_id: ToolCallId = "toolCallId" ("a tool call id string"),
            /// Argument text fragment (may be empty).
            delta: String = "delta" ("a string"),
        }
        optional {}
    }
}

event_struct! {
    /// `TOOL_CALL_END`: marks the arguments complete (says nothing about execution).
    pub struct ToolCallEndEvent = "TOOL_CALL_END" [attributable] {
        required {
            /// Call whose arguments are now complete.
            tool_call_id: ToolCallId = "toolCallId" ("a tool call id string"),
        }
        optional {}
    }
}

event_struct! {
    /// `TOOL_CALL_CHUNK`: shorthand for START/ARGS/END; every field optional.
    pub struct ToolCallChunkEvent = "TOOL_CALL_CHUNK" [attributable] {
        required {}
        optional {
            /// Required on the opening chunk; absent = continue the open call.
            tool_call_id / with_tool_call_id: ToolCallId = "toolCallId" [Absent],
            /// Required on the opening chunk.
            tool_call_name / with_tool_call_name: String = "toolCallName" [Absent],
            /// Propagated to the synthesized `TOOL_CALL_START`.
            parent_message_id / with_parent_message_id: MessageId = "parentMessageId" [Absent],
            /// Argument fragment.
            delta / with_delta: String = "delta" [Absent],
        }
    }
}

wire_enum! {
    /// The constant `role` of `TOOL_CALL_RESULT`: only `"tool"` is allowed.
    pub enum ToolRole ["tool result role"] {
        /// `"tool"`.
        Tool = "tool",
    }
}

event_struct! {
    /// `TOOL_CALL_RESULT`: delivers a tool result and mints a new tool message (hence its own
    /// `messageId`). Has no ordering precondition: its call may be from an earlier run.
    pub struct ToolCallResultEvent = "TOOL_CALL_RESULT" [attributable] {
        required {
            /// Id of the new tool message this result mints.
            message_id: MessageId = "messageId" ("a message id string"),
            /// Call being answered.
            tool_call_id: ToolCallId = "toolCallId" ("a tool call id string"),
            /// A string or an array of content parts.
            content: Content = "content" ("a string or an array of content parts"),
        }
        optional {
            /// Only `"tool"`; may be left out.
            role / with_role: ToolRole = "role" [Absent],
        }
    }
}
