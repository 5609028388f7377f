//! The in-memory store and the local subscriber count.

use std::time::Duration;

use futures_util::{FutureExt, StreamExt};

use super::*;

/// A run on a thread of its own (a thread has one running run at a time).
fn meta(run: &str) -> RunMeta {
    RunMeta::new(run, format!("t-{run}"), None, "me")
}

fn records(from: Cursor, n: u64) -> Vec<Record> {
    (from..from + n)
        .map(|c| Record::new(c, format!("{{\"n\":{c}}}").as_bytes()))
        .collect()
}

async fn collect(stream: RecordStream) -> Vec<Cursor> {
    stream
        .map(|r| r.map(|r| r.cursor))
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| vec![u64::MAX, e.to_string().len() as u64])
}

#[tokio::test]
async fn a_tail_from_any_cursor_gets_the_rest_once_in_order_then_ends() {
    let store = MemoryStore::new();
    store.create_run(meta("r")).await.unwrap();
    store.append("r", records(1, 3)).await.unwrap();
    store.append("r", records(4, 2)).await.unwrap();
    store.end_run("r", Vec::new()).await.unwrap();
    for after in 0..=6 {
        let got = collect(store.tail("r", after).await.unwrap()).await;
        let want: Vec<Cursor> = (after + 1..=5).collect();
        assert_eq!(got, want, "after {after}");
    }
}

#[tokio::test]
async fn a_live_tail_catches_up_then_follows_the_appends() {
    let store = MemoryStore::new();
    store.create_run(meta("r")).await.unwrap();
    store.append("r", records(1, 2)).await.unwrap();
    let tail = store.tail("r", 1).await.unwrap();
    let reader = tokio::spawn(collect(tail));
    for c in 3..=50 {
        tokio::task::yield_now().await;
        store.append("r", records(c, 1)).await.unwrap();
    }
    store.end_run("r", Vec::new()).await.unwrap();
    let got = tokio::time::timeout(Duration::from_secs(5), reader)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, (2..=50).collect::<Vec<_>>());
}

#[tokio::test]
async fn appends_out_of_order_or_after_the_end_are_refused() {
    let store = MemoryStore::new();
    store.create_run(meta("r")).await.unwrap();
    assert!(store.append("r", records(2, 1)).await.is_err());
    store.append("r", records(1, 1)).await.unwrap();
    store.end_run("r", Vec::new()).await.unwrap();
    assert!(store.append("r", records(2, 1)).await.is_err());
    assert!(matches!(
        store.append("nope", records(1, 1)).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.create_run(meta("r")).await,
        Err(StoreError::Exists(_))
    ));
}

#[tokio::test]
async fn a_log_over_its_bounds_drops_its_oldest_events() {
    let store = MemoryStore::with_limits(MemoryLimits::default().max_events_per_run(3));
    store.create_run(meta("r")).await.unwrap();
    store.append("r", records(1, 5)).await.unwrap();
    store.end_run("r", Vec::new()).await.unwrap();
    assert_eq!(collect(store.tail("r", 2).await.unwrap()).await, [3, 4, 5]);
    match store.tail("r", 1).await {
        Err(StoreError::CursorExpired { after, oldest, .. }) => assert_eq!((after, oldest), (1, 3)),
        other => panic!("expected CursorExpired, got {:?}", other.map(|_| ())),
    }
    // Each record's frame is 21 bytes (`id: N\ndata: {"n":N}\n\n`): two fit in 45.
    let bytes = MemoryStore::with_limits(MemoryLimits::default().max_bytes_per_run(45));
    bytes.create_run(meta("r")).await.unwrap();
    bytes.append("r", records(1, 4)).await.unwrap();
    bytes.end_run("r", Vec::new()).await.unwrap();
    assert_eq!(collect(bytes.tail("r", 2).await.unwrap()).await, [3, 4]);
}

#[tokio::test]
async fn a_subscriber_that_falls_behind_the_bounds_gets_an_error() {
    let store = MemoryStore::with_limits(MemoryLimits::default().max_events_per_run(2));
    store.create_run(meta("r")).await.unwrap();
    let mut tail = store.tail("r", 0).await.unwrap();
    store.append("r", records(1, 5)).await.unwrap();
    assert!(matches!(
        tail.next().await,
        Some(Err(StoreError::CursorExpired { .. }))
    ));
    assert!(tail.next().await.is_none());
}

