//! Status codes, headers, refusals and keep-alive, over a real socket.

use std::time::Duration;

use ag_ui_server::demo::DemoAgent;
use ag_ui_server::{AgentService, ReportKind};
use serde_json::{Value, json};

use crate::support::{Events, client, input, post, serve};

async fn refusal(response: reqwest::Response, status: u16) -> Value {
    assert_eq!(response.status().as_u16(), status);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "application/json"
    );
    let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    assert_eq!(body["status"], json!(status));
    // The code is both `code` and `error`; `message` says what is wrong.
    assert!(body["code"].is_string(), "{body}");
    assert_eq!(body["code"], body["error"], "{body}");
    assert!(!body["message"].as_str().unwrap().is_empty(), "{body}");
    body
}

#[tokio::test]
async fn a_run_answers_with_sse_headers() {
    let server = serve(AgentService::new(DemoAgent::new())).await;
    let response = post(&server, &input("run-1", json!({}))).await;
    assert_eq!(response.status().as_u16(), 200);
    let h = response.headers();
    assert_eq!(h["content-type"], "text/event-stream");
    assert_eq!(h["cache-control"], "no-cache");
    assert_eq!(h["x-accel-buffering"], "no");
    let events = Events::new(response).all().await;
    ag_ui_core::stream::verify_events(&events).unwrap();
}

#[tokio::test]
async fn accept_excluding_sse_is_406() {
    let server = serve(AgentService::new(DemoAgent::new())).await;
    let mut refused = vec!["application/json", "text/html, text/*;q=0"];
    // With the `proto` feature, `*/*` admits protobuf (spec B1, tests/it/proto.rs).
    if cfg!(not(feature = "proto")) {
        refused.push("text/event-stream;q=0, */*");
    }
    for accept in refused {
        let response = client()
            .post(server.url())
            .header("content-type", "application/json")
            .header("accept", accept)
            .body(serde_json::to_vec(&input("run-1", json!({}))).unwrap())
            .send()
            .await
            .unwrap();
        let body = refusal(response, 406).await;
        assert_eq!(body["error"], "not_acceptable", "{accept}");
    }
    // No Accept header at all admits anything. (reqwest sends `Accept: */*`, which asks for
    // protobuf from a server with the `proto` feature: tests/it/proto.rs.)
    if cfg!(feature = "proto") {
        return;
    }
    let response = client()
        .post(server.url())
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&input("run-1", json!({}))).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let events = Events::new(response).all().await;
    assert_eq!(events.last().unwrap().event_type().as_str(), "RUN_FINISHED");
}

