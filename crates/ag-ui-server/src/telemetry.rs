//! What the server tells operators about its requests and runs: request ids, W3C trace
//! context, and the record of a model call an agent hands back for metrics.
//!
//! - **Request ids**: every request the [`AgentService`](crate::AgentService) answers has
//!   one: the request's `x-request-id` when it is usable ([`request_id_or_new`]), else a
//!   fresh one. The response echoes it, the run's [`RunContext`](crate::RunContext) has it,
//!   and the request's `tracing` span (`ag_ui_request`) carries it as `request_id`.
//! - **Trace context**: a valid `traceparent` ([`TraceParent::parse`], strict as the W3C
//!   Trace Context spec says) continues the caller's trace; an invalid or missing one starts
//!   a new trace. The response carries a `traceparent` naming the server's span; the run's
//!   context has the [`TraceContext`] in its
//!   [`extensions`](crate::RunContext::extensions).
//! - **Model calls**: an agent that calls a model reports each call as a [`ModelCall`] to
//!   the [`ModelCallHook`] it finds in the run context's extensions (the service puts one
//!   there when metrics are configured).

use std::sync::Arc;
use std::time::Duration;

pub use crate::runstats::{KNOWN_ERROR_CODES, error_code_label};

/// The header that carries a request's id.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// The longest request id kept from a request (longer ones are replaced).
pub const MAX_REQUEST_ID_LEN: usize = 128;

/// `id` when it is a usable request id (1 to [`MAX_REQUEST_ID_LEN`] bytes of visible ASCII,
/// no space), else a fresh one (32 hex digits).
///
/// ```
/// use ag_ui_server::telemetry::request_id_or_new;
/// assert_eq!(request_id_or_new(Some("req-7")), "req-7");
/// assert_eq!(request_id_or_new(Some("two words")).len(), 32);
/// ```
#[must_use]
pub fn request_id_or_new(id: Option<&str>) -> String {
    match id {
        Some(id)
            if !id.is_empty()
                && id.len() <= MAX_REQUEST_ID_LEN
                && id.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            id.to_owned()
        }
        _ => hex(&random_bytes::<16>()),
    }
}

/// A W3C `traceparent` header (version `00`): the trace, the caller's span in it, and the
/// trace flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceParent {
    trace_id: [u8; 16],
    parent_id: [u8; 8],
    flags: u8,
}

impl TraceParent {
    /// Reads a `traceparent` value: `00-{32 hex}-{16 hex}-{2 hex}`, lower-case hex only,
    /// neither id all zeros. `None` for anything else (the W3C spec says to start a new
    /// trace then). Versions other than `00` are refused too: this server speaks `00`.
    ///
    /// ```
    /// use ag_ui_server::telemetry::TraceParent;
    /// let tp = TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    ///     .unwrap();
    /// assert_eq!(tp.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
    /// assert!(tp.sampled());
    /// assert!(TraceParent::parse("00-00000000000000000000000000000000-00f067aa0ba902b7-01").is_none());
    /// ```
    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        let value = value.trim_matches([' ', '\t']);
        let b = value.as_bytes();
        if b.len() != 55 || b[2] != b'-' || b[35] != b'-' || b[52] != b'-' {
            return None;
        }
        if &b[0..2] != b"00" {
            return None;
        }
        let trace_id: [u8; 16] = unhex(&b[3..35])?;
        let parent_id: [u8; 8] = unhex(&b[36..52])?;
        let [flags]: [u8; 1] = unhex(&b[53..55])?;
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        Some(TraceParent {
            trace_id,
            parent_id,
            flags,
        })
    }

    /// A `traceparent` of these ids and flags; `None` when an id is all zeros.
    #[must_use]
    pub fn from_parts(trace_id: [u8; 16], parent_id: [u8; 8], flags: u8) -> Option<Self> {
        (trace_id != [0; 16] && parent_id != [0; 8]).then_some(TraceParent {
            trace_id,
            parent_id,
            flags,
        })
    }

    /// A new trace (random ids), sampled.
    #[must_use]
    pub fn new_trace() -> Self {
        TraceParent {
            trace_id: nonzero_random(),
            parent_id: nonzero_random(),
            flags: 1,
        }
    }

    /// The same trace and flags, with `span_id` (16 hex digits, not all zeros) as the
    /// parent; `None` when `span_id` is not one.
    #[must_use]
    pub fn with_parent_id(self, span_id: &str) -> Option<Self> {
        let parent_id: [u8; 8] = unhex(span_id.as_bytes())?;
        (parent_id != [0; 8]).then_some(TraceParent { parent_id, ..self })
    }

    /// The same trace and flags, with a fresh random parent id (a span of this process).
    #[must_use]
    pub fn child(self) -> Self {
        TraceParent {
            parent_id: nonzero_random(),
            ..self
        }
    }

    /// The trace id, 32 lower-case hex digits.
    #[must_use]
    pub fn trace_id(&self) -> String {
        hex(&self.trace_id)
    }

    /// The parent (caller's) span id, 16 lower-case hex digits.
    #[must_use]
    pub fn parent_id(&self) -> String {
        hex(&self.parent_id)
    }

    /// The trace id's bytes.
    #[must_use]
    pub fn trace_id_bytes(&self) -> [u8; 16] {
        self.trace_id
    }

    /// The parent span id's bytes.
    #[must_use]
    pub fn parent_id_bytes(&self) -> [u8; 8] {
        self.parent_id
    }

    /// The trace flags.
    #[must_use]
    pub fn flags(&self) -> u8 {
        self.flags
    }

    /// Whether the caller sampled the trace (flag `01`).
    #[must_use]
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }
}

