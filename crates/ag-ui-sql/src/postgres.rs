//! Threads in PostgreSQL: for services, many instances sharing one database.

use std::str::FromStr;
use std::time::SystemTime;

use ag_ui_core::ThreadState;
use ag_ui_server::threads::{
    Archived, CODE_RUN_LOST, Owner, RunEnding, RunStart, StoredThread, ThreadFuture, ThreadPage,
    ThreadPatch, ThreadQuery, ThreadStore, ThreadStoreError, ThreadSummary, decode_fold,
    encode_fold, owner_key,
};
use chrono::{DateTime, Utc};
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow};
use sqlx::{Postgres, QueryBuilder, Row};

use crate::common::{
    ENDED, Failure, RUNNING, RunRow, SummaryRow, cursor_of, micros, parse_cursor, retry, to_json,
};
use crate::config::SqlConfig;
use crate::error::{SqlError, redact};

/// The PostgreSQL migrations, embedded: `migrations/postgres` of this crate.
pub static POSTGRES_MIGRATOR: Migrator = sqlx::migrate!("./migrations/postgres");

/// A [`ThreadStore`] in PostgreSQL: tables `ag_ui_threads` and `ag_ui_runs` (and sqlx's
/// `_sqlx_migrations`) in the connection's schema. Cloning shares the pool.
///
/// Every statement binds its values as parameters; each write is one statement or one
/// transaction, tried again after a serialization failure or deadlock
/// ([`SqlConfig::retries`]).
#[derive(Debug, Clone)]
pub struct PostgresThreads {
    pool: PgPool,
    config: SqlConfig,
    url: String,
}

fn at(t: SystemTime) -> DateTime<Utc> {
    DateTime::<Utc>::from(t)
}

fn us(t: DateTime<Utc>) -> i64 {
    micros(SystemTime::from(t))
}

impl PostgresThreads {
    /// Connects with the default [`SqlConfig`] (and applies the pending migrations).
    ///
    /// # Errors
    /// See [`connect_with`](Self::connect_with).
    pub async fn connect(url: &str) -> Result<Self, SqlError> {
        Self::connect_with(url, SqlConfig::default()).await
    }

    /// Connects to `url` (`postgres://` or `postgresql://`, with libpq's parameters such as
    /// `sslmode=require`, which needs the `postgres-tls` feature), opens one connection to check that the database answers, and
    /// applies the pending migrations unless `config.migrate` is off.
    ///
    /// # Errors
    /// [`SqlError::InvalidUrl`], [`SqlError::Database`] when the server does not answer or
    /// refuses, [`SqlError::Migrate`]. No error shows the URL's password.
    pub async fn connect_with(url: &str, config: SqlConfig) -> Result<Self, SqlError> {
        let shown = redact(url);
        let mut options = PgConnectOptions::from_str(url).map_err(|e| SqlError::InvalidUrl {
            url: shown.clone(),
            reason: e.to_string(),
        })?;
        if let Some(timeout) = config.statement_timeout {
            options = options.options([("statement_timeout", timeout.as_millis().to_string())]);
        }
        let pool = PgPoolOptions::new()
            .max_connections(config.pool_size)
            .acquire_timeout(config.acquire_timeout)
            .connect_with(options)
            .await
            .map_err(|source| SqlError::Database {
                url: shown.clone(),
                source,
            })?;
        let store = PostgresThreads {
            pool,
            config,
            url: shown,
        };
        if store.config.migrate {
            store.migrate().await?;
        }
        Ok(store)
    }

    /// Applies the pending migrations. Safe when several instances start at once: the
    /// migrator holds a PostgreSQL advisory lock (keyed by the database's name) while it
    /// reads and applies them, so one instance migrates and the others wait, then find
    /// nothing to do.
    ///
    /// # Errors
    /// [`SqlError::Migrate`].
    pub async fn migrate(&self) -> Result<(), SqlError> {
        POSTGRES_MIGRATOR
            .run(&self.pool)
            .await
            .map_err(|source| SqlError::Migrate {
                url: self.url.clone(),
                source,
            })
    }

