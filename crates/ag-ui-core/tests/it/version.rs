//! Protocol versions: the version type, `encryptedValueType` (AG-UI 1.1) in the reader,
//! the writer and the reducer, and reading or writing for a 1.0 peer.

use ag_ui_core::{
    AssistantMessage, ErrorKind, Event, EventDecoder, Message, MessagesSnapshotEvent,
    ProtocolVersion, ReadMode, ReasoningEncryptedValueEvent, ReasoningEncryptedValueSubtype,
    ReasoningMessage, RunAgentInput, RunStartedEvent, ThreadState, ToolCall, VERSIONED_FIELDS,
    Versioned, WarningKind,
};
use serde_json::{Value, json};

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn versions_parse_and_compare_numerically() {
    assert_eq!(ProtocolVersion::parse("1.0"), Some(ProtocolVersion::V1_0));
    assert_eq!(ProtocolVersion::parse("1.1"), Some(ProtocolVersion::V1_1));
    assert_eq!(ProtocolVersion::LATEST, ProtocolVersion::V1_1);
    let v1_9 = ProtocolVersion::parse("1.9").unwrap();
    let v1_10 = ProtocolVersion::parse("1.10").unwrap();
    assert!(v1_10 > v1_9, "1.10 is newer than 1.9");
    assert!(ProtocolVersion::parse("0.0.57").unwrap() < ProtocolVersion::V1_0);
    for bad in ["", "1", "draft", "1.x", "1.0.0.0", "-1.0", " 1.0", "1..0"] {
        assert_eq!(ProtocolVersion::parse(bad), None, "{bad:?}");
        let err = bad.parse::<ProtocolVersion>().unwrap_err();
        assert!(err.to_string().contains("MAJOR.MINOR"), "{err}");
    }
    assert_eq!(ProtocolVersion::V1_1.to_string(), "1.1");
    assert_eq!(ProtocolVersion::new(0, 0, 45).to_string(), "0.0.45");
    assert_eq!(
        ProtocolVersion::V1_1.common(ProtocolVersion::V1_0),
        ProtocolVersion::V1_0
    );
    assert_eq!(
        v1_10.common(ProtocolVersion::LATEST),
        ProtocolVersion::LATEST
    );
}

#[test]
fn the_ordinary_reader_and_writer_speak_1_1() {
    let text = r#"{"type":"MESSAGES_SNAPSHOT","messages":[
        {"id":"r1","role":"reasoning","content":"","encryptedValue":"sig","encryptedValueType":"anthropic.signature"},
        {"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function",
          "function":{"name":"search","arguments":"{}"},"encryptedValue":"e","encryptedValueType":"openai.encrypted_content"}]}]}"#;
    let d = ag_ui_core::read::decode::<Event>(text, ReadMode::Exact).unwrap();
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    let out = ag_ui_core::write::to_string(&d.value).unwrap();
    assert_eq!(parsed(&out), parsed(text));
    let Event::MessagesSnapshot(s) = &d.value else {
        panic!("{:?}", d.value)
    };
    let Message::Reasoning(r) = &s.messages[0] else {
        panic!()
    };
    assert_eq!(
        r.encrypted_value_type.as_deref(),
        Some("anthropic.signature")
    );
}

#[test]
fn a_null_type_is_absent_to_the_forgiving_reader_and_refused_by_the_exact_one() {
    let text = r#"{"id":"c1","type":"function","function":{"name":"f","arguments":""},"encryptedValue":"e","encryptedValueType":null}"#;
    let d = ag_ui_core::read::decode::<ToolCall>(text, ReadMode::Forgiving).unwrap();
    assert_eq!(d.value.encrypted_value_type, None);
    assert_eq!(d.warnings[0].kind, WarningKind::NullAsAbsent);
    assert_eq!(d.warnings[0].pointer, "/encryptedValueType");
    let err = ag_ui_core::read::decode::<ToolCall>(text, ReadMode::Exact).unwrap_err();
    assert_eq!(err.pointer(), Some("/encryptedValueType"));
}

