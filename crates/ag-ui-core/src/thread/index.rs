//! The index that makes applying an event O(size of the event): message id → position in
//! the transcript, tool call id → (owning message id, position in its `toolCalls`).

use crate::hash::HashMap;

use crate::model::message::Message;

/// Where each message and tool call sits. Kept in step with the transcript by every
/// change the reducer makes; rebuilt only when the whole transcript is replaced.
#[derive(Debug, Clone, Default)]
pub(super) struct Index {
    /// Message id → position. With duplicate ids (possible in a transcript given by the
    /// caller), the first position wins, as a lookup from the front would find.
    messages: HashMap<String, usize>,
    /// Tool call id → (id of the assistant message holding it, position in `toolCalls`).
    calls: HashMap<String, (String, usize)>,
}

impl Index {
    /// Indexes a whole transcript (O(messages + calls)).
    pub(super) fn build(messages: &[Message]) -> Self {
        let mut index = Index {
            messages: crate::hash::map_with_capacity(messages.len()),
            calls: HashMap::default(),
        };
        for (pos, m) in messages.iter().enumerate() {
            index.add_message(m, pos);
        }
        index
    }

    fn add_message(&mut self, m: &Message, pos: usize) {
        let id = m.id().as_str();
        if self.messages.contains_key(id) {
            return;
        }
        self.messages.insert(id.to_owned(), pos);
        if let Message::Assistant(a) = m {
            for (k, call) in a.tool_calls.iter().flatten().enumerate() {
                self.calls
                    .entry(call.id.as_str().to_owned())
                    .or_insert_with(|| (id.to_owned(), k));
            }
        }
    }

    /// Position of message `id`.
    pub(super) fn position(&self, id: &str) -> Option<usize> {
        self.messages.get(id).copied()
    }

    /// The message holding tool call `id`, and the call's position in its `toolCalls`.
    pub(super) fn call(&self, id: &str) -> Option<(usize, usize)> {
        let (message, k) = self.calls.get(id)?;
        Some((self.position(message)?, *k))
    }

    /// Records a message appended at `pos` (the end of the transcript).
    pub(super) fn pushed(&mut self, m: &Message, pos: usize) {
        self.add_message(m, pos);
    }

    /// Records that tool call `call_id` was added to message `message_id` at `k`.
    pub(super) fn call_added(&mut self, call_id: &str, message_id: &str, k: usize) {
        self.calls
            .entry(call_id.to_owned())
            .or_insert_with(|| (message_id.to_owned(), k));
    }

    /// Records a message inserted at `pos`: every message after it moved one place on.
    /// Costs O(messages after `pos`).
    pub(super) fn inserted(&mut self, messages: &[Message], pos: usize) {
        for (offset, m) in messages[pos + 1..].iter().enumerate() {
            if let Some(p) = self.messages.get_mut(m.id().as_str())
                && *p == pos + offset
            {
                *p = pos + offset + 1;
            }
        }
        self.add_message(&messages[pos], pos);
    }
}
