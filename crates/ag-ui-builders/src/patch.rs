//! JSON Patch helpers: [`diff`] two documents, [`check`] pointers before emitting.

use ag_ui_core::{JsonPatch, JsonPatchOperation, JsonPointer};
use serde_json::Value;

use crate::error::BuildError;

/// A JSON Patch turning `from` into `to`. Objects are compared key by key (removals, then
/// additions and changes, in key order). Arrays are compared element by element after
/// their common head and tail: an append is `add /-`, an insertion `add /i`, a removal
/// `remove /i`, and a changed element is diffed in place (`replace /i/...`, or `replace /i`
/// when its type changed). Any other change replaces the value. Equal documents give an
/// empty patch.
///
/// Minimality: an array's elements are matched by a shortest edit script (each removal,
/// insertion or change of an element counts one), computed on the changed middle of the
/// two arrays when it is at most 64 × 64 elements; beyond that, the middle is compared
/// position by position (correct, not minimal). So at the array level the patch has the
/// fewest operations; a changed element becomes the operations of its own diff, which can
/// be more than one. "Minimal" counts operations, not bytes: the
/// [`RunEmitter`](crate::RunEmitter) compares the patch with the snapshot and sends the
/// smaller.
///
/// ```
/// use ag_ui_builders::patch::diff;
/// use ag_ui_core::JsonPatchOperation;
/// use serde_json::json;
///
/// let patch = diff(&json!({"count": 1, "done": false}), &json!({"count": 2, "done": false}));
/// assert_eq!(patch, vec![JsonPatchOperation::replace("/count", 2)]);
///
/// let before = json!({"todos": [{"title": "milk", "done": false}, {"title": "eggs", "done": false}]});
/// let after = json!({"todos": [{"title": "milk", "done": true}, {"title": "eggs", "done": false},
///                              {"title": "bread", "done": false}]});
/// assert_eq!(diff(&before, &after), vec![
///     JsonPatchOperation::replace("/todos/0/done", true),
///     JsonPatchOperation::add("/todos/-", json!({"title": "bread", "done": false})),
/// ]);
/// assert_eq!(
///     diff(&json!(["a", "b", "c"]), &json!(["b", "c", "d"])),
///     vec![JsonPatchOperation::remove("/0"), JsonPatchOperation::add("/-", "d")],
/// );
/// ```
#[must_use]
pub fn diff(from: &Value, to: &Value) -> JsonPatch {
    let mut ops = JsonPatch::new();
    let mut tokens = Vec::new();
    diff_into(from, to, &mut tokens, &mut ops);
    ops
}

/// The largest changed middle (elements on each side multiplied) compared with a longest
/// common subsequence; larger ones are compared position by position.
const LCS_LIMIT: usize = 64 * 64;

fn pointer(path: &[String]) -> JsonPointer {
    JsonPointer::from_tokens(path)
}

fn at(path: &mut Vec<String>, token: impl ToString, f: impl FnOnce(&mut Vec<String>)) {
    path.push(token.to_string());
    f(path);
    path.pop();
}

fn diff_into(from: &Value, to: &Value, path: &mut Vec<String>, ops: &mut JsonPatch) {
    if from == to {
        return;
    }
    match (from, to) {
        (Value::Object(a), Value::Object(b)) => {
            // Sorted keys: the same patch whether or not serde_json keeps insertion order
            // (its `preserve_order` feature, which another crate of a build may turn on).
            let mut removed: Vec<&String> = a.keys().filter(|k| !b.contains_key(*k)).collect();
            removed.sort_unstable();
            for key in removed {
                at(path, key, |p| {
                    ops.push(JsonPatchOperation::remove(pointer(p)))
                });
            }
            let mut kept: Vec<(&String, &Value)> = b.iter().collect();
            kept.sort_unstable_by_key(|(k, _)| *k);
            for (key, new) in kept {
                at(path, key, |p| match a.get(key) {
                    Some(old) => diff_into(old, new, p, ops),
                    None => ops.push(JsonPatchOperation::add(pointer(p), new.clone())),
                });
            }
        }
        (Value::Array(a), Value::Array(b)) => diff_array(a, b, path, ops),
        _ => ops.push(JsonPatchOperation::replace(pointer(path), to.clone())),
    }
}

