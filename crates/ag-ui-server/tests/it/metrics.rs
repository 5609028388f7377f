//! Prometheus metrics (feature `metrics`): counts scraped over HTTP after a known set of runs.

use std::collections::BTreeMap;

use ag_ui_core::{Event, RunAgentInput, RunErrorEvent, RunFinishedEvent, RunStartedEvent};
use ag_ui_core::{RunFinishedOutcome, TokenUsage};
use ag_ui_server::metrics::Metrics;
use ag_ui_server::telemetry::{ModelCall, ModelCallHook};
use ag_ui_server::{AgentService, AgentStream, ContextAgent, RunContext};

use crate::support::{client, input, post, serve};

/// A run whose ending its run id picks: `ok-…` succeeds, `cancel-…` is cancelled,
/// `made-up-…` fails with a code the SDK does not emit, `fail-…` yields an error. Each
/// run reports one model call to the hook it finds.
fn scripted(input: RunAgentInput, context: RunContext) -> AgentStream {
    if let Some(hook) = context.extensions().get::<ModelCallHook>() {
        let mut call = ModelCall::chat("openai", "gpt-test", std::time::Duration::from_millis(20));
        call.input_tokens = Some(100);
        call.output_tokens = Some(7);
        hook.record(&call);
    }
    let run = input.run_id.as_str().to_owned();
    let started: Event = RunStartedEvent::new(input.thread_id.clone(), input.run_id.clone()).into();
    let finished = RunFinishedEvent::new(input.thread_id, input.run_id).with_usage(vec![
        TokenUsage::for_model("openai", "gpt-test").with_input_tokens(100u64),
    ]);
    let items: Vec<Result<Event, ag_ui_core::BoxError>> = if run.starts_with("ok-") {
        vec![Ok(started), Ok(finished.into())]
    } else if run.starts_with("cancel-") {
        vec![
            Ok(started),
            Ok(finished
                .with_outcome(RunFinishedOutcome::cancelled())
                .into()),
        ]
    } else if run.starts_with("made-up-") {
        vec![
            Ok(started),
            Ok(RunErrorEvent::new("no")
                .with_code("made_up".to_owned())
                .into()),
        ]
    } else {
        vec![Ok(started), Err("the database said no".into())]
    };
    Box::pin(futures_util::stream::iter(items))
}

/// The samples of an OpenMetrics text: `name{labels}` → value.
fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (key, value) = l.rsplit_once(' ').unwrap();
            (key.to_owned(), value.parse().unwrap())
        })
        .collect()
}

