//! Tool calls (attached to their assistant message) and tool results.

use super::history::Answers;
use super::{ThreadState, merge_metadata, merge_metadata_ref, role_mismatch};
use crate::codec::read::{Warning, WarningKind};
use crate::model::event::{
    ToolCallArgsEvent, ToolCallEndEvent, ToolCallResultEvent, ToolCallStartEvent,
};
use crate::model::message::{AssistantMessage, Message, Role, ToolMessage};
use crate::model::tool::ToolCall;

impl ThreadState {
    pub(super) fn tool_call_mut(&mut self, id: &str) -> Option<&mut ToolCall> {
        let (p, k) = self.index.find_call(&self.messages, id)?;
        match &mut self.messages[p] {
            Message::Assistant(a) => a.tool_calls.as_mut()?.get_mut(k),
            _ => None,
        }
    }

    /// `TOOL_CALL_START` (spec §9.4): idempotent for a known call id; otherwise the call
    /// joins the assistant message named by `parentMessageId` (created with that id when
    /// missing; a new assistant message keyed by the call id when that id is another role's),
    /// or, with no parent, a new assistant message whose id is the call id.
    pub(super) fn tool_call_start(&mut self, e: ToolCallStartEvent, w: &mut Vec<Warning>) {
        let call_id = e.tool_call_id.as_str().to_owned();
        if !self.run_calls.contains(&call_id) {
            self.run_calls.insert(call_id.clone());
        }
        if let Some(call) = self.tool_call_mut(&call_id) {
            if call.function.name != e.tool_call_name {
                w.push(
                    Warning::new(WarningKind::ToolCallRenamed, "/toolCallName").with_detail(
                        format!(
                            "tool call {call_id:?} was {:?}, now {:?}",
                            call.function.name, e.tool_call_name
                        ),
                    ),
                );
                call.function.name = e.tool_call_name;
            }
            merge_metadata(&mut call.metadata, e.metadata);
            return;
        }
        let mut call = ToolCall::function(e.tool_call_id, e.tool_call_name, "");
        merge_metadata(&mut call.metadata, e.metadata);
        let mut owner_id = call_id.clone();
        if let Some(parent) = &e.parent_message_id {
            match self.index.find(&self.messages, parent.as_str()) {
                Some(p) if self.messages[p].role() == Role::Assistant => {
                    owner_id = parent.as_str().to_owned();
                }
                Some(p) => w.push(role_mismatch(
                    "/parentMessageId",
                    parent.as_str(),
                    self.messages[p].role(),
                    "not assistant; the call goes to a new assistant message keyed by the call id",
                )),
                None => owner_id = parent.as_str().to_owned(),
            }
        }
        match self.index.find(&self.messages, &owner_id) {
            Some(p) => {
                let Message::Assistant(a) = &mut self.messages[p] else {
                    let role = self.messages[p].role();
                    w.push(role_mismatch(
                        "/toolCallId",
                        &owner_id,
                        role,
                        "so no assistant message can be keyed by the call id; TOOL_CALL_START skipped",
                    ));
                    return;
                };
                let calls = a.tool_calls.get_or_insert_default();
                calls.push(call);
                let k = calls.len() - 1;
                self.index.call_added(&call_id, &owner_id, k);
            }
            None => {
                let mut a = AssistantMessage::new(owner_id.clone()).with_tool_calls(vec![call]);
                a.subagent_run_id = e.subagent_run_id;
                self.push_message(Message::Assistant(a));
                self.index.call_added(&call_id, &owner_id, 0);
            }
        }
    }

    pub(super) fn tool_call_args(&mut self, e: &ToolCallArgsEvent, w: &mut Vec<Warning>) {
        self.append_args(e.tool_call_id.as_str(), &e.delta, e.metadata.as_deref(), w);
    }

    /// `TOOL_CALL_ARGS` (spec §9.4), given by its members.
    pub(super) fn append_args(
        &mut self,
        tool_call_id: &str,
        delta: &str,
        metadata: Option<&crate::Metadata>,
        w: &mut Vec<Warning>,
    ) {
        match self.tool_call_mut(tool_call_id) {
            Some(call) => {
                call.function.arguments.push_str(delta);
                merge_metadata_ref(&mut call.metadata, metadata);
            }
            None => w.push(missing_call(tool_call_id)),
        }
    }

