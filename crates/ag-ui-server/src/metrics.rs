//! Prometheus metrics of an [`AgentService`](crate::AgentService): its requests, its runs
//! and their events, and the model calls its agent reports (feature `metrics`).
//!
//! Made with [`prometheus-client`](https://docs.rs/prometheus-client), the Prometheus
//! project's own Rust client: typed metric families with label sets checked at compile
//! time, no process-wide registry (each [`Metrics`] has its own, so two services or two
//! tests never share counts), and the OpenMetrics text format that Prometheus scrapes.
//!
//! | metric | type | labels | meaning |
//! |---|---|---|---|
//! | `agui_runs_started_total` | counter | | runs started |
//! | `agui_runs_ended_total` | counter | `outcome`, `error_code` | runs ended: `outcome` is `success`, `interrupt`, `cancelled` (also a client that went away first) or `error`; `error_code` is the `RUN_ERROR` code when the SDK emits it ([`KNOWN_ERROR_CODES`](crate::telemetry::KNOWN_ERROR_CODES)), `other` for any other code, empty when the run did not fail |
//! | `agui_runs_active` | gauge | | runs started and not ended |
//! | `agui_run_duration_seconds` | histogram | | from a run's start to its end |
//! | `agui_time_to_first_event_seconds` | histogram | | from a run's start to its first event |
//! | `agui_events_sent_total` | counter | `type` | events sent, by event type (`TEXT_MESSAGE_CONTENT`…) |
//! | `agui_run_joins_total` | counter | | requests to join a run's stream |
//! | `agui_store_errors_total` | counter | `store`, `op` | failures of a run or thread store: the run store's own (`store="run"`, `op` the [`RunStore`] operation: `create_run`, `append`, `end_run`, `tail`, `request_stop`, `renew_lease`…) are counted when the service has runs and metrics; others as the application records them ([`Metrics::store_error`]) |
//! | `agui_http_requests_total` | counter | `route`, `status` | requests answered: `route` one of `start`, `join`, `stop`, `thread`, `threads`, `follow`, `capabilities`, `openapi`, `metrics`, `other` |
//! | `gen_ai_client_token_usage` | histogram | `gen_ai_token_type` (`input`, `output`), `gen_ai_request_model`, `gen_ai_provider_name` | tokens per model call |
//! | `gen_ai_client_operation_duration_seconds` | histogram | `gen_ai_operation_name`, `gen_ai_request_model`, `gen_ai_provider_name`, `error_type` | duration of each model call |
//!
//! No label holds an id or user text; `gen_ai_request_model` holds the model names the
//! agent is configured with.

use std::sync::Arc;
use std::time::Duration;

use ag_ui_core::EventType;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

use futures_util::StreamExt;

use crate::body::SseBody;
use crate::runs::{
    Cursor, Record, RecordStream, RunMeta, RunStore, StoreError, StoreFuture, ThreadRunStream,
};
use crate::runstats::{Observer, Outcome, RunObserver};
use crate::telemetry::{ModelCall, ModelCallHook, error_code_label};

/// The media type of the answer of `GET /metrics`: OpenMetrics text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

