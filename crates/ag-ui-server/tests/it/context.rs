//! What an agent sees of its request (`RunContext`), the axum-native path (`RunInput`,
//! `AgentResponse`), CORS and the authentication example.

use std::collections::HashMap;
use std::sync::Arc;

use ag_ui_builders::RunEmitter;
use ag_ui_core::{Event, RunAgentInput};
use ag_ui_server::axum::{AgentResponse, RunInput};
use ag_ui_server::cors::cors_layer;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::serve::ServeConfig;
use ag_ui_server::{AgentService, AgentStream, ContextAgent, Rejection, RunContext, emit};
use serde_json::{Value, json};

use crate::support::{Events, client, input, post, serve_router, types};

#[path = "../../examples/auth.rs"]
#[allow(dead_code, unreachable_pub)]
mod auth_example;

#[derive(Debug, Clone)]
struct Tenant(&'static str);

/// Tells, in one text message, what it sees of its request.
fn describe(input: RunAgentInput, context: RunContext) -> AgentStream {
    let seen = json!({
        "threadId": context.thread_id().as_str(),
        "runId": context.run_id().as_str(),
        "requestId": context.request_id(),
        "peerIsLoopback": context.peer_addr().map(|a| a.ip().is_loopback()),
        "userAgent": context.headers().get("user-agent").and_then(|v| v.to_str().ok()),
        "tenant": context.extensions().get::<Tenant>().map(|t| t.0),
        "path": context.request().uri.path(),
    });
    emit(RunEmitter::start_for(&input), |mut run| async move {
        run.emit(|r| r.text(seen.to_string())).await?;
        run.emit(RunEmitter::finish).await
    })
}

fn text_of(events: &[Event]) -> Value {
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            Event::TextMessageContent(c) => Some(c.delta.as_str()),
            _ => None,
        })
        .collect();
    serde_json::from_str(&text).unwrap()
}

async fn run_with_headers(url: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream");
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request
        .body(serde_json::to_vec(&input("run-7", json!({}))).unwrap())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn an_agent_sees_headers_extensions_peer_and_ids_without_rebuilding_the_service() {
    let router = ag_ui_server::axum::service_router(AgentService::new(ContextAgent::new(describe)))
        .layer(axum::Extension(Tenant("acme")));
    let server = serve_router(router, ServeConfig::new()).await;
    let response = run_with_headers(
        &server.url(),
        &[("user-agent", "context-test/1"), ("x-request-id", "req-42")],
    )
    .await;
    let events = Events::new(response).all().await;
    assert_eq!(
        text_of(&events),
        json!({
            "threadId": "thread-1", "runId": "run-7", "requestId": "req-42",
            "peerIsLoopback": true, "userAgent": "context-test/1", "tenant": "acme", "path": "/",
        })
    );
}

#[tokio::test]
async fn a_plain_closure_agent_still_serves() {
    // `Fn(RunAgentInput, Cancellation)` agents are unchanged by the context.
    let agent = |input: RunAgentInput, _cancel: ag_ui_server::Cancellation| -> AgentStream {
        emit(RunEmitter::start_for(&input), |mut run| async move {
            run.emit(RunEmitter::finish).await
        })
    };
    let server = serve_router(ag_ui_server::axum::router(agent), ServeConfig::new()).await;
    let events = Events::new(post(&server, &input("run-1", json!({}))).await)
        .all()
        .await;
    assert_eq!(types(&events), ["RUN_STARTED", "RUN_FINISHED"]);
}

type DescribeAgent = ContextAgent<fn(RunAgentInput, RunContext) -> AgentStream>;

#[derive(Clone)]
struct App {
    agent: Arc<DescribeAgent>,
    tenant: &'static str,
}

async fn handler(
    axum::extract::State(app): axum::extract::State<App>,
    run: RunInput,
) -> AgentResponse {
    // The handler's own state and extractors sit beside the run input.
    assert_eq!(app.tenant, "state-tenant");
    AgentResponse::new(&*app.agent, run)
}

#[tokio::test]
async fn the_axum_extractor_and_responder_mount_an_agent_in_a_handler() {
    let app = App {
        agent: Arc::new(ContextAgent::new(describe as fn(_, _) -> _)),
        tenant: "state-tenant",
    };
    let router: axum::Router = axum::Router::new()
        .route("/agents/describe", axum::routing::post(handler))
        .with_state(app)
        .layer(axum::Extension(Tenant("layer-tenant")));
    let server = serve_router(router, ServeConfig::new()).await;
    let url = format!("http://{}/agents/describe", server.addr);
    let response = run_with_headers(&url, &[("x-request-id", "req-9")]).await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["cache-control"], "no-cache");
    assert_eq!(response.headers()["x-accel-buffering"], "no");
    let events = Events::new(response).all().await;
    ag_ui_core::stream::verify_events(&events).unwrap();
    let seen = text_of(&events);
    assert_eq!(seen["tenant"], "layer-tenant");
    assert_eq!(seen["requestId"], "req-9");
    assert_eq!(seen["path"], "/agents/describe");
    // The extractor refuses as the service does, with the JSON body.
    let refused = client()
        .post(&url)
        .header("content-type", "text/plain")
        .body("hi")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 415);
    let json: Value = serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
    assert_eq!(json["error"], "unsupported_media_type");
    let refused = client()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 406);
}

