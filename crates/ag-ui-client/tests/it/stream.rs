//! The runtime-free core: any stream of byte chunks, no HTTP.

use ag_ui_client::{ClientError, ClientErrorKind, EventStream, RunEnd, RunItem, RunOutcome};
use ag_ui_core::{Message, ThreadState, UserMessage};
use futures_util::{StreamExt, stream};
use serde_json::json;

use crate::server::sse;
use crate::{chat, run_finished, run_started, to_json};

fn read<S>(run: &mut EventStream<S>) -> Vec<RunItem>
where
    EventStream<S>: futures_util::Stream<Item = RunItem> + Unpin,
{
    futures_executor::block_on(run.by_ref().collect())
}

/// The run's end: the last item, which must be one.
fn end_of(items: Vec<RunItem>) -> RunEnd {
    match items.into_iter().last() {
        Some(RunItem::End(end)) => end,
        other => panic!("the last item is not the run's end: {other:?}"),
    }
}

#[test]
fn a_recorded_body_in_any_chunking_gives_the_same_thread() {
    let body = sse(&chat("a1", "Grüße ", "🌍"));
    let mut reference = None;
    for size in [1, 2, 3, 7, 64, body.len()] {
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> = body
            .as_bytes()
            .chunks(size)
            .map(|c| Ok(c.to_vec()))
            .collect();
        let mut run = EventStream::new(stream::iter(chunks));
        let items = read(&mut run);
        assert_eq!(items.len(), 7, "chunk size {size}");
        let RunItem::End(end) = items.into_iter().last().unwrap() else {
            panic!("no end")
        };
        assert!(end.is_ok());
        let thread = run.into_thread();
        let messages = to_json(thread.messages());
        assert_eq!(messages[0]["content"], "Grüße 🌍");
        match &reference {
            None => reference = Some(messages),
            Some(r) => assert_eq!(r, &messages, "chunk size {size}"),
        }
    }
}

#[test]
fn a_stream_continues_a_given_thread() {
    let history = ThreadState::new()
        .with_messages(vec![Message::User(UserMessage::new("u1", "Hi"))])
        .with_state(json!({"n":1}));
    let chunks = stream::iter([Ok::<_, std::convert::Infallible>(sse(&chat(
        "a1", "x", "y",
    )))]);
    let mut run = EventStream::with_thread(chunks, history);
    let items = read(&mut run);
    assert!(matches!(
        items.last(),
        Some(RunItem::End(end)) if end.outcome == Some(RunOutcome::Success { result: None, pending_tool_call_ids: vec![] })
    ));
    assert_eq!(run.thread().messages().len(), 2);
    assert_eq!(run.thread().state(), &json!({"n":1}));
}

#[test]
fn a_source_error_is_a_transport_error_after_the_events_before_it() {
    let chunks = stream::iter([
        Ok(sse(&[run_started()]).into_bytes()),
        Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "reset by peer",
        )),
        Ok(sse(&[run_finished()]).into_bytes()),
    ]);
    let mut run = EventStream::new(chunks);
    let items = read(&mut run);
    assert_eq!(items.len(), 2);
    let end = end_of(items);
    assert_eq!(
        end.error.as_ref().map(ClientError::kind),
        Some(ClientErrorKind::Transport)
    );
    assert!(end.error.unwrap().to_string().contains("reset by peer"));
}

#[test]
fn a_source_that_ends_inside_a_message_is_a_transport_error() {
    // The last message's JSON stops short and no blank line follows: the source was cut.
    let body = format!(
        "{}data: {{\"type\":\"RUN_FINISHED\",\"thr",
        sse(&[run_started()])
    );
    let mut run = EventStream::new(stream::iter([Ok::<_, std::io::Error>(body.into_bytes())]));
    let items = read(&mut run);
    assert_eq!(items.len(), 2);
    let end = end_of(items);
    assert_eq!(
        end.error.as_ref().map(ClientError::kind),
        Some(ClientErrorKind::Transport)
    );
    // Malformed (not cut) JSON in the same place is still the agent's syntax error.
    let body = format!("{}data: {{\"type\":]", sse(&[run_started()]));
    let mut run = EventStream::new(stream::iter([Ok::<_, std::io::Error>(body.into_bytes())]));
    let end = end_of(read(&mut run));
    assert_eq!(
        end.error.as_ref().map(ClientError::kind),
        Some(ClientErrorKind::SseParse)
    );
}

