#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod agent;
#[cfg(feature = "tower")]
mod body;
mod cancel;
mod context;
#[cfg(feature = "emit")]
#[cfg_attr(docsrs, doc(cfg(feature = "emit")))]
pub mod demo;
#[cfg(feature = "emit")]
mod emit;
mod guard;
mod negotiate;
mod request;
pub mod resume;
mod runstats;
mod sync;
pub mod telemetry;

#[cfg(feature = "axum")]
#[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
pub mod axum;
#[cfg(feature = "serve")]
#[cfg_attr(docsrs, doc(cfg(feature = "serve")))]
pub mod cors;
#[cfg(feature = "logging")]
#[cfg_attr(docsrs, doc(cfg(feature = "logging")))]
pub mod logging;
#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub mod metrics;
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub mod otel;
#[cfg(feature = "tower")]
#[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
pub mod runs;
#[cfg(feature = "serve")]
#[cfg_attr(docsrs, doc(cfg(feature = "serve")))]
pub mod serve;
#[cfg(feature = "tower")]
mod service;
#[cfg(feature = "tower")]
#[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
pub mod threads;

pub use agent::{Agent, AgentStream, ContextAgent};
#[cfg(feature = "tower")]
#[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
pub use body::{KEEP_ALIVE_COMMENT, SseBody};
pub use cancel::{Cancellation, Cancelled};
pub use context::{PeerAddr, Principal, RunContext};
#[cfg(feature = "emit")]
#[cfg_attr(docsrs, doc(cfg(feature = "emit")))]
pub use emit::{DEFAULT_CAPACITY, EmitError, Emitter, emit, emit_with_capacity};
#[cfg(feature = "proto")]
#[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
pub use guard::ProtoFrames;
pub use guard::{
    CODE_AGENT_ERROR, CODE_AGENT_PANIC, CODE_ENCODE_ERROR, CODE_INCOMPLETE_RUN,
    CODE_PROTOCOL_VIOLATION, GuardOptions, Hook, Report, ReportKind, RunGuard, SseFrames,
};
#[cfg(feature = "proto")]
#[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
pub use negotiate::accepts_proto;
pub use negotiate::accepts_sse;
pub use request::{
    BodyTimeout, DEFAULT_BODY_LIMIT, Rejection, check_content_type, read_request_body,
};
#[cfg(feature = "tower")]
#[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
pub use service::{AgentService, DEFAULT_KEEP_ALIVE};

/// The workspace README's examples, compiled and run as this crate's doctests (this crate's
/// dev-dependencies reach every crate they use).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct WorkspaceReadme;
