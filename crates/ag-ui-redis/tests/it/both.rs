//! The same resumable-run tests against both stores: two service instances (A and B)
//! sharing one store, an in-memory `MemoryStore` shared in this process or one Redis, and
//! one thread store (a `MemoryThreads` both are given a clone of). A run started on A is
//! joined, stopped and its thread read on B.

use std::time::{Duration, Instant};

use ag_ui_redis::RedisStore;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::{MemoryLimits, MemoryStore, Runs};
use ag_ui_server::threads::MemoryThreads;
use ag_ui_server::{AgentService, Rejection};
use serde_json::{Value, json};

use crate::support::{
    Open, RedisServer, Server, chat, client, get, outcome, post, read, read_until, reference,
    serve, slow, values,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Memory,
    Redis,
}

pub const KINDS: [Kind; 2] = [Kind::Memory, Kind::Redis];

/// The instances' checkpoint interval: short, so that the thread store has moved on with
/// a run by the time another instance connects to its thread (which then sends the
/// thread as the run's input left it, from the run store, and the run from its start).
const CHECKPOINT: Duration = Duration::from_millis(25);

/// What a test bounds: retention, events per run.
#[derive(Default, Clone, Copy)]
pub struct Bounds {
    pub retention: Option<Duration>,
    pub max_events: Option<usize>,
}

/// Two instances on one store (and the Redis they share, for that kind).
pub struct Pair {
    pub a: Server,
    pub b: Server,
    _redis: Option<RedisServer>,
}

/// Runs as the tests configure them: who a request comes from is its `x-user` header.
fn runs_with(runs: Runs, authorize: bool) -> Runs {
    if !authorize {
        return runs;
    }
    runs.authorize(|parts| {
        parts
            .headers
            .get("x-user")
            .and_then(|v| v.to_str().ok())
            .map(|u| Some(u.to_owned()))
            .ok_or_else(|| Rejection::new(401, "unauthenticated", "no x-user header"))
    })
}

pub async fn pair(kind: Kind, bounds: Bounds, pace: Duration, authorize: bool) -> Pair {
    let service = || AgentService::new(DemoAgent::with_pace(pace));
    // The instances share their threads as they share their runs.
    let threads = MemoryThreads::new();
    match kind {
        Kind::Memory => {
            let mut limits = MemoryLimits::default();
            if let Some(r) = bounds.retention {
                limits = limits.retention(r);
            }
            if let Some(n) = bounds.max_events {
                limits = limits.max_events_per_run(n);
            }
            let store = MemoryStore::with_limits(limits);
            let runs = |store| {
                Runs::new(store)
                    .threads(threads.clone())
                    .checkpoint_every(CHECKPOINT)
            };
            let a = serve(service().runs(runs_with(runs(store.clone()), authorize))).await;
            let b = serve(service().runs(runs_with(runs(store), authorize))).await;
            Pair { a, b, _redis: None }
        }
        Kind::Redis => {
            let redis = RedisServer::start();
            let config = move |mut c: ag_ui_redis::RedisConfig| {
                if let Some(r) = bounds.retention {
                    c = c.retention(r);
                }
                if let Some(n) = bounds.max_events {
                    c = c.max_events_per_run(n as u64);
                }
                c
            };
            let sa: RedisStore = redis.store(config).await;
            let sb: RedisStore = redis.store(config).await;
            let runs = |store: RedisStore| {
                store
                    .runs()
                    .threads(threads.clone())
                    .checkpoint_every(CHECKPOINT)
            };
            let a = serve(service().runs(runs_with(runs(sa), authorize))).await;
            let b = serve(service().runs(runs_with(runs(sb), authorize))).await;
            Pair {
                a,
                b,
                _redis: Some(redis),
            }
        }
    }
}

#[tokio::test]
async fn a_run_cut_after_every_event_and_joined_on_the_other_instance_is_whole() {
    for kind in KINDS {
        let p = pair(kind, Bounds::default(), Duration::ZERO, false).await;
        let total = reference(&chat("probe")).await.len();
        assert!(total > 20, "the chat run has {total} events");
        for k in 0..total {
            let run = format!("run-cut-{k}");
            let body = chat(&run);
            let want = reference(&body).await;
            let response = post(p.a.url(), &body).send().await.unwrap();
            assert_eq!(response.status(), 200);
            assert_eq!(
                response.headers()["content-location"],
                format!("/runs/{run}/events")
            );
            let first = if k == 0 {
                drop(response);
                None
            } else {
                Some(read_until(response, k).await)
            };
            let last = first.as_ref().and_then(|f| f.last_id().map(str::to_owned));
            let rest = if k % 2 == 0 {
                let mut req = get(p.b.events_url(&run));
                if let Some(id) = &last {
                    req = req.header("last-event-id", id);
                }
                read(req.send().await.unwrap()).await
            } else {
                let after = last.clone().unwrap_or_else(|| "0".into());
                read(
                    get(format!("{}?after={after}", p.b.events_url(&run)))
                        .send()
                        .await
                        .unwrap(),
                )
                .await
            };
            assert_eq!(rest.status, 200, "{kind:?} k={k}");
            let mut got = first
                .as_ref()
                .map(|f| values(&f.events))
                .unwrap_or_default();
            got.extend(values(&rest.events));
            assert_eq!(got, want, "{kind:?} k={k}: exactly once, in order");
            let ids: Vec<String> = first
                .iter()
                .flat_map(|f| f.ids.iter())
                .chain(&rest.ids)
                .map(|i| i.clone().unwrap())
                .collect();
            let want_ids: Vec<String> = (1..=total).map(|i| i.to_string()).collect();
            assert_eq!(ids, want_ids, "{kind:?} k={k}");
        }
    }
}

