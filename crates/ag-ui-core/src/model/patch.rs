//! JSON Patch (RFC 6902) as AG-UI carries it: `JsonPatch`, `JsonPatchOperation`, `JsonPointer`.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::codec::wire::{tagged_union, wire_struct};

/// `JsonPointer` (RFC 6901): `""` (the whole document) or `/`-prefixed tokens in which `~`
/// is written `~0` and `/` is written `~1` (pattern `^(/([^/~]|~[01])*)*$`).
///
/// Constructing one from a string does not check it; reading and writing do, so an invalid
/// pointer never reaches the wire.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schemars", schemars(extend("pattern" = "^(/([^/~]|~[01])*)*$")))]
#[expect(clippy::exhaustive_structs, reason = "a pointer is exactly one string")]
pub struct JsonPointer(pub String);

impl JsonPointer {
    /// The pointer to the whole document (`""`).
    #[must_use]
    pub fn root() -> Self {
        Self(String::new())
    }

    /// Builds a pointer from unescaped reference tokens.
    #[must_use]
    pub fn from_tokens<I, T>(tokens: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: AsRef<str>,
    {
        let mut s = String::new();
        for t in tokens {
            s.push('/');
            s.push_str(&crate::codec::pointer::escape_token(t.as_ref()));
        }
        Self(s)
    }

    /// Whether the string matches the RFC 6901 pattern.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        is_valid_pointer(&self.0)
    }

    /// The pointer text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The unescaped reference tokens, or `None` when the pointer is invalid.
    #[must_use]
    pub fn tokens(&self) -> Option<Vec<String>> {
        if !self.is_valid() {
            return None;
        }
        Some(
            self.0
                .split('/')
                .skip(1)
                .map(crate::codec::pointer::unescape_token)
                .collect(),
        )
    }
}

/// Checks `^(/([^/~]|~[01])*)*$`.
pub(crate) fn is_valid_pointer(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    if !s.starts_with('/') {
        return false;
    }
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return false;
        }
    }
    true
}

impl fmt::Display for JsonPointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for JsonPointer {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

impl From<String> for JsonPointer {
    fn from(s: String) -> Self {
        Self(s)
    }
}

const POINTER_HINT: &str = "must match ^(/([^/~]|~[01])*)*$: empty, or `/`-separated tokens with `~` written `~0` and `/` written `~1`";

impl Serialize for JsonPointer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !self.is_valid() {
            return Err(serde::ser::Error::custom(format_args!(
                "invalid JSON Pointer {:?}: {POINTER_HINT}",
                self.0
            )));
        }
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for JsonPointer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if !is_valid_pointer(&s) {
            return Err(de::Error::custom(format_args!(
                "invalid JSON Pointer {s:?}: {POINTER_HINT}"
            )));
        }
        Ok(Self(s))
    }
}

impl crate::codec::write::Encode for JsonPointer {
    fn encode(
        &self,
        out: &mut crate::codec::write::Out<'_>,
    ) -> Result<(), crate::codec::write::Refused> {
        if !self.is_valid() {
            return Err(crate::codec::write::Refused);
        }
        out.str(&self.0);
        Ok(())
    }
}

crate::codec::wire::wire_as_self!(JsonPointer);

wire_struct! {
    /// `AddOperation` (`op: "add"`): adds `value` at `path` (`-` appends to an array).
    pub struct AddOperation ["op" = "add"] {
        required {
            /// Target pointer.
            path: JsonPointer = "path" ("a JSON Pointer string"),
            /// The value, any JSON including `null`.
            value: Value = "value" ("any JSON value, null included"),
        }
        optional {}
        open { extra }
    }
}

wire_struct! {
    /// `RemoveOperation` (`op: "remove"`): removes the value at `path`.
    pub struct RemoveOperation ["op" = "remove"] {
        required {
            /// Pointer to remove.
            path: JsonPointer = "path" ("a JSON Pointer string"),
        }
        optional {}
        open { extra }
    }
}

wire_struct! {
    /// `ReplaceOperation` (`op: "replace"`): replaces the value at `path`.
    pub struct ReplaceOperation ["op" = "replace"] {
        required {
            /// Pointer to replace.
            path: JsonPointer = "path" ("a JSON Pointer string"),
            /// The new value, any JSON including `null`.
            value: Value = "value" ("any JSON value, null included"),
        }
        optional {}
        open { extra }
    }
}

wire_struct! {
    /// `MoveOperation` (`op: "move"`): moves the value at `from` to `path`.
    pub struct MoveOperation ["op" = "move"] {
        required {
            /// Source pointer.
            from: JsonPointer = "from" ("a JSON Pointer string"),
            /// Destination pointer.
            path: JsonPointer = "path" ("a JSON Pointer string"),
        }
        optional {}
        open { extra }
    }
}

wire_struct! {
    /// `CopyOperation` (`op: "copy"`): copies the value at `from` to `path`.
    pub struct CopyOperation ["op" = "copy"] {
        required {
            /// Source pointer.
            from: JsonPointer = "from" ("a JSON Pointer string"),
            /// Destination pointer.
            path: JsonPointer = "path" ("a JSON Pointer string"),
        }
        optional {}
        open { extra }
    }
}

