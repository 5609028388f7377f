#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod model;
mod request;
mod tools;

pub use ag_ui_agent;
pub use model::{RigAgent, RigModel};
pub use rig_core;
pub use tools::RigTools;
