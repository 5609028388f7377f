//! The suite of inputs a URL check sends, and the HTTP side of each answer.

use std::time::{Duration, Instant};

use ag_ui_core::{Event, Message, RunFinishedOutcome};
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::check::finding::{self, Finding, Place};
use crate::check::stream::{self, Expect, Outcome};
use crate::cli::{CheckArgs, Protocol};

/// The longest body a case reads.
const MAX_BODY: usize = 64 << 20;

/// The frontend tool the suite declares.
const TOOL: &str = "pick_city";

/// One case's summary for the report.
#[derive(Debug)]
pub(crate) struct CaseSummary {
    /// The case.
    pub(crate) name: &'static str,
    /// The HTTP status, if the server answered.
    pub(crate) status: Option<u16>,
    /// The response's content type.
    pub(crate) content_type: Option<String>,
    /// How many events the stream had.
    pub(crate) events: usize,
    /// The outcome in a word.
    pub(crate) outcome: &'static str,
}

/// The server could not be reached at all.
#[derive(Debug)]
pub(crate) struct Unreachable(pub(crate) String);

/// A response as the check saw it.
struct Answer {
    status: u16,
    content_type: Option<String>,
    body: Vec<u8>,
    /// The longest silence while the body was read.
    longest_gap: Duration,
}

/// The suite's HTTP client and settings.
struct Suite<'a> {
    client: reqwest::Client,
    args: &'a CheckArgs,
    thread: String,
    findings: Vec<Finding>,
    cases: Vec<CaseSummary>,
}

