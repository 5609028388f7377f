//! The threads API's records and queries: a thread's summary, its runs, a list page, a
//! list query (as a query string) and a change to a thread (as JSON).

use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Event, Message, RunFinishedOutcome, TokenUsage};

use super::time;

/// Whether a run is still producing events: `"running"` or `"ended"` in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum RunPhase {
    /// The run's agent is running; its log may grow.
    Running,
    /// The run's log holds its terminal event; nothing more is appended.
    Ended,
}

impl RunPhase {
    /// The phase's word in JSON and in a store's column: `running`, `ended`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RunPhase::Running => "running",
            RunPhase::Ended => "ended",
        }
    }

    /// The phase named `word` (see [`as_str`](Self::as_str)).
    #[must_use]
    pub fn from_word(word: &str) -> Option<Self> {
        [RunPhase::Running, RunPhase::Ended]
            .into_iter()
            .find(|p| p.as_str() == word)
    }
}

/// How a run ended, as a thread's run record tells it: `"success"`, `"interrupt"`,
/// `"cancelled"` or `"error"` in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum RunEndKind {
    /// `RUN_FINISHED` with a success outcome (or none).
    Success,
    /// `RUN_FINISHED` paused on interrupts.
    Interrupt,
    /// `RUN_FINISHED` with a cancelled outcome.
    Cancelled,
    /// `RUN_ERROR`, or a run that never ended (its instance stopped).
    Error,
}

impl RunEndKind {
    /// Every outcome, in declaration order.
    pub const ALL: [RunEndKind; 4] = [
        RunEndKind::Success,
        RunEndKind::Interrupt,
        RunEndKind::Cancelled,
        RunEndKind::Error,
    ];

    /// The outcome's word in JSON and in a store's column: `success`, `interrupt`,
    /// `cancelled`, `error`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RunEndKind::Success => "success",
            RunEndKind::Interrupt => "interrupt",
            RunEndKind::Cancelled => "cancelled",
            RunEndKind::Error => "error",
        }
    }

    /// The outcome named `word` (see [`as_str`](Self::as_str)).
    #[must_use]
    pub fn from_word(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.as_str() == word)
    }

    /// The outcome of a run that ended with `event`, its terminal event (`None` for any
    /// other event).
    #[must_use]
    pub fn of_terminal(event: &Event) -> Option<Self> {
        match event {
            Event::RunError(_) => Some(RunEndKind::Error),
            Event::RunFinished(e) => Some(match &e.outcome {
                Some(RunFinishedOutcome::Interrupt(_)) => RunEndKind::Interrupt,
                Some(RunFinishedOutcome::Cancelled(_)) => RunEndKind::Cancelled,
                _ => RunEndKind::Success,
            }),
            _ => None,
        }
    }
}

/// A thread's last run, as a summary shows it: `{"runId", "status", "outcome"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunSummary {
    /// The run's id.
    pub run_id: String,
    /// Running or ended.
    pub status: RunPhase,
    /// How it ended; `None` (`null`) while it runs.
    pub outcome: Option<RunEndKind>,
}

impl RunSummary {
    /// A run summary.
    #[must_use]
    pub fn new(run_id: impl Into<String>, status: RunPhase, outcome: Option<RunEndKind>) -> Self {
        RunSummary {
            run_id: run_id.into(),
            status,
            outcome,
        }
    }
}

/// What a thread list shows of a thread: `{"threadId", "title", "metadata", "createdAt",
/// "updatedAt", "archived", "runCount", "lastRun"}`, times in RFC 3339 (UTC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ThreadSummary {
    /// The thread's id (unique per owner: two principals may each have a thread of the
    /// same id, and neither sees the other's).
    pub thread_id: String,
    /// Its title, when one was given (`null` otherwise).
    pub title: Option<String>,
    /// Its metadata (an object; `{}` when none was given).
    pub metadata: Map<String, Value>,
    /// When its first run started.
    #[serde(with = "time::rfc3339")]
    pub created_at: SystemTime,
    /// When it last changed (a run started, checkpointed or ended; an update).
    #[serde(with = "time::rfc3339")]
    pub updated_at: SystemTime,
    /// Whether it is archived.
    pub archived: bool,
    /// How many runs it has had.
    pub run_count: u64,
    /// Its latest run (by start); `null` before any.
    pub last_run: Option<RunSummary>,
}

