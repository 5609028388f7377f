//! Integration tests of ag-ui-core: the shared fixtures, the spec's examples, the producer
//! contract, SSE and error messages.

#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail by panicking")]

mod errors;
mod fixtures;
mod producer;
mod sse;
