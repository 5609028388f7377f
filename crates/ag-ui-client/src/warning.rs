//! What a run notes without failing: the warnings of the request, the stream and the
//! compatibility layer.

use std::fmt;

/// Something the client accepted or changed with a note: what the reader forgave (an
/// unknown field stripped, an unknown event dropped), what the reducer skipped, or what a
/// downgrade for an older agent removed. Never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunWarning {
    /// Where it came from.
    pub source: WarningSource,
    /// The 0-based index of the event concerned in the stream as the agent sent it, when
    /// the warning is about an event.
    pub event_index: Option<usize>,
    /// The `type` of that event, when known.
    pub event_type: Option<String>,
    /// The reader's or reducer's warning kind (`unknown-field`, `patch-failed`, …), when it
    /// has one.
    pub kind: Option<ag_ui_core::WarningKind>,
    /// A sentence saying what happened and where.
    pub message: String,
}

/// Where a [`RunWarning`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningSource {
    /// Building the request (an input read from JSON, a downgrade for an older agent).
    Request,
    /// Reading the stream (the reader, the pipeline, the reducer).
    Stream,
    /// The compatibility layer for an older agent dropped or changed an event.
    Compatibility,
    /// A resumable run's connection broke off and was joined again.
    Resume,
}

impl fmt::Display for RunWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A warning of the receiving pipeline or the reducer, as a run reports it.
pub(crate) fn stream_warning(w: ag_ui_core::Warning) -> RunWarning {
    RunWarning {
        source: WarningSource::Stream,
        event_index: w.event_index,
        event_type: w.event_type.map(|t| t.to_string()),
        kind: Some(w.kind),
        message: w.to_string(),
    }
}
