//! `ag-ui check`: nothing wrong on the workspace's server and on a valid recording; each
//! planted violation named by its rule, in broken recordings and on a broken server.

use serde_json::{Value, json};

use crate::broken;
use std::time::Duration;

use ag_ui_server::demo::DemoAgent;

use crate::support::{ag_ui, demo, serve_demo, temp_file};

/// The rule ids of the findings of a `--json` report with `severity`.
fn rules(report: &Value, severity: &str) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == severity)
        .map(|f| f["rule"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_workspace_server_passes_every_case_of_the_suite() {
    // Also as a production server keeps interrupts: a paused thread refuses other input.
    let tracking = serve_demo(DemoAgent::with_pace(Duration::ZERO).track_interrupts()).await;
    let out = ag_ui(&["check", &tracking.url, "--json"]).await;
    assert_eq!(out.code, 0, "{:#}", out.json());
    assert_eq!(out.json()["warnings"], 0);

    let server = demo().await;
    let out = ag_ui(&["check", &server.url, "--json"]).await;
    let report = out.json();
    assert_eq!(out.code, 0, "{report:#}");
    assert_eq!(report["ok"], true);
    assert_eq!(rules(&report, "error"), Vec::<String>::new(), "{report:#}");
    assert_eq!(
        rules(&report, "warning"),
        Vec::<String>::new(),
        "{report:#}"
    );
    // Every case ran (none skipped): the tool was called and answered, the interrupt resumed.
    let cases: Vec<(&str, &str)> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        cases,
        [
            ("plain", "success"),
            ("tools", "success"),
            ("tool_answer", "success"),
            ("state", "success"),
            ("interrupt", "interrupt"),
            ("resume", "success"),
            ("malformed", "refused"),
        ]
    );
    let malformed = &report["cases"][6];
    assert!((400..500).contains(&malformed["status"].as_u64().unwrap()));
    // The text report says the same.
    let out = ag_ui(&["check", &server.url, "--protocol", "1.1"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("0 errors"), "{}", out.stdout);
}

/// A recorded run of the demo agent, as `ag-ui run --json` prints it.
async fn recorded_events() -> Vec<Value> {
    let server = demo().await;
    let out = ag_ui(&["run", &server.url, "-m", "What is the weather?", "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    out.lines()
}

fn jsonl(events: &[Value]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recording_is_checked_and_each_planted_violation_is_named() {
    let events = recorded_events().await;
    let valid = temp_file("valid.jsonl", &jsonl(&events));
    let out = ag_ui(&["check", valid.to_str().unwrap(), "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(rules(&out.json(), "error"), Vec::<String>::new());
    // The same as raw SSE, and as `{"ms", "event"}` lines.
    let sse: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    let file = temp_file("valid.sse", &sse);
    let out = ag_ui(&["check", file.to_str().unwrap(), "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let timed: Vec<Value> = events
        .iter()
        .enumerate()
        .map(|(i, e)| json!({"ms": i * 10, "event": e}))
        .collect();
    let file = temp_file("timed.jsonl", &jsonl(&timed));
    assert_eq!(ag_ui(&["check", file.to_str().unwrap()]).await.code, 0);

    // An event type of a later version after the end: dropped with a warning, the run ended.
    let mut later = events.clone();
    later.push(json!({"type": "SOMETHING_NEWER", "x": 1}));
    let file = temp_file("later.jsonl", &jsonl(&later));
    let out = ag_ui(&["check", file.to_str().unwrap(), "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(rules(&out.json(), "warning"), ["E3"]);

    let index = |t: &str| events.iter().position(|e| e["type"] == t).unwrap();
    let last = events.len() - 1;
    let mut cases: Vec<(&str, String, &str)> = Vec::new();
    cases.push(("no RUN_STARTED", jsonl(&events[1..]), "L1"));
    let mut two = events.clone();
    two.push(events[last].clone());
    cases.push(("two terminals", jsonl(&two), "L4"));
    cases.push(("no terminal", jsonl(&events[..last]), "R1"));
    let mut other = events.clone();
    other[last]["runId"] = json!("another-run");
    cases.push(("RUN_FINISHED of another run", jsonl(&other), "L6"));
    let mut orphan = events.clone();
    orphan.remove(index("TEXT_MESSAGE_START"));
    cases.push(("content without a start", jsonl(&orphan), "M2"));
    let mut bad = events.clone();
    bad[index("TEXT_MESSAGE_CONTENT")]["delta"] = json!(7);
    cases.push(("a number for a string", jsonl(&bad), "E1"));
    let mut garbage = jsonl(&events);
    garbage.insert_str(garbage.find('\n').unwrap() + 1, "{not json\n");
    cases.push(("a line that is not JSON", garbage, "F1"));
    let mut patch = events.clone();
    let delta = index("STATE_DELTA");
    patch[delta]["delta"] = json!([{"op": "remove", "path": "/no/such/member"}]);
    cases.push(("a patch that does not apply", jsonl(&patch), "D1"));
    for (what, text, rule) in cases {
        let file = temp_file("broken.jsonl", &text);
        let out = ag_ui(&["check", file.to_str().unwrap(), "--json"]).await;
        let report = out.json();
        assert_eq!(out.code, 1, "{what}: {report:#}");
        assert!(
            rules(&report, "error").contains(&rule.to_owned()),
            "{what}: no {rule} in {report:#}"
        );
        // Each finding says where.
        let f = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == rule)
            .unwrap();
        assert!(f["where"]["event"].is_u64(), "{what}: {f}");
        assert!(f["expected"].as_str().is_some_and(|e| !e.is_empty()));
        // The text report names the rule too.
        let out = ag_ui(&["check", file.to_str().unwrap()]).await;
        assert_eq!(out.code, 1);
        assert!(
            out.stdout.contains(&format!("error {rule} ")),
            "{what}: {}",
            out.stdout
        );
    }
    // A field's JSON path is given.
    let file = temp_file("bad.jsonl", &jsonl(&bad));
    let report = ag_ui(&["check", file.to_str().unwrap(), "--json"])
        .await
        .json();
    let e1 = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "E1")
        .unwrap();
    assert_eq!(e1["where"]["path"], "/delta", "{e1}");
    assert_eq!(e1["where"]["event"], index("TEXT_MESSAGE_CONTENT"));
}

#[tokio::test(flavor = "multi_thread")]
async fn each_violation_of_a_broken_server_is_named() {
    let server = broken::serve().await;
    for (path, rule, severity) in [
        ("/html500", "H1", "error"),
        ("/text-plain", "H2", "error"),
        ("/no-run-started", "L1", "error"),
        ("/two-terminals", "L4", "error"),
        ("/no-terminal", "R1", "error"),
        ("/other-ids", "R3", "error"),
        ("/bad-field", "E1", "error"),
        ("/not-json", "F1", "error"),
        ("/unclosed-message", "L5", "error"),
        ("/accepts-anything", "H3", "error"),
        ("/crlf", "F2", "warning"),
        ("/text-error", "H4", "warning"),
    ] {
        let url = format!("{}{path}", server.url);
        let out = ag_ui(&["check", &url, "--json"]).await;
        let report = out.json();
        assert!(
            rules(&report, severity).contains(&rule.to_owned()),
            "{path}: no {rule} in {report:#}"
        );
        assert_eq!(
            out.code,
            if severity == "error" { 1 } else { 0 },
            "{path}: {report:#}"
        );
    }
    // The broken server's control path is valid: only the skipped cases are reported.
    let out = ag_ui(&["check", &format!("{}/fine", server.url), "--json"]).await;
    let report = out.json();
    assert_eq!(out.code, 0, "{report:#}");
    assert_eq!(rules(&report, "error"), Vec::<String>::new());
    assert_eq!(rules(&report, "info"), ["X1", "X1"], "{report:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_silence_is_a_keep_alive_warning_and_headers_are_sent() {
    let server = broken::serve().await;
    let url = format!("{}/pause", server.url);
    let out = ag_ui(&["check", &url, "--keep-alive", "1", "--json"]).await;
    let report = out.json();
    assert_eq!(out.code, 0, "{report:#}");
    // The plain case paused; a busy machine may make another case look slow too.
    let warnings = rules(&report, "warning");
    assert!(warnings.iter().all(|r| r == "K1"), "{report:#}");
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "K1" && f["where"]["case"] == "plain"),
        "{report:#}"
    );

    let url = format!("{}/needs-key", server.url);
    let out = ag_ui(&["check", &url, "--json"]).await;
    assert_eq!(out.code, 1);
    assert!(rules(&out.json(), "error").contains(&"H1".to_owned()));
    let out = ag_ui(&["check", &url, "-H", "x-key: k", "--json"]).await;
    assert_eq!(out.code, 0, "{:#}", out.json());
    let out = ag_ui(&["run", &url, "-m", "hi", "--json"]).await;
    assert_eq!(out.code, 5, "{out:?}");
    assert!(out.stderr.contains("401"), "{}", out.stderr);
    let out = ag_ui(&["run", &url, "-m", "hi", "--header", "x-key:k", "--json"]).await;
    assert_eq!(out.code, 0, "{out:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_server_exits_5() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let out = ag_ui(&["check", &format!("http://127.0.0.1:{port}/"), "--json"]).await;
    assert_eq!(out.code, 5, "{out:?}");
    let out = ag_ui(&["check", "/no/such/file.jsonl"]).await;
    assert_eq!(out.code, 64, "{out:?}");
    let out = ag_ui(&["check", "x.jsonl", "--protocol", "2.0"]).await;
    assert_eq!(out.code, 64, "{out:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_member_of_1_1_is_an_unknown_field_under_1_0_only() {
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "REASONING_START", "messageId": "z"}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "z1", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "z1", "delta": "hm"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "z1"}),
        json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "z1",
               "encryptedValue": "opaque", "encryptedValueType": "vendor/v1"}),
        json!({"type": "REASONING_END", "messageId": "z"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    let file = temp_file("v11.jsonl", &jsonl(&events));
    let out = ag_ui(&[
        "check",
        file.to_str().unwrap(),
        "--protocol",
        "1.1",
        "--json",
    ])
    .await;
    let report = out.json();
    assert_eq!(out.code, 0, "{report:#}");
    assert_eq!(report["warnings"], 0, "{report:#}");
    let out = ag_ui(&[
        "check",
        file.to_str().unwrap(),
        "--protocol",
        "1.0",
        "--json",
    ])
    .await;
    let report = out.json();
    assert_eq!(out.code, 0, "{report:#}");
    assert_eq!(rules(&report, "warning"), ["E2"], "{report:#}");
    let w = &report["findings"][0];
    assert_eq!(w["where"]["event"], 5);
    assert_eq!(w["where"]["path"], "/encryptedValueType");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_declaring_a_newer_version_than_checked_is_p1() {
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    let file = temp_file("declared.jsonl", &jsonl(&events));
    let report = ag_ui(&["check", file.to_str().unwrap(), "--json"])
        .await
        .json();
    assert_eq!(rules(&report, "warning"), ["P1"], "{report:#}");
    assert_eq!(report["findings"][0]["where"]["event"], 0);
    let report = ag_ui(&[
        "check",
        file.to_str().unwrap(),
        "--protocol",
        "1.1",
        "--json",
    ])
    .await
    .json();
    assert_eq!(
        rules(&report, "warning"),
        Vec::<String>::new(),
        "{report:#}"
    );
}
