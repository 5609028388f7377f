//! Human-in-the-loop: `Interrupt`, `ResumeEntry` and `ResumeStatus`.

use serde_json::{Map, Value};

use crate::codec::wire::{wire_enum, wire_struct};
use crate::model::id::{InterruptId, SubagentRunId, ToolCallId};
use crate::model::metadata::Metadata;

/// Core `Interrupt.reason`: the run waits for a tool call to be approved (should carry `toolCallId`).
pub const REASON_TOOL_CALL: &str = "tool_call";
/// Core `Interrupt.reason`: the run needs input (should carry `responseSchema`).
pub const REASON_INPUT_REQUIRED: &str = "input_required";
/// Core `Interrupt.reason`: the run asks for a confirmation.
pub const REASON_CONFIRMATION: &str = "confirmation";

wire_struct! {
    /// `Interrupt`: something the run needs from outside before it can continue; carried only
    /// inside a `RunFinishedInterruptOutcome`.
    pub struct Interrupt {
        required {
            /// Correlation key; a `ResumeEntry` answers it by `interruptId`.
            id: InterruptId = "id" ("an interrupt id string"),
            /// Open string; core values `tool_call`, `input_required`, `confirmation`; custom
            /// reasons are namespaced `<framework>:<name>`.
            reason: String = "reason" ("a string"),
        }
        optional {
            /// Subagent invocation this item belongs to (it produced the event, owns the message or
            /// raised the interrupt); absent = the parent agent. Never `null`.
            subagent_run_id / with_subagent_run_id: SubagentRunId = "subagentRunId" [Reject],
            /// Human-readable prompt (universal fallback UI).
            message / with_message: String = "message" [Absent],
            /// Tool call this interrupt gates (tool approval).
            tool_call_id / with_tool_call_id: ToolCallId = "toolCallId" [Absent],
            /// JSON Schema the resume payload should satisfy (a JSON object).
            response_schema / with_response_schema: Map<String, Value> = "responseSchema" [Absent],
            /// Expiry, conventionally ISO-8601 (not validated).
            expires_at / with_expires_at: String = "expiresAt" [Absent],
            /// Framework-specific data (e.g. checkpoint ids).
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
    }
}

wire_enum! {
    /// `ResumeStatus`: how a `ResumeEntry` answers its interrupt.
    pub enum ResumeStatus ["resume status"] {
        /// The payload carries the answer (a denial is expressed inside the payload).
        Resolved = "resolved",
        /// The interrupt is cancelled; the payload should be omitted.
        Cancelled = "cancelled",
    }
}

wire_struct! {
    /// `ResumeEntry`: one answer inside `RunAgentInput.resume`.
    pub struct ResumeEntry {
        required {
            /// Id of the interrupt being answered.
            interrupt_id: InterruptId = "interruptId" ("an interrupt id string"),
            /// `resolved` or `cancelled`.
            status: ResumeStatus = "status" ("\"resolved\" or \"cancelled\""),
        }
        optional {
            /// The answer, any JSON.
            payload / with_payload: Value = "payload" [Absent],
            /// Envelope data (signatures, routing keys), not the answer; no merge semantics.
            metadata / with_metadata: Metadata = "metadata" [Absent],
        }
    }
}

/// Why a resume does not answer a thread's open interrupts (spec §9.2: a resume answers
/// **every** open interrupt, by `interruptId`, once; no partial resumes). Returned by
/// [`check_resume`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeMismatch {
    /// The thread has no open interrupt.
    #[error("there is no pending interrupt to resume")]
    NothingPending,
    /// Open interrupts the resume does not answer.
    #[error(
        "a resume must answer every pending interrupt; unanswered: {}",
        join(.0)
    )]
    Unanswered(Vec<InterruptId>),
    /// Entries answering interrupts that are not open, with their index in the resume.
    #[error(
        "the resume answers interrupts that are not pending: {}",
        join(&.0.iter().map(|(_, id)| id.clone()).collect::<Vec<_>>())
    )]
    NotPending(Vec<(usize, InterruptId)>),
    /// An interrupt answered twice: the index of the second entry.
    #[error("the resume answers interrupt {1} twice (again at /resume/{0})")]
    AnsweredTwice(usize, InterruptId),
}

fn join(ids: &[InterruptId]) -> String {
    ids.iter()
        .map(InterruptId::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

impl ResumeMismatch {
    /// The JSON Pointer, in the `RunAgentInput`, of what is wrong: `/resume` (nothing to
    /// resume, or interrupts left unanswered) or `/resume/<i>/interruptId` (the first entry
    /// that answers no open interrupt, or answers one again).
    #[must_use]
    pub fn pointer(&self) -> String {
        match self {
            ResumeMismatch::NothingPending | ResumeMismatch::Unanswered(_) => "/resume".to_owned(),
            ResumeMismatch::NotPending(entries) => entries.first().map_or_else(
                || "/resume".to_owned(),
                |(i, _)| format!("/resume/{i}/interruptId"),
            ),
            ResumeMismatch::AnsweredTwice(i, _) => format!("/resume/{i}/interruptId"),
        }
    }
}

/// Checks that `resume` answers exactly the `pending` interrupts: each open interrupt once,
/// nothing else (spec §9.2). What a client checks before it sends a resume and a server
/// before it accepts one.
///
/// ```
/// use ag_ui_core::{Interrupt, ResumeEntry, ResumeMismatch, ResumeStatus, check_resume};
///
/// let pending = [Interrupt::new("int-1", "tool_call"), Interrupt::new("int-2", "confirmation")];
/// let both = [
///     ResumeEntry::new("int-1", ResumeStatus::Resolved),
///     ResumeEntry::new("int-2", ResumeStatus::Cancelled),
/// ];
/// assert_eq!(check_resume(&pending, &both), Ok(()));
///
/// let partial = [ResumeEntry::new("int-1", ResumeStatus::Resolved)];
/// let err = check_resume(&pending, &partial).unwrap_err();
/// assert_eq!(err, ResumeMismatch::Unanswered(vec!["int-2".into()]));
/// assert_eq!(err.pointer(), "/resume");
/// ```
///
/// # Errors
/// The first mismatch, in this order: [`ResumeMismatch::NothingPending`],
/// [`ResumeMismatch::AnsweredTwice`], [`ResumeMismatch::NotPending`],
/// [`ResumeMismatch::Unanswered`].
pub fn check_resume(pending: &[Interrupt], resume: &[ResumeEntry]) -> Result<(), ResumeMismatch> {
    if pending.is_empty() {
        return Err(ResumeMismatch::NothingPending);
    }
    for (i, entry) in resume.iter().enumerate() {
        if resume[..i]
            .iter()
            .any(|e| e.interrupt_id == entry.interrupt_id)
        {
            return Err(ResumeMismatch::AnsweredTwice(i, entry.interrupt_id.clone()));
        }
    }
    let unknown: Vec<(usize, InterruptId)> = resume
        .iter()
        .enumerate()
        .filter(|(_, r)| !pending.iter().any(|i| i.id == r.interrupt_id))
        .map(|(n, r)| (n, r.interrupt_id.clone()))
        .collect();
    if !unknown.is_empty() {
        return Err(ResumeMismatch::NotPending(unknown));
    }
    let missing: Vec<InterruptId> = pending
        .iter()
        .filter(|i| !resume.iter().any(|r| r.interrupt_id == i.id))
        .map(|i| i.id.clone())
        .collect();
    if !missing.is_empty() {
        return Err(ResumeMismatch::Unanswered(missing));
    }
    Ok(())
}
