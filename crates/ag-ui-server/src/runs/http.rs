//! The HTTP side of resumable runs: starting a run into the log, joining, stopping,
//! connecting to a thread, and the capabilities document.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use ag_ui_core::{
    AgentCapabilities, Event, RunAgentInput, RunErrorEvent, RunId, ThreadState,
    TransportCapabilities,
};
use futures_core::Stream;
use http::header::{ACCEPT, HeaderValue};
use http::{Method, Response, StatusCode};

use super::driver::{Drive, Driver};
use super::follow::{self, LAST_EVENT_ID};
use super::journal::{Journal, new_messages};
use super::local::LocalTail;
use super::log::log_warn;
use super::multitask;
pub(crate) use super::principal::authorized;
use super::principal::principal;
use super::store::{Cursor, RecordStream, RunMeta, RunPhase, StoreError};
use super::threads_api::{self, check_id, not_found_thread, thread_store_rejection};
use super::{CODE_QUEUE_TIMEOUT, CODE_STORE_ERROR, CODE_STORE_LOST, Runs, Subscriber};
use crate::body::{SseBody, json_response, sse_response};
use crate::guard::GuardOptions;
use crate::threads::{CODE_RUN_LOST, RunStart, StoredThread};
use crate::{Agent, Rejection, RunGuard, accepts_sse};
use ag_ui_core::api::Multitask;

/// The extension's paths below the agent path, as axum route patterns: what
/// [`crate::axum::service_router`] routes to the service, one by one (other paths get its
/// JSON 404 and never start a run).
#[cfg(feature = "axum")]
pub(crate) const PATTERNS: [&str; 7] = [
    "/runs/{run_id}/events",
    "/runs/{run_id}/stop",
    "/threads",
    "/threads/{thread_id}",
    "/threads/{thread_id}/events",
    "/capabilities",
    "/openapi.json",
];

/// What a request asks of a service with runs or capabilities configured.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// Anything else: the agent path itself (start a run).
    Start,
    /// A route's shape with an id that is no id (empty, or not UTF-8 once
    /// percent-decoded): answered 404, never a start.
    Unknown,
    /// `GET {agent path}/runs/{runId}/events`.
    Events(String),
    /// `POST {agent path}/runs/{runId}/stop`.
    Stop(String),
    /// `GET {agent path}/threads`: the principal's threads.
    Threads,
    /// `GET`, `PATCH` or `DELETE {agent path}/threads/{threadId}` (a `GET` preferring
    /// SSE is the thread connect).
    Thread(String),
    /// `GET {agent path}/threads/{threadId}/events`: the thread's follow stream.
    Follow(String),
    /// `GET {agent path}/capabilities`.
    Capabilities,
    /// `GET {agent path}/openapi.json`.
    OpenApi,
}

impl Route {
    /// The method the route answers.
    pub(crate) fn allow(&self) -> &'static str {
        match self {
            Route::Start | Route::Stop(_) | Route::Unknown => "POST",
            Route::Events(_)
            | Route::Threads
            | Route::Follow(_)
            | Route::Capabilities
            | Route::OpenApi => "GET",
            Route::Thread(_) => "GET, PATCH, DELETE",
        }
    }

    /// The id in the route's path, if it has one.
    fn id(&self) -> Option<&str> {
        match self {
            Route::Events(id) | Route::Stop(id) | Route::Thread(id) | Route::Follow(id) => Some(id),
            Route::Start
            | Route::Unknown
            | Route::Threads
            | Route::Capabilities
            | Route::OpenApi => None,
        }
    }
}

fn decode(segment: &str) -> Option<String> {
    let s = percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .ok()?
        .into_owned();
    (!s.is_empty()).then_some(s)
}

/// Reads the route from the request path's last segments; also returns the length of
/// the path before them (the agent path).
pub(crate) fn route(path: &str) -> (Route, usize) {
    let trimmed = path.trim_end_matches('/');
    let segments: Vec<&str> = trimmed.split('/').collect();
    let n = segments.len();
    let base = |k: usize| -> usize {
        // Length of the first n-k segments joined by '/'.
        segments[..n - k]
            .iter()
            .map(|s| s.len() + 1)
            .sum::<usize>()
            .saturating_sub(1)
    };
    if n >= 3 && segments[n - 3] == "runs" && matches!(segments[n - 1], "events" | "stop") {
        let r = match decode(segments[n - 2]) {
            None => Route::Unknown,
            Some(id) if segments[n - 1] == "events" => Route::Events(id),
            Some(id) => Route::Stop(id),
        };
        return (r, base(3));
    }
    if n >= 3 && segments[n - 3] == "threads" && segments[n - 1] == "events" {
        let r = decode(segments[n - 2]).map_or(Route::Unknown, Route::Follow);
        return (r, base(3));
    }
    if n >= 2 && segments[n - 2] == "threads" {
        let r = decode(segments[n - 1]).map_or(Route::Unknown, Route::Thread);
        return (r, base(2));
    }
    if n >= 1 && segments[n - 1] == "threads" {
        return (Route::Threads, base(1));
    }
    if n >= 1 && segments[n - 1] == "openapi.json" {
        return (Route::OpenApi, base(1));
    }
    if n >= 1 && segments[n - 1] == "capabilities" {
        return (Route::Capabilities, base(1));
    }
    (Route::Start, trimmed.len())
}

