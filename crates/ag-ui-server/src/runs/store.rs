//! The store behind resumable runs: a trait, so that a distributed store can stand in for
//! the in-memory one, and the records it keeps.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

use ag_ui_core::ThreadState;
pub use ag_ui_core::api::RunPhase;
use bytes::Bytes;
use futures_core::Stream;

/// A run's position in its log: the cursor of the last event a subscriber has. The first
/// event of a run has cursor 1; `0` is "before the first event".
pub type Cursor = u64;

/// One event of a run's log: its cursor and its SSE frame, `id: <cursor>\ndata: <compact
/// JSON>\n\n`, encoded once when the run produced it and written as is to every
/// subscriber.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Record {
    /// The event's cursor: one more than the previous record's.
    pub cursor: Cursor,
    /// The event's SSE frame, with its cursor as its `id:`.
    pub frame: Bytes,
}

impl Record {
    /// The record of the event whose compact JSON is `json` (a store that keeps the JSON
    /// alone rebuilds its records with this).
    #[must_use]
    pub fn new(cursor: Cursor, json: &[u8]) -> Self {
        let mut frame = Vec::with_capacity(json.len() + 32);
        write_id(&mut frame, cursor);
        frame.extend_from_slice(b"data: ");
        frame.extend_from_slice(json);
        frame.extend_from_slice(b"\n\n");
        Record {
            cursor,
            frame: frame.into(),
        }
    }

    /// A record from a complete frame (`id: <cursor>\ndata: <json>\n\n`).
    #[must_use]
    pub fn from_frame(cursor: Cursor, frame: Bytes) -> Self {
        Record { cursor, frame }
    }

    /// Whether the event is a run's terminal event (`RUN_FINISHED` or `RUN_ERROR`): the
    /// last record of a run's log, after which every subscriber's stream ends.
    #[must_use]
    pub fn is_terminal(&self) -> bool {
        is_terminal_json(self.json())
    }

    /// The event's compact JSON: the frame's data line.
    #[must_use]
    pub fn json(&self) -> &[u8] {
        let f = &self.frame[..];
        let start = f
            .windows(6)
            .position(|w| w == b"data: ")
            .map_or(0, |i| i + 6);
        let end = f.len().saturating_sub(2).max(start);
        &f[start..end]
    }
}

/// Whether `json`, an event's JSON, is a terminal event. The server's writer puts `type`
/// first; JSON written otherwise is read to find it.
pub(crate) fn is_terminal_json(json: &[u8]) -> bool {
    const FINISHED: &[u8] = br#"{"type":"RUN_FINISHED""#;
    const ERROR: &[u8] = br#"{"type":"RUN_ERROR""#;
    if json.starts_with(br#"{"type":""#) {
        return json.starts_with(FINISHED) || json.starts_with(ERROR);
    }
    serde_json::from_slice::<serde_json::Value>(json)
        .ok()
        .is_some_and(|v| matches!(v["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR")))
}

/// Writes `id: <cursor>\n`.
pub(crate) fn write_id(out: &mut Vec<u8>, cursor: Cursor) {
    out.extend_from_slice(b"id: ");
    let mut digits = [0u8; 20];
    let mut n = cursor;
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
    out.push(b'\n');
}

/// What the store keeps about a run besides its events.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunMeta {
    /// The run's id (`RunAgentInput.runId`).
    pub run_id: String,
    /// The thread it belongs to.
    pub thread_id: String,
    /// Who started it, as the service's authorisation named them (`None`: anyone). A
    /// join, a stop or a thread connect by someone else is answered as if the run did not
    /// exist.
    pub principal: Option<String>,
    /// The instance that runs the agent and appends to the log (its lease holder).
    pub owner: String,
    /// Running or ended.
    pub status: RunPhase,
    /// When the run was created.
    pub created_at: SystemTime,
    /// When it ended, once it has.
    pub ended_at: Option<SystemTime>,
    /// Whether a stop was requested.
    pub stop_requested: bool,
    /// The thread as the run's input left it (its messages and state), when the run's
    /// service keeps threads: what a thread connect during the run sends before the
    /// run's events, which follow it from the first. The thread store's copy moves on
    /// with the run's checkpoints; this one does not, so the two never overlap.
    pub input_thread: Option<ThreadState>,
}

impl RunMeta {
    /// The metadata of a run that has just started on `owner`.
    #[must_use]
    pub fn new(
        run_id: impl Into<String>,
        thread_id: impl Into<String>,
        principal: Option<String>,
        owner: impl Into<String>,
    ) -> Self {
        RunMeta {
            run_id: run_id.into(),
            thread_id: thread_id.into(),
            principal,
            owner: owner.into(),
            status: RunPhase::Running,
            created_at: SystemTime::now(),
            ended_at: None,
            stop_requested: false,
            input_thread: None,
        }
    }

