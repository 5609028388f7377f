//! A resumable run's own subscribers (the `POST` that started it, joins arriving on the
//! instance that runs it) are served from the owner's memory as events are made, ahead of
//! the store's writes; the terminal event only once the store's `end_run` returned Ok,
//! and the store's own terminal when the store ended the run otherwise.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ag_ui_core::{Event, RunAgentInput, SseReader};
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::{
    Cursor, MemoryStore, Record, RecordStream, RunMeta, RunStore, Runs, StoreError, StoreFuture,
    ThreadRunStream,
};
use ag_ui_server::{Agent, AgentService, AgentStream, Cancellation};
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::support::{LIMIT, client, input, serve};

/// A memory store whose writes take `delay`, counting those done; with `take`, its
/// `end_run` ends the run with a `RUN_ERROR` of its own first and answers `Ended`, as a
/// store does when another instance ended the run as orphaned.
#[derive(Clone, Default)]
struct Wrapped {
    inner: MemoryStore,
    delay: Duration,
    take: bool,
    /// Lost its data: writes and tails answer `NotFound`.
    lose: bool,
    /// Writes (appends and ends) completed.
    written: Arc<AtomicUsize>,
    /// Ends completed.
    ended: Arc<AtomicUsize>,
    /// The last cursor appended, by run.
    last: Arc<Mutex<HashMap<String, Cursor>>>,
}

/// The terminal event the store writes when it ends a run itself.
const TAKEN: &[u8] = br#"{"type":"RUN_ERROR","message":"the owner was lost","code":"taken"}"#;

impl RunStore for Wrapped {
    fn create_run(&self, meta: RunMeta) -> StoreFuture<'_, ()> {
        self.inner.create_run(meta)
    }
    fn thread_runs<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
        after: u64,
    ) -> StoreFuture<'a, ThreadRunStream> {
        self.inner.thread_runs(principal, thread_id, after)
    }
    fn thread_run<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
    ) -> StoreFuture<'a, Option<String>> {
        self.inner.thread_run(principal, thread_id)
    }
    fn thread_seq<'a>(
        &'a self,
        principal: Option<&'a str>,
        thread_id: &'a str,
    ) -> StoreFuture<'a, u64> {
        self.inner.thread_seq(principal, thread_id)
    }
    fn append<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            tokio::time::sleep(self.delay).await;
            if self.lose {
                return Err(StoreError::NotFound(run_id.to_owned()));
            }
            if let Some(r) = records.last() {
                self.last
                    .lock()
                    .unwrap()
                    .insert(run_id.to_owned(), r.cursor);
            }
            let r = self.inner.append(run_id, records).await;
            self.written.fetch_add(1, Ordering::SeqCst);
            r
        })
    }
    fn end_run<'a>(&'a self, run_id: &'a str, records: Vec<Record>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            tokio::time::sleep(self.delay).await;
            if self.lose {
                return Err(StoreError::NotFound(run_id.to_owned()));
            }
            let r = if self.take {
                let next = self.last.lock().unwrap().get(run_id).copied().unwrap_or(0) + 1;
                self.inner
                    .end_run(run_id, vec![Record::new(next, TAKEN)])
                    .await?;
                Err(StoreError::Ended(run_id.to_owned()))
            } else {
                self.inner.end_run(run_id, records).await
            };
            self.written.fetch_add(1, Ordering::SeqCst);
            self.ended.fetch_add(1, Ordering::SeqCst);
            r
        })
    }
    fn run<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, Option<RunMeta>> {
        self.inner.run(run_id)
    }
    fn tail<'a>(&'a self, run_id: &'a str, after: Cursor) -> StoreFuture<'a, RecordStream> {
        if self.lose {
            let e = StoreError::NotFound(run_id.to_owned());
            return Box::pin(async move { Err(e) });
        }
        self.inner.tail(run_id, after)
    }
    fn request_stop<'a>(&'a self, run_id: &'a str) -> StoreFuture<'a, bool> {
        self.inner.request_stop(run_id)
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
        self.inner.renew_lease(run_id, owner, ttl)
    }
}

/// An SSE response read event by event, with the id in force for each.
struct Sse {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    reader: SseReader,
}

impl Sse {
    fn new(response: reqwest::Response) -> Sse {
        assert_eq!(response.status(), 200);
        Sse {
            body: response.bytes_stream().boxed(),
            reader: SseReader::new(),
        }
    }

    async fn next(&mut self) -> Option<(Option<String>, Value)> {
        loop {
            if let Some(m) = self.reader.next_message() {
                let event: Event = ag_ui_core::read::from_str(&m).unwrap();
                let id = self.reader.last_event_id().map(str::to_owned);
                return Some((id, serde_json::to_value(&event).unwrap()));
            }
            match tokio::time::timeout(LIMIT, self.body.next())
                .await
                .expect("stream stalled")?
            {
                Ok(chunk) => self.reader.feed(&chunk).unwrap(),
                Err(_) => return None,
            }
        }
    }

