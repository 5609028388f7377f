//! Threads in a thread store beside the run store (`ag_ui_server::threads`): each run's
//! thread written at its start, checkpointed while it goes on and ended with its outcome;
//! connects scoped to their principal; runs the run store does not know reported lost;
//! the sweep.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime};

use ag_ui_core::{Event, RunAgentInput, SseReader};
use ag_ui_server::runs::{RunPhase, Runs};
use ag_ui_server::threads::{
    CODE_RUN_LOST, MemoryThreads, Owner, RunEndKind, RunStart, StoredThread, ThreadFuture,
    ThreadPage, ThreadPatch, ThreadQuery, ThreadStore, ThreadStoreError, ThreadSummary,
};
use ag_ui_server::{AgentService, AgentStream, Cancellation};
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::support::{LIMIT, Server, client, input, serve};

/// An agent that writes one assistant message, `Hel` then `lo`, with a pause of
/// `forwardedProps.pauseMs` between them, and ends with `RUN_FINISHED` reporting usage,
/// or with `RUN_ERROR` of code `forwardedProps.error` when there is one.
fn scripted(input: RunAgentInput, _cancel: Cancellation) -> AgentStream {
    let thread = input.thread_id.to_string();
    let run = input.run_id.to_string();
    let props = input.forwarded_props.clone().unwrap_or(Value::Null);
    let pause = Duration::from_millis(props["pauseMs"].as_u64().unwrap_or(0));
    let message = format!("a-{run}");
    let terminal = match props["error"].as_str() {
        Some(code) => json!({"type": "RUN_ERROR", "message": "it failed", "code": code}),
        None => json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run,
                       "usage": [{"provider": "p", "model": "m", "inputTokens": 7}]}),
    };
    let first = [
        json!({"type": "RUN_STARTED", "threadId": thread, "runId": run}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": "Hel"}),
    ];
    let second = [
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": "lo"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": message}),
        terminal,
    ];
    let event = |v: Value| -> Result<Event, ag_ui_core::BoxError> {
        Ok(serde_json::from_value(v).unwrap())
    };
    let pause = futures_util::stream::once(tokio::time::sleep(pause))
        .filter_map(|()| async { None::<Result<Event, ag_ui_core::BoxError>> });
    Box::pin(
        futures_util::stream::iter(first.map(event))
            .chain(pause)
            .chain(futures_util::stream::iter(second.map(event))),
    )
}

/// Who a request comes from: its `x-user` header (none: anonymous).
fn by_header(runs: Runs) -> Runs {
    runs.authorize(|parts| {
        Ok(parts
            .headers
            .get("x-user")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned))
    })
}

async fn server(threads: &MemoryThreads, f: impl FnOnce(Runs) -> Runs) -> Server {
    let runs = f(Runs::in_memory().threads(threads.clone()));
    serve(AgentService::new(scripted).runs(runs)).await
}

fn body(run: &str, props: Value) -> Value {
    input(run, props)
}

async fn start(server: &Server, user: Option<&str>, body: &Value) -> reqwest::Response {
    let mut r = client()
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "text/event-stream");
    if let Some(u) = user {
        r = r.header("x-user", u);
    }
    r.body(serde_json::to_vec(body).unwrap())
        .send()
        .await
        .unwrap()
}

async fn connect(server: &Server, user: Option<&str>, thread: &str) -> reqwest::Response {
    let mut r = client()
        .get(format!("{}threads/{thread}", server.url()))
        .header("accept", "text/event-stream");
    if let Some(u) = user {
        r = r.header("x-user", u);
    }
    r.send().await.unwrap()
}

/// A response's SSE events as JSON, to its end.
async fn events(response: reqwest::Response) -> Vec<Value> {
    let mut body = response.bytes_stream();
    let mut reader = SseReader::new();
    let mut out = Vec::new();
    loop {
        while let Some(m) = reader.next_message() {
            out.push(serde_json::from_str(&m).unwrap());
        }
        match tokio::time::timeout(LIMIT, body.next())
            .await
            .expect("stream stalled")
        {
            Some(Ok(chunk)) => reader.feed(&chunk).unwrap(),
            _ => return out,
        }
    }
}

async fn error_of(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    (
        status,
        serde_json::from_slice(&response.bytes().await.unwrap()).unwrap(),
    )
}

