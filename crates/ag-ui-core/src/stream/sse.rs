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
/// same error at the same offset. Nor does it change how often a byte is read: a line is
/// read as its bytes arrive and nothing already read is read again, so a line fed one byte
/// at a time costs time in proportion to its length, not to its square
/// ([`SseReader::bytes_examined`] counts the work).
#[derive(Debug)]
pub struct SseReader {
    /// The data of the complete messages not yet handed out, back to back, then that of the
    /// message being read (from `open`), the data line being received included: one buffer
    /// reused for the whole stream, so that a message costs no allocation of its own.
    data: String,
    /// Where the data of the message being read starts in `data`.
    open: usize,
    has_data: bool,
    /// Stream offset of the first byte of the line being received.
    consumed: u64,
    max_frame: usize,
    /// Complete messages: the range of their data in `data`, and the last event ID in
    /// force when they were dispatched.
    ready: std::collections::VecDeque<Ready>,
    /// The last event ID buffer (set by `id` fields), shared with the messages it applies to.
    last_id: Option<std::sync::Arc<String>>,
    /// The last event ID of the message last handed out.
    current_id: Option<std::sync::Arc<String>>,
    failed: bool,
    /// The last line ended in a CR at the end of a chunk: an LF opening the next chunk is
    /// the rest of that CRLF, not a blank line.
    skip_lf: bool,
    /// Whether the start of the stream (and its byte order mark, if any) is behind us.
    started: bool,
    /// How many bytes of a byte order mark the stream opened with so far (before `started`).
    bom: usize,
    /// Stream offset of the first byte of the message being read.
    message_start: u64,
    /// Bytes of the message being read: its complete lines with their line ends.
    message_bytes: usize,
    /// Whether the last complete line was blank (or there was none yet).
    after_blank: bool,
    /// The line being received.
    line: Line,
    /// Bytes read so far by every pass over the input and the buffers
    /// ([`SseReader::bytes_examined`]).
    examined: u64,
    /// The length of `data` when the general path last ran: the bytes past it were
    /// appended by [`SseReader::feed`]'s shortcut.
    quick_from: usize,
    /// The length up to which [`SseReader::feed`] may append bytes of the data line being
    /// received without the general path ([`SseReader::quick_room`]); no more than
    /// `quick_from` when it may not.
    quick_end: usize,
}

/// What the reader knows of the line being received. Its bytes are not kept: a data
/// line's value goes into the message data as it arrives, an `id` line's value into `id`,
/// and every other line is only searched for its end.
#[derive(Debug, Default)]
struct Line {
    /// Bytes received so far.
    len: usize,
    state: State,
    /// While the field name is read: its first bytes (up to four: `data` and `id` are the
    /// fields that count).
    head: [u8; 4],
    /// In a data line: where (in the line) the first invalid UTF-8 is, reported when the
    /// line ends (a cap error found first wins, as if the line were read whole).
    bad: Option<usize>,
    /// In a data line: the first bytes of a character the chunk cut, and where it starts
    /// in the line.
    cut: [u8; 4],
    cut_len: usize,
    cut_at: usize,
    /// In an `id` line: the value so far.
    id: Vec<u8>,
}

/// Where the line being received is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// In the field name (no colon yet); the line's bytes so far are all name.
    #[default]
    Name,
    /// Right after `data:`: one space here is not part of the value.
    DataColon,
    /// In the value of a data line.
    Data,
    /// Right after `id:`: one space here is not part of the value.
    IdColon,
    /// In the value of an `id` line.
    Id,
    /// A comment, a field the reader ignores or an `id` holding NUL: only its end matters.
    Ignore,
}

/// The most lines [`SseReader::data_run`] reads in one run.
const RUN: usize = 64;

/// A line of [`SseReader::data_run`]: a data line (its value) or a blank line.
#[derive(Debug, Default, Clone, Copy)]
struct RunLine {
    data: bool,
    /// Where the value starts (for a blank line: where the line starts).
    value: usize,
    /// Where the line end is.
    end: usize,
    /// The line end's length.
    terminator: usize,
}

/// A complete message waiting in [`SseReader`]'s buffer.
#[derive(Debug)]
struct Ready {
    start: usize,
    end: usize,
    id: Option<std::sync::Arc<String>>,
}

