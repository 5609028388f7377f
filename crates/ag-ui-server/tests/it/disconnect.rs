//! What an agent may rely on when the client goes away (the statements of `Cancellation`'s
//! docs, one test each).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ag_ui_builders::RunEmitter;
use ag_ui_core::RunAgentInput;
use ag_ui_server::serve::ServeConfig;
use ag_ui_server::{AgentStream, Cancellation, emit};
use serde_json::json;

use crate::support::{Events, Server, input, post, serve_router};

#[derive(Default)]
struct Seen {
    after_await: AtomicBool,
    dropped: AtomicBool,
    cancelled_at_drop: AtomicBool,
    watcher_saw_cancel: AtomicBool,
}

/// Sets its flags when dropped.
struct OnDrop(Arc<Seen>, Cancellation);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0
            .cancelled_at_drop
            .store(self.1.is_cancelled(), Ordering::SeqCst);
        self.0.dropped.store(true, Ordering::SeqCst);
    }
}

/// An agent that sends one text delta, then waits (as for a model's next token), with a
/// `Drop` guard in its body and a spawned task watching the cancellation.
async fn server(seen: &Arc<Seen>) -> Server {
    let seen = Arc::clone(seen);
    let agent = move |input: RunAgentInput, cancel: Cancellation| -> AgentStream {
        let seen = Arc::clone(&seen);
        let watcher = cancel.clone();
        let watched = Arc::clone(&seen);
        tokio::spawn(async move {
            watcher.cancelled().await;
            watched.watcher_saw_cancel.store(true, Ordering::SeqCst);
        });
        emit(RunEmitter::start_for(&input), move |mut run| async move {
            let _guard = OnDrop(Arc::clone(&seen), cancel.clone());
            run.emit(|r| r.text("first")).await?;
            // Waits for ever, the way a run waits for its model: the client goes away here.
            std::future::pending::<()>().await;
            seen.after_await.store(true, Ordering::SeqCst);
            run.emit(RunEmitter::finish).await
        })
    };
    serve_router(ag_ui_server::axum::router(agent), ServeConfig::new()).await
}

/// Starts a run, reads its first events, then goes away.
async fn start_and_leave(server: &Server) {
    let mut events = Events::new(post(server, &input("run-1", json!({}))).await);
    for _ in 0..3 {
        events.next().await.unwrap();
    }
    drop(events);
}

async fn wait_for(flag: &AtomicBool) -> bool {
    for _ in 0..200 {
        if flag.load(Ordering::SeqCst) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}

#[tokio::test]
async fn code_after_the_pending_await_in_emit_does_not_run_after_a_disconnect() {
    let seen = Arc::new(Seen::default());
    let server = server(&seen).await;
    start_and_leave(&server).await;
    assert!(wait_for(&seen.dropped).await, "the body was not dropped");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!seen.after_await.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_drop_guard_in_the_body_runs_and_sees_the_cancellation_tripped() {
    let seen = Arc::new(Seen::default());
    let server = server(&seen).await;
    start_and_leave(&server).await;
    assert!(
        wait_for(&seen.dropped).await,
        "the body's Drop guard did not run"
    );
    assert!(seen.cancelled_at_drop.load(Ordering::SeqCst));
}

#[tokio::test]
async fn spawned_work_watching_the_cancellation_sees_it() {
    let seen = Arc::new(Seen::default());
    let server = server(&seen).await;
    start_and_leave(&server).await;
    assert!(
        wait_for(&seen.watcher_saw_cancel).await,
        "the spawned watcher never saw the cancellation"
    );
}
