//! The protobuf transport of AG-UI (spec B1–B10), feature `proto`: each event as one
//! envelope message of the wire schema (package `ag_ui`, a `oneof` over every event kind),
//! framed by a 4-byte big-endian length, under the media type
//! [`PROTO_MEDIA_TYPE`](crate::sse::PROTO_MEDIA_TYPE).
//!
//! The messages are declared in Rust with `prost`'s derive, field for field as the official
//! schema declares them (names, numbers, types), so building needs no `protoc` and no build
//! script. Open JSON (state, metadata, `rawEvent`, results, custom values) travels as
//! `google.protobuf.Value` / `Struct`, as in the official schema.
//!
//! * Encoding ([`encode_event`], [`write_frame`]) writes what the official encoder writes
//!   for the same event: field by field the same bytes; an open object's members in this
//!   crate's key order, which may differ from another encoder's (spec B8 allows it). A value
//!   the wire schema cannot carry (a member AG-UI 1.1 added, such as `encryptedValueType`)
//!   is a [`ProtoError::Unencodable`] naming it, never dropped silently. The members RFC 6902
//!   leaves open beside a patch operation's `op`, `path`, `from` and `value` are the one
//!   exception: spec B7 says they do not survive this transport.
//! * Decoding ([`decode_event`], [`ProtoReader`]) gives events as the forgiving JSON reader
//!   does, with its warnings; unknown fields are skipped (protobuf's rule); a frame whose
//!   envelope arm is unknown is skipped with a warning ([`ProtoFrame::UnknownArm`], spec B6);
//!   a complete frame that does not decode is fatal ([`ProtoError::Malformed`]); a body that
//!   ends mid-frame is a truncated run ([`ProtoError::Truncated`]); a length prefix above the
//!   limit is refused before anything is allocated for it ([`ProtoError::FrameTooLarge`]).
//!
//! ```
//! use ag_ui_core::proto::{ProtoFrame, decode_event, encode_event};
//! use ag_ui_core::{Event, TextMessageContentEvent};
//!
//! let event = Event::from(TextMessageContentEvent::new("m1", "Hi"));
//! let bytes = encode_event(&event).unwrap();
//! assert_eq!(bytes, b"\x12\x0c\x0a\x02\x08\x01\x12\x02m1\x1a\x02Hi");
//! let ProtoFrame::Event(back) = decode_event(&bytes).unwrap() else { panic!() };
//! assert_eq!(back.value, event);
//! ```

mod convert;
mod error;
mod frame;
mod schema;
mod value;

pub use error::ProtoError;
pub use frame::{ProtoFrame, ProtoReader};

use crate::model::event::Event;

/// Encodes `event` as one envelope, without the length prefix.
///
/// # Errors
/// [`ProtoError::Unencodable`] when the event holds a value the wire schema cannot carry.
pub fn encode_event(event: &Event) -> Result<Vec<u8>, ProtoError> {
    let mut out = Vec::new();
    convert::encode(event, &mut out)
        .map_err(|(event_type, detail)| ProtoError::Unencodable { event_type, detail })?;
    Ok(out)
}

/// Appends `event` to `out` as one frame: the 4-byte big-endian length, then the envelope.
/// On error `out` is left as it was.
///
/// # Errors
/// As [`encode_event`].
pub fn write_frame(event: &Event, out: &mut Vec<u8>) -> Result<(), ProtoError> {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    if let Err((event_type, detail)) = convert::encode(event, out) {
        out.truncate(at);
        return Err(ProtoError::Unencodable { event_type, detail });
    }
    let Ok(len) = u32::try_from(out.len() - at - 4) else {
        out.truncate(at);
        return Err(ProtoError::Unencodable {
            event_type: event.event_type().as_str(),
            detail: "the envelope is longer than a 4-byte length prefix can say".to_owned(),
        });
    };
    out[at..at + 4].copy_from_slice(&len.to_be_bytes());
    Ok(())
}

/// Decodes one envelope (without the length prefix).
///
/// # Errors
/// [`ProtoError::Malformed`] (offset 0) when the bytes do not decode to an event.
pub fn decode_event(bytes: &[u8]) -> Result<ProtoFrame, ProtoError> {
    match convert::decode(bytes) {
        Ok(convert::Frame::Event(e)) => Ok(ProtoFrame::Event(e)),
        Ok(convert::Frame::UnknownArm(field)) => Ok(ProtoFrame::UnknownArm { offset: 0, field }),
        Err(detail) => Err(ProtoError::Malformed { offset: 0, detail }),
    }
}
