//! Integration tests: the thread store suite against SQLite files and a PostgreSQL server
//! of the test's own; migrations from empty and from the previous version, by several
//! instances at once; opening by URL.
#![allow(clippy::unwrap_used, clippy::panic, unreachable_pub)]

mod open;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;
