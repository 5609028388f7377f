//! The threads API suite: the JSON thread routes (`GET {agent}/threads`, `GET`, `PATCH`
//! and `DELETE {agent}/threads/{threadId}`) over real HTTP on loopback, against a service
//! whose runs keep threads in the store under test. Memory runs it in ag-ui-server, SQLite
//! and PostgreSQL in ag-ui-sql; [`suite`] runs every case, each on threads of its own.
#![allow(
    clippy::panic,
    reason = "test support fails the test by panicking, saying why"
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use ag_ui_core::{Event, RunAgentInput, SseReader};
use ag_ui_server::runs::Runs;
use ag_ui_server::threads::ThreadStore;
use ag_ui_server::{AgentService, AgentStream, Cancellation};
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::server::{Server, serve_agent};

/// Every wait of the suite is bounded by this.
pub const LIMIT: Duration = Duration::from_secs(20);

/// An agent that answers each run with one assistant message, `a-{runId}`, after
/// `forwardedProps.pauseMs` milliseconds (0 when absent), and `RUN_FINISHED` with usage.
fn scripted(input: RunAgentInput, cancel: Cancellation) -> AgentStream {
    let thread = input.thread_id.to_string();
    let run = input.run_id.to_string();
    let pause = input
        .forwarded_props
        .as_ref()
        .and_then(|p| p["pauseMs"].as_u64())
        .unwrap_or(0);
    let message = format!("a-{run}");
    let events = [
        json!({"type": "RUN_STARTED", "threadId": thread, "runId": run}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": "hello"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": message}),
        json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run,
               "usage": [{"provider": "p", "model": "m", "inputTokens": 7}]}),
    ];
    let event = |v: Value| -> Result<Event, ag_ui_core::BoxError> {
        serde_json::from_value(v).map_err(Into::into)
    };
    let mut events: Vec<_> = events.into_iter().map(event).collect();
    let rest = events.split_off(1);
    let pause = futures_util::stream::once(async move {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(pause)) => {}
            () = cancel.cancelled() => {}
        }
    })
    .filter_map(|()| async { None::<Result<Event, ag_ui_core::BoxError>> });
    Box::pin(
        futures_util::stream::iter(events)
            .chain(pause)
            .chain(futures_util::stream::iter(rest)),
    )
}

/// The service under test: runs in memory, threads in `store`, the principal named by
/// the request's `x-user` header (none: anonymous).
async fn server(store: Arc<dyn ThreadStore>) -> Server {
    let runs = Runs::in_memory().threads(store).authorize(|parts| {
        Ok(parts
            .headers
            .get("x-user")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned))
    });
    serve_agent(AgentService::new(scripted).runs(runs)).await
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(LIMIT)
        .build()
        .unwrap_or_else(|e| panic!("no HTTP client: {e}"))
}

/// A request to `path` below the agent path as `user`.
fn request(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    user: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut r = client().request(method, format!("{}{path}", server.url()));
    if let Some(u) = user {
        r = r.header("x-user", u);
    }
    r
}

/// A response's status and JSON body (`Value::Null` for an empty one).
async fn answer(r: reqwest::RequestBuilder) -> (u16, Value) {
    let response = r
        .send()
        .await
        .unwrap_or_else(|e| panic!("request failed: {e}"));
    let status = response.status().as_u16();
    let bytes = response
        .bytes()
        .await
        .unwrap_or_else(|e| panic!("body failed: {e}"));
    if bytes.is_empty() {
        return (status, Value::Null);
    }
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("status {status}: the body is no JSON ({e}): {bytes:?}"));
    (status, body)
}

async fn get(server: &Server, path: &str, user: Option<&str>) -> (u16, Value) {
    answer(request(server, reqwest::Method::GET, path, user)).await
}

async fn patch(server: &Server, path: &str, user: Option<&str>, body: &[u8]) -> (u16, Value) {
    answer(
        request(server, reqwest::Method::PATCH, path, user)
            .header("content-type", "application/json")
            .body(body.to_vec()),
    )
    .await
}

