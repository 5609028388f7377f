//! The HTTP agent: `POST` a `RunAgentInput`, read the SSE response, keep the thread.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use ag_ui_core::sse::SSE_MEDIA_TYPE;
use ag_ui_core::{
    Interrupt, Message, MessageId, ResumeEntry, RunAgentInput, RunId, State, ThreadId, ThreadState,
    UserMessage,
};
use bytes::Bytes;
use futures_core::Stream;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use crate::end::{Reconnecting, RunEnd, RunItem};
use crate::error::{ClientError, DEFAULT_MAX_ERROR_BODY_BYTES, TimeoutPhase, media_type};
use crate::request::{self, RunOptions};
use crate::resume::{self, Resume, RunStopper};
use crate::stream::{AbortHandle, RunCore};
use crate::threads::ThreadsApi;
use crate::warning::RunWarning;
use ag_ui_core::ProtocolVersion;

/// Builds an [`HttpAgent`].
#[derive(Debug, Clone)]
#[must_use]
pub struct HttpAgentBuilder {
    url: String,
    headers: Vec<(String, String)>,
    connect_timeout: Option<Duration>,
    idle_timeout: Option<Duration>,
    client: Option<reqwest::Client>,
    thread_id: Option<ThreadId>,
    thread: ThreadState,
    ceiling: Option<ProtocolVersion>,
    speaks: ProtocolVersion,
    max_error_body: usize,
    max_frame_bytes: Option<usize>,
    resume_attempts: u32,
    resume_backoff: (Duration, Duration),
    #[cfg(feature = "proto")]
    proto: bool,
}

/// Whether this build of the crate has a TLS backend for the clients it builds.
const TLS: bool = cfg!(any(
    feature = "rustls",
    feature = "rustls-no-provider",
    feature = "native-tls"
));

impl HttpAgentBuilder {
    fn new(url: impl Into<String>) -> Self {
        HttpAgentBuilder {
            url: url.into(),
            headers: Vec::new(),
            connect_timeout: None,
            idle_timeout: None,
            client: None,
            thread_id: None,
            thread: ThreadState::new(),
            ceiling: None,
            speaks: ProtocolVersion::V1_0,
            max_error_body: DEFAULT_MAX_ERROR_BODY_BYTES,
            max_frame_bytes: None,
            resume_attempts: resume::DEFAULT_RESUME_ATTEMPTS,
            resume_backoff: (
                resume::DEFAULT_RESUME_BACKOFF,
                resume::DEFAULT_RESUME_MAX_BACKOFF,
            ),
            #[cfg(feature = "proto")]
            proto: true,
        }
    }

    /// Whether runs ask for the protobuf transport too (`true`, the default with the
    /// `proto` feature: `Accept: application/vnd.ag-ui.event+proto, text/event-stream`)
    /// or for SSE alone (`false`: `Accept: text/event-stream`). Either way the response's
    /// `Content-Type` picks the reader.
    #[cfg(feature = "proto")]
    #[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
    pub fn proto(mut self, on: bool) -> Self {
        self.proto = on;
        self
    }

    /// How many times in a row a cut resumable run is joined again before it fails
    /// (default [`DEFAULT_RESUME_ATTEMPTS`](crate::DEFAULT_RESUME_ATTEMPTS); an event
    /// arriving resets the count; 0 turns resuming off). Only runs the server declared
    /// resumable (a `Content-Location` on the response, SSE ids on its frames: the
    /// workspace server's non-standard extension) are resumed; other runs are never
    /// retried.
    pub fn resume_attempts(mut self, attempts: u32) -> Self {
        self.resume_attempts = attempts;
        self
    }

    /// The wait before the first reconnection (doubled for each further one) and the
    /// longest wait (defaults 100 ms and 2 s).
    pub fn resume_backoff(mut self, first: Duration, max: Duration) -> Self {
        self.resume_backoff = (first, max.max(first));
        self
    }

    /// Adds a header to every request. `Content-Type` and `Accept` are the client's
    /// (`application/json`, `text/event-stream`) and replace any given here.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sends `Authorization: Bearer <token>`.
    pub fn bearer_token(self, token: impl AsRef<str>) -> Self {
        let value = format!("Bearer {}", token.as_ref());
        self.header(AUTHORIZATION.as_str(), value)
    }

