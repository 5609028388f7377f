//! Runs that work: chat, tool calls, state, interrupts, the agent's own error and
//! cancellation, and what the requests carry.

use ag_ui_client::{HttpAgent, RunOptions, RunOutcome};
use ag_ui_core::{Message, ResumeEntry, ResumeStatus, Tool};
use serde_json::json;

use crate::server::{Plan, TestServer, sse};
use crate::{bounded, chat, collect, run_finished, run_started, to_json, types};

#[tokio::test]
async fn a_chat_run_delivers_events_folds_the_answer_and_sends_the_history_next_time() {
    bounded(async {
        let server = TestServer::start(|_, n| match n {
            0 => Plan::sse(sse(&chat("a1", "Hello", " there"))),
            _ => Plan::sse(sse(&chat("a2", "Again", "!"))),
        })
        .await;
        let mut agent = HttpAgent::builder(&server.url)
            .thread_id("t1")
            .build()
            .unwrap();

        let (events, end) = collect(agent.send("Hi")).await;
        assert_eq!(
            types(&events),
            [
                "RUN_STARTED",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "RUN_FINISHED"
            ]
        );
        assert!(end.is_ok(), "{:?}", end.error);
        assert_eq!(end.events, 6);
        assert_eq!(
            end.outcome,
            Some(RunOutcome::Success {
                result: None,
                pending_tool_call_ids: vec![]
            })
        );
        let messages = to_json(agent.messages());
        assert_eq!(
            messages[1],
            json!({"id":"a1","role":"assistant","content":"Hello there"})
        );
        assert_eq!(messages.as_array().unwrap().len(), 2);

        // The request of the first run: spec §8.1.
        let first = &server.requests()[0];
        #[cfg(not(feature = "proto"))]
        assert_eq!(first.headers["accept"], "text/event-stream");
        #[cfg(feature = "proto")]
        assert_eq!(
            first.headers["accept"],
            "application/vnd.ag-ui.event+proto, text/event-stream"
        );
        assert_eq!(first.headers["content-type"], "application/json");
        let body = &first.body;
        assert_eq!(body["threadId"], "t1");
        assert_eq!(body["protocolVersion"], "1.0");
        assert_eq!(body["tools"], json!([]));
        assert_eq!(body["context"], json!([]));
        assert_eq!(body["forwardedProps"], json!({}));
        assert_eq!(body["state"], json!({}));
        assert_eq!(body["messages"][0]["role"], "user");
        assert_eq!(body["messages"][0]["content"], "Hi");
        assert!(body["runId"].as_str().is_some_and(|r| !r.is_empty()));

        // The second run sends the whole history, the streamed answer included.
        let (_, end) = collect(agent.send("And again?")).await;
        assert!(end.is_ok());
        let second = &server.requests()[1];
        assert_eq!(second.body["threadId"], "t1");
        let sent = second.body["messages"].as_array().unwrap();
        assert_eq!(sent.len(), 3);
        assert_eq!(sent[1], messages[1]);
        assert_eq!(sent[2]["content"], "And again?");
        assert_ne!(second.body["runId"], first.body["runId"]);
        assert_eq!(agent.messages().len(), 4);
    })
    .await;
}

