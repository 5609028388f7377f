#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(feature = "http", doc = include_str!("../README.md"))]
#![cfg_attr(
    not(feature = "http"),
    doc = "AG-UI 1.0 client, built without its `http` feature: the runtime-free core \
           ([`EventStream`], request building, errors). The crate README has the full guide."
)]

pub mod compat;
mod end;
mod error;
#[cfg(feature = "http")]
mod http;
mod request;
#[cfg(feature = "http")]
mod resume;
mod stream;
#[cfg(feature = "http")]
mod threads;
mod warning;

/// The protocol version type of `ag-ui-core`, re-exported (one type across the workspace).
pub use ag_ui_core::ProtocolVersion;
pub use end::{Reconnecting, RunEnd, RunItem, RunOutcome};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use error::DEFAULT_MAX_ERROR_BODY_BYTES;
pub use error::{ClientError, ClientErrorKind, TimeoutPhase};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use http::{HttpAgent, HttpAgentBuilder, HttpRun};
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub use request::current_traceparent;
pub use request::{
    RunOptions, build_input, build_input_as, normalize_input, normalize_input_as, read_input,
};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use resume::{
    DEFAULT_RESUME_ATTEMPTS, DEFAULT_RESUME_BACKOFF, DEFAULT_RESUME_MAX_BACKOFF, RunStopper,
};
pub use stream::{AbortHandle, EventStream};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use threads::{FOLLOW_RECONNECTS, FollowedEvent, ThreadFollow, ThreadPager, ThreadsApi};
pub use warning::{RunWarning, WarningSource};

/// The core crate this client builds on (events, messages, `ThreadState`).
pub use ag_ui_core as core;