/// Runs the suite against `args.target`.
///
/// # Errors
/// [`Unreachable`] when the first request gets no answer at all.
pub(crate) async fn run_suite(
    args: &CheckArgs,
) -> Result<(Vec<CaseSummary>, Vec<Finding>), Unreachable> {
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| Unreachable(format!("cannot build an HTTP client: {e}")))?;
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut suite = Suite {
        client,
        args,
        thread: format!("ag-ui-check-{}-{nonce}", std::process::id()),
        findings: Vec::new(),
        cases: Vec::new(),
    };
    // 1. A plain message. An unreachable server stops the suite here.
    let plain = input(
        &suite.thread_of("plain"),
        "plain",
        args.protocol,
        user("Hello! Please answer briefly."),
    );
    match suite.post(&plain).await {
        Ok(answer) => {
            suite.stream_case("plain", &plain, answer);
        }
        Err(e) => return Err(Unreachable(e)),
    }
    // 2. Tools declared; 3. the frontend tool's call answered in a second run.
    let mut tools = input(
        &suite.thread_of("tools"),
        "tools",
        args.protocol,
        user("Which city? Use the pick_city tool."),
    );
    tools["tools"] = json!([{
        "name": TOOL,
        "description": "Asks the user to pick a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}
    }]);
    tools["forwardedProps"] = json!({"scenario": "frontend_tool"});
    if let Some(outcome) = suite.case("tools", &tools).await {
        let call = outcome
            .thread
            .unanswered_tool_calls()
            .into_iter()
            .find(|c| c.function.name == TOOL)
            .map(|c| c.id.as_str().to_owned());
        match call {
            Some(call_id) => {
                let mut answer = tools.clone();
                answer["runId"] = json!(run_id(&suite.thread_of("tools"), "tool_answer"));
                let mut history = messages_json(outcome.thread.messages());
                history.push(json!({
                    "id": format!("{}-tool-result", run_id(&suite.thread_of("tools"), "tool_answer")),
                    "role": "tool",
                    "toolCallId": call_id,
                    "content": "{\"city\":\"Amsterdam\"}",
                }));
                answer["messages"] = Value::Array(history);
                suite.case("tool_answer", &answer).await;
            }
            None => suite.skip(
                "tool_answer",
                format!("the server made no call of the declared tool `{TOOL}`; the answer in a second run is not checked"),
            ),
        }
    }
    // 4. State given.
    let mut state = input(
        &suite.thread_of("state"),
        "state",
        args.protocol,
        user("What is in the state?"),
    );
    state["state"] = json!({"counter": 1, "items": ["a", "b"]});
    suite.case("state", &state).await;
    // 5. An interrupt resumed, if the server interrupts.
    let mut interrupt = input(
        &suite.thread_of("interrupt"),
        "interrupt",
        args.protocol,
        user("Send the report to the team, but ask me first."),
    );
    interrupt["forwardedProps"] = json!({"scenario": "interrupt"});
    if let Some(outcome) = suite.case("interrupt", &interrupt).await {
        let interrupts = match &outcome.terminal {
            Some(Event::RunFinished(e)) => match &e.outcome {
                Some(RunFinishedOutcome::Interrupt(i)) => i.interrupts.to_vec(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        if interrupts.is_empty() {
            suite.skip(
                "resume",
                "the server did not interrupt; resuming is not checked".to_owned(),
            );
        } else {
            let mut resume = interrupt.clone();
            resume["runId"] = json!(run_id(&suite.thread_of("interrupt"), "resume"));
            resume["messages"] = Value::Array(messages_json(outcome.thread.messages()));
            resume["resume"] = interrupts
                .iter()
                .map(|i| json!({"interruptId": i.id.as_str(), "status": "resolved", "payload": {"approved": true}}))
                .collect();
            suite.case("resume", &resume).await;
        }
    }
    // 6. Malformed input.
    suite.malformed().await;
    Ok((suite.cases, suite.findings))
}

/// The run id of a case.
fn run_id(thread: &str, case: &str) -> String {
    format!("{thread}-{case}")
}

/// A user message.
fn user(text: &str) -> Value {
    json!({"id": "check-user-1", "role": "user", "content": text})
}

/// A run input with one message.
fn input(thread: &str, case: &str, protocol: Protocol, message: Value) -> Value {
    json!({
        "protocolVersion": protocol.as_str(),
        "threadId": thread,
        "runId": run_id(thread, case),
        "messages": [message],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    })
}

/// Messages as JSON values.
fn messages_json(messages: &[Message]) -> Vec<Value> {
    messages
        .iter()
        .filter_map(|m| ag_ui_core::write::to_string(m).ok())
        .filter_map(|s| serde_json::from_str(&s).ok())
        .collect()
}

impl Suite<'_> {
    /// The thread of a group of cases: each group (a case and its follow-up run) has its
    /// own, so that a server keeping threads sees no unrelated history.
    fn thread_of(&self, group: &str) -> String {
        format!("{}-{group}", self.thread)
    }

    fn place(case: &str) -> Place {
        Place {
            case: Some(case.to_owned()),
            ..Place::default()
        }
    }

    fn skip(&mut self, name: &'static str, why: String) {
        self.findings
            .push(Finding::cli(&finding::X1, Self::place(name), why));
        self.cases.push(CaseSummary {
            name,
            status: None,
            content_type: None,
            events: 0,
            outcome: "skipped",
        });
    }

    /// POSTs `body` (a JSON value or raw text) and reads the whole answer.
    async fn post_raw(&self, body: String) -> Result<Answer, String> {
        let mut request = self
            .client
            .post(self.args.target.as_str())
            .header("content-type", "application/json")
            .header("accept", "text/event-stream");
        for (name, value) in &self.args.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let limit = Duration::from_secs(self.args.timeout.max(1));
        let started = Instant::now();
        let response = tokio::time::timeout(limit, request.body(body).send())
            .await
            .map_err(|_| format!("no answer within {limit:?}"))?
            .map_err(|e| format!("{e}"))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut body = Vec::new();
        let mut longest_gap = Duration::ZERO;
        let mut last = Instant::now();
        let mut chunks = response.bytes_stream();
        loop {
            let left = limit.saturating_sub(started.elapsed());
            match tokio::time::timeout(left, chunks.next()).await {
                Err(_) => return Err(format!("the body did not end within {limit:?}")),
                Ok(None) => break,
                Ok(Some(Err(e))) => return Err(format!("the body broke off: {e}")),
                Ok(Some(Ok(chunk))) => {
                    longest_gap = longest_gap.max(last.elapsed());
                    last = Instant::now();
                    if body.len() + chunk.len() > MAX_BODY {
                        return Err(format!("the body is longer than {} MiB", MAX_BODY >> 20));
                    }
                    body.extend_from_slice(&chunk);
                }
            }
        }
        Ok(Answer {
            status,
            content_type,
            body,
            longest_gap,
        })
    }

    async fn post(&self, input: &Value) -> Result<Answer, String> {
        self.post_raw(input.to_string()).await
    }

    /// Sends a case and checks the answer; the stream's outcome when it was a stream.
    async fn case(&mut self, name: &'static str, input: &Value) -> Option<Outcome> {
        match self.post(input).await {
            Ok(answer) => self.stream_case(name, input, answer),
            Err(e) => {
                self.findings.push(Finding::cli(
                    &finding::N1,
                    Self::place(name),
                    format!("the request failed: {e}"),
                ));
                self.cases.push(CaseSummary {
                    name,
                    status: None,
                    content_type: None,
                    events: 0,
                    outcome: "none",
                });
                None
            }
        }
    }

    /// Checks an answer that should be an event stream.
    fn stream_case(
        &mut self,
        name: &'static str,
        input: &Value,
        answer: Answer,
    ) -> Option<Outcome> {
        let mut summary = CaseSummary {
            name,
            status: Some(answer.status),
            content_type: answer.content_type.clone(),
            events: 0,
            outcome: "none",
        };
        if !(200..300).contains(&answer.status) {
            self.findings.push(Finding::cli(
                &finding::H1,
                Self::place(name),
                format!("status {} with {}", answer.status, excerpt(&answer)),
            ));
            self.cases.push(summary);
            return None;
        }
        let media = answer
            .content_type
            .as_deref()
            .and_then(|c| c.split(';').next())
            .map(|c| c.trim().to_ascii_lowercase());
        if media.as_deref() != Some("text/event-stream") {
            self.findings.push(Finding::cli(
                &finding::H2,
                Self::place(name),
                format!(
                    "the content type is {}",
                    answer.content_type.as_deref().unwrap_or("missing")
                ),
            ));
            self.cases.push(summary);
            return None;
        }
        let keep_alive = Duration::from_secs(self.args.keep_alive.max(1));
        if answer.longest_gap > keep_alive {
            self.findings.push(Finding::cli(
                &finding::K1,
                Self::place(name),
                format!(
                    "{:.1} s without a byte (more than {} s)",
                    answer.longest_gap.as_secs_f64(),
                    keep_alive.as_secs()
                ),
            ));
        }
        let messages = stream::sse_messages(&answer.body, Some(name), &mut self.findings);
        let history: Vec<Message> = input
            .get("messages")
            .and_then(|m| ag_ui_core::read::from_str(&m.to_string()).ok())
            .unwrap_or_default();
        let thread = input.get("threadId").and_then(Value::as_str).unwrap_or("");
        let run = input.get("runId").and_then(Value::as_str).unwrap_or("");
        let outcome = stream::check_events(
            &messages,
            Expect {
                case: Some(name),
                protocol: self.args.protocol.version(),
                ids: Some((thread, run)),
                history,
            },
            &mut self.findings,
        );
        summary.events = outcome.events;
        summary.outcome = outcome.word();
        self.cases.push(summary);
        Some(outcome)
    }

    /// Sends a malformed input: a 4xx JSON error is expected.
    async fn malformed(&mut self) {
        let name = "malformed";
        let body = json!({"threadId": 42, "runId": ["not", "an", "id"], "messages": "none"});
        let answer = match self.post_raw(body.to_string()).await {
            Ok(a) => a,
            Err(e) => {
                self.findings.push(Finding::cli(
                    &finding::N1,
                    Self::place(name),
                    format!("the request failed: {e}"),
                ));
                return;
            }
        };
        self.cases.push(CaseSummary {
            name,
            status: Some(answer.status),
            content_type: answer.content_type.clone(),
            events: 0,
            outcome: "refused",
        });
        if !(400..500).contains(&answer.status) {
            self.findings.push(Finding::cli(
                &finding::H3,
                Self::place(name),
                format!("status {} with {}", answer.status, excerpt(&answer)),
            ));
            return;
        }
        let json_type = answer
            .content_type
            .as_deref()
            .and_then(|c| c.split(';').next())
            .map(|c| c.trim().to_ascii_lowercase())
            .is_some_and(|c| c == "application/json" || c.ends_with("+json"));
        let object = serde_json::from_slice::<Value>(&answer.body)
            .ok()
            .filter(Value::is_object);
        if !json_type || object.is_none() {
            self.findings.push(Finding::cli(
                &finding::H4,
                Self::place(name),
                format!(
                    "status {} with content type {} and {}",
                    answer.status,
                    answer.content_type.as_deref().unwrap_or("none"),
                    excerpt(&answer)
                ),
            ));
        }
    }
}

/// The start of a body, for a message.
fn excerpt(answer: &Answer) -> String {
    if answer.body.is_empty() {
        return "an empty body".to_owned();
    }
    let text = String::from_utf8_lossy(&answer.body);
    let short: String = text.chars().take(120).collect();
    let more = if text.chars().count() > 120 {
        "…"
    } else {
        ""
    };
    format!("the body {:?}{more}", short)
}