impl ThreadSummary {
    /// A thread created at `created_at` and not changed since: no title, metadata `{}`,
    /// not archived, no runs. A store sets the other fields (they are public).
    #[must_use]
    pub fn new(thread_id: impl Into<String>, created_at: SystemTime) -> Self {
        ThreadSummary {
            thread_id: thread_id.into(),
            title: None,
            metadata: Map::new(),
            created_at,
            updated_at: created_at,
            archived: false,
            run_count: 0,
            last_run: None,
        }
    }
}

/// What a thread keeps of one of its runs: `{"runId", "status", "outcome", "startedAt",
/// "endedAt", "usage", "errorCode", "rolledBack", "traceId", "inputMessages"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunRecord {
    /// The run's id.
    pub run_id: String,
    /// Running or ended.
    pub status: RunPhase,
    /// How it ended; `None` (`null`) while it runs.
    pub outcome: Option<RunEndKind>,
    /// When it started.
    #[serde(with = "time::rfc3339")]
    pub started_at: SystemTime,
    /// When it ended (`null` while it runs).
    #[serde(with = "time::rfc3339_option")]
    pub ended_at: Option<SystemTime>,
    /// The usage its terminal event reported: the event's `usage` array in JSON, `null`
    /// when it reported none.
    #[serde(with = "usage")]
    pub usage: Vec<TokenUsage>,
    /// The `code` of its `RUN_ERROR` (or of a run lost with its instance).
    pub error_code: Option<String>,
    /// Whether what it added to the thread was taken back (the `rollback` multitask
    /// policy cancelled it for a newer run): the thread is as it was before this run.
    #[serde(default)]
    pub rolled_back: bool,
    /// The W3C trace id (32 lower-case hex digits) of the request that started it: the
    /// caller's `traceparent` continued, or the trace the server began; `null` when the
    /// run was started without one.
    #[serde(default)]
    pub trace_id: Option<String>,
    /// The messages its input brought that the thread did not have before it.
    #[serde(default)]
    pub input_messages: Vec<Message>,
}

impl RunRecord {
    /// A run started at `started_at` and running: no outcome, end, usage, error code or
    /// input messages. A store sets the other fields (they are public).
    #[must_use]
    pub fn new(run_id: impl Into<String>, started_at: SystemTime) -> Self {
        RunRecord {
            run_id: run_id.into(),
            status: RunPhase::Running,
            outcome: None,
            started_at,
            ended_at: None,
            usage: Vec::new(),
            error_code: None,
            rolled_back: false,
            trace_id: None,
            input_messages: Vec::new(),
        }
    }
}

/// A whole thread as `GET {agent}/threads/{threadId}` answers it in JSON: the summary's
/// fields, then `"messages"`, `"state"` and `"runs"` (oldest first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ThreadDetail {
    /// The summary (its fields at the top level of the JSON object).
    #[serde(flatten)]
    pub summary: ThreadSummary,
    /// The conversation's messages.
    pub messages: Vec<Message>,
    /// The thread's state (`{}` before any was given).
    pub state: Value,
    /// Its runs, oldest first.
    pub runs: Vec<RunRecord>,
}

impl ThreadDetail {
    /// A thread's detail.
    #[must_use]
    pub fn new(
        summary: ThreadSummary,
        messages: Vec<Message>,
        state: Value,
        runs: Vec<RunRecord>,
    ) -> Self {
        ThreadDetail {
            summary,
            messages,
            state,
            runs,
        }
    }
}

