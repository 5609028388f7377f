//! What `axum::service_router` routes, mounted at the top and nested under a path: every
//! route of a service with runs and capabilities works, and any other path gets the JSON
//! 404 (a `POST` there starts no run).

use ag_ui_core::AgentCapabilities;
use ag_ui_server::AgentService;
use ag_ui_server::axum::service_router;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::Runs;
use ag_ui_server::serve::ServeConfig;
use serde_json::{Value, json};

use crate::support::{Events, Server, client, input, serve_router, types};

fn full_service() -> AgentService<DemoAgent> {
    AgentService::new(DemoAgent::new())
        .runs(Runs::in_memory())
        .capabilities(AgentCapabilities::new())
}

/// The service's router at the top, or nested under `/agent`; returns the server and the
/// agent's URL (no trailing slash).
async fn mounted(service: AgentService<DemoAgent>, nested: bool) -> (Server, String) {
    let router = service_router(service);
    let router = if nested {
        axum::Router::new().nest("/agent", router)
    } else {
        router
    };
    let server = serve_router(router, ServeConfig::new()).await;
    let base = if nested {
        format!("http://{}/agent", server.addr)
    } else {
        format!("http://{}", server.addr)
    };
    (server, base)
}

async fn start(url: &str, run: &str) -> reqwest::Response {
    client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(&input(run, json!({"scenario": "chat"}))).unwrap())
        .send()
        .await
        .unwrap()
}

/// A JSON refusal: its status and parsed body, which must carry `code` equal to `error`.
async fn refusal(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    assert_eq!(response.headers()["content-type"], "application/json");
    let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    assert_eq!(body["status"], json!(status), "{body}");
    assert_eq!(body["code"], body["error"], "{body}");
    (status, body)
}

#[tokio::test]
async fn every_route_works_at_the_top_and_nested() {
    for nested in [false, true] {
        let (_server, base) = mounted(full_service(), nested).await;
        let agent = if nested {
            base.clone()
        } else {
            format!("{base}/")
        };
        let response = start(&agent, "run-1").await;
        assert_eq!(response.status(), 200, "nested: {nested}");
        let prefix = if nested { "/agent" } else { "" };
        assert_eq!(
            response.headers()["content-location"],
            format!("{prefix}/runs/run-1/events").as_str()
        );
        let started = Events::new(response).all().await;
        assert_eq!(types(&started).last(), Some(&"RUN_FINISHED"));

        let joined = client()
            .get(format!("{base}/runs/run-1/events"))
            .header("last-event-id", "2")
            .send()
            .await
            .unwrap();
        assert_eq!(joined.status(), 200, "nested: {nested}");
        let joined = Events::new(joined).all().await;
        assert_eq!(types(&joined), types(&started)[2..], "nested: {nested}");

        let thread = client()
            .get(format!("{base}/threads/thread-1"))
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(thread.status(), 200, "nested: {nested}");
        let thread = Events::new(thread).all().await;
        assert_eq!(
            types(&thread),
            [
                "RUN_STARTED",
                "MESSAGES_SNAPSHOT",
                "STATE_SNAPSHOT",
                "RUN_FINISHED"
            ]
        );

        let caps = client()
            .get(format!("{base}/capabilities"))
            .send()
            .await
            .unwrap();
        assert_eq!(caps.status(), 200, "nested: {nested}");
        let caps: Value = serde_json::from_slice(&caps.bytes().await.unwrap()).unwrap();
        assert_eq!(caps["transport"]["resumable"], true);

        let stop = client()
            .post(format!("{base}/runs/run-1/stop"))
            .send()
            .await
            .unwrap();
        assert_eq!(stop.status(), 200, "nested: {nested}");
        let stop: Value = serde_json::from_slice(&stop.bytes().await.unwrap()).unwrap();
        assert_eq!(stop, json!({"runId": "run-1", "status": "ended"}));

        // A wrong method on a route is its 405, with the route's method in `allow`.
        let wrong = client()
            .post(format!("{base}/capabilities"))
            .send()
            .await
            .unwrap();
        assert_eq!(wrong.headers()["allow"], "GET");
        let (status, body) = refusal(wrong).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (405, Some("method_not_allowed"))
        );
    }
}

#[tokio::test]
async fn a_path_the_service_does_not_serve_is_a_json_404_and_starts_no_run() {
    for nested in [false, true] {
        let (_server, base) = mounted(full_service(), nested).await;
        let paths = [
            "/no/such/path",
            "/runs/run-x",
            "/runs/run-x/other",
            "/runs//events",
            "/runs/%FF/stop",
            "/capabilities/more",
            "/agent",
        ];
        for path in paths {
            let response = start(&format!("{base}{path}"), "run-x").await;
            let (status, body) = refusal(response).await;
            assert_eq!(status, 404, "nested: {nested}, {path}: {body}");
            assert_eq!(body["code"], "not_found", "{path}");
            let message = body["message"].as_str().unwrap();
            assert!(
                message.contains("nothing is served at"),
                "{path}: {message}"
            );
        }
        // GET and DELETE alike.
        for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
            let response = client()
                .request(method.clone(), format!("{base}/no/such/path"))
                .send()
                .await
                .unwrap();
            assert_eq!(refusal(response).await.0, 404, "{method}");
        }
        // None of those started a run: run-x is unknown.
        let join = client()
            .get(format!("{base}/runs/run-x/events"))
            .send()
            .await
            .unwrap();
        let (status, body) = refusal(join).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (404, Some("run_not_found"))
        );
        // The agent path itself still starts runs.
        let agent = if nested {
            base.clone()
        } else {
            format!("{base}/")
        };
        assert_eq!(start(&agent, "run-y").await.status(), 200);
    }
}

#[tokio::test]
async fn with_capabilities_only_or_nothing_configured_other_paths_start_no_run_either() {
    let caps = AgentService::new(DemoAgent::new()).capabilities(AgentCapabilities::new());
    let plain = AgentService::new(DemoAgent::new());
    for (service, routes) in [(caps, true), (plain, false)] {
        let (_server, base) = mounted(service, false).await;
        for path in ["/no/such/path", "/runs/run-x/events", "/runs/run-x/stop"] {
            let response = start(&format!("{base}{path}"), "run-x").await;
            let (status, body) = refusal(response).await;
            assert_eq!(status, 404, "{path}: {body}");
        }
        let caps = client()
            .get(format!("{base}/capabilities"))
            .send()
            .await
            .unwrap();
        assert_eq!(caps.status() == 200, routes);
        assert_eq!(start(&format!("{base}/"), "run-y").await.status(), 200);
    }
}

#[tokio::test]
async fn the_service_mounted_at_one_path_serves_that_path_only() {
    let router = axum::Router::new()
        .route_service("/agent", AgentService::new(DemoAgent::new()))
        .fallback(ag_ui_server::axum::not_found);
    let server = serve_router(router, ServeConfig::new()).await;
    let base = format!("http://{}/agent", server.addr);
    let response = start(&base, "run-1").await;
    assert_eq!(response.status(), 200);
    let events = Events::new(response).all().await;
    assert_eq!(types(&events).last(), Some(&"RUN_FINISHED"));
    let (status, _) = refusal(start(&format!("{base}/no/such/path"), "run-2").await).await;
    assert_eq!(status, 404);
}
