//! The client's threads API calls (`HttpAgent::threads`) against the server's routes over
//! loopback: paging, reading, renaming, archiving, metadata, deleting, two principals.

use std::time::{Duration, Instant};

use ag_ui_client::{HttpAgent, RunOptions, ThreadsApi};
use ag_ui_core::api::{Archived, RunEndKind, RunPhase, ThreadQuery};
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
