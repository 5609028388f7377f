//! The default store: everything in this process's memory, bounded, no setup.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, SystemTime};

use futures_core::Stream;

use super::store::{
    Cursor, Record, RecordStream, RunMeta, RunPhase, RunStore, StoreError, StoreFuture,
    THREAD_FEED_LEN, ThreadRun, ThreadRunStream,
};
use crate::Cancellation;
use crate::sync::lock;

/// Default [`MemoryLimits::max_runs`]: 1000.
pub const DEFAULT_MAX_RUNS: usize = 1000;
/// Default [`MemoryLimits::max_events_per_run`]: 100 000.
pub const DEFAULT_MAX_EVENTS_PER_RUN: usize = 100_000;
/// Default [`MemoryLimits::max_bytes_per_run`]: 16 MiB.
pub const DEFAULT_MAX_BYTES_PER_RUN: usize = 16 * 1024 * 1024;
/// Default [`MemoryLimits::retention`]: 5 minutes.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(5 * 60);

/// The bounds of a [`MemoryStore`].
///
/// ```
/// use std::time::Duration;
/// use ag_ui_server::runs::{MemoryLimits, MemoryStore};
///
/// let store = MemoryStore::with_limits(
///     MemoryLimits::default().max_runs(100).retention(Duration::from_secs(30)),
/// );
/// assert_eq!(store.limits().max_runs, 100);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryLimits {
    /// Runs kept, running or ended. When a new run would pass it, the run that ended
    /// first is removed; when every kept run is still running, the new run is refused
    /// (503).
    pub max_runs: usize,
    /// Events kept per run. Past it the oldest are dropped: the run goes on, and a join
    /// from before the oldest kept event is refused (410).
    pub max_events_per_run: usize,
    /// Bytes of SSE frames (event JSON and its `id:` and `data:` lines) kept per run, with
    /// the same effect as `max_events_per_run` (the newest event is always kept).
    pub max_bytes_per_run: usize,
    /// How long an ended run stays joinable.
    pub retention: Duration,
}

impl Default for MemoryLimits {
    fn default() -> Self {
        MemoryLimits {
            max_runs: DEFAULT_MAX_RUNS,
            max_events_per_run: DEFAULT_MAX_EVENTS_PER_RUN,
            max_bytes_per_run: DEFAULT_MAX_BYTES_PER_RUN,
            retention: DEFAULT_RETENTION,
        }
    }
}

impl MemoryLimits {
    /// Sets [`max_runs`](Self::max_runs) (at least 1).
    #[must_use]
    pub fn max_runs(mut self, n: usize) -> Self {
        self.max_runs = n.max(1);
        self
    }

    /// Sets [`max_events_per_run`](Self::max_events_per_run) (at least 1).
    #[must_use]
    pub fn max_events_per_run(mut self, n: usize) -> Self {
        self.max_events_per_run = n.max(1);
        self
    }

    /// Sets [`max_bytes_per_run`](Self::max_bytes_per_run).
    #[must_use]
    pub fn max_bytes_per_run(mut self, bytes: usize) -> Self {
        self.max_bytes_per_run = bytes;
        self
    }

    /// Sets [`retention`](Self::retention).
    #[must_use]
    pub fn retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }
}

/// A [`RunStore`] in this process's memory, bounded by its [`MemoryLimits`]. Needs no
/// runtime and no setup; expired runs are removed as the store is used.
/// Runs are joinable from this process only. Each thread's feed of runs (for the follow
/// stream) is kept while one of its runs is kept or someone follows it; a thread forgotten
/// this way numbers its next run 1 again.
#[derive(Debug, Default, Clone)]
pub struct MemoryStore {
    inner: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    limits: MemoryLimits,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    runs: HashMap<String, Arc<RunLog>>,
    /// The ended runs in the order they ended, with their end times: what expires first,
    /// and what makes room first, without a scan of every run. An entry whose run is no
    /// longer kept (or is another run of the same id) is skipped.
    ended: VecDeque<(SystemTime, String)>,
    /// Each thread's running run and feed, by principal and thread id.
    threads: HashMap<(Option<String>, String), Arc<Mutex<Feed>>>,
}

/// A thread's claim and its feed of runs.
#[derive(Debug, Default)]
struct Feed {
    /// The thread's running run.
    running: Option<String>,
    /// The last sequence number given.
    seq: u64,
    /// The last [`THREAD_FEED_LEN`] runs created.
    entries: VecDeque<ThreadRun>,
    wakers: Vec<Waker>,
}

impl Feed {
    /// The sequence number of the oldest entry kept (`seq + 1` when none is).
    fn oldest(&self) -> u64 {
        self.entries.front().map_or(self.seq + 1, |r| r.seq)
    }
}

