//! Runs that outlive their connection: a run log with a cursor per event, joinable,
//! stoppable, with a thread store (a non-standard, opt-in extension; see
//! `docs/resumable.md` in the repository).
//!
//! With [`Runs`] configured on an [`AgentService`](crate::AgentService), a started run's
//! events go to a log in a [`RunStore`] and every response is a subscriber of that log:
//! the `POST` that started the run, and any number of joins
//! (`GET {agent path}/runs/{runId}/events` with `Last-Event-ID` or `?after=`); those on the
//! instance that runs the agent are served from its memory as the store confirms it holds
//! them, the terminal event once the run's end is written (see `docs/resumable.md`). Each SSE
//! frame of such a run carries the event's cursor as its `id:`, which standard clients
//! ignore. How long a run goes on without a subscriber is the [`DisconnectPolicy`].
//!
//! ```
//! use std::time::Duration;
//! use ag_ui_server::AgentService;
//! use ag_ui_server::demo::DemoAgent;
//! use ag_ui_server::runs::{DisconnectPolicy, MemoryLimits, MemoryStore, Runs};
//!
//! let store = MemoryStore::with_limits(MemoryLimits::default().retention(Duration::from_secs(120)));
//! let service = AgentService::new(DemoAgent::new()).runs(
//!     Runs::new(store)
//!         .on_disconnect(DisconnectPolicy::Grace(Duration::from_secs(30)))
//!         .max_duration(Duration::from_secs(600)),
//! );
//! # let _ = service;
//! ```

mod bearer;
mod driver;
mod follow;
pub(crate) mod http;
mod journal;
mod local;
pub(crate) mod log;
mod memory;
mod multitask;
mod principal;
mod store;
pub(crate) mod threads_api;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::task::AtomicWaker;

use crate::threads::{MemoryThreads, ThreadStore};

pub use bearer::{BearerTokenError, BearerTokens, DEFAULT_BEARER_REALM};
pub use memory::{
    DEFAULT_MAX_BYTES_PER_RUN, DEFAULT_MAX_EVENTS_PER_RUN, DEFAULT_MAX_RUNS, DEFAULT_RETENTION,
    MemoryLimits, MemoryStore,
};
pub use store::{
    Cursor, Record, RecordStream, RunMeta, RunPhase, RunStore, StoreError, StoreFuture,
    THREAD_FEED_LEN, ThreadRun, ThreadRunStream,
};

use crate::Rejection;
use crate::sync::lock;

/// `code` of the `RUN_ERROR` that ends a stopped run whose agent did not end in time.
pub const CODE_STOP_TIMEOUT: &str = "stop_timeout";
/// `code` of the `RUN_ERROR` that ends a run that ran past its maximum duration.
pub const CODE_MAX_DURATION: &str = "max_duration";
/// `code` of the `RUN_ERROR` that ends a run left without subscribers whose agent did not
/// end in time after its cancellation.
pub const CODE_ABANDONED: &str = "abandoned";
/// `code` of the `RUN_ERROR` a subscriber writes when the store fails under it (it could
/// not be reached for longer than the store's outage tolerance).
pub const CODE_STORE_ERROR: &str = "store_error";
/// `code` of the `RUN_ERROR` a subscriber writes when the store no longer knows the run it
/// was following (its data was lost: a store restarted empty, a failover to a replica
/// that lacked it, a flush). The run's agent is stopped.
pub const CODE_STORE_LOST: &str = "store_lost";

/// `code` of the `RUN_ERROR` that ends an enqueued start (`?multitask=enqueue`) whose
/// thread's running run did not end within the wait.
pub const CODE_QUEUE_TIMEOUT: &str = "queue_timeout";

/// Default time a run's agent gets to end after a stop (or another cancellation) before
/// the run is ended for it: 5 s.
pub const DEFAULT_STOP_TIMEOUT: Duration = Duration::from_secs(5);
/// Default owner lease on a run: 10 s (renewed every third of it).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);
/// Default grace period of [`Runs::new`]: 30 s.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(30);
/// Default [`Runs::checkpoint_every`]: 5 s.
pub const DEFAULT_CHECKPOINT_INTERVAL: Duration = Duration::from_secs(5);

