//! Bearer-token authentication of resumable runs (`Runs::bearer`) over loopback: every
//! route refuses a request without a known token, before anything else; each principal
//! sees only its own runs and threads.

use ag_ui_core::AgentCapabilities;
use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::{BearerTokens, Runs};
use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{Events, Server, client, input, serve, types};

async fn server() -> Server {
    let tokens = BearerTokens::new()
        .with_token("alice-s3cret", "alice")
        .unwrap()
        .with_token("bob-s3cret", "bob")
        .unwrap();
    serve(
        AgentService::new(DemoAgent::new())
            .capabilities(AgentCapabilities::new())
            .runs(Runs::in_memory().bearer(tokens)),
    )
    .await
}

/// Sends `method` to `url` as a client of every route would (JSON body, SSE accepted),
/// with `authorization` when given.
async fn send(
    method: &Method,
    url: &str,
    authorization: Option<&str>,
    body: &Value,
) -> reqwest::Response {
    let mut request = client()
        .request(method.clone(), url)
        .header("accept", "text/event-stream")
        .header("content-type", "application/json")
        .body(serde_json::to_vec(body).unwrap());
    if let Some(a) = authorization {
        request = request.header("authorization", a);
    }
    request.send().await.unwrap()
}

fn challenges(response: &reqwest::Response) -> Vec<String> {
    response
        .headers()
        .get_all("www-authenticate")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn every_route_refuses_a_request_without_a_known_token_with_a_challenge() {
    let server = server().await;
    let url = server.url();
    // A run of alice's, so that the join, stop and thread routes have something to find.
    let started = send(
        &Method::POST,
        &url,
        Some("Bearer alice-s3cret"),
        &input("run-a", json!({"scenario": "chat"})),
    )
    .await;
    assert_eq!(started.status(), 200);
    let events = Events::new(started).all().await;
    assert_eq!(types(&events).last(), Some(&"RUN_FINISHED"));

    let routes = [
        (Method::POST, url.clone()),
        (Method::GET, format!("{url}runs/run-a/events")),
        (Method::POST, format!("{url}runs/run-a/stop")),
        (Method::GET, format!("{url}threads/thread-1")),
        (Method::GET, format!("{url}capabilities")),
        // A path the service does not serve, and a wrong method: refused first too, so a
        // stranger learns nothing of what exists.
        (Method::POST, format!("{url}threads/thread-1")),
        (Method::GET, format!("{url}runs//events")),
    ];
    let body = input("run-stranger", json!({"scenario": "chat"}));
    for (method, route) in &routes {
        for (authorization, challenge) in [
            (None, r#"Bearer realm="ag-ui""#),
            (Some("Basic YWxpY2U6eA=="), r#"Bearer realm="ag-ui""#),
            (
                Some("Bearer alice-s3cre"),
                r#"Bearer realm="ag-ui", error="invalid_token""#,
            ),
            (
                Some("Bearer alice-s3cret2"),
                r#"Bearer realm="ag-ui", error="invalid_token""#,
            ),
        ] {
            let refused = send(method, route, authorization, &body).await;
            let what = format!("{method} {route} with {authorization:?}");
            assert_eq!(refused.status(), 401, "{what}");
            assert_eq!(challenges(&refused), [challenge], "{what}");
            assert_eq!(
                refused.headers()["content-type"],
                "application/json",
                "{what}"
            );
            let doc: Value = serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
            assert_eq!(doc["status"], 401, "{what}");
            assert_eq!(doc["code"], "unauthorized", "{what}");
            assert_eq!(doc["error"], "unauthorized", "{what}");
        }
    }
    // The refused starts started nothing: the run id is free for a known principal.
    let later = send(&Method::POST, &url, Some("Bearer bob-s3cret"), &body).await;
    assert_eq!(later.status(), 200, "a refused start left no run behind");
    let events = Events::new(later).all().await;
    assert_eq!(types(&events).last(), Some(&"RUN_FINISHED"));
    // Capabilities, for a known token.
    let caps = send(
        &Method::GET,
        &format!("{url}capabilities"),
        Some("Bearer bob-s3cret"),
        &body,
    )
    .await;
    assert_eq!(caps.status(), 200);
}

#[tokio::test]
async fn a_principal_sees_none_of_anothers_runs_and_threads() {
    let server = server().await;
    let url = server.url();
    let alice = Some("Bearer alice-s3cret");
    let bob = Some("Bearer bob-s3cret");
    let mut body = input("run-a", json!({"scenario": "chat"}));
    body["threadId"] = json!("thread-alice");
    let started = send(&Method::POST, &url, alice, &body).await;
    let events = Events::new(started).all().await;
    assert_eq!(types(&events).last(), Some(&"RUN_FINISHED"));

    for (method, route, code) in [
        (
            Method::GET,
            format!("{url}runs/run-a/events"),
            "run_not_found",
        ),
        (
            Method::POST,
            format!("{url}runs/run-a/stop"),
            "run_not_found",
        ),
        (
            Method::GET,
            format!("{url}threads/thread-alice"),
            "thread_not_found",
        ),
    ] {
        let other = send(&method, &route, bob, &body).await;
        assert_eq!(other.status(), 404, "bob: {method} {route}");
        let doc: Value = serde_json::from_slice(&other.bytes().await.unwrap()).unwrap();
        assert_eq!(doc["code"], code, "bob: {method} {route}");
        let own = send(&method, &route, alice, &body).await;
        assert_eq!(own.status(), 200, "alice: {method} {route}");
    }
    // Alice's thread, as she reads it back, holds her run's conversation.
    let thread = send(
        &Method::GET,
        &format!("{url}threads/thread-alice"),
        alice,
        &body,
    )
    .await;
    let snapshot = Events::new(thread).all().await;
    assert_eq!(types(&snapshot)[..2], ["RUN_STARTED", "MESSAGES_SNAPSHOT"]);
}