fn thread_key(meta: &RunMeta) -> (Option<String>, String) {
    (meta.principal.clone(), meta.thread_id.clone())
}

#[derive(Debug)]
struct RunLog {
    log: Mutex<Log>,
    stop: Cancellation,
}

#[derive(Debug)]
struct Log {
    meta: RunMeta,
    records: VecDeque<Record>,
    bytes: usize,
    /// The cursor the next appended record gets.
    next: Cursor,
    wakers: Vec<Waker>,
}

impl Log {
    /// The cursor of the oldest record kept (`next` when none is).
    fn oldest(&self) -> Cursor {
        self.records.front().map_or(self.next, |r| r.cursor)
    }

    fn wake_all(&mut self) {
        for w in self.wakers.drain(..) {
            w.wake();
        }
    }
}

/// Removes run `id` if it is the kept run that ended at `t`; whether it was.
fn remove_ended(runs: &mut HashMap<String, Arc<RunLog>>, id: &str, t: SystemTime) -> bool {
    let ended_then = runs
        .get(id)
        .is_some_and(|run| lock(&run.log).meta.ended_at == Some(t));
    if ended_then {
        runs.remove(id);
    }
    ended_then
}

fn expired(ended_at: Option<SystemTime>, retention: Duration, now: SystemTime) -> bool {
    ended_at.is_some_and(|t| now.duration_since(t).is_ok_and(|age| age >= retention))
}

impl MemoryStore {
    /// A store with the default [`MemoryLimits`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A store with `limits`.
    #[must_use]
    pub fn with_limits(limits: MemoryLimits) -> Self {
        MemoryStore {
            inner: Arc::new(Shared {
                limits,
                state: Mutex::new(State::default()),
            }),
        }
    }

    /// The store's bounds.
    #[must_use]
    pub fn limits(&self) -> &MemoryLimits {
        &self.inner.limits
    }

    /// How many runs are kept now (running or within retention).
    #[must_use]
    pub fn run_count(&self) -> usize {
        let mut state = lock(&self.inner.state);
        self.purge(&mut state);
        state.runs.len()
    }

    /// Removes the runs whose retention has passed (the oldest ends first: the scan stops
    /// at the first end that has not expired).
    fn purge(&self, state: &mut State) {
        let now = SystemTime::now();
        let retention = self.inner.limits.retention;
        while let Some((t, _)) = state.ended.front() {
            if !expired(Some(*t), retention, now) {
                break;
            }
            if let Some((t, id)) = state.ended.pop_front() {
                remove_ended(&mut state.runs, &id, t);
            }
        }
    }

    /// Removes the run that ended first, if any is kept: `false` when none is.
    fn evict_oldest(state: &mut State) -> bool {
        while let Some((t, id)) = state.ended.pop_front() {
            if remove_ended(&mut state.runs, &id, t) {
                return true;
            }
        }
        false
    }

    /// The run's log, after removing what expired (everything, or with `all` false only
    /// this run: the owner's appends do not pay for a scan of the store).
    fn get(&self, run_id: &str, all: bool) -> Result<Arc<RunLog>, StoreError> {
        let mut state = lock(&self.inner.state);
        if all {
            self.purge(&mut state);
        }
        let run = state
            .runs
            .get(run_id)
            .cloned()
            .ok_or_else(|| StoreError::NotFound(run_id.to_owned()))?;
        if !all {
            let gone = expired(
                lock(&run.log).meta.ended_at,
                self.inner.limits.retention,
                SystemTime::now(),
            );
            if gone {
                state.runs.remove(run_id);
                return Err(StoreError::NotFound(run_id.to_owned()));
            }
        }
        Ok(run)
    }

    fn log(&self, run_id: &str) -> Result<Arc<RunLog>, StoreError> {
        self.get(run_id, true)
    }

    fn create(&self, meta: RunMeta) -> Result<(), StoreError> {
        let mut state = lock(&self.inner.state);
        self.purge(&mut state);
        if state.runs.contains_key(&meta.run_id) {
            return Err(StoreError::Exists(meta.run_id));
        }
        if state.threads.len() >= self.inner.limits.max_runs.saturating_mul(2) {
            // Threads none of whose runs is kept, and nobody follows, are forgotten.
            let State { runs, threads, .. } = &mut *state;
            threads.retain(|_, feed| {
                Arc::strong_count(feed) > 1 || {
                    let feed = lock(feed);
                    feed.running.is_some()
                        || feed.entries.iter().any(|r| runs.contains_key(&r.run_id))
                }
            });
        }
        let feed = Arc::clone(state.threads.entry(thread_key(&meta)).or_default());
        let mut feed = lock(&feed);
        if let Some(running) = &feed.running {
            return Err(StoreError::ThreadBusy {
                thread_id: meta.thread_id,
                run_id: running.clone(),
            });
        }
        // The run that ended first makes room.
        if state.runs.len() >= self.inner.limits.max_runs && !Self::evict_oldest(&mut state) {
            return Err(StoreError::Full(format!(
                "{} runs are running, the most this store keeps",
                state.runs.len()
            )));
        }
        let id = meta.run_id.clone();
        feed.running = Some(id.clone());
        feed.seq += 1;
        let seq = feed.seq;
        feed.entries.push_back(ThreadRun::new(seq, id.clone()));
        while feed.entries.len() as u64 > THREAD_FEED_LEN {
            feed.entries.pop_front();
        }
        for w in feed.wakers.drain(..) {
            w.wake();
        }
        drop(feed);
        let log = RunLog {
            log: Mutex::new(Log {
                meta,
                records: VecDeque::new(),
                bytes: 0,
                next: 1,
                wakers: Vec::new(),
            }),
            stop: Cancellation::new(),
        };
        state.runs.insert(id, Arc::new(log));
        Ok(())
    }

