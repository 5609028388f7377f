//! What Redis-shared runs do when an instance dies or Redis goes away, and how the store
//! guards its keys and its URL.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ag_ui_redis::{CODE_RUN_ORPHANED, ConnectError, RedisConfig, RedisStore};
use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::{DisconnectPolicy, RunPhase, RunStore};
use redis::AsyncCommands;
use serde_json::{Value, json};

use crate::support::{
    ChildGuard, Instance, LIMIT, Open, RedisServer, chat, free_port, get, input, on_thread,
    outcome, post, read, read_until, serve, serve_example, slow, values,
};

const LEASE: Duration = Duration::from_millis(1000);

fn lease_config(redis: &RedisServer) -> RedisConfig {
    redis
        .config()
        .lease(LEASE)
        .poll_interval(Duration::from_millis(200))
}

/// Joins `run` on `url` after its first events, waits for `kill` to be done, and checks
/// that the join ends with `run_orphaned` within the lease plus 2 s; returns the events.
async fn orphaned_join(url: String, run: &str, kill: impl FnOnce()) -> Vec<ag_ui_core::Event> {
    let mut joined =
        Open::start(get(format!("{url}runs/{run}/events")).send().await.unwrap()).await;
    let mut seen = vec![joined.next().await.unwrap(), joined.next().await.unwrap()];
    kill();
    let killed = Instant::now();
    seen.extend(joined.rest().await);
    let took = killed.elapsed();
    assert!(
        took <= LEASE + Duration::from_secs(2),
        "the joiner ended {took:?} after the owner died"
    );
    assert_eq!(
        outcome(&seen),
        json!({"type": "RUN_ERROR", "outcome": null, "code": CODE_RUN_ORPHANED})
    );
    seen
}

