//! The owner's side of a run: the agent's guarded stream into the log, in batches; the
//! stop, disconnect and duration rules; the thread's checkpoints and its end.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use ag_ui_core::{Event, EventType, RunErrorEvent, ThreadState};
use tokio::time::{Instant, Sleep, sleep};

use super::journal::{Ending, Journal};
use super::local::MAX_AHEAD;
use super::log::log_warn;
use super::store::{Record, RunStore, StoreError, StoreFuture, write_id};
use super::{
    CODE_ABANDONED, CODE_MAX_DURATION, CODE_STOP_TIMEOUT, DisconnectPolicy, LocalRun, Runs,
};
use crate::RunGuard;
use crate::guard::CODE_ENCODE_ERROR;

/// Events taken from the agent before they are appended as one batch.
const MAX_BATCH: usize = 256;

/// What one run's driver needs.
pub(crate) struct Drive {
    pub(crate) runs: Runs,
    pub(crate) run_id: String,
    /// The run's thread writes and the thread as the run's input left it, when threads
    /// are kept.
    pub(crate) journal: Option<(Arc<Journal>, ThreadState)>,
    pub(crate) guard: RunGuard,
    pub(crate) local: Arc<LocalRun>,
}

enum Step {
    /// The store write in flight returned.
    Written(Result<(), StoreError>),
    /// The wait before a failed write is tried again is over.
    Retry,
    /// Events the agent produced (its stream ended after them when the flag is set).
    Events(Vec<Event>, bool),
    /// The run's cancellation is to be tripped: a stop, the maximum duration, or no
    /// subscriber left; the code ends the run if the agent does not end in time.
    Cancel(&'static str, String),
    /// The agent did not end in time after a cancellation.
    Overdue,
    /// The owner's lease is due for renewal.
    Renew,
    /// The thread's checkpoint is due.
    Checkpoint,
}

/// Why the run is being cancelled: the `RUN_ERROR` that ends it if the agent does not.
struct Stopping {
    code: &'static str,
    message: String,
    deadline: Pin<Box<Sleep>>,
}

/// The store write in flight: its records (kept to try again), whether it ends the run,
/// and the future.
struct Write {
    records: Vec<Record>,
    end: bool,
    future: StoreFuture<'static, ()>,
}

/// Starts writing `records` (with `end`, as the run's last, ending it).
fn write(store: &Arc<dyn RunStore>, run_id: &Arc<str>, records: Vec<Record>, end: bool) -> Write {
    let (store, id, batch) = (Arc::clone(store), Arc::clone(run_id), records.clone());
    let future: StoreFuture<'static, ()> = Box::pin(async move {
        if end {
            store.end_run(&id, batch).await
        } else {
            store.append(&id, batch).await
        }
    });
    Write {
        records,
        end,
        future,
    }
}

/// Diverts the run's local subscribers to the store when the driver is dropped before
/// the store ended the run with its records.
struct Divert(Arc<LocalRun>, bool);

impl Drop for Divert {
    fn drop(&mut self) {
        if !self.1 {
            self.0.divert();
        }
    }
}

