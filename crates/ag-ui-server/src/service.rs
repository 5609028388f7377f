//! The `tower` Service: an AG-UI endpoint over `http` requests (feature `tower`).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http::header::{ACCEPT, ALLOW, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use http::{Method, Request, Response};
use http_body_util::BodyExt;

use crate::body::SseBody;
use crate::guard::{GuardOptions, Report, ReportKind, RunGuard};
use crate::request::{DEFAULT_BODY_LIMIT, Rejection, check_content_type, read_request_body};
use crate::{Agent, RunContext, accepts_sse};
use ag_ui_core::BoxError;
use bytes::Buf;

/// Default interval of keep-alive comments on an idle stream: 15 s.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// An AG-UI endpoint as a [`tower_service::Service`]: `POST` a `RunAgentInput`, get the
/// run's events as Server-Sent Events.
///
/// | request | response |
/// |---|---|
/// | `POST`, JSON `RunAgentInput`, `Accept` admitting `text/event-stream` | 200, `content-type: text/event-stream`, `cache-control: no-cache`, `x-accel-buffering: no`; one frame per event, written as it is produced; `: keep-alive` comments when idle |
/// | another method | 405 with `allow: POST` |
/// | `Accept` excluding `text/event-stream` | 406 |
/// | body over the limit (by `content-length` or while reading) | 413 |
/// | `Content-Type` not JSON | 415 |
/// | body not a `RunAgentInput` | 400, `pointer` names the place |
///
/// Refusals have a JSON body (see [`Rejection`]). Once the stream started, every failure
/// ends it with `RUN_ERROR` (see [`RunGuard`]). When the client disconnects, the response
/// body is dropped and the run's [`Cancellation`](crate::Cancellation) is tripped.
/// Keep-alive comments use tokio's timer: serve it from a tokio runtime (as axum and hyper
/// servers do), or turn keep-alive off.
pub struct AgentService<A> {
    agent: Arc<A>,
    config: Arc<Config>,
}

#[derive(Clone)]
struct Config {
    keep_alive: Option<Duration>,
    body_limit: usize,
    run: GuardOptions,
    /// Resumable runs (the extension in [`crate::runs`]), when configured.
    runs: Option<crate::runs::Runs>,
    /// The document served at `GET {agent path}/capabilities`, when configured.
    capabilities: Option<ag_ui_core::AgentCapabilities>,
    /// The metrics kept and served at `GET {agent path}/metrics`, when configured.
    #[cfg(feature = "metrics")]
    metrics: Option<crate::metrics::Metrics>,
    /// The run store as configured, before its failures were counted.
    #[cfg(feature = "metrics")]
    run_store: Option<Arc<dyn crate::runs::RunStore>>,
}

impl Config {
    /// With both runs and metrics configured, counts the run store's failures.
    #[cfg(feature = "metrics")]
    fn count_store_errors(&mut self) {
        if let (Some(runs), Some(metrics), Some(store)) = (
            self.runs.as_mut(),
            self.metrics.as_ref(),
            self.run_store.as_ref(),
        ) {
            runs.store = crate::metrics::count_run_store_errors(Arc::clone(store), metrics);
        }
    }
}

impl<A> Clone for AgentService<A> {
    fn clone(&self) -> Self {
        AgentService {
            agent: Arc::clone(&self.agent),
            config: Arc::clone(&self.config),
        }
    }
}

impl<A> std::fmt::Debug for AgentService<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentService")
            .field("keep_alive", &self.config.keep_alive)
            .field("body_limit", &self.config.body_limit)
            .field("run", &self.config.run)
            .finish_non_exhaustive()
    }
}

impl<A: Agent> AgentService<A> {
    /// Serves `agent` with the defaults: keep-alive every 15 s, an 8 MiB body limit,
    /// verification on, no hook.
    #[must_use]
    pub fn new(agent: A) -> Self {
        AgentService {
            agent: Arc::new(agent),
            config: Arc::new(Config {
                keep_alive: Some(DEFAULT_KEEP_ALIVE),
                body_limit: DEFAULT_BODY_LIMIT,
                run: GuardOptions::default(),
                runs: None,
                capabilities: None,
                #[cfg(feature = "metrics")]
                metrics: None,
                #[cfg(feature = "metrics")]
                run_store: None,
            }),
        }
    }

    fn edit(mut self, f: impl FnOnce(&mut Config)) -> Self {
        f(Arc::make_mut(&mut self.config));
        self
    }

