//! `ag-ui load` against the workspace server with resumable runs (cuts, rejoins on another
//! listener, followers, stops), against a server without them, and against broken streams.

use std::time::Duration;

use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::Runs;
use serde_json::{Value, json};

use crate::support::{Server, ag_ui, demo, temp_file};

/// The demo agent with resumable runs in memory, served on two listeners (two "instances"
/// sharing one run store).
async fn resumable() -> (Server, Server) {
    let service = AgentService::new(DemoAgent::with_pace(Duration::ZERO)).runs(Runs::in_memory());
    let router = ag_ui_server::axum::service_router(service);
    let mut servers = Vec::new();
    for _ in 0..2 {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let router = router.clone();
        let task = tokio::spawn(async move {
            let _ = ag_ui_server::axum::serve(listener, router).await;
        });
        servers.push(Server { url, task });
    }
    let b = servers.pop().unwrap();
    let a = servers.pop().unwrap();
    (a, b)
}

/// How many events one demo run with `-m hello` has.
async fn events_per_run(url: &str) -> u64 {
    let out = ag_ui(&["run", url, "-m", "hello", "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    out.lines().len() as u64
}

/// `ag-ui load ARGS --json`: the exit code and the report.
async fn load(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["load"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = ag_ui(&all).await;
    (out.code, out.json())
}

#[tokio::test(flavor = "multi_thread")]
async fn cut_runs_rejoin_on_another_instance_and_followers_read_them_whole() {
    let (a, b) = resumable().await;
    let per_run = events_per_run(&a.url).await;
    let rejoin = format!("{},{}", b.url, a.url);
    let (code, r) = load(&[
        &a.url,
        "--runs",
        "20",
        "--concurrency",
        "5",
        "--cut-after",
        "3",
        "--followers",
        "2",
        "--rejoin",
        &rejoin,
    ])
    .await;
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["runs"]["done"], 20, "{r:#}");
    assert_eq!(r["runs"]["ok"], 20, "{r:#}");
    assert_eq!(r["runs"]["failed"], 0, "{r:#}");
    assert_eq!(r["runs"]["outcomes"]["success"], 20, "{r:#}");
    assert_eq!(r["streams"]["post"], 20);
    assert_eq!(r["streams"]["rejoins"], 20);
    assert_eq!(r["streams"]["followers"], 40);
    // Every run's stream (its POST and its rejoin) and every follower's read every event.
    assert_eq!(r["events"]["runs"], 20 * per_run, "{r:#}");
    assert_eq!(r["events"]["followers"], 40 * per_run, "{r:#}");
    assert_eq!(r["integrity"]["ok"], true, "{r:#}");
    assert_eq!(r["integrity"]["failures"], 0);
    assert_eq!(r["errors"]["total"], 0, "{r:#}");
    assert_eq!(r["timeToFirstEventMs"]["count"], 20);
    assert_eq!(r["runDurationMs"]["count"], 20);
    // The demo's events carry no `timestamp`: gaps are reported, not latency.
    assert_eq!(r["latencySource"], "none");
    assert!(r["eventLatencyMs"].is_null());
    assert_eq!(r["interArrivalMs"]["count"], 20 * (per_run - 1), "{r:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn runs_stopped_after_two_events_end_cancelled() {
    let (a, _b) = resumable().await;
    // A 1.1 caller: the `cancelled` outcome is a 1.1 member of `RUN_FINISHED`.
    let input = json!({
        "threadId": "t", "runId": "r", "protocolVersion": "1.1",
        "messages": [{"id": "u1", "role": "user", "content": "count"}],
        "tools": [], "context": [], "state": {}, "forwardedProps": {"scenario": "slow"},
    });
    let file = temp_file("slow.json", &input.to_string());
    let (code, r) = load(&[
        &a.url,
        "--runs",
        "3",
        "--concurrency",
        "3",
        "--input",
        file.to_str().unwrap(),
        "--stop-after",
        "2",
        "--followers",
        "1",
    ])
    .await;
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["stops"]["sent"], 3, "{r:#}");
    assert_eq!(r["stops"]["accepted"], 3, "{r:#}");
    assert_eq!(r["runs"]["outcomes"]["cancelled"], 3, "{r:#}");
    assert_eq!(r["runs"]["ok"], 3, "{r:#}");
    assert_eq!(r["integrity"]["ok"], true, "{r:#}");

    // The same with `-m`, declaring 1.1 by `--protocol`.
    let (code, r) = load(&[
        &a.url,
        "--runs",
        "2",
        "-m",
        "count",
        "--protocol",
        "1.1",
        "--forwarded-props",
        r#"{"scenario":"slow"}"#,
        "--stop-after",
        "2",
    ])
    .await;
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["runs"]["outcomes"]["cancelled"], 2, "{r:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_resumable_runs_takes_the_default_load() {
    let server = demo().await;
    let per_run = events_per_run(&server.url).await;
    let (code, r) = load(&[&server.url, "--runs", "12", "-c", "4", "-m", "hi"]).await;
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["runs"]["ok"], 12, "{r:#}");
    assert_eq!(r["events"]["runs"], 12 * per_run);
    assert_eq!(r["streams"]["rejoins"], 0);
    assert_eq!(r["integrity"]["ok"], true, "{r:#}");

    // For a time instead of a count: every run started is read to its end.
    let (code, r) = load(&[&server.url, "--duration", "300ms", "-c", "2"]).await;
    assert_eq!(code, 0, "{r:#}");
    assert!(r["runs"]["done"].as_u64().unwrap() > 0, "{r:#}");
    assert_eq!(r["runs"]["done"], r["runs"]["ok"], "{r:#}");

    // RUN_ERROR is an outcome the agent chose: counted by code, not a failure.
    let (code, r) = load(&[
        &server.url,
        "--runs",
        "4",
        "--forwarded-props",
        r#"{"scenario":"error"}"#,
    ])
    .await;
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["runs"]["runError"], 4, "{r:#}");
    assert_eq!(r["errors"]["runError"]["demo_error"], 4, "{r:#}");

    // A cut needs SSE ids to rejoin from: without them every run fails (exit 5).
    let (code, r) = load(&[&server.url, "--runs", "2", "--cut-after", "2"]).await;
    assert_eq!(code, 5, "{r:#}");
    assert_eq!(r["runs"]["failed"], 2, "{r:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn broken_streams_fail_the_integrity_check() {
    let server = crate::broken::serve().await;
    let (code, r) = load(&[
        &format!("{}/two-terminals", server.url),
        "--runs",
        "4",
        "-c",
        "2",
    ])
    .await;
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["integrity"]["ok"], false, "{r:#}");
    assert_eq!(r["integrity"]["byKind"]["two_terminals"], 4, "{r:#}");
    assert_eq!(r["runs"]["failed"], 4, "{r:#}");

    let (code, r) = load(&[&format!("{}/duplicate-id", server.url), "--runs", "3"]).await;
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["integrity"]["byKind"]["duplicate_id"], 3, "{r:#}");
    let example = &r["integrity"]["examples"][0];
    assert_eq!(example["kind"], "duplicate_id");
    assert_eq!(example["stream"], "post");

    let (code, r) = load(&[&format!("{}/no-terminal", server.url), "--runs", "2"]).await;
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["integrity"]["byKind"]["no_terminal"], 2, "{r:#}");

    // The text report says what broke.
    let out = ag_ui(&[
        "load",
        &format!("{}/two-terminals", server.url),
        "--runs",
        "1",
    ])
    .await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("two_terminals"), "{}", out.stdout);
}
