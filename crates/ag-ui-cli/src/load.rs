//! `ag-ui load`: many runs against an agent at once, optionally cut and rejoined, followed
//! and stopped (the resumable-runs extension), with a report of rates, latencies, errors and
//! stream integrity.
//!
//! Every stream is read with [`ag_ui_core::SseReader`]; nothing of an event is kept but its
//! SSE id, the running hash of the events' data and a few counters, so a stream costs its
//! connection and its read buffer. Timings go to shared [`hist::Histogram`]s.

mod hist;
mod report;

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use tokio::time::timeout_at;

use crate::cli::LoadArgs;
use crate::exit::Exit;
use crate::input::refuse_non_http_url;
use hist::Histogram;

/// How many runs without `--runs` or `--duration`.
const DEFAULT_RUNS: u64 = 100;
/// How long a stream is read past its terminal event, to see whether another comes.
const AFTER_TERMINAL: Duration = Duration::from_secs(2);
/// How many integrity failures the report describes one by one.
const EXAMPLES: usize = 10;

/// What every run shares: the client, the request parts, the counters.
struct Shared {
    client: reqwest::Client,
    agent: String,
    /// Agent URLs rejoins and followers go to, round robin.
    rejoin: Vec<String>,
    next_rejoin: AtomicUsize,
    headers: HeaderMap,
    template: Value,
    thread: Option<String>,
    /// Run ids are `{prefix}-r{n}`, thread ids `{prefix}-t{n}`.
    prefix: String,
    cut_after: Option<u64>,
    stop_after: Option<u64>,
    followers: u32,
    timeout: Duration,
    stats: Stats,
}

/// The counters and histograms of the whole load.
pub(crate) struct Stats {
    pub(crate) started: AtomicU64,
    pub(crate) done: AtomicU64,
    pub(crate) ok: AtomicU64,
    pub(crate) run_error: AtomicU64,
    pub(crate) failed: AtomicU64,
    pub(crate) in_flight: AtomicU64,
    /// Events read on the runs' own streams (`POST` and rejoins).
    pub(crate) run_events: AtomicU64,
    /// Events read by followers.
    pub(crate) follower_events: AtomicU64,
    pub(crate) post_streams: AtomicU64,
    pub(crate) rejoins: AtomicU64,
    pub(crate) followers: AtomicU64,
    pub(crate) stops_sent: AtomicU64,
    pub(crate) stops_accepted: AtomicU64,
    pub(crate) errors_total: AtomicU64,
    /// Streams whose integrity was checked (ended with their terminal event or cut).
    pub(crate) streams_checked: AtomicU64,
    pub(crate) ttfe: Histogram,
    /// Production-to-receipt time of events carrying a `timestamp`.
    pub(crate) latency: Histogram,
    /// Time between consecutive events of a run's stream.
    pub(crate) gaps: Histogram,
    pub(crate) duration: Histogram,
    pub(crate) errors: Mutex<Errors>,
    pub(crate) outcomes: Mutex<BTreeMap<String, u64>>,
    pub(crate) integrity: Mutex<Integrity>,
}

/// Errors counted by kind and code.
#[derive(Debug, Default)]
pub(crate) struct Errors {
    /// Non-2xx answers: `STATUS` or `STATUS code` (the JSON body's `code`), by request.
    pub(crate) http: BTreeMap<String, u64>,
    /// `RUN_ERROR` by its `code` (`(none)` without one).
    pub(crate) run_error: BTreeMap<String, u64>,
    /// Connection, timeout, body and framing failures.
    pub(crate) transport: BTreeMap<String, u64>,
    /// The first failure of each transport kind, in full (its source chain).
    pub(crate) first: BTreeMap<String, String>,
}

/// Integrity failures by kind, and the first few described.
#[derive(Debug, Default)]
pub(crate) struct Integrity {
    pub(crate) total: u64,
    pub(crate) by_kind: BTreeMap<&'static str, u64>,
    pub(crate) examples: Vec<Value>,
}

