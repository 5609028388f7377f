//! The threads API's JSON routes below the agent path: list the principal's threads, read
//! one, change its title, metadata or archived flag, delete it. Every route reads the
//! thread store with the request's principal: another principal's thread is answered
//! as an unknown one (`404 thread_not_found`, never `403`).

use ag_ui_core::api::{InvalidParameter, ThreadPatch, ThreadQuery};
use http::{Method, Response, StatusCode};

use super::Runs;
use super::log::log_warn;
use super::principal::principal;
use super::store::{RunPhase, StoreError};
use crate::Rejection;
use crate::body::{SseBody, json_response};
use crate::threads::{ThreadStore, ThreadStoreError};

/// The longest thread or run id a route's path may carry, in bytes once percent-decoded:
/// a longer one is refused with `414 id_too_long` before any store is asked.
pub(crate) const MAX_PATH_ID: usize = 1024;

/// The largest `PATCH {agent}/threads/{threadId}` body, in bytes (`413` beyond).
pub(crate) const MAX_PATCH_BODY: usize = 64 * 1024;

/// `414 id_too_long` for an id longer than [`MAX_PATH_ID`].
pub(crate) fn check_id(id: &str) -> Result<(), Rejection> {
    if id.len() > MAX_PATH_ID {
        return Err(Rejection::new(
            414,
            "id_too_long",
            format!(
                "the id in the path is {} bytes long; ids are at most {MAX_PATH_ID} bytes",
                id.len()
            ),
        ));
    }
    Ok(())
}

/// `400 invalid_parameter` naming the parameter (a query parameter, or the JSON path
/// of a body member) in `pointer`.
pub(crate) fn invalid_parameter(e: InvalidParameter) -> Rejection {
    let mut r = Rejection::new(
        400,
        "invalid_parameter",
        format!("{}: {}", e.parameter, e.message),
    );
    r.pointer = Some(e.parameter);
    r
}

/// `404 thread_not_found`.
pub(crate) fn not_found_thread(thread_id: &str) -> Rejection {
    Rejection::new(
        404,
        "thread_not_found",
        format!("no thread {thread_id:?}: it is unknown, deleted, or expired"),
    )
}

/// The refusal for a thread store failure.
pub(crate) fn thread_store_rejection(e: &ThreadStoreError) -> Rejection {
    match e {
        ThreadStoreError::NotFound(id) => not_found_thread(id),
        ThreadStoreError::Busy(id) => Rejection::new(
            409,
            "thread_busy",
            format!("thread {id:?} has a run going on: stop it, or wait for it to end"),
        ),
        ThreadStoreError::InvalidCursor(c) => Rejection::new(
            400,
            "invalid_cursor",
            format!("cursor {c:?} is not a thread list cursor: pass a page's nextCursor as it is"),
        ),
        other => Rejection::new(503, "thread_store_unavailable", other.to_string()),
    }
}

/// The service's thread store, or `404 not_found` when it keeps none.
fn threads(runs: &Runs) -> Result<&std::sync::Arc<dyn ThreadStore>, Rejection> {
    runs.threads.as_ref().ok_or_else(|| {
        Rejection::new(
            404,
            "not_found",
            "this agent keeps no threads: its runs feature has no thread store",
        )
    })
}

fn json<T: serde::Serialize>(
    status: StatusCode,
    value: &T,
) -> Result<Response<SseBody>, Rejection> {
    let body = serde_json::to_vec(value)
        .map_err(|e| Rejection::new(500, "encode_error", e.to_string()))?;
    Ok(json_response(status, body))
}

/// `GET {agent}/threads?limit=&cursor=&archived=&metadata.KEY=VALUE`: one page of the
/// principal's threads, most recently updated first.
pub(crate) async fn list(
    runs: &Runs,
    parts: &http::request::Parts,
) -> Result<Response<SseBody>, Rejection> {
    if parts.method != Method::GET {
        return Err(not_allowed(parts, "GET the thread list"));
    }
    let who = principal(runs, parts)?;
    let threads = threads(runs)?;
    let query =
        ThreadQuery::from_query(parts.uri.query().unwrap_or("")).map_err(invalid_parameter)?;
    let page = threads
        .list(who.as_deref(), &query)
        .await
        .map_err(|e| thread_store_rejection(&e))?;
    json(StatusCode::OK, &page)
}

