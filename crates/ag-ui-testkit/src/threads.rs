//! The thread store suite: what every [`ThreadStore`] must do, run against memory
//! (ag-ui-server), SQLite and PostgreSQL (ag-ui-sql).
//!
//! Each case is an `async fn(&dyn ThreadStore)` on a fresh, empty store; [`CASES`] lists
//! them by name, and [`thread_store_suite!`](crate::thread_store_suite) makes one test of
//! each.
#![allow(
    clippy::panic,
    reason = "test support fails the test by panicking, saying why"
)]

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

use ag_ui_core::{Event, Message, ThreadState, TokenUsage};
use ag_ui_server::runs::RunPhase;
use ag_ui_server::threads::{
    Archived, CODE_RUN_LOST, Owner, RunEndKind, RunEnding, RunStart, StoredThread, ThreadFuture,
    ThreadPage, ThreadPatch, ThreadQuery, ThreadStore, ThreadStoreError, ThreadSummary,
};
use serde_json::{Value, json};

/// A suite case's future.
pub type ThreadStoreCaseFuture<'a> = Pin<Box<dyn Future<Output = ()> + 'a>>;
/// A suite case.
pub type ThreadStoreCase = for<'a> fn(&'a dyn ThreadStore) -> ThreadStoreCaseFuture<'a>;

/// Makes one test per suite case, each on the store its `make` expression gives (an
/// async expression evaluated anew for each test: a fresh, empty store).
///
/// ```ignore
/// ag_ui_testkit::thread_store_suite!(ag_ui_server::threads::MemoryThreads::new());
/// ```
#[macro_export]
macro_rules! thread_store_suite {
    ($make:expr) => {
        $crate::thread_store_suite!(@cases $make;
            fold_round_trip, runs_are_recorded, a_run_id_is_unique_per_thread,
            a_later_run_keeps_its_fold, checkpoints, end_of_an_unknown_run,
            list_pages_without_dup_or_gap, list_by_archived_flag, list_by_metadata,
            an_invalid_cursor_is_refused, update, delete, lose_run, lose_stale_runs,
            expire_archived, principals_are_apart, hostile_ids_are_plain_data,
            concurrent_runs_on_one_thread, an_earlier_runs_checkpoint_keeps_the_later_fold,
            rollback_restores_the_fold, rollback_is_scoped_to_its_owner, rollback_of_an_unknown_run,
            list_is_stable_under_concurrent_inserts);
    };
    (@cases $make:expr; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $case() {
                let store = $make;
                $crate::threads::$case(&store).await;
            }
        )*
    };
}

/// Every case, by name, in the order the macro lists them.
pub const CASES: &[(&str, ThreadStoreCase)] = &[
    ("fold_round_trip", |s| Box::pin(fold_round_trip(s))),
    ("runs_are_recorded", |s| Box::pin(runs_are_recorded(s))),
    ("a_run_id_is_unique_per_thread", |s| {
        Box::pin(a_run_id_is_unique_per_thread(s))
    }),
    ("a_later_run_keeps_its_fold", |s| {
        Box::pin(a_later_run_keeps_its_fold(s))
    }),
    ("checkpoints", |s| Box::pin(checkpoints(s))),
    ("end_of_an_unknown_run", |s| {
        Box::pin(end_of_an_unknown_run(s))
    }),
    ("list_pages_without_dup_or_gap", |s| {
        Box::pin(list_pages_without_dup_or_gap(s))
    }),
    ("list_by_archived_flag", |s| {
        Box::pin(list_by_archived_flag(s))
    }),
    ("list_by_metadata", |s| Box::pin(list_by_metadata(s))),
    ("an_invalid_cursor_is_refused", |s| {
        Box::pin(an_invalid_cursor_is_refused(s))
    }),
    ("update", |s| Box::pin(update(s))),
    ("delete", |s| Box::pin(delete(s))),
    ("lose_run", |s| Box::pin(lose_run(s))),
    ("lose_stale_runs", |s| Box::pin(lose_stale_runs(s))),
    ("expire_archived", |s| Box::pin(expire_archived(s))),
    ("principals_are_apart", |s| {
        Box::pin(principals_are_apart(s))
    }),
    ("hostile_ids_are_plain_data", |s| {
        Box::pin(hostile_ids_are_plain_data(s))
    }),
    ("concurrent_runs_on_one_thread", |s| {
        Box::pin(concurrent_runs_on_one_thread(s))
    }),
    ("an_earlier_runs_checkpoint_keeps_the_later_fold", |s| {
        Box::pin(an_earlier_runs_checkpoint_keeps_the_later_fold(s))
    }),
    ("rollback_restores_the_fold", |s| {
        Box::pin(rollback_restores_the_fold(s))
    }),
    ("rollback_is_scoped_to_its_owner", |s| {
        Box::pin(rollback_is_scoped_to_its_owner(s))
    }),
    ("rollback_of_an_unknown_run", |s| {
        Box::pin(rollback_of_an_unknown_run(s))
    }),
    ("list_is_stable_under_concurrent_inserts", |s| {
        Box::pin(list_is_stable_under_concurrent_inserts(s))
    }),
];

/// A store with something kept alive beside it (a temporary directory, a server) for as
/// long as the store is used: a [`ThreadStore`] that delegates to `store`.
#[derive(Debug)]
#[allow(clippy::exhaustive_structs, reason = "a plain pair")]
pub struct Guarded<S, G> {
    /// The store.
    pub store: S,
    /// What it needs alive.
    pub guard: G,
}

impl<S: ThreadStore, G: Send + Sync + 'static> ThreadStore for Guarded<S, G> {
    fn begin_run<'a>(&'a self, owner: Owner<'a>, run: RunStart) -> ThreadFuture<'a, ()> {
        self.store.begin_run(owner, run)
    }
    fn checkpoint<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        thread: &'a ThreadState,
    ) -> ThreadFuture<'a, ()> {
        self.store.checkpoint(owner, thread_id, run_id, thread)
    }
    fn end_run<'a>(&'a self, owner: Owner<'a>, end: RunEnding) -> ThreadFuture<'a, ()> {
        self.store.end_run(owner, end)
    }
    fn thread<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
    ) -> ThreadFuture<'a, Option<StoredThread>> {
        self.store.thread(owner, thread_id)
    }
    fn list<'a>(
        &'a self,
        owner: Owner<'a>,
        query: &'a ThreadQuery,
    ) -> ThreadFuture<'a, ThreadPage> {
        self.store.list(owner, query)
    }
    fn update<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        patch: ThreadPatch,
    ) -> ThreadFuture<'a, Option<ThreadSummary>> {
        self.store.update(owner, thread_id, patch)
    }
    fn delete<'a>(&'a self, owner: Owner<'a>, thread_id: &'a str) -> ThreadFuture<'a, bool> {
        self.store.delete(owner, thread_id)
    }
    fn lose_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
    ) -> ThreadFuture<'a, bool> {
        self.store.lose_run(owner, thread_id, run_id)
    }
    fn rollback_run<'a>(
        &'a self,
        owner: Owner<'a>,
        thread_id: &'a str,
        run_id: &'a str,
        fold: &'a ThreadState,
    ) -> ThreadFuture<'a, bool> {
        self.store.rollback_run(owner, thread_id, run_id, fold)
    }
    fn lose_stale_runs(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        self.store.lose_stale_runs(before)
    }
    fn expire_archived(&self, before: SystemTime) -> ThreadFuture<'_, u64> {
        self.store.expire_archived(before)
    }
}

