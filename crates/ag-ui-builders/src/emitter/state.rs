//! Shared state (snapshots, patches, diffs) and activity messages.

use ag_ui_core::stream::verify::EntityKind;
use ag_ui_core::{
    ActivityDeltaEvent, ActivitySnapshotEvent, JsonPatch, JsonPatchOperation, Message, MessageId,
    StateDeltaEvent, SubagentRunId,
};
use serde::Serialize;
use serde_json::{Map, Value};

use super::run::{Activity, Attribute, RunEmitter};
use crate::error::{BuildError, into_object, to_value};
use crate::event;
use crate::patch::{check, diff};

/// The length of `value` as compact JSON (0 if it cannot be written, which a value built by
/// `serde_json` always can).
fn json_len(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

impl RunEmitter {
    /// Sends the whole state (`STATE_SNAPSHOT`).
    ///
    /// # Errors
    /// [`BuildError::Json`] when `state` cannot be serialized; [`BuildError::RunEnded`].
    pub fn state_snapshot(&mut self, state: &(impl Serialize + ?Sized)) -> Result<(), BuildError> {
        self.live()?;
        let value = to_value(state)?;
        let owner = self.owner();
        self.emit(event::state_snapshot(value.clone()).owned_by(owner.as_ref()))?;
        self.state = Some(value);
        Ok(())
    }

    /// Sends a JSON Patch against the state (`STATE_DELTA`). When the emitter knows the
    /// state (a snapshot, a [`state`](Self::state) or
    /// [`with_state_baseline`](Self::with_state_baseline) before), it applies the patch to
    /// it, so that `state` and `state_delta` can be mixed; a patch that does not apply to
    /// that state is refused, as a client would fail on it.
    ///
    /// ```
    /// use ag_ui_builders::RunEmitter;
    /// use ag_ui_core::{EventType, JsonPatchOperation};
    /// use serde_json::json;
    ///
    /// let mut run = RunEmitter::start("thread-1", "run-1");
    /// let todos: Vec<String> = (1..=20).map(|i| format!("todo number {i}")).collect();
    /// run.state(&json!({"todos": todos}))?; // snapshot
    /// run.state_delta([JsonPatchOperation::add("/todos/-", "one more")])?;
    /// let mut todos = todos;
    /// todos.push("one more".into());
    /// todos.push("and another".into());
    /// run.state(&json!({"todos": todos}))?; // a delta from the patched state
    /// let types: Vec<_> = run.drain().into_iter().map(|e| e.event_type()).collect();
    /// assert_eq!(types[1..], [EventType::StateSnapshot, EventType::StateDelta, EventType::StateDelta]);
    /// # Ok::<(), ag_ui_builders::BuildError>(())
    /// ```
    ///
    /// # Errors
    /// [`BuildError::InvalidPointer`] (at `/delta/<i>/…`); [`BuildError::PatchFailed`] when the patch
    /// does not apply to the state the emitter knows; [`BuildError::RunEnded`].
    pub fn state_delta(
        &mut self,
        patch: impl IntoIterator<Item = JsonPatchOperation>,
    ) -> Result<(), BuildError> {
        self.live()?;
        let ev = event::state_delta(patch)?;
        let next = self.patched_state(&ev.delta)?;
        let owner = self.owner();
        self.emit(ev.owned_by(owner.as_ref()))?;
        self.state = next;
        Ok(())
    }

    /// Sends the new state the cheapest way: a snapshot the first time (unless
    /// [`with_state_baseline`](Self::with_state_baseline) gave the state the client holds),
    /// then the JSON Patch from the last state sent ([`patch::diff`](crate::patch::diff):
    /// array-aware) or a snapshot, whichever is smaller as JSON; nothing when unchanged.
    ///
    /// # Errors
    /// [`BuildError::Json`] when `state` cannot be serialized; [`BuildError::RunEnded`].
    pub fn state(&mut self, state: &(impl Serialize + ?Sized)) -> Result<(), BuildError> {
        self.live()?;
        let value = to_value(state)?;
        match &self.state {
            None => self.state_snapshot(&value),
            Some(old) => {
                let patch = diff(old, &value);
                if patch.is_empty() {
                    return Ok(());
                }
                if json_len(&value) <= json_len(&patch) {
                    return self.state_snapshot(&value);
                }
                let owner = self.owner();
                self.emit(StateDeltaEvent::new(patch).owned_by(owner.as_ref()))?;
                self.state = Some(value);
                Ok(())
            }
        }
    }

    /// The state the client holds when the run starts (typically the run input's
    /// `state`): the first [`state`](Self::state) sends a delta from it when that is
    /// smaller, and [`state_delta`](Self::state_delta) applies to it.
    #[must_use]
    pub fn with_state_baseline(mut self, state: Value) -> Self {
        self.state = Some(state);
        self
    }

    /// The state the emitter knows after `delta`: the known state patched, `None` when the
    /// state is unknown.
    pub(super) fn patched_state(&self, delta: &JsonPatch) -> Result<Option<Value>, BuildError> {
        let Some(mut state) = self.state.clone() else {
            return Ok(None);
        };
        delta
            .apply(&mut state)
            .map_err(|e| BuildError::PatchFailed {
                pointer: format!("/delta{}", e.pointer()),
                reason: e.to_string(),
            })?;
        Ok(Some(state))
    }

    /// Sends `MESSAGES_SNAPSHOT` (the complete set of messages this agent owns).
    ///
    /// # Errors
    /// [`BuildError::RunEnded`].
    pub fn messages_snapshot(
        &mut self,
        messages: impl IntoIterator<Item = Message>,
    ) -> Result<(), BuildError> {
        self.live()?;
        self.emit(event::messages_snapshot(messages))?;
        Ok(())
    }

    /// Creates an activity message (minted id, returned) with `content`, which must
    /// serialize to a JSON object.
    ///
    /// # Errors
    /// [`BuildError::NotAnObject`] at `/content`; [`BuildError::Json`]; [`BuildError::RunEnded`].
    pub fn activity(
        &mut self,
        activity_type: impl Into<String>,
        content: &(impl Serialize + ?Sized),
    ) -> Result<MessageId, BuildError> {
        self.live()?;
        let id = self.mint_message_id()?;
        self.activity_snapshot(id.clone(), activity_type, content)?;
        Ok(id)
    }

    /// Creates or replaces activity message `id` (`ACTIVITY_SNAPSHOT`).
    ///
    /// # Errors
    /// As [`activity`](Self::activity).
    pub fn activity_snapshot(
        &mut self,
        id: impl Into<MessageId>,
        activity_type: impl Into<String>,
        content: &(impl Serialize + ?Sized),
    ) -> Result<(), BuildError> {
        self.live()?;
        let id = id.into();
        let activity_type = activity_type.into();
        let content = into_object(to_value(content)?, "/content")?;
        let owner = self.owner();
        self.emit(
            ActivitySnapshotEvent::new(id.clone(), activity_type.clone(), content.clone())
                .owned_by(owner.as_ref()),
        )?;
        self.track_activity(id, activity_type, Some(content));
        Ok(())
    }

    /// Updates activity message `id` to `content`, sending the JSON Patch from its last
    /// content (`ACTIVITY_DELTA`; nothing when unchanged; an `ACTIVITY_SNAPSHOT` when a patch
    /// sent with [`activity_delta`](Self::activity_delta) made the last content unknown).
    ///
    /// # Errors
    /// [`BuildError::NotOpen`] when this emitter created no activity `id`; [`BuildError::NotAnObject`];
    /// [`BuildError::Json`]; [`BuildError::RunEnded`].
    pub fn activity_update(
        &mut self,
        id: impl Into<MessageId>,
        content: &(impl Serialize + ?Sized),
    ) -> Result<(), BuildError> {
        self.live()?;
        let id = id.into();
        let content = into_object(to_value(content)?, "/content")?;
        let Some(a) = self.activities.iter().find(|a| a.id == id) else {
            return Err(BuildError::NotOpen {
                kind: "activity",
                id: id.into_string(),
            });
        };
        // Attributed to the activity's owner, whoever updates it.
        let activity_type = a.activity_type.clone();
        let owner = self.activity_owner(&id);
        match &a.content {
            // The content is unknown after a raw patch: send it whole.
            None => self.emit(
                ActivitySnapshotEvent::new(id.clone(), activity_type.clone(), content.clone())
                    .owned_by(owner.as_ref()),
            )?,
            Some(old) => {
                let patch = diff(&Value::Object(old.clone()), &Value::Object(content.clone()));
                if !patch.is_empty() {
                    self.emit(
                        ActivityDeltaEvent::new(id.clone(), activity_type.clone(), patch)
                            .owned_by(owner.as_ref()),
                    )?;
                }
            }
        }
        self.track_activity(id, activity_type, Some(content));
        Ok(())
    }

    /// Sends a JSON Patch against activity message `id`'s content (`ACTIVITY_DELTA`,
    /// attributed to the activity's owner).
    ///
    /// # Errors
    /// [`BuildError::NotOpen`] when this emitter created no activity `id`;
    /// [`BuildError::InvalidPointer`]; [`BuildError::RunEnded`].
    pub fn activity_delta(
        &mut self,
        id: impl Into<MessageId>,
        patch: impl IntoIterator<Item = JsonPatchOperation>,
    ) -> Result<(), BuildError> {
        self.live()?;
        let id = id.into();
        let patch: Vec<_> = patch.into_iter().collect();
        check(&patch).map_err(|e| e.under("/patch"))?;
        let Some(a) = self.activities.iter().find(|a| a.id == id) else {
            return Err(BuildError::NotOpen {
                kind: "activity",
                id: id.into_string(),
            });
        };
        let activity_type = a.activity_type.clone();
        let owner = self.activity_owner(&id);
        self.emit(
            ActivityDeltaEvent::new(id.clone(), activity_type.clone(), patch)
                .owned_by(owner.as_ref()),
        )?;
        // The emitter does not apply patches: the next update sends a snapshot.
        self.track_activity(id, activity_type, None);
        Ok(())
    }

    /// The owner of activity `id` (the one its last replacing snapshot named).
    fn activity_owner(&self, id: &MessageId) -> Option<SubagentRunId> {
        self.owner_of(EntityKind::Activity, id.as_str()).flatten()
    }

    /// Records activity `id`'s type and content (`None`: unknown after a raw patch).
    pub(super) fn track_activity(
        &mut self,
        id: MessageId,
        activity_type: String,
        content: Option<Map<String, Value>>,
    ) {
        match self.activities.iter_mut().find(|a| a.id == id) {
            Some(a) => {
                a.activity_type = activity_type;
                a.content = content;
            }
            None => self.activities.push(Activity {
                id,
                activity_type,
                content,
            }),
        }
    }
}
