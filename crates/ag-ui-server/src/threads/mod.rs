//! Durable threads: every conversation kept per owner, with its runs and its fold, in a
//! [`ThreadStore`] beside the live [`RunStore`](crate::runs::RunStore).
//!
//! The runs feature ([`Runs`](crate::runs::Runs)) writes a thread when a run starts, at
//! a bounded interval while it goes on, and when it ends. [`MemoryThreads`] keeps threads
//! for the life of the process; `ag-ui-sql` keeps them in PostgreSQL (for services, many
//! instances sharing one database) or SQLite (one machine, one file). The records and
//! queries, which are also the threads API's JSON, come from [`ag_ui_core::api`].

mod memory;
mod store;

pub use ag_ui_core::api::{
    Archived, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, Multitask, RunEndKind, RunPhase, RunRecord,
    RunSummary, ThreadDetail, ThreadPage, ThreadPatch, ThreadQuery, ThreadSummary,
};
pub use memory::{DEFAULT_MAX_THREADS, MemoryThreads};
pub use store::{
    CODE_RUN_LOST, Owner, RunEnding, RunStart, StoredThread, ThreadFuture, ThreadStore,
    ThreadStoreError, decode_fold, encode_fold, owner_key,
};
