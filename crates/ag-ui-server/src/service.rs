//! The `tower` Service: an AG-UI endpoint over `http` requests (feature `tower`).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use http::header::{
    ACCEPT, ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HeaderName, HeaderValue, VARY,
};
use http::{Method, Request, Response, StatusCode};
use http_body::Frame;
use http_body_util::BodyExt;

use crate::agent::BoxError;
use crate::guard::{Report, RunGuard, RunOptions, SseFrames};
use crate::request::{DEFAULT_BODY_LIMIT, Rejection, check_content_type, read_input};
use crate::{Agent, accepts_sse};

/// Default interval of keep-alive comments on an idle stream: 15 s.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The keep-alive comment: an SSE comment line and the blank line that ends it.
pub const KEEP_ALIVE_COMMENT: &[u8] = b": keep-alive\n\n";

/// Frames that are ready together are sent as one chunk up to this size.
const COALESCE_BYTES: usize = 32 * 1024;

/// `x-accel-buffering`: tells nginx-style proxies not to buffer the stream.
const X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");

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
    run: RunOptions,
    /// Resumable runs (the extension in [`crate::runs`]), when configured.
    runs: Option<crate::runs::Runs>,
    /// The document served at `GET {agent path}/capabilities`, when configured.
    capabilities: Option<ag_ui_core::AgentCapabilities>,
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
                run: RunOptions::default(),
                runs: None,
                capabilities: None,
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

    /// Keeps runs in a log so that they outlive their connection: joinable, stoppable,
    /// with the thread kept (a non-standard extension, see [`crate::runs`]). Adds the
    /// routes `GET {agent path}/runs/{runId}/events`, `POST {agent path}/runs/{runId}/stop`
    /// and `GET {agent path}/threads/{threadId}`; mount the service so that they reach it
    /// (as [`crate::axum::service_router`] does).
    #[must_use]
    pub fn runs(self, runs: crate::runs::Runs) -> Self {
        self.edit(|s| s.runs = Some(runs))
    }

    /// Serves `capabilities` at `GET {agent path}/capabilities` (where to find them is
    /// up to the application, the spec says). `transport.resumable` is set when
    /// [`runs`](Self::runs) are configured and removed otherwise.
    #[must_use]
    pub fn capabilities(self, capabilities: ag_ui_core::AgentCapabilities) -> Self {
        self.edit(|s| s.capabilities = Some(capabilities))
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
    pub async fn handle<B>(&self, request: Request<B>) -> Response<SseBody>
    where
        B: http_body::Body,
        B::Error: Into<BoxError>,
    {
        let shared = &*self.config;
        let result = if self.has_routes() {
            self.route(request).await
        } else {
            self.start(request)
                .await
                .map(|guard| sse_response(guard.frames(), shared.keep_alive))
        };
        match result {
            Ok(response) => response,
            Err(rejection) => {
                shared.run.report(&Report::Rejected(&rejection));
                rejection_response(&rejection)
            }
        }
    }

    /// Answers a request to a service with runs or capabilities configured.
    async fn route<B>(&self, request: Request<B>) -> Result<Response<SseBody>, Rejection>
    where
        B: http_body::Body,
        B::Error: Into<BoxError>,
    {
        use crate::runs::http as runs_http;
        let shared = &*self.config;
        let (route, base_len) = runs_http::route(request.uri().path());
        if route != runs_http::Route::Start {
            let allow = route.allow();
            let (parts, _body) = request.into_parts();
            let answer = runs_http::answer(
                shared.runs.as_ref(),
                shared.capabilities.as_ref(),
                route,
                &parts,
                shared.keep_alive,
            )
            .await;
            return Ok(answer.unwrap_or_else(|rejection| {
                shared.run.report(&Report::Rejected(&rejection));
                let mut response = rejection_response(&rejection);
                if rejection.status == 405 {
                    response
                        .headers_mut()
                        .insert(ALLOW, HeaderValue::from_static(allow));
                }
                response
            }));
        }
        let Some(runs) = shared.runs.as_ref() else {
            return self
                .start(request)
                .await
                .map(|guard| sse_response(guard.frames(), shared.keep_alive));
        };
        let (parts, input) = self.read(request).await?;
        runs_http::start(
            runs,
            &*self.agent,
            &parts,
            base_len,
            input,
            shared.run.clone(),
            shared.keep_alive,
        )
        .await
    }

    async fn start<B>(&self, request: Request<B>) -> Result<RunGuard, Rejection>
    where
        B: http_body::Body,
        B::Error: Into<BoxError>,
    {
        let (_, input) = self.read(request).await?;
        Ok(RunGuard::start(
            &*self.agent,
            input,
            self.config.run.clone(),
        ))
    }

    /// Checks the request and reads its `RunAgentInput`.
    async fn read<B>(
        &self,
        request: Request<B>,
    ) -> Result<(http::request::Parts, ag_ui_core::RunAgentInput), Rejection>
    where
        B: http_body::Body,
        B::Error: Into<BoxError>,
    {
        let shared = &*self.config;
        let (parts, body) = request.into_parts();
        if parts.method != Method::POST {
            return Err(Rejection::method_not_allowed(parts.method.as_str()));
        }
        let accept = parts.headers.get_all(ACCEPT);
        if !accepts_sse(accept.iter().filter_map(|v| v.to_str().ok())) {
            return Err(Rejection::not_acceptable());
        }
        let content_type = parts
            .headers
            .get(CONTENT_TYPE)
            .map(|v| v.to_str().unwrap_or("?"));
        check_content_type(content_type)?;
        let declared = parts
            .headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > shared.body_limit as u64) {
            return Err(Rejection::too_large(shared.body_limit));
        }
        let limited = http_body_util::Limited::new(body, shared.body_limit);
        let bytes = match limited.collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) if e.is::<http_body_util::LengthLimitError>() => {
                return Err(Rejection::too_large(shared.body_limit));
            }
            Err(e) => {
                return Err(Rejection::new(
                    400,
                    "body_unreadable",
                    format!("the request body could not be read: {e}"),
                ));
            }
        };
        let (input, warnings) = read_input(&bytes, shared.body_limit)?;
        if !warnings.is_empty() {
            shared.run.report(&Report::Forgiven(&warnings));
        }
        Ok((parts, input))
    }
}

