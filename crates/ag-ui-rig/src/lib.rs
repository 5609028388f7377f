#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod agent;
mod mapping;

pub use ag_ui_server::tools::{BackendTools, ToolAnswer, TurnEnd};
pub use agent::{CODE_STEP_LIMIT, DEFAULT_MAX_STEPS, RigAgent, UNMAPPED_EVENT};
pub use mapping::{
    CODE_CONTENT_FILTER, CODE_INCOMPLETE, CODE_LENGTH, CODE_PROVIDER_ERROR, Unmapped,
};
pub use rig_core;
