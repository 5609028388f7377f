#![doc = include_str!("../README.md")]

pub mod content;
mod conversation;
mod emitter;
mod error;
pub mod event;
mod ids;
mod input;
mod interrupt;
mod message;
pub mod patch;
mod tool;
#[cfg(feature = "schemars")]
mod typed;
mod usage;

pub use conversation::Conversation;
pub use emitter::{ModelChunk, RunEmitter};
pub use error::{CoreError, Error};
pub use ids::{IdGenerator, IdKind, SequentialIds, UuidIds};
pub use input::{RunInputBuilder, run_input};
pub use interrupt::{
    cancel, cancelled, confirmation, input_required, interrupt, interrupted, resolve, resume,
    subagent_success, subagent_suspended, success, success_pending, tool_approval,
};
pub use message::{
    activity_message, assistant_message, assistant_message_with_tool_calls, assistant_tool_calls,
    developer_message, reasoning_message, system_message, tool_message, user_message,
};
pub use tool::{
    IntoArguments, ObjectSchema, context, function_call, object_schema, parse_arguments, tool,
    tool_call,
};
#[cfg(feature = "schemars")]
pub use typed::{TypedTool, parameters_schema, typed_tool};
pub use usage::{Accounting, ProviderUsage, UsageMeter};
