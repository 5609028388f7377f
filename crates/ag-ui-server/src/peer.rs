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
//! Everything else is sent as the agent produced it, in the caller's protocol version
//! ([`downgrade_for_version`]: 1.0 for such a caller).

use ag_ui_core::{Event, ProtocolVersion, RunFinishedOutcome, Versioned, Warning};

/// Sends `event` in `peer`'s protocol version: what that version does not know is left out
/// (returned, one warning per member), and a `RUN_STARTED` declaring a newer version
/// declares `peer` instead, since the stream it starts now speaks `peer` (a producer that
/// translates down declares what it emits). For [`ProtocolVersion::LATEST`] nothing
/// changes.
pub(crate) fn downgrade_for_version(event: &mut Event, peer: ProtocolVersion) -> Vec<Warning> {
    if peer >= ProtocolVersion::LATEST {
        return Vec::new();
    }
    if let Event::RunStarted(e) = event
        && e.protocol_version
            .as_deref()
            .and_then(ProtocolVersion::parse)
            .is_some_and(|declared| declared > peer)
    {
        e.protocol_version = Some(peer.to_string());
    }
    event.downgrade(peer)
}

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
