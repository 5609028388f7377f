//! Older agents: the peer protocol ceiling downgrades requests and filters events.

use ag_ui_client::{HttpAgent, ProtocolVersion, RunOptions, WarningSource};
use ag_ui_core::{ContentPart, Message, PartSource, UserMessage};
use serde_json::json;

use crate::server::{Plan, TestServer, sse};
use crate::{bounded, chat, collect, run_finished, run_started, to_json, types};

fn multimodal_user() -> Message {
    Message::User(
        UserMessage::new(
            "u1",
            vec![
                ContentPart::text("Look at "),
                ContentPart::image(PartSource::url("https://example.com/a.png")),
                ContentPart::text("this"),
            ],
        )
        .with_subagent_run_id("sub1"),
    )
}

#[test]
fn the_version_type_is_core_s_under_both_paths() {
    // The first release's path names the same type.
    let v: ag_ui_client::compat::ProtocolVersion = ag_ui_core::ProtocolVersion::V1_1;
    assert_eq!(v, ProtocolVersion::V1_1);
}

#[test]
fn versions_parse_compare_and_print() {
    assert_eq!(ProtocolVersion::parse("1.0"), Some(ProtocolVersion::V1_0));
    assert_eq!(
        ProtocolVersion::parse("0.0.39"),
        Some(ProtocolVersion::BEFORE_CONTENT_PARTS)
    );
    assert!(ProtocolVersion::parse("0.0.57").unwrap() < ProtocolVersion::V1_0);
    assert!(ProtocolVersion::parse("1.1").unwrap() > ProtocolVersion::V1_0);
    for bad in ["1", "1.x", "", "1..0", "1.0.0.0", "v1.0", "1.0-rc1", " 1.0"] {
        assert_eq!(ProtocolVersion::parse(bad), None, "{bad:?}");
        assert!(bad.parse::<ProtocolVersion>().is_err());
    }
    assert_eq!(ProtocolVersion::V1_0.to_string(), "1.0");
    assert_eq!(ProtocolVersion::new(0, 0, 45).to_string(), "0.0.45");
}

#[test]
fn a_1_0_agent_gets_the_input_unchanged() {
    let mut agent = HttpAgent::new("http://127.0.0.1:9/agent").unwrap();
    agent.add_message(multimodal_user());
    let (input, warnings) = agent.prepare(&RunOptions::new());
    assert!(warnings.is_empty());
    assert_eq!(input.protocol_version.as_deref(), Some("1.0"));
    assert_eq!(to_json(&input.messages[0]), to_json(&multimodal_user()));
}

#[test]
fn ceilings_downgrade_only_what_the_peer_predates() {
    let prepare = |ceiling: &str| {
        let mut agent = HttpAgent::builder("http://127.0.0.1:9/agent")
            .peer_protocol_ceiling(ceiling.parse().unwrap())
            .build()
            .unwrap();
        agent.add_message(multimodal_user());
        agent.add_message(Message::Tool(ag_ui_core::ToolMessage::new(
            "tm1",
            vec![ContentPart::text("42")],
            "c1",
        )));
        agent.prepare(&RunOptions::new())
    };

    // 0.0.60: no protocolVersion, tool parts flattened, user parts and subagent ids kept.
    let (input, warnings) = prepare("0.0.60");
    assert_eq!(input.protocol_version, None);
    let m = to_json(&input.messages);
    assert_eq!(m[0]["content"].as_array().unwrap().len(), 3);
    assert_eq!(m[0]["subagentRunId"], "sub1");
    assert_eq!(m[1]["content"], "42");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]
            .message
            .contains("/messages/1 flattened to text")
            && !warnings[0].message.contains("dropped"),
        "{}",
        warnings[0]
    );

    // 0.0.57: subagent attribution stripped too.
    let (input, _) = prepare("0.0.57");
    assert!(to_json(&input.messages)[0].get("subagentRunId").is_none());

    // 0.0.39: user content flattened to its text, the warning names the dropped image.
    let (input, warnings) = prepare("0.0.39");
    assert_eq!(to_json(&input.messages)[0]["content"], "Look at this");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(warnings[0].source, WarningSource::Compatibility);
    assert!(
        warnings[0].message.contains("/messages/0"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[0].message.contains("1 non-text part"),
        "{}",
        warnings[0]
    );
}

