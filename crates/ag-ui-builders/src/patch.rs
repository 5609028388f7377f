//! JSON Patch helpers: [`diff`] two documents, [`check`] pointers before emitting.

use ag_ui_core::{JsonPatch, JsonPatchOperation, JsonPointer};
use serde_json::Value;

use crate::error::Error;

/// A JSON Patch turning `from` into `to`: objects are compared key by key (removals,
/// additions, replacements under the changed keys, in key order); any other change —
/// arrays included — replaces the value whole. Equal documents give an empty patch.
///
/// ```
/// use ag_ui_builders::patch::diff;
/// use ag_ui_core::JsonPatchOperation;
/// use serde_json::json;
///
/// let patch = diff(&json!({"count": 1, "done": false}), &json!({"count": 2, "done": false}));
/// assert_eq!(patch, vec![JsonPatchOperation::replace("/count", 2)]);
/// ```
#[must_use]
pub fn diff(from: &Value, to: &Value) -> JsonPatch {
    let mut ops = JsonPatch::new();
    let mut tokens = Vec::new();
    diff_into(from, to, &mut tokens, &mut ops);
    ops
}

fn diff_into(from: &Value, to: &Value, path: &mut Vec<String>, ops: &mut JsonPatch) {
    if from == to {
        return;
    }
    match (from, to) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().filter(|k| !b.contains_key(*k)) {
                path.push(key.clone());
                ops.push(JsonPatchOperation::remove(JsonPointer::from_tokens(&*path)));
                path.pop();
            }
            for (key, new) in b {
                path.push(key.clone());
                match a.get(key) {
                    Some(old) => diff_into(old, new, path, ops),
                    None => ops.push(JsonPatchOperation::add(
                        JsonPointer::from_tokens(&*path),
                        new.clone(),
                    )),
                }
                path.pop();
            }
        }
        _ => ops.push(JsonPatchOperation::replace(
            JsonPointer::from_tokens(&*path),
            to.clone(),
        )),
    }
}

/// Checks that every `path` and `from` in `patch` is an RFC 6901 JSON Pointer (the one
/// rule the wire checks; whether the patch applies is the applier's business).
///
/// # Errors
/// [`Error::InvalidPointer`] at `/<index>/path` or `/<index>/from`.
pub fn check(patch: &[JsonPatchOperation]) -> Result<(), Error> {
    for (i, op) in patch.iter().enumerate() {
        let from = match op {
            JsonPatchOperation::Move(m) => Some(&m.from),
            JsonPatchOperation::Copy(c) => Some(&c.from),
            _ => None,
        };
        for (member, pointer) in [("path", Some(op.path())), ("from", from)] {
            if let Some(p) = pointer
                && !p.is_valid()
            {
                return Err(Error::InvalidPointer {
                    pointer: format!("/{i}/{member}"),
                    value: p.to_string(),
                });
            }
        }
    }
    Ok(())
}
