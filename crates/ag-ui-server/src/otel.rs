//! Export the server's `tracing` spans over OTLP (HTTP/protobuf), continuing the callers'
//! W3C traces (feature `otel`).
//!
//! [`OtlpExport::from_env`] reads the standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT`,
//! `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`); [`OtlpExport::layer`] is the
//! `tracing-subscriber` layer that turns spans into OpenTelemetry spans (span names from
//! their `otel.name` field: `invoke_agent {agent}`, `chat {model}`, `execute_tool {name}`).
//! With the layer installed, the [`AgentService`](crate::AgentService) makes each request's
//! span a child of the caller's `traceparent`, and answers with the `traceparent` of that
//! span.

use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider as _,
};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::telemetry::{TraceContext, TraceParent};

/// The service name used when `OTEL_SERVICE_NAME` is not set.
pub const DEFAULT_SERVICE_NAME: &str = "ag-ui-server";

/// An OTLP span export: a tracer provider with a batch exporter. Keep it for the life of
/// the process and call [`shutdown`](Self::shutdown) before exiting, so the last spans are
/// sent.
#[derive(Debug, Clone)]
pub struct OtlpExport {
    provider: SdkTracerProvider,
}

/// Why the export could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("the OTLP span exporter could not be built: {0}")]
pub struct OtlpError(String);

impl OtlpExport {
    /// The export the environment asks for: `None` when `OTEL_EXPORTER_OTLP_ENDPOINT` is
    /// unset or empty; otherwise spans go to `{endpoint}/v1/traces` as HTTP/protobuf, from a
    /// service named by `OTEL_SERVICE_NAME` (default [`DEFAULT_SERVICE_NAME`]).
    ///
    /// # Errors
    /// When the exporter cannot be built (an endpoint that is no URL).
    pub fn from_env() -> Result<Option<Self>, OtlpError> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let Some(endpoint) = var("OTEL_EXPORTER_OTLP_ENDPOINT") else {
            return Ok(None);
        };
        let name = var("OTEL_SERVICE_NAME").unwrap_or_else(|| DEFAULT_SERVICE_NAME.to_owned());
        Self::new(&endpoint, &name).map(Some)
    }

    /// Spans of service `service_name` sent to `{endpoint}/v1/traces` (`endpoint` the
    /// collector's base URL, e.g. `http://127.0.0.1:4318`) as HTTP/protobuf, in batches.
    ///
    /// # Errors
    /// When the exporter cannot be built.
    pub fn new(endpoint: &str, service_name: &str) -> Result<Self, OtlpError> {
        let url = format!("{}/v1/traces", endpoint.trim_end_matches('/'));
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(url)
            .build()
            .map_err(|e| OtlpError(e.to_string()))?;
        let resource = Resource::builder()
            .with_service_name(service_name.to_owned())
            .build();
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource)
            .build();
        Ok(OtlpExport { provider })
    }

    /// The `tracing` layer that exports spans through this export.
    ///
    /// A run's span is entered on every poll of its event stream, so the layer does no work
    /// on entering and leaving a span: it keeps no busy and idle times (`busy_ns`,
    /// `idle_ns`) and does not make the span's OpenTelemetry context the thread's current
    /// one (code that reads `opentelemetry::Context::current()` inside a span does not see
    /// it; take the context from the `tracing` span with
    /// `tracing_opentelemetry::OpenTelemetrySpanExt::context`). Both cost about a third
    /// of the serve benchmark's throughput (`docs/performance.md`).
    #[must_use]
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer("ag-ui"))
            .with_tracked_inactivity(false)
            .with_context_activation(false)
    }

    /// Sends the spans ended so far.
    ///
    /// # Errors
    /// When the exporter fails.
    pub fn flush(&self) -> Result<(), OtlpError> {
        self.provider
            .force_flush()
            .map_err(|e| OtlpError(e.to_string()))
    }

    /// Sends the remaining spans and stops the exporter.
    ///
    /// # Errors
    /// When the exporter fails.
    pub fn shutdown(&self) -> Result<(), OtlpError> {
        self.provider
            .shutdown()
            .map_err(|e| OtlpError(e.to_string()))
    }
}

/// Makes `span` (a request's span, not yet entered) a child of the caller's trace in
/// `trace`, and returns `trace` with the server span's ids (when an OpenTelemetry layer
/// is installed; `trace` as it was otherwise).
pub(crate) fn continue_trace(span: &tracing::Span, mut trace: TraceContext) -> TraceContext {
    if let Some(incoming) = trace.incoming {
        let state = trace
            .tracestate
            .as_deref()
            .and_then(|s| s.parse::<TraceState>().ok())
            .unwrap_or_default();
        let parent = SpanContext::new(
            TraceId::from_bytes(incoming.trace_id_bytes()),
            SpanId::from_bytes(incoming.parent_id_bytes()),
            TraceFlags::new(incoming.flags()),
            true,
            state,
        );
        let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(parent));
    }
    let context = span.context();
    let own = context.span().span_context().clone();
    if own.is_valid()
        && let Some(server) = TraceParent::from_parts(
            own.trace_id().to_bytes(),
            own.span_id().to_bytes(),
            own.trace_flags().to_u8(),
        )
    {
        trace.server = server;
    }
    trace
}
