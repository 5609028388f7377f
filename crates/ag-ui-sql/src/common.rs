//! What both backends share: times as microseconds, list cursors, the columns' words,
//! rows into records, retries.

use std::future::Future;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ag_ui_core::{Message, TokenUsage};
use ag_ui_server::runs::RunPhase;
use ag_ui_server::threads::{RunEndKind, RunRecord, RunSummary, ThreadStoreError, ThreadSummary};
use serde_json::{Map, Value};

use crate::config::{MAX_RETRY_BACKOFF, SqlConfig};

/// `status` of a running run.
pub(crate) const RUNNING: &str = "running";
/// `status` of an ended run.
pub(crate) const ENDED: &str = "ended";

/// `t` in microseconds since the Unix epoch (negative before it; saturating).
pub(crate) fn micros(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_micros()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_micros()).map_or(i64::MIN, |m| -m),
    }
}

/// The time `m` microseconds after the Unix epoch.
pub(crate) fn from_micros(m: i64) -> SystemTime {
    let d = Duration::from_micros(m.unsigned_abs());
    if m >= 0 {
        UNIX_EPOCH + d
    } else {
        UNIX_EPOCH - d
    }
}

/// The cursor after a thread updated at `updated` (microseconds) with id `id`.
pub(crate) fn cursor_of(updated: i64, id: &str) -> String {
    format!("{updated}.{id}")
}

/// What [`cursor_of`] wrote.
pub(crate) fn parse_cursor(cursor: &str) -> Result<(i64, &str), ThreadStoreError> {
    cursor
        .split_once('.')
        .and_then(|(t, id)| Some((t.parse().ok()?, id)))
        .ok_or_else(|| ThreadStoreError::InvalidCursor(cursor.to_owned()))
}

fn status(word: &str, at: &str) -> Result<RunPhase, ThreadStoreError> {
    match word {
        RUNNING => Ok(RunPhase::Running),
        ENDED => Ok(RunPhase::Ended),
        other => Err(ThreadStoreError::Corrupt(format!(
            "{at}: {other:?} is no run status"
        ))),
    }
}

fn outcome(word: Option<&str>, at: &str) -> Result<Option<RunEndKind>, ThreadStoreError> {
    word.map(|w| {
        RunEndKind::from_word(w)
            .ok_or_else(|| ThreadStoreError::Corrupt(format!("{at}: {w:?} is no run outcome")))
    })
    .transpose()
}

fn json<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, ThreadStoreError> {
    serde_json::from_str(text).map_err(|e| ThreadStoreError::Corrupt(format!("{what}: {e}")))
}

/// The JSON text of `value`.
pub(crate) fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, ThreadStoreError> {
    serde_json::to_string(value)
        .map_err(|e| ThreadStoreError::Backend(format!("cannot write JSON: {e}").into()))
}

/// A thread row as the list and summary queries read it.
pub(crate) struct SummaryRow {
    pub(crate) thread_id: String,
    pub(crate) title: Option<String>,
    pub(crate) metadata: String,
    pub(crate) created_at: i64,
    pub(crate) updated_at: i64,
    pub(crate) archived: bool,
    pub(crate) run_count: i64,
    pub(crate) last_run_id: Option<String>,
    pub(crate) last_status: Option<String>,
    pub(crate) last_outcome: Option<String>,
}

impl SummaryRow {
    pub(crate) fn into_summary(self) -> Result<ThreadSummary, ThreadStoreError> {
        let at = format!("thread {:?}", self.thread_id);
        let metadata: Map<String, Value> = json(&self.metadata, &format!("{at}: metadata"))?;
        let last_run = match (self.last_run_id, self.last_status) {
            (Some(run_id), Some(s)) => Some(RunSummary::new(
                run_id,
                status(&s, &at)?,
                outcome(self.last_outcome.as_deref(), &at)?,
            )),
            _ => None,
        };
        let mut summary = ThreadSummary::new(self.thread_id, from_micros(self.created_at));
        summary.title = self.title;
        summary.metadata = metadata;
        summary.updated_at = from_micros(self.updated_at);
        summary.archived = self.archived;
        summary.run_count = u64::try_from(self.run_count).unwrap_or(0);
        summary.last_run = last_run;
        Ok(summary)
    }
}

/// A run row.
pub(crate) struct RunRow {
    pub(crate) run_id: String,
    pub(crate) status: String,
    pub(crate) outcome: Option<String>,
    pub(crate) started_at: i64,
    pub(crate) ended_at: Option<i64>,
    pub(crate) usage: String,
    pub(crate) error_code: Option<String>,
    pub(crate) input_messages: String,
    pub(crate) rolled_back: bool,
    pub(crate) trace_id: Option<String>,
}