    /// Limits connecting (TCP and TLS) to `timeout`. Applies to the client this builder
    /// makes; an injected [`reqwest::Client`] keeps its own settings.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// Fails the run with [`ClientError::Timeout`] when the agent sends nothing for
    /// `timeout`: no response head after the request, or no bytes between two chunks of
    /// the stream. Keep-alive comments count as bytes. Applies to injected clients too.
    /// Default: no limit (agents may think for long).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = Some(timeout);
        self
    }

    /// Uses `client` (its pool, proxy, TLS and timeouts) instead of building one.
    pub fn client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// The thread id the agent's runs use (default: a random UUID).
    pub fn thread_id(mut self, thread_id: impl Into<ThreadId>) -> Self {
        self.thread_id = Some(thread_id.into());
        self
    }

    /// The history the first run continues.
    pub fn thread(mut self, thread: ThreadState) -> Self {
        self.thread = thread;
        self
    }

    /// The protocol version the client declares and speaks: [`ProtocolVersion::V1_0`] by
    /// default (what the official 1.0.0 clients declare), [`ProtocolVersion::V1_1`] to opt
    /// in. A client declaring 1.0 sends back the encrypted values of a thread without their
    /// `encryptedValueType` (each removal a warning); one declaring 1.1 sends both.
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.speaks = version;
        self
    }

    /// Declares the newest protocol version the agent speaks, for agents older than 1.0:
    /// requests are downgraded and events it predates dropped, as [`crate::compat`] says.
    pub fn peer_protocol_ceiling(mut self, ceiling: ProtocolVersion) -> Self {
        self.ceiling = Some(ceiling);
        self
    }

    /// Bounds how much of an error response's body is read and kept (default 4 KiB); the
    /// rest is not read.
    pub fn max_error_body_bytes(mut self, max: usize) -> Self {
        self.max_error_body = max;
        self
    }

    /// Caps one SSE message (default 10 MiB).
    pub fn max_frame_bytes(mut self, max: usize) -> Self {
        self.max_frame_bytes = Some(max);
        self
    }

    /// Builds the agent.
    ///
    /// # Errors
    /// [`ClientError::Config`] for a URL that is not `http://` or `https://`, an invalid
    /// header, a client that cannot be built, or an `https://` URL when this crate was
    /// built without a TLS feature (`rustls`, `rustls-no-provider`, `native-tls`) and no
    /// [`client`](Self::client) of your own was given.
    pub fn build(self) -> Result<HttpAgent, ClientError> {
        let config = |message: String| ClientError::Config { message };
        let url = reqwest::Url::parse(&self.url)
            .map_err(|e| config(format!("invalid agent URL {:?}: {e}", self.url)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(config(format!(
                "agent URL {:?} is not http:// or https://",
                self.url
            )));
        }
        if url.scheme() == "https" && self.client.is_none() && !TLS {
            return Err(config(format!(
                "agent URL {:?} needs TLS, and ag-ui-client was built without a TLS \
                 feature (TLS is opt-in): depend on it with `features = [\"rustls\"]` (or \
                 `native-tls`, `rustls-no-provider`), or pass a reqwest::Client that \
                 supports HTTPS",
                self.url
            )));
        }
        let mut headers = HeaderMap::new();
        for (name, value) in &self.headers {
            let n = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| config(format!("invalid header name {name:?}: {e}")))?;
            let mut v = HeaderValue::from_str(value)
                .map_err(|e| config(format!("invalid value for header {name:?}: {e}")))?;
            if n == AUTHORIZATION {
                v.set_sensitive(true);
            }
            headers.append(n, v);
        }
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        // What this client reads, and nothing else (spec B1: a wildcard would ask for
        // protobuf).
        #[cfg(feature = "proto")]
        let accept = if self.proto {
            "application/vnd.ag-ui.event+proto, text/event-stream"
        } else {
            SSE_MEDIA_TYPE
        };
        #[cfg(not(feature = "proto"))]
        let accept = SSE_MEDIA_TYPE;
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        let client = match self.client {
            Some(c) => c,
            None => {
                let mut b = reqwest::Client::builder().retry(reqwest::retry::never());
                if let Some(t) = self.connect_timeout {
                    b = b.connect_timeout(t);
                }
                b.build()
                    .map_err(|e| config(format!("cannot build the HTTP client: {e}")))?
            }
        };
        Ok(HttpAgent {
            url,
            headers,
            client,
            connect_timeout: self.connect_timeout,
            idle_timeout: self.idle_timeout,
            thread_id: self.thread_id.unwrap_or_else(ThreadId::random),
            thread: self.thread,
            ceiling: self.ceiling,
            speaks: self.speaks,
            max_error_body: self.max_error_body,
            max_frame_bytes: self.max_frame_bytes,
            resume_attempts: self.resume_attempts,
            resume_backoff: self.resume_backoff,
        })
    }
}

