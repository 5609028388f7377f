//! `docs/errors.md`, section "Client errors": every row is produced here against a real
//! server and must give exactly the kind and message the page shows. After a deliberate
//! change of wording, `AG_UI_BLESS=1 cargo test -p ag-ui-client --test it errors_doc`
//! rewrites the message column; review the diff.

use std::time::Duration;

use ag_ui_client::{ClientError, HttpAgent, RunOptions};
use ag_ui_core::{ResumeEntry, ResumeStatus};
use ag_ui_fixtures::doc_table::{DocTable, code, escape};
use serde_json::json;

use crate::server::{Ending, Part, Plan, TestServer, sse};
use crate::{bounded, collect, run_started};

const HEADER: &str = "| case | errorKind | message |";

fn plan(status: u16, content_type: Option<&str>, body: impl Into<Vec<u8>>, ending: Ending) -> Plan {
    Plan {
        status,
        content_type: content_type.map(str::to_owned),
        parts: vec![Part::Bytes(body.into())],
        ending,
        headers: Vec::new(),
    }
}

async fn error_of_run(plan: Plan, idle: Option<Duration>) -> ClientError {
    let server = TestServer::always(plan).await;
    let mut b = HttpAgent::builder(&server.url);
    if let Some(d) = idle {
        b = b.idle_timeout(d);
    }
    let mut agent = b.build().unwrap();
    let (_, end) = collect(agent.run(RunOptions::new())).await;
    end.error.expect("the run did not fail")
}

async fn error_for(case: &str) -> ClientError {
    let sse_ct = Some("text/event-stream");
    match case {
        "http-503" => {
            error_of_run(
                plan(503, Some("text/plain"), "busy, retry later", Ending::Clean),
                None,
            )
            .await
        }
        "html" => error_of_run(plan(200, Some("text/html"), "<html/>", Ending::Clean), None).await,
        "protobuf" => {
            error_of_run(
                plan(
                    200,
                    Some("application/vnd.ag-ui.event+proto"),
                    vec![0, 0, 0, 0],
                    Ending::Clean,
                ),
                None,
            )
            .await
        }
        "no-content-type" => {
            error_of_run(plan(200, None, "data: {}\n\n", Ending::Clean), None).await
        }
        "invalid-utf8" => {
            error_of_run(
                plan(
                    200,
                    sse_ct,
                    b"data: {\"type\":\"\xff\"}\n\n".to_vec(),
                    Ending::Clean,
                ),
                None,
            )
            .await
        }
        "malformed-json" => {
            let body = format!(
                "{}data: {{\"type\":\"RUN_ERROR\",\n\n",
                sse(&[run_started()])
            );
            error_of_run(plan(200, sse_ct, body, Ending::Clean), None).await
        }
        "malformed-field" => {
            let body = sse(&[
                run_started(),
                json!({"type":"TEXT_MESSAGE_START","messageId":5}),
            ]);
            error_of_run(plan(200, sse_ct, body, Ending::Clean), None).await
        }
        "content-before-start" => {
            let body = sse(&[
                run_started(),
                json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x"}),
            ]);
            error_of_run(plan(200, sse_ct, body, Ending::Clean), None).await
        }
        "no-terminal" => {
            error_of_run(
                plan(200, sse_ct, sse(&[run_started()]), Ending::Clean),
                None,
            )
            .await
        }
        "cut" => {
            error_of_run(
                plan(200, sse_ct, "data: {\"type\":\"RUN_ST", Ending::Cut),
                None,
            )
            .await
        }
        "cut-at-close" => {
            let body = format!("{}data: {{\"type\":\"RUN_FIN", sse(&[run_started()]));
            let url = crate::server::close_delimited(body).await;
            let mut agent = HttpAgent::new(&url).unwrap();
            collect(agent.run(RunOptions::new())).await.1.error.unwrap()
        }
        "idle" => {
            error_of_run(
                plan(200, sse_ct, sse(&[run_started()]), Ending::Hang),
                Some(Duration::from_millis(200)),
            )
            .await
        }
        "abort" => {
            let server =
                TestServer::always(plan(200, sse_ct, sse(&[run_started()]), Ending::Hang)).await;
            let mut agent = HttpAgent::new(&server.url).unwrap();
            let run = agent.run(RunOptions::new());
            run.abort_handle().abort();
            collect(run).await.1.error.unwrap()
        }
        "partial-resume" => {
            let body = sse(&[
                run_started(),
                json!({"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"interrupt",
                       "interrupts":[{"id":"i1","reason":"confirmation"},{"id":"i2","reason":"confirmation"}]}}),
            ]);
            let server = TestServer::always(plan(200, sse_ct, body, Ending::Clean)).await;
            let mut agent = HttpAgent::new(&server.url).unwrap();
            let _ = collect(agent.run(RunOptions::new())).await;
            agent
                .resume([ResumeEntry::new("i1", ResumeStatus::Resolved)])
                .unwrap_err()
        }
        "invalid-input" => {
            let mut agent = HttpAgent::new("http://127.0.0.1:9/agent").unwrap();
            agent
                .run_json(r#"{"threadId":"t","runId":"r","messages":[{"id":"1","role":"user"}]}"#)
                .unwrap_err()
        }
        "bad-url" => HttpAgent::new("ftp://example.com/agent").unwrap_err(),
        other => panic!("unknown case {other:?} in docs/errors.md"),
    }
}

/// The message as the page shows it: the parts that change from run to run (a port, a
/// byte offset that depends on the address) are not in these cases, so it is exact, except
/// that a row may end in `…` to give only the start.
fn matches(doc: &str, got: &str) -> bool {
    match doc.strip_suffix('…') {
        Some(prefix) => got.starts_with(prefix),
        None => doc == got,
    }
}

#[tokio::test]
async fn docs_client_errors_table_matches_the_code() {
    bounded(async {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/errors.md");
        let mut table = DocTable::read(&path, HEADER).unwrap();
        let mut kinds = std::collections::BTreeSet::new();
        for row in table.rows() {
            let c = &row.cells;
            assert_eq!(c.len(), 3, "row without three cells: {c:?}");
            let case = code(&c[0]);
            // With the `proto` feature the client reads protobuf (tests/it/proto.rs): the row
            // is the default build's.
            if cfg!(feature = "proto") && case == "protobuf" {
                continue;
            }
            let e = error_for(&case).await;
            let got_kind = e.kind().as_str();
            let got = e.to_string();
            kinds.insert(got_kind);
            if code(&c[1]) != got_kind || !matches(&c[2], &got) {
                let shown = if c[2].ends_with('…') {
                    escape(&c[2])
                } else {
                    escape(&got)
                };
                table.mismatch(
                    row.line,
                    format!(
                        "{case}\n  doc:  {} {}\n  code: {got_kind} {got}",
                        c[1], c[2]
                    ),
                    format!("| {} | `{got_kind}` | {shown} |", c[0]),
                );
            }
        }
        // Every kind a run or a request can fail with has a row.
        let expected = [
            "abort",
            "config",
            "content_type",
            "http_status",
            "incomplete_stream",
            "invalid_request",
            "protocol_order",
            "schema",
            "sse_parse",
            "timeout",
            "transport",
        ];
        table.finish().unwrap();
        assert_eq!(
            kinds.into_iter().collect::<Vec<_>>(),
            expected,
            "kinds with a row in docs/errors.md"
        );
    })
    .await;
}
