#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod agent;
mod cancel;
pub mod demo;
mod emit;
mod guard;
mod negotiate;
mod request;

#[cfg(feature = "axum")]
#[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
pub mod axum;
#[cfg(feature = "tower")]
#[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
pub mod runs;
#[cfg(feature = "tower")]
mod service;

pub use agent::{Agent, BoxError, EventStream};
pub use cancel::{Cancellation, Cancelled};
pub use emit::{DEFAULT_CAPACITY, EmitError, Emitter, emit, emit_with_capacity};
pub use guard::{
    CODE_AGENT_ERROR, CODE_AGENT_PANIC, CODE_ENCODE_ERROR, CODE_INCOMPLETE_RUN,
    CODE_PROTOCOL_VIOLATION, Hook, Report, RunGuard, RunOptions, SseFrames,
};
pub use negotiate::accepts_sse;
pub use request::{DEFAULT_BODY_LIMIT, Rejection, check_content_type, read_input};
#[cfg(feature = "tower")]
#[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
pub use service::{AgentService, DEFAULT_KEEP_ALIVE, KEEP_ALIVE_COMMENT, SseBody};

/// The workspace README's examples, compiled and run as this crate's doctests (this crate's
/// dev-dependencies reach every crate they use).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct WorkspaceReadme;
