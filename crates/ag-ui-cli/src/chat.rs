//! `ag-ui chat`.

use crate::cli::ChatArgs;
use crate::exit::Exit;

/// Runs `ag-ui chat`.
pub(crate) async fn chat(_args: ChatArgs) -> Exit {
    eprintln!("ag-ui chat: not available yet");
    Exit::Usage
}
