//! An [`Event`] to an envelope and back, through the event's JSON document: the members
//! move to the fields of the same name, and the few places where the wire schema's shape
//! differs from the JSON one are rewritten here, as the official encoder does (message and
//! tool-result content parts, the run and subagent outcomes, patch operation names).

use prost::Message as _;
use serde_json::{Map, Value};

use super::schema::{Arm, BaseEvent, Envelope, LAST_ARM};
use super::value::{PStruct, PValue};
use crate::codec::read::{Decoded, ReadMode, decode_value};
use crate::model::event::Event;

/// The patch operation names in the order of the wire enum `JsonPatchOperationType`.
const OPS: [&str; 6] = ["add", "remove", "replace", "move", "copy", "test"];

/// What a frame's bytes decode to.
pub(crate) enum Frame {
    /// An event.
    Event(Decoded<Event>),
    /// An envelope arm this build does not know (its field number).
    UnknownArm(u32),
}

/// Why an event cannot be encoded: its type's name and what failed.
pub(crate) type EncodeFailure = (&'static str, String);

/// Encodes `event` as one envelope (no length prefix), appended to `out`.
pub(crate) fn encode(event: &Event, out: &mut Vec<u8>) -> Result<(), EncodeFailure> {
    let wire = event.event_type().as_str();
    let fail = |detail: String| (wire, detail);
    let json = crate::codec::write::to_vec(event).map_err(|e| fail(e.to_string()))?;
    let Value::Object(mut rest) =
        serde_json::from_slice::<Value>(&json).map_err(|e| fail(e.to_string()))?
    else {
        return Err(fail("the event is not a JSON object".to_owned()));
    };
    rest.remove("type");
    let number = Arm::number_of(wire).ok_or_else(|| fail("no envelope arm".to_owned()))?;
    let base = BaseEvent {
        r#type: number,
        timestamp: match rest.remove("timestamp") {
            None => None,
            Some(t) => Some(
                t.as_i64()
                    .ok_or_else(|| fail("/timestamp is not an integer".to_owned()))?,
            ),
        },
        raw_event: rest.remove("rawEvent").map(|v| PValue::from_json(&v)),
        metadata: match rest.remove("metadata") {
            None => None,
            Some(Value::Object(m)) => Some(PStruct::from_json(&m)),
            Some(_) => return Err(fail("/metadata is not an object".to_owned())),
        },
    };
    to_wire(wire, &mut rest).map_err(fail)?;
    let arm = Arm::from_json(wire, rest, base).map_err(fail)?;
    Envelope { event: Some(arm) }
        .encode(out)
        .map_err(|e| fail(e.to_string()))
}

/// Decodes one envelope.
pub(crate) fn decode(bytes: &[u8]) -> Result<Frame, String> {
    let envelope = Envelope::decode(bytes).map_err(|e| e.to_string())?;
    let Some(arm) = envelope.event else {
        return match unknown_arm(bytes) {
            Some(field) => Ok(Frame::UnknownArm(field)),
            None => Err("the envelope sets no event".to_owned()),
        };
    };
    let (wire, number, base, json) = arm.into_json()?;
    let base = base.ok_or_else(|| format!("{wire}: the event has no base_event"))?;
    if base.r#type != number {
        return Err(format!(
            "{wire}: the envelope arm is {wire} but base_event.type is {}",
            base.r#type
        ));
    }
    let Value::Object(fields) = json else {
        return Err(format!("{wire}: not an object"));
    };
    let mut doc = Map::new();
    doc.insert("type".to_owned(), Value::String(wire.to_owned()));
    doc.extend(fields);
    if let Some(t) = base.timestamp {
        doc.insert("timestamp".to_owned(), Value::from(t));
    }
    if let Some(raw) = base.raw_event {
        doc.insert("rawEvent".to_owned(), raw.to_json());
    }
    if let Some(m) = base.metadata {
        doc.insert("metadata".to_owned(), Value::Object(m.to_json()));
    }
    from_wire(wire, &mut doc).map_err(|e| format!("{wire}: {e}"))?;
    decode_value::<Event>(&Value::Object(doc), ReadMode::Forgiving)
        .map(Frame::Event)
        .map_err(|e| format!("{wire}: {e}"))
}

/// The first top-level field of an envelope that sets no known arm: a length-delimited field
/// above the known arms (an event kind of a later protocol). `None` for anything else.
fn unknown_arm(mut bytes: &[u8]) -> Option<u32> {
    let mut found = None;
    while !bytes.is_empty() {
        let key = prost::encoding::decode_varint(&mut bytes).ok()?;
        let field = u32::try_from(key >> 3).ok()?;
        match key & 7 {
            0 => {
                prost::encoding::decode_varint(&mut bytes).ok()?;
            }
            1 => bytes = bytes.get(8..)?,
            5 => bytes = bytes.get(4..)?,
            2 => {
                let len = usize::try_from(prost::encoding::decode_varint(&mut bytes).ok()?).ok()?;
                bytes = bytes.get(len..)?;
                if field > LAST_ARM && found.is_none() {
                    found = Some(field);
                }
            }
            _ => return None,
        }
    }
    found
}

