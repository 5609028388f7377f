//! Applying a [`JsonPatch`] (RFC 6902): atomic and in place.
//!
//! Each operation changes the document itself and records how to undo the change (the
//! value it displaced, or where it put or took a value); when an operation fails, the
//! records are undone in reverse order. The document is never copied: a patch costs the
//! size of its operations plus the depth of their paths (and, for `copy`, the size of the
//! copied value, which RFC 6902 requires to be copied).
//!
//! The `json-patch` crate (5.0.0) does not serve here: it compares numbers in `test` by
//! representation (`2` ≠ `2.0`, against spec §9.4), a `move` whose destination fails leaves
//! its source removed, and undoing the operations before such a `move` can reach an
//! `unreachable!` (a panic on a hostile patch); `docs/design.md` gives the patches that show
//! it. The crate's tests pin the behaviour wanted in each case.

use serde_json::{Map, Value};

use crate::model::patch::{JsonPatch, JsonPatchOperation};

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
    /// What went wrong (RFC 6902 §4: a missing target, a failed `test`, …).
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
    /// Costs O(size of the patch + depth of its paths) whatever the size of `doc` (plus the
    /// size of what a `copy` copies); the document is never copied.
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
    /// [`PatchError`] for the first operation that cannot apply: a `path` or `from` naming
    /// nothing (an absent member, an array index out of range, with a leading zero, or `-`
    /// where an element must exist), a path below a scalar, a `move` into its own child,
    /// removing the whole document, a failed `test`, or a pointer that is not RFC 6901.
    pub fn apply(&self, doc: &mut Value) -> Result<(), PatchError> {
        run(doc, self.0.iter().map(|op| (op, None)))
    }

    /// [`JsonPatch::apply`] taking the patch by value, so that the values of `add` and
    /// `replace` are moved into the document instead of copied.
    ///
    /// # Errors
    /// As [`JsonPatch::apply`].
    pub fn apply_owned(self, doc: &mut Value) -> Result<(), PatchError> {
        let mut ops = self.0;
        let values: Vec<Option<Value>> = ops
            .iter_mut()
            .map(|op| match op {
                JsonPatchOperation::Add(o) => Some(std::mem::take(&mut o.value)),
                JsonPatchOperation::Replace(o) => Some(std::mem::take(&mut o.value)),
                _ => None,
            })
            .collect();
        run(doc, ops.iter().zip(values))
    }
}

/// How to undo one change.
enum Undo {
    /// Put `value` back at the location `at` (which exists).
    Restore(Vec<String>, Value),
    /// Remove the member or element created at `at`.
    Delete(Vec<String>),
    /// Insert `value` again at `at` (where it was removed from).
    Reinsert(Vec<String>, Value),
    /// Take the value moved to `at` (putting `displaced` back there, or removing the
    /// location) and insert it again at `to`.
    MoveBack {
        at: Vec<String>,
        to: Vec<String>,
        displaced: Option<Value>,
    },
}

fn run<'a>(
    doc: &mut Value,
    ops: impl Iterator<Item = (&'a JsonPatchOperation, Option<Value>)>,
) -> Result<(), PatchError> {
    let mut undo: Vec<Undo> = Vec::new();
    for (index, (op, value)) in ops.enumerate() {
        if let Err(reason) = step(doc, op, value, &mut undo) {
            while let Some(u) = undo.pop() {
                revert(doc, u);
            }
            return Err(PatchError {
                index,
                op: op_name(op),
                path: op.path().as_str().to_owned(),
                reason,
            });
        }
    }
    Ok(())
}