impl Stats {
    fn new() -> Self {
        let z = || AtomicU64::new(0);
        Stats {
            started: z(),
            done: z(),
            ok: z(),
            run_error: z(),
            failed: z(),
            in_flight: z(),
            run_events: z(),
            follower_events: z(),
            post_streams: z(),
            rejoins: z(),
            followers: z(),
            stops_sent: z(),
            stops_accepted: z(),
            errors_total: z(),
            streams_checked: z(),
            ttfe: Histogram::new(),
            latency: Histogram::new(),
            gaps: Histogram::new(),
            duration: Histogram::new(),
            errors: Mutex::new(Errors::default()),
            outcomes: Mutex::new(BTreeMap::new()),
            integrity: Mutex::new(Integrity::default()),
        }
    }
}

/// Which request a stream or an error belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Post,
    Rejoin,
    Follower(u32),
    Stop,
}

impl Role {
    /// The kind of request, as errors are counted (`post`, `rejoin`, `follower`, `stop`).
    fn kind(self) -> &'static str {
        match self {
            Role::Post => "post",
            Role::Rejoin => "rejoin",
            Role::Follower(_) => "follower",
            Role::Stop => "stop",
        }
    }

    /// The request, as integrity failures name it (`follower 3`).
    fn name(self) -> String {
        match self {
            Role::Post => "post".to_owned(),
            Role::Rejoin => "rejoin".to_owned(),
            Role::Follower(i) => format!("follower {i}"),
            Role::Stop => "stop".to_owned(),
        }
    }
}

/// What went wrong with one request, counted under [`Errors`].
#[derive(Debug)]
enum Failure {
    Http(String),
    /// The key, and the error in full when there is one.
    Transport(String, Option<String>),
}

impl Shared {
    fn http_error(&self, key: String) {
        self.stats.errors_total.fetch_add(1, Ordering::Relaxed);
        let mut e = lock(&self.stats.errors);
        *e.http.entry(key).or_default() += 1;
    }

    fn transport_error(&self, key: String) {
        self.transport_error_with(key, None);
    }

    fn transport_error_with(&self, key: String, detail: Option<String>) {
        self.stats.errors_total.fetch_add(1, Ordering::Relaxed);
        let mut e = lock(&self.stats.errors);
        if let Some(d) = detail
            && !e.first.contains_key(&key)
        {
            e.first.insert(key.clone(), d);
        }
        *e.transport.entry(key).or_default() += 1;
    }

    fn failure(&self, f: Failure) {
        match f {
            Failure::Http(k) => self.http_error(k),
            Failure::Transport(k, detail) => self.transport_error_with(k, detail),
        }
    }

    fn run_error(&self, code: &str) {
        let mut e = lock(&self.stats.errors);
        *e.run_error.entry(code.to_owned()).or_default() += 1;
    }

    fn integrity(&self, run: &str, role: Role, kind: &'static str, detail: String) {
        let mut i = lock(&self.stats.integrity);
        i.total += 1;
        *i.by_kind.entry(kind).or_default() += 1;
        if i.examples.len() < EXAMPLES {
            i.examples.push(json!({
                "runId": run,
                "stream": role.name(),
                "kind": kind,
                "detail": detail,
            }));
        }
    }

    /// Reports stream `t` that ended without its terminal event.
    fn no_terminal(&self, t: &Tracker) {
        self.integrity(
            &t.run_id,
            t.role,
            "no_terminal",
            format!(
                "the stream ended after {} events without a terminal event",
                t.events
            ),
        );
    }

    /// The next agent URL for a rejoin or a follower.
    fn rejoin_base(&self) -> &str {
        let i = self.next_rejoin.fetch_add(1, Ordering::Relaxed) % self.rejoin.len();
        &self.rejoin[i]
    }

    fn headers(&self) -> HeaderMap {
        self.headers.clone()
    }
}