    /// The thread as the run's input left it (see [`input_thread`](Self::input_thread)).
    #[must_use]
    pub fn with_input_thread(mut self, thread: ThreadState) -> Self {
        self.input_thread = Some(thread);
        self
    }
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No such run (never created, or expired and removed).
    #[error("no run {0:?} (unknown, or expired)")]
    NotFound(String),
    /// A run with this id exists already.
    #[error("a run {0:?} exists already")]
    Exists(String),
    /// The run has ended: its log holds its terminal event, and nothing more may be
    /// appended. An owner that meets this learns that its run was taken from it (another
    /// instance ended it as orphaned) and stops its agent.
    #[error("run {0:?} has ended: nothing more may be appended")]
    Ended(String),
    /// The events after the requested cursor are no longer kept (the run's log was
    /// trimmed to its bounds).
    #[error(
        "run {run_id:?}: events after cursor {after} are no longer kept (the oldest kept is {oldest})"
    )]
    CursorExpired {
        /// The run.
        run_id: String,
        /// The cursor asked for.
        after: Cursor,
        /// The cursor of the oldest record kept.
        oldest: Cursor,
    },
    /// Another run of the same principal's thread is running: a thread has one running
    /// run at a time.
    #[error("thread {thread_id:?} has a run going on ({run_id:?})")]
    ThreadBusy {
        /// The thread.
        thread_id: String,
        /// The run going on.
        run_id: String,
    },
    /// The thread's feed no longer keeps the runs after the requested sequence number
    /// (it keeps the last [`THREAD_FEED_LEN`]).
    #[error(
        "thread {thread_id:?}: the runs after sequence number {after} are no longer kept (the oldest kept is {oldest})"
    )]
    FeedExpired {
        /// The thread.
        thread_id: String,
        /// The sequence number asked for.
        after: u64,
        /// The sequence number of the oldest run kept.
        oldest: u64,
    },
    /// The store is at capacity (every run it may keep is still running).
    #[error("the run store is full: {0}")]
    Full(String),
    /// The store itself failed (a lost connection, for a remote one).
    #[error("the run store failed: {0}")]
    Backend(#[source] ag_ui_core::BoxError),
}

/// The future a store operation returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A run's records after a cursor, in order, each once: those already kept, then the new
/// ones as they are appended; it ends after the run's last record once the run has ended.
/// An `Err` item ends it (the store failed, or the subscriber fell behind the log's
/// bounds: [`StoreError::CursorExpired`]).
pub type RecordStream = Pin<Box<dyn Stream<Item = Result<Record, StoreError>> + Send>>;

/// Runs kept in a thread's feed ([`RunStore::thread_runs`]): the last 1000 started.
pub const THREAD_FEED_LEN: u64 = 1000;

/// One run of a thread's feed: the run's number on its thread (1 for the first run the
/// store saw started on it, then 2, 3…) and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ThreadRun {
    /// The run's sequence number on its thread.
    pub seq: u64,
    /// The run's id.
    pub run_id: String,
}

impl ThreadRun {
    /// The feed entry of run `run_id`, number `seq` on its thread.
    #[must_use]
    pub fn new(seq: u64, run_id: impl Into<String>) -> Self {
        ThreadRun {
            seq,
            run_id: run_id.into(),
        }
    }
}

/// The runs started on a thread after a sequence number, in order, each once: those kept,
/// then the new ones as they are created. It does not end by itself; an `Err` item ends it
/// (the store failed, or [`StoreError::FeedExpired`]).
pub type ThreadRunStream = Pin<Box<dyn Stream<Item = Result<ThreadRun, StoreError>> + Send>>;

