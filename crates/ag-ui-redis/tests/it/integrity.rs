//! Runs end exactly once under store faults: a paused Redis orphans no live run, a Redis
//! that lost its data ends the runs in flight with `store_lost`, an owner that died
//! between its terminal event and its end gets no second terminal.

use std::time::{Duration, Instant};

use ag_ui_redis::CODE_RUN_ORPHANED;
use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::{
    CODE_STORE_LOST, DisconnectPolicy, Record, RunMeta, RunPhase, RunStore, StoreError,
};
use serde_json::json;

use crate::support::{
    Instance, Open, RedisServer, client, get, on_thread, outcome, post, read, serve, slow,
};

const LEASE: Duration = Duration::from_secs(2);

/// The terminal events of a stream.
fn terminals(events: &[ag_ui_core::Event]) -> Vec<serde_json::Value> {
    crate::support::values(events)
        .into_iter()
        .filter(|e| matches!(e["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR")))
        .collect()
}

#[tokio::test]
async fn a_redis_paused_past_the_lease_orphans_no_live_run() {
    paused(Some(LEASE), LEASE + Duration::from_secs(1)).await;
}

#[tokio::test]
async fn with_the_defaults_a_5_s_stall_orphans_no_live_run() {
    paused(None, Duration::from_millis(5500)).await;
}

