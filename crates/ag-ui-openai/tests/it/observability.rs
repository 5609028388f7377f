//! Runs through the real `async-openai` client, observed: the spans exported over OTLP
//! (received by a loopback collector that decodes the exporter's protobuf), the metrics,
//! and the provider's failure in the log.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ag_ui_server::AgentService;
use ag_ui_server::metrics::Metrics;
use ag_ui_server::otel::OtlpExport;
use ag_ui_testkit::provider::{Provider, Reply, call_start, finish, role, text_delta, usage};
use ag_ui_testkit::suite::{Served, agent, drain};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{Value, json};
use tracing_subscriber::layer::SubscriberExt;

use super::model;

/// A loopback OTLP/HTTP collector on a thread of its own: it keeps every span it receives.
pub(crate) struct Collector {
    pub(crate) url: String,
    pub(crate) spans: Arc<Mutex<Vec<Span>>>,
}

impl Collector {
    pub(crate) fn start() -> Collector {
        let spans: Arc<Mutex<Vec<Span>>> = Arc::default();
        let kept = Arc::clone(&spans);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let app = axum::Router::new().route(
                    "/v1/traces",
                    axum::routing::post(move |body: axum::body::Bytes| {
                        let kept = Arc::clone(&kept);
                        async move {
                            let request = ExportTraceServiceRequest::decode(body).unwrap();
                            let mut kept = kept.lock().unwrap();
                            for resource in request.resource_spans {
                                for scope in resource.scope_spans {
                                    kept.extend(scope.spans);
                                }
                            }
                            ""
                        }
                    }),
                );
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        let addr = rx.recv().unwrap();
        Collector {
            url: format!("http://{addr}"),
            spans,
        }
    }
}

pub(crate) fn attributes(span: &Span) -> BTreeMap<String, Value> {
    span.attributes
        .iter()
        .map(|kv| (kv.key.clone(), any_value(kv.value.as_ref())))
        .collect()
}

