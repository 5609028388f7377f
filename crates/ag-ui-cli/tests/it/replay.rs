//! `ag-ui record` and `ag-ui replay`: a recorded run of the demo agent served again, with the
//! request's ids, at its pace or faster; the replay passes `ag-ui check`.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::support::{LIMIT, ag_ui, demo, temp_file};

/// A running `ag-ui replay`, killed when dropped.
struct Replay {
    url: String,
    _child: tokio::process::Child,
}

/// Starts `ag-ui replay FILE --listen 127.0.0.1:0 ARGS` and reads the address it prints first.
async fn replay(file: &std::path::Path, args: &[&str]) -> Replay {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .arg("replay")
        .arg(file)
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(LIMIT, lines.next_line())
        .await
        .expect("replay printed no address in time")
        .unwrap()
        .expect("replay ended before printing its address");
    let addr: std::net::SocketAddr = first.parse().unwrap();
    assert!(addr.ip().is_loopback() && addr.port() != 0, "{first}");
    Replay {
        url: format!("http://{first}/any/path"),
        _child: child,
    }
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_run_is_replayed_with_the_requests_ids_and_passes_the_check() {
    let server = demo().await;
    let dir = temp_file("placeholder", "");
    let file = dir.with_file_name("run.jsonl");
    let out = ag_ui(&[
        "record",
        &server.url,
        "-m",
        "What is the weather?",
        "-o",
        file.to_str().unwrap(),
    ])
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Each line is {"ms", "event"}, in time order.
    let ms: Vec<u64> = lines.iter().map(|l| l["ms"].as_u64().unwrap()).collect();
    assert!(ms.windows(2).all(|w| w[0] <= w[1]), "{ms:?}");
    let recorded: Vec<Value> = lines.iter().map(|l| l["event"].clone()).collect();
    assert_eq!(recorded[0]["type"], "RUN_STARTED");

    let replay = replay(&file, &["--speed", "0"]).await;
    let out = ag_ui(&["run", &replay.url, "-m", "anything", "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let events = out.lines();
    assert_eq!(types(&events), types(&recorded));
    // The request's ids, not the recorded ones; the rest as recorded.
    let run_id = events[0]["runId"].as_str().unwrap();
    assert_ne!(run_id, recorded[0]["runId"].as_str().unwrap());
    assert_eq!(events.last().unwrap()["runId"], run_id);
    let text = |es: &[Value]| -> String {
        es.iter()
            .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
            .map(|e| e["delta"].as_str().unwrap())
            .collect()
    };
    assert_eq!(text(&events), text(&recorded));

    // The replay is a conforming server: nothing wrong, malformed input refused.
    let out = ag_ui(&["check", &replay.url, "--json"]).await;
    let report = out.json();
    assert_eq!(out.code, 0, "{report:#}");
    assert_eq!(report["errors"], 0);
    let malformed = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "malformed")
        .unwrap();
    assert_eq!(malformed["status"], 400);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_replay_keeps_the_recorded_pace_divided_by_the_speed() {
    let recording: String = [
        json!({"ms": 0, "event": {"type": "RUN_STARTED", "threadId": "t0", "runId": "r0"}}),
        json!({"ms": 600, "event": {"type": "RUN_FINISHED", "threadId": "t0", "runId": "r0"}}),
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect();
    let file = temp_file("paced.jsonl", &recording);
    let replay = replay(&file, &["--speed", "2"]).await;
    let started = Instant::now();
    let out = ag_ui(&["run", &replay.url, "-m", "hi", "--json"]).await;
    let took = started.elapsed();
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.lines().len(), 2);
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(3000), "{took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_that_is_not_a_recording_is_bad_usage() {
    let file = temp_file("bad.jsonl", "{\"ms\": 1}\n");
    let out = ag_ui(&["replay", file.to_str().unwrap()]).await;
    assert_eq!(out.code, 64, "{out:?}");
    let out = ag_ui(&["replay", "/no/such/recording.jsonl"]).await;
    assert_eq!(out.code, 64, "{out:?}");
}