/// The agent path as the client sees it: the path before the route, on the original URI
/// when the service is nested in an axum router.
pub(crate) fn agent_path(parts: &http::request::Parts, base_len: usize) -> String {
    let path = parts.uri.path();
    let cut = base_len.min(path.len());
    #[cfg(feature = "axum")]
    if let Some(original) = parts.extensions.get::<::axum::extract::OriginalUri>() {
        let suffix = path[cut..].trim_end_matches('/');
        if let Some(prefix) = original.path().trim_end_matches('/').strip_suffix(suffix) {
            return prefix.trim_end_matches('/').to_owned();
        }
    }
    path[..cut].trim_end_matches('/').to_owned()
}

/// What a path segment escapes: everything but RFC 3986's unreserved characters.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn encode_segment(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, SEGMENT).to_string()
}

fn not_found_run(run_id: &str) -> Rejection {
    Rejection::new(
        404,
        "run_not_found",
        format!(
            "no run {run_id:?}: it is unknown, it ended longer ago than the retention period, \
             or the run store lost it"
        ),
    )
}

fn store_rejection(e: &StoreError) -> Rejection {
    match e {
        StoreError::NotFound(id) => not_found_run(id),
        StoreError::Exists(id) => Rejection::new(
            409,
            "run_exists",
            format!("a run {id:?} exists already: start a run with a new runId"),
        ),
        StoreError::CursorExpired { after, oldest, .. } => Rejection::new(
            410,
            "cursor_expired",
            format!(
                "the events after cursor {after} are no longer kept (the oldest kept is {oldest}): \
                 join from the start of the thread instead"
            ),
        ),
        StoreError::ThreadBusy { thread_id, run_id } => Rejection::new(
            409,
            "thread_busy",
            format!(
                "thread {thread_id:?} has a run going on ({run_id:?}): wait for it to end, stop \
                 it, or start with ?multitask=enqueue, interrupt or rollback"
            ),
        ),
        StoreError::Full(m) => Rejection::new(503, "store_full", m.clone()),
        other => Rejection::new(503, "store_unavailable", other.to_string()),
    }
}

/// The OpenAPI document of the routes (generated by `ag-ui-schema --openapi`, which a test
/// keeps equal to the Rust types), its one server the agent's path.
const OPENAPI: &str = include_str!("../../openapi.json");

fn openapi_response(agent_path: &str) -> Result<Response<SseBody>, Rejection> {
    static DOC: std::sync::OnceLock<Option<serde_json::Value>> = std::sync::OnceLock::new();
    let fail = |m: String| Rejection::new(500, "encode_error", m);
    let mut doc = DOC
        .get_or_init(|| serde_json::from_str(OPENAPI).ok())
        .clone()
        .ok_or_else(|| fail("the embedded OpenAPI document is not JSON".to_owned()))?;
    let url = if agent_path.is_empty() {
        "/"
    } else {
        agent_path
    };
    doc["servers"] = serde_json::json!([{ "url": url }]);
    let body = serde_json::to_vec(&doc).map_err(|e| fail(e.to_string()))?;
    Ok(json_response(StatusCode::OK, body))
}

/// Whether a `GET` of a thread asks for the thread connect stream rather than JSON.
fn wants_sse(parts: &http::request::Parts) -> bool {
    let accept = parts.headers.get_all(ACCEPT);
    let values: Vec<&str> = accept.iter().filter_map(|v| v.to_str().ok()).collect();
    crate::negotiate::prefers_sse(values.iter().copied())
}

fn check_accept(parts: &http::request::Parts) -> Result<(), Rejection> {
    let accept = parts.headers.get_all(ACCEPT);
    if accepts_sse(accept.iter().filter_map(|v| v.to_str().ok())) {
        Ok(())
    } else {
        Err(Rejection::not_acceptable())
    }
}