impl Drive {
    /// Runs the agent to the end of its run, appending every event to the log: its
    /// records go to the store one write at a time, what accumulates during a write going
    /// in the next, and to the run's local subscribers once the store holds them.
    pub(crate) async fn run(self) {
        let Drive {
            runs,
            run_id,
            journal,
            guard,
            local,
        } = self;
        let store: &dyn RunStore = &*runs.store;
        let shared_id: Arc<str> = Arc::from(run_id.as_str());
        let mut divert = Divert(Arc::clone(&local), false);
        let mut guard = Some(guard);
        let mut next_cursor = 1u64;
        let mut owner = Owner::new(runs.lease);
        let mut stop: StoreFuture<'_, ()> = store.stop_requested(&run_id);
        let mut stop_done = false;
        let mut deadline = runs.max_duration.map(|d| Box::pin(sleep(d)));
        let mut grace: Option<Pin<Box<Sleep>>> = None;
        let renew_every = runs.lease / 3;
        // A store whose runs cannot outlive their owner needs no renewal.
        let mut renew = store
            .needs_lease_renewal()
            .then(|| Box::pin(sleep(renew_every)));
        let mut stopping: Option<Stopping> = None;
        let (journal, mut fold) = match journal {
            Some((j, thread)) => (
                Some(j),
                Some(Fold {
                    thread,
                    pending: Vec::new(),
                }),
            ),
            None => (None, None),
        };
        let mut checkpoint = journal
            .is_some()
            .then(|| Box::pin(sleep(runs.checkpoint_every)));
        // The checkpoint being written, polled beside the run so that a slow thread store
        // never holds up its events.
        let mut writing: Option<Pin<Box<dyn Future<Output = ()> + Send>>> = None;
        let mut ending: Option<Ending> = None;
        // The store write in flight, the wait before it is tried again, and the records
        // made meanwhile (with the run's last, once it has been made).
        let mut inflight: Option<Write> = None;
        let mut retry: Option<Pin<Box<Sleep>>> = None;
        let mut pending: Vec<Record> = Vec::new();
        let mut last: Option<Record> = None;
        // The agent is done (its terminal made, or its stream ended): the run ends with
        // the next write.
        let mut finishing = false;
        let mut durable: u64 = 0;

        let outcome = loop {
            // Nothing in flight: what was made goes to the store.
            if inflight.is_none() && retry.is_none() && (finishing || !pending.is_empty()) {
                let mut records = std::mem::take(&mut pending);
                if finishing {
                    records.extend(last.clone());
                }
                inflight = Some(write(&runs.store, &shared_id, records, finishing));
            }
            let step = std::future::poll_fn(|cx| {
                if let Some(w) = inflight.as_mut()
                    && let Poll::Ready(r) = w.future.as_mut().poll(cx)
                {
                    return Poll::Ready(Step::Written(r));
                }
                if let Some(r) = retry.as_mut()
                    && r.as_mut().poll(cx).is_ready()
                {
                    return Poll::Ready(Step::Retry);
                }
                if let Some(r) = renew.as_mut()
                    && r.as_mut().poll(cx).is_ready()
                {
                    r.as_mut().reset(Instant::now() + renew_every);
                    return Poll::Ready(Step::Renew);
                }
                if finishing {
                    return Poll::Pending;
                }
                if stopping.is_none() {
                    if !stop_done && let Poll::Ready(r) = stop.as_mut().poll(cx) {
                        stop_done = true;
                        if r.is_ok() {
                            return Poll::Ready(Step::Cancel(
                                CODE_STOP_TIMEOUT,
                                "the run was stopped and its agent did not end in time".into(),
                            ));
                        }
                    }
                    if let Some(d) = deadline.as_mut()
                        && d.as_mut().poll(cx).is_ready()
                    {
                        deadline = None;
                        return Poll::Ready(Step::Cancel(
                            CODE_MAX_DURATION,
                            "the run ran past its maximum duration".into(),
                        ));
                    }
                    if local.subscribers(cx) == 0 {
                        match runs.on_disconnect {
                            DisconnectPolicy::Cancel => {
                                return Poll::Ready(Step::Cancel(
                                    CODE_ABANDONED,
                                    "every subscriber went away and the agent did not end in time"
                                        .into(),
                                ));
                            }
                            DisconnectPolicy::Grace(d) => {
                                let g = grace.get_or_insert_with(|| Box::pin(sleep(d)));
                                if g.as_mut().poll(cx).is_ready() {
                                    grace = None;
                                    return Poll::Ready(Step::Cancel(
                                        CODE_ABANDONED,
                                        "no subscriber came back within the grace period and \
                                         the agent did not end in time"
                                            .into(),
                                    ));
                                }
                            }
                            DisconnectPolicy::Continue => {}
                        }
                    } else {
                        grace = None;
                    }
                } else if let Some(s) = stopping.as_mut()
                    && s.deadline.as_mut().poll(cx).is_ready()
                {
                    return Poll::Ready(Step::Overdue);
                }
                if let Some(w) = writing.as_mut()
                    && w.as_mut().poll(cx).is_ready()
                {
                    writing = None;
                }
                if let Some(c) = checkpoint.as_mut()
                    && c.as_mut().poll(cx).is_ready()
                {
                    c.as_mut().reset(Instant::now() + runs.checkpoint_every);
                    // A write still going on is the checkpoint of this interval too.
                    if writing.is_none() {
                        return Poll::Ready(Step::Checkpoint);
                    }
                }
                let Some(g) = guard.as_mut() else {
                    return Poll::Ready(Step::Events(Vec::new(), true));
                };
                // The store is far behind: the agent waits until it catches up.
                if next_cursor.saturating_sub(durable + 1) >= MAX_AHEAD {
                    return Poll::Pending;
                }
                let mut batch = Vec::new();
                // One entry of the run's span for the whole batch.
                let _in_span = g.enter_span();
                loop {
                    match g.poll_event(cx, true) {
                        Poll::Ready(Some(e)) => {
                            batch.push(e);
                            if batch.len() >= MAX_BATCH {
                                return Poll::Ready(Step::Events(batch, false));
                            }
                        }
                        Poll::Ready(None) => return Poll::Ready(Step::Events(batch, true)),
                        Poll::Pending => break,
                    }
                }
                if batch.is_empty() {
                    Poll::Pending
                } else {
                    Poll::Ready(Step::Events(batch, false))
                }
            })
            .await;

            match step {
                Step::Written(result) => {
                    let Some(w) = inflight.take() else {
                        continue;
                    };
                    match owner.judge(&run_id, result) {
                        Verdict::Ok => {
                            if let Some(r) = w.records.last() {
                                durable = r.cursor;
                                local.confirmed(durable);
                            }
                            if w.end {
                                // The log holds the run's terminal event: it goes out.
                                divert.1 = true;
                                local.ended();
                                break Verdict::Ok;
                            }
                            // Lets the subscriber that polls this driver send what the
                            // store now holds before the agent is asked for more.
                            if !w.records.is_empty() {
                                YieldNow(false).await;
                            }
                        }
                        Verdict::Retry => {
                            // The store fails under the owner. Its local subscribers go on
                            // from memory while the outage is shorter than a lease (what a
                            // store's own subscribers ride out); after that they read the
                            // store from their cursors, and end with it as its other
                            // subscribers do.
                            if owner.last_ok.elapsed() >= runs.lease {
                                local.divert();
                            }
                            // The same records again after a wait; what is made meanwhile
                            // waits for them.
                            let mut records = w.records;
                            records.append(&mut pending);
                            pending = records;
                            if w.end {
                                // `last` goes with the next write again.
                                if let Some(l) = last.as_ref() {
                                    pending.retain(|r| r.cursor != l.cursor);
                                }
                            }
                            retry = Some(Box::pin(sleep(RETRY)));
                        }
                        v => break v,
                    }
                }
                Step::Retry => retry = None,
                Step::Events(events, ended) => {
                    // The batch's frames share one buffer; each record is a slice of it.
                    let mut buf = Vec::with_capacity(events.len() * 256);
                    let mut spans = Vec::with_capacity(events.len());
                    let mut terminal_at = None;
                    for event in events {
                        let start = buf.len();
                        write_id(&mut buf, next_cursor + spans.len() as u64);
                        match ag_ui_core::sse::write_sse_frame(&mut buf, &event) {
                            Ok(()) => {
                                let terminal = matches!(
                                    event.event_type(),
                                    EventType::RunFinished | EventType::RunError
                                );
                                spans.push(start..buf.len());
                                if terminal {
                                    ending = Ending::of(&event);
                                }
                                if let Some(f) = fold.as_mut() {
                                    f.push(event);
                                }
                                if terminal {
                                    // Nothing follows a run's terminal event.
                                    terminal_at = Some(spans.len() - 1);
                                    break;
                                }
                            }
                            Err(e) => {
                                buf.truncate(start);
                                let event: Event = RunErrorEvent::new(format!(
                                    "an event could not be encoded: {e}"
                                ))
                                .with_code(CODE_ENCODE_ERROR.to_owned())
                                .into();
                                write_id(&mut buf, next_cursor + spans.len() as u64);
                                if ag_ui_core::sse::write_sse_frame(&mut buf, &event).is_ok() {
                                    spans.push(start..buf.len());
                                    ending = Ending::of(&event);
                                    if let Some(f) = fold.as_mut() {
                                        f.push(event);
                                    }
                                    terminal_at = Some(spans.len() - 1);
                                } else {
                                    // Nothing could be encoded: the run ends as its agent's
                                    // stream does.
                                    terminal_at = Some(usize::MAX);
                                }
                                break;
                            }
                        }
                    }
                    let buf = bytes::Bytes::from(buf);
                    let mut records: Vec<Record> = spans
                        .into_iter()
                        .map(|span| {
                            let r = Record::from_frame(next_cursor, buf.slice(span));
                            next_cursor += 1;
                            r
                        })
                        .collect();
                    if let Some(i) = terminal_at
                        && i < records.len()
                    {
                        // The terminal event reaches subscribers once the log holds it.
                        let t = records.remove(i);
                        local.hold_terminal(t.clone());
                        last = Some(t);
                    }
                    local.publish(&records);
                    pending.append(&mut records);
                    // The terminal event and the run's end are one write: a run whose log
                    // holds its terminal event is never given another.
                    if terminal_at.is_some() || ended {
                        finishing = true;
                        guard = None;
                    }
                    // The batch goes to the store at once when no write is in flight
                    // (its subscribers get it once the store holds it); while one is,
                    // other tasks get their turn before the agent is asked for more.
                    if !finishing && (inflight.is_some() || retry.is_some()) {
                        YieldNow(false).await;
                    }
                }
                Step::Cancel(code, message) => {
                    if let Some(g) = guard.as_ref() {
                        g.cancellation().cancel();
                    }
                    stopping = Some(Stopping {
                        code,
                        message,
                        deadline: Box::pin(sleep(runs.stop_timeout)),
                    });
                }
                Step::Overdue => {
                    guard = None;
                    if let Some(s) = stopping.take() {
                        let event: Event = RunErrorEvent::new(s.message)
                            .with_code(s.code.to_owned())
                            .into();
                        if let Ok(json) = ag_ui_core::write::to_vec(&event) {
                            let record = Record::new(next_cursor, &json);
                            next_cursor += 1;
                            local.hold_terminal(record.clone());
                            last = Some(record);
                            ending = Ending::of(&event);
                            if let Some(f) = fold.as_mut() {
                                f.push(event);
                            }
                        }
                    }
                    finishing = true;
                }
                Step::Renew => {
                    let verdict = owner.renew(store, &run_id, &runs.owner, runs.lease).await;
                    let wait = match verdict {
                        Verdict::Ok => renew_every,
                        Verdict::Retry => RETRY.min(renew_every),
                        _ => break verdict,
                    };
                    if let Some(r) = renew.as_mut() {
                        r.as_mut().reset(Instant::now() + wait);
                    }
                }
                Step::Checkpoint => {
                    runs.maybe_sweep();
                    if let (Some(j), Some(f)) = (journal.as_ref(), fold.as_mut()) {
                        let j = Arc::clone(j);
                        let thread = f.current().clone();
                        writing = Some(Box::pin(async move { j.checkpoint(thread).await }));
                    }
                }
            }
        };
        if outcome != Verdict::Ok {
            // The store did not end the run with this owner's records: the local
            // subscribers read how it ends from the store.
            local.divert();
        }
        drop(guard);
        drop(stop);
        // The checkpoint still being written goes first: a store writes nothing of a
        // checkpoint that comes after the run's end, but it should not race it.
        if let Some(w) = writing.take() {
            w.await;
        }
        if let Some(j) = journal.as_ref() {
            match (outcome, fold.map(Fold::finish)) {
                (Verdict::Ok, Some(thread)) => {
                    let ending = ending.unwrap_or(Ending {
                        outcome: ag_ui_core::api::RunEndKind::Error,
                        usage: Vec::new(),
                        code: None,
                    });
                    j.end(ending, thread).await;
                }
                _ => j.lose().await,
            }
        }
        match outcome {
            Verdict::Ok => {}
            Verdict::Taken => log_warn!(
                run_id,
                "the run was ended by another instance (its lease was taken as lost): its agent is stopped"
            ),
            Verdict::Lost => log_warn!(
                run_id,
                "the store no longer knows the run (its data was lost): its agent is stopped"
            ),
            Verdict::Retry | Verdict::Failed => log_warn!(
                run_id,
                "the store stayed unreachable: the run's agent is stopped"
            ),
        }
        runs.local.remove(&run_id);
    }
}

