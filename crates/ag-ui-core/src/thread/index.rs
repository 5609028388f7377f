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
    /// The position the last [`Index::find`] found: tried first, since a delta names the
    /// message the event before it named (a string comparison instead of a hash lookup).
    /// Positions stay valid while messages are only appended; an insertion clears it.
    /// (Plain fields, updated through `&mut self`: no interior mutability, so that a
    /// `ThreadState` stays `Sync`.)
    last_message: Option<usize>,
    /// The same for tool calls ([`Index::find_call`]): (message position, position in its
    /// `toolCalls`).
    last_call: Option<(usize, usize)>,
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
        if let Some(p) = self.last_message
            && messages.get(p).is_some_and(|m| m.id().as_str() == id)
        {
            // The last lookup found `id` here: the first position with that id then, and
            // still (nothing was inserted since).
            return Some(p);
        }
        self.messages.get(id).copied()
    }

    /// [`Index::position`], remembering what it found for the next lookup.
    pub(super) fn find(&mut self, messages: &[Message], id: &str) -> Option<usize> {
        let p = self.position(messages, id);
        if p.is_some() {
            self.last_message = p;
        }
        p
    }

    /// The message holding tool call `id`, and the call's position in its `toolCalls`.
    pub(super) fn call(&self, messages: &[Message], id: &str) -> Option<(usize, usize)> {
        if let Some((p, k)) = self.last_call
            && let Some(Message::Assistant(a)) = messages.get(p)
            && a.tool_calls
                .as_ref()
                .and_then(|calls| calls.get(k))
                .is_some_and(|c| c.id.as_str() == id)
        {
            return Some((p, k));
        }
        let (message, k) = self.calls.get(id)?;
        Some((self.position(messages, message)?, *k))
    }

    /// [`Index::call`], remembering what it found for the next lookup.
    pub(super) fn find_call(&mut self, messages: &[Message], id: &str) -> Option<(usize, usize)> {
        let found = self.call(messages, id)?;
        self.last_call = Some(found);
        self.last_message = Some(found.0);
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
        self.last_message = None;
        self.last_call = None;
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