/// A directory removed (with what it holds) when dropped.
#[derive(Debug)]
#[allow(clippy::exhaustive_structs, reason = "a plain wrapper")]
pub struct RemoveOnDrop(pub std::path::PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A W3C trace id (the specification's example).
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

const ALICE: Owner<'static> = Some("alice");
const BOB: Owner<'static> = Some("bob");
const ANONYMOUS: Owner<'static> = None;

fn event(v: Value) -> Event {
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{v}: {e}"))
}

fn message(v: Value) -> Message {
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{v}: {e}"))
}

/// One message of every kind.
fn every_kind() -> Vec<Message> {
    [
        json!({"id": "m-dev", "role": "developer", "content": "Be brief."}),
        json!({"id": "m-sys", "role": "system", "content": "You are a helper."}),
        json!({"id": "m-user", "role": "user", "content": "Weather in Amsterdam?"}),
        json!({"id": "m-asst", "role": "assistant", "content": "Looking.",
               "toolCalls": [{"id": "c1", "type": "function",
                              "function": {"name": "weather", "arguments": "{\"city\":\"AMS\"}"}}]}),
        json!({"id": "m-tool", "role": "tool", "content": "12°C", "toolCallId": "c1"}),
        json!({"id": "m-act", "role": "activity", "activityType": "PLAN",
               "content": {"steps": ["look", "answer"]}}),
        json!({"id": "m-rsn", "role": "reasoning", "content": "It is cold."}),
    ]
    .into_iter()
    .map(message)
    .collect()
}

/// A thread holding `text` as its one user message and `{"n": n}` as its state.
fn fold(text: &str, n: i64) -> ThreadState {
    ThreadState::new()
        .with_messages(vec![message(
            json!({"id": format!("m-{text}"), "role": "user", "content": text}),
        )])
        .with_state(json!({ "n": n }))
}

fn texts(thread: &ThreadState) -> Vec<Value> {
    thread
        .messages()
        .iter()
        .map(|m| serde_json::to_value(m).unwrap_or_else(|e| panic!("{e}")))
        .map(|v| v["content"].clone())
        .collect()
}

fn to_value<T: serde::Serialize + ?Sized>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or_else(|e| panic!("{e}"))
}

async fn get(store: &dyn ThreadStore, owner: Owner<'_>, id: &str) -> StoredThread {
    store
        .thread(owner, id)
        .await
        .unwrap_or_else(|e| panic!("thread({owner:?}, {id:?}): {e}"))
        .unwrap_or_else(|| panic!("thread({owner:?}, {id:?}) is missing"))
}

async fn begin(store: &dyn ThreadStore, owner: Owner<'_>, thread: &str, run: &str, at: SystemTime) {
    let mut start = RunStart::new(thread, run, vec![], fold(run, 0));
    start.started_at = at;
    store
        .begin_run(owner, start)
        .await
        .unwrap_or_else(|e| panic!("begin_run({owner:?}, {thread:?}, {run:?}): {e}"));
}

async fn end(
    store: &dyn ThreadStore,
    owner: Owner<'_>,
    thread: &str,
    run: &str,
    state: ThreadState,
) {
    store
        .end_run(
            owner,
            RunEnding::new(thread, run, RunEndKind::Success, state),
        )
        .await
        .unwrap_or_else(|e| panic!("end_run({owner:?}, {thread:?}, {run:?}): {e}"));
}

/// A finished one-run thread started at `at`.
async fn finished(store: &dyn ThreadStore, owner: Owner<'_>, thread: &str, at: SystemTime) {
    begin(store, owner, thread, &format!("{thread}-r"), at).await;
    end(
        store,
        owner,
        thread,
        &format!("{thread}-r"),
        fold(thread, 1),
    )
    .await;
}

/// An hour ago, to the microsecond (what a database keeps of a time).
fn base() -> SystemTime {
    let ago = SystemTime::now() - Duration::from_secs(3600);
    let since = ago
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_else(|e| panic!("{e}"));
    std::time::UNIX_EPOCH + Duration::from_micros(u64::try_from(since.as_micros()).unwrap_or(0))
}

async fn ids(store: &dyn ThreadStore, owner: Owner<'_>, query: &ThreadQuery) -> Vec<String> {
    store
        .list(owner, query)
        .await
        .unwrap_or_else(|e| panic!("list({owner:?}, {query:?}): {e}"))
        .threads
        .into_iter()
        .map(|s| s.thread_id)
        .collect()
}

/// begin, checkpoint and end carry the whole fold: every message kind, the state, an
/// interrupt outcome with its pending interrupts; then a run error.
pub async fn fold_round_trip(store: &dyn ThreadStore) {
    let input = ThreadState::new()
        .with_messages(every_kind())
        .with_state(json!({"city": "AMS"}));
    store
        .begin_run(ALICE, RunStart::new("t", "r1", every_kind(), input.clone()))
        .await
        .unwrap();
    let back = get(store, ALICE, "t").await;
    assert_eq!(to_value(back.thread.messages()), to_value(input.messages()));
    assert_eq!(back.thread.state(), &json!({"city": "AMS"}));
    assert_eq!(back.active_run().map(|r| r.run_id.as_str()), Some("r1"));

    let mut thread = input.clone();
    for e in [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r1"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m-2", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-2", "delta": "Half"}),
    ] {
        thread.apply(&event(e));
    }
    store.checkpoint(ALICE, "t", "r1", &thread).await.unwrap();
    let back = get(store, ALICE, "t").await;
    assert_eq!(
        to_value(back.thread.messages()),
        to_value(thread.messages())
    );

    for e in [
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-2", "delta": " done."}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m-2"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"step": 3, "nested": {"a": [1, 2]}}}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r1",
               "outcome": {"type": "interrupt", "interrupts": [
                   {"id": "int-1", "reason": "input_required", "message": "Which city?"}]}}),
    ] {
        thread.apply(&event(e));
    }
    store
        .end_run(
            ALICE,
            RunEnding::new("t", "r1", RunEndKind::Interrupt, thread.clone()),
        )
        .await
        .unwrap();
    let back = get(store, ALICE, "t").await;
    assert_eq!(
        to_value(back.thread.messages()),
        to_value(thread.messages())
    );
    assert_eq!(back.thread.messages().len(), 8);
    assert_eq!(
        back.thread.state(),
        &json!({"step": 3, "nested": {"a": [1, 2]}})
    );
    assert_eq!(
        to_value(back.thread.pending_interrupts()),
        json!([{"id": "int-1", "reason": "input_required", "message": "Which city?"}])
    );
    assert_eq!(back.thread.run_status(), thread.run_status());
    assert!(back.active_run().is_none());

    // A run that failed: its error is part of the fold.
    store
        .begin_run(ALICE, RunStart::new("t", "r2", vec![], thread.clone()))
        .await
        .unwrap();
    thread.apply(&event(
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r2"}),
    ));
    thread.apply(&event(
        json!({"type": "RUN_ERROR", "message": "boom", "code": "E42"}),
    ));
    store
        .end_run(
            ALICE,
            RunEnding::new("t", "r2", RunEndKind::Error, thread.clone())
                .with_error_code(Some("E42".into())),
        )
        .await
        .unwrap();
    let back = get(store, ALICE, "t").await;
    assert_eq!(
        to_value(&back.thread.run_error()),
        to_value(&thread.run_error())
    );
    assert_eq!(to_value(&back.thread.run_error())["code"], json!("E42"));
}

