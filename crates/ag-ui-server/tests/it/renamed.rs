//! The first release's names still compile (deprecated, hidden from the docs).
#![allow(deprecated)]

use ag_ui_core::RunAgentInput;
use ag_ui_server::{Cancellation, EventStream, RunOptions, read_input};

fn old_agent(_input: RunAgentInput, _cancel: Cancellation) -> EventStream {
    Box::pin(futures_util::stream::empty())
}

#[test]
fn old_names_are_the_new_items() {
    let options: RunOptions = ag_ui_server::GuardOptions::default();
    assert!(options.verify);
    let body = br#"{"threadId":"t","runId":"r","messages":[]}"#;
    let (input, _) = read_input(body, 1024).unwrap();
    assert_eq!(input.run_id.as_str(), "r");
    let _: ag_ui_server::AgentStream = old_agent(input, Cancellation::new());
    let boxed: ag_ui_server::BoxError = "x".into();
    let _: ag_ui_core::BoxError = boxed;
}