async fn preflight(url: &str, origin: &str) -> reqwest::Response {
    client()
        .request(reqwest::Method::OPTIONS, url)
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn cors_answers_the_preflight_of_a_configured_origin_only() {
    let cors = cors_layer(["http://ui.example:5173".parse().unwrap()]).allow_credentials(true);
    let router = ag_ui_server::axum::router(DemoAgent::new()).layer(cors);
    let server = serve_router(router, ServeConfig::new()).await;

    let allowed = preflight(&server.url(), "http://ui.example:5173").await;
    assert_eq!(allowed.status(), 200);
    let h = allowed.headers();
    assert_eq!(h["access-control-allow-origin"], "http://ui.example:5173");
    assert_eq!(h["access-control-allow-credentials"], "true");
    assert!(
        h["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .contains("POST")
    );
    assert!(
        h["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .contains("content-type")
    );

    let other = preflight(&server.url(), "http://evil.example").await;
    assert!(other.headers().get("access-control-allow-origin").is_none());

    // The run itself carries the header for the allowed origin.
    let response = run_with_headers(&server.url(), &[("origin", "http://ui.example:5173")]).await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        "http://ui.example:5173"
    );
    let events = Events::new(response).all().await;
    assert_eq!(types(&events).last(), Some(&"RUN_FINISHED"));
}

#[tokio::test]
async fn a_401_rejection_from_a_layer_gets_a_bearer_challenge_unless_it_has_its_own() {
    use axum::response::IntoResponse;
    let router = ag_ui_server::axum::router(DemoAgent::new()).layer(axum::middleware::from_fn(
        |request: axum::extract::Request, next: axum::middleware::Next| async move {
            match request
                .headers()
                .get("x-case")
                .and_then(|v| v.to_str().ok())
            {
                Some("plain") => Rejection::new(401, "unauthorized", "who?").into_response(),
                Some("basic") => Rejection::unauthorized(r#"Basic realm="x""#).into_response(),
                Some(_) => Rejection::new(403, "forbidden", "no").into_response(),
                None => next.run(request).await,
            }
        },
    ));
    let server = serve_router(router, ServeConfig::new()).await;
    for (case, status, challenge) in [
        ("plain", 401, Some("Bearer")),
        ("basic", 401, Some(r#"Basic realm="x""#)),
        ("other", 403, None),
    ] {
        let response = run_with_headers(&server.url(), &[("x-case", case)]).await;
        assert_eq!(response.status().as_u16(), status, "{case}");
        let got: Vec<_> = response
            .headers()
            .get_all("www-authenticate")
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect();
        assert_eq!(got, challenge.into_iter().collect::<Vec<_>>(), "{case}");
        let json: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        assert_eq!(json["status"], status);
        assert_eq!(json["code"], json["error"]);
    }
}

#[tokio::test]
async fn the_auth_example_refuses_with_401_json_before_any_run_and_passes_the_user() {
    let tokens = HashMap::from([("s3cret".to_owned(), "ada".to_owned())]);
    let server = serve_router(auth_example::app(tokens), ServeConfig::new()).await;
    for headers in [vec![], vec![("authorization", "Bearer wrong")]] {
        let response = run_with_headers(&server.url(), &headers).await;
        assert_eq!(response.status().as_u16(), 401);
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        assert_eq!(response.headers()["content-type"], "application/json");
        let json: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        assert_eq!(json["status"], 401);
        assert_eq!(json["error"], "unauthorized");
    }
    let response = run_with_headers(&server.url(), &[("authorization", "Bearer s3cret")]).await;
    assert_eq!(response.status().as_u16(), 200);
    let events = Events::new(response).all().await;
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            Event::TextMessageContent(c) => Some(c.delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Hello, ada!");
}

/// The principal an agent sees: the `Principal` an authentication layer put in the
/// request's extensions; with resumable runs, the one `Runs::authorize` names (in its place);
/// none when neither names one.
#[tokio::test]
async fn the_principal_reaches_the_agent_from_a_layer_or_from_runs_authorize() {
    use ag_ui_server::Principal;
    use ag_ui_server::runs::Runs;
    fn principal_agent() -> impl ag_ui_server::Agent {
        ContextAgent::new(|input: RunAgentInput, context: RunContext| {
            let seen = json!({"principal": context.principal()}).to_string();
            emit(RunEmitter::start_for(&input), move |mut run| async move {
                run.emit(|r| r.text(seen)).await?;
                run.emit(RunEmitter::finish).await
            })
        })
    }
    async fn seen(router: axum::Router, headers: &[(&str, &str)]) -> Value {
        let server = serve_router(router, ServeConfig::new()).await;
        let response = run_with_headers(&server.url(), headers).await;
        assert_eq!(response.status().as_u16(), 200);
        let events = Events::new(response).all().await;
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                Event::TextMessageContent(c) => Some(c.delta.as_str()),
                _ => None,
            })
            .collect();
        serde_json::from_str(&text).unwrap()
    }
    let layer = axum::Extension(Principal("ada".to_owned()));
    let plain = ag_ui_server::axum::router(principal_agent());
    assert_eq!(seen(plain.clone(), &[]).await, json!({"principal": null}));
    assert_eq!(
        seen(plain.layer(layer.clone()), &[]).await,
        json!({"principal": "ada"})
    );
    let runs = Runs::in_memory().authorize(|parts| {
        Ok(parts
            .headers
            .get("x-user")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned))
    });
    let service = AgentService::new(principal_agent()).runs(runs);
    let resumable = ag_ui_server::axum::service_router(service).layer(layer);
    assert_eq!(
        seen(resumable, &[("x-user", "bob")]).await,
        json!({"principal": "bob"})
    );
}
