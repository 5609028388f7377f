//! One running run per thread on Redis, and each thread's feed of runs.

use std::time::Duration;

use ag_ui_server::runs::{RunMeta, RunStore, StoreError, ThreadRunStream};
use futures_util::StreamExt;

use crate::support::RedisServer;

fn on(run: &str, thread: &str, principal: Option<&str>) -> RunMeta {
    RunMeta::new(run, thread, principal.map(str::to_owned), "me")
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
async fn a_thread_has_one_running_run_and_its_end_frees_it() {
    let redis = RedisServer::start();
    let store = redis.store(|c| c).await;
    let other = redis.store(|c| c).await;
    store.create_run(on("r1", "t:1", None)).await.unwrap();
    match store.create_run(on("r2", "t:1", None)).await {
        Err(StoreError::ThreadBusy { thread_id, run_id }) => {
            assert_eq!((thread_id.as_str(), run_id.as_str()), ("t:1", "r1"));
        }
        other => panic!("{other:?}"),
    }
    // The refused run left nothing behind.
    assert!(store.run("r2").await.unwrap().is_none());
    // Another principal's thread of the same id, and another thread, are free.
    store
        .create_run(on("r3", "t:1", Some("bob")))
        .await
        .unwrap();
    store.create_run(on("r4", "t", None)).await.unwrap();
    assert_eq!(
        other.thread_run(None, "t:1").await.unwrap().as_deref(),
        Some("r1")
    );
    store.end_run("r1", Vec::new()).await.unwrap();
    assert_eq!(other.thread_run(None, "t:1").await.unwrap(), None);
    store.create_run(on("r2", "t:1", None)).await.unwrap();
    assert!(matches!(
        store.create_run(on("r5", "t:1", Some("bob"))).await,
        Err(StoreError::ThreadBusy { .. })
    ));
    // A second instance sees the same claims.
    assert!(matches!(
        other.create_run(on("r6", "t:1", None)).await,
        Err(StoreError::ThreadBusy { .. })
    ));
    store.end_run("r2", Vec::new()).await.unwrap();
    other.create_run(on("r6", "t:1", None)).await.unwrap();
}

#[tokio::test]
async fn a_run_ended_as_orphaned_frees_its_thread() {
    let redis = RedisServer::start();
    let store = redis
        .store(|c| {
            c.lease(Duration::from_millis(300))
                .poll_interval(Duration::from_millis(50))
        })
        .await;
    store
        .create_run(RunMeta::new("ghost", "thread-1", None, "gone"))
        .await
        .unwrap();
    // The claim outlives any lease: only the orphan's end releases it.
    let mut raw = redis.raw().await;
    let claim = "ag-ui:thread:{n:thread-1}";
    let set: i64 = redis::cmd("PEXPIRE")
        .arg(claim)
        .arg(60_000)
        .query_async(&mut raw)
        .await
        .unwrap();
    assert_eq!(set, 1);
    assert!(matches!(
        store.create_run(on("next", "thread-1", None)).await,
        Err(StoreError::ThreadBusy { .. })
    ));
    // A subscriber watches the owner, finds it gone and ends the run.
    let tail = store.tail("ghost", 0).await.unwrap();
    let got: Vec<_> = tokio::time::timeout(Duration::from_secs(10), tail.collect::<Vec<_>>())
        .await
        .unwrap();
    assert_eq!(got.len(), 1, "the orphan's RUN_ERROR");
    let exists: i64 = redis::cmd("EXISTS")
        .arg(claim)
        .query_async(&mut raw)
        .await
        .unwrap();
    assert_eq!(exists, 0);
    store
        .create_run(on("next", "thread-1", None))
        .await
        .unwrap();
}

#[tokio::test]
async fn a_threads_feed_catches_up_from_its_cursor_then_follows_on_any_instance() {
    let redis = RedisServer::start();
    let store = redis
        .store(|c| c.poll_interval(Duration::from_millis(100)))
        .await;
    let other = redis.store(|c| c).await;
    for (i, run) in ["a", "b", "c"].iter().enumerate() {
        store.create_run(on(run, "t", Some("p"))).await.unwrap();
        store.end_run(run, Vec::new()).await.unwrap();
        for (x, thread, who) in [("x", "t", "q"), ("y", "u", "p")] {
            let id = format!("{x}{i}");
            store.create_run(on(&id, thread, Some(who))).await.unwrap();
            store.end_run(&id, Vec::new()).await.unwrap();
        }
    }
    assert_eq!(other.thread_seq(Some("p"), "t").await.unwrap(), 3);
    assert_eq!(other.thread_seq(None, "t").await.unwrap(), 0);
    let mut feed = other.thread_runs(Some("p"), "t", 1).await.unwrap();
    assert_eq!(next_run(&mut feed).await, (2, "b".to_owned()));
    assert_eq!(next_run(&mut feed).await, (3, "c".to_owned()));
    let pending = tokio::time::timeout(Duration::from_millis(300), feed.next()).await;
    assert!(pending.is_err(), "{pending:?}");
    store.create_run(on("d", "t", Some("p"))).await.unwrap();
    assert_eq!(next_run(&mut feed).await, (4, "d".to_owned()));
    let mut all = other.thread_runs(Some("p"), "t", 0).await.unwrap();
    assert_eq!(next_run(&mut all).await, (1, "a".to_owned()));
}

#[tokio::test]
async fn a_feed_cursor_older_than_the_kept_runs_is_refused() {
    let redis = RedisServer::start();
    let store = redis.store(|c| c).await;
    // Trimming is approximate (whole nodes of the stream): past 1000 by more than a node.
    let n = 1250u64;
    for i in 1..=n {
        let run = format!("r{i}");
        store.create_run(on(&run, "t", None)).await.unwrap();
        store.end_run(&run, Vec::new()).await.unwrap();
    }
    match store.thread_runs(None, "t", 1).await.map(|_| ()) {
        Err(StoreError::FeedExpired { after, oldest, .. }) => {
            assert_eq!(after, 1);
            assert!(oldest > 2 && oldest <= n - 999, "{oldest}");
        }
        other => panic!("{other:?}"),
    }
    let mut feed = store.thread_runs(None, "t", n - 2).await.unwrap();
    assert_eq!(next_run(&mut feed).await, (n - 1, format!("r{}", n - 1)));
}

#[tokio::test]
async fn a_feed_follower_rides_out_a_short_redis_outage() {
    let mut redis = RedisServer::start();
    let store = redis
        .store(|c| {
            c.lease(Duration::from_secs(3))
                .poll_interval(Duration::from_millis(100))
        })
        .await;
    let mut feed = store.thread_runs(None, "t", 0).await.unwrap();
    let next = tokio::spawn(async move { next_run(&mut feed).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    redis.kill();
    tokio::time::sleep(Duration::from_millis(500)).await;
    redis.resume();
    // The shared connection reconnects on its next commands.
    let mut created = Err(StoreError::NotFound(String::new()));
    for _ in 0..50 {
        created = store.create_run(on("r", "t", None)).await;
        if created.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    created.unwrap();
    let got = tokio::time::timeout(Duration::from_secs(10), next)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, (1, "r".to_owned()));
}

#[tokio::test]
async fn a_long_runs_claim_is_renewed_with_its_lease() {
    use ag_ui_server::AgentService;
    use ag_ui_server::demo::DemoAgent;

    use crate::support::{Open, client, post, serve, slow};

    let redis = RedisServer::start();
    let store = redis.store(|c| c.lease(Duration::from_millis(300))).await;
    let server = serve(AgentService::new(DemoAgent::new()).runs(store.runs())).await;
    let mut running =
        Open::start(post(server.url(), &slow("run-long")).send().await.unwrap()).await;
    running.next().await.unwrap();
    // Past the claim's own time-to-live (two leases), several times over.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let refused = post(server.url(), &slow("run-next")).send().await.unwrap();
    assert_eq!(refused.status(), 409);
    let stop = client()
        .post(format!("{}runs/run-long/stop", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(stop.status(), 202);
    running.rest().await;
    let next = post(server.url(), &crate::support::chat("run-next"))
        .send()
        .await
        .unwrap();
    assert_eq!(next.status(), 200);
}