#[test]
fn a_type_without_its_value_is_refused_by_the_writer_at_its_pointer() {
    let call = ToolCall::function("c1", "f", "{}").with_encrypted_value_type("openai.x");
    let message = AssistantMessage::new("a1").with_tool_calls(vec![call]);
    let event: Event = MessagesSnapshotEvent::new(vec![
        Message::from(ReasoningMessage::new("r1", "")),
        Message::from(message),
    ])
    .into();
    let err = ag_ui_core::write::to_string(&event).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Encode);
    assert_eq!(
        err.pointer(),
        Some("/messages/1/toolCalls/0/encryptedValueType")
    );
    assert!(err.to_string().contains("encryptedValue"), "{err}");

    let lone = ReasoningMessage::new("r1", "").with_encrypted_value_type("anthropic.signature");
    let err = ag_ui_core::write::to_string(&lone).unwrap_err();
    assert_eq!(err.pointer(), Some("/encryptedValueType"));
    // With its value it is written.
    let paired = lone.with_encrypted_value("sig");
    let out = ag_ui_core::write::to_string(&paired).unwrap();
    assert_eq!(parsed(&out)["encryptedValueType"], "anthropic.signature");
}

fn typed_input() -> RunAgentInput {
    RunAgentInput::new(
        "t1",
        "r1",
        vec![
            Message::from(
                ReasoningMessage::new("r0", "")
                    .with_encrypted_value("sig")
                    .with_encrypted_value_type("anthropic.signature"),
            ),
            Message::from(AssistantMessage::new("a0").with_tool_calls(vec![
                ToolCall::function("c0", "f", "{}")
                    .with_encrypted_value("e")
                    .with_encrypted_value_type("openai.encrypted_content"),
            ])),
        ],
    )
    .with_protocol_version("1.1")
}

#[test]
fn writing_for_a_1_0_peer_leaves_the_type_out_and_reports_each() {
    let event: Event = RunStartedEvent::new("t1", "r1")
        .with_input(typed_input())
        .into();
    let (text, warnings) = ag_ui_core::write::to_string_for(&event, ProtocolVersion::V1_0).unwrap();
    let written = parsed(&text);
    assert_eq!(
        written["input"]["messages"][0],
        json!({"id":"r0","role":"reasoning","content":"","encryptedValue":"sig"})
    );
    assert_eq!(
        written["input"]["messages"][1]["toolCalls"][0]["encryptedValue"],
        "e"
    );
    assert!(
        written["input"]["messages"][1]["toolCalls"][0]
            .get("encryptedValueType")
            .is_none()
    );
    let pointers: Vec<_> = warnings.iter().map(|w| w.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/input/messages/0/encryptedValueType",
            "/input/messages/1/toolCalls/0/encryptedValueType"
        ]
    );
    assert!(warnings.iter().all(|w| w.kind == WarningKind::Downgraded));
    assert!(warnings[0].to_string().contains("1.0"), "{}", warnings[0]);
    // For a 1.1 peer, the ordinary writer's text and nothing to report.
    let (text, warnings) = ag_ui_core::write::to_string_for(&event, ProtocolVersion::V1_1).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(
        parsed(&text),
        parsed(&ag_ui_core::write::to_string(&event).unwrap())
    );
}

#[test]
fn a_1_0_reader_strips_the_type_as_an_unknown_field_and_an_exact_one_refuses_it() {
    let text = ag_ui_core::write::to_string(&typed_input()).unwrap();
    let d = ag_ui_core::read::decode_for::<RunAgentInput>(
        &text,
        ReadMode::Forgiving,
        ProtocolVersion::V1_0,
    )
    .unwrap();
    let found: Vec<_> = d
        .warnings
        .iter()
        .map(|w| (w.kind, w.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (WarningKind::UnknownField, "/messages/0/encryptedValueType"),
            (
                WarningKind::UnknownField,
                "/messages/1/toolCalls/0/encryptedValueType"
            ),
        ]
    );
    let Message::Reasoning(r) = &d.value.messages[0] else {
        panic!()
    };
    assert_eq!(r.encrypted_value.as_deref(), Some("sig"));
    assert_eq!(r.encrypted_value_type, None);

    let err = ag_ui_core::read::decode_for::<RunAgentInput>(
        &text,
        ReadMode::Exact,
        ProtocolVersion::V1_0,
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotExact);
    assert_eq!(err.pointer(), Some("/messages/0/encryptedValueType"));

    // As 1.1, the document is clean.
    let d = ag_ui_core::read::decode_for::<RunAgentInput>(
        &text,
        ReadMode::Exact,
        ProtocolVersion::V1_1,
    )
    .unwrap();
    assert!(d.warnings.is_empty());
    assert_eq!(d.value, typed_input());
}

