#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod content;
mod conversation;
mod emitter;
mod error;
pub mod event;
mod ids;
mod input;
pub mod interrupt;
mod message;
pub mod outcome;
pub mod patch;
mod schema;
mod tool;
#[cfg(feature = "schemars")]
mod typed;
mod usage;

pub use conversation::Conversation;

/// A `Vec<Message>` from messages of any types, each converted with `Into<Message>`: a
/// mixed list without `.into()` on every element.
///
/// ```
/// use ag_ui_builders::{messages, system_message, tool_message, user_message};
///
/// let history = messages![
///     system_message("sys-1", "You are a helpful assistant."),
///     user_message("msg-1", "Hi"),
///     tool_message("msg-2", "42", "call-1"),
/// ];
/// assert_eq!(history.len(), 3);
/// ```
#[macro_export]
macro_rules! messages {
    ($($message:expr),* $(,)?) => {{
        let messages: ::std::vec::Vec<$crate::__private::Message> =
            ::std::vec![$(::core::convert::Into::into($message)),*];
        messages
    }};
}

#[doc(hidden)]
pub mod __private {
    pub use ag_ui_core::Message;
}
pub use emitter::{ModelChunk, RunEmitter};
pub use error::{BuildError, CoreError};
pub use ids::{IdGenerator, IdKind, SequentialIds, UuidIds};
pub use input::{RunInputBuilder, run_input, thread_state};
pub use message::{
    activity_message, assistant_message, assistant_message_with_tool_calls, assistant_tool_calls,
    developer_message, reasoning_message, system_message, tool_message, user_message,
};
pub use schema::clean_schema;
#[cfg(feature = "schemars")]
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
pub use schemars;
pub use tool::{
    IntoArguments, ObjectSchema, context, function_call, object_schema, parse_arguments, tool,
    tool_call,
};
#[cfg(feature = "schemars")]
pub use typed::{TypedTool, clean_parameters_schema, parameters_schema, typed_tool};
pub use usage::{Accounting, ProviderUsage, UsageMeter};
