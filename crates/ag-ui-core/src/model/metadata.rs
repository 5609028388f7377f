//! `Metadata`: the open-by-key object every event, message, tool call, tool, interrupt and
//! resume entry may carry (spec §2.7).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The key reserved for the protocol's own future use inside any [`Metadata`] object.
/// Reservation is by convention: nothing validates or rejects it.
pub const AGUI_METADATA_KEY: &str = "ag-ui";

/// A JSON object of extra information, open by key; any JSON value (including `null`) under
/// any key. As a field it is absent or an object — never `null`, never an array. An empty
/// object means the same as absence.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(transparent)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[expect(
    clippy::exhaustive_structs,
    reason = "metadata is exactly one JSON object"
)]
pub struct Metadata(pub Map<String, Value>);

impl Metadata {
    /// An empty metadata object.
    #[must_use]
    pub fn new() -> Self {
        Self(Map::new())
    }

    /// Sets `key` to `value`, returning the metadata (for chaining).
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.0.insert(key.into(), value.into());
        self
    }

    /// The value under the reserved [`AGUI_METADATA_KEY`], if any.
    #[must_use]
    pub fn agui(&self) -> Option<&Value> {
        self.0.get(AGUI_METADATA_KEY)
    }

    /// Folds `incoming` into `self` key by key: last write wins, never recursive (an object
    /// or array under a key, `"ag-ui"` included, is replaced whole).
    pub fn merge_from(&mut self, incoming: &Metadata) {
        for (k, v) in &incoming.0 {
            self.0.insert(k.clone(), v.clone());
        }
    }

    /// The merge rule of spec §2.7 on optional metadata: an absent incoming leaves the target
    /// untouched; otherwise the result is a new object holding the target's keys overwritten
    /// by the incoming ones.
    #[must_use]
    pub fn merged(target: Option<&Metadata>, incoming: Option<&Metadata>) -> Option<Metadata> {
        match (target, incoming) {
            (t, None) => t.cloned(),
            (None, Some(i)) => Some(i.clone()),
            (Some(t), Some(i)) => {
                let mut out = t.clone();
                out.merge_from(i);
                Some(out)
            }
        }
    }
}

impl std::ops::Deref for Metadata {
    type Target = Map<String, Value>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Metadata {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl From<Map<String, Value>> for Metadata {
    fn from(m: Map<String, Value>) -> Self {
        Self(m)
    }
}

impl From<Metadata> for Map<String, Value> {
    fn from(m: Metadata) -> Self {
        m.0
    }
}

impl<K: Into<String>, V: Into<Value>> FromIterator<(K, V)> for Metadata {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Self(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

impl<'de> Deserialize<'de> for Metadata {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::codec::wire::JsonObject::deserialize(d).map(|o| Self(o.0))
    }
}

impl crate::codec::write::Encode for Metadata {
    #[inline]
    fn encode(
        &self,
        out: &mut crate::codec::write::Out<'_>,
    ) -> Result<(), crate::codec::write::Refused> {
        self.0.encode(out)
    }
}

crate::codec::wire::wire_as_self!(Metadata);

/// `State`: the agent state, any JSON value. The protocol never interprets it.
pub type State = Value;
