//! Event-stream semantics: the lifecycle rules of spec §9.1 and the chunk rules of §9.3.
//!
//! A schema sees one document at a time; these rules are about sequences. [`Verifier`]
//! checks a stream event by event and reports the first broken [`Rule`] as a
//! [`Violation`] (rule id, event index, ids, explanation). [`verify_events`] checks a whole
//! sequence the way an AG-UI 1.0 client does — chunk events expanded by
//! [`crate::ChunkExpander`] first — and [`crate::EventPipeline`] adds the stream decoder in
//! front, for clients reading event text.
//!
//! Between events a [`Verifier`] can be asked, without pushing anything, whether an event
//! would be accepted ([`Verifier::check`]), what the run has open in opening order
//! ([`Verifier::open`], [`Open`]), who owns an id ([`Verifier::owner`]) and which subagent
//! invocations are active ([`Verifier::active_subagents`]): a producer asks these instead
//! of keeping its own copy of the run's state.
//!
//! | rules | about |
//! |---|---|
//! | `L1`–`L5` | the run lifecycle: what may start, follow and end a run; several runs per stream |
//! | `L6`, `L7` | run identity: a run's boundary events agree on `runId`; every run is on the stream's thread |
//! | `I1` | interrupts: distinct ids within one outcome |
//! | `M1`, `M2`, `T1`–`T3` | text messages and tool calls: open, continue, close, by id |
//! | `S1`, `S2` | steps, per owner |
//! | `Z1`–`Z3` | reasoning spans and reasoning messages |
//! | `A1`–`A3` | subagent invocations |
//! | `O1`–`O6` | attribution: every entity has one owner (`subagentRunId`, absent = parent) |
//! | `C1`–`C3` | chunk expansion: openers, repeated opener fields, ambiguous lanes |

mod open;
mod verifier;

pub use crate::stream::rule::{Rule, Violation};
pub use open::{EntityKind, Open, OpenKind};
pub use verifier::Verifier;

use crate::model::event::Event;
use crate::stream::chunk::{ChunkExpander, chunk_delta};
use crate::stream::delta::{DeltaKind, Shape};

/// Checks a complete event sequence as an AG-UI 1.0 client would: chunk events expanded
/// (spec §9.3), then every lifecycle rule of spec §9.1 verified.
///
/// The [`Violation`]'s `index` is the position in `events` of the event that broke the rule
/// (for a rule broken by an event synthesized from a chunk, the chunk's position; for one
/// broken by what the end of the stream closes, `events.len()`).
///
/// # Errors
/// The first [`Violation`].
///
/// ```
/// use ag_ui_core::stream::verify_events;
/// use ag_ui_core::{Event, Rule, RunStartedEvent, TextMessageContentEvent};
///
/// let events: Vec<Event> = vec![
///     RunStartedEvent::new("t1", "r1").into(),
///     TextMessageContentEvent::new("m1", "hi").into(),
/// ];
/// let err = verify_events(&events).unwrap_err();
/// assert_eq!((err.rule, err.index), (Rule::M2, 1));
/// ```
pub fn verify_events<'a, I: IntoIterator<Item = &'a Event>>(events: I) -> Result<(), Violation> {
    let mut checker = StreamChecker::default();
    for event in events {
        checker.check(event, chunk_delta(event), &mut Vec::new())?;
    }
    checker.finish(&mut Vec::new())
}

/// Chunk expansion followed by verification, reporting indices of the events given to it.
#[derive(Debug, Clone, Default)]
pub(crate) struct StreamChecker {
    expander: ChunkExpander,
    verifier: Verifier,
    index: usize,
}

impl StreamChecker {
    /// The index the next event gets.
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// [`StreamChecker::check`] for a plain streamed delta without a `subagentRunId`
    /// (`stream::delta`), given by its kind and shape. Returns the id of what the delta
    /// continues (a chunk's content event takes the open stream's). `None` (nothing done)
    /// when expansion does more with it than count it: a content event while the parent
    /// lane holds a chunk stream (which the event would close), a chunk that does not
    /// continue the parent lane's stream. The caller then checks the event itself.
    pub(crate) fn check_delta<'a>(
        &'a mut self,
        kind: DeltaKind,
        shape: Shape<'a>,
    ) -> Option<Result<&'a str, Violation>> {
        let id = match shape {
            Shape::Content(id) => self.expander.step_idle_parent().then_some(id)?,
            Shape::Chunk(id) => self.expander.continue_parent(kind, id)?,
        };
        let index = self.index;
        self.index += 1;
        Some(
            self.verifier
                .push_delta(kind, id)
                .map(|()| id)
                .map_err(|v| v.at(index)),
        )
    }

    /// Counts an input event that never reaches expansion (an unknown type dropped, or one
    /// the reader rejected).
    pub(crate) fn skip(&mut self) -> usize {
        let index = self.index;
        self.index += 1;
        index
    }

    /// Expands and verifies `event`. Appends to `out` what precedes it (what it closes, or
    /// what a chunk expands to); returns whether `event` itself follows. A chunk's `delta`
    /// is given apart (see [`ChunkExpander::step`]).
    pub(crate) fn check(
        &mut self,
        event: &Event,
        delta: Option<String>,
        out: &mut Vec<Event>,
    ) -> Result<bool, Violation> {
        let index = self.skip();
        let start = out.len();
        let pass = self
            .expander
            .step(event, delta, out)
            .map_err(|v| v.at(index))?;
        for e in &out[start..] {
            self.verifier.push(e).map_err(|v| v.at(index))?;
        }
        if pass {
            self.verifier.push(event).map_err(|v| v.at(index))?;
        }
        Ok(pass)
    }

    /// Ends the stream: verifies and appends to `out` what the end of the stream closes.
    pub(crate) fn finish(&mut self, out: &mut Vec<Event>) -> Result<(), Violation> {
        let index = self.index;
        let start = out.len();
        out.extend(self.expander.finish());
        for e in &out[start..] {
            self.verifier.push(e).map_err(|v| v.at(index))?;
        }
        self.verifier.finish().map_err(|v| v.at(index))
    }
}
