//! Resumable runs (`ag_ui_server::runs`) over loopback: the run log, join by
//! `Last-Event-ID` and `?after=`, stop, the disconnect policy, thread connect, and the
//! workspace's client resuming a cut run by itself.
//!
//! Connections are cut by a loopback TCP proxy between client and server that closes the
//! connection in the middle of an SSE frame after a given number of frames.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ag_ui_core::{Event, RunAgentInput, SseReader};
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::runs::{DisconnectPolicy, MemoryLimits, MemoryStore, Runs};
use ag_ui_server::{Agent, AgentService, AgentStream, Cancellation, Rejection};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::support::{LIMIT, Server, client, input, serve, types, values};

/// The demo agent with resumable runs in memory, with `runs` adjusted by `f`.
async fn resumable(f: impl FnOnce(Runs) -> Runs) -> Server {
    serve(AgentService::new(DemoAgent::new()).runs(f(Runs::in_memory()))).await
}

/// The demo agent without runs (the reference: what a direct response carries).
async fn direct() -> Server {
    serve(AgentService::new(DemoAgent::new())).await
}

fn chat(run: &str) -> Value {
    input(run, json!({"scenario": "chat"}))
}

fn slow(run: &str) -> Value {
    input(run, json!({"scenario": "slow"}))
}

/// A stream's events with the SSE id in force for each, read until the end or a cut.
struct Read {
    events: Vec<Event>,
    ids: Vec<Option<String>>,
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
    /// The body ended with an error (a cut connection) rather than cleanly.
    cut: bool,
}

impl Read {
    fn last_id(&self) -> Option<&str> {
        self.ids.last().and_then(|i| i.as_deref())
    }
}

async fn read(response: reqwest::Response) -> Read {
    read_until(response, usize::MAX).await
}

/// Reads up to `max` events, then drops the response (closing the connection).
async fn read_until(response: reqwest::Response, max: usize) -> Read {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let mut body = response.bytes_stream();
    let mut reader = SseReader::new();
    let mut out = Read {
        events: Vec::new(),
        ids: Vec::new(),
        status,
        headers,
        body: Vec::new(),
        cut: false,
    };
    loop {
        while let Some(m) = reader.next_message() {
            if status != 200 {
                continue;
            }
            out.events.push(ag_ui_core::read::from_str(&m).unwrap());
            out.ids.push(reader.last_event_id().map(str::to_owned));
            if out.events.len() >= max {
                return out;
            }
        }
        match tokio::time::timeout(LIMIT, body.next())
            .await
            .expect("stream stalled")
        {
            Some(Ok(chunk)) => {
                out.body.extend_from_slice(&chunk);
                reader.feed(&chunk).unwrap();
            }
            Some(Err(_)) => {
                out.cut = true;
                return out;
            }
            None => return out,
        }
    }
}

fn get(url: String) -> reqwest::RequestBuilder {
    client().get(url).header("accept", "text/event-stream")
}

fn post(url: String, body: &Value) -> reqwest::RequestBuilder {
    client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(body).unwrap())
}

fn events_url(server: &Server, run: &str) -> String {
    format!("{}runs/{run}/events", server.url())
}

/// The events of `body` run on a server without runs: what every resumable run of it
/// must deliver, exactly.
async fn reference(body: &Value) -> Vec<Value> {
    let server = direct().await;
    let r = read(post(server.url(), body).send().await.unwrap()).await;
    assert!(r.ids.iter().all(Option::is_none), "a plain run has no ids");
    values(&r.events)
}

/// A loopback TCP proxy to `upstream` that, on each connection, forwards the response
/// until `frames(connection)` SSE frames went through and then cuts the connection in
/// the middle of the next frame (`None`: never cuts).
struct CutProxy {
    addr: SocketAddr,
    /// Connections accepted so far.
    connections: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for CutProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl CutProxy {
    async fn start(
        upstream: SocketAddr,
        frames: impl Fn(usize) -> Option<usize> + Send + Sync + 'static,
    ) -> CutProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let connections = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&connections);
        let frames = Arc::new(frames);
        let task = tokio::spawn(async move {
            loop {
                let Ok((down, _)) = listener.accept().await else {
                    return;
                };
                let n = count.fetch_add(1, Ordering::SeqCst);
                let cut = frames(n);
                tokio::spawn(pipe(down, upstream, cut));
            }
        });
        CutProxy {
            addr,
            connections,
            task,
        }
    }

    fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

/// Forwards one connection, cutting the response `cut` frames in (mid-frame); with
/// `STALL` set, the connection is held open silently instead of closed at the cut.
async fn pipe(down: TcpStream, upstream: SocketAddr, cut: Option<usize>) {
    let stall = cut.is_some_and(|c| c & STALL != 0);
    let cut = cut.map(|c| c & !STALL);
    let Ok(up) = TcpStream::connect(upstream).await else {
        return;
    };
    let (mut down_r, mut down_w) = down.into_split();
    let (mut up_r, mut up_w) = up.into_split();
    let requests = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut down_r, &mut up_w).await;
    });
    let mut seen: Vec<u8> = Vec::new();
    let mut sent = 0usize;
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match up_r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        seen.extend_from_slice(&buf[..n]);
        // The cut: 10 bytes into the data line of frame `cut` (0-based).
        let cut_at = cut.and_then(|k| {
            let starts: Vec<usize> = seen
                .windows(6)
                .enumerate()
                .filter(|(_, w)| *w == b"data: ")
                .map(|(i, _)| i)
                .collect();
            starts.get(k).map(|s| s + 10).filter(|&c| c <= seen.len())
        });
        let end = cut_at.unwrap_or(seen.len());
        if down_w.write_all(&seen[sent..end]).await.is_err() {
            break;
        }
        sent = end;
        if cut_at.is_some() {
            break;
        }
    }
    if stall {
        // Nothing more, and no close: only the client's idle timeout notices.
        tokio::time::sleep(LIMIT).await;
    }
    requests.abort();
    // Dropping both halves closes the connections: the client sees its body cut.
}

