//! A production HTTP server for any tower service (feature `serve`): HTTP/1.1 and HTTP/2
//! on hyper-util's server, with the timeouts and limits a server on the open internet
//! needs.
//!
//! [`serve`] accepts connections on a `TcpListener` (bind it with [`ServeConfig::bind`] to
//! get the configured listen backlog) and serves each one with HTTP/1.1, or HTTP/2 when the
//! client opens with the HTTP/2 preface (h2c by prior knowledge, or h2 after a TLS
//! handshake that negotiated it through ALPN: terminate TLS yourself and hand the stream
//! to [`serve_connection`]).
//!
//! | setting | default | what it bounds |
//! |---|---|---|
//! | [`header_timeout`](ServeConfig::header_timeout) | 10 s | from the connection's first moment (or a keep-alive connection's first new byte) to a complete request head, protocol detection included: a client that sends nothing, one byte or a header a second is closed then |
//! | [`body_timeout`](ServeConfig::body_timeout) | 30 s | from the request head to the end of its body: a slow or endless body fails with [`BodyTimeout`] (the agent endpoint answers 408) |
//! | [`idle_timeout`](ServeConfig::idle_timeout) | 60 s | a connection with no request in progress (HTTP/1 keep-alive, an HTTP/2 connection without streams) is closed then |
//! | [`write_timeout`](ServeConfig::write_timeout) | 60 s | how long the server waits for a client to accept any byte of what it has to send: a client that stops reading a run's stream (or any response) is closed then, and its run treated as for a client that went away |
//! | [`max_connections`](ServeConfig::max_connections) | 1000 | open connections; beyond it the server stops accepting and new connections wait in the listen backlog (below the common 1024 open-file limit: raise both together) |
//! | [`backlog`](ServeConfig::backlog) | 4096 | connections the kernel holds before they are accepted (capped by `net.core.somaxconn`), for [`ServeConfig::bind`] |
//! | [`write_buffer`](ServeConfig::write_buffer) | 32 KiB | what hyper buffers per connection (HTTP/1 read and write buffers, so also the largest request head; HTTP/2 send buffer per stream) |
//!
//! With these, a client that stops reading a run's stream holds at most about 128 KiB of
//! the server's memory (hyper's buffer, one coalesced chunk of at most 16 KiB and the
//! agent's emit channel) until the write timeout closes it; the agent waits meanwhile. The
//! write timeout watches the connection's socket: over HTTP/2, a client that goes on
//! reading the connection but not one stream's data stalls only that stream (HTTP/2 flow
//! control), which holds its window's worth of memory and no timer.
//!
//! Requests the HTTP layer refuses by itself over HTTP/1 (a malformed request 400, a head
//! too large 431, a URI too long 414) get the crate's JSON error body (see [`Rejection`]),
//! like every other response the server makes. (A connection closed for a timeout gets no
//! response.) Each request carries the peer's [`PeerAddr`] in its
//! extensions (and axum's `ConnectInfo<SocketAddr>` with the `axum` feature).

use std::future::{Future, poll_fn};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::task::AtomicWaker;
use http::{Request, Response};
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::time::{Instant, Sleep};

use crate::{BodyTimeout, PeerAddr, Rejection};
use ag_ui_core::BoxError;

/// Default [`ServeConfig::header_timeout`]: 10 s.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default [`ServeConfig::body_timeout`]: 30 s.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Default [`ServeConfig::idle_timeout`]: 60 s.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default [`ServeConfig::write_timeout`]: 60 s.
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default [`ServeConfig::max_connections`]: 1000.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1000;
/// Default [`ServeConfig::backlog`]: 4096.
pub const DEFAULT_BACKLOG: u32 = 4096;
/// Default [`ServeConfig::write_buffer`]: 32 KiB.
pub const DEFAULT_WRITE_BUFFER: usize = 32 * 1024;

/// How long an idle connection told to shut down may take to finish before it is dropped.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// The settings of [`serve`] (see the [module docs](self) for what each bounds and why the
/// defaults are what they are).
///
/// ```
/// use std::time::Duration;
/// let config = ag_ui_server::serve::ServeConfig::new()
///     .header_timeout(Duration::from_secs(5))
///     .max_connections(10_000);
/// assert_eq!(config.header_timeout_value(), Duration::from_secs(5));
/// ```
#[derive(Debug, Clone)]
pub struct ServeConfig {
    header_timeout: Duration,
    body_timeout: Duration,
    idle_timeout: Duration,
    write_timeout: Duration,
    max_connections: usize,
    backlog: u32,
    write_buffer: usize,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            backlog: DEFAULT_BACKLOG,
            write_buffer: DEFAULT_WRITE_BUFFER,
        }
    }
}