wire_struct! {
    /// `TestOperation` (`op: "test"`): checks that the value at `path` equals `value`.
    pub struct TestOperation ["op" = "test"] {
        required {
            /// Pointer to compare.
            path: JsonPointer = "path" ("a JSON Pointer string"),
            /// The expected value, any JSON including `null`.
            value: Value = "value" ("any JSON value, null included"),
        }
        optional {}
        open { extra }
    }
}

tagged_union! {
    /// `JsonPatchOperation`: one RFC 6902 operation, tagged by `op`. Operations are open
    /// objects (RFC 6902 §4): members beyond the declared ones are kept and written back,
    /// without a warning; they change nothing when applied.
    pub enum JsonPatchOperation ["op", "JSON Patch op"] {
        /// `add`.
        Add(AddOperation) = "add",
        /// `remove`.
        Remove(RemoveOperation) = "remove",
        /// `replace`.
        Replace(ReplaceOperation) = "replace",
        /// `move`.
        Move(MoveOperation) = "move",
        /// `copy`.
        Copy(CopyOperation) = "copy",
        /// `test`.
        Test(TestOperation) = "test",
    }
}

impl JsonPatchOperation {
    /// `add` of `value` at `path`.
    #[must_use]
    pub fn add(path: impl Into<JsonPointer>, value: impl Into<Value>) -> Self {
        Self::Add(AddOperation::new(path, value))
    }
    /// `remove` at `path`.
    #[must_use]
    pub fn remove(path: impl Into<JsonPointer>) -> Self {
        Self::Remove(RemoveOperation::new(path))
    }
    /// `replace` at `path` with `value`.
    #[must_use]
    pub fn replace(path: impl Into<JsonPointer>, value: impl Into<Value>) -> Self {
        Self::Replace(ReplaceOperation::new(path, value))
    }
    /// `move` from `from` to `path`.
    #[must_use]
    pub fn move_(from: impl Into<JsonPointer>, path: impl Into<JsonPointer>) -> Self {
        Self::Move(MoveOperation::new(from, path))
    }
    /// `copy` from `from` to `path`.
    #[must_use]
    pub fn copy(from: impl Into<JsonPointer>, path: impl Into<JsonPointer>) -> Self {
        Self::Copy(CopyOperation::new(from, path))
    }
    /// `test` that `path` holds `value`.
    #[must_use]
    pub fn test(path: impl Into<JsonPointer>, value: impl Into<Value>) -> Self {
        Self::Test(TestOperation::new(path, value))
    }

    /// The operation's target pointer.
    #[must_use]
    pub fn path(&self) -> &JsonPointer {
        match self {
            Self::Add(o) => &o.path,
            Self::Remove(o) => &o.path,
            Self::Replace(o) => &o.path,
            Self::Move(o) => &o.path,
            Self::Copy(o) => &o.path,
            Self::Test(o) => &o.path,
        }
    }
}

/// `JsonPatch`: an RFC 6902 patch, an array of operations applied in order (an empty array
/// is a valid no-op). Derefs to the list of operations.
///
/// Reading one names the index of a bad operation in the error's JSON Pointer
/// (`/1/path`), whether the patch stands alone or sits in `STATE_DELTA.delta` or
/// `ACTIVITY_DELTA.patch`.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schemars", schemars(transparent))]
#[expect(
    clippy::exhaustive_structs,
    reason = "a patch is exactly a list of operations"
)]
pub struct JsonPatch(pub Vec<JsonPatchOperation>);

impl JsonPatch {
    /// An empty patch.
    #[must_use]
    pub fn new() -> Self {
        Self(Vec::new())
    }

    /// The operations.
    #[must_use]
    pub fn into_vec(self) -> Vec<JsonPatchOperation> {
        self.0
    }
}

impl std::ops::Deref for JsonPatch {
    type Target = Vec<JsonPatchOperation>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for JsonPatch {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl From<Vec<JsonPatchOperation>> for JsonPatch {
    fn from(ops: Vec<JsonPatchOperation>) -> Self {
        Self(ops)
    }
}

impl From<JsonPatch> for Vec<JsonPatchOperation> {
    fn from(p: JsonPatch) -> Self {
        p.0
    }
}

impl PartialEq<Vec<JsonPatchOperation>> for JsonPatch {
    fn eq(&self, other: &Vec<JsonPatchOperation>) -> bool {
        self.0 == *other
    }
}

impl FromIterator<JsonPatchOperation> for JsonPatch {
    fn from_iter<I: IntoIterator<Item = JsonPatchOperation>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}

impl IntoIterator for JsonPatch {
    type Item = JsonPatchOperation;
    type IntoIter = std::vec::IntoIter<JsonPatchOperation>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a JsonPatch {
    type Item = &'a JsonPatchOperation;
    type IntoIter = std::slice::Iter<'a, JsonPatchOperation>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Serialize for JsonPatch {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::codec::wire::Wire::write(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for JsonPatch {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::codec::wire::SeqProxy::<JsonPatchOperation>::deserialize(d).map(|p| Self(p.0))
    }
}

impl crate::codec::write::Encode for JsonPatch {
    fn encode(
        &self,
        out: &mut crate::codec::write::Out<'_>,
    ) -> Result<(), crate::codec::write::Refused> {
        crate::codec::wire::Wire::encode(&self.0, out)
    }
}

crate::codec::wire::wire_as_self!(JsonPatch);
