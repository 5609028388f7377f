//! Outcomes of a run (`RUN_FINISHED.outcome`: [`success`], [`success_pending`],
//! [`interrupted`], [`cancelled`]) and of a subagent (`SUBAGENT_FINISHED.outcome`:
//! [`subagent_success`], [`subagent_suspended`]).
//!
//! ```
//! use ag_ui_builders::event::run_finished;
//! use ag_ui_builders::outcome::success_pending;
//!
//! let finished = run_finished("thread-1", "run-1").with_outcome(success_pending(["call-1"]));
//! let json = serde_json::to_value(&finished).unwrap();
//! assert_eq!(json["outcome"]["pendingToolCallIds"][0], "call-1");
//! ```

use ag_ui_core::{
    Interrupt, InterruptId, NonEmpty, RunFinishedInterruptOutcome, RunFinishedOutcome,
    RunFinishedSuccessOutcome, SubagentFinishedOutcome, SubagentFinishedSuccessOutcome,
    SubagentFinishedSuspendedOutcome, ToolCallId,
};

use crate::error::BuildError;

/// The `success` outcome.
#[must_use]
pub fn success() -> RunFinishedOutcome {
    RunFinishedOutcome::success()
}

/// The `success` outcome naming frontend tool calls left unanswered (an empty list is left
/// out: it means the same as absence).
#[must_use]
pub fn success_pending(
    pending_tool_call_ids: impl IntoIterator<Item = impl Into<ToolCallId>>,
) -> RunFinishedOutcome {
    let ids: Vec<ToolCallId> = pending_tool_call_ids.into_iter().map(Into::into).collect();
    if ids.is_empty() {
        success()
    } else {
        RunFinishedOutcome::Success(
            RunFinishedSuccessOutcome::new().with_pending_tool_call_ids(ids),
        )
    }
}

/// The `interrupt` outcome; it cannot be built without at least one interrupt.
///
/// # Errors
/// [`BuildError::NoInterrupts`] when `interrupts` is empty; [`BuildError::DuplicateInterrupt`] when
/// two of them carry the same id.
pub fn interrupted(
    interrupts: impl IntoIterator<Item = Interrupt>,
) -> Result<RunFinishedOutcome, BuildError> {
    let list: Vec<Interrupt> = interrupts.into_iter().collect();
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = list.iter().find(|i| !seen.insert(i.id.as_str())) {
        return Err(BuildError::DuplicateInterrupt {
            id: dup.id.as_str().to_owned(),
        });
    }
    let list = NonEmpty::new(list).ok_or(BuildError::NoInterrupts)?;
    Ok(RunFinishedOutcome::Interrupt(
        RunFinishedInterruptOutcome::new(list),
    ))
}

/// The `cancelled` outcome.
#[must_use]
pub fn cancelled() -> RunFinishedOutcome {
    RunFinishedOutcome::cancelled()
}

/// The subagent `success` outcome.
#[must_use]
pub fn subagent_success() -> SubagentFinishedOutcome {
    SubagentFinishedOutcome::Success(SubagentFinishedSuccessOutcome::new())
}

/// The subagent `suspended` outcome naming the interrupts it raised itself (left out when
/// empty: a descendant interrupted).
#[must_use]
pub fn subagent_suspended(
    interrupt_ids: impl IntoIterator<Item = impl Into<InterruptId>>,
) -> SubagentFinishedOutcome {
    let ids: Vec<InterruptId> = interrupt_ids.into_iter().map(Into::into).collect();
    let outcome = SubagentFinishedSuspendedOutcome::new();
    SubagentFinishedOutcome::Suspended(if ids.is_empty() {
        outcome
    } else {
        outcome.with_interrupt_ids(ids)
    })
}