impl ServeConfig {
    /// The defaults.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Time a request head may take to arrive, counted from the connection's start (or, on
    /// a keep-alive connection, from the next request's first byte).
    #[must_use]
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Time a request body may take to arrive, counted from the end of its head.
    #[must_use]
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Time a connection may stay open with no request in progress.
    #[must_use]
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Time the server waits for the client to accept any byte of what it is writing;
    /// the connection is closed when it passes with nothing accepted. It is counted afresh
    /// each time the socket takes bytes; the kernel takes them from a waiting writer in
    /// batches (on Linux, once its send buffer is a third empty), so a client that reads
    /// on but drains less than that within the timeout is closed too.
    #[must_use]
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// Connections served at once (at least 1).
    #[must_use]
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// The listen backlog [`bind`](Self::bind) asks for.
    #[must_use]
    pub fn backlog(mut self, n: u32) -> Self {
        self.backlog = n;
        self
    }

    /// hyper's per-connection buffer (at least 8 KiB): HTTP/1's read and write buffers
    /// (so also the largest request head accepted) and HTTP/2's send buffer per stream.
    #[must_use]
    pub fn write_buffer(mut self, bytes: usize) -> Self {
        self.write_buffer = bytes.max(8 * 1024);
        self
    }

    /// The header timeout set.
    #[must_use]
    pub fn header_timeout_value(&self) -> Duration {
        self.header_timeout
    }

    /// The body timeout set.
    #[must_use]
    pub fn body_timeout_value(&self) -> Duration {
        self.body_timeout
    }

    /// The idle timeout set.
    #[must_use]
    pub fn idle_timeout_value(&self) -> Duration {
        self.idle_timeout
    }

    /// The write timeout set.
    #[must_use]
    pub fn write_timeout_value(&self) -> Duration {
        self.write_timeout
    }

    /// The connection limit set.
    #[must_use]
    pub fn max_connections_value(&self) -> usize {
        self.max_connections
    }

    /// Binds a listener on the first address of `addr` that binds, with `SO_REUSEADDR` and
    /// the configured [`backlog`](Self::backlog).
    ///
    /// # Errors
    /// When `addr` resolves to nothing, or no address binds (the last error).
    pub async fn bind(&self, addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
        let mut last = None;
        for addr in tokio::net::lookup_host(addr).await? {
            let socket = if addr.is_ipv4() {
                tokio::net::TcpSocket::new_v4()?
            } else {
                tokio::net::TcpSocket::new_v6()?
            };
            socket.set_reuseaddr(true)?;
            match socket.bind(addr).and_then(|()| socket.listen(self.backlog)) {
                Ok(listener) => return Ok(listener),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the address resolved to nothing",
            )
        }))
    }

    fn builder(&self) -> hyper_util::server::conn::auto::Builder<TokioExecutor> {
        let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            // The connection's watchdog enforces the header timeout, from the first byte
            // (hyper's own would run during keep-alive idleness too).
            .header_read_timeout(None)
            .max_buf_size(self.write_buffer)
            .keep_alive(true);
        builder
            .http2()
            .timer(TokioTimer::new())
            .max_send_buf_size(self.write_buffer)
            .max_concurrent_streams(256);
        builder
    }
}

/// The body of the requests [`serve`] hands the service: hyper's body, failing with
/// [`BodyTimeout`] when it has not ended within the [body
/// timeout](ServeConfig::body_timeout) of its head.
pub struct RequestBody {
    inner: Incoming,
    deadline: Instant,
    sleep: Option<Pin<Box<Sleep>>>,
    timed_out: bool,
}

impl std::fmt::Debug for RequestBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestBody")
            .field("deadline", &self.deadline)
            .field("timed_out", &self.timed_out)
            .finish_non_exhaustive()
    }
}

