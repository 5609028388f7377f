//! The owner's own subscribers served from its memory: the records its driver made, kept
//! in a bounded buffer, handed out as soon as the store confirms it holds them (no
//! subscriber ever has an event the log may lack, so a rejoin on any instance goes on
//! from its cursor); the terminal event once the store's `end_run` returned Ok. When a write of the owner's is refused (the
//! run was ended by another instance, the store lost it) or the store has failed under
//! the owner for a lease, or when a subscriber falls behind the buffer, the subscriber
//! reads the store's log from its cursor instead, and ends as the store's other
//! subscribers do.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use futures_core::Stream;

use super::LocalRun;
use super::store::{Cursor, Record, RecordStream, RunStore, StoreError};
use crate::sync::lock;

/// Records a run's buffer keeps for its local subscribers, once the store holds them (the
/// records the store does not hold yet are kept whatever their number: the driver bounds
/// them by [`MAX_AHEAD`]).
pub(crate) const KEEP_RECORDS: usize = 4096;
/// Bytes of frames a run's buffer keeps, with the same rule as [`KEEP_RECORDS`].
pub(crate) const KEEP_BYTES: usize = 4 * 1024 * 1024;
/// Records the driver makes ahead of what the store confirmed before it stops asking the
/// agent for more.
pub(crate) const MAX_AHEAD: u64 = 4096;

/// Where a run's writes to the store stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The run goes on.
    Live,
    /// The store ended the run with the owner's terminal event: it is handed out.
    Ended,
    /// The owner's writes ended otherwise: subscribers read the store from their cursor.
    Diverted,
}

/// A run's records as its driver made them.
#[derive(Debug)]
pub(crate) struct Buffer {
    /// Non-terminal records, consecutive cursors.
    records: VecDeque<Record>,
    bytes: usize,
    /// The cursor the next record gets (the first one kept when `records` is empty).
    next: Cursor,
    /// The last cursor the store confirmed.
    durable: Cursor,
    /// The owner's terminal record, handed out once the phase is `Ended`.
    terminal: Option<Record>,
    phase: Phase,
    wakers: Vec<Waker>,
}

impl Default for Buffer {
    fn default() -> Self {
        Buffer {
            records: VecDeque::new(),
            bytes: 0,
            next: 1,
            durable: 0,
            terminal: None,
            phase: Phase::Live,
            wakers: Vec::new(),
        }
    }
}

impl Buffer {
    /// The cursor of the oldest record kept.
    fn oldest(&self) -> Cursor {
        self.records.front().map_or(self.next, |r| r.cursor)
    }

    fn wake(&mut self) {
        for w in self.wakers.drain(..) {
            w.wake();
        }
    }

    /// Drops the oldest records past the bounds that the store holds.
    fn trim(&mut self) {
        while self.records.len() > KEEP_RECORDS || self.bytes > KEEP_BYTES {
            match self.records.front() {
                Some(r) if r.cursor <= self.durable => {
                    self.bytes -= r.frame.len();
                    self.records.pop_front();
                }
                _ => break,
            }
        }
    }
}

impl LocalRun {
    /// Adds the records the driver made (non-terminal, consecutive) and wakes the local
    /// subscribers once.
    pub(crate) fn publish(&self, records: &[Record]) {
        if records.is_empty() {
            return;
        }
        let mut b = lock(&self.buffer);
        for r in records {
            b.bytes += r.frame.len();
            b.next = r.cursor + 1;
            b.records.push_back(r.clone());
        }
        b.trim();
        b.wake();
    }

    /// Keeps the owner's terminal record, handed out once the store has ended the run.
    pub(crate) fn hold_terminal(&self, record: Record) {
        lock(&self.buffer).terminal = Some(record);
    }

    /// The store holds every record up to `cursor`.
    pub(crate) fn confirmed(&self, cursor: Cursor) {
        let mut b = lock(&self.buffer);
        b.durable = b.durable.max(cursor);
        b.trim();
        b.wake();
    }

    /// The store ended the run with the owner's records: the terminal goes out.
    pub(crate) fn ended(&self) {
        let mut b = lock(&self.buffer);
        b.phase = Phase::Ended;
        b.wake();
    }

    /// The owner's writes ended without the store ending the run with its records: the
    /// subscribers read the store's log.
    pub(crate) fn divert(&self) {
        let mut b = lock(&self.buffer);
        if b.phase == Phase::Live {
            b.phase = Phase::Diverted;
            b.terminal = None;
        }
        b.wake();
    }

