//! `SUBAGENT_*` short forms.

use ag_ui_core::{SubagentErrorEvent, SubagentFinishedEvent, SubagentRunId, SubagentStartedEvent};

/// `SUBAGENT_STARTED(subagent_run_id, name)`.
#[must_use]
pub fn subagent_started(
    subagent_run_id: impl Into<SubagentRunId>,
    name: impl Into<String>,
) -> SubagentStartedEvent {
    SubagentStartedEvent::new(subagent_run_id, name)
}

/// `SUBAGENT_FINISHED(subagent_run_id)`; the outcome is left absent, which means success
/// (add `.with_outcome(crate::outcome::subagent_suspended(..))` for a suspension).
#[must_use]
pub fn subagent_finished(subagent_run_id: impl Into<SubagentRunId>) -> SubagentFinishedEvent {
    SubagentFinishedEvent::new(subagent_run_id)
}

/// `SUBAGENT_ERROR(subagent_run_id, message)`.
#[must_use]
pub fn subagent_error(
    subagent_run_id: impl Into<SubagentRunId>,
    message: impl Into<String>,
) -> SubagentErrorEvent {
    SubagentErrorEvent::new(subagent_run_id, message)
}