/// Reads the owner's thread until `done` holds of it (bounded by [`LIMIT`]).
async fn until(
    threads: &MemoryThreads,
    owner: Option<&str>,
    thread: &str,
    done: impl Fn(&StoredThread) -> bool,
) -> StoredThread {
    let deadline = Instant::now() + LIMIT;
    loop {
        let t = threads.thread(owner, thread).await.unwrap();
        match t {
            Some(t) if done(&t) => return t,
            _ if Instant::now() > deadline => panic!("not reached in time: {t:?}"),
            _ => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
}

fn messages(t: &StoredThread) -> Value {
    serde_json::to_value(t.thread.messages()).unwrap()
}

#[tokio::test]
async fn a_runs_thread_is_written_at_its_start_checkpointed_and_ended() {
    let threads = MemoryThreads::new();
    let server = server(&threads, |r| r.checkpoint_every(Duration::from_millis(20))).await;
    let first = body("run-1", json!({"pauseMs": 2000}));
    let response = start(&server, None, &first).await;
    assert_eq!(response.status(), 200);
    // Written at the start: the run running, the input's messages new to the thread.
    let begun = threads.thread(None, "thread-1").await.unwrap().unwrap();
    assert_eq!(begun.runs.len(), 1);
    assert_eq!(begun.runs[0].status, RunPhase::Running);
    assert_eq!(
        serde_json::to_value(&begun.runs[0].input_messages).unwrap(),
        first["messages"]
    );
    let reading = tokio::spawn(events(response));
    // Checkpointed during the pause: the fold so far, the run still running.
    let checkpoint = until(&threads, None, "thread-1", |t| {
        t.thread.message("a-run-1").is_some()
    })
    .await;
    assert_eq!(checkpoint.runs[0].status, RunPhase::Running);
    assert_eq!(
        messages(&checkpoint),
        json!([{"id": "u1", "role": "user", "content": "What is the weather?"},
               {"id": "a-run-1", "role": "assistant", "content": "Hel"}])
    );
    let streamed = reading.await.unwrap();
    assert_eq!(streamed.last().unwrap()["type"], "RUN_FINISHED");
    // Ended: the outcome, the usage and the whole fold.
    let ended = until(&threads, None, "thread-1", |t| {
        t.runs[0].status == RunPhase::Ended
    })
    .await;
    let run = &ended.runs[0];
    assert_eq!(run.outcome, Some(RunEndKind::Success));
    assert_eq!(
        serde_json::to_value(&run.usage).unwrap(),
        json!([{"provider": "p", "model": "m", "inputTokens": 7}])
    );
    assert_eq!(run.error_code, None);
    assert!(run.ended_at.is_some());
    assert_eq!(messages(&ended)[1]["content"], "Hello");

    // A second run whose input carries the thread back with one new message: only that
    // one is the run's input; its RUN_ERROR's code is kept.
    let mut second = body("run-2", json!({"error": "boom"}));
    let mut history = messages(&ended);
    history
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "u2", "role": "user", "content": "And tomorrow?"}));
    second["messages"] = history;
    let streamed = events(start(&server, None, &second).await).await;
    assert_eq!(streamed.last().unwrap()["type"], "RUN_ERROR");
    let ended = until(&threads, None, "thread-1", |t| {
        t.runs.len() == 2 && t.runs[1].status == RunPhase::Ended
    })
    .await;
    let run = &ended.runs[1];
    assert_eq!(
        serde_json::to_value(&run.input_messages).unwrap(),
        json!([{"id": "u2", "role": "user", "content": "And tomorrow?"}])
    );
    assert_eq!(run.outcome, Some(RunEndKind::Error));
    assert_eq!(run.error_code.as_deref(), Some("boom"));
    assert_eq!(ended.summary.run_count, 2);
}

/// A connect during a run that has been checkpointed: the thread as the run's input left
/// it, then the whole run, so nothing of the run is sent twice.
#[tokio::test]
async fn a_connect_after_a_checkpoint_sends_the_run_once() {
    let threads = MemoryThreads::new();
    let server = server(&threads, |r| r.checkpoint_every(Duration::from_millis(20))).await;
    let response = start(&server, None, &body("run-c", json!({"pauseMs": 2000}))).await;
    let reading = tokio::spawn(events(response));
    until(&threads, None, "thread-1", |t| {
        t.thread.message("a-run-c").is_some()
    })
    .await;
    let during = events(connect(&server, None, "thread-1").await).await;
    let started = reading.await.unwrap();
    assert_eq!(
        during[1]["messages"],
        json!([{"id": "u1", "role": "user", "content": "What is the weather?"}])
    );
    assert_eq!(during[3]["type"], "RUN_FINISHED");
    assert_eq!(during[4..], started[..]);
}

