//! Request ids, W3C trace context, and the run start and end lines in the log.

use std::sync::{Arc, Mutex};

use ag_ui_core::{Event, RunAgentInput, RunErrorEvent, RunFinishedEvent, RunStartedEvent};
use ag_ui_core::{TextMessageContentEvent, TextMessageEndEvent, TextMessageStartEvent, TokenUsage};
use ag_ui_server::telemetry::{TraceContext, TraceParent, error_code_label, request_id_or_new};
use ag_ui_server::{AgentService, AgentStream, Cancellation};
use bytes::Bytes;
use http_body_util::BodyExt;
use serde_json::{Value, json};

fn request(headers: &[(&str, &str)]) -> http::Request<http_body_util::Full<Bytes>> {
    let body = br#"{"threadId":"t-1","runId":"r-1","messages":[],"protocolVersion":"1.0"}"#;
    let mut builder = http::Request::post("/")
        .header("content-type", "application/json")
        .header("accept", "text/event-stream");
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder
        .body(http_body_util::Full::new(Bytes::from_static(body)))
        .unwrap()
}

/// A run that says "hi" and finishes with usage.
fn greeting(input: RunAgentInput, _: Cancellation) -> AgentStream {
    let events: Vec<Event> = vec![
        RunStartedEvent::new(input.thread_id.clone(), input.run_id.clone()).into(),
        TextMessageStartEvent::new("m1").into(),
        TextMessageContentEvent::new("m1", "hi").into(),
        TextMessageEndEvent::new("m1").into(),
        RunFinishedEvent::new(input.thread_id, input.run_id)
            .with_usage(vec![
                TokenUsage::for_model("openai", "a")
                    .with_input_tokens(10u64)
                    .with_output_tokens(3u64),
                TokenUsage::for_model("openai", "b")
                    .with_input_tokens(5u64)
                    .with_output_tokens(2u64),
            ])
            .into(),
    ];
    Box::pin(futures_util::stream::iter(events.into_iter().map(Ok)))
}

/// A run that fails with a code the SDK does not emit.
fn failing(input: RunAgentInput, _: Cancellation) -> AgentStream {
    let events: Vec<Event> = vec![
        RunStartedEvent::new(input.thread_id, input.run_id).into(),
        RunErrorEvent::new("no")
            .with_code("made_up".to_owned())
            .into(),
    ];
    Box::pin(futures_util::stream::iter(events.into_iter().map(Ok)))
}

async fn answer(headers: &[(&str, &str)]) -> http::Response<ag_ui_server::SseBody> {
    let response = AgentService::new(greeting).handle(request(headers)).await;
    assert_eq!(response.status(), 200);
    response
}

fn header<'a, B>(response: &'a http::Response<B>, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
}

#[tokio::test]
async fn a_usable_request_id_is_echoed_and_any_other_replaced() {
    let response = answer(&[("x-request-id", "req-42")]).await;
    assert_eq!(header(&response, "x-request-id"), "req-42");
    let long = "x".repeat(129);
    for bad in ["two words", "caf\u{e9}", long.as_str(), ""] {
        let response = answer(&[("x-request-id", bad)]).await;
        let id = header(&response, "x-request-id");
        assert_ne!(id, bad);
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    }
    let a = answer(&[]).await;
    let b = answer(&[]).await;
    assert_eq!(header(&a, "x-request-id").len(), 32);
    assert_ne!(header(&a, "x-request-id"), header(&b, "x-request-id"));
    // At the limit, kept.
    let limit = "y".repeat(128);
    assert_eq!(request_id_or_new(Some(&limit)), limit);
}

