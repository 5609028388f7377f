//! The JSON of this SDK's HTTP extension routes, beside the protocol: what
//! `ag-ui-server` answers and `ag-ui-client` reads. Not part of AG-UI itself.
//!
//! The threads API (`{agent}/threads…`): a thread's [`ThreadSummary`], its
//! [`RunRecord`]s, a list [`ThreadPage`] and its [`ThreadQuery`], a [`ThreadPatch`], the
//! [`ThreadDetail`] of one thread, and the [`Multitask`] policy of a start on a busy
//! thread.
//!
//! ```
//! use ag_ui_core::api::{Archived, ThreadQuery};
//!
//! let query = ThreadQuery::from_query("limit=5&archived=any&metadata.project=alpha").unwrap();
//! assert_eq!(query.limit, 5);
//! assert_eq!(query.archived, Archived::Any);
//! assert_eq!(ThreadQuery::from_query(&query.to_query()).unwrap(), query);
//! assert!(ThreadQuery::from_query("limit=0").is_err());
//! ```

mod threads;
mod time;

pub use threads::{
    Archived, DEFAULT_LIST_LIMIT, InvalidParameter, MAX_LIST_LIMIT, METADATA_FILTER_PREFIX,
    Multitask, RunEndKind, RunPhase, RunRecord, RunSummary, ThreadDetail, ThreadPage, ThreadPatch,
    ThreadQuery, ThreadSummary,
};
