//! Shared helpers: fixture documents, exact-mode checks, sequence checks.

use ag_ui_core::write::Encode;
use ag_ui_core::{Event, ReadMode};
use ag_ui_fixtures::{Failures, decode_as, fixtures_dir};
use serde_json::{Value, json};

/// The document `fixtures/<def>/valid/<case>.json`.
pub(crate) fn fixture(def: &str, case: &str) -> Value {
    let path = fixtures_dir()
        .join(def)
        .join("valid")
        .join(format!("{case}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `value`, written by ag-ui-core, is accepted as `def` by the exact-mode reader with
/// nothing to report, and re-encodes to itself.
pub(crate) fn exact(def: &str, value: &impl Encode) -> Result<Value, String> {
    let text = ag_ui_core::write::to_string(value).map_err(|e| format!("cannot encode: {e}"))?;
    let written: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let outcome = decode_as(def, &text, ReadMode::Exact)
        .ok_or_else(|| format!("unknown definition {def}"))?
        .map_err(|e| format!("exact reader rejects {text}: {e}"))?;
    if !outcome.warnings.is_empty() {
        return Err(format!("exact reader warns: {:?}", outcome.warnings));
    }
    if outcome.encoded != written {
        return Err(format!("re-encodes to {} not {written}", outcome.encoded));
    }
    Ok(written)
}

/// Records whether `built` equals the fixture `def/case` and passes [`exact`] (also as
/// `union`, when given: `Event`, `Message`, `ContentPart`, …).
pub(crate) fn same(
    failures: &mut Failures,
    def: &str,
    case: &str,
    union: Option<&str>,
    built: &impl Encode,
) {
    let name = format!("{def}/{case}");
    let result = (|| {
        let written = exact(def, built)?;
        if let Some(u) = union {
            exact(u, built)?;
        }
        let expected = fixture(def, case);
        if written != expected {
            return Err(format!("built {written}\n    fixture {expected}"));
        }
        Ok(())
    })();
    failures.check(&name, result);
}

/// The base fields of the spec-full event fixtures.
pub(crate) fn base_metadata() -> ag_ui_core::Metadata {
    ag_ui_core::Metadata::new()
        .with("ag-ui", json!({"usage": {"output": 12}}))
        .with("traceId", "tr-1")
        .with("note", Value::Null)
}

/// Sets the spec-full base fields (`timestamp`, `rawEvent`, `metadata`) and, with
/// `sub`, `subagentRunId: "sub-1"`.
macro_rules! full {
    ($ev:expr) => {
        $ev.with_timestamp(1_760_000_000_000_i64)
            .with_raw_event(serde_json::json!({"provider": "openai", "id": "evt_9"}))
            .with_metadata($crate::support::base_metadata())
    };
    ($ev:expr, sub) => {
        full!($ev).with_subagent_run_id("sub-1")
    };
}
pub(crate) use full;

/// Checks a produced sequence with the protocol's lifecycle rules (spec §9.1), every event
/// with the exact-mode reader, and the end-of-stream checks.
pub(crate) fn assert_valid_sequence(events: &[Event]) {
    for (i, e) in events.iter().enumerate() {
        if let Err(msg) = exact("Event", e) {
            panic!("event {i} ({}): {msg}", e.event_type());
        }
    }
    let mut verifier = ag_ui_core::Verifier::new();
    for e in events {
        if let Err(v) = verifier.push(e) {
            panic!("{v}\nsequence: {}", types(events).join(", "));
        }
    }
    if let Err(v) = verifier.finish() {
        panic!("{v}\nsequence: {}", types(events).join(", "));
    }
    if let Err(v) = ag_ui_core::stream::verify_events(events) {
        panic!("{v}");
    }
}

/// The event types of a sequence, as wire names.
pub(crate) fn types(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(|e| e.event_type().as_str()).collect()
}