#[tokio::test]
async fn a_principal_cannot_connect_to_anothers_thread() {
    let threads = MemoryThreads::new();
    let server = server(&threads, by_header).await;
    let alice = events(start(&server, Some("alice"), &body("run-a", json!({}))).await).await;
    assert_eq!(alice.last().unwrap()["type"], "RUN_FINISHED");
    until(&threads, Some("alice"), "thread-1", |t| {
        t.active_run().is_none()
    })
    .await;
    for who in [Some("bob"), None] {
        let (status, doc) = error_of(connect(&server, who, "thread-1").await).await;
        assert_eq!(status, 404, "{who:?}");
        assert_eq!(doc["error"], "thread_not_found");
    }
    let own = events(connect(&server, Some("alice"), "thread-1").await).await;
    assert_eq!(own[1]["messages"][1]["content"], "Hello");
    // Bob's thread of the same id is his own; Alice's is untouched by it.
    let mut bobs = body("run-b", json!({}));
    bobs["messages"] = json!([{"id": "b1", "role": "user", "content": "Hi"}]);
    events(start(&server, Some("bob"), &bobs).await).await;
    let bob = until(&threads, Some("bob"), "thread-1", |t| {
        t.active_run().is_none()
    })
    .await;
    assert_eq!(bob.thread.messages()[0].id().as_str(), "b1");
    let alice = threads
        .thread(Some("alice"), "thread-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(alice.runs.len(), 1);
    assert_eq!(alice.thread.messages()[0].id().as_str(), "u1");
}

/// A thread store that says a run is running which the run store does not know (the
/// process restarted with a memory run store, say): a connect marks it lost and serves
/// the thread as its last checkpoint left it, ended by `RUN_ERROR` `run_lost`.
#[tokio::test]
async fn a_running_run_the_run_store_does_not_know_is_reported_lost() {
    let threads = MemoryThreads::new();
    let input: ag_ui_core::ThreadState = ag_ui_core::ThreadState::new().with_messages(vec![
        serde_json::from_value(json!({"id": "u1", "role": "user", "content": "Hi"})).unwrap(),
    ]);
    threads
        .begin_run(
            None,
            RunStart::new("thread-x", "run-gone", Vec::new(), input.clone()),
        )
        .await
        .unwrap();
    let mut checkpoint = input;
    for e in [
        json!({"type": "RUN_STARTED", "threadId": "thread-x", "runId": "run-gone"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Half"}),
    ] {
        checkpoint.apply_owned(serde_json::from_value(e).unwrap());
    }
    threads
        .checkpoint(None, "thread-x", "run-gone", &checkpoint)
        .await
        .unwrap();
    let server = server(&threads, |r| r).await;
    for _ in 0..2 {
        let got = events(connect(&server, None, "thread-x").await).await;
        let types: Vec<&str> = got.iter().filter_map(|e| e["type"].as_str()).collect();
        assert_eq!(
            types,
            [
                "RUN_STARTED",
                "MESSAGES_SNAPSHOT",
                "STATE_SNAPSHOT",
                "RUN_ERROR"
            ]
        );
        assert_eq!(got[1]["messages"][1]["content"], "Half");
        assert_eq!(got[3]["code"], CODE_RUN_LOST);
    }
    let stored = threads.thread(None, "thread-x").await.unwrap().unwrap();
    let run = &stored.runs[0];
    assert_eq!(run.status, RunPhase::Ended);
    assert_eq!(run.outcome, Some(RunEndKind::Error));
    assert_eq!(run.error_code.as_deref(), Some(CODE_RUN_LOST));
}

#[tokio::test]
async fn an_authorisation_naming_an_empty_principal_is_refused() {
    let threads = MemoryThreads::new();
    let server = server(&threads, |r| r.authorize(|_| Ok(Some(String::new())))).await;
    let (status, doc) = error_of(start(&server, None, &body("run-e", json!({}))).await).await;
    assert_eq!(status, 500);
    assert_eq!(doc["error"], "invalid_principal");
    let (status, doc) = error_of(connect(&server, None, "thread-1").await).await;
    assert_eq!(status, 500);
    assert_eq!(doc["error"], "invalid_principal");
    assert!(threads.thread(None, "thread-1").await.unwrap().is_none());
}

#[tokio::test]
async fn without_threads_a_connect_is_404_and_runs_go_on() {
    let server = serve(AgentService::new(scripted).runs(Runs::in_memory().no_threads())).await;
    let streamed = events(start(&server, None, &body("run-n", json!({}))).await).await;
    assert_eq!(streamed.last().unwrap()["type"], "RUN_FINISHED");
    let (status, doc) = error_of(connect(&server, None, "thread-1").await).await;
    assert_eq!(status, 404);
    assert_eq!(doc["error"], "not_found");
}

/// The sweep, run as requests come (at most once per checkpoint interval): a running run
/// not written for three intervals and a lease is marked lost, an archived thread past
/// the archived TTL deleted; a live run, checkpointed, stays running.
#[tokio::test]
async fn the_sweep_marks_stale_runs_lost_and_expires_archived_threads() {
    let threads = MemoryThreads::new();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    let mut stale = RunStart::new("thread-stale", "run-stale", Vec::new(), Default::default());
    stale.started_at = hour_ago;
    threads.begin_run(None, stale).await.unwrap();
    let done = RunStart::new("thread-old", "run-old", Vec::new(), Default::default());
    threads.begin_run(None, done).await.unwrap();
    threads
        .end_run(
            None,
            ag_ui_server::threads::RunEnding::new(
                "thread-old",
                "run-old",
                RunEndKind::Success,
                Default::default(),
            ),
        )
        .await
        .unwrap();
    threads
        .update(None, "thread-old", ThreadPatch::new().archived(true))
        .await
        .unwrap();
    let server = server(&threads, |r| {
        r.checkpoint_every(Duration::from_millis(20))
            .lease(Duration::from_millis(60))
            .archived_ttl(Duration::from_millis(50))
    })
    .await;
    // A live run going on through several sweeps: its pause outlasts the sweeps below by
    // seconds, so a loaded machine cannot end it before it is looked at.
    let live = start(&server, None, &body("run-live", json!({"pauseMs": 3000}))).await;
    let reading = tokio::spawn(events(live));
    let deadline = Instant::now() + LIMIT;
    loop {
        // Any request may run the sweep.
        let _ = connect(&server, None, "nope").await;
        let stale = threads.thread(None, "thread-stale").await.unwrap().unwrap();
        let old = threads.thread(None, "thread-old").await.unwrap();
        if stale.runs[0].status == RunPhase::Ended && old.is_none() {
            assert_eq!(stale.runs[0].error_code.as_deref(), Some(CODE_RUN_LOST));
            break;
        }
        assert!(Instant::now() < deadline, "not swept: {stale:?} {old:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Three intervals and a lease (120 ms) pass while the live run checkpoints.
    tokio::time::sleep(Duration::from_millis(250)).await;
    let _ = connect(&server, None, "nope").await;
    tokio::time::sleep(Duration::from_millis(30)).await;
    let live = threads.thread(None, "thread-1").await.unwrap().unwrap();
    assert_eq!(live.runs[0].status, RunPhase::Running, "{live:?}");
    let streamed = reading.await.unwrap();
    assert_eq!(streamed.last().unwrap()["type"], "RUN_FINISHED");
}

/// A thread store that fails every operation, as an unreachable database does.
struct Unreachable;

fn failed<'a, T: Send + 'a>() -> ThreadFuture<'a, T> {
    Box::pin(async { Err(ThreadStoreError::Backend("connection refused".into())) })
}

impl ThreadStore for Unreachable {
    fn begin_run<'a>(&'a self, _: Owner<'a>, _: RunStart) -> ThreadFuture<'a, ()> {
        failed()
    }
    fn checkpoint<'a>(
        &'a self,
        _: Owner<'a>,
        _: &'a str,
        _: &'a str,
        _: &'a ag_ui_core::ThreadState,
    ) -> ThreadFuture<'a, ()> {
        failed()
    }
    fn end_run<'a>(
        &'a self,
        _: Owner<'a>,
        _: ag_ui_server::threads::RunEnding,
    ) -> ThreadFuture<'a, ()> {
        failed()
    }
    fn thread<'a>(&'a self, _: Owner<'a>, _: &'a str) -> ThreadFuture<'a, Option<StoredThread>> {
        failed()
    }
    fn list<'a>(&'a self, _: Owner<'a>, _: &'a ThreadQuery) -> ThreadFuture<'a, ThreadPage> {
        failed()
    }
    fn update<'a>(
        &'a self,
        _: Owner<'a>,
        _: &'a str,
        _: ThreadPatch,
    ) -> ThreadFuture<'a, Option<ThreadSummary>> {
        failed()
    }
    fn delete<'a>(&'a self, _: Owner<'a>, _: &'a str) -> ThreadFuture<'a, bool> {
        failed()
    }
    fn lose_run<'a>(&'a self, _: Owner<'a>, _: &'a str, _: &'a str) -> ThreadFuture<'a, bool> {
        failed()
    }
    fn rollback_run<'a>(
        &'a self,
        _: Owner<'a>,
        _: &'a str,
        _: &'a str,
        _: &'a ag_ui_core::ThreadState,
    ) -> ThreadFuture<'a, bool> {
        failed()
    }
    fn lose_stale_runs(&self, _: SystemTime) -> ThreadFuture<'_, u64> {
        failed()
    }
    fn expire_archived(&self, _: SystemTime) -> ThreadFuture<'_, u64> {
        failed()
    }
}