/// A thread's runs: status, outcome, times, usage, error code, input messages; the
/// summary's run count and last run.
pub async fn runs_are_recorded(store: &dyn ThreadStore) {
    let t0 = base();
    let mut start = RunStart::new("t", "r1", every_kind(), ThreadState::new())
        .with_trace_id(Some(TRACE_ID.to_owned()));
    start.started_at = t0;
    store.begin_run(ALICE, start).await.unwrap();
    let s = get(store, ALICE, "t").await.summary;
    assert_eq!(s.run_count, 1);
    assert_eq!(s.created_at, t0);
    assert_eq!(s.title, None);
    assert_eq!(s.metadata, serde_json::Map::new());
    assert!(!s.archived);
    let last = s.last_run.unwrap();
    assert_eq!(
        (last.run_id.as_str(), last.status, last.outcome),
        ("r1", RunPhase::Running, None)
    );

    let usage: Vec<TokenUsage> = serde_json::from_value(json!([
        {"provider": "openai", "model": "gpt", "inputTokens": 10, "outputTokens": 5, "totalTokens": 15}
    ]))
    .unwrap();
    let mut e = RunEnding::new("t", "r1", RunEndKind::Cancelled, ThreadState::new())
        .with_usage(usage.clone());
    e.ended_at = t0 + Duration::from_secs(2);
    store.end_run(ALICE, e).await.unwrap();
    let mut start = RunStart::new("t", "r2", vec![], ThreadState::new());
    start.started_at = t0 + Duration::from_secs(3);
    store.begin_run(ALICE, start).await.unwrap();
    store
        .end_run(
            ALICE,
            RunEnding::new("t", "r2", RunEndKind::Error, ThreadState::new())
                .with_error_code(Some("rate_limited".into())),
        )
        .await
        .unwrap();

    let back = get(store, ALICE, "t").await;
    let runs = &back.runs;
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].run_id, "r1");
    assert_eq!(runs[0].status, RunPhase::Ended);
    assert_eq!(runs[0].outcome, Some(RunEndKind::Cancelled));
    assert_eq!(runs[0].started_at, t0);
    assert_eq!(runs[0].ended_at, Some(t0 + Duration::from_secs(2)));
    assert_eq!(to_value(&runs[0].usage), to_value(&usage));
    assert_eq!(runs[0].error_code, None);
    assert_eq!(to_value(&runs[0].input_messages), to_value(&every_kind()));
    assert_eq!(runs[0].trace_id.as_deref(), Some(TRACE_ID));
    assert!(!runs[0].rolled_back);
    assert_eq!(runs[1].run_id, "r2");
    assert_eq!(runs[1].trace_id, None);
    assert_eq!(runs[1].outcome, Some(RunEndKind::Error));
    assert_eq!(runs[1].error_code.as_deref(), Some("rate_limited"));
    assert_eq!(runs[1].usage.len(), 0);
    assert_eq!(back.summary.run_count, 2);
    let last = back.summary.last_run.unwrap();
    assert_eq!(
        (last.run_id.as_str(), last.status, last.outcome),
        ("r2", RunPhase::Ended, Some(RunEndKind::Error))
    );
    assert!(back.summary.updated_at >= t0 + Duration::from_secs(3));
}

/// A run id names one run of a thread: beginning it again is refused and changes
/// nothing.
pub async fn a_run_id_is_unique_per_thread(store: &dyn ThreadStore) {
    store
        .begin_run(ALICE, RunStart::new("t", "r", vec![], fold("first", 1)))
        .await
        .unwrap();
    let again = store
        .begin_run(ALICE, RunStart::new("t", "r", vec![], fold("second", 2)))
        .await;
    assert!(
        matches!(again, Err(ThreadStoreError::RunExists(ref r)) if r == "r"),
        "{again:?}"
    );
    let back = get(store, ALICE, "t").await;
    assert_eq!(back.runs.len(), 1);
    assert_eq!(back.summary.run_count, 1);
    assert_eq!(back.thread.state(), &json!({"n": 1}));
}

/// A run started before an earlier one ends: the earlier one's end records it but
/// leaves the later one's fold.
pub async fn a_later_run_keeps_its_fold(store: &dyn ThreadStore) {
    store
        .begin_run(ALICE, RunStart::new("t", "r1", vec![], fold("one", 1)))
        .await
        .unwrap();
    store
        .begin_run(ALICE, RunStart::new("t", "r2", vec![], fold("two", 2)))
        .await
        .unwrap();
    end(store, ALICE, "t", "r1", fold("one-ended", 3)).await;
    let back = get(store, ALICE, "t").await;
    assert_eq!(back.thread.state(), &json!({"n": 2}));
    assert_eq!(back.runs[0].status, RunPhase::Ended);
    assert_eq!(back.active_run().map(|r| r.run_id.as_str()), Some("r2"));
    assert_eq!(back.summary.last_run.unwrap().run_id, "r2");
    end(store, ALICE, "t", "r2", fold("two-ended", 4)).await;
    let back = get(store, ALICE, "t").await;
    assert_eq!(back.thread.state(), &json!({"n": 4}));
    assert_eq!(texts(&back.thread), [json!("two-ended")]);
}

