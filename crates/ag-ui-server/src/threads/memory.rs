//! Threads kept in the process's memory: for tests, demos and one instance that need
//! not survive a restart.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use ag_ui_core::ThreadState;

use ag_ui_core::api::{
    MAX_LIST_LIMIT, RunEndKind, RunPhase, RunRecord, RunSummary, ThreadPage, ThreadPatch,
    ThreadQuery, ThreadSummary,
};

use super::store::{
    CODE_RUN_LOST, Owner, RunEnding, RunStart, StoredThread, ThreadFuture, ThreadStore,
    ThreadStoreError, owner_key,
};

/// Default [`MemoryThreads::max_threads`]: 10,000.
pub const DEFAULT_MAX_THREADS: usize = 10_000;

/// The share of [`MemoryThreads::max_threads`] removed at once when the store is full.
const EVICT_SHARE: usize = 16;

/// A [`ThreadStore`] in memory: threads live as long as the process. Cloning shares it.
/// When it holds [`max_threads`](Self::max_threads), the least recently updated threads
/// without a running run make room for a new one: a sixteenth of `max_threads` (at least
/// one) at a time, so that the store is searched once per as many new threads.
#[derive(Debug, Clone)]
pub struct MemoryThreads {
    inner: Arc<Mutex<State>>,
    max_threads: usize,
}

#[derive(Debug, Default)]
struct State {
    /// By (owner key, thread id).
    threads: HashMap<(String, String), Entry>,
}

#[derive(Debug, Clone)]
struct Entry {
    summary: ThreadSummary,
    thread: ThreadState,
    runs: Vec<Run>,
}

#[derive(Debug, Clone)]
struct Run {
    record: RunRecord,
    checkpoint_at: SystemTime,
}

impl Default for MemoryThreads {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryThreads {
    /// An empty store holding at most [`DEFAULT_MAX_THREADS`] threads.
    #[must_use]
    pub fn new() -> Self {
        MemoryThreads {
            inner: Arc::new(Mutex::new(State::default())),
            max_threads: DEFAULT_MAX_THREADS,
        }
    }

    /// Holds at most `n` threads (at least 1).
    #[must_use]
    pub fn max_threads(mut self, n: usize) -> Self {
        self.max_threads = n.max(1);
        self
    }

    fn state(&self) -> MutexGuard<'_, State> {
        crate::sync::lock(&self.inner)
    }
}

fn key(owner: Owner<'_>, thread_id: &str) -> (String, String) {
    (owner_key(owner).to_owned(), thread_id.to_owned())
}

fn micros(t: SystemTime) -> u128 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros())
}

/// The cursor after `summary`: its update time in microseconds and its id.
fn cursor_of(summary: &ThreadSummary) -> String {
    format!("{}.{}", micros(summary.updated_at), summary.thread_id)
}

fn parse_cursor(cursor: &str) -> Result<(u128, &str), ThreadStoreError> {
    cursor
        .split_once('.')
        .and_then(|(t, id)| Some((t.parse().ok()?, id)))
        .ok_or_else(|| ThreadStoreError::InvalidCursor(cursor.to_owned()))
}

impl Entry {
    fn refresh_summary(&mut self) {
        self.summary.run_count = self.runs.len() as u64;
        self.summary.last_run = self
            .runs
            .last()
            .map(|r| RunSummary::new(r.record.run_id.clone(), r.record.status, r.record.outcome));
    }

    fn run_mut(&mut self, run_id: &str) -> Option<&mut Run> {
        self.runs.iter_mut().find(|r| r.record.run_id == run_id)
    }
}

fn lose(run: &mut Run) -> bool {
    if run.record.status != RunPhase::Running {
        return false;
    }
    run.record.status = RunPhase::Ended;
    run.record.outcome = Some(RunEndKind::Error);
    run.record.error_code = Some(CODE_RUN_LOST.to_owned());
    run.record.ended_at = Some(run.checkpoint_at);
    true
}

fn ready<'a, T: Send + 'a>(r: Result<T, ThreadStoreError>) -> ThreadFuture<'a, T> {
    Box::pin(std::future::ready(r))
}

