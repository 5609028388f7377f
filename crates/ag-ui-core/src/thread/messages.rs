//! Text, reasoning and activity messages, encrypted values and `MESSAGES_SNAPSHOT`.

use serde_json::Value;

use super::{
    Index, ThreadState, merge_metadata, merge_metadata_ref, missing_message, role_mismatch,
};
use crate::codec::read::{Warning, WarningKind};
use crate::model::content::{Content, ContentPart};
use crate::model::event::{
    ActivityDeltaEvent, ActivitySnapshotEvent, ReasoningEncryptedValueEvent,
    ReasoningEncryptedValueSubtype, ReasoningMessageContentEvent, ReasoningMessageEndEvent,
    ReasoningMessageStartEvent, TextMessageContentEvent, TextMessageEndEvent,
    TextMessageStartEvent,
};
use crate::model::message::{
    ActivityMessage, AssistantMessage, DeveloperMessage, Message, ReasoningMessage, Role,
    SystemMessage, TextMessageRole, UserMessage,
};
use crate::model::metadata::Metadata;

impl ThreadState {
    /// Appends `m` to the transcript.
    pub(super) fn push_message(&mut self, m: Message) -> usize {
        let pos = self.messages.len();
        self.index.pushed(&m, pos);
        self.messages.push(m);
        pos
    }

    pub(super) fn text_start(&mut self, e: TextMessageStartEvent, w: &mut Vec<Warning>) {
        let role = e.role();
        if let Some(p) = self.index.find(&self.messages, e.message_id.as_str()) {
            // A START for an existing id reuses the message (a tool call may have created
            // it): it keeps its role, content and name (the official client sets the name
            // only when it creates the message); the metadata merges.
            let m = &mut self.messages[p];
            let Some(metadata) = text_metadata(m) else {
                w.push(role_mismatch(
                    "/messageId",
                    e.message_id.as_str(),
                    m.role(),
                    "not a text role; TEXT_MESSAGE_START skipped",
                ));
                return;
            };
            merge_metadata(metadata, e.metadata);
            return;
        }
        let id = e.message_id;
        let metadata = e.metadata.filter(|m| !m.is_empty()).map(|m| *m);
        let owner = e.subagent_run_id;
        let m = match role {
            TextMessageRole::Developer => {
                let mut m = DeveloperMessage::new(id, "");
                (m.name, m.metadata, m.subagent_run_id) = (e.name, metadata, owner);
                Message::Developer(m)
            }
            TextMessageRole::System => {
                let mut m = SystemMessage::new(id, "");
                (m.name, m.metadata, m.subagent_run_id) = (e.name, metadata, owner);
                Message::System(m)
            }
            TextMessageRole::Assistant => {
                let mut m = AssistantMessage::new(id).with_content("");
                (m.name, m.metadata, m.subagent_run_id) = (e.name, metadata, owner);
                Message::Assistant(m)
            }
            TextMessageRole::User => {
                let mut m = UserMessage::new(id, Content::Text(String::new()));
                (m.name, m.metadata, m.subagent_run_id) = (e.name, metadata, owner);
                Message::User(m)
            }
        };
        self.push_message(m);
    }

    pub(super) fn text_content(&mut self, e: &TextMessageContentEvent, w: &mut Vec<Warning>) {
        self.append_text(
            e.message_id.as_str(),
            e.delta.as_str(),
            e.metadata.as_deref(),
            w,
        );
    }

    /// `TEXT_MESSAGE_CONTENT` (spec §9.4), given by its members.
    pub(super) fn append_text(
        &mut self,
        message_id: &str,
        delta: &str,
        metadata: Option<&crate::Metadata>,
        w: &mut Vec<Warning>,
    ) {
        let Some(p) = self.index.find(&self.messages, message_id) else {
            w.push(missing_message("/messageId", message_id));
            return;
        };
        match &mut self.messages[p] {
            Message::Developer(m) => {
                m.content.push_str(delta);
                merge_metadata_ref(&mut m.metadata, metadata);
            }
            Message::System(m) => {
                m.content.push_str(delta);
                merge_metadata_ref(&mut m.metadata, metadata);
            }
            Message::Assistant(m) => {
                m.content.get_or_insert_default().push_str(delta);
                merge_metadata_ref(&mut m.metadata, metadata);
            }
            Message::User(m) => {
                append_to_content(&mut m.content, delta);
                merge_metadata_ref(&mut m.metadata, metadata);
            }
            other => w.push(role_mismatch(
                "/messageId",
                message_id,
                other.role(),
                "not a text role; TEXT_MESSAGE_CONTENT skipped",
            )),
        }
    }

    pub(super) fn text_end(&mut self, e: TextMessageEndEvent, w: &mut Vec<Warning>) {
        let Some(p) = self.index.find(&self.messages, e.message_id.as_str()) else {
            w.push(missing_message("/messageId", e.message_id.as_str()));
            return;
        };
        let m = &mut self.messages[p];
        match text_metadata(m) {
            Some(metadata) => merge_metadata(metadata, e.metadata),
            None => w.push(role_mismatch(
                "/messageId",
                e.message_id.as_str(),
                m.role(),
                "not a text role; TEXT_MESSAGE_END skipped",
            )),
        }
    }

