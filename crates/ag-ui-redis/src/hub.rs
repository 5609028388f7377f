//! The reader hub: how one instance follows Redis streams and stop lists through a small,
//! fixed set of blocking connections, whatever the number of its subscribers.
//!
//! - **Readers.** [`RedisConfig::readers`](crate::RedisConfig::readers) connections, each
//!   a loop of `XREAD COUNT <n> BLOCK <poll> STREAMS <wake> k1 k2 … <id> id1 id2 …` over
//!   the streams its local subscribers follow (run logs and thread feeds). A stream is
//!   given to one reader by [`group`] (a hash of its key), so it is read once per
//!   instance however many subscribers follow it; each entry read is parsed once and
//!   handed, shared, to every subscriber of that stream.
//! - **Wake-up.** A reader also reads a wake stream of its own (`<p>hub:{<instance>}:r<i>`);
//!   a subscriber that adds a stream the reader does not follow yet `XADD`s to it, so the
//!   blocked read returns at once and the next one includes the new stream. An `XADD` to a
//!   stream the blocked read names cannot be missed (the read's cursor is before it, so
//!   the entry is there for the next read if the current one was sent after it), where a
//!   `CLIENT UNBLOCK` sent between the reader building its command and Redis receiving it
//!   would do nothing and leave the new stream waiting for a whole poll interval.
//! - **Owner leases.** After each read the reader looks at the owner of every followed run
//!   that has been quiet for a poll interval: one `HMGET` per run (all of them sent
//!   together), not per subscriber; the rule and its evidence are the store's (see
//!   [`Watch`](crate::store)).
//! - **Stops.** One more connection per instance pops every stop list of the runs it owns
//!   and is waiting on with one `BLPOP k1 k2 … <wake> <poll>` (a wake list of its own
//!   brings new runs in), instead of a `BLPOP` per running run.
//!
//! **Redis Cluster.** One `XREAD` (or `BLPOP`) cannot name keys of different slots. The
//! hub's structure fits a cluster by changing [`group`]: streams would be grouped by the
//! slot of their key's hash tag (and by the node serving it), each group with its reader
//! on that node and a wake key tagged into the group's slot. That is not done here: this
//! store is for a single Redis (or a primary with replicas), not a cluster.

use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use redis::Value;
use tokio::sync::Notify;

/// Deliveries a subscriber's queue holds; past it the subscriber is marked lagged (its
/// queue emptied) and re-reads from Redis by its cursor.
pub(crate) const QUEUE_CAP: usize = 64;

/// How long a wake key lives after its last wake-up (an instance that died leaves it to
/// expire).
const WAKE_TTL_MS: u64 = 24 * 60 * 60 * 1000;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// Which of `n` readers follows the stream `key`: a hash of the key. (On a cluster this
/// would be the slot of the key's hash tag, see the module's documentation.)
pub(crate) fn group(key: &str, n: usize) -> usize {
    // A fixed hash: the same key goes to the same reader for the store's whole life.
    let mut h = FixedHasher::default();
    key.hash(&mut h);
    usize::try_from(h.finish() % n.max(1) as u64).unwrap_or(0)
}

/// FNV-1a: a fixed, seedless hash (the grouping must not change between calls).
#[derive(Default)]
struct FixedHasher(u64);

impl Hasher for FixedHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// What a followed stream holds.
#[derive(Clone, Debug)]
pub(crate) enum Kind {
    /// A run's log (run id, its keys): its owner is watched.
    Run {
        run_id: String,
        keys: crate::keys::RunKeys,
    },
    /// A thread's feed of runs.
    Feed,
}

/// What a subscriber receives.
pub(crate) enum Delivery<E> {
    /// Entries read, in order, shared with the other subscribers of the stream.
    Entries(Arc<Vec<E>>),
    /// The subscriber's queue overflowed (it did not read in time): what was queued is
    /// dropped; it re-reads from Redis by its cursor.
    Lagged,
    /// The stream cannot be followed any more.
    Failed(Failure),
}

/// Why the hub gave up a stream for its subscribers.
#[derive(Clone, Debug)]
pub(crate) enum Failure {
    /// The run is unknown to Redis (its data was lost).
    NotFound,
    /// Redis has failed for longer than the tolerance: what it said last.
    Backend(String),
}

/// One subscriber's queue.
pub(crate) struct Queue<E> {
    items: Mutex<QueueState<E>>,
    notify: Notify,
    /// When the subscriber registered (an outage older than it counts from here).
    registered: Instant,
}