/// Live runs, their owners on one instance and joined on another, through a Redis pause
/// of `pause`, with `lease` (the default when `None`).
async fn paused(lease: Option<Duration>, pause: Duration) {
    let redis = RedisServer::start();
    let mut config = redis.config();
    if let Some(l) = lease {
        config = config.lease(l);
    }
    let lease = config.lease_duration();
    let a = Instance::start(DemoAgent::new, config.clone(), |r| {
        r.on_disconnect(DisconnectPolicy::Continue)
    });
    let store = redis.store(|_| config).await;
    let b = serve(AgentService::new(DemoAgent::new()).runs(store.runs())).await;
    let runs: Vec<String> = (0..4).map(|i| format!("run-paused-{i}")).collect();
    let mut started = Vec::new();
    let mut joined = Vec::new();
    for run in &runs {
        let body = on_thread(slow(run), &format!("thread-{run}"));
        let mut s = Open::start(post(a.url(), &body).send().await.unwrap()).await;
        s.next().await.unwrap();
        started.push(s);
        let mut j = Open::start(get(b.events_url(run)).send().await.unwrap()).await;
        j.next().await.unwrap();
        joined.push(j);
    }
    // Longer than the lease: the keys' clocks run on while nobody can renew anything.
    redis.pause();
    tokio::time::sleep(pause).await;
    redis.unpause();
    // Long enough for any watcher to have decided, had it counted the stall against
    // the owners.
    tokio::time::sleep(lease + Duration::from_secs(1)).await;
    for run in &runs {
        let stop = client()
            .post(format!("{}runs/{run}/stop", b.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(stop.status(), 202, "{run} is still running");
    }
    for (s, j) in started.iter_mut().zip(joined.iter_mut()) {
        for events in [s.rest().await, j.rest().await] {
            assert_eq!(
                terminals(&events),
                [
                    json!({"type": "RUN_FINISHED", "threadId": format!("thread-{}", events_run(&events).as_str().unwrap()), "runId": events_run(&events), "outcome": {"type": "cancelled"}})
                ],
                "{events:?}"
            );
        }
    }
    for run in &runs {
        let meta = store.run(run).await.unwrap().unwrap();
        assert_eq!(meta.status, RunPhase::Ended);
    }
}

/// The run id the terminal event of `events` names.
fn events_run(events: &[ag_ui_core::Event]) -> serde_json::Value {
    terminals(events)
        .first()
        .map(|e| e["runId"].clone())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_redis_that_lost_its_data_ends_the_runs_in_flight_with_store_lost() {
    let redis = RedisServer::start();
    let config = redis.config().lease(LEASE);
    let a = Instance::start(DemoAgent::new, config.clone(), |r| {
        r.on_disconnect(DisconnectPolicy::Continue)
    });
    let store = redis.store(|_| config).await;
    assert_eq!(
        store.persists(),
        Some(false),
        "the test server persists nothing"
    );
    let b = serve(AgentService::new(DemoAgent::new()).runs(store.runs())).await;
    let mut started = Open::start(post(a.url(), &slow("run-flushed")).send().await.unwrap()).await;
    started.next().await.unwrap();
    let mut joined = Open::start(get(b.events_url("run-flushed")).send().await.unwrap()).await;
    joined.next().await.unwrap();
    let mut raw = redis.raw().await;
    let () = redis::cmd("FLUSHALL").query_async(&mut raw).await.unwrap();
    let flushed = Instant::now();
    for events in [started.rest().await, joined.rest().await] {
        assert_eq!(
            outcome(&events),
            json!({"type": "RUN_ERROR", "outcome": null, "code": CODE_STORE_LOST}),
            "{events:?}"
        );
        assert_eq!(terminals(&events).len(), 1);
    }
    assert!(
        flushed.elapsed() < LEASE + Duration::from_secs(2),
        "{:?}",
        flushed.elapsed()
    );
    // Later joins: the store does not know the run.
    let join = read(get(b.events_url("run-flushed")).send().await.unwrap()).await;
    assert_eq!(join.status, 404);
    assert_eq!(join.json()["error"], "run_not_found");
    // The owner stopped its agent: it appended nothing after the loss.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("*")
        .query_async(&mut raw)
        .await
        .unwrap();
    assert!(keys.iter().all(|k| !k.contains("run-flushed")), "{keys:?}");
}

#[tokio::test]
async fn an_owner_gone_after_its_terminal_event_gets_no_second_one() {
    let redis = RedisServer::start();
    let store = redis.store(|c| c.lease(Duration::from_millis(500))).await;
    let b = serve(AgentService::new(DemoAgent::new()).runs(store.runs())).await;
    // An owner that logged its terminal event and died before it could end the run.
    store
        .create_run(RunMeta::new("run-ghost", "thread-1", None, "ghost"))
        .await
        .unwrap();
    let events = [
        r#"{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-ghost"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-ghost"}"#,
    ];
    let records = events
        .iter()
        .zip(1..)
        .map(|(e, c)| Record::new(c, e.as_bytes()))
        .collect();
    store.append("run-ghost", records).await.unwrap();
    let replay = read(get(b.events_url("run-ghost")).send().await.unwrap()).await;
    assert_eq!(replay.events.len(), 2, "{:?}", replay.events);
    assert_eq!(outcome(&replay.events)["type"], "RUN_FINISHED");
    // A subscriber past the terminal event watches the owner, finds it gone, and the
    // store closes the log without a word of its own.
    let after = read(
        get(b.events_url("run-ghost"))
            .header("last-event-id", "2")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(after.status, 200);
    assert!(after.events.is_empty(), "{:?}", after.events);
    let meta = store.run("run-ghost").await.unwrap().unwrap();
    assert_eq!(meta.status, RunPhase::Ended);
    let again = read(get(b.events_url("run-ghost")).send().await.unwrap()).await;
    assert_eq!(
        crate::support::values(&again.events),
        crate::support::values(&replay.events)
    );
    assert!(matches!(
        store.end_run("run-ghost", Vec::new()).await,
        Err(StoreError::Ended(_))
    ));
}

#[tokio::test]
async fn an_owner_whose_run_was_taken_stops_and_its_client_gets_the_one_terminal() {
    let redis = RedisServer::start();
    let store = redis.store(|c| c.lease(LEASE)).await;
    let a = serve(AgentService::new(DemoAgent::new()).runs(store.runs())).await;
    let mut started = Open::start(post(a.url(), &slow("run-taken")).send().await.unwrap()).await;
    started.next().await.unwrap();
    // Another instance decided the owner was gone (as after a partition): it ended the
    // run as orphaned, atomically, as the store's watcher does.
    let mut raw = redis.raw().await;
    let error = r#"{"type":"RUN_ERROR","message":"orphaned","code":"run_orphaned"}"#;
    let meta = "ag-ui:run:{run-taken}";
    let log = "ag-ui:run:{run-taken}:log";
    let last: Vec<(String, Vec<(String, String)>)> = redis::cmd("XREVRANGE")
        .arg(log)
        .arg("+")
        .arg("-")
        .arg("COUNT")
        .arg(1)
        .query_async(&mut raw)
        .await
        .unwrap();
    let n: u64 = last[0].0.trim_start_matches("0-").parse().unwrap();
    let () = redis::pipe()
        .cmd("XADD")
        .arg(log)
        .arg(format!("0-{}", n + 1))
        .arg(n + 1)
        .arg(error)
        .ignore()
        .cmd("XADD")
        .arg(log)
        .arg("1-0")
        .arg("end")
        .arg("1")
        .ignore()
        .cmd("HSET")
        .arg(meta)
        .arg("status")
        .arg("ended")
        .ignore()
        .query_async(&mut raw)
        .await
        .unwrap();
    let rest = started.rest().await;
    assert_eq!(
        terminals(&rest),
        [json!({"type": "RUN_ERROR", "message": "orphaned", "code": CODE_RUN_ORPHANED})]
    );
    // The owner learnt it at its next write or renewal and stopped its agent: the log
    // holds nothing after the end.
    tokio::time::sleep(LEASE).await;
    let replay = read(get(a.events_url("run-taken")).send().await.unwrap()).await;
    assert_eq!(terminals(&replay.events).len(), 1);
    assert_eq!(replay.events.len() as u64, n + 1);
}

/// A run's input thread written to Redis and read back is the whole fold: every message
/// kind, the state, the last run's outcome with its pending interrupts.
#[tokio::test]
async fn a_runs_input_thread_keeps_the_whole_fold() {
    use ag_ui_server::runs::RunStore;
    let redis = RedisServer::start();
    let store = redis.store(|c| c).await;
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "Thinking."}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "r1"}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "PLAN",
               "content": {"steps": ["look"]}}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"step": 3}}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
               "outcome": {"type": "interrupt", "interrupts": [
                   {"id": "int-1", "reason": "input_required"}]}}),
    ];
    let mut thread = ag_ui_core::ThreadState::new();
    for e in events {
        let event: ag_ui_core::Event = serde_json::from_value(e).unwrap();
        assert_eq!(thread.apply(&event), vec![]);
    }
    store
        .create_run(
            RunMeta::new("r", "t", Some("alice".into()), "me").with_input_thread(thread.clone()),
        )
        .await
        .unwrap();
    let meta = store.run("r").await.unwrap().unwrap();
    assert_eq!(meta.principal.as_deref(), Some("alice"));
    let back = meta.input_thread.unwrap();
    assert_eq!(
        serde_json::to_value(back.messages()).unwrap(),
        serde_json::to_value(thread.messages()).unwrap()
    );
    let roles: Vec<String> = back
        .messages()
        .iter()
        .map(|m| m.role().to_string())
        .collect();
    assert_eq!(roles, ["reasoning", "activity"]);
    assert_eq!(back.state(), &json!({"step": 3}));
    assert_eq!(
        serde_json::to_value(back.pending_interrupts()).unwrap(),
        json!([{"id": "int-1", "reason": "input_required"}])
    );
    assert_eq!(back.run_status(), thread.run_status());
}