#[tokio::test]
async fn tool_calls_are_attached_and_results_placed_after_their_call() {
    bounded(async {
        let events = vec![
            run_started(),
            json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"weather","parentMessageId":"a1"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"city\":"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"Paris\"}"}),
            json!({"type":"TOOL_CALL_END","toolCallId":"c1"}),
            json!({"type":"TOOL_CALL_RESULT","messageId":"tm1","toolCallId":"c1","content":"sunny"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"confirm"}),
            json!({"type":"TOOL_CALL_END","toolCallId":"c2"}),
            json!({"type":"RUN_FINISHED","threadId":"t1","runId":"r1","result":{"ok":1},
                   "outcome":{"type":"success","pendingToolCallIds":["c2"]},
                   "usage":[{"provider":"p","model":"m","inputTokens":3,"outputTokens":4}]}),
        ];
        let server = TestServer::always(Plan::sse(sse(&events))).await;
        let mut agent = HttpAgent::new(&server.url).unwrap();
        let tool = Tool::new("confirm", "Ask the user").with_parameters(json!({"type":"object"}));
        agent.add_user_message("Weather?");
        let (_, end) = collect(agent.run(RunOptions::new().tool(tool))).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert_eq!(
            end.outcome,
            Some(RunOutcome::Success {
                result: Some(json!({"ok":1})),
                pending_tool_call_ids: vec!["c2".into()]
            })
        );
        assert_eq!(end.usage.len(), 1);
        assert_eq!(end.usage[0].input_tokens, Some(3));

        let messages = to_json(agent.messages());
        assert_eq!(
            messages[1],
            json!({"id":"a1","role":"assistant","toolCalls":[
                {"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}
            ]})
        );
        assert_eq!(
            messages[2],
            json!({"id":"tm1","role":"tool","toolCallId":"c1","content":"sunny"})
        );
        assert_eq!(messages[3]["toolCalls"][0]["id"], "c2");
        assert_eq!(server.requests()[0].body["tools"][0]["name"], "confirm");

        // When the agent names no pending calls, they are derived: started, unanswered.
        let mut unnamed = events.clone();
        unnamed[8] = run_finished();
        let server = TestServer::always(Plan::sse(sse(&unnamed))).await;
        let mut agent = HttpAgent::new(&server.url).unwrap();
        let (_, end) = collect(agent.send("Weather?")).await;
        assert_eq!(
            end.outcome.unwrap().to_json(),
            json!({"type":"success","pendingToolCallIds":["c2"]})
        );
    })
    .await;
}

#[tokio::test]
async fn state_snapshots_and_deltas_fold_and_the_next_run_sends_the_state() {
    bounded(async {
        let events = vec![
            run_started(),
            json!({"type":"STATE_SNAPSHOT","snapshot":{"count":1,"items":["a"]}}),
            json!({"type":"STATE_DELTA","delta":[{"op":"replace","path":"/count","value":2},
                                                 {"op":"add","path":"/items/-","value":"b"}]}),
            // A patch that cannot apply: nothing of it applies, a warning says so.
            json!({"type":"STATE_DELTA","delta":[{"op":"add","path":"/x","value":1},
                                                 {"op":"remove","path":"/missing"}]}),
            run_finished(),
        ];
        let server = TestServer::always(Plan::sse(sse(&events))).await;
        let mut agent = HttpAgent::new(&server.url).unwrap();
        agent.set_state(json!({"count":0}));
        let (_, end) = collect(agent.run(RunOptions::new())).await;
        assert!(end.is_ok());
        assert_eq!(*agent.state(), json!({"count":2,"items":["a","b"]}));
        assert!(
            end.warnings
                .iter()
                .any(|w| w.kind == Some(ag_ui_core::WarningKind::PatchFailed)
                    && w.event_index == Some(3)),
            "{:?}",
            end.warnings
        );
        assert_eq!(server.requests()[0].body["state"], json!({"count":0}));

        let (_, _) = collect(agent.run(RunOptions::new())).await;
        assert_eq!(
            server.requests()[1].body["state"],
            json!({"count":2,"items":["a","b"]})
        );
    })
    .await;
}