#[tokio::test]
async fn a_finished_run_replays_on_the_other_instance_within_retention_then_is_gone() {
    for kind in KINDS {
        let bounds = Bounds {
            retention: Some(Duration::from_millis(1500)),
            ..Bounds::default()
        };
        let p = pair(kind, bounds, Duration::ZERO, false).await;
        let whole = read(post(p.a.url(), &chat("run-replay")).send().await.unwrap()).await;
        let replay = read(get(p.b.events_url("run-replay")).send().await.unwrap()).await;
        assert_eq!(values(&replay.events), values(&whole.events), "{kind:?}");
        assert_eq!(replay.ids, whole.ids);
        let tail = read(
            get(p.b.events_url("run-replay"))
                .header("last-event-id", "20")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(
            values(&tail.events),
            values(&whole.events[20..]),
            "{kind:?}"
        );
        let n = whole.events.len().to_string();
        let none = read(
            get(p.b.events_url("run-replay"))
                .header("last-event-id", n)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(none.status, 200, "{kind:?}");
        assert!(none.events.is_empty(), "{kind:?}: joined at its end");

        tokio::time::sleep(Duration::from_millis(1700)).await;
        let gone = read(get(p.b.events_url("run-replay")).send().await.unwrap()).await;
        assert_eq!(gone.status, 404, "{kind:?}");
        assert_eq!(gone.headers["content-type"], "application/json");
        assert_eq!(gone.json()["error"], "run_not_found");
        let unknown = read(get(p.a.events_url("never")).send().await.unwrap()).await;
        assert_eq!(unknown.status, 404);
    }
}

#[tokio::test]
async fn a_join_from_before_the_kept_events_is_refused_with_410() {
    for kind in KINDS {
        let bounds = Bounds {
            max_events: Some(5),
            ..Bounds::default()
        };
        // Paced, so that every event is a batch of its own and trimming is exact.
        let p = pair(kind, bounds, Duration::from_millis(3), false).await;
        let whole = read(post(p.a.url(), &chat("run-trim")).send().await.unwrap()).await;
        let n = whole.events.len();
        let old = read(get(p.b.events_url("run-trim")).send().await.unwrap()).await;
        assert_eq!(old.status, 410, "{kind:?}");
        assert_eq!(old.json()["error"], "cursor_expired");
        let recent = read(
            get(p.b.events_url("run-trim"))
                .header("last-event-id", (n - 5).to_string())
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(recent.status, 200, "{kind:?}");
        assert_eq!(values(&recent.events), values(&whole.events[n - 5..]));
    }
}

#[tokio::test]
async fn bad_joins_are_refused_with_json() {
    for kind in KINDS {
        let p = pair(kind, Bounds::default(), Duration::ZERO, false).await;
        read(post(p.a.url(), &chat("run-bad")).send().await.unwrap()).await;
        let bad = read(
            get(p.b.events_url("run-bad"))
                .header("last-event-id", "x1")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(bad.status, 400, "{kind:?}");
        assert_eq!(bad.json()["error"], "invalid_cursor");
        let again = read(post(p.b.url(), &chat("run-bad")).send().await.unwrap()).await;
        assert_eq!(
            again.status, 409,
            "{kind:?}: a run id is used once, on every instance"
        );
        assert_eq!(again.json()["error"], "run_exists");
    }
}

#[tokio::test]
async fn a_join_a_stop_and_a_thread_connect_are_authorised_as_the_start_was() {
    for kind in KINDS {
        let p = pair(kind, Bounds::default(), Duration::ZERO, true).await;
        let whole = read(
            post(p.a.url(), &chat("run-auth"))
                .header("x-user", "alice")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(whole.status, 200);
        let as_bob = read(
            get(p.b.events_url("run-auth"))
                .header("x-user", "bob")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(
            as_bob.status, 404,
            "{kind:?}: another principal sees no run"
        );
        let nobody = read(get(p.b.events_url("run-auth")).send().await.unwrap()).await;
        assert_eq!(nobody.status, 401, "{kind:?}");
        let as_alice = read(
            get(p.b.events_url("run-auth"))
                .header("x-user", "alice")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(values(&as_alice.events), values(&whole.events), "{kind:?}");
        let stop = client()
            .post(format!("{}runs/run-auth/stop", p.b.url()))
            .header("x-user", "bob")
            .send()
            .await
            .unwrap();
        assert_eq!(stop.status(), 404, "{kind:?}");
        let thread = read(
            get(format!("{}threads/thread-1", p.b.url()))
                .header("x-user", "bob")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(thread.status, 404, "{kind:?}");
        let thread = read(
            get(format!("{}threads/thread-1", p.b.url()))
                .header("x-user", "alice")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(thread.status, 200, "{kind:?}");
    }
}

#[tokio::test]
async fn a_stop_on_the_other_instance_ends_the_run_cancelled_for_every_subscriber() {
    for kind in KINDS {
        let p = pair(kind, Bounds::default(), Duration::ZERO, false).await;
        let mut started =
            Open::start(post(p.a.url(), &slow("run-stop")).send().await.unwrap()).await;
        loop {
            if let Some(ag_ui_core::Event::TextMessageContent(_)) = started.next().await {
                break;
            }
        }
        let mut joined = Open::start(get(p.b.events_url("run-stop")).send().await.unwrap()).await;
        assert!(matches!(
            joined.next().await,
            Some(ag_ui_core::Event::RunStarted(_))
        ));
        let asked = Instant::now();
        let stop = client()
            .post(format!("{}runs/run-stop/stop", p.b.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(stop.status(), 202, "{kind:?}");
        let doc: Value = serde_json::from_slice(&stop.bytes().await.unwrap()).unwrap();
        assert_eq!(doc, json!({"runId": "run-stop", "status": "stopping"}));
        let rest = started.rest().await;
        assert!(
            asked.elapsed() < Duration::from_secs(1),
            "{kind:?}: stopped in {:?}",
            asked.elapsed()
        );
        let cancelled =
            json!({"type": "RUN_FINISHED", "outcome": {"type": "cancelled"}, "code": null});
        assert_eq!(outcome(&rest), cancelled, "{kind:?}");
        assert_eq!(outcome(&joined.rest().await), cancelled, "{kind:?}");
        let again = client()
            .post(format!("{}runs/run-stop/stop", p.a.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 200);
        let doc: Value = serde_json::from_slice(&again.bytes().await.unwrap()).unwrap();
        assert_eq!(doc["status"], "ended");
        let unknown = client()
            .post(format!("{}runs/nope/stop", p.b.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(unknown.status(), 404);
    }
}

#[tokio::test]
async fn a_thread_connect_on_the_other_instance_during_and_after_a_run() {
    for kind in KINDS {
        let p = pair(kind, Bounds::default(), Duration::from_millis(15), false).await;
        let mut started = Open::start(post(p.a.url(), &chat("run-t")).send().await.unwrap()).await;
        let mut seen = Vec::new();
        for _ in 0..5 {
            seen.push(started.next().await.unwrap());
        }
        // A few checkpoints of the run have been written.
        tokio::time::sleep(CHECKPOINT * 2).await;
        let during = read(
            get(format!("{}threads/thread-1", p.b.url()))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(during.status, 200, "{kind:?}");
        let types: Vec<&str> = during
            .events
            .iter()
            .map(|e| e.event_type().as_str())
            .collect();
        assert_eq!(
            types[..4],
            [
                "RUN_STARTED",
                "MESSAGES_SNAPSHOT",
                "STATE_SNAPSHOT",
                "RUN_FINISHED"
            ],
            "{kind:?}"
        );
        seen.extend(started.rest().await);
        // Then the whole active run, from its RUN_STARTED to its end.
        assert_eq!(values(&during.events[4..]), values(&seen), "{kind:?}");
        let snapshot = values(&during.events[1..2]).remove(0);
        assert_eq!(
            snapshot["messages"],
            json!([{"id": "u1", "role": "user", "content": "What is the weather?"}])
        );

        // The owner writes the folded thread just after the run's last event: a connect
        // right after the end may still replay the ended run (which folds to the same
        // thread); within a moment it is the folded thread alone.
        let deadline = Instant::now() + Duration::from_secs(5);
        let after = loop {
            let after = read(
                get(format!("{}threads/thread-1", p.b.url()))
                    .send()
                    .await
                    .unwrap(),
            )
            .await;
            if after.events.len() == 4 || Instant::now() > deadline {
                break after;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert_eq!(after.events.len(), 4, "{kind:?}: the folded thread alone");
        let messages = values(&after.events[1..2]).remove(0)["messages"].clone();
        let n = messages.as_array().unwrap().len();
        assert!(
            n > 2,
            "{kind:?}: the run's messages were folded in: {messages}"
        );
        let state = values(&after.events[2..3]).remove(0)["snapshot"].clone();
        assert_ne!(state, json!({}), "{kind:?}: the run's state was folded in");
        let unknown = read(
            get(format!("{}threads/nope", p.b.url()))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(unknown.status, 404);
        assert_eq!(unknown.json()["error"], "thread_not_found");
    }
}