    /// The connection pool (for a health check, or queries of your own).
    #[must_use]
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    async fn begin_once(&self, owner: &str, run: &RunStart, fold: &str) -> Result<(), Failure> {
        let mut tx = self.pool.begin().await?;
        let started = at(run.started_at);
        let seq: i64 = sqlx::query_scalar(
            "INSERT INTO ag_ui_threads (owner, thread_id, created_at, updated_at, run_count, fold)
             VALUES ($1, $2, $3, $3, 1, $4)
             ON CONFLICT (owner, thread_id) DO UPDATE SET
                 run_count = ag_ui_threads.run_count + 1,
                 updated_at = EXCLUDED.updated_at,
                 fold = EXCLUDED.fold
             RETURNING run_count",
        )
        .bind(owner)
        .bind(&run.thread_id)
        .bind(started)
        .bind(fold)
        .fetch_one(&mut *tx)
        .await?;
        let inserted = sqlx::query(
            "INSERT INTO ag_ui_runs
                 (owner, thread_id, run_id, seq, status, started_at, checkpoint_at, input_messages,
                  trace_id)
             VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8)
             ON CONFLICT (owner, thread_id, run_id) DO NOTHING",
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
        .await?
        .rows_affected();
        if inserted == 0 {
            tx.rollback().await?;
            return Err(ThreadStoreError::RunExists(run.run_id.clone()).into());
        }
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
        // One statement: the run's checkpoint time and the thread's fold, written only
        // while the run is running and no later run of the thread has started (its `seq`
        // is still the thread's run count); `known` tells an ended run from an unknown one.
        let row = sqlx::query(
            "WITH r AS (
                 UPDATE ag_ui_runs SET checkpoint_at = $4
                 WHERE owner = $1 AND thread_id = $2 AND run_id = $3 AND status = $6
                 RETURNING seq
             ), t AS (
                 UPDATE ag_ui_threads SET fold = $5, updated_at = $4
                 WHERE owner = $1 AND thread_id = $2 AND run_count = (SELECT seq FROM r)
             )
             SELECT EXISTS (SELECT 1 FROM ag_ui_runs
                            WHERE owner = $1 AND thread_id = $2 AND run_id = $3) AS known",
        )
        .bind(owner)
        .bind(thread_id)
        .bind(run_id)
        .bind(at(SystemTime::now()))
        .bind(fold)
        .bind(RUNNING)
        .fetch_one(&self.pool)
        .await?;
        let known: bool = row.try_get("known")?;
        if known {
            Ok(())
        } else {
            Err(ThreadStoreError::NotFound(thread_id.to_owned()).into())
        }
    }

    async fn end_once(&self, owner: &str, end: &RunEnding, fold: &str) -> Result<(), Failure> {
        // One statement, so one transaction (PostgreSQL runs every data-modifying part of
        // a WITH to completion): the run's record, then the thread's fold unless a later run started (its `seq` is no longer the thread's run count; a
        // begin_run holding the thread's row makes this wait and see its count).
        let ended: i64 = sqlx::query_scalar(
            "WITH r AS (
                 UPDATE ag_ui_runs SET status = $4, outcome = $5, ended_at = $6, usage = $7,
                                       error_code = $8
                 WHERE owner = $1 AND thread_id = $2 AND run_id = $3
                 RETURNING seq, rolled_back
             ), t AS (
                 UPDATE ag_ui_threads SET
                     fold = CASE WHEN run_count = (SELECT seq FROM r)
                                      AND NOT (SELECT rolled_back FROM r)
                                 THEN $9 ELSE fold END,
                     updated_at = GREATEST(updated_at, $6)
                 WHERE owner = $1 AND thread_id = $2 AND EXISTS (SELECT 1 FROM r)
             )
             SELECT count(*) FROM r",
        )
        .bind(owner)
        .bind(&end.thread_id)
        .bind(&end.run_id)
        .bind(ENDED)
        .bind(end.outcome.as_str())
        .bind(at(end.ended_at))
        .bind(to_json(&end.usage)?)
        .bind(end.error_code.as_deref())
        .bind(fold)
        .fetch_one(&self.pool)
        .await?;
        if ended == 0 {
            return Err(ThreadStoreError::NotFound(end.thread_id.clone()).into());
        }
        Ok(())
    }

    async fn thread_once(
        &self,
        owner: &str,
        thread_id: &str,
    ) -> Result<Option<StoredThread>, Failure> {
        // One snapshot for the thread and its runs.
        let mut tx = self.pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        let row = sqlx::query(&format!(
            "SELECT {SUMMARY_COLUMNS}, t.fold FROM ag_ui_threads t {LAST_RUN_JOIN}
             WHERE t.owner = $1 AND t.thread_id = $2"
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
             FROM ag_ui_runs WHERE owner = $1 AND thread_id = $2 ORDER BY seq",
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
        let mut b: QueryBuilder<'_, Postgres> =
            QueryBuilder::new(format!("SELECT {SUMMARY_COLUMNS} FROM ("));
        // One index range per archived flag (the list index leads with it), merged.
        for (i, flag) in flags.iter().enumerate() {
            if i > 0 {
                b.push(" UNION ALL ");
            }
            b.push("(SELECT owner, thread_id, title, metadata, created_at, updated_at, archived, run_count FROM ag_ui_threads WHERE owner = ");
            b.push_bind(owner.to_owned());
            b.push(" AND archived = ");
            b.push_bind(*flag);
            if let Some((t, id)) = after {
                b.push(" AND (updated_at, thread_id) < (");
                b.push_bind(at(crate::common::from_micros(t)));
                b.push(", ");
                b.push_bind(id.to_owned());
                b.push(")");
            }
            for (k, v) in &query.metadata {
                b.push(" AND metadata -> ");
                b.push_bind(k.clone());
                b.push(" = to_jsonb(");
                b.push_bind(v.clone());
                b.push("::text)");
            }
            b.push(" ORDER BY updated_at DESC, thread_id DESC LIMIT ");
            b.push_bind(fetch);
            b.push(")");
        }
        b.push(") t ");
        b.push(LAST_RUN_JOIN);
        b.push(" ORDER BY t.updated_at DESC, t.thread_id DESC LIMIT ");
        b.push_bind(fetch);
        let rows = b.build().fetch_all(&self.pool).await?;
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
        let row = sqlx::query(&format!(
            "WITH t AS (
                 UPDATE ag_ui_threads SET
                     title = CASE WHEN $3 THEN $4 ELSE title END,
                     metadata = COALESCE($5::jsonb, metadata),
                     archived = COALESCE($6, archived),
                     updated_at = GREATEST(updated_at, $7)
                 WHERE owner = $1 AND thread_id = $2
                 RETURNING owner, thread_id, title, metadata, created_at, updated_at, archived,
                           run_count
             )
             SELECT {SUMMARY_COLUMNS} FROM t {LAST_RUN_JOIN}"
        ))
        .bind(owner)
        .bind(thread_id)
        .bind(patch.title.is_some())
        .bind(patch.title.clone().flatten())
        .bind(metadata)
        .bind(patch.archived)
        .bind(at(SystemTime::now()))
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| summary_row(&r)?.into_summary().map_err(Failure::Store))
            .transpose()
    }

    async fn delete_once(&self, owner: &str, thread_id: &str) -> Result<bool, Failure> {
        let row = sqlx::query(
            "WITH d AS (
                 DELETE FROM ag_ui_threads
                 WHERE owner = $1 AND thread_id = $2
                   AND NOT EXISTS (SELECT 1 FROM ag_ui_runs
                                   WHERE owner = $1 AND thread_id = $2 AND status = $3)
                 RETURNING 1
             )
             SELECT (SELECT count(*) FROM d) AS deleted,
                    EXISTS (SELECT 1 FROM ag_ui_threads
                            WHERE owner = $1 AND thread_id = $2) AS known",
        )
        .bind(owner)
        .bind(thread_id)
        .bind(RUNNING)
        .fetch_one(&self.pool)
        .await?;
        let deleted: i64 = row.try_get("deleted")?;
        let known: bool = row.try_get("known")?;
        match (deleted, known) {
            (0, true) => Err(ThreadStoreError::Busy(thread_id.to_owned()).into()),
            (0, false) => Ok(false),
            _ => Ok(true),
        }
    }

    async fn rollback_once(
        &self,
        owner: &str,
        thread_id: &str,
        run_id: &str,
        fold: &str,
    ) -> Result<bool, Failure> {
        // One statement, so one transaction: the run's record (a running run ends now,
        // cancelled; an ended one keeps how it ended: the expressions read the row as it
        // was), then the thread's fold unless a later run started.
        let n: i64 = sqlx::query_scalar(
            "WITH r AS (
                 UPDATE ag_ui_runs SET
                     outcome = CASE WHEN status = $4 THEN $5 ELSE outcome END,
                     ended_at = CASE WHEN status = $4 THEN $6 ELSE ended_at END,
                     status = $7,
                     rolled_back = TRUE
                 WHERE owner = $1 AND thread_id = $2 AND run_id = $3
                 RETURNING seq
             ), t AS (
                 UPDATE ag_ui_threads SET
                     fold = CASE WHEN run_count = (SELECT seq FROM r) THEN $8 ELSE fold END,
                     updated_at = GREATEST(updated_at, $6)
                 WHERE owner = $1 AND thread_id = $2 AND EXISTS (SELECT 1 FROM r)
             )
             SELECT count(*) FROM r",
        )
        .bind(owner)
        .bind(thread_id)
        .bind(run_id)
        .bind(RUNNING)
        .bind(ag_ui_server::threads::RunEndKind::Cancelled.as_str())
        .bind(at(SystemTime::now()))
        .bind(ENDED)
        .bind(fold)
        .fetch_one(&self.pool)
        .await?;
        Ok(n > 0)
    }

    async fn lose_once(&self, owner: &str, thread_id: &str, run_id: &str) -> Result<bool, Failure> {
        let n = sqlx::query(
            "UPDATE ag_ui_runs SET status = $4, outcome = $5, error_code = $6,
                                   ended_at = checkpoint_at
             WHERE owner = $1 AND thread_id = $2 AND run_id = $3 AND status = $7",
        )
        .bind(owner)
        .bind(thread_id)
        .bind(run_id)
        .bind(ENDED)
        .bind(ag_ui_server::threads::RunEndKind::Error.as_str())
        .bind(CODE_RUN_LOST)
        .bind(RUNNING)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n > 0)
    }

    async fn lose_stale_once(&self, before: SystemTime) -> Result<u64, Failure> {
        let n = sqlx::query(
            "UPDATE ag_ui_runs SET status = $2, outcome = $3, error_code = $4,
                                   ended_at = checkpoint_at
             WHERE status = $5 AND checkpoint_at < $1",
        )
        .bind(at(before))
        .bind(ENDED)
        .bind(ag_ui_server::threads::RunEndKind::Error.as_str())
        .bind(CODE_RUN_LOST)
        .bind(RUNNING)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n)
    }

    async fn expire_once(&self, before: SystemTime) -> Result<u64, Failure> {
        let n = sqlx::query("DELETE FROM ag_ui_threads WHERE archived AND updated_at < $1")
            .bind(at(before))
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n)
    }
}