/// A `TEXT_MESSAGE_CONTENT` record at `cursor`, its delta naming the cursor.
fn delta(cursor: u64) -> Record {
    let json =
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": format!("d{cursor}")});
    Record::new(cursor, json.to_string().as_bytes())
}

/// The whole log of the ended run `run_id`, read from the store.
async fn log_of(store: &ag_ui_redis::RedisStore, run_id: &str) -> Vec<Record> {
    let tail = store.tail(run_id, 0).await.unwrap();
    tokio::time::timeout(
        Duration::from_secs(10),
        futures_util::StreamExt::collect::<Vec<_>>(tail),
    )
    .await
    .unwrap()
    .into_iter()
    .map(Result::unwrap)
    .collect()
}

#[tokio::test]
async fn a_retried_append_is_kept_once_whether_or_not_the_run_keeps_its_last_cursor() {
    let redis = RedisServer::start();
    let store = redis.store(|c| c).await;
    store
        .create_run(RunMeta::new("r-retry", "t-retry", None, "me"))
        .await
        .unwrap();
    store
        .append("r-retry", vec![delta(1), delta(2)])
        .await
        .unwrap();
    // The same batch again, as a retry whose first reply was lost sends it.
    store
        .append("r-retry", vec![delta(1), delta(2)])
        .await
        .unwrap();
    // A run whose hash lacks its last cursor (created before the hash kept it): the
    // log's last entry tells what was appended.
    let mut raw = redis.raw().await;
    let removed: i64 = redis::cmd("HDEL")
        .arg("ag-ui:run:{r-retry}")
        .arg("last")
        .query_async(&mut raw)
        .await
        .unwrap();
    assert_eq!(removed, 1, "the run's hash keeps its last cursor");
    store
        .append("r-retry", vec![delta(1), delta(2)])
        .await
        .unwrap();
    store.append("r-retry", vec![delta(3)]).await.unwrap();
    let last: String = redis::cmd("HGET")
        .arg("ag-ui:run:{r-retry}")
        .arg("last")
        .query_async(&mut raw)
        .await
        .unwrap();
    assert_eq!(last, "3");
    store.append("r-retry", vec![delta(3)]).await.unwrap();
    let end = json!({"type": "RUN_FINISHED", "threadId": "t-retry", "runId": "r-retry"});
    store
        .end_run("r-retry", vec![Record::new(4, end.to_string().as_bytes())])
        .await
        .unwrap();
    let cursors: Vec<u64> = log_of(&store, "r-retry")
        .await
        .iter()
        .map(|r| r.cursor)
        .collect();
    assert_eq!(cursors, [1, 2, 3, 4]);
}

