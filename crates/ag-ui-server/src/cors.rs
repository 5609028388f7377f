//! CORS for an agent endpoint, through tower-http (feature `serve`).
//!
//! A browser page on another origin (a UI served by a dev server on another port, a
//! browser-direct client) may call the agent only when the server answers its preflight
//! and marks its responses for that origin. [`cors_layer`] is tower-http's `CorsLayer`
//! set up for AG-UI: the given origins, the methods of every route the service answers
//! (`POST` to start a run and to stop one, `GET` to join a run, connect to a thread and
//! read the capabilities), the request headers AG-UI clients send (`Last-Event-ID` of a
//! join included), and the response headers a page may read. Add
//! `.allow_credentials(true)` for cookies or HTTP authentication (the origins must then be
//! listed, as they are here).
//!
//! ```
//! use ag_ui_server::cors::cors_layer;
//! use ag_ui_server::demo::DemoAgent;
//!
//! let cors = cors_layer(["https://app.example.com".parse().unwrap()]).allow_credentials(true);
//! let app = ag_ui_server::axum::router(DemoAgent::new()).layer(cors);
//! # let _ = app;
//! ```
//!
//! Layered on a router, it answers every preflight (an `OPTIONS` request), on every path,
//! itself: `200` with an empty body, the allowed methods and headers,
//! `access-control-max-age`, and, for a listed origin only, `access-control-allow-origin`
//! naming it (without it the browser refuses the call). The other responses to a listed
//! origin carry `access-control-allow-origin` and `access-control-expose-headers`.

use std::time::Duration;

use http::{HeaderName, HeaderValue, Method};
pub use tower_http::cors::CorsLayer;

/// How long a browser may cache a preflight's answer: 10 minutes.
pub const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// A `CorsLayer` admitting `origins` (exact `scheme://host[:port]` values) to `GET` and
/// `POST` (every route of [`AgentService`](crate::AgentService): starting, joining and
/// stopping runs, connecting to threads, the capabilities), with the headers AG-UI clients
/// send (`content-type`, `accept`, `authorization`, `last-event-id`, `x-request-id`,
/// `traceparent`, `tracestate`, and CopilotKit's `x-copilotkit-runtime-client-gql-version`),
/// letting pages read `content-location` (where a run can be joined), `x-request-id`,
/// `traceparent` and `www-authenticate`,
/// caching preflights for [`PREFLIGHT_MAX_AGE`].
pub fn cors_layer(origins: impl IntoIterator<Item = HeaderValue>) -> CorsLayer {
    let origins: Vec<HeaderValue> = origins.into_iter().collect();
    CorsLayer::new()
        .allow_origin(origins)
        .allow_methods([Method::GET, Method::POST, Method::PATCH, Method::DELETE])
        .allow_headers([
            http::header::CONTENT_TYPE,
            http::header::ACCEPT,
            http::header::AUTHORIZATION,
            HeaderName::from_static("last-event-id"),
            HeaderName::from_static("x-request-id"),
            HeaderName::from_static("traceparent"),
            HeaderName::from_static("tracestate"),
            HeaderName::from_static("x-copilotkit-runtime-client-gql-version"),
        ])
        .expose_headers([
            http::header::CONTENT_LOCATION,
            HeaderName::from_static("x-request-id"),
            HeaderName::from_static("traceparent"),
            http::header::WWW_AUTHENTICATE,
        ])
        .max_age(PREFLIGHT_MAX_AGE)
}