/// A remote AG-UI agent reached over HTTP, and the thread of a conversation with it.
///
/// Each run `POST`s a `RunAgentInput` holding the whole history (messages and state,
/// including what the agent streamed back in earlier runs) and reads the SSE response
/// through the receiving pipeline; the thread keeps every event applied, also when a run
/// fails or is dropped half-way.
///
/// Requests carry `Content-Type: application/json` and `Accept: text/event-stream`;
/// `tools`, `context`, `forwardedProps` and `state` are always sent, activity messages
/// never, `protocolVersion` is `"1.0"` (spec §8.1). A request is sent once: nothing is
/// retried after it left (AG-UI 1.0 has no resume cursor), except that a run the server
/// declared resumable (the workspace server's non-standard extension: `Content-Location`
/// on the response, SSE ids on its frames) is joined again from its last event when its
/// connection breaks off, with [`RunItem::Reconnecting`] between the events (see
/// [`HttpAgentBuilder::resume_attempts`]).
#[derive(Debug)]
pub struct HttpAgent {
    url: reqwest::Url,
    headers: HeaderMap,
    client: reqwest::Client,
    connect_timeout: Option<Duration>,
    idle_timeout: Option<Duration>,
    thread_id: ThreadId,
    thread: ThreadState,
    ceiling: Option<ProtocolVersion>,
    speaks: ProtocolVersion,
    max_error_body: usize,
    max_frame_bytes: Option<usize>,
    resume_attempts: u32,
    resume_backoff: (Duration, Duration),
}

impl HttpAgent {
    /// A builder for the agent at `url` (the run endpoint, e.g. `http://localhost:8000/agent`).
    pub fn builder(url: impl Into<String>) -> HttpAgentBuilder {
        HttpAgentBuilder::new(url)
    }

    /// The agent at `url` with every default.
    ///
    /// # Errors
    /// As [`HttpAgentBuilder::build`].
    pub fn new(url: impl Into<String>) -> Result<Self, ClientError> {
        Self::builder(url).build()
    }

    /// The run endpoint.
    #[must_use]
    pub fn url(&self) -> &str {
        self.url.as_str()
    }

    /// The thread id runs use.
    #[must_use]
    pub fn thread_id(&self) -> &ThreadId {
        &self.thread_id
    }

    /// The thread: messages, state, the last run's outcome and pending interrupts.
    #[must_use]
    pub fn thread(&self) -> &ThreadState {
        &self.thread
    }

    /// Mutable access to the thread (edit the history between runs).
    pub fn thread_mut(&mut self) -> &mut ThreadState {
        &mut self.thread
    }

    /// The conversation so far.
    #[must_use]
    pub fn messages(&self) -> &[Message] {
        self.thread.messages()
    }

    /// The shared state so far.
    #[must_use]
    pub fn state(&self) -> &State {
        self.thread.state()
    }

    /// The interrupts the last run ended on; answer them all with [`HttpAgent::resume`].
    #[must_use]
    pub fn pending_interrupts(&self) -> &[Interrupt] {
        self.thread.pending_interrupts()
    }

    /// Replaces the state the next run sends.
    pub fn set_state(&mut self, state: State) {
        let thread = std::mem::take(&mut self.thread);
        self.thread = thread.with_state(state);
    }

    /// Appends a message to the history (a user message, or the result of a frontend tool
    /// call, for the next run): [`ThreadState::add_message`]. The last run's outcome, its
    /// pending interrupts and its unanswered tool calls
    /// ([`ThreadState::unanswered_tool_calls`]) are kept, minus the calls the message
    /// answers.
    pub fn add_message(&mut self, message: impl Into<Message>) {
        self.thread.add_message(message.into());
    }

    /// Appends a user message with a random id; returns the id.
    pub fn add_user_message(&mut self, text: impl Into<String>) -> MessageId {
        let id = MessageId::random();
        self.add_message(Message::User(UserMessage::new(id.clone(), text.into())));
        id
    }