type Labels<const N: usize> = [(&'static str, &'static str); N];
type ModelLabels<const N: usize> = [(&'static str, String); N];
type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// The metrics of one service (cheap to clone: clones share the counts). Give it to
/// [`AgentService::metrics`](crate::AgentService::metrics); read it with
/// [`encode`](Self::encode) or over `GET {agent path}/metrics`.
#[derive(Clone)]
pub struct Metrics {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Registry,
    runs_started: Counter,
    runs_ended: Family<Labels<2>, Counter>,
    runs_active: Gauge,
    run_duration: Histogram,
    time_to_first_event: Histogram,
    events_sent: Family<Labels<1>, Counter>,
    /// `events_sent`'s counter of each event type (by its discriminant), taken from the
    /// family on first use: counting an event is one atomic add, not a map lookup.
    events_sent_by_type: Vec<std::sync::OnceLock<Counter>>,
    joins: Counter,
    store_errors: Family<ModelLabels<2>, Counter>,
    http_requests: Family<ModelLabels<2>, Counter>,
    token_usage: HistogramFamily<ModelLabels<3>>,
    operation_duration: HistogramFamily<ModelLabels<4>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

fn run_duration_buckets() -> Histogram {
    // 50 ms to about 100 s.
    Histogram::new(exponential_buckets(0.05, 2.0, 12))
}

fn token_buckets() -> Histogram {
    // The GenAI conventions' advice: 1, 4, 16, … 67108864 tokens.
    Histogram::new(exponential_buckets(1.0, 4.0, 14))
}

fn operation_buckets() -> Histogram {
    // The GenAI conventions' advice: 10 ms, 20 ms, … 81.92 s.
    Histogram::new(exponential_buckets(0.01, 2.0, 14))
}

impl Metrics {
    /// Fresh metrics, every count at zero, in a registry of their own.
    #[must_use]
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let runs_started = Counter::default();
        registry.register("agui_runs_started", "Runs started", runs_started.clone());
        let runs_ended = Family::default();
        registry.register(
            "agui_runs_ended",
            "Runs ended, by outcome and error code",
            runs_ended.clone(),
        );
        let runs_active = Gauge::default();
        registry.register(
            "agui_runs_active",
            "Runs started and not ended",
            runs_active.clone(),
        );
        let run_duration = run_duration_buckets();
        registry.register_with_unit(
            "agui_run_duration",
            "Time from a run's start to its end",
            Unit::Seconds,
            run_duration.clone(),
        );
        let time_to_first_event = Histogram::new(exponential_buckets(0.005, 2.0, 12));
        registry.register_with_unit(
            "agui_time_to_first_event",
            "Time from a run's start to its first event",
            Unit::Seconds,
            time_to_first_event.clone(),
        );
        let events_sent = Family::default();
        registry.register(
            "agui_events_sent",
            "Events sent, by type",
            events_sent.clone(),
        );
        let joins = Counter::default();
        registry.register(
            "agui_run_joins",
            "Requests to join a run's stream",
            joins.clone(),
        );
        let store_errors = Family::default();
        registry.register(
            "agui_store_errors",
            "Failures of a run or thread store, by store and operation",
            store_errors.clone(),
        );
        let http_requests = Family::default();
        registry.register(
            "agui_http_requests",
            "Requests answered, by route and status",
            http_requests.clone(),
        );
        let token_usage: HistogramFamily<ModelLabels<3>> =
            Family::new_with_constructor(token_buckets);
        registry.register(
            "gen_ai_client_token_usage",
            "Tokens used per model call, by token type and model",
            token_usage.clone(),
        );
        let operation_duration: HistogramFamily<ModelLabels<4>> =
            Family::new_with_constructor(operation_buckets);
        registry.register_with_unit(
            "gen_ai_client_operation_duration",
            "Duration of model calls",
            Unit::Seconds,
            operation_duration.clone(),
        );
        Metrics {
            inner: Arc::new(Inner {
                registry,
                runs_started,
                runs_ended,
                runs_active,
                run_duration,
                time_to_first_event,
                events_sent,
                events_sent_by_type: EventType::ALL
                    .iter()
                    .map(|_| std::sync::OnceLock::new())
                    .collect(),
                joins,
                store_errors,
                http_requests,
                token_usage,
                operation_duration,
            }),
        }
    }

    /// The metrics in the OpenMetrics text format (what `GET /metrics` answers).
    #[must_use]
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing to a String does not fail.
        let _ = encode(&mut out, &self.inner.registry);
        out
    }

    /// Counts a request answered on `route` with `status`.
    pub fn http_request(&self, route: &'static str, status: u16) {
        self.inner
            .http_requests
            .get_or_create(&[("route", route.to_owned()), ("status", status.to_string())])
            .inc();
    }

    /// Counts a request to join a run's stream.
    pub fn join(&self) {
        self.inner.joins.inc();
    }

    /// Counts a failure of `store` (`runs`, `threads`…) in `op` (`append`, `read`…).
    pub fn store_error(&self, store: &str, op: &str) {
        self.inner
            .store_errors
            .get_or_create(&[("store", store.to_owned()), ("op", op.to_owned())])
            .inc();
    }

    /// Records one model call (duration, and tokens when reported).
    pub fn model_call(&self, call: &ModelCall<'_>) {
        let model = call.request_model.to_owned();
        let provider = call.provider.to_owned();
        self.inner
            .operation_duration
            .get_or_create(&[
                ("gen_ai_operation_name", call.operation.to_owned()),
                ("gen_ai_request_model", model.clone()),
                ("gen_ai_provider_name", provider.clone()),
                (
                    "error_type",
                    call.error_type
                        .map(error_code_label)
                        .unwrap_or("")
                        .to_owned(),
                ),
            ])
            .observe(call.duration.as_secs_f64());
        for (kind, tokens) in [("input", call.input_tokens), ("output", call.output_tokens)] {
            if let Some(n) = tokens {
                self.inner
                    .token_usage
                    .get_or_create(&[
                        ("gen_ai_token_type", kind.to_owned()),
                        ("gen_ai_request_model", model.clone()),
                        ("gen_ai_provider_name", provider.clone()),
                    ])
                    .observe(n as f64);
            }
        }
    }

    /// A hook that records the model calls it is given into these metrics.
    #[must_use]
    pub fn model_call_hook(&self) -> ModelCallHook {
        let metrics = self.clone();
        ModelCallHook::new(move |call| metrics.model_call(call))
    }

    /// These metrics as the guard's run observer.
    pub(crate) fn observer(&self) -> Observer {
        Arc::new(self.clone())
    }

    /// The answer of `GET /metrics` (405 for another method).
    pub(crate) fn answer(&self, method: &http::Method) -> http::Response<SseBody> {
        if method != http::Method::GET && method != http::Method::HEAD {
            let mut response = crate::Rejection::method_not_allowed(method.as_str()).to_response();
            response.headers_mut().insert(
                http::header::ALLOW,
                http::HeaderValue::from_static("GET, HEAD"),
            );
            return response;
        }
        let mut response = http::Response::new(SseBody::full(self.encode()));
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static(CONTENT_TYPE),
        );
        response
    }
}

