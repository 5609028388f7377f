//! [`RedisStore`]: the [`RunStore`] operations on Redis.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ag_ui_core::{Event, RunErrorEvent};
use ag_ui_server::runs::{
    Cursor, DEFAULT_LEASE, DEFAULT_MAX_EVENTS_PER_RUN, DEFAULT_RETENTION, DisconnectPolicy, Record,
    RecordStream, RunMeta, RunPhase, RunStore, Runs, StoreError, StoreFuture, THREAD_FEED_LEN,
    ThreadRun, ThreadRunStream,
};
use ag_ui_server::threads::{decode_fold, encode_fold};
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncConnectionConfig, Client, Value};

use crate::hub::{self, Delivery, Failure, Kind, Reader, Registration, Stops, WakeKey, Watch};
use crate::keys::{RunKeys, ThreadKeys};
use crate::reply::{bytes_of, items, string_of};
use crate::scripts;

/// `code` of the `RUN_ERROR` that ends a run whose owner stopped renewing its lease (the
/// instance running its agent died, or lost Redis): written once to the run's log by the
/// first instance following the run (its reader watches the owner, once per run) that has
/// seen the owner's renewals missing for a lease while it reached Redis in time, so every
/// subscriber reads the same end.
pub const CODE_RUN_ORPHANED: &str = "run_orphaned";

/// Default [`RedisConfig::prefix`]: `ag-ui:`.
pub const DEFAULT_PREFIX: &str = "ag-ui:";
/// Default [`RedisConfig::poll_interval`]: 1 s.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// Default [`RedisConfig::response_timeout`]: 5 s.
pub const DEFAULT_RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);
/// Default [`RedisConfig::readers`]: 2 blocking reader connections per store.
pub const DEFAULT_READERS: usize = 2;

/// Commands the shared connection queues before its callers wait: above what the
/// instance's runs have in flight at once (one write per running run, renewals, stop
/// checks, joins' first reads). With the client's default (50), 1,000 concurrent runs on
/// one instance stalled a few seconds in, every command then timing out with Redis and the
/// instance idle (`docs/scaling.md`).
const PIPELINE_BUFFER: usize = 4096;

/// Entries one read takes from a run's stream (each entry is one appended batch).
const READ_COUNT: usize = 512;

/// How long a thread's sequence number and feed are kept after its last run started.
pub(crate) const FEED_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// How a [`RedisStore`] connects and what it keeps.
///
/// ```
/// use std::time::Duration;
/// use ag_ui_redis::RedisConfig;
///
/// let config = RedisConfig::new("redis://127.0.0.1:6379/0")
///     .prefix("my-app:agui:")
///     .lease(Duration::from_secs(5))
///     .retention(Duration::from_secs(120));
/// assert_eq!(config.lease_duration(), Duration::from_secs(5));
/// // The URL's credentials are never shown.
/// let shown = format!("{:?}", RedisConfig::new("rediss://user:secret@redis.internal:6380/2"));
/// assert!(!shown.contains("secret") && shown.contains("redis.internal:6380"), "{shown}");
/// ```
#[derive(Clone)]
#[must_use]
pub struct RedisConfig {
    url: String,
    prefix: String,
    lease: Duration,
    retention: Duration,
    max_events_per_run: u64,
    poll_interval: Duration,
    response_timeout: Duration,
    connection_timeout: Duration,
    readers: usize,
}

impl fmt::Debug for RedisConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisConfig")
            .field("url", &redact(&self.url))
            .field("prefix", &self.prefix)
            .field("lease", &self.lease)
            .field("retention", &self.retention)
            .field("max_events_per_run", &self.max_events_per_run)
            .field("poll_interval", &self.poll_interval)
            .field("response_timeout", &self.response_timeout)
            .field("connection_timeout", &self.connection_timeout)
            .field("readers", &self.readers)
            .finish()
    }
}

/// The URL without its user information (credentials) and query: scheme, host, port, path.
pub(crate) fn redact(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if scheme.is_empty() {
        format!("{host}{path}")
    } else {
        format!("{scheme}://{host}{path}")
    }
}

impl RedisConfig {
    /// Connects to `url`: `redis://[user:password@]host[:port][/db]`, `rediss://…` for TLS
    /// (the `tls` feature), or `redis+unix:///path`. The rest is the defaults: prefix
    /// [`DEFAULT_PREFIX`], lease [`DEFAULT_LEASE`], retention [`DEFAULT_RETENTION`].
    pub fn new(url: impl Into<String>) -> Self {
        RedisConfig {
            url: url.into(),
            prefix: DEFAULT_PREFIX.to_owned(),
            lease: DEFAULT_LEASE,
            retention: DEFAULT_RETENTION,
            max_events_per_run: DEFAULT_MAX_EVENTS_PER_RUN as u64,
            poll_interval: DEFAULT_POLL_INTERVAL,
            response_timeout: DEFAULT_RESPONSE_TIMEOUT,
            connection_timeout: Duration::from_secs(2),
            readers: DEFAULT_READERS,
        }
    }

    /// How many blocking reader connections the store keeps (at least 1, default
    /// [`DEFAULT_READERS`]): every run log and thread feed its subscribers follow is read
    /// by one of them (`XREAD BLOCK` on many streams at once), whatever the number of
    /// subscribers. With one more connection that waits for the stops of the runs this
    /// instance owns and the shared command connection, a store holds `readers + 2`
    /// connections to Redis.
    pub fn readers(mut self, n: usize) -> Self {
        self.readers = n.clamp(1, 64);
        self
    }

    /// Every key the store writes starts with `prefix` (so that several services, or
    /// several environments, can share one Redis database).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The owner's lease on a running run (at least 30 ms): an instance whose renewals
    /// have been missing for this long, while the instances following its runs reached
    /// Redis in time, has its runs ended with `RUN_ERROR` [`CODE_RUN_ORPHANED`] (at most a lease
    /// and two [poll intervals](Self::poll_interval) after its last renewal). It is also
    /// how long a subscriber rides out a Redis outage before it ends with `store_error`;
    /// an owner retries for two leases. Choose it above the worst failover time you
    /// expect. [`RedisStore::runs`] gives [`Runs`] the same lease, which it renews every
    /// third of it.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(30));
        self
    }

    /// How long an ended run stays joinable (its keys' time-to-live after its end).
    pub fn retention(mut self, retention: Duration) -> Self {
        self.retention = retention.max(Duration::from_millis(1));
        self
    }

    /// Events kept per run (at least 1); older ones are trimmed as new ones come (a join
    /// from before the oldest kept is refused with 410). Trimming is approximate, in whole
    /// appended batches: a little more may be kept, never less.
    pub fn max_events_per_run(mut self, n: u64) -> Self {
        self.max_events_per_run = n.max(1);
        self
    }

    /// How long a reader blocks on its streams when nothing comes, and how often the owner
    /// of a quiet followed run is looked at (capped at half the lease).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(10));
        self
    }

    /// How long a command may take before it fails (the store then answers with a
    /// backend error: a 503 for a new run, `RUN_ERROR` for a subscriber).
    pub fn response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout;
        self
    }

    /// How long a connection attempt may take.
    pub fn connection_timeout(mut self, timeout: Duration) -> Self {
        self.connection_timeout = timeout;
        self
    }

    /// The configured lease.
    #[must_use]
    pub fn lease_duration(&self) -> Duration {
        self.lease
    }

    /// The configured key prefix.
    #[must_use]
    pub fn key_prefix(&self) -> &str {
        &self.prefix
    }

    /// The URL without its credentials (for logs).
    #[must_use]
    pub fn redacted_url(&self) -> String {
        redact(&self.url)
    }
}

