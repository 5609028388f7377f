//! The definitions table: every definition name of the AG-UI 1.0 schema (spec §8.5), named
//! once. The event definitions come from the event table ([`crate::for_each_event!`]);
//! this file adds the other standalone definitions and the three mixins.

/// Calls `$callback!` with every definition of the AG-UI 1.0 schema: the bracketed extra
/// tokens given after the callback (or `[]`), then
///
/// ```text
/// events: [TextMessageStartEvent ...]   // every event struct, in table order
/// types: [ActivityMessage ...]          // the other standalone definitions, sorted
/// mixins: [Attributable BaseEvent BaseMessage]
/// ```
///
/// Every name in `events` and `types` is a type exported at the crate root (`JsonPatch` and
/// `State` included), so a callback can decode or derive a schema for each. The mixins are
/// schema-only: they are parts of other definitions, never a document of their own.
///
/// ```
/// macro_rules! count {
///     ([] events: [$($e:ident)*] types: [$($t:ident)*] mixins: [$($m:ident)*]) => {
///         [$(stringify!($e),)* $(stringify!($t),)*].len()
///     };
/// }
/// // The standalone definitions: every definition but the mixins.
/// let standalone = ag_ui_core::DEFINITIONS.len() - ag_ui_core::MIXINS.len();
/// assert_eq!(ag_ui_core::for_each_definition!(count), standalone);
/// ```
#[macro_export]
macro_rules! for_each_definition {
    ($($callback:ident)::+ $(, $($args:tt)*)?) => {
        $crate::for_each_event! {
            $crate::__for_each_definition_with_events,
            [$($callback)::+] [$($($args)*)?]
        }
    };
}

/// The second half of [`for_each_definition!`]: receives the event table.
#[doc(hidden)]
#[macro_export]
macro_rules! __for_each_definition_with_events {
    (
        [[$($callback:ident)::+] [$($args:tt)*]]
        $($variant:ident($ty:ident) = $wire:literal in $area:ident since $since:ident [$attr:ident, $boxing:ident, $naming:ident],)*
    ) => {
        $($callback)::+! {
            [$($args)*]
            events: [$($ty)*]
            types: [
            ActivityMessage AddOperation AgentCapabilities AssistantMessage AudioPart
            ContentPart Context CopyOperation DataSource DeveloperMessage DocumentPart Event
            EventType ExecutionCapabilities FileSource FunctionCall HumanInTheLoopCapabilities
            IdentityCapabilities ImagePart Interrupt JsonPatch JsonPatchOperation JsonPointer
            Message Metadata MoveOperation MultiAgentCapabilities MultimodalCapabilities
            MultimodalInputCapabilities MultimodalOutputCapabilities OutputCapabilities
            PartSource ReasoningCapabilities ReasoningEncryptedValueSubtype ReasoningMessage
            RemoveOperation ReplaceOperation ResumeEntry Role RunAgentInput
            RunFinishedCancelledOutcome RunFinishedInterruptOutcome RunFinishedOutcome
            RunFinishedSuccessOutcome State StateCapabilities SubagentFinishedOutcome
            SubagentFinishedSuccessOutcome SubagentFinishedSuspendedOutcome SubagentInfo
            SubagentRunId SystemMessage TestOperation TextMessageRole TextPart TokenUsage Tool
            ToolCall ToolMessage ToolsCapabilities TransportCapabilities UrlSource UserMessage
            VideoPart
            ]
            mixins: [Attributable BaseEvent BaseMessage]
        }
    };
}

macro_rules! definition_names {
    ([] events: [$($e:ident)*] types: [$($t:ident)*] mixins: [$($m:ident)*]) => {
        /// Every definition name of the AG-UI 1.0 schema, sorted (byte order): the
        /// published JSON Schema's `$defs` keys.
        pub const DEFINITIONS: [&str; [$(stringify!($e),)* $(stringify!($t),)* $(stringify!($m),)*].len()] =
            sorted([$(stringify!($e),)* $(stringify!($t),)* $(stringify!($m),)*]);

        /// The three mixins among [`DEFINITIONS`]: `Attributable`, `BaseEvent` and
        /// `BaseMessage`, parts of other definitions, never a document of their own.
        pub const MIXINS: [&str; 3] = [$(stringify!($m)),*];
    };
}

crate::for_each_definition!(definition_names);

/// `names`, sorted by bytes (a `const` insertion sort: the lists are short and built once).
const fn sorted<const N: usize>(mut names: [&'static str; N]) -> [&'static str; N] {
    let mut i = 1;
    while i < N {
        let mut j = i;
        while j > 0 && less(names[j].as_bytes(), names[j - 1].as_bytes()) {
            let t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    names
}

const fn less(a: &[u8], b: &[u8]) -> bool {
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}
