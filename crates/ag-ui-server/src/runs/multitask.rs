//! What a start on a thread with a run going on does: the [`Multitask`] policy, the wait
//! for the running run's end, and the stop of it.

use std::time::Duration;

use ag_ui_core::api::{InvalidParameter, Multitask};
use futures_util::StreamExt;
use tokio::time::Instant;

use super::Runs;
use super::store::{Cursor, RunMeta, StoreError};
use crate::Rejection;

/// A cursor past any a run reaches: a tail from it yields no record and ends when the
/// run ends (a wait for a run's end, which on a distributed store also watches its
/// owner's lease).
const PAST_THE_END: Cursor = Cursor::MAX - 1;

/// How long a pause lasts when the thread's claim is still held by a run seen ended (a
/// distributed store releases it a moment after the run's end).
const RELEASE_PAUSE: Duration = Duration::from_millis(10);

/// How long an enqueued start waits for the thread when the service sets no maximum
/// duration: one hour.
const DEFAULT_QUEUE_WAIT: Duration = Duration::from_secs(60 * 60);

/// The policy a start asks for: `?multitask=` in its query, else the service's.
pub(crate) fn requested(runs: &Runs, parts: &http::request::Parts) -> Result<Multitask, Rejection> {
    let Some(query) = parts.uri.query() else {
        return Ok(runs.multitask);
    };
    let mut found = None;
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if k != "multitask" {
            continue;
        }
        if found.is_some() {
            return Err(invalid(&InvalidParameter::new(
                "multitask",
                "is given more than once",
            )));
        }
        found = Some(Multitask::from_word(&v).ok_or_else(|| {
            invalid(&InvalidParameter::new(
                "multitask",
                format!("{v:?} is not a policy: reject, enqueue, interrupt or rollback"),
            ))
        })?);
    }
    Ok(found.unwrap_or(runs.multitask))
}

fn invalid(e: &InvalidParameter) -> Rejection {
    super::threads_api::invalid_parameter(e.clone())
}

/// How long an enqueued start waits for its thread: the service's maximum duration and
/// the time a stopped run's agent gets, and a lease, or an hour.
pub(crate) fn queue_wait(runs: &Runs) -> Duration {
    runs.max_duration
        .map_or(DEFAULT_QUEUE_WAIT, |d| d + runs.stop_timeout + runs.lease)
}

/// How long an interrupting start waits for the stopped run's end: its agent's stop
/// timeout, a lease and a second.
pub(crate) fn stop_wait(runs: &Runs) -> Duration {
    runs.stop_timeout + runs.lease + Duration::from_secs(1)
}

/// Waits until run `run_id` has ended (its terminal event logged), or `deadline`.
/// `seen` is the run last waited for: when it is `run_id` again, the run has ended and
/// its claim is about to be released, so this pauses a moment instead.
///
/// # Errors
/// `Ok(false)` when the deadline passed first; a store failure.
pub(crate) async fn wait_end(
    runs: &Runs,
    run_id: &str,
    seen: &mut Option<String>,
    deadline: Instant,
) -> Result<bool, StoreError> {
    if seen.as_deref() == Some(run_id) {
        tokio::time::sleep_until(deadline.min(Instant::now() + RELEASE_PAUSE)).await;
        return Ok(Instant::now() < deadline);
    }
    *seen = Some(run_id.to_owned());
    let mut tail = match runs.store.tail(run_id, PAST_THE_END).await {
        Ok(t) => t,
        // Gone: nothing to wait for.
        Err(StoreError::NotFound(_)) => return Ok(true),
        Err(e) => return Err(e),
    };
    let drained = tokio::time::timeout_at(deadline, async {
        while let Some(item) = tail.next().await {
            match item {
                Ok(_) => {}
                Err(StoreError::NotFound(_)) => break,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    })
    .await;
    match drained {
        Ok(r) => r.map(|()| true),
        Err(_) => Ok(false),
    }
}

/// Stops the thread's running run `run_id` (as `POST …/stop` does) and waits for its
/// end; for [`Multitask::Rollback`], then rolls the thread back to before it. Returns
/// `Ok(false)` when `deadline` passed first.
///
/// # Errors
/// A store failure, or the thread store's refusal of the rollback.
pub(crate) async fn interrupt(
    runs: &Runs,
    who: Option<&str>,
    thread_id: &str,
    run_id: &str,
    policy: Multitask,
    seen: &mut Option<String>,
    deadline: Instant,
) -> Result<bool, Rejection> {
    let first = seen.as_deref() != Some(run_id);
    let meta = if first {
        let meta = runs.store.run(run_id).await.map_err(|e| store_error(&e))?;
        match runs.store.request_stop(run_id).await {
            Ok(_) | Err(StoreError::NotFound(_)) => {}
            Err(e) => return Err(store_error(&e)),
        }
        meta
    } else {
        None
    };
    if !wait_end(runs, run_id, seen, deadline)
        .await
        .map_err(|e| store_error(&e))?
    {
        return Ok(false);
    }
    if policy == Multitask::Rollback
        && let Some(meta) = meta
    {
        // rollback: thread store
        rollback_thread(runs, who, thread_id, &meta).await?;
    }
    Ok(true)
}

fn store_error(e: &StoreError) -> Rejection {
    Rejection::new(503, "store_unavailable", e.to_string())
}

/// Rolls the principal `who`'s stored thread `thread_id` back to before the interrupted
/// run `meta`: the thread store's fold becomes what it was before the run (the run's
/// [`input_thread`](RunMeta::input_thread) without the messages its input brought), so
/// what the run added, its messages and state changes, is dropped; the run's record
/// stays, its outcome as it ended (cancelled), marked rolled back
/// ([`ThreadStore::rollback_run`](crate::threads::ThreadStore::rollback_run)). Nothing to
/// do for a service that keeps no threads.
async fn rollback_thread(
    runs: &Runs,
    who: Option<&str>,
    thread_id: &str,
    meta: &RunMeta,
) -> Result<(), Rejection> {
    let Some(threads) = runs.threads.as_ref() else {
        return Ok(());
    };
    let failed = |e: crate::threads::ThreadStoreError| {
        Rejection::new(503, "thread_store_unavailable", e.to_string())
    };
    let stored = threads.thread(who, thread_id).await.map_err(failed)?;
    let brought: Vec<String> = stored
        .as_ref()
        .and_then(|t| t.runs.iter().find(|r| r.run_id == meta.run_id))
        .map(|r| {
            r.input_messages
                .iter()
                .map(|m| m.id().as_str().to_owned())
                .collect()
        })
        .unwrap_or_default();
    let before = meta.input_thread.clone().unwrap_or_default();
    let messages = before
        .messages()
        .iter()
        .filter(|m| !brought.iter().any(|id| id.as_str() == m.id().as_str()))
        .cloned()
        .collect();
    let fold = ag_ui_core::ThreadState::new()
        .with_messages(messages)
        .with_state(before.state().clone());
    threads
        .rollback_run(who, thread_id, &meta.run_id, &fold)
        .await
        .map_err(failed)?;
    Ok(())
}
