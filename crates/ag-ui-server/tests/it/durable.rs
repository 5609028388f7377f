//! Durable threads end to end, over real processes: the `serve` and `web` examples with
//! `--threads sqlite://…` (and `--bearer`), stopped and killed (SIGKILL, by pid) and
//! started again on the same file; every thread read back through the HTTP API, compared
//! as parsed JSON with what the client folded from its runs.

use std::path::PathBuf;

use ag_ui_core::{Event, Message, ThreadState};
use ag_ui_server::threads::{CODE_RUN_LOST, RunEndKind, ThreadStore};
use ag_ui_testkit::process::{ServeProcess, example_binary, temp_dir};
use serde_json::{Value, json};

use crate::support::{Events, LIMIT, client};

fn serve_example() -> PathBuf {
    example_binary("serve", "ag-ui-server")
}

fn web_example() -> PathBuf {
    example_binary("web", "ag-ui-server")
}

/// A run input for `thread`/`run` in `scenario`, with `messages` and `state`.
fn body(thread: &str, run: &str, scenario: &str, messages: &[Message], state: &Value) -> Value {
    json!({
        "protocolVersion": "1.0",
        "threadId": thread,
        "runId": run,
        "messages": messages,
        "tools": [],
        "context": [],
        "state": state,
        "forwardedProps": {"scenario": scenario},
    })
}

fn user(id: &str, text: &str) -> Message {
    ag_ui_core::read::from_str(&json!({"id": id, "role": "user", "content": text}).to_string())
        .unwrap()
}

/// POSTs a run input to `url` (with `authorization` when given).
async fn start(url: &str, authorization: Option<&str>, input: &Value) -> reqwest::Response {
    let mut request = client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(input).unwrap());
    if let Some(a) = authorization {
        request = request.header("authorization", a);
    }
    request.send().await.unwrap()
}

/// A client's side of a conversation: the thread it folds from its runs' events.
struct Conversation {
    url: String,
    thread_id: String,
    authorization: Option<String>,
    thread: ThreadState,
    runs: usize,
}

impl Conversation {
    fn new(url: &str, thread_id: &str, authorization: Option<&str>) -> Self {
        Conversation {
            url: url.to_owned(),
            thread_id: thread_id.to_owned(),
            authorization: authorization.map(str::to_owned),
            thread: ThreadState::new(),
            runs: 0,
        }
    }

    /// The next run's input: the thread so far and a new user message.
    fn next_input(&mut self, scenario: &str, text: &str) -> Value {
        self.runs += 1;
        let mut messages = self.thread.messages().to_vec();
        messages.push(user(
            &format!("{}-user-{}", self.thread_id, self.runs),
            text,
        ));
        self.thread = ThreadState::new()
            .with_messages(messages.clone())
            .with_state(self.thread.state().clone());
        body(
            &self.thread_id,
            &format!("{}-run-{}", self.thread_id, self.runs),
            scenario,
            &messages,
            &serde_json::to_value(self.thread.state()).unwrap(),
        )
    }

    /// Runs `scenario` with a new user message to its end, folding its events.
    async fn turn(&mut self, scenario: &str, text: &str) -> Vec<Event> {
        let input = self.next_input(scenario, text);
        let response = start(&self.url, self.authorization.as_deref(), &input).await;
        assert_eq!(response.status(), 200, "{}", self.thread_id);
        let events = Events::new(response).all().await;
        for e in &events {
            self.thread.apply(e);
        }
        events
    }

    /// What the client holds: messages, state, and how the last run ended.
    fn held(&self) -> Value {
        let end = self.thread.snapshot(&self.thread_id, "r");
        json!({
            "messages": self.thread.messages(),
            "state": self.thread.state(),
            "end": terminal(end.last().unwrap()),
        })
    }
}

/// What matters of a terminal event: a `RUN_FINISHED`'s outcome (none is success), a
/// `RUN_ERROR`'s code (not the ids: a thread's snapshot is a run of its own).
fn terminal(event: &Event) -> Value {
    let v = serde_json::to_value(event).unwrap();
    match v["type"].as_str() {
        Some("RUN_FINISHED") => {
            let outcome = match &v["outcome"] {
                Value::Null => json!({"type": "success"}),
                o => o.clone(),
            };
            json!({"type": "RUN_FINISHED", "outcome": outcome})
        }
        Some("RUN_ERROR") => json!({"type": "RUN_ERROR", "code": v["code"]}),
        other => panic!("not a terminal event: {other:?}"),
    }
}

