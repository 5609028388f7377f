//! Short forms and builders against the fixture corpus (as JSON, and through the
//! exact-mode reader).

use ag_ui_builders::content::{self, Parts};
use ag_ui_builders::event::*;
use ag_ui_builders::interrupt::*;
use ag_ui_builders::outcome::*;
use ag_ui_builders::*;
use ag_ui_core::{
    AssistantMessage, Event, EventType, Interrupt, JsonPatchOperation, Message, Metadata,
    ResumeStatus, TokenUsage, Tool,
};
use ag_ui_fixtures::Failures;
use serde_json::{Value, json};

use crate::support::{exact, full, same};

fn obj(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().cloned().unwrap()
}

#[test]
fn event_short_forms_equal_the_minimal_fixtures() {
    let mut f = Failures::new();
    let e = Some("Event");
    same(
        &mut f,
        "TextMessageStartEvent",
        "spec-minimal",
        e,
        &text_message_start("msg-1"),
    );
    same(
        &mut f,
        "TextMessageContentEvent",
        "spec-minimal",
        e,
        &text_message_content("msg-1", "Hel"),
    );
    same(
        &mut f,
        "TextMessageEndEvent",
        "spec-minimal",
        e,
        &text_message_end("msg-1"),
    );
    same(
        &mut f,
        "ToolCallStartEvent",
        "spec-minimal",
        e,
        &tool_call_start("call_1", "get_weather"),
    );
    same(
        &mut f,
        "ToolCallArgsEvent",
        "spec-minimal",
        e,
        &tool_call_args("call_1", r#"{"city":"#),
    );
    same(
        &mut f,
        "ToolCallEndEvent",
        "spec-minimal",
        e,
        &tool_call_end("call_1"),
    );
    same(
        &mut f,
        "ToolCallResultEvent",
        "spec-minimal",
        e,
        &tool_call_result("tool-msg-1", "call_1", r#"{"temperature":14}"#),
    );
    same(
        &mut f,
        "StateSnapshotEvent",
        "spec-minimal",
        e,
        &state_snapshot(Value::Null),
    );
    same(
        &mut f,
        "StateDeltaEvent",
        "spec-minimal",
        e,
        &state_delta([]).unwrap(),
    );
    same(
        &mut f,
        "MessagesSnapshotEvent",
        "spec-minimal",
        e,
        &messages_snapshot([]),
    );
    same(
        &mut f,
        "ActivitySnapshotEvent",
        "spec-minimal",
        e,
        &activity_snapshot("act-1", "PLAN", &json!({})).unwrap(),
    );
    same(
        &mut f,
        "ActivityDeltaEvent",
        "spec-minimal",
        e,
        &activity_delta("act-1", "PLAN", []).unwrap(),
    );
    same(&mut f, "RawEvent", "spec-minimal", e, &raw(Value::Null));
    same(
        &mut f,
        "CustomEvent",
        "spec-minimal",
        e,
        &custom("on_interrupt", Value::Null),
    );
    same(
        &mut f,
        "RunStartedEvent",
        "protocol-version",
        e,
        &run_started("t1", "r1"),
    );
    same(
        &mut f,
        "RunFinishedEvent",
        "spec-minimal",
        e,
        &run_finished("thread-1", "run-1"),
    );
    same(
        &mut f,
        "RunFinishedEvent",
        "spec-cancelled-outcome",
        e,
        &run_finished_cancelled("thread-1", "run-1"),
    );
    same(
        &mut f,
        "RunErrorEvent",
        "spec-minimal",
        e,
        &run_error("Model provider timed out"),
    );
    same(
        &mut f,
        "StepStartedEvent",
        "spec-minimal",
        e,
        &step_started("plan"),
    );
    same(
        &mut f,
        "StepFinishedEvent",
        "spec-minimal",
        e,
        &step_finished("plan"),
    );
    same(
        &mut f,
        "ReasoningStartEvent",
        "spec-minimal",
        e,
        &reasoning_start("rsn-span-1"),
    );
    same(
        &mut f,
        "ReasoningMessageStartEvent",
        "spec-minimal",
        e,
        &reasoning_message_start("rsn-1"),
    );
    same(
        &mut f,
        "ReasoningMessageContentEvent",
        "spec-minimal",
        e,
        &reasoning_message_content("rsn-1", ""),
    );
    same(
        &mut f,
        "ReasoningMessageEndEvent",
        "spec-minimal",
        e,
        &reasoning_message_end("rsn-1"),
    );
    same(
        &mut f,
        "ReasoningEndEvent",
        "spec-minimal",
        e,
        &reasoning_end("rsn-span-1"),
    );
    same(
        &mut f,
        "ReasoningEncryptedValueEvent",
        "spec-minimal",
        e,
        &message_encrypted_value("rsn-1", "gAAAA"),
    );
    same(
        &mut f,
        "SubagentStartedEvent",
        "spec-minimal",
        e,
        &subagent_started("sub-1", "researcher"),
    );
    same(
        &mut f,
        "SubagentFinishedEvent",
        "spec-minimal",
        e,
        &subagent_finished("sub-1"),
    );
    same(
        &mut f,
        "SubagentErrorEvent",
        "spec-minimal",
        e,
        &subagent_error("sub-1", "Tool crashed"),
    );
    f.finish("minimal event short form");
}

#[test]
fn event_short_forms_with_setters_equal_the_full_fixtures() {
    let mut f = Failures::new();
    let e = Some("Event");
    same(
        &mut f,
        "TextMessageStartEvent",
        "spec-full",
        e,
        &full!(text_message_start("msg-1"), sub)
            .with_role(ag_ui_core::TextMessageRole::Assistant)
            .with_name("planner"),
    );
    same(
        &mut f,
        "TextMessageChunkEvent",
        "spec-full",
        e,
        &full!(text_message_chunk("msg-2", "Hi"), sub)
            .with_role(ag_ui_core::TextMessageRole::Assistant)
            .with_name("planner"),
    );
    same(
        &mut f,
        "ToolCallChunkEvent",
        "spec-full",
        e,
        &full!(tool_call_chunk("call_2", "search", r#"{"q":"ag-ui"}"#), sub)
            .with_parent_message_id("msg-1"),
    );
    same(
        &mut f,
        "ReasoningMessageChunkEvent",
        "spec-full",
        e,
        &full!(reasoning_message_chunk("rsn-2", "Considering options"), sub),
    );
    same(
        &mut f,
        "ReasoningEncryptedValueEvent",
        "spec-full",
        e,
        &full!(tool_call_encrypted_value("call_1", "gAAAA"), sub),
    );
    same(
        &mut f,
        "ToolCallResultEvent",
        "spec-full",
        e,
        &full!(
            tool_call_result(
                "tool-msg-2",
                "call_2",
                Parts::new().text("Found it.").image(
                    content::url("https://example.com/chart.png").with_mime_type("image/png")
                ),
            ),
            sub
        )
        .with_role(ag_ui_core::ToolRole::Tool),
    );
    same(
        &mut f,
        "StateDeltaEvent",
        "spec-full",
        e,
        &full!(
            state_delta([
                JsonPatchOperation::add("/a", 1),
                JsonPatchOperation::remove("/b"),
                JsonPatchOperation::replace("/c", Value::Null),
                JsonPatchOperation::move_("/d", "/e"),
                JsonPatchOperation::copy("/e", "/f"),
                JsonPatchOperation::test("/a", 1),
            ])
            .unwrap(),
            sub
        ),
    );
    same(
        &mut f,
        "ActivitySnapshotEvent",
        "spec-full",
        e,
        &full!(
            activity_snapshot(
                "act-1",
                "PLAN",
                &json!({"steps": [{"title": "Search", "status": "running"}]})
            )
            .unwrap(),
            sub
        )
        .with_replace(false),
    );
    same(
        &mut f,
        "MessagesSnapshotEvent",
        "spec-full",
        e,
        &full!(messages_snapshot([
            developer_message("dev-1", "Be brief.").into(),
            system_message("sys-1", "You are helpful.").into(),
            user_message("user-1", "Weather?").into(),
            assistant_tool_calls("asst-1", [tool_call("call_1", "get_weather", "{}")])
                .with_subagent_run_id("sub-1")
                .into(),
            tool_message("tool-1", "14C", "call_1").into(),
            activity_message("act-1", "PLAN", &json!({"step": 1}))
                .unwrap()
                .into(),
            reasoning_message("rsn-1", "Thinking...")
                .with_encrypted_value("enc")
                .into(),
        ])),
    );
    same(
        &mut f,
        "RunStartedEvent",
        "spec-full",
        e,
        &full!(run_started("thread-1", "run-2"))
            .with_parent_run_id("run-1")
            .with_input(spec_full_input()),
    );
    same(
        &mut f,
        "RunStartedEvent",
        "input-resume",
        e,
        &run_started("t1", "r2").with_input(
            RunInputBuilder::new("t1", "r2")
                .resume(resolve("int-1", json!({"approved": true})))
                .build(),
        ),
    );
    same(
        &mut f,
        "RunFinishedEvent",
        "spec-full",
        e,
        &full!(run_finished("thread-1", "run-1"))
            .with_result(json!({"answer": 42}))
            .with_outcome(success_pending(["call_9"]))
            .with_usage(vec![
                ProviderUsage::new(1200, 340)
                    .with_provider("openai")
                    .with_model("gpt-5")
                    .with_total_tokens(1540)
                    .with_reasoning_tokens(200)
                    .with_cached_tokens(800)
                    .with_cache_write_tokens(100)
                    .to_token_usage(),
                ProviderUsage::new(10, 5)
                    .with_provider("anthropic")
                    .with_model("claude")
                    .to_token_usage(),
            ]),
    );
    same(
        &mut f,
        "RunFinishedEvent",
        "spec-interrupt-outcome",
        e,
        &run_finished_interrupt("thread-1", "run-1", [spec_full_interrupt()]).unwrap(),
    );
    same(
        &mut f,
        "RunErrorEvent",
        "spec-full",
        e,
        &full!(run_error("Model provider timed out"))
            .with_code("provider_timeout")
            .with_usage(vec![
                TokenUsage::for_model("openai", "gpt-5").with_input_tokens(900_u64),
            ]),
    );
    same(
        &mut f,
        "SubagentStartedEvent",
        "spec-full",
        e,
        &full!(subagent_started("sub-2", "researcher"))
            .with_description("Finds sources")
            .with_parent_subagent_run_id("sub-1")
            .with_parent_tool_call_id("call_3")
            .with_parent_message_id("msg-1"),
    );
    same(
        &mut f,
        "SubagentFinishedEvent",
        "spec-full",
        e,
        &full!(subagent_finished("sub-1"))
            .with_result(json!({"sources": 3}))
            .with_outcome(subagent_suspended(["int-1"])),
    );
    f.finish("full event short form");
}

fn spec_full_interrupt() -> Interrupt {
    tool_approval("int-1", "call_1", "Send email to a@b.com?")
        .with_response_schema(obj(ObjectSchema::new()
            .required_property("approved", json!({"type": "boolean"}))
            .property("editedArgs", json!({"type": "object"}))
            .build()))
        .with_expires_at("2026-04-20T17:00:00Z")
        .with_metadata(Metadata::new().with("langgraph", json!({"checkpointId": "ckpt-xyz"})))
        .with_subagent_run_id("sub-1")
}

fn spec_full_input() -> ag_ui_core::RunAgentInput {
    RunInputBuilder::new("thread-1", "run-2")
        .parent_run_id("run-1")
        .state(json!({"draft": "hello"}))
        .message(system_message("sys-1", "You are helpful."))
        .message(user_message("user-1", "Send the email."))
        .message(assistant_tool_calls(
            "asst-1",
            [tool_call("call_1", "send_email", json!({"to": "a@b.com"}))],
        ))
        .tool(tool(
            "send_email",
            "Send an email",
            object_schema([("to", json!({"type": "string"}))], ["to"]).unwrap(),
        ))
        .context("User locale", "en-US")
        .forwarded_props(json!({"temperature": 0.2}))
        .resume(resolve("int-1", json!({"approved": true})))
        .build()
}

#[test]
fn type_short_forms_equal_the_fixtures() {
    let mut f = Failures::new();
    let m = Some("Message");
    same(
        &mut f,
        "SystemMessage",
        "spec-minimal",
        m,
        &system_message("sys-1", "You are a helpful assistant."),
    );
    same(
        &mut f,
        "DeveloperMessage",
        "spec-minimal",
        m,
        &developer_message("dev-1", "Prefer concise answers."),
    );
    same(
        &mut f,
        "UserMessage",
        "spec-minimal",
        m,
        &user_message("user-1", "Hello!"),
    );
    same(
        &mut f,
        "UserMessage",
        "spec-full",
        m,
        &user_message(
            "user-2",
            Parts::new()
                .text("What is shown here?")
                .image(content::url("https://example.com/screen.png").with_mime_type("image/png"))
                .audio(content::bytes(b"RIFF", "audio/wav"))
                .video(content::url("https://example.com/clip.mp4"))
                .part(
                    ag_ui_core::DocumentPart::new(
                        content::file("file-abc123")
                            .with_provider("openai")
                            .with_mime_type("application/pdf"),
                    )
                    .with_id("doc-1")
                    .with_metadata(json!({"pages": 3})),
                ),
        )
        .with_name("alice")
        .with_encrypted_value("enc-user")
        .with_metadata(Metadata::new().with("client", "web"))
        .with_subagent_run_id("sub-1"),
    );
    same(
        &mut f,
        "UserMessage",
        "msg-user-file",
        m,
        &user_message(
            "1",
            vec![content::document(
                content::file("file-abc").with_provider("openai"),
            )],
        ),
    );
    same(
        &mut f,
        "AssistantMessage",
        "spec-full",
        m,
        &assistant_message_with_tool_calls(
            "asst-1",
            "Let me check.",
            [tool_call("call_1", "get_weather", json!({"city": "Paris"}))
                .with_encrypted_value("enc-call")
                .with_metadata(Metadata::new().with("latencyMs", 84))],
        )
        .with_name("planner")
        .with_encrypted_value("enc-asst")
        .with_metadata(Metadata::new().with("finishReason", "tool_calls"))
        .with_subagent_run_id("sub-1"),
    );
    same(
        &mut f,
        "AssistantMessage",
        "several-tool-calls",
        m,
        &assistant_message_with_tool_calls(
            "a1",
            "",
            [
                tool_call("c1", "search", "{}").with_encrypted_value("sig-1"),
                tool_call("c2", "fetch", "")
                    .with_metadata(Metadata::new().with("ag-ui", json!({"parallel": true}))),
            ],
        ),
    );
    same(
        &mut f,
        "AssistantMessage",
        "assistant-toolcalls-empty",
        m,
        &assistant_tool_calls(
            super::fixture_string("AssistantMessage", "assistant-toolcalls-empty", "id"),
            [],
        ),
    );
    same(
        &mut f,
        "ToolMessage",
        "spec-minimal",
        m,
        &tool_message("tool-1", r#"{"temperature":14}"#, "call_1"),
    );
    same(
        &mut f,
        "ToolMessage",
        "error-beside-content",
        m,
        &tool_message("t1", "partial rows: 3", "c1").with_error("timeout after 30s"),
    );
    same(
        &mut f,
        "ReasoningMessage",
        "spec-minimal",
        m,
        &reasoning_message("rsn-1", ""),
    );
    same(
        &mut f,
        "ActivityMessage",
        "spec-minimal",
        m,
        &activity_message("act-1", "PLAN", &json!({})).unwrap(),
    );
    same(
        &mut f,
        "ActivityMessage",
        "spec-full",
        m,
        &activity_message(
            "act-1",
            "PLAN",
            &json!({"steps": [{"title": "Search", "status": "done"}]}),
        )
        .unwrap()
        .with_metadata(Metadata::new().with("k", "v"))
        .with_subagent_run_id("sub-1"),
    );

    same(
        &mut f,
        "ToolCall",
        "spec-minimal",
        None,
        &tool_call("call_1", "get_weather", json!({})),
    );
    same(
        &mut f,
        "ToolCall",
        "spec-full",
        None,
        &tool_call("call_1", "get_weather", r#"{"city":"Paris"}"#)
            .with_encrypted_value("gAAAAB-opaque")
            .with_metadata(
                Metadata::new()
                    .with("provider", "anthropic")
                    .with("latencyMs", 84),
            ),
    );
    same(
        &mut f,
        "FunctionCall",
        "spec-minimal",
        None,
        &function_call("get_weather", json!({"city": "Paris"})),
    );
    same(
        &mut f,
        "Tool",
        "spec-full",
        None,
        &tool(
            "get_weather",
            "Get the weather for a city",
            object_schema([("city", json!({"type": "string"}))], ["city"]).unwrap(),
        )
        .with_metadata(Metadata::new().with("ui", "compact")),
    );
    same(
        &mut f,
        "Context",
        "spec-minimal",
        None,
        &context("User locale", "en-US"),
    );
    same(
        &mut f,
        "Interrupt",
        "spec-full",
        None,
        &spec_full_interrupt(),
    );
    same(
        &mut f,
        "ResumeEntry",
        "spec-minimal",
        None,
        &cancel("int-1"),
    );
    same(
        &mut f,
        "ResumeEntry",
        "cancelled-no-payload",
        None,
        &resume(
            super::fixture_string("ResumeEntry", "cancelled-no-payload", "interruptId"),
            ResumeStatus::Cancelled,
            None,
        ),
    );
    same(
        &mut f,
        "ResumeEntry",
        "spec-full",
        None,
        &resolve(
            "int-1",
            json!({"approved": true, "editedArgs": {"to": "a@b.com"}}),
        )
        .with_metadata(Metadata::new().with("signature", "sig-abc")),
    );
    let o = Some("RunFinishedOutcome");
    same(
        &mut f,
        "RunFinishedSuccessOutcome",
        "spec-minimal",
        o,
        &success(),
    );
    same(
        &mut f,
        "RunFinishedSuccessOutcome",
        "spec-full",
        o,
        &success_pending(["call_7", "call_8"]),
    );
    same(
        &mut f,
        "RunFinishedCancelledOutcome",
        "spec-minimal",
        o,
        &cancelled(),
    );
    same(
        &mut f,
        "RunFinishedInterruptOutcome",
        "spec-minimal",
        o,
        &interrupted([Interrupt::new("int-1", "confirmation")]).unwrap(),
    );
    same(
        &mut f,
        "RunFinishedInterruptOutcome",
        "spec-full",
        o,
        &interrupted([
            spec_full_interrupt(),
            interrupt("int-2", "input_required", "Which quarter?"),
        ])
        .unwrap(),
    );
    let s = Some("SubagentFinishedOutcome");
    same(
        &mut f,
        "SubagentFinishedSuccessOutcome",
        "spec-minimal",
        s,
        &subagent_success(),
    );
    same(
        &mut f,
        "SubagentFinishedSuspendedOutcome",
        "spec-minimal",
        s,
        &subagent_suspended(Vec::<String>::new()),
    );
    same(
        &mut f,
        "SubagentFinishedSuspendedOutcome",
        "spec-full",
        s,
        &subagent_suspended(["int-1"]),
    );

    let p = Some("PartSource");
    same(
        &mut f,
        "DataSource",
        "spec-minimal",
        p,
        &content::bytes(
            &[0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'],
            "image/png",
        ),
    );
    same(
        &mut f,
        "UrlSource",
        "spec-minimal",
        p,
        &content::url("https://example.com/cat.png"),
    );
    same(
        &mut f,
        "UrlSource",
        "spec-full",
        p,
        &content::url("https://example.com/cat.png").with_mime_type("image/png"),
    );
    same(
        &mut f,
        "FileSource",
        "spec-minimal",
        p,
        &content::file("file-abc123"),
    );
    same(
        &mut f,
        "FileSource",
        "spec-full",
        p,
        &content::file("file-abc123")
            .with_provider("openai")
            .with_mime_type("application/pdf"),
    );
    let c = Some("ContentPart");
    same(
        &mut f,
        "TextPart",
        "spec-minimal",
        c,
        &content::text("What is in this image?"),
    );
    same(
        &mut f,
        "ImagePart",
        "spec-minimal",
        c,
        &content::image(content::url("https://example.com/cat.png")),
    );
    same(
        &mut f,
        "AudioPart",
        "spec-minimal",
        c,
        &content::audio(content::data("UklGRg==", "audio/wav")),
    );
    same(
        &mut f,
        "AudioPart",
        "spec-minimal",
        c,
        &content::media(content::bytes(b"RIFF", "audio/wav")),
    );
    same(
        &mut f,
        "VideoPart",
        "spec-minimal",
        c,
        &content::media(content::url("https://example.com/clip.mp4").with_mime_type("video/mp4")),
    );
    same(
        &mut f,
        "DocumentPart",
        "spec-minimal",
        c,
        &content::media(
            content::file("file-abc123")
                .with_provider("openai")
                .with_mime_type("application/pdf"),
        ),
    );
    same(
        &mut f,
        "TokenUsage",
        "spec-full",
        None,
        &ProviderUsage::new(1200, 340)
            .with_provider("openai")
            .with_model("gpt-5")
            .with_reasoning_tokens(200)
            .with_cached_tokens(800)
            .with_cache_write_tokens(100)
            .to_token_usage(),
    );
    same(
        &mut f,
        "RunAgentInput",
        "spec-full",
        None,
        &spec_full_input(),
    );
    f.finish("type short form");
}

#[test]
fn every_example_event_is_exact_and_of_its_type() {
    let mut f = Failures::new();
    for &t in EventType::ALL {
        f.check(
            t.as_str(),
            (|| {
                let e: Event = example(t).map_err(|e| e.to_string())?;
                if e.event_type() != t {
                    return Err(format!("example is a {}", e.event_type()));
                }
                exact("Event", &e).map(drop)
            })(),
        );
    }
    f.finish("example event");
}

#[test]
fn short_forms_keep_the_protocol_defaults() {
    // Absent role means assistant; the short form does not write it.
    let start = text_message_start("m");
    assert_eq!(start.role, None);
    assert_eq!(start.role(), ag_ui_core::TextMessageRole::Assistant);
    // Absent replace means true.
    let snap = activity_snapshot("a", "PLAN", &json!({})).unwrap();
    assert_eq!(snap.replace, None);
    assert!(snap.replace());
    // Reasoning messages carry their required role.
    let v = serde_json::to_value(reasoning_message_start("r")).unwrap();
    assert_eq!(v["role"], "reasoning");
    // Empty deltas are allowed everywhere.
    for e in [
        Event::from(text_message_content("m", "")),
        tool_call_args("c", "").into(),
        reasoning_message_content("r", "").into(),
    ] {
        exact("Event", &e).unwrap();
    }
    // A tool call's type is always function.
    assert_eq!(
        serde_json::to_value(tool_call("c", "f", "{}")).unwrap()["type"],
        "function"
    );
    // RUN_STARTED declares the producer's version.
    assert_eq!(
        run_started("t", "r").protocol_version.as_deref(),
        Some("1.0")
    );
    // The message short forms take (id, content) and set nothing else.
    let a: AssistantMessage = assistant_message("a", "hi");
    assert_eq!((a.tool_calls, a.name), (None, None));
    let _: Message = a_message();
}

fn a_message() -> Message {
    system_message("s", "x").into()
}

#[test]
fn an_interrupt_outcome_needs_an_interrupt() {
    assert_eq!(interrupted([]).unwrap_err(), BuildError::NoInterrupts);
    assert_eq!(
        run_finished_interrupt("t", "r", []).unwrap_err(),
        BuildError::NoInterrupts
    );
    let ok = run_finished_interrupt("t", "r", [confirmation("i", "ok?")]).unwrap();
    assert!(matches!(
        ok.outcome(),
        std::borrow::Cow::Borrowed(ag_ui_core::RunFinishedOutcome::Interrupt(_))
    ));
}

#[test]
fn bad_values_are_errors_with_pointers() {
    let err = activity_snapshot("a", "PLAN", &json!([1])).unwrap_err();
    assert_eq!(err.pointer(), Some("/content"));
    assert!(err.to_string().contains("an array"), "{err}");
    let err = activity_message("a", "PLAN", &"text").unwrap_err();
    assert_eq!(err.pointer(), Some("/content"));
    let err = state_delta([
        JsonPatchOperation::add("/ok", 1),
        JsonPatchOperation::remove("bad"),
    ])
    .unwrap_err();
    assert_eq!(err.pointer(), Some("/delta/1/path"));
    let err = activity_delta("a", "PLAN", [JsonPatchOperation::move_("x", "/y")]).unwrap_err();
    assert_eq!(err.pointer(), Some("/patch/0/from"));
    let err = input_required("i", "Which?", json!(true)).unwrap_err();
    assert_eq!(err.pointer(), Some("/responseSchema"));
    let err = object_schema([("a", json!({}))], ["a", "b"]).unwrap_err();
    assert_eq!(
        err,
        BuildError::UndeclaredRequired {
            pointer: "/required/1".into(),
            name: "b".into()
        }
    );
}

#[test]
fn resume_entries_never_carry_a_null_payload() {
    let v = serde_json::to_value(resume("i", ResumeStatus::Resolved, Value::Null)).unwrap();
    assert_eq!(v, json!({"interruptId": "i", "status": "resolved"}));
    let v = serde_json::to_value(resolve("i", json!(false))).unwrap();
    assert_eq!(v["payload"], json!(false));
}

#[test]
fn bytes_are_base64_encoded() {
    for (raw, b64) in [
        (&b""[..], ""),
        (b"f", "Zg=="),
        (b"fo", "Zm8="),
        (b"foo", "Zm9v"),
        (b"foob", "Zm9vYg=="),
        (b"fooba", "Zm9vYmE="),
        (b"foobar", "Zm9vYmFy"),
        (&[0xff, 0xfe, 0xfd], "//79"),
    ] {
        assert_eq!(content::bytes(raw, "x/y").value, b64);
    }
}

#[test]
fn tools_from_object_schemas() {
    let t: Tool = tool(
        "get_weather",
        "Get the current weather for a city",
        ObjectSchema::new()
            .required_property(
                "city",
                json!({"type": "string", "description": "City name"}),
            )
            .description("Weather query")
            .additional_properties(false),
    );
    assert_eq!(
        t.parameters.unwrap(),
        json!({
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"],
            "description": "Weather query",
            "additionalProperties": false
        })
    );
    assert_eq!(
        ObjectSchema::new().build(),
        json!({"type": "object", "properties": {}})
    );
}

#[test]
fn chunk_short_forms_expand_to_a_valid_stream() {
    let input: Vec<Event> = vec![
        run_started("t", "r").into(),
        text_message_chunk("m1", "Hel").into(),
        text_message_chunk_continue("lo").into(),
        tool_call_chunk("c1", "search", r#"{"q":"#).into(),
        tool_call_chunk_continue(r#""otters"}"#).into(),
        reasoning_message_chunk("r1", "").into(),
        run_finished_success("t", "r").into(),
    ];
    let mut expander = ag_ui_core::ChunkExpander::new();
    let mut out = Vec::new();
    for e in input {
        out.extend(expander.push(e).unwrap());
    }
    out.extend(expander.finish());
    crate::support::assert_valid_sequence(&out);
    assert_eq!(
        crate::support::types(&out),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "RUN_FINISHED",
        ]
    );
}
