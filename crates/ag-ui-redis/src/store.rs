//! [`RedisStore`]: the [`RunStore`] operations on Redis.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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

use crate::keys::{RunKeys, ThreadKeys};
use crate::scripts;

/// `code` of the `RUN_ERROR` that ends a run whose owner stopped renewing its lease (the
/// instance running its agent died, or lost Redis): written once to the run's log by the
/// first subscriber that has seen the owner's renewals missing for a lease while it reached
/// Redis in time, so every subscriber reads the same end.
pub const CODE_RUN_ORPHANED: &str = "run_orphaned";

/// Default [`RedisConfig::prefix`]: `ag-ui:`.
pub const DEFAULT_PREFIX: &str = "ag-ui:";
/// Default [`RedisConfig::poll_interval`]: 1 s.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// Default [`RedisConfig::response_timeout`]: 5 s.
pub const DEFAULT_RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);

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
        }
    }

    /// Every key the store writes starts with `prefix` (so that several services, or
    /// several environments, can share one Redis database).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The owner's lease on a running run (at least 30 ms): an instance whose renewals
    /// have been missing for this long, while the watching subscribers reached Redis in
    /// time, has its runs ended with `RUN_ERROR` [`CODE_RUN_ORPHANED`] (at most a lease
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

    /// How long a subscriber blocks on a run's stream before it checks the owner's lease
    /// (capped at half the lease).
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
/// same Redis with the same [prefix](RedisConfig::prefix). Cheap to clone (one
/// connection, shared).
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
/// Threads are not kept here: they go to the service's
/// [`ThreadStore`](ag_ui_server::threads::ThreadStore) (PostgreSQL for services), beside
/// this live store.
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

/// A Redis value as bytes (strings and numbers), `None` for anything else.
fn bytes_of(v: Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.into_bytes()),
        Value::Int(i) => Some(i.to_string().into_bytes()),
        Value::Okay => Some(b"OK".to_vec()),
        _ => None,
    }
}

fn string_of(v: Value) -> Option<String> {
    bytes_of(v).and_then(|b| String::from_utf8(b).ok())
}

/// A Redis array's items, or a map's keys and values in turn.
fn items(v: Value) -> Vec<Value> {
    match v {
        Value::Array(a) | Value::Set(a) => a,
        Value::Map(m) => m.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        _ => Vec::new(),
    }
}

