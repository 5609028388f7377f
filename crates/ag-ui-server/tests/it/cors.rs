//! `cors::cors_layer` on every route of a service with runs and capabilities, mounted at
//! the top and nested: the preflight of each route (status, allowed origin, methods and
//! headers), and the routes' responses to the allowed origin. (A real browser page makes
//! the same calls in `scripts/interop/browser/check-browser.mjs`.)

use ag_ui_core::AgentCapabilities;
use ag_ui_server::AgentService;
use ag_ui_server::axum::service_router;
use ag_ui_server::cors::cors_layer;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::Runs;
use ag_ui_server::serve::ServeConfig;
use serde_json::{Value, json};

use crate::support::{Events, Server, client, input, serve_router, types};

const PAGE: &str = "http://ui.example:5173";

/// The service with runs and capabilities behind the CORS layer for [`PAGE`], at the top
/// or nested under `/agent` (the layer on the outer router); the agent's URL.
async fn app(nested: bool) -> (Server, String) {
    let service = AgentService::new(DemoAgent::new())
        .runs(Runs::in_memory())
        .capabilities(AgentCapabilities::new());
    let router = service_router(service);
    let router = if nested {
        axum::Router::new().nest("/agent", router)
    } else {
        router
    };
    let router = router.layer(cors_layer([PAGE.parse().unwrap()]));
    let server = serve_router(router, ServeConfig::new()).await;
    let agent = if nested {
        format!("http://{}/agent", server.addr)
    } else {
        format!("http://{}/", server.addr)
    };
    (server, agent)
}

/// The comma-separated items of a header, lowercased.
fn items(response: &reqwest::Response, name: &str) -> Vec<String> {
    response
        .headers()
        .get_all(name)
        .iter()
        .flat_map(|v| v.to_str().unwrap().split(','))
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

async fn preflight(url: &str, origin: &str, method: &str, headers: &str) -> reqwest::Response {
    client()
        .request(reqwest::Method::OPTIONS, url)
        .header("origin", origin)
        .header("access-control-request-method", method)
        .header("access-control-request-headers", headers)
        .send()
        .await
        .unwrap()
}

/// Each route: its URL below the agent's, its method, the headers a page sends with it.
fn routes(agent: &str) -> Vec<(String, &'static str, &'static [&'static str])> {
    let below = |p: &str| format!("{}/{p}", agent.trim_end_matches('/'));
    vec![
        (
            agent.to_owned(),
            "POST",
            &["content-type", "x-request-id", "traceparent", "tracestate"][..],
        ),
        (
            below("runs/run-1/events"),
            "GET",
            &["last-event-id", "x-request-id"][..],
        ),
        (
            below("runs/run-1/stop"),
            "POST",
            &["authorization", "x-request-id"][..],
        ),
        (
            below("threads/thread-1"),
            "GET",
            &["last-event-id", "x-request-id"][..],
        ),
        (
            below("threads/thread-1"),
            "PATCH",
            &["content-type", "authorization"][..],
        ),
        (below("threads/thread-1"), "DELETE", &["authorization"][..]),
        (below("threads"), "GET", &["authorization"][..]),
        (below("capabilities"), "GET", &["x-request-id"][..]),
    ]
}

#[tokio::test]
async fn the_preflight_of_every_route_admits_its_method_and_headers_for_the_origin() {
    for nested in [false, true] {
        let (_server, agent) = app(nested).await;
        for (url, method, headers) in routes(&agent) {
            let answer = preflight(&url, PAGE, method, &headers.join(", ")).await;
            assert_eq!(answer.status(), 200, "{url}");
            assert_eq!(answer.headers()["access-control-allow-origin"], PAGE);
            assert_eq!(answer.headers()["access-control-max-age"], "600");
            let methods = items(&answer, "access-control-allow-methods");
            assert!(
                methods.contains(&method.to_ascii_lowercase()),
                "{url}: {method} not in {methods:?}"
            );
            let allowed = items(&answer, "access-control-allow-headers");
            for h in headers.iter().chain(&["accept", "content-type"]) {
                assert!(
                    allowed.iter().any(|a| a == h),
                    "{url}: {h} not in {allowed:?}"
                );
            }
            assert!(
                answer.bytes().await.unwrap().is_empty(),
                "{url}: a body on the preflight"
            );

            let foreign = preflight(&url, "http://evil.example", method, "x-request-id").await;
            assert_eq!(foreign.status(), 200, "{url}");
            assert!(
                foreign
                    .headers()
                    .get("access-control-allow-origin")
                    .is_none(),
                "{url}: another origin admitted"
            );
        }
    }
}

#[tokio::test]
async fn every_route_answers_the_allowed_origin_and_lets_it_read_the_join_location() {
    for nested in [false, true] {
        let (_server, agent) = app(nested).await;
        let below = |p: &str| format!("{}/{p}", agent.trim_end_matches('/'));
        let started = client()
            .post(&agent)
            .header("origin", PAGE)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(serde_json::to_vec(&input("run-1", json!({"scenario": "chat"}))).unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(started.status(), 200);
        assert_eq!(started.headers()["access-control-allow-origin"], PAGE);
        let exposed = items(&started, "access-control-expose-headers");
        for h in [
            "content-location",
            "x-request-id",
            "traceparent",
            "www-authenticate",
        ] {
            assert!(exposed.iter().any(|e| e == h), "{h} not in {exposed:?}");
        }
        let location = started.headers()["content-location"]
            .to_str()
            .unwrap()
            .to_owned();
        let run = Events::new(started).all().await;

        let origin = url_origin(&agent);
        let joined = client()
            .get(format!("{origin}{location}"))
            .header("origin", PAGE)
            .header("last-event-id", "1")
            .send()
            .await
            .unwrap();
        assert_eq!(joined.status(), 200);
        assert_eq!(joined.headers()["access-control-allow-origin"], PAGE);
        assert_eq!(types(&Events::new(joined).all().await), types(&run)[1..]);

        for (url, method) in [
            (below("threads/thread-1"), reqwest::Method::GET),
            (below("threads"), reqwest::Method::GET),
            (below("capabilities"), reqwest::Method::GET),
            (below("runs/run-1/stop"), reqwest::Method::POST),
        ] {
            let answer = client()
                .request(method, &url)
                .header("origin", PAGE)
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 200, "{url}");
            assert_eq!(answer.headers()["access-control-allow-origin"], PAGE);
        }

        // A refusal, too, carries the header: the page can read the JSON.
        let refused = client()
            .get(below("runs/run-none/events"))
            .header("origin", PAGE)
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 404);
        assert_eq!(refused.headers()["access-control-allow-origin"], PAGE);
        let body: Value = serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
        assert_eq!(body["code"], "run_not_found");
    }
}

/// `http://host:port` of a URL.
fn url_origin(url: &str) -> String {
    let rest = url.trim_start_matches("http://");
    let host = rest.split('/').next().unwrap();
    format!("http://{host}")
}