fn method(parts: &http::request::Parts, want: Method, what: &str) -> Result<(), Rejection> {
    if parts.method == want {
        Ok(())
    } else {
        let mut r = Rejection::method_not_allowed(parts.method.as_str());
        r.message = format!("method {} is not allowed: {what}", parts.method);
        Err(r)
    }
}

/// The cursor a join starts after: `Last-Event-ID`, else `?after=`, else 0.
fn cursor(parts: &http::request::Parts) -> Result<Cursor, Rejection> {
    let bad = |what: &str, v: &str| {
        Rejection::new(
            400,
            "invalid_cursor",
            format!("{what} {v:?} is not a cursor (a non-negative integer from an SSE id: line)"),
        )
    };
    if let Some(v) = parts.headers.get(LAST_EVENT_ID) {
        let s = v.to_str().unwrap_or("?").trim();
        return s.parse().map_err(|_| bad("Last-Event-ID", s));
    }
    if let Some(q) = parts.uri.query() {
        for (k, v) in form_urlencoded::parse(q.as_bytes()) {
            if k == "after" {
                return v.trim().parse().map_err(|_| bad("after", &v));
            }
        }
    }
    Ok(0)
}

/// Starts `input` as a resumable run: registers it, spawns its driver, and answers with a
/// subscription to its log from the start. A thread with a run going on is the start's
/// multitask policy's (see [`Runs::multitask`]).
pub(crate) async fn start(
    runs: &Runs,
    agent: Arc<dyn Agent>,
    context: crate::RunContext,
    base_len: usize,
    input: RunAgentInput,
    options: GuardOptions,
    keep_alive: Option<std::time::Duration>,
) -> Result<Response<SseBody>, Rejection> {
    let who = principal(runs, context.request())?;
    // The agent sees who the run belongs to (`RunContext::principal`).
    let context = match &who {
        Some(p) => context.with_principal(p.as_str()),
        None => context,
    };
    let parts = context.request();
    let policy = multitask::requested(runs, parts)?;
    let location = format!(
        "{}/runs/{}/events",
        agent_path(parts, base_len),
        encode_segment(input.run_id.as_ref())
    );
    let launch = Launch {
        runs: runs.clone(),
        agent,
        context,
        input,
        options,
        who,
    };
    let frames: Pin<Box<dyn Stream<Item = bytes::Bytes> + Send>> = match launch.go().await {
        Ok(frames) => Box::pin(frames),
        Err(Launched::Refused(r)) => return Err(r),
        Err(Launched::Busy(launch, holder)) => match policy {
            Multitask::Reject => {
                return Err(store_rejection(&StoreError::ThreadBusy {
                    thread_id: launch.input.thread_id.to_string(),
                    run_id: holder,
                }));
            }
            Multitask::Enqueue => queued(*launch, holder),
            _ => Box::pin(interrupting(*launch, holder, policy).await?),
        },
    };
    let mut response = sse_response(frames, keep_alive);
    if let Ok(v) = HeaderValue::from_str(&location) {
        response
            .headers_mut()
            .insert(http::header::CONTENT_LOCATION, v);
    }
    Ok(response)
}

/// A start not yet registered: what its run needs.
struct Launch {
    runs: Runs,
    agent: Arc<dyn Agent>,
    context: crate::RunContext,
    input: RunAgentInput,
    options: GuardOptions,
    who: Option<String>,
}

/// Why a start was not launched.
enum Launched {
    /// The thread has a run going on (its id): the start, to try again.
    Busy(Box<Launch>, String),
    /// Refused.
    Refused(Rejection),
}

