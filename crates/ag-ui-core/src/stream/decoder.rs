//! Decoding a stream of events as the 1.0 receiver does (spec §2.3): unknown event types
//! dropped with a warning, 0.x `THINKING_*` events translated, everything else decoded by
//! [`crate::read::decode`].

use serde_json::{Map, Value};

use crate::codec::error::{Repr, Result};
use crate::codec::read::{self, Decoded, ReadMode, Rejection, Warning, WarningKind};
use crate::model::event::{Event, LEGACY_EVENT_TYPES};
use crate::model::version::{ProtocolVersion, Versioned};

/// A stateful event decoder for one stream.
///
/// It holds what translating 0.x reasoning events needs (the ids of the open span and
/// message, which 0.x events did not carry) and mints ids with the generator given to
/// [`EventDecoder::with_id_generator`]. The default generator mints UUID v4 ids with the
/// `uuid` feature (on by default); without it, `legacy-{start}-{pid}-{n}` ids (the process's
/// start time in nanoseconds and its id, in hex, and a process-wide counter), unique within
/// the process and, in practice, across processes.
pub struct EventDecoder {
    mode: ReadMode,
    /// The version read as (members newer than it are unknown fields).
    protocol: ProtocolVersion,
    reasoning_id: Option<String>,
    message_id: Option<String>,
    mint: Box<dyn FnMut() -> String + Send>,
    /// Fields whose `null` was already reported in the current run.
    nulls_reported: crate::hash::HashSet<String>,
}

impl std::fmt::Debug for EventDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventDecoder")
            .field("mode", &self.mode)
            .field("reasoning_id", &self.reasoning_id)
            .field("message_id", &self.message_id)
            .finish_non_exhaustive()
    }
}

impl Default for EventDecoder {
    fn default() -> Self {
        Self::new(ReadMode::Forgiving)
    }
}

impl EventDecoder {
    /// A decoder reading in `mode`.
    #[must_use]
    pub fn new(mode: ReadMode) -> Self {
        EventDecoder {
            mode,
            protocol: ProtocolVersion::LATEST,
            reasoning_id: None,
            message_id: None,
            mint: Box::new(default_id),
            nulls_reported: crate::hash::HashSet::default(),
        }
    }