/// A mutex's guard, poisoned or not (a panicking task leaves plain counters behind).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `{base}/runs/{id}/{tail}`, the id percent-encoded.
fn run_url(base: &str, run_id: &str, tail: &str) -> String {
    let mut id = String::with_capacity(run_id.len());
    for b in run_id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            id.push(char::from(b));
        } else {
            id.push_str(&format!("%{b:02X}"));
        }
    }
    format!("{}/runs/{id}/{tail}", base.trim_end_matches('/'))
}

/// Runs `ag-ui load`.
pub(crate) async fn load(args: LoadArgs) -> Exit {
    let shared = match prepare(&args) {
        Ok(s) => Arc::new(s),
        Err(e) => return e,
    };
    let streams_per_run = 1 + u64::from(args.followers);
    let want_files = args.concurrency.saturating_mul(streams_per_run);
    let files = raise_open_files();
    if let Some(soft) = files.soft
        && want_files.saturating_add(64) > soft
    {
        eprintln!(
            "ag-ui: {want_files} streams at once need about {} open files, and this process \
             may open {soft}{}: raise the limit with `ulimit -n {}` (or lower --concurrency \
             or --followers)",
            want_files + 64,
            files
                .hard
                .map(|h| format!(" (hard limit {h})"))
                .unwrap_or_default(),
            want_files + 64
        );
    }

    let total = args.runs.unwrap_or(if args.duration.is_some() {
        u64::MAX
    } else {
        DEFAULT_RUNS
    });
    let started = Instant::now();
    let stop_starting = args.duration.map(|d| started + d);
    let next = Arc::new(AtomicU64::new(0));
    let show_progress = args.progress || std::io::stderr().is_terminal();
    let progress = show_progress.then(|| tokio::spawn(progress_lines(shared.clone(), started)));

    let mut workers = Vec::new();
    for _ in 0..args.concurrency.min(total) {
        let shared = shared.clone();
        let next = next.clone();
        workers.push(tokio::spawn(async move {
            loop {
                if stop_starting.is_some_and(|end| Instant::now() >= end) {
                    break;
                }
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= total {
                    break;
                }
                one_run(&shared, n).await;
            }
        }));
    }
    for w in workers {
        if let Err(e) = w.await {
            eprintln!("ag-ui: a load task failed: {e}");
        }
    }
    let elapsed = started.elapsed();
    if let Some(p) = progress {
        p.abort();
    }
    let report = report::Report::new(&shared.stats, &args, elapsed, files);
    report.print(args.json);
    report.exit()
}

/// The shared state from the flags.
fn prepare(args: &LoadArgs) -> Result<Shared, Exit> {
    refuse_non_http_url(&args.url)?;
    for url in &args.rejoin {
        refuse_non_http_url(url)?;
    }
    let template = match &args.input {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                eprintln!("ag-ui: cannot read {}: {e}", path.display());
                Exit::Usage
            })?;
            match serde_json::from_str::<Value>(&text) {
                Ok(v @ Value::Object(_)) => v,
                Ok(_) => {
                    eprintln!(
                        "ag-ui: {} is not a run input: not a JSON object",
                        path.display()
                    );
                    return Err(Exit::Usage);
                }
                Err(e) => {
                    eprintln!("ag-ui: {} is not a run input: {e}", path.display());
                    return Err(Exit::Usage);
                }
            }
        }
        None => json!({
            "threadId": "",
            "runId": "",
            "messages": [{
                "id": "load-message-1",
                "role": "user",
                "content": args.message.as_deref().unwrap_or("hello"),
            }],
            "tools": [],
            "context": [],
            "state": {},
            "forwardedProps": args.forwarded_props.clone().unwrap_or_else(|| json!({})),
        }),
    };
    let mut template = template;
    if let (Some(p), Value::Object(map)) = (args.protocol, &mut template) {
        map.insert("protocolVersion".to_owned(), json!(p.as_str()));
    }
    let mut headers = HeaderMap::new();
    for (name, value) in &args.headers {
        let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) else {
            eprintln!("ag-ui: `{name}: {value}` is not a valid HTTP header");
            return Err(Exit::Usage);
        };
        headers.append(n, v);
    }
    // One client for every stream: HTTP/1.1, one connection per stream in flight, all of
    // them kept for reuse (a large pool), no overall timeout (each run has its own).
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(usize::MAX)
        .pool_idle_timeout(Duration::from_secs(30))
        .connect_timeout(Duration::from_secs(10))
        .tcp_nodelay(true)
        .build()
        .map_err(|e| {
            eprintln!("ag-ui: cannot build the HTTP client: {e}");
            Exit::Usage
        })?;
    let nonce = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let rejoin = if args.rejoin.is_empty() {
        vec![args.url.clone()]
    } else {
        args.rejoin.clone()
    };
    Ok(Shared {
        client,
        agent: args.url.clone(),
        rejoin,
        next_rejoin: AtomicUsize::new(0),
        headers,
        template,
        thread: args.thread.clone(),
        prefix: format!("load-{nonce:x}-{}", std::process::id()),
        cut_after: args.cut_after,
        stop_after: args.stop_after,
        followers: args.followers,
        timeout: Duration::from_secs(args.timeout.max(1)),
        stats: Stats::new(),
    })
}