    pub(super) fn tool_call_end(&mut self, e: ToolCallEndEvent, w: &mut Vec<Warning>) {
        match self.tool_call_mut(e.tool_call_id.as_str()) {
            Some(call) => merge_metadata(&mut call.metadata, e.metadata),
            None => w.push(missing_call(e.tool_call_id.as_str())),
        }
    }

    /// `TOOL_CALL_RESULT` (spec §9.4): a tool message with the content as sent, placed right
    /// after the assistant message owning the call and the tool messages already following
    /// it, or at the end when no message owns the call. A result for an existing tool
    /// message id replaces it where it is.
    pub(super) fn tool_call_result(&mut self, e: ToolCallResultEvent, w: &mut Vec<Warning>) {
        let mut m = ToolMessage::new(e.message_id, e.content, e.tool_call_id);
        m.subagent_run_id = e.subagent_run_id;
        merge_metadata(&mut m.metadata, e.metadata);
        if let Some(p) = self.index.find(&self.messages, m.id.as_str()) {
            match &mut self.messages[p] {
                Message::Tool(old) => {
                    if m.metadata.is_none() {
                        m.metadata = old.metadata.take();
                    } else if let Some(prev) = old.metadata.take() {
                        let mut merged = prev;
                        merged
                            .0
                            .extend(m.metadata.take().map(|x| x.0).unwrap_or_default());
                        m.metadata = Some(merged);
                    }
                    *old = m;
                }
                other => w.push(role_mismatch(
                    "/messageId",
                    m.id.as_str(),
                    other.role(),
                    "not tool; TOOL_CALL_RESULT skipped",
                )),
            }
            return;
        }
        let Some((owner, _)) = self
            .index
            .find_call(&self.messages, m.tool_call_id.as_str())
        else {
            self.push_message(Message::Tool(m));
            return;
        };
        let mut at = owner + 1;
        while at < self.messages.len() && self.messages[at].role() == Role::Tool {
            at += 1;
        }
        self.messages.insert(at, Message::Tool(m));
        self.index.inserted(&self.messages, at);
    }
}

impl ThreadState {
    /// The tool calls the last run started (`TOOL_CALL_START` since the last
    /// `RUN_STARTED`) that no tool message after them answers, in the order of the
    /// transcript.
    ///
    /// These are the calls of a run that was cut or failed while a call was streamed or
    /// run, and the frontend tool calls the run ended on (`RUN_FINISHED` with
    /// `pendingToolCallIds`) that were not answered yet. A UI can offer to answer them: a
    /// tool message answering one ([`ThreadState::add_message`], or the client's
    /// `add_message`) takes it off the list. A call's arguments are as they arrived, so
    /// possibly empty or cut. While a run is going on, its calls whose results are still to
    /// come are listed too.
    ///
    /// A call left unanswered does not make the next run fail with the model adapters of
    /// this workspace: they send the model [`NO_TOOL_RESULT`](crate::NO_TOOL_RESULT) as its result (see
    /// [`provider_history`](crate::provider_history)). Costs O(messages + calls).
    #[must_use]
    pub fn unanswered_tool_calls(&self) -> Vec<&crate::ToolCall> {
        if self.run_calls.is_empty() {
            return Vec::new();
        }
        let mut wanted: crate::hash::HashSet<&str> = crate::hash::HashSet::default();
        wanted.extend(self.run_calls.iter().map(String::as_str));
        let answers = Answers::of(&self.messages);
        let mut unanswered = Vec::new();
        for (i, m) in self.messages.iter().enumerate() {
            let Message::Assistant(a) = m else { continue };
            for call in a.tool_calls.iter().flatten() {
                let id = call.id.as_str();
                // Each call once (a transcript may repeat an id).
                if wanted.contains(id) && !answers.answered(&self.messages, i, id) {
                    wanted.remove(id);
                    unanswered.push(call);
                }
            }
        }
        unanswered
    }
}

fn missing_call(id: &str) -> Warning {
    Warning::new(WarningKind::MissingToolCall, "/toolCallId").with_detail(format!(
        "the thread holds no tool call with id {id:?}; skipped"
    ))
}
