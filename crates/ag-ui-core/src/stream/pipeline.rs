//! The client's receiving pipeline: decode (spec §2.3) → expand chunks (§9.3) → verify (§9.1).

use crate::codec::error::Error;
use crate::codec::read::{Decoded, ReadMode, Rejection, Warning};
use crate::model::event::Event;
use crate::stream::decoder::{EventDecoder, Plain};
use crate::stream::delta::{DeltaKind, Shape};
use crate::stream::rule::{Rule, Violation};
use crate::stream::verify::StreamChecker;

/// Why an event of a stream was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// The event's text is not an AG-UI 1.0 event (malformed JSON, a malformed known field)
    /// and breaks no stream rule in particular.
    #[error("event {index} rejected by the reader: {error}")]
    Decode {
        /// 0-based index of the event in the stream.
        index: usize,
        /// What the reader reported.
        #[source]
        error: Error,
    },
    /// The event breaks a stream rule.
    #[error(transparent)]
    Violation(#[from] Violation),
}

impl PipelineError {
    /// 0-based index of the refused event in the stream.
    #[must_use]
    pub fn index(&self) -> usize {
        match self {
            PipelineError::Decode { index, .. } => *index,
            PipelineError::Violation(v) => v.index,
        }
    }

    /// The rule broken, when the error is a rule violation.
    #[must_use]
    pub fn rule(&self) -> Option<Rule> {
        match self {
            PipelineError::Decode { .. } => None,
            PipelineError::Violation(v) => Some(v.rule),
        }
    }
}

/// What an AG-UI 1.0 client does with each event of a stream, in the reference order:
/// decode the text ([`EventDecoder`]: unknown event types dropped with a warning, 0.x
/// reasoning events translated), expand chunks ([`crate::ChunkExpander`]), verify the
/// result ([`crate::Verifier`]). What comes out is what a client applies to its state.
///
/// Indices in errors count the events given to the pipeline, dropped ones included.
///
/// Rules that a typed [`Event`] cannot break are reported here, from the reader's refusal
/// of the event (its error and the reader's record of it: the event's type, the member, the
/// id of the object concerned when it came before the offending member; the text is not
/// read again): `O6` (`subagentRunId: null`, spec §6 rule 12, refused by an exact decoder;
/// the forgiving one reads it as absent with a `legacy-null` warning), the string
/// `subagentRunId` and `name` of `A1`, the string `subagentRunId` and `message` of `A2`,
/// and the outcome type of `A3`. Any other rejected text is a [`PipelineError::Decode`].
///
/// ```
/// use ag_ui_core::{EventDecoder, EventPipeline, ReadMode, Rule};
///
/// let mut pipeline = EventPipeline::new();
/// pipeline.push_text(r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#)?;
/// let out = pipeline.push_text(r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"Hi"}"#)?;
/// assert_eq!(out.value.len(), 2); // TEXT_MESSAGE_START, TEXT_MESSAGE_CONTENT
///
/// let dropped = pipeline.push_text(r#"{"type":"FUTURE_EVENT"}"#)?;
/// assert!(dropped.value.is_empty());
/// assert_eq!(dropped.warnings.len(), 1);
///
/// let null = r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"!","subagentRunId":null}"#;
/// let step = r#"{"type":"STEP_STARTED","stepName":"s","subagentRunId":null}"#;
/// let read = pipeline.push_text(step)?; // forgiving: read as absent, with a warning
/// assert_eq!(read.warnings[0].kind.as_str(), "legacy-null");
///
/// let mut exact = EventPipeline::with_decoder(EventDecoder::new(ReadMode::Exact));
/// exact.push_text(r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#)?;
/// exact.push_text(r#"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#)?;
/// let err = exact.push_text(null).unwrap_err();
/// assert_eq!((err.rule(), err.index()), (Some(Rule::O6), 2));
/// # Ok::<(), ag_ui_core::PipelineError>(())
/// ```
#[derive(Debug)]
pub struct EventPipeline {
    decoder: EventDecoder,
    checker: StreamChecker,
    /// What the reader forgave in the last refused event.
    refused: Vec<Warning>,
}