impl Launch {
    /// Registers the run (claiming its thread), writes its thread's start, spawns its
    /// driver: the subscription of the response that started it.
    async fn go(self) -> Result<LogFrames, Launched> {
        let runs = &self.runs;
        let who = &self.who;
        let input = &self.input;
        let run_id = input.run_id.to_string();
        let thread_id = input.thread_id.to_string();
        let store = &*runs.store;
        let mut meta = RunMeta::new(&run_id, &thread_id, who.clone(), &runs.owner);
        let journal = runs.threads.as_ref().map(|threads| {
            let thread = ThreadState::new()
                .with_messages(input.messages.clone())
                .with_state(input.state.clone().unwrap_or_default());
            let journal = Journal::new(
                Arc::clone(threads),
                who.clone(),
                thread_id.clone(),
                run_id.clone(),
            );
            (Arc::new(journal), thread)
        });
        if let Some((_, thread)) = &journal {
            meta = meta.with_input_thread(thread.clone());
        }
        match store.create_run(meta).await {
            Ok(()) => {}
            Err(StoreError::ThreadBusy { run_id: holder, .. }) => {
                return Err(Launched::Busy(Box::new(self), holder));
            }
            Err(e) => return Err(Launched::Refused(store_rejection(&e))),
        }
        if let Some((j, thread)) = &journal {
            let stored = j.stored().await;
            let fresh = new_messages(&input.messages, stored.as_ref());
            // The request's trace (the caller's `traceparent` continued, or the one the
            // service began) is kept with the run's record.
            let trace_id = self
                .context
                .request()
                .extensions
                .get::<crate::telemetry::TraceContext>()
                .map(crate::telemetry::TraceContext::trace_id);
            j.begin(
                RunStart::new(&thread_id, &run_id, fresh, thread.clone()).with_trace_id(trace_id),
            )
            .await;
        }
        let Launch {
            runs,
            agent,
            context,
            input,
            options,
            ..
        } = self;
        let local = runs.local.insert(&run_id);
        let subscriber = local.subscribe();
        // The response that started the run is served from the owner's memory.
        let records: RecordStream = Box::pin(LocalTail::new(
            Arc::clone(&local),
            Arc::clone(&runs.store),
            run_id.clone(),
            0,
        ));
        let guard = RunGuard::start_with_context(&*agent, input, context, options);
        let drive = Drive {
            runs,
            run_id,
            journal,
            guard,
            local,
        };
        let mut frames = LogFrames::new(VecDeque::new(), Some(records), Some(subscriber));
        frames.driver = Some(Box::pin(drive.run()));
        Ok(frames)
    }
}

/// `interrupt` and `rollback`: stops the thread's running run, waits for its end, then
/// launches (again, should another start have taken the thread meanwhile).
async fn interrupting(
    mut launch: Launch,
    mut holder: String,
    policy: Multitask,
) -> Result<LogFrames, Rejection> {
    let runs = launch.runs.clone();
    let who = launch.who.clone();
    let thread_id = launch.input.thread_id.to_string();
    let deadline = tokio::time::Instant::now() + multitask::stop_wait(&runs);
    let mut seen = None;
    loop {
        let ended = multitask::interrupt(
            &runs,
            who.as_deref(),
            &thread_id,
            &holder,
            policy,
            &mut seen,
            deadline,
        )
        .await?;
        if !ended {
            let mut r = store_rejection(&StoreError::ThreadBusy {
                thread_id,
                run_id: holder,
            });
            r.message = format!("{}; it was stopped but did not end in time", r.message);
            return Err(r);
        }
        match launch.go().await {
            Ok(frames) => return Ok(frames),
            Err(Launched::Refused(r)) => return Err(r),
            Err(Launched::Busy(l, h)) => {
                launch = *l;
                holder = h;
            }
        }
    }
}

/// `enqueue`: a stream that waits (the response's keep-alive comments go out meanwhile)
/// until the thread's running run has ended, then launches and carries the new run's
/// events; or a `RUN_ERROR` when the wait is too long or the start is refused.
fn queued(launch: Launch, holder: String) -> Pin<Box<dyn Stream<Item = bytes::Bytes> + Send>> {
    let wait = async move {
        let mut launch = launch;
        let mut holder = holder;
        let runs = launch.runs.clone();
        let deadline = tokio::time::Instant::now() + multitask::queue_wait(&runs);
        let mut seen = None;
        loop {
            match multitask::wait_end(&runs, &holder, &mut seen, deadline).await {
                Ok(true) => {}
                Ok(false) => {
                    return error_frames(
                        CODE_QUEUE_TIMEOUT,
                        format!(
                            "the thread's run {holder:?} did not end while this start waited \
                             for it"
                        ),
                    );
                }
                Err(e) => return error_frames(CODE_STORE_ERROR, e.to_string()),
            }
            match launch.go().await {
                Ok(frames) => {
                    let frames: Pin<Box<dyn Stream<Item = bytes::Bytes> + Send>> = Box::pin(frames);
                    return frames;
                }
                Err(Launched::Refused(r)) => return error_frames(r.error, r.message),
                Err(Launched::Busy(l, h)) => {
                    launch = *l;
                    holder = h;
                }
            }
        }
    };
    Box::pin(futures_util::StreamExt::flatten(
        futures_util::stream::once(wait),
    ))
}

