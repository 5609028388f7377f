//! Event-stream semantics: runs every case of `fixtures/streams/` (format:
//! `fixtures/streams/README.md`) through the client pipeline, and checks the verifier and
//! the chunk expander directly.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ag_ui_core::stream::verify_events;
use ag_ui_core::{
    ChunkExpander, ConsumeError, Event, EventDecoder, EventPipeline, EventType, Message,
    PipelineError, ReadMode, Rule, RunFinishedEvent, RunStartedEvent, StepStartedEvent,
    StreamConsumer, TextMessageChunkEvent, TextMessageContentEvent, TextMessageStartEvent,
    ThreadState, ToolCallChunkEvent, Verifier,
};
use serde_json::{Value, json};

fn streams_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/streams")
}

struct Case {
    name: String,
    doc: Value,
    /// Each event's text as the file has it (members in the file's order).
    texts: Vec<String>,
}

fn load(kind: &str) -> Vec<Case> {
    let dir = streams_dir().join(kind);
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        #[derive(serde::Deserialize)]
        struct Events<'a> {
            #[serde(borrow)]
            events: Vec<&'a serde_json::value::RawValue>,
        }
        let texts = serde_json::from_str::<Events<'_>>(&text)
            .map(|d| d.events.iter().map(|e| e.get().to_owned()).collect())
            .unwrap_or_default();
        cases.push(Case { name, doc, texts });
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    cases
}

fn events_of(case: &Case) -> &Vec<Value> {
    case.doc["events"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: no events array", case.name))
}

/// What the pipeline made of a case.
struct Run {
    output: Vec<Value>,
    warnings: Vec<Value>,
    error: Option<PipelineError>,
}

/// Feeds each event's JSON text to a fresh pipeline, then ends the stream.
/// The pipeline a case asks for: forgiving, or exact with `"mode": "exact"`, reading as
/// the protocol version the case names (1.0 unless its name says otherwise).
fn pipeline_for(case: &Case) -> EventPipeline {
    let mode = match case.doc.get("mode").and_then(Value::as_str) {
        Some("exact") => ReadMode::Exact,
        _ => ReadMode::Forgiving,
    };
    let version = ag_ui_fixtures::protocol_of(&case.name);
    EventPipeline::with_decoder(EventDecoder::new(mode).with_protocol_version(version))
}

fn run(case: &Case) -> Run {
    let mut pipeline = pipeline_for(case);
    let mut run = Run {
        output: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    for (index, text) in case.texts.iter().enumerate() {
        match pipeline.push_text(text) {
            Ok(decoded) => {
                run.output.extend(
                    decoded
                        .value
                        .iter()
                        .map(|e| serde_json::to_value(e).unwrap()),
                );
                run.warnings.extend(decoded.warnings.iter().map(
                    |w| json!({ "index": index, "kind": w.kind.as_str(), "pointer": w.pointer }),
                ));
            }
            Err(e) => {
                run.error = Some(e);
                return run;
            }
        }
    }
    match pipeline.finish() {
        Ok(events) => run
            .output
            .extend(events.iter().map(|e| serde_json::to_value(e).unwrap())),
        Err(e) => run.error = Some(e),
    }
    run
}

/// Whether `expected` is a subset of `actual`: an object lists only the members it checks
/// (each must be present and match), an array matches an array of the same length element
/// by element, and numbers compare by value.
fn subset(expected: &Value, actual: &Value, at: &str) -> Result<(), String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, v) in e {
                let here = format!("{at}/{k}");
                let Some(got) = a.get(k) else {
                    return Err(format!("{here}: missing (expected {v})"));
                };
                subset(v, got, &here)?;
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Err(format!(
                    "{at}: {} elements, expected {}: {actual}",
                    a.len(),
                    e.len()
                ));
            }
            for (i, (v, got)) in e.iter().zip(a).enumerate() {
                subset(v, got, &format!("{at}/{i}"))?;
            }
            Ok(())
        }
        (Value::Number(e), Value::Number(a)) if e.as_f64() == a.as_f64() => Ok(()),
        (e, a) if e == a => Ok(()),
        (e, a) => Err(format!("{at}: {a}, expected {e}")),
    }
}

