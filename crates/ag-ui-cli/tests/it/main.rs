//! Integration tests: the `ag-ui` binary run as a user runs it, against the workspace's demo
//! server, deliberately broken servers and recordings, all on 127.0.0.1.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::exhaustive_structs,
    unreachable_pub
)]

mod broken;
mod chat;
mod check;
mod layout;
mod load;
mod replay;
mod run;
mod schema;
mod support;
mod threads;