/// A stream of one `RUN_ERROR` frame with `code`.
fn error_frames(code: &str, message: String) -> Pin<Box<dyn Stream<Item = bytes::Bytes> + Send>> {
    let event: Event = RunErrorEvent::new(message)
        .with_code(code.to_owned())
        .into();
    let mut frame = Vec::with_capacity(128);
    let frames = match ag_ui_core::sse::write_sse_frame(&mut frame, &event) {
        Ok(()) => vec![bytes::Bytes::from(frame)],
        Err(_) => Vec::new(),
    };
    Box::pin(futures_util::stream::iter(frames))
}

/// Answers a request for one of the extension's routes; `body` is the request's body
/// when the route reads one (a `PATCH` of a thread).
pub(crate) async fn answer(
    runs: Option<&Runs>,
    capabilities: Option<&AgentCapabilities>,
    route: Route,
    parts: &http::request::Parts,
    body: Option<&[u8]>,
    keep_alive: Option<std::time::Duration>,
) -> Result<Response<SseBody>, Rejection> {
    if let Some(id) = route.id() {
        check_id(id)?;
    }
    if route == Route::OpenApi {
        method(parts, Method::GET, "GET the OpenAPI document")?;
        let base_len = self::route(parts.uri.path()).1;
        return openapi_response(&agent_path(parts, base_len));
    }
    let Some(runs) = runs else {
        return match route {
            Route::Capabilities => {
                method(parts, Method::GET, "GET the capabilities")?;
                Ok(capabilities_response(None, capabilities))
            }
            _ => Err(Rejection::new(
                404,
                "not_found",
                "this agent keeps no runs: there is nothing to join, stop or connect to",
            )),
        };
    };
    match route {
        Route::Start | Route::Unknown | Route::OpenApi => {
            Err(Rejection::not_found(parts.uri.path()))
        }
        Route::Capabilities => {
            method(parts, Method::GET, "GET the capabilities")?;
            Ok(capabilities_response(Some(runs), capabilities))
        }
        Route::Events(run_id) => {
            method(parts, Method::GET, "GET a run's events")?;
            check_accept(parts)?;
            let who = principal(runs, parts)?;
            let after = cursor(parts)?;
            let store = &*runs.store;
            let meta = store
                .run(&run_id)
                .await
                .map_err(|e| store_rejection(&e))?
                .filter(|m| m.principal == who)
                .ok_or_else(|| not_found_run(&run_id))?;
            // The store answers for the cursor (gone past its bounds: 410) whoever serves
            // the join.
            let stored = store
                .tail(&meta.run_id, after)
                .await
                .map_err(|e| store_rejection(&e))?;
            // A join of a run this instance owns is served from its memory while that
            // holds the records after the cursor; other joins read the store.
            let (records, sub): (RecordStream, _) = match runs.local.get(&run_id) {
                Some(local) if local.serves(after) => {
                    let sub = local.subscribe();
                    let tail =
                        LocalTail::new(local, Arc::clone(&runs.store), meta.run_id.clone(), after);
                    (Box::pin(tail), Some(sub))
                }
                Some(local) => (stored, Some(local.subscribe())),
                None => (stored, None),
            };
            let frames = LogFrames::new(VecDeque::new(), Some(records), sub);
            Ok(sse_response(frames, keep_alive))
        }
        Route::Stop(run_id) => {
            method(parts, Method::POST, "POST to stop a run")?;
            let who = principal(runs, parts)?;
            let store = &*runs.store;
            store
                .run(&run_id)
                .await
                .map_err(|e| store_rejection(&e))?
                .filter(|m| m.principal == who)
                .ok_or_else(|| not_found_run(&run_id))?;
            let running = store
                .request_stop(&run_id)
                .await
                .map_err(|e| store_rejection(&e))?;
            let (status, word) = if running {
                (StatusCode::ACCEPTED, "stopping")
            } else {
                (StatusCode::OK, "ended")
            };
            let body = serde_json::json!({"runId": run_id, "status": word});
            Ok(json_response(
                status,
                serde_json::to_vec(&body).unwrap_or_default(),
            ))
        }
        Route::Threads => threads_api::list(runs, parts).await,
        Route::Thread(thread_id) => match parts.method {
            Method::GET | Method::HEAD if wants_sse(parts) => {
                check_accept(parts)?;
                let who = principal(runs, parts)?;
                connect(runs, who.as_deref(), &thread_id, keep_alive).await
            }
            Method::GET | Method::HEAD => threads_api::read(runs, parts, &thread_id).await,
            Method::PATCH => {
                threads_api::patch(runs, parts, &thread_id, body.unwrap_or_default()).await
            }
            Method::DELETE => threads_api::delete(runs, parts, &thread_id).await,
            _ => Err(threads_api::not_allowed(
                parts,
                "GET, PATCH or DELETE a thread",
            )),
        },
        Route::Follow(thread_id) => {
            method(parts, Method::GET, "GET a thread's follow stream")?;
            check_accept(parts)?;
            let who = principal(runs, parts)?;
            let resume = follow::resume_point(parts)?;
            let frames = follow::follow(runs, who.as_deref(), &thread_id, resume).await?;
            Ok(sse_response(frames, keep_alive))
        }
    }
}

