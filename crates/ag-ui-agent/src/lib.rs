#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod agent;
mod driver;
pub mod model;
pub mod tools;

pub use agent::{CODE_STEP_LIMIT, DEFAULT_MAX_STEPS, ModelAgent, UNMAPPED_EVENT};
pub use model::{
    CODE_CONTENT_FILTER, CODE_INCOMPLETE, CODE_LENGTH, CODE_PROVIDER_ERROR, CompletionModel,
    Finish, ModelError, ModelEvent, ModelRequest, ModelStream, OfferedTool, Unmapped,
};
pub use tools::{BackendTools, ToolAnswer, ToolContext, ToolFuture};