#[test]
fn traceparent_is_read_strictly() {
    let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let tp = TraceParent::parse(good).unwrap();
    assert_eq!(tp.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(tp.parent_id(), "00f067aa0ba902b7");
    assert_eq!(tp.flags(), 1);
    assert_eq!(tp.to_string(), good);
    let unsampled = TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
    assert!(!unsampled.unwrap().sampled());
    for bad in [
        // All-zero trace id, all-zero parent id.
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        // Upper-case hex, a version this server does not speak, the invalid version ff.
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        // Lengths, separators, not hex, trailing data.
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "",
    ] {
        assert_eq!(TraceParent::parse(bad), None, "{bad}");
    }
    // tracestate is kept only with a valid traceparent.
    let ctx = TraceContext::from_headers(Some(good), Some("vendor=x"));
    assert_eq!(ctx.tracestate.as_deref(), Some("vendor=x"));
    assert_eq!(ctx.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
    let ctx = TraceContext::from_headers(Some("garbage"), Some("vendor=x"));
    assert_eq!(ctx.tracestate, None);
    assert_eq!(ctx.incoming, None);
}

#[tokio::test]
async fn a_valid_traceparent_is_continued_and_an_invalid_one_starts_a_new_trace() {
    let sent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let response = answer(&[("traceparent", sent)]).await;
    let back = TraceParent::parse(header(&response, "traceparent")).unwrap();
    assert_eq!(back.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_ne!(back.parent_id(), "00f067aa0ba902b7");
    assert!(back.sampled());
    let zeros = "00-00000000000000000000000000000000-00f067aa0ba902b7-01";
    for bad in [zeros, "nonsense"] {
        let response = answer(&[("traceparent", bad)]).await;
        let back = TraceParent::parse(header(&response, "traceparent")).unwrap();
        assert_ne!(back.trace_id(), "00000000000000000000000000000000");
        assert_ne!(back.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
    }
    let a = answer(&[]).await;
    let b = answer(&[]).await;
    let trace = |r: &http::Response<_>| TraceParent::parse(header(r, "traceparent")).unwrap();
    assert_ne!(trace(&a).trace_id(), trace(&b).trace_id());
}

#[test]
fn error_code_labels_are_the_sdks_codes_or_other() {
    assert_eq!(
        error_code_label(ag_ui_server::CODE_AGENT_ERROR),
        "agent_error"
    );
    assert_eq!(
        error_code_label(ag_ui_server::runs::CODE_STORE_LOST),
        "store_lost"
    );
    assert_eq!(
        error_code_label(ag_ui_server::resume::CODE_RESUME_MISMATCH),
        "resume_mismatch"
    );
    assert_eq!(error_code_label("made_up"), "other");
    assert_eq!(error_code_label(""), "");
}

/// A `Write` into a shared buffer, for the JSON log.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The JSON log lines written while `f` runs (on a current-thread runtime).
fn json_log<F: std::future::Future<Output = ()>>(f: impl FnOnce() -> F) -> Vec<Value> {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .json()
        .with_current_span(true)
        .with_span_list(true)
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f());
    });
    let bytes = buffer.0.lock().unwrap().clone();
    String::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn line<'a>(log: &'a [Value], message: &str) -> &'a Value {
    log.iter()
        .find(|l| l["fields"]["message"] == message)
        .unwrap_or_else(|| panic!("no {message:?} line in {log:#?}"))
}