impl Default for SseReader {
    fn default() -> Self {
        Self::new()
    }
}

/// The UTF-8 byte order mark, removed once from the start of a stream.
const BOM: &[u8; 3] = b"\xEF\xBB\xBF";

/// The length of the UTF-8 sequence `lead` opens: 1 to 4, or 0 for a byte that opens none
/// (a continuation byte, `C0`, `C1`, `F5`–`FF`).
fn utf8_width(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    }
}

/// The character `bytes` (one UTF-8 sequence, as long as its first byte says) encodes, or
/// `None` if they are not one (a byte that is not a continuation, an overlong form, a
/// surrogate, beyond U+10FFFF).
fn decode_char(bytes: &[u8]) -> Option<char> {
    let (&lead, rest) = bytes.split_first()?;
    let (min, mut code) = match (bytes.len(), lead) {
        (1, 0x00..=0x7F) => return Some(char::from(lead)),
        (2, 0xC2..=0xDF) => (0x80, u32::from(lead & 0x1F)),
        (3, 0xE0..=0xEF) => (0x800, u32::from(lead & 0x0F)),
        (4, 0xF0..=0xF4) => (0x1_0000, u32::from(lead & 0x07)),
        _ => return None,
    };
    for &b in rest {
        if b & 0xC0 != 0x80 {
            return None;
        }
        code = code << 6 | u32::from(b & 0x3F);
    }
    if code < min {
        return None;
    }
    char::from_u32(code)
}

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
            bom: 0,
            message_start: 0,
            message_bytes: 0,
            after_blank: true,
            line: Line::default(),
            examined: 0,
            quick_from: 0,
            quick_end: 0,
        }
    }

    /// Feeds bytes; complete messages become available through [`SseReader::next_message`].
    ///
    /// # Errors
    /// an error of kind [`ErrorKind::Sse`](crate::ErrorKind::Sse) for invalid UTF-8 in a data line or a message over the cap. After an
    /// error the reader refuses further input; the messages completed before the error
    /// stay available.
    #[inline]
    pub fn feed(&mut self, bytes: &[u8]) -> Result<()> {
        // One more byte of a data line's value, ASCII and no line end, with nothing else to
        // do (a line dripped a byte at a time): appended at once. It is what the general
        // path does with it, without getting there. `0x0E..=0x7F` holds neither CR nor
        // LF; the other control bytes (rare in a data line) take the general path.
        // (The line's length and the count of bytes examined are brought up to date by
        // the next call of the general path, from `quick_from`.)
        if let [b] = *bytes
            && self.data.len() < self.quick_end
            && b.wrapping_sub(0x0E) < 0x72
        {
            self.data.push(char::from(b));
            return Ok(());
        }
        self.feed_any(bytes)
    }

    /// [`SseReader::feed`] for any input: kept out of the shortcut's way.
    #[cold]
    #[inline(never)]
    fn feed_any(&mut self, bytes: &[u8]) -> Result<()> {
        self.catch_up();
        if self.failed {
            return Err(self.sse_error(self.consumed, "the reader already failed"));
        }
        self.reclaim();
        let r = self.feed_bytes(bytes);
        if r.is_err() {
            self.failed = true;
        }
        self.grant();
        r
    }

    /// The bytes [`SseReader::feed`] appended by its shortcut since the general path last
    /// ran: each was compared (for a line end and for ASCII) and copied.
    fn quick_bytes(&self) -> usize {
        self.data.len() - self.quick_from
    }

    /// Counts the bytes [`SseReader::feed`] appended by its shortcut in the line's length
    /// and in the bytes examined.
    fn catch_up(&mut self) {
        let n = self.quick_bytes();
        self.line.len += n;
        self.examined += 2 * n as u64;
        self.quick_from = self.data.len();
    }

    /// Lets [`SseReader::feed`]'s shortcut append what [`SseReader::quick_room`] allows.
    fn grant(&mut self) {
        self.quick_from = self.data.len();
        self.quick_end = self.quick_from.saturating_add(self.quick_room());
    }

    /// How many more ASCII bytes of the data line being received may be appended by
    /// [`SseReader::feed`]'s shortcut: none unless the line is a data line without invalid
    /// UTF-8 so far and no cut character waits for its last bytes, no messages are waiting
    /// and [`SseReader::reclaim`] would leave the buffer as it is (so that the general path
    /// would only append); else as many as the cap leaves.
    fn quick_room(&self) -> usize {
        if self.failed
            || self.line.state != State::Data
            || self.line.bad.is_some()
            // The next byte must continue a character a read cut.
            || self.line.cut_len != 0
            || !self.ready.is_empty()
            // Reclaim drops the data handed out only once it is half the buffer: while
            // it is less, it stays so as the line grows.
            || (self.open != 0 && self.open >= self.data.len() / 2)
        {
            return 0;
        }
        self.max_frame
            .saturating_sub(self.message_bytes.saturating_add(self.line.len))
    }

    /// How many bytes the reader has read so far, counting every pass: the search for line
    /// ends (and for the colon of a field name, and NUL in an `id`), the UTF-8 check of data
    /// lines, the copy of their text into the message buffer and of an `id` into its own,
    /// the look at the last bytes of a read for a character it cut, and the bytes moved
    /// when the message buffer drops the messages already handed out. A byte read by two
    /// passes counts twice. Not counted: handing a message out ([`SseReader::next_data`]
    /// lends it; [`SseReader::next_message`] copies it for the caller) and the copies a
    /// buffer makes when it grows (it doubles, so they come to less than what it holds).
    ///
    /// The reader reads each byte a bounded number of times however the stream is cut, and
    /// never reads again what an earlier read left waiting: a byte of a data line is
    /// searched, checked and copied once (the last bytes of a read, looked at to find a cut
    /// character, are checked by that look; a run of data lines that fails its check is
    /// checked again line by line, to find the line at fault, and the reader stops there);
    /// an `id` is searched, kept, checked and copied; the buffer moves a byte only while
    /// dropping at least as many. The crate's tests hold this count to at most four per
    /// byte fed, with the stream fed whole, in TCP-sized reads, cut at random and one byte
    /// at a time.
    ///
    /// ```
    /// let mut reader = ag_ui_core::SseReader::new();
    /// let line = format!("data: {}\n\n", "x".repeat(10_000));
    /// for b in line.as_bytes() {
    ///     reader.feed(&[*b])?;
    /// }
    /// assert_eq!(reader.next_data().map(str::len), Some(10_000));
    /// assert!(reader.bytes_examined() <= 4 * line.len() as u64);
    /// # Ok::<(), ag_ui_core::Error>(())
    /// ```
    #[must_use]
    pub fn bytes_examined(&self) -> u64 {
        self.examined + 2 * self.quick_bytes() as u64
    }

    /// [`SseReader::feed`] without the failure bookkeeping.
    fn feed_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let mut rest = bytes;
        if !self.started {
            while self.bom < BOM.len() {
                let Some((&b, tail)) = rest.split_first() else {
                    // Maybe a byte order mark split across chunks: wait for the rest.
                    return Ok(());
                };
                self.examined += 1;
                if b != BOM[self.bom] {
                    break;
                }
                self.bom += 1;
                rest = tail;
            }
            self.started = true;
            if self.bom == BOM.len() {
                self.consumed = BOM.len() as u64;
                self.message_start = self.consumed;
            } else {
                // The first bytes of a byte order mark, then something else: they are the
                // start of the first line.
                self.process(&BOM[..self.bom])?;
            }
        }
        self.process(rest)?;
        // The line being received counts toward its message already.
        if self.message_bytes.saturating_add(self.line.len) > self.max_frame {
            return self.grow(self.line.len);
        }
        Ok(())
    }

    /// Whether a complete message waits to be taken out.
    #[inline]
    pub(crate) fn has_message(&self) -> bool {
        !self.ready.is_empty()
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
    #[inline]
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
    #[inline]
    pub fn next_data_with_id(&mut self) -> Option<(&str, Option<&str>)> {
        // Asked after every read, and mostly answered `None`: that answer is inlined, the
        // rest is not (a byte-a-read loop keeps its registers).
        if self.ready.is_empty() {
            return None;
        }
        self.take_ready()
    }

    /// [`SseReader::next_data_with_id`] when a message may be waiting.
    #[inline(never)]
    fn take_ready(&mut self) -> Option<(&str, Option<&str>)> {
        let Ready { start, end, id } = self.ready.pop_front()?;
        self.current_id = id;
        Some((
            &self.data[start..end],
            self.current_id.as_deref().map(String::as_str),
        ))
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
        self.current_id.as_deref().map(String::as_str)
    }

    /// Ends the stream: a final message without its terminating blank line is delivered.
    ///
    /// # Errors
    /// As [`SseReader::feed`].
    pub fn finish(&mut self) -> Result<Option<String>> {
        if self.failed {
            return Err(self.sse_error(self.consumed, "the reader already failed"));
        }
        self.catch_up();
        self.reclaim();
        let r = self.finish_line();
        if r.is_err() {
            self.failed = true;
        }
        self.grant();
        r?;
        self.dispatch();
        Ok(self.next_message())
    }

    /// Reads the line being received, if any, as the stream's last.
    fn finish_line(&mut self) -> Result<()> {
        if !self.started {
            // The first bytes of a byte order mark and nothing else: they are a line.
            self.started = true;
            self.process(&BOM[..self.bom])?;
        }
        if self.line.len == 0 {
            return Ok(());
        }
        if self.message_bytes.saturating_add(self.line.len) > self.max_frame {
            return self.grow(self.line.len);
        }
        self.complete_line()
    }

    /// Drops the data of the messages already handed out, keeping those still waiting and
    /// the message being read (moved to the front of the buffer).
    fn reclaim(&mut self) {
        let keep = self.ready.front().map_or(self.open, |r| r.start);
        if keep == self.data.len() {
            self.data.clear();
        } else if keep > 0 && keep >= self.data.len() / 2 {
            // Only when the prefix handed out is at least half the buffer: a caller that
            // leaves messages waiting costs linear time, not quadratic (each byte moved
            // pays for one dropped).
            self.examined += (self.data.len() - keep) as u64;
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

    /// Reads `input`, which continues the line being received: the lines it completes, and
    /// what it holds of the next one.
    ///
    /// Lines are cut from `input` by offset, so a chunk holding many short lines costs
    /// linear time, not quadratic; a line that continues past `input` keeps only what the
    /// reader needs of it (see [`Line`]), so a line arriving in many chunks is read once.
    fn process(&mut self, input: &[u8]) -> Result<()> {
        let mut pos = 0;
        if self.skip_lf
            && let Some(&first) = input.first()
        {
            self.skip_lf = false;
            self.examined += 1;
            if first == b'\n' {
                // The second byte of the CRLF that ended the last line.
                pos = 1;
                self.consumed += 1;
                if self.after_blank {
                    self.message_start += 1;
                } else {
                    self.grow(1)?;
                }
            }
        }
        while pos < input.len() {
            pos = match self.line.state {
                // `data: ` opens almost every line of an AG-UI stream.
                State::Name if self.line.len == 0 && input[pos..].starts_with(b"data: ") => {
                    self.data_run(input, pos)?
                }
                State::Name => self.name(input, pos)?,
                State::DataColon | State::IdColon => {
                    // One space after the colon is not part of the value.
                    self.examined += 1;
                    let skip = usize::from(input[pos] == b' ');
                    self.line.len += skip;
                    self.line.state = if self.line.state == State::DataColon {
                        self.open_data();
                        State::Data
                    } else {
                        State::Id
                    };
                    pos + skip
                }
                State::Data => self.data_value(input, pos)?,
                State::Id => self.id_value(input, pos)?,
                State::Ignore => {
                    let rest = &input[pos..];
                    match memchr::memchr2(b'\n', b'\r', rest) {
                        Some(i) => {
                            self.examined += i as u64 + 1;
                            self.line.len += i;
                            self.line_end(input, pos + i)?
                        }
                        None => {
                            self.examined += rest.len() as u64;
                            self.line.len += rest.len();
                            input.len()
                        }
                    }
                }
            };
        }
        Ok(())
    }

    /// Reads, from `input[pos..]` (the start of a line opening with `data: `), a run of
    /// lines that open with `data: ` or are blank: their line ends are found first (up to
    /// [`RUN`] lines), then their text is checked as UTF-8 in one pass (much faster than
    /// one check per line: the bytes between two values are ASCII), then the lines are
    /// read as the general path reads them. A data line that does not end in `input` ends
    /// the run and is read as far as it goes. Returns where reading goes on.
    fn data_run(&mut self, input: &[u8], pos: usize) -> Result<usize> {
        let mut lines = [RunLine::default(); RUN];
        let mut n = 0;
        let mut p = pos;
        let mut skip_lf = false;
        let mut tail = None;
        while n < RUN && !skip_lf {
            let rest = &input[p..];
            let (data, value, end) = if rest.starts_with(b"data: ") {
                self.examined += 6;
                let Some(i) = memchr::memchr2(b'\n', b'\r', &rest[6..]) else {
                    // Searched to the end of the input: read as it is below.
                    self.examined += (rest.len() - 6) as u64;
                    tail = Some(p + 6);
                    break;
                };
                self.examined += i as u64 + 1;
                (true, p + 6, p + 6 + i)
            } else if let Some(b'\n' | b'\r') = rest.first() {
                self.examined += 1;
                (false, p, p)
            } else {
                break;
            };
            let terminator;
            (terminator, skip_lf) = self.terminator(input, end);
            lines[n] = RunLine {
                data,
                value,
                end,
                terminator,
            };
            n += 1;
            p = end + terminator;
        }
        let lines = &lines[..n];
        // The values, and the bytes between them (line ends and `data: `, ASCII), checked
        // at once; if that fails, each value on its own, to find the one at fault.
        let first = lines.iter().find(|l| l.data);
        let last = lines.iter().rev().find(|l| l.data);
        let checked = match (first, last) {
            (Some(first), Some(last)) => {
                let (from, to) = (first.value, last.end);
                self.examined += (to - from) as u64;
                simdutf8::basic::from_utf8(&input[from..to])
                    .ok()
                    .map(|text| (from, text))
            }
            _ => None,
        };
        for line in lines {
            if !line.data {
                self.end_line(line.terminator)?;
                continue;
            }
            self.open_data();
            let value = &input[line.value..line.end];
            if let Some(text) =
                checked.and_then(|(from, text)| text.get(line.value - from..line.end - from))
            {
                // What `end_line` does with a data line known to be UTF-8 (nothing to
                // report between the line and its line end, so one count of both).
                self.examined += text.len() as u64;
                self.data.push_str(text);
                let len = 6 + text.len();
                self.after_blank = false;
                self.grow(len + line.terminator)?;
                self.consumed += (len + line.terminator) as u64;
                continue;
            }
            self.line.len = 6;
            self.line.state = State::Data;
            self.data_text(value, true);
            self.line.len += value.len();
            self.end_line(line.terminator)?;
        }
        self.skip_lf = skip_lf;
        let Some(value_at) = tail else {
            return Ok(p);
        };
        self.line.len = 6;
        self.line.state = State::Data;
        self.open_data();
        let value = &input[value_at..];
        self.data_text(value, false);
        self.line.len += value.len();
        Ok(input.len())
    }

    /// Reads the field name of the line being received from `input[pos..]`: up to its
    /// colon, the line's end, or the byte that makes it a field the reader ignores.
    /// Returns where reading goes on.
    fn name(&mut self, input: &[u8], mut pos: usize) -> Result<usize> {
        while let Some(&b) = input.get(pos) {
            self.examined += 1;
            let len = self.line.len;
            match b {
                b'\n' | b'\r' => return self.line_end(input, pos),
                b':' => {
                    self.line.len += 1;
                    self.line.state = match &self.line.head[..len.min(4)] {
                        b"data" if len == 4 => State::DataColon,
                        b"id" if len == 2 => State::IdColon,
                        _ => State::Ignore,
                    };
                    return Ok(pos + 1);
                }
                _ => {
                    if let Some(h) = self.line.head.get_mut(len) {
                        *h = b;
                    } else {
                        // Longer than `data`: a field the reader ignores.
                        self.line.state = State::Ignore;
                    }
                    self.line.len += 1;
                    pos += 1;
                    if self.line.state == State::Ignore {
                        return Ok(pos);
                    }
                }
            }
        }
        Ok(pos)
    }

    /// A data line's value starts: joined to the message's earlier ones by `\n`.
    fn open_data(&mut self) {
        if self.has_data {
            self.data.push('\n');
        }
        self.has_data = true;
    }

    /// Reads the value of a data line from `input[pos..]` into the message buffer.
    fn data_value(&mut self, input: &[u8], pos: usize) -> Result<usize> {
        let rest = &input[pos..];
        match memchr::memchr2(b'\n', b'\r', rest) {
            Some(i) => {
                self.examined += i as u64 + 1;
                self.data_text(&rest[..i], true);
                self.line.len += i;
                self.line_end(input, pos + i)
            }
            None => {
                self.examined += rest.len() as u64;
                self.data_text(rest, false);
                self.line.len += rest.len();
                Ok(input.len())
            }
        }
    }

    /// Appends `part`, the next bytes of a data line's value (`ends`: the last ones), to
    /// the message buffer, checking them as UTF-8. A character the chunk cuts is kept in
    /// the line's `cut` until its last bytes arrive. Invalid UTF-8 is noted in the line's
    /// `bad` (and nothing more is appended): the error is reported when the line ends.
    fn data_text(&mut self, part: &[u8], ends: bool) {
        if self.line.bad.is_some() {
            return;
        }
        let at = self.line.len;
        let mut part = part;
        let mut at_part = at;
        if self.line.cut_len > 0 {
            // The rest of a character cut by the last chunk.
            let need = utf8_width(self.line.cut[0]);
            let take = need.saturating_sub(self.line.cut_len).min(part.len());
            let (head, tail) = part.split_at(take);
            self.examined += take as u64;
            self.line.cut[self.line.cut_len..self.line.cut_len + take].copy_from_slice(head);
            self.line.cut_len += take;
            part = tail;
            at_part += take;
            if self.line.cut_len < need {
                if ends {
                    self.line.bad = Some(self.line.cut_at);
                }
                return;
            }
            self.examined += need as u64;
            match decode_char(&self.line.cut[..need]) {
                Some(c) => self.data.push(c),
                None => {
                    self.line.bad = Some(self.line.cut_at);
                    return;
                }
            }
            self.line.cut_len = 0;
        }
        if part.is_empty() {
            return;
        }
        if ends {
            self.push_checked(part, at_part);
            return;
        }
        // The last character may continue in the next chunk: find where it starts (at most
        // four bytes back; a valid text has at most three continuation bytes in a row).
        let mut lead = part.len();
        let mut looked = 0;
        while looked < 4 && lead > 0 {
            lead -= 1;
            looked += 1;
            if part[lead] & 0xC0 != 0x80 {
                break;
            }
        }
        self.examined += looked as u64;
        let last = &part[lead..];
        let need = utf8_width(part[lead]);
        if need == 0 {
            // A byte that opens no character, or four continuation bytes in a row: the
            // text is invalid there or before.
            self.line.bad = Some(at_part + self.valid_prefix(part));
            return;
        }
        if !self.push_checked(&part[..lead], at_part) {
            return;
        }
        if last.len() < need {
            // Cut: the look at these bytes was their copy.
            self.line.cut[..last.len()].copy_from_slice(last);
            self.line.cut_len = last.len();
            self.line.cut_at = at_part + lead;
            return;
        }
        self.examined += need as u64;
        match decode_char(&last[..need]) {
            Some(c) => {
                self.data.push(c);
                if last.len() > need {
                    // Continuation bytes after a whole character.
                    self.line.bad = Some(at_part + lead + need);
                }
            }
            None => self.line.bad = Some(at_part + lead),
        }
    }

    /// Appends `text` (starting at a character boundary, at `at` in the line) to the message
    /// buffer if it is UTF-8, else notes where it stops being UTF-8. Returns whether it was.
    fn push_checked(&mut self, text: &[u8], at: usize) -> bool {
        if text.is_empty() {
            return true;
        }
        self.examined += text.len() as u64;
        match simdutf8::basic::from_utf8(text) {
            Ok(s) => {
                self.examined += s.len() as u64;
                self.data.push_str(s);
                true
            }
            Err(_) => {
                self.line.bad = Some(at + self.valid_prefix(text));
                false
            }
        }
    }

    /// How many bytes at the start of `text` are UTF-8, for an error message (a second
    /// pass over text the fast check refused; the line is refused after it).
    fn valid_prefix(&mut self, text: &[u8]) -> usize {
        self.examined += text.len() as u64;
        match std::str::from_utf8(text) {
            Ok(_) => text.len(),
            Err(e) => e.valid_up_to(),
        }
    }

    /// Reads the value of an `id` line from `input[pos..]` into the line's `id`; an `id`
    /// holding NUL is ignored.
    fn id_value(&mut self, input: &[u8], pos: usize) -> Result<usize> {
        let rest = &input[pos..];
        let Some(i) = memchr::memchr3(b'\n', b'\r', 0, rest) else {
            self.examined += 2 * rest.len() as u64;
            self.line.id.extend_from_slice(rest);
            self.line.len += rest.len();
            return Ok(input.len());
        };
        self.examined += i as u64 + 1;
        self.line.len += i;
        if rest[i] == 0 {
            self.line.id.clear();
            self.line.len += 1;
            self.line.state = State::Ignore;
            return Ok(pos + i + 1);
        }
        self.examined += i as u64;
        self.line.id.extend_from_slice(&rest[..i]);
        self.line_end(input, pos + i)
    }

    /// The line being received ends at `input[end]`, a CR or an LF: reads its line end and
    /// the line. Returns where the next line starts.
    fn line_end(&mut self, input: &[u8], end: usize) -> Result<usize> {
        let (terminator, skip_lf) = self.terminator(input, end);
        self.end_line(terminator)?;
        self.skip_lf = skip_lf;
        Ok(end + terminator)
    }

    /// The length of the line end at `input[end]` (a CR or an LF), and whether an LF
    /// opening the next input completes it.
    fn terminator(&mut self, input: &[u8], end: usize) -> (usize, bool) {
        if input[end] != b'\r' {
            return (1, false);
        }
        match input.get(end + 1) {
            Some(&next) => {
                self.examined += 1;
                (if next == b'\n' { 2 } else { 1 }, false)
            }
            // A CR at the end of the input ends the line now (CR-only streams get their
            // messages without waiting for the next chunk); an LF opening the next chunk
            // is then the second half of a CRLF.
            None => (1, true),
        }
    }

    /// The line being received ended with a line end of `terminator` bytes: reads it.
    fn end_line(&mut self, terminator: usize) -> Result<()> {
        let len = self.line.len;
        if len == 0 {
            self.dispatch();
            self.after_blank = true;
            self.consumed += terminator as u64;
            self.message_start = self.consumed;
            self.message_bytes = 0;
        } else {
            self.after_blank = false;
            // The line end counts after the line is read: a CRLF cut between two reads
            // is counted in two steps, and the same problem must be found first
            // wherever the stream is cut.
            self.grow(len)?;
            self.complete_line()?;
            self.grow(terminator)?;
            self.consumed += (len + terminator) as u64;
        }
        Ok(())
    }

    /// The line being received is complete (and not blank): what it means for the
    /// message, or its invalid UTF-8. The next line starts afresh.
    fn complete_line(&mut self) -> Result<()> {
        match self.line.state {
            // No colon: the whole line is the field name, the value is empty.
            State::Name if self.line.len == 4 && self.line.head == *b"data" => self.open_data(),
            State::Name if self.line.len == 2 && self.line.head[..2] == *b"id" => {
                self.last_id = Some(std::sync::Arc::new(String::new()));
            }
            State::DataColon => self.open_data(),
            State::IdColon => self.last_id = Some(std::sync::Arc::new(String::new())),
            State::Data => {
                if self.line.cut_len > 0 && self.line.bad.is_none() {
                    // A character the line ends in the middle of.
                    self.line.bad = Some(self.line.cut_at);
                }
                if let Some(at) = self.line.bad {
                    return Err(self.sse_error(
                        self.consumed,
                        format!("invalid UTF-8 in a data line (at byte {at} of the line)"),
                    ));
                }
            }
            State::Id => {
                // Checked and copied (in one pass when it is not UTF-8).
                self.examined += 2 * self.line.id.len() as u64;
                let id = String::from_utf8_lossy(&self.line.id).into_owned();
                self.last_id = Some(std::sync::Arc::new(id));
                self.line.id.clear();
            }
            State::Name | State::Ignore => {}
        }
        self.line.len = 0;
        self.line.state = State::Name;
        self.line.bad = None;
        self.line.cut_len = 0;
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
