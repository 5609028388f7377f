//! Threads in SQLite: one machine, one file, no server.

use std::str::FromStr;
use std::time::SystemTime;

use ag_ui_core::ThreadState;
use ag_ui_server::threads::{
    Archived, CODE_RUN_LOST, Owner, RunEndKind, RunEnding, RunStart, StoredThread, ThreadFuture,
    ThreadPage, ThreadPatch, ThreadQuery, ThreadStore, ThreadStoreError, ThreadSummary,
    decode_fold, encode_fold, owner_key,
};
use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{QueryBuilder, Row, Sqlite, SqliteConnection};

use crate::common::{
    ENDED, Failure, RUNNING, RunRow, SummaryRow, backoff, cursor_of, micros, parse_cursor, retry,
    to_json, transient,
};
use crate::config::SqlConfig;
use crate::error::{SqlError, redact};

/// The SQLite migrations, embedded: `migrations/sqlite` of this crate.
pub static SQLITE_MIGRATOR: Migrator = sqlx::migrate!("./migrations/sqlite");

/// How many times [`SqliteThreads::migrate`] tries again when another process migrated
/// the same file meanwhile.
const MIGRATE_TRIES: u32 = 20;

/// A [`ThreadStore`] in a SQLite file: tables `ag_ui_threads` and `ag_ui_runs` (and
/// sqlx's `_sqlx_migrations`). Cloning shares the pools.
///
/// The file is opened in WAL mode (readers never wait for the writer) with
/// `synchronous = NORMAL` (a committed write survives a crash of the process; a power
/// loss may take the last transactions back, never corrupt the file) and foreign keys
/// on. Writes go through one connection of their own, each a `BEGIN IMMEDIATE`
/// transaction, so the writers of one process queue for it instead of failing as busy;
/// another process's writer is waited for up to [`SqlConfig::busy_timeout`], then the
/// operation is tried again ([`SqlConfig::retries`]).
#[derive(Debug, Clone)]
pub struct SqliteThreads {
    reader: SqlitePool,
    writer: SqlitePool,
    config: SqlConfig,
    url: String,
}

impl SqliteThreads {
    /// Opens with the default [`SqlConfig`] (and applies the pending migrations).
    ///
    /// # Errors
    /// See [`connect_with`](Self::connect_with).
    pub async fn connect(url: &str) -> Result<Self, SqlError> {
        Self::connect_with(url, SqlConfig::default()).await
    }