async fn delete(server: &Server, path: &str, user: Option<&str>) -> (u16, Value) {
    answer(request(server, reqwest::Method::DELETE, path, user)).await
}

fn input(thread: &str, run: &str, text: &str, pause_ms: u64) -> Value {
    json!({
        "protocolVersion": "1.0",
        "threadId": thread,
        "runId": run,
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}],
        "tools": [],
        "context": [],
        "state": {"run": run},
        "forwardedProps": {"pauseMs": pause_ms},
    })
}

/// Starts a run and returns its open response.
async fn start(server: &Server, user: Option<&str>, body: &Value) -> reqwest::Response {
    let mut r = client()
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "text/event-stream");
    if let Some(u) = user {
        r = r.header("x-user", u);
    }
    let response = r
        .body(body.to_string())
        .send()
        .await
        .unwrap_or_else(|e| panic!("start failed: {e}"));
    assert_eq!(response.status(), 200, "start {body}");
    response
}

/// The SSE events of a response as JSON, to its end (bounded by [`LIMIT`]).
async fn events(response: reqwest::Response) -> Vec<Value> {
    let mut body = response.bytes_stream();
    let mut reader = SseReader::new();
    let mut out = Vec::new();
    loop {
        while let Some(m) = reader.next_message() {
            out.push(serde_json::from_str(&m).unwrap_or_else(|e| panic!("{e}: {m}")));
        }
        match tokio::time::timeout(LIMIT, body.next()).await {
            Err(_) => panic!("the stream stalled"),
            Ok(Some(Ok(chunk))) => reader
                .feed(&chunk)
                .unwrap_or_else(|e| panic!("bad SSE: {e}")),
            Ok(_) => return out,
        }
    }
}

/// Runs one run to its end.
async fn run(server: &Server, user: Option<&str>, thread: &str, run: &str) {
    let events = events(start(server, user, &input(thread, run, "hi", 0)).await).await;
    assert_eq!(
        events.last().map(|e| e["type"].clone()),
        Some(json!("RUN_FINISHED")),
        "{events:?}"
    );
}

