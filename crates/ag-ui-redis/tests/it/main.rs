//! ag-ui-redis over loopback, against a redis-server each test starts for itself.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::exhaustive_structs,
    clippy::exhaustive_enums,
    unreachable_pub
)]

mod both;
mod claims;
mod connections;
mod durable;
mod failure;
mod integrity;
mod multitask;
mod observe;
mod soak;
mod support;