    /// The input the next run with `options` would send, and what a downgrade for the
    /// agent's protocol ceiling removed.
    #[must_use]
    pub fn prepare(&self, options: &RunOptions) -> (RunAgentInput, Vec<RunWarning>) {
        request::build_input_as(
            &self.thread_id,
            &self.thread,
            options,
            self.ceiling,
            self.speaks,
        )
    }

    /// Starts a run of the thread with `options`. Nothing is sent until the returned
    /// stream is first polled; it yields the delivered events, then the run's end.
    pub fn run(&mut self, options: RunOptions) -> HttpRun<'_> {
        let (input, warnings) = self.prepare(&options);
        let check = match &input.resume {
            Some(r) if !r.is_empty() => request::check_resume(self.thread.pending_interrupts(), r),
            _ => Ok(()),
        };
        #[cfg(feature = "otel")]
        let traceparent = options
            .traceparent
            .clone()
            .or_else(request::current_traceparent);
        #[cfg(not(feature = "otel"))]
        let traceparent = options.traceparent.clone();
        let mut trace = HeaderMap::new();
        let pairs = [
            ("traceparent", traceparent.as_deref()),
            ("tracestate", options.tracestate.as_deref()),
        ];
        for (name, value) in pairs {
            if let Some(value) = value.and_then(|v| HeaderValue::from_str(v).ok()) {
                trace.insert(name, value);
            }
        }
        let mut url = self.url.clone();
        if let Some(policy) = options.multitask {
            url.query_pairs_mut()
                .append_pair("multitask", policy.as_str());
        }
        self.start_with(url, input, warnings, check, trace)
    }

    /// Sends a user message and runs: [`HttpAgent::add_user_message`] then
    /// [`HttpAgent::run`] with default options.
    pub fn send(&mut self, text: impl Into<String>) -> HttpRun<'_> {
        self.add_user_message(text);
        self.run(RunOptions::new())
    }

    /// Resumes the interrupted run: a new run on the same thread whose `resume` holds
    /// `answers`, which must answer every pending interrupt and nothing else (spec §9.2).
    ///
    /// # Errors
    /// [`ClientError::InvalidRequest`] (nothing sent) when there is no pending interrupt,
    /// or the answers leave one out or answer an interrupt that is not pending.
    pub fn resume(
        &mut self,
        answers: impl IntoIterator<Item = ResumeEntry>,
    ) -> Result<HttpRun<'_>, ClientError> {
        self.resume_with(RunOptions::new().resume_all(answers))
    }

    /// [`HttpAgent::resume`] with other run options (tools, context…); the answers are
    /// `options.resume`.
    ///
    /// # Errors
    /// As [`HttpAgent::resume`].
    pub fn resume_with(&mut self, options: RunOptions) -> Result<HttpRun<'_>, ClientError> {
        request::check_resume(
            self.thread.pending_interrupts(),
            options.resume.as_deref().unwrap_or_default(),
        )?;
        Ok(self.run(options))
    }

    /// Runs `input` as given (completed and downgraded like any request), adopting its
    /// thread id, messages and state as the agent's thread.
    pub fn run_input(&mut self, input: RunAgentInput) -> HttpRun<'_> {
        self.adopt_and_start(input, Vec::new())
    }

    fn adopt_and_start(
        &mut self,
        input: RunAgentInput,
        mut warnings: Vec<RunWarning>,
    ) -> HttpRun<'_> {
        let (input, downgrade) = request::normalize_input_as(input, self.ceiling, self.speaks);
        warnings.extend(downgrade);
        self.thread_id = input.thread_id.clone();
        self.thread = ThreadState::new()
            .with_messages(input.messages.clone())
            .with_state(input.state.clone().unwrap_or_default());
        self.start(input, warnings, Ok(()))
    }

    /// Runs the `RunAgentInput` in `json` as [`HttpAgent::run_input`] does, read as the 1.0
    /// receiver reads it (see [`crate::read_input`]): 0.x `binary` content parts are
    /// upgraded to media parts, unknown fields stripped; each is a warning of the run.
    ///
    /// # Errors
    /// [`ClientError::InvalidRequest`] (nothing sent) naming what is malformed and where.
    pub fn run_json(&mut self, json: &str) -> Result<HttpRun<'_>, ClientError> {
        let (input, read_warnings) = request::read_input(json)?;
        Ok(self.adopt_and_start(input, read_warnings))
    }

    fn start(
        &mut self,
        input: RunAgentInput,
        warnings: Vec<RunWarning>,
        check: Result<(), ClientError>,
    ) -> HttpRun<'_> {
        self.start_with(self.url.clone(), input, warnings, check, HeaderMap::new())
    }

    /// [`start`](Self::start), with `extra` headers (the trace context) on the request.
    fn start_with(
        &mut self,
        url: reqwest::Url,
        input: RunAgentInput,
        warnings: Vec<RunWarning>,
        check: Result<(), ClientError>,
        extra: HeaderMap,
    ) -> HttpRun<'_> {
        let run_id = input.run_id.clone();
        let mut headers = self.headers.clone();
        headers.extend(extra);
        let request = check
            .and_then(|()| request::encode(&input))
            .and_then(|body| {
                self.client
                    .post(url)
                    .headers(headers)
                    .body(body)
                    .build()
                    .map_err(|e| ClientError::Config {
                        message: format!("cannot build the request: {e}"),
                    })
            });
        let resume = self.new_resume();
        self.open(request, warnings, resume, Some(run_id))
    }

    fn new_resume(&self) -> Resume {
        Resume::new(
            self.resume_attempts,
            self.resume_backoff.0,
            self.resume_backoff.1,
        )
    }

    /// A `GET` of `url` as an SSE stream, with `Last-Event-ID` when `after` is given.
    fn get(&self, url: reqwest::Url, after: Option<&str>) -> Result<reqwest::Request, ClientError> {
        let mut headers = self.headers.clone();
        headers.remove(CONTENT_TYPE);
        let mut request = self.client.get(url).headers(headers);
        if let Some(after) = after {
            request = request.header("last-event-id", after);
        }
        request.build().map_err(|e| ClientError::Config {
            message: format!("cannot build the request: {e}"),
        })
    }

    /// Joins a run on the server (`GET {agent}/runs/{runId}/events`, the workspace
    /// server's non-standard extension): its events from its start, then the live ones to
    /// its end, each applied to this agent's thread and checked as any run's are. A cut is
    /// resumed as for a started run.
    ///
    /// This applies the whole run: join a run the thread has not seen, or connect to the
    /// thread instead ([`HttpAgent::connect_thread`]), which brings the thread up to date
    /// first. (A run this client is reading resumes by itself from where it was cut.)
    pub fn join_run(&mut self, run_id: impl Into<RunId>) -> HttpRun<'_> {
        let run_id = run_id.into();
        let url = resume::below(&self.url, &["runs", run_id.as_str(), "events"]);
        let request = self.get(url.clone(), None);
        let mut resume = self.new_resume();
        resume.join = Some(url);
        self.open(request, Vec::new(), resume, Some(run_id))
    }

    /// Connects to this agent's thread on the server (`GET {agent}/threads/{threadId}`,
    /// the workspace server's non-standard extension): the thread's messages and state as
    /// snapshots in a run of their own (they replace this agent's), then the events of
    /// the thread's active run, if one is going on, to its end. A cut during the active
    /// run is resumed from its last event.
    pub fn connect_thread(&mut self) -> HttpRun<'_> {
        let url = resume::below(&self.url, &["threads", self.thread_id.as_str()]);
        let request = self.get(url, None);
        let mut resume = self.new_resume();
        resume.derive = true;
        self.open(request, Vec::new(), resume, None)
    }

    /// The agent's threads API (list, read, rename, archive, delete the threads of the
    /// principal this agent's headers name; see [`ThreadsApi`]).
    #[must_use]
    pub fn threads(&self) -> ThreadsApi {
        ThreadsApi {
            client: self.client.clone(),
            url: self.url.clone(),
            headers: self.headers.clone(),
            max_error_body: self.max_error_body,
        }
    }

    /// A handle that stops run `run_id` on the server (see [`RunStopper`]).
    #[must_use]
    pub fn stopper(&self, run_id: impl Into<RunId>) -> RunStopper {
        RunStopper {
            client: self.client.clone(),
            url: self.url.clone(),
            headers: self.headers.clone(),
            run_id: run_id.into(),
        }
    }

    fn open(
        &mut self,
        request: Result<reqwest::Request, ClientError>,
        warnings: Vec<RunWarning>,
        resume: Resume,
        run_id: Option<RunId>,
    ) -> HttpRun<'_> {
        let mut core = RunCore::new(std::mem::take(&mut self.thread));
        core.set_ceiling(self.ceiling);
        if let Some(max) = self.max_frame_bytes {
            core.set_max_frame_bytes(max);
        }
        core.add_warnings(warnings);
        let phase = match request {
            Ok(request) => Phase::Sending(Box::pin(self.client.execute(request))),
            Err(e) => {
                core.fail(e);
                Phase::Done
            }
        };
        HttpRun {
            slot: &mut self.thread,
            core,
            phase,
            idle: self.idle_timeout,
            sleep: None,
            connect_timeout: self.connect_timeout,
            max_error_body: self.max_error_body,
            resume,
            run_id,
            client: self.client.clone(),
            headers: self.headers.clone(),
            url: self.url.clone(),
        }
    }
}

