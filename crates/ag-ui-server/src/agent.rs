//! The agent abstraction: a run input and a cancellation signal in, a stream of events out.

use std::pin::Pin;

use ag_ui_core::{Event, RunAgentInput};
use futures_core::Stream;
use futures_util::StreamExt;

use crate::{Cancellation, RunContext};

use ag_ui_core::BoxError;

/// The stream of events one run produces: events, or an error that ends the run.
pub type AgentStream = Pin<Box<dyn Stream<Item = Result<Event, BoxError>> + Send + 'static>>;

/// An AG-UI agent: turns one run's input into a stream of events.
///
/// The server polls the stream and writes each event as soon as it is produced. It makes
/// the stream well-ended whatever the agent does: an `Err` item, a panic (in `run` itself
/// or while the stream is polled), or a stream that ends with its run still open becomes a
/// `RUN_ERROR`
/// (see [`crate::RunGuard`]). When the client goes away, the server trips `cancel` and then
/// drops the stream.
///
/// Any `Fn(RunAgentInput, Cancellation) -> S` where `S` is a `Stream` of
/// `Result<Event, E>` is an agent; [`crate::emit`] builds such a stream from the builders'
/// [`RunEmitter`](ag_ui_builders::RunEmitter).
///
/// ```
/// use ag_ui_core::{Event, RunAgentInput, RunFinishedEvent, RunStartedEvent};
/// use ag_ui_server::{Agent, Cancellation};
///
/// fn agent(input: RunAgentInput, _cancel: Cancellation) -> impl futures_core::Stream<Item = Result<Event, std::io::Error>> {
///     let events: Vec<Result<Event, std::io::Error>> = vec![
///         Ok(RunStartedEvent::new(input.thread_id.clone(), input.run_id.clone()).into()),
///         Ok(RunFinishedEvent::new(input.thread_id, input.run_id).into()),
///     ];
///     futures_util::stream::iter(events)
/// }
/// fn assert_agent(_: impl Agent) {}
/// assert_agent(agent);
/// ```
pub trait Agent: Send + Sync + 'static {
    /// Starts a run. Called once per request, after the request has been read (through
    /// [`run_with_context`](Self::run_with_context), which calls this unless the agent
    /// implements it).
    fn run(&self, input: RunAgentInput, cancel: Cancellation) -> AgentStream;

    /// Starts a run with what the server knows about its request: headers, extensions (what
    /// an authentication layer put there), the peer's address, the run's ids (see
    /// [`RunContext`]). The server calls this one; by default it calls
    /// [`run`](Self::run) with the context's cancellation signal.
    ///
    /// An agent that needs the request implements it (and `run`, which may call it with
    /// [`RunContext::new`]); a closure that takes the context is wrapped in
    /// [`ContextAgent`].
    fn run_with_context(&self, input: RunAgentInput, context: RunContext) -> AgentStream {
        let cancel = context.cancellation().clone();
        self.run(input, cancel)
    }
}

/// An agent from a closure that takes the run's [`RunContext`]:
/// `Fn(RunAgentInput, RunContext) -> impl Stream<Item = Result<Event, E>>`.
///
/// ```
/// use ag_ui_core::{Event, RunAgentInput, RunFinishedEvent, RunStartedEvent};
/// use ag_ui_server::{Agent, ContextAgent, RunContext};
///
/// let agent = ContextAgent::new(|input: RunAgentInput, context: RunContext| {
///     // The user an authentication layer found, the caller's address, ...
///     let _peer = context.peer_addr();
///     let events: Vec<Result<Event, std::io::Error>> = vec![
///         Ok(RunStartedEvent::new(input.thread_id.clone(), input.run_id.clone()).into()),
///         Ok(RunFinishedEvent::new(input.thread_id, input.run_id).into()),
///     ];
///     futures_util::stream::iter(events)
/// });
/// fn assert_agent(_: impl Agent) {}
/// assert_agent(agent);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ContextAgent<F> {
    f: F,
}

impl<F> ContextAgent<F> {
    /// Wraps `f`.
    pub fn new(f: F) -> Self {
        ContextAgent { f }
    }
}

impl<F, S, E> Agent for ContextAgent<F>
where
    F: Fn(RunAgentInput, RunContext) -> S + Send + Sync + 'static,
    S: Stream<Item = Result<Event, E>> + Send + 'static,
    E: Into<BoxError>,
{
    fn run(&self, input: RunAgentInput, cancel: Cancellation) -> AgentStream {
        let context = RunContext::new(&input, cancel);
        self.run_with_context(input, context)
    }

    fn run_with_context(&self, input: RunAgentInput, context: RunContext) -> AgentStream {
        Box::pin((self.f)(input, context).map(|item| item.map_err(Into::into)))
    }
}

impl<F, S, E> Agent for F
where
    F: Fn(RunAgentInput, Cancellation) -> S + Send + Sync + 'static,
    S: Stream<Item = Result<Event, E>> + Send + 'static,
    E: Into<BoxError>,
{
    fn run(&self, input: RunAgentInput, cancel: Cancellation) -> AgentStream {
        Box::pin(self(input, cancel).map(|item| item.map_err(Into::into)))
    }
}