/// A thread connect: the thread as snapshots, then its run in progress, if any.
async fn connect(
    runs: &Runs,
    who: Option<&str>,
    thread_id: &str,
    keep_alive: Option<std::time::Duration>,
) -> Result<Response<SseBody>, Rejection> {
    let Some(threads) = runs.threads.as_ref() else {
        return Err(Rejection::new(
            404,
            "not_found",
            "this agent keeps no threads: there is no thread to connect to",
        ));
    };
    let stored = threads
        .thread(who, thread_id)
        .await
        .map_err(|e| thread_store_rejection(&e))?
        .ok_or_else(|| not_found_thread(thread_id))?;
    let mut live = None;
    if let Some(active) = stored.active_run() {
        let store = &*runs.store;
        let meta = store
            .run(&active.run_id)
            .await
            .map_err(|e| store_rejection(&e))?
            .filter(|m| m.principal.as_deref() == who);
        if let Some(meta) = meta {
            // The thread before the run, then the run from its first event: the thread
            // store's copy has moved on with the run's checkpoints.
            let base = meta.input_thread.unwrap_or_else(|| stored.thread.clone());
            match store.tail(&meta.run_id, 0).await {
                Ok(records) => {
                    let sub = runs.local.get(&meta.run_id).map(|l| l.subscribe());
                    live = Some((base, records, sub));
                }
                Err(StoreError::NotFound(_)) => {}
                Err(e) => return Err(store_rejection(&e)),
            }
        }
        if live.is_none() {
            // The run store does not know the run: its owner stopped (a restart, a crash)
            // or the run store lost it. The thread is what its last checkpoint held.
            log_warn!(
                run_id = %active.run_id,
                "a thread's running run is unknown to the run store: it is marked lost"
            );
            if let Err(_e) = threads.lose_run(who, thread_id, &active.run_id).await {
                log_warn!(error = %_e, "a lost run could not be marked in the thread store");
            }
        }
    }
    let (thread, records, sub) = match live {
        Some((base, records, sub)) => (base, Some(records), sub),
        None => (served_thread(&stored, live_run_lost(&stored)), None, None),
    };
    let mut prelude = VecDeque::new();
    let envelope_id = RunId::random();
    for e in &thread.snapshot(thread_id, envelope_id.as_str()) {
        let mut frame = Vec::with_capacity(128);
        ag_ui_core::sse::write_sse_frame(&mut frame, e)
            .map_err(|e| Rejection::new(500, "encode_error", e.to_string()))?;
        prelude.push_back(frame);
    }
    Ok(sse_response(
        LogFrames::new(prelude, records, sub),
        keep_alive,
    ))
}

/// Whether the stored thread's last run is lost, or is being marked so now (it was
/// running and no live run stands behind it).
fn live_run_lost(stored: &StoredThread) -> bool {
    stored.runs.last().is_some_and(|r| {
        r.status == RunPhase::Running || r.error_code.as_deref() == Some(CODE_RUN_LOST)
    })
}

/// The stored thread as a connect sends it: a lost last run ends with its `RUN_ERROR`
/// ([`CODE_RUN_LOST`]) unless the fold holds the run's own end.
fn served_thread(stored: &StoredThread, lost: bool) -> ThreadState {
    let mut thread = stored.thread.clone();
    if lost && thread.run_error().is_none() {
        let event: Event = RunErrorEvent::new(
            "the run was lost: its instance stopped before it ended; the thread is as its \
             last checkpoint left it",
        )
        .with_code(CODE_RUN_LOST.to_owned())
        .into();
        thread.apply_owned(event);
    }
    thread
}

fn capabilities_response(
    runs: Option<&Runs>,
    capabilities: Option<&AgentCapabilities>,
) -> Response<SseBody> {
    let mut caps = capabilities.cloned().unwrap_or_else(AgentCapabilities::new);
    let mut transport = caps
        .transport
        .take()
        .unwrap_or_else(|| TransportCapabilities::new().with_streaming(true));
    transport.resumable = runs.map(|_| true);
    caps.transport = Some(transport);
    match ag_ui_core::write::to_vec(&caps) {
        Ok(body) => json_response(StatusCode::OK, body),
        Err(e) => Rejection::new(500, "encode_error", e.to_string()).to_response(),
    }
}

