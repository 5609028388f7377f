//! The `openai_agent` example as an operator runs it: `--metrics`, the JSON log on stderr,
//! spans exported to `OTEL_EXPORTER_OTLP_ENDPOINT`, against a provider that fails one call
//! in three.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ag_ui_testkit::net::LIMIT;
use ag_ui_testkit::process::{example_binary, send, temp_dir};
use ag_ui_testkit::provider::{Provider, Reply, call_start, finish, role, text_delta, usage};
use serde_json::{Value, json};

use crate::observability::{Collector, attributes, hex};

/// The example process; killed by its pid if the test ends before it exits.
struct Example(Child);

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn refusal() -> Reply {
    Reply::Status(
        400,
        json!({"error": {"message": "This model's maximum context length is 8192 tokens",
                         "type": "invalid_request_error", "code": "context_length_exceeded"}}),
    )
}

fn answer(input: u32, output: u32) -> Reply {
    Reply::stream(vec![
        role(),
        text_delta("fine"),
        finish("stop"),
        usage(input, output, 0, 0),
    ])
}

/// POSTs a run and reads its stream to the end; the last event.
async fn run(url: &str, run: &str, traceparent: Option<&str>) -> Value {
    let body = json!({
        "protocolVersion": "1.0", "threadId": format!("thread-{run}"), "runId": run,
        "messages": [{"id": "u1", "role": "user", "content": "What time is it?"}],
        "tools": [], "context": [], "state": {}, "forwardedProps": {},
    });
    let mut request = reqwest_client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body.to_string());
    if let Some(tp) = traceparent {
        request = request.header("traceparent", tp);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let last = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap();
    serde_json::from_str(last).unwrap()
}

fn reqwest_client() -> reqwest::Client {
    reqwest::Client::builder().timeout(LIMIT).build().unwrap()
}

const TRACEPARENT: &str = "00-5b8aa5a2d2c872e8321cf37308d69df2-051581bf3cb55c13-01";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_agent_logs_counts_and_exports_what_its_runs_do() {
    let provider = Provider::start(vec![
        // Run 1: the backend tool, then the answer.
        Reply::stream(vec![
            role(),
            call_start(0, "call_t", "get_time", "{}"),
            finish("tool_calls"),
            usage(20, 3, 0, 0),
        ]),
        answer(25, 6),
        refusal(),
        answer(10, 2),
        answer(11, 2),
        refusal(),
    ])
    .await;
    let collector = Collector::start();
    let dir = temp_dir("openai-agent-example");
    let stderr = dir.join("stderr.jsonl");
    let mut child = Command::new(example_binary("openai_agent", "ag-ui-openai"))
        .args(["127.0.0.1:0", "--log-format", "json", "--metrics"])
        .env("OPENAI_BASE_URL", provider.base_url())
        .env("OPENAI_API_KEY", "sk-example-secret")
        .env("OPENAI_MODEL", "gpt-test")
        .env("RUST_LOG", "info")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.url)
        .env("OTEL_SERVICE_NAME", "openai-agent-test")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut example = Example(child);
    let mut addr = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut addr)
        .unwrap();
    let url = format!("http://{}/", addr.trim());

    let mut ends = Vec::new();
    for (i, tp) in [Some(TRACEPARENT), None, None, None, None]
        .into_iter()
        .enumerate()
    {
        ends.push(run(&url, &format!("run-{i}"), tp).await);
    }
    let kinds: Vec<(&Value, &Value)> = ends.iter().map(|e| (&e["type"], &e["code"])).collect();
    assert_eq!(
        kinds,
        [
            (&json!("RUN_FINISHED"), &Value::Null),
            (&json!("RUN_ERROR"), &json!("provider_error")),
            (&json!("RUN_FINISHED"), &Value::Null),
            (&json!("RUN_FINISHED"), &Value::Null),
            (&json!("RUN_ERROR"), &json!("provider_error")),
        ]
    );

    let metrics = reqwest_client()
        .get(format!("{url}metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let sample = |key: &str| -> f64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("no {key} in\n{metrics}"))
            .parse()
            .unwrap()
    };
    assert_eq!(sample("agui_runs_started_total"), 5.0);
    assert_eq!(
        sample(r#"agui_runs_ended_total{outcome="success",error_code=""}"#),
        3.0
    );
    assert_eq!(
        sample(r#"agui_runs_ended_total{outcome="error",error_code="provider_error"}"#),
        2.0
    );
    let tokens = |kind: &str| {
        sample(&format!(
            r#"gen_ai_client_token_usage_sum{{gen_ai_token_type="{kind}",gen_ai_request_model="gpt-test",gen_ai_provider_name="openai"}}"#
        ))
    };
    assert_eq!(tokens("input"), 66.0);
    assert_eq!(tokens("output"), 13.0);

    // Ctrl-C: the example exports its last spans and exits.
    send(example.0.id(), "-INT");
    let started = Instant::now();
    while example.0.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < LIMIT,
            "the example did not exit on SIGINT"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let log: Vec<Value> = std::fs::read_to_string(&stderr)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let with = |message: &str| -> Vec<&Value> {
        log.iter()
            .filter(|l| l["fields"]["message"] == message)
            .collect()
    };
    assert_eq!(with("AG-UI server listening").len(), 1, "{log:#?}");
    assert_eq!(with("AG-UI run started").len(), 5);
    let outcomes: Vec<(&Value, &Value)> = with("AG-UI run ended")
        .iter()
        .map(|l| (&l["fields"]["outcome"], &l["fields"]["error_code"]))
        .collect();
    assert_eq!(outcomes.len(), 5);
    assert_eq!(
        outcomes.iter().filter(|(o, _)| **o == "error").count(),
        2,
        "{outcomes:?}"
    );
    let warnings: Vec<&Value> = log
        .iter()
        .filter(|l| l["level"] == "WARN" && l["fields"]["status"] == 400)
        .collect();
    assert_eq!(warnings.len(), 2, "{log:#?}");
    assert_eq!(
        warnings[0]["fields"]["provider_message"],
        "This model's maximum context length is 8192 tokens"
    );
    let text = std::fs::read_to_string(&stderr).unwrap();
    assert!(!text.contains("sk-example-secret"));
    assert!(!text.contains("What time is it"));

    // The run sent with a traceparent, exported under its trace id.
    let spans = collector.spans.lock().unwrap().clone();
    let traced: Vec<_> = spans
        .iter()
        .filter(|s| hex(&s.trace_id) == "5b8aa5a2d2c872e8321cf37308d69df2")
        .collect();
    let mut names: Vec<&str> = traced.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "POST start",
            "chat gpt-test",
            "chat gpt-test",
            "execute_tool get_time",
            "invoke_agent openai_agent"
        ]
    );
    let tool = traced
        .iter()
        .find(|s| s.name == "execute_tool get_time")
        .unwrap();
    assert_eq!(attributes(tool)["gen_ai.tool.call.id"], "call_t");
}