/// A thread store that fails never reaches a run's stream: the run streams whole, the
/// same as without threads; a thread connect is 503 `thread_store_unavailable`.
#[tokio::test]
async fn a_failing_thread_store_never_breaks_a_runs_stream() {
    let plain = serve(AgentService::new(scripted).runs(Runs::in_memory().no_threads())).await;
    let want = events(start(&plain, None, &body("run-f", json!({"pauseMs": 100}))).await).await;
    let server = serve(
        AgentService::new(scripted).runs(
            Runs::in_memory()
                .threads(Unreachable)
                .checkpoint_every(Duration::from_millis(10)),
        ),
    )
    .await;
    let got = events(start(&server, None, &body("run-f", json!({"pauseMs": 100}))).await).await;
    assert_eq!(got, want);
    let (status, doc) = error_of(connect(&server, None, "thread-1").await).await;
    assert_eq!(status, 503);
    assert_eq!(doc["error"], "thread_store_unavailable");
}

/// A [`MemoryThreads`] whose first starts and ends fail (as a database that is briefly
/// away does), counting the sweeps it is asked for.
#[derive(Clone, Default)]
struct Flaky {
    inner: MemoryThreads,
    begin_failures: Arc<AtomicU32>,
    end_failures: Arc<AtomicU32>,
    sweeps: Arc<AtomicU32>,
}

