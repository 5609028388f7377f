//! Property tests: every value round-trips, the writer never writes `null` for an absent
//! field, the exact reader accepts everything the writer writes, and no input panics.
//!
//! The runner is deterministic (fixed seed) so that CI is reproducible; `PROPTEST_CASES`
//! scales the case count of every property (see `docs/robustness.md`).

use std::fmt::Debug;

use ag_ui_core::read::{decode, decode_slice, decode_value, from_slice};
use ag_ui_core::sse::{to_sse_frame, write_sse_frame};
use ag_ui_core::stream::verify_events;
use ag_ui_core::write::Encode;
use ag_ui_core::write::to_string;
use ag_ui_core::*;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::strategies::{self as s, json as any_json};

/// Cases per property: `PROPTEST_CASES` if set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn runner(default_cases: u32) -> TestRunner {
    let config = Config {
        cases: cases(default_cases),
        failure_persistence: None,
        max_shrink_iters: 2_000,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

fn check<S: Strategy>(
    name: &str,
    default_cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), String>,
) where
    S::Value: Debug,
{
    let result = runner(default_cases).run(&strategy, |v| test(v).map_err(TestCaseError::fail));
    if let Err(e) = result {
        panic!("property `{name}` failed: {e}");
    }
}

// ---------------------------------------------------------------------------
// Where a `null` may appear in what the writer writes
// ---------------------------------------------------------------------------

/// Members whose value is opaque JSON: anything below them may be `null`.
const PAYLOAD_MEMBERS: &[&str] = &[
    "rawEvent",
    "metadata",
    "result",
    "snapshot",
    "event",
    "value",
    "state",
    "forwardedProps",
    "parameters",
    "payload",
    "responseSchema",
    "custom",
];

/// Members that are required and take any JSON, so that the member itself may be `null`.
const NULLABLE_MEMBERS: &[&str] = &["snapshot", "event", "value"];

/// Finds a `null` the writer put where the type has no nullable value: every `null` must
/// be a required any-JSON member or sit inside a payload.
pub(crate) fn stray_null(v: &Value) -> Option<String> {
    stray_null_below(v, false)
}

/// [`stray_null`] for a document that is itself opaque JSON (`root_is_payload`) or not.
fn stray_null_below(v: &Value, root_is_payload: bool) -> Option<String> {
    /// `outer`: whether an enclosing member holds opaque JSON.
    fn walk(v: &Value, outer: bool, key: Option<&str>, at: &str) -> Option<String> {
        // A message or activity `content` object is a payload; content as text or parts
        // is typed.
        let payload = outer
            || key
                .is_some_and(|k| PAYLOAD_MEMBERS.contains(&k) || (k == "content" && v.is_object()));
        match v {
            Value::Null if outer || key.is_some_and(|k| NULLABLE_MEMBERS.contains(&k)) => None,
            Value::Null => Some(at.to_owned()),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, c)| walk(c, payload, None, &format!("{at}/{i}"))),
            Value::Object(map) => map
                .iter()
                .find_map(|(k, c)| walk(c, payload, Some(k), &format!("{at}/{k}"))),
            _ => None,
        }
    }
    walk(v, root_is_payload, None, "")
}

#[test]
fn stray_null_finds_nulls_outside_payloads() {
    assert_eq!(
        stray_null(&json!({"type":"RUN_ERROR","message":"m","code":null})),
        Some("/code".into())
    );
    assert_eq!(
        stray_null(&json!({"type":"CUSTOM","name":"n","value":null,"rawEvent":{"a":[null]}})),
        None
    );
    assert_eq!(
        stray_null(&json!({"rawEvent":null})),
        Some("/rawEvent".into())
    );
    assert_eq!(
        stray_null(&json!({"messages":[{"content":[{"type":"text","text":"t","id":null}]}]})),
        Some("/messages/0/content/0/id".into())
    );
}

// ---------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------

/// Encodes `v` and checks everything a reader must say about the result.
fn round_trip<T>(v: &T) -> Result<(), String>
where
    T: Encode + DeserializeOwned + PartialEq + Debug,
{
    round_trip_at(v, false)
}