/// Runs a case through `StreamConsumer` (SSE framing, pipeline, `ThreadState`) and checks
/// its `messages`, `state` and `applyWarnings` members. Cases without them pass.
///
/// Every case also runs through `StreamConsumer::feed_to_thread` (which reads plain
/// streamed deltas in place), which must end as `feed` does: the same outcome, warnings and
/// thread.
fn check_thread(case: &Case) -> Result<(), String> {
    let doc = &case.doc;
    let (mut consumer, fed) = consume(case, false)?;
    let (mut fast, fast_fed) = consume(case, true)?;
    if format!("{fed:?}") != format!("{fast_fed:?}") {
        return Err(format!(
            "feed ended with {fed:?}, feed_to_thread with {fast_fed:?}"
        ));
    }
    let warnings = consumer.take_warnings();
    if fast.take_warnings() != warnings
        || serde_json::to_value(fast.thread().messages()).unwrap()
            != serde_json::to_value(consumer.thread().messages()).unwrap()
        || fast.thread().state() != consumer.thread().state()
    {
        return Err("feed_to_thread left another thread or other warnings than feed".into());
    }
    if ["messages", "state", "applyWarnings"]
        .iter()
        .all(|k| doc.get(k).is_none())
    {
        return Ok(());
    }
    match (fed, doc.get("rule")) {
        (Ok(()) | Err(ConsumeError::Incomplete { .. }), None) => {}
        (Err(ConsumeError::Pipeline(e)), Some(rule)) if e.index() as u64 == doc["index"] => {
            let broke = e.rule().map_or("decode", |r| r.as_str());
            if rule != broke {
                return Err(format!("consumer broke {broke}, expected {rule}"));
            }
        }
        (other, _) => return Err(format!("consumer ended with {other:?}")),
    }
    let applied: Vec<Value> = warnings
        .iter()
        .filter(|w| w.kind.is_reducer())
        .map(|w| json!({ "index": w.event_index, "kind": w.kind.as_str(), "pointer": w.pointer }))
        .collect();
    let expected = doc.get("applyWarnings").cloned().unwrap_or(json!([]));
    if Value::Array(applied.clone()) != expected {
        return Err(format!(
            "applyWarnings {}, expected {expected}",
            Value::Array(applied)
        ));
    }
    if let Some(m) = doc.get("messages") {
        let got = serde_json::to_value(consumer.thread().messages()).unwrap();
        subset(m, &got, "messages")?;
    }
    if let Some(s) = doc.get("state") {
        subset(s, consumer.thread().state(), "state")?;
    }
    Ok(())
}

/// An event's JSON with its `type` first, as producers write it (and as the consumer's
/// fast lane for streamed deltas needs it).
fn type_first(event: &Value) -> String {
    match event.as_object() {
        Some(map) if map.contains_key("type") => {
            let mut out = format!("{{\"type\":{}", map["type"]);
            for (k, v) in map.iter().filter(|(k, _)| *k != "type") {
                out.push_str(&format!(",{}:{v}", Value::from(k.as_str())));
            }
            out.push('}');
            out
        }
        _ => event.to_string(),
    }
}

/// A case's stream fed to a `StreamConsumer` (through `feed_to_thread` when `to_thread`),
/// then finished.
fn consume(
    case: &Case,
    to_thread: bool,
) -> Result<(StreamConsumer, Result<(), ConsumeError>), String> {
    let doc = &case.doc;
    let mut thread = ThreadState::new();
    if let Some(initial) = doc.get("initial") {
        if let Some(m) = initial.get("messages") {
            let messages: Vec<Message> =
                serde_json::from_value(m.clone()).map_err(|e| format!("initial.messages: {e}"))?;
            thread = thread.with_messages(messages);
        }
        if let Some(s) = initial.get("state") {
            thread = thread.with_state(s.clone());
        }
    }
    let mut bytes = Vec::new();
    for event in events_of(case) {
        bytes.extend_from_slice(b"data: ");
        bytes.extend_from_slice(type_first(event).as_bytes());
        bytes.extend_from_slice(b"\n\n");
    }
    let mut consumer = StreamConsumer::with_thread(thread).with_pipeline(pipeline_for(case));
    let fed = if to_thread {
        consumer.feed_to_thread(&bytes).map(drop)
    } else {
        consumer.feed(&bytes).map(drop)
    }
    .and_then(|()| consumer.finish().map(drop));
    Ok((consumer, fed))
}

