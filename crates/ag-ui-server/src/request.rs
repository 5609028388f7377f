//! Reading the request: content type, size, and the forgiving 1.0 reader.

use ag_ui_core::{ReadMode, RunAgentInput, Warning};

/// Default cap on a request body: 8 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 8 * 1024 * 1024;

/// A request the server refuses before any run starts: an HTTP status and a JSON body
/// that says what is wrong and, for an invalid body, where (a JSON Pointer).
///
/// The body is `{"status": 400, "code": "invalid_body", "error": "invalid_body", "message": "...", "pointer": "/messages/0/role"}`:
/// the machine-readable code is both `code` and `error` (the same value), `pointer` only
/// when the problem is at a place in the request document.
///
/// A rejection may carry response headers ([`with_header`](Self::with_header)). A 401
/// always goes out with a `WWW-Authenticate` challenge, as HTTP requires: the one given
/// ([`unauthorized`](Self::unauthorized), or `with_header("www-authenticate", ...)`),
/// else `WWW-Authenticate: Bearer`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rejection {
    /// The HTTP status: 400, 404, 405, 406, 408, 413 or 415 (and 400, 414, 431 for the
    /// requests the HTTP layer refuses itself, from [`serve`](crate::serve::serve); 409,
    /// 410, 503 from resumable runs; whatever an authorisation refuses with, 401 or 403).
    pub status: u16,
    /// A machine-readable code, sent as both `code` and `error` in the body:
    /// `invalid_body`, `not_found`, `method_not_allowed`, `not_acceptable`,
    /// `body_timeout`, `body_too_large`, `unsupported_media_type`, `body_unreadable` (and
    /// `bad_request`, `uri_too_long`, `header_fields_too_large`; `unauthorized` from
    /// [`unauthorized`](Self::unauthorized); `run_not_found`, `thread_not_found`,
    /// `invalid_cursor`, `cursor_expired`, `run_exists`, `thread_busy`,
    /// `invalid_parameter`, `store_full`, `store_unavailable` from resumable runs).
    pub error: &'static str,
    /// What is wrong, in a sentence.
    pub message: String,
    /// Where in the request document, for `invalid_body`.
    pub pointer: Option<String>,
    /// Headers of the response, as `(name, value)` pairs, in order: a 401's
    /// `WWW-Authenticate`, a 503's `Retry-After`. A name given here replaces the header
    /// the response would otherwise have (`allow` of a 405, for example); a name or value
    /// that is not valid in HTTP is left out of the response.
    pub headers: Vec<(String, String)>,
}

impl Rejection {
    /// A rejection.
    #[must_use]
    pub fn new(status: u16, error: &'static str, message: impl Into<String>) -> Self {
        Rejection {
            status,
            error,
            message: message.into(),
            pointer: None,
            headers: Vec::new(),
        }
    }

    /// 401 `unauthorized` with the challenge `WWW-Authenticate: {challenge}` (for example
    /// `Bearer realm="agents"` or `Basic realm="agents", charset="UTF-8"`).
    #[must_use]
    pub fn unauthorized(challenge: impl Into<String>) -> Self {
        Self::new(
            401,
            "unauthorized",
            "the request lacks valid credentials for this agent",
        )
        .with_header("www-authenticate", challenge)
    }

    /// This rejection with the response header `name: value` added (see
    /// [`headers`](Self::headers)).
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// 406: the request's `Accept` excludes `text/event-stream`.
    #[must_use]
    pub fn not_acceptable() -> Self {
        Self::new(
            406,
            "not_acceptable",
            "this endpoint answers with text/event-stream, which the request's Accept header excludes",
        )
    }

    /// 405: only `POST` starts a run.
    #[must_use]
    pub fn method_not_allowed(method: &str) -> Self {
        Self::new(
            405,
            "method_not_allowed",
            format!("method {method} is not allowed: POST a RunAgentInput to start a run"),
        )
    }

    /// 413: the body is larger than `limit` bytes.
    #[must_use]
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            413,
            "body_too_large",
            format!("the request body is larger than the limit of {limit} bytes"),
        )
    }

    /// 408: the body did not arrive within the server's body timeout
    /// ([`BodyTimeout`]).
    #[must_use]
    pub fn body_timeout() -> Self {
        Self::new(
            408,
            "body_timeout",
            "the request body did not arrive within the server's body timeout",
        )
    }

    /// 404: nothing is served at the request's path.
    #[must_use]
    pub fn not_found(path: &str) -> Self {
        Self::new(
            404,
            "not_found",
            format!("nothing is served at {path}: POST the RunAgentInput to the agent's path"),
        )
    }

    /// The JSON body of the response.
    #[must_use]
    pub fn body(&self) -> Vec<u8> {
        let mut doc = serde_json::json!({
            "status": self.status,
            "code": self.error,
            "error": self.error,
            "message": self.message,
        });
        if let (Some(p), Some(obj)) = (&self.pointer, doc.as_object_mut()) {
            obj.insert("pointer".into(), serde_json::Value::String(p.clone()));
        }
        serde_json::to_vec(&doc).unwrap_or_default()
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.error, self.message)
    }
}

impl std::error::Error for Rejection {}

/// The error a request body fails with when it did not arrive within the server's body
/// timeout ([`ServeConfig::body_timeout`](crate::serve::ServeConfig::body_timeout)); the
/// server's readers answer it with a 408 [`Rejection`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct BodyTimeout;

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request body did not arrive within the body timeout")
    }
}

impl std::error::Error for BodyTimeout {}

/// Checks that a `Content-Type` header value is JSON (`application/json` or a `+json`
/// type, any parameters). A missing header is refused too: the run input is JSON and
/// clients say so.
///
/// # Errors
/// A 415 [`Rejection`].
pub fn check_content_type(content_type: Option<&str>) -> Result<(), Rejection> {
    let essence = content_type
        .and_then(|ct| ct.split(';').next())
        .map(|s| s.trim().to_ascii_lowercase());
    match essence.as_deref() {
        Some("application/json") => Ok(()),
        Some(t) if t.starts_with("application/") && t.ends_with("+json") => Ok(()),
        Some(t) => Err(Rejection::new(
            415,
            "unsupported_media_type",
            format!("the request body must be application/json, not {t}"),
        )),
        None => Err(Rejection::new(
            415,
            "unsupported_media_type",
            "the request has no Content-Type: send the RunAgentInput as application/json",
        )),
    }
}

/// Reads a `RunAgentInput` with the forgiving 1.0 reader (unknown fields skipped, optional
/// `null`s read as absent, 0.x shapes translated), returning what was forgiven.
///
/// # Errors
/// A 400 [`Rejection`] whose `pointer` names the offending member (the empty pointer is
/// the document itself), and a 413 one when `body` is longer than `limit`.
pub fn read_request_body(
    body: &[u8],
    limit: usize,
) -> Result<(RunAgentInput, Vec<Warning>), Rejection> {
    if body.len() > limit {
        return Err(Rejection::too_large(limit));
    }
    match ag_ui_core::read::decode_slice::<RunAgentInput>(body, ReadMode::Forgiving) {
        Ok(decoded) => Ok((decoded.value, decoded.warnings)),
        Err(e) => {
            let mut r = Rejection::new(400, "invalid_body", format!("not a RunAgentInput: {e}"));
            r.pointer = Some(e.pointer().unwrap_or("").to_owned());
            Err(r)
        }
    }
}
