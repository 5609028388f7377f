//! A thread's messages as a model provider accepts them: every tool call followed by its
//! result, every argument text JSON ([`provider_history`]); and which tool calls a
//! transcript leaves unanswered (what `ThreadState::unanswered_tool_calls` reports).

use std::borrow::Cow;
use std::fmt;

use crate::hash::HashMap;
use crate::model::id::ToolCallId;
use crate::model::message::{Message, ToolMessage};

/// The content of the tool message a model adapter sends a model for a tool call the
/// history holds no result for ([`provider_history`]).
///
/// A call is left without a result when the run that made it was cut (the connection
/// dropped, the server stopped) or failed while the call was streamed, or when it called a
/// frontend tool the user never answered. Providers refuse a history holding such a call
/// (OpenAI answers HTTP 400: an assistant message with `tool_calls` must be followed by
/// tool messages answering each of them), so every later run of the thread would fail; with
/// this result the model is told what happened instead.
pub const NO_TOOL_RESULT: &str = "No result arrived for this tool call: the run that made \
     it ended before the call was answered, so it may or may not have been carried out.";

/// A change [`provider_history`] made to a history so that a model provider accepts it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HistoryRepair {
    /// What was changed.
    pub kind: RepairKind,
    /// The index, in the history given, of the message concerned: the assistant message
    /// holding the call ([`RepairKind::NoResult`], [`RepairKind::InvalidArguments`]) or the
    /// tool message ([`RepairKind::ResultMoved`], [`RepairKind::ResultWithoutCall`]).
    pub message: usize,
    /// The position of the call in the assistant message's `toolCalls` (`None` for the
    /// repairs of a tool message).
    pub call: Option<usize>,
    /// The tool call concerned.
    pub tool_call_id: ToolCallId,
}

/// What [`provider_history`] changed (see [`HistoryRepair`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RepairKind {
    /// No tool message after the call answers it: a tool message whose content is
    /// [`NO_TOOL_RESULT`] is sent right after the call's assistant message (after the
    /// results the history holds for its other calls).
    NoResult,
    /// The call's arguments are not valid JSON (empty, or cut in the middle): the call is
    /// sent with the arguments `{}`.
    InvalidArguments,
    /// The tool message answers a call made earlier, but other messages than tool messages
    /// stand between them (a result given after the conversation went on): it is sent right
    /// after the call's assistant message, where providers require it.
    ResultMoved,
    /// The tool message answers no tool call made before it: it is left out (providers
    /// refuse a tool message that follows no call of its id).
    ResultWithoutCall,
}

impl RepairKind {
    /// A snake_case name for logs: `no_result`, `invalid_arguments`, `result_moved`,
    /// `result_without_call`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RepairKind::NoResult => "no_result",
            RepairKind::InvalidArguments => "invalid_arguments",
            RepairKind::ResultMoved => "result_moved",
            RepairKind::ResultWithoutCall => "result_without_call",
        }
    }
}

impl fmt::Display for RepairKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl HistoryRepair {
    /// The JSON Pointer of the call or message concerned in the message list given, e.g.
    /// `/3/toolCalls/0` (prefix it with `/messages` for a pointer into a `RunAgentInput`).
    #[must_use]
    pub fn pointer(&self) -> String {
        match self.call {
            Some(k) => format!("/{}/toolCalls/{k}", self.message),
            None => format!("/{}", self.message),
        }
    }
}

impl fmt::Display for HistoryRepair {
    /// One sentence naming the call, the message (by its index in the list given) and what
    /// was done.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (id, i) = (self.tool_call_id.as_str(), self.message);
        match self.kind {
            RepairKind::NoResult => write!(
                f,
                "tool call {id:?} of message {i} has no result: a tool message saying that no \
                 result arrived is sent after it"
            ),
            RepairKind::InvalidArguments => write!(
                f,
                "the arguments of tool call {id:?} of message {i} are not valid JSON: sent as {{}}"
            ),
            RepairKind::ResultMoved => write!(
                f,
                "message {i}, the result of tool call {id:?}, comes after other messages: sent \
                 right after its call"
            ),
            RepairKind::ResultWithoutCall => write!(
                f,
                "message {i}, a result of tool call {id:?}, answers no call before it: left out"
            ),
        }
    }
}

