//! axum integration (feature `axum`).
//!
//! [`AgentService`] is a `tower` service, so it mounts on any path with
//! [`Router::route_service`](::axum::Router::route_service); [`router`] does that at `/`.
//!
//! To mount an agent in a handler of your own, next to your extractors and state, take the
//! run's input with the [`RunInput`] extractor and answer with an [`AgentResponse`]:
//!
//! ```
//! use ag_ui_server::axum::{AgentResponse, RunInput};
//! use ag_ui_server::demo::DemoAgent;
//! use axum::extract::State;
//!
//! #[derive(Clone)]
//! struct App {
//!     agent: std::sync::Arc<DemoAgent>,
//! }
//!
//! async fn run(State(app): State<App>, run: RunInput) -> AgentResponse {
//!     // `run.context()` holds the request's headers, extensions and peer address.
//!     AgentResponse::new(&*app.agent, run)
//! }
//!
//! let app: axum::Router = axum::Router::new()
//!     .route("/agent", axum::routing::post(run))
//!     .with_state(App { agent: std::sync::Arc::new(DemoAgent::new()) });
//! # let _ = app;
//! ```

use std::time::Duration;

use ::axum::Router;
use ::axum::extract::{FromRequest, Request};
use ::axum::response::{IntoResponse, Response};
use ag_ui_core::{RunAgentInput, Warning};
use bytes::Bytes;
use futures_core::Stream;

use crate::serve::ServeConfig;
use crate::service::read_run_request;
use crate::{
    Agent, AgentService, DEFAULT_BODY_LIMIT, DEFAULT_KEEP_ALIVE, GuardOptions, Rejection,
    ReportKind, RunContext, RunGuard, SseBody,
};

/// A router serving `agent` at `POST /` with the default settings (see [`AgentService`]);
/// other paths get a JSON 404.
///
/// Mount it elsewhere with `Router::new().nest("/agent", router(agent))`, or mount the
/// service at one path with `Router::new().route_service("/agent", AgentService::new(agent))`.
/// (`nest_service` hands the service every path below its prefix: the service takes any
/// path that is not one of its routes for the agent's, so `POST /agent/anything` would
/// start a run.)
pub fn router<A: Agent>(agent: A) -> Router {
    service_router(AgentService::new(agent))
}

/// A router serving a configured `service` at `POST /`, and, when it has resumable runs
/// or capabilities configured ([`AgentService::has_routes`]), at each of the paths below
/// `/` it answers (`/runs/{runId}/events`, `/runs/{runId}/stop`, `/threads/{threadId}`,
/// `/threads/{threadId}/events`, `/capabilities`), and, with metrics configured ([`AgentService::has_metrics`]), at
/// `/metrics`, each routed by itself; any other path gets a JSON 404
/// ([`not_found`]), whatever its method: a `POST` to a path the service does not serve
/// starts no run.
///
/// Nest it to serve the agent elsewhere: `Router::new().nest("/agent", service_router(s))`
/// serves the agent at `POST /agent`, its routes below `/agent/`, the JSON 404 for the
/// other paths below `/agent/` (`/agent/` itself, with the slash, is left to the outer
/// router, as axum's `nest` does); the routes' links (`Content-Location`) name the path
/// the client used. Add [`cors_layer`](crate::cors::cors_layer) with `.layer(...)` on the
/// router (nested or not) to let browser pages from other origins use every route.
pub fn service_router<A: Agent>(service: AgentService<A>) -> Router {
    let mut router = Router::new().route_service("/", service.clone());
    if service.has_routes() {
        for pattern in crate::runs::http::PATTERNS {
            router = router.route_service(pattern, service.clone());
        }
    }
    if service.has_metrics() {
        router = router.route_service("/metrics", service.clone());
    }
    router.fallback(not_found)
}

/// The JSON 404 for a path nothing is served at (the fallback of [`router`]).
pub async fn not_found(uri: ::axum::http::Uri) -> Rejection {
    Rejection::not_found(uri.path())
}

/// Serves `router` on `listener` with the production server and its default settings
/// ([`crate::serve::serve`] with [`ServeConfig::default`]: HTTP/1.1 and HTTP/2, header,
/// body and idle timeouts, a connection limit, `TCP_NODELAY`). Runs until the listener
/// fails.
///
/// # Errors
/// As [`crate::serve::serve`].
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    serve_with(listener, router, ServeConfig::default()).await
}

/// [`serve`] with the settings of `config`.
///
/// # Errors
/// As [`crate::serve::serve`].
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    router: Router,
    config: ServeConfig,
) -> std::io::Result<()> {
    crate::serve::serve(listener, router, config).await
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        self.to_response().map(::axum::body::Body::new)
    }
}