/// Where resumable runs keep their live logs: their events, their metadata and stop
/// requests. Threads (each conversation with its runs and fold) are kept apart, in a
/// [`ThreadStore`](crate::threads::ThreadStore).
///
/// One instance (the run's *owner*) appends to a run's log; any number of subscribers,
/// on this instance or (for a distributed store) another, tail it. The in-memory
/// [`MemoryStore`](crate::runs::MemoryStore) is the default; a distributed store (Redis
/// streams, say) implements the same operations so that any instance can serve a join, a
/// stop or the live part of a thread connect:
///
/// | operation | in memory | on a distributed store (for example) |
/// |---|---|---|
/// | [`create_run`](Self::create_run) | a map entry | a metadata hash with the owner's lease (`HSET` + `PEXPIRE`), `NX` |
/// | [`append`](Self::append) | a vector push | one round trip per batch (a script: the run still running, then `XADD`) |
/// | [`tail`](Self::tail) | wakers | `XREAD` from the cursor, then a place at one of the instance's few readers (each an `XREAD BLOCK` over every run it follows, fanned out to its subscribers) |
/// | [`end_run`](Self::end_run) | a push and a flag, under one lock | one script: the last records, status in the hash, an end entry in the stream |
/// | [`request_stop`](Self::request_stop) / [`stop_requested`](Self::stop_requested) | a signal | a flag in the hash and a token in a stop list, which one connection of the owning instance pops for all its runs (`BLPOP` over many keys) |
/// | [`renew_lease`](Self::renew_lease) | nothing to do | a renewal counter in the hash; a subscriber that sees it stand still for a lease, while it reaches the store, ends the run for everyone |
///
/// Every id passed in came from the network: a store must not use it unescaped in keys
/// or patterns.
///
/// **One terminal event per run.** A run's log ends with exactly one terminal event
/// (`RUN_FINISHED` or `RUN_ERROR`): [`end_run`](Self::end_run) appends the owner's last
/// records and ends the run in one atomic step, and a store that ends runs for owners it
/// finds gone (a distributed one) does so only while the run is still running, in the
/// same atomic way; whichever comes second is refused ([`StoreError::Ended`]).
///
/// **One running run per thread.** A thread (a principal's thread id: two principals'
/// threads of the same id are two threads) has at most one running run:
/// [`create_run`](Self::create_run) refuses another with [`StoreError::ThreadBusy`] until
/// the running one ends (by [`end_run`](Self::end_run), or ended as orphaned). Each run
/// created goes to its thread's feed ([`thread_runs`](Self::thread_runs)).
pub trait RunStore: Send + Sync + 'static {
    /// Registers a new run (its log empty).
    ///
    /// Claims the run's thread for it (one running run per thread) and adds it to the
    /// thread's feed with the next sequence number.
    ///
    /// # Errors
    /// [`StoreError::Exists`] when the id is taken, [`StoreError::ThreadBusy`] when
    /// another run of the thread is running, [`StoreError::Full`] when the store keeps as
    /// many runs as it may and none can be evicted.
    fn create_run(&self, meta: RunMeta) -> StoreFuture<'_, ()>;

    /// The runs created on `principal`'s thread `thread_id` after sequence number `after`
    /// (`0`: from the first kept): catch-up, then live (see [`ThreadRunStream`]).
    ///
    /// # Errors
    /// [`StoreError::FeedExpired`] when runs after `after` are no longer kept; a backend
    /// failure.
    fn thread_runs<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
        after: u64,
    ) -> StoreFuture<'a, ThreadRunStream>;

    /// The id of the running run of `principal`'s thread `thread_id`, `None` when the
    /// thread is idle (what a route that must not act on a busy thread asks).
    ///
    /// # Errors
    /// A backend failure.
    fn thread_run<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
    ) -> StoreFuture<'a, Option<String>>;

    /// The sequence number of the last run created on `principal`'s thread `thread_id`
    /// (`0` when none is known): where a feed of the runs from now on starts.
    ///
    /// # Errors
    /// A backend failure.
    fn thread_seq<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
    ) -> StoreFuture<'a, u64>;

    /// Appends `records` (their cursors consecutive, following the last appended) to the
    /// run's log and wakes its subscribers. The owner batches what the agent produced
    /// together, so one call may carry many records. Nothing is appended unless the run
    /// is running.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown run (for its owner: the store lost it),
    /// [`StoreError::Ended`] when it has ended (nothing appended); a backend failure.
    fn append<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()>;

    /// Appends `records`, the run's last (its terminal event last among them), and marks
    /// the run ended, in one atomic step: its subscribers end after them, and the
    /// retention period starts.
    ///
    /// # Errors
    /// As [`append`](Self::append): [`StoreError::Ended`] when the run had ended already
    /// (another instance ended it), and then nothing is appended.
    fn end_run<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()>;

    /// The run's metadata, `None` when it is unknown or expired.
    ///
    /// # Errors
    /// A backend failure.
    fn run<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, Option<RunMeta>>;

    /// The run's records after `after`: catch-up, then live, ending after the terminal
    /// event (see [`RecordStream`]).
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown or expired run,
    /// [`StoreError::CursorExpired`] when records after `after` were trimmed.
    fn tail<'a>(&'a self, run_id: &'a str, after: Cursor) -> StoreFuture<'a, RecordStream>;

    /// Asks the run's owner to stop it. Returns whether the run was still running.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown run; a backend failure.
    fn request_stop<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, bool>;

    /// Completes when a stop of the run has been requested (at once if it was already):
    /// how the owner learns of a stop sent to any instance.
    fn stop_requested<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, ()>;

    /// Renews the owner's lease on a running run for `ttl`: tells the store, and any
    /// instance watching the run, that its owner is alive.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when the store no longer knows the run (it lost it),
    /// [`StoreError::Ended`] when the run has ended or is not `owner`'s (it was taken from
    /// it: ended as orphaned); a backend failure, which the owner retries.
    fn renew_lease<'a>(
        &'a self,
        run_id: &'a str,
        owner: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, ()>;

    /// Whether an owner must renew its leases ([`renew_lease`](Self::renew_lease)) for its
    /// runs to be known alive. A store whose runs cannot outlive their owner (one
    /// process's memory) says `false`, and its owners arm no renewal timer. The default is
    /// `true`.
    fn needs_lease_renewal(&self) -> bool {
        true
    }
}