impl Body for RequestBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        if this.timed_out {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => return Poll::Ready(frame.map(|f| f.map_err(Into::into))),
            Poll::Pending => {}
        }
        let deadline = this.deadline;
        let sleep = this
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => {
                this.timed_out = true;
                Poll::Ready(Some(Err(Box::new(BodyTimeout))))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.timed_out || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// What a connection's watchdog knows.
struct ConnState {
    inner: Mutex<Conn>,
    /// The connection's task, woken when a request ends (HTTP/2 bodies run in tasks of
    /// their own).
    waker: AtomicWaker,
}

struct Conn {
    /// Requests handed to the service whose response has not ended.
    busy: usize,
    /// Requests handed to the service.
    calls: u64,
    /// Response heads (status 200 or more) written, counted in HTTP/1 only.
    heads: u64,
    /// When the connection last had no request in progress (or opened).
    idle_since: Instant,
    /// When the first byte of a new request arrived on an idle HTTP/1 connection.
    head_started: Option<Instant>,
    /// The connection opened with the HTTP/2 preface.
    h2: bool,
    /// Bytes read so far, up to the 3 that tell HTTP/2 from HTTP/1.
    sniffed: usize,
}

impl ConnState {
    fn lock(&self) -> MutexGuard<'_, Conn> {
        crate::sync::lock(&self.inner)
    }
}

/// Why the watchdog closes a connection.
enum Expiry {
    /// A request head did not arrive in time: close at once.
    Header,
    /// Nothing happened for the idle timeout: shut down gracefully.
    Idle,
}

impl Conn {
    fn deadline(&self, config: &ServeConfig) -> Option<(Instant, Expiry)> {
        if self.busy > 0 {
            return None;
        }
        if self.calls == 0 {
            return Some((self.idle_since + config.header_timeout, Expiry::Header));
        }
        match self.head_started {
            Some(t) if !self.h2 => Some((t + config.header_timeout, Expiry::Header)),
            _ => Some((self.idle_since + config.idle_timeout, Expiry::Idle)),
        }
    }
}

/// Marks a request in progress until dropped (with the response body, or the service's
/// future when it fails).
struct Busy(Arc<ConnState>);

impl Busy {
    fn new(state: &Arc<ConnState>) -> Self {
        let mut conn = state.lock();
        conn.busy += 1;
        conn.calls += 1;
        conn.head_started = None;
        drop(conn);
        Busy(Arc::clone(state))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut conn = self.0.lock();
        conn.busy = conn.busy.saturating_sub(1);
        if conn.busy == 0 {
            conn.idle_since = Instant::now();
            conn.head_started = None;
        }
        drop(conn);
        self.0.waker.wake();
    }
}

/// A response body that keeps its request marked in progress.
struct TrackedBody<B> {
    inner: B,
    _busy: Busy,
}

impl<B> Body for TrackedBody<B>
where
    B: Body + Unpin,
{
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The IO of a connection: notes the first byte of each request head for the watchdog, and
/// gives the HTTP/1 responses hyper writes by itself (400, 414, 431) the crate's JSON body.
struct WatchedIo<T> {
    io: T,
    state: Arc<ConnState>,
    /// A replacement response being written (bytes, how many written), and the length of
    /// hyper's buffer it stands for.
    replacing: Option<(Vec<u8>, usize, usize)>,
    /// [`ServeConfig::write_timeout`].
    write_timeout: Duration,
    /// Running while a write waits for the client (since the last write that made
    /// progress); none otherwise.
    stalled: Option<Pin<Box<Sleep>>>,
}

/// Passes on the socket's answer `r` to a write, failing the write once the client has
/// accepted nothing for `limit` (`stalled` is the timer of [`WatchedIo::stalled`]).
fn timed_write(
    stalled: &mut Option<Pin<Box<Sleep>>>,
    limit: Duration,
    cx: &mut Context<'_>,
    r: Poll<io::Result<usize>>,
) -> Poll<io::Result<usize>> {
    if r.is_ready() {
        *stalled = None;
        return r;
    }
    let timer = stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
    if timer.as_mut().poll(cx).is_ready() {
        return Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "the client accepted nothing for {} ms (write timeout)",
                limit.as_millis()
            ),
        )));
    }
    Poll::Pending
}

impl<T: AsyncRead + Unpin> AsyncRead for WatchedIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.io).poll_read(cx, buf);
        let read = &buf.filled()[before..];
        if matches!(result, Poll::Ready(Ok(()))) && !read.is_empty() {
            let mut conn = self.state.lock();
            if conn.sniffed < 3 {
                let take = (3 - conn.sniffed).min(read.len());
                let start = conn.sniffed;
                if read[..take] != b"PRI"[start..start + take] {
                    conn.h2 = false;
                } else if start == 0 {
                    conn.h2 = true;
                }
                conn.sniffed += take;
            }
            if conn.busy == 0 && conn.head_started.is_none() {
                conn.head_started = Some(Instant::now());
            }
        }
        result
    }
}

