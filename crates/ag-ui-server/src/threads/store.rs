//! The durable thread store: a trait, the records it keeps and the queries it answers.

use std::future::Future;
use std::pin::Pin;
use std::time::SystemTime;

use ag_ui_core::api::{
    RunEndKind, RunPhase, RunRecord, ThreadDetail, ThreadPage, ThreadPatch, ThreadQuery,
    ThreadSummary,
};
use ag_ui_core::{Event, Message, ThreadState, TokenUsage};

/// Who a thread belongs to: the principal the service's authorisation named, `None` for
/// the anonymous principal (every request of a service without authorisation). A store
/// keeps the anonymous principal as the empty string, so a principal's name is never
/// empty (the runs feature refuses an authorisation that names an empty one).
pub type Owner<'a> = Option<&'a str>;

/// The key a store files an owner under: the principal's name, `""` for the anonymous
/// principal.
#[must_use]
pub fn owner_key(owner: Owner<'_>) -> &str {
    owner.unwrap_or("")
}

/// `errorCode` of a run whose instance stopped before it ended (a crash, a kill, a lost
/// machine): the run is ended as [`RunEndKind::Error`] with this code, and the thread
/// keeps what its last checkpoint held.
pub const CODE_RUN_LOST: &str = "run_lost";

/// A whole stored thread: its summary, its fold and its runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StoredThread {
    /// The summary.
    pub summary: ThreadSummary,
    /// The thread's fold: after its last ended run, or as the last checkpoint of a run in
    /// progress left it.
    pub thread: ThreadState,
    /// Its runs, oldest first.
    pub runs: Vec<RunRecord>,
}

impl StoredThread {
    /// A stored thread (for a store in another crate: the struct is non-exhaustive).
    #[must_use]
    pub fn new(summary: ThreadSummary, thread: ThreadState, runs: Vec<RunRecord>) -> Self {
        StoredThread {
            summary,
            thread,
            runs,
        }
    }

    /// The thread as `GET {agent}/threads/{threadId}` answers it in JSON: the summary,
    /// the fold's messages and state, the runs.
    #[must_use]
    pub fn detail(&self) -> ThreadDetail {
        ThreadDetail::new(
            self.summary.clone(),
            self.thread.messages().to_vec(),
            self.thread.state().clone(),
            self.runs.clone(),
        )
    }

    /// The run in progress, if any (the latest run, when it is running).
    #[must_use]
    pub fn active_run(&self) -> Option<&RunRecord> {
        self.runs.last().filter(|r| r.status == RunPhase::Running)
    }
}

/// A run starting on a thread: what [`ThreadStore::begin_run`] writes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunStart {
    /// The thread (created when its owner has none of this id).
    pub thread_id: String,
    /// The run.
    pub run_id: String,
    /// When it started.
    pub started_at: SystemTime,
    /// The messages its input brought that the stored thread did not have.
    pub input_messages: Vec<Message>,
    /// The thread as the run's input left it (the client's messages and state).
    pub thread: ThreadState,
    /// The W3C trace id (32 hex digits) of the request that started the run, kept in its
    /// [`RunRecord::trace_id`].
    pub trace_id: Option<String>,
}

impl RunStart {
    /// A run starting now.
    #[must_use]
    pub fn new(
        thread_id: impl Into<String>,
        run_id: impl Into<String>,
        input_messages: Vec<Message>,
        thread: ThreadState,
    ) -> Self {
        RunStart {
            thread_id: thread_id.into(),
            run_id: run_id.into(),
            started_at: SystemTime::now(),
            input_messages,
            thread,
            trace_id: None,
        }
    }

    /// The W3C trace id (32 hex digits) of the request that started the run.
    #[must_use]
    pub fn with_trace_id(mut self, trace_id: Option<String>) -> Self {
        self.trace_id = trace_id;
        self
    }
}

/// A run's end: what [`ThreadStore::end_run`] writes in one transaction.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunEnding {
    /// The thread.
    pub thread_id: String,
    /// The run.
    pub run_id: String,
    /// When it ended.
    pub ended_at: SystemTime,
    /// How.
    pub outcome: RunEndKind,
    /// The usage its terminal event reported.
    pub usage: Vec<TokenUsage>,
    /// The `code` of its `RUN_ERROR`.
    pub error_code: Option<String>,
    /// The thread with every event of the run folded in.
    pub thread: ThreadState,
}

impl RunEnding {
    /// A run that ended now.
    #[must_use]
    pub fn new(
        thread_id: impl Into<String>,
        run_id: impl Into<String>,
        outcome: RunEndKind,
        thread: ThreadState,
    ) -> Self {
        RunEnding {
            thread_id: thread_id.into(),
            run_id: run_id.into(),
            ended_at: SystemTime::now(),
            outcome,
            usage: Vec::new(),
            error_code: None,
            thread,
        }
    }

    /// The usage its terminal event reported.
    #[must_use]
    pub fn with_usage(mut self, usage: Vec<TokenUsage>) -> Self {
        self.usage = usage;
        self
    }