/// What happens to a run when its last subscriber goes away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DisconnectPolicy {
    /// Trip the run's cancellation at once (what a service without [`Runs`] does).
    Cancel,
    /// Run to the end (bounded by [`Runs::max_duration`]).
    Continue,
    /// Keep running for this long waiting for a join; then cancel. The default, with
    /// [`DEFAULT_GRACE`].
    Grace(Duration),
}

/// Decides who a request comes from, for every request of the service (starting, joining
/// and stopping runs, connecting to threads, the capabilities, and any other path below
/// the agent's): `Ok(Some(principal))` names them, `Ok(None)` admits anyone, `Err`
/// refuses the request with that rejection (401, 403…) before anything else is looked
/// at (a start's body is not read). A principal is never the empty string (the thread
/// store's key of the anonymous principal): a request it names is refused with a 500
/// `invalid_principal` rejection.
pub type Authorize =
    Arc<dyn Fn(&::http::request::Parts) -> Result<Option<String>, Rejection> + Send + Sync>;

/// Resumable runs for an [`AgentService`](crate::AgentService) (see the
/// [module docs](self)): the store, the disconnect policy and the bounds.
#[derive(Clone)]
#[must_use]
pub struct Runs {
    pub(crate) store: Arc<dyn RunStore>,
    pub(crate) on_disconnect: DisconnectPolicy,
    pub(crate) max_duration: Option<Duration>,
    pub(crate) stop_timeout: Duration,
    pub(crate) lease: Duration,
    pub(crate) owner: String,
    pub(crate) threads: Option<Arc<dyn ThreadStore>>,
    pub(crate) checkpoint_every: Duration,
    pub(crate) archived_ttl: Option<Duration>,
    pub(crate) authorize: Option<Authorize>,
    pub(crate) local: Arc<Local>,
    pub(crate) sweep: Arc<Sweep>,
    pub(crate) multitask: ag_ui_core::api::Multitask,
}

impl std::fmt::Debug for Runs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runs")
            .field("on_disconnect", &self.on_disconnect)
            .field("max_duration", &self.max_duration)
            .field("stop_timeout", &self.stop_timeout)
            .field("lease", &self.lease)
            .field("owner", &self.owner)
            .field("threads", &self.threads.as_ref().map(|_| "dyn ThreadStore"))
            .field("checkpoint_every", &self.checkpoint_every)
            .field("archived_ttl", &self.archived_ttl)
            .field("authorize", &self.authorize.as_ref().map(|_| "Fn(&Parts)"))
            .field("multitask", &self.multitask)
            .finish_non_exhaustive()
    }
}

impl Runs {
    /// Resumable runs kept in `store`: disconnect policy a 30 s grace period, no maximum
    /// duration, 5 s for an agent to end after a stop, threads kept in a
    /// [`MemoryThreads`] and checkpointed every 5 s, anyone admitted.
    pub fn new(store: impl RunStore) -> Self {
        Runs {
            store: Arc::new(store),
            on_disconnect: DisconnectPolicy::Grace(DEFAULT_GRACE),
            max_duration: None,
            stop_timeout: DEFAULT_STOP_TIMEOUT,
            lease: DEFAULT_LEASE,
            owner: ag_ui_core::RunId::random().to_string(),
            threads: Some(Arc::new(MemoryThreads::new())),
            checkpoint_every: DEFAULT_CHECKPOINT_INTERVAL,
            archived_ttl: None,
            authorize: None,
            local: Arc::new(Local::default()),
            sweep: Arc::new(Sweep::default()),
            multitask: ag_ui_core::api::Multitask::Reject,
        }
    }

    /// Resumable runs in a [`MemoryStore`] with the default [`MemoryLimits`].
    pub fn in_memory() -> Self {
        Self::new(MemoryStore::new())
    }

