//! Framing (spec B4): each envelope after a 4-byte unsigned big-endian length, and the
//! incremental reader of such a body.

use super::convert::{self, Frame};
use super::error::ProtoError;
use crate::codec::read::Decoded;
use crate::model::event::Event;

/// One frame read by [`ProtoReader`].
#[derive(Debug)]
#[non_exhaustive]
pub enum ProtoFrame {
    /// An event, with what the forgiving reader forgave in it (spec B7: it enters the same
    /// pipeline as an event read from SSE).
    Event(Decoded<Event>),
    /// A frame whose envelope arm this build does not know (an event kind of a later
    /// protocol): it has no type name to pass on, so it is skipped, and this is the warning
    /// (spec B6). Reading goes on.
    UnknownArm {
        /// The byte offset of the frame's length prefix in the body.
        offset: u64,
        /// The envelope field number of the unknown arm.
        field: u32,
    },
}

/// Reads frames from a protobuf body given in chunks of any size: a frame may be split across
/// chunks, and one chunk may hold several frames (spec B4).
///
/// Give each chunk to [`push`](Self::push), take frames with
/// [`next_frame`](Self::next_frame) until it returns `None`, and call
/// [`finish`](Self::finish) when the body ends: a body that ends mid-frame is a truncated run
/// (spec B5). A length prefix above the limit is refused as soon as its four bytes are in,
/// before anything is allocated for the frame. After an error the reader yields nothing more.
///
/// ```
/// use ag_ui_core::proto::{ProtoFrame, ProtoReader, write_frame};
/// use ag_ui_core::{Event, TextMessageContentEvent};
///
/// let mut body = Vec::new();
/// write_frame(&Event::from(TextMessageContentEvent::new("m1", "Hi")), &mut body).unwrap();
/// let mut reader = ProtoReader::new();
/// for chunk in body.chunks(3) {
///     reader.push(chunk).unwrap();
///     while let Some(frame) = reader.next_frame().unwrap() {
///         assert!(matches!(frame, ProtoFrame::Event(_)));
///     }
/// }
/// reader.finish().unwrap();
/// ```
#[derive(Debug)]
pub struct ProtoReader {
    /// Bytes received and not yet read as frames (from `start`).
    buf: Vec<u8>,
    /// Where the unread bytes start in `buf`.
    start: usize,
    /// The body offset of `buf[start]`.
    offset: u64,
    /// The largest frame accepted, in bytes (the envelope, without the prefix).
    max_frame_bytes: usize,
    /// Set after an error: nothing more is read.
    failed: bool,
}

impl Default for ProtoReader {
    fn default() -> Self {
        Self::new()
    }
}

impl ProtoReader {
    /// A reader accepting frames up to [`DEFAULT_MAX_FRAME_BYTES`](crate::sse::DEFAULT_MAX_FRAME_BYTES)
    /// (10 MiB), the SSE reader's limit.
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_frame_bytes(crate::stream::sse::DEFAULT_MAX_FRAME_BYTES)
    }

    /// A reader accepting frames up to `max_frame_bytes` (the envelope's length, without the
    /// four-byte prefix).
    #[must_use]
    pub fn with_max_frame_bytes(max_frame_bytes: usize) -> Self {
        Self {
            buf: Vec::new(),
            start: 0,
            offset: 0,
            max_frame_bytes,
            failed: false,
        }
    }

    /// Adds the next chunk of the body.
    ///
    /// # Errors
    /// [`ProtoError::FrameTooLarge`] when the pending frame's length prefix is above the
    /// limit (checked before the chunk is kept), and after any earlier error.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), ProtoError> {
        self.check_failed()?;
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        // The prefix, if the buffered bytes and this chunk complete it, is judged first.
        let have = self.buf.len();
        if have < 4 && have + chunk.len() >= 4 {
            let mut prefix = [0u8; 4];
            prefix[..have].copy_from_slice(&self.buf);
            prefix[have..].copy_from_slice(&chunk[..4 - have]);
            self.check_len(u32::from_be_bytes(prefix))?;
        }
        self.buf.extend_from_slice(chunk);
        Ok(())
    }

    /// The next complete frame, or `None` until more bytes are pushed.
    ///
    /// # Errors
    /// [`ProtoError::FrameTooLarge`] for a length prefix above the limit;
    /// [`ProtoError::Malformed`] for a complete frame whose bytes do not decode to an event
    /// (fatal to the stream, spec B5).
    pub fn next_frame(&mut self) -> Result<Option<ProtoFrame>, ProtoError> {
        self.check_failed()?;
        let Some(prefix) = self.buf[self.start..].first_chunk::<4>() else {
            return Ok(None);
        };
        let len = self.check_len(u32::from_be_bytes(*prefix))?;
        let Some(body) = self.buf[self.start..].get(4..4 + len) else {
            return Ok(None);
        };
        let at = self.offset;
        let frame = match convert::decode(body) {
            Ok(Frame::Event(e)) => ProtoFrame::Event(e),
            Ok(Frame::UnknownArm(field)) => ProtoFrame::UnknownArm { offset: at, field },
            Err(detail) => {
                self.failed = true;
                return Err(ProtoError::Malformed { offset: at, detail });
            }
        };
        self.start += 4 + len;
        self.offset += 4 + len as u64;
        Ok(Some(frame))
    }

    /// Ends the body.
    ///
    /// # Errors
    /// [`ProtoError::Truncated`] when bytes of an incomplete frame remain (the body ended
    /// mid-frame: a truncated run, spec B5), and after any earlier error.
    pub fn finish(&self) -> Result<(), ProtoError> {
        self.check_failed()?;
        let pending = &self.buf[self.start..];
        if pending.is_empty() {
            return Ok(());
        }
        let need = pending
            .first_chunk::<4>()
            .map_or(4, |p| 4 + u32::from_be_bytes(*p) as usize);
        Err(ProtoError::Truncated {
            offset: self.offset,
            have: pending.len(),
            need,
        })
    }

    /// Refuses a declared length above the limit.
    fn check_len(&mut self, len: u32) -> Result<usize, ProtoError> {
        let len_usize = usize::try_from(len).unwrap_or(usize::MAX);
        if len_usize > self.max_frame_bytes {
            self.failed = true;
            return Err(ProtoError::FrameTooLarge {
                offset: self.offset,
                len,
                max: self.max_frame_bytes,
            });
        }
        Ok(len_usize)
    }

    /// The error after an earlier one.
    fn check_failed(&self) -> Result<(), ProtoError> {
        if self.failed {
            Err(ProtoError::Failed)
        } else {
            Ok(())
        }
    }
}