/// How long an owner waits before it tries a failed store write or renewal again.
const RETRY: Duration = Duration::from_millis(200);

/// What the store said to the owner's last write or renewal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Done (or, for the run's end, ended).
    Ok,
    /// It failed and may be tried again (the store is unreachable, for now).
    Retry,
    /// The run has ended without this owner: another instance ended it as orphaned.
    Taken,
    /// The store no longer knows the run: its data was lost.
    Lost,
    /// The store refused the write for good, or stayed unreachable too long.
    Failed,
}

/// The owner's dealings with the store: writes retried while the store is unreachable,
/// for up to two leases after its last success (by then another instance that reaches
/// the store has ended the run as orphaned, or nobody reaches it).
struct Owner {
    last_ok: Instant,
    give_up: Duration,
}

impl Owner {
    fn new(lease: Duration) -> Self {
        Owner {
            last_ok: Instant::now(),
            give_up: lease * 2,
        }
    }

    #[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
    fn judge(&mut self, run_id: &str, result: Result<(), StoreError>) -> Verdict {
        match result {
            Ok(()) => {
                self.last_ok = Instant::now();
                Verdict::Ok
            }
            Err(StoreError::Ended(_)) => Verdict::Taken,
            Err(StoreError::NotFound(_)) => Verdict::Lost,
            Err(StoreError::Backend(_e)) => {
                log_warn!(run_id, error = %_e, "the run store failed under the run's owner");
                if self.last_ok.elapsed() < self.give_up {
                    Verdict::Retry
                } else {
                    Verdict::Failed
                }
            }
            Err(_e) => {
                log_warn!(run_id, error = %_e, "the run store refused the run's events");
                Verdict::Failed
            }
        }
    }