    /// Reads as a receiver of `version` does (by default [`ProtocolVersion::LATEST`]): a
    /// member that version does not know is an unknown field, stripped with an
    /// `unknown-field` warning (refused in exact mode), and a declared `protocolVersion`
    /// newer than `version` is warned about.
    #[must_use]
    pub fn with_protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol = version;
        self
    }

    /// Replaces the id generator used when translating 0.x reasoning events.
    #[must_use]
    pub fn with_id_generator(mut self, mint: impl FnMut() -> String + Send + 'static) -> Self {
        self.mint = Box::new(mint);
        self
    }

    /// Decodes one event's JSON text. `Ok(None)` value means the event was dropped (an
    /// unknown type; the warning says which).
    ///
    /// # Errors
    /// As [`crate::read::decode`], except that an unknown event type is a warning, not an error.
    ///
    /// A `null` read as absent (`null-as-absent`, `legacy-null`) is reported once per field
    /// name per run: servers that write them write them on every event.
    ///
    /// A `RUN_STARTED` whose `protocolVersion` is newer than
    /// [`ProtocolVersion::LATEST`](crate::ProtocolVersion::LATEST) or not `MAJOR.MINOR` is decoded with a [`WarningKind::ProtocolVersion`] warning (spec
    /// §10: proceed, and warn); an older, equal or absent version is quiet.
    pub fn decode(&mut self, json: &str) -> Result<Decoded<Option<Event>>> {
        self.decode_detailed(json).map_err(|r| r.error)
    }

    /// [`EventDecoder::decode`], keeping the reader's record of a refusal.
    #[inline]
    pub(crate) fn decode_detailed(
        &mut self,
        json: &str,
    ) -> Result<Decoded<Option<Event>>, Rejection> {
        self.finish(json, read::decode_detailed::<Event>(json, self.mode))
    }

    /// [`EventDecoder::decode_detailed`] returning a clean event that needs nothing added
    /// (no warning, nothing stripped, not a `RUN_STARTED`) as it is, the way most events of
    /// a stream are; anything else decoded in full.
    #[inline]
    pub(crate) fn decode_plain(&mut self, json: &str) -> Plain {
        match read::decode_clean::<Event>(json, self.mode) {
            Ok(event)
                if self.protocol >= ProtocolVersion::LATEST
                    && !matches!(event, Event::RunStarted(_)) =>
            {
                Plain::Event(event)
            }
            Ok(event) => Plain::Decoded(self.finish(json, Ok(Decoded::clean(event)))),
            Err(missed) => Plain::Decoded(
                self.finish(json, read::decode_rest::<Event>(json, self.mode, missed)),
            ),
        }
    }

    /// What the decoder adds to what the reader made of `json`.
    fn finish(
        &mut self,
        json: &str,
        read: Result<Decoded<Event>, Rejection>,
    ) -> Result<Decoded<Option<Event>>, Rejection> {
        match read {
            Ok(mut d) => {
                if self.protocol < ProtocolVersion::LATEST {
                    self.strip_newer(&mut d)?;
                }
                if let Event::RunStarted(e) = &d.value {
                    self.nulls_reported.clear();
                    if let Some(w) = e
                        .protocol_version
                        .as_deref()
                        .and_then(|v| version_warning(v, self.protocol))
                    {
                        d.warnings.push(w);
                    }
                }
                if d.warnings.iter().any(|w| is_null(w.kind)) {
                    let reported = &mut self.nulls_reported;
                    d.warnings.retain(|w| {
                        !is_null(w.kind)
                            || reported.insert(format!(
                                "{}{}",
                                w.kind.as_str(),
                                w.pointer.rsplit('/').next().unwrap_or_default()
                            ))
                    });
                }
                Ok(Decoded {
                    value: Some(d.value),
                    warnings: d.warnings,
                    omitted_warnings: d.omitted_warnings,
                })
            }
            Err(Rejection { error, .. }) if error.event_type().is_some() => {
                let event_type = error.event_type().unwrap_or_default();
                self.unknown(json, event_type).map_err(Rejection::from)
            }
            Err(r) => Err(r),
        }
    }

    /// Strips what [`EventDecoder::with_protocol_version`]'s version does not know.
    fn strip_newer(&self, d: &mut Decoded<Event>) -> Result<(), Rejection> {
        let mut stripped = Vec::new();
        d.value
            .strip_unknown_to(self.protocol, "", &mut |p| stripped.push(p));
        if let Some(first) = stripped.first()
            && self.mode == ReadMode::Exact
        {
            return Err(Rejection::from(crate::Error::from(Repr::NotExact {
                kind: WarningKind::UnknownField,
                pointer: first.clone(),
            })));
        }
        d.warnings.extend(
            stripped
                .into_iter()
                .map(|p| Warning::new(WarningKind::UnknownField, p)),
        );
        Ok(())
    }

    fn unknown(&mut self, json: &str, event_type: &str) -> Result<Decoded<Option<Event>>> {
        let Some(successor) = LEGACY_EVENT_TYPES
            .iter()
            .find(|(n, _)| *n == event_type)
            .map(|p| p.1)
        else {
            return Ok(Decoded {
                value: None,
                warnings: vec![
                    Warning::new(WarningKind::UnknownEventType, "/type").with_detail(format!(
                        "{:?}; the event was dropped",
                        crate::codec::shown::Shown(event_type)
                    )),
                ],
                omitted_warnings: 0,
            });
        };
        if self.mode == ReadMode::Exact {
            return Err(Repr::NotExact {
                kind: WarningKind::LegacyEvent,
                pointer: "/type".into(),
            }
            .into());
        }
        let mut map: Map<String, Value> = read::from_str(json)?;
        // The warning names the type that was received; the event it became is the one
        // delivered (and the one a stream stage records as the warning's event type).
        let mut warnings =
            vec![
                Warning::new(WarningKind::LegacyEvent, "/type").with_detail(format!(
                    "received {event_type}, translated to {}",
                    successor.as_str()
                )),
            ];
        map.insert("type".into(), Value::String(successor.as_str().into()));
        let id = match event_type {
            "THINKING_START" => {
                if map.remove("title").is_some() {
                    warnings.push(Warning::new(WarningKind::LegacyEvent, "/title"));
                }
                let id = (self.mint)();
                self.reasoning_id = Some(id.clone());
                id
            }
            "THINKING_END" => self.reasoning_id.take().unwrap_or_else(&mut self.mint),
            "THINKING_TEXT_MESSAGE_START" => {
                map.insert("role".into(), Value::String("reasoning".into()));
                let id = (self.mint)();
                self.message_id = Some(id.clone());
                id
            }
            "THINKING_TEXT_MESSAGE_CONTENT" => {
                self.message_id.clone().unwrap_or_else(&mut self.mint)
            }
            _ => self.message_id.take().unwrap_or_else(&mut self.mint),
        };
        map.insert("messageId".into(), Value::String(id));
        let decoded = read::decode_value::<Event>(&Value::Object(map), self.mode)?;
        warnings.extend(decoded.warnings);
        let over = warnings.len().saturating_sub(read::MAX_WARNINGS);
        warnings.truncate(read::MAX_WARNINGS);
        Ok(Decoded {
            value: Some(decoded.value),
            warnings,
            omitted_warnings: decoded.omitted_warnings + over,
        })
    }
}

/// The §10 warning for a producer's declared version, if it needs one.
fn version_warning(version: &str, reader: ProtocolVersion) -> Option<Warning> {
    let parse = |v: &str| -> Option<(u64, u64)> {
        let (major, minor) = v.split_once('.')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(major) || !digits(minor) {
            return None;
        }
        Some((major.parse().ok()?, minor.parse().ok()?))
    };
    let ours = (u64::from(reader.major), u64::from(reader.minor));
    let detail = match parse(version) {
        None => format!(
            "{version:?} is not MAJOR.MINOR (spec §10); read as a version this reader may not know"
        ),
        Some(theirs) if theirs > ours => format!(
            "the producer speaks {version}, newer than {reader}: unknown material is stripped"
        ),
        Some(_) => return None,
    };
    Some(Warning::new(WarningKind::ProtocolVersion, "/protocolVersion").with_detail(detail))
}

fn is_null(kind: WarningKind) -> bool {
    matches!(kind, WarningKind::NullAsAbsent | WarningKind::LegacyNull)
}

/// The id of a translated 0.x event when the caller gave no generator: a UUID v4.
#[cfg(feature = "uuid")]
fn default_id() -> String {
    crate::model::id::random_uuid()
}

/// The id of a translated 0.x event when the caller gave no generator and UUIDs are not
/// available: `legacy-{start}-{pid}-{n}`, from a process-wide counter.
#[cfg(not(feature = "uuid"))]
fn default_id() -> String {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};

    static PREFIX: OnceLock<String> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let prefix = PREFIX.get_or_init(|| {
        let start = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("legacy-{start:x}-{:x}", std::process::id())
    });
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// What [`EventDecoder::decode_plain`] read.
pub(crate) enum Plain {
    /// A clean event with nothing to add.
    Event(Event),
    /// Anything else, as [`EventDecoder::decode_detailed`] returns it.
    Decoded(Result<Decoded<Option<Event>>, Rejection>),
}
