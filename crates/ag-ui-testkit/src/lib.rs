//! Test support shared by the workspace's crates (not published).
//!
//! Each module starts one real part a test needs and stops it when dropped, bound to
//! `127.0.0.1`, with every wait bounded. Test binaries depend on this crate by path instead of
//! keeping copies of the same support code.
//!
//! Test support fails the way a test does: a broken expectation panics with what was seen.
#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

pub mod net;
pub mod postgres;
pub mod process;
pub mod prometheus;
pub mod redis;
pub mod server;

#[cfg(feature = "model")]
pub mod provider;
#[cfg(feature = "model")]
pub mod suite;
#[cfg(feature = "threads")]
pub mod threads;
#[cfg(feature = "threads-api")]
pub mod threads_api;