    /// The `code` of its `RUN_ERROR`.
    #[must_use]
    pub fn with_error_code(mut self, code: Option<String>) -> Self {
        self.error_code = code;
        self
    }
}

/// Why a thread store operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ThreadStoreError {
    /// The owner has no such thread (or no such run on it).
    #[error("no thread {0:?}")]
    NotFound(String),
    /// The thread has a run going on (a delete must wait for it to end).
    #[error("thread {0:?} has a run going on")]
    Busy(String),
    /// A run with this id exists already.
    #[error("a run {0:?} exists already")]
    RunExists(String),
    /// A list cursor that no page of this store gave.
    #[error("{0:?} is not a thread list cursor")]
    InvalidCursor(String),
    /// A stored value could not be read back (what, and where).
    #[error("the thread store holds a value it cannot read: {0}")]
    Corrupt(String),
    /// The store itself failed (a lost connection, a timeout).
    #[error("the thread store failed: {0}")]
    Backend(#[source] ag_ui_core::BoxError),
}

/// The future a thread store operation returns.
pub type ThreadFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<T, ThreadStoreError>> + Send + 'a>>;

/// Where threads are kept, durably for a database-backed store: each owner's threads,
/// their runs and their folded conversation.
///
/// Separate from the [`RunStore`](crate::runs::RunStore), which keeps live run logs:
/// the runs feature writes a thread when one of its runs starts
/// ([`begin_run`](Self::begin_run)), at a bounded interval while it goes on
/// ([`checkpoint`](Self::checkpoint)) and when it ends ([`end_run`](Self::end_run), one
/// transaction), so a crash loses at most one interval of an unfinished run and never
/// leaves a thread half written.
///
/// **Tenant scoping.** Every operation takes the [`Owner`]; a thread is identified by its
/// owner and its id together, and an operation never reads, lists, changes or deletes
/// another owner's thread. Ids come from the network: a store binds them as parameters,
/// never splices them into a query.
pub trait ThreadStore: Send + Sync + 'static {
    /// Records a run starting on a thread: creates the thread when the owner has none of
    /// this id, adds the run as running, and writes the thread as the run's input left
    /// it.
    ///
    /// # Errors
    /// [`ThreadStoreError::RunExists`] when the thread has a run of this id; a backend
    /// failure.
    fn begin_run<'a>(&'a self, owner: Owner<'a>, run: RunStart) -> ThreadFuture<'a, ()>;

    /// Writes the fold of a run in progress (and notes that its instance is alive).
    /// Nothing is written once the run has ended, and the fold is not written once a
    /// later run of the thread has started (as for [`end_run`](Self::end_run)).
    ///
    /// # Errors
    /// [`ThreadStoreError::NotFound`] when the thread or run is unknown; a backend failure.
    fn checkpoint<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        thread: &'a ThreadState,
    ) -> ThreadFuture<'a, ()>;

    /// Ends a run, in one transaction: its record (outcome, end time, usage, error code)
    /// and the thread's fold. The fold is written unless a later run of the thread has
    /// started meanwhile (that run's input carried the thread as its client had it; it
    /// writes the fold when it ends). A run already marked lost ([`CODE_RUN_LOST`]) is
    /// ended as this says.
    ///
    /// # Errors
    /// [`ThreadStoreError::NotFound`] when the thread or run is unknown (deleted
    /// meanwhile); a backend failure.
    fn end_run<'a>(&'a self, owner: Owner<'a>, end: RunEnding) -> ThreadFuture<'a, ()>;

    /// The whole thread, `None` when the owner has no such thread.
    ///
    /// # Errors
    /// A backend failure.
    fn thread<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
    ) -> ThreadFuture<'a, Option<StoredThread>>;

    /// One page of the owner's threads, most recently updated first (ties by id).
    ///
    /// A cursor names the last thread of its page (its update time and id), and the next
    /// page starts after it: threads created while the pages are read come before it,
    /// so every thread that existed at the first page and was not updated meanwhile is
    /// listed exactly once.
    ///
    /// # Errors
    /// [`ThreadStoreError::InvalidCursor`] for a cursor this store did not give; a backend
    /// failure.
    fn list<'a>(&'a self, owner: Owner<'a>, query: &'a ThreadQuery)
    -> ThreadFuture<'a, ThreadPage>;

    /// Changes a thread's title, metadata or archived flag; returns the new summary, or
    /// `None` when the owner has no such thread.
    ///
    /// # Errors
    /// A backend failure.
    fn update<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        patch: ThreadPatch,
    ) -> ThreadFuture<'a, Option<ThreadSummary>>;

    /// Deletes a thread with its runs; returns whether the owner had it.
    ///
    /// # Errors
    /// [`ThreadStoreError::Busy`] while one of its runs is running; a backend failure.
    fn delete<'a>(&'a self, owner: Owner<'a>, thread_id: &'a str) -> ThreadFuture<'a, bool>;

    /// Takes back what a run added to its thread (the `rollback` multitask policy), in
    /// one transaction: the run's record stays, with the outcome it ended with, marked
    /// [`rolled_back`](RunRecord::rolled_back); a run still running is ended now as
    /// [`RunEndKind::Cancelled`] first. The thread's fold becomes `fold` (the thread as it
    /// was before the run), unless a later run of the thread has started meanwhile (that
    /// run's input carried the thread as its client had it). Returns whether the owner
    /// has the thread and the run; `false` changes nothing.
    ///
    /// # Errors
    /// A backend failure.
    fn rollback_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        fold: &'a ThreadState,
    ) -> ThreadFuture<'a, bool>;

    /// Marks a running run as lost: ended, [`RunEndKind::Error`], [`CODE_RUN_LOST`], at
    /// its last checkpoint. Returns whether it was running. For a run the live run store
    /// no longer knows.
    ///
    /// # Errors
    /// A backend failure.
    fn lose_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
    ) -> ThreadFuture<'a, bool>;

    /// Marks as lost (see [`lose_run`](Self::lose_run)) every run, of every owner, still
    /// running whose last checkpoint is older than `before`; returns how many.
    ///
    /// # Errors
    /// A backend failure.
    fn lose_stale_runs(&self, before: SystemTime) -> ThreadFuture<'_, u64>;

    /// Deletes every archived thread, of every owner, last updated before `before` (a
    /// time-to-live for archived threads); returns how many.
    ///
    /// # Errors
    /// A backend failure.
    fn expire_archived(&self, before: SystemTime) -> ThreadFuture<'_, u64>;
}