/// Waits (bounded by [`LIMIT`]) until the thread store has thread `id`'s last run ended: a
/// run's end is written just after its stream's last event, and a restart before that finds
/// the run lost.
async fn settled(url: &str, id: &str, authorization: Option<&str>) {
    let deadline = std::time::Instant::now() + LIMIT;
    loop {
        let mut request = client()
            .get(format!("{url}threads/{id}"))
            .header("accept", "application/json");
        if let Some(a) = authorization {
            request = request.header("authorization", a);
        }
        let bytes = request.send().await.unwrap().bytes().await.unwrap();
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        if doc["lastRun"]["status"] == "ended" {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "thread {id}'s last run never ended: {doc:#}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// `GET {url}threads/{id}`: the status, and for a 200 the thread as its snapshot tells it
/// (messages, state, the end), as [`Conversation::held`] has it.
async fn read_thread(url: &str, id: &str, authorization: Option<&str>) -> (u16, Value) {
    let mut request = client()
        .get(format!("{url}threads/{id}"))
        .header("accept", "text/event-stream");
    if let Some(a) = authorization {
        request = request.header("authorization", a);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    if status != 200 {
        let doc: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        return (status, doc);
    }
    let events = Events::new(response).all().await;
    let mut thread = ThreadState::new();
    for e in &events {
        thread.apply(e);
    }
    let held = json!({
        "messages": thread.messages(),
        "state": thread.state(),
        "end": terminal(events.last().unwrap()),
    });
    (status, held)
}

#[tokio::test]
async fn two_conversations_in_sqlite_come_back_whole_after_the_server_is_stopped() {
    let dir = temp_dir("threads-sqlite");
    // A path relative to the working directory: the file is created there.
    let mut server = ServeProcess::start_in(
        &dir,
        serve_example(),
        "127.0.0.1:0",
        &["--threads", "sqlite://threads.db"],
    );
    assert!(
        dir.join("threads.db").is_file(),
        "no threads.db in {}",
        dir.display()
    );
    let url = server.url();
    let mut weather = Conversation::new(&url, "thread-weather", None);
    weather
        .turn("chat", "What is the weather in Amsterdam?")
        .await;
    weather.turn("chat", "And tomorrow?").await;
    let mut email = Conversation::new(&url, "thread-email", None);
    email.turn("interrupt", "Send Ada an email").await;

    let mut before = Vec::new();
    for c in [&weather, &email] {
        let (status, held) = read_thread(&url, &c.thread_id, None).await;
        assert_eq!(status, 200, "{}", c.thread_id);
        // The server's thread is what the client folded from its runs.
        assert_eq!(held, c.held(), "{}", c.thread_id);
        before.push(held);
    }
    assert_eq!(before[0]["messages"].as_array().unwrap().len(), 10);
    assert_eq!(before[1]["end"]["outcome"]["type"], "interrupt");
    for c in [&weather, &email] {
        settled(&url, &c.thread_id, None).await;
    }

    server.kill();
    server.restart();
    let url = server.url();
    for (c, held) in [&weather, &email].into_iter().zip(&before) {
        let (status, after) = read_thread(&url, &c.thread_id, None).await;
        assert_eq!(status, 200, "{} after the restart", c.thread_id);
        assert_eq!(&after, held, "{} after the restart", c.thread_id);
    }
    // An unknown thread is still unknown.
    let (status, doc) = read_thread(&url, "thread-never", None).await;
    assert_eq!((status, &doc["code"]), (404, &json!("thread_not_found")));
}

#[tokio::test]
async fn a_sigkill_mid_run_loses_no_finished_run_and_marks_the_unfinished_one_lost() {
    let dir = temp_dir("threads-sigkill");
    let mut server = ServeProcess::start_in(
        &dir,
        serve_example(),
        "127.0.0.1:0",
        &["--threads", "sqlite://threads.db"],
    );
    let url = server.url();
    let mut c = Conversation::new(&url, "thread-k", None);
    c.turn("chat", "What is the weather in Amsterdam?").await;
    let (_, finished) = read_thread(&url, "thread-k", None).await;
    assert_eq!(finished, c.held());

    // A slow run (a text message a second): killed while it streams.
    let input = c.next_input("slow", "Count slowly");
    let response = start(&url, None, &input).await;
    assert_eq!(response.status(), 200);
    let mut events = Events::new(response);
    let mut seen = Vec::new();
    while seen.len() < 4 {
        let e = tokio::time::timeout(LIMIT, events.next())
            .await
            .unwrap()
            .unwrap();
        seen.push(e.event_type().as_str());
    }
    assert_eq!(seen[0], "RUN_STARTED");
    assert!(!seen.contains(&"RUN_FINISHED"), "{seen:?}");
    let pid = server.pid().unwrap();
    ag_ui_testkit::process::send(pid, "-KILL");
    server.kill();
    drop(events);

    server.restart();
    let url = server.url();
    let (status, after) = read_thread(&url, "thread-k", None).await;
    assert_eq!(status, 200);
    // The finished run's conversation is whole, the lost run's user message after it.
    let messages = after["messages"].as_array().unwrap();
    let kept = finished["messages"].as_array().unwrap();
    assert_eq!(messages[..kept.len()], kept[..], "{after:#}");
    assert_eq!(messages[kept.len()]["id"], "thread-k-user-2", "{after:#}");
    assert_eq!(after["state"], finished["state"]);
    assert_eq!(
        after["end"],
        json!({"type": "RUN_ERROR", "code": CODE_RUN_LOST}),
        "{after:#}"
    );

    // The store itself: the first run ended well, the second is marked lost.
    let store = ag_ui_sql::open(&format!("sqlite://{}", dir.join("threads.db").display()))
        .await
        .unwrap();
    let stored = store.thread(None, "thread-k").await.unwrap().unwrap();
    assert_eq!(stored.runs.len(), 2, "{:?}", stored.runs);
    assert_eq!(stored.runs[0].outcome, Some(RunEndKind::Success));
    assert_eq!(stored.runs[1].outcome, Some(RunEndKind::Error));
    assert_eq!(stored.runs[1].error_code.as_deref(), Some(CODE_RUN_LOST));
    assert!(stored.active_run().is_none());
}

#[tokio::test]
async fn with_bearer_tokens_a_principal_sees_none_of_anothers_threads() {
    let dir = temp_dir("threads-bearer");
    let mut server = ServeProcess::start_in(
        &dir,
        serve_example(),
        "127.0.0.1:0",
        &[
            "--threads",
            "sqlite://threads.db",
            "--bearer",
            "alice-s3cret=alice",
            "--bearer",
            "bob-s3cret=bob",
        ],
    );
    let url = server.url();
    let alice = Some("Bearer alice-s3cret");
    let bob = Some("Bearer bob-s3cret");
    let mut conversation = Conversation::new(&url, "thread-alice", alice);
    conversation
        .turn("chat", "What is the weather in Amsterdam?")
        .await;
    settled(&url, "thread-alice", alice).await;

    for round in ["before the restart", "after the restart"] {
        let (status, held) = read_thread(&url, "thread-alice", alice).await;
        assert_eq!(status, 200, "{round}");
        assert_eq!(held, conversation.held(), "{round}");
        let (status, doc) = read_thread(&url, "thread-alice", bob).await;
        assert_eq!(
            (status, &doc["code"]),
            (404, &json!("thread_not_found")),
            "{round}"
        );
        for (authorization, challenge) in [
            (None, r#"Bearer realm="ag-ui""#),
            (
                Some("Bearer mallory"),
                r#"Bearer realm="ag-ui", error="invalid_token""#,
            ),
        ] {
            let mut request = client()
                .get(format!("{url}threads/thread-alice"))
                .header("accept", "text/event-stream");
            if let Some(a) = authorization {
                request = request.header("authorization", a);
            }
            let refused = request.send().await.unwrap();
            assert_eq!(refused.status(), 401, "{round}");
            assert_eq!(refused.headers()["www-authenticate"], challenge, "{round}");
            let doc: Value = serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
            assert_eq!(doc["code"], "unauthorized", "{round}");
            let input = body("thread-x", "run-x", "chat", &[], &json!({}));
            let refused = start(&url, authorization, &input).await;
            assert_eq!(refused.status(), 401, "{round}: a start");
        }
        server.kill();
        server.restart();
    }
    // Bob's own thread is his.
    let url = server.url();
    let mut theirs = Conversation::new(&url, "thread-bob", bob);
    theirs.turn("chat", "Weather?").await;
    assert_eq!(read_thread(&url, "thread-bob", bob).await.0, 200);
    assert_eq!(read_thread(&url, "thread-bob", alice).await.0, 404);
}

#[tokio::test]
async fn the_web_demo_with_threads_serves_its_conversation_after_a_restart() {
    let dir = temp_dir("threads-web");
    let mut server = ServeProcess::start_in(
        &dir,
        web_example(),
        "127.0.0.1:0",
        &["--pace-ms", "0", "--threads", "sqlite://web.db"],
    );
    let agent = format!("{}agent", server.url());
    let mut c = Conversation::new(&agent, "thread-web", None);
    c.turn("chat", "What is the weather in Amsterdam?").await;
    let (status, before) = read_thread(&format!("{agent}/"), "thread-web", None).await;
    assert_eq!(status, 200);
    assert_eq!(before, c.held());
    settled(&format!("{agent}/"), "thread-web", None).await;
    server.kill();
    server.restart();
    let agent = format!("{}agent", server.url());
    let (status, after) = read_thread(&format!("{agent}/"), "thread-web", None).await;
    assert_eq!(status, 200);
    assert_eq!(after, before);
    // The page is still served, with its threads sidebar.
    let page = client().get(server.url()).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains(r#"<ul id="threads">"#));
    // The routes the sidebar calls: the list, a rename, a delete.
    let list = |agent: String| async move {
        let answer = client()
            .get(format!("{agent}/threads?limit=50&archived=false"))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        let page: Value = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
        page["threads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["threadId"].clone(),
                    t["title"].clone(),
                    t["runCount"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        list(agent.clone()).await,
        [(json!("thread-web"), Value::Null, json!(1))]
    );
    let renamed = client()
        .patch(format!("{agent}/threads/thread-web"))
        .header("content-type", "application/json")
        .body(json!({"title": "Amsterdam weather"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(renamed.status(), 200);
    assert_eq!(
        list(agent.clone()).await,
        [(json!("thread-web"), json!("Amsterdam weather"), json!(1))]
    );
    let deleted = client()
        .delete(format!("{agent}/threads/thread-web"))
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    assert_eq!(list(agent).await, []);
}

#[test]
fn the_threads_and_bearer_options_refuse_what_they_cannot_use() {
    let dir = temp_dir("threads-options");
    for (args, says) in [
        (
            &["--threads", "mysql://db/x"][..],
            "--threads: expected a postgres://",
        ),
        (&["--threads"][..], "--threads needs a URL"),
        (
            &["--bearer", "no-principal"][..],
            "--bearer: expected TOKEN=PRINCIPAL",
        ),
        (
            &["--bearer", "s3cret="][..],
            "--bearer: a bearer token's principal is empty",
        ),
        (
            &["--bearer", "two words=ann"][..],
            "is empty or not a b64token",
        ),
        (
            &["--threads", "sqlite://no-such-dir/threads.db"][..],
            "--threads: sqlite://no-such-dir/threads.db",
        ),
    ] {
        for example in [serve_example(), web_example()] {
            let out = std::process::Command::new(&example)
                .current_dir(&dir)
                .arg("127.0.0.1:0")
                .args(args)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{args:?}: {}", example.display());
            assert!(stderr.contains(says), "{args:?}: {stderr}");
            assert!(out.stdout.is_empty(), "{args:?}: it bound an address");
        }
    }
    // No token is ever repeated in an error.
    let out = std::process::Command::new(serve_example())
        .args(["--bearer", "s3cret&=ann"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("s3cret"));
}