    /// What a start on a thread with a run going on does (default
    /// [`Reject`](ag_ui_core::api::Multitask::Reject): 409 `thread_busy`); a start's
    /// `?multitask=reject|enqueue|interrupt|rollback` overrides it. A thread has one
    /// running run at a time, whatever the policy: `enqueue` answers at once and starts
    /// the run when the running one has ended (bounded by the
    /// [maximum duration](Self::max_duration), or an hour), `interrupt` stops the running
    /// run as `POST …/stop` does and starts once its end is logged, `rollback` does the
    /// same and is to roll the stored thread back to before the stopped run (a thread
    /// store operation; without it the thread keeps what the stopped run added).
    pub fn multitask(mut self, policy: ag_ui_core::api::Multitask) -> Self {
        self.multitask = policy;
        self
    }

    /// What happens when a run's last subscriber goes away.
    pub fn on_disconnect(mut self, policy: DisconnectPolicy) -> Self {
        self.on_disconnect = policy;
        self
    }

    /// Cancels a run that runs longer than `limit` (its agent then gets the stop timeout
    /// to end; after it the run ends with `RUN_ERROR` [`CODE_MAX_DURATION`]).
    pub fn max_duration(mut self, limit: Duration) -> Self {
        self.max_duration = Some(limit);
        self
    }

    /// How long a run's agent gets to end after its cancellation was tripped (a stop, the
    /// maximum duration, no subscriber left) before the run is ended with `RUN_ERROR`.
    pub fn stop_timeout(mut self, timeout: Duration) -> Self {
        self.stop_timeout = timeout;
        self
    }

    /// The owner's lease on its runs (renewed every third of it), for distributed stores.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(30));
        self
    }

    /// This instance's name as the owner of the runs it starts (default: a random id).
    pub fn owner(mut self, owner: impl Into<String>) -> Self {
        self.owner = owner.into();
        self
    }

    /// Keeps each thread (its runs and the whole fold of their events) in `store`, for
    /// `GET {agent path}/threads/{threadId}` (default: a [`MemoryThreads`]). Each run's
    /// thread is written when the run starts, every [`checkpoint_every`](Self::checkpoint_every)
    /// while it goes on, and when it ends. Pass a clone of one store (or an `Arc`) to
    /// several services to share their threads.
    pub fn threads(mut self, store: impl ThreadStore) -> Self {
        self.threads = Some(Arc::new(store));
        self
    }

    /// Keeps no threads: `GET {agent path}/threads/{threadId}` answers 404.
    pub fn no_threads(mut self) -> Self {
        self.threads = None;
        self
    }

    /// How often the owner of a run in progress writes its thread's fold to the thread
    /// store (default [`DEFAULT_CHECKPOINT_INTERVAL`], at least 10 ms). Each write also
    /// tells the store that the run's owner is alive: a running run not written for three
    /// intervals and a lease is marked lost
    /// ([`CODE_RUN_LOST`](crate::threads::CODE_RUN_LOST)) by the sweep.
    pub fn checkpoint_every(mut self, interval: Duration) -> Self {
        self.checkpoint_every = interval.max(Duration::from_millis(10));
        self
    }

    /// Deletes archived threads last updated longer than `ttl` ago (by the sweep; default:
    /// kept until deleted).
    pub fn archived_ttl(mut self, ttl: Duration) -> Self {
        self.archived_ttl = Some(ttl);
        self
    }

    /// Decides who each request comes from (see [`Authorize`]). Every request of the
    /// service is decided by it, once, before anything else: starting, joining, stopping,
    /// connecting, the capabilities; a run or a thread is visible only to the principal
    /// that started it. Without it every request comes from the anonymous principal.
    pub fn authorize(
        mut self,
        f: impl Fn(&::http::request::Parts) -> Result<Option<String>, Rejection> + Send + Sync + 'static,
    ) -> Self {
        self.authorize = Some(Arc::new(f));
        self
    }

    /// Authenticates every request by its bearer token ([`BearerTokens`]): a request
    /// without a known token gets 401 with `WWW-Authenticate: Bearer realm=...`; a known
    /// token's principal owns the runs and threads the request starts and is the only one
    /// who sees them. The same as `.authorize(move |parts| tokens.authorize(parts))`.
    pub fn bearer(self, tokens: BearerTokens) -> Self {
        self.authorize(move |parts| tokens.authorize(parts))
    }

    /// The store.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn RunStore> {
        &self.store
    }

    /// The thread store, `None` with [`no_threads`](Self::no_threads).
    #[must_use]
    pub fn thread_store(&self) -> Option<&Arc<dyn ThreadStore>> {
        self.threads.as_ref()
    }

    /// Runs the thread store's sweep when the last one is at least a checkpoint interval
    /// old: runs whose owner stopped writing are marked lost, and archived threads past
    /// [`archived_ttl`](Self::archived_ttl) deleted. Called as requests and runs go; the
    /// sweep itself runs on a task of its own.
    pub(crate) fn maybe_sweep(&self) {
        let Some(store) = self.threads.clone() else {
            return;
        };
        if !self.sweep.due(self.checkpoint_every) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let stale = self.checkpoint_every * 3 + self.lease;
        let ttl = self.archived_ttl;
        runtime.spawn(async move {
            let now = std::time::SystemTime::now();
            if let Some(before) = now.checked_sub(stale)
                && let Err(_e) = store.lose_stale_runs(before).await
            {
                log::log_warn!(error = %_e, "the thread store's sweep of lost runs failed");
            }
            if let Some(before) = ttl.and_then(|t| now.checked_sub(t))
                && let Err(_e) = store.expire_archived(before).await
            {
                log::log_warn!(error = %_e, "the thread store's sweep of archived threads failed");
            }
        });
    }

    /// The disconnect policy.
    #[must_use]
    pub fn disconnect_policy(&self) -> DisconnectPolicy {
        self.on_disconnect
    }
}

