//! The protobuf transport (feature `proto`, spec B1–B3): negotiation, and the demo agent's
//! runs answered as protobuf frames over real loopback HTTP, the same events as over SSE.

use ag_ui_core::Event;
use ag_ui_core::proto::{ProtoFrame, ProtoReader};
use ag_ui_core::sse::{PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE};
use ag_ui_server::demo::DemoAgent;
use ag_ui_server::{AgentService, accepts_proto, accepts_sse};
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::support::{Events, LIMIT, Server, client, input, serve, values};

#[test]
fn accept_headers_for_protobuf() {
    let admitted: &[&[&str]] = &[
        &["application/vnd.ag-ui.event+proto"],
        &["application/vnd.ag-ui.event+proto, text/event-stream"],
        &[
            "text/event-stream",
            "application/vnd.ag-ui.event+proto;q=0.1",
        ],
        &["APPLICATION/VND.AG-UI.EVENT+PROTO"],
        &["application/*"],
        &["*/*"],
        &["text/event-stream;q=1, */*;q=0.01"],
    ];
    for accept in admitted {
        assert!(accepts_proto(accept.iter().copied()), "{accept:?}");
    }
    let refused: &[&[&str]] = &[
        &[],
        &[""],
        &["text/event-stream"],
        &["text/*"],
        &["application/json"],
        &["application/vnd.ag-ui.event+proto;q=0"],
        &["*/*, application/vnd.ag-ui.event+proto;q=0"],
        &["application/*;q=0, text/event-stream"],
    ];
    for accept in refused {
        assert!(!accepts_proto(accept.iter().copied()), "{accept:?}");
    }
    // Asking for protobuf alone is no longer refused by the SSE check's caller, but SSE
    // itself is still not admitted by it.
    assert!(!accepts_sse(["application/vnd.ag-ui.event+proto"]));
}

/// POSTs `body` with `accept` (none when `None`).
async fn post(server: &Server, body: &Value, accept: Option<&str>) -> reqwest::Response {
    let mut request = client()
        .post(server.url())
        .header("content-type", "application/json")
        .body(serde_json::to_vec(body).unwrap());
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    request.send().await.unwrap()
}

/// Reads a protobuf response to its end with [`ProtoReader`], as the bytes arrive.
async fn proto_events(response: reqwest::Response) -> Vec<Event> {
    let mut body = response.bytes_stream();
    let mut reader = ProtoReader::new();
    let mut out = Vec::new();
    while let Some(chunk) = tokio::time::timeout(LIMIT, body.next()).await.unwrap() {
        reader.push(&chunk.unwrap()).unwrap();
        while let Some(frame) = reader.next_frame().unwrap() {
            match frame {
                ProtoFrame::Event(d) => {
                    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
                    out.push(d.value);
                }
                other => panic!("{other:?}"),
            }
        }
    }
    reader.finish().unwrap();
    out
}

fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn the_demo_scenarios_over_protobuf_give_the_events_of_sse() {
    let server = serve(AgentService::new(DemoAgent::new())).await;
    for scenario in ["chat", "interrupt", "error"] {
        let body = input("run-1", json!({ "scenario": scenario }));
        let sse = post(&server, &body, Some(SSE_MEDIA_TYPE)).await;
        assert_eq!(content_type(&sse), SSE_MEDIA_TYPE);
        let sse = Events::new(sse).all().await;
        let accept = "application/vnd.ag-ui.event+proto, text/event-stream";
        let proto = post(&server, &body, Some(accept)).await;
        assert_eq!(proto.status(), 200);
        assert_eq!(content_type(&proto), PROTO_MEDIA_TYPE);
        let proto = proto_events(proto).await;
        ag_ui_core::stream::verify_events(&proto).unwrap();
        assert!(proto.len() > 2, "{scenario}: {proto:?}");
        assert_eq!(values(&proto), values(&sse), "{scenario}");
    }
}

#[tokio::test]
async fn wildcards_get_protobuf_and_no_accept_gets_sse() {
    let server = serve(AgentService::new(DemoAgent::new())).await;
    let body = input("run-1", json!({ "scenario": "chat" }));
    let any = post(&server, &body, Some("*/*")).await;
    assert_eq!(content_type(&any), PROTO_MEDIA_TYPE);
    let events = proto_events(any).await;
    assert_eq!(
        events.last().map(Event::event_type).map(|t| t.as_str()),
        Some("RUN_FINISHED")
    );
    // reqwest sends `Accept: */*` unless told otherwise: protobuf.
    let default = post(&server, &body, None).await;
    assert_eq!(content_type(&default), PROTO_MEDIA_TYPE);
    drop(default);
    // A request without `Accept` (written by hand) gets SSE.
    let head = without_accept(&server, &body).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("\r\ncontent-type: text/event-stream\r\n"),
        "{head}"
    );
    let proto_only = post(&server, &body, Some(PROTO_MEDIA_TYPE)).await;
    assert_eq!(content_type(&proto_only), PROTO_MEDIA_TYPE);
    let refused = post(&server, &body, Some("application/json")).await;
    assert_eq!(refused.status(), 406);
}

/// POSTs `body` over a plain TCP connection with no `Accept` header; returns the response
/// head.
async fn without_accept(server: &Server, body: &Value) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = serde_json::to_vec(body).unwrap();
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST / HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        server.addr,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(LIMIT, stream.read_to_end(&mut response))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&response);
    text.split("\r\n\r\n").next().unwrap_or_default().to_owned() + "\r\n"
}
