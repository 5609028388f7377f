//! Server-Sent Events framing (spec §8.3): one event per message, `data: <compact JSON>`
//! followed by a blank line.

use std::cell::Cell;
use std::io::Write;

use crate::codec::error::{Error, Result};
use crate::codec::write::Encode;

/// Media type of an AG-UI SSE stream.
pub const SSE_MEDIA_TYPE: &str = "text/event-stream";

/// Media type of the AG-UI protobuf stream (not implemented by this crate; named so that
/// servers can negotiate it away).
pub const PROTO_MEDIA_TYPE: &str = "application/vnd.ag-ui.event+proto";

/// Default cap on one SSE message (10 MiB, as the official client).
pub const DEFAULT_MAX_FRAME_BYTES: usize = 10 * 1024 * 1024;

pub use crate::codec::write::{to_string, to_vec};

/// Encodes one SSE message: `data: ` + compact JSON + `\n\n`.
///
/// # Errors
/// As [`crate::write::to_string`].
pub fn to_sse_frame<T: Encode + ?Sized>(value: &T) -> Result<String> {
    let mut out = Vec::with_capacity(128);
    write_sse_frame(&mut out, value)?;
    // The JSON writer only produces UTF-8.
    String::from_utf8(out).map_err(|e| Error::encode(String::new(), e.to_string()))
}

/// Writes one SSE message to `w`. The value is encoded first, so a value that cannot be
/// encoded writes nothing.
///
/// # Errors
/// As [`crate::write::to_string`], and an error of kind [`ErrorKind::Io`](crate::ErrorKind::Io)
/// when writing fails.
pub fn write_sse_frame<W: Write, T: Encode + ?Sized>(mut w: W, value: &T) -> Result<()> {
    // The frame is made in the thread's frame buffer, kept from call to call (a writer
    // that frames again from inside `write_all` gets a buffer of its own).
    let mut frame = FRAME.try_with(Cell::take).unwrap_or_default();
    frame.clear();
    frame.extend_from_slice(b"data: ");
    let written = crate::codec::write::append(&mut frame, value).and_then(|()| {
        frame.extend_from_slice(b"\n\n");
        w.write_all(&frame).map_err(Error::from)
    });
    if frame.capacity() <= KEPT_FRAME_BYTES {
        let _ = FRAME.try_with(|f| f.set(frame));
    }
    written
}

/// The longest frame buffer [`write_sse_frame`] keeps for the next frame.
const KEPT_FRAME_BYTES: usize = 64 * 1024;

