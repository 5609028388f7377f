//! The index that makes applying an event O(size of the event): message id → position in
//! the transcript, tool call id → (owning message id, position in its `toolCalls`).

use std::cell::Cell;

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
    /// The position the last message lookup found: tried first, since a delta names the
    /// message the event before it named (a string comparison instead of a hash lookup).
    /// Positions stay valid while messages are only appended; an insertion clears it.
    last_message: Cell<Option<usize>>,
    /// The same for tool calls: (message position, position in its `toolCalls`).
    last_call: Cell<Option<(usize, usize)>>,
}

impl Index {
    /// Indexes a whole transcript (O(messages + calls)).
    pub(super) fn build(messages: &[Message]) -> Self {
        let mut index = Index {
            messages: crate::hash::map_with_capacity(messages.len()),
            ..Index::default()
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

    /// Position of message `id` in `messages` (the transcript this index is kept for).
    pub(super) fn position(&self, messages: &[Message], id: &str) -> Option<usize> {
        if let Some(p) = self.last_message.get()
            && messages.get(p).is_some_and(|m| m.id().as_str() == id)
        {
            // The last lookup found `id` here: the first position with that id then, and
            // still (nothing was inserted since).
            return Some(p);
        }
        let p = self.messages.get(id).copied();
        if p.is_some() {
            self.last_message.set(p);
        }
        p
    }

    /// The message holding tool call `id`, and the call's position in its `toolCalls`.
    pub(super) fn call(&self, messages: &[Message], id: &str) -> Option<(usize, usize)> {
        if let Some((p, k)) = self.last_call.get()
            && let Some(Message::Assistant(a)) = messages.get(p)
            && a.tool_calls
                .as_ref()
                .and_then(|calls| calls.get(k))
                .is_some_and(|c| c.id.as_str() == id)
        {
            return Some((p, k));
        }
        let (message, k) = self.calls.get(id)?;
        let found = (self.position(messages, message)?, *k);
        self.last_call.set(Some(found));
        Some(found)
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
        self.last_message.set(None);
        self.last_call.set(None);
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
