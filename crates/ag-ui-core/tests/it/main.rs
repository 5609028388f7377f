//! Integration tests of ag-ui-core: the shared fixtures, the spec's examples, the producer
//! contract, SSE, error messages and stream semantics.

#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail by panicking")]

mod errors;
mod fixtures;
mod producer;
mod sse;
mod streams;