/// One step of an array edit script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edit {
    /// `from[i]` stays (equal to `to[j]`).
    Keep(usize, usize),
    /// `from[i]` is removed.
    Remove(usize),
    /// `to[j]` is inserted.
    Insert(usize),
}

fn diff_array(a: &[Value], b: &[Value], path: &mut Vec<String>, ops: &mut JsonPatch) {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let script = if ma.len().saturating_mul(mb.len()) <= LCS_LIMIT {
        shortest_script(ma, mb)
    } else {
        positional_script(ma.len(), mb.len())
    };
    // Walk the script over the array as it is being patched: `index` is the position in
    // the patched array, `len` its length (to write an append as `-`). Between two kept
    // elements, a run of r removals and i insertions becomes min(r, i) changes in place,
    // then the rest of the removals or insertions: max(r, i) operations.
    let mut index = head;
    let mut len = a.len();
    let (mut removed, mut inserted) = (Vec::new(), Vec::new());
    for edit in script.into_iter().chain([Edit::Keep(0, 0)]) {
        match edit {
            Edit::Remove(i) => removed.push(i),
            Edit::Insert(j) => inserted.push(j),
            Edit::Keep(..) => {
                for (&i, &j) in removed.iter().zip(&inserted) {
                    at(path, index, |p| diff_into(&ma[i], &mb[j], p, ops));
                    index += 1;
                }
                for _ in inserted.len()..removed.len() {
                    at(path, index, |p| {
                        ops.push(JsonPatchOperation::remove(pointer(p)))
                    });
                    len -= 1;
                }
                for &j in inserted.iter().skip(removed.len()) {
                    let token = if index == len {
                        "-".to_owned()
                    } else {
                        index.to_string()
                    };
                    at(path, token, |p| {
                        ops.push(JsonPatchOperation::add(pointer(p), mb[j].clone()));
                    });
                    index += 1;
                    len += 1;
                }
                removed.clear();
                inserted.clear();
                // The kept element (the sentinel after the last edit keeps nothing).
                index += 1;
            }
        }
    }
}

/// A shortest edit script from `a` to `b` (Levenshtein: keeping an equal element costs
/// nothing; a removal, an insertion or a change in place costs one). A change is written
/// as a removal followed by an insertion.
fn shortest_script(a: &[Value], b: &[Value]) -> Vec<Edit> {
    let (n, m) = (a.len(), b.len());
    // cost[i][j]: the fewest operations turning a[i..] into b[j..].
    let mut cost = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..=n).rev() {
        for j in (0..=m).rev() {
            cost[i][j] = if i == n {
                m - j
            } else if j == m {
                n - i
            } else if a[i] == b[j] {
                cost[i + 1][j + 1]
            } else {
                1 + cost[i + 1][j + 1].min(cost[i + 1][j]).min(cost[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut script = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] && cost[i][j] == cost[i + 1][j + 1] {
            script.push(Edit::Keep(i, j));
            i += 1;
            j += 1;
        } else if i < n && j < m && cost[i][j] == 1 + cost[i + 1][j + 1] {
            script.push(Edit::Remove(i));
            script.push(Edit::Insert(j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || cost[i][j] == 1 + cost[i + 1][j]) {
            script.push(Edit::Remove(i));
            i += 1;
        } else {
            script.push(Edit::Insert(j));
            j += 1;
        }
    }
    script
}

/// Position by position: the common length changes in place, the rest is removed or
/// inserted at the end.
fn positional_script(n: usize, m: usize) -> Vec<Edit> {
    let common = n.min(m);
    let mut script = Vec::with_capacity(n.max(m) * 2);
    for i in 0..common {
        script.push(Edit::Remove(i));
        script.push(Edit::Insert(i));
    }
    script.extend((common..n).map(Edit::Remove));
    script.extend((common..m).map(Edit::Insert));
    script
}

/// Checks that every `path` and `from` in `patch` is an RFC 6901 JSON Pointer (the one
/// rule the wire checks; whether the patch applies is the applier's business).
///
/// # Errors
/// [`BuildError::InvalidPointer`] at `/<index>/path` or `/<index>/from`.
pub fn check(patch: &[JsonPatchOperation]) -> Result<(), BuildError> {
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
                return Err(BuildError::InvalidPointer {
                    pointer: format!("/{i}/{member}"),
                    value: p.to_string(),
                });
            }
        }
    }
    Ok(())
}
