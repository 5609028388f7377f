//! A real HTTP/1.1 agent server on 127.0.0.1 (hyper), scripted per test: what status,
//! content type and body bytes to send, with pauses, and how the body ends. It records each
//! request and when the client went away. Its tasks end with the test's runtime.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::HeaderMap;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// One piece of a response body.
#[derive(Debug, Clone)]
pub enum Part {
    /// Bytes sent as one chunk.
    Bytes(Vec<u8>),
    /// A pause.
    Pause(Duration),
}

/// How the body ends after its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// A clean end of the body.
    Clean,
    /// The connection is cut in the middle of the body (no chunked terminator).
    Cut,
    /// The body never ends (until the client goes away).
    Hang,
}

/// What to answer.
#[derive(Debug, Clone)]
pub struct Plan {
    pub status: u16,
    pub content_type: Option<String>,
    pub parts: Vec<Part>,
    pub ending: Ending,
    /// Further response headers.
    pub headers: Vec<(String, String)>,
}

impl Plan {
    /// 200 `text/event-stream` with `body` in one chunk.
    pub fn sse(body: impl Into<Vec<u8>>) -> Plan {
        Plan {
            status: 200,
            content_type: Some("text/event-stream".into()),
            parts: vec![Part::Bytes(body.into())],
            ending: Ending::Clean,
            headers: Vec::new(),
        }
    }

    /// The plan with a further response header.
    pub fn header(mut self, name: &str, value: &str) -> Plan {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// 200 `text/event-stream` with these parts.
    pub fn sse_parts(parts: Vec<Part>, ending: Ending) -> Plan {
        Plan {
            status: 200,
            content_type: Some("text/event-stream".into()),
            parts,
            ending,
            headers: Vec::new(),
        }
    }
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Captured {
    pub method: String,
    /// The request target's path.
    pub path: String,
    pub headers: HeaderMap,
    pub body: Value,
}

type Handler = dyn Fn(&Captured, usize) -> Plan + Send + Sync;

struct Shared {
    handler: Box<Handler>,
    requests: Mutex<Vec<Captured>>,
    /// When the server found the client gone while it still had body to send.
    client_gone: Mutex<Option<Instant>>,
}

/// A running test server.
#[derive(Clone)]
pub struct TestServer {
    pub url: String,
    shared: Arc<Shared>,
}

impl TestServer {
    /// Starts a server answering request `n` (0-based) of the test with `handler`.
    pub async fn start(
        handler: impl Fn(&Captured, usize) -> Plan + Send + Sync + 'static,
    ) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let shared = Arc::new(Shared {
            handler: Box::new(handler),
            requests: Mutex::new(Vec::new()),
            client_gone: Mutex::new(None),
        });
        let accept_shared = shared.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let shared = accept_shared.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req| handle(req, shared.clone()));
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        TestServer {
            url: format!("http://{addr}/agent"),
            shared,
        }
    }

    /// Starts a server answering every request with `plan`.
    pub async fn always(plan: Plan) -> TestServer {
        Self::start(move |_, _| plan.clone()).await
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<Captured> {
        self.shared.requests.lock().expect("lock").clone()
    }

    /// Waits (at most `limit`) until the server finds the client gone; returns when that
    /// was, or `None` if it did not happen.
    pub async fn client_gone_within(&self, limit: Duration) -> Option<Instant> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(t) = *self.shared.client_gone.lock().expect("lock") {
                return Some(t);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        None
    }
}

type BodyItem = Result<Frame<Bytes>, std::io::Error>;

async fn handle(
    req: Request<Incoming>,
    shared: Arc<Shared>,
) -> Result<Response<StreamBody<futures_util::stream::BoxStream<'static, BodyItem>>>, Infallible> {
    let headers = req.headers().clone();
    let method = req.method().to_string();
    let path = req.uri().path().to_owned();
    let bytes = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let captured = Captured {
        method,
        path,
        headers,
        body,
    };
    let n = {
        let mut requests = shared.requests.lock().expect("lock");
        requests.push(captured.clone());
        requests.len() - 1
    };
    let plan = (shared.handler)(&captured, n);

    let (tx, mut rx) = mpsc::channel::<BodyItem>(1);
    let writer_shared = shared.clone();
    tokio::spawn(async move {
        for part in plan.parts {
            match part {
                Part::Pause(d) => tokio::time::sleep(d).await,
                Part::Bytes(b) => {
                    if tx.send(Ok(Frame::data(Bytes::from(b)))).await.is_err() {
                        *writer_shared.client_gone.lock().expect("lock") = Some(Instant::now());
                        return;
                    }
                }
            }
        }
        match plan.ending {
            Ending::Clean => {}
            Ending::Cut => {
                let _ = tx
                    .send(Err(std::io::Error::other("connection cut by the test")))
                    .await;
            }
            Ending::Hang => {
                tx.closed().await;
                *writer_shared.client_gone.lock().expect("lock") = Some(Instant::now());
            }
        }
    });
    let stream = futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx));
    let mut response = Response::builder().status(plan.status);
    if let Some(ct) = plan.content_type {
        response = response.header("content-type", ct);
    }
    for (name, value) in plan.headers {
        response = response.header(name, value);
    }
    Ok(response
        .body(StreamBody::new(
            Box::pin(stream) as futures_util::stream::BoxStream<'static, BodyItem>
        ))
        .expect("response"))
}

/// One SSE message per event: `data: <json>\n\n`.
pub fn sse(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

/// A real HTTP/1.1 server on 127.0.0.1 that answers every request with `200
/// text/event-stream`, `Connection: close` and no length or chunked framing, writes `body`
/// and closes the connection: the end of the connection is the end of the body, so a cut
/// and a clean end look alike on the wire (as with many proxies and small servers).
/// Its task ends with the test's runtime.
pub async fn close_delimited(body: impl Into<Vec<u8>>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body: Vec<u8> = body.into();
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let body = body.clone();
            tokio::spawn(async move {
                // Read the request head and its Content-Length bytes of body.
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    let Ok(n) = stream.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    request.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&request).to_ascii_lowercase();
                    if let Some(head_end) = text.find("\r\n\r\n") {
                        let length = text[..head_end]
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .and_then(|v| v.trim().parse::<usize>().ok())
                            .unwrap_or(0);
                        if request.len() >= head_end + 4 + length {
                            break;
                        }
                    }
                }
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                            connection: close\r\n\r\n";
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&body).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    format!("http://{addr}/agent")
}
