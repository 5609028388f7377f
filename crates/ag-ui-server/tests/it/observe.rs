//! Observability: the run's `tracing` span and the log lines for failures and forgiven
//! input, with the ids.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ag_ui_core::{Event, RunAgentInput, RunStartedEvent};
use ag_ui_server::{AgentService, AgentStream, Cancellation};
use bytes::Bytes;
use http_body_util::BodyExt;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Level, Metadata, Subscriber};

/// What was logged: spans by id (name, fields), and events (level, fields, the span they
/// were in).
#[derive(Default)]
struct Log {
    spans: BTreeMap<u64, (String, BTreeMap<String, String>)>,
    events: Vec<(Level, BTreeMap<String, String>, Option<u64>)>,
    current: Vec<u64>,
}

#[derive(Clone, Default)]
struct Recorder {
    log: Arc<Mutex<Log>>,
    next: Arc<AtomicU64>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(
            field.name().to_owned(),
            format!("{value:?}").trim_matches('"').to_owned(),
        );
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        let mut fields = BTreeMap::new();
        span.record(&mut Fields(&mut fields));
        self.log
            .lock()
            .unwrap()
            .spans
            .insert(id, (span.metadata().name().to_owned(), fields));
        Id::from_u64(id)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let mut log = self.log.lock().unwrap();
        let current = log.current.last().copied();
        log.events
            .push((*event.metadata().level(), fields, current));
    }
    fn enter(&self, span: &Id) {
        self.log.lock().unwrap().current.push(span.into_u64());
    }
    fn exit(&self, _: &Id) {
        self.log.lock().unwrap().current.pop();
    }
}

fn failing(input: RunAgentInput, _: Cancellation) -> AgentStream {
    let started: Event = RunStartedEvent::new(input.thread_id, input.run_id).into();
    Box::pin(futures_util::stream::iter(vec![
        Ok(started),
        Err("the database said no".into()),
    ]))
}

#[test]
fn each_run_has_a_span_with_its_ids_and_failures_and_forgiven_input_are_logged_in_it() {
    let recorder = Recorder::default();
    let log = Arc::clone(&recorder.log);
    tracing::subscriber::with_default(recorder, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            // A message with a role the 1.0 reader does not know: dropped, and reported.
            let body = br#"{"threadId":"t-9","runId":"r-9","messages":[{"id":"m","role":"wizard","content":"x"}]}"#;
            let request = http::Request::post("/")
                .header("content-type", "application/json")
                .header("x-request-id", "req-9")
                .body(http_body_util::Full::new(Bytes::from_static(body)))
                .unwrap();
            let response = AgentService::new(failing).handle(request).await;
            assert_eq!(response.status(), 200);
            let sse = response.into_body().collect().await.unwrap().to_bytes();
            assert!(
                String::from_utf8_lossy(&sse).contains("RUN_ERROR"),
                "{sse:?}"
            );
        });
    });
    let log = log.lock().unwrap();
    let (span_id, (_, fields)) = log
        .spans
        .iter()
        .find(|(_, (name, _))| name == "ag_ui_run")
        .expect("no ag_ui_run span");
    assert_eq!(fields["thread_id"], "t-9");
    assert_eq!(fields["run_id"], "r-9");
    assert_eq!(fields["request_id"], "req-9");
    let in_span = |level: Level, key: &str| {
        log.events
            .iter()
            .find(|(l, f, s)| *l == level && f.contains_key(key) && *s == Some(*span_id))
            .map(|(_, f, _)| f.clone())
    };
    let failed = in_span(Level::WARN, "error").expect("no warning for the agent's failure");
    assert_eq!(failed["error"], "the database said no");
    assert_eq!(failed["error_id"].len(), 16);
    assert_eq!(failed["run_id"], "r-9");
    let forgiven = in_span(Level::INFO, "warnings").expect("no info line for forgiven input");
    assert_eq!(forgiven["count"], "1");
    assert!(forgiven["warnings"].contains("/messages/0"), "{forgiven:?}");
}
