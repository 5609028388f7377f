//! What the server sends a caller older than AG-UI 1.0.
//!
//! A request without `protocolVersion` comes from a pre-1.0 caller (spec §10): for
//! instance the `HttpAgent` of `@ag-ui/client` 0.0.x, which the CopilotKit runtime uses to
//! reach an agent. Such a client validates `RUN_FINISHED.outcome` against the two outcomes
//! it knows, each closed to the members it knows, and refuses the whole stream otherwise.
//! [`RunGuard::start`](crate::RunGuard::start) therefore downgrades what such a run sends,
//! only removing (never inventing, §10):
//!
//! - a success outcome loses `pendingToolCallIds` (the calls still left unanswered are in
//!   the stream: their `TOOL_CALL_START`s without a `TOOL_CALL_RESULT`);
//! - a `cancelled` outcome, which such a client does not know, is removed (an absent
//!   outcome is the only way left to end the run without an error).
//!
//! Everything else is sent as the agent produced it.

use ag_ui_core::{Event, RunFinishedOutcome};

/// `event` as a pre-1.0 caller can read it (see the module docs).
pub(crate) fn downgrade_for_pre_1_0(event: Event) -> Event {
    let Event::RunFinished(mut finished) = event else {
        return event;
    };
    match finished.outcome.take() {
        Some(RunFinishedOutcome::Success(mut success)) => {
            success.pending_tool_call_ids = None;
            finished.outcome = Some(RunFinishedOutcome::Success(success));
        }
        Some(RunFinishedOutcome::Cancelled(_)) => {}
        other => finished.outcome = other,
    }
    Event::RunFinished(finished)
}
