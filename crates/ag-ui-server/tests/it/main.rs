//! Integration tests: the server over real loopback sockets, read by a real HTTP client.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::exhaustive_structs,
    unreachable_pub
)]

mod client;
mod demo;
mod guard;
mod http;
mod negotiate;
mod runs;
mod streaming;
mod support;