    /// Sends a keep-alive comment after `interval` without an event (`None`: never).
    #[must_use]
    pub fn keep_alive(self, interval: Option<Duration>) -> Self {
        self.edit(|s| s.keep_alive = interval)
    }

    /// Refuses request bodies longer than `bytes` with 413.
    #[must_use]
    pub fn body_limit(self, bytes: usize) -> Self {
        self.edit(|s| s.body_limit = bytes)
    }

    /// Turns verification of the agent's events on or off (on by default).
    #[must_use]
    pub fn verify(self, on: bool) -> Self {
        self.edit(|s| s.run.verify = on)
    }

    /// Hands every [`Report`] to `hook`.
    #[must_use]
    pub fn hook(self, hook: impl Fn(&Report<'_>) + Send + Sync + 'static) -> Self {
        self.edit(|s| s.run.hook = Some(Arc::new(hook)))
    }

    /// Sends the agent's error text to clients in `RUN_ERROR` (off by default: clients get
    /// a generic message with an error id that the log and the hook also have; see
    /// [`GuardOptions::expose_errors`]).
    #[must_use]
    pub fn expose_errors(self, on: bool) -> Self {
        self.edit(|s| s.run.expose_errors = on)
    }

    /// Keeps runs in a log so that they outlive their connection: joinable, stoppable,
    /// with the thread kept (a non-standard extension, see [`crate::runs`]). Adds the
    /// routes `GET {agent path}/runs/{runId}/events`, `POST {agent path}/runs/{runId}/stop`,
    /// `GET {agent path}/threads/{threadId}` and `GET {agent path}/threads/{threadId}/events`
    /// (a thread's follow stream); mount the service so that they reach it:
    /// [`crate::axum::service_router`] routes each of them to it, and answers any other
    /// path with a JSON 404. (The service itself takes a path that does not end in one of
    /// its routes for the agent path.)
    #[must_use]
    pub fn runs(self, runs: crate::runs::Runs) -> Self {
        self.edit(|s| {
            #[cfg(feature = "metrics")]
            {
                s.run_store = Some(Arc::clone(&runs.store));
            }
            s.runs = Some(runs);
            #[cfg(feature = "metrics")]
            s.count_store_errors();
        })
    }

    /// Serves `capabilities` at `GET {agent path}/capabilities` (where to find them is
    /// up to the application, the spec says). `transport.resumable` is set when
    /// [`runs`](Self::runs) are configured and removed otherwise.
    #[must_use]
    pub fn capabilities(self, capabilities: ag_ui_core::AgentCapabilities) -> Self {
        self.edit(|s| s.capabilities = Some(capabilities))
    }

    /// Names the agent in its runs' spans (`invoke_agent {name}`, `gen_ai.agent.name`).
    #[must_use]
    pub fn agent_name(self, name: impl Into<String>) -> Self {
        let name: Arc<str> = Arc::from(name.into());
        self.edit(|s| s.run.agent_name = Some(name))
    }

    /// Keeps the Prometheus `metrics` of this service's requests and runs, and serves them
    /// at `GET {agent path}/metrics` (see [`crate::metrics`]). Agents that report their model
    /// calls (as `ag-ui-agent`'s loop does) find the hook in the run's context. With
    /// [`runs`](Self::runs), the run store's failures are counted too
    /// (`agui_store_errors_total{store="run"}`).
    #[cfg(feature = "metrics")]
    #[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
    #[must_use]
    pub fn metrics(self, metrics: crate::metrics::Metrics) -> Self {
        self.edit(|s| {
            s.run.observer = Some(metrics.observer());
            s.metrics = Some(metrics);
            s.count_store_errors();
        })
    }

    /// Whether `GET {agent path}/metrics` is answered (metrics are configured).
    #[must_use]
    pub fn has_metrics(&self) -> bool {
        #[cfg(feature = "metrics")]
        return self.config.metrics.is_some();
        #[cfg(not(feature = "metrics"))]
        false
    }

    /// Whether requests other than `POST {agent path}` are answered (runs or capabilities
    /// are configured).
    #[must_use]
    pub fn has_routes(&self) -> bool {
        self.config.runs.is_some() || self.config.capabilities.is_some()
    }

    /// The agent served.
    #[must_use]
    pub fn agent(&self) -> &A {
        &self.agent
    }

    /// Answers one request (what [`tower_service::Service::call`] does).
    ///
    /// Every request gets a request id (its `x-request-id` when usable, see
    /// [`request_id_or_new`](crate::telemetry::request_id_or_new)) and a trace context (its
    /// `traceparent` continued, or a new trace, see
    /// [`TraceContext`](crate::telemetry::TraceContext)); the response carries both
    /// (`x-request-id`, `traceparent`), and with the `tracing` feature the request is
    /// handled in an `ag_ui_request` span that has them.
    pub async fn handle<B>(&self, mut request: Request<B>) -> Response<SseBody>
    where
        B: http_body::Body,
        B::Error: Into<BoxError>,
    {
        use crate::telemetry::{REQUEST_ID_HEADER, TraceContext, request_id_or_new};
        let headers = request.headers();
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let request_id = request_id_or_new(header(REQUEST_ID_HEADER));
        let trace = TraceContext::from_headers(header("traceparent"), header("tracestate"));
        let route = self.route_label(request.uri().path());
        #[cfg(feature = "tracing")]
        let span = tracing::info_span!(
            "ag_ui_request",
            otel.name = %format!("{} {}", request.method(), route),
            otel.kind = "server",
            http.request.method = %request.method(),
            http.route = route,
            http.response.status_code = tracing::field::Empty,
            request_id = %request_id,
            trace_id = %trace.trace_id(),
        );
        #[cfg(feature = "otel")]
        let trace = crate::otel::continue_trace(&span, trace);
        if let Ok(value) = HeaderValue::from_str(&request_id) {
            request.headers_mut().insert(REQUEST_ID_HEADER, value);
        }
        let traceparent = HeaderValue::from_str(&trace.server.to_string());
        request.extensions_mut().insert(trace);
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.config.metrics {
            request.extensions_mut().insert(metrics.model_call_hook());
        }
        let answer = self.answer(request, route);
        #[cfg(feature = "tracing")]
        let answer = tracing::Instrument::instrument(answer, span.clone());
        let mut response = answer.await;
        #[cfg(feature = "tracing")]
        span.record(
            "http.response.status_code",
            i64::from(response.status().as_u16()),
        );
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.config.metrics {
            metrics.http_request(route, response.status().as_u16());
        }
        if let Ok(value) = HeaderValue::from_str(&request_id) {
            response.headers_mut().insert(REQUEST_ID_HEADER, value);
        }
        if let Ok(value) = traceparent {
            response.headers_mut().insert("traceparent", value);
        }
        response
    }

    /// The fixed name of the route `path` is (the `route` label of the HTTP metrics).
    fn route_label(&self, path: &str) -> &'static str {
        use crate::runs::http::{Route, route};
        let runs_route = if self.has_routes() {
            route(path).0
        } else {
            Route::Start
        };
        match runs_route {
            Route::Start if self.has_metrics() && is_metrics_path(path) => "metrics",
            Route::Start => "start",
            Route::Events(_) => "join",
            Route::Stop(_) => "stop",
            Route::Threads => "threads",
            Route::Thread(_) => "thread",
            Route::Follow(_) => "follow",
            Route::Capabilities => "capabilities",
            Route::OpenApi => "openapi",
            Route::Unknown => "other",
        }
    }

