//! A run's writes to its thread store: the start, the checkpoints, the end. A failure is
//! logged and retried a bounded number of times; it never reaches the run's stream.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ag_ui_core::{Event, Message, ThreadState, TokenUsage};

use super::log::log_warn;
use crate::threads::{
    RunEndKind, RunEnding, RunStart, ThreadFuture, ThreadStore, ThreadStoreError,
};

/// Attempts of one write before it is given up (a start left unwritten is tried again
/// with the next checkpoint and at the end).
const ATTEMPTS: u32 = 4;
/// The wait after the first failed attempt; it doubles after each.
const FIRST_RETRY: Duration = Duration::from_millis(50);

/// One run's thread writes.
pub(crate) struct Journal {
    store: Arc<dyn ThreadStore>,
    owner: Option<String>,
    thread_id: String,
    run_id: String,
    /// The start, until it has been written.
    unwritten: Mutex<Option<RunStart>>,
}

/// What a run's terminal event tells its thread store.
#[derive(Debug, Clone)]
pub(crate) struct Ending {
    pub(crate) outcome: RunEndKind,
    pub(crate) usage: Vec<TokenUsage>,
    pub(crate) code: Option<String>,
}

impl Ending {
    /// The ending `event` tells, `None` for an event that ends no run.
    pub(crate) fn of(event: &Event) -> Option<Self> {
        let outcome = RunEndKind::of_terminal(event)?;
        let (usage, code) = match event {
            Event::RunFinished(e) => (e.usage.clone(), None),
            Event::RunError(e) => (e.usage.clone(), e.code.clone()),
            _ => (None, None),
        };
        Some(Ending {
            outcome,
            usage: usage.unwrap_or_default(),
            code,
        })
    }
}

/// Runs `op` up to `attempts` times while the store fails (a backend failure); other
/// errors are final.
async fn retry<'a, T>(
    attempts: u32,
    mut op: impl FnMut() -> ThreadFuture<'a, T>,
) -> Result<T, ThreadStoreError> {
    let mut wait = FIRST_RETRY;
    let mut attempt = 1;
    loop {
        match op().await {
            Err(ThreadStoreError::Backend(_)) if attempt < attempts => {
                tokio::time::sleep(wait).await;
                wait *= 2;
                attempt += 1;
            }
            r => return r,
        }
    }
}

/// The messages of `input` that `stored` does not have, by id.
pub(crate) fn new_messages(input: &[Message], stored: Option<&ThreadState>) -> Vec<Message> {
    match stored {
        None => input.to_vec(),
        Some(t) => input
            .iter()
            .filter(|m| t.message(m.id().as_str()).is_none())
            .cloned()
            .collect(),
    }
}

impl Journal {
    pub(crate) fn new(
        store: Arc<dyn ThreadStore>,
        owner: Option<String>,
        thread_id: String,
        run_id: String,
    ) -> Self {
        Journal {
            store,
            owner,
            thread_id,
            run_id,
            unwritten: Mutex::new(None),
        }
    }

    /// The stored thread's fold, to tell the input's new messages (`None` when the
    /// owner has no such thread, or the store failed). One attempt: the run's response
    /// waits for it.
    pub(crate) async fn stored(&self) -> Option<ThreadState> {
        match retry(1, || {
            self.store.thread(self.owner.as_deref(), &self.thread_id)
        })
        .await
        {
            Ok(t) => t.map(|t| t.thread),
            Err(_e) => {
                log_warn!(run_id = %self.run_id, error = %_e, "the thread store could not be read at a run's start");
                None
            }
        }
    }

    /// Writes the run's start (one attempt: the run's response waits for it); when that
    /// fails, it is tried again with the next checkpoint and at the end.
    pub(crate) async fn begin(&self, start: RunStart) {
        *self.lock() = Some(start);
        self.write_start(1).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<RunStart>> {
        crate::sync::lock(&self.unwritten)
    }

    /// Writes the start if it is still unwritten; whether it is written.
    async fn write_start(&self, attempts: u32) -> bool {
        let Some(start) = self.lock().clone() else {
            return true;
        };
        let owner = self.owner.as_deref();
        match retry(attempts, || self.store.begin_run(owner, start.clone())).await {
            // A retried write whose first reply was lost.
            Ok(()) | Err(ThreadStoreError::RunExists(_)) => {
                *self.lock() = None;
                true
            }
            Err(_e) => {
                log_warn!(run_id = %self.run_id, error = %_e, "a run's start could not be written to the thread store");
                false
            }
        }
    }

    /// Writes the fold of the run in progress (one attempt: the next checkpoint is the
    /// retry).
    pub(crate) async fn checkpoint(&self, thread: ThreadState) {
        if !self.write_start(ATTEMPTS).await {
            return;
        }
        let r = self
            .store
            .checkpoint(
                self.owner.as_deref(),
                &self.thread_id,
                &self.run_id,
                &thread,
            )
            .await;
        if let Err(_e) = r {
            log_warn!(run_id = %self.run_id, error = %_e, "a run's checkpoint could not be written to the thread store");
        }
    }

    /// Writes the run's end with its thread.
    pub(crate) async fn end(&self, ending: Ending, thread: ThreadState) {
        if !self.write_start(ATTEMPTS).await {
            return;
        }
        let end = RunEnding::new(&self.thread_id, &self.run_id, ending.outcome, thread)
            .with_usage(ending.usage)
            .with_error_code(ending.code);
        let owner = self.owner.as_deref();
        if let Err(_e) = retry(ATTEMPTS, || self.store.end_run(owner, end.clone())).await {
            log_warn!(run_id = %self.run_id, error = %_e, "a run's end could not be written to the thread store");
        }
    }

    /// Marks the run lost: its owner could not end it (the run store lost it, or another
    /// instance ended it).
    pub(crate) async fn lose(&self) {
        if !self.write_start(ATTEMPTS).await {
            return;
        }
        let owner = self.owner.as_deref();
        if let Err(_e) = retry(ATTEMPTS, || {
            self.store.lose_run(owner, &self.thread_id, &self.run_id)
        })
        .await
        {
            log_warn!(run_id = %self.run_id, error = %_e, "a lost run could not be marked in the thread store");
        }
    }
}
