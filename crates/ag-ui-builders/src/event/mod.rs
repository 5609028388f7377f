//! Short forms for every event, one per event, by protocol area: each takes the event's
//! required fields and leaves the rest absent (absent `role` on `TEXT_MESSAGE_START` means
//! `assistant`, absent `replace` on `ACTIVITY_SNAPSHOT` means `true`, absent `outcome` on
//! `RUN_FINISHED` means success); `REASONING_MESSAGE_START` gets the `reasoning` role the
//! wire requires and `RUN_STARTED` declares `protocolVersion: "1.0"`. Optional fields are
//! set with the events' own `.with_*(..)` setters.
//!
//! ```
//! use ag_ui_builders::event::*;
//! use ag_ui_core::Event;
//!
//! let events: Vec<Event> = vec![
//!     run_started("thread-1", "run-1").into(),
//!     text_message_start("msg-1").into(),
//!     text_message_content("msg-1", "Hello").into(),
//!     text_message_end("msg-1").into(),
//!     run_finished_success("thread-1", "run-1").into(),
//! ];
//! assert_eq!(events.len(), 5);
//! ```

mod activity;
mod reasoning;
mod run;
mod special;
mod state;
mod step;
mod subagent;
mod text_message;
mod tool_call;

pub use activity::{activity_delta, activity_snapshot};
pub use reasoning::{
    message_encrypted_value, reasoning_encrypted_value, reasoning_end, reasoning_message_chunk,
    reasoning_message_content, reasoning_message_end, reasoning_message_start, reasoning_start,
    tool_call_encrypted_value, typed_encrypted_value,
};
pub use run::{
    run_error, run_finished, run_finished_cancelled, run_finished_interrupt, run_finished_success,
    run_started,
};
pub use special::{custom, raw};
pub use state::{messages_snapshot, state_delta, state_snapshot, state_snapshot_of};
pub use step::{step_finished, step_started};
pub use subagent::{subagent_error, subagent_finished, subagent_started};
pub use text_message::{
    text_message_chunk, text_message_chunk_continue, text_message_content, text_message_end,
    text_message_start,
};
pub use tool_call::{
    tool_call_args, tool_call_chunk, tool_call_chunk_continue, tool_call_end, tool_call_result,
    tool_call_start,
};

use ag_ui_core::{Event, EventType, JsonPatchOperation};
use serde_json::json;

use crate::error::BuildError;
use crate::message::user_message;

/// A small valid event of type `event_type`, built only from the short forms above (ids in
/// the style of the spec's examples: `thread-1`, `run-1`, `msg-1`, `call_1`, `rsn-1`,
/// `act-1`, `sub-1`). Useful for demos, for tests of consumers, and as the proof that every
/// event type has a short form.
///
/// ```
/// use ag_ui_builders::event::example;
/// use ag_ui_core::EventType;
///
/// for &t in EventType::ALL {
///     assert_eq!(example(t)?.event_type(), t);
/// }
/// # Ok::<(), ag_ui_builders::BuildError>(())
/// ```
///
/// # Errors
/// [`BuildError::NoShortForm`] for an event type this version does not know.
pub fn example(event_type: EventType) -> Result<Event, BuildError> {
    let (thread, run, msg, call) = ("thread-1", "run-1", "msg-1", "call_1");
    Ok(match event_type {
        EventType::TextMessageStart => text_message_start(msg).into(),
        EventType::TextMessageContent => text_message_content(msg, "Hello").into(),
        EventType::TextMessageEnd => text_message_end(msg).into(),
        EventType::TextMessageChunk => text_message_chunk(msg, "Hello").into(),
        EventType::ToolCallStart => tool_call_start(call, "get_weather").into(),
        EventType::ToolCallArgs => tool_call_args(call, r#"{"city":"Paris"}"#).into(),
        EventType::ToolCallEnd => tool_call_end(call).into(),
        EventType::ToolCallChunk => {
            tool_call_chunk(call, "get_weather", r#"{"city":"Paris"}"#).into()
        }
        EventType::ToolCallResult => {
            tool_call_result("tool-msg-1", call, r#"{"temperature":14}"#).into()
        }
        EventType::StateSnapshot => state_snapshot(json!({"count": 1})).into(),
        EventType::StateDelta => state_delta([JsonPatchOperation::replace("/count", 2)])?.into(),
        EventType::MessagesSnapshot => {
            messages_snapshot([user_message("user-1", "Hello!").into()]).into()
        }
        EventType::ActivitySnapshot => {
            activity_snapshot("act-1", "PLAN", &json!({"steps": []}))?.into()
        }
        EventType::ActivityDelta => activity_delta(
            "act-1",
            "PLAN",
            [JsonPatchOperation::add(
                "/steps/-",
                json!({"title": "Search"}),
            )],
        )?
        .into(),
        EventType::Raw => raw(json!({"type": "response.output_text.delta", "delta": "Hi"})).into(),
        EventType::Custom => custom("on_interrupt", json!({"message": "Approve?"})).into(),
        EventType::RunStarted => run_started(thread, run).into(),
        EventType::RunFinished => run_finished_success(thread, run).into(),
        EventType::RunError => run_error("Model provider timed out").into(),
        EventType::StepStarted => step_started("plan").into(),
        EventType::StepFinished => step_finished("plan").into(),
        EventType::ReasoningStart => reasoning_start("rsn-1").into(),
        EventType::ReasoningMessageStart => reasoning_message_start("rsn-1").into(),
        EventType::ReasoningMessageContent => {
            reasoning_message_content("rsn-1", "Let me think").into()
        }
        EventType::ReasoningMessageEnd => reasoning_message_end("rsn-1").into(),
        EventType::ReasoningMessageChunk => reasoning_message_chunk("rsn-1", "Let me think").into(),
        EventType::ReasoningEnd => reasoning_end("rsn-1").into(),
        EventType::ReasoningEncryptedValue => message_encrypted_value("rsn-1", "gAAAA").into(),
        EventType::SubagentStarted => subagent_started("sub-1", "researcher").into(),
        EventType::SubagentFinished => subagent_finished("sub-1").into(),
        EventType::SubagentError => subagent_error("sub-1", "Tool crashed").into(),
        other => return Err(BuildError::NoShortForm(other)),
    })
}