/// One message of a [`ProviderHistory`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProviderMessage<'a> {
    /// The message to send: the history's own (borrowed), a copy of it with its invalid
    /// arguments replaced by `{}`, or a tool message holding [`NO_TOOL_RESULT`].
    pub message: Cow<'a, Message>,
    /// The message's index in the history given; `None` for a tool message added for a
    /// call without a result.
    pub index: Option<usize>,
}

/// A history as a model provider accepts it, and what was changed to make it so (see
/// [`provider_history`]).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ProviderHistory<'a> {
    /// The messages to send, in order.
    pub messages: Vec<ProviderMessage<'a>>,
    /// What was changed, in the order of the history; empty when nothing was.
    pub repairs: Vec<HistoryRepair>,
}

/// The messages of a history as a model adapter sends them to a provider: each assistant
/// message holding tool calls is followed by a result for every one of its calls, and every
/// call's arguments are valid JSON.
///
/// Providers refuse a request whose history breaks these rules (OpenAI answers HTTP 400),
/// and a thread's history keeps what it holds: a run cut in the middle of a tool call, or a
/// frontend tool call the user never answered, would make every later run of the thread
/// fail. So, for the request only (the thread and the events are left as they are; a
/// producer never invents tool messages):
///
/// - a call no tool message after it answers gets a tool message whose content is
///   [`NO_TOOL_RESULT`] ([`RepairKind::NoResult`]);
/// - a call whose arguments are not valid JSON is sent with `{}`
///   ([`RepairKind::InvalidArguments`]);
/// - the tool messages answering a call are sent right after the call's assistant message,
///   in their order in the history, even when other messages came between them
///   ([`RepairKind::ResultMoved`]); the added results come after them, in call order;
/// - a tool message that answers no call made before it is left out
///   ([`RepairKind::ResultWithoutCall`]).
///
/// A tool message answers the call of its `toolCallId` in the latest assistant message
/// before it holding a call of that id. A history that already follows the rules comes
/// back as it is, every message borrowed, with no repairs. Costs O(messages + calls) plus
/// one JSON validation of each call's arguments.
///
/// ```
/// use ag_ui_core::{Message, NO_TOOL_RESULT, RepairKind, provider_history};
///
/// // A run cut while the model was streaming the arguments of a call, then a new question.
/// let history: Vec<Message> = serde_json::from_value(serde_json::json!([
///     {"id": "u1", "role": "user", "content": "Weather in Oslo?"},
///     {"id": "a1", "role": "assistant", "toolCalls": [{"id": "call_1", "type": "function",
///         "function": {"name": "get_weather", "arguments": "{\"city\":\"Os"}}]},
///     {"id": "u2", "role": "user", "content": "Hello?"}
/// ]))?;
/// let sent = provider_history(&history);
/// let messages: Vec<serde_json::Value> = sent.messages.iter()
///     .map(|m| serde_json::to_value(&*m.message))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(messages[1]["toolCalls"][0]["function"]["arguments"], "{}");
/// assert_eq!(messages[2]["role"], "tool");
/// assert_eq!(messages[2]["toolCallId"], "call_1");
/// assert_eq!(messages[2]["content"], NO_TOOL_RESULT);
/// assert_eq!(messages[3]["id"], "u2");
/// let kinds: Vec<RepairKind> = sent.repairs.iter().map(|r| r.kind).collect();
/// assert_eq!(kinds, [RepairKind::InvalidArguments, RepairKind::NoResult]);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[must_use]
pub fn provider_history(messages: &[Message]) -> ProviderHistory<'_> {
    let answers = Answers::of(messages);
    let mut out = Vec::with_capacity(messages.len());
    let mut repairs = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let assistant = match message {
            Message::Tool(t) => {
                // A tool message with an owner is sent with its call (below).
                if answers.owner[i].is_none() {
                    repairs.push(HistoryRepair {
                        kind: RepairKind::ResultWithoutCall,
                        message: i,
                        call: None,
                        tool_call_id: t.tool_call_id.clone(),
                    });
                }
                continue;
            }
            Message::Assistant(a) if a.tool_calls.as_ref().is_some_and(|c| !c.is_empty()) => a,
            _ => {
                out.push(ProviderMessage {
                    message: Cow::Borrowed(message),
                    index: Some(i),
                });
                continue;
            }
        };
        let calls = assistant.tool_calls.as_deref().unwrap_or_default();
        // The call itself, its arguments made JSON.
        let invalid: Vec<usize> = calls
            .iter()
            .enumerate()
            .filter(|(_, c)| !is_json(&c.function.arguments))
            .map(|(k, _)| k)
            .collect();
        let sent = if invalid.is_empty() {
            Cow::Borrowed(message)
        } else {
            let mut copy = assistant.clone();
            if let Some(copied) = copy.tool_calls.as_mut() {
                for &k in &invalid {
                    if let Some(call) = copied.get_mut(k) {
                        call.function.arguments = String::from("{}");
                    }
                }
            }
            Cow::Owned(Message::Assistant(copy))
        };
        out.push(ProviderMessage {
            message: sent,
            index: Some(i),
        });
        // Its results: those the history holds, then one for each call without any.
        let block_end = messages[i + 1..]
            .iter()
            .position(|m| !matches!(m, Message::Tool(_)))
            .map_or(messages.len(), |p| i + 1 + p);
        let results = answers.results_of(i);
        for &j in results {
            let Message::Tool(t) = &messages[j] else {
                continue;
            };
            if j >= block_end {
                repairs.push(HistoryRepair {
                    kind: RepairKind::ResultMoved,
                    message: j,
                    call: None,
                    tool_call_id: t.tool_call_id.clone(),
                });
            }
            out.push(ProviderMessage {
                message: Cow::Borrowed(&messages[j]),
                index: Some(j),
            });
        }
        let mut added: Vec<&str> = Vec::new();
        for (k, call) in calls.iter().enumerate() {
            let id = call.id.as_str();
            if invalid.contains(&k) {
                repairs.push(HistoryRepair {
                    kind: RepairKind::InvalidArguments,
                    message: i,
                    call: Some(k),
                    tool_call_id: call.id.clone(),
                });
            }
            if answers.answered(messages, i, id) || added.contains(&id) {
                continue;
            }
            added.push(id);
            repairs.push(HistoryRepair {
                kind: RepairKind::NoResult,
                message: i,
                call: Some(k),
                tool_call_id: call.id.clone(),
            });
            out.push(ProviderMessage {
                message: Cow::Owned(Message::Tool(ToolMessage::new(
                    format!("{id}-no-result"),
                    NO_TOOL_RESULT,
                    call.id.clone(),
                ))),
                index: None,
            });
        }
    }
    // The repairs in the order of the history.
    repairs.sort_by_key(|r| (r.message, r.call));
    ProviderHistory {
        messages: out,
        repairs,
    }
}

