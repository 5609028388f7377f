//! A caller older than 1.0 (no `protocolVersion`, as the CopilotKit runtime's
//! `@ag-ui/client` 0.0.59 sends): its requests are read, and it is sent only outcomes it
//! can read.

use std::sync::Mutex;

use ag_ui_core::{Event, RunAgentInput};
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::{AgentService, Cancellation, ReportKind};
use serde_json::{Value, json};

use crate::support::{Events, input, post, serve, types, values};

fn finished(events: &[Event]) -> Value {
    let last = values(events).pop().unwrap();
    assert_eq!(last["type"], "RUN_FINISHED", "{last}");
    last
}

/// `body` with `protocolVersion` set to `version`, or without one.
fn with_version(mut body: Value, version: Option<&str>) -> Value {
    match version {
        Some(v) => body["protocolVersion"] = json!(v),
        None => {
            body.as_object_mut().unwrap().remove("protocolVersion");
        }
    }
    body
}

#[tokio::test]
async fn a_pre_1_0_caller_is_sent_a_success_outcome_without_pending_tool_call_ids() {
    let server = serve(AgentService::new(DemoAgent::new())).await;
    let mut body = input("run-1", json!({"scenario": "frontend_tool"}));
    body["tools"] = json!([{"name": "show_city", "description": "Shows a city"}]);

    let old = Events::new(post(&server, &with_version(body.clone(), None)).await)
        .all()
        .await;
    assert_eq!(finished(&old)["outcome"], json!({"type": "success"}));
    // The unanswered call is still in the stream.
    assert!(types(&old).contains(&"TOOL_CALL_END"));

    let new = Events::new(post(&server, &with_version(body, Some("1.0"))).await)
        .all()
        .await;
    assert_eq!(
        finished(&new)["outcome"],
        json!({"type": "success", "pendingToolCallIds": ["run-1-call-1"]})
    );
    // Nothing else differs.
    let strip = |events: &[Event]| {
        values(events)
            .into_iter()
            .map(|mut e| {
                if e["type"] == "RUN_FINISHED" {
                    e["outcome"] = Value::Null;
                }
                e
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&old), strip(&new));
}

#[tokio::test]
async fn a_pre_1_0_caller_is_not_sent_a_cancelled_outcome() {
    fn cancelled(
        input: RunAgentInput,
        _: Cancellation,
    ) -> impl futures_core::Stream<Item = Result<Event, std::io::Error>> {
        let run = json!({"threadId": input.thread_id.as_str(), "runId": input.run_id.as_str()});
        let mut finished = run.clone();
        finished["type"] = json!("RUN_FINISHED");
        finished["outcome"] = json!({"type": "cancelled"});
        let mut started = run;
        started["type"] = json!("RUN_STARTED");
        let events: Vec<Result<Event, std::io::Error>> = [started, finished]
            .into_iter()
            .map(|v| Ok(serde_json::from_value(v).unwrap()))
            .collect();
        futures_util::stream::iter(events)
    }
    let server = serve(AgentService::new(cancelled)).await;
    let body = input("run-1", json!({}));
    let old = Events::new(post(&server, &with_version(body.clone(), None)).await)
        .all()
        .await;
    assert_eq!(finished(&old).get("outcome"), None);
    let new = Events::new(post(&server, &with_version(body, Some("1.0"))).await)
        .all()
        .await;
    assert_eq!(finished(&new)["outcome"], json!({"type": "cancelled"}));
}

/// The body the CopilotKit runtime 1.75.0 forwards (through its `HttpAgent` of
/// `@ag-ui/client` 0.0.59) for a browser's resume run: no `protocolVersion`, `tools` and
/// `context` always present, a tool result message with `content` before `role`.
#[tokio::test]
async fn the_copilotkit_runtimes_resume_request_is_read_as_it_is_sent() {
    let forgiven = std::sync::Arc::new(Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&forgiven);
    let service = AgentService::new(DemoAgent::new()).hook(move |report| match report.kind() {
        ReportKind::Forgiven(w) => seen.lock().unwrap().push(format!("{w:?}")),
        ReportKind::Rejected(r) => seen.lock().unwrap().push(r.to_string()),
        _ => {}
    });
    let server = serve(service).await;
    let body = json!({
        "threadId": "t1",
        "runId": "r2",
        "tools": [{"name": "show_city", "description": "d", "parameters": {"type": "object"}}],
        "context": [{"description": "page", "value": "demo"}],
        "forwardedProps": {"scenario": "interrupt"},
        "state": {"email": {"status": "awaiting approval"}},
        "messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {"id": "a1", "role": "assistant", "content": "x", "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "send_email", "arguments": "{}"}}
            ]},
            {"id": "t1m", "content": "{}", "role": "tool", "toolCallId": "c1"}
        ],
        "resume": [{"interruptId": "c1-approval", "status": "resolved", "payload": {"approved": true}}]
    });
    let events = Events::new(post(&server, &body).await).all().await;
    ag_ui_core::stream::verify_events(&events).unwrap();
    let v = values(&events);
    assert_eq!(v[0]["type"], "RUN_STARTED");
    assert!(
        v.iter()
            .any(|e| e["type"] == "TOOL_CALL_RESULT" && e["toolCallId"] == "c1"),
        "{v:?}"
    );
    assert_eq!(finished(&events)["outcome"], json!({"type": "success"}));
    assert_eq!(forgiven.lock().unwrap().as_slice(), &[] as &[String]);
}