/// A checkpoint writes a running run's fold; after its end it writes nothing; an
/// unknown thread or run is not found.
pub async fn checkpoints(store: &dyn ThreadStore) {
    begin(store, ALICE, "t", "r", base()).await;
    let before = get(store, ALICE, "t").await.summary.updated_at;
    store
        .checkpoint(ALICE, "t", "r", &fold("mid", 5))
        .await
        .unwrap();
    let back = get(store, ALICE, "t").await;
    assert_eq!(back.thread.state(), &json!({"n": 5}));
    assert!(back.summary.updated_at > before);
    end(store, ALICE, "t", "r", fold("end", 6)).await;
    store
        .checkpoint(ALICE, "t", "r", &fold("late", 7))
        .await
        .unwrap();
    assert_eq!(
        get(store, ALICE, "t").await.thread.state(),
        &json!({"n": 6})
    );
    for (thread, run) in [("t", "nope"), ("nope", "r")] {
        let r = store.checkpoint(ALICE, thread, run, &fold("x", 0)).await;
        assert!(
            matches!(r, Err(ThreadStoreError::NotFound(_))),
            "{thread}/{run}: {r:?}"
        );
    }
}

/// Ending a run the store does not know is not found and creates nothing.
pub async fn end_of_an_unknown_run(store: &dyn ThreadStore) {
    let r = store
        .end_run(
            ALICE,
            RunEnding::new("t", "r", RunEndKind::Success, fold("x", 1)),
        )
        .await;
    assert!(matches!(r, Err(ThreadStoreError::NotFound(_))), "{r:?}");
    assert!(store.thread(ALICE, "t").await.unwrap().is_none());
    begin(store, ALICE, "t", "r", base()).await;
    let r = store
        .end_run(
            ALICE,
            RunEnding::new("t", "other", RunEndKind::Success, fold("x", 1)),
        )
        .await;
    assert!(matches!(r, Err(ThreadStoreError::NotFound(_))), "{r:?}");
}

/// 45 threads paged 10 at a time: newest first, every thread once, the last page
/// without a cursor; the default page is 20.
pub async fn list_pages_without_dup_or_gap(store: &dyn ThreadStore) {
    let t0 = base();
    let mut expected = Vec::new();
    for i in 0..45u64 {
        let id = format!("t{i:02}");
        // Pairs share a start time: the id breaks the tie.
        let at = t0 + Duration::from_millis(i / 2 * 10);
        let mut start = RunStart::new(id.as_str(), "r", vec![], fold("x", 1));
        start.started_at = at;
        store.begin_run(ALICE, start).await.unwrap();
        expected.push(id);
    }
    // Newest first; equal times by id, descending.
    expected.reverse();
    assert_eq!(ids(store, ALICE, &ThreadQuery::new()).await, expected[..20]);
    let mut seen = Vec::new();
    let mut query = ThreadQuery::new().limit(10);
    for page in 0.. {
        assert!(page < 5, "more than 5 pages of 10 for 45 threads");
        let got = store.list(ALICE, &query).await.unwrap();
        assert!(got.threads.len() <= 10);
        seen.extend(got.threads.into_iter().map(|s| s.thread_id));
        match got.next_cursor {
            Some(c) => query = query.cursor(c),
            None => break,
        }
    }
    assert_eq!(seen, expected);
    assert_eq!(
        ids(store, ALICE, &ThreadQuery::new().limit(0)).await.len(),
        1
    );
    assert_eq!(
        ids(store, ALICE, &ThreadQuery::new().limit(1000))
            .await
            .len(),
        45
    );
    assert!(ids(store, BOB, &ThreadQuery::new()).await.is_empty());
}

/// Archived threads: left out by default, alone with `Only`, mixed in with `Any`.
pub async fn list_by_archived_flag(store: &dyn ThreadStore) {
    let t0 = base();
    for (i, id) in ["a", "b", "c", "d"].into_iter().enumerate() {
        finished(store, ALICE, id, t0 + Duration::from_secs(i as u64)).await;
    }
    for id in ["b", "d"] {
        let s = store
            .update(ALICE, id, ThreadPatch::new().archived(true))
            .await
            .unwrap()
            .unwrap();
        assert!(s.archived);
    }
    assert_eq!(ids(store, ALICE, &ThreadQuery::new()).await, ["c", "a"]);
    let only = ThreadQuery::new().archived(Archived::Only);
    assert_eq!(ids(store, ALICE, &only).await, ["d", "b"]);
    let any = ThreadQuery::new().archived(Archived::Any);
    let all = ids(store, ALICE, &any).await;
    assert_eq!(all.len(), 4);
    // Any pages across both flags too.
    let first = store.list(ALICE, &any.clone().limit(3)).await.unwrap();
    let rest = store
        .list(ALICE, &any.limit(3).cursor(first.next_cursor.unwrap()))
        .await
        .unwrap();
    let paged: Vec<String> = first
        .threads
        .into_iter()
        .chain(rest.threads)
        .map(|s| s.thread_id)
        .collect();
    assert_eq!(paged, all);
    assert_eq!(rest.next_cursor, None);
}

/// Metadata filters keep the threads with the string value at the key; several AND;
/// a number or a nested value is no string.
pub async fn list_by_metadata(store: &dyn ThreadStore) {
    let t0 = base();
    let metas = [
        ("a", json!({"team": "red", "lang": "nl"})),
        ("b", json!({"team": "red", "lang": "en"})),
        ("c", json!({"team": "blue", "lang": "nl"})),
        ("d", json!({"team": 7, "nested": {"team": "red"}})),
        (
            "e",
            json!({"a.b": "dotted", "q\"uote": "it's", "$.team": "path", "[0]": "index"}),
        ),
    ];
    for (i, (id, meta)) in metas.iter().enumerate() {
        finished(store, ALICE, id, t0 + Duration::from_secs(i as u64)).await;
        let Value::Object(map) = meta.clone() else {
            unreachable!()
        };
        store
            .update(ALICE, id, ThreadPatch::new().metadata(map))
            .await
            .unwrap()
            .unwrap();
    }
    let q = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .fold(ThreadQuery::new(), |q, (k, v)| q.metadata(*k, *v))
    };
    let mut got = ids(store, ALICE, &q(&[("team", "red")])).await;
    got.sort();
    assert_eq!(got, ["a", "b"]);
    assert_eq!(
        ids(store, ALICE, &q(&[("team", "red"), ("lang", "nl")])).await,
        ["a"]
    );
    assert!(
        ids(store, ALICE, &q(&[("team", "red"), ("lang", "de")]))
            .await
            .is_empty()
    );
    assert!(ids(store, ALICE, &q(&[("team", "7")])).await.is_empty());
    assert!(
        ids(store, ALICE, &q(&[("nested.team", "red")]))
            .await
            .is_empty()
    );
    assert_eq!(ids(store, ALICE, &q(&[("a.b", "dotted")])).await, ["e"]);
    assert_eq!(ids(store, ALICE, &q(&[("q\"uote", "it's")])).await, ["e"]);
    assert_eq!(ids(store, ALICE, &q(&[("$.team", "path")])).await, ["e"]);
    assert_eq!(ids(store, ALICE, &q(&[("[0]", "index")])).await, ["e"]);
    assert!(ids(store, ALICE, &q(&[("a", "dotted")])).await.is_empty());
    assert!(ids(store, BOB, &q(&[("team", "red")])).await.is_empty());
}