#[tokio::test]
async fn an_interrupt_is_pending_until_one_resume_call_answers_every_interrupt() {
    bounded(async {
        let server = TestServer::start(|_, n| match n {
            0 => Plan::sse(sse(&[
                run_started(),
                json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"delete"}),
                json!({"type":"TOOL_CALL_END","toolCallId":"c1"}),
                json!({"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"interrupt","interrupts":[
                    {"id":"i1","reason":"tool_call","toolCallId":"c1"},
                    {"id":"i2","reason":"confirmation","message":"Sure?"}]}}),
            ])),
            _ => Plan::sse(sse(&[
                json!({"type":"RUN_STARTED","threadId":"t1","runId":"r2"}),
                json!({"type":"TOOL_CALL_RESULT","messageId":"tm1","toolCallId":"c1","content":"deleted"}),
                json!({"type":"RUN_FINISHED","threadId":"t1","runId":"r2"}),
            ])),
        })
        .await;
        let mut agent = HttpAgent::builder(&server.url)
            .thread_id("t1")
            .build()
            .unwrap();
        let (_, end) = collect(agent.send("Delete it")).await;
        assert!(end.is_ok());
        let ids: Vec<&str> = end.pending_interrupts().iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["i1", "i2"]);
        assert_eq!(agent.pending_interrupts().len(), 2);

        // A partial resume is refused and nothing is sent.
        let err = agent
            .resume([ResumeEntry::new("i1", ResumeStatus::Resolved)])
            .unwrap_err();
        assert_eq!(err.kind().as_str(), "invalid_request");
        assert!(err.to_string().contains("i2"), "{err}");
        let err = agent
            .resume([
                ResumeEntry::new("i1", ResumeStatus::Resolved),
                ResumeEntry::new("i2", ResumeStatus::Cancelled),
                ResumeEntry::new("i9", ResumeStatus::Cancelled),
            ])
            .unwrap_err();
        assert!(err.to_string().contains("i9"), "{err}");
        assert_eq!(server.requests().len(), 1);
        // A message added meanwhile leaves the interrupts pending.
        agent.add_user_message("Yes, delete it");
        assert_eq!(agent.pending_interrupts().len(), 2);

        let run = agent
            .resume([
                ResumeEntry::new("i1", ResumeStatus::Resolved).with_payload(json!({"approved":true})),
                ResumeEntry::new("i2", ResumeStatus::Cancelled),
            ])
            .unwrap();
        let (_, end) = collect(run).await;
        assert!(end.is_ok(), "{:?}", end.error);
        let resumed = &server.requests()[1].body;
        assert_eq!(resumed["threadId"], "t1");
        assert_eq!(
            resumed["resume"],
            json!([{"interruptId":"i1","status":"resolved","payload":{"approved":true}},
                   {"interruptId":"i2","status":"cancelled"}])
        );
        assert!(agent.pending_interrupts().is_empty());
        let messages = to_json(agent.messages());
        assert_eq!(messages[2]["role"], "tool");
        assert_eq!(messages[2]["toolCallId"], "c1");
        assert_eq!(messages[3]["content"], "Yes, delete it");
    })
    .await;
}

#[tokio::test]
async fn the_agents_run_error_is_an_outcome_not_a_client_error() {
    bounded(async {
        let server = TestServer::always(Plan::sse(sse(&[
            run_started(),
            json!({"type":"TEXT_MESSAGE_START","messageId":"a1"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Partial"}),
            json!({"type":"RUN_ERROR","message":"model overloaded","code":"overloaded"}),
        ])))
        .await;
        let mut agent = HttpAgent::new(&server.url).unwrap();
        let (_, end) = collect(agent.send("Hi")).await;
        assert!(end.is_ok());
        assert_eq!(
            end.outcome,
            Some(RunOutcome::Error {
                message: "model overloaded".into(),
                code: Some("overloaded".into())
            })
        );
        assert_eq!(
            end.outcome.as_ref().unwrap().to_json(),
            json!({"type":"run_error","message":"model overloaded","code":"overloaded"})
        );
        // What arrived before the error stays applied.
        assert_eq!(to_json(agent.messages())[1]["content"], "Partial");
    })
    .await;
}

#[tokio::test]
async fn the_agents_cancelled_outcome_is_not_a_client_abort() {
    bounded(async {
        let server = TestServer::always(Plan::sse(sse(&[
            run_started(),
            json!({"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"cancelled"}}),
        ])))
        .await;
        let mut agent = HttpAgent::new(&server.url).unwrap();
        let (_, end) = collect(agent.send("Hi")).await;
        assert!(end.is_ok());
        assert_eq!(end.outcome, Some(RunOutcome::Cancelled));
        assert_eq!(
            end.outcome.as_ref().unwrap().to_json(),
            json!({"type":"cancelled"})
        );
    })
    .await;
}

#[tokio::test]
async fn headers_bearer_and_fixed_headers_and_no_activity_messages() {
    bounded(async {
        let server = TestServer::always(Plan::sse(sse(&chat("a1", "x", "y")))).await;
        let mut agent = HttpAgent::builder(&server.url)
            .bearer_token("s3cret")
            .header("x-tenant", "acme")
            .header("accept", "application/json")
            .header("content-type", "text/plain")
            .build()
            .unwrap();
        let activity: Message = ag_ui_core::read::from_str(
            r#"{"id":"act1","role":"activity","activityType":"PLAN","content":{"steps":[]}}"#,
        )
        .unwrap();
        agent.add_message(activity);
        agent.add_user_message("Hi");
        let (input, _) = agent.prepare(&RunOptions::new().forwarded_props(json!({"k":1})));
        assert_eq!(input.messages.len(), 1, "activity messages are client-only");
        let (_, end) = collect(agent.run(RunOptions::new().forwarded_props(json!({"k":1})))).await;
        assert!(end.is_ok());
        let req = &server.requests()[0];
        assert_eq!(req.headers["authorization"], "Bearer s3cret");
        assert_eq!(req.headers["x-tenant"], "acme");
        let accepts: Vec<_> = req.headers.get_all("accept").iter().collect();
        #[cfg(not(feature = "proto"))]
        assert_eq!(accepts, ["text/event-stream"]);
        #[cfg(feature = "proto")]
        assert_eq!(
            accepts,
            ["application/vnd.ag-ui.event+proto, text/event-stream"]
        );
        let types: Vec<_> = req.headers.get_all("content-type").iter().collect();
        assert_eq!(types, ["application/json"]);
        assert_eq!(req.body["forwardedProps"], json!({"k":1}));
        assert_eq!(req.body["messages"].as_array().unwrap().len(), 1);
        // The activity message stays in the thread.
        assert_eq!(agent.messages()[0].id().as_str(), "act1");
    })
    .await;
}

#[tokio::test]
async fn an_input_read_from_json_upgrades_legacy_binary_parts_with_a_warning() {
    bounded(async {
        let server = TestServer::always(Plan::sse(sse(&chat("a1", "x", "y")))).await;
        let mut agent = HttpAgent::new(&server.url).unwrap();
        let json = r#"{"threadId":"t9","runId":"r9","messages":[{"id":"u1","role":"user","content":[
            {"type":"text","text":"Look"},
            {"type":"binary","mimeType":"image/png","data":"iVBORw0KGgo=","filename":"a.png"}]}]}"#;
        let (_, end) = collect(agent.run_json(json).unwrap()).await;
        assert!(end.is_ok());
        assert!(
            end.warnings
                .iter()
                .any(|w| w.kind == Some(ag_ui_core::WarningKind::LegacyBinaryPart)),
            "{:?}",
            end.warnings
        );
        let body = &server.requests()[0].body;
        assert_eq!(body["threadId"], "t9");
        assert_eq!(body["runId"], "r9");
        assert_eq!(
            body["messages"][0]["content"][1],
            json!({"type":"image","source":{"type":"data","value":"iVBORw0KGgo=","mimeType":"image/png"},
                   "metadata":{"filename":"a.png"}})
        );
        assert_eq!(body["protocolVersion"], "1.0");
        assert_eq!(body["tools"], json!([]));
        assert_eq!(agent.thread_id().as_str(), "t9");
        assert_eq!(agent.messages().len(), 2);
    })
    .await;
}

