//! A thread's follow stream (`GET {agent path}/threads/{threadId}/events`): every run
//! started on the thread from the request on, each from its first event to its terminal
//! one, with composite ids `<seq>.<cursor>` (the run's number on its thread and the
//! event's cursor in the run's log) that a reconnect resumes from.

use ag_ui_core::{Event, RunErrorEvent};
use bytes::Bytes;
use futures_core::Stream;
use futures_util::StreamExt;
use std::pin::Pin;

use super::store::{Cursor, Record, RecordStream, StoreError, ThreadRunStream, write_id};
use super::{CODE_STORE_ERROR, Runs, Subscriber};
use crate::Rejection;

/// The header a browser's `EventSource` sends when it reconnects (read by joins and
/// follows).
pub(crate) const LAST_EVENT_ID: &str = "last-event-id";

/// Where a follow stream resumes: `Last-Event-ID: <seq>.<cursor>`, the last event the
/// client has (of the thread's run `seq`); `None` for a new follower.
pub(crate) fn resume_point(
    parts: &http::request::Parts,
) -> Result<Option<(u64, Cursor)>, Rejection> {
    let Some(v) = parts.headers.get(LAST_EVENT_ID) else {
        return Ok(None);
    };
    let s = v.to_str().unwrap_or("?").trim();
    let parsed = s
        .split_once('.')
        .and_then(|(seq, cursor)| Some((seq.parse::<u64>().ok()?, cursor.parse::<u64>().ok()?)))
        .filter(|&(seq, _)| seq > 0);
    match parsed {
        Some(p) => Ok(Some(p)),
        None => Err(Rejection::new(
            400,
            "invalid_cursor",
            format!(
                "Last-Event-ID {s:?} is not a follow stream's event id (<seq>.<cursor>, two \
                 non-negative integers, seq at least 1)"
            ),
        )),
    }
}

/// The follow stream of `who`'s thread `thread_id`, from `resume` or from now on.
pub(crate) async fn follow(
    runs: &Runs,
    who: Option<&str>,
    thread_id: &str,
    resume: Option<(u64, Cursor)>,
) -> Result<Pin<Box<dyn Stream<Item = Bytes> + Send>>, Rejection> {
    let store = &*runs.store;
    let after = match resume {
        Some((seq, _)) => seq - 1,
        None => store
            .thread_seq(who, thread_id)
            .await
            .map_err(|e| unavailable(&e))?,
    };
    let feed = store
        .thread_runs(who, thread_id, after)
        .await
        .map_err(|e| match e {
            StoreError::FeedExpired { .. } => Rejection::new(
                410,
                "cursor_expired",
                format!("{e}: follow the thread anew"),
            ),
            other => unavailable(&other),
        })?;
    let state = Follow {
        runs: runs.clone(),
        feed,
        resume,
        current: None,
        done: false,
    };
    Ok(Box::pin(futures_util::stream::unfold(state, Follow::next)))
}

fn unavailable(e: &StoreError) -> Rejection {
    Rejection::new(503, "store_unavailable", e.to_string())
}

/// A follower's place: the thread's feed, and the run being sent.
struct Follow {
    runs: Runs,
    feed: ThreadRunStream,
    /// The run and cursor a reconnect resumes after.
    resume: Option<(u64, Cursor)>,
    /// The run being sent: its number, its log, this response's hold on it.
    current: Option<(u64, RecordStream, Option<Subscriber>)>,
    done: bool,
}

impl Follow {
    async fn next(mut self) -> Option<(Bytes, Follow)> {
        loop {
            if self.done {
                return None;
            }
            if let Some((seq, tail, _)) = self.current.as_mut() {
                let seq = *seq;
                match tail.next().await {
                    Some(Ok(r)) => {
                        if r.is_terminal() {
                            self.current = None;
                        }
                        return Some((frame(seq, &r), self));
                    }
                    Some(Err(e)) => {
                        self.done = true;
                        return Some((error_frame(&e), self));
                    }
                    None => {
                        self.current = None;
                        continue;
                    }
                }
            }
            match self.feed.next().await {
                Some(Ok(run)) => {
                    let after = match self.resume.take() {
                        Some((seq, cursor)) if seq == run.seq => cursor,
                        _ => 0,
                    };
                    match self.runs.store.tail(&run.run_id, after).await {
                        Ok(tail) => {
                            let sub = self.runs.local.get(&run.run_id).map(|l| l.subscribe());
                            self.current = Some((run.seq, tail, sub));
                        }
                        // Expired before this follower came to it: nothing left to send.
                        Err(StoreError::NotFound(_)) => {}
                        Err(e) => {
                            self.done = true;
                            return Some((error_frame(&e), self));
                        }
                    }
                }
                Some(Err(e)) => {
                    self.done = true;
                    return Some((error_frame(&e), self));
                }
                None => return None,
            }
        }
    }
}

/// The record's event as a follow stream's frame: `id: <seq>.<cursor>`.
fn frame(seq: u64, r: &Record) -> Bytes {
    let json = r.json();
    let mut f = Vec::with_capacity(json.len() + 48);
    write_id(&mut f, seq);
    // `id: <seq>\n` becomes `id: <seq>.<cursor>\n`.
    f.pop();
    let mut cursor = Vec::with_capacity(24);
    write_id(&mut cursor, r.cursor);
    f.push(b'.');
    f.extend_from_slice(&cursor[4..]);
    f.extend_from_slice(b"data: ");
    f.extend_from_slice(json);
    f.extend_from_slice(b"\n\n");
    f.into()
}

/// The `RUN_ERROR` (without an id) that ends a follow stream the store failed under.
fn error_frame(e: &StoreError) -> Bytes {
    let code = match e {
        StoreError::CursorExpired { .. } | StoreError::FeedExpired { .. } => "cursor_expired",
        _ => CODE_STORE_ERROR,
    };
    let event: Event = RunErrorEvent::new(format!("the follow stream ends: {e}"))
        .with_code(code.to_owned())
        .into();
    let mut f = Vec::with_capacity(128);
    match ag_ui_core::sse::write_sse_frame(&mut f, &event) {
        Ok(()) => f.into(),
        Err(_) => Bytes::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_carry_the_runs_seq_and_the_events_cursor() {
        let r = Record::new(17, br#"{"type":"RUN_STARTED"}"#);
        assert_eq!(
            &frame(3, &r)[..],
            b"id: 3.17\ndata: {\"type\":\"RUN_STARTED\"}\n\n"
        );
    }
}