/// [`round_trip`] of a value that is itself opaque JSON (`Metadata`) or not.
fn round_trip_at<T>(v: &T, payload: bool) -> Result<(), String>
where
    T: Encode + DeserializeOwned + PartialEq + Debug,
{
    let text = to_string(v).map_err(|e| format!("encode failed: {e}"))?;
    // The type's generated writer writes what its `Serialize` impl gives serde_json.
    let via_serde = serde_json::to_string(v).map_err(|e| format!("serde_json: {e}"))?;
    if text != via_serde {
        return Err(format!("generated writer {text} != serde_json {via_serde}"));
    }
    let tree: Value =
        serde_json::from_str(&text).map_err(|e| format!("writer wrote bad JSON: {e}"))?;
    if let Some(at) = stray_null_below(&tree, payload) {
        return Err(format!(
            "writer wrote null at {at} for an absent field: {text}"
        ));
    }
    let exact = decode::<T>(&text, ReadMode::Exact)
        .map_err(|e| format!("exact reader refused {text}: {e}"))?;
    if !exact.warnings.is_empty() {
        return Err(format!(
            "exact reader warned {:?} on {text}",
            exact.warnings
        ));
    }
    if exact.value != *v {
        return Err(format!(
            "round trip changed the value\n  wrote {text}\n  read {:?}",
            exact.value
        ));
    }
    let forgiving = decode::<T>(&text, ReadMode::Forgiving).map_err(|e| e.to_string())?;
    if forgiving.value != *v || !forgiving.warnings.is_empty() {
        return Err(format!("forgiving reader differs on {text}"));
    }
    let from_tree = decode_value::<T>(&tree, ReadMode::Exact).map_err(|e| e.to_string())?;
    if from_tree.value != *v {
        return Err(format!("decode_value differs on {text}"));
    }
    let again = to_string(&exact.value).map_err(|e| e.to_string())?;
    if again != text {
        return Err(format!("re-encoding is not stable:\n  {text}\n  {again}"));
    }
    Ok(())
}

/// The strategies list every event type of the table, once each and in its order, and the
/// strategy of every attributable type sets `subagentRunId` (the `attributable` marker of
/// `ev!`, which the compiler cannot ask for): a new event in the table fails here until it
/// has a strategy.
#[test]
fn the_strategies_cover_every_event_type() {
    let by_type = s::events_by_type();
    let kinds: Vec<EventType> = by_type.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        kinds,
        EventType::ALL,
        "one strategy per event type, in table order"
    );
    let mut runner = runner(1);
    for (kind, strategy) in by_type {
        if !kind.is_attributable() {
            continue;
        }
        let attributed = (0..64).any(|_| {
            strategy
                .new_tree(&mut runner)
                .is_ok_and(|t| t.current().subagent_run_id().is_some())
        });
        assert!(
            attributed,
            "the strategy for {kind} never sets subagentRunId"
        );
    }
}

#[test]
fn every_event_type_round_trips_exactly() {
    let per_type = cases(24);
    for (kind, strategy) in s::events_by_type() {
        check(kind.as_str(), per_type, strategy, |e| {
            if e.event_type() != kind {
                return Err(format!("strategy for {kind} built {}", e.event_type()));
            }
            round_trip(&e)?;
            // A stream consumer reads it the same way, and so does the SSE path.
            let frame = to_sse_frame(&e).map_err(|x| x.to_string())?;
            let mut reader = SseReader::new();
            reader.feed(frame.as_bytes()).map_err(|x| x.to_string())?;
            let data = reader
                .next_message()
                .ok_or("SSE frame yielded no message")?;
            let d = EventDecoder::new(ReadMode::Exact)
                .decode(&data)
                .map_err(|x| x.to_string())?;
            // The only warning a valid event can raise is §10's, on a RUN_STARTED whose
            // version is newer than 1.0 or not MAJOR.MINOR.
            if d.value.as_ref() != Some(&e)
                || d.warnings
                    .iter()
                    .any(|w| w.kind != ag_ui_core::WarningKind::ProtocolVersion)
            {
                return Err(format!("EventDecoder differs on {data}"));
            }
            Ok(())
        });
    }
}

#[test]
fn run_agent_input_round_trips_exactly() {
    check("RunAgentInput", 96, s::run_agent_input(), |v| {
        round_trip(&v)
    });
}

#[test]
fn messages_parts_and_tools_round_trip_exactly() {
    check("Message", 96, s::message(), |v| round_trip(&v));
    check("ContentPart", 64, s::content_part(), |v| round_trip(&v));
    check("PartSource", 32, s::part_source(), |v| round_trip(&v));
    check("ToolCall", 32, s::tool_call(), |v| round_trip(&v));
    check("Tool", 32, s::tool(), |v| round_trip(&v));
    check("Context", 16, s::context(), |v| round_trip(&v));
}