/// Or'ed into a cut position: stall there instead of closing.
const STALL: usize = 1 << 40;

#[tokio::test]
async fn frames_carry_cursors_and_the_response_says_where_to_join() {
    let server = resumable(|r| r).await;
    let body = chat("run-ids");
    let r = read(post(server.url(), &body).send().await.unwrap()).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "text/event-stream");
    assert_eq!(r.headers["content-location"], "/runs/run-ids/events");
    let want: Vec<Option<String>> = (1..=r.events.len()).map(|i| Some(i.to_string())).collect();
    assert_eq!(r.ids, want, "every frame's id is its cursor");
    assert_eq!(values(&r.events), reference(&body).await);
    let raw = String::from_utf8(r.body).unwrap();
    assert!(
        raw.starts_with("id: 1\ndata: {\"type\":\"RUN_STARTED\""),
        "{raw}"
    );
}

#[tokio::test]
async fn a_cut_at_every_event_index_then_a_join_yields_exactly_the_uncut_run() {
    let server = resumable(|r| r).await;
    let probe = reference(&chat("run-cut-0")).await;
    let total = probe.len();
    assert!(total > 20, "the chat run has {total} events");
    for k in 0..total {
        let run = format!("run-cut-{k}");
        let body = chat(&run);
        let want = reference(&body).await;
        // Cut in the middle of frame k: events 0..k arrived whole.
        let proxy = CutProxy::start(server.addr, move |_| Some(k)).await;
        let first = read(post(proxy.url(), &body).send().await.unwrap()).await;
        assert!(
            first.cut || first.events.len() < total,
            "k={k}: the cut did not happen"
        );
        assert_eq!(first.events.len(), k, "k={k}: the events before the cut");
        let rest = if k % 2 == 0 {
            let mut req = get(events_url(&server, &run));
            if let Some(id) = first.last_id() {
                req = req.header("last-event-id", id);
            }
            read(req.send().await.unwrap()).await
        } else {
            let after = first.last_id().unwrap_or("0");
            read(
                get(format!("{}?after={after}", events_url(&server, &run)))
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        };
        assert_eq!(rest.status, 200, "k={k}");
        assert!(!rest.cut, "k={k}");
        let mut got = values(&first.events);
        got.extend(values(&rest.events));
        assert_eq!(got, want, "k={k}: the cut run and its join");
        let ids: Vec<String> = first
            .ids
            .iter()
            .chain(&rest.ids)
            .map(|i| i.clone().unwrap())
            .collect();
        let want_ids: Vec<String> = (1..=total).map(|i| i.to_string()).collect();
        assert_eq!(ids, want_ids, "k={k}");
    }
}

#[tokio::test]
async fn a_finished_run_replays_within_retention_and_is_gone_after_it() {
    let server = resumable(|r| {
        Runs::new(MemoryStore::with_limits(
            MemoryLimits::default().retention(Duration::from_secs(3)),
        ))
        .on_disconnect(r.disconnect_policy())
    })
    .await;
    let body = chat("run-replay");
    let whole = read(post(server.url(), &body).send().await.unwrap()).await;
    let replay = read(get(events_url(&server, "run-replay")).send().await.unwrap()).await;
    assert_eq!(values(&replay.events), values(&whole.events));
    assert_eq!(replay.ids, whole.ids);
    let tail = read(
        get(events_url(&server, "run-replay"))
            .header("last-event-id", "20")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(values(&tail.events), values(&whole.events[20..]));
    // Joined at its end: nothing more, and the stream ends.
    let n = whole.events.len().to_string();
    let none = read(
        get(events_url(&server, "run-replay"))
            .header("last-event-id", n)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(none.events.is_empty());

    // The retention is long enough for the joins above on a loaded machine.
    tokio::time::sleep(Duration::from_millis(3300)).await;
    let gone = get(events_url(&server, "run-replay")).send().await.unwrap();
    assert_eq!(gone.status(), 404);
    assert_eq!(gone.headers()["content-type"], "application/json");
    let doc: Value = gone
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap())
        .unwrap();
    assert_eq!(doc["error"], "run_not_found");
    assert_eq!(doc["status"], 404);
    let unknown = get(events_url(&server, "never")).send().await.unwrap();
    assert_eq!(unknown.status(), 404);
}

#[tokio::test]
async fn bad_joins_are_refused_with_json() {
    let server = resumable(|r| r).await;
    read(post(server.url(), &chat("run-bad")).send().await.unwrap()).await;
    let bad = get(events_url(&server, "run-bad"))
        .header("last-event-id", "x1")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    let doc: Value = bad
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap())
        .unwrap();
    assert_eq!(doc["error"], "invalid_cursor");
    let again = post(server.url(), &chat("run-bad")).send().await.unwrap();
    assert_eq!(again.status(), 409, "a run id is used once");
    let wrong = client()
        .post(events_url(&server, "run-bad"))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 405);
    assert_eq!(wrong.headers()["allow"], "GET");
    let json_only = client()
        .get(events_url(&server, "run-bad"))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(json_only.status(), 406);
}