    async fn renew(
        &mut self,
        store: &dyn RunStore,
        run_id: &str,
        owner: &str,
        lease: Duration,
    ) -> Verdict {
        let result = store.renew_lease(run_id, owner, lease).await;
        self.judge(run_id, result)
    }
}

/// Returns `Pending` once (waking its task at once), then `Ready`.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// A run's driver, boxed: polled by the response that started the run while it is
/// connected (no task switch per batch), by a task of its own after that.
pub(crate) type Driver = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The thread and the events waiting to be folded into it: after the run's end, off the
/// streaming path, unless more than [`FOLD_BACKLOG`] pile up.
struct Fold {
    thread: ThreadState,
    pending: Vec<Event>,
}

/// Events kept for the thread's fold before they are folded as they come.
const FOLD_BACKLOG: usize = 100_000;

impl Fold {
    fn push(&mut self, event: Event) {
        self.pending.push(event);
        if self.pending.len() >= FOLD_BACKLOG {
            for e in self.pending.drain(..) {
                self.thread.apply_owned(e);
            }
        }
    }

    /// The thread with every event so far applied.
    fn current(&mut self) -> &ThreadState {
        for e in self.pending.drain(..) {
            self.thread.apply_owned(e);
        }
        &self.thread
    }

    /// The thread with every event applied.
    fn finish(mut self) -> ThreadState {
        for e in self.pending {
            self.thread.apply_owned(e);
        }
        self.thread
    }
}
