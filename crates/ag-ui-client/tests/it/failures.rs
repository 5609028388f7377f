//! Failures, framing edge cases and cancellation, over real sockets.

use std::time::{Duration, Instant};

use ag_ui_client::{ClientError, ClientErrorKind, HttpAgent, RunItem, RunOptions};
use ag_ui_core::{Rule, WarningKind};
use futures_util::StreamExt;
use serde_json::json;

use crate::server::{Ending, Part, Plan, TestServer, sse};
use crate::{bounded, chat, collect, run_finished, run_started, to_json, types};

async fn run_once(
    plan: Plan,
) -> (
    Vec<ag_ui_core::Event>,
    ag_ui_client::RunEnd,
    HttpAgent,
    TestServer,
) {
    let server = TestServer::always(plan).await;
    let mut agent = HttpAgent::new(&server.url).unwrap();
    let (events, end) = collect(agent.send("Hi")).await;
    (events, end, agent, server)
}

fn kind(end: &ag_ui_client::RunEnd) -> Option<ClientErrorKind> {
    end.error.as_ref().map(ClientError::kind)
}

#[tokio::test]
async fn a_500_with_a_large_body_is_an_http_status_error_with_a_bounded_body() {
    bounded(async {
        let body = "x".repeat(1 << 20);
        let plan = Plan {
            status: 500,
            content_type: Some("text/plain".into()),
            parts: vec![Part::Bytes(body.into_bytes())],
            ending: Ending::Clean,
            headers: Vec::new(),
        };
        let (events, end, _, server) = run_once(plan).await;
        assert!(events.is_empty());
        assert_eq!(kind(&end), Some(ClientErrorKind::HttpStatus));
        let Some(ClientError::HttpStatus {
            status,
            body,
            truncated,
        }) = &end.error
        else {
            panic!("{:?}", end.error)
        };
        assert_eq!(*status, 500);
        assert_eq!(body.len(), ag_ui_client::DEFAULT_MAX_ERROR_BODY_BYTES);
        assert!(*truncated);
        let message = end.error.as_ref().unwrap().to_string();
        assert!(
            message.starts_with("the agent answered HTTP 500: xxx"),
            "{}",
            &message[..60]
        );
        assert!(message.ends_with("[truncated]"));
        assert!(message.len() < 5000);
        assert!(end.outcome.is_none());
        assert_eq!(server.requests().len(), 1, "no retry");
    })
    .await;
}