fn step(
    doc: &mut Value,
    op: &JsonPatchOperation,
    value: Option<Value>,
    undo: &mut Vec<Undo>,
) -> Result<(), String> {
    let path = tokens(op.path().as_str(), "path")?;
    match op {
        JsonPatchOperation::Add(o) => {
            let value = value.unwrap_or_else(|| o.value.clone());
            match add(doc, &path, value) {
                Ok(Added::Created(at)) => undo.push(Undo::Delete(at)),
                Ok(Added::Replaced(at, old)) => undo.push(Undo::Restore(at, old)),
                Err((reason, _)) => return Err(reason),
            }
        }
        JsonPatchOperation::Remove(_) => {
            let (at, old) = remove(doc, &path)?;
            undo.push(Undo::Reinsert(at, old));
        }
        JsonPatchOperation::Replace(o) => {
            let target = get_mut(doc, &path).ok_or_else(|| absent("path"))?;
            let value = value.unwrap_or_else(|| o.value.clone());
            let old = std::mem::replace(target, value);
            undo.push(Undo::Restore(path, old));
        }
        JsonPatchOperation::Move(o) => {
            let from = tokens(o.from.as_str(), "from")?;
            if from.len() < path.len() && path.starts_with(&from) {
                return Err("`from` is a proper prefix of `path`: a value cannot move into one of its own children".to_owned());
            }
            let (from_at, moved) = remove(doc, &from).map_err(|_| absent("from"))?;
            match add(doc, &path, moved) {
                Ok(Added::Created(at)) => undo.push(Undo::MoveBack {
                    at,
                    to: from_at,
                    displaced: None,
                }),
                Ok(Added::Replaced(at, old)) => undo.push(Undo::MoveBack {
                    at,
                    to: from_at,
                    displaced: Some(old),
                }),
                Err((reason, moved)) => {
                    // Put the source back before the earlier operations are undone.
                    insert(doc, &from_at, moved);
                    return Err(reason);
                }
            }
        }
        JsonPatchOperation::Copy(o) => {
            let from = tokens(o.from.as_str(), "from")?;
            let copied = get(doc, &from).ok_or_else(|| absent("from"))?.clone();
            match add(doc, &path, copied) {
                Ok(Added::Created(at)) => undo.push(Undo::Delete(at)),
                Ok(Added::Replaced(at, old)) => undo.push(Undo::Restore(at, old)),
                Err((reason, _)) => return Err(reason),
            }
        }
        JsonPatchOperation::Test(o) => {
            let target = get(doc, &path).ok_or_else(|| absent("path"))?;
            if !equal_by_value(target, &o.value) {
                return Err(format!(
                    "the value at the path ({}) differs from the tested value",
                    short(target)
                ));
            }
        }
    }
    Ok(())
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

fn absent(which: &str) -> String {
    format!(
        "`{which}` names no value in the document (an absent member, an array index out of range or not written as RFC 6901 requires, or a step below a scalar)"
    )
}

/// A value shown in an error, cut short.
fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// The unescaped reference tokens of an RFC 6901 pointer.
fn tokens(pointer: &str, which: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    if !crate::model::patch::is_valid_pointer(pointer) {
        return Err(format!(
            "`{which}` {pointer:?} is not a JSON Pointer (RFC 6901): empty, or `/`-separated tokens with `~` written `~0` and `/` written `~1`"
        ));
    }
    Ok(pointer[1..]
        .split('/')
        .map(crate::codec::pointer::unescape_token)
        .collect())
}

/// An array index token: digits without a leading zero, below `len` (or equal to it, or
/// `-`, when `end` allows the position after the last element).
fn index(token: &str, len: usize, end: bool) -> Option<usize> {
    if token == "-" {
        return end.then_some(len);
    }
    if token.is_empty()
        || !token.bytes().all(|b| b.is_ascii_digit())
        || (token.len() > 1 && token.starts_with('0'))
    {
        return None;
    }
    let i: usize = token.parse().ok()?;
    (i < len || (end && i == len)).then_some(i)
}

fn get<'v>(doc: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(doc, |v, t| match v {
        Value::Object(m) => m.get(t),
        Value::Array(a) => a.get(index(t, a.len(), false)?),
        _ => None,
    })
}

fn get_mut<'v>(doc: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
    path.iter().try_fold(doc, |v, t| match v {
        Value::Object(m) => m.get_mut(t),
        Value::Array(a) => {
            let i = index(t, a.len(), false)?;
            a.get_mut(i)
        }
        _ => None,
    })
}

enum Added {
    /// A new member or element at this (concrete) location.
    Created(Vec<String>),
    /// An existing value at this location, replaced.
    Replaced(Vec<String>, Value),
}