    /// Opens `url`, `sqlite://PATH` (a path relative to the working directory, or
    /// absolute: `sqlite:///var/lib/app/threads.db`), creating the file when it is
    /// missing, and applies the pending migrations unless `config.migrate` is off.
    ///
    /// # Errors
    /// [`SqlError::InvalidUrl`], [`SqlError::Database`] when the file cannot be opened
    /// or created, [`SqlError::Migrate`].
    pub async fn connect_with(url: &str, config: SqlConfig) -> Result<Self, SqlError> {
        let shown = redact(url);
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|e| SqlError::InvalidUrl {
                url: shown.clone(),
                reason: e.to_string(),
            })?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(config.busy_timeout)
            .foreign_keys(true);
        let database = |source| SqlError::Database {
            url: shown.clone(),
            source,
        };
        // The writer first: it creates the file and turns WAL on (which needs a write).
        // Switching a new file to WAL takes an exclusive lock for which SQLite may answer
        // busy at once, without waiting: several processes opening one new file retry.
        let open = |max: u32| {
            let options = options.clone();
            let acquire = config.acquire_timeout;
            let base = config.retry_backoff;
            async move {
                let mut attempt = 0;
                loop {
                    let pool = SqlitePoolOptions::new()
                        .max_connections(max)
                        .acquire_timeout(acquire)
                        .connect_with(options.clone())
                        .await;
                    match pool {
                        Err(e) if attempt + 1 < MIGRATE_TRIES && transient(&e) => {
                            tokio::time::sleep(backoff(base, attempt.min(6))).await;
                            attempt += 1;
                        }
                        r => return r,
                    }
                }
            }
        };
        let writer = open(1).await.map_err(database)?;
        let reader = open(config.pool_size).await.map_err(database)?;
        let store = SqliteThreads {
            reader,
            writer,
            config,
            url: shown,
        };
        if store.config.migrate {
            store.migrate().await?;
        }
        Ok(store)
    }

    /// Applies the pending migrations. Safe when several processes open the same file at
    /// once: each migration is one transaction, and a process that finds another one
    /// migrating (the database busy, or a migration it was about to apply applied
    /// meanwhile) reads the applied list again and goes on from there, a bounded number
    /// of times.
    ///
    /// # Errors
    /// [`SqlError::Migrate`].
    pub async fn migrate(&self) -> Result<(), SqlError> {
        let mut attempt = 0;
        loop {
            match SQLITE_MIGRATOR.run(&self.writer).await {
                Ok(()) => return Ok(()),
                Err(e) if attempt + 1 < MIGRATE_TRIES && migration_race(&e) => {
                    tracing::debug!(attempt, error = %e, "SQLite migration raced another process");
                    tokio::time::sleep(backoff(self.config.retry_backoff, attempt.min(6))).await;
                    attempt += 1;
                }
                Err(source) => {
                    return Err(SqlError::Migrate {
                        url: self.url.clone(),
                        source,
                    });
                }
            }
        }
    }

    /// The pool that reads (for a health check, or queries of your own).
    #[must_use]
    pub fn pool(&self) -> &SqlitePool {
        &self.reader
    }

    async fn write(&self) -> Result<sqlx::Transaction<'static, Sqlite>, sqlx::Error> {
        self.writer.begin_with("BEGIN IMMEDIATE").await
    }

    async fn begin_once(&self, owner: &str, run: &RunStart, fold: &str) -> Result<(), Failure> {
        let mut tx = self.write().await?;
        let started = micros(run.started_at);
        let known: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM ag_ui_runs WHERE owner = ? AND thread_id = ? AND run_id = ?",
        )
        .bind(owner)
        .bind(&run.thread_id)
        .bind(&run.run_id)
        .fetch_optional(&mut *tx)
        .await?;
        if known.is_some() {
            tx.rollback().await?;
            return Err(ThreadStoreError::RunExists(run.run_id.clone()).into());
        }
        let seq: i64 = sqlx::query_scalar(
            "INSERT INTO ag_ui_threads (owner, thread_id, created_at, updated_at, run_count, fold)
             VALUES (?1, ?2, ?3, ?3, 1, ?4)
             ON CONFLICT (owner, thread_id) DO UPDATE SET
                 run_count = run_count + 1,
                 updated_at = excluded.updated_at,
                 fold = excluded.fold
             RETURNING run_count",
        )
        .bind(owner)
        .bind(&run.thread_id)
        .bind(started)
        .bind(fold)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO ag_ui_runs
                 (owner, thread_id, run_id, seq, status, started_at, checkpoint_at, input_messages,
                  trace_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, ?8)",
        )
        .bind(owner)
        .bind(&run.thread_id)
        .bind(&run.run_id)
        .bind(seq)
        .bind(RUNNING)
        .bind(started)
        .bind(to_json(&run.input_messages)?)
        .bind(run.trace_id.as_deref())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn checkpoint_once(
        &self,
        owner: &str,
        thread_id: &str,
        run_id: &str,
        fold: &str,
    ) -> Result<(), Failure> {
        let now = micros(SystemTime::now());
        let mut tx = self.write().await?;
        let status: Option<String> = sqlx::query_scalar(
            "SELECT status FROM ag_ui_runs WHERE owner = ? AND thread_id = ? AND run_id = ?",
        )
        .bind(owner)
        .bind(thread_id)
        .bind(run_id)
        .fetch_optional(&mut *tx)
        .await?;
        match status.as_deref() {
            None => {
                tx.rollback().await?;
                return Err(ThreadStoreError::NotFound(thread_id.to_owned()).into());
            }
            Some(RUNNING) => {}
            Some(_) => {
                tx.rollback().await?;
                return Ok(());
            }
        }
        sqlx::query(
            "UPDATE ag_ui_runs SET checkpoint_at = ? WHERE owner = ? AND thread_id = ? AND run_id = ?",
        )
        .bind(now)
        .bind(owner)
        .bind(thread_id)
        .bind(run_id)
        .execute(&mut *tx)
        .await?;
        // The fold only while no later run of the thread has started (the run's `seq`
        // is still the thread's run count).
        sqlx::query(
            "UPDATE ag_ui_threads SET fold = ?, updated_at = ? WHERE owner = ? AND thread_id = ?
                 AND run_count = (SELECT seq FROM ag_ui_runs
                                  WHERE owner = ? AND thread_id = ? AND run_id = ?)",
        )
        .bind(fold)
        .bind(now)
        .bind(owner)
        .bind(thread_id)
        .bind(owner)
        .bind(thread_id)
        .bind(run_id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn end_once(&self, owner: &str, end: &RunEnding, fold: &str) -> Result<(), Failure> {
        let ended = micros(end.ended_at);
        let mut tx = self.write().await?;
        let row: Option<(i64, bool)> = sqlx::query_as(
            "UPDATE ag_ui_runs SET status = ?, outcome = ?, ended_at = ?, usage = ?, error_code = ?
             WHERE owner = ? AND thread_id = ? AND run_id = ?
             RETURNING seq, rolled_back",
        )
        .bind(ENDED)
        .bind(end.outcome.as_str())
        .bind(ended)
        .bind(to_json(&end.usage)?)
        .bind(end.error_code.as_deref())
        .bind(owner)
        .bind(&end.thread_id)
        .bind(&end.run_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((seq, rolled_back)) = row else {
            tx.rollback().await?;
            return Err(ThreadStoreError::NotFound(end.thread_id.clone()).into());
        };
        // The fold unless a later run started (the thread's run count passed this seq)
        // or the run was rolled back (its rollback wrote the fold before it).
        let seq = if rolled_back { -1 } else { seq };
        sqlx::query(
            "UPDATE ag_ui_threads SET
                 fold = CASE WHEN run_count = ?1 THEN ?2 ELSE fold END,
                 updated_at = max(updated_at, ?3)
             WHERE owner = ?4 AND thread_id = ?5",
        )
        .bind(seq)
        .bind(fold)
        .bind(ended)
        .bind(owner)
        .bind(&end.thread_id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn thread_once(
        &self,
        owner: &str,
        thread_id: &str,
    ) -> Result<Option<StoredThread>, Failure> {
        // One read transaction: one snapshot for the thread and its runs.
        let mut tx = self.reader.begin().await?;
        let row = sqlx::query(&format!(
            "SELECT {SUMMARY_COLUMNS}, t.fold FROM ag_ui_threads t {LAST_RUN_JOIN}
             WHERE t.owner = ? AND t.thread_id = ?"
        ))
        .bind(owner)
        .bind(thread_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            tx.commit().await?;
            return Ok(None);
        };
        let runs = sqlx::query(
            "SELECT run_id, status, outcome, started_at, ended_at, usage, error_code,
                    input_messages, rolled_back, trace_id
             FROM ag_ui_runs WHERE owner = ? AND thread_id = ? ORDER BY seq",
        )
        .bind(owner)
        .bind(thread_id)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        let fold: String = row.try_get("fold")?;
        let summary = summary_row(&row)?.into_summary()?;
        let thread: ThreadState = decode_fold(&fold)?;
        let runs = runs
            .iter()
            .map(|r| Ok(run_row(r)?.into_record(thread_id)?))
            .collect::<Result<Vec<_>, Failure>>()?;
        Ok(Some(StoredThread::new(summary, thread, runs)))
    }

    async fn list_once(&self, owner: &str, query: &ThreadQuery) -> Result<ThreadPage, Failure> {
        let after = query.cursor.as_deref().map(parse_cursor).transpose()?;
        let limit = query.limit.clamp(1, ag_ui_server::threads::MAX_LIST_LIMIT);
        let fetch = i64::try_from(limit + 1).unwrap_or(i64::MAX);
        let flags: &[bool] = match query.archived {
            Archived::Only => &[true],
            Archived::Any => &[false, true],
            _ => &[false],
        };
        let mut b: QueryBuilder<'_, Sqlite> =
            QueryBuilder::new(format!("SELECT {SUMMARY_COLUMNS} FROM ("));
        // One index range per archived flag (the list index leads with it), merged.
        for (i, flag) in flags.iter().enumerate() {
            if i > 0 {
                b.push(" UNION ALL ");
            }
            b.push("SELECT * FROM (SELECT owner, thread_id, title, metadata, created_at, updated_at, archived, run_count FROM ag_ui_threads WHERE owner = ");
            b.push_bind(owner.to_owned());
            b.push(" AND archived = ");
            b.push_bind(*flag);
            if let Some((t, id)) = after {
                b.push(" AND (updated_at, thread_id) < (");
                b.push_bind(t);
                b.push(", ");
                b.push_bind(id.to_owned());
                b.push(")");
            }
            // A key is a plain label (no JSON path): json_each yields each top-level key
            // as it is, whatever dots or quotes it holds.
            for (k, v) in &query.metadata {
                b.push(" AND EXISTS (SELECT 1 FROM json_each(metadata) WHERE key = ");
                b.push_bind(k.clone());
                b.push(" AND type = 'text' AND value = ");
                b.push_bind(v.clone());
                b.push(")");
            }
            b.push(" ORDER BY updated_at DESC, thread_id DESC LIMIT ");
            b.push_bind(fetch);
            b.push(")");
        }
        b.push(") t ");
        b.push(LAST_RUN_JOIN);
        b.push(" ORDER BY t.updated_at DESC, t.thread_id DESC LIMIT ");
        b.push_bind(fetch);
        let rows = b.build().fetch_all(&self.reader).await?;
        let mut threads = rows
            .iter()
            .map(|r| Ok(summary_row(r)?.into_summary()?))
            .collect::<Result<Vec<ThreadSummary>, Failure>>()?;
        let more = threads.len() > limit;
        threads.truncate(limit);
        let next_cursor = if more {
            threads
                .last()
                .map(|s| cursor_of(micros(s.updated_at), &s.thread_id))
        } else {
            None
        };
        Ok(ThreadPage::new(threads, next_cursor))
    }

    async fn update_once(
        &self,
        owner: &str,
        thread_id: &str,
        patch: &ThreadPatch,
    ) -> Result<Option<ThreadSummary>, Failure> {
        let metadata = patch.metadata.as_ref().map(to_json).transpose()?;
        let mut tx = self.write().await?;
        let n = sqlx::query(
            "UPDATE ag_ui_threads SET
                 title = CASE WHEN ?1 THEN ?2 ELSE title END,
                 metadata = coalesce(?3, metadata),
                 archived = coalesce(?4, archived),
                 updated_at = max(updated_at, ?5)
             WHERE owner = ?6 AND thread_id = ?7",
        )
        .bind(patch.title.is_some())
        .bind(patch.title.clone().flatten())
        .bind(metadata)
        .bind(patch.archived)
        .bind(micros(SystemTime::now()))
        .bind(owner)
        .bind(thread_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if n == 0 {
            tx.rollback().await?;
            return Ok(None);
        }
        let row = summary_in(&mut tx, owner, thread_id).await?;
        tx.commit().await?;
        row.map(|r| r.into_summary().map_err(Failure::Store))
            .transpose()
    }

    async fn delete_once(&self, owner: &str, thread_id: &str) -> Result<bool, Failure> {
        let mut tx = self.write().await?;
        let running: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM ag_ui_runs WHERE owner = ? AND thread_id = ? AND status = ? LIMIT 1",
        )
        .bind(owner)
        .bind(thread_id)
        .bind(RUNNING)
        .fetch_optional(&mut *tx)
        .await?;
        if running.is_some() {
            tx.rollback().await?;
            return Err(ThreadStoreError::Busy(thread_id.to_owned()).into());
        }
        let n = sqlx::query("DELETE FROM ag_ui_threads WHERE owner = ? AND thread_id = ?")
            .bind(owner)
            .bind(thread_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(n > 0)
    }

    async fn rollback_once(
        &self,
        owner: &str,
        thread_id: &str,
        run_id: &str,
        fold: &str,
    ) -> Result<bool, Failure> {
        let now = micros(SystemTime::now());
        let mut tx = self.write().await?;
        // A running run ends now, cancelled; an ended one keeps how it ended (the
        // expressions read the row as it was).
        let seq: Option<i64> = sqlx::query_scalar(
            "UPDATE ag_ui_runs SET
                 outcome = CASE WHEN status = ?1 THEN ?2 ELSE outcome END,
                 ended_at = CASE WHEN status = ?1 THEN ?3 ELSE ended_at END,
                 status = ?4,
                 rolled_back = 1
             WHERE owner = ?5 AND thread_id = ?6 AND run_id = ?7
             RETURNING seq",
        )
        .bind(RUNNING)
        .bind(RunEndKind::Cancelled.as_str())
        .bind(now)
        .bind(ENDED)
        .bind(owner)
        .bind(thread_id)
        .bind(run_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(seq) = seq else {
            tx.rollback().await?;
            return Ok(false);
        };
        // The fold unless a later run started (the thread's run count passed this seq).
        sqlx::query(
            "UPDATE ag_ui_threads SET
                 fold = CASE WHEN run_count = ?1 THEN ?2 ELSE fold END,
                 updated_at = max(updated_at, ?3)
             WHERE owner = ?4 AND thread_id = ?5",
        )
        .bind(seq)
        .bind(fold)
        .bind(now)
        .bind(owner)
        .bind(thread_id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn lose_once(&self, owner: &str, thread_id: &str, run_id: &str) -> Result<bool, Failure> {
        let mut tx = self.write().await?;
        let n = sqlx::query(
            "UPDATE ag_ui_runs SET status = ?, outcome = ?, error_code = ?, ended_at = checkpoint_at
             WHERE owner = ? AND thread_id = ? AND run_id = ? AND status = ?",
        )
        .bind(ENDED)
        .bind(RunEndKind::Error.as_str())
        .bind(CODE_RUN_LOST)
        .bind(owner)
        .bind(thread_id)
        .bind(run_id)
        .bind(RUNNING)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok(n > 0)
    }

    async fn lose_stale_once(&self, before: SystemTime) -> Result<u64, Failure> {
        let mut tx = self.write().await?;
        let n = sqlx::query(
            "UPDATE ag_ui_runs SET status = ?, outcome = ?, error_code = ?, ended_at = checkpoint_at
             WHERE status = ? AND checkpoint_at < ?",
        )
        .bind(ENDED)
        .bind(RunEndKind::Error.as_str())
        .bind(CODE_RUN_LOST)
        .bind(RUNNING)
        .bind(micros(before))
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok(n)
    }

    async fn expire_once(&self, before: SystemTime) -> Result<u64, Failure> {
        let mut tx = self.write().await?;
        let n = sqlx::query("DELETE FROM ag_ui_threads WHERE archived = 1 AND updated_at < ?")
            .bind(micros(before))
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(n)
    }
}

/// Whether a migration failed because another process was migrating the same file.
fn migration_race(e: &sqlx::migrate::MigrateError) -> bool {
    use sqlx::migrate::MigrateError;
    match e {
        MigrateError::Execute(e) | MigrateError::ExecuteMigration(e, _) => {
            transient(e) || already_applied(e)
        }
        _ => false,
    }
}

/// A table or index that exists already, or a migration's record that does: what a
/// process meets when another applied the migration after it read the applied list.
fn already_applied(e: &sqlx::Error) -> bool {
    let sqlx::Error::Database(db) = e else {
        return false;
    };
    let message = db.message();
    message.contains("already exists")
        || message.contains("duplicate column name")
        || (message.contains("UNIQUE constraint failed") && message.contains("_sqlx_migrations"))
}

/// The summary's columns, of `t` (a thread row) and `lr` (its latest run).
const SUMMARY_COLUMNS: &str = "t.thread_id, t.title, t.metadata, t.created_at, t.updated_at,
    t.archived, t.run_count, lr.run_id AS last_run_id, lr.status AS last_status,
    lr.outcome AS last_outcome";

/// `t`'s latest run, by its `seq`.
const LAST_RUN_JOIN: &str = "LEFT JOIN ag_ui_runs lr ON lr.owner = t.owner
    AND lr.thread_id = t.thread_id AND lr.seq = t.run_count";

async fn summary_in(
    conn: &mut SqliteConnection,
    owner: &str,
    thread_id: &str,
) -> Result<Option<SummaryRow>, sqlx::Error> {
    let row = sqlx::query(&format!(
        "SELECT {SUMMARY_COLUMNS} FROM ag_ui_threads t {LAST_RUN_JOIN}
         WHERE t.owner = ? AND t.thread_id = ?"
    ))
    .bind(owner)
    .bind(thread_id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(summary_row).transpose()
}

fn summary_row(r: &SqliteRow) -> Result<SummaryRow, sqlx::Error> {
    Ok(SummaryRow {
        thread_id: r.try_get("thread_id")?,
        title: r.try_get("title")?,
        metadata: r.try_get("metadata")?,
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
        archived: r.try_get("archived")?,
        run_count: r.try_get("run_count")?,
        last_run_id: r.try_get("last_run_id")?,
        last_status: r.try_get("last_status")?,
        last_outcome: r.try_get("last_outcome")?,
    })
}

fn run_row(r: &SqliteRow) -> Result<RunRow, sqlx::Error> {
    Ok(RunRow {
        run_id: r.try_get("run_id")?,
        status: r.try_get("status")?,
        outcome: r.try_get("outcome")?,
        started_at: r.try_get("started_at")?,
        ended_at: r.try_get("ended_at")?,
        usage: r.try_get("usage")?,
        error_code: r.try_get("error_code")?,
        input_messages: r.try_get("input_messages")?,
        rolled_back: r.try_get("rolled_back")?,
        trace_id: r.try_get("trace_id")?,
    })
}

impl ThreadStore for SqliteThreads {
    fn begin_run<'a>(&'a self, owner: Owner<'a>, run: RunStart) -> ThreadFuture<'a, ()> {
        Box::pin(async move {
            let fold = encode_fold(&run.thread_id, &run.thread);
            let run = &run;
            let fold = fold.as_str();
            retry(&self.config, || {
                self.begin_once(owner_key(owner), run, fold)
            })
            .await
        })
    }

    fn checkpoint<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        thread: &'a ThreadState,
    ) -> ThreadFuture<'a, ()> {
        Box::pin(async move {
            let fold = encode_fold(thread_id, thread);
            let fold = fold.as_str();
            retry(&self.config, || {
                self.checkpoint_once(owner_key(owner), thread_id, run_id, fold)
            })
            .await
        })
    }

    fn end_run<'a>(&'a self, owner: Owner<'a>, end: RunEnding) -> ThreadFuture<'a, ()> {
        Box::pin(async move {
            let fold = encode_fold(&end.thread_id, &end.thread);
            let end = &end;
            let fold = fold.as_str();
            retry(&self.config, || self.end_once(owner_key(owner), end, fold)).await
        })
    }

    fn thread<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
    ) -> ThreadFuture<'a, Option<StoredThread>> {
        Box::pin(retry(&self.config, move || {
            self.thread_once(owner_key(owner), thread_id)
        }))
    }

    fn list<'a>(
        &'a self,
        owner: Owner<'a>,
        query: &'a ThreadQuery,
    ) -> ThreadFuture<'a, ThreadPage> {
        Box::pin(retry(&self.config, move || {
            self.list_once(owner_key(owner), query)
        }))
    }

    fn update<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        patch: ThreadPatch,
    ) -> ThreadFuture<'a, Option<ThreadSummary>> {
        Box::pin(async move {
            let patch = &patch;
            retry(&self.config, || {
                self.update_once(owner_key(owner), thread_id, patch)
            })
            .await
        })
    }

    fn delete<'a>(&'a self, owner: Owner<'a>, thread_id: &'a str) -> ThreadFuture<'a, bool> {
        Box::pin(retry(&self.config, move || {
            self.delete_once(owner_key(owner), thread_id)
        }))
    }

    fn lose_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
    ) -> ThreadFuture<'a, bool> {
        Box::pin(retry(&self.config, move || {
            self.lose_once(owner_key(owner), thread_id, run_id)
        }))
    }

    fn rollback_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        fold: &'a ThreadState,
    ) -> ThreadFuture<'a, bool> {
        Box::pin(async move {
            let fold = encode_fold(thread_id, fold);
            let fold = fold.as_str();
            retry(&self.config, || {
                self.rollback_once(owner_key(owner), thread_id, run_id, fold)
            })
            .await
        })
    }

    fn lose_stale_runs(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        Box::pin(retry(&self.config, move || self.lose_stale_once(before)))
    }

    fn expire_archived(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        Box::pin(retry(&self.config, move || self.expire_once(before)))
    }
}
