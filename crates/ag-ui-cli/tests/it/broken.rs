//! A deliberately broken AG-UI server on 127.0.0.1: plain TCP, one canned way of being wrong
//! per path, with the events built from the request's ids (so that each path breaks one thing).

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::Server;

/// How the server answers a path.
fn answer(path: &str, input: Option<&Value>) -> (String, String, Vec<u8>) {
    let thread = input
        .and_then(|i| i["threadId"].as_str())
        .unwrap_or("t")
        .to_owned();
    let run = input
        .and_then(|i| i["runId"].as_str())
        .unwrap_or("r")
        .to_owned();
    let sse = |events: Vec<Value>| -> Vec<u8> {
        events
            .iter()
            .map(|e| format!("data: {e}\n\n"))
            .collect::<String>()
            .into_bytes()
    };
    let started = json!({"type": "RUN_STARTED", "threadId": thread, "runId": run});
    let text = vec![
        json!({"type": "TEXT_MESSAGE_START", "messageId": format!("{run}-m"), "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": format!("{run}-m"), "delta": "Hi"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": format!("{run}-m")}),
    ];
    let finished = json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run});
    let good = || {
        let mut v = vec![started.clone()];
        v.extend(text.clone());
        v.push(finished.clone());
        v
    };
    let event_stream = "text/event-stream".to_owned();
    // Malformed input is refused properly on every path but `/accepts-anything`.
    let malformed = input.is_none_or(|i| !i["threadId"].is_string());
    if malformed && path == "/text-error" {
        return (
            "400 Bad Request".into(),
            "text/plain".into(),
            b"bad".to_vec(),
        );
    }
    if malformed && path != "/accepts-anything" {
        return (
            "400 Bad Request".into(),
            "application/json".into(),
            br#"{"error":"invalid_body","message":"threadId is not a string"}"#.to_vec(),
        );
    }
    match path {
        "/html500" => (
            "500 Internal Server Error".into(),
            "text/html".into(),
            b"<html><body><h1>Internal Server Error</h1></body></html>".to_vec(),
        ),
        "/text-plain" => ("200 OK".into(), "text/plain".into(), sse(good())),
        "/no-run-started" => ("200 OK".into(), event_stream, sse(good()[1..].to_vec())),
        "/two-terminals" => {
            let mut v = good();
            v.push(finished.clone());
            ("200 OK".into(), event_stream, sse(v))
        }
        // Resumable-style SSE ids, the second repeated: `1, 2, 2, 3, …`.
        "/duplicate-id" => {
            let body = good()
                .iter()
                .enumerate()
                .map(|(i, e)| format!("id: {}\ndata: {e}\n\n", if i < 2 { i + 1 } else { i }))
                .collect::<String>();
            ("200 OK".into(), event_stream, body.into_bytes())
        }
        "/no-terminal" => {
            let mut v = good();
            v.pop();
            ("200 OK".into(), event_stream, sse(v))
        }
        "/other-ids" => {
            let mut v = good();
            v[0]["runId"] = json!("someone-else");
            let last = v.len() - 1;
            v[last]["runId"] = json!("someone-else");
            ("200 OK".into(), event_stream, sse(v))
        }
        "/bad-field" => {
            let mut v = good();
            v[2]["delta"] = json!(42);
            ("200 OK".into(), event_stream, sse(v))
        }
        "/not-json" => {
            let mut body = sse(good()[..2].to_vec());
            body.extend_from_slice(b"data: {not json\n\n");
            body.extend(sse(good()[2..].to_vec()));
            ("200 OK".into(), event_stream, body)
        }
        "/crlf" => {
            let body = String::from_utf8(sse(good()))
                .unwrap()
                .replace('\n', "\r\n");
            ("200 OK".into(), event_stream, body.into_bytes())
        }
        "/unclosed-message" => {
            let mut v = good();
            v.remove(3); // TEXT_MESSAGE_END
            ("200 OK".into(), event_stream, sse(v))
        }
        "/cancelled" => {
            let mut v = good();
            let last = v.len() - 1;
            v[last]["outcome"] = json!({"type": "cancelled"});
            ("200 OK".into(), event_stream, sse(v))
        }
        // A valid stream for every input, the malformed one included.
        _ => ("200 OK".into(), event_stream, sse(good())),
    }
}

/// Serves the broken server until dropped.
pub async fn serve() -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let Some((path, head, body)) = read_request(&mut socket).await else {
                    return;
                };
                let input = serde_json::from_slice::<Value>(&body).ok();
                if path == "/needs-key" && !head.to_ascii_lowercase().contains("\r\nx-key: k\r\n") {
                    let body = br#"{"error":"unauthorized","message":"x-key is missing"}"#;
                    let head = format!(
                        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = socket.write_all(head.as_bytes()).await;
                    let _ = socket.write_all(body).await;
                    return;
                }
                let (status, content_type, body) = answer(&path, input.as_ref());
                // `/pause`: the suite's plain case stops for a while in the middle.
                let pause = path == "/pause"
                    && input
                        .as_ref()
                        .and_then(|i| i["runId"].as_str())
                        .is_some_and(|r| r.ends_with("-plain"));
                if pause {
                    let head = format!(
                        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\nconnection: close\r\n\r\n"
                    );
                    let half = body.len() / 2;
                    let _ = socket.write_all(head.as_bytes()).await;
                    let _ = socket.write_all(&body[..half]).await;
                    let _ = socket.flush().await;
                    tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
                    let _ = socket.write_all(&body[half..]).await;
                    let _ = socket.shutdown().await;
                    return;
                }
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(&body).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    Server { url, task }
}

/// Reads one request's path, head and body (by `content-length`), within a bounded size.
async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<(String, String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > 1 << 20 {
            return None;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let path = head.split_whitespace().nth(1)?.to_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())
                .flatten()
        })
        .unwrap_or(0);
    while buf.len() < head_end + length.min(1 << 20) {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some((path, head, buf[head_end..].to_vec()))
}