/// A run's response read event by event, its body kept open.
struct Open {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    reader: SseReader,
}

impl Open {
    async fn start(response: reqwest::Response) -> Open {
        assert_eq!(response.status(), 200);
        Open {
            body: response.bytes_stream().boxed(),
            reader: SseReader::new(),
        }
    }

    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(m) = self.reader.next_message() {
                return Some(ag_ui_core::read::from_str(&m).unwrap());
            }
            match tokio::time::timeout(LIMIT, self.body.next())
                .await
                .expect("stalled")?
            {
                Ok(chunk) => self.reader.feed(&chunk).unwrap(),
                Err(_) => return None,
            }
        }
    }

    async fn rest(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        while let Some(e) = self.next().await {
            out.push(e);
        }
        out
    }
}

fn outcome(events: &[Event]) -> Value {
    let last = values(events).pop().unwrap_or(Value::Null);
    json!({"type": last["type"], "outcome": last["outcome"], "code": last["code"]})
}

#[tokio::test]
async fn a_stop_from_a_second_connection_ends_the_run_cancelled_for_every_subscriber() {
    let server = resumable(|r| r).await;
    let mut started =
        Open::start(post(server.url(), &slow("run-stop")).send().await.unwrap()).await;
    // Wait for the first text delta.
    loop {
        if let Some(Event::TextMessageContent(_)) = started.next().await {
            break;
        }
    }
    let mut joined = Open::start(get(events_url(&server, "run-stop")).send().await.unwrap()).await;
    assert_eq!(types(&[joined.next().await.unwrap()]), ["RUN_STARTED"]);
    let asked = Instant::now();
    let stop = client()
        .post(format!("{}runs/run-stop/stop", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(stop.status(), 202);
    let doc: Value = stop
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap())
        .unwrap();
    assert_eq!(doc, json!({"runId": "run-stop", "status": "stopping"}));
    let rest = started.rest().await;
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "stopped in {:?}",
        asked.elapsed()
    );
    assert_eq!(
        outcome(&rest),
        json!({"type": "RUN_FINISHED", "outcome": {"type": "cancelled"}, "code": null})
    );
    let joined_rest = joined.rest().await;
    assert_eq!(
        outcome(&joined_rest),
        outcome(&rest),
        "the joiner sees the same end"
    );
    // Stopping an ended run says so.
    let again = client()
        .post(format!("{}runs/run-stop/stop", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    assert_eq!(
        again
            .bytes()
            .await
            .map(|b| serde_json::from_slice::<Value>(&b).unwrap())
            .unwrap()["status"],
        "ended"
    );
    let unknown = client()
        .post(format!("{}runs/nope/stop", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
}

/// An agent that ignores its cancellation: a text delta every 50 ms for a minute.
struct Stubborn;

impl Agent for Stubborn {
    fn run(&self, input: RunAgentInput, _cancel: Cancellation) -> AgentStream {
        ag_ui_server::emit(
            ag_ui_builders::RunEmitter::start_for(&input),
            |mut run| async move {
                for i in 0..1200 {
                    run.emit(|r| r.text(format!("{i} "))).await?;
                    ag_ui_server::demo::sleep(Duration::from_millis(50)).await;
                }
                run.emit(|r| r.finish()).await
            },
        )
    }
}

#[tokio::test]
async fn an_agent_that_does_not_end_after_a_stop_gets_run_error() {
    let runs = Runs::in_memory().stop_timeout(Duration::from_millis(200));
    let server = serve(AgentService::new(Stubborn).runs(runs)).await;
    let mut started = Open::start(
        post(server.url(), &slow("run-stubborn"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    started.next().await.unwrap();
    let stop = client()
        .post(format!("{}runs/run-stubborn/stop", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(stop.status(), 202);
    let rest = started.rest().await;
    assert_eq!(outcome(&rest)["type"], "RUN_ERROR");
    assert_eq!(
        outcome(&rest)["code"],
        ag_ui_server::runs::CODE_STOP_TIMEOUT
    );
}

#[tokio::test]
async fn the_maximum_duration_cancels_the_run() {
    let runs = Runs::in_memory().max_duration(Duration::from_millis(300));
    let server = serve(AgentService::new(DemoAgent::new()).runs(runs)).await;
    let t = Instant::now();
    let r = read(post(server.url(), &slow("run-max")).send().await.unwrap()).await;
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(outcome(&r.events)["outcome"], json!({"type": "cancelled"}));
}

/// Starts a slow run with `policy`, reads its first events, drops the connection; returns
/// how the run ended (read by a join once the store says it has) and how long after the
/// drop it ended.
async fn slow_run_after_disconnect(policy: DisconnectPolicy, run: &str) -> (Value, Duration) {
    use ag_ui_server::runs::{RunPhase, RunStore};
    let store = MemoryStore::new();
    let runs = Runs::new(store.clone()).on_disconnect(policy);
    let server = serve(AgentService::new(DemoAgent::new()).runs(runs)).await;
    let first = read_until(post(server.url(), &slow(run)).send().await.unwrap(), 2).await;
    assert_eq!(first.events.len(), 2);
    let dropped = Instant::now();
    // Watched through the store: a join would be a subscriber.
    loop {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let meta = store.run(run).await.unwrap().unwrap();
        if meta.status == RunPhase::Ended {
            break;
        }
        assert!(dropped.elapsed() < LIMIT);
    }
    let ended = dropped.elapsed();
    let rest = read(
        get(events_url(&server, run))
            .header("last-event-id", "2")
            .send()
            .await
            .unwrap(),
    )
    .await;
    (outcome(&rest.events), ended)
}

#[tokio::test]
async fn the_disconnect_policy_decides_what_a_run_without_subscribers_does() {
    // Cancel: the agent is cancelled at once and ends its run as cancelled.
    let (end, after) = slow_run_after_disconnect(DisconnectPolicy::Cancel, "run-cancel").await;
    assert_eq!(end["outcome"], json!({"type": "cancelled"}), "{end}");
    assert!(after < Duration::from_millis(500), "{after:?}");

    // Grace: cancelled once the grace period passed without a subscriber.
    let (end, after) = slow_run_after_disconnect(
        DisconnectPolicy::Grace(Duration::from_millis(1500)),
        "run-grace",
    )
    .await;
    assert_eq!(end["outcome"], json!({"type": "cancelled"}), "{end}");
    assert!(
        after >= Duration::from_millis(1400) && after < Duration::from_millis(2500),
        "{after:?}"
    );
}

#[tokio::test]
async fn a_join_within_the_grace_period_keeps_the_run_going() {
    use ag_ui_server::runs::{RunPhase, RunStore};
    let store = MemoryStore::new();
    let runs =
        Runs::new(store.clone()).on_disconnect(DisconnectPolicy::Grace(Duration::from_millis(400)));
    let server = serve(AgentService::new(DemoAgent::new()).runs(runs)).await;
    let first = read_until(
        post(server.url(), &slow("run-rejoin"))
            .send()
            .await
            .unwrap(),
        2,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    let mut joined = Open::start(
        get(events_url(&server, "run-rejoin"))
            .header("last-event-id", first.last_id().unwrap())
            .send()
            .await
            .unwrap(),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(
        store.run("run-rejoin").await.unwrap().unwrap().status,
        RunPhase::Running
    );
    // The joiner gets the following seconds' text.
    let next = joined.next().await.unwrap();
    assert_eq!(types(&[next]), ["TEXT_MESSAGE_CONTENT"]);
}

#[tokio::test]
async fn with_continue_a_run_without_subscribers_runs_to_its_end() {
    let server = serve(
        AgentService::new(DemoAgent::with_pace(Duration::from_millis(20)))
            .runs(Runs::in_memory().on_disconnect(DisconnectPolicy::Continue)),
    )
    .await;
    let body = chat("run-continue");
    let first = read_until(post(server.url(), &body).send().await.unwrap(), 3).await;
    assert_eq!(first.events.len(), 3);
    // Joined later, from the last event read: the rest, to the run's success.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rest = read(
        get(events_url(&server, "run-continue"))
            .header("last-event-id", "3")
            .send()
            .await
            .unwrap(),
    )
    .await;
    let mut got = values(&first.events);
    got.extend(values(&rest.events));
    let want = reference(&body).await;
    assert_eq!(got, want);
}

#[tokio::test]
async fn a_join_is_authorised_as_a_start_is() {
    let runs = Runs::in_memory().authorize(|parts| match parts.headers.get("x-user") {
        Some(v) => Ok(Some(v.to_str().unwrap_or("?").to_owned())),
        None => Err(Rejection::new(401, "unauthorised", "send x-user")),
    });
    let server = serve(AgentService::new(DemoAgent::new()).runs(runs)).await;
    let refused = post(server.url(), &chat("run-auth")).send().await.unwrap();
    assert_eq!(refused.status(), 401);
    // A 401 without a challenge of its own gets `WWW-Authenticate: Bearer`.
    assert_eq!(refused.headers()["www-authenticate"], "Bearer");
    let r = read(
        post(server.url(), &chat("run-auth"))
            .header("x-user", "ann")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 200);
    let own = read(
        get(events_url(&server, "run-auth"))
            .header("x-user", "ann")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(values(&own.events), values(&r.events));
    let other = get(events_url(&server, "run-auth"))
        .header("x-user", "bob")
        .send()
        .await
        .unwrap();
    assert_eq!(
        other.status(),
        404,
        "another principal does not see the run"
    );
    let anonymous = get(events_url(&server, "run-auth")).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    let stop = client()
        .post(format!("{}runs/run-auth/stop", server.url()))
        .header("x-user", "bob")
        .send()
        .await
        .unwrap();
    assert_eq!(stop.status(), 404);
    let thread = get(format!("{}threads/thread-1", server.url()))
        .header("x-user", "bob")
        .send()
        .await
        .unwrap();
    assert_eq!(thread.status(), 404);
    let thread = get(format!("{}threads/thread-1", server.url()))
        .header("x-user", "ann")
        .send()
        .await
        .unwrap();
    assert_eq!(thread.status(), 200);
}

#[tokio::test]
async fn every_401_of_the_authorisation_carries_a_challenge_and_other_refusals_their_headers() {
    let runs = Runs::in_memory().authorize(|parts| {
        match parts.headers.get("x-user").and_then(|v| v.to_str().ok()) {
            Some("ann") => Ok(Some("ann".to_owned())),
            Some("basic") => Err(Rejection::unauthorized(
                r#"Basic realm="agents", charset="UTF-8""#,
            )),
            Some(_) => Err(Rejection::new(403, "forbidden", "not you")
                .with_header("x-reason", "banned")
                .with_header("retry-after", "60")),
            None => Err(Rejection::new(401, "unauthorised", "send x-user")),
        }
    });
    let server = serve(AgentService::new(DemoAgent::new()).runs(runs)).await;
    let r = read(
        post(server.url(), &chat("run-auth"))
            .header("x-user", "ann")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, 200);
    let url = server.url();
    // Start, join, stop, thread connect: each asks the authorisation.
    let routes = [
        (reqwest::Method::POST, url.clone()),
        (reqwest::Method::GET, events_url(&server, "run-auth")),
        (reqwest::Method::POST, format!("{url}runs/run-auth/stop")),
        (reqwest::Method::GET, format!("{url}threads/thread-1")),
    ];
    for (method, route) in routes {
        let send = |user: Option<&str>| {
            let mut request = client()
                .request(method.clone(), &route)
                .header("accept", "text/event-stream")
                .header("content-type", "application/json")
                .body(serde_json::to_vec(&chat("run-new")).unwrap());
            if let Some(u) = user {
                request = request.header("x-user", u);
            }
            request.send()
        };
        let anonymous = send(None).await.unwrap();
        assert_eq!(anonymous.status(), 401, "{method} {route}");
        let challenges: Vec<_> = anonymous
            .headers()
            .get_all("www-authenticate")
            .iter()
            .collect();
        assert_eq!(challenges, ["Bearer"], "{method} {route}");
        let doc: Value = serde_json::from_slice(&anonymous.bytes().await.unwrap()).unwrap();
        assert_eq!(
            doc,
            json!({"status": 401, "code": "unauthorised", "error": "unauthorised", "message": "send x-user"})
        );

        let basic = send(Some("basic")).await.unwrap();
        assert_eq!(basic.status(), 401);
        let challenges: Vec<_> = basic.headers().get_all("www-authenticate").iter().collect();
        assert_eq!(
            challenges,
            [r#"Basic realm="agents", charset="UTF-8""#],
            "{method} {route}"
        );
        let doc: Value = serde_json::from_slice(&basic.bytes().await.unwrap()).unwrap();
        assert_eq!(doc["code"], "unauthorized");

        let banned = send(Some("bob")).await.unwrap();
        assert_eq!(banned.status(), 403);
        assert!(banned.headers().get("www-authenticate").is_none());
        assert_eq!(banned.headers()["x-reason"], "banned");
        assert_eq!(banned.headers()["retry-after"], "60");
        assert_eq!(banned.headers()["content-type"], "application/json");
    }
}

#[tokio::test]
async fn capabilities_declare_resumable_only_with_a_store() {
    let caps = ag_ui_core::AgentCapabilities::new()
        .with_identity(ag_ui_core::IdentityCapabilities::new().with_name("demo"));
    let with = serve(
        AgentService::new(DemoAgent::new())
            .capabilities(caps.clone())
            .runs(Runs::in_memory()),
    )
    .await;
    let doc: Value = client()
        .get(format!("{}capabilities", with.url()))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap())
        .unwrap();
    assert_eq!(
        doc,
        json!({"identity": {"name": "demo"}, "transport": {"streaming": true, "resumable": true}})
    );
    let without = serve(AgentService::new(DemoAgent::new()).capabilities(caps)).await;
    let doc: Value = client()
        .get(format!("{}capabilities", without.url()))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap())
        .unwrap();
    assert_eq!(
        doc,
        json!({"identity": {"name": "demo"}, "transport": {"streaming": true}})
    );
    let none = direct().await;
    assert_eq!(
        client()
            .get(format!("{}capabilities", none.url()))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
}

// ---- The workspace's client (`HttpAgent`) against resumable runs ----

use ag_ui_client::{HttpAgent, RunEnd, RunItem, RunOptions, WarningSource};

fn agent(url: String, thread: &str) -> HttpAgent {
    let mut agent = sse_builder(url)
        .thread_id(thread)
        .idle_timeout(LIMIT)
        .resume_backoff(Duration::from_millis(5), Duration::from_millis(40))
        .build()
        .unwrap();
    agent.add_message(ag_ui_core::Message::User(ag_ui_core::UserMessage::new(
        "u1",
        "What is the weather?",
    )));
    agent
}

fn chat_options(run: &str) -> RunOptions {
    RunOptions::new()
        .run_id(run)
        .forwarded_props(json!({"scenario": "chat"}))
}

/// Every item of a run, its events as JSON, and its end.
async fn drain(mut run: ag_ui_client::HttpRun<'_>) -> (Vec<RunItem>, Vec<Value>, RunEnd) {
    let mut items = Vec::new();
    let mut events = Vec::new();
    loop {
        match tokio::time::timeout(LIMIT, run.next())
            .await
            .expect("the run stalled")
        {
            Some(RunItem::End(end)) => return (items, events, end),
            Some(item) => {
                if let Some(e) = item.event() {
                    events.push(serde_json::to_value(e).unwrap());
                }
                items.push(item);
            }
            None => panic!("the run ended without its end"),
        }
    }
}

fn json_of<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

/// The chat run through the workspace's client on a plain server: the delivered events
/// and the thread it leaves.
async fn client_reference(run: &str) -> (Vec<Value>, Value, Value) {
    let server = direct().await;
    let mut a = agent(server.url(), "thread-1");
    let (_, events, end) = drain(a.run(chat_options(run))).await;
    assert!(end.is_ok(), "{:?}", end.error);
    (events, json_of(&a.messages()), a.state().clone())
}

#[tokio::test]
async fn the_client_resumes_a_run_cut_every_few_events_without_gap_or_repeat() {
    let server = resumable(|r| r).await;
    for every in [1usize, 4, 9] {
        let run = format!("run-resume-{every}");
        let (want_events, want_messages, want_state) = client_reference(&run).await;
        let proxy = CutProxy::start(server.addr, move |_| Some(every)).await;
        let mut a = sse_builder(proxy.url())
            .thread_id("thread-1")
            .idle_timeout(LIMIT)
            .resume_attempts(3)
            .resume_backoff(Duration::from_millis(5), Duration::from_millis(40))
            .build()
            .unwrap();
        a.add_message(ag_ui_core::Message::User(ag_ui_core::UserMessage::new(
            "u1",
            "What is the weather?",
        )));
        let run_handle = a.run(chat_options(&run));
        let (items, events, end) = drain(run_handle).await;
        assert!(end.is_ok(), "every {every}: {:?}", end.error);
        assert_eq!(
            events, want_events,
            "every {every}: exactly the uncut events, in order"
        );
        assert_eq!(end.events, want_events.len());
        let reconnects: Vec<_> = items
            .iter()
            .filter_map(|i| match i {
                RunItem::Reconnecting(r) => Some(r.clone()),
                _ => None,
            })
            .collect();
        let expected =
            want_events.len().div_ceil(every) - usize::from(want_events.len() % every == 0);
        assert!(
            reconnects.len() >= expected.saturating_sub(1) && reconnects.len() <= expected + 1,
            "every {every}: {} reconnections for {} events",
            reconnects.len(),
            want_events.len()
        );
        assert!(
            reconnects.iter().all(|r| r.attempt == 1),
            "each reconnection got events"
        );
        assert_eq!(
            reconnects[0].last_event_id.as_deref(),
            Some(every.to_string().as_str())
        );
        let resume_warnings = end
            .warnings
            .iter()
            .filter(|w| w.source == WarningSource::Resume)
            .count();
        assert_eq!(resume_warnings, reconnects.len());
        assert_eq!(
            proxy.connections.load(Ordering::SeqCst),
            reconnects.len() + 1
        );
        assert_eq!(
            json_of(&a.messages()),
            want_messages,
            "every {every}: the thread"
        );
        assert_eq!(a.state(), &want_state);
    }
}

#[tokio::test]
async fn the_client_gives_up_after_its_attempts() {
    let server = resumable(|r| r).await;
    // Every connection is cut inside the first frame after the third one.
    let proxy = CutProxy::start(server.addr, |n| Some(if n == 0 { 3 } else { 0 })).await;
    let mut a = sse_builder(proxy.url())
        .thread_id("thread-1")
        .resume_attempts(2)
        .resume_backoff(Duration::from_millis(5), Duration::from_millis(10))
        .build()
        .unwrap();
    let (items, events, end) = drain(a.run(chat_options("run-give-up"))).await;
    assert_eq!(events.len(), 3);
    let attempts: Vec<u32> = items
        .iter()
        .filter_map(|i| match i {
            RunItem::Reconnecting(r) => Some(r.attempt),
            _ => None,
        })
        .collect();
    assert_eq!(attempts, [1, 2]);
    let error = end.error.expect("the run failed");
    assert_eq!(error.kind().as_str(), "transport", "{error}");
}

#[tokio::test]
async fn a_plain_server_is_never_retried() {
    let server = direct().await;
    let proxy = CutProxy::start(server.addr, |_| Some(3)).await;
    let mut a = agent(proxy.url(), "thread-1");
    let (items, events, end) = drain(a.run(chat_options("run-plain"))).await;
    assert_eq!(events.len(), 3);
    assert!(items.iter().all(|i| i.event().is_some()), "no reconnection");
    assert!(end.error.is_some());
    assert_eq!(proxy.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_client_joins_a_run_and_stops_one_from_another_connection() {
    let server = resumable(|r| r).await;
    let mut a = agent(server.url(), "thread-1");
    let (_, started, _) = drain(a.run(chat_options("run-join"))).await;
    let mut b = agent(server.url(), "thread-1");
    let (_, joined, end) = drain(b.join_run("run-join")).await;
    assert!(end.is_ok(), "{:?}", end.error);
    assert_eq!(joined, started);
    assert_eq!(json_of(&b.messages()), json_of(&a.messages()));

    let mut slow_agent = agent(server.url(), "thread-slow");
    let mut run = slow_agent.run(
        RunOptions::new()
            .run_id("run-slow-stop")
            .forwarded_props(json!({"scenario": "slow"})),
    );
    assert!(run.next().await.unwrap().event().is_some());
    let stopper = run.stopper().unwrap();
    assert!(run.is_resumable());
    let asked = Instant::now();
    assert!(stopper.stop().await.unwrap(), "it was running");
    let (_, _, end) = drain(run).await;
    assert!(asked.elapsed() < Duration::from_secs(1));
    assert_eq!(end.outcome, Some(ag_ui_client::RunOutcome::Cancelled));
    assert!(!stopper.stop().await.unwrap(), "it has ended");
    let unknown = slow_agent.stopper("nope").stop().await.unwrap_err();
    assert!(matches!(
        unknown,
        ag_ui_client::ClientError::HttpStatus { status: 404, .. }
    ));
}

#[tokio::test]
async fn thread_connect_during_and_after_a_run() {
    let server = serve(
        AgentService::new(DemoAgent::with_pace(Duration::from_millis(15))).runs(Runs::in_memory()),
    )
    .await;
    let mut a = agent(server.url(), "thread-c");
    let before = json_of(&a.messages());
    let mut run = a.run(chat_options("run-c"));
    for _ in 0..5 {
        run.next().await.unwrap();
    }
    // Connected mid-run: the thread before the run as snapshots, then the whole run.
    let mut b = sse_builder(server.url())
        .thread_id("thread-c")
        .build()
        .unwrap();
    let (_, during, end) = drain(b.connect_thread()).await;
    assert!(end.is_ok(), "{:?}", end.error);
    assert_eq!(
        during[..4]
            .iter()
            .map(|e| e["type"].clone())
            .collect::<Vec<_>>(),
        [
            "RUN_STARTED",
            "MESSAGES_SNAPSHOT",
            "STATE_SNAPSHOT",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(during[1]["messages"], before);
    assert_eq!(during[4]["type"], "RUN_STARTED");
    assert_eq!(during[4]["runId"], "run-c");
    let (_, rest, _) = drain(run).await;
    // What b saw of the active run is what a saw: from its RUN_STARTED to its end.
    assert_eq!(during.len() - 4, rest.len() + 5);
    assert_eq!(json_of(&b.messages()), json_of(&a.messages()));
    assert_eq!(b.state(), a.state());

    // After the run: the folded thread alone.
    let mut c = sse_builder(server.url())
        .thread_id("thread-c")
        .build()
        .unwrap();
    let (_, after, end) = drain(c.connect_thread()).await;
    assert!(end.is_ok());
    assert_eq!(after.len(), 4);
    assert_eq!(after[1]["messages"], json_of(&a.messages()));
    assert_eq!(after[2]["snapshot"], *a.state());
    assert_eq!(json_of(&c.messages()), json_of(&a.messages()));

    let unknown = get(format!("{}threads/nope", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let doc: Value = serde_json::from_slice(&unknown.bytes().await.unwrap()).unwrap();
    assert_eq!(doc["error"], "thread_not_found");
}

#[tokio::test]
async fn a_stalled_connection_is_resumed_after_the_idle_timeout() {
    let server = resumable(|r| r).await;
    let run = "run-stall";
    let (want, _, _) = client_reference(run).await;
    let proxy = CutProxy::start(server.addr, |n| (n == 0).then_some(6 | STALL)).await;
    let mut a = sse_builder(proxy.url())
        .thread_id("thread-1")
        .idle_timeout(Duration::from_millis(300))
        .resume_backoff(Duration::from_millis(5), Duration::from_millis(10))
        .build()
        .unwrap();
    a.add_message(ag_ui_core::Message::User(ag_ui_core::UserMessage::new(
        "u1",
        "What is the weather?",
    )));
    let (items, events, end) = drain(a.run(chat_options(run))).await;
    assert!(end.is_ok(), "{:?}", end.error);
    assert_eq!(events, want);
    let reasons: Vec<String> = items
        .iter()
        .filter_map(|i| match i {
            RunItem::Reconnecting(r) => Some(r.reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(reasons, ["nothing arrived for 300 ms"]);
}

#[tokio::test]
async fn nested_under_a_path_the_routes_and_the_location_follow_it() {
    let service = AgentService::new(DemoAgent::new()).runs(Runs::in_memory());
    let router = ::axum::Router::new().nest("/agent", ag_ui_server::axum::service_router(service));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task =
        tokio::spawn(async move { ag_ui_server::axum::serve(listener, router).await.unwrap() });
    let base = format!("http://{addr}/agent");
    let r = read(post(base.clone(), &chat("run-nest")).send().await.unwrap()).await;
    assert_eq!(r.headers["content-location"], "/agent/runs/run-nest/events");
    let joined = read(
        get(format!("http://{addr}/agent/runs/run-nest/events"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(values(&joined.events), values(&r.events));
    let thread = get(format!("{base}/threads/thread-1"))
        .send()
        .await
        .unwrap();
    assert_eq!(thread.status(), 200);
    // The workspace's client finds the routes below the agent URL too.
    let mut a = agent(base, "thread-1");
    let (_, events, end) = drain(a.join_run("run-nest")).await;
    assert!(end.is_ok(), "{:?}", end.error);
    assert_eq!(events.len(), r.events.len());
    task.abort();
}

#[tokio::test]
async fn the_stores_bounds_answer_503_and_410() {
    let store = MemoryStore::with_limits(MemoryLimits::default().max_runs(1).max_events_per_run(3));
    let server = serve(AgentService::new(DemoAgent::new()).runs(Runs::new(store))).await;
    let mut running =
        Open::start(post(server.url(), &slow("run-full")).send().await.unwrap()).await;
    running.next().await.unwrap();
    // On another thread: the running run's thread would refuse it as busy first.
    let mut more = chat("run-more");
    more["threadId"] = "thread-2".into();
    let refused = post(server.url(), &more).send().await.unwrap();
    assert_eq!(refused.status(), 503);
    let doc: Value = serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
    assert_eq!(doc["error"], "store_full");
    assert_eq!(doc["code"], "store_full");
    // The slow run has sent more than 3 events by now: the first ones are gone.
    tokio::time::sleep(Duration::from_millis(2200)).await;
    let old = get(events_url(&server, "run-full"))
        .header("last-event-id", "0")
        .send()
        .await
        .unwrap();
    assert_eq!(old.status(), 410);
    let doc: Value = serde_json::from_slice(&old.bytes().await.unwrap()).unwrap();
    assert_eq!(doc["error"], "cursor_expired");
    assert_eq!(doc["code"], "cursor_expired");
}

/// An agent whose run leaves in the thread more than messages of text and state: a
/// reasoning message, an activity, a tool call, and pending interrupts in its outcome.
fn rich_run(input: RunAgentInput, _cancel: Cancellation) -> AgentStream {
    let thread = input.thread_id.to_string();
    let run = input.run_id.to_string();
    let events: Vec<Value> = vec![
        json!({"type": "RUN_STARTED", "threadId": thread, "runId": run}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "Thinking."}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "r1"}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "PLAN",
               "content": {"steps": ["look", "ask"]}}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "transfer",
               "parentMessageId": "m1"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"amount\":5}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"step": 3}}),
        json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run,
               "outcome": {"type": "interrupt", "interrupts": [
                   {"id": "int-1", "reason": "tool_call", "toolCallId": "c1",
                    "message": "Approve the transfer?"}]}}),
    ];
    let events: Vec<Result<Event, ag_ui_core::BoxError>> = events
        .into_iter()
        .map(|e| Ok(serde_json::from_value(e).unwrap()))
        .collect();
    Box::pin(futures_util::stream::iter(events))
}

/// The thread a client connects to is the whole fold of the run: every message kind, the
/// state, and the run's outcome with its pending interrupts, as folding the run itself
/// gives.
#[tokio::test]
async fn a_connected_thread_keeps_every_event_effect_of_its_runs() {
    let server = serve(AgentService::new(rich_run).runs(Runs::in_memory())).await;
    let mut body = input("run-rich", json!({}));
    body["threadId"] = json!("thread-rich");
    let direct = read(post(server.url(), &body).send().await.unwrap()).await;
    let mut folded = ag_ui_core::ThreadState::new()
        .with_messages(serde_json::from_value(body["messages"].clone()).unwrap());
    for e in &direct.events {
        assert_eq!(folded.apply(e), vec![], "{e:?}");
    }
    assert_eq!(folded.pending_interrupts().len(), 1);

    let connected = read(
        get(format!("{}threads/thread-rich", server.url()))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(connected.status, 200);
    let seen = values(&connected.events);
    let kinds: Vec<&str> = seen.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "RUN_STARTED",
            "MESSAGES_SNAPSHOT",
            "STATE_SNAPSHOT",
            "RUN_FINISHED"
        ]
    );
    let roles: Vec<&str> = seen[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "reasoning", "activity", "assistant"]);
    assert_eq!(seen[2]["snapshot"], json!({"step": 3}));
    assert_eq!(seen[3]["outcome"]["type"], "interrupt");
    assert_eq!(seen[3]["outcome"]["interrupts"][0]["id"], "int-1");

    // Folding what the connection gives is folding the run itself.
    let mut resumed = ag_ui_core::ThreadState::new();
    for e in &connected.events {
        assert_eq!(resumed.apply(e), vec![], "{e:?}");
    }
    assert_eq!(json_of(&resumed.messages()), json_of(&folded.messages()));
    assert_eq!(resumed.state(), folded.state());
    assert_eq!(
        json_of(&resumed.pending_interrupts()),
        json_of(&folded.pending_interrupts())
    );
    assert_eq!(resumed.run_status(), folded.run_status());
}

/// A thread whose last run failed is connected to with that run's `RUN_ERROR` as its end.
#[tokio::test]
async fn a_connected_thread_ends_with_its_last_runs_error() {
    fn failing(input: RunAgentInput, _cancel: Cancellation) -> AgentStream {
        let events: Vec<Result<Event, ag_ui_core::BoxError>> = vec![
            Ok(
                ag_ui_core::RunStartedEvent::new(input.thread_id.clone(), input.run_id.clone())
                    .into(),
            ),
            Ok(ag_ui_core::StateSnapshotEvent::new(json!({"step": 1})).into()),
            Ok(ag_ui_core::RunErrorEvent::new("the model is gone")
                .with_code("model_gone".to_owned())
                .into()),
        ];
        Box::pin(futures_util::stream::iter(events))
    }
    let server = serve(AgentService::new(failing).runs(Runs::in_memory())).await;
    let mut body = input("run-fail", json!({}));
    body["threadId"] = json!("thread-fail");
    let direct = read(post(server.url(), &body).send().await.unwrap()).await;
    assert_eq!(values(&direct.events).last().unwrap()["type"], "RUN_ERROR");
    let connected = read(
        get(format!("{}threads/thread-fail", server.url()))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let seen = values(&connected.events);
    let kinds: Vec<&str> = seen.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "RUN_STARTED",
            "MESSAGES_SNAPSHOT",
            "STATE_SNAPSHOT",
            "RUN_ERROR"
        ]
    );
    assert_eq!(seen[2]["snapshot"], json!({"step": 1}));
    assert_eq!(seen[3]["code"], "model_gone");
}

/// A client asking for SSE alone: these tests cut the stream between SSE frames (with the
/// protobuf transport built in, a client would otherwise ask for it too).
fn sse_builder(url: impl Into<String>) -> ag_ui_client::HttpAgentBuilder {
    HttpAgent::builder(url).proto(false)
}
