//! Run and subagent outcomes.

use crate::codec::wire::{tagged_union, wire_struct};
use crate::model::id::{InterruptId, ToolCallId};
use crate::model::interrupt::Interrupt;

wire_struct! {
    /// `RunFinishedSuccessOutcome` (`type: "success"`): the run completed; it may still have
    /// left frontend tool calls for the application to answer.
    pub struct RunFinishedSuccessOutcome ["type" = "success"] {
        required {}
        optional {
            /// Frontend tool calls started in this run but never answered, in call order.
            pending_tool_call_ids / with_pending_tool_call_ids: Vec<ToolCallId> = "pendingToolCallIds" [Absent],
        }
    }
}

wire_struct! {
    /// `RunFinishedInterruptOutcome` (`type: "interrupt"`): the run paused; resume with a new
    /// run whose `resume` answers every interrupt. `interrupts` must not be empty (checked on
    /// read and on write).
    pub struct RunFinishedInterruptOutcome ["type" = "interrupt"] {
        required {
            /// The interrupts (at least one).
            interrupts: NonEmpty<Interrupt> = "interrupts" ("a non-empty array of Interrupt objects"),
        }
        optional {}
    }
}

wire_struct! {
    /// `RunFinishedCancelledOutcome` (`type: "cancelled"`): stopped by whoever ran it; not an
    /// error and not resumable.
    pub struct RunFinishedCancelledOutcome ["type" = "cancelled"] {
        required {}
        optional {}
    }
}

tagged_union! {
    /// `RunFinishedOutcome`: how a run ended, tagged by `type`. An absent outcome means success.
    pub enum RunFinishedOutcome ["type", "run outcome type"] {
        /// Completed.
        Success(RunFinishedSuccessOutcome) = "success",
        /// Paused on interrupts.
        Interrupt(RunFinishedInterruptOutcome) = "interrupt",
        /// Cancelled.
        Cancelled(RunFinishedCancelledOutcome) = "cancelled",
    }
}

impl RunFinishedOutcome {
    /// A plain success.
    #[must_use]
    pub fn success() -> Self {
        Self::Success(RunFinishedSuccessOutcome::new())
    }

    /// A pause on `interrupts`; `None` when the list is empty (an interrupt outcome needs at
    /// least one).
    #[must_use]
    pub fn interrupt(interrupts: Vec<Interrupt>) -> Option<Self> {
        NonEmpty::new(interrupts).map(|i| Self::Interrupt(RunFinishedInterruptOutcome::new(i)))
    }

    /// A cancellation.
    #[must_use]
    pub fn cancelled() -> Self {
        Self::Cancelled(RunFinishedCancelledOutcome::new())
    }

    /// The interrupts the run paused on; empty unless the outcome is `interrupt`.
    #[must_use]
    pub fn interrupts(&self) -> &[Interrupt] {
        match self {
            Self::Interrupt(i) => &i.interrupts,
            _ => &[],
        }
    }
}

/// A list with at least one element (`minItems: 1` on the wire).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schemars", schemars(transparent, extend("minItems" = 1)))]
#[non_exhaustive]
pub struct NonEmpty<T>(Vec<T>);

impl<T> NonEmpty<T> {
    /// Wraps `items` when there is at least one.
    #[must_use]
    pub fn new(items: Vec<T>) -> Option<Self> {
        if items.is_empty() {
            None
        } else {
            Some(Self(items))
        }
    }

    /// A list of one.
    #[must_use]
    pub fn one(item: T) -> Self {
        Self(vec![item])
    }

    /// The first element.
    #[must_use]
    pub fn first(&self) -> &T {
        &self.0[0]
    }

    /// Appends an element.
    pub fn push(&mut self, item: T) {
        self.0.push(item);
    }

    /// The elements.
    #[must_use]
    pub fn into_vec(self) -> Vec<T> {
        self.0
    }
}

impl<T> std::ops::Deref for NonEmpty<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T> std::ops::DerefMut for NonEmpty<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T> From<T> for NonEmpty<T> {
    fn from(item: T) -> Self {
        Self::one(item)
    }
}

impl<T> TryFrom<Vec<T>> for NonEmpty<T> {
    type Error = Vec<T>;
    fn try_from(v: Vec<T>) -> Result<Self, Vec<T>> {
        if v.is_empty() { Err(v) } else { Ok(Self(v)) }
    }
}

impl<T: crate::codec::wire::Wire> crate::codec::wire::Wire for NonEmpty<T> {
    type Proxy = NonEmptyProxy<T>;
    fn from_proxy(p: NonEmptyProxy<T>) -> Self {
        NonEmpty(p.0)
    }
    fn write<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.write(s)
    }
    fn encode(
        &self,
        out: &mut crate::codec::write::Out<'_>,
    ) -> Result<(), crate::codec::write::Refused> {
        self.0.encode(out)
    }
}

/// Reads a [`NonEmpty`] list.
#[doc(hidden)]
pub(crate) struct NonEmptyProxy<T>(Vec<T>);

impl<'de, T: crate::codec::wire::Wire> serde::Deserialize<'de> for NonEmptyProxy<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = crate::codec::wire::SeqProxy::<T>::deserialize(d)?.0;
        if v.is_empty() {
            return Err(serde::de::Error::custom(
                "expected at least one item, found an empty array",
            ));
        }
        Ok(Self(v))
    }
}

wire_struct! {
    /// `SubagentFinishedSuccessOutcome` (`type: "success"`): the invocation completed.
    pub struct SubagentFinishedSuccessOutcome ["type" = "success"] {
        required {}
        optional {}
    }
}

wire_struct! {
    /// `SubagentFinishedSuspendedOutcome` (`type: "suspended"`): terminal for this stream, not
    /// for the subagent; a later run may continue the invocation once its interrupts are answered.
    pub struct SubagentFinishedSuspendedOutcome ["type" = "suspended"] {
        required {}
        optional {
            /// `Interrupt.id`s this subagent raised itself (may be absent when a descendant interrupted).
            interrupt_ids / with_interrupt_ids: Vec<InterruptId> = "interruptIds" [Absent],
        }
    }
}

tagged_union! {
    /// `SubagentFinishedOutcome`: how a subagent invocation's segment ended. Absent = success.
    pub enum SubagentFinishedOutcome ["type", "subagent outcome type"] {
        /// Completed.
        Success(SubagentFinishedSuccessOutcome) = "success",
        /// Suspended on interrupts.
        Suspended(SubagentFinishedSuspendedOutcome) = "suspended",
    }
}
