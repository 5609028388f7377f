//! Applying a [`JsonPatch`] (RFC 6902): atomic and in place, on top of the `json-patch`
//! crate.
//!
//! `json_patch::patch` applies the operations to the document itself and keeps an undo log,
//! so a failing patch leaves the document as it was without the document ever being
//! copied. One rule differs: spec §9.4 compares numbers in `test` by value (`2` equals
//! `2.0`), while `json-patch` compares `serde_json::Value`s, whose numbers differ by
//! representation. When `json-patch` refuses a `test` whose value holds a number, the patch
//! is applied again on a copy of the document with a by-value `test`; that copy is the only
//! one ever made, and only in that case.

use serde_json::Value;

use crate::model::patch::{JsonPatch, JsonPatchOperation, JsonPointer};

/// Why a [`JsonPatch`] could not be applied. The document was left unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("JSON Patch operation {index} ({op} at {path:?}) failed: {reason}")]
#[non_exhaustive]
pub struct PatchError {
    /// 0-based index of the failing operation in the patch.
    pub index: usize,
    /// Its `op` (`"add"`, `"remove"`, …).
    pub op: &'static str,
    /// Its `path`.
    pub path: String,
    /// What went wrong (RFC 6902 §5: a missing target, a failed `test`, …).
    pub reason: String,
}

impl PatchError {
    /// JSON Pointer of the failing operation inside the patch (`/2`).
    #[must_use]
    pub fn pointer(&self) -> String {
        format!("/{}", self.index)
    }
}

impl JsonPatch {
    /// Applies the patch to `doc`, in place and atomically (RFC 6902 §5): either every
    /// operation applies, or `doc` is left exactly as it was and the error names the
    /// failing operation. `test` compares numbers by value (`2` equals `2.0`, spec §9.4).
    ///
    /// Costs O(size of the patch + depth of the paths) for a patch that applies; the
    /// document is never copied, except to re-run a patch whose numeric `test` the
    /// by-representation comparison of `json-patch` refused.
    ///
    /// ```
    /// use ag_ui_core::{JsonPatch, JsonPatchOperation};
    /// use serde_json::json;
    ///
    /// let mut doc = json!({"count": 2, "items": ["a"]});
    /// let patch = JsonPatch::from(vec![
    ///     JsonPatchOperation::test("/count", 2.0),
    ///     JsonPatchOperation::add("/items/-", "b"),
    /// ]);
    /// patch.apply(&mut doc)?;
    /// assert_eq!(doc, json!({"count": 2, "items": ["a", "b"]}));
    ///
    /// let failing = JsonPatch::from(vec![
    ///     JsonPatchOperation::remove("/items/0"),
    ///     JsonPatchOperation::replace("/missing", 1),
    /// ]);
    /// let err = failing.apply(&mut doc).unwrap_err();
    /// assert_eq!((err.index, err.op), (1, "replace"));
    /// assert_eq!(doc, json!({"count": 2, "items": ["a", "b"]})); // unchanged
    /// # Ok::<(), ag_ui_core::PatchError>(())
    /// ```
    ///
    /// # Errors
    /// [`PatchError`] for the first operation that cannot apply: a path or `from` that
    /// names nothing (or an array index out of range, or with a leading zero), a `move`
    /// into its own child, a failed `test`, or a pointer that is not RFC 6901.
    pub fn apply(&self, doc: &mut Value) -> Result<(), PatchError> {
        let ops = self
            .iter()
            .enumerate()
            .map(|(i, op)| convert(i, op, op_value(op).cloned()))
            .collect::<Result<Vec<_>, _>>()?;
        run(doc, &ops, &self.0)
    }

    /// [`JsonPatch::apply`] taking the patch by value, so that the operations' values are
    /// moved into the document instead of copied.
    ///
    /// # Errors
    /// As [`JsonPatch::apply`].
    pub fn apply_owned(self, doc: &mut Value) -> Result<(), PatchError> {
        let mut ops = Vec::with_capacity(self.len());
        let mut has_numeric_test = false;
        for (i, op) in self.0.iter().enumerate() {
            if let JsonPatchOperation::Test(t) = op {
                has_numeric_test |= holds_number(&t.value);
            }
            // `test` values are kept for the by-value comparison; the others are moved.
            let value = match op {
                JsonPatchOperation::Test(t) => Some(t.value.clone()),
                _ => None,
            };
            ops.push(convert(i, op, value)?);
        }
        // Move the values of add / replace into the converted operations.
        let mut originals = self.0;
        for (op, conv) in originals.iter_mut().zip(ops.iter_mut()) {
            match (op, conv) {
                (JsonPatchOperation::Add(o), json_patch::PatchOperation::Add(c)) => {
                    c.value = std::mem::take(&mut o.value);
                }
                (JsonPatchOperation::Replace(o), json_patch::PatchOperation::Replace(c)) => {
                    c.value = std::mem::take(&mut o.value);
                }
                _ => {}
            }
        }
        if !has_numeric_test {
            return json_patch::patch(doc, &ops).map_err(|e| error(&originals, &e));
        }
        run(doc, &ops, &originals)
    }
}

/// The value an operation carries (add, replace, test).
fn op_value(op: &JsonPatchOperation) -> Option<&Value> {
    match op {
        JsonPatchOperation::Add(o) => Some(&o.value),
        JsonPatchOperation::Replace(o) => Some(&o.value),
        JsonPatchOperation::Test(o) => Some(&o.value),
        _ => None,
    }
}