/// RFC 6902 §4.1 `add`. On failure the value is handed back.
fn add(doc: &mut Value, path: &[String], value: Value) -> Result<Added, (String, Value)> {
    let Some((last, parent)) = path.split_last() else {
        return Ok(Added::Replaced(Vec::new(), std::mem::replace(doc, value)));
    };
    match get_mut(doc, parent) {
        Some(Value::Object(m)) => {
            let at = path.to_vec();
            Ok(match m.insert(last.clone(), value) {
                Some(old) => Added::Replaced(at, old),
                None => Added::Created(at),
            })
        }
        Some(Value::Array(a)) => match index(last, a.len(), true) {
            Some(i) => {
                a.insert(i, value);
                let mut at = parent.to_vec();
                at.push(i.to_string());
                Ok(Added::Created(at))
            }
            None => Err((
                format!(
                    "{last:?} is not an index of the array at the path's parent (0 to {}, or `-`)",
                    a.len()
                ),
                value,
            )),
        },
        Some(_) => Err((
            "the path's parent is neither an object nor an array".to_owned(),
            value,
        )),
        None => Err((
            "the path's parent names no value in the document".to_owned(),
            value,
        )),
    }
}

/// RFC 6902 §4.2 `remove`: the value and its concrete location.
fn remove(doc: &mut Value, path: &[String]) -> Result<(Vec<String>, Value), String> {
    let Some((last, parent)) = path.split_last() else {
        return Err("the whole document cannot be removed".to_owned());
    };
    match get_mut(doc, parent) {
        Some(Value::Object(m)) => match m.remove(last) {
            Some(v) => Ok((path.to_vec(), v)),
            None => Err(absent("path")),
        },
        Some(Value::Array(a)) => match index(last, a.len(), false) {
            Some(i) => Ok((path.to_vec(), a.remove(i))),
            None => Err(absent("path")),
        },
        _ => Err(absent("path")),
    }
}

/// Inserts `value` at a location known to be valid (an undo). Never fails: a location
/// that is somehow not there leaves the document as it is.
fn insert(doc: &mut Value, at: &[String], value: Value) {
    let Some((last, parent)) = at.split_last() else {
        *doc = value;
        return;
    };
    match get_mut(doc, parent) {
        Some(Value::Object(m)) => {
            m.insert(last.clone(), value);
        }
        Some(Value::Array(a)) => {
            if let Some(i) = index(last, a.len(), true) {
                a.insert(i, value);
            }
        }
        _ => {}
    }
}

/// Takes the value at a location known to exist (an undo), removing the location.
fn take(doc: &mut Value, at: &[String]) -> Option<Value> {
    match at.split_last() {
        None => Some(std::mem::take(doc)),
        Some((last, parent)) => match get_mut(doc, parent)? {
            Value::Object(m) => m.remove(last),
            Value::Array(a) => {
                let i = index(last, a.len(), false)?;
                Some(a.remove(i))
            }
            _ => None,
        },
    }
}

fn revert(doc: &mut Value, undo: Undo) {
    match undo {
        Undo::Restore(at, old) => {
            if let Some(target) = get_mut(doc, &at) {
                *target = old;
            }
        }
        Undo::Delete(at) => {
            take(doc, &at);
        }
        Undo::Reinsert(at, value) => insert(doc, &at, value),
        Undo::MoveBack { at, to, displaced } => {
            let moved = match displaced {
                Some(old) => get_mut(doc, &at).map(|t| std::mem::replace(t, old)),
                None => take(doc, &at),
            };
            if let Some(moved) = moved {
                insert(doc, &to, moved);
            }
        }
    }
}

/// JSON equality with numbers compared by value (RFC 6902 §4.6, spec §9.4).
pub(crate) fn equal_by_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal_by_value(p, q))
        }
        (Value::Object(x), Value::Object(y)) => objects_equal(x, y),
        _ => a == b,
    }
}

fn objects_equal(x: &Map<String, Value>, y: &Map<String, Value>) -> bool {
    x.len() == y.len()
        && x.iter()
            .all(|(k, v)| y.get(k).is_some_and(|w| equal_by_value(v, w)))
}

fn numbers_equal(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    fn int(n: &serde_json::Number) -> Option<i128> {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    }
    match (int(x), int(y)) {
        (Some(a), Some(b)) => a == b,
        (Some(i), None) => float_equals_int(y, i),
        (None, Some(i)) => float_equals_int(x, i),
        (None, None) => x.as_f64() == y.as_f64(),
    }
}

fn float_equals_int(f: &serde_json::Number, i: i128) -> bool {
    // Integers up to 2^64 are exact as i128; a float equal to one is integral and within
    // ±2^64, where the cast is exact.
    f.as_f64().is_some_and(|f| {
        f.fract() == 0.0 && f.abs() <= 18_446_744_073_709_551_616.0 && {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "integral and within ±2^64, so exact in i128"
            )]
            let g = f as i128;
            g == i
        }
    })
}