impl RunRow {
    pub(crate) fn into_record(self, thread_id: &str) -> Result<RunRecord, ThreadStoreError> {
        let at = format!("thread {thread_id:?}, run {:?}", self.run_id);
        let usage: Vec<TokenUsage> = json(&self.usage, &format!("{at}: usage"))?;
        let input_messages: Vec<Message> =
            json(&self.input_messages, &format!("{at}: input messages"))?;
        let status = status(&self.status, &at)?;
        let outcome = outcome(self.outcome.as_deref(), &at)?;
        let mut record = RunRecord::new(self.run_id, from_micros(self.started_at));
        record.status = status;
        record.outcome = outcome;
        record.ended_at = self.ended_at.map(from_micros);
        record.usage = usage;
        record.error_code = self.error_code;
        record.input_messages = input_messages;
        record.rolled_back = self.rolled_back;
        record.trace_id = self.trace_id;
        Ok(record)
    }
}

/// Whether `e` is a conflict that the same operation may pass when tried again: a
/// serialization failure or deadlock (PostgreSQL), a busy or locked database (SQLite).
pub(crate) fn transient(e: &sqlx::Error) -> bool {
    let sqlx::Error::Database(db) = e else {
        return false;
    };
    let Some(code) = db.code() else {
        return false;
    };
    match code.as_ref() {
        "40001" | "40P01" => true,
        // SQLite's extended result codes: the primary code is the low byte.
        c => c
            .parse::<i32>()
            .is_ok_and(|n| matches!(n & 0xff, 5 /* BUSY */ | 6 /* LOCKED */)),
    }
}

/// A driver error as a thread store error.
pub(crate) fn backend(e: sqlx::Error) -> ThreadStoreError {
    ThreadStoreError::Backend(Box::new(e))
}

/// What an operation's one try failed with: a store error to return as it is, or a
/// driver error that may be transient.
pub(crate) enum Failure {
    Store(ThreadStoreError),
    Sql(sqlx::Error),
}

impl From<sqlx::Error> for Failure {
    fn from(e: sqlx::Error) -> Self {
        Failure::Sql(e)
    }
}

impl From<ThreadStoreError> for Failure {
    fn from(e: ThreadStoreError) -> Self {
        Failure::Store(e)
    }
}

/// The pause before retry number `attempt` (0 for the first): `base` doubled per
/// attempt, at most [`MAX_RETRY_BACKOFF`], and between half and all of that (jitter, so
/// that two conflicting operations do not meet again).
pub(crate) fn backoff(base: Duration, attempt: u32) -> Duration {
    let full = base
        .saturating_mul(1u32 << attempt.min(16))
        .min(MAX_RETRY_BACKOFF);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let spread = f64::from(nanos % 1000) / 1000.0;
    full.mul_f64(0.5 + spread / 2.0)
}

/// Runs `op` until it succeeds, fails with something other than a transient conflict,
/// or has been tried `1 + config.retries` times.
pub(crate) async fn retry<T, F, Fut>(config: &SqlConfig, mut op: F) -> Result<T, ThreadStoreError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Failure>>,
{
    let mut attempt = 0;
    loop {
        match op().await {
            Ok(v) => return Ok(v),
            Err(Failure::Store(e)) => return Err(e),
            Err(Failure::Sql(e)) if transient(&e) && attempt < config.retries => {
                tracing::debug!(attempt, error = %e, "thread store: a transient conflict, trying again");
                tokio::time::sleep(backoff(config.retry_backoff, attempt)).await;
                attempt += 1;
            }
            Err(Failure::Sql(e)) => return Err(backend(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micros_round_trip_before_and_after_the_epoch() {
        for m in [0, 1, -1, 1_765_000_000_123_456, -86_400_000_000] {
            assert_eq!(micros(from_micros(m)), m);
        }
    }

    #[test]
    fn cursors_round_trip_and_refuse_what_they_did_not_write() {
        let c = cursor_of(42, "a.b'c");
        assert_eq!(parse_cursor(&c).ok(), Some((42, "a.b'c")));
        for bad in ["", "42", "x.y", ".id"] {
            assert!(matches!(
                parse_cursor(bad),
                Err(ThreadStoreError::InvalidCursor(c)) if c == bad
            ));
        }
    }

    #[test]
    fn backoff_doubles_within_its_bound() {
        let base = Duration::from_millis(10);
        assert!(backoff(base, 0) <= base && backoff(base, 0) >= base / 2);
        assert!(backoff(base, 3) >= Duration::from_millis(40));
        assert!(backoff(base, 30) <= MAX_RETRY_BACKOFF);
    }
}
