//! Integration tests: the server over real loopback sockets, read by a real HTTP client.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::exhaustive_structs,
    unreachable_pub
)]

mod bearer;
mod client;
mod context;
mod cors;
mod demo;
mod disconnect;
mod durable;
mod follow;
mod guard;
mod http;
mod layout;
#[cfg(feature = "metrics")]
mod metrics;
mod multitask;
mod negotiate;
mod network;
mod observe;
mod owner_memory;
mod peer;
#[cfg(feature = "proto")]
mod proto;
mod routes;
mod runs;
mod streaming;
mod support;
mod telemetry;
mod threads;
mod threads_client;
mod threads_memory;