/// Which threads a list shows by their archived flag: `archived=false` (the default),
/// `true` or `any` in a query string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Archived {
    /// Threads not archived (the default).
    #[default]
    Exclude,
    /// Archived threads only.
    Only,
    /// Both.
    Any,
}

impl Archived {
    /// The word a query string gives it: `false`, `true`, `any`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Archived::Exclude => "false",
            Archived::Only => "true",
            Archived::Any => "any",
        }
    }

    /// Whether a thread whose archived flag is `archived` is listed.
    #[must_use]
    pub fn admits(self, archived: bool) -> bool {
        match self {
            Archived::Exclude => !archived,
            Archived::Only => archived,
            Archived::Any => true,
        }
    }

    /// The choice named `word` (see [`as_str`](Self::as_str)).
    #[must_use]
    pub fn from_word(word: &str) -> Option<Self> {
        [Archived::Exclude, Archived::Only, Archived::Any]
            .into_iter()
            .find(|a| a.as_str() == word)
    }
}

/// Most threads one list page holds.
pub const MAX_LIST_LIMIT: usize = 100;
/// Threads per list page when the query names no limit.
pub const DEFAULT_LIST_LIMIT: usize = 20;
/// The query-string prefix of a metadata filter: `metadata.KEY=VALUE`.
pub const METADATA_FILTER_PREFIX: &str = "metadata.";

/// A bad parameter of a threads API request: which one, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{parameter}: {message}")]
#[non_exhaustive]
pub struct InvalidParameter {
    /// The parameter (`limit`, `cursor`, `archived`, `metadata.KEY`, or a JSON path such
    /// as `$.title`).
    pub parameter: String,
    /// What is wrong with it.
    pub message: String,
}

impl InvalidParameter {
    /// A bad `parameter`.
    #[must_use]
    pub fn new(parameter: impl Into<String>, message: impl Into<String>) -> Self {
        InvalidParameter {
            parameter: parameter.into(),
            message: message.into(),
        }
    }
}

/// A thread list query: one owner's threads, most recently updated first.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ThreadQuery {
    /// Threads per page, 1..=[`MAX_LIST_LIMIT`].
    pub limit: usize,
    /// Where the page starts: the previous page's [`ThreadPage::next_cursor`].
    pub cursor: Option<String>,
    /// Which threads by their archived flag.
    pub archived: Archived,
    /// Metadata filters: each `(key, value)` keeps the threads whose metadata has the
    /// string `value` at `key`; several combine with AND.
    pub metadata: Vec<(String, String)>,
}

impl Default for ThreadQuery {
    fn default() -> Self {
        ThreadQuery {
            limit: DEFAULT_LIST_LIMIT,
            cursor: None,
            archived: Archived::Exclude,
            metadata: Vec::new(),
        }
    }
}