#[tokio::test]
async fn a_server_that_lost_its_scripts_gets_them_again_and_the_run_goes_on() {
    let redis = RedisServer::start();
    let store = redis.store(|c| c).await;
    let mut raw = redis.raw().await;
    let flush = || redis::cmd("SCRIPT").arg("FLUSH").to_owned();
    // Flushed before the first call of each script, and again between the appends.
    let _: () = flush().query_async(&mut raw).await.unwrap();
    store
        .create_run(RunMeta::new("r-flush", "t-flush", None, "me"))
        .await
        .unwrap();
    store
        .append("r-flush", vec![delta(1), delta(2)])
        .await
        .unwrap();
    let _: () = flush().query_async(&mut raw).await.unwrap();
    store.append("r-flush", vec![delta(3)]).await.unwrap();
    let _: () = flush().query_async(&mut raw).await.unwrap();
    let end = json!({"type": "RUN_FINISHED", "threadId": "t-flush", "runId": "r-flush"});
    store
        .end_run("r-flush", vec![Record::new(4, end.to_string().as_bytes())])
        .await
        .unwrap();
    let records: Vec<(u64, serde_json::Value)> = log_of(&store, "r-flush")
        .await
        .iter()
        .map(|r| (r.cursor, serde_json::from_slice(r.json()).unwrap()))
        .collect();
    let want: Vec<(u64, serde_json::Value)> = (1..=3)
        .map(|c| (c, serde_json::from_slice(delta(c).json()).unwrap()))
        .chain([(4, end)])
        .collect();
    assert_eq!(records, want);
}