type Body = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

enum Phase {
    Sending(Pin<Box<dyn Future<Output = reqwest::Result<reqwest::Response>> + Send>>),
    ErrorBody {
        status: u16,
        body: Body,
        buf: Vec<u8>,
    },
    Streaming(Body),
    /// Waiting before joining a cut resumable run again.
    Waiting(Pin<Box<tokio::time::Sleep>>),
    Done,
}

/// One run of an [`HttpAgent`]: a `Stream` of [`RunItem`]s, the delivered events (each
/// already applied to the agent's thread) then one [`RunItem::End`].
///
/// Dropping it closes the connection at once; the agent keeps what was applied. So does
/// [`AbortHandle::abort`] from elsewhere, and the stream then ends with
/// [`ClientError::Aborted`] (not the agent's `cancelled` outcome).
pub struct HttpRun<'a> {
    slot: &'a mut ThreadState,
    core: RunCore,
    phase: Phase,
    idle: Option<Duration>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    connect_timeout: Option<Duration>,
    max_error_body: usize,
    resume: Resume,
    run_id: Option<RunId>,
    client: reqwest::Client,
    headers: HeaderMap,
    url: reqwest::Url,
}

impl std::fmt::Debug for HttpRun<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpRun")
            .field("core", &self.core)
            .field("idle", &self.idle)
            .finish_non_exhaustive()
    }
}