/// `RunGuard::start` itself downgrades (any integration built on it does, not only
/// `AgentService`).
#[tokio::test]
async fn run_guard_start_downgrades_for_a_caller_without_protocol_version() {
    use futures_util::StreamExt;
    let outcome = |version: Option<&str>| {
        let mut body = input("run-1", json!({"scenario": "frontend_tool"}));
        body["tools"] = json!([{"name": "show_city", "description": "Shows a city"}]);
        let doc: RunAgentInput = serde_json::from_value(with_version(body, version)).unwrap();
        async move {
            let guard = ag_ui_server::RunGuard::start(&DemoAgent::new(), doc, Default::default());
            let events: Vec<Event> = guard.collect().await;
            finished(&events)["outcome"].clone()
        }
    };
    assert_eq!(outcome(None).await, json!({"type": "success"}));
    assert_eq!(
        outcome(Some("1.0")).await["pendingToolCallIds"],
        json!(["run-1-call-1"])
    );
}

/// An agent that declares 1.1 and attaches a typed encrypted value to its reasoning.
fn typed_reasoning(
    input: RunAgentInput,
    _: Cancellation,
) -> impl futures_core::Stream<Item = Result<Event, std::io::Error>> {
    let ids = json!({"threadId": input.thread_id.as_str(), "runId": input.run_id.as_str()});
    let mut started = ids.clone();
    started["type"] = json!("RUN_STARTED");
    started["protocolVersion"] = json!("1.1");
    let mut finished = ids;
    finished["type"] = json!("RUN_FINISHED");
    let events: Vec<Result<Event, std::io::Error>> = [
        started,
        json!({"type": "REASONING_MESSAGE_START", "messageId": "rm1", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "rm1"}),
        json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "rm1",
               "encryptedValue": "b64", "encryptedValueType": "anthropic.redacted_thinking"}),
        finished,
    ]
    .into_iter()
    .map(|v| Ok(serde_json::from_value(v).unwrap()))
    .collect();
    futures_util::stream::iter(events)
}

#[tokio::test]
async fn the_stream_is_sent_in_the_highest_version_both_sides_speak() {
    let left_out = std::sync::Arc::new(Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&left_out);
    let service = AgentService::new(typed_reasoning).hook(move |report| {
        if let ReportKind::Downgraded(w) = report.kind() {
            seen.lock()
                .unwrap()
                .extend(w.iter().map(|w| w.pointer.clone()));
        }
    });
    let server = serve(service).await;
    let body = input("run-1", json!({}));
    let encrypted = |events: &[Event]| {
        values(events)
            .into_iter()
            .find(|e| e["type"] == "REASONING_ENCRYPTED_VALUE")
            .unwrap()
    };
    // A 1.1 caller gets the agent's stream as it is.
    let new = Events::new(post(&server, &with_version(body.clone(), Some("1.1"))).await)
        .all()
        .await;
    assert_eq!(values(&new)[0]["protocolVersion"], "1.1");
    assert_eq!(
        encrypted(&new)["encryptedValueType"],
        "anthropic.redacted_thinking"
    );
    assert!(left_out.lock().unwrap().is_empty());
    // A 1.0 caller (and one without protocolVersion) gets 1.0: the type left out, reported.
    for version in [Some("1.0"), None] {
        let old = Events::new(post(&server, &with_version(body.clone(), version)).await)
            .all()
            .await;
        assert_eq!(values(&old)[0]["protocolVersion"], "1.0", "{version:?}");
        assert_eq!(
            encrypted(&old),
            json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "rm1",
                   "encryptedValue": "b64"}),
            "{version:?}"
        );
        assert_eq!(
            std::mem::take(&mut *left_out.lock().unwrap()),
            ["/encryptedValueType"],
            "{version:?}"
        );
    }
}