struct QueueState<E> {
    items: VecDeque<Delivery<E>>,
    lagged: bool,
}

impl<E> Queue<E> {
    fn new() -> Self {
        Queue {
            items: Mutex::new(QueueState {
                items: VecDeque::new(),
                lagged: false,
            }),
            notify: Notify::new(),
            registered: Instant::now(),
        }
    }

    /// Queues `d` without waiting: past [`QUEUE_CAP`], the queue is emptied and marked
    /// lagged instead. A failure is always queued.
    fn push(&self, d: Delivery<E>) {
        {
            let mut q = lock(&self.items);
            if matches!(d, Delivery::Failed(_)) {
                q.items.push_back(d);
            } else if q.lagged {
                // The subscriber re-reads from Redis anyway.
            } else if q.items.len() >= QUEUE_CAP {
                q.items.clear();
                q.lagged = true;
            } else {
                q.items.push_back(d);
            }
        }
        self.notify.notify_one();
    }

    /// The next delivery (a lag first), waiting for one.
    pub(crate) async fn recv(&self) -> Delivery<E> {
        loop {
            {
                let mut q = lock(&self.items);
                if q.lagged {
                    q.lagged = false;
                    q.items.clear();
                    return Delivery::Lagged;
                }
                if let Some(d) = q.items.pop_front() {
                    return d;
                }
            }
            // `notify_one` keeps a permit when nobody waits: no wake-up is lost between
            // the check and the wait.
            self.notify.notified().await;
        }
    }
}

/// A subscriber's registration with a reader; dropping it leaves the stream (the last
/// subscriber's leaving stops the reader from reading it).
pub(crate) struct Registration<E: Send + Sync + 'static> {
    reader: Arc<Reader<E>>,
    key: String,
    id: u64,
    /// The subscriber's queue.
    pub(crate) queue: Arc<Queue<E>>,
}

impl<E: Send + Sync + 'static> Drop for Registration<E> {
    fn drop(&mut self) {
        let mut st = lock(&self.reader.state);
        if let Some(f) = st.follows.get_mut(&self.key) {
            f.subs.remove(&self.id);
            if f.subs.is_empty() {
                st.follows.remove(&self.key);
            }
        }
    }
}

/// One followed stream of a reader.
pub(crate) struct Follow<E> {
    pub(crate) kind: Kind,
    /// The stream id read up to.
    pub(crate) cursor: u64,
    /// The end entry was read (a run's log): nothing more to read.
    pub(crate) ended: bool,
    pub(crate) subs: HashMap<u64, Arc<Queue<E>>>,
    /// The owner's renewals as watched for this run.
    pub(crate) watch: Watch,
    /// Since when nothing came on it nor was its owner looked at.
    pub(crate) quiet_since: Instant,
}

impl<E> Follow<E> {
    /// Hands `entries` to every subscriber.
    pub(crate) fn fan_out(&self, entries: Vec<E>) {
        let shared = Arc::new(entries);
        for q in self.subs.values() {
            q.push(Delivery::Entries(shared.clone()));
        }
    }

    /// Ends every subscriber with `f`.
    pub(crate) fn fail(&mut self, f: &Failure) {
        for q in self.subs.values() {
            q.push(Delivery::Failed(f.clone()));
        }
        self.subs.clear();
    }
}

/// What a reader follows.
pub(crate) struct ReaderState<E> {
    pub(crate) follows: HashMap<String, Follow<E>>,
    next_id: u64,
    /// The reader has listed its streams for a blocking read: a stream added now is not
    /// in it, and needs a wake-up.
    listening: bool,
}

/// A blocking reader of many streams.
pub(crate) struct Reader<E> {
    pub(crate) index: usize,
    /// Its wake stream.
    pub(crate) wake_key: String,
    pub(crate) state: Mutex<ReaderState<E>>,
    /// Wakes it when it has nothing to read.
    pub(crate) idle: Notify,
    started: AtomicBool,
}

