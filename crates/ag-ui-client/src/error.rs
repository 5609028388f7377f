//! The client's one error type and its kinds.

use std::fmt;
use std::time::Duration;

use ag_ui_core::{BoxError, PipelineError, Violation};

/// Default bound on the part of an error response's body that is read and kept (4 KiB).
#[cfg(feature = "http")]
pub const DEFAULT_MAX_ERROR_BODY_BYTES: usize = 4 * 1024;

/// Why a run failed on the client's side: the transport, the HTTP exchange, the framing,
/// or the stream's content. An agent's own `RUN_ERROR` is not one of these: it is an
/// outcome ([`crate::RunOutcome::Error`]) of a run that worked.
///
/// Every variant is one [`ClientErrorKind`]; `docs/errors.md` lists them with their messages.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The agent answered with a status other than 2xx.
    #[error(
        "the agent answered HTTP {status}{}{}",
        if body.is_empty() { "" } else { ": " },
        BodyText(body, *truncated)
    )]
    HttpStatus {
        /// The status code.
        status: u16,
        /// The start of the response body (lossy UTF-8), at most the configured bound.
        body: String,
        /// Whether the body was longer than what `body` holds (the rest was not read).
        truncated: bool,
    },
    /// The response is not `text/event-stream`.
    #[error("{}", content_type_message(content_type.as_deref()))]
    ContentType {
        /// The response's `Content-Type`, if it had one.
        content_type: Option<String>,
    },
    /// The bytes could not be framed as Server-Sent Events (invalid UTF-8, a message over
    /// the size cap), or, with the `proto` feature, as protobuf frames (a frame that does not
    /// decode, a length above the size cap).
    #[error("{0}")]
    Sse(#[source] ag_ui_core::Error),
    /// An event of the stream was refused: not JSON, not an AG-UI 1.0 event, or a broken
    /// stream rule (spec §9.1). [`ClientError::kind`] tells which.
    #[error("{0}")]
    Event(#[source] PipelineError),
    /// The stream ended cleanly but without `RUN_FINISHED` or `RUN_ERROR` closing the run.
    #[error(
        "the stream ended after {events} delivered event{} without a RUN_FINISHED or RUN_ERROR \
         closing the run",
        if *events == 1 { "" } else { "s" }
    )]
    IncompleteStream {
        /// Events delivered before the end.
        events: usize,
    },
    /// The connection failed: connecting, sending, or reading the body (including a
    /// connection closed in the middle of the response).
    #[error("transport error: {}", Chain(source.as_ref()))]
    Transport {
        /// What the transport reported.
        #[source]
        source: BoxError,
    },
    /// A time limit passed: connecting, or waiting for the agent's next bytes.
    #[error("{phase} timed out{}", limit.map(|d| format!(" after {} ms", d.as_millis())).unwrap_or_default())]
    Timeout {
        /// What was being waited for.
        phase: TimeoutPhase,
        /// The limit, when known.
        limit: Option<Duration>,
    },
    /// The run was aborted on the client's side ([`crate::AbortHandle::abort`]); the
    /// connection was closed. Not the agent's `cancelled` outcome.
    #[error("the run was aborted by the client")]
    Aborted,
    /// The request could not be built or sent as asked (nothing was sent): a resume that does
    /// not answer every pending interrupt, an input that cannot be encoded.
    #[error("invalid request: {message}")]
    InvalidRequest {
        /// What is wrong.
        message: String,
    },
    /// A JSON route's answer (the threads API's) is not the record the route returns.
    #[error("invalid answer: {message}")]
    InvalidAnswer {
        /// What is wrong, with the JSON path where the reader stopped.
        message: String,
    },
    /// The client is misconfigured (an unusable URL or header, a client that cannot be
    /// built).
    #[error("invalid client configuration: {message}")]
    Config {
        /// What is wrong.
        message: String,
    },
}

/// What a [`ClientError::Timeout`] was waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeoutPhase {
    /// Establishing the connection.
    Connect,
    /// The agent's next bytes: the response head, then each chunk of the body.
    Idle,
}

impl fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connecting to the agent",
            TimeoutPhase::Idle => "waiting for the agent's next bytes",
        })
    }
}

/// The kind of a [`ClientError`], with the stable names used by the `run_agent` example's
/// `errorKind` and by cross-SDK test matrices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClientErrorKind {
    /// `http_status`: a non-2xx response.
    HttpStatus,
    /// `content_type`: a response that is not `text/event-stream` (protobuf included).
    ContentType,
    /// `sse_parse`: bytes that cannot be framed as SSE, or an SSE message whose data is not
    /// JSON (or nests deeper than the reader's 127 levels).
    SseParse,
    /// `transport`: connecting, sending or reading failed (a dropped connection).
    Transport,
    /// `incomplete_stream`: a clean end without a terminal event.
    IncompleteStream,
    /// `protocol_order`: an event that breaks a stream rule (spec §9.1).
    ProtocolOrder,
    /// `schema`: JSON that is not an AG-UI 1.0 event (a malformed known field), or a JSON
    /// route's answer that is not its record.
    Schema,
    /// `abort`: aborted by the client.
    Abort,
    /// `timeout`: the connect or idle-read limit passed.
    Timeout,
    /// `invalid_request`: nothing was sent; the request could not be built as asked.
    InvalidRequest,
    /// `config`: the client is misconfigured.
    Config,
}

