#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod request;
mod stream;

pub use ag_ui_agent;
pub use async_openai;
pub use stream::{OpenAiAgent, OpenAiModel};