impl ThreadStore for MemoryThreads {
    fn begin_run<'a>(&'a self, owner: Owner<'a>, run: RunStart) -> ThreadFuture<'a, ()> {
        let mut state = self.state();
        let k = key(owner, &run.thread_id);
        if !state.threads.contains_key(&k) && state.threads.len() >= self.max_threads {
            // The least recently updated idle threads make room, a sixteenth of the bound
            // at a time: one scan of the store per as many new threads, not one each.
            let mut idle: Vec<(SystemTime, &(String, String))> = state
                .threads
                .iter()
                .filter(|(_, e)| e.runs.iter().all(|r| r.record.status != RunPhase::Running))
                .map(|(k, e)| (e.summary.updated_at, k))
                .collect();
            let n = (self.max_threads / EVICT_SHARE).max(1).min(idle.len());
            if n > 0 {
                idle.select_nth_unstable_by_key(n - 1, |(t, _)| *t);
                let victims: Vec<(String, String)> =
                    idle[..n].iter().map(|(_, k)| (*k).clone()).collect();
                for v in victims {
                    state.threads.remove(&v);
                }
            }
        }
        let entry = state.threads.entry(k).or_insert_with(|| Entry {
            summary: ThreadSummary::new(run.thread_id.clone(), run.started_at),
            thread: ThreadState::new(),
            runs: Vec::new(),
        });
        if entry.runs.iter().any(|r| r.record.run_id == run.run_id) {
            return ready(Err(ThreadStoreError::RunExists(run.run_id)));
        }
        entry.thread = run.thread;
        entry.summary.updated_at = run.started_at;
        let mut record = RunRecord::new(run.run_id, run.started_at);
        record.input_messages = run.input_messages;
        record.trace_id = run.trace_id;
        entry.runs.push(Run {
            record,
            checkpoint_at: run.started_at,
        });
        entry.refresh_summary();
        ready(Ok(()))
    }