/// Takes an array member, or an empty list.
fn take_array(obj: &mut Map<String, Value>, key: &str) -> Vec<Value> {
    match obj.remove(key) {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    }
}

/// Rewrites the JSON members of an event of type `wire` into the wire schema's shape.
fn to_wire(wire: &str, rest: &mut Map<String, Value>) -> Result<(), String> {
    match wire {
        "MESSAGES_SNAPSHOT" => {
            let messages = take_array(rest, "messages");
            let messages = messages
                .into_iter()
                .enumerate()
                .map(|(i, m)| message_to_wire(m).map_err(|e| format!("/messages/{i}: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            rest.insert("messages".to_owned(), Value::Array(messages));
        }
        "RUN_STARTED" => {
            if let Some(Value::Object(mut input)) = rest.remove("input") {
                let messages = take_array(&mut input, "messages")
                    .into_iter()
                    .enumerate()
                    .map(|(i, m)| {
                        message_to_wire(m).map_err(|e| format!("/input/messages/{i}: {e}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                input.insert("messages".to_owned(), Value::Array(messages));
                rest.insert("input".to_owned(), Value::Object(input));
            }
        }
        "RUN_FINISHED" => {
            if let Some(Value::Object(mut outcome)) = rest.remove("outcome") {
                let kind = match outcome.remove("type") {
                    Some(Value::String(s)) => s,
                    _ => String::new(),
                };
                match kind.as_str() {
                    "success" => {
                        let ids = take_array(&mut outcome, "pendingToolCallIds");
                        rest.insert("pendingToolCallIds".to_owned(), Value::Array(ids));
                    }
                    "interrupt" => {
                        let interrupts = take_array(&mut outcome, "interrupts");
                        rest.insert("interrupts".to_owned(), Value::Array(interrupts));
                    }
                    _ => {}
                }
                if let Some(key) = outcome.keys().next() {
                    return Err(format!(
                        "/outcome/{key}: the protobuf transport carries no such member of a \
                         {kind} outcome"
                    ));
                }
                rest.insert("outcome".to_owned(), Value::String(kind));
            }
        }
        "SUBAGENT_FINISHED" => {
            if let Some(Value::Object(mut outcome)) = rest.remove("outcome") {
                let kind = match outcome.remove("type") {
                    Some(Value::String(s)) => s,
                    _ => String::new(),
                };
                if kind == "suspended" {
                    let ids = take_array(&mut outcome, "interruptIds");
                    rest.insert("interruptIds".to_owned(), Value::Array(ids));
                }
                if let Some(key) = outcome.keys().next() {
                    return Err(format!(
                        "/outcome/{key}: the protobuf transport carries no such member of a \
                         {kind} outcome"
                    ));
                }
                rest.insert("outcome".to_owned(), Value::String(kind));
            }
        }
        "STATE_DELTA" => patch_to_wire(rest, "delta")?,
        "ACTIVITY_DELTA" => patch_to_wire(rest, "patch")?,
        "TOOL_CALL_RESULT" => {
            if let Some(Value::Array(parts)) = rest.get("content") {
                let parts = parts
                    .iter()
                    .enumerate()
                    .map(|(i, p)| part_to_wire(p).map_err(|e| format!("/content/{i}: {e}")))
                    .collect::<Result<Vec<_>, _>>()?;
                rest.remove("content");
                rest.insert("contentParts".to_owned(), Value::Array(parts));
            }
        }
        _ => {}
    }
    Ok(())
}

/// Patch operations: `op` by its enum number. The members RFC 6902 leaves open beside `op`,
/// `path`, `from` and `value` have no field on the wire; spec B7 says they do not survive the
/// protobuf transport, and they are left out.
fn patch_to_wire(rest: &mut Map<String, Value>, key: &str) -> Result<(), String> {
    let ops = take_array(rest, key);
    let mut out = Vec::with_capacity(ops.len());
    for (i, op) in ops.into_iter().enumerate() {
        let Value::Object(mut op) = op else {
            return Err(format!("/{key}/{i}: not an object"));
        };
        let name = op.get("op").and_then(Value::as_str).unwrap_or_default();
        let number = OPS
            .iter()
            .position(|o| *o == name)
            .ok_or_else(|| format!("/{key}/{i}/op: {name:?} has no wire value"))?;
        op.insert("op".to_owned(), Value::from(number));
        op.retain(|k, _| matches!(k.as_str(), "op" | "path" | "from" | "value"));
        out.push(Value::Object(op));
    }
    rest.insert(key.to_owned(), Value::Array(out));
    Ok(())
}

/// A message: content parts to `contentParts`, an activity message's object to
/// `activityContent`.
fn message_to_wire(m: Value) -> Result<Value, String> {
    let Value::Object(mut m) = m else {
        return Err("not an object".to_owned());
    };
    let activity = m.get("role").and_then(Value::as_str) == Some("activity");
    match m.remove("content") {
        Some(Value::Array(parts)) => {
            let parts = parts
                .iter()
                .enumerate()
                .map(|(i, p)| part_to_wire(p).map_err(|e| format!("/content/{i}: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            m.insert("contentParts".to_owned(), Value::Array(parts));
        }
        Some(Value::Object(o)) if activity => {
            m.insert("activityContent".to_owned(), Value::Object(o));
        }
        Some(other) => {
            m.insert("content".to_owned(), other);
        }
        None => {}
    }
    Ok(Value::Object(m))
}

/// A content part (`{"type": "image", "source": {"type": "url", …}, …}`) as the wire's
/// `InputContent` (`{"image": {"source": {"url": {…}}, …}}`).
fn part_to_wire(p: &Value) -> Result<Value, String> {
    let mut p = p.as_object().cloned().ok_or("not an object")?;
    let kind = match p.remove("type") {
        Some(Value::String(s)) => s,
        _ => return Err("no part type".to_owned()),
    };
    if !matches!(
        kind.as_str(),
        "text" | "image" | "audio" | "video" | "document"
    ) {
        return Err(format!("/type: the {kind:?} part has no wire form"));
    }
    if let Some(Value::Object(mut source)) = p.remove("source") {
        let s = match source.remove("type") {
            Some(Value::String(s)) => s,
            _ => return Err("/source: no source type".to_owned()),
        };
        if !matches!(s.as_str(), "data" | "url" | "file") {
            return Err(format!("/source/type: the {s:?} source has no wire form"));
        }
        let mut wrapped = Map::new();
        wrapped.insert(s, Value::Object(source));
        p.insert("source".to_owned(), Value::Object(wrapped));
    }
    let mut wrapped = Map::new();
    wrapped.insert(kind, Value::Object(p));
    Ok(Value::Object(wrapped))
}

/// Rewrites a decoded event's members back into the JSON shape.
fn from_wire(wire: &str, doc: &mut Map<String, Value>) -> Result<(), String> {
    match wire {
        "MESSAGES_SNAPSHOT" => {
            let messages = take_array(doc, "messages")
                .into_iter()
                .enumerate()
                .map(|(i, m)| message_from_wire(m).map_err(|e| format!("/messages/{i}: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            doc.insert("messages".to_owned(), Value::Array(messages));
        }
        "RUN_STARTED" => {
            if let Some(Value::Object(input)) = doc.get_mut("input") {
                let messages = take_array(input, "messages")
                    .into_iter()
                    .enumerate()
                    .map(|(i, m)| {
                        message_from_wire(m).map_err(|e| format!("/input/messages/{i}: {e}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                input.insert("messages".to_owned(), Value::Array(messages));
                // The wire cannot tell an empty list from an absent one; a run input omits
                // these when empty.
                for key in ["tools", "context", "resume"] {
                    drop_empty(input, key);
                }
            }
        }
        "RUN_FINISHED" => {
            let kind = match doc.remove("outcome") {
                Some(Value::String(s)) => s,
                _ => String::new(),
            };
            let ids = take_array(doc, "pendingToolCallIds");
            let interrupts = take_array(doc, "interrupts");
            if kind.is_empty() {
                if !ids.is_empty() {
                    doc.insert("pendingToolCallIds".to_owned(), Value::Array(ids));
                }
                if !interrupts.is_empty() {
                    doc.insert("interrupts".to_owned(), Value::Array(interrupts));
                }
            } else {
                let mut outcome = Map::new();
                let interrupt = kind == "interrupt";
                outcome.insert("type".to_owned(), Value::String(kind));
                if !ids.is_empty() {
                    outcome.insert("pendingToolCallIds".to_owned(), Value::Array(ids));
                }
                if interrupt || !interrupts.is_empty() {
                    outcome.insert("interrupts".to_owned(), Value::Array(interrupts));
                }
                doc.insert("outcome".to_owned(), Value::Object(outcome));
            }
            drop_empty(doc, "usage");
        }
        "RUN_ERROR" => drop_empty(doc, "usage"),
        "SUBAGENT_FINISHED" => {
            let kind = match doc.remove("outcome") {
                Some(Value::String(s)) => s,
                _ => String::new(),
            };
            let ids = take_array(doc, "interruptIds");
            if kind.is_empty() {
                if !ids.is_empty() {
                    doc.insert("interruptIds".to_owned(), Value::Array(ids));
                }
            } else {
                let mut outcome = Map::new();
                outcome.insert("type".to_owned(), Value::String(kind));
                if !ids.is_empty() {
                    outcome.insert("interruptIds".to_owned(), Value::Array(ids));
                }
                doc.insert("outcome".to_owned(), Value::Object(outcome));
            }
        }
        "STATE_DELTA" => patch_from_wire(doc, "delta"),
        "ACTIVITY_DELTA" => patch_from_wire(doc, "patch"),
        "TOOL_CALL_RESULT" => {
            let parts = take_array(doc, "contentParts");
            if doc.contains_key("content") {
                if !parts.is_empty() {
                    return Err("both string content and content parts".to_owned());
                }
            } else {
                let parts = parts_from_wire(parts)?;
                doc.insert("content".to_owned(), Value::Array(parts));
            }
        }
        _ => {}
    }
    Ok(())
}

/// Removes an empty list member (the wire cannot tell it from an absent one).
fn drop_empty(doc: &mut Map<String, Value>, key: &str) {
    if doc
        .get(key)
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        doc.remove(key);
    }
}

/// Patch operations: `op` back to its name (an unknown number is kept as its decimal text,
/// for the reader to judge).
fn patch_from_wire(doc: &mut Map<String, Value>, key: &str) {
    if let Some(Value::Array(ops)) = doc.get_mut(key) {
        for op in ops.iter_mut().filter_map(Value::as_object_mut) {
            let n = op.get("op").and_then(Value::as_i64).unwrap_or_default();
            let name = usize::try_from(n)
                .ok()
                .and_then(|i| OPS.get(i))
                .map_or_else(|| n.to_string(), |s| (*s).to_owned());
            op.insert("op".to_owned(), Value::String(name));
        }
    }
}

/// The roles whose `content` is a list of parts or a string, and the role whose content is
/// an object.
const PARTS_ROLES: [&str; 2] = ["user", "tool"];
/// Every role of the `Message` union.
const ROLES: [&str; 7] = [
    "developer",
    "system",
    "assistant",
    "user",
    "tool",
    "activity",
    "reasoning",
];

/// A wire message back to the JSON shape of its role.
fn message_from_wire(m: Value) -> Result<Value, String> {
    let Value::Object(mut m) = m else {
        return Err("not an object".to_owned());
    };
    let role = m
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let parts = take_array(&mut m, "contentParts");
    let activity = m.remove("activityContent");
    let known = ROLES.contains(&role.as_str());
    let uses_parts = if known {
        PARTS_ROLES.contains(&role.as_str())
    } else {
        !parts.is_empty()
    };
    let uses_map = if known {
        role == "activity"
    } else {
        !uses_parts && activity.is_some()
    };
    if !uses_parts && !parts.is_empty() {
        return Err(format!("content parts on a {role:?} message"));
    }
    if activity.is_some() && !uses_map {
        return Err(format!("activity content on a {role:?} message"));
    }
    if uses_map && m.contains_key("content") {
        return Err("activity content beside string content".to_owned());
    }
    if uses_parts && m.contains_key("content") && !parts.is_empty() {
        return Err("both string content and content parts".to_owned());
    }
    if uses_parts && !m.contains_key("content") {
        m.insert("content".to_owned(), Value::Array(parts_from_wire(parts)?));
    }
    if let (true, Some(a)) = (uses_map, activity) {
        m.insert("content".to_owned(), a);
    }
    drop_empty(&mut m, "toolCalls");
    Ok(Value::Object(m))
}

/// Wire content parts back to tagged JSON parts; a part that sets no arm this build knows is
/// dropped (it has no type to name).
fn parts_from_wire(parts: Vec<Value>) -> Result<Vec<Value>, String> {
    let mut out = Vec::with_capacity(parts.len());
    for (i, p) in parts.into_iter().enumerate() {
        let Value::Object(p) = p else {
            return Err(format!("/content/{i}: not an object"));
        };
        if p.len() > 1 {
            return Err(format!(
                "/content/{i}: a content part sets more than one arm"
            ));
        }
        let Some((kind, Value::Object(mut part))) = p.into_iter().next() else {
            continue;
        };
        if let Some(Value::Object(source)) = part.remove("source") {
            if source.len() > 1 {
                return Err(format!("/content/{i}/source: more than one arm"));
            }
            if let Some((s, Value::Object(mut inner))) = source.into_iter().next() {
                inner.insert("type".to_owned(), Value::String(s));
                part.insert("source".to_owned(), Value::Object(inner));
            }
        }
        part.insert("type".to_owned(), Value::String(kind));
        out.push(Value::Object(part));
    }
    Ok(out)
}
