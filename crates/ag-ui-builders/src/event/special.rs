//! `RAW`, `CUSTOM` short forms.

use ag_ui_core::{CustomEvent, RawEvent};
use serde_json::Value;

/// `RAW(event)`: a provider-native event passed through (add `.with_source(..)`).
#[must_use]
pub fn raw(event: impl Into<Value>) -> RawEvent {
    RawEvent::new(event.into())
}

/// `CUSTOM(name, value)`; `value` may be `null`.
#[must_use]
pub fn custom(name: impl Into<String>, value: impl Into<Value>) -> CustomEvent {
    CustomEvent::new(name, value.into())
}
