//! How many Redis connections an instance holds: a fixed few, however many subscribers
//! follow its runs; and a subscriber that does not read holds up nobody.

use std::time::{Duration, Instant};

use ag_ui_core::SseReader;
use ag_ui_redis::{DEFAULT_READERS, RedisStore};
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::RunStore;
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::support::{Instance, LIMIT, RedisServer, client, read};

/// The demo's `firehose` run `run`: one text message of `events` deltas of `bytes` bytes,
/// one every `every_ms` milliseconds, then `RUN_FINISHED`.
fn firehose_input(run: &str, events: u64, every_ms: u64, bytes: u64) -> Value {
    json!({
        "threadId": format!("t-{run}"), "runId": run, "messages": [],
        "forwardedProps": {
            "scenario": "firehose", "events": events, "every_ms": every_ms, "bytes": bytes,
        },
    })
}

/// `connected_clients` of `INFO clients`.
async fn connected_clients(raw: &mut redis::aio::MultiplexedConnection) -> usize {
    let info: String = redis::cmd("INFO")
        .arg("clients")
        .query_async(raw)
        .await
        .unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix("connected_clients:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap()
}

/// A response's events as JSON, and the SSE ids they came with (parsed as JSON alone:
/// hundreds of joiners decode in one test process).
async fn events(response: reqwest::Response) -> (Vec<Value>, Vec<Option<u64>>) {
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let mut reader = SseReader::new();
    let (mut events, mut ids) = (Vec::new(), Vec::new());
    loop {
        while let Some(m) = reader.next_message() {
            events.push(serde_json::from_str(&m).unwrap());
            ids.push(reader.last_event_id().and_then(|i| i.parse().ok()));
        }
        match tokio::time::timeout(LIMIT, body.next())
            .await
            .expect("stream stalled")
        {
            Some(Ok(chunk)) => reader.feed(&chunk).unwrap(),
            Some(Err(_)) | None => return (events, ids),
        }
    }
}

async fn join(http: reqwest::Client, url: String) -> (Vec<Value>, Vec<Option<u64>>) {
    let response = http
        .get(url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    events(response).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_joiners_on_three_instances_add_a_handful_of_redis_connections() {
    // 500 joiners: 500 client sockets and 500 server sockets in this process, plus
    // Redis's; the default soft limit of 1024 descriptors would not leave room for the
    // rest. The test runs where the limit is higher (CI and this repository's machines
    // have 20000); below it, it joins with fewer, saying so.
    let joiners = joiner_count(500);
    let redis = RedisServer::start();
    let instances: Vec<Instance> = (0..3)
        .map(|_| Instance::start(DemoAgent::new, redis.config(), |r| r))
        .collect();
    // A connection that waits for INFO while the machine is busy with the joiners.
    let mut raw = redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection_with_config(
            &redis::AsyncConnectionConfig::new().set_response_timeout(Some(LIMIT)),
        )
        .await
        .unwrap();
    // The three stores' command connections and this one.
    let idle = connected_clients(&mut raw).await;
    assert!(idle <= 4, "{idle} clients before any run");
    // No bound on a whole response (the run lasts as long as the machine lets it): a
    // stall is bounded by each read instead.
    let http = reqwest::Client::new();
    // 150 events, 10 ms apart: 1.5 s of run at least, ~150 000 events for the joiners.
    let run = "run-many";
    let owner = {
        let http = http.clone();
        let url = instances[0].url();
        tokio::spawn(async move {
            let response = http
                .post(url)
                .header("content-type", "application/json")
                .header("accept", "text/event-stream")
                .body(firehose_input(run, 150, 10, 8).to_string())
                .send()
                .await
                .unwrap();
            events(response).await
        })
    };
    // The run is there once its log is.
    let started = Instant::now();
    let store = RedisStore::connect(redis.config()).await.unwrap();
    while store.run(run).await.unwrap().is_none() {
        assert!(started.elapsed() < LIMIT, "the run did not start");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let joined: Vec<_> = (0..joiners)
        .map(|i| {
            let url = format!("{}runs/{run}/events", instances[i % 3].url());
            tokio::spawn(join(http.clone(), url))
        })
        .collect();
    // They join a live run (it lasts 1.5 s at least, the joins start within a few ms).
    assert_eq!(
        store.run(run).await.unwrap().unwrap().status,
        ag_ui_server::runs::RunPhase::Running
    );
    // While they follow the run: the connections the instances hold.
    let mut most = 0;
    let sampling = Instant::now();
    while !joined.iter().all(tokio::task::JoinHandle::is_finished) {
        most = most.max(connected_clients(&mut raw).await);
        assert!(
            sampling.elapsed() < Duration::from_secs(50),
            "the joins took too long"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Per instance: its command connection, its readers, its stop connection; and this
    // test's two.
    let allowed = 3 * (DEFAULT_READERS + 2) + 2;
    eprintln!(
        "{most} Redis clients at most while {joiners} joiners followed the run ({idle} before it)"
    );
    assert!(
        most <= allowed,
        "{most} Redis clients while {joiners} joiners followed one run (at most {allowed})"
    );
    let (whole, _) = owner.await.unwrap();
    assert_eq!(
        whole.len(),
        154,
        "RUN_STARTED, START, 150 deltas, END, RUN_FINISHED: {:?} after {:?}",
        whole.last(),
        started.elapsed()
    );
    assert_eq!(whole.last().unwrap()["type"], "RUN_FINISHED");
    let want_ids: Vec<Option<u64>> = (1..=whole.len() as u64).map(Some).collect();
    for (i, j) in joined.into_iter().enumerate() {
        let (events, ids) = j.await.unwrap();
        assert_eq!(ids, want_ids, "joiner {i}: every event once, in order");
        assert_eq!(events, whole, "joiner {i}");
    }
    assert!(started.elapsed() < Duration::from_secs(60));
}

/// `want` joiners when the process may open about four descriptors per joiner (client and
/// server sockets, with room to spare), else as many as fit.
fn joiner_count(want: usize) -> usize {
    let limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|l| {
            l.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(1024usize);
    let fit = limit.saturating_sub(200) / 4;
    if fit < want {
        eprintln!("open-file limit {limit}: {fit} joiners instead of {want}");
    }
    want.min(fit).max(10)
}

#[tokio::test]
async fn a_subscriber_that_does_not_read_holds_up_no_other() {
    let redis = RedisServer::start();
    let owner = Instance::start(DemoAgent::new, redis.config(), |r| r);
    let store = RedisStore::connect(redis.config()).await.unwrap();
    let run = "run-slow-reader";
    let http = client();
    let started = {
        let url = owner.url();
        let http = http.clone();
        tokio::spawn(async move {
            let response = http
                .post(url)
                .header("content-type", "application/json")
                .header("accept", "text/event-stream")
                .body(firehose_input(run, 400, 2, 64).to_string())
                .send()
                .await
                .unwrap();
            read(response).await
        })
    };
    let t = Instant::now();
    while store.run(run).await.unwrap().is_none() {
        assert!(t.elapsed() < LIMIT, "the run did not start");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Both subscribers of this instance follow the run through its one reader: the slow
    // one takes its first record, then reads nothing while the run goes on (its queue
    // overflows), the other reads as the events come.
    let mut slow = store.tail(run, 0).await.unwrap();
    let first = tokio::time::timeout(LIMIT, slow.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let mut fast = store.tail(run, 0).await.unwrap();
    let mut cursors = Vec::new();
    while let Some(r) = tokio::time::timeout(LIMIT, fast.next()).await.unwrap() {
        cursors.push(r.unwrap().cursor);
    }
    let fast_done = t.elapsed();
    let whole = started.await.unwrap();
    assert_eq!(
        whole.events.len(),
        404,
        "{:?}",
        crate::support::values(&whole.events).last()
    );
    assert_eq!(cursors, (1..=404).collect::<Vec<u64>>());
    // The fast one ended with the run, not held up by the other.
    assert!(fast_done < Duration::from_secs(10), "{fast_done:?}");
    // The slow one, read now, has every record once, in order: what it missed while its
    // queue was full it read again from Redis by its cursor.
    let mut slow_cursors = vec![first.cursor];
    while let Some(r) = tokio::time::timeout(LIMIT, slow.next()).await.unwrap() {
        slow_cursors.push(r.unwrap().cursor);
    }
    assert_eq!(slow_cursors, cursors);
}