#[test]
fn outcomes_interrupts_usage_and_patches_round_trip_exactly() {
    check("RunFinishedOutcome", 48, s::run_outcome(), |v| {
        round_trip(&v)
    });
    check("SubagentFinishedOutcome", 24, s::subagent_outcome(), |v| {
        round_trip(&v)
    });
    check("Interrupt", 48, s::interrupt(), |v| round_trip(&v));
    check("ResumeEntry", 32, s::resume_entry(), |v| round_trip(&v));
    check("TokenUsage", 32, s::usage(), |v| round_trip(&v));
    check("JsonPatchOperation", 64, s::patch_op(), |v| round_trip(&v));
    check("JsonPatch", 32, s::patch(), |v| round_trip(&v));
    check("JsonPointer", 32, s::pointer(), |v| round_trip(&v));
    check("Metadata", 32, s::metadata(), |v| round_trip_at(&v, true));
}

#[test]
fn capabilities_round_trip_exactly() {
    check("AgentCapabilities", 64, s::capabilities(), |v| {
        round_trip(&v)
    });
}

// ---------------------------------------------------------------------------
// Nothing lost: payloads, metadata and state as JSON values
// ---------------------------------------------------------------------------

/// Reads `doc` as `T`, writes it back, and checks that the member at each pointer is the
/// same JSON value, written with the same bytes.
fn payloads_survive<T: Encode + DeserializeOwned + Debug>(
    doc: &Value,
    pointers: &[&str],
) -> Result<(), String> {
    let text = doc.to_string();
    let read = decode::<T>(&text, ReadMode::Exact).map_err(|e| format!("{e} on {text}"))?;
    let back: Value = serde_json::from_str(&to_string(&read.value).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    for p in pointers {
        let (a, b) = (doc.pointer(p), back.pointer(p));
        if a != b {
            return Err(format!("{p} changed: {a:?} -> {b:?}"));
        }
        let (a, b) = (a.map(Value::to_string), b.map(Value::to_string));
        if a != b {
            return Err(format!("{p} re-encoded differently: {a:?} -> {b:?}"));
        }
    }
    Ok(())
}

#[test]
fn payloads_metadata_and_state_round_trip_as_json_values() {
    let pieces = (
        any_json(),
        s::json_not_null(),
        s::metadata(),
        s::json_not_null(),
    );
    check("payloads", 128, pieces, |(value, raw, meta, state)| {
        let event =
            json!({"type":"CUSTOM","name":"n","value":value,"rawEvent":raw,"metadata":meta});
        payloads_survive::<Event>(&event, &["/value", "/rawEvent", "/metadata"])?;
        let snap = json!({"type":"STATE_SNAPSHOT","snapshot":value,"metadata":meta});
        payloads_survive::<Event>(&snap, &["/snapshot", "/metadata"])?;
        let input = json!({
            "threadId":"t","runId":"r","messages":[
                {"id":"1","role":"user","content":[{"type":"text","text":"x","metadata":raw}],"metadata":meta}
            ],
            "state":state,"forwardedProps":raw,
            "tools":[{"name":"n","description":"d","parameters":raw}],
            "resume":[{"interruptId":"i","status":"resolved","payload":raw}]
        });
        payloads_survive::<RunAgentInput>(
            &input,
            &[
                "/state",
                "/forwardedProps",
                "/messages/0/metadata",
                "/messages/0/content/0/metadata",
                "/tools/0/parameters",
                "/resume/0/payload",
            ],
        )
    });
}

#[test]
fn null_in_optional_any_json_is_written_as_absent() {
    // A bare null in an optional any-JSON member means "absent" to every 1.0 reader and is
    // refused by the schema, so the writer leaves the member out.
    let cases: Vec<(Value, Value)> = vec![
        (
            serde_json::to_value(RunErrorEvent::new("m").with_raw_event(Value::Null)).unwrap(),
            json!({"type":"RUN_ERROR","message":"m"}),
        ),
        (
            serde_json::to_value(RunFinishedEvent::new("t", "r").with_result(Value::Null)).unwrap(),
            json!({"type":"RUN_FINISHED","threadId":"t","runId":"r"}),
        ),
        (
            serde_json::to_value(SubagentFinishedEvent::new("s").with_result(Value::Null)).unwrap(),
            json!({"type":"SUBAGENT_FINISHED","subagentRunId":"s"}),
        ),
        (
            serde_json::to_value(
                RunAgentInput::new("t", "r", vec![])
                    .with_state(Value::Null)
                    .with_forwarded_props(Value::Null),
            )
            .unwrap(),
            json!({"threadId":"t","runId":"r","messages":[]}),
        ),
        (
            serde_json::to_value(Tool::new("n", "d").with_parameters(Value::Null)).unwrap(),
            json!({"name":"n","description":"d"}),
        ),
        (
            serde_json::to_value(
                ResumeEntry::new("i", ResumeStatus::Resolved).with_payload(Value::Null),
            )
            .unwrap(),
            json!({"interruptId":"i","status":"resolved"}),
        ),
        (
            serde_json::to_value(TextPart::new("x").with_metadata(Value::Null)).unwrap(),
            json!({"type":"text","text":"x"}),
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
    // Required any-JSON members keep their null.
    assert_eq!(
        serde_json::to_value(CustomEvent::new("n", Value::Null)).unwrap(),
        json!({"type":"CUSTOM","name":"n","value":null})
    );
}

// ---------------------------------------------------------------------------
// No input panics
// ---------------------------------------------------------------------------

/// Keys and tags of the wire vocabulary, so that random objects reach deep into the readers.
pub(crate) const WIRE_KEYS: &[&str] = &[
    "type",
    "role",
    "op",
    "messageId",
    "delta",
    "threadId",
    "runId",
    "messages",
    "id",
    "content",
    "toolCallId",
    "toolCallName",
    "outcome",
    "interrupts",
    "reason",
    "usage",
    "inputTokens",
    "timestamp",
    "metadata",
    "rawEvent",
    "subagentRunId",
    "path",
    "from",
    "value",
    "patch",
    "source",
    "mimeType",
    "text",
    "toolCalls",
    "function",
    "name",
    "arguments",
    "state",
    "tools",
    "resume",
    "status",
    "interruptId",
    "snapshot",
    "event",
    "input",
    "result",
    "activityType",
    "replace",
    "subtype",
    "entityId",
    "encryptedValue",
    "pendingToolCallIds",
];

fn tag() -> impl Strategy<Value = Value> {
    let mut tags: Vec<&'static str> = EventType::WIRE_NAMES.to_vec();
    tags.extend(Role::WIRE_NAMES);
    tags.extend([
        "text",
        "image",
        "binary",
        "data",
        "url",
        "file",
        "function",
        "success",
        "interrupt",
        "cancelled",
        "suspended",
        "add",
        "remove",
        "replace",
        "move",
        "copy",
        "test",
        "reasoning",
        "THINKING_START",
        "THINKING_END",
        "THINKING_TEXT_MESSAGE_START",
        "THINKING_TEXT_MESSAGE_CONTENT",
        "THINKING_TEXT_MESSAGE_END",
        "tool-call",
        "message",
        "resolved",
        "/a/0",
        "~",
        "/~2",
    ]);
    proptest::sample::select(tags).prop_map(Value::from)
}

/// JSON values shaped like AG-UI documents: objects keyed by the wire vocabulary.
fn wireish() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![3 => any_json(), 2 => tag()];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((proptest::sample::select(WIRE_KEYS), inner), 0..7).prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}

/// Reads `text` every way the crate offers; none may panic, and what is accepted must
/// re-encode to something the exact reader accepts as the same value.
pub(crate) fn read_every_way(text: &str) -> Result<(), String> {
    fn one<T: Encode + DeserializeOwned + PartialEq + Debug>(text: &str) -> Result<(), String> {
        for mode in [ReadMode::Forgiving, ReadMode::Exact] {
            match decode::<T>(text, mode) {
                Ok(d) => {
                    let again = match to_string(&d.value) {
                        Ok(again) => again,
                        // The producer rule of docs/versions.md: a type without its value
                        // is read (the 1.1 schema allows it) and never written back.
                        Err(e)
                            if e.kind() == ErrorKind::Encode
                                && e.pointer()
                                    .is_some_and(|p| p.ends_with("/encryptedValueType"))
                                && e.to_string().contains("set without `encryptedValue`") =>
                        {
                            continue;
                        }
                        Err(e) => return Err(format!("accepted but cannot re-encode: {e}")),
                    };
                    let exact = decode::<T>(&again, ReadMode::Exact)
                        .map_err(|e| format!("re-encoded {again} refused: {e}"))?;
                    if exact.value != d.value {
                        return Err(format!("re-encoded {again} reads differently"));
                    }
                }
                Err(e) => crate::contract::error_explains_itself(text, &e)?,
            }
        }
        Ok(())
    }
    one::<Event>(text)?;
    one::<RunAgentInput>(text)?;
    one::<Message>(text)?;
    let _ = EventDecoder::default().decode(text);
    let _ = EventDecoder::new(ReadMode::Exact).decode(text);
    Ok(())
}

#[test]
fn arbitrary_json_never_panics() {
    check(
        "arbitrary JSON",
        384,
        prop_oneof![1 => any_json(), 3 => wireish()],
        |v| {
            read_every_way(&v.to_string())?;
            let _ = decode_value::<Event>(&v, ReadMode::Forgiving);
            let _ = decode_value::<RunAgentInput>(&v, ReadMode::Exact);
            let _ = decode_value::<Message>(&v, ReadMode::Forgiving);
            Ok(())
        },
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    check("arbitrary bytes", 256, vec(any::<u8>(), 0..200), |bytes| {
        let _ = from_slice::<Event>(&bytes);
        let _ = decode_slice::<RunAgentInput>(&bytes, ReadMode::Exact);
        let _ = decode_slice::<Message>(&bytes, ReadMode::Forgiving);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            read_every_way(text)?;
        }
        let mut reader = SseReader::with_max_frame_bytes(64);
        for chunk in bytes.chunks(7) {
            if reader.feed(chunk).is_err() {
                return Ok(());
            }
            while let Some(m) = reader.next_message() {
                read_every_way(&m)?;
            }
        }
        let _ = reader.finish();
        Ok(())
    });
}

#[test]
fn event_streams_survive_sse_split_anywhere() {
    let streams = (vec(s::event(), 1..6), vec(1_usize..48, 1..16));
    check("SSE event stream", 64, streams, |(events, cuts)| {
        let mut bytes = Vec::new();
        for e in &events {
            write_sse_frame(&mut bytes, e).map_err(|x| x.to_string())?;
        }
        let mut reader = SseReader::new();
        let mut rest: &[u8] = &bytes;
        let mut cuts = cuts.iter().cycle();
        let mut got = Vec::new();
        while !rest.is_empty() {
            let n = (*cuts.next().unwrap_or(&1)).min(rest.len());
            let (chunk, tail) = rest.split_at(n);
            reader.feed(chunk).map_err(|x| x.to_string())?;
            rest = tail;
            let mut decoder = EventDecoder::new(ReadMode::Exact);
            while let Some(m) = reader.next_message() {
                let d = decoder.decode(&m).map_err(|x| format!("{x} on {m}"))?;
                got.push(d.value.ok_or("event dropped")?);
            }
        }
        if reader.finish().map_err(|x| x.to_string())?.is_some() {
            return Err("a complete stream left a message behind".into());
        }
        if got != events {
            return Err(format!(
                "{} events in, {} out, or changed",
                events.len(),
                got.len()
            ));
        }
        Ok(())
    });
}

/// A stream of arbitrary events behind a `RUN_STARTED`, chunk shorthands over a few shared
/// ids included, so that the expander and the verifier get past the first event.
fn event_stream() -> impl Strategy<Value = Vec<Event>> {
    let id = proptest::sample::select(vec!["m1", "m2", "c1"]);
    let chunk = (0..3_u8, id, s::opt_text()).prop_map(|(kind, id, delta)| -> Event {
        match kind {
            0 => {
                let mut c = TextMessageChunkEvent::new().with_message_id(id);
                c.delta = delta;
                c.into()
            }
            1 => {
                let mut c = ToolCallChunkEvent::new()
                    .with_tool_call_id(id)
                    .with_tool_call_name("f");
                c.delta = delta;
                c.into()
            }
            _ => {
                let mut c = ReasoningMessageChunkEvent::new().with_message_id(id);
                c.delta = delta;
                c.into()
            }
        }
    });
    vec(prop_oneof![2 => s::event(), 3 => chunk], 0..12).prop_map(|mut events| {
        events.insert(0, RunStartedEvent::new("t", "r").into());
        events
    })
}

#[test]
fn chunk_expander_and_verifier_never_panic_and_explain_refusals() {
    check(
        "chunk expansion and verification",
        128,
        event_stream(),
        |events| {
            let mut expander = ChunkExpander::new();
            let mut expanded = Vec::new();
            for e in &events {
                match expander.push(e.clone()) {
                    Ok(out) => expanded.extend(out),
                    Err(v) => {
                        if v.to_string().is_empty() {
                            return Err("empty violation message from the expander".into());
                        }
                        break;
                    }
                }
            }
            expanded.extend(expander.finish());
            for e in &expanded {
                if e.event_type().is_chunk() {
                    return Err(format!("expander let a chunk through: {e:?}"));
                }
                round_trip(e)?;
            }
            let mut verifier = Verifier::new();
            for e in &events {
                if let Err(v) = verifier.push(e) {
                    if v.to_string().is_empty() {
                        return Err("empty violation message from the verifier".into());
                    }
                    return Ok(());
                }
            }
            if let Err(v) = verifier.finish()
                && v.to_string().is_empty()
            {
                return Err("empty violation message at the end of the stream".into());
            }
            let _ = verify_events(&expanded);
            Ok(())
        },
    );
}
