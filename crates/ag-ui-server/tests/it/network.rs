//! The production serve path against hostile and ordinary clients over loopback: timeouts,
//! limits, HTTP/2, the JSON bodies of every refusal.

use std::time::{Duration, Instant};

use ag_ui_server::AgentService;
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::serve::ServeConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{Events, LIMIT, Server, client, input, serve_router, types};

/// Short timeouts, so that each test takes seconds.
fn quick() -> ServeConfig {
    ServeConfig::new()
        .header_timeout(Duration::from_millis(800))
        .body_timeout(Duration::from_millis(800))
        .idle_timeout(Duration::from_millis(2000))
}

async fn demo_server(config: ServeConfig) -> Server {
    serve_router(
        ag_ui_server::axum::service_router(AgentService::new(DemoAgent::new())),
        config,
    )
    .await
}

/// Reads until the server closes the connection; returns what it sent and when it closed
/// (from `start`).
async fn until_closed(stream: &mut TcpStream, start: Instant) -> (Vec<u8>, Duration) {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(LIMIT, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the server did not close the connection");
    (out, start.elapsed())
}

/// Writes `bytes` one at a time, `every` apart, until the connection fails or all are sent.
fn trickle(mut writer: tokio::net::tcp::OwnedWriteHalf, bytes: Vec<u8>, every: Duration) {
    tokio::spawn(async move {
        for b in bytes {
            if writer.write_all(&[b]).await.is_err() {
                return;
            }
            tokio::time::sleep(every).await;
        }
    });
}

/// The status and JSON body of a raw HTTP/1.1 response.
fn parse_response(raw: &[u8]) -> (u16, Value) {
    let text = String::from_utf8_lossy(raw);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {text:?}"));
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    let json = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: body {body:?}"));
    (status, json)
}

fn assert_between(elapsed: Duration, low_ms: u64, high_ms: u64) {
    assert!(
        elapsed >= Duration::from_millis(low_ms) && elapsed <= Duration::from_millis(high_ms),
        "closed after {elapsed:?}, expected {low_ms}..{high_ms} ms"
    );
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_at_the_header_timeout() {
    let server = demo_server(quick()).await;
    let start = Instant::now();
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let (out, elapsed) = until_closed(&mut stream, start).await;
    assert!(out.is_empty());
    assert_between(elapsed, 700, 2500);
}

#[tokio::test]
async fn a_connection_that_sends_one_byte_is_closed_at_the_header_timeout() {
    // One byte leaves HTTP/1-or-2 detection undecided.
    let server = demo_server(quick()).await;
    let start = Instant::now();
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(b"P").await.unwrap();
    let (_, elapsed) = until_closed(&mut stream, start).await;
    assert_between(elapsed, 700, 2500);
}

#[tokio::test]
async fn slow_headers_are_closed_at_the_header_timeout() {
    let server = demo_server(quick()).await;
    let start = Instant::now();
    let stream = TcpStream::connect(server.addr).await.unwrap();
    let (mut reader, writer) = stream.into_split();
    let head = b"POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-slow: ".to_vec();
    let mut bytes = head;
    bytes.extend(std::iter::repeat_n(b'a', 200));
    trickle(writer, bytes, Duration::from_millis(50));
    let mut buf = [0u8; 1024];
    let closed = tokio::time::timeout(LIMIT, async {
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok());
    assert_between(start.elapsed(), 700, 2500);
}

#[tokio::test]
async fn a_slow_body_gets_408_json_at_the_body_timeout() {
    let server = demo_server(quick()).await;
    let stream = TcpStream::connect(server.addr).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let body = serde_json::to_vec(&input("run-1", json!({}))).unwrap();
    let head = format!(
        "POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: text/event-stream\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    writer.write_all(head.as_bytes()).await.unwrap();
    let start = Instant::now();
    trickle(writer, body, Duration::from_millis(100));
    let mut out = Vec::new();
    let closed = tokio::time::timeout(LIMIT, reader.read_to_end(&mut out)).await;
    assert!(closed.is_ok());
    assert_between(start.elapsed(), 700, 2500);
    let (status, json) = parse_response(&out);
    assert_eq!(status, 408);
    assert_eq!(json["error"], "body_timeout");
}

#[tokio::test]
async fn a_body_that_never_ends_gets_408_json_at_the_body_timeout() {
    let server = demo_server(quick()).await;
    let stream = TcpStream::connect(server.addr).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    writer
        .write_all(b"POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n")
        .await
        .unwrap();
    let start = Instant::now();
    tokio::spawn(async move {
        // A chunk of whitespace every 50 ms, for ever.
        while writer.write_all(b"1\r\n \r\n").await.is_ok() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let mut out = Vec::new();
    let closed = tokio::time::timeout(LIMIT, reader.read_to_end(&mut out)).await;
    assert!(closed.is_ok());
    assert_between(start.elapsed(), 700, 2500);
    let (status, json) = parse_response(&out);
    assert_eq!((status, json["status"].as_u64()), (408, Some(408)));
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_at_the_idle_timeout() {
    let server = demo_server(quick()).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    // One complete exchange (a refusal is an exchange like any other).
    stream
        .write_all(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    let mut buf = vec![0u8; 4096];
    let n = stream.read(&mut buf).await.unwrap();
    let (status, json) = parse_response(&buf[..n]);
    assert_eq!(
        (status, json["error"].as_str()),
        (405, Some("method_not_allowed"))
    );
    let idle_from = Instant::now();
    // Still open past the header timeout: idleness is not a slow header.
    let early = tokio::time::timeout(Duration::from_millis(1200), stream.read(&mut buf)).await;
    assert!(early.is_err(), "closed before the idle timeout: {early:?}");
    let (_, elapsed) = until_closed(&mut stream, idle_from).await;
    assert_between(elapsed, 1900, 4000);
}

#[tokio::test]
async fn an_oversized_body_sent_whole_gets_the_413_json() {
    let config = quick().body_timeout(Duration::from_secs(10));
    let server = serve_router(
        ag_ui_server::axum::service_router(
            AgentService::new(DemoAgent::new()).body_limit(1024 * 1024),
        ),
        config,
    )
    .await;
    let big = vec![b' '; 5 * 1024 * 1024];
    for round in 0..5 {
        // With a content-length, and streamed without one (chunked).
        let request = client()
            .post(server.url())
            .header("content-type", "application/json")
            .header("accept", "text/event-stream");
        let request = if round % 2 == 0 {
            request.body(big.clone())
        } else {
            let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
                big.chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
            request.body(reqwest::Body::wrap_stream(futures_util::stream::iter(
                chunks,
            )))
        };
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 413, "round {round}");
        let json: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        assert_eq!(json["error"], "body_too_large");
    }
}

#[tokio::test]
async fn a_run_streams_over_h2c_by_prior_knowledge() {
    let server = demo_server(ServeConfig::new()).await;
    let h2 = reqwest::Client::builder()
        .http2_prior_knowledge()
        .timeout(LIMIT)
        .build()
        .unwrap();
    let response = h2
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(serde_json::to_vec(&input("run-1", json!({"scenario": "chat"}))).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.version(), reqwest::Version::HTTP_2);
    assert_eq!(response.status().as_u16(), 200);
    let events = Events::new(response).all().await;
    ag_ui_core::stream::verify_events(&events).unwrap();
    assert_eq!(types(&events).last(), Some(&"RUN_FINISHED"));
    // Several runs at once on the one connection.
    let runs = (0..8).map(|i| {
        let h2 = h2.clone();
        let url = server.url();
        async move {
            let response = h2
                .post(url)
                .header("content-type", "application/json")
                .header("accept", "text/event-stream")
                .body(serde_json::to_vec(&input(&format!("run-{i}"), json!({}))).unwrap())
                .send()
                .await
                .unwrap();
            Events::new(response).all().await.len()
        }
    });
    let counts = futures_util::future::join_all(runs).await;
    assert!(counts.iter().all(|&n| n == events.len()), "{counts:?}");
}

#[tokio::test]
async fn the_http_layer_refusals_have_json_bodies() {
    let server = demo_server(quick()).await;
    let big_header = [
        b"GET / HTTP/1.1\r\nhost: x\r\nx-big: ".as_slice(),
        &[b'a'; 70 * 1024],
        b"\r\n\r\n",
    ]
    .concat();
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (b"NOT HTTP AT ALL\r\n\r\n".to_vec(), 400, "bad_request"),
        (big_header, 431, "header_fields_too_large"),
        (
            b"POST /elsewhere HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n".to_vec(),
            404,
            "not_found",
        ),
    ];
    for (request, status, error) in cases {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        let _ = stream.write_all(&request).await;
        let (out, _) = until_closed_or_answered(&mut stream).await;
        let (got, json) = parse_response(&out);
        assert_eq!((got, json["error"].as_str()), (status, Some(error)));
        assert_eq!(json["code"], error);
        assert_eq!(json["status"], status);
    }
}

/// Reads one response (up to the end of its JSON body, or the close).
async fn until_closed_or_answered(stream: &mut TcpStream) -> (Vec<u8>, Duration) {
    let start = Instant::now();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let _ = tokio::time::timeout(LIMIT, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
            let text = String::from_utf8_lossy(&out);
            if let Some((_, body)) = text.split_once("\r\n\r\n")
                && serde_json::from_str::<Value>(body).is_ok()
            {
                break;
            }
        }
    })
    .await;
    (out, start.elapsed())
}

#[tokio::test]
async fn the_connection_limit_holds_new_connections_until_one_closes() {
    let server = demo_server(quick().max_connections(2)).await;
    let _a = TcpStream::connect(server.addr).await.unwrap();
    let _b = TcpStream::connect(server.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A third is accepted by the kernel (backlog) but not served until a slot frees: the
    // two silent ones are closed at the header timeout, then it is answered.
    let start = Instant::now();
    let response = client()
        .post(server.url())
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&input("run-1", json!({}))).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert!(
        start.elapsed() >= Duration::from_millis(500),
        "{:?}",
        start.elapsed()
    );
}

/// Set in the environment of the child process that serves for
/// [`a_client_that_stops_reading_costs_at_most_128_kib`].
const STALLED_CHILD: &str = "AG_UI_SERVER_STALLED_CHILD";

/// The server of the memory test, in a process of its own (so that its memory is its own):
/// runs only when the parent test starts it.
#[test]
#[ignore = "started by a_client_that_stops_reading_costs_at_most_128_kib"]
fn stalled_server_child() {
    if std::env::var_os(STALLED_CHILD).is_none() {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        // Stalled clients are what this measures: the write timeout must not close them
        // first.
        let config = ServeConfig::new().write_timeout(Duration::from_secs(600));
        let listener = config.bind("127.0.0.1:0").await.unwrap();
        println!("ADDR {}", listener.local_addr().unwrap());
        let router = ag_ui_server::axum::service_router(AgentService::new(DemoAgent::new()));
        tokio::spawn(ag_ui_server::axum::serve_with(listener, router, config));
        // Until the parent closes stdin (or the test's time is up).
        let _ = tokio::time::timeout(
            Duration::from_secs(120),
            tokio::task::spawn_blocking(|| {
                let mut sink = String::new();
                let _ = std::io::Read::read_to_string(&mut std::io::stdin(), &mut sink);
            }),
        )
        .await;
    });
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Waits until the child's memory stops growing (three readings 300 ms apart within 1%).
async fn settled_rss(pid: u32) -> u64 {
    let mut last = rss_kib(pid);
    let mut steady = 0;
    for _ in 0..60 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = rss_kib(pid);
        steady = if now.abs_diff(last) * 100 <= last {
            steady + 1
        } else {
            0
        };
        last = now;
        if steady == 3 {
            break;
        }
    }
    last
}

#[tokio::test]
async fn a_client_that_stops_reading_costs_at_most_128_kib() {
    use std::io::BufRead;
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "network::stalled_server_child",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env(STALLED_CHILD, "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufReader::new(stdout).lines();
    let addr: std::net::SocketAddr = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("ADDR ").map(str::to_owned))
        .unwrap()
        .parse()
        .unwrap();
    // The child's test harness goes on writing: keep reading.
    std::thread::spawn(move || lines.for_each(drop));
    let pid = child.id();
    let body = serde_json::to_vec(&input(
        "run-1",
        json!({"scenario": "firehose", "events": 1_000_000, "bytes": 1000}),
    ))
    .unwrap();
    let request = [
        format!(
            "POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: text/event-stream\r\ncontent-length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes(),
        body,
    ]
    .concat();
    let open = |n: usize| {
        let request = request.clone();
        async move {
            let mut streams = Vec::new();
            for _ in 0..n {
                // A small receive window, so that the kernel's buffers fill fast.
                let socket = tokio::net::TcpSocket::new_v4().unwrap();
                socket.set_recv_buffer_size(16 * 1024).unwrap();
                let mut s = socket.connect(addr).await.unwrap();
                s.write_all(&request).await.unwrap();
                streams.push(s);
            }
            // Each run has started (its response head arrived); from here on nothing is
            // read.
            for s in &mut streams {
                let mut head = [0u8; 512];
                let n = tokio::time::timeout(LIMIT, s.read(&mut head))
                    .await
                    .unwrap()
                    .unwrap();
                assert!(head[..n].starts_with(b"HTTP/1.1 200"));
            }
            streams
        }
    };
    // Warm up: the runtime's threads, the allocator's arenas, a first batch of stalled
    // clients; then measure what 200 more cost.
    let warm = open(20).await;
    let before = settled_rss(pid).await;
    let stalled = open(200).await;
    let after = settled_rss(pid).await;
    let per_client = after.saturating_sub(before) / 200;
    eprintln!("stalled readers: {before} KiB -> {after} KiB, {per_client} KiB per client");
    drop((warm, stalled));
    drop(child.stdin.take());
    let _ = child.wait();
    assert!(per_client <= 128, "{per_client} KiB per stalled client");
}

#[tokio::test]
async fn serve_connection_serves_http2_on_any_io_as_after_a_tls_handshake() {
    // What a server that terminates TLS itself does once ALPN chose h2: hand the stream to
    // `serve_connection`. An in-memory pipe stands for the TLS stream.
    use http_body_util::BodyExt;
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let peer: std::net::SocketAddr = "192.0.2.7:443".parse().unwrap();
    let router = ag_ui_server::axum::router(ag_ui_server::ContextAgent::new(
        |input: ag_ui_core::RunAgentInput, context: ag_ui_server::RunContext| {
            let peer = context
                .peer_addr()
                .map(|p| p.to_string())
                .unwrap_or_default();
            ag_ui_server::emit(
                ag_ui_builders::RunEmitter::start_for(&input),
                |mut run| async move {
                    run.emit(|r| r.text(peer)).await?;
                    run.emit(ag_ui_builders::RunEmitter::finish).await
                },
            )
        },
    ));
    let config = ServeConfig::new();
    tokio::spawn(async move {
        let _ = ag_ui_server::serve::serve_connection(server_io, Some(peer), router, &config).await;
    });
    let (mut sender, conn) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(client_io),
    )
    .await
    .unwrap();
    tokio::spawn(conn);
    let body = serde_json::to_vec(&input("run-1", json!({}))).unwrap();
    let request = http::Request::post("http://agent.example/")
        .header("content-type", "application/json")
        .body(http_body_util::Full::new(bytes::Bytes::from(body)))
        .unwrap();
    let response = tokio::time::timeout(LIMIT, sender.send_request(request))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(response.status(), 200);
    let sse = tokio::time::timeout(LIMIT, response.into_body().collect())
        .await
        .unwrap()
        .unwrap()
        .to_bytes();
    let mut reader = ag_ui_core::SseReader::new();
    reader.feed(&sse).unwrap();
    let mut events = Vec::new();
    while let Some(m) = reader.next_message() {
        events.push(ag_ui_core::read::from_str::<ag_ui_core::Event>(&m).unwrap());
    }
    assert_eq!(types(&events).last(), Some(&"RUN_FINISHED"));
    assert!(events.iter().any(
        |e| matches!(e, ag_ui_core::Event::TextMessageContent(c) if c.delta == "192.0.2.7:443")
    ));
}

#[tokio::test]
async fn an_idle_http2_connection_is_closed_at_the_idle_timeout() {
    let server = demo_server(quick()).await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(tcp),
    )
    .await
    .unwrap();
    let conn = tokio::spawn(conn);
    let request = http::Request::get(server.url())
        .body(http_body_util::Empty::<bytes::Bytes>::new())
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.status(), 405);
    drop(response);
    let idle_from = Instant::now();
    // Open past the header timeout (PINGs and idleness are not a slow head), closed at the
    // idle timeout (GOAWAY, then the end of the connection).
    let ended = tokio::time::timeout(LIMIT, conn).await;
    assert!(ended.is_ok(), "the idle HTTP/2 connection was not closed");
    assert_between(idle_from.elapsed(), 1900, 4500);
}

/// A raw HTTP/1.1 request for a `firehose` run of `events` events of 1 kB.
fn firehose_request(events: u64) -> Vec<u8> {
    let body = serde_json::to_vec(&input(
        "run-1",
        json!({"scenario": "firehose", "events": events, "bytes": 1000}),
    ))
    .unwrap();
    [
        format!(
            "POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: text/event-stream\r\ncontent-length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes(),
        body,
    ]
    .concat()
}

/// Connects with a small receive window (so that the kernel's buffers fill fast), sends
/// `request` and reads the response head.
async fn start_run(addr: std::net::SocketAddr, request: &[u8]) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(16 * 1024).unwrap();
    let mut s = socket.connect(addr).await.unwrap();
    s.write_all(request).await.unwrap();
    let mut head = [0u8; 512];
    let n = tokio::time::timeout(LIMIT, s.read(&mut head))
        .await
        .unwrap()
        .unwrap();
    assert!(
        head[..n].starts_with(b"HTTP/1.1 200"),
        "{:?}",
        String::from_utf8_lossy(&head[..n])
    );
    s
}

/// A client that stops reading a run's stream is closed once the server has waited the
/// write timeout for it to accept a byte; one that reads slowly but steadily (a pause
/// shorter than the timeout between reads) keeps its stream for as long as it reads.
#[tokio::test]
async fn a_client_that_stops_reading_is_closed_at_the_write_timeout() {
    let timeout = Duration::from_millis(1000);
    let server = demo_server(quick().write_timeout(timeout)).await;
    // A million 1 kB events: more than any kernel buffer holds.
    let request = firehose_request(1_000_000);

    let mut stalled = start_run(server.addr, &request).await;
    tokio::time::sleep(timeout * 3).await;
    // What the kernel buffered before the server gave up, then the end of the connection.
    let cap = 64 * 1024 * 1024;
    let mut got = 0;
    let mut buf = vec![0u8; 64 * 1024];
    let closed = tokio::time::timeout(LIMIT, async {
        while got < cap {
            match stalled.read(&mut buf).await {
                Ok(0) | Err(_) => return true,
                Ok(n) => got += n,
            }
        }
        false
    })
    .await;
    assert_eq!(
        closed,
        Ok(true),
        "the server kept writing to a client that read nothing ({got} bytes read)"
    );

    // Reading in bursts with pauses shorter than the timeout, for several timeouts: the
    // server's writes wait in each pause and go on after each burst. (The kernel takes
    // bytes from a waiting writer only once a good part of its buffer has drained, a third
    // on Linux, so each burst reads more than the kernel buffered above.)
    let mut steady = start_run(server.addr, &request).await;
    let burst = got.max(1024 * 1024);
    let (mut read, mut bursts) = (0, 0);
    let began = Instant::now();
    while began.elapsed() < timeout * 5 {
        bursts += 1;
        tokio::time::sleep(timeout * 3 / 10).await;
        let mut left = burst;
        while left > 0 {
            let take = left.min(buf.len());
            let n = tokio::time::timeout(LIMIT, steady.read(&mut buf[..take]))
                .await
                .unwrap()
                .unwrap();
            assert!(
                n > 0,
                "a client reading steadily was closed after {read} bytes"
            );
            read += n;
            left -= n;
        }
    }
    // Whole bursts read after pauses, for five timeouts: how many depends on the machine's
    // speed, not on the server closing the stream (each short read above would say so).
    assert!(
        bursts >= 3 && read >= bursts * burst,
        "{bursts} bursts, {read} bytes"
    );
}
