//! A thread's follow stream over loopback: every run from the follow on, ids that resume.

use std::time::Duration;

use ag_ui_core::SseReader;
use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::Runs;
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::support::{LIMIT, Server, client, input, serve};

const THREAD: &str = "thread-f";

fn body(run: &str) -> Value {
    let mut b = input(run, json!({"scenario": "chat"}));
    b["threadId"] = json!(THREAD);
    b
}

async fn follow(server: &Server, user: &str, last_id: Option<&str>) -> reqwest::Response {
    let mut r = client()
        .get(format!("{}threads/{THREAD}/events", server.url()))
        .header("accept", "text/event-stream")
        .header("x-user", user);
    if let Some(id) = last_id {
        r = r.header("last-event-id", id);
    }
    r.send().await.unwrap()
}

/// SSE events with the id in force for each.
struct Reader {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    reader: SseReader,
}

impl Reader {
    fn new(response: reqwest::Response) -> Self {
        assert_eq!(response.status(), 200);
        Reader {
            body: response.bytes_stream().boxed(),
            reader: SseReader::new(),
        }
    }

    async fn next(&mut self) -> Option<(String, Value)> {
        loop {
            if let Some(m) = self.reader.next_message() {
                let id = self.reader.last_event_id().unwrap_or_default().to_owned();
                return Some((id, serde_json::from_str(&m).unwrap()));
            }
            match tokio::time::timeout(LIMIT, self.body.next()).await.unwrap() {
                Some(Ok(chunk)) => self.reader.feed(&chunk).unwrap(),
                _ => return None,
            }
        }
    }

    async fn all(&mut self) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        while let Some(e) = self.next().await {
            out.push(e);
        }
        out
    }
}

async fn run(server: &Server, user: &str, run: &str) -> Vec<(String, Value)> {
    let r = client()
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .header("x-user", user)
        .body(serde_json::to_vec(&body(run)).unwrap())
        .send()
        .await
        .unwrap();
    Reader::new(r).all().await
}

fn is_terminal(e: &Value) -> bool {
    matches!(e["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR"))
}

fn server_runs() -> Runs {
    Runs::in_memory().authorize(|parts| {
        Ok(parts
            .headers
            .get("x-user")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned))
    })
}

#[tokio::test]
async fn a_follower_gets_three_runs_whole_across_a_reconnect_in_the_second() {
    let service = AgentService::new(DemoAgent::with_pace(Duration::from_millis(20)))
        .keep_alive(Some(Duration::from_millis(50)))
        .runs(server_runs());
    let server = serve(service).await;
    // A run before the follow: not in its stream (it is the thread's run 1).
    run(&server, "alice", "run-0").await;
    let first = follow(&server, "alice", None).await;
    assert_eq!(first.headers()["content-type"], "text/event-stream");
    let url = server.url();
    let mut reader = Reader::new(first);
    let follower = tokio::spawn(async move {
        let mut got = Vec::new();
        let mut terminals = 0;
        let mut reconnected = false;
        while terminals < 3 {
            let (id, event) = reader.next().await.expect("the follow stream ended");
            if is_terminal(&event) {
                terminals += 1;
            }
            got.push((id.clone(), event));
            if !reconnected && id == "3.3" {
                // Gone in the middle of the second run, back with the last id it has.
                drop(std::mem::replace(
                    &mut reader,
                    Reader::new(
                        client()
                            .get(format!("{url}threads/{THREAD}/events"))
                            .header("accept", "text/event-stream")
                            .header("x-user", "alice")
                            .header("last-event-id", id)
                            .send()
                            .await
                            .unwrap(),
                    ),
                ));
                reconnected = true;
            }
        }
        assert!(reconnected);
        got
    });
    // Another principal following the same thread id sees nothing of alice's runs.
    let mut bob = Reader::new(follow(&server, "bob", None).await);
    let mut runs = Vec::new();
    for id in ["run-1", "run-2", "run-3"] {
        runs.push(run(&server, "alice", id).await);
    }
    let got = tokio::time::timeout(LIMIT, follower)
        .await
        .unwrap()
        .unwrap();
    let mut want = Vec::new();
    for (seq, events) in (2..).zip(&runs) {
        assert!(is_terminal(&events.last().unwrap().1));
        for (cursor, event) in events {
            want.push((format!("{seq}.{cursor}"), event.clone()));
        }
    }
    assert_eq!(got, want);
    let nothing = tokio::time::timeout(Duration::from_millis(200), bob.next()).await;
    assert!(nothing.is_err(), "{nothing:?}");
}

#[tokio::test]
async fn a_follow_is_refused_a_bad_last_event_id_and_a_json_accept() {
    let server = serve(AgentService::new(DemoAgent::new()).runs(server_runs())).await;
    for bad in ["7", "a.b", "0.1", "1.-1", "1.2.3"] {
        let r = follow(&server, "alice", Some(bad)).await;
        assert_eq!(r.status(), 400, "{bad}");
        let doc: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
        assert_eq!(doc["code"], "invalid_cursor", "{bad}");
    }
    let r = client()
        .get(format!("{}threads/{THREAD}/events", server.url()))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 406);
    let r = client()
        .post(format!("{}threads/{THREAD}/events", server.url()))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
}

#[tokio::test]
async fn the_follow_route_is_routed_below_a_nested_agent_path() {
    let service = AgentService::new(DemoAgent::new()).runs(Runs::in_memory());
    let router = ::axum::Router::new().nest("/agent", ag_ui_server::axum::service_router(service));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task =
        tokio::spawn(async move { ag_ui_server::axum::serve(listener, router).await.unwrap() });
    let base = format!("http://{addr}/agent");
    let mut events = Reader::new(
        client()
            .get(format!("{base}/threads/t%2F1/events"))
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap(),
    );
    let mut b = input("run-n", json!({"scenario": "chat"}));
    b["threadId"] = json!("t/1");
    let r = client()
        .post(&base)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(&b).unwrap())
        .send()
        .await
        .unwrap();
    let started = Reader::new(r).all().await;
    let (id, first) = events.next().await.unwrap();
    assert_eq!(id, "1.1");
    assert_eq!(first, started[0].1);
    task.abort();
}