impl Default for EventPipeline {
    fn default() -> Self {
        Self::new()
    }
}

impl EventPipeline {
    /// A pipeline with a forgiving decoder (the 1.0 receiver).
    #[must_use]
    pub fn new() -> Self {
        Self::with_decoder(EventDecoder::new(ReadMode::Forgiving))
    }

    /// A pipeline decoding with `decoder` (for exact mode, or a custom id generator for
    /// translated 0.x events).
    #[must_use]
    pub fn with_decoder(decoder: EventDecoder) -> Self {
        EventPipeline {
            decoder,
            checker: StreamChecker::default(),
            refused: Vec::new(),
        }
    }

    /// How many events have been given (the index the next one gets).
    #[must_use]
    pub fn events_seen(&self) -> usize {
        self.checker.index()
    }

    /// Takes the next event's JSON text (one SSE `data` payload). Returns the events to
    /// apply, in order — none for a dropped event, several when the event closes a pending
    /// chunk stream or is a chunk — and what the reader forgave, each warning carrying the
    /// index of the event and its type (`None` for a dropped unknown type).
    ///
    /// # Errors
    /// [`PipelineError::Violation`] for a broken rule, [`PipelineError::Decode`] for text
    /// that is not an AG-UI 1.0 event. Stop reading the stream at the first error, as the
    /// reference client does.
    pub fn push_text(&mut self, json: &str) -> Result<Decoded<Vec<Event>>, PipelineError> {
        let mut events = Vec::new();
        let (warnings, omitted_warnings) = self.push_text_into(json, &mut events)?;
        Ok(Decoded {
            value: events,
            warnings,
            omitted_warnings,
        })
    }

    /// [`EventPipeline::push_text`], appending the events to deliver to `out` (which the
    /// consumer reuses, so that an event costs no vector of its own); returns the warnings
    /// and the count of those left out.
    pub(crate) fn push_text_into(
        &mut self,
        json: &str,
        out: &mut Vec<Event>,
    ) -> Result<(Vec<Warning>, usize), PipelineError> {
        let decoded = match self.decoder.decode_plain(json) {
            Plain::Event(event) => {
                // Nothing forgiven: no warnings to record, none to hand back.
                if let Err(e) = self.push_event_into(event, out) {
                    self.refused.clear();
                    return Err(e);
                }
                return Ok((Vec::new(), 0));
            }
            Plain::Decoded(d) => d,
        };
        let decoded = match decoded {
            Ok(d) => d,
            Err(rejection) => {
                let index = self.checker.skip();
                return Err(match rule_of_rejection(&rejection, index) {
                    Some(v) => PipelineError::Violation(v),
                    None => PipelineError::Decode {
                        index,
                        error: rejection.error,
                    },
                });
            }
        };
        let index = self.checker.index();
        let event_type = decoded.value.as_ref().map(Event::event_type);
        let warnings: Vec<Warning> = decoded
            .warnings
            .into_iter()
            .map(|w| w.at_event(index, event_type))
            .collect();
        match decoded.value {
            None => {
                self.checker.skip();
            }
            Some(event) => {
                if let Err(e) = self.push_event_into(event, out) {
                    self.refused = warnings;
                    return Err(e);
                }
            }
        }
        Ok((warnings, decoded.omitted_warnings))
    }