#[tokio::test]
async fn a_small_error_body_is_kept_whole() {
    bounded(async {
        let plan = Plan {
            status: 422,
            content_type: Some("application/json".into()),
            parts: vec![Part::Bytes(br#"{"detail":"bad threadId"}"#.to_vec())],
            ending: Ending::Clean,
            headers: Vec::new(),
        };
        let (_, end, _, _) = run_once(plan).await;
        assert_eq!(
            end.error.as_ref().unwrap().to_string(),
            r#"the agent answered HTTP 422: {"detail":"bad threadId"}"#
        );
        assert_eq!(end.error.as_ref().unwrap().status(), Some(422));
    })
    .await;
}

#[tokio::test]
async fn a_response_that_is_not_sse_is_a_content_type_error_and_protobuf_is_named() {
    bounded(async {
        let mut cases = vec![
            (Some("text/html; charset=utf-8"), "not text/event-stream"),
            (None, "has no Content-Type"),
        ];
        // With the `proto` feature the client reads protobuf (tests/it/proto.rs).
        if cfg!(not(feature = "proto")) {
            cases.push((
                Some("application/vnd.ag-ui.event+proto"),
                "does not support",
            ));
        }
        for (ct, expected) in cases {
            let plan = Plan {
                status: 200,
                content_type: ct.map(str::to_owned),
                parts: vec![Part::Bytes(b"<html></html>".to_vec())],
                ending: Ending::Clean,
                headers: Vec::new(),
            };
            let (events, end, _, _) = run_once(plan).await;
            assert!(events.is_empty());
            assert_eq!(kind(&end), Some(ClientErrorKind::ContentType), "{ct:?}");
            let message = end.error.as_ref().unwrap().to_string();
            assert!(message.contains(expected), "{ct:?}: {message}");
        }
        // Parameters and case do not matter.
        let plan = Plan {
            status: 200,
            content_type: Some("Text/Event-Stream; charset=utf-8".into()),
            parts: vec![Part::Bytes(sse(&chat("a1", "x", "y")).into_bytes())],
            ending: Ending::Clean,
            headers: Vec::new(),
        };
        let (_, end, _, _) = run_once(plan).await;
        assert!(end.is_ok(), "{:?}", end.error);
    })
    .await;
}

#[tokio::test]
async fn a_connection_cut_mid_frame_is_a_transport_error_and_keeps_what_was_applied() {
    bounded(async {
        let whole = sse(&[
            run_started(),
            json!({"type":"TEXT_MESSAGE_START","messageId":"a1"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Hel"}),
        ]);
        let half = r#"data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","del"#;
        let plan = Plan::sse_parts(
            vec![
                Part::Bytes(whole.into_bytes()),
                Part::Pause(Duration::from_millis(20)),
                Part::Bytes(half.as_bytes().to_vec()),
            ],
            Ending::Cut,
        );
        let (events, end, agent, server) = run_once(plan).await;
        assert_eq!(
            types(&events),
            ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
        );
        assert_eq!(
            kind(&end),
            Some(ClientErrorKind::Transport),
            "{:?}",
            end.error
        );
        assert!(end.outcome.is_none());
        assert_eq!(to_json(agent.messages())[1]["content"], "Hel");
        assert_eq!(
            server.requests().len(),
            1,
            "nothing is retried after the POST"
        );
    })
    .await;
}

#[tokio::test]
async fn a_close_delimited_body_cut_mid_message_is_a_transport_error() {
    bounded(async {
        // Without chunked framing the end of the connection ends the body: a message whose
        // JSON stops short, with no blank line after it, is a cut, not malformed JSON.
        let body = format!(
            "{}{}",
            sse(&[
                run_started(),
                json!({"type":"TEXT_MESSAGE_START","messageId":"a1"}),
                json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Hel"}),
            ]),
            r#"data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","del"#
        );
        let url = crate::server::close_delimited(body).await;
        let mut agent = HttpAgent::new(&url).unwrap();
        let (events, end) = collect(agent.run(RunOptions::new())).await;
        assert_eq!(
            types(&events),
            ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
        );
        assert_eq!(
            kind(&end),
            Some(ClientErrorKind::Transport),
            "{:?}",
            end.error
        );
        let message = end.error.as_ref().unwrap().to_string();
        assert!(
            message.contains("in the middle of an SSE message"),
            "{message}"
        );
        assert_eq!(to_json(agent.messages())[0]["content"], "Hel");
    })
    .await;
}

#[tokio::test]
async fn a_close_delimited_body_whose_last_message_lacks_its_blank_line_is_read() {
    bounded(async {
        // A complete last message without the blank line after it is delivered, as the
        // official client does at the end of a stream.
        let body = format!(
            "{}data: {}",
            sse(&[run_started()]),
            json!({"type":"RUN_FINISHED","threadId":"t1","runId":"r1"})
        );
        let url = crate::server::close_delimited(body).await;
        let mut agent = HttpAgent::new(&url).unwrap();
        let (events, end) = collect(agent.run(RunOptions::new())).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert_eq!(types(&events), ["RUN_STARTED", "RUN_FINISHED"]);
    })
    .await;
}

#[tokio::test]
async fn a_clean_end_without_a_terminal_event_is_an_incomplete_stream() {
    bounded(async {
        let body = sse(&[
            run_started(),
            json!({"type":"TEXT_MESSAGE_START","messageId":"a1"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Hel"}),
        ]);
        let (events, end, agent, _) = run_once(Plan::sse(body)).await;
        assert_eq!(events.len(), 3);
        assert_eq!(kind(&end), Some(ClientErrorKind::IncompleteStream));
        assert_eq!(to_json(agent.messages())[1]["content"], "Hel");
    })
    .await;
}

#[tokio::test]
async fn a_broken_stream_rule_is_a_protocol_order_error_naming_the_rule_and_event() {
    bounded(async {
        let body = sse(&[
            run_started(),
            json!({"type":"TEXT_MESSAGE_START","messageId":"a1"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"zz","delta":"x"}),
            run_finished(),
        ]);
        let (events, end, agent, _) = run_once(Plan::sse(body)).await;
        assert_eq!(events.len(), 2);
        assert_eq!(kind(&end), Some(ClientErrorKind::ProtocolOrder));
        let e = end.error.as_ref().unwrap();
        assert_eq!(e.violation().map(|v| v.rule), Some(Rule::M2));
        assert_eq!(e.event_index(), Some(2));
        assert!(end.outcome.is_none(), "nothing after the failure is read");
        assert_eq!(agent.messages().len(), 2);
    })
    .await;
}

#[tokio::test]
async fn malformed_json_is_sse_parse_and_a_malformed_known_field_is_schema() {
    bounded(async {
        let body = format!(
            "{}data: {{\"type\":\"TEXT_MESSAGE_START\",\n\n",
            sse(&[run_started()])
        );
        let (_, end, _, _) = run_once(Plan::sse(body)).await;
        assert_eq!(
            kind(&end),
            Some(ClientErrorKind::SseParse),
            "{:?}",
            end.error
        );
        assert_eq!(end.error.as_ref().unwrap().event_index(), Some(1));

        let body = sse(&[
            run_started(),
            json!({"type":"TEXT_MESSAGE_START","messageId":5}),
        ]);
        let (_, end, _, _) = run_once(Plan::sse(body)).await;
        assert_eq!(kind(&end), Some(ClientErrorKind::Schema), "{:?}", end.error);
        assert!(
            end.error
                .as_ref()
                .unwrap()
                .to_string()
                .contains("/messageId")
        );

        let deep = format!(
            "{}data: {{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":{}{}}}\n\n",
            sse(&[run_started()]),
            "[".repeat(200),
            "]".repeat(200)
        );
        let (_, end, _, _) = run_once(Plan::sse(deep)).await;
        assert_eq!(
            kind(&end),
            Some(ClientErrorKind::SseParse),
            "{:?}",
            end.error
        );

        let mut body = sse(&[run_started()]).into_bytes();
        body.extend_from_slice(b"data: {\"type\":\"\xff\"}\n\n");
        let (events, end, _, _) = run_once(Plan::sse(body)).await;
        assert_eq!(events.len(), 1);
        assert_eq!(
            kind(&end),
            Some(ClientErrorKind::SseParse),
            "{:?}",
            end.error
        );
        assert!(end.error.as_ref().unwrap().to_string().contains("UTF-8"));
    })
    .await;
}

#[tokio::test]
async fn an_agent_that_goes_quiet_hits_the_idle_timeout() {
    bounded(async {
        let plan = Plan::sse_parts(
            vec![Part::Bytes(sse(&[run_started()]).into_bytes())],
            Ending::Hang,
        );
        let server = TestServer::always(plan).await;
        let mut agent = HttpAgent::builder(&server.url)
            .idle_timeout(Duration::from_millis(300))
            .build()
            .unwrap();
        let start = Instant::now();
        let (events, end) = collect(agent.send("Hi")).await;
        assert_eq!(events.len(), 1);
        assert_eq!(
            kind(&end),
            Some(ClientErrorKind::Timeout),
            "{:?}",
            end.error
        );
        assert!(start.elapsed() >= Duration::from_millis(300));
        assert_eq!(
            end.error.as_ref().unwrap().to_string(),
            "waiting for the agent's next bytes timed out after 300 ms"
        );
        assert!(
            server
                .client_gone_within(Duration::from_secs(5))
                .await
                .is_some()
        );
    })
    .await;
}

#[tokio::test]
async fn keep_alive_comments_reset_the_idle_timer() {
    bounded(async {
        let mut parts = vec![Part::Bytes(sse(&[run_started()]).into_bytes())];
        for _ in 0..6 {
            parts.push(Part::Pause(Duration::from_millis(100)));
            parts.push(Part::Bytes(b": keep-alive\n\n".to_vec()));
        }
        parts.push(Part::Bytes(sse(&[run_finished()]).into_bytes()));
        let server = TestServer::always(Plan::sse_parts(parts, Ending::Clean)).await;
        let mut agent = HttpAgent::builder(&server.url)
            .idle_timeout(Duration::from_millis(400))
            .build()
            .unwrap();
        let (_, end) = collect(agent.send("Hi")).await;
        assert!(end.is_ok(), "{:?}", end.error);
    })
    .await;
}

#[tokio::test]
async fn a_refused_connection_is_a_transport_error() {
    bounded(async {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let mut agent = HttpAgent::new(format!("http://127.0.0.1:{port}/agent")).unwrap();
        let (events, end) = collect(agent.send("Hi")).await;
        assert!(events.is_empty());
        assert_eq!(
            kind(&end),
            Some(ClientErrorKind::Transport),
            "{:?}",
            end.error
        );
        // The user message stays in the thread.
        assert_eq!(agent.messages().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_byte_at_a_time_drip_with_split_characters_assembles() {
    bounded(async {
        let body = sse(&chat("a1", "héllo ", "wörld 😀"));
        let mut parts = Vec::new();
        for b in body.bytes() {
            parts.push(Part::Bytes(vec![b]));
            parts.push(Part::Pause(Duration::from_micros(300)));
        }
        let (events, end, agent, _) = run_once(Plan::sse_parts(parts, Ending::Clean)).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert_eq!(events.len(), 6);
        assert_eq!(to_json(agent.messages())[1]["content"], "héllo wörld 😀");
    })
    .await;
}

#[tokio::test]
async fn crlf_framing_with_comments_and_other_fields_reads_like_lf() {
    bounded(async {
        let mut body = String::from(": welcome\r\n\r\nretry: 1000\r\n\r\n");
        for (i, e) in chat("a1", "one", "two").iter().enumerate() {
            body.push_str(&format!(
                "event: agui\r\nid: {i}\r\ndata: {e}\r\n\r\n: ping\r\n\r\n"
            ));
        }
        // The last message without its blank line: delivered at the end of the body.
        body.truncate(body.len() - ": ping\r\n\r\n".len() - 2);
        let (events, end, agent, _) = run_once(Plan::sse(body.clone())).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert_eq!(events.len(), 6);
        assert_eq!(to_json(agent.messages())[1]["content"], "onetwo");

        // CR-only line ends, a CRLF split across two chunks.
        let cr = body.replace("\r\n", "\r");
        let (events, end, agent, _) = run_once(Plan::sse(cr)).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert_eq!(events.len(), 6);
        assert_eq!(to_json(agent.messages())[1]["content"], "onetwo");
        let split = body.find("\r\n").unwrap() + 1;
        let parts = vec![
            Part::Bytes(body.as_bytes()[..split].to_vec()),
            Part::Pause(Duration::from_millis(20)),
            Part::Bytes(body.as_bytes()[split..].to_vec()),
        ];
        let (events, end, _, _) = run_once(Plan::sse_parts(parts, Ending::Clean)).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert_eq!(events.len(), 6);
    })
    .await;
}

#[tokio::test]
async fn an_unknown_event_type_and_an_unknown_field_are_warnings_not_failures() {
    bounded(async {
        let body = sse(&[
            run_started(),
            json!({"type":"FUTURE_EVENT","x":1}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"a1","mood":"happy"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"ok"}),
            json!({"type":"TEXT_MESSAGE_END","messageId":"a1"}),
            run_finished(),
        ]);
        let (events, end, agent, _) = run_once(Plan::sse(body)).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert_eq!(events.len(), 5, "the unknown event is dropped");
        let unknown = end
            .warnings
            .iter()
            .find(|w| w.kind == Some(WarningKind::UnknownEventType))
            .expect("unknown event warning");
        assert_eq!(unknown.event_index, Some(1));
        let field = end
            .warnings
            .iter()
            .find(|w| w.kind == Some(WarningKind::UnknownField))
            .expect("unknown field warning");
        assert_eq!(field.event_index, Some(2));
        assert!(field.message.contains("/mood"), "{}", field.message);
        assert_eq!(
            to_json(agent.messages())[1],
            json!({"id":"a1","role":"assistant","content":"ok"})
        );
    })
    .await;
}

fn endless_stream() -> Plan {
    let mut parts = vec![Part::Bytes(
        sse(&[
            run_started(),
            json!({"type":"TEXT_MESSAGE_START","messageId":"a1"}),
        ])
        .into_bytes(),
    )];
    for i in 0..400 {
        parts.push(Part::Pause(Duration::from_millis(25)));
        parts.push(Part::Bytes(
            sse(&[json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":format!("{i} ")})])
                .into_bytes(),
        ));
    }
    Plan::sse_parts(parts, Ending::Clean)
}

#[tokio::test]
async fn dropping_a_run_while_the_agent_streams_closes_the_connection_at_once() {
    bounded(async {
        let server = TestServer::always(endless_stream()).await;
        let mut agent = HttpAgent::new(&server.url).unwrap();
        let mut run = agent.send("Count");
        let mut seen = 0;
        while let Some(item) = run.next().await {
            if let RunItem::Event(_) = item {
                seen += 1;
                if seen == 5 {
                    break;
                }
            }
        }
        let dropped_at = Instant::now();
        drop(run);
        // The stream had 10 s to go; the server sees the client gone well before.
        let gone = server
            .client_gone_within(Duration::from_secs(5))
            .await
            .expect("the server never saw the client go");
        assert!(gone.duration_since(dropped_at) < Duration::from_secs(2));
        // What was applied stays applied.
        let content = to_json(agent.messages())[1]["content"].clone();
        assert!(content.as_str().unwrap().starts_with("0 1 2 "), "{content}");
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn an_abort_handle_ends_the_run_as_an_abort_and_closes_the_connection() {
    bounded(async {
        let server = TestServer::always(endless_stream()).await;
        let mut agent = HttpAgent::new(&server.url).unwrap();
        let mut run = agent.send("Count");
        let handle = run.abort_handle();
        let mut seen = 0;
        let mut end = None;
        let mut aborted_at = None;
        while let Some(item) = run.next().await {
            match item {
                RunItem::Event(_) => {
                    seen += 1;
                    if seen == 4 {
                        // From elsewhere: another task holding a clone of the handle.
                        let h = handle.clone();
                        tokio::spawn(async move { h.abort() }).await.unwrap();
                        aborted_at = Some(Instant::now());
                    }
                }
                RunItem::End(e) => end = Some(e),
                _ => {}
            }
        }
        drop(run);
        let end = end.unwrap();
        assert_eq!(kind(&end), Some(ClientErrorKind::Abort));
        assert!(end.events >= 4);
        assert!(
            end.outcome.is_none(),
            "an abort is not the agent's cancelled outcome"
        );
        let gone = server
            .client_gone_within(Duration::from_secs(5))
            .await
            .expect("the server never saw the client go");
        assert!(gone.duration_since(aborted_at.unwrap()) < Duration::from_secs(2));
        let content = to_json(agent.messages())[1]["content"].clone();
        assert!(content.as_str().unwrap().starts_with("0 1 "), "{content}");
    })
    .await;
}

#[tokio::test]
async fn an_abort_before_the_response_sends_nothing_more_and_ends_as_abort() {
    bounded(async {
        let plan = Plan::sse_parts(
            vec![
                Part::Pause(Duration::from_secs(10)),
                Part::Bytes(b"data: {}\n\n".to_vec()),
            ],
            Ending::Clean,
        );
        let server = TestServer::always(plan).await;
        let mut agent = HttpAgent::new(&server.url).unwrap();
        let run = agent.run(RunOptions::new());
        let handle = run.abort_handle();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            handle.abort();
        });
        let start = Instant::now();
        let (events, end) = collect(run).await;
        assert!(events.is_empty());
        assert_eq!(kind(&end), Some(ClientErrorKind::Abort));
        assert!(start.elapsed() < Duration::from_secs(5));
    })
    .await;
}

#[tokio::test]
async fn a_connection_that_cannot_be_made_in_time_is_a_connect_timeout() {
    bounded(async {
        // A listener that never accepts, its queue filled: further connects hang (loopback
        // SYNs are dropped while the accept queue is full).
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = socket.local_addr().unwrap();
        let _listener = socket.listen(1).unwrap();
        let mut fillers = Vec::new();
        for _ in 0..8 {
            match tokio::time::timeout(
                Duration::from_millis(200),
                tokio::net::TcpStream::connect(addr),
            )
            .await
            {
                Ok(Ok(s)) => fillers.push(s),
                _ => break,
            }
        }
        let mut agent = HttpAgent::builder(format!("http://{addr}/agent"))
            .connect_timeout(Duration::from_millis(300))
            .build()
            .unwrap();
        let start = Instant::now();
        let (_, end) = collect(agent.send("Hi")).await;
        assert!(start.elapsed() < Duration::from_secs(10));
        let Some(ClientError::Timeout { phase, limit }) = &end.error else {
            panic!("{:?}", end.error)
        };
        assert_eq!(*phase, ag_ui_client::TimeoutPhase::Connect);
        assert_eq!(*limit, Some(Duration::from_millis(300)));
        assert_eq!(kind(&end), Some(ClientErrorKind::Timeout));
    })
    .await;
}

#[test]
fn https_needs_a_tls_feature_or_a_client_of_ones_own() {
    let url = "https://127.0.0.1:9/agent";
    let tls = cfg!(any(
        feature = "rustls",
        feature = "rustls-no-provider",
        feature = "native-tls"
    ));
    match HttpAgent::new(url) {
        Ok(_) => assert!(tls, "https accepted without a TLS feature"),
        Err(e) => {
            assert!(!tls, "https refused with a TLS feature: {e}");
            assert_eq!(e.kind(), ClientErrorKind::Config);
            let message = e.to_string();
            assert!(message.contains("needs TLS"), "{message}");
            // It says how to get TLS: the feature to turn on.
            assert!(message.contains(r#"features = ["rustls"]"#), "{message}");
        }
    }
    // A client of one's own is trusted to know its TLS.
    let own = HttpAgent::builder(url)
        .client(reqwest::Client::new())
        .build();
    assert!(own.is_ok(), "{:?}", own.err());
}
