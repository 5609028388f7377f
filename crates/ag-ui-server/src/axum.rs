//! axum integration (feature `axum`).
//!
//! [`AgentService`] is a `tower` service, so it mounts on any path with
//! [`Router::route_service`](::axum::Router::route_service); [`router`] does that at `/`.

use ::axum::Router;

use crate::{Agent, AgentService};

/// A router serving `agent` at `POST /` with the default settings (see [`AgentService`]).
///
/// Mount it elsewhere with `Router::new().nest_service("/agent", service)` or
/// `Router::new().route_service("/agent", AgentService::new(agent))`.
pub fn router<A: Agent>(agent: A) -> Router {
    service_router(AgentService::new(agent))
}

/// A router serving a configured `service` at `POST /`, and, when it has resumable runs
/// or capabilities configured ([`AgentService::has_routes`]), at the paths below `/` too
/// (`/runs/{runId}/events`, `/runs/{runId}/stop`, `/threads/{threadId}`,
/// `/capabilities`).
///
/// Nest it to serve the agent elsewhere: `Router::new().nest("/agent", service_router(s))`.
pub fn service_router<A: Agent>(service: AgentService<A>) -> Router {
    if service.has_routes() {
        Router::new()
            .route_service("/", service.clone())
            .route_service("/{*rest}", service)
    } else {
        Router::new().route_service("/", service)
    }
}

/// Serves `router` on `listener` with `TCP_NODELAY` on every connection, so that each
/// event's frame leaves as soon as it is written instead of waiting for the client's
/// acknowledgement of the previous one (Nagle's algorithm). Runs until the listener fails.
///
/// The same as `axum::serve(listener.tap_io(|tcp| tcp.set_nodelay(true)), router)`.
///
/// # Errors
/// As [`axum::serve`](::axum::serve::serve).
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    use ::axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        // Without it the stream still works, only later.
        let _ = tcp.set_nodelay(true);
    });
    ::axum::serve(listener, router).await
}
