//! The exit codes, in one place.

use std::process::ExitCode;

/// How the process ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// The run succeeded; the check found no error.
    Ok,
    /// `check`: at least one error-level finding.
    Findings,
    /// `run`: the agent ended the run with `RUN_ERROR`.
    RunError,
    /// `run`: the run finished with an `interrupt` outcome.
    Interrupt,
    /// `run`: the run finished with the `cancelled` outcome.
    Cancelled,
    /// The server could not be reached, answered with a failure, or the stream broke
    /// before a terminal event.
    Transport,
    /// Bad usage: an unknown flag, a missing argument, an unreadable input file.
    Usage,
}

impl Exit {
    /// The process exit status.
    pub(crate) fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Findings => 1,
            Exit::RunError => 2,
            Exit::Interrupt => 3,
            Exit::Cancelled => 4,
            Exit::Transport => 5,
            Exit::Usage => 64,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> Self {
        ExitCode::from(e.code())
    }
}