/// A `200` SSE response streaming `frames`, with the stream headers.
pub(crate) fn sse_response<B: Into<Bytes> + 'static>(
    frames: impl Stream<Item = B> + Send + 'static,
    keep_alive: Option<Duration>,
) -> Response<SseBody> {
    let mut response = Response::new(SseBody::frames(frames, keep_alive));
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static(ag_ui_core::SSE_MEDIA_TYPE),
    );
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    headers.insert(VARY, HeaderValue::from_static("accept"));
    response
}

/// A JSON response with `status`.
pub(crate) fn json_response(status: StatusCode, body: Vec<u8>) -> Response<SseBody> {
    let mut response = Response::new(SseBody::full(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

pub(crate) fn rejection_response(rejection: &Rejection) -> Response<SseBody> {
    let mut response = Response::new(SseBody::full(rejection.body()));
    *response.status_mut() =
        StatusCode::from_u16(rejection.status).unwrap_or(StatusCode::BAD_REQUEST);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if rejection.status == 405 {
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("POST"));
    }
    response
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

/// The response body of [`AgentService`]: a refusal's JSON, or the run's SSE frames with
/// keep-alive comments while idle.
pub struct SseBody {
    kind: Kind,
}

enum Kind {
    Full(Option<Bytes>),
    Stream(Box<Streaming>),
}

struct Streaming {
    frames: Pin<Box<dyn Stream<Item = Bytes> + Send>>,
    /// The first frame has been sent (it goes alone, so that it is not delayed).
    started: bool,
    keep_alive: Option<(Duration, Pin<Box<tokio::time::Sleep>>)>,
}

impl std::fmt::Debug for SseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::Full(b) => f.debug_tuple("SseBody::Full").field(b).finish(),
            Kind::Stream(_) => f.debug_tuple("SseBody::Stream").finish_non_exhaustive(),
        }
    }
}

