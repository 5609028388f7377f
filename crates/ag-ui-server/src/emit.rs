//! From the builders' [`RunEmitter`] to an agent's event stream, through a bounded channel.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use ag_ui_builders::RunEmitter;
use ag_ui_core::Event;
use futures_channel::mpsc;
use futures_core::Stream;
use futures_util::SinkExt;

use ag_ui_core::BoxError;

/// Batches of events the channel holds before [`Emitter::emit`] waits for the server to
/// write them.
pub const DEFAULT_CAPACITY: usize = 16;

/// Why [`Emitter::emit`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmitError {
    /// The server dropped the stream (the client went away): stop working.
    #[error("the run's stream was dropped (the client went away)")]
    Closed,
    /// The emitter refused the operation (for example text after the run ended).
    #[error(transparent)]
    Emitter(#[from] ag_ui_builders::BuildError),
}

/// The agent's side of [`emit`]: a [`RunEmitter`] whose events go to the server as soon as
/// each operation returns.
#[derive(Debug)]
pub struct Emitter {
    run: RunEmitter,
    tx: mpsc::Sender<Vec<Event>>,
    /// Where events still buffered go when the emitter is dropped (the channel may be full).
    tail: Arc<Mutex<Vec<Event>>>,
}

impl Emitter {
    /// Runs `op` on the emitter, then sends the events it produced, waiting while the
    /// channel is full (the client reads slower than the agent produces).
    ///
    /// # Errors
    /// [`EmitError::Emitter`] when `op` fails (events it produced before failing are still
    /// sent); [`EmitError::Closed`] when the stream has been dropped.
    pub async fn emit<R>(
        &mut self,
        op: impl FnOnce(&mut RunEmitter) -> Result<R, ag_ui_builders::BuildError>,
    ) -> Result<R, EmitError> {
        let result = op(&mut self.run);
        self.flush().await?;
        Ok(result?)
    }

    /// Sends the events buffered in the emitter (those produced through
    /// [`run_mut`](Self::run_mut)).
    ///
    /// # Errors
    /// [`EmitError::Closed`] when the stream has been dropped.
    pub async fn flush(&mut self) -> Result<(), EmitError> {
        let events = self.run.drain();
        if events.is_empty() {
            return Ok(());
        }
        self.tx.send(events).await.map_err(|_| EmitError::Closed)
    }

    /// The emitter itself, for reading (`is_ended`, ids, usage so far).
    #[must_use]
    pub fn run(&self) -> &RunEmitter {
        &self.run
    }

    /// The emitter itself, for several operations sent together by the next
    /// [`flush`](Self::flush) or [`emit`](Self::emit) (or when the agent returns).
    pub fn run_mut(&mut self) -> &mut RunEmitter {
        &mut self.run
    }
}

impl Drop for Emitter {
    fn drop(&mut self) {
        let events = self.run.drain();
        if !events.is_empty() {
            match self.tail.lock() {
                Ok(mut t) => t.extend(events),
                Err(poisoned) => poisoned.into_inner().extend(events),
            }
        }
    }
}

/// Streams a run driven through a [`RunEmitter`]: `body` gets an [`Emitter`] and does the
/// agent's work; each [`Emitter::emit`] hands its events to the returned stream, which the
/// server writes as they come. The channel between them holds [`DEFAULT_CAPACITY`]
/// batches, so a slow client slows the agent down instead of filling memory.
///
/// The stream drives `body` itself when polled (no task is spawned, no runtime needed).
/// When `body` returns `Err`, the stream yields the events sent so far, then the error
/// (which the server turns into `RUN_ERROR`); when it panics, the stream yields the events
/// sent so far, then resumes the panic (which the server's [`RunGuard`](crate::RunGuard)
/// catches). Events still buffered in the emitter when
/// `body` returns are delivered too.
///
/// ```
/// use ag_ui_core::RunAgentInput;
/// use ag_ui_server::{Cancellation, AgentStream, emit};
/// use ag_ui_builders::RunEmitter;
///
/// fn hello(input: RunAgentInput, _cancel: Cancellation) -> AgentStream {
///     emit(RunEmitter::start_for(&input), |mut run| async move {
///         run.emit(|r| r.text("Hello")).await?;
///         run.emit(|r| r.finish()).await?;
///         Ok::<_, ag_ui_server::EmitError>(())
///     })
/// }
/// # fn assert_agent(_: impl ag_ui_server::Agent) {}
/// # assert_agent(hello);
/// ```
pub fn emit<F, Fut, E>(run: RunEmitter, body: F) -> crate::AgentStream
where
    F: FnOnce(Emitter) -> Fut,
    Fut: Future<Output = Result<(), E>> + Send + 'static,
    E: Into<BoxError>,
{
    emit_with_capacity(run, DEFAULT_CAPACITY, body)
}

/// [`emit`] with a channel of `capacity` batches (at least 1).
pub fn emit_with_capacity<F, Fut, E>(
    run: RunEmitter,
    capacity: usize,
    body: F,
) -> crate::AgentStream
where
    F: FnOnce(Emitter) -> Fut,
    Fut: Future<Output = Result<(), E>> + Send + 'static,
    E: Into<BoxError>,
{
    // futures-channel gives every sender one slot beyond the buffer.
    let (tx, rx) = mpsc::channel(capacity.max(1) - 1);
    let tail = Arc::new(Mutex::new(Vec::new()));
    let emitter = Emitter {
        run,
        tx,
        tail: Arc::clone(&tail),
    };
    let fut = body(emitter);
    Box::pin(EmitStream {
        body: Some(Box::pin(async move { fut.await.map_err(Into::into) })),
        rx,
        ready: VecDeque::new(),
        tail,
        error: None,
        panic: None,
        done: false,
    })
}

type Body = Pin<Box<dyn Future<Output = Result<(), BoxError>> + Send>>;

struct EmitStream {
    body: Option<Body>,
    rx: mpsc::Receiver<Vec<Event>>,
    ready: VecDeque<Event>,
    tail: Arc<Mutex<Vec<Event>>>,
    error: Option<BoxError>,
    /// The body panicked: the panic resumes once the events it sent are delivered.
    panic: Option<Box<dyn std::any::Any + Send>>,
    done: bool,
}

impl Stream for EmitStream {
    type Item = Result<Event, BoxError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(event) = this.ready.pop_front() {
                return Poll::Ready(Some(Ok(event)));
            }
            if this.done {
                if let Some(payload) = this.panic.take() {
                    std::panic::resume_unwind(payload);
                }
                return Poll::Ready(this.error.take().map(Err));
            }
            if let Some(body) = this.body.as_mut() {
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    body.as_mut().poll(cx)
                })) {
                    // Dropping the body drops the emitter, its sender and its leftovers.
                    Ok(Poll::Ready(result)) => {
                        this.body = None;
                        this.error = result.err();
                    }
                    Ok(Poll::Pending) => {}
                    Err(payload) => {
                        this.body = None;
                        this.panic = Some(payload);
                    }
                }
            }
            match Pin::new(&mut this.rx).poll_next(cx) {
                Poll::Ready(Some(batch)) => this.ready.extend(batch),
                Poll::Ready(None) => {
                    let tail = match this.tail.lock() {
                        Ok(mut t) => std::mem::take(&mut *t),
                        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
                    };
                    this.ready.extend(tail);
                    this.done = true;
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
