#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod agent;
mod request;
mod stream;

pub use ag_ui_server::tools::{BackendTools, ToolAnswer, TurnEnd};
pub use agent::{CODE_STEP_LIMIT, DEFAULT_MAX_STEPS, OpenAiAgent, UNMAPPED_EVENT};
pub use async_openai;
pub use request::Unmapped;
pub use stream::{CODE_CONTENT_FILTER, CODE_INCOMPLETE, CODE_LENGTH, CODE_PROVIDER_ERROR};