    /// Whether a subscriber after `after` can be served from the buffer.
    pub(crate) fn serves(&self, after: Cursor) -> bool {
        let b = lock(&self.buffer);
        b.phase != Phase::Diverted && after + 1 >= b.oldest()
    }
}

/// The future that opens a store's tail for a subscriber that left the buffer.
type Opening = Pin<Box<dyn Future<Output = Result<RecordStream, StoreError>> + Send>>;

enum Source {
    /// The owner's buffer.
    Buffer(Arc<LocalRun>),
    /// The store's tail being opened.
    Opening(Opening),
    /// The store's tail: records up to `seen` are skipped, but for a terminal one (the
    /// store's own end, which this subscriber has not had).
    Store {
        tail: RecordStream,
        seen: Cursor,
    },
    Done,
}

/// A local subscriber's records: from the owner's buffer, else from the store (see the
/// module docs). A [`RecordStream`], as a store's tail is.
pub(crate) struct LocalTail {
    store: Arc<dyn RunStore>,
    run_id: String,
    /// The cursor of the next record to hand out.
    next: Cursor,
    ready: VecDeque<Record>,
    source: Source,
}

impl LocalTail {
    /// The records of `run` after `after`.
    pub(crate) fn new(
        run: Arc<LocalRun>,
        store: Arc<dyn RunStore>,
        run_id: String,
        after: Cursor,
    ) -> Self {
        LocalTail {
            store,
            run_id,
            next: after + 1,
            ready: VecDeque::new(),
            source: Source::Buffer(run),
        }
    }

    /// Goes to the store's log, from `from` (skipping what this subscriber had).
    fn read_store(&mut self, from: Cursor) {
        let store = Arc::clone(&self.store);
        let run_id = self.run_id.clone();
        self.source = Source::Opening(Box::pin(async move { store.tail(&run_id, from).await }));
    }
}

impl Stream for LocalTail {
    type Item = Result<Record, StoreError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(r) = this.ready.pop_front() {
            return Poll::Ready(Some(Ok(r)));
        }
        loop {
            match &mut this.source {
                Source::Done => return Poll::Ready(None),
                Source::Buffer(run) => {
                    let run = Arc::clone(run);
                    let mut b = lock(&run.buffer);
                    let had = this.next - 1;
                    if this.next < b.oldest() {
                        // Behind the buffer: the store has these.
                        drop(b);
                        this.read_store(had);
                        continue;
                    }
                    if b.phase == Phase::Diverted {
                        // From what the store surely holds: its end may come before what
                        // this subscriber had from the owner.
                        let from = had.min(b.durable);
                        drop(b);
                        this.read_store(from);
                        continue;
                    }
                    // Only what the store holds: a subscriber never has an event the log
                    // may lack, so a rejoin anywhere goes on from its cursor.
                    let skip = usize::try_from(this.next - b.oldest()).unwrap_or(usize::MAX);
                    let durable = b.durable;
                    this.ready.extend(
                        b.records
                            .iter()
                            .skip(skip)
                            .take_while(|r| r.cursor <= durable)
                            .cloned(),
                    );
                    if let Some(last) = this.ready.back() {
                        this.next = last.cursor + 1;
                    }
                    if let Some(r) = this.ready.pop_front() {
                        return Poll::Ready(Some(Ok(r)));
                    }
                    if b.phase == Phase::Ended {
                        let terminal = b.terminal.clone().filter(|t| t.cursor >= this.next);
                        drop(b);
                        this.source = Source::Done;
                        return Poll::Ready(terminal.map(Ok));
                    }
                    if !b.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                        b.wakers.push(cx.waker().clone());
                    }
                    return Poll::Pending;
                }
                Source::Opening(f) => match f.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Ok(tail)) => {
                        this.source = Source::Store {
                            tail,
                            seen: this.next - 1,
                        };
                    }
                    Poll::Ready(Err(e)) => {
                        this.source = Source::Done;
                        return Poll::Ready(Some(Err(e)));
                    }
                },
                Source::Store { tail, seen } => match tail.as_mut().poll_next(cx) {
                    Poll::Ready(Some(Ok(r))) => {
                        if r.cursor <= *seen && !r.is_terminal() {
                            continue;
                        }
                        return Poll::Ready(Some(Ok(r)));
                    }
                    Poll::Ready(Some(Err(e))) => {
                        this.source = Source::Done;
                        return Poll::Ready(Some(Err(e)));
                    }
                    Poll::Ready(None) => {
                        this.source = Source::Done;
                        return Poll::Ready(None);
                    }
                    Poll::Pending => return Poll::Pending,
                },
            }
        }
    }
}
