//! `STEP_STARTED`, `STEP_FINISHED` short forms.

use ag_ui_core::{StepFinishedEvent, StepStartedEvent};

/// `STEP_STARTED(step_name)`.
#[must_use]
pub fn step_started(step_name: impl Into<String>) -> StepStartedEvent {
    StepStartedEvent::new(step_name)
}

/// `STEP_FINISHED(step_name)`.
#[must_use]
pub fn step_finished(step_name: impl Into<String>) -> StepFinishedEvent {
    StepFinishedEvent::new(step_name)
}