#[test]
fn each_run_logs_its_start_and_end_at_info_with_the_request_id() {
    let log = json_log(|| async {
        let response = AgentService::new(greeting)
            .handle(request(&[("x-request-id", "req-7")]))
            .await;
        let _ = response.into_body().collect().await.unwrap();
        let response = AgentService::new(failing)
            .handle(request(&[("x-request-id", "req-8")]))
            .await;
        let _ = response.into_body().collect().await.unwrap();
    });
    let started = line(&log, "AG-UI run started");
    assert_eq!(started["level"], "INFO");
    assert_eq!(
        started["fields"],
        json!({"message": "AG-UI run started", "run_id": "r-1", "thread_id": "t-1",
               "request_id": "req-7", "principal": ""})
    );
    let ended: Vec<&Value> = log
        .iter()
        .filter(|l| l["fields"]["message"] == "AG-UI run ended")
        .collect();
    assert_eq!(ended.len(), 2, "{log:#?}");
    let mut first = ended[0]["fields"].clone();
    assert!(first["duration_ms"].is_u64(), "{first}");
    first.as_object_mut().unwrap().remove("duration_ms");
    assert_eq!(
        first,
        json!({"message": "AG-UI run ended", "run_id": "r-1", "thread_id": "t-1",
               "request_id": "req-7", "outcome": "success", "error_code": "", "events": 5,
               "input_tokens": 15, "output_tokens": 5})
    );
    assert_eq!(ended[1]["fields"]["outcome"], "error");
    assert_eq!(ended[1]["fields"]["error_code"], "made_up");
    assert_eq!(ended[1]["fields"]["request_id"], "req-8");
    // Every line of a request is in its request span, which has the request id.
    for l in log
        .iter()
        .filter(|l| l["fields"]["message"] != "AG-UI server listening")
    {
        let spans = l["spans"].as_array().unwrap();
        assert_eq!(spans[0]["name"], "ag_ui_request", "{l}");
        assert!(
            spans[0]["request_id"] == "req-7" || spans[0]["request_id"] == "req-8",
            "{l}"
        );
    }
    // The run's span, inside it, has the GenAI attributes.
    let span = &started["spans"][1];
    assert_eq!(span["name"], "ag_ui_run");
    assert_eq!(span["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(span["gen_ai.conversation.id"], "t-1");
}

/// A run of `forwardedProps.events` text deltas, all ready at once; the agent logs a line
/// while its stream is read, after the first delta.
fn chatty(input: RunAgentInput, _: Cancellation) -> AgentStream {
    let n = input
        .forwarded_props
        .as_ref()
        .and_then(|p| p["events"].as_u64())
        .unwrap_or(0);
    let deltas = (0..n).map(|i| {
        if i == 1 {
            tracing::info!("the agent is talking");
        }
        TextMessageContentEvent::new("m1", format!("delta {i}")).into()
    });
    let events =
        std::iter::once(RunStartedEvent::new(input.thread_id.clone(), input.run_id.clone()).into())
            .chain(std::iter::once(TextMessageStartEvent::new("m1").into()))
            .chain(deltas)
            .chain([
                TextMessageEndEvent::new("m1").into(),
                RunFinishedEvent::new(input.thread_id, input.run_id).into(),
            ]);
    Box::pin(futures_util::stream::iter(events.map(Ok::<Event, _>)))
}

/// Counts the entries into spans named `ag_ui_run`.
#[derive(Clone, Default)]
struct RunSpanEntries(Arc<std::sync::atomic::AtomicUsize>);

impl<S> tracing_subscriber::Layer<S> for RunSpanEntries
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_enter(&self, id: &tracing::span::Id, ctx: tracing_subscriber::layer::Context<'_, S>) {
        if ctx.span(id).is_some_and(|s| s.name() == "ag_ui_run") {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// The response body enters the run's span once for all the frames it takes in one poll,
/// not once per event, and what the agent logs while its stream is read is in that span.
#[test]
fn the_run_span_is_entered_once_per_body_poll_not_per_event() {
    use tracing_subscriber::layer::SubscriberExt;
    let events = 2_000;
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let entries = RunSpanEntries::default();
    let subscriber = tracing_subscriber::registry().with(entries.clone()).with(
        tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .with_writer(move || writer.clone()),
    );
    let body = format!(
        r#"{{"threadId":"t-1","runId":"r-1","messages":[],"protocolVersion":"1.0","forwardedProps":{{"events":{events}}}}}"#
    );
    let request = http::Request::post("/")
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(http_body_util::Full::new(Bytes::from(body)))
        .unwrap();
    let sent = tracing::subscriber::with_default(subscriber, || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                let response = AgentService::new(chatty).handle(request).await;
                response.into_body().collect().await.unwrap().to_bytes()
            })
    });
    let frames = std::str::from_utf8(&sent)
        .unwrap()
        .matches("data: ")
        .count();
    assert_eq!(frames, events + 4);
    let entered = entries.0.load(std::sync::atomic::Ordering::Relaxed);
    // About one entry per 16 KiB chunk (the events take ~100 KiB), plus the run's start,
    // end and drop: far fewer than one per event.
    assert!(
        entered >= 1 && entered <= events / 20,
        "{entered} entries of the run span"
    );
    let log: Vec<Value> = String::from_utf8(buffer.0.lock().unwrap().clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let talking = line(&log, "the agent is talking");
    assert_eq!(talking["span"]["name"], "ag_ui_run", "{talking}");
    assert_eq!(talking["span"]["run_id"], "r-1", "{talking}");
}
