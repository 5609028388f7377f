//! Tools and tool calls: `Tool`, `ToolCall`, `FunctionCall`, and `Context`.

use serde_json::Value;

use crate::codec::wire::wire_struct;
use crate::model::id::ToolCallId;
use crate::model::metadata::Metadata;

wire_struct! {
    /// `FunctionCall`: the tool name plus the raw argument string.
    pub struct FunctionCall {
        required {
            /// Tool name being called.
            name: String = "name" ("a tool name string"),
            /// Arguments as a JSON **string**, carried verbatim (may be empty or invalid JSON).
            arguments: String = "arguments" ("a string (the arguments as JSON text)"),
        }
        optional {}
    }
}

impl FunctionCall {
    /// Parses `arguments` as JSON into `T`.
    ///
    /// # Errors
    /// [`crate::Error`] with the line and column of the problem (and, when `T` is an AG-UI
    /// wire type, its JSON Pointer). For arbitrary argument types, `ag-ui-builders`'
    /// `parse_arguments` also names the offending argument by JSON Pointer.
    pub fn parse_arguments<T: serde::de::DeserializeOwned>(&self) -> crate::Result<T> {
        crate::codec::read::from_str(&self.arguments)
    }
}

wire_struct! {
    /// `ToolCall`: one call inside `AssistantMessage.toolCalls`; `type` is always
    /// `"function"`. Carries no `subagentRunId`: it inherits its message's owner.
    pub struct ToolCall ["type" = "function"] {
        required {
            /// Call id; the answering tool message or `TOOL_CALL_RESULT` carries it as `toolCallId`.
            id: ToolCallId = "id" ("a tool call id string"),
            /// Name and argument string.
            function: FunctionCall = "function" ("a FunctionCall object"),
        }
        optional {
            /// Opaque provider artefact for this call.
            encrypted_value / with_encrypted_value: String = "encryptedValue" [Absent],
            /// What kind of artefact `encryptedValue` is, named by its producer (AG-UI 1.1, e.g.
            /// `anthropic.redacted_thinking`); opaque, and only ever written beside `encryptedValue`.
            encrypted_value_type / with_encrypted_value_type: String = "encryptedValueType" [Absent],
            /// Per-call metadata (tool-call events merge here, not into the parent message).
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
        paired {
            encrypted_value_type = "encryptedValueType" needs encrypted_value = "encryptedValue",
        }
    }
}

impl ToolCall {
    /// A call of `name` with the JSON text `arguments`.
    #[must_use]
    pub fn function(
        id: impl Into<ToolCallId>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self::new(id, FunctionCall::new(name, arguments))
    }
}

wire_struct! {
    /// `Tool`: a callable tool, client-provided (`RunAgentInput.tools`) or agent-provided
    /// (`ToolsCapabilities.items`).
    pub struct Tool {
        required {
            /// Name the agent calls the tool by.
            name: String = "name" ("a tool name string"),
            /// What the tool does.
            description: String = "description" ("a string"),
        }
        optional {
            /// JSON Schema of the arguments, carried opaquely (any JSON); absent = no arguments.
            parameters / with_parameters: Value = "parameters" [Absent],
            /// Rendering/routing information for the tool.
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
    }
}

wire_struct! {
    /// `Context`: named ambient information for a run (`RunAgentInput.context`).
    pub struct Context {
        required {
            /// What the entry is.
            description: String = "description" ("a string"),
            /// The context itself (a string; objects are rejected).
            value: String = "value" ("a string"),
        }
        optional {}
    }
}