/// Takes one of `budget`'s failures, if it has any left.
fn fails(budget: &AtomicU32) -> bool {
    budget
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
        .is_ok()
}

impl ThreadStore for Flaky {
    fn begin_run<'a>(&'a self, owner: Owner<'a>, run: RunStart) -> ThreadFuture<'a, ()> {
        if fails(&self.begin_failures) {
            return failed();
        }
        self.inner.begin_run(owner, run)
    }
    fn checkpoint<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        thread: &'a ag_ui_core::ThreadState,
    ) -> ThreadFuture<'a, ()> {
        self.inner.checkpoint(owner, thread_id, run_id, thread)
    }
    fn end_run<'a>(
        &'a self,
        owner: Owner<'a>,
        end: ag_ui_server::threads::RunEnding,
    ) -> ThreadFuture<'a, ()> {
        if fails(&self.end_failures) {
            return failed();
        }
        self.inner.end_run(owner, end)
    }
    fn thread<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
    ) -> ThreadFuture<'a, Option<StoredThread>> {
        self.inner.thread(owner, thread_id)
    }
    fn list<'a>(
        &'a self,
        owner: Owner<'a>,
        query: &'a ThreadQuery,
    ) -> ThreadFuture<'a, ThreadPage> {
        self.inner.list(owner, query)
    }
    fn update<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        patch: ThreadPatch,
    ) -> ThreadFuture<'a, Option<ThreadSummary>> {
        self.inner.update(owner, thread_id, patch)
    }
    fn delete<'a>(&'a self, owner: Owner<'a>, thread_id: &'a str) -> ThreadFuture<'a, bool> {
        self.inner.delete(owner, thread_id)
    }
    fn rollback_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        fold: &'a ag_ui_core::ThreadState,
    ) -> ThreadFuture<'a, bool> {
        self.inner.rollback_run(owner, thread_id, run_id, fold)
    }
    fn lose_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
    ) -> ThreadFuture<'a, bool> {
        self.inner.lose_run(owner, thread_id, run_id)
    }
    fn lose_stale_runs(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        self.sweeps.fetch_add(1, Ordering::AcqRel);
        self.inner.lose_stale_runs(before)
    }
    fn expire_archived(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        self.inner.expire_archived(before)
    }
}

