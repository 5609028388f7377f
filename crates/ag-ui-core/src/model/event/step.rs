//! `STEP_STARTED`, `STEP_FINISHED`.

use super::macros::event_struct;

event_struct! {
    /// `STEP_STARTED`: opens a named step (e.g. a graph node).
    pub struct StepStartedEvent = "STEP_STARTED" [attributable] {
        required {
            /// Step name; the matching `STEP_FINISHED` repeats it.
            step_name: String = "stepName" ("a string"),
        }
        optional {}
    }
}

event_struct! {
    /// `STEP_FINISHED`: closes the step with the same name and owner.
    pub struct StepFinishedEvent = "STEP_FINISHED" [attributable] {
        required {
            /// Step being closed.
            step_name: String = "stepName" ("a string"),
        }
        optional {}
    }
}
