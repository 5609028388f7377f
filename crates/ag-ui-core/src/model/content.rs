//! Content parts (`ContentPart`) and their sources (`PartSource`), and the string-or-parts
//! content of user messages, tool messages and `TOOL_CALL_RESULT`.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::codec::diagnostics::{self, WarningKind};
use crate::codec::wire::{self, SeqProxy, Wire, tagged_union, wire_struct};

wire_struct! {
    /// `DataSource` (`type: "data"`): inline bytes, base64-encoded.
    pub struct DataSource ["type" = "data"] {
        required {
            /// Base64 bytes (not validated as base64).
            #[cfg_attr(feature = "schemars", schemars(extend("contentEncoding" = "base64")))]
            value: String = "value" ("a base64 string"),
            /// MIME type of the bytes; required here since nothing else says how to read them.
            mime_type: String = "mimeType" ("a MIME type string"),
        }
        optional {}
    }
}

wire_struct! {
    /// `UrlSource` (`type: "url"`): bytes referenced by URL.
    pub struct UrlSource ["type" = "url"] {
        required {
            /// The URL (no URI-format check).
            value: String = "value" ("a URL string"),
        }
        optional {
            /// MIME type, when known (the response can tell otherwise).
            mime_type / with_mime_type: String = "mimeType" [Absent],
        }
    }
}

wire_struct! {
    /// `FileSource` (`type: "file"`, new in 1.0): bytes already stored at a provider.
    pub struct FileSource ["type" = "file"] {
        required {
            /// Provider-issued file handle; opaque, never fetched or parsed.
            value: String = "value" ("a provider file handle string"),
        }
        optional {
            /// Issuer of the handle, ideally the lowercase vendor id (`openai`, `anthropic`, `google`).
            provider / with_provider: String = "provider" [Absent],
            /// MIME type, when known.
            mime_type / with_mime_type: String = "mimeType" [Absent],
        }
    }
}

tagged_union! {
    /// `PartSource`: where a media part's bytes come from, tagged by `type`.
    pub enum PartSource ["type", "part source type"] {
        /// Inline base64 bytes.
        Data(DataSource) = "data",
        /// A URL.
        Url(UrlSource) = "url",
        /// A provider-held file handle.
        File(FileSource) = "file",
    }
}

impl PartSource {
    /// Inline base64 `data` with its MIME type.
    #[must_use]
    pub fn data(value: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Data(DataSource::new(value, mime_type))
    }

    /// A URL.
    #[must_use]
    pub fn url(url: impl Into<String>) -> Self {
        Self::Url(UrlSource::new(url))
    }

    /// A provider file handle.
    #[must_use]
    pub fn file(handle: impl Into<String>) -> Self {
        Self::File(FileSource::new(handle))
    }

    /// The source's MIME type, when it declares one.
    #[must_use]
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            Self::Data(s) => Some(&s.mime_type),
            Self::Url(s) => s.mime_type.as_deref(),
            Self::File(s) => s.mime_type.as_deref(),
        }
    }
}

wire_struct! {
    /// `TextPart` (`type: "text"`): a text fragment.
    pub struct TextPart ["type" = "text"] {
        required {
            /// The text.
            text: String = "text" ("a string"),
        }
        optional {
            /// Reserved part id; nothing reads it yet.
            id / with_id: String = "id" [Absent],
            /// Any JSON (not restricted to an object).
            metadata / with_metadata: Value = "metadata" [Absent],
        }
    }
}