/// Why [`RedisStore::connect`] failed. Its message names the server by its URL without
/// credentials.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The URL is not a Redis URL (or asks for TLS without the `tls` feature).
    #[error("{url} is not a usable Redis URL: {source}")]
    Url {
        /// The URL, without credentials.
        url: String,
        /// What the client library said.
        #[source]
        source: redis::RedisError,
    },
    /// Redis did not answer (not running, unreachable, refused the credentials).
    #[error("Redis at {url} is unavailable: {source}")]
    Unavailable {
        /// The URL, without credentials.
        url: String,
        /// What the client library said.
        #[source]
        source: redis::RedisError,
    },
}

/// A [`RunStore`] on Redis, shared by every instance of a service that connects to the
/// same Redis with the same [prefix](RedisConfig::prefix). Cheap to clone: the clones share
/// the store's connections, which are a fixed few however many runs and subscribers the
/// instance has (see [Connections](#connections)).
///
/// What it keeps, per run (`<p>` is the prefix, `<id>` the escaped run id):
///
/// | key | type | holds | time-to-live |
/// |---|---|---|---|
/// | `<p>run:{<id>}` | hash | thread, principal, owner, status, created, ended, stop, orphaned, input (the thread as the run's input left it) | lease + retention, renewed; retention after the end |
/// | `<p>run:{<id>}:log` | stream | one entry per appended batch, id `0-<last cursor>`, fields `<cursor> <json>`…; the end entry `1-0` | as the hash |
/// | `<p>run:{<id>}:stop` | list | a token per stop request, popped by the owner | as the hash |
/// | `<p>thread:{<thread>}` | string | the id of the thread's running run (its claim) | two leases, renewed with the run's; deleted at the run's end |
/// | `<p>thread:{<thread>}:seq` | string | the last sequence number given to a run of the thread | a day after the thread's last run started |
/// | `<p>thread:{<thread>}:feed` | stream | the thread's runs, id `0-<seq>`, field `run`; about the last 1000 | as `:seq` |
///
/// `<thread>` is `a<principal>:<thread id>` (escaped), or `n:<thread id>` for the
/// anonymous principal. A thread's keys share a slot of their own; no script touches both
/// a run's keys and a thread's.
///
/// Each store also has, while it follows anything, a wake stream per reader
/// (`<p>hub:{<instance>}:r<i>`) and a wake list (`<p>hub:{<instance>}:stop`), emptied (so
/// gone) as soon as they are read; a day's time-to-live covers an instance that died.
///
/// Threads are not kept here: they go to the service's
/// [`ThreadStore`](ag_ui_server::threads::ThreadStore) (PostgreSQL for services), beside
/// this live store.
///
/// # Connections
///
/// A store (one per instance, cloned into everything that uses it) holds
/// [`readers`](RedisConfig::readers)` + 2` connections:
///
/// - one multiplexed command connection, shared by every command that does not block
///   (scripts, reads that catch up, the owners' lease checks);
/// - the readers (default 2): each runs `XREAD COUNT <n> BLOCK <poll> STREAMS …` over all
///   the run logs and thread feeds its local subscribers follow (a stream is read by one
///   reader, by a hash of its key). Every entry read is handed, shared (the records' SSE
///   frames are [`Bytes`](bytes::Bytes), never encoded again), to every local subscriber
///   of that stream. A new subscriber reads what the log holds after its cursor with a
///   non-blocking `XREAD` on the command connection, then takes the reader's entries,
///   dropping the ones it has (cursors are the stream ids `0-<cursor>`). A subscriber that
///   does not keep up has a bounded queue: past it, its queue is dropped and it reads
///   again from Redis by its cursor (or ends with `CursorExpired` if the log was trimmed
///   past it), without holding up the reader or the others;
/// - one connection that pops the stop lists of all the runs this instance owns with a
///   single `BLPOP`.
///
/// So 500 joiners of one run on one instance cost Redis no more connections than one.
/// At token rate the commands per event batch are: for the owner, one script call per
/// appended batch (`append`, and `end_run` for the last, each one round trip); for each
/// instance following the run, one `XREAD` per batch of entries, across all the streams
/// its reader follows. The owner's lease renewal stays a script call of its own every
/// third of the lease, off the event path.
///
/// A followed run's owner is watched once per instance, by the reader: when the run has
/// been quiet for a poll interval it reads the owner's renewal counter; when the counter
/// has stood still for a lease, on reads that all reached Redis in time, it ends the run
/// with `RUN_ERROR` [`CODE_RUN_ORPHANED`] (the same script on every instance: one end).
/// While Redis cannot be reached, the subscribers ride it out for up to a lease, then end
/// with `store_error`.
///
/// On a Redis Cluster one `XREAD` (or `BLPOP`) cannot name keys of several slots: the
/// readers would have to group streams by slot and node. This store does not: use it with
/// a single Redis (or a primary and its replicas).
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Inner>,
}

struct Inner {
    config: RedisConfig,
    client: Client,
    manager: ConnectionManager,
    commands: AtomicU64,
    persists: std::sync::OnceLock<Option<bool>>,
    /// The thread keys of the runs this instance created and has not ended.
    claims: std::sync::Mutex<std::collections::HashMap<String, ThreadKeys>>,
    /// The blocking readers of the streams followed here.
    readers: Vec<Arc<Reader<Entry>>>,
    /// The waiters for stops of the runs owned here.
    stops: Arc<Stops>,
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

fn epoch_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn from_epoch_ms(v: &str) -> Option<SystemTime> {
    v.parse()
        .ok()
        .map(|m| UNIX_EPOCH + Duration::from_millis(m))
}

fn backend(e: redis::RedisError) -> StoreError {
    StoreError::Backend(Box::new(e))
}

/// One stream entry: a run log's batch of records or its end marker, or a thread feed's
/// run.
pub(crate) enum Entry {
    Batch(Vec<Record>),
    End,
    Feed(u64, String),
}

fn bad_reply(what: &str) -> StoreError {
    StoreError::Backend(format!("unexpected reply from Redis: {what}").into())
}

/// Parses XRANGE-style entries (`[[id, [field, value, …]], …]`).
fn entries(v: Value) -> Result<Vec<Entry>, StoreError> {
    let mut out = Vec::new();
    for e in items(v) {
        let mut parts = items(e).into_iter();
        let id = parts
            .next()
            .and_then(string_of)
            .ok_or_else(|| bad_reply("a stream entry without an id"))?;
        if id == "1-0" {
            out.push(Entry::End);
            continue;
        }
        let fields = parts.next().map(items).unwrap_or_default();
        let mut batch = Vec::with_capacity(fields.len() / 2);
        let mut it = fields.into_iter();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            let cursor: Cursor = string_of(k)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| bad_reply("a stream field that is not a cursor"))?;
            let json = bytes_of(v).ok_or_else(|| bad_reply("a stream value that is not text"))?;
            batch.push(Record::new(cursor, &json));
        }
        out.push(Entry::Batch(batch));
    }
    Ok(out)
}

