//! `provider_history`: a history as a model provider accepts it (every tool call answered,
//! every argument text JSON), and what was changed to make it so.

use ag_ui_core::{HistoryRepair, Message, NO_TOOL_RESULT, RepairKind, provider_history};
use serde_json::{Value, json};

fn history(v: Value) -> Vec<Message> {
    serde_json::from_value(v).unwrap()
}

/// The messages sent, as JSON, and the index in the history of each (`null`: added).
fn sent(messages: &[Message]) -> (Value, Vec<Option<usize>>, Vec<HistoryRepair>) {
    let h = provider_history(messages);
    let json = Value::Array(
        h.messages
            .iter()
            .map(|m| serde_json::to_value(&*m.message).unwrap())
            .collect(),
    );
    let indices = h.messages.iter().map(|m| m.index).collect();
    (json, indices, h.repairs)
}

fn kinds(repairs: &[HistoryRepair]) -> Vec<(RepairKind, String, &str)> {
    repairs
        .iter()
        .map(|r| (r.kind, r.pointer(), r.tool_call_id.as_str()))
        .collect()
}

fn call(id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

fn no_result(id: &str) -> Value {
    json!({"id": format!("{id}-no-result"), "role": "tool", "content": NO_TOOL_RESULT, "toolCallId": id})
}

#[test]
fn a_call_with_empty_arguments_and_no_result_gets_the_note_and_empty_object_arguments() {
    let h = history(json!([
        {"id": "u1", "role": "user", "content": "Weather?"},
        {"id": "a1", "role": "assistant", "toolCalls": [call("c1", "get_weather", "")]}
    ]));
    let (json, indices, repairs) = sent(&h);
    assert_eq!(
        json,
        json!([
            {"id": "u1", "role": "user", "content": "Weather?"},
            {"id": "a1", "role": "assistant", "toolCalls": [call("c1", "get_weather", "{}")]},
            no_result("c1")
        ])
    );
    assert_eq!(indices, [Some(0), Some(1), None]);
    assert_eq!(
        kinds(&repairs),
        [
            (
                RepairKind::InvalidArguments,
                "/1/toolCalls/0".to_owned(),
                "c1"
            ),
            (RepairKind::NoResult, "/1/toolCalls/0".to_owned(), "c1"),
        ]
    );
    // The history itself is left as it was.
    assert_eq!(
        serde_json::to_value(&h[1]).unwrap()["toolCalls"][0]["function"]["arguments"],
        ""
    );
}

#[test]
fn a_call_with_partial_arguments_is_sent_with_an_empty_object() {
    let h = history(json!([
        {"id": "a1", "role": "assistant", "content": "Let me check.",
         "toolCalls": [call("c1", "get_weather", "{\"city\":\"Os")]}
    ]));
    let (json, _, repairs) = sent(&h);
    assert_eq!(
        json,
        json!([
            {"id": "a1", "role": "assistant", "content": "Let me check.",
             "toolCalls": [call("c1", "get_weather", "{}")]},
            no_result("c1")
        ])
    );
    assert_eq!(repairs.len(), 2);
    assert_eq!(
        repairs[1].to_string(),
        "tool call \"c1\" of message 0 has no result: a tool message saying that no result \
         arrived is sent after it"
    );
    assert_eq!(
        repairs[0].to_string(),
        "the arguments of tool call \"c1\" of message 0 are not valid JSON: sent as {}"
    );
}

#[test]
fn of_two_parallel_calls_only_the_unanswered_one_gets_the_note() {
    let h = history(json!([
        {"id": "a1", "role": "assistant", "toolCalls": [
            call("c1", "confirm", "{\"q\":1}"), call("c2", "confirm", "{\"q\":2}")
        ]},
        {"id": "t1", "role": "tool", "content": "yes", "toolCallId": "c1"},
        {"id": "a2", "role": "assistant", "content": "Done."}
    ]));
    let (json, indices, repairs) = sent(&h);
    assert_eq!(
        json,
        json!([
            {"id": "a1", "role": "assistant", "toolCalls": [
                call("c1", "confirm", "{\"q\":1}"), call("c2", "confirm", "{\"q\":2}")
            ]},
            {"id": "t1", "role": "tool", "content": "yes", "toolCallId": "c1"},
            no_result("c2"),
            {"id": "a2", "role": "assistant", "content": "Done."}
        ])
    );
    assert_eq!(indices, [Some(0), Some(1), None, Some(2)]);
    assert_eq!(
        kinds(&repairs),
        [(RepairKind::NoResult, "/0/toolCalls/1".to_owned(), "c2")]
    );
}

#[test]
fn the_note_comes_right_after_the_call_before_the_next_user_message() {
    let h = history(json!([
        {"id": "a1", "role": "assistant", "toolCalls": [call("c1", "confirm", "{}")]},
        {"id": "u2", "role": "user", "content": "Hello?"}
    ]));
    let (json, indices, _) = sent(&h);
    assert_eq!(
        json,
        json!([
            {"id": "a1", "role": "assistant", "toolCalls": [call("c1", "confirm", "{}")]},
            no_result("c1"),
            {"id": "u2", "role": "user", "content": "Hello?"}
        ])
    );
    assert_eq!(indices, [Some(0), None, Some(1)]);
}

#[test]
fn a_properly_answered_history_is_sent_as_it_is_borrowed() {
    let h = history(json!([
        {"id": "u1", "role": "user", "content": "Both?"},
        {"id": "a1", "role": "assistant", "toolCalls": [
            call("c1", "get_weather", "{\"city\":\"Oslo\"}"), call("c2", "get_weather", "{\"city\":\"Rome\"}")
        ]},
        {"id": "t2", "role": "tool", "content": "20", "toolCallId": "c2"},
        {"id": "t1", "role": "tool", "content": "3", "toolCallId": "c1"},
        {"id": "a2", "role": "assistant", "content": "3 and 20."}
    ]));
    let out = provider_history(&h);
    assert!(out.repairs.is_empty());
    assert_eq!(out.messages.len(), h.len());
    for (i, m) in out.messages.iter().enumerate() {
        assert_eq!(m.index, Some(i));
        assert!(
            matches!(m.message, std::borrow::Cow::Borrowed(b) if std::ptr::eq(b, &h[i])),
            "message {i} is the history's own"
        );
    }
}

#[test]
fn a_result_given_after_the_conversation_went_on_is_moved_up_to_its_call() {
    let h = history(json!([
        {"id": "a1", "role": "assistant", "toolCalls": [call("c1", "confirm", "{}")]},
        {"id": "u2", "role": "user", "content": "Hello?"},
        {"id": "t1", "role": "tool", "content": "yes", "toolCallId": "c1"}
    ]));
    let (json, indices, repairs) = sent(&h);
    assert_eq!(
        json,
        json!([
            {"id": "a1", "role": "assistant", "toolCalls": [call("c1", "confirm", "{}")]},
            {"id": "t1", "role": "tool", "content": "yes", "toolCallId": "c1"},
            {"id": "u2", "role": "user", "content": "Hello?"}
        ])
    );
    assert_eq!(indices, [Some(0), Some(2), Some(1)]);
    assert_eq!(
        kinds(&repairs),
        [(RepairKind::ResultMoved, "/2".to_owned(), "c1")]
    );
}

#[test]
fn a_result_that_answers_no_earlier_call_is_left_out() {
    let h = history(json!([
        {"id": "t0", "role": "tool", "content": "early", "toolCallId": "c1"},
        {"id": "a1", "role": "assistant", "toolCalls": [call("c1", "confirm", "{}")]},
        {"id": "t1", "role": "tool", "content": "yes", "toolCallId": "c1"},
        {"id": "t9", "role": "tool", "content": "?", "toolCallId": "nobody"}
    ]));
    let (json, indices, repairs) = sent(&h);
    assert_eq!(
        json,
        json!([
            {"id": "a1", "role": "assistant", "toolCalls": [call("c1", "confirm", "{}")]},
            {"id": "t1", "role": "tool", "content": "yes", "toolCallId": "c1"}
        ])
    );
    assert_eq!(indices, [Some(1), Some(2)]);
    assert_eq!(
        kinds(&repairs),
        [
            (RepairKind::ResultWithoutCall, "/0".to_owned(), "c1"),
            (RepairKind::ResultWithoutCall, "/3".to_owned(), "nobody"),
        ]
    );
}

#[test]
fn a_call_id_made_again_later_is_answered_per_assistant_message() {
    // The same id in two turns: each tool message answers the latest call before it.
    let h = history(json!([
        {"id": "a1", "role": "assistant", "toolCalls": [call("c1", "confirm", "{}")]},
        {"id": "t1", "role": "tool", "content": "first", "toolCallId": "c1"},
        {"id": "a2", "role": "assistant", "toolCalls": [call("c1", "confirm", "{}")]}
    ]));
    let (json, _, repairs) = sent(&h);
    assert_eq!(json.as_array().unwrap().len(), 4);
    assert_eq!(json[3], no_result("c1"));
    assert_eq!(
        kinds(&repairs),
        [(RepairKind::NoResult, "/2/toolCalls/0".to_owned(), "c1")]
    );
}

#[test]
fn every_json_document_counts_as_arguments_and_nothing_else_does() {
    for (arguments, valid) in [
        ("{}", true),
        (" {\"a\": [1, 2]} ", true),
        ("[1]", true),
        ("null", true),
        ("", false),
        ("   ", false),
        ("{\"a\":", false),
        ("{} {}", false),
        ("{'a': 1}", false),
    ] {
        let h = history(json!([
            {"id": "a1", "role": "assistant", "toolCalls": [call("c1", "f", arguments)]},
            {"id": "t1", "role": "tool", "content": "ok", "toolCallId": "c1"}
        ]));
        let out = provider_history(&h);
        let repaired = out
            .repairs
            .iter()
            .any(|r| r.kind == RepairKind::InvalidArguments);
        assert_eq!(repaired, !valid, "{arguments:?}");
        let args = serde_json::to_value(&*out.messages[0].message).unwrap()["toolCalls"][0]
            ["function"]["arguments"]
            .clone();
        assert_eq!(args, if valid { json!(arguments) } else { json!("{}") });
        // An answered call keeps its result and gets no note.
        assert_eq!(out.messages.len(), 2, "{arguments:?}");
    }
}

#[test]
fn repairs_have_snake_case_names() {
    let names: Vec<&str> = [
        RepairKind::NoResult,
        RepairKind::InvalidArguments,
        RepairKind::ResultMoved,
        RepairKind::ResultWithoutCall,
    ]
    .iter()
    .map(|k| k.as_str())
    .collect();
    assert_eq!(
        names,
        [
            "no_result",
            "invalid_arguments",
            "result_moved",
            "result_without_call"
        ]
    );
}