macro_rules! media_part {
    ($(#[$meta:meta])* $name:ident = $tag:literal) => {
        wire_struct! {
            $(#[$meta])*
            pub struct $name ["type" = $tag] {
                required {
                    /// Where the bytes come from.
                    source: PartSource = "source" ("a PartSource object"),
                }
                optional {
                    /// Reserved part id; nothing reads it yet.
                    id / with_id: String = "id" [Absent],
                    /// Any JSON (not restricted to an object).
                    metadata / with_metadata: Value = "metadata" [Absent],
                }
            }
        }
    };
}

media_part! {
    /// `ImagePart` (`type: "image"`): an image.
    ImagePart = "image"
}
media_part! {
    /// `AudioPart` (`type: "audio"`): audio.
    AudioPart = "audio"
}
media_part! {
    /// `VideoPart` (`type: "video"`): video.
    VideoPart = "video"
}
media_part! {
    /// `DocumentPart` (`type: "document"`): a document such as a PDF.
    DocumentPart = "document"
}

tagged_union! {
    /// `ContentPart`: one part of multimodal content, tagged by `type`.
    pub enum ContentPart ["type", "content part type"] {
        /// Text.
        Text(TextPart) = "text",
        /// An image.
        Image(ImagePart) = "image",
        /// Audio.
        Audio(AudioPart) = "audio",
        /// Video.
        Video(VideoPart) = "video",
        /// A document.
        Document(DocumentPart) = "document",
    }
    legacy legacy_binary_part;
}

impl ContentPart {
    /// A text part.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextPart::new(text))
    }

    /// An image part.
    #[must_use]
    pub fn image(source: PartSource) -> Self {
        Self::Image(ImagePart::new(source))
    }

    /// An audio part.
    #[must_use]
    pub fn audio(source: PartSource) -> Self {
        Self::Audio(AudioPart::new(source))
    }

    /// A video part.
    #[must_use]
    pub fn video(source: PartSource) -> Self {
        Self::Video(VideoPart::new(source))
    }

    /// A document part.
    #[must_use]
    pub fn document(source: PartSource) -> Self {
        Self::Document(DocumentPart::new(source))
    }

    /// The media part for `mime_type` as the 1.0 client maps it: `image/*`, `audio/*`,
    /// `video/*`, anything else a document.
    #[must_use]
    pub fn media_for_mime(mime_type: &str, source: PartSource) -> Self {
        if mime_type.starts_with("image/") {
            Self::image(source)
        } else if mime_type.starts_with("audio/") {
            Self::audio(source)
        } else if mime_type.starts_with("video/") {
            Self::video(source)
        } else {
            Self::document(source)
        }
    }

    /// The text of a text part.
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The source of a media part.
    #[must_use]
    pub fn source(&self) -> Option<&PartSource> {
        match self {
            Self::Text(_) => None,
            Self::Image(p) => Some(&p.source),
            Self::Audio(p) => Some(&p.source),
            Self::Video(p) => Some(&p.source),
            Self::Document(p) => Some(&p.source),
        }
    }
}

wire_struct! {
    /// `BinaryInputContent` (`type: "binary"`): the 0.x binary part. **Not part of AG-UI
    /// 1.0**: the forgiving reader translates it into a media part (reported as
    /// [`WarningKind::LegacyBinaryPart`]); exact mode rejects it. Kept so that 0.x traffic
    /// can be read; never written by this crate.
    pub struct BinaryInputContent ["type" = "binary"] {
        required {
            /// MIME type of the bytes.
            mime_type: String = "mimeType" ("a MIME type string"),
        }
        optional {
            /// Reference to previously uploaded content.
            id / with_id: String = "id" [Absent],
            /// Remote location.
            url / with_url: String = "url" [Absent],
            /// Base64 bytes.
            data / with_data: String = "data" [Absent],
            /// File name hint.
            filename / with_filename: String = "filename" [Absent],
        }
    }
}

impl BinaryInputContent {
    /// Translates the part as the 1.0 client does: `data` wins over `url`, the MIME type
    /// picks the media kind, and `filename` moves into `metadata.filename`. A part with only
    /// an `id` has no 1.0 equivalent and is returned unchanged as the error.
    ///
    /// # Errors
    /// The part itself when it has neither non-empty `data` nor non-empty `url`.
    pub fn into_media_part(self) -> Result<ContentPart, BinaryInputContent> {
        let source = match (&self.data, &self.url) {
            (Some(d), _) if !d.is_empty() => PartSource::data(d.clone(), self.mime_type.clone()),
            (_, Some(u)) if !u.is_empty() => {
                PartSource::Url(UrlSource::new(u.clone()).with_mime_type(self.mime_type.clone()))
            }
            _ => return Err(self),
        };
        let mut part = ContentPart::media_for_mime(&self.mime_type, source);
        if let Some(name) = self.filename.filter(|n| !n.is_empty()) {
            let meta = Value::Object(
                [("filename".to_owned(), Value::String(name))]
                    .into_iter()
                    .collect(),
            );
            match &mut part {
                ContentPart::Image(p) => p.metadata = Some(meta),
                ContentPart::Audio(p) => p.metadata = Some(meta),
                ContentPart::Video(p) => p.metadata = Some(meta),
                ContentPart::Document(p) => p.metadata = Some(meta),
                ContentPart::Text(_) => {}
            }
        }
        Ok(part)
    }
}

fn legacy_binary_part<'de, A: MapAccess<'de>>(
    tag: &str,
    map: A,
) -> Option<Result<ContentPart, A::Error>> {
    if tag != "binary" {
        return None;
    }
    Some(BinaryInputContent::__from_map(map, true).and_then(|b| {
        diagnostics::report_here(WarningKind::LegacyBinaryPart);
        b.into_media_part().map_err(|_| {
            de::Error::custom(
                "0.x binary content part without non-empty `data` or `url` has no AG-UI 1.0 \
                 equivalent (a bare `id` cannot become a part source)",
            )
        })
    }))
}

/// The content of a user message, tool message or `TOOL_CALL_RESULT`: a plain string or an
/// ordered array of [`ContentPart`]s (an empty array is valid).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schemars",
    schemars(untagged, transform = crate::codec::schema::one_of)
)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Ordered multimodal parts.
    Parts(Vec<ContentPart>),
}