/// Parses a thread feed's XRANGE-style entries (`[[0-<seq>, [run, <id>]], …]`).
fn feed_entries(v: Value) -> Result<Vec<Entry>, StoreError> {
    let mut out = Vec::new();
    for e in items(v) {
        let mut parts = items(e).into_iter();
        let seq: u64 = parts
            .next()
            .and_then(string_of)
            .and_then(|id| id.strip_prefix("0-").and_then(|n| n.parse().ok()))
            .ok_or_else(|| bad_reply("a feed entry whose id is not 0-<seq>"))?;
        let mut fields = parts.next().map(items).unwrap_or_default().into_iter();
        let mut run_id = None;
        while let (Some(k), Some(v)) = (fields.next(), fields.next()) {
            if string_of(k).as_deref() == Some("run") {
                run_id = string_of(v);
            }
        }
        let run_id = run_id.ok_or_else(|| bad_reply("a feed entry without its run"))?;
        out.push(Entry::Feed(seq, run_id));
    }
    Ok(out)
}

/// The entries of an XREAD reply on one stream (`nil` when it timed out), unparsed.
fn xread_one(v: Value) -> Value {
    hub::xread_streams(v)
        .into_iter()
        .next()
        .map_or(Value::Nil, |(_, e)| e)
}

/// The number of entries in an XRANGE-style reply.
fn entry_count(v: &Value) -> usize {
    match v {
        Value::Array(a) => a.len(),
        _ => 0,
    }
}

