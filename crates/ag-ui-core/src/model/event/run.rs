//! `RUN_STARTED`, `RUN_FINISHED`, `RUN_ERROR` (run-scoped: no `subagentRunId`).

use serde_json::Value;

use super::macros::event_struct;
use crate::model::id::{RunId, ThreadId};
use crate::model::input::RunAgentInput;
use crate::model::outcome::RunFinishedOutcome;
use crate::model::usage::TokenUsage;

event_struct! {
    /// `RUN_STARTED`: opens a run.
    pub struct RunStartedEvent = "RUN_STARTED" [base] {
        required {
            /// Conversation id.
            thread_id: ThreadId = "threadId" ("a thread id string"),
            /// Run id.
            run_id: RunId = "runId" ("a run id string"),
        }
        optional {
            /// The producer's own protocol version (`"1.0"`), not an echo of the input's.
            protocol_version / with_protocol_version: String = "protocolVersion" [Absent],
            /// Spawning or branched-from run.
            parent_run_id / with_parent_run_id: RunId = "parentRunId" [Absent],
            /// Echo of the request (may omit messages already in history).
            input / with_input: Box<RunAgentInput> = "input" [Absent],
        }
    }
}

event_struct! {
    /// `RUN_FINISHED`: closes a run that did not fail.
    pub struct RunFinishedEvent = "RUN_FINISHED" [base] {
        required {
            /// Conversation id.
            thread_id: ThreadId = "threadId" ("a thread id string"),
            /// Run being closed.
            run_id: RunId = "runId" ("a run id string"),
        }
        optional {
            /// Run return value, any JSON.
            result / with_result: Value = "result" [Absent],
            /// How the run ended; absent means success (see [`Self::outcome`]).
            outcome / with_outcome: RunFinishedOutcome = "outcome" [Absent],
            /// One entry per (provider, model), covering every call of the run.
            usage / with_usage: Vec<TokenUsage> = "usage" [Absent],
        }
    }
}

impl RunFinishedEvent {
    /// The outcome, with absence read as the success it means.
    #[must_use]
    pub fn outcome(&self) -> std::borrow::Cow<'_, RunFinishedOutcome> {
        match &self.outcome {
            Some(o) => std::borrow::Cow::Borrowed(o),
            None => std::borrow::Cow::Owned(RunFinishedOutcome::success()),
        }
    }

    /// The interrupts the run paused on (each to be answered by the next run's `resume`);
    /// empty unless the outcome is `interrupt`.
    #[must_use]
    pub fn interrupts(&self) -> &[crate::model::interrupt::Interrupt] {
        self.outcome
            .as_ref()
            .map_or(&[], RunFinishedOutcome::interrupts)
    }
}

event_struct! {
    /// `RUN_ERROR`: ends a run that failed; nothing may follow it in that run.
    pub struct RunErrorEvent = "RUN_ERROR" [base] {
        required {
            /// Human-readable error.
            message: String = "message" ("a string"),
        }
        optional {
            /// Machine code; an open string.
            code / with_code: String = "code" [Absent],
            /// Usage accrued before the failure.
            usage / with_usage: Vec<TokenUsage> = "usage" [Absent],
        }
    }
}
