//! Prints this crate's protobuf encoding of events, for comparison with another encoder
//! (`scripts/interop/check-proto.mjs`). Reads JSON lines from stdin, each
//! `{"name": …, "event": <an event document>, "other": "<hex of another encoder's envelope>"}`,
//! and writes one JSON line per input:
//! `{"name": …, "ours": "<hex>", "encodeError": …, "sameDecode": bool, "decodeError": …}`:
//! `ours` is this crate's envelope for the event; `sameDecode` says whether the other
//! encoder's bytes decode to the same event as ours do (they may order an open object's
//! members differently, spec B8); the errors say what failed.
//!
//! Run with `cargo run -p ag-ui-core --features proto --example proto_hex < lines.jsonl`.

use std::fmt::Write as _;
use std::io::{BufRead, Write};

use ag_ui_core::Event;
use ag_ui_core::proto::{ProtoFrame, decode_event, encode_event};
use serde_json::{Value, json};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

/// The JSON document of the event `bytes` decode to.
fn decoded(bytes: &[u8]) -> Result<Value, String> {
    match decode_event(bytes).map_err(|e| e.to_string())? {
        ProtoFrame::Event(d) => {
            let json = ag_ui_core::write::to_vec(&d.value).map_err(|e| e.to_string())?;
            serde_json::from_slice(&json).map_err(|e| e.to_string())
        }
        other => Err(format!("{other:?}")),
    }
}

fn line(input: &str) -> Value {
    let input: Value = match serde_json::from_str(input) {
        Ok(v) => v,
        Err(e) => return json!({ "encodeError": format!("input line: {e}") }),
    };
    let name = input.get("name").cloned().unwrap_or(Value::Null);
    let event = input.get("event").cloned().unwrap_or(Value::Null);
    let ours = ag_ui_core::read::decode_value::<Event>(&event, ag_ui_core::ReadMode::Forgiving)
        .map_err(|e| e.to_string())
        .and_then(|d| encode_event(&d.value).map_err(|e| e.to_string()));
    let ours = match ours {
        Ok(b) => b,
        Err(e) => return json!({ "name": name, "ours": null, "encodeError": e }),
    };
    let other = input
        .get("other")
        .and_then(Value::as_str)
        .and_then(unhex)
        .unwrap_or_default();
    let (same, error) = match (decoded(&ours), decoded(&other)) {
        (Ok(a), Ok(b)) => (a == b, Value::Null),
        (Err(e), _) => (false, json!(format!("our bytes: {e}"))),
        (_, Err(e)) => (false, json!(format!("the other bytes: {e}"))),
    };
    json!({ "name": name, "ours": hex(&ours), "sameDecode": same, "decodeError": error })
}

fn main() {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for input in stdin.lock().lines() {
        let Ok(input) = input else { break };
        if input.trim().is_empty() {
            continue;
        }
        if writeln!(stdout, "{}", line(&input)).is_err() {
            break;
        }
    }
}
