//! Three `serve_redis` processes on one Redis, many clients starting runs, cutting them
//! and rejoining on other instances, while the faults of a bad night happen: an owner
//! SIGKILLed (and restarted), Redis paused past the lease, Redis killed and restarted
//! empty. Every run's stream, put together across its cuts, must have no gap, no
//! duplicate, no reordering, exactly one terminal event, and an end that one of the faults
//! explains (`run_orphaned` only for runs whose owner was killed, `store_lost` /
//! `store_error` / a 404 only for runs that met the Redis restart; never an orphan from the
//! pause).
//!
//! About 45 s with the defaults; `AG_UI_SOAK_CLIENTS=200 AG_UI_SOAK_ROUNDS=5` makes it a
//! longer trial (each round is one pass through the faults).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ag_ui_core::SseReader;
use futures_util::StreamExt;
use serde_json::Value;

use crate::support::{RedisServer, ServeProcess, chat, client, on_thread, serve_process};

/// The lease the instances run with; the pause is longer.
const LEASE_MS: u64 = 2000;

/// What went wrong when, by the test's clock.
#[derive(Default)]
struct Faults {
    /// (instance, killed at, restarted at).
    kills: Vec<(usize, Instant, Option<Instant>)>,
    /// (paused at, resumed at).
    pauses: Vec<(Instant, Option<Instant>)>,
    /// (killed at, restarted at): Redis restarted empty.
    restarts: Vec<(Instant, Option<Instant>)>,
}

fn overlaps(window: (Instant, Option<Instant>), from: Instant, to: Instant) -> bool {
    let end = window.1.unwrap_or(to);
    window.0 <= to && end >= from
}

impl Faults {
    fn owner_killed(&self, owner: usize, from: Instant, to: Instant) -> bool {
        self.kills
            .iter()
            .any(|&(i, a, b)| i == owner && overlaps((a, b), from, to))
    }

    fn redis_restarted(&self, from: Instant, to: Instant) -> bool {
        self.restarts.iter().any(|&w| overlaps(w, from, to))
    }

    /// Whether instance `i` was down, or Redis away, around a start sent at `sent` and
    /// refused at `refused` (a start may wait seconds on an instance or a Redis going away).
    fn refusal_explained(&self, i: usize, sent: Instant, refused: Instant) -> bool {
        let (from, to) = (
            sent - Duration::from_secs(1),
            refused + Duration::from_secs(1),
        );
        self.owner_killed(i, from, to)
            || self.redis_restarted(from, to)
            || self.pauses.iter().any(|&w| overlaps(w, from, to))
    }
}

/// A small deterministic generator (xorshift), one per client.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// How one run ended, as its client saw it.
#[derive(Debug)]
enum End {
    /// The stream's terminal event.
    Terminal(Value),
    /// A rejoin answered 404: the store no longer knows the run.
    Gone,
    /// The start was refused (an HTTP status, or no connection).
    Refused(String),
}

struct RunLog {
    run_id: String,
    owner: usize,
    started: Instant,
    ended: Instant,
    end: End,
    /// Every problem seen in the stream's ids and events.
    problems: Vec<String>,
    cuts: usize,
}

/// What one response gave: events in order with their ids, and whether it ended with its
/// terminal event or was cut.
struct Part {
    /// Each event with its SSE id (the last `id:` seen in this response; `None` before
    /// the first).
    events: Vec<(Option<u64>, Value)>,
    cut: bool,
}

/// Reads `response` until its end, or until `stop_after` events (then cuts it).
async fn read_part(response: reqwest::Response, stop_after: Option<usize>) -> Part {
    let mut body = response.bytes_stream();
    let mut reader = SseReader::new();
    let mut part = Part {
        events: Vec::new(),
        cut: false,
    };
    loop {
        while let Some(m) = reader.next_message() {
            let id = reader.last_event_id().and_then(|i| i.parse().ok());
            let v: Value = serde_json::from_str(&m).unwrap_or(Value::Null);
            part.events.push((id, v));
            if stop_after.is_some_and(|n| part.events.len() >= n) {
                part.cut = true;
                return part;
            }
        }
        match tokio::time::timeout(Duration::from_secs(15), body.next()).await {
            Ok(Some(Ok(chunk))) => {
                if reader.feed(&chunk).is_err() {
                    part.cut = true;
                    return part;
                }
            }
            // A connection lost or a stream ended: the caller decides what it means.
            Ok(Some(Err(_)) | None) => return part,
            Err(_) => {
                part.cut = true;
                return part;
            }
        }
    }
}

fn is_terminal(v: &Value) -> bool {
    matches!(v["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR"))
}