    /// Appends `records`; with `end`, also ends the run, under the same lock.
    fn push(&self, run_id: &str, records: Vec<Record>, end: bool) -> Result<(), StoreError> {
        // An end releases the thread's claim under the store's lock, in the same step.
        let mut state = end.then(|| lock(&self.inner.state));
        let run = match &state {
            Some(state) => state
                .runs
                .get(run_id)
                .cloned()
                .ok_or_else(|| StoreError::NotFound(run_id.to_owned()))?,
            None => self.get(run_id, false)?,
        };
        let limits = &self.inner.limits;
        let mut log = lock(&run.log);
        if log.meta.status == RunPhase::Ended {
            return Err(StoreError::Ended(run_id.to_owned()));
        }
        // All or nothing: the cursors follow the log's last, each one more than the one before.
        if let Some((i, r)) = (log.next..).zip(&records).find(|(due, r)| r.cursor != *due) {
            return Err(StoreError::Backend(
                format!(
                    "run {run_id:?}: record cursor {} appended where {i} was due",
                    r.cursor
                )
                .into(),
            ));
        }
        for record in records {
            log.next += 1;
            log.bytes += record.frame.len();
            log.records.push_back(record);
        }
        while log.records.len() > 1
            && (log.records.len() > limits.max_events_per_run
                || log.bytes > limits.max_bytes_per_run)
        {
            if let Some(old) = log.records.pop_front() {
                log.bytes -= old.frame.len();
            }
        }
        if end {
            let now = SystemTime::now();
            log.meta.status = RunPhase::Ended;
            log.meta.ended_at = Some(now);
            if let Some(state) = state.as_mut() {
                if let Some(feed) = state.threads.get(&thread_key(&log.meta)) {
                    let mut feed = lock(feed);
                    if feed.running.as_deref() == Some(run_id) {
                        feed.running = None;
                    }
                }
                state.ended.push_back((now, run_id.to_owned()));
            }
        }
        log.wake_all();
        Ok(())
    }

    fn open_feed(
        &self,
        principal: Option<&str>,
        thread_id: &str,
        after: u64,
    ) -> Result<ThreadRunStream, StoreError> {
        let feed = {
            let mut state = lock(&self.inner.state);
            let key = (principal.map(str::to_owned), thread_id.to_owned());
            Arc::clone(state.threads.entry(key).or_default())
        };
        check_feed(thread_id, &lock(&feed), after)?;
        Ok(Box::pin(MemoryFeed {
            feed,
            thread_id: thread_id.to_owned(),
            after,
            done: false,
        }))
    }

    fn open_tail(&self, run_id: &str, after: Cursor) -> Result<RecordStream, StoreError> {
        let run = self.log(run_id)?;
        {
            let log = lock(&run.log);
            check_cursor(run_id, &log, after)?;
        }
        Ok(Box::pin(MemoryTail {
            run,
            run_id: run_id.to_owned(),
            next: after + 1,
            buf: VecDeque::new(),
            done: false,
        }))
    }
}

/// Refuses a cursor whose following records were trimmed, or one past the log's end.
fn check_cursor(run_id: &str, log: &Log, after: Cursor) -> Result<(), StoreError> {
    let oldest = log.oldest();
    if after + 1 < oldest {
        return Err(StoreError::CursorExpired {
            run_id: run_id.to_owned(),
            after,
            oldest,
        });
    }
    Ok(())
}

/// Refuses a sequence number whose following runs are no longer kept.
fn check_feed(thread_id: &str, feed: &Feed, after: u64) -> Result<(), StoreError> {
    let oldest = feed.oldest();
    if after + 1 < oldest && after < feed.seq {
        return Err(StoreError::FeedExpired {
            thread_id: thread_id.to_owned(),
            after,
            oldest,
        });
    }
    Ok(())
}

