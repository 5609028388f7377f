//! The response body of the endpoints: a complete JSON body or a stream of SSE frames with
//! keep-alive comments while idle, and the responses built from them.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use http::header::{
    ALLOW, CACHE_CONTROL, CONTENT_TYPE, HeaderName, HeaderValue, VARY, WWW_AUTHENTICATE,
};
use http::{Response, StatusCode};
use http_body::Frame;

use crate::guard::{InSpan, SseFrames};
use crate::request::Rejection;

/// The keep-alive comment: an SSE comment line and the blank line that ends it.
pub const KEEP_ALIVE_COMMENT: &[u8] = b": keep-alive\n\n";

/// Frames that are ready together are sent as one chunk up to this size.
const COALESCE_BYTES: usize = 16 * 1024;

/// `x-accel-buffering`: tells nginx-style proxies not to buffer the stream.
const X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");

impl Rejection {
    /// The response for this rejection: its status, `content-type: application/json` and
    /// the JSON [`body`](Rejection::body); `allow: POST` for 405, `connection: close` for
    /// 408 and 413 (the body may be partly unread), `www-authenticate: Bearer` for a 401
    /// without a challenge of its own; then the rejection's own
    /// [`headers`](Rejection::headers), each name replacing the header set above.
    #[must_use]
    pub fn to_response(&self) -> Response<SseBody> {
        let mut response = Response::new(SseBody::full(self.body()));
        *response.status_mut() =
            StatusCode::from_u16(self.status).unwrap_or(StatusCode::BAD_REQUEST);
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if self.status == 405 {
            headers.insert(ALLOW, HeaderValue::from_static("POST"));
        }
        if matches!(self.status, 408 | 413) {
            headers.insert(http::header::CONNECTION, HeaderValue::from_static("close"));
        }
        let mut replaced: Vec<HeaderName> = Vec::new();
        for (name, value) in &self.headers {
            let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) else {
                continue;
            };
            if !replaced.contains(&name) {
                headers.remove(&name);
                replaced.push(name.clone());
            }
            headers.append(name, value);
        }
        if self.status == 401 && !headers.contains_key(WWW_AUTHENTICATE) {
            headers.insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// A `200` SSE response streaming `frames` (complete SSE frames), with the stream headers.
pub(crate) fn sse_response(
    frames: impl Stream<Item = Bytes> + Send + 'static,
    keep_alive: Option<Duration>,
) -> Response<SseBody> {
    SseBody::frames(frames, keep_alive).into_response()
}

/// A JSON response with `status`.
pub(crate) fn json_response(status: StatusCode, body: Vec<u8>) -> Response<SseBody> {
    let mut response = Response::new(SseBody::full(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The response body of [`AgentService`](crate::AgentService): a refusal's JSON, or the
/// run's SSE frames with keep-alive comments while idle.
pub struct SseBody {
    kind: Kind,
    /// The response's `content-type`.
    media: &'static str,
}

enum Kind {
    Full(Option<Bytes>),
    Stream(Box<Streaming>),
}

/// Where a streaming body's frames come from (inside the boxed `Streaming`).
#[allow(clippy::large_enum_variant)]
enum Frames {
    /// A guarded run, encoded here.
    Run(SseFrames),
    /// A guarded run, encoded here as protobuf frames.
    #[cfg(feature = "proto")]
    Proto(crate::guard::ProtoFrames),
    /// Frames encoded elsewhere (a run log, a replay).
    Encoded(Pin<Box<dyn Stream<Item = Bytes> + Send>>),
}

impl Frames {
    /// Enters the run's span of a guarded run, for one poll of the body: the agent's stream
    /// is then read without entering it once per event.
    fn enter_span(&self) -> Option<InSpan> {
        match self {
            Frames::Run(frames) => Some(frames.enter_span()),
            #[cfg(feature = "proto")]
            Frames::Proto(frames) => Some(frames.enter_span()),
            Frames::Encoded(_) => None,
        }
    }

    /// The next frame, with the run's span entered by [`enter_span`](Self::enter_span).
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        match self {
            Frames::Run(frames) => frames.poll_frame(cx, true).map(|f| f.map(Bytes::from)),
            #[cfg(feature = "proto")]
            Frames::Proto(frames) => frames.poll_frame(cx, true).map(|f| f.map(Bytes::from)),
            Frames::Encoded(frames) => frames.as_mut().poll_next(cx),
        }
    }
}

impl std::fmt::Debug for Frames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Frames::Run(frames) => frames.fmt(f),
            #[cfg(feature = "proto")]
            Frames::Proto(frames) => frames.fmt(f),
            Frames::Encoded(_) => f.write_str("Encoded(..)"),
        }
    }
}

struct Streaming {
    frames: Frames,
    /// The first frame has been sent (it goes alone, so that it is not delayed).
    started: bool,
    keep_alive: Option<(Duration, Pin<Box<tokio::time::Sleep>>)>,
}

impl std::fmt::Debug for SseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::Full(b) => f.debug_tuple("SseBody::Full").field(b).finish(),
            Kind::Stream(_) => f.debug_tuple("SseBody::Stream").finish_non_exhaustive(),
        }
    }
}

