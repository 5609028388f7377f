//! CORS for an agent endpoint, through tower-http (feature `serve`).
//!
//! A browser page on another origin (a UI served by a dev server on another port, a
//! browser-direct client) may call the agent only when the server answers its preflight
//! and marks its responses for that origin. [`cors_layer`] is tower-http's `CorsLayer`
//! set up for AG-UI: the given origins, `POST` (and the `OPTIONS` preflight), the request
//! headers AG-UI clients send; add `.allow_credentials(true)` for cookies or HTTP
//! authentication (the origins must then be listed, as they are here).
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
//! A preflight from a listed origin gets `204` with `access-control-allow-origin` naming
//! it; one from another origin gets no `access-control-allow-*` headers, and the browser
//! refuses the call.

use std::time::Duration;

use http::{HeaderName, HeaderValue, Method};
pub use tower_http::cors::CorsLayer;

/// How long a browser may cache a preflight's answer: 10 minutes.
pub const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// A `CorsLayer` admitting `origins` (exact `scheme://host[:port]` values) to `POST` with
/// the headers AG-UI clients send (`content-type`, `accept`, `authorization`,
/// `x-request-id`, and CopilotKit's `x-copilotkit-runtime-client-gql-version`), caching
/// preflights for [`PREFLIGHT_MAX_AGE`].
pub fn cors_layer(origins: impl IntoIterator<Item = HeaderValue>) -> CorsLayer {
    let origins: Vec<HeaderValue> = origins.into_iter().collect();
    CorsLayer::new()
        .allow_origin(origins)
        .allow_methods([Method::POST, Method::OPTIONS])
        .allow_headers([
            http::header::CONTENT_TYPE,
            http::header::ACCEPT,
            http::header::AUTHORIZATION,
            HeaderName::from_static("x-request-id"),
            HeaderName::from_static("x-copilotkit-runtime-client-gql-version"),
        ])
        .expose_headers([HeaderName::from_static("x-request-id")])
        .max_age(PREFLIGHT_MAX_AGE)
}
