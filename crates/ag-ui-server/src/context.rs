//! What an agent may know about the request that started its run.

use std::net::SocketAddr;
use std::sync::Arc;

use ag_ui_core::{RunAgentInput, RunId, ThreadId};

use crate::Cancellation;

/// The peer address of a connection, put in each request's extensions by
/// [`serve`](crate::serve::serve) (and read by [`AgentService`](crate::AgentService) into
/// [`RunContext::peer_addr`]). Any server may insert it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(clippy::exhaustive_structs)] // a newtype that servers construct
pub struct PeerAddr(pub SocketAddr);

/// Who a request comes from, as an authentication layer in front of the agent found them:
/// put in the request's extensions (by any layer), read by
/// [`AgentService`](crate::AgentService) into [`RunContext::principal`]. With resumable runs,
/// the principal [`Runs::authorize`](crate::runs::Runs::authorize) names takes its place.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[allow(clippy::exhaustive_structs)] // a newtype that layers construct
pub struct Principal(pub String);

/// What a run knows about where it came from: its cancellation signal, its ids, the request
/// id, the peer's address and (with the `tower` feature) the request's head: method, URI,
/// headers and the extensions that layers in front of the agent put there (the user an
/// authentication layer found, for example).
///
/// [`AgentService`](crate::AgentService) and the axum [`RunInput`](crate::axum::RunInput)
/// extractor build one per request and hand it to [`Agent::run_with_context`]; an agent that
/// wants it implements that method, or is a closure wrapped in [`ContextAgent`].
///
/// ```
/// use ag_ui_server::{Cancellation, RunContext};
/// let input: ag_ui_core::RunAgentInput =
///     ag_ui_core::read::from_str(r#"{"threadId":"t-1","runId":"r-1","messages":[]}"#).unwrap();
/// let context = RunContext::new(&input, Cancellation::new()).with_request_id("req-7");
/// assert_eq!(context.run_id().as_str(), "r-1");
/// assert_eq!(context.request_id(), Some("req-7"));
/// assert_eq!(context.peer_addr(), None);
/// ```
///
/// [`Agent::run_with_context`]: crate::Agent::run_with_context
/// [`ContextAgent`]: crate::ContextAgent
#[derive(Clone)]
pub struct RunContext {
    cancel: Cancellation,
    thread_id: ThreadId,
    run_id: RunId,
    request_id: Option<Arc<str>>,
    peer_addr: Option<SocketAddr>,
    principal: Option<Arc<str>>,
    #[cfg(feature = "tower")]
    request: Arc<http::request::Parts>,
}

impl std::fmt::Debug for RunContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("RunContext");
        d.field("thread_id", &self.thread_id.as_str())
            .field("run_id", &self.run_id.as_str())
            .field("request_id", &self.request_id)
            .field("peer_addr", &self.peer_addr)
            .field("principal", &self.principal)
            .field("cancelled", &self.cancel.is_cancelled());
        #[cfg(feature = "tower")]
        d.field("method", &self.request.method)
            .field("uri", &self.request.uri);
        d.finish_non_exhaustive()
    }
}

impl RunContext {
    /// The context of a run of `input` outside any request (no request id, no peer, an empty
    /// request head): what [`Agent::run`](crate::Agent::run) callers and tests use.
    #[must_use]
    pub fn new(input: &RunAgentInput, cancel: Cancellation) -> Self {
        RunContext {
            cancel,
            thread_id: input.thread_id.clone(),
            run_id: input.run_id.clone(),
            request_id: None,
            peer_addr: None,
            principal: None,
            #[cfg(feature = "tower")]
            request: Arc::new(http::Request::new(()).into_parts().0),
        }
    }

    /// This context with `id` as its request id.
    #[must_use]
    pub fn with_request_id(mut self, id: impl Into<String>) -> Self {
        self.request_id = Some(Arc::from(id.into()));
        self
    }

    /// This context with `addr` as the peer's address.
    #[must_use]
    pub fn with_peer_addr(mut self, addr: SocketAddr) -> Self {
        self.peer_addr = Some(addr);
        self
    }

    /// This context with `principal` as who the request comes from.
    #[must_use]
    pub fn with_principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(Arc::from(principal.into()));
        self
    }

    /// This context with `request` as the request's head. The request id (when none is set
    /// yet) is read from its `x-request-id` header, the peer address (when none is set yet)
    /// from its [`PeerAddr`] extension, the principal (when none is set yet) from its
    /// [`Principal`] extension.
    #[cfg(feature = "tower")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
    #[must_use]
    pub fn with_request(mut self, request: http::request::Parts) -> Self {
        if self.request_id.is_none()
            && let Some(id) = request
                .headers
                .get("x-request-id")
                .and_then(|v| v.to_str().ok())
        {
            self.request_id = Some(Arc::from(id));
        }
        if self.peer_addr.is_none() {
            self.peer_addr = request.extensions.get::<PeerAddr>().map(|p| p.0);
        }
        if self.principal.is_none() {
            self.principal = request
                .extensions
                .get::<Principal>()
                .map(|p| Arc::from(p.0.as_str()));
        }
        self.request = Arc::new(request);
        self
    }

    /// This context with another cancellation signal (the one the run is guarded with).
    #[must_use]
    pub(crate) fn with_cancellation(mut self, cancel: Cancellation) -> Self {
        self.cancel = cancel;
        self
    }

    /// The run's cancellation signal, tripped when the client goes away (see
    /// [`Cancellation`] for what an agent may rely on then).
    #[must_use]
    pub fn cancellation(&self) -> &Cancellation {
        &self.cancel
    }

    /// The run's thread id (from the input).
    #[must_use]
    pub fn thread_id(&self) -> &ThreadId {
        &self.thread_id
    }

    /// The run's id (from the input).
    #[must_use]
    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// The request id: the request's `x-request-id` header (what tower-http's request-id
    /// layer sets), when there is one.
    #[must_use]
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// The address of the peer the request came from, when the server knows it.
    #[must_use]
    pub fn peer_addr(&self) -> Option<SocketAddr> {
        self.peer_addr
    }

    /// Who the request comes from: the principal [`Runs::authorize`](crate::runs::Runs::authorize)
    /// named (for a service with resumable runs), else the [`Principal`] an authentication
    /// layer put in the request's extensions; `None` when neither did.
    #[must_use]
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// The request's head: method, URI, version, headers and extensions (empty for a context
    /// made with [`RunContext::new`] alone).
    #[cfg(feature = "tower")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
    #[must_use]
    pub fn request(&self) -> &http::request::Parts {
        &self.request
    }

    /// The request's headers.
    #[cfg(feature = "tower")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
    #[must_use]
    pub fn headers(&self) -> &http::HeaderMap {
        &self.request.headers
    }

    /// The request's extensions: what the layers in front of the agent put there (an
    /// authentication layer's user, for example).
    #[cfg(feature = "tower")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tower")))]
    #[must_use]
    pub fn extensions(&self) -> &http::Extensions {
        &self.request.extensions
    }
}
