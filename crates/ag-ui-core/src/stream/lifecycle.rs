//! The run lifecycle of a stream (spec §9.1, rules `L1`–`L4`): where the stream stands
//! between runs, and which run events may come next. One tracker for every part of the
//! workspace that needs it: the [`Verifier`](crate::Verifier), the reducer
//! ([`ThreadState`](crate::ThreadState)), a server's guard and a producer's emitter.

use crate::model::event::EventType;
use crate::stream::rule::{Rule, Violation};

/// Where a stream's latest run stands (spec §9.1).
///
/// An interrupted run (`RUN_FINISHED` with an `interrupt` outcome, §9.2) is
/// [`Finished`](RunStatus::Finished): the lifecycle rules treat every `RUN_FINISHED`
/// alike; the outcome tells them apart ([`ThreadState::outcome`](crate::ThreadState::outcome)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RunStatus {
    /// No run has started yet: only `RUN_STARTED` (or a `RUN_ERROR`) may come (`L1`).
    #[default]
    Idle,
    /// A `RUN_STARTED` came and neither `RUN_FINISHED` nor `RUN_ERROR` since: anything
    /// but another `RUN_STARTED` may come (`L2`).
    Running,
    /// The last run ended with `RUN_FINISHED`: only `RUN_ERROR` or a new `RUN_STARTED` may
    /// follow (`L4`).
    Finished,
    /// The last run ended with `RUN_ERROR` (or the stream began with one): only a new
    /// `RUN_STARTED` may follow (`L3`).
    Errored,
}

/// The run lifecycle of a stream, fed event by event: its [`RunStatus`], and whether an
/// event of a given type may come now (spec §9.1 `L1`–`L4`), with the rule that forbids it.
///
/// It knows only the run events (`RUN_STARTED`, `RUN_FINISHED`, `RUN_ERROR`) and the order
/// they allow; every other type may come exactly when a run is
/// [`Running`](RunStatus::Running). What must be closed before a run may finish (`L5`) and
/// every rule about ids is the [`Verifier`](crate::Verifier)'s, which keeps one of these.
///
/// ```
/// use ag_ui_core::{EventType, Rule, RunLifecycle, RunStatus};
///
/// let mut run = RunLifecycle::new();
/// assert_eq!(run.check(EventType::TextMessageStart), Err(Rule::L1));
/// run.push(EventType::RunStarted)?;
/// assert_eq!(run.check(EventType::RunStarted), Err(Rule::L2));
/// run.push(EventType::RunFinished)?;
/// assert_eq!(run.status(), RunStatus::Finished);
/// assert_eq!(run.check(EventType::StateSnapshot), Err(Rule::L4));
/// assert!(run.check(EventType::RunError).is_ok());
/// run.push(EventType::RunError)?;
/// assert_eq!(run.push(EventType::RunError), Err(Rule::L3));
/// assert_eq!(run.status(), RunStatus::Errored); // a refused event changes nothing
/// # Ok::<(), Rule>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RunLifecycle {
    status: RunStatus,
}

impl RunLifecycle {
    /// The lifecycle of a new stream ([`RunStatus::Idle`]).
    #[must_use]
    pub const fn new() -> Self {
        RunLifecycle {
            status: RunStatus::Idle,
        }
    }

    /// Where the latest run stands.
    #[must_use]
    pub const fn status(&self) -> RunStatus {
        self.status
    }

    /// Whether a run has started and not ended ([`RunStatus::Running`]).
    #[must_use]
    pub const fn is_running(&self) -> bool {
        matches!(self.status, RunStatus::Running)
    }

    /// Whether the latest run has ended ([`RunStatus::Finished`] or [`RunStatus::Errored`]).
    #[must_use]
    pub const fn has_ended(&self) -> bool {
        matches!(self.status, RunStatus::Finished | RunStatus::Errored)
    }

    /// Whether an event of type `event_type` may come now; the rule it would break if not
    /// (`L1` before the first run, `L2` a `RUN_STARTED` while a run is active, `L3` after
    /// `RUN_ERROR`, `L4` after `RUN_FINISHED`).
    ///
    /// # Errors
    /// The rule `event_type` breaks here.
    pub const fn check(&self, event_type: EventType) -> Result<(), Rule> {
        let start = matches!(event_type, EventType::RunStarted);
        let error = matches!(event_type, EventType::RunError);
        match self.status {
            RunStatus::Idle if !start && !error => Err(Rule::L1),
            RunStatus::Running if start => Err(Rule::L2),
            RunStatus::Errored if !start => Err(Rule::L3),
            RunStatus::Finished if !start && !error => Err(Rule::L4),
            _ => Ok(()),
        }
    }

    /// [`check`](Self::check) as a [`Violation`] at `index` (the position of the event in
    /// the stream), with the message the [`Verifier`](crate::Verifier) gives.
    ///
    /// # Errors
    /// The violation of the rule `event_type` breaks here.
    pub fn check_at(&self, event_type: EventType, index: usize) -> Result<(), Violation> {
        self.check(event_type)
            .map_err(|rule| Violation::new(rule, index, Vec::new(), explain(rule, event_type)))
    }

    /// Checks an event of type `event_type` and, when it may come, moves on past it.
    ///
    /// # Errors
    /// As [`check`](Self::check); a refused event changes nothing.
    pub fn push(&mut self, event_type: EventType) -> Result<(), Rule> {
        self.check(event_type)?;
        self.advance(event_type);
        Ok(())
    }

    /// Moves on past an event of type `event_type` without checking it: what a reducer
    /// does, which applies whatever it is given (`RUN_STARTED` starts a run,
    /// `RUN_FINISHED` finishes it, `RUN_ERROR` errors it; other types change nothing).
    pub const fn advance(&mut self, event_type: EventType) {
        match event_type {
            EventType::RunStarted => self.status = RunStatus::Running,
            EventType::RunFinished => self.status = RunStatus::Finished,
            EventType::RunError => self.status = RunStatus::Errored,
            _ => {}
        }
    }
}

/// The message of a broken lifecycle rule.
fn explain(rule: Rule, t: EventType) -> String {
    match rule {
        Rule::L1 => format!("{t} as the first event: a stream must begin with RUN_STARTED"),
        Rule::L2 => {
            "RUN_STARTED while a run is active: finish it with RUN_FINISHED or RUN_ERROR first"
                .to_owned()
        }
        Rule::L3 => format!(
            "{t} after RUN_ERROR: an errored run accepts no further events; only a new RUN_STARTED may follow"
        ),
        _ => format!(
            "{t} after RUN_FINISHED: only RUN_ERROR or a new RUN_STARTED may follow a finished run"
        ),
    }
}