/// Every case with an expected thread (`messages`, `state`, `applyWarnings`) folds to it.
#[test]
fn streams_fold_into_their_expected_thread() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for kind in ["valid", "invalid"] {
        for case in load(kind) {
            if ["messages", "state", "applyWarnings"]
                .iter()
                .any(|k| case.doc.get(k).is_some())
            {
                checked += 1;
            }
            if let Err(e) = check_thread(&case) {
                failures.push(format!("{kind}/{}: {e}", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        checked >= 10,
        "only {checked} cases with an expected thread"
    );
}

#[test]
fn subset_match_is_strict_where_it_must_be() {
    let actual = json!({"a": [1, {"b": 2, "c": 3}], "d": 2.0});
    subset(&json!({"a": [1, {"b": 2}]}), &actual, "").unwrap();
    subset(&json!({"d": 2}), &actual, "").unwrap();
    assert!(subset(&json!({"a": [1]}), &actual, "").is_err());
    assert!(subset(&json!({"x": null}), &actual, "").is_err());
    assert!(subset(&json!({"a": [1, {"b": 3}]}), &actual, "").is_err());
}

fn rules_of(list: &Value) -> Vec<String> {
    list.as_array()
        .map(|a| {
            a.iter()
                .map(|r| r.as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn valid_streams_pass() {
    let mut failures = Vec::new();
    for case in load("valid") {
        let r = run(&case);
        if let Some(e) = r.error {
            failures.push(format!("{}: rejected: {e}", case.name));
            continue;
        }
        let expected_output = case.doc.get("output").unwrap_or(&case.doc["events"]);
        if Value::Array(r.output.clone()) != *expected_output {
            failures.push(format!(
                "{}: output\n  {}\nexpected\n  {}",
                case.name,
                Value::Array(r.output),
                expected_output
            ));
        }
        let expected_warnings = case.doc.get("warnings").cloned().unwrap_or(json!([]));
        if Value::Array(r.warnings) != expected_warnings {
            failures.push(format!(
                "{}: warnings differ from {expected_warnings}",
                case.name
            ));
        }
        for rule in rules_of(&case.doc["rules"]) {
            if Rule::from_id(&rule).is_none() {
                failures.push(format!("{}: unknown rule {rule}", case.name));
            }
        }
        // The same events, decoded first, pass `verify_events`.
        let typed: Vec<Event> = events_of(&case)
            .iter()
            .filter_map(|e| serde_json::from_value(e.clone()).ok())
            .collect();
        if let Err(v) = verify_events(&typed) {
            failures.push(format!("{}: verify_events: {v}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn invalid_streams_fail_for_their_rule() {
    let mut failures = Vec::new();
    for case in load("invalid") {
        let expected_rule = case.doc["rule"].as_str().unwrap_or_default();
        let expected_index = case.doc["index"].as_u64();
        let r = run(&case);
        let Some(error) = r.error else {
            failures.push(format!("{}: accepted", case.name));
            continue;
        };
        if Some(error.index() as u64) != expected_index {
            failures.push(format!(
                "{}: failed at event {}, expected {expected_index:?}: {error}",
                case.name,
                error.index()
            ));
        }
        match &error {
            PipelineError::Violation(v) => {
                if v.rule.as_str() != expected_rule {
                    failures.push(format!(
                        "{}: broke {}, expected {expected_rule}: {v}",
                        case.name, v.rule
                    ));
                }
                if let Some(ids) = case.doc.get("ids")
                    && json!(v.ids) != *ids
                {
                    failures.push(format!(
                        "{}: ids {:?}, expected {ids}: {v}",
                        case.name, v.ids
                    ));
                }
                let shown = v.to_string();
                if !shown.contains(v.rule.as_str()) || !shown.contains(&v.index.to_string()) {
                    failures.push(format!(
                        "{}: Display lacks rule or index: {shown}",
                        case.name
                    ));
                }
            }
            PipelineError::Decode { error: e, .. } => {
                if expected_rule != "decode" {
                    failures.push(format!(
                        "{}: reader rejected it, expected {expected_rule}: {error}",
                        case.name
                    ));
                } else if e.pointer() != case.doc["pointer"].as_str() {
                    failures.push(format!(
                        "{}: reader rejected it at {:?}, expected {}",
                        case.name,
                        e.pointer(),
                        case.doc["pointer"]
                    ));
                }
            }
            other => failures.push(format!("{}: unexpected error {other}", case.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every rule has a valid case that exercises it and an invalid case that breaks it.
#[test]
fn every_rule_has_a_valid_and_a_failing_case() {
    let mut valid: BTreeMap<String, usize> = BTreeMap::new();
    for case in load("valid") {
        for rule in rules_of(&case.doc["rules"]) {
            *valid.entry(rule).or_default() += 1;
        }
    }
    let mut invalid: BTreeMap<String, usize> = BTreeMap::new();
    for case in load("invalid") {
        let rule = case.doc["rule"].as_str().unwrap_or_default().to_owned();
        *invalid.entry(rule).or_default() += 1;
    }
    let missing: Vec<String> = Rule::ALL
        .iter()
        .filter(|r| !valid.contains_key(r.as_str()) || !invalid.contains_key(r.as_str()))
        .map(|r| r.to_string())
        .collect();
    assert!(missing.is_empty(), "rules without both cases: {missing:?}");
}

/// A stream case holds only events of its version (the event table's first versions): a
/// stream with an event newer than 1.0 is named for its version (`v1.1-…`), so that 1.0
/// readers and the official 1.0 SDKs skip it.
#[test]
fn stream_cases_hold_only_events_of_their_version() {
    let mut failures = Vec::new();
    let mut seen = 0;
    for kind in ["valid", "invalid"] {
        for case in load(kind) {
            let version = ag_ui_fixtures::protocol_of(&case.name);
            for event in events_of(&case) {
                let Some(t) = event["type"]
                    .as_str()
                    .and_then(ag_ui_core::EventType::from_wire)
                else {
                    continue;
                };
                seen += 1;
                if !version.knows(t) {
                    failures.push(format!(
                        "{kind}/{}: {t} is first in AG-UI {}, the case is of {version}",
                        case.name,
                        t.since()
                    ));
                }
            }
        }
    }
    assert!(seen > 500, "{seen} events");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The rule an invalid case breaks governs its offending event: the rule's area (the event
/// table's) is the event's, or the rule is about several areas.
#[test]
fn the_broken_rule_governs_the_offending_event() {
    let mut failures = Vec::new();
    let mut scoped = 0;
    for case in load("invalid") {
        let index = usize::try_from(case.doc["index"].as_u64().unwrap()).unwrap();
        // A case without a rule is a decoding failure, not a broken rule.
        let Some(rule) = case.doc["rule"].as_str().and_then(Rule::from_id) else {
            continue;
        };
        let events = events_of(&case);
        let Some(t) = events[index]["type"]
            .as_str()
            .and_then(ag_ui_core::EventType::from_wire)
        else {
            continue;
        };
        scoped += usize::from(rule.area().is_some());
        if !rule.governs(t) {
            failures.push(format!(
                "{}: {rule} (area {:?}) is broken by {t} (area {})",
                case.name,
                rule.area(),
                t.area()
            ));
        }
    }
    assert!(scoped > 20, "{scoped} cases of a rule of one area");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Invalid cases stop being invalid without their offending event: what precedes it
/// passes, so the case fails for that event and nothing earlier.
#[test]
fn invalid_streams_pass_up_to_the_offending_event() {
    let mut failures = Vec::new();
    for case in load("invalid") {
        let index = usize::try_from(case.doc["index"].as_u64().unwrap()).unwrap();
        let events = events_of(&case);
        let mut pipeline = pipeline_for(&case);
        for (i, event) in events.iter().take(index).enumerate() {
            if let Err(e) = pipeline.push_text(&serde_json::to_string(event).unwrap()) {
                failures.push(format!("{}: event {i} already fails: {e}", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rule_ids_round_trip() {
    let ids: BTreeSet<&str> = Rule::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(ids.len(), Rule::ALL.len());
    for rule in Rule::ALL {
        assert_eq!(Rule::from_id(rule.as_str()), Some(rule));
        assert_eq!(rule.to_string(), rule.as_str());
    }
    assert_eq!(Rule::from_id("L8"), None);
}

fn start() -> Event {
    RunStartedEvent::new("t1", "r1").into()
}

fn finish() -> Event {
    RunFinishedEvent::new("t1", "r1").into()
}

#[test]
fn violation_display_names_rule_index_and_ids() {
    let mut v = Verifier::new();
    v.push(&start()).unwrap();
    v.push(
        &TextMessageStartEvent::new("m")
            .with_subagent_run_id("s1")
            .into(),
    )
    .unwrap();
    let err = v
        .push(
            &TextMessageContentEvent::new("m", "x")
                .with_subagent_run_id("s2")
                .into(),
        )
        .unwrap_err();
    assert_eq!(err.rule, Rule::O2);
    assert_eq!(err.index, 2);
    assert_eq!(err.ids, ["m", "s2", "s1"]);
    let shown = err.to_string();
    assert!(
        shown.starts_with("rule O2 broken at event 2 ('m', 's2', 's1'): TEXT_MESSAGE_CONTENT"),
        "{shown}"
    );
    assert!(shown.contains("subagent 's1'"), "{shown}");
}

#[test]
fn a_refused_event_is_not_applied() {
    let mut v = Verifier::new();
    v.push(&start()).unwrap();
    let content: Event = TextMessageContentEvent::new("m", "x").into();
    assert_eq!(v.push(&content).unwrap_err().rule, Rule::M2);
    // The refusal left nothing open: the run can still finish.
    v.push(&finish()).unwrap();
    assert!(!v.is_run_active());
    assert_eq!(v.events_seen(), 3);
}

#[test]
fn finish_resets_for_another_stream() {
    let mut v = Verifier::new();
    v.push(&start()).unwrap();
    v.push(&StepStartedEvent::new("s").into()).unwrap();
    assert!(v.is_run_active());
    v.finish().unwrap();
    assert!(!v.is_run_active());
    assert_eq!(v.events_seen(), 0);
    // A new stream must begin with RUN_STARTED again.
    let err = v.push(&StepStartedEvent::new("s").into()).unwrap_err();
    assert_eq!((err.rule, err.index), (Rule::L1, 0));
}

#[test]
fn verifier_alone_does_not_expand_chunks() {
    let chunk: Event = TextMessageChunkEvent::new().with_message_id("m").into();
    let mut v = Verifier::new();
    assert_eq!(v.push(&chunk).unwrap_err().rule, Rule::L1);
    v.push(&start()).unwrap();
    v.push(&chunk).unwrap();
    // Unexpanded, the chunk opened nothing for RUN_FINISHED to complain about ...
    v.push(&finish()).unwrap();
    // ... while verify_events expands it and closes the message before RUN_FINISHED.
    verify_events(&[start(), chunk.clone(), finish()]).unwrap();
}

#[test]
fn verify_events_reports_input_indices() {
    // Event 2 is a chunk expanding to START + CONTENT; the START breaks M1.
    let events = [
        start(),
        TextMessageStartEvent::new("m").into(),
        TextMessageChunkEvent::new()
            .with_message_id("m")
            .with_delta("x")
            .into(),
    ];
    let err = verify_events(&events).unwrap_err();
    assert_eq!((err.rule, err.index), (Rule::M1, 2));
}

fn types(events: &[Event]) -> Vec<EventType> {
    events.iter().map(Event::event_type).collect()
}

#[test]
fn expander_closes_on_switch_other_kind_and_end_of_stream() {
    let mut x = ChunkExpander::new();
    let out = x.push(start()).unwrap();
    assert_eq!(types(&out), [EventType::RunStarted]);
    let out = x
        .push(
            TextMessageChunkEvent::new()
                .with_message_id("a")
                .with_delta("1")
                .into(),
        )
        .unwrap();
    assert_eq!(
        types(&out),
        [EventType::TextMessageStart, EventType::TextMessageContent]
    );
    // Another id closes the first message.
    let out = x
        .push(TextMessageChunkEvent::new().with_message_id("b").into())
        .unwrap();
    assert_eq!(
        types(&out),
        [EventType::TextMessageEnd, EventType::TextMessageStart]
    );
    // A chunk of another kind in the lane closes it too.
    let out = x
        .push(
            ToolCallChunkEvent::new()
                .with_tool_call_id("c")
                .with_tool_call_name("f")
                .into(),
        )
        .unwrap();
    assert_eq!(
        types(&out),
        [EventType::TextMessageEnd, EventType::ToolCallStart]
    );
    // A subagent's explicit event does not close the parent's lane.
    let out = x
        .push(StepStartedEvent::new("s").with_subagent_run_id("s1").into())
        .unwrap();
    assert_eq!(types(&out), [EventType::StepStarted]);
    assert!(x.has_pending());
    // End of stream.
    assert_eq!(types(&x.finish()), [EventType::ToolCallEnd]);
    assert!(!x.has_pending());
    assert!(x.finish().is_empty());
}

#[test]
fn expander_state_is_unchanged_by_a_refused_chunk() {
    let mut x = ChunkExpander::new();
    x.push(
        TextMessageChunkEvent::new()
            .with_message_id("m")
            .with_role(ag_ui_core::TextMessageRole::User)
            .into(),
    )
    .unwrap();
    let conflict: Event = TextMessageChunkEvent::new()
        .with_role(ag_ui_core::TextMessageRole::System)
        .into();
    let err = x.push(conflict).unwrap_err();
    assert_eq!((err.rule, err.index), (Rule::C2, 1));
    assert!(err.message.contains("role 'system'"), "{}", err.message);
    assert!(err.message.contains("role 'user'"), "{}", err.message);
    // The message is still open and still continues.
    let out = x
        .push(TextMessageChunkEvent::new().with_delta("ok").into())
        .unwrap();
    assert_eq!(types(&out), [EventType::TextMessageContent]);
    // A tool chunk without a name is refused before it closes the text message.
    let err = x
        .push(ToolCallChunkEvent::new().with_tool_call_id("c").into())
        .unwrap_err();
    assert_eq!(
        (err.rule, err.ids.as_slice()),
        (Rule::C1, ["c".to_owned()].as_slice())
    );
    assert_eq!(types(&x.finish()), [EventType::TextMessageEnd]);
}

#[test]
fn pipeline_counts_dropped_and_rejected_events() {
    let mut p = EventPipeline::new();
    p.push_text(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#)
        .unwrap();
    let dropped = p.push_text(r#"{"type":"NOT_AN_EVENT"}"#).unwrap();
    assert!(dropped.value.is_empty());
    assert_eq!(p.events_seen(), 2);
    let err = p.push_text("{not json").unwrap_err();
    assert!(
        matches!(err, PipelineError::Decode { index: 2, .. }),
        "{err}"
    );
    assert_eq!(err.rule(), None);
    let err = p
        .push_text(r#"{"type":"STEP_FINISHED","stepName":"s"}"#)
        .unwrap_err();
    assert_eq!((err.rule(), err.index()), (Some(Rule::S2), 3));
    assert!(
        err.to_string().starts_with("rule S2 broken at event 3"),
        "{err}"
    );
}

#[test]
fn pipeline_names_the_pointer_of_a_null_subagent_run_id() {
    let mut p = EventPipeline::with_decoder(EventDecoder::new(ReadMode::Exact));
    p.push_text(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#)
        .unwrap();
    let err = p
        .push_text(
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u0","role":"user","content":"a"},{"id":"u1","role":"user","content":"b","subagentRunId":null}]}"#,
        )
        .unwrap_err();
    let PipelineError::Violation(v) = err else {
        panic!("{err}")
    };
    assert_eq!(
        (v.rule, v.index, v.ids.as_slice()),
        (Rule::O6, 1, ["u1".to_owned()].as_slice())
    );
    assert!(
        v.message.contains("/messages/1/subagentRunId"),
        "{}",
        v.message
    );
}
