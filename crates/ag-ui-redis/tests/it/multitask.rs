//! Two instances sharing a store (memory in this process, or one Redis): starts racing for
//! one thread on both obey the multitask policy, and a follower on one instance sees the
//! runs started on either, across a reconnect to the other.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::both::{Bounds, KINDS, pair};
use crate::support::{client, get, input, post, read};

fn body(run: &str, scenario: &str, thread: &str) -> Value {
    let mut b = input(run, json!({"scenario": scenario}));
    b["threadId"] = json!(thread);
    b
}

/// The events of a response as JSON, with when the first and the last came.
async fn timed(response: reqwest::Response) -> (u16, Vec<Value>, Instant, Instant) {
    let status = response.status().as_u16();
    let r = read(response).await;
    let last = Instant::now();
    let events = crate::support::values(&r.events);
    (status, events, last, last)
}

async fn stop(url: &str, run: &str) {
    let r = client()
        .post(format!("{url}runs/{run}/stop"))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
}

#[tokio::test]
async fn reject_refuses_exactly_one_of_two_starts_racing_on_two_instances() {
    for kind in KINDS {
        let p = pair(kind, Bounds::default(), Duration::ZERO, false).await;
        let (a, b) = tokio::join!(
            post(p.a.url(), &body("run-a", "slow", "t-reject")).send(),
            post(p.b.url(), &body("run-b", "slow", "t-reject")).send()
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        let mut statuses = [a.status().as_u16(), b.status().as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 409], "{kind:?}");
        let (winner, refused, run, url) = if a.status() == 200 {
            (a, b, "run-a", p.a.url())
        } else {
            (b, a, "run-b", p.b.url())
        };
        let doc: Value = serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
        assert_eq!(doc["code"], "thread_busy", "{kind:?}");
        stop(&url, run).await;
        let (_, events, _, _) = timed(winner).await;
        assert_eq!(events.last().unwrap()["outcome"]["type"], "cancelled");
    }
}

#[tokio::test]
async fn enqueue_runs_both_starts_racing_on_two_instances_one_after_the_other() {
    for kind in KINDS {
        let p = pair(kind, Bounds::default(), Duration::from_millis(30), false).await;
        let q = |url: String| format!("{url}?multitask=enqueue");
        let (a, b) = tokio::join!(
            async {
                let r = post(q(p.a.url()), &body("run-a", "chat", "t-enq"))
                    .send()
                    .await
                    .unwrap();
                let start = Instant::now();
                let (s, e, _, end) = timed(r).await;
                (s, e, start, end)
            },
            async {
                let r = post(q(p.b.url()), &body("run-b", "chat", "t-enq"))
                    .send()
                    .await
                    .unwrap();
                let start = Instant::now();
                let (s, e, _, end) = timed(r).await;
                (s, e, start, end)
            }
        );
        for (status, events, _, _) in [&a, &b] {
            assert_eq!(*status, 200, "{kind:?}");
            assert_eq!(events[0]["type"], "RUN_STARTED", "{kind:?}");
            assert_eq!(
                events.last().unwrap()["outcome"]["type"],
                "success",
                "{kind:?} {events:?}"
            );
        }
        // They did not overlap: one ended before the other's run could have ended.
        let (first_end, second_end) = if a.3 <= b.3 { (a.3, b.3) } else { (b.3, a.3) };
        assert!(
            second_end - first_end > Duration::from_millis(150),
            "{kind:?}: the two runs overlapped"
        );
    }
}

#[tokio::test]
async fn interrupt_ends_the_first_of_two_starts_racing_on_two_instances_cancelled() {
    for kind in KINDS {
        let p = pair(kind, Bounds::default(), Duration::ZERO, false).await;
        let q = |url: String| format!("{url}?multitask=interrupt");
        let (a, b) = tokio::join!(
            post(q(p.a.url()), &body("run-a", "slow", "t-int")).send(),
            post(q(p.b.url()), &body("run-b", "slow", "t-int")).send()
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
        let mut ta = tokio::spawn(timed(a));
        let mut tb = tokio::spawn(timed(b));
        let (first, other, other_run, other_url) = tokio::select! {
            r = &mut ta => (r.unwrap(), tb, "run-b", p.b.url()),
            r = &mut tb => (r.unwrap(), ta, "run-a", p.a.url()),
        };
        let events = first.1;
        assert_ne!(events[0]["runId"], other_run, "{kind:?}");
        assert_eq!(
            events.last().unwrap()["outcome"]["type"],
            "cancelled",
            "{kind:?} {events:?}"
        );
        stop(&other_url, other_run).await;
        let (_, events, _, _) = other.await.unwrap();
        assert_eq!(events[0]["type"], "RUN_STARTED");
        assert_eq!(events[0]["runId"], other_run);
    }
}

async fn follow(url: &str, thread: &str, last: Option<&str>) -> reqwest::Response {
    let mut r = get(format!("{url}threads/{thread}/events"));
    if let Some(id) = last {
        r = r.header("last-event-id", id);
    }
    r.send().await.unwrap()
}

#[tokio::test]
async fn a_follower_sees_the_runs_of_both_instances_across_a_reconnect_to_the_other() {
    for kind in KINDS {
        let p = pair(kind, Bounds::default(), Duration::from_millis(20), false).await;
        let thread = "t-follow";
        let mut reader = FollowReader::new(follow(&p.b.url(), thread, None).await);
        let a_url = p.a.url();
        let follower = tokio::spawn(async move {
            let mut got = Vec::new();
            let mut terminals = 0;
            let mut reconnected = false;
            while terminals < 3 {
                let (id, event): (String, Value) =
                    reader.next().await.expect("the follow stream ended");
                if matches!(event["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR")) {
                    terminals += 1;
                }
                got.push((id.clone(), event));
                if !reconnected && id == "2.3" {
                    // In the second run: back on the other instance with the last id.
                    reader = FollowReader::new(follow(&a_url, thread, Some(&id)).await);
                    reconnected = true;
                }
            }
            assert!(reconnected);
            got
        });
        // Three runs, one after the other, on A, B, A.
        let mut want = Vec::new();
        for (seq, url) in (1..).zip([p.a.url(), p.b.url(), p.a.url()]) {
            let run = format!("run-{seq}");
            let r = read(post(url, &body(&run, "chat", thread)).send().await.unwrap()).await;
            assert_eq!(r.status, 200, "{kind:?}");
            for (id, event) in r.ids.iter().zip(crate::support::values(&r.events)) {
                want.push((format!("{seq}.{}", id.as_deref().unwrap()), event));
            }
        }
        let got = tokio::time::timeout(crate::support::LIMIT, follower)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(got, want, "{kind:?}");
    }
}

/// A follow stream's events with their ids.
struct FollowReader {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    reader: ag_ui_core::SseReader,
}

impl FollowReader {
    fn new(response: reqwest::Response) -> Self {
        use futures_util::StreamExt;
        assert_eq!(response.status(), 200);
        FollowReader {
            body: response.bytes_stream().boxed(),
            reader: ag_ui_core::SseReader::new(),
        }
    }

    async fn next(&mut self) -> Option<(String, Value)> {
        use futures_util::StreamExt;
        loop {
            if let Some(m) = self.reader.next_message() {
                let id = self.reader.last_event_id().unwrap_or_default().to_owned();
                return Some((id, serde_json::from_str(&m).unwrap()));
            }
            match tokio::time::timeout(crate::support::LIMIT, self.body.next())
                .await
                .unwrap()
            {
                Some(Ok(chunk)) => self.reader.feed(&chunk).unwrap(),
                _ => return None,
            }
        }
    }
}