impl ThreadQuery {
    /// The first page of non-archived threads, [`DEFAULT_LIST_LIMIT`] to a page.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the page size (clamped to 1..=[`MAX_LIST_LIMIT`]).
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit.clamp(1, MAX_LIST_LIMIT);
        self
    }

    /// Starts after the page whose [`ThreadPage::next_cursor`] this is.
    #[must_use]
    pub fn cursor(mut self, cursor: impl Into<String>) -> Self {
        self.cursor = Some(cursor.into());
        self
    }

    /// Which threads by their archived flag.
    #[must_use]
    pub fn archived(mut self, archived: Archived) -> Self {
        self.archived = archived;
        self
    }

    /// Keeps only the threads whose metadata has the string `value` at `key`.
    #[must_use]
    pub fn metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.push((key.into(), value.into()));
        self
    }

    /// Reads a list request's query string (without the `?`): `limit` (1..=100),
    /// `cursor` (not empty), `archived` (`false`, `true`, `any`) and any number of
    /// `metadata.KEY=VALUE`; other parameters are not the list's and are left alone.
    ///
    /// # Errors
    /// The first bad parameter: a `limit` that is no integer in 1..=100, an empty
    /// `cursor`, an `archived` that is none of the three words, a parameter given twice,
    /// a `metadata.` filter without a key.
    pub fn from_query(query: &str) -> Result<Self, InvalidParameter> {
        let mut q = ThreadQuery::new();
        let mut seen = [false; 3];
        let mut once = |i: usize, name: &str| {
            if std::mem::replace(&mut seen[i], true) {
                Err(InvalidParameter::new(name, "is given more than once"))
            } else {
                Ok(())
            }
        };
        for (k, v) in form_urlencoded::parse(query.as_bytes()) {
            match &*k {
                "limit" => {
                    once(0, "limit")?;
                    q.limit = v
                        .parse::<usize>()
                        .ok()
                        .filter(|n| (1..=MAX_LIST_LIMIT).contains(n))
                        .ok_or_else(|| {
                            InvalidParameter::new(
                                "limit",
                                format!("{v:?} is not an integer from 1 to {MAX_LIST_LIMIT}"),
                            )
                        })?;
                }
                "cursor" => {
                    once(1, "cursor")?;
                    if v.is_empty() {
                        return Err(InvalidParameter::new(
                            "cursor",
                            "is empty (give the nextCursor of the previous page, or no cursor)",
                        ));
                    }
                    q.cursor = Some(v.into_owned());
                }
                "archived" => {
                    once(2, "archived")?;
                    q.archived = Archived::from_word(&v).ok_or_else(|| {
                        InvalidParameter::new(
                            "archived",
                            format!("{v:?} is none of \"false\", \"true\", \"any\""),
                        )
                    })?;
                }
                other => {
                    if let Some(key) = other.strip_prefix(METADATA_FILTER_PREFIX) {
                        if key.is_empty() {
                            return Err(InvalidParameter::new(
                                other,
                                "a metadata filter names a key: metadata.KEY=VALUE",
                            ));
                        }
                        q.metadata.push((key.to_owned(), v.into_owned()));
                    }
                }
            }
        }
        Ok(q)
    }

    /// The query string of this query (without the `?`), as
    /// [`from_query`](Self::from_query) reads it; parameters at their default are left
    /// out.
    #[must_use]
    pub fn to_query(&self) -> String {
        let mut out = form_urlencoded::Serializer::new(String::new());
        if self.limit != DEFAULT_LIST_LIMIT {
            out.append_pair("limit", &self.limit.to_string());
        }
        if let Some(c) = &self.cursor {
            out.append_pair("cursor", c);
        }
        if self.archived != Archived::Exclude {
            out.append_pair("archived", self.archived.as_str());
        }
        for (k, v) in &self.metadata {
            out.append_pair(&format!("{METADATA_FILTER_PREFIX}{k}"), v);
        }
        out.finish()
    }
}

/// One page of a thread list: `{"threads": [summary…], "nextCursor": string or null}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ThreadPage {
    /// The threads, most recently updated first.
    pub threads: Vec<ThreadSummary>,
    /// The cursor of the next page; `None` (`null`) on the last.
    pub next_cursor: Option<String>,
}

impl ThreadPage {
    /// A page.
    #[must_use]
    pub fn new(threads: Vec<ThreadSummary>, next_cursor: Option<String>) -> Self {
        ThreadPage {
            threads,
            next_cursor,
        }
    }
}

/// A change to a thread's own fields; `None` leaves a field as it is. In JSON (the body
/// of `PATCH {agent}/threads/{threadId}`): `{"title"?: string or null, "metadata"?:
/// object, "archived"?: boolean}`, no other member.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ThreadPatch {
    /// The new title (`Some(None)`, JSON `null`, clears it).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub title: Option<Option<String>>,
    /// The new metadata (replacing the old).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Archives or restores the thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived: Option<bool>,
}

