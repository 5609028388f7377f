//! [`ProtoError`]: what goes wrong encoding or reading the protobuf transport.

/// An error of the protobuf transport ([`crate::proto`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtoError {
    /// The event holds a value the wire schema has no field for (a member AG-UI 1.1 added,
    /// such as `encryptedValueType`, or an outcome member the wire does not carry). It is not
    /// dropped silently: the event cannot be sent over protobuf.
    #[error("{event_type} cannot be encoded as protobuf: {detail}")]
    Unencodable {
        /// The event's type (`"REASONING_ENCRYPTED_VALUE"`, …).
        event_type: &'static str,
        /// What has no wire form, by JSON member name or pointer.
        detail: String,
    },
    /// A frame's length prefix is above the reader's limit; refused before anything was
    /// allocated for it.
    #[error("the frame at byte {offset} declares {len} bytes, above the limit of {max}")]
    FrameTooLarge {
        /// Byte offset of the length prefix in the body.
        offset: u64,
        /// The declared length.
        len: u32,
        /// The limit.
        max: usize,
    },
    /// The body ended in the middle of a frame: a truncated run (spec B5).
    #[error("the body ended mid-frame at byte {offset}: {have} of {need} bytes")]
    Truncated {
        /// Byte offset of the incomplete frame's length prefix.
        offset: u64,
        /// The bytes of it received.
        have: usize,
        /// The bytes the frame needs, prefix included (4 while the prefix itself is
        /// incomplete).
        need: usize,
    },
    /// A complete frame whose bytes do not decode to an event: malformed transport material,
    /// fatal to the stream (spec B5).
    #[error("the frame at byte {offset} does not decode: {detail}")]
    Malformed {
        /// Byte offset of the frame's length prefix.
        offset: u64,
        /// What failed.
        detail: String,
    },
    /// The reader already failed; it yields nothing more.
    #[error("the protobuf reader already failed")]
    Failed,
}

impl From<ProtoError> for crate::Error {
    /// The crate's error for a protobuf one: [`ErrorKind::Encode`](crate::ErrorKind::Encode)
    /// for [`ProtoError::Unencodable`], [`ErrorKind::Invalid`](crate::ErrorKind::Invalid) for
    /// the others; the message is the protobuf error's, the pointer the document root.
    fn from(e: ProtoError) -> Self {
        match e {
            ProtoError::Unencodable { .. } => Self::encode(String::new(), e.to_string()),
            other => Self::invalid(String::new(), other.to_string()),
        }
    }
}