/// The run id a thread's fold is written under by [`encode_fold`].
const FOLD_RUN: &str = "thread-record";

/// A thread's fold as a store keeps it: the JSON text of the array of
/// [`ThreadState::snapshot`]'s events (every message kind, the state, the last run's
/// outcome with its pending interrupts, its error), folded back by [`decode_fold`].
#[must_use]
pub fn encode_fold(thread_id: &str, thread: &ThreadState) -> String {
    let events = thread.snapshot(thread_id, FOLD_RUN);
    let mut out = Vec::with_capacity(256);
    out.push(b'[');
    for e in &events {
        // An event the writer refuses (a non-finite number in an open payload) is left
        // out rather than corrupting the array.
        if let Ok(one) = ag_ui_core::write::to_vec(e) {
            if out.len() > 1 {
                out.push(b',');
            }
            out.extend_from_slice(&one);
        }
    }
    out.push(b']');
    String::from_utf8(out).unwrap_or_else(|_| "[]".to_owned())
}

/// Folds back what [`encode_fold`] wrote.
///
/// # Errors
/// [`ThreadStoreError::Corrupt`] with the reader's error, which names the JSON path of
/// the first value that is no event.
pub fn decode_fold(json: &str) -> Result<ThreadState, ThreadStoreError> {
    let events: Vec<Event> = ag_ui_core::read::from_str(json)
        .map_err(|e| ThreadStoreError::Corrupt(format!("a thread's fold: {e}")))?;
    let mut thread = ThreadState::new();
    for event in events {
        thread.apply_owned(event);
    }
    Ok(thread)
}

/// A shared store is a store: `Arc<dyn ThreadStore>` (what a store chosen at run time,
/// by URL, is) and `Arc<S>` stand wherever a store does.
impl<S: ThreadStore + ?Sized> ThreadStore for std::sync::Arc<S> {
    fn begin_run<'a>(&'a self, owner: Owner<'a>, run: RunStart) -> ThreadFuture<'a, ()> {
        (**self).begin_run(owner, run)
    }

    fn checkpoint<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        thread: &'a ThreadState,
    ) -> ThreadFuture<'a, ()> {
        (**self).checkpoint(owner, thread_id, run_id, thread)
    }

    fn end_run<'a>(&'a self, owner: Owner<'a>, end: RunEnding) -> ThreadFuture<'a, ()> {
        (**self).end_run(owner, end)
    }

    fn thread<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
    ) -> ThreadFuture<'a, Option<StoredThread>> {
        (**self).thread(owner, thread_id)
    }

    fn list<'a>(
        &'a self,
        owner: Owner<'a>,
        query: &'a ThreadQuery,
    ) -> ThreadFuture<'a, ThreadPage> {
        (**self).list(owner, query)
    }

    fn update<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        patch: ThreadPatch,
    ) -> ThreadFuture<'a, Option<ThreadSummary>> {
        (**self).update(owner, thread_id, patch)
    }

    fn delete<'a>(&'a self, owner: Owner<'a>, thread_id: &'a str) -> ThreadFuture<'a, bool> {
        (**self).delete(owner, thread_id)
    }

    fn lose_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
    ) -> ThreadFuture<'a, bool> {
        (**self).lose_run(owner, thread_id, run_id)
    }

    fn rollback_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        fold: &'a ThreadState,
    ) -> ThreadFuture<'a, bool> {
        (**self).rollback_run(owner, thread_id, run_id, fold)
    }

    fn lose_stale_runs(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        (**self).lose_stale_runs(before)
    }

    fn expire_archived(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        (**self).expire_archived(before)
    }
}
