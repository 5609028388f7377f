//! The rule catalogue (spec §9.1 and §9.3) and the error naming a broken rule.

use std::fmt;

use crate::model::event::EventType;

/// Defines [`Rule`] from the catalogue: each rule once, with its doc and the protocol area
/// of the event table whose events it governs (`any` for a rule about several areas).
macro_rules! rules {
    ($($(#[doc = $doc:literal])* $id:ident in $area:ident,)*) => {
        /// One event-stream rule: the lifecycle rules of spec §9.1 (`L1`…`O6`) and the chunk
        /// rules of spec §9.3 / §6 rule 11 (`C1`…`C3`).
        ///
        /// A [`Violation`] names the rule it breaks. [`Rule::as_str`] gives the id used by the
        /// spec and by the stream fixtures (`"L1"`, `"O6"`, `"C2"`, …).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Rule {
            $($(#[doc = $doc])* $id,)*
        }

        impl Rule {
            /// Every rule, in catalogue order.
            pub const ALL: [Rule; [$(stringify!($id)),*].len()] = [$(Rule::$id),*];

            /// The rule's id as the spec writes it (`"L1"`, …, `"C3"`).
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Rule::$id => stringify!($id),)*
                }
            }

            /// The protocol area whose events the rule governs (an area of the event
            /// table, [`EventType::area`]), or `None` for a rule about events of several
            /// areas (attribution, chunks, text messages and tool calls together).
            #[must_use]
            pub const fn area(self) -> Option<&'static str> {
                match self {
                    $(Rule::$id => rules!(@area $area),)*
                }
            }
        }

        // Each rule's area is one of the event table's, checked when the crate compiles.
        const _: () = {
            $(assert!(
                is_event_area(rules!(@area $area)),
                concat!("rule ", stringify!($id), ": `", stringify!($area),
                    "` is no area of the event table")
            );)*
        };
    };
    (@area any) => { None };
    (@area $area:ident) => { Some(stringify!($area)) };
}

rules! {
    /// The first event of a stream is `RUN_STARTED` (or `RUN_ERROR`).
    L1 in any,
    /// `RUN_STARTED` is rejected while a run is active.
    L2 in run,
    /// After `RUN_ERROR` only a new `RUN_STARTED` is accepted.
    L3 in any,
    /// After `RUN_FINISHED` only `RUN_ERROR` or a new `RUN_STARTED` is accepted.
    L4 in any,
    /// `RUN_FINISHED` is rejected while a step, message, reasoning span, tool call or
    /// subagent is still open.
    L5 in run,
    /// The `RUN_FINISHED` that closes a run carries the `runId` of its `RUN_STARTED` (a
    /// `RUN_ERROR` carries no ids, so a failed run has nothing to compare).
    L6 in run,
    /// Every run of a stream carries the stream's `threadId` (the input's: the first
    /// `RUN_STARTED`'s) on `RUN_STARTED` and `RUN_FINISHED`.
    L7 in run,
    /// `TEXT_MESSAGE_START` is rejected while a text message with that id is open.
    M1 in text_message,
    /// `TEXT_MESSAGE_CONTENT` / `TEXT_MESSAGE_END` need an open text message.
    M2 in text_message,
    /// `TOOL_CALL_START` is rejected while the call is open; `TOOL_CALL_ARGS` /
    /// `TOOL_CALL_END` need it open.
    T1 in tool_call,
    /// Text messages and tool calls interleave and are matched by id within their own kind:
    /// an event naming an id that is open only as the other kind is rejected.
    T2 in any,
    /// `TOOL_CALL_RESULT` has no ordering precondition but mints a new tool message: its
    /// `messageId` must not be a text message that is still streaming.
    T3 in tool_call,
    /// `STEP_STARTED` is rejected while a step of that name is open for the same owner.
    S1 in step,
    /// `STEP_FINISHED` needs an open step of that name and owner.
    S2 in step,
    /// A reasoning span or reasoning message opener is rejected while its own kind has the
    /// id open.
    Z1 in reasoning,
    /// `REASONING_MESSAGE_CONTENT` / `REASONING_MESSAGE_END` need an open reasoning
    /// message; `REASONING_END` needs an open span.
    Z2 in reasoning,
    /// `REASONING_ENCRYPTED_VALUE` may follow its entity's close; its attribution is still
    /// checked against the owner the entity had.
    Z3 in reasoning,
    /// `SUBAGENT_STARTED` needs a string id and name, an id neither active nor used earlier
    /// in the run, and a parent (if named) started in this run.
    A1 in subagent,
    /// `SUBAGENT_FINISHED` / `SUBAGENT_ERROR` need an active id (and `SUBAGENT_ERROR` a
    /// string `message`).
    A2 in subagent,
    /// A `SUBAGENT_FINISHED` outcome is `success` or `suspended`.
    A3 in subagent,
    /// Owners are recorded per entity kind for the whole run; reasoning spans and reasoning
    /// messages share one owner record.
    O1 in any,
    /// A continuation, close or re-open carrying a `subagentRunId` must match its entity's
    /// owner.
    O2 in any,
    /// A `TOOL_CALL_START` inside a parent message belongs to that message's owner.
    O3 in any,
    /// Owners assigned by `TOOL_CALL_RESULT`, `ACTIVITY_SNAPSHOT`, `MESSAGES_SNAPSHOT` and
    /// `RUN_STARTED.input` bind later events like an opener's.
    O4 in any,
    /// `REASONING_ENCRYPTED_VALUE` is attributed like its tool call (`tool-call`) or its
    /// text or reasoning message (`message`).
    O5 in any,
    /// `subagentRunId: null` is an error anywhere (spec §6 rule 12).
    O6 in any,
    /// The interrupts of one `RUN_FINISHED` interrupt outcome carry distinct ids.
    I1 in run,
    /// The first chunk of a stream needs its id (and a tool chunk its `toolCallName`).
    C1 in any,
    /// A continuation chunk may repeat an opener field only with the same value.
    C2 in any,
    /// An id-less, untagged continuation chunk must have exactly one stream to continue.
    C3 in any,
}

