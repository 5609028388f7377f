//! Building the `RunAgentInput` a run sends (spec §8.1).

use ag_ui_core::{
    Context, Message, ReadMode, ResumeEntry, RunAgentInput, RunId, ThreadId, ThreadState, Tool,
};
use serde_json::Value;

use crate::compat::Compat;
use crate::error::ClientError;
use crate::warning::{RunWarning, WarningSource};
use ag_ui_core::ProtocolVersion;

/// What a run sends besides the thread's messages and state: tools, context, forwarded
/// props, ids and resume answers. Everything is optional; the defaults are what the
/// official client sends (`tools: []`, `context: []`, `forwardedProps: {}`, a fresh random
/// `runId`).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct RunOptions {
    /// The run id; a random UUID when absent.
    pub run_id: Option<RunId>,
    /// The run this one branches from.
    pub parent_run_id: Option<RunId>,
    /// Client-provided tools.
    pub tools: Vec<Tool>,
    /// Ambient context entries.
    pub context: Vec<Context>,
    /// Values passed to the agent untouched (`{}` when absent).
    pub forwarded_props: Option<Value>,
    /// Answers to the interrupts of the previous run.
    pub resume: Option<Vec<ResumeEntry>>,
    /// The W3C `traceparent` sent with the run request, so the server continues the
    /// application's trace. Without it, and with the `otel` feature, the current `tracing`
    /// span's OpenTelemetry context is sent when it has one.
    pub traceparent: Option<String>,
    /// The W3C `tracestate` sent beside [`traceparent`](Self::traceparent).
    pub tracestate: Option<String>,
    /// What the workspace server does when the thread has a run going on (its
    /// `?multitask=` query parameter; without it, the service's policy, `reject` by
    /// default: 409 `thread_busy`).
    pub multitask: Option<ag_ui_core::api::Multitask>,
}

impl RunOptions {
    /// Options with every default.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the workspace server for `policy` should the thread have a run going on
    /// (the `multitask` field).
    #[must_use]
    pub fn multitask(mut self, policy: ag_ui_core::api::Multitask) -> Self {
        self.multitask = Some(policy);
        self
    }

    /// Sets the run id.
    #[must_use]
    pub fn run_id(mut self, run_id: impl Into<RunId>) -> Self {
        self.run_id = Some(run_id.into());
        self
    }

    /// Sets the parent run id.
    #[must_use]
    pub fn parent_run_id(mut self, run_id: impl Into<RunId>) -> Self {
        self.parent_run_id = Some(run_id.into());
        self
    }

