//! The durable thread store: a trait, the records it keeps and the queries it answers.

use std::future::Future;
use std::pin::Pin;
use std::time::SystemTime;

use ag_ui_core::{Event, Message, RunFinishedOutcome, ThreadState, TokenUsage};
use serde_json::{Map, Value};

use crate::runs::RunStatus;

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

/// How a run ended, as a thread's run record tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RunEndKind {
    /// `RUN_FINISHED` with a success outcome (or none).
    Success,
    /// `RUN_FINISHED` paused on interrupts.
    Interrupt,
    /// `RUN_FINISHED` with a cancelled outcome.
    Cancelled,
    /// `RUN_ERROR`, or a run that never ended (its instance stopped: see
    /// [`CODE_RUN_LOST`]).
    Error,
}

impl RunEndKind {
    /// Every outcome, in declaration order.
    pub const ALL: [RunEndKind; 4] = [
        RunEndKind::Success,
        RunEndKind::Interrupt,
        RunEndKind::Cancelled,
        RunEndKind::Error,
    ];

    /// The outcome's word in JSON and in a store's column: `success`, `interrupt`,
    /// `cancelled`, `error`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RunEndKind::Success => "success",
            RunEndKind::Interrupt => "interrupt",
            RunEndKind::Cancelled => "cancelled",
            RunEndKind::Error => "error",
        }
    }

    /// The outcome named `word` (see [`as_str`](Self::as_str)).
    #[must_use]
    pub fn from_word(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.as_str() == word)
    }

    /// The outcome of a run that ended with `event`, its terminal event (`None` for any
    /// other event).
    #[must_use]
    pub fn of_terminal(event: &Event) -> Option<Self> {
        match event {
            Event::RunError(_) => Some(RunEndKind::Error),
            Event::RunFinished(e) => Some(match &e.outcome {
                Some(RunFinishedOutcome::Interrupt(_)) => RunEndKind::Interrupt,
                Some(RunFinishedOutcome::Cancelled(_)) => RunEndKind::Cancelled,
                _ => RunEndKind::Success,
            }),
            _ => None,
        }
    }
}

/// `errorCode` of a run whose instance stopped before it ended (a crash, a kill, a lost
/// machine): the run is ended as [`RunEndKind::Error`] with this code, and the thread
/// keeps what its last checkpoint held.
pub const CODE_RUN_LOST: &str = "run_lost";

/// A thread's last run, as a summary shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunSummary {
    /// The run's id.
    pub run_id: String,
    /// Running or ended.
    pub status: RunStatus,
    /// How it ended; `None` while it runs.
    pub outcome: Option<RunEndKind>,
}

impl RunSummary {
    /// A run summary (for a store in another crate: the struct is non-exhaustive).
    #[must_use]
    pub fn new(run_id: impl Into<String>, status: RunStatus, outcome: Option<RunEndKind>) -> Self {
        RunSummary {
            run_id: run_id.into(),
            status,
            outcome,
        }
    }
}

/// What a thread list shows of a thread.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ThreadSummary {
    /// The thread's id (unique per owner: two principals may each have a thread of the
    /// same id, and neither sees the other's).
    pub thread_id: String,
    /// Its title, when one was given.
    pub title: Option<String>,
    /// Its metadata (an object; `{}` when none was given).
    pub metadata: Map<String, Value>,
    /// When its first run started.
    pub created_at: SystemTime,
    /// When it last changed (a run started, checkpointed or ended; an update).
    pub updated_at: SystemTime,
    /// Whether it is archived.
    pub archived: bool,
    /// How many runs it has had.
    pub run_count: u64,
    /// Its latest run (by start).
    pub last_run: Option<RunSummary>,
}

impl ThreadSummary {
    /// A thread created at `created_at` and not changed since: no title, metadata `{}`,
    /// not archived, no runs. A store sets the other fields (they are public).
    #[must_use]
    pub fn new(thread_id: impl Into<String>, created_at: SystemTime) -> Self {
        ThreadSummary {
            thread_id: thread_id.into(),
            title: None,
            metadata: Map::new(),
            created_at,
            updated_at: created_at,
            archived: false,
            run_count: 0,
            last_run: None,
        }
    }
}

/// What a thread keeps of one of its runs.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunRecord {
    /// The run's id.
    pub run_id: String,
    /// Running or ended.
    pub status: RunStatus,
    /// How it ended; `None` while it runs.
    pub outcome: Option<RunEndKind>,
    /// When it started.
    pub started_at: SystemTime,
    /// When it ended.
    pub ended_at: Option<SystemTime>,
    /// The usage its terminal event reported (empty when it reported none).
    pub usage: Vec<TokenUsage>,
    /// The `code` of its `RUN_ERROR` (or [`CODE_RUN_LOST`]).
    pub error_code: Option<String>,
    /// The messages its input brought that the thread did not have before it.
    pub input_messages: Vec<Message>,
}