    pub(super) fn reasoning_start(&mut self, e: ReasoningMessageStartEvent, w: &mut Vec<Warning>) {
        match self.index.find(&self.messages, e.message_id.as_str()) {
            Some(p) => match &mut self.messages[p] {
                Message::Reasoning(m) => merge_metadata(&mut m.metadata, e.metadata),
                other => w.push(role_mismatch(
                    "/messageId",
                    e.message_id.as_str(),
                    other.role(),
                    "not reasoning; REASONING_MESSAGE_START skipped",
                )),
            },
            None => {
                let mut m = ReasoningMessage::new(e.message_id, "");
                m.subagent_run_id = e.subagent_run_id;
                merge_metadata(&mut m.metadata, e.metadata);
                self.push_message(Message::Reasoning(m));
            }
        }
    }

    pub(super) fn reasoning_content(
        &mut self,
        e: &ReasoningMessageContentEvent,
        w: &mut Vec<Warning>,
    ) {
        self.append_reasoning(e.message_id.as_str(), &e.delta, e.metadata.as_deref(), w);
    }

    /// `REASONING_MESSAGE_CONTENT` (spec §9.4), given by its members.
    pub(super) fn append_reasoning(
        &mut self,
        message_id: &str,
        delta: &str,
        metadata: Option<&crate::Metadata>,
        w: &mut Vec<Warning>,
    ) {
        let Some(p) = self.index.find(&self.messages, message_id) else {
            w.push(missing_message("/messageId", message_id));
            return;
        };
        match &mut self.messages[p] {
            Message::Reasoning(m) => {
                m.content.push_str(delta);
                merge_metadata_ref(&mut m.metadata, metadata);
            }
            other => w.push(role_mismatch(
                "/messageId",
                message_id,
                other.role(),
                "not reasoning; REASONING_MESSAGE_CONTENT skipped",
            )),
        }
    }

    pub(super) fn reasoning_end(&mut self, e: ReasoningMessageEndEvent, w: &mut Vec<Warning>) {
        let Some(p) = self.index.find(&self.messages, e.message_id.as_str()) else {
            w.push(missing_message("/messageId", e.message_id.as_str()));
            return;
        };
        match &mut self.messages[p] {
            Message::Reasoning(m) => merge_metadata(&mut m.metadata, e.metadata),
            other => w.push(role_mismatch(
                "/messageId",
                e.message_id.as_str(),
                other.role(),
                "not reasoning; REASONING_MESSAGE_END skipped",
            )),
        }
    }