impl RunObserver for Metrics {
    fn run_started(&self) {
        self.inner.runs_started.inc();
        self.inner.runs_active.inc();
    }

    fn event_sent(&self, event_type: EventType, first: Option<Duration>) {
        let family = || {
            self.inner
                .events_sent
                .get_or_create(&[("type", event_type.as_str())])
                .clone()
        };
        match self.inner.events_sent_by_type.get(event_type as usize) {
            Some(cell) => cell.get_or_init(family).inc(),
            None => family().inc(),
        };
        if let Some(first) = first {
            self.inner.time_to_first_event.observe(first.as_secs_f64());
        }
    }

    fn run_ended(&self, outcome: Outcome, error_code: Option<&str>, duration: Duration) {
        let code = match outcome {
            Outcome::Error => match error_code_label(error_code.unwrap_or("")) {
                "" => "other",
                label => label,
            },
            _ => "",
        };
        self.inner
            .runs_ended
            .get_or_create(&[("outcome", outcome.as_str()), ("error_code", code)])
            .inc();
        self.inner.runs_active.dec();
        self.inner.run_duration.observe(duration.as_secs_f64());
    }
}

/// `store` with its failures ([`StoreError::Backend`]) counted in `agui_store_errors_total`
/// (`store="run"`, `op` the operation's name); the service wraps the run store so when both
/// runs and metrics are configured.
pub(crate) fn count_run_store_errors(
    store: Arc<dyn RunStore>,
    metrics: &Metrics,
) -> Arc<dyn RunStore> {
    Arc::new(CountedRunStore {
        inner: store,
        metrics: metrics.clone(),
    })
}

/// A run store that counts its inner store's failures.
struct CountedRunStore {
    inner: Arc<dyn RunStore>,
    metrics: Metrics,
}

impl CountedRunStore {
    /// Counts `result`'s failure in `op`, and hands it back.
    fn count<T>(&self, op: &'static str, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(StoreError::Backend(_)) = &result {
            self.metrics.store_error("run", op);
        }
        result
    }

    /// `fut` with its failure counted in `op`.
    fn counted<'a, T: Send + 'a>(
        &'a self,
        op: &'static str,
        fut: StoreFuture<'a, T>,
    ) -> StoreFuture<'a, T> {
        Box::pin(async move { self.count(op, fut.await) })
    }
}

impl RunStore for CountedRunStore {
    fn create_run(&self, meta: RunMeta) -> StoreFuture<'_, ()> {
        self.counted("create_run", self.inner.create_run(meta))
    }

    fn thread_runs<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
        after: u64,
    ) -> StoreFuture<'a, ThreadRunStream> {
        let metrics = self.metrics.clone();
        Box::pin(async move {
            let stream = self.count(
                "thread_runs",
                self.inner.thread_runs(principal, thread_id, after).await,
            )?;
            let stream: ThreadRunStream = Box::pin(stream.inspect(move |item| {
                if let Err(StoreError::Backend(_)) = item {
                    metrics.store_error("run", "thread_runs");
                }
            }));
            Ok(stream)
        })
    }

    fn thread_run<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
    ) -> StoreFuture<'a, Option<String>> {
        self.counted("thread_run", self.inner.thread_run(principal, thread_id))
    }

    fn thread_seq<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
    ) -> StoreFuture<'a, u64> {
        self.counted("thread_seq", self.inner.thread_seq(principal, thread_id))
    }

    fn append<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()> {
        self.counted("append", self.inner.append(run_id, records))
    }

    fn end_run<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()> {
        self.counted("end_run", self.inner.end_run(run_id, records))
    }

    fn run<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, Option<RunMeta>> {
        self.counted("run", self.inner.run(run_id))
    }

    fn tail<'a>(&'a self, run_id: &'a str, after: Cursor) -> StoreFuture<'a, RecordStream> {
        let metrics = self.metrics.clone();
        Box::pin(async move {
            let stream = self.count("tail", self.inner.tail(run_id, after).await)?;
            let stream: RecordStream = Box::pin(stream.inspect(move |item| {
                if let Err(StoreError::Backend(_)) = item {
                    metrics.store_error("run", "tail");
                }
            }));
            Ok(stream)
        })
    }

    fn request_stop<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, bool> {
        self.counted("request_stop", self.inner.request_stop(run_id))
    }

    fn stop_requested<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, ()> {
        self.counted("stop_requested", self.inner.stop_requested(run_id))
    }

    fn renew_lease<'a>(
        &'a self,
        run_id: &'a str,
        owner: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        self.counted("renew_lease", self.inner.renew_lease(run_id, owner, ttl))
    }

    fn needs_lease_renewal(&self) -> bool {
        self.inner.needs_lease_renewal()
    }
}
