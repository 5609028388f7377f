//! Servers on 127.0.0.1:0 and the binary run with a time limit.

use std::process::Stdio;
use std::time::Duration;

use ag_ui_server::demo::DemoAgent;
use serde_json::Value;

/// How long one command may take.
pub const LIMIT: Duration = Duration::from_secs(30);

/// A server serving on a loopback port until dropped.
pub struct Server {
    pub url: String,
    pub task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The demo agent served by the workspace's server, without pauses between events.
pub async fn demo() -> Server {
    serve_demo(DemoAgent::with_pace(Duration::ZERO)).await
}

/// `agent` served by the workspace's server.
pub async fn serve_demo(agent: DemoAgent) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = ag_ui_server::axum::serve(listener, ag_ui_server::axum::router(agent)).await;
    });
    Server { url, task }
}

/// What a finished command left.
#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// stdout as JSON Lines, every line parsed.
    pub fn lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}\n{self:?}"))
            })
            .collect()
    }

    /// stdout as one JSON document.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }
}

/// Runs `ag-ui ARGS` with `stdin` as its input, within [`LIMIT`].
pub async fn ag_ui_with_stdin(args: &[&str], stdin: &str) -> Output {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    let out = tokio::time::timeout(LIMIT, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("ag-ui {args:?} took longer than {LIMIT:?}"))
        .unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `ag-ui ARGS` with an empty stdin, within [`LIMIT`].
pub async fn ag_ui(args: &[&str]) -> Output {
    ag_ui_with_stdin(args, "").await
}

/// A file in a fresh temporary folder of this test, removed by the caller's process end.
pub fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "ag-ui-cli-test-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
