//! Integration tests of the AG-UI 1.0 JSON Schema bundle (one test binary).
#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail by panicking")]

mod agreement;
mod api;
mod bundle;
mod drift;
mod fixtures;
mod layout;
mod openapi;
mod support;
mod versions;