#[tokio::test]
async fn ended_runs_expire_after_the_retention() {
    let store =
        MemoryStore::with_limits(MemoryLimits::default().retention(Duration::from_millis(50)));
    store.create_run(meta("r")).await.unwrap();
    store.append("r", records(1, 1)).await.unwrap();
    store.end_run("r", Vec::new()).await.unwrap();
    assert!(store.run("r").await.unwrap().is_some());
    assert_eq!(
        store.run("r").await.unwrap().unwrap().status,
        RunPhase::Ended
    );
    tokio::time::sleep(Duration::from_millis(80)).await;
    assert!(store.run("r").await.unwrap().is_none());
    assert!(matches!(
        store.tail("r", 0).await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(store.run_count(), 0);
}

#[tokio::test]
async fn a_full_store_evicts_the_run_that_ended_first_and_refuses_when_all_run() {
    let store = MemoryStore::with_limits(MemoryLimits::default().max_runs(2));
    store.create_run(meta("a")).await.unwrap();
    store.create_run(meta("b")).await.unwrap();
    assert!(matches!(
        store.create_run(meta("c")).await,
        Err(StoreError::Full(_))
    ));
    store.end_run("b", Vec::new()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(2)).await;
    store.end_run("a", Vec::new()).await.unwrap();
    store.create_run(meta("c")).await.unwrap();
    assert!(store.run("b").await.unwrap().is_none(), "b ended first");
    assert!(store.run("a").await.unwrap().is_some());
}

#[tokio::test]
async fn a_stop_request_reaches_the_owner() {
    let store = MemoryStore::new();
    store.create_run(meta("r")).await.unwrap();
    let waiting = store.stop_requested("r");
    assert!(
        store
            .run("r")
            .await
            .unwrap()
            .is_some_and(|m| !m.stop_requested)
    );
    assert!(store.request_stop("r").await.unwrap());
    tokio::time::timeout(Duration::from_secs(1), waiting)
        .await
        .unwrap()
        .unwrap();
    assert!(store.run("r").await.unwrap().unwrap().stop_requested);
    store.end_run("r", Vec::new()).await.unwrap();
    assert!(
        !store.request_stop("r").await.unwrap(),
        "an ended run is not running"
    );
    assert!(matches!(
        store.request_stop("x").await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.renew_lease("r", "me", Duration::from_secs(1)).await,
        Err(StoreError::Ended(_))
    ));
}

#[tokio::test]
async fn an_owner_renews_its_running_run_and_no_other() {
    let store = MemoryStore::new();
    store.create_run(meta("r")).await.unwrap();
    store
        .renew_lease("r", "me", Duration::from_secs(1))
        .await
        .unwrap();
    assert!(matches!(
        store
            .renew_lease("r", "other", Duration::from_secs(1))
            .await,
        Err(StoreError::Ended(_))
    ));
    assert!(matches!(
        store.renew_lease("x", "me", Duration::from_secs(1)).await,
        Err(StoreError::NotFound(_))
    ));
}

#[tokio::test]
async fn the_last_records_and_the_end_are_one_write_and_come_once() {
    let store = MemoryStore::new();
    store.create_run(meta("r")).await.unwrap();
    store.append("r", records(1, 2)).await.unwrap();
    let tail = store.tail("r", 0).await.unwrap();
    store.end_run("r", records(3, 1)).await.unwrap();
    assert_eq!(collect(tail).await, vec![1, 2, 3]);
    // Whoever comes second is refused, and appends nothing.
    assert!(matches!(
        store.end_run("r", records(4, 1)).await,
        Err(StoreError::Ended(_))
    ));
    assert!(matches!(
        store.append("r", records(4, 1)).await,
        Err(StoreError::Ended(_))
    ));
    assert_eq!(
        collect(store.tail("r", 0).await.unwrap()).await,
        vec![1, 2, 3]
    );
    // A batch whose cursors do not follow is refused whole.
    store.create_run(meta("s")).await.unwrap();
    let mut gap = records(1, 2);
    gap.extend(records(4, 1));
    assert!(store.append("s", gap).await.is_err());
    // Nothing of it was kept: the first record is still due.
    store.append("s", records(1, 1)).await.unwrap();
}

#[tokio::test]
async fn memory_threads_are_bounded_and_a_thread_with_a_running_run_stays() {
    use crate::threads::{MemoryThreads, RunEndKind, RunEnding, RunStart, ThreadStore};
    let threads = MemoryThreads::new().max_threads(2);
    let thread =
        |id: &str| ag_ui_core::ThreadState::new().with_state(serde_json::json!({"id": id}));
    let start = |id: &str| RunStart::new(id, format!("run-{id}"), Vec::new(), thread(id));
    threads.begin_run(None, start("a")).await.unwrap();
    threads
        .end_run(
            None,
            RunEnding::new("a", "run-a", RunEndKind::Success, thread("a")),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(2)).await;
    // b runs on; c makes room by removing a, the least recently updated idle thread.
    threads.begin_run(None, start("b")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(2)).await;
    threads.begin_run(None, start("c")).await.unwrap();
    assert!(threads.thread(None, "a").await.unwrap().is_none());
    let b = threads.thread(None, "b").await.unwrap().unwrap();
    assert_eq!(b.thread.state(), &serde_json::json!({"id": "b"}));
    assert!(threads.thread(None, "c").await.unwrap().is_some());
}

#[test]
fn local_subscribers_are_counted_while_they_live() {
    let local = Local::default();
    let run = local.insert("r");
    let waker = futures_util::task::noop_waker();
    let cx = std::task::Context::from_waker(&waker);
    assert_eq!(run.subscribers(&cx), 0);
    let a = run.subscribe();
    let b = local.get("r").map(|r| r.subscribe());
    assert_eq!(run.subscribers(&cx), 2);
    drop(a);
    drop(b);
    assert_eq!(run.subscribers(&cx), 0);
    local.remove("r");
    assert!(local.get("r").is_none());
}

#[test]
fn a_record_knows_a_terminal_event() {
    let terminal = |json: &str| Record::new(1, json.as_bytes()).is_terminal();
    assert!(terminal(
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#
    ));
    assert!(terminal(r#"{"type":"RUN_ERROR","message":"m"}"#));
    assert!(terminal(r#"{"message":"m", "type" : "RUN_ERROR"}"#));
    assert!(!terminal(
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#
    ));
    assert!(!terminal(r#"{"type":"RUN_FINISHED_NOT"}"#));
    assert!(!terminal(
        r#"{"delta":"RUN_ERROR","type":"TEXT_MESSAGE_CONTENT"}"#
    ));
    assert!(!terminal("not json"));
}

#[test]
fn a_record_is_its_sse_frame() {
    let r = Record::new(12, br#"{"a":1}"#);
    assert_eq!(&r.frame[..], b"id: 12\ndata: {\"a\":1}\n\n");
    assert_eq!(r.json(), br#"{"a":1}"#);
    assert_eq!(Record::new(0, b"{}").json(), b"{}");
    let mut out = Vec::new();
    super::store::write_id(&mut out, u64::MAX);
    assert_eq!(out, format!("id: {}\n", u64::MAX).into_bytes());
}

fn on(run: &str, thread: &str, principal: Option<&str>) -> RunMeta {
    RunMeta::new(run, thread, principal.map(str::to_owned), "me")
}

#[tokio::test]
async fn a_thread_has_one_running_run_and_its_end_frees_it() {
    let store = MemoryStore::new();
    store.create_run(on("r1", "t", None)).await.unwrap();
    match store.create_run(on("r2", "t", None)).await {
        Err(StoreError::ThreadBusy { thread_id, run_id }) => {
            assert_eq!((thread_id.as_str(), run_id.as_str()), ("t", "r1"));
        }
        other => panic!("{other:?}"),
    }
    // The refused run was not created.
    assert!(store.run("r2").await.unwrap().is_none());
    // Another principal's thread of the same id, and another thread, are free.
    store.create_run(on("r3", "t", Some("bob"))).await.unwrap();
    store.create_run(on("r4", "u", None)).await.unwrap();
    assert_eq!(
        store.thread_run(None, "t").await.unwrap().as_deref(),
        Some("r1")
    );
    store.end_run("r1", Vec::new()).await.unwrap();
    assert_eq!(store.thread_run(None, "t").await.unwrap(), None);
    store.create_run(on("r2", "t", None)).await.unwrap();
    assert!(matches!(
        store.create_run(on("r5", "t", Some("bob"))).await,
        Err(StoreError::ThreadBusy { .. })
    ));
}

async fn next_run(feed: &mut ThreadRunStream) -> (u64, String) {
    let r = tokio::time::timeout(Duration::from_secs(5), feed.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    (r.seq, r.run_id)
}

#[tokio::test]
async fn a_threads_feed_catches_up_from_its_cursor_then_follows() {
    let store = MemoryStore::new();
    for (i, run) in ["a", "b", "c"].iter().enumerate() {
        store.create_run(on(run, "t", Some("p"))).await.unwrap();
        store.end_run(run, Vec::new()).await.unwrap();
        // Other threads' runs and another principal's are not in the feed.
        for (x, thread, who) in [("x", "t", "q"), ("y", "u", "p")] {
            let other = format!("{x}{i}");
            store
                .create_run(on(&other, thread, Some(who)))
                .await
                .unwrap();
            store.end_run(&other, Vec::new()).await.unwrap();
        }
    }
    let mut feed = store.thread_runs(Some("p"), "t", 1).await.unwrap();
    assert_eq!(next_run(&mut feed).await, (2, "b".to_owned()));
    assert_eq!(next_run(&mut feed).await, (3, "c".to_owned()));
    let pending = tokio::time::timeout(Duration::from_millis(50), feed.next()).await;
    assert!(pending.is_err(), "{pending:?}");
    assert_eq!(store.thread_seq(Some("p"), "t").await.unwrap(), 3);
    assert_eq!(store.thread_seq(Some("z"), "t").await.unwrap(), 0);
    store.create_run(on("d", "t", Some("p"))).await.unwrap();
    assert_eq!(next_run(&mut feed).await, (4, "d".to_owned()));
    let mut all = store.thread_runs(Some("p"), "t", 0).await.unwrap();
    assert_eq!(next_run(&mut all).await, (1, "a".to_owned()));
    let mut empty = store.thread_runs(None, "t", 0).await.unwrap();
    let nothing = tokio::time::timeout(Duration::from_millis(20), empty.next()).await;
    assert!(nothing.is_err(), "{nothing:?}");
}

#[tokio::test]
async fn a_feed_cursor_older_than_the_kept_runs_is_refused() {
    let store = MemoryStore::with_limits(MemoryLimits::default().max_runs(10));
    let n = THREAD_FEED_LEN + 5;
    for i in 1..=n {
        let run = format!("r{i}");
        store.create_run(on(&run, "t", None)).await.unwrap();
        store.end_run(&run, Vec::new()).await.unwrap();
    }
    assert!(matches!(
        store.thread_runs(None, "t", 2).await.map(|_| ()),
        Err(StoreError::FeedExpired {
            after: 2,
            oldest: 6,
            ..
        })
    ));
    let mut feed = store.thread_runs(None, "t", 5).await.unwrap();
    assert_eq!(next_run(&mut feed).await, (6, "r6".to_owned()));
}

#[tokio::test]
async fn the_feeds_of_threads_whose_runs_are_gone_are_forgotten() {
    let store = MemoryStore::with_limits(MemoryLimits::default().max_runs(2));
    let followed = store.thread_runs(None, "t-0", 0).await.unwrap();
    for i in 0..10 {
        let run = format!("r{i}");
        store
            .create_run(on(&run, &format!("t-{i}"), None))
            .await
            .unwrap();
        store.end_run(&run, Vec::new()).await.unwrap();
    }
    // A followed thread's feed stays, with its numbering.
    assert_eq!(store.thread_seq(None, "t-0").await.unwrap(), 1);
    drop(followed);
    // A forgotten thread starts over.
    assert_eq!(store.thread_seq(None, "t-1").await.unwrap(), 0);
    // A thread whose run is kept keeps its feed.
    assert_eq!(store.thread_seq(None, "t-9").await.unwrap(), 1);
}

/// A local subscriber's records, from the owner's buffer.
fn local_tail(run: &Arc<LocalRun>, store: &MemoryStore, after: Cursor) -> local::LocalTail {
    let shared: Arc<dyn RunStore> = Arc::new(store.clone());
    local::LocalTail::new(Arc::clone(run), shared, "r".into(), after)
}

fn terminal(cursor: Cursor, json: &[u8]) -> Record {
    Record::new(cursor, json)
}

const FINISHED: &[u8] = br#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;

#[tokio::test]
async fn a_local_subscriber_gets_the_terminal_once_the_store_ended_the_run() {
    let store = MemoryStore::new();
    store.create_run(meta("r")).await.unwrap();
    let run = Arc::new(LocalRun::default());
    let mut tail = local_tail(&run, &store, 0);
    run.publish(&records(1, 3));
    run.hold_terminal(terminal(4, FINISHED));
    // Nothing goes out before the store holds it.
    assert!(tail.next().now_or_never().is_none());
    store.append("r", records(1, 3)).await.unwrap();
    run.confirmed(3);
    for c in 1..=3 {
        let r = tail.next().now_or_never().flatten().unwrap().unwrap();
        assert_eq!(r.cursor, c);
    }
    // The store does not hold the terminal yet: it waits.
    assert!(tail.next().now_or_never().is_none());
    store
        .end_run("r", vec![terminal(4, FINISHED)])
        .await
        .unwrap();
    run.confirmed(4);
    run.ended();
    let r = tail.next().now_or_never().flatten().unwrap().unwrap();
    assert_eq!(r.cursor, 4);
    assert!(r.is_terminal());
    assert!(tail.next().now_or_never().unwrap().is_none());
}

#[tokio::test]
async fn a_local_subscriber_behind_the_buffer_reads_the_store_from_its_cursor() {
    let store = MemoryStore::new();
    store.create_run(meta("r")).await.unwrap();
    let run = Arc::new(LocalRun::default());
    let tail = local_tail(&run, &store, 0);
    let n = local::KEEP_RECORDS as u64 + 100;
    let made = records(1, n);
    run.publish(&made);
    // Kept whatever their number until the store holds them.
    assert!(run.serves(0));
    store.append("r", made).await.unwrap();
    run.confirmed(n);
    assert!(
        !run.serves(0),
        "the buffer keeps its bound once the store holds them"
    );
    assert!(run.serves(n - 10));
    run.hold_terminal(terminal(n + 1, FINISHED));
    store
        .end_run("r", vec![terminal(n + 1, FINISHED)])
        .await
        .unwrap();
    run.confirmed(n + 1);
    run.ended();
    let got = tokio::time::timeout(Duration::from_secs(5), collect(Box::pin(tail)))
        .await
        .unwrap();
    assert_eq!(got, (1..=n + 1).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_diverted_subscriber_ends_with_the_stores_terminal() {
    let store = MemoryStore::new();
    store.create_run(meta("r")).await.unwrap();
    let run = Arc::new(LocalRun::default());
    let mut tail = local_tail(&run, &store, 0);
    // The owner made ten records; the store holds five (the subscriber gets those
    // alone), then another instance ends the run with a terminal of its own.
    run.publish(&records(1, 10));
    store.append("r", records(1, 5)).await.unwrap();
    run.confirmed(5);
    for c in 1..=5 {
        let r = tail.next().now_or_never().flatten().unwrap().unwrap();
        assert_eq!(r.cursor, c);
    }
    let lost = br#"{"type":"RUN_ERROR","message":"lost","code":"run_lost"}"#;
    store.end_run("r", vec![terminal(6, lost)]).await.unwrap();
    run.hold_terminal(terminal(11, FINISHED));
    run.divert();
    let r = tokio::time::timeout(Duration::from_secs(5), tail.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!((r.cursor, r.json()), (6, &lost[..]));
    assert!(tail.next().await.is_none());
    // A subscriber that had less gets what the store holds after it.
    let run2 = Arc::new(LocalRun::default());
    run2.publish(&records(1, 10));
    run2.confirmed(5);
    run2.divert();
    let got = collect(Box::pin(local_tail(&run2, &store, 3))).await;
    assert_eq!(got, [4, 5, 6]);
}