/// Whether `text` is one JSON document.
fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// Which tool message answers which assistant message.
pub(super) struct Answers {
    /// For each message: for a tool message, the index of the latest assistant message
    /// before it holding a call of its `toolCallId` (`None`: it answers no call); `None`
    /// for the other roles.
    owner: Vec<Option<usize>>,
    /// The tool messages answering each assistant message's calls, as (assistant index,
    /// tool message index), sorted.
    results: Vec<(usize, usize)>,
}

impl Answers {
    pub(super) fn of(messages: &[Message]) -> Self {
        let mut latest: HashMap<&str, usize> = HashMap::default();
        let mut owner = vec![None; messages.len()];
        let mut results = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            match m {
                Message::Assistant(a) => {
                    for call in a.tool_calls.iter().flatten() {
                        latest.insert(call.id.as_str(), i);
                    }
                }
                Message::Tool(t) => {
                    if let Some(&a) = latest.get(t.tool_call_id.as_str()) {
                        owner[i] = Some(a);
                        results.push((a, i));
                    }
                }
                _ => {}
            }
        }
        results.sort_unstable();
        Answers { owner, results }
    }

    /// The tool messages answering the calls of assistant message `i`, in order.
    fn results_of(&self, i: usize) -> impl Iterator<Item = &usize> {
        let start = self.results.partition_point(|&(a, _)| a < i);
        self.results[start..]
            .iter()
            .take_while(move |&&(a, _)| a == i)
            .map(|(_, j)| j)
    }

    /// Whether a tool message answers call `id` of assistant message `i`.
    pub(super) fn answered(&self, messages: &[Message], i: usize, id: &str) -> bool {
        self.results_of(i)
            .any(|&j| matches!(&messages[j], Message::Tool(t) if t.tool_call_id.as_str() == id))
    }
}
