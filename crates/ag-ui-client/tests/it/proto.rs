//! The protobuf transport (feature `proto`, spec B1–B7): the client asks for it beside SSE,
//! reads a response by its `Content-Type`, and puts the decoded events through the same
//! pipeline; an unknown event kind is skipped with a warning, a frame that does not decode
//! fails the run, a body cut mid-frame is an incomplete run.

use ag_ui_client::{ClientErrorKind, HttpAgent, WarningSource};
use ag_ui_core::Event;
use ag_ui_core::proto::write_frame;
use serde_json::{Value, json};

use crate::server::{Ending, Part, Plan, TestServer};
use crate::{bounded, collect, run_finished, run_started, to_json};

fn events() -> Vec<Value> {
    vec![
        run_started(),
        json!({"type":"TEXT_MESSAGE_START","messageId":"a1","role":"assistant"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Hello"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":" there"}),
        json!({"type":"TEXT_MESSAGE_END","messageId":"a1"}),
        json!({"type":"STATE_SNAPSHOT","snapshot":{"n":1,"list":[true,null,"x"]}}),
        run_finished(),
    ]
}

/// The events as one protobuf body.
fn body(events: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        let e: Event = ag_ui_core::read::from_str(&e.to_string()).unwrap();
        write_frame(&e, &mut out).unwrap();
    }
    out
}

fn proto_plan(parts: Vec<Part>, ending: Ending) -> Plan {
    Plan {
        status: 200,
        content_type: Some("application/vnd.ag-ui.event+proto".into()),
        parts,
        ending,
        headers: Vec::new(),
    }
}

#[tokio::test]
async fn a_protobuf_response_is_read_by_its_content_type() {
    bounded(async {
        let bytes = body(&events());
        // Cut into chunks that split frames and length prefixes.
        let parts = bytes.chunks(5).map(|c| Part::Bytes(c.to_vec())).collect();
        let server = TestServer::always(proto_plan(parts, Ending::Clean)).await;
        let mut agent = HttpAgent::builder(&server.url).build().unwrap();
        let (got, end) = collect(agent.send("Hi")).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert!(end.warnings.is_empty(), "{:?}", end.warnings);
        assert_eq!(got.iter().map(to_json).collect::<Vec<_>>(), events());
        assert_eq!(
            to_json(agent.state()),
            json!({"n":1,"list":[true,null,"x"]})
        );
        let messages = to_json(agent.messages());
        assert_eq!(messages[1]["content"], "Hello there");
        let accept: Vec<_> = server.requests()[0]
            .headers
            .get_all("accept")
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            accept,
            ["application/vnd.ag-ui.event+proto, text/event-stream"]
        );
    })
    .await;
}

#[tokio::test]
async fn an_unknown_event_kind_is_skipped_with_a_warning() {
    bounded(async {
        let all = events();
        let mut bytes = body(&all[..2]);
        // Envelope field 40: an event kind of a later protocol.
        let unknown = [0xc2, 0x02, 0x02, 0x0a, 0x00];
        bytes.extend_from_slice(&(unknown.len() as u32).to_be_bytes());
        bytes.extend_from_slice(&unknown);
        bytes.extend_from_slice(&body(&all[2..]));
        let server = TestServer::always(proto_plan(vec![Part::Bytes(bytes)], Ending::Clean)).await;
        let mut agent = HttpAgent::builder(&server.url).build().unwrap();
        let (got, end) = collect(agent.send("Hi")).await;
        assert!(end.is_ok(), "{:?}", end.error);
        assert_eq!(got.len(), all.len());
        let skipped: Vec<_> = end
            .warnings
            .iter()
            .filter(|w| w.source == WarningSource::Stream)
            .map(|w| (w.event_index, w.message.contains("(40)")))
            .collect();
        assert_eq!(skipped, [(Some(2), true)], "{:?}", end.warnings);
    })
    .await;
}

#[tokio::test]
async fn a_frame_that_does_not_decode_fails_the_run() {
    bounded(async {
        let all = events();
        let mut bytes = body(&all[..2]);
        bytes.extend_from_slice(&[0, 0, 0, 2, 0x12, 0x05]);
        bytes.extend_from_slice(&body(&all[2..]));
        let server = TestServer::always(proto_plan(vec![Part::Bytes(bytes)], Ending::Clean)).await;
        let mut agent = HttpAgent::builder(&server.url).build().unwrap();
        let (got, end) = collect(agent.send("Hi")).await;
        assert_eq!(got.len(), 2);
        let error = end.error.unwrap();
        assert_eq!(error.kind(), ClientErrorKind::SseParse);
        assert!(error.to_string().contains("does not decode"), "{error}");
    })
    .await;
}

#[tokio::test]
async fn a_body_cut_mid_frame_is_an_incomplete_run() {
    bounded(async {
        let bytes = body(&events());
        let cut = bytes[..bytes.len() - 3].to_vec();
        let server = TestServer::always(proto_plan(vec![Part::Bytes(cut)], Ending::Clean)).await;
        let mut agent = HttpAgent::builder(&server.url).build().unwrap();
        let (got, end) = collect(agent.send("Hi")).await;
        assert_eq!(got.len(), events().len() - 1);
        let error = end.error.unwrap();
        assert_eq!(error.kind(), ClientErrorKind::IncompleteStream, "{error}");
    })
    .await;
}