    /// [`EventPipeline::push_text_into`] for a plain streamed delta the caller read itself
    /// (`stream::delta`), given by its kind and shape: the stream checks, nothing to
    /// deliver; the id of what the delta continues. `None` (nothing done) when the event
    /// needs the full path.
    pub(crate) fn push_delta<'a>(
        &'a mut self,
        kind: DeltaKind,
        shape: Shape<'a>,
    ) -> Option<Result<&'a str, PipelineError>> {
        let r = self.checker.check_delta(kind, shape)?;
        Some(r.map_err(|v| {
            self.refused.clear();
            PipelineError::Violation(v)
        }))
    }

    /// What the reader forgave in the event the last error refused (a stream rule may
    /// refuse an event whose text needed forgiving); drains it.
    pub fn take_refused_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.refused)
    }

    /// Takes the next event, already decoded. Returns the events to apply, in order.
    ///
    /// # Errors
    /// [`PipelineError::Violation`] for a broken rule.
    pub fn push_event(&mut self, event: Event) -> Result<Vec<Event>, PipelineError> {
        let mut out = Vec::new();
        self.push_event_into(event, &mut out)?;
        Ok(out)
    }

    /// [`EventPipeline::push_event`], appending the events to apply to `out`; on a
    /// violation `out` is left as it was.
    fn push_event_into(&mut self, event: Event, out: &mut Vec<Event>) -> Result<(), PipelineError> {
        let start = out.len();
        // A chunk's delta moves into the content event it expands to.
        let mut event = event;
        let delta = crate::stream::chunk::take_chunk_delta(&mut event);
        match self.checker.check(&event, delta, out) {
            Ok(pass) => {
                if pass {
                    out.push(event);
                }
                Ok(())
            }
            Err(v) => {
                out.truncate(start);
                Err(PipelineError::Violation(v))
            }
        }
    }

    /// Ends the stream: returns the `*_END` events closing chunk streams still pending,
    /// after verifying them.
    ///
    /// # Errors
    /// [`PipelineError::Violation`] if closing them breaks a rule.
    pub fn finish(&mut self) -> Result<Vec<Event>, PipelineError> {
        let mut out = Vec::new();
        self.checker.finish(&mut out)?;
        Ok(out)
    }
}

/// The stream rule behind the reader's refusal of an event, if there is one, named from the
/// refusal itself (the error's pointer and the reader's record: the event's type, the field
/// missing, a forbidden `null`, the id of the object concerned).
fn rule_of_rejection(rejection: &Rejection, index: usize) -> Option<Violation> {
    let fault = &rejection.fault;
    let error = &rejection.error;
    let pointer = error.pointer()?;
    let event_type = fault.tag.as_deref().unwrap_or("event");
    let ids = || fault.owner.iter().cloned().collect::<Vec<_>>();
    if fault.null && pointer.ends_with("/subagentRunId") {
        return Some(Violation::new(
            Rule::O6,
            index,
            ids(),
            format!(
                "{event_type} carries subagentRunId: null at {pointer}: the field is optional and is left out for the parent agent; null is rejected everywhere (spec §6 rule 12)"
            ),
        ));
    }
    // The top-level member the refusal is about: a missing field, or the member pointed at.
    let field = match (fault.missing, pointer) {
        (Some(missing), "") => missing,
        (_, p) => p.strip_prefix('/').unwrap_or(p),
    };
    let (rule, what) = match (event_type, field) {
        ("SUBAGENT_STARTED", "subagentRunId") => (Rule::A1, "a string subagentRunId"),
        ("SUBAGENT_STARTED", "name") => (Rule::A1, "a string name"),
        ("SUBAGENT_FINISHED" | "SUBAGENT_ERROR", "subagentRunId") => {
            (Rule::A2, "a string subagentRunId")
        }
        ("SUBAGENT_ERROR", "message") => (Rule::A2, "a string message"),
        ("SUBAGENT_FINISHED", "outcome" | "outcome/type") => (
            Rule::A3,
            "an outcome of type \"success\" or \"suspended\" (or no outcome)",
        ),
        _ => return None,
    };
    Some(Violation::new(
        rule,
        index,
        ids(),
        format!("{event_type} needs {what} (the reader says: {error})"),
    ))
}