/// An OTLP attribute value as JSON: arrays as JSON arrays, so a test can tell an array
/// attribute from its text.
fn any_value(value: Option<&opentelemetry_proto::tonic::common::v1::AnyValue>) -> Value {
    match value.and_then(|v| v.value.as_ref()) {
        Some(AnyValue::StringValue(s)) => json!(s),
        Some(AnyValue::IntValue(i)) => json!(i),
        Some(AnyValue::BoolValue(b)) => json!(b),
        Some(AnyValue::DoubleValue(d)) => json!(d),
        Some(AnyValue::ArrayValue(a)) => {
            Value::Array(a.values.iter().map(|v| any_value(Some(v))).collect())
        }
        other => json!(format!("{other:?}")),
    }
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

const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

#[test]
fn runs_are_exported_as_genai_spans_counted_and_provider_failures_logged() {
    let collector = Collector::start();
    let export = OtlpExport::new(&collector.url, "ag-ui-test").unwrap();
    let log = Buffer::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::registry().with(export.layer()).with(
        tracing_subscriber::fmt::layer()
            .json()
            .with_writer(move || writer.clone()),
    );
    let metrics = Metrics::new();
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let provider = Provider::start(vec![
                // Run 1: a backend tool call, then the answer.
                Reply::stream(vec![
                    role(),
                    call_start(0, "call_w", "get_weather", "{\"city\":\"Oslo\"}"),
                    finish("tool_calls"),
                    usage(11, 5, 0, 0),
                ]),
                Reply::stream(vec![
                    role(),
                    text_delta("14 degrees"),
                    finish("stop"),
                    usage(30, 4, 0, 0),
                ]),
                // Run 2: the provider refuses the request.
                // (Not 429: async-openai retries those.)
                Reply::Status(
                    400,
                    json!({"error": {"message": "Model not allowed for key sk-abc123 in org",
                                     "type": "invalid_request_error", "code": "model_not_allowed"}}),
                ),
                // Run 3: a plain answer.
                Reply::stream(vec![role(), text_delta("hi"), finish("stop"), usage(7, 2, 0, 0)]),
            ])
            .await;
            let service = AgentService::new(agent(model(&provider), 4))
                .agent_name("weather")
                .metrics(metrics.clone());
            let served = Served::start_service(service).await;
            let mut client = served.client_with("t-obs", &[("traceparent", TRACEPARENT)]);
            client.add_user_message("Weather in Oslo?");
            let (events, _) = drain(client.run(ag_ui_client::RunOptions::new())).await;
            assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED", "{events:?}");
            let mut client = served.client("t-obs-2");
            client.add_user_message("hello");
            let (events, _) = drain(client.run(ag_ui_client::RunOptions::new())).await;
            let last = events.last().unwrap();
            assert_eq!(last["type"], "RUN_ERROR");
            assert_eq!(last["code"], "provider_error");
            let mut client = served.client("t-obs-3");
            client.add_user_message("hello");
            let (events, _) = drain(client.run(ag_ui_client::RunOptions::new())).await;
            assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
        });
    });
    export.flush().unwrap();

    // The spans of the run sent with a traceparent: under the caller's trace, request →
    // invoke_agent → chat ×2 and execute_tool.
    let spans = collector.spans.lock().unwrap().clone();
    let trace = hex(&[
        0x0a, 0xf7, 0x65, 0x19, 0x16, 0xcd, 0x43, 0xdd, 0x84, 0x48, 0xeb, 0x21, 0x1c, 0x80, 0x31,
        0x9c,
    ]);
    let traced: Vec<&Span> = spans.iter().filter(|s| hex(&s.trace_id) == trace).collect();
    let names: Vec<&str> = traced.iter().map(|s| s.name.as_str()).collect();
    let by_name =
        |name: &str| -> Vec<&Span> { traced.iter().copied().filter(|s| s.name == name).collect() };
    let request = by_name("POST start");
    assert_eq!(request.len(), 1, "{names:?}");
    assert_eq!(hex(&request[0].parent_span_id), "b7ad6b7169203331");
    let request_attributes = attributes(request[0]);
    assert_eq!(request_attributes["http.request.method"], "POST");
    assert_eq!(request_attributes["http.route"], "start");
    assert_eq!(request_attributes["http.response.status_code"], 200);
    assert_eq!(request_attributes["request_id"].as_str().unwrap().len(), 32);
    let run = by_name("invoke_agent weather");
    assert_eq!(run.len(), 1, "{names:?}");
    assert_eq!(run[0].parent_span_id, request[0].span_id);
    let run_attributes = attributes(run[0]);
    assert_eq!(run_attributes["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(run_attributes["gen_ai.agent.name"], "weather");
    assert_eq!(run_attributes["gen_ai.conversation.id"], "t-obs");
    assert_eq!(run_attributes["gen_ai.usage.input_tokens"], 41);
    assert_eq!(run_attributes["gen_ai.usage.output_tokens"], 9);
    assert_eq!(run_attributes["agui.outcome"], "success");
    assert_eq!(run_attributes["thread_id"], "t-obs");
    let chats = by_name("chat gpt-test");
    assert_eq!(chats.len(), 2, "{names:?}");
    for chat in &chats {
        assert_eq!(chat.parent_span_id, run[0].span_id);
    }
    let first = attributes(chats[0]);
    let (first, second) = if first["gen_ai.usage.input_tokens"] == 11 {
        (first, attributes(chats[1]))
    } else {
        (attributes(chats[1]), first)
    };
    assert_eq!(first["gen_ai.operation.name"], "chat");
    assert_eq!(first["gen_ai.provider.name"], "openai");
    assert_eq!(first["gen_ai.request.model"], "gpt-test");
    assert_eq!(first["gen_ai.response.model"], "gpt-test");
    assert_eq!(first["gen_ai.usage.output_tokens"], 5);
    assert_eq!(
        first["gen_ai.response.finish_reasons"],
        json!(["tool_calls"])
    );
    assert_eq!(second["gen_ai.usage.input_tokens"], 30);
    assert_eq!(second["gen_ai.response.finish_reasons"], json!(["stop"]));
    let tools = by_name("execute_tool get_weather");
    assert_eq!(tools.len(), 1, "{names:?}");
    assert_eq!(tools[0].parent_span_id, run[0].span_id);
    let tool = attributes(tools[0]);
    assert_eq!(tool["gen_ai.operation.name"], "execute_tool");
    assert_eq!(tool["gen_ai.tool.name"], "get_weather");
    assert_eq!(tool["gen_ai.tool.call.id"], "call_w");
    assert_eq!(tool["gen_ai.tool.type"], "function");

    // The failed call's span has the error type.
    let failed: Vec<BTreeMap<String, Value>> = spans
        .iter()
        .filter(|s| s.name == "chat gpt-test")
        .map(attributes)
        .filter(|a| a.contains_key("error.type"))
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["error.type"], "provider_error");

    // The provider's failure in the log: its status and its message, the key masked.
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let warning = lines
        .iter()
        .find(|l| l["level"] == "WARN" && l["fields"]["status"] == 400)
        .unwrap_or_else(|| panic!("no provider warning in {lines:#?}"));
    assert_eq!(
        warning["fields"]["provider_message"],
        "Model not allowed for key [redacted] in org"
    );
    assert_eq!(warning["fields"]["code"], "provider_error");
    assert!(!text.contains("sk-abc123"));
    assert!(!text.contains("sk-test"));
    assert!(!text.contains("Weather in Oslo"));

    // The metrics: runs by outcome, tokens per model as the provider returned them.
    let scraped = metrics.encode();
    let sample = |key: &str| -> f64 {
        scraped
            .lines()
            .find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("no {key} in\n{scraped}"))
            .parse()
            .unwrap()
    };
    assert_eq!(
        sample(r#"agui_runs_ended_total{outcome="success",error_code=""}"#),
        2.0
    );
    assert_eq!(
        sample(r#"agui_runs_ended_total{outcome="error",error_code="provider_error"}"#),
        1.0
    );
    let tokens = |kind: &str| {
        sample(&format!(
            r#"gen_ai_client_token_usage_sum{{gen_ai_token_type="{kind}",gen_ai_request_model="gpt-test",gen_ai_provider_name="openai"}}"#
        ))
    };
    assert_eq!(tokens("input"), 48.0);
    assert_eq!(tokens("output"), 11.0);
    assert_eq!(
        sample(
            r#"gen_ai_client_operation_duration_seconds_count{gen_ai_operation_name="chat",gen_ai_request_model="gpt-test",gen_ai_provider_name="openai",error_type="provider_error"}"#
        ),
        1.0
    );
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