    async fn rest(&mut self) -> Vec<(Option<String>, Value)> {
        let mut out = Vec::new();
        while let Some(e) = self.next().await {
            out.push(e);
        }
        out
    }
}

fn post(url: &str, body: &Value) -> reqwest::RequestBuilder {
    client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(body).unwrap())
}

fn join(url: &str, run: &str) -> reqwest::RequestBuilder {
    client()
        .get(format!("{url}runs/{run}/events"))
        .header("accept", "text/event-stream")
}

fn terminals(events: &[(Option<String>, Value)]) -> Vec<&Value> {
    events
        .iter()
        .map(|(_, e)| e)
        .filter(|e| matches!(e["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR")))
        .collect()
}

/// An agent that sends its start and a message's first deltas, waits for `gate`, then
/// sends the rest and finishes.
fn gated(gate: Arc<tokio::sync::Notify>) -> impl Agent {
    move |input: RunAgentInput, _cancel: Cancellation| -> AgentStream {
        let gate = Arc::clone(&gate);
        let (thread, run) = (input.thread_id.to_string(), input.run_id.to_string());
        let event = |v: Value| -> Event { serde_json::from_value(v).unwrap() };
        let delta = |i: usize| {
            event(
                json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": format!("d{i}")}),
            )
        };
        let head: Vec<_> = [
            event(json!({"type": "RUN_STARTED", "threadId": thread, "runId": run})),
            event(json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"})),
        ]
        .into_iter()
        .chain((0..3).map(delta))
        .collect();
        let tail: Vec<_> = (3..10)
            .map(delta)
            .chain([
                event(json!({"type": "TEXT_MESSAGE_END", "messageId": "m"})),
                event(json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run})),
            ])
            .collect();
        let wait = futures_util::stream::once(async move { gate.notified().await })
            .flat_map(move |()| futures_util::stream::iter(tail.clone()));
        let events = futures_util::stream::iter(head).chain(wait);
        Box::pin(events.map(Ok::<Event, ag_ui_core::BoxError>))
    }
}

#[tokio::test]
async fn the_post_stream_gets_events_once_the_store_has_them_and_the_end_after() {
    let store = Wrapped {
        delay: Duration::from_millis(300),
        ..Wrapped::default()
    };
    let server = serve(AgentService::new(DemoAgent::new()).runs(Runs::new(store.clone()))).await;
    let body = input("slow-store", json!({"scenario": "firehose", "events": 20}));
    let mut sse = Sse::new(post(&server.url(), &body).send().await.unwrap());
    let (id, first) = sse.next().await.unwrap();
    assert_eq!(first["type"], "RUN_STARTED");
    assert_eq!(id.as_deref(), Some("1"));
    assert!(
        store.written.load(Ordering::SeqCst) >= 1,
        "the first event came before the store held it"
    );
    let mut events = vec![(id, first)];
    while let Some((id, e)) = sse.next().await {
        if matches!(e["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR")) {
            assert_eq!(
                store.ended.load(Ordering::SeqCst),
                1,
                "the terminal event came before the store's end_run returned"
            );
        }
        events.push((id, e));
    }
    assert_eq!(events.len(), 24, "{events:?}");
    assert_eq!(terminals(&events).len(), 1);
    assert_eq!(events.last().unwrap().1["type"], "RUN_FINISHED");
    let ids: Vec<String> = (1..=24).map(|c| c.to_string()).collect();
    let got: Vec<String> = events.iter().map(|(id, _)| id.clone().unwrap()).collect();
    assert_eq!(got, ids);
    // A join from the store replays the same run.
    let joined = Sse::new(join(&server.url(), "slow-store").send().await.unwrap())
        .rest()
        .await;
    assert_eq!(joined, events);
}

/// An agent whose 3,000 text deltas are all ready at once, counting those taken from it.
fn counted(made: Arc<AtomicUsize>) -> impl Agent {
    move |input: RunAgentInput, _cancel: Cancellation| -> AgentStream {
        let made = Arc::clone(&made);
        let (thread, run) = (input.thread_id.to_string(), input.run_id.to_string());
        let event = |v: Value| -> Event { serde_json::from_value(v).unwrap() };
        let events: Vec<Event> = [
            event(json!({"type": "RUN_STARTED", "threadId": thread, "runId": run})),
            event(json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"})),
        ]
        .into_iter()
        .chain((0..3000).map(|i| {
            event(
                json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": format!("d{i}")}),
            )
        }))
        .chain([
            event(json!({"type": "TEXT_MESSAGE_END", "messageId": "m"})),
            event(json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run})),
        ])
        .collect();
        let events = futures_util::stream::iter(events).inspect(move |_| {
            made.fetch_add(1, Ordering::SeqCst);
        });
        Box::pin(events.map(Ok::<Event, ag_ui_core::BoxError>))
    }
}