impl ClientErrorKind {
    /// The stable snake_case name (`http_status`, `sse_parse`, …).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::HttpStatus => "http_status",
            Self::ContentType => "content_type",
            Self::SseParse => "sse_parse",
            Self::Transport => "transport",
            Self::IncompleteStream => "incomplete_stream",
            Self::ProtocolOrder => "protocol_order",
            Self::Schema => "schema",
            Self::Abort => "abort",
            Self::Timeout => "timeout",
            Self::InvalidRequest => "invalid_request",
            Self::Config => "config",
        }
    }
}

impl fmt::Display for ClientErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ClientError {
    /// The error's kind.
    #[must_use]
    pub fn kind(&self) -> ClientErrorKind {
        match self {
            ClientError::HttpStatus { .. } => ClientErrorKind::HttpStatus,
            ClientError::ContentType { .. } => ClientErrorKind::ContentType,
            ClientError::Sse(_) => ClientErrorKind::SseParse,
            ClientError::Event(PipelineError::Violation(_)) => ClientErrorKind::ProtocolOrder,
            ClientError::Event(PipelineError::Decode { error, .. })
                if matches!(
                    error.kind(),
                    ag_ui_core::ErrorKind::Syntax | ag_ui_core::ErrorKind::TooDeep
                ) =>
            {
                ClientErrorKind::SseParse
            }
            ClientError::Event(_) => ClientErrorKind::Schema,
            ClientError::IncompleteStream { .. } => ClientErrorKind::IncompleteStream,
            ClientError::Transport { .. } => ClientErrorKind::Transport,
            ClientError::Timeout { .. } => ClientErrorKind::Timeout,
            ClientError::Aborted => ClientErrorKind::Abort,
            ClientError::InvalidRequest { .. } => ClientErrorKind::InvalidRequest,
            ClientError::InvalidAnswer { .. } => ClientErrorKind::Schema,
            ClientError::Config { .. } => ClientErrorKind::Config,
        }
    }

    /// The stream rule broken, for a [`ClientErrorKind::ProtocolOrder`] error.
    #[must_use]
    pub fn violation(&self) -> Option<&Violation> {
        match self {
            ClientError::Event(PipelineError::Violation(v)) => Some(v),
            _ => None,
        }
    }

    /// The 0-based index of the refused event (counting every event the agent sent,
    /// dropped ones included), for an error about one event.
    #[must_use]
    pub fn event_index(&self) -> Option<usize> {
        match self {
            ClientError::Event(e) => Some(e.index()),
            _ => None,
        }
    }

    /// The HTTP status, for an [`ClientErrorKind::HttpStatus`] error.
    #[must_use]
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::HttpStatus { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Wraps any error of the byte source as a transport error.
    pub fn transport(source: impl Into<BoxError>) -> Self {
        ClientError::Transport {
            source: source.into(),
        }
    }

    pub(crate) fn invalid_answer(message: impl Into<String>) -> Self {
        ClientError::InvalidAnswer {
            message: message.into(),
        }
    }

    pub(crate) fn invalid_request(message: impl Into<String>) -> Self {
        ClientError::InvalidRequest {
            message: message.into(),
        }
    }
}

impl From<std::convert::Infallible> for ClientError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}

impl From<std::io::Error> for ClientError {
    fn from(e: std::io::Error) -> Self {
        ClientError::transport(e)
    }
}

fn content_type_message(content_type: Option<&str>) -> String {
    match content_type {
        None => {
            "the response has no Content-Type; an AG-UI agent answers text/event-stream".to_owned()
        }
        Some(ct) if media_type(ct) == ag_ui_core::sse::PROTO_MEDIA_TYPE => format!(
            "the agent answered with the AG-UI protobuf encoding ({ct}), which this client does \
             not support; it asks for and reads text/event-stream"
        ),
        Some(ct) => format!(
            "the response is {ct:?}, not text/event-stream: the URL may not be an AG-UI agent \
             endpoint"
        ),
    }
}

struct BodyText<'a>(&'a str, bool);

impl fmt::Display for BodyText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)?;
        if self.1 {
            f.write_str(" [truncated]")?;
        }
        Ok(())
    }
}

/// An error with its sources, `: `-separated (reqwest's own message leaves out the cause).
struct Chain<'a>(&'a (dyn std::error::Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut last = self.0.to_string();
        let mut next = self.0.source();
        while let Some(e) = next {
            let text = e.to_string();
            // Some layers repeat their cause's text; say it once.
            if !last.contains(&text) {
                write!(f, ": {text}")?;
            }
            last = text;
            next = e.source();
        }
        Ok(())
    }
}

/// The media type of a `Content-Type` value: its part before any `;`, trimmed and
/// lowercased (`Text/Event-Stream; charset=utf-8` is `text/event-stream`).
pub(crate) fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// [`ClientError::HttpStatus`] for a non-2xx `response`: its status and the start of its
/// body, at most `max` bytes kept (cut at a character boundary).
#[cfg(feature = "http")]
pub(crate) async fn status_error(response: reqwest::Response, max: usize) -> ClientError {
    let status = response.status().as_u16();
    let mut body = response.text().await.unwrap_or_default();
    let truncated = body.len() > max;
    if truncated {
        let mut cut = max;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body.truncate(cut);
    }
    ClientError::HttpStatus {
        status,
        body,
        truncated,
    }
}
