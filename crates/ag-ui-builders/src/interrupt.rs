//! Human in the loop: interrupts an agent raises ([`interrupt`], [`confirmation`],
//! [`tool_approval`], [`input_required`]) and the resume entries that answer them
//! ([`resolve`], [`cancel`], [`resume`], [`resolve_all`], [`cancel_all`]).
//!
//! ```
//! use ag_ui_builders::interrupt::{confirmation, resolve};
//! use serde_json::json;
//!
//! let ask = confirmation("int-1", "Delete 3 files?");
//! let answer = resolve(ask.id.clone(), json!({ "approved": true }));
//! assert_eq!(serde_json::to_value(&answer).unwrap()["interruptId"], "int-1");
//! ```

use ag_ui_core::{
    Interrupt, InterruptId, REASON_CONFIRMATION, REASON_INPUT_REQUIRED, REASON_TOOL_CALL,
    ResumeEntry, ResumeStatus, ToolCallId,
};
use serde_json::Value;

use crate::error::{BuildError, into_object};

/// An interrupt `(id, reason, message)`. `reason` is an open string; the core values are
/// `tool_call`, `input_required` and `confirmation` (see [`tool_approval`],
/// [`input_required`], [`confirmation`]).
#[must_use]
pub fn interrupt(
    id: impl Into<InterruptId>,
    reason: impl Into<String>,
    message: impl Into<String>,
) -> Interrupt {
    Interrupt::new(id, reason).with_message(message)
}

/// A `confirmation` interrupt asking `message`.
#[must_use]
pub fn confirmation(id: impl Into<InterruptId>, message: impl Into<String>) -> Interrupt {
    interrupt(id, REASON_CONFIRMATION, message)
}

/// A `tool_call` interrupt gating the call `tool_call_id` (tool approval), with the
/// `toolCallId` the reason calls for.
#[must_use]
pub fn tool_approval(
    id: impl Into<InterruptId>,
    tool_call_id: impl Into<ToolCallId>,
    message: impl Into<String>,
) -> Interrupt {
    interrupt(id, REASON_TOOL_CALL, message).with_tool_call_id(tool_call_id)
}

/// An `input_required` interrupt with the `responseSchema` the reason calls for.
///
/// # Errors
/// [`BuildError::NotAnObject`] at `/responseSchema` when the schema is not a JSON object (the
/// boolean schemas `true`/`false` are not allowed there).
pub fn input_required(
    id: impl Into<InterruptId>,
    message: impl Into<String>,
    response_schema: impl Into<Value>,
) -> Result<Interrupt, BuildError> {
    let schema = into_object(response_schema.into(), "/responseSchema")?;
    Ok(interrupt(id, REASON_INPUT_REQUIRED, message).with_response_schema(schema))
}

/// A resume entry `(interrupt_id, status, payload)`. A `None` or JSON `null` payload is
/// left out (a bare `null` payload is not valid on the wire).
#[must_use]
pub fn resume(
    interrupt_id: impl Into<InterruptId>,
    status: ResumeStatus,
    payload: impl Into<Option<Value>>,
) -> ResumeEntry {
    let entry = ResumeEntry::new(interrupt_id, status);
    match payload.into() {
        None | Some(Value::Null) => entry,
        Some(p) => entry.with_payload(p),
    }
}

/// A `resolved` resume entry carrying the answer.
#[must_use]
pub fn resolve(interrupt_id: impl Into<InterruptId>, payload: impl Into<Value>) -> ResumeEntry {
    resume(interrupt_id, ResumeStatus::Resolved, payload.into())
}

/// A `cancelled` resume entry (no payload, as the protocol asks).
#[must_use]
pub fn cancel(interrupt_id: impl Into<InterruptId>) -> ResumeEntry {
    resume(interrupt_id, ResumeStatus::Cancelled, None)
}

/// A `resolved` resume entry for every interrupt in `interrupts`, with the payload
/// `payload` gives for it (a JSON `null` payload is left out). Resuming must answer every
/// open interrupt (spec §9.2).
#[must_use]
pub fn resolve_all<'a>(
    interrupts: impl IntoIterator<Item = &'a Interrupt>,
    mut payload: impl FnMut(&Interrupt) -> Value,
) -> Vec<ResumeEntry> {
    interrupts
        .into_iter()
        .map(|i| resume(i.id.clone(), ResumeStatus::Resolved, payload(i)))
        .collect()
}

/// A `cancelled` resume entry for every interrupt in `interrupts`.
#[must_use]
pub fn cancel_all<'a>(interrupts: impl IntoIterator<Item = &'a Interrupt>) -> Vec<ResumeEntry> {
    interrupts
        .into_iter()
        .map(|i| cancel(i.id.clone()))
        .collect()
}