impl RedisStore {
    /// Connects to Redis (checking that it answers) with `config`.
    ///
    /// # Errors
    /// [`ConnectError`] when the URL is not usable or Redis does not answer.
    pub async fn connect(config: RedisConfig) -> Result<Self, ConnectError> {
        let url = config.redacted_url();
        #[cfg(feature = "tls")]
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // rustls needs a process-wide provider when more than one is compiled in; one
            // installed by the application first is kept.
            let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        }
        let client = Client::open(config.url.as_str()).map_err(|source| ConnectError::Url {
            url: url.clone(),
            source,
        })?;
        // Few retries per command: while Redis is away, requests fail fast (503) and each
        // one tries to reconnect; once it is back the next request finds it.
        let manager_config = ConnectionManagerConfig::new()
            .set_number_of_retries(1)
            .set_pipeline_buffer_size(PIPELINE_BUFFER)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(500))
            .set_response_timeout(Some(config.response_timeout))
            .set_connection_timeout(Some(config.connection_timeout));
        let manager = ConnectionManager::new_with_config(client.clone(), manager_config)
            .await
            .map_err(|source| ConnectError::Unavailable {
                url: url.clone(),
                source,
            })?;
        // The instance's wake keys: unique to this store (a random id, in a hash tag).
        let instance = format!("{}hub:{{{}}}", config.prefix, uuid::Uuid::new_v4().simple());
        let readers = (0..config.readers)
            .map(|i| Arc::new(Reader::new(i, format!("{instance}:r{i}"))))
            .collect();
        let stops = Arc::new(Stops::new(format!("{instance}:stop")));
        let store = RedisStore {
            inner: Arc::new(Inner {
                config,
                client,
                manager,
                commands: AtomicU64::new(0),
                persists: std::sync::OnceLock::new(),
                claims: std::sync::Mutex::new(std::collections::HashMap::new()),
                readers,
                stops,
            }),
        };
        let mut con = store.con(1);
        redis::cmd("PING")
            .query_async::<Value>(&mut con)
            .await
            .map_err(|source| ConnectError::Unavailable {
                url: url.clone(),
                source,
            })?;
        let persists = store.read_persistence().await;
        if persists == Some(false) {
            tracing::warn!(
                redis = %url,
                "Redis persists nothing (appendonly no, no RDB snapshots): a restart loses every \
                 run in flight, whose clients then get RUN_ERROR store_lost; turn on appendonly \
                 (or RDB snapshots) for runs that survive a restart"
            );
        }
        let _ = store.inner.persists.set(persists);
        Ok(store)
    }

    /// Whether Redis persists its data (`appendonly yes`, or RDB snapshots configured), as
    /// read when the store connected; `None` when Redis did not say (`CONFIG` is refused on
    /// some managed services). Without persistence a Redis restart loses every run in
    /// flight: [`connect`](Self::connect) logs a warning.
    #[must_use]
    pub fn persists(&self) -> Option<bool> {
        self.inner.persists.get().copied().flatten()
    }

    async fn read_persistence(&self) -> Option<bool> {
        let mut con = self.con(2);
        let (aof, save): (Vec<String>, Vec<String>) = redis::pipe()
            .cmd("CONFIG")
            .arg("GET")
            .arg("appendonly")
            .cmd("CONFIG")
            .arg("GET")
            .arg("save")
            .query_async(&mut con)
            .await
            .ok()?;
        let aof = aof.get(1)?.eq_ignore_ascii_case("yes");
        let rdb = !save.get(1)?.trim().is_empty();
        Some(aof || rdb)
    }

    /// [`connect`](Self::connect) with the default [`RedisConfig`] for `url`.
    ///
    /// # Errors
    /// As [`connect`](Self::connect).
    pub async fn open(url: impl Into<String>) -> Result<Self, ConnectError> {
        Self::connect(RedisConfig::new(url)).await
    }

    /// The store's configuration.
    pub fn config(&self) -> &RedisConfig {
        &self.inner.config
    }

    /// [`Runs`] on this store, with the store's lease (see [`RedisConfig::lease`]) and
    /// [`DisconnectPolicy::Continue`]: the owner counts only its own instance's
    /// subscribers, so a client that rejoins on another instance would not keep a grace
    /// period from running out. Adjust the rest as usual (a
    /// [`max_duration`](Runs::max_duration) bounds runs nobody watches).
    pub fn runs(&self) -> Runs {
        Runs::new(self.clone())
            .lease(self.inner.config.lease)
            .on_disconnect(DisconnectPolicy::Continue)
    }

    /// Redis commands this store has sent so far (a pipeline counts each command in it,
    /// a script call counts one).
    #[must_use]
    pub fn commands_sent(&self) -> u64 {
        self.inner.commands.load(Ordering::Relaxed)
    }

    fn keys(&self, run_id: &str) -> RunKeys {
        RunKeys::new(&self.inner.config.prefix, run_id)
    }

    /// The shared connection, counting `n` commands about to be sent on it.
    fn con(&self, n: u64) -> ConnectionManager {
        self.inner.commands.fetch_add(n, Ordering::Relaxed);
        self.inner.manager.clone()
    }

    /// TTL of a running run's keys: the lease, then the retention.
    fn running_ttl(&self) -> u64 {
        ms(self.inner.config.lease + self.inner.config.retention)
    }

    /// An answer slower than this (beyond a blocking read's own wait) means the store
    /// stalled: a quarter of the lease, at least 50 ms.
    fn stall(&self) -> Duration {
        (self.inner.config.lease / 4).max(Duration::from_millis(50))
    }

    /// How long a blocking read waits before the lease is checked.
    fn poll(&self) -> Duration {
        self.inner
            .config
            .poll_interval
            .min(self.inner.config.lease / 2)
            .max(Duration::from_millis(10))
    }

    /// A connection of its own, for a reader or the stop loop (a blocking command would
    /// hold up every command behind it on the shared one).
    async fn dedicated(&self) -> Result<MultiplexedConnection, StoreError> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.inner.config.connection_timeout))
            .set_response_timeout(Some(self.poll() + self.inner.config.response_timeout));
        self.inner
            .client
            .get_multiplexed_async_connection_with_config(&config)
            .await
            .map_err(backend)
    }

    async fn create(&self, meta: RunMeta) -> Result<(), StoreError> {
        let k = self.keys(&meta.run_id);
        let mut con = self.con(1);
        let created: i64 = scripts::CREATE
            .call(&[&k.meta, &k.log, &k.stop])
            .arg(&meta.owner)
            .arg(self.running_ttl())
            .arg(&meta.thread_id)
            .arg(meta.principal.as_deref().unwrap_or(""))
            .arg(if meta.principal.is_some() { "1" } else { "0" })
            .arg(epoch_ms(meta.created_at))
            .arg(
                meta.input_thread
                    .as_ref()
                    .map(|t| encode_fold(&meta.thread_id, t))
                    .unwrap_or_default(),
            )
            .invoke(&mut con)
            .await
            .map_err(backend)?;
        if created != 1 {
            return Err(StoreError::Exists(meta.run_id));
        }
        let t = ThreadKeys::new(
            &self.inner.config.prefix,
            meta.principal.as_deref(),
            &meta.thread_id,
        );
        let mut claimed = self.claim(&t, &meta.run_id).await;
        if let Ok(Some(holder)) = &claimed
            && self.ended_or_gone(holder).await
        {
            // The holder's end is logged and its claim about to go (its owner releases it
            // right after the end): it holds the thread no more.
            self.release_claim(&t, holder).await;
            claimed = self.claim(&t, &meta.run_id).await;
        }
        match claimed {
            Ok(None) => {
                self.claims().insert(meta.run_id.clone(), t);
                Ok(())
            }
            Ok(Some(holder)) => {
                self.discard(&k).await;
                Err(StoreError::ThreadBusy {
                    thread_id: meta.thread_id,
                    run_id: holder,
                })
            }
            Err(e) => {
                self.discard(&k).await;
                Err(e)
            }
        }
    }

    fn claims(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, ThreadKeys>> {
        match self.inner.claims.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// How long a thread's claim lives without a renewal: two leases.
    fn claim_ttl(&self, lease: Duration) -> u64 {
        ms(lease * 2)
    }

    /// Claims the thread for `run_id` and adds it to the feed; `Some(holder)` when another
    /// run holds the claim.
    async fn claim(&self, t: &ThreadKeys, run_id: &str) -> Result<Option<String>, StoreError> {
        let mut con = self.con(1);
        let v: Value = scripts::CLAIM
            .call(&[&t.claim, &t.seq, &t.feed])
            .arg(run_id)
            .arg(self.claim_ttl(self.inner.config.lease))
            .arg(THREAD_FEED_LEN)
            .arg(ms(FEED_TTL))
            .invoke(&mut con)
            .await
            .map_err(backend)?;
        let mut it = items(v).into_iter();
        match (it.next(), it.next().and_then(string_of)) {
            (Some(Value::Int(1)), Some(_)) => Ok(None),
            (Some(Value::Int(0)), Some(holder)) => Ok(Some(holder)),
            _ => Err(bad_reply("a thread claim's answer")),
        }
    }

    /// Removes a run just created whose thread was busy (nobody has seen it).
    async fn discard(&self, k: &RunKeys) {
        let mut con = self.con(1);
        let r: Result<i64, _> = redis::cmd("DEL")
            .arg(&k.meta)
            .arg(&k.log)
            .arg(&k.stop)
            .query_async(&mut con)
            .await;
        if let Err(e) = r {
            tracing::warn!(error = %e, "a run refused for its busy thread could not be removed");
        }
    }

    /// The thread keys of a run: noted at its creation here, else read from its hash.
    async fn thread_keys_of(&self, run_id: &str) -> Result<Option<ThreadKeys>, StoreError> {
        let noted = self.claims().get(run_id).cloned();
        if let Some(t) = noted {
            return Ok(Some(t));
        }
        let k = self.keys(run_id);
        let mut con = self.con(1);
        let (thread, principal): (Option<String>, Option<String>) = redis::cmd("HMGET")
            .arg(&k.meta)
            .arg("thread")
            .arg("principal")
            .query_async(&mut con)
            .await
            .map_err(backend)?;
        Ok(thread.map(|t| ThreadKeys::new(&self.inner.config.prefix, principal.as_deref(), &t)))
    }

    /// Whether run `run_id` has ended, or is unknown (a store failure counts as neither).
    async fn ended_or_gone(&self, run_id: &str) -> bool {
        let k = self.keys(run_id);
        let mut con = self.con(1);
        let status: Result<Option<String>, _> = redis::cmd("HGET")
            .arg(&k.meta)
            .arg("status")
            .query_async(&mut con)
            .await;
        matches!(status, Ok(s) if s.as_deref() != Some("running"))
    }

    /// Releases `t`'s claim if `run_id` holds it.
    async fn release_claim(&self, t: &ThreadKeys, run_id: &str) {
        let mut con = self.con(1);
        let r: Result<i64, _> = scripts::RELEASE
            .call(&[&t.claim])
            .arg(run_id)
            .invoke(&mut con)
            .await;
        if let Err(e) = r {
            tracing::warn!(run_id, error = %e, "an ended run's thread claim could not be released");
        }
    }

    /// Releases the thread's claim held by the ended run `run_id`.
    async fn release(&self, run_id: &str) {
        let released: Result<(), StoreError> = async {
            let Some(t) = self.thread_keys_of(run_id).await? else {
                return Ok(());
            };
            let mut con = self.con(1);
            let _: i64 = scripts::RELEASE
                .call(&[&t.claim])
                .arg(run_id)
                .invoke(&mut con)
                .await
                .map_err(backend)?;
            self.claims().remove(run_id);
            Ok(())
        }
        .await;
        if let Err(e) = released {
            // The claim expires by itself within two leases.
            tracing::warn!(run_id, error = %e, "an ended run's thread claim could not be released");
        }
    }

    async fn open_feed(
        &self,
        principal: Option<&str>,
        thread_id: &str,
        after: u64,
    ) -> Result<ThreadRunStream, StoreError> {
        let keys = ThreadKeys::new(&self.inner.config.prefix, principal, thread_id);
        let mut con = self.con(1);
        let first: Value = redis::cmd("XREAD")
            .arg("COUNT")
            .arg(READ_COUNT)
            .arg("STREAMS")
            .arg(&keys.feed)
            .arg(format!("0-{after}"))
            .query_async(&mut con)
            .await
            .map_err(backend)?;
        let first = xread_one(first);
        let full = entry_count(&first) >= READ_COUNT;
        let mut feed = FeedTail {
            store: self.clone(),
            keys,
            thread_id: thread_id.to_owned(),
            after,
            buf: VecDeque::new(),
            reg: None,
            need_read: false,
            done: false,
            outage: None,
        };
        feed.take(&feed_entries(first)?, true)?;
        feed.need_read = full;
        Ok(Box::pin(futures_util::stream::unfold(feed, FeedTail::next)))
    }

    async fn running(
        &self,
        principal: Option<&str>,
        thread_id: &str,
    ) -> Result<Option<String>, StoreError> {
        let keys = ThreadKeys::new(&self.inner.config.prefix, principal, thread_id);
        let mut con = self.con(1);
        let holder: Option<String> = redis::cmd("GET")
            .arg(&keys.claim)
            .query_async(&mut con)
            .await
            .map_err(backend)?;
        let Some(holder) = holder else {
            return Ok(None);
        };
        // A claim outlives its run's end by a moment (released right after it).
        let k = self.keys(&holder);
        let mut con = self.con(1);
        let status: Option<String> = redis::cmd("HGET")
            .arg(&k.meta)
            .arg("status")
            .query_async(&mut con)
            .await
            .map_err(backend)?;
        Ok((status.as_deref() == Some("running")).then_some(holder))
    }

    async fn seq(&self, principal: Option<&str>, thread_id: &str) -> Result<u64, StoreError> {
        let keys = ThreadKeys::new(&self.inner.config.prefix, principal, thread_id);
        let mut con = self.con(1);
        let seq: Option<u64> = redis::cmd("GET")
            .arg(&keys.seq)
            .query_async(&mut con)
            .await
            .map_err(backend)?;
        Ok(seq.unwrap_or(0))
    }

    /// Appends `records` to the running run's log and, with `end`, ends the run in the
    /// same script.
    async fn push(&self, run_id: &str, records: Vec<Record>, end: bool) -> Result<(), StoreError> {
        let (first, last) = match (records.first(), records.last()) {
            (Some(f), Some(l)) => (f.cursor, l.cursor),
            _ if end => (0, 0),
            _ => return Ok(()),
        };
        if last < first || (!records.is_empty() && last - first + 1 != records.len() as u64) {
            return Err(StoreError::Backend(
                format!("run {run_id:?}: appended cursors {first}..={last} are not consecutive")
                    .into(),
            ));
        }
        let k = self.keys(run_id);
        let max = self.inner.config.max_events_per_run;
        // Two arguments per record (its cursor and its JSON) after the six below.
        let bytes = records.iter().map(|r| r.json().len() + 24).sum::<usize>() + 96;
        let mut call =
            scripts::APPEND.call_sized(&[&k.meta, &k.log, &k.stop], 6 + 2 * records.len(), bytes);
        call.arg(if end { "1" } else { "0" })
            .arg(epoch_ms(SystemTime::now()))
            .arg(ms(self.inner.config.retention))
            .arg(self.running_ttl());
        if last > max {
            call.arg(format!("0-{}", last - max + 1));
        } else {
            call.arg("");
        }
        call.arg(format!("0-{last}"));
        for r in &records {
            call.arg(r.cursor).arg(r.json());
        }
        let mut con = self.con(1);
        let r: i64 = call.invoke(&mut con).await.map_err(backend)?;
        if end && matches!(r, 1 | 3 | -2) {
            self.release(run_id).await;
        }
        match r {
            -1 => Err(StoreError::NotFound(run_id.to_owned())),
            -2 => Err(StoreError::Ended(run_id.to_owned())),
            _ => Ok(()),
        }
    }

    async fn meta(&self, run_id: &str) -> Result<Option<RunMeta>, StoreError> {
        let k = self.keys(run_id);
        let mut con = self.con(1);
        let v: Value = redis::cmd("HGETALL")
            .arg(&k.meta)
            .query_async(&mut con)
            .await
            .map_err(backend)?;
        let mut fields = std::collections::HashMap::new();
        let mut it = items(v).into_iter();
        while let (Some(f), Some(v)) = (it.next(), it.next()) {
            if let (Some(f), Some(v)) = (string_of(f), string_of(v)) {
                fields.insert(f, v);
            }
        }
        if fields.is_empty() {
            return Ok(None);
        }
        let get = |f: &str| fields.get(f).cloned().unwrap_or_default();
        let mut meta = RunMeta::new(
            run_id,
            get("thread"),
            fields.get("principal").cloned(),
            get("owner"),
        );
        meta.status = if get("status") == "ended" {
            RunPhase::Ended
        } else {
            RunPhase::Running
        };
        if let Some(t) = fields.get("created").and_then(|v| from_epoch_ms(v)) {
            meta.created_at = t;
        }
        meta.ended_at = fields.get("ended").and_then(|v| from_epoch_ms(v));
        meta.stop_requested = get("stop") == "1";
        if let Some(input) = fields.get("input") {
            meta.input_thread = Some(decode_fold(input).map_err(|e| {
                StoreError::Backend(format!("run {run_id:?}'s input thread: {e}").into())
            })?);
        }
        Ok(Some(meta))
    }

    /// Looks at a running run's owner for `watch`: the run's status and renewal counter.
    /// Ends the run with `RUN_ERROR` [`CODE_RUN_ORPHANED`] when the counter has stood still
    /// for a lease of checks that all reached the store in time.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when the store no longer knows the run; a backend failure.
    async fn watch_owner(
        &self,
        k: &RunKeys,
        run_id: &str,
        watch: &mut Watch,
    ) -> Result<(), StoreError> {
        let sent = Instant::now();
        let mut con = self.con(1);
        let (status, beat): (Option<String>, Option<String>) = redis::cmd("HMGET")
            .arg(&k.meta)
            .arg("status")
            .arg("beat")
            .query_async(&mut con)
            .await
            .map_err(backend)?;
        let Some(status) = status else {
            return Err(StoreError::NotFound(run_id.to_owned()));
        };
        if status != "running" {
            // Ended: the log's end entry is there for the next read.
            return Ok(());
        }
        if sent.elapsed() > self.stall() {
            // The store was slow to answer: no evidence about the owner either way.
            watch.reset();
            return Ok(());
        }
        let beat = beat.unwrap_or_default();
        if !watch.still(&beat, self.inner.config.lease) {
            return Ok(());
        }
        let event: Event = RunErrorEvent::new(
            "the instance running this run stopped renewing its lease (it died, or lost its \
             connection to the store) while the store answered: the run is ended",
        )
        .with_code(CODE_RUN_ORPHANED.to_owned())
        .into();
        let json =
            ag_ui_core::write::to_vec(&event).map_err(|e| StoreError::Backend(Box::new(e)))?;
        let mut con = self.con(1);
        let r: i64 = scripts::ORPHAN
            .call(&[&k.meta, &k.log, &k.stop])
            .arg(&beat)
            .arg(epoch_ms(SystemTime::now()))
            .arg(ms(self.inner.config.retention))
            .arg(json)
            .invoke(&mut con)
            .await
            .map_err(backend)?;
        if r != 0 {
            self.release(run_id).await;
            tracing::warn!(
                run_id,
                lease_ms = ms(self.inner.config.lease),
                "a run's owner stopped renewing its lease: the run is ended as orphaned"
            );
        }
        watch.reset();
        Ok(())
    }

    async fn open_tail(&self, run_id: &str, after: Cursor) -> Result<RecordStream, StoreError> {
        let keys = self.keys(run_id);
        let mut con = self.con(2);
        let (exists, first): (bool, Value) = redis::pipe()
            .cmd("EXISTS")
            .arg(&keys.meta)
            .cmd("XREAD")
            .arg("COUNT")
            .arg(READ_COUNT)
            .arg("STREAMS")
            .arg(&keys.log)
            .arg(format!("0-{after}"))
            .query_async(&mut con)
            .await
            .map_err(backend)?;
        if !exists {
            return Err(StoreError::NotFound(run_id.to_owned()));
        }
        let first = xread_one(first);
        let full = entry_count(&first) >= READ_COUNT;
        let mut tail = Tail {
            store: self.clone(),
            run_id: run_id.to_owned(),
            keys,
            last: after,
            buf: VecDeque::new(),
            ended: false,
            terminal_seen: false,
            done: false,
            reg: None,
            need_read: false,
            outage: None,
        };
        tail.take(&entries(first)?, true)?;
        tail.need_read = full && !tail.ended;
        Ok(Box::pin(futures_util::stream::unfold(tail, Tail::next)))
    }

    async fn stop(&self, run_id: &str) -> Result<bool, StoreError> {
        let k = self.keys(run_id);
        let mut con = self.con(1);
        let r: i64 = scripts::STOP
            .call(&[&k.meta, &k.log, &k.stop])
            .arg(self.running_ttl())
            .invoke(&mut con)
            .await
            .map_err(backend)?;
        match r {
            -1 => Err(StoreError::NotFound(run_id.to_owned())),
            0 => Ok(false),
            _ => Ok(true),
        }
    }

    /// Waits for a stop request: the flag in the hash at first, then the instance's stop
    /// connection pops the run's stop list (with every other waited-for list, in one
    /// `BLPOP`). A lost connection is retried by that loop (the token waits in the list),
    /// for as long as the run's driver waits.
    async fn wait_stop(&self, run_id: &str) -> Result<(), StoreError> {
        let k = self.keys(run_id);
        let stops = self.inner.stops.clone();
        let (wait, wake) = stops.register(&k.stop);
        if stops.start() {
            tokio::spawn(stop_loop(Arc::downgrade(&self.inner)));
        }
        stops.idle.notify_one();
        // The flag, and the loop woken to add the list when it is blocked on others, in
        // one round trip. When it fails, the loop takes the list at its next pop (within
        // a poll interval).
        let mut p = if wake {
            hub::wake_cmds(&stops.wake_key, WakeKey::List)
        } else {
            redis::pipe()
        };
        p.cmd("HGET").arg(&k.meta).arg("stop");
        let mut con = self.con(if wake { 3 } else { 1 });
        let flag: Result<(Option<String>,), redis::RedisError> = p.query_async(&mut con).await;
        if let Ok((Some(f),)) = &flag
            && f == "1"
        {
            return Ok(());
        }
        wait.signal.wait().await;
        Ok(())
    }

    /// The reader of stream `key`.
    fn reader_for(&self, key: &str) -> Arc<Reader<Entry>> {
        let readers = &self.inner.readers;
        readers[hub::group(key, readers.len())].clone()
    }

    /// Follows stream `key` from `0-<cursor>` through its reader; true when the reader is
    /// past the cursor (the subscriber reads the difference from Redis).
    async fn follow(
        &self,
        key: &str,
        kind: Kind,
        cursor: u64,
    ) -> Result<(Registration<Entry>, bool), StoreError> {
        let reader = self.reader_for(key);
        let (reg, wake, behind) = reader.register(key, kind, cursor);
        if reader.start() {
            tokio::spawn(reader_loop(Arc::downgrade(&self.inner), reader.index));
        }
        reader.idle.notify_one();
        if wake {
            // The reader is blocked on its other streams: wake it.
            let mut con = self.con(2);
            hub::wake_cmds(&reader.wake_key, WakeKey::Stream)
                .query_async::<()>(&mut con)
                .await
                .map_err(backend)?;
        }
        Ok((reg, behind))
    }

    async fn renew(&self, run_id: &str, owner: &str, ttl: Duration) -> Result<(), StoreError> {
        let k = self.keys(run_id);
        let mut con = self.con(1);
        let r: i64 = scripts::RENEW
            .call(&[&k.meta, &k.log, &k.stop])
            .arg(owner)
            .arg(ms(ttl + self.inner.config.retention))
            .invoke(&mut con)
            .await
            .map_err(backend)?;
        let claim = self.claims().get(run_id).cloned();
        if r == 1
            && let Some(t) = claim
        {
            let mut con = self.con(1);
            let _: i64 = scripts::RENEW_CLAIM
                .call(&[&t.claim])
                .arg(run_id)
                .arg(self.claim_ttl(ttl))
                .invoke(&mut con)
                .await
                .map_err(backend)?;
        }
        match r {
            1 => Ok(()),
            0 => Err(StoreError::NotFound(run_id.to_owned())),
            _ => Err(StoreError::Ended(run_id.to_owned())),
        }
    }
}

/// A subscriber's position in a run's stream: what the log held after its cursor (read on
/// the command connection), then the entries its instance's reader hands it.
struct Tail {
    store: RedisStore,
    run_id: String,
    keys: RunKeys,
    /// The cursor of the last record handed out (or the join's cursor).
    last: Cursor,
    buf: VecDeque<Record>,
    /// The end entry was read.
    ended: bool,
    /// The run's terminal record was handed out (or queued).
    terminal_seen: bool,
    /// An error was handed out: nothing more.
    done: bool,
    /// Its place at the reader, taken once it has caught up.
    reg: Option<Registration<Entry>>,
    /// It has to read from Redis by its cursor (it is behind the reader, or it lagged).
    need_read: bool,
    /// Since when the store has failed under this subscriber, while it does.
    outage: Option<Instant>,
}

impl Failure {
    fn error(self, run_id: &str) -> StoreError {
        match self {
            Failure::NotFound => StoreError::NotFound(run_id.to_owned()),
            Failure::Backend(e) => StoreError::Backend(e.into()),
        }
    }
}

impl Tail {
    /// Takes the records after `last` from `entries`, in order. A gap is the log trimmed
    /// past the cursor when the entries were read from Redis by it (`from_redis`); in the
    /// reader's entries it means some were missed: the subscriber reads from Redis.
    fn take(&mut self, entries: &[Entry], from_redis: bool) -> Result<(), StoreError> {
        for e in entries {
            match e {
                // A log's end entry follows its terminal record: a subscriber that has
                // not had it from the reader missed records, and reads them from Redis
                // (whose answer is the log as it is: one joined after the terminal
                // record gets the end alone).
                Entry::End if !self.terminal_seen && !from_redis => {
                    self.need_read = true;
                    return Ok(());
                }
                Entry::End => self.ended = true,
                Entry::Feed(..) => {}
                Entry::Batch(records) => {
                    for r in records {
                        if r.cursor <= self.last {
                            continue;
                        }
                        if r.cursor != self.last + 1 {
                            if !from_redis {
                                self.need_read = true;
                                return Ok(());
                            }
                            return Err(StoreError::CursorExpired {
                                run_id: self.run_id.clone(),
                                after: self.last,
                                oldest: r.cursor,
                            });
                        }
                        self.last = r.cursor;
                        self.terminal_seen |= r.is_terminal();
                        self.buf.push_back(r.clone());
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads what the log holds after the cursor (no blocking, on the command connection).
    async fn read(&mut self) -> Result<(), StoreError> {
        let mut con = self.store.con(1);
        let v: Value = redis::cmd("XREAD")
            .arg("COUNT")
            .arg(READ_COUNT)
            .arg("STREAMS")
            .arg(&self.keys.log)
            .arg(format!("0-{}", self.last))
            .query_async(&mut con)
            .await
            .map_err(backend)?;
        let v = xread_one(v);
        let full = entry_count(&v) >= READ_COUNT;
        let entries = entries(v)?;
        self.need_read = false;
        self.take(&entries, true)?;
        // A full read may have left more.
        self.need_read = full && !self.ended;
        Ok(())
    }

    /// Takes a place at the run's reader.
    async fn register(&mut self) -> Result<(), StoreError> {
        let kind = Kind::Run {
            run_id: self.run_id.clone(),
            keys: self.keys.clone(),
        };
        let (reg, behind) = self.store.follow(&self.keys.log, kind, self.last).await?;
        self.reg = Some(reg);
        self.need_read = behind;
        Ok(())
    }

    async fn next(mut self) -> Option<(Result<Record, StoreError>, Tail)> {
        loop {
            if let Some(r) = self.buf.pop_front() {
                return Some((Ok(r), self));
            }
            if self.ended || self.done {
                return None;
            }
            let step = if self.need_read {
                self.read().await
            } else if let Some(reg) = &self.reg {
                match reg.queue.recv().await {
                    Delivery::Entries(list) => self.take(&list, false),
                    Delivery::Lagged => {
                        self.need_read = true;
                        Ok(())
                    }
                    Delivery::Failed(f) => {
                        // The reader rode an outage out already, or the run is gone.
                        self.done = true;
                        let e = f.error(&self.run_id);
                        return Some((Err(e), self));
                    }
                }
            } else {
                self.register().await
            };
            match step {
                Ok(()) => self.outage = None,
                Err(StoreError::Backend(e)) => {
                    // Rides out a store outage of up to the lease (a failover, a restart).
                    let since = *self.outage.get_or_insert_with(Instant::now);
                    if since.elapsed() >= self.store.inner.config.lease {
                        self.done = true;
                        return Some((Err(StoreError::Backend(e)), self));
                    }
                    tokio::time::sleep(OUTAGE_RETRY).await;
                }
                Err(e) => {
                    self.done = true;
                    return Some((Err(e), self));
                }
            }
        }
    }
}

/// A follower's position in a thread's feed, followed as a run's subscriber follows its log.
struct FeedTail {
    store: RedisStore,
    keys: ThreadKeys,
    thread_id: String,
    /// The sequence number of the last run handed out (or the one asked for).
    after: u64,
    buf: VecDeque<ThreadRun>,
    reg: Option<Registration<Entry>>,
    need_read: bool,
    done: bool,
    /// Since when the store has failed under this follower, while it does.
    outage: Option<Instant>,
}

impl FeedTail {
    /// Takes the runs after `after`, as [`Tail::take`] takes records.
    fn take(&mut self, entries: &[Entry], from_redis: bool) -> Result<(), StoreError> {
        for e in entries {
            let Entry::Feed(seq, run_id) = e else {
                continue;
            };
            let seq = *seq;
            if seq <= self.after {
                continue;
            }
            if seq != self.after + 1 {
                if !from_redis {
                    self.need_read = true;
                    return Ok(());
                }
                return Err(StoreError::FeedExpired {
                    thread_id: self.thread_id.clone(),
                    after: self.after,
                    oldest: seq,
                });
            }
            self.after = seq;
            self.buf.push_back(ThreadRun::new(seq, run_id.clone()));
        }
        Ok(())
    }

    async fn read(&mut self) -> Result<(), StoreError> {
        let mut con = self.store.con(1);
        let v: Value = redis::cmd("XREAD")
            .arg("COUNT")
            .arg(READ_COUNT)
            .arg("STREAMS")
            .arg(&self.keys.feed)
            .arg(format!("0-{}", self.after))
            .query_async(&mut con)
            .await
            .map_err(backend)?;
        let v = xread_one(v);
        let full = entry_count(&v) >= READ_COUNT;
        let entries = feed_entries(v)?;
        self.need_read = false;
        self.take(&entries, true)?;
        self.need_read = full;
        Ok(())
    }

    async fn next(mut self) -> Option<(Result<ThreadRun, StoreError>, FeedTail)> {
        loop {
            if let Some(r) = self.buf.pop_front() {
                return Some((Ok(r), self));
            }
            if self.done {
                return None;
            }
            let step = if self.need_read {
                self.read().await
            } else if let Some(reg) = &self.reg {
                match reg.queue.recv().await {
                    Delivery::Entries(list) => self.take(&list, false),
                    Delivery::Lagged => {
                        self.need_read = true;
                        Ok(())
                    }
                    Delivery::Failed(f) => {
                        // The reader rode an outage out already, or the run is gone.
                        self.done = true;
                        let e = f.error(&self.thread_id);
                        return Some((Err(e), self));
                    }
                }
            } else {
                match self
                    .store
                    .follow(&self.keys.feed, Kind::Feed, self.after)
                    .await
                {
                    Ok((reg, behind)) => {
                        self.reg = Some(reg);
                        self.need_read = behind;
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            };
            match step {
                Ok(()) => self.outage = None,
                Err(StoreError::Backend(e)) => {
                    // Rides out a store outage of up to the lease, as a run's subscriber does.
                    let since = *self.outage.get_or_insert_with(Instant::now);
                    if since.elapsed() >= self.store.inner.config.lease {
                        self.done = true;
                        return Some((Err(StoreError::Backend(e)), self));
                    }
                    tokio::time::sleep(OUTAGE_RETRY).await;
                }
                Err(e) => {
                    self.done = true;
                    return Some((Err(e), self));
                }
            }
        }
    }
}

/// How long a subscriber waits before it reads again after the store failed under it.
const OUTAGE_RETRY: Duration = Duration::from_millis(100);

/// A reader's loop: reads its streams, hands the entries out, watches the quiet runs'
/// owners. Ends when the store is gone.
async fn reader_loop(store: Weak<Inner>, index: usize) {
    let mut conn: Option<MultiplexedConnection> = None;
    // The wake stream is read from its start, and deleted once read (so it never stays
    // long).
    let mut wake_read = false;
    let mut outage: Option<Instant> = None;
    loop {
        let Some(inner) = store.upgrade() else {
            return;
        };
        let store_now = RedisStore { inner };
        let reader = store_now.inner.readers[index].clone();
        if wake_read {
            // Deleted before the streams are listed: a wake-up sent after this is seen by
            // the next read (from `0-0`), and a stream added before it is listed.
            let mut con = store_now.con(1);
            let _: Result<(), _> = redis::cmd("DEL")
                .arg(&reader.wake_key)
                .query_async(&mut con)
                .await;
            wake_read = false;
        }
        let Some((keys, mut ids)) = reader.snapshot("0-0") else {
            drop(store_now);
            let _ = tokio::time::timeout(Duration::from_secs(1), reader.idle.notified()).await;
            continue;
        };
        if conn.is_none() {
            match store_now.dedicated().await {
                Ok(c) => conn = Some(c),
                Err(e) => {
                    store_now.reader_failed(&reader, &mut outage, &e);
                    drop(store_now);
                    tokio::time::sleep(OUTAGE_RETRY).await;
                    continue;
                }
            }
        }
        let Some(c) = conn.as_mut() else {
            continue;
        };
        let poll = store_now.poll();
        let mut xread = redis::cmd("XREAD");
        xread
            .arg("COUNT")
            .arg(READ_COUNT)
            .arg("BLOCK")
            .arg(ms(poll))
            .arg("STREAMS")
            .arg(&keys)
            .arg(std::mem::take(&mut ids));
        let sent = Instant::now();
        store_now.inner.commands.fetch_add(1, Ordering::Relaxed);
        let read: Result<Value, redis::RedisError> = xread.query_async(c).await;
        let v = match read {
            Ok(v) => v,
            Err(e) => {
                conn = None;
                store_now.reader_failed(&reader, &mut outage, &backend(e));
                drop(store_now);
                tokio::time::sleep(OUTAGE_RETRY).await;
                continue;
            }
        };
        outage = None;
        let late = sent.elapsed() > poll + store_now.stall();
        for (key, list) in hub::xread_streams(v) {
            if key == reader.wake_key {
                wake_read = true;
                continue;
            }
            store_now.deliver(&reader, &key, list);
        }
        let mut due = Vec::new();
        {
            let mut st = reader.lock();
            for (key, f) in &mut st.follows {
                if late {
                    // The read came back late: the store stalled.
                    f.watch.reset();
                }
                if let Kind::Run { run_id, keys } = &f.kind
                    && !f.ended
                    && f.quiet_since.elapsed() >= poll
                {
                    f.quiet_since = Instant::now();
                    due.push((
                        key.clone(),
                        run_id.clone(),
                        keys.clone(),
                        std::mem::take(&mut f.watch),
                    ));
                }
            }
        }
        if due.is_empty() {
            continue;
        }
        let checked = futures_util::future::join_all(due.into_iter().map(
            |(key, run_id, keys, mut watch)| {
                let store = &store_now;
                async move {
                    let r = store.watch_owner(&keys, &run_id, &mut watch).await;
                    (key, watch, r)
                }
            },
        ))
        .await;
        let mut st = reader.lock();
        for (key, watch, r) in checked {
            let Some(f) = st.follows.get_mut(&key) else {
                continue;
            };
            f.watch = watch;
            match r {
                Ok(()) => {}
                Err(StoreError::NotFound(_)) => {
                    f.fail(&Failure::NotFound);
                    st.follows.remove(&key);
                }
                Err(_) => f.watch.reset(),
            }
        }
    }
}

impl RedisStore {
    /// Hands what a reader read on stream `key` to its subscribers.
    fn deliver(&self, reader: &Reader<Entry>, key: &str, list: Value) {
        let mut st = reader.lock();
        let Some(f) = st.follows.get_mut(key) else {
            return;
        };
        let last = hub::last_id(&list);
        let parsed = match f.kind {
            Kind::Run { .. } => entries(list),
            Kind::Feed => feed_entries(list),
        };
        match parsed {
            Ok(list) if !list.is_empty() => {
                match last.as_deref() {
                    Some("1-0") => f.ended = true,
                    Some(id) => {
                        if let Some(n) = id.strip_prefix("0-").and_then(|n| n.parse().ok()) {
                            f.cursor = n;
                        }
                    }
                    None => {}
                }
                f.watch.reset();
                f.quiet_since = Instant::now();
                f.fan_out(list);
            }
            Ok(_) => {}
            Err(e) => {
                f.fail(&Failure::Backend(e.to_string()));
                st.follows.remove(key);
            }
        }
    }

    /// Notes a reader's failure: its runs' owners cannot be judged; subscribers that have
    /// ridden the outage out for a lease end with the error.
    fn reader_failed(&self, reader: &Reader<Entry>, outage: &mut Option<Instant>, e: &StoreError) {
        let since = *outage.get_or_insert_with(Instant::now);
        reader.fail_outage(
            since,
            self.inner.config.lease,
            &Failure::Backend(e.to_string()),
        );
    }
}

/// The stop loop: pops every waited-for stop list of the instance in one `BLPOP`. Ends when
/// the store is gone.
async fn stop_loop(store: Weak<Inner>) {
    let mut conn: Option<MultiplexedConnection> = None;
    let mut backoff = Duration::from_millis(50);
    loop {
        let Some(inner) = store.upgrade() else {
            return;
        };
        let store_now = RedisStore { inner };
        let stops = store_now.inner.stops.clone();
        let keys = stops.keys();
        if keys.is_empty() {
            drop(store_now);
            let _ = tokio::time::timeout(Duration::from_secs(1), stops.idle.notified()).await;
            continue;
        }
        if conn.is_none() {
            match store_now.dedicated().await {
                Ok(c) => conn = Some(c),
                Err(_) => {
                    drop(store_now);
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                    continue;
                }
            }
        }
        let Some(c) = conn.as_mut() else {
            continue;
        };
        store_now.inner.commands.fetch_add(1, Ordering::Relaxed);
        let popped: Result<Value, _> = redis::cmd("BLPOP")
            .arg(&keys)
            .arg(store_now.poll().as_secs_f64())
            .query_async(c)
            .await;
        match popped {
            Ok(v) => {
                backoff = Duration::from_millis(50);
                if let Some(key) = items(v).into_iter().next().and_then(string_of)
                    && key != stops.wake_key
                {
                    stops.fire(&key);
                }
            }
            Err(_) => {
                conn = None;
                drop(store_now);
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(2));
            }
        }
    }
}

impl RunStore for RedisStore {
    fn create_run(&self, meta: RunMeta) -> StoreFuture<'_, ()> {
        Box::pin(self.create(meta))
    }

    fn thread_runs<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
        after: u64,
    ) -> StoreFuture<'a, ThreadRunStream> {
        Box::pin(self.open_feed(principal, thread_id, after))
    }

    fn thread_run<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
    ) -> StoreFuture<'a, Option<String>> {
        Box::pin(self.running(principal, thread_id))
    }

    fn thread_seq<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
    ) -> StoreFuture<'a, u64> {
        Box::pin(self.seq(principal, thread_id))
    }

    fn append<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()> {
        Box::pin(self.push(run_id, records, false))
    }

    fn end_run<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()> {
        Box::pin(self.push(run_id, records, true))
    }

    fn run<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, Option<RunMeta>> {
        Box::pin(self.meta(run_id))
    }

    fn tail<'a>(&'a self, run_id: &'a str, after: Cursor) -> StoreFuture<'a, RecordStream> {
        Box::pin(self.open_tail(run_id, after))
    }

    fn request_stop<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(self.stop(run_id))
    }

    fn stop_requested<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(self.wait_stop(run_id))
    }

    fn renew_lease<'a>(
        &'a self,
        run_id: &'a str,
        owner: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(self.renew(run_id, owner, ttl))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_credentials() {
        assert_eq!(
            redact("redis://user:pa:ss@host:6379/2?x=1"),
            "redis://host:6379/2"
        );
        assert_eq!(redact("rediss://:secret@h/0"), "rediss://h/0");
        assert_eq!(redact("redis://h"), "redis://h");
        assert_eq!(redact("h:1"), "h:1");
    }
}