thread_local! {
    /// [`write_sse_frame`]'s buffer, kept between frames.
    static FRAME: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// An incremental SSE reader: bytes in (in chunks of any size), message data out.
///
/// Follows the SSE rules the official client uses and the WHATWG event-stream parsing
/// rules: one leading byte order mark (`EF BB BF`) is removed from the stream; messages end
/// at a blank line; only `data:` lines count (one optional space after the colon is
/// removed), several are joined with `\n`; an `id` field sets the last event ID that
/// [`SseReader::last_event_id`] reports (kept across messages until another `id` changes
/// it; one containing NUL is ignored); comments and other fields (`event`, `retry`) are
/// ignored; lines may end in LF, CRLF or CR; a UTF-8 character split across
/// chunks is reassembled; a final message without its blank line is delivered by
/// [`SseReader::finish`]. Invalid UTF-8 and a message larger than the cap are errors that
/// name the byte offset.
///
/// How the bytes are split into chunks never changes the outcome: the same messages, the
/// same error at the same offset.
#[derive(Debug)]
pub struct SseReader {
    buf: Vec<u8>,
    scanned: usize,
    /// The data of the complete messages not yet handed out, back to back, then that of the
    /// message being read (from `open`): one buffer reused for the whole stream, so that a
    /// message costs no allocation of its own.
    data: String,
    /// Where the data of the message being read starts in `data`.
    open: usize,
    has_data: bool,
    /// Stream offset of `buf[0]`.
    consumed: u64,
    max_frame: usize,
    /// Complete messages: the range of their data in `data`, and the last event ID in
    /// force when they were dispatched.
    ready: std::collections::VecDeque<Ready>,
    /// The last event ID buffer (set by `id` fields), shared with the messages it applies to.
    last_id: Option<std::sync::Arc<str>>,
    /// The last event ID of the message last handed out.
    current_id: Option<std::sync::Arc<str>>,
    failed: bool,
    /// The last line ended in a CR at the end of a chunk: an LF opening the next chunk is
    /// the rest of that CRLF, not a blank line.
    skip_lf: bool,
    /// Whether the start of the stream (and its byte order mark, if any) is behind us.
    started: bool,
    /// Stream offset of the first byte of the message being read.
    message_start: u64,
    /// Bytes of the message being read: its complete lines with their line ends.
    message_bytes: usize,
    /// Whether the last complete line was blank (or there was none yet).
    after_blank: bool,
}

/// A complete message waiting in [`SseReader`]'s buffer.
#[derive(Debug)]
struct Ready {
    start: usize,
    end: usize,
    id: Option<std::sync::Arc<str>>,
}

impl Default for SseReader {
    fn default() -> Self {
        Self::new()
    }
}

/// The UTF-8 byte order mark, removed once from the start of a stream.
const BOM: &[u8; 3] = b"\xEF\xBB\xBF";

impl SseReader {
    /// A reader with the default 10 MiB message cap.
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_frame_bytes(DEFAULT_MAX_FRAME_BYTES)
    }

    /// A reader whose messages may not exceed `max` bytes. A message's size is that of its
    /// lines, line ends included, up to the blank line that ends it; comments and fields
    /// other than `data` count (they are bytes the reader must get through before the
    /// message ends).
    #[must_use]
    pub fn with_max_frame_bytes(max: usize) -> Self {
        SseReader {
            buf: Vec::new(),
            scanned: 0,
            data: String::new(),
            open: 0,
            has_data: false,
            consumed: 0,
            max_frame: max,
            ready: std::collections::VecDeque::new(),
            last_id: None,
            current_id: None,
            failed: false,
            skip_lf: false,
            started: false,
            message_start: 0,
            message_bytes: 0,
            after_blank: true,
        }
    }

    /// Feeds bytes; complete messages become available through [`SseReader::next_message`].
    ///
    /// # Errors
    /// an error of kind [`ErrorKind::Sse`](crate::ErrorKind::Sse) for invalid UTF-8 in a data line or a message over the cap. After an
    /// error the reader refuses further input; the messages completed before the error
    /// stay available.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<()> {
        if self.failed {
            return Err(self.sse_error(self.consumed, "the reader already failed"));
        }
        self.reclaim();
        let r = self.feed_bytes(bytes);
        if r.is_err() {
            self.failed = true;
        }
        r
    }

    /// [`SseReader::feed`] without the failure bookkeeping.
    ///
    /// Bytes are read where they are, and only a line that is not complete at the end of
    /// `bytes` is copied into the reader's own buffer: when a line from an earlier call is
    /// waiting there, the bytes up to the first line end complete it (read from that
    /// buffer) and the rest is read in place. Since a stream cut anywhere reads the same
    /// (see the type's documentation), reading one call's bytes in two parts changes
    /// nothing.
    fn feed_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let mut rest = bytes;
        if !self.started || !self.buf.is_empty() {
            let cut = memchr::memchr2(b'\n', b'\r', rest).map_or(rest.len(), |i| i + 1);
            self.buf.extend_from_slice(&rest[..cut]);
            rest = &rest[cut..];
            if !self.started {
                let n = self.buf.len().min(BOM.len());
                if self.buf[..n] != BOM[..n] {
                    self.started = true;
                } else if n < BOM.len() {
                    // Maybe a byte order mark split across chunks: wait for the rest.
                    debug_assert!(rest.is_empty());
                    return Ok(());
                } else {
                    self.buf.drain(..BOM.len());
                    self.consumed = BOM.len() as u64;
                    self.message_start = self.consumed;
                    self.started = true;
                }
            }
            self.process_buf(false)?;
            if !self.buf.is_empty() {
                // The line is still not complete: `bytes` held no line end, so nothing is
                // left of them (but for safety, whatever is left is read the slow way).
                debug_assert!(rest.is_empty());
                self.buf.extend_from_slice(rest);
                return self.process_buf(false);
            }
        }
        if rest.is_empty() {
            return Ok(());
        }
        let (r, start, scanned) = self.process(rest, 0, false);
        self.buf.extend_from_slice(&rest[start..]);
        self.scanned = scanned - start;
        r
    }

    /// The next complete message's data, if any, as an owned `String` (one allocation per
    /// message; [`SseReader::next_data`] lends it instead).
    pub fn next_message(&mut self) -> Option<String> {
        self.next_data().map(str::to_owned)
    }

    /// The next complete message's data, if any, borrowed from the reader's buffer: no
    /// allocation per message. The buffer is reused once every message fed so far has
    /// been taken out.
    ///
    /// ```
    /// let mut reader = ag_ui_core::SseReader::new();
    /// reader.feed(b"data: a\n\ndata: b\ndata: c\n\n")?;
    /// assert_eq!(reader.next_data(), Some("a"));
    /// assert_eq!(reader.next_data(), Some("b\nc"));
    /// assert_eq!(reader.next_data(), None);
    /// # Ok::<(), ag_ui_core::Error>(())
    /// ```
    pub fn next_data(&mut self) -> Option<&str> {
        self.next_data_with_id().map(|(data, _)| data)
    }

    /// [`SseReader::next_data`] with the last event ID in force for that message (what
    /// [`SseReader::last_event_id`] reports after it), both borrowed from the reader.
    ///
    /// ```
    /// let mut reader = ag_ui_core::SseReader::new();
    /// reader.feed(b"id: 7\ndata: a\n\n")?;
    /// assert_eq!(reader.next_data_with_id(), Some(("a", Some("7"))));
    /// # Ok::<(), ag_ui_core::Error>(())
    /// ```
    pub fn next_data_with_id(&mut self) -> Option<(&str, Option<&str>)> {
        let Ready { start, end, id } = self.ready.pop_front()?;
        self.current_id = id;
        Some((&self.data[start..end], self.current_id.as_deref()))
    }

    /// The last event ID (the SSE `id` field) in force for the message last returned by
    /// [`next_message`](Self::next_message) or [`finish`](Self::finish): what a browser's
    /// `EventSource` would send as `Last-Event-ID` after it. `None` until an `id` field
    /// was read.
    ///
    /// ```
    /// let mut reader = ag_ui_core::SseReader::new();
    /// reader.feed(b"id: 7\ndata: a\n\ndata: b\n\nid: 9\ndata: c\n\n")?;
    /// assert_eq!(reader.next_message().as_deref(), Some("a"));
    /// assert_eq!(reader.last_event_id(), Some("7"));
    /// assert_eq!(reader.next_message().as_deref(), Some("b"));
    /// assert_eq!(reader.last_event_id(), Some("7"), "kept until another id");
    /// assert_eq!(reader.next_message().as_deref(), Some("c"));
    /// assert_eq!(reader.last_event_id(), Some("9"));
    /// # Ok::<(), ag_ui_core::Error>(())
    /// ```
    #[must_use]
    pub fn last_event_id(&self) -> Option<&str> {
        self.current_id.as_deref()
    }

    /// Ends the stream: a final message without its terminating blank line is delivered.
    ///
    /// # Errors
    /// As [`SseReader::feed`].
    pub fn finish(&mut self) -> Result<Option<String>> {
        if self.failed {
            return Err(self.sse_error(self.consumed, "the reader already failed"));
        }
        self.reclaim();
        // The first bytes of a byte order mark and nothing else: they are a line.
        self.started = true;
        let r = self.process_buf(true).and_then(|()| {
            if !self.buf.is_empty() {
                let line = std::mem::take(&mut self.buf);
                self.scanned = 0;
                self.line(&line, None)?;
            }
            Ok(())
        });
        if r.is_err() {
            self.failed = true;
        }
        r?;
        self.dispatch();
        Ok(self.next_message())
    }

    /// Drops the data of the messages already handed out, keeping those still waiting and
    /// the message being read (moved to the front of the buffer).
    fn reclaim(&mut self) {
        let keep = self.ready.front().map_or(self.open, |r| r.start);
        if keep == self.data.len() {
            self.data.clear();
        } else if keep > 0 && keep >= self.data.len() / 2 {
            // Only when the prefix handed out is at least half the buffer: a caller that
            // leaves messages waiting costs linear time, not quadratic.
            self.data.drain(..keep);
        } else {
            return;
        }
        self.open -= keep;
        for r in &mut self.ready {
            r.start -= keep;
            r.end -= keep;
        }
    }

    fn sse_error(&self, offset: u64, message: impl Into<String>) -> Error {
        crate::codec::error::Repr::Sse {
            offset,
            message: message.into(),
        }
        .into()
    }

    /// Counts `n` more bytes of the message being read, refusing it past the cap.
    fn grow(&mut self, n: usize) -> Result<()> {
        self.message_bytes = self.message_bytes.saturating_add(n);
        if self.message_bytes > self.max_frame {
            return Err(self.sse_error(
                self.message_start,
                format!(
                    "SSE message exceeds the {} byte cap without ending",
                    self.max_frame
                ),
            ));
        }
        Ok(())
    }

    /// Reads the complete lines of the reader's own buffer, keeping the rest there.
    fn process_buf(&mut self, at_end: bool) -> Result<()> {
        let buf = std::mem::take(&mut self.buf);
        let (r, start, scanned) = self.process(&buf, self.scanned, at_end);
        self.buf = buf;
        self.buf.drain(..start);
        self.scanned = scanned - start;
        r
    }

    /// Reads the complete lines of `buf`, from its start (`scanned`: how far an earlier
    /// call already looked for a line end). Returns the outcome, where the unread rest of
    /// `buf` starts, and how far it was scanned.
    fn process(&mut self, buf: &[u8], scanned: usize, at_end: bool) -> (Result<()>, usize, usize) {
        // Lines are cut from `buf` by offset and the caller removes the consumed prefix
        // once, so a chunk holding many short lines costs linear time, not quadratic.
        //
        // The complete lines are UTF-8-checked in one pass (one long check is much faster
        // than one per line); data lines are then sliced from the checked text. If that
        // text holds invalid UTF-8 (which only a data line may not), each data line is
        // checked on its own, to refuse exactly the one that holds it.
        let checked = memchr::memrchr2(b'\n', b'\r', buf)
            .and_then(|last| simdutf8::basic::from_utf8(&buf[..=last]).ok());
        let mut start = 0;
        let mut result = Ok(());
        if self.skip_lf && !buf.is_empty() {
            if buf[0] == b'\n' {
                start = 1;
                self.consumed += 1;
                // The second byte of the CRLF that ended the last line.
                if self.after_blank {
                    self.message_start += 1;
                } else {
                    result = self.grow(1);
                }
            }
            self.skip_lf = false;
        }
        let mut scanned = scanned.max(start);
        while result.is_ok() {
            let Some(rel) = memchr::memchr2(b'\n', b'\r', &buf[scanned..]) else {
                scanned = buf.len();
                // The line being received counts toward its message already.
                let partial = buf.len() - start;
                if self.message_bytes.saturating_add(partial) > self.max_frame {
                    result = self.grow(partial);
                }
                break;
            };
            let end = scanned + rel;
            let terminator = if buf[end] == b'\r' {
                match buf.get(end + 1) {
                    Some(b'\n') => 2,
                    Some(_) => 1,
                    // A CR at the end of the input ends the line now (CR-only streams get
                    // their messages without waiting for the next chunk); an LF opening the
                    // next chunk is then the second half of a CRLF.
                    None => {
                        self.skip_lf = !at_end;
                        1
                    }
                }
            } else {
                1
            };
            let line = &buf[start..end];
            if line.is_empty() {
                self.dispatch();
                self.after_blank = true;
                self.consumed += terminator as u64;
                self.message_start = self.consumed;
                self.message_bytes = 0;
            } else {
                self.after_blank = false;
                let text = checked.map(|t| &t[start..end]);
                // The line end counts after the line is read: a CRLF cut between two reads
                // is counted in two steps, and the same problem must be found first
                // wherever the stream is cut.
                result = self
                    .grow(line.len())
                    .and_then(|()| self.line(line, text))
                    .and_then(|()| self.grow(terminator));
                if result.is_err() {
                    self.skip_lf = false;
                    break;
                }
                self.consumed += (line.len() + terminator) as u64;
            }
            start = end + terminator;
            scanned = start;
        }
        (result, start, scanned)
    }

    /// Reads one line (without its line end); `text` is the same line if it is known to be
    /// UTF-8.
    fn line(&mut self, line: &[u8], text: Option<&str>) -> Result<()> {
        if line.is_empty() {
            self.dispatch();
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        // `data: ` opens almost every line of an AG-UI stream.
        let (field, value) = match line.strip_prefix(b"data: ") {
            Some(v) => (&b"data"[..], v),
            None => match memchr::memchr(b':', line) {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (line, &line[line.len()..]),
            },
        };
        if field == b"id" {
            if !value.contains(&0) {
                self.last_id = Some(String::from_utf8_lossy(value).into());
            }
            return Ok(());
        }
        if field != b"data" {
            return Ok(());
        }
        let value_at = line.len() - value.len();
        let text = match text {
            Some(t) => Ok(&t[value_at..]),
            None => std::str::from_utf8(value),
        }
        .map_err(|e| {
            self.sse_error(
                self.consumed,
                format!(
                    "invalid UTF-8 in a data line (at byte {} of the line)",
                    e.valid_up_to() + value_at
                ),
            )
        })?;
        if self.has_data {
            self.data.push('\n');
        }
        self.data.push_str(text);
        self.has_data = true;
        Ok(())
    }

    fn dispatch(&mut self) {
        if self.has_data {
            self.ready.push_back(Ready {
                start: self.open,
                end: self.data.len(),
                id: self.last_id.clone(),
            });
            self.open = self.data.len();
            self.has_data = false;
        }
    }
}
