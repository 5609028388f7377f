//! A start on a thread with a run going on: the multitask policies, each with two starts
//! racing, over loopback.

use std::time::{Duration, Instant};

use ag_ui_core::api::Multitask;
use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::Runs;
use serde_json::{Value, json};

use crate::support::{Events, Server, client, input, serve};

fn body(run: &str, scenario: &str) -> Value {
    let mut b = input(run, json!({"scenario": scenario}));
    b["threadId"] = json!("thread-mt");
    b
}

async fn start(server: &Server, query: &str, body: Value) -> reqwest::Response {
    client()
        .post(format!("{}{query}", server.url()))
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(&body).unwrap())
        .send()
        .await
        .unwrap()
}

async fn stop(server: &Server, run: &str) {
    let r = client()
        .post(format!("{}runs/{run}/stop", server.url()))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
}

/// The events of a response, with when the first and the last came.
async fn timed(response: reqwest::Response) -> (Vec<Value>, Instant, Instant) {
    let mut events = Events::new(response);
    let mut out = Vec::new();
    let mut first = None;
    let mut last = Instant::now();
    while let Some(e) = events.next().await {
        last = Instant::now();
        first.get_or_insert(last);
        out.push(serde_json::to_value(&e).unwrap());
    }
    (out, first.unwrap_or(last), last)
}

fn run_id(events: &[Value]) -> String {
    events[0]["runId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn reject_refuses_exactly_one_of_two_racing_starts_with_409() {
    let server = serve(AgentService::new(DemoAgent::new()).runs(Runs::in_memory())).await;
    let (a, b) = tokio::join!(
        start(&server, "", body("run-a", "slow")),
        start(&server, "?multitask=reject", body("run-b", "slow"))
    );
    let mut statuses = [a.status().as_u16(), b.status().as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 409]);
    let (winner, refused, won) = if a.status() == 200 {
        (a, b, "run-a")
    } else {
        (b, a, "run-b")
    };
    let doc: Value = serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
    assert_eq!(doc["code"], "thread_busy");
    assert!(doc["message"].as_str().unwrap().contains(won), "{doc}");
    let mut events = Events::new(winner);
    assert_eq!(
        serde_json::to_value(events.next().await.unwrap()).unwrap()["type"],
        "RUN_STARTED"
    );
    stop(&server, won).await;
    let rest = events.all().await;
    assert_eq!(
        serde_json::to_value(rest.last().unwrap()).unwrap()["type"],
        "RUN_FINISHED"
    );
    // Ended: the thread takes a new run.
    let again = start(&server, "", body("run-c", "chat")).await;
    assert_eq!(again.status(), 200);
    let (events, _, _) = timed(again).await;
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
}

#[tokio::test]
async fn a_bad_policy_is_refused_with_400() {
    let server = serve(AgentService::new(DemoAgent::new()).runs(Runs::in_memory())).await;
    for query in [
        "?multitask=later",
        "?multitask=",
        "?multitask=reject&multitask=enqueue",
    ] {
        let r = start(&server, query, body("run-x", "chat")).await;
        assert_eq!(r.status(), 400, "{query}");
        let doc: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
        assert_eq!(doc["code"], "invalid_parameter", "{query}");
        assert_eq!(doc["pointer"], "multitask", "{query}");
    }
}

#[tokio::test]
async fn enqueue_runs_both_racing_starts_one_after_the_other() {
    // The service's policy, no query: enqueue.
    let service = AgentService::new(DemoAgent::with_pace(Duration::from_millis(40)))
        .keep_alive(Some(Duration::from_millis(30)))
        .runs(Runs::in_memory().multitask(Multitask::Enqueue));
    let server = serve(service).await;
    let (a, b) = tokio::join!(
        start(&server, "", body("run-a", "chat")),
        start(&server, "", body("run-b", "chat"))
    );
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    let ((ea, a0, a1), (eb, b0, b1)) = tokio::join!(timed(a), timed(b));
    for events in [&ea, &eb] {
        assert_eq!(events[0]["type"], "RUN_STARTED");
        let last = events.last().unwrap();
        assert_eq!(last["type"], "RUN_FINISHED", "{events:?}");
        assert_eq!(last["outcome"]["type"], "success", "{last}");
    }
    assert_ne!(run_id(&ea), run_id(&eb));
    // One ran after the other: the later one's first event came after the earlier's last
    // (the two connections may deliver a few milliseconds apart; the runs last longer).
    let (earlier, later_start) = if a0 <= b0 {
        ((a0, a1), b0)
    } else {
        ((b0, b1), a0)
    };
    assert!(earlier.1 - earlier.0 > Duration::from_millis(200));
    assert!(later_start + Duration::from_millis(50) >= earlier.1);
}

#[tokio::test]
async fn an_enqueued_start_sends_keep_alive_comments_while_it_waits() {
    let service = AgentService::new(DemoAgent::new())
        .keep_alive(Some(Duration::from_millis(30)))
        .runs(Runs::in_memory());
    let server = serve(service).await;
    let running = start(&server, "", body("run-a", "slow")).await;
    let mut running = Events::new(running);
    running.next().await.unwrap();
    let queued = start(&server, "?multitask=enqueue", body("run-b", "chat")).await;
    assert_eq!(queued.status(), 200);
    let mut queued = Events::new(queued);
    let waiting = tokio::time::timeout(Duration::from_millis(300), queued.next()).await;
    assert!(
        waiting.is_err(),
        "the queued run started while the thread was busy"
    );
    assert!(
        queued.raw.starts_with(b":"),
        "{:?}",
        String::from_utf8_lossy(&queued.raw)
    );
    stop(&server, "run-a").await;
    let first = running.all().await;
    assert_eq!(
        serde_json::to_value(first.last().unwrap()).unwrap()["outcome"]["type"],
        "cancelled"
    );
    let rest = queued.all().await;
    let json: Vec<Value> = rest
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(json[0]["type"], "RUN_STARTED");
    assert_eq!(json[0]["runId"], "run-b");
    assert_eq!(json.last().unwrap()["outcome"]["type"], "success");
}