    fn checkpoint<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        thread: &'a ThreadState,
    ) -> ThreadFuture<'a, ()> {
        let mut state = self.state();
        let Some(entry) = state.threads.get_mut(&key(owner, thread_id)) else {
            return ready(Err(ThreadStoreError::NotFound(thread_id.to_owned())));
        };
        let now = SystemTime::now();
        let Some(run) = entry.run_mut(run_id) else {
            return ready(Err(ThreadStoreError::NotFound(thread_id.to_owned())));
        };
        if run.record.status != RunPhase::Running {
            return ready(Ok(()));
        }
        run.checkpoint_at = now;
        // The fold only while no later run of the thread has started.
        if entry.runs.last().is_some_and(|r| r.record.run_id == run_id) {
            entry.thread = thread.clone();
            entry.summary.updated_at = now;
        }
        ready(Ok(()))
    }

    fn end_run<'a>(&'a self, owner: Owner<'a>, end: RunEnding) -> ThreadFuture<'a, ()> {
        let mut state = self.state();
        let Some(entry) = state.threads.get_mut(&key(owner, &end.thread_id)) else {
            return ready(Err(ThreadStoreError::NotFound(end.thread_id)));
        };
        let Some(index) = entry
            .runs
            .iter()
            .position(|r| r.record.run_id == end.run_id)
        else {
            return ready(Err(ThreadStoreError::NotFound(end.thread_id)));
        };
        let later = index + 1 < entry.runs.len();
        let run = &mut entry.runs[index];
        run.record.status = RunPhase::Ended;
        run.record.outcome = Some(end.outcome);
        run.record.ended_at = Some(end.ended_at);
        run.record.usage = end.usage;
        run.record.error_code = end.error_code;
        // A run rolled back keeps the fold its rollback wrote.
        if !later && !run.record.rolled_back {
            entry.thread = end.thread;
        }
        entry.summary.updated_at = end.ended_at.max(entry.summary.updated_at);
        entry.refresh_summary();
        ready(Ok(()))
    }

    fn thread<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
    ) -> ThreadFuture<'a, Option<StoredThread>> {
        let state = self.state();
        let found = state
            .threads
            .get(&key(owner, thread_id))
            .map(|e| StoredThread {
                summary: e.summary.clone(),
                thread: e.thread.clone(),
                runs: e.runs.iter().map(|r| r.record.clone()).collect(),
            });
        ready(Ok(found))
    }

    fn list<'a>(
        &'a self,
        owner: Owner<'a>,
        query: &'a ThreadQuery,
    ) -> ThreadFuture<'a, ThreadPage> {
        let after = match query.cursor.as_deref().map(parse_cursor).transpose() {
            Ok(a) => a,
            Err(e) => return ready(Err(e)),
        };
        let owner = owner_key(owner);
        let state = self.state();
        let mut matching: Vec<&ThreadSummary> = state
            .threads
            .iter()
            .filter(|((o, _), _)| o == owner)
            .map(|(_, e)| &e.summary)
            .filter(|s| query.archived.admits(s.archived))
            .filter(|s| {
                query
                    .metadata
                    .iter()
                    .all(|(k, v)| s.metadata.get(k).and_then(|x| x.as_str()) == Some(v.as_str()))
            })
            .filter(|s| match after {
                // Newest first: what follows the cursor is older, or as old with a
                // smaller id.
                Some((t, id)) => {
                    let m = micros(s.updated_at);
                    m < t || (m == t && s.thread_id.as_str() < id)
                }
                None => true,
            })
            .collect();
        matching.sort_by(|a, b| {
            micros(b.updated_at)
                .cmp(&micros(a.updated_at))
                .then_with(|| b.thread_id.cmp(&a.thread_id))
        });
        let limit = query.limit.clamp(1, MAX_LIST_LIMIT);
        let more = matching.len() > limit;
        let threads: Vec<ThreadSummary> = matching.into_iter().take(limit).cloned().collect();
        let next_cursor = if more {
            threads.last().map(cursor_of)
        } else {
            None
        };
        ready(Ok(ThreadPage::new(threads, next_cursor)))
    }

    fn update<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        patch: ThreadPatch,
    ) -> ThreadFuture<'a, Option<ThreadSummary>> {
        let mut state = self.state();
        let Some(entry) = state.threads.get_mut(&key(owner, thread_id)) else {
            return ready(Ok(None));
        };
        if let Some(title) = patch.title {
            entry.summary.title = title;
        }
        if let Some(metadata) = patch.metadata {
            entry.summary.metadata = metadata;
        }
        if let Some(archived) = patch.archived {
            entry.summary.archived = archived;
        }
        entry.summary.updated_at = SystemTime::now().max(entry.summary.updated_at);
        ready(Ok(Some(entry.summary.clone())))
    }

    fn delete<'a>(&'a self, owner: Owner<'a>, thread_id: &'a str) -> ThreadFuture<'a, bool> {
        let mut state = self.state();
        let k = key(owner, thread_id);
        let busy = state
            .threads
            .get(&k)
            .is_some_and(|e| e.runs.iter().any(|r| r.record.status == RunPhase::Running));
        if busy {
            return ready(Err(ThreadStoreError::Busy(thread_id.to_owned())));
        }
        ready(Ok(state.threads.remove(&k).is_some()))
    }

    fn lose_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
    ) -> ThreadFuture<'a, bool> {
        let mut state = self.state();
        let lost = state
            .threads
            .get_mut(&key(owner, thread_id))
            .and_then(|e| {
                let lost = lose(e.run_mut(run_id)?);
                e.refresh_summary();
                Some(lost)
            })
            .unwrap_or(false);
        ready(Ok(lost))
    }

    fn rollback_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        fold: &'a ThreadState,
    ) -> ThreadFuture<'a, bool> {
        let mut state = self.state();
        let Some(entry) = state.threads.get_mut(&key(owner, thread_id)) else {
            return ready(Ok(false));
        };
        let Some(index) = entry.runs.iter().position(|r| r.record.run_id == run_id) else {
            return ready(Ok(false));
        };
        let now = SystemTime::now();
        let latest = index + 1 == entry.runs.len();
        let record = &mut entry.runs[index].record;
        if record.status == RunPhase::Running {
            record.status = RunPhase::Ended;
            record.outcome = Some(RunEndKind::Cancelled);
            record.ended_at = Some(now);
        }
        record.rolled_back = true;
        if latest {
            entry.thread = fold.clone();
        }
        entry.summary.updated_at = now.max(entry.summary.updated_at);
        entry.refresh_summary();
        ready(Ok(true))
    }

    fn lose_stale_runs(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        let mut state = self.state();
        let mut n = 0;
        for e in state.threads.values_mut() {
            let mut any = false;
            for r in &mut e.runs {
                if r.record.status == RunPhase::Running && r.checkpoint_at < before && lose(r) {
                    n += 1;
                    any = true;
                }
            }
            if any {
                e.refresh_summary();
            }
        }
        ready(Ok(n))
    }

    fn expire_archived(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        let mut state = self.state();
        let n = state.threads.len();
        state
            .threads
            .retain(|_, e| !(e.summary.archived && e.summary.updated_at < before));
        ready(Ok((n - state.threads.len()) as u64))
    }
}
