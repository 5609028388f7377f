//! `ag-ui threads` against the workspace server keeping threads in memory: list, show,
//! rename, archive, restore, delete.

use std::time::{Duration, Instant};

use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::Runs;
use ag_ui_server::threads::MemoryThreads;
use serde_json::{Value, json};

use crate::support::{Server, ag_ui, temp_file};

/// The demo agent with its runs and threads kept in memory.
async fn serve_with_threads() -> Server {
    let service = AgentService::new(DemoAgent::with_pace(Duration::ZERO))
        .runs(Runs::in_memory().threads(MemoryThreads::new()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let router = ag_ui_server::axum::service_router(service);
    let task = tokio::spawn(async move {
        let _ = ag_ui_server::axum::serve(listener, router).await;
    });
    Server { url, task }
}

/// The ids in `threads list --json` (and extra flags), polled until `want` holds or 10 s.
async fn listed(url: &str, flags: &[&str], want: impl Fn(&[String]) -> bool) -> Vec<String> {
    let started = Instant::now();
    loop {
        let mut args = vec!["threads", url, "--json", "list"];
        args.extend_from_slice(flags);
        let out = ag_ui(&args).await;
        assert_eq!(out.code, 0, "{out:?}");
        let ids: Vec<String> = out
            .json()
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["threadId"].as_str().unwrap().to_owned())
            .collect();
        if want(&ids) || started.elapsed() > Duration::from_secs(10) {
            return ids;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_thread_is_listed_shown_renamed_archived_restored_and_deleted() {
    let server = serve_with_threads().await;
    let url = server.url.as_str();
    let input = json!({
        "threadId": "cli-thread-1",
        "runId": "cli-run-1",
        "messages": [{"id": "u1", "role": "user", "content": "What is the weather?"}],
        "tools": [], "context": [], "state": {}, "forwardedProps": {},
    });
    let file = temp_file("input.json", &input.to_string());
    let out = ag_ui(&["run", url, "--input", file.to_str().unwrap(), "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");

    let has = |ids: &[String]| ids.iter().any(|i| i == "cli-thread-1");
    assert!(has(&listed(url, &[], has).await));

    let out = ag_ui(&["threads", url, "show", "cli-thread-1", "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let detail = out.json();
    assert_eq!(detail["threadId"], "cli-thread-1");
    assert_eq!(detail["messages"][0]["content"], "What is the weather?");
    assert_eq!(detail["state"]["city"], "Amsterdam", "{detail:#}");
    let out = ag_ui(&["threads", url, "show", "cli-thread-1"]).await;
    assert!(
        out.stdout.contains("user: What is the weather?"),
        "{}",
        out.stdout
    );

    let out = ag_ui(&[
        "threads",
        url,
        "--json",
        "rename",
        "cli-thread-1",
        "Weather",
    ])
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["title"], "Weather");

    let out = ag_ui(&["threads", url, "--json", "archive", "cli-thread-1"]).await;
    assert_eq!(out.json()["archived"], true);
    assert!(!has(&listed(url, &[], |ids| !has(ids)).await));
    assert!(has(&listed(url, &["--archived"], has).await));
    let out = ag_ui(&["threads", url, "--json", "restore", "cli-thread-1"]).await;
    assert_eq!(out.json()["archived"], false);

    let out = ag_ui(&["threads", url, "delete", "cli-thread-1"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let out = ag_ui(&["threads", url, "show", "cli-thread-1"]).await;
    assert_eq!(out.code, 5, "{out:?}");
    assert!(out.stderr.contains("404"), "{}", out.stderr);
    let gone: Value = json!(listed(url, &["--all"], |ids| !has(ids)).await);
    assert!(!has(&serde_json::from_value::<Vec<String>>(gone).unwrap()));
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_continues_a_thread_the_server_keeps() {
    let server = serve_with_threads().await;
    let url = server.url.as_str();
    let input = json!({
        "threadId": "cli-thread-2",
        "runId": "cli-run-2",
        "messages": [{"id": "u1", "role": "user", "content": "What is the weather?"}],
        "tools": [], "context": [], "state": {}, "forwardedProps": {},
    });
    let file = temp_file("input.json", &input.to_string());
    assert_eq!(
        ag_ui(&["run", url, "--input", file.to_str().unwrap()])
            .await
            .code,
        0
    );
    let has = |ids: &[String]| ids.iter().any(|i| i == "cli-thread-2");
    assert!(has(&listed(url, &[], has).await));
    let before = ag_ui(&["threads", url, "show", "cli-thread-2", "--json"])
        .await
        .json();
    let kept = before["messages"].as_array().unwrap().len();

    let out = crate::support::ag_ui_with_stdin(
        &["chat", url, "--thread", "cli-thread-2"],
        "And tomorrow?\n/thread\n",
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    // The chat read the thread back, then its run sent the whole history.
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("thread cli-thread-2: "))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    let count: usize = line
        .trim_start_matches("thread cli-thread-2: ")
        .trim_end_matches(" messages")
        .parse()
        .unwrap();
    assert!(count > kept + 1, "{count} after {kept}: {}", out.stdout);

    // An unknown thread: the read-back fails, exit 5.
    let out =
        crate::support::ag_ui_with_stdin(&["chat", url, "--thread", "no-such-thread"], "hi\n")
            .await;
    assert_eq!(out.code, 5, "{out:?}");
}