impl RunRecord {
    /// A run started at `started_at` and running: no outcome, end, usage, error code or
    /// input messages. A store sets the other fields (they are public).
    #[must_use]
    pub fn new(run_id: impl Into<String>, started_at: SystemTime) -> Self {
        RunRecord {
            run_id: run_id.into(),
            status: RunStatus::Running,
            outcome: None,
            started_at,
            ended_at: None,
            usage: Vec::new(),
            error_code: None,
            input_messages: Vec::new(),
        }
    }
}

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

    /// The run in progress, if any (the latest run, when it is running).
    #[must_use]
    pub fn active_run(&self) -> Option<&RunRecord> {
        self.runs.last().filter(|r| r.status == RunStatus::Running)
    }
}

/// Which threads a list shows by their archived flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Archived {
    /// Threads not archived (the default).
    #[default]
    Exclude,
    /// Archived threads only.
    Only,
    /// Both.
    Any,
}

/// Most threads one list page holds.
pub const MAX_LIST_LIMIT: usize = 100;
/// Threads per list page when the query names no limit.
pub const DEFAULT_LIST_LIMIT: usize = 20;

/// A thread list query: one owner's threads, most recently updated first.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ThreadQuery {
    /// Threads per page, 1..=[`MAX_LIST_LIMIT`] (a store clamps it).
    pub limit: usize,
    /// Where the page starts: the previous page's [`ThreadPage::next_cursor`].
    pub cursor: Option<String>,
    /// Which threads by their archived flag.
    pub archived: Archived,
    /// Metadata filters: each `(key, value)` keeps the threads whose metadata has the
    /// string `value` at `key`; several combine with AND.
    pub metadata: Vec<(String, String)>,
}

impl Default for ThreadQuery {
    fn default() -> Self {
        ThreadQuery {
            limit: DEFAULT_LIST_LIMIT,
            cursor: None,
            archived: Archived::Exclude,
            metadata: Vec::new(),
        }
    }
}

impl ThreadQuery {
    /// The first page of non-archived threads, [`DEFAULT_LIST_LIMIT`] to a page.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the page size (clamped to 1..=[`MAX_LIST_LIMIT`]).
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit.clamp(1, MAX_LIST_LIMIT);
        self
    }

    /// Starts after the page whose [`ThreadPage::next_cursor`] this is.
    #[must_use]
    pub fn cursor(mut self, cursor: impl Into<String>) -> Self {
        self.cursor = Some(cursor.into());
        self
    }

    /// Which threads by their archived flag.
    #[must_use]
    pub fn archived(mut self, archived: Archived) -> Self {
        self.archived = archived;
        self
    }

    /// Keeps only the threads whose metadata has the string `value` at `key`.
    #[must_use]
    pub fn metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.push((key.into(), value.into()));
        self
    }
}

/// One page of a thread list.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ThreadPage {
    /// The threads, most recently updated first.
    pub threads: Vec<ThreadSummary>,
    /// The cursor of the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

impl ThreadPage {
    /// A page (for a store in another crate: the struct is non-exhaustive).
    #[must_use]
    pub fn new(threads: Vec<ThreadSummary>, next_cursor: Option<String>) -> Self {
        ThreadPage {
            threads,
            next_cursor,
        }
    }
}

/// A change to a thread's own fields; `None` leaves a field as it is.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ThreadPatch {
    /// The new title (`Some(None)` clears it).
    pub title: Option<Option<String>>,
    /// The new metadata (replacing the old).
    pub metadata: Option<Map<String, Value>>,
    /// Archives or restores the thread.
    pub archived: Option<bool>,
}

impl ThreadPatch {
    /// A patch that changes nothing.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets (or, with `None`, clears) the title.
    #[must_use]
    pub fn title(mut self, title: Option<String>) -> Self {
        self.title = Some(title);
        self
    }

    /// Replaces the metadata.
    #[must_use]
    pub fn metadata(mut self, metadata: Map<String, Value>) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// Archives (`true`) or restores (`false`) the thread.
    #[must_use]
    pub fn archived(mut self, archived: bool) -> Self {
        self.archived = Some(archived);
        self
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
        }
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
    /// Nothing is written once the run has ended.
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

    fn lose_stale_runs(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        (**self).lose_stale_runs(before)
    }

    fn expire_archived(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        (**self).expire_archived(before)
    }
}
