//! How a store connects: its pool, timeouts, retries and migrations.

use std::time::Duration;

/// Default [`SqlConfig::pool_size`].
pub const DEFAULT_POOL_SIZE: u32 = 10;
/// Default [`SqlConfig::statement_timeout`]: 30 s.
pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default [`SqlConfig::acquire_timeout`]: 10 s.
pub const DEFAULT_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);
/// Default [`SqlConfig::busy_timeout`]: 5 s.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Default [`SqlConfig::retries`].
pub const DEFAULT_RETRIES: u32 = 5;
/// Default [`SqlConfig::retry_backoff`]: 10 ms.
pub const DEFAULT_RETRY_BACKOFF: Duration = Duration::from_millis(10);
/// The longest pause between two tries of one operation.
pub const MAX_RETRY_BACKOFF: Duration = Duration::from_secs(1);

/// How a [`PostgresThreads`](crate::PostgresThreads) or
/// [`SqliteThreads`](crate::SqliteThreads) connects and retries.
///
/// ```
/// use std::time::Duration;
/// use ag_ui_sql::SqlConfig;
///
/// let config = SqlConfig::new()
///     .pool_size(20)
///     .statement_timeout(Some(Duration::from_secs(5)))
///     .retries(3)
///     .migrate(false);
/// assert_eq!(config.pool_size, 20);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SqlConfig {
    /// Most connections the pool opens ([`DEFAULT_POOL_SIZE`]). SQLite writes go
    /// through one more connection of their own (SQLite has one writer at a time).
    pub pool_size: u32,
    /// PostgreSQL's `statement_timeout`, set on every connection when it opens
    /// ([`DEFAULT_STATEMENT_TIMEOUT`]; `None`: the server's setting). SQLite has none: a
    /// statement there waits at most [`busy_timeout`](Self::busy_timeout) for a lock.
    pub statement_timeout: Option<Duration>,
    /// How long an operation waits for a free connection ([`DEFAULT_ACQUIRE_TIMEOUT`]).
    pub acquire_timeout: Duration,
    /// How long a SQLite statement waits for another connection's lock before it fails
    /// as busy ([`DEFAULT_BUSY_TIMEOUT`]); unused by PostgreSQL.
    pub busy_timeout: Duration,
    /// How many times an operation is tried again after a transient conflict: a
    /// serialization failure (SQLSTATE `40001`) or deadlock (`40P01`) in PostgreSQL, a
    /// busy or locked database in SQLite ([`DEFAULT_RETRIES`]). Each try runs the whole
    /// operation (its transaction) again.
    pub retries: u32,
    /// The pause before the first retry, doubled for each next one (with jitter) up to
    /// [`MAX_RETRY_BACKOFF`] ([`DEFAULT_RETRY_BACKOFF`]).
    pub retry_backoff: Duration,
    /// Whether `connect` applies the pending migrations (`true`, the default). With
    /// `false`, call the store's `migrate()` yourself (from a deploy step, say) before
    /// serving.
    pub migrate: bool,
}

impl Default for SqlConfig {
    fn default() -> Self {
        SqlConfig {
            pool_size: DEFAULT_POOL_SIZE,
            statement_timeout: Some(DEFAULT_STATEMENT_TIMEOUT),
            acquire_timeout: DEFAULT_ACQUIRE_TIMEOUT,
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
            retries: DEFAULT_RETRIES,
            retry_backoff: DEFAULT_RETRY_BACKOFF,
            migrate: true,
        }
    }
}

impl SqlConfig {
    /// The defaults.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Most connections in the pool (at least 1).
    #[must_use]
    pub fn pool_size(mut self, n: u32) -> Self {
        self.pool_size = n.max(1);
        self
    }

    /// PostgreSQL's `statement_timeout` (`None`: the server's setting).
    #[must_use]
    pub fn statement_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.statement_timeout = timeout;
        self
    }

    /// How long an operation waits for a free connection.
    #[must_use]
    pub fn acquire_timeout(mut self, timeout: Duration) -> Self {
        self.acquire_timeout = timeout;
        self
    }

    /// How long a SQLite statement waits for a lock.
    #[must_use]
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.busy_timeout = timeout;
        self
    }

    /// How many times an operation is tried again after a transient conflict.
    #[must_use]
    pub fn retries(mut self, n: u32) -> Self {
        self.retries = n;
        self
    }

    /// The pause before the first retry.
    #[must_use]
    pub fn retry_backoff(mut self, backoff: Duration) -> Self {
        self.retry_backoff = backoff;
        self
    }

    /// Whether `connect` applies the pending migrations.
    #[must_use]
    pub fn migrate(mut self, migrate: bool) -> Self {
        self.migrate = migrate;
        self
    }
}