fn op_name(op: &JsonPatchOperation) -> &'static str {
    match op {
        JsonPatchOperation::Add(_) => "add",
        JsonPatchOperation::Remove(_) => "remove",
        JsonPatchOperation::Replace(_) => "replace",
        JsonPatchOperation::Move(_) => "move",
        JsonPatchOperation::Copy(_) => "copy",
        JsonPatchOperation::Test(_) => "test",
    }
}

fn pointer(
    index: usize,
    op: &JsonPatchOperation,
    p: &JsonPointer,
) -> Result<json_patch::jsonptr::PointerBuf, PatchError> {
    json_patch::jsonptr::PointerBuf::parse(p.as_str()).map_err(|e| PatchError {
        index,
        op: op_name(op),
        path: op.path().as_str().to_owned(),
        reason: format!("{:?} is not a JSON Pointer (RFC 6901): {e}", p.as_str()),
    })
}

fn convert(
    index: usize,
    op: &JsonPatchOperation,
    value: Option<Value>,
) -> Result<json_patch::PatchOperation, PatchError> {
    use json_patch as jp;
    let path = pointer(index, op, op.path())?;
    let value = value.unwrap_or(Value::Null);
    Ok(match op {
        JsonPatchOperation::Add(_) => jp::PatchOperation::Add(jp::AddOperation { path, value }),
        JsonPatchOperation::Remove(_) => jp::PatchOperation::Remove(jp::RemoveOperation { path }),
        JsonPatchOperation::Replace(_) => {
            jp::PatchOperation::Replace(jp::ReplaceOperation { path, value })
        }
        JsonPatchOperation::Move(o) => jp::PatchOperation::Move(jp::MoveOperation {
            from: pointer(index, op, &o.from)?,
            path,
        }),
        JsonPatchOperation::Copy(o) => jp::PatchOperation::Copy(jp::CopyOperation {
            from: pointer(index, op, &o.from)?,
            path,
        }),
        JsonPatchOperation::Test(_) => jp::PatchOperation::Test(jp::TestOperation { path, value }),
    })
}

fn error(originals: &[JsonPatchOperation], e: &json_patch::PatchError) -> PatchError {
    let op = originals.get(e.operation);
    let reason = match (&e.kind, op) {
        (json_patch::PatchErrorKind::TestFailed, _) => {
            "the value at the path differs from the tested value".to_owned()
        }
        (json_patch::PatchErrorKind::InvalidFromPointer, _) => {
            "`from` names no value in the document".to_owned()
        }
        (json_patch::PatchErrorKind::CannotMoveInsideItself, _) => {
            "cannot move a value into one of its own children".to_owned()
        }
        (_, Some(JsonPatchOperation::Add(_))) => {
            "the parent of the path names no object or array, or the array index is out of range or not a valid index".to_owned()
        }
        _ => "the path names no value in the document (or an array index out of range or not a valid index)".to_owned(),
    };
    PatchError {
        index: e.operation,
        op: op.map_or("unknown", op_name),
        path: op.map(|o| o.path().as_str().to_owned()).unwrap_or_default(),
        reason,
    }
}

/// Applies `ops`; on a refused numeric `test`, re-runs on a copy with by-value `test`s.
fn run(
    doc: &mut Value,
    ops: &[json_patch::PatchOperation],
    originals: &[JsonPatchOperation],
) -> Result<(), PatchError> {
    let e = match json_patch::patch(doc, ops) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    let numeric_test = matches!(e.kind, json_patch::PatchErrorKind::TestFailed)
        && matches!(originals.get(e.operation), Some(JsonPatchOperation::Test(t)) if holds_number(&t.value));
    if !numeric_test {
        return Err(error(originals, &e));
    }
    let mut copy = doc.clone();
    for (i, op) in ops.iter().enumerate() {
        match op {
            json_patch::PatchOperation::Test(t) => {
                let holds = copy
                    .pointer(t.path.as_str())
                    .is_some_and(|target| equal_by_value(target, &t.value));
                if !holds {
                    let reason = if copy.pointer(t.path.as_str()).is_some() {
                        "the value at the path differs from the tested value"
                    } else {
                        "the path names no value in the document"
                    };
                    return Err(PatchError {
                        index: i,
                        op: "test",
                        path: t.path.as_str().to_owned(),
                        reason: reason.to_owned(),
                    });
                }
            }
            other => {
                json_patch::patch_unsafe(&mut copy, std::slice::from_ref(other)).map_err(|e| {
                    let mut err = error(originals, &e);
                    err.index = i;
                    err.op = originals.get(i).map_or("unknown", op_name);
                    err.path = originals
                        .get(i)
                        .map(|o| o.path().as_str().to_owned())
                        .unwrap_or_default();
                    err
                })?;
            }
        }
    }
    *doc = copy;
    Ok(())
}

fn holds_number(v: &Value) -> bool {
    match v {
        Value::Number(_) => true,
        Value::Array(a) => a.iter().any(holds_number),
        Value::Object(o) => o.values().any(holds_number),
        _ => false,
    }
}

/// JSON equality with numbers compared by value (RFC 6902 §4.6, spec §9.4).
pub(crate) fn equal_by_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal_by_value(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| equal_by_value(v, w)))
        }
        _ => a == b,
    }
}

fn numbers_equal(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    fn int(n: &serde_json::Number) -> Option<i128> {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    }
    match (int(x), int(y)) {
        (Some(a), Some(b)) => a == b,
        (Some(i), None) | (None, Some(i)) => {
            let f = if int(x).is_some() { y } else { x };
            f.as_f64().is_some_and(|f| {
                f.fract() == 0.0 && f.abs() < 1.8e19 && {
                    #[expect(clippy::cast_possible_truncation, reason = "integral and in range")]
                    let g = f as i128;
                    g == i
                }
            })
        }
        (None, None) => x.as_f64() == y.as_f64(),
    }
}