/// The open-file limits of the process, after raising the soft one to the hard one.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OpenFiles {
    pub(crate) soft: Option<u64>,
    pub(crate) hard: Option<u64>,
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit (each stream is a socket).
#[cfg(unix)]
fn raise_open_files() -> OpenFiles {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        let raised = rustix::process::Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        match setrlimit(Resource::Nofile, raised) {
            Ok(()) => limit = getrlimit(Resource::Nofile),
            Err(e) => eprintln!("ag-ui: cannot raise the open-file limit: {e}"),
        }
    }
    OpenFiles {
        soft: limit.current,
        hard: limit.maximum,
    }
}

/// No limit to raise here.
#[cfg(not(unix))]
fn raise_open_files() -> OpenFiles {
    OpenFiles::default()
}

/// A line on stderr every second: runs done and in flight, rates over the last second,
/// errors.
async fn progress_lines(shared: Arc<Shared>, started: Instant) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    tick.tick().await;
    let s = &shared.stats;
    let (mut last_runs, mut last_events, mut last_at) = (0u64, 0u64, Instant::now());
    loop {
        tick.tick().await;
        let now = Instant::now();
        let dt = now.duration_since(last_at).as_secs_f64().max(1e-3);
        let runs = s.done.load(Ordering::Relaxed);
        let events =
            s.run_events.load(Ordering::Relaxed) + s.follower_events.load(Ordering::Relaxed);
        let integrity = lock(&s.integrity).total;
        eprintln!(
            "{:>6.1}s  runs {runs} done, {} in flight  {:.1} runs/s  {:.0} events/s  errors {}  integrity failures {integrity}",
            started.elapsed().as_secs_f64(),
            s.in_flight.load(Ordering::Relaxed),
            (runs - last_runs) as f64 / dt,
            (events - last_events) as f64 / dt,
            s.errors_total.load(Ordering::Relaxed),
        );
        (last_runs, last_events, last_at) = (runs, events, now);
    }
}

/// What a logical stream has read so far: a run's own (its `POST` and the rejoins after
/// its cuts, one sequence) or a follower's.
#[derive(Debug)]
struct Tracker {
    run_id: String,
    role: Role,
    last_id: Option<u64>,
    events: u64,
    terminals: u32,
    /// A running hash of the events' data, in order.
    hash: u64,
    /// `success`, `cancelled`, `interrupt` or `RUN_ERROR` (with its code).
    outcome: Option<(String, Option<String>)>,
    last_event_at: Option<Instant>,
    /// Whether an integrity failure was found on this stream.
    broken: bool,
}

impl Tracker {
    /// Marks the stream broken, reporting an integrity failure of `kind`.
    fn broke(&mut self, shared: &Shared, kind: &'static str, detail: String) {
        self.broken = true;
        shared.integrity(&self.run_id, self.role, kind, detail);
    }

