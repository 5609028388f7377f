//! `ag-ui record` and `ag-ui replay`.

use crate::cli::{RecordArgs, ReplayArgs};
use crate::exit::Exit;

/// Runs `ag-ui record`.
pub(crate) async fn record(_args: RecordArgs) -> Exit {
    eprintln!("ag-ui record: not available yet");
    Exit::Usage
}

/// Runs `ag-ui replay`.
pub(crate) async fn replay(_args: ReplayArgs) -> Exit {
    eprintln!("ag-ui replay: not available yet");
    Exit::Usage
}