#[tokio::test]
async fn an_invalid_body_is_400_naming_the_place() {
    let server = serve(AgentService::new(DemoAgent::new())).await;
    // (A message with an unknown role is removed with a warning, spec §2.3; a known one
    // with content of the wrong type is refused.)
    let mut bad = input("run-1", json!({}));
    bad["messages"][0]["content"] = json!(7);
    let cases = [
        (serde_json::to_vec(&bad).unwrap(), "/messages/0/content"),
        (
            br#"{"threadId":"t","runId":7,"messages":[]}"#.to_vec(),
            "/runId",
        ),
        (br#"{"threadId":"t","runId":"r"}"#.to_vec(), ""),
        (b"{\"threadId\": \"t\",".to_vec(), ""),
        (b"[]".to_vec(), ""),
    ];
    for (body, pointer) in cases {
        let response = client()
            .post(server.url())
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        let answer = refusal(response, 400).await;
        assert_eq!(answer["error"], "invalid_body");
        assert_eq!(
            answer["pointer"],
            json!(pointer),
            "{}",
            String::from_utf8_lossy(&body)
        );
        assert!(
            answer["message"]
                .as_str()
                .unwrap()
                .contains("RunAgentInput")
        );
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_is_415() {
    let server = serve(AgentService::new(DemoAgent::new())).await;
    let body = serde_json::to_vec(&input("run-1", json!({}))).unwrap();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let mut request = client().post(server.url()).body(body.clone());
        if let Some(ct) = content_type {
            request = request.header("content-type", ct);
        }
        let answer = refusal(request.send().await.unwrap(), 415).await;
        assert_eq!(answer["error"], "unsupported_media_type");
    }
    // Parameters and +json types are JSON.
    for content_type in [
        "application/json; charset=utf-8",
        "application/vnd.example+json",
    ] {
        let response = client()
            .post(server.url())
            .header("content-type", content_type)
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{content_type}");
    }
}

#[tokio::test]
async fn a_body_over_the_limit_is_413() {
    let server = serve(AgentService::new(DemoAgent::new()).body_limit(1024)).await;
    let mut big = input("run-1", json!({}));
    big["messages"][0]["content"] = json!("x".repeat(2000));
    let bytes = serde_json::to_vec(&big).unwrap();
    // With a content-length.
    let response = client()
        .post(server.url())
        .header("content-type", "application/json")
        .body(bytes.clone())
        .send()
        .await
        .unwrap();
    let answer = refusal(response, 413).await;
    assert_eq!(answer["error"], "body_too_large");
    // Chunked, without a content-length: found while reading.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        bytes.chunks(300).map(|c| Ok(c.to_vec())).collect();
    let response = client()
        .post(server.url())
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    refusal(response, 413).await;
    // Under the limit passes.
    let small = serde_json::to_vec(&input("run-1", json!({}))).unwrap();
    assert!(small.len() < 1024);
    let response = client()
        .post(server.url())
        .header("content-type", "application/json")
        .body(small)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn other_methods_are_405() {
    let server = serve(AgentService::new(DemoAgent::new())).await;
    let response = client().get(server.url()).send().await.unwrap();
    assert_eq!(response.headers()["allow"], "POST");
    refusal(response, 405).await;
}

#[tokio::test]
async fn refusals_reach_the_hook() {
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let service = AgentService::new(DemoAgent::new()).hook(move |report| {
        if let ReportKind::Rejected(r) = report.kind() {
            tx.lock().unwrap().send(r.status).unwrap();
        }
    });
    let server = serve(service).await;
    let response = client().post(server.url()).body("{}").send().await.unwrap();
    assert_eq!(response.status().as_u16(), 415);
    assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), 415);
}

#[tokio::test]
async fn an_idle_stream_carries_keep_alive_comments() {
    // The demo's chat scenario pauses between events; keep-alive every 40 ms.
    let service = AgentService::new(DemoAgent::with_pace(Duration::from_millis(200)))
        .keep_alive(Some(Duration::from_millis(40)));
    let server = serve(service).await;
    let response = post(&server, &input("run-1", json!({}))).await;
    let mut events = Events::new(response);
    let all = events.all().await;
    assert_eq!(all.last().unwrap().event_type().as_str(), "RUN_FINISHED");
    let raw = String::from_utf8(events.raw.clone()).unwrap();
    let comments = raw.matches(": keep-alive\n\n").count();
    assert!(comments >= 10, "{comments} keep-alive comments in {raw}");
    // Comments sit between frames: without them, every message is one event of the run.
    let mut reader = ag_ui_core::SseReader::new();
    reader
        .feed(raw.replace(": keep-alive\n\n", "").as_bytes())
        .unwrap();
    let mut again = Vec::new();
    while let Some(m) = reader.next_message() {
        again.push(ag_ui_core::read::from_str::<ag_ui_core::Event>(&m).unwrap());
    }
    assert_eq!(crate::support::values(&again), crate::support::values(&all));
}

#[tokio::test]
async fn no_keep_alive_when_turned_off() {
    let service =
        AgentService::new(DemoAgent::with_pace(Duration::from_millis(100))).keep_alive(None);
    let server = serve(service).await;
    let mut events = Events::new(post(&server, &input("run-1", json!({}))).await);
    events.all().await;
    assert!(!String::from_utf8_lossy(&events.raw).contains("keep-alive"));
}

#[test]
fn defaults_are_the_documented_ones() {
    assert_eq!(ag_ui_server::DEFAULT_KEEP_ALIVE, Duration::from_secs(15));
    assert_eq!(ag_ui_server::DEFAULT_BODY_LIMIT, 8 * 1024 * 1024);
    let debug = format!("{:?}", AgentService::new(DemoAgent::new()));
    assert!(debug.contains("keep_alive: Some(15s)"), "{debug}");
    assert!(debug.contains("body_limit: 8388608"), "{debug}");
    assert!(debug.contains("verify: true"), "{debug}");
}
