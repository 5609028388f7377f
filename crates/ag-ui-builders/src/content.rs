//! Multimodal content: part and source short forms, and [`Parts`] to chain them.
//!
//! ```
//! use ag_ui_builders::content::{self, Parts};
//! use ag_ui_builders::user_message;
//!
//! let message = user_message(
//!     "user-1",
//!     Parts::new()
//!         .text("What is in this picture?")
//!         .image(content::url("https://example.com/cat.png"))
//!         .document(content::file("file-abc123").with_provider("openai")),
//! );
//! assert_eq!(message.content.to_text(), "What is in this picture?");
//! assert!(message.content.has_media());
//! ```

use ag_ui_core::{
    AudioPart, Content, ContentPart, DataSource, DocumentPart, FileSource, ImagePart, PartSource,
    TextPart, UrlSource, VideoPart,
};

/// A text part.
#[must_use]
pub fn text(text: impl Into<String>) -> ContentPart {
    ContentPart::Text(TextPart::new(text))
}

/// An image part from a source ([`data`], [`bytes`], [`url`] or [`file()`]).
#[must_use]
pub fn image(source: impl Into<PartSource>) -> ContentPart {
    ContentPart::Image(ImagePart::new(source))
}

/// An audio part.
#[must_use]
pub fn audio(source: impl Into<PartSource>) -> ContentPart {
    ContentPart::Audio(AudioPart::new(source))
}

/// A video part.
#[must_use]
pub fn video(source: impl Into<PartSource>) -> ContentPart {
    ContentPart::Video(VideoPart::new(source))
}

/// A document part (a PDF, a spreadsheet, …).
#[must_use]
pub fn document(source: impl Into<PartSource>) -> ContentPart {
    ContentPart::Document(DocumentPart::new(source))
}

/// A media part whose kind follows the source's MIME type as the 1.0 client maps it
/// (`image/*`, `audio/*`, `video/*`, anything else — or no MIME type — a document).
#[must_use]
pub fn media(source: impl Into<PartSource>) -> ContentPart {
    let source = source.into();
    let mime = source.mime_type().unwrap_or_default().to_owned();
    ContentPart::media_for_mime(&mime, source)
}

/// A data source: base64 text `value` and its MIME type (required for inline data).
#[must_use]
pub fn data(base64: impl Into<String>, mime_type: impl Into<String>) -> DataSource {
    DataSource::new(base64, mime_type)
}

/// A data source from raw bytes, base64-encoded (standard alphabet, padded).
#[must_use]
pub fn bytes(bytes: &[u8], mime_type: impl Into<String>) -> DataSource {
    DataSource::new(base64(bytes), mime_type)
}

/// A URL source (add a MIME type with `.with_mime_type(..)`).
#[must_use]
pub fn url(url: impl Into<String>) -> UrlSource {
    UrlSource::new(url)
}

/// A provider file handle (add `.with_provider("openai")`, `.with_mime_type(..)`).
#[must_use]
pub fn file(handle: impl Into<String>) -> FileSource {
    FileSource::new(handle)
}

/// Ordered content parts, chained; converts into [`Content`] (and so into a user message,
/// a tool message or a tool result).
#[derive(Debug, Clone, Default, PartialEq)]
#[must_use]
pub struct Parts(Vec<ContentPart>);

impl Parts {
    /// No parts yet.
    pub fn new() -> Self {
        Self::default()
    }
    /// Appends a text part.
    pub fn text(self, text: impl Into<String>) -> Self {
        self.part(self::text(text))
    }
    /// Appends an image part.
    pub fn image(self, source: impl Into<PartSource>) -> Self {
        self.part(self::image(source))
    }
    /// Appends an audio part.
    pub fn audio(self, source: impl Into<PartSource>) -> Self {
        self.part(self::audio(source))
    }
    /// Appends a video part.
    pub fn video(self, source: impl Into<PartSource>) -> Self {
        self.part(self::video(source))
    }
    /// Appends a document part.
    pub fn document(self, source: impl Into<PartSource>) -> Self {
        self.part(self::document(source))
    }
    /// Appends a media part whose kind follows the MIME type (see [`media`]).
    pub fn media(self, source: impl Into<PartSource>) -> Self {
        self.part(self::media(source))
    }
    /// Appends any part.
    pub fn part(mut self, part: impl Into<ContentPart>) -> Self {
        self.0.push(part.into());
        self
    }
    /// The parts.
    #[must_use]
    pub fn build(self) -> Vec<ContentPart> {
        self.0
    }
}

impl From<Parts> for Content {
    fn from(p: Parts) -> Content {
        Content::Parts(p.0)
    }
}

impl From<Parts> for Vec<ContentPart> {
    fn from(p: Parts) -> Vec<ContentPart> {
        p.0
    }
}

/// Standard base64 with padding (RFC 4648 §4).
pub(crate) fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let sextet = |shift: u32| char::from(ALPHABET[((n >> shift) & 63) as usize]);
        out.push(sextet(18));
        out.push(sextet(12));
        out.push(if chunk.len() > 1 { sextet(6) } else { '=' });
        out.push(if chunk.len() > 2 { sextet(0) } else { '=' });
    }
    out
}
