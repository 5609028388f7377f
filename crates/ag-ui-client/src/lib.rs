#![doc = include_str!("../README.md")]

pub mod compat;
mod end;
mod error;
#[cfg(feature = "http")]
mod http;
mod request;
mod stream;

pub use compat::ProtocolVersion;
pub use end::{RunEnd, RunItem, RunOutcome, RunWarning, WarningSource};
pub use error::{BoxError, ClientError, ErrorKind, TimeoutPhase};
#[cfg(feature = "http")]
pub use http::{DEFAULT_MAX_ERROR_BODY_BYTES, HttpAgent, HttpAgentBuilder, HttpRun};
pub use request::{RunOptions, build_input, normalize_input, read_input};
pub use stream::{AbortHandle, EventStream};

/// The core crate this client builds on (events, messages, `ThreadState`).
pub use ag_ui_core as core;