#[test]
fn a_stream_decoder_for_1_0_strips_and_warns() {
    let text = r#"{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c1","encryptedValue":"e","encryptedValueType":"k"}"#;
    let mut d = EventDecoder::new(ReadMode::Forgiving).with_protocol_version(ProtocolVersion::V1_0);
    let out = d.decode(text).unwrap();
    assert_eq!(out.warnings[0].kind, WarningKind::UnknownField);
    let Some(Event::ReasoningEncryptedValue(e)) = out.value else {
        panic!()
    };
    assert_eq!(e.encrypted_value_type, None);
    let mut exact = EventDecoder::new(ReadMode::Exact).with_protocol_version(ProtocolVersion::V1_0);
    let err = exact.decode(text).unwrap_err();
    assert_eq!(err.pointer(), Some("/encryptedValueType"));
    // The default decoder reads 1.1.
    let out = EventDecoder::new(ReadMode::Exact).decode(text).unwrap();
    assert!(out.warnings.is_empty());
}

fn encrypted(entity: &str, sub: ReasoningEncryptedValueSubtype, v: &str, t: Option<&str>) -> Event {
    let mut e = ReasoningEncryptedValueEvent::new(sub, entity, v);
    e.encrypted_value_type = t.map(str::to_owned);
    e.into()
}

#[test]
fn the_thread_replaces_and_removes_value_and_type_together() {
    let mut thread = ThreadState::new();
    let snapshot: Event = MessagesSnapshotEvent::new(typed_input().messages).into();
    thread.apply(&snapshot);
    // A new value without a type removes the stored type.
    let w = thread.apply(&encrypted(
        "r0",
        ReasoningEncryptedValueSubtype::Message,
        "new",
        None,
    ));
    assert!(w.is_empty(), "{w:?}");
    let w = thread.apply(&encrypted(
        "c0",
        ReasoningEncryptedValueSubtype::ToolCall,
        "e2",
        Some("k2"),
    ));
    assert!(w.is_empty(), "{w:?}");
    let messages = serde_json::to_value(thread.messages()).unwrap();
    assert_eq!(
        messages[0],
        json!({"id":"r0","role":"reasoning","content":"","encryptedValue":"new"})
    );
    assert_eq!(messages[1]["toolCalls"][0]["encryptedValue"], "e2");
    assert_eq!(messages[1]["toolCalls"][0]["encryptedValueType"], "k2");
    // A snapshot restating a message without them removes both.
    let bare: Event = MessagesSnapshotEvent::new(vec![
        Message::from(ReasoningMessage::new("r0", "")),
        Message::from(
            AssistantMessage::new("a0").with_tool_calls(vec![ToolCall::function("c0", "f", "{}")]),
        ),
    ])
    .into();
    thread.apply(&bare);
    let messages = serde_json::to_value(thread.messages()).unwrap();
    assert_eq!(
        messages[0],
        json!({"id":"r0","role":"reasoning","content":""})
    );
    assert!(messages[1]["toolCalls"][0].get("encryptedValue").is_none());
    assert!(
        messages[1]["toolCalls"][0]
            .get("encryptedValueType")
            .is_none()
    );
}

