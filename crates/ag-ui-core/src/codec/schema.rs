//! How the wire rules show in the derived JSON Schemas (`schemars` feature only).
//!
//! The wire types derive `schemars::JsonSchema`, but their serde impls are hand-written, so
//! the derive alone does not know what the reader and writer enforce. The macros of
//! [`crate::codec::wire`] attach the transforms below, each stating in schema terms one rule the
//! serde impls implement:
//!
//! * [`object`]: the tag a union member writes first (`"type": "TEXT_MESSAGE_START"`), as a
//!   required `const` property; closed objects (`unevaluatedProperties: false`) except the
//!   open ones (JSON Patch operations).
//! * [`field`]: integers bounded as `SafeInt` / `SafeCount` read and write them, and the
//!   `null` policy of optional fields (absent or typed, never `null`; `RunAgentInput.state`
//!   is the one optional field where `null` reads as absent even in exact mode).
//! * [`string_enum`]: closed string enumerations as `enum` (a single value as `const`).
//! * [`one_of`]: unions whose members exclude one another, as `oneOf`.

use schemars::Schema;
use serde_json::{Map, Value, json};

use crate::codec::wire::{MAX_SAFE_INTEGER, OnNull};

/// The five JSON types other than `null`: an optional any-JSON field admits exactly these.
pub(crate) const NON_NULL_TYPES: [&str; 5] = ["object", "array", "string", "number", "boolean"];

/// Keywords that only annotate: a schema made of nothing else accepts any JSON value.
const ANNOTATIONS: [&str; 6] = [
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "$comment",
];

/// A wire object: adds the tag (first in `required`) and closes the object unless `open`.
pub(crate) fn object(
    schema: &mut Schema,
    tag: Option<(&'static str, &'static str)>,
    tag_description: &'static str,
    open: bool,
) {
    let obj = schema.ensure_object();
    obj.insert("type".to_owned(), json!("object"));
    if let Some((key, value)) = tag {
        let props = obj
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(props) = props {
            props.insert(
                key.to_owned(),
                json!({ "type": "string", "const": value, "description": tag_description }),
            );
        }
        let required = obj
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(required) = required {
            required.retain(|r| r != key);
            required.insert(0, json!(key));
        }
    }
    if !open {
        obj.insert("unevaluatedProperties".to_owned(), Value::Bool(false));
    }
}

/// The `null` policy of an optional field, as a type (so that a transform can be named by
/// path in a derive attribute).
pub(crate) trait NullPolicy {
    /// The policy.
    const ON_NULL: OnNull;
}

/// `null` reads as absent (forgiving) and is rejected by the exact reader.
pub(crate) struct Absent;
impl NullPolicy for Absent {
    const ON_NULL: OnNull = OnNull::Absent;
}

/// `null` reads as absent even in exact mode (`RunAgentInput.state`).
pub(crate) struct State;
impl NullPolicy for State {
    const ON_NULL: OnNull = OnNull::State;
}

/// `null` is rejected everywhere (`subagentRunId`).
pub(crate) struct Reject;
impl NullPolicy for Reject {
    const ON_NULL: OnNull = OnNull::Reject;
}

/// A required field of a wire object.
pub(crate) fn required(schema: &mut Schema) {
    field(schema, None);
}

/// An optional field of a wire object, with its `null` policy.
pub(crate) fn optional<P: NullPolicy>(schema: &mut Schema) {
    field(schema, Some(P::ON_NULL));
}

/// A field of a wire object. `on_null` is `None` for a required field and the field's
/// `null` policy for an optional one.
fn field(schema: &mut Schema, on_null: Option<OnNull>) {
    let obj = schema.ensure_object();
    if on_null.is_some() {
        drop_null(obj);
    }
    bound_integers(obj);
    if accepts_any(obj) {
        match on_null {
            // Required any-JSON fields take `null` as a real value; `state: null` is read as
            // absent by every reader, exact mode included.
            None | Some(OnNull::State) => {}
            Some(OnNull::Absent | OnNull::Reject) => {
                obj.insert("type".to_owned(), json!(NON_NULL_TYPES));
            }
        }
    }
}

/// Whether the schema has nothing but annotations (so it accepts every value).
fn accepts_any(obj: &Map<String, Value>) -> bool {
    obj.keys().all(|k| ANNOTATIONS.contains(&k.as_str()))
}

/// Removes what a generator adds for `Option<T>` (`"null"` in `type`, a `{"type": "null"}`
/// branch): an optional field is absent or typed.
fn drop_null(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if let [single] = types.as_slice() {
            let single = single.clone();
            obj.insert("type".to_owned(), single);
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = obj.get_mut(key) else {
            continue;
        };
        branches.retain(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        if let [single] = branches.as_slice()
            && let Value::Object(inner) = single.clone()
        {
            obj.remove(key);
            for (k, v) in inner {
                obj.entry(k).or_insert(v);
            }
        }
    }
}

/// `i64` and `u64` travel through `SafeInt` / `SafeCount`: ±(2^53 − 1) and 0 … 2^53 − 1.
fn bound_integers(obj: &mut Map<String, Value>) {
    if let Some(Value::Object(items)) = obj.get_mut("items") {
        bound_integers(items);
    }
    let (min, max) = match obj.get("format").and_then(Value::as_str) {
        Some("int64") => (-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
        Some("uint64") => (0, MAX_SAFE_INTEGER),
        _ => return,
    };
    obj.remove("format");
    obj.insert("minimum".to_owned(), json!(min));
    obj.insert("maximum".to_owned(), json!(max));
}

/// A closed string enumeration: `enum` of the wire names, or `const` for a single one.
pub(crate) fn string_enum(schema: &mut Schema, wire_names: &[&str]) {
    let obj = schema.ensure_object();
    let description = obj.remove("description");
    obj.clear();
    obj.insert("type".to_owned(), json!("string"));
    match wire_names {
        [single] => obj.insert("const".to_owned(), json!(single)),
        _ => obj.insert("enum".to_owned(), json!(wire_names)),
    };
    if let Some(d) = description {
        obj.insert("description".to_owned(), d);
    }
}

/// A union whose members exclude one another (distinct tags, or distinct JSON types): the
/// derive's `anyOf` becomes `oneOf`, each branch a bare reference or schema.
pub(crate) fn one_of(schema: &mut Schema) {
    let obj = schema.ensure_object();
    if let Some(Value::Array(mut branches)) = obj.remove("anyOf") {
        for b in &mut branches {
            if let Value::Object(b) = b
                && b.contains_key("$ref")
            {
                b.retain(|k, _| k == "$ref");
            }
        }
        obj.insert("oneOf".to_owned(), Value::Array(branches));
    }
}