    /// Answers `request` on `route` (see [`handle`](Self::handle)).
    async fn answer<B>(&self, mut request: Request<B>, route: &'static str) -> Response<SseBody>
    where
        B: http_body::Body,
        B::Error: Into<BoxError>,
    {
        let shared = &*self.config;
        #[cfg(feature = "metrics")]
        if route == "metrics"
            && let Some(metrics) = &shared.metrics
        {
            return metrics.answer(request.method());
        }
        #[cfg(feature = "metrics")]
        if route == "join"
            && let Some(metrics) = &shared.metrics
        {
            metrics.join();
        }
        #[cfg(not(feature = "metrics"))]
        let _ = route;
        if self.has_routes() {
            use crate::runs::http as runs_http;
            // Who the request comes from is decided once, first, for every route: a
            // request the authorisation refuses learns nothing (not even which paths
            // exist) and sends no body that is read.
            if let Some(runs) = shared.runs.as_ref() {
                request = match runs_http::authorized(runs, request) {
                    Ok(request) => request,
                    Err((rejection, request_id)) => {
                        shared.run.report(
                            &Report::new(ReportKind::Rejected(&rejection))
                                .with_request_id(request_id.as_deref()),
                        );
                        return rejection.to_response();
                    }
                };
            }
            let (route, base_len) = runs_http::route(request.uri().path());
            if route != runs_http::Route::Start {
                let allow = route.allow();
                let (parts, body) = request.into_parts();
                // Only a thread's PATCH has a body that is read.
                let read = match route {
                    runs_http::Route::Thread(_) if parts.method == Method::PATCH => Some(
                        read_limited(
                            &parts,
                            body,
                            crate::runs::threads_api::MAX_PATCH_BODY.min(shared.body_limit),
                        )
                        .await,
                    ),
                    _ => None,
                };
                let answer = match read {
                    Some(Err(rejection)) => Err(rejection),
                    read => {
                        let body = read.and_then(Result::ok);
                        runs_http::answer(
                            shared.runs.as_ref(),
                            shared.capabilities.as_ref(),
                            route,
                            &parts,
                            body.as_deref(),
                            shared.keep_alive,
                        )
                        .await
                    }
                };
                return answer.unwrap_or_else(|rejection| {
                    let request_id = parts
                        .headers
                        .get("x-request-id")
                        .and_then(|v| v.to_str().ok());
                    shared.run.report(
                        &Report::new(ReportKind::Rejected(&rejection)).with_request_id(request_id),
                    );
                    let mut response = rejection.to_response();
                    if rejection.status == 405 {
                        response
                            .headers_mut()
                            .insert(ALLOW, HeaderValue::from_static(allow));
                    }
                    response
                });
            }
            if let Some(runs) = shared.runs.as_ref() {
                let (parts, body) = request.into_parts();
                return match read_run_request(parts, body, shared.body_limit).await {
                    Ok(request) => {
                        let request_id = request.context.request_id().map(str::to_owned);
                        if !request.warnings.is_empty() {
                            shared.run.report(
                                &Report::new(ReportKind::Forgiven(&request.warnings))
                                    .with_request_id(request_id.as_deref()),
                            );
                        }
                        runs_http::start(
                            runs,
                            Arc::clone(&self.agent) as Arc<dyn Agent>,
                            request.context,
                            base_len,
                            request.input,
                            shared.run.clone(),
                            shared.keep_alive,
                        )
                        .await
                        .unwrap_or_else(|rejection| {
                            shared.run.report(
                                &Report::new(ReportKind::Rejected(&rejection))
                                    .with_request_id(request_id.as_deref()),
                            );
                            rejection.to_response()
                        })
                    }
                    Err(refused) => {
                        let report = Report::new(ReportKind::Rejected(&refused.rejection))
                            .with_request_id(refused.request_id.as_deref());
                        shared.run.report(&report);
                        refused.rejection.to_response()
                    }
                };
            }
        }
        let (parts, body) = request.into_parts();
        match read_run_request(parts, body, shared.body_limit).await {
            Ok(request) => {
                let guard = RunGuard::start_with_context(
                    &*self.agent,
                    request.input,
                    request.context,
                    shared.run.clone(),
                );
                if !request.warnings.is_empty() {
                    guard.report(ReportKind::Forgiven(&request.warnings));
                }
                #[cfg(feature = "proto")]
                if request.proto {
                    return SseBody::proto_stream(guard.proto_frames()).into_response();
                }
                SseBody::stream(guard.frames(), shared.keep_alive).into_response()
            }
            Err(refused) => {
                let report = Report::new(ReportKind::Rejected(&refused.rejection))
                    .with_request_id(refused.request_id.as_deref());
                shared.run.report(&report);
                refused.rejection.to_response()
            }
        }
    }
}

/// Whether `path` is the metrics route below the agent path (`/metrics`, `/agent/metrics`).
fn is_metrics_path(path: &str) -> bool {
    path == "/metrics" || path.ends_with("/metrics")
}

/// A request read up to its run: the input, what the forgiving reader forgave, and the
/// run's context (the request's head).
pub(crate) struct RunRequest {
    pub(crate) input: ag_ui_core::RunAgentInput,
    pub(crate) warnings: Vec<ag_ui_core::Warning>,
    pub(crate) context: RunContext,
    /// The request asks for the protobuf transport.
    #[cfg(feature = "proto")]
    pub(crate) proto: bool,
}

/// A request refused before any run: the rejection and the request's id.
pub(crate) struct Refused {
    pub(crate) rejection: Rejection,
    pub(crate) request_id: Option<String>,
}

/// Bytes of an oversized body read and discarded before the 413 is sent, so that a client
/// that sends its whole body before reading the response gets the 413 instead of a
/// connection reset. Beyond it the server answers and closes the connection.
const DRAIN_LIMIT: u64 = 64 * 1024 * 1024;

/// Checks a request's method, `Accept` and `Content-Type`, reads its body (at most `limit`
/// bytes kept) with the forgiving reader, and makes the run's context from its head.
pub(crate) async fn read_run_request<B>(
    parts: http::request::Parts,
    body: B,
    limit: usize,
) -> Result<RunRequest, Refused>
where
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    let request_id = parts
        .headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let refuse = |rejection: Rejection| Refused {
        rejection,
        request_id: request_id.clone(),
    };
    if parts.method != Method::POST {
        return Err(refuse(Rejection::method_not_allowed(parts.method.as_str())));
    }
    let accept = parts.headers.get_all(ACCEPT);
    #[cfg(feature = "proto")]
    let proto = crate::accepts_proto(accept.iter().filter_map(|v| v.to_str().ok()));
    #[cfg(not(feature = "proto"))]
    let proto = false;
    if !proto && !accepts_sse(accept.iter().filter_map(|v| v.to_str().ok())) {
        return Err(refuse(Rejection::not_acceptable()));
    }
    let content_type = parts
        .headers
        .get(CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("?"));
    check_content_type(content_type).map_err(&refuse)?;
    let bytes = read_limited(&parts, body, limit).await.map_err(&refuse)?;
    let (input, warnings) = read_request_body(&bytes, limit).map_err(&refuse)?;
    let context = RunContext::new(&input, crate::Cancellation::new()).with_request(parts);
    Ok(RunRequest {
        input,
        warnings,
        context,
        #[cfg(feature = "proto")]
        proto,
    })
}