impl SseBody {
    /// A complete body.
    #[must_use]
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        SseBody {
            kind: Kind::Full(Some(bytes.into())),
        }
    }

    /// A run's frames, with a keep-alive comment after each `keep_alive` without a frame.
    /// Must be polled inside a tokio runtime when `keep_alive` is set.
    #[must_use]
    pub fn stream(frames: SseFrames, keep_alive: Option<Duration>) -> Self {
        Self::frames(frames, keep_alive)
    }

    /// Any stream of SSE frames (each a complete message), with keep-alive comments as
    /// [`SseBody::stream`] sends them.
    #[must_use]
    pub fn frames<S, B>(frames: S, keep_alive: Option<Duration>) -> Self
    where
        S: Stream<Item = B> + Send + 'static,
        B: Into<Bytes> + 'static,
    {
        use futures_util::StreamExt;
        let frames = Box::pin(frames.map(Into::into));
        let keep_alive = keep_alive.map(|d| (d, Box::pin(tokio::time::sleep(d))));
        SseBody {
            kind: Kind::Stream(Box::new(Streaming {
                frames,
                started: false,
                keep_alive,
            })),
        }
    }
}

impl http_body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.kind {
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream(streaming) => {
                let Streaming {
                    frames,
                    started,
                    keep_alive,
                } = &mut **streaming;
                // Frames already produced go out together; a frame is never held back
                // waiting for the next one.
                // One frame goes as it is; several are copied into one chunk.
                let mut one: Option<Bytes> = None;
                let mut many: Option<Vec<u8>> = None;
                let mut ended = false;
                loop {
                    match frames.as_mut().poll_next(cx) {
                        Poll::Ready(Some(frame)) => match (&mut many, one.take()) {
                            (Some(buf), _) => buf.extend_from_slice(&frame),
                            (None, Some(first)) => {
                                let mut buf = Vec::with_capacity(
                                    (first.len() + frame.len()).max(COALESCE_BYTES / 4),
                                );
                                buf.extend_from_slice(&first);
                                buf.extend_from_slice(&frame);
                                many = Some(buf);
                            }
                            (None, None) => one = Some(frame),
                        },
                        Poll::Ready(None) => {
                            ended = true;
                            break;
                        }
                        Poll::Pending => break,
                    }
                    let len =
                        many.as_ref().map_or(0, Vec::len) + one.as_ref().map_or(0, Bytes::len);
                    if !*started || len >= COALESCE_BYTES {
                        break;
                    }
                }
                if let Some(buf) = many.map(Bytes::from).or(one) {
                    *started = true;
                    if let Some((interval, sleep)) = keep_alive {
                        sleep
                            .as_mut()
                            .reset(tokio::time::Instant::now() + *interval);
                    }
                    return Poll::Ready(Some(Ok(Frame::data(buf))));
                }
                if ended {
                    return Poll::Ready(None);
                }
                if let Some((interval, sleep)) = keep_alive
                    && sleep.as_mut().poll(cx).is_ready()
                {
                    sleep
                        .as_mut()
                        .reset(tokio::time::Instant::now() + *interval);
                    return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                        KEEP_ALIVE_COMMENT,
                    )))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Full(b) => b.is_none(),
            Kind::Stream(_) => false,
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match &self.kind {
            Kind::Full(Some(b)) => http_body::SizeHint::with_exact(b.len() as u64),
            Kind::Full(None) => http_body::SizeHint::with_exact(0),
            Kind::Stream(_) => http_body::SizeHint::default(),
        }
    }
}