    pub(super) fn encrypted_value(
        &mut self,
        e: ReasoningEncryptedValueEvent,
        w: &mut Vec<Warning>,
    ) {
        let id = e.entity_id.as_str();
        match e.subtype {
            ReasoningEncryptedValueSubtype::ToolCall => match self.tool_call_mut(id) {
                Some(call) => {
                    // The value and its type are replaced together: a stale type never
                    // labels newer bytes (AG-UI 1.1).
                    call.encrypted_value = Some(e.encrypted_value);
                    call.encrypted_value_type = e.encrypted_value_type;
                }
                None => w.push(
                    Warning::new(WarningKind::MissingToolCall, "/entityId").with_detail(format!(
                        "the thread holds no tool call with id {id:?}; encrypted value dropped"
                    )),
                ),
            },
            ReasoningEncryptedValueSubtype::Message => {
                let Some(p) = self.index.find(&self.messages, id) else {
                    w.push(missing_message("/entityId", id));
                    return;
                };
                let (value, kind) = match &mut self.messages[p] {
                    Message::Developer(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::System(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::Assistant(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::User(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::Tool(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::Reasoning(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::Activity(_) => {
                        w.push(role_mismatch(
                            "/entityId",
                            id,
                            Role::Activity,
                            "which never stores an encrypted value (spec §9.4); dropped",
                        ));
                        return;
                    }
                };
                *value = Some(e.encrypted_value);
                *kind = e.encrypted_value_type;
            }
        }
    }

    pub(super) fn activity_snapshot(&mut self, e: ActivitySnapshotEvent, w: &mut Vec<Warning>) {
        let replace = e.replace();
        match self.index.find(&self.messages, e.message_id.as_str()) {
            None => {
                let mut m = ActivityMessage::new(e.message_id, e.activity_type, e.content);
                m.subagent_run_id = e.subagent_run_id;
                merge_metadata(&mut m.metadata, e.metadata);
                self.push_message(Message::Activity(m));
            }
            Some(p) => match &mut self.messages[p] {
                Message::Activity(m) => {
                    // `replace: false` leaves an existing activity as it is (spec §9.4);
                    // replacing keeps the metadata accumulated so far.
                    if replace {
                        m.activity_type = e.activity_type;
                        m.content = e.content;
                        m.subagent_run_id = e.subagent_run_id;
                        merge_metadata(&mut m.metadata, e.metadata);
                    }
                }
                other => w.push(role_mismatch(
                    "/messageId",
                    e.message_id.as_str(),
                    other.role(),
                    "not activity; ACTIVITY_SNAPSHOT skipped",
                )),
            },
        }
    }

    pub(super) fn activity_delta(&mut self, e: ActivityDeltaEvent, w: &mut Vec<Warning>) {
        let Some(p) = self.index.find(&self.messages, e.message_id.as_str()) else {
            w.push(missing_message("/messageId", e.message_id.as_str()));
            return;
        };
        let m = match &mut self.messages[p] {
            Message::Activity(m) => m,
            other => {
                w.push(role_mismatch(
                    "/messageId",
                    e.message_id.as_str(),
                    other.role(),
                    "not activity; ACTIVITY_DELTA skipped",
                ));
                return;
            }
        };
        let failed =
            |detail: String| Warning::new(WarningKind::PatchFailed, "/patch").with_detail(detail);
        if e.patch.iter().any(|op| op.path().as_str().is_empty()) {
            // An operation on the whole content may leave something other than an object:
            // only this rare case is tried on a copy.
            let mut doc = Value::Object(m.content.clone());
            match e.patch.apply_owned(&mut doc) {
                Ok(()) => match doc {
                    Value::Object(map) => m.content = map,
                    _ => {
                        w.push(failed(
                            "activity content kept: the patch would make it something other than a JSON object".to_owned(),
                        ));
                        return;
                    }
                },
                Err(err) => {
                    w.push(
                        failed(format!("activity content kept: {err}"))
                            .with_pointer_index(err.index),
                    );
                    return;
                }
            }
        } else {
            let mut doc = Value::Object(std::mem::take(&mut m.content));
            let result = e.patch.apply_owned(&mut doc);
            if let Value::Object(map) = doc {
                m.content = map;
            }
            if let Err(err) = result {
                w.push(
                    failed(format!("activity content kept: {err}")).with_pointer_index(err.index),
                );
                return;
            }
        }
        merge_metadata(&mut m.metadata, e.metadata);
    }

    /// `MESSAGES_SNAPSHOT` (spec §9.4): snapshot messages replace local ones with the same
    /// id in place; other local messages are removed, except activity and reasoning
    /// messages when the snapshot holds none of that role; new ids are appended in
    /// snapshot order.
    pub(super) fn messages_snapshot(&mut self, snapshot: Vec<Message>) {
        let has = |role: Role| snapshot.iter().any(|m| m.role() == role);
        let (keep_activity, keep_reasoning) = (!has(Role::Activity), !has(Role::Reasoning));
        let mut by_id: crate::hash::HashMap<String, usize> =
            crate::hash::map_with_capacity(snapshot.len());
        for (i, m) in snapshot.iter().enumerate() {
            by_id.entry(m.id().as_str().to_owned()).or_insert(i);
        }
        let mut slots: Vec<Option<Message>> = snapshot.into_iter().map(Some).collect();
        let old = std::mem::take(&mut self.messages);
        let mut out = Vec::with_capacity(slots.len() + old.len());
        for m in old {
            if let Some(&i) = by_id.get(m.id().as_str())
                && let Some(replacement) = slots[i].take()
            {
                out.push(replacement);
            } else if (keep_activity && m.role() == Role::Activity)
                || (keep_reasoning && m.role() == Role::Reasoning)
            {
                out.push(m);
            }
        }
        out.extend(slots.into_iter().flatten());
        self.index = Index::build(&out);
        self.messages = out;
    }
}

trait WithPointerIndex {
    fn with_pointer_index(self, index: usize) -> Self;
}

impl WithPointerIndex for Warning {
    fn with_pointer_index(mut self, index: usize) -> Self {
        self.pointer = format!("{}/{index}", self.pointer);
        self
    }
}

/// The metadata slot of a text-role message (`None` for other roles).
fn text_metadata(m: &mut Message) -> Option<&mut Option<Metadata>> {
    match m {
        Message::Developer(m) => Some(&mut m.metadata),
        Message::System(m) => Some(&mut m.metadata),
        Message::Assistant(m) => Some(&mut m.metadata),
        Message::User(m) => Some(&mut m.metadata),
        _ => None,
    }
}

/// Appends streamed text to user content: to the string, or to the last part when it is
/// text (a new text part otherwise), so that multimodal parts are never flattened.
fn append_to_content(content: &mut Content, delta: &str) {
    match content {
        Content::Text(s) => s.push_str(delta),
        Content::Parts(parts) => match parts.last_mut() {
            Some(ContentPart::Text(t)) => t.text.push_str(delta),
            _ => parts.push(ContentPart::text(delta)),
        },
    }
}