/// When the thread store was last swept.
#[derive(Debug, Default)]
pub(crate) struct Sweep {
    last: Mutex<Option<tokio::time::Instant>>,
}

impl Sweep {
    /// Whether a sweep is due (at most one per `interval`); marks it done if so.
    fn due(&self, interval: Duration) -> bool {
        let mut last = lock(&self.last);
        let now = tokio::time::Instant::now();
        if last.is_some_and(|t| now.duration_since(t) < interval) {
            return false;
        }
        *last = Some(now);
        true
    }
}

/// The runs this instance owns, with their local subscribers.
#[derive(Debug, Default)]
pub(crate) struct Local {
    runs: Mutex<HashMap<String, Arc<LocalRun>>>,
}

/// One run this instance owns: how many of this instance's responses subscribe to it,
/// and the records its driver made, which those responses are served from.
#[derive(Debug, Default)]
pub(crate) struct LocalRun {
    subscribers: AtomicUsize,
    /// Wakes the run's driver when the count changes.
    waker: AtomicWaker,
    buffer: Mutex<local::Buffer>,
}

impl Local {
    pub(crate) fn insert(&self, run_id: &str) -> Arc<LocalRun> {
        let run = Arc::new(LocalRun::default());
        let mut runs = lock(&self.runs);
        runs.insert(run_id.to_owned(), Arc::clone(&run));
        run
    }

    pub(crate) fn get(&self, run_id: &str) -> Option<Arc<LocalRun>> {
        let runs = lock(&self.runs);
        runs.get(run_id).cloned()
    }

    pub(crate) fn remove(&self, run_id: &str) {
        let mut runs = lock(&self.runs);
        runs.remove(run_id);
    }
}

impl LocalRun {
    pub(crate) fn subscribe(self: &Arc<Self>) -> Subscriber {
        self.subscribers.fetch_add(1, Ordering::AcqRel);
        self.waker.wake();
        Subscriber {
            run: Arc::clone(self),
        }
    }

    pub(crate) fn subscribers(&self, cx: &std::task::Context<'_>) -> usize {
        self.waker.register(cx.waker());
        self.subscribers.load(Ordering::Acquire)
    }
}

/// A response's hold on a local run: counted while it lives.
#[derive(Debug)]
pub(crate) struct Subscriber {
    run: Arc<LocalRun>,
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        self.run.subscribers.fetch_sub(1, Ordering::AcqRel);
        self.run.waker.wake();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests;