#[tokio::test]
async fn an_instance_killed_mid_run_leaves_its_joiners_a_run_orphaned_error() {
    let redis = RedisServer::start();
    let mut a = Instance::start(DemoAgent::new, lease_config(&redis), |r| {
        r.on_disconnect(DisconnectPolicy::Continue)
    });
    let store = redis.store(|_| lease_config(&redis)).await;
    let b = serve(AgentService::new(DemoAgent::new()).runs(store.runs())).await;
    let first = read_until(post(a.url(), &slow("run-orphan")).send().await.unwrap(), 2).await;
    assert_eq!(first.events.len(), 2);
    let other = read_until(
        post(a.url(), &on_thread(slow("run-orphan-2"), "thread-2"))
            .send()
            .await
            .unwrap(),
        2,
    )
    .await;
    assert_eq!(other.events.len(), 2);
    let seen = orphaned_join(b.url(), "run-orphan", || a.kill()).await;
    // A run of the dead instance that nobody tails: a stop is taken (nobody is there to
    // act on it), and the first join ends the run as orphaned once it has watched its
    // owner stand still for a lease.
    let stop = crate::support::client()
        .post(format!("{}runs/run-orphan-2/stop", b.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(stop.status(), 202);
    let joined = Instant::now();
    let replay = read(get(b.events_url("run-orphan-2")).send().await.unwrap()).await;
    assert!(
        joined.elapsed() <= LEASE + Duration::from_secs(2),
        "{:?}",
        joined.elapsed()
    );
    assert_eq!(outcome(&replay.events)["code"], CODE_RUN_ORPHANED);
    // Exactly one RUN_ERROR, at the next cursor, and the run is marked ended for everyone.
    let meta = store.run("run-orphan").await.unwrap().unwrap();
    assert_eq!(meta.status, RunPhase::Ended);
    let replay = read(get(b.events_url("run-orphan")).send().await.unwrap()).await;
    assert_eq!(values(&replay.events), values(&seen));
    let want_ids: Vec<Option<String>> = (1..=seen.len()).map(|i| Some(i.to_string())).collect();
    assert_eq!(replay.ids, want_ids);
    let errors = replay
        .events
        .iter()
        .filter(|e| e.event_type().as_str() == "RUN_ERROR")
        .count();
    assert_eq!(errors, 1);
    // A stop of it now says it has ended.
    let stop = crate::support::client()
        .post(format!("{}runs/run-orphan/stop", b.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(stop.status(), 200);
}

#[tokio::test]
async fn a_serve_process_killed_with_sigkill_mid_run_leaves_a_run_orphaned_error() {
    let redis = RedisServer::start();
    let mut child = ChildGuard(
        Command::new(serve_example())
            .args(["--store", &redis.url(), "--lease-ms", "1000"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let stdout = child.0.stdout.take().unwrap();
    let addr = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        line.trim().to_owned()
    })
    .await
    .unwrap();
    let a_url = format!("http://{addr}/");
    let store = redis.store(|_| lease_config(&redis)).await;
    let b = serve(AgentService::new(DemoAgent::new()).runs(store.runs())).await;
    let first = read_until(post(a_url, &slow("run-sigkill")).send().await.unwrap(), 2).await;
    assert_eq!(first.events.len(), 2);
    orphaned_join(b.url(), "run-sigkill", || {
        // SIGKILL: no clean shutdown, no lease given back.
        let _ = child.0.kill();
        let _ = child.0.wait();
    })
    .await;
}

#[tokio::test]
async fn redis_lost_mid_run_ends_the_run_then_new_runs_get_503_until_it_is_back() {
    let mut redis = RedisServer::start();
    let store = redis.store(|c| c.lease(LEASE)).await;
    let server = serve(AgentService::new(DemoAgent::new()).runs(store.runs())).await;
    let mut started =
        Open::start(post(server.url(), &slow("run-lost")).send().await.unwrap()).await;
    started.next().await.unwrap();
    started.next().await.unwrap();
    redis.kill();
    let killed = Instant::now();
    let rest = started.rest().await;
    // The subscriber rides out an outage of up to a lease, then ends with one error.
    let took = killed.elapsed();
    assert!(
        took >= LEASE && took < LEASE + Duration::from_secs(3),
        "{took:?}"
    );
    assert_eq!(
        outcome(&rest),
        json!({"type": "RUN_ERROR", "outcome": null, "code": "store_error"})
    );
    // New runs are refused, with JSON, while Redis is away; the server keeps answering.
    let refused = read(
        post(server.url(), &chat("run-refused"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(refused.status, 503);
    assert_eq!(refused.headers["content-type"], "application/json");
    assert_eq!(refused.json()["error"], "store_unavailable");
    let join = read(get(server.events_url("run-lost")).send().await.unwrap()).await;
    assert_eq!(join.status, 503);

    // Back: the store reconnects by itself.
    redis.resume();
    let t = Instant::now();
    let mut n = 0;
    let back = loop {
        n += 1;
        let r = read(
            post(server.url(), &chat(&format!("run-back-{n}")))
                .send()
                .await
                .unwrap(),
        )
        .await;
        if r.status == 200 {
            break r;
        }
        assert_eq!(r.status, 503);
        assert!(t.elapsed() < LIMIT, "the store did not reconnect");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(outcome(&back.events)["type"], "RUN_FINISHED");
}

#[tokio::test]
async fn redis_unavailable_at_start_is_a_clear_error_without_the_credentials() {
    let port = free_port();
    let url = format!("redis://agent:hunter2@127.0.0.1:{port}/3");
    let err = RedisStore::open(url).await.unwrap_err();
    assert!(matches!(err, ConnectError::Unavailable { .. }), "{err:?}");
    let shown = format!("{err} / {err:?}");
    assert!(!shown.contains("hunter2"), "{shown}");
    assert!(
        err.to_string().starts_with(&format!(
            "Redis at redis://127.0.0.1:{port}/3 is unavailable"
        )),
        "{err}"
    );
    // TLS: without the feature the URL is refused; with it, a handshake with a server
    // that speaks none fails. Neither shows the password.
    let redis = RedisServer::start();
    let tls = format!("rediss://agent:hunter2@127.0.0.1:{}/0", redis.port);
    let err = RedisStore::connect(RedisConfig::new(tls).connection_timeout(Duration::from_secs(2)))
        .await
        .unwrap_err();
    let shown = format!("{err} / {err:?}");
    assert!(!shown.contains("hunter2"), "{shown}");
    assert!(
        shown.contains(&format!("rediss://127.0.0.1:{}/0", redis.port)),
        "{shown}"
    );
}

#[tokio::test]
async fn keys_stay_under_the_prefix_with_escaped_ids_and_expire() {
    let redis = RedisServer::start();
    let retention = Duration::from_secs(60);
    let store = redis
        .store(|c| c.prefix("svc-a:").retention(retention))
        .await;
    let server = serve(AgentService::new(DemoAgent::new()).runs(store.runs())).await;
    let run = "r:{x}*";
    let mut body = input(run, json!({"scenario": "chat"}));
    body["threadId"] = json!("t 1");
    let whole = read(post(server.url(), &body).send().await.unwrap()).await;
    assert_eq!(whole.status, 200);
    assert_eq!(
        whole.headers["content-location"],
        "/runs/r%3A%7Bx%7D%2A/events"
    );
    let mut raw = redis.raw().await;
    // The thread's claim is released a moment after the run's end (a round trip after
    // the one that ends the run): read the keys once it is gone, within a bound.
    let claim = "svc-a:thread:{n:t%201}";
    let mut keys: Vec<String> = Vec::new();
    for _ in 0..100 {
        keys = redis::cmd("KEYS")
            .arg("*")
            .query_async(&mut raw)
            .await
            .unwrap();
        if !keys.iter().any(|k| k == claim) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    keys.sort();
    assert_eq!(
        keys,
        [
            "svc-a:run:{r%3A%7Bx%7D%2A}",
            "svc-a:run:{r%3A%7Bx%7D%2A}:log",
            "svc-a:thread:{n:t%201}:feed",
            "svc-a:thread:{n:t%201}:seq",
        ],
        "no stop was asked, the thread's claim went with the run's end, and of the thread \
         only its feed is kept in Redis"
    );
    for k in &keys[..2] {
        let ttl: i64 = raw.pttl(k).await.unwrap();
        assert!(ttl > 0 && ttl <= 60_000, "{k}: {ttl}");
    }
    for k in &keys[2..] {
        let ttl: i64 = raw.pttl(k).await.unwrap();
        assert!(ttl > 60_000 && ttl <= 24 * 3_600_000, "{k}: {ttl}");
    }
    let meta: std::collections::HashMap<String, String> = raw.hgetall(&keys[0]).await.unwrap();
    assert_eq!(meta["status"], "ended");
    assert_eq!(meta["thread"], "t 1");
    assert_eq!(meta["stop"], "0");
    // The thread as the run's input left it: its fold's snapshot events.
    let input: Value = serde_json::from_str(&meta["input"]).unwrap();
    assert_eq!(input[1]["type"], "MESSAGES_SNAPSHOT");
    assert_eq!(input[1]["messages"], body["messages"]);
    // The stream: batches with their last cursor as id, the end entry last.
    let last: Value = redis::cmd("XREVRANGE")
        .arg(&keys[1])
        .arg("+")
        .arg("-")
        .arg("COUNT")
        .arg(2)
        .query_async::<redis::Value>(&mut raw)
        .await
        .map(|v| json!(format!("{v:?}")))
        .unwrap();
    let text = last.as_str().unwrap();
    assert!(text.contains("1-0"), "{text}");
    assert!(
        text.contains(&format!("0-{}", whole.events.len())),
        "{text}"
    );
}

#[tokio::test]
async fn a_fast_run_is_appended_in_a_few_batches() {
    let redis = RedisServer::start();
    let store = redis.store(|c| c).await;
    assert_eq!(store.runs().disconnect_policy(), DisconnectPolicy::Continue);
    let server = serve(AgentService::new(DemoAgent::new()).runs(store.runs())).await;
    // A first run warms up the scripts (EVALSHA misses load them once).
    read(post(server.url(), &chat("run-warm")).send().await.unwrap()).await;
    let before = store.commands_sent();
    let whole = read(post(server.url(), &chat("run-fast")).send().await.unwrap()).await;
    let sent = store.commands_sent() - before;
    let events = whole.events.len() as u64;
    // Create, a thread write at the start and the end, the tail's opening read and its
    // blocking reads, the stop waiter's two, the end: a handful, however many events.
    assert!(
        sent < events / 2,
        "{sent} commands for {events} events: appends are not batched"
    );
}