/// The run input of a request, as an axum extractor: checks the method (`POST`), that
/// `Accept` admits `text/event-stream`, that the body is JSON and within the limit
/// ([`DEFAULT_BODY_LIMIT`], or a [`BodyLimit`] in the request's extensions), reads it with
/// the forgiving 1.0 reader and makes the run's [`RunContext`] from the request's head.
/// A request refused is answered with the crate's JSON [`Rejection`] (400, 405, 406, 408,
/// 413, 415), as [`AgentService`] answers it.
#[derive(Debug)]
pub struct RunInput {
    input: RunAgentInput,
    warnings: Vec<Warning>,
    context: RunContext,
    /// The request asks for the protobuf transport.
    #[cfg(feature = "proto")]
    proto: bool,
}

impl RunInput {
    /// The run's input.
    #[must_use]
    pub fn input(&self) -> &RunAgentInput {
        &self.input
    }

    /// What the forgiving reader forgave in the request (reported when the run starts
    /// through [`AgentResponse::new`]).
    #[must_use]
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The run's context: the request's head, its request id, the peer's address.
    #[must_use]
    pub fn context(&self) -> &RunContext {
        &self.context
    }

    /// The input, the warnings and the context.
    #[must_use]
    pub fn into_parts(self) -> (RunAgentInput, Vec<Warning>, RunContext) {
        (self.input, self.warnings, self.context)
    }
}

/// The body limit of the [`RunInput`] extractor, when put in the request's extensions
/// (by `axum::Extension(BodyLimit(bytes))` as a layer, for example).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::exhaustive_structs)] // a newtype that users construct
pub struct BodyLimit(pub usize);

impl<S: Send + Sync> FromRequest<S> for RunInput {
    type Rejection = Rejection;

    async fn from_request(request: Request, _state: &S) -> Result<Self, Rejection> {
        let limit = request
            .extensions()
            .get::<BodyLimit>()
            .map_or(DEFAULT_BODY_LIMIT, |l| l.0);
        let (parts, body) = request.into_parts();
        match read_run_request(parts, body, limit).await {
            Ok(read) => Ok(RunInput {
                input: read.input,
                warnings: read.warnings,
                context: read.context,
                #[cfg(feature = "proto")]
                proto: read.proto,
            }),
            Err(refused) => Err(refused.rejection),
        }
    }
}

/// An axum responder for an agent's run: the guarded event stream as SSE with the
/// response headers, keep-alive comments every 15 s while idle (`with_keep_alive`), the
/// run cancelled when the client goes away (the body is dropped), every stream ending with
/// `RUN_FINISHED` or `RUN_ERROR` (see [`RunGuard`]).
#[derive(Debug)]
pub struct AgentResponse {
    body: SseBody,
}

impl AgentResponse {
    /// Starts `agent` on the extracted `run` with the default [`GuardOptions`] (the
    /// forgiven input is reported, within the run's span).
    #[must_use]
    pub fn new(agent: &dyn Agent, run: RunInput) -> Self {
        Self::with_options(agent, run, GuardOptions::default())
    }

    /// Starts `agent` on the extracted `run`, guarded with `options`; answered as protobuf
    /// when the request asked for it (`accepts_proto`, feature `proto`), else as SSE.
    #[must_use]
    pub fn with_options(agent: &dyn Agent, run: RunInput, options: GuardOptions) -> Self {
        let guard = RunGuard::start_with_context(agent, run.input, run.context, options);
        if !run.warnings.is_empty() {
            guard.report(ReportKind::Forgiven(&run.warnings));
        }
        #[cfg(feature = "proto")]
        if run.proto {
            return AgentResponse {
                body: SseBody::proto_stream(guard.proto_frames()),
            };
        }
        Self::from_guard(guard)
    }

    /// Streams a run already guarded.
    #[must_use]
    pub fn from_guard(guard: RunGuard) -> Self {
        AgentResponse {
            body: SseBody::stream(guard.frames(), Some(DEFAULT_KEEP_ALIVE)),
        }
    }

    /// Streams SSE frames encoded elsewhere (a run log, a replay; see [`SseBody::frames`]).
    #[must_use]
    pub fn from_frames(frames: impl Stream<Item = Bytes> + Send + 'static) -> Self {
        AgentResponse {
            body: SseBody::frames(frames, Some(DEFAULT_KEEP_ALIVE)),
        }
    }

    /// This response with keep-alive comments after `interval` without a frame (`None`:
    /// never).
    #[must_use]
    pub fn with_keep_alive(self, interval: Option<Duration>) -> Self {
        AgentResponse {
            body: self.body.with_keep_alive(interval),
        }
    }
}

impl IntoResponse for AgentResponse {
    fn into_response(self) -> Response {
        self.body.into_response().map(::axum::body::Body::new)
    }
}