impl SseBody {
    /// A complete body.
    #[must_use]
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        SseBody {
            kind: Kind::Full(Some(bytes.into())),
            media: ag_ui_core::sse::SSE_MEDIA_TYPE,
        }
    }

    /// A run's frames, with a keep-alive comment after each `keep_alive` without a frame.
    /// Must be polled inside a tokio runtime when `keep_alive` is set.
    #[must_use]
    pub fn stream(frames: SseFrames, keep_alive: Option<Duration>) -> Self {
        Self::streaming(Frames::Run(frames), keep_alive)
    }

    /// A body of SSE frames encoded elsewhere (each item one or more complete frames, as
    /// [`SseFrames`] yields them: a run log replaying a run, for example), with keep-alive
    /// comments as in [`stream`](Self::stream). Frames ready together are sent together.
    /// Dropping the body drops `frames`.
    #[must_use]
    pub fn frames(
        frames: impl Stream<Item = Bytes> + Send + 'static,
        keep_alive: Option<Duration>,
    ) -> Self {
        Self::streaming(Frames::Encoded(Box::pin(frames)), keep_alive)
    }

    /// A run's protobuf frames (feature `proto`): `content-type:
    /// application/vnd.ag-ui.event+proto`, no keep-alive (the framing has no comments).
    #[cfg(feature = "proto")]
    #[must_use]
    pub fn proto_stream(frames: crate::guard::ProtoFrames) -> Self {
        let mut body = Self::streaming(Frames::Proto(frames), None);
        body.media = ag_ui_core::sse::PROTO_MEDIA_TYPE;
        body
    }

    /// This body with keep-alive comments after `interval` without a frame (`None`: never);
    /// a complete body and a protobuf body are unchanged.
    #[must_use]
    pub fn with_keep_alive(mut self, interval: Option<Duration>) -> Self {
        // Protobuf framing has no comments: a protobuf body never gets keep-alives.
        if self.media == ag_ui_core::sse::PROTO_MEDIA_TYPE {
            return self;
        }
        if let Kind::Stream(streaming) = &mut self.kind {
            streaming.keep_alive = interval.map(|d| (d, Box::pin(tokio::time::sleep(d))));
        }
        self
    }

    fn streaming(frames: Frames, keep_alive: Option<Duration>) -> Self {
        let keep_alive = keep_alive.map(|d| (d, Box::pin(tokio::time::sleep(d))));
        SseBody {
            kind: Kind::Stream(Box::new(Streaming {
                frames,
                started: false,
                keep_alive,
            })),
            media: ag_ui_core::sse::SSE_MEDIA_TYPE,
        }
    }

    /// The `200` response of a run streamed in this body: `content-type:
    /// text/event-stream`, `cache-control: no-cache`, `x-accel-buffering: no` (proxies
    /// must not buffer the stream) and `vary: accept`.
    #[must_use]
    pub fn into_response(self) -> Response<SseBody> {
        let self_media = self.media;
        let mut response = Response::new(self);
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(self_media));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        headers.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
        headers.insert(VARY, HeaderValue::from_static("accept"));
        response
    }
}

impl http_body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.kind {
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream(streaming) => {
                let Streaming {
                    frames,
                    started,
                    keep_alive,
                } = &mut **streaming;
                // One entry of the run's span for all the frames this poll takes.
                let _in_span = frames.enter_span();
                // Frames already produced go out together; a frame is never held back
                // waiting for the next one.
                let mut out: Option<Bytes> = None;
                let mut joined: Option<Vec<u8>> = None;
                let mut ended = false;
                loop {
                    match frames.poll_next(cx) {
                        Poll::Ready(Some(frame)) => match (&mut out, &mut joined) {
                            (None, None) => out = Some(frame),
                            (Some(first), None) => {
                                let mut buf = Vec::with_capacity(first.len() + frame.len());
                                buf.extend_from_slice(first);
                                buf.extend_from_slice(&frame);
                                out = None;
                                joined = Some(buf);
                            }
                            (_, Some(buf)) => {
                                // Past two frames the chunk is likely to fill: room for
                                // all of it at once, not a doubling per few frames.
                                if buf.capacity() - buf.len() < frame.len() {
                                    buf.reserve(
                                        (COALESCE_BYTES + frame.len()).saturating_sub(buf.len()),
                                    );
                                }
                                buf.extend_from_slice(&frame);
                            }
                        },
                        Poll::Ready(None) => {
                            ended = true;
                            break;
                        }
                        Poll::Pending => break,
                    }
                    let len =
                        out.as_ref().map_or(0, Bytes::len) + joined.as_ref().map_or(0, Vec::len);
                    if !*started || len >= COALESCE_BYTES {
                        break;
                    }
                }
                // A chunk that did not fill gives its spare room back.
                let joined = joined.map(|mut buf| {
                    if buf.capacity() > 2 * buf.len() {
                        buf.shrink_to_fit();
                    }
                    Bytes::from(buf)
                });
                if let Some(buf) = out.or(joined) {
                    *started = true;
                    if let Some((interval, sleep)) = keep_alive {
                        sleep
                            .as_mut()
                            .reset(tokio::time::Instant::now() + *interval);
                    }
                    return Poll::Ready(Some(Ok(Frame::data(buf))));
                }
                if ended {
                    return Poll::Ready(None);
                }
                if let Some((interval, sleep)) = keep_alive
                    && sleep.as_mut().poll(cx).is_ready()
                {
                    sleep
                        .as_mut()
                        .reset(tokio::time::Instant::now() + *interval);
                    return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                        KEEP_ALIVE_COMMENT,
                    )))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Full(b) => b.is_none(),
            Kind::Stream(_) => false,
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match &self.kind {
            Kind::Full(Some(b)) => http_body::SizeHint::with_exact(b.len() as u64),
            Kind::Full(None) => http_body::SizeHint::with_exact(0),
            Kind::Stream(_) => http_body::SizeHint::default(),
        }
    }
}