impl ThreadPatch {
    /// A patch that changes nothing.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets (or, with `None`, clears) the title.
    #[must_use]
    pub fn title(mut self, title: Option<String>) -> Self {
        self.title = Some(title);
        self
    }

    /// Replaces the metadata.
    #[must_use]
    pub fn metadata(mut self, metadata: Map<String, Value>) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// Archives (`true`) or restores (`false`) the thread.
    #[must_use]
    pub fn archived(mut self, archived: bool) -> Self {
        self.archived = Some(archived);
        self
    }

    /// Reads a patch from its JSON.
    ///
    /// # Errors
    /// JSON that is no object, a member of the wrong type (named by its JSON path, such
    /// as `$.archived`) or a member the patch does not have.
    pub fn from_json(json: &[u8]) -> Result<Self, InvalidParameter> {
        let value: Value = serde_json::from_slice(json)
            .map_err(|e| InvalidParameter::new("$", format!("is not JSON: {e}")))?;
        let Value::Object(members) = &value else {
            return Err(InvalidParameter::new(
                "$",
                "is not a JSON object: a thread patch is {\"title\"?, \"metadata\"?, \"archived\"?}",
            ));
        };
        for (k, v) in members {
            let ok = match k.as_str() {
                "title" => v.is_string() || v.is_null(),
                "metadata" => v.is_object(),
                "archived" => v.is_boolean(),
                _ => {
                    return Err(InvalidParameter::new(
                        format!("$.{k}"),
                        "is not a member of a thread patch (title, metadata, archived)",
                    ));
                }
            };
            if !ok {
                let want = match k.as_str() {
                    "title" => "a string or null",
                    "metadata" => "an object",
                    _ => "a boolean",
                };
                return Err(InvalidParameter::new(
                    format!("$.{k}"),
                    format!("is not {want}"),
                ));
            }
        }
        serde_json::from_value(value).map_err(|e| InvalidParameter::new("$", e.to_string()))
    }
}

/// A member that is present (even as `null`) is `Some`: `"title": null` clears the title.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// What a second run on a thread with a run going on does (the threads API's multitask
/// policy): `reject`, `enqueue`, `interrupt` or `rollback`, as a service's setting and a
/// start's `?multitask=` parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Multitask {
    /// The new start is refused: 409 `thread_busy` (the default).
    #[default]
    Reject,
    /// The new start waits (its response carries keep-alive comments) until the running
    /// run has ended, then runs with the messages its own input carries.
    Enqueue,
    /// The running run is stopped (it ends `RUN_FINISHED` with a cancelled outcome), then
    /// the new one starts.
    Interrupt,
    /// As [`Interrupt`](Self::Interrupt), and the thread drops what the cancelled run
    /// added (its record stays, outcome `cancelled`, rolled back).
    Rollback,
}

impl Multitask {
    /// Every policy, in declaration order.
    pub const ALL: [Multitask; 4] = [
        Multitask::Reject,
        Multitask::Enqueue,
        Multitask::Interrupt,
        Multitask::Rollback,
    ];

    /// The policy's word: `reject`, `enqueue`, `interrupt`, `rollback`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Multitask::Reject => "reject",
            Multitask::Enqueue => "enqueue",
            Multitask::Interrupt => "interrupt",
            Multitask::Rollback => "rollback",
        }
    }

    /// The policy named `word` (see [`as_str`](Self::as_str)).
    #[must_use]
    pub fn from_word(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == word)
    }
}

/// The `usage` member of a run record: the terminal event's `usage` array, `null` for
/// none.
mod usage {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::TokenUsage;

    pub(super) fn serialize<S: Serializer>(v: &[TokenUsage], s: S) -> Result<S::Ok, S::Error> {
        if v.is_empty() {
            s.serialize_none()
        } else {
            v.serialize(s)
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<TokenUsage>, D::Error> {
        Ok(Option::<Vec<TokenUsage>>::deserialize(d)?.unwrap_or_default())
    }
}