impl<E: Send + Sync + 'static> Reader<E> {
    pub(crate) fn new(index: usize, wake_key: String) -> Self {
        Reader {
            index,
            wake_key,
            state: Mutex::new(ReaderState {
                follows: HashMap::new(),
                next_id: 0,
                listening: false,
            }),
            idle: Notify::new(),
            started: AtomicBool::new(false),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, ReaderState<E>> {
        lock(&self.state)
    }

    /// Whether its loop has to be started (true once).
    pub(crate) fn start(&self) -> bool {
        !self.started.swap(true, Ordering::AcqRel)
    }

    /// Registers a subscriber of `key` at stream id `0-<cursor>`. Returns the registration,
    /// whether the stream is new to a reader blocked on its other streams (it must be
    /// woken), and whether the reader is past `cursor` already (the subscriber reads the
    /// difference from Redis).
    pub(crate) fn register(
        self: &Arc<Self>,
        key: &str,
        kind: Kind,
        cursor: u64,
    ) -> (Registration<E>, bool, bool) {
        let queue = Arc::new(Queue::new());
        let mut st = self.lock();
        st.next_id += 1;
        let id = st.next_id;
        let mut added = false;
        let f = st.follows.entry(key.to_owned()).or_insert_with(|| {
            added = true;
            Follow {
                kind,
                cursor,
                ended: false,
                subs: HashMap::new(),
                watch: Watch::default(),
                quiet_since: Instant::now(),
            }
        });
        let behind = f.ended || f.cursor > cursor;
        f.subs.insert(id, queue.clone());
        let wake = added && st.listening;
        drop(st);
        (
            Registration {
                reader: self.clone(),
                key: key.to_owned(),
                id,
                queue,
            },
            wake,
            behind,
        )
    }

    /// The streams to read next (the wake stream first) with their ids.
    pub(crate) fn snapshot(&self, wake_cursor: &str) -> Option<(Vec<String>, Vec<String>)> {
        let mut st = self.lock();
        let mut keys = vec![self.wake_key.clone()];
        let mut ids = vec![wake_cursor.to_owned()];
        for (k, f) in &st.follows {
            if !f.ended {
                keys.push(k.clone());
                ids.push(format!("0-{}", f.cursor));
            }
        }
        st.listening = keys.len() > 1;
        st.listening.then_some((keys, ids))
    }

    /// Fails every subscriber registered before `since` + `tolerance` ago with `f`.
    pub(crate) fn fail_outage(&self, since: Instant, tolerance: Duration, f: &Failure) {
        let mut st = self.lock();
        st.follows.retain(|_, follow| {
            follow.watch.reset();
            let gone: Vec<u64> = follow
                .subs
                .iter()
                .filter(|(_, q)| since.max(q.registered).elapsed() >= tolerance)
                .map(|(id, _)| *id)
                .collect();
            for id in gone {
                if let Some(q) = follow.subs.remove(&id) {
                    q.push(Delivery::Failed(f.clone()));
                }
            }
            !follow.subs.is_empty()
        });
    }
}

/// What a loop blocked on its wake key reads: a reader's stream, the stop loop's list.
#[derive(Clone, Copy, Debug)]
pub(crate) enum WakeKey {
    /// A reader's stream (woken by an `XADD`).
    Stream,
    /// The stop loop's list (woken by an `RPUSH`).
    List,
}

/// The commands that wake a loop blocked on `wake_key`, of kind `kind`, and keep the key
/// from outliving the wake.
pub(crate) fn wake_cmds(wake_key: &str, kind: WakeKey) -> redis::Pipeline {
    let mut p = redis::pipe();
    match kind {
        WakeKey::Stream => p.cmd("XADD").arg(wake_key).arg("*").arg("wake").arg(1),
        WakeKey::List => p.cmd("RPUSH").arg(wake_key).arg(1),
    }
    .ignore()
    .cmd("PEXPIRE")
    .arg(wake_key)
    .arg(WAKE_TTL_MS)
    .ignore();
    p
}

/// The streams of an `XREAD` reply: `(key, entries)` (RESP2 `[[key, entries]…]` or RESP3
/// `{key: entries}`); none when it timed out.
pub(crate) fn xread_streams(v: Value) -> Vec<(String, Value)> {
    match v {
        Value::Nil => Vec::new(),
        Value::Map(m) => m
            .into_iter()
            .filter_map(|(k, v)| crate::reply::string_of(k).map(|k| (k, v)))
            .collect(),
        Value::Array(a) => a
            .into_iter()
            .filter_map(|s| {
                let mut it = crate::reply::items(s).into_iter();
                let k = it.next().and_then(crate::reply::string_of)?;
                Some((k, it.next().unwrap_or(Value::Nil)))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The last entry id's sequence part (`0-<n>` → n; `1-0`, the end entry, is handled by
/// the caller) of XRANGE-style entries.
pub(crate) fn last_id(entries: &Value) -> Option<String> {
    let Value::Array(a) = entries else {
        return None;
    };
    let last = a.last()?;
    let Value::Array(parts) = last else {
        return None;
    };
    crate::reply::string_of(parts.first()?.clone())
}

/// The stop waiters of an instance: one connection pops every waited-for stop list.
pub(crate) struct Stops {
    /// Its wake list.
    pub(crate) wake_key: String,
    /// Per stop list: the signal its waiters wait on, and how many wait.
    pub(crate) waiters: Mutex<StopState>,
    pub(crate) idle: Notify,
    started: AtomicBool,
}

/// The stop lists waited on.
pub(crate) struct StopState {
    lists: HashMap<String, (usize, Arc<Signal>)>,
    /// The loop has listed the lists for a blocking pop: a list added now needs a
    /// wake-up.
    listening: bool,
}

/// A stop signal: set once, waited on by any number of waiters.
#[derive(Default)]
pub(crate) struct Signal {
    fired: AtomicBool,
    notify: Notify,
}

impl Signal {
    pub(crate) fn fire(&self) {
        self.fired.store(true, Ordering::Release);
        self.notify.notify_waiters();
    }

    pub(crate) async fn wait(&self) {
        loop {
            let n = self.notify.notified();
            tokio::pin!(n);
            n.as_mut().enable();
            if self.fired.load(Ordering::Acquire) {
                return;
            }
            n.await;
        }
    }
}

/// A waiter's registration; dropping it stops popping the list once nobody waits on it.
pub(crate) struct StopWait {
    stops: Weak<Stops>,
    key: String,
    pub(crate) signal: Arc<Signal>,
}

impl Drop for StopWait {
    fn drop(&mut self) {
        if let Some(stops) = self.stops.upgrade() {
            let mut w = lock(&stops.waiters);
            if let Some((n, _)) = w.lists.get_mut(&self.key) {
                *n -= 1;
                if *n == 0 {
                    w.lists.remove(&self.key);
                }
            }
        }
    }
}

impl Stops {
    pub(crate) fn new(wake_key: String) -> Self {
        Stops {
            wake_key,
            waiters: Mutex::new(StopState {
                lists: HashMap::new(),
                listening: false,
            }),
            idle: Notify::new(),
            started: AtomicBool::new(false),
        }
    }

    /// Whether its loop has to be started (true once).
    pub(crate) fn start(&self) -> bool {
        !self.started.swap(true, Ordering::AcqRel)
    }

    /// Registers a waiter on the stop list `key`; true when the list is new to a loop
    /// blocked on the others (it must be woken).
    pub(crate) fn register(self: &Arc<Self>, key: &str) -> (StopWait, bool) {
        let mut w = lock(&self.waiters);
        let mut added = false;
        let entry = w.lists.entry(key.to_owned()).or_insert_with(|| {
            added = true;
            (0, Arc::new(Signal::default()))
        });
        entry.0 += 1;
        let signal = entry.1.clone();
        let wake = added && w.listening;
        drop(w);
        (
            StopWait {
                stops: Arc::downgrade(self),
                key: key.to_owned(),
                signal,
            },
            wake,
        )
    }

    /// The lists to pop (the wake list last).
    pub(crate) fn keys(&self) -> Vec<String> {
        let mut w = lock(&self.waiters);
        let mut keys: Vec<String> = w.lists.keys().cloned().collect();
        w.listening = !keys.is_empty();
        if keys.is_empty() {
            return keys;
        }
        keys.push(self.wake_key.clone());
        keys
    }

    /// Fires the waiters of `key`.
    pub(crate) fn fire(&self, key: &str) {
        if let Some((_, s)) = lock(&self.waiters).lists.get(key) {
            s.fire();
        }
    }
}

/// A subscriber's evidence about a running run's owner: its renewal counter and since when
/// it has stood still, on checks that all reached the store in time. Any sign that the
/// store itself stalled (a slow answer, a failure) starts the evidence over: a run is
/// declared orphaned only when its owner could have renewed and did not, for a whole lease.
/// Kept by the reader, once per followed run.
#[derive(Debug, Default)]
pub(crate) struct Watch {
    seen: Option<(String, Instant)>,
}

impl Watch {
    pub(crate) fn reset(&mut self) {
        self.seen = None;
    }

    /// Notes the counter `beat` read now; true when it has read the same for `lease`.
    pub(crate) fn still(&mut self, beat: &str, lease: Duration) -> bool {
        match &self.seen {
            Some((b, since)) if b == beat => since.elapsed() >= lease,
            _ => {
                self.seen = Some((beat.to_owned(), Instant::now()));
                false
            }
        }
    }
}