#[tokio::test]
async fn metrics_count_runs_events_model_calls_and_requests() {
    let metrics = Metrics::new();
    let service = AgentService::new(ContextAgent::new(scripted))
        .agent_name("scripted")
        .metrics(metrics.clone());
    let server = serve(service).await;
    let runs = ["ok-1", "ok-2", "ok-3", "cancel-1", "made-up-1", "fail-1"];
    for run in runs {
        let response = post(&server, &input(run, serde_json::json!({}))).await;
        assert_eq!(response.status(), 200);
        let _ = response.bytes().await.unwrap();
    }
    // A refused request (not JSON) counts as a request, not a run.
    let refused = client()
        .post(server.url())
        .header("content-type", "text/plain")
        .header("accept", "text/event-stream")
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 415);
    let scrape = client()
        .get(format!("{}metrics", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(scrape.status(), 200);
    assert_eq!(
        scrape.headers()["content-type"],
        ag_ui_server::metrics::CONTENT_TYPE
    );
    let text = scrape.text().await.unwrap();
    let s = samples(&text);
    let at = |key: &str| {
        *s.get(key)
            .unwrap_or_else(|| panic!("no sample {key} in\n{text}"))
    };
    assert_eq!(at("agui_runs_started_total"), 6.0);
    assert_eq!(
        at(r#"agui_runs_ended_total{outcome="success",error_code=""}"#),
        3.0
    );
    assert_eq!(
        at(r#"agui_runs_ended_total{outcome="cancelled",error_code=""}"#),
        1.0
    );
    assert_eq!(
        at(r#"agui_runs_ended_total{outcome="error",error_code="other"}"#),
        1.0
    );
    assert_eq!(
        at(r#"agui_runs_ended_total{outcome="error",error_code="agent_error"}"#),
        1.0
    );
    assert_eq!(at("agui_runs_active"), 0.0);
    assert_eq!(at("agui_run_duration_seconds_count"), 6.0);
    assert_eq!(at("agui_time_to_first_event_seconds_count"), 6.0);
    assert_eq!(at(r#"agui_events_sent_total{type="RUN_STARTED"}"#), 6.0);
    assert_eq!(at(r#"agui_events_sent_total{type="RUN_FINISHED"}"#), 4.0);
    assert_eq!(at(r#"agui_events_sent_total{type="RUN_ERROR"}"#), 2.0);
    assert_eq!(
        at(r#"agui_http_requests_total{route="start",status="200"}"#),
        6.0
    );
    assert_eq!(
        at(r#"agui_http_requests_total{route="start",status="415"}"#),
        1.0
    );
    let tokens = |kind: &str, what: &str| {
        at(&format!(
            r#"gen_ai_client_token_usage_{what}{{gen_ai_token_type="{kind}",gen_ai_request_model="gpt-test",gen_ai_provider_name="openai"}}"#
        ))
    };
    assert_eq!(tokens("input", "sum"), 600.0);
    assert_eq!(tokens("input", "count"), 6.0);
    assert_eq!(tokens("output", "sum"), 42.0);
    assert_eq!(
        at(
            r#"gen_ai_client_operation_duration_seconds_count{gen_ai_operation_name="chat",gen_ai_request_model="gpt-test",gen_ai_provider_name="openai",error_type=""}"#
        ),
        6.0
    );
    // The scrape itself is counted after it was answered.
    let again = samples(&metrics.encode());
    assert_eq!(
        again[r#"agui_http_requests_total{route="metrics",status="200"}"#],
        1.0
    );
    // Another method is refused.
    let post = client()
        .post(format!("{}metrics", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 405);
}

#[tokio::test]
async fn without_metrics_there_is_no_metrics_route() {
    let server = serve(AgentService::new(ContextAgent::new(scripted))).await;
    let scrape = client()
        .get(format!("{}metrics", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(scrape.status(), 404);
}

#[tokio::test]
async fn joins_and_store_errors_are_counted() {
    use ag_ui_server::runs::{MemoryStore, Runs};
    let metrics = Metrics::new();
    let service = AgentService::new(ContextAgent::new(scripted))
        .runs(Runs::new(MemoryStore::new()))
        .metrics(metrics.clone());
    let server = serve(service).await;
    let response = post(&server, &input("ok-join", serde_json::json!({}))).await;
    let _ = response.bytes().await.unwrap();
    for _ in 0..2 {
        let joined = client()
            .get(server.events_url("ok-join"))
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(joined.status(), 200);
        let _ = joined.bytes().await.unwrap();
    }
    let missing = client()
        .get(server.events_url("no-such-run"))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    metrics.store_error("thread", "append");
    let s = samples(&metrics.encode());
    assert_eq!(s["agui_run_joins_total"], 3.0);
    assert_eq!(
        s[r#"agui_http_requests_total{route="join",status="200"}"#],
        2.0
    );
    assert_eq!(
        s[r#"agui_http_requests_total{route="join",status="404"}"#],
        1.0
    );
    assert_eq!(
        s[r#"agui_store_errors_total{store="thread",op="append"}"#],
        1.0
    );
    assert_eq!(s["agui_runs_started_total"], 1.0);
}

/// The `serve` example with `--metrics` (built with the `metrics` and `logging` features).
#[cfg(feature = "logging")]
#[tokio::test]
async fn the_serve_example_answers_metrics_with_the_flag() {
    use ag_ui_testkit::process::{ServeProcess, example_binary};
    let binary = example_binary("serve", "ag-ui-server");
    let serve = ServeProcess::start(
        binary,
        "127.0.0.1:0",
        &["--metrics", "--log-format", "json"],
    );
    let url = serve.url();
    let response = client()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(&input("run-1", serde_json::json!({}))).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let _ = response.bytes().await.unwrap();
    let text = client()
        .get(format!("{url}metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let s = samples(&text);
    assert_eq!(s["agui_runs_started_total"], 1.0);
    assert_eq!(
        s[r#"agui_runs_ended_total{outcome="success",error_code=""}"#],
        1.0
    );
}

/// A memory run store whose operations named in `failing` fail as an unreachable backend.
#[derive(Clone, Default)]
struct FailingRunStore {
    inner: ag_ui_server::runs::MemoryStore,
    failing: std::sync::Arc<std::sync::Mutex<Vec<&'static str>>>,
}

mod failing_store {
    use std::time::Duration;

    use ag_ui_server::runs::{
        Cursor, Record, RecordStream, RunMeta, RunStore, StoreError, StoreFuture, ThreadRunStream,
    };

    use super::FailingRunStore;

    impl FailingRunStore {
        pub(super) fn fail(&self, ops: &[&'static str]) {
            *self.failing.lock().unwrap() = ops.to_vec();
        }

        /// `Some(failure)` when `op` is to fail.
        fn check<T: Send + 'static>(&self, op: &str) -> Option<StoreFuture<'static, T>> {
            if self.failing.lock().unwrap().contains(&op) {
                let e = StoreError::Backend(format!("{op}: connection refused").into());
                Some(Box::pin(async move { Err(e) }))
            } else {
                None
            }
        }
    }

    impl RunStore for FailingRunStore {
        fn create_run(&self, meta: RunMeta) -> StoreFuture<'_, ()> {
            self.check("create_run")
                .unwrap_or_else(|| self.inner.create_run(meta))
        }
        fn thread_runs<'a>(
            &'a self,
            principal: Option<&'a str>,
            thread_id: &'a str,
            after: u64,
        ) -> StoreFuture<'a, ThreadRunStream> {
            self.check("thread_runs")
                .unwrap_or_else(|| self.inner.thread_runs(principal, thread_id, after))
        }
        fn thread_run<'a>(
            &'a self,
            principal: Option<&'a str>,
            thread_id: &'a str,
        ) -> StoreFuture<'a, Option<String>> {
            self.check("thread_run")
                .unwrap_or_else(|| self.inner.thread_run(principal, thread_id))
        }
        fn thread_seq<'a>(
            &'a self,
            principal: Option<&'a str>,
            thread_id: &'a str,
        ) -> StoreFuture<'a, u64> {
            self.check("thread_seq")
                .unwrap_or_else(|| self.inner.thread_seq(principal, thread_id))
        }
        fn append<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()> {
            self.check("append")
                .unwrap_or_else(|| self.inner.append(run_id, records))
        }
        fn end_run<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()> {
            self.check("end_run")
                .unwrap_or_else(|| self.inner.end_run(run_id, records))
        }
        fn run<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, Option<RunMeta>> {
            self.check("run").unwrap_or_else(|| self.inner.run(run_id))
        }
        fn tail<'a>(&'a self, run_id: &'a str, after: Cursor) -> StoreFuture<'a, RecordStream> {
            self.check("tail")
                .unwrap_or_else(|| self.inner.tail(run_id, after))
        }
        fn request_stop<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, bool> {
            self.check("request_stop")
                .unwrap_or_else(|| self.inner.request_stop(run_id))
        }
        fn stop_requested<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, ()> {
            self.inner.stop_requested(run_id)
        }
        fn renew_lease<'a>(
            &'a self,
            run_id: &'a str,
            owner: &'a str,
            ttl: Duration,
        ) -> StoreFuture<'a, ()> {
            self.check("renew_lease")
                .unwrap_or_else(|| self.inner.renew_lease(run_id, owner, ttl))
        }
    }
}

/// `GET {url}metrics`, parsed.
async fn scrape(url: &str) -> BTreeMap<String, f64> {
    let response = client().get(format!("{url}metrics")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    samples(&response.text().await.unwrap())
}

#[tokio::test]
async fn run_store_failures_are_counted_by_operation() {
    use ag_ui_server::runs::Runs;
    let store = FailingRunStore::default();
    let service = AgentService::new(ContextAgent::new(scripted))
        .runs(Runs::new(store.clone()))
        .metrics(Metrics::new());
    let server = serve(service).await;
    let url = server.url();
    let errors = |s: &BTreeMap<String, f64>, op: &str| {
        s.get(&format!(
            r#"agui_store_errors_total{{store="run",op="{op}"}}"#
        ))
        .copied()
        .unwrap_or(0.0)
    };

    // A run the store cannot create.
    store.fail(&["create_run"]);
    let response = post(&server, &input("no-create", serde_json::json!({}))).await;
    let _ = response.bytes().await.unwrap();
    let s = scrape(&url).await;
    assert_eq!(errors(&s, "create_run"), 1.0, "{s:?}");
    assert_eq!(errors(&s, "append"), 0.0);

    // A stop the store cannot deliver (the route reads the run, then asks it to stop).
    store.fail(&["run", "request_stop"]);
    let stop = client()
        .post(format!("{url}runs/some-run/stop"))
        .send()
        .await
        .unwrap();
    let _ = stop.bytes().await.unwrap();
    let s = scrape(&url).await;
    assert_eq!(errors(&s, "run") + errors(&s, "request_stop"), 1.0, "{s:?}");

    // A run whose events the store refuses: the owner's writes fail.
    store.fail(&["append", "end_run"]);
    // (Its stream does not end: nothing of the run reaches the store. Only its head is read.)
    let response = post(&server, &input("no-append", serde_json::json!({}))).await;
    assert_eq!(response.status(), 200);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    let s = loop {
        let s = scrape(&url).await;
        if errors(&s, "append") + errors(&s, "end_run") >= 1.0
            || tokio::time::Instant::now() > deadline
        {
            break s;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert!(errors(&s, "append") + errors(&s, "end_run") >= 1.0, "{s:?}");
    drop(response);
    assert_eq!(errors(&s, "create_run"), 1.0);
    // Every store-error sample is labelled `store="run"` with one of the fixed operations.
    for key in s
        .keys()
        .filter(|k| k.starts_with("agui_store_errors_total{"))
    {
        assert!(key.contains(r#"store="run""#), "{key}");
    }
}
