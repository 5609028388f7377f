//! A redis-server of the test's own, server instances over loopback, and readers of their
//! SSE responses.

use std::net::SocketAddr;
use std::path::PathBuf;

use ag_ui_core::{Event, SseReader};
use ag_ui_redis::{RedisConfig, RedisStore};
use ag_ui_server::{Agent, AgentService};
use futures_util::StreamExt;
use serde_json::{Value, json};

pub use ag_ui_testkit::net::{LIMIT, free_port};
pub use ag_ui_testkit::process::ChildGuard;

/// The test kit's `redis-server`, with the store's view of it.
pub struct RedisServer(ag_ui_testkit::redis::RedisServer);

impl std::ops::Deref for RedisServer {
    type Target = ag_ui_testkit::redis::RedisServer;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for RedisServer {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl RedisServer {
    pub fn start() -> RedisServer {
        RedisServer(ag_ui_testkit::redis::RedisServer::start())
    }

    pub fn config(&self) -> RedisConfig {
        RedisConfig::new(self.url())
    }

    /// A store with `config` adjusted by `f`.
    pub async fn store(&self, f: impl FnOnce(RedisConfig) -> RedisConfig) -> RedisStore {
        RedisStore::connect(f(self.config())).await.unwrap()
    }

    /// A plain connection for looking at what the store keeps.
    pub async fn raw(&self) -> redis::aio::MultiplexedConnection {
        redis::Client::open(self.url())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .unwrap()
    }
}

pub use ag_ui_testkit::server::{Server, serve_agent as serve};

/// A server instance on a runtime of its own (its own threads, its own Redis
/// connections), so that a test can kill it as a crash would: every task of it dropped
/// at once, nothing ended cleanly.
pub struct Instance {
    pub addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Instance {
    pub fn start<A: Agent>(
        make: impl FnOnce() -> A + Send + 'static,
        config: RedisConfig,
        runs: impl FnOnce(ag_ui_server::runs::Runs) -> ag_ui_server::runs::Runs + Send + 'static,
    ) -> Instance {
        // Built and started on a thread of its own: a runtime cannot block inside another.
        let (runtime, addr) = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            let addr = runtime.block_on(async move {
                let store = RedisStore::connect(config).await.unwrap();
                let service = AgentService::new(make()).runs(runs(store.runs()));
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let router = ag_ui_server::axum::service_router(service);
                tokio::spawn(async move {
                    let _ = ag_ui_server::axum::serve(listener, router).await;
                });
                addr
            });
            (runtime, addr)
        })
        .join()
        .unwrap();
        Instance {
            addr,
            runtime: Some(runtime),
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Drops every task of the instance (its server, its runs' drivers and their lease
    /// renewals) without letting any of them finish.
    pub fn kill(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill();
    }
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(LIMIT).build().unwrap()
}

/// A minimal run input for `run` on `thread-1`, with `forwardedProps`.
pub fn input(run: &str, forwarded: Value) -> Value {
    json!({
        "protocolVersion": "1.0",
        "threadId": "thread-1",
        "runId": run,
        "messages": [{"id": "u1", "role": "user", "content": "What is the weather?"}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": forwarded,
    })
}

/// `body` on thread `thread` (a thread has one running run at a time: runs meant to go on
/// together are on threads of their own).
pub fn on_thread(mut body: Value, thread: &str) -> Value {
    body["threadId"] = json!(thread);
    body
}

pub fn chat(run: &str) -> Value {
    input(run, json!({"scenario": "chat"}))
}

pub fn slow(run: &str) -> Value {
    input(run, json!({"scenario": "slow"}))
}

pub fn get(url: String) -> reqwest::RequestBuilder {
    client().get(url).header("accept", "text/event-stream")
}

pub fn post(url: String, body: &Value) -> reqwest::RequestBuilder {
    client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(body).unwrap())
}

/// A response's events with the SSE id in force for each, read to the end (or `max`).
pub struct Read {
    pub events: Vec<Event>,
    pub ids: Vec<Option<String>>,
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

impl Read {
    pub fn last_id(&self) -> Option<&str> {
        self.ids.last().and_then(|i| i.as_deref())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

pub async fn read(response: reqwest::Response) -> Read {
    read_until(response, usize::MAX).await
}

/// Reads up to `max` events, then drops the response (closing the connection).
pub async fn read_until(response: reqwest::Response, max: usize) -> Read {
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
            Some(Err(_)) | None => return out,
        }
    }
}

/// A response read event by event, its body kept open.
pub struct Open {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    reader: SseReader,
}

impl Open {
    pub async fn start(response: reqwest::Response) -> Open {
        assert_eq!(response.status(), 200);
        Open {
            body: response.bytes_stream().boxed(),
            reader: SseReader::new(),
        }
    }

    pub async fn next(&mut self) -> Option<Event> {
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

    pub async fn rest(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        while let Some(e) = self.next().await {
            out.push(e);
        }
        out
    }
}

/// The events of a run, as JSON values.
pub fn values(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

/// The last event's type, outcome and code.
pub fn outcome(events: &[Event]) -> Value {
    let last = values(events).pop().unwrap_or(Value::Null);
    json!({"type": last["type"], "outcome": last["outcome"], "code": last["code"]})
}

/// The events `body` produces on a server without runs: what every resumable run of it
/// must deliver, exactly.
pub async fn reference(body: &Value) -> Vec<Value> {
    let server = serve(AgentService::new(ag_ui_server::demo::DemoAgent::new())).await;
    let r = read(post(server.url(), body).send().await.unwrap()).await;
    values(&r.events)
}

/// The `serve_redis` example's binary, built by `cargo test -p ag-ui-redis` (examples are
/// built with the tests) next to this test binary.
pub fn serve_example() -> PathBuf {
    ag_ui_testkit::process::example_binary("serve_redis", "ag-ui-redis")
}

pub use ag_ui_testkit::process::ServeProcess;

/// A `serve_redis` example process: started with `args`, on `addr` (`127.0.0.1:0` for a
/// free port, then kept across restarts), killed by its pid when dropped.
pub fn serve_process(addr: &str, args: &[&str]) -> ServeProcess {
    ServeProcess::start(serve_example(), addr, args)
}