/// Reads a request's body, at most `limit` bytes: `413` beyond it (announced by
/// `Content-Length`, or met while reading; the rest read and discarded first, up to a
/// bound, unless the client waits for `100 Continue` or speaks HTTP/2), `408` or `400`
/// when it cannot be read.
pub(crate) async fn read_limited<B>(
    parts: &http::request::Parts,
    body: B,
    limit: usize,
) -> Result<Vec<u8>, Rejection>
where
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    // A client that waits for `100 Continue` has sent nothing yet: answer at once. Over
    // HTTP/2 an early answer resets only the stream. An HTTP/1 client that sends its body
    // without waiting gets the 413 once the body is read (and discarded).
    let waits = parts
        .headers
        .get(http::header::EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    let early = waits || parts.version >= http::Version::HTTP_2;
    let mut body = std::pin::pin!(body);
    if declared.is_some_and(|n| n > limit as u64) {
        if !early && declared.is_some_and(|n| n <= DRAIN_LIMIT) {
            drain(body.as_mut(), DRAIN_LIMIT).await;
        }
        return Err(Rejection::too_large(limit));
    }
    let mut bytes = Vec::with_capacity(declared.map_or(0, |n| n as usize).min(limit));
    let mut over = false;
    loop {
        let next = body.as_mut().frame().await;
        let frame = match next {
            None => break,
            Some(Ok(frame)) => frame,
            Some(Err(e)) => return Err(body_error(&e.into())),
        };
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.remaining() > limit {
                over = true;
                break;
            }
            bytes.extend_from_slice(data.chunk());
        }
    }
    if over {
        if !early {
            drain(body.as_mut(), DRAIN_LIMIT).await;
        }
        return Err(Rejection::too_large(limit));
    }
    Ok(bytes)
}

/// Reads and drops the rest of `body`, at most `bound` bytes (or until it fails).
async fn drain<B: http_body::Body>(mut body: Pin<&mut B>, bound: u64) {
    let mut seen = 0u64;
    loop {
        let next = body.as_mut().frame().await;
        let Some(Ok(frame)) = next else { return };
        seen += frame.data_ref().map_or(0, |d| d.remaining() as u64);
        if seen > bound {
            return;
        }
    }
}

/// The rejection for a body that could not be read: 408 when the server's body timeout
/// ran out, 400 otherwise.
fn body_error(error: &BoxError) -> Rejection {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&**error);
    while let Some(e) = source {
        if e.is::<crate::BodyTimeout>() {
            return Rejection::body_timeout();
        }
        source = e.source();
    }
    Rejection::new(
        400,
        "body_unreadable",
        format!("the request body could not be read: {error}"),
    )
}

impl<A, B> tower_service::Service<Request<B>> for AgentService<A>
where
    A: Agent,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<SseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<SseBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let service = self.clone();
        Box::pin(async move { Ok(service.handle(request).await) })
    }
}
