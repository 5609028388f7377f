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

/// A router serving a configured `service` at `POST /`.
pub fn service_router<A: Agent>(service: AgentService<A>) -> Router {
    Router::new().route_service("/", service)
}