impl Content {
    /// The text a text-only consumer sees: the string, or the `text` parts concatenated in
    /// order with everything else dropped (no placeholder is invented).
    #[must_use]
    pub fn to_text(&self) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Parts(parts) => parts.iter().filter_map(ContentPart::as_text).collect(),
        }
    }

    /// Whether any part is not text (so flattening to text would drop something).
    #[must_use]
    pub fn has_media(&self) -> bool {
        matches!(self, Content::Parts(p) if p.iter().any(|p| p.as_text().is_none()))
    }

    /// The plain string, when the content is one.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Content::Text(s) => Some(s),
            Content::Parts(_) => None,
        }
    }
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl From<&str> for Content {
    fn from(s: &str) -> Self {
        Content::Text(s.to_owned())
    }
}

impl From<String> for Content {
    fn from(s: String) -> Self {
        Content::Text(s)
    }
}

impl From<Vec<ContentPart>> for Content {
    fn from(p: Vec<ContentPart>) -> Self {
        Content::Parts(p)
    }
}

impl From<ContentPart> for Content {
    fn from(p: ContentPart) -> Self {
        Content::Parts(vec![p])
    }
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Content::Text(t) => s.serialize_str(t),
            Content::Parts(p) => p.write(s),
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content parts")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
                Ok(Content::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Content, E> {
                Ok(Content::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Content, A::Error> {
                let parts: SeqProxy<ContentPart> =
                    Deserialize::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(Content::Parts(parts.0))
            }
        }
        d.deserialize_any(V)
    }
}

impl crate::codec::write::Encode for Content {
    fn encode(
        &self,
        out: &mut crate::codec::write::Out<'_>,
    ) -> Result<(), crate::codec::write::Refused> {
        match self {
            Content::Text(t) => {
                out.str(t);
                Ok(())
            }
            Content::Parts(p) => wire::Wire::encode(p, out),
        }
    }
}

wire::wire_as_self!(Content);
