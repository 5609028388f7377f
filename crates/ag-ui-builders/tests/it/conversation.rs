//! Conversations and run inputs.

use ag_ui_builders::content::{self, Parts};
use ag_ui_builders::*;
use ag_ui_core::{Message, ToolCallId};
use serde_json::json;

use crate::support::exact;

/// The weather conversation of the seeds, built fluently with deterministic ids.
#[test]
fn weather_conversation_matches_the_short_forms() {
    let built = Conversation::with_ids(SequentialIds::new())
        .system("You are a helpful assistant.")
        .user("What's the weather in Amsterdam?")
        .assistant_tool_call("get_weather", json!({"city": "Amsterdam"}))
        .tool_result("call-1", r#"{"temperature":14}"#)
        .unwrap()
        .build();
    let by_hand: Vec<Message> = vec![
        system_message("msg-1", "You are a helpful assistant.").into(),
        user_message("msg-2", "What's the weather in Amsterdam?").into(),
        assistant_tool_calls(
            "msg-3",
            [tool_call(
                "call-1",
                "get_weather",
                r#"{"city":"Amsterdam"}"#,
            )],
        )
        .into(),
        tool_message("msg-4", r#"{"temperature":14}"#, "call-1").into(),
    ];
    assert_eq!(built, by_hand);
    for m in &built {
        exact("Message", m).unwrap();
    }
}

#[test]
fn tool_results_answer_open_calls_only() {
    let conv = Conversation::with_ids(SequentialIds::new())
        .assistant_tool_calls([tool_call("a", "f", "{}"), tool_call("b", "g", "{}")]);
    assert_eq!(
        conv.open_tool_calls(),
        [ToolCallId::from("a"), ToolCallId::from("b")]
    );
    let conv = conv.tool_result("b", "B").unwrap();
    assert_eq!(conv.open_tool_calls(), [ToolCallId::from("a")]);
    // Answering twice is an error naming what is still open.
    let err = Conversation::from_messages(conv.messages().to_vec())
        .tool_result("b", "again")
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::NoOpenToolCall {
            tool_call_id: "b".into(),
            open: vec!["a".into()]
        }
    );
    let conv = conv.next_tool_result("A").unwrap();
    assert!(conv.open_tool_calls().is_empty());
    assert!(matches!(
        conv.next_tool_result("none"),
        Err(BuildError::NoOpenToolCall { tool_call_id, open }) if tool_call_id.is_empty() && open.is_empty()
    ));
    assert!(matches!(
        Conversation::new().tool_result("never", "x"),
        Err(BuildError::NoOpenToolCall { .. })
    ));
}

#[test]
fn every_kind_of_message_can_be_chained() {
    let conv = Conversation::with_ids(SequentialIds::with_prefix("c"))
        .developer("Be brief.")
        .system("You are helpful.")
        .user(
            Parts::new()
                .text("Read this")
                .document(content::url("https://example.com/a.pdf")),
        )
        .reasoning("The user wants a summary.")
        .activity("PLAN", &json!({"steps": ["read", "summarise"]}))
        .unwrap()
        .assistant_with_tool_calls("Reading.", [tool_call("t1", "read", json!({"page": 1}))])
        .tool_result("t1", "page one")
        .unwrap()
        .assistant("It is about cats.");
    assert_eq!(conv.last_message_id().unwrap().as_str(), "c-msg-8");
    assert_eq!(conv.last_tool_call_id().unwrap().as_str(), "t1");
    let roles: Vec<_> = conv.messages().iter().map(|m| m.role().as_str()).collect();
    assert_eq!(
        roles,
        [
            "developer",
            "system",
            "user",
            "reasoning",
            "activity",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    for m in conv.build() {
        exact("Message", &m).unwrap();
    }
    assert!(Conversation::new().activity("PLAN", &json!("no")).is_err());
}

#[test]
fn minted_ids_are_uuids_by_default() {
    let conv = Conversation::new()
        .user("hi")
        .assistant_tool_call("f", "{}");
    let ids: Vec<String> = conv.messages().iter().map(|m| m.id().to_string()).collect();
    for id in ids.iter().chain(std::iter::once(
        &conv.last_tool_call_id().unwrap().to_string(),
    )) {
        assert_eq!(id.len(), 36, "{id}");
        assert_eq!(id.as_bytes()[14], b'4', "{id} is not a v4 uuid");
    }
    assert_ne!(ids[0], ids[1]);
}

#[test]
fn run_inputs_declare_the_protocol_version() {
    let input = run_input("t", "r", [user_message("u", "hi").into()], []);
    let v = exact("RunAgentInput", &input).unwrap();
    assert_eq!(
        v,
        json!({
            "threadId": "t", "runId": "r", "protocolVersion": "1.0",
            "messages": [{"id": "u", "role": "user", "content": "hi"}],
            "tools": [], "context": []
        })
    );
    let pre = RunInputBuilder::new("t", "r")
        .without_protocol_version()
        .state(serde_json::Value::Null)
        .build();
    assert_eq!(pre.protocol_version, None);
    assert_eq!(pre.state, None);

    let mut ids = SequentialIds::new();
    let first = RunInputBuilder::minted(&mut ids).build();
    assert_eq!(
        (first.thread_id.as_str(), first.run_id.as_str()),
        ("thread-1", "run-1")
    );
    let next = RunInputBuilder::next_run(&first, ids.run_id())
        .resume(interrupt::cancel("int-1"))
        .state_of(&json!({"n": 1}))
        .unwrap()
        .build();
    assert_eq!(
        (next.thread_id.as_str(), next.run_id.as_str()),
        ("thread-1", "run-2")
    );
    assert!(next.is_resume());
    exact("RunAgentInput", &next).unwrap();
}

#[test]
fn mixed_message_lists_need_no_conversions() {
    let history = messages![
        system_message("sys-1", "Be brief."),
        user_message("msg-1", "Hi"),
        assistant_tool_calls("msg-2", [tool_call("call-1", "f", "{}")]),
        tool_message("msg-3", "42", "call-1"),
    ];
    let roles: Vec<&str> = history.iter().map(|m| m.role().as_str()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool"]);
    // Lists of one message type, conversations and typed tools go in as they are.
    let input = RunInputBuilder::new("t", "r")
        .messages([user_message("msg-4", "a"), user_message("msg-5", "b")])
        .messages(Conversation::with_ids(SequentialIds::with_prefix("c")).user("c"))
        .tools([tool("f", "F", ObjectSchema::new())])
        .build();
    assert_eq!(input.messages.len(), 3);
    let input = run_input("t", "r", history.clone(), []);
    assert_eq!(input.messages, history);
    let conversation = Conversation::from_messages([user_message("msg-1", "Hi")]);
    assert_eq!(conversation.messages().len(), 1);
}

#[test]
fn conversations_serialize_as_their_messages() {
    let conversation = Conversation::with_ids(SequentialIds::new())
        .user("Hi")
        .assistant("Hello");
    let as_json = serde_json::to_value(&conversation).unwrap();
    assert_eq!(
        as_json,
        json!([
            {"id": "msg-1", "role": "user", "content": "Hi"},
            {"id": "msg-2", "role": "assistant", "content": "Hello"},
        ])
    );
    assert_eq!((&conversation).into_iter().count(), 2);
    let messages: Vec<Message> = conversation.into();
    assert_eq!(serde_json::to_value(&messages).unwrap(), as_json);
}

#[test]
fn core_errors_convert_with_the_question_mark() {
    fn frame(e: &ag_ui_core::Event) -> Result<String, BuildError> {
        Ok(ag_ui_core::sse::to_sse_frame(e)?)
    }
    fn decode(text: &str) -> Result<ag_ui_core::Event, BuildError> {
        Ok(ag_ui_core::read::from_str(text)?)
    }
    assert!(frame(&ag_ui_builders::event::run_started("t", "r").into()).is_ok());
    let err = decode(r#"{"type":"RUN_STARTED","threadId":"t"}"#).unwrap_err();
    let BuildError::Core(core) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(core.get().kind(), ag_ui_core::ErrorKind::Invalid);
    assert_eq!(err.to_string(), core.get().to_string());
    assert_eq!(err.clone(), err);
}