/// A cursor no page gave is refused as such.
pub async fn an_invalid_cursor_is_refused(store: &dyn ThreadStore) {
    finished(store, ALICE, "t", base()).await;
    for bad in ["", "garbage", "12", "x.t", "'; DROP TABLE x; --"] {
        let r = store.list(ALICE, &ThreadQuery::new().cursor(bad)).await;
        assert!(
            matches!(r, Err(ThreadStoreError::InvalidCursor(ref c)) if c == bad),
            "{bad:?}: {r:?}"
        );
    }
}

/// Title, metadata and archived flag change alone or together; an unknown thread is
/// `None`.
pub async fn update(store: &dyn ThreadStore) {
    finished(store, ALICE, "t", base()).await;
    let before = get(store, ALICE, "t").await.summary;
    let s = store
        .update(ALICE, "t", ThreadPatch::new().title(Some("Weather".into())))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(s.title.as_deref(), Some("Weather"));
    assert!(s.updated_at >= before.updated_at);
    assert_eq!(s.run_count, 1);
    assert_eq!(s.last_run.as_ref().map(|r| r.run_id.as_str()), Some("t-r"));
    let Value::Object(meta) = json!({"team": "red", "n": 1, "deep": {"x": [1]}}) else {
        unreachable!()
    };
    let s = store
        .update(
            ALICE,
            "t",
            ThreadPatch::new().metadata(meta.clone()).archived(true),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (s.title.as_deref(), &s.metadata, s.archived),
        (Some("Weather"), &meta, true)
    );
    let s = store
        .update(ALICE, "t", ThreadPatch::new().title(None).archived(false))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((s.title, &s.metadata, s.archived), (None, &meta, false));
    let back = get(store, ALICE, "t").await;
    assert_eq!(back.summary.metadata, meta);
    assert_eq!(back.thread.state(), &json!({"n": 1}));
    assert!(
        store
            .update(ALICE, "nope", ThreadPatch::new().archived(true))
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.thread(ALICE, "nope").await.unwrap().is_none());
}

/// Deleting a thread deletes its runs; a thread with a running run is busy.
pub async fn delete(store: &dyn ThreadStore) {
    begin(store, ALICE, "t", "r", base()).await;
    let r = store.delete(ALICE, "t").await;
    assert!(
        matches!(r, Err(ThreadStoreError::Busy(ref t)) if t == "t"),
        "{r:?}"
    );
    assert!(store.thread(ALICE, "t").await.unwrap().is_some());
    end(store, ALICE, "t", "r", fold("x", 1)).await;
    assert!(store.delete(ALICE, "t").await.unwrap());
    assert!(store.thread(ALICE, "t").await.unwrap().is_none());
    assert!(!store.delete(ALICE, "t").await.unwrap());
    assert!(
        ids(store, ALICE, &ThreadQuery::new().archived(Archived::Any))
            .await
            .is_empty()
    );
    // Its runs went with it: the same run id starts afresh.
    begin(store, ALICE, "t", "r", base()).await;
    let back = get(store, ALICE, "t").await;
    assert_eq!((back.runs.len(), back.summary.run_count), (1, 1));
}

/// A lost run ends as an error with `run_lost` at its last checkpoint; a later end
/// overrides it.
pub async fn lose_run(store: &dyn ThreadStore) {
    let t0 = base();
    begin(store, ALICE, "t", "r", t0).await;
    assert!(store.lose_run(ALICE, "t", "r").await.unwrap());
    let back = get(store, ALICE, "t").await;
    let run = &back.runs[0];
    assert_eq!(run.status, RunPhase::Ended);
    assert_eq!(run.outcome, Some(RunEndKind::Error));
    assert_eq!(run.error_code.as_deref(), Some(CODE_RUN_LOST));
    assert_eq!(run.ended_at, Some(t0));
    let last = back.summary.last_run.unwrap();
    assert_eq!(
        (last.status, last.outcome),
        (RunPhase::Ended, Some(RunEndKind::Error))
    );
    assert!(!store.lose_run(ALICE, "t", "r").await.unwrap());
    assert!(!store.lose_run(ALICE, "t", "nope").await.unwrap());
    assert!(!store.lose_run(ALICE, "nope", "r").await.unwrap());
    // A lost run that ends after all ends as its end says.
    end(store, ALICE, "t", "r", fold("late", 9)).await;
    let back = get(store, ALICE, "t").await;
    assert_eq!(back.runs[0].outcome, Some(RunEndKind::Success));
    assert_eq!(back.runs[0].error_code, None);
    assert_eq!(back.thread.state(), &json!({"n": 9}));
}

/// Every running run, of every owner, not checkpointed since `before` is lost; the
/// others are left.
pub async fn lose_stale_runs(store: &dyn ThreadStore) {
    let old = base();
    begin(store, ALICE, "stale", "r", old).await;
    begin(store, BOB, "stale", "r", old).await;
    begin(store, ALICE, "checkpointed", "r", old).await;
    store
        .checkpoint(ALICE, "checkpointed", "r", &fold("x", 1))
        .await
        .unwrap();
    begin(store, ANONYMOUS, "fresh", "r", SystemTime::now()).await;
    finished(store, ALICE, "done", old).await;
    let cut = SystemTime::now() - Duration::from_secs(60);
    assert_eq!(store.lose_stale_runs(cut).await.unwrap(), 2);
    for owner in [ALICE, BOB] {
        let run = &get(store, owner, "stale").await.runs[0];
        assert_eq!(run.error_code.as_deref(), Some(CODE_RUN_LOST), "{owner:?}");
        assert_eq!(run.ended_at, Some(old));
    }
    assert!(
        get(store, ALICE, "checkpointed")
            .await
            .active_run()
            .is_some()
    );
    assert!(get(store, ANONYMOUS, "fresh").await.active_run().is_some());
    assert_eq!(get(store, ALICE, "done").await.runs[0].error_code, None);
    assert_eq!(store.lose_stale_runs(cut).await.unwrap(), 0);
}

