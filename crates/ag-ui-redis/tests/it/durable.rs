//! The production setup end to end: two `serve_redis` processes with Redis for the live
//! runs and one PostgreSQL for the threads (`--threads postgres://…`). A thread written
//! through one instance is read whole through the other, and from PostgreSQL alone once
//! Redis holds nothing of it.

use ag_ui_core::ThreadState;
use ag_ui_testkit::postgres::Postgres;
use serde_json::{Value, json};

use crate::support::{RedisServer, get, post, read, serve_process};

/// `GET {url}threads/{id}` as the thread it holds: messages, state, and how the last run
/// ended (not the snapshot's own ids).
async fn thread_of(url: &str, id: &str) -> Value {
    let r = read(
        get(format!("{url}threads/{id}"))
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        r.status,
        200,
        "GET {url}threads/{id}: {}",
        String::from_utf8_lossy(&r.body)
    );
    let mut thread = ThreadState::new();
    for e in &r.events {
        thread.apply(e);
    }
    let last = serde_json::to_value(r.events.last().unwrap()).unwrap();
    // A `RUN_FINISHED` without an outcome is a success.
    let outcome = match (&last["type"], &last["outcome"]) {
        (Value::String(t), Value::Null) if t == "RUN_FINISHED" => json!({"type": "success"}),
        (_, o) => o.clone(),
    };
    json!({
        "messages": thread.messages(),
        "state": thread.state(),
        "end": {"type": last["type"], "outcome": outcome, "code": last["code"]},
    })
}

fn input(thread: &str, run: &str, scenario: &str, messages: &Value, state: &Value) -> Value {
    json!({
        "protocolVersion": "1.0",
        "threadId": thread,
        "runId": run,
        "messages": messages,
        "tools": [],
        "context": [],
        "state": state,
        "forwardedProps": {"scenario": scenario},
    })
}

#[tokio::test]
async fn two_instances_on_one_postgres_serve_the_same_threads() {
    let redis = RedisServer::start();
    let postgres = Postgres::start();
    let pg = postgres.url();
    let args = |prefix: &'static str| {
        vec![
            "--store".to_owned(),
            redis.url(),
            "--prefix".to_owned(),
            prefix.to_owned(),
            "--threads".to_owned(),
            pg.clone(),
        ]
    };
    let a_args = args("live");
    let b_args = args("live");
    let a = serve_process(
        "127.0.0.1:0",
        &a_args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let b = serve_process(
        "127.0.0.1:0",
        &b_args.iter().map(String::as_str).collect::<Vec<_>>(),
    );

    // A first turn through A, a second through B (carrying the thread as B gives it back).
    let first = input(
        "thread-shared",
        "run-1",
        "chat",
        &json!([{"id": "u1", "role": "user", "content": "What is the weather in Amsterdam?"}]),
        &json!({}),
    );
    let r = read(post(a.url(), &first).send().await.unwrap()).await;
    assert_eq!(r.status, 200);
    let through_a = thread_of(&a.url(), "thread-shared").await;
    let through_b = thread_of(&b.url(), "thread-shared").await;
    assert_eq!(through_b, through_a);
    assert_eq!(through_a["end"]["outcome"]["type"], "success");

    let mut messages = through_b["messages"].clone();
    messages
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "u2", "role": "user", "content": "Send Ada an email"}));
    let second = input(
        "thread-shared",
        "run-2",
        "interrupt",
        &messages,
        &through_b["state"],
    );
    let r = read(post(b.url(), &second).send().await.unwrap()).await;
    assert_eq!(r.status, 200);
    let through_a = thread_of(&a.url(), "thread-shared").await;
    assert_eq!(thread_of(&b.url(), "thread-shared").await, through_a);
    assert_eq!(through_a["end"]["outcome"]["type"], "interrupt");
    let n = through_a["messages"].as_array().unwrap().len();
    assert!(n > messages.as_array().unwrap().len(), "{through_a:#}");

    // Both instances gone; one started again with a fresh Redis prefix (Redis holds
    // nothing of the thread there): the thread comes from PostgreSQL, whole.
    drop(a);
    drop(b);
    let c_args = args("fresh");
    let c = serve_process(
        "127.0.0.1:0",
        &c_args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(thread_of(&c.url(), "thread-shared").await, through_a);
}