async fn interrupts(policy: &str) {
    let server = serve(AgentService::new(DemoAgent::new()).runs(Runs::in_memory())).await;
    let query = format!("?multitask={policy}");
    let (a, b) = tokio::join!(
        start(&server, &query, body("run-a", "slow")),
        start(&server, &query, body("run-b", "slow"))
    );
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    let mut ta = tokio::spawn(timed(a));
    let mut tb = tokio::spawn(timed(b));
    // The run that took the thread first was stopped by the other: it ends first.
    let (first, other, other_run) = tokio::select! {
        r = &mut ta => (r.unwrap(), tb, "run-b"),
        r = &mut tb => (r.unwrap(), ta, "run-a"),
    };
    let (events, _, _) = first;
    assert_eq!(events[0]["type"], "RUN_STARTED");
    assert_ne!(run_id(&events), other_run);
    let terminal = events.last().unwrap();
    assert_eq!(terminal["type"], "RUN_FINISHED", "{events:?}");
    assert_eq!(terminal["outcome"]["type"], "cancelled", "{terminal}");
    stop(&server, other_run).await;
    let (events, _, _) = other.await.unwrap();
    assert_eq!(events[0]["type"], "RUN_STARTED");
    assert_eq!(run_id(&events), other_run);
    assert_eq!(events.last().unwrap()["outcome"]["type"], "cancelled");
}

#[tokio::test]
async fn interrupt_stops_the_running_run_before_the_racing_one_starts() {
    interrupts("interrupt").await;
}

#[tokio::test]
async fn rollback_stops_the_running_run_before_the_racing_one_starts() {
    interrupts("rollback").await;
}

#[tokio::test]
async fn two_principals_threads_of_one_id_do_not_block_each_other() {
    let runs = Runs::in_memory().authorize(|parts| {
        Ok(parts
            .headers
            .get("x-user")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned))
    });
    let server = serve(AgentService::new(DemoAgent::new()).runs(runs)).await;
    let as_user = |user: &'static str, run: &'static str| {
        client()
            .post(server.url())
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .header("x-user", user)
            .body(serde_json::to_vec(&body(run, "slow")).unwrap())
            .send()
    };
    let (a, b) = tokio::join!(as_user("alice", "run-a"), as_user("bob", "run-b"));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    // Alice's thread is busy for alice alone.
    let refused = as_user("alice", "run-c").await.unwrap();
    assert_eq!(refused.status(), 409);
    for (user, run) in [("alice", "run-a"), ("bob", "run-b")] {
        let r = client()
            .post(format!("{}runs/{run}/stop", server.url()))
            .header("x-user", user)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
    }
    for response in [a, b] {
        let (events, _, _) = timed(response).await;
        assert_eq!(events.last().unwrap()["outcome"]["type"], "cancelled");
    }
}

/// Reads the stored thread as JSON until `done` holds of it (bounded).
async fn stored(server: &Server, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let r = client()
            .get(format!("{}threads/thread-mt", server.url()))
            .send()
            .await
            .unwrap();
        if r.status() == 200 {
            let v: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
            if done(&v) {
                return v;
            }
        }
        assert!(Instant::now() < deadline, "the stored thread never settled");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `rollback` takes back what the cancelled run added to the stored thread (its input's
/// message and its answer), keeping its record marked rolled back; `interrupt` keeps it.
#[tokio::test]
async fn rollback_takes_back_what_the_cancelled_run_added_and_interrupt_does_not() {
    for policy in ["rollback", "interrupt"] {
        let runs = Runs::in_memory().threads(ag_ui_server::threads::MemoryThreads::new());
        let server = serve(AgentService::new(DemoAgent::new()).runs(runs)).await;
        let mut first = body("run-a", "slow");
        first["messages"] = json!([{"id": "u-a", "role": "user", "content": "first"}]);
        let a = start(&server, "", first).await;
        assert_eq!(a.status(), 200);
        let mut a = Events::new(a);
        // The first run is going on (its first event is out) before the second comes.
        a.next().await.unwrap();
        let mut second = body("run-b", "chat");
        second["messages"] = json!([{"id": "u-b", "role": "user", "content": "second"}]);
        let b = start(&server, &format!("?multitask={policy}"), second).await;
        assert_eq!(b.status(), 200, "{policy}");
        let (events, _, _) = timed(b).await;
        assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED", "{policy}");
        let thread = stored(&server, |t| {
            t["runs"]
                .as_array()
                .is_some_and(|r| r.len() == 2 && r.iter().all(|r| r["status"] == "ended"))
        })
        .await;
        let ids: Vec<&str> = thread["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap())
            .collect();
        let first_run = &thread["runs"][0];
        assert_eq!(first_run["runId"], "run-a");
        assert_eq!(first_run["outcome"], "cancelled", "{policy}: {first_run}");
        assert!(ids.contains(&"u-b"), "{policy}: {ids:?}");
        if policy == "rollback" {
            assert_eq!(first_run["rolledBack"], true, "{first_run}");
            assert!(!ids.contains(&"u-a"), "rolled back, yet {ids:?}");
            assert!(!ids.iter().any(|id| id.starts_with("run-a")), "{ids:?}");
        } else {
            assert_eq!(first_run["rolledBack"], false, "{first_run}");
        }
    }
}
