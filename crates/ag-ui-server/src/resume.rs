//! Resume bookkeeping for servers (spec §9.2): each thread's open interrupts, and which
//! inputs a paused thread accepts.
//!
//! A run that ends with `RUN_FINISHED` `{type: "interrupt"}` pauses its thread until a
//! later run's `resume` answers every open interrupt. While a thread is paused, an input
//! without that resume must be answered with `RUN_ERROR`; so must a resume that answers
//! something else. [`InterruptTracker`] keeps the open interrupts of each thread from the
//! runs' own streams ([`InterruptTracker::track`]) and decides each new input
//! ([`InterruptTracker::admit`]) with [`ag_ui_core::check_resume`], the check the client
//! makes before it sends a resume.
//!
//! ```
//! use ag_ui_core::{Event, Interrupt, RunAgentInput, RunFinishedEvent, RunFinishedOutcome};
//! use ag_ui_server::resume::{Admission, InterruptTracker, ResumeRefused};
//!
//! let tracker = InterruptTracker::new();
//! let input = RunAgentInput::new("thread-1", "run-1", vec![]);
//! assert_eq!(tracker.admit(&input), Ok(Admission::Run));
//!
//! // The run pauses on an interrupt.
//! let paused = RunFinishedEvent::new("thread-1", "run-1").with_outcome(
//!     ag_ui_builders::outcome::interrupted([Interrupt::new("int-1", "confirmation")])?,
//! );
//! tracker.observe(&input, &Event::from(paused));
//!
//! // An ordinary input is refused now; a resume answering int-1 is admitted.
//! let next = RunAgentInput::new("thread-1", "run-2", vec![]);
//! assert!(matches!(tracker.admit(&next), Err(ResumeRefused::Paused { .. })));
//! let resume = next.with_resume(vec![ag_ui_builders::interrupt::resolve("int-1", serde_json::json!({}))]);
//! assert_eq!(tracker.admit(&resume), Ok(Admission::Resume));
//! # Ok::<(), ag_ui_builders::BuildError>(())
//! ```

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use ag_ui_core::{
    Event, Interrupt, InterruptId, ResumeEntry, ResumeMismatch, RunAgentInput, RunFinishedOutcome,
    ThreadId, check_resume,
};
use futures_core::Stream;

use crate::AgentStream;

/// `RUN_ERROR.code` for an input without a resume on a paused thread.
pub const CODE_INTERRUPT_PENDING: &str = "interrupt_pending";
/// `RUN_ERROR.code` for a resume that does not answer the thread's open interrupts.
pub const CODE_RESUME_MISMATCH: &str = "resume_mismatch";

/// What [`InterruptTracker::admit`] allows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Admission {
    /// An ordinary run: the thread is not paused, and the input resumes nothing.
    Run,
    /// The input's `resume` answers exactly the thread's open interrupts.
    Resume,
    /// The input repeats the resume that last resumed the thread (same interrupts,
    /// statuses and payloads): replaying it must be safe (spec §9.2 rule 4), so the agent
    /// should answer it without repeating its side effects.
    Replay,
}

/// Why an input is refused (answer it with `RUN_ERROR`, [`code`](Self::code) and the
/// error's message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeRefused {
    /// The thread is paused and the input does not resume it.
    #[error(
        "the thread is paused on interrupts {}: the input must resume them (spec §9.2)",
        pending.iter().map(InterruptId::as_str).collect::<Vec<_>>().join(", ")
    )]
    Paused {
        /// The open interrupts.
        pending: Vec<InterruptId>,
    },
    /// The resume does not answer the open interrupts.
    #[error("{mismatch} (at {at})", mismatch = .0, at = .0.pointer())]
    Mismatch(ResumeMismatch),
}

impl ResumeRefused {
    /// The `RUN_ERROR.code` for it: [`CODE_INTERRUPT_PENDING`] or
    /// [`CODE_RESUME_MISMATCH`].
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            ResumeRefused::Paused { .. } => CODE_INTERRUPT_PENDING,
            ResumeRefused::Mismatch(_) => CODE_RESUME_MISMATCH,
        }
    }
}