#[test]
fn the_versioned_fields_table_names_what_the_downgrade_strips() {
    // Every definition of the table's `encryptedValueType` lines, read from a document with
    // the field, loses exactly that field when downgraded to 1.0 (and nothing when kept at
    // 1.1). The schema crate checks every line on the event fixtures
    // (`versions::what_core_sends_a_peer_is_valid_in_the_schema_of_its_version`).
    for f in VERSIONED_FIELDS
        .iter()
        .filter(|f| f.field == "encryptedValueType")
    {
        assert!(f.since > ProtocolVersion::V1_0);
        assert!(ProtocolVersion::V1_0.unknown_fields().any(|u| u == f));
        assert_eq!(ProtocolVersion::LATEST.unknown_fields().count(), 0);
        let doc = match f.definition {
            "ReasoningEncryptedValueEvent" => {
                json!({"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"v","encryptedValueType":"k"})
            }
            "ToolCall" => {
                json!({"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":""},"encryptedValue":"v","encryptedValueType":"k"}]})
            }
            message => {
                let role = message.trim_end_matches("Message").to_lowercase();
                let mut m = json!({"id":"m","role":role,"content":"","encryptedValue":"v","encryptedValueType":"k"});
                if role == "tool" {
                    m["toolCallId"] = json!("c");
                }
                m
            }
        };
        let (mut value, at): (Box<dyn Versioned>, &str) = if f.definition.ends_with("Event") {
            (
                Box::new(serde_json::from_value::<Event>(doc).unwrap()),
                "/encryptedValueType",
            )
        } else if f.definition == "ToolCall" {
            (
                Box::new(serde_json::from_value::<Message>(doc).unwrap()),
                "/toolCalls/0/encryptedValueType",
            )
        } else {
            (
                Box::new(serde_json::from_value::<Message>(doc).unwrap()),
                "/encryptedValueType",
            )
        };
        assert!(value.downgrade(ProtocolVersion::V1_1).is_empty());
        let w = value.downgrade(ProtocolVersion::V1_0);
        assert_eq!(w.len(), 1, "{}", f.definition);
        assert_eq!(w[0].pointer, at, "{}", f.definition);
    }
}