/// `GET {agent}/threads/{threadId}` in JSON: the summary, messages, state and runs.
pub(crate) async fn read(
    runs: &Runs,
    parts: &http::request::Parts,
    thread_id: &str,
) -> Result<Response<SseBody>, Rejection> {
    let who = principal(runs, parts)?;
    let stored = threads(runs)?
        .thread(who.as_deref(), thread_id)
        .await
        .map_err(|e| thread_store_rejection(&e))?
        .ok_or_else(|| not_found_thread(thread_id))?;
    json(StatusCode::OK, &stored.detail())
}

/// `PATCH {agent}/threads/{threadId}` with `{"title"?, "metadata"?, "archived"?}`: the new
/// summary.
pub(crate) async fn patch(
    runs: &Runs,
    parts: &http::request::Parts,
    thread_id: &str,
    body: &[u8],
) -> Result<Response<SseBody>, Rejection> {
    let who = principal(runs, parts)?;
    let threads = threads(runs)?;
    let patch = ThreadPatch::from_json(body).map_err(invalid_parameter)?;
    let summary = threads
        .update(who.as_deref(), thread_id, patch)
        .await
        .map_err(|e| thread_store_rejection(&e))?
        .ok_or_else(|| not_found_thread(thread_id))?;
    json(StatusCode::OK, &summary)
}

/// `DELETE {agent}/threads/{threadId}`: `204`; `409 thread_busy` while a run is going on.
/// A run the thread store still holds as running but the run store no longer knows (its
/// instance stopped) is marked lost first, and the thread is deleted.
pub(crate) async fn delete(
    runs: &Runs,
    parts: &http::request::Parts,
    thread_id: &str,
) -> Result<Response<SseBody>, Rejection> {
    let who = principal(runs, parts)?;
    let threads = threads(runs)?;
    let owner = who.as_deref();
    let deleted = match threads.delete(owner, thread_id).await {
        Err(ThreadStoreError::Busy(_)) if lose_dead_run(runs, owner, thread_id).await? => threads
            .delete(owner, thread_id)
            .await
            .map_err(|e| thread_store_rejection(&e))?,
        other => other.map_err(|e| thread_store_rejection(&e))?,
    };
    if !deleted {
        return Err(not_found_thread(thread_id));
    }
    let mut response = Response::new(SseBody::full(Vec::new()));
    *response.status_mut() = StatusCode::NO_CONTENT;
    Ok(response)
}

/// Whether the thread's running run (by the thread store) is one the run store no longer
/// runs: then it is marked lost, and `true` is returned.
async fn lose_dead_run(
    runs: &Runs,
    owner: Option<&str>,
    thread_id: &str,
) -> Result<bool, Rejection> {
    let threads = threads(runs)?;
    let Some(stored) = threads
        .thread(owner, thread_id)
        .await
        .map_err(|e| thread_store_rejection(&e))?
    else {
        return Ok(false);
    };
    let Some(active) = stored.active_run() else {
        // It ended meanwhile.
        return Ok(true);
    };
    let alive = match runs.store.run(&active.run_id).await {
        Ok(meta) => meta.is_some_and(|m| m.status == RunPhase::Running),
        Err(StoreError::NotFound(_)) => false,
        Err(e) => {
            return Err(Rejection::new(503, "store_unavailable", e.to_string()));
        }
    };
    if alive {
        return Ok(false);
    }
    log_warn!(
        run_id = %active.run_id,
        "a thread's running run is unknown to the run store: it is marked lost"
    );
    threads
        .lose_run(owner, thread_id, &active.run_id)
        .await
        .map_err(|e| thread_store_rejection(&e))?;
    Ok(true)
}

/// `405` for a method the route does not answer (the service adds `Allow`).
pub(crate) fn not_allowed(parts: &http::request::Parts, what: &str) -> Rejection {
    let mut r = Rejection::method_not_allowed(parts.method.as_str());
    r.message = format!("method {} is not allowed: {what}", parts.method);
    r
}