/// One run: started on a random live instance, cut at random, rejoined on others.
async fn one_run(
    run_id: String,
    urls: &[String],
    alive: &Arc<Mutex<Vec<bool>>>,
    rng: &mut Rng,
) -> RunLog {
    let http = client();
    let pick = |rng: &mut Rng, not: Option<usize>| -> usize {
        let live: Vec<usize> = {
            let alive = alive.lock().unwrap();
            (0..urls.len())
                .filter(|&i| alive[i] && Some(i) != not)
                .collect()
        };
        if live.is_empty() {
            not.map_or(0, |n| (n + 1) % urls.len())
        } else {
            live[rng.below(live.len() as u64) as usize]
        }
    };
    let owner = pick(rng, None);
    let started = Instant::now();
    let mut log = RunLog {
        run_id: run_id.clone(),
        owner,
        started,
        ended: started,
        end: End::Refused(String::new()),
        problems: Vec::new(),
        cuts: 0,
    };
    let response = http
        .post(urls[owner].clone())
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(&on_thread(chat(&run_id), &format!("t-{run_id}"))).unwrap())
        .send()
        .await;
    let response = match response {
        Ok(r) if r.status() == 200 => r,
        Ok(r) => {
            log.ended = Instant::now();
            log.end = End::Refused(format!("HTTP {}", r.status()));
            return log;
        }
        Err(e) => {
            log.ended = Instant::now();
            log.end = End::Refused(format!("no connection: {e}"));
            return log;
        }
    };
    let mut last = 0u64;
    let mut terminal: Option<Value> = None;
    let mut on = owner;
    let mut part = read_part(response, cut_point(rng)).await;
    loop {
        for (id, event) in part.events.drain(..) {
            if terminal.is_some() {
                log.problems
                    .push(format!("an event after the terminal: {event}"));
            }
            // A subscriber's own end has no id of its own: it repeats the last one, or has
            // none when it is the first frame of a rejoin.
            let synthesized = id.is_none_or(|id| id == last)
                && event["type"] == "RUN_ERROR"
                && matches!(event["code"].as_str(), Some("store_lost" | "store_error"));
            if synthesized {
                // A subscriber's own end when the store failed under it: no log cursor.
                terminal = Some(event);
                continue;
            }
            if id != Some(last + 1) {
                log.problems.push(format!(
                    "id {id:?} after {last} (a gap, a repeat, a reorder or none)"
                ));
            }
            last = id.unwrap_or(last);
            if last == 1 && event["type"] != "RUN_STARTED" {
                log.problems.push(format!("the first event is {event}"));
            }
            if is_terminal(&event) {
                terminal = Some(event);
            }
        }
        if let Some(t) = terminal.take() {
            log.end = End::Terminal(t);
            break;
        }
        if !part.cut && alive.lock().unwrap()[on] {
            // Ended without its terminal event on an instance that was not killed: it
            // may have died since; rejoin, and let the faults judge it at the end.
            log.problems.push(format!(
                "a stream on instance {on} ended after id {last} without a terminal event"
            ));
        }
        if log.cuts >= 50 || started.elapsed() > Duration::from_secs(60) {
            log.problems.push("the run did not end".into());
            log.end = End::Refused("no end".into());
            break;
        }
        log.cuts += 1;
        // Rejoin elsewhere, from the last id seen.
        on = pick(rng, Some(on));
        let url = format!("{}runs/{run_id}/events", urls[on]);
        let response = http
            .get(url)
            .header("accept", "text/event-stream")
            .header("last-event-id", last.to_string())
            .send()
            .await;
        match response {
            Ok(r) if r.status() == 200 => {
                part = read_part(r, if log.cuts < 3 { cut_point(rng) } else { None }).await;
            }
            Ok(r) if r.status() == 404 => {
                log.end = End::Gone;
                break;
            }
            Ok(r) if r.status() == 410 => {
                log.problems.push("a rejoin got 410".into());
                log.end = End::Gone;
                break;
            }
            // 503 while Redis is away, or the instance is down: try again shortly.
            _ => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                part = Part {
                    events: Vec::new(),
                    cut: true,
                };
            }
        }
    }
    log.ended = Instant::now();
    log
}