#[tokio::test]
async fn subagent_events_are_dropped_with_a_warning_for_a_peer_that_predates_them() {
    bounded(async {
        let body = sse(&[
            run_started(),
            json!({"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"helper"}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"a1","subagentRunId":"s1","mood":1}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"hi"}),
            json!({"type":"TEXT_MESSAGE_END","messageId":"a1"}),
            json!({"type":"SUBAGENT_FINISHED","subagentRunId":"s1"}),
            run_finished(),
        ]);
        let server = TestServer::always(Plan::sse(body.clone())).await;

        let mut old = HttpAgent::builder(&server.url)
            .peer_protocol_ceiling(ProtocolVersion::new(0, 0, 50))
            .build()
            .unwrap();
        let (events, end) = collect(old.send("Hi")).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert!(!types(&events).iter().any(|t| t.starts_with("SUBAGENT_")));
        let dropped: Vec<_> = end
            .warnings
            .iter()
            .filter(|w| w.source == WarningSource::Compatibility)
            .map(|w| (w.event_index, w.event_type.clone()))
            .collect();
        assert_eq!(
            dropped,
            [
                (Some(1), Some("SUBAGENT_STARTED".to_owned())),
                (Some(2), Some("TEXT_MESSAGE_START".to_owned())),
                (Some(5), Some("SUBAGENT_FINISHED".to_owned()))
            ]
        );
        // Indices count the events as the agent sent them, dropped ones included.
        let unknown_field = |end: &ag_ui_client::RunEnd| {
            end.warnings
                .iter()
                .find(|w| w.kind == Some(ag_ui_core::WarningKind::UnknownField))
                .and_then(|w| w.event_index)
        };
        assert_eq!(unknown_field(&end), Some(2));
        assert!(to_json(old.messages())[1].get("subagentRunId").is_none());
        assert!(server.requests()[0].body.get("protocolVersion").is_none());

        // A 1.0 agent's subagent events are delivered.
        let mut new = HttpAgent::new(&server.url).unwrap();
        let (events, end) = collect(new.send("Hi")).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert_eq!(
            types(&events)
                .iter()
                .filter(|t| t.starts_with("SUBAGENT_"))
                .count(),
            2
        );
        assert_eq!(server.requests()[1].body["protocolVersion"], "1.0");
        assert_eq!(unknown_field(&end), Some(2));
        assert_eq!(to_json(new.messages())[1]["subagentRunId"], "s1");
        let _ = chat;
    })
    .await;
}

fn typed_thread() -> ag_ui_core::ThreadState {
    ag_ui_core::ThreadState::new().with_messages(vec![Message::Reasoning(
        ag_ui_core::ReasoningMessage::new("r1", "")
            .with_encrypted_value("sig")
            .with_encrypted_value_type("anthropic.signature"),
    )])
}

#[test]
fn the_client_declares_1_0_by_default_and_1_1_when_it_opts_in() {
    let thread_id = ag_ui_core::ThreadId::from("t1");
    let options = RunOptions::default();
    // By default: 1.0, and the value goes back without its type, with a warning.
    let (input, warnings) = ag_ui_client::build_input(&thread_id, &typed_thread(), &options, None);
    assert_eq!(input.protocol_version.as_deref(), Some("1.0"));
    let sent = to_json(&input);
    assert_eq!(
        sent["messages"][0],
        json!({"id":"r1","role":"reasoning","content":"","encryptedValue":"sig"})
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].source, WarningSource::Compatibility);
    assert_eq!(warnings[0].kind, Some(ag_ui_core::WarningKind::Downgraded));
    assert!(
        warnings[0]
            .message
            .contains("/messages/0/encryptedValueType")
    );
    // Opted in: 1.1, value and type.
    let (input, warnings) = ag_ui_client::build_input_as(
        &thread_id,
        &typed_thread(),
        &options,
        None,
        ProtocolVersion::V1_1,
    );
    assert_eq!(input.protocol_version.as_deref(), Some("1.1"));
    assert_eq!(
        to_json(&input)["messages"][0]["encryptedValueType"],
        "anthropic.signature"
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    // Opted in, toward an agent known to speak 1.0: 1.0 again.
    let (input, warnings) =
        ag_ui_client::normalize_input_as(input, Some(ProtocolVersion::V1_0), ProtocolVersion::V1_1);
    assert_eq!(input.protocol_version.as_deref(), Some("1.0"));
    assert!(
        to_json(&input)["messages"][0]
            .get("encryptedValueType")
            .is_none()
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
}

#[test]
fn a_binary_part_is_upgraded_quietly_for_a_current_caller_and_with_a_notice_for_an_old_one() {
    let part = r#"{"type":"binary","mimeType":"image/png","data":"iVBORw0KGgo="}"#;
    let body = |version: &str| {
        format!(
            r#"{{"threadId":"t","runId":"r",{version}"messages":[{{"id":"u1","role":"user","content":[{part}]}}]}}"#
        )
    };
    let binary = |w: &Vec<ag_ui_client::RunWarning>| {
        w.iter()
            .filter(|w| w.kind == Some(ag_ui_core::WarningKind::LegacyBinaryPart))
            .count()
    };
    for current in [r#""protocolVersion":"1.0","#, r#""protocolVersion":"1.1","#] {
        let (input, warnings) = ag_ui_client::read_input(&body(current)).unwrap();
        assert_eq!(binary(&warnings), 0, "{current}: {warnings:?}");
        assert_eq!(
            to_json(&input)["messages"][0]["content"][0]["type"],
            "image",
            "{current}"
        );
    }
    let (_, warnings) = ag_ui_client::read_input(&body("")).unwrap();
    assert_eq!(binary(&warnings), 1, "{warnings:?}");
}