impl std::fmt::Display for TraceParent {
    /// The header value: `00-{trace id}-{parent id}-{flags}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "00-{}-{}-{:02x}",
            hex(&self.trace_id),
            hex(&self.parent_id),
            self.flags
        )
    }
}

/// The trace a request belongs to, as the server saw it: what the caller sent (when it was
/// valid) and the server's own span in that trace. Put in the request's extensions by the
/// [`AgentService`](crate::AgentService), so an agent reads it from
/// [`RunContext::extensions`](crate::RunContext::extensions).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TraceContext {
    /// The caller's valid `traceparent`, when it sent one.
    pub incoming: Option<TraceParent>,
    /// The caller's `tracestate`, passed on unchanged (only kept with a valid `traceparent`).
    pub tracestate: Option<String>,
    /// The server's span: the trace (the caller's, or a new one) with the server's span id;
    /// what the response's `traceparent` says.
    pub server: TraceParent,
}

impl TraceContext {
    /// The context of a request with these `traceparent` and `tracestate` values: the
    /// caller's trace continued when `traceparent` is valid, a new trace otherwise.
    #[must_use]
    pub fn from_headers(traceparent: Option<&str>, tracestate: Option<&str>) -> Self {
        let incoming = traceparent.and_then(TraceParent::parse);
        let server = incoming.map_or_else(TraceParent::new_trace, TraceParent::child);
        TraceContext {
            incoming,
            tracestate: incoming.and(tracestate).map(str::to_owned),
            server,
        }
    }

    /// The trace id (32 hex digits).
    #[must_use]
    pub fn trace_id(&self) -> String {
        self.server.trace_id()
    }
}

/// One model call an agent made, for the GenAI client metrics
/// (`gen_ai_client_operation_duration_seconds`, `gen_ai_client_token_usage`).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ModelCall<'a> {
    /// The operation (`chat`).
    pub operation: &'a str,
    /// The provider (`openai`), `""` when unknown.
    pub provider: &'a str,
    /// The model asked for, `""` when unknown.
    pub request_model: &'a str,
    /// How long the call took, from the request to the end of its answer.
    pub duration: Duration,
    /// Input tokens the provider reported for the call.
    pub input_tokens: Option<u64>,
    /// Output tokens the provider reported for the call.
    pub output_tokens: Option<u64>,
    /// The error code the call failed with (`provider_error`…), `None` when it did not fail.
    pub error_type: Option<&'a str>,
}

impl<'a> ModelCall<'a> {
    /// A `chat` call to `request_model` of `provider` that took `duration`, without usage
    /// or error (add them with the fields).
    #[must_use]
    pub fn chat(provider: &'a str, request_model: &'a str, duration: Duration) -> Self {
        ModelCall {
            operation: "chat",
            provider,
            request_model,
            duration,
            input_tokens: None,
            output_tokens: None,
            error_type: None,
        }
    }
}

/// Records `values` as the string-array attribute `key` of `span` (OpenTelemetry's
/// `string[]`, e.g. `gen_ai.response.finish_reasons`).
///
/// A `tracing` field cannot hold an array: when the `otel` feature is on and the span is
/// exported (an OpenTelemetry layer is installed), the values go to the OpenTelemetry span
/// as an array attribute and the field is left empty; otherwise the field `key` (declared
/// on the span) gets the values as JSON text (`["stop"]`), for logs.
#[cfg(feature = "tracing")]
#[cfg_attr(docsrs, doc(cfg(feature = "tracing")))]
pub fn record_string_array(span: &tracing::Span, key: &'static str, values: &[&str]) {
    #[cfg(feature = "otel")]
    {
        use opentelemetry::trace::TraceContextExt;
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        if span.context().span().span_context().is_valid() {
            let values = values
                .iter()
                .map(|v| opentelemetry::StringValue::from((*v).to_owned()))
                .collect();
            span.set_attribute(
                key,
                opentelemetry::Value::Array(opentelemetry::Array::String(values)),
            );
            return;
        }
    }
    let text = serde_json::to_string(values).unwrap_or_default();
    span.record(key, text);
}

/// Receives the [`ModelCall`]s of runs: put in a request's extensions (the service does when
/// metrics are configured), found by agents through
/// [`RunContext::extensions`](crate::RunContext::extensions).
#[derive(Clone)]
pub struct ModelCallHook(Arc<dyn Fn(&ModelCall<'_>) + Send + Sync>);

impl ModelCallHook {
    /// A hook calling `f`.
    #[must_use]
    pub fn new(f: impl Fn(&ModelCall<'_>) + Send + Sync + 'static) -> Self {
        ModelCallHook(Arc::new(f))
    }

    /// Hands `call` to the hook.
    pub fn record(&self, call: &ModelCall<'_>) {
        (self.0)(call);
    }
}

impl std::fmt::Debug for ModelCallHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ModelCallHook(Fn(&ModelCall))")
    }
}

/// `N` unpredictable bytes (from the standard library's randomly seeded hasher and a
/// process-wide counter; ids, not secrets).
fn random_bytes<const N: usize>() -> [u8; N] {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut out = [0u8; N];
    for chunk in out.chunks_mut(8) {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        let bytes = hasher.finish().to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
    out
}

/// Random bytes, never all zeros.
fn nonzero_random<const N: usize>() -> [u8; N] {
    loop {
        let b = random_bytes::<N>();
        if b != [0; N] {
            return b;
        }
    }
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The bytes of exactly `2 * N` lower-case hex digits.
fn unhex<const N: usize>(digits: &[u8]) -> Option<[u8; N]> {
    if digits.len() != 2 * N {
        return None;
    }
    let value = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; N];
    for (i, pair) in digits.chunks_exact(2).enumerate() {
        out[i] = value(pair[0])? << 4 | value(pair[1])?;
    }
    Some(out)
}
