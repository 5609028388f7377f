//! Integration tests of ag-ui-core: the shared fixtures, the spec's examples, the producer
//! contract, SSE, error messages and stream semantics.

#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail by panicking")]

mod allocations;
mod api;
mod bench_corpus;
mod consumer;
mod contract;
mod error_table;
mod errors;
mod features;
mod fixtures;
mod fuzz;
mod hostile;
mod layout;
mod lifecycle;
mod patch;
mod producer;
mod props;
#[cfg(feature = "proto")]
mod proto;
mod provider_history;
mod public_paths;
mod sse;
mod sse_work;
mod strategies;
mod streams;
mod table;
mod thread;
mod verify_queries;
mod version;