/// Debian's `prometheus` scraping the running example: after a known set of runs its query
/// API reports the runs by outcome and the tokens the provider returned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_scraping_openai_agent_reports_the_runs_and_tokens() {
    use ag_ui_testkit::prometheus::PrometheusServer;
    let provider = Provider::start(vec![
        answer(10, 2),
        refusal(),
        answer(20, 3),
        answer(30, 4),
        refusal(),
        answer(40, 5),
    ])
    .await;
    let mut child = Command::new(example_binary("openai_agent", "ag-ui-openai"))
        .args(["127.0.0.1:0", "--metrics"])
        .env("OPENAI_BASE_URL", provider.base_url())
        .env("OPENAI_API_KEY", "sk-example-secret")
        .env("OPENAI_MODEL", "gpt-test")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let _example = Example(child);
    let mut addr = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut addr)
        .unwrap();
    let addr = addr.trim().to_owned();
    let url = format!("http://{addr}/");
    for i in 0..6 {
        let _ = run(&url, &format!("p-{i}"), None).await;
    }
    let prometheus = PrometheusServer::start(&addr, "/metrics");
    // The value of `promql` once Prometheus has scraped it (bounded wait).
    let value = |promql: &'static str| {
        let query = prometheus.query_url(promql);
        async move {
            let started = Instant::now();
            loop {
                let answer: Value = match reqwest_client().get(&query).send().await {
                    Ok(r) => r.json().await.unwrap_or(Value::Null),
                    Err(_) => Value::Null,
                };
                if let Some(v) = answer["data"]["result"][0]["value"][1].as_str() {
                    return v.parse::<f64>().unwrap();
                }
                assert!(
                    started.elapsed() < LIMIT * 3,
                    "prometheus has no {promql}: {answer}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    assert_eq!(
        value(r#"agui_runs_ended_total{outcome="success",error_code=""}"#).await,
        4.0
    );
    assert_eq!(
        value(r#"agui_runs_ended_total{outcome="error",error_code="provider_error"}"#).await,
        2.0
    );
    assert_eq!(value("agui_runs_started_total").await, 6.0);
    assert_eq!(
        value(r#"sum(gen_ai_client_token_usage_sum{gen_ai_token_type="input"})"#).await,
        100.0
    );
    assert_eq!(
        value(r#"sum(gen_ai_client_token_usage_sum{gen_ai_token_type="output"})"#).await,
        14.0
    );
}