/// Archived threads last updated before a time are deleted, of every owner; the
/// others stay.
pub async fn expire_archived(store: &dyn ThreadStore) {
    let t0 = base();
    for owner in [ALICE, BOB] {
        finished(store, owner, "archived", t0).await;
        finished(store, owner, "kept", t0).await;
    }
    let before_archiving = SystemTime::now() - Duration::from_secs(1);
    for owner in [ALICE, BOB] {
        store
            .update(owner, "archived", ThreadPatch::new().archived(true))
            .await
            .unwrap()
            .unwrap();
    }
    assert_eq!(store.expire_archived(before_archiving).await.unwrap(), 0);
    let later = SystemTime::now() + Duration::from_secs(1);
    assert_eq!(store.expire_archived(later).await.unwrap(), 2);
    for owner in [ALICE, BOB] {
        assert!(store.thread(owner, "archived").await.unwrap().is_none());
        assert!(store.thread(owner, "kept").await.unwrap().is_some());
    }
}

/// Two principals and the anonymous one hold threads of the same id independently;
/// none reads, lists, updates, deletes, checkpoints, ends or loses another's.
pub async fn principals_are_apart(store: &dyn ThreadStore) {
    let t0 = base();
    store
        .begin_run(ALICE, RunStart::new("same", "r", vec![], fold("alice", 1)))
        .await
        .unwrap();
    let mut start = RunStart::new("same", "r", vec![], fold("anonymous", 2));
    start.started_at = t0;
    store.begin_run(ANONYMOUS, start).await.unwrap();

    // Bob sees and touches nothing of theirs.
    assert!(store.thread(BOB, "same").await.unwrap().is_none());
    assert!(
        ids(store, BOB, &ThreadQuery::new().archived(Archived::Any))
            .await
            .is_empty()
    );
    assert!(
        store
            .update(BOB, "same", ThreadPatch::new().title(Some("x".into())))
            .await
            .unwrap()
            .is_none()
    );
    assert!(!store.delete(BOB, "same").await.unwrap());
    let r = store.checkpoint(BOB, "same", "r", &fold("bob", 3)).await;
    assert!(matches!(r, Err(ThreadStoreError::NotFound(_))), "{r:?}");
    let r = store
        .end_run(
            BOB,
            RunEnding::new("same", "r", RunEndKind::Success, fold("bob", 3)),
        )
        .await;
    assert!(matches!(r, Err(ThreadStoreError::NotFound(_))), "{r:?}");
    assert!(!store.lose_run(BOB, "same", "r").await.unwrap());
    for owner in [ALICE, ANONYMOUS] {
        let back = get(store, owner, "same").await;
        assert!(back.active_run().is_some(), "{owner:?}");
        assert_eq!(back.summary.title, None);
    }
    assert_eq!(
        get(store, ALICE, "same").await.thread.state(),
        &json!({"n": 1})
    );
    assert_eq!(
        get(store, ANONYMOUS, "same").await.thread.state(),
        &json!({"n": 2})
    );

    // Alice's writes reach her thread only.
    store
        .checkpoint(ALICE, "same", "r", &fold("alice-mid", 4))
        .await
        .unwrap();
    end(store, ALICE, "same", "r", fold("alice-end", 5)).await;
    store
        .update(
            ALICE,
            "same",
            ThreadPatch::new().title(Some("Alice's".into())),
        )
        .await
        .unwrap()
        .unwrap();
    let anon = get(store, ANONYMOUS, "same").await;
    assert_eq!(anon.thread.state(), &json!({"n": 2}));
    assert_eq!(anon.summary.title, None);
    assert!(anon.active_run().is_some());
    assert!(!store.lose_run(ALICE, "same", "r").await.unwrap());
    assert!(get(store, ANONYMOUS, "same").await.active_run().is_some());

    // Bob starts his own thread of the same id, with the same run id.
    store
        .begin_run(BOB, RunStart::new("same", "r", vec![], fold("bob", 6)))
        .await
        .unwrap();
    let bob = get(store, BOB, "same").await;
    assert_eq!(
        (bob.summary.run_count, bob.summary.title.as_deref()),
        (1, None)
    );
    assert_eq!(bob.thread.state(), &json!({"n": 6}));
    assert_eq!(ids(store, BOB, &ThreadQuery::new()).await, ["same"]);
    assert_eq!(ids(store, ALICE, &ThreadQuery::new()).await, ["same"]);
    assert_eq!(ids(store, ANONYMOUS, &ThreadQuery::new()).await, ["same"]);
    assert_eq!(
        get(store, ALICE, "same").await.summary.title.as_deref(),
        Some("Alice's")
    );

    // The anonymous principal's run is lost by its owner only; Alice deletes hers only.
    assert!(store.lose_run(ANONYMOUS, "same", "r").await.unwrap());
    assert!(get(store, BOB, "same").await.active_run().is_some());
    assert!(store.delete(ALICE, "same").await.unwrap());
    assert!(store.thread(ALICE, "same").await.unwrap().is_none());
    assert!(store.thread(ANONYMOUS, "same").await.unwrap().is_some());
    assert!(store.thread(BOB, "same").await.unwrap().is_some());
    // An owner named like the anonymous key's neighbours is another owner.
    assert!(store.thread(Some(" "), "same").await.unwrap().is_none());
}

/// Ids with quotes, `%`, `_`, SQL, dots and unicode are plain data: stored, found,
/// listed and paged as they are, matching nothing else.
pub async fn hostile_ids_are_plain_data(store: &dyn ThreadStore) {
    let hostile = [
        "it's",
        "100%",
        "%",
        "_",
        "a.b",
        "'; DROP TABLE ag_ui_threads; --",
        "\" OR 1=1 --",
        "ünïcødé 🧵",
        "back\\slash",
    ];
    let owner = Some("o'wner %");
    let t0 = base();
    for (i, id) in hostile.iter().enumerate() {
        let mut start = RunStart::new(*id, format!("run {id}"), vec![], fold(id, i as i64));
        start.started_at = t0 + Duration::from_secs(i as u64);
        store.begin_run(owner, start).await.unwrap();
        store
            .checkpoint(owner, id, &format!("run {id}"), &fold(id, i as i64))
            .await
            .unwrap();
        end(store, owner, id, &format!("run {id}"), fold(id, i as i64)).await;
    }
    for (i, id) in hostile.iter().enumerate() {
        let back = get(store, owner, id).await;
        assert_eq!(back.summary.thread_id, *id);
        assert_eq!(back.runs[0].run_id, format!("run {id}"));
        assert_eq!(back.thread.state(), &json!({"n": i}));
    }
    let mut paged = Vec::new();
    let mut query = ThreadQuery::new().limit(2);
    for _ in 0..hostile.len() {
        let page = store.list(owner, &query).await.unwrap();
        paged.extend(page.threads.into_iter().map(|s| s.thread_id));
        match page.next_cursor {
            Some(c) => query = query.cursor(c),
            None => break,
        }
    }
    let mut sorted = paged.clone();
    sorted.sort();
    let mut expected: Vec<String> = hostile.iter().map(|s| (*s).to_owned()).collect();
    expected.sort();
    assert_eq!(sorted, expected);
    assert_eq!(paged.len(), hostile.len());
    // Patterns match nothing: no thread "1%" or "x", no owner "o%".
    assert!(store.thread(owner, "1%").await.unwrap().is_none());
    assert!(store.thread(owner, "x").await.unwrap().is_none());
    assert!(store.thread(Some("o%"), "%").await.unwrap().is_none());
    assert!(ids(store, Some("%"), &ThreadQuery::new()).await.is_empty());
    assert!(store.delete(owner, "%").await.unwrap());
    assert!(store.thread(owner, "100%").await.unwrap().is_some());
    assert_eq!(
        ids(store, owner, &ThreadQuery::new()).await.len(),
        hostile.len() - 1
    );
}

