//! The OpenAPI document of the server's routes: the copy `ag-ui-server` serves
//! (`crates/ag-ui-server/openapi.json`) is what the code generates (`AG_UI_BLESS=1`
//! rewrites it), it is a valid OpenAPI 3.1 document's schema part, and the records the
//! threads API writes validate against its schemas.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use ag_ui_core::api::{
    RunEndKind, RunPhase, RunRecord, RunSummary, ThreadDetail, ThreadPage, ThreadPatch,
    ThreadSummary,
};
use ag_ui_core::{Message, TokenUsage};
use serde_json::{Value, json};

fn served() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ag-ui-server/openapi.json")
}

#[test]
fn the_served_document_equals_what_the_code_generates() {
    let text = ag_ui_schema::openapi::openapi_text().unwrap();
    let path = served();
    if std::env::var_os("AG_UI_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap();
    let committed_value: Value = serde_json::from_str(&committed).unwrap();
    assert_eq!(
        committed_value,
        ag_ui_schema::openapi::openapi().unwrap(),
        "{} is stale: regenerate it with \
         `cargo run -q -p ag-ui-schema -- --openapi --out {0}` or AG_UI_BLESS=1",
        path.display()
    );
    assert_eq!(
        committed,
        text,
        "{} is not formatted as generated",
        path.display()
    );
}

/// A validator for the document's component `name`.
fn validator(doc: &Value, name: &str) -> jsonschema::Validator {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": doc["components"].clone(),
    });
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn check(doc: &Value, name: &str, value: &Value) {
    let v = validator(doc, name);
    let errors: Vec<String> = v
        .iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{name} {value}: {errors:?}");
}

fn refuse(doc: &Value, name: &str, value: &Value) {
    assert!(
        !validator(doc, name).is_valid(value),
        "{name} admits {value}"
    );
}

#[test]
fn the_threads_api_records_validate_against_the_document() {
    let doc = ag_ui_schema::openapi::openapi().unwrap();
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_millis(1_765_000_000_123);
    let mut summary = ThreadSummary::new("t-1", t0);
    summary.title = Some("Weather".into());
    summary.metadata.insert("topic".into(), json!("rain"));
    summary.run_count = 2;
    summary.last_run = Some(RunSummary::new("r-2", RunPhase::Running, None));
    let mut ended = RunRecord::new("r-1", t0);
    ended.status = RunPhase::Ended;
    ended.outcome = Some(RunEndKind::Error);
    ended.ended_at = Some(t0 + Duration::from_secs(3));
    ended.error_code = Some("provider_error".into());
    ended.trace_id = Some("4bf92f3577b34da6a3ce929d0e0e4736".into());
    ended.usage = vec![
        serde_json::from_value::<TokenUsage>(
            json!({"provider": "p", "model": "m", "inputTokens": 7}),
        )
        .unwrap(),
    ];
    ended.input_messages = vec![
        serde_json::from_value::<Message>(json!({"id": "u1", "role": "user", "content": "hi"}))
            .unwrap(),
    ];
    let running = RunRecord::new("r-2", t0 + Duration::from_secs(5));
    let messages: Vec<Message> = serde_json::from_value(json!([
        {"id": "u1", "role": "user", "content": "hi"},
        {"id": "a1", "role": "assistant", "content": "hello",
         "toolCalls": [{"id": "c1", "type": "function",
                        "function": {"name": "weather", "arguments": "{}"}}]},
        {"id": "tr1", "role": "tool", "content": "sunny", "toolCallId": "c1"},
    ]))
    .unwrap();
    let detail = ThreadDetail::new(
        summary.clone(),
        messages,
        json!({"turns": 1}),
        vec![ended, running],
    );
    let detail = serde_json::to_value(&detail).unwrap();
    check(&doc, "ThreadDetail", &detail);
    check(
        &doc,
        "ThreadSummary",
        &serde_json::to_value(&summary).unwrap(),
    );
    let page = ThreadPage::new(vec![summary], Some("c".into()));
    check(&doc, "ThreadPage", &serde_json::to_value(&page).unwrap());
    let patch = ThreadPatch::new().title(None).archived(true);
    check(&doc, "ThreadPatch", &serde_json::to_value(&patch).unwrap());
    check(
        &doc,
        "Refusal",
        &json!({"status": 404, "code": "thread_not_found", "error": "thread_not_found",
                "message": "no thread"}),
    );

    // The schemas are not empty shells: wrong values are refused.
    refuse(&doc, "ThreadPatch", &json!({"colour": "red"}));
    refuse(&doc, "ThreadPatch", &json!({"archived": "yes"}));
    let mut bad = detail.clone();
    bad["runs"][0]["status"] = json!("paused");
    refuse(&doc, "ThreadDetail", &bad);
    let mut bad = detail;
    bad["runCount"] = json!("two");
    refuse(&doc, "ThreadDetail", &bad);
}

#[test]
fn every_path_has_operations_whose_refs_resolve() {
    let doc = ag_ui_schema::openapi::openapi().unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            assert!(op["operationId"].is_string(), "{method} {path}");
            assert!(
                op["responses"]["default"].is_object(),
                "{method} {path}: no refusal"
            );
        }
    }
    // Each schema compiles on its own.
    for name in doc["components"]["schemas"].as_object().unwrap().keys() {
        let _ = validator(&doc, name);
    }
}