    fn new(run_id: &str, role: Role) -> Self {
        Tracker {
            run_id: run_id.to_owned(),
            role,
            last_id: None,
            events: 0,
            terminals: 0,
            hash: 0,
            outcome: None,
            last_event_at: None,
            broken: false,
        }
    }
}

/// The part of an event the load reads.
#[derive(serde::Deserialize)]
struct Head<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    outcome: Option<Value>,
}

/// How a stream ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// After its terminal event (and the end of the response).
    Terminal,
    /// Cut on purpose after the event count asked for.
    Cut,
    /// The response ended without a terminal event.
    Eof,
    /// Failed (counted already).
    Failed,
}

/// Hooks of a run's own stream: the first event, and each event's count.
trait OnEvent {
    fn event(&mut self, count: u64);
}

struct NoHooks;

impl OnEvent for NoHooks {
    fn event(&mut self, _: u64) {}
}

/// Reads `response` as SSE into `t` until its end, a cut after `cut_at` events in all, or
/// `deadline`.
async fn read_stream(
    shared: &Shared,
    response: reqwest::Response,
    t: &mut Tracker,
    cut_at: Option<u64>,
    deadline: tokio::time::Instant,
    hooks: &mut (dyn OnEvent + Send),
) -> End {
    let run_stream = matches!(t.role, Role::Post | Role::Rejoin);
    let mut body = response.bytes_stream();
    let mut reader = ag_ui_core::SseReader::new();
    let mut deadline = deadline;
    let mut after_terminal = false;
    loop {
        let next = match timeout_at(deadline, body.next()).await {
            Ok(next) => next,
            Err(_) if after_terminal => return End::Terminal,
            Err(_) => {
                shared.transport_error(format!("{} timeout", t.role.kind()));
                return End::Failed;
            }
        };
        let chunk = match next {
            Some(Ok(chunk)) => Some(chunk),
            Some(Err(e)) => {
                if after_terminal {
                    return End::Terminal;
                }
                shared.transport_error_with(
                    format!("{} body: {}", t.role.kind(), kind_of(&e)),
                    Some(chain(&e)),
                );
                return End::Failed;
            }
            None => None,
        };
        let fed = match &chunk {
            Some(c) => reader.feed(c),
            // A final message without its blank line is no complete SSE event: ignored, as
            // EventSource ignores it.
            None => reader.finish().map(|_unterminated| ()),
        };
        if fed.is_err() {
            shared.transport_error(format!("{} sse framing", t.role.kind()));
            return End::Failed;
        }
        while let Some((data, id)) = reader.next_data_with_id() {
            let now = Instant::now();
            if let Some(id) = id.and_then(|i| i.trim().parse::<u64>().ok()) {
                let expected = t.last_id.map_or(1, |l| l + 1);
                if id < expected {
                    t.broke(
                        shared,
                        "duplicate_id",
                        format!("id {id} after id {}", expected - 1),
                    );
                } else {
                    if id > expected {
                        t.broke(
                            shared,
                            "id_gap",
                            format!("id {id} where {expected} was due"),
                        );
                    }
                    t.last_id = Some(id);
                }
            }
            t.events += 1;
            let mut h = std::collections::hash_map::DefaultHasher::new();
            t.hash.hash(&mut h);
            data.hash(&mut h);
            t.hash = h.finish();
            if t.terminals > 0 {
                t.broke(
                    shared,
                    "event_after_terminal",
                    format!("event {} came after the terminal event", t.events),
                );
            }
            match serde_json::from_str::<Head<'_>>(data) {
                Ok(head) => {
                    let terminal = match &*head.kind {
                        "RUN_FINISHED" => {
                            let kind = head
                                .outcome
                                .as_ref()
                                .and_then(|o| o.get("type").or(Some(o)))
                                .and_then(Value::as_str)
                                .unwrap_or("success");
                            Some((kind.to_owned(), None))
                        }
                        "RUN_ERROR" => Some(("RUN_ERROR".to_owned(), head.code.clone())),
                        _ => None,
                    };
                    if let Some(outcome) = terminal {
                        t.terminals += 1;
                        if t.terminals == 2 {
                            t.broke(
                                shared,
                                "two_terminals",
                                format!("a second terminal event ({})", head.kind),
                            );
                        }
                        t.outcome.get_or_insert(outcome);
                        after_terminal = true;
                        deadline = deadline.min(tokio::time::Instant::now() + AFTER_TERMINAL);
                    }
                    if run_stream && let Some(ts) = head.timestamp {
                        let now_ms = SystemTime::now()
                            .duration_since(UNIX_EPOCH)
                            .map(|d| d.as_secs_f64() * 1000.0)
                            .unwrap_or_default();
                        shared
                            .stats
                            .latency
                            .record(((now_ms - ts).max(0.0) * 1000.0) as u64);
                    }
                }
                Err(e) => {
                    shared.transport_error(format!("{} event not JSON", t.role.kind()));
                    t.broke(shared, "not_an_event", format!("event {}: {e}", t.events));
                }
            }
            if run_stream {
                shared.stats.run_events.fetch_add(1, Ordering::Relaxed);
                if let Some(last) = t.last_event_at {
                    shared
                        .stats
                        .gaps
                        .record(now.duration_since(last).as_micros() as u64);
                }
            } else {
                shared.stats.follower_events.fetch_add(1, Ordering::Relaxed);
            }
            t.last_event_at = Some(now);
            hooks.event(t.events);
            if cut_at == Some(t.events) && t.terminals == 0 {
                return End::Cut;
            }
        }
        if chunk.is_none() {
            return if t.terminals > 0 {
                End::Terminal
            } else {
                End::Eof
            };
        }
    }
}