/// A subscription to a run's log as SSE frames, each with its cursor as `id:`; frames to
/// send first (a thread's snapshots); the response's hold on the run.
pub(crate) struct LogFrames {
    prelude: VecDeque<Vec<u8>>,
    records: Option<RecordStream>,
    _subscriber: Option<Subscriber>,
    /// The run's driver, for the response that started the run: polled here while the
    /// response lives, handed to a task of its own when it is dropped first.
    driver: Option<Driver>,
}

impl Drop for LogFrames {
    fn drop(&mut self) {
        if let Some(driver) = self.driver.take() {
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    runtime.spawn(driver);
                }
                // Without a runtime the run cannot go on: dropping the driver drops the
                // agent's stream, which trips its cancellation.
                Err(_) => drop(driver),
            }
        }
    }
}

impl LogFrames {
    pub(crate) fn new(
        prelude: VecDeque<Vec<u8>>,
        records: Option<RecordStream>,
        subscriber: Option<Subscriber>,
    ) -> Self {
        LogFrames {
            prelude,
            records,
            _subscriber: subscriber,
            driver: None,
        }
    }
}

impl Stream for LogFrames {
    type Item = bytes::Bytes;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<bytes::Bytes>> {
        let this = &mut *self;
        if let Some(f) = this.prelude.pop_front() {
            return Poll::Ready(Some(f.into()));
        }
        let Some(records) = this.records.as_mut() else {
            return Poll::Ready(None);
        };
        let mut polled = records.as_mut().poll_next(cx);
        if polled.is_pending()
            && let Some(driver) = this.driver.as_mut()
        {
            // Nothing new in the log: let the run produce (one batch at most).
            if driver.as_mut().poll(cx).is_ready() {
                this.driver = None;
            }
            polled = records.as_mut().poll_next(cx);
        }
        match polled {
            Poll::Ready(Some(Ok(r))) => {
                if r.is_terminal() {
                    // A run's stream ends with its one terminal event: whatever the store
                    // does afterwards (fails, loses the run) is nothing this subscriber
                    // sends.
                    this.records = None;
                }
                Poll::Ready(Some(r.frame))
            }
            Poll::Ready(Some(Err(e))) => {
                this.records = None;
                let (code, message) = match &e {
                    StoreError::CursorExpired { .. } => (
                        "cursor_expired",
                        format!("this subscriber fell behind the run's log: {e}"),
                    ),
                    StoreError::NotFound(_) => (
                        CODE_STORE_LOST,
                        "the run store no longer knows this run: its data was lost (the \
                         store restarted without persistence, failed over to a replica that \
                         lacked it, or was flushed); the run is ended"
                            .to_owned(),
                    ),
                    _ => (CODE_STORE_ERROR, e.to_string()),
                };
                log_warn!(code, error = %e, "a run's subscriber ended on a store failure");
                let event: Event = RunErrorEvent::new(message)
                    .with_code(code.to_owned())
                    .into();
                let mut f = Vec::with_capacity(128);
                match ag_ui_core::sse::write_sse_frame(&mut f, &event) {
                    Ok(()) => Poll::Ready(Some(f.into())),
                    Err(_) => Poll::Ready(None),
                }
            }
            Poll::Ready(None) => {
                this.records = None;
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::super::store::Record;
    use super::*;

    /// The OpenAPI document names every route the service routes, and no other.
    #[cfg(feature = "axum")]
    #[test]
    fn the_openapi_document_has_every_route() {
        let doc: serde_json::Value =
            serde_json::from_str(OPENAPI).unwrap_or_else(|e| panic!("openapi.json: {e}"));
        let mut documented: Vec<String> = doc["paths"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let mut routed: Vec<String> = PATTERNS
            .iter()
            .map(|p| {
                p.replace("{run_id}", "{runId}")
                    .replace("{thread_id}", "{threadId}")
            })
            .chain(["/".to_owned()])
            .collect();
        documented.sort();
        routed.sort();
        assert_eq!(documented, routed);
        assert_eq!(route("/agent/openapi.json"), (Route::OpenApi, 6));
    }

    #[test]
    fn routes_read_from_the_path_end() {
        assert_eq!(route("/"), (Route::Start, 0));
        assert_eq!(route("/agent"), (Route::Start, 6));
        assert_eq!(route("/agent/"), (Route::Start, 6));
        assert_eq!(
            route("/agent/runs/r%201/events"),
            (Route::Events("r 1".into()), 6)
        );
        assert_eq!(route("/runs/r1/events"), (Route::Events("r1".into()), 0));
        assert_eq!(route("/a/b/runs/r1/stop"), (Route::Stop("r1".into()), 4));
        assert_eq!(
            route("/agent/threads/t-1"),
            (Route::Thread("t-1".into()), 6)
        );
        assert_eq!(
            route("/agent/threads/a%2Fb/events"),
            (Route::Follow("a/b".into()), 6)
        );
        assert_eq!(
            route("/agent/threads/events"),
            (Route::Thread("events".into()), 6)
        );
        assert_eq!(route("/agent/threads//events"), (Route::Unknown, 6));
        assert_eq!(route("/agent/capabilities"), (Route::Capabilities, 6));
        assert_eq!(route("/capabilities/"), (Route::Capabilities, 0));
        // An empty id, or one that is not UTF-8, is no route, and no start either.
        assert_eq!(route("/agent/runs//events"), (Route::Unknown, 6));
        assert_eq!(route("/runs/%FF/stop"), (Route::Unknown, 0));
    }

    /// Polls `frames` to its end, returning each frame's JSON.
    fn drain(frames: &mut LogFrames) -> Vec<serde_json::Value> {
        let waker = futures_util::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut out = Vec::new();
        for _ in 0..100 {
            match Pin::new(&mut *frames).poll_next(&mut cx) {
                Poll::Ready(Some(frame)) => {
                    let text = String::from_utf8(frame.to_vec()).unwrap_or_default();
                    let json = text.lines().find_map(|l| l.strip_prefix("data: "));
                    out.push(serde_json::from_str(json.unwrap_or("null")).unwrap_or_default());
                }
                Poll::Ready(None) => return out,
                Poll::Pending => panic!("the stream waits"),
            }
        }
        panic!("the stream does not end");
    }

    #[test]
    fn a_store_failure_after_the_terminal_event_is_not_sent() {
        let finished = br#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;
        for terminal in [&finished[..], br#"{"type":"RUN_ERROR","message":"m"}"#] {
            let log: RecordStream = Box::pin(futures_util::stream::iter([
                Ok(Record::new(
                    1,
                    br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
                )),
                Ok(Record::new(2, terminal)),
                Err(StoreError::Backend("connection refused".into())),
                Ok(Record::new(3, finished)),
            ]));
            let got = drain(&mut LogFrames::new(VecDeque::new(), Some(log), None));
            let types: Vec<&str> = got.iter().filter_map(|e| e["type"].as_str()).collect();
            assert_eq!(types.len(), 2, "{got:?}");
            assert_eq!(types[0], "RUN_STARTED");
        }
    }

    #[test]
    fn a_store_failure_before_the_terminal_event_ends_the_stream_with_one() {
        for (error, code) in [
            (
                StoreError::Backend("connection refused".into()),
                "store_error",
            ),
            (StoreError::NotFound("r".into()), "store_lost"),
        ] {
            let log: RecordStream = Box::pin(futures_util::stream::iter([
                Ok(Record::new(
                    1,
                    br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
                )),
                Err(error),
            ]));
            let got = drain(&mut LogFrames::new(VecDeque::new(), Some(log), None));
            assert_eq!(got.len(), 2, "{got:?}");
            assert_eq!(got[1]["type"], "RUN_ERROR");
            assert_eq!(got[1]["code"], code);
        }
    }

    #[test]
    fn a_subscriber_behind_the_logs_bounds_ends_with_run_error() {
        let failing: RecordStream = Box::pin(futures_util::stream::iter([Err(
            StoreError::CursorExpired {
                run_id: "r".into(),
                after: 1,
                oldest: 5,
            },
        )]));
        let mut frames = LogFrames::new(VecDeque::new(), Some(failing), None);
        let waker = futures_util::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        let Poll::Ready(Some(frame)) = Pin::new(&mut frames).poll_next(&mut cx) else {
            panic!("a frame was expected");
        };
        let text = String::from_utf8(frame.to_vec()).unwrap_or_default();
        let json = text.trim().strip_prefix("data: ").unwrap_or_default();
        let event: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
        assert_eq!(event["type"], "RUN_ERROR");
        assert_eq!(event["code"], "cursor_expired");
        assert!(matches!(
            Pin::new(&mut frames).poll_next(&mut cx),
            Poll::Ready(None)
        ));
    }
}