impl HttpRun<'_> {
    /// A handle that aborts this run from elsewhere.
    #[must_use]
    pub fn abort_handle(&self) -> AbortHandle {
        self.core.abort.clone()
    }

    /// Lets `handle` abort this run (for a handle made before the run).
    #[must_use]
    pub fn with_abort_handle(mut self, handle: AbortHandle) -> Self {
        self.core.abort = handle;
        self
    }

    /// The thread as the events delivered so far left it.
    #[must_use]
    pub fn thread(&self) -> &ThreadState {
        self.core.thread()
    }

    /// The run's id: the one the request gave, the one joined, or (for a thread connect)
    /// that of the last `RUN_STARTED` delivered.
    #[must_use]
    pub fn run_id(&self) -> Option<&RunId> {
        self.run_id.as_ref().or_else(|| self.core.run_id())
    }

    /// Whether the server declared this run resumable (the workspace server's
    /// non-standard extension): a cut connection is then joined again by itself.
    #[must_use]
    pub fn is_resumable(&self) -> bool {
        self.resume.join.is_some()
    }

    /// A handle that stops this run on the server, from anywhere (see [`RunStopper`]);
    /// `None` before the run's id is known.
    #[must_use]
    pub fn stopper(&self) -> Option<RunStopper> {
        Some(RunStopper {
            client: self.client.clone(),
            url: self.url.clone(),
            headers: self.headers.clone(),
            run_id: self.run_id()?.clone(),
        })
    }

    /// Joins the run again after a cut (`reason`), when it is resumable and attempts
    /// remain; true when a reconnection is under way.
    fn try_resume(&mut self, reason: String) -> bool {
        if self.resume.join.is_none()
            && self.resume.derive
            && self.core.last_event_id().is_some()
            && let Some(run_id) = self.core.run_id()
        {
            self.resume.join = Some(resume::below(
                &self.url,
                &["runs", run_id.as_str(), "events"],
            ));
        }
        if self.resume.join.is_none()
            || self.resume.attempts >= self.resume.max_attempts
            || self.core.has_terminal()
            || self.core.is_closed()
        {
            return false;
        }
        self.resume.attempts += 1;
        self.resume.delivered_at = self.core.delivered();
        let attempt = self.resume.attempts;
        let delay = self.resume.delay(attempt);
        let last = self.core.last_event_id().map(str::to_owned);
        let warning = RunWarning {
            source: crate::WarningSource::Resume,
            event_index: None,
            event_type: None,
            kind: None,
            message: format!(
                "the connection broke off ({reason}); joining the run again after event id \
                 {} in {} ms (attempt {attempt} of {})",
                last.as_deref().unwrap_or("none"),
                delay.as_millis(),
                self.resume.max_attempts
            ),
        };
        self.core.reconnect(
            RunItem::Reconnecting(Reconnecting {
                attempt,
                last_event_id: last,
                delay,
                reason,
            }),
            warning,
        );
        self.sleep = None;
        self.phase = Phase::Waiting(Box::pin(tokio::time::sleep(delay)));
        true
    }

    /// The request that joins the run again from the last event received.
    fn rejoin(&mut self) {
        let Some(url) = self.resume.join.clone() else {
            self.phase = Phase::Done;
            return;
        };
        let mut headers = self.headers.clone();
        headers.remove(CONTENT_TYPE);
        let after = self.core.last_event_id().unwrap_or("0").to_owned();
        match self
            .client
            .get(url)
            .headers(headers)
            .header("last-event-id", after)
            .build()
        {
            Ok(request) => {
                self.phase = Phase::Sending(Box::pin(self.client.execute(request)));
            }
            Err(e) => {
                self.phase = Phase::Done;
                self.core.fail(ClientError::Config {
                    message: format!("cannot build the request: {e}"),
                });
            }
        }
    }

    /// Reads the run to its end, discarding the events (they are applied to the thread).
    pub async fn finish(mut self) -> RunEnd {
        loop {
            match std::future::poll_fn(|cx| Pin::new(&mut self).poll_next(cx)).await {
                Some(RunItem::End(end)) => return end,
                Some(_) => {}
                None => {
                    return RunEnd {
                        outcome: None,
                        usage: Vec::new(),
                        error: Some(ClientError::invalid_request(
                            "the run was already read to its end",
                        )),
                        warnings: Vec::new(),
                        events: 0,
                    };
                }
            }
        }
    }

    fn fail_reqwest(&mut self, e: reqwest::Error) {
        self.phase = Phase::Done;
        let error = if e.is_timeout() && e.is_connect() {
            ClientError::Timeout {
                phase: TimeoutPhase::Connect,
                limit: self.connect_timeout,
            }
        } else if e.is_timeout() {
            ClientError::Timeout {
                phase: TimeoutPhase::Idle,
                limit: None,
            }
        } else {
            ClientError::transport(e)
        };
        self.core.fail(error);
    }

    /// Polls the idle timer; true when it fired (the run then failed, or, for a
    /// resumable run, is being joined again).
    fn idle_expired(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(limit) = self.idle else {
            return false;
        };
        let sleep = self
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        if sleep.as_mut().poll(cx).is_ready() {
            if self.try_resume(format!("nothing arrived for {} ms", limit.as_millis())) {
                return true;
            }
            self.phase = Phase::Done;
            self.core.fail(ClientError::Timeout {
                phase: TimeoutPhase::Idle,
                limit: Some(limit),
            });
            return true;
        }
        false
    }

    fn bytes_arrived(&mut self) {
        if let (Some(limit), Some(sleep)) = (self.idle, self.sleep.as_mut()) {
            sleep.as_mut().reset(tokio::time::Instant::now() + limit);
        }
    }

    fn on_response(&mut self, response: reqwest::Response) {
        let status = response.status();
        if status.is_server_error()
            && self.resume.attempts > 0
            && self.try_resume(format!("the server answered the join with {status}"))
        {
            return;
        }
        if !status.is_success() {
            self.phase = Phase::ErrorBody {
                status: status.as_u16(),
                body: Box::pin(response.bytes_stream()),
                buf: Vec::new(),
            };
            return;
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let media = content_type.as_deref().map(media_type);
        #[cfg(feature = "proto")]
        let proto = media.as_deref() == Some(ag_ui_core::sse::PROTO_MEDIA_TYPE);
        #[cfg(not(feature = "proto"))]
        let proto = false;
        if !proto && media.as_deref() != Some(SSE_MEDIA_TYPE) {
            self.phase = Phase::Done;
            self.core.fail(ClientError::ContentType { content_type });
            return;
        }
        #[cfg(feature = "proto")]
        self.core.set_proto(proto);
        if self.resume.join.is_none()
            && self.resume.max_attempts > 0
            && let Some(location) = response.headers().get(reqwest::header::CONTENT_LOCATION)
            && let Ok(location) = location.to_str()
            && let Ok(join) = response.url().join(location)
        {
            self.resume.join = Some(join);
        }
        self.phase = Phase::Streaming(Box::pin(response.bytes_stream()));
    }

    fn error_body_done(&mut self, status: u16, mut buf: Vec<u8>, ended: bool) {
        let truncated = !ended || buf.len() > self.max_error_body;
        buf.truncate(self.max_error_body);
        let mut body = String::from_utf8_lossy(&buf).into_owned();
        // A character cut by the bound shows as one replacement character at the end.
        if truncated && body.ends_with('\u{FFFD}') {
            body.pop();
        }
        self.phase = Phase::Done;
        self.core.fail(ClientError::HttpStatus {
            status,
            body,
            truncated,
        });
    }
}