#[tokio::test]
async fn a_store_that_holds_a_batch_at_once_releases_it_before_the_agent_makes_the_next() {
    // The response that started the run polls its driver (in process here, so the run
    // goes only as far as the body is read): with the memory store, whose writes are done
    // when first polled, the first batch goes out before the agent is asked for a second
    // (a fast agent's first event would otherwise wait for two batches).
    use http_body_util::BodyExt;
    let made = Arc::new(AtomicUsize::new(0));
    let service = AgentService::new(counted(Arc::clone(&made))).runs(Runs::new(MemoryStore::new()));
    let body = input("first-batch", json!({})).to_string();
    let request = http::Request::post("/")
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(http_body_util::Full::new(bytes::Bytes::from(body)))
        .unwrap();
    let mut response = service.handle(request).await.into_body();
    let first = response
        .frame()
        .await
        .unwrap()
        .unwrap()
        .into_data()
        .unwrap();
    let at_first = made.load(Ordering::SeqCst);
    assert!(
        (1..=256).contains(&at_first),
        "the agent had made {at_first} events when the first went out"
    );
    let rest = response.collect().await.unwrap().to_bytes();
    let mut reader = SseReader::new();
    reader.feed(&first).unwrap();
    reader.feed(&rest).unwrap();
    let mut events: Vec<Event> = Vec::new();
    while let Some(m) = reader.next_message() {
        events.push(ag_ui_core::read::from_str(&m).unwrap());
    }
    assert_eq!(events.len(), 3004);
    assert_eq!(
        events[0].event_type(),
        ag_ui_core::EventType::RunStarted,
        "the first frame"
    );
    assert_eq!(
        events.last().map(Event::event_type),
        Some(ag_ui_core::EventType::RunFinished)
    );
}

#[tokio::test]
async fn a_local_join_and_the_post_stream_see_the_same_run() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let server = serve(AgentService::new(gated(Arc::clone(&gate))).runs(Runs::in_memory())).await;
    let url = server.url();
    let body = input("local-join", json!({}));
    let mut started = Sse::new(post(&url, &body).send().await.unwrap());
    let mut head = Vec::new();
    for _ in 0..5 {
        head.push(started.next().await.unwrap());
    }
    // One join from the start, one from the third event, while the run waits.
    let mut from_start = Sse::new(join(&url, "local-join").send().await.unwrap());
    let mut from_three = Sse::new(
        join(&url, "local-join")
            .header("last-event-id", "3")
            .send()
            .await
            .unwrap(),
    );
    for _ in 0..5 {
        from_start.next().await.unwrap();
    }
    gate.notify_one();
    head.extend(started.rest().await);
    let mut joined = Sse::new(join(&url, "local-join").send().await.unwrap())
        .rest()
        .await;
    assert_eq!(head.len(), 14, "{head:?}");
    assert_eq!(terminals(&head).len(), 1);
    assert_eq!(joined, head, "a join after the end replays the run");
    joined = from_three.rest().await;
    assert_eq!(joined, head[3..]);
    let mut all = head[..5].to_vec();
    all.extend(from_start.rest().await);
    assert_eq!(all, head);
}

#[tokio::test]
async fn a_run_the_store_ended_otherwise_ends_every_local_stream_with_the_stores_terminal() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let store = Wrapped {
        take: true,
        ..Wrapped::default()
    };
    let server =
        serve(AgentService::new(gated(Arc::clone(&gate))).runs(Runs::new(store.clone()))).await;
    let url = server.url();
    let body = input("taken", json!({}));
    let mut started = Sse::new(post(&url, &body).send().await.unwrap());
    let mut events = Vec::new();
    for _ in 0..5 {
        events.push(started.next().await.unwrap());
    }
    let mut joiner = Sse::new(join(&url, "taken").send().await.unwrap());
    gate.notify_one();
    events.extend(started.rest().await);
    let joined = joiner.rest().await;
    for stream in [&events, &joined] {
        let ends = terminals(stream);
        assert_eq!(ends.len(), 1, "{stream:?}");
        assert_eq!(ends[0]["type"], "RUN_ERROR");
        assert_eq!(
            ends[0]["code"], "taken",
            "the store's terminal, not the owner's"
        );
        assert_eq!(stream.last().unwrap().1["code"], "taken");
    }
    assert_eq!(events, joined);
    // The store's log ends the same way.
    let replay = Sse::new(join(&url, "taken").send().await.unwrap())
        .rest()
        .await;
    assert_eq!(replay.last().unwrap().1["code"], "taken");
    assert_eq!(terminals(&replay).len(), 1);
}

#[tokio::test]
async fn a_store_that_lost_the_run_ends_the_post_stream_as_it_ends_a_store_subscriber() {
    let store = Wrapped {
        lose: true,
        ..Wrapped::default()
    };
    let server = serve(AgentService::new(DemoAgent::new()).runs(Runs::new(store))).await;
    let body = input("lost", json!({"scenario": "firehose", "events": 20}));
    let events = Sse::new(post(&server.url(), &body).send().await.unwrap())
        .rest()
        .await;
    let ends = terminals(&events);
    assert_eq!(ends.len(), 1, "{events:?}");
    assert_eq!(ends[0]["type"], "RUN_ERROR");
    assert_eq!(ends[0]["code"], ag_ui_server::runs::CODE_STORE_LOST);
    assert_eq!(events.last().unwrap().1["code"], "store_lost");
}