#[tokio::test]
async fn a_trace_context_given_in_the_options_is_sent_with_the_run() {
    bounded(async {
        let server = TestServer::always(Plan::sse(sse(&chat("a1", "x", "y")))).await;
        let mut agent = HttpAgent::builder(&server.url).build().unwrap();
        agent.add_user_message("Hi");
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let options = RunOptions::new().trace_context(traceparent, Some("vendor=x".to_owned()));
        let (_, end) = collect(agent.run(options)).await;
        assert!(end.is_ok());
        let (_, end) = collect(agent.run(RunOptions::new())).await;
        assert!(end.is_ok());
        let requests = server.requests();
        assert_eq!(requests[0].headers["traceparent"], traceparent);
        assert_eq!(requests[0].headers["tracestate"], "vendor=x");
        assert!(requests[1].headers.get("traceparent").is_none());
    })
    .await;
}

/// With the `otel` feature, a run started inside a `tracing` span that has an
/// OpenTelemetry context sends that span as the `traceparent`.
#[cfg(feature = "otel")]
#[tokio::test]
async fn the_current_spans_trace_is_sent_with_the_run() {
    use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    use tracing_subscriber::layer::SubscriberExt;
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    let _default = tracing::subscriber::set_default(subscriber);
    bounded(async {
        let server = TestServer::always(Plan::sse(sse(&chat("a1", "x", "y")))).await;
        let mut agent = HttpAgent::builder(&server.url).build().unwrap();
        agent.add_user_message("Hi");
        let span = tracing::info_span!("app");
        let context = span.context();
        let expected = {
            let sc = context.span().span_context().clone();
            format!("00-{}-{}-01", sc.trace_id(), sc.span_id())
        };
        let entered = span.enter();
        let run = agent.run(RunOptions::new());
        drop(entered);
        let (_, end) = collect(run).await;
        assert!(end.is_ok());
        assert_eq!(
            server.requests()[0].headers["traceparent"],
            expected.as_str()
        );
    })
    .await;
}
