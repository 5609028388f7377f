//! `ag-ui run` against the demo agent: exit codes by outcome, `--json` output, usage errors.

use serde_json::json;

use crate::broken;
use crate::support::{ag_ui, demo, temp_file};

fn types(events: &[serde_json::Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn json_prints_every_event_of_a_successful_run_and_exits_0() {
    let server = demo().await;
    let out = ag_ui(&["run", &server.url, "-m", "What is the weather?", "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.lines();
    let types = types(&events);
    assert_eq!(types.first(), Some(&"RUN_STARTED"));
    assert_eq!(types.last(), Some(&"RUN_FINISHED"));
    for t in ["TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS", "STATE_DELTA"] {
        assert!(types.contains(&t), "no {t} in {types:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_terminal_view_shows_text_tool_call_and_state_diff() {
    let server = demo().await;
    let out = ag_ui(&["run", &server.url, "-m", "What is the weather?"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("→ get_weather"), "{}", out.stdout);
    assert!(out.stdout.contains("(thinking: "), "{}", out.stdout);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("+ /") || l.starts_with("~ /")),
        "no state diff line in {}",
        out.stdout
    );
    assert!(out.stdout.contains("success"), "{}", out.stdout);
    // Not a terminal: no escape codes.
    assert!(!out.stdout.contains('\x1b'));
}

/// An input file selecting a demo scenario.
fn input(scenario: &str) -> String {
    json!({
        "threadId": "t-1",
        "runId": format!("r-{scenario}"),
        "messages": [{"id": "u1", "role": "user", "content": "Hello"}],
        "tools": [{"name": "pick_city", "description": "Ask the user for a city", "parameters": {"type": "object"}}],
        "context": [],
        "state": {},
        "forwardedProps": {"scenario": scenario},
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_exit_code_follows_the_outcome() {
    let server = demo().await;
    for (scenario, code, last) in [
        ("error", 2, "RUN_ERROR"),
        ("interrupt", 3, "RUN_FINISHED"),
        ("frontend_tool", 0, "RUN_FINISHED"),
    ] {
        let file = temp_file("input.json", &input(scenario));
        let out = ag_ui(&[
            "run",
            &server.url,
            "--input",
            file.to_str().unwrap(),
            "--json",
        ])
        .await;
        assert_eq!(out.code, code, "{scenario}: {out:?}");
        let events = out.lines();
        assert_eq!(events.last().unwrap()["type"], last, "{scenario}");
        // The input's ids are used as they are.
        assert_eq!(events[0]["runId"], format!("r-{scenario}"));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn forwarded_props_go_with_a_message() {
    let server = demo().await;
    let props = r#"{"scenario":"error"}"#;
    let out = ag_ui(&[
        "run",
        &server.url,
        "-m",
        "hi",
        "--forwarded-props",
        props,
        "--json",
    ])
    .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(out.lines().last().unwrap()["code"], "demo_error");
    let out = ag_ui(&["run", &server.url, "-m", "hi", "--forwarded-props", "[1]"]).await;
    assert_eq!(out.code, 64, "{out:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_server_exits_5_and_bad_usage_exits_64() {
    // A port that was free a moment ago: nothing listens there.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/");
    let out = ag_ui(&["run", &url, "-m", "hi", "--json"]).await;
    assert_eq!(out.code, 5, "{out:?}");
    assert!(out.stdout.is_empty());

    // Neither -m nor --input; both; an unknown flag; a header without a colon.
    for args in [
        vec!["run", url.as_str()],
        vec!["run", url.as_str(), "-m", "a", "--input", "x.json"],
        vec!["run", url.as_str(), "-m", "a", "--frobnicate"],
        vec!["run", url.as_str(), "-m", "a", "--header", "nocolon"],
        vec!["nosuchcommand"],
    ] {
        let out = ag_ui(&args).await;
        assert_eq!(out.code, 64, "{args:?}: {out:?}");
    }
    // An input file that is not a run input.
    let file = temp_file("bad.json", r#"{"threadId": 5}"#);
    let out = ag_ui(&["run", &url, "--input", file.to_str().unwrap()]).await;
    assert_eq!(out.code, 64, "{out:?}");
    assert!(out.stderr.contains("threadId"), "{}", out.stderr);
    // An address without a scheme, to run and to load: bad usage, saying so.
    let bare = format!("127.0.0.1:{port}");
    for args in [
        vec!["run", bare.as_str(), "-m", "hi"],
        vec!["load", bare.as_str(), "--runs", "1"],
    ] {
        let out = ag_ui(&args).await;
        assert_eq!(out.code, 64, "{args:?}: {out:?}");
        assert!(out.stderr.contains("is not a URL"), "{}", out.stderr);
    }
    // HTTPS in a build without TLS: bad usage, with the way out (with TLS: nothing listens).
    let out = ag_ui(&["run", "https://127.0.0.1:1/", "-m", "hi"]).await;
    if cfg!(any(feature = "rustls", feature = "native-tls")) {
        assert_eq!(out.code, 5, "{out:?}");
    } else {
        assert_eq!(out.code, 64, "{out:?}");
        assert!(out.stderr.contains("--features rustls"), "{}", out.stderr);
    }
    // --help is not an error.
    assert_eq!(ag_ui(&["--help"]).await.code, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_run_exits_4_and_a_broken_answer_exits_5() {
    let server = broken::serve().await;
    let out = ag_ui(&[
        "run",
        &format!("{}/cancelled", server.url),
        "-m",
        "hi",
        "--json",
    ])
    .await;
    assert_eq!(out.code, 4, "{out:?}");
    assert_eq!(out.lines().last().unwrap()["outcome"]["type"], "cancelled");
    for (path, said) in [
        ("/html500", "500"),
        ("/text-plain", "text/plain"),
        ("/no-terminal", ""),
        ("/no-run-started", "L1"),
    ] {
        let out = ag_ui(&[
            "run",
            &format!("{}{path}", server.url),
            "-m",
            "hi",
            "--json",
        ])
        .await;
        assert_eq!(out.code, 5, "{path}: {out:?}");
        assert!(out.stderr.contains(said), "{path}: {}", out.stderr);
        // What arrived before the failure is printed, each line an event.
        for event in out.lines() {
            assert!(event["type"].is_string());
        }
    }
    // The events of a stream cut before its terminal event are all printed.
    let out = ag_ui(&[
        "run",
        &format!("{}/no-terminal", server.url),
        "-m",
        "hi",
        "--json",
    ])
    .await;
    assert_eq!(out.lines().last().unwrap()["type"], "TEXT_MESSAGE_END");
}

/// `--accept proto`: the server answers the protobuf transport (its `Content-Type`, seen
/// by a layer in front of it) and the run prints the same events as over SSE.
#[tokio::test(flavor = "multi_thread")]
async fn accept_proto_reads_the_protobuf_transport_with_the_same_events() {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let record = Arc::clone(&seen);
    let router = ag_ui_server::axum::router(ag_ui_server::demo::DemoAgent::with_pace(
        std::time::Duration::ZERO,
    ))
    .layer(axum::middleware::map_response(
        move |r: axum::response::Response| {
            let record = Arc::clone(&record);
            async move {
                let ct = r
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                record.lock().unwrap().push(ct);
                r
            }
        },
    ));
    let task = tokio::spawn(async move {
        let _ = ag_ui_server::axum::serve(listener, router).await;
    });
    let sse = ag_ui(&["run", &url, "-m", "What is the weather?", "--json"]).await;
    let proto = ag_ui(&[
        "run",
        &url,
        "-m",
        "What is the weather?",
        "--json",
        "--accept",
        "proto",
    ])
    .await;
    task.abort();
    assert_eq!((sse.code, proto.code), (0, 0), "{sse:?} {proto:?}");
    assert_eq!(
        *seen.lock().unwrap(),
        ["text/event-stream", "application/vnd.ag-ui.event+proto"]
    );
    // The same events but for the ids and timestamps each run makes anew.
    let strip = |events: Vec<serde_json::Value>| -> Vec<serde_json::Value> {
        events
            .into_iter()
            .map(|mut e| {
                if let Some(o) = e.as_object_mut() {
                    for k in [
                        "threadId",
                        "runId",
                        "messageId",
                        "toolCallId",
                        "parentMessageId",
                        "timestamp",
                    ] {
                        o.remove(k);
                    }
                }
                e
            })
            .collect()
    };
    let (a, b) = (strip(sse.lines()), strip(proto.lines()));
    assert_eq!(types(&a), types(&b));
    assert_eq!(a, b);
}