impl<T: AsyncWrite + Unpin> WatchedIo<T> {
    /// Whether `buf` is a response hyper writes by itself, and the replacement if so.
    fn replacement(&self, buf: &[u8]) -> Option<Vec<u8>> {
        let status = buf
            .strip_prefix(b"HTTP/1.1 ")
            .or_else(|| buf.strip_prefix(b"HTTP/1.0 "))?;
        let code: u16 = std::str::from_utf8(status.get(..3)?).ok()?.parse().ok()?;
        if code < 200 {
            return None;
        }
        let mut conn = self.state.lock();
        if conn.heads < conn.calls {
            // The service's own response.
            conn.heads += 1;
            return None;
        }
        drop(conn);
        let rejection = match code {
            414 => Rejection::new(414, "uri_too_long", "the request's URI is too long"),
            431 => Rejection::new(
                431,
                "header_fields_too_large",
                "the request's head is larger than the server accepts",
            ),
            400 => Rejection::new(400, "bad_request", "the request is not valid HTTP"),
            _ => return None,
        };
        let body = rejection.body();
        let reason = match code {
            414 => "URI Too Long",
            431 => "Request Header Fields Too Large",
            _ => "Bad Request",
        };
        let mut out = format!(
            "HTTP/1.1 {code} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        out.extend_from_slice(&body);
        Some(out)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WatchedIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.replacing.is_none()
            && !this.state.lock().h2
            && let Some(out) = this.replacement(buf)
        {
            this.replacing = Some((out, 0, buf.len()));
        }
        if let Some((out, written, stands_for)) = &mut this.replacing {
            while *written < out.len() {
                let r = Pin::new(&mut this.io).poll_write(cx, &out[*written..]);
                match timed_write(&mut this.stalled, this.write_timeout, cx, r) {
                    Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                    Poll::Ready(Ok(n)) => *written += n,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
            }
            let n = (*stands_for).min(buf.len());
            this.replacing = None;
            return Poll::Ready(Ok(n));
        }
        let r = Pin::new(&mut this.io).poll_write(cx, buf);
        timed_write(&mut this.stalled, this.write_timeout, cx, r)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The hyper service of one connection: the tower service, with the request marked in
/// progress, the peer's address in its extensions and the body timeout on its body.
struct ConnService<S> {
    service: S,
    state: Arc<ConnState>,
    peer: Option<SocketAddr>,
    body_timeout: Duration,
}

impl<S, B> hyper::service::Service<Request<Incoming>> for ConnService<S>
where
    S: tower_service::Service<Request<RequestBody>, Response = Response<B>>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: Body + Send + Unpin + 'static,
{
    type Response = Response<TrackedBody<B>>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let busy = Busy::new(&self.state);
        let (mut parts, body) = request.into_parts();
        if let Some(peer) = self.peer {
            parts.extensions.insert(PeerAddr(peer));
            #[cfg(feature = "axum")]
            parts.extensions.insert(::axum::extract::ConnectInfo(peer));
        }
        let body = RequestBody {
            inner: body,
            deadline: Instant::now() + self.body_timeout,
            sleep: None,
            timed_out: false,
        };
        let h2 = parts.version >= http::Version::HTTP_2;
        let request = Request::from_parts(parts, body);
        let mut service = self.service.clone();
        Box::pin(async move {
            poll_fn(|cx| service.poll_ready(cx))
                .await
                .map_err(Into::into)?;
            let mut response = service.call(request).await.map_err(Into::into)?;
            if h2 {
                // A connection-specific header has no place in HTTP/2 (RFC 9113 §8.2.2).
                response.headers_mut().remove(http::header::CONNECTION);
            }
            Ok(response.map(|inner| TrackedBody { inner, _busy: busy }))
        })
    }
}

/// Serves `service` on `listener` until the listener fails for good: HTTP/1.1, and HTTP/2
/// for clients that open with its preface, with `TCP_NODELAY` on every connection (each
/// event's frame leaves when written) and the timeouts and limits of `config`.
///
/// Accept errors that concern one connection, and running out of file descriptors, do not
/// stop the server (it waits 50 ms and accepts again).
///
/// # Errors
/// Never returns `Ok`; returns no error either in practice (kept for the signature of
/// `axum::serve`).
pub async fn serve<S, B>(listener: TcpListener, service: S, config: ServeConfig) -> io::Result<()>
where
    S: tower_service::Service<Request<RequestBody>, Response = Response<B>>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: Body + Send + Unpin + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let config = Arc::new(config);
    let builder = Arc::new(config.builder());
    let permits = Arc::new(tokio::sync::Semaphore::new(config.max_connections));
    #[cfg(feature = "tracing")]
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(%addr, max_connections = config.max_connections, "AG-UI server listening");
    }
    // Logged once each time the limit is reached, not per waiting connection.
    let mut at_limit = false;
    loop {
        let permit = match Arc::clone(&permits).try_acquire_owned() {
            Ok(permit) => {
                at_limit = false;
                permit
            }
            Err(_) => {
                #[cfg(feature = "tracing")]
                if !std::mem::replace(&mut at_limit, true) {
                    tracing::warn!(
                        max_connections = config.max_connections,
                        "AG-UI server at its connection limit: new connections wait"
                    );
                }
                #[cfg(not(feature = "tracing"))]
                let _ = std::mem::replace(&mut at_limit, true);
                let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
                    return Ok(());
                };
                permit
            }
        };
        let (tcp, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                if !is_connection_error(&e) {
                    // Out of file descriptors, most likely: let connections close.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                continue;
            }
        };
        // Without it the stream still works, only later.
        let _ = tcp.set_nodelay(true);
        let service = service.clone();
        let config = Arc::clone(&config);
        let builder = Arc::clone(&builder);
        tokio::spawn(async move {
            let _ = drive(tcp, Some(peer), service, &config, &builder).await;
            drop(permit);
        });
    }
}

fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Serves one connection whose IO the caller accepted (a TLS stream after the handshake,
/// for example: with ALPN `h2` the client opens with the HTTP/2 preface and is served
/// HTTP/2), with the timeouts of `config`; `peer` goes in each request's extensions. Ends
/// when the connection ends or a timeout closes it.
///
/// # Errors
/// What hyper reports for the connection (a protocol error, an IO error); a connection
/// closed for a timeout is not an error.
pub async fn serve_connection<I, S, B>(
    io: I,
    peer: Option<SocketAddr>,
    service: S,
    config: &ServeConfig,
) -> Result<(), BoxError>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: tower_service::Service<Request<RequestBody>, Response = Response<B>>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: Body + Send + Unpin + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    drive(io, peer, service, config, &config.builder()).await
}

async fn drive<I, S, B>(
    io: I,
    peer: Option<SocketAddr>,
    service: S,
    config: &ServeConfig,
    builder: &hyper_util::server::conn::auto::Builder<TokioExecutor>,
) -> Result<(), BoxError>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: tower_service::Service<Request<RequestBody>, Response = Response<B>>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: Body + Send + Unpin + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let state = Arc::new(ConnState {
        inner: Mutex::new(Conn {
            busy: 0,
            calls: 0,
            heads: 0,
            idle_since: Instant::now(),
            head_started: None,
            h2: false,
            sniffed: 0,
        }),
        waker: AtomicWaker::new(),
    });
    let io = TokioIo::new(WatchedIo {
        io,
        state: Arc::clone(&state),
        replacing: None,
        write_timeout: config.write_timeout,
        stalled: None,
    });
    let service = ConnService {
        service,
        state: Arc::clone(&state),
        peer,
        body_timeout: config.body_timeout,
    };
    let conn = builder.serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    let mut sleep = std::pin::pin!(tokio::time::sleep(config.header_timeout));
    let mut shutdown_by: Option<Instant> = None;
    poll_fn(|cx| {
        state.waker.register(cx.waker());
        if let Poll::Ready(result) = conn.as_mut().poll(cx) {
            return Poll::Ready(result.map_err(|e| -> BoxError { e }));
        }
        loop {
            let (deadline, expiry) = match shutdown_by {
                Some(by) => (by, Expiry::Header),
                None => match state.lock().deadline(config) {
                    Some(d) => d,
                    None => return Poll::Pending,
                },
            };
            if sleep.deadline() != deadline {
                sleep.as_mut().reset(deadline);
            }
            if sleep.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            match expiry {
                Expiry::Header => return Poll::Ready(Ok(())),
                Expiry::Idle => {
                    conn.as_mut().graceful_shutdown();
                    shutdown_by = Some(Instant::now() + SHUTDOWN_GRACE);
                    if let Poll::Ready(result) = conn.as_mut().poll(cx) {
                        return Poll::Ready(result.map_err(|e| -> BoxError { e }));
                    }
                }
            }
        }
    })
    .await
}