/// A start that fails is written with the next checkpoint; an end that fails three times
/// is written by its fourth attempt.
#[tokio::test]
async fn failed_thread_writes_are_tried_again() {
    let flaky = Flaky::default();
    flaky.begin_failures.store(1, Ordering::Release);
    flaky.end_failures.store(3, Ordering::Release);
    let server = serve(
        AgentService::new(scripted).runs(
            Runs::in_memory()
                .threads(flaky.clone())
                .checkpoint_every(Duration::from_millis(20)),
        ),
    )
    .await;
    let response = start(&server, None, &body("run-r", json!({"pauseMs": 300}))).await;
    assert!(
        flaky
            .inner
            .thread(None, "thread-1")
            .await
            .unwrap()
            .is_none()
    );
    let reading = tokio::spawn(events(response));
    until(&flaky.inner, None, "thread-1", |t| {
        t.runs[0].status == RunPhase::Running
    })
    .await;
    reading.await.unwrap();
    let ended = until(&flaky.inner, None, "thread-1", |t| {
        t.runs[0].status == RunPhase::Ended
    })
    .await;
    assert_eq!(ended.runs[0].outcome, Some(RunEndKind::Success));
    assert_eq!(flaky.end_failures.load(Ordering::Acquire), 0);
}

/// However many requests come, the sweep runs at most once per checkpoint interval.
#[tokio::test]
async fn the_sweep_runs_at_most_once_per_checkpoint_interval() {
    let flaky = Flaky::default();
    let interval = Duration::from_millis(300);
    let server = serve(
        AgentService::new(scripted).runs(
            Runs::in_memory()
                .threads(flaky.clone())
                .checkpoint_every(interval),
        ),
    )
    .await;
    let began = Instant::now();
    for _ in 0..40 {
        let _ = connect(&server, None, "nope").await;
    }
    // Let the sweeps started run.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let elapsed = began.elapsed();
    let most = 1 + (elapsed.as_millis() / interval.as_millis()) as u32;
    let sweeps = flaky.sweeps.load(Ordering::Acquire);
    assert!(
        (1..=most).contains(&sweeps),
        "{sweeps} sweeps in {elapsed:?}"
    );
}

/// A run's record keeps the W3C trace id of the request that started it: the caller's,
/// from a valid `traceparent`; otherwise the new trace the server began (the one its
/// response's `traceparent` names).
#[tokio::test]
async fn a_runs_record_keeps_the_trace_id_of_its_request() {
    let threads = MemoryThreads::new();
    let server = server(&threads, |r| r).await;
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let sent = [
        ("run-t1", Some(format!("00-{trace}-00f067aa0ba902b7-01"))),
        ("run-t2", None),
        // Upper-case hex is no valid `traceparent`: a new trace.
        (
            "run-t3",
            Some(format!("00-{}-00f067aa0ba902b7-01", trace.to_uppercase())),
        ),
    ];
    let mut answered = Vec::new();
    for (run, traceparent) in &sent {
        let mut r = client()
            .post(server.url())
            .header("content-type", "application/json")
            .header("accept", "text/event-stream");
        if let Some(tp) = traceparent {
            r = r.header("traceparent", tp);
        }
        let response = r
            .body(serde_json::to_vec(&body(run, json!({}))).unwrap())
            .send()
            .await
            .unwrap();
        let back = response
            .headers()
            .get("traceparent")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .expect("the response carries a traceparent");
        let got = events(response).await;
        assert_eq!(got.last().unwrap()["type"], "RUN_FINISHED");
        answered.push(back);
    }
    let stored = threads.thread(None, "thread-1").await.unwrap().unwrap();
    assert_eq!(stored.runs.len(), 3);
    let ids: Vec<String> = stored
        .runs
        .iter()
        .map(|r| r.trace_id.clone().expect("every run has a trace id"))
        .collect();
    assert_eq!(ids[0], trace);
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(id.len(), 32, "{id}");
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
            "{id}"
        );
        // The response's `traceparent` is `00-{trace id}-{span id}-{flags}`.
        assert_eq!(answered[i].split('-').nth(1), Some(id.as_str()), "run {i}");
    }
    assert_ne!(ids[1], ids[2]);
    assert_ne!(ids[2], trace);
    assert_ne!(ids[2], trace.to_uppercase());
    // In the thread's JSON, each run record's `traceId`.
    let detail = serde_json::to_value(stored.detail()).unwrap();
    assert_eq!(detail["runs"][0]["traceId"], trace);
    assert_eq!(detail["runs"][1]["traceId"], json!(ids[1]));
}
