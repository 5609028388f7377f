//! `ag-ui check`.

use crate::cli::CheckArgs;
use crate::exit::Exit;

/// Runs `ag-ui check`.
pub(crate) async fn check(args: CheckArgs) -> Exit {
    eprintln!(
        "ag-ui check: not available yet (protocol {}, {})",
        args.protocol.as_str(),
        args.protocol.version()
    );
    if args.json {
        Exit::Findings
    } else {
        Exit::Usage
    }
}
