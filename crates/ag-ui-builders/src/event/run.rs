//! `RUN_STARTED`, `RUN_FINISHED`, `RUN_ERROR` short forms and the outcome helpers.

use ag_ui_core::{
    Interrupt, PROTOCOL_VERSION, RunErrorEvent, RunFinishedEvent, RunId, RunStartedEvent, ThreadId,
};

use crate::error::BuildError;
use crate::outcome::{cancelled, interrupted, success};

/// `RUN_STARTED(thread_id, run_id)`, declaring the producer's `protocolVersion: "1.0"` (a
/// 1.0 producer must).
#[must_use]
pub fn run_started(thread_id: impl Into<ThreadId>, run_id: impl Into<RunId>) -> RunStartedEvent {
    RunStartedEvent::new(thread_id, run_id).with_protocol_version(PROTOCOL_VERSION)
}

/// `RUN_FINISHED(thread_id, run_id)` with no outcome (which means success).
#[must_use]
pub fn run_finished(thread_id: impl Into<ThreadId>, run_id: impl Into<RunId>) -> RunFinishedEvent {
    RunFinishedEvent::new(thread_id, run_id)
}

/// `RUN_FINISHED` with the explicit `success` outcome.
#[must_use]
pub fn run_finished_success(
    thread_id: impl Into<ThreadId>,
    run_id: impl Into<RunId>,
) -> RunFinishedEvent {
    run_finished(thread_id, run_id).with_outcome(success())
}

/// `RUN_FINISHED` with the `interrupt` outcome; it cannot be built without an interrupt.
///
/// # Errors
/// [`BuildError::NoInterrupts`] when `interrupts` is empty.
pub fn run_finished_interrupt(
    thread_id: impl Into<ThreadId>,
    run_id: impl Into<RunId>,
    interrupts: impl IntoIterator<Item = Interrupt>,
) -> Result<RunFinishedEvent, BuildError> {
    Ok(run_finished(thread_id, run_id).with_outcome(interrupted(interrupts)?))
}

/// `RUN_FINISHED` with the `cancelled` outcome.
#[must_use]
pub fn run_finished_cancelled(
    thread_id: impl Into<ThreadId>,
    run_id: impl Into<RunId>,
) -> RunFinishedEvent {
    run_finished(thread_id, run_id).with_outcome(cancelled())
}

/// `RUN_ERROR(message)` (add `.with_code(..)`, `.with_usage(..)`).
#[must_use]
pub fn run_error(message: impl Into<String>) -> RunErrorEvent {
    RunErrorEvent::new(message)
}