/// A checkpoint of a run after a later run of the thread started keeps the later run's
/// fold (that run's input carried the thread as its client had it).
pub async fn an_earlier_runs_checkpoint_keeps_the_later_fold(store: &dyn ThreadStore) {
    store
        .begin_run(ALICE, RunStart::new("t", "first", vec![], fold("first", 1)))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    store
        .begin_run(
            ALICE,
            RunStart::new("t", "second", vec![], fold("second", 2)),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    store
        .checkpoint(ALICE, "t", "first", &fold("first", 3))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        get(store, ALICE, "t").await.thread.state(),
        &json!({"n": 2})
    );
    store
        .checkpoint(ALICE, "t", "second", &fold("second", 4))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        get(store, ALICE, "t").await.thread.state(),
        &json!({"n": 4})
    );
}

/// 20 runs of one thread begun and ended at once: every one is recorded, each with its
/// own place, and the thread keeps the fold of the run that started last (its end is
/// the only one no later run overrides).
pub async fn concurrent_runs_on_one_thread(store: &dyn ThreadStore) {
    const N: i64 = 20;
    let runs = (0..N).map(|i| async move {
        let run = format!("r{i}");
        store
            .begin_run(
                ALICE,
                RunStart::new("t", run.as_str(), vec![], fold(&run, i)),
            )
            .await
            .unwrap_or_else(|e| panic!("begin {run}: {e}"));
        store
            .checkpoint(ALICE, "t", &run, &fold(&run, i))
            .await
            .unwrap_or_else(|e| panic!("checkpoint {run}: {e}"));
        store
            .end_run(
                ALICE,
                RunEnding::new("t", run.as_str(), RunEndKind::Success, fold(&run, i)),
            )
            .await
            .unwrap_or_else(|e| panic!("end {run}: {e}"));
    });
    futures_util::future::join_all(runs).await;
    let back = get(store, ALICE, "t").await;
    assert_eq!(back.summary.run_count, N as u64);
    assert_eq!(back.runs.len(), N as usize);
    assert!(back.runs.iter().all(|r| r.status == RunPhase::Ended));
    let mut ids: Vec<&str> = back.runs.iter().map(|r| r.run_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), N as usize);
    let last = back
        .runs
        .last()
        .map(|r| r.run_id.clone())
        .unwrap_or_default();
    assert_eq!(back.summary.last_run.map(|r| r.run_id), Some(last.clone()));
    let n: i64 = last[1..].parse().unwrap_or_else(|e| panic!("{last}: {e}"));
    assert_eq!(
        back.thread.state(),
        &json!({ "n": n }),
        "the last run is {last}"
    );
}

/// A rollback takes back what a run added: the thread's fold becomes the one given, the
/// run's record stays (its outcome as it ended) marked rolled back. A running run is
/// ended as cancelled first, and its late end leaves the rolled-back fold alone; a run
/// rolled back after a later run started leaves that run's fold.
pub async fn rollback_restores_the_fold(store: &dyn ThreadStore) {
    let t0 = base();
    begin(store, ALICE, "t", "r1", t0).await;
    end(store, ALICE, "t", "r1", fold("one", 1)).await;
    begin(store, ALICE, "t", "r2", t0 + Duration::from_secs(1)).await;
    store
        .checkpoint(ALICE, "t", "r2", &fold("two-half", 2))
        .await
        .unwrap();
    store
        .end_run(
            ALICE,
            RunEnding::new("t", "r2", RunEndKind::Cancelled, fold("two", 2)),
        )
        .await
        .unwrap();
    let ended = get(store, ALICE, "t").await;
    assert_eq!(texts(&ended.thread), [json!("two")]);
    assert!(
        store
            .rollback_run(ALICE, "t", "r2", &fold("one", 1))
            .await
            .unwrap()
    );
    let back = get(store, ALICE, "t").await;
    assert_eq!(texts(&back.thread), [json!("one")]);
    assert_eq!(back.thread.state(), &json!({"n": 1}));
    assert_eq!(back.runs.len(), 2);
    assert!(!back.runs[0].rolled_back);
    let r2 = &back.runs[1];
    assert_eq!(r2.run_id, "r2");
    assert!(r2.rolled_back);
    assert_eq!(r2.status, RunPhase::Ended);
    assert_eq!(r2.outcome, Some(RunEndKind::Cancelled));
    assert_eq!(r2.ended_at, ended.runs[1].ended_at);
    assert_eq!(back.summary.run_count, 2);
    let last = back.summary.last_run.clone().unwrap();
    assert_eq!(
        (last.run_id.as_str(), last.outcome),
        ("r2", Some(RunEndKind::Cancelled))
    );
    assert!(back.summary.updated_at >= ended.summary.updated_at);
    let detail = to_value(&back.detail());
    assert_eq!(detail["runs"][1]["rolledBack"], json!(true));
    assert_eq!(detail["runs"][0]["rolledBack"], json!(false));
    assert_eq!(detail["messages"][0]["content"], json!("one"));

    // A run still running: ended now as cancelled, then rolled back.
    begin(store, ALICE, "t", "r3", t0 + Duration::from_secs(2)).await;
    store
        .checkpoint(ALICE, "t", "r3", &fold("three-half", 3))
        .await
        .unwrap();
    let before = SystemTime::now();
    assert!(
        store
            .rollback_run(ALICE, "t", "r3", &fold("one", 1))
            .await
            .unwrap()
    );
    let back = get(store, ALICE, "t").await;
    assert_eq!(texts(&back.thread), [json!("one")]);
    let r3 = &back.runs[2];
    assert!(r3.rolled_back);
    assert_eq!(r3.status, RunPhase::Ended);
    assert_eq!(r3.outcome, Some(RunEndKind::Cancelled));
    let ended_at = r3
        .ended_at
        .unwrap_or_else(|| panic!("r3 has no end: {r3:?}"));
    assert!(
        ended_at + Duration::from_millis(1) >= before,
        "{ended_at:?} {before:?}"
    );
    assert!(back.active_run().is_none());
    // Its end, arriving after the rollback, keeps the rolled-back fold.
    store
        .end_run(
            ALICE,
            RunEnding::new("t", "r3", RunEndKind::Cancelled, fold("three", 3)),
        )
        .await
        .unwrap();
    let back = get(store, ALICE, "t").await;
    assert_eq!(texts(&back.thread), [json!("one")]);
    assert!(back.runs[2].rolled_back);

    // An older run rolled back after a later one started: marked, the fold is the later
    // run's.
    begin(store, ALICE, "t", "r4", t0 + Duration::from_secs(3)).await;
    end(store, ALICE, "t", "r4", fold("four", 4)).await;
    assert!(
        store
            .rollback_run(ALICE, "t", "r1", &ThreadState::new())
            .await
            .unwrap()
    );
    let back = get(store, ALICE, "t").await;
    assert_eq!(texts(&back.thread), [json!("four")]);
    assert!(back.runs[0].rolled_back);
    assert_eq!(back.runs[0].outcome, Some(RunEndKind::Success));
    assert!(!back.runs[3].rolled_back);
}

