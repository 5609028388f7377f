//! `STATE_SNAPSHOT`, `STATE_DELTA`, `MESSAGES_SNAPSHOT` short forms.

use ag_ui_core::{
    JsonPatchOperation, Message, MessagesSnapshotEvent, StateDeltaEvent, StateSnapshotEvent,
};
use serde::Serialize;
use serde_json::Value;

use crate::error::{BuildError, to_value};

/// `STATE_SNAPSHOT(snapshot)`; any JSON, `null` included (a real value here).
#[must_use]
pub fn state_snapshot(snapshot: impl Into<Value>) -> StateSnapshotEvent {
    StateSnapshotEvent::new(snapshot.into())
}

/// `STATE_SNAPSHOT` of a serializable state.
///
/// # Errors
/// [`BuildError::Json`] when `state` cannot be serialized.
pub fn state_snapshot_of(
    state: &(impl Serialize + ?Sized),
) -> Result<StateSnapshotEvent, BuildError> {
    Ok(state_snapshot(to_value(state)?))
}

/// `STATE_DELTA(delta)`, its pointers checked (an empty patch is a valid no-op).
///
/// # Errors
/// [`BuildError::InvalidPointer`] at `/delta/<i>/path` (or `/from`).
pub fn state_delta(
    delta: impl IntoIterator<Item = JsonPatchOperation>,
) -> Result<StateDeltaEvent, BuildError> {
    let delta: Vec<_> = delta.into_iter().collect();
    crate::patch::check(&delta).map_err(|e| e.under("/delta"))?;
    Ok(StateDeltaEvent::new(delta))
}

/// `MESSAGES_SNAPSHOT(messages)`.
#[must_use]
pub fn messages_snapshot(messages: impl IntoIterator<Item = Message>) -> MessagesSnapshotEvent {
    MessagesSnapshotEvent::new(messages.into_iter().collect::<Vec<_>>())
}
