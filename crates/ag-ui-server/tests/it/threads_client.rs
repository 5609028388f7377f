//! The client's threads API calls (`HttpAgent::threads`) against the server's routes over
//! loopback: paging, reading, renaming, archiving, metadata, deleting, two principals.

use std::time::{Duration, Instant};

use ag_ui_client::{HttpAgent, RunOptions, ThreadsApi};
use ag_ui_core::api::{Archived, Multitask, RunEndKind, RunPhase, ThreadQuery};
use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::{BearerTokens, Runs};
use ag_ui_server::threads::MemoryThreads;
use serde_json::json;

use crate::support::{LIMIT, Server, serve};

async fn server() -> Server {
    let tokens = BearerTokens::new()
        .with_token("alice-s3cret", "alice")
        .unwrap()
        .with_token("bob-s3cret", "bob")
        .unwrap();
    let runs = Runs::in_memory()
        .threads(MemoryThreads::new())
        .bearer(tokens);
    serve(AgentService::new(DemoAgent::new()).runs(runs)).await
}

fn agent(server: &Server, token: &str, thread: &str) -> HttpAgent {
    HttpAgent::builder(server.url())
        .header("authorization", format!("Bearer {token}"))
        .thread_id(thread)
        .build()
        .unwrap()
}

/// Holds one chat run on `thread` as the token's principal, and waits until the thread
/// store has its end.
async fn chat(server: &Server, token: &str, thread: &str) -> ThreadsApi {
    let mut agent = agent(server, token, thread);
    agent.add_user_message("Weather in Amsterdam?");
    let run = agent.run(RunOptions::new().forwarded_props(json!({"scenario": "chat"})));
    let end = tokio::time::timeout(LIMIT, run.finish()).await.unwrap();
    assert!(end.is_ok(), "{:?}", end.error);
    let api = agent.threads();
    let deadline = Instant::now() + LIMIT;
    loop {
        if let Ok(t) = api.get(thread).await
            && t.runs.iter().all(|r| r.status == RunPhase::Ended)
        {
            return api;
        }
        assert!(Instant::now() < deadline, "{thread} did not end in time");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn the_client_lists_pages_reads_changes_and_deletes_threads() {
    let server = server().await;
    let mut api = None;
    for t in ["c1", "c2", "c3", "c4", "c5"] {
        api = Some(chat(&server, "alice-s3cret", t).await);
    }
    let api = api.unwrap();

    // Pages of two, through the pager: five threads, each once, newest first.
    let all = api
        .pages(ThreadQuery::new().limit(2))
        .collect()
        .await
        .unwrap();
    let ids: Vec<&str> = all.iter().map(|t| t.thread_id.as_str()).collect();
    assert_eq!(ids, ["c5", "c4", "c3", "c2", "c1"]);
    let first = api.list(&ThreadQuery::new().limit(2)).await.unwrap();
    assert_eq!(first.threads.len(), 2);
    assert!(first.next_cursor.is_some());

    // One thread, whole.
    let c1 = api.get("c1").await.unwrap();
    assert_eq!(c1.summary.run_count, 1);
    assert_eq!(c1.runs[0].outcome, Some(RunEndKind::Success));
    let roles: Vec<String> = c1
        .messages
        .iter()
        .map(|m| {
            serde_json::to_value(m).unwrap()["role"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(roles.first().map(String::as_str), Some("user"), "{roles:?}");
    assert!(roles.iter().any(|r| r == "assistant"), "{roles:?}");

    // Rename, metadata, archive.
    let renamed = api.rename("c1", Some("Amsterdam")).await.unwrap();
    assert_eq!(renamed.title.as_deref(), Some("Amsterdam"));
    let mut metadata = serde_json::Map::new();
    metadata.insert("topic".into(), json!("weather"));
    let tagged = api.set_metadata("c2", metadata.clone()).await.unwrap();
    assert_eq!(tagged.metadata, metadata);
    let filtered = api
        .list(&ThreadQuery::new().metadata("topic", "weather"))
        .await
        .unwrap();
    assert_eq!(filtered.threads.len(), 1);
    assert_eq!(filtered.threads[0].thread_id, "c2");
    let archived = api.archive("c3", true).await.unwrap();
    assert!(archived.archived);
    let listed = api.pages(ThreadQuery::new()).collect().await.unwrap();
    assert_eq!(listed.len(), 4);
    let only = api
        .pages(ThreadQuery::new().archived(Archived::Only))
        .collect()
        .await
        .unwrap();
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].thread_id, "c3");

    // Delete; then the thread is gone.
    api.delete("c4").await.unwrap();
    let gone = api.get("c4").await.unwrap_err();
    assert_eq!(gone.status(), Some(404), "{gone}");
    let again = api.delete("c4").await.unwrap_err();
    assert_eq!(again.status(), Some(404), "{again}");

    // Bob sees none of it, and cannot change it.
    let bob = agent(&server, "bob-s3cret", "c1").threads();
    assert!(
        bob.pages(ThreadQuery::new().archived(Archived::Any))
            .collect()
            .await
            .unwrap()
            .is_empty()
    );
    for err in [
        bob.get("c1").await.map(|_| ()).unwrap_err(),
        bob.rename("c1", Some("mine"))
            .await
            .map(|_| ())
            .unwrap_err(),
        bob.delete("c1").await.unwrap_err(),
    ] {
        assert_eq!(err.status(), Some(404), "{err}");
    }
    assert_eq!(
        api.get("c1").await.unwrap().summary.title.as_deref(),
        Some("Amsterdam")
    );

    // A bad cursor is the server's 400, with its JSON.
    let bad = api
        .list(&ThreadQuery::new().cursor("not-a-cursor"))
        .await
        .unwrap_err();
    assert_eq!(bad.status(), Some(400), "{bad}");
    assert!(bad.to_string().contains("invalid_cursor"), "{bad}");
}

/// The run ids of `RUN_STARTED` events, in order.
fn started(events: &[ag_ui_client::FollowedEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|f| match &f.event {
            ag_ui_core::Event::RunStarted(e) => Some(e.run_id.to_string()),
            _ => None,
        })
        .collect()
}

/// Follows until `runs` terminal events came (bounded).
async fn follow_runs(
    follow: &mut ag_ui_client::ThreadFollow,
    runs: usize,
) -> Vec<ag_ui_client::FollowedEvent> {
    let mut out = Vec::new();
    let mut ended = 0;
    while ended < runs {
        let next = tokio::time::timeout(LIMIT, follow.next())
            .await
            .expect("the follow stalled")
            .expect("the follow ended")
            .unwrap();
        if matches!(
            next.event,
            ag_ui_core::Event::RunFinished(_) | ag_ui_core::Event::RunError(_)
        ) {
            ended += 1;
        }
        out.push(next);
    }
    out
}

#[tokio::test]
async fn the_client_follows_a_thread_across_runs_and_resumes_after_an_id() {
    let server = server().await;
    let api = agent(&server, "alice-s3cret", "f1").threads();
    let mut follow = api.follow("f1").await.unwrap();
    // The follow is open before the runs start; they go while it is read.
    let runs = tokio::spawn({
        let url = server.url();
        async move {
            for run in ["f1-a", "f1-b"] {
                let mut a = HttpAgent::builder(&url)
                    .header("authorization", "Bearer alice-s3cret")
                    .thread_id("f1")
                    .build()
                    .unwrap();
                a.add_user_message("Weather?");
                let end = a
                    .run(
                        RunOptions::new()
                            .run_id(run)
                            .forwarded_props(json!({"scenario": "chat"})),
                    )
                    .finish()
                    .await;
                assert!(end.is_ok(), "{:?}", end.error);
            }
        }
    });
    let first_two = follow_runs(&mut follow, 2).await;
    runs.await.unwrap();
    assert_eq!(started(&first_two), ["f1-a", "f1-b"]);
    let ids: Vec<&str> = first_two.iter().filter_map(|f| f.id.as_deref()).collect();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(ids.len(), unique.len(), "an id twice: {ids:?}");
    assert_eq!(ids.len(), first_two.len(), "every event has an id");
    let resume_at = follow.last_event_id().map(str::to_owned);
    drop(follow);

    // A third run while nobody follows; a follow resumed after the last id sees it whole.
    let _ = chat(&server, "alice-s3cret", "f1").await;
    let mut resumed = api.follow_after("f1", resume_at).await.unwrap();
    let third = follow_runs(&mut resumed, 1).await;
    assert_eq!(started(&third).len(), 1);
    assert!(
        !started(&third).iter().any(|r| r.starts_with("f1-")),
        "{:?}",
        started(&third)
    );
    assert!(matches!(third[0].event, ag_ui_core::Event::RunStarted(_)));
}

#[tokio::test]
async fn run_options_carry_the_multitask_policy() {
    let server = server().await;
    // A slow run holds the thread (started over plain HTTP, read in the background).
    let slow = crate::support::client()
        .post(server.url())
        .header("authorization", "Bearer alice-s3cret")
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(
            json!({"threadId": "m1", "runId": "m1-slow", "protocolVersion": "1.0",
                   "messages": [{"id": "u1", "role": "user", "content": "slow"}],
                   "tools": [], "context": [], "state": {},
                   "forwardedProps": {"scenario": "slow"}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(slow.status(), 200);
    let mut slow = crate::support::Events::new(slow);
    slow.next().await.unwrap();

    // Without a policy: the service's, reject.
    let mut other = agent(&server, "alice-s3cret", "m1");
    other.add_user_message("another");
    let refused = other.run(RunOptions::new()).finish().await;
    let error = refused.error.expect("a busy thread is refused");
    assert_eq!(error.status(), Some(409), "{error}");
    assert!(error.to_string().contains("thread_busy"), "{error}");

    // With `interrupt`: the slow run ends cancelled, this one runs.
    let end = tokio::time::timeout(
        LIMIT,
        other
            .run(
                RunOptions::new()
                    .multitask(Multitask::Interrupt)
                    .forwarded_props(json!({"scenario": "chat"})),
            )
            .finish(),
    )
    .await
    .unwrap();
    assert!(end.is_ok(), "{:?}", end.error);
    let slow = slow.all().await;
    let last = serde_json::to_value(slow.last().unwrap()).unwrap();
    assert_eq!(last["outcome"]["type"], "cancelled", "{last}");
}