    /// Adds a tool.
    #[must_use]
    pub fn tool(mut self, tool: Tool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Sets the tools.
    #[must_use]
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> Self {
        self.tools = tools.into_iter().collect();
        self
    }

    /// Adds a context entry.
    #[must_use]
    pub fn context(mut self, context: Context) -> Self {
        self.context.push(context);
        self
    }

    /// Sets the forwarded props.
    #[must_use]
    pub fn forwarded_props(mut self, props: Value) -> Self {
        self.forwarded_props = Some(props);
        self
    }

    /// Sets the resume answers (`resume`), one entry per interrupt answered (as
    /// `ag_ui_builders::RunInputBuilder::resume_all`).
    #[must_use]
    pub fn resume_all(mut self, entries: impl IntoIterator<Item = ResumeEntry>) -> Self {
        self.resume = Some(entries.into_iter().collect());
        self
    }

    /// Sends `traceparent` (a W3C `traceparent` value, `00-{trace id}-{span id}-{flags}`)
    /// and `tracestate` with the run request, so the server continues this trace.
    #[must_use]
    pub fn trace_context(
        mut self,
        traceparent: impl Into<String>,
        tracestate: Option<String>,
    ) -> Self {
        self.traceparent = Some(traceparent.into());
        self.tracestate = tracestate;
        self
    }
}

/// The `traceparent` of the current `tracing` span's OpenTelemetry context (feature
/// `otel`, with a `tracing-opentelemetry` layer installed); `None` when it has none.
#[cfg(feature = "otel")]
#[must_use]
pub fn current_traceparent() -> Option<String> {
    use opentelemetry::trace::TraceContextExt;
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    let context = tracing::Span::current().context();
    let span = context.span();
    let sc = span.span_context();
    sc.is_valid().then(|| {
        format!(
            "00-{}-{}-{:02x}",
            sc.trace_id(),
            sc.span_id(),
            sc.trace_flags().to_u8()
        )
    })
}

/// Builds the input for a run of `thread` with `options`, for an agent whose protocol
/// ceiling is `ceiling` (`None`: a 1.0 agent). Returns the input and what a downgrade
/// removed.
///
/// As the official client (spec §8.1): `tools`, `context`, `forwardedProps` and `state`
/// are always sent, activity messages (client-only) are left out, `protocolVersion` is
/// `"1.0"` unless the ceiling is older. [`build_input_as`] for a client speaking another
/// version.
#[must_use]
pub fn build_input(
    thread_id: &ThreadId,
    thread: &ThreadState,
    options: &RunOptions,
    ceiling: Option<ProtocolVersion>,
) -> (RunAgentInput, Vec<RunWarning>) {
    build_input_as(thread_id, thread, options, ceiling, ProtocolVersion::V1_0)
}

/// [`build_input`] for a client that speaks `version`: the input declares `version` (or
/// the ceiling, when older), and what the declared version does not know (the
/// `encryptedValueType` of AG-UI 1.1 for a 1.0 declaration) is left out, each removal a
/// [`WarningSource::Compatibility`] warning.
#[must_use]
pub fn build_input_as(
    thread_id: &ThreadId,
    thread: &ThreadState,
    options: &RunOptions,
    ceiling: Option<ProtocolVersion>,
    version: ProtocolVersion,
) -> (RunAgentInput, Vec<RunWarning>) {
    let mut input = RunAgentInput::new(
        thread_id.clone(),
        options.run_id.clone().unwrap_or_else(RunId::random),
        thread.messages().to_vec(),
    );
    input.parent_run_id = options.parent_run_id.clone();
    input.state = Some(thread.state().clone());
    input.tools = Some(options.tools.clone());
    input.context = Some(options.context.clone());
    input.forwarded_props = options.forwarded_props.clone();
    input.resume = options.resume.clone();
    normalize_input_as(input, ceiling, version)
}

/// Completes and downgrades an input given whole, as [`build_input`] does for the ones it
/// builds: defaults for `tools`, `context`, `forwardedProps` and `state`, no activity
/// messages, `protocolVersion`, and the downgrade for `ceiling`.
#[must_use]
pub fn normalize_input(
    input: RunAgentInput,
    ceiling: Option<ProtocolVersion>,
) -> (RunAgentInput, Vec<RunWarning>) {
    normalize_input_as(input, ceiling, ProtocolVersion::V1_0)
}

/// [`normalize_input`] for a client that speaks `version`, as [`build_input_as`] says.
#[must_use]
pub fn normalize_input_as(
    mut input: RunAgentInput,
    ceiling: Option<ProtocolVersion>,
    version: ProtocolVersion,
) -> (RunAgentInput, Vec<RunWarning>) {
    input
        .messages
        .retain(|m| !matches!(m, Message::Activity(_)));
    input.tools.get_or_insert_with(Vec::new);
    input.context.get_or_insert_with(Vec::new);
    input
        .forwarded_props
        .get_or_insert_with(|| Value::Object(serde_json::Map::new()));
    input
        .state
        .get_or_insert_with(|| Value::Object(serde_json::Map::new()));
    let compat = Compat::new(ceiling).speaking(version);
    let warnings = compat.downgrade(&mut input);
    (input, warnings)
}

/// Reads a `RunAgentInput` from JSON as the receiver of the newest version does: unknown
/// fields stripped, optional `null`s read as absent and 0.x `binary` content parts upgraded
/// to media parts, each reported as a warning. The upgrade of a `binary` part is reported
/// only for an input that declares no `protocolVersion` or one older than 1.0: the notice
/// is for a 0.x caller, and the translation itself loses nothing, so an input of a current
/// caller is upgraded quietly.
///
/// # Errors
/// [`ClientError::InvalidRequest`] naming the JSON Pointer of what is malformed.
pub fn read_input(json: &str) -> Result<(RunAgentInput, Vec<RunWarning>), ClientError> {
    let decoded = ag_ui_core::read::decode::<RunAgentInput>(json, ReadMode::Forgiving)
        .map_err(|e| ClientError::invalid_request(format!("the RunAgentInput is invalid: {e}")))?;
    let current = decoded
        .value
        .protocol_version
        .as_deref()
        .and_then(ProtocolVersion::parse)
        .is_some_and(|v| v >= ProtocolVersion::V1_0);
    let warnings = decoded
        .warnings
        .into_iter()
        .filter(|w| !(current && w.kind == ag_ui_core::WarningKind::LegacyBinaryPart))
        .map(|w| RunWarning {
            source: WarningSource::Request,
            event_index: None,
            event_type: None,
            kind: Some(w.kind),
            message: format!("request: {w}"),
        })
        .collect();
    Ok((decoded.value, warnings))
}

/// Encodes the request body.
#[cfg(feature = "http")]
pub(crate) fn encode(input: &RunAgentInput) -> Result<Vec<u8>, ClientError> {
    ag_ui_core::write::to_vec(input).map_err(|e| {
        ClientError::invalid_request(format!("the RunAgentInput cannot be encoded: {e}"))
    })
}

/// Checks that `resume` answers exactly the `pending` interrupts (no partial resumes,
/// spec §9.2): [`ag_ui_core::check_resume`], as a request error.
#[cfg(feature = "http")]
pub(crate) fn check_resume(
    pending: &[ag_ui_core::Interrupt],
    resume: &[ResumeEntry],
) -> Result<(), ClientError> {
    ag_ui_core::check_resume(pending, resume)
        .map_err(|e| ClientError::invalid_request(e.to_string()))
}