/// One stream entry: its batch of records, or the end marker.
enum Entry {
    Batch(Vec<Record>),
    End,
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

/// The entries of an XREAD reply on one stream (`nil` when it timed out).
fn xread_entries(v: Value) -> Result<Vec<Entry>, StoreError> {
    if matches!(v, Value::Nil) {
        return Ok(Vec::new());
    }
    // RESP2: [[key, entries]]; RESP3: {key: entries}.
    let mut all = items(v);
    if let Some(first) = all.first()
        && matches!(first, Value::Array(_))
    {
        all = items(all.swap_remove(0));
    }
    let entries_value = all.into_iter().nth(1).unwrap_or(Value::Nil);
    entries(entries_value)
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
        let store = RedisStore {
            inner: Arc::new(Inner {
                config,
                client,
                manager,
                commands: AtomicU64::new(0),
                persists: std::sync::OnceLock::new(),
                claims: std::sync::Mutex::new(std::collections::HashMap::new()),
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

    /// A connection of its own, for blocking commands (they would hold up every command
    /// behind them on the shared one).
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
            .key(&k.meta)
            .key(&k.log)
            .key(&k.stop)
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
            .invoke_async(&mut con)
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
            .key(&t.claim)
            .key(&t.seq)
            .key(&t.feed)
            .arg(run_id)
            .arg(self.claim_ttl(self.inner.config.lease))
            .arg(THREAD_FEED_LEN)
            .arg(ms(FEED_TTL))
            .invoke_async(&mut con)
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
            .key(&t.claim)
            .arg(run_id)
            .invoke_async(&mut con)
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
                .key(&t.claim)
                .arg(run_id)
                .invoke_async(&mut con)
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
        let mut feed = FeedTail {
            store: self.clone(),
            keys,
            thread_id: thread_id.to_owned(),
            after,
            buf: VecDeque::new(),
            conn: None,
            done: false,
            outage: None,
        };
        feed.take(first)?;
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
        let mut call = scripts::APPEND.prepare_invoke();
        call.key(&k.meta)
            .key(&k.log)
            .key(&k.stop)
            .arg(if end { "1" } else { "0" })
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
        let r: i64 = call.invoke_async(&mut con).await.map_err(backend)?;
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
            .key(&k.meta)
            .key(&k.log)
            .key(&k.stop)
            .arg(&beat)
            .arg(epoch_ms(SystemTime::now()))
            .arg(ms(self.inner.config.retention))
            .arg(json)
            .invoke_async(&mut con)
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
        let mut tail = Tail {
            store: self.clone(),
            run_id: run_id.to_owned(),
            keys,
            last: after,
            buf: VecDeque::new(),
            ended: false,
            done: false,
            conn: None,
            watch: Watch::default(),
            outage: None,
        };
        tail.take(xread_entries(first)?)?;
        Ok(Box::pin(futures_util::stream::unfold(tail, Tail::next)))
    }

    async fn stop(&self, run_id: &str) -> Result<bool, StoreError> {
        let k = self.keys(run_id);
        let mut con = self.con(1);
        let r: i64 = scripts::STOP
            .key(&k.meta)
            .key(&k.log)
            .key(&k.stop)
            .arg(self.running_ttl())
            .invoke_async(&mut con)
            .await
            .map_err(backend)?;
        match r {
            -1 => Err(StoreError::NotFound(run_id.to_owned())),
            0 => Ok(false),
            _ => Ok(true),
        }
    }

    /// Waits for a stop request: the flag in the hash at first, then the owner pops the
    /// run's stop list on a connection of its own. A lost connection is retried (the
    /// token waits in the list), for as long as the run's driver waits.
    async fn wait_stop(&self, run_id: &str) -> Result<(), StoreError> {
        let k = self.keys(run_id);
        let mut backoff = Duration::from_millis(50);
        let mut conn: Option<MultiplexedConnection> = None;
        loop {
            let attempt: Result<bool, StoreError> = async {
                if conn.is_none() {
                    let mut c = self.dedicated().await?;
                    self.inner.commands.fetch_add(1, Ordering::Relaxed);
                    let stop: Option<String> = redis::cmd("HGET")
                        .arg(&k.meta)
                        .arg("stop")
                        .query_async(&mut c)
                        .await
                        .map_err(backend)?;
                    if stop.as_deref() == Some("1") {
                        return Ok(true);
                    }
                    conn = Some(c);
                }
                let Some(c) = conn.as_mut() else {
                    return Ok(false);
                };
                self.inner.commands.fetch_add(1, Ordering::Relaxed);
                let popped: Value = redis::cmd("BLPOP")
                    .arg(&k.stop)
                    .arg(self.poll().as_secs_f64())
                    .query_async(c)
                    .await
                    .map_err(backend)?;
                Ok(!matches!(popped, Value::Nil))
            }
            .await;
            match attempt {
                Ok(true) => return Ok(()),
                Ok(false) => backoff = Duration::from_millis(50),
                Err(_) => {
                    conn = None;
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
            }
        }
    }

    async fn renew(&self, run_id: &str, owner: &str, ttl: Duration) -> Result<(), StoreError> {
        let k = self.keys(run_id);
        let mut con = self.con(1);
        let r: i64 = scripts::RENEW
            .key(&k.meta)
            .key(&k.log)
            .key(&k.stop)
            .arg(owner)
            .arg(ms(ttl + self.inner.config.retention))
            .invoke_async(&mut con)
            .await
            .map_err(backend)?;
        let claim = self.claims().get(run_id).cloned();
        if r == 1
            && let Some(t) = claim
        {
            let mut con = self.con(1);
            let _: i64 = scripts::RENEW_CLAIM
                .key(&t.claim)
                .arg(run_id)
                .arg(self.claim_ttl(ttl))
                .invoke_async(&mut con)
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

/// A subscriber's position in a run's stream.
struct Tail {
    store: RedisStore,
    run_id: String,
    keys: RunKeys,
    /// The cursor of the last record handed out (or the join's cursor).
    last: Cursor,
    buf: VecDeque<Record>,
    /// The end entry was read.
    ended: bool,
    /// An error was handed out: nothing more.
    done: bool,
    /// The connection for blocking reads, opened at the first one.
    conn: Option<MultiplexedConnection>,
    /// What this subscriber has seen of the run's owner.
    watch: Watch,
    /// Since when the store has failed under this subscriber, while it does.
    outage: Option<Instant>,
}

/// A subscriber's evidence about a running run's owner: its renewal counter and since when
/// it has stood still, on checks that all reached the store in time. Any sign that the
/// store itself stalled (a slow answer, a failure) starts the evidence over: a run is
/// declared orphaned only when its owner could have renewed and did not, for a whole lease.
#[derive(Debug, Default)]
struct Watch {
    seen: Option<(String, Instant)>,
}

impl Watch {
    fn reset(&mut self) {
        self.seen = None;
    }

    /// Notes the counter `beat` read now; true when it has read the same for `lease`.
    fn still(&mut self, beat: &str, lease: Duration) -> bool {
        match &self.seen {
            Some((b, since)) if b == beat => since.elapsed() >= lease,
            _ => {
                self.seen = Some((beat.to_owned(), Instant::now()));
                false
            }
        }
    }
}

impl Tail {
    /// Takes the records after `last` from `entries`, in order, refusing a gap.
    fn take(&mut self, entries: Vec<Entry>) -> Result<(), StoreError> {
        for e in entries {
            match e {
                Entry::End => self.ended = true,
                Entry::Batch(records) => {
                    for r in records {
                        if r.cursor <= self.last {
                            continue;
                        }
                        if r.cursor != self.last + 1 {
                            return Err(StoreError::CursorExpired {
                                run_id: self.run_id.clone(),
                                after: self.last,
                                oldest: r.cursor,
                            });
                        }
                        self.last = r.cursor;
                        self.buf.push_back(r);
                    }
                }
            }
        }
        Ok(())
    }

    /// Blocks on the stream for new entries, for a poll interval; on a timeout, looks at
    /// the run's owner.
    async fn fetch(&mut self) -> Result<(), StoreError> {
        if self.conn.is_none() {
            self.conn = Some(self.store.dedicated().await?);
        }
        let poll = self.store.poll();
        let Some(conn) = self.conn.as_mut() else {
            return Ok(());
        };
        self.store.inner.commands.fetch_add(1, Ordering::Relaxed);
        let sent = Instant::now();
        let v: Value = redis::cmd("XREAD")
            .arg("COUNT")
            .arg(READ_COUNT)
            .arg("BLOCK")
            .arg(ms(poll))
            .arg("STREAMS")
            .arg(&self.keys.log)
            .arg(format!("0-{}", self.last))
            .query_async(conn)
            .await
            .map_err(backend)?;
        if sent.elapsed() > poll + self.store.stall() {
            // The read came back late: the store stalled.
            self.watch.reset();
        }
        if matches!(v, Value::Nil) {
            return self
                .store
                .watch_owner(&self.keys, &self.run_id, &mut self.watch)
                .await;
        }
        // Events arrived: the owner is alive.
        self.watch.reset();
        self.take(xread_entries(v)?)
    }

    async fn next(mut self) -> Option<(Result<Record, StoreError>, Tail)> {
        loop {
            if let Some(r) = self.buf.pop_front() {
                return Some((Ok(r), self));
            }
            if self.ended || self.done {
                return None;
            }
            match self.fetch().await {
                Ok(()) => self.outage = None,
                Err(StoreError::Backend(e)) => {
                    // Rides out a store outage of up to the lease (a failover, a restart),
                    // on a new connection each time.
                    self.conn = None;
                    self.watch.reset();
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

/// A follower's position in a thread's feed.
struct FeedTail {
    store: RedisStore,
    keys: ThreadKeys,
    thread_id: String,
    /// The sequence number of the last run handed out (or the one asked for).
    after: u64,
    buf: VecDeque<ThreadRun>,
    conn: Option<MultiplexedConnection>,
    done: bool,
    /// Since when the store has failed under this follower, while it does.
    outage: Option<Instant>,
}

impl FeedTail {
    /// Takes the runs after `after` from an XREAD reply, refusing a gap.
    fn take(&mut self, v: Value) -> Result<(), StoreError> {
        if matches!(v, Value::Nil) {
            return Ok(());
        }
        let mut all = items(v);
        if let Some(first) = all.first()
            && matches!(first, Value::Array(_))
        {
            all = items(all.swap_remove(0));
        }
        for e in items(all.into_iter().nth(1).unwrap_or(Value::Nil)) {
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
            if seq <= self.after {
                continue;
            }
            if seq != self.after + 1 {
                return Err(StoreError::FeedExpired {
                    thread_id: self.thread_id.clone(),
                    after: self.after,
                    oldest: seq,
                });
            }
            self.after = seq;
            self.buf.push_back(ThreadRun::new(seq, run_id));
        }
        Ok(())
    }

    async fn fetch(&mut self) -> Result<(), StoreError> {
        if self.conn.is_none() {
            self.conn = Some(self.store.dedicated().await?);
        }
        let poll = self.store.poll();
        let Some(conn) = self.conn.as_mut() else {
            return Ok(());
        };
        self.store.inner.commands.fetch_add(1, Ordering::Relaxed);
        let v: Value = redis::cmd("XREAD")
            .arg("COUNT")
            .arg(READ_COUNT)
            .arg("BLOCK")
            .arg(ms(poll))
            .arg("STREAMS")
            .arg(&self.keys.feed)
            .arg(format!("0-{}", self.after))
            .query_async(conn)
            .await
            .map_err(backend)?;
        self.take(v)
    }

    async fn next(mut self) -> Option<(Result<ThreadRun, StoreError>, FeedTail)> {
        loop {
            if let Some(r) = self.buf.pop_front() {
                return Some((Ok(r), self));
            }
            if self.done {
                return None;
            }
            match self.fetch().await {
                Ok(()) => self.outage = None,
                Err(StoreError::Backend(e)) => {
                    // Rides out a store outage of up to the lease, as a run's subscriber does.
                    self.conn = None;
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