/// Whether `area` is `None` or the area of an event type of the table.
const fn is_event_area(area: Option<&str>) -> bool {
    let Some(area) = area else {
        return true;
    };
    let mut i = 0;
    while i < EventType::ALL.len() {
        if crate::model::event::table::eq(EventType::ALL[i].area().as_bytes(), area.as_bytes()) {
            return true;
        }
        i += 1;
    }
    false
}

impl Rule {
    /// Whether the rule can be broken by an event of type `event_type`: its area is the
    /// event's, or it is about several areas.
    #[must_use]
    pub fn governs(self, event_type: EventType) -> bool {
        self.area().is_none_or(|a| a == event_type.area())
    }

    /// The rule with id `id` (`"L1"`, …), if there is one.
    #[must_use]
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.as_str() == id)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How many ids a violation's text shows before it gives only their count.
pub(crate) const LISTED_IDS: usize = 5;

/// A broken stream rule: which rule, at which event, about which ids, and why.
///
/// `ids` holds every id concerned; the message and the `Display` text name at most five
/// of them (then how many more there are), and a message longer than 1 KiB keeps its
/// start and end around a count of the bytes left out, so no output grows with the input.
///
/// `index` is the 0-based position of the offending event in the stream given to the
/// checker that reported it ([`crate::Verifier`], [`crate::ChunkExpander`],
/// [`crate::stream::verify_events`] or [`crate::EventPipeline`], the last two counting the events
/// as they were given, before chunk expansion).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violation {
    /// The rule broken.
    pub rule: Rule,
    /// 0-based index of the offending event.
    pub index: usize,
    /// The ids concerned, most specific first: the entity id (message, tool call, step
    /// name, subagent run), then the subagent run ids whose attribution disagrees.
    pub ids: Vec<String>,
    /// What is wrong, in a sentence that names the event type and the ids.
    pub message: String,
}

impl Violation {
    /// Creates a violation.
    #[must_use]
    pub fn new(rule: Rule, index: usize, ids: Vec<String>, message: impl Into<String>) -> Self {
        Violation {
            rule,
            index,
            ids,
            message: crate::codec::shown::bounded(message.into()),
        }
    }

    /// The same violation, reported at another index (a pipeline maps the index of an
    /// expanded event back to the event it was expanded from).
    #[must_use]
    pub(crate) fn at(mut self, index: usize) -> Self {
        self.index = index;
        self
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule {} broken at event {}", self.rule, self.index)?;
        if !self.ids.is_empty() {
            let ids = crate::codec::shown::listed(
                self.ids.iter().map(String::as_str),
                self.ids.len(),
                LISTED_IDS,
            );
            write!(f, " ({ids})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Violation {}
