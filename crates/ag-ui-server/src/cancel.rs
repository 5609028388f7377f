//! A runtime-free cancellation signal.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// A cancellation signal shared by the server and an agent's run.
///
/// The server trips it when the client goes away (the response body is dropped before the
/// stream ended). Clones share one signal. It needs no runtime: waiting is a plain
/// [`Future`].
///
/// # What an agent may rely on when the client goes away
///
/// The server trips the signal, then drops the agent's stream. For an agent written with
/// [`emit`](crate::emit) that means its body future is dropped where it is waiting:
///
/// - code after the `.await` the body is waiting on does not run (no "clean-up after the
///   loop", no final `emit`);
/// - values the body owns are dropped, so a `Drop` guard in the body runs, and sees
///   [`is_cancelled`](Self::is_cancelled) already `true`: put clean-up there;
/// - work the agent spawned (a task that outlives the stream) keeps running: it should
///   watch the signal, `select`ing on [`cancelled`](Self::cancelled) or checking
///   [`is_cancelled`](Self::is_cancelled) between steps, and stop when it trips.
///
/// Awaiting [`cancelled`](Self::cancelled) inside an `emit` body is dead code: when it would
/// complete, the body is already gone. Each statement is tested
/// (`tests/it/disconnect.rs`).
///
/// ```
/// let signal = ag_ui_server::Cancellation::new();
/// let seen_by_agent = signal.clone();
/// assert!(!seen_by_agent.is_cancelled());
/// signal.cancel();
/// assert!(seen_by_agent.is_cancelled());
/// ```
#[derive(Clone, Default)]
pub struct Cancellation {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    wakers: Mutex<Vec<Waker>>,
}

impl std::fmt::Debug for Cancellation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cancellation")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl Cancellation {
    /// A signal that has not been tripped.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Trips the signal and wakes every task waiting on [`cancelled`](Self::cancelled).
    /// Tripping it again does nothing.
    pub fn cancel(&self) {
        if !self.inner.cancelled.swap(true, Ordering::AcqRel) {
            let wakers = match self.inner.wakers.lock() {
                Ok(mut w) => std::mem::take(&mut *w),
                Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
            };
            for w in wakers {
                w.wake();
            }
        }
    }

    /// Whether the signal has been tripped.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// A future that completes once the signal is tripped.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled {
            signal: self.clone(),
        }
    }
}

/// Completes when its [`Cancellation`] is tripped (from [`Cancellation::cancelled`]).
#[derive(Debug)]
#[must_use = "futures do nothing unless awaited"]
pub struct Cancelled {
    signal: Cancellation,
}

impl Future for Cancelled {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.signal.is_cancelled() {
            return Poll::Ready(());
        }
        {
            let mut wakers = crate::sync::lock(&self.signal.inner.wakers);
            if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
                wakers.push(cx.waker().clone());
            }
        }
        // Checked again after registering, so a cancel in between is not missed.
        if self.signal.is_cancelled() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}