#[test]
fn the_0_x_translation_warning_names_the_type_received() {
    let mut d = EventDecoder::new(ReadMode::Forgiving).with_id_generator(|| "id-1".to_owned());
    let out = d
        .decode(r#"{"type":"THINKING_START","title":"t"}"#)
        .unwrap();
    let legacy = &out.warnings[0];
    assert_eq!(legacy.kind, WarningKind::LegacyEvent);
    let shown = legacy.to_string();
    assert!(shown.contains("received THINKING_START"), "{shown}");
    assert!(shown.contains("REASONING_START"), "{shown}");
}

/// `version::downgrade_event` withholds exactly the events a peer's version predates, each
/// with one `downgraded` warning at the event, and leaves every other event of the
/// fixtures as it is for a peer that knows all it holds.
#[test]
fn events_newer_than_the_peer_are_withheld_with_a_downgraded_warning() {
    use ag_ui_core::version::downgrade_event;
    use ag_ui_fixtures::{CaseKind, load_cases};
    let before_subagents = ProtocolVersion::new(0, 0, 57);
    let mut withheld = std::collections::BTreeSet::new();
    let mut seen = 0;
    for case in load_cases().unwrap() {
        if !matches!(case.kind, CaseKind::Valid)
            || ag_ui_core::EventType::ALL
                .iter()
                .all(|t| t.definition() != case.definition)
        {
            continue;
        }
        let event: Event = ag_ui_core::read::decode(&case.text, ReadMode::Exact)
            .unwrap()
            .value;
        seen += 1;
        let t = event.event_type();
        let (sent, warnings) = downgrade_event(event.clone(), before_subagents);
        if t.since() > before_subagents {
            assert_eq!(sent, None, "{}", case.name);
            assert_eq!(warnings.len(), 1, "{}", case.name);
            assert_eq!(warnings[0].kind, WarningKind::Downgraded);
            assert_eq!(warnings[0].pointer, "");
            assert!(
                warnings[0].to_string().contains(t.as_str()),
                "{}",
                warnings[0]
            );
            withheld.insert(t.as_str());
        } else {
            assert!(sent.is_some(), "{}", case.name);
        }
        let (sent, _) = downgrade_event(event.clone(), ProtocolVersion::LATEST);
        assert_eq!(sent, Some(event), "{}", case.name);
    }
    assert!(seen > 50, "{seen} event fixtures");
    // The subagent events came after 0.0.57 (and any event a later version added is
    // withheld too).
    for t in ["SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"] {
        assert!(withheld.contains(t), "{t} not withheld: {withheld:?}");
    }
}

/// A `RUN_STARTED` declaring a newer version than the peer's declares the peer's, since the
/// stream it starts is sent in the peer's version.
#[test]
fn a_run_started_sent_to_an_older_peer_declares_its_version() {
    let started: Event = RunStartedEvent::new("t", "r")
        .with_protocol_version("1.1")
        .into();
    let (sent, warnings) =
        ag_ui_core::version::downgrade_event(started.clone(), ProtocolVersion::V1_0);
    let Some(Event::RunStarted(sent)) = sent else {
        panic!("RUN_STARTED withheld");
    };
    assert_eq!(sent.protocol_version.as_deref(), Some("1.0"));
    assert!(warnings.is_empty());
    let (same, _) = ag_ui_core::version::downgrade_event(started.clone(), ProtocolVersion::V1_1);
    assert_eq!(same, Some(started));
}

/// How `docs/versions.md` writes a first version: `0.x` for the undated 0.x releases.
fn shown(version: ProtocolVersion) -> String {
    if version == ProtocolVersion::V0 {
        "0.x".to_owned()
    } else {
        version.to_string()
    }
}

/// `docs/versions.md` lists every event and every member added after 1.0 with its first
/// version, generated from the event table and `VERSIONED_FIELDS` (`AG_UI_BLESS=1`
/// rewrites the two tables from the code).
#[test]
fn docs_versions_tables_are_the_code_tables() {
    use ag_ui_fixtures::doc_table::DocTable;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/versions.md");
    let mut events = DocTable::read(&path, "| event | area | first version |").unwrap();
    let rows: Vec<String> = ag_ui_core::EventType::ALL
        .iter()
        .map(|t| format!("| `{t}` | `{}` | {} |", t.area(), shown(t.since())))
        .collect();
    events.expect_rows(&rows);
    events.finish().unwrap();
    let mut members = DocTable::read(&path, "| member | definition | first version |").unwrap();
    let rows: Vec<String> = VERSIONED_FIELDS
        .iter()
        .map(|f| {
            format!(
                "| `{}` | `{}` | {} |",
                f.field,
                f.definition,
                shown(f.since)
            )
        })
        .collect();
    members.expect_rows(&rows);
    members.finish().unwrap();
}

/// `version::downgrade_input` reshapes a run input for each older agent only as far as its
/// version requires: tool parts below 1.0, user parts at 0.0.39 and older, subagent
/// attribution below 0.0.58, 1.1 members below 1.1.
#[test]
fn a_run_input_is_downgraded_as_far_as_the_agents_version_requires() {
    use ag_ui_core::version::downgrade_input;
    use ag_ui_core::{ContentPart, ToolMessage, UserMessage};
    let input = || {
        let mut input = RunAgentInput::new("t", "r", Vec::new()).with_protocol_version("1.1");
        input.messages.push(Message::User(
            UserMessage::new(
                "u1",
                vec![
                    ContentPart::text("Look"),
                    ContentPart::image(ag_ui_core::PartSource::url("https://x/y.png")),
                ],
            )
            .with_subagent_run_id("s1")
            .with_encrypted_value("v")
            .with_encrypted_value_type("k"),
        ));
        input.messages.push(Message::Tool(ToolMessage::new(
            "tm1",
            vec![ContentPart::text("42")],
            "c1",
        )));
        input
    };
    let shaped = |version: ProtocolVersion| {
        let mut i = input();
        let w = downgrade_input(&mut i, version);
        let pointers: Vec<String> = w.iter().map(|w| w.pointer.clone()).collect();
        (serde_json::to_value(&i).unwrap(), pointers)
    };
    let (same, none) = shaped(ProtocolVersion::V1_1);
    assert_eq!(same, serde_json::to_value(input()).unwrap());
    assert!(none.is_empty());
    let (v1_0, w) = shaped(ProtocolVersion::V1_0);
    assert_eq!(w, ["/messages/0/encryptedValueType"]);
    assert_eq!(v1_0["protocolVersion"], "1.1");
    let (v0_60, w) = shaped(ProtocolVersion::new(0, 0, 60));
    assert_eq!(w, ["/messages/1", "/messages/0/encryptedValueType"]);
    assert!(v0_60.get("protocolVersion").is_none());
    assert_eq!(v0_60["messages"][1]["content"], "42");
    assert_eq!(v0_60["messages"][0]["subagentRunId"], "s1");
    let (v0_57, _) = shaped(ProtocolVersion::new(0, 0, 57));
    assert!(v0_57["messages"][0].get("subagentRunId").is_none());
    let (v0_39, w) = shaped(ProtocolVersion::BEFORE_CONTENT_PARTS);
    assert_eq!(w[0], "/messages/0");
    assert_eq!(v0_39["messages"][0]["content"], "Look");
}
