//! Integration tests of ag-ui-builders.
#![allow(clippy::unwrap_used, clippy::panic, reason = "tests fail by panicking")]

mod conversation;
mod emitter;
mod errors_doc;
mod layout;
mod next_run;
mod short_forms;
mod state;
mod support;
#[cfg(feature = "schemars")]
mod typed;
mod usage;

use ag_ui_builders::event::example;
use ag_ui_core::EventType;

#[test]
fn every_event_type_has_a_short_form() {
    let missing: Vec<_> = EventType::ALL
        .iter()
        .filter(|&&t| !matches!(example(t), Ok(e) if e.event_type() == t))
        .collect();
    assert!(
        missing.is_empty(),
        "event types without a short form: {missing:?}"
    );
}

/// The string member `key` of the fixture `def/case` (to reuse its ids verbatim).
fn fixture_string(def: &str, case: &str, key: &str) -> String {
    support::fixture(def, case)[key]
        .as_str()
        .unwrap()
        .to_owned()
}