/// The summary's columns, of `t` (a thread row) and `lr` (its latest run).
const SUMMARY_COLUMNS: &str = "t.thread_id, t.title, t.metadata::text AS metadata, t.created_at,
    t.updated_at, t.archived, t.run_count, lr.run_id AS last_run_id,
    lr.status AS last_status, lr.outcome AS last_outcome";

/// `t`'s latest run, by its `seq`.
const LAST_RUN_JOIN: &str = "LEFT JOIN ag_ui_runs lr ON lr.owner = t.owner
    AND lr.thread_id = t.thread_id AND lr.seq = t.run_count";

fn summary_row(r: &PgRow) -> Result<SummaryRow, sqlx::Error> {
    Ok(SummaryRow {
        thread_id: r.try_get("thread_id")?,
        title: r.try_get("title")?,
        metadata: r.try_get("metadata")?,
        created_at: us(r.try_get("created_at")?),
        updated_at: us(r.try_get("updated_at")?),
        archived: r.try_get("archived")?,
        run_count: r.try_get("run_count")?,
        last_run_id: r.try_get("last_run_id")?,
        last_status: r.try_get("last_status")?,
        last_outcome: r.try_get("last_outcome")?,
    })
}

fn run_row(r: &PgRow) -> Result<RunRow, sqlx::Error> {
    Ok(RunRow {
        run_id: r.try_get("run_id")?,
        status: r.try_get("status")?,
        outcome: r.try_get("outcome")?,
        started_at: us(r.try_get("started_at")?),
        ended_at: r.try_get::<Option<DateTime<Utc>>, _>("ended_at")?.map(us),
        usage: r.try_get("usage")?,
        error_code: r.try_get("error_code")?,
        input_messages: r.try_get("input_messages")?,
        rolled_back: r.try_get("rolled_back")?,
        trace_id: r.try_get("trace_id")?,
    })
}

impl ThreadStore for PostgresThreads {
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