#[test]
fn an_abort_handle_stops_a_stream_without_a_runtime() {
    let body = sse(&chat("a1", "x", "y"));
    let chunks = stream::iter(
        body.as_bytes()
            .chunks(10)
            .map(|c| Ok::<_, std::io::Error>(c.to_vec()))
            .collect::<Vec<_>>(),
    );
    let mut run = EventStream::new(chunks);
    let handle = run.abort_handle();
    let first = futures_executor::block_on(run.next());
    assert!(matches!(first, Some(RunItem::Event(_))));
    handle.abort();
    let rest = read(&mut run);
    let end = end_of(rest);
    assert_eq!(
        end.error.as_ref().map(ClientError::kind),
        Some(ClientErrorKind::Abort)
    );
    assert!(handle.is_aborted());
    // Nothing follows the end.
    assert!(futures_executor::block_on(run.next()).is_none());
}

#[test]
fn an_oversized_message_is_an_sse_parse_error() {
    let body = format!(
        "data: {{\"type\":\"RUN_STARTED\",\"threadId\":\"{}\",\"runId\":\"r\"}}\n\n",
        "t".repeat(4096)
    );
    // The message grows past the cap before its end arrives.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = body
        .as_bytes()
        .chunks(256)
        .map(|c| Ok(c.to_vec()))
        .collect();
    let mut run = EventStream::new(stream::iter(chunks)).with_max_frame_bytes(1024);
    let items = read(&mut run);
    let end = end_of(items);
    assert_eq!(
        end.error.as_ref().map(ClientError::kind),
        Some(ClientErrorKind::SseParse)
    );
}

#[test]
fn a_body_with_two_runs_is_read_to_its_end_and_reports_the_last_terminal_event() {
    let body = sse(&[
        run_started(),
        run_finished(),
        json!({"type":"RUN_STARTED","threadId":"t1","runId":"r2"}),
        json!({"type":"RUN_ERROR","message":"second run failed"}),
    ]);
    let mut run = EventStream::new(stream::iter([Ok::<_, std::io::Error>(body)]));
    let items = read(&mut run);
    assert_eq!(items.len(), 5);
    let end = end_of(items);
    assert!(end.is_ok());
    assert_eq!(
        end.outcome,
        Some(RunOutcome::Error {
            message: "second run failed".into(),
            code: None
        })
    );
}

/// A byte stream read for a peer whose ceiling predates subagents: their events are
/// dropped with a compatibility warning (as `HttpAgentBuilder::peer_protocol_ceiling`
/// does for HTTP runs).
#[test]
fn a_peer_protocol_ceiling_filters_a_byte_stream() {
    use ag_ui_client::{ProtocolVersion, WarningSource};
    let body = sse(&[
        run_started(),
        json!({"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"helper"}),
        json!({"type":"SUBAGENT_FINISHED","subagentRunId":"s1"}),
        run_finished(),
    ]);
    let source = || stream::iter([Ok::<_, std::convert::Infallible>(body.clone())]);
    let old = ProtocolVersion::new(0, 0, 50);
    let dropped = |items: Vec<RunItem>| {
        let types: Vec<String> = items
            .iter()
            .filter_map(|i| i.event().map(|e| e.event_type().to_string()))
            .collect();
        let end = end_of(items);
        assert!(end.is_ok(), "{:?}", end.error);
        let warned: Vec<_> = end
            .warnings
            .iter()
            .filter(|w| w.source == WarningSource::Compatibility)
            .map(|w| w.event_type.clone().unwrap_or_default())
            .collect();
        (types, warned)
    };
    let filtered = dropped(read(
        &mut EventStream::new(source()).with_peer_protocol_ceiling(old),
    ));
    assert_eq!(
        filtered,
        (
            vec!["RUN_STARTED".to_owned(), "RUN_FINISHED".to_owned()],
            vec![
                "SUBAGENT_STARTED".to_owned(),
                "SUBAGENT_FINISHED".to_owned()
            ]
        )
    );
    // Without a ceiling (a 1.0 peer) they are delivered.
    assert_eq!(dropped(read(&mut EventStream::new(source()))).0.len(), 4);
    // `RunOptions::resume_all` sets the answers a run resumes with.
    let answers = || {
        [ag_ui_core::ResumeEntry::new(
            "i1",
            ag_ui_core::ResumeStatus::Resolved,
        )]
    };
    let options = ag_ui_client::RunOptions::new().resume_all(answers());
    assert_eq!(options.resume.as_deref(), Some(&answers()[..]));
}