/// Reads the thread until `done` holds of its JSON (bounded by [`LIMIT`]): the thread
/// store is written by the run's driver, after the run's stream has ended.
async fn until(
    server: &Server,
    user: Option<&str>,
    path: &str,
    done: impl Fn(u16, &Value) -> bool,
) -> Value {
    let deadline = Instant::now() + LIMIT;
    loop {
        let (status, body) = get(server, path, user).await;
        if done(status, &body) {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "{path}: still {status} {body} after {LIMIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn ended(status: u16, body: &Value) -> bool {
    status == 200
        && body["runs"]
            .as_array()
            .is_some_and(|r| r.iter().all(|r| r["status"] == "ended"))
}

fn ids(page: &Value) -> Vec<String> {
    page["threads"]
        .as_array()
        .unwrap_or_else(|| panic!("no threads in {page}"))
        .iter()
        .map(|t| t["threadId"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Checks a refusal: its status, and a JSON body with that `code`.
fn refused(got: &(u16, Value), status: u16, code: &str, what: &str) {
    assert_eq!(got.0, status, "{what}: {}", got.1);
    assert_eq!(got.1["code"], code, "{what}: {}", got.1);
}

/// Runs every case on `store` (each on a server of its own, on threads of its own).
pub async fn suite(store: Arc<dyn ThreadStore>) {
    list_read_change_delete(Arc::clone(&store)).await;
    principals_never_see_each_other(Arc::clone(&store)).await;
    bad_input_is_refused(Arc::clone(&store)).await;
    a_busy_thread_is_not_deleted(store).await;
}

/// Lists, pages, reads, renames, filters by metadata, archives and deletes threads.
pub async fn list_read_change_delete(store: Arc<dyn ThreadStore>) {
    let server = server(store).await;
    let me = Some("lister");
    for (i, t) in ["l1", "l2", "l3"].iter().enumerate() {
        run(&server, me, t, &format!("{t}-r{i}")).await;
        until(&server, me, &format!("threads/{t}"), ended).await;
    }

    let (status, page) = get(&server, "threads", me).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        ids(&page),
        ["l3", "l2", "l1"],
        "most recently updated first"
    );
    assert_eq!(page["nextCursor"], Value::Null);
    let first = &page["threads"][0];
    let keys: Vec<&str> = first
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    for key in [
        "threadId",
        "title",
        "metadata",
        "createdAt",
        "updatedAt",
        "archived",
        "runCount",
        "lastRun",
    ] {
        assert!(keys.contains(&key), "{key} missing from {first}");
    }
    assert_eq!(first["title"], Value::Null);
    assert_eq!(first["metadata"], json!({}));
    assert_eq!(first["archived"], false);
    assert_eq!(first["runCount"], 1);
    assert_eq!(
        first["lastRun"],
        json!({"runId": "l3-r2", "status": "ended", "outcome": "success"})
    );

    // Pages of two: no thread twice, none left out.
    let (_, one) = get(&server, "threads?limit=2", me).await;
    assert_eq!(ids(&one), ["l3", "l2"]);
    let cursor = one["nextCursor"]
        .as_str()
        .unwrap_or_else(|| panic!("no cursor in {one}"));
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("limit", "2")
        .append_pair("cursor", cursor)
        .finish();
    let (status, two) = get(&server, &format!("threads?{query}"), me).await;
    assert_eq!(status, 200, "{two}");
    assert_eq!(ids(&two), ["l1"]);
    assert_eq!(two["nextCursor"], Value::Null);

    // One thread in JSON (no Accept, and */*), and as the connect stream.
    for accept in [None, Some("*/*"), Some("application/json")] {
        let mut r = request(&server, reqwest::Method::GET, "threads/l1", me);
        if let Some(a) = accept {
            r = r.header("accept", a);
        }
        let (status, detail) = answer(r).await;
        assert_eq!(status, 200, "{accept:?}: {detail}");
        assert_eq!(detail["threadId"], "l1");
        assert_eq!(detail["state"], json!({"run": "l1-r0"}));
        let messages: Vec<(&str, &str)> = detail["messages"]
            .as_array()
            .unwrap_or_else(|| panic!("no messages: {detail}"))
            .iter()
            .map(|m| {
                (
                    m["role"].as_str().unwrap_or(""),
                    m["content"].as_str().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(messages, [("user", "hi"), ("assistant", "hello")]);
        let record = &detail["runs"][0];
        assert_eq!(record["runId"], "l1-r0");
        assert_eq!(record["status"], "ended");
        assert_eq!(record["outcome"], "success");
        assert_eq!(record["errorCode"], Value::Null);
        assert!(record["startedAt"].is_string() && record["endedAt"].is_string());
        assert_eq!(record["usage"][0]["inputTokens"], 7, "{record}");
    }
    let sse = request(&server, reqwest::Method::GET, "threads/l1", me)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sse.status(), 200);
    assert_eq!(sse.headers()["content-type"], "text/event-stream");
    let snapshot = events(sse).await;
    assert!(
        snapshot.iter().any(|e| e["type"] == "MESSAGES_SNAPSHOT"),
        "{snapshot:?}"
    );

    // Rename, with metadata; filter by it.
    let (status, summary) = patch(
        &server,
        "threads/l1",
        me,
        br#"{"title": "Weather", "metadata": {"topic": "rain", "n": 1}}"#,
    )
    .await;
    assert_eq!(status, 200, "{summary}");
    assert_eq!(summary["title"], "Weather");
    assert_eq!(summary["metadata"], json!({"topic": "rain", "n": 1}));
    let (_, page) = get(&server, "threads?metadata.topic=rain", me).await;
    assert_eq!(ids(&page), ["l1"]);
    let (_, page) = get(&server, "threads?metadata.topic=rain&metadata.n=1", me).await;
    assert_eq!(ids(&page), Vec::<String>::new(), "only strings match");
    // `metadata` replaces: the old keys are gone.
    let (_, summary) = patch(&server, "threads/l1", me, br#"{"metadata": {"k": "v"}}"#).await;
    assert_eq!(summary["metadata"], json!({"k": "v"}));
    assert_eq!(
        summary["title"], "Weather",
        "a patch without title keeps it"
    );

    // Archive: out of the default list, in `archived=true` and `any`.
    let (status, summary) = patch(&server, "threads/l2", me, br#"{"archived": true}"#).await;
    assert_eq!((status, &summary["archived"]), (200, &json!(true)));
    let (_, page) = get(&server, "threads", me).await;
    let mut listed = ids(&page);
    listed.sort();
    assert_eq!(listed, ["l1", "l3"]);
    let (_, page) = get(&server, "threads?archived=true", me).await;
    assert_eq!(ids(&page), ["l2"]);
    let (_, page) = get(&server, "threads?archived=any", me).await;
    assert_eq!(ids(&page).len(), 3);

    // Delete: 204, then 404 on every route, until a new run makes a new thread.
    let (status, body) = delete(&server, "threads/l3", me).await;
    assert_eq!((status, body), (204, Value::Null));
    refused(
        &get(&server, "threads/l3", me).await,
        404,
        "thread_not_found",
        "read after delete",
    );
    refused(
        &delete(&server, "threads/l3", me).await,
        404,
        "thread_not_found",
        "delete again",
    );
    refused(
        &patch(&server, "threads/l3", me, br#"{"title": "x"}"#).await,
        404,
        "thread_not_found",
        "patch after delete",
    );
    let (_, page) = get(&server, "threads?archived=any", me).await;
    assert!(!ids(&page).contains(&"l3".to_owned()), "{page}");
    run(&server, me, "l3", "l3-again").await;
    let detail = until(&server, me, "threads/l3", ended).await;
    assert_eq!(detail["runCount"], 1, "a new, empty thread: {detail}");
    assert_eq!(detail["title"], Value::Null);
    assert_eq!(detail["runs"][0]["runId"], "l3-again");
}

/// Another principal's thread is an unknown thread on every route, and is left as it is.
pub async fn principals_never_see_each_other(store: Arc<dyn ThreadStore>) {
    let server = server(store).await;
    let (alice, bob) = (Some("alice"), Some("bob"));
    run(&server, alice, "shared-id", "p-alice").await;
    let before = until(&server, alice, "threads/shared-id", ended).await;

    for user in [bob, None] {
        let (status, page) = get(&server, "threads?archived=any", user).await;
        assert_eq!(status, 200);
        assert!(ids(&page).is_empty(), "{user:?} sees {page}");
        refused(
            &get(&server, "threads/shared-id", user).await,
            404,
            "thread_not_found",
            "read",
        );
        refused(
            &patch(&server, "threads/shared-id", user, br#"{"title": "mine"}"#).await,
            404,
            "thread_not_found",
            "patch",
        );
        refused(
            &delete(&server, "threads/shared-id", user).await,
            404,
            "thread_not_found",
            "delete",
        );
    }
    let (_, after) = get(&server, "threads/shared-id", alice).await;
    assert_eq!(after, before, "another principal changed the thread");

    // The same id is a thread of its own for bob.
    run(&server, bob, "shared-id", "p-bob").await;
    let bobs = until(&server, bob, "threads/shared-id", ended).await;
    assert_eq!(bobs["runs"].as_array().map(Vec::len), Some(1));
    assert_eq!(bobs["runs"][0]["runId"], "p-bob");
    let (_, alices) = get(&server, "threads/shared-id", alice).await;
    assert_eq!(alices, before);
}

/// Bad queries, bodies, ids and methods get a 4xx JSON refusal that names the problem.
pub async fn bad_input_is_refused(store: Arc<dyn ThreadStore>) {
    let server = server(store).await;
    let me = Some("careless");
    run(&server, me, "b1", "b1-r").await;
    until(&server, me, "threads/b1", ended).await;

    for (query, parameter) in [
        ("limit=0", "limit"),
        ("limit=1000", "limit"),
        ("limit=-1", "limit"),
        ("limit=ten", "limit"),
        ("limit=2&limit=3", "limit"),
        ("archived=maybe", "archived"),
        ("archived=", "archived"),
    ] {
        let got = get(&server, &format!("threads?{query}"), me).await;
        refused(&got, 400, "invalid_parameter", query);
        assert_eq!(got.1["pointer"], parameter, "{query}: {}", got.1);
    }
    for cursor in ["garbage", "%00%FF", "eyJ4IjoxfQ", &"c".repeat(5000)] {
        let got = get(&server, &format!("threads?cursor={cursor}"), me).await;
        refused(&got, 400, "invalid_cursor", cursor);
    }

    for (body, pointer) in [
        (&b"not json"[..], "$"),
        (b"[]", "$"),
        (br#"{"title": 5}"#, "$.title"),
        (br#"{"archived": "yes"}"#, "$.archived"),
        (br#"{"metadata": []}"#, "$.metadata"),
        (br#"{"colour": "red"}"#, "$.colour"),
    ] {
        let got = patch(&server, "threads/b1", me, body).await;
        let what = String::from_utf8_lossy(body).into_owned();
        refused(&got, 400, "invalid_parameter", &what);
        assert_eq!(got.1["pointer"], pointer, "{what}: {}", got.1);
    }
    let big = format!(r#"{{"title": "{}"}}"#, "x".repeat(70 * 1024));
    refused(
        &patch(&server, "threads/b1", me, big.as_bytes()).await,
        413,
        "body_too_large",
        "a 70 KiB patch",
    );
    let (_, unchanged) = get(&server, "threads/b1", me).await;
    assert_eq!(
        unchanged["title"],
        Value::Null,
        "a refused patch changed the thread"
    );

    // Ids: percent-decoded; too long; not UTF-8.
    run(&server, me, "a/b c", "b-slash").await;
    let detail = until(&server, me, "threads/a%2Fb%20c", ended).await;
    assert_eq!(detail["threadId"], "a/b c");
    let long = "x".repeat(10 * 1024);
    refused(
        &get(&server, &format!("threads/{long}"), me).await,
        414,
        "id_too_long",
        "10 KB id",
    );
    refused(
        &delete(&server, &format!("threads/{long}"), me).await,
        414,
        "id_too_long",
        "10 KB id",
    );
    for odd in ["%FF%FE", "%C3%28"] {
        let got = get(&server, &format!("threads/{odd}"), me).await;
        assert!((400..500).contains(&got.0), "{odd}: {got:?}");
        assert!(got.1["code"].is_string(), "{odd}: {got:?}");
    }
    refused(
        &get(&server, "threads/%25", me).await,
        404,
        "thread_not_found",
        "the id %",
    );

    // Methods.
    let post = answer(
        request(&server, reqwest::Method::POST, "threads", me)
            .header("content-type", "application/json")
            .body("{}"),
    )
    .await;
    refused(&post, 405, "method_not_allowed", "POST threads");
    let put = request(&server, reqwest::Method::PUT, "threads/b1", me)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(put.status(), 405);
    assert_eq!(put.headers()["allow"], "GET, PATCH, DELETE");
}

/// A thread with a run going on is not deleted (`409 thread_busy`); once it ended, it is.
pub async fn a_busy_thread_is_not_deleted(store: Arc<dyn ThreadStore>) {
    let server = server(store).await;
    let me = Some("busy");
    let response = start(&server, me, &input("busy-1", "busy-r", "slow", 1_500)).await;
    until(&server, me, "threads/busy-1", |s, b| {
        s == 200 && b["runs"][0]["status"] == "running"
    })
    .await;
    refused(
        &delete(&server, "threads/busy-1", me).await,
        409,
        "thread_busy",
        "delete while running",
    );
    let all = events(response).await;
    assert_eq!(
        all.last().map(|e| e["type"].clone()),
        Some(json!("RUN_FINISHED"))
    );
    until(&server, me, "threads/busy-1", ended).await;
    let (status, _) = delete(&server, "threads/busy-1", me).await;
    assert_eq!(status, 204);
}