/// A rollback names its owner's thread: another principal's (or the anonymous one's)
/// rollback of it answers `false` and changes nothing, and rolls back its own thread of
/// the same id alone.
pub async fn rollback_is_scoped_to_its_owner(store: &dyn ThreadStore) {
    let t0 = base();
    begin(store, ALICE, "t", "r1", t0).await;
    store
        .checkpoint(ALICE, "t", "r1", &fold("alice", 1))
        .await
        .unwrap();
    let alice = get(store, ALICE, "t").await;
    for other in [BOB, ANONYMOUS] {
        assert!(
            !store
                .rollback_run(other, "t", "r1", &fold("taken", 9))
                .await
                .unwrap(),
            "{other:?}"
        );
        assert!(
            store.thread(other, "t").await.unwrap().is_none(),
            "{other:?}"
        );
    }
    let after = get(store, ALICE, "t").await;
    assert_eq!(to_value(&after.detail()), to_value(&alice.detail()));
    assert_eq!(after.active_run().map(|r| r.run_id.as_str()), Some("r1"));

    // Bob's own thread of the same id, with a run of the same id.
    begin(store, BOB, "t", "r1", t0).await;
    end(store, BOB, "t", "r1", fold("bob", 2)).await;
    assert!(
        store
            .rollback_run(BOB, "t", "r1", &fold("bob-before", 0))
            .await
            .unwrap()
    );
    let bob = get(store, BOB, "t").await;
    assert_eq!(texts(&bob.thread), [json!("bob-before")]);
    assert!(bob.runs[0].rolled_back);
    let after = get(store, ALICE, "t").await;
    assert_eq!(to_value(&after.detail()), to_value(&alice.detail()));
    assert!(!after.runs[0].rolled_back);
}

/// A rollback of a thread or run the owner does not have answers `false` and changes
/// nothing.
pub async fn rollback_of_an_unknown_run(store: &dyn ThreadStore) {
    finished(store, ALICE, "t", base()).await;
    let before = get(store, ALICE, "t").await;
    for (thread, run) in [("t", "other"), ("missing", "t-r"), ("", ""), ("T", "t-r")] {
        assert!(
            !store
                .rollback_run(ALICE, thread, run, &fold("x", 0))
                .await
                .unwrap(),
            "{thread:?} {run:?}"
        );
    }
    let after = get(store, ALICE, "t").await;
    assert_eq!(to_value(&after.detail()), to_value(&before.detail()));
    assert_eq!(after.summary.updated_at, before.summary.updated_at);
    assert!(store.thread(ALICE, "missing").await.unwrap().is_none());
}

/// Paging with a cursor while other tasks create threads: every thread that existed
/// before the first page is listed exactly once (none twice, none skipped), in order.
pub async fn list_is_stable_under_concurrent_inserts(store: &dyn ThreadStore) {
    const OLD: u64 = 60;
    const NEW: usize = 35;
    let t0 = base();
    let mut expected = Vec::new();
    for i in 0..OLD {
        let id = format!("old-{i:02}");
        // Triples share a start time: the id breaks the tie.
        let mut start = RunStart::new(id.as_str(), "r", vec![], fold("x", 1));
        start.started_at = t0 + Duration::from_millis(i / 3 * 10);
        store.begin_run(ALICE, start).await.unwrap();
        expected.push(id);
    }
    expected.reverse();
    // The reader asks for a batch of inserts after each page and reads on while they
    // go; the writer makes each batch several creations at once.
    let (ask, mut asked) = tokio::sync::mpsc::unbounded_channel::<usize>();
    let reader = async move {
        let mut seen: Vec<String> = Vec::new();
        let mut query = ThreadQuery::new().limit(7);
        for page in 0.. {
            assert!(page < 40, "more than 40 pages of 7");
            let got = store
                .list(ALICE, &query)
                .await
                .unwrap_or_else(|e| panic!("page {page}: {e}"));
            seen.extend(got.threads.into_iter().map(|s| s.thread_id));
            let _ = ask.send(page);
            tokio::task::yield_now().await;
            match got.next_cursor {
                Some(c) => query = query.cursor(c),
                None => break,
            }
        }
        drop(ask);
        seen
    };
    let writer = async move {
        let mut made = 0;
        while let Some(page) = asked.recv().await {
            let batch = (0..5).map(|j| {
                let id = format!("new-{page:02}-{j}");
                async move {
                    store
                        .begin_run(ALICE, RunStart::new(id.as_str(), "r", vec![], fold("y", 2)))
                        .await
                        .unwrap_or_else(|e| panic!("begin {id}: {e}"));
                }
            });
            futures_util::future::join_all(batch).await;
            made += 5;
            if made >= NEW {
                break;
            }
        }
        made
    };
    let (seen, made) = tokio::time::timeout(
        Duration::from_secs(60),
        futures_util::future::join(reader, writer),
    )
    .await
    .unwrap_or_else(|_| panic!("paging under inserts took over 60 s"));
    assert!(made > 0, "no thread was created while paging");
    let mut once = seen.clone();
    once.sort_unstable();
    once.dedup();
    assert_eq!(once.len(), seen.len(), "a thread listed twice: {seen:?}");
    let old: Vec<&String> = seen.iter().filter(|id| id.starts_with("old-")).collect();
    assert_eq!(old, expected.iter().collect::<Vec<_>>());
    // The new threads are there for a list that starts after them.
    let all = ids(store, ALICE, &ThreadQuery::new().limit(100)).await;
    assert_eq!(all.len(), OLD as usize + made);
}
