//! `ACTIVITY_SNAPSHOT`, `ACTIVITY_DELTA` short forms.

use ag_ui_core::{ActivityDeltaEvent, ActivitySnapshotEvent, JsonPatchOperation, MessageId};
use serde::Serialize;

use crate::error::{BuildError, into_object, to_value};

/// `ACTIVITY_SNAPSHOT(message_id, activity_type, content)`; `content` must serialize to a
/// JSON object. `replace` is left absent, which means `true`.
///
/// # Errors
/// [`BuildError::NotAnObject`] at `/content`, or [`BuildError::Json`] when `content` cannot be
/// serialized.
pub fn activity_snapshot(
    message_id: impl Into<MessageId>,
    activity_type: impl Into<String>,
    content: &(impl Serialize + ?Sized),
) -> Result<ActivitySnapshotEvent, BuildError> {
    let content = into_object(to_value(content)?, "/content")?;
    Ok(ActivitySnapshotEvent::new(
        message_id,
        activity_type,
        content,
    ))
}

/// `ACTIVITY_DELTA(message_id, activity_type, patch)`, its pointers checked.
///
/// # Errors
/// [`BuildError::InvalidPointer`] at `/patch/<i>/path` (or `/from`).
pub fn activity_delta(
    message_id: impl Into<MessageId>,
    activity_type: impl Into<String>,
    patch: impl IntoIterator<Item = JsonPatchOperation>,
) -> Result<ActivityDeltaEvent, BuildError> {
    let patch: Vec<_> = patch.into_iter().collect();
    crate::patch::check(&patch).map_err(|e| e.under("/patch"))?;
    Ok(ActivityDeltaEvent::new(message_id, activity_type, patch))
}