struct MemoryFeed {
    feed: Arc<Mutex<Feed>>,
    thread_id: String,
    /// The sequence number of the last run handed out.
    after: u64,
    done: bool,
}

impl Stream for MemoryFeed {
    type Item = Result<ThreadRun, StoreError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        let mut feed = lock(&this.feed);
        if let Err(e) = check_feed(&this.thread_id, &feed, this.after) {
            this.done = true;
            return Poll::Ready(Some(Err(e)));
        }
        if let Some(next) = feed.entries.iter().find(|r| r.seq > this.after).cloned() {
            this.after = next.seq;
            return Poll::Ready(Some(Ok(next)));
        }
        if !feed.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            feed.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

struct MemoryTail {
    run: Arc<RunLog>,
    run_id: String,
    /// The cursor of the next record to hand out.
    next: Cursor,
    buf: VecDeque<Record>,
    done: bool,
}

impl Stream for MemoryTail {
    type Item = Result<Record, StoreError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(r) = this.buf.pop_front() {
            return Poll::Ready(Some(Ok(r)));
        }
        if this.done {
            return Poll::Ready(None);
        }
        let mut log = lock(&this.run.log);
        if let Err(e) = check_cursor(&this.run_id, &log, this.next - 1) {
            this.done = true;
            return Poll::Ready(Some(Err(e)));
        }
        let oldest = log.oldest();
        let skip = usize::try_from(this.next - oldest).unwrap_or(usize::MAX);
        this.buf.extend(log.records.iter().skip(skip).cloned());
        if let Some(last) = this.buf.back() {
            this.next = last.cursor + 1;
        }
        if let Some(r) = this.buf.pop_front() {
            return Poll::Ready(Some(Ok(r)));
        }
        if log.meta.status == RunPhase::Ended {
            this.done = true;
            return Poll::Ready(None);
        }
        if !log.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            log.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl RunStore for MemoryStore {
    fn create_run(&self, meta: RunMeta) -> StoreFuture<'_, ()> {
        let r = self.create(meta);
        Box::pin(async move { r })
    }

    fn thread_runs<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
        after: u64,
    ) -> StoreFuture<'a, ThreadRunStream> {
        let r = self.open_feed(principal, thread_id, after);
        Box::pin(async move { r })
    }

    fn thread_run<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
    ) -> StoreFuture<'a, Option<String>> {
        let running = {
            let state = lock(&self.inner.state);
            let key = (principal.map(str::to_owned), thread_id.to_owned());
            state
                .threads
                .get(&key)
                .and_then(|f| lock(f).running.clone())
        };
        Box::pin(async move { Ok(running) })
    }

    fn thread_seq<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
    ) -> StoreFuture<'a, u64> {
        let seq = {
            let state = lock(&self.inner.state);
            let key = (principal.map(str::to_owned), thread_id.to_owned());
            state.threads.get(&key).map_or(0, |f| lock(f).seq)
        };
        Box::pin(async move { Ok(seq) })
    }

    fn append<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()> {
        let r = self.push(run_id, records, false);
        Box::pin(async move { r })
    }

    fn end_run<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()> {
        let r = self.push(run_id, records, true);
        Box::pin(async move { r })
    }

    fn run<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, Option<RunMeta>> {
        let r = match self.log(run_id) {
            Ok(run) => Ok(Some(lock(&run.log).meta.clone())),
            Err(StoreError::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        };
        Box::pin(async move { r })
    }

    fn tail<'a>(&'a self, run_id: &'a str, after: Cursor) -> StoreFuture<'a, RecordStream> {
        let r = self.open_tail(run_id, after);
        Box::pin(async move { r })
    }

    fn request_stop<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, bool> {
        let r = self.log(run_id).map(|run| {
            let running = {
                let mut log = lock(&run.log);
                log.meta.stop_requested = true;
                log.meta.status == RunPhase::Running
            };
            run.stop.cancel();
            running
        });
        Box::pin(async move { r })
    }

    fn stop_requested<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, ()> {
        let r = self.log(run_id).map(|run| run.stop.clone());
        Box::pin(async move {
            r?.cancelled().await;
            Ok(())
        })
    }

    /// One process: an owner cannot die without the store.
    fn needs_lease_renewal(&self) -> bool {
        false
    }

    fn renew_lease<'a>(
        &'a self,
        run_id: &'a str,
        owner: &'a str,
        _ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        // One process: the owner cannot die without the store.
        let r = self.log(run_id).and_then(|run| {
            let log = lock(&run.log);
            if log.meta.status == RunPhase::Running && log.meta.owner == owner {
                Ok(())
            } else {
                Err(StoreError::Ended(run_id.to_owned()))
            }
        });
        Box::pin(async move { r })
    }
}