impl Stream for HttpRun<'_> {
    type Item = RunItem;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RunItem>> {
        let this = self.get_mut();
        loop {
            if this.core.is_done() {
                this.phase = Phase::Done;
                return Poll::Ready(None);
            }
            if !this.core.is_closed() && this.core.abort.poll_aborted(cx) {
                this.phase = Phase::Done;
                this.core.fail(ClientError::Aborted);
            }
            if this.core.has_item() {
                if this.core.is_closed() {
                    this.phase = Phase::Done;
                }
                return Poll::Ready(this.core.next_item());
            }
            match &mut this.phase {
                Phase::Sending(fut) => match fut.as_mut().poll(cx) {
                    Poll::Ready(Ok(response)) => {
                        this.bytes_arrived();
                        this.on_response(response);
                    }
                    Poll::Ready(Err(e)) => {
                        let retry = this.resume.attempts > 0
                            && this.try_resume(format!("the join failed: {e}"));
                        if !retry {
                            this.fail_reqwest(e);
                        }
                    }
                    Poll::Pending => {
                        if !this.idle_expired(cx) {
                            return Poll::Pending;
                        }
                    }
                },
                Phase::Waiting(sleep) => match sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => this.rejoin(),
                    Poll::Pending => return Poll::Pending,
                },
                Phase::ErrorBody { status, body, buf } => match body.as_mut().poll_next(cx) {
                    Poll::Ready(Some(Ok(chunk))) => {
                        buf.extend_from_slice(&chunk);
                        if buf.len() > this.max_error_body {
                            let (status, buf) = (*status, std::mem::take(buf));
                            this.error_body_done(status, buf, false);
                        } else {
                            this.bytes_arrived();
                        }
                    }
                    Poll::Ready(Some(Err(_))) | Poll::Ready(None) => {
                        // A body that breaks off still leaves the status to report.
                        let (status, buf) = (*status, std::mem::take(buf));
                        this.error_body_done(status, buf, true);
                    }
                    Poll::Pending => {
                        if !this.idle_expired(cx) {
                            return Poll::Pending;
                        }
                    }
                },
                Phase::Streaming(body) => match body.as_mut().poll_next(cx) {
                    Poll::Ready(Some(Ok(chunk))) => {
                        this.core.feed(&chunk);
                        this.bytes_arrived();
                        if this.core.delivered() > this.resume.delivered_at {
                            this.resume.attempts = 0;
                        }
                        if this.core.is_closed() {
                            this.phase = Phase::Done;
                        }
                    }
                    Poll::Ready(Some(Err(e))) => {
                        if !this.try_resume(format!("the response body failed: {e}")) {
                            this.fail_reqwest(e);
                        }
                    }
                    Poll::Ready(None) => {
                        let cut = !this.core.has_terminal()
                            && this.try_resume(
                                "the response ended before the run's terminal event".to_owned(),
                            );
                        if !cut {
                            this.phase = Phase::Done;
                            this.core.finish();
                        }
                    }
                    Poll::Pending => {
                        if !this.idle_expired(cx) {
                            return Poll::Pending;
                        }
                    }
                },
                Phase::Done => this.core.finish(),
            }
        }
    }
}

impl Drop for HttpRun<'_> {
    fn drop(&mut self) {
        // Close the connection first, then give the thread back to the agent.
        self.phase = Phase::Done;
        *self.slot = self.core.take_thread();
    }
}