/// An error and its sources, `: `-separated.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// A transport failure's kind, for counting (not its message, which names addresses).
fn kind_of(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connect"
    } else if e.is_body() || e.is_decode() {
        "body"
    } else if e.is_request() {
        "request"
    } else {
        "other"
    }
}

/// Sends `request` before `deadline`; a 2xx answer, or the failure counted.
async fn send(
    request: reqwest::RequestBuilder,
    role: Role,
    deadline: tokio::time::Instant,
) -> Result<reqwest::Response, Failure> {
    let response = match timeout_at(deadline, request.send()).await {
        Err(_) => return Err(Failure::Transport(format!("{} timeout", role.kind()), None)),
        Ok(Err(e)) => {
            return Err(Failure::Transport(
                format!("{} {}", role.kind(), kind_of(&e)),
                Some(chain(&e)),
            ));
        }
        Ok(Ok(r)) => r,
    };
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    // The refusal's JSON `code` (or `error`) names it better than the status alone.
    let body = timeout_at(deadline, response.bytes()).await;
    let code = body
        .ok()
        .and_then(Result::ok)
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| {
            v.get("code")
                .or_else(|| v.get("error"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    Err(Failure::Http(match code {
        Some(c) => format!("{} {} {c}", role.kind(), status.as_u16()),
        None => format!("{} {}", role.kind(), status.as_u16()),
    }))
}

/// Whether the response is SSE; counted as a transport failure when not.
fn is_sse(shared: &Shared, response: &reqwest::Response, role: Role) -> bool {
    let ct = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let sse = ct
        .split(';')
        .next()
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("text/event-stream"));
    if !sse {
        shared.transport_error(format!("{} not SSE ({ct})", role.kind()));
    }
    sse
}

/// A follower's reading: its tracker, or `None` when it failed.
type Followed = Option<Tracker>;

/// Joins the run from its start on the next rejoin URL and reads it to its end.
async fn follow(
    shared: Arc<Shared>,
    run_id: String,
    i: u32,
    deadline: tokio::time::Instant,
) -> Followed {
    let role = Role::Follower(i);
    shared.stats.followers.fetch_add(1, Ordering::Relaxed);
    let response = join(&shared, &run_id, 0, role, deadline).await?;
    let mut t = Tracker::new(&run_id, role);
    let end = read_stream(&shared, response, &mut t, None, deadline, &mut NoHooks).await;
    match end {
        End::Terminal => {
            shared.stats.streams_checked.fetch_add(1, Ordering::Relaxed);
            Some(t)
        }
        End::Eof => {
            shared.no_terminal(&t);
            None
        }
        End::Cut | End::Failed => None,
    }
}

/// Joins run `run_id` after event `after` on the next rejoin URL: its SSE response, or
/// `None` when the request failed or the answer is not SSE (counted as errors).
async fn join(
    shared: &Shared,
    run_id: &str,
    after: u64,
    role: Role,
    deadline: tokio::time::Instant,
) -> Option<reqwest::Response> {
    let url = run_url(shared.rejoin_base(), run_id, "events");
    let request = shared
        .client
        .get(url)
        .headers(shared.headers())
        .header(ACCEPT, "text/event-stream")
        .header("last-event-id", after.to_string());
    let response = match send(request, role, deadline).await {
        Ok(r) => r,
        Err(f) => {
            shared.failure(f);
            return None;
        }
    };
    is_sse(shared, &response, role).then_some(response)
}

/// The hooks of a run's own stream: followers at its first event, the stop after K.
struct RunHooks<'a> {
    shared: &'a Arc<Shared>,
    run_id: &'a str,
    started: Instant,
    deadline: tokio::time::Instant,
    followers: &'a mut Vec<tokio::task::JoinHandle<Followed>>,
    stop: &'a mut Option<tokio::task::JoinHandle<()>>,
}

impl OnEvent for RunHooks<'_> {
    fn event(&mut self, count: u64) {
        if count == 1 {
            self.shared
                .stats
                .ttfe
                .record(self.started.elapsed().as_micros() as u64);
            // The run is in the log once its first event is out: the followers join now.
            for i in 0..self.shared.followers {
                self.followers.push(tokio::spawn(follow(
                    self.shared.clone(),
                    self.run_id.to_owned(),
                    i + 1,
                    self.deadline,
                )));
            }
        }
        if self.shared.stop_after == Some(count) && self.stop.is_none() {
            let shared = self.shared.clone();
            let url = run_url(&shared.agent, self.run_id, "stop");
            let deadline = self.deadline;
            *self.stop = Some(tokio::spawn(async move {
                shared.stats.stops_sent.fetch_add(1, Ordering::Relaxed);
                let request = shared.client.post(url).headers(shared.headers());
                match send(request, Role::Stop, deadline).await {
                    Ok(_) => {
                        shared.stats.stops_accepted.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(f) => shared.failure(f),
                }
            }));
        }
    }
}

/// One run: its `POST`, its cuts and rejoins, its followers and its stop.
async fn one_run(shared: &Arc<Shared>, n: u64) {
    let stats = &shared.stats;
    stats.started.fetch_add(1, Ordering::Relaxed);
    stats.in_flight.fetch_add(1, Ordering::Relaxed);
    let ok = run_streams(shared, n).await;
    match ok {
        RunResult::Ok => stats.ok.fetch_add(1, Ordering::Relaxed),
        RunResult::RunError => stats.run_error.fetch_add(1, Ordering::Relaxed),
        RunResult::Failed => stats.failed.fetch_add(1, Ordering::Relaxed),
    };
    stats.in_flight.fetch_sub(1, Ordering::Relaxed);
    stats.done.fetch_add(1, Ordering::Relaxed);
}

/// How a run went.
enum RunResult {
    /// It ended with `RUN_FINISHED`, every stream whole.
    Ok,
    /// It ended with `RUN_ERROR`, every stream whole.
    RunError,
    /// A request failed, or a stream was not whole.
    Failed,
}

async fn run_streams(shared: &Arc<Shared>, n: u64) -> RunResult {
    let stats = &shared.stats;
    let run_id = format!("{}-r{n}", shared.prefix);
    let thread_id = shared
        .thread
        .clone()
        .unwrap_or_else(|| format!("{}-t{n}", shared.prefix));
    let mut input = shared.template.clone();
    if let Value::Object(map) = &mut input {
        map.insert("threadId".to_owned(), Value::String(thread_id));
        map.insert("runId".to_owned(), Value::String(run_id.clone()));
    }
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + shared.timeout;
    let request = shared
        .client
        .post(&shared.agent)
        .headers(shared.headers())
        .header(ACCEPT, "text/event-stream")
        .header(CONTENT_TYPE, "application/json")
        .body(input.to_string());
    stats.post_streams.fetch_add(1, Ordering::Relaxed);
    let mut response = match send(request, Role::Post, deadline).await {
        Ok(r) => r,
        Err(f) => {
            shared.failure(f);
            return RunResult::Failed;
        }
    };
    if !is_sse(shared, &response, Role::Post) {
        return RunResult::Failed;
    }
    let mut t = Tracker::new(&run_id, Role::Post);
    let mut followers = Vec::new();
    let mut stop = None;
    let mut cut_at = shared.cut_after;
    let mut whole = true;
    loop {
        let end = {
            let mut hooks = RunHooks {
                shared,
                run_id: &run_id,
                started,
                deadline,
                followers: &mut followers,
                stop: &mut stop,
            };
            read_stream(
                shared,
                response,
                &mut t,
                cut_at.take(),
                deadline,
                &mut hooks,
            )
            .await
        };
        match end {
            End::Terminal => {
                stats.streams_checked.fetch_add(1, Ordering::Relaxed);
                stats.duration.record(started.elapsed().as_micros() as u64);
                break;
            }
            End::Cut => {
                stats.streams_checked.fetch_add(1, Ordering::Relaxed);
                let Some(last) = t.last_id else {
                    shared.transport_error(
                        "rejoin impossible: the stream has no SSE ids (no resumable runs)"
                            .to_owned(),
                    );
                    whole = false;
                    break;
                };
                stats.rejoins.fetch_add(1, Ordering::Relaxed);
                t.role = Role::Rejoin;
                let Some(r) = join(shared, &run_id, last, Role::Rejoin, deadline).await else {
                    whole = false;
                    break;
                };
                response = r;
            }
            End::Eof => {
                shared.no_terminal(&t);
                whole = false;
                break;
            }
            End::Failed => {
                whole = false;
                break;
            }
        }
    }
    if let Some(stop) = stop {
        let _ = stop.await;
    }
    let mut followers_whole = true;
    for f in followers {
        match f.await {
            Ok(Some(ft)) => {
                if ft.broken {
                    followers_whole = false;
                } else if whole && !t.broken && (ft.events, ft.hash) != (t.events, t.hash) {
                    followers_whole = false;
                    shared.integrity(
                        &run_id,
                        ft.role,
                        "follower_differs",
                        format!(
                            "the follower read {} events, the run's stream {}{}",
                            ft.events,
                            t.events,
                            if ft.events == t.events {
                                " (with other data)"
                            } else {
                                ""
                            }
                        ),
                    );
                }
            }
            Ok(None) | Err(_) => followers_whole = false,
        }
    }
    if let Some((kind, code)) = &t.outcome {
        let key = match (kind.as_str(), code) {
            ("RUN_ERROR", Some(code)) => format!("RUN_ERROR {code}"),
            _ => kind.clone(),
        };
        *lock(&stats.outcomes).entry(key).or_default() += 1;
        if kind == "RUN_ERROR" {
            shared.run_error(code.as_deref().unwrap_or("(none)"));
        }
    }
    if !whole || t.broken || !followers_whole {
        return RunResult::Failed;
    }
    match t.outcome {
        Some((kind, _)) if kind == "RUN_ERROR" => RunResult::RunError,
        _ => RunResult::Ok,
    }
}