/// Where to cut a response, if at all: half the responses are cut after 1 to 20 events.
fn cut_point(rng: &mut Rng) -> Option<usize> {
    (rng.below(2) == 0).then(|| 1 + rng.below(20) as usize)
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_under_faults_end_every_run_exactly_once() {
    let clients = env_number("AG_UI_SOAK_CLIENTS", 24);
    let rounds = env_number("AG_UI_SOAK_ROUNDS", 1);
    let mut redis = RedisServer::start();
    let lease = LEASE_MS.to_string();
    let args = [
        "--store",
        &redis.url(),
        "--lease-ms",
        &lease,
        "--pace-ms",
        "15",
    ];
    let mut instances: Vec<ServeProcess> = (0..3)
        .map(|_| serve_process("127.0.0.1:0", &args))
        .collect();
    let urls: Vec<String> = instances.iter().map(ServeProcess::url).collect();
    let alive = Arc::new(Mutex::new(vec![true; 3]));
    let faults = Arc::new(Mutex::new(Faults::default()));
    let running = Arc::new(std::sync::atomic::AtomicBool::new(true));

    let mut tasks = Vec::new();
    for c in 0..clients {
        let urls = urls.clone();
        let alive = Arc::clone(&alive);
        let running = Arc::clone(&running);
        tasks.push(tokio::spawn(async move {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (c + 1).wrapping_mul(0x2545_F491_4F6C_DD1D));
            let mut logs = Vec::new();
            let mut n = 0;
            while running.load(std::sync::atomic::Ordering::Relaxed) {
                n += 1;
                let run_id = format!("soak-{c}-{n}");
                logs.push(one_run(run_id, &urls, &alive, &mut rng).await);
            }
            logs
        }));
    }

    let at = |s: u64| Duration::from_secs(s);
    for _ in 0..rounds {
        tokio::time::sleep(at(5)).await;
        // An owner dies (SIGKILL) and comes back.
        alive.lock().unwrap()[0] = false;
        instances[0].kill();
        faults.lock().unwrap().kills.push((0, Instant::now(), None));
        tokio::time::sleep(at(3)).await;
        instances[0].restart();
        alive.lock().unwrap()[0] = true;
        if let Some(k) = faults.lock().unwrap().kills.last_mut() {
            k.2 = Some(Instant::now());
        }
        tokio::time::sleep(at(4)).await;
        // Redis pauses past the lease.
        redis.pause();
        faults.lock().unwrap().pauses.push((Instant::now(), None));
        tokio::time::sleep(Duration::from_millis(LEASE_MS + 1000)).await;
        redis.unpause();
        if let Some(p) = faults.lock().unwrap().pauses.last_mut() {
            p.1 = Some(Instant::now());
        }
        tokio::time::sleep(at(6)).await;
        // Redis dies and comes back empty.
        redis.kill();
        faults.lock().unwrap().restarts.push((Instant::now(), None));
        tokio::time::sleep(at(2)).await;
        redis.resume();
        if let Some(r) = faults.lock().unwrap().restarts.last_mut() {
            r.1 = Some(Instant::now());
        }
        tokio::time::sleep(at(6)).await;
    }
    running.store(false, std::sync::atomic::Ordering::Relaxed);
    let mut logs = Vec::new();
    for t in tasks {
        logs.extend(
            tokio::time::timeout(at(90), t)
                .await
                .expect("a client did not finish")
                .unwrap(),
        );
    }
    drop(instances);

    let faults = faults.lock().unwrap();
    let mut failures = Vec::new();
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    let mut cuts = 0;
    for log in &logs {
        cuts += log.cuts;
        let (kind, explained) = match &log.end {
            End::Terminal(t) if t["type"] == "RUN_FINISHED" => {
                let ok = t["outcome"].is_null() || t["outcome"]["type"] == "success";
                ("finished".to_owned(), ok)
            }
            End::Terminal(t) => {
                let code = t["code"].as_str().unwrap_or("").to_owned();
                let ok = match code.as_str() {
                    "run_orphaned" => faults.owner_killed(log.owner, log.started, log.ended),
                    "store_lost" | "store_error" => faults.redis_restarted(log.started, log.ended),
                    _ => false,
                };
                (format!("RUN_ERROR {code}"), ok)
            }
            End::Gone => (
                "gone (404)".to_owned(),
                faults.redis_restarted(log.started, log.ended),
            ),
            End::Refused(why) => (
                "refused at start".to_owned(),
                faults.refusal_explained(log.owner, log.started, log.ended) && !why.is_empty(),
            ),
        };
        *counts.entry(kind.clone()).or_default() += 1;
        // A stream that ended early on an instance that was killed around then is
        // explained by the kill.
        let problems: Vec<&String> = log
            .problems
            .iter()
            .filter(|p| {
                !(p.contains("without a terminal event")
                    && faults
                        .kills
                        .iter()
                        .any(|&(_, a, b)| overlaps((a, b), log.started, log.ended)))
            })
            .collect();
        if !explained || !problems.is_empty() {
            failures.push(format!(
                "{} (owner {}, {:?} after the start): {kind}, {problems:?}",
                log.run_id,
                log.owner,
                log.ended - log.started
            ));
        }
    }
    println!("{} runs, {cuts} cuts and rejoins: {counts:?}", logs.len());
    assert!(
        counts.get("finished").copied().unwrap_or(0) > logs.len() / 2,
        "too few runs finished: {counts:?}"
    );
    assert!(
        failures.is_empty(),
        "{} of {} runs ended wrong:\n{}",
        failures.len(),
        logs.len(),
        failures.join("\n")
    );
}