#[derive(Debug, Default)]
struct Paused {
    pending: Vec<Interrupt>,
    /// The resume that answered the interrupts last (for replays).
    answered: Vec<ResumeEntry>,
}

/// The open interrupts of each thread (see the [module docs](self)). Share it between runs
/// (it is `Sync`; wrap it in an `Arc`). It holds a thread until its interrupts are
/// answered; a thread whose last run finished without interrupts holds only the resume
/// that answered it.
#[derive(Debug, Default)]
pub struct InterruptTracker {
    threads: Mutex<HashMap<ThreadId, Paused>>,
}

impl InterruptTracker {
    /// No thread is paused.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn threads(&self) -> MutexGuard<'_, HashMap<ThreadId, Paused>> {
        crate::sync::lock(&self.threads)
    }

    /// The open interrupts of `thread`.
    #[must_use]
    pub fn pending(&self, thread: &ThreadId) -> Vec<Interrupt> {
        self.threads()
            .get(thread)
            .map(|p| p.pending.clone())
            .unwrap_or_default()
    }

    /// Whether `input` may run on its thread.
    ///
    /// # Errors
    /// [`ResumeRefused::Paused`] for an input without a resume on a paused thread;
    /// [`ResumeRefused::Mismatch`] for a resume that does not answer exactly the open
    /// interrupts (or that resumes a thread that is not paused, unless it replays the
    /// resume that answered it last).
    pub fn admit(&self, input: &RunAgentInput) -> Result<Admission, ResumeRefused> {
        let resume = input.resume.as_deref().unwrap_or_default();
        let threads = self.threads();
        let paused = threads.get(&input.thread_id);
        let pending = paused.map(|p| p.pending.as_slice()).unwrap_or_default();
        if resume.is_empty() {
            return if pending.is_empty() {
                Ok(Admission::Run)
            } else {
                Err(ResumeRefused::Paused {
                    pending: pending.iter().map(|i| i.id.clone()).collect(),
                })
            };
        }
        if pending.is_empty() && paused.is_some_and(|p| p.answered.as_slice() == resume) {
            return Ok(Admission::Replay);
        }
        check_resume(pending, resume).map_err(ResumeRefused::Mismatch)?;
        Ok(Admission::Resume)
    }

    /// Updates the thread of `input` with an event of its run: a `RUN_FINISHED` with an
    /// interrupt outcome pauses the thread on those interrupts; any other `RUN_FINISHED`
    /// leaves it unpaused (its resume, if any, answered the interrupts). A `RUN_ERROR`
    /// changes nothing: interrupts stay open until a run answers them.
    pub fn observe(&self, input: &RunAgentInput, event: &Event) {
        let Event::RunFinished(finished) = event else {
            return;
        };
        let mut threads = self.threads();
        let entry = threads.entry(input.thread_id.clone()).or_default();
        if let Some(resume) = input.resume.as_ref().filter(|r| !r.is_empty()) {
            entry.answered.clone_from(resume);
        }
        entry.pending = match finished.outcome.as_ref() {
            Some(RunFinishedOutcome::Interrupt(i)) => i.interrupts.iter().cloned().collect(),
            _ => Vec::new(),
        };
        if entry.pending.is_empty() && entry.answered.is_empty() {
            threads.remove(&input.thread_id);
        }
    }

    /// `stream`, the run of `input`, with its events observed as they pass
    /// ([`observe`](Self::observe)).
    pub fn track(self: &Arc<Self>, input: &RunAgentInput, stream: AgentStream) -> AgentStream {
        Box::pin(Tracked {
            tracker: Arc::clone(self),
            input: input.clone(),
            stream,
        })
    }
}

struct Tracked {
    tracker: Arc<InterruptTracker>,
    input: RunAgentInput,
    stream: AgentStream,
}

impl Stream for Tracked {
    type Item = <AgentStream as Stream>::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let item = this.stream.as_mut().poll_next(cx);
        if let Poll::Ready(Some(Ok(event))) = &item {
            this.tracker.observe(&this.input, event);
        }
        item
    }
}
